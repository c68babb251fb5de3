/*
 * Fifo and ring channels of samples. The closure side (called by the session's read task)
 * copies each sample into a buffer of the channel's pool and queues it; the handler side moves
 * queued samples out to the program. A sample the program drops gives its buffer back to the
 * pool, so in a steady stream buffers circulate and nothing is allocated. The channel record
 * lives until its handler, its closure and every buffer out of the pool are gone (refs).
 *
 * Threads: every field below the lock is guarded by it. A buffer's holder may be released on
 * any thread (wherever the program drops its sample), so releasing takes the lock too.
 */
#include <string.h>

#include "api/api.h"
#include "zmote/port.h"

#if Z_FEATURE_MULTI_THREAD
#define LOCK(ch) zm_port_mutex_lock(&(ch)->lock)
#define UNLOCK(ch) zm_port_mutex_unlock(&(ch)->lock)
#else
#define LOCK(ch) ((void)(ch))
#define UNLOCK(ch) ((void)(ch))
#endif

typedef struct zm_chbuf zm_chbuf_t;
typedef struct zm_api_channel zm_channel_t;

/* A pool buffer: its holder (first, so a holder pointer is a buffer pointer), then the bytes. */
struct zm_chbuf {
    zm_owner_t base;
    zm_channel_t *ch;
    zm_chbuf_t *next;
    size_t cap;
};

struct zm_api_channel {
#if Z_FEATURE_MULTI_THREAD
    zm_mutex_t lock;
    zm_condvar_t changed; /* a sample was queued or taken, or a side went away */
#endif
    bool ring;
    bool closed;       /* the closure side was dropped: nothing more will come */
    bool handler_gone; /* the handler was dropped: nobody will take samples out */
    unsigned refs;     /* handler + closure + buffers out of the pool */
    size_t cap;
    size_t head;
    size_t count;
    zm_api_sample_t *queue;
    zm_chbuf_t *pool;
    size_t pooled;
};

static uint8_t *chbuf_data(zm_chbuf_t *b) { return (uint8_t *)(b + 1); }

static void channel_destroy(zm_channel_t *ch)
{
    while (ch->pool != NULL) {
        zm_chbuf_t *b = ch->pool;
        ch->pool = b->next;
        zm_free(b);
    }
    zm_free(ch->queue);
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_destroy(&ch->changed);
    zm_port_mutex_destroy(&ch->lock);
#endif
    zm_free(ch);
}

/* Lock held. Gives a buffer back to the pool (or frees it); true when the channel must go. */
static bool buffer_back_locked(zm_channel_t *ch, zm_chbuf_t *b)
{
    if (!ch->handler_gone && ch->pooled < ch->cap + 2) {
        b->next = ch->pool;
        ch->pool = b;
        ch->pooled++;
    } else {
        zm_free(b);
    }
    return --ch->refs == 0;
}

/* Holder release: the program dropped the last part of a sample that came from this channel. */
static void chbuf_release(zm_owner_t *o)
{
    zm_chbuf_t *b = (zm_chbuf_t *)o;
    zm_channel_t *ch = b->ch;
    LOCK(ch);
    bool last = buffer_back_locked(ch, b);
    UNLOCK(ch);
    if (last) {
        channel_destroy(ch);
    }
}

/* Lock held (zm_api_sample_copy's buffer source): a pool buffer of at least need bytes. */
static uint8_t *buffer_get_locked(void *ctx, size_t need, zm_owner_t **owner)
{
    zm_channel_t *ch = ctx;
    zm_chbuf_t **link = &ch->pool;
    while (*link != NULL && (*link)->cap < need) {
        link = &(*link)->next;
    }
    zm_chbuf_t *b = *link;
    if (b != NULL) {
        *link = b->next;
        ch->pooled--;
    } else {
        /* None fits: replace a small one (so the pool does not grow) by a bigger one. */
        if (ch->pool != NULL) {
            zm_chbuf_t *small = ch->pool;
            ch->pool = small->next;
            ch->pooled--;
            zm_free(small);
        }
        size_t cap = need < 64 ? 64 : need;
        if (cap > SIZE_MAX - sizeof(zm_chbuf_t) - 64) {
            return NULL;
        }
        cap = (cap + 63) & ~(size_t)63;
        b = zm_alloc(sizeof(zm_chbuf_t) + cap);
        if (b == NULL) {
            return NULL;
        }
        b->base.release = chbuf_release;
        b->ch = ch;
        b->cap = cap;
    }
    atomic_init(&b->base.refs, 1u);
    b->next = NULL;
    ch->refs++;
    *owner = &b->base;
    return chbuf_data(b);
}

/* Lock held: drops a sample that never left the channel, returning its buffer at once. Its
 * parts all point into one buffer of this channel (channel_send copies every part). */
static bool drop_queued_locked(zm_channel_t *ch, zm_api_sample_t *s)
{
    zm_api_slice_t *parts[4] = {&s->keyexpr.key.slice, &s->payload.slice, &s->attachment.slice,
                                &s->encoding.schema.slice};
    bool last = false;
    for (size_t i = 0; i < 4; i++) {
        zm_owner_t *o = parts[i]->owner;
        if (o != NULL && atomic_fetch_sub_explicit(&o->refs, 1u, memory_order_acq_rel) == 1u) {
            last = buffer_back_locked(ch, (zm_chbuf_t *)o) || last;
        }
    }
    memset(s, 0, sizeof(*s));
    return last;
}

/* ---- the closure side ---------------------------------------------------------------------------- */

static void channel_send(z_loaned_sample_t *sample, void *context)
{
    zm_channel_t *ch = context;
    if (sample == NULL) {
        return;
    }
    LOCK(ch);
    while (!ch->ring && !ch->handler_gone && ch->count == ch->cap) {
#if Z_FEATURE_MULTI_THREAD
        ZM_UNUSED(zm_port_condvar_wait_until(&ch->changed, &ch->lock, UINT64_MAX));
#else
        UNLOCK(ch);
        return; /* nobody else can make room: a full fifo drops the new sample */
#endif
    }
    if (ch->handler_gone) {
        UNLOCK(ch);
        return;
    }
    if (ch->count == ch->cap) { /* a full ring forgets its oldest sample */
        ZM_UNUSED(drop_queued_locked(ch, &ch->queue[ch->head]));
        ch->head = (ch->head + 1) % ch->cap;
        ch->count--;
    }
    /* Copy every part, even those a holder keeps alive: then a queued sample only ever points
     * into this channel's own buffers, which drop_queued_locked relies on. */
    zm_api_sample_t view = *sample;
    view.keyexpr.key.slice.owner = NULL;
    view.payload.slice.owner = NULL;
    view.attachment.slice.owner = NULL;
    view.encoding.schema.slice.owner = NULL;
    zm_api_sample_t *slot = &ch->queue[(ch->head + ch->count) % ch->cap];
    if (zm_api_sample_copy(slot, &view, buffer_get_locked, ch) == Z_OK) {
        ch->count++;
#if Z_FEATURE_MULTI_THREAD
        zm_port_condvar_broadcast(&ch->changed);
#endif
    }
    UNLOCK(ch);
}

static void channel_close(void *context)
{
    zm_channel_t *ch = context;
    LOCK(ch);
    ch->closed = true;
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&ch->changed);
#endif
    bool last = --ch->refs == 0;
    UNLOCK(ch);
    if (last) {
        channel_destroy(ch);
    }
}

static z_result_t channel_new(z_owned_closure_sample_t *callback, zm_channel_t **out, size_t capacity, bool ring)
{
    *out = NULL;
    if (callback == NULL) {
        return Z_EINVAL;
    }
    z_internal_closure_sample_null(callback);
    if (capacity < 1 || capacity > SIZE_MAX / sizeof(zm_api_sample_t)) {
        return Z_EINVAL;
    }
    zm_channel_t *ch = zm_calloc(sizeof(*ch));
    if (ch == NULL) {
        return ZM_E_NOMEM;
    }
    ch->queue = zm_calloc(capacity * sizeof(zm_api_sample_t));
    if (ch->queue == NULL) {
        zm_free(ch);
        return ZM_E_NOMEM;
    }
#if Z_FEATURE_MULTI_THREAD
    z_result_t r = zm_port_mutex_init(&ch->lock);
    if (r == Z_OK) {
        r = zm_port_condvar_init(&ch->changed);
        if (r != Z_OK) {
            zm_port_mutex_destroy(&ch->lock);
        }
    }
    if (r != Z_OK) {
        zm_free(ch->queue);
        zm_free(ch);
        return r;
    }
#endif
    ch->ring = ring;
    ch->cap = capacity;
    ch->refs = 2;
    callback->_val.call = channel_send;
    callback->_val.drop = channel_close;
    callback->_val.context = ch;
    *out = ch;
    return Z_OK;
}

/* ---- the handler side ----------------------------------------------------------------------------- */

static z_result_t channel_recv(zm_channel_t *ch, z_owned_sample_t *sample, bool wait)
{
    if (sample == NULL) {
        return Z_EINVAL;
    }
    z_internal_sample_null(sample);
    if (ch == NULL) {
        return Z_ENULL;
    }
    LOCK(ch);
#if Z_FEATURE_MULTI_THREAD
    while (wait && ch->count == 0 && !ch->closed) {
        ZM_UNUSED(zm_port_condvar_wait_until(&ch->changed, &ch->lock, UINT64_MAX));
    }
#endif
    z_result_t r;
    if (ch->count > 0) {
        sample->_val = ch->queue[ch->head];
        memset(&ch->queue[ch->head], 0, sizeof(zm_api_sample_t));
        ch->head = (ch->head + 1) % ch->cap;
        ch->count--;
#if Z_FEATURE_MULTI_THREAD
        zm_port_condvar_broadcast(&ch->changed);
#endif
        r = Z_OK;
    } else if (ch->closed) {
        r = Z_CHANNEL_DISCONNECTED;
    } else {
        r = wait ? Z_OK : Z_CHANNEL_NODATA; /* single-thread builds do not wait */
    }
    UNLOCK(ch);
    return r;
}

static void handler_drop(zm_channel_t *ch)
{
    if (ch == NULL) {
        return;
    }
    LOCK(ch);
    ch->handler_gone = true;
    bool last = false;
    while (ch->count > 0) {
        last = drop_queued_locked(ch, &ch->queue[ch->head]) || last;
        ch->head = (ch->head + 1) % ch->cap;
        ch->count--;
    }
    while (ch->pool != NULL) {
        zm_chbuf_t *b = ch->pool;
        ch->pool = b->next;
        zm_free(b);
    }
    ch->pooled = 0;
#if Z_FEATURE_MULTI_THREAD
    zm_port_condvar_broadcast(&ch->changed); /* a sender waiting for room gives up */
#endif
    last = --ch->refs == 0 || last;
    UNLOCK(ch);
    if (last) {
        channel_destroy(ch);
    }
}

/* ---- per-type functions, for both kinds -------------------------------------------------------------- */

#define HANDLER_FUNCTIONS(name)                                                                   \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                              \
    {                                                                                                   \
        if (obj != NULL) {                                                                              \
            obj->_rc.ptr = NULL;                                                                        \
        }                                                                                               \
    }                                                                                                   \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj) { return obj != NULL && obj->_rc.ptr != NULL; } \
    ZM_API_DEFINE_TAKE(name)                                                                            \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                       \
    {                                                                                                   \
        if (obj != NULL) {                                                                              \
            zm_channel_t *ch = obj->_this._rc.ptr;                                                         \
            obj->_this._rc.ptr = NULL;                                                                  \
            handler_drop(ch);                                                                           \
        }                                                                                               \
    }                                                                                                   \
    z_result_t z_##name##_recv(const z_loaned_##name##_t *handler, z_owned_sample_t *sample)            \
    {                                                                                                   \
        return channel_recv(handler != NULL ? handler->ptr : NULL, sample, true);                       \
    }                                                                                                   \
    z_result_t z_##name##_try_recv(const z_loaned_##name##_t *handler, z_owned_sample_t *sample)        \
    {                                                                                                   \
        return channel_recv(handler != NULL ? handler->ptr : NULL, sample, false);                      \
    }

HANDLER_FUNCTIONS(fifo_handler_sample)
HANDLER_FUNCTIONS(ring_handler_sample)

z_result_t z_fifo_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_fifo_handler_sample_t *handler,
                                     size_t capacity)
{
    if (handler == NULL) {
        return Z_EINVAL;
    }
    return channel_new(callback, &handler->_rc.ptr, capacity, false);
}

z_result_t z_ring_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_ring_handler_sample_t *handler,
                                     size_t capacity)
{
    if (handler == NULL) {
        return Z_EINVAL;
    }
    return channel_new(callback, &handler->_rc.ptr, capacity, true);
}
