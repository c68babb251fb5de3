/*
 * The receiver of a build that decodes no network message (a publisher-only client, built
 * with that client's options by tests/CMakeLists.txt): a batch is read up to its first FRAME,
 * FRAGMENT or OAM and the rest is skipped unread, while KEEP_ALIVE, CLOSE and the messages that
 * have no place on an established link still come out as before, errors included.
 */
#include <string.h>

#include "check.h"
#include "transport/transport.h"

_Static_assert(!ZM_DECODE_NETWORK, "this test needs a build that decodes no network message");

typedef struct {
    const uint8_t *batch;
    size_t len;
    bool given;
} one_batch_t;

/* A datagram link that hands out one batch, then reports the peer gone. */
static z_result_t one_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    ZM_UNUSED(wait);
    one_batch_t *o = l->ctx;
    if (o->given) {
        return ZM_E_CLOSED;
    }
    if (o->len > cap) {
        return ZM_E_FIELD;
    }
    memcpy(buf, o->batch, o->len);
    *n = o->len;
    o->given = true;
    return Z_OK;
}

static z_result_t one_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start, uint64_t end)
{
    ZM_UNUSED(l);
    ZM_UNUSED(batch);
    ZM_UNUSED(len);
    ZM_UNUSED(start);
    ZM_UNUSED(end);
    return Z_OK;
}

static const zm_link_ops_t one_ops = {.streamed = false, .mtu = 1500, .recv = one_recv, .send = one_send};

static unsigned delivered;

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    ZM_UNUSED(ctx);
    ZM_UNUSED(t);
    ZM_UNUSED(m);
    ZM_UNUSED(reliable);
    delivered++;
}

/* Reads one batch on an established transport; returns what the read gave. */
static z_result_t read_batch(const uint8_t *batch, size_t len, uint32_t *last_rx)
{
    static uint8_t rx[1500];
    one_batch_t o = {batch, len, false};
    zm_transport_t t;
    memset(&t, 0, sizeof(t));
    zm_link_init(&t.link, ZM_PROTO_SERIAL, &one_ops, &o);
    t.rx_buf = rx;
    t.rx_cap = sizeof(rx);
    t.sn_mask = ZM_SN_MASK_DEFAULT;
    t.on_message = on_message;
    atomic_init(&t.last_rx_ms, 0u);
    atomic_init(&t.rx_heard, false);
    z_result_t rc = zm_transport_read_once(&t);
    *last_rx = zm_transport_heard_ms(&t, (uint32_t)zm_port_clock_ms()); /* as the lease reads it */
    return rc;
}

#define EXPECT(want, ...)                                                                    \
    do {                                                                                     \
        static const uint8_t b_[] = {__VA_ARGS__};                                           \
        uint32_t last_rx_;                                                                   \
        CHECK_EQ_INT(read_batch(b_, sizeof(b_), &last_rx_), (want));                         \
    } while (0)

int main(void)
{
    /* KEEP_ALIVE, with and without an extension to skip; a mandatory unknown one is an error */
    EXPECT(Z_OK, 0x04);
    EXPECT(Z_OK, 0x84, 0x02, 0x04);
    EXPECT(ZM_E_EXT_MANDATORY, 0x84, 0x12);
    EXPECT(ZM_E_TRUNCATED, 0x84);

    /* a FRAME's network messages are skipped: a DECLARE and a PUSH, or bytes that are neither */
    EXPECT(Z_OK, 0x25, 0x01, 0x1e, 0x02, 0x01, 0x00, 0x04, 'd', 'e', 'm', 'o', 0x1d, 0x20, 0x00, 0x04, 'd',
           'e', 'm', 'o', 0x01, 0x01, 0x78);
    EXPECT(Z_OK, 0x25, 0x01, 0xff, 0xff, 0x00);
    EXPECT(Z_OK, 0x05);
    /* and so is its header, its sequence number included */
    EXPECT(Z_OK, 0x25, 0xff, 0xff, 0xff, 0xff, 0x0f);
    /* as are FRAGMENT and OAM, and whatever follows any of them in the batch */
    EXPECT(Z_OK, 0x26, 0x01, 0x1d, 0x00);
    EXPECT(Z_OK, 0x00, 0x01);
    EXPECT(Z_OK, 0x04, 0x25, 0x01, 0x03, 0x00);
    CHECK_EQ_INT(delivered, 0);

    /* CLOSE ends the link, alone or after a KEEP_ALIVE */
    EXPECT(ZM_E_CLOSED, 0x03, 0x00);
    EXPECT(ZM_E_CLOSED, 0x04, 0x23, 0x02);
    EXPECT(ZM_E_TRUNCATED, 0x03);

    /* the handshake's messages and JOIN have no place here; nor has an id no transport message has */
    EXPECT(ZM_E_FIELD, 0x01, 0x09, 0x00, 0x01);
    EXPECT(ZM_E_FIELD, 0x22, 0x0a, 0x00);
    /* though an INIT is still read whole first: a zid of zeros, of any length, or cut short */
    EXPECT(ZM_E_ZID, 0x01, 0x09, 0x00, 0x00);
    EXPECT(ZM_E_ZID, 0x01, 0x09, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT(ZM_E_FIELD, 0x01, 0x09, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80);
    EXPECT(ZM_E_FIELD, 0x01, 0x09, 0x10, 0x00, 0x05);
    EXPECT(ZM_E_TRUNCATED, 0x01, 0x09, 0x10, 0x05);
    EXPECT(ZM_E_WHATAMI, 0x01, 0x09, 0x03, 0x05);
    EXPECT(ZM_E_MSG_UNKNOWN, 0x07, 0x09, 0x00, 0x01);
    EXPECT(ZM_E_MSG_UNKNOWN, 0x0b);
    EXPECT(ZM_E_MSG_UNKNOWN, 0x04, 0x1d);

    /* a batch that is skipped still keeps the lease: it marks the link as heard from */
    static const uint8_t frame[] = {0x25, 0x01, 0xff};
    uint32_t before = (uint32_t)zm_port_clock_ms(), last_rx = 0;
    CHECK_EQ_INT(read_batch(frame, sizeof(frame), &last_rx), Z_OK);
    CHECK(last_rx - before < 1000u);
    CHECK_EQ_INT(delivered, 0);
    return CHECK_DONE();
}
