/*
 * Peers: the transports of a session, each in a fixed slot. A peer is added after a finished
 * handshake (we connected or we accepted), gets its declarations pushed and a read task, and
 * is removed in two steps: killed (its link shut, so its reader returns), then reaped by the
 * lease task, an accept that needs its slot, or close, once its reader is joined and nobody has
 * it pinned. A full table makes room by closing the accepted peer that was active least
 * recently, so peers that only hold a slot cannot keep real ones out.
 */
#include <string.h>

#include "session/internal.h"
#include "util/alloc.h"

/* How long a connection and then its handshake may take each: Z_TRANSPORT_CONNECT_TIMEOUT, as z_open
 * documents it. */
#define CONNECT_TIMEOUT_MS 10000u
#if ZM_PEER_EVICT && Z_FEATURE_UNICAST_PEER
/* How long an accept waits for an evicted peer's reader to finish its last callback. */
#define EVICT_WAIT_MS 1000u
#endif

/* The zid as Rust prints it: hex of its little-endian value, without leading zeros. */
static const char *zid_text(const zm_zid_t *zid, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (size_t i = zid->len; i-- > 0;) {
        uint8_t b = zid->id[i];
        if (n > 0 || b >> 4 != 0) {
            out[n++] = hex[b >> 4];
        }
        if (n > 0 || (b & 0x0fu) != 0 || i == 0) {
            out[n++] = hex[b & 0x0fu];
        }
    }
    out[n] = '\0';
    return out;
}

/* Filled in place: a copy of it returned would be a second one on the caller's stack. */
static void local_params(const zm_session_t *s, zm_transport_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->zid = s->zid;
    p->whatami = zm_session_is_peer(s) ? ZM_WAI_PEER : ZM_WAI_CLIENT;
    p->batch_size = ZM_BATCH_UNICAST_SIZE;
    p->lease_ms = ZM_LEASE_MS;
    p->qos = true;
}

#if Z_FEATURE_MULTI_THREAD
static void *reader_main(void *arg)
{
    zm_peer_t *p = arg;
    z_result_t rc;
#if Z_FEATURE_MULTICAST_TRANSPORT
    if (zm_peer_is_group(p)) {
        do {
            rc = zm_mcast_read(p->s, p, true);
        } while (rc == Z_OK && !p->s->closing);
    } else
#endif
    {
        do {
            rc = zm_transport_read_once(&p->t);
        } while (rc == Z_OK && !p->s->closing);
    }
    if (rc == ZM_E_CLOSED) {
        zm_peer_link_ended(p);
    } else {
        /* the reason's text only where it is logged: zm_strerror's table is large for a firmware */
        zm_peer_kill(p, ZM_CLOSE_INVALID, ZM_LOG_LEVEL >= ZM_LOG_WARN ? zm_strerror(rc) : "unreadable");
    }
    return NULL;
}
#endif

void zm_peer_start(zm_session_t *s, zm_peer_t *p)
{
#if Z_FEATURE_MULTI_THREAD
    /* decided under the lock: zp_start_read_task and an accept may both get here for one peer */
    S_LOCK(s);
    bool start = s->readers_on && !p->reader_started;
    p->reader_started = p->reader_started || start;
    S_UNLOCK(s);
    if (start && zm_port_task_start(&p->reader, reader_main, p) != Z_OK) {
        S_LOCK(s);
        p->reader_started = false;
        S_UNLOCK(s);
        zm_peer_kill(p, ZM_CLOSE_GENERIC, "no thread for its reader");
    }
#else
    ZM_UNUSED(s);
    ZM_UNUSED(p);
#endif
}

#if ZM_PUSH_DECLS
/* s->lock held: a free slot, or NULL. */
static zm_peer_t *free_slot(zm_session_t *s)
{
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        if (s->peers[i].state == PEER_FREE && s->peers[i].refs == 0) {
            return &s->peers[i];
        }
    }
    return NULL;
}

#if ZM_PEER_EVICT && Z_FEATURE_UNICAST_PEER
/* s->lock held: the accepted live peer that was active least recently, or NULL. */
static zm_peer_t *eviction_victim(zm_session_t *s)
{
    zm_peer_t *victim = NULL;
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && p->accepted &&
            (victim == NULL || p->last_active_ms < victim->last_active_ms)) {
            victim = p;
        }
    }
    return victim;
}
#endif

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
    zm_peer_reap(s);
    S_LOCK(s);
    p = free_slot(s);
#if ZM_PEER_EVICT && Z_FEATURE_UNICAST_PEER
    zm_peer_t *victim = p == NULL && accepted ? eviction_victim(s) : NULL;
    if (victim != NULL) {
        S_UNLOCK(s);
        zm_peer_kill(victim, ZM_CLOSE_MAX_SESSIONS, "evicted: the peer table is full and it was the least active");
        uint64_t deadline = zm_port_clock_ms() + EVICT_WAIT_MS;
        for (;;) {
            zm_peer_reap(s);
            S_LOCK(s);
            p = free_slot(s);
            if (p != NULL || zm_port_clock_ms() >= deadline) {
                break;
            }
#if Z_FEATURE_MULTI_THREAD
            S_WAIT(s, 10u);
#endif
            S_UNLOCK(s);
        }
    }
#else
    ZM_UNUSED(accepted);
#endif
    return p;
}

static void transport_refuse(zm_transport_t *t, uint8_t reason)
{
    zm_transport_close(t, reason);
    zm_transport_free(t);
}
#endif /* ZM_PUSH_DECLS */


#if !Z_FEATURE_MULTICAST_TRANSPORT
static /* its only caller is below */
#endif
void zm_peer_setup(zm_session_t *s, zm_peer_t *p, bool accepted)
{
#if Z_FEATURE_MULTICAST_TRANSPORT
    p->tx = &p->t;
#endif
#if ZM_DECODE_NETWORK /* else the transport hands out no network message */
    p->t.on_message = zm_session_on_message;
#endif
    p->t.ctx = p;
    p->s = s;
    p->index = (uint8_t)(p - s->peers);
    p->gen++;
#if ZM_REMOTE_DECLS /* else nothing it declares is kept */
    uint32_t seed[3];
    zm_port_random(seed, sizeof(seed));
    zm_idmap_init(&p->remote.keys, seed[0]);
#if ZM_SUB_TRACKING
    zm_idmap_init(&p->remote.subs, seed[1]);
#endif
#if ZM_QBL_TRACKING
    zm_idmap_init(&p->remote.qbls, seed[0] ^ seed[1]);
#endif
#if ZM_LIVELINESS_SUBS
    zm_idmap_init(&p->remote.tokens, seed[2]);
#endif
    p->remote.n = 0;
    p->remote.bytes = 0;
    p->remote.last_key = NULL;
#endif
#if ZM_SUB_TRACKING
    zm_hits_reset_peer(s, p->index);
#endif
    p->reader_started = false;
    p->accepted = accepted;
    p->declared = false;
#if ZM_PEER_ACTIVITY
    atomic_store(&p->active, false);
    p->last_active_ms = zm_port_clock_ms();
#endif
    p->state = PEER_LIVE;
#if ZM_PEER_PINS
    p->refs = 1; /* the caller's, while it pushes the declarations */
#endif
}

#if ZM_PUSH_DECLS
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
            ZM_LOG_W("peer %s refused: the peer table is full (%u peers)", zid_text(&t->remote_zid, zid),
                     (unsigned)ZM_PEERS_MAX);
        }
        transport_refuse(t, ZM_CLOSE_MAX_SESSIONS);
        return ZM_E_NO_SPACE;
    }
    p->t = *t;
    zm_peer_setup(s, p, accepted);
    S_UNLOCK(s);
    ZM_LOG_I("peer %s connected (%s)", zid_text(&p->t.remote_zid, zid), accepted ? "accepted" : "dialled");
    *out = p;
    return Z_OK;
}

#endif

static void peer_welcome(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = zm_decl_push_all(s, p);
    if (rc != Z_OK) {
        zm_peer_send_failed(p, rc, "our declarations could not be sent");
    }
    zm_peer_start(s, p);
    zm_peers_unpin(s, &p, 1);
}

#if ZM_PUSH_DECLS
z_result_t zm_peer_add(zm_session_t *s, zm_transport_t *t, bool accepted)
{
    zm_peer_t *p;
    ZM_TRY(peer_install(s, t, accepted, &p));
    peer_welcome(s, p);
    return Z_OK;
}
#endif

z_result_t zm_peer_connect(zm_session_t *s, const char *endpoint)
{
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT));
    zm_link_t link;
    ZM_TRY(zm_link_open(&link, &ep, CONNECT_TIMEOUT_MS));
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
    z_result_t rc = zm_transport_open(tp, &link, &params, CONNECT_TIMEOUT_MS);
    if (rc != Z_OK) {
        /* the link opened, so something listens there: a user needs to know it did not take us */
        ZM_LOG_W("handshake with %s failed: %s", endpoint, zm_strerror(rc));
        zm_link_close(&link);
        return rc;
    }
#if ZM_PUSH_DECLS
    return zm_peer_add(s, tp, false);
#else
    S_LOCK(s);
    zm_peer_setup(s, p, false);
    S_UNLOCK(s);
    char zid[33];
    ZM_LOG_I("peer %s connected (dialled)", zid_text(&p->t.remote_zid, zid));
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
    ZM_TRY(zm_acceptor_step(&s->acceptor, &s->listener, &params, timeout_ms, &t));
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
        }
        rc = n < ZM_ACCEPT_PENDING_MAX ? accept_one(s, 0, &p) : ZM_E_AGAIN;
    }
    return rc == ZM_E_TIMEOUT || rc == ZM_E_AGAIN ? Z_OK : rc;
}
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
/* The group is gone: its members, who reached us only through it, go with it. */
static void members_kill(zm_session_t *s)
{
    for (size_t i = ZM_GROUP_SLOT + 1; i < ZM_PEER_SLOTS; i++) {
        if (s->peers[i].s != NULL) { /* a slot ever used: only those know their session */
            zm_peer_kill(&s->peers[i], ZM_CLOSE_GENERIC, NULL);
        }
    }
}
#endif

void(zm_peer_kill)(zm_peer_t *p, uint8_t reason, const char *why)
{
    zm_session_t *s = p->s;
    S_LOCK(s);
    bool live = p->state == PEER_LIVE;
    if (live) {
        p->state = PEER_DEAD;
#if Z_FEATURE_MULTICAST_TRANSPORT
        if (zm_peer_is_member(p)) {
            zm_mcast_forget(s, p);
        }
#endif
    }
    S_UNLOCK(s);
    if (!live) {
        return;
    }
    char zid[33];
    if (zm_peer_is_group(p)) {
        if (why != NULL && !s->closing) {
            ZM_LOG_W("multicast group dropped: %s", why);
        }
    } else if (why == NULL) {
        ZM_LOG_I("peer %s left", zid_text(&p->t.remote_zid, zid));
    } else if (!s->closing) {
        ZM_LOG_W("peer %s dropped (close: %s): %s", zid_text(&p->t.remote_zid, zid), zm_close_reason_name(reason), why);
    }
#if Z_FEATURE_MULTICAST_TRANSPORT
    if (zm_peer_is_member(p)) {
        return; /* no link of its own: its datagrams are ignored from now on */
    }
#endif
    zm_transport_close(&p->t, reason); /* shuts the link so the reader returns */
#if Z_FEATURE_MULTICAST_TRANSPORT
    if (zm_peer_is_group(p)) {
        members_kill(s);
    }
#endif
}

void(zm_peer_send_failed)(zm_peer_t *p, z_result_t rc, const char *why)
{
    if (rc == ZM_E_TOO_LARGE) {
        ZM_LOG_W("a message too large for this build was not sent (ZM_FRAG_MAX_SIZE, Z_FEATURE_FRAGMENTATION)");
        return; /* nothing went out: the link is intact */
    }
#if Z_FEATURE_MULTICAST_TRANSPORT
    if (zm_peer_is_member(p)) {
        p = &p->s->peers[ZM_GROUP_SLOT]; /* what goes to a member goes to the group: it failed */
    }
#endif
    zm_peer_kill(p, ZM_CLOSE_GENERIC, rc == ZM_E_CLOSED ? NULL : why);
}

void zm_peer_send(zm_peer_t *p, const zm_network_msg_t *m, uint8_t prio, bool flush)
{
    z_result_t rc = zm_transport_send(zm_peer_tx(p), m, true, prio, flush);
    if (rc != Z_OK) {
        zm_peer_send_failed(p, rc, "it does not take what we send");
    }
}

void zm_peer_reap(zm_session_t *s)
{
    for (size_t i = 0; i < ZM_PEER_SLOTS; i++) {
        zm_peer_t *p = &s->peers[i];
        S_LOCK(s);
        bool reap = p->state == PEER_DEAD && p->refs == 0;
        if (reap) {
            p->state = PEER_REAPING; /* ours alone: another reaper passes it by */
        }
        S_UNLOCK(s);
        if (!reap) {
            continue;
        }
#if Z_FEATURE_MULTI_THREAD
        if (p->reader_started) {
            zm_port_task_join(&p->reader);
            p->reader_started = false;
        }
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT
        if (zm_peer_is_member(p)) {
            zm_mcast_member_free(&p->t); /* a receive state only, with no link nor lock */
        } else
#endif
        {
            zm_transport_free(&p->t);
        }
#if ZM_REMOTE_DECLS
        zm_remote_free(s, p);
#endif
#if Z_FEATURE_QUERY
        zm_gets_peer_gone(s, p->index);
#endif
#if Z_FEATURE_MATCHING
        zm_matching_update(s); /* its subscribers no longer count */
#endif
        S_LOCK(s);
        p->state = PEER_FREE;
        S_BROADCAST(s);
        S_UNLOCK(s);
    }
}

#if ZM_PEER_ACTIVITY
void zm_peers_note_activity(zm_session_t *s, uint64_t now_ms)
{
    S_LOCK(s);
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && atomic_exchange_explicit(&p->active, false, memory_order_relaxed)) {
            p->last_active_ms = now_ms;
        }
    }
    S_UNLOCK(s);
}
#endif

/* Only matching and liveliness subscribers pick the peers they pin; elsewhere fn is NULL. */
#define PIN_FILTERS (Z_FEATURE_MATCHING || ZM_LIVELINESS_SUBS)

size_t zm_peers_pin(zm_session_t *s, zm_peer_t **out, bool (*fn)(zm_peer_t *p, const void *arg), const void *arg)
{
    size_t n = 0;
#if !PIN_FILTERS
    ZM_ASSERT(fn == NULL);
    ZM_UNUSED(fn);
    ZM_UNUSED(arg);
#endif
    S_LOCK(s);
    for (size_t i = 0; i < ZM_PEERS_PIN; i++) {
        zm_peer_t *p = &s->peers[i];
#if PIN_FILTERS
        if (p->state == PEER_LIVE && (fn == NULL || fn(p, arg))) {
#else
        if (p->state == PEER_LIVE) {
#endif
#if ZM_PEER_PINS
            p->refs++;
#endif
            out[n++] = p;
        }
    }
    S_UNLOCK(s);
    return n;
}

#if ZM_PEER_PINS
void zm_peers_unpin(zm_session_t *s, zm_peer_t **peers, size_t n)
{
    S_LOCK(s);
    for (size_t i = 0; i < n && i < ZM_PEER_SLOTS; i++) { /* the bound: a client's is one peer */
        peers[i]->refs--;
    }
    S_BROADCAST(s);
    S_UNLOCK(s);
}
#endif
