/*
 * Network messages, declarations and zenoh bodies against the Rust 1.10.2 golden vectors: each
 * message is built by hand from its description, must encode byte-exact, and the golden bytes
 * must decode to the same fields and re-encode to themselves. Also the core primitives.
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "proto/codec.h"
#include "vectors.h"

static unsigned char gold[4096];

static zm_slice_t str(const char *s) { return zm_slice(s, strlen(s)); }

static zm_wire_expr_t wexpr(uint16_t scope, const char *suffix, uint8_t mapping)
{
    zm_wire_expr_t we = {scope, mapping, suffix != NULL && suffix[0] != '\0', zm_slice(NULL, 0)};
    if (we.has_suffix) {
        we.suffix = str(suffix);
    }
    return we;
}

static int slice_is(zm_slice_t s, const char *v) { return zm_slice_eq(s, str(v)); }

static zm_zid_t zid2(void)
{
    zm_zid_t z = {2, {0x01, 0x02}};
    return z;
}

/* Encodes m, compares with the golden vector, decodes the vector into out and re-encodes it. */
static void roundtrip(const char *name, const zm_network_msg_t *m, zm_network_msg_t *out)
{
    long n = vec_get(name, gold, sizeof(gold));
    CHECK_CTX(n > 0, "%s", name);
    if (n <= 0) {
        return;
    }
    uint8_t buf[4096];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_network_encode(&w, m), Z_OK);
    CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);

    zm_reader_t r;
    zm_reader_init(&r, gold, (size_t)n);
    memset(out, 0xa5, sizeof(*out)); /* no field may keep garbage */
    CHECK_EQ_INT(zm_network_decode(&r, out), Z_OK);
    CHECK_CTX(zm_reader_left(&r) == 0, "%s: %zu bytes left", name, zm_reader_left(&r));
    CHECK_EQ_INT(out->id, m->id);
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_network_encode(&w, out), Z_OK);
    CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);

    /* every shorter buffer: a clean "does not fit" that leaves the writer as it was */
    for (size_t cap = 0; cap < (size_t)n; cap++) {
        zm_writer_init(&w, buf, cap);
        z_result_t rc = zm_network_encode(&w, m);
        CHECK_CTX(rc == ZM_E_NO_SPACE && w.len == 0, "%s: cap %zu rc %d len %zu", name, cap, rc, w.len);
    }
    /* every truncation of the vector: an error, never a message */
    for (size_t cut = 0; cut < (size_t)n; cut++) {
        zm_network_msg_t t;
        zm_reader_init(&r, gold, cut);
        CHECK_CTX(zm_network_decode(&r, &t) != Z_OK, "%s: truncated at %zu decoded", name, cut);
    }
}

static zm_network_msg_t net(uint8_t id)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = id;
    return m;
}

static void test_push(void)
{
    zm_network_msg_t m = net(ZM_MID_N_PUSH), d;
    m.body.push.wire_expr = wexpr(0, "demo/example", ZM_MAPPING_RECEIVER);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = str("hi");
    roundtrip("PUSH 'demo/example' PUT 'hi' (defaults)", &m, &d);
    CHECK(slice_is(d.body.push.wire_expr.suffix, "demo/example"));
    CHECK_EQ_INT(d.body.push.wire_expr.scope, 0);
    CHECK_EQ_INT(d.ext.present, 0);
    CHECK_EQ_INT(d.body.push.body_id, ZM_MID_PUT);
    CHECK(slice_is(d.body.push.body.put.payload, "hi"));
    CHECK(!d.body.push.body.put.has_timestamp && !d.body.push.body.put.has_encoding);

    m = net(ZM_MID_N_PUSH);
    m.body.push.wire_expr = wexpr(3, "/x", ZM_MAPPING_SENDER);
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = 4 | ZM_QOS_BLOCK | ZM_QOS_EXPRESS;
    m.body.push.body_id = ZM_MID_PUT;
    zm_put_t *p = &m.body.push.body.put;
    p->has_timestamp = true;
    p->timestamp.time = 0x0000000180000000ull;
    p->timestamp.id.len = 1;
    p->timestamp.id.id[0] = 1;
    p->has_encoding = true;
    p->encoding.id = 1;
    p->exts = ZM_PUT_EXT_ATTACHMENT;
    p->attachment = zm_slice("\x01\x02", 2);
    p->payload = str("hi");
    roundtrip("PUSH scope=3 suffix='/x' M=sender QoS(prio4,block,express) PUT ts+enc!(1)+attachment(01 02) 'hi'", &m, &d);
    CHECK_EQ_INT(d.body.push.wire_expr.scope, 3);
    CHECK_EQ_INT(d.body.push.wire_expr.mapping, ZM_MAPPING_SENDER);
    CHECK_EQ_INT(d.ext.qos, 0x1c);
    CHECK_EQ_INT(d.body.push.body.put.timestamp.time, 0x0000000180000000ll);
    CHECK_EQ_INT(d.body.push.body.put.timestamp.id.len, 1);
    CHECK_EQ_INT(d.body.push.body.put.encoding.id, 1);
    CHECK_EQ_INT(d.body.push.body.put.exts, ZM_PUT_EXT_ATTACHMENT);
    CHECK(zm_slice_eq(d.body.push.body.put.attachment, zm_slice("\x01\x02", 2)));

    m = net(ZM_MID_N_PUSH);
    m.body.push.wire_expr = wexpr(7, NULL, ZM_MAPPING_RECEIVER);
    m.ext.present = ZM_NET_EXT_NODEID;
    m.ext.nodeid = 2;
    m.body.push.body_id = ZM_MID_DEL;
    m.body.push.body.del.exts = ZM_DEL_EXT_SOURCE;
    m.body.push.body.del.source.zid = zid2();
    m.body.push.body.del.source.eid = 5;
    m.body.push.body.del.source.sn = 9;
    roundtrip("PUSH scope=7 (no suffix, receiver mapping) nodeid=2 DEL with SourceInfo(zid 0102, eid 5, sn 9)", &m, &d);
    CHECK_EQ_INT(d.body.push.wire_expr.scope, 7);
    CHECK(!d.body.push.wire_expr.has_suffix);
    CHECK_EQ_INT(d.ext.nodeid, 2);
    CHECK_EQ_INT(d.body.push.body_id, ZM_MID_DEL);
    CHECK_EQ_INT(d.body.push.body.del.source.eid, 5);
    CHECK_EQ_INT(d.body.push.body.del.source.sn, 9);
    CHECK_EQ_MEM(d.body.push.body.del.source.zid.id, d.body.push.body.del.source.zid.len, "\x01\x02", 2);
}

static zm_network_msg_t declare(uint8_t kind, uint32_t id, zm_wire_expr_t we)
{
    zm_network_msg_t m = net(ZM_MID_N_DECLARE);
    m.body.declare.decl.kind = kind;
    m.body.declare.decl.id = id;
    m.body.declare.decl.wire_expr = we;
    return m;
}

static void test_declare(void)
{
    zm_network_msg_t m, d;
    zm_wire_expr_t none = wexpr(0, NULL, ZM_MAPPING_RECEIVER);

    m = declare(ZM_DECL_KEYEXPR, 1, wexpr(0, "demo", ZM_MAPPING_RECEIVER));
    roundtrip("DECLARE D_KEYEXPR id=1 'demo' (default QoS)", &m, &d);
    CHECK_EQ_INT(d.body.declare.decl.kind, ZM_DECL_KEYEXPR);
    CHECK_EQ_INT(d.body.declare.decl.id, 1);
    CHECK(slice_is(d.body.declare.decl.wire_expr.suffix, "demo"));

    m = declare(ZM_DECL_SUBSCRIBER, 1, wexpr(0, "demo/**", ZM_MAPPING_SENDER));
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    roundtrip("DECLARE(QoS=DECLARE) D_SUBSCRIBER id=1 'demo/**'", &m, &d);
    CHECK_EQ_INT(d.ext.qos, ZM_QOS_DECLARE);
    CHECK_EQ_INT(d.body.declare.decl.wire_expr.mapping, ZM_MAPPING_SENDER);
    CHECK(!d.body.declare.has_interest_id);

    m = declare(ZM_DECL_SUBSCRIBER, 1, wexpr(0, "demo/**", ZM_MAPPING_SENDER));
    roundtrip("DECLARE D_SUBSCRIBER id=1 'demo/**' (default QoS, as a C client might send)", &m, &d);
    CHECK_EQ_INT(d.ext.present, 0);

    m = declare(ZM_UNDECL_SUBSCRIBER, 1, none);
    roundtrip("DECLARE U_SUBSCRIBER id=1 (null ext)", &m, &d);
    CHECK_EQ_INT(d.body.declare.decl.kind, ZM_UNDECL_SUBSCRIBER);
    CHECK(!d.body.declare.decl.has_ext_wire);

    m = declare(ZM_UNDECL_SUBSCRIBER, 1, wexpr(0, "demo/**", ZM_MAPPING_SENDER));
    m.body.declare.decl.has_ext_wire = true;
    roundtrip("DECLARE U_SUBSCRIBER id=1 ext wire 'demo/**'", &m, &d);
    CHECK(d.body.declare.decl.has_ext_wire);
    CHECK(slice_is(d.body.declare.decl.wire_expr.suffix, "demo/**"));

    m = declare(ZM_DECL_QUERYABLE, 2, wexpr(0, "demo/q", ZM_MAPPING_SENDER));
    m.body.declare.decl.has_qbl_info = true;
    m.body.declare.decl.qbl_complete = true;
    roundtrip("DECLARE D_QUERYABLE id=2 'demo/q' complete=1 distance=0", &m, &d);
    CHECK(d.body.declare.decl.has_qbl_info && d.body.declare.decl.qbl_complete);
    CHECK_EQ_INT(d.body.declare.decl.qbl_distance, 0);

    m.body.declare.decl.qbl_complete = false;
    m.body.declare.decl.qbl_distance = 1;
    roundtrip("DECLARE D_QUERYABLE id=2 'demo/q' complete=0 distance=1", &m, &d);
    CHECK(!d.body.declare.decl.qbl_complete);
    CHECK_EQ_INT(d.body.declare.decl.qbl_distance, 1);

    m = declare(ZM_UNDECL_QUERYABLE, 2, none);
    m.body.declare.decl.has_ext_wire = true;
    roundtrip("DECLARE U_QUERYABLE id=2 (null ext)", &m, &d);
    CHECK(d.body.declare.decl.has_ext_wire);
    CHECK_EQ_INT(d.body.declare.decl.wire_expr.suffix.len, 0);

    m = declare(ZM_DECL_TOKEN, 3, wexpr(0, "demo/tok", ZM_MAPPING_SENDER));
    roundtrip("DECLARE D_TOKEN id=3 'demo/tok'", &m, &d);
    CHECK_EQ_INT(d.body.declare.decl.id, 3);

    m = declare(ZM_UNDECL_TOKEN, 3, none);
    m.body.declare.decl.has_ext_wire = true;
    roundtrip("DECLARE U_TOKEN id=3 (null ext)", &m, &d);

    m = declare(ZM_DECL_SUBSCRIBER, 0, wexpr(0, "demo/a", ZM_MAPPING_SENDER));
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = 7;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    roundtrip("DECLARE(I, interest_id=7, QoS=DECLARE) D_SUBSCRIBER id=0 'demo/a'", &m, &d);
    CHECK(d.body.declare.has_interest_id);
    CHECK_EQ_INT(d.body.declare.interest_id, 7);

    m = declare(ZM_DECL_FINAL, 0, none);
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = 7;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    roundtrip("DECLARE(I, interest_id=7, QoS=DECLARE) D_FINAL", &m, &d);
    CHECK_EQ_INT(d.body.declare.decl.kind, ZM_DECL_FINAL);

    m = declare(ZM_DECL_FINAL, 0, none);
    m.body.declare.has_interest_id = true;
    roundtrip("DECLARE(I, interest_id=0) D_FINAL default QoS", &m, &d);
    CHECK_EQ_INT(d.body.declare.interest_id, 0);
}

static void test_interest(void)
{
    zm_network_msg_t m = net(ZM_MID_N_INTEREST), d;
    m.body.interest.id = 1;
    m.body.interest.mode = ZM_INTEREST_CURRENT_FUTURE;
    m.body.interest.options = ZM_INTEREST_K | ZM_INTEREST_S | ZM_INTEREST_R;
    m.body.interest.wire_expr = wexpr(0, "demo/**", ZM_MAPPING_SENDER);
    roundtrip("INTEREST id=1 CurrentFuture K+S restricted 'demo/**'", &m, &d);
    CHECK_EQ_INT(d.body.interest.mode, ZM_INTEREST_CURRENT_FUTURE);
    CHECK_EQ_INT(d.body.interest.options, 0x73);
    CHECK(slice_is(d.body.interest.wire_expr.suffix, "demo/**"));

    m = net(ZM_MID_N_INTEREST);
    m.body.interest.id = 2;
    m.body.interest.mode = ZM_INTEREST_FUTURE;
    m.body.interest.options = ZM_INTEREST_K | ZM_INTEREST_S | ZM_INTEREST_Q | ZM_INTEREST_T;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    roundtrip("INTEREST id=2 Future K+S+Q+T unrestricted (QoS=INTEREST)", &m, &d);
    CHECK_EQ_INT(d.body.interest.options, 0x0f);
    CHECK_EQ_INT(d.ext.qos, 0x08);

    m = net(ZM_MID_N_INTEREST);
    m.body.interest.id = 3;
    m.body.interest.mode = ZM_INTEREST_CURRENT;
    m.body.interest.options = ZM_INTEREST_T | ZM_INTEREST_R;
    m.body.interest.wire_expr = wexpr(0, "group/**", ZM_MAPPING_SENDER);
    roundtrip("INTEREST id=3 Current T restricted 'group/**'", &m, &d);
    CHECK_EQ_INT(d.body.interest.mode, ZM_INTEREST_CURRENT);

    m = net(ZM_MID_N_INTEREST);
    m.body.interest.id = 1;
    roundtrip("INTEREST id=1 Final", &m, &d);
    CHECK_EQ_INT(d.body.interest.mode, ZM_INTEREST_FINAL);
    CHECK_EQ_INT(d.body.interest.id, 1);
}

static void test_request_response(void)
{
    zm_network_msg_t m = net(ZM_MID_N_REQUEST), d;
    m.body.request.rid = 1;
    m.body.request.wire_expr = wexpr(0, "demo/q", ZM_MAPPING_SENDER);
    m.ext.present = ZM_NET_EXT_QOS | ZM_NET_EXT_TARGET | ZM_NET_EXT_TIMEOUT;
    m.ext.qos = ZM_QOS_REQUEST;
    m.ext.target = ZM_TARGET_ALL;
    m.ext.timeout_ms = 10000;
    m.body.request.query.has_consolidation = true;
    m.body.request.query.consolidation = ZM_CONSOLIDATION_NONE;
    m.body.request.query.has_parameters = true;
    m.body.request.query.parameters = str("a=1");
    roundtrip("REQUEST id=1 'demo/q' QoS=REQUEST(0x0d) target=All timeout=10000ms QUERY consolidation=None params 'a=1'", &m, &d);
    CHECK_EQ_INT(d.body.request.rid, 1);
    CHECK_EQ_INT(d.ext.target, ZM_TARGET_ALL);
    CHECK_EQ_INT(d.ext.timeout_ms, 10000);
    CHECK_EQ_INT(d.body.request.query.consolidation, ZM_CONSOLIDATION_NONE);
    CHECK(slice_is(d.body.request.query.parameters, "a=1"));

    m = net(ZM_MID_N_REQUEST);
    m.body.request.rid = 2;
    m.body.request.wire_expr = wexpr(0, "demo/q", ZM_MAPPING_SENDER);
    m.ext.present = ZM_NET_EXT_BUDGET;
    m.ext.budget = 3;
    m.body.request.query.exts = ZM_QUERY_EXT_BODY;
    m.body.request.query.body_payload = str("xy");
    roundtrip("REQUEST id=2 'demo/q' budget=3 QUERY (auto) with body ext enc0 'xy'", &m, &d);
    CHECK_EQ_INT(d.ext.budget, 3);
    CHECK_EQ_INT(d.body.request.query.exts, ZM_QUERY_EXT_BODY);
    CHECK(slice_is(d.body.request.query.body_payload, "xy"));
    CHECK_EQ_INT(d.body.request.query.body_encoding.id, 0);

    m = net(ZM_MID_N_RESPONSE);
    m.body.response.rid = 1;
    m.body.response.wire_expr = wexpr(0, "demo/q", ZM_MAPPING_SENDER);
    m.ext.present = ZM_NET_EXT_RESPONDER;
    m.ext.responder.zid = zid2();
    m.ext.responder.eid = 4;
    m.body.response.body_id = ZM_MID_REPLY;
    m.body.response.body.reply.body_id = ZM_MID_PUT;
    m.body.response.body.reply.body.put.payload = str("hi");
    roundtrip("RESPONSE rid=1 'demo/q' responder(zid 0102, eid 4) REPLY PUT 'hi'", &m, &d);
    CHECK_EQ_INT(d.ext.responder.eid, 4);
    CHECK_EQ_INT(d.body.response.body_id, ZM_MID_REPLY);
    CHECK(slice_is(d.body.response.body.reply.body.put.payload, "hi"));

    m.ext.present = 0;
    roundtrip("RESPONSE rid=1 'demo/q' REPLY PUT 'hi' (no exts)", &m, &d);

    m = net(ZM_MID_N_RESPONSE);
    m.body.response.rid = 1;
    m.body.response.wire_expr = wexpr(0, "demo/q", ZM_MAPPING_SENDER);
    m.body.response.body_id = ZM_MID_ERR;
    m.body.response.body.err.has_encoding = true;
    m.body.response.body.err.encoding.id = 1;
    m.body.response.body.err.payload = str("bad");
    roundtrip("RESPONSE rid=1 'demo/q' ERR enc=1 'bad'", &m, &d);
    CHECK_EQ_INT(d.body.response.body_id, ZM_MID_ERR);
    CHECK(slice_is(d.body.response.body.err.payload, "bad"));

    m = net(ZM_MID_N_RESPONSE_FINAL);
    m.body.response_final.rid = 1;
    roundtrip("RESPONSE_FINAL rid=1", &m, &d);
    CHECK_EQ_INT(d.body.response_final.rid, 1);
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_REQUEST;
    roundtrip("RESPONSE_FINAL rid=1 QoS(0x0d)", &m, &d);
    CHECK_EQ_INT(d.ext.qos, 0x0d);

    m = net(ZM_MID_N_OAM);
    m.body.oam.id = 1;
    m.body.oam.enc = ZM_OAM_ZBUF;
    m.body.oam.zbuf = zm_slice("\xaa\xbb", 2);
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    roundtrip("network OAM id=1 (linkstate) zbuf aabb QoS=OAM", &m, &d);
    CHECK_EQ_INT(d.body.oam.id, 1);
    CHECK(zm_slice_eq(d.body.oam.zbuf, zm_slice("\xaa\xbb", 2)));
}

static void test_named_errors(void)
{
    zm_network_msg_t d;
    zm_reader_t r;
    /* Rust rejects a PUSH whose QoS extension carries the M bit (0x31 instead of 0x21). */
    static const uint8_t qos_m[] = {0xbd, 0x00, 0x02, 0x61, 0x62, 0x31, 0x05, 0x01, 0x00};
    zm_reader_init(&r, qos_m, sizeof(qos_m));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_EXT_MANDATORY);
    CHECK_EQ_INT(zm_reader_offset(&r), 5);
    /* an unknown non-mandatory extension is skipped, and kept */
    static const uint8_t unk[] = {0xbd, 0x00, 0x02, 0x61, 0x62, 0x4e, 0x01, 0x00, 0x01, 0x00};
    zm_reader_init(&r, unk, sizeof(unk));
    CHECK_EQ_INT(zm_network_decode(&r, &d), Z_OK);
    CHECK_EQ_INT(d.ext.unknown.n, 1);
    /* over-bound z16 (scope 65536) and z32 (request id 2^32) */
    static const uint8_t scope[] = {0x1d, 0x80, 0x80, 0x04, 0x01, 0x00};
    zm_reader_init(&r, scope, sizeof(scope));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_ZINT_OVERFLOW);
    static const uint8_t rid[] = {0x1a, 0x80, 0x80, 0x80, 0x80, 0x10};
    zm_reader_init(&r, rid, sizeof(rid));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_ZINT_OVERFLOW);
    /* 10 continuation-marked bytes: the 9th carries 8 data bits, so this is u64 > u32 */
    static const uint8_t ten[] = {0x1a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    zm_reader_init(&r, ten, sizeof(ten));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_ZINT_OVERFLOW);
    /* extension encoding 0b11 */
    static const uint8_t enc3[] = {0x9a, 0x01, 0x61};
    zm_reader_init(&r, enc3, sizeof(enc3));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_EXT_ENCODING);
    /* an id outside the network namespace, and a PUSH whose body is not PUT/DEL */
    static const uint8_t bad_id[] = {0x05, 0x00};
    zm_reader_init(&r, bad_id, sizeof(bad_id));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_MSG_UNKNOWN);
    static const uint8_t bad_body[] = {0x3d, 0x00, 0x01, 0x61, 0x03};
    zm_reader_init(&r, bad_body, sizeof(bad_body));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_BODY_UNKNOWN);
    /* invalid UTF-8 in a key expression */
    static const uint8_t utf[] = {0x3d, 0x00, 0x01, 0xff, 0x01, 0x00};
    zm_reader_init(&r, utf, sizeof(utf));
    CHECK_EQ_INT(zm_network_decode(&r, &d), Z_EUTF8);
    /* request target out of range */
    static const uint8_t tgt[] = {0xfc, 0x01, 0x00, 0x01, 0x61, 0x34, 0x03, 0x03};
    zm_reader_init(&r, tgt, sizeof(tgt));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_FIELD);
    /* a zero zid in a source info */
    static const uint8_t zz[] = {0x1d, 0x07, 0x82, 0x41, 0x04, 0x00, 0x00, 0x05, 0x09};
    zm_reader_init(&r, zz, sizeof(zz));
    CHECK_EQ_INT(zm_network_decode(&r, &d), ZM_E_ZID);
}

static void test_primitives(void)
{
    static const uint64_t zints[] = {0, 1, 127, 128, 255, 300, 16383, 16384, 268435455ull, 4294967295ull,
                                     72057594037927935ull, 72057594037927936ull, UINT64_MAX};
    for (size_t i = 0; i < ZM_ARRAY_LEN(zints); i++) {
        char name[64];
        snprintf(name, sizeof(name), "zint %llu", (unsigned long long)zints[i]);
        long n = vec_get(name, gold, sizeof(gold));
        uint8_t buf[16];
        zm_writer_t w;
        zm_writer_init(&w, buf, sizeof(buf));
        CHECK_EQ_INT(zm_write_zint(&w, zints[i]), Z_OK);
        CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);
        CHECK_EQ_INT(zm_zint_len(zints[i]), n);
        zm_reader_t r;
        uint64_t v = 0;
        zm_reader_init(&r, gold, (size_t)n);
        CHECK_EQ_INT(zm_read_zint(&r, &v), Z_OK);
        CHECK_CTX(v == zints[i], "%s", name);
        CHECK_EQ_INT(zm_reader_left(&r), 0);
        zm_reader_init(&r, gold, (size_t)n - 1);
        CHECK_EQ_INT(zm_read_zint(&r, &v), ZM_E_TRUNCATED);
        CHECK_EQ_INT(zm_reader_offset(&r), 0);
    }
    /* the timestamp and encodings */
    long n = vec_get("timestamp t=0x0000000180000000 id=01", gold, sizeof(gold));
    zm_timestamp_t ts = {0x0000000180000000ull, {1, {1}}}, tsd;
    uint8_t buf[64];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_timestamp_write(&w, &ts), Z_OK);
    CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);
    zm_reader_t r;
    zm_reader_init(&r, gold, (size_t)n);
    CHECK_EQ_INT(zm_timestamp_read(&r, &tsd), Z_OK);
    CHECK(tsd.time == ts.time && tsd.id.len == 1 && tsd.id.id[0] == 1);

    n = vec_get("encoding id5 schema 'abc'", gold, sizeof(gold));
    zm_encoding_t e = {5, true, str("abc")}, ed;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_encoding_write(&w, &e), Z_OK);
    CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);
    zm_reader_init(&r, gold, (size_t)n);
    CHECK_EQ_INT(zm_encoding_read(&r, &ed), Z_OK);
    CHECK(ed.id == 5 && ed.has_schema && slice_is(ed.schema, "abc"));
    n = vec_get("encoding id 200", gold, sizeof(gold));
    e.id = 200;
    e.has_schema = false;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_encoding_write(&w, &e), Z_OK);
    CHECK_EQ_MEM(buf, w.len, gold, (size_t)n);

    /* UTF-8: overlong, surrogate and truncated sequences are refused */
    CHECK(zm_utf8_valid(str("demo/\xc3\xa9t\xc3\xa9")));
    CHECK(!zm_utf8_valid(zm_slice("\xc0\xaf", 2)));
    CHECK(!zm_utf8_valid(zm_slice("\xed\xa0\x80", 3)));
    CHECK(!zm_utf8_valid(zm_slice("\xe2\x82", 2)));
    CHECK(!zm_utf8_valid(zm_slice("\xf4\x90\x80\x80", 4)));
}

/*
 * A FRAME's messages as the batch iterator hands them out, which decodes the PUSH of a stream
 * (a key id alone, a plain PUT) on a path of its own: every message, of that form or near it,
 * must come out as zm_network_decode makes it, with the same result and the reader at the same
 * place, whatever the path.
 */
static void test_push_paths(void)
{
    static uint8_t in[300];
    static const struct {
        const char *what;
        uint8_t head[6];
        size_t head_len, payload, cut;
    } cases[] = {
        {"plain, receiver mapping", {0x1d, 0x05, 0x01, 0x08}, 4, 8, 0},
        {"plain, sender mapping, empty", {0x5d, 0x01, 0x01, 0x00}, 4, 0, 0},
        {"plain, two-byte length", {0x5d, 0x7f, 0x01, 0xc8, 0x01}, 5, 200, 0},
        {"plain, payload cut short", {0x5d, 0x01, 0x01, 0x08}, 4, 8, 5},
        {"plain, length cut short", {0x5d, 0x01, 0x01, 0xc8}, 4, 0, 0},
        {"plain, three-byte length", {0x5d, 0x01, 0x01, 0x80, 0x80, 0x01}, 6, 0, 0},
        {"plain, length in two bytes that could be one", {0x5d, 0x01, 0x01, 0x88, 0x00}, 5, 8, 0},
        {"header alone", {0x5d}, 1, 0, 0},
        {"a DEL", {0x5d, 0x01, 0x02}, 3, 0, 0},
        {"two-byte scope", {0x5d, 0x81, 0x01, 0x01, 0x08}, 5, 8, 0},
        {"a suffix", {0x3d, 0x00, 0x01, 0x61, 0x01, 0x08}, 6, 8, 0},
        {"a QoS extension", {0xdd, 0x01, 0x21, 0x05, 0x01, 0x08}, 6, 8, 0},
        {"a timestamped PUT", {0x5d, 0x01, 0x21, 0x08}, 4, 8, 0},
        {"a PUT with an extension", {0x5d, 0x01, 0x81, 0x08}, 4, 8, 0},
    };
    for (size_t c = 0; c < ZM_ARRAY_LEN(cases); c++) {
        size_t len = cases[c].head_len;
        memcpy(in, cases[c].head, len);
        for (size_t i = 0; i < cases[c].payload; i++) {
            in[len++] = (uint8_t)i;
        }
        in[len++] = 0x1d; /* the next message's first byte, left for the next call */
        if (cases[c].cut != 0) {
            len = cases[c].cut;
        }
        zm_network_msg_t a, b;
        memset(&a, 0xa5, sizeof(a));
        memset(&b, 0xa5, sizeof(b));
        zm_reader_t r;
        zm_reader_init(&r, in, len);
        z_result_t ra = zm_network_decode(&r, &a);
        zm_batch_iter_t it;
        zm_batch_iter_init(&it, in, len, ZM_SN_MASK_DEFAULT);
        it.in_frame = true;
        bool got = false;
        z_result_t rb = zm_batch_next_network(&it, &b, &got);
        if (ra != rb || r.ptr != it.r.ptr || (ra == Z_OK && memcmp(&a, &b, sizeof(a)) != 0)) {
            fprintf(stderr, "%s: decoded otherwise by the batch iterator\n", cases[c].what);
        }
        CHECK_EQ_INT(rb, ra);
        CHECK(got == (ra == Z_OK));
        CHECK(r.ptr == it.r.ptr);
        CHECK(ra != Z_OK || memcmp(&a, &b, sizeof(a)) == 0);
    }
}

/*
 * A publisher's PUSH encoded once up to its payload (zm_push_head_encode), then written with each
 * payload (zm_push_head_write): byte for byte what zm_push_encode writes from the parts, for key
 * ids, QoS and encodings of every length class, payloads of every size class, and batches with
 * room for the message alone, for less (all or nothing), and for more.
 */
static void test_push_head(void)
{
#if ZM_PUT_HEAD
    static const uint16_t keys[] = {1, 0x7f, 0x80, 0x3fff, 0x4000, 0xffff};
    static const uint8_t qos[] = {ZM_QOS_DEFAULT, ZM_QOS_DEFAULT | ZM_QOS_BLOCK, 1, 7 | ZM_QOS_EXPRESS};
    static const struct {
        bool has;
        uint16_t id;
        const char *schema;
    } encodings[] = {{false, 0, NULL}, {true, 4, NULL}, {true, 0x80, "utf8"}, {true, 0x4000, "a/schema/too/long"}};
    static const size_t sizes[] = {0, 1, 7, 8, 12, 16, 17, 127, 128, 300, 16383, 16384, 70000};
    static uint8_t payload[70000];
    static uint8_t want[70100];
    static uint8_t got[70100];
    for (size_t i = 0; i < sizeof(payload); i++) {
        payload[i] = (uint8_t)(i * 7u + 1u);
    }
    unsigned heads = 0;
    unsigned refused = 0;
    for (size_t k = 0; k < ZM_ARRAY_LEN(keys); k++) {
        for (size_t q = 0; q < ZM_ARRAY_LEN(qos); q++) {
            for (size_t e = 0; e < ZM_ARRAY_LEN(encodings); e++) {
                zm_put_t body;
                memset(&body, 0, sizeof(body));
                body.has_encoding = encodings[e].has;
                body.encoding.id = encodings[e].id;
                body.encoding.has_schema = encodings[e].schema != NULL;
                if (body.encoding.has_schema) {
                    body.encoding.schema = str(encodings[e].schema);
                }
                zm_push_ref_t p;
                memset(&p, 0, sizeof(p));
                p.wire_expr = wexpr(keys[k], NULL, ZM_MAPPING_SENDER);
                p.qos = qos[q];
                p.body_id = ZM_MID_PUT;
                p.body = &body;
                uint8_t head[ZM_PUSH_HEAD_MAX];
                memset(head, 0xee, sizeof(head));
                size_t head_len = 0;
                zm_writer_t w;
                zm_writer_init(&w, want, sizeof(want));
                CHECK_EQ_INT(zm_push_encode(&w, &p), Z_OK);
                if (zm_push_head_encode(head, &p, &head_len) != Z_OK) {
                    CHECK(w.len - 1u > ZM_PUSH_HEAD_MAX); /* refused only when too long */
                    refused++;
                    continue;
                }
                CHECK_EQ_INT(head_len, w.len - 1u);
                heads++;
                zm_push_ref_t h;
                memset(&h, 0, sizeof(h));
                h.qos = qos[q];
                h.head = head;
                h.head_len = head_len;
                for (size_t z = 0; z < ZM_ARRAY_LEN(sizes); z++) {
                    body.payload = zm_slice(sizes[z] > 0 ? payload : NULL, sizes[z]);
                    h.payload = body.payload;
                    zm_writer_init(&w, want, sizeof(want));
                    w.len = 3; /* behind other messages */
                    CHECK_EQ_INT(zm_push_encode(&w, &p), Z_OK);
                    size_t len = w.len;
                    /* room for it and more, for it alone (the head copied byte by byte when
                     * less than ZM_PUSH_HEAD_MAX is left), and for one byte less */
                    size_t caps[] = {sizeof(got), len, len + 5u, len - 1u};
                    for (size_t c = 0; c < ZM_ARRAY_LEN(caps); c++) {
                        memset(got, 0x5a, len);
                        zm_writer_t v;
                        zm_writer_init(&v, got, caps[c]);
                        v.len = 3;
                        z_result_t rc = zm_push_head_write(&v, &h);
                        if (caps[c] < len) {
                            CHECK_EQ_INT(rc, ZM_E_NO_SPACE);
                            CHECK_EQ_INT(v.len, 3);
                            continue;
                        }
                        CHECK_EQ_INT(rc, Z_OK);
                        CHECK_CTX(v.len == len && memcmp(got + 3, want + 3, len - 3u) == 0,
                                  "key %u, qos %u, encoding %u, payload %u, room %u", (unsigned)keys[k],
                                  (unsigned)qos[q], (unsigned)e, (unsigned)sizes[z], (unsigned)caps[c]);
                    }
                }
            }
        }
    }
    CHECK(heads > 0 && refused > 0);
#endif
}

int main(void)
{
    test_primitives();
    test_push();
    test_push_paths();
    test_push_head();
    test_declare();
    test_interest();
    test_request_response();
    test_named_errors();
    return CHECK_DONE();
}
