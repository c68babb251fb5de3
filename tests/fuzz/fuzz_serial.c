/*
 * libFuzzer target for the serial framing. The input is a byte stream off a line, fed to the
 * decoder in chunks whose sizes come from the input itself. Every frame the decoder accepts must
 * encode back to a frame that decodes to the same flags and payload; every bad frame must count
 * once. The input is also sent the other way, as a payload, and must come back intact.
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
static zm_serial_decoder_t again;
static uint8_t wire[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];

/* Encodes f, decodes the result whole: same frame. */
static void reencode(const zm_serial_frame_t *f)
{
    size_t n = 0;
    REQUIRE(zm_serial_encode(f->flags, f->payload.ptr, f->payload.len, wire, sizeof(wire), &n) == Z_OK);
    REQUIRE(n <= ZM_SERIAL_WIRE_MAX(f->payload.len) && wire[n - 1] == 0 && memchr(wire, 0, n - 1) == NULL);
    zm_serial_decoder_init(&again);
    zm_serial_frame_t g;
    size_t used = 0;
    REQUIRE(zm_serial_decode(&again, wire, n, &used, &g) == Z_OK && used == n);
    REQUIRE(g.flags == f->flags && g.payload.len == f->payload.len);
    REQUIRE(g.payload.len == 0 || memcmp(g.payload.ptr, f->payload.ptr, g.payload.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zm_serial_decoder_init(&dec);
    size_t pos = 0;
    uint32_t bad = 0;
    while (pos < size) {
        size_t chunk = (size_t)(data[pos] % 64u) + 1u;
        size_t take = size - pos < chunk ? size - pos : chunk;
        size_t used = 0;
        zm_serial_frame_t f;
        z_result_t r = zm_serial_decode(&dec, data + pos, take, &used, &f);
        REQUIRE(used > 0 && used <= take);
        pos += used;
        if (r == Z_OK) {
            REQUIRE(f.payload.len <= ZM_SERIAL_MTU);
            zm_serial_frame_t copy = f; /* reencode uses its own decoder: f stays valid */
            reencode(&copy);
        } else if (r != ZM_E_AGAIN) {
            REQUIRE(r == ZM_E_CHECKSUM || r == ZM_E_TRUNCATED || r == ZM_E_NO_SPACE);
            bad++;
        }
    }
    REQUIRE(dec.dropped == bad);

    if (size <= ZM_SERIAL_MTU) {
        zm_serial_frame_t f = {.flags = size > 0 ? data[0] : 0, .payload = zm_slice(data, size)};
        reencode(&f);
    }
    return 0;
}
