/*
 * The serialization API against zenoh-ext's format: golden bytes for every type (as Rust's
 * z_serialize writes them), round trips of extremes, truncated and malformed input (each refused
 * with Z_EDESERIALIZE, the cursor unmoved), NULL and moved-from objects, the generic macros, and,
 * with a counting allocator, that the serializer grows geometrically, finishes without a copy,
 * leaks nothing and stays usable when any allocation fails.
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "check.h"
#include "zenoh-pico.h"
#include "zenoh-pico/api/serialization.h"

/* ---- a counting allocator that can be told to fail ------------------------------------------------ */

static atomic_long allocs;
static atomic_long frees;
static atomic_long budget = -1; /* allocations left before every one fails; -1: never fail */

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
    if (ptr != NULL) {
        atomic_fetch_add(&frees, 1);
    }
    free(ptr);
}

static long live(void) { return atomic_load(&allocs) - atomic_load(&frees); }

/* ---- helpers ---------------------------------------------------------------------------------------- */

/* Decodes "f4 01 00" into out; returns the byte count. */
static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned v;
    int used;
    while (n < cap && sscanf(hex, " %2x%n", &v, &used) == 1) {
        out[n++] = (uint8_t)v;
        hex += used;
    }
    return n;
}

/* An owned copy of the bytes written in hex. */
static z_owned_bytes_t payload_of(const char *hex)
{
    uint8_t raw[256];
    z_owned_bytes_t b;
    if (z_bytes_copy_from_buf(&b, raw, unhex(hex, raw, sizeof(raw))) != Z_OK) {
        z_internal_bytes_null(&b);
    }
    return b;
}

/* Checks that b holds exactly the bytes written in hex, then drops it. */
#define CHECK_PAYLOAD(b, hex)                                                                       \
    do {                                                                                            \
        uint8_t want_[256];                                                                         \
        size_t want_len_ = unhex((hex), want_, sizeof(want_));                                      \
        CHECK_EQ_MEM(z_loan(b)->slice.start, z_bytes_len(z_loan(b)), want_, want_len_);             \
        z_drop(z_move(b));                                                                          \
    } while (0)

static size_t left(const ze_deserializer_t *d) { return z_bytes_reader_remaining(&d->reader); }

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static uint64_t f64_bits(double f)
{
    uint64_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

/* ---- golden bytes: one value per payload -------------------------------------------------------------- */

static void test_golden_scalars(void)
{
    z_owned_bytes_t b;
    CHECK_EQ_INT(ze_serialize_uint8(&b, 255), Z_OK);
    CHECK_PAYLOAD(b, "ff");
    CHECK_EQ_INT(ze_serialize_uint16(&b, 0x1234), Z_OK);
    CHECK_PAYLOAD(b, "34 12");
    CHECK_EQ_INT(ze_serialize_uint32(&b, 0xdeadbeefu), Z_OK);
    CHECK_PAYLOAD(b, "ef be ad de");
    CHECK_EQ_INT(ze_serialize_uint64(&b, 0x0102030405060708u), Z_OK);
    CHECK_PAYLOAD(b, "08 07 06 05 04 03 02 01");
    CHECK_EQ_INT(ze_serialize_uint64(&b, UINT64_MAX), Z_OK);
    CHECK_PAYLOAD(b, "ff ff ff ff ff ff ff ff");
    CHECK_EQ_INT(ze_serialize_int8(&b, -128), Z_OK);
    CHECK_PAYLOAD(b, "80");
    CHECK_EQ_INT(ze_serialize_int16(&b, -10000), Z_OK);
    CHECK_PAYLOAD(b, "f0 d8");
    CHECK_EQ_INT(ze_serialize_int32(&b, 1234566), Z_OK);
    CHECK_PAYLOAD(b, "86 d6 12 00");
    CHECK_EQ_INT(ze_serialize_int32(&b, -49245), Z_OK);
    CHECK_PAYLOAD(b, "a3 3f ff ff");
    CHECK_EQ_INT(ze_serialize_int64(&b, INT64_MIN), Z_OK);
    CHECK_PAYLOAD(b, "00 00 00 00 00 00 00 80");
    CHECK_EQ_INT(ze_serialize_int64(&b, -100), Z_OK);
    CHECK_PAYLOAD(b, "9c ff ff ff ff ff ff ff");
    CHECK_EQ_INT(ze_serialize_float(&b, 1234.0f), Z_OK);
    CHECK_PAYLOAD(b, "00 40 9a 44");
    CHECK_EQ_INT(ze_serialize_float(&b, -0.0f), Z_OK);
    CHECK_PAYLOAD(b, "00 00 00 80");
    CHECK_EQ_INT(ze_serialize_float(&b, INFINITY), Z_OK);
    CHECK_PAYLOAD(b, "00 00 80 7f");
    CHECK_EQ_INT(ze_serialize_double(&b, 0.15), Z_OK);
    CHECK_PAYLOAD(b, "33 33 33 33 33 33 c3 3f");
    CHECK_EQ_INT(ze_serialize_double(&b, 42.0), Z_OK);
    CHECK_PAYLOAD(b, "00 00 00 00 00 00 45 40");
    CHECK_EQ_INT(ze_serialize_bool(&b, true), Z_OK);
    CHECK_PAYLOAD(b, "01");
    CHECK_EQ_INT(ze_serialize_bool(&b, false), Z_OK);
    CHECK_PAYLOAD(b, "00");
}

static void test_golden_strings(void)
{
    z_owned_bytes_t b;
    CHECK_EQ_INT(ze_serialize_str(&b, "test"), Z_OK);
    CHECK_PAYLOAD(b, "04 74 65 73 74");
    CHECK_EQ_INT(ze_serialize_str(&b, ""), Z_OK);
    CHECK_PAYLOAD(b, "00");
    CHECK_EQ_INT(ze_serialize_str(&b, "\xc3\xa9\xe2\x82\xac"), Z_OK); /* "é€" */
    CHECK_PAYLOAD(b, "05 c3 a9 e2 82 ac");
    CHECK_EQ_INT(ze_serialize_substr(&b, "testing", 4), Z_OK);
    CHECK_PAYLOAD(b, "04 74 65 73 74");
    CHECK_EQ_INT(ze_serialize_substr(&b, NULL, 0), Z_OK);
    CHECK_PAYLOAD(b, "00");
    z_view_string_t vs;
    z_view_string_from_str(&vs, "test");
    CHECK_EQ_INT(ze_serialize_string(&b, z_loan(vs)), Z_OK);
    CHECK_PAYLOAD(b, "04 74 65 73 74");

    const uint8_t three[3] = {0, 1, 2};
    CHECK_EQ_INT(ze_serialize_buf(&b, three, 3), Z_OK);
    CHECK_PAYLOAD(b, "03 00 01 02");
    CHECK_EQ_INT(ze_serialize_buf(&b, NULL, 0), Z_OK);
    CHECK_PAYLOAD(b, "00");
    z_view_slice_t sl;
    z_view_slice_from_buf(&sl, three, 3);
    CHECK_EQ_INT(ze_serialize_slice(&b, z_loan(sl)), Z_OK);
    CHECK_PAYLOAD(b, "03 00 01 02");

    /* lengths are LEB128: 127 takes one byte, 128 two, 16384 three */
    static uint8_t big[16384];
    CHECK_EQ_INT(ze_serialize_buf(&b, big, 127), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 128);
    CHECK_EQ_INT(z_loan(b)->slice.start[0], 0x7f);
    z_drop(z_move(b));
    CHECK_EQ_INT(ze_serialize_buf(&b, big, 128), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 130);
    CHECK_EQ_MEM(z_loan(b)->slice.start, 2, "\x80\x01", 2);
    z_drop(z_move(b));
    CHECK_EQ_INT(ze_serialize_buf(&b, big, sizeof(big)), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), sizeof(big) + 3);
    CHECK_EQ_MEM(z_loan(b)->slice.start, 3, "\x80\x80\x01", 3);
    z_drop(z_move(b));
}

/* Every golden payload of the scalar test reads back to its value. */
static void test_golden_decode(void)
{
    z_owned_bytes_t b = payload_of("86 d6 12 00");
    int32_t i32 = 0;
    CHECK_EQ_INT(ze_deserialize_int32(z_loan(b), &i32), Z_OK);
    CHECK_EQ_INT(i32, 1234566);
    z_drop(z_move(b));
    b = payload_of("a3 3f ff ff");
    CHECK_EQ_INT(ze_deserialize_int32(z_loan(b), &i32), Z_OK);
    CHECK_EQ_INT(i32, -49245);
    z_drop(z_move(b));
    b = payload_of("f0 d8");
    int16_t i16 = 0;
    CHECK_EQ_INT(ze_deserialize_int16(z_loan(b), &i16), Z_OK);
    CHECK_EQ_INT(i16, -10000);
    z_drop(z_move(b));
    b = payload_of("80");
    int8_t i8 = 0;
    CHECK_EQ_INT(ze_deserialize_int8(z_loan(b), &i8), Z_OK);
    CHECK_EQ_INT(i8, -128);
    z_drop(z_move(b));
    b = payload_of("00 00 00 00 00 00 00 80");
    int64_t i64 = 0;
    CHECK_EQ_INT(ze_deserialize_int64(z_loan(b), &i64), Z_OK);
    CHECK(i64 == INT64_MIN);
    z_drop(z_move(b));
    b = payload_of("08 07 06 05 04 03 02 01");
    uint64_t u64 = 0;
    CHECK_EQ_INT(ze_deserialize_uint64(z_loan(b), &u64), Z_OK);
    CHECK(u64 == 0x0102030405060708u);
    z_drop(z_move(b));
    b = payload_of("ef be ad de");
    uint32_t u32 = 0;
    CHECK_EQ_INT(ze_deserialize_uint32(z_loan(b), &u32), Z_OK);
    CHECK_EQ_INT(u32, 0xdeadbeefu);
    z_drop(z_move(b));
    b = payload_of("34 12");
    uint16_t u16 = 0;
    CHECK_EQ_INT(ze_deserialize_uint16(z_loan(b), &u16), Z_OK);
    CHECK_EQ_INT(u16, 0x1234);
    z_drop(z_move(b));
    b = payload_of("ff");
    uint8_t u8 = 0;
    CHECK_EQ_INT(ze_deserialize_uint8(z_loan(b), &u8), Z_OK);
    CHECK_EQ_INT(u8, 255);
    z_drop(z_move(b));
    b = payload_of("00 40 9a 44");
    float f = 0;
    CHECK_EQ_INT(ze_deserialize_float(z_loan(b), &f), Z_OK);
    CHECK(f == 1234.0f);
    z_drop(z_move(b));
    b = payload_of("33 33 33 33 33 33 c3 3f");
    double d = 0;
    CHECK_EQ_INT(ze_deserialize_double(z_loan(b), &d), Z_OK);
    CHECK(d == 0.15);
    z_drop(z_move(b));
    b = payload_of("01");
    bool flag = false;
    CHECK_EQ_INT(ze_deserialize_bool(z_loan(b), &flag), Z_OK);
    CHECK(flag);
    z_drop(z_move(b));

    b = payload_of("05 c3 a9 e2 82 ac");
    z_owned_string_t s;
    CHECK_EQ_INT(ze_deserialize_string(z_loan(b), &s), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(s)), "\xc3\xa9\xe2\x82\xac"); /* NUL-terminated */
    z_drop(z_move(s));
    z_drop(z_move(b));
    b = payload_of("03 00 01 02");
    z_owned_slice_t sl;
    CHECK_EQ_INT(ze_deserialize_slice(z_loan(b), &sl), Z_OK);
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), "\0\1\2", 3);
    z_drop(z_move(sl));
    z_drop(z_move(b));
    b = payload_of("00");
    CHECK_EQ_INT(ze_deserialize_string(z_loan(b), &s), Z_OK);
    CHECK_EQ_INT(z_string_len(z_loan(s)), 0);
    z_drop(z_move(s));
    z_drop(z_move(b));
}

/* ---- golden bytes: composites through a serializer ------------------------------------------------------ */

static void test_golden_composites(void)
{
    ze_owned_serializer_t s;
    z_owned_bytes_t b;

    /* a tuple (u16, f32, str) is its fields in a row */
    CHECK_EQ_INT(ze_serializer_empty(&s), Z_OK);
    CHECK_EQ_INT(ze_serializer_serialize_uint16(z_loan_mut(s), 500), Z_OK);
    CHECK_EQ_INT(ze_serializer_serialize_float(z_loan_mut(s), 1234.0f), Z_OK);
    CHECK_EQ_INT(ze_serializer_serialize_str(z_loan_mut(s), "test"), Z_OK);
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "f4 01 00 40 9a 44 04 74 65 73 74");

    /* a sequence of i64 is a count, then the elements */
    const int64_t v[4] = {-100, 500, 100000, -20000000};
    ze_serializer_empty(&s);
    CHECK_EQ_INT(ze_serializer_serialize_sequence_length(z_loan_mut(s), 4), Z_OK);
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ_INT(ze_serializer_serialize_int64(z_loan_mut(s), v[i]), Z_OK);
    }
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "04 9c ff ff ff ff ff ff ff f4 01 00 00 00 00 00 00 a0 86 01 00 00 00 00 00 00 "
                     "d3 ce fe ff ff ff ff");

    /* a sequence of (str, i16) tuples */
    ze_serializer_empty(&s);
    ze_serializer_serialize_sequence_length(z_loan_mut(s), 2);
    ze_serializer_serialize_str(z_loan_mut(s), "s1");
    ze_serializer_serialize_int16(z_loan_mut(s), 10);
    ze_serializer_serialize_str(z_loan_mut(s), "s2");
    ze_serializer_serialize_int16(z_loan_mut(s), -10000);
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "02 02 73 31 0a 00 02 73 32 f0 d8");

    /* a map {"a": 1u8, "bc": 2u8}: the pair count, then keys and values in turn */
    ze_serializer_empty(&s);
    ze_serializer_serialize_sequence_length(z_loan_mut(s), 2);
    ze_serializer_serialize_str(z_loan_mut(s), "a");
    ze_serializer_serialize_uint8(z_loan_mut(s), 1);
    ze_serializer_serialize_str(z_loan_mut(s), "bc");
    ze_serializer_serialize_uint8(z_loan_mut(s), 2);
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "02 01 61 01 02 62 63 02");

    /* sequence lengths at the LEB128 boundaries, up to the largest size_t */
    ze_serializer_empty(&s);
    const size_t lens[] = {0, 127, 128, 16384, UINT32_MAX};
    for (size_t i = 0; i < ZM_ARRAY_LEN(lens); i++) {
        CHECK_EQ_INT(ze_serializer_serialize_sequence_length(z_loan_mut(s), lens[i]), Z_OK);
    }
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "00 7f 80 01 80 80 01 ff ff ff ff 0f");
#if SIZE_MAX == UINT64_MAX
    ze_serializer_empty(&s);
    ze_serializer_serialize_sequence_length(z_loan_mut(s), SIZE_MAX);
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "ff ff ff ff ff ff ff ff ff 01");
#endif
}

static void test_composites_decode(void)
{
    z_owned_bytes_t b = payload_of("02 02 73 31 0a 00 02 73 32 f0 d8");
    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
    size_t n = 0;
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(&d, &n), Z_OK);
    CHECK_EQ_INT(n, 2);
    const char *keys[2] = {"s1", "s2"};
    const int16_t vals[2] = {10, -10000};
    for (size_t i = 0; i < n && i < 2; i++) {
        z_owned_string_t k;
        int16_t v = 0;
        CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, &k), Z_OK);
        CHECK_EQ_STR(z_string_data(z_loan(k)), keys[i]);
        CHECK_EQ_INT(ze_deserializer_deserialize_int16(&d, &v), Z_OK);
        CHECK_EQ_INT(v, vals[i]);
        z_drop(z_move(k));
    }
    CHECK(ze_deserializer_is_done(&d));
    z_drop(z_move(b));

    b = payload_of("f4 01 00 40 9a 44 04 74 65 73 74");
    d = ze_deserializer_from_bytes(z_loan(b));
    uint16_t u16 = 0;
    float f = 0;
    z_owned_string_t str;
    CHECK_EQ_INT(ze_deserializer_deserialize_uint16(&d, &u16), Z_OK);
    CHECK_EQ_INT(ze_deserializer_deserialize_float(&d, &f), Z_OK);
    CHECK(!ze_deserializer_is_done(&d));
    CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, &str), Z_OK);
    CHECK(ze_deserializer_is_done(&d));
    CHECK_EQ_INT(u16, 500);
    CHECK(f == 1234.0f);
    CHECK_EQ_STR(z_string_data(z_loan(str)), "test");
    z_drop(z_move(str));
    z_drop(z_move(b));

    b = payload_of("00 7f 80 01 80 80 01 ff ff ff ff 0f");
    d = ze_deserializer_from_bytes(z_loan(b));
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(&d, &n), Z_OK);
    CHECK_EQ_INT(n, 0);
    /* 127 elements cannot follow in the 10 bytes left: the count is refused */
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(&d, &n), Z_EDESERIALIZE);
    CHECK_EQ_INT(left(&d), 11);
    z_drop(z_move(b));
}

/* ---- round trips --------------------------------------------------------------------------------------- */

static void test_round_trip_integers(void)
{
    const uint64_t u[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff,
                          0x80000000u, 0xffffffffu, 0x100000000u, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
    const int64_t i[] = {0,         1,         -1,        INT8_MIN,  INT8_MAX, INT16_MIN,
                         INT16_MAX, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
    ze_owned_serializer_t s;
    ze_serializer_empty(&s);
    for (size_t k = 0; k < ZM_ARRAY_LEN(u); k++) {
        CHECK_EQ_INT(ze_serializer_serialize_uint8(z_loan_mut(s), (uint8_t)u[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_uint16(z_loan_mut(s), (uint16_t)u[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_uint32(z_loan_mut(s), (uint32_t)u[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_uint64(z_loan_mut(s), u[k]), Z_OK);
    }
    for (size_t k = 0; k < ZM_ARRAY_LEN(i); k++) {
        CHECK_EQ_INT(ze_serializer_serialize_int8(z_loan_mut(s), (int8_t)i[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_int16(z_loan_mut(s), (int16_t)i[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_int32(z_loan_mut(s), (int32_t)i[k]), Z_OK);
        CHECK_EQ_INT(ze_serializer_serialize_int64(z_loan_mut(s), i[k]), Z_OK);
    }
    z_owned_bytes_t b;
    ze_serializer_finish(z_move(s), &b);
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 15 * ZM_ARRAY_LEN(u) + 15 * ZM_ARRAY_LEN(i));

    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
    for (size_t k = 0; k < ZM_ARRAY_LEN(u); k++) {
        uint8_t a = 0;
        uint16_t bb = 0;
        uint32_t c = 0;
        uint64_t e = 0;
        CHECK_EQ_INT(ze_deserializer_deserialize_uint8(&d, &a), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_uint16(&d, &bb), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_uint32(&d, &c), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_uint64(&d, &e), Z_OK);
        CHECK_CTX(a == (uint8_t)u[k] && bb == (uint16_t)u[k] && c == (uint32_t)u[k] && e == u[k], "u[%zu]", k);
    }
    for (size_t k = 0; k < ZM_ARRAY_LEN(i); k++) {
        int8_t a = 0;
        int16_t bb = 0;
        int32_t c = 0;
        int64_t e = 0;
        CHECK_EQ_INT(ze_deserializer_deserialize_int8(&d, &a), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_int16(&d, &bb), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_int32(&d, &c), Z_OK);
        CHECK_EQ_INT(ze_deserializer_deserialize_int64(&d, &e), Z_OK);
        CHECK_CTX(a == (int8_t)i[k] && bb == (int16_t)i[k] && c == (int32_t)i[k] && e == i[k], "i[%zu]", k);
    }
    CHECK(ze_deserializer_is_done(&d));
    z_drop(z_move(b));
}

static void test_round_trip_floats(void)
{
    const float fs[] = {0.0f, -0.0f, 1.5f, -3.25f, FLT_MIN, FLT_MAX, -FLT_MAX, 1e-45f, INFINITY, -INFINITY, NAN};
    const double ds[] = {0.0, -0.0, 0.15, -1e300, DBL_MIN, DBL_MAX, 5e-324, INFINITY, -INFINITY, NAN};
    for (size_t k = 0; k < ZM_ARRAY_LEN(fs); k++) {
        z_owned_bytes_t b;
        float out = 0;
        CHECK_EQ_INT(ze_serialize_float(&b, fs[k]), Z_OK);
        CHECK_EQ_INT(ze_deserialize_float(z_loan(b), &out), Z_OK);
        CHECK_CTX(f32_bits(out) == f32_bits(fs[k]), "float %zu", k); /* bit for bit, NaN and -0 too */
        z_drop(z_move(b));
    }
    for (size_t k = 0; k < ZM_ARRAY_LEN(ds); k++) {
        z_owned_bytes_t b;
        double out = 0;
        CHECK_EQ_INT(ze_serialize_double(&b, ds[k]), Z_OK);
        CHECK_EQ_INT(ze_deserialize_double(z_loan(b), &out), Z_OK);
        CHECK_CTX(f64_bits(out) == f64_bits(ds[k]), "double %zu", k);
        z_drop(z_move(b));
    }
}

static void test_round_trip_whole(void)
{
    z_owned_bytes_t b;
    bool flag = true;
    CHECK_EQ_INT(ze_serialize_bool(&b, false), Z_OK);
    CHECK_EQ_INT(ze_deserialize_bool(z_loan(b), &flag), Z_OK);
    CHECK(!flag);
    z_drop(z_move(b));
    int64_t i64 = 0;
    CHECK_EQ_INT(ze_serialize_int64(&b, INT64_MAX), Z_OK);
    CHECK_EQ_INT(ze_deserialize_int64(z_loan(b), &i64), Z_OK);
    CHECK(i64 == INT64_MAX);
    z_drop(z_move(b));

    /* strings and byte strings, empty and long */
    static char text[1000];
    for (size_t k = 0; k + 1 < sizeof(text); k++) {
        text[k] = (char)('a' + k % 26);
    }
    z_owned_string_t out;
    CHECK_EQ_INT(ze_serialize_str(&b, text), Z_OK);
    CHECK_EQ_INT(ze_deserialize_string(z_loan(b), &out), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(out)), text);
    z_drop(z_move(out));
    z_drop(z_move(b));
    z_owned_slice_t sl;
    CHECK_EQ_INT(ze_serialize_buf(&b, (const uint8_t *)text, 300), Z_OK);
    CHECK_EQ_INT(ze_deserialize_slice(z_loan(b), &sl), Z_OK);
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), text, 300);
    z_drop(z_move(sl));
    z_drop(z_move(b));
    CHECK_EQ_INT(ze_serialize_buf(&b, NULL, 0), Z_OK);
    CHECK_EQ_INT(ze_deserialize_slice(z_loan(b), &sl), Z_OK);
    CHECK_EQ_INT(z_slice_len(z_loan(sl)), 0);
    z_drop(z_move(sl));
    z_drop(z_move(b));
}

/* ---- truncated and malformed input -------------------------------------------------------------------- */

/* One record of every kind; each prefix of it must read up to the first item that does not fit. */
static const char RECORD[] = "ff  34 12  ef be ad de  08 07 06 05 04 03 02 01  00 40 9a 44  "
                             "33 33 33 33 33 33 c3 3f  01  03 68 c3 a9  03 01 02 03  00";
/* Where each item of RECORD ends. */
static const size_t RECORD_ENDS[] = {1, 3, 7, 15, 19, 27, 28, 32, 36, 37};

/* Reads item k of RECORD; the outputs are dropped. */
static z_result_t read_item(ze_deserializer_t *d, size_t k)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double dbl;
    bool flag;
    size_t n;
    z_owned_string_t s;
    z_owned_slice_t sl;
    z_result_t r;
    switch (k) {
    case 0: return ze_deserializer_deserialize_uint8(d, &u8);
    case 1: return ze_deserializer_deserialize_uint16(d, &u16);
    case 2: return ze_deserializer_deserialize_uint32(d, &u32);
    case 3: return ze_deserializer_deserialize_uint64(d, &u64);
    case 4: return ze_deserializer_deserialize_float(d, &f);
    case 5: return ze_deserializer_deserialize_double(d, &dbl);
    case 6: return ze_deserializer_deserialize_bool(d, &flag);
    case 7:
        r = ze_deserializer_deserialize_string(d, &s);
        z_drop(z_move(s)); /* null after a failure: dropping it is harmless */
        return r;
    case 8:
        r = ze_deserializer_deserialize_slice(d, &sl);
        z_drop(z_move(sl));
        return r;
    default: return ze_deserializer_deserialize_sequence_length(d, &n);
    }
}

static void test_truncated(void)
{
    uint8_t raw[64];
    size_t full = unhex(RECORD, raw, sizeof(raw));
    CHECK_EQ_INT(full, RECORD_ENDS[ZM_ARRAY_LEN(RECORD_ENDS) - 1]);
    for (size_t len = 0; len <= full; len++) {
        /* an exact-size copy, so that a read past its end is a sanitizer error */
        z_owned_bytes_t b;
        CHECK_EQ_INT(z_bytes_copy_from_buf(&b, raw, len), Z_OK);
        ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
        size_t k = 0;
        while (k < ZM_ARRAY_LEN(RECORD_ENDS) && RECORD_ENDS[k] <= len) {
            CHECK_CTX(read_item(&d, k) == Z_OK, "len %zu item %zu", len, k);
            k++;
        }
        if (k < ZM_ARRAY_LEN(RECORD_ENDS)) {
            size_t before = left(&d);
            CHECK_CTX(read_item(&d, k) == Z_EDESERIALIZE, "len %zu item %zu", len, k);
            CHECK_CTX(left(&d) == before, "len %zu: the cursor moved on a failed read", len);
        }
        z_drop(z_move(b));
    }
}

/* Reads a sequence length, a string and a slice from hex; the results are compared to want. */
static void expect_counts(const char *hex, z_result_t want_len, z_result_t want_str, z_result_t want_slice)
{
    z_owned_bytes_t b = payload_of(hex);
    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
    size_t n = 99;
    CHECK_CTX(ze_deserializer_deserialize_sequence_length(&d, &n) == want_len, "length of %s", hex);
    d = ze_deserializer_from_bytes(z_loan(b));
    z_owned_string_t s;
    CHECK_CTX(ze_deserializer_deserialize_string(&d, &s) == want_str, "string of %s", hex);
    CHECK(want_str == Z_OK || !z_internal_check(s));
    z_drop(z_move(s));
    d = ze_deserializer_from_bytes(z_loan(b));
    z_owned_slice_t sl;
    size_t before = left(&d);
    z_result_t r = ze_deserializer_deserialize_slice(&d, &sl);
    CHECK_CTX(r == want_slice, "slice of %s", hex);
    CHECK(r == Z_OK || (left(&d) == before && !z_internal_check(sl)));
    z_drop(z_move(sl));
    z_drop(z_move(b));
}

static void test_malformed(void)
{
    const z_result_t ok = Z_OK, bad = Z_EDESERIALIZE;
    expect_counts("", bad, bad, bad);
    expect_counts("80", bad, bad, bad);                                /* the varint is cut */
    expect_counts("80 00", ok, ok, ok);                                /* redundant zero group: 0 */
    expect_counts("80 80 80 80 80 80 80 80 80 00", ok, ok, ok);        /* ten bytes, value 0 */
    expect_counts("80 80 80 80 80 80 80 80 80 80 00", bad, bad, bad);  /* eleven bytes */
    expect_counts("80 80 80 80 80 80 80 80 80 02", bad, bad, bad);     /* a 65th bit */
    expect_counts("ff ff ff ff ff ff ff ff ff 01", bad, bad, bad);     /* 2^64-1: beyond the bytes */
    expect_counts("05 01 02", bad, bad, bad);                          /* length beyond the bytes */
    expect_counts("03 01 02", bad, bad, bad);
    expect_counts("02 61 62", ok, ok, ok);
    expect_counts("02 ff fe", ok, bad, ok);                            /* not UTF-8 */
    expect_counts("02 c0 80", ok, bad, ok);                            /* overlong NUL */
    expect_counts("03 ed a0 80", ok, bad, ok);                         /* a surrogate */
    expect_counts("04 f4 90 80 80", ok, bad, ok);                      /* above U+10FFFF */

    /* a bool is 0 or 1 */
    z_owned_bytes_t b = payload_of("02 01");
    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
    bool flag = false;
    CHECK_EQ_INT(ze_deserializer_deserialize_bool(&d, &flag), Z_EDESERIALIZE);
    CHECK_EQ_INT(left(&d), 2);
    uint8_t skip;
    CHECK_EQ_INT(ze_deserializer_deserialize_uint8(&d, &skip), Z_OK);
    CHECK_EQ_INT(ze_deserializer_deserialize_bool(&d, &flag), Z_OK);
    CHECK(flag && ze_deserializer_is_done(&d));
    CHECK_EQ_INT(ze_deserializer_deserialize_bool(&d, &flag), Z_EDESERIALIZE);
    z_drop(z_move(b));

    /* a whole payload must hold exactly one item: trailing or missing bytes are refused */
    b = payload_of("01 02");
    uint8_t u8 = 7;
    CHECK_EQ_INT(ze_deserialize_uint8(z_loan(b), &u8), Z_EDESERIALIZE);
    CHECK_EQ_INT(u8, 7); /* untouched */
    uint16_t u16 = 0;
    CHECK_EQ_INT(ze_deserialize_uint16(z_loan(b), &u16), Z_OK);
    uint32_t u32 = 0;
    CHECK_EQ_INT(ze_deserialize_uint32(z_loan(b), &u32), Z_EDESERIALIZE);
    CHECK_EQ_INT(ze_deserialize_bool(z_loan(b), &flag), Z_EDESERIALIZE);
    z_drop(z_move(b));
    b = payload_of("01 61 00");
    z_owned_string_t s;
    z_owned_slice_t sl;
    CHECK_EQ_INT(ze_deserialize_string(z_loan(b), &s), Z_EDESERIALIZE);
    CHECK(!z_internal_check(s));
    CHECK_EQ_INT(ze_deserialize_slice(z_loan(b), &sl), Z_EDESERIALIZE);
    CHECK(!z_internal_check(sl));
    z_drop(z_move(b));
    z_bytes_empty(&b);
    CHECK_EQ_INT(ze_deserialize_uint8(z_loan(b), &u8), Z_EDESERIALIZE);
    CHECK_EQ_INT(ze_deserialize_string(z_loan(b), &s), Z_EDESERIALIZE);
}

/* ---- NULL and moved-from objects ---------------------------------------------------------------------- */

static void test_null_and_moved(void)
{
    long before = live();
    CHECK_EQ_INT(ze_serializer_empty(NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_uint32(NULL, 1), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_str(NULL, "x"), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_sequence_length(NULL, 1), Z_EINVAL);

    ze_owned_serializer_t s;
    ze_serializer_empty(&s);
    CHECK(z_internal_check(s)); /* live, though empty */
    CHECK_EQ_INT(ze_serializer_serialize_str(z_loan_mut(s), NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_buf(z_loan_mut(s), NULL, 3), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_substr(z_loan_mut(s), NULL, 1), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_slice(z_loan_mut(s), NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_string(z_loan_mut(s), NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_serialize_int8(z_loan_mut(s), -2), Z_OK);
    z_owned_bytes_t b;
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "fe"); /* the refused writes left nothing */

    /* a finished serializer is moved-from: writes are refused, finishing again gives nothing */
    CHECK(!z_internal_check(s));
    CHECK_EQ_INT(ze_serializer_serialize_uint8(z_loan_mut(s), 1), Z_ENULL);
    CHECK_EQ_INT(ze_serializer_serialize_str(z_loan_mut(s), "x"), Z_ENULL);
    CHECK_EQ_INT(ze_serializer_serialize_sequence_length(z_loan_mut(s), 0), Z_ENULL);
    ze_serializer_finish(z_move(s), &b);
    CHECK(!z_internal_check(b));
    z_drop(z_move(s));
    z_drop(z_move(s)); /* dropping twice does nothing */
    ze_serializer_drop(NULL);

    /* a dropped one too, and a NULL destination drops what was written */
    ze_serializer_empty(&s);
    ze_serializer_serialize_str(z_loan_mut(s), "written");
    z_drop(z_move(s));
    CHECK_EQ_INT(ze_serializer_serialize_bool(z_loan_mut(s), true), Z_ENULL);
    ze_serializer_empty(&s);
    ze_serializer_serialize_str(z_loan_mut(s), "written");
    ze_serializer_finish(z_move(s), NULL);
    CHECK(!z_internal_check(s));
    ze_serializer_finish(NULL, &b);
    CHECK(!z_internal_check(b));

    /* deserializers: NULL arguments, and a NULL payload has nothing to read */
    uint32_t u32 = 0;
    size_t n = 0;
    CHECK_EQ_INT(ze_deserializer_deserialize_uint32(NULL, &u32), Z_EINVAL);
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(NULL, &n), Z_EINVAL);
    CHECK(ze_deserializer_is_done(NULL));
    ze_deserializer_t d = ze_deserializer_from_bytes(NULL);
    CHECK(ze_deserializer_is_done(&d));
    CHECK_EQ_INT(ze_deserializer_deserialize_uint32(&d, &u32), Z_EDESERIALIZE);
    CHECK_EQ_INT(ze_deserializer_deserialize_uint32(&d, NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_deserializer_deserialize_float(&d, NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_deserializer_deserialize_bool(&d, NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(&d, NULL), Z_EINVAL);
    z_owned_string_t str;
    CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, &str), Z_EDESERIALIZE);
    CHECK(!z_internal_check(str));
    CHECK_EQ_INT(ze_deserializer_deserialize_string(NULL, &str), Z_EINVAL);
    CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, NULL), Z_EINVAL);
    z_owned_slice_t sl;
    CHECK_EQ_INT(ze_deserializer_deserialize_slice(NULL, &sl), Z_EINVAL);
    CHECK(!z_internal_check(sl));

    /* whole-payload functions */
    CHECK_EQ_INT(ze_deserialize_uint32(NULL, &u32), Z_EINVAL);
    CHECK_EQ_INT(ze_deserialize_string(NULL, &str), Z_EINVAL);
    CHECK(!z_internal_check(str));
    CHECK_EQ_INT(ze_deserialize_slice(NULL, &sl), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_uint32(NULL, 1), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_str(NULL, "x"), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_str(&b, NULL), Z_EINVAL);
    CHECK(!z_internal_check(b));
    CHECK_EQ_INT(ze_serialize_buf(&b, NULL, 2), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_slice(&b, NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_string(&b, NULL), Z_EINVAL);
    CHECK_EQ_INT(ze_serialize_string(NULL, NULL), Z_EINVAL);
    CHECK(!z_internal_check(b));
    z_bytes_empty(&b);
    CHECK_EQ_INT(ze_deserialize_uint32(z_loan(b), NULL), Z_EINVAL);
    CHECK_EQ_INT(live(), before);
}

static void test_generic_macros(void)
{
    long before = live();
    ze_owned_serializer_t s, t;
    z_internal_null(&s);
    CHECK(!z_internal_check(s));
    ze_serializer_empty(&s);
    CHECK((void *)z_move(s) == (void *)&s);
    CHECK((const void *)z_loan(s) == (const void *)&s._val);
    CHECK_EQ_INT(ze_serializer_serialize_uint8(z_loan_mut(s), 1), Z_OK);
    z_take(&t, z_move(s));
    CHECK(!z_internal_check(s) && z_internal_check(t));
    CHECK_EQ_INT(ze_serializer_serialize_uint8(z_loan_mut(s), 2), Z_ENULL);
    CHECK_EQ_INT(ze_serializer_serialize_uint8(z_loan_mut(t), 2), Z_OK);
    CHECK_EQ_INT(z_take_from_loaned(&s, z_loan_mut(t)), Z_OK);
    CHECK(z_internal_check(s) && !z_internal_check(t));
    CHECK_EQ_INT(ze_serializer_take_from_loaned(NULL, z_loan_mut(t)), Z_EINVAL);
    CHECK_EQ_INT(ze_serializer_take_from_loaned(&t, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_take_from_loaned(&s, z_loan_mut(s)), Z_OK); /* onto itself: kept */
    CHECK(z_internal_check(s));
    z_owned_bytes_t b;
    ze_serializer_finish(z_move(s), &b);
    CHECK_PAYLOAD(b, "01 02");
    z_drop(z_move(t));
    ze_serializer_empty(&s);
    ze_serializer_serialize_str(z_loan_mut(s), "dropped unfinished");
    z_drop(z_move(s));
    CHECK_EQ_INT(live(), before);
}

/* ---- memory: growth, zero copy, failing allocations -------------------------------------------------- */

static void test_memory_use(void)
{
    long before = live();
    ze_owned_serializer_t s;
    long a0 = atomic_load(&allocs);
    ze_serializer_empty(&s);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    for (int i = 0; i < 1000; i++) {
        ze_serializer_serialize_uint8(z_loan_mut(s), (uint8_t)i);
    }
    /* doubling from 32: 32, 64, ..., 1024 */
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 6);
    CHECK_EQ_INT(live() - before, 1);
    const uint8_t *data = s._val.writer.data;
    z_owned_bytes_t b;
    a0 = atomic_load(&allocs);
    ze_serializer_finish(z_move(s), &b);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    CHECK(z_loan(b)->slice.start == data); /* handed over, not copied */
    CHECK_EQ_INT(z_bytes_len(z_loan(b)), 1000);
    CHECK_EQ_INT(z_loan(b)->slice.start[999], (uint8_t)999);
    z_drop(z_move(b));

    /* a whole value takes one block of its size */
    a0 = atomic_load(&allocs);
    ze_serialize_uint32(&b, 7);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 1);
    z_drop(z_move(b));

    /* a byte string shares a payload that has a holder, and copies a borrowed one */
    ze_serialize_str(&b, "shared");
    a0 = atomic_load(&allocs);
    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
    z_owned_slice_t sl;
    CHECK_EQ_INT(ze_deserializer_deserialize_slice(&d, &sl), Z_OK);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    CHECK(z_slice_data(z_loan(sl)) == z_loan(b)->slice.start + 1);
    z_drop(z_move(b));
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), "shared", 6); /* still alive */
    z_drop(z_move(sl));

    const uint8_t raw[4] = {3, 'a', 'b', 'c'};
    zm_api_bytes_t borrowed = {zm_api_slice_borrow(raw, sizeof(raw))};
    d = ze_deserializer_from_bytes(&borrowed);
    a0 = atomic_load(&allocs);
    CHECK_EQ_INT(ze_deserializer_deserialize_slice(&d, &sl), Z_OK);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 1);
    CHECK(z_slice_data(z_loan(sl)) != raw + 1);
    CHECK_EQ_MEM(z_slice_data(z_loan(sl)), z_slice_len(z_loan(sl)), "abc", 3);
    z_drop(z_move(sl));
    CHECK_EQ_INT(live(), before);
}

/* Step k of a record that makes the serializer grow several times; false past the last step. */
static bool record_step(ze_loaned_serializer_t *s, int k, z_result_t *r)
{
    static const uint8_t blob[100] = {1, 2, 3};
    if (k == 0) {
        *r = ze_serializer_serialize_sequence_length(s, 40);
    } else if (k <= 40) {
        *r = ze_serializer_serialize_int32(s, k * 1000 - 7);
    } else if (k == 41) {
        *r = ze_serializer_serialize_str(s, "hello");
    } else if (k == 42) {
        *r = ze_serializer_serialize_buf(s, blob, sizeof(blob));
    } else if (k == 43) {
        *r = ze_serializer_serialize_double(s, 2.5);
    } else {
        return false;
    }
    return true;
}

/*
 * With the allocator failing from the n-th allocation on, each write that cannot grow the buffer
 * fails with ZM_E_NOMEM and changes nothing: retried once memory is back, the record comes out
 * exactly as without failures, and nothing leaks.
 */
static void test_failing_allocations(void)
{
    long before = live();
    ze_owned_serializer_t s;
    z_owned_bytes_t want, got;
    z_result_t r;
    ze_serializer_empty(&s);
    for (int k = 0; record_step(z_loan_mut(s), k, &r); k++) {
        CHECK_EQ_INT(r, Z_OK);
    }
    ze_serializer_finish(z_move(s), &want);

    for (long n = 0; n < 8; n++) {
        int failures = 0;
        atomic_store(&budget, n);
        ze_serializer_empty(&s);
        for (int k = 0; record_step(z_loan_mut(s), k, &r); k++) {
            if (r != Z_OK) {
                CHECK_CTX(r == ZM_E_NOMEM, "n %ld step %d: %d", n, k, r);
                failures++;
                atomic_store(&budget, -1);
                CHECK(record_step(z_loan_mut(s), k, &r) && r == Z_OK);
            }
        }
        atomic_store(&budget, -1);
        ze_serializer_finish(z_move(s), &got);
        CHECK_CTX(failures == (n < 5 ? 1 : 0), "n %ld: %d failures", n, failures); /* 5 blocks: 32..512 */
        CHECK_EQ_MEM(z_loan(got)->slice.start, z_bytes_len(z_loan(got)), z_loan(want)->slice.start,
                     z_bytes_len(z_loan(want)));
        z_drop(z_move(got));
        CHECK_EQ_INT(live(), before + 1);
    }

    /* reads that copy: the deserializer stays put, the output null */
    ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(want));
    size_t count = 0;
    CHECK_EQ_INT(ze_deserializer_deserialize_sequence_length(&d, &count), Z_OK);
    CHECK_EQ_INT(count, 40);
    for (size_t j = 0; j < count; j++) {
        int32_t v = 0;
        CHECK(ze_deserializer_deserialize_int32(&d, &v) == Z_OK && v == (int32_t)(j + 1) * 1000 - 7);
    }
    size_t rest = left(&d);
    z_owned_string_t str;
    atomic_store(&budget, 0);
    CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, &str), ZM_E_NOMEM);
    CHECK(!z_internal_check(str));
    CHECK_EQ_INT(left(&d), rest);
    atomic_store(&budget, -1);
    CHECK_EQ_INT(ze_deserializer_deserialize_string(&d, &str), Z_OK);
    CHECK_EQ_STR(z_string_data(z_loan(str)), "hello");
    z_drop(z_move(str));
    z_drop(z_move(want));

    /* whole payloads */
    atomic_store(&budget, 0);
    CHECK_EQ_INT(ze_serialize_uint64(&got, 1), ZM_E_NOMEM);
    CHECK(!z_internal_check(got));
    CHECK_EQ_INT(ze_serialize_str(&got, "x"), ZM_E_NOMEM);
    CHECK(!z_internal_check(got));
    atomic_store(&budget, -1);
    const uint8_t raw[3] = {2, 'h', 'i'};
    zm_api_bytes_t borrowed = {zm_api_slice_borrow(raw, sizeof(raw))};
    z_owned_slice_t sl;
    atomic_store(&budget, 0);
    CHECK_EQ_INT(ze_deserialize_slice(&borrowed, &sl), ZM_E_NOMEM);
    CHECK(!z_internal_check(sl));
    CHECK_EQ_INT(ze_deserialize_string(&borrowed, &str), ZM_E_NOMEM);
    CHECK(!z_internal_check(str));
    atomic_store(&budget, -1);
    CHECK_EQ_INT(live(), before);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_golden_scalars();
    test_golden_strings();
    test_golden_decode();
    test_golden_composites();
    test_composites_decode();
    test_round_trip_integers();
    test_round_trip_floats();
    test_round_trip_whole();
    test_truncated();
    test_malformed();
    test_null_and_moved();
    test_generic_macros();
    test_memory_use();
    test_failing_allocations();
    CHECK_EQ_INT(live(), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
