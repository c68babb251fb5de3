/*
 * Codecs of the types every message shares: zids, timestamps, encodings, wire expressions and
 * the extension framing. Extension handling is centralised here so that every message follows
 * the one Rust rule: a known extension matches its exact header byte; anything else is skipped
 * by its encoding, or is an error when marked mandatory.
 */
#include "proto/core.h"

/* ---- zid ------------------------------------------------------------------------------------ */

z_result_t zm_zid_read(zm_reader_t *r, uint8_t len, zm_zid_t *out)
{
    zm_slice_t s;
    ZM_ASSERT(len >= 1 && len <= 16);
    const uint8_t *mark = r->ptr;
    ZM_TRY(zm_read_bytes(r, len, &s));
    uint8_t any = 0;
    for (size_t i = 0; i < len; i++) {
        any |= s.ptr[i];
    }
    if (any == 0) {
        r->ptr = mark;
        return ZM_E_ZID; /* a zid is a nonzero u128 */
    }
    memset(out->id, 0, sizeof(out->id));
    memcpy(out->id, s.ptr, len);
    out->len = len;
    return Z_OK;
}

z_result_t zm_zid_write(zm_writer_t *w, const zm_zid_t *zid)
{
    ZM_ASSERT(zid->len >= 1 && zid->len <= 16);
    return zm_write_bytes(w, zid->id, zid->len);
}

uint8_t zm_zid_trim(const uint8_t bytes[16])
{
    uint8_t n = 16;
    while (n > 0 && bytes[n - 1] == 0) {
        n--;
    }
    return n;
}

/* ---- timestamp: %time:z64% <id;z8> ---------------------------------------------------------- */

z_result_t zm_timestamp_read(zm_reader_t *r, zm_timestamp_t *out)
{
    const uint8_t *mark = r->ptr;
    uint64_t len;
    ZM_TRY(zm_read_zint(r, &out->time));
    z_result_t rc = zm_read_zint_max(r, UINT8_MAX, &len);
    if (rc == Z_OK && (len < 1 || len > 16)) {
        rc = ZM_E_ZID;
    }
    if (rc == Z_OK) {
        rc = zm_zid_read(r, (uint8_t)len, &out->id);
    }
    if (rc != Z_OK) {
        r->ptr = mark;
    }
    return rc;
}

z_result_t zm_timestamp_write(zm_writer_t *w, const zm_timestamp_t *ts)
{
    ZM_TRY(zm_write_zint(w, ts->time));
    return zm_write_zbytes(w, ts->id.id, ts->id.len);
}

/* ---- encoding: %(id<<1)|S:z32% [<schema;z8>] ------------------------------------------------ */

z_result_t zm_encoding_read(zm_reader_t *r, zm_encoding_t *out)
{
    const uint8_t *mark = r->ptr;
    uint32_t v;
    ZM_TRY(zm_read_z32(r, &v));
    out->id = (uint16_t)(v >> 1); /* Rust keeps the low 16 bits of the id */
    out->has_schema = (v & 1u) != 0;
    out->schema = zm_slice(NULL, 0);
    if (out->has_schema) {
        z_result_t rc = zm_read_zbytes(r, UINT8_MAX, &out->schema);
        if (rc != Z_OK) {
            r->ptr = mark;
            return rc;
        }
    }
    return Z_OK;
}

z_result_t zm_encoding_write(zm_writer_t *w, const zm_encoding_t *e)
{
    ZM_TRY(zm_write_zint(w, ((uint64_t)e->id << 1) | (e->has_schema ? 1u : 0u)));
    if (!e->has_schema) {
        return Z_OK;
    }
    return e->schema.len > UINT8_MAX ? Z_EINVAL : zm_write_zbytes(w, e->schema.ptr, e->schema.len);
}

/* ---- wire expression: %scope:z16% [<suffix;z16>] -------------------------------------------- */

z_result_t zm_wire_expr_read(zm_reader_t *r, zm_wire_expr_t *we)
{
    const uint8_t *mark = r->ptr;
    ZM_TRY(zm_read_z16(r, &we->scope));
    we->suffix = zm_slice(NULL, 0);
    if (we->has_suffix) {
        z_result_t rc = zm_read_zbytes(r, UINT16_MAX, &we->suffix);
        if (rc == Z_OK && !zm_utf8_valid(we->suffix)) {
            rc = Z_EUTF8;
        }
        if (rc != Z_OK) {
            r->ptr = mark;
            return rc;
        }
    }
    return Z_OK;
}

z_result_t zm_wire_expr_write(zm_writer_t *w, const zm_wire_expr_t *we)
{
    ZM_TRY(zm_write_zint(w, we->scope));
    if (!we->has_suffix) {
        return Z_OK;
    }
    return we->suffix.len > UINT16_MAX ? Z_EINVAL : zm_write_zbytes(w, we->suffix.ptr, we->suffix.len);
}

/* ---- extensions: |Z|ENC(2)|M|ID(4)| + body -------------------------------------------------- */

z_result_t zm_ext_read(zm_reader_t *r, zm_ext_t *ext)
{
    const uint8_t *mark = r->ptr;
    z_result_t rc = zm_read_u8(r, &ext->header);
    if (rc != Z_OK) {
        return rc;
    }
    ext->z64 = 0;
    ext->body = zm_slice(NULL, 0);
    switch (ext->header & ZM_EXT_ENC_MASK) {
    case ZM_EXT_ENC_UNIT:
        break;
    case ZM_EXT_ENC_Z64:
        rc = zm_read_zint(r, &ext->z64);
        break;
    case ZM_EXT_ENC_ZBUF:
        rc = zm_read_zbytes(r, UINT32_MAX, &ext->body);
        break;
    default:
        rc = ZM_E_EXT_ENCODING;
        break;
    }
    if (rc != Z_OK) {
        r->ptr = mark;
        return rc;
    }
    ext->raw = zm_slice(mark, (size_t)(r->ptr - mark));
    return Z_OK;
}

z_result_t zm_ext_unknown(zm_reader_t *r, const zm_ext_t *ext, zm_ext_unknown_t *u)
{
    if (ext->header & ZM_EXT_M) {
        r->ptr = ext->raw.ptr; /* the error names the extension's first byte */
        return ZM_E_EXT_MANDATORY;
    }
    if (u->n < ZM_EXT_UNKNOWN_MAX) {
        u->raw[u->n++] = ext->raw;
    } else if (u->dropped < UINT8_MAX) {
        u->dropped++;
    }
    return Z_OK;
}

static inline uint8_t ext_header(uint8_t id, bool more)
{
    return (uint8_t)((id & 0x7fu) | (more ? ZM_FLAG_Z : 0u));
}

z_result_t zm_ext_write_unit(zm_writer_t *w, uint8_t id, bool more)
{
    return zm_write_u8(w, ext_header(id, more));
}

/* The header, then the value through the writer's own helpers (a piece of a message, as the
 * core types' writers: the header stays if the value does not fit, for the message to take back). */
z_result_t zm_ext_write_z64(zm_writer_t *w, uint8_t id, uint64_t v, bool more)
{
    ZM_TRY(zm_write_u8(w, ext_header(id, more)));
    return zm_write_zint(w, v);
}

z_result_t zm_ext_write_zbuf(zm_writer_t *w, uint8_t id, zm_slice_t body, bool more)
{
    if (!zm_fits_u32(body.len)) {
        return Z_EINVAL;
    }
    ZM_TRY(zm_write_u8(w, ext_header(id, more)));
    return zm_write_zbytes(w, body.ptr, body.len);
}

z_result_t zm_ext_write_unknown(zm_writer_t *w, const zm_ext_unknown_t *u, bool more)
{
#if !ZM_CODEC_FULL
    /* Only a decoded message has unknown extensions, and only the complete codec re-encodes one. */
    ZM_UNUSED(w);
    ZM_UNUSED(more);
    return u->n == 0 ? Z_OK : Z_EINVAL;
#else
    size_t mark = w->len;
    for (uint8_t i = 0; i < u->n; i++) {
        const zm_slice_t *raw = &u->raw[i];
        bool z = (i + 1u < u->n) || more;
        z_result_t rc = zm_write_u8(w, ext_header(raw->ptr[0], z));
        if (rc == Z_OK) {
            rc = zm_write_bytes(w, raw->ptr + 1, raw->len - 1);
        }
        if (rc != Z_OK) {
            w->len = mark;
            return rc;
        }
    }
    return Z_OK;
#endif
}

z_result_t zm_ext_loop(zm_reader_t *r, bool more, zm_ext_fn on, void *ctx, zm_ext_unknown_t *unknown)
{
    while (more) {
        zm_ext_t ext;
        ZM_TRY(zm_ext_read(r, &ext));
        more = (ext.header & ZM_FLAG_Z) != 0;
        bool known = false;
        z_result_t rc = on(ctx, &ext, &known);
        if (rc == Z_OK && !known) {
            rc = zm_ext_unknown(r, &ext, unknown);
        }
        if (rc != Z_OK) {
            r->ptr = ext.raw.ptr;
            return rc;
        }
    }
    return Z_OK;
}

z_result_t zm_timestamp_from_body(zm_slice_t body, zm_timestamp_t *ts)
{
    zm_reader_t r;
    zm_reader_init(&r, body.ptr, body.len);
    ZM_TRY(zm_timestamp_read(&r, ts));
    return zm_reader_left(&r) == 0 ? Z_OK : ZM_E_TRAILING;
}

z_result_t zm_entity_body_read(zm_slice_t body, zm_zid_t *zid, uint32_t *eid, uint32_t *sn)
{
    zm_reader_t r;
    uint8_t flags;
    zm_reader_init(&r, body.ptr, body.len);
    ZM_TRY(zm_read_u8(&r, &flags));
    ZM_TRY(zm_zid_read(&r, (uint8_t)((flags >> 4) + 1u), zid));
    ZM_TRY(zm_read_z32(&r, eid));
    if (sn != NULL) {
        ZM_TRY(zm_read_z32(&r, sn));
    }
    return zm_reader_left(&r) == 0 ? Z_OK : ZM_E_TRAILING;
}

/*
 * Extension bodies that are small: their length is counted first, then they are written in place
 * behind the extension's header, as zm_ext_write_zbuf would frame them, with no stack buffer
 * (these sit at the deepest point of a send). Nothing is written if the whole does not fit.
 */
static z_result_t ext_body_begin(zm_writer_t *w, uint8_t id, size_t body_len, bool more)
{
    if (zm_writer_left(w) < 1 + zm_zint_len(body_len) + body_len) {
        return ZM_E_NO_SPACE;
    }
    w->data[w->len++] = ext_header(id, more);
    return zm_write_zint(w, body_len);
}

z_result_t zm_ext_write_timestamp(zm_writer_t *w, uint8_t id, const zm_timestamp_t *ts, bool more)
{
    ZM_TRY(ext_body_begin(w, id, zm_zint_len(ts->time) + zm_zint_len(ts->id.len) + ts->id.len, more));
    return zm_timestamp_write(w, ts);
}

z_result_t zm_ext_write_entity(zm_writer_t *w, uint8_t id, const zm_zid_t *zid, uint32_t eid,
                               const uint32_t *sn, bool more)
{
    size_t body_len = 1u + zid->len + zm_zint_len(eid) + (sn != NULL ? zm_zint_len(*sn) : 0u);
    ZM_TRY(ext_body_begin(w, id, body_len, more));
    ZM_TRY(zm_write_u8(w, (uint8_t)((zid->len - 1u) << 4)));
    ZM_TRY(zm_zid_write(w, zid));
    ZM_TRY(zm_write_zint(w, eid));
    if (sn != NULL) {
        ZM_TRY(zm_write_zint(w, *sn));
    }
    return Z_OK;
}

/* ---- extensions as data (zm_ext_table_t) ---------------------------------------------------- */

#if ZM_CODEC_MULTICAST
/* The 0x51 body of a JOIN: one (reliable, best-effort) pair of next SNs per priority. */
static z_result_t sn_pairs_check(zm_slice_t body, uint32_t sn_mask)
{
    zm_reader_t r;
    zm_reader_init(&r, body.ptr, body.len);
    for (unsigned i = 0; i < 16u; i++) {
        uint64_t sn;
        ZM_TRY(zm_read_zint(&r, &sn));
        if (sn > sn_mask) {
            return ZM_E_SN_RANGE;
        }
    }
    return zm_reader_left(&r) == 0 ? Z_OK : ZM_E_TRAILING;
}
#endif

/* A build that decodes no network message reads the extensions of INIT and OPEN only: units,
 * z64s and bodies kept whole. */
static z_result_t ext_store(uint8_t kind, const zm_ext_t *x, void *v, uint32_t sn_mask)
{
    ZM_UNUSED(sn_mask);
    switch (kind) {
    case ZM_EXTV_UNIT:
        return Z_OK;
    case ZM_EXTV_U64:
        *(uint64_t *)v = x->z64;
        return Z_OK;
    case ZM_EXTV_ZBUF:
        *(zm_slice_t *)v = x->body;
        return Z_OK;
#if ZM_CODEC_MULTICAST
    case ZM_EXTV_SN_PAIRS:
        ZM_TRY(sn_pairs_check(x->body, sn_mask));
        *(zm_slice_t *)v = x->body;
        return Z_OK;
#endif
#if ZM_DECODE_NETWORK
    case ZM_EXTV_U8:
        *(uint8_t *)v = (uint8_t)x->z64; /* only the low byte carries meaning */
        return Z_OK;
    case ZM_EXTV_U16:
        *(uint16_t *)v = (uint16_t)x->z64;
        return Z_OK;
    case ZM_EXTV_SOURCE: {
        zm_source_info_t *s = v;
        return zm_entity_body_read(x->body, &s->zid, &s->eid, &s->sn);
    }
    case ZM_EXTV_TIMESTAMP:
        return zm_timestamp_from_body(x->body, v);
#endif
#if ZM_DECODE_REQUEST || ZM_DECODE_RESPONSE /* the kinds only queries and replies have */
    case ZM_EXTV_U32:
        if (x->z64 > UINT32_MAX) {
            return ZM_E_ZINT_OVERFLOW;
        }
        *(uint32_t *)v = (uint32_t)x->z64;
        return Z_OK;
    case ZM_EXTV_TARGET:
        if (x->z64 > 2u) {
            return ZM_E_FIELD;
        }
        *(uint8_t *)v = (uint8_t)x->z64;
        return Z_OK;
    case ZM_EXTV_ENTITY: {
        zm_entity_id_t *s = v;
        return zm_entity_body_read(x->body, &s->zid, &s->eid, NULL);
    }
    case ZM_EXTV_ENC_BODY: { /* the payload has no length of its own */
        zm_reader_t b;
        zm_reader_init(&b, x->body.ptr, x->body.len);
        ZM_TRY(zm_encoding_read(&b, v));
        *(zm_slice_t *)((uint8_t *)v + sizeof(zm_encoding_t)) = zm_slice(b.ptr, zm_reader_left(&b));
        return Z_OK;
    }
#endif
    default: /* a kind no table this build reads has */
        return ZM_E_FIELD;
    }
}

z_result_t zm_exts_read(zm_reader_t *r, uint8_t header, const zm_ext_table_t *t, uint16_t entries,
                        void *msg, uint32_t sn_mask)
{
    uint8_t *base = msg;
    uint16_t *present = (uint16_t *)(void *)(base + t->present);
    zm_ext_unknown_t *u = (zm_ext_unknown_t *)(void *)(base + t->unknown);
    *present = 0;
    u->n = 0;
    u->dropped = 0;
    bool more = (header & ZM_FLAG_Z) != 0;
    while (more) {
        zm_ext_t ext;
        ZM_TRY(zm_ext_read(r, &ext));
        more = (ext.header & ZM_FLAG_Z) != 0;
        const zm_ext_spec_t *e = NULL;
        for (unsigned i = 0; i < t->n; i++) {
            if ((entries & (1u << i)) != 0 && t->spec[i].header == (ext.header & 0x7fu)) {
                e = &t->spec[i];
                break;
            }
        }
        z_result_t rc;
        if (e != NULL) {
            *present |= (uint16_t)(1u << e->bit);
            rc = ext_store(e->kind, &ext, base + e->offset, sn_mask);
        } else {
            rc = zm_ext_unknown(r, &ext, u);
        }
        if (rc != Z_OK) {
            r->ptr = ext.raw.ptr;
            return rc;
        }
    }
    return Z_OK;
}

unsigned zm_exts_known(const zm_ext_table_t *t, uint16_t entries, const void *msg)
{
    uint16_t present = *(const uint16_t *)(const void *)((const uint8_t *)msg + t->present);
    unsigned n = 0;
    for (unsigned i = 0; i < t->n; i++) {
        if ((entries & (1u << i)) != 0 && (present & (1u << t->spec[i].bit)) != 0) {
            n++;
        }
    }
    return n;
}

#if ZM_ENCODE_REQUEST
/* Header, then the length of encoding + payload, then both: written in place, the encoding's
 * length counted first rather than built in a stack buffer. */
static z_result_t ext_write_enc_body(zm_writer_t *w, uint8_t id, const zm_encoding_t *enc,
                                     const zm_slice_t *payload, bool more)
{
    if (enc->has_schema && enc->schema.len > UINT8_MAX) {
        return Z_EINVAL;
    }
    size_t enc_len = zm_zint_len(((uint64_t)enc->id << 1) | (enc->has_schema ? 1u : 0u)) +
                     (enc->has_schema ? zm_zint_len(enc->schema.len) + enc->schema.len : 0u);
    size_t body_len = enc_len + payload->len;
    if (!zm_fits_u32(body_len)) {
        return Z_EINVAL;
    }
    ZM_TRY(zm_write_u8(w, ext_header(id, more)));
    ZM_TRY(zm_write_zint(w, body_len));
    ZM_TRY(zm_encoding_write(w, enc));
    return zm_write_bytes(w, payload->ptr, payload->len);
}
#endif

/*
 * The kinds of value a build that encodes only what it sends may leave out: an entity (a sample's
 * source info, an unstable part of the API, or a reply's responder), a timestamp extension
 * (zmote puts a sample's timestamp in its PUT, never in a network extension) and a query's body.
 * A message that carries one all the same fails to encode (Z_EINVAL) rather than go out without.
 */

static z_result_t ext_write_one(zm_writer_t *w, const zm_ext_spec_t *e, const void *v, bool more)
{
    uint64_t z;
    switch (e->kind) {
    case ZM_EXTV_UNIT:
        return zm_ext_write_unit(w, e->header, more);
    case ZM_EXTV_U8:
    case ZM_EXTV_TARGET:
        z = *(const uint8_t *)v;
        break;
    case ZM_EXTV_U16:
        z = *(const uint16_t *)v;
        break;
    case ZM_EXTV_U32:
        z = *(const uint32_t *)v;
        break;
    case ZM_EXTV_U64:
        z = *(const uint64_t *)v;
        break;
#if ZM_ENCODE_ENTITY
    case ZM_EXTV_SOURCE: {
        const zm_source_info_t *s = v;
        return zm_ext_write_entity(w, e->header, &s->zid, s->eid, &s->sn, more);
    }
    case ZM_EXTV_ENTITY: {
        const zm_entity_id_t *s = v;
        return zm_ext_write_entity(w, e->header, &s->zid, s->eid, NULL, more);
    }
#else
    case ZM_EXTV_SOURCE:
    case ZM_EXTV_ENTITY:
        return Z_EINVAL;
#endif
#if ZM_CODEC_FULL
    case ZM_EXTV_TIMESTAMP:
        return zm_ext_write_timestamp(w, e->header, v, more);
#else
    case ZM_EXTV_TIMESTAMP:
        return Z_EINVAL;
#endif
#if ZM_ENCODE_REQUEST
    case ZM_EXTV_ENC_BODY:
        return ext_write_enc_body(w, e->header, v,
                                  (const zm_slice_t *)(const void *)((const uint8_t *)v + sizeof(zm_encoding_t)),
                                  more);
#else
    case ZM_EXTV_ENC_BODY:
        return Z_EINVAL;
#endif
    default: /* ZM_EXTV_ZBUF, ZM_EXTV_SN_PAIRS */
        return zm_ext_write_zbuf(w, e->header, *(const zm_slice_t *)v, more);
    }
    return zm_ext_write_z64(w, e->header, z, more);
}

z_result_t zm_exts_write(zm_writer_t *w, const zm_ext_table_t *t, uint16_t entries, const void *msg,
                         bool unknown)
{
    const uint8_t *base = msg;
    uint16_t present = *(const uint16_t *)(const void *)(base + t->present);
    unsigned left = zm_exts_count(t, entries, msg, unknown);
    for (unsigned i = 0; present != 0 && i < t->n; i++) {
        const zm_ext_spec_t *e = &t->spec[i];
        if ((entries & (1u << i)) != 0 && (present & (1u << e->bit)) != 0) {
            ZM_TRY(ext_write_one(w, e, base + e->offset, --left > 0));
        }
    }
    if (unknown) {
        return zm_ext_write_unknown(w, (const zm_ext_unknown_t *)(const void *)(base + t->unknown), false);
    }
    return Z_OK;
}
