/*
 * A peer session on a multicast group (docs/multicast.md). The group sits in a peer slot of its
 * own: everything the session sends to every peer (declarations, puts, gets) goes there once. Each
 * node heard on the group becomes a member in another slot when its JOIN comes, a remote peer
 * like a unicast one (its declarations, its queries, its tokens), found by the address its
 * datagrams come from through a fixed hash table: a flood of JOINs fills ZM_MCAST_PEERS_MAX slots
 * and no more, and allocates nothing. One thread receives on the group (its read task, or
 * zm_session_read) and so owns every member's receive state; the lease task sends our JOINs and
 * drops the members that fell silent.
 */
#include <string.h>

#include "session/internal.h"

#if Z_FEATURE_MULTICAST_TRANSPORT

/* Newcomers get our declarations again at most this often, however many come (a flood of JOINs). */
#define ANNOUNCE_GAP_MS 100u

static zm_transport_params_t group_params(const zm_session_t *s)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid = s->zid;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = ZM_BATCH_MULTICAST_SIZE;
    p.lease_ms = ZM_LEASE_MS;
    return p;
}

bool zm_mcast_declares(uint8_t kind)
{
    switch (kind) {
    case ZM_DECL_QUERYABLE:
    case ZM_UNDECL_QUERYABLE:
        return false; /* a Rust member would route its own gets to us and wait for their timeout */
    case ZM_DECL_KEYEXPR:
    case ZM_UNDECL_KEYEXPR:
        return Z_FEATURE_MULTICAST_DECLARATIONS; /* else full keys, which latecomers can read */
    default:
        return true;
    }
}

/* ---- members by address: open addressing over ZM_MCAST_TABLE slot indices, under s->lock ------- */

static size_t table_home(const zm_session_t *s, const zm_addr_t *a)
{
    return zm_port_addr_hash(a, s->mcast.seed) % ZM_MCAST_TABLE;
}

/* s->lock held: the member whose datagrams come from a, or NULL. */
static zm_peer_t *member_find(zm_session_t *s, const zm_addr_t *a)
{
    size_t h = table_home(s, a);
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
    size_t i = table_home(s, &p->addr);
    while (s->mcast.table[i] != 0) {
        i = (i + 1) % ZM_MCAST_TABLE;
    }
    s->mcast.table[i] = p->index;
}

void zm_mcast_forget(zm_session_t *s, zm_peer_t *p)
{
    size_t i = 0;
    while (i < ZM_MCAST_TABLE && s->mcast.table[i] != p->index) {
        i++;
    }
    if (i == ZM_MCAST_TABLE) {
        return;
    }
    /* backward shift: the entries after it that probed past i move up, no hole is left behind */
    s->mcast.table[i] = 0;
    for (size_t j = (i + 1) % ZM_MCAST_TABLE; s->mcast.table[j] != 0; j = (j + 1) % ZM_MCAST_TABLE) {
        size_t home = table_home(s, &s->peers[s->mcast.table[j]].addr);
        /* it stays unless its home lies cyclically outside (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            s->mcast.table[i] = s->mcast.table[j];
            s->mcast.table[j] = 0;
            i = j;
        }
    }
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
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS && p == NULL; i++) {
        if (s->peers[i].state == PEER_FREE && s->peers[i].refs == 0) {
            p = &s->peers[i];
        }
    }
    if (p == NULL || zm_mcast_member_init(&p->t, j) != Z_OK) {
        return NULL;
    }
    zm_peer_setup(s, p, false);
    p->tx = &s->peers[ZM_GROUP_SLOT].t; /* what we send to it goes to the group */
    p->addr = *from;
    table_insert(s, p);
    s->mcast.announce = true; /* it needs our JOIN and our declarations: the lease task, now */
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&s->lease_cond);
#endif
    return p;
}

z_result_t zm_mcast_read(zm_session_t *s, zm_peer_t *g, bool wait)
{
    zm_slice_t batch;
    const zm_addr_t *from = NULL;
    ZM_TRY(zm_mcast_recv(&g->t, wait, &batch, &from));
    S_LOCK(s);
    zm_peer_t *m = member_find(s, from);
    if (m != NULL) {
        m->refs++;
    }
    S_UNLOCK(s);
    if (m == NULL) {
        zm_join_t j;
        if (zm_mcast_newcomer(batch, &s->zid, &j) != Z_OK) {
            return Z_OK; /* not a member: nothing it sends counts until its JOIN does */
        }
        S_LOCK(s);
        m = member_admit(s, from, &j);
        S_UNLOCK(s);
        if (m == NULL) {
            return Z_OK;
        }
        ZM_LOG_I("a peer joined the multicast group (%u members at most)", (unsigned)ZM_MCAST_PEERS_MAX);
    }
    z_result_t rc = zm_transport_rx_batch(&m->t, batch);
    if (rc == ZM_E_CLOSED) {
        zm_peer_kill(m, ZM_CLOSE_GENERIC, NULL);
    } else if (rc != Z_OK) {
        zm_peer_kill(m, ZM_CLOSE_INVALID, "what it sent to the group could not be read, or its JOIN changed");
    }
    zm_peers_unpin(s, &m, 1);
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
    zm_transport_params_t params = group_params(s);
    z_result_t rc = zm_mcast_tick(&g->t, &params, join);
    if (rc == Z_OK && join) {
        s->mcast.last_join_ms = now;
        if (announce) {
            S_LOCK(s);
            s->mcast.announce = false;
            S_UNLOCK(s);
            s->mcast.last_announce_ms = now;
            /* the newcomers know us now: our declarations again, the others ignore what they know */
            rc = zm_decl_push_all(s, g);
        }
    }
    if (rc != Z_OK && rc != ZM_E_AGAIN) { /* AGAIN: a sender holds the group, the next tick will do */
        zm_peer_send_failed(g, rc, "its link failed");
    }
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *m = &s->peers[i];
        S_LOCK(s);
        bool live = m->state == PEER_LIVE;
        if (live) {
            m->refs++;
        }
        S_UNLOCK(s);
        if (!live) {
            continue;
        }
        if (zm_mcast_member_expired(&m->t, now)) {
            zm_peer_kill(m, ZM_CLOSE_EXPIRED, "silent on the multicast group for longer than its lease");
        }
        zm_peers_unpin(s, &m, 1);
    }
}

/* Whether s may join a group now: a peer, not on one already. */
static bool may_join(zm_session_t *s)
{
    S_LOCK(s);
    bool taken = s->mcast.open;
    S_UNLOCK(s);
    return s->cfg.mode == ZM_MODE_PEER && !taken;
}

z_result_t zm_mcast_join(zm_session_t *s, const char *endpoint)
{
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT));
    if (!may_join(s)) {
        return ZM_E_UNSUPPORTED; /* a client has no group (nor in Rust); one group a session */
    }
    zm_link_t link;
    ZM_TRY(zm_link_mcast_open(&link, &ep));
    z_result_t rc = zm_mcast_join_link(s, &link);
    if (rc != Z_OK && zm_link_is_open(&link)) {
        zm_link_close(&link);
    }
    return rc;
}

z_result_t zm_mcast_join_link(zm_session_t *s, zm_link_t *link)
{
    if (!may_join(s)) {
        return ZM_E_UNSUPPORTED;
    }
    zm_transport_params_t params = group_params(s);
    zm_transport_t t;
    z_result_t rc = zm_mcast_open(&t, link, &params);
    if (rc != Z_OK) {
        return rc; /* the link is the caller's again */
    }
    link->ops = NULL; /* the group's now */
    zm_peer_t *g = &s->peers[ZM_GROUP_SLOT];
    uint32_t seed[2];
    zm_port_random(seed, sizeof(seed));
    S_LOCK(s);
    g->t = t;
    zm_peer_setup(s, g, false);
    s->mcast.open = true;
    s->mcast.seed = seed[0];
    s->mcast.announce = false;
    s->mcast.last_join_ms = zm_port_clock_ms();
    s->mcast.last_announce_ms = s->mcast.last_join_ms;
    memset(s->mcast.table, 0, sizeof(s->mcast.table));
#if Z_FEATURE_QUERY
    /* other members see the replies to our gets: ids from a random start seldom meet theirs */
    s->next_rid = seed[1] != 0 ? seed[1] : 1u;
#endif
    S_UNLOCK(s);
    /* our JOIN first: the members take nothing from us before it */
    rc = zm_mcast_tick(&g->t, &params, true);
    if (rc == Z_OK) {
        rc = zm_decl_push_all(s, g);
    }
    zm_peer_start(s, g);
    zm_peers_unpin(s, &g, 1);
    if (rc != Z_OK) {
        zm_peer_send_failed(g, rc, "nothing could be sent to it");
    }
    return rc;
}

void zm_mcast_settle(zm_session_t *s)
{
    uint64_t deadline = zm_port_clock_ms() + ZM_MCAST_OPEN_WAIT_MS;
    zm_peer_t *g = &s->peers[ZM_GROUP_SLOT];
    for (uint64_t now = zm_port_clock_ms(); now < deadline && !s->closing; now = zm_port_clock_ms()) {
        uint32_t left = (uint32_t)(deadline - now);
        S_LOCK(s);
        bool reader = g->state == PEER_LIVE && g->reader_started;
        S_UNLOCK(s);
        if (reader) {
            zm_port_sleep_ms(left); /* the read task hears them meanwhile */
            continue;
        }
        if (zm_session_read(s, left) != Z_OK) {
            return;
        }
        z_result_t ka = zm_session_send_keep_alive(s); /* newcomers heard of: our JOIN for them */
        ZM_UNUSED(ka);
    }
}

#endif /* Z_FEATURE_MULTICAST_TRANSPORT */
