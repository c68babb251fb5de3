/**
 * @file
 * The generic macros of the Zenoh C API (z_loan, z_move, z_drop, z_clone, z_take, z_call,
 * z_recv, z_closure, ...): C11 _Generic selections that pick the per-type function from the
 * argument's type, exactly in zenoh-pico's forms, so that `z_drop(z_move(x))` and friends work
 * for every type zmote has. C++ has the same names as overloaded inline functions (below the C
 * selections); C99 programs call the per-type functions directly.
 */
#ifndef ZMOTE_API_MACROS_H
#define ZMOTE_API_MACROS_H

#include "zmote/api/advanced.h"
#include "zmote/api/connectivity.h"
#include "zmote/api/encoding.h"
#include "zmote/api/handlers.h"
#include "zmote/api/liveliness.h"
#include "zmote/api/platform.h"
#include "zmote/api/primitives.h"
#include "zmote/api/query.h"
#include "zmote/api/serialization.h"

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* An association of cancellation tokens, which exist with queries and the unstable API only. */
#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
/** An association `type: fn,` of the generic macros, for cancellation tokens (queries and the unstable API). */
#define ZM_GENERIC_CANCEL(type, fn) type: fn,
#else
/** Nothing: a build without queries or the unstable API has no cancellation tokens. */
#define ZM_GENERIC_CANCEL(type, fn)
#endif

/* An association of advanced publishers, which exist with Z_FEATURE_ADVANCED_PUBLICATION only. */
#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_PUBLICATION == 1
/** An association `type: fn,` of the generic macros, for advanced publishers. */
#define ZM_GENERIC_ADV_PUB(type, fn) type: fn,
#else
/** Nothing: a build without advanced publishers. */
#define ZM_GENERIC_ADV_PUB(type, fn)
#endif

/* An association of advanced subscribers, which exist with Z_FEATURE_ADVANCED_SUBSCRIPTION only. */
#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_SUBSCRIPTION == 1
/** An association `type: fn,` of the generic macros, for advanced subscribers. */
#define ZM_GENERIC_ADV_SUB(type, fn) type: fn,
#else
/** Nothing: a build without advanced subscribers. */
#define ZM_GENERIC_ADV_SUB(type, fn)
#endif

/* The associations of the connectivity API, which exists with Z_FEATURE_CONNECTIVITY only. */
#if Z_FEATURE_CONNECTIVITY == 1
/** An association `type: fn,` of the generic macros, for the connectivity API. */
#define ZM_GENERIC_CONN(type, fn) type: fn,
#else
/** Nothing: a build without the connectivity API. */
#define ZM_GENERIC_CONN(type, fn)
#endif

/** Borrows an owned or view object (an lvalue): `const z_loaned_X_t *`. */
#define z_loan(x)                                                  \
    _Generic((x),                                                  \
        z_owned_keyexpr_t: z_keyexpr_loan,                         \
        z_view_keyexpr_t: z_view_keyexpr_loan,                     \
        z_owned_config_t: z_config_loan,                           \
        z_owned_session_t: z_session_loan,                         \
        z_owned_subscriber_t: z_subscriber_loan,                   \
        z_owned_publisher_t: z_publisher_loan,                     \
        z_owned_hello_t: z_hello_loan,                             \
        z_owned_string_t: z_string_loan,                           \
        z_view_string_t: z_view_string_loan,                       \
        z_owned_string_array_t: z_string_array_loan,               \
        z_owned_sample_t: z_sample_loan,                           \
        z_owned_slice_t: z_slice_loan,                             \
        z_view_slice_t: z_view_slice_loan,                         \
        z_owned_bytes_t: z_bytes_loan,                             \
        z_owned_bytes_writer_t: z_bytes_writer_loan,               \
        ze_owned_serializer_t: ze_serializer_loan,                 \
        z_owned_encoding_t: z_encoding_loan,                       \
        z_owned_task_t: z_task_loan,                               \
        z_owned_mutex_t: z_mutex_loan,                             \
        z_owned_condvar_t: z_condvar_loan,                         \
        z_owned_fifo_handler_sample_t: z_fifo_handler_sample_loan, \
        z_owned_ring_handler_sample_t: z_ring_handler_sample_loan, \
        z_owned_fifo_handler_query_t: z_fifo_handler_query_loan, \
        z_owned_ring_handler_query_t: z_ring_handler_query_loan, \
        z_owned_fifo_handler_reply_t: z_fifo_handler_reply_loan, \
        z_owned_ring_handler_reply_t: z_ring_handler_reply_loan, \
        z_owned_query_t: z_query_loan, \
        z_owned_reply_t: z_reply_loan, \
        z_owned_reply_err_t: z_reply_err_loan, \
        z_owned_queryable_t: z_queryable_loan, \
        z_owned_querier_t: z_querier_loan, \
        z_owned_liveliness_token_t: z_liveliness_token_loan, \
        z_owned_closure_query_t: z_closure_query_loan, \
        z_owned_closure_reply_t: z_closure_reply_loan, \
        z_owned_matching_listener_t: z_matching_listener_loan, \
        z_owned_closure_matching_status_t: z_closure_matching_status_loan, \
        ZM_GENERIC_CONN(z_owned_transport_t, z_transport_loan) \
        ZM_GENERIC_CONN(z_owned_link_t, z_link_loan) \
        ZM_GENERIC_CONN(z_owned_transport_event_t, z_transport_event_loan) \
        ZM_GENERIC_CONN(z_owned_link_event_t, z_link_event_loan) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t, z_transport_events_listener_loan) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t, z_link_events_listener_loan) \
        ZM_GENERIC_CONN(z_owned_closure_transport_t, z_closure_transport_loan) \
        ZM_GENERIC_CONN(z_owned_closure_link_t, z_closure_link_loan) \
        ZM_GENERIC_CONN(z_owned_closure_transport_event_t, z_closure_transport_event_loan) \
        ZM_GENERIC_CONN(z_owned_closure_link_event_t, z_closure_link_event_loan) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_loan) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t, ze_advanced_publisher_loan) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t, ze_advanced_subscriber_loan) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t, ze_sample_miss_listener_loan) \
        ZM_GENERIC_ADV_SUB(ze_owned_closure_miss_t, ze_closure_miss_loan) \
        z_owned_closure_sample_t: z_closure_sample_loan,           \
        z_owned_closure_zid_t: z_closure_zid_loan,                 \
        z_owned_closure_hello_t: z_closure_hello_loan)(&(x))

/** Borrows an owned or view object (an lvalue) for modification: `z_loaned_X_t *`. */
#define z_loan_mut(x)                                   \
    _Generic((x),                                       \
        z_owned_keyexpr_t: z_keyexpr_loan_mut,          \
        z_view_keyexpr_t: z_view_keyexpr_loan_mut,      \
        z_owned_config_t: z_config_loan_mut,            \
        z_owned_session_t: z_session_loan_mut,          \
        z_owned_subscriber_t: z_subscriber_loan_mut,    \
        z_owned_publisher_t: z_publisher_loan_mut,      \
        z_owned_hello_t: z_hello_loan_mut,              \
        z_owned_string_t: z_string_loan_mut,            \
        z_view_string_t: z_view_string_loan_mut,        \
        z_owned_string_array_t: z_string_array_loan_mut, \
        z_owned_sample_t: z_sample_loan_mut,            \
        z_owned_slice_t: z_slice_loan_mut,              \
        z_view_slice_t: z_view_slice_loan_mut,          \
        z_owned_bytes_t: z_bytes_loan_mut,              \
        z_owned_bytes_writer_t: z_bytes_writer_loan_mut, \
        ze_owned_serializer_t: ze_serializer_loan_mut,   \
        z_owned_encoding_t: z_encoding_loan_mut,        \
        z_owned_query_t: z_query_loan_mut, \
        z_owned_reply_t: z_reply_loan_mut, \
        z_owned_reply_err_t: z_reply_err_loan_mut, \
        z_owned_queryable_t: z_queryable_loan_mut, \
        z_owned_querier_t: z_querier_loan_mut, \
        z_owned_matching_listener_t: z_matching_listener_loan_mut, \
        ZM_GENERIC_CONN(z_owned_transport_t, z_transport_loan_mut) \
        ZM_GENERIC_CONN(z_owned_link_t, z_link_loan_mut) \
        ZM_GENERIC_CONN(z_owned_transport_event_t, z_transport_event_loan_mut) \
        ZM_GENERIC_CONN(z_owned_link_event_t, z_link_event_loan_mut) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t, z_transport_events_listener_loan_mut) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t, z_link_events_listener_loan_mut) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_loan_mut) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t, ze_advanced_publisher_loan_mut) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t, ze_advanced_subscriber_loan_mut) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t, ze_sample_miss_listener_loan_mut) \
        z_owned_liveliness_token_t: z_liveliness_token_loan_mut, \
        z_owned_task_t: z_task_loan_mut,                \
        z_owned_mutex_t: z_mutex_loan_mut,              \
        z_owned_condvar_t: z_condvar_loan_mut, \
        z_owned_fifo_handler_sample_t: z_fifo_handler_sample_loan_mut, \
        z_owned_ring_handler_sample_t: z_ring_handler_sample_loan_mut, \
        z_owned_fifo_handler_query_t: z_fifo_handler_query_loan_mut, \
        z_owned_ring_handler_query_t: z_ring_handler_query_loan_mut, \
        z_owned_fifo_handler_reply_t: z_fifo_handler_reply_loan_mut, \
        z_owned_ring_handler_reply_t: z_ring_handler_reply_loan_mut)(&(x))

/** Gives an owned object (an lvalue) away to the function it is passed to: `z_moved_X_t *`. */
#define z_move(x)                                                  \
    _Generic((x),                                                  \
        z_owned_keyexpr_t: z_keyexpr_move,                         \
        z_owned_config_t: z_config_move,                           \
        z_owned_session_t: z_session_move,                         \
        z_owned_subscriber_t: z_subscriber_move,                   \
        z_owned_publisher_t: z_publisher_move,                     \
        z_owned_hello_t: z_hello_move,                             \
        z_owned_string_t: z_string_move,                           \
        z_owned_string_array_t: z_string_array_move,               \
        z_owned_sample_t: z_sample_move,                           \
        z_owned_slice_t: z_slice_move,                             \
        z_owned_bytes_t: z_bytes_move,                             \
        z_owned_bytes_writer_t: z_bytes_writer_move,               \
        ze_owned_serializer_t: ze_serializer_move,                 \
        z_owned_encoding_t: z_encoding_move,                       \
        z_owned_task_t: z_task_move,                               \
        z_owned_mutex_t: z_mutex_move,                             \
        z_owned_condvar_t: z_condvar_move,                         \
        z_owned_fifo_handler_sample_t: z_fifo_handler_sample_move, \
        z_owned_ring_handler_sample_t: z_ring_handler_sample_move, \
        z_owned_fifo_handler_query_t: z_fifo_handler_query_move, \
        z_owned_ring_handler_query_t: z_ring_handler_query_move, \
        z_owned_fifo_handler_reply_t: z_fifo_handler_reply_move, \
        z_owned_ring_handler_reply_t: z_ring_handler_reply_move, \
        z_owned_query_t: z_query_move, \
        z_owned_reply_t: z_reply_move, \
        z_owned_reply_err_t: z_reply_err_move, \
        z_owned_queryable_t: z_queryable_move, \
        z_owned_querier_t: z_querier_move, \
        z_owned_liveliness_token_t: z_liveliness_token_move, \
        z_owned_closure_query_t: z_closure_query_move, \
        z_owned_closure_reply_t: z_closure_reply_move, \
        z_owned_matching_listener_t: z_matching_listener_move, \
        z_owned_closure_matching_status_t: z_closure_matching_status_move, \
        ZM_GENERIC_CONN(z_owned_transport_t, z_transport_move) \
        ZM_GENERIC_CONN(z_owned_link_t, z_link_move) \
        ZM_GENERIC_CONN(z_owned_transport_event_t, z_transport_event_move) \
        ZM_GENERIC_CONN(z_owned_link_event_t, z_link_event_move) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t, z_transport_events_listener_move) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t, z_link_events_listener_move) \
        ZM_GENERIC_CONN(z_owned_closure_transport_t, z_closure_transport_move) \
        ZM_GENERIC_CONN(z_owned_closure_link_t, z_closure_link_move) \
        ZM_GENERIC_CONN(z_owned_closure_transport_event_t, z_closure_transport_event_move) \
        ZM_GENERIC_CONN(z_owned_closure_link_event_t, z_closure_link_event_move) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_move) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t, ze_advanced_publisher_move) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t, ze_advanced_subscriber_move) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t, ze_sample_miss_listener_move) \
        ZM_GENERIC_ADV_SUB(ze_owned_closure_miss_t, ze_closure_miss_move) \
        z_owned_closure_sample_t: z_closure_sample_move,           \
        z_owned_closure_zid_t: z_closure_zid_move,                 \
        z_owned_closure_hello_t: z_closure_hello_move)(&(x))

/** Releases a moved object: `z_drop(z_move(x))`. A task is joined. */
#define z_drop(x)                                                    \
    _Generic((x),                                                    \
        z_moved_keyexpr_t *: z_keyexpr_drop,                         \
        z_moved_config_t *: z_config_drop,                           \
        z_moved_session_t *: z_session_drop,                         \
        z_moved_subscriber_t *: z_subscriber_drop,                   \
        z_moved_publisher_t *: z_publisher_drop,                     \
        z_moved_hello_t *: z_hello_drop,                             \
        z_moved_string_t *: z_string_drop,                           \
        z_moved_string_array_t *: z_string_array_drop,               \
        z_moved_sample_t *: z_sample_drop,                           \
        z_moved_slice_t *: z_slice_drop,                             \
        z_moved_bytes_t *: z_bytes_drop,                             \
        z_moved_bytes_writer_t *: z_bytes_writer_drop,               \
        ze_moved_serializer_t *: ze_serializer_drop,                 \
        z_moved_encoding_t *: z_encoding_drop,                       \
        z_moved_task_t *: z_task_join,                               \
        z_moved_mutex_t *: z_mutex_drop,                             \
        z_moved_condvar_t *: z_condvar_drop,                         \
        z_moved_fifo_handler_sample_t *: z_fifo_handler_sample_drop, \
        z_moved_ring_handler_sample_t *: z_ring_handler_sample_drop, \
        z_moved_fifo_handler_query_t *: z_fifo_handler_query_drop, \
        z_moved_ring_handler_query_t *: z_ring_handler_query_drop, \
        z_moved_fifo_handler_reply_t *: z_fifo_handler_reply_drop, \
        z_moved_ring_handler_reply_t *: z_ring_handler_reply_drop, \
        z_moved_query_t *: z_query_drop, \
        z_moved_reply_t *: z_reply_drop, \
        z_moved_reply_err_t *: z_reply_err_drop, \
        z_moved_queryable_t *: z_queryable_drop, \
        z_moved_querier_t *: z_querier_drop, \
        z_moved_liveliness_token_t *: z_liveliness_token_drop, \
        z_moved_closure_query_t *: z_closure_query_drop, \
        z_moved_closure_reply_t *: z_closure_reply_drop, \
        z_moved_matching_listener_t *: z_matching_listener_drop, \
        z_moved_closure_matching_status_t *: z_closure_matching_status_drop, \
        ZM_GENERIC_CONN(z_moved_transport_t *, z_transport_drop) \
        ZM_GENERIC_CONN(z_moved_link_t *, z_link_drop) \
        ZM_GENERIC_CONN(z_moved_transport_event_t *, z_transport_event_drop) \
        ZM_GENERIC_CONN(z_moved_link_event_t *, z_link_event_drop) \
        ZM_GENERIC_CONN(z_moved_transport_events_listener_t *, z_transport_events_listener_drop) \
        ZM_GENERIC_CONN(z_moved_link_events_listener_t *, z_link_events_listener_drop) \
        ZM_GENERIC_CONN(z_moved_closure_transport_t *, z_closure_transport_drop) \
        ZM_GENERIC_CONN(z_moved_closure_link_t *, z_closure_link_drop) \
        ZM_GENERIC_CONN(z_moved_closure_transport_event_t *, z_closure_transport_event_drop) \
        ZM_GENERIC_CONN(z_moved_closure_link_event_t *, z_closure_link_event_drop) \
        ZM_GENERIC_CANCEL(z_moved_cancellation_token_t *, z_cancellation_token_drop) \
        ZM_GENERIC_ADV_PUB(ze_moved_advanced_publisher_t *, ze_advanced_publisher_drop) \
        ZM_GENERIC_ADV_SUB(ze_moved_advanced_subscriber_t *, ze_advanced_subscriber_drop) \
        ZM_GENERIC_ADV_SUB(ze_moved_sample_miss_listener_t *, ze_sample_miss_listener_drop) \
        ZM_GENERIC_ADV_SUB(ze_moved_closure_miss_t *, ze_closure_miss_drop) \
        z_moved_closure_sample_t *: z_closure_sample_drop,           \
        z_moved_closure_zid_t *: z_closure_zid_drop,                 \
        z_moved_closure_hello_t *: z_closure_hello_drop)(x)

/** True unless the owned object (an lvalue) is in the null state. */
#define z_internal_check(x)                                                  \
    _Generic((x),                                                            \
        z_owned_keyexpr_t: z_internal_keyexpr_check,                         \
        z_owned_config_t: z_internal_config_check,                           \
        z_owned_session_t: z_internal_session_check,                         \
        z_owned_subscriber_t: z_internal_subscriber_check,                   \
        z_owned_publisher_t: z_internal_publisher_check,                     \
        z_owned_hello_t: z_internal_hello_check,                             \
        z_owned_string_t: z_internal_string_check,                           \
        z_owned_string_array_t: z_internal_string_array_check,               \
        z_owned_sample_t: z_internal_sample_check,                           \
        z_owned_slice_t: z_internal_slice_check,                             \
        z_owned_bytes_t: z_internal_bytes_check,                             \
        z_owned_bytes_writer_t: z_internal_bytes_writer_check,               \
        ze_owned_serializer_t: ze_internal_serializer_check,                 \
        z_owned_encoding_t: z_internal_encoding_check,                       \
        z_owned_fifo_handler_sample_t: z_internal_fifo_handler_sample_check, \
        z_owned_ring_handler_sample_t: z_internal_ring_handler_sample_check, \
        z_owned_fifo_handler_query_t: z_internal_fifo_handler_query_check, \
        z_owned_ring_handler_query_t: z_internal_ring_handler_query_check, \
        z_owned_fifo_handler_reply_t: z_internal_fifo_handler_reply_check, \
        z_owned_ring_handler_reply_t: z_internal_ring_handler_reply_check, \
        z_owned_query_t: z_internal_query_check, \
        z_owned_reply_t: z_internal_reply_check, \
        z_owned_reply_err_t: z_internal_reply_err_check, \
        z_owned_queryable_t: z_internal_queryable_check, \
        z_owned_querier_t: z_internal_querier_check, \
        z_owned_liveliness_token_t: z_internal_liveliness_token_check, \
        z_owned_closure_query_t: z_internal_closure_query_check, \
        z_owned_closure_reply_t: z_internal_closure_reply_check, \
        z_owned_matching_listener_t: z_internal_matching_listener_check, \
        z_owned_closure_matching_status_t: z_internal_closure_matching_status_check, \
        ZM_GENERIC_CONN(z_owned_transport_t, z_internal_transport_check) \
        ZM_GENERIC_CONN(z_owned_link_t, z_internal_link_check) \
        ZM_GENERIC_CONN(z_owned_transport_event_t, z_internal_transport_event_check) \
        ZM_GENERIC_CONN(z_owned_link_event_t, z_internal_link_event_check) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t, z_internal_transport_events_listener_check) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t, z_internal_link_events_listener_check) \
        ZM_GENERIC_CONN(z_owned_closure_transport_t, z_internal_closure_transport_check) \
        ZM_GENERIC_CONN(z_owned_closure_link_t, z_internal_closure_link_check) \
        ZM_GENERIC_CONN(z_owned_closure_transport_event_t, z_internal_closure_transport_event_check) \
        ZM_GENERIC_CONN(z_owned_closure_link_event_t, z_internal_closure_link_event_check) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_internal_cancellation_token_check) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t, ze_internal_advanced_publisher_check) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t, ze_internal_advanced_subscriber_check) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t, ze_internal_sample_miss_listener_check) \
        ZM_GENERIC_ADV_SUB(ze_owned_closure_miss_t, ze_internal_closure_miss_check) \
        z_owned_closure_sample_t: z_internal_closure_sample_check,           \
        z_owned_closure_zid_t: z_internal_closure_zid_check,                 \
        z_owned_closure_hello_t: z_internal_closure_hello_check)(&(x))

/** Returns owned in dst (a `z_owned_X_t *`) a copy of the loaned src. */
#define z_clone(dst, src)                                 \
    _Generic((dst),                                       \
        z_owned_keyexpr_t *: z_keyexpr_clone,             \
        z_owned_config_t *: z_config_clone,               \
        z_owned_hello_t *: z_hello_clone,                 \
        z_owned_string_t *: z_string_clone,               \
        z_owned_string_array_t *: z_string_array_clone,   \
        z_owned_sample_t *: z_sample_clone,               \
        z_owned_slice_t *: z_slice_clone,                 \
        z_owned_bytes_t *: z_bytes_clone,                 \
        z_owned_query_t *: z_query_clone, \
        z_owned_reply_t *: z_reply_clone, \
        z_owned_reply_err_t *: z_reply_err_clone, \
        ZM_GENERIC_CONN(z_owned_transport_t *, z_transport_clone) \
        ZM_GENERIC_CONN(z_owned_link_t *, z_link_clone) \
        ZM_GENERIC_CONN(z_owned_transport_event_t *, z_transport_event_clone) \
        ZM_GENERIC_CONN(z_owned_link_event_t *, z_link_event_clone) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t *, z_cancellation_token_clone) \
        z_owned_encoding_t *: z_encoding_clone)(dst, src)

/** Moves the moved object x into the owned object this_ (a `z_owned_X_t *`). */
#define z_take(this_, x)                                           \
    _Generic((this_),                                              \
        z_owned_keyexpr_t *: z_keyexpr_take,                       \
        z_owned_config_t *: z_config_take,                         \
        z_owned_session_t *: z_session_take,                       \
        z_owned_subscriber_t *: z_subscriber_take,                 \
        z_owned_publisher_t *: z_publisher_take,                   \
        z_owned_hello_t *: z_hello_take,                           \
        z_owned_string_t *: z_string_take,                         \
        z_owned_string_array_t *: z_string_array_take,             \
        z_owned_sample_t *: z_sample_take,                         \
        z_owned_slice_t *: z_slice_take,                           \
        z_owned_bytes_t *: z_bytes_take,                           \
        z_owned_bytes_writer_t *: z_bytes_writer_take,             \
        ze_owned_serializer_t *: ze_serializer_take,               \
        z_owned_encoding_t *: z_encoding_take,                     \
        z_owned_task_t *: z_task_take,                             \
        z_owned_mutex_t *: z_mutex_take,                           \
        z_owned_condvar_t *: z_condvar_take,                       \
        z_owned_fifo_handler_sample_t *: z_fifo_handler_sample_take, \
        z_owned_ring_handler_sample_t *: z_ring_handler_sample_take, \
        z_owned_fifo_handler_query_t *: z_fifo_handler_query_take, \
        z_owned_ring_handler_query_t *: z_ring_handler_query_take, \
        z_owned_fifo_handler_reply_t *: z_fifo_handler_reply_take, \
        z_owned_ring_handler_reply_t *: z_ring_handler_reply_take, \
        z_owned_query_t *: z_query_take, \
        z_owned_reply_t *: z_reply_take, \
        z_owned_reply_err_t *: z_reply_err_take, \
        z_owned_queryable_t *: z_queryable_take, \
        z_owned_querier_t *: z_querier_take, \
        z_owned_liveliness_token_t *: z_liveliness_token_take, \
        z_owned_closure_query_t *: z_closure_query_take, \
        z_owned_closure_reply_t *: z_closure_reply_take, \
        z_owned_matching_listener_t *: z_matching_listener_take, \
        z_owned_closure_matching_status_t *: z_closure_matching_status_take, \
        ZM_GENERIC_CONN(z_owned_transport_t *, z_transport_take) \
        ZM_GENERIC_CONN(z_owned_link_t *, z_link_take) \
        ZM_GENERIC_CONN(z_owned_transport_event_t *, z_transport_event_take) \
        ZM_GENERIC_CONN(z_owned_link_event_t *, z_link_event_take) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t *, z_transport_events_listener_take) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t *, z_link_events_listener_take) \
        ZM_GENERIC_CONN(z_owned_closure_transport_t *, z_closure_transport_take) \
        ZM_GENERIC_CONN(z_owned_closure_link_t *, z_closure_link_take) \
        ZM_GENERIC_CONN(z_owned_closure_transport_event_t *, z_closure_transport_event_take) \
        ZM_GENERIC_CONN(z_owned_closure_link_event_t *, z_closure_link_event_take) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t *, z_cancellation_token_take) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t *, ze_advanced_publisher_take) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t *, ze_advanced_subscriber_take) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t *, ze_sample_miss_listener_take) \
        ZM_GENERIC_ADV_SUB(ze_owned_closure_miss_t *, ze_closure_miss_take) \
        z_owned_closure_sample_t *: z_closure_sample_take,         \
        z_owned_closure_zid_t *: z_closure_zid_take,               \
        z_owned_closure_hello_t *: z_closure_hello_take)(this_, x)

/** Moves a loaned object out into dst (a `z_owned_X_t *`), copying what the loan only borrows. */
#define z_take_from_loaned(dst, src)                                  \
    _Generic((dst),                                                   \
        z_owned_keyexpr_t *: z_keyexpr_take_from_loaned,              \
        z_owned_config_t *: z_config_take_from_loaned,                \
        z_owned_hello_t *: z_hello_take_from_loaned,                  \
        z_owned_string_t *: z_string_take_from_loaned,                \
        z_owned_string_array_t *: z_string_array_take_from_loaned,    \
        z_owned_sample_t *: z_sample_take_from_loaned,                \
        z_owned_slice_t *: z_slice_take_from_loaned,                  \
        z_owned_bytes_t *: z_bytes_take_from_loaned,                  \
        z_owned_bytes_writer_t *: z_bytes_writer_take_from_loaned,    \
        z_owned_query_t *: z_query_take_from_loaned, \
        z_owned_reply_t *: z_reply_take_from_loaned, \
        z_owned_reply_err_t *: z_reply_err_take_from_loaned, \
        ZM_GENERIC_CONN(z_owned_transport_t *, z_transport_take_from_loaned) \
        ZM_GENERIC_CONN(z_owned_link_t *, z_link_take_from_loaned) \
        ZM_GENERIC_CONN(z_owned_transport_event_t *, z_transport_event_take_from_loaned) \
        ZM_GENERIC_CONN(z_owned_link_event_t *, z_link_event_take_from_loaned) \
        ze_owned_serializer_t *: ze_serializer_take_from_loaned,      \
        z_owned_encoding_t *: z_encoding_take_from_loaned)(dst, src)

/** Puts the owned object x (a `z_owned_X_t *`) in the null state, forgetting its content. */
#define z_internal_null(x)                                                  \
    _Generic((x),                                                           \
        z_owned_keyexpr_t *: z_internal_keyexpr_null,                       \
        z_owned_config_t *: z_internal_config_null,                         \
        z_owned_session_t *: z_internal_session_null,                       \
        z_owned_subscriber_t *: z_internal_subscriber_null,                 \
        z_owned_publisher_t *: z_internal_publisher_null,                   \
        z_owned_hello_t *: z_internal_hello_null,                           \
        z_owned_string_t *: z_internal_string_null,                         \
        z_owned_string_array_t *: z_internal_string_array_null,             \
        z_owned_sample_t *: z_internal_sample_null,                         \
        z_owned_slice_t *: z_internal_slice_null,                           \
        z_owned_bytes_t *: z_internal_bytes_null,                           \
        z_owned_bytes_writer_t *: z_internal_bytes_writer_null,             \
        ze_owned_serializer_t *: ze_internal_serializer_null,               \
        z_owned_encoding_t *: z_internal_encoding_null,                     \
        z_owned_task_t *: z_internal_task_null,                             \
        z_owned_mutex_t *: z_internal_mutex_null,                           \
        z_owned_condvar_t *: z_internal_condvar_null,                       \
        z_owned_fifo_handler_sample_t *: z_internal_fifo_handler_sample_null, \
        z_owned_ring_handler_sample_t *: z_internal_ring_handler_sample_null, \
        z_owned_fifo_handler_query_t *: z_internal_fifo_handler_query_null, \
        z_owned_ring_handler_query_t *: z_internal_ring_handler_query_null, \
        z_owned_fifo_handler_reply_t *: z_internal_fifo_handler_reply_null, \
        z_owned_ring_handler_reply_t *: z_internal_ring_handler_reply_null, \
        z_owned_query_t *: z_internal_query_null, \
        z_owned_reply_t *: z_internal_reply_null, \
        z_owned_reply_err_t *: z_internal_reply_err_null, \
        z_owned_queryable_t *: z_internal_queryable_null, \
        z_owned_querier_t *: z_internal_querier_null, \
        z_owned_liveliness_token_t *: z_internal_liveliness_token_null, \
        z_owned_closure_query_t *: z_internal_closure_query_null, \
        z_owned_closure_reply_t *: z_internal_closure_reply_null, \
        z_owned_matching_listener_t *: z_internal_matching_listener_null, \
        z_owned_closure_matching_status_t *: z_internal_closure_matching_status_null, \
        ZM_GENERIC_CONN(z_owned_transport_t *, z_internal_transport_null) \
        ZM_GENERIC_CONN(z_owned_link_t *, z_internal_link_null) \
        ZM_GENERIC_CONN(z_owned_transport_event_t *, z_internal_transport_event_null) \
        ZM_GENERIC_CONN(z_owned_link_event_t *, z_internal_link_event_null) \
        ZM_GENERIC_CONN(z_owned_transport_events_listener_t *, z_internal_transport_events_listener_null) \
        ZM_GENERIC_CONN(z_owned_link_events_listener_t *, z_internal_link_events_listener_null) \
        ZM_GENERIC_CONN(z_owned_closure_transport_t *, z_internal_closure_transport_null) \
        ZM_GENERIC_CONN(z_owned_closure_link_t *, z_internal_closure_link_null) \
        ZM_GENERIC_CONN(z_owned_closure_transport_event_t *, z_internal_closure_transport_event_null) \
        ZM_GENERIC_CONN(z_owned_closure_link_event_t *, z_internal_closure_link_event_null) \
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t *, z_internal_cancellation_token_null) \
        ZM_GENERIC_ADV_PUB(ze_owned_advanced_publisher_t *, ze_internal_advanced_publisher_null) \
        ZM_GENERIC_ADV_SUB(ze_owned_advanced_subscriber_t *, ze_internal_advanced_subscriber_null) \
        ZM_GENERIC_ADV_SUB(ze_owned_sample_miss_listener_t *, ze_internal_sample_miss_listener_null) \
        ZM_GENERIC_ADV_SUB(ze_owned_closure_miss_t *, ze_internal_closure_miss_null) \
        z_owned_closure_sample_t *: z_internal_closure_sample_null,         \
        z_owned_closure_zid_t *: z_internal_closure_zid_null,               \
        z_owned_closure_hello_t *: z_internal_closure_hello_null)(x)

/** Calls a loaned closure (an lvalue, e.g. `*z_loan(c)`) with the remaining arguments. */
#define z_call(x, ...)                                       \
    _Generic((x),                                            \
        z_loaned_closure_query_t: z_closure_query_call, \
        z_loaned_closure_reply_t: z_closure_reply_call, \
        z_loaned_closure_matching_status_t: z_closure_matching_status_call, \
        ZM_GENERIC_ADV_SUB(ze_loaned_closure_miss_t, ze_closure_miss_call) \
        ZM_GENERIC_CONN(z_loaned_closure_transport_t, z_closure_transport_call) \
        ZM_GENERIC_CONN(z_loaned_closure_link_t, z_closure_link_call) \
        ZM_GENERIC_CONN(z_loaned_closure_transport_event_t, z_closure_transport_event_call) \
        ZM_GENERIC_CONN(z_loaned_closure_link_event_t, z_closure_link_event_call) \
        z_loaned_closure_sample_t: z_closure_sample_call,    \
        z_loaned_closure_zid_t: z_closure_zid_call,          \
        z_loaned_closure_hello_t: z_closure_hello_call)(&(x), __VA_ARGS__)

/** Takes an item out of a loaned handler, waiting for one: `z_recv(z_loan(h), &sample)`. */
#define z_recv(x, ...) \
    _Generic((x), \
        const z_loaned_fifo_handler_sample_t *: z_fifo_handler_sample_recv, \
        z_loaned_fifo_handler_sample_t *: z_fifo_handler_sample_recv, \
        const z_loaned_ring_handler_sample_t *: z_ring_handler_sample_recv, \
        z_loaned_ring_handler_sample_t *: z_ring_handler_sample_recv, \
        const z_loaned_fifo_handler_query_t *: z_fifo_handler_query_recv, \
        z_loaned_fifo_handler_query_t *: z_fifo_handler_query_recv, \
        const z_loaned_ring_handler_query_t *: z_ring_handler_query_recv, \
        z_loaned_ring_handler_query_t *: z_ring_handler_query_recv, \
        const z_loaned_fifo_handler_reply_t *: z_fifo_handler_reply_recv, \
        z_loaned_fifo_handler_reply_t *: z_fifo_handler_reply_recv, \
        const z_loaned_ring_handler_reply_t *: z_ring_handler_reply_recv, \
        z_loaned_ring_handler_reply_t *: z_ring_handler_reply_recv)(x, __VA_ARGS__)

/** Takes an item out of a loaned handler if one is queued, else Z_CHANNEL_NODATA. */
#define z_try_recv(x, ...) \
    _Generic((x), \
        const z_loaned_fifo_handler_sample_t *: z_fifo_handler_sample_try_recv, \
        z_loaned_fifo_handler_sample_t *: z_fifo_handler_sample_try_recv, \
        const z_loaned_ring_handler_sample_t *: z_ring_handler_sample_try_recv, \
        z_loaned_ring_handler_sample_t *: z_ring_handler_sample_try_recv, \
        const z_loaned_fifo_handler_query_t *: z_fifo_handler_query_try_recv, \
        z_loaned_fifo_handler_query_t *: z_fifo_handler_query_try_recv, \
        const z_loaned_ring_handler_query_t *: z_ring_handler_query_try_recv, \
        z_loaned_ring_handler_query_t *: z_ring_handler_query_try_recv, \
        const z_loaned_fifo_handler_reply_t *: z_fifo_handler_reply_try_recv, \
        z_loaned_fifo_handler_reply_t *: z_fifo_handler_reply_try_recv, \
        const z_loaned_ring_handler_reply_t *: z_ring_handler_reply_try_recv, \
        z_loaned_ring_handler_reply_t *: z_ring_handler_reply_try_recv)(x, __VA_ARGS__)

/*
 * z_closure(&c, call), z_closure(&c, call, drop) or z_closure(&c, call, drop, context) fills
 * any owned closure; missing arguments are 0. It is a complete statement, semicolon included,
 * as in zenoh-pico (so `z_closure(...)` may also stand without one).
 */
/** The statement z_closure() expands to: sets the closure's call, drop and context. */
#define ZM_CLOSURE_FILL(closure, callback, dropper, ctx, ...) \
    do {                                                      \
        (closure)->_val.call = callback;                      \
        (closure)->_val.drop = dropper;                       \
        (closure)->_val.context = ctx;                        \
    } while (0);
/**
 * z_closure(&c, call), z_closure(&c, call, drop) or z_closure(&c, call, drop, context) fills
 * any owned closure c (`z_owned_closure_X_t`); missing arguments are 0 (NULL). It is a complete
 * statement, semicolon included, as in zenoh-pico (so `z_closure(...)` may also stand without
 * one). It cannot fail and allocates nothing; c's previous content is forgotten, not dropped. The
 * library runs call and drop on the threads the function the closure is given to names.
 */
#define z_closure(...) ZM_CLOSURE_FILL(__VA_ARGS__, 0, 0, 0)

#endif /* C11 */

#if defined(__cplusplus)

/*
 * C++ has no _Generic, so each generic name is a set of overloaded inline functions (and two
 * type maps, templates), as in zenoh-pico's C++ branch, over the same types as the C selections
 * above; each forwards to the per-type function the C selection picks and returns what it
 * returns. Where the C macro takes an lvalue (z_loan, z_loan_mut, z_move, z_internal_check,
 * z_call), the overload takes a reference; z_closure fills a closure from one to three
 * arguments, the missing ones 0. The family macros mirror those of primitives.h: adding a type
 * there means one line here (tests/cxx/gen_generic_checks.py fails the C++ check for a type of
 * a C selection left out). extern "C++" keeps the overloads legal when a program includes this
 * header inside its own extern "C" block.
 */
extern "C++" {

/** Maps a loaned type to its owned type (`z_loaned_to_owned_type_t<T>::type`). */
template <class T> struct z_loaned_to_owned_type_t {};
/** Maps an owned type to its loaned type (`z_owned_to_loaned_type_t<T>::type`). */
template <class T> struct z_owned_to_loaned_type_t {};

/* p is the prefix (z, or ze for the serializer), name the object's name in the per-type functions. */
#define ZM_CXX_LOAN(p, name)                                                                       \
    inline const p##_loaned_##name##_t *z_loan(const p##_owned_##name##_t &x)                      \
    {                                                                                              \
        return p##_##name##_loan(&x);                                                              \
    }
#define ZM_CXX_LOAN_MUT(p, name)                                                                   \
    inline p##_loaned_##name##_t *z_loan_mut(p##_owned_##name##_t &x) { return p##_##name##_loan_mut(&x); }
#define ZM_CXX_MOVE(p, name)                                                                       \
    inline p##_moved_##name##_t *z_move(p##_owned_##name##_t &x) { return p##_##name##_move(&x); }
#define ZM_CXX_DROP(p, name)                                                                       \
    inline void z_drop(p##_moved_##name##_t *x) { p##_##name##_drop(x); }
#define ZM_CXX_CHECK(p, name)                                                                      \
    inline bool z_internal_check(const p##_owned_##name##_t &x) { return p##_internal_##name##_check(&x); }
#define ZM_CXX_NULL(p, name)                                                                       \
    inline void z_internal_null(p##_owned_##name##_t *x) { p##_internal_##name##_null(x); }
#define ZM_CXX_TAKE(p, name)                                                                       \
    inline void z_take(p##_owned_##name##_t *this_, p##_moved_##name##_t *x) { p##_##name##_take(this_, x); }
#define ZM_CXX_CLONE(p, name)                                                                      \
    inline z_result_t z_clone(p##_owned_##name##_t *dst, const p##_loaned_##name##_t *src)         \
    {                                                                                              \
        return p##_##name##_clone(dst, src);                                                       \
    }
#define ZM_CXX_TAKE_FROM_LOANED(p, name)                                                           \
    inline z_result_t z_take_from_loaned(p##_owned_##name##_t *dst, p##_loaned_##name##_t *src)    \
    {                                                                                              \
        return p##_##name##_take_from_loaned(dst, src);                                            \
    }
#define ZM_CXX_TYPE_MAPS(p, name)                                                                  \
    template <> struct z_loaned_to_owned_type_t<p##_loaned_##name##_t> {                           \
        typedef p##_owned_##name##_t type;                                                         \
    };                                                                                             \
    template <> struct z_owned_to_loaned_type_t<p##_owned_##name##_t> {                            \
        typedef p##_loaned_##name##_t type;                                                        \
    };

/* The families: what every owned type has, then what copyable types, closures and handlers add. */
#define ZM_CXX_OWNED_BASE(p, name)                                                                 \
    ZM_CXX_LOAN(p, name)                                                                           \
    ZM_CXX_LOAN_MUT(p, name)                                                                       \
    ZM_CXX_MOVE(p, name)                                                                           \
    ZM_CXX_DROP(p, name)                                                                           \
    ZM_CXX_CHECK(p, name)                                                                          \
    ZM_CXX_NULL(p, name)                                                                           \
    ZM_CXX_TAKE(p, name)                                                                           \
    ZM_CXX_TYPE_MAPS(p, name)
#define ZM_CXX_OWNED(name)                                                                         \
    ZM_CXX_OWNED_BASE(z, name)                                                                     \
    ZM_CXX_CLONE(z, name)                                                                          \
    ZM_CXX_TAKE_FROM_LOANED(z, name)
#define ZM_CXX_VIEW(name)                                                                          \
    inline const z_loaned_##name##_t *z_loan(const z_view_##name##_t &x) { return z_view_##name##_loan(&x); } \
    inline z_loaned_##name##_t *z_loan_mut(z_view_##name##_t &x) { return z_view_##name##_loan_mut(&x); }
/* A closure: no loan_mut; z_call passes arg, z_closure fills call, drop and context. */
#define ZM_CXX_CLOSURE(name, arg)                                                                  \
    ZM_CXX_LOAN(z, closure_##name)                                                                 \
    ZM_CXX_MOVE(z, closure_##name)                                                                 \
    ZM_CXX_DROP(z, closure_##name)                                                                 \
    ZM_CXX_CHECK(z, closure_##name)                                                                \
    ZM_CXX_NULL(z, closure_##name)                                                                 \
    ZM_CXX_TAKE(z, closure_##name)                                                                 \
    ZM_CXX_TYPE_MAPS(z, closure_##name)                                                            \
    inline void z_call(const z_loaned_closure_##name##_t &closure, arg item)                       \
    {                                                                                              \
        z_closure_##name##_call(&closure, item);                                                   \
    }                                                                                              \
    inline void z_closure(z_owned_closure_##name##_t *closure, z_closure_##name##_callback_t call, \
                          z_closure_drop_callback_t drop = 0, void *context = 0)                   \
    {                                                                                              \
        closure->_val.call = call;                                                                 \
        closure->_val.drop = drop;                                                                 \
        closure->_val.context = context;                                                           \
    }
/* A channel's receiving end (kind fifo or ring) of items of type item. */
#define ZM_CXX_HANDLER(kind, item)                                                                 \
    ZM_CXX_OWNED_BASE(z, kind##_handler_##item)                                                    \
    inline z_result_t z_recv(const z_loaned_##kind##_handler_##item##_t *handler, z_owned_##item##_t *out) \
    {                                                                                              \
        return z_##kind##_handler_##item##_recv(handler, out);                                     \
    }                                                                                              \
    inline z_result_t z_try_recv(const z_loaned_##kind##_handler_##item##_t *handler,              \
                                 z_owned_##item##_t *out)                                          \
    {                                                                                              \
        return z_##kind##_handler_##item##_try_recv(handler, out);                                 \
    }
/* Threads, mutexes and condition variables: no check; their drops return a result (see below). */
#define ZM_CXX_SYSTEM(name)                                                                        \
    ZM_CXX_LOAN(z, name)                                                                           \
    ZM_CXX_LOAN_MUT(z, name)                                                                       \
    ZM_CXX_MOVE(z, name)                                                                           \
    ZM_CXX_NULL(z, name)                                                                           \
    ZM_CXX_TAKE(z, name)                                                                           \
    ZM_CXX_TYPE_MAPS(z, name)

ZM_CXX_OWNED(keyexpr)
ZM_CXX_OWNED(config)
ZM_CXX_OWNED(hello)
ZM_CXX_OWNED(string)
ZM_CXX_OWNED(string_array)
ZM_CXX_OWNED(sample)
ZM_CXX_OWNED(slice)
ZM_CXX_OWNED(bytes)
ZM_CXX_OWNED(encoding)
ZM_CXX_OWNED(query)
ZM_CXX_OWNED(reply)
ZM_CXX_OWNED(reply_err)
ZM_CXX_OWNED_BASE(z, bytes_writer)
ZM_CXX_TAKE_FROM_LOANED(z, bytes_writer)
ZM_CXX_OWNED_BASE(ze, serializer)
ZM_CXX_TAKE_FROM_LOANED(ze, serializer)
ZM_CXX_OWNED_BASE(z, session)
ZM_CXX_OWNED_BASE(z, subscriber)
ZM_CXX_OWNED_BASE(z, publisher)
ZM_CXX_OWNED_BASE(z, queryable)
ZM_CXX_OWNED_BASE(z, querier)
ZM_CXX_OWNED_BASE(z, liveliness_token)
ZM_CXX_OWNED_BASE(z, matching_listener)
#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
ZM_CXX_OWNED_BASE(z, cancellation_token)
ZM_CXX_CLONE(z, cancellation_token)
#endif
#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_PUBLICATION == 1
ZM_CXX_OWNED_BASE(ze, advanced_publisher)
#endif
#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_SUBSCRIPTION == 1
ZM_CXX_OWNED_BASE(ze, advanced_subscriber)
ZM_CXX_OWNED_BASE(ze, sample_miss_listener)
ZM_CXX_LOAN(ze, closure_miss)
ZM_CXX_MOVE(ze, closure_miss)
ZM_CXX_DROP(ze, closure_miss)
ZM_CXX_CHECK(ze, closure_miss)
ZM_CXX_NULL(ze, closure_miss)
ZM_CXX_TAKE(ze, closure_miss)
ZM_CXX_TYPE_MAPS(ze, closure_miss)
inline void z_call(const ze_loaned_closure_miss_t &closure, const ze_miss_t *miss) { ze_closure_miss_call(&closure, miss); }
inline void z_closure(ze_owned_closure_miss_t *closure, ze_closure_miss_callback_t call, z_closure_drop_callback_t drop = 0,
                      void *context = 0)
{
    closure->_val.call = call;
    closure->_val.drop = drop;
    closure->_val.context = context;
}
#endif

#if Z_FEATURE_CONNECTIVITY == 1
ZM_CXX_OWNED(transport)
ZM_CXX_OWNED(link)
ZM_CXX_OWNED(transport_event)
ZM_CXX_OWNED(link_event)
ZM_CXX_OWNED_BASE(z, transport_events_listener)
ZM_CXX_OWNED_BASE(z, link_events_listener)
ZM_CXX_CLOSURE(transport, z_loaned_transport_t *)
ZM_CXX_CLOSURE(link, z_loaned_link_t *)
ZM_CXX_CLOSURE(transport_event, z_loaned_transport_event_t *)
ZM_CXX_CLOSURE(link_event, z_loaned_link_event_t *)
#endif
ZM_CXX_VIEW(keyexpr)
ZM_CXX_VIEW(string)
ZM_CXX_VIEW(slice)
ZM_CXX_CLOSURE(sample, z_loaned_sample_t *)
ZM_CXX_CLOSURE(query, z_loaned_query_t *)
ZM_CXX_CLOSURE(reply, z_loaned_reply_t *)
ZM_CXX_CLOSURE(hello, z_loaned_hello_t *)
ZM_CXX_CLOSURE(zid, const z_id_t *)
ZM_CXX_CLOSURE(matching_status, const z_matching_status_t *)
ZM_CXX_HANDLER(fifo, sample)
ZM_CXX_HANDLER(ring, sample)
ZM_CXX_HANDLER(fifo, query)
ZM_CXX_HANDLER(ring, query)
ZM_CXX_HANDLER(fifo, reply)
ZM_CXX_HANDLER(ring, reply)
ZM_CXX_SYSTEM(task)
ZM_CXX_SYSTEM(mutex)
ZM_CXX_SYSTEM(condvar)

/** Dropping a task joins it, as the C selection does (z_task_drop would detach it). */
inline z_result_t z_drop(z_moved_task_t *x) { return z_task_join(x); }
inline z_result_t z_drop(z_moved_mutex_t *x) { return z_mutex_drop(x); }
inline z_result_t z_drop(z_moved_condvar_t *x) { return z_condvar_drop(x); }

#undef ZM_CXX_LOAN
#undef ZM_CXX_LOAN_MUT
#undef ZM_CXX_MOVE
#undef ZM_CXX_DROP
#undef ZM_CXX_CHECK
#undef ZM_CXX_NULL
#undef ZM_CXX_TAKE
#undef ZM_CXX_CLONE
#undef ZM_CXX_TAKE_FROM_LOANED
#undef ZM_CXX_TYPE_MAPS
#undef ZM_CXX_OWNED_BASE
#undef ZM_CXX_OWNED
#undef ZM_CXX_VIEW
#undef ZM_CXX_CLOSURE
#undef ZM_CXX_HANDLER
#undef ZM_CXX_SYSTEM

} /* extern "C++" */

#endif /* __cplusplus */

#endif /* ZMOTE_API_MACROS_H */
