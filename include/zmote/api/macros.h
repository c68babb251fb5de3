/**
 * @file
 * The generic macros of the Zenoh C API (z_loan, z_move, z_drop, z_clone, z_take, z_call,
 * z_recv, z_closure, ...): C11 _Generic selections that pick the per-type function from the
 * argument's type, exactly in zenoh-pico's forms, so that `z_drop(z_move(x))` and friends work
 * for every type zmote has. C++ and C99 programs call the per-type functions directly.
 */
#ifndef ZMOTE_API_MACROS_H
#define ZMOTE_API_MACROS_H

#include "zmote/api/encoding.h"
#include "zmote/api/handlers.h"
#include "zmote/api/liveliness.h"
#include "zmote/api/platform.h"
#include "zmote/api/primitives.h"
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_loan) \
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_loan_mut) \
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_cancellation_token_move) \
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
        ZM_GENERIC_CANCEL(z_moved_cancellation_token_t *, z_cancellation_token_drop) \
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t, z_internal_cancellation_token_check) \
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t *, z_cancellation_token_take) \
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
        ZM_GENERIC_CANCEL(z_owned_cancellation_token_t *, z_internal_cancellation_token_null) \
        z_owned_closure_sample_t *: z_internal_closure_sample_null,         \
        z_owned_closure_zid_t *: z_internal_closure_zid_null,               \
        z_owned_closure_hello_t *: z_internal_closure_hello_null)(x)

/** Calls a loaned closure (an lvalue, e.g. `*z_loan(c)`) with the remaining arguments. */
#define z_call(x, ...)                                       \
    _Generic((x),                                            \
        z_loaned_closure_query_t: z_closure_query_call, \
        z_loaned_closure_reply_t: z_closure_reply_call, \
        z_loaned_closure_matching_status_t: z_closure_matching_status_call, \
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

#endif /* ZMOTE_API_MACROS_H */
