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
    ZM_TRY(zm_network_decode(&it->r, m));
    *got = true;
    return Z_OK;
}

z_result_t zm_batch_next(zm_batch_iter_t *it, zm_transport_msg_t *m, bool *got)
{
    *got = false;
    if (it->in_frame) {
        /* the rest of the FRAME is still decoded, so a bad message in it fails the batch */
        zm_network_msg_t skipped;
        bool more = true;
        while (more) {
            ZM_TRY(zm_batch_next_network(it, &skipped, &more));
        }
    }
    if (zm_reader_left(&it->r) == 0 || !zm_transport_decodes(*it->r.ptr)) {
        it->r.ptr = it->r.end; /* a message this build does not read: the batch ends here */
        return Z_OK;
    }
    ZM_TRY(zm_transport_decode(&it->r, it->sn_mask, m));
    it->in_frame = m->id == ZM_MID_FRAME;
    *got = true;
    return Z_OK;
}
