/*
 * The id map against a plain reference array: random puts, replacements and removals in many
 * rounds, every id checked after each round; ids picked to collide in the low bits; growth
 * through 100 000 entries and back to none; a failing allocation leaving the map as it was.
 */
#include <stdlib.h>

#include "check.h"
#include "util/alloc.h"
#include "util/idmap.h"

#define UNIVERSE 4096u

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static uintptr_t reference[UNIVERSE]; /* 0: absent */

static bool count_one(uint32_t id, void *val, void *ctx)
{
    CHECK_EQ_INT((uintptr_t)val, reference[id % UNIVERSE]);
    (*(unsigned *)ctx)++;
    return true;
}

static void check_all(const zm_idmap_t *m, uint32_t stride)
{
    unsigned present = 0, seen = 0;
    for (uint32_t i = 0; i < UNIVERSE; i++) {
        CHECK_EQ_INT((uintptr_t)zm_idmap_get(m, i * stride), reference[i]);
        present += reference[i] != 0;
    }
    CHECK_EQ_INT(zm_idmap_len(m), present);
    if (stride == 1) {
        zm_idmap_foreach(m, count_one, &seen);
        CHECK_EQ_INT(seen, present);
    }
}

/* stride spreads the ids: a power of two makes them agree in every low bit */
static void test_random(uint32_t stride, uint32_t seed)
{
    zm_idmap_t m;
    zm_idmap_init(&m, seed);
    memset(reference, 0, sizeof(reference));
    for (int round = 0; round < 40; round++) {
        for (int op = 0; op < 500; op++) {
            uint32_t i = rng() % UNIVERSE;
            uintptr_t v = (uintptr_t)(rng() | 1u);
            if (rng() % 3 == 0) {
                CHECK_EQ_INT((uintptr_t)zm_idmap_remove(&m, i * stride), reference[i]);
                reference[i] = 0;
            } else {
                void *old = (void *)1;
                CHECK_EQ_INT(zm_idmap_put(&m, i * stride, (void *)v, &old), Z_OK);
                CHECK_EQ_INT((uintptr_t)old, reference[i]);
                reference[i] = v;
            }
        }
        check_all(&m, stride);
    }
    zm_idmap_free(&m);
}

static void test_large(void)
{
    zm_idmap_t m;
    zm_idmap_init(&m, 7u);
    const uint32_t n = 100000u;
    for (uint32_t i = 1; i <= n; i++) {
        void *old = NULL;
        CHECK_EQ_INT(zm_idmap_put(&m, i * 2654435761u, (void *)(uintptr_t)i, &old), Z_OK);
    }
    CHECK_EQ_INT(zm_idmap_len(&m), n);
    unsigned wrong = 0;
    for (uint32_t i = 1; i <= n; i++) {
        wrong += (uintptr_t)zm_idmap_get(&m, i * 2654435761u) != i;
    }
    CHECK_EQ_INT(wrong, 0);
    for (uint32_t i = 1; i <= n; i += 2) {
        wrong += (uintptr_t)zm_idmap_remove(&m, i * 2654435761u) != i;
    }
    for (uint32_t i = 1; i <= n; i++) {
        wrong += (uintptr_t)zm_idmap_get(&m, i * 2654435761u) != (i % 2 ? 0u : i);
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(zm_idmap_len(&m), n / 2);
    zm_idmap_free(&m);
}

static bool fail_next;
static void *maybe_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (fail_next) {
        return NULL;
    }
    return malloc(size);
}
static void plain_free(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static void test_alloc_failure(void)
{
    zm_allocator_t a = {maybe_alloc, plain_free, NULL};
    zm_allocator_set(&a);
    zm_idmap_t m;
    zm_idmap_init(&m, 1u);
    void *old = NULL;
    uint32_t id = 0;
    /* fill up to the point where the next put must grow */
    do {
        id++;
        CHECK_EQ_INT(zm_idmap_put(&m, id, (void *)(uintptr_t)id, &old), Z_OK);
    } while ((m.n + 1u) * 4u <= m.cap * 3u);
    fail_next = true;
    CHECK_EQ_INT(zm_idmap_put(&m, id + 1, (void *)(uintptr_t)1, &old), ZM_E_NOMEM);
    CHECK_EQ_INT(zm_idmap_put(&m, 1, (void *)(uintptr_t)99, &old), Z_OK); /* a replacement needs no room */
    CHECK_EQ_INT((uintptr_t)old, 1);
    fail_next = false;
    CHECK_EQ_INT(zm_idmap_len(&m), id);
    CHECK(zm_idmap_get(&m, id + 1) == NULL);
    CHECK_EQ_INT((uintptr_t)zm_idmap_get(&m, id), id);
    zm_idmap_free(&m);
    zm_allocator_set(NULL);
}

int main(void)
{
    test_random(1u, 0u);
    test_random(1u << 20, 0x9e3779b9u);
    test_random(4096u, 42u);
    test_large();
    test_alloc_failure();
    return CHECK_DONE();
}
