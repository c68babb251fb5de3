/*
 * zm_serial: the zmote end of the serialization interop tests (tests/interop/test_serialization.py).
 * It reads one command a line on stdin and answers one line on stdout, so that Python's zenoh.ext
 * and zmote check each other's bytes:
 *
 *   ser VALUE          -> "ok x<hex>"   VALUE serialized (a scalar, string or byte string alone
 *   sers VALUE                          with ze_serialize_*; sers always through a serializer)
 *   de x<hex> TYPE     -> "ok VALUE"    the payload deserialized as TYPE (a scalar, string or byte
 *   des x<hex> TYPE                     string alone with ze_deserialize_*; des always through a
 *                                       deserializer, which must then be done)
 *   either             -> "err <code>"  what the library returned; "err syntax" for a bad command
 *
 * VALUE: u8:N .. u64:N, i8:N .. i64:N (decimal), f32:H, f64:H (IEEE bits, hex), bool:0|1,
 * str:H, bytes:H (content in hex), seq N VALUE*N, tup N VALUE*N, map N (KEY VALUE)*N.
 * TYPE: u8 .. i64, f32, f64, bool, str, bytes, seq TYPE, tup N TYPE*N, map TYPE TYPE.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zenoh-pico.h"

#define TOKENS_MAX 4096
#define SCALAR_BYTES_MAX 65536

/* ---- tokens and text --------------------------------------------------------------------------------- */

typedef struct {
    char *tok[TOKENS_MAX];
    size_t n;
    size_t pos;
    bool bad; /* the command does not follow the grammar */
} tokens_t;

static void tokenize(tokens_t *t, char *line)
{
    t->n = 0;
    t->pos = 0;
    t->bad = false;
    for (char *p = strtok(line, " \t\r\n"); p != NULL; p = strtok(NULL, " \t\r\n")) {
        if (t->n == TOKENS_MAX) {
            t->bad = true;
            return;
        }
        t->tok[t->n++] = p;
    }
}

static const char *next(tokens_t *t)
{
    if (t->pos >= t->n) {
        t->bad = true;
        return "";
    }
    return t->tok[t->pos++];
}

static size_t next_count(tokens_t *t)
{
    char *end;
    unsigned long long n = strtoull(next(t), &end, 10);
    if (*end != '\0' || n > TOKENS_MAX) {
        t->bad = true;
        return 0;
    }
    return (size_t)n;
}

typedef struct {
    char *data;
    size_t len;
    size_t cap;
} text_t;

static void put_text(text_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    while (o->len + (size_t)n + 1 > o->cap) {
        o->cap = o->cap == 0 ? 256 : o->cap * 2;
        o->data = realloc(o->data, o->cap);
        if (o->data == NULL) {
            abort();
        }
    }
    va_start(ap, fmt);
    vsnprintf(o->data + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

static void put_hex(text_t *o, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_text(o, "%02x", p[i]);
    }
}

/* Decodes hex text into out (at most cap bytes); false when it is not hex. */
static bool unhex(const char *hex, uint8_t *out, size_t cap, size_t *len)
{
    size_t n = strlen(hex);
    if (n % 2 != 0 || n / 2 > cap) {
        return false;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            return false;
        }
        out[i] = (uint8_t)v;
    }
    *len = n / 2;
    return true;
}

/* ---- VALUE -> serializer ------------------------------------------------------------------------------ */

typedef struct {
    char kind[8];
    const char *text; /* after the colon */
} scalar_t;

static bool split_scalar(const char *tok, scalar_t *sc)
{
    const char *colon = strchr(tok, ':');
    if (colon == NULL || (size_t)(colon - tok) >= sizeof(sc->kind)) {
        return false;
    }
    memcpy(sc->kind, tok, (size_t)(colon - tok));
    sc->kind[colon - tok] = '\0';
    sc->text = colon + 1;
    return true;
}

static uint8_t scratch[SCALAR_BYTES_MAX];

static const char *const SCALARS[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64",
                                      "f32", "f64", "bool", "str", "bytes"};

static bool is_scalar(const char *kind)
{
    for (size_t i = 0; i < sizeof(SCALARS) / sizeof(SCALARS[0]); i++) {
        if (strcmp(kind, SCALARS[i]) == 0) {
            return true;
        }
    }
    return false;
}

/*
 * Parses the text of a scalar: integers into *u or *i, floats' bits into *u, strings and byte
 * strings into scratch[0..*n). False when it does not parse.
 */
static bool parse_scalar(const scalar_t *sc, uint64_t *u, int64_t *i, size_t *n)
{
    const char *k = sc->kind;
    char *end = NULL;
    if (!is_scalar(k)) {
        return false;
    }
    if (strcmp(k, "str") == 0 || strcmp(k, "bytes") == 0) {
        return unhex(sc->text, scratch, sizeof(scratch), n);
    }
    if (sc->text[0] == '\0') {
        return false;
    }
    if (k[0] == 'i') {
        *i = strtoll(sc->text, &end, 10);
    } else {
        *u = strtoull(sc->text, &end, k[0] == 'f' ? 16 : 10);
    }
    return *end == '\0';
}

static float f32_of(uint64_t bits)
{
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof(f));
    return f;
}

static double f64_of(uint64_t bits)
{
    double f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

/* Serializes one scalar, string or byte string into s. */
static z_result_t ser_scalar(ze_loaned_serializer_t *s, const scalar_t *sc, tokens_t *t)
{
    const char *k = sc->kind;
    uint64_t u = 0;
    int64_t i = 0;
    size_t n = 0;
    if (!parse_scalar(sc, &u, &i, &n)) {
        t->bad = true;
        return Z_OK;
    }
    if (strcmp(k, "str") == 0) return ze_serializer_serialize_substr(s, (const char *)scratch, n);
    if (strcmp(k, "bytes") == 0) return ze_serializer_serialize_buf(s, scratch, n);
    if (strcmp(k, "u8") == 0) return ze_serializer_serialize_uint8(s, (uint8_t)u);
    if (strcmp(k, "u16") == 0) return ze_serializer_serialize_uint16(s, (uint16_t)u);
    if (strcmp(k, "u32") == 0) return ze_serializer_serialize_uint32(s, (uint32_t)u);
    if (strcmp(k, "u64") == 0) return ze_serializer_serialize_uint64(s, u);
    if (strcmp(k, "i8") == 0) return ze_serializer_serialize_int8(s, (int8_t)i);
    if (strcmp(k, "i16") == 0) return ze_serializer_serialize_int16(s, (int16_t)i);
    if (strcmp(k, "i32") == 0) return ze_serializer_serialize_int32(s, (int32_t)i);
    if (strcmp(k, "i64") == 0) return ze_serializer_serialize_int64(s, i);
    if (strcmp(k, "bool") == 0) return ze_serializer_serialize_bool(s, u != 0);
    if (strcmp(k, "f32") == 0) return ze_serializer_serialize_float(s, f32_of(u));
    return ze_serializer_serialize_double(s, f64_of(u));
}

static z_result_t ser_value(ze_loaned_serializer_t *s, tokens_t *t)
{
    const char *tok = next(t);
    bool seq = strcmp(tok, "seq") == 0, tup = strcmp(tok, "tup") == 0, map = strcmp(tok, "map") == 0;
    if (seq || tup || map) {
        size_t n = next_count(t);
        z_result_t r = tup ? Z_OK : ze_serializer_serialize_sequence_length(s, n);
        for (size_t i = 0; i < (map ? 2 * n : n) && r == Z_OK && !t->bad; i++) {
            r = ser_value(s, t);
        }
        return r;
    }
    scalar_t sc;
    if (!split_scalar(tok, &sc)) {
        t->bad = true;
        return Z_OK;
    }
    return ser_scalar(s, &sc, t);
}

/* A lone scalar, string or byte string, with the ze_serialize_* of its type. */
static z_result_t ser_whole(z_owned_bytes_t *b, const scalar_t *sc, tokens_t *t)
{
    const char *k = sc->kind;
    uint64_t u = 0;
    int64_t i = 0;
    size_t n = 0;
    if (!parse_scalar(sc, &u, &i, &n)) {
        t->bad = true;
        z_internal_bytes_null(b);
        return Z_OK;
    }
    if (strcmp(k, "bytes") == 0) {
        z_view_slice_t v;
        z_view_slice_from_buf(&v, scratch, n);
        return ze_serialize_slice(b, z_loan(v));
    }
    if (strcmp(k, "str") == 0) {
        z_view_string_t v;
        z_view_string_from_substr(&v, (const char *)scratch, n);
        return ze_serialize_string(b, z_loan(v));
    }
    if (strcmp(k, "u8") == 0) return ze_serialize_uint8(b, (uint8_t)u);
    if (strcmp(k, "u16") == 0) return ze_serialize_uint16(b, (uint16_t)u);
    if (strcmp(k, "u32") == 0) return ze_serialize_uint32(b, (uint32_t)u);
    if (strcmp(k, "u64") == 0) return ze_serialize_uint64(b, u);
    if (strcmp(k, "i8") == 0) return ze_serialize_int8(b, (int8_t)i);
    if (strcmp(k, "i16") == 0) return ze_serialize_int16(b, (int16_t)i);
    if (strcmp(k, "i32") == 0) return ze_serialize_int32(b, (int32_t)i);
    if (strcmp(k, "i64") == 0) return ze_serialize_int64(b, i);
    if (strcmp(k, "bool") == 0) return ze_serialize_bool(b, u != 0);
    if (strcmp(k, "f32") == 0) return ze_serialize_float(b, f32_of(u));
    return ze_serialize_double(b, f64_of(u));
}

static void cmd_ser(tokens_t *t, bool streaming, text_t *o)
{
    z_owned_bytes_t b;
    z_result_t r;
    scalar_t sc;
    if (!streaming && t->pos < t->n && split_scalar(t->tok[t->pos], &sc)) {
        t->pos++;
        r = ser_whole(&b, &sc, t);
    } else {
        ze_owned_serializer_t s;
        ze_serializer_empty(&s);
        r = ser_value(z_loan_mut(s), t);
        ze_serializer_finish(z_move(s), &b);
    }
    if (t->bad || t->pos != t->n) {
        put_text(o, "err syntax");
    } else if (r != Z_OK) {
        put_text(o, "err %d", r);
    } else {
        put_text(o, "ok x");
        put_hex(o, z_loan(b)->slice.start, z_bytes_len(z_loan(b)));
    }
    z_drop(z_move(b));
}

/* ---- deserializer + TYPE -> VALUE --------------------------------------------------------------------- */

/* Moves past one TYPE. */
static void skip_type(tokens_t *t)
{
    const char *tok = next(t);
    if (strcmp(tok, "seq") == 0) {
        skip_type(t);
    } else if (strcmp(tok, "map") == 0) {
        skip_type(t);
        skip_type(t);
    } else if (strcmp(tok, "tup") == 0) {
        for (size_t n = next_count(t), i = 0; i < n && !t->bad; i++) {
            skip_type(t);
        }
    }
}

static z_result_t de_value(ze_deserializer_t *d, tokens_t *t, text_t *o);

/* Reads count elements, each made of the `per` types that start at the current token. */
static z_result_t de_elements(ze_deserializer_t *d, tokens_t *t, text_t *o, size_t count, size_t per)
{
    size_t types = t->pos;
    z_result_t r = Z_OK;
    for (size_t i = 0; i < count && r == Z_OK && !t->bad; i++) {
        t->pos = types;
        for (size_t k = 0; k < per && r == Z_OK; k++) {
            put_text(o, " ");
            r = de_value(d, t, o);
        }
    }
    t->pos = types;
    for (size_t k = 0; k < per; k++) {
        skip_type(t);
    }
    return r;
}

static z_result_t de_text(ze_deserializer_t *d, bool is_str, text_t *o)
{
    z_result_t r;
    const uint8_t *p;
    size_t n;
    if (is_str) {
        z_owned_string_t s;
        r = ze_deserializer_deserialize_string(d, &s);
        p = (const uint8_t *)z_string_data(z_loan(s));
        n = z_string_len(z_loan(s));
        put_text(o, "str:");
        put_hex(o, p, r == Z_OK ? n : 0);
        z_drop(z_move(s));
    } else {
        z_owned_slice_t s;
        r = ze_deserializer_deserialize_slice(d, &s);
        p = z_slice_data(z_loan(s));
        n = z_slice_len(z_loan(s));
        put_text(o, "bytes:");
        put_hex(o, p, r == Z_OK ? n : 0);
        z_drop(z_move(s));
    }
    return r;
}

typedef union {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    bool flag;
} number_t;

/* Writes a number read as kind k (not a string nor a byte string). */
static void put_number(text_t *o, const char *k, const number_t *v)
{
    uint32_t bits32;
    uint64_t bits64;
    if (strcmp(k, "u8") == 0) put_text(o, "u8:%u", v->u8);
    else if (strcmp(k, "u16") == 0) put_text(o, "u16:%u", v->u16);
    else if (strcmp(k, "u32") == 0) put_text(o, "u32:%" PRIu32, v->u32);
    else if (strcmp(k, "u64") == 0) put_text(o, "u64:%" PRIu64, v->u64);
    else if (strcmp(k, "i8") == 0) put_text(o, "i8:%d", v->i8);
    else if (strcmp(k, "i16") == 0) put_text(o, "i16:%d", v->i16);
    else if (strcmp(k, "i32") == 0) put_text(o, "i32:%" PRId32, v->i32);
    else if (strcmp(k, "i64") == 0) put_text(o, "i64:%" PRId64, v->i64);
    else if (strcmp(k, "bool") == 0) put_text(o, "bool:%d", v->flag ? 1 : 0);
    else if (strcmp(k, "f32") == 0) {
        memcpy(&bits32, &v->f32, sizeof(bits32));
        put_text(o, "f32:%08" PRIx32, bits32);
    } else {
        memcpy(&bits64, &v->f64, sizeof(bits64));
        put_text(o, "f64:%016" PRIx64, bits64);
    }
}

/* Reads a number of kind k with the deserializer. */
static z_result_t read_number(ze_deserializer_t *d, const char *k, number_t *v)
{
    if (strcmp(k, "u8") == 0) return ze_deserializer_deserialize_uint8(d, &v->u8);
    if (strcmp(k, "u16") == 0) return ze_deserializer_deserialize_uint16(d, &v->u16);
    if (strcmp(k, "u32") == 0) return ze_deserializer_deserialize_uint32(d, &v->u32);
    if (strcmp(k, "u64") == 0) return ze_deserializer_deserialize_uint64(d, &v->u64);
    if (strcmp(k, "i8") == 0) return ze_deserializer_deserialize_int8(d, &v->i8);
    if (strcmp(k, "i16") == 0) return ze_deserializer_deserialize_int16(d, &v->i16);
    if (strcmp(k, "i32") == 0) return ze_deserializer_deserialize_int32(d, &v->i32);
    if (strcmp(k, "i64") == 0) return ze_deserializer_deserialize_int64(d, &v->i64);
    if (strcmp(k, "bool") == 0) return ze_deserializer_deserialize_bool(d, &v->flag);
    if (strcmp(k, "f32") == 0) return ze_deserializer_deserialize_float(d, &v->f32);
    return ze_deserializer_deserialize_double(d, &v->f64);
}

/* Reads a number of kind k that must span the whole payload (ze_deserialize_*). */
static z_result_t read_whole_number(const z_loaned_bytes_t *b, const char *k, number_t *v)
{
    if (strcmp(k, "u8") == 0) return ze_deserialize_uint8(b, &v->u8);
    if (strcmp(k, "u16") == 0) return ze_deserialize_uint16(b, &v->u16);
    if (strcmp(k, "u32") == 0) return ze_deserialize_uint32(b, &v->u32);
    if (strcmp(k, "u64") == 0) return ze_deserialize_uint64(b, &v->u64);
    if (strcmp(k, "i8") == 0) return ze_deserialize_int8(b, &v->i8);
    if (strcmp(k, "i16") == 0) return ze_deserialize_int16(b, &v->i16);
    if (strcmp(k, "i32") == 0) return ze_deserialize_int32(b, &v->i32);
    if (strcmp(k, "i64") == 0) return ze_deserialize_int64(b, &v->i64);
    if (strcmp(k, "bool") == 0) return ze_deserialize_bool(b, &v->flag);
    if (strcmp(k, "f32") == 0) return ze_deserialize_float(b, &v->f32);
    return ze_deserialize_double(b, &v->f64);
}

static z_result_t de_scalar(ze_deserializer_t *d, const char *k, tokens_t *t, text_t *o)
{
    if (!is_scalar(k)) {
        t->bad = true;
        return Z_OK;
    }
    number_t v;
    z_result_t r = read_number(d, k, &v);
    if (r == Z_OK) {
        put_number(o, k, &v);
    }
    return r;
}

static z_result_t de_value(ze_deserializer_t *d, tokens_t *t, text_t *o)
{
    const char *k = next(t);
    if (strcmp(k, "str") == 0 || strcmp(k, "bytes") == 0) {
        return de_text(d, k[0] == 's', o);
    }
    if (strcmp(k, "tup") == 0) {
        size_t n = next_count(t);
        put_text(o, "tup %zu", n);
        z_result_t r = Z_OK;
        for (size_t i = 0; i < n && r == Z_OK && !t->bad; i++) {
            put_text(o, " ");
            r = de_value(d, t, o);
        }
        return r;
    }
    if (strcmp(k, "seq") == 0 || strcmp(k, "map") == 0) {
        size_t n = 0;
        z_result_t r = ze_deserializer_deserialize_sequence_length(d, &n);
        if (r != Z_OK) {
            return r;
        }
        put_text(o, "%s %zu", k, n);
        return de_elements(d, t, o, n, k[0] == 'm' ? 2 : 1);
    }
    return de_scalar(d, k, t, o);
}

/* A lone scalar, string or byte string, with the ze_deserialize_* of its type. */
static z_result_t de_whole(const z_loaned_bytes_t *b, const char *k, text_t *o)
{
    z_result_t r;
    if (strcmp(k, "str") == 0) {
        z_owned_string_t s;
        if ((r = ze_deserialize_string(b, &s)) == Z_OK) {
            put_text(o, "str:");
            put_hex(o, (const uint8_t *)z_string_data(z_loan(s)), z_string_len(z_loan(s)));
        }
        z_drop(z_move(s));
    } else if (strcmp(k, "bytes") == 0) {
        z_owned_slice_t s;
        if ((r = ze_deserialize_slice(b, &s)) == Z_OK) {
            put_text(o, "bytes:");
            put_hex(o, z_slice_data(z_loan(s)), z_slice_len(z_loan(s)));
        }
        z_drop(z_move(s));
    } else {
        number_t v;
        if ((r = read_whole_number(b, k, &v)) == Z_OK) {
            put_number(o, k, &v);
        }
    }
    return r;
}

static void cmd_de(tokens_t *t, bool streaming, text_t *o)
{
    const char *hex = next(t);
    size_t n = 0;
    static uint8_t raw[SCALAR_BYTES_MAX];
    if (hex[0] != 'x' || !unhex(hex + 1, raw, sizeof(raw), &n)) {
        put_text(o, "err syntax");
        return;
    }
    /* the type is checked whole first: a failed read stops before its last tokens */
    size_t type_start = t->pos;
    skip_type(t);
    if (t->bad || t->pos != t->n) {
        put_text(o, "err syntax");
        return;
    }
    t->pos = type_start;
    z_owned_bytes_t b;
    z_bytes_copy_from_buf(&b, raw, n); /* an exact-size copy: a read past its end is a sanitizer error */
    text_t value = {NULL, 0, 0};
    z_result_t r;
    bool lone = t->pos + 1 == t->n;
    if (!streaming && lone && is_scalar(t->tok[t->pos])) {
        r = de_whole(z_loan(b), next(t), &value);
    } else {
        ze_deserializer_t d = ze_deserializer_from_bytes(z_loan(b));
        r = de_value(&d, t, &value);
        if (r == Z_OK && !ze_deserializer_is_done(&d)) {
            r = Z_EDESERIALIZE;
        }
    }
    if (t->bad) {
        put_text(o, "err syntax");
    } else if (r != Z_OK) {
        put_text(o, "err %d", r);
    } else {
        put_text(o, "ok %s", value.len > 0 ? value.data : "");
    }
    free(value.data);
    z_drop(z_move(b));
}

int main(void)
{
    static tokens_t t;
    char *line = NULL;
    size_t cap = 0;
    text_t o = {NULL, 0, 0};
    while (getline(&line, &cap, stdin) >= 0) {
        tokenize(&t, line);
        if (t.n == 0) {
            continue;
        }
        const char *cmd = next(&t);
        o.len = 0;
        if (strcmp(cmd, "ser") == 0 || strcmp(cmd, "sers") == 0) {
            cmd_ser(&t, cmd[3] == 's', &o);
        } else if (strcmp(cmd, "de") == 0 || strcmp(cmd, "des") == 0) {
            cmd_de(&t, cmd[2] == 's', &o);
        } else {
            put_text(&o, "err syntax");
        }
        printf("%s\n", o.data);
        fflush(stdout);
    }
    free(line);
    free(o.data);
    return 0;
}
