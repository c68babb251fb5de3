/*
 * The serial link: the framing of serial.h and the serial entry of the link table. A line is a
 * datagram link to the transport (one batch per frame, MTU ZM_SERIAL_MTU) that brings its own
 * framing through the send and recv operations. Its state (the port's line, the decoder's and
 * encoder's state, a chunk of raw bytes and one of encoded bytes) lives in one block allocated
 * when the line opens, so that the data path allocates nothing and a zm_link_t stays a small
 * value that can be moved. It holds no frame-sized buffer: a frame is encoded to the port a small
 * chunk at a time, and decoded straight into the buffer of the receiving transport.
 *
 * Rust's serial link is point to point and has a handshake of its own below Zenoh's: the opener
 * sends an empty INIT frame, the listener answers INIT|ACK, then batches flow. A listener here
 * opens its device, waits for an INIT and hands out one link at a time, as Rust's does; the
 * device is closed with that link and opened again for the next one.
 */
#include "link/serial.h"

#include <stdatomic.h>
#include <string.h>

#include "link/link.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_LINK_SERIAL

/* ---- the framing ------------------------------------------------------------------------------- */

/*
 * z-serial's CRC-32: the reflected (LSB-first) shift register, initial value and final XOR of all
 * ones, but fed the polynomial 0x04C11DB7 as it is written, not bit-reversed (0xEDB88320) as the
 * zlib CRC-32 is. "123456789" gives 0xFC4F2BE9, not 0xCBF43926. Bitwise: no 1 KiB table in flash
 * for a line that moves a few hundred bytes a millisecond at most.
 */
static uint32_t crc_step(uint32_t crc, uint8_t b)
{
    crc ^= b;
    for (unsigned bit = 0; bit < 8; bit++) {
        crc = (crc >> 1) ^ (0x04c11db7u & (0u - (crc & 1u)));
    }
    return crc;
}

uint32_t zm_serial_crc32(const uint8_t *p, size_t len)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc = crc_step(crc, p[i]);
    }
    return ~crc;
}

/* What the encoder writes once the current block is out: the next code byte (after a full block,
 * or at the start), the same after skipping the zero that cut the block, the delimiter, nothing. */
enum { ENC_CODE, ENC_ZERO_THEN_CODE, ENC_DELIMITER, ENC_DONE };
_Static_assert(ENC_CODE == 0, "zm_serial_encoder_start (serial.h) starts a frame in state 0, a code byte");

/* Byte i of the frame before COBS: flags and length, the payload, its CRC. */
static uint8_t plain_at(const zm_serial_encoder_t *e, size_t i)
{
    if (i < sizeof(e->head)) {
        return e->head[i];
    }
    i -= sizeof(e->head);
    if (i < e->len) {
        return e->payload[i];
    }
    return (uint8_t)(e->crc >> (8u * (i - e->len))); /* little-endian */
}

/*
 * COBS as Rust's cobs 0.2 does it: a block is the bytes up to the next zero, at most 254, behind
 * a code byte of 1 + its length. A block cut by a zero implies it (the zero is skipped); a full
 * block (code 0xFF) does not, and a new block always starts after it, even at the very end (the
 * lone code 0x01). The last block never implies a zero.
 */
size_t zm_serial_encoder_fill(zm_serial_encoder_t *e, uint8_t *out, size_t cap)
{
    size_t total = e->len + ZM_SERIAL_OVERHEAD;
    size_t n = 0;
    while (n < cap && e->state != ENC_DONE) {
        if (e->block_left > 0) {
            out[n++] = plain_at(e, e->pos++);
            e->block_left--;
        } else if (e->state == ENC_DELIMITER) {
            out[n++] = 0x00;
            e->state = ENC_DONE;
        } else {
            e->pos += e->state == ENC_ZERO_THEN_CODE;
            size_t run = 0;
            while (run < 254u && e->pos + run < total && plain_at(e, e->pos + run) != 0) {
                run++;
            }
            out[n++] = (uint8_t)(run + 1u);
            e->block_left = (uint8_t)run;
            if (run == 254u) {
                e->state = ENC_CODE;
            } else {
                e->state = e->pos + run < total ? ENC_ZERO_THEN_CODE : ENC_DELIMITER;
            }
        }
    }
    return n;
}

z_result_t zm_serial_encode(uint8_t flags, const uint8_t *payload, size_t len, uint8_t *out, size_t cap,
                            size_t *n)
{
    *n = 0;
    if (len > ZM_SERIAL_MTU) {
        return ZM_E_FIELD;
    }
    if (cap < ZM_SERIAL_WIRE_MAX(len)) {
        return ZM_E_NO_SPACE;
    }
    zm_serial_encoder_t e;
    ZM_TRY(zm_serial_encoder_start(&e, flags, payload, len));
    *n = zm_serial_encoder_fill(&e, out, cap);
    return Z_OK;
}

/* Readies d for the next frame: every field before the count of drops is the frame's, and zero
 * is where a frame starts. */
static void frame_reset(zm_serial_decoder_t *d) { memset(d, 0, offsetof(zm_serial_decoder_t, dropped)); }

void zm_serial_decoder_init(zm_serial_decoder_t *d) { memset(d, 0, sizeof(*d)); }

/* Flags and length before the payload, in frame[0..3). */
#define HEAD_SIZE 3u

/* The length field; valid once the header is in. */
static size_t head_len(const zm_serial_decoder_t *d) { return (size_t)d->frame[1] | ((size_t)d->frame[2] << 8); }

/*
 * Takes one decoded byte: the header and the CRC as sent stay in d (frame), the payload goes to
 * buf, as far as it fits and in order, with the CRC register following it. A frame longer than
 * any this side takes is marked lost (overflow), and the decoder skips the rest of it.
 */
static ZM_ALWAYS_INLINE void decoded_put(zm_serial_decoder_t *d, uint8_t b, uint8_t *buf, size_t cap)
{
    size_t k = d->len;
    if (k == ZM_SERIAL_MTU + ZM_SERIAL_OVERHEAD) {
        d->overflow = true;
        return;
    }
    d->len = k + 1;
    size_t len = head_len(d);
    size_t i = k - HEAD_SIZE; /* in the payload if below len, for a k past the header */
    if (k >= HEAD_SIZE && i < len) {
        d->crc = ~crc_step(~d->crc, b);
        if (i == d->stored && i < cap) {
            buf[d->stored++] = b;
        }
        return;
    }
    size_t j = k < HEAD_SIZE ? k : k - len; /* the header, then the CRC behind the payload */
    if (j < sizeof(d->frame)) {
        d->frame[j] = b;
    } /* bytes past the CRC make the length disagree: seen at the delimiter */
}

/* The CRC that came after the payload; valid once the frame was long enough to hold it. */
static uint32_t crc_as_sent(const zm_serial_decoder_t *d)
{
    const uint8_t *c = d->frame + HEAD_SIZE;
    return (uint32_t)c[0] | ((uint32_t)c[1] << 8) | ((uint32_t)c[2] << 16) | ((uint32_t)c[3] << 24);
}

/* The delimiter came: check what was decoded and start over for the next frame. */
static ZM_ALWAYS_INLINE z_result_t frame_end(zm_serial_decoder_t *d, uint8_t *buf, zm_serial_frame_t *frame)
{
    z_result_t r;
    if (d->overflow) {
        r = ZM_E_NO_SPACE;
    } else if (d->block_left != 0 || d->len != head_len(d) + ZM_SERIAL_OVERHEAD) {
        /* a block cut short by the delimiter, or a length that disagrees: shorter than the header
         * and CRC too, as the length field stays 0 until its bytes come */
        r = ZM_E_TRUNCATED;
    } else if (crc_as_sent(d) != d->crc) {
        r = ZM_E_CHECKSUM;
    } else {
        size_t len = head_len(d);
        frame->flags = d->frame[0];
        frame->payload = zm_slice(buf, d->stored == len ? len : 0);
        r = d->stored == len ? Z_OK : ZM_E_FIELD; /* whole and intact, but the caller has no room */
    }
    if (r != Z_OK && r != ZM_E_FIELD) {
        d->dropped++;
    }
    frame_reset(d);
    return r;
}

/* zm_serial_decode, inline in take_frame, its one caller in the library, with the two steps above. */
static ZM_ALWAYS_INLINE z_result_t serial_decode(zm_serial_decoder_t *d, const uint8_t *in, size_t len, size_t *used,
                                                 uint8_t *buf, size_t cap, zm_serial_frame_t *frame)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = in[i];
        if (b == 0x00) {
            if (!d->in_frame) {
                continue; /* an empty frame: a sender may flush the line with a lone delimiter */
            }
            *used = i + 1;
            return frame_end(d, buf, frame);
        }
        d->in_frame = true;
        if (d->overflow) {
            continue;
        }
        if (d->block_left == 0) {
            /* A code byte, for a block of b - 1 bytes. The block before it, if it stood for a zero,
             * did not end the frame: that zero comes first. */
            bool zero = d->zero_pending;
            d->block_left = (uint8_t)(b - 1u);
            d->zero_pending = b != 0xffu;
            if (!zero) {
                continue;
            }
            b = 0x00;
        } else {
            d->block_left--;
        }
        decoded_put(d, b, buf, cap);
    }
    *used = len;
    return ZM_E_AGAIN;
}

z_result_t zm_serial_decode(zm_serial_decoder_t *d, const uint8_t *in, size_t len, size_t *used, uint8_t *buf,
                            size_t cap, zm_serial_frame_t *frame)
{
    return serial_decode(d, in, len, used, buf, cap, frame);
}

/* ---- lines ------------------------------------------------------------------------------------- */

/* How long an answer of the handshake (INIT|ACK, RESET) may take to leave. */
#define CONTROL_SEND_MS 1000u
/* A listener whose device failed tries it again this much later. */
#define REOPEN_MS 500u
/* Waits of a listener are cut in slices this long, so that a shutdown is seen in time. */
#define LISTEN_SLICE_MS 50u
/* Reads a receive that must not wait makes at most, so a flooded line cannot hold its caller. */
#define TRY_READS_MAX 8u

#if Z_FEATURE_UNICAST_PEER
/* What an accepted line shares with its listener: whether it is still open, and who is left. */
typedef struct {
    atomic_uint refs;
    atomic_bool busy;
} serial_claim_t;
#endif

/* A frame on its way to the line: the encoder, and a chunk for its bytes. */
typedef struct {
    zm_serial_encoder_t enc;
    uint8_t chunk[ZM_SERIAL_TX_CHUNK];
} line_tx_t;

/* The device's name as a line keeps it, which only log lines print: none without warnings. */
#define LINE_NAME_SIZE (ZM_LOG_LEVEL >= ZM_LOG_WARN ? ZM_SERIAL_DEV_MAX + 1 : 1)

/* An open line. The reader owns rx, raw and the counters, the sender owns tx and tx_chunk: a
 * frame goes to the port a chunk at a time as it is encoded, kept here rather than on the stack,
 * which the publish path has little of. */
typedef struct {
    zm_serial_t port;
    zm_serial_decoder_t rx;
    size_t raw_pos; /* raw[raw_pos..raw_len) came from the port and is not decoded yet */
    size_t raw_len;
    uint8_t raw[ZM_SERIAL_RX_CHUNK];
    line_tx_t tx;
    ZM_IF_PEER(serial_claim_t *claim; /* the listener's, for an accepted line; NULL for an opened one */)
    char dev[LINE_NAME_SIZE];
} serial_line_t;

#if Z_FEATURE_UNICAST_PEER
/* A listener: the line waiting for an INIT (NULL while its link is out, or while the device
 * cannot be opened). Only the accepting thread touches it; shutdown only raises shut. */
typedef struct {
    serial_line_t *line;
    serial_claim_t *claim;
    atomic_bool shut;
    bool failing; /* the last open failed: said once, until it works again */
    uint64_t retry_at;
    uint32_t baudrate;
    char dev[ZM_SERIAL_DEV_MAX + 1];
} serial_listener_t;
#endif

static z_result_t device_name(const zm_endpoint_t *ep, char *dev)
{
    if (ep->address.len > ZM_SERIAL_DEV_MAX) {
        return ZM_E_LOCATOR;
    }
    memcpy(dev, ep->address.ptr, ep->address.len);
    dev[ep->address.len] = '\0';
    return Z_OK;
}

static z_result_t line_open(serial_line_t **out, const char *dev, uint32_t baudrate)
{
    serial_line_t *s = zm_calloc(sizeof(*s)); /* no raw bytes, no claim, no name, a decoder at rest */
    if (s == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t r = zm_port_serial_open(&s->port, dev, baudrate);
    if (r != Z_OK) {
        zm_free(s);
        return r;
    }
    if (ZM_LOG_LEVEL >= ZM_LOG_WARN) {
        memcpy(s->dev, dev, strlen(dev) + 1);
    }
    *out = s;
    return Z_OK;
}

#if Z_FEATURE_UNICAST_PEER
static void claim_release(serial_claim_t *c)
{
    if (atomic_fetch_sub(&c->refs, 1u) == 1u) {
        zm_free(c);
    }
}
#endif

/* Closes the line's device and frees it; a client only has lines it opened, never a listener's. */
static void line_free(serial_line_t *s)
{
    zm_port_serial_close(&s->port);
    ZM_IF_PEER(
        if (s->claim != NULL) {
            atomic_store(&s->claim->busy, false); /* the device is closed: the listener may reopen it */
            claim_release(s->claim);
        }
    )
    zm_free(s);
}

/* Decodes the raw bytes already read into buf[0..cap), until a frame comes out (Z_OK, or
 * ZM_E_FIELD for one that does not fit: see zm_serial_decode) or they run out (ZM_E_AGAIN). A bad
 * frame is dropped with a warning; the count doubles between two of them, so that a line full of
 * noise does not fill the log. */
static z_result_t take_frame(serial_line_t *s, uint8_t *buf, size_t cap, zm_serial_frame_t *f)
{
    while (s->raw_pos < s->raw_len) {
        size_t used = 0;
        z_result_t r = serial_decode(&s->rx, s->raw + s->raw_pos, s->raw_len - s->raw_pos, &used, buf, cap, f);
        s->raw_pos += used;
        if (r == Z_OK || r == ZM_E_FIELD) {
            return r;
        }
        uint32_t n = s->rx.dropped;
        if (r != ZM_E_AGAIN && (n & (n - 1u)) == 0) {
            ZM_LOG_W("serial %s: frame dropped: %s (%u dropped so far)", s->dev, zm_strerror(r), (unsigned)n);
        }
    }
    return ZM_E_AGAIN;
}

/* One read from the port into raw (which take_frame emptied). */
static z_result_t read_chunk(serial_line_t *s)
{
    size_t got = 0;
    ZM_TRY(zm_port_serial_read(&s->port, s->raw, sizeof(s->raw), &got));
    s->raw_pos = 0;
    s->raw_len = got;
    return Z_OK;
}

/* Milliseconds until the monotonic deadline: 0 once it passed, at most what a wait takes. */
static uint32_t ms_until(uint64_t deadline)
{
    uint64_t now = zm_port_clock_ms();
    uint64_t left = now < deadline ? deadline - now : 0;
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

/* The next frame of the handshake, waiting for bytes until the monotonic deadline (ZM_E_TIMEOUT
 * past it; a deadline already past still takes what the line has now, within TRY_READS_MAX reads).
 * Only its flags count: its payload, if any, is skipped, so it needs no buffer. */
static z_result_t wait_frame(serial_line_t *s, uint64_t deadline, zm_serial_frame_t *f)
{
    for (unsigned reads = 0;; reads++) {
        z_result_t r = take_frame(s, NULL, 0, f);
        if (r == Z_OK || r == ZM_E_FIELD) {
            return Z_OK;
        }
        uint32_t left = ms_until(deadline);
        if (left == 0 && reads >= TRY_READS_MAX) {
            return ZM_E_TIMEOUT;
        }
        ZM_TRY(zm_port_serial_wait_readable(&s->port, left));
        ZM_TRY(read_chunk(s));
    }
}

/*
 * Sends an empty frame with flags (never 0), all of it by the deadline. Such a frame is flags, a
 * length and a CRC of 0, which COBS makes a block of the flags and six empty ones: its bytes are
 * known, and made on the stack, for the receiving thread answers with them while a sender may be
 * using the line's chunk.
 */
static z_result_t send_control(serial_line_t *s, uint8_t flags, uint64_t deadline)
{
    uint8_t frame[ZM_SERIAL_WIRE_MAX(0)] = {0x02, flags, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
    size_t done = 0;
    z_result_t r = zm_port_serial_write(&s->port, frame, sizeof(frame), deadline, &done);
    if (r == ZM_E_TIMEOUT && done > 0) {
        r = zm_port_serial_write(&s->port, frame + done, sizeof(frame) - done, deadline, &done);
    }
    return r;
}

static void sleep_until(uint64_t when, uint64_t deadline)
{
    uint32_t ms = ms_until(when < deadline ? when : deadline);
    if (ms > 0) {
        zm_port_sleep_ms(ms);
    }
}

/*
 * The opener's side: INIT, then wait for INIT|ACK. RESET means the listener still held an older
 * link of ours: wait reset_wait and start again, as Rust does. Unlike Rust, an INIT that got no
 * answer is sent again every ZM_SERIAL_INIT_RETRY_MS: a Rust listener discards what came before
 * it opened its device, so an opener that started first would otherwise wait for ever. Frames of
 * any other kind are leftovers of an older link and are skipped.
 */
static z_result_t opener_handshake(serial_line_t *s, uint32_t reset_wait_ms, uint64_t deadline)
{
    for (;;) {
        ZM_TRY(send_control(s, ZM_SERIAL_FLAG_INIT, deadline));
        uint64_t resend_at = zm_port_clock_ms() + ZM_SERIAL_INIT_RETRY_MS;
        resend_at = resend_at < deadline ? resend_at : deadline;
        for (;;) {
            zm_serial_frame_t f;
            z_result_t r = wait_frame(s, resend_at, &f);
            if (r == ZM_E_TIMEOUT) {
                if (zm_port_clock_ms() >= deadline) {
                    return ZM_E_TIMEOUT;
                }
                break; /* no answer yet: INIT again */
            }
            ZM_TRY(r);
            uint8_t both = ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK;
            if ((f.flags & both) == both) {
                return Z_OK;
            }
            if (f.flags & ZM_SERIAL_FLAG_RESET) {
                sleep_until(zm_port_clock_ms() + reset_wait_ms, deadline);
                break;
            }
        }
    }
}

static z_result_t line_connect(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    char dev[ZM_SERIAL_DEV_MAX + 1];
    ZM_TRY(device_name(ep, dev));
    serial_line_t *s = NULL;
    ZM_TRY(line_open(&s, dev, ep->serial.baudrate));
    z_result_t r = opener_handshake(s, ep->serial.reset_wait_ms, deadline);
    if (r != Z_OK) {
        line_free(s);
        return r;
    }
    l->ctx = s;
    return Z_OK;
}

#if ZM_LINK_DIRECT
/* A client whose only link is this line opens, shuts and closes it through link.h by name, here;
 * the table's operations, which such a build never calls through it, are the same. */
z_result_t zm_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    if (ep->proto != ZM_PROTO_SERIAL) {
        return ZM_E_UNSUPPORTED;
    }
    memset(l, 0, sizeof(*l));
    l->proto = ZM_PROTO_SERIAL;
    return line_connect(l, ep, timeout_ms); /* sets ctx only once open */
}

z_result_t zm_serial_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    return zm_link_open(l, ep, timeout_ms);
}
#else
z_result_t zm_serial_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    return line_connect(l, ep, timeout_ms);
}
#endif

/*
 * The batch as a data frame, encoded a chunk at a time straight to the line, under
 * zm_link_send_batch's deadlines: the first byte must leave by start, or nothing was sent
 * (ZM_E_AGAIN); once one left, the rest must follow by end. The encoder and its chunk are the
 * line's, so that this frame stays small: it is at the bottom of the publish path.
 */
z_result_t zm_serial_link_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                               uint64_t end_deadline_ms)
{
    serial_line_t *s = l->ctx;
    line_tx_t *tx = &s->tx;
    ZM_TRY(zm_serial_encoder_start(&tx->enc, 0, batch, len));
    bool started = false;
    size_t n;
    while ((n = zm_serial_encoder_fill(&tx->enc, tx->chunk, sizeof(tx->chunk))) > 0) {
        size_t done = 0;
        z_result_t r = zm_port_serial_write(&s->port, tx->chunk, n, started ? end_deadline_ms : start_deadline_ms, &done);
        if (r == ZM_E_TIMEOUT && !started) {
            if (done == 0) {
                return ZM_E_AGAIN;
            }
            r = zm_port_serial_write(&s->port, tx->chunk + done, n - done, end_deadline_ms, &done);
        }
        ZM_TRY(r);
        started = true;
    }
    return Z_OK;
}

/*
 * A frame on an established line. Data frames are batches; an empty one carries nothing. An INIT
 * means the peer started over: it is answered with RESET, as Rust's listener does, and the link
 * ends (the answer is written by the receiving thread, beside a sender: a tty takes a write of a
 * few bytes whole, so at worst the peer sees one bad frame and tries again). A RESET means the
 * peer dropped this link; an ACK alone means nothing.
 */
static z_result_t on_line_frame(serial_line_t *s, const zm_serial_frame_t *f, bool *batch)
{
    *batch = false;
    if (f->flags & ZM_SERIAL_FLAG_INIT) {
        ZM_LOG_I("serial %s: the peer started over, answering RESET", s->dev);
        z_result_t r = send_control(s, ZM_SERIAL_FLAG_RESET, zm_port_clock_ms() + CONTROL_SEND_MS);
        ZM_UNUSED(r); /* the link ends either way */
        return ZM_E_CLOSED;
    }
    if (f->flags & ZM_SERIAL_FLAG_RESET) {
        ZM_LOG_I("serial %s: the peer reset the line", s->dev);
        return ZM_E_CLOSED;
    }
    *batch = f->payload.len > 0;
    return Z_OK;
}

/* serial_recv without the bookkeeping of the frame in progress. */
static z_result_t line_recv(zm_link_t *l, serial_line_t *s, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    for (unsigned reads = 0;; reads++) {
        zm_serial_frame_t f;
        z_result_t r = take_frame(s, buf, cap, &f);
        if (r != ZM_E_AGAIN) {
            bool batch = false;
            ZM_TRY(on_line_frame(s, &f, &batch));
            ZM_TRY(r); /* ZM_E_FIELD: a batch longer than buf */
            if (!batch) {
                continue;
            }
            *n = f.payload.len;
            return Z_OK;
        }
        if (!wait) {
            if (reads >= TRY_READS_MAX || zm_port_serial_wait_readable(&s->port, 0) != Z_OK) {
                return ZM_E_AGAIN;
            }
        } else if (l->rx_deadline_ms != 0) {
            uint32_t left = ms_until(l->rx_deadline_ms);
            if (left == 0) {
                return ZM_E_TIMEOUT;
            }
            ZM_TRY(zm_port_serial_wait_readable(&s->port, left));
        }
        ZM_TRY(read_chunk(s));
    }
}

/*
 * Frames are decoded straight into the caller's buffer, so a frame that arrives in parts keeps
 * its first part there between calls. The link's rx_len tells how much (rx_pos stays 0: link.c
 * moves it only for links without a recv op), so that zm_link_rebuffer carries it into a new
 * buffer; a buffer that changed without it (rx_len no longer matches) lost those bytes, and the
 * frame is dropped.
 */
static z_result_t serial_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    serial_line_t *s = l->ctx;
    *n = 0;
    ZM_ASSERT(l->rx_pos == 0);
    if (l->rx_len != s->rx.stored) {
        zm_serial_decoder_lose(&s->rx);
    }
    z_result_t r = line_recv(l, s, buf, cap, wait, n);
    l->rx_len = s->rx.stored;
    return r;
}

#if ZM_LINK_DIRECT
/* A client whose only link is this line receives through it alone: link.h's receive is here. */
z_result_t zm_link_receive(zm_link_t *l, uint8_t *buf, size_t cap, zm_slice_t *batch, bool wait)
{
    zm_link_adopt_buffer(l, buf, cap);
    size_t n = 0;
    ZM_TRY(serial_recv(l, buf, cap, wait, &n));
    *batch = zm_slice(buf, n);
    return Z_OK;
}

/* The table's, which such a build never calls through it. */
z_result_t zm_serial_link_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    zm_slice_t batch = zm_slice(buf, 0);
    z_result_t r = zm_link_receive(l, buf, cap, &batch, wait);
    *n = batch.len;
    return r;
}
#else
z_result_t zm_serial_link_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    return serial_recv(l, buf, cap, wait, n);
}
#endif

static bool serial_pending(zm_link_t *l)
{
    const serial_line_t *s = l->ctx;
    return s->raw_pos < s->raw_len;
}

z_result_t zm_serial_link_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    serial_line_t *s = l->ctx;
    return s->raw_pos < s->raw_len ? Z_OK : zm_port_serial_wait_readable(&s->port, timeout_ms);
}

#if ZM_PORT_SOCKETS
static zm_socket_t *serial_socket(zm_link_t *l)
{
    serial_line_t *s = l->ctx;
    return zm_port_serial_socket(&s->port);
}
#endif

#if ZM_LINK_DIRECT
void zm_link_shutdown(zm_link_t *l)
{
    serial_line_t *s = l->ctx;
    if (s != NULL) {
        zm_port_serial_shutdown(&s->port);
    }
}

void zm_link_close(zm_link_t *l)
{
    if (l->ctx != NULL) {
        line_free(l->ctx);
        l->ctx = NULL;
    }
    l->rx_buf = NULL;
    l->rx_cap = 0;
    l->rx_pos = 0;
    l->rx_len = 0;
}

void zm_serial_link_shutdown(zm_link_t *l) { zm_link_shutdown(l); }

void zm_serial_link_close(zm_link_t *l) { zm_link_close(l); }
#else
void zm_serial_link_shutdown(zm_link_t *l)
{
    serial_line_t *s = l->ctx;
    zm_port_serial_shutdown(&s->port);
}

void zm_serial_link_close(zm_link_t *l)
{
    line_free(l->ctx);
    l->ctx = NULL;
}
#endif

/* ---- listeners (peers only: a client never listens) ------------------------------------------- */

#if Z_FEATURE_UNICAST_PEER
static const zm_link_ops_t serial_listener_ops;

static z_result_t serial_listen(zm_link_t *l, const zm_endpoint_t *ep)
{
    const zm_serial_config_t cfg = ep->serial;
    char dev[ZM_SERIAL_DEV_MAX + 1];
    ZM_TRY(device_name(ep, dev));
    serial_listener_t *L = zm_alloc(sizeof(*L));
    serial_claim_t *c = zm_alloc(sizeof(*c));
    if (L == NULL || c == NULL) {
        zm_free(L);
        zm_free(c);
        return ZM_E_NOMEM;
    }
    atomic_init(&c->refs, 1u);
    atomic_init(&c->busy, false);
    atomic_init(&L->shut, false);
    L->claim = c;
    L->failing = false;
    L->retry_at = 0;
    L->baudrate = cfg.baudrate;
    memcpy(L->dev, dev, sizeof(L->dev));
    /* Opened now, so that a wrong name or baud rate fails the listen rather than every accept. */
    z_result_t r = line_open(&L->line, dev, cfg.baudrate);
    if (r != Z_OK) {
        zm_free(c);
        zm_free(L);
        return r;
    }
    l->ops = &serial_listener_ops;
    l->ctx = L;
    return Z_OK;
}

/* Makes sure the listener has its line: opened again once the last link closed it. Z_OK with
 * L->line set, or ZM_E_AGAIN while a link holds the device or it cannot be opened yet. */
static z_result_t listener_line(serial_listener_t *L)
{
    if (L->line != NULL) {
        return Z_OK;
    }
    if (atomic_load(&L->claim->busy) || zm_port_clock_ms() < L->retry_at) {
        return ZM_E_AGAIN;
    }
    z_result_t r = line_open(&L->line, L->dev, L->baudrate);
    if (r != Z_OK) {
        if (!L->failing) {
            ZM_LOG_W("serial %s: cannot open the line: %s; trying again every %u ms", L->dev, zm_strerror(r),
                     (unsigned)REOPEN_MS);
        }
        L->failing = true;
        L->retry_at = zm_port_clock_ms() + REOPEN_MS;
        return ZM_E_AGAIN;
    }
    L->failing = false;
    return Z_OK;
}

/* The line took an INIT: answer, and hand the line over to out. */
static z_result_t hand_out(serial_listener_t *L, zm_link_t *out)
{
    serial_line_t *s = L->line;
    ZM_TRY(send_control(s, ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK, zm_port_clock_ms() + CONTROL_SEND_MS));
    atomic_fetch_add(&L->claim->refs, 1u);
    atomic_store(&L->claim->busy, true);
    s->claim = L->claim;
    L->line = NULL;
    out->ops = &zm_link_serial_ops;
    out->ctx = s;
    return Z_OK;
}

/*
 * Waits (in slices, checking for a shutdown) for an INIT on the device, then answers INIT|ACK and
 * returns the line as a new link. Anything before the INIT is skipped, as Rust does. While the
 * link handed out last is open, or the device cannot be opened, there is nothing to accept.
 */
static z_result_t listener_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms)
{
    serial_listener_t *L = listener->ctx;
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        if (atomic_load(&L->shut)) {
            return ZM_E_CLOSED;
        }
        uint64_t now = zm_port_clock_ms();
        uint64_t slice = now + LISTEN_SLICE_MS < deadline ? now + LISTEN_SLICE_MS : deadline;
        if (listener_line(L) == Z_OK) {
            zm_serial_frame_t f;
            z_result_t r = wait_frame(L->line, slice, &f);
            if (r == Z_OK && (f.flags & ZM_SERIAL_FLAG_INIT)) {
                r = hand_out(L, out);
                if (r == Z_OK) {
                    return Z_OK;
                }
            }
            if (r != Z_OK && r != ZM_E_TIMEOUT) {
                ZM_LOG_W("serial %s: the line failed: %s", L->dev, zm_strerror(r));
                line_free(L->line);
                L->line = NULL;
                L->retry_at = zm_port_clock_ms() + REOPEN_MS;
            }
            if (r == Z_OK) {
                continue; /* a frame other than INIT: skipped */
            }
        } else {
            sleep_until(slice, deadline);
        }
        if (zm_port_clock_ms() >= deadline) {
            return ZM_E_TIMEOUT;
        }
    }
}

/* Work without waiting: bytes already read, or a device to open again. */
static bool listener_pending(zm_link_t *l)
{
    serial_listener_t *L = l->ctx;
    if (L->line != NULL) {
        return L->line->raw_pos < L->line->raw_len;
    }
    return !atomic_load(&L->claim->busy) && zm_port_clock_ms() >= L->retry_at;
}

static z_result_t listener_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    serial_listener_t *L = l->ctx;
    if (listener_pending(l)) {
        return Z_OK;
    }
    if (L->line != NULL) {
        return zm_port_serial_wait_readable(&L->line->port, timeout_ms);
    }
    uint64_t now = zm_port_clock_ms();
    sleep_until(now + (timeout_ms < LISTEN_SLICE_MS ? timeout_ms : LISTEN_SLICE_MS), UINT64_MAX);
    return listener_pending(l) ? Z_OK : ZM_E_TIMEOUT;
}

#if ZM_PORT_SOCKETS
static zm_socket_t *listener_socket(zm_link_t *l)
{
    serial_listener_t *L = l->ctx;
    return L->line != NULL ? zm_port_serial_socket(&L->line->port) : NULL;
}
#endif

static void listener_shutdown(zm_link_t *l)
{
    serial_listener_t *L = l->ctx;
    atomic_store(&L->shut, true);
}

static void listener_close(zm_link_t *l)
{
    serial_listener_t *L = l->ctx;
    if (L->line != NULL) {
        line_free(L->line);
    }
    claim_release(L->claim);
    zm_free(L);
    l->ctx = NULL;
}
#endif /* Z_FEATURE_UNICAST_PEER */

const zm_link_ops_t zm_link_serial_ops = {
    .streamed = false,
    .mtu = ZM_SERIAL_MTU,
    .open = zm_serial_link_open,
    ZM_IF_PEER(.listen = serial_listen,)
    .wait_readable = zm_serial_link_wait_readable,
#if ZM_PORT_SOCKETS
    .socket = serial_socket,
#endif
    .pending = serial_pending,
    .send = zm_serial_link_send,
    .recv = zm_serial_link_recv,
    .shutdown = zm_serial_link_shutdown,
    .close = zm_serial_link_close,
};

#if Z_FEATURE_UNICAST_PEER
static const zm_link_ops_t serial_listener_ops = {
    .streamed = false,
    .mtu = ZM_SERIAL_MTU,
    .accept = listener_accept,
    .wait_readable = listener_wait_readable,
#if ZM_PORT_SOCKETS
    .socket = listener_socket,
#endif
    .pending = listener_pending,
    .shutdown = listener_shutdown,
    .close = listener_close,
};
#endif

#endif /* Z_FEATURE_LINK_SERIAL */
