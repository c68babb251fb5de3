/*
 * The unicast handshake (INIT then OPEN, spec 5.9) in both roles, and the transport's life
 * cycle. The acceptor keeps its negotiation state on the stack for the one link it handles, so
 * its cookie only has to prove the OpenSyn belongs to this InitAck: 8 random bytes.
 */
#include <string.h>

#include "transport/transport.h"
#include "util/alloc.h"

#define COOKIE_LEN 8

static uint16_t min_u16(uint16_t a, uint16_t b) { return a < b ? a : b; }

/* Per-field minimum of two resolution bytes (fsn in bits 0-1, request id in bits 2-3). */
static uint8_t resolution_min(uint8_t a, uint8_t b)
{
    uint8_t fsn = (uint8_t)((a & 3u) < (b & 3u) ? (a & 3u) : (b & 3u));
    uint8_t rid = (uint8_t)((a & 0xcu) < (b & 0xcu) ? (a & 0xcu) : (b & 0xcu));
    return (uint8_t)(fsn | rid);
}

/* The rx buffer serves the handshake too: the link may already hold the first FRAMEs in it. */
static z_result_t state_init(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p)
{
    memset(t, 0, sizeof(*t));
    atomic_init(&t->closed, false);
    atomic_init(&t->last_rx_ms, 0u);
    t->link = *link;
    t->lease_ms = p->lease_ms;
    t->tx_frame = -1;
    t->tx_block_timeout_ms = ZM_TX_BLOCK_TIMEOUT_MS;
    t->sn_mask = ZM_SN_MASK_DEFAULT;
    t->rx_cap = (size_t)ZM_BATCH_UNICAST_SIZE + ZM_LINK_HEADROOM;
    t->rx_buf = zm_alloc(t->rx_cap);
    return t->rx_buf != NULL ? Z_OK : ZM_E_NOMEM;
}

static z_result_t tx_alloc(zm_transport_t *t, uint16_t batch_size)
{
    t->batch_size = batch_size;
    t->tx_buf = zm_alloc((size_t)batch_size + ZM_LINK_HEADROOM);
    if (t->tx_buf == NULL) {
        return ZM_E_NOMEM;
    }
    /* a stream link counts its 2-byte prefix inside the batch (spec 3) */
    size_t cap = zm_link_is_streamed(&t->link) ? (size_t)batch_size - ZM_LINK_HEADROOM : batch_size;
    zm_writer_init(&t->tx, t->tx_buf + ZM_LINK_HEADROOM, cap);
    return Z_OK;
}

/*
 * Handshake messages and CLOSE travel alone, each in its own batch, through a small stack
 * buffer, within the link deadlines start and end (see zm_link_send_batch).
 */
static z_result_t send_one(zm_link_t *link, const zm_transport_msg_t *m, uint64_t start, uint64_t end)
{
    uint8_t buf[ZM_LINK_HEADROOM + 384];
    zm_writer_t w;
    zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof(buf) - ZM_LINK_HEADROOM);
    ZM_TRY(zm_transport_encode(&w, m));
    z_result_t rc = zm_link_send_batch(link, buf + ZM_LINK_HEADROOM, w.len, start, end);
    return rc == ZM_E_AGAIN ? ZM_E_TIMEOUT : rc; /* nothing left in time: the deadline is spent */
}

/* How long a CLOSE may take once its first byte left (it never waits for the first): closing
 * must not hang on a peer that stopped reading, the link is shut right after anyway. */
#define CLOSE_SEND_MS 100u

/* Receives the next handshake message; a CLOSE is ZM_E_CLOSED, anything else unexpected is an error. */
static z_result_t recv_one(zm_transport_t *t, uint64_t deadline, uint8_t want, bool ack, zm_transport_msg_t *m)
{
    zm_link_set_deadline(&t->link, deadline);
    zm_slice_t batch;
    ZM_TRY(zm_link_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch));
    zm_reader_t r;
    zm_reader_init(&r, batch.ptr, batch.len);
    ZM_TRY(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, m));
    if (m->id == ZM_MID_CLOSE) {
        return ZM_E_CLOSED;
    }
    if (m->id != want) {
        return ZM_E_FIELD;
    }
    bool is_ack = want == ZM_MID_INIT ? m->body.init.ack : m->body.open.ack;
    return is_ack == ack ? Z_OK : ZM_E_FIELD;
}

/* Best effort, within the handshake's deadline: the link is closed after it anyway. */
static void close_with(zm_link_t *link, uint8_t reason, uint64_t deadline)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_CLOSE;
    m.body.close.reason = reason;
    (void)send_one(link, &m, deadline, deadline);
}

static void init_fill(zm_init_t *init, const zm_transport_params_t *p, uint8_t resolution, uint16_t batch)
{
    memset(init, 0, sizeof(*init));
    init->version = ZM_PROTO_VERSION;
    init->whatami = p->whatami;
    init->zid = p->zid;
    init->resolution = resolution;
    init->batch_size = batch;
    init->has_size = resolution != ZM_RESOLUTION_DEFAULT || batch != ZM_BATCH_DEFAULT;
    init->exts = ZM_INIT_EXT_PATCH;
    init->patch = 1; /* fragments carry First/Drop markers */
}

static void open_fill(zm_open_t *open, uint64_t lease_ms, uint32_t initial_sn)
{
    memset(open, 0, sizeof(*open));
    open->lease_secs = lease_ms % 1000u == 0;
    open->lease = open->lease_secs ? lease_ms / 1000u : lease_ms;
    open->initial_sn = initial_sn;
}

/* The peer's lease, clamped: a peer announcing years (or 2^32 s) would otherwise never expire,
 * and the lease tick measures silences on a 32-bit clock. */
static uint64_t open_lease_ms(const zm_open_t *o)
{
    uint64_t max = ZM_LEASE_MAX_MS;
    if (o->lease_secs) {
        return o->lease > max / 1000u ? max : o->lease * 1000u;
    }
    return o->lease > max ? max : o->lease;
}

static uint32_t random_sn(uint32_t mask)
{
    uint32_t v;
    zm_port_random(&v, sizeof(v));
    return v & mask;
}

static void sn_start(zm_transport_t *t, uint32_t tx_initial, uint32_t rx_initial)
{
    for (unsigned i = 0; i < ZM_TX_CHANNELS; i++) {
        t->tx_sn[i] = tx_initial;
        t->rx_sn[i] = (rx_initial - 1u) & t->sn_mask; /* the first accepted FRAME is rx_initial */
    }
    memcpy(t->tx_sn_sent, t->tx_sn, sizeof(t->tx_sn_sent));
}

static z_result_t finish(zm_transport_t *t)
{
#if Z_FEATURE_MULTI_THREAD
    ZM_TRY(zm_port_mutex_init(&t->tx_lock));
#endif
    uint64_t now = zm_port_clock_ms();
    atomic_store_explicit(&t->last_rx_ms, (uint32_t)now, memory_order_relaxed);
    t->last_tx_ms = now;
    return Z_OK;
}

/* Opener: InitSyn, InitAck, OpenSyn, OpenAck. */
static z_result_t handshake_open(zm_transport_t *t, const zm_transport_params_t *p, uint64_t deadline)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_INIT;
    init_fill(&m.body.init, p, ZM_RESOLUTION_DEFAULT, p->batch_size);
    if (p->qos) {
        m.body.init.exts |= ZM_INIT_EXT_QOS;
    }
    ZM_TRY(send_one(&t->link, &m, deadline, deadline));

    ZM_TRY(recv_one(t, deadline, ZM_MID_INIT, true, &m));
    const zm_init_t *ack = &m.body.init;
    uint8_t res = ack->has_size ? (uint8_t)(ack->resolution & 0x3fu) : ZM_RESOLUTION_DEFAULT;
    uint16_t batch = ack->has_size ? ack->batch_size : ZM_BATCH_DEFAULT;
    if (ack->version != ZM_PROTO_VERSION || resolution_min(res, ZM_RESOLUTION_DEFAULT) != res || batch < 64) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_UNSUPPORTED;
    }
    t->remote_zid = ack->zid;
    t->remote_whatami = ack->whatami;
    t->sn_mask = zm_sn_mask(res & 3u);
    t->qos = p->qos && (ack->exts & ZM_INIT_EXT_QOS);
    t->patch = (ack->exts & ZM_INIT_EXT_PATCH) ? (ack->patch < 1 ? ack->patch : 1) : 0;
    batch = min_u16(batch, p->batch_size);
    uint8_t cookie[256];
    size_t cookie_len = ack->cookie.len;
    if (cookie_len > sizeof(cookie)) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_FIELD;
    }
    memcpy(cookie, ack->cookie.ptr, cookie_len); /* it points into rx_buf, reused below */

    uint32_t initial_sn = random_sn(t->sn_mask);
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_OPEN;
    open_fill(&m.body.open, p->lease_ms, initial_sn);
    m.body.open.cookie = zm_slice(cookie, cookie_len);
    ZM_TRY(send_one(&t->link, &m, deadline, deadline));

    ZM_TRY(recv_one(t, deadline, ZM_MID_OPEN, true, &m));
    if (m.body.open.initial_sn > t->sn_mask) {
        return ZM_E_SN_RANGE;
    }
    t->remote_lease_ms = open_lease_ms(&m.body.open);
    ZM_TRY(tx_alloc(t, batch));
    sn_start(t, initial_sn, m.body.open.initial_sn);
    return Z_OK;
}

/* Acceptor: InitSyn, InitAck, OpenSyn, OpenAck. */
static z_result_t handshake_accept(zm_transport_t *t, const zm_transport_params_t *p, uint64_t deadline)
{
    zm_transport_msg_t m;
    ZM_TRY(recv_one(t, deadline, ZM_MID_INIT, false, &m));
    const zm_init_t *syn = &m.body.init;
    if (syn->version != ZM_PROTO_VERSION) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_UNSUPPORTED;
    }
    if (syn->zid.len == p->zid.len && memcmp(syn->zid.id, p->zid.id, p->zid.len) == 0) {
        close_with(&t->link, ZM_CLOSE_CONNECTION_TO_SELF, deadline);
        return ZM_E_FIELD;
    }
    uint8_t res = syn->has_size ? (uint8_t)(syn->resolution & 0x3fu) : ZM_RESOLUTION_DEFAULT;
    uint16_t batch = syn->has_size ? syn->batch_size : ZM_BATCH_DEFAULT;
    if (batch < 64) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_FIELD;
    }
    res = resolution_min(res, ZM_RESOLUTION_DEFAULT);
    batch = min_u16(batch, p->batch_size);
    t->remote_zid = syn->zid;
    t->remote_whatami = syn->whatami;
    t->sn_mask = zm_sn_mask(res & 3u);
    t->qos = p->qos && (syn->exts & ZM_INIT_EXT_QOS);
    t->patch = (syn->exts & ZM_INIT_EXT_PATCH) ? (syn->patch < 1 ? syn->patch : 1) : 0;

    uint8_t cookie[COOKIE_LEN];
    zm_port_random(cookie, sizeof(cookie));
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_INIT;
    init_fill(&m.body.init, p, res, batch);
    m.body.init.ack = true;
    m.body.init.cookie = zm_slice(cookie, sizeof(cookie));
    if (t->qos) {
        m.body.init.exts |= ZM_INIT_EXT_QOS;
    }
    if (t->patch == 0) {
        m.body.init.exts &= (uint16_t)~ZM_INIT_EXT_PATCH;
    }
    ZM_TRY(send_one(&t->link, &m, deadline, deadline));

    ZM_TRY(recv_one(t, deadline, ZM_MID_OPEN, false, &m));
    if (!zm_slice_eq(m.body.open.cookie, zm_slice(cookie, sizeof(cookie)))) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_FIELD;
    }
    if (m.body.open.initial_sn > t->sn_mask) {
        close_with(&t->link, ZM_CLOSE_INVALID, deadline);
        return ZM_E_SN_RANGE;
    }
    t->remote_lease_ms = open_lease_ms(&m.body.open);
    uint32_t remote_sn = m.body.open.initial_sn;
    uint32_t initial_sn = random_sn(t->sn_mask);
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_OPEN;
    open_fill(&m.body.open, p->lease_ms, initial_sn);
    m.body.open.ack = true;
    ZM_TRY(send_one(&t->link, &m, deadline, deadline));
    ZM_TRY(tx_alloc(t, batch));
    sn_start(t, initial_sn, remote_sn);
    return Z_OK;
}

static z_result_t handshake(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                            uint32_t timeout_ms, bool opener)
{
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    z_result_t rc = state_init(t, link, p);
    if (rc == Z_OK) {
        rc = opener ? handshake_open(t, p, deadline) : handshake_accept(t, p, deadline);
    }
    if (rc == Z_OK) {
        rc = finish(t);
    }
    zm_link_set_deadline(&t->link, 0); /* established: the lease watches the link from now on */
    if (rc != Z_OK) {
        zm_free(t->tx_buf);
        zm_free(t->rx_buf);
        t->tx_buf = NULL;
        t->rx_buf = NULL;
        *link = t->link; /* the link, with whatever it buffered, stays the caller's */
    }
    return rc;
}

z_result_t zm_transport_open(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                             uint32_t timeout_ms)
{
    return handshake(t, link, p, timeout_ms, true);
}

z_result_t zm_transport_accept(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                               uint32_t timeout_ms)
{
    return handshake(t, link, p, timeout_ms, false);
}

void zm_transport_close(zm_transport_t *t, uint8_t reason)
{
    if (atomic_exchange(&t->closed, true)) {
        return;
    }
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_CLOSE;
    m.body.close.session = true;
    m.body.close.reason = reason;
    /* A sender holding tx_lock may be waiting for a peer that stopped reading: no CLOSE then
     * (it could not go out anyway, and it must not cut a batch in half); the shutdown below is
     * what wakes that sender. */
#if Z_FEATURE_MULTI_THREAD
    bool locked = zm_port_mutex_trylock(&t->tx_lock);
#else
    bool locked = true;
#endif
    if (locked) {
        uint64_t now = zm_port_clock_ms();
        (void)send_one(&t->link, &m, now, now + CLOSE_SEND_MS);
    }
#if Z_FEATURE_MULTI_THREAD
    if (locked) {
        zm_port_mutex_unlock(&t->tx_lock);
    }
#endif
    zm_link_shutdown(&t->link);
}

void zm_transport_free(zm_transport_t *t)
{
    zm_link_close(&t->link);
    zm_free(t->tx_buf);
    zm_free(t->rx_buf);
    zm_free(t->frag_buf);
    zm_free(t->defrag[0].buf);
    zm_free(t->defrag[1].buf);
    t->tx_buf = NULL;
    t->rx_buf = NULL;
    t->frag_buf = NULL;
    t->defrag[0].buf = NULL;
    t->defrag[1].buf = NULL;
#if Z_FEATURE_MULTI_THREAD
    zm_port_mutex_destroy(&t->tx_lock);
#endif
}
