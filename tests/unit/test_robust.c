/*
 * Robustness of the decoders against damaged input. Every golden vector (rust-wire.txt and, when
 * present, wire-gen.txt) is decoded at its layer truncated to every shorter length and with each
 * byte flipped; a decoder may refuse or accept, never crash or read past the input. Each mutant
 * is copied to a heap block of exactly its size, so ASan sees any overread. What decodes must
 * re-encode, decode again and re-encode to the same bytes. Then named errors, code and offset.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "proto/codec.h"

typedef enum { LAYER_SCOUTING, LAYER_TRANSPORT, LAYER_NETWORK, LAYER_STREAM } layer_t;

typedef struct {
    bool ok; /* expected to decode; an err row must not */
    layer_t layer;
    char name[200];
    uint8_t *bytes;
    size_t len;
} vector_t;

static vector_t *vectors;
static size_t nvectors, cap_vectors;

/* Re-encodings can be longer than their input only by a little; this bounds any vector. */
#define OUT_CAP (1u << 20)
static uint8_t out1[OUT_CAP], out2[OUT_CAP];

/* The bytes Rust refuses as "PUSH with QoS ext header 0x31": the QoS PUSH vector, ext 0x21->0x31. */
static const char push_qos_m_hex[] = "fd 03 02 2f 78 31 1c e1 80 80 80 80 18 01 01 02 43 02 01 02 02 68 69";

/* ============================== loading the vectors =========================================== */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* "aa bb" or "aabb" into a malloc'd block of exactly the byte count; false on bad hex. */
static bool parse_hex(const char *s, uint8_t **out, size_t *len)
{
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        if (is_blank(*p)) {
            continue;
        }
        if (hex_digit(p[0]) < 0 || hex_digit(p[1]) < 0) {
            return false;
        }
        n++;
        p++;
    }
    uint8_t *b = malloc(n > 0 ? n : 1u);
    if (b == NULL) {
        return false;
    }
    size_t i = 0;
    for (const char *p = s; *p; p++) {
        if (is_blank(*p)) {
            continue;
        }
        b[i++] = (uint8_t)(hex_digit(p[0]) << 4 | hex_digit(p[1]));
        p++;
    }
    *out = b;
    *len = n;
    return true;
}

static bool parse_layer(const char *s, layer_t *layer)
{
    if (strcmp(s, "scouting") == 0) {
        *layer = LAYER_SCOUTING;
    } else if (strcmp(s, "transport") == 0 || strcmp(s, "batch") == 0) {
        *layer = LAYER_TRANSPORT;
    } else if (strcmp(s, "network") == 0) {
        *layer = LAYER_NETWORK;
    } else if (strcmp(s, "stream") == 0) {
        *layer = LAYER_STREAM;
    } else {
        return false;
    }
    return true;
}

static void add_vector(bool ok, layer_t layer, const char *where, const char *name, const char *hex)
{
    vector_t v;
    v.ok = ok;
    v.layer = layer;
    snprintf(v.name, sizeof(v.name), "%s %s", where, name);
    bool parsed = parse_hex(hex, &v.bytes, &v.len);
    CHECK_CTX(parsed, "%s: bad hex", v.name);
    if (!parsed) {
        return;
    }
    if (nvectors == cap_vectors) {
        cap_vectors = cap_vectors ? cap_vectors * 2 : 128;
        vectors = realloc(vectors, cap_vectors * sizeof(*vectors));
        if (vectors == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    vectors[nvectors++] = v;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The layer of a rust-wire.txt vector, from its name (as the dump check script decides it). */
static layer_t rust_layer(const char *name)
{
    if (strcmp(name, "tcp") == 0 || starts_with(name, "TCP batch")) {
        return LAYER_STREAM;
    }
    if (starts_with(name, "SCOUT") || starts_with(name, "HELLO")) {
        return LAYER_SCOUTING;
    }
    static const char *const network[] = {"PUSH", "DECLARE", "INTEREST", "REQUEST", "RESPONSE",
                                          "network OAM"};
    for (size_t i = 0; i < ZM_ARRAY_LEN(network); i++) {
        if (starts_with(name, network[i])) {
            return LAYER_NETWORK;
        }
    }
    return LAYER_TRANSPORT;
}

/* Splits "NAME: [LEN] hex" at the last ": [" that is followed by digits and "]". */
static bool split_rust_line(char *line, char **name, unsigned long *len, char **hex)
{
    char *last = NULL, *end = NULL;
    for (char *p = strstr(line, ": ["); p != NULL; p = strstr(p + 1, ": [")) {
        char *e;
        unsigned long n = strtoul(p + 3, &e, 10);
        if (e > p + 3 && *e == ']') {
            last = p;
            end = e;
            *len = n;
        }
    }
    if (last == NULL) {
        return false;
    }
    *last = '\0';
    *hex = end + 1;
    *name = line;
    while (is_blank(**name)) {
        (*name)++;
    }
    return true;
}

static void load_rust_wire(void)
{
    const char *path = ZM_VECTORS_DIR "/rust-wire.txt";
    FILE *f = fopen(path, "r");
    CHECK_CTX(f != NULL, "cannot open %s", path);
    if (f == NULL) {
        return;
    }
    char line[1u << 16];
    unsigned lineno = 0;
    while (fgets(line, sizeof(line), f)) {
        char where[32], *name, *hex, *s = line;
        unsigned long len = 0;
        lineno++;
        snprintf(where, sizeof(where), "rust-wire.txt:%u", lineno);
        line[strcspn(line, "\r\n")] = '\0';
        while (is_blank(*s)) {
            s++;
        }
        if (*s == '\0' || *s == '#') {
            continue;
        }
        if (starts_with(line, "decode PUSH with QoS ext header 0x31") && strstr(line, "Err")) {
            add_vector(false, LAYER_NETWORK, where, "PUSH QoS ext 0x31", push_qos_m_hex);
            continue;
        }
        if (!split_rust_line(line, &name, &len, &hex)) {
            CHECK_CTX(false, "%s: line not understood", where);
            continue;
        }
        if (starts_with(name, "zint ") || starts_with(name, "zid(") ||
            starts_with(name, "timestamp ") || starts_with(name, "encoding ")) {
            continue;
        }
        size_t before = nvectors;
        add_vector(true, rust_layer(name), where, name, hex);
        if (nvectors > before) {
            CHECK_CTX(vectors[nvectors - 1].len == len, "%s: [%lu] but %zu bytes", where, len,
                      vectors[nvectors - 1].len);
        }
    }
    fclose(f);
}

/* wire-gen.txt: `ok|err TAB layer TAB name TAB hex`; other lines are comments. */
static void load_wire_gen(void)
{
    const char *path = ZM_VECTORS_DIR "/wire-gen.txt";
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        printf("note: %s not found, skipped\n", path);
        return;
    }
    static char line[1u << 20];
    unsigned lineno = 0, rows = 0;
    while (fgets(line, sizeof(line), f)) {
        char where[32];
        lineno++;
        snprintf(where, sizeof(where), "wire-gen.txt:%u", lineno);
        line[strcspn(line, "\r\n")] = '\0';
        bool ok = starts_with(line, "ok\t");
        if (!ok && !starts_with(line, "err\t")) {
            continue;
        }
        char *layer = strchr(line, '\t') + 1;
        char *name = strchr(layer, '\t');
        char *hex = name ? strchr(name + 1, '\t') : NULL;
        layer_t l;
        if (hex == NULL) {
            CHECK_CTX(false, "%s: expected 4 TAB-separated fields", where);
            continue;
        }
        *name++ = '\0';
        *hex++ = '\0';
        if (!parse_layer(layer, &l)) {
            CHECK_CTX(false, "%s: unknown layer '%s'", where, layer);
            continue;
        }
        add_vector(ok, l, where, name, hex);
        rows++;
    }
    fclose(f);
    CHECK_CTX(rows > 0, "%s has no ok/err rows", path);
}

/* ============================== decode and re-encode at a layer =============================== */

typedef struct {
    z_result_t rc;
    bool encoding; /* the failure came from an encoder, after a clean decode */
    size_t at;     /* input offset of a decode failure */
} outcome_t;

static outcome_t failed_at(z_result_t rc, bool encoding, size_t at)
{
    outcome_t o = {rc, encoding, at};
    return o;
}

/* Decodes a batch and, if w is not NULL, re-encodes each message into w as it goes. */
static outcome_t batch_roundtrip(const uint8_t *b, size_t len, size_t base, zm_writer_t *w)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, b, len, ZM_SN_MASK_DEFAULT);
    for (;;) {
        zm_transport_msg_t t;
        bool got;
        z_result_t rc = zm_batch_next(&it, &t, &got);
        if (rc != Z_OK) {
            return failed_at(rc, false, base + zm_reader_offset(&it.r));
        }
        if (!got) {
            return failed_at(Z_OK, false, 0);
        }
        if (w && (rc = zm_transport_encode(w, &t)) != Z_OK) {
            return failed_at(rc, true, 0);
        }
        while (t.id == ZM_MID_FRAME) {
            zm_network_msg_t n;
            rc = zm_batch_next_network(&it, &n, &got);
            if (rc != Z_OK) {
                return failed_at(rc, false, base + zm_reader_offset(&it.r));
            }
            if (!got) {
                break;
            }
            if (w && (rc = zm_network_encode(w, &n)) != Z_OK) {
                return failed_at(rc, true, 0);
            }
        }
    }
}

static outcome_t roundtrip(layer_t layer, const uint8_t *in, size_t len, zm_writer_t *w)
{
    zm_reader_t r;
    z_result_t rc;
    zm_reader_init(&r, in, len);
    switch (layer) {
    case LAYER_TRANSPORT:
        return batch_roundtrip(in, len, 0, w);
    case LAYER_STREAM:
        while (zm_reader_left(&r) > 0) {
            zm_slice_t batch;
            if ((rc = zm_stream_next(&r, &batch)) != Z_OK) {
                return failed_at(rc, false, zm_reader_offset(&r));
            }
            size_t mark = 0;
            if (w) {
                if (zm_writer_left(w) < 2) {
                    return failed_at(ZM_E_NO_SPACE, true, 0);
                }
                mark = w->len;
                w->len += 2;
            }
            outcome_t o = batch_roundtrip(batch.ptr, batch.len, (size_t)(batch.ptr - in), w);
            if (o.rc != Z_OK) {
                return o;
            }
            if (w) {
                size_t n = w->len - mark - 2;
                if (n > UINT16_MAX) {
                    return failed_at(ZM_E_NO_SPACE, true, 0);
                }
                w->data[mark] = (uint8_t)n;
                w->data[mark + 1] = (uint8_t)(n >> 8);
            }
        }
        return failed_at(Z_OK, false, 0);
    case LAYER_SCOUTING: {
        zm_scouting_msg_t m;
        if ((rc = zm_scouting_decode(&r, &m)) != Z_OK) {
            return failed_at(rc, false, zm_reader_offset(&r));
        }
        if (zm_reader_left(&r) > 0) {
            return failed_at(ZM_E_TRAILING, false, zm_reader_offset(&r));
        }
        if (w && (rc = zm_scouting_encode(w, &m)) != Z_OK) {
            return failed_at(rc, true, 0);
        }
        return failed_at(Z_OK, false, 0);
    }
    case LAYER_NETWORK:
    default: {
        zm_network_msg_t m;
        if ((rc = zm_network_decode(&r, &m)) != Z_OK) {
            return failed_at(rc, false, zm_reader_offset(&r));
        }
        if (zm_reader_left(&r) > 0) {
            return failed_at(ZM_E_TRAILING, false, zm_reader_offset(&r));
        }
        if (w && (rc = zm_network_encode(w, &m)) != Z_OK) {
            return failed_at(rc, true, 0);
        }
        return failed_at(Z_OK, false, 0);
    }
    }
}

static const char *layer_name(layer_t l)
{
    static const char *const names[] = {"scouting", "transport", "network", "stream"};
    return names[l];
}

static void dump_hex(const char *tag, const uint8_t *p, size_t n)
{
    fprintf(stderr, "    %s:", tag);
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, " %02x", p[i]);
    }
    fprintf(stderr, "\n");
}

/* ============================== mutation checks =============================================== */

static unsigned mutants, mutants_decoded, problems;

/*
 * Decodes one mutant from an exact-size heap copy. It may fail; if it decodes it must re-encode,
 * the re-encoding must decode, and re-encode to itself. Returns false (after saying why) if not.
 */
static bool check_mutant(const vector_t *v, const uint8_t *bytes, size_t len, const char *what)
{
    uint8_t *copy = malloc(len > 0 ? len : 1u);
    zm_writer_t w1, w2;
    bool good = true;
    if (copy == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (len > 0) {
        memcpy(copy, bytes, len);
    }
    mutants++;
    zm_writer_init(&w1, out1, sizeof(out1));
    outcome_t o = roundtrip(v->layer, copy, len, &w1);
    if (o.rc == Z_OK || o.encoding) {
        mutants_decoded++;
    }
    if (o.rc != Z_OK && !o.encoding && o.at > len) {
        fprintf(stderr, "FAIL %s (%s): error offset %zu beyond the input (%zu bytes)\n", v->name,
                what, o.at, len);
        good = false;
    } else if (o.rc != Z_OK && o.encoding) {
        fprintf(stderr, "FAIL %s (%s): decoded but re-encoding failed: %s\n", v->name, what,
                zm_strerror(o.rc));
        good = false;
    } else if (o.rc == Z_OK) {
        uint8_t *again = malloc(w1.len > 0 ? w1.len : 1u);
        if (again == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        if (w1.len > 0) {
            memcpy(again, w1.data, w1.len);
        }
        zm_writer_init(&w2, out2, sizeof(out2));
        outcome_t o2 = roundtrip(v->layer, again, w1.len, &w2);
        if (o2.rc != Z_OK) {
            fprintf(stderr, "FAIL %s (%s): the re-encoding does not %s: %s at byte %zu\n", v->name,
                    what, o2.encoding ? "re-encode" : "decode", zm_strerror(o2.rc), o2.at);
            good = false;
        } else if (w2.len != w1.len || memcmp(out1, out2, w1.len) != 0) {
            fprintf(stderr, "FAIL %s (%s): re-encoding is not idempotent\n", v->name, what);
            good = false;
        }
        if (!good) {
            dump_hex("first ", out1, w1.len);
            if (o2.rc == Z_OK) {
                dump_hex("second", out2, w2.len);
            }
        }
        free(again);
    }
    if (!good) {
        dump_hex("input ", bytes, len);
        problems++;
    }
    free(copy);
    return good;
}

static void check_vector(const vector_t *v)
{
    unsigned before = problems;
    char what[64];

    /* The vector itself: ok rows re-encode to their own bytes, err rows fail to decode. */
    uint8_t *copy = malloc(v->len > 0 ? v->len : 1u);
    zm_writer_t w;
    if (copy == NULL) {
        exit(2);
    }
    if (v->len > 0) {
        memcpy(copy, v->bytes, v->len);
    }
    zm_writer_init(&w, out1, sizeof(out1));
    outcome_t o = roundtrip(v->layer, copy, v->len, &w);
    free(copy);
    if (v->ok) {
        CHECK_CTX(o.rc == Z_OK, "%s (%s): %s%s at byte %zu", v->name, layer_name(v->layer),
                  o.encoding ? "re-encoding: " : "", zm_strerror(o.rc), o.at);
        if (o.rc == Z_OK) {
            CHECK_EQ_MEM(out1, w.len, v->bytes, v->len);
        }
    } else {
        CHECK_CTX(o.rc != Z_OK && !o.encoding && o.at <= v->len, "%s (%s): decoded, or bad offset",
                  v->name, layer_name(v->layer));
    }

    for (size_t n = 0; n < v->len; n++) {
        snprintf(what, sizeof(what), "truncated to %zu", n);
        (void)check_mutant(v, v->bytes, n, what);
    }
    uint8_t *m = malloc(v->len > 0 ? v->len : 1u);
    if (m == NULL) {
        exit(2);
    }
    static const uint8_t masks[] = {0xff, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80};
    for (size_t i = 0; i < v->len; i++) {
        for (size_t k = 0; k < ZM_ARRAY_LEN(masks); k++) {
            memcpy(m, v->bytes, v->len);
            m[i] ^= masks[k];
            snprintf(what, sizeof(what), "byte %zu ^ 0x%02x", i, masks[k]);
            (void)check_mutant(v, m, v->len, what);
        }
    }
    free(m);
    CHECK_CTX(problems == before, "%s: %u mutants misbehaved", v->name, problems - before);
}

/* ============================== named errors ================================================== */

typedef struct {
    const char *what;
    layer_t layer;
    const char *hex;
    z_result_t rc;
    size_t at; /* where the decoder must say the problem is */
} named_t;

/* "demo/example" as a wire-expr suffix, and a PUSH header around it */
#define DEMO "0c 64 65 6d 6f 2f 65 78 61 6d 70 6c 65"

static const named_t named[] = {
    /* a zint of 10 continuation-marked bytes: the first 9 make u64::MAX, too big for z32/z16 */
    {"REQUEST rid ff x9 01", LAYER_NETWORK, "1c ff ff ff ff ff ff ff ff ff 01 00 03",
     ZM_E_ZINT_OVERFLOW, 1},
    {"PUSH scope ff x9 01", LAYER_NETWORK, "1d ff ff ff ff ff ff ff ff ff 01 01 00",
     ZM_E_ZINT_OVERFLOW, 1},
    {"PUSH scope 65536", LAYER_NETWORK, "1d 80 80 04 01 00", ZM_E_ZINT_OVERFLOW, 1},
    {"PUSH scope 65535", LAYER_NETWORK, "1d ff ff 03 01 00", Z_OK, 0},
    {"REQUEST rid 2^32", LAYER_NETWORK, "1c 80 80 80 80 10 00 03", ZM_E_ZINT_OVERFLOW, 1},
    {"REQUEST rid 2^32-1", LAYER_NETWORK, "1c ff ff ff ff 0f 00 03", Z_OK, 0},
    {"RESPONSE_FINAL rid 2^32", LAYER_NETWORK, "1a 80 80 80 80 10", ZM_E_ZINT_OVERFLOW, 1},
    {"INIT whatami 0b11", LAYER_TRANSPORT, "01 09 13 01 02", ZM_E_WHATAMI, 2},
    {"JOIN whatami 0b11", LAYER_TRANSPORT, "07 09 13 01 02 0a 01 02", ZM_E_WHATAMI, 2},
    {"HELLO whatami 0b11", LAYER_SCOUTING, "02 09 13 01 02", ZM_E_WHATAMI, 2},
    {"INIT zid 00", LAYER_TRANSPORT, "01 09 02 00", ZM_E_ZID, 3},
    {"FRAME sn 0x10000000", LAYER_TRANSPORT, "25 80 80 80 80 01", ZM_E_SN_RANGE, 1},
    {"FRAME sn 0x0fffffff", LAYER_TRANSPORT, "25 ff ff ff 7f", Z_OK, 0},
    {"FRAGMENT sn 0x10000000", LAYER_TRANSPORT, "26 80 80 80 80 01 aa", ZM_E_SN_RANGE, 1},
    {"PUSH unknown mandatory ext 0x1f", LAYER_NETWORK, "bd 00 " DEMO " 1f 01 02 68 69",
     ZM_E_EXT_MANDATORY, 15},
    {"PUSH QoS ext as 0x31 (M)", LAYER_NETWORK, "bd 00 " DEMO " 31 01 01 02 68 69",
     ZM_E_EXT_MANDATORY, 15},
    {"PUSH unknown optional ext 0x0f", LAYER_NETWORK, "bd 00 " DEMO " 0f 01 02 68 69", Z_OK, 0},
    {"FRAME unknown mandatory ext 0x12", LAYER_TRANSPORT, "a5 05 12", ZM_E_EXT_MANDATORY, 2},
    {"PUSH ext ENC 0b11", LAYER_NETWORK, "bd 00 " DEMO " 61 01 02 68 69", ZM_E_EXT_ENCODING, 15},
    {"PUT ext ENC 0b11", LAYER_NETWORK, "3d 00 " DEMO " 81 61 02 68 69", ZM_E_EXT_ENCODING, 16},
    {"unknown transport id 0x08", LAYER_TRANSPORT, "08", ZM_E_MSG_UNKNOWN, 0},
    {"FRAME then id 0x18", LAYER_TRANSPORT, "25 05 18", ZM_E_MSG_UNKNOWN, 2},
    {"FRAME PUSH then id 0x10", LAYER_TRANSPORT, "25 05 1d 00 01 00 10", ZM_E_MSG_UNKNOWN, 6},
    {"transport id as network", LAYER_NETWORK, "05 00", ZM_E_MSG_UNKNOWN, 0},
    {"unknown scouting id 0x03", LAYER_SCOUTING, "03 09 03", ZM_E_MSG_UNKNOWN, 0},
    {"DECLARE unknown declaration 0x08", LAYER_NETWORK, "1e 08 01", ZM_E_DECL_UNKNOWN, 1},
    {"truncated FRAME", LAYER_TRANSPORT, "25", ZM_E_TRUNCATED, 1},
    {"stream length past the end", LAYER_STREAM, "05 00 04", ZM_E_TRUNCATED, 0},
};

static void check_named(void)
{
    for (size_t i = 0; i < ZM_ARRAY_LEN(named); i++) {
        const named_t *c = &named[i];
        uint8_t *b;
        size_t len;
        zm_writer_t w;
        CHECK_CTX(parse_hex(c->hex, &b, &len), "%s: bad hex", c->what);
        zm_writer_init(&w, out1, sizeof(out1));
        outcome_t o = roundtrip(c->layer, b, len, &w);
        CHECK_CTX(o.rc == c->rc && !o.encoding, "%s: got %d (%s%s), want %d (%s)", c->what, o.rc,
                  o.encoding ? "re-encoding: " : "", zm_strerror(o.rc), c->rc,
                  zm_strerror(c->rc));
        if (c->rc != Z_OK) {
            CHECK_CTX(o.at == c->at, "%s: error at byte %zu, want %zu", c->what, o.at, c->at);
        } else if (o.rc == Z_OK) {
            CHECK_EQ_MEM(out1, w.len, b, len);
        }
        free(b);
    }
}

int main(void)
{
    load_rust_wire();
    load_wire_gen();
    CHECK_CTX(nvectors > 50, "only %zu vectors loaded", nvectors);
    for (size_t i = 0; i < nvectors; i++) {
        check_vector(&vectors[i]);
    }
    printf("%zu vectors, %u mutants, %u decoded, %u misbehaved\n", nvectors, mutants,
           mutants_decoded, problems);
    check_named();
    for (size_t i = 0; i < nvectors; i++) {
        free(vectors[i].bytes);
    }
    free(vectors);
    return CHECK_DONE();
}
