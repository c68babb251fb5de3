/*
 * Encoders and decoders for every message of proto/msg.h, plus stream framing and batch
 * iteration. Decoders are zero-copy and allocation-free: the decoded struct borrows from the
 * reader's bytes (valid as long as they are). Encoders append to a bounded writer and either
 * write a whole message or fail with ZM_E_NO_SPACE leaving the writer as it was, so a transport
 * can flush and retry, or fragment. On a decode error the reader's offset is where it was found.
 */
#ifndef ZM_PROTO_CODEC_H
#define ZM_PROTO_CODEC_H

#include "proto/msg.h"

/* ---- scouting (one message per UDP datagram) ----------------------------------------------- */
ZM_NODISCARD z_result_t zm_scouting_decode(zm_reader_t *r, zm_scouting_msg_t *m);
ZM_NODISCARD z_result_t zm_scouting_encode(zm_writer_t *w, const zm_scouting_msg_t *m);
/** Iterates a HELLO's locators: init a reader over hello.locators, call until *got is false. */
ZM_NODISCARD z_result_t zm_locators_next(zm_reader_t *it, zm_slice_t *locator, bool *got);

/* ---- transport ------------------------------------------------------------------------------ */
/** SN mask of a resolution code (0..3 = 8, 16, 32, 64 bits), as Rust computes it: each width's
 *  max shifted right so an SN zint never grows past the width's bytes (7, 14 and 28 bits, then
 *  all 32 of ours). Inline: a few instructions where the opener calls it. */
static inline uint32_t zm_sn_mask(uint8_t resolution_bits)
{
    /* 2^56 - 1 keeps all 32 bits for the widest */
    return (uint32_t)((1ull << (7u << (resolution_bits & 0x03u))) - 1u);
}
#define ZM_SN_MASK_DEFAULT 0x0fffffffu

/**
 * Decodes one transport message. sn_mask bounds FRAME/FRAGMENT/OPEN/JOIN sequence numbers
 * (ZM_E_SN_RANGE beyond it). A FRAME decodes to its header only: its network messages follow in
 * r. A FRAGMENT's payload is the rest of r, which is left empty. A build decodes only the messages
 * zm_transport_decodes names, and JOIN only with multicast or the complete codec:
 * ZM_E_MSG_UNKNOWN for the others. A build that decodes no network message and lacks the complete
 * codec skips the unknown extensions of what it decodes rather than keep them (nothing it has
 * encodes a decoded message again), and leaves the reader anywhere on an error.
 */
ZM_NODISCARD z_result_t zm_transport_decode(zm_reader_t *r, uint32_t sn_mask, zm_transport_msg_t *m);

/** True if this build decodes the transport message that header starts (ZM_DECODE_NETWORK and
 *  the others, proto/core.h): a batch is read no further than one it does not. */
static inline bool zm_transport_decodes(uint8_t h)
{
    switch (ZM_MID(h)) {
    case ZM_MID_FRAME:
        return ZM_DECODE_NETWORK;
    case ZM_MID_FRAGMENT:
        return ZM_DECODE_FRAGMENT;
    case ZM_MID_T_OAM:
        return ZM_CODEC_MULTICAST;
    default:
        return true;
    }
}

/** A CLOSE reason (ZM_CLOSE_*) in words, for log lines; "unknown" for any other value. */
const char *zm_close_reason_name(uint8_t reason);
/**
 * Encodes one transport message; a FRAME writes its header only, a FRAGMENT its payload too. A
 * build that encodes only what it sends (!ZM_CODEC_FULL) takes INIT, OPEN and (with multicast)
 * JOIN here, and ZM_E_MSG_UNKNOWN for the others, which it sends through the functions below.
 */
ZM_NODISCARD z_result_t zm_transport_encode(zm_writer_t *w, const zm_transport_msg_t *m);
/** The FRAME, FRAGMENT, CLOSE and KEEP_ALIVE cases of zm_transport_encode, for a sender that keeps
 * the 120-byte transport message off its stack: their own bodies are a third of that or less. */
ZM_NODISCARD z_result_t zm_frame_encode(zm_writer_t *w, const zm_frame_t *m);
ZM_NODISCARD z_result_t zm_fragment_encode(zm_writer_t *w, const zm_fragment_t *m);
ZM_NODISCARD z_result_t zm_close_encode(zm_writer_t *w, const zm_close_t *m);
ZM_NODISCARD z_result_t zm_keep_alive_encode(zm_writer_t *w, const zm_keep_alive_t *m);
/** An InitSyn as zmote's opener sends it, without a struct to fill: the default resolution,
 *  batch_size (the S flag when it is not the default), QoS when qos, patch level 1. The bytes of
 *  zm_transport_encode for the same INIT. */
ZM_NODISCARD z_result_t zm_init_syn_encode(zm_writer_t *w, uint8_t whatami, const zm_zid_t *zid, uint16_t batch_size,
                                           bool qos);
/** INIT's S flag: the sizes (resolution, batch size) follow the zid. */
#define ZM_INIT_FLAG_S 0x40u
/** The most bytes of an InitSyn: header, version, whatami and a 16-byte zid, sizes, QoS, patch. */
#define ZM_INIT_SYN_MAX 25u
/** zm_init_syn_encode's bytes at o, which has room for ZM_INIT_SYN_MAX, for a whatami and a zid
 *  known valid (the opener's: its session made them); how many. Inline where the opener calls it. */
static inline size_t zm_init_syn_put(uint8_t *o, uint8_t whatami, const zm_zid_t *zid, uint16_t batch_size, bool qos)
{
    ZM_ASSERT(zid->len >= 1 && zid->len <= 16 && whatami <= ZM_WAI_CLIENT);
    uint8_t *start = o;
    bool has_size = batch_size != ZM_BATCH_DEFAULT;
    /* the patch level extension always comes, so the Z flag is always set */
    *o++ = (uint8_t)(ZM_MID_INIT | (has_size ? ZM_INIT_FLAG_S : 0u) | ZM_FLAG_Z);
    *o++ = ZM_PROTO_VERSION;
    *o++ = (uint8_t)(((zid->len - 1u) << 4) | whatami);
    memcpy(o, zid->id, zid->len);
    o += zid->len;
    if (has_size) {
        *o++ = ZM_RESOLUTION_DEFAULT;
        *o++ = (uint8_t)batch_size;
        *o++ = (uint8_t)(batch_size >> 8);
    }
    if (qos) {
        *o++ = 0x01u | ZM_FLAG_Z;
    }
    *o++ = 0x27u; /* patch level 1: a one-byte z64 */
    *o++ = 1u;
    return (size_t)(o - start);
}
/** An OpenSyn as zmote's opener sends it: no extension; the lease as on the wire (T flag: in
 *  seconds). The bytes of zm_transport_encode for the same OPEN. */
ZM_NODISCARD z_result_t zm_open_syn_encode(zm_writer_t *w, bool lease_secs, uint64_t lease, uint32_t initial_sn,
                                           zm_slice_t cookie);
/** A FRAME header as a transport sends it, without a struct to fill: QoS (prio, 0..7) its only
 *  extension. The bytes of zm_frame_encode for the same FRAME. */
ZM_NODISCARD z_result_t zm_frame_header_encode(zm_writer_t *w, bool reliable, uint32_t sn, bool has_qos,
                                               uint8_t prio);
/** The most bytes zm_frame_header_put writes: header, a 32-bit SN, QoS. */
#define ZM_FRAME_HEADER_MAX 8u
/** zm_frame_header_encode into out, which has room for ZM_FRAME_HEADER_MAX bytes (a sender that
 *  starts an empty batch); returns the header's length. The bytes after it, up to
 *  ZM_FRAME_HEADER_MAX, may have been written too (the SN written in one piece). */
size_t zm_frame_header_put(uint8_t *out, bool reliable, uint32_t sn, bool has_qos, uint8_t prio);
/* A CLOSE and a KEEP_ALIVE with no extension, as a transport sends them, are a header byte (with
 * this flag for a CLOSE of the whole session) and a CLOSE's reason byte: a sender writes them as
 * they are rather than fill a struct for the encoders above. */
#define ZM_CLOSE_FLAG_S 0x20u

/* ---- network -------------------------------------------------------------------------------- */
/** True if header's id is in the network namespace (0x19..0x1f): ends a FRAME's payload if not. */
static inline bool zm_is_network_header(uint8_t h) { return ZM_MID(h) >= 0x19; }

/** True if this build decodes the network message that header starts (ZM_DECODE_PUSH and the
 *  others, proto/core.h): a batch is read no further than one it does not. */
static inline bool zm_network_decodes(uint8_t h)
{
    switch (ZM_MID(h)) {
    case ZM_MID_N_PUSH:
        return ZM_DECODE_PUSH;
    case ZM_MID_N_REQUEST:
        return ZM_DECODE_REQUEST;
    case ZM_MID_N_RESPONSE:
    case ZM_MID_N_RESPONSE_FINAL:
        return ZM_DECODE_RESPONSE;
    case ZM_MID_N_INTEREST:
        return ZM_DECODE_INTEREST;
    case ZM_MID_N_OAM:
        return ZM_DECODE_N_OAM;
    default:
        return ZM_DECODE_NETWORK;
    }
}

ZM_NODISCARD z_result_t zm_network_decode(zm_reader_t *r, zm_network_msg_t *m);
ZM_NODISCARD z_result_t zm_network_encode(zm_writer_t *w, const zm_network_msg_t *m);
/** The PUSH p, as zm_network_encode writes a PUSH with the QoS extension alone (or none). */
ZM_NODISCARD z_result_t zm_push_encode(zm_writer_t *w, const zm_push_ref_t *p);
/**
 * The PUSH p of a PUT with an empty payload, up to that payload (whose length comes last), into
 * head[ZM_PUSH_HEAD_MAX]: *len bytes, so that the head, a payload's length and its bytes are
 * what zm_push_encode writes for that payload. ZM_E_NO_SPACE when it does not fit.
 */
ZM_NODISCARD z_result_t zm_push_head_encode(uint8_t head[ZM_PUSH_HEAD_MAX], const zm_push_ref_t *p, size_t *len);
/**
 * The PUT p whose PUSH was encoded up to its payload (p->body NULL, zm_push_head_encode): its
 * head, then its payload's length and bytes, all or nothing. Inline: a publisher's every put
 * without options is one, written where its batch is.
 */
ZM_NODISCARD static inline z_result_t zm_push_head_write(zm_writer_t *w, const zm_push_ref_t *p)
{
    size_t n = p->payload.len;
    size_t h = p->head_len;
    size_t left = zm_writer_left(w);
    size_t zl = ZM_LIKELY(n < 0x80u) ? 1u : zm_zint_len(n);
    if (left < h + zl + n) {
        return ZM_E_NO_SPACE;
    }
    uint8_t *o = w->data + w->len;
    /* the head in one copy of fixed size where the batch has room for it: the bytes past its
     * used part are overwritten by the length and the payload, or left in the batch's free room */
    if (ZM_LIKELY(left >= ZM_PUSH_HEAD_MAX)) {
        memcpy(o, p->head, ZM_PUSH_HEAD_MAX);
    } else {
        memcpy(o, p->head, h);
    }
    o += h;
    size_t v = n; /* zm_zint_put's zl bytes, written in place: the call cost a 1 KiB put 15 instructions */
    for (size_t i = 1; i < zl; i++) {
        *o++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    const uint8_t *src = p->payload.ptr;
    if (n >= 8u && n <= 16u) { /* a small payload in two words that overlap, without a call */
        uint64_t first;
        uint64_t last;
        memcpy(&first, src, 8u);
        memcpy(&last, src + n - 8u, 8u);
        memcpy(o, &first, 8u);
        memcpy(o + n - 8u, &last, 8u);
    } else if (n > 0) { /* an empty payload may have no bytes at all */
        memcpy(o, src, n);
    }
    w->len = (size_t)(o + n - w->data);
    return Z_OK;
}

/* ---- pieces used by the network codec (declarations and zenoh bodies) ----------------------- */
ZM_NODISCARD z_result_t zm_declaration_decode(zm_reader_t *r, zm_declaration_t *d);
ZM_NODISCARD z_result_t zm_declaration_encode(zm_writer_t *w, const zm_declaration_t *d);
/** A PUT or a DEL, as header's id says (the header is read already). */
ZM_NODISCARD z_result_t zm_put_decode(zm_reader_t *r, uint8_t header, zm_put_t *p);
/** A PUT or a DEL, as id (ZM_MID_PUT or ZM_MID_DEL) says; a DEL leaves out encoding and payload. */
ZM_NODISCARD z_result_t zm_put_encode(zm_writer_t *w, uint8_t id, const zm_put_t *p);
ZM_NODISCARD z_result_t zm_query_decode(zm_reader_t *r, uint8_t header, zm_query_t *q);
ZM_NODISCARD z_result_t zm_query_encode(zm_writer_t *w, const zm_query_t *q);
ZM_NODISCARD z_result_t zm_reply_decode(zm_reader_t *r, uint8_t header, zm_reply_t *q);
ZM_NODISCARD z_result_t zm_reply_encode(zm_writer_t *w, const zm_reply_t *q);
ZM_NODISCARD z_result_t zm_err_decode(zm_reader_t *r, uint8_t header, zm_err_t *e);
ZM_NODISCARD z_result_t zm_err_encode(zm_writer_t *w, const zm_err_t *e);

/* ---- stream framing (TCP and other stream links) -------------------------------------------- */
/** Splits the next batch off a stream: 2-byte little-endian length, then that many bytes. */
ZM_NODISCARD z_result_t zm_stream_next(zm_reader_t *r, zm_slice_t *batch);

/* ---- batch iteration ------------------------------------------------------------------------ */
typedef struct {
    zm_reader_t r;
    uint32_t sn_mask;
    bool in_frame; /* the last transport message was a FRAME */
} zm_batch_iter_t;

void zm_batch_iter_init(zm_batch_iter_t *it, const uint8_t *batch, size_t len, uint32_t sn_mask);
/**
 * Next transport message of the batch; *got is false at the end. After a FRAME, call
 * zm_batch_next_network() for its messages (any left unread are decoded and skipped here).
 */
ZM_NODISCARD z_result_t zm_batch_next(zm_batch_iter_t *it, zm_transport_msg_t *m, bool *got);
/** Next network message of the current FRAME; *got is false when the FRAME's payload ends. */
ZM_NODISCARD z_result_t zm_batch_next_network(zm_batch_iter_t *it, zm_network_msg_t *m, bool *got);
/** A batch that holds one sample alone, as zm_batch_lone_push reads it. */
typedef struct {
    zm_network_msg_t m; /* its PUSH, borrowing from the batch */
    uint32_t sn;        /* its FRAME's */
    bool reliable;
} zm_lone_push_t;
/**
 * The batch of a stream of unbatched samples, decoded straight: true when it holds exactly one
 * FRAME without extension and in it one PUSH as the iterator decodes straight (a key id alone, a
 * PUT of its payload alone). Then *out is what the iterator makes of it; false decides nothing,
 * and leaves *out undefined: the iterator reads the batch, errors included.
 */
bool zm_batch_lone_push(const uint8_t *batch, size_t len, uint32_t sn_mask, zm_lone_push_t *out);

#endif /* ZM_PROTO_CODEC_H */
