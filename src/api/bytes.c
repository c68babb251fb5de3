/*
 * Byte runs of the API: slices, strings, string arrays and payloads, with their readers and
 * writers. Every owned run points at a reference-counted holder allocated once, when the data
 * is copied or taken, so that clones share it and never allocate; a borrowed run (a view, or
 * the data of a callback's sample) has no holder and is copied when it must outlive its loan.
 */
#include <string.h>

#include "api/api.h"

/* The external copies of api.h's inline helpers of holders and slices. */
extern inline void zm_owner_unref(zm_owner_t *o);
extern inline zm_api_slice_t zm_api_slice_null(void);
extern inline void zm_api_slice_drop(zm_api_slice_t *s);

#define ZM_SEEK_SET 0
#define ZM_SEEK_CUR 1
#define ZM_SEEK_END 2

zm_owner_t zm_api_static_owner = {0, NULL};

/* ---- holders ------------------------------------------------------------------------------------- */

static void block_release(zm_owner_t *o) { zm_free(o); }

uint8_t *zm_api_block_alloc(size_t len, zm_owner_t **owner)
{
    if (len > SIZE_MAX - sizeof(zm_owner_t)) {
        return NULL;
    }
    zm_owner_t *o = zm_alloc(sizeof(zm_owner_t) + len);
    if (o == NULL) {
        return NULL;
    }
    zm_atomic_init(&o->refs, 1u);
    o->release = block_release;
    *owner = o;
    return (uint8_t *)(o + 1);
}

typedef struct {
    zm_owner_t base;
    void (*deleter)(void *data, void *context);
    void *data;
    void *context;
} deleter_owner_t;

static void deleter_release(zm_owner_t *o)
{
    deleter_owner_t *d = (deleter_owner_t *)o;
    d->deleter(d->data, d->context);
    zm_free(d);
}

zm_owner_t *zm_api_deleter_owner(void *data, void (*deleter)(void *data, void *context), void *context)
{
    if (deleter == NULL) {
        return &zm_api_static_owner;
    }
    deleter_owner_t *d = zm_alloc(sizeof(*d));
    if (d == NULL) {
        deleter(data, context);
        return NULL;
    }
    zm_atomic_init(&d->base.refs, 1u);
    d->base.release = deleter_release;
    d->deleter = deleter;
    d->data = data;
    d->context = context;
    return &d->base;
}

z_result_t zm_api_slice_copy(zm_api_slice_t *dst, const void *ptr, size_t len, bool nul)
{
    *dst = zm_api_slice_null();
    if (len == 0 && !nul) {
        return Z_OK;
    }
    if (nul && len == SIZE_MAX) {
        return ZM_E_NOMEM;
    }
    zm_owner_t *o;
    uint8_t *data = zm_api_block_alloc(len + (nul ? 1u : 0u), &o);
    if (data == NULL) {
        return ZM_E_NOMEM;
    }
    if (len > 0) {
        memcpy(data, ptr, len);
    }
    if (nul) {
        data[len] = 0;
    }
    dst->start = data;
    dst->len = len;
    dst->owner = o;
    return Z_OK;
}

z_result_t zm_api_slice_clone(zm_api_slice_t *dst, const zm_api_slice_t *src)
{
    if (src->owner == NULL) {
        /* with a NUL after it, unless empty: then the null run, which needs nothing copied */
        return zm_api_slice_copy(dst, src->start, src->len, src->len > 0);
    }
    zm_owner_ref(src->owner);
    *dst = *src;
    return Z_OK;
}

/* Moves src into dst, copying it when it is only borrowed; src is left null either way. */
z_result_t zm_api_slice_take(zm_api_slice_t *dst, zm_api_slice_t *src)
{
    if (src->owner == NULL && src->len > 0) {
        z_result_t r = zm_api_slice_copy(dst, src->start, src->len, true);
        if (r != Z_OK) {
            return r;
        }
    } else {
        *dst = *src;
    }
    *src = zm_api_slice_null();
    return Z_OK;
}

/* An owned run over data (NUL-terminated text when is_str); the holder calls deleter. */
static z_result_t slice_from_buf(zm_api_slice_t *dst, const uint8_t *data, size_t len,
                                 void (*deleter)(void *data, void *context), void *context)
{
    *dst = zm_api_slice_null();
    zm_owner_t *o = zm_api_deleter_owner((void *)(uintptr_t)data, deleter, context);
    if (o == NULL) {
        return ZM_E_NOMEM;
    }
    dst->start = data;
    dst->len = len;
    dst->owner = o;
    return Z_OK;
}

/* ---- payloads of several runs ------------------------------------------------------------------- */

static void runs_release(zm_owner_t *o)
{
    zm_api_runs_t *rs = (zm_api_runs_t *)o;
    for (size_t k = 0; k < rs->n; k++) {
        /* A run's holder is a block's, a deleter's or the static one, never runs (writer_add keeps
         * the runs of a payload it is given, not the payload): what zm_owner_unref does, through
         * a call that scripts/check-stack.py knows reaches no runs. */
        zm_owner_t *leaf = rs->run[k].owner;
        if (leaf != NULL && leaf->release != NULL && zm_atomic_dec_acq_rel(&leaf->refs) == 1u) {
            leaf->release(leaf);
        }
    }
    zm_free(rs);
}

static bool runs_join(zm_api_bytes_t *b);

/* Adds run to *holder (made, or moved to a larger one, as needed): the holder takes run's
 * reference. False when out of memory, run untouched. */
static bool runs_push(zm_owner_t **holder, zm_api_slice_t run)
{
    zm_api_runs_t *rs = (zm_api_runs_t *)*holder;
    if (rs == NULL || rs->n == rs->cap) {
        size_t cap = rs == NULL ? 4u : rs->cap * 2u;
        zm_api_runs_t *grown = zm_alloc(sizeof(zm_api_runs_t) + cap * sizeof(zm_api_slice_t));
        if (grown == NULL) {
            return false;
        }
        zm_atomic_init(&grown->base.refs, 1u);
        grown->base.release = runs_release;
        grown->join = runs_join;
        grown->n = 0;
        grown->cap = cap;
        if (rs != NULL) {
            memcpy(grown->run, rs->run, rs->n * sizeof(zm_api_slice_t));
            grown->n = rs->n;
            zm_free(rs); /* the writer's alone: its references moved with the runs */
        }
        rs = grown;
        *holder = &rs->base;
    }
    rs->run[rs->n++] = run;
    return true;
}

const uint8_t *zm_api_bytes_at(const zm_api_bytes_t *b, size_t pos, size_t *left)
{
    const zm_api_runs_t *rs = zm_api_runs_of(b);
    const zm_api_slice_t *run = rs != NULL ? rs->run : &b->slice;
    size_t n = rs != NULL ? rs->n : 1u;
    for (size_t k = 0; k < n; k++, run++) {
        if (pos < run->len) {
            *left = run->len - pos;
            return run->start + pos;
        }
        pos -= run->len;
    }
    *left = 0;
    return NULL;
}

/* Copies n bytes of b from pos on into dst; they are there (pos + n <= its length). */
static void bytes_copy(const zm_api_bytes_t *b, size_t pos, uint8_t *dst, size_t n)
{
    while (n > 0) {
        size_t left;
        const uint8_t *p = zm_api_bytes_at(b, pos, &left);
        size_t take = left < n ? left : n;
        memcpy(dst, p, take);
        dst += take;
        pos += take;
        n -= take;
    }
}

/* A copy of the whole of b, in one run, into dst, followed by a NUL when nul. */
static z_result_t copy_out(const zm_api_bytes_t *b, zm_api_slice_t *dst, bool nul)
{
    if (zm_api_runs_of(b) == NULL) {
        return zm_api_slice_copy(dst, b->slice.start, b->slice.len, nul);
    }
    *dst = zm_api_slice_null();
    size_t len = b->slice.len;
    zm_owner_t *o;
    uint8_t *data = len < SIZE_MAX ? zm_api_block_alloc(len + 1u, &o) : NULL;
    if (data == NULL) {
        return ZM_E_NOMEM;
    }
    bytes_copy(b, 0, data, len);
    data[len] = 0;
    dst->start = data;
    dst->len = len;
    dst->owner = o;
    return Z_OK;
}

static bool runs_join(zm_api_bytes_t *b)
{
    const zm_api_runs_t *rs = zm_api_runs_of(b);
    zm_owner_t *o;
    uint8_t *data = zm_api_block_alloc(b->slice.len, &o);
    if (data == NULL) {
        return false;
    }
    b->slice.start = data;
    for (size_t k = 0; k < rs->n; k++) {
        memcpy(data, rs->run[k].start, rs->run[k].len);
        data += rs->run[k].len;
    }
    zm_owner_unref(b->slice.owner);
    b->slice.owner = o;
    return true;
}

bool zm_api_bytes_whole(z_moved_bytes_t *b)
{
    if (b == NULL || b->_this._val.slice.start != NULL || b->_this._val.slice.len == 0) {
        return true;
    }
    /* several runs: their holder joins them, so that only a program that appends links the join */
    zm_api_runs_t *rs = (zm_api_runs_t *)b->_this._val.slice.owner;
    return rs->join(&b->_this._val);
}

/* ---- per-type functions of the byte runs ---------------------------------------------------------- */

/* The family of functions every slice-like owned type has; VALID says when it is not null. */
#define RUN_FUNCTIONS(name, FIELD, VALID)                                                         \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                                        \
    {                                                                                             \
        if (obj != NULL) {                                                                        \
            obj->_val.FIELD = zm_api_slice_null();                                                \
        }                                                                                         \
    }                                                                                             \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj)                                 \
    {                                                                                             \
        const zm_api_slice_t *s = obj != NULL ? &obj->_val.FIELD : NULL;                          \
        return s != NULL && (VALID);                                                              \
    }                                                                                             \
    ZM_API_DEFINE_TAKE(name)                                                                      \
    void z_##name##_drop(z_moved_##name##_t *obj)                                                 \
    {                                                                                             \
        if (obj != NULL) {                                                                        \
            zm_api_slice_drop(&obj->_this._val.FIELD);                                            \
        }                                                                                         \
    }                                                                                             \
    z_result_t z_##name##_clone(z_owned_##name##_t *dst, const z_loaned_##name##_t *src)          \
    {                                                                                             \
        if (dst == NULL) {                                                                        \
            return Z_EINVAL;                                                                      \
        }                                                                                         \
        z_internal_##name##_null(dst);                                                            \
        if (src == NULL) {                                                                        \
            return Z_EINVAL;                                                                      \
        }                                                                                         \
        return zm_api_slice_clone(&dst->_val.FIELD, &src->FIELD);                                 \
    }                                                                                             \
    z_result_t z_##name##_take_from_loaned(z_owned_##name##_t *dst, z_loaned_##name##_t *src)     \
    {                                                                                             \
        if (dst == NULL) {                                                                        \
            return Z_EINVAL;                                                                      \
        }                                                                                         \
        z_internal_##name##_null(dst);                                                            \
        if (src == NULL) {                                                                        \
            return Z_EINVAL;                                                                      \
        }                                                                                         \
        return zm_api_slice_take(&dst->_val.FIELD, &src->FIELD);                                         \
    }

RUN_FUNCTIONS(string, slice, s->len > 0)
RUN_FUNCTIONS(bytes, slice, s->len > 0)

void z_internal_slice_null(z_owned_slice_t *obj)
{
    if (obj != NULL) {
        obj->_val = zm_api_slice_null();
    }
}

bool z_internal_slice_check(const z_owned_slice_t *obj) { return obj != NULL && obj->_val.start != NULL; }

ZM_API_DEFINE_TAKE(slice)

void z_slice_drop(z_moved_slice_t *obj)
{
    if (obj != NULL) {
        zm_api_slice_drop(&obj->_this._val);
    }
}

z_result_t z_slice_clone(z_owned_slice_t *dst, const z_loaned_slice_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_slice_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_clone(&dst->_val, src);
}

z_result_t z_slice_take_from_loaned(z_owned_slice_t *dst, z_loaned_slice_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_slice_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_take(&dst->_val, src);
}

/* ---- views ------------------------------------------------------------------------------------- */

bool z_view_slice_is_empty(const z_view_slice_t *obj) { return obj == NULL || obj->_val.len == 0; }
void z_view_slice_empty(z_view_slice_t *obj)
{
    if (obj != NULL) {
        obj->_val = zm_api_slice_null();
    }
}
bool z_view_string_is_empty(const z_view_string_t *obj) { return obj == NULL || obj->_val.slice.len == 0; }
void z_view_string_empty(z_view_string_t *obj)
{
    if (obj != NULL) {
        obj->_val.slice = zm_api_slice_null();
    }
}

/* ---- slices ------------------------------------------------------------------------------------ */

z_result_t z_slice_copy_from_buf(z_owned_slice_t *slice, const uint8_t *data, size_t len)
{
    if (slice == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&slice->_val, data, len, false);
}

z_result_t z_slice_from_buf(z_owned_slice_t *slice, uint8_t *data, size_t len,
                            void (*deleter)(void *data, void *context), void *context)
{
    if (slice == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return slice_from_buf(&slice->_val, data, len, deleter, context);
}

z_result_t z_view_slice_from_buf(z_view_slice_t *slice, const uint8_t *data, size_t len)
{
    if (slice == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    slice->_val = zm_api_slice_borrow(data, len);
    return Z_OK;
}

void z_slice_empty(z_owned_slice_t *slice) { z_internal_slice_null(slice); }

const uint8_t *z_slice_data(const z_loaned_slice_t *slice) { return slice != NULL ? slice->start : NULL; }
size_t z_slice_len(const z_loaned_slice_t *slice) { return slice != NULL ? slice->len : 0; }
bool z_slice_is_empty(const z_loaned_slice_t *slice) { return slice == NULL || slice->len == 0; }

/* ---- strings ----------------------------------------------------------------------------------- */

const char *z_string_data(const z_loaned_string_t *str)
{
    return str != NULL ? (const char *)str->slice.start : NULL;
}
size_t z_string_len(const z_loaned_string_t *str) { return str != NULL ? str->slice.len : 0; }
bool z_string_is_empty(const z_loaned_string_t *str) { return str == NULL || str->slice.len == 0; }

z_result_t z_string_copy_from_str(z_owned_string_t *str, const char *value)
{
    if (str == NULL || value == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&str->_val.slice, value, strlen(value), true);
}

z_result_t z_string_copy_from_substr(z_owned_string_t *str, const char *value, size_t len)
{
    if (str == NULL || (value == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&str->_val.slice, value, len, true);
}

z_result_t z_string_from_str(z_owned_string_t *str, char *value, void (*deleter)(void *value, void *context),
                             void *context)
{
    if (str == NULL || value == NULL) {
        return Z_EINVAL;
    }
    return slice_from_buf(&str->_val.slice, (const uint8_t *)value, strlen(value), deleter, context);
}

void z_string_empty(z_owned_string_t *str) { z_internal_string_null(str); }

const z_loaned_slice_t *z_string_as_slice(const z_loaned_string_t *str) { return str != NULL ? &str->slice : NULL; }

z_result_t z_view_string_from_str(z_view_string_t *str, const char *value)
{
    if (str == NULL || value == NULL) {
        return Z_EINVAL;
    }
    str->_val.slice = zm_api_slice_borrow(value, strlen(value));
    return Z_OK;
}

z_result_t z_view_string_from_substr(z_view_string_t *str, const char *value, size_t len)
{
    if (str == NULL || (value == NULL && len > 0)) {
        return Z_EINVAL;
    }
    str->_val.slice = zm_api_slice_borrow(value, len);
    return Z_OK;
}

/* ---- string arrays ------------------------------------------------------------------------------- */

static void string_array_clear(zm_api_string_array_t *a)
{
    for (size_t i = 0; i < a->len; i++) {
        zm_api_slice_drop(&a->items[i].slice);
    }
    zm_free(a->items);
    a->items = NULL;
    a->len = 0;
    a->cap = 0;
}

void z_internal_string_array_null(z_owned_string_array_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_string_array_check(const z_owned_string_array_t *obj)
{
    return obj != NULL && obj->_val.len > 0;
}

ZM_API_DEFINE_TAKE(string_array)

void z_string_array_drop(z_moved_string_array_t *obj)
{
    if (obj != NULL) {
        string_array_clear(&obj->_this._val);
    }
}

/* Makes room for one more string; false when out of memory (the array is unchanged). */
static bool string_array_grow(zm_api_string_array_t *a)
{
    if (a->len < a->cap) {
        return true;
    }
    size_t cap = a->cap == 0 ? 4 : a->cap * 2;
    if (cap > SIZE_MAX / sizeof(zm_api_string_t)) {
        return false;
    }
    zm_api_string_t *items = zm_alloc(cap * sizeof(zm_api_string_t));
    if (items == NULL) {
        return false;
    }
    if (a->len > 0) {
        memcpy(items, a->items, a->len * sizeof(zm_api_string_t));
    }
    zm_free(a->items);
    a->items = items;
    a->cap = cap;
    return true;
}

z_result_t z_string_array_clone(z_owned_string_array_t *dst, const z_loaned_string_array_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_string_array_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    zm_api_string_array_t a = {NULL, 0, 0};
    for (size_t i = 0; i < src->len; i++) {
        if (!string_array_grow(&a) || zm_api_slice_clone(&a.items[a.len].slice, &src->items[i].slice) != Z_OK) {
            string_array_clear(&a);
            return ZM_E_NOMEM;
        }
        a.len++;
    }
    dst->_val = a;
    return Z_OK;
}

z_result_t z_string_array_take_from_loaned(z_owned_string_array_t *dst, z_loaned_string_array_t *src)
{
    z_result_t r = z_string_array_clone(dst, src);
    if (r == Z_OK) {
        string_array_clear(src);
    }
    return r;
}

void z_string_array_new(z_owned_string_array_t *a) { z_internal_string_array_null(a); }

size_t z_string_array_push_by_alias(z_loaned_string_array_t *a, const z_loaned_string_t *value)
{
    if (a == NULL) {
        return 0;
    }
    if (value == NULL || !string_array_grow(a)) {
        return a->len;
    }
    a->items[a->len].slice = zm_api_slice_borrow(value->slice.start, value->slice.len);
    return ++a->len;
}

size_t z_string_array_push_by_copy(z_loaned_string_array_t *a, const z_loaned_string_t *value)
{
    if (a == NULL) {
        return 0;
    }
    if (value == NULL || !string_array_grow(a) ||
        zm_api_slice_copy(&a->items[a->len].slice, value->slice.start, value->slice.len, true) != Z_OK) {
        return a->len;
    }
    return ++a->len;
}

const z_loaned_string_t *z_string_array_get(const z_loaned_string_array_t *a, size_t k)
{
    return a != NULL && k < a->len ? &a->items[k] : NULL;
}

size_t z_string_array_len(const z_loaned_string_array_t *a) { return a != NULL ? a->len : 0; }
bool z_string_array_is_empty(const z_loaned_string_array_t *a) { return a == NULL || a->len == 0; }

/* ---- payloads ---------------------------------------------------------------------------------- */

void z_bytes_empty(z_owned_bytes_t *bytes) { z_internal_bytes_null(bytes); }

z_result_t z_bytes_copy_from_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len)
{
    if (bytes == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&bytes->_val.slice, data, len, false);
}

z_result_t z_bytes_from_buf(z_owned_bytes_t *bytes, uint8_t *data, size_t len,
                            void (*deleter)(void *data, void *context), void *context)
{
    if (bytes == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return slice_from_buf(&bytes->_val.slice, data, len, deleter, context);
}

z_result_t z_bytes_from_static_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len)
{
    if (bytes == NULL || (data == NULL && len > 0)) {
        return Z_EINVAL;
    }
    return slice_from_buf(&bytes->_val.slice, data, len, NULL, NULL);
}

z_result_t z_bytes_from_slice(z_owned_bytes_t *bytes, z_moved_slice_t *slice)
{
    if (bytes == NULL) {
        z_slice_drop(slice);
        return Z_EINVAL;
    }
    z_internal_bytes_null(bytes);
    if (slice == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_take(&bytes->_val.slice, &slice->_this._val);
}

z_result_t z_bytes_copy_from_slice(z_owned_bytes_t *bytes, const z_loaned_slice_t *slice)
{
    if (bytes == NULL || slice == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&bytes->_val.slice, slice->start, slice->len, false);
}

z_result_t z_bytes_from_string(z_owned_bytes_t *bytes, z_moved_string_t *s)
{
    if (bytes == NULL) {
        z_string_drop(s);
        return Z_EINVAL;
    }
    z_internal_bytes_null(bytes);
    if (s == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_take(&bytes->_val.slice, &s->_this._val.slice);
}

z_result_t z_bytes_copy_from_string(z_owned_bytes_t *bytes, const z_loaned_string_t *s)
{
    if (bytes == NULL || s == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&bytes->_val.slice, s->slice.start, s->slice.len, false);
}

z_result_t z_bytes_from_str(z_owned_bytes_t *bytes, char *value, void (*deleter)(void *value, void *context),
                            void *context)
{
    if (bytes == NULL || value == NULL) {
        return Z_EINVAL;
    }
    return slice_from_buf(&bytes->_val.slice, (const uint8_t *)value, strlen(value), deleter, context);
}

z_result_t z_bytes_copy_from_str(z_owned_bytes_t *bytes, const char *value)
{
    if (bytes == NULL || value == NULL) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&bytes->_val.slice, value, strlen(value), false);
}

z_result_t z_bytes_from_static_str(z_owned_bytes_t *bytes, const char *value)
{
    if (bytes == NULL || value == NULL) {
        return Z_EINVAL;
    }
    return slice_from_buf(&bytes->_val.slice, (const uint8_t *)value, strlen(value), NULL, NULL);
}

size_t z_bytes_len(const z_loaned_bytes_t *bytes) { return bytes != NULL ? bytes->slice.len : 0; }
bool z_bytes_is_empty(const z_loaned_bytes_t *bytes) { return bytes == NULL || bytes->slice.len == 0; }

z_result_t z_bytes_to_string(const z_loaned_bytes_t *bytes, z_owned_string_t *str)
{
    if (str == NULL) {
        return Z_EINVAL;
    }
    z_internal_string_null(str);
    if (bytes == NULL) {
        return Z_EINVAL;
    }
    if (bytes->slice.len == 0) {
        return Z_OK;
    }
    return copy_out(bytes, &str->_val.slice, true);
}

z_result_t z_bytes_to_slice(const z_loaned_bytes_t *bytes, z_owned_slice_t *dst)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_slice_null(dst);
    if (bytes == NULL) {
        return Z_EINVAL;
    }
    return copy_out(bytes, &dst->_val, false);
}

#if ZM_UNSTABLE_API
z_result_t z_bytes_get_contiguous_view(const z_loaned_bytes_t *bytes, z_view_slice_t *view)
{
    if (bytes == NULL || view == NULL) {
        return Z_EINVAL;
    }
    if (zm_api_runs_of(bytes) != NULL) {
        return Z_EINVAL; /* several runs have no one view */
    }
    view->_val = zm_api_slice_borrow(bytes->slice.start, bytes->slice.len);
    return Z_OK;
}
#endif

z_bytes_slice_iterator_t z_bytes_get_slice_iterator(const z_loaned_bytes_t *bytes)
{
    z_bytes_slice_iterator_t it = {bytes, 0};
    return it;
}

bool z_bytes_slice_iterator_next(z_bytes_slice_iterator_t *iter, z_view_slice_t *out)
{
    if (iter == NULL || out == NULL || iter->bytes == NULL || iter->bytes->slice.len == 0) {
        return false;
    }
    const zm_api_runs_t *rs = zm_api_runs_of(iter->bytes);
    const zm_api_slice_t *run = rs != NULL ? rs->run : &iter->bytes->slice;
    if (iter->index >= (rs != NULL ? rs->n : 1u)) {
        return false;
    }
    out->_val = zm_api_slice_borrow(run[iter->index].start, run[iter->index].len);
    iter->index++;
    return true;
}

z_bytes_reader_t z_bytes_get_reader(const z_loaned_bytes_t *bytes)
{
    z_bytes_reader_t r = {bytes, 0};
    return r;
}

size_t z_bytes_reader_read(z_bytes_reader_t *reader, uint8_t *dst, size_t len)
{
    size_t left = z_bytes_reader_remaining(reader);
    size_t n = len < left ? len : left;
    if (n == 0 || dst == NULL) {
        return 0;
    }
    bytes_copy(reader->bytes, reader->pos, dst, n);
    reader->pos += n;
    return n;
}

z_result_t z_bytes_reader_seek(z_bytes_reader_t *reader, int64_t offset, int origin)
{
    if (reader == NULL) {
        return Z_EINVAL;
    }
    size_t len = reader->bytes != NULL ? reader->bytes->slice.len : 0;
    int64_t base;
    switch (origin) {
    case ZM_SEEK_SET:
        base = 0;
        break;
    case ZM_SEEK_CUR:
        base = (int64_t)reader->pos;
        break;
    case ZM_SEEK_END:
        base = (int64_t)len;
        break;
    default:
        return Z_EINVAL;
    }
    /* Payloads are far below 2^62 bytes, so base + offset cannot overflow for a sane offset;
     * an insane one is refused before adding. */
    if ((offset > 0 && offset > (int64_t)len) || (offset < 0 && -offset > (int64_t)len)) {
        return Z_EINVAL;
    }
    int64_t pos = base + offset;
    if (pos < 0 || pos > (int64_t)len) {
        return Z_EINVAL;
    }
    reader->pos = (size_t)pos;
    return Z_OK;
}

int64_t z_bytes_reader_tell(z_bytes_reader_t *reader) { return reader != NULL ? (int64_t)reader->pos : 0; }

size_t z_bytes_reader_remaining(const z_bytes_reader_t *reader)
{
    if (reader == NULL || reader->bytes == NULL || reader->pos >= reader->bytes->slice.len) {
        return 0;
    }
    return reader->bytes->slice.len - reader->pos;
}

/* ---- payload writers ---------------------------------------------------------------------------- */

void z_internal_bytes_writer_null(z_owned_bytes_writer_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_bytes_writer_check(const z_owned_bytes_writer_t *obj)
{
    return obj != NULL && (obj->_val.owner != NULL || obj->_val.runs != NULL);
}

ZM_API_DEFINE_TAKE(bytes_writer)

void z_bytes_writer_drop(z_moved_bytes_writer_t *obj)
{
    if (obj != NULL) {
        zm_owner_unref(obj->_this._val.owner);
        zm_owner_unref(obj->_this._val.runs);
        z_internal_bytes_writer_null(&obj->_this);
    }
}

z_result_t z_bytes_writer_take_from_loaned(z_owned_bytes_writer_t *dst, z_loaned_bytes_writer_t *src)
{
    if (dst == NULL || src == NULL) {
        return Z_EINVAL;
    }
    dst->_val = *src;
    memset(src, 0, sizeof(*src));
    return Z_OK;
}

z_result_t z_bytes_writer_empty(z_owned_bytes_writer_t *writer)
{
    if (writer == NULL) {
        return Z_EINVAL;
    }
    z_internal_bytes_writer_null(writer);
    return Z_OK;
}

z_result_t z_bytes_writer_write_all(z_loaned_bytes_writer_t *writer, const uint8_t *src, size_t len)
{
    if (writer == NULL || (src == NULL && len > 0)) {
        return Z_EINVAL;
    }
    if (len == 0) {
        return Z_OK;
    }
    if (len > writer->cap - writer->len || writer->owner == NULL) {
        if (len > SIZE_MAX / 2 - writer->len) {
            return ZM_E_NOMEM;
        }
        size_t cap = writer->cap < 64 ? 64 : writer->cap;
        while (cap < writer->len + len) {
            cap *= 2;
        }
        zm_owner_t *o;
        uint8_t *data = zm_api_block_alloc(cap, &o);
        if (data == NULL) {
            return ZM_E_NOMEM;
        }
        if (writer->len > 0) {
            memcpy(data, writer->data, writer->len);
        }
        zm_owner_unref(writer->owner);
        writer->owner = o;
        writer->data = data;
        writer->cap = cap;
    }
    memcpy(writer->data + writer->len, src, len);
    writer->len += len;
    return Z_OK;
}

/* Ends the writer's current buffer as a run of its own (writes go on in a new one); false when
 * out of memory. */
static bool writer_seal(zm_api_bytes_writer_t *w)
{
    if (w->len == 0) {
        return true;
    }
    zm_api_slice_t run = {w->data, w->len, w->owner};
    if (!runs_push(&w->runs, run)) {
        return false;
    }
    w->data = NULL;
    w->len = 0;
    w->cap = 0;
    w->owner = NULL;
    return true;
}

/* Adds the runs of b to the writer's runs, each with a reference of its own. */
static z_result_t writer_add(zm_api_bytes_writer_t *w, const zm_api_bytes_t *b)
{
    const zm_api_runs_t *rs = zm_api_runs_of(b);
    const zm_api_slice_t *run = rs != NULL ? rs->run : &b->slice;
    size_t n = rs != NULL ? rs->n : 1u;
    for (size_t k = 0; k < n; k++) {
        zm_api_slice_t kept;
        ZM_TRY(zm_api_slice_clone(&kept, &run[k]));
        if (!runs_push(&w->runs, kept)) {
            zm_api_slice_drop(&kept);
            return ZM_E_NOMEM;
        }
    }
    return Z_OK;
}

z_result_t z_bytes_writer_append(z_loaned_bytes_writer_t *writer, z_moved_bytes_t *bytes)
{
    if (bytes == NULL) {
        return Z_EINVAL;
    }
    z_result_t r = Z_EINVAL;
    if (writer != NULL) {
        /* The payload's runs are kept as they are, after what was written so far. */
        r = bytes->_this._val.slice.len == 0 ? Z_OK
            : !writer_seal(writer)           ? ZM_E_NOMEM
                                             : writer_add(writer, &bytes->_this._val);
    }
    z_bytes_drop(bytes);
    return r;
}

void z_bytes_writer_finish(z_moved_bytes_writer_t *writer, z_owned_bytes_t *bytes)
{
    if (bytes == NULL) {
        z_bytes_writer_drop(writer);
        return;
    }
    z_internal_bytes_null(bytes);
    if (writer == NULL) {
        return;
    }
    zm_api_bytes_writer_t *w = &writer->_this._val;
    zm_api_runs_t *rs = (zm_api_runs_t *)w->runs;
    if (rs != NULL && !writer_seal(w)) {
        z_bytes_writer_drop(writer); /* out of memory: nothing to give */
        return;
    }
    rs = (zm_api_runs_t *)w->runs;
    if (rs == NULL) {
        if (w->len == 0) {
            zm_owner_unref(w->owner);
        } else {
            bytes->_val.slice.start = w->data;
            bytes->_val.slice.len = w->len;
            bytes->_val.slice.owner = w->owner;
        }
    } else if (rs->n == 1) {
        bytes->_val.slice = rs->run[0]; /* the run's reference passes to the payload */
        rs->n = 0;
        zm_owner_unref(&rs->base);
    } else {
        size_t total = 0;
        for (size_t k = 0; k < rs->n; k++) {
            total += rs->run[k].len;
        }
        bytes->_val.slice.start = NULL;
        bytes->_val.slice.len = total;
        bytes->_val.slice.owner = &rs->base;
    }
    z_internal_bytes_writer_null(&writer->_this);
}
