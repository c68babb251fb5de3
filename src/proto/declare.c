/*
 * Declarations, the body of DECLARE: key expressions, subscribers, queryables, liveliness tokens
 * and the D_FINAL that closes an interest's current replies. Undeclarations may name the entity
 * by a key expression in the 0x5F extension; it is kept with has_ext_wire so it re-encodes.
 */
#include <string.h>

#include "proto/codec.h"

#define ZM_DECL_FLAG_N 0x20u
#define ZM_DECL_FLAG_M 0x40u

/* 0x5F body: flags (bit0 suffix, bit1 sender mapping), %scope:z16%, suffix to the end */
static z_result_t ext_wire_read(zm_slice_t body, zm_wire_expr_t *we)
{
    zm_reader_t r;
    uint8_t flags;
    zm_reader_init(&r, body.ptr, body.len);
    uint64_t scope;
    ZM_TRY(zm_read_u8(&r, &flags));
    ZM_TRY(zm_read_zint(&r, &scope));
    we->scope = (uint16_t)scope; /* Rust keeps the low 16 bits here, unlike a WireExpr field */
    we->has_suffix = (flags & 0x01u) != 0;
    we->mapping = (flags & 0x02u) ? ZM_MAPPING_SENDER : ZM_MAPPING_RECEIVER;
    we->suffix = zm_slice(r.ptr, zm_reader_left(&r));
    if (!we->has_suffix && we->suffix.len != 0) {
        return ZM_E_TRAILING;
    }
    return zm_utf8_valid(we->suffix) ? Z_OK : Z_EUTF8;
}

/*
 * What a build that encodes only what it sends declares decides which extensions it writes: the
 * 0x5F one names the entity a U_* undeclares (a build that declares none, a publisher-only one,
 * undeclares key expressions only), the 0x21 one a queryable's info. A declaration carrying one
 * a build cannot write fails to encode (Z_EINVAL) rather than go out without it.
 */

#if ZM_ENCODE_DECL_ENTITIES
static z_result_t ext_wire_write(zm_writer_t *w, const zm_wire_expr_t *we, bool more)
{
    size_t mark = w->len;
    uint8_t flags = (uint8_t)((we->has_suffix ? 0x01u : 0u) |
                              (we->mapping == ZM_MAPPING_SENDER ? 0x02u : 0u));
    size_t body = 1 + zm_zint_len(we->scope) + we->suffix.len;
    if (!zm_fits_u32(body)) {
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(0x5f | (more ? ZM_FLAG_Z : 0u))));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, body));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, flags));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, we->scope));
    ZM_ENC_TRY(w, mark, zm_write_bytes(w, we->suffix.ptr, we->suffix.len));
    return Z_OK;
}
#endif

/* The kinds by what they carry: a D_* but D_FINAL declares an expression; a U_* of an entity may
 * name it by the 0x5F extension; the key expression kinds' ids are z16 (Rust keeps the low 16
 * bits), the others' entity ids (any zint, kept as its low 32 bits). */
static bool kind_declares(uint8_t kind) { return kind <= ZM_DECL_TOKEN && (kind & 1u) == 0; }
static bool kind_undeclares_entity(uint8_t kind)
{
    return kind >= ZM_UNDECL_SUBSCRIBER && kind <= ZM_UNDECL_TOKEN && (kind & 1u) != 0;
}

static z_result_t decl_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_declaration_t *d = ctx;
    uint8_t h = e->header & 0x7f;
    *known = false;
    if (h == 0x5f && kind_undeclares_entity(d->kind)) {
        *known = true;
        d->has_ext_wire = true;
        return ext_wire_read(e->body, &d->wire_expr);
    }
    if (h == 0x21 && d->kind == ZM_DECL_QUERYABLE) {
        *known = true;
        d->has_qbl_info = true;
        d->qbl_complete = (e->z64 & 0x01u) != 0;
        d->qbl_distance = (uint16_t)(e->z64 >> 8);
        return Z_OK;
    }
    return Z_OK;
}

z_result_t zm_declaration_decode(zm_reader_t *r, zm_declaration_t *d)
{
    uint8_t h;
    ZM_TRY(zm_read_u8(r, &h));
    uint8_t kind = ZM_MID(h);
    /* all zero: no id, no expression (receiver mapping), no extension; declarations are off the
     * data path, so one memset rather than a store per field */
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    if (kind > ZM_UNDECL_TOKEN && kind != ZM_DECL_FINAL) {
        r->ptr--;
        return ZM_E_DECL_UNKNOWN;
    }
    if (kind != ZM_DECL_FINAL) {
        uint64_t id;
        ZM_TRY(zm_read_zint(r, &id));
        d->id = kind <= ZM_UNDECL_KEYEXPR ? (uint16_t)id : (uint32_t)id;
    }
    if (kind != ZM_DECL_KEYEXPR && (kind_declares(kind) || kind == ZM_UNDECL_KEYEXPR)) {
        /* D_KEYEXPR has no M flag; U_KEYEXPR keeps it as received, though nothing reads it */
        d->wire_expr.mapping = (h & ZM_DECL_FLAG_M) ? ZM_MAPPING_SENDER : ZM_MAPPING_RECEIVER;
    }
    if (kind_declares(kind)) {
        d->wire_expr.has_suffix = (h & ZM_DECL_FLAG_N) != 0;
        ZM_TRY(zm_wire_expr_read(r, &d->wire_expr));
    }
    return zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, decl_ext, d, &d->unknown);
}

#if !ZM_ENCODE_DECL_ENTITIES
/*
 * A build that declares nothing but key expressions (publishers' and queriers', without
 * subscribers, queryables or tokens) sends D_KEYEXPR, U_KEYEXPR and D_FINAL only, and no
 * extension: those are encoded, any other kind (or an extension) fails (Z_EINVAL).
 */
z_result_t zm_declaration_encode(zm_writer_t *w, const zm_declaration_t *d)
{
    size_t mark = w->len;
    uint8_t kind = d->kind;
    if ((kind > ZM_UNDECL_KEYEXPR && kind != ZM_DECL_FINAL) || d->unknown.n != 0) {
        return Z_EINVAL;
    }
    bool declares = kind == ZM_DECL_KEYEXPR;
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(kind | (declares && d->wire_expr.has_suffix ? ZM_DECL_FLAG_N : 0u))));
    if (kind != ZM_DECL_FINAL) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, (uint16_t)d->id));
    }
    if (declares) {
        ZM_ENC_TRY(w, mark, zm_wire_expr_write(w, &d->wire_expr));
    }
    return Z_OK;
}
#else
z_result_t zm_declaration_encode(zm_writer_t *w, const zm_declaration_t *d)
{
    size_t mark = w->len;
    uint8_t kind = d->kind;
    bool has_wire_ext = d->has_ext_wire && kind_undeclares_entity(kind);
    bool has_info = d->has_qbl_info && kind == ZM_DECL_QUERYABLE;
    unsigned left = (has_wire_ext ? 1u : 0u) + (has_info ? 1u : 0u) + d->unknown.n;
    if ((kind > ZM_UNDECL_TOKEN && kind != ZM_DECL_FINAL) || (has_wire_ext && !ZM_ENCODE_DECL_ENTITIES) ||
        (has_info && !ZM_ENCODE_RESPONSE)) {
        return Z_EINVAL;
    }
    uint8_t h = (uint8_t)(kind | (left ? ZM_FLAG_Z : 0u));
    if (kind_declares(kind)) {
        h |= d->wire_expr.has_suffix ? ZM_DECL_FLAG_N : 0u;
        if (kind != ZM_DECL_KEYEXPR) {
            h |= d->wire_expr.mapping == ZM_MAPPING_SENDER ? ZM_DECL_FLAG_M : 0u;
        }
    }
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    if (kind != ZM_DECL_FINAL) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, kind <= ZM_UNDECL_KEYEXPR ? (uint16_t)d->id : d->id));
    }
    if (kind_declares(kind)) {
        ZM_ENC_TRY(w, mark, zm_wire_expr_write(w, &d->wire_expr));
    }
#if ZM_ENCODE_RESPONSE
    if (has_info) {
        uint64_t info = (d->qbl_complete ? 1u : 0u) | ((uint64_t)d->qbl_distance << 8);
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, 0x21, info, --left > 0));
    }
#endif
#if ZM_ENCODE_DECL_ENTITIES
    if (has_wire_ext) {
        ZM_ENC_TRY(w, mark, ext_wire_write(w, &d->wire_expr, --left > 0));
    }
#endif
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &d->unknown, false));
    return Z_OK;
}
#endif
