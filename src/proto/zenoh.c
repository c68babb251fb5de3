/*
 * Zenoh data messages, the bodies of PUSH, REQUEST and RESPONSE: PUT, DEL, QUERY, REPLY, ERR.
 * Payloads, attachments and parameters are borrowed slices of the input; a PUT on the data path
 * is therefore decoded without a copy. Each encoder writes the whole message or nothing.
 */
#include "proto/codec.h"

#define ZM_PUT_FLAG_T 0x20u
#define ZM_PUT_FLAG_E 0x40u
#define ZM_QUERY_FLAG_C 0x20u
#define ZM_QUERY_FLAG_P 0x40u
#define ZM_ERR_FLAG_E 0x40u

/* ---- PUT  |Z|E|T| 0x01 | [timestamp] [encoding] [exts] <payload;z32> ------------------------- */

static z_result_t put_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_put_t *p = ctx;
    *known = true;
    switch (e->header & 0x7f) {
    case 0x41:
        p->exts |= ZM_PUT_EXT_SOURCE;
        return zm_entity_body_read(e->body, &p->source.zid, &p->source.eid, &p->source.sn);
    case 0x12:
        p->exts |= ZM_PUT_EXT_SHM;
        return Z_OK;
    case 0x43:
        p->exts |= ZM_PUT_EXT_ATTACHMENT;
        p->attachment = e->body;
        return Z_OK;
    default:
        *known = false;
        return Z_OK;
    }
}

z_result_t zm_put_decode(zm_reader_t *r, uint8_t header, zm_put_t *p)
{
    p->has_timestamp = (header & ZM_PUT_FLAG_T) != 0;
    p->has_encoding = (header & ZM_PUT_FLAG_E) != 0;
    p->exts = 0;
    p->unknown.n = 0;
    p->unknown.dropped = 0;
    p->attachment = zm_slice(NULL, 0);
    if (p->has_timestamp) {
        ZM_TRY(zm_timestamp_read(r, &p->timestamp));
    }
    if (p->has_encoding) {
        ZM_TRY(zm_encoding_read(r, &p->encoding));
    } else {
        p->encoding.id = 0;
        p->encoding.has_schema = false;
        p->encoding.schema = zm_slice(NULL, 0);
    }
    ZM_TRY(zm_ext_loop(r, (header & ZM_FLAG_Z) != 0, put_ext, p, &p->unknown));
    return zm_read_zbytes(r, UINT32_MAX, &p->payload);
}

z_result_t zm_put_encode(zm_writer_t *w, const zm_put_t *p)
{
    size_t mark = w->len;
    unsigned left = zm_popcount16(p->exts) + p->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_PUT | (p->has_timestamp ? ZM_PUT_FLAG_T : 0u) |
                          (p->has_encoding ? ZM_PUT_FLAG_E : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (p->has_timestamp) {
        ZM_ENC_TRY(w, mark, zm_timestamp_write(w, &p->timestamp));
    }
    if (p->has_encoding) {
        ZM_ENC_TRY(w, mark, zm_encoding_write(w, &p->encoding));
    }
    if (p->exts & ZM_PUT_EXT_SOURCE) {
        ZM_ENC_TRY(w, mark, zm_ext_write_entity(w, 0x41, &p->source.zid, p->source.eid, &p->source.sn, --left > 0));
    }
    if (p->exts & ZM_PUT_EXT_SHM) {
        ZM_ENC_TRY(w, mark, zm_ext_write_unit(w, 0x12, --left > 0));
    }
    if (p->exts & ZM_PUT_EXT_ATTACHMENT) {
        ZM_ENC_TRY(w, mark, zm_ext_write_zbuf(w, 0x43, p->attachment, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &p->unknown, false));
    if (!zm_fits_u32(p->payload.len)) {
        w->len = mark;
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_write_zbytes(w, p->payload.ptr, p->payload.len));
    return Z_OK;
}

/* ---- DEL  |Z|X|T| 0x02 | [timestamp] [exts] ---------------------------------------------------- */

static z_result_t del_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_del_t *d = ctx;
    *known = true;
    switch (e->header & 0x7f) {
    case 0x41:
        d->exts |= ZM_DEL_EXT_SOURCE;
        return zm_entity_body_read(e->body, &d->source.zid, &d->source.eid, &d->source.sn);
    case 0x42:
        d->exts |= ZM_DEL_EXT_ATTACHMENT;
        d->attachment = e->body;
        return Z_OK;
    default:
        *known = false;
        return Z_OK;
    }
}

z_result_t zm_del_decode(zm_reader_t *r, uint8_t header, zm_del_t *d)
{
    d->has_timestamp = (header & ZM_PUT_FLAG_T) != 0;
    d->exts = 0;
    d->unknown.n = 0;
    d->unknown.dropped = 0;
    d->attachment = zm_slice(NULL, 0);
    if (d->has_timestamp) {
        ZM_TRY(zm_timestamp_read(r, &d->timestamp));
    }
    return zm_ext_loop(r, (header & ZM_FLAG_Z) != 0, del_ext, d, &d->unknown);
}

z_result_t zm_del_encode(zm_writer_t *w, const zm_del_t *d)
{
    size_t mark = w->len;
    unsigned left = zm_popcount16(d->exts) + d->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_DEL | (d->has_timestamp ? ZM_PUT_FLAG_T : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (d->has_timestamp) {
        ZM_ENC_TRY(w, mark, zm_timestamp_write(w, &d->timestamp));
    }
    if (d->exts & ZM_DEL_EXT_SOURCE) {
        ZM_ENC_TRY(w, mark, zm_ext_write_entity(w, 0x41, &d->source.zid, d->source.eid, &d->source.sn, --left > 0));
    }
    if (d->exts & ZM_DEL_EXT_ATTACHMENT) {
        ZM_ENC_TRY(w, mark, zm_ext_write_zbuf(w, 0x42, d->attachment, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &d->unknown, false));
    return Z_OK;
}

/* ---- QUERY  |Z|P|C| 0x03 | [%consolidation%] [<parameters>] [exts] ----------------------------- */

/* Rust reads an unknown consolidation value as Auto. */
static uint8_t consolidation_from_wire(uint64_t v)
{
    return v <= ZM_CONSOLIDATION_LATEST ? (uint8_t)v : (uint8_t)ZM_CONSOLIDATION_AUTO;
}

static z_result_t query_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_query_t *q = ctx;
    *known = true;
    switch (e->header & 0x7f) {
    case 0x41:
        q->exts |= ZM_QUERY_EXT_SOURCE;
        return zm_entity_body_read(e->body, &q->source.zid, &q->source.eid, &q->source.sn);
    case 0x04:
        q->exts |= ZM_QUERY_EXT_SHM;
        return Z_OK;
    case 0x43: {
        /* encoding, then the payload up to the end of the extension, with no length of its own */
        zm_reader_t b;
        zm_reader_init(&b, e->body.ptr, e->body.len);
        ZM_TRY(zm_encoding_read(&b, &q->body_encoding));
        q->body_payload = zm_slice(b.ptr, zm_reader_left(&b));
        q->exts |= ZM_QUERY_EXT_BODY;
        return Z_OK;
    }
    case 0x45:
        q->exts |= ZM_QUERY_EXT_ATTACHMENT;
        q->attachment = e->body;
        return Z_OK;
    default:
        *known = false;
        return Z_OK;
    }
}

z_result_t zm_query_decode(zm_reader_t *r, uint8_t header, zm_query_t *q)
{
    q->has_consolidation = (header & ZM_QUERY_FLAG_C) != 0;
    q->has_parameters = (header & ZM_QUERY_FLAG_P) != 0;
    q->consolidation = ZM_CONSOLIDATION_AUTO;
    q->parameters = zm_slice(NULL, 0);
    q->exts = 0;
    q->unknown.n = 0;
    q->unknown.dropped = 0;
    q->body_encoding.id = 0;
    q->body_encoding.has_schema = false;
    q->body_encoding.schema = zm_slice(NULL, 0);
    q->body_payload = zm_slice(NULL, 0);
    q->attachment = zm_slice(NULL, 0);
    if (q->has_consolidation) {
        uint64_t v;
        ZM_TRY(zm_read_zint(r, &v));
        q->consolidation = consolidation_from_wire(v);
    }
    if (q->has_parameters) {
        const uint8_t *mark = r->ptr;
        ZM_TRY(zm_read_zbytes(r, UINT32_MAX, &q->parameters));
        if (!zm_utf8_valid(q->parameters)) {
            r->ptr = mark;
            return Z_EUTF8;
        }
    }
    return zm_ext_loop(r, (header & ZM_FLAG_Z) != 0, query_ext, q, &q->unknown);
}

z_result_t zm_query_encode(zm_writer_t *w, const zm_query_t *q)
{
    size_t mark = w->len;
    unsigned left = zm_popcount16(q->exts) + q->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_QUERY | (q->has_consolidation ? ZM_QUERY_FLAG_C : 0u) |
                          (q->has_parameters ? ZM_QUERY_FLAG_P : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (q->has_consolidation) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, q->consolidation));
    }
    if (q->has_parameters) {
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, q->parameters.ptr, q->parameters.len));
    }
    if (q->exts & ZM_QUERY_EXT_SOURCE) {
        ZM_ENC_TRY(w, mark, zm_ext_write_entity(w, 0x41, &q->source.zid, q->source.eid, &q->source.sn, --left > 0));
    }
    if (q->exts & ZM_QUERY_EXT_SHM) {
        ZM_ENC_TRY(w, mark, zm_ext_write_unit(w, 0x04, --left > 0));
    }
    if (q->exts & ZM_QUERY_EXT_BODY) {
        /* header, then the length of encoding + payload, then both: written in place, the
         * encoding's length counted first rather than built in a stack buffer */
        bool more = --left > 0;
        const zm_encoding_t *enc = &q->body_encoding;
        if (enc->has_schema && enc->schema.len > UINT8_MAX) {
            w->len = mark;
            return Z_EINVAL;
        }
        size_t enc_len = zm_zint_len(((uint64_t)enc->id << 1) | (enc->has_schema ? 1u : 0u)) +
                         (enc->has_schema ? zm_zint_len(enc->schema.len) + enc->schema.len : 0u);
        size_t body_len = enc_len + q->body_payload.len;
        if (!zm_fits_u32(body_len)) {
            w->len = mark;
            return Z_EINVAL;
        }
        ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(0x43 | (more ? ZM_FLAG_Z : 0u))));
        ZM_ENC_TRY(w, mark, zm_write_zint(w, body_len));
        ZM_ENC_TRY(w, mark, zm_encoding_write(w, enc));
        ZM_ENC_TRY(w, mark, zm_write_bytes(w, q->body_payload.ptr, q->body_payload.len));
    }
    if (q->exts & ZM_QUERY_EXT_ATTACHMENT) {
        ZM_ENC_TRY(w, mark, zm_ext_write_zbuf(w, 0x45, q->attachment, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &q->unknown, false));
    return Z_OK;
}

/* ---- REPLY  |Z|X|C| 0x04 | [%consolidation%] [exts] PUT|DEL ------------------------------------ */

static z_result_t no_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    ZM_UNUSED(ctx);
    ZM_UNUSED(e);
    *known = false;
    return Z_OK;
}

z_result_t zm_reply_decode(zm_reader_t *r, uint8_t header, zm_reply_t *q)
{
    q->has_consolidation = (header & ZM_QUERY_FLAG_C) != 0;
    q->consolidation = ZM_CONSOLIDATION_AUTO;
    q->unknown.n = 0;
    q->unknown.dropped = 0;
    if (q->has_consolidation) {
        uint64_t v;
        ZM_TRY(zm_read_zint(r, &v));
        q->consolidation = consolidation_from_wire(v);
    }
    ZM_TRY(zm_ext_loop(r, (header & ZM_FLAG_Z) != 0, no_ext, NULL, &q->unknown));
    uint8_t h;
    ZM_TRY(zm_peek_u8(r, &h));
    q->body_id = ZM_MID(h);
    switch (q->body_id) {
    case ZM_MID_PUT:
        r->ptr++;
        return zm_put_decode(r, h, &q->body.put);
    case ZM_MID_DEL:
        r->ptr++;
        return zm_del_decode(r, h, &q->body.del);
    default:
        return ZM_E_BODY_UNKNOWN;
    }
}

z_result_t zm_reply_encode(zm_writer_t *w, const zm_reply_t *q)
{
    size_t mark = w->len;
    uint8_t h = (uint8_t)(ZM_MID_REPLY | (q->has_consolidation ? ZM_QUERY_FLAG_C : 0u) |
                          (q->unknown.n ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (q->has_consolidation) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, q->consolidation));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &q->unknown, false));
    switch (q->body_id) {
    case ZM_MID_PUT:
        ZM_ENC_TRY(w, mark, zm_put_encode(w, &q->body.put));
        return Z_OK;
    case ZM_MID_DEL:
        ZM_ENC_TRY(w, mark, zm_del_encode(w, &q->body.del));
        return Z_OK;
    default:
        w->len = mark;
        return Z_EINVAL;
    }
}

/* ---- ERR  |Z|E|X| 0x05 | [encoding] [exts] <payload;z32> --------------------------------------- */

static z_result_t err_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_err_t *x = ctx;
    *known = true;
    switch (e->header & 0x7f) {
    case 0x41:
        x->exts |= ZM_ERR_EXT_SOURCE;
        return zm_entity_body_read(e->body, &x->source.zid, &x->source.eid, &x->source.sn);
    case 0x12:
        x->exts |= ZM_ERR_EXT_SHM;
        return Z_OK;
    default:
        *known = false;
        return Z_OK;
    }
}

z_result_t zm_err_decode(zm_reader_t *r, uint8_t header, zm_err_t *e)
{
    e->has_encoding = (header & ZM_ERR_FLAG_E) != 0;
    e->exts = 0;
    e->unknown.n = 0;
    e->unknown.dropped = 0;
    if (e->has_encoding) {
        ZM_TRY(zm_encoding_read(r, &e->encoding));
    } else {
        e->encoding.id = 0;
        e->encoding.has_schema = false;
        e->encoding.schema = zm_slice(NULL, 0);
    }
    ZM_TRY(zm_ext_loop(r, (header & ZM_FLAG_Z) != 0, err_ext, e, &e->unknown));
    return zm_read_zbytes(r, UINT32_MAX, &e->payload);
}

z_result_t zm_err_encode(zm_writer_t *w, const zm_err_t *e)
{
    size_t mark = w->len;
    unsigned left = zm_popcount16(e->exts) + e->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_ERR | (e->has_encoding ? ZM_ERR_FLAG_E : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (e->has_encoding) {
        ZM_ENC_TRY(w, mark, zm_encoding_write(w, &e->encoding));
    }
    if (e->exts & ZM_ERR_EXT_SOURCE) {
        ZM_ENC_TRY(w, mark, zm_ext_write_entity(w, 0x41, &e->source.zid, e->source.eid, &e->source.sn, --left > 0));
    }
    if (e->exts & ZM_ERR_EXT_SHM) {
        ZM_ENC_TRY(w, mark, zm_ext_write_unit(w, 0x12, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &e->unknown, false));
    if (!zm_fits_u32(e->payload.len)) {
        w->len = mark;
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_write_zbytes(w, e->payload.ptr, e->payload.len));
    return Z_OK;
}
