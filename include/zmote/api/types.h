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

#ifdef __cplusplus
extern "C" {
#endif

/* ---- how the owned, loaned, moved and view types are made ----------------------------------- */

/**
 * Makes the types of an object `name` whose inner struct is `inner`:
 * - `z_owned_<name>_t`, what the program owns: `inner` in a member `_val`. It is either valid or
 *   in the null ("gravestone") state, and dropping it (z_drop(z_move(x))) releases what it holds;
 * - `z_loaned_<name>_t`, the object itself (`inner`), which functions borrow through a pointer
 *   (z_loan(x), z_loan_mut(x));
 * - `z_moved_<name>_t`, the owned struct in a member `_this`: a function that takes a
 *   `z_moved_<name>_t *` (made by z_move(x)) takes ownership, and leaves x null.
 *
 * Made this way: slice, string, bytes, bytes_writer, string_array, keyexpr, encoding, config,
 * sample, publisher, subscriber, query, reply_err, reply, queryable, querier, matching_listener,
 * hello, liveliness_token, the closures (closure_sample, closure_zid, closure_hello,
 * closure_query, closure_reply, closure_matching_status) and task, mutex, condvar. The per-type
 * functions of each are made by ZM_OWNED_FUNCTIONS and its siblings (zmote/api/primitives.h).
 */
#define ZM_OWNED_TYPE(inner, name)         \
    typedef struct {                       \
        inner _val;                        \
    } z_owned_##name##_t;                  \
    typedef inner z_loaned_##name##_t;     \
    typedef struct {                       \
        z_owned_##name##_t _this;          \
    } z_moved_##name##_t;

/**
 * As ZM_OWNED_TYPE for an object shared by reference counting: the owned struct holds `inner`
 * in a member `_rc`. Made this way: session, cancellation_token and the channel handlers
 * (fifo_handler_sample, ring_handler_sample, fifo_handler_query, ring_handler_query,
 * fifo_handler_reply, ring_handler_reply).
 */
#define ZM_OWNED_TYPE_RC(inner, name)      \
    typedef struct {                       \
        inner _rc;                         \
    } z_owned_##name##_t;                  \
    typedef inner z_loaned_##name##_t;     \
    typedef struct {                       \
        z_owned_##name##_t _this;          \
    } z_moved_##name##_t;

/**
 * Makes `z_view_<name>_t`, a view: `inner` in a member `_val`, showing bytes the view does not
 * own (they must outlive it), never dropped. Made for slice, string and keyexpr; a view is loaned
 * as its owned counterpart is (z_loan(v)) and gives the same `z_loaned_<name>_t`.
 */
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

/**
 * A run of bytes and its keeper; the inner object of z_owned_slice_t and z_view_slice_t (so
 * z_loaned_slice_t). Programs read it with z_slice_data() and z_slice_len().
 */
typedef struct {
    const uint8_t *start;   /**< first byte (NULL when empty) */
    size_t len;             /**< bytes from start */
    struct zm_owner *owner; /**< who keeps the bytes alive; NULL: borrowed */
} zm_api_slice_t;

/**
 * Text, not NUL-terminated in general (strings the library allocates do carry one); the inner
 * object of z_owned_string_t and z_view_string_t. Read it with z_string_data() and z_string_len().
 */
typedef struct {
    zm_api_slice_t slice; /**< the text's bytes */
} zm_api_string_t;

/**
 * A payload: one contiguous run of bytes, or several when z_bytes_writer_append was given payloads
 * (it keeps them as they are, without copying, as zenoh-pico and Rust do); the inner object of
 * z_owned_bytes_t. With several runs, slice.start is NULL, slice.len their total and slice.owner
 * the holder of the runs.
 */
typedef struct {
    zm_api_slice_t slice; /**< the payload's bytes */
} zm_api_bytes_t;

/** A growing buffer that becomes a payload (z_bytes_writer_finish); the inner object of z_owned_bytes_writer_t. */
typedef struct {
    uint8_t *data;          /**< the bytes written so far */
    size_t len;             /**< bytes written */
    size_t cap;             /**< bytes data can hold */
    struct zm_owner *owner; /**< the holder data belongs to */
    struct zm_owner *runs;  /**< the runs before data (z_bytes_writer_append), or NULL */
} zm_api_bytes_writer_t;

/** An array of strings, each owned or borrowed on its own; the inner object of z_owned_string_array_t. */
typedef struct {
    zm_api_string_t *items; /**< the strings */
    size_t len;             /**< strings in items */
    size_t cap;             /**< strings items can hold */
} zm_api_string_array_t;

ZM_OWNED_TYPE(zm_api_slice_t, slice)
ZM_VIEW_TYPE(zm_api_slice_t, slice)
ZM_OWNED_TYPE(zm_api_string_t, string)
ZM_VIEW_TYPE(zm_api_string_t, string)
ZM_OWNED_TYPE(zm_api_bytes_t, bytes)
ZM_OWNED_TYPE(zm_api_bytes_writer_t, bytes_writer)
ZM_OWNED_TYPE(zm_api_string_array_t, string_array)

/** A read cursor over a payload (z_bytes_get_reader); a plain value, valid while the payload is. */
typedef struct {
    const zm_api_bytes_t *bytes; /**< the payload read (borrowed) */
    size_t pos;                  /**< offset of the next byte to read */
} z_bytes_reader_t;

/** Walks the contiguous runs of a payload; a plain value. */
typedef struct {
    const zm_api_bytes_t *bytes; /**< the payload walked (borrowed) */
    size_t index;                /**< runs already given */
} z_bytes_slice_iterator_t;

/* ---- ids, timestamps, sources ---------------------------------------------------------------- */

/** A zenoh id: 16 bytes, little-endian, unused high bytes zero. */
typedef struct {
    uint8_t id[16]; /**< the id's bytes, least significant first */
} z_id_t;

/** An HLC timestamp: NTP64 time and the id of the clock that made it. */
typedef struct {
    bool valid;    /**< false: no timestamp */
    z_id_t id;     /**< the zid of the clock that made it */
    uint64_t time; /**< NTP64: seconds since the UNIX epoch in the high 32 bits, fraction in the low 32 */
} z_timestamp_t;

/** The global id of an entity: its session's zid and its number within the session (0: the session). */
typedef struct {
    z_id_t zid;   /**< the session's zid */
    uint32_t eid; /**< the entity's number in its session */
} z_entity_global_id_t;

/** Where a sample, query or reply comes from: the entity that sent it and its sequence number. */
typedef struct {
    z_entity_global_id_t source_id; /**< the sending entity */
    uint32_t source_sn;             /**< the sender's sequence number */
} z_source_info_t;

/* ---- key expressions, encodings, configuration ---------------------------------------------- */

struct zm_api_session;

/**
 * A key expression: its text and, once declared with z_declare_keyexpr, the numeric id it has
 * on the session that declared it (session is only compared, never followed).
 */
typedef struct {
    zm_api_string_t key;                  /**< the key expression's text */
    uint16_t id;                          /**< its declared id (0: not declared) */
    const struct zm_api_session *session; /**< the session that declared it (NULL: none) */
} zm_api_keyexpr_t;

ZM_OWNED_TYPE(zm_api_keyexpr_t, keyexpr)
ZM_VIEW_TYPE(zm_api_keyexpr_t, keyexpr)

/** An encoding: a numeric id from the table of z_encoding_*() and an optional schema. */
typedef struct {
    uint16_t id;            /**< the id, as ZM_ENCODING_LIST numbers them (0: zenoh/bytes) */
    zm_api_string_t schema; /**< the schema (empty: none) */
} zm_api_encoding_t;

ZM_OWNED_TYPE(zm_api_encoding_t, encoding)

/** One entry of a configuration. */
typedef struct {
    uint8_t key; /**< a Z_CONFIG_*_KEY */
    char *value; /**< owned, NUL-terminated */
} zm_api_config_entry_t;

/** A configuration: a small table of (key, copied string) pairs, in insertion order. */
typedef struct {
    uint8_t n;                                            /**< entries in use */
    zm_api_config_entry_t entries[ZM_CONFIG_ENTRIES_MAX]; /**< the entries, oldest first */
} zm_api_config_t;

ZM_OWNED_TYPE(zm_api_config_t, config)

/* ---- samples --------------------------------------------------------------------------------- */

/**
 * A sample. Inside a subscriber callback every part borrows the received message; an owned
 * sample (z_sample_clone, a channel) owns its parts.
 */
typedef struct {
    zm_api_keyexpr_t keyexpr;                  /**< z_sample_keyexpr() */
    zm_api_bytes_t payload;                    /**< z_sample_payload() */
    z_timestamp_t timestamp;                   /**< z_sample_timestamp() */
    zm_api_encoding_t encoding;                /**< z_sample_encoding() */
    z_sample_kind_t kind;                      /**< z_sample_kind() */
    z_priority_t priority;                     /**< z_sample_priority() */
    z_congestion_control_t congestion_control; /**< z_sample_congestion_control() */
    bool express;                              /**< z_sample_express() */
    zm_api_bytes_t attachment;                 /**< z_sample_attachment() */
    z_reliability_t reliability;               /**< z_sample_reliability() */
    bool has_source_info;                      /**< whether source_info was sent */
    z_source_info_t source_info;               /**< z_sample_source_info() */
} zm_api_sample_t;

ZM_OWNED_TYPE(zm_api_sample_t, sample)

/* ---- sessions and their entities ------------------------------------------------------------- */

/** A counted reference to a session; the inner object of z_owned_session_t. */
typedef struct {
    struct zm_api_session *ptr; /**< the session's shared record */
} zm_api_session_ref_t;

ZM_OWNED_TYPE_RC(zm_api_session_ref_t, session)

/** A publisher: the inner object of z_owned_publisher_t (z_declare_publisher). */
typedef struct {
    struct zm_api_session *session;            /**< counted reference */
    uint32_t id;                               /**< its entity id */
    uint16_t key_id;                           /**< the id its key expression was declared with */
    zm_api_keyexpr_t keyexpr;                  /**< a copy of its key expression */
    zm_api_encoding_t encoding;                /**< default encoding of its puts */
    z_congestion_control_t congestion_control; /**< of its puts and deletes */
    z_priority_t priority;                     /**< of its puts and deletes */
    bool is_express;                           /**< its messages are sent at once, unbatched */
    z_reliability_t reliability;               /**< of its puts and deletes */
    z_locality_t allowed_destination;          /**< where its puts may go */
    uint8_t head[20];                          /**< zmote's own: its puts without options, pre-encoded */
} zm_api_publisher_t;

ZM_OWNED_TYPE(zm_api_publisher_t, publisher)

/** A subscriber: the inner object of z_owned_subscriber_t (z_declare_subscriber, z_liveliness_declare_subscriber). */
typedef struct {
    struct zm_api_session *session; /**< counted reference */
    uint32_t id;                    /**< its entity id */
    zm_api_keyexpr_t keyexpr;       /**< a copy of its key expression */
    bool liveliness;                /**< a liveliness subscriber (z_liveliness_declare_subscriber) */
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
    struct zm_api_session *session; /**< counted reference when owned */
    void *in;                       /**< the session's query, during the callback only */
    struct zm_query_rec *rec;       /**< owned: what keeps the query open */
    uint32_t eid;                   /**< the queryable that received it */
    zm_api_keyexpr_t keyexpr;       /**< z_query_keyexpr() */
    zm_api_string_t parameters;     /**< z_query_parameters() */
    zm_api_bytes_t payload;         /**< z_query_payload() */
    zm_api_encoding_t encoding;     /**< z_query_encoding() */
    zm_api_bytes_t attachment;      /**< z_query_attachment() */
    bool has_source_info;           /**< whether source_info was sent */
    z_source_info_t source_info;    /**< z_query_source_info() */
} zm_api_query_t;

ZM_OWNED_TYPE(zm_api_query_t, query)

/** An error reply: the inner object of z_owned_reply_err_t (z_reply_err). */
typedef struct {
    zm_api_bytes_t payload;     /**< z_reply_err_payload() */
    zm_api_encoding_t encoding; /**< z_reply_err_encoding() */
} zm_api_reply_err_t;

ZM_OWNED_TYPE(zm_api_reply_err_t, reply_err)

/** zm_api_reply_t::state of a null reply. */
#define ZM_API_REPLY_NULL 0
/** zm_api_reply_t::state of a reply carrying a sample. */
#define ZM_API_REPLY_OK 1
/** zm_api_reply_t::state of a reply carrying an error. */
#define ZM_API_REPLY_ERR 2

/** A reply to a get: a sample, or an error. Borrowed inside the callback, owned once cloned. */
typedef struct {
    uint8_t state;                   /**< ZM_API_REPLY_* */
    zm_api_sample_t sample;          /**< z_reply_ok() */
    zm_api_reply_err_t err;          /**< z_reply_err() */
    bool has_replier;                /**< whether replier_id was sent */
    z_entity_global_id_t replier_id; /**< z_reply_replier_id() */
} zm_api_reply_t;

ZM_OWNED_TYPE(zm_api_reply_t, reply)

/** A queryable: the inner object of z_owned_queryable_t (z_declare_queryable). */
typedef struct {
    struct zm_api_session *session; /**< counted reference */
    uint32_t id;                    /**< its entity id */
    zm_api_keyexpr_t keyexpr;       /**< a copy (empty if memory ran out) */
} zm_api_queryable_t;

ZM_OWNED_TYPE(zm_api_queryable_t, queryable)

/** A querier: a key expression and the options its gets share. */
typedef struct {
    struct zm_api_session *session;            /**< counted reference */
    uint32_t id;                               /**< its entity id */
    uint16_t key_id;                           /**< the id its key expression was declared with */
    zm_api_keyexpr_t keyexpr;                  /**< a copy of its key expression */
    zm_api_encoding_t encoding;                /**< default encoding of its gets' payloads */
    z_query_target_t target;                   /**< of its gets */
    z_consolidation_mode_t consolidation;      /**< of its gets */
    z_congestion_control_t congestion_control; /**< of its gets */
    z_priority_t priority;                     /**< of its gets */
    bool is_express;                           /**< of its gets */
    z_locality_t allowed_destination;          /**< where its gets may go */
    uint64_t timeout_ms;                       /**< of its gets (0: Z_GET_TIMEOUT_DEFAULT) */
    z_reply_keyexpr_t accept_replies;          /**< of its gets */
} zm_api_querier_t;

ZM_OWNED_TYPE(zm_api_querier_t, querier)

/* ---- matching ------------------------------------------------------------------------------------ */

/** Whether any subscriber matches a publisher's key expression (any queryable, a querier's). */
typedef struct {
    bool matching; /**< true while one matches */
} z_matching_status_t;

/** A matching listener: the inner object of z_owned_matching_listener_t. */
typedef struct {
    struct zm_api_session *session; /**< counted reference */
    uint32_t id;                    /**< its entity id */
} zm_api_matching_listener_t;

ZM_OWNED_TYPE(zm_api_matching_listener_t, matching_listener)

/* ---- scouting results ------------------------------------------------------------------------- */

/** What a node answers to scouting: the inner object of z_owned_hello_t. */
typedef struct {
    z_id_t zid;                     /**< z_hello_zid() */
    z_whatami_t whatami;            /**< z_hello_whatami() */
    zm_api_string_array_t locators; /**< zp_hello_locators() */
} zm_api_hello_t;

ZM_OWNED_TYPE(zm_api_hello_t, hello)

/* ---- closures -------------------------------------------------------------------------------- */

/*
 * A closure is a call, a drop and their context. The library calls call(item, context) for each
 * item (sample, query, reply, zid, hello, matching status), on the thread the function that takes
 * the closure names, and drop(context) exactly once when the closure ends (its entity undeclared,
 * its get over, its session closed, or the declaration that took it failed); either may be NULL
 * in the struct, though the declaring functions refuse a NULL call. The item is borrowed for the
 * call only.
 */

/** Releases a closure's context; called once, when the closure is dropped. */
typedef void (*z_closure_drop_callback_t)(void *context);
/** Receives a sample, borrowed for the call (z_sample_clone keeps it). */
typedef void (*z_closure_sample_callback_t)(z_loaned_sample_t *sample, void *context);
/** Receives a zid, borrowed for the call. */
typedef void (*z_closure_zid_callback_t)(const z_id_t *id, void *context);
/** Receives a scouting answer, borrowed for the call. */
typedef void (*z_closure_hello_callback_t)(z_loaned_hello_t *hello, void *context);
/** Receives a query, borrowed for the call (z_query_clone keeps it, and keeps it open). */
typedef void (*z_closure_query_callback_t)(z_loaned_query_t *query, void *context);
/** Receives a reply, borrowed for the call (z_reply_clone keeps it). */
typedef void (*z_closure_reply_callback_t)(z_loaned_reply_t *reply, void *context);
/** Receives a new matching status, borrowed for the call. */
typedef void (*z_closure_matching_status_callback_t)(const z_matching_status_t *status, void *context);

/* The member names context/call/drop are used by the z_closure macro. */
/** A closure of samples: the inner object of z_owned_closure_sample_t. */
typedef struct {
    void *context;                    /**< given to call and drop */
    z_closure_sample_callback_t call; /**< called for each sample */
    z_closure_drop_callback_t drop;   /**< called once at the end (may be NULL) */
} zm_api_closure_sample_t;

/** A closure of zids: the inner object of z_owned_closure_zid_t. */
typedef struct {
    void *context;                  /**< given to call and drop */
    z_closure_zid_callback_t call;  /**< called for each zid */
    z_closure_drop_callback_t drop; /**< called once at the end (may be NULL) */
} zm_api_closure_zid_t;

/** A closure of scouting answers: the inner object of z_owned_closure_hello_t. */
typedef struct {
    void *context;                   /**< given to call and drop */
    z_closure_hello_callback_t call; /**< called for each answer */
    z_closure_drop_callback_t drop;  /**< called once at the end (may be NULL) */
} zm_api_closure_hello_t;

/** A closure of queries: the inner object of z_owned_closure_query_t. */
typedef struct {
    void *context;                   /**< given to call and drop */
    z_closure_query_callback_t call; /**< called for each query */
    z_closure_drop_callback_t drop;  /**< called once at the end (may be NULL) */
} zm_api_closure_query_t;

/** A closure of replies: the inner object of z_owned_closure_reply_t. */
typedef struct {
    void *context;                   /**< given to call and drop */
    z_closure_reply_callback_t call; /**< called for each reply */
    z_closure_drop_callback_t drop;  /**< called once, when the get ends (may be NULL) */
} zm_api_closure_reply_t;

/** A closure of matching statuses: the inner object of z_owned_closure_matching_status_t. */
typedef struct {
    void *context;                             /**< given to call and drop */
    z_closure_matching_status_callback_t call; /**< called at each change of status */
    z_closure_drop_callback_t drop;            /**< called once at the end (may be NULL) */
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
/**
 * Makes the receiving end of a channel, `zm_api_<name>_t` (a reference to the channel), and its
 * owned, loaned and moved types as ZM_OWNED_TYPE_RC does: `z_owned_<name>_t` and so on, for
 * fifo_handler_sample, ring_handler_sample, fifo_handler_query, ring_handler_query,
 * fifo_handler_reply and ring_handler_reply (zmote/api/handlers.h).
 */
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

/** A thread of the program's (z_task_init): the inner object of z_owned_task_t. */
typedef struct {
    struct zm_api_task *ptr; /**< the task's record */
} zm_api_task_t;

/** A mutex of the program's (z_mutex_init): the inner object of z_owned_mutex_t. */
typedef struct {
    struct zm_api_mutex *ptr; /**< the mutex's record */
} zm_api_mutex_t;

/** A condition variable of the program's (z_condvar_init): the inner object of z_owned_condvar_t. */
typedef struct {
    struct zm_api_condvar *ptr; /**< the condition variable's record */
} zm_api_condvar_t;

ZM_OWNED_TYPE(zm_api_task_t, task)
ZM_OWNED_TYPE(zm_api_mutex_t, mutex)
ZM_OWNED_TYPE(zm_api_condvar_t, condvar)

/**
 * An instant of the monotonic clock. The wall-clock reading taken with it gives elapsed times
 * microsecond resolution when the two clocks agree (see z_clock_elapsed_us).
 */
typedef struct {
    uint64_t mono_ms; /**< the monotonic clock, in milliseconds */
    uint64_t wall_ns; /**< the wall clock read at the same moment, in nanoseconds */
} z_clock_t;

/** An instant of the wall clock, in nanoseconds since the UNIX epoch. */
typedef struct {
    uint64_t ns; /**< nanoseconds since the UNIX epoch */
} z_time_t;

/* ---- options --------------------------------------------------------------------------------- */
/*
 * Each options struct has a z_X_options_default() that fills it; fill one that way, then change
 * what you need (a NULL options pointer means the defaults). A field that is a z_moved_X_t * is
 * taken by the function the options are given to, on success and failure alike; a plain pointer
 * (timestamp, source info) is borrowed for the call. Some fields exist only with the switch their
 * feature needs (Z_FEATURE_*, or Z_FEATURE_UNSTABLE_API defined), as in zenoh-pico.
 */

/** Options of z_open (z_open_options_default). */
typedef struct {
#if Z_FEATURE_MULTI_THREAD == 1
    bool auto_start_read_task;  /**< default true: start the session's tasks (read and lease) in z_open; false starts neither */
    bool auto_start_lease_task; /**< ignored, kept for source compatibility */
    z_task_attr_t *executor_task_attributes; /**< ignored */
#endif
#if Z_FEATURE_ADMIN_SPACE == 1
    bool auto_start_admin_space; /**< declare the admin space in z_open (zp_start_admin_space); default false */
#endif
#if Z_FEATURE_ADMIN_SPACE == 0 && Z_FEATURE_MULTI_THREAD == 0
    uint8_t reserved; /**< no option in this build */
#endif
} z_open_options_t;

/** Options of z_close (z_close_options_default): none yet. */
typedef struct {
    uint8_t reserved; /**< no option yet */
} z_close_options_t;

/** Options of z_put (z_put_options_default). */
typedef struct {
    z_moved_encoding_t *encoding;              /**< taken; NULL: none sent (the receiver sees zenoh/bytes) */
    z_congestion_control_t congestion_control; /**< default DROP */
    z_priority_t priority;                     /**< default Z_PRIORITY_DATA */
    z_timestamp_t *timestamp;                  /**< borrowed; NULL: none */
    bool is_express;                           /**< send at once, not batched; default false */
    z_moved_bytes_t *attachment;               /**< taken; NULL: none */
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination; /**< default Z_LOCALITY_ANY (this session's subscribers too) */
#endif
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability;  /**< default reliable */
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_put_options_t;

/** Options of z_delete (z_delete_options_default). */
typedef struct {
    z_congestion_control_t congestion_control; /**< default DROP */
    z_priority_t priority;                     /**< default Z_PRIORITY_DATA */
    bool is_express;                           /**< send at once, not batched; default false */
    z_timestamp_t *timestamp;                  /**< borrowed; NULL: none */
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination; /**< default Z_LOCALITY_ANY */
#endif
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability;  /**< default reliable */
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_delete_options_t;

/** Options of z_declare_publisher (z_publisher_options_default): the QoS of every put and delete. */
typedef struct {
    z_moved_encoding_t *encoding;              /**< taken: the default encoding of its puts; NULL: none */
    z_congestion_control_t congestion_control; /**< default DROP */
    z_priority_t priority;                     /**< default Z_PRIORITY_DATA */
    bool is_express;                           /**< send at once, not batched; default false */
#ifdef Z_FEATURE_UNSTABLE_API
    z_reliability_t reliability; /**< default reliable */
#endif
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_destination; /**< default Z_LOCALITY_ANY */
#endif
} z_publisher_options_t;

/** Options of z_publisher_put (z_publisher_put_options_default). */
typedef struct {
    z_moved_encoding_t *encoding; /**< taken; NULL: the publisher's */
    z_timestamp_t *timestamp;     /**< borrowed; NULL: none */
    z_moved_bytes_t *attachment;  /**< taken; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_publisher_put_options_t;

/** Options of z_publisher_delete (z_publisher_delete_options_default). */
typedef struct {
    z_timestamp_t *timestamp; /**< borrowed; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_publisher_delete_options_t;

/** Options of z_declare_subscriber (z_subscriber_options_default). */
typedef struct {
#if Z_FEATURE_LOCAL_SUBSCRIBER == 1
    z_locality_t allowed_origin; /**< where samples may come from; default Z_LOCALITY_ANY */
#else
    uint8_t reserved; /**< no option in this build */
#endif
} z_subscriber_options_t;

/** How a get consolidates its replies (z_query_consolidation_default and its siblings). */
typedef struct {
    z_consolidation_mode_t mode; /**< the mode; default Z_CONSOLIDATION_MODE_AUTO */
} z_query_consolidation_t;

struct zm_cancel;

/** A counted reference to a cancellation token shared by the gets given it (unstable API). */
typedef struct {
    struct zm_cancel *ptr; /**< the token's shared record */
} zm_api_cancellation_token_t;

ZM_OWNED_TYPE_RC(zm_api_cancellation_token_t, cancellation_token)

/** Options of z_get (z_get_options_default). */
typedef struct {
    z_moved_bytes_t *payload;                  /**< taken: a payload sent with the query; NULL: none */
    z_moved_encoding_t *encoding;              /**< taken: the payload's encoding; NULL: none */
    z_query_consolidation_t consolidation;     /**< default AUTO */
    z_congestion_control_t congestion_control; /**< default BLOCK */
    z_priority_t priority;                     /**< default Z_PRIORITY_DATA */
    bool is_express;                           /**< send at once, not batched; default false */
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_destination; /**< default Z_LOCALITY_ANY (this session's queryables too) */
#endif
    z_query_target_t target;     /**< default Z_QUERY_TARGET_BEST_MATCHING */
    uint64_t timeout_ms;         /**< default (and 0:) Z_GET_TIMEOUT_DEFAULT */
    z_moved_bytes_t *attachment; /**< taken; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info;                     /**< borrowed; NULL: none */
    z_moved_cancellation_token_t *cancellation_token; /**< taken; cancelling a clone of it ends the get */
#endif
    z_reply_keyexpr_t accept_replies; /**< default Z_REPLY_KEYEXPR_MATCHING_QUERY */
} z_get_options_t;

/** Options of z_declare_querier (z_querier_options_default): what its gets share. */
typedef struct z_querier_options_t {
    z_moved_encoding_t *encoding;              /**< taken: the default encoding of its gets' payloads */
    z_query_target_t target;                   /**< default Z_QUERY_TARGET_BEST_MATCHING */
    z_query_consolidation_t consolidation;     /**< default AUTO */
    z_congestion_control_t congestion_control; /**< default BLOCK */
    bool is_express;                           /**< default false */
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_destination; /**< default Z_LOCALITY_ANY */
#endif
    z_priority_t priority;            /**< default Z_PRIORITY_DATA */
    uint64_t timeout_ms;              /**< default (and 0:) Z_GET_TIMEOUT_DEFAULT */
    z_reply_keyexpr_t accept_replies; /**< default Z_REPLY_KEYEXPR_MATCHING_QUERY */
} z_querier_options_t;

/** Options of z_querier_get (z_querier_get_options_default). */
typedef struct z_querier_get_options_t {
    z_moved_bytes_t *payload;     /**< taken; NULL: none */
    z_moved_encoding_t *encoding; /**< taken; NULL: the querier's */
    z_moved_bytes_t *attachment;  /**< taken; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_moved_cancellation_token_t *cancellation_token; /**< taken; cancelling a clone of it ends the get */
    z_source_info_t *source_info;                     /**< borrowed; NULL: none */
#endif
} z_querier_get_options_t;

/** Options of z_declare_queryable (z_queryable_options_default). */
typedef struct {
    bool complete; /**< it answers for every key it covers (target ALL_COMPLETE); default false */
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_locality_t allowed_origin; /**< where queries may come from; default Z_LOCALITY_ANY */
#endif
} z_queryable_options_t;

/** Options of z_query_reply (z_query_reply_options_default). */
typedef struct {
    z_moved_encoding_t *encoding;              /**< taken; NULL: none */
    z_congestion_control_t congestion_control; /**< ignored: a reply goes as its query came */
    z_priority_t priority;                     /**< ignored: a reply goes as its query came */
    z_timestamp_t *timestamp;                  /**< borrowed; NULL: none */
    bool is_express;                           /**< default false */
    z_moved_bytes_t *attachment;               /**< taken; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_query_reply_options_t;

/** Options of z_query_reply_del (z_query_reply_del_options_default). */
typedef struct {
    z_congestion_control_t congestion_control; /**< ignored: a reply goes as its query came */
    z_priority_t priority;                     /**< ignored: a reply goes as its query came */
    z_timestamp_t *timestamp;                  /**< borrowed; NULL: none */
    bool is_express;                           /**< default false */
    z_moved_bytes_t *attachment;               /**< taken; NULL: none */
#ifdef Z_FEATURE_UNSTABLE_API
    z_source_info_t *source_info; /**< borrowed; NULL: none */
#endif
} z_query_reply_del_options_t;

/** Options of z_query_reply_err (z_query_reply_err_options_default). */
typedef struct {
    z_moved_encoding_t *encoding; /**< taken: the error payload's encoding; NULL: none */
} z_query_reply_err_options_t;

/** The options of z_scout(), as zenoh-pico has them. */
typedef struct {
    uint32_t timeout_ms; /**< how long to scout */
    z_what_t what;       /**< what to look for */
} z_scout_options_t;

#if Z_FEATURE_MULTI_THREAD == 1
/** Options of zp_start_read_task (multi-thread builds). */
typedef struct {
    z_task_attr_t *task_attributes; /**< ignored */
} zp_task_read_options_t;

/** Options of zp_start_lease_task (multi-thread builds). */
typedef struct {
    z_task_attr_t *task_attributes; /**< ignored */
} zp_task_lease_options_t;
#else
/** Options of zp_read (single-thread builds). */
typedef struct {
    bool single_read; /**< zenoh-pico's "read one batch only"; ignored: zp_read reads what is ready */
} zp_read_options_t;

/** Options of zp_send_keep_alive (single-thread builds): none yet. */
typedef struct {
    uint8_t reserved; /**< no option yet */
} zp_send_keep_alive_options_t;

/** Options of zp_send_join (single-thread builds): none yet. */
typedef struct {
    uint8_t reserved; /**< no option yet */
} zp_send_join_options_t;
#endif

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_TYPES_H */
