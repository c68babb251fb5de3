/*
 * The Zenoh C API without a network: the owned/loaned/moved object model through the generic
 * macros, payloads (constructors, shared clones, deleters run exactly once, readers, writers),
 * strings, key expressions, encodings, configuration, closures and channel handlers, samples
 * delivered through the session bridge, and the platform helpers. A counting allocator checks
 * that nothing leaks, that clones and steady channel traffic do not allocate, and that a failed
 * allocation leaves every object usable.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "check.h"
#include "zenoh-pico.h"
#include "zenoh-pico/protocol/codec.h"

/* ---- a counting allocator that can be told to fail ------------------------------------------------ */

static atomic_long allocs;
static atomic_long frees;
static atomic_long budget = -1; /* allocations left before failing; -1: never fail */

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (atomic_load(&budget) == 0) {
        return NULL;
    }
    if (atomic_load(&budget) > 0) {
        atomic_fetch_sub(&budget, 1);
    }
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    atomic_fetch_add(&frees, 1);
    free(ptr);
}

static long live(void) { return atomic_load(&allocs) - atomic_load(&frees); }

/* ---- deleters that count their calls ---------------------------------------------------------------- */

static int deleted;
static void *deleted_ctx;

static void count_deleter(void *data, void *context)
{
    (void)data;
    deleted++;
    deleted_ctx = context;
}

static void free_deleter(void *data, void *context)
{
    (void)context;
    deleted++;
    free(data);
}

/* ---- object model ------------------------------------------------------------------------------------ */

static void test_object_model(void)
{
    long before = live();
    z_owned_bytes_t b;
    z_internal_null(&b);
    CHECK(!z_internal_check(b));
    CHECK_EQ_INT(z_bytes_copy_from_str(&b, "hello"), Z_OK);
    CHECK(z_internal_check(b));
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 5);
    CHECK((void *)z_move(b) == (void *)&b);
    CHECK((const void *)z_loan(b) == (const void *)&b._val);
    CHECK((void *)z_loan_mut(b) == (void *)&b._val);

    z_owned_bytes_t c;
    z_take(&c, z_move(b));
    CHECK(!z_internal_check(b));
    CHECK(z_internal_check(c));
    z_owned_bytes_t d;
    CHECK_EQ_INT(z_clone(&d, z_loan(c)), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(d)), 5);
    z_drop(z_move(c));
    CHECK(!z_internal_check(c));
    z_drop(z_move(c)); /* dropping a null object does nothing */
    z_drop(z_move(b));
    CHECK_EQ_INT(z_bytes_len(z_loan(d)), 5); /* the clone keeps the data alive */
    z_drop(z_move(d));

    z_owned_string_t s;
    z_internal_null(&s);
    CHECK(!z_internal_check(s));
    CHECK_EQ_INT(z_string_copy_from_str(&s, "text"), Z_OK);
    CHECK(z_internal_check(s));
    CHECK_EQ_STR(z_string_data(z_loan(s)), "text");
    z_owned_string_t s2;
    CHECK_EQ_INT(z_clone(&s2, z_loan(s)), Z_OK);
    z_drop(z_move(s));
    CHECK_EQ_MEM(z_string_data(z_loan(s2)), z_string_len(z_loan(s2)), "text", 4);
    z_drop(z_move(s2));

    z_view_string_t vs;
    CHECK_EQ_INT(z_view_string_from_str(&vs, "view"), Z_OK);
    CHECK_EQ_INT(z_string_len(z_loan(vs)), 4);
    CHECK(!z_view_string_is_empty(&vs));
    z_view_string_empty(&vs);
    CHECK(z_view_string_is_empty(&vs));

    z_owned_keyexpr_t k;
    z_internal_null(&k);
    CHECK(!z_internal_check(k));
    CHECK_EQ_INT(z_keyexpr_from_str(&k, "a/b"), Z_OK);
    CHECK(z_internal_check(k));
    z_owned_keyexpr_t k2;
    z_take(&k2, z_move(k));
    CHECK(!z_internal_check(k));
    z_drop(z_move(k2));
    CHECK(!z_internal_check(k2));

    z_owned_encoding_t e;
    z_internal_null(&e);
    CHECK(!z_internal_check(e));
    CHECK_EQ_INT(z_encoding_from_str(&e, "text/plain"), Z_OK);
    CHECK(z_internal_check(e));
    z_drop(z_move(e));
    CHECK(!z_internal_check(e));

    z_owned_slice_t sl;
    z_internal_null(&sl);
    CHECK(!z_internal_check(sl));
    const uint8_t raw[3] = {1, 2, 3};
    CHECK_EQ_INT(z_slice_copy_from_buf(&sl, raw, 3), Z_OK);
    CHECK(z_internal_check(sl));
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), raw, 3);
    z_owned_bytes_t fromsl;
    CHECK_EQ_INT(z_bytes_from_slice(&fromsl, z_move(sl)), Z_OK);
    CHECK(!z_internal_check(sl));
    CHECK_EQ_INT(z_bytes_len(z_loan(fromsl)), 3);
    z_drop(z_move(fromsl));

    z_owned_string_array_t arr;
    z_string_array_new(&arr);
    CHECK(z_string_array_is_empty(z_loan(arr)));
    z_view_string_t one;
    z_view_string_from_str(&one, "one");
    CHECK_EQ_INT(z_string_array_push_by_copy(z_loan_mut(arr), z_loan(one)), 1);
    CHECK_EQ_INT(z_string_array_push_by_alias(z_loan_mut(arr), z_loan(one)), 2);
    CHECK_EQ_INT(z_string_array_len(z_loan(arr)), 2);
    CHECK_EQ_MEM(z_string_data(z_string_array_get(z_loan(arr), 0)), 3, "one", 3);
    CHECK(z_string_array_get(z_loan(arr), 2) == NULL);
    z_owned_string_array_t arr2;
    CHECK_EQ_INT(z_clone(&arr2, z_loan(arr)), Z_OK);
    z_drop(z_move(arr));
    CHECK_EQ_INT(z_string_array_len(z_loan(arr2)), 2);
    z_drop(z_move(arr2));

    CHECK_EQ_INT(live(), before);
}

/* ---- closures ----------------------------------------------------------------------------------------- */

static int closure_calls;
static int closure_drops;

static void on_sample_count(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    closure_calls += ctx != NULL ? *(int *)ctx : 1;
}

static void on_drop_count(void *ctx)
{
    (void)ctx;
    closure_drops++;
}

static void test_closures(void)
{
    z_owned_closure_sample_t c;
    z_internal_null(&c);
    CHECK(!z_internal_check(c));
    z_closure(&c, on_sample_count); /* the two-argument form */
    CHECK(z_internal_check(c));
    CHECK(c._val.drop == NULL && c._val.context == NULL);
    closure_calls = 0;
    zm_api_sample_t smp;
    memset(&smp, 0, sizeof(smp));
    z_call(*z_loan(c), &smp);
    CHECK_EQ_INT(closure_calls, 1);
    z_drop(z_move(c));

    int weight = 5;
    closure_drops = 0;
    z_closure(&c, on_sample_count, on_drop_count, &weight);
    z_closure_sample_call(z_loan(c), &smp);
    CHECK_EQ_INT(closure_calls, 6);
    z_owned_closure_sample_t moved;
    z_take(&moved, z_move(c));
    CHECK(!z_internal_check(c));
    z_drop(z_move(c));
    CHECK_EQ_INT(closure_drops, 0);
    z_drop(z_move(moved));
    CHECK_EQ_INT(closure_drops, 1);
    z_drop(z_move(moved));
    CHECK_EQ_INT(closure_drops, 1);

    z_owned_closure_zid_t cz;
    CHECK_EQ_INT(z_closure_zid(&cz, NULL, on_drop_count, NULL), Z_OK);
    CHECK(!z_internal_check(cz)); /* no call: null */
    z_drop(z_move(cz));
    CHECK_EQ_INT(closure_drops, 2);
}

/* ---- payloads ---------------------------------------------------------------------------------------- */

static void test_bytes(void)
{
    long before = live();
    static uint8_t data[64];
    for (size_t i = 0; i < sizeof(data); i++) {
        data[i] = (uint8_t)i;
    }

    /* from_buf with a deleter: one holder allocated here, clones share it, deleter once */
    deleted = 0;
    int tag;
    z_owned_bytes_t b;
    long a0 = atomic_load(&allocs);
    CHECK_EQ_INT(z_bytes_from_buf(&b, data, sizeof(data), count_deleter, &tag), Z_OK);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 1);
    z_owned_bytes_t clones[3];
    a0 = atomic_load(&allocs);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(z_bytes_clone(&clones[i], z_loan(b)), Z_OK);
        CHECK(z_slice_data(&z_loan(clones[i])->slice) == data); /* shared, not copied */
    }
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    z_drop(z_move(b));
    z_drop(z_move(clones[0]));
    z_drop(z_move(clones[2]));
    CHECK_EQ_INT(deleted, 0);
    z_drop(z_move(clones[1]));
    CHECK_EQ_INT(deleted, 1);
    CHECK(deleted_ctx == &tag);

    /* static data and NULL deleters allocate nothing, even when cloned */
    a0 = atomic_load(&allocs);
    CHECK_EQ_INT(z_bytes_from_static_buf(&b, data, sizeof(data)), Z_OK);
    CHECK_EQ_INT(z_bytes_clone(&clones[0], z_loan(b)), Z_OK);
    z_drop(z_move(b));
    z_drop(z_move(clones[0]));
    CHECK_EQ_INT(z_bytes_from_buf(&b, data, 8, NULL, NULL), Z_OK);
    CHECK_EQ_INT(z_bytes_clone(&clones[0], z_loan(b)), Z_OK);
    z_drop(z_move(clones[0]));
    z_drop(z_move(b));
    CHECK_EQ_INT(z_bytes_from_static_str(&b, "static"), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 6);
    z_drop(z_move(b));
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);

    /* the other constructors */
    CHECK_EQ_INT(z_bytes_copy_from_buf(&b, data, 10), Z_OK);
    CHECK(z_loan(b)->slice.start != data);
    CHECK_EQ_MEM(z_loan(b)->slice.start, z_bytes_len(z_loan(b)), data, 10);
    z_drop(z_move(b));

    char *heap = malloc(4);
    memcpy(heap, "abc", 4);
    deleted = 0;
    CHECK_EQ_INT(z_bytes_from_str(&b, heap, free_deleter, NULL), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 3);
    z_drop(z_move(b));
    CHECK_EQ_INT(deleted, 1);

    z_owned_string_t str;
    z_string_copy_from_str(&str, "string");
    CHECK_EQ_INT(z_bytes_copy_from_string(&b, z_loan(str)), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 6);
    z_drop(z_move(b));
    CHECK_EQ_INT(z_bytes_from_string(&b, z_move(str)), Z_OK);
    CHECK(!z_internal_check(str));
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 6);
    z_owned_string_t back;
    CHECK_EQ_INT(z_bytes_to_string(z_loan(b), &back), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(back)), "string"); /* NUL-terminated */
    z_drop(z_move(back));
    z_owned_slice_t sl;
    CHECK_EQ_INT(z_bytes_to_slice(z_loan(b), &sl), Z_OK);
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), "string", 6);
    z_view_slice_t vsl;
    z_view_slice_from_buf(&vsl, data, 4);
    z_owned_bytes_t b2;
    CHECK_EQ_INT(z_bytes_copy_from_slice(&b2, z_loan(vsl)), Z_OK);
    CHECK_EQ_MEM(z_loan(b2)->slice.start, z_bytes_len(z_loan(b2)), data, 4);
    z_drop(z_move(b2));
    z_drop(z_move(sl));
    z_drop(z_move(b));

    z_bytes_empty(&b);
    CHECK(z_bytes_is_empty(z_loan(b)));
    CHECK_EQ_INT(z_bytes_to_string(z_loan(b), &back), Z_OK);
    CHECK(!z_internal_check(back));
    CHECK_EQ_INT(z_string_len(z_loan(back)), 0);

    /* reader */
    z_bytes_from_static_buf(&b, data, 16);
    z_bytes_reader_t r = z_bytes_get_reader(z_loan(b));
    uint8_t out[16];
    CHECK_EQ_INT(z_bytes_reader_read(&r, out, 5), 5);
    CHECK_EQ_MEM(out, 5, data, 5);
    CHECK_EQ_INT(z_bytes_reader_tell(&r), 5);
    CHECK_EQ_INT(z_bytes_reader_remaining(&r), 11);
    CHECK_EQ_INT(z_bytes_reader_seek(&r, 2, SEEK_CUR), Z_OK);
    CHECK_EQ_INT(z_bytes_reader_tell(&r), 7);
    CHECK_EQ_INT(z_bytes_reader_seek(&r, -3, SEEK_END), Z_OK);
    CHECK_EQ_INT(z_bytes_reader_read(&r, out, 10), 3);
    CHECK_EQ_MEM(out, 3, data + 13, 3);
    CHECK_EQ_INT(z_bytes_reader_seek(&r, 17, SEEK_SET), Z_EINVAL);
    CHECK_EQ_INT(z_bytes_reader_seek(&r, -1, SEEK_SET), Z_EINVAL);
    CHECK_EQ_INT(z_bytes_reader_tell(&r), 16); /* unmoved by the failed seeks */
    CHECK_EQ_INT(z_bytes_reader_seek(&r, 0, SEEK_SET), Z_OK);
    CHECK_EQ_INT(z_bytes_reader_read(&r, out, 16), 16);
    CHECK_EQ_INT(z_bytes_reader_read(&r, out, 1), 0);

    /* slice iterator: one run, then the end */
    z_bytes_slice_iterator_t it = z_bytes_get_slice_iterator(z_loan(b));
    z_view_slice_t run;
    CHECK(z_bytes_slice_iterator_next(&it, &run));
    CHECK_EQ_MEM(z_slice_data(z_loan(run)), z_slice_len(z_loan(run)), data, 16);
    CHECK(!z_bytes_slice_iterator_next(&it, &run));
    z_drop(z_move(b));
    z_bytes_empty(&b);
    it = z_bytes_get_slice_iterator(z_loan(b));
    CHECK(!z_bytes_slice_iterator_next(&it, &run));

    /* writer */
    z_owned_bytes_writer_t w;
    CHECK_EQ_INT(z_bytes_writer_empty(&w), Z_OK);
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), data, 20), Z_OK);
    }
    deleted = 0;
    z_owned_bytes_t part;
    z_bytes_from_buf(&part, data, 7, count_deleter, NULL);
    CHECK_EQ_INT(z_bytes_writer_append(z_loan_mut(w), z_move(part)), Z_OK);
    CHECK_EQ_INT(deleted, 0); /* kept as it is, not copied */
    CHECK(!z_internal_check(part));
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), data + 8, 8), Z_OK);
    z_bytes_writer_finish(z_move(w), &b);
    CHECK(!z_internal_check(w));
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 215);
    /* three runs: what was written, the appended payload itself, what was written after */
    it = z_bytes_get_slice_iterator(z_loan(b));
    CHECK(z_bytes_slice_iterator_next(&it, &run));
    CHECK_EQ_INT(z_slice_len(z_loan(run)), 200);
    CHECK_EQ_MEM(z_slice_data(z_loan(run)) + 180, 20, data, 20);
    CHECK(z_bytes_slice_iterator_next(&it, &run));
    CHECK(z_slice_data(z_loan(run)) == data);
    CHECK_EQ_INT(z_slice_len(z_loan(run)), 7);
    CHECK(z_bytes_slice_iterator_next(&it, &run));
    CHECK_EQ_MEM(z_slice_data(z_loan(run)), z_slice_len(z_loan(run)), data + 8, 8);
    CHECK(!z_bytes_slice_iterator_next(&it, &run));
#if defined(Z_FEATURE_UNSTABLE_API)
    z_view_slice_t whole;
    CHECK_EQ_INT(z_bytes_get_contiguous_view(z_loan(b), &whole), Z_EINVAL);
#endif
    /* read across the runs, and copied out whole */
    uint8_t joined[215];
    r = z_bytes_get_reader(z_loan(b));
    CHECK_EQ_INT(z_bytes_reader_seek(&r, 195, SEEK_SET), Z_OK);
    CHECK_EQ_INT(z_bytes_reader_read(&r, joined, 15), 15);
    CHECK_EQ_MEM(joined, 5, data + 15, 5);
    CHECK_EQ_MEM(joined + 5, 7, data, 7);
    CHECK_EQ_MEM(joined + 12, 3, data + 8, 3);
    CHECK_EQ_INT(z_bytes_reader_remaining(&r), 5);
    z_owned_slice_t flat;
    CHECK_EQ_INT(z_bytes_to_slice(z_loan(b), &flat), Z_OK);
    CHECK_EQ_INT(z_slice_len(z_loan(flat)), 215);
    CHECK_EQ_MEM(z_slice_data(z_loan(flat)) + 200, 7, data, 7);
    z_drop(z_move(flat));
    /* a clone shares the runs; the appended payload's deleter runs with the last of them */
    z_owned_bytes_t twin;
    CHECK_EQ_INT(z_bytes_clone(&twin, z_loan(b)), Z_OK);
    z_drop(z_move(b));
    CHECK_EQ_INT(deleted, 0);
    CHECK_EQ_INT(z_bytes_len(z_loan(twin)), 215);
    z_drop(z_move(twin));
    CHECK_EQ_INT(deleted, 1);
    z_bytes_writer_empty(&w);
    z_bytes_writer_finish(z_move(w), &b);
    CHECK(z_bytes_is_empty(z_loan(b)));

    CHECK_EQ_INT(live(), before);
}

/* A failed allocation returns an error, runs deleters that were handed over, leaks nothing and
 * leaves the objects usable. */
static void test_out_of_memory(void)
{
    long before = live();
    uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    z_owned_bytes_t b;

    atomic_store(&budget, 0);
    deleted = 0;
    CHECK_EQ_INT(z_bytes_from_buf(&b, data, 8, count_deleter, NULL), ZM_E_NOMEM);
    CHECK_EQ_INT(deleted, 1);
    CHECK(!z_internal_check(b));
    CHECK_EQ_INT(z_bytes_copy_from_buf(&b, data, 8), ZM_E_NOMEM);
    CHECK(!z_internal_check(b));
    z_drop(z_move(b));
    atomic_store(&budget, -1);

    z_owned_bytes_writer_t w;
    z_bytes_writer_empty(&w);
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), data, 8), Z_OK);
    atomic_store(&budget, 0);
    uint8_t big[200] = {0};
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), big, sizeof(big)), ZM_E_NOMEM);
    atomic_store(&budget, -1);
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), data, 8), Z_OK); /* still usable */
    z_bytes_writer_finish(z_move(w), &b);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 16);

    /* an append whose runs cannot be held fails, drops the payload and keeps what was written;
     * runs that cannot be joined for a copy fail the copy */
    z_bytes_writer_empty(&w);
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), data, 8), Z_OK);
    z_owned_bytes_t part;
    deleted = 0;
    CHECK_EQ_INT(z_bytes_from_buf(&part, data, 4, count_deleter, NULL), Z_OK);
    atomic_store(&budget, 0);
    CHECK_EQ_INT(z_bytes_writer_append(z_loan_mut(w), z_move(part)), ZM_E_NOMEM);
    CHECK_EQ_INT(deleted, 1);
    atomic_store(&budget, -1);
    CHECK_EQ_INT(z_bytes_writer_append(z_loan_mut(w), z_move(b)), Z_OK);
    z_bytes_writer_finish(z_move(w), &b);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 24);
    z_owned_slice_t flat;
    atomic_store(&budget, 0);
    CHECK_EQ_INT(z_bytes_to_slice(z_loan(b), &flat), ZM_E_NOMEM);
    atomic_store(&budget, -1);
    CHECK(!z_internal_check(flat));
    z_drop(z_move(b));

    z_owned_config_t cfg;
    CHECK_EQ_INT(z_config_default(&cfg), Z_OK);
    atomic_store(&budget, 0);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(cfg), Z_CONFIG_MODE_KEY, "peer"), ZM_E_NOMEM);
    CHECK_EQ_STR(zp_config_get(z_loan(cfg), Z_CONFIG_MODE_KEY), "client");
    z_owned_config_t cfg2;
    CHECK_EQ_INT(z_config_clone(&cfg2, z_loan(cfg)), ZM_E_NOMEM);
    CHECK(!z_internal_check(cfg2));
    atomic_store(&budget, 2); /* the clone fails half-way: what it made is released */
    CHECK_EQ_INT(z_config_clone(&cfg2, z_loan(cfg)), ZM_E_NOMEM);
    atomic_store(&budget, -1);
    z_drop(z_move(cfg));

    /* a sample clone that cannot allocate leaves the destination null */
    zm_sample_t in;
    memset(&in, 0, sizeof(in));
    in.key = "k/x";
    in.key_len = 3;
    in.payload = zm_slice(data, 8);
    zm_api_sample_t borrowed;
    zm_api_sample_from_session(&borrowed, &in);
    z_owned_sample_t copy;
    atomic_store(&budget, 0);
    CHECK_EQ_INT(z_sample_clone(&copy, &borrowed), ZM_E_NOMEM);
    atomic_store(&budget, -1);
    CHECK(!z_internal_check(copy));
    CHECK_EQ_INT(z_sample_clone(&copy, &borrowed), Z_OK);
    z_drop(z_move(copy));

    /* a channel that cannot be made leaves the closure null */
    z_owned_closure_sample_t cl;
    z_owned_fifo_handler_sample_t h;
    for (long n = 0; n < 3; n++) {
        atomic_store(&budget, n);
        z_result_t r = z_fifo_channel_sample_new(&cl, &h, 4);
        atomic_store(&budget, -1);
        if (r == Z_OK) {
            z_drop(z_move(cl));
            z_drop(z_move(h));
        } else {
            CHECK_EQ_INT(r, ZM_E_NOMEM);
            CHECK(!z_internal_check(cl));
        }
    }

    CHECK_EQ_INT(live(), before);
}

/* ---- key expressions --------------------------------------------------------------------------------- */

static bool key_is(const z_loaned_keyexpr_t *k, const char *text)
{
    z_view_string_t s;
    z_keyexpr_as_view_string(k, &s);
    return z_string_len(z_loan(s)) == strlen(text) && memcmp(z_string_data(z_loan(s)), text, strlen(text)) == 0;
}

static void test_keyexpr(void)
{
    long before = live();
    z_view_keyexpr_t v;
    CHECK_EQ_INT(z_view_keyexpr_from_str(&v, "demo/example/**"), Z_OK);
    CHECK(key_is(z_loan(v), "demo/example/**"));
    CHECK_EQ_INT(z_view_keyexpr_from_str(&v, "demo//x"), Z_EINVAL);
    CHECK(z_view_keyexpr_is_empty(&v));
    CHECK_EQ_INT(z_view_keyexpr_from_str(&v, "a/**/**"), Z_EINVAL);
    CHECK_EQ_INT(z_view_keyexpr_from_substr(&v, "a/b/c", 3), Z_OK);
    CHECK(key_is(z_loan(v), "a/b"));
    z_view_keyexpr_from_str_unchecked(&v, "test/ping");
    CHECK(key_is(z_loan(v), "test/ping"));

    char text[] = "a/**/**/b";
    CHECK_EQ_INT(z_view_keyexpr_from_str_autocanonize(&v, text), Z_OK);
    CHECK_EQ_STR(text, "a/**/b");
    CHECK(key_is(z_loan(v), "a/**/b"));
    char text2[] = "x/$*/y";
    size_t len = strlen(text2);
    CHECK_EQ_INT(z_view_keyexpr_from_substr_autocanonize(&v, text2, &len), Z_OK);
    CHECK_EQ_INT(len, 5);
    CHECK(key_is(z_loan(v), "x/*/y"));

    /* owned keys copy: changing the source later does not change them */
    char src[] = "own/key";
    z_owned_keyexpr_t k;
    CHECK_EQ_INT(z_keyexpr_from_str(&k, src), Z_OK);
    src[0] = 'X';
    CHECK(key_is(z_loan(k), "own/key"));
    z_drop(z_move(k));
    CHECK_EQ_INT(z_keyexpr_from_str(&k, "bad//key"), Z_EINVAL);
    CHECK(!z_internal_check(k));
    CHECK_EQ_INT(z_keyexpr_from_str_autocanonize(&k, "c/**/**"), Z_OK);
    CHECK(key_is(z_loan(k), "c/**"));
    z_drop(z_move(k));
    len = 9;
    CHECK_EQ_INT(z_keyexpr_from_substr_autocanonize(&k, "d/$*/e/**tail", &len), Z_OK);
    CHECK_EQ_INT(len, 8);
    CHECK(key_is(z_loan(k), "d/*/e/**"));
    z_drop(z_move(k));

    /* a clone of a view copies, since the view only borrows */
    char buf[] = "view/key";
    z_view_keyexpr_from_str(&v, buf);
    CHECK_EQ_INT(z_keyexpr_clone(&k, z_loan(v)), Z_OK);
    buf[0] = 'Z';
    CHECK(key_is(z_loan(k), "view/key"));

    z_owned_keyexpr_t c;
    CHECK_EQ_INT(z_keyexpr_concat(&c, z_loan(k), "/more", 5), Z_OK);
    CHECK(key_is(z_loan(c), "view/key/more"));
    z_drop(z_move(c));
    CHECK_EQ_INT(z_keyexpr_concat(&c, z_loan(k), "/", 1), Z_EINVAL);
    CHECK(!z_internal_check(c));
    z_view_keyexpr_t r;
    z_view_keyexpr_from_str(&r, "x/y");
    CHECK_EQ_INT(z_keyexpr_join(&c, z_loan(k), z_loan(r)), Z_OK);
    CHECK(key_is(z_loan(c), "view/key/x/y"));
    z_drop(z_move(c));
    z_view_keyexpr_t l2, r2;
    z_view_keyexpr_from_str(&l2, "a/**");
    z_view_keyexpr_from_str(&r2, "*");
    CHECK_EQ_INT(z_keyexpr_join(&c, z_loan(l2), z_loan(r2)), Z_OK);
    CHECK(key_is(z_loan(c), "a/*/**"));
    z_drop(z_move(c));
    z_drop(z_move(k));

    CHECK_EQ_INT(z_keyexpr_is_canon("a/b", 3), Z_OK);
    CHECK_EQ_INT(z_keyexpr_is_canon("a/**/**", 7), Z_EINVAL);
    char can[] = "a/**/**/*";
    size_t can_len = strlen(can);
    CHECK_EQ_INT(z_keyexpr_canonize(can, &can_len), Z_OK);
    CHECK_EQ_MEM(can, can_len, "a/*/**", 6);
    char can2[] = "$*/b";
    CHECK_EQ_INT(z_keyexpr_canonize_null_terminated(can2), Z_OK);
    CHECK_EQ_STR(can2, "*/b");

    z_view_keyexpr_t a, b, d;
    z_view_keyexpr_from_str(&a, "demo/**");
    z_view_keyexpr_from_str(&b, "demo/x/y");
    z_view_keyexpr_from_str(&d, "other/*");
    CHECK(z_keyexpr_includes(z_loan(a), z_loan(b)));
    CHECK(!z_keyexpr_includes(z_loan(b), z_loan(a)));
    CHECK(z_keyexpr_intersects(z_loan(a), z_loan(b)));
    CHECK(!z_keyexpr_intersects(z_loan(a), z_loan(d)));
    CHECK(z_keyexpr_equals(z_loan(a), z_loan(a)));
    CHECK(!z_keyexpr_equals(z_loan(a), z_loan(b)));
    CHECK_EQ_INT(z_keyexpr_relation_to(z_loan(a), z_loan(a)), Z_KEYEXPR_INTERSECTION_LEVEL_EQUALS);
    CHECK_EQ_INT(z_keyexpr_relation_to(z_loan(a), z_loan(b)), Z_KEYEXPR_INTERSECTION_LEVEL_INCLUDES);
    z_view_keyexpr_t s1, s2;
    z_view_keyexpr_from_str(&s1, "a/*/c");
    z_view_keyexpr_from_str(&s2, "a/b/*");
    CHECK_EQ_INT(z_keyexpr_relation_to(z_loan(s1), z_loan(s2)), Z_KEYEXPR_INTERSECTION_LEVEL_INTERSECTS);
    CHECK_EQ_INT(z_keyexpr_relation_to(z_loan(a), z_loan(d)), Z_KEYEXPR_INTERSECTION_LEVEL_DISJOINT);
    CHECK(!z_keyexpr_includes(NULL, z_loan(a)));

    CHECK_EQ_INT(live(), before);
}

/* ---- encodings ---------------------------------------------------------------------------------------- */

static bool string_is(const z_owned_string_t *s, const char *text)
{
    return z_string_len(z_loan(*s)) == strlen(text) && memcmp(z_string_data(z_loan(*s)), text, strlen(text)) == 0;
}

static void test_encoding(void)
{
    long before = live();
    z_owned_encoding_t e;
    z_owned_string_t s;
    CHECK_EQ_INT(z_encoding_from_str(&e, "text/plain"), Z_OK);
    CHECK_EQ_INT(z_loan(e)->id, 4);
    CHECK(z_encoding_equals(z_loan(e), z_encoding_text_plain()));
    CHECK_EQ_INT(z_encoding_to_string(z_loan(e), &s), Z_OK);
    CHECK(string_is(&s, "text/plain"));
    z_drop(z_move(s));
    z_drop(z_move(e));

    CHECK_EQ_INT(z_encoding_from_str(&e, "application/json;my-schema"), Z_OK);
    CHECK_EQ_INT(z_loan(e)->id, 5);
    CHECK(!z_encoding_equals(z_loan(e), z_encoding_application_json()));
    z_encoding_to_string(z_loan(e), &s);
    CHECK(string_is(&s, "application/json;my-schema"));
    z_drop(z_move(s));
    CHECK_EQ_INT(z_encoding_set_schema_from_str(z_loan_mut(e), "other"), Z_OK);
    z_encoding_to_string(z_loan(e), &s);
    CHECK(string_is(&s, "application/json;other"));
    z_drop(z_move(s));
    z_owned_encoding_t e2;
    CHECK_EQ_INT(z_clone(&e2, z_loan(e)), Z_OK);
    CHECK(z_encoding_equals(z_loan(e), z_loan(e2)));
    z_drop(z_move(e2));
    z_drop(z_move(e));

    /* names match whole, as in Rust; an unknown one is zenoh/bytes with the text as schema, as
     * zenoh-pico makes it */
    CHECK_EQ_INT(z_encoding_from_str(&e, "text"), Z_OK);
    CHECK_EQ_INT(z_loan(e)->id, 0);
    z_drop(z_move(e));
    CHECK_EQ_INT(z_encoding_from_str(&e, "my_encoding"), Z_OK);
    CHECK_EQ_INT(z_loan(e)->id, 0);
    z_encoding_to_string(z_loan(e), &s);
    CHECK(string_is(&s, "zenoh/bytes;my_encoding"));
    z_drop(z_move(s));
    z_drop(z_move(e));
    /* Rust's custom id, as it arrives from a Rust node, prints as its text alone */
    z_internal_encoding_null(&e);
    e._val.id = 0xffff;
    CHECK_EQ_INT(z_encoding_set_schema_from_str(z_loan_mut(e), "custom/type"), Z_OK);
    z_encoding_to_string(z_loan(e), &s);
    CHECK(string_is(&s, "custom/type"));
    z_drop(z_move(s));
    z_drop(z_move(e));
    CHECK_EQ_INT(z_encoding_from_substr(&e, "image/png;xyz", 9), Z_OK);
    CHECK_EQ_INT(z_loan(e)->id, 16);
    CHECK(z_internal_check(e));
    z_drop(z_move(e));
    CHECK_EQ_INT(z_encoding_from_str(&e, NULL), Z_OK);
    CHECK(!z_internal_check(e));

    CHECK_EQ_INT(z_encoding_loan_default()->id, 0);
    CHECK_EQ_INT(ZP_ENCODING_APPLICATION_CDR._val.id, 7);
    CHECK_EQ_INT(z_encoding_video_vp9()->id, 52);
    CHECK_EQ_INT(z_encoding_application_x_www_form_urlencoded()->id, 22);
    z_encoding_to_string(z_encoding_application_json_patch_json(), &s);
    CHECK(string_is(&s, "application/json-patch+json"));
    z_drop(z_move(s));
    CHECK_EQ_INT(live(), before);
}

/* ---- configuration ------------------------------------------------------------------------------------- */

static void test_config(void)
{
    long before = live();
    z_owned_config_t c;
    z_internal_null(&c);
    CHECK(!z_internal_check(c));
    CHECK_EQ_INT(z_config_default(&c), Z_OK);
    CHECK(z_internal_check(c));
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_MODE_KEY), "client");
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_MULTICAST_SCOUTING_KEY), "true");
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_MULTICAST_LOCATOR_KEY), "udp/224.0.0.224:7446");
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_SCOUTING_TIMEOUT_KEY), "1000");
    CHECK(zp_config_get(z_loan(c), Z_CONFIG_CONNECT_KEY) == NULL);

    char locator[32] = "tcp/10.0.0.1:7447";
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, locator), Z_OK);
    locator[4] = '9'; /* copied: the caller's buffer may change */
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, "tcp/10.0.0.2:7447"), Z_OK);
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_CONNECT_KEY), "tcp/10.0.0.1:7447");
    size_t connects = 0;
    for (uint8_t i = 0; i < z_loan(c)->n; i++) {
        connects += z_loan(c)->entries[i].key == Z_CONFIG_CONNECT_KEY;
    }
    CHECK_EQ_INT(connects, 2);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer"), Z_OK);
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_MODE_KEY), "peer");
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, "tcp/0.0.0.0:1"), Z_OK);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, "tcp/0.0.0.0:2"), Z_OK);
    CHECK_EQ_STR(zp_config_get(z_loan(c), Z_CONFIG_LISTEN_KEY), "tcp/0.0.0.0:2");
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, NULL), Z_EINVAL);

    z_owned_config_t c2;
    CHECK_EQ_INT(z_clone(&c2, z_loan(c)), Z_OK);
    CHECK_EQ_STR(zp_config_get(z_loan(c2), Z_CONFIG_MODE_KEY), "peer");
    z_drop(z_move(c2));

    z_result_t r = Z_OK;
    for (int i = 0; i < ZM_CONFIG_ENTRIES_MAX && r == Z_OK; i++) {
        r = zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, "tcp/1.2.3.4:5");
    }
    CHECK_EQ_INT(r, _Z_ERR_CONFIG_FAILED_INSERT);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "client"), Z_OK); /* replacing still works */
    z_drop(z_move(c));
    CHECK(!z_internal_check(c));
    CHECK_EQ_INT(live(), before);
}

/* ---- samples through the session bridge ------------------------------------------------------------------ */

static z_owned_sample_t kept;
static int seen;

static void inspect(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    seen++;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    CHECK_EQ_MEM(z_string_data(z_loan(key)), z_string_len(z_loan(key)), "demo/a", 6);
    z_owned_string_t text;
    CHECK_EQ_INT(z_bytes_to_string(z_sample_payload(sample), &text), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(text)), "payload");
    z_drop(z_move(text));
    CHECK_EQ_INT(z_sample_encoding(sample)->id, 5);
    CHECK_EQ_MEM(z_sample_encoding(sample)->schema.slice.start, z_sample_encoding(sample)->schema.slice.len, "sch", 3);
    const z_timestamp_t *ts = z_sample_timestamp(sample);
    CHECK(ts != NULL);
    if (ts != NULL) {
        CHECK_EQ_INT(z_timestamp_ntp64_time(ts), 0x1234567890ull);
        CHECK_EQ_INT(z_timestamp_id(ts).id[0], 0xab);
        CHECK_EQ_INT(z_timestamp_id(ts).id[1], 0);
    }
    CHECK_EQ_INT(z_sample_kind(sample), Z_SAMPLE_KIND_DELETE);
    CHECK_EQ_INT(z_bytes_len(z_sample_attachment(sample)), 3);
    CHECK_EQ_INT(z_sample_priority(sample), Z_PRIORITY_INTERACTIVE_HIGH);
    CHECK_EQ_INT(z_sample_congestion_control(sample), Z_CONGESTION_CONTROL_BLOCK);
    CHECK(z_sample_express(sample));
    CHECK_EQ_INT(sample->reliability, Z_RELIABILITY_BEST_EFFORT);
#ifdef Z_FEATURE_UNSTABLE_API /* the source info is read through the unstable API alone */
    CHECK(sample->has_source_info && sample->source_info.source_sn == 9);
#endif

    /* zenoh-pico's z_pong takes the payload member by value and drops it: harmless here */
    z_owned_bytes_t payload = {._val = sample->payload};
    z_drop(z_move(payload));
    CHECK_EQ_INT(z_bytes_len(z_sample_payload(sample)), 7);

    CHECK_EQ_INT(z_sample_clone(&kept, sample), Z_OK);
}

static void test_sample_bridge(void)
{
    long before = live();
    char key[] = "demo/a";
    uint8_t payload[] = "payload";
    uint8_t att[] = {1, 2, 3};
    char schema[] = "sch";
    zm_sample_t in;
    memset(&in, 0, sizeof(in));
    in.key = key;
    in.key_len = 6;
    in.kind = ZM_SAMPLE_DELETE;
    in.payload = zm_slice(payload, 7);
    in.encoding.id = 5;
    in.encoding.has_schema = true;
    in.encoding.schema = zm_slice(schema, 3);
    in.has_timestamp = true;
    in.timestamp.time = 0x1234567890ull;
    in.timestamp.id.len = 1;
    in.timestamp.id.id[0] = 0xab;
    in.has_attachment = true;
    in.attachment = zm_slice(att, 3);
    in.has_source = true;
    in.source.sn = 9;
    in.priority = 2;
    in.block = true;
    in.express = true;
    in.reliable = false;

    z_owned_closure_sample_t c;
    closure_drops = 0;
    z_closure(&c, inspect, on_drop_count, NULL);
    zm_api_sub_ctx_t *ctx = zm_api_sub_ctx_new(z_move(c));
    CHECK(ctx != NULL && !z_internal_check(c));
    seen = 0;
    long a0 = atomic_load(&allocs);
    zm_api_subscriber_deliver(&in, ctx);
    CHECK_EQ_INT(seen, 1);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 2); /* the text copy, and the clone's one block */

    /* the clone owns its bytes: overwrite what was received */
    memset(key, 'x', sizeof(key) - 1);
    memset(payload, 'x', sizeof(payload) - 1);
    memset(schema, 'x', sizeof(schema) - 1);
    CHECK_EQ_MEM(z_loan(kept)->keyexpr.key.slice.start, z_loan(kept)->keyexpr.key.slice.len, "demo/a", 6);
    CHECK_EQ_MEM(z_loan(kept)->payload.slice.start, z_loan(kept)->payload.slice.len, "payload", 7);
    CHECK_EQ_MEM(z_loan(kept)->encoding.schema.slice.start, 3, "sch", 3);
    CHECK_EQ_MEM(z_loan(kept)->attachment.slice.start, 3, att, 3);
    CHECK(z_sample_timestamp(z_loan(kept)) != NULL);
    z_owned_sample_t again;
    a0 = atomic_load(&allocs);
    CHECK_EQ_INT(z_clone(&again, z_loan(kept)), Z_OK); /* owned parts are shared */
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    z_drop(z_move(kept));
    CHECK_EQ_MEM(z_loan(again)->payload.slice.start, 7, "payload", 7);
    z_drop(z_move(again));

    zm_api_subscriber_release(ctx);
    CHECK_EQ_INT(closure_drops, 1);

    /* absent parts: no timestamp, empty attachment (never NULL) */
    zm_sample_t bare;
    memset(&bare, 0, sizeof(bare));
    bare.key = "k";
    bare.key_len = 1;
    zm_api_sample_t s;
    zm_api_sample_from_session(&s, &bare);
    CHECK(z_sample_timestamp(&s) == NULL);
    CHECK(z_sample_attachment(&s) != NULL && z_bytes_is_empty(z_sample_attachment(&s)));
    CHECK_EQ_INT(z_sample_kind(&s), Z_SAMPLE_KIND_PUT);
    CHECK(z_sample_keyexpr(NULL) != NULL);
    CHECK_EQ_INT(live(), before);
}

/* ---- channels ---------------------------------------------------------------------------------------- */

static zm_sample_t fake(const char *key, const uint8_t *payload, size_t len)
{
    zm_sample_t s;
    memset(&s, 0, sizeof(s));
    s.key = key;
    s.key_len = strlen(key);
    s.payload = zm_slice(payload, len);
    s.priority = 5;
    s.reliable = true;
    return s;
}

/* Sends through a channel's closure as the session would: a borrowed sample. */
static void push(const z_owned_closure_sample_t *c, const char *key)
{
    zm_sample_t in = fake(key, (const uint8_t *)key, strlen(key));
    zm_api_sample_t s;
    zm_api_sample_from_session(&s, &in);
    z_call(*z_loan(*c), &s);
}

static bool sample_key_is(const z_owned_sample_t *s, const char *key)
{
    return key_is(z_sample_keyexpr(z_loan(*s)), key);
}

typedef struct {
    z_owned_mutex_t lock;
    z_owned_condvar_t cond;
    bool done;
    z_result_t result;
    z_owned_sample_t sample;
    const z_loaned_fifo_handler_sample_t *handler;
} receiver_t;

static void *receive_main(void *arg)
{
    receiver_t *rx = arg;
    z_owned_sample_t s;
    z_result_t r = z_recv(rx->handler, &s);
    z_mutex_lock(z_loan_mut(rx->lock));
    rx->result = r;
    z_sample_take(&rx->sample, z_move(s));
    rx->done = true;
    z_condvar_signal(z_loan_mut(rx->cond));
    z_mutex_unlock(z_loan_mut(rx->lock));
    return NULL;
}

/* Waits up to ms for the receiver to finish; true if it did. */
static bool receiver_wait(receiver_t *rx, unsigned long ms)
{
    z_clock_t deadline = z_clock_now();
    z_clock_advance_ms(&deadline, ms);
    z_mutex_lock(z_loan_mut(rx->lock));
    while (!rx->done && z_condvar_wait_until(z_loan_mut(rx->cond), z_loan_mut(rx->lock), &deadline) != Z_ETIMEDOUT) {
    }
    bool done = rx->done;
    z_mutex_unlock(z_loan_mut(rx->lock));
    return done;
}

static void test_channels(void)
{
    long before = live();
    z_owned_closure_sample_t cl;
    z_owned_fifo_handler_sample_t fifo;
    z_owned_sample_t s;

    CHECK_EQ_INT(z_fifo_channel_sample_new(&cl, &fifo, 0), Z_EINVAL);
    CHECK_EQ_INT(z_fifo_channel_sample_new(&cl, &fifo, 3), Z_OK);
    CHECK(z_internal_check(cl) && z_internal_check(fifo));
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &s), Z_CHANNEL_NODATA);
    CHECK(!z_internal_check(s));
    push(&cl, "k/1");
    push(&cl, "k/2");
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &s), Z_OK);
    CHECK(sample_key_is(&s, "k/1"));
    CHECK_EQ_MEM(z_loan(s)->payload.slice.start, z_loan(s)->payload.slice.len, "k/1", 3);
    z_drop(z_move(s));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &s), Z_OK);
    CHECK(sample_key_is(&s, "k/2"));
    z_drop(z_move(s));
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &s), Z_CHANNEL_NODATA);

    /* a blocked receiver wakes when a sample comes, within a bounded wait */
    receiver_t rx;
    memset(&rx, 0, sizeof(rx));
    CHECK_EQ_INT(z_mutex_init(&rx.lock), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&rx.cond), Z_OK);
    rx.handler = z_loan(fifo);
    z_owned_task_t task;
    CHECK_EQ_INT(z_task_init(&task, NULL, receive_main, &rx), Z_OK);
    z_sleep_ms(30);
    push(&cl, "k/late");
    bool woke = receiver_wait(&rx, 5000);
    CHECK(woke);
    if (!woke) {
        z_drop(z_move(cl)); /* let it return with DISCONNECTED before it is joined */
    }
    z_drop(z_move(task));
    CHECK_EQ_INT(rx.result, Z_OK);
    CHECK(sample_key_is(&rx.sample, "k/late"));
    z_drop(z_move(rx.sample));

    /* steady traffic allocates nothing: buffers go back to the channel's pool */
    uint8_t data[100] = {0};
    zm_sample_t in = fake("steady/key", data, sizeof(data));
    z_owned_closure_sample_t scl;
    z_owned_fifo_handler_sample_t sh;
    z_fifo_channel_sample_new(&scl, &sh, 4);
    zm_api_sub_ctx_t *ctx = zm_api_sub_ctx_new(z_move(scl));
    long a0 = 0;
    int ok = 0;
    for (int i = -8; i < 1000; i++) { /* 8 rounds of warm-up fill the pool */
        if (i == 0) {
            a0 = atomic_load(&allocs);
            ok = 0;
        }
        data[0] = (uint8_t)i;
        zm_api_subscriber_deliver(&in, ctx);
        if (i % 2 != 0) {
            zm_api_subscriber_deliver(&in, ctx);
            z_recv(z_loan(sh), &s);
            z_drop(z_move(s));
        }
        if (z_recv(z_loan(sh), &s) == Z_OK && z_loan(s)->payload.slice.start[0] == (uint8_t)i) {
            ok++;
        }
        z_drop(z_move(s));
    }
    CHECK_EQ_INT(ok, 1000);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    zm_api_subscriber_release(ctx); /* the sender side goes: queued samples stay */
    CHECK_EQ_INT(z_recv(z_loan(sh), &s), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(sh));

    /* closing the sender: what is queued still comes out, then DISCONNECTED */
    push(&cl, "k/last");
    z_drop(z_move(cl));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &s), Z_OK);
    CHECK(sample_key_is(&s, "k/last"));
    z_drop(z_move(s));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &s), Z_CHANNEL_DISCONNECTED);
    CHECK(!z_internal_check(s));
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &s), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(fifo));
    CHECK(!z_internal_check(fifo));

    /* a ring forgets its oldest sample when full */
    z_owned_ring_handler_sample_t ring;
    CHECK_EQ_INT(z_ring_channel_sample_new(&cl, &ring, 2), Z_OK);
    push(&cl, "r/1");
    push(&cl, "r/2");
    push(&cl, "r/3");
    CHECK_EQ_INT(z_try_recv(z_loan(ring), &s), Z_OK);
    CHECK(sample_key_is(&s, "r/2"));
    z_drop(z_move(s));
    CHECK_EQ_INT(z_recv(z_loan(ring), &s), Z_OK);
    CHECK(sample_key_is(&s, "r/3"));
    /* a received sample outlives both ends of its channel */
    z_drop(z_move(ring));
    push(&cl, "r/ignored"); /* nobody receives any more: discarded */
    z_drop(z_move(cl));
    CHECK(sample_key_is(&s, "r/3"));
    z_drop(z_move(s));

    /* handler dropped first, with samples queued */
    CHECK_EQ_INT(z_ring_channel_sample_new(&cl, &ring, 4), Z_OK);
    push(&cl, "q/1");
    push(&cl, "q/2");
    z_drop(z_move(ring));
    z_drop(z_move(cl));

    z_drop(z_move(rx.cond));
    z_drop(z_move(rx.lock));
    CHECK_EQ_INT(live(), before);
}

/* ---- platform helpers --------------------------------------------------------------------------------- */

static void test_platform(void)
{
    long before = live();
    z_clock_t start = z_clock_now();
    z_sleep_ms(20);
    CHECK(z_clock_elapsed_ms(&start) >= 20);
    CHECK(z_clock_elapsed_us(&start) >= 20000);
    z_clock_t later = start;
    z_clock_advance_ms(&later, 1500);
    CHECK_EQ_INT(zp_clock_elapsed_ms_since(&later, &start), 1500);
    CHECK_EQ_INT(zp_clock_elapsed_s_since(&later, &start), 1);
    CHECK_EQ_INT(zp_clock_elapsed_us_since(&start, &later), 0);

    char text[32];
    z_time_now_as_str(text, sizeof(text));
    CHECK_EQ_INT(strlen(text), 20);
    CHECK(text[4] == '-' && text[10] == 'T' && text[19] == 'Z');
    CHECK(text[0] == '2');
    z_time_now_as_str(text, 5);
    CHECK_EQ_INT(strlen(text), 4);

    uint8_t *p = z_malloc(10);
    CHECK(p != NULL);
    memcpy(p, "0123456789", 10);
    p = z_realloc(p, 1000);
    CHECK_EQ_MEM(p, 10, "0123456789", 10);
    p = z_realloc(p, 4);
    CHECK_EQ_MEM(p, 4, "0123", 4);
    z_free(p);
    z_free(NULL);

    uint8_t rnd[32] = {0};
    z_random_fill(rnd, sizeof(rnd));
    int nonzero = 0;
    for (size_t i = 0; i < sizeof(rnd); i++) {
        nonzero += rnd[i] != 0;
    }
    CHECK(nonzero > 0);

    z_owned_mutex_t m;
    CHECK_EQ_INT(z_mutex_init(&m), Z_OK);
    CHECK_EQ_INT(z_mutex_lock(z_loan_mut(m)), Z_OK);
    CHECK_EQ_INT(z_mutex_try_lock(z_loan_mut(m)), ZM_E_BUSY);
    CHECK_EQ_INT(z_mutex_unlock(z_loan_mut(m)), Z_OK);
    CHECK_EQ_INT(z_mutex_try_lock(z_loan_mut(m)), Z_OK);
    z_owned_condvar_t cv;
    CHECK_EQ_INT(z_condvar_init(&cv), Z_OK);
    z_clock_t deadline = z_clock_now();
    z_clock_advance_ms(&deadline, 10);
    CHECK_EQ_INT(z_condvar_wait_until(z_loan_mut(cv), z_loan_mut(m), &deadline), Z_ETIMEDOUT);
    CHECK_EQ_INT(z_mutex_try_lock(z_loan_mut(m)), ZM_E_BUSY); /* held again after the wait */
    CHECK_EQ_INT(z_mutex_unlock(z_loan_mut(m)), Z_OK);
    z_drop(z_move(cv));
    z_drop(z_move(m));
    CHECK_EQ_INT(z_mutex_lock(NULL), Z_ENULL);

    z_id_t id;
    memset(&id, 0, sizeof(id));
    id.id[0] = 0x01;
    id.id[15] = 0xfe;
    z_owned_string_t s;
    CHECK_EQ_INT(z_id_to_string(&id, &s), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(s)), "fe000000000000000000000000000001");
    z_drop(z_move(s));

    z_view_string_t w;
    CHECK_EQ_INT(z_whatami_to_view_string(Z_WHATAMI_PEER, &w), Z_OK);
    CHECK_EQ_MEM(z_string_data(z_loan(w)), z_string_len(z_loan(w)), "Peer", 4);
    CHECK_EQ_INT(z_whatami_to_view_string((z_whatami_t)3, &w), Z_OK);
    CHECK_EQ_MEM(z_string_data(z_loan(w)), z_string_len(z_loan(w)), "Router|Peer", 11);
    CHECK_EQ_INT(z_whatami_to_view_string((z_whatami_t)0, &w), Z_EINVAL);
    CHECK_EQ_MEM(z_string_data(z_loan(w)), z_string_len(z_loan(w)), "Other", 5);
    CHECK_EQ_INT(z_whatami_to_view_string((z_whatami_t)8, &w), Z_EINVAL);

    CHECK_EQ_INT(_z_zint_len(0), 1);
    CHECK_EQ_INT(_z_zint_len(127), 1);
    CHECK_EQ_INT(_z_zint_len(128), 2);
    CHECK_EQ_INT(_z_zint_len(UINT64_MAX), 9);
    CHECK_EQ_INT(live(), before);
}

/* ---- results ----------------------------------------------------------------------------------------- */

static void test_results(void)
{
    CHECK_EQ_INT(Z_OK, 0);
    CHECK_EQ_INT(_Z_RES_OK, 0);
    CHECK_EQ_INT(Z_CHANNEL_DISCONNECTED, 1);
    CHECK_EQ_INT(Z_CHANNEL_NODATA, 2);
    CHECK_EQ_INT(Z_EINVAL, -75);
    CHECK_EQ_INT(_Z_ERR_INVALID, -75);
    CHECK_EQ_INT(Z_EDESERIALIZE, -72);
    CHECK_EQ_INT(Z_ETIMEDOUT, -71);
    CHECK_EQ_INT(_Z_ERR_TRANSPORT_TX_FAILED, -100);
    CHECK_EQ_INT(_Z_ERR_GENERIC, -128);
    CHECK_EQ_STR(zm_strerror(Z_EINVAL), "invalid argument");
    CHECK_EQ_STR(zm_strerror(ZM_E_NOMEM), "out of memory");
    CHECK_EQ_STR(zm_strerror(_Z_ERR_CONFIG_INVALID_MODE), "invalid mode in the configuration");
    CHECK_EQ_STR(ZENOH_PICO, "1.9.0");
    CHECK(ZENOH_PICO_MAJOR == 1 && ZENOH_PICO_MINOR == 9 && ZENOH_PICO_PATCH == 0);
    /* Each version string says what its parts say (project()'s is checked at configure time). */
#define VERSION_STR_(x) #x
#define VERSION_STR(x) VERSION_STR_(x)
    CHECK_EQ_STR(ZMOTE_VERSION, VERSION_STR(ZMOTE_VERSION_MAJOR) "." VERSION_STR(ZMOTE_VERSION_MINOR) "."
                                    VERSION_STR(ZMOTE_VERSION_PATCH));
    CHECK_EQ_STR(ZENOH_PICO, VERSION_STR(ZENOH_PICO_MAJOR) "." VERSION_STR(ZENOH_PICO_MINOR) "."
                                 VERSION_STR(ZENOH_PICO_PATCH));
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_results();
    test_object_model();
    test_closures();
    test_bytes();
    test_out_of_memory();
    test_keyexpr();
    test_encoding();
    test_config();
    test_sample_bridge();
    test_channels();
    test_platform();
    CHECK_EQ_INT(live(), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
