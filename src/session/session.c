/*
 * A session's life: open (connect as a client, or listen and connect as a peer), the lease
 * task that keeps links alive, expires silent peers and reconnects a client, the worker beside
 * it that reaps dead peers and runs the hub's tick, the accept task of a listening peer,
 * single-thread driving, and close, which ends whatever a thread inside the session cannot.
 * Tasks are always joined before anything they use is freed (session.h).
 */
#include <stddef.h>
#include <string.h>

#include "session/hub.h"
#include "transport/usrpwd.h"
#include "util/alloc.h"

#define LEASE_TICK_MS 250u
#define ACCEPT_POLL_MS 200u
#define RECONNECT_PERIOD_MS 1000u


#if ZM_NO_HEAP
/* A no-heap build keeps its sessions in a static table; in_use is only touched by open and close. */
static zm_session_t session_table[ZM_SESSIONS_MAX];
static atomic_bool session_in_use[ZM_SESSIONS_MAX];

static zm_session_t *session_new(void)
{
    for (size_t i = 0; i < ZM_SESSIONS_MAX; i++) {
        bool expected = false;
        if (atomic_compare_exchange_strong(&session_in_use[i], &expected, true)) {
            memset(&session_table[i], 0, sizeof(session_table[i]));
            return &session_table[i];
        }
    }
    return NULL;
}

static void session_release(zm_session_t *s) { atomic_store(&session_in_use[s - session_table], false); }
#else
static zm_session_t *session_new(void) { return zm_calloc(sizeof(zm_session_t)); }

static void session_release(zm_session_t *s) { zm_free(s); }
#endif

#if ZM_SLOTS_SIZED && ZM_NO_HEAP
/* The slots of each session of the table, the key buffers of those it sends on, its acceptor and
 * responder to SCOUTs. */
static zm_peer_t slot_table[ZM_SESSIONS_MAX][ZM_PEER_SLOTS];
#if ZM_REMOTE_DECLS
static char key_table[ZM_SESSIONS_MAX][ZM_PEERS_PIN][ZM_KEYEXPR_MAX];
#endif
#if Z_FEATURE_UNICAST_PEER
static zm_acceptor_t acceptor_table[ZM_SESSIONS_MAX];
#endif
#if ZM_SCOUT_RESPONDER
static zm_scout_responder_t responder_table[ZM_SESSIONS_MAX];
static char announced_table[ZM_SESSIONS_MAX][ZM_LOCATOR_MAX + 1];
#endif
#endif

#if ZM_KEEPS_ENDPOINTS
/* Bytes the n strings of list take with their NULs; with into, they are copied there as well,
 * and list points at the copies. */
static size_t strings_copy(const char **list, size_t n, char *into)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(list[i]) + 1;
        if (into != NULL) {
            memcpy(into + total, list[i], len);
            list[i] = into + total;
        }
        total += len;
    }
    return total;
}

/* Listen endpoints a session may have: only peers listen, and a build without peers opens none. */
#if Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT
#define listen_count(cfg) ((cfg)->n_listen)
#else
#define listen_count(cfg) ((void)(cfg), (size_t)0)
#endif

#if ZM_AUTH_USRPWD
/* The authentication strings, where the session keeps them (NULL ones take no room). */
#define AUTH_STRINGS 3u
static const char **auth_string(zm_session_t *s, unsigned i)
{
    return i == 0 ? &s->cfg.user : i == 1 ? &s->cfg.password : &s->cfg.usrpwd_dict;
}

static size_t auth_copy(zm_session_t *s, char *into)
{
    size_t total = 0;
    for (unsigned i = 0; i < AUTH_STRINGS; i++) {
        const char **str = auth_string(s, i);
        total += strings_copy(str, *str != NULL ? 1u : 0u, into != NULL ? into + total : NULL);
    }
    return total;
}
#else
#define auth_copy(s, into) ((void)(s), (void)(into), (size_t)0)
#endif

/* Copies the endpoint strings, the scouting locator and the authentication strings, so the
 * caller's configuration can go. */
static z_result_t config_copy(zm_session_t *s, const zm_session_config_t *cfg)
{
    s->cfg = *cfg;
    size_t connect = strings_copy(s->cfg.connect, cfg->n_connect, NULL);
    size_t listen = listen_count(cfg) > 0 ? strings_copy(s->cfg.listen, listen_count(cfg), NULL) : 0u;
    size_t total = connect + listen;
    size_t n_scout = 0;
    if (Z_FEATURE_SCOUTING) {
        if (s->cfg.scout_locator == NULL) {
            s->cfg.scouting = false;
        }
        n_scout = s->cfg.scouting ? 1u : 0u;
        total += strings_copy(&s->cfg.scout_locator, n_scout, NULL);
    }
    size_t scout = total;
    total += auth_copy(s, NULL);
    if (total == 0) {
        return Z_OK;
    }
    s->strings = zm_alloc(total);
    if (s->strings == NULL) {
        return ZM_E_NOMEM;
    }
    (void)strings_copy(s->cfg.connect, cfg->n_connect, s->strings);
    if (listen_count(cfg) > 0) {
        (void)strings_copy(s->cfg.listen, listen_count(cfg), s->strings + connect);
    }
    if (Z_FEATURE_SCOUTING) {
        (void)strings_copy(&s->cfg.scout_locator, n_scout, s->strings + connect + listen);
    }
    (void)auth_copy(s, s->strings + scout);
    return Z_OK;
}
#define strings_free(s) zm_free((s)->strings)
#else
/* The endpoint strings stay the caller's: they are read during open only (ZM_KEEPS_ENDPOINTS). */
static z_result_t config_copy(zm_session_t *s, const zm_session_config_t *cfg)
{
    s->cfg = *cfg;
    if (Z_FEATURE_SCOUTING && s->cfg.scout_locator == NULL) {
        s->cfg.scouting = false;
    }
    return Z_OK;
}
#define strings_free(s) ((void)(s))
#endif

/* Whether a slot holds a peer, live or not reaped yet (a client reconnects once its slot is free). */
static bool any_peer(zm_session_t *s)
{
    bool used = false;
    S_LOCK(s);
    for (size_t i = 0; i < zm_slots_unicast(s) && !used; i++) {
        used = s->peers[i].state != PEER_FREE;
    }
    S_UNLOCK(s);
    return used;
}

#if Z_FEATURE_MULTICAST_TRANSPORT
/* Whether endpoint names a multicast group (a malformed one is not: connecting says why). */
static bool is_group(const char *endpoint)
{
    zm_endpoint_t ep;
    return zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT) == Z_OK &&
           zm_endpoint_is_multicast(&ep);
}

/* Joins the groups among the endpoints; the rest is for connect_all and listen_first. */
static z_result_t groups_join(zm_session_t *s)
{
    for (size_t i = 0; i < s->cfg.n_connect + s->cfg.n_listen; i++) {
        const char *e = i < s->cfg.n_connect ? s->cfg.connect[i] : s->cfg.listen[i - s->cfg.n_connect];
        if (is_group(e)) {
            ZM_TRY(zm_mcast_join(s, e));
        }
    }
    return Z_OK;
}
#else
#define is_group(endpoint) ((void)(endpoint), false)
#endif

#if ZM_SLOTS_SIZED
/*
 * The slots s can use: a client its router's; a peer on a multicast group all of them (the
 * group's follows the unicast ones); a peer that listens ZM_PEERS_MAX; one that only dials, one
 * for each endpoint it dials (or for the node it scouts for), as a peer dials only while it opens.
 * *listens: whether it listens (other than on a group), and needs an acceptor.
 */
static size_t slots_wanted(const zm_session_t *s, bool *listens)
{
    *listens = false;
    if (!zm_session_is_peer(s)) {
        return 1;
    }
    bool group = s->cfg.group;
    for (size_t i = 0; i < s->cfg.n_listen; i++) {
        group = group || is_group(s->cfg.listen[i]);
        *listens = *listens || !is_group(s->cfg.listen[i]);
    }
    for (size_t i = 0; i < s->cfg.n_connect; i++) {
        group = group || is_group(s->cfg.connect[i]);
    }
    if (Z_FEATURE_MULTICAST_TRANSPORT && group) {
        return ZM_PEER_SLOTS;
    }
    size_t n = *listens ? ZM_PEERS_MAX : s->cfg.n_connect;
    return n == 0 ? 1u : n < ZM_PEERS_MAX ? n : ZM_PEERS_MAX;
}

/* Rounds a part of the block of slots_alloc up, so that the next one is aligned for any object. */
#define PART(n) (((size_t)(n) + _Alignof(max_align_t) - 1u) & ~(size_t)(_Alignof(max_align_t) - 1u))

/*
 * What s holds by its mode and endpoints, zeroed, in one block: the slots it can use, the key
 * buffers of those it sends on, and a listener's acceptor, with its responder to SCOUTs when it
 * is to answer them.
 */
static z_result_t slots_alloc(zm_session_t *s)
{
    bool listens;
    size_t n = slots_wanted(s, &listens);
    ZM_IF_RESPONDER(bool responds = listens && s->cfg.scouting;)
#if ZM_NO_HEAP
    size_t k = (size_t)(s - session_table);
    s->peers = slot_table[k];
    memset(s->peers, 0, n * sizeof(zm_peer_t));
#if ZM_REMOTE_DECLS
    s->key_bufs = key_table[k];
#endif
    ZM_IF_PEER(s->acceptor = listens ? &acceptor_table[k] : NULL;)
    ZM_IF_RESPONDER(
        s->responder = responds ? &responder_table[k] : NULL;
        s->announced = responds ? announced_table[k] : NULL;
    )
#else
    size_t peers = PART(n * sizeof(zm_peer_t));
    size_t acceptor = Z_FEATURE_UNICAST_PEER && listens ? PART(sizeof(zm_acceptor_t)) : 0u;
    size_t responder = 0;
    ZM_IF_RESPONDER(responder = responds ? PART(sizeof(zm_scout_responder_t)) + ZM_LOCATOR_MAX + 1u : 0u;)
    size_t keys = ZM_REMOTE_DECLS ? (n < ZM_PEERS_PIN ? n : ZM_PEERS_PIN) * (size_t)ZM_KEYEXPR_MAX : 0u;
    uint8_t *mem = zm_calloc(peers + acceptor + responder + keys);
    if (mem == NULL) {
        return ZM_E_NOMEM;
    }
    s->peers = (zm_peer_t *)(void *)mem;
    ZM_IF_PEER(s->acceptor = acceptor > 0 ? (zm_acceptor_t *)(void *)(mem + peers) : NULL;)
    ZM_IF_RESPONDER(
        if (responds) {
            s->responder = (zm_scout_responder_t *)(void *)(mem + peers + acceptor);
            s->announced = (char *)(mem + peers + acceptor + PART(sizeof(zm_scout_responder_t)));
        }
    )
#if ZM_REMOTE_DECLS
    s->key_bufs = (char (*)[ZM_KEYEXPR_MAX])(void *)(mem + peers + acceptor + responder);
#endif
#endif
    ZM_UNUSED(listens);
    s->slots = (uint8_t)n;
    return Z_OK;
}
#define slots_free(s) (ZM_NO_HEAP ? (void)(s) : zm_free((s)->peers))
#else
#define slots_alloc(s) ((void)(s), Z_OK)
#define slots_free(s) ((void)(s))
#endif

/* Whether opening an endpoint that failed with rc may succeed later: nobody listening yet, a
 * network or a host down, an address or a line held. A malformed or unsupported one never does. */
static bool retryable(z_result_t rc)
{
    return rc == ZM_E_REFUSED || rc == ZM_E_TIMEOUT || rc == ZM_E_CLOSED || rc == ZM_E_UNREACHABLE ||
           rc == ZM_E_NO_HOST || rc == ZM_E_ADDR_IN_USE || rc == ZM_E_BUSY || rc == Z_ENETWORK || rc == Z_EIO;
}

/*
 * Between two rounds of a retry that started at start, with timeout_ms (0: no retry, -1: no
 * end): pauses *pause ms (less if the timeout is nearer), then doubles it up to a second. False,
 * without pausing, once the timeout is spent.
 */
static bool retry_pause(uint64_t start, int32_t timeout_ms, uint32_t *pause)
{
    uint32_t wait = *pause;
    if (timeout_ms == 0) {
        return false;
    }
    if (timeout_ms > 0) {
        uint64_t elapsed = zm_port_clock_ms() - start;
        if (elapsed >= (uint32_t)timeout_ms) {
            return false;
        }
        wait = (uint32_t)timeout_ms - (uint32_t)elapsed < wait ? (uint32_t)timeout_ms - (uint32_t)elapsed : wait;
    }
    zm_port_sleep_ms(wait);
    *pause = *pause < 500u ? *pause * 2u : 1000u;
    return true;
}

/* Open's retries, as configured where the build reads them (the unstable API), else none. */
#define CONNECT_TIMEOUT(s) (ZM_UNSTABLE_API ? (s)->cfg.connect_timeout_ms : 0)
#define LISTEN_TIMEOUT(s) (ZM_UNSTABLE_API ? (s)->cfg.listen_timeout_ms : 0)

/* Whether a peer that reached none of its connect endpoints is of use: it listens, or is on a group. */
static bool alone_useful(const zm_session_t *s)
{
    bool useful = false;
    ZM_IF_PEER(useful = s->listening;)
    ZM_IF_MCAST(useful = useful || s->mcast.open;)
    ZM_UNUSED(s);
    return useful;
}

/*
 * Connects to the connect endpoints: a client to the first that answers, a peer to every one.
 * Those that fail for a while are tried again, in rounds, for timeout_ms (0: one round, -1: no
 * end) while the session lacks what it needs: a client its router; a peer one link (listening or
 * a group counts), or all its endpoints with exit_on_failure. One that fails for good is tried no
 * more, and with a peer's exit_on_failure ends the connecting with its error.
 */
static z_result_t connect_all(zm_session_t *s, int32_t timeout_ms, bool exit_on_failure)
{
    bool strict = zm_session_is_peer(s) && exit_on_failure;
    bool retries = timeout_ms != 0;
    uint32_t settled = 0; /* with retries, bit i: connect[i] reached, or failed for good */
    size_t left;          /* endpoints of the round that failed for a while */
    z_result_t last = Z_ENETWORK;
    bool any = false;
    uint64_t start = retries ? zm_port_clock_ms() : 0u;
    uint32_t pause = 10;
    do {
        left = 0;
        for (size_t i = 0; i < s->cfg.n_connect; i++) {
            if (is_group(s->cfg.connect[i]) || (retries && (settled & (1u << i)) != 0)) {
                continue; /* groups are groups_join's */
            }
            z_result_t rc = zm_peer_connect(s, s->cfg.connect[i], ZM_CONNECT_TIMEOUT_MS);
            if (retries && (rc == Z_OK || !retryable(rc))) {
                settled |= 1u << i;
            }
            if (rc == Z_OK) {
                any = true;
                if (!zm_session_is_peer(s)) {
                    return Z_OK;
                }
                continue;
            }
            last = rc;
            if (!retryable(rc) && strict) {
                return rc;
            }
            left += retryable(rc) ? 1u : 0u;
        }
    } while (left > 0 && (strict || !(any || alone_useful(s))) && retry_pause(start, timeout_ms, &pause));
    if (strict) {
        return left == 0 ? Z_OK : last;
    }
    return any || alone_useful(s) ? Z_OK : last;
}

#if Z_FEATURE_UNICAST_PEER
/* Listens on the first listen endpoint that is not a multicast group, if any. */
static z_result_t listen_first(zm_session_t *s)
{
    zm_endpoint_t ep;
    size_t i = 0;
    while (i < s->cfg.n_listen && is_group(s->cfg.listen[i])) {
        i++;
    }
    if (i == s->cfg.n_listen) {
        return Z_OK;
    }
    const char *l = s->cfg.listen[i];
    ZM_TRY(zm_endpoint_parse(&ep, l, strlen(l), ZM_ENDPOINT_LISTEN));
    ep.tls = s->tls;
    uint64_t start = LISTEN_TIMEOUT(s) != 0 ? zm_port_clock_ms() : 0u;
    uint32_t pause = 10;
    z_result_t rc;
    while ((rc = zm_link_listen(&s->listener, &ep)) != Z_OK && retryable(rc) &&
           retry_pause(start, LISTEN_TIMEOUT(s), &pause)) {
    }
    ZM_TRY(rc);
    zm_acceptor_init(s->acceptor, ZM_ACCEPT_TIMEOUT_MS);
    s->listening = true;
    return Z_OK;
}
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
/* Connect endpoints that are not multicast groups. */
static size_t connect_count(const zm_session_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->cfg.n_connect; i++) {
        n += is_group(s->cfg.connect[i]) ? 0u : 1u;
    }
    return n;
}
#else
#define connect_count(s) ((s)->cfg.n_connect)
#endif

/*
 * Keep-alives, the expiry of silent peers and a client's reconnection; then, unless on the lease
 * task (task), the work of the worker: the reap and the hub's tick, which run callbacks.
 */
static z_result_t lease_step(zm_session_t *s, bool task)
{
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    for (size_t i = 0; i < pinned.n && i < ZM_PEERS_PIN; i++) { /* the bound: a client's is one peer */
        zm_peer_t *p = pinned.p[i];
        if (zm_peer_is_group(p)) {
            zm_mcast_lease(s, p);
            continue;
        }
        z_result_t rc = zm_transport_lease_tick(&p->t);
        if (rc != Z_OK) {
            if (rc == ZM_E_TIMEOUT) {
                zm_peer_kill(p, ZM_CLOSE_EXPIRED, "silent, or not reading, for longer than its lease");
            } else {
                zm_peer_send_failed(p, rc, "its link failed");
            }
        }
    }
    zm_peers_unpin(&pinned);
    uint64_t now = zm_port_clock_ms(); /* after the ticks, which may wait for a link */
    if (ZM_PEER_ACTIVITY) { /* the eviction order: a client evicts nobody */
        zm_peers_note_activity(s, now);
    }
    if (!task) {
        zm_peer_reap(s);
        zm_hub_tick(s, now);
    }
    /* a client that lost its router tries again, and redeclares everything on success */
    if (Z_FEATURE_AUTO_RECONNECT && !zm_session_is_peer(s) && s->cfg.auto_reconnect && !s->closing && !any_peer(s) &&
        now >= s->reconnect_at) {
        s->reconnect_at = now + RECONNECT_PERIOD_MS;
        if (Z_FEATURE_SCOUTING && s->cfg.n_connect == 0) {
            z_result_t rc = zm_session_scout_connect(s); /* it was found by scouting: scout again */
            ZM_UNUSED(rc);
        } else
        {
            (void)connect_all(s, 0, false);
        }
    }
    return Z_OK;
}

#if Z_FEATURE_MULTI_THREAD
/* The lease task: never a callback nor a join, so that nothing an application does holds it. */
static void *lease_main(void *arg)
{
    zm_session_t *s = arg;
    S_LOCK(s);
    while (s->lease_running && !s->closing) {
        S_UNLOCK(s);
        (void)lease_step(s, true);
        S_LOCK(s);
        if (s->lease_running && !s->closing) {
            (void)zm_port_condvar_wait_until(&s->lease_cond, &s->lock, zm_port_clock_ms() + LEASE_TICK_MS);
        }
    }
    S_UNLOCK(s);
    return NULL;
}

/*
 * The worker: reaps the dead peers whose readers are done (joining them waits for nothing) and
 * runs the hub's tick (the gets whose time is up, the tokens of peers gone): the callbacks these
 * run are on this thread, which a callback that blocks holds alone.
 */
static void *worker_main(void *arg)
{
    zm_session_t *s = arg;
    S_LOCK(s);
    s->worker_thread = zm_port_thread_self();
    while (s->lease_running && !s->closing) {
        S_UNLOCK(s);
        zm_peer_reap(s);
        zm_hub_tick(s, zm_port_clock_ms());
        S_LOCK(s);
        if (s->lease_running && !s->closing) {
            (void)zm_port_condvar_wait_until(&s->work_cond, &s->lock, zm_port_clock_ms() + LEASE_TICK_MS);
        }
    }
    S_UNLOCK(s);
    return NULL;
}

#if Z_FEATURE_UNICAST_PEER
#if ZM_SCOUT_RESPONDER
/*
 * One round of an accept task that also answers SCOUTs: one wait over the listener, the pending
 * handshakes and the scouting socket, then each served without waiting.
 */
static z_result_t listen_round(zm_session_t *s, uint32_t timeout_ms)
{
    zm_link_t *links[ZM_ACCEPT_PENDING_MAX + 2];
    uint8_t ready[ZM_ACCEPT_PENDING_MAX + 2];
    uint64_t handshake_deadline = 0;
    size_t n = 0;
    links[n++] = &s->listener;
    n += zm_acceptor_links(s->acceptor, links + n, ZM_ACCEPT_PENDING_MAX, &handshake_deadline);
    links[n++] = &s->responder->link;
    uint64_t now = zm_port_clock_ms();
    if (handshake_deadline != 0 && handshake_deadline < now + timeout_ms) {
        timeout_ms = handshake_deadline > now ? (uint32_t)(handshake_deadline - now) : 0u;
    }
    z_result_t waited = zm_link_wait_any(links, n, timeout_ms, ready);
    if (waited == Z_OK && ready[n - 1]) {
        zm_session_responder_serve(s);
    }
    return zm_peer_accept(s, 0);
}
#endif

static void *accept_main(void *arg)
{
    zm_session_t *s = arg;
    while (!s->closing) {
#if ZM_SCOUT_RESPONDER
        z_result_t rc = s->responding ? listen_round(s, ACCEPT_POLL_MS) : zm_peer_accept(s, ACCEPT_POLL_MS);
#else
        z_result_t rc = zm_peer_accept(s, ACCEPT_POLL_MS);
#endif
        if (rc == ZM_E_CLOSED) {
            break;
        }
        if (rc != Z_OK) {
            zm_port_sleep_ms(ACCEPT_POLL_MS); /* out of descriptors or memory: the listener stays ready */
        }
    }
    return NULL;
}
#endif

z_result_t zm_session_start_read_task(zm_session_t *s)
{
    S_LOCK(s);
    bool was = s->readers_on;
    s->readers_on = true;
    S_UNLOCK(s);
    if (was) {
        return Z_OK;
    }
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    for (size_t i = 0; i < pinned.n; i++) {
        zm_peer_start(s, pinned.p[i]);
    }
    zm_peers_unpin(&pinned);
#if Z_FEATURE_UNICAST_PEER
    if (s->listening && !s->accept_running) {
        s->accept_running = zm_port_task_start(&s->accept_task, accept_main, s) == Z_OK;
        if (!s->accept_running) {
            return ZM_E_UNSUPPORTED;
        }
    }
#endif
    return Z_OK;
}

z_result_t zm_session_stop_read_task(zm_session_t *s)
{
    /* Readers block in their link: they stop when their peer goes, or at close. New peers will
     * not get one; the accept task stays, since accepting is part of being a listening peer. */
    S_LOCK(s);
    s->readers_on = false;
    S_UNLOCK(s);
    return Z_OK;
}

/* s->lock held: the lease task and the worker are to stop (and stop waiting). */
static void tasks_wake(zm_session_t *s)
{
    s->lease_running = false;
    zm_port_condvar_broadcast(&s->lease_cond);
    zm_port_condvar_broadcast(&s->work_cond);
}

/* Stops the lease task and the worker and joins them, unless called from the worker (one of its
 * callbacks): it then ends its loop, and the next stop or close joins it. */
static void lease_task_stop(zm_session_t *s)
{
    S_LOCK(s);
    tasks_wake(s);
    bool join = s->tasks_joinable && s->worker_thread != zm_port_thread_self();
    s->tasks_joinable = s->tasks_joinable && !join;
    S_UNLOCK(s);
    if (join) {
        zm_port_task_join(&s->lease_task);
        zm_port_task_join(&s->worker);
    }
}

z_result_t zm_session_start_lease_task(zm_session_t *s)
{
    S_LOCK(s);
    bool start = !s->lease_running;
    S_UNLOCK(s);
    if (!start) {
        return Z_OK;
    }
    lease_task_stop(s); /* the tasks a stop from the worker left unjoined */
    S_LOCK(s);
    bool left = s->tasks_joinable; /* still there: this is that worker */
    s->lease_running = !left;
    s->worker_thread = 0; /* until the new worker tells its own */
    S_UNLOCK(s);
    if (left || zm_port_task_start(&s->lease_task, lease_main, s) != Z_OK) {
        S_LOCK(s);
        s->lease_running = false;
        S_UNLOCK(s);
        return ZM_E_UNSUPPORTED;
    }
    if (zm_port_task_start(&s->worker, worker_main, s) != Z_OK) {
        S_LOCK(s);
        tasks_wake(s);
        S_UNLOCK(s);
        zm_port_task_join(&s->lease_task);
        return ZM_E_UNSUPPORTED;
    }
    S_LOCK(s);
    s->tasks_joinable = true;
    S_UNLOCK(s);
    return Z_OK;
}

z_result_t zm_session_stop_lease_task(zm_session_t *s)
{
    lease_task_stop(s);
    return Z_OK;
}
#else
#define tasks_wake(s) ((void)(s))
#endif

/* Batches read from one peer per zm_session_read, so that a busy peer cannot hold the others. */
#define READ_BURST_MAX 8u

/* Links one zm_session_read waits on: the listener, pending handshakes and scouting socket of a
 * peer, then peers (and a multicast group). */
#define READ_LINKS_MAX (Z_FEATURE_UNICAST_PEER * (1 + ZM_ACCEPT_PENDING_MAX + ZM_SCOUT_RESPONDER) + ZM_PEERS_PIN)

/* One read of peer p, without waiting: a batch of a unicast peer, a datagram of the group. */
static z_result_t read_ready(zm_session_t *s, zm_peer_t *p)
{
    if (zm_peer_is_group(p)) {
        return zm_mcast_read(s, p, false);
    }
    return zm_transport_try_read_once(&p->t);
}

#if !Z_FEATURE_UNICAST_PEER && !Z_FEATURE_MULTICAST_TRANSPORT
/* What one read of a peer that was ready gave: a burst of its batches, and the peer dropped if
 * its link ended or what it sent could not be read. */
static void read_burst(zm_session_t *s, zm_peer_t *p)
{
    z_result_t rc = ZM_E_AGAIN;
    for (unsigned k = 0; k < READ_BURST_MAX; k++) {
        rc = read_ready(s, p);
        if (rc != Z_OK) {
            break;
        }
    }
    if (rc == ZM_E_CLOSED) {
        zm_peer_link_ended(p);
    } else if (rc != Z_OK && rc != ZM_E_AGAIN) {
        zm_peer_kill(p, ZM_CLOSE_INVALID, "what it sent could not be read");
    }
}

/*
 * Single-thread driving of a client: it waits on its router's link alone, in that link's own
 * wait (a link that cannot wait, or has an error pending, is ready: the read meets it), unless a
 * read task serves it; without a router it only sleeps out the time.
 */
static z_result_t read_round(zm_session_t *s, uint32_t timeout_ms)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    zm_link_t *l = pinned.n > 0 && !zm_peer_reading(pinned.p[0]) ? &pinned.p[0]->t.link : NULL;
    if (l == NULL || !zm_link_is_open(l)) {
        zm_port_sleep_ms(timeout_ms);
    } else if (zm_link_wait_readable(l, timeout_ms) != ZM_E_TIMEOUT) {
        read_burst(s, pinned.p[0]);
    }
    zm_peers_unpin(&pinned);
    zm_hub_tick(s, zm_port_clock_ms()); /* the gets whose time is up end without waiting for a lease step */
    return Z_OK;
}
#else
/*
 * Single-thread driving: one wait over the listener, the pending handshakes and every peer that
 * no read task serves, then whatever is ready is read without blocking, so that a peer sending
 * half a batch holds nobody.
 */
static z_result_t read_round(zm_session_t *s, uint32_t timeout_ms)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    size_t n = pinned.n;
    zm_link_t *links[READ_LINKS_MAX];
    uint8_t ready[READ_LINKS_MAX];
    size_t nl = 0;
#if Z_FEATURE_UNICAST_PEER
    uint64_t handshake_deadline = 0;
    if (s->listening) {
        links[nl++] = &s->listener;
        nl += zm_acceptor_links(s->acceptor, links + nl, ZM_ACCEPT_PENDING_MAX, &handshake_deadline);
    }
    ZM_IF_RESPONDER(
        size_t scout_at = nl;
        if (s->responding) {
            links[nl++] = &s->responder->link;
        }
    )
    uint64_t now = zm_port_clock_ms();
    if (handshake_deadline != 0 && handshake_deadline < now + timeout_ms) {
        timeout_ms = handshake_deadline > now ? (uint32_t)(handshake_deadline - now) : 0u;
    }
#endif
    size_t first_peer = nl;
    for (size_t i = 0; i < n; i++) {
        links[nl++] = zm_peer_reading(pinned.p[i]) ? NULL : &pinned.p[i]->t.link; /* a read task owns it */
    }
    z_result_t waited = zm_link_wait_any(links, nl, timeout_ms, ready);
    ZM_IF_RESPONDER(
        if (s->responding && waited == Z_OK && ready[scout_at]) {
            zm_session_responder_serve(s);
        }
    )
#if Z_FEATURE_UNICAST_PEER
    if (s->listening && zm_peer_accept(s, 0) == ZM_E_CLOSED) {
        zm_peers_unpin(&pinned);
        return ZM_E_CLOSED;
    }
#endif
    for (size_t i = 0; i < n && waited == Z_OK; i++) {
        z_result_t rc = ZM_E_AGAIN;
        for (unsigned k = 0; k < READ_BURST_MAX && ready[first_peer + i]; k++) {
            rc = read_ready(s, pinned.p[i]);
            if (rc != Z_OK) {
                break;
            }
        }
        if (rc == ZM_E_CLOSED) {
            zm_peer_link_ended(pinned.p[i]);
        } else if (rc != Z_OK && rc != ZM_E_AGAIN) {
            zm_peer_kill(pinned.p[i], ZM_CLOSE_INVALID, "what it sent could not be read");
        }
    }
    zm_peers_unpin(&pinned);
    zm_hub_tick(s, zm_port_clock_ms()); /* the gets whose time is up end without waiting for a lease step */
    return Z_OK;
}
#endif

/*
 * The application's thread drives the session: the callbacks it runs meanwhile are inside the
 * session (a close from one of them leaves the rest to a close from outside). Not inlined: the
 * frame is on the stack only while the caller's round runs.
 */
static void drive_enter(zm_session_t *s, zm_cb_frame_t *frame)
{
    frame->thread = zm_port_thread_self();
    S_LOCK(s);
    zm_callback_enter(s, frame);
    S_UNLOCK(s);
}

static void drive_leave(zm_session_t *s, zm_cb_frame_t *frame)
{
    S_LOCK(s);
    zm_callback_leave(s, frame);
    S_UNLOCK(s);
}

z_result_t zm_session_read(zm_session_t *s, uint32_t timeout_ms)
{
    if (!ZM_APP_CALLBACKS) {
        return read_round(s, timeout_ms);
    }
    zm_cb_frame_t frame;
    drive_enter(s, &frame);
    z_result_t rc = read_round(s, timeout_ms);
    drive_leave(s, &frame);
    return rc;
}

z_result_t zm_session_send_keep_alive(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (!ZM_APP_CALLBACKS) {
        return lease_step(s, false);
    }
    zm_cb_frame_t frame;
    drive_enter(s, &frame);
    z_result_t rc = lease_step(s, false);
    drive_leave(s, &frame);
    return rc;
}

#if Z_FEATURE_MULTICAST_TRANSPORT
z_result_t zm_session_send_join(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    S_LOCK(s);
    s->mcast.join_now = true;
    S_UNLOCK(s);
    return zm_session_send_keep_alive(s);
}
#endif

#if Z_FEATURE_MULTI_THREAD
/* The session's lock and conditions, or none of them: the caller's failure path then only has
 * the session itself to let go. */
static z_result_t sync_init(zm_session_t *s)
{
    if (zm_port_mutex_init(&s->lock) == Z_OK) {
        if (zm_port_condvar_init(&s->cond) == Z_OK) {
            if (zm_port_condvar_init(&s->lease_cond) == Z_OK) {
                if (zm_port_condvar_init(&s->work_cond) == Z_OK) {
                    return Z_OK;
                }
                zm_port_condvar_destroy(&s->lease_cond);
            }
            zm_port_condvar_destroy(&s->cond);
        }
        zm_port_mutex_destroy(&s->lock);
    }
    return ZM_E_NOMEM;
}
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
/*
 * The end of opening a session on its group: listens for ZM_MCAST_OPEN_WAIT_MS (reading itself
 * when no read task does), so that the members that answer newcomers are known on return.
 */
static void mcast_settle(zm_session_t *s)
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
#endif

#if ZM_AUTH_USRPWD
/* Credentials come as a pair (Rust ignores half of one; a typo should not go unnoticed), with a
 * user of a size the handshake carries; a dictionary must read as Rust reads its file. */
static bool auth_valid(const zm_session_config_t *cfg)
{
    if (cfg->user != NULL || cfg->password != NULL) {
        if (cfg->user == NULL || cfg->password == NULL || cfg->user[0] == '\0' || cfg->password[0] == '\0' ||
            strlen(cfg->user) > ZM_USRPWD_USER_MAX) {
            return false;
        }
    }
    return cfg->usrpwd_dict == NULL || zm_usrpwd_dict_valid(cfg->usrpwd_dict);
}
#else
#define auth_valid(cfg) ((void)(cfg), true)
#endif

z_result_t zm_session_open(zm_session_t **out, const zm_session_config_t *cfg)
{
    *out = NULL;
    /* the API made cfg from the user's configuration, and checked it then */
    ZM_ASSERT((cfg->mode == ZM_MODE_CLIENT || cfg->mode == ZM_MODE_PEER) && cfg->n_connect <= ZM_ENDPOINTS_MAX &&
              cfg->n_listen <= ZM_ENDPOINTS_MAX && (cfg->mode == ZM_MODE_PEER || cfg->n_listen == 0));
    bool no_endpoint = cfg->n_connect == 0 && cfg->n_listen == 0; /* then it scouts for one */
    ZM_ASSERT(!no_endpoint || (Z_FEATURE_SCOUTING && cfg->scouting && cfg->scout_locator != NULL));
    if (!Z_FEATURE_UNICAST_PEER && Z_FEATURE_MULTICAST_TRANSPORT) {
        /* a build without unicast peers: no listener, no peers of its own but a group's members */
        for (size_t i = 0; i < cfg->n_listen; i++) {
            if (!is_group(cfg->listen[i])) {
                return ZM_E_UNSUPPORTED;
            }
        }
    } else if (!Z_FEATURE_UNICAST_PEER && cfg->mode == ZM_MODE_PEER) {
        return ZM_E_UNSUPPORTED; /* a client-only build: no listener, no peers of its own */
    }
    if (!auth_valid(cfg)) {
        return Z_EINVAL;
    }
    zm_session_t *s = session_new();
    if (s == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t rc = config_copy(s, cfg);
    ZM_IF_THREADS(if (rc == Z_OK) { rc = sync_init(s); })
    if (rc != Z_OK) {
        strings_free(s); /* NULL unless the copy went through */
        session_release(s);
        return rc;
    }
    /* the configured zid, else (its len 0) a random one */
    s->zid = cfg->zid;
    while (s->zid.len == 0) {
        zm_port_random(s->zid.id, sizeof(s->zid.id));
        s->zid.len = zm_zid_trim(s->zid.id); /* the wire form stops at the last nonzero byte */
    }
    if (Z_FEATURE_MULTI_THREAD || Z_FEATURE_SCOUTING) { /* else a plain flag, false in the zeroed session */
        zm_atomic_init(&s->closing, false);
    }
    if (ZM_LIVELINESS_LATE) {
        atomic_init(&s->live_rx, NULL);
    }
    uint32_t seed = 0;
    if (ZM_LKEY_MAP || Z_FEATURE_QUERY) { /* a list of keys starts empty: the session is zeroed */
        zm_port_random(&seed, sizeof(seed));
    }
#if ZM_LKEY_MAP
    zm_idmap_init(&s->keys, seed);
#endif
    if (Z_FEATURE_QUERY) {
        zm_idmap_init(&s->gets, seed * 2654435761u + 1u);
        s->next_rid = 1;
        zm_atomic_init(&s->cancels, 0u);
    }
    s->next_id = 1;
    s->next_key_id = 1;
    z_result_t listen_rc = Z_OK; /* only peers listen */
    rc = slots_alloc(s);
    if (rc == Z_OK) {
        rc = zm_tls_creds_new(&s->tls, &cfg->tls); /* the certificates every tls endpoint takes */
    }
    if (rc != Z_OK) {
        zm_session_close(s);
        return rc;
    }
    ZM_IF_PEER(
        if (cfg->n_listen > 0) {
            listen_rc = listen_first(s);
            rc = cfg->listen_may_fail ? Z_OK : listen_rc;
        }
    )
    ZM_IF_MCAST(if (rc == Z_OK) { rc = groups_join(s); })
    ZM_IF_RESPONDER(if (rc == Z_OK && s->listening && s->cfg.scouting) { rc = zm_session_responder_open(s); })
    if (Z_FEATURE_SCOUTING && rc == Z_OK && no_endpoint) {
        rc = zm_session_scout_connect(s);
    }
    /* a client that can neither scout nor listen nor join a group has something to connect to */
    bool connects = !(Z_FEATURE_SCOUTING || Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT) ||
                    connect_count(s) > 0;
    if (rc == Z_OK && connects) {
        rc = connect_all(s, CONNECT_TIMEOUT(s), cfg->connect_exit_on_failure);
    }
    if (rc == Z_OK && !connects && listen_rc != Z_OK && !alone_useful(s)) {
        rc = listen_rc; /* no listener, and nothing else: a session of no use */
    }
    if (Z_FEATURE_MULTI_THREAD && rc == Z_OK && cfg->start_tasks) {
        rc = zm_session_start_read_task(s);
        if (rc == Z_OK) {
            rc = zm_session_start_lease_task(s);
        }
    }
    ZM_IF_MCAST(if (rc == Z_OK && s->mcast.open && ZM_MCAST_OPEN_WAIT_MS > 0) { mcast_settle(s); })
    if (rc != Z_OK) {
        zm_session_close(s);
        return rc;
    }
    *out = s;
    return Z_OK;
}

/* Closes every peer's link, so that its reader returns. */
static void peers_kill(zm_session_t *s)
{
    for (size_t i = 0; i < zm_slots(s); i++) {
        S_LOCK(s);
        bool live = s->peers[i].state == PEER_LIVE; /* an accept may be adding one right now */
        S_UNLOCK(s);
        if (live) {
            zm_peer_kill(&s->peers[i], ZM_CLOSE_GENERIC, "closing");
        }
    }
}

bool zm_session_close_begin(zm_session_t *s)
{
    S_LOCK(s);
    s->closing = true;
    tasks_wake(s);
    bool in = zm_session_inside(s);
    S_UNLOCK(s);
    if (in) {
        peers_kill(s); /* nothing goes out any more; the rest needs a thread that can wait */
    }
    return !in;
}

#if Z_FEATURE_MULTI_THREAD
/* s->lock held: whether a peer is still held by a sender, or its reader is not done. */
static bool peers_busy(const zm_session_t *s)
{
    for (size_t i = 0; i < zm_slots(s); i++) {
        const zm_peer_t *p = &s->peers[i];
        if (p->refs > 0 || (p->reader_started && !p->reader_done)) {
            return true;
        }
    }
    return false;
}

/* Close's first steps: the lease task, the worker and the accept task stopped and joined. */
static void tasks_stop(zm_session_t *s)
{
    lease_task_stop(s);
#if Z_FEATURE_UNICAST_PEER
    if (s->listening) {
        zm_link_shutdown(&s->listener);
    }
    ZM_IF_RESPONDER(if (s->responding) { zm_scout_responder_shutdown(s->responder); })
    if (s->accept_running) {
        zm_port_task_join(&s->accept_task);
        s->accept_running = false;
    }
#endif
}

/* Once the links are shut: senders that still hold a peer fail fast, and a reader in a callback
 * is done once it returns. */
static void peers_wait_idle(zm_session_t *s)
{
    S_LOCK(s);
    while (peers_busy(s)) {
        S_WAIT(s, 100u);
    }
    S_UNLOCK(s);
}

static void sync_destroy(zm_session_t *s)
{
    zm_port_condvar_destroy(&s->work_cond);
    zm_port_condvar_destroy(&s->lease_cond);
    zm_port_condvar_destroy(&s->cond);
    zm_port_mutex_destroy(&s->lock);
}

/* The task that ends the close of a session let go of inside it (zm_session_close_detached). */
static void *closer_main(void *arg)
{
    zm_session_close(arg);
    return NULL;
}
#else
#define tasks_stop(s) ((void)(s))
#define peers_wait_idle(s) ((void)(s))
#define sync_destroy(s) ((void)(s))
#endif

void zm_session_close(zm_session_t *s)
{
    if (s == NULL || !zm_session_close_begin(s)) {
        return;
    }
    tasks_stop(s);
    peers_kill(s);
    peers_wait_idle(s);
    zm_peer_reap(s);
    ZM_IF_PEER(
        if (s->listening) {
            zm_acceptor_close(s->acceptor);
            zm_link_close(&s->listener);
            s->listening = false;
        }
    )
    ZM_IF_RESPONDER(
        if (s->responding) {
            zm_scout_responder_close(s->responder);
            s->responding = false;
        }
    )
    zm_hub_close(s);
    ZM_ASSERT(zm_account_held(&s->account, ZM_HELD_KINDS) == 0); /* every charge refunded (transport/account.h) */
    sync_destroy(s);
    strings_free(s);
    zm_tls_creds_free(s->tls);
    slots_free(s);
    session_release(s);
}

void zm_session_close_detached(zm_session_t *s)
{
    if (zm_session_close_begin(s)) {
        zm_session_close(s);
        return;
    }
    ZM_IF_THREADS(if (zm_port_task_start_detached(closer_main, s) == Z_OK) { return; })
    ZM_LOG_W("a session let go of inside its own callback stays open: nothing can end its close");
}

bool zm_session_is_closed(const zm_session_t *s) { return s == NULL || s->closing; }

void zm_session_zid(const zm_session_t *s, zm_zid_t *out) { *out = s->zid; }

void zm_session_foreach_remote(zm_session_t *s, uint8_t whatami_mask, void (*fn)(const zm_zid_t *zid, void *ctx),
                               void *ctx)
{
    /* the remote nodes: not a multicast group, but its members */
    zm_peer_t *pinned[ZM_PEER_SLOTS] = {NULL}; /* gcc cannot tell that n stays below zm_slots(s) */
    size_t n = 0;
    S_LOCK(s);
    for (size_t i = 0; i < zm_slots(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && !zm_peer_is_group(p)) {
            zm_atomic_inc_relaxed(&p->refs);
            pinned[n++] = p;
        }
    }
    S_UNLOCK(s);
    for (size_t i = 0; i < n; i++) {
        if (whatami_mask & (1u << pinned[i]->t.remote_whatami)) {
            fn(&pinned[i]->t.remote_zid, ctx);
        }
        zm_peer_unpin(pinned[i]);
    }
}

void zm_session_new_timestamp(zm_session_t *s, zm_timestamp_t *ts)
{
    /* NTP64: seconds in the high 32 bits, the fraction in the low ones; the HLC keeps it rising */
    uint64_t ns = zm_port_time_ns();
    uint64_t secs = ns / 1000000000u;
    uint64_t frac = ((ns % 1000000000u) << 32) / 1000000000u;
    uint64_t t = (secs << 32) | frac;
    S_LOCK(s);
    if (t <= s->hlc_last) {
        t = s->hlc_last + 1;
    }
    s->hlc_last = t;
    S_UNLOCK(s);
    ts->time = t;
    ts->id = s->zid;
}
