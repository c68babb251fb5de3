/*
 * Key expressions of the API: views over the caller's text and owned copies, checked and
 * canonized by the keyexpr layer (bit-for-bit with Rust's rules). Declaring one on a session
 * lives in session.c; here nothing touches the network.
 */
#include <string.h>

#include "api/api.h"
#include "keyexpr/keyexpr.h"

/* The external copies of api.h's inline helpers of key expressions. */
extern inline zm_api_keyexpr_t zm_api_keyexpr_null(void);
extern inline void zm_api_keyexpr_clear(zm_api_keyexpr_t *k);

static const char *key_data(const zm_api_keyexpr_t *k) { return (const char *)k->key.slice.start; }
static size_t key_len(const zm_api_keyexpr_t *k) { return k->key.slice.len; }

/* The null key expression in place: smaller code than assigning zm_api_keyexpr_null()'s copy. */
static void clear(zm_api_keyexpr_t *k) { memset(k, 0, sizeof(*k)); }

z_result_t zm_api_keyexpr_clone(zm_api_keyexpr_t *dst, const zm_api_keyexpr_t *src)
{
    *dst = *src;
    z_result_t r = zm_api_slice_clone(&dst->key.slice, &src->key.slice);
    if (r != Z_OK) {
        clear(dst);
    }
    return r;
}

/* ---- per-type functions -------------------------------------------------------------------------- */

void z_internal_keyexpr_null(z_owned_keyexpr_t *obj)
{
    if (obj != NULL) {
        clear(&obj->_val);
    }
}

bool z_internal_keyexpr_check(const z_owned_keyexpr_t *obj) { return obj != NULL && obj->_val.key.slice.len > 0; }

ZM_API_DEFINE_TAKE(keyexpr)

void z_keyexpr_drop(z_moved_keyexpr_t *obj)
{
    if (obj != NULL) {
        zm_api_keyexpr_clear(&obj->_this._val);
    }
}

z_result_t z_keyexpr_clone(z_owned_keyexpr_t *dst, const z_loaned_keyexpr_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    return zm_api_keyexpr_clone(&dst->_val, src);
}

z_result_t z_keyexpr_take_from_loaned(z_owned_keyexpr_t *dst, z_loaned_keyexpr_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    zm_api_keyexpr_t k = *src;
    ZM_TRY(zm_api_slice_take(&k.key.slice, &src->key.slice));
    dst->_val = k;
    clear(src);
    return Z_OK;
}

bool z_view_keyexpr_is_empty(const z_view_keyexpr_t *obj) { return obj == NULL || obj->_val.key.slice.len == 0; }

void z_view_keyexpr_empty(z_view_keyexpr_t *obj)
{
    if (obj != NULL) {
        clear(&obj->_val);
    }
}

/* ---- views --------------------------------------------------------------------------------------- */

z_result_t z_view_keyexpr_from_substr(z_view_keyexpr_t *keyexpr, const char *name, size_t len)
{
    if (keyexpr == NULL) {
        return Z_EINVAL;
    }
    clear(&keyexpr->_val);
    if (name == NULL || zm_keyexpr_validate(name, len) != Z_OK) {
        return Z_EINVAL;
    }
    keyexpr->_val.key.slice.start = (const uint8_t *)name; /* never empty: it is valid */
    keyexpr->_val.key.slice.len = len;
    return Z_OK;
}

z_result_t z_view_keyexpr_from_str(z_view_keyexpr_t *keyexpr, const char *name)
{
    return z_view_keyexpr_from_substr(keyexpr, name, name != NULL ? strlen(name) : 0);
}

void z_view_keyexpr_from_substr_unchecked(z_view_keyexpr_t *keyexpr, const char *name, size_t len)
{
    if (keyexpr != NULL) {
        clear(&keyexpr->_val);
        if (name != NULL) {
            keyexpr->_val.key.slice = zm_api_slice_borrow(name, len);
        }
    }
}

void z_view_keyexpr_from_str_unchecked(z_view_keyexpr_t *keyexpr, const char *name)
{
    z_view_keyexpr_from_substr_unchecked(keyexpr, name, name != NULL ? strlen(name) : 0);
}

z_result_t z_view_keyexpr_from_substr_autocanonize(z_view_keyexpr_t *keyexpr, char *name, size_t *len)
{
    if (keyexpr == NULL) {
        return Z_EINVAL;
    }
    clear(&keyexpr->_val);
    if (name == NULL || len == NULL || zm_keyexpr_canonize(name, len) != Z_OK) {
        return Z_EINVAL;
    }
    keyexpr->_val.key.slice.start = (const uint8_t *)name; /* never empty: it is valid */
    keyexpr->_val.key.slice.len = *len;
    return Z_OK;
}

z_result_t z_view_keyexpr_from_str_autocanonize(z_view_keyexpr_t *keyexpr, char *name)
{
    size_t len = name != NULL ? strlen(name) : 0;
    size_t old = len;
    ZM_TRY(z_view_keyexpr_from_substr_autocanonize(keyexpr, name, &len));
    if (len < old) {
        name[len] = '\0';
    }
    return Z_OK;
}

/* ---- owned copies -------------------------------------------------------------------------------- */

z_result_t z_keyexpr_from_substr(z_owned_keyexpr_t *keyexpr, const char *name, size_t len)
{
    if (keyexpr == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(keyexpr);
    if (name == NULL || zm_keyexpr_validate(name, len) != Z_OK) {
        return Z_EINVAL;
    }
    return zm_api_slice_copy(&keyexpr->_val.key.slice, name, len, true);
}

z_result_t z_keyexpr_from_str(z_owned_keyexpr_t *keyexpr, const char *name)
{
    if (name == NULL) {
        z_internal_keyexpr_null(keyexpr);
        return Z_EINVAL;
    }
    return z_keyexpr_from_substr(keyexpr, name, strlen(name));
}

z_result_t z_keyexpr_from_substr_autocanonize(z_owned_keyexpr_t *keyexpr, const char *name, size_t *len)
{
    if (keyexpr == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(keyexpr);
    if (name == NULL || len == NULL || *len == SIZE_MAX) {
        return Z_EINVAL;
    }
    zm_owner_t *o;
    uint8_t *copy = zm_api_block_alloc(*len + 1, &o);
    if (copy == NULL) {
        return ZM_E_NOMEM;
    }
    memcpy(copy, name, *len);
    size_t n = *len;
    if (zm_keyexpr_canonize((char *)copy, &n) != Z_OK) {
        zm_owner_unref(o);
        return Z_EINVAL;
    }
    copy[n] = 0;
    keyexpr->_val.key.slice.start = copy;
    keyexpr->_val.key.slice.len = n;
    keyexpr->_val.key.slice.owner = o;
    *len = n;
    return Z_OK;
}

z_result_t z_keyexpr_from_str_autocanonize(z_owned_keyexpr_t *keyexpr, const char *name)
{
    if (name == NULL) {
        z_internal_keyexpr_null(keyexpr);
        return Z_EINVAL;
    }
    size_t len = strlen(name);
    return z_keyexpr_from_substr_autocanonize(keyexpr, name, &len);
}

z_result_t z_keyexpr_as_view_string(const z_loaned_keyexpr_t *keyexpr, z_view_string_t *str)
{
    if (str == NULL) {
        return Z_EINVAL;
    }
    if (keyexpr == NULL) {
        z_view_string_empty(str);
        return Z_EINVAL;
    }
    str->_val.slice = zm_api_slice_borrow(keyexpr->key.slice.start, keyexpr->key.slice.len);
    return Z_OK;
}

/* Takes a buffer of cap + 1 bytes that holds a candidate of len bytes; keeps it if valid. */
static z_result_t adopt_if_valid(z_owned_keyexpr_t *key, uint8_t *buf, zm_owner_t *o, size_t len)
{
    if (zm_keyexpr_validate((const char *)buf, len) != Z_OK) {
        zm_owner_unref(o);
        return Z_EINVAL;
    }
    buf[len] = 0;
    key->_val.key.slice.start = buf;
    key->_val.key.slice.len = len;
    key->_val.key.slice.owner = o;
    return Z_OK;
}

z_result_t z_keyexpr_concat(z_owned_keyexpr_t *key, const z_loaned_keyexpr_t *left, const char *right, size_t len)
{
    if (key == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(key);
    if (left == NULL || (right == NULL && len > 0) || len > SIZE_MAX - 1 - key_len(left)) {
        return Z_EINVAL;
    }
    size_t total = key_len(left) + len;
    zm_owner_t *o;
    uint8_t *buf = zm_api_block_alloc(total + 1, &o);
    if (buf == NULL) {
        return ZM_E_NOMEM;
    }
    if (key_len(left) > 0) {
        memcpy(buf, key_data(left), key_len(left));
    }
    if (len > 0) {
        memcpy(buf + key_len(left), right, len);
    }
    return adopt_if_valid(key, buf, o, total);
}

z_result_t z_keyexpr_join(z_owned_keyexpr_t *key, const z_loaned_keyexpr_t *left, const z_loaned_keyexpr_t *right)
{
    if (key == NULL) {
        return Z_EINVAL;
    }
    z_internal_keyexpr_null(key);
    if (left == NULL || right == NULL || key_len(right) > SIZE_MAX - 2 - key_len(left)) {
        return Z_EINVAL;
    }
    size_t cap = key_len(left) + 1 + key_len(right);
    zm_owner_t *o;
    uint8_t *buf = zm_api_block_alloc(cap + 1, &o);
    if (buf == NULL) {
        return ZM_E_NOMEM;
    }
    size_t n;
    if (zm_keyexpr_join((char *)buf, cap, &n, key_data(left), key_len(left), key_data(right), key_len(right)) !=
        Z_OK) {
        zm_owner_unref(o);
        return Z_EINVAL;
    }
    return adopt_if_valid(key, buf, o, n);
}

/* ---- checks and relations ------------------------------------------------------------------------ */

z_result_t z_keyexpr_is_canon(const char *start, size_t len)
{
    if (start == NULL) {
        return Z_EINVAL;
    }
    return zm_keyexpr_validate(start, len) == Z_OK ? Z_OK : Z_EINVAL;
}

z_result_t z_keyexpr_canonize(char *start, size_t *len)
{
    if (start == NULL || len == NULL) {
        return Z_EINVAL;
    }
    return zm_keyexpr_canonize(start, len) == Z_OK ? Z_OK : Z_EINVAL;
}

z_result_t z_keyexpr_canonize_null_terminated(char *start)
{
    if (start == NULL) {
        return Z_EINVAL;
    }
    size_t len = strlen(start);
    ZM_TRY(z_keyexpr_canonize(start, &len));
    start[len] = '\0';
    return Z_OK;
}

bool z_keyexpr_includes(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r)
{
    if (l == NULL || r == NULL || key_len(l) == 0 || key_len(r) == 0) {
        return false;
    }
    return zm_keyexpr_includes(key_data(l), key_len(l), key_data(r), key_len(r));
}

bool z_keyexpr_intersects(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r)
{
    if (l == NULL || r == NULL || key_len(l) == 0 || key_len(r) == 0) {
        return false;
    }
    return zm_keyexpr_intersects(key_data(l), key_len(l), key_data(r), key_len(r));
}

bool z_keyexpr_equals(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r)
{
    if (l == NULL || r == NULL) {
        return false;
    }
    return key_len(l) == key_len(r) && (key_len(l) == 0 || memcmp(key_data(l), key_data(r), key_len(l)) == 0);
}

z_keyexpr_intersection_level_t z_keyexpr_relation_to(const z_loaned_keyexpr_t *left,
                                                     const z_loaned_keyexpr_t *right)
{
    if (z_keyexpr_equals(left, right)) {
        return Z_KEYEXPR_INTERSECTION_LEVEL_EQUALS;
    }
    if (z_keyexpr_includes(left, right)) {
        return Z_KEYEXPR_INTERSECTION_LEVEL_INCLUDES;
    }
    if (z_keyexpr_intersects(left, right)) {
        return Z_KEYEXPR_INTERSECTION_LEVEL_INTERSECTS;
    }
    return Z_KEYEXPR_INTERSECTION_LEVEL_DISJOINT;
}
