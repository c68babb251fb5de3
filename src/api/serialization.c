/*
 * The serialization API (zmote/api/serialization.h): zenoh-ext's format over zmote's payloads.
 * A serializer makes room for a whole item before it writes any of it, so a failed allocation
 * leaves what was written intact; its buffer is a holder block (zm_api_block_alloc), which
 * ze_serializer_finish hands to the payload as it is. A read checks what remains first and only
 * then moves the cursor, so a failed read leaves the deserializer where it was.
 */
#include <string.h>

#include "api/api.h"
#include "util/utf8.h"

/* The first buffer a serializer takes; it doubles from there. */
#define FIRST_CAP 32u
/* The longest LEB128 form of a 64-bit value: nine groups of 7 bits, then one bit. */
#define VARINT_MAX 10u

_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "floats are IEEE 754 binary32 and binary64");

/* ---- the wire forms -------------------------------------------------------------------------------
 *
 *   u8, i8, bool        |b0|                      bool: 0 or 1
 *   u16, i16            |b0|b1|                   little-endian, two's complement
 *   u32, i32, float     |b0|b1|b2|b3|             float: IEEE 754 binary32 bits
 *   u64, i64, double    |b0|...|b7|               double: IEEE 754 binary64 bits
 *   string, byte string |len: LEB128|len bytes|   string: UTF-8
 *   sequence            |count: LEB128|element|...|element|
 *   map                 |count: LEB128|key|value|...|key|value|
 *   tuple               |field|...|field|
 */

/* Writes v as unsigned LEB128 (7 bits a byte, low groups first, high bit set on all but the last). */
static size_t varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/*
 * Reads an unsigned LEB128 value from p[0..left) as Rust's leb128 reader does: redundant zero
 * groups are accepted, and a tenth byte may only be 0 or 1 (the value has 64 bits).
 */
static z_result_t varint_get(const uint8_t *p, size_t left, uint64_t *v, size_t *used)
{
    uint64_t x = 0;
    for (size_t i = 0; i < VARINT_MAX && i < left; i++) {
        if (i == VARINT_MAX - 1 && p[i] > 1) {
            return Z_EDESERIALIZE;
        }
        x |= (uint64_t)(p[i] & 0x7Fu) << (7 * i);
        if ((p[i] & 0x80) == 0) {
            *v = x;
            *used = i + 1;
            return Z_OK;
        }
    }
    return Z_EDESERIALIZE; /* the bytes ended inside the varint */
}

static void le_put(uint8_t *out, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t le_get(const uint8_t *in, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v |= (uint64_t)in[i] << (8 * i);
    }
    return v;
}

/* ---- serializer: per-type functions --------------------------------------------------------------- */

void ze_internal_serializer_null(ze_owned_serializer_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool ze_internal_serializer_check(const ze_owned_serializer_t *obj) { return obj != NULL && obj->_val.live; }

void ze_serializer_take(ze_owned_serializer_t *obj, ze_moved_serializer_t *src)
{
    if (obj == NULL) {
        return;
    }
    if (src == NULL) {
        ze_internal_serializer_null(obj);
        return;
    }
    *obj = src->_this;
    ze_internal_serializer_null(&src->_this);
}

void ze_serializer_drop(ze_moved_serializer_t *obj)
{
    if (obj != NULL) {
        zm_owner_unref(obj->_this._val.writer.owner);
        ze_internal_serializer_null(&obj->_this);
    }
}

z_result_t ze_serializer_take_from_loaned(ze_owned_serializer_t *dst, ze_loaned_serializer_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    if (src == &dst->_val) {
        return Z_OK; /* already there; nulling dst first would lose it */
    }
    ze_internal_serializer_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    dst->_val = *src;
    memset(src, 0, sizeof(*src));
    return Z_OK;
}

/* ---- serializer -------------------------------------------------------------------------------- */

z_result_t ze_serializer_empty(ze_owned_serializer_t *serializer)
{
    if (serializer == NULL) {
        return Z_EINVAL;
    }
    ze_internal_serializer_null(serializer);
    serializer->_val.live = true;
    return Z_OK;
}

void ze_serializer_finish(ze_moved_serializer_t *serializer, z_owned_bytes_t *bytes)
{
    if (bytes == NULL) {
        ze_serializer_drop(serializer);
        return;
    }
    z_internal_bytes_null(bytes);
    if (serializer == NULL) {
        return;
    }
    zm_api_bytes_writer_t *w = &serializer->_this._val.writer;
    if (serializer->_this._val.live && w->len > 0) {
        bytes->_val.slice.start = w->data;
        bytes->_val.slice.len = w->len;
        bytes->_val.slice.owner = w->owner; /* the serializer's reference passes to the payload */
    } else {
        zm_owner_unref(w->owner);
    }
    ze_internal_serializer_null(&serializer->_this);
}

/* Makes room for need more bytes, moving what was written into a buffer twice as large (or more). */
static z_result_t reserve(zm_api_bytes_writer_t *w, size_t need)
{
    if (w->owner != NULL && need <= w->cap - w->len) {
        return Z_OK;
    }
    if (need > SIZE_MAX / 2 - w->len) {
        return ZM_E_NOMEM;
    }
    size_t cap = w->cap < FIRST_CAP ? FIRST_CAP : w->cap * 2;
    while (cap < w->len + need) {
        cap *= 2;
    }
    zm_owner_t *o;
    uint8_t *data = zm_api_block_alloc(cap, &o);
    if (data == NULL) {
        return ZM_E_NOMEM;
    }
    if (w->len > 0) {
        memcpy(data, w->data, w->len);
    }
    zm_owner_unref(w->owner);
    w->owner = o;
    w->data = data;
    w->cap = cap;
    return Z_OK;
}

/* Appends head[0..hlen) then body[0..blen), both or neither. */
static z_result_t put(zm_api_serializer_t *s, const uint8_t *head, size_t hlen, const void *body, size_t blen)
{
    if (s == NULL || (body == NULL && blen > 0)) {
        return Z_EINVAL;
    }
    if (!s->live) {
        return Z_ENULL;
    }
    if (blen > SIZE_MAX - hlen) {
        return ZM_E_NOMEM;
    }
    ZM_TRY(reserve(&s->writer, hlen + blen));
    memcpy(s->writer.data + s->writer.len, head, hlen);
    if (blen > 0) {
        memcpy(s->writer.data + s->writer.len + hlen, body, blen);
    }
    s->writer.len += hlen + blen;
    return Z_OK;
}

static z_result_t put_le(zm_api_serializer_t *s, uint64_t v, size_t n)
{
    uint8_t b[8];
    le_put(b, v, n);
    return put(s, b, n, NULL, 0);
}

static z_result_t put_counted(zm_api_serializer_t *s, const void *data, size_t len)
{
    uint8_t head[VARINT_MAX];
    return put(s, head, varint_put(head, len), data, len);
}

/* X(suffix, type, width) for every fixed-width integer. */
#define INTEGERS(X)              \
    X(uint8, uint8_t, 1)         \
    X(uint16, uint16_t, 2)       \
    X(uint32, uint32_t, 4)       \
    X(uint64, uint64_t, 8)       \
    X(int8, int8_t, 1)           \
    X(int16, int16_t, 2)         \
    X(int32, int32_t, 4)         \
    X(int64, int64_t, 8)

/* Only the low width bytes are written, so a signed value's sign extension does not matter. */
#define SERIALIZE_INTEGER(suffix, type, width)                                                \
    z_result_t ze_serializer_serialize_##suffix(ze_loaned_serializer_t *serializer, type val) \
    {                                                                                         \
        return put_le(serializer, (uint64_t)val, width);                                      \
    }
INTEGERS(SERIALIZE_INTEGER)

z_result_t ze_serializer_serialize_float(ze_loaned_serializer_t *serializer, float val)
{
    uint32_t bits;
    memcpy(&bits, &val, sizeof(bits));
    return put_le(serializer, bits, 4);
}

z_result_t ze_serializer_serialize_double(ze_loaned_serializer_t *serializer, double val)
{
    uint64_t bits;
    memcpy(&bits, &val, sizeof(bits));
    return put_le(serializer, bits, 8);
}

z_result_t ze_serializer_serialize_bool(ze_loaned_serializer_t *serializer, bool val)
{
    return put_le(serializer, val ? 1u : 0u, 1);
}

z_result_t ze_serializer_serialize_buf(ze_loaned_serializer_t *serializer, const uint8_t *val, size_t len)
{
    return put_counted(serializer, val, len);
}

z_result_t ze_serializer_serialize_slice(ze_loaned_serializer_t *serializer, const z_loaned_slice_t *val)
{
    if (val == NULL) {
        return Z_EINVAL;
    }
    return put_counted(serializer, val->start, val->len);
}

z_result_t ze_serializer_serialize_str(ze_loaned_serializer_t *serializer, const char *val)
{
    if (val == NULL) {
        return Z_EINVAL;
    }
    return put_counted(serializer, val, strlen(val));
}

z_result_t ze_serializer_serialize_substr(ze_loaned_serializer_t *serializer, const char *start, size_t len)
{
    return put_counted(serializer, start, len);
}

z_result_t ze_serializer_serialize_string(ze_loaned_serializer_t *serializer, const z_loaned_string_t *val)
{
    if (val == NULL) {
        return Z_EINVAL;
    }
    return put_counted(serializer, val->slice.start, val->slice.len);
}

z_result_t ze_serializer_serialize_sequence_length(ze_loaned_serializer_t *serializer, size_t len)
{
    uint8_t head[VARINT_MAX];
    return put(serializer, head, varint_put(head, len), NULL, 0);
}

/* ---- deserializer ---------------------------------------------------------------------------------- */

ze_deserializer_t ze_deserializer_from_bytes(const z_loaned_bytes_t *bytes)
{
    ze_deserializer_t d;
    d.reader = z_bytes_get_reader(bytes);
    return d;
}

bool ze_deserializer_is_done(const ze_deserializer_t *deserializer)
{
    return deserializer == NULL || z_bytes_reader_remaining(&deserializer->reader) == 0;
}

/* The bytes from the cursor on, to the end of the run they are in (a payload made of several
 * runs by z_bytes_writer_append has a value in one run, or it does not deserialize): *left of
 * them (NULL and 0 when none). */
static const uint8_t *cursor(const ze_deserializer_t *d, size_t *left)
{
    if (d->reader.bytes == NULL) {
        *left = 0;
        return NULL;
    }
    return zm_api_bytes_at(d->reader.bytes, d->reader.pos, left);
}

static z_result_t get_le(ze_deserializer_t *d, size_t n, uint64_t *v)
{
    if (d == NULL) {
        return Z_EINVAL;
    }
    size_t left;
    const uint8_t *p = cursor(d, &left);
    if (left < n) {
        return Z_EDESERIALIZE;
    }
    *v = le_get(p, n);
    d->reader.pos += n;
    return Z_OK;
}

/*
 * Looks at the length-prefixed byte string at the cursor without moving: its bytes (*body, *len)
 * and how far it reaches (*span, prefix included). The length must fit in what remains.
 */
static z_result_t peek_counted(const ze_deserializer_t *d, const uint8_t **body, size_t *len, size_t *span)
{
    size_t left, used;
    uint64_t n;
    const uint8_t *p = cursor(d, &left);
    ZM_TRY(varint_get(p, left, &n, &used));
    if (n > left - used) {
        return Z_EDESERIALIZE;
    }
    *body = p + used;
    *len = (size_t)n;
    *span = used + (size_t)n;
    return Z_OK;
}

/*
 * Signed types are two's complement (exact-width types are); converting the unsigned value to
 * them wraps modulo 2^N on every compiler zmote supports (GCC and Clang define it so).
 */
#define DESERIALIZE_INTEGER(suffix, type, width)                                                  \
    z_result_t ze_deserializer_deserialize_##suffix(ze_deserializer_t *deserializer, type *val)  \
    {                                                                                             \
        uint64_t v;                                                                               \
        if (val == NULL) {                                                                        \
            return Z_EINVAL;                                                                      \
        }                                                                                         \
        ZM_TRY(get_le(deserializer, width, &v));                                                  \
        *val = (type)v;                                                                           \
        return Z_OK;                                                                              \
    }
INTEGERS(DESERIALIZE_INTEGER)

z_result_t ze_deserializer_deserialize_float(ze_deserializer_t *deserializer, float *val)
{
    uint64_t v;
    if (val == NULL) {
        return Z_EINVAL;
    }
    ZM_TRY(get_le(deserializer, 4, &v));
    uint32_t bits = (uint32_t)v;
    memcpy(val, &bits, sizeof(bits));
    return Z_OK;
}

z_result_t ze_deserializer_deserialize_double(ze_deserializer_t *deserializer, double *val)
{
    uint64_t v;
    if (val == NULL) {
        return Z_EINVAL;
    }
    ZM_TRY(get_le(deserializer, 8, &v));
    memcpy(val, &v, sizeof(v));
    return Z_OK;
}

z_result_t ze_deserializer_deserialize_bool(ze_deserializer_t *deserializer, bool *val)
{
    if (deserializer == NULL || val == NULL) {
        return Z_EINVAL;
    }
    size_t left;
    const uint8_t *p = cursor(deserializer, &left);
    if (left == 0 || p[0] > 1) {
        return Z_EDESERIALIZE;
    }
    *val = p[0] == 1;
    deserializer->reader.pos++;
    return Z_OK;
}

z_result_t ze_deserializer_deserialize_slice(ze_deserializer_t *deserializer, z_owned_slice_t *val)
{
    if (val == NULL) {
        return Z_EINVAL;
    }
    z_internal_slice_null(val);
    if (deserializer == NULL) {
        return Z_EINVAL;
    }
    const uint8_t *body;
    size_t len, span;
    ZM_TRY(peek_counted(deserializer, &body, &len, &span));
    zm_owner_t *holder = deserializer->reader.bytes->slice.owner;
    if (len > 0 && holder != NULL) {
        zm_owner_ref(holder);
        val->_val.start = body;
        val->_val.len = len;
        val->_val.owner = holder;
    } else if (len > 0) {
        ZM_TRY(zm_api_slice_copy(&val->_val, body, len, false));
    }
    deserializer->reader.pos += span;
    return Z_OK;
}

z_result_t ze_deserializer_deserialize_string(ze_deserializer_t *deserializer, z_owned_string_t *val)
{
    if (val == NULL) {
        return Z_EINVAL;
    }
    z_internal_string_null(val);
    if (deserializer == NULL) {
        return Z_EINVAL;
    }
    const uint8_t *body;
    size_t len, span;
    ZM_TRY(peek_counted(deserializer, &body, &len, &span));
    if (!zm_utf8_valid(zm_slice(body, len))) {
        return Z_EDESERIALIZE;
    }
    if (len > 0) {
        ZM_TRY(zm_api_slice_copy(&val->_val.slice, body, len, true));
    }
    deserializer->reader.pos += span;
    return Z_OK;
}

z_result_t ze_deserializer_deserialize_sequence_length(ze_deserializer_t *deserializer, size_t *len)
{
    if (deserializer == NULL || len == NULL) {
        return Z_EINVAL;
    }
    size_t left, used;
    uint64_t n;
    const uint8_t *p = cursor(deserializer, &left);
    ZM_TRY(varint_get(p, left, &n, &used));
    if (n > left - used) {
        return Z_EDESERIALIZE;
    }
    *len = (size_t)n;
    deserializer->reader.pos += used;
    return Z_OK;
}

/* ---- whole payloads -------------------------------------------------------------------------------- */

/* Returns owned in *bytes head[0..hlen) then body[0..blen), in one block of that exact size. */
static z_result_t whole(z_owned_bytes_t *bytes, const uint8_t *head, size_t hlen, const void *body, size_t blen)
{
    if (bytes == NULL) {
        return Z_EINVAL;
    }
    z_internal_bytes_null(bytes);
    if (body == NULL && blen > 0) {
        return Z_EINVAL;
    }
    if (blen > SIZE_MAX - hlen) {
        return ZM_E_NOMEM;
    }
    zm_owner_t *o;
    uint8_t *data = zm_api_block_alloc(hlen + blen, &o);
    if (data == NULL) {
        return ZM_E_NOMEM;
    }
    memcpy(data, head, hlen);
    if (blen > 0) {
        memcpy(data + hlen, body, blen);
    }
    bytes->_val.slice.start = data;
    bytes->_val.slice.len = hlen + blen;
    bytes->_val.slice.owner = o;
    return Z_OK;
}

static z_result_t whole_le(z_owned_bytes_t *bytes, uint64_t v, size_t n)
{
    uint8_t b[8];
    le_put(b, v, n);
    return whole(bytes, b, n, NULL, 0);
}

static z_result_t whole_counted(z_owned_bytes_t *bytes, const void *data, size_t len)
{
    uint8_t head[VARINT_MAX];
    return whole(bytes, head, varint_put(head, len), data, len);
}

z_result_t ze_serialize_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len)
{
    return whole_counted(bytes, data, len);
}

z_result_t ze_serialize_slice(z_owned_bytes_t *bytes, const z_loaned_slice_t *slice)
{
    if (slice == NULL) {
        z_internal_bytes_null(bytes);
        return Z_EINVAL;
    }
    return whole_counted(bytes, slice->start, slice->len);
}

z_result_t ze_serialize_str(z_owned_bytes_t *bytes, const char *value)
{
    if (value == NULL) {
        z_internal_bytes_null(bytes);
        return Z_EINVAL;
    }
    return whole_counted(bytes, value, strlen(value));
}

z_result_t ze_serialize_substr(z_owned_bytes_t *bytes, const char *start, size_t len)
{
    return whole_counted(bytes, start, len);
}

z_result_t ze_serialize_string(z_owned_bytes_t *bytes, const z_loaned_string_t *s)
{
    if (s == NULL) {
        z_internal_bytes_null(bytes);
        return Z_EINVAL;
    }
    return whole_counted(bytes, s->slice.start, s->slice.len);
}

#define SERIALIZE_WHOLE_INTEGER(suffix, type, width)                \
    z_result_t ze_serialize_##suffix(z_owned_bytes_t *bytes, type val) \
    {                                                               \
        return whole_le(bytes, (uint64_t)val, width);               \
    }
INTEGERS(SERIALIZE_WHOLE_INTEGER)

z_result_t ze_serialize_float(z_owned_bytes_t *bytes, float val)
{
    uint32_t bits;
    memcpy(&bits, &val, sizeof(bits));
    return whole_le(bytes, bits, 4);
}

z_result_t ze_serialize_double(z_owned_bytes_t *bytes, double val)
{
    uint64_t bits;
    memcpy(&bits, &val, sizeof(bits));
    return whole_le(bytes, bits, 8);
}

z_result_t ze_serialize_bool(z_owned_bytes_t *bytes, bool val) { return whole_le(bytes, val ? 1u : 0u, 1); }

/* One scalar that must span the whole payload; *dst is written only on success. */
#define DESERIALIZE_WHOLE(suffix, type, width)                                      \
    z_result_t ze_deserialize_##suffix(const z_loaned_bytes_t *bytes, type *dst)    \
    {                                                                               \
        if (bytes == NULL || dst == NULL) {                                         \
            return Z_EINVAL;                                                        \
        }                                                                           \
        ze_deserializer_t d = ze_deserializer_from_bytes(bytes);                    \
        type v;                                                                     \
        ZM_TRY(ze_deserializer_deserialize_##suffix(&d, &v));                       \
        if (!ze_deserializer_is_done(&d)) {                                         \
            return Z_EDESERIALIZE;                                                  \
        }                                                                           \
        *dst = v;                                                                   \
        return Z_OK;                                                                \
    }
#define SCALARS(X)         \
    INTEGERS(X)            \
    X(float, float, 4)     \
    X(double, double, 8)   \
    X(bool, bool, 1)
SCALARS(DESERIALIZE_WHOLE)

z_result_t ze_deserialize_slice(const z_loaned_bytes_t *bytes, z_owned_slice_t *dst)
{
    if (bytes == NULL) {
        z_internal_slice_null(dst);
        return Z_EINVAL;
    }
    ze_deserializer_t d = ze_deserializer_from_bytes(bytes);
    ZM_TRY(ze_deserializer_deserialize_slice(&d, dst));
    if (!ze_deserializer_is_done(&d)) {
        z_slice_drop(z_slice_move(dst));
        return Z_EDESERIALIZE;
    }
    return Z_OK;
}

z_result_t ze_deserialize_string(const z_loaned_bytes_t *bytes, z_owned_string_t *str)
{
    if (bytes == NULL) {
        z_internal_string_null(str);
        return Z_EINVAL;
    }
    ze_deserializer_t d = ze_deserializer_from_bytes(bytes);
    ZM_TRY(ze_deserializer_deserialize_string(&d, str));
    if (!ze_deserializer_is_done(&d)) {
        z_string_drop(z_string_move(str));
        return Z_EDESERIALIZE;
    }
    return Z_OK;
}
