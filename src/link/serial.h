/*
 * The serial framing, wire-compatible with Rust's serial link (zenoh-link-serial 1.10.2 over the
 * z-serial 0.3.1 crate; docs/serial.md has the layout byte by byte). Every batch travels as one
 * frame, COBS-encoded so that 0x00 never occurs inside it, and a 0x00 ends it:
 *
 *    before COBS:  | flags | len (u16 LE) | payload (len bytes) | CRC32 of payload (u32 LE) |
 *    on the line:  | COBS(the above) ... | 0x00 |
 *
 * The codec is pure, allocates nothing and holds no frame-sized buffer, so that a line on a small
 * MCU costs a few hundred bytes beside the transport's own buffers: the encoder makes a frame in
 * small pieces (a line sends it through a chunk of ZM_SERIAL_TX_CHUNK bytes), and the decoder
 * eats bytes as they come (a tty read of a few hundred, a UART interrupt's one) straight into the
 * caller's buffer, checking the CRC on the way, and yields whole verified frames. The same code
 * serves POSIX and bare metal.
 */
#ifndef ZM_LINK_SERIAL_H
#define ZM_LINK_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/bytes.h"
#include "zmote/opt.h"

/* The flags byte. Data frames carry 0; the handshake frames carry no payload. */
#define ZM_SERIAL_FLAG_INIT 0x01u  /* opener: "I start"; listener answers with INIT|ACK */
#define ZM_SERIAL_FLAG_ACK 0x02u   /* with INIT: the listener took the opener's INIT */
#define ZM_SERIAL_FLAG_RESET 0x04u /* the listener drops a line whose peer started over */

/* Flags, length and CRC around the payload, before COBS. */
#define ZM_SERIAL_OVERHEAD 7u

/* Largest COBS encoding of n bytes: one code byte per 254 data bytes, plus the first one. */
#define ZM_SERIAL_COBS_MAX(n) ((n) + (n) / 254u + 1u)

/* Largest frame on the line for a payload of n bytes, the 0x00 delimiter included. */
#define ZM_SERIAL_WIRE_MAX(n) (ZM_SERIAL_COBS_MAX((n) + ZM_SERIAL_OVERHEAD) + 1u)

/* Largest payload Rust puts in a frame or takes from one (z-serial's MAX_MTU). */
#define ZM_SERIAL_RUST_MTU 1500u

/** The frame checksum: CRC-32 as z-serial computes it (see docs/serial.md: not the zlib one). */
uint32_t zm_serial_crc32(const uint8_t *p, size_t len);

/**
 * A frame being encoded, a piece at a time, so that it needs no buffer of its size: the CRC is
 * computed over the payload when it starts, then each COBS block is made by looking ahead (at
 * most 254 bytes) for its length, whose code byte goes out before the block. The payload is
 * borrowed until the last piece is out. Owned by the one thread that sends the frame.
 */
typedef struct {
    const uint8_t *payload;
    uint32_t crc;       /* of the payload, sent after it */
    size_t len;         /* of the payload */
    size_t pos;         /* next byte of the frame before COBS (header, payload, CRC) */
    uint8_t head[3];    /* flags and length */
    uint8_t block_left; /* bytes of the current block still to write */
    uint8_t state;      /* after the block: a code byte (first a zero skipped?), the delimiter, nothing */
} zm_serial_encoder_t;

/** Starts e on a frame of flags and payload[0..len). ZM_E_FIELD if len > ZM_SERIAL_MTU. */
ZM_NODISCARD static inline z_result_t zm_serial_encoder_start(zm_serial_encoder_t *e, uint8_t flags,
                                                              const uint8_t *payload, size_t len)
{
    if (len > ZM_SERIAL_MTU) {
        return ZM_E_FIELD;
    }
    e->payload = payload;
    e->len = len;
    e->pos = 0;
    e->head[0] = flags;
    e->head[1] = (uint8_t)(len & 0xffu);
    e->head[2] = (uint8_t)(len >> 8);
    e->crc = zm_serial_crc32(payload, len);
    e->block_left = 0;
    e->state = 0; /* a code byte first */
    return Z_OK;
}

/**
 * The next bytes of the frame on the line, into out[0..cap) (cap >= 1), and how many: cap until
 * the frame runs out, then its rest (delimiter included), then 0. The pieces together are what
 * zm_serial_encode writes in one go.
 */
size_t zm_serial_encoder_fill(zm_serial_encoder_t *e, uint8_t *out, size_t cap);

/**
 * Encodes one frame of flags and payload[0..len) into out[0..cap), delimiter included, and its
 * length into *n. ZM_E_FIELD if len > ZM_SERIAL_MTU; ZM_E_NO_SPACE if cap is smaller than
 * ZM_SERIAL_WIRE_MAX(len) (checked up front, so nothing is written then). payload is borrowed.
 */
ZM_NODISCARD z_result_t zm_serial_encode(uint8_t flags, const uint8_t *payload, size_t len, uint8_t *out,
                                         size_t cap, size_t *n);

/** A decoded frame; payload points into the buffer the decoder was given (see zm_serial_decode). */
typedef struct {
    uint8_t flags;
    zm_slice_t payload;
} zm_serial_frame_t;

/**
 * The decoder's state: where the frame being decoded stands (COBS undone) and where the COBS block
 * stands. The payload itself goes to the caller's buffer; the header and the CRC as sent, which
 * frame it, stay here. Owned by the one thread that receives on the line.
 */
typedef struct {
    size_t len;          /* bytes of the frame decoded so far (header, payload, CRC) */
    size_t stored;       /* payload bytes in the caller's buffer so far: buf[0..stored) */
    uint32_t crc;        /* the CRC of the payload bytes so far (the register inverted: 0 at the start) */
    uint8_t frame[7];    /* the bytes around the payload, as decoded: flags, length (0 until it
                          * came), then the CRC that came after the payload */
    uint8_t block_left;  /* data bytes left in the current COBS block; 0: a code byte is next */
    bool zero_pending;   /* the block just ended stands for a 0x00, unless the frame ends here */
    bool in_frame;       /* a byte other than the delimiter came since the last delimiter */
    bool overflow;       /* the frame is lost (longer than ZM_SERIAL_MTU, or its bytes went
                          * elsewhere): skipped up to the delimiter */
    uint32_t dropped;    /* frames dropped so far: corrupt, or longer than ZM_SERIAL_MTU (the last field:
                          * the others are the frame's) */
} zm_serial_decoder_t;

/** Readies d for the first frame; also after a line was reopened. A zeroed decoder is ready too. */
void zm_serial_decoder_init(zm_serial_decoder_t *d);

/**
 * Eats in[0..len) up to and including the delimiter that completes a frame, and sets *used to
 * the bytes eaten. The payload is decoded into buf[0..cap) (NULL with cap 0 for frames known to
 * be empty, as the handshake's): pass the same buffer on every call, for a frame in progress has
 * its first bytes there (d->stored of them); a buffer that changes between two calls must carry
 * them along. Returns Z_OK with *frame (its payload in buf) for a whole frame whose length and
 * CRC check out; ZM_E_AGAIN when every byte was eaten and no frame ended; ZM_E_FIELD for a whole
 * and intact frame whose payload did not fit in cap (*frame has its flags and an empty payload;
 * not counted as dropped); for a frame that ended but is bad, ZM_E_CHECKSUM (CRC mismatch),
 * ZM_E_TRUNCATED (broken COBS, shorter than its own header, or a length field that disagrees with
 * the frame) or ZM_E_NO_SPACE (longer than ZM_SERIAL_MTU), after which d->dropped went up and the
 * next call starts on the following frame. Bytes between two delimiters are one frame, so garbage
 * costs at most the frame it hides in; a lone delimiter (an empty frame) is skipped without a word.
 */
ZM_NODISCARD z_result_t zm_serial_decode(zm_serial_decoder_t *d, const uint8_t *in, size_t len, size_t *used,
                                         uint8_t *buf, size_t cap, zm_serial_frame_t *frame);

/**
 * The frame in progress lost the bytes it had in the caller's buffer: it is skipped up to its
 * delimiter and counted as dropped (ZM_E_NO_SPACE). Nothing happens between frames.
 */
static inline void zm_serial_decoder_lose(zm_serial_decoder_t *d)
{
    if (d->in_frame) {
        d->overflow = true;
        d->stored = 0;
    }
}

#endif /* ZM_LINK_SERIAL_H */
