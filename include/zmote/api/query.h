/**
 * @file
 * Queries of the Zenoh C API: gets and queriers (Z_FEATURE_QUERY), queryables and their replies
 * (Z_FEATURE_QUERYABLE), and the query and reply objects they exchange.
 *
 * Life of a get: every reply runs the callback (on the thread that received it, or on the
 * replying thread for a queryable of this session), and the callback's drop runs exactly once
 * when the get ends: when everyone asked has sent its final response, when timeout_ms passes,
 * or when the session closes. Consolidation (latest by default) holds back the replies it
 * replaces; latest hands its replies over when the get ends. When a router or peer was asked,
 * the end never comes within z_get itself (a program may hold, around z_get, a lock its drop
 * takes); it does when only this session's queryables, or nobody, could be asked.
 *
 * Life of a query: the queryable's callback receives a query that borrows the received message.
 * Replying inside the callback needs nothing more; z_query_clone keeps an owned query that can
 * be replied to later, from any thread. The querier learns the end (the final response) once
 * the callback has returned and every owned copy is dropped.
 */
#ifndef ZMOTE_API_QUERY_H
#define ZMOTE_API_QUERY_H

#include "zmote/api/primitives.h"

ZM_OWNED_FUNCTIONS(query)
ZM_OWNED_FUNCTIONS(reply)
ZM_OWNED_FUNCTIONS(reply_err)
ZM_OWNED_FUNCTIONS_BASE(queryable)
ZM_OWNED_FUNCTIONS_BASE(querier)
ZM_CLOSURE_FUNCTIONS(closure_query)
ZM_CLOSURE_FUNCTIONS(closure_reply)

/* ---- closures ---------------------------------------------------------------------------------- */

/** Fills an owned closure of queries (call must not be NULL); Z_EINVAL otherwise. */
z_result_t z_closure_query(z_owned_closure_query_t *closure, z_closure_query_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
void z_closure_query_call(const z_loaned_closure_query_t *closure, z_loaned_query_t *query);
/** Fills an owned closure of replies (call must not be NULL); Z_EINVAL otherwise. */
z_result_t z_closure_reply(z_owned_closure_reply_t *closure, z_closure_reply_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
void z_closure_reply_call(const z_loaned_closure_reply_t *closure, z_loaned_reply_t *reply);

/* ---- options and their defaults ------------------------------------------------------------------ */

z_query_target_t z_query_target_default(void);
z_reply_keyexpr_t z_reply_keyexpr_default(void);
/** Latest, unless the parameters ask for a time range ("_time"): then none. */
z_query_consolidation_t z_query_consolidation_auto(void);
z_query_consolidation_t z_query_consolidation_default(void);
z_query_consolidation_t z_query_consolidation_latest(void);
z_query_consolidation_t z_query_consolidation_monotonic(void);
z_query_consolidation_t z_query_consolidation_none(void);

#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
/* ---- cancellation tokens (unstable) ------------------------------------------------------------ */

ZM_OWNED_FUNCTIONS_RC(cancellation_token)
/** Returns a clone of the token (the same token: cancelling one cancels both). */
z_result_t z_cancellation_token_clone(z_owned_cancellation_token_t *dst, const z_loaned_cancellation_token_t *src);
/** A new token, not cancelled; ZM_E_NOMEM. */
z_result_t z_cancellation_token_new(z_owned_cancellation_token_t *cancellation_token);
/**
 * Cancels the token: every get given it and still waiting ends now (its closure's drop runs,
 * as at a timeout), and a get given it later fails with Z_ERR_CANCELLED. Idempotent.
 */
z_result_t z_cancellation_token_cancel(z_loaned_cancellation_token_t *cancellation_token);
bool z_cancellation_token_is_cancelled(const z_loaned_cancellation_token_t *cancellation_token);
#endif

#if Z_FEATURE_QUERY == 1
/* ---- gets -------------------------------------------------------------------------------------- */

/** Fills options with the defaults: best matching target, auto consolidation, 10 s timeout. */
void z_get_options_default(z_get_options_t *options);

/**
 * Sends a query for keyexpr with parameters (a NUL-terminated string, or NULL) to every
 * router or peer, and to this session's queryables. Takes callback (its drop runs when the get
 * ends, and also when this call fails) and the payload, encoding and attachment of options.
 * Z_EINVAL for bad arguments, ZM_E_LIMIT when ZM_GETS_MAX gets are already waiting.
 */
z_result_t z_get(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr, const char *parameters,
                 z_moved_closure_reply_t *callback, z_get_options_t *options);
/** z_get with parameters of parameters_len bytes (not NUL-terminated). */
z_result_t z_get_with_parameters_substr(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                        const char *parameters, size_t parameters_len,
                                        z_moved_closure_reply_t *callback, z_get_options_t *options);

/* ---- queriers ---------------------------------------------------------------------------------- */

void z_querier_options_default(z_querier_options_t *options);
void z_querier_get_options_default(z_querier_get_options_t *options);
/** Declares a querier on keyexpr, returned owned in *querier: gets that share its options. */
z_result_t z_declare_querier(const z_loaned_session_t *zs, z_owned_querier_t *querier,
                             const z_loaned_keyexpr_t *keyexpr, z_querier_options_t *options);
z_result_t z_undeclare_querier(z_moved_querier_t *querier);
/** A get on the querier's key expression, with its options; as z_get otherwise. */
z_result_t z_querier_get(const z_loaned_querier_t *querier, const char *parameters, z_moved_closure_reply_t *callback,
                         z_querier_get_options_t *options);
z_result_t z_querier_get_with_parameters_substr(const z_loaned_querier_t *querier, const char *parameters,
                                                size_t parameters_len, z_moved_closure_reply_t *callback,
                                                z_querier_get_options_t *options);
const z_loaned_keyexpr_t *z_querier_keyexpr(const z_loaned_querier_t *querier);
z_entity_global_id_t z_querier_id(const z_loaned_querier_t *querier);
#if Z_FEATURE_MATCHING == 1
/**
 * Whether a queryable (remote, or of this session as the querier's destination allows; for
 * target ALL_COMPLETE a complete one that covers the key) answers the querier's key now.
 */
z_result_t z_querier_get_matching_status(const z_loaned_querier_t *querier, z_matching_status_t *matching_status);
/** As z_publisher_declare_matching_listener, for a querier and the queryables that match it. */
z_result_t z_querier_declare_matching_listener(const z_loaned_querier_t *querier,
                                               z_owned_matching_listener_t *matching_listener,
                                               z_moved_closure_matching_status_t *callback);
z_result_t z_querier_declare_background_matching_listener(const z_loaned_querier_t *querier,
                                                          z_moved_closure_matching_status_t *callback);
#endif

/* ---- replies ----------------------------------------------------------------------------------- */

bool z_reply_is_ok(const z_loaned_reply_t *reply);
/** The sample of an OK reply (an empty sample for an error). */
const z_loaned_sample_t *z_reply_ok(const z_loaned_reply_t *reply);
/** The error of an error reply (empty for an OK one). */
const z_loaned_reply_err_t *z_reply_err(const z_loaned_reply_t *reply);
/** The id of the queryable that replied; false when the reply did not say. */
bool z_reply_replier_id(const z_loaned_reply_t *reply, z_entity_global_id_t *out_id);
const z_loaned_bytes_t *z_reply_err_payload(const z_loaned_reply_err_t *reply_err);
const z_loaned_encoding_t *z_reply_err_encoding(const z_loaned_reply_err_t *reply_err);
#endif

#if Z_FEATURE_QUERYABLE == 1
/* ---- queryables -------------------------------------------------------------------------------- */

void z_queryable_options_default(z_queryable_options_t *options);
/**
 * Declares a queryable on keyexpr, returned owned in *queryable (null on failure). Takes
 * callback: its call runs for every query that reaches it, its drop once at the end (and when
 * this fails). Allocates a small record per queryable, nothing per query.
 */
z_result_t z_declare_queryable(const z_loaned_session_t *zs, z_owned_queryable_t *queryable,
                               const z_loaned_keyexpr_t *keyexpr, z_moved_closure_query_t *callback,
                               const z_queryable_options_t *options);
/** Like z_declare_queryable for a queryable that lives until the session closes. */
z_result_t z_declare_background_queryable(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                          z_moved_closure_query_t *callback, const z_queryable_options_t *options);
/** Undeclares the queryable; when it returns its callback runs no more (as subscribers). */
z_result_t z_undeclare_queryable(z_moved_queryable_t *queryable);
z_entity_global_id_t z_queryable_id(const z_loaned_queryable_t *queryable);
const z_loaned_keyexpr_t *z_queryable_keyexpr(const z_loaned_queryable_t *queryable);

/* ---- queries ----------------------------------------------------------------------------------- */

const z_loaned_keyexpr_t *z_query_keyexpr(const z_loaned_query_t *query);
void z_query_parameters(const z_loaned_query_t *query, z_view_string_t *parameters);
const z_loaned_bytes_t *z_query_payload(const z_loaned_query_t *query);
const z_loaned_encoding_t *z_query_encoding(const z_loaned_query_t *query);
const z_loaned_bytes_t *z_query_attachment(const z_loaned_query_t *query);
/** The querier's source info; NULL when the query carried none. */
const z_source_info_t *z_query_source_info(const z_loaned_query_t *query);
/** Z_REPLY_KEYEXPR_ANY when the querier accepts replies on any key. */
z_reply_keyexpr_t z_query_accepts_replies(const z_loaned_query_t *query);

void z_query_reply_options_default(z_query_reply_options_t *options);
void z_query_reply_del_options_default(z_query_reply_del_options_t *options);
void z_query_reply_err_options_default(z_query_reply_err_options_t *options);
/**
 * Replies payload (taken) on keyexpr, which must intersect the query's key expression unless the
 * querier accepts any key (ZM_E_KEYEXPR otherwise). Z_EINVAL for a null or dropped query,
 * ZM_E_CLOSED when the querier is gone.
 */
z_result_t z_query_reply(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr, z_moved_bytes_t *payload,
                         const z_query_reply_options_t *options);
/** Replies a deletion of keyexpr; as z_query_reply otherwise. */
z_result_t z_query_reply_del(const z_loaned_query_t *query, const z_loaned_keyexpr_t *keyexpr,
                             const z_query_reply_del_options_t *options);
/** Replies an error carrying payload (taken). */
z_result_t z_query_reply_err(const z_loaned_query_t *query, z_moved_bytes_t *payload,
                             const z_query_reply_err_options_t *options);
#endif

#endif /* ZMOTE_API_QUERY_H */
