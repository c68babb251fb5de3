/*
 * Fifo and ring channels of samples, queries and replies: one implementation, the item's kind
 * picking how an item is copied in and dropped. The closure side (called by the session's read
 * task, or by a thread that publishes, gets or replies locally) copies each item into a buffer of
 * the channel's pool and queues it; the handler side moves queued items out to the program. An
 * item the program drops gives its buffer back to the pool, so in a steady stream buffers
 * circulate and nothing is allocated. The channel record lives until its handler, its closure
 * and every buffer out of the pool are gone (refs).
 *
 * Threads: every field below the lock is guarded by it. A buffer's holder may be released on
 * any thread (wherever the program drops its item), so releasing takes the lock too; and so an
 * item is never dropped with the lock held: it is moved out of the queue first.
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

/* What a channel carries. */
typedef enum { ITEM_SAMPLE, ITEM_QUERY, ITEM_REPLY } item_kind_t;

/* Room for one item of any kind, for an item on its way out of the queue. */
typedef union {
    zm_api_sample_t sample;
#if Z_FEATURE_QUERYABLE
    zm_api_query_t query;
#endif
#if Z_FEATURE_QUERY
    zm_api_reply_t reply;
#endif
} item_t;

/* A pool buffer: its holder (first, so a holder pointer is a buffer pointer), then the bytes. */
struct zm_chbuf {
    zm_owner_t base;
    zm_channel_t *ch;
    zm_chbuf_t *next;
    size_t cap;
};

struct zm_api_channel {
    item_kind_t kind; /* set once, read without the lock */
    size_t size;      /* of one item */
    ZM_IF_THREADS(
        zm_mutex_t lock;
        zm_condvar_t changed; /* an item was queued or taken, or a side went away */
    )
    bool ring;
    bool closed;       /* the closure side was dropped: nothing more will come */
    bool handler_gone; /* the handler was dropped: nobody will take items out */
    unsigned refs;     /* handler + closure + buffers out of the pool */
    size_t cap;
    size_t head;
    size_t count;
    uint8_t *queue; /* cap items of size bytes */
    zm_chbuf_t *pool;
    size_t pooled;
};

static uint8_t *chbuf_data(zm_chbuf_t *b) { return (uint8_t *)(b + 1); }

static void *slot_at(zm_channel_t *ch, size_t index) { return ch->queue + index * ch->size; }

/* ---- the items ------------------------------------------------------------------------------------ */

static size_t item_size(item_kind_t kind)
{
    switch (kind) {
#if Z_FEATURE_QUERYABLE
    case ITEM_QUERY:
        return sizeof(zm_api_query_t);
#endif
#if Z_FEATURE_QUERY
    case ITEM_REPLY:
        return sizeof(zm_api_reply_t);
#endif
    default:
        return sizeof(zm_api_sample_t);
    }
}

/* Lock held: makes dst an owned copy of the loaned src, with buffers from the channel's pool. */
static z_result_t item_copy(zm_channel_t *ch, void *dst, const void *src, zm_api_buffer_fn get)
{
    switch (ch->kind) {
#if Z_FEATURE_QUERYABLE
    case ITEM_QUERY:
        return zm_api_query_copy(dst, src, get, ch);
#endif
#if Z_FEATURE_QUERY
    case ITEM_REPLY:
        return zm_api_reply_copy(dst, src, get, ch);
#endif
    default:
        return zm_api_sample_copy(dst, src, get, ch);
    }
}

/* Lock not held: drops an owned item, on the program's side (its handler was dropped). */
static void item_drop(item_kind_t kind, item_t *item)
{
    switch (kind) {
#if Z_FEATURE_QUERYABLE
    case ITEM_QUERY:
        zm_api_query_drop(&item->query);
        break;
#endif
#if Z_FEATURE_QUERY
    case ITEM_REPLY:
        zm_api_reply_clear(&item->reply);
        break;
#endif
    default:
        zm_api_sample_clear(&item->sample);
        break;
    }
}

/*
 * Lock held, the queue full: whether a ring may forget its oldest item as during comes in. A
 * query forgotten then ends with during's dispatch (zm_api_query_drop_during), which needs during
 * to be a query of the same session in its callback; otherwise the new query is not queued.
 */
static bool forgettable_locked(zm_channel_t *ch, const void *during)
{
#if Z_FEATURE_QUERYABLE
    if (ch->kind == ITEM_QUERY) {
        return zm_api_query_droppable_during(slot_at(ch, ch->head), during);
    }
#endif
    ZM_UNUSED(ch);
    ZM_UNUSED(during);
    return true;
}

/* Lock not held: drops the item a ring forgot as during came in; nothing is sent from here. */
static void item_forget(item_kind_t kind, item_t *item, const void *during)
{
    switch (kind) {
#if Z_FEATURE_QUERYABLE
    case ITEM_QUERY:
        zm_api_query_drop_during(&item->query, during);
        break;
#endif
#if Z_FEATURE_QUERY
    case ITEM_REPLY:
        zm_api_reply_clear(&item->reply);
        break;
#endif
    default:
        ZM_UNUSED(during);
        zm_api_sample_clear(&item->sample);
        break;
    }
}

/* Lock held, count > 0: moves the oldest item out into *out. */
static void take_oldest_locked(zm_channel_t *ch, void *out)
{
    void *slot = slot_at(ch, ch->head);
    memcpy(out, slot, ch->size);
    memset(slot, 0, ch->size);
    ch->head = (ch->head + 1) % ch->cap;
    ch->count--;
}

/* ---- the pool of buffers ------------------------------------------------------------------------- */

static void channel_destroy(zm_channel_t *ch)
{
    ZM_ASSERT(ch->count == 0);
    while (ch->pool != NULL) {
        zm_chbuf_t *b = ch->pool;
        ch->pool = b->next;
        zm_free(b);
    }
    zm_free(ch->queue);
    ZM_IF_THREADS(zm_port_condvar_destroy(&ch->changed); zm_port_mutex_destroy(&ch->lock);)
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

/* Holder release: the program dropped the last part of an item that came from this channel. */
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

/* Lock held (the item copy's buffer source): a pool buffer of at least need bytes. */
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
    zm_atomic_init(&b->base.refs, 1u);
    b->next = NULL;
    ch->refs++;
    *owner = &b->base;
    return chbuf_data(b);
}

/* ---- the closure side ---------------------------------------------------------------------------- */

/*
 * Not inlined: the item on its way out stays off the stack of the copy that follows. A full ring
 * forgets its oldest item as during comes in; false when it may not (then during is not queued).
 */
static ZM_NOINLINE bool forget_oldest(zm_channel_t *ch, const void *during)
{
    item_t old;
    LOCK(ch);
    bool full = !ch->handler_gone && ch->count == ch->cap;
    bool may = !full || forgettable_locked(ch, during);
    if (full && may) {
        take_oldest_locked(ch, &old);
    }
    UNLOCK(ch);
    if (full && may) {
        item_forget(ch->kind, &old, during);
    }
    return may;
}

static void channel_send(zm_channel_t *ch, const void *item)
{
    if (item == NULL) {
        return;
    }
    LOCK(ch);
    for (;;) {
        if (ch->handler_gone) {
            UNLOCK(ch);
            return;
        }
        if (ch->count < ch->cap) {
            break;
        }
        if (ch->ring) { /* a full ring forgets its oldest item, outside the lock */
            UNLOCK(ch);
            if (!forget_oldest(ch, item)) {
                return;
            }
            LOCK(ch);
            continue;
        }
#if Z_FEATURE_MULTI_THREAD
        ZM_UNUSED(zm_port_condvar_wait_until(&ch->changed, &ch->lock, UINT64_MAX));
#else
        UNLOCK(ch);
        return; /* nobody else can make room: a full fifo drops the new item */
#endif
    }
    void *slot = slot_at(ch, (ch->head + ch->count) % ch->cap);
    if (item_copy(ch, slot, item, buffer_get_locked) == Z_OK) {
        ch->count++;
        ZM_IF_THREADS(zm_port_condvar_broadcast(&ch->changed);)
    }
    UNLOCK(ch);
}

static void channel_close(void *context)
{
    zm_channel_t *ch = context;
    LOCK(ch);
    ch->closed = true;
    ZM_IF_THREADS(zm_port_condvar_broadcast(&ch->changed);)
    bool last = --ch->refs == 0;
    UNLOCK(ch);
    if (last) {
        channel_destroy(ch);
    }
}

/* A new channel of capacity items of kind, referenced by its closure and its handler. */
static z_result_t channel_new(item_kind_t kind, bool ring, size_t capacity, zm_channel_t **out)
{
    *out = NULL;
    size_t size = item_size(kind);
    if (capacity < 1 || capacity > SIZE_MAX / size) {
        return Z_EINVAL;
    }
    zm_channel_t *ch = zm_calloc(sizeof(*ch));
    if (ch == NULL) {
        return ZM_E_NOMEM;
    }
    ch->queue = zm_calloc(capacity * size);
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
    ch->kind = kind;
    ch->size = size;
    ch->ring = ring;
    ch->cap = capacity;
    ch->refs = 2;
    *out = ch;
    return Z_OK;
}

/* ---- the handler side ----------------------------------------------------------------------------- */

/* Moves the oldest item into out (an owned item of the channel's kind, nulled first). */
static z_result_t channel_recv(zm_channel_t *ch, void *out, size_t out_size, bool wait)
{
    if (out == NULL) {
        return Z_EINVAL;
    }
    memset(out, 0, out_size);
    if (ch == NULL) {
        return Z_ENULL;
    }
    ZM_ASSERT(out_size == ch->size);
    LOCK(ch);
    ZM_IF_THREADS(
        while (wait && ch->count == 0 && !ch->closed) {
            ZM_UNUSED(zm_port_condvar_wait_until(&ch->changed, &ch->lock, UINT64_MAX));
        }
    )
    z_result_t r;
    if (ch->count > 0) {
        take_oldest_locked(ch, out);
        ZM_IF_THREADS(zm_port_condvar_broadcast(&ch->changed);)
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
    item_t old;
    LOCK(ch);
    ch->handler_gone = true;
    ZM_IF_THREADS(zm_port_condvar_broadcast(&ch->changed);) /* a sender waiting for room gives up */
    while (ch->count > 0) { /* nothing more comes in: empty the queue, one item at a time */
        take_oldest_locked(ch, &old);
        UNLOCK(ch);
        item_drop(ch->kind, &old);
        LOCK(ch);
    }
    while (ch->pool != NULL) {
        zm_chbuf_t *b = ch->pool;
        ch->pool = b->next;
        zm_free(b);
    }
    ch->pooled = 0;
    bool last = --ch->refs == 0;
    UNLOCK(ch);
    if (last) {
        channel_destroy(ch);
    }
}

/* ---- per-type functions, for every kind of channel and item ------------------------------------------ */

#define HANDLER_FUNCTIONS(name, item)                                                                      \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                                \
    {                                                                                                     \
        if (obj != NULL) {                                                                                \
            obj->_rc.ptr = NULL;                                                                          \
        }                                                                                                 \
    }                                                                                                     \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj) { return obj != NULL && obj->_rc.ptr != NULL; } \
    ZM_API_DEFINE_TAKE(name)                                                                              \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                         \
    {                                                                                                     \
        if (obj != NULL) {                                                                                \
            zm_channel_t *ch = obj->_this._rc.ptr;                                                        \
            obj->_this._rc.ptr = NULL;                                                                    \
            handler_drop(ch);                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    z_result_t z_##name##_recv(const z_loaned_##name##_t *handler, z_owned_##item##_t *out)               \
    {                                                                                                     \
        return channel_recv(handler != NULL ? handler->ptr : NULL, out, sizeof(out->_val), true);         \
    }                                                                                                     \
    z_result_t z_##name##_try_recv(const z_loaned_##name##_t *handler, z_owned_##item##_t *out)           \
    {                                                                                                     \
        return channel_recv(handler != NULL ? handler->ptr : NULL, out, sizeof(out->_val), false);        \
    }

HANDLER_FUNCTIONS(fifo_handler_sample, sample)
HANDLER_FUNCTIONS(ring_handler_sample, sample)

static void send_sample(z_loaned_sample_t *sample, void *context) { channel_send(context, sample); }

/* The sample channels' constructors; callback and handler are null on failure. */
static z_result_t sample_channel_new(z_owned_closure_sample_t *callback, zm_channel_t **handler, size_t capacity,
                                     bool ring)
{
    z_internal_closure_sample_null(callback);
    ZM_TRY(channel_new(ITEM_SAMPLE, ring, capacity, handler));
    callback->_val.call = send_sample;
    callback->_val.drop = channel_close;
    callback->_val.context = *handler;
    return Z_OK;
}

z_result_t z_fifo_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_fifo_handler_sample_t *handler,
                                     size_t capacity)
{
    return callback != NULL && handler != NULL ? sample_channel_new(callback, &handler->_rc.ptr, capacity, false)
                                               : Z_EINVAL;
}

z_result_t z_ring_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_ring_handler_sample_t *handler,
                                     size_t capacity)
{
    return callback != NULL && handler != NULL ? sample_channel_new(callback, &handler->_rc.ptr, capacity, true)
                                               : Z_EINVAL;
}

#if Z_FEATURE_QUERYABLE
HANDLER_FUNCTIONS(fifo_handler_query, query)
HANDLER_FUNCTIONS(ring_handler_query, query)

static void send_query(z_loaned_query_t *query, void *context) { channel_send(context, query); }

static z_result_t query_channel_new(z_owned_closure_query_t *callback, zm_channel_t **handler, size_t capacity,
                                    bool ring)
{
    z_internal_closure_query_null(callback);
    ZM_TRY(channel_new(ITEM_QUERY, ring, capacity, handler));
    callback->_val.call = send_query;
    callback->_val.drop = channel_close;
    callback->_val.context = *handler;
    return Z_OK;
}

z_result_t z_fifo_channel_query_new(z_owned_closure_query_t *callback, z_owned_fifo_handler_query_t *handler,
                                    size_t capacity)
{
    return callback != NULL && handler != NULL ? query_channel_new(callback, &handler->_rc.ptr, capacity, false)
                                               : Z_EINVAL;
}

z_result_t z_ring_channel_query_new(z_owned_closure_query_t *callback, z_owned_ring_handler_query_t *handler,
                                    size_t capacity)
{
    return callback != NULL && handler != NULL ? query_channel_new(callback, &handler->_rc.ptr, capacity, true)
                                               : Z_EINVAL;
}
#endif

#if Z_FEATURE_QUERY
HANDLER_FUNCTIONS(fifo_handler_reply, reply)
HANDLER_FUNCTIONS(ring_handler_reply, reply)

static void send_reply(z_loaned_reply_t *reply, void *context) { channel_send(context, reply); }

static z_result_t reply_channel_new(z_owned_closure_reply_t *callback, zm_channel_t **handler, size_t capacity,
                                    bool ring)
{
    z_internal_closure_reply_null(callback);
    ZM_TRY(channel_new(ITEM_REPLY, ring, capacity, handler));
    callback->_val.call = send_reply;
    callback->_val.drop = channel_close;
    callback->_val.context = *handler;
    return Z_OK;
}

z_result_t z_fifo_channel_reply_new(z_owned_closure_reply_t *callback, z_owned_fifo_handler_reply_t *handler,
                                    size_t capacity)
{
    return callback != NULL && handler != NULL ? reply_channel_new(callback, &handler->_rc.ptr, capacity, false)
                                               : Z_EINVAL;
}

z_result_t z_ring_channel_reply_new(z_owned_closure_reply_t *callback, z_owned_ring_handler_reply_t *handler,
                                    size_t capacity)
{
    return callback != NULL && handler != NULL ? reply_channel_new(callback, &handler->_rc.ptr, capacity, true)
                                               : Z_EINVAL;
}
#endif
