/*
 * Network messages, the contents of a FRAME: PUSH, REQUEST, RESPONSE, RESPONSE_FINAL, INTEREST,
 * DECLARE and network OAM. Their extensions share one struct (zm_net_exts_t) and one reader;
 * each message accepts only the extension bytes the catalogue gives it, in Rust's write order.
 */
#include <stddef.h>
#include <string.h>

#include "proto/codec.h"

#define ZM_NET_FLAG_N 0x20u
#define ZM_NET_FLAG_M 0x40u
#define ZM_DECLARE_FLAG_I 0x20u

/* Which extensions each network message knows (ZM_NET_EXT_* bits). */
static uint16_t net_ext_allowed(uint8_t mid)
{
    switch (mid) {
    case ZM_MID_N_PUSH:
        return ZM_NET_EXT_QOS | ZM_NET_EXT_TIMESTAMP | ZM_NET_EXT_NODEID | ZM_NET_EXT_TS_STACK;
    case ZM_MID_N_REQUEST:
        return ZM_NET_EXT_QOS | ZM_NET_EXT_TIMESTAMP | ZM_NET_EXT_TARGET | ZM_NET_EXT_BUDGET |
               ZM_NET_EXT_TIMEOUT | ZM_NET_EXT_NODEID | ZM_NET_EXT_TS_STACK;
    case ZM_MID_N_RESPONSE:
        return ZM_NET_EXT_QOS | ZM_NET_EXT_TIMESTAMP | ZM_NET_EXT_RESPONDER | ZM_NET_EXT_TS_STACK;
    case ZM_MID_N_RESPONSE_FINAL:
    case ZM_MID_N_OAM:
        return ZM_NET_EXT_QOS | ZM_NET_EXT_TIMESTAMP;
    case ZM_MID_N_INTEREST:
    case ZM_MID_N_DECLARE:
        return ZM_NET_EXT_QOS | ZM_NET_EXT_TIMESTAMP | ZM_NET_EXT_NODEID;
    default:
        return 0;
    }
}

#define EXT(h, kind, bit, field) {(h), (kind), (bit), (uint8_t)offsetof(zm_net_exts_t, field)}

/* Each extension's bit is its place in the order Rust writes them. */
static const zm_ext_spec_t net_ext_spec[] = {
    EXT(0x21, ZM_EXTV_U8, 0, qos),         EXT(0x42, ZM_EXTV_TIMESTAMP, 1, timestamp),
    EXT(0x43, ZM_EXTV_ENTITY, 2, responder), EXT(0x34, ZM_EXTV_TARGET, 3, target),
    EXT(0x25, ZM_EXTV_U32, 4, budget),     EXT(0x26, ZM_EXTV_U64, 5, timeout_ms),
    EXT(0x33, ZM_EXTV_U16, 6, nodeid),     EXT(0x47, ZM_EXTV_ZBUF, 7, ts_stack), /* kept raw */
};
static const zm_ext_table_t net_exts = {net_ext_spec, ZM_ARRAY_LEN(net_ext_spec),
                                        offsetof(zm_net_exts_t, present), offsetof(zm_net_exts_t, unknown)};

static z_result_t net_exts_read(zm_reader_t *r, uint8_t header, uint8_t mid, zm_net_exts_t *x)
{
    return zm_exts_read_hot(r, header, &net_exts, net_ext_allowed(mid), x);
}

#if !ZM_ENCODE_DATA_ONLY
/* z: the header's Z flag, set iff there is an extension to write; allowed: net_ext_allowed() */
static z_result_t net_exts_write(zm_writer_t *w, uint16_t allowed, const zm_net_exts_t *x, uint8_t z)
{
    return z ? zm_exts_write(w, &net_exts, allowed, x, true) : Z_OK;
}
#endif

#if ZM_DECODE_PUSH || ZM_DECODE_REQUEST || ZM_DECODE_RESPONSE
/* WireExpr whose N and M flags come from the message header. */
static z_result_t wire_expr_from_header(zm_reader_t *r, uint8_t header, zm_wire_expr_t *we)
{
    we->has_suffix = (header & ZM_NET_FLAG_N) != 0;
    we->mapping = (header & ZM_NET_FLAG_M) ? ZM_MAPPING_SENDER : ZM_MAPPING_RECEIVER;
    return zm_wire_expr_read(r, we);
}
#endif

static uint8_t wire_expr_flags(const zm_wire_expr_t *we)
{
    return (uint8_t)((we->has_suffix ? ZM_NET_FLAG_N : 0u) |
                     (we->mapping == ZM_MAPPING_SENDER ? ZM_NET_FLAG_M : 0u));
}

/* ---- OAM body, shared with the transport OAM: none, %u64% or <bytes;z32> --------------------- */

#if ZM_DECODE_N_OAM
static z_result_t oam_body_read(zm_reader_t *r, zm_oam_t *o)
{
    o->z64 = 0;
    o->zbuf = zm_slice(NULL, 0);
    switch (o->enc) {
    case ZM_OAM_UNIT:
        return Z_OK;
    case ZM_OAM_Z64:
        return zm_read_zint(r, &o->z64);
    case ZM_OAM_ZBUF:
        return zm_read_zbytes(r, UINT32_MAX, &o->zbuf);
    default:
        return ZM_E_EXT_ENCODING;
    }
}
#endif

#if ZM_CODEC_FULL
static z_result_t oam_body_write(zm_writer_t *w, const zm_oam_t *o)
{
    switch (o->enc) {
    case ZM_OAM_UNIT:
        return Z_OK;
    case ZM_OAM_Z64:
        return zm_write_zint(w, o->z64);
    case ZM_OAM_ZBUF:
        return zm_fits_u32(o->zbuf.len) ? zm_write_zbytes(w, o->zbuf.ptr, o->zbuf.len) : Z_EINVAL;
    default:
        return Z_EINVAL;
    }
}
#endif

/* ---- decode ----------------------------------------------------------------------------------- */

#if ZM_DECODE_PUSH
static z_result_t push_body_read(zm_reader_t *r, zm_push_t *p)
{
    uint8_t h;
    ZM_TRY(zm_peek_u8(r, &h));
    p->body_id = ZM_MID(h);
    if (p->body_id != ZM_MID_PUT && p->body_id != ZM_MID_DEL) {
        return ZM_E_BODY_UNKNOWN;
    }
    r->ptr++;
    return zm_put_decode(r, h, &p->body.put);
}
#endif

#if ZM_DECODE_RESPONSE
static z_result_t response_body_read(zm_reader_t *r, zm_response_t *p)
{
    uint8_t h;
    ZM_TRY(zm_peek_u8(r, &h));
    p->body_id = ZM_MID(h);
    switch (p->body_id) {
    case ZM_MID_REPLY:
        r->ptr++;
        return zm_reply_decode(r, h, &p->body.reply);
    case ZM_MID_ERR:
        r->ptr++;
        return zm_err_decode(r, h, &p->body.err);
    default:
        return ZM_E_BODY_UNKNOWN;
    }
}
#endif

#if ZM_DECODE_REQUEST
static z_result_t request_body_read(zm_reader_t *r, zm_request_t *q)
{
    uint8_t h;
    ZM_TRY(zm_peek_u8(r, &h));
    if (ZM_MID(h) != ZM_MID_QUERY) {
        return ZM_E_BODY_UNKNOWN;
    }
    r->ptr++;
    return zm_query_decode(r, h, &q->query);
}
#endif

#if ZM_DECODE_INTEREST
static z_result_t interest_read(zm_reader_t *r, uint8_t h, zm_interest_t *it)
{
    uint64_t id;
    ZM_TRY(zm_read_zint(r, &id));
    it->id = (uint32_t)id; /* Rust keeps the low 32 bits */
    it->mode = (uint8_t)((h >> 5) & 0x03u);
    it->options = 0;
    it->wire_expr.scope = 0;
    it->wire_expr.has_suffix = false;
    it->wire_expr.mapping = ZM_MAPPING_RECEIVER;
    it->wire_expr.suffix = zm_slice(NULL, 0);
    if (it->mode == ZM_INTEREST_FINAL) {
        return Z_OK;
    }
    ZM_TRY(zm_read_u8(r, &it->options));
    if (it->options & ZM_INTEREST_R) {
        it->wire_expr.has_suffix = (it->options & ZM_INTEREST_N) != 0;
        it->wire_expr.mapping = (it->options & ZM_INTEREST_M) ? ZM_MAPPING_SENDER : ZM_MAPPING_RECEIVER;
        ZM_TRY(zm_wire_expr_read(r, &it->wire_expr));
    }
    return Z_OK;
}
#endif

z_result_t zm_network_decode(zm_reader_t *r, zm_network_msg_t *m)
{
    const uint8_t *start = r->ptr;
    uint8_t h;
    ZM_TRY(zm_read_u8(r, &h));
    m->id = ZM_MID(h);
    z_result_t rc;
    switch (m->id) {
#if ZM_DECODE_PUSH
    case ZM_MID_N_PUSH: {
        zm_push_t *p = &m->body.push;
        rc = wire_expr_from_header(r, h, &p->wire_expr);
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        if (rc == Z_OK) {
            rc = push_body_read(r, p);
        }
        break;
    }
#endif
#if ZM_DECODE_REQUEST
    case ZM_MID_N_REQUEST: {
        zm_request_t *q = &m->body.request;
        rc = zm_read_z32(r, &q->rid);
        if (rc == Z_OK) {
            rc = wire_expr_from_header(r, h, &q->wire_expr);
        }
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        if (rc == Z_OK) {
            rc = request_body_read(r, q);
        }
        break;
    }
#endif
#if ZM_DECODE_RESPONSE
    case ZM_MID_N_RESPONSE: {
        zm_response_t *p = &m->body.response;
        rc = zm_read_z32(r, &p->rid);
        if (rc == Z_OK) {
            rc = wire_expr_from_header(r, h, &p->wire_expr);
        }
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        if (rc == Z_OK) {
            rc = response_body_read(r, p);
        }
        break;
    }
    case ZM_MID_N_RESPONSE_FINAL:
        rc = zm_read_z32(r, &m->body.response_final.rid);
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        break;
#endif
#if ZM_DECODE_INTEREST
    case ZM_MID_N_INTEREST:
        rc = interest_read(r, h, &m->body.interest);
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        break;
#endif
    case ZM_MID_N_DECLARE: {
        zm_declare_t *d = &m->body.declare;
        d->has_interest_id = (h & ZM_DECLARE_FLAG_I) != 0;
        d->interest_id = 0;
        rc = Z_OK;
        if (d->has_interest_id) {
            uint64_t id;
            rc = zm_read_zint(r, &id);
            d->interest_id = (uint32_t)id; /* Rust keeps the low 32 bits */
        }
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        if (rc == Z_OK) {
            rc = zm_declaration_decode(r, &d->decl);
        }
        break;
    }
#if ZM_DECODE_N_OAM
    case ZM_MID_N_OAM: {
        zm_oam_t *o = &m->body.oam;
        o->enc = (uint8_t)((h >> 5) & 0x03u);
        o->has_qos = false;
        o->unknown.n = 0;
        o->unknown.dropped = 0;
        uint64_t id;
        rc = zm_read_zint(r, &id);
        o->id = (uint16_t)id; /* Rust keeps the low 16 bits */
        if (rc == Z_OK) {
            rc = net_exts_read(r, h, m->id, &m->ext);
        }
        if (rc == Z_OK) {
            rc = oam_body_read(r, o);
        }
        break;
    }
#endif
    default:
        r->ptr = start;
        return ZM_E_MSG_UNKNOWN;
    }
    return rc;
}

/* ---- encode ----------------------------------------------------------------------------------- */

/* A number below 2^14 as a zint, in one byte or two. */
static uint8_t *put_z14(uint8_t *o, size_t v)
{
    if (v >= 0x80u) {
        *o++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

/* The common PUSH: a key by its id alone, default QoS, a PUT of its payload and nothing else,
 * both numbers in two bytes at most. A build for speed writes it in one piece after one check of
 * room: the same bytes as zm_push_encode's general path. */
static bool push_plain(const zm_push_ref_t *p)
{
    const zm_put_t *b = p->body;
    return !p->wire_expr.has_suffix && p->wire_expr.scope < 0x4000u && p->qos == ZM_QOS_DEFAULT &&
           p->body_id == ZM_MID_PUT && !b->has_timestamp && !b->has_encoding && b->exts == 0 && b->unknown.n == 0 &&
           b->payload.len < 0x4000u;
}

static z_result_t push_plain_write(zm_writer_t *w, const zm_push_ref_t *p)
{
    size_t n = p->body->payload.len;
    if (zm_writer_left(w) < 2u + (p->wire_expr.scope < 0x80u ? 1u : 2u) + (n < 0x80u ? 1u : 2u) + n) {
        return ZM_E_NO_SPACE;
    }
    uint8_t *o = w->data + w->len;
    *o++ = (uint8_t)(ZM_MID_N_PUSH | wire_expr_flags(&p->wire_expr));
    o = put_z14(o, p->wire_expr.scope);
    *o++ = ZM_MID_PUT;
    o = put_z14(o, n);
    if (n > 0) { /* an empty payload may have no bytes at all */
        memcpy(o, p->body->payload.ptr, n);
    }
    w->len = (size_t)(o + n - w->data);
    return Z_OK;
}

/* PUSH  |Z|M|N| 0x1d | ~key_scope:z16~ [key_suffix] [qos ext] <PUT or DEL>: a put's, in a
 * single pass into the batch. */
z_result_t zm_push_encode(zm_writer_t *w, const zm_push_ref_t *p)
{
    ZM_ASSERT(p->body_id == ZM_MID_PUT || p->body_id == ZM_MID_DEL);
    if (ZM_ENCODE_FAST && push_plain(p)) {
        return push_plain_write(w, p);
    }
    size_t mark = w->len;
    uint8_t z = p->qos != ZM_QOS_DEFAULT ? ZM_FLAG_Z : 0u;
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_N_PUSH | z | wire_expr_flags(&p->wire_expr))));
    ZM_ENC_TRY(w, mark, zm_wire_expr_write(w, &p->wire_expr));
    if (z) {
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, 0x21, p->qos, false));
    }
    ZM_ENC_TRY(w, mark, zm_put_encode(w, p->body_id, p->body));
    return Z_OK;
}

#if ZM_PUT_HEAD
z_result_t zm_push_head_encode(uint8_t head[ZM_PUSH_HEAD_MAX], const zm_push_ref_t *p, size_t *len)
{
    ZM_ASSERT(p->body_id == ZM_MID_PUT && p->body->payload.len == 0);
    uint8_t buf[ZM_PUSH_HEAD_MAX + 1u]; /* the head and the empty payload's length, a 0 */
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    ZM_TRY(zm_push_encode(&w, p));
    ZM_ASSERT(w.len > 0 && buf[w.len - 1u] == 0);
    *len = w.len - 1u;
    memcpy(head, buf, *len);
    return Z_OK;
}
#endif

#if ZM_ENCODE_DATA_ONLY
/* A DECLARE: the header with its flags, the interest id, the QoS extension, the declaration.
 * PUSHes, the data messages it sends, go out through zm_push_encode. */
z_result_t zm_network_encode(zm_writer_t *w, const zm_network_msg_t *m)
{
    size_t mark = w->len;
    const zm_declare_t *d = &m->body.declare;
    if (m->id != ZM_MID_N_DECLARE || (m->ext.present & ~ZM_NET_EXT_QOS) != 0 || m->ext.unknown.n != 0) {
        return Z_EINVAL;
    }
    uint8_t z = m->ext.present != 0 ? ZM_FLAG_Z : 0u;
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_N_DECLARE | z | (d->has_interest_id ? ZM_DECLARE_FLAG_I : 0u))));
    if (d->has_interest_id) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, d->interest_id));
    }
    if (z) {
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, 0x21, m->ext.qos, false));
    }
    ZM_ENC_TRY(w, mark, zm_declaration_encode(w, &d->decl));
    return Z_OK;
}
#else
/* allowed: the message's extensions (net_ext_allowed), looked up once */
static z_result_t network_encode_body(zm_writer_t *w, const zm_network_msg_t *m, uint16_t allowed, uint8_t z)
{
    switch (m->id) {
    case ZM_MID_N_PUSH: {
        const zm_push_t *p = &m->body.push;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_PUSH | z | wire_expr_flags(&p->wire_expr))));
        ZM_TRY(zm_wire_expr_write(w, &p->wire_expr));
        ZM_TRY(net_exts_write(w, allowed, &m->ext, z));
        if (p->body_id != ZM_MID_PUT && p->body_id != ZM_MID_DEL) {
            return Z_EINVAL;
        }
        return zm_put_encode(w, p->body_id, &p->body.put);
    }
#if ZM_ENCODE_REQUEST
    case ZM_MID_N_REQUEST: {
        const zm_request_t *q = &m->body.request;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_REQUEST | z | wire_expr_flags(&q->wire_expr))));
        ZM_TRY(zm_write_zint(w, q->rid));
        ZM_TRY(zm_wire_expr_write(w, &q->wire_expr));
        ZM_TRY(net_exts_write(w, allowed, &m->ext, z));
        return zm_query_encode(w, &q->query);
    }
#endif
#if ZM_ENCODE_RESPONSE
    case ZM_MID_N_RESPONSE: {
        const zm_response_t *p = &m->body.response;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_RESPONSE | z | wire_expr_flags(&p->wire_expr))));
        ZM_TRY(zm_write_zint(w, p->rid));
        ZM_TRY(zm_wire_expr_write(w, &p->wire_expr));
        ZM_TRY(net_exts_write(w, allowed, &m->ext, z));
        switch (p->body_id) {
        case ZM_MID_REPLY:
            return zm_reply_encode(w, &p->body.reply);
        case ZM_MID_ERR:
            return zm_err_encode(w, &p->body.err);
        default:
            return Z_EINVAL;
        }
    }
#endif
#if ZM_ENCODE_RESPONSE_FINAL
    case ZM_MID_N_RESPONSE_FINAL:
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_RESPONSE_FINAL | z)));
        ZM_TRY(zm_write_zint(w, m->body.response_final.rid));
        return net_exts_write(w, allowed, &m->ext, z);
#endif
#if ZM_ENCODE_INTEREST
    case ZM_MID_N_INTEREST: {
        const zm_interest_t *it = &m->body.interest;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_INTEREST | z | ((it->mode & 0x03u) << 5))));
        ZM_TRY(zm_write_zint(w, it->id));
        if (it->mode != ZM_INTEREST_FINAL) {
            uint8_t opts = it->options;
            if (opts & ZM_INTEREST_R) {
                opts = (uint8_t)(opts & ~(ZM_INTEREST_N | ZM_INTEREST_M));
                opts |= it->wire_expr.has_suffix ? ZM_INTEREST_N : 0u;
                opts |= it->wire_expr.mapping == ZM_MAPPING_SENDER ? ZM_INTEREST_M : 0u;
            }
            ZM_TRY(zm_write_u8(w, opts));
            if (opts & ZM_INTEREST_R) {
                ZM_TRY(zm_wire_expr_write(w, &it->wire_expr));
            }
        }
        return net_exts_write(w, allowed, &m->ext, z);
    }
#endif
    case ZM_MID_N_DECLARE: {
        const zm_declare_t *d = &m->body.declare;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_DECLARE | z | (d->has_interest_id ? ZM_DECLARE_FLAG_I : 0u))));
        if (d->has_interest_id) {
            ZM_TRY(zm_write_zint(w, d->interest_id));
        }
        ZM_TRY(net_exts_write(w, allowed, &m->ext, z));
        return zm_declaration_encode(w, &d->decl);
    }
#if ZM_CODEC_FULL
    case ZM_MID_N_OAM: {
        const zm_oam_t *o = &m->body.oam;
        ZM_TRY(zm_write_u8(w, (uint8_t)(ZM_MID_N_OAM | z | ((o->enc & 0x03u) << 5))));
        ZM_TRY(zm_write_zint(w, o->id));
        ZM_TRY(net_exts_write(w, allowed, &m->ext, z));
        return oam_body_write(w, o);
    }
#endif
    default:
        return Z_EINVAL;
    }
}

z_result_t zm_network_encode(zm_writer_t *w, const zm_network_msg_t *m)
{
    size_t mark = w->len;
    uint16_t allowed = net_ext_allowed(m->id);
    uint8_t z = zm_exts_count(&net_exts, allowed, &m->ext, true) != 0 ? ZM_FLAG_Z : 0u;
    ZM_ENC_TRY(w, mark, network_encode_body(w, m, allowed, z));
    return Z_OK;
}
#endif
