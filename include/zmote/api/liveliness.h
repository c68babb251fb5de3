/**
 * @file
 * Liveliness of the Zenoh C API (zenoh-pico 1.9.0's names and signatures): tokens, liveliness
 * subscribers and liveliness gets (Z_FEATURE_LIVELINESS; subscribers also need
 * Z_FEATURE_SUBSCRIPTION, gets Z_FEATURE_QUERY).
 *
 * A token announces that its key expression is alive, to the whole network, for as long as it
 * is declared: until it is undeclared or dropped, its session closes, or its node is lost (its
 * link breaks or its lease expires). A liveliness subscriber is a z_owned_subscriber_t whose
 * callback gets a PUT sample (empty payload) on a token's key when the token appears and a
 * DELETE when it goes; with history it is also told of the tokens alive when it is declared.
 * A liveliness get asks for the tokens alive now: one OK reply per token (a PUT sample on its
 * key), through a z_owned_closure_reply_t exactly as z_get's replies, whose drop runs once when
 * everyone asked has answered, at the timeout, or when the session closes.
 *
 * A session's own tokens reach its own liveliness subscribers and gets, as in Rust Zenoh.
 * Callbacks run on the session's read task, or on the declaring thread for the session's own
 * tokens (in peer mode); the DELETEs of a lost node's tokens come from the thread that found it
 * gone (a read task, or the lease task for an expired lease; in single-thread builds the caller of
 * zp_read, zp_spin_once or zp_send_keep_alive).
 */
#ifndef ZMOTE_API_LIVELINESS_H
#define ZMOTE_API_LIVELINESS_H

#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A liveliness token: the inner object of z_owned_liveliness_token_t. */
typedef struct {
    struct zm_api_session *session; /**< counted reference; NULL: a null token */
    uint32_t id;                    /**< its entity id */
} zm_api_liveliness_token_t;

ZM_OWNED_TYPE(zm_api_liveliness_token_t, liveliness_token)
/* Its drop undeclares it (see z_liveliness_undeclare_token). */
ZM_OWNED_FUNCTIONS_BASE(liveliness_token)

#if Z_FEATURE_LIVELINESS == 1

/* ---- tokens ------------------------------------------------------------------------------------- */

/** Options of z_liveliness_declare_token (z_liveliness_token_options_default): none yet. */
typedef struct {
    uint8_t reserved; /**< no option yet */
} z_liveliness_token_options_t;

/** Fills options with the defaults (there are none to choose yet). Z_EINVAL for NULL. */
z_result_t z_liveliness_token_options_default(z_liveliness_token_options_t *options);

/**
 * Declares a token on keyexpr (borrowed) and returns it owned in *token (null on failure); options
 * may be NULL. Blocks while the declaration is sent (BLOCK); this session's liveliness subscribers
 * are told within this call. Allocates a small record per token. Errors: Z_EINVAL (NULL token,
 * empty key expression), ZM_E_KEYEXPR (not a valid key expression), ZM_E_NOMEM, Z_ENULL (NULL
 * session), Z_ESESSION_CLOSED.
 */
z_result_t z_liveliness_declare_token(const z_loaned_session_t *zs, z_owned_liveliness_token_t *token,
                                      const z_loaned_keyexpr_t *keyexpr, const z_liveliness_token_options_t *options);

/**
 * Undeclares the token (takes it): liveliness subscribers get a DELETE. Sends as its declaration
 * did. Errors: Z_ENULL for a NULL or null token; Z_OK also when its session is closed.
 */
z_result_t z_liveliness_undeclare_token(z_moved_liveliness_token_t *token);

#if Z_FEATURE_SUBSCRIPTION == 1
/* ---- liveliness subscribers --------------------------------------------------------------------- */

/** Options of z_liveliness_declare_subscriber (z_liveliness_subscriber_options_default). */
typedef struct {
    bool history; /**< also deliver the tokens alive when the subscriber is declared; default false */
} z_liveliness_subscriber_options_t;

/** Fills options with the defaults: no history. Z_EINVAL for NULL. */
z_result_t z_liveliness_subscriber_options_default(z_liveliness_subscriber_options_t *options);

/**
 * Declares a liveliness subscriber on keyexpr and returns it owned in *sub (null on failure),
 * to undeclare or drop as any subscriber (z_undeclare_subscriber()). Borrows keyexpr; options may
 * be NULL (the defaults). Takes callback: its call runs for each token that appears (PUT) or goes
 * (DELETE) on a key intersecting keyexpr, on the threads the file comment names (with history,
 * the tokens already known here are delivered within this call, on the calling thread); its drop
 * once at the end (and when this fails). Blocks while its interest is sent (BLOCK). Errors:
 * Z_EINVAL (NULL sub or callback, NULL call, empty key expression), ZM_E_KEYEXPR, ZM_E_NOMEM,
 * Z_ENULL (NULL session), Z_ESESSION_CLOSED.
 */
z_result_t z_liveliness_declare_subscriber(const z_loaned_session_t *zs, z_owned_subscriber_t *sub,
                                           const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                           z_liveliness_subscriber_options_t *options);

/** Like z_liveliness_declare_subscriber() for a subscriber that lives until the session closes. */
z_result_t z_liveliness_declare_background_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                                      z_moved_closure_sample_t *callback,
                                                      z_liveliness_subscriber_options_t *options);
#endif

#if Z_FEATURE_QUERY == 1
/* ---- liveliness gets ---------------------------------------------------------------------------- */

/** Options of z_liveliness_get (z_liveliness_get_options_default). */
typedef struct {
    uint64_t timeout_ms; /**< 0: Z_GET_TIMEOUT_DEFAULT */
#ifdef Z_FEATURE_UNSTABLE_API
    z_moved_cancellation_token_t *cancellation_token; /**< taken; cancelling it ends the get at once */
#endif
} z_liveliness_get_options_t;

/**
 * Fills options with the defaults: timeout 0 (Z_GET_TIMEOUT_DEFAULT), no cancellation token.
 * Z_EINVAL for NULL.
 */
z_result_t z_liveliness_get_options_default(z_liveliness_get_options_t *options);

/**
 * Asks for the tokens alive on keys intersecting keyexpr: every router or peer is asked, and
 * this session's own tokens answer too (within this call, on the calling thread). Borrows keyexpr;
 * takes callback (its drop runs when the get ends, and also when this call fails) and the
 * cancellation token of options, on every path; options may be NULL. Blocks while the requests are
 * sent (BLOCK). Once a router or peer is asked, the end never comes within this call.
 * Errors: Z_EINVAL (NULL callback or call, empty key expression), ZM_E_KEYEXPR, ZM_E_LIMIT
 * (ZM_GETS_MAX gets are already waiting), ZM_E_NOMEM, Z_ERR_CANCELLED (the token was cancelled
 * already), Z_ENULL (NULL session), Z_ESESSION_CLOSED.
 */
z_result_t z_liveliness_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                            z_moved_closure_reply_t *callback, z_liveliness_get_options_t *options);
#endif

#endif /* Z_FEATURE_LIVELINESS == 1 */

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_LIVELINESS_H */
