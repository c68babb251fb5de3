/**
 * @file
 * Queries of the Zenoh C API: gets and queriers (Z_FEATURE_QUERY), queryables and their replies
 * (Z_FEATURE_QUERYABLE), and the query and reply objects they exchange.
 *
 * Life of a get: every reply runs the callback (on the thread that received it, or on the
 * replying thread for a queryable of this session: see the threads of zmote/api/primitives.h),
 * and the callback's drop runs exactly once
 * when the get ends: when everyone asked has sent its final response, when timeout_ms passes,
 * or when the session closes. Consolidation (latest by default) holds back the replies it
 * replaces; latest hands its replies over when the get ends. When a router or peer was asked,
 * the end never comes within z_get itself (a program may hold, around z_get, a lock its drop
 * takes); it does when only this session's queryables, or nobody, could be asked. The drop of a
 * get that times out runs on the session's lease task (in single-thread builds, within zp_read,
 * zp_spin_once or zp_send_keep_alive); of a get whose token is cancelled, on the cancelling
 * thread; at close, on the thread closing the session.
 *
 * Life of a query: the queryable's callback receives a query that borrows the received message.
 * Replying inside the callback needs nothing more; z_query_clone keeps an owned query that can
 * be replied to later, from any thread. The querier learns the end (the final response) once
 * the callback has returned and every owned copy is dropped.
 */
#ifndef ZMOTE_API_QUERY_H
#define ZMOTE_API_QUERY_H

#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

ZM_OWNED_FUNCTIONS(query)
ZM_OWNED_FUNCTIONS(reply)
ZM_OWNED_FUNCTIONS(reply_err)
ZM_OWNED_FUNCTIONS_BASE(queryable)
ZM_OWNED_FUNCTIONS_BASE(querier)
ZM_CLOSURE_FUNCTIONS(closure_query)
ZM_CLOSURE_FUNCTIONS(closure_reply)

/* ---- closures ---------------------------------------------------------------------------------- */

/**
 * Makes an owned closure of queries, as z_closure_sample() does (a NULL call is refused by the
 * functions the closure is given to). The call runs for each query on the thread that received it,
 * or within z_get() for the session's own gets. Z_EINVAL only for a NULL closure.
 */
z_result_t z_closure_query(z_owned_closure_query_t *closure, z_closure_query_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
/** Calls the closure on query, on the calling thread (no-op for a NULL or null closure). */
void z_closure_query_call(const z_loaned_closure_query_t *closure, z_loaned_query_t *query);
/**
 * Makes an owned closure of replies, as z_closure_sample() does (a NULL call is refused by the
 * functions the closure is given to); see the life of a get above for where call and drop run.
 * Z_EINVAL only for a NULL closure.
 */
z_result_t z_closure_reply(z_owned_closure_reply_t *closure, z_closure_reply_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
/** Calls the closure on reply, on the calling thread (no-op for a NULL or null closure). */
void z_closure_reply_call(const z_loaned_closure_reply_t *closure, z_loaned_reply_t *reply);

/* ---- options and their defaults ------------------------------------------------------------------ */

/** Returns Z_QUERY_TARGET_BEST_MATCHING. */
z_query_target_t z_query_target_default(void);
/** Returns Z_REPLY_KEYEXPR_MATCHING_QUERY. */
z_reply_keyexpr_t z_reply_keyexpr_default(void);
/** Latest, unless the parameters ask for a time range ("_time"): then none. */
z_query_consolidation_t z_query_consolidation_auto(void);
/** Returns AUTO consolidation (see z_query_consolidation_auto()). */
z_query_consolidation_t z_query_consolidation_default(void);
/** Returns LATEST consolidation: the newest reply per key, handed over when the get ends. */
z_query_consolidation_t z_query_consolidation_latest(void);
/** Returns MONOTONIC consolidation: a reply only when newer than the last one on its key. */
z_query_consolidation_t z_query_consolidation_monotonic(void);
/** Returns NONE: every reply as it comes. */
z_query_consolidation_t z_query_consolidation_none(void);

#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
/* ---- cancellation tokens (unstable) ------------------------------------------------------------ */

ZM_OWNED_FUNCTIONS_RC(cancellation_token)
/**
 * Returns owned in *dst a clone of the token (the same token: cancelling one cancels both).
 * Z_EINVAL for a NULL argument or a dropped token.
 */
z_result_t z_cancellation_token_clone(z_owned_cancellation_token_t *dst, const z_loaned_cancellation_token_t *src);
/**
 * Returns owned in *cancellation_token a new token, not cancelled. Errors: Z_EINVAL (NULL
 * argument), ZM_E_NOMEM.
 */
z_result_t z_cancellation_token_new(z_owned_cancellation_token_t *cancellation_token);
/**
 * Cancels the token: every get given it and still waiting ends now (its closure's drop runs, on
 * the calling thread, as at a timeout), and a get given it later fails with Z_ERR_CANCELLED.
 * Idempotent. Z_EINVAL for a NULL or dropped token.
 */
z_result_t z_cancellation_token_cancel(z_loaned_cancellation_token_t *cancellation_token);
/** True once the token was cancelled (false for a NULL or dropped token). */
bool z_cancellation_token_is_cancelled(const z_loaned_cancellation_token_t *cancellation_token);
#endif

#if Z_FEATURE_QUERY == 1
/* ---- gets -------------------------------------------------------------------------------------- */

/**
 * Fills options with the defaults: best matching target, AUTO consolidation, BLOCK, priority
 * DATA, queryables anywhere, 10 s timeout (Z_GET_TIMEOUT_DEFAULT), no payload, replies on matching
 * keys.
 */
void z_get_options_default(z_get_options_t *options);

/**
 * Sends a query for keyexpr with parameters (a NUL-terminated string, or NULL) to every router or
 * peer, and to this session's queryables (their callbacks run within this call, on the calling
 * thread). Borrows keyexpr and parameters; takes callback (its drop runs when the get ends, and
 * also when this call fails) and the payload, encoding, attachment and cancellation token of
 * options, on every path; options may be NULL (the defaults). Blocks while the query is sent (BLOCK
 * by default: up to ZM_TX_BLOCK_TIMEOUT_MS per router or peer); the replies come later (see the
 * life of a get above). Allocates the get's record and the closure's; a reply allocates nothing
 * (LATEST consolidation: one block per key kept).
 * Errors: Z_EINVAL (NULL callback or call, empty key expression, NULL parameters with a length,
 * a target, consolidation, priority or locality out of range), ZM_E_KEYEXPR (not a valid key
 * expression), ZM_E_LIMIT (ZM_GETS_MAX gets are already waiting), ZM_E_NOMEM, Z_ERR_CANCELLED (the
 * token was cancelled already), Z_ENULL (NULL session), Z_ESESSION_CLOSED.
 */
z_result_t z_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr, const char *parameters,
                 z_moved_closure_reply_t *callback, z_get_options_t *options);
/** z_get() with parameters of parameters_len bytes (not NUL-terminated; NULL only with 0). */
z_result_t z_get_with_parameters_substr(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                        const char *parameters, size_t parameters_len,
                                        z_moved_closure_reply_t *callback, z_get_options_t *options);

/* ---- queriers ---------------------------------------------------------------------------------- */

/** Fills options with the defaults of z_get_options_default() (no encoding). */
void z_querier_options_default(z_querier_options_t *options);
/** Fills options with the defaults: no payload, the querier's encoding, no attachment. */
void z_querier_get_options_default(z_querier_get_options_t *options);
/**
 * Declares a querier on keyexpr, returned owned in *querier (null on failure): gets that share its
 * key expression (declared once, as a publisher's is) and options. Borrows keyexpr; takes
 * options->encoding on every path; options may be NULL (the defaults). Blocks while the
 * declaration is sent (BLOCK; with Z_FEATURE_MATCHING a client also sends its router an INTEREST
 * in the key's queryables). Errors: Z_EINVAL (NULL querier, NULL or dropped session, empty key
 * expression, a target out of range), ZM_E_KEYEXPR, ZM_E_NO_SPACE (key ids used up), ZM_E_NOMEM,
 * Z_ESESSION_CLOSED.
 */
z_result_t z_declare_querier(const z_loaned_session_t *zs, z_owned_querier_t *querier,
                             const z_loaned_keyexpr_t *keyexpr, z_querier_options_t *options);
/**
 * Undeclares the querier and drops it (takes querier): its matching listeners end (their drops run
 * on the calling thread); gets it started go on to their end. Errors: Z_ENULL for a NULL or null
 * querier; Z_OK also when its session is closed.
 */
z_result_t z_undeclare_querier(z_moved_querier_t *querier);
/**
 * A get on the querier's key expression, with its options; as z_get() otherwise (ownership,
 * threads, blocking). The options' encoding replaces the querier's. Errors: Z_EINVAL (NULL, null or
 * dropped querier, NULL callback or call, NULL parameters with a length), and those of z_get().
 */
z_result_t z_querier_get(const z_loaned_querier_t *querier, const char *parameters, z_moved_closure_reply_t *callback,
                         z_querier_get_options_t *options);
/** z_querier_get() with parameters of parameters_len bytes (not NUL-terminated; NULL only with 0). */
z_result_t z_querier_get_with_parameters_substr(const z_loaned_querier_t *querier, const char *parameters,
                                                size_t parameters_len, z_moved_closure_reply_t *callback,
                                                z_querier_get_options_t *options);
/** The querier's key expression (aliased; NULL for a NULL querier). */
const z_loaned_keyexpr_t *z_querier_keyexpr(const z_loaned_querier_t *querier);
/** The querier's global id (all zero when NULL, dropped or its session closed). */
z_entity_global_id_t z_querier_id(const z_loaned_querier_t *querier);
#if Z_FEATURE_MATCHING == 1
/**
 * Sets *matching_status to whether a queryable answers the querier's key now: a remote one, or
 * one of this session as the querier's destination allows; for target ALL_COMPLETE only a
 * complete one that covers the key counts. Reads kept counts and the peers' declarations, no wait
 * on the network. Errors as z_publisher_get_matching_status().
 */
z_result_t z_querier_get_matching_status(const z_loaned_querier_t *querier, z_matching_status_t *matching_status);
/** As z_publisher_declare_matching_listener(), for a querier and the queryables that match it. */
z_result_t z_querier_declare_matching_listener(const z_loaned_querier_t *querier,
                                               z_owned_matching_listener_t *matching_listener,
                                               z_moved_closure_matching_status_t *callback);
/** Like z_querier_declare_matching_listener() for a listener that lives as long as its querier. */
z_result_t z_querier_declare_background_matching_listener(const z_loaned_querier_t *querier,
                                                          z_moved_closure_matching_status_t *callback);
#endif

/* ---- replies ----------------------------------------------------------------------------------- */

/** True when the reply carries a sample (false for an error reply or NULL). */
bool z_reply_is_ok(const z_loaned_reply_t *reply);
/** The sample of an OK reply (aliased; an empty sample for an error reply, NULL for NULL). */
const z_loaned_sample_t *z_reply_ok(const z_loaned_reply_t *reply);
/** The error of an error reply (aliased; empty for an OK one, NULL for NULL). */
const z_loaned_reply_err_t *z_reply_err(const z_loaned_reply_t *reply);
/**
 * Sets *out_id (unless NULL) to the id of the queryable that replied and returns true; false when
 * the reply did not say.
 */
bool z_reply_replier_id(const z_loaned_reply_t *reply, z_entity_global_id_t *out_id);
/** The error's payload (aliased; NULL for NULL). */
const z_loaned_bytes_t *z_reply_err_payload(const z_loaned_reply_err_t *reply_err);
/** The error's encoding (aliased; NULL for NULL). */
const z_loaned_encoding_t *z_reply_err_encoding(const z_loaned_reply_err_t *reply_err);
#endif

#if Z_FEATURE_QUERYABLE == 1
/* ---- queryables -------------------------------------------------------------------------------- */

/** Fills options with the defaults: not complete, queries from anywhere. */
void z_queryable_options_default(z_queryable_options_t *options);
/**
 * Declares a queryable on keyexpr, returned owned in *queryable (null on failure); keyexpr is
 * borrowed (a copy is kept), options may be NULL. Takes callback: its call runs for every query
 * that reaches it, on the thread that received the query (@ref api_threads "Threads"), or within
 * z_get() on the calling thread for this session's own gets; its drop once at the end (undeclared,
 * dropped, session closed) and when this fails. Blocks while the declaration is sent (BLOCK).
 * Allocates a small record per queryable, nothing per query.
 * Errors: Z_EINVAL (NULL queryable or callback, NULL call, empty key expression, a locality out of
 * range, NULL or dropped session), ZM_E_KEYEXPR, ZM_E_NOMEM, Z_ESESSION_CLOSED.
 */
z_result_t z_declare_queryable(const z_loaned_session_t *zs, z_owned_queryable_t *queryable,
                               const z_loaned_keyexpr_t *keyexpr, z_moved_closure_query_t *callback,
                               const z_queryable_options_t *options);
/** Like z_declare_queryable() for a queryable that lives until the session closes. */
z_result_t z_declare_background_queryable(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                          z_moved_closure_query_t *callback, const z_queryable_options_t *options);
/**
 * Undeclares the queryable and drops it (takes it); when it returns its callback runs no more and
 * its drop has run, as z_undeclare_subscriber() waits. Queries it kept (z_query_clone()) stay
 * valid. Errors: Z_ENULL for a NULL or null queryable; Z_OK also when its session is closed.
 */
z_result_t z_undeclare_queryable(z_moved_queryable_t *queryable);
/** The queryable's global id (all zero when NULL, dropped or its session closed). */
z_entity_global_id_t z_queryable_id(const z_loaned_queryable_t *queryable);
/**
 * The queryable's key expression (aliased; empty if memory ran out when it was declared; NULL for
 * NULL).
 */
const z_loaned_keyexpr_t *z_queryable_keyexpr(const z_loaned_queryable_t *queryable);

/* ---- queries ----------------------------------------------------------------------------------- */

/** The query's key expression (aliased; NULL for NULL). */
const z_loaned_keyexpr_t *z_query_keyexpr(const z_loaned_query_t *query);
/** Makes parameters a view of the query's parameters (aliased; empty when none). */
void z_query_parameters(const z_loaned_query_t *query, z_view_string_t *parameters);
/** The payload sent with the query (aliased; empty when none; NULL for NULL). */
const z_loaned_bytes_t *z_query_payload(const z_loaned_query_t *query);
/** The encoding of the query's payload (aliased; NULL for NULL). */
const z_loaned_encoding_t *z_query_encoding(const z_loaned_query_t *query);
/** The query's attachment (aliased; empty when none; NULL for NULL). */
const z_loaned_bytes_t *z_query_attachment(const z_loaned_query_t *query);
/** The querier's source info; NULL when the query carried none. */
const z_source_info_t *z_query_source_info(const z_loaned_query_t *query);
/** Z_REPLY_KEYEXPR_ANY when the querier accepts replies on any key. */
z_reply_keyexpr_t z_query_accepts_replies(const z_loaned_query_t *query);

/** Fills options with the defaults: no encoding, no timestamp, not express, no attachment. */
void z_query_reply_options_default(z_query_reply_options_t *options);
/** Fills options with the defaults: no timestamp, not express, no attachment. */
void z_query_reply_del_options_default(z_query_reply_del_options_t *options);
/** Fills options with the defaults: no encoding. */
void z_query_reply_err_options_default(z_query_reply_err_options_t *options);
/**
 * Replies payload on keyexpr, which must intersect the query's key expression unless the querier
 * accepts any key. Takes payload and the options' encoding and attachment, on every path; borrows
 * query, keyexpr and options (NULL: the defaults). May be called within the queryable's callback,
 * or later from any thread on an owned query (z_query_clone()). A reply to this session's own get
 * runs that get's reply callback on the calling thread, within this call. Blocks while the reply
 * is sent (BLOCK).
 * Errors: Z_EINVAL (a NULL, null or dropped query, an empty key expression, a NULL payload),
 * ZM_E_KEYEXPR (keyexpr invalid, or outside the query's), ZM_E_CLOSED (the querier's router or peer
 * is gone), Z_ESESSION_CLOSED, and the @ref api_send_errors "send errors".
 */
z_result_t z_query_reply(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr, z_moved_bytes_t *payload,
                         const z_query_reply_options_t *options);
/** Replies a deletion of keyexpr; as z_query_reply() otherwise (takes the options' attachment). */
z_result_t z_query_reply_del(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr,
                             const z_query_reply_del_options_t *options);
/**
 * Replies an error carrying payload; takes payload and the options' encoding, on every path. As
 * z_query_reply() otherwise (Z_EINVAL for a NULL payload).
 */
z_result_t z_query_reply_err(const z_loaned_query_t *query, z_moved_bytes_t *payload,
                             const z_query_reply_err_options_t *options);
#endif

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_QUERY_H */
