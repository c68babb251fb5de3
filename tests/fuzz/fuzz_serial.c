/*
 * libFuzzer target for the serial framing. The input is a byte stream off a line, fed to the
 * decoder in chunks whose sizes come from the input itself, into a buffer that moves between
 * chunks (the frame in progress carried along, as zm_link_rebuffer does). A second decoder with a
 * smaller buffer, its size from the input too, eats the same chunks and must agree frame by frame
 * (a frame too long for it comes out as ZM_E_FIELD). Every frame the decoder accepts must encode
 * back, whole and in pieces alike, to a frame that decodes to the same flags and payload; every
 * bad frame must count once. The input is also sent the other way, as a payload, and must come
 * back intact.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link/serial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)     \
    do {                  \
        if (!(cond)) {    \
            abort();      \
        }                 \
    } while (0)

static zm_serial_decoder_t dec;
static zm_serial_decoder_t narrow;
static zm_serial_decoder_t again;
static uint8_t bufs[2][ZM_SERIAL_MTU];
static uint8_t narrow_buf[ZM_SERIAL_MTU];
static uint8_t again_buf[ZM_SERIAL_MTU];
static uint8_t wire[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];
static uint8_t pieces[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];

/* Encodes f whole and in pieces of piece bytes (same bytes), decodes the result whole: same frame. */
static void reencode(const zm_serial_frame_t *f, size_t piece)
{
    size_t n = 0;
    REQUIRE(zm_serial_encode(f->flags, f->payload.ptr, f->payload.len, wire, sizeof(wire), &n) == Z_OK);
    REQUIRE(n <= ZM_SERIAL_WIRE_MAX(f->payload.len) && wire[n - 1] == 0 && memchr(wire, 0, n - 1) == NULL);
    zm_serial_encoder_t e;
    REQUIRE(zm_serial_encoder_start(&e, f->flags, f->payload.ptr, f->payload.len) == Z_OK);
    size_t have = 0, k;
    while (have < sizeof(pieces) &&
           (k = zm_serial_encoder_fill(&e, pieces + have, piece < sizeof(pieces) - have ? piece : sizeof(pieces) - have)) > 0) {
        have += k;
    }
    REQUIRE(have == n && memcmp(pieces, wire, n) == 0 && zm_serial_encoder_fill(&e, pieces, 1) == 0);
    zm_serial_decoder_init(&again);
    zm_serial_frame_t g;
    size_t used = 0;
    REQUIRE(zm_serial_decode(&again, wire, n, &used, again_buf, sizeof(again_buf), &g) == Z_OK && used == n);
    REQUIRE(g.flags == f->flags && g.payload.len == f->payload.len);
    REQUIRE(g.payload.len == 0 || memcmp(g.payload.ptr, f->payload.ptr, g.payload.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zm_serial_decoder_init(&dec);
    zm_serial_decoder_init(&narrow);
    size_t narrow_cap = size > 0 ? (size_t)data[0] * 6u : 0u; /* 0..1530: some frames do not fit */
    if (narrow_cap > sizeof(narrow_buf)) {
        narrow_cap = sizeof(narrow_buf);
    }
    size_t pos = 0;
    unsigned cur = 0;
    uint32_t bad = 0;
    while (pos < size) {
        size_t chunk = (size_t)(data[pos] % 64u) + 1u;
        size_t take = size - pos < chunk ? size - pos : chunk;
        /* the frame in progress moves to the other buffer */
        REQUIRE(dec.stored <= sizeof(bufs[0]));
        memcpy(bufs[cur ^ 1u], bufs[cur], dec.stored);
        cur ^= 1u;
        size_t used = 0, nused = 0;
        zm_serial_frame_t f, g;
        z_result_t r = zm_serial_decode(&dec, data + pos, take, &used, bufs[cur], sizeof(bufs[cur]), &f);
        z_result_t nr = zm_serial_decode(&narrow, data + pos, take, &nused, narrow_buf, narrow_cap, &g);
        REQUIRE(used > 0 && used <= take && nused == used);
        pos += used;
        if (r == Z_OK) {
            REQUIRE(f.payload.len <= ZM_SERIAL_MTU && f.payload.ptr == bufs[cur]);
            if (f.payload.len <= narrow_cap) {
                REQUIRE(nr == Z_OK && g.flags == f.flags && g.payload.len == f.payload.len);
                REQUIRE(g.payload.len == 0 || memcmp(g.payload.ptr, f.payload.ptr, g.payload.len) == 0);
            } else {
                REQUIRE(nr == ZM_E_FIELD && g.flags == f.flags && g.payload.len == 0);
            }
            zm_serial_frame_t copy = f; /* reencode uses its own decoder: f stays valid */
            reencode(&copy, (size_t)(data[pos - 1] % 70u) + 1u);
        } else {
            REQUIRE(nr == r);
            if (r != ZM_E_AGAIN) {
                REQUIRE(r == ZM_E_CHECKSUM || r == ZM_E_TRUNCATED || r == ZM_E_NO_SPACE);
                bad++;
            }
        }
    }
    REQUIRE(dec.dropped == bad && narrow.dropped == bad);

    if (size <= ZM_SERIAL_MTU) {
        zm_serial_frame_t f = {.flags = size > 0 ? data[0] : 0, .payload = zm_slice(data, size)};
        reencode(&f, size > 1 ? (size_t)data[1] + 1u : 1u);
    }
    return 0;
}
