/*
 * A peer session on a multicast group (docs/multicast.md). The group sits in a peer slot of its
 * own: everything the session sends to every peer (declarations, puts, gets) goes there once. Each
 * node heard on the group becomes a member in another slot when its JOIN comes, a remote peer
 * like a unicast one (its declarations, its queries, its tokens), found by the address its
 * datagrams come from through a fixed hash table: a flood of JOINs fills ZM_MCAST_PEERS_MAX slots
 * and no more, and allocates nothing; a newcomer takes the place of an idle member (member_idlest),
 * never of one that sends data. One thread receives on the group (its read task, or
 * zm_session_read) and so owns every member's receive state; the lease task sends our JOINs and
 * drops the members that fell silent.
 */
#include <string.h>

#include "session/hub.h"

#if Z_FEATURE_MULTICAST_TRANSPORT

/* Newcomers get our declarations again at most this often, however many come (a flood of JOINs). */
#define ANNOUNCE_GAP_MS 100u

/* A member that sent data (a FRAME or FRAGMENT in its window) this recently is never evicted. */
#define EVICT_IDLE_MS ZM_LEASE_MS

zm_transport_params_t zm_mcast_params(const zm_session_t *s)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid = s->zid;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = ZM_BATCH_MULTICAST_SIZE;
    p.lease_ms = ZM_LEASE_MS;
    return p;
}

/* ---- members by address: open addressing over ZM_MCAST_TABLE slot indices, under s->lock ------- */

/* s->lock held: the member whose datagrams come from a, or NULL. */
static zm_peer_t *member_find(zm_session_t *s, const zm_addr_t *a)
{
    size_t h = zm_mcast_table_home(s, a);
    for (size_t k = 0; k < ZM_MCAST_TABLE; k++) {
        uint8_t slot = s->mcast.table[(h + k) % ZM_MCAST_TABLE];
        if (slot == 0) {
            break;
        }
        if (zm_port_addr_equal(&s->peers[slot].addr, a)) {
            return &s->peers[slot];
        }
    }
    return NULL;
}

/* s->lock held. The table has room: it holds twice as many slots as there are members. */
static void table_insert(zm_session_t *s, const zm_peer_t *p)
{
    size_t i = zm_mcast_table_home(s, &p->addr);
    while (s->mcast.table[i] != 0) {
        i = (i + 1) % ZM_MCAST_TABLE;
    }
    s->mcast.table[i] = p->index;
}


/*
 * s->lock held: a member for the sender of j at from, pinned once for the caller, or NULL when
 * every member slot is taken (the JOIN is ignored: it costs nothing) or the session closes.
 */
static zm_peer_t *member_admit(zm_session_t *s, const zm_addr_t *from, const zm_join_t *j)
{
    if (s->closing) {
        return NULL;
    }
    zm_peer_t *p = NULL;
    for (size_t i = ZM_GROUP_SLOT + 1; i < zm_slots(s) && p == NULL; i++) {
        if (s->peers[i].state == PEER_FREE && s->peers[i].refs == 0) {
            p = &s->peers[i];
        }
    }
    if (p == NULL || zm_mcast_member_init(&p->t, j) != Z_OK) {
        return NULL;
    }
    zm_peer_setup(s, p, false);
    zm_atomic_inc_relaxed(&p->refs); /* the caller's */
    p->tx = &s->peers[ZM_GROUP_SLOT].t; /* what we send to it goes to the group */
    p->addr = *from;
    table_insert(s, p);
    s->mcast.announce = true; /* it needs our JOIN and our declarations: the lease task, now */
    ZM_IF_THREADS(zm_port_condvar_broadcast(&s->lease_cond);)
    return p;
}

/*
 * s->lock held: the member a newcomer takes the place of when every slot is taken, pinned, or
 * NULL. Only a member without data may go: none since its JOIN, or none for EVICT_IDLE_MS; of
 * those, the one heard from least recently. A member that publishes keeps its place however many
 * come; a table held by members that only JOIN (or send a datagram a minute under a long lease)
 * makes room for every newcomer. None goes while another is being dropped: its slot comes first.
 */
static zm_peer_t *member_idlest(zm_session_t *s, uint32_t now)
{
    zm_peer_t *victim = NULL;
    uint32_t victim_silent = 0;
    for (size_t i = ZM_GROUP_SLOT + 1; i < zm_slots(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state != PEER_LIVE) {
            return NULL; /* dead and not reaped yet: a slot soon free, for the next JOIN */
        }
        uint32_t silent = now - zm_atomic_load_relaxed(&p->t.last_rx_ms);
        silent = silent < UINT32_MAX / 2u && !zm_atomic_load_relaxed(&p->t.rx_heard) ? silent : 0u; /* heard since */
        bool idle = !p->t.has_data || now - p->t.data_ms > EVICT_IDLE_MS;
        if (idle && (victim == NULL || silent > victim_silent)) {
            victim = p;
            victim_silent = silent;
        }
    }
    if (victim != NULL) {
        zm_atomic_inc_relaxed(&victim->refs);
    }
    return victim;
}

/* Drops member p (pinned once by the caller) for a newcomer, and frees its slot at once when
 * nobody else holds it: a member has no link nor reader, nothing to wait for. */
static void member_evict(zm_session_t *s, zm_peer_t *p)
{
    zm_peer_kill(p, ZM_CLOSE_MAX_SESSIONS, "evicted: the member table is full and it sent no data lately");
    S_LOCK(s);
    p->refs--;
    bool reap = p->state == PEER_DEAD && p->refs == 0;
    if (reap) {
        p->state = PEER_REAPING; /* ours alone: the lease task's reap passes it by */
    }
    S_UNLOCK(s);
    if (reap) {
        zm_mcast_member_free(&p->t);
        zm_hub_peer_gone(s, p);
        S_LOCK(s);
        p->state = PEER_FREE;
        S_BROADCAST(s);
        S_UNLOCK(s);
    }
}

z_result_t zm_mcast_read(zm_session_t *s, zm_peer_t *g, bool wait)
{
    zm_slice_t batch;
    const zm_addr_t *from = NULL;
    ZM_TRY(zm_mcast_recv(&g->t, wait, &batch, &from));
    S_LOCK(s);
    zm_peer_t *m = member_find(s, from);
    if (m != NULL) {
        zm_atomic_inc_relaxed(&m->refs);
    }
    S_UNLOCK(s);
    if (m == NULL) {
        zm_join_t j;
        if (zm_mcast_newcomer(batch, &s->zid, &j) != Z_OK) {
            return Z_OK; /* not a member: nothing it sends counts until its JOIN does */
        }
        S_LOCK(s);
        m = member_admit(s, from, &j);
        zm_peer_t *victim = m == NULL && !s->closing ? member_idlest(s, (uint32_t)zm_port_clock_ms()) : NULL;
        S_UNLOCK(s);
        if (victim != NULL) {
            member_evict(s, victim);
            S_LOCK(s);
            m = member_admit(s, from, &j);
            S_UNLOCK(s);
        }
        if (m == NULL) {
            return Z_OK;
        }
        ZM_LOG_I("a peer joined the multicast group (%u members at most)", (unsigned)ZM_MCAST_PEERS_MAX);
    }
    /* whether it sent data: a FRAME or FRAGMENT in its window moves one of its channels */
    uint32_t sns[ZM_TX_CHANNELS];
    memcpy(sns, m->t.rx_sn, sizeof(sns));
    z_result_t rc = zm_transport_rx_batch(&m->t, batch);
    if (memcmp(sns, m->t.rx_sn, sizeof(sns)) != 0) {
        m->t.has_data = true;
        m->t.data_ms = (uint32_t)zm_port_clock_ms();
    }
    if (rc == ZM_E_CLOSED) {
        zm_peer_kill(m, ZM_CLOSE_GENERIC, NULL);
    } else if (rc == ZM_E_SN_RANGE) {
        /* anyone can send from its address: an SN beyond the resolution costs that batch only
         * (Rust drops what is outside the window; beyond the resolution it fails altogether) */
        ZM_LOG_I("a batch from a multicast member with an SN beyond the resolution: dropped");
    } else if (rc != Z_OK) {
        zm_peer_kill(m, ZM_CLOSE_INVALID, "what it sent to the group could not be read, or its JOIN changed");
    }
    zm_peer_unpin(m);
    return Z_OK;
}

void zm_mcast_lease(zm_session_t *s, zm_peer_t *g)
{
    uint64_t now = zm_port_clock_ms();
    S_LOCK(s);
    bool announce = s->mcast.announce && now - s->mcast.last_announce_ms >= ANNOUNCE_GAP_MS;
    bool force = s->mcast.join_now;
    s->mcast.join_now = false;
    S_UNLOCK(s);
    bool join = force || announce || now - s->mcast.last_join_ms >= ZM_MCAST_JOIN_INTERVAL_MS;
    zm_transport_params_t params = zm_mcast_params(s);
    z_result_t rc = zm_mcast_tick(&g->t, &params, join);
    if (rc == Z_OK && join) {
        s->mcast.last_join_ms = now;
        if (announce) {
            S_LOCK(s);
            s->mcast.announce = false;
            S_UNLOCK(s);
            s->mcast.last_announce_ms = now;
            /* the newcomers know us now: our declarations again, the others ignore what they know */
            rc = zm_hub_push_all(s, g);
        }
    }
    if (rc != Z_OK && rc != ZM_E_AGAIN) { /* AGAIN: a sender holds the group, the next tick will do */
        zm_peer_send_failed(g, rc, "its link failed");
    }
    for (size_t i = ZM_GROUP_SLOT + 1; i < zm_slots(s); i++) {
        zm_peer_t *m = &s->peers[i];
        S_LOCK(s);
        bool live = m->state == PEER_LIVE;
        if (live) {
            zm_atomic_inc_relaxed(&m->refs);
        }
        S_UNLOCK(s);
        if (!live) {
            continue;
        }
        if (zm_mcast_member_expired(&m->t, now)) {
            zm_peer_kill(m, ZM_CLOSE_EXPIRED, "silent on the multicast group for longer than its lease");
        }
        zm_peer_unpin(m);
    }
}

#endif /* Z_FEATURE_MULTICAST_TRANSPORT */
