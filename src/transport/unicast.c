/*
 * The unicast handshake as opener (INIT then OPEN, spec 5.9), the pieces both roles share, and
 * the transport's life cycle. The opener blocks through its four steps with the link's deadline
 * bounding each receive; the acceptor, which must serve many newcomers at once, is a
 * non-blocking state machine of its own in accept.c.
 */
#include <string.h>

#include "transport/internal.h"
#include "transport/usrpwd.h"
#include "util/alloc.h"

/*
 * One step of the opener: sends the syn encoded in buf (behind ZM_LINK_HEADROOM), then receives
 * the answer into m, which must be the ack of the same message. A CLOSE is ZM_E_CLOSED, anything
 * else unexpected is an error. The link's receive deadline, set for the whole handshake, bounds
 * the wait and the send: nothing sent by it is ZM_E_TIMEOUT.
 */
static z_result_t exchange(zm_transport_t *t, uint8_t *buf, size_t len, uint8_t want, zm_transport_msg_t *m)
{
    uint64_t deadline = t->link.rx_deadline_ms;
    z_result_t rc = zm_link_send_batch(&t->link, buf + ZM_LINK_HEADROOM, len, deadline, deadline);
    if (rc != Z_OK) {
        return rc == ZM_E_AGAIN ? ZM_E_TIMEOUT : rc;
    }
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
    bool ack = want == ZM_MID_INIT ? m->body.init.ack : m->body.open.ack;
    return ack ? Z_OK : ZM_E_FIELD;
}

/*
 * A CLOSE is a header and a reason byte (zmote's has no extension): they are written as they are
 * into a buffer of their own, not encoded through a buffer sized for handshake messages, because
 * a close can happen deep in a send or a receive (a peer killed for what it sent) and must not
 * stack hundreds more bytes there.
 */
void zm_transport_send_close(zm_link_t *link, bool session, uint8_t reason)
{
    uint8_t buf[ZM_LINK_HEADROOM + 2];
    buf[ZM_LINK_HEADROOM] = (uint8_t)(ZM_MID_CLOSE | (session ? ZM_CLOSE_FLAG_S : 0u));
    buf[ZM_LINK_HEADROOM + 1] = reason;
    uint64_t now = zm_port_clock_ms();
    z_result_t r = zm_link_send_batch(link, buf + ZM_LINK_HEADROOM, 2, now, now + ZM_TRANSPORT_CLOSE_SEND_MS);
    ZM_UNUSED(r); /* a peer that is gone, or does not read, needs no CLOSE */
}


/*
 * The resolutions an InitAck may answer ours (ZM_RESOLUTION_DEFAULT) with, a bit each: every field
 * no wider than ours (SNs and request ids of 8, 16 or 32 bits), nothing in the bits above them.
 */
#define RESOLUTIONS_OURS_OR_LESS 0x0777u
_Static_assert(ZM_RESOLUTION_DEFAULT == 0x0au, "RESOLUTIONS_OURS_OR_LESS is for 32-bit SNs and request ids");

#if ZM_AUTH_USRPWD
#define AUTH_ROOM ZM_USRPWD_OPEN_SYN_EXT_MAX
#else
#define AUTH_ROOM 0u
#endif

#if ZM_RX_AGREED
/*
 * The opener's receive buffer, once the batch is agreed: as large as that batch (no larger than
 * the peer may send), or as what the link read past the OpenAck into the handshake's buffer if
 * that is more (several batches at once); those bytes move into it.
 */
static z_result_t rx_agreed(zm_transport_t *t, uint16_t batch)
{
    size_t have = t->link.rx_len - t->link.rx_pos;
    size_t cap = (size_t)batch + ZM_LINK_HEADROOM;
    ZM_TRY(zm_transport_rx_alloc(t, have > cap ? have : cap));
    return zm_link_rebuffer(&t->link, t->rx_buf, t->rx_cap); /* it holds them all */
}
#endif

/*
 * Opener: InitSyn, InitAck, OpenSyn, OpenAck. The syns are written straight into a buffer for the
 * link (what the opener sends of them is fixed); the acks are decoded into one transport message.
 * It is inline in zm_transport_open, which -Os would not do for a frame this large.
 */
static ZM_ALWAYS_INLINE z_result_t handshake_open(zm_transport_t *t, const zm_transport_params_t *p)
{
    /* An OpenSyn is at most 18 bytes, its cookie, which is bounded below, and its credentials */
    uint8_t buf[ZM_LINK_HEADROOM + 24u + 256u + AUTH_ROOM];
    zm_writer_t w;
    zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof(buf) - ZM_LINK_HEADROOM);
    zm_transport_msg_t m;
    ZM_IF_USRPWD(m.id = ZM_MID_T_OAM; /* not a CLOSE: a link that ends without one leaves it so */)
    /* the largest batch we announce */
    uint16_t cap = zm_transport_batch_cap(&t->link, p);
    w.len = zm_init_syn_put(w.data, p->whatami, &p->zid, cap, p->qos); /* the buffer holds more */
    ZM_IF_USRPWD(
        bool auth = p->user != NULL;
        if (auth) {
            w.data[w.len - 2u] |= ZM_FLAG_Z; /* the patch level, the last extension so far */
            w.len += zm_usrpwd_init_syn_put(w.data + w.len);
        }
    )
    z_result_t said = exchange(t, buf, w.len, ZM_MID_INIT, &m);
#if ZM_AUTH_USRPWD
    if (said == ZM_E_CLOSED && !auth && m.id == ZM_MID_CLOSE && m.body.close.reason == ZM_CLOSE_GENERIC) {
        return ZM_E_AUTH_MISSING; /* Rust's answer to an InitSyn without the credentials it requires */
    }
#endif
    ZM_TRY(said);
    const zm_init_t *ack = &m.body.init;
    uint8_t res = ack->has_size ? ack->resolution : ZM_RESOLUTION_DEFAULT; /* its low 6 bits */
    uint16_t batch = ack->has_size ? ack->batch_size : ZM_BATCH_DEFAULT;
    /* The cookie stays where it is in rx_buf: nothing is received into it before the OpenAck,
     * once the OpenSyn that carries it is out. Rust's are well under this bound. */
    zm_slice_t cookie = ack->cookie;
    z_result_t rc = Z_OK;
    if (ack->version != ZM_PROTO_VERSION || res > ZM_RESOLUTION_DEFAULT || !((RESOLUTIONS_OURS_OR_LESS >> res) & 1u) ||
        batch < 64) {
        rc = ZM_E_UNSUPPORTED;
    } else if (cookie.len > 256u) {
        rc = ZM_E_FIELD;
    }
    ZM_IF_USRPWD(
        uint64_t nonce = 0;
        if (rc == Z_OK && auth) {
            rc = zm_usrpwd_nonce(ack->auth, &nonce); /* empty when absent: the decoders clear it */
        }
    )
    if (rc != Z_OK) {
        zm_transport_send_close(&t->link, false, ZM_CLOSE_INVALID);
        return rc;
    }
    memcpy(&t->remote_zid, &ack->zid, sizeof(t->remote_zid)); /* a call: smaller than the copy inline */
    t->remote_whatami = ack->whatami;
    t->sn_mask = zm_sn_mask(res & 3u);
    t->qos = p->qos && (ack->exts & ZM_INIT_EXT_QOS);
    if (Z_FEATURE_FRAGMENTATION) { /* only fragments differ between the patch levels */
        t->patch = (ack->exts & ZM_INIT_EXT_PATCH) && ack->patch >= 1;
    }
    batch = zm_min_u16(batch, cap);

    uint32_t initial_sn = zm_transport_random_sn(t->sn_mask);
    bool secs;
    uint32_t lease = zm_transport_lease_wire(p->lease_ms, &secs);
    w.len = 0;
    ZM_TRY(zm_open_syn_encode(&w, secs, lease, initial_sn, cookie));
#if ZM_AUTH_USRPWD
    if (auth) {
        w.data[0] |= ZM_FLAG_Z;
        ZM_TRY(zm_usrpwd_open_syn_ext(&w, p->user, p->password, nonce));
    }
    z_result_t opened = exchange(t, buf, w.len, ZM_MID_OPEN, &m);
    if (auth && opened == ZM_E_CLOSED && m.id == ZM_MID_CLOSE && m.body.close.reason == ZM_CLOSE_GENERIC) {
        return ZM_E_AUTH_REFUSED; /* what Rust answers credentials it does not take with */
    }
    ZM_TRY(opened);
    if (auth && !zm_usrpwd_has(m.body.open.auth, ZM_EXT_ENC_UNIT)) {
        zm_transport_send_close(&t->link, false, ZM_CLOSE_GENERIC);
        return ZM_E_AUTH_UNSUPPORTED;
    }
#else
    ZM_TRY(exchange(t, buf, w.len, ZM_MID_OPEN, &m));
#endif
    if (m.body.open.initial_sn > t->sn_mask) {
        return ZM_E_SN_RANGE;
    }
    t->remote_lease_ms = zm_transport_open_lease_ms(&m.body.open);
#if ZM_RX_AGREED
    ZM_TRY(rx_agreed(t, batch));
#endif
    ZM_TRY(zm_transport_tx_alloc(t, batch));
    zm_transport_sn_start(t, initial_sn, m.body.open.initial_sn);
    return Z_OK;
}

z_result_t zm_transport_open(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                             uint32_t timeout_ms)
{
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    zm_transport_init(t, link, p);
#if ZM_RX_AGREED
    /* The acks are received into a buffer of the handshake's own, so that the transport's is
     * allocated as large as the batch the InitAck agrees, not as our proposal (rx_agreed). */
    uint8_t rx[ZM_HANDSHAKE_BUF_SIZE];
    t->rx_buf = rx;
    t->rx_cap = sizeof(rx);
    z_result_t rc = Z_OK;
#else
    /* The rx buffer serves the handshake too: the link may already hold the first FRAMEs in it. */
    z_result_t rc = zm_transport_rx_alloc(t, (size_t)zm_transport_batch_cap(link, p) + ZM_LINK_HEADROOM);
#endif
    if (rc == Z_OK) {
        zm_link_set_deadline(&t->link, deadline); /* bounds each step of the handshake */
        rc = handshake_open(t, p);
    }
    if (rc == Z_OK) {
        rc = zm_transport_finish(t);
    }
    zm_link_set_deadline(&t->link, 0); /* established: the lease watches the link from now on */
    if (rc != Z_OK) {
#if ZM_RX_AGREED
        if (t->rx_buf == rx) {
            t->rx_buf = NULL; /* the handshake's: nothing to free */
        }
#endif
        zm_link_close(&t->link);
        zm_transport_drop_buffers(t);
    }
    return rc;
}

void zm_transport_close(zm_transport_t *t, uint8_t reason)
{
#if Z_FEATURE_MULTI_THREAD
    if (atomic_exchange(&t->closed, true)) {
        return;
    }
#else
    if (t->closed) {
        return;
    }
    t->closed = true;
#endif
    /* A sender holding tx_lock may be waiting for a peer that stopped reading: no CLOSE then
     * (it could not go out anyway, and it must not cut a batch in half); the shutdown below is
     * what wakes that sender. */
#if Z_FEATURE_MULTI_THREAD
    bool locked = zm_port_mutex_trylock(&t->tx_lock);
#else
    bool locked = true;
#endif
    if (locked) {
        zm_transport_send_close(&t->link, true, reason); /* best effort: the link is shut next either way */
    }
    ZM_IF_THREADS(if (locked) { zm_port_mutex_unlock(&t->tx_lock); })
    zm_link_shutdown(&t->link);
}

void zm_transport_free(zm_transport_t *t)
{
    zm_link_close(&t->link);
    zm_transport_drop_buffers(t);
    ZM_IF_FRAGMENTATION(
        zm_free(t->frag_buf);
        t->frag_buf = NULL;
        zm_transport_defrag_free(t);
    )
    ZM_IF_THREADS(zm_port_mutex_destroy(&t->tx_lock);)
}
