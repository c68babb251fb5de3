/*
 * Peers coming and going: a peer is added after a finished handshake (we connected or we
 * accepted), gets our declarations pushed (the hub) and a read task, and is removed in two
 * steps: killed (peer.c: its link shut, so its reader returns), then reaped, once its reader
 * said it is done and nobody has it pinned, by a thread that may run callbacks (the worker,
 * zm_session_read, zm_session_send_keep_alive, close: session.h); the hub then tells the
 * features it is gone. A full table makes room by closing the accepted peer that was active
 * least recently, so peers that only hold a slot cannot keep real ones out.
 */
#include <string.h>

#include "session/hub.h"

/* How long an accept waits for an evicted peer's slot (its reader finishing its last callback,
 * then the reap). */
#define EVICT_WAIT_MS 1000u

/* Filled in place: a copy of it returned would be a second one on the caller's stack. */
static void local_params(const zm_session_t *s, zm_transport_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->zid = s->zid;
    p->whatami = zm_session_is_peer(s) ? ZM_WAI_PEER : ZM_WAI_CLIENT;
    p->batch_size = ZM_BATCH_UNICAST_SIZE;
    p->lease_ms = ZM_LEASE_MS;
    p->qos = true;
    ZM_IF_USRPWD(
        p->user = s->cfg.user;
        p->password = s->cfg.password;
        p->usrpwd_dict = s->cfg.usrpwd_dict;
    )
}

static void peer_welcome(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = zm_hub_push_all(s, p);
    if (rc != Z_OK) {
        zm_peer_send_failed(p, rc, "our declarations could not be sent");
    }
    zm_peer_start(s, p);
}

#if ZM_PUSH_DECLS
/*
 * The dead peers go: the worker, when it runs, is woken to reap them, as an accept or a
 * reconnect runs on a task that runs no callback; else they are reaped here, by the application
 * that drives the session (or, without a worker, an accept task).
 */
static void reap_dead(zm_session_t *s)
{
#if Z_FEATURE_MULTI_THREAD
    S_LOCK(s);
    bool worker = s->tasks_joinable;
    if (worker) {
        zm_port_condvar_signal(&s->work_cond);
    }
    S_UNLOCK(s);
    if (worker) {
        return;
    }
#endif
    zm_peer_reap(s);
}

/* s->lock held: a free slot, or NULL. */
static zm_peer_t *free_slot(zm_session_t *s)
{
    for (size_t i = 0; i < zm_slots_unicast(s); i++) {
        if (s->peers[i].state == PEER_FREE && s->peers[i].refs == 0) {
            return &s->peers[i];
        }
    }
    return NULL;
}

/* s->lock held: the accepted live peer that was active least recently, or NULL. */
static zm_peer_t *eviction_victim(zm_session_t *s)
{
    zm_peer_t *victim = NULL;
    for (size_t i = 0; i < zm_slots_unicast(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && p->accepted &&
            (victim == NULL || p->last_active_ms < victim->last_active_ms)) {
            victim = p;
        }
    }
    return victim;
}

/* A slot for a newcomer: a free one, one a dead peer leaves, or one taken from an idle peer.
 * Returns with s->lock held, so that the slot is still free when the caller fills it; NULL when
 * there is none or the session is closing. */
static zm_peer_t *claim_slot(zm_session_t *s, bool accepted)
{
    S_LOCK(s);
    if (s->closing) {
        return NULL;
    }
    zm_peer_t *p = free_slot(s);
    if (p != NULL) {
        return p;
    }
    S_UNLOCK(s);
    reap_dead(s);
    S_LOCK(s);
    p = free_slot(s);
    zm_peer_t *victim = ZM_PEER_ACTIVITY && p == NULL && accepted ? eviction_victim(s) : NULL;
    if (victim != NULL) {
        S_UNLOCK(s);
        zm_peer_kill(victim, ZM_CLOSE_MAX_SESSIONS, "evicted: the peer table is full and it was the least active");
        uint64_t deadline = zm_port_clock_ms() + EVICT_WAIT_MS;
        for (;;) {
            reap_dead(s);
            S_LOCK(s);
            p = free_slot(s);
            if (p != NULL || zm_port_clock_ms() >= deadline) {
                break;
            }
            S_WAIT(s, 10u); /* single-thread: nothing to wait for, the reap is ours */
            S_UNLOCK(s);
        }
    }
    return p;
}

static void transport_refuse(zm_transport_t *t, uint8_t reason)
{
    zm_transport_close(t, reason);
    zm_transport_free(t);
}

/*
 * A peer's arrival in two steps: its transport moves into a slot (pinned for the caller), then
 * our declarations go to it. Apart, the caller's copy of the transport (440 bytes on Cortex-M4)
 * can be off the stack before the second step sends anything.
 */
static z_result_t peer_install(zm_session_t *s, zm_transport_t *t, bool accepted, zm_peer_t **out)
{
    char zid[33];
    *out = NULL;
    zm_peer_t *p = claim_slot(s, accepted);
    if (p == NULL || s->closing) { /* closing may have begun while a dead peer was reaped */
        S_UNLOCK(s);
        if (p == NULL) {
            ZM_LOG_W("peer %s refused: the peer table is full (%u peers)", zm_zid_text(&t->remote_zid, zid),
                     (unsigned)zm_slots_unicast(s));
        }
        transport_refuse(t, ZM_CLOSE_MAX_SESSIONS);
        return ZM_E_NO_SPACE;
    }
    p->t = *t;
    zm_peer_setup(s, p, accepted);
    /* the caller's, while it pushes the declarations; added, as a put that found the slot
     * through a stale route may hold it a moment longer (data.c) */
    zm_atomic_inc(&p->refs);
    S_UNLOCK(s);
    ZM_LOG_I("peer %s connected (%s)", zm_zid_text(&p->t.remote_zid, zid), accepted ? "accepted" : "dialled");
    *out = p;
    return Z_OK;
}

z_result_t zm_peer_add(zm_session_t *s, zm_transport_t *t, bool accepted)
{
    zm_peer_t *p;
    ZM_TRY(peer_install(s, t, accepted, &p));
    peer_welcome(s, p);
    zm_peer_unpin(p);
    return Z_OK;
}
#endif

z_result_t zm_peer_connect(zm_session_t *s, const char *endpoint, uint32_t timeout_ms)
{
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT));
    ep.tls = s->tls;
    zm_link_t link;
    ZM_TRY(zm_link_open(&link, &ep, timeout_ms));
    zm_transport_params_t params;
    local_params(s, &params);
#if ZM_PUSH_DECLS
    zm_transport_t t;
    zm_transport_t *tp = &t;
#else
    /* A client that never reconnects connects once, inside zm_session_open, for a session that
     * nobody else holds yet: its transport opens in place, in the first slot, which is free. */
    zm_peer_t *p = &s->peers[0];
    zm_transport_t *tp = &p->t;
#endif
    z_result_t rc = zm_transport_open(tp, &link, &params, timeout_ms);
    if (rc != Z_OK) {
        /* the link opened, so something listens there: a user needs to know it did not take us */
        ZM_LOG_W("handshake with %s failed: %s", endpoint, zm_strerror(rc));
        return rc;
    }
#if ZM_PUSH_DECLS
    return zm_peer_add(s, tp, false);
#else
    S_LOCK(s);
    zm_peer_setup(s, p, false); /* unpinned: no other thread nor reaper runs before open returns */
    S_UNLOCK(s);
    char zid[33];
    ZM_LOG_I("peer %s connected (dialled)", zm_zid_text(&p->t.remote_zid, zid));
    ZM_UNUSED(zid);
    peer_welcome(s, p);
    return Z_OK;
#endif
}

#if Z_FEATURE_UNICAST_PEER
/* Steps the acceptor; a newcomer it completes goes into a slot (*added, NULL if refused). Not
 * inlined: its transport stays here while zm_peer_accept sends our declarations to the peer. */
static ZM_NOINLINE z_result_t accept_one(zm_session_t *s, uint32_t timeout_ms, zm_peer_t **added)
{
    zm_transport_params_t params;
    local_params(s, &params);
    zm_transport_t t;
    *added = NULL;
    ZM_TRY(zm_acceptor_step(s->acceptor, &s->listener, &params, timeout_ms, &t));
    z_result_t installed = peer_install(s, &t, true, added);
    ZM_UNUSED(installed); /* a refused newcomer got its CLOSE; the listener goes on */
    return Z_OK;
}

z_result_t zm_peer_accept(zm_session_t *s, uint32_t timeout_ms)
{
    zm_peer_t *p;
    z_result_t rc = accept_one(s, timeout_ms, &p);
    /* the others that finished in the same round come without waiting; a bound keeps a flood of
     * newcomers from holding a single-thread caller here */
    for (unsigned n = 1; rc == Z_OK; n++) {
        if (p != NULL) {
            peer_welcome(s, p);
            zm_peer_unpin(p);
        }
        rc = n < ZM_ACCEPT_PENDING_MAX ? accept_one(s, 0, &p) : ZM_E_AGAIN;
    }
    return rc == ZM_E_TIMEOUT || rc == ZM_E_AGAIN ? Z_OK : rc;
}
#endif

void zm_peer_reap(zm_session_t *s)
{
    for (size_t i = 0; i < zm_slots(s); i++) {
        zm_peer_t *p = &s->peers[i];
        S_LOCK(s);
        bool reap = p->state == PEER_DEAD && p->refs == 0 && (!zm_peer_reading(p) || p->reader_done);
        if (reap) {
            p->state = PEER_REAPING; /* ours alone: another reaper passes it by */
        }
        S_UNLOCK(s);
        if (!reap) {
            continue;
        }
        ZM_IF_THREADS(
            if (p->reader_started) { /* done: the join waits for nothing */
                zm_port_task_join(&p->reader);
                S_LOCK(s);
                p->reader_started = false;
                S_UNLOCK(s);
            }
        )
        if (zm_peer_is_member(p)) {
            zm_mcast_member_free(&p->t); /* a receive state only, with no link nor lock */
        } else {
            zm_transport_free(&p->t);
        }
        zm_hub_peer_gone(s, p);
        S_LOCK(s);
        p->state = PEER_FREE;
        S_BROADCAST(s);
        S_UNLOCK(s);
    }
}
