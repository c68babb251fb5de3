/*
 * Liveliness in the session: tokens (alive while declared), liveliness subscribers (told when
 * tokens appear and go) and liveliness gets (the tokens alive now). Keys are full key
 * expressions, copied where kept; callbacks run as those of subscribers and gets do
 * (session.h): without any session lock, on the thread that received the news, or on the
 * declaring thread for this session's own tokens.
 */
#ifndef ZM_SESSION_LIVELINESS_H
#define ZM_SESSION_LIVELINESS_H

#include "session/session.h"

#if Z_FEATURE_LIVELINESS

/** Declares a token on key (copied) to every peer, now and to those that come later. */
ZM_NODISCARD z_result_t zm_session_declare_token(zm_session_t *s, const char *key, size_t len, uint32_t *id);
/** Undeclares token id everywhere; Z_EINVAL when there is no such token. */
ZM_NODISCARD z_result_t zm_session_undeclare_token(zm_session_t *s, uint32_t id);

#if Z_FEATURE_SUBSCRIPTION
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
#endif

#if Z_FEATURE_QUERY
/**
 * Asks every peer for the tokens alive on key: fn(reply, ctx) runs with an OK reply (a PUT
 * sample on the token's key) per token, drop(ctx) once when every peer asked has answered, at
 * timeout_ms, at close, or when zm_session_get_cancel is given its id. The id goes to *id_shared
 * (if not NULL) before any reply or end can come, and to *id. On error drop has not run.
 */
ZM_NODISCARD z_result_t zm_session_liveliness_get(zm_session_t *s, const char *key, size_t len, uint64_t timeout_ms,
                                                  zm_reply_fn fn, zm_drop_fn drop, void *ctx,
                                                  _Atomic(uint32_t) *id_shared, uint32_t *id);
#endif

#endif /* Z_FEATURE_LIVELINESS */

#endif /* ZM_SESSION_LIVELINESS_H */
