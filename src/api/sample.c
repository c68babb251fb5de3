/*
 * Samples, closures, ids and scouting results of the API, and the bridge from the session's
 * callbacks to the program's: a received sample becomes an API sample on the stack whose parts
 * borrow the receive buffer, so delivering one allocates nothing; a program keeps it by cloning,
 * which copies the borrowed parts into one block.
 */
#include <string.h>

#include "api/api.h"

/* The external copy of api.h's inline helper of timestamps. */
extern inline void zm_api_put_timestamp(zm_put_args_t *a, const z_timestamp_t *ts);

/* ---- ids ------------------------------------------------------------------------------------------ */

/* The bytes of a zid into an id already zeroed: in place, where a copy returned would be copied again. */
static void id_fill(z_id_t *id, const zm_zid_t *zid)
{
    memcpy(id->id, zid->id, zid->len <= sizeof(id->id) ? zid->len : sizeof(id->id));
}

z_id_t zm_api_id_from_zid(const zm_zid_t *zid)
{
    z_id_t id;
    memset(&id, 0, sizeof(id));
    id_fill(&id, zid);
    return id;
}

void zm_api_zid_from_id(zm_zid_t *zid, const z_id_t *id)
{
    memcpy(zid->id, id->id, sizeof(zid->id));
    zid->len = zm_zid_trim(id->id);
}

z_result_t z_id_to_string(const z_id_t *id, z_owned_string_t *str)
{
    static const char hex[] = "0123456789abcdef";
    if (str == NULL) {
        return Z_EINVAL;
    }
    z_internal_string_null(str);
    if (id == NULL) {
        return Z_EINVAL;
    }
    char text[32];
    for (size_t i = 0; i < 16; i++) {
        uint8_t b = id->id[15 - i];
        text[2 * i] = hex[b >> 4];
        text[2 * i + 1] = hex[b & 0x0f];
    }
    return zm_api_slice_copy(&str->_val.slice, text, sizeof(text), true);
}

z_result_t z_entity_global_id_new(z_entity_global_id_t *gid, const z_id_t *zid, uint32_t eid)
{
    if (gid == NULL || zid == NULL) {
        return Z_EINVAL;
    }
    gid->zid = *zid;
    gid->eid = eid;
    return Z_OK;
}

uint32_t z_entity_global_id_eid(const z_entity_global_id_t *gid) { return gid != NULL ? gid->eid : 0; }

z_id_t z_entity_global_id_zid(const z_entity_global_id_t *gid)
{
    z_id_t none;
    memset(&none, 0, sizeof(none));
    return gid != NULL ? gid->zid : none;
}

z_source_info_t z_source_info_new(const z_entity_global_id_t *source_id, uint32_t source_sn)
{
    z_source_info_t si;
    memset(&si, 0, sizeof(si));
    if (source_id != NULL) {
        si.source_id = *source_id;
    }
    si.source_sn = source_sn;
    return si;
}

uint32_t z_source_info_sn(const z_source_info_t *info) { return info != NULL ? info->source_sn : 0; }

z_entity_global_id_t z_source_info_id(const z_source_info_t *info)
{
    z_entity_global_id_t none;
    memset(&none, 0, sizeof(none));
    return info != NULL ? info->source_id : none;
}

uint64_t z_timestamp_ntp64_time(const z_timestamp_t *ts) { return ts != NULL ? ts->time : 0; }

z_id_t z_timestamp_id(const z_timestamp_t *ts)
{
    z_id_t none;
    memset(&none, 0, sizeof(none));
    return ts != NULL ? ts->id : none;
}

z_priority_t z_priority_default(void) { return Z_PRIORITY_DEFAULT; }
z_reliability_t z_reliability_default(void) { return Z_RELIABILITY_DEFAULT; }

/* ---- closures --------------------------------------------------------------------------------------- */

ZM_API_DEFINE_CLOSURE(closure_sample, z_loaned_sample_t *)
ZM_API_DEFINE_CLOSURE(closure_zid, const z_id_t *)
ZM_API_DEFINE_CLOSURE(closure_hello, z_loaned_hello_t *)
ZM_API_DEFINE_CLOSURE(closure_matching_status, const z_matching_status_t *)

/* ---- samples ---------------------------------------------------------------------------------------- */

enum { SAMPLE_PARTS = 4 };

/* The sample's byte runs: key, payload, attachment, encoding schema. */
static void sample_parts(zm_api_sample_t *s, zm_api_slice_t *parts[SAMPLE_PARTS])
{
    parts[0] = &s->keyexpr.key.slice;
    parts[1] = &s->payload.slice;
    parts[2] = &s->attachment.slice;
    parts[3] = &s->encoding.schema.slice;
}

/* Releases what the sample's byte runs hold, leaving the rest as it was. */
static void sample_drop_parts(zm_api_sample_t *s)
{
    zm_api_slice_t *parts[SAMPLE_PARTS];
    sample_parts(s, parts);
    for (size_t i = 0; i < SAMPLE_PARTS; i++) {
        zm_api_slice_drop(parts[i]);
    }
}

void zm_api_sample_clear(zm_api_sample_t *s)
{
    sample_drop_parts(s);
    memset(s, 0, sizeof(*s));
}

uint8_t *zm_api_block_get(void *ctx, size_t need, zm_owner_t **owner)
{
    ZM_UNUSED(ctx);
    return zm_api_block_alloc(need, owner);
}

z_result_t zm_api_parts_copy(zm_api_slice_t *const *parts, size_t n, zm_api_buffer_fn get, void *ctx)
{
    size_t need = 0;
    unsigned borrowed = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts[i]->owner == NULL && parts[i]->len > 0) {
            if (parts[i]->len > SIZE_MAX / 8 - need) {
                return ZM_E_NOMEM;
            }
            need += parts[i]->len + 1; /* a NUL after each: keys and schemas print as C strings */
            borrowed++;
        }
    }
    uint8_t *buf = NULL;
    zm_owner_t *o = NULL;
    if (borrowed > 0) {
        buf = get(ctx, need, &o);
        if (buf == NULL) {
            return ZM_E_NOMEM;
        }
        zm_atomic_store_relaxed(&o->refs, borrowed);
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        zm_api_slice_t *p = parts[i];
        if (p->owner != NULL) {
            zm_owner_ref(p->owner);
        } else if (p->len == 0) {
            *p = zm_api_slice_null();
        } else {
            memcpy(buf + off, p->start, p->len);
            buf[off + p->len] = 0;
            p->start = buf + off;
            p->owner = o;
            off += p->len + 1;
        }
    }
    return Z_OK;
}

z_result_t zm_api_sample_copy(zm_api_sample_t *dst, const zm_api_sample_t *src, zm_api_buffer_fn get, void *ctx)
{
    *dst = *src; /* copied in place: no second sample on the stack of a delivery */
    zm_api_slice_t *parts[SAMPLE_PARTS];
    sample_parts(dst, parts);
    z_result_t r = zm_api_parts_copy(parts, SAMPLE_PARTS, get, ctx);
    if (r != Z_OK) {
        memset(dst, 0, sizeof(*dst));
    }
    return r;
}

void z_internal_sample_null(z_owned_sample_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_sample_check(const z_owned_sample_t *obj) { return obj != NULL && obj->_val.keyexpr.key.slice.len > 0; }

ZM_API_DEFINE_TAKE(sample)

void z_sample_drop(z_moved_sample_t *obj)
{
    if (obj != NULL) {
        zm_api_sample_clear(&obj->_this._val);
    }
}

z_result_t z_sample_clone(z_owned_sample_t *dst, const z_loaned_sample_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_sample_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    return zm_api_sample_copy(&dst->_val, src, zm_api_block_get, NULL);
}

z_result_t z_sample_take_from_loaned(z_owned_sample_t *dst, z_loaned_sample_t *src)
{
    ZM_TRY(z_sample_clone(dst, src));
    zm_api_sample_clear(src);
    return Z_OK;
}

/* A zero sample for accessors given NULL, so that they never return NULL where a program
 * dereferences the result unconditionally. */
static const zm_api_sample_t empty_sample;

static const zm_api_sample_t *or_empty(const z_loaned_sample_t *s) { return s != NULL ? s : &empty_sample; }

const z_loaned_keyexpr_t *z_sample_keyexpr(const z_loaned_sample_t *sample) { return &or_empty(sample)->keyexpr; }
const z_loaned_bytes_t *z_sample_payload(const z_loaned_sample_t *sample) { return &or_empty(sample)->payload; }

const z_timestamp_t *z_sample_timestamp(const z_loaned_sample_t *sample)
{
    return sample != NULL && sample->timestamp.valid ? &sample->timestamp : NULL;
}

const z_loaned_encoding_t *z_sample_encoding(const z_loaned_sample_t *sample) { return &or_empty(sample)->encoding; }
z_sample_kind_t z_sample_kind(const z_loaned_sample_t *sample) { return or_empty(sample)->kind; }
const z_loaned_bytes_t *z_sample_attachment(const z_loaned_sample_t *sample) { return &or_empty(sample)->attachment; }

z_priority_t z_sample_priority(const z_loaned_sample_t *sample)
{
    return sample != NULL ? sample->priority : Z_PRIORITY_DEFAULT;
}

z_congestion_control_t z_sample_congestion_control(const z_loaned_sample_t *sample)
{
    return or_empty(sample)->congestion_control;
}

bool z_sample_express(const z_loaned_sample_t *sample) { return or_empty(sample)->express; }

#if ZM_UNSTABLE_API
z_reliability_t z_sample_reliability(const z_loaned_sample_t *sample) { return or_empty(sample)->reliability; }

const z_source_info_t *z_sample_source_info(const z_loaned_sample_t *sample)
{
    return sample != NULL && sample->has_source_info ? &sample->source_info : NULL;
}
#endif

/* A part of a sample that borrows: absent (has false) or empty ones are null. */
static zm_api_slice_t borrowed(bool has, zm_slice_t part)
{
    size_t len = has ? part.len : 0;
    zm_api_slice_t s = {len > 0 ? part.ptr : NULL, len, NULL};
    return s;
}

/* Every field is set once, rather than the whole sample zeroed first: a delivery builds one per
 * sample. An absent timestamp is zero, as z_internal_sample_null leaves it, and so is absent
 * source info where the unstable API reads it (elsewhere nothing does: it is left unset). */
void zm_api_sample_from_session(zm_api_sample_t *out, const zm_sample_t *in)
{
    /* a key is never empty, but a keyless error reply's (NULL, 0) */
    out->keyexpr.key.slice.start = (const uint8_t *)in->key;
    out->keyexpr.key.slice.len = in->key_len;
    out->keyexpr.key.slice.owner = NULL;
    out->keyexpr.id = 0;
    out->keyexpr.session = NULL;
    out->payload.slice = borrowed(true, in->payload);
    memset(&out->timestamp, 0, sizeof(out->timestamp));
    if (in->has_timestamp) {
        out->timestamp.valid = true;
        out->timestamp.time = in->timestamp.time;
        id_fill(&out->timestamp.id, &in->timestamp.id);
    }
    out->encoding.id = in->encoding.id;
    out->encoding.schema.slice = borrowed(in->encoding.has_schema, in->encoding.schema);
    out->kind = in->kind == ZM_SAMPLE_DELETE ? Z_SAMPLE_KIND_DELETE : Z_SAMPLE_KIND_PUT;
    out->priority = (z_priority_t)in->priority;
    out->congestion_control = in->block ? Z_CONGESTION_CONTROL_BLOCK : Z_CONGESTION_CONTROL_DROP;
    out->express = in->express;
    out->attachment.slice = borrowed(in->has_attachment, in->attachment);
    out->reliability = in->reliable ? Z_RELIABILITY_RELIABLE : Z_RELIABILITY_BEST_EFFORT;
    /* only the unstable API reads a sample's source info */
    out->has_source_info = ZM_UNSTABLE_API && in->has_source;
    if (ZM_UNSTABLE_API) {
        memset(&out->source_info, 0, sizeof(out->source_info));
    }
    if (out->has_source_info) {
        id_fill(&out->source_info.source_id.zid, &in->source.zid);
        out->source_info.source_id.eid = in->source.eid;
        out->source_info.source_sn = in->source.sn;
    }
}

/* ---- the subscriber bridge ------------------------------------------------------------------------------ */

zm_api_sub_ctx_t *zm_api_sub_ctx_new(z_moved_closure_sample_t *callback)
{
    zm_api_sub_ctx_t *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        z_closure_sample_drop(callback);
        return NULL;
    }
    c->closure = callback->_this._val;
    z_internal_closure_sample_null(&callback->_this);
    return c;
}

void zm_api_subscriber_deliver(const zm_sample_t *sample, void *ctx)
{
    zm_api_sub_ctx_t *c = ctx;
    zm_api_sample_t s;
    zm_api_sample_from_session(&s, sample);
    if (c->closure.call != NULL) {
        c->closure.call(&s, c->closure.context);
    }
    /* Its parts borrow still: no call attaches anything to a loaned sample (z_sample_take_from_loaned
     * leaves it null), so there is nothing to release, and s is not zeroed, being on this stack only. */
    ZM_ASSERT(s.keyexpr.key.slice.owner == NULL && s.payload.slice.owner == NULL && s.attachment.slice.owner == NULL &&
              s.encoding.schema.slice.owner == NULL);
}

void zm_api_subscriber_release(void *ctx)
{
    zm_api_sub_ctx_t *c = ctx;
    if (c->closure.drop != NULL) {
        c->closure.drop(c->closure.context);
    }
    zm_free(c);
}

/* ---- scouting results ---------------------------------------------------------------------------------- */

void z_internal_hello_null(z_owned_hello_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_hello_check(const z_owned_hello_t *obj) { return obj != NULL && obj->_val.whatami != 0; }

ZM_API_DEFINE_TAKE(hello)

void z_hello_drop(z_moved_hello_t *obj)
{
    if (obj == NULL) {
        return;
    }
    z_owned_string_array_t locators = {obj->_this._val.locators};
    z_string_array_drop(z_string_array_move(&locators));
    z_internal_hello_null(&obj->_this);
}

z_result_t z_hello_clone(z_owned_hello_t *dst, const z_loaned_hello_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_hello_null(dst);
    if (src == NULL) {
        return Z_EINVAL;
    }
    z_owned_string_array_t locators;
    ZM_TRY(z_string_array_clone(&locators, &src->locators));
    dst->_val.zid = src->zid;
    dst->_val.whatami = src->whatami;
    dst->_val.locators = locators._val;
    return Z_OK;
}

z_result_t z_hello_take_from_loaned(z_owned_hello_t *dst, z_loaned_hello_t *src)
{
    if (dst == NULL || src == NULL) {
        return Z_EINVAL;
    }
    dst->_val = *src;
    memset(src, 0, sizeof(*src));
    return Z_OK;
}

z_id_t z_hello_zid(const z_loaned_hello_t *hello)
{
    z_id_t none;
    memset(&none, 0, sizeof(none));
    return hello != NULL ? hello->zid : none;
}

z_whatami_t z_hello_whatami(const z_loaned_hello_t *hello)
{
    return hello != NULL ? hello->whatami : Z_WHATAMI_ROUTER;
}

const z_loaned_string_array_t *zp_hello_locators(const z_loaned_hello_t *hello)
{
    return hello != NULL ? &hello->locators : NULL;
}

void z_hello_locators(const z_loaned_hello_t *hello, z_owned_string_array_t *locators_out)
{
    if (locators_out == NULL) {
        return;
    }
    z_internal_string_array_null(locators_out);
    if (hello != NULL && z_string_array_clone(locators_out, &hello->locators) != Z_OK) {
        z_internal_string_array_null(locators_out);
    }
}

z_result_t z_whatami_to_view_string(z_whatami_t whatami, z_view_string_t *str_out)
{
    /* zenoh-pico's names, indexed by the mask (its z_scout example prints them) */
    static const char *const names[8] = {"Other",  "Router",        "Peer",        "Router|Peer",
                                         "Client", "Router|Client", "Peer|Client", "Router|Peer|Client"};
    if (str_out == NULL) {
        return Z_EINVAL;
    }
    unsigned i = (unsigned)whatami;
    z_result_t r = z_view_string_from_str(str_out, names[i < 8u ? i : 0u]);
    return i == 0u || i >= 8u ? Z_EINVAL : r;
}
