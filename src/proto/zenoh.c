/*
 * Zenoh data messages, the bodies of PUSH, REQUEST and RESPONSE: PUT, DEL, QUERY, REPLY, ERR.
 * Payloads, attachments and parameters are borrowed slices of the input; a PUT on the data path
 * is therefore decoded without a copy. Each encoder writes the whole message or nothing.
 */
#include <stddef.h>

#include "proto/codec.h"

#define ZM_PUT_FLAG_T 0x20u
#define ZM_PUT_FLAG_E 0x40u
#define ZM_QUERY_FLAG_C 0x20u
#define ZM_QUERY_FLAG_P 0x40u
#define ZM_ERR_FLAG_E 0x40u

#define EXT(h, kind, bit, type, field) {(h), (kind), (bit), (uint8_t)offsetof(type, field)}
#define EXT_TABLE(spec, type) {(spec), ZM_ARRAY_LEN(spec), offsetof(type, exts), offsetof(type, unknown)}

/* ---- PUT  |Z|E|T| 0x01 | [timestamp] [encoding] [exts] <payload;z32> -------------------------
 * ---- DEL  |Z|X|T| 0x02 | [timestamp] [exts] ---------------------------------------------------- */

static const zm_ext_spec_t put_ext_spec[] = {
    EXT(0x41, ZM_EXTV_SOURCE, 0, zm_put_t, source),
    EXT(0x12, ZM_EXTV_UNIT, 1, zm_put_t, exts),
    EXT(0x43, ZM_EXTV_ZBUF, 2, zm_put_t, attachment),
};
static const zm_ext_table_t put_exts = EXT_TABLE(put_ext_spec, zm_put_t);

/* A DEL's attachment has another id, and no shared-memory flag: its entries keep PUT's bits. */
static const zm_ext_spec_t del_ext_spec[] = {
    EXT(0x41, ZM_EXTV_SOURCE, 0, zm_put_t, source),
    EXT(0x42, ZM_EXTV_ZBUF, 2, zm_put_t, attachment),
};
static const zm_ext_table_t del_exts = EXT_TABLE(del_ext_spec, zm_put_t);

z_result_t zm_put_decode(zm_reader_t *r, uint8_t header, zm_put_t *p)
{
    bool put = ZM_MID(header) == ZM_MID_PUT;
    p->has_timestamp = (header & ZM_PUT_FLAG_T) != 0;
    p->has_encoding = put && (header & ZM_PUT_FLAG_E) != 0;
    p->attachment = zm_slice(NULL, 0);
    p->payload = zm_slice(NULL, 0);
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
    ZM_TRY(zm_exts_read_hot(r, header, put ? &put_exts : &del_exts, 0xffffu, p));
    return put ? zm_read_zbytes(r, UINT32_MAX, &p->payload) : Z_OK;
}

/*
 * A build that encodes only what it sends, and no query nor reply (whose encoders need the
 * extension tables anyway), writes the extensions of a PUT or DEL itself, in the tables' order:
 * the source info (with the unstable API, as zm_exts_write does), then the attachment. What such
 * a build never sends fails (Z_EINVAL): a PUT's shared-memory mark, which only a received PUT
 * carries (nothing is forwarded), a source info without the unstable API, and the unknown
 * extensions of a decoded message, which the complete codec alone re-encodes.
 */
#if ZM_ENCODE_PUT_EXTS_DIRECT
#define PUT_EXTS_UNSENT (ZM_PUT_EXT_SHM | (ZM_UNSTABLE_API ? 0u : ZM_PUT_EXT_SOURCE))

static z_result_t put_exts_write(zm_writer_t *w, bool put, uint16_t exts, const zm_put_t *p)
{
    if (exts & PUT_EXTS_UNSENT) {
        return Z_EINVAL;
    }
    if (ZM_UNSTABLE_API && (exts & ZM_PUT_EXT_SOURCE)) {
        const zm_source_info_t *src = &p->source;
        ZM_TRY(zm_ext_write_entity(w, 0x41, &src->zid, src->eid, &src->sn, exts != ZM_PUT_EXT_SOURCE));
    }
    if (exts & ZM_PUT_EXT_ATTACHMENT) {
        ZM_TRY(zm_ext_write_zbuf(w, put ? 0x43 : 0x42, p->attachment, false));
    }
    return Z_OK;
}
#endif

z_result_t zm_put_encode(zm_writer_t *w, uint8_t id, const zm_put_t *p)
{
    size_t mark = w->len;
    bool put = id == ZM_MID_PUT;
    bool has_encoding = put && p->has_encoding;
#if ZM_ENCODE_PUT_EXTS_DIRECT
    uint16_t left = p->exts & (put ? (ZM_PUT_EXT_SOURCE | ZM_PUT_EXT_SHM | ZM_PUT_EXT_ATTACHMENT)
                                   : (ZM_PUT_EXT_SOURCE | ZM_PUT_EXT_ATTACHMENT));
    if (p->unknown.n != 0) {
        return Z_EINVAL;
    }
#else
    const zm_ext_table_t *t = put ? &put_exts : &del_exts;
    unsigned left = zm_exts_count(t, 0xffffu, p, true);
#endif
    uint8_t h = (uint8_t)(id | (p->has_timestamp ? ZM_PUT_FLAG_T : 0u) | (has_encoding ? ZM_PUT_FLAG_E : 0u) |
                          (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (p->has_timestamp) {
        ZM_ENC_TRY(w, mark, zm_timestamp_write(w, &p->timestamp));
    }
    if (has_encoding) {
        ZM_ENC_TRY(w, mark, zm_encoding_write(w, &p->encoding));
    }
    if (left) {
#if ZM_ENCODE_PUT_EXTS_DIRECT
        ZM_ENC_TRY(w, mark, put_exts_write(w, put, left, p));
#else
        ZM_ENC_TRY(w, mark, zm_exts_write(w, t, 0xffffu, p, true));
#endif
    }
    if (put) {
        if (!zm_fits_u32(p->payload.len)) {
            w->len = mark;
            return Z_EINVAL;
        }
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, p->payload.ptr, p->payload.len));
    }
    return Z_OK;
}

/* ---- QUERY  |Z|P|C| 0x03 | [%consolidation%] [<parameters>] [exts] ----------------------------- */

/* Rust reads an unknown consolidation value as Auto. */
static uint8_t consolidation_from_wire(uint64_t v)
{
    return v <= ZM_CONSOLIDATION_LATEST ? (uint8_t)v : (uint8_t)ZM_CONSOLIDATION_AUTO;
}

/* 0x43 is the query's body: an encoding, then the payload up to the end of the extension */
static const zm_ext_spec_t query_ext_spec[] = {
    EXT(0x41, ZM_EXTV_SOURCE, 0, zm_query_t, source),
    EXT(0x04, ZM_EXTV_UNIT, 1, zm_query_t, exts),
    EXT(0x43, ZM_EXTV_ENC_BODY, 2, zm_query_t, body_encoding),
    EXT(0x45, ZM_EXTV_ZBUF, 3, zm_query_t, attachment),
};
static const zm_ext_table_t query_exts = EXT_TABLE(query_ext_spec, zm_query_t);
_Static_assert(offsetof(zm_query_t, body_payload) == offsetof(zm_query_t, body_encoding) + sizeof(zm_encoding_t),
               "ZM_EXTV_ENC_BODY: the payload follows the encoding");

z_result_t zm_query_decode(zm_reader_t *r, uint8_t header, zm_query_t *q)
{
    q->has_consolidation = (header & ZM_QUERY_FLAG_C) != 0;
    q->has_parameters = (header & ZM_QUERY_FLAG_P) != 0;
    q->consolidation = ZM_CONSOLIDATION_AUTO;
    q->parameters = zm_slice(NULL, 0);
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
    return zm_exts_read(r, header, &query_exts, 0xffffu, q, 0);
}

z_result_t zm_query_encode(zm_writer_t *w, const zm_query_t *q)
{
    size_t mark = w->len;
    unsigned left = zm_exts_count(&query_exts, 0xffffu, q, true);
    uint8_t h = (uint8_t)(ZM_MID_QUERY | (q->has_consolidation ? ZM_QUERY_FLAG_C : 0u) |
                          (q->has_parameters ? ZM_QUERY_FLAG_P : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (q->has_consolidation) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, q->consolidation));
    }
    if (q->has_parameters) {
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, q->parameters.ptr, q->parameters.len));
    }
    if (left) {
        ZM_ENC_TRY(w, mark, zm_exts_write(w, &query_exts, 0xffffu, q, true));
    }
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
    if (q->body_id != ZM_MID_PUT && q->body_id != ZM_MID_DEL) {
        return ZM_E_BODY_UNKNOWN;
    }
    r->ptr++;
    return zm_put_decode(r, h, &q->body.put);
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
    if (q->body_id != ZM_MID_PUT && q->body_id != ZM_MID_DEL) {
        w->len = mark;
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_put_encode(w, q->body_id, &q->body.put));
    return Z_OK;
}

/* ---- ERR  |Z|E|X| 0x05 | [encoding] [exts] <payload;z32> --------------------------------------- */

static const zm_ext_spec_t err_ext_spec[] = {
    EXT(0x41, ZM_EXTV_SOURCE, 0, zm_err_t, source),
    EXT(0x12, ZM_EXTV_UNIT, 1, zm_err_t, exts),
};
static const zm_ext_table_t err_exts = EXT_TABLE(err_ext_spec, zm_err_t);

z_result_t zm_err_decode(zm_reader_t *r, uint8_t header, zm_err_t *e)
{
    e->has_encoding = (header & ZM_ERR_FLAG_E) != 0;
    if (e->has_encoding) {
        ZM_TRY(zm_encoding_read(r, &e->encoding));
    } else {
        e->encoding.id = 0;
        e->encoding.has_schema = false;
        e->encoding.schema = zm_slice(NULL, 0);
    }
    ZM_TRY(zm_exts_read(r, header, &err_exts, 0xffffu, e, 0));
    return zm_read_zbytes(r, UINT32_MAX, &e->payload);
}

z_result_t zm_err_encode(zm_writer_t *w, const zm_err_t *e)
{
    size_t mark = w->len;
    unsigned left = zm_exts_count(&err_exts, 0xffffu, e, true);
    uint8_t h = (uint8_t)(ZM_MID_ERR | (e->has_encoding ? ZM_ERR_FLAG_E : 0u) | (left ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (e->has_encoding) {
        ZM_ENC_TRY(w, mark, zm_encoding_write(w, &e->encoding));
    }
    if (left) {
        ZM_ENC_TRY(w, mark, zm_exts_write(w, &err_exts, 0xffffu, e, true));
    }
    if (!zm_fits_u32(e->payload.len)) {
        w->len = mark;
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_write_zbytes(w, e->payload.ptr, e->payload.len));
    return Z_OK;
}
