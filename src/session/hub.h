/*
 * The hub: the one list of the features a build has, and the events it fans out to them. The
 * session core (peers, the entity table, a peer's declarations) knows no feature; each feature
 * keeps its own state and answers the events below; the lifecycles (open, close, the lease
 * step, a peer's arrival and end) and the messages that come in call the hub, never a feature's
 * event by name. Every fan-out is direct calls, made by ZM_FEATURES, so that the stack checker
 * follows every path. Adding a feature is its files and one line here.
 */
#ifndef ZM_SESSION_HUB_H
#define ZM_SESSION_HUB_H

#include "session/internal.h"

/*
 * The events, and what a feature that answers one defines (zm_<name>_<event>):
 * push     z_result_t (zm_session_t *s, zm_peer_t *p): its declarations to a new peer, batched;
 *          the first error ends the push (the peer is then dropped).
 * interest void (zm_peer_t *p, uint8_t options, const char *key, size_t len, zm_network_msg_t *m):
 *          its declarations of the kinds options asks (ZM_INTEREST_*) that intersect key (NULL:
 *          all), each sent in the DECLARE m, in answer to p's INTEREST.
 * declared bool (zm_peer_t *p, const zm_declare_t *dm, z_result_t *rc): a peer's declaration
 *          arrived: true when the feature took it (*rc its outcome; an error drops the peer),
 *          else it goes to the core (a peer's key expressions, subscribers, queryables).
 * gone     void (zm_session_t *s, zm_peer_t *p): p is gone (its reader joined), before the core
 *          forgets what it declared.
 * tick     void (zm_session_t *s, uint64_t now_ms): the lease step, every ZM_LEASE_STEP.
 * close    void (zm_session_t *s): the session ends: free everything (no peer is left).
 * changed  void (zm_session_t *s): subscribers or queryables, ours or a peer's, came or went.
 * sender   void (zm_session_t *s, zm_pub_t *pub, bool on): a publisher or querier of ours
 *          was declared (on) or goes.
 * peer_qbl void (zm_session_t *s, const zm_rdecl_t *d, int delta): s->lock held: a peer's
 *          queryable d was stored (delta 1) or forgotten (-1), for counts kept per declaration;
 *          nothing is sent and no callback runs (a `changed` follows, unlocked).
 * gets     the feature keeps the table of our gets, whose waits and ends liveliness gets share:
 *          it defines zm_<name>_token_get_open, _reply and _final (zm_hub_token_get_* below).
 *
 * ZM_FEATURES(X) calls X(name, push, interest, declared, gone, tick, close, changed, sender,
 * peer_qbl, gets) once per feature of the build, in the order the hub calls them; each event's
 * column is 1 when the feature answers it. A feature is on the list when the build has it (the
 * ZM_FEATURE_* below).
 */
#define ZM_FEATURE_KEYS(X) X(keys, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0)
#if ZM_SENDERS_KEPT
#define ZM_FEATURE_SENDERS(X) X(senders, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)
#else
#define ZM_FEATURE_SENDERS(X)
#endif
#if Z_FEATURE_MATCHING
#define ZM_FEATURE_MATCHING(X) X(matching, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0)
#else
#define ZM_FEATURE_MATCHING(X)
#endif
#if Z_FEATURE_SUBSCRIPTION
#define ZM_FEATURE_SUBSCRIBERS(X) X(subscribers, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0)
#else
#define ZM_FEATURE_SUBSCRIBERS(X)
#endif
#if Z_FEATURE_QUERYABLE
#define ZM_FEATURE_QUERYABLES(X) X(queryables, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0)
#else
#define ZM_FEATURE_QUERYABLES(X)
#endif
#if Z_FEATURE_LIVELINESS
#define ZM_FEATURE_LIVELINESS(X) X(liveliness, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
#else
#define ZM_FEATURE_LIVELINESS(X)
#endif
#if Z_FEATURE_CONNECTIVITY
#define ZM_FEATURE_CONNECTIVITY(X) X(connectivity, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
#else
#define ZM_FEATURE_CONNECTIVITY(X)
#endif
#if Z_FEATURE_QUERY
#define ZM_FEATURE_QUERIES(X) X(queries, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1)
#else
#define ZM_FEATURE_QUERIES(X)
#endif

/* The list: keys first (what the others' declarations may name), then matching's interests
 * before the declarations they ask about, as a new peer has always received them. */
#define ZM_FEATURES(X)                                                                                 \
    ZM_FEATURE_KEYS(X)                                                                                \
    ZM_FEATURE_SENDERS(X) ZM_FEATURE_MATCHING(X) ZM_FEATURE_SUBSCRIBERS(X) ZM_FEATURE_QUERYABLES(X) \
        ZM_FEATURE_LIVELINESS(X) ZM_FEATURE_QUERIES(X) ZM_FEATURE_CONNECTIVITY(X)

/* ZM_HUB_IF(col)(code): code where col is 1. */
#define ZM_HUB_IF(col) ZM_HUB_IF_##col
#define ZM_HUB_IF_1(...) __VA_ARGS__
#define ZM_HUB_IF_0(...)

/* Each feature's answers, declared from the list. */
#define ZM_HUB_DECLARE(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets)          \
    ZM_HUB_IF(push)(ZM_NODISCARD z_result_t zm_##name##_push(zm_session_t *s, zm_peer_t *p);)                 \
    ZM_HUB_IF(interest)(void zm_##name##_interest(zm_peer_t *p, uint8_t options, const char *key, size_t len, \
                                                  zm_network_msg_t *m);)                                      \
    ZM_HUB_IF(declared)(bool zm_##name##_declared(zm_peer_t *p, const zm_declare_t *dm, z_result_t *rc);)     \
    ZM_HUB_IF(gone)(void zm_##name##_gone(zm_session_t *s, zm_peer_t *p);)                                    \
    ZM_HUB_IF(tick)(void zm_##name##_tick(zm_session_t *s, uint64_t now_ms);)                                 \
    ZM_HUB_IF(close)(void zm_##name##_close(zm_session_t *s);)                                                \
    ZM_HUB_IF(changed)(void zm_##name##_changed(zm_session_t *s);)                                            \
    ZM_HUB_IF(sender)(void zm_##name##_sender(zm_session_t *s, zm_pub_t *pub, bool on);)                      \
    ZM_HUB_IF(peer_qbl)(void zm_##name##_peer_qbl(zm_session_t *s, const zm_rdecl_t *d, int delta);)          \
    ZM_HUB_IF(gets)(ZM_NODISCARD z_result_t zm_##name##_token_get_open(                                       \
                        zm_session_t *s, const char *key, size_t len, uint64_t timeout_ms, zm_reply_fn fn,     \
                        zm_drop_fn drop, void *ctx, bool (*ask)(const zm_peer_t *p), zm_pins_t *pinned,         \
                        zm_cancel_t *cancel, uint32_t *id);                                                   \
                    bool zm_##name##_token_get_reply(zm_session_t *s, uint32_t id, const zm_reply_in_t *r);    \
                    void zm_##name##_token_get_final(zm_session_t *s, uint32_t id, unsigned bit);)
ZM_FEATURES(ZM_HUB_DECLARE)

/* ---- the hub's events (hub.c) ------------------------------------------------------------------ */

/** Every feature's declarations to one new peer, then the D_FINAL of its initial interest. */
ZM_NODISCARD z_result_t zm_hub_push_all(zm_session_t *s, zm_peer_t *p);
/** Answers p's INTEREST: the current declarations it asks for, then D_FINAL. */
void zm_hub_on_interest(zm_peer_t *p, const zm_interest_t *it);
/** A DECLARE of p, to the feature that takes it, else to the core; an error drops p. */
void zm_hub_on_declare(zm_peer_t *p, const zm_declare_t *dm);
/** p is gone (its reader joined): the features, then the core, forget it. */
void zm_hub_peer_gone(zm_session_t *s, zm_peer_t *p);
/** The lease step's work of every feature. */
void zm_hub_tick(zm_session_t *s, uint64_t now_ms);
/** The session ends: every feature frees what it holds. */
void zm_hub_close(zm_session_t *s);

/*
 * Subscribers or queryables came or went: fired by whoever changed them, a feature included.
 * Inline, so that a feature that fires it does not call into the hub's own object (which calls
 * every feature): the event reaches its listeners directly.
 */
#define ZM_HUB_CHANGED(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(changed)(zm_##name##_changed(s);)
static inline void zm_hub_changed(zm_session_t *s)
{
    ZM_FEATURES(ZM_HUB_CHANGED)
    ZM_UNUSED(s);
}

/* A publisher or querier of ours was declared (on) or goes: inline, as zm_hub_changed. */
#define ZM_HUB_SENDER(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(sender)(zm_##name##_sender(s, pub, on);)
static inline void zm_hub_sender(zm_session_t *s, zm_pub_t *pub, bool on)
{
    ZM_FEATURES(ZM_HUB_SENDER)
    ZM_UNUSED(s);
    ZM_UNUSED(pub);
    ZM_UNUSED(on);
}

/* s->lock held: a peer's queryable was stored or forgotten: inline, as zm_hub_changed. */
#define ZM_HUB_PEER_QBL(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(peer_qbl)(zm_##name##_peer_qbl(s, d, delta);)
static inline void zm_hub_peer_qbl(zm_session_t *s, const zm_rdecl_t *d, int delta)
{
    ZM_FEATURES(ZM_HUB_PEER_QBL)
    ZM_UNUSED(s);
    ZM_UNUSED(d);
    ZM_UNUSED(delta);
}

#if ZM_LIVELINESS_GET
/*
 * A liveliness get is a get whose answers are tokens: its record waits and ends in the table of
 * gets, which the feature of column `gets` keeps. Inline, as zm_hub_changed.
 *
 * zm_hub_token_get_open registers one on key (copied) under a fresh interest id (*id): it waits
 * for every live peer ask picks (s->lock held), pinned into pinned (unpinned by the caller), and
 * for this session (ZM_GET_WAIT_LOCAL). From then on only its id names it: it may end on another
 * thread. It is linked to cancel (if not NULL) as it enters the table. ZM_E_LIMIT
 * when ZM_GETS_MAX gets wait already, ZM_E_NOMEM, Z_ERR_CANCELLED; drop has not run on error.
 */
#define ZM_HUB_TOKEN_GET_OPEN(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(gets)(return zm_##name##_token_get_open(s, key, len, timeout_ms, fn, drop, ctx, ask, pinned, cancel, \
                                                      id);)
static inline ZM_NODISCARD z_result_t zm_hub_token_get_open(zm_session_t *s, const char *key, size_t len,
                                                            uint64_t timeout_ms, zm_reply_fn fn, zm_drop_fn drop,
                                                            void *ctx, bool (*ask)(const zm_peer_t *p),
                                                            zm_pins_t *pinned, zm_cancel_t *cancel, uint32_t *id)
{
    ZM_FEATURES(ZM_HUB_TOKEN_GET_OPEN)
}

/* Gives r to the liveliness get of id; false when there is none (any more). */
#define ZM_HUB_TOKEN_GET_REPLY(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(gets)(return zm_##name##_token_get_reply(s, id, r);)
static inline bool zm_hub_token_get_reply(zm_session_t *s, uint32_t id, const zm_reply_in_t *r)
{
    ZM_FEATURES(ZM_HUB_TOKEN_GET_REPLY)
}

/* The liveliness get of id has all it waits for from bit (a peer slot, or ZM_GET_WAIT_LOCAL). */
#define ZM_HUB_TOKEN_GET_FINAL(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(gets)(zm_##name##_token_get_final(s, id, bit);)
static inline void zm_hub_token_get_final(zm_session_t *s, uint32_t id, unsigned bit)
{
    ZM_FEATURES(ZM_HUB_TOKEN_GET_FINAL)
}
#endif

#endif /* ZM_SESSION_HUB_H */
