/*
 * Codec speed: encode and decode of the data-path message, a PUSH carrying a PUT, in ns per
 * message, best of several rounds (the machine is shared; the minimum is the stable figure).
 * Usage: bench_codec [payload_bytes] [iterations]
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "proto/codec.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keeps the compiler from dropping work whose result is otherwise unused. */
static volatile size_t sink;

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 8;
    long iters = argc > 2 ? strtol(argv[2], NULL, 10) : 2000000;
    static uint8_t payload[65536];
    static uint8_t buf[65536 + 64];
    if (size > sizeof(payload)) {
        fprintf(stderr, "payload too large\n");
        return 1;
    }
    memset(payload, 0x5a, size);

    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.push.wire_expr.suffix = zm_slice("demo/example/zmote", 18);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = zm_slice(payload, size);

    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    if (zm_network_encode(&w, &m) != Z_OK) {
        return 1;
    }
    size_t wire_len = w.len;

    double best_enc = 1e30, best_dec = 1e30;
    for (int round = 0; round < 5; round++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            zm_writer_init(&w, buf, sizeof(buf));
            if (zm_network_encode(&w, &m) != Z_OK) {
                return 1;
            }
            sink += w.len;
        }
        double t1 = now_ns();
        for (long i = 0; i < iters; i++) {
            zm_reader_t r;
            zm_network_msg_t d;
            zm_reader_init(&r, buf, wire_len);
            if (zm_network_decode(&r, &d) != Z_OK) {
                return 1;
            }
            sink += d.body.push.body.put.payload.len;
        }
        double t2 = now_ns();
        double enc = (t1 - t0) / (double)iters, dec = (t2 - t1) / (double)iters;
        best_enc = enc < best_enc ? enc : best_enc;
        best_dec = dec < best_dec ? dec : best_dec;
    }
    printf("PUSH PUT key=18B payload=%zuB wire=%zuB: encode %.1f ns, decode %.1f ns (best of 5 x %ld)\n",
           size, wire_len, best_enc, best_dec, iters);
    return 0;
}
