/*
 * The multicast transport (docs/multicast.md): the group's side, which sends like a unicast
 * transport and announces itself with JOINs instead of a handshake, and the members' side, a
 * receive state per member set up from its first JOIN. Everything here follows what a default
 * Rust 1.10.2 peer accepts: batch 8192, resolution 0x0a, no QoS, and JOINs that never change.
 */
#include <string.h>

#include "transport/internal.h"
#include "util/alloc.h"

#if Z_FEATURE_MULTICAST_TRANSPORT

z_result_t zm_mcast_open(zm_transport_t *g, zm_link_t *link, const zm_transport_params_t *p)
{
    zm_transport_params_t gp = *p;
    gp.batch_size = ZM_BATCH_MULTICAST_SIZE;
    gp.qos = false;
    z_result_t rc = zm_transport_setup(g, link, &gp);
    if (rc == Z_OK) {
        g->sn_mask = ZM_SN_MASK_DEFAULT; /* a group's SNs are 32 bits, as Rust's (join_acceptable) */
        g->patch = 1;
        g->remote_whatami = ZM_WAI_PEER;
        rc = zm_transport_tx_alloc(g, zm_transport_batch_cap(link, &gp));
    }
    if (rc == Z_OK) {
        /* each channel starts anywhere in the SN space, as Rust's do; JOINs tell where */
        for (unsigned i = 0; i < ZM_TX_CHANNELS; i++) {
            g->tx_sn[i] = zm_transport_random_sn(g->sn_mask);
        }
        memcpy(g->tx_sn_sent, g->tx_sn, sizeof(g->tx_sn_sent));
        rc = zm_transport_finish(g);
    }
    if (rc != Z_OK) {
        zm_transport_drop_buffers(g);
        *link = g->link;
    }
    return rc;
}

z_result_t zm_mcast_tick(zm_transport_t *g, const zm_transport_params_t *p, bool join)
{
    if (!join) {
        return zm_transport_join_tick(g, NULL);
    }
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_JOIN;
    zm_join_t *j = &m.body.join;
    j->version = ZM_PROTO_VERSION;
    j->whatami = p->whatami;
    j->zid = p->zid;
    j->resolution = ZM_RESOLUTION_DEFAULT;
    j->batch_size = g->batch_size;
    j->has_size = g->batch_size != ZM_JOIN_BATCH_DEFAULT;
    /* in seconds when whole, as Rust writes it; the same every time, as Rust checks */
    j->lease = zm_transport_lease_wire(p->lease_ms, &j->lease_secs);
    j->exts = ZM_JOIN_EXT_PATCH;
    j->patch = 1;
    return zm_transport_join_tick(g, &m);
}

z_result_t zm_mcast_recv(zm_transport_t *g, bool wait, zm_slice_t *batch, const zm_addr_t **from)
{
    z_result_t rc = wait ? zm_link_recv_batch(&g->link, g->rx_buf, g->rx_cap, batch)
                         : zm_link_try_recv_batch(&g->link, g->rx_buf, g->rx_cap, batch);
    *from = zm_link_sender(&g->link);
    return rc == Z_OK && *from == NULL ? ZM_E_UNSUPPORTED : rc;
}

/* A JOIN zmote can take a member from (docs/multicast.md): what Rust's own check asks. */
static bool join_acceptable(const zm_join_t *j, const zm_zid_t *self)
{
    if (j->version != ZM_PROTO_VERSION || (j->resolution & 0x3fu) != ZM_RESOLUTION_DEFAULT ||
        j->batch_size != ZM_BATCH_MULTICAST_SIZE || j->whatami == ZM_WAI_CLIENT || j->zid.len == 0) {
        return false;
    }
    return !(j->zid.len == self->len && memcmp(j->zid.id, self->id, self->len) == 0);
}

z_result_t zm_mcast_newcomer(zm_slice_t batch, const zm_zid_t *self, zm_join_t *j)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, ZM_SN_MASK_DEFAULT);
    for (;;) {
        zm_transport_msg_t m;
        bool got = false;
        if (zm_batch_next(&it, &m, &got) != Z_OK || !got) {
            return ZM_E_AGAIN; /* nothing that makes it a member: its frames mean nothing yet */
        }
        if (m.id == ZM_MID_JOIN) {
            *j = m.body.join;
            return join_acceptable(j, self) ? Z_OK : ZM_E_AGAIN;
        }
    }
}

/* The lease a JOIN announces, in milliseconds, clamped as an OPEN's is. */
static uint32_t join_lease_ms(const zm_join_t *j)
{
    zm_open_t o;
    memset(&o, 0, sizeof(o));
    o.lease_secs = j->lease_secs;
    o.lease = j->lease;
    return zm_transport_open_lease_ms(&o);
}

/*
 * The SNs a JOIN announces, one a channel: the next each channel of its sender sends. The first
 * JOIN sets where each channel starts; a later one only moves a channel back, to the SN before
 * the one announced, when what we accepted is ahead of it: what its sender has not sent yet came
 * from someone else (a forged FRAME inside the window), and would keep its sender's own FRAMEs out
 * until the SNs wrap. A JOIN thus unmutes a member within one JOIN interval.
 */
static z_result_t join_sns(zm_transport_t *m, const zm_join_t *j, bool first)
{
    uint32_t next[ZM_TX_CHANNELS] = {0};
    if (!m->qos) {
        next[ZM_CHANNEL(true, ZM_PRIO_DATA)] = (uint32_t)j->next_sn_reliable;
        next[ZM_CHANNEL(false, ZM_PRIO_DATA)] = (uint32_t)j->next_sn_best_effort;
    } else {
        /* 0x51: a (reliable, best-effort) pair per priority, checked when decoded */
        zm_reader_t r;
        zm_reader_init(&r, j->qos_sns.ptr, j->qos_sns.len);
        for (unsigned prio = 0; prio < 8u; prio++) {
            uint64_t rel = 0, be = 0;
            ZM_TRY(zm_read_zint(&r, &rel));
            ZM_TRY(zm_read_zint(&r, &be));
            next[ZM_CHANNEL(true, prio)] = (uint32_t)rel;
            next[ZM_CHANNEL(false, prio)] = (uint32_t)be;
        }
    }
    for (unsigned ch = 0; ch < ZM_TX_CHANNELS; ch++) {
        uint32_t last = (next[ch] - 1u) & m->sn_mask;
        uint32_t ahead = (m->rx_sn[ch] - last) & m->sn_mask;
        if (first || (ahead != 0 && ahead <= m->sn_mask / 2u)) {
            m->rx_sn[ch] = last;
        }
    }
    return Z_OK;
}

z_result_t zm_mcast_member_init(zm_transport_t *m, const zm_join_t *j)
{
    memset(m, 0, sizeof(*m));
    ZM_IF_THREADS(
        atomic_init(&m->closed, false);
        atomic_init(&m->tx_stuck_dropped, 0u);
        atomic_init(&m->tx_waiting_since, 0u);
    )
    m->member = true;
    m->tx_frame = -1;
    m->remote_zid = j->zid;
    m->remote_whatami = j->whatami;
    m->remote_lease_ms = join_lease_ms(j);
    m->sn_mask = zm_sn_mask(j->resolution & 3u);
    m->qos = (j->exts & ZM_JOIN_EXT_QOS) != 0;
    m->patch = (j->exts & ZM_JOIN_EXT_PATCH) && j->patch >= 1 ? 1 : 0;
    ZM_TRY(join_sns(m, j, true));
    uint32_t now = (uint32_t)zm_port_clock_ms();
    zm_atomic_store_relaxed(&m->last_rx_ms, now);
    zm_atomic_store_relaxed(&m->join_ms, now);
    zm_atomic_store_relaxed(&m->contradicted, false);
    return Z_OK;
}

z_result_t zm_mcast_member_join(zm_transport_t *m, const zm_join_t *j)
{
    bool same = j->version == ZM_PROTO_VERSION && j->whatami == m->remote_whatami &&
                j->zid.len == m->remote_zid.len && memcmp(j->zid.id, m->remote_zid.id, j->zid.len) == 0 &&
                join_lease_ms(j) == m->remote_lease_ms && zm_sn_mask(j->resolution & 3u) == m->sn_mask &&
                ((j->exts & ZM_JOIN_EXT_QOS) != 0) == m->qos;
    if (!same) {
        /* Ignored, as Rust ignores it; but from now on only the member's own JOINs keep it, so
         * that a node that restarted at its address takes its place once it stops sending them. */
        if (!zm_atomic_load_relaxed(&m->contradicted)) {
            ZM_LOG_I("a JOIN from a member's address contradicts its first one: ignored");
            zm_atomic_store_relaxed(&m->contradicted, true);
        }
        return Z_OK;
    }
    zm_atomic_store_relaxed(&m->join_ms, (uint32_t)zm_port_clock_ms());
    return join_sns(m, j, false);
}

bool zm_mcast_member_expired(zm_transport_t *m, uint64_t now_ms)
{
    /* once contradicted, only its own JOINs keep it (zm_mcast_member_join) */
    uint32_t heard = zm_transport_heard_ms(m, (uint32_t)now_ms);
    uint32_t last = zm_atomic_load_relaxed(&m->contradicted) ? zm_atomic_load_relaxed(&m->join_ms) : heard;
    uint32_t silent = (uint32_t)now_ms - last;
    /* a reading newer than now (stored after ours was taken) is no silence at all */
    return silent < UINT32_MAX / 2u && silent > m->remote_lease_ms;
}

void zm_mcast_member_free(zm_transport_t *m)
{
#if Z_FEATURE_FRAGMENTATION
    zm_transport_defrag_free(m);
#else
    ZM_UNUSED(m);
#endif
}

#endif /* Z_FEATURE_MULTICAST_TRANSPORT */
