/*
 * libFuzzer target for the deserializer (ze_deserializer_*, ze_deserialize_*), the part of the
 * serialization API that reads what a remote peer sent. The input's first byte says how many
 * reads to make (up to 31), the bytes after it which ones (each modulo the 14 kinds), and the rest
 * is the payload, held in an exact-size block so that a read past its end is an ASan report.
 * A failed read must leave the cursor where it was and its output null; every value read is
 * serialized again (lengths in their shortest form, so never longer than the bytes consumed), and
 * the reads that succeeded, made over the new bytes, must give them back unchanged. The new bytes
 * are followed by as many zeros as the payload had bytes, so that every sequence count found in
 * the payload still fits in what remains. The whole-payload read of the first kind must agree with
 * one read that ends the payload.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zenoh-pico.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)     \
    do {                  \
        if (!(cond)) {    \
            abort();      \
        }                 \
    } while (0)

#define KINDS 14
#define READS_MAX 31

enum { K_U8, K_U16, K_U32, K_U64, K_I8, K_I16, K_I32, K_I64, K_F32, K_F64, K_BOOL, K_STR, K_SLICE, K_SEQ };

/* Reads a string or a byte string; on success writes it to s, on failure checks the output is null. */
static z_result_t read_text(ze_deserializer_t *d, bool is_str, ze_loaned_serializer_t *s)
{
    z_result_t r;
    if (is_str) {
        z_owned_string_t v;
        r = ze_deserializer_deserialize_string(d, &v);
        REQUIRE(r == Z_OK || !z_internal_check(v));
        if (r == Z_OK) {
            REQUIRE(ze_serializer_serialize_string(s, z_loan(v)) == Z_OK);
            REQUIRE(z_string_len(z_loan(v)) == 0 || z_string_data(z_loan(v))[z_string_len(z_loan(v))] == '\0');
        }
        z_drop(z_move(v));
    } else {
        z_owned_slice_t v;
        r = ze_deserializer_deserialize_slice(d, &v);
        REQUIRE(r == Z_OK || !z_internal_check(v));
        if (r == Z_OK) {
            REQUIRE(ze_serializer_serialize_slice(s, z_loan(v)) == Z_OK);
        }
        z_drop(z_move(v));
    }
    return r;
}

/* One read of the given kind; what it read is written again to s. */
static z_result_t read_one(ze_deserializer_t *d, int kind, ze_loaned_serializer_t *s)
{
    union {
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        float f;
        double g;
        bool b;
        size_t n;
    } v;
    z_result_t r;
    switch (kind) {
    case K_U8:
        if ((r = ze_deserializer_deserialize_uint8(d, &v.u8)) == Z_OK) r = ze_serializer_serialize_uint8(s, v.u8);
        break;
    case K_I8:
        if ((r = ze_deserializer_deserialize_int8(d, &v.i8)) == Z_OK) r = ze_serializer_serialize_int8(s, v.i8);
        break;
    case K_U16:
        if ((r = ze_deserializer_deserialize_uint16(d, &v.u16)) == Z_OK) r = ze_serializer_serialize_uint16(s, v.u16);
        break;
    case K_I16:
        if ((r = ze_deserializer_deserialize_int16(d, &v.i16)) == Z_OK) r = ze_serializer_serialize_int16(s, v.i16);
        break;
    case K_U32:
        if ((r = ze_deserializer_deserialize_uint32(d, &v.u32)) == Z_OK) r = ze_serializer_serialize_uint32(s, v.u32);
        break;
    case K_I32:
        if ((r = ze_deserializer_deserialize_int32(d, &v.i32)) == Z_OK) r = ze_serializer_serialize_int32(s, v.i32);
        break;
    case K_U64:
        if ((r = ze_deserializer_deserialize_uint64(d, &v.u64)) == Z_OK) r = ze_serializer_serialize_uint64(s, v.u64);
        break;
    case K_I64:
        if ((r = ze_deserializer_deserialize_int64(d, &v.i64)) == Z_OK) r = ze_serializer_serialize_int64(s, v.i64);
        break;
    case K_F32:
        if ((r = ze_deserializer_deserialize_float(d, &v.f)) == Z_OK) r = ze_serializer_serialize_float(s, v.f);
        break;
    case K_F64:
        if ((r = ze_deserializer_deserialize_double(d, &v.g)) == Z_OK) r = ze_serializer_serialize_double(s, v.g);
        break;
    case K_BOOL:
        if ((r = ze_deserializer_deserialize_bool(d, &v.b)) == Z_OK) r = ze_serializer_serialize_bool(s, v.b);
        break;
    case K_STR: case K_SLICE:
        return read_text(d, kind == K_STR, s);
    default:
        if ((r = ze_deserializer_deserialize_sequence_length(d, &v.n)) == Z_OK) {
            REQUIRE(v.n <= z_bytes_reader_remaining(&d->reader));
            r = ze_serializer_serialize_sequence_length(s, v.n);
        }
        break;
    }
    return r;
}

/* The whole-payload read of kind, Z_OK or not; the value itself is checked by the reads above. */
static z_result_t read_whole(const z_loaned_bytes_t *b, int kind)
{
    union {
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        uint64_t u64;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        float f;
        double g;
        bool b;
    } v;
    z_owned_string_t str;
    z_owned_slice_t sl;
    z_result_t r;
    switch (kind) {
    case K_U8: return ze_deserialize_uint8(b, &v.u8);
    case K_I8: return ze_deserialize_int8(b, &v.i8);
    case K_U16: return ze_deserialize_uint16(b, &v.u16);
    case K_I16: return ze_deserialize_int16(b, &v.i16);
    case K_U32: return ze_deserialize_uint32(b, &v.u32);
    case K_I32: return ze_deserialize_int32(b, &v.i32);
    case K_U64: return ze_deserialize_uint64(b, &v.u64);
    case K_I64: return ze_deserialize_int64(b, &v.i64);
    case K_F32: return ze_deserialize_float(b, &v.f);
    case K_F64: return ze_deserialize_double(b, &v.g);
    case K_BOOL: return ze_deserialize_bool(b, &v.b);
    case K_STR:
        r = ze_deserialize_string(b, &str);
        REQUIRE(r == Z_OK || !z_internal_check(str));
        z_drop(z_move(str));
        return r;
    default:
        r = ze_deserialize_slice(b, &sl);
        REQUIRE(r == Z_OK || !z_internal_check(sl));
        z_drop(z_move(sl));
        return r;
    }
}

/*
 * Makes the reads of kinds over payload, writing what succeeded to *out; returns how many did
 * (their kinds in ok_kinds) and how many payload bytes they took (*used).
 */
static size_t read_all(const z_loaned_bytes_t *payload, const int *kinds, size_t n, z_owned_bytes_t *out,
                       int *ok_kinds, size_t *used)
{
    ze_owned_serializer_t s;
    REQUIRE(ze_serializer_empty(&s) == Z_OK);
    ze_deserializer_t d = ze_deserializer_from_bytes(payload);
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        size_t before = z_bytes_reader_remaining(&d.reader);
        z_result_t r = read_one(&d, kinds[i], z_loan_mut(s));
        if (r == Z_OK) {
            ok_kinds[ok++] = kinds[i];
        } else {
            REQUIRE(r == Z_EDESERIALIZE);
            REQUIRE(z_bytes_reader_remaining(&d.reader) == before);
        }
    }
    *used = z_bytes_len(payload) - z_bytes_reader_remaining(&d.reader);
    ze_serializer_finish(z_move(s), out);
    return ok;
}

static bool same_bytes(const z_loaned_bytes_t *a, const z_loaned_bytes_t *b)
{
    size_t n = z_bytes_len(a);
    return n == z_bytes_len(b) && (n == 0 || memcmp(a->slice.start, b->slice.start, n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    size_t n = data[0] % (READS_MAX + 1);
    if (n > size - 1) {
        n = size - 1;
    }
    int kinds[READS_MAX], ok_kinds[READS_MAX], ok_again[READS_MAX];
    for (size_t i = 0; i < n; i++) {
        kinds[i] = data[1 + i] % KINDS;
    }
    size_t len = size - 1 - n, used, used_again;
    z_owned_bytes_t payload, again, padded, again2;
    REQUIRE(z_bytes_copy_from_buf(&payload, data + 1 + n, len) == Z_OK);

    size_t ok = read_all(z_loan(payload), kinds, n, &again, ok_kinds, &used);
    size_t alen = z_bytes_len(z_loan(again));
    REQUIRE(alen <= used);
    uint8_t *buf = calloc(alen + len + 1, 1);
    REQUIRE(buf != NULL);
    if (alen > 0) {
        memcpy(buf, z_loan(again)->slice.start, alen);
    }
    REQUIRE(z_bytes_copy_from_buf(&padded, buf, alen + len) == Z_OK);
    free(buf);
    REQUIRE(read_all(z_loan(padded), ok_kinds, ok, &again2, ok_again, &used_again) == ok);
    REQUIRE(used_again == alen && same_bytes(z_loan(again), z_loan(again2)));

    if (n > 0 && kinds[0] != K_SEQ) {
        ze_owned_serializer_t s;
        ze_serializer_empty(&s);
        ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(payload));
        bool alone = read_one(&d, kinds[0], z_loan_mut(s)) == Z_OK && ze_deserializer_is_done(&d);
        z_drop(z_move(s));
        REQUIRE(read_whole(z_loan(payload), kinds[0]) == (alone ? Z_OK : Z_EDESERIALIZE));
    }
    z_drop(z_move(payload));
    z_drop(z_move(again));
    z_drop(z_move(padded));
    z_drop(z_move(again2));
    return 0;
}
