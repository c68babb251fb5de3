/*
 * libFuzzer target: the input is one transport batch, and also one scouting message and one
 * network message. Whatever decodes must re-encode, the re-encoding must decode again, and the
 * second encoding must be byte-identical to the first (decode . encode is idempotent); anything
 * else aborts. A HELLO's locators go on as a session takes them: parsed as endpoints and
 * filtered by what it may dial; one that may be dialled must be a tcp or udp one, and format back. The encoders write into static buffers; the only per-input allocation is the
 * exact-size copy the second decode reads, so that ASan catches reads past its end too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/codec.h"
#include "transport/scout.h"

/* A batch is at most 65535 bytes; its re-encoding can only be a little longer. */
#define INPUT_MAX 65535u
#define ENC_CAP (4u * (65535u + 2u))

static uint8_t enc1[ENC_CAP], enc2[ENC_CAP];

typedef enum { LAYER_SCOUTING, LAYER_TRANSPORT, LAYER_NETWORK } layer_t;
typedef enum { STEP_OK, STEP_DECODE, STEP_ENCODE } step_t;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *layer, const char *why, z_result_t rc, const uint8_t *in, size_t len,
                const uint8_t *e1, size_t n1, const uint8_t *e2, size_t n2);

/* A HELLO's locators, as a scouting session reads them before it dials one. */
static void hello_locators(const zm_hello_t *h, const uint8_t *in, size_t len)
{
#if Z_FEATURE_SCOUTING
    zm_reader_t it;
    zm_reader_init(&it, h->locators.ptr, h->locators.len);
    zm_slice_t loc;
    bool got = false;
    while (zm_locators_next(&it, &loc, &got) == Z_OK && got) {
        char text[ZM_LOCATOR_MAX + 1];
        memcpy(text, loc.ptr, loc.len); /* at most ZM_LOCATOR_MAX: checked by the decoder */
        text[loc.len] = '\0';
        zm_endpoint_t ep;
        if (zm_endpoint_parse(&ep, text, loc.len, ZM_ENDPOINT_CONNECT) != Z_OK || !zm_scout_locator_dialable(&ep)) {
            continue;
        }
        char again[ZM_LOCATOR_MAX + 1];
        size_t n = 0;
        if ((ep.proto != ZM_PROTO_TCP && ep.proto != ZM_PROTO_UDP) ||
            zm_endpoint_to_locator(&ep, again, sizeof(again), &n) != Z_OK || n == 0) {
            die("scouting", "a locator that may be dialled is not a tcp or udp one that formats", Z_OK, in, len,
                NULL, 0, NULL, 0);
        }
    }
#else
    (void)h;
    (void)in;
    (void)len;
#endif
}

/* Decodes every message of a batch, re-encoding each into w as it goes. */
static step_t batch_roundtrip(const uint8_t *in, size_t len, zm_writer_t *w, z_result_t *rc)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, in, len, ZM_SN_MASK_DEFAULT);
    for (;;) {
        zm_transport_msg_t t;
        bool got;
        if ((*rc = zm_batch_next(&it, &t, &got)) != Z_OK) {
            return STEP_DECODE;
        }
        if (!got) {
            return STEP_OK;
        }
        if ((*rc = zm_transport_encode(w, &t)) != Z_OK) {
            return STEP_ENCODE;
        }
        while (t.id == ZM_MID_FRAME) {
            zm_network_msg_t n;
            if ((*rc = zm_batch_next_network(&it, &n, &got)) != Z_OK) {
                return STEP_DECODE;
            }
            if (!got) {
                break;
            }
            if ((*rc = zm_network_encode(w, &n)) != Z_OK) {
                return STEP_ENCODE;
            }
        }
    }
}

/*
 * A network message inside a FRAME, as the batch iterator hands it out (the PUSH of a stream on
 * a path of its own): the same result, the reader at the same place and the same message as
 * zm_network_decode gives, both decoded over the same filling.
 */
static void same_in_frame(const uint8_t *in, size_t len)
{
    if (len == 0 || !zm_is_network_header(in[0]) || !zm_network_decodes(in[0])) {
        return; /* the iterator ends the FRAME there instead */
    }
    static zm_network_msg_t a, b;
    memset(&a, 0x5a, sizeof(a));
    memset(&b, 0x5a, sizeof(b));
    zm_reader_t ra;
    zm_reader_init(&ra, in, len);
    z_result_t rca = zm_network_decode(&ra, &a);
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, in, len, ZM_SN_MASK_DEFAULT);
    it.in_frame = true;
    bool got = false;
    z_result_t rcb = zm_batch_next_network(&it, &b, &got);
    if (rcb != rca || got != (rca == Z_OK) || it.r.ptr != ra.ptr || (rca == Z_OK && memcmp(&a, &b, sizeof(a)) != 0)) {
        die("network", "decoded otherwise inside a FRAME", rcb, in, len, NULL, 0, NULL, 0);
    }
}

/*
 * The first transport message of a batch, as the iterator hands it out (a FRAME's header without
 * extension on a path of its own): the same result, the reader at the same place and the same
 * message as zm_transport_decode gives, at every SN resolution.
 */
static void same_at_batch_start(const uint8_t *in, size_t len)
{
    if (len == 0 || !zm_transport_decodes(in[0])) {
        return; /* the iterator ends the batch there instead */
    }
    for (uint8_t res = 0; res < 4; res++) {
        static zm_transport_msg_t a, b;
        memset(&a, 0x5a, sizeof(a));
        memset(&b, 0x5a, sizeof(b));
        zm_reader_t ra;
        zm_reader_init(&ra, in, len);
        z_result_t rca = zm_transport_decode(&ra, zm_sn_mask(res), &a);
        zm_batch_iter_t it;
        zm_batch_iter_init(&it, in, len, zm_sn_mask(res));
        bool got = false;
        z_result_t rcb = zm_batch_next(&it, &b, &got);
        if (rcb != rca || got != (rca == Z_OK) || it.r.ptr != ra.ptr || (rca == Z_OK && memcmp(&a, &b, sizeof(a)) != 0)) {
            die("batch", "decoded otherwise at a batch's start", rcb, in, len, NULL, 0, NULL, 0);
        }
    }
}

/*
 * A batch as a receiver decodes it straight when it holds one sample alone: where that says yes,
 * the iterator reads the same, at every SN resolution: one FRAME of that SN and reliability,
 * without extension, holding that one message, then the batch's end.
 */
static void same_lone_push(const uint8_t *in, size_t len)
{
#if ZM_DECODE_PUSH_PLAIN
    for (uint8_t res = 0; res < 4; res++) {
        static zm_lone_push_t lone;
        static zm_network_msg_t b;
        memset(&lone, 0x5a, sizeof(lone));
        memset(&b, 0x5a, sizeof(b));
        if (!zm_batch_lone_push(in, len, zm_sn_mask(res), &lone)) {
            continue;
        }
        const zm_network_msg_t *a = &lone.m;
        zm_batch_iter_t it;
        zm_batch_iter_init(&it, in, len, zm_sn_mask(res));
        zm_transport_msg_t t;
        bool got = false, more = true, after = true;
        bool same = zm_batch_next(&it, &t, &got) == Z_OK && got && t.id == ZM_MID_FRAME &&
                    t.body.frame.sn == lone.sn && t.body.frame.reliable == lone.reliable && !t.body.frame.has_qos &&
                    t.body.frame.unknown.n == 0 && zm_batch_next_network(&it, &b, &got) == Z_OK && got &&
                    memcmp(a, &b, sizeof(b)) == 0 &&
                    zm_batch_next_network(&it, &b, &more) == Z_OK && !more && zm_batch_next(&it, &t, &after) == Z_OK &&
                    !after;
        if (!same) {
            die("batch", "a lone sample decoded otherwise than by the iterator", Z_OK, in, len, NULL, 0, NULL, 0);
        }
    }
#else
    (void)in;
    (void)len;
#endif
}

/*
 * One decode + encode at a layer. A single message need not span the input the first time
 * (the fuzzer's bytes go on), but a re-encoding must decode to its last byte: whole says so.
 */
static step_t roundtrip(layer_t layer, const uint8_t *in, size_t len, bool whole, zm_writer_t *w,
                        z_result_t *rc)
{
    zm_reader_t r;
    zm_reader_init(&r, in, len);
    *rc = Z_OK;
    if (layer == LAYER_TRANSPORT) {
        same_at_batch_start(in, len);
        same_lone_push(in, len);
        return batch_roundtrip(in, len, w, rc);
    }
    if (layer == LAYER_SCOUTING) {
        zm_scouting_msg_t m;
        if ((*rc = zm_scouting_decode(&r, &m)) != Z_OK) {
            return STEP_DECODE;
        }
        if (whole && zm_reader_left(&r) > 0) {
            *rc = ZM_E_TRAILING;
            return STEP_DECODE;
        }
        if (m.id == ZM_MID_HELLO) {
            hello_locators(&m.body.hello, in, len);
        }
        *rc = zm_scouting_encode(w, &m);
    } else {
        zm_network_msg_t m;
        same_in_frame(in, len);
        if ((*rc = zm_network_decode(&r, &m)) != Z_OK) {
            return STEP_DECODE;
        }
        if (whole && zm_reader_left(&r) > 0) {
            *rc = ZM_E_TRAILING;
            return STEP_DECODE;
        }
        *rc = zm_network_encode(w, &m);
    }
    return *rc == Z_OK ? STEP_OK : STEP_ENCODE;
}

static void dump(const char *tag, const uint8_t *p, size_t n)
{
    fprintf(stderr, "  %s [%zu]:", tag, n);
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, " %02x", p[i]);
    }
    fprintf(stderr, "\n");
}

static void die(const char *layer, const char *why, z_result_t rc, const uint8_t *in, size_t len,
                const uint8_t *e1, size_t n1, const uint8_t *e2, size_t n2)
{
    if (rc != Z_OK) {
        fprintf(stderr, "fuzz_batch: %s: %s: %s\n", layer, why, zm_strerror(rc));
    } else {
        fprintf(stderr, "fuzz_batch: %s: %s\n", layer, why);
    }
    dump("input ", in, len);
    if (e1) {
        dump("first ", e1, n1);
    }
    if (e2) {
        dump("second", e2, n2);
    }
    abort();
}

static void check(layer_t layer, const char *name, const uint8_t *data, size_t size)
{
    zm_writer_t w1, w2;
    z_result_t rc;
    zm_writer_init(&w1, enc1, sizeof(enc1));
    step_t s = roundtrip(layer, data, size, false, &w1, &rc);
    if (s == STEP_DECODE) {
        return; /* refusing is always allowed */
    }
    if (s == STEP_ENCODE) {
        if (rc == ZM_E_NO_SPACE) {
            return;
        }
        die(name, "decoded, but does not re-encode", rc, data, size, NULL, 0, NULL, 0);
    }

    uint8_t *copy = malloc(w1.len > 0 ? w1.len : 1u);
    if (copy == NULL) {
        return;
    }
    if (w1.len > 0) {
        memcpy(copy, enc1, w1.len);
    }
    zm_writer_init(&w2, enc2, sizeof(enc2));
    s = roundtrip(layer, copy, w1.len, true, &w2, &rc);
    if (s == STEP_DECODE) {
        die(name, "the re-encoding does not decode", rc, data, size, enc1, w1.len, NULL, 0);
    }
    if (s == STEP_ENCODE) {
        die(name, "the re-encoding decodes, but does not re-encode", rc, data, size, enc1, w1.len,
            NULL, 0);
    }
    if (w2.len != w1.len || memcmp(enc1, enc2, w1.len) != 0) {
        die(name, "re-encoding is not idempotent", Z_OK, data, size, enc1, w1.len, enc2, w2.len);
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX) {
        return 0; /* no batch is longer */
    }
    check(LAYER_TRANSPORT, "batch", data, size);
    check(LAYER_SCOUTING, "scouting", data, size);
    check(LAYER_NETWORK, "network", data, size);
    return 0;
}
