/*
 * What the files of the API layer share: the reference-counted holders behind slices, strings
 * and payloads (zm_owner_t), the session record every handle points to, the helpers that copy or
 * share byte runs, and the conversion of a session sample into an API sample. The API layer
 * checks arguments and converts types; everything else is the session's job.
 */
#ifndef ZM_API_API_H
#define ZM_API_API_H

#include <string.h>

#include "session/session.h"
#include "util/alloc.h"
#include "util/atomic.h"
#include "util/common.h"
#include "zmote.h"

/* ---- holders of byte runs ------------------------------------------------------------------------ */

/*
 * The helpers below that are `inline` without `static` have one external copy (bytes.c,
 * keyexpr.c, sample.c) for the calls a compiler does not inline: a build for size leaves them
 * calls, and a static copy of each in every file that calls one would add up.
 */

/*
 * A holder: release runs once, on the thread that drops the last reference. release == NULL
 * marks a holder that is never released (static data): its count is never touched, so sharing
 * static data costs no atomic operation.
 */
struct zm_owner {
    ZM_ATOMIC(unsigned) refs;
    void (*release)(struct zm_owner *o);
};
typedef struct zm_owner zm_owner_t;

/** The holder of static data (z_bytes_from_static_buf, deleters that are NULL). */
extern zm_owner_t zm_api_static_owner;

static inline void zm_owner_ref(zm_owner_t *o)
{
    if (o != NULL && o->release != NULL) {
        zm_atomic_inc_relaxed(&o->refs);
    }
}

inline void zm_owner_unref(zm_owner_t *o)
{
    if (o != NULL && o->release != NULL &&
        zm_atomic_dec_acq_rel(&o->refs) == 1u) {
        o->release(o);
    }
}

/**
 * Allocates a holder (*owner, count 1) followed by len bytes; returns the bytes, NULL when out of
 * memory (*owner untouched).
 */
uint8_t *zm_api_block_alloc(size_t len, zm_owner_t **owner);

/**
 * A holder for data released by deleter(data, context); a NULL deleter gives the static holder.
 * On allocation failure the deleter runs at once and NULL is returned.
 */
zm_owner_t *zm_api_deleter_owner(void *data, void (*deleter)(void *data, void *context), void *context);

inline zm_api_slice_t zm_api_slice_null(void)
{
    zm_api_slice_t s = {NULL, 0, NULL};
    return s;
}

/** A slice borrowing ptr[0..len) (nobody keeps it alive). */
static inline zm_api_slice_t zm_api_slice_borrow(const void *ptr, size_t len)
{
    zm_api_slice_t s = {(const uint8_t *)ptr, len, NULL};
    if (len == 0) {
        s.start = NULL;
    }
    return s;
}

/** Releases the slice's reference and leaves it null. */
inline void zm_api_slice_drop(zm_api_slice_t *s)
{
    zm_owner_t *o = s->owner;
    *s = zm_api_slice_null(); /* first: the release is then the last step */
    zm_owner_unref(o);
}

/** A new owned copy of ptr[0..len), plus a NUL after it when nul is set; ZM_E_NOMEM. */
ZM_NODISCARD z_result_t zm_api_slice_copy(zm_api_slice_t *dst, const void *ptr, size_t len, bool nul);

/** Shares src when something keeps it alive, copies it (with a NUL) when it is borrowed. */
ZM_NODISCARD z_result_t zm_api_slice_clone(zm_api_slice_t *dst, const zm_api_slice_t *src);

/** Moves src into dst, copying it when it is only borrowed; src is left null either way. */
ZM_NODISCARD z_result_t zm_api_slice_take(zm_api_slice_t *dst, zm_api_slice_t *src);

/* ---- key expressions and encodings --------------------------------------------------------------- */

inline zm_api_keyexpr_t zm_api_keyexpr_null(void)
{
    zm_api_keyexpr_t k = {0};
    return k;
}

inline void zm_api_keyexpr_clear(zm_api_keyexpr_t *k)
{
    k->id = 0;
    k->session = NULL;
    zm_api_slice_drop(&k->key.slice);
}

ZM_NODISCARD z_result_t zm_api_keyexpr_clone(zm_api_keyexpr_t *dst, const zm_api_keyexpr_t *src);

static inline void zm_api_encoding_clear(zm_api_encoding_t *e)
{
    e->id = 0;
    zm_api_slice_drop(&e->schema.slice); /* the null encoding */
}

ZM_NODISCARD z_result_t zm_api_encoding_clone(zm_api_encoding_t *dst, const zm_api_encoding_t *src);

/* ---- samples ---------------------------------------------------------------------------------- */

void zm_api_sample_clear(zm_api_sample_t *s);

/** Provides need bytes held by a fresh holder (*owner; its count is set by the caller), or NULL. */
typedef uint8_t *(*zm_api_buffer_fn)(void *ctx, size_t need, zm_owner_t **owner);

/** The ordinary buffer source: a fresh block of the heap (zm_api_block_alloc); ctx unused. */
uint8_t *zm_api_block_get(void *ctx, size_t need, zm_owner_t **owner);

/**
 * Makes the n slices owned in place: those something keeps alive gain a reference, borrowed ones
 * are copied into one buffer from get (each followed by a NUL), whose holder counts them, and
 * empty ones become null. ZM_E_NOMEM when get fails: then nothing changed.
 */
ZM_NODISCARD z_result_t zm_api_parts_copy(zm_api_slice_t *const *parts, size_t n, zm_api_buffer_fn get, void *ctx);

/**
 * Makes dst (not src) an owned copy of src, its parts as zm_api_parts_copy makes them; dst is
 * null (zeroed) on failure. The other copies below work the same way.
 */
ZM_NODISCARD z_result_t zm_api_sample_copy(zm_api_sample_t *dst, const zm_api_sample_t *src, zm_api_buffer_fn get,
                                           void *ctx);

/** A sample whose parts borrow the session's sample; allocates nothing. */
void zm_api_sample_from_session(zm_api_sample_t *out, const zm_sample_t *in);

/**
 * Undeclares entity id of session b with undeclare (a zm_session_undeclare_*), then lets go of
 * the reference to b the entity held. Z_OK when closing the session ended the entity already.
 */
ZM_NODISCARD z_result_t zm_api_undeclare(struct zm_api_session *b, uint32_t id,
                                         z_result_t (*undeclare)(zm_session_t *s, uint32_t id));

/** The global id of entity eid of the session b (a zero id when b is NULL or closed). */
z_entity_global_id_t zm_api_entity_id(struct zm_api_session *b, uint32_t eid);

/**
 * A zid from the configuration: 32 hex digits, dashes (of a UUID) ignored, the first two digits
 * giving byte 0 as zenoh-pico reads it. All-zero or malformed text is Z_EINVAL.
 */
ZM_NODISCARD z_result_t zm_api_zid_parse(const char *text, zm_zid_t *zid);

/**
 * The scouting keys of a configuration, with zenoh-pico's defaults for those absent: whether
 * multicast scouting is on (Z_CONFIG_MULTICAST_SCOUTING_KEY, "true" or "false"), the group's
 * locator (aliased from c), the kinds a scout looks for (Z_CONFIG_SCOUTING_WHAT_KEY, 1..7) and
 * its timeout in ms. Z_EINVAL for a value that is none of these.
 */
ZM_NODISCARD z_result_t zm_api_scout_config(const zm_api_config_t *c, bool *enabled, const char **locator,
                                            uint8_t *what, uint32_t *timeout_ms);
/** A key's value (fallback when c has none) as a boolean, "true" or "false"; Z_EINVAL otherwise. */
ZM_NODISCARD z_result_t zm_api_config_bool(const zm_api_config_t *c, uint8_t key, const char *fallback, bool *out);
/** A key's value (fallback when c has none) as milliseconds, decimal, or -1 for none; Z_EINVAL otherwise. */
ZM_NODISCARD z_result_t zm_api_config_timeout(const zm_api_config_t *c, uint8_t key, const char *fallback,
                                              int32_t *out);

/** A zid of the protocol as the API's 16-byte id, and an id back into a zid (all of *zid written). */
z_id_t zm_api_id_from_zid(const zm_zid_t *zid);
void zm_api_zid_from_id(zm_zid_t *zid, const z_id_t *id);

/*
 * What a subscriber gives the session as its context: the user's closure. The session calls
 * zm_api_subscriber_deliver for each sample and zm_api_subscriber_release once at the end.
 */
typedef struct {
    zm_api_closure_sample_t closure;
} zm_api_sub_ctx_t;

/** Takes callback into a new context; NULL when out of memory (then callback was dropped). */
zm_api_sub_ctx_t *zm_api_sub_ctx_new(z_moved_closure_sample_t *callback);
void zm_api_subscriber_deliver(const zm_sample_t *sample, void *ctx);
void zm_api_subscriber_release(void *ctx);

/* ---- owned queries and replies -------------------------------------------------------------------- */

/**
 * Makes dst an owned copy of the query src (loaned in a callback, or owned), its parts as
 * zm_api_parts_copy makes them: it keeps the query open until dropped. Z_EINVAL for a null or
 * dropped query, ZM_E_NOMEM.
 */
ZM_NODISCARD z_result_t zm_api_query_copy(zm_api_query_t *dst, const zm_api_query_t *src, zm_api_buffer_fn get,
                                          void *ctx);
/** Drops an owned query: the last copy of a query sends its final response, from this stack. */
void zm_api_query_drop(zm_api_query_t *q);
/**
 * Whether q may be dropped with zm_api_query_drop_during while during is being delivered: during
 * is a query in its callback (not an owned one) of q's session.
 */
bool zm_api_query_droppable_during(const zm_api_query_t *q, const zm_api_query_t *during);
/**
 * Drops the owned query q while the callback of during runs on this thread (they must be
 * droppable together): if q is the last copy of its query, its final response waits until
 * during's dispatch ends, so that nothing is sent from the depth of the callback.
 */
void zm_api_query_drop_during(zm_api_query_t *q, const zm_api_query_t *during);

/** Makes dst an owned copy of the reply src; Z_EINVAL for a null reply, ZM_E_NOMEM. */
ZM_NODISCARD z_result_t zm_api_reply_copy(zm_api_reply_t *dst, const zm_api_reply_t *src, zm_api_buffer_fn get,
                                          void *ctx);
/** Drops an owned reply's parts and leaves it null. */
void zm_api_reply_clear(zm_api_reply_t *r);

/* ---- the parts of a put or reply ----------------------------------------------------------------- */

/**
 * The bytes of b from pos on, up to the end of the run that holds pos: *left of them (NULL and 0
 * past the end).
 */
const uint8_t *zm_api_bytes_at(const zm_api_bytes_t *b, size_t pos, size_t *left);

/*
 * The holder of a payload's runs (z_bytes_writer_append keeps the payloads it is given as runs;
 * bytes.c makes it). join makes a payload of these runs one contiguous run, in place, as a message
 * carries it (false when out of memory); the holder carries it, as it carries its release, so
 * that only a program that appends payloads links the code that joins them.
 */
typedef struct zm_api_runs {
    zm_owner_t base;
    bool (*join)(zm_api_bytes_t *b);
    size_t n;   /* runs in run */
    size_t cap; /* runs run can hold */
    zm_api_slice_t run[];
} zm_api_runs_t;

/* A payload of several runs has no start of its own: its length, and the runs' holder as owner. */
static inline zm_api_runs_t *zm_api_runs_of(const zm_api_bytes_t *b)
{
    return b->slice.start == NULL && b->slice.len > 0 ? (zm_api_runs_t *)b->slice.owner : NULL;
}

/**
 * Makes a payload given in several runs one run, as a message carries it, in place (b is the
 * caller's, moved; NULL is none): false when that runs out of memory. Every call that sends a
 * payload or an attachment calls it first.
 */
bool zm_api_bytes_whole(z_moved_bytes_t *b);

/* The parts of a put's body taken from API objects, which the body borrows: they must live as long
 * as the zm_put_args_t. The empty encoding is none. A payload or attachment is one run
 * (zm_api_bytes_whole). */
static inline void zm_api_put_payload(zm_put_args_t *a, const z_moved_bytes_t *payload)
{
    a->body.payload = zm_slice(payload->_this._val.slice.start, payload->_this._val.slice.len);
}

static inline void zm_api_put_encoding(zm_put_args_t *a, const zm_api_encoding_t *e)
{
    if (e == NULL || (e->id == 0 && e->schema.slice.len == 0)) {
        return;
    }
    a->body.has_encoding = true;
    a->body.encoding.id = e->id;
    a->body.encoding.has_schema = e->schema.slice.len > 0;
    a->body.encoding.schema = zm_slice(e->schema.slice.start, e->schema.slice.len);
}

static inline void zm_api_put_attachment(zm_put_args_t *a, const z_moved_bytes_t *att)
{
    if (att != NULL) {
        a->body.exts |= ZM_PUT_EXT_ATTACHMENT;
        a->body.attachment = zm_slice(att->_this._val.slice.start, att->_this._val.slice.len);
    }
}

inline void zm_api_put_timestamp(zm_put_args_t *a, const z_timestamp_t *ts)
{
    if (ts != NULL && ts->valid) {
        a->body.has_timestamp = true;
        a->body.timestamp.time = ts->time;
        zm_api_zid_from_id(&a->body.timestamp.id, &ts->id);
    }
}

#if ZM_UNSTABLE_API
static inline void zm_api_put_source(zm_put_args_t *a, const z_source_info_t *si)
{
    if (si != NULL) {
        a->body.exts |= ZM_PUT_EXT_SOURCE;
        zm_api_zid_from_id(&a->body.source.zid, &si->source_id.zid);
        a->body.source.eid = si->source_id.eid;
        a->body.source.sn = si->source_sn;
    }
}
#endif

/** The matching status of publisher or querier id of session b, sending to destination. */
ZM_NODISCARD z_result_t zm_api_matching_status(struct zm_api_session *b, uint32_t id, uint8_t destination,
                                               z_matching_status_t *status);
/**
 * Declares a listener of publisher or querier id's status (owned in *listener unless NULL: a
 * background one); takes callback on every path.
 */
ZM_NODISCARD z_result_t zm_api_matching_listen(struct zm_api_session *b, uint32_t id, uint8_t destination,
                                               z_owned_matching_listener_t *listener,
                                               z_moved_closure_matching_status_t *callback);

#if Z_FEATURE_QUERY
/*
 * What a get gives the session as its context: the user's closure. The session calls
 * zm_api_get_deliver for each reply and zm_api_get_release once at the end (query.c);
 * liveliness gets are given them too.
 */
typedef struct {
    zm_api_closure_reply_t closure;
} zm_api_get_ctx_t;

void zm_api_get_deliver(const zm_reply_in_t *reply, void *ctx);
void zm_api_get_release(void *ctx);
#endif

/* ---- sessions ----------------------------------------------------------------------------------- */

/*
 * The record behind z_owned_session_t, shared by the owned session and every publisher and
 * subscriber made from it (refs counts them), so that those stay safe to use and drop after
 * the session is closed. s is NULL once closed. Every API call that uses s announces itself in
 * users first (zm_api_session_enter); closing clears s, then waits until users is 0 before it
 * frees the session, so a call never sees a session freed under it.
 */
struct zm_api_session {
    ZM_ATOMIC(unsigned) refs;
#if Z_FEATURE_SESSION_CHECK /* else no call is counted */
    ZM_ATOMIC(unsigned) users;
#endif
    ZM_ATOMIC(zm_session_t *) s;
    /* the tasks' state, which only a threaded build has */
    ZM_IF_THREADS(
        ZM_ATOMIC(bool) read_task;
        ZM_ATOMIC(bool) lease_task;
    )
#if ZM_UNSTABLE_API && Z_FEATURE_ADMIN_SPACE
    ZM_ATOMIC(uint32_t) admin_qid; /* the admin space's queryable (session.c), 0 when off */
#endif
};
typedef struct zm_api_session zm_api_session_t;

void zm_api_session_ref(zm_api_session_t *b);
void zm_api_session_unref(zm_api_session_t *b);
/** Drops a reference that is known not to be the last (another holder outlives the call). */
void zm_api_session_unref_not_last(zm_api_session_t *b);

/**
 * Starts a call on the session b: Z_OK and *out (end the call with zm_api_session_leave),
 * Z_ENULL for a NULL or dropped session, Z_ESESSION_CLOSED once closed (no leave then).
 */
ZM_NODISCARD z_result_t zm_api_session_enter(zm_api_session_t *b, zm_session_t **out);
/** zm_api_session_enter, inline where a publisher's put enters without a call (ZM_PUT_HEAD). */
ZM_NODISCARD static ZM_ALWAYS_INLINE z_result_t zm_api_session_enter_inline(zm_api_session_t *b, zm_session_t **out)
{
    *out = NULL;
    if (b == NULL) {
        return Z_ENULL;
    }
#if Z_FEATURE_SESSION_CHECK
    zm_atomic_inc(&b->users);
    zm_session_t *s = zm_atomic_load(&b->s);
    if (s == NULL) {
        zm_atomic_dec(&b->users);
        return Z_ESESSION_CLOSED;
    }
#else
    /* Without the check the application keeps the session open while it uses it, as in
     * zenoh-pico: nothing is counted, and a closed session is only seen as such, not waited for. */
    zm_session_t *s = zm_atomic_load_relaxed(&b->s);
    if (s == NULL) {
        return Z_ESESSION_CLOSED;
    }
#endif
    *out = s;
    return Z_OK;
}

/* Ends a call that zm_api_session_enter started. Without the session check nothing was counted,
 * so there is nothing to end and every call site drops its call. */
static inline void zm_api_session_leave(zm_api_session_t *b)
{
#if Z_FEATURE_SESSION_CHECK
    zm_atomic_dec(&b->users);
#else
    ZM_UNUSED(b);
#endif
}

/*
 * z_X_take, the same for every owned type: moves src's value into obj and leaves src null
 * (obj null when src is NULL).
 */
#define ZM_API_DEFINE_TAKE(name)                                                \
    void z_##name##_take(z_owned_##name##_t *obj, z_moved_##name##_t *src)      \
    {                                                                           \
        if (obj == NULL) {                                                      \
            return;                                                             \
        }                                                                       \
        if (src == NULL) {                                                      \
            z_internal_##name##_null(obj);                                      \
            return;                                                             \
        }                                                                       \
        *obj = src->_this;                                                      \
        z_internal_##name##_null(&src->_this);                                  \
    }

/*
 * The functions of a closure type whose call takes arg_t: null, check, take, drop (which runs its
 * drop once), the constructor z_<name> and z_<name>_call.
 */
#define ZM_API_DEFINE_CLOSURE(name, arg_t)                                                                      \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                                      \
    {                                                                                                           \
        if (obj != NULL) {                                                                                      \
            obj->_val.call = NULL;                                                                              \
            obj->_val.drop = NULL;                                                                              \
            obj->_val.context = NULL;                                                                           \
        }                                                                                                       \
    }                                                                                                           \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj)                                               \
    {                                                                                                           \
        return obj != NULL && obj->_val.call != NULL;                                                           \
    }                                                                                                           \
    ZM_API_DEFINE_TAKE(name)                                                                                    \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                               \
    {                                                                                                           \
        if (obj == NULL) {                                                                                      \
            return;                                                                                             \
        }                                                                                                       \
        z_closure_drop_callback_t drop = obj->_this._val.drop;                                                  \
        void *context = obj->_this._val.context;                                                                \
        z_internal_##name##_null(&obj->_this);                                                                  \
        if (drop != NULL) {                                                                                     \
            drop(context);                                                                                      \
        }                                                                                                       \
    }                                                                                                           \
    z_result_t z_##name(z_owned_##name##_t *closure, z_##name##_callback_t call, z_closure_drop_callback_t drop,\
                        void *context)                                                                          \
    {                                                                                                           \
        if (closure == NULL) {                                                                                  \
            return Z_EINVAL;                                                                                    \
        }                                                                                                       \
        closure->_val.call = call;                                                                              \
        closure->_val.drop = drop;                                                                              \
        closure->_val.context = context;                                                                        \
        return Z_OK;                                                                                            \
    }                                                                                                           \
    void z_##name##_call(const z_loaned_##name##_t *closure, arg_t arg)                                         \
    {                                                                                                           \
        if (closure != NULL && closure->call != NULL) {                                                         \
            closure->call(arg, closure->context);                                                               \
        }                                                                                                       \
    }

#endif /* ZM_API_API_H */

