/*
 * The sender of a build that never leaves a batch open (!ZM_TX_BATCHING: no zp_batch_start, no
 * declarations pushed in one batch), built with such a client's options by tests/CMakeLists.txt:
 * each message goes out at once in a FRAME of its own, with the SNs, congestion control (a DROP
 * batch dropped with its SN given back, a BLOCK one killing the link), the too-large refusal or
 * fragments, flush and keep-alives of the batching sender, over a link that records each batch
 * and answers the opener's handshake with what a router sends.
 */
#include <string.h>

#include "check.h"
#include "transport/internal.h"
#include "transport/transport.h"

_Static_assert(!ZM_TX_BATCHING, "this test needs a build that never batches");

typedef struct {
    uint8_t batch[16][1600];
    size_t len[16];
    unsigned n;      /* batches sent */
    bool full;       /* no room: every send is ZM_E_AGAIN */
    unsigned shut;   /* shutdowns */
    unsigned acks;   /* handshake answers received */
} rec_t;

static z_result_t rec_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start, uint64_t end)
{
    ZM_UNUSED(start);
    ZM_UNUSED(end);
    rec_t *r = l->ctx;
    if (r->full) {
        return ZM_E_AGAIN;
    }
    if (r->n < 16) {
        memcpy(r->batch[r->n], batch, len);
        r->len[r->n] = len;
    }
    r->n++;
    return Z_OK;
}

/* A router's InitAck (zid 0x11, no sizes: 65535 and 32-bit SNs, a 3-byte cookie, patch level 1)
 * then its OpenAck (a 10 s lease, initial SN 7), then the end of the link. */
static const uint8_t init_ack[] = {0xa1, 0x09, 0x00, 0x11, 0x03, 0xc0, 0x0c, 0xee, 0x27, 0x01};
static const uint8_t open_ack[] = {0x62, 0x0a, 0x07};

static z_result_t rec_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    ZM_UNUSED(wait);
    rec_t *r = l->ctx;
    const uint8_t *a = r->acks == 0 ? init_ack : open_ack;
    size_t len = r->acks == 0 ? sizeof(init_ack) : sizeof(open_ack);
    if (r->acks++ >= 2 || len > cap) {
        return ZM_E_CLOSED;
    }
    memcpy(buf, a, len);
    *n = len;
    return Z_OK;
}

static void rec_shutdown(zm_link_t *l) { ((rec_t *)l->ctx)->shut++; }

static const zm_link_ops_t rec_ops = {
    .streamed = false, .mtu = 1500, .send = rec_send, .recv = rec_recv, .shutdown = rec_shutdown};

static rec_t rec;
static zm_transport_t t;

/* Opens t as a client through the handshake; returns our initial SN. */
static uint32_t open_transport(uint16_t batch)
{
    memset(&rec, 0, sizeof(rec));
    zm_link_t link;
    zm_link_init(&link, ZM_PROTO_SERIAL, &rec_ops, &rec);
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 1;
    p.zid.id[0] = 0x22;
    p.whatami = ZM_WAI_CLIENT;
    p.batch_size = batch;
    p.lease_ms = 10000;
    CHECK_EQ_INT(zm_transport_open(&t, &link, &p, 1000), Z_OK);
    /* the InitSyn: sizes (32-bit SNs, our batch), patch level 1 */
    static const uint8_t init_syn[] = {0xc1, 0x09, 0x02, 0x22, 0x0a, 0x00, 0x04, 0x27, 0x01};
    CHECK_EQ_MEM(rec.batch[0], rec.len[0], init_syn, sizeof(init_syn));
    /* the OpenSyn: a 10 s lease, our initial SN, the cookie back */
    zm_reader_t r;
    zm_reader_init(&r, rec.batch[1], rec.len[1]);
    uint8_t h = 0;
    uint64_t lease = 0, sn = 0;
    zm_slice_t cookie = {NULL, 0};
    CHECK_EQ_INT(zm_read_u8(&r, &h), Z_OK);
    CHECK_EQ_INT(h, 0x42);
    CHECK_EQ_INT(zm_read_zint(&r, &lease), Z_OK);
    CHECK_EQ_INT(lease, 10);
    CHECK_EQ_INT(zm_read_zint(&r, &sn), Z_OK);
    CHECK_EQ_INT(zm_read_zbytes(&r, 16, &cookie), Z_OK);
    CHECK_EQ_MEM(cookie.ptr, cookie.len, init_ack + 5, 3);
    CHECK_EQ_INT(zm_reader_left(&r), 0);
    CHECK_EQ_INT(rec.n, 2);
    rec.n = 0;
    CHECK_EQ_INT(t.remote_zid.id[0], 0x11);
    CHECK_EQ_INT(t.remote_lease_ms, 10000);
    CHECK_EQ_INT(t.batch_size, batch);
#if Z_FEATURE_FRAGMENTATION
    CHECK_EQ_INT(t.patch, 1);
#endif
    CHECK(!t.qos);
    CHECK_EQ_INT(t.sn_mask, ZM_SN_MASK_DEFAULT);
    return (uint32_t)sn;
}

static uint8_t payload[4000];

static void put_msg(zm_network_msg_t *m, size_t size, bool block)
{
    for (size_t i = 0; i < size; i++) {
        payload[i] = (uint8_t)(i * 7u + 3u);
    }
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_PUSH;
    m->body.push.wire_expr.has_suffix = true;
    m->body.push.wire_expr.suffix = zm_slice("demo/tx", 7);
    m->body.push.body_id = ZM_MID_PUT;
    m->body.push.body.put.payload = zm_slice(payload, size);
    if (block) {
        m->ext.present = ZM_NET_EXT_QOS;
        m->ext.qos = ZM_QOS_BLOCK | ZM_PRIO_DATA;
    }
}

/* What a batching sender puts in a batch of its own for m: a reliable FRAME with sn, then m. */
static size_t expected(const zm_network_msg_t *m, uint32_t sn, uint8_t *out, size_t cap)
{
    zm_writer_t w;
    zm_writer_init(&w, out, cap);
    CHECK_EQ_INT(zm_frame_header_encode(&w, true, sn, false, ZM_PRIO_DATA), Z_OK);
    CHECK_EQ_INT(zm_network_encode(&w, m), Z_OK);
    return w.len;
}

static void check_batch(unsigned i, const zm_network_msg_t *m, uint32_t sn)
{
    static uint8_t want[1600];
    size_t n = expected(m, sn & ZM_SN_MASK_DEFAULT, want, sizeof(want));
    CHECK(i < rec.n);
    CHECK_EQ_MEM(rec.batch[i], rec.len[i], want, n);
}

int main(void)
{
    zm_network_msg_t m;
    uint32_t sn = open_transport(1024);

    /* every message is on the wire when the send returns, in a FRAME of its own, SNs in a row;
     * the flush argument changes nothing, and a flush finds nothing left */
    put_msg(&m, 10, false);
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    CHECK_EQ_INT(rec.n, 1);
    check_batch(0, &m, sn);
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, true), Z_OK);
    check_batch(1, &m, sn + 1u);
    CHECK_EQ_INT(t.tx.len, 0);
    CHECK_EQ_INT(zm_transport_flush(&t), Z_OK);
    CHECK_EQ_INT(rec.n, 2);

    /* a DROP message towards a peer with no room is dropped and counted, and gives its SN back */
    rec.full = true;
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    CHECK_EQ_INT(t.tx_dropped, 1);
    CHECK(t.tx_congested);
    CHECK_EQ_INT(t.tx.len, 0);
    rec.full = false;
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    check_batch(2, &m, sn + 2u);
    CHECK(!t.tx_congested);

    /* a message larger than a batch: refused whole, or cut into fragments */
    put_msg(&m, 3000, false);
    unsigned before = rec.n;
#if Z_FEATURE_FRAGMENTATION
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    CHECK(rec.n >= before + 3);
    for (unsigned i = before; i < rec.n && i < 16; i++) {
        zm_reader_t r;
        uint64_t frag_sn = 0;
        zm_reader_init(&r, rec.batch[i] + 1, rec.len[i] - 1);
        CHECK_EQ_INT(rec.batch[i][0] & 0x1f, ZM_MID_FRAGMENT);
        CHECK_EQ_INT(zm_read_zint(&r, &frag_sn), Z_OK);
        CHECK_EQ_INT(frag_sn, (sn + 3u + (i - before)) & ZM_SN_MASK_DEFAULT);
    }
    uint32_t next = sn + 3u + (rec.n - before);
#else
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), ZM_E_TOO_LARGE);
    CHECK_EQ_INT(rec.n, before);
    uint32_t next = sn + 3u;
#endif
    CHECK_EQ_INT(t.tx.len, 0);
    put_msg(&m, 20, false);
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    check_batch(rec.n - 1, &m, next);

    /* an idle link gets a keep-alive from the lease tick, alone in its batch */
    before = rec.n;
    t.tx_sent = false;
    t.last_tx_ms = (uint32_t)zm_port_clock_ms() - 5000u;
    CHECK_EQ_INT(zm_transport_lease_tick(&t), Z_OK);
    CHECK_EQ_INT(rec.n, before + 1);
    CHECK_EQ_INT(rec.len[before], 1);
    CHECK_EQ_INT(rec.batch[before][0], ZM_MID_KEEP_ALIVE);
    CHECK_EQ_INT(zm_transport_lease_tick(&t), Z_OK); /* not idle any more */
    CHECK_EQ_INT(rec.n, before + 1);
    /* data sent, perhaps just after a look long ago: dated to that look, a keep-alive follows */
    put_msg(&m, 20, false);
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), Z_OK);
    t.tx_looked_ms = (uint32_t)zm_port_clock_ms() - 5000u;
    CHECK_EQ_INT(zm_transport_lease_tick(&t), Z_OK);
    CHECK_EQ_INT(rec.n, before + 3);
    CHECK_EQ_INT(rec.batch[before + 2][0], ZM_MID_KEEP_ALIVE);
    CHECK_EQ_INT(zm_transport_lease_tick(&t), Z_OK);
    CHECK_EQ_INT(rec.n, before + 3);

    /* a BLOCK message towards a peer with no room fails, and the link is shut */
    rec.full = true;
    t.tx_block_timeout_ms = 10;
    put_msg(&m, 10, true);
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, false), ZM_E_TIMEOUT);
    CHECK_EQ_INT(rec.shut, 1);
    CHECK_EQ_INT(t.tx.len, 0);
    zm_transport_free(&t);
    return CHECK_DONE();
}
