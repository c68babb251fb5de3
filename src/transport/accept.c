/*
 * The acceptor's side of the unicast handshake (InitSyn, InitAck, OpenSyn, OpenAck; spec 5.9)
 * as a state machine that never waits for the peer, and a bounded set of them served by one
 * thread. Blocking on one newcomer at a time let a single idle connection stall every real peer
 * behind it; here each pending handshake costs a fixed struct, a poll watches them all, and the
 * oldest makes room when they are too many. zm_transport_accept is the same machine, driven by
 * a wait on its one link, so there is a single acceptor code path.
 */
#include <stddef.h>
#include <string.h>

#include "transport/internal.h"
#include "transport/usrpwd.h"
#include "util/log.h"

#if Z_FEATURE_UNICAST_PEER

/* No CLOSE for the peer: it closed, or the link failed under us. */
#define NO_CLOSE 0xffu
/* No CLOSE either: its InitSyn was answered with a stateless cookie, the link ends quietly. */
#define ANSWERED 0xfeu

/*
 * The acceptor's answers are of a size it decides: an InitAck is at most 81 bytes (header,
 * version, whatami and a 16-byte zid, sizes, the cookie (8 bytes, 35 when stateless), QoS,
 * patch and a user/password challenge's Auth extensions), an OpenAck at most 18. They go out
 * through a buffer of this size, encoded there: they are sent at the bottom of the deepest path
 * of zp_read in peer mode.
 */
#define ACK_BUF_SIZE (ZM_LINK_HEADROOM + 96u)

/* Newcomers accepted per round at most: the listener stays readable for the next round, so a
 * connection storm cannot keep the thread from its pending handshakes. */
#define ACCEPT_BURST_MAX 64u

void zm_handshake_start(zm_handshake_t *h, const zm_link_t *link, uint64_t deadline_ms)
{
    ZM_ASSERT(link->rx_pos == link->rx_len); /* nothing may be stranded in another buffer */
    memset(h, 0, offsetof(zm_handshake_t, buf)); /* the buffer needs no clearing */
    h->link = *link;
    h->link.rx_buf = NULL;
    h->link.rx_cap = 0;
    h->link.rx_pos = 0;
    h->link.rx_len = 0;
    h->link.rx_deadline_ms = 0; /* nothing here blocks on a receive */
    h->deadline_ms = deadline_ms;
    h->state = ZM_HANDSHAKE_WAIT_INIT;
}

#if ZM_LINK_SHARED
/*
 * The stateless cookie of a shared datagram link: what the InitSyn negotiated, when, and a MAC
 * over that and the source address under the acceptor's key (SipHash-2-4), so that an OpenSyn
 * can be trusted with no state kept from its InitSyn: a flood of forged InitSyns costs one
 * InitAck each and holds nothing. Layout: issued (ms, u32 LE), whatami, resolution, batch size
 * (u16 LE), qos, patch, zid length, zid (16 bytes, zero padded), MAC (u64 LE).
 */
#define COOKIE_BODY 27u
#define COOKIE_LEN (COOKIE_BODY + 8u)

static uint64_t rotl(uint64_t x, unsigned b) { return (x << b) | (x >> (64u - b)); }

static uint64_t le64(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) {
        v = (v << 8) | p[i];
    }
    return v;
}

static void sip_rounds(uint64_t v[4], unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        v[0] += v[1];
        v[1] = rotl(v[1], 13) ^ v[0];
        v[0] = rotl(v[0], 32);
        v[2] += v[3];
        v[3] = rotl(v[3], 16) ^ v[2];
        v[0] += v[3];
        v[3] = rotl(v[3], 21) ^ v[0];
        v[2] += v[1];
        v[1] = rotl(v[1], 17) ^ v[2];
        v[2] = rotl(v[2], 32);
    }
}

static uint64_t siphash(const uint8_t key[16], const uint8_t *in, size_t len)
{
    uint64_t k0 = le64(key, 8), k1 = le64(key + 8, 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
                     k1 ^ 0x7465646279746573ull};
    size_t whole = len - len % 8u;
    for (size_t i = 0; i < whole; i += 8u) {
        uint64_t m = le64(in + i, 8);
        v[3] ^= m;
        sip_rounds(v, 2);
        v[0] ^= m;
    }
    uint64_t last = ((uint64_t)(len & 0xffu) << 56) | le64(in + whole, len % 8u);
    v[3] ^= last;
    sip_rounds(v, 2);
    v[0] ^= last;
    v[2] ^= 0xffu;
    sip_rounds(v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The MAC of a cookie's body from the link's source; false if the link cannot tell its source. */
static bool cookie_mac(const zm_handshake_t *h, const uint8_t *body, uint64_t *mac)
{
    uint8_t msg[64 + COOKIE_BODY];
    const zm_addr_t *from = zm_link_sender(&h->link);
    size_t n = from != NULL ? zm_port_addr_format(from, (char *)msg, 64) : 0u;
    if (n == 0) {
        return false;
    }
    memcpy(msg + n, body, COOKIE_BODY);
    *mac = siphash(h->key, msg, n + COOKIE_BODY);
    return true;
}

/* Whether h answers InitSyn statelessly: its link shares its socket, and an acceptor keys it. */
static bool stateless(const zm_handshake_t *h) { return h->key != NULL && h->link.ops->shared; }

static bool cookie_make(const zm_handshake_t *h, uint8_t out[COOKIE_LEN])
{
    memset(out, 0, COOKIE_LEN);
    uint32_t now = (uint32_t)zm_port_clock_ms();
    for (unsigned i = 0; i < 4u; i++) {
        out[i] = (uint8_t)(now >> (8u * i));
    }
    out[4] = h->remote_whatami;
    out[5] = h->resolution;
    out[6] = (uint8_t)(h->batch_size & 0xffu);
    out[7] = (uint8_t)(h->batch_size >> 8);
    out[8] = h->qos;
    out[9] = h->patch;
    out[10] = h->remote_zid.len;
    memcpy(out + 11, h->remote_zid.id, h->remote_zid.len);
    uint64_t mac;
    if (!cookie_mac(h, out, &mac)) {
        return false;
    }
    for (unsigned i = 0; i < 8u; i++) {
        out[COOKIE_BODY + i] = (uint8_t)(mac >> (8u * i));
    }
    return true;
}

/* An OpenSyn's cookie from the link's source, made by us within the handshake timeout: what it
 * carries is restored into h. */
static bool cookie_take(zm_handshake_t *h, zm_slice_t c)
{
    uint64_t mac;
    if (c.len != COOKIE_LEN || c.ptr[10] > sizeof(h->remote_zid.id) || !cookie_mac(h, c.ptr, &mac) ||
        mac != le64(c.ptr + COOKIE_BODY, 8)) {
        return false;
    }
    uint32_t issued = (uint32_t)le64(c.ptr, 4);
    if ((uint32_t)zm_port_clock_ms() - issued > ZM_ACCEPT_TIMEOUT_MS) {
        return false;
    }
    h->remote_whatami = c.ptr[4];
    h->resolution = c.ptr[5];
    h->batch_size = (uint16_t)(c.ptr[6] | (c.ptr[7] << 8));
    h->qos = c.ptr[8] != 0;
    h->patch = c.ptr[9];
    h->remote_zid.len = c.ptr[10];
    memcpy(h->remote_zid.id, c.ptr + 11, h->remote_zid.len);
    return true;
}
#else
#define COOKIE_LEN ZM_HANDSHAKE_COOKIE_LEN
#define stateless(h) ((void)(h), false)
#define cookie_make(h, out) ((void)(h), (void)(out), false)
#define cookie_take(h, c) ((void)(h), (void)(c), false)
#endif

/* An INIT announcing p, with the given resolution and batch size (the S flag set if needed). */
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

/* Sends an answer alone in its batch, within ZM_TRANSPORT_CLOSE_SEND_MS: ZM_E_NO_SPACE, nothing
 * sent, if it does not fit (it always does); nothing sent in time is ZM_E_TIMEOUT. */
static z_result_t send_ack(zm_link_t *link, const zm_transport_msg_t *ack)
{
    uint8_t buf[ACK_BUF_SIZE];
    zm_writer_t w;
    zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof(buf) - ZM_LINK_HEADROOM);
    ZM_TRY(zm_transport_encode(&w, ack));
    uint64_t now = zm_port_clock_ms();
    z_result_t rc = zm_link_send_batch(link, buf + ZM_LINK_HEADROOM, w.len, now, now + ZM_TRANSPORT_CLOSE_SEND_MS);
    return rc == ZM_E_AGAIN ? ZM_E_TIMEOUT : rc;
}

/*
 * InitSyn: check it, settle what the transport will use, answer with InitAck and a cookie. The
 * InitAck is built in *m once the InitSyn is read, so one transport message is on the stack.
 */
static z_result_t on_init_syn(zm_handshake_t *h, const zm_transport_params_t *p, zm_transport_msg_t *m,
                              uint8_t *reason)
{
    if (m->id != ZM_MID_INIT || m->body.init.ack) {
        *reason = ZM_CLOSE_INVALID;
        return ZM_E_FIELD;
    }
    const zm_init_t *syn = &m->body.init;
    if (syn->version != ZM_PROTO_VERSION) {
        *reason = ZM_CLOSE_UNSUPPORTED;
        return ZM_E_UNSUPPORTED;
    }
    if (syn->zid.len == p->zid.len && memcmp(syn->zid.id, p->zid.id, p->zid.len) == 0) {
        *reason = ZM_CLOSE_CONNECTION_TO_SELF;
        return ZM_E_FIELD;
    }
    uint8_t res = syn->has_size ? (uint8_t)(syn->resolution & 0x3fu) : ZM_RESOLUTION_DEFAULT;
    uint16_t batch = syn->has_size ? syn->batch_size : ZM_BATCH_DEFAULT;
    if (batch < 64) {
        *reason = ZM_CLOSE_INVALID;
        return ZM_E_FIELD;
    }
    h->resolution = zm_transport_resolution_min(res, ZM_RESOLUTION_DEFAULT);
    h->batch_size = zm_min_u16(batch, zm_transport_batch_cap(&h->link, p));
    h->remote_zid = syn->zid;
    h->remote_whatami = syn->whatami;
    h->qos = p->qos && (syn->exts & ZM_INIT_EXT_QOS);
    h->patch = (syn->exts & ZM_INIT_EXT_PATCH) && syn->patch >= 1 ? 1u : 0u;
#if ZM_AUTH_USRPWD
    /* with a dictionary every peer authenticates (Rust refuses one that does not with GENERIC) */
    if (p->usrpwd_dict != NULL && !zm_usrpwd_has(syn->auth, ZM_EXT_ENC_UNIT)) { /* empty when absent */
        *reason = ZM_CLOSE_GENERIC;
        return ZM_E_AUTH_MISSING;
    }
#endif

    uint8_t cookie[COOKIE_LEN];
    zm_slice_t c = zm_slice(h->cookie, sizeof(h->cookie));
    if (stateless(h)) {
        if (!cookie_make(h, cookie)) {
            *reason = NO_CLOSE;
            return ZM_E_UNSUPPORTED; /* a link that cannot tell its source: nothing to bind to */
        }
        c = zm_slice(cookie, sizeof(cookie));
    } else {
        zm_port_random(h->cookie, sizeof(h->cookie));
    }
    zm_transport_msg_t *ack = m; /* the InitSyn is read: syn is dead from here */
    memset(ack, 0, sizeof(*ack));
    ack->id = ZM_MID_INIT;
    init_fill(&ack->body.init, p, h->resolution, h->batch_size);
    ack->body.init.ack = true;
    ack->body.init.cookie = c;
    if (h->qos) {
        ack->body.init.exts |= ZM_INIT_EXT_QOS;
    }
    if (h->patch == 0) {
        ack->body.init.exts &= (uint16_t)~ZM_INIT_EXT_PATCH;
    }
    ZM_IF_USRPWD(
        uint8_t challenge[ZM_USRPWD_INIT_ACK_BODY_MAX];
        if (p->usrpwd_dict != NULL) {
            ack->body.init.auth = zm_slice(challenge, zm_usrpwd_init_ack_body(challenge, zm_usrpwd_cookie_nonce(c)));
            ack->body.init.exts |= ZM_INIT_EXT_AUTH;
        }
    )
    /* a failed send: the link is gone or the peer does not read, no CLOSE */
    ZM_TRY(send_ack(&h->link, ack));
    if (stateless(h)) {
        *reason = ANSWERED; /* the cookie holds it all: the OpenSyn comes as a newcomer */
        return ZM_E_CLOSED;
    }
    h->state = ZM_HANDSHAKE_WAIT_OPEN;
    return Z_OK;
}

/*
 * The OpenSyn checked out: build the transport, then answer. Everything that can fail for lack
 * of memory happens before OpenAck leaves, so that a peer never believes in a transport we
 * could not set up. The OpenSyn batch is dead by now, so what followed it moves to the new rx
 * buffer, sized as the negotiated batch. The OpenAck is built in *ack, where the OpenSyn was.
 */
static z_result_t establish(zm_handshake_t *h, const zm_transport_params_t *p, uint32_t remote_lease_ms,
                            uint32_t remote_sn, zm_transport_msg_t *ack, zm_transport_t *out, uint8_t *reason)
{
    *reason = ZM_CLOSE_GENERIC;
    zm_transport_params_t agreed = *p;
    agreed.batch_size = h->batch_size; /* the rx buffer: no larger than the peer may send */
    ZM_TRY(zm_transport_setup(out, &h->link, &agreed));
    z_result_t rc = zm_link_rebuffer(&out->link, out->rx_buf, out->rx_cap);
    if (rc == Z_OK) {
        out->remote_zid = h->remote_zid;
        out->remote_whatami = h->remote_whatami;
        out->sn_mask = zm_sn_mask(h->resolution & 3u);
        out->qos = h->qos;
        out->patch = h->patch;
        out->remote_lease_ms = remote_lease_ms;
        rc = zm_transport_tx_alloc(out, h->batch_size);
    }
    if (rc != Z_OK) {
        zm_transport_drop_buffers(out);
        return rc;
    }
    uint32_t initial_sn = zm_transport_random_sn(out->sn_mask);
    zm_transport_sn_start(out, initial_sn, remote_sn);

    memset(ack, 0, sizeof(*ack));
    ack->id = ZM_MID_OPEN;
    ack->body.open.lease = zm_transport_lease_wire(p->lease_ms, &ack->body.open.lease_secs); /* an OPEN with our lease */
    ack->body.open.initial_sn = initial_sn;
    ack->body.open.ack = true;
    ZM_IF_USRPWD(
        static const uint8_t accepted = ZM_USRPWD_UNIT;
        if (p->usrpwd_dict != NULL) {
            ack->body.open.auth = zm_slice(&accepted, 1);
            ack->body.open.exts |= ZM_OPEN_EXT_AUTH;
        }
    )
    rc = send_ack(&out->link, ack);
    if (rc == Z_OK) {
        rc = zm_transport_finish(out);
    } else {
        *reason = NO_CLOSE;
    }
    if (rc != Z_OK) {
        zm_transport_drop_buffers(out); /* the link is still the handshake's, to close */
        return rc;
    }
    h->link.ops = NULL; /* the transport owns the link now */
    h->state = ZM_HANDSHAKE_IDLE;
    return Z_OK;
}

static z_result_t on_open_syn(zm_handshake_t *h, const zm_transport_params_t *p, zm_transport_msg_t *m,
                              zm_transport_t *out, uint8_t *reason)
{
    *reason = ZM_CLOSE_INVALID;
    if (m->id != ZM_MID_OPEN || m->body.open.ack) {
        return ZM_E_FIELD;
    }
    const zm_open_t *syn = &m->body.open;
    bool known = stateless(h) ? cookie_take(h, syn->cookie)
                              : zm_slice_eq(syn->cookie, zm_slice(h->cookie, sizeof(h->cookie)));
    if (!known) {
        if (stateless(h)) {
            *reason = NO_CLOSE; /* forged, stale, or from elsewhere: not worth an answer */
        }
        return ZM_E_FIELD;
    }
    if (syn->initial_sn > zm_sn_mask(h->resolution & 3u)) {
        return ZM_E_SN_RANGE;
    }
#if ZM_AUTH_USRPWD
    if (p->usrpwd_dict != NULL) {
        /* the cookie checked out: it is ours, and its last 8 bytes were the challenge */
        z_result_t rc = zm_usrpwd_check(p->usrpwd_dict, zm_usrpwd_cookie_nonce(syn->cookie), syn->auth);
        if (rc != Z_OK) {
            *reason = ZM_CLOSE_GENERIC;
            return rc;
        }
    }
#endif
    return establish(h, p, zm_transport_open_lease_ms(syn), syn->initial_sn, m, out, reason);
}

/* The machine itself: consumes every whole batch the link has now. On an error *reason is the
 * CLOSE the peer is owed (NO_CLOSE for none); nothing is sent or closed here. */
static z_result_t advance(zm_handshake_t *h, const zm_transport_params_t *p, zm_transport_t *out, uint8_t *reason)
{
    ZM_ASSERT(h->state != ZM_HANDSHAKE_IDLE);
    *reason = NO_CLOSE;
    for (;;) {
        zm_slice_t batch;
        z_result_t rc = zm_link_try_recv_batch(&h->link, h->buf, sizeof(h->buf), &batch);
        if (rc == ZM_E_AGAIN) {
            if (h->deadline_ms != 0 && zm_port_clock_ms() >= h->deadline_ms) {
                *reason = ZM_CLOSE_EXPIRED;
                return ZM_E_TIMEOUT;
            }
            return ZM_E_AGAIN;
        }
        if (rc != Z_OK) {
            /* a length beyond the buffer is the peer's fault; read errors are the link's */
            *reason = rc == ZM_E_FIELD || rc == ZM_E_NO_SPACE ? ZM_CLOSE_INVALID : NO_CLOSE;
            return rc;
        }
        zm_transport_msg_t m;
        zm_reader_t r;
        zm_reader_init(&r, batch.ptr, batch.len);
        rc = zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m);
        if (rc != Z_OK) {
            *reason = ZM_CLOSE_INVALID;
            return rc;
        }
        if (m.id == ZM_MID_CLOSE) {
            return ZM_E_CLOSED;
        }
        if (h->state == ZM_HANDSHAKE_WAIT_INIT && !(stateless(h) && m.id == ZM_MID_OPEN)) {
            ZM_TRY(on_init_syn(h, p, &m, reason));
            continue; /* the OpenSyn may be buffered already */
        }
        return on_open_syn(h, p, &m, out, reason);
    }
}

/* Tells the peer why (if it is owed a CLOSE) and the user what happened. */
static void refuse(zm_handshake_t *h, z_result_t rc, uint8_t reason)
{
    if (reason == NO_CLOSE) {
        ZM_LOG_I("accept: handshake dropped: %s", zm_strerror(rc));
        return;
    }
    if (reason == ZM_CLOSE_EXPIRED) {
        ZM_LOG_I("accept: handshake timed out, closing");
    } else {
        ZM_LOG_W("handshake with an accepted peer failed: %s (close: %s)", zm_strerror(rc), zm_close_reason_name(reason));
    }
    zm_transport_send_close(&h->link, false, reason);
}

z_result_t zm_handshake_step(zm_handshake_t *h, const zm_transport_params_t *p, zm_transport_t *out)
{
    uint8_t reason;
    z_result_t rc = advance(h, p, out, &reason);
    if (rc == Z_OK || rc == ZM_E_AGAIN) {
        return rc;
    }
    if (reason != ANSWERED) {
        refuse(h, rc, reason);
    }
    zm_link_close(&h->link);
    h->state = ZM_HANDSHAKE_IDLE;
    return rc;
}

void zm_handshake_abort(zm_handshake_t *h, uint8_t reason)
{
    if (h->state == ZM_HANDSHAKE_IDLE) {
        return;
    }
    zm_transport_send_close(&h->link, false, reason);
    zm_link_close(&h->link);
    h->state = ZM_HANDSHAKE_IDLE;
}

z_result_t zm_transport_accept(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                               uint32_t timeout_ms)
{
    zm_handshake_t h;
    zm_handshake_start(&h, link, zm_port_clock_ms() + timeout_ms);
    uint8_t reason = NO_CLOSE;
    z_result_t rc;
    for (;;) {
        rc = advance(&h, p, t, &reason);
        if (rc != ZM_E_AGAIN) {
            break;
        }
        uint64_t now = zm_port_clock_ms();
        uint32_t left = h.deadline_ms > now ? (uint32_t)(h.deadline_ms - now) : 0u;
        rc = zm_link_wait_readable(&h.link, left);
        /* a timeout is seen by the next advance; a link that cannot wait is read regardless */
        if (rc != Z_OK && rc != ZM_E_TIMEOUT && rc != ZM_E_UNSUPPORTED) {
            reason = NO_CLOSE;
            break;
        }
    }
    if (rc != Z_OK) {
        refuse(&h, rc, reason);
        zm_link_close(&h.link);
    }
    return rc;
}

/* ---- the set of pending handshakes ------------------------------------------------------------ */

void zm_acceptor_init(zm_acceptor_t *a, uint32_t timeout_ms)
{
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        a->slot[i].state = ZM_HANDSHAKE_IDLE;
        a->slot[i].link.ops = NULL;
        a->arrival[i] = 0;
        a->ready[i] = 0;
    }
    a->arrivals = 0;
    a->timeout_ms = timeout_ms;
    zm_port_random(a->key, sizeof(a->key));
}

/*
 * A free slot, or the one of a pending handshake evicted for it: the oldest of those still
 * waiting for their InitSyn (silent or slow connections), and only when there are none the
 * oldest of all, so that a flood of idle connections never pushes out a peer that is one round
 * trip from done.
 */
static size_t slot_take(zm_acceptor_t *a)
{
    size_t victim = ZM_ACCEPT_PENDING_MAX;
    bool victim_silent = false;
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        if (a->slot[i].state == ZM_HANDSHAKE_IDLE) {
            return i;
        }
        bool silent = a->slot[i].state == ZM_HANDSHAKE_WAIT_INIT;
        /* arrival numbers wrap: compare their distance, not their values */
        if (victim == ZM_ACCEPT_PENDING_MAX || (silent && !victim_silent) ||
            (silent == victim_silent && (int32_t)(a->arrival[i] - a->arrival[victim]) < 0)) {
            victim = i;
            victim_silent = silent;
        }
    }
    ZM_LOG_I("accept: %u handshakes pending, dropping the oldest %s one", (unsigned)ZM_ACCEPT_PENDING_MAX,
             victim_silent ? "silent" : "unfinished");
    zm_handshake_abort(&a->slot[victim], ZM_CLOSE_MAX_LINKS);
    a->ready[victim] = 0;
    return victim;
}

void zm_acceptor_add(zm_acceptor_t *a, const zm_link_t *link)
{
    size_t i = slot_take(a);
    uint64_t deadline = zm_port_clock_ms() + a->timeout_ms;
    zm_handshake_start(&a->slot[i], link, deadline);
    a->slot[i].key = a->key;
    a->arrival[i] = a->arrivals++;
    a->ready[i] = 1; /* its InitSyn may be in already: try without waiting */
}

/* Steps the handshakes marked ready, until one finishes (Z_OK, the rest stay marked). */
static z_result_t drain(zm_acceptor_t *a, const zm_transport_params_t *p, zm_transport_t *out)
{
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        if (!a->ready[i]) {
            continue;
        }
        a->ready[i] = 0;
        if (a->slot[i].state != ZM_HANDSHAKE_IDLE && zm_handshake_step(&a->slot[i], p, out) == Z_OK) {
            return Z_OK;
        }
    }
    return ZM_E_AGAIN;
}

/* Aborts those past their deadline; true if there were any. */
static bool expire(zm_acceptor_t *a, uint64_t now)
{
    bool any = false;
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        zm_handshake_t *h = &a->slot[i];
        if (h->state != ZM_HANDSHAKE_IDLE && h->deadline_ms != 0 && now >= h->deadline_ms) {
            ZM_LOG_I("accept: handshake timed out after %u ms, closing", (unsigned)a->timeout_ms);
            zm_handshake_abort(h, ZM_CLOSE_EXPIRED);
            a->ready[i] = 0;
            any = true;
        }
    }
    return any;
}

static uint64_t earliest_deadline(const zm_acceptor_t *a)
{
    uint64_t next = 0;
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        const zm_handshake_t *h = &a->slot[i];
        if (h->state != ZM_HANDSHAKE_IDLE && h->deadline_ms != 0 && (next == 0 || h->deadline_ms < next)) {
            next = h->deadline_ms;
        }
    }
    return next;
}

static z_result_t accept_all(zm_acceptor_t *a, zm_link_t *listener)
{
    for (unsigned n = 0; n < ACCEPT_BURST_MAX; n++) {
        zm_link_t link;
        z_result_t rc = zm_link_accept(listener, &link, 0);
        if (rc == ZM_E_TIMEOUT) {
            return Z_OK;
        }
        ZM_TRY(rc);
        zm_acceptor_add(a, &link);
    }
    return Z_OK;
}

z_result_t zm_acceptor_step(zm_acceptor_t *a, zm_link_t *listener, const zm_transport_params_t *p,
                            uint32_t timeout_ms, zm_transport_t *out)
{
    if (drain(a, p, out) == Z_OK) {
        return Z_OK;
    }
    uint64_t now = zm_port_clock_ms();
    bool busy = expire(a, now);
    uint64_t next = earliest_deadline(a); /* after expire: in the future, or 0 */
    uint32_t wait = timeout_ms;
    if (next != 0 && next - now < wait) {
        wait = (uint32_t)(next - now);
    }

    zm_link_t *links[ZM_ACCEPT_PENDING_MAX + 1];
    uint8_t ready[ZM_ACCEPT_PENDING_MAX + 1];
    links[0] = listener;
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        links[i + 1] = a->slot[i].state != ZM_HANDSHAKE_IDLE ? &a->slot[i].link : NULL;
    }
    z_result_t rc = zm_link_wait_any(links, ZM_ACCEPT_PENDING_MAX + 1, wait, ready);
    if (rc == ZM_E_TIMEOUT) {
        busy = expire(a, zm_port_clock_ms()) || busy;
        return busy ? ZM_E_AGAIN : ZM_E_TIMEOUT;
    }
    ZM_TRY(rc);
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        a->ready[i] = (uint8_t)(a->ready[i] | ready[i + 1]);
    }
    /* Those with bytes first, so that newcomers do not evict a handshake that could finish. */
    if (drain(a, p, out) == Z_OK) {
        return Z_OK;
    }
    if (listener != NULL && ready[0]) {
        ZM_TRY(accept_all(a, listener));
        if (drain(a, p, out) == Z_OK) {
            return Z_OK;
        }
    }
    (void)expire(a, zm_port_clock_ms());
    return ZM_E_AGAIN;
}

size_t zm_acceptor_links(zm_acceptor_t *a, zm_link_t **links, size_t cap, uint64_t *deadline_ms)
{
    size_t n = 0;
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX && n < cap; i++) {
        if (a->slot[i].state != ZM_HANDSHAKE_IDLE) {
            links[n++] = &a->slot[i].link;
        }
    }
    *deadline_ms = earliest_deadline(a);
    return n;
}

void zm_acceptor_close(zm_acceptor_t *a)
{
    for (size_t i = 0; i < ZM_ACCEPT_PENDING_MAX; i++) {
        zm_handshake_abort(&a->slot[i], ZM_CLOSE_GENERIC);
        a->ready[i] = 0;
    }
}

#endif /* Z_FEATURE_UNICAST_PEER */
