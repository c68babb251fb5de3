/*
 * Encodings: the predefined table (from the one list in zmote/api/encoding.h), their constants,
 * and the text form "<name>[;<schema>]" parsed and printed as zenoh-pico does, so that strings
 * written by one are read back identically by the other.
 */
#include <string.h>

#include "api/api.h"

/* ---- per-type functions -------------------------------------------------------------------------- */

/* The null encoding in place: smaller code than assigning a zeroed copy. */
static void clear(zm_api_encoding_t *e) { memset(e, 0, sizeof(*e)); }

z_result_t zm_api_encoding_clone(zm_api_encoding_t *dst, const zm_api_encoding_t *src)
{
    zm_api_encoding_t e = *src;
    z_result_t r = zm_api_slice_clone(&e.schema.slice, &src->schema.slice);
    if (r != Z_OK) {
        clear(dst);
        return r;
    }
    *dst = e;
    return Z_OK;
}

void z_internal_encoding_null(z_owned_encoding_t *obj)
{
    if (obj != NULL) {
        clear(&obj->_val);
    }
}

bool z_internal_encoding_check(const z_owned_encoding_t *obj)
{
    return obj != NULL && (obj->_val.id != 0 || obj->_val.schema.slice.len > 0);
}

ZM_API_DEFINE_TAKE(encoding)

void z_encoding_drop(z_moved_encoding_t *obj)
{
    if (obj != NULL) {
        zm_api_encoding_clear(&obj->_this._val);
    }
}

z_result_t z_encoding_clone(z_owned_encoding_t *dst, const z_loaned_encoding_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_encoding_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    return zm_api_encoding_clone(&dst->_val, src);
}

z_result_t z_encoding_take_from_loaned(z_owned_encoding_t *dst, z_loaned_encoding_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_encoding_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    zm_api_encoding_t e = *src;
    ZM_TRY(zm_api_slice_take(&e.schema.slice, &src->schema.slice));
    dst->_val = e;
    clear(src);
    return Z_OK;
}

/* ---- the table ------------------------------------------------------------------------------------ */

#if Z_FEATURE_ENCODING_VALUES
#define ZM_ENCODING_DEFINE(id, fn, cst, text)                                      \
    const z_owned_encoding_t ZP_ENCODING_##cst = {{(id), {{NULL, 0, NULL}}}};      \
    const z_loaned_encoding_t *z_encoding_##fn(void) { return &ZP_ENCODING_##cst._val; }
ZM_ENCODING_LIST(ZM_ENCODING_DEFINE)
#undef ZM_ENCODING_DEFINE

#define ZM_ENCODING_TEXT(id, fn, cst, text) text,
static const char *const encoding_names[] = {ZM_ENCODING_LIST(ZM_ENCODING_TEXT)};
#undef ZM_ENCODING_TEXT

const z_loaned_encoding_t *z_encoding_loan_default(void) { return z_encoding_zenoh_bytes(); }

/* The first table entry that s[0..len) is a prefix of (as zenoh-pico matches); false if none. */
static bool name_to_id(const char *s, size_t len, uint16_t *id)
{
    for (size_t i = 0; i < ZM_ARRAY_LEN(encoding_names); i++) {
        if (strlen(encoding_names[i]) == len && memcmp(s, encoding_names[i], len) == 0) {
            *id = (uint16_t)i;
            return true;
        }
    }
    return false;
}
#else
static const z_owned_encoding_t encoding_default = {{0, {{NULL, 0, NULL}}}};
const z_loaned_encoding_t *z_encoding_loan_default(void) { return &encoding_default._val; }
#endif

/* Rust's id for an encoding named by its text alone (zenoh-wire.md 1.6): received from Rust, it
 * prints as that text. */
#define ZM_ENCODING_CUSTOM 0xffffu

/* ---- text form ---------------------------------------------------------------------------------- */

static z_result_t make(z_owned_encoding_t *encoding, uint16_t id, const char *schema, size_t len)
{
    encoding->_val.id = id;
    if (len == 0) {
        return Z_OK;
    }
    return zm_api_slice_copy(&encoding->_val.schema.slice, schema, len, true);
}

z_result_t z_encoding_from_substr(z_owned_encoding_t *encoding, const char *s, size_t len)
{
    if (encoding == NULL) {
        return Z_EINVAL;
    }
    z_internal_encoding_null(encoding);
    if (s == NULL || len == 0) {
        return Z_OK;
    }
#if Z_FEATURE_ENCODING_VALUES
    size_t sep = 0;
    while (sep < len && s[sep] != ';') {
        sep++;
    }
    uint16_t id;
    if (sep > 0 && name_to_id(s, sep, &id)) {
        size_t rest = sep + 1 < len ? len - sep - 1 : 0;
        return make(encoding, id, s + sep + 1, rest);
    }
#endif
    /* as zenoh-pico does: a name it does not know is the schema of the default id, zenoh/bytes */
    return make(encoding, 0, s, len);
}

z_result_t z_encoding_from_str(z_owned_encoding_t *encoding, const char *s)
{
    return z_encoding_from_substr(encoding, s, s != NULL ? strlen(s) : 0);
}

z_result_t z_encoding_set_schema_from_substr(z_loaned_encoding_t *encoding, const char *schema, size_t len)
{
    if (encoding == NULL || (schema == NULL && len > 0)) {
        return Z_EINVAL;
    }
    zm_api_slice_t fresh = zm_api_slice_null();
    if (len > 0) {
        ZM_TRY(zm_api_slice_copy(&fresh, schema, len, true));
    }
    zm_api_slice_drop(&encoding->schema.slice);
    encoding->schema.slice = fresh;
    return Z_OK;
}

z_result_t z_encoding_set_schema_from_str(z_loaned_encoding_t *encoding, const char *schema)
{
    return z_encoding_set_schema_from_substr(encoding, schema, schema != NULL ? strlen(schema) : 0);
}

z_result_t z_encoding_to_string(const z_loaned_encoding_t *encoding, z_owned_string_t *string)
{
    if (string == NULL) {
        return Z_EINVAL;
    }
    z_internal_string_null(string);
    if (encoding == NULL) {
        return Z_EINVAL;
    }
    const char *name = "";
#if Z_FEATURE_ENCODING_VALUES
    if (encoding->id < ZM_ARRAY_LEN(encoding_names)) {
        name = encoding_names[encoding->id];
    }
#endif
    size_t name_len = strlen(name);
    size_t schema_len = encoding->schema.slice.len;
    bool custom = encoding->id == ZM_ENCODING_CUSTOM; /* the schema is the whole text */
    size_t total = custom ? schema_len : name_len + (schema_len > 0 ? 1 + schema_len : 0);
    zm_owner_t *o;
    uint8_t *buf = zm_api_block_alloc(total + 1, &o);
    if (buf == NULL) {
        return ZM_E_NOMEM;
    }
    if (custom) {
        if (schema_len > 0) {
            memcpy(buf, encoding->schema.slice.start, schema_len);
        }
    } else {
        memcpy(buf, name, name_len);
        if (schema_len > 0) {
            buf[name_len] = ';';
            memcpy(buf + name_len + 1, encoding->schema.slice.start, schema_len);
        }
    }
    buf[total] = 0;
    string->_val.slice.start = buf;
    string->_val.slice.len = total;
    string->_val.slice.owner = o;
    return Z_OK;
}

bool z_encoding_equals(const z_loaned_encoding_t *left, const z_loaned_encoding_t *right)
{
    if (left == NULL || right == NULL) {
        return false;
    }
    const zm_api_slice_t *a = &left->schema.slice;
    const zm_api_slice_t *b = &right->schema.slice;
    return left->id == right->id && a->len == b->len && (a->len == 0 || memcmp(a->start, b->start, a->len) == 0);
}
