/*
 * The session: a node's zid, its transports (one to a router in client mode; the accepted and
 * connected peers in peer mode), its declarations, and the dispatch of what arrives to local
 * entities. It speaks in full key expressions and borrowed slices; the API layer above turns
 * these into the Zenoh C types. Nothing here allocates per sample.
 *
 * Threads: every function may be called from any thread, including from inside a callback
 * (callbacks run without any session lock held). After an undeclare returns, its callback runs
 * no more (unless the undeclare is called from that very callback, which is allowed and then
 * takes effect after it). Who runs what, in a multi-thread build with its tasks started:
 * - A peer's read task (one per peer, and one for a multicast group) reads its link and runs the
 *   callbacks of what arrives from it: samples, queries, replies, liveliness news, matching
 *   changes its declarations make. A callback that blocks holds that task alone: the peer's
 *   lease expires meanwhile and it is dropped (its link shut); once the callback returns, the
 *   task sees its link closed, says it is done and returns. Nobody waits for it before that.
 * - The lease task sends keep-alives (and our JOIN to a group), expires silent peers (kills them:
 *   their links shut, which takes no wait) and reconnects a client. It never runs an application
 *   callback and never joins a thread, so that no callback can hold it.
 * - The worker, started and stopped with the lease task, reaps dead peers (joining a read task
 *   only once it is done, so without waiting) and runs the hub's tick: the gets whose time is up
 *   (their last LATEST replies, their drop), the DELETEs of the tokens of peers gone, and the
 *   matching changes a peer's end makes. Their callbacks run there.
 * - The accept task (a listening peer) takes newcomers in; it runs no callback either, and leaves
 *   the slots of dead peers to the worker.
 * - An application thread runs the callbacks of what it does itself (a local put's delivery, a
 *   local get's queryables and our own tokens' replies to a liveliness get, a matching listener's
 *   first status, the drop an undeclare runs, the end of the gets a cancel ends, with their
 *   LATEST replies and drops) and, when it drives the session
 *   (zm_session_read, zm_session_send_keep_alive, as single-thread builds always do), those of
 *   the read task, the worker and the lease task above: reaping is then its own.
 * Peers are pinned by whoever uses one outside the session's lock (sends on it, reads it, hands
 * it to a callback), in every build alike, one thread or many, and freed by whoever reaps only
 * once dead and pinned by nobody (session/internal.h, zm_pins_t): no peer is freed under its
 * user, whether the reaper is another thread or a callback run by that user.
 * Only close joins: the lease task and the worker, the accept task, then each read task once
 * done. A close called inside the session (from one of its read tasks, its worker, or any
 * callback of it) cannot wait for the thread it runs on: it only begins (zm_session_close_begin:
 * the session is closing, every link shut) and returns, and a close from outside the session ends
 * it (the API's drop of the session, or z_close from another thread). When the last reference
 * to the session goes inside it (zm_session_close_detached), a task of its own, outside, ends it.
 */
#ifndef ZM_SESSION_H
#define ZM_SESSION_H

#include <stdatomic.h>

#include "proto/core.h"
#include "link/tls.h"
#include "proto/msg.h" /* ZM_TARGET_*, ZM_CONSOLIDATION_* of queries */
#include "zmote/opt.h"

typedef struct zm_session zm_session_t;

typedef enum { ZM_MODE_CLIENT = 0, ZM_MODE_PEER = 1 } zm_mode_t;

/** What a session is opened with; strings are copied by zm_session_open where the session reads
 *  them after it (ZM_KEEPS_ENDPOINTS, session/internal.h), else only read during the call. */
typedef struct {
    uint8_t mode; /* zm_mode_t */
    const char *connect[ZM_ENDPOINTS_MAX];
    size_t n_connect;
    const char *listen[ZM_ENDPOINTS_MAX];
    size_t n_listen;
    zm_zid_t zid;          /* len 0: none, a random one is drawn */
    bool auto_reconnect;   /* client: reconnect and redeclare when the router goes away */
    bool start_tasks;      /* start the read, lease and accept tasks (multi-thread builds) */
    bool group;            /* a peer: the slots of a multicast group, joined later, without a group endpoint */
    bool scouting;             /* multicast scouting: find a node without endpoints, answer SCOUTs when listening */
    const char *scout_locator; /* the scouting group, `udp/224.0.0.224:7446[#iface=eth0]` */
    uint32_t scout_timeout_ms; /* how long a scout for a node to connect to lasts */
    uint8_t scout_what;        /* ZM_WHAT_* mask of the nodes it looks for */
    /* open's retries of endpoints whose failure may pass (0: each once, -1: no end); whether a
     * peer missing a connect endpoint fails the open; whether a peer goes on without listening */
    int32_t connect_timeout_ms;
    bool connect_exit_on_failure;
    int32_t listen_timeout_ms;
    bool listen_may_fail;
    zm_tls_config_t tls; /* read during open only: the session keeps the credentials it made of it */
    /* user/password authentication (NULL: none; used with ZM_AUTH_USRPWD): the credentials
     * presented when connecting, the `user:password` lines a peer connecting to us must match
     * (zm_usrpwd_dict_valid) */
    const char *user, *password, *usrpwd_dict;
} zm_session_config_t;

/* ---- samples -------------------------------------------------------------------------------- */

#define ZM_SAMPLE_PUT 0
#define ZM_SAMPLE_DELETE 1

/** A received (or locally published) sample; everything borrows and is valid during the callback. */
typedef struct {
    const char *key; /* full key expression, not NUL-terminated */
    size_t key_len;
    uint8_t kind; /* ZM_SAMPLE_* */
    zm_slice_t payload;
    zm_encoding_t encoding; /* id 0 without schema when absent */
    bool has_timestamp;
    zm_timestamp_t timestamp;
    bool has_attachment;
    zm_slice_t attachment;
    bool has_source;
    zm_source_info_t source;
    uint8_t priority; /* zm_priority_t */
    bool block;       /* congestion control Block */
    bool express;
    bool reliable;
} zm_sample_t;

typedef void (*zm_sample_fn)(const zm_sample_t *sample, void *ctx);
/** Called once when a subscriber is undeclared or its session closes, to release ctx. */
typedef void (*zm_drop_fn)(void *ctx);

/* Where a put may go, and where a subscriber accepts samples from (z_locality_t values). */
#define ZM_LOCALITY_ANY 0
#define ZM_LOCALITY_SESSION_LOCAL 1
#define ZM_LOCALITY_REMOTE 2

/**
 * A put or delete; all pointers borrow for the duration of the call. Its body is the PUT or DEL
 * as it goes out: the payload (a PUT's), and the timestamp, encoding (a PUT's; never the empty
 * one, which is none), source info (only with Z_FEATURE_UNSTABLE_API) and attachment its flags
 * say it has; no unknown extension.
 */
typedef struct {
    const char *key;
    size_t key_len;
    uint16_t key_id; /* a zm_session_declare_keyexpr id for key, or 0 */
    uint8_t kind;    /* ZM_SAMPLE_* */
    zm_put_t body;
    uint8_t priority;
    bool block;
    bool express;
    bool reliable;
    uint8_t destination; /* ZM_LOCALITY_* */
} zm_put_args_t;

/** Fills a with the defaults of a PUT (Data priority, Drop, reliable, anywhere). */
void zm_put_args_init(zm_put_args_t *a, const char *key, size_t key_len);

/* ---- life cycle ------------------------------------------------------------------------------ */

/**
 * Opens a session: connects (client: the first endpoint that answers; peer: every one, and
 * listens on the listen endpoints). Returns an owned session to close with zm_session_close.
 * cfg is valid, as the API checks it (asserted): a mode of zm_mode_t, at most ZM_ENDPOINTS_MAX
 * endpoints of each kind, none to listen on for a client, and some endpoint, or else scouting.
 * ZM_E_UNSUPPORTED for a mode or endpoint zmote cannot serve, ZM_E_LOCATOR for a malformed one,
 * Z_EINVAL for credentials that are not a pair or a dictionary that does not read (usrpwd);
 * when no endpoint could be reached, the error of the last one tried (ZM_E_REFUSED, ZM_E_NO_HOST,
 * ZM_E_TIMEOUT, a handshake's error...), so that the caller can say why.
 * Scouting builds: without connect nor listen endpoints the session scouts for cfg->scout_what
 * and connects to the first node whose HELLO has a locator this
 * build can open (_Z_ERR_SCOUT_NO_RESULTS if none came within cfg->scout_timeout_ms); a
 * listening peer with cfg->scouting answers SCOUTs on the group, unless its listener is bound to
 * a loopback address (reachable from this machine only, it stays off the network).
 */
ZM_NODISCARD z_result_t zm_session_open(zm_session_t **out, const zm_session_config_t *cfg);
/**
 * Begins closing s: from now on it is closing (every call but close fails), and its tasks stop.
 * Returns true when the calling thread may end the close (zm_session_close); false when it is
 * inside s (one of its read tasks, its worker, or one of its callbacks): every link is shut then,
 * and the close must be ended by zm_session_close from another thread, or from this one once out.
 */
bool zm_session_close_begin(zm_session_t *s);
/**
 * Undeclares nothing on the wire, sends CLOSE, stops and joins the tasks (waiting for callbacks
 * under way to return), frees everything. Called inside s (zm_session_close_begin), it only begins.
 */
void zm_session_close(zm_session_t *s);
/**
 * Closes s as zm_session_close does, for a caller that lets go of s for good (the last reference
 * to it): called inside s, where the close only begins, a task of its own (multi-thread builds)
 * ends it as a close from outside would, once the callbacks under way returned.
 */
void zm_session_close_detached(zm_session_t *s);
bool zm_session_is_closed(const zm_session_t *s);
void zm_session_zid(const zm_session_t *s, zm_zid_t *out);

/** Calls fn with the zid of each connected router (client) or peer (peer mode). */
void zm_session_foreach_remote(zm_session_t *s, uint8_t whatami_mask, void (*fn)(const zm_zid_t *zid, void *ctx),
                               void *ctx);

ZM_NODISCARD z_result_t zm_session_start_read_task(zm_session_t *s);
ZM_NODISCARD z_result_t zm_session_stop_read_task(zm_session_t *s);
ZM_NODISCARD z_result_t zm_session_start_lease_task(zm_session_t *s);
ZM_NODISCARD z_result_t zm_session_stop_lease_task(zm_session_t *s);
/** Single-thread driving: reads what is ready on every transport (waits up to timeout_ms). */
ZM_NODISCARD z_result_t zm_session_read(zm_session_t *s, uint32_t timeout_ms);
/** Sends keep-alives where due and expires silent peers. */
ZM_NODISCARD z_result_t zm_session_send_keep_alive(zm_session_t *s);
/** The same, and our JOIN to the multicast group now (if the session is on one). */
ZM_NODISCARD z_result_t zm_session_send_join(zm_session_t *s);

/* ---- declarations ---------------------------------------------------------------------------- */

ZM_NODISCARD z_result_t zm_session_declare_keyexpr(zm_session_t *s, const char *key, size_t len, uint16_t *id);
ZM_NODISCARD z_result_t zm_session_undeclare_keyexpr(zm_session_t *s, uint16_t id);

/** A subscriber on key (copied); fn (not NULL) runs for every matching sample; drop(ctx) when it
 * ends. origin is a ZM_LOCALITY_ value: the API checks the user's closure and options. */
ZM_NODISCARD z_result_t zm_session_declare_subscriber(zm_session_t *s, const char *key, size_t len,
                                                      uint8_t origin, zm_sample_fn fn, zm_drop_fn drop,
                                                      void *ctx, uint32_t *id);
ZM_NODISCARD z_result_t zm_session_undeclare_subscriber(zm_session_t *s, uint32_t id);


/** A publisher on key expression key_id, which the caller declared (zm_session_declare_keyexpr)
 *  and undeclares after the publisher, or at once if this fails: puts then use that key id. */
ZM_NODISCARD z_result_t zm_session_declare_publisher(zm_session_t *s, uint16_t key_id, uint32_t *id);
/** Undeclares publisher id, declared and not undeclared yet. */
void zm_session_undeclare_publisher(zm_session_t *s, uint32_t id);

/* ---- matching ------------------------------------------------------------------------------------ */

typedef void (*zm_matching_fn)(bool matching, void *ctx);

/**
 * A listener of the matching status of publisher pub_id, which publishes to destination
 * (ZM_LOCALITY_*): fn runs when a subscriber first matches its key and when the last one goes
 * (and at once if one matches now); drop(ctx) when it ends: undeclared, its publisher
 * undeclared, or the session closed.
 */
ZM_NODISCARD z_result_t zm_session_declare_matching_listener(zm_session_t *s, uint32_t pub_id, uint8_t destination,
                                                             zm_matching_fn fn, zm_drop_fn drop, void *ctx,
                                                             uint32_t *id);
ZM_NODISCARD z_result_t zm_session_undeclare_matching_listener(zm_session_t *s, uint32_t id);
/**
 * A querier on key expression key_id (declared and undeclared by the caller, as a publisher's)
 * sending with target: declares what its matching status needs. Queriers and publishers share
 * ids and the calls below.
 */
ZM_NODISCARD z_result_t zm_session_declare_querier(zm_session_t *s, uint16_t key_id, uint8_t target, uint32_t *id);
void zm_session_undeclare_querier(zm_session_t *s, uint32_t id);

/** Whether a subscriber (remote, or local as destination allows) matches publisher pub_id's key. */
ZM_NODISCARD z_result_t zm_session_publisher_matching(zm_session_t *s, uint32_t pub_id, uint8_t destination,
                                                      bool *matching);

/* ---- data ------------------------------------------------------------------------------------ */

/** Sends a put or delete to the matching remote nodes, and delivers it to local subscribers
 * (in a build with Z_FEATURE_LOCAL_SUBSCRIBER). a
 * is valid (a key, a priority other than control, a kind and a destination among theirs): the
 * API checks what it takes from the user before it fills a. */
ZM_NODISCARD z_result_t zm_session_put(zm_session_t *s, const zm_put_args_t *a);

/*
 * A publisher's put without options, pre-encoded (ZM_PUT_HEAD): its PUSH up to the payload,
 * made once when it is declared, so that each put appends the payload's length and bytes alone.
 * The head depends on the key id, QoS and encoding, which a publisher keeps for its life; where
 * the put goes is read at each put, as zm_session_put reads it. Its bytes:
 *   [0] the length of the PUSH in [ZM_PUT_HEAD_PUSH..] (0: none, the puts take zm_session_put)
 *   [1] the QoS byte of its PUSH (zm_qos_of), [2] ZM_PUT_HEAD_* flags, [3] unused
 *   [ZM_PUT_HEAD_PUSH..] the PUSH: ZM_PUSH_HEAD_MAX bytes, the first [0] of them used.
 */
#define ZM_PUT_HEAD_PUSH 4u
#define ZM_PUT_HEAD_SIZE (ZM_PUT_HEAD_PUSH + ZM_PUSH_HEAD_MAX)
#define ZM_PUT_HEAD_RELIABLE 0x01u
#define ZM_PUT_HEAD_REMOTE 0x02u /* its puts are never delivered locally (ZM_LOCALITY_REMOTE) */

/**
 * The head of the puts of a (a PUT on a declared key with an empty payload, as a publisher's put
 * without options fills it) into head; [0] stays 0 when it has none: a put that never goes to a
 * peer (ZM_LOCALITY_SESSION_LOCAL), a head too long. Called once, as the publisher is declared.
 */
void zm_session_put_head_make(const zm_put_args_t *a, uint8_t head[ZM_PUT_HEAD_SIZE]);
/**
 * Sends a PUT of payload (borrowed) on declared key key_id, from head (zm_session_put_head_make,
 * [0] not 0): true when it was sent, or refused, with the result in *rc; false when nothing was
 * done and the put must take zm_session_put: where it is to be delivered locally, or to a
 * multicast group that knows no key id, or where no route kept for key_id is current (the first
 * put after a change of its targets, which zm_session_put keeps as the new route).
 */
bool zm_session_put_head(zm_session_t *s, uint16_t key_id, const uint8_t *head, zm_slice_t payload, z_result_t *rc);

ZM_NODISCARD z_result_t zm_session_batch_start(zm_session_t *s);
ZM_NODISCARD z_result_t zm_session_batch_flush(zm_session_t *s);
ZM_NODISCARD z_result_t zm_session_batch_stop(zm_session_t *s);

/* ---- queries ---------------------------------------------------------------------------------- */

#define ZM_ROUTE_LOCAL 0xffu /* zm_query_route_t.peer of a query from this very session */

/** Where the replies to a query go: a peer's request, or a get of this session. */
typedef struct {
    uint8_t peer;    /* slot index, or ZM_ROUTE_LOCAL */
    uint32_t gen;    /* that slot's generation when the request came */
    uint32_t rid;    /* the request id on that peer, or the local get's id */
    uint32_t eid;    /* the queryable answering (the responder id of its replies) */
    uint8_t qos;     /* the request's, given to every response */
    bool any_key;    /* replies may have any key ("_anyke" in the parameters) */
    uint16_t key_len;
    const char *key; /* the query's key: replies must intersect it unless any_key */
} zm_query_route_t;

/** A query given to a queryable; everything borrows and is valid during the callback. */
typedef struct zm_query_in {
    const char *key;
    size_t key_len;
    zm_slice_t parameters;
    bool has_body;
    zm_slice_t payload;
    zm_encoding_t encoding;
    bool has_attachment;
    zm_slice_t attachment;
    bool has_source;
    zm_source_info_t source;
    zm_query_route_t route;
    struct zm_query_rec *rec;   /* set by the first zm_query_retain */
    struct zm_query_rec *ended; /* released during the callback: their ends go with this one's */
} zm_query_in_t;

typedef void (*zm_query_fn)(zm_query_in_t *query, void *ctx);

/**
 * What keeps a query open once its callback returned (zm_query_retain): its route and a copy of
 * its key. The final response goes when the last reference is released.
 */
typedef struct zm_query_rec zm_query_rec_t;

#define ZM_REPLY_OK 0
#define ZM_REPLY_ERR 1

/** A reply (a sample, or an error with payload and encoding); borrows, valid during the call. */
typedef struct {
    uint8_t kind; /* ZM_REPLY_* */
    zm_sample_t sample; /* OK: the sample; ERR: payload and encoding */
    bool has_replier;
    zm_zid_t replier_zid;
    uint32_t replier_eid;
} zm_reply_in_t;

typedef void (*zm_reply_fn)(const zm_reply_in_t *reply, void *ctx);

/** A reply to send: the sample parts of a put/delete, or an error (payload, encoding). */
typedef struct {
    uint8_t kind;       /* ZM_REPLY_OK or ZM_REPLY_ERR */
    zm_put_args_t put;  /* OK: key, kind, payload, encoding, attachment, timestamp, source, express */
} zm_reply_args_t;

/** How a get goes out. */
typedef struct {
    const char *key;
    size_t key_len;
    zm_slice_t parameters;
    bool has_body;
    zm_slice_t payload;
    zm_encoding_t encoding;
    const zm_slice_t *attachment; /* NULL: none */
    const zm_source_info_t *source;
    uint8_t target;        /* ZM_TARGET_* */
    uint8_t consolidation; /* ZM_CONSOLIDATION_*, AUTO resolved here */
    uint8_t priority;
    bool block;
    bool express;
    bool any_key;
    uint8_t destination; /* ZM_LOCALITY_* */
    uint64_t timeout_ms;
    struct zm_cancel *cancel; /* if not NULL: a zm_cancel_cancel of it ends the get */
} zm_get_args_t;

ZM_NODISCARD z_result_t zm_session_declare_queryable(zm_session_t *s, const char *key, size_t len, bool complete,
                                                     uint8_t origin, zm_query_fn fn, zm_drop_fn drop, void *ctx,
                                                     uint32_t *id);
ZM_NODISCARD z_result_t zm_session_undeclare_queryable(zm_session_t *s, uint32_t id);

/** Sends one reply to a query (its route), checking its key against the query's. */
ZM_NODISCARD z_result_t zm_session_reply(zm_session_t *s, const zm_query_route_t *route, const zm_reply_args_t *a);
/**
 * Keeps the query open after its callback returns; returns the record to release (one
 * reference each call), NULL when out of memory. Called from the callback only.
 */
zm_query_rec_t *zm_query_retain(zm_query_in_t *q);
/** Adds a reference to rec (an owned copy of the query); returns rec. */
zm_query_rec_t *zm_query_rec_ref(zm_query_rec_t *rec);
/** Drops a reference to rec that is known not to be the last (another holder outlives the call). */
void zm_query_rec_unref_not_last(zm_query_rec_t *rec);
const zm_query_route_t *zm_query_rec_route(const zm_query_rec_t *rec);
/** Drops one reference; the last sends the final response through s (NULL: s is gone). */
void zm_query_release(zm_session_t *s, zm_query_rec_t *rec);
/**
 * Drops one reference of another query's record from within q's callback: the last one's final
 * response goes when q's dispatch ends, on the stack that began it, rather than from the
 * callback's depth. rec must belong to q's session.
 */
void zm_query_release_during(zm_query_in_t *q, zm_query_rec_t *rec);

/** Whether a selector's parameters (name[=value] separated by ';' or '&') hold name. */
bool zm_params_have(zm_slice_t params, const char *name);

/**
 * Sends a get; fn(reply, ctx) runs for each reply, and drop(ctx) once when the get ends (final
 * responses from everyone asked, or timeout, or close, or its cancellation). On error drop has
 * not been called: Z_ERR_CANCELLED when a->cancel is cancelled already. *rid (if not NULL) gets
 * its request id.
 */
ZM_NODISCARD z_result_t zm_session_get(zm_session_t *s, const zm_get_args_t *a, zm_reply_fn fn, zm_drop_fn drop,
                                       void *ctx, uint32_t *rid);

/** Ends the get rid now, as its timeout would (nothing if it ended already). */
void zm_session_get_cancel(zm_session_t *s, uint32_t rid);

/*
 * A cancellation token: a counted record, given to gets (of any session) so that one cancel ends
 * them all. A get links itself into it when its session registers it and unlinks itself when it
 * ends, both under its session's lock, and the token's lock ranks below every session's. A
 * cancel ends the gets linked one at a time through their sessions (their callbacks may run on
 * the cancelling thread: LATEST's kept replies, the drop), and a session's close waits for the
 * cancels under way in it. Cancelling twice, or after the gets ended, does nothing more; a
 * cancel from inside a get's reply callback ends that get once the callback returns.
 */
typedef struct zm_cancel zm_cancel_t;
/** A new token (one reference), not cancelled; ZM_E_NOMEM. */
ZM_NODISCARD z_result_t zm_cancel_new(zm_cancel_t **out);
/** Adds a reference to t; returns t. */
zm_cancel_t *zm_cancel_ref(zm_cancel_t *t);
/** Drops a reference to t (NULL: nothing); the last frees it. */
void zm_cancel_unref(zm_cancel_t *t);
bool zm_cancel_is_cancelled(zm_cancel_t *t);
/** Ends every get linked to t; gets given t from now on are refused (Z_ERR_CANCELLED). */
void zm_cancel_cancel(zm_cancel_t *t);

/*
 * The admin space as zenoh-pico 1.9 has it: the session, its transport and its peers described
 * in JSON, each at its own key under @/<zid>/pico, which a queryable on zm_session_admin_key
 * serves (the API's, api/admin.c).
 */
#define ZM_ADMIN_KEY_MAX 112u /* the longest admin key, with its NUL */
/** Writes the admin space's key expression (@/<zid>/pico and all below it) into out; returns its length. */
size_t zm_session_admin_key(const zm_session_t *s, char out[ZM_ADMIN_KEY_MAX]);
/** One entry of the admin space: its key and its JSON, borrowed for the call. */
typedef void (*zm_admin_entry_fn)(const char *key, size_t key_len, const char *json, size_t json_len, void *ctx);
/** Gives fn each entry whose key intersects query, in zenoh-pico's order; ZM_E_NOMEM: none. */
ZM_NODISCARD z_result_t zm_session_admin_answer(zm_session_t *s, const char *query, size_t query_len,
                                                zm_admin_entry_fn fn, void *ctx);

/* ---- scouting ---------------------------------------------------------------------------------- */

/** Called with the HELLO of each node found (borrowed, valid during the call); true ends the scout. */
typedef bool (*zm_hello_fn)(const zm_hello_t *hello, void *ctx);

/**
 * Scouts the group of locator (`udp/224.0.0.224:7446[#iface=eth0]`) for nodes of the kinds in
 * what (ZM_WHAT_*) for timeout_ms, the SCOUTs carrying zid unless it is NULL; fn runs on the
 * calling thread for each node found, once per node. Blocks until then. Z_OK whether or not
 * anything answered; ZM_E_LOCATOR for a malformed locator, one that is not a multicast group or
 * names an unknown interface, ZM_E_UNSUPPORTED for what zmote cannot scout on, ZM_E_UNREACHABLE when
 * the group cannot be reached.
 */
ZM_NODISCARD z_result_t zm_scout_find(const char *locator, uint8_t what, const zm_zid_t *zid, uint32_t timeout_ms,
                                      zm_hello_fn fn, void *ctx);

/** A fresh HLC timestamp of this session (NTP64 time now, this session's zid). */
void zm_session_new_timestamp(zm_session_t *s, zm_timestamp_t *ts);

/* ---- liveliness ---------------------------------------------------------------------------------- */
/*
 * Tokens (alive while declared), liveliness subscribers (told when tokens appear and go) and
 * liveliness gets (the tokens alive now). Keys are full key expressions, copied where kept;
 * callbacks run as those of subscribers and gets do: without any session lock, on the thread that
 * received the news, or on the declaring thread for this session's own tokens.
 */

/** Declares a token on key (copied) to every peer, now and to those that come later. */
ZM_NODISCARD z_result_t zm_session_declare_token(zm_session_t *s, const char *key, size_t len, uint32_t *id);
/** Undeclares token id everywhere; Z_EINVAL when there is no such token. */
ZM_NODISCARD z_result_t zm_session_undeclare_token(zm_session_t *s, uint32_t id);

/**
 * A liveliness subscriber on key (copied): fn gets a PUT sample for each token that appears on
 * a key intersecting it, and a DELETE when it goes; with history, also for the tokens alive
 * when it is declared. drop(ctx) runs once when it ends (undeclared, or the session closed).
 */
ZM_NODISCARD z_result_t zm_session_declare_liveliness_subscriber(zm_session_t *s, const char *key, size_t len,
                                                                 bool history, zm_sample_fn fn, zm_drop_fn drop,
                                                                 void *ctx, uint32_t *id);
/** Ends a liveliness subscriber as zm_session_undeclare_subscriber ends a subscriber. */
ZM_NODISCARD z_result_t zm_session_undeclare_liveliness_subscriber(zm_session_t *s, uint32_t id);

/**
 * Asks every peer for the tokens alive on key: fn(reply, ctx) runs with an OK reply (a PUT
 * sample on the token's key) per token, drop(ctx) once when every peer asked has answered, at
 * timeout_ms, at close, when zm_session_get_cancel is given its id (*id), or when cancel (if not
 * NULL) is cancelled. On error drop has not run: Z_ERR_CANCELLED when cancel is cancelled already.
 */
ZM_NODISCARD z_result_t zm_session_liveliness_get(zm_session_t *s, const char *key, size_t len, uint64_t timeout_ms,
                                                  zm_reply_fn fn, zm_drop_fn drop, void *ctx, zm_cancel_t *cancel,
                                                  uint32_t *id);

#endif /* ZM_SESSION_H */
