/*
 * The encoders of a build that sends no network message but PUSH and DECLARE, declares only key
 * expressions and sends no query nor reply (a publisher-only client, built with that client's
 * options by tests/CMakeLists.txt): what it sends comes out byte for byte as the complete codec
 * writes it, and what it cannot send fails to encode (Z_EINVAL), leaving the writer as it was.
 * A PUSH goes out from its parts (zm_push_encode), a DECLARE as a message (zm_network_encode).
 */
#include <string.h>

#include "check.h"
#include "proto/codec.h"

_Static_assert(!ZM_CODEC_FULL && !Z_FEATURE_SUBSCRIPTION && !Z_FEATURE_QUERY && !Z_FEATURE_QUERYABLE,
               "this test needs a build that encodes only what a publisher sends");

static uint8_t out[256];
static size_t out_len;

/* Encodes m into out after a marker byte, a PUSH from its parts as a put sends it; returns what
 * the encoder gave. */
static z_result_t encode(const zm_network_msg_t *m)
{
    zm_writer_t w;
    zm_writer_init(&w, out, sizeof(out));
    out[0] = 0xaa;
    w.len = 1;
    z_result_t rc;
    if (m->id == ZM_MID_N_PUSH) {
        CHECK_EQ_INT(m->ext.present & ~ZM_NET_EXT_QOS, 0); /* a put's PUSH has no other extension */
        zm_push_ref_t p = {.wire_expr = m->body.push.wire_expr,
                           .qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT,
                           .body_id = m->body.push.body_id,
                           .body = &m->body.push.body.put};
        rc = zm_push_encode(&w, &p);
    } else {
        rc = zm_network_encode(&w, m);
    }
    out_len = w.len;
    return rc;
}

#define EXPECT_BYTES(m, ...)                                                                 \
    do {                                                                                     \
        static const uint8_t want_[] = {0xaa, __VA_ARGS__};                                  \
        CHECK_EQ_INT(encode(m), Z_OK);                                                       \
        CHECK_EQ_MEM(out, out_len, want_, sizeof(want_));                                    \
    } while (0)

#define EXPECT_EINVAL(m)                                                                     \
    do {                                                                                     \
        CHECK_EQ_INT(encode(m), Z_EINVAL);                                                   \
        CHECK_EQ_INT(out_len, 1);                                                            \
    } while (0)

static void push(zm_network_msg_t *m, uint8_t body_id)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_PUSH;
    m->body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m->body.push.wire_expr.scope = 3;
    m->body.push.body_id = body_id;
}

static void declare(zm_network_msg_t *m, uint8_t kind, uint32_t id, const char *key)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    m->body.declare.decl.kind = kind;
    m->body.declare.decl.id = id;
    if (key != NULL) {
        m->body.declare.decl.wire_expr.has_suffix = true;
        m->body.declare.decl.wire_expr.suffix = zm_slice(key, strlen(key));
    }
}

int main(void)
{
    zm_network_msg_t m;

    /* PUT with no extension, then with the QoS one, a timestamp, an encoding and an attachment */
    push(&m, ZM_MID_PUT);
    m.body.push.body.put.payload = zm_slice("hi", 2);
    EXPECT_BYTES(&m, 0x5d, 0x03, 0x01, 0x02, 'h', 'i');
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = 0x0d;
    zm_put_t *put = &m.body.push.body.put;
    put->has_timestamp = true;
    put->timestamp.time = 0x81;
    put->timestamp.id.len = 1;
    put->timestamp.id.id[0] = 0x07;
    put->has_encoding = true;
    put->encoding.id = 2;
    put->exts = ZM_PUT_EXT_ATTACHMENT;
    put->attachment = zm_slice("a", 1);
    EXPECT_BYTES(&m, 0xdd, 0x03, 0x21, 0x0d, 0xe1, 0x81, 0x01, 0x01, 0x07, 0x04, 0x43, 0x01, 'a', 0x02, 'h', 'i');

    /* DEL: its attachment has another id, and it has no shared-memory mark (the bit is not
     * DEL's), encoding nor payload */
    push(&m, ZM_MID_DEL);
    m.body.push.body.put.exts = ZM_PUT_EXT_SHM | ZM_PUT_EXT_ATTACHMENT;
    m.body.push.body.put.attachment = zm_slice("a", 1);
    m.body.push.body.put.has_encoding = true;
    EXPECT_BYTES(&m, 0x5d, 0x03, 0x82, 0x42, 0x01, 'a');

    /* what this build cannot send: a source info, a shared-memory mark (only a received PUT has
     * one), an unknown extension */
    push(&m, ZM_MID_PUT);
    m.body.push.body.put.exts = ZM_PUT_EXT_SOURCE;
    EXPECT_EINVAL(&m);
    push(&m, ZM_MID_PUT);
    m.body.push.body.put.exts = ZM_PUT_EXT_SHM | ZM_PUT_EXT_ATTACHMENT;
    m.body.push.body.put.attachment = zm_slice("a", 1);
    EXPECT_EINVAL(&m);
    push(&m, ZM_MID_PUT);
    m.body.push.body.put.unknown.n = 1;
    m.body.push.body.put.unknown.raw[0] = zm_slice("\x05\x01", 2);
    EXPECT_EINVAL(&m);
    /* nor a PUSH as a network message: that is zm_push_encode's */
    push(&m, ZM_MID_PUT);
    zm_writer_t w;
    zm_writer_init(&w, out, sizeof(out));
    CHECK_EQ_INT(zm_network_encode(&w, &m), Z_EINVAL);
    CHECK_EQ_INT(w.len, 0);

    /* D_KEYEXPR, U_KEYEXPR, and the D_FINAL of interest 0 */
    declare(&m, ZM_DECL_KEYEXPR, 1, "demo");
    EXPECT_BYTES(&m, 0x9e, 0x21, 0x08, 0x20, 0x01, 0x00, 0x04, 'd', 'e', 'm', 'o');
    declare(&m, ZM_UNDECL_KEYEXPR, 0x1234, NULL);
    EXPECT_BYTES(&m, 0x9e, 0x21, 0x08, 0x01, 0xb4, 0x24);
    declare(&m, ZM_DECL_FINAL, 0, NULL);
    m.body.declare.has_interest_id = true;
    EXPECT_BYTES(&m, 0xbe, 0x00, 0x21, 0x08, 0x1a);

    /* the declarations of subscribers, queryables and tokens are not this build's to send */
    declare(&m, ZM_DECL_SUBSCRIBER, 1, "demo");
    EXPECT_EINVAL(&m);
    declare(&m, ZM_UNDECL_TOKEN, 1, NULL);
    EXPECT_EINVAL(&m);
    declare(&m, ZM_DECL_KEYEXPR, 1, "demo");
    m.body.declare.decl.unknown.n = 1;
    m.body.declare.decl.unknown.raw[0] = zm_slice("\x05\x01", 2);
    EXPECT_EINVAL(&m);

    /* a network message this build does not encode */
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_INTEREST;
    EXPECT_EINVAL(&m);
    return CHECK_DONE();
}
