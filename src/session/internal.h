/*
 * The session's private state, shared by its files: peers (one transport each), local
 * entities, and what each peer declared. Locking: s->lock guards the entity lists, the peer
 * slots' state and the remote subscriber lists; it is never held while sending or while a
 * callback runs. A peer slot in use is pinned (refs) by whoever sends on it or reads it, so
 * the reaper frees a dead peer only once nobody holds it.
 */
#ifndef ZM_SESSION_INTERNAL_H
#define ZM_SESSION_INTERNAL_H

#include <stdatomic.h>

#include "session/session.h"
#include "transport/transport.h"

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
#else
#define S_LOCK(s) ((void)(s))
#define S_UNLOCK(s) ((void)(s))
#define S_BROADCAST(s) ((void)(s))
#define S_WAIT(s, ms) ((void)(s))
#endif

/* A local subscriber. busy counts callbacks running now; removed ones are freed at busy == 0. */
typedef struct zm_sub {
    struct zm_sub *next;
    uint32_t id;
    uint8_t origin;
    bool removed;
    unsigned busy;
    zm_sample_fn fn;
    zm_drop_fn drop;
    void *ctx;
    size_t key_len;
    char key[]; /* not NUL-terminated */
} zm_sub_t;

/* A key expression declared by us (kind 0) or by a peer, and a peer's subscriber (kind 1). */
typedef struct zm_decl {
    struct zm_decl *next;
    uint32_t id;
    size_t key_len;
    char key[];
} zm_decl_t;

typedef struct zm_pub {
    struct zm_pub *next;
    uint32_t id;
    uint16_t key_id;
} zm_pub_t;

typedef enum { PEER_FREE = 0, PEER_LIVE, PEER_DEAD } zm_peer_state_t;

typedef struct zm_peer {
    struct zm_session *s;
    uint8_t state; /* zm_peer_state_t, under s->lock */
    unsigned refs; /* pins, under s->lock */
    zm_transport_t t;
    bool reader_started;
    bool declared; /* its initial declarations ended (D_FINAL of interest 0): filter puts */
#if Z_FEATURE_MULTI_THREAD
    zm_task_t reader;
#endif
    zm_decl_t *rkeys;   /* D_KEYEXPR of the peer: read-thread only */
    zm_decl_t *rsubs;   /* D_SUBSCRIBER of the peer, full keys: under s->lock */
    char key_buf[ZM_KEYEXPR_MAX]; /* scope + suffix resolved here: read-thread only */
} zm_peer_t;

struct zm_session {
    zm_session_config_t cfg; /* endpoint strings point into strings */
    char *strings;
    zm_zid_t zid;
#if Z_FEATURE_MULTI_THREAD
    zm_mutex_t lock;
    zm_condvar_t cond;      /* busy subscribers and pinned peers released, with waiters > 0 */
    zm_condvar_t lease_cond; /* the lease task's sleep, cut short by stop and close */
    zm_task_t lease_task;
    zm_task_t accept_task;
#endif
    unsigned waiters; /* threads waiting on cond */
    bool lease_running;
    bool accept_running;
    bool readers_on; /* new peers get a read task */
    atomic_bool closing;
    bool listening;
    zm_link_t listener;
    zm_peer_t peers[ZM_PEERS_MAX];
    zm_sub_t *subs;
    zm_decl_t *keys; /* our D_KEYEXPR */
    zm_pub_t *pubs;
    uint32_t next_id;     /* entity ids, from 1 */
    uint16_t next_key_id; /* expr ids, from 1 */
    bool batching;
    uint32_t admin_qid;    /* the admin space queryable's entity id, 0 when off */
    uint16_t admin_key_id; /* its declared prefix @/<zid>/pico */
    uint64_t reconnect_at; /* client: next attempt, when no router is connected */
    uint64_t hlc_last;     /* last timestamp handed out */
};

/* peer.c */
/** Accepts one peer on the listener within timeout_ms; a failed handshake costs only that link. */
ZM_NODISCARD z_result_t zm_peer_accept_one(zm_session_t *s, uint32_t timeout_ms);
ZM_NODISCARD z_result_t zm_peer_connect(zm_session_t *s, const char *endpoint);
void zm_peer_start(zm_session_t *s, zm_peer_t *p);
void zm_peer_reap(zm_session_t *s);
void zm_peer_kill(zm_peer_t *p, uint8_t reason);
/** Pins the live peers matching fn (or all if fn is NULL) into out; returns how many. */
size_t zm_peers_pin(zm_session_t *s, zm_peer_t **out, bool (*fn)(zm_peer_t *p, const void *arg), const void *arg);
void zm_peers_unpin(zm_session_t *s, zm_peer_t **peers, size_t n);

/* decl.c */
/** Sends every current declaration to one new peer (and D_FINAL of the initial interest). */
ZM_NODISCARD z_result_t zm_decl_push_all(zm_session_t *s, zm_peer_t *p);
/** Sends one declaration to every live peer; a peer that cannot take it is dropped. */
void zm_decl_broadcast(zm_session_t *s, const zm_declaration_t *d);
void zm_decl_list_free(zm_decl_t **list);
zm_decl_t *zm_decl_new(uint32_t id, const char *key, size_t len);

/* admin.c */
/** Fills d with the admin space's D_QUERYABLE; false when the admin space is off. */
bool zm_admin_declaration(zm_session_t *s, zm_declaration_t *d);
/** Answers a query on the admin space, if it intersects it (RESPONSE_FINAL is the caller's). */
void zm_admin_on_query(zm_peer_t *p, uint32_t rid, uint8_t qos, const char *key, size_t len);

/* data.c */
void zm_session_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable);
void zm_dispatch(zm_session_t *s, const zm_sample_t *smp, bool remote);
void zm_subs_free_all(zm_session_t *s);

#endif /* ZM_SESSION_INTERNAL_H */
