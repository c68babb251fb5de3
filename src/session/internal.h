/*
 * The session's private state, shared by its files: peers (one transport each), local
 * entities, and what each peer declared. Locking: s->lock guards the entity lists, the peer
 * slots' state and the remote subscriber lists; it is never held while sending or while a
 * callback runs. A peer slot in use is pinned (refs) by whoever sends on it or reads it, in
 * every build, so the reaper frees a dead peer only once nobody holds it (zm_pins_t).
 */
#ifndef ZM_SESSION_INTERNAL_H
#define ZM_SESSION_INTERNAL_H

#include <stdatomic.h>
#include <string.h>

#include "session/connectivity.h"
#include "session/session.h"
#include "transport/scout.h"
#include "transport/transport.h"
#include "util/atomic.h"
#include "util/idmap.h"
#include "util/log.h"

#if Z_FEATURE_MULTI_THREAD
#define S_LOCK(s) zm_port_mutex_lock(&(s)->lock)
#define S_UNLOCK(s) zm_port_mutex_unlock(&(s)->lock)
/* Waking costs a system call: only when someone waits (an undeclare, a close). */
#define S_BROADCAST(s)                             \
    do {                                           \
        if ((s)->waiters > 0) {                    \
            zm_port_condvar_broadcast(&(s)->cond); \
        }                                          \
    } while (0)
/* Waits on s->cond for up to ms, lock held; any change of busy/refs state may be the one. */
#define S_WAIT(s, ms)                                                                          \
    do {                                                                                       \
        (s)->waiters++;                                                                        \
        (void)zm_port_condvar_wait_until(&(s)->cond, &(s)->lock, zm_port_clock_ms() + (ms)); \
        (s)->waiters--;                                                                        \
    } while (0)
/* s->lock held: what a put's targets are made of changed (a peer came or went, a peer's
 * subscribers, or its initial declarations ended): the routes kept for puts are stale (data.c). */
#define S_ROUTES_CHANGED(s) ((void)zm_atomic_inc(&(s)->route_gen))
#else
#define S_LOCK(s) ((void)(s))
#define S_UNLOCK(s) ((void)(s))
#define S_BROADCAST(s) ((void)(s))
#define S_WAIT(s, ms) ((void)(s))
#define S_ROUTES_CHANGED(s) ((void)(s)) /* puts take the lock-free path only with threads */
#endif

/*
 * A callback running now: on the stack of the thread that runs it, linked into s->frames, so
 * that an undeclare made from inside a callback knows not to wait for it to end.
 */
typedef struct zm_cb_frame {
    struct zm_cb_frame *next;
    zm_thread_id_t thread;
} zm_cb_frame_t;





/*
 * A local entity with a callback or a key of its own: a subscriber, queryable, matching
 * listener, liveliness token or liveliness subscriber, each kind on a list of its own. busy
 * counts pins (callbacks running now, sends made unlocked), each taken under s->lock (busy++, an
 * atomic step) on an entity not removed; removed ones are freed once no pin is left. An undeclare
 * also sets ZM_GONE in busy, under the lock, which tells a pin released without the lock
 * (zm_entity_unpin_unlocked) to take the lock instead.
 */
typedef struct zm_entity {
    struct zm_entity *next;
    uint32_t id;
    uint8_t origin;
    bool removed;
    bool awaited;  /* its undeclare waits for the pins to end, and frees it */
    bool complete; /* queryables: it answers for every key its own key expression covers */
    bool history;  /* liveliness subscribers: the tokens alive when it came are delivered too */
    ZM_ATOMIC(unsigned) busy;
    zm_sample_fn fn; /* subscribers */
    /* The fields of other kinds are in the builds that have them: an entity is allocated from
     * the no-heap pools with its key, and a few bytes more may not fit its class. */
#if Z_FEATURE_QUERYABLE
    zm_query_fn qfn; /* queryables */
#endif
#if Z_FEATURE_MATCHING
    zm_matching_fn mfn; /* matching listeners: the publisher or querier they follow, */
    uint32_t owner;     /* and the status they were last told (origin: where it sends) */
    bool matching;
#endif
#if Z_FEATURE_CONNECTIVITY
    zm_conn_fn cfn; /* connectivity listeners, told the changes numbered after since */
    uint32_t since;
#endif
    zm_drop_fn drop;
    void *ctx;
    size_t key_len;
    char key[]; /* not NUL-terminated */
} zm_entity_t;






/*
 * For each peer slot, how many of that peer's subscribers intersect a key we send on: kept up
 * to date as declarations come and go (remote.c), so a put decides where to go in O(peers).
 */
typedef struct {
    uint32_t n[ZM_PEER_SLOTS]; /* never above ZM_PEER_DECLS_MAX */
} zm_hits_t;

/* A key a z_put without a declared key expression went to lately, with its hits (data.c). */
typedef struct {
    zm_hits_t hits;
    uint32_t used; /* s->put_clock when last used; 0: empty */
    uint16_t key_len;
    char key[ZM_PUT_CACHE_KEY_MAX];
} zm_put_cache_t;


/* The peers a put on a declared key goes to, kept for puts that take no lock (data.c): the key's
 * id in the high half of key_peers, a bit per slot index in the low half, valid while the
 * session's route_gen is gen. ZM_ROUTES of them, by key id. */
#define ZM_ROUTES 4u
#define ZM_ROUTE_SLOTS 16u /* slot indexes a route can hold: a build with more peers does without */
typedef struct {
    ZM_ATOMIC(uint32_t) gen;
    ZM_ATOMIC(uint32_t) key_peers;
} zm_route_t;

/* A key expression we declared (D_KEYEXPR), shared by the publishers on it; in s->keys. */
typedef struct zm_lkey {
    zm_hits_t hits; /* ZM_SUB_TRACKING */
#if !ZM_LKEY_MAP
    struct zm_lkey *next; /* the one declared before it (a lower id) */
#endif
    uint32_t users; /* zm_session_declare_keyexpr calls not yet undeclared */
    uint16_t id;
    size_t key_len;
    char key[];
} zm_lkey_t;

/* A key expression, subscriber or queryable declared by a peer; its id is its key in the peer's map. */
typedef struct {
    uint16_t key_len;
    bool complete; /* queryables: declared complete */
    char key[];
} zm_rdecl_t;

/*
 * The subscribers that the samples of a peer's stream on one key go to (remote.c, subs.c): the
 * first that takes them (NULL: none) and whether another one after it does too, found while the
 * session's entities_gen was gen. A stream on one key then skips the match of every subscriber.
 */
typedef struct {
    struct zm_entity *first;
    bool more;
    uint32_t gen; /* 0: not found yet */
} zm_match_memo_t;

/*
 * What one peer declared. keys: its D_KEYEXPR, used and changed by its read thread only. subs:
 * its D_SUBSCRIBER with full keys, changed by the read thread under s->lock, read under it.
 * tokens: its D_TOKEN with full keys (to name them when they go), read thread only. All
 * together stay within ZM_PEER_DECLS_MAX entries and ZM_PEER_DECL_BYTES_MAX key bytes, or a
 * router's bounds (ZM_ROUTER_*), past which its declarations are ignored, not refused.
 */
typedef struct {
    zm_idmap_t keys;
    zm_idmap_t subs;   /* ZM_SUB_TRACKING (each map stays empty in the builds without it) */
    zm_idmap_t qbls;   /* ZM_QBL_TRACKING: its D_QUERYABLE, like subs */
    zm_idmap_t tokens; /* ZM_LIVELINESS_SUBS */
    uint32_t n;
    size_t bytes;
    uint32_t ignored; /* a router's declarations ignored in the burst under way (read thread) */
    const zm_rdecl_t *last_key; /* the entry of keys last looked up (read thread), or NULL */
    uint32_t last_key_id;
    zm_match_memo_t last_key_match; /* the subscribers of samples on last_key (read thread, under s->lock) */
} zm_remote_t;

/* A publisher, or a querier (which declares nothing but the INTEREST its matching needs). */
typedef struct zm_pub {
    struct zm_pub *next;
    uint32_t id;
    uint16_t key_id;
    bool querier;
    uint8_t target; /* queriers: ZM_TARGET_* */
    uint32_t qbls;  /* queriers: the peers' queryables that answer it (matching.c, under s->lock) */
} zm_pub_t;

typedef enum { PEER_FREE = 0, PEER_LIVE, PEER_DEAD, PEER_REAPING } zm_peer_state_t;

typedef struct zm_peer {
    struct zm_session *s;
    uint8_t index;   /* its slot in s->peers, the index of its zm_hits_t counters */
    uint8_t state;   /* zm_peer_state_t, under s->lock */
    uint32_t gen;    /* counts the transports the slot has held: tells a reply's peer from a newcomer */
    ZM_ATOMIC(unsigned) refs; /* pins: taken under s->lock (LIVE peers only: relaxed, the lock orders them), released without it */
    zm_transport_t t;
    ZM_IF_MCAST(zm_transport_t *tx; /* what we send to it goes there (zm_peer_tx): &t, or the group's for a member */)
    bool reader_started; /* a read task serves it (zm_peer_reading) */
    bool reader_done;    /* that task returned from its last callback: joining it waits for nothing */
    bool accepted;   /* it connected to us (only those may be evicted) */
    bool declared;   /* its initial declarations ended (D_FINAL of interest 0): filter puts */
    ZM_IF_THREADS(
        zm_task_t reader;
        zm_thread_id_t reader_thread; /* set by the task itself; under s->lock */
    )
    zm_remote_t remote;
    ZM_IF_MCAST(zm_addr_t addr; /* a member's: where its datagrams come from */)
    /* the eviction order (ZM_PEER_ACTIVITY; in every build, unused but where peers are evicted) */
    atomic_bool active;      /* a network message came since the lease task last looked */
    uint64_t last_active_ms; /* when one last came, as the lease task saw it; under s->lock */
} zm_peer_t;

/* Whether a read task serves peer p: never in a single-thread build, which has none. */
#if Z_FEATURE_MULTI_THREAD
#define zm_peer_reading(p) ((p)->reader_started)
#else
#define zm_peer_reading(p) ((void)(p), false)
#endif

#if Z_FEATURE_MULTICAST_TRANSPORT
/* The transport what we send to peer p goes on: its own, or for a member the group's. */
#define zm_peer_tx(p) ((p)->tx)
static inline bool zm_peer_is_group(const zm_peer_t *p) { return p->index == ZM_GROUP_SLOT; }
static inline bool zm_peer_is_member(const zm_peer_t *p) { return p->index > ZM_GROUP_SLOT; }

/* True when declarations of kind go to the group too: not queryables (a Rust member would route
 * its own gets to us and wait for their timeout), nor key expressions without
 * Z_FEATURE_MULTICAST_DECLARATIONS (else full keys, which latecomers can read). */
static inline bool zm_mcast_declares(uint8_t kind)
{
    switch (kind) {
    case ZM_DECL_QUERYABLE:
    case ZM_UNDECL_QUERYABLE:
        return false;
    case ZM_DECL_KEYEXPR:
    case ZM_UNDECL_KEYEXPR:
        return Z_FEATURE_MULTICAST_DECLARATIONS;
    default:
        return true;
    }
}

/* Slots of the table that finds a member by its address: twice the members, so probes stay short. */
#define ZM_MCAST_TABLE (2 * ZM_MCAST_PEERS_MAX)

/* The session's multicast group (mcast.c); under s->lock unless said otherwise. */
typedef struct {
    bool open;                    /* the group's slot holds it */
    bool announce;                /* a member came: our JOIN and declarations again at the next tick */
    bool join_now;                /* zp_send_join: our JOIN at the next tick, due or not */
    uint64_t last_join_ms;        /* lease task only */
    uint64_t last_announce_ms;    /* lease task only */
    uint32_t seed;                /* of the address hash */
    uint8_t table[ZM_MCAST_TABLE]; /* a member's slot index by its address hash; 0: empty */
} zm_mcast_state_t;
#else
#define zm_peer_tx(p) (&(p)->t)
#define zm_peer_is_group(p) ((void)(p), false)
#define zm_peer_is_member(p) ((void)(p), false)
#define zm_mcast_declares(kind) ((void)(kind), true)
#endif

/* Whether s runs as a peer. A build with neither unicast peers nor multicast opens clients only,
 * so there the answer is known when compiling and the peer-only paths drop out. */
#if Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT
#define zm_session_is_peer(s) ((s)->cfg.mode == ZM_MODE_PEER)
#else
#define zm_session_is_peer(s) ((void)(s), false)
#endif


struct zm_session {
    zm_session_config_t cfg; /* endpoint strings: into strings, or the caller's during open only */
#if ZM_KEEPS_ENDPOINTS
    char *strings;
#endif
    zm_zid_t zid;
    zm_tls_creds_t *tls; /* for every tls endpoint, made at open (NULL: no TLS setting) */
#if Z_FEATURE_MULTI_THREAD
    zm_mutex_t lock;
    zm_condvar_t cond;      /* busy subscribers and pinned peers released, with waiters > 0 */
    zm_condvar_t lease_cond; /* the lease task's sleep, cut short by stop and close */
    zm_condvar_t work_cond;  /* the worker's sleep, cut short by stop, close and work (a reader done) */
    zm_task_t lease_task;
    zm_task_t worker; /* runs with the lease task: the reap, the hub's tick (session.h) */
    zm_thread_id_t worker_thread;
    bool tasks_joinable; /* lease_task and worker started and not joined yet */
    ZM_IF_PEER(zm_task_t accept_task;)
#endif
    unsigned waiters; /* threads waiting on cond */
    bool lease_running; /* the lease task and the worker are to run */
    bool readers_on; /* new peers get a read task */
#if Z_FEATURE_SCOUTING
    atomic_bool closing; /* also the cancel flag of its scouts (transport/scout.h) */
#else
    ZM_ATOMIC(bool) closing;
#endif
    ZM_IF_PEER(
        bool accept_running;
        bool listening;
        zm_link_t listener;
        /* handshakes of newcomers: the accept task's, or zm_session_read's; allocated with the
         * slots, where a listen endpoint calls for it */
        zm_acceptor_t *acceptor;
    )
    ZM_IF_RESPONDER(
        bool responding; /* the responder is open: from open to close */
        /* allocated with the slots, where a listener is to answer SCOUTs: the responder, served
         * beside the listener by its task or zm_session_read; the listener's locator, with the
         * port it got (ZM_LOCATOR_MAX + 1 bytes) */
        zm_scout_responder_t *responder;
        char *announced;
    )
#if ZM_SLOTS_SIZED
    zm_peer_t *peers; /* zm_slots(s) of them, allocated at open */
    uint8_t slots;
#else
    zm_peer_t peers[ZM_PEER_SLOTS];
#endif
#if ZM_REMOTE_DECLS
    /* scope + suffix of a peer's keys resolved here, by its read thread only: one per slot we
     * send on, a group's serving its members, whose datagrams its one reader takes (remote.c);
     * zm_slots_pin(s) of them, allocated with the slots */
#if ZM_SLOTS_SIZED
    char (*key_bufs)[ZM_KEYEXPR_MAX];
#else
    char key_bufs[ZM_PEERS_PIN][ZM_KEYEXPR_MAX];
#endif
#endif
    ZM_IF_MCAST(zm_mcast_state_t mcast;)
    zm_entity_t *subs;
    ZM_ATOMIC(unsigned) subs_declared; /* in s->subs, not undeclared: without one a put delivers nothing here */
    zm_entity_t *qbls;
    zm_entity_t *mls; /* matching listeners */
    zm_entity_t *tokens; /* our liveliness tokens */
    zm_entity_t *lsubs; /* liveliness subscribers; each one's id is also its interest's */
#if Z_FEATURE_CONNECTIVITY
    zm_entity_t *conns; /* connectivity listeners */
    zm_conn_state_t conn;
#endif
    struct zm_gone_tokens *gone; /* tokens of peers that went, their DELETEs still to deliver */
    _Atomic(const struct zm_live_rx *) live_rx; /* NULL until a liveliness subscriber or get */
    zm_idmap_t gets; /* our queries waiting for replies: zm_get_t by request id */
    uint32_t next_rid;
    ZM_ATOMIC(unsigned) cancels; /* cancels ending a get of s now (zm_cancel_cancel): close waits for them */
    zm_account_t account; /* what its peers make it hold (transport/account.h), zero in the zeroed session */
    zm_defrag_share_t frags; /* its transports' reassembly (Z_FEATURE_FRAGMENTATION), charged to account */
    struct zm_cb_frame *frames; /* callbacks running now, each on its thread's stack */
#if ZM_LKEY_MAP
    zm_idmap_t keys; /* our D_KEYEXPR: zm_lkey_t by id */
#else
    zm_lkey_t *keys; /* our D_KEYEXPR, the latest (highest id) first */
#endif
    zm_pub_t *pubs;
    /* the targets of puts on declared keys, each valid while route_gen is its gen (data.c) */
    ZM_ATOMIC(uint32_t) route_gen;
    zm_route_t routes[ZM_ROUTES];
#if ZM_WRITE_FILTER && ZM_PUT_CACHE_SLOTS > 0
    zm_put_cache_t put_cache[ZM_PUT_CACHE_SLOTS];
    uint32_t put_clock; /* ticks once per z_put, for least-recently-used replacement */
#endif
    uint32_t next_id;     /* entity ids, from 1 */
    uint32_t entities_gen; /* moved by every declaration and undeclaration of ours, never to 0 */
    uint16_t next_key_id; /* expr ids, from 1 */
    bool batching;
    uint64_t reconnect_at; /* client: next attempt, when no router is connected */
    uint64_t hlc_last;     /* last timestamp handed out */
};


/*
 * The slots of s (ZM_SLOTS_SIZED): all of them; the unicast ones, first; those we send on, the
 * unicast ones and the group's. Only a session with a multicast endpoint has more than
 * ZM_PEERS_MAX, and then it has them all.
 */
#if ZM_SLOTS_SIZED
#define zm_slots(s) ((size_t)(s)->slots)
#else
#define zm_slots(s) ((void)(s), (size_t)ZM_PEER_SLOTS)
#endif
#define zm_slots_unicast(s) (zm_slots(s) < ZM_PEERS_MAX ? zm_slots(s) : (size_t)ZM_PEERS_MAX)
#define zm_slots_pin(s) (zm_slots(s) < ZM_PEERS_PIN ? zm_slots(s) : (size_t)ZM_PEERS_PIN)

/* peer.c (the core: pins, sends, kills), peers.c (arrivals and the reap), reader.c */
/**
 * Serves the listener for up to timeout_ms: newcomers' handshakes progress side by side, and
 * those that finish become peers. ZM_E_CLOSED once the listener is shut; another error when
 * accepting failed (out of descriptors, say): the caller may try again after a pause.
 */
ZM_NODISCARD z_result_t zm_peer_accept(zm_session_t *s, uint32_t timeout_ms);
/* How long a connection and then its handshake may take each: Z_TRANSPORT_CONNECT_TIMEOUT, as z_open
 * documents it. */
#define ZM_CONNECT_TIMEOUT_MS 10000u
/** Dials endpoint and makes it a peer: the link opens within timeout_ms, then the handshake ends within as long. */
ZM_NODISCARD z_result_t zm_peer_connect(zm_session_t *s, const char *endpoint, uint32_t timeout_ms);
/**
 * Takes a transport that finished its handshake into a peer slot (evicting the least recently
 * active accepted peer when the table is full and ZM_PEER_EVICT allows), pushes our declarations
 * and starts its reader. On failure the transport is closed and freed: ZM_E_NO_SPACE when no slot.
 */
ZM_NODISCARD z_result_t zm_peer_add(zm_session_t *s, zm_transport_t *t, bool accepted);
/** Starts p's read task (reader.c), where the build has them and they are on. */
void zm_peer_start(zm_session_t *s, zm_peer_t *p);
/** Frees the dead peers nobody holds (their readers joined), each told to the hub as gone. */
void zm_peer_reap(zm_session_t *s);
/** The zid as Rust prints it: hex of its little-endian value, without leading zeros. */
const char *zm_zid_text(const zm_zid_t *zid, char out[33]);
/** Closes a peer's transport with reason (a ZM_CLOSE_*), logging why (NULL: it left); idempotent. */
void zm_peer_kill(zm_peer_t *p, uint8_t reason, const char *why);
/**
 * Drops a peer a send to failed with rc: silently if its link was closed (it left), else logging
 * why; a message too large to send (ZM_E_TOO_LARGE) left nothing on the link, which stays.
 */
void zm_peer_send_failed(zm_peer_t *p, z_result_t rc, const char *why);
/* Their callers name the reasons in place; a build without warnings leaves them out. */
#define zm_peer_kill(p, reason, why) (zm_peer_kill)((p), (reason), ZM_LOG_WHY(why))
#define zm_peer_send_failed(p, rc, why) (zm_peer_send_failed)((p), (rc), ZM_LOG_WHY(why))
/*
 * Drops a peer whose link ended (a read gave ZM_E_CLOSED). One that said CLOSE left, one we
 * closed is dead already: nothing to warn of. A link that ended without a CLOSE lost its peer
 * (killed, unplugged, a router that went down), which is worth a warning.
 */
#if ZM_LOG_LEVEL >= ZM_LOG_WARN
#define zm_peer_link_ended(p) \
    zm_peer_kill((p), ZM_CLOSE_GENERIC, (p)->t.rx_said_close ? NULL : "its link was lost (no CLOSE came)")
#else
#define zm_peer_link_ended(p) zm_peer_kill((p), ZM_CLOSE_GENERIC, NULL)
#endif
/** Sends m reliably on priority prio; a peer that cannot take it is dropped. */
void zm_peer_send(zm_peer_t *p, const zm_network_msg_t *m, uint8_t prio, bool flush);
/** Lease task: records which peers sent something since the last look (eviction order). */
void zm_peers_note_activity(zm_session_t *s, uint64_t now_ms);

/*
 * Peers pinned for a use outside s->lock: at most the ZM_PEERS_PIN slots we send on. One contract
 * in every build, one thread or many: whoever sends on a peer, reads it or hands it on (to a
 * callback, to the push of our declarations) pins it under s->lock, while it is LIVE, and unpins
 * it after, without the lock; the reaper frees a dead peer only once its pins are gone, so no
 * peer is freed under its user, be the reaper another thread or a callback that user runs. A
 * slot's setup leaves it unpinned: the lifecycle that fills it pins it for the push that follows
 * (peers.c, mcast.c, group.c), but a client's first connect, inside open, before anyone else
 * holds the session. A kill holds its peer until its link is shut only where a reaper may run on
 * another thread.
 */
typedef struct {
    size_t n;
    zm_peer_t *p[ZM_PEERS_PIN];
} zm_pins_t;

/** Pins the live peers we send on (unicast ones and the group) into out. */
void zm_peers_pin(zm_session_t *s, zm_pins_t *out);
/** zm_peers_pin of those fn accepts only. */
void zm_peers_pin_if(zm_session_t *s, zm_pins_t *out, bool (*fn)(zm_peer_t *p, const void *arg), const void *arg);
/** Releases pins without s->lock (an atomic decrement each); takes it only to wake a closing
 *  session's wait for idle peers. */
void zm_peers_unpin(const zm_pins_t *pins);
/** zm_peers_unpin of one peer, pinned alone. */
void zm_peer_unpin(zm_peer_t *p);
/*
 * zm_peer_unpin, inline where a put ends its pins without a call (ZM_PUT_HEAD). No lock on the
 * way out of every put: a reaper reads refs under s->lock, after its peer died, when no new pin
 * can come, and the decrement orders the pinner's use of the transport before its free. Only
 * close waits on s->cond for pins to end; it set closing before it looked at refs, so a release
 * that sees closing (seq_cst, after its decrement) comes after that look and wakes it. Without
 * threads nobody waits: the wake folds away.
 */
static ZM_ALWAYS_INLINE void zm_peer_unpin_inline(zm_peer_t *p)
{
    if (zm_atomic_dec(&p->refs) == 1u && Z_FEATURE_MULTI_THREAD && p->s->closing) {
        zm_session_t *s = p->s;
        S_LOCK(s);
        S_BROADCAST(s);
        S_UNLOCK(s);
    }
}


/* mcast.c (the members), group.c (joining the group): multicast builds only */
/**
 * Joins the multicast group of endpoint (zm_endpoint_is_multicast): the group goes into its
 * slot, our JOIN and declarations go out, and its reader starts (multi-thread builds with read
 * tasks on). ZM_E_UNSUPPORTED for a second group, a client, a session opened without the slots
 * of a group (zm_session_config_t.group), or a build without multicast.
 */
ZM_NODISCARD z_result_t zm_mcast_join(zm_session_t *s, const char *endpoint);
/**
 * zm_mcast_join over link, an open datagram link on the group that tells its senders
 * (zm_link_sender; tests use one of memory). The group takes the link on success (the caller's
 * copy is forgotten: its ops are cleared); on error it is the caller's to close.
 */
ZM_NODISCARD z_result_t zm_mcast_join_link(zm_session_t *s, zm_link_t *link);
/**
 * Receives one datagram of the group g (waiting for it with wait, else ZM_E_AGAIN when none is
 * there) and hands it to its member: a JOIN from a newcomer makes one within ZM_MCAST_PEERS_MAX, a
 * member that sends what cannot be read, or CLOSE, is dropped. ZM_E_CLOSED once g is closed.
 */
ZM_NODISCARD z_result_t zm_mcast_read(zm_session_t *s, zm_peer_t *g, bool wait);
/**
 * Lease task: our JOIN when due (or asked for: zp_send_join; when a newcomer came, our
 * declarations too), and the expiry of members.
 */
void zm_mcast_lease(zm_session_t *s, zm_peer_t *g);
/** The parameters of our transport on the group. */
zm_transport_params_t zm_mcast_params(const zm_session_t *s);
/** s->lock held: member p leaves the address table (it is being dropped; peer.c). */
void zm_mcast_forget(zm_session_t *s, zm_peer_t *p);
#if Z_FEATURE_MULTICAST_TRANSPORT
/** Where the search for the member at a starts in the address table. */
static inline size_t zm_mcast_table_home(const zm_session_t *s, const zm_addr_t *a)
{
    return zm_port_addr_hash(a, s->mcast.seed) % ZM_MCAST_TABLE;
}
#endif

/* scout.c */
/**
 * Scouts for a node to connect to (cfg.scout_*) and connects to the first HELLO's locator that
 * this build can open: Z_OK, _Z_ERR_SCOUT_NO_RESULTS when no node answered with one, the last
 * connection's error when none could be reached, or the scout's own error. Ends early once the
 * session is closing.
 */
ZM_NODISCARD z_result_t zm_session_scout_connect(zm_session_t *s);
/**
 * After the listener opened: joins the scouting group to answer SCOUTs for peers (cfg.scouting,
 * a listener not bound to a loopback address). A group that cannot be joined is a log line, not
 * an error (as in Rust); a malformed scouting locator or an unknown interface is an error.
 */
ZM_NODISCARD z_result_t zm_session_responder_open(zm_session_t *s);
/** Answers the SCOUTs waiting (a bounded burst), never blocking. */
void zm_session_responder_serve(zm_session_t *s);

/* decl.c */
/* What a declaration zm_decl_broadcast sends carries beyond its kind, id and key: the 0x5F
 * extension of a U_QUERYABLE or U_TOKEN (the null wire expression, as Rust writes it), the info
 * of a D_QUERYABLE and whether the queryable is complete. */
#define ZM_DECL_EXT_WIRE 0x01u
#define ZM_DECL_QBL_INFO 0x02u
#define ZM_DECL_QBL_COMPLETE 0x04u

/** Sends the declaration of kind for entity id on key (as zm_decl_fill makes it) with extras
 *  (ZM_DECL_* bits) to every live peer; a peer that cannot take it is dropped. */
void zm_decl_broadcast(zm_session_t *s, uint8_t kind, uint32_t id, const char *key, size_t len, uint8_t extras);
/** A DECLARE message of d (copied), with an interest id (0) or not. */
void zm_decl_msg(zm_network_msg_t *m, const zm_declaration_t *d, bool with_interest);
/** Sends d to p (batched: the push's caller flushes). */
ZM_NODISCARD z_result_t zm_decl_send(zm_peer_t *p, const zm_declaration_t *d, bool with_interest);
/** Sends p the D_FINAL of interest_id (0: the implicit initial interest). */
ZM_NODISCARD z_result_t zm_decl_send_final(zm_peer_t *p, uint32_t interest_id);

/* remote.c */
/**
 * The full key of a wire expression received from p: the suffix alone without scope (no copy),
 * else the declared prefix (p's table with sender mapping, ours with receiver mapping) and the
 * suffix joined in the key buffer of p's reader (s->key_bufs). The result is a valid key
 * expression of at most ZM_KEYEXPR_MAX bytes, valid until p's next message; ZM_E_KEYEXPR
 * otherwise, ZM_E_DECL_UNKNOWN for an unknown id.
 */
ZM_NODISCARD z_result_t zm_remote_resolve(zm_peer_t *p, const zm_wire_expr_t *we, const char **key, size_t *len);
/** After zm_remote_resolve of we: the memo of the subscribers its samples go to, when we names the
 * key last found alone (a publisher's stream) and the build keeps one (ZM_DISPATCH_MEMO), else NULL. */
static inline zm_match_memo_t *zm_remote_match_memo(zm_peer_t *p, const zm_wire_expr_t *we)
{
    bool last = p->remote.last_key != NULL && p->remote.last_key_id == we->scope && we->mapping == ZM_MAPPING_SENDER &&
                we->suffix.len == 0;
    return ZM_DISPATCH_MEMO && last ? &p->remote.last_key_match : NULL;
}
/** Applies a peer's DECLARE; an error (limits, invalid key) means the peer must be closed. */
ZM_NODISCARD z_result_t zm_remote_on_declare(zm_peer_t *p, const zm_declare_t *dm);
/**
 * Stores a declaration of p (key copied) in map, within p's bounds (ZM_E_LIMIT past them):
 * *stored is the new entry (NULL if none), *old the one it replaced, to release.
 */
ZM_NODISCARD z_result_t zm_rdecl_put(zm_peer_t *p, zm_idmap_t *map, uint32_t id, const char *key, size_t len,
                                     zm_rdecl_t **stored, zm_rdecl_t **old);
/** Frees an entry that left p's maps, and gives its room back to p's bounds. */
void zm_rdecl_release(zm_peer_t *p, zm_rdecl_t *d);
/** Forgets everything p declared (its reader joined); s->lock not held. */
void zm_remote_free(zm_session_t *s, zm_peer_t *p);
/** s->lock held: the hits of a key against every live peer's subscribers, counted afresh. */
void zm_hits_count(zm_session_t *s, const char *key, size_t len, zm_hits_t *hits);
/** s->lock held: a new peer in slot index starts with no hits anywhere. */
void zm_hits_reset_peer(zm_session_t *s, unsigned index);


/* query.c */
/** Answers a peer's REQUEST from our queryables, then ends it. */
void zm_query_on_request(zm_peer_t *p, const zm_network_msg_t *m);
void zm_query_on_response(zm_peer_t *p, const zm_network_msg_t *m);
void zm_query_on_response_final(zm_peer_t *p, const zm_network_msg_t *m);
/* The hub's events (hub.h): the lease step ends the gets whose time is up (tick), a peer gone
 * is waited for no more (gone), the close ends them all (close). */

/* matching.c: the hub's events alone (hub.h) */

/* liveliness.c */
/** A peer's D_TOKEN or U_TOKEN (read thread); an error means the peer must be closed. */
ZM_NODISCARD z_result_t zm_liveliness_on_token(zm_peer_t *p, const zm_declare_t *dm);
/**
 * Takes p's tokens away (its reader joined) into s->gone, for zm_liveliness_report_gone: the
 * reaper that calls this may sit deep in an accept, too deep for subscribers' callbacks.
 */
void zm_liveliness_peer_gone(zm_session_t *s, zm_peer_t *p);
/** Each token of the peers that went is a DELETE to our liveliness subscribers (none when closing). */
void zm_liveliness_report_gone(zm_session_t *s);
/**
 * A DECLARE of p that may answer one of our liveliness gets (a D_TOKEN with its interest id):
 * true when it did and was handled (a key that cannot be resolved included), false when it is
 * for zm_remote_on_declare.
 */
bool zm_liveliness_on_reply(zm_peer_t *p, const zm_declare_t *dm);
/** The D_FINAL of interest_id from p: a liveliness get stops waiting for p. */
void zm_liveliness_on_final(zm_peer_t *p, uint32_t interest_id);

typedef struct zm_live_rx {
    z_result_t (*on_token)(zm_peer_t *p, const zm_declare_t *dm);
    void (*peer_gone)(zm_session_t *s, zm_peer_t *p);       /* ZM_LIVELINESS_SUBS */
    void (*report_gone)(zm_session_t *s);                   /* ZM_LIVELINESS_SUBS */
    bool (*on_reply)(zm_peer_t *p, const zm_declare_t *dm); /* ZM_LIVELINESS_GET */
    void (*on_final)(zm_peer_t *p, uint32_t interest_id);   /* ZM_LIVELINESS_GET */
} zm_live_rx_t;

/** The news takers, for s->live_rx (ZM_LIVELINESS_LATE builds). */
extern const zm_live_rx_t zm_live_rx;
#if ZM_LIVELINESS_LATE
#define ZM_LIVE_RX(s) atomic_load_explicit(&(s)->live_rx, memory_order_acquire)
#define ZM_LIVE_CALL(s, fn, none, ...) (ZM_LIVE_RX(s) != NULL ? ZM_LIVE_RX(s)->fn(__VA_ARGS__) : (none))
#define ZM_LIVE_DO(s, fn, ...)              \
    do {                                    \
        const zm_live_rx_t *rx_ = ZM_LIVE_RX(s); \
        if (rx_ != NULL) {                  \
            rx_->fn(__VA_ARGS__);           \
        }                                   \
    } while (0)
#else
#define ZM_LIVE_CALL(s, fn, none, ...) zm_liveliness_##fn(__VA_ARGS__)
#define ZM_LIVE_DO(s, fn, ...) zm_liveliness_##fn(__VA_ARGS__)
#endif

/* query.c: the records of liveliness gets, which wait and end as gets do (hub.h: zm_hub_token_get_*) */
/** The place of this session in a get's awaited answers (the others are peer slots). */
#define ZM_GET_WAIT_LOCAL ZM_PEER_SLOTS

/* decl.c: the table of local entities and their callbacks */
/** s->lock held: frees e, unlinked from *head, whose last pin ended after its undeclare. */
void zm_entity_release(zm_session_t *s, zm_entity_t **head, zm_entity_t *e);
/* The bit of zm_entity_t.busy an undeclare sets; the rest counts the pins. */
#define ZM_GONE 0x80000000u
/* s->lock held (or the pins known to be released under it alone): the pins of e. */
static inline unsigned zm_entity_pins(zm_entity_t *e) { return zm_atomic_load_relaxed(&e->busy) & ~ZM_GONE; }
/*
 * s->lock held: ends one pin of e (on list *head: a callback or a send that ran unlocked) and
 * returns the entity after it. The last pin of an undeclared entity frees it, unless its
 * undeclare waits for the pins to end (that undeclare frees it); an undeclare made from a
 * callback does not wait, and leaves it to us.
 */
static inline zm_entity_t *zm_entity_unpin(zm_session_t *s, zm_entity_t **head, zm_entity_t *e)
{
    zm_entity_t *next = e->next;
    /* relaxed: the lock orders it with the undeclare, which reads the count under it */
    if (((zm_atomic_dec_relaxed(&e->busy) - 1u) & ~ZM_GONE) == 0 && e->removed && !e->awaited) {
        zm_entity_release(s, head, e);
    }
    S_BROADCAST(s);
    return next;
}
/*
 * Ends one pin of e without s->lock while e is not undeclared: a sample delivered to one
 * subscriber takes the session's lock once, to find and pin it. Why that is safe:
 * - pins are taken under the lock on entities not removed, and ZM_GONE is set under the lock
 *   with removed: once it is set, the count only falls;
 * - the step below replaces a value without ZM_GONE, so it comes before the undeclare's
 *   zm_atomic_or in the order of busy's changes: the undeclare reads the count without this pin
 *   (not waiting for it, the callback being done: release here, acquire there), and e is not
 *   touched again here;
 * - once ZM_GONE is seen, the pin ends under the lock (zm_entity_unpin), as every pin did
 *   before: the last one frees e or wakes its undeclare, which waits for the count under the
 *   same lock, so that no wake-up is lost and e is freed once only, after its last use.
 * Inline: every sample delivered ends one.
 */
static inline void zm_entity_unpin_unlocked(zm_session_t *s, zm_entity_t **head, zm_entity_t *e)
{
    unsigned b = zm_atomic_load_relaxed(&e->busy);
    while ((b & ZM_GONE) == 0) {
        if (zm_atomic_cas_release(&e->busy, &b, b - 1u)) {
            return;
        }
    }
    S_LOCK(s);
    (void)zm_entity_unpin(s, head, e);
    S_UNLOCK(s);
}
/** A new entity of key (copied) with every field zeroed; NULL when out of memory. */
zm_entity_t *zm_entity_new(const char *key, size_t len);
/** Links e on *head with a fresh id (returned). */
uint32_t zm_entity_add(zm_session_t *s, zm_entity_t **head, zm_entity_t *e);
/**
 * Removes entity id from *head: waits for its callbacks under way (unless called from one),
 * calls its drop. Z_EINVAL when no such entity; *remote tells if it was declared to peers.
 */
ZM_NODISCARD z_result_t zm_entity_remove(zm_session_t *s, zm_entity_t **head, uint32_t id, bool *remote);
/**
 * s->lock held: whether the calling thread is inside s: one of its read tasks, its worker, or a
 * callback of s (a frame of zm_callback_enter on its stack: given by a call into s, or by
 * driving it with zm_session_read). Read tasks and the worker run application code only in
 * callbacks, so theirs need no frame. Inline: a build without threads nor callbacks is never
 * inside.
 */
static inline bool zm_session_inside(const zm_session_t *s)
{
    if (!Z_FEATURE_MULTI_THREAD && !ZM_APP_CALLBACKS) {
        return false; /* no callback, no task: the caller is outside */
    }
    zm_thread_id_t self = zm_port_thread_self();
#if Z_FEATURE_MULTI_THREAD
    if (s->tasks_joinable && s->worker_thread == self) {
        return true;
    }
    for (size_t i = 0; i < zm_slots(s); i++) {
        const zm_peer_t *p = &s->peers[i];
        if (p->reader_started && !p->reader_done && p->reader_thread == self) {
            return true;
        }
    }
#endif
    for (const zm_cb_frame_t *f = s->frames; ZM_APP_CALLBACKS && f != NULL; f = f->next) {
        if (f->thread == self) {
            return true;
        }
    }
    ZM_UNUSED(self);
    return false;
}
/** s->lock held: marks the calling thread as inside a callback of the session (frame on its stack). */
static inline void zm_callback_enter(zm_session_t *s, zm_cb_frame_t *frame)
{
    frame->next = s->frames;
    s->frames = frame;
}
/** s->lock held: the callback of frame returned. */
static inline void zm_callback_leave(zm_session_t *s, zm_cb_frame_t *frame)
{
    zm_cb_frame_t **pp = &s->frames;
    while (*pp != frame) {
        pp = &(*pp)->next;
    }
    *pp = frame->next;
}
void zm_entities_free_all(zm_entity_t **head);
/** Builds a declaration of kind for entity id on key (suffix only, sender mapping). */
void zm_decl_fill(zm_declaration_t *d, uint8_t kind, uint32_t id, const char *key, size_t len);

/* data.c (puts out, messages in), sample.c */
void zm_session_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable);
/** The network QoS byte of a priority, congestion control and express flag. */
static inline uint8_t zm_qos_of(uint8_t priority, bool block, bool express)
{
    return (uint8_t)((priority & 7u) | (block ? ZM_QOS_BLOCK : 0u) | (express ? ZM_QOS_EXPRESS : 0u));
}
/** The sample parts of a received PUT or DEL body (key and QoS are the caller's). Inline: a
 *  received sample is built where it is delivered. Its timestamp and source are left as they
 *  were when absent: what reads them looks at has_* first. */
static inline void zm_sample_from_body(zm_sample_t *smp, uint8_t body_id, const zm_put_t *put)
{
    /* a DEL's payload and encoding were decoded empty */
    smp->kind = body_id == ZM_MID_PUT ? ZM_SAMPLE_PUT : ZM_SAMPLE_DELETE;
    smp->payload = put->payload;
    smp->encoding = put->encoding;
    smp->has_timestamp = put->has_timestamp;
    if (put->has_timestamp) {
        smp->timestamp = put->timestamp;
    }
    smp->has_attachment = (put->exts & ZM_PUT_EXT_ATTACHMENT) != 0;
    smp->attachment = put->attachment;
    smp->has_source = (put->exts & ZM_PUT_EXT_SOURCE) != 0;
    if (smp->has_source) {
        smp->source = put->source;
    }
}
/** A local sample of a put's arguments (borrows from a). */
static inline void zm_sample_from_args(zm_sample_t *smp, const zm_put_args_t *a)
{
    memset(smp, 0, sizeof(*smp));
    smp->key = a->key;
    smp->key_len = a->key_len;
    smp->kind = a->kind;
    const zm_put_t *b = &a->body;
    if (a->kind == ZM_SAMPLE_PUT) {
        smp->payload = b->payload;
        if (b->has_encoding) {
            smp->encoding = b->encoding;
        }
    }
    if (b->has_timestamp) {
        smp->has_timestamp = true;
        smp->timestamp = b->timestamp;
    }
    if (b->exts & ZM_PUT_EXT_ATTACHMENT) {
        smp->has_attachment = true;
        smp->attachment = b->attachment;
    }
    if (b->exts & ZM_PUT_EXT_SOURCE) {
        smp->has_source = true;
        smp->source = b->source;
    }
    smp->priority = a->priority;
    smp->block = a->block;
    smp->express = a->express;
    smp->reliable = a->reliable;
}
/** A received key that could not be resolved: dropped when its id is unknown, else the peer goes. */
void zm_bad_key(zm_peer_t *p, z_result_t rc);
/** smp to our subscribers that take it; memo (or NULL) keeps those of a stream on one key. */
void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote, zm_match_memo_t *memo);

/**
 * s->lock held: makes slot p, whose transport is in p->t, a live peer, unpinned (a caller that
 * hands it on pins it, zm_pins_t): its index, generation and empty declaration tables, tx on its
 * own transport, and what comes from it handed to zm_session_on_message. Inline in the
 * lifecycles that fill a slot (peers.c, mcast.c), so that the core holds no reference to the
 * receive path.
 */
static inline void zm_peer_setup(zm_session_t *s, zm_peer_t *p, bool accepted)
{
    ZM_IF_MCAST(p->tx = &p->t;)
    if (ZM_DECODE_NETWORK) { /* else the transport hands out no network message */
        p->t.on_message = zm_session_on_message;
    }
    p->t.ctx = p;
    if (Z_FEATURE_FRAGMENTATION) {
        s->frags.account = &s->account;
        p->t.share = &s->frags;
    }
    p->s = s;
    p->index = (uint8_t)(p - s->peers);
    p->gen++;
    if (ZM_REMOTE_DECLS) { /* else nothing it declares is kept */
        uint32_t seed[3];
        zm_port_random(seed, sizeof(seed));
        zm_idmap_init(&p->remote.keys, seed[0]);
        zm_idmap_init(&p->remote.subs, seed[1]);
        zm_idmap_init(&p->remote.qbls, seed[0] ^ seed[1]);
        zm_idmap_init(&p->remote.tokens, seed[2]);
        p->remote.n = 0;
        p->remote.bytes = 0;
        p->remote.ignored = 0;
        p->remote.last_key = NULL;
    }
    if (ZM_SUB_TRACKING) {
        zm_hits_reset_peer(s, p->index);
    }
    p->reader_started = false;
    if (Z_FEATURE_MULTI_THREAD) {
        p->reader_done = false;
    }
    p->accepted = accepted;
    p->declared = false;
    if (ZM_PEER_ACTIVITY) {
        atomic_store(&p->active, false);
        p->last_active_ms = zm_port_clock_ms();
    }
    p->state = PEER_LIVE;
    S_ROUTES_CHANGED(s);
}

#endif /* ZM_SESSION_INTERNAL_H */
