/**
 * @file
 * The types of the Zenoh C API, laid out exactly as zenoh-pico 1.x lays them out so that its
 * programs build unchanged: for each object X an owned struct z_owned_X_t wrapping the object
 * in a member `_val` (`_rc` for reference-counted handles), a loaned type z_loaned_X_t that is
 * the object itself, a moved struct z_moved_X_t wrapping the owned one in `_this`, and for
 * key expressions, strings and slices a view struct z_view_X_t wrapping it in `_val`.
 *
 * `_val`, `_this` and `_rc` are the only identifiers of zmote that start with an underscore:
 * existing programs name them (`z_owned_bytes_t p = {._val = sample->payload};`, and the
 * z_closure macro assigns `(c)->_val.call`), so they are part of the API. The objects inside
 * are zmote's own zm_api_* structs; programs should not touch their members.
 */
#ifndef ZMOTE_API_TYPES_H
#define ZMOTE_API_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/api/constants.h"
#include "zmote/opt.h"
#include "zmote/result.h"

/* ---- how the owned, loaned, moved and view types are made ----------------------------------- */

#define ZM_OWNED_TYPE(inner, name)         \
    typedef struct {                       \
        inner _val;                        \
    } z_owned_##name##_t;                  \
    typedef inner z_loaned_##name##_t;     \
    typedef struct {                       \
        z_owned_##name##_t _this;          \
    } z_moved_##name##_t;

#define ZM_OWNED_TYPE_RC(inner, name)      \
    typedef struct {                       \
        inner _rc;                         \
    } z_owned_##name##_t;                  \
    typedef inner z_loaned_##name##_t;     \
    typedef struct {                       \
        z_owned_##name##_t _this;          \
    } z_moved_##name##_t;

#define ZM_VIEW_TYPE(inner, name) \
    typedef struct {              \
        inner _val;               \
    } z_view_##name##_t;

/* ---- byte runs: slices, strings, bytes ------------------------------------------------------- */

/*
 * Who keeps a byte run alive. NULL: nobody; the bytes are borrowed (a view, or data handed to a
 * callback) and copying them is the only way to keep them. Otherwise a reference-counted holder
 * inside the library: cloning adds a reference and never copies, dropping the last reference
 * frees the bytes or calls the deleter given with them (once). Static data has a holder that
 * is never released.
 */
struct zm_owner;

/** A run of bytes and its keeper; the inner object of z_owned_slice_t and z_view_slice_t. */
typedef struct {
    const uint8_t *start;
    size_t len;
    struct zm_owner *owner;
} zm_api_slice_t;

/** Text, not NUL-terminated in general (strings the library allocates do carry one). */
typedef struct {
    zm_api_slice_t slice;
} zm_api_string_t;

/** A payload: one contiguous run of bytes (zmote never splits a payload into several runs). */
typedef struct {
    zm_api_slice_t slice;
} zm_api_bytes_t;

/** A growing buffer that becomes a payload (z_bytes_writer_finish). */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
    struct zm_owner *owner;
} zm_api_bytes_writer_t;

/** An array of strings, each owned or borrowed on its own. */
typedef struct {
    zm_api_string_t *items;
    size_t len;
    size_t cap;
} zm_api_string_array_t;

ZM_OWNED_TYPE(zm_api_slice_t, slice)
ZM_VIEW_TYPE(zm_api_slice_t, slice)
ZM_OWNED_TYPE(zm_api_string_t, string)
ZM_VIEW_TYPE(zm_api_string_t, string)
ZM_OWNED_TYPE(zm_api_bytes_t, bytes)
ZM_OWNED_TYPE(zm_api_bytes_writer_t, bytes_writer)
ZM_OWNED_TYPE(zm_api_string_array_t, string_array)

/** A read cursor over a payload; a plain value, valid while the payload is. */
typedef struct {
    const zm_api_bytes_t *bytes;
    size_t pos;
} z_bytes_reader_t;

/** Walks the contiguous runs of a payload (zmote payloads have at most one). */
typedef struct {
    const zm_api_bytes_t *bytes;
    size_t index;
} z_bytes_slice_iterator_t;

/* ---- ids, timestamps, sources ---------------------------------------------------------------- */

/** A zenoh id: 16 bytes, little-endian, unused high bytes zero. */
typedef struct {
    uint8_t id[16];
} z_id_t;

/** An HLC timestamp: NTP64 time and the id of the clock that made it. */
typedef struct {
    bool valid;
    z_id_t id;
    uint64_t time;
} z_timestamp_t;

typedef struct {
    z_id_t zid;
    uint32_t eid;
} z_entity_global_id_t;

typedef struct {
    z_entity_global_id_t source_id;
    uint32_t source_sn;
} z_source_info_t;

/* ---- key expressions, encodings, configuration ---------------------------------------------- */

struct zm_api_session;

/**
 * A key expression: its text and, once declared with z_declare_keyexpr, the numeric id it has
 * on the session that declared it (session is only compared, never followed).
 */
typedef struct {
    zm_api_string_t key;
    uint16_t id;
    const struct zm_api_session *session;
} zm_api_keyexpr_t;

ZM_OWNED_TYPE(zm_api_keyexpr_t, keyexpr)
ZM_VIEW_TYPE(zm_api_keyexpr_t, keyexpr)

/** An encoding: a numeric id from the table of z_encoding_*() and an optional schema. */
typedef struct {
    uint16_t id;
    zm_api_string_t schema;
} zm_api_encoding_t;

ZM_OWNED_TYPE(zm_api_encoding_t, encoding)

typedef struct {
    uint8_t key;
    char *value; /* owned, NUL-terminated */
} zm_api_config_entry_t;

/** A configuration: a small table of (key, copied string) pairs, in insertion order. */
typedef struct {
    uint8_t n;
    zm_api_config_entry_t entries[ZM_CONFIG_ENTRIES_MAX];
} zm_api_config_t;

ZM_OWNED_TYPE(zm_api_config_t, config)

/* ---- samples --------------------------------------------------------------------------------- */

/**
 * A sample. Inside a subscriber callback every part borrows the received message; an owned
 * sample (z_sample_clone, a channel) owns its parts.
 */
typedef struct {
    zm_api_keyexpr_t keyexpr;
    zm_api_bytes_t payload;
    z_timestamp_t timestamp;
    zm_api_encoding_t encoding;
    z_sample_kind_t kind;
    z_priority_t priority;
    z_congestion_control_t congestion_control;
    bool express;
    zm_api_bytes_t attachment;
    z_reliability_t reliability;
    bool has_source_info;
    z_source_info_t source_info;
} zm_api_sample_t;

ZM_OWNED_TYPE(zm_api_sample_t, sample)

/* ---- sessions and their entities ------------------------------------------------------------- */

/** A counted reference to a session; the inner object of z_owned_session_t. */
typedef struct {
    struct zm_api_session *ptr;
} zm_api_session_ref_t;

ZM_OWNED_TYPE_RC(zm_api_session_ref_t, session)

typedef struct {
    struct zm_api_session *session; /* counted reference */
    uint32_t id;
    uint16_t key_id;
    zm_api_keyexpr_t keyexpr;
    zm_api_encoding_t encoding;
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    bool is_express;
    z_reliability_t reliability;
    z_locality_t allowed_destination;
} zm_api_publisher_t;

ZM_OWNED_TYPE(zm_api_publisher_t, publisher)

typedef struct {
    struct zm_api_session *session; /* counted reference */
    uint32_t id;
    zm_api_keyexpr_t keyexpr;
    bool liveliness; /* a liveliness subscriber (z_liveliness_declare_subscriber) */
} zm_api_subscriber_t;

ZM_OWNED_TYPE(zm_api_subscriber_t, subscriber)

/* ---- queries and replies -------------------------------------------------------------------- */

struct zm_query_rec;

/**
 * A query received by a queryable. Inside the callback it borrows the received message (in);
 * an owned query (z_query_clone) owns copies of its parts and keeps the query open (rec)
 * until dropped: the final response goes when the last one is.
 */
typedef struct {
    struct zm_api_session *session; /* counted reference when owned */
    void *in;                       /* the session's query, during the callback only */
    struct zm_query_rec *rec;       /* owned: what keeps the query open */
    uint32_t eid;                   /* the queryable that received it */
    zm_api_keyexpr_t keyexpr;
    zm_api_string_t parameters;
    zm_api_bytes_t payload;
    zm_api_encoding_t encoding;
    zm_api_bytes_t attachment;
    bool has_source_info;
    z_source_info_t source_info;
} zm_api_query_t;

ZM_OWNED_TYPE(zm_api_query_t, query)

typedef struct {
    zm_api_bytes_t payload;
    zm_api_encoding_t encoding;
} zm_api_reply_err_t;

ZM_OWNED_TYPE(zm_api_reply_err_t, reply_err)

#define ZM_API_REPLY_NULL 0
#define ZM_API_REPLY_OK 1
#define ZM_API_REPLY_ERR 2

/** A reply to a get: a sample, or an error. Borrowed inside the callback, owned once cloned. */
typedef struct {
    uint8_t state; /* ZM_API_REPLY_* */
    zm_api_sample_t sample;
    zm_api_reply_err_t err;
    bool has_replier;
    z_entity_global_id_t replier_id;
} zm_api_reply_t;

ZM_OWNED_TYPE(zm_api_reply_t, reply)

typedef struct {
    struct zm_api_session *session; /* counted reference */
    uint32_t id;
    zm_api_keyexpr_t keyexpr; /* a copy (empty if memory ran out) */
} zm_api_queryable_t;

ZM_OWNED_TYPE(zm_api_queryable_t, queryable)

/** A querier: a key expression and the options its gets share. */
typedef struct {
    struct zm_api_session *session; /* counted reference */
    uint32_t id;
    zm_api_keyexpr_t keyexpr;
    zm_api_encoding_t encoding;
    z_query_target_t target;
    z_consolidation_mode_t consolidation;
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    bool is_express;
    z_locality_t allowed_destination;
    uint64_t timeout_ms;
    z_reply_keyexpr_t accept_replies;
} zm_api_querier_t;

ZM_OWNED_TYPE(zm_api_querier_t, querier)

/* ---- matching ------------------------------------------------------------------------------------ */

/** Whether any subscriber matches a publisher's key expression. */
typedef struct {
    bool matching;
} z_matching_status_t;

typedef struct {
    struct zm_api_session *session; /* counted reference */
    uint32_t id;
} zm_api_matching_listener_t;

ZM_OWNED_TYPE(zm_api_matching_listener_t, matching_listener)

/* ---- scouting results (declared for source compatibility; zmote does not scout yet) ----------- */

typedef struct {
    z_id_t zid;
    z_whatami_t whatami;
    zm_api_string_array_t locators;
} zm_api_hello_t;

ZM_OWNED_TYPE(zm_api_hello_t, hello)

/* ---- closures -------------------------------------------------------------------------------- */

/** Releases a closure's context; called once, when the closure is dropped. */
typedef void (*z_closure_drop_callback_t)(void *context);
typedef void (*z_closure_sample_callback_t)(z_loaned_sample_t *sample, void *context);
typedef void (*z_closure_zid_callback_t)(const z_id_t *id, void *context);
typedef void (*z_closure_hello_callback_t)(z_loaned_hello_t *hello, void *context);
typedef void (*z_closure_query_callback_t)(z_loaned_query_t *query, void *context);
typedef void (*z_closure_reply_callback_t)(z_loaned_reply_t *reply, void *context);
typedef void (*z_closure_matching_status_callback_t)(const z_matching_status_t *status, void *context);

/* The member names context/call/drop are used by the z_closure macro. */
typedef struct {
    void *context;
    z_closure_sample_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_sample_t;

typedef struct {
    void *context;
    z_closure_zid_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_zid_t;

typedef struct {
    void *context;
    z_closure_hello_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_hello_t;

typedef struct {
    void *context;
    z_closure_query_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_query_t;

typedef struct {
    void *context;
    z_closure_reply_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_reply_t;

typedef struct {
    void *context;
    z_closure_matching_status_callback_t call;
    z_closure_drop_callback_t drop;
} zm_api_closure_matching_status_t;

ZM_OWNED_TYPE(zm_api_closure_sample_t, closure_sample)
ZM_OWNED_TYPE(zm_api_closure_matching_status_t, closure_matching_status)
ZM_OWNED_TYPE(zm_api_closure_query_t, closure_query)
ZM_OWNED_TYPE(zm_api_closure_reply_t, closure_reply)
ZM_OWNED_TYPE(zm_api_closure_zid_t, closure_zid)
ZM_OWNED_TYPE(zm_api_closure_hello_t, closure_hello)

/* ---- channel handlers ------------------------------------------------------------------------ */

struct zm_api_channel;

/* One struct per kind and item so that the z_recv / z_loan selections tell them apart. */
#define ZM_HANDLER_TYPE(name)              \
    typedef struct {                       \
        struct zm_api_channel *ptr;        \
    } zm_api_##name##_t;                   \
    ZM_OWNED_TYPE_RC(zm_api_##name##_t, name)

ZM_HANDLER_TYPE(fifo_handler_sample)
ZM_HANDLER_TYPE(ring_handler_sample)
ZM_HANDLER_TYPE(fifo_handler_query)
ZM_HANDLER_TYPE(ring_handler_query)
ZM_HANDLER_TYPE(fifo_handler_reply)
ZM_HANDLER_TYPE(ring_handler_reply)

/* ---- platform objects ------------------------------------------------------------------------ */

/** Thread attributes; zmote starts every thread with the platform's defaults, pass NULL. */
typedef struct zm_task_attr z_task_attr_t;

typedef struct {
    struct zm_api_task *ptr;
} zm_api_task_t;

typedef struct {
    struct zm_api_mutex *ptr;
} zm_api_mutex_t;

typedef struct {
    struct zm_api_condvar *ptr;
} zm_api_condvar_t;

ZM_OWNED_TYPE(zm_api_task_t, task)
ZM_OWNED_TYPE(zm_api_mutex_t, mutex)
ZM_OWNED_TYPE(zm_api_condvar_t, condvar)

/**
 * An instant of the monotonic clock. The wall-clock reading taken with it gives elapsed times
 * microsecond resolution when the two clocks agree (see z_clock_elapsed_us).
 */
typedef struct {
    uint64_t mono_ms;
    uint64_t wall_ns;
} z_clock_t;

/** An instant of the wall clock, in nanoseconds since the UNIX epoch. */
typedef struct {
    uint64_t ns;
} z_time_t;

/* ---- options --------------------------------------------------------------------------------- */

typedef struct {
#if Z_FEATURE_MULTI_THREAD == 1
    bool auto_start_read_task;  /* default true: start the session's tasks in z_open */
    bool auto_start_lease_task; /* ignored, kept for source compatibility */
    z_task_attr_t *executor_task_attributes; /* ignored */
#endif
#if Z_FEATURE_ADMIN_SPACE == 1
    bool auto_start_admin_space;
#endif
#if Z_FEATURE_ADMIN_SPACE == 0 && Z_FEATURE_MULTI_THREAD == 0
    uint8_t reserved;
#endif
} z_open_options_t;

typedef struct {
    uint8_t reserved;
} z_close_options_t;

typedef struct {
    z_moved_encoding_t *encoding;
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    z_timestamp_t *timestamp;
    bool is_express;
    z_moved_bytes_t *attachment;
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination;
#endif
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability;
    z_source_info_t *source_info;
#endif
} z_put_options_t;

typedef struct {
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    bool is_express;
    z_timestamp_t *timestamp;
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination;
#endif
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability;
    z_source_info_t *source_info;
#endif
} z_delete_options_t;

typedef struct {
    z_moved_encoding_t *encoding;
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    bool is_express;
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability;
#endif
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination;
#endif
} z_publisher_options_t;

typedef struct {
    z_moved_encoding_t *encoding;
    z_timestamp_t *timestamp;
    z_moved_bytes_t *attachment;
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;
#endif
} z_publisher_put_options_t;

typedef struct {
    z_timestamp_t *timestamp;
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;
#endif
} z_publisher_delete_options_t;

typedef struct {
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_origin;
#else
    uint8_t reserved;
#endif
} z_subscriber_options_t;

typedef struct {
    z_consolidation_mode_t mode;
} z_query_consolidation_t;

struct zm_api_cancel;

/** A counted reference to a cancellation token shared by the gets given it (unstable API). */
typedef struct {
    struct zm_api_cancel *ptr;
} zm_api_cancellation_token_t;

ZM_OWNED_TYPE_RC(zm_api_cancellation_token_t, cancellation_token)

typedef struct {
    z_moved_bytes_t *payload;
    z_moved_encoding_t *encoding;
    z_query_consolidation_t consolidation;
    z_congestion_control_t congestion_control;
    z_priority_t priority;
    bool is_express;
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_destination;
#endif
    z_query_target_t target;
    uint64_t timeout_ms; /* 0: Z_GET_TIMEOUT_DEFAULT */
    z_moved_bytes_t *attachment;
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;
    z_moved_cancellation_token_t *cancellation_token;
#endif
    z_reply_keyexpr_t accept_replies;
} z_get_options_t;

typedef struct z_querier_options_t {
    z_moved_encoding_t *encoding;
    z_query_target_t target;
    z_query_consolidation_t consolidation;
    z_congestion_control_t congestion_control;
    bool is_express;
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_destination;
#endif
    z_priority_t priority;
    uint64_t timeout_ms;
    z_reply_keyexpr_t accept_replies;
} z_querier_options_t;

typedef struct z_querier_get_options_t {
    z_moved_bytes_t *payload;
    z_moved_encoding_t *encoding;
    z_moved_bytes_t *attachment;
#ifdef Z_FEATURE_UNSTABLE_API
    z_moved_cancellation_token_t *cancellation_token;
    z_source_info_t *source_info;
#endif
} z_querier_get_options_t;

typedef struct {
    bool complete;
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_origin;
#endif
} z_queryable_options_t;

typedef struct {
    z_moved_encoding_t *encoding;
    z_congestion_control_t congestion_control; /* ignored: a reply goes as its query came */
    z_priority_t priority;                     /* ignored: a reply goes as its query came */
    z_timestamp_t *timestamp;
    bool is_express;
    z_moved_bytes_t *attachment;
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;
#endif
} z_query_reply_options_t;

typedef struct {
    z_congestion_control_t congestion_control; /* ignored: a reply goes as its query came */
    z_priority_t priority;                     /* ignored: a reply goes as its query came */
    z_timestamp_t *timestamp;
    bool is_express;
    z_moved_bytes_t *attachment;
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;
#endif
} z_query_reply_del_options_t;

typedef struct {
    z_moved_encoding_t *encoding;
} z_query_reply_err_options_t;

typedef struct {
    uint32_t timeout_ms;
    z_what_t what;
} z_scout_options_t;

#if Z_FEATURE_MULTI_THREAD == 1
typedef struct {
    z_task_attr_t *task_attributes; /* ignored */
} zp_task_read_options_t;

typedef struct {
    z_task_attr_t *task_attributes; /* ignored */
} zp_task_lease_options_t;
#else
typedef struct {
    bool single_read; /* read one batch instead of all that is ready */
} zp_read_options_t;

typedef struct {
    uint8_t reserved;
} zp_send_keep_alive_options_t;

typedef struct {
    uint8_t reserved;
} zp_send_join_options_t;
#endif

#endif /* ZMOTE_API_TYPES_H */
