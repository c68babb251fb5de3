/*
 * The allocation hooks. The default is the port's heap (zm_port_malloc / zm_port_free), or, in
 * a no-heap build (ZM_NO_HEAP), fixed pools of blocks in static memory: one pool per size class
 * of ZM_POOL_CLASSES, each a free list, a block taken from the first class in the list (smallest
 * first) whose blocks are large enough, or none when that class has none left: a larger class
 * never lends, so that small requests (one peer's declarations) cannot take the batch buffers
 * every peer needs. Reassembly has a pool of its own (ZM_FRAG_POOL_BLOCKS) for the same reason.
 * Nothing then refers to the port's heap, and the memory a build needs is known at link time.
 */
#include "util/alloc.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/common.h"
#include "zmote/opt.h"

#if ZM_NO_HEAP
#if Z_FEATURE_MULTI_THREAD
#include <stdatomic.h>
#endif

/* Blocks are rounded up to this, so each one is aligned for any object. */
#define POOL_ALIGN alignof(max_align_t)
#define POOL_ROUND(n) (((size_t)(n) + POOL_ALIGN - 1u) & ~(POOL_ALIGN - 1u))

typedef struct pool_block {
    struct pool_block *next;
} pool_block_t;

typedef struct {
    size_t size; /* of each block */
    size_t count;
    uint8_t *base; /* count blocks of size bytes, one after the other */
    pool_block_t *free_list;
    size_t used;
    size_t peak;
} pool_t;

#define POOL_BYTES(size, count) +(size_t)(count) * POOL_ROUND(size)
#define POOL_ENTRY(size, count) {POOL_ROUND(size), (count), NULL, NULL, 0, 0},

/* Reassembly's own pool, after the classes (zm_alloc_frag). */
#if Z_FEATURE_FRAGMENTATION && ZM_FRAG_POOL_BLOCKS > 0
#define POOL_FRAG(X) X(ZM_FRAG_MAX_SIZE, ZM_FRAG_POOL_BLOCKS)
#else
#define POOL_FRAG(X)
#endif

/* The blocks of every class, one class after the other. */
alignas(max_align_t) static uint8_t pool_arena[0 ZM_POOL_CLASSES(POOL_BYTES) POOL_FRAG(POOL_BYTES)];

static pool_t pools[] = {ZM_POOL_CLASSES(POOL_ENTRY) POOL_FRAG(POOL_ENTRY)};

#define POOL_COUNT (sizeof(pools) / sizeof(pools[0]))
#define POOL_ONE(size, count) +1
enum { CLASS_COUNT = 0 ZM_POOL_CLASSES(POOL_ONE) };

static bool pools_ready;

#if Z_FEATURE_MULTI_THREAD
/* Pools are shared by every thread of every session: a spin lock, as no allocation waits long. */
static atomic_flag pool_lock = ATOMIC_FLAG_INIT;

static void pool_acquire(void)
{
    while (atomic_flag_test_and_set_explicit(&pool_lock, memory_order_acquire)) {
    }
}

static void pool_release(void) { atomic_flag_clear_explicit(&pool_lock, memory_order_release); }
#else
static void pool_acquire(void) {}
static void pool_release(void) {}
#endif

/* Lock held: threads every block of every class onto its free list, once. */
static void pools_init(void)
{
    uint8_t *at = pool_arena;
    for (size_t i = 0; i < POOL_COUNT; i++) {
        pool_t *p = &pools[i];
        p->base = at;
        at += p->count * p->size;
        p->free_list = NULL;
        for (size_t k = p->count; k-- > 0;) {
            pool_block_t *b = (pool_block_t *)(void *)(p->base + k * p->size);
            b->next = p->free_list;
            p->free_list = b;
        }
    }
    pools_ready = true;
}

/* A block of the first pool of [from, to) whose blocks hold size bytes, if it has one free. */
static void *pool_take(size_t from, size_t to, size_t size)
{
    void *out = NULL;
    pool_acquire();
    if (!pools_ready) {
        pools_init();
    }
    size_t i = from;
    while (i < to && pools[i].size < size) {
        i++;
    }
    if (i < to && pools[i].free_list != NULL) {
        pool_t *p = &pools[i];
        pool_block_t *b = p->free_list;
        p->free_list = b->next;
        p->used++;
        p->peak = p->used > p->peak ? p->used : p->peak;
        out = b;
    }
    pool_release();
    return out;
}

static void *pool_alloc(size_t size) { return pool_take(0, CLASS_COUNT, size); }
static void *pool_alloc_frag(size_t size) { return pool_take(CLASS_COUNT, POOL_COUNT, size); }

static void pool_free(void *ptr)
{
    uint8_t *at = ptr;
    bool found = false;
    pool_acquire();
    for (size_t i = 0; i < POOL_COUNT && !found; i++) {
        pool_t *p = &pools[i];
        if (at >= p->base && at < p->base + p->count * p->size) {
            pool_block_t *b = ptr;
            b->next = p->free_list;
            p->free_list = b;
            p->used--;
            found = true;
        }
    }
    pool_release();
    ZM_ASSERT(found); /* a block the pools never gave out */
}

size_t zm_pool_stats(zm_pool_stat_t *out, size_t cap)
{
    pool_acquire();
    for (size_t i = 0; i < POOL_COUNT && i < cap; i++) {
        out[i].size = pools[i].size;
        out[i].count = pools[i].count;
        out[i].used = pools[i].used;
        out[i].peak = pools[i].peak;
    }
    pool_release();
    return POOL_COUNT;
}

#define HEAP_ALLOC pool_alloc
#define HEAP_ALLOC_FRAG pool_alloc_frag
#define HEAP_FREE pool_free

#else /* the port's heap */

void *zm_port_malloc(size_t size);
void zm_port_free(void *ptr);

#define HEAP_ALLOC zm_port_malloc
#define HEAP_ALLOC_FRAG zm_port_malloc
#define HEAP_FREE zm_port_free

size_t zm_pool_stats(zm_pool_stat_t *out, size_t cap)
{
    (void)out;
    (void)cap;
    return 0;
}

#endif

/* The allocator zm_allocator_set installed; while none is (all zeroes), the heap above is called
 * directly, so that a firmware holds no table of pointers to it in flash. */
static zm_allocator_t current;

void *zm_alloc(size_t size)
{
    if (size == 0) {
        return NULL;
    }
    return current.alloc != NULL ? current.alloc(current.ctx, size) : HEAP_ALLOC(size);
}

void *zm_alloc_frag(size_t size)
{
    if (size == 0) {
        return NULL;
    }
    return current.alloc != NULL ? current.alloc(current.ctx, size) : HEAP_ALLOC_FRAG(size);
}

void *zm_calloc(size_t size)
{
    void *p = zm_alloc(size);
    if (p != NULL) {
        memset(p, 0, size);
    }
    return p;
}

void zm_free(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    if (current.free != NULL) {
        current.free(current.ctx, ptr);
    } else {
        HEAP_FREE(ptr);
    }
}

void zm_allocator_set(const zm_allocator_t *a)
{
    static const zm_allocator_t heap; /* none: the heap */
    current = a != NULL ? *a : heap;
}
