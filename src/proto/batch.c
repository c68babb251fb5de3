/*
 * Stream framing and batch iteration. A stream link carries batches behind a 2-byte
 * little-endian length; a batch is transport messages back to back, and after a FRAME come
 * network messages until a byte outside the network namespace or the end of the batch.
 * The iterator hands them out one at a time so nothing is collected or copied.
 */
#include "proto/codec.h"

z_result_t zm_stream_next(zm_reader_t *r, zm_slice_t *batch)
{
    const uint8_t *mark = r->ptr;
    uint16_t len;
    ZM_TRY(zm_read_u16le(r, &len));
    if (zm_reader_left(r) < len) {
        r->ptr = mark; /* a partial batch: wait for more bytes, then call again */
        return ZM_E_TRUNCATED;
    }
    return zm_read_bytes(r, len, batch);
}

void zm_batch_iter_init(zm_batch_iter_t *it, const uint8_t *batch, size_t len, uint32_t sn_mask)
{
    zm_reader_init(&it->r, batch, len);
    it->sn_mask = sn_mask;
    it->in_frame = false;
}

#if ZM_DECODE_PUSH_PLAIN
/*
 * The PUSH of a stream of samples, decoded straight: a key named by an id alone (one
 * byte), no extension, a PUT without timestamp, encoding nor extension. true when the message is
 * one: m holds what zm_network_decode makes of the same bytes, and the reader is past it; false
 * leaves the reader where it was, for zm_network_decode (so that its errors, too, are unchanged).
 */
static bool push_plain(zm_reader_t *r, zm_network_msg_t *m)
{
    const uint8_t *b = r->ptr;
    size_t left = zm_reader_left(r);
    /* |0|M|0| PUSH | scope < 0x80 | |0|0|0| PUT | <payload;z32>: the N and Z flags clear, and the
     * payload's length in one byte or two (below 16 KiB) */
    if (left < 4 || (b[0] & 0xbfu) != ZM_MID_N_PUSH || b[1] >= 0x80u || b[2] != ZM_MID_PUT) {
        return false;
    }
    size_t at = 4, n = b[3];
    if (n >= 0x80u) {
        if (left < 5 || b[4] >= 0x80u) {
            return false;
        }
        n = (n & 0x7fu) | ((size_t)b[4] << 7);
        at = 5;
    }
    if (left - at < n) {
        return false;
    }
    zm_push_t *p = &m->body.push;
    p->body.put.payload = zm_slice(b + at, n);
    r->ptr = b + at + n;
    m->id = ZM_MID_N_PUSH;
    m->ext.present = 0;
    m->ext.unknown.n = 0;
    m->ext.unknown.dropped = 0;
    p->wire_expr.scope = b[1];
    p->wire_expr.mapping = (b[0] & 0x40u) ? ZM_MAPPING_SENDER : ZM_MAPPING_RECEIVER;
    p->wire_expr.has_suffix = false;
    p->wire_expr.suffix = zm_slice(NULL, 0);
    p->body_id = ZM_MID_PUT;
    zm_put_t *put = &p->body.put;
    put->has_timestamp = false;
    put->has_encoding = false;
    put->encoding.id = 0;
    put->encoding.has_schema = false;
    put->encoding.schema = zm_slice(NULL, 0);
    put->exts = 0;
    put->attachment = zm_slice(NULL, 0);
    put->unknown.n = 0;
    put->unknown.dropped = 0;
    return true;
}
#endif

/*
 * The header of a FRAME without extension, decoded straight: its SN in up to 4 bytes, read as
 * one word. true when the header is one: *sn and *reliable are what zm_transport_decode makes of
 * the same bytes, and the reader is past it; false leaves the reader where it was, for
 * zm_transport_decode (and its errors).
 */
static bool frame_head_plain(zm_reader_t *r, uint32_t sn_mask, uint32_t *sn, bool *reliable)
{
    const uint8_t *b = r->ptr;
    /* |0|X|R| FRAME |: the Z flag clear; and a network message's header at least after the SN */
    if (zm_reader_left(r) < 5 || (b[0] & 0x9fu) != ZM_MID_FRAME) {
        return false;
    }
    uint32_t w = (uint32_t)b[1] | ((uint32_t)b[2] << 8) | ((uint32_t)b[3] << 16) | ((uint32_t)b[4] << 24);
    uint32_t ends = ~w & 0x80808080u; /* the bytes without the continuation flag */
    if (ends == 0) {
        return false;
    }
    uint32_t last = ends & (0u - ends); /* the flag of the SN's last byte */
    w &= (last - 1u) & 0x7f7f7f7fu;     /* its bytes, without their flags */
    *sn = (w & 0x7fu) | ((w >> 1) & 0x3f80u) | ((w >> 2) & 0x1fc000u) | ((w >> 3) & 0xfe00000u);
    if (*sn > sn_mask) {
        return false;
    }
    r->ptr = b + 2 + (last > 0x80u) + (last > 0x8000u) + (last > 0x800000u);
    *reliable = (b[0] & 0x20u) != 0;
    return true;
}

/* frame_head_plain as the iterator's first step: m holds the whole FRAME header. */
static bool frame_plain(zm_batch_iter_t *it, zm_transport_msg_t *m)
{
    zm_frame_t *f = &m->body.frame;
    uint32_t sn;
    bool reliable;
    if (!frame_head_plain(&it->r, it->sn_mask, &sn, &reliable)) {
        return false;
    }
    m->id = ZM_MID_FRAME;
    f->reliable = reliable;
    f->sn = sn;
    f->has_qos = false;
    f->qos = ZM_PRIO_DATA;
    f->unknown.n = 0;
    f->unknown.dropped = 0;
    return true;
}

#if ZM_DECODE_PUSH_PLAIN
bool zm_batch_lone_push(const uint8_t *batch, size_t len, uint32_t sn_mask, zm_lone_push_t *out)
{
    zm_reader_t r;
    zm_reader_init(&r, batch, len);
    return frame_head_plain(&r, sn_mask, &out->sn, &out->reliable) && push_plain(&r, &out->m) &&
           zm_reader_left(&r) == 0;
}
#endif

/*
 * The end of a FRAME is decided by the next header alone: ids 0x19..0x1f are network messages,
 * anything else goes back to the transport level. Rust instead tries a network decode, and on
 * failure rewinds and lets the transport decoder take that byte. The two agree on every input:
 * - a network id that fails to decode is refused by Rust's transport decoder too (no transport
 *   message has an id above 0x07), so the batch fails either way;
 * - a transport id never decodes as a network message in Rust, so its FRAME ends there, as here;
 * - ids 0x08..0x18 belong to neither namespace, and both end in an unknown-message error.
 * So a malformed network message is a batch error, reported here with its own code and offset.
 * A build that decodes some messages only (zm_transport_decodes, zm_network_decodes) reads a
 * batch no further than the first of the others, which Rust never sends it.
 * After any error the reader stays where the problem was found; the batch is then unusable and
 * the link is to be closed, as Rust closes it.
 */
z_result_t zm_batch_next_network(zm_batch_iter_t *it, zm_network_msg_t *m, bool *got)
{
    uint8_t h;
    *got = false;
    if (!it->in_frame) {
        return Z_OK;
    }
    if (zm_peek_u8(&it->r, &h) != Z_OK || !zm_is_network_header(h)) {
        it->in_frame = false;
        return Z_OK;
    }
    if (!zm_network_decodes(h)) {
        it->r.ptr = it->r.end; /* a message this build takes nothing from: the batch ends here */
        it->in_frame = false;
        return Z_OK;
    }
#if ZM_DECODE_PUSH_PLAIN
    if (!push_plain(&it->r, m))
#endif
    {
        ZM_TRY(zm_network_decode(&it->r, m));
    }
    *got = true;
    return Z_OK;
}

/* The rest of a FRAME, still decoded, so that a bad message in it fails the batch. Out of line:
 * its message's room is not zm_batch_next's to set up where a FRAME was read to its end. */
static ZM_NOINLINE z_result_t frame_skip(zm_batch_iter_t *it)
{
    zm_network_msg_t skipped;
    bool more = true;
    while (more) {
        ZM_TRY(zm_batch_next_network(it, &skipped, &more));
    }
    return Z_OK;
}

z_result_t zm_batch_next(zm_batch_iter_t *it, zm_transport_msg_t *m, bool *got)
{
    *got = false;
    if (it->in_frame) {
        ZM_TRY(frame_skip(it));
    }
    if (zm_reader_left(&it->r) == 0 || !zm_transport_decodes(*it->r.ptr)) {
        it->r.ptr = it->r.end; /* a message this build does not read: the batch ends here */
        return Z_OK;
    }
    if (!(ZM_DECODE_PUSH_PLAIN && frame_plain(it, m))) {
        ZM_TRY(zm_transport_decode(&it->r, it->sn_mask, m));
    }
    it->in_frame = m->id == ZM_MID_FRAME;
    *got = true;
    return Z_OK;
}
