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
 * tokens (in peer mode).
 */
#ifndef ZMOTE_API_LIVELINESS_H
#define ZMOTE_API_LIVELINESS_H

#include "zmote/api/primitives.h"

/** A liveliness token: the inner object of z_owned_liveliness_token_t. */
typedef struct {
    struct zm_api_session *session; /* counted reference; NULL: a null token */
    uint32_t id;
} zm_api_liveliness_token_t;

ZM_OWNED_TYPE(zm_api_liveliness_token_t, liveliness_token)
/* Its drop undeclares it (see z_liveliness_undeclare_token). */
ZM_OWNED_FUNCTIONS_BASE(liveliness_token)

#if Z_FEATURE_LIVELINESS == 1

/* ---- tokens ------------------------------------------------------------------------------------- */

typedef struct {
    uint8_t reserved;
} z_liveliness_token_options_t;

/** Fills options with the defaults (there are none to choose yet). */
z_result_t z_liveliness_token_options_default(z_liveliness_token_options_t *options);

/**
 * Declares a token on keyexpr (borrowed) and returns it owned in *token (null on failure).
 * Blocks while the declaration is written. Allocates a small record per token.
 */
z_result_t z_liveliness_declare_token(const z_loaned_session_t *zs, z_owned_liveliness_token_t *token,
                                      const z_loaned_keyexpr_t *keyexpr, const z_liveliness_token_options_t *options);

/** Undeclares the token (takes it): liveliness subscribers get a DELETE. Z_ENULL for a null token. */
z_result_t z_liveliness_undeclare_token(z_moved_liveliness_token_t *token);

#if Z_FEATURE_SUBSCRIPTION == 1
/* ---- liveliness subscribers --------------------------------------------------------------------- */

typedef struct {
    bool history; /* also deliver the tokens alive when the subscriber is declared */
} z_liveliness_subscriber_options_t;

/** Fills options with the defaults: no history. */
z_result_t z_liveliness_subscriber_options_default(z_liveliness_subscriber_options_t *options);

/**
 * Declares a liveliness subscriber on keyexpr and returns it owned in *sub (null on failure),
 * to undeclare or drop as any subscriber. Takes callback: its call runs for each token that
 * appears (PUT) or goes (DELETE) on a key intersecting keyexpr, its drop once at the end (and
 * when this fails). options may be NULL (the defaults).
 */
z_result_t z_liveliness_declare_subscriber(const z_loaned_session_t *zs, z_owned_subscriber_t *sub,
                                           const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                           z_liveliness_subscriber_options_t *options);

/** Like z_liveliness_declare_subscriber for a subscriber that lives until the session closes. */
z_result_t z_liveliness_declare_background_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                                      z_moved_closure_sample_t *callback,
                                                      z_liveliness_subscriber_options_t *options);
#endif

#if Z_FEATURE_QUERY == 1
/* ---- liveliness gets ---------------------------------------------------------------------------- */

typedef struct {
    uint64_t timeout_ms; /* 0: Z_GET_TIMEOUT_DEFAULT */
#ifdef Z_FEATURE_UNSTABLE_API
    z_moved_cancellation_token_t *cancellation_token; /* taken; cancelling it ends the get at once */
#endif
} z_liveliness_get_options_t;

/** Fills options with the defaults: timeout 0 (Z_GET_TIMEOUT_DEFAULT), no cancellation token. */
z_result_t z_liveliness_get_options_default(z_liveliness_get_options_t *options);

/**
 * Asks for the tokens alive on keys intersecting keyexpr: every router or peer is asked, and
 * this session's own tokens answer too. Takes callback (its drop runs when the get ends, and
 * also when this call fails) and the cancellation token of options. options may be NULL.
 * Z_EINVAL for bad arguments, ZM_E_LIMIT when ZM_GETS_MAX gets are already waiting,
 * Z_ERR_CANCELLED when the token was cancelled already. Once a router or peer is asked, the end
 * never comes within this call.
 */
z_result_t z_liveliness_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                            z_moved_closure_reply_t *callback, z_liveliness_get_options_t *options);
#endif

#endif /* Z_FEATURE_LIVELINESS == 1 */

#endif /* ZMOTE_API_LIVELINESS_H */
