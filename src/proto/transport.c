/*
 * Transport messages, the top level of a batch: INIT and OPEN (the handshake), CLOSE,
 * KEEP_ALIVE, FRAME and FRAGMENT (the data path), JOIN (multicast) and transport OAM.
 * A FRAME is only its header here: its network messages follow it in the batch and are walked
 * by batch.c. Every flag and extension is kept explicit in the struct, so decode then encode
 * gives back the input (bits Rust ignores aside); extensions go out in the Rust codec's order.
 */
#include <stddef.h>

#include "proto/codec.h"

#define ZM_INIT_FLAG_A 0x20u
#define ZM_OPEN_FLAG_A 0x20u
#define ZM_OPEN_FLAG_T 0x40u
#define ZM_FRAME_FLAG_R 0x20u
#define ZM_FRAG_FLAG_R 0x20u
#define ZM_FRAG_FLAG_M 0x40u
#define ZM_JOIN_FLAG_T 0x20u
#define ZM_JOIN_FLAG_S 0x40u


/* Transport QoS (FRAME, FRAGMENT, OAM): z64, mandatory; only the priority bits mean anything. */
#define ZM_EXT_T_QOS 0x31u

/* ---- shared pieces ------------------------------------------------------------------------- */

#if ZM_DECODE_NETWORK
/* An SN is any zint on the wire (Rust reads it as a plain integer), then checked against mask. */
static z_result_t sn_read(zm_reader_t *r, uint32_t mask, uint32_t *sn)
{
    const uint8_t *mark = r->ptr;
    uint64_t v;
    ZM_TRY(zm_read_zint(r, &v));
    if (v > mask) {
        r->ptr = mark;
        return ZM_E_SN_RANGE;
    }
    *sn = (uint32_t)v;
    return Z_OK;
}

/* |zid_len(4)|x|x|wai(2)| zid -- INIT and JOIN */
static z_result_t whatami_zid_read(zm_reader_t *r, uint8_t *whatami, zm_zid_t *zid)
{
    uint8_t flags;
    ZM_TRY(zm_read_u8(r, &flags));
    if ((flags & 0x03u) == 0x03u) {
        r->ptr--;
        return ZM_E_WHATAMI;
    }
    *whatami = (uint8_t)(flags & 0x03u);
    return zm_zid_read(r, (uint8_t)((flags >> 4) + 1u), zid);
}

/* [resolution(u8) batch_size(u16 LE)]; Rust keeps the low 6 bits of the resolution. */
static z_result_t size_read(zm_reader_t *r, uint8_t *resolution, uint16_t *batch_size)
{
    ZM_TRY(zm_read_u8(r, resolution));
    *resolution &= 0x3fu;
    return zm_read_u16le(r, batch_size);
}
#endif

static z_result_t whatami_zid_write(zm_writer_t *w, uint8_t whatami, const zm_zid_t *zid)
{
    if (zid->len < 1 || zid->len > 16) {
        return ZM_E_ZID;
    }
    if (whatami > ZM_WAI_CLIENT) {
        return ZM_E_WHATAMI;
    }
    ZM_TRY(zm_write_u8(w, (uint8_t)(((zid->len - 1u) << 4) | whatami)));
    return zm_zid_write(w, zid);
}

static z_result_t size_write(zm_writer_t *w, uint8_t resolution, uint16_t batch_size)
{
    ZM_TRY(zm_write_u8(w, resolution));
    return zm_write_u16le(w, batch_size);
}

static uint8_t z_flag(unsigned exts_written) { return exts_written ? (uint8_t)ZM_FLAG_Z : 0u; }

/* ---- INIT  |Z|S|A| 0x01 | version | zid_len|x|x|wai | zid | [res batch] | [cookie] | [exts] - */

#define EXT(h, kind, bit, type, field) {(h), (kind), (bit), (uint8_t)offsetof(type, field)}

/*
 * Of the INIT and OPEN extensions, zmote takes and announces INIT's QoS and patch level, and
 * with user/password authentication both messages' Auth. A build without the complete codec
 * knows no other: the rest are unknown to it, kept or skipped as such (none is mandatory), with
 * the same outcome, as nothing of them was read.
 */
static const zm_ext_spec_t init_ext_spec[] = {
#if ZM_CODEC_FULL
    EXT(0x01, ZM_EXTV_UNIT, 0, zm_init_t, exts),        EXT(0x21, ZM_EXTV_U64, 1, zm_init_t, qos_link),
    EXT(0x42, ZM_EXTV_ZBUF, 2, zm_init_t, shm),         EXT(0x43, ZM_EXTV_ZBUF, 3, zm_init_t, auth),
    EXT(0x44, ZM_EXTV_ZBUF, 4, zm_init_t, mlink),       EXT(0x05, ZM_EXTV_UNIT, 5, zm_init_t, exts),
    EXT(0x06, ZM_EXTV_UNIT, 6, zm_init_t, exts),        EXT(0x27, ZM_EXTV_U64, 7, zm_init_t, patch),
    EXT(0x48, ZM_EXTV_ZBUF, 8, zm_init_t, region),
#else
    EXT(0x01, ZM_EXTV_UNIT, 0, zm_init_t, exts),
#if ZM_CODEC_AUTH
    EXT(0x43, ZM_EXTV_ZBUF, 3, zm_init_t, auth),
#endif
    EXT(0x27, ZM_EXTV_U64, 7, zm_init_t, patch),
#endif
};
static const zm_ext_table_t init_exts = {init_ext_spec, ZM_ARRAY_LEN(init_ext_spec),
                                         offsetof(zm_init_t, exts), offsetof(zm_init_t, unknown)};

#if ZM_DECODE_NETWORK
static z_result_t init_decode(zm_reader_t *r, uint8_t h, zm_init_t *m)
{
    memset(m, 0, sizeof(*m));
    m->ack = (h & ZM_INIT_FLAG_A) != 0;
    m->has_size = (h & ZM_INIT_FLAG_S) != 0;
    m->resolution = ZM_RESOLUTION_DEFAULT;
    m->batch_size = ZM_BATCH_DEFAULT;
    ZM_TRY(zm_read_u8(r, &m->version));
    ZM_TRY(whatami_zid_read(r, &m->whatami, &m->zid));
    if (m->has_size) {
        ZM_TRY(size_read(r, &m->resolution, &m->batch_size));
    }
    if (m->ack) {
        ZM_TRY(zm_read_zbytes(r, UINT16_MAX, &m->cookie));
    }
    return zm_exts_read(r, h, &init_exts, 0xffffu, m, 0);
}
#endif

static z_result_t init_encode(zm_writer_t *w, const zm_init_t *m)
{
    size_t mark = w->len;
    unsigned left = zm_exts_count(&init_exts, 0xffffu, m, ZM_CODEC_FULL);
    if (m->ack && (!ZM_ENCODE_ACKS || m->cookie.len > UINT16_MAX)) {
        return Z_EINVAL;
    }
    bool ack = ZM_ENCODE_ACKS && m->ack;
    uint8_t h = (uint8_t)(ZM_MID_INIT | (ack ? ZM_INIT_FLAG_A : 0u) |
                          (m->has_size ? ZM_INIT_FLAG_S : 0u) | z_flag(left));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, m->version));
    ZM_ENC_TRY(w, mark, whatami_zid_write(w, m->whatami, &m->zid));
    if (m->has_size) {
        ZM_ENC_TRY(w, mark, size_write(w, m->resolution, m->batch_size));
    }
    if (ack) {
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, m->cookie.ptr, m->cookie.len));
    }
    if (left) {
        ZM_ENC_TRY(w, mark, zm_exts_write(w, &init_exts, 0xffffu, m, ZM_CODEC_FULL));
    }
    return Z_OK;
}

z_result_t zm_init_syn_encode(zm_writer_t *w, uint8_t whatami, const zm_zid_t *zid, uint16_t batch_size, bool qos)
{
    if (zid->len < 1 || zid->len > 16) {
        return ZM_E_ZID;
    }
    if (whatami > ZM_WAI_CLIENT) {
        return ZM_E_WHATAMI;
    }
    /* header, version, whatami and zid, [sizes], [QoS: a unit], patch level 1: a one-byte z64 */
    size_t n = 3u + zid->len + (batch_size != ZM_BATCH_DEFAULT ? 3u : 0u) + (qos ? 1u : 0u) + 2u;
    if (zm_writer_left(w) < n) {
        return ZM_E_NO_SPACE;
    }
    w->len += zm_init_syn_put(w->data + w->len, whatami, zid, batch_size, qos);
    return Z_OK;
}

/* ---- OPEN  |Z|T|A| 0x02 | %lease% | %initial_sn% | [<cookie;usize>] if syn | [exts] -------- */

/* MultiLink is a body in a syn (0x44) and a bare marker in an ack (0x04); SHM is 1.10.2's zbuf
 * 0x42, the z64 0x22 of other versions stays unknown. */
#if ZM_CODEC_FULL
static const zm_ext_spec_t open_ext_spec[] = {
    EXT(0x01, ZM_EXTV_UNIT, 0, zm_open_t, exts),        EXT(0x42, ZM_EXTV_ZBUF, 1, zm_open_t, shm),
    EXT(0x43, ZM_EXTV_ZBUF, 2, zm_open_t, auth),        EXT(0x44, ZM_EXTV_ZBUF, 3, zm_open_t, mlink),
    EXT(0x04, ZM_EXTV_UNIT, 3, zm_open_t, exts),        EXT(0x05, ZM_EXTV_UNIT, 4, zm_open_t, exts),
    EXT(0x06, ZM_EXTV_UNIT, 5, zm_open_t, exts),        EXT(0x27, ZM_EXTV_U64, 6, zm_open_t, remote_bound),
};
static const zm_ext_table_t open_exts = {open_ext_spec, ZM_ARRAY_LEN(open_ext_spec),
                                         offsetof(zm_open_t, exts), offsetof(zm_open_t, unknown)};
#define OPEN_SYN_ENTRIES 0xefu /* all but the ack's 0x04 */
#define OPEN_ACK_ENTRIES 0xf7u /* all but the syn's 0x44 */
#elif ZM_CODEC_AUTH /* Auth alone */
static const zm_ext_spec_t open_ext_spec[] = {EXT(0x43, ZM_EXTV_ZBUF, 2, zm_open_t, auth)};
static const zm_ext_table_t open_exts = {open_ext_spec, ZM_ARRAY_LEN(open_ext_spec),
                                         offsetof(zm_open_t, exts), offsetof(zm_open_t, unknown)};
#define OPEN_SYN_ENTRIES 0x01u
#define OPEN_ACK_ENTRIES 0x01u
#else /* none known, none announced */
static const zm_ext_table_t open_exts = {NULL, 0, offsetof(zm_open_t, exts), offsetof(zm_open_t, unknown)};
#define OPEN_SYN_ENTRIES 0u
#define OPEN_ACK_ENTRIES 0u
#endif

#if ZM_DECODE_NETWORK
static z_result_t open_decode(zm_reader_t *r, uint8_t h, uint32_t sn_mask, zm_open_t *m)
{
    memset(m, 0, sizeof(*m));
    m->ack = (h & ZM_OPEN_FLAG_A) != 0;
    m->lease_secs = (h & ZM_OPEN_FLAG_T) != 0;
    ZM_TRY(zm_read_zint(r, &m->lease));
    ZM_TRY(sn_read(r, sn_mask, &m->initial_sn));
    if (!m->ack) {
        ZM_TRY(zm_read_zbytes(r, SIZE_MAX, &m->cookie));
    }
    return zm_exts_read(r, h, &open_exts, m->ack ? OPEN_ACK_ENTRIES : OPEN_SYN_ENTRIES, m, 0);
}
#endif

static z_result_t open_encode(zm_writer_t *w, const zm_open_t *m)
{
    size_t mark = w->len;
    if (m->ack && !ZM_ENCODE_ACKS) {
        return Z_EINVAL;
    }
    bool ack = ZM_ENCODE_ACKS && m->ack;
    uint16_t entries = ack ? OPEN_ACK_ENTRIES : OPEN_SYN_ENTRIES;
    unsigned left = ZM_CODEC_AUTH ? zm_exts_count(&open_exts, entries, m, true) : 0u; /* else none known */
    uint8_t h = (uint8_t)(ZM_MID_OPEN | (ack ? ZM_OPEN_FLAG_A : 0u) |
                          (m->lease_secs ? ZM_OPEN_FLAG_T : 0u) | z_flag(left));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->lease));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->initial_sn));
    if (!ack) {
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, m->cookie.ptr, m->cookie.len));
    }
    if (left) {
        ZM_ENC_TRY(w, mark, zm_exts_write(w, &open_exts, entries, m, true));
    }
    return Z_OK;
}

z_result_t zm_open_syn_encode(zm_writer_t *w, bool lease_secs, uint64_t lease, uint32_t initial_sn, zm_slice_t cookie)
{
    size_t mark = w->len;
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_OPEN | (lease_secs ? ZM_OPEN_FLAG_T : 0u))));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, lease));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, initial_sn));
    ZM_ENC_TRY(w, mark, zm_write_zbytes(w, cookie.ptr, cookie.len));
    return Z_OK;
}

/* ---- CLOSE  |Z|X|S| 0x03 | reason(u8) | [exts]   and   KEEP_ALIVE  |Z|X|X| 0x04 | [exts] -- */

/* They know no extension: the reader keeps or skips whatever comes. */
#if ZM_DECODE_NETWORK
static const zm_ext_table_t close_exts = {NULL, 0, offsetof(zm_close_t, exts), offsetof(zm_close_t, unknown)};
static const zm_ext_table_t keep_alive_exts = {NULL, 0, offsetof(zm_keep_alive_t, exts),
                                               offsetof(zm_keep_alive_t, unknown)};

static z_result_t close_decode(zm_reader_t *r, uint8_t h, zm_close_t *m)
{
    m->session = (h & ZM_CLOSE_FLAG_S) != 0;
    ZM_TRY(zm_read_u8(r, &m->reason));
    return zm_exts_read(r, h, &close_exts, 0, m, 0);
}

static z_result_t keep_alive_decode(zm_reader_t *r, uint8_t h, zm_keep_alive_t *m)
{
    return zm_exts_read(r, h, &keep_alive_exts, 0, m, 0);
}
#endif

z_result_t zm_close_encode(zm_writer_t *w, const zm_close_t *m)
{
    size_t mark = w->len;
    uint8_t h = (uint8_t)(ZM_MID_CLOSE | (m->session ? ZM_CLOSE_FLAG_S : 0u) | z_flag(m->unknown.n));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, m->reason));
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    return Z_OK;
}

z_result_t zm_keep_alive_encode(zm_writer_t *w, const zm_keep_alive_t *m)
{
    size_t mark = w->len;
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_KEEP_ALIVE | z_flag(m->unknown.n))));
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    return Z_OK;
}

/* ---- FRAME  |Z|X|R| 0x05 | %sn% | [0x31 QoS] | network messages follow --------------------- */

#if ZM_DECODE_NETWORK /* as every build that decodes fragments or JOINs */
static void unknown_clear(zm_ext_unknown_t *u)
{
    u->n = 0;
    u->dropped = 0;
}

static z_result_t frame_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_frame_t *m = ctx;
    *known = (e->header & 0x7fu) == ZM_EXT_T_QOS;
    if (*known) {
        m->has_qos = true;
        m->qos = (uint8_t)e->z64; /* Rust keeps the low byte */
    }
    return Z_OK;
}

static z_result_t frame_decode(zm_reader_t *r, uint8_t h, uint32_t sn_mask, zm_frame_t *m)
{
    unknown_clear(&m->unknown);
    m->reliable = (h & ZM_FRAME_FLAG_R) != 0;
    m->has_qos = false;
    m->qos = ZM_PRIO_DATA;
    ZM_TRY(sn_read(r, sn_mask, &m->sn));
    return zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, frame_ext, m, &m->unknown);
}
#endif

#if ZM_ENCODE_FAST
/* The SN's zint, written in one piece: all five bytes a 32-bit value may take, of which the
 * first returned count are its zint (the same bytes as zm_zint_put's), the rest scratch. */
static size_t sn_put(uint8_t *out, uint32_t sn)
{
    size_t n = 1u + (sn >= 1u << 7) + (sn >= 1u << 14) + (sn >= 1u << 21) + (sn >= 1u << 28);
    out[0] = (uint8_t)(sn | 0x80u);
    out[1] = (uint8_t)((sn >> 7) | 0x80u);
    out[2] = (uint8_t)((sn >> 14) | 0x80u);
    out[3] = (uint8_t)((sn >> 21) | 0x80u);
    out[4] = (uint8_t)(sn >> 28);
    out[n - 1] &= 0x7fu; /* its last byte: the continuation flag off */
    return n;
}
#else
#define sn_put(out, sn) zm_zint_put(out, sn) /* a build for size: one zint writer */
#endif

/* What a transport sends: no extension but QoS, whose value (a priority) is a one-byte zint.
 * With scratch, out has room for ZM_FRAME_HEADER_MAX bytes. */
static size_t header_put(uint8_t *out, bool reliable, uint32_t sn, bool has_qos, uint8_t prio, bool scratch)
{
    out[0] = (uint8_t)(ZM_MID_FRAME | (reliable ? ZM_FRAME_FLAG_R : 0u) | (has_qos ? ZM_FLAG_Z : 0u));
    size_t n = 1u + (ZM_ENCODE_FAST && scratch ? sn_put(out + 1, sn) : zm_zint_put(out + 1, sn));
    if (has_qos) {
        out[n++] = ZM_EXT_T_QOS;
        out[n++] = (uint8_t)(prio & 7u);
    }
    return n;
}

size_t zm_frame_header_put(uint8_t *out, bool reliable, uint32_t sn, bool has_qos, uint8_t prio)
{
    return header_put(out, reliable, sn, has_qos, prio, true);
}

z_result_t zm_frame_header_encode(zm_writer_t *w, bool reliable, uint32_t sn, bool has_qos, uint8_t prio)
{
    if (zm_writer_left(w) < 1u + zm_zint_len(sn) + (has_qos ? 2u : 0u)) {
        return ZM_E_NO_SPACE;
    }
    /* no room for scratch, maybe (a build for size has one writer: zm_frame_header_put's) */
    w->len += ZM_ENCODE_FAST ? header_put(w->data + w->len, reliable, sn, has_qos, prio, false)
                             : zm_frame_header_put(w->data + w->len, reliable, sn, has_qos, prio);
    return Z_OK;
}

z_result_t zm_frame_encode(zm_writer_t *w, const zm_frame_t *m)
{
    size_t mark = w->len;
    unsigned left = (m->has_qos ? 1u : 0u) + m->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_FRAME | (m->reliable ? ZM_FRAME_FLAG_R : 0u) | z_flag(left));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->sn));
    if (m->has_qos) {
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, ZM_EXT_T_QOS, m->qos, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    return Z_OK;
}

/* ---- FRAGMENT  |Z|M|R| 0x06 | %sn% | [0x31 QoS, 0x02 First, 0x03 Drop] | payload = the rest - */

#if ZM_DECODE_FRAGMENT
static z_result_t fragment_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_fragment_t *m = ctx;
    *known = true;
    switch (e->header & 0x7fu) {
    case ZM_EXT_T_QOS:
        m->has_qos = true;
        m->qos = (uint8_t)e->z64;
        break;
    case 0x02:
        m->first = true;
        break;
    case 0x03:
        m->drop = true;
        break;
    default:
        *known = false;
        break;
    }
    return Z_OK;
}

static z_result_t fragment_decode(zm_reader_t *r, uint8_t h, uint32_t sn_mask, zm_fragment_t *m)
{
    unknown_clear(&m->unknown);
    m->reliable = (h & ZM_FRAG_FLAG_R) != 0;
    m->more = (h & ZM_FRAG_FLAG_M) != 0;
    m->has_qos = false;
    m->qos = ZM_PRIO_DATA;
    m->first = false;
    m->drop = false;
    ZM_TRY(sn_read(r, sn_mask, &m->sn));
    ZM_TRY(zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, fragment_ext, m, &m->unknown));
    return zm_read_bytes(r, zm_reader_left(r), &m->payload);
}
#endif

z_result_t zm_fragment_encode(zm_writer_t *w, const zm_fragment_t *m)
{
    size_t mark = w->len;
    unsigned left = (m->has_qos ? 1u : 0u) + (m->first ? 1u : 0u) + (m->drop ? 1u : 0u) + m->unknown.n;
    uint8_t h = (uint8_t)(ZM_MID_FRAGMENT | (m->reliable ? ZM_FRAG_FLAG_R : 0u) |
                          (m->more ? ZM_FRAG_FLAG_M : 0u) | z_flag(left));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->sn));
    if (m->has_qos) {
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, ZM_EXT_T_QOS, m->qos, --left > 0));
    }
    if (m->first) {
        ZM_ENC_TRY(w, mark, zm_ext_write_unit(w, 0x02, --left > 0));
    }
    if (m->drop) {
        ZM_ENC_TRY(w, mark, zm_ext_write_unit(w, 0x03, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    ZM_ENC_TRY(w, mark, zm_write_bytes(w, m->payload.ptr, m->payload.len));
    return Z_OK;
}

/* ---- JOIN  |Z|S|T| 0x07 | version | zid_len|x|x|wai | zid | [res batch] | %lease% ----------
 *            %next_sn_reliable% %next_sn_best_effort% | [exts]                                 */

#if ZM_CODEC_MULTICAST
/* 0x51 is one (reliable, best-effort) pair of next SNs per priority, nothing more. */
static const zm_ext_spec_t join_ext_spec[] = {
    EXT(0x51, ZM_EXTV_SN_PAIRS, 0, zm_join_t, qos_sns),
    EXT(0x52, ZM_EXTV_ZBUF, 1, zm_join_t, shm),
    EXT(0x27, ZM_EXTV_U64, 2, zm_join_t, patch),
};
static const zm_ext_table_t join_exts = {join_ext_spec, ZM_ARRAY_LEN(join_ext_spec),
                                         offsetof(zm_join_t, exts), offsetof(zm_join_t, unknown)};

static z_result_t join_decode(zm_reader_t *r, uint8_t h, uint32_t sn_mask, zm_join_t *m)
{
    memset(m, 0, sizeof(*m));
    m->lease_secs = (h & ZM_JOIN_FLAG_T) != 0;
    m->has_size = (h & ZM_JOIN_FLAG_S) != 0;
    m->resolution = ZM_RESOLUTION_DEFAULT;
    m->batch_size = ZM_JOIN_BATCH_DEFAULT;
    ZM_TRY(zm_read_u8(r, &m->version));
    ZM_TRY(whatami_zid_read(r, &m->whatami, &m->zid));
    if (m->has_size) {
        ZM_TRY(size_read(r, &m->resolution, &m->batch_size));
    }
    ZM_TRY(zm_read_zint(r, &m->lease));
    ZM_TRY(sn_read(r, sn_mask, &m->next_sn_reliable));
    ZM_TRY(sn_read(r, sn_mask, &m->next_sn_best_effort));
    return zm_exts_read(r, h, &join_exts, 0xffffu, m, sn_mask);
}

static z_result_t join_encode(zm_writer_t *w, const zm_join_t *m)
{
    size_t mark = w->len;
    unsigned left = zm_exts_count(&join_exts, 0xffffu, m, true);
    uint8_t h = (uint8_t)(ZM_MID_JOIN | (m->lease_secs ? ZM_JOIN_FLAG_T : 0u) |
                          (m->has_size ? ZM_JOIN_FLAG_S : 0u) | z_flag(left));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, m->version));
    ZM_ENC_TRY(w, mark, whatami_zid_write(w, m->whatami, &m->zid));
    if (m->has_size) {
        ZM_ENC_TRY(w, mark, size_write(w, m->resolution, m->batch_size));
    }
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->lease));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->next_sn_reliable));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->next_sn_best_effort));
    if (left) {
        ZM_ENC_TRY(w, mark, zm_exts_write(w, &join_exts, 0xffffu, m, true));
    }
    return Z_OK;
}
#endif

/* ---- OAM  |Z|ENC(2)| 0x00 | %id:z16% | [0x31 QoS] | body per ENC: - / %z64% / <bytes;z32> - */

#if ZM_CODEC_MULTICAST
static z_result_t oam_ext(void *ctx, const zm_ext_t *e, bool *known)
{
    zm_oam_t *m = ctx;
    *known = (e->header & 0x7fu) == ZM_EXT_T_QOS;
    if (*known) {
        m->has_qos = true;
        m->qos = (uint8_t)e->z64;
    }
    return Z_OK;
}

static z_result_t oam_decode(zm_reader_t *r, uint8_t h, zm_oam_t *m)
{
    memset(m, 0, sizeof(*m));
    m->enc = (uint8_t)((h >> 5) & 0x03u);
    m->qos = ZM_PRIO_DATA;
    if (m->enc > ZM_OAM_ZBUF) {
        r->ptr--;
        return ZM_E_EXT_ENCODING;
    }
    ZM_TRY(zm_read_z16(r, &m->id));
    ZM_TRY(zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, oam_ext, m, &m->unknown));
    if (m->enc == ZM_OAM_Z64) {
        return zm_read_zint(r, &m->z64);
    }
    if (m->enc == ZM_OAM_ZBUF) {
        return zm_read_zbytes(r, UINT32_MAX, &m->zbuf);
    }
    return Z_OK;
}
#endif

#if ZM_CODEC_FULL
static z_result_t oam_encode(zm_writer_t *w, const zm_oam_t *m)
{
    size_t mark = w->len;
    unsigned left = (m->has_qos ? 1u : 0u) + m->unknown.n;
    if (m->enc > ZM_OAM_ZBUF || (m->enc == ZM_OAM_ZBUF && !zm_fits_u32(m->zbuf.len))) {
        return Z_EINVAL;
    }
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_T_OAM | (m->enc << 5) | z_flag(left))));
    ZM_ENC_TRY(w, mark, zm_write_zint(w, m->id));
    if (m->has_qos) {
        ZM_ENC_TRY(w, mark, zm_ext_write_z64(w, ZM_EXT_T_QOS, m->qos, --left > 0));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    if (m->enc == ZM_OAM_Z64) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, m->z64));
    } else if (m->enc == ZM_OAM_ZBUF) {
        ZM_ENC_TRY(w, mark, zm_write_zbytes(w, m->zbuf.ptr, m->zbuf.len));
    }
    return Z_OK;
}
#endif

/* ---- dispatch ------------------------------------------------------------------------------- */

#if ZM_DECODE_NETWORK
z_result_t zm_transport_decode(zm_reader_t *r, uint32_t sn_mask, zm_transport_msg_t *m)
{
    uint8_t h;
    ZM_TRY(zm_read_u8(r, &h));
    m->id = ZM_MID(h);
    switch (m->id) {
    /* the receiver reads no further than the first byte of one this build does not decode */
#if ZM_CODEC_MULTICAST
    case ZM_MID_T_OAM:
        return oam_decode(r, h, &m->body.oam);
#endif
    case ZM_MID_FRAME:
        return frame_decode(r, h, sn_mask, &m->body.frame);
#if ZM_DECODE_FRAGMENT
    case ZM_MID_FRAGMENT:
        return fragment_decode(r, h, sn_mask, &m->body.fragment);
#endif
    case ZM_MID_INIT:
        return init_decode(r, h, &m->body.init);
    case ZM_MID_OPEN:
        return open_decode(r, h, sn_mask, &m->body.open);
    case ZM_MID_CLOSE:
        return close_decode(r, h, &m->body.close);
    case ZM_MID_KEEP_ALIVE:
        return keep_alive_decode(r, h, &m->body.keep_alive);
#if ZM_CODEC_MULTICAST /* else unexpected wherever it comes */
    case ZM_MID_JOIN:
        return join_decode(r, h, sn_mask, &m->body.join);
#endif
    default:
        r->ptr--;
        return ZM_E_MSG_UNKNOWN;
    }
}
#else
/*
 * The lean decoder: each message's fields read in place, with the errors of the decoders above
 * (bytes that run out, a length past its bound, a whatami of 3, a zid of zeros, an SN past the
 * mask, an extension of encoding 3 or an unknown mandatory one). Of the extensions it knows
 * INIT's QoS and patch level, and INIT's and OPEN's Auth with user/password authentication; the
 * others are skipped, not kept, as nothing here encodes a
 * decoded message again. The reader is left anywhere on error.
 */
static z_result_t lean_zbytes(zm_reader_t *r, size_t max, zm_slice_t *out)
{
    uint64_t n;
    ZM_TRY(zm_read_zint_slow(r, &n));
    if (n > max) {
        return ZM_E_ZINT_OVERFLOW;
    }
    if (n > zm_reader_left(r)) {
        return ZM_E_TRUNCATED;
    }
    out->ptr = r->ptr;
    out->len = (size_t)n;
    r->ptr += n;
    return Z_OK;
}

z_result_t zm_transport_decode(zm_reader_t *r, uint32_t sn_mask, zm_transport_msg_t *m)
{
    if (r->ptr >= r->end) {
        return ZM_E_TRUNCATED;
    }
    uint8_t h = *r->ptr++;
    bool a = (h & ZM_FLAG_1) != 0; /* INIT's and OPEN's ack, CLOSE's session */
    zm_init_t *init = NULL;
    zm_slice_t body;
    uint64_t v;
    m->id = ZM_MID(h);
    memset(&m->body, 0, sizeof(zm_init_t)); /* the largest of the four */
    switch (m->id) {
    case ZM_MID_INIT: {
        init = &m->body.init;
        init->ack = a;
        init->has_size = (h & ZM_INIT_FLAG_S) != 0;
        init->resolution = ZM_RESOLUTION_DEFAULT;
        init->batch_size = ZM_BATCH_DEFAULT;
        /* version, |zid_len(4)|x|x|wai(2)|, zid */
        if (zm_reader_left(r) < 2) {
            return ZM_E_TRUNCATED;
        }
        const uint8_t *p = r->ptr;
        init->version = p[0];
        if ((p[1] & 0x03u) == 0x03u) {
            return ZM_E_WHATAMI;
        }
        init->whatami = (uint8_t)(p[1] & 0x03u);
        uint8_t len = (uint8_t)((p[1] >> 4) + 1u);
        if (zm_reader_left(r) - 2u < len) {
            return ZM_E_TRUNCATED;
        }
        p += 2;
        memcpy(init->zid.id, p, len); /* behind it, the rest of the 16 bytes stays 0 (the memset) */
        if (zm_zid_trim(init->zid.id) == 0) {
            return ZM_E_ZID; /* a zid is a nonzero u128 */
        }
        init->zid.len = len;
        p += len;
        if (init->has_size) { /* resolution (Rust keeps its low 6 bits), batch size (u16 LE) */
            if ((size_t)(r->end - p) < 3u) {
                return ZM_E_TRUNCATED;
            }
            init->resolution = (uint8_t)(p[0] & 0x3fu);
            init->batch_size = (uint16_t)(p[1] | (p[2] << 8));
            p += 3;
        }
        r->ptr = p;
        if (a) {
            ZM_TRY(lean_zbytes(r, UINT16_MAX, &init->cookie));
        }
        break;
    }
    case ZM_MID_OPEN: {
        zm_open_t *open = &m->body.open;
        open->ack = a;
        open->lease_secs = (h & ZM_OPEN_FLAG_T) != 0;
        ZM_TRY(zm_read_zint_slow(r, &open->lease));
        ZM_TRY(zm_read_zint_slow(r, &v));
        if (v > sn_mask) {
            return ZM_E_SN_RANGE;
        }
        open->initial_sn = (uint32_t)v;
        if (!a) {
            ZM_TRY(lean_zbytes(r, SIZE_MAX, &open->cookie));
        }
        break;
    }
    case ZM_MID_CLOSE:
        m->body.close.session = a;
        if (r->ptr >= r->end) {
            return ZM_E_TRUNCATED;
        }
        m->body.close.reason = *r->ptr++;
        break;
    case ZM_MID_KEEP_ALIVE:
        break;
    default:
        return ZM_E_MSG_UNKNOWN;
    }
    /* extensions: |Z|ENC(2)|M|ID(4)| + body */
    for (bool more = (h & ZM_FLAG_Z) != 0; more;) {
        if (r->ptr >= r->end) {
            return ZM_E_TRUNCATED;
        }
        uint8_t e = *r->ptr++;
        more = (e & ZM_FLAG_Z) != 0;
        v = 0;
        switch (e & ZM_EXT_ENC_MASK) {
        case ZM_EXT_ENC_UNIT:
            break;
        case ZM_EXT_ENC_Z64:
            ZM_TRY(zm_read_zint_slow(r, &v));
            break;
        case ZM_EXT_ENC_ZBUF:
            ZM_TRY(lean_zbytes(r, UINT32_MAX, &body));
            break;
        default:
            return ZM_E_EXT_ENCODING;
        }
        if (init != NULL && (e & 0x7fu) == 0x01u) {
            init->exts |= ZM_INIT_EXT_QOS;
        } else if (init != NULL && (e & 0x7fu) == 0x27u) {
            init->exts |= ZM_INIT_EXT_PATCH;
            init->patch = v;
        /* the opener reads the acks' Auth */
        ZM_IF_USRPWD(
            } else if (init != NULL && (e & 0x7fu) == 0x43u) {
                init->exts |= ZM_INIT_EXT_AUTH;
                init->auth = body;
            } else if (m->id == ZM_MID_OPEN && (e & 0x7fu) == 0x43u) {
                m->body.open.exts |= ZM_OPEN_EXT_AUTH;
                m->body.open.auth = body;
        )
        } else if (e & ZM_EXT_M) {
            return ZM_E_EXT_MANDATORY;
        }
    }
    return Z_OK;
}
#endif

z_result_t zm_transport_encode(zm_writer_t *w, const zm_transport_msg_t *m)
{
    switch (m->id) {
    case ZM_MID_INIT:
        return init_encode(w, &m->body.init);
    case ZM_MID_OPEN:
        return open_encode(w, &m->body.open);
#if ZM_CODEC_FULL /* a transport sends the others through their own encoders */
    case ZM_MID_T_OAM:
        return oam_encode(w, &m->body.oam);
    case ZM_MID_CLOSE:
        return zm_close_encode(w, &m->body.close);
    case ZM_MID_KEEP_ALIVE:
        return zm_keep_alive_encode(w, &m->body.keep_alive);
    case ZM_MID_FRAME:
        return zm_frame_encode(w, &m->body.frame);
    case ZM_MID_FRAGMENT:
        return zm_fragment_encode(w, &m->body.fragment);
#endif
#if ZM_CODEC_MULTICAST
    case ZM_MID_JOIN:
        return join_encode(w, &m->body.join);
#endif
    default:
        return ZM_E_MSG_UNKNOWN;
    }
}

const char *zm_close_reason_name(uint8_t reason)
{
    switch (reason) {
    case ZM_CLOSE_GENERIC:
        return "generic";
    case ZM_CLOSE_UNSUPPORTED:
        return "unsupported";
    case ZM_CLOSE_INVALID:
        return "invalid";
    case ZM_CLOSE_MAX_SESSIONS:
        return "max sessions";
    case ZM_CLOSE_MAX_LINKS:
        return "max links";
    case ZM_CLOSE_EXPIRED:
        return "expired";
    case ZM_CLOSE_UNRESPONSIVE:
        return "unresponsive";
    case ZM_CLOSE_CONNECTION_TO_SELF:
        return "connection to self";
    default:
        return "unknown";
    }
}
