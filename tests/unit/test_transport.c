/*
 * Scouting and transport codecs, stream framing and batch iteration, against the golden bytes of
 * the Rust 1.10.2 codec (tests/vectors/rust-wire.txt): each message is built by hand, encoded
 * byte-exact, decoded back to the same fields, and re-encoded. Then every named decode error on
 * crafted input, all-or-nothing encoding into short writers, and the stream splitter.
 */
#include <stdlib.h>

#include "check.h"
#include "proto/codec.h"

/* ---- the vector file --------------------------------------------------------------------- */

#define MAX_VECTORS 128
#define MAX_BYTES 512

typedef struct {
    char name[160];
    uint8_t bytes[MAX_BYTES];
    size_t len;
    uint8_t tail[MAX_BYTES]; /* "  +..." lines: more messages appended in the same batch */
    size_t tail_len;
    uint8_t tcp[MAX_BYTES]; /* "  tcp:" lines: the stream form of the whole batch */
    size_t tcp_len;
    bool used;
} vector_t;

static vector_t vectors[MAX_VECTORS];
static size_t n_vectors;

static size_t parse_hex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\n' || *s == '\r') {
            s++;
        }
        if (!*s) {
            break;
        }
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1 || n >= cap) {
            fprintf(stderr, "bad hex near '%s'\n", s);
            exit(2);
        }
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

/* "NAME: [LEN] hex"; the name itself may contain ':' so the last ": [" splits. */
static void load_vectors(void)
{
    FILE *f = fopen(ZM_VECTORS_DIR "/rust-wire.txt", "r");
    char line[2048];
    if (!f) {
        fprintf(stderr, "cannot open rust-wire.txt\n");
        exit(2);
    }
    while (fgets(line, sizeof(line), f)) {
        char *sep = NULL;
        for (char *p = strstr(line, ": ["); p; p = strstr(p + 1, ": [")) {
            sep = p;
        }
        if (!sep) {
            continue;
        }
        *sep = '\0';
        size_t len = strtoul(sep + 3, NULL, 10);
        const char *hex = strchr(sep + 3, ']') + 1;
        if (line[0] == ' ' && line[1] == ' ') {
            vector_t *prev = &vectors[n_vectors - 1];
            if (strcmp(line + 2, "tcp") == 0) {
                prev->tcp_len = parse_hex(hex, prev->tcp, MAX_BYTES);
                CHECK_EQ_INT(prev->tcp_len, len);
            } else {
                prev->tail_len = parse_hex(hex, prev->tail, MAX_BYTES);
                CHECK_EQ_INT(prev->tail_len, len);
            }
            continue;
        }
        if (n_vectors == MAX_VECTORS) {
            exit(2);
        }
        vector_t *v = &vectors[n_vectors++];
        size_t name_len = strlen(line) < sizeof(v->name) - 1 ? strlen(line) : sizeof(v->name) - 1;
        memcpy(v->name, line, name_len);
        v->name[name_len] = '\0';
        v->len = parse_hex(hex, v->bytes, MAX_BYTES);
        CHECK_CTX(v->len == len, "%s: %zu bytes, header says %zu", v->name, v->len, len);
    }
    fclose(f);
}

static vector_t *vec(const char *name)
{
    for (size_t i = 0; i < n_vectors; i++) {
        if (strcmp(vectors[i].name, name) == 0) {
            vectors[i].used = true;
            return &vectors[i];
        }
    }
    fprintf(stderr, "missing vector '%s'\n", name);
    exit(2);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static zm_zid_t zid_of(const uint8_t *b, uint8_t len)
{
    zm_zid_t z;
    memset(&z, 0, sizeof(z));
    z.len = len;
    memcpy(z.id, b, len);
    return z;
}

static const uint8_t ZID_0102[] = {0x01, 0x02};
static const uint8_t ZID_16[] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
                                 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};

static bool slice_is(zm_slice_t s, const void *b, size_t n)
{
    return zm_slice_eq(s, zm_slice(b, n));
}

static bool zid_eq(const zm_zid_t *a, const zm_zid_t *b)
{
    return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

static bool unknown_eq(const zm_ext_unknown_t *a, const zm_ext_unknown_t *b)
{
    if (a->n != b->n || a->dropped != b->dropped) {
        return false;
    }
    for (uint8_t i = 0; i < a->n; i++) {
        /* the Z bit of a kept extension depends on its position, not on the extension */
        if (a->raw[i].len != b->raw[i].len || (a->raw[i].ptr[0] & 0x7f) != (b->raw[i].ptr[0] & 0x7f) ||
            memcmp(a->raw[i].ptr + 1, b->raw[i].ptr + 1, a->raw[i].len - 1) != 0) {
            return false;
        }
    }
    return true;
}

/* Field-by-field equality of two transport messages (slices by content). */
static bool transport_eq(const zm_transport_msg_t *a, const zm_transport_msg_t *b)
{
    if (a->id != b->id) {
        return false;
    }
    switch (a->id) {
    case ZM_MID_INIT: {
        const zm_init_t *x = &a->body.init, *y = &b->body.init;
        return x->ack == y->ack && x->version == y->version && x->whatami == y->whatami &&
               zid_eq(&x->zid, &y->zid) && x->has_size == y->has_size && x->resolution == y->resolution &&
               x->batch_size == y->batch_size && zm_slice_eq(x->cookie, y->cookie) && x->exts == y->exts &&
               (!(x->exts & ZM_INIT_EXT_QOS_LINK) || x->qos_link == y->qos_link) &&
               zm_slice_eq(x->shm, y->shm) && zm_slice_eq(x->auth, y->auth) &&
               zm_slice_eq(x->mlink, y->mlink) && zm_slice_eq(x->region, y->region) &&
               (!(x->exts & ZM_INIT_EXT_PATCH) || x->patch == y->patch) &&
               unknown_eq(&x->unknown, &y->unknown);
    }
    case ZM_MID_OPEN: {
        const zm_open_t *x = &a->body.open, *y = &b->body.open;
        return x->ack == y->ack && x->lease_secs == y->lease_secs && x->lease == y->lease &&
               x->initial_sn == y->initial_sn && zm_slice_eq(x->cookie, y->cookie) && x->exts == y->exts &&
               zm_slice_eq(x->shm, y->shm) && zm_slice_eq(x->auth, y->auth) &&
               zm_slice_eq(x->mlink, y->mlink) &&
               (!(x->exts & ZM_OPEN_EXT_REMOTE_BOUND) || x->remote_bound == y->remote_bound) &&
               unknown_eq(&x->unknown, &y->unknown);
    }
    case ZM_MID_CLOSE:
        return a->body.close.session == b->body.close.session &&
               a->body.close.reason == b->body.close.reason &&
               unknown_eq(&a->body.close.unknown, &b->body.close.unknown);
    case ZM_MID_KEEP_ALIVE:
        return unknown_eq(&a->body.keep_alive.unknown, &b->body.keep_alive.unknown);
    case ZM_MID_FRAME: {
        const zm_frame_t *x = &a->body.frame, *y = &b->body.frame;
        return x->reliable == y->reliable && x->sn == y->sn && x->has_qos == y->has_qos &&
               (!x->has_qos || x->qos == y->qos) && unknown_eq(&x->unknown, &y->unknown);
    }
    case ZM_MID_FRAGMENT: {
        const zm_fragment_t *x = &a->body.fragment, *y = &b->body.fragment;
        return x->reliable == y->reliable && x->more == y->more && x->sn == y->sn &&
               x->has_qos == y->has_qos && (!x->has_qos || x->qos == y->qos) && x->first == y->first &&
               x->drop == y->drop && zm_slice_eq(x->payload, y->payload) &&
               unknown_eq(&x->unknown, &y->unknown);
    }
    case ZM_MID_JOIN: {
        const zm_join_t *x = &a->body.join, *y = &b->body.join;
        return x->version == y->version && x->whatami == y->whatami && zid_eq(&x->zid, &y->zid) &&
               x->has_size == y->has_size && x->resolution == y->resolution &&
               x->batch_size == y->batch_size && x->lease_secs == y->lease_secs && x->lease == y->lease &&
               x->next_sn_reliable == y->next_sn_reliable &&
               x->next_sn_best_effort == y->next_sn_best_effort && x->exts == y->exts &&
               zm_slice_eq(x->qos_sns, y->qos_sns) && zm_slice_eq(x->shm, y->shm) &&
               (!(x->exts & ZM_JOIN_EXT_PATCH) || x->patch == y->patch) &&
               unknown_eq(&x->unknown, &y->unknown);
    }
    case ZM_MID_T_OAM: {
        const zm_oam_t *x = &a->body.oam, *y = &b->body.oam;
        return x->id == y->id && x->enc == y->enc && (x->enc != ZM_OAM_Z64 || x->z64 == y->z64) &&
               (x->enc != ZM_OAM_ZBUF || zm_slice_eq(x->zbuf, y->zbuf)) && x->has_qos == y->has_qos &&
               (!x->has_qos || x->qos == y->qos) && unknown_eq(&x->unknown, &y->unknown);
    }
    default:
        return false;
    }
}

static bool scouting_eq(const zm_scouting_msg_t *a, const zm_scouting_msg_t *b)
{
    if (a->id != b->id) {
        return false;
    }
    if (a->id == ZM_MID_SCOUT) {
        const zm_scout_t *x = &a->body.scout, *y = &b->body.scout;
        return x->version == y->version && x->what == y->what && x->has_zid == y->has_zid &&
               (!x->has_zid || zid_eq(&x->zid, &y->zid)) && unknown_eq(&x->unknown, &y->unknown);
    }
    const zm_hello_t *x = &a->body.hello, *y = &b->body.hello;
    return x->version == y->version && x->whatami == y->whatami && zid_eq(&x->zid, &y->zid) &&
           x->has_locators == y->has_locators && x->locator_count == y->locator_count &&
           zm_slice_eq(x->locators, y->locators) && unknown_eq(&x->unknown, &y->unknown);
}

/*
 * Encoding into every writer too small by at least one byte fails with ZM_E_NO_SPACE and leaves
 * the writer as it was, including what it held before (a 3-byte preamble here).
 */
typedef z_result_t (*encode_fn)(zm_writer_t *w, const void *m);

static z_result_t enc_transport(zm_writer_t *w, const void *m) { return zm_transport_encode(w, m); }
static z_result_t enc_scouting(zm_writer_t *w, const void *m) { return zm_scouting_encode(w, m); }

static void check_no_space(const char *name, encode_fn enc, const void *m, size_t full)
{
    static const uint8_t pre[3] = {0xa5, 0x5a, 0xc3};
    uint8_t buf[MAX_BYTES + 3];
    for (size_t cap = 0; cap < full; cap++) {
        zm_writer_t w;
        memset(buf, 0xee, sizeof(buf));
        zm_writer_init(&w, buf, 3 + cap);
        memcpy(buf, pre, 3);
        w.len = 3;
        z_result_t rc = enc(&w, m);
        CHECK_CTX(rc == ZM_E_NO_SPACE, "%s: cap %zu of %zu gave %d", name, cap, full, rc);
        CHECK_CTX(w.len == 3 && memcmp(buf, pre, 3) == 0, "%s: cap %zu moved the writer", name, cap);
    }
    /* and with exactly enough room it fits, after the preamble */
    zm_writer_t w;
    zm_writer_init(&w, buf, 3 + full);
    memcpy(buf, pre, 3);
    w.len = 3;
    CHECK_CTX(enc(&w, m) == Z_OK && w.len == 3 + full, "%s: exact room", name);
}

/*
 * The round trip for one vector: built -> bytes (byte-exact against Rust), bytes -> struct equal
 * to the built one, struct -> the same bytes. consumed is how many bytes the message itself
 * takes (less than the vector for a FRAME, whose network messages follow).
 */
static void roundtrip_transport(const char *name, const zm_transport_msg_t *built, size_t consumed,
                                zm_transport_msg_t *out)
{
    vector_t *v = vec(name);
    uint8_t buf[MAX_BYTES];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_CTX(zm_transport_encode(&w, built) == Z_OK, "%s: encode", name);
    if (consumed == 0) {
        consumed = v->len;
    }
    CHECK_EQ_MEM(buf, w.len, v->bytes, consumed);

    zm_reader_t r;
    zm_reader_init(&r, v->bytes, v->len);
    z_result_t rc = zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, out);
    CHECK_CTX(rc == Z_OK, "%s: decode gave %d (%s) at %zu", name, rc, zm_strerror(rc), zm_reader_offset(&r));
    CHECK_CTX(zm_reader_offset(&r) == consumed, "%s: decode stopped at %zu, not %zu", name,
              zm_reader_offset(&r), consumed);
    CHECK_CTX(transport_eq(out, built), "%s: decoded fields differ from the built message", name);

    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_CTX(zm_transport_encode(&w, out) == Z_OK, "%s: re-encode", name);
    CHECK_EQ_MEM(buf, w.len, v->bytes, consumed);

    check_no_space(name, enc_transport, built, consumed);

    /* every strict prefix of a message that does not end with "the rest of the batch" */
    if (built->id != ZM_MID_FRAGMENT) {
        for (size_t n = 0; n < consumed; n++) {
            zm_transport_msg_t t;
            zm_reader_init(&r, v->bytes, n);
            rc = zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &t);
            CHECK_CTX(rc == ZM_E_TRUNCATED, "%s: prefix %zu gave %d", name, n, rc);
        }
    }
}

static void roundtrip_scouting(const char *name, const zm_scouting_msg_t *built, zm_scouting_msg_t *out)
{
    vector_t *v = vec(name);
    uint8_t buf[MAX_BYTES];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_CTX(zm_scouting_encode(&w, built) == Z_OK, "%s: encode", name);
    CHECK_EQ_MEM(buf, w.len, v->bytes, v->len);

    zm_reader_t r;
    zm_reader_init(&r, v->bytes, v->len);
    z_result_t rc = zm_scouting_decode(&r, out);
    CHECK_CTX(rc == Z_OK, "%s: decode gave %d", name, rc);
    CHECK_EQ_INT(zm_reader_left(&r), 0);
    CHECK_CTX(scouting_eq(out, built), "%s: decoded fields differ from the built message", name);

    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_CTX(zm_scouting_encode(&w, out) == Z_OK, "%s: re-encode", name);
    CHECK_EQ_MEM(buf, w.len, v->bytes, v->len);

    check_no_space(name, enc_scouting, built, v->len);
    for (size_t n = 0; n < v->len; n++) {
        zm_scouting_msg_t t;
        zm_reader_init(&r, v->bytes, n);
        rc = zm_scouting_decode(&r, &t);
        CHECK_CTX(rc == ZM_E_TRUNCATED, "%s: prefix %zu gave %d", name, n, rc);
    }
}

static zm_transport_msg_t new_msg(uint8_t id)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = id;
    return m;
}

/* ---- scouting vectors ------------------------------------------------------------------------ */

static void test_scouting_vectors(void)
{
    zm_scouting_msg_t m, d;

    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_SCOUT;
    m.body.scout.version = ZM_PROTO_VERSION;
    m.body.scout.what = ZM_WHAT_ROUTER | ZM_WHAT_PEER;
    roundtrip_scouting("SCOUT v9 what=router|peer no zid", &m, &d);
    CHECK_EQ_INT(d.body.scout.what, 3);
    CHECK(!d.body.scout.has_zid);

    m.body.scout.what = ZM_WHAT_ROUTER | ZM_WHAT_PEER | ZM_WHAT_CLIENT;
    m.body.scout.has_zid = true;
    m.body.scout.zid = zid_of(ZID_0102, 2);
    roundtrip_scouting("SCOUT v9 what=all zid=0102", &m, &d);
    CHECK(d.body.scout.has_zid);
    CHECK_EQ_MEM(d.body.scout.zid.id, d.body.scout.zid.len, ZID_0102, 2);

    static const char loc[] = "tcp/10.0.0.1:7447";
    uint8_t list[64];
    list[0] = (uint8_t)strlen(loc);
    memcpy(list + 1, loc, strlen(loc));
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_HELLO;
    m.body.hello.version = ZM_PROTO_VERSION;
    m.body.hello.whatami = ZM_WAI_ROUTER;
    m.body.hello.zid = zid_of(ZID_0102, 2);
    m.body.hello.has_locators = true;
    m.body.hello.locator_count = 1;
    m.body.hello.locators = zm_slice(list, 1 + strlen(loc));
    roundtrip_scouting("HELLO v9 router zid=0102 [tcp/10.0.0.1:7447]", &m, &d);
    CHECK_EQ_INT(d.body.hello.whatami, ZM_WAI_ROUTER);
    CHECK_EQ_INT(d.body.hello.locator_count, 1);
    zm_reader_t it;
    zm_slice_t one;
    bool got;
    zm_reader_init(&it, d.body.hello.locators.ptr, d.body.hello.locators.len);
    CHECK(zm_locators_next(&it, &one, &got) == Z_OK && got);
    CHECK_EQ_MEM(one.ptr, one.len, loc, strlen(loc));
    CHECK(zm_locators_next(&it, &one, &got) == Z_OK && !got);

    m.body.hello.whatami = ZM_WAI_PEER;
    m.body.hello.has_locators = false;
    m.body.hello.locator_count = 0;
    m.body.hello.locators = zm_slice(NULL, 0);
    roundtrip_scouting("HELLO v9 peer zid=0102 no locators", &m, &d);
    CHECK_EQ_INT(d.body.hello.whatami, ZM_WAI_PEER);
    CHECK(!d.body.hello.has_locators);
}

/* ---- handshake vectors ------------------------------------------------------------------------ */

static void test_init_vectors(void)
{
    zm_transport_msg_t m = new_msg(ZM_MID_INIT), d;
    zm_init_t *i = &m.body.init;
    i->version = ZM_PROTO_VERSION;
    i->whatami = ZM_WAI_CLIENT;
    i->zid = zid_of(ZID_0102, 2);
    i->resolution = ZM_RESOLUTION_DEFAULT;
    i->batch_size = ZM_BATCH_DEFAULT;
    i->exts = ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH;
    i->patch = 1;
    roundtrip_transport("INIT Syn client zid=0102 defaults, QoS, Patch=1", &m, 0, &d);
    CHECK(!d.body.init.ack && !d.body.init.has_size);
    CHECK_EQ_INT(d.body.init.resolution, 0x0a);
    CHECK_EQ_INT(d.body.init.batch_size, 65535);
    CHECK_EQ_INT(d.body.init.exts, ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH);
    CHECK_EQ_INT(d.body.init.patch, 1);

    i->has_size = true;
    i->batch_size = 2048;
    i->exts = ZM_INIT_EXT_PATCH;
    roundtrip_transport("INIT Syn client zid=0102 batch=2048 (pico-like), Patch=1, no QoS", &m, 0, &d);
    CHECK(d.body.init.has_size);
    CHECK_EQ_INT(d.body.init.batch_size, 2048);
    CHECK_EQ_INT(d.body.init.exts, ZM_INIT_EXT_PATCH);

    i->has_size = false;
    i->batch_size = ZM_BATCH_DEFAULT;
    i->exts = 0;
    roundtrip_transport("INIT Syn client minimal (no exts)", &m, 0, &d);
    CHECK_EQ_INT(d.body.init.exts, 0);
    CHECK_EQ_INT(d.body.init.whatami, ZM_WAI_CLIENT);

    static const uint8_t zid_0a0b[] = {0x0a, 0x0b};
    static const uint8_t deadbeef[] = {0xde, 0xad, 0xbe, 0xef};
    i->ack = true;
    i->whatami = ZM_WAI_ROUTER;
    i->zid = zid_of(zid_0a0b, 2);
    i->has_size = true;
    i->batch_size = 2048;
    i->cookie = zm_slice(deadbeef, 4);
    i->exts = ZM_INIT_EXT_PATCH;
    roundtrip_transport("INIT Ack router zid=0a0b batch=2048 cookie=deadbeef Patch=1", &m, 0, &d);
    CHECK(d.body.init.ack);
    CHECK(slice_is(d.body.init.cookie, deadbeef, 4));

    static const uint8_t c00c1e[] = {0xc0, 0x0c, 0x1e};
    i->zid = zid_of(ZID_16, 16);
    i->cookie = zm_slice(c00c1e, 3);
    roundtrip_transport("INIT Ack router 16-byte zid batch=2048 cookie=c00c1e Patch=1", &m, 0, &d);
    CHECK_EQ_INT(d.body.init.zid.len, 16);
    CHECK_EQ_MEM(d.body.init.zid.id, 16, ZID_16, 16);

    i->has_size = false;
    i->batch_size = ZM_BATCH_DEFAULT;
    i->exts = ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH;
    roundtrip_transport("INIT Ack router 16-byte zid batch=65535 (no S) QoS Patch=1", &m, 0, &d);
    CHECK_EQ_INT(d.body.init.exts, ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH);
}

/* The opener's syns, written without a struct, are the vectors' own; all or nothing. */
static void test_syn_encoders(void)
{
    uint8_t buf[64];
    zm_writer_t w;
    zm_zid_t zid = zid_of(ZID_0102, 2);
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK(zm_init_syn_encode(&w, ZM_WAI_CLIENT, &zid, ZM_BATCH_DEFAULT, true) == Z_OK);
    vector_t *v = vec("INIT Syn client zid=0102 defaults, QoS, Patch=1");
    CHECK_EQ_MEM(buf, w.len, v->bytes, v->len);
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK(zm_init_syn_encode(&w, ZM_WAI_CLIENT, &zid, 2048, false) == Z_OK);
    v = vec("INIT Syn client zid=0102 batch=2048 (pico-like), Patch=1, no QoS");
    CHECK_EQ_MEM(buf, w.len, v->bytes, v->len);
    zm_writer_init(&w, buf, v->len - 1);
    CHECK_EQ_INT(zm_init_syn_encode(&w, ZM_WAI_CLIENT, &zid, 2048, false), ZM_E_NO_SPACE);
    CHECK_EQ_INT(w.len, 0);
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_init_syn_encode(&w, 3, &zid, 2048, false), ZM_E_WHATAMI);
    zid.len = 0;
    CHECK_EQ_INT(zm_init_syn_encode(&w, ZM_WAI_CLIENT, &zid, 2048, false), ZM_E_ZID);

    static const uint8_t deadbeef[] = {0xde, 0xad, 0xbe, 0xef};
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK(zm_open_syn_encode(&w, true, 10, 0x1234, zm_slice(deadbeef, 4)) == Z_OK);
    v = vec("OPEN Syn lease=10s sn=0x1234 cookie=deadbeef");
    CHECK_EQ_MEM(buf, w.len, v->bytes, v->len);
    zm_writer_init(&w, buf, v->len - 1);
    CHECK_EQ_INT(zm_open_syn_encode(&w, true, 10, 0x1234, zm_slice(deadbeef, 4)), ZM_E_NO_SPACE);
    CHECK_EQ_INT(w.len, 0);
}

static void test_open_close_vectors(void)
{
    static const uint8_t deadbeef[] = {0xde, 0xad, 0xbe, 0xef};
    zm_transport_msg_t m = new_msg(ZM_MID_OPEN), d;
    zm_open_t *o = &m.body.open;
    o->lease_secs = true;
    o->lease = 10;
    o->initial_sn = 0x1234;
    o->cookie = zm_slice(deadbeef, 4);
    roundtrip_transport("OPEN Syn lease=10s sn=0x1234 cookie=deadbeef", &m, 0, &d);
    CHECK(!d.body.open.ack && d.body.open.lease_secs);
    CHECK_EQ_INT(d.body.open.lease, 10);
    CHECK_EQ_INT(d.body.open.initial_sn, 0x1234);
    CHECK(slice_is(d.body.open.cookie, deadbeef, 4));

    m = new_msg(ZM_MID_OPEN);
    o->ack = true;
    o->lease = 2500;
    o->initial_sn = 0;
    roundtrip_transport("OPEN Ack lease=2500ms sn=0", &m, 0, &d);
    CHECK(d.body.open.ack && !d.body.open.lease_secs);
    CHECK_EQ_INT(d.body.open.lease, 2500);
    CHECK_EQ_INT(d.body.open.cookie.len, 0);

    o->lease_secs = true;
    o->lease = 10;
    o->initial_sn = 0x0fffffff;
    roundtrip_transport("OPEN Ack lease=10s sn=0x0fffffff", &m, 0, &d);
    CHECK_EQ_INT(d.body.open.initial_sn, 0x0fffffff);

    m = new_msg(ZM_MID_CLOSE);
    m.body.close.session = true;
    m.body.close.reason = ZM_CLOSE_GENERIC;
    roundtrip_transport("CLOSE session GENERIC", &m, 0, &d);
    CHECK(d.body.close.session);
    CHECK_EQ_INT(d.body.close.reason, ZM_CLOSE_GENERIC);

    m.body.close.session = false;
    m.body.close.reason = ZM_CLOSE_EXPIRED;
    roundtrip_transport("CLOSE link-only EXPIRED", &m, 0, &d);
    CHECK(!d.body.close.session);
    CHECK_EQ_INT(d.body.close.reason, ZM_CLOSE_EXPIRED);

    m = new_msg(ZM_MID_KEEP_ALIVE);
    roundtrip_transport("KEEP_ALIVE", &m, 0, &d);
    CHECK_EQ_INT(d.id, ZM_MID_KEEP_ALIVE);
    CHECK_EQ_INT(d.body.keep_alive.unknown.n, 0);
}

static void test_fragment_join_vectors(void)
{
    static const uint8_t p1[] = {0x1d, 0x00};
    static const uint8_t p2[] = {0xaa};
    zm_transport_msg_t m = new_msg(ZM_MID_FRAGMENT), d;
    zm_fragment_t *f = &m.body.fragment;
    f->reliable = true;
    f->more = true;
    f->sn = 10;
    f->first = true;
    f->payload = zm_slice(p1, 2);
    roundtrip_transport("FRAGMENT reliable more sn=10 First-ext payload(1d 00...)", &m, 0, &d);
    CHECK(d.body.fragment.reliable && d.body.fragment.more && d.body.fragment.first);
    CHECK(!d.body.fragment.drop && !d.body.fragment.has_qos);
    CHECK_EQ_INT(d.body.fragment.sn, 10);
    CHECK(slice_is(d.body.fragment.payload, p1, 2));

    f->more = false;
    f->first = false;
    f->sn = 11;
    f->payload = zm_slice(p2, 1);
    roundtrip_transport("FRAGMENT reliable last sn=11 payload(aa)", &m, 0, &d);
    CHECK(!d.body.fragment.more && !d.body.fragment.first);
    CHECK(slice_is(d.body.fragment.payload, p2, 1));

    m = new_msg(ZM_MID_JOIN);
    zm_join_t *j = &m.body.join;
    j->version = ZM_PROTO_VERSION;
    j->whatami = ZM_WAI_PEER;
    j->zid = zid_of(ZID_0102, 2);
    j->resolution = ZM_RESOLUTION_DEFAULT;
    j->batch_size = ZM_JOIN_BATCH_DEFAULT;
    j->lease_secs = true;
    j->lease = 10;
    j->next_sn_reliable = 1;
    j->next_sn_best_effort = 2;
    j->exts = ZM_JOIN_EXT_PATCH;
    j->patch = 1;
    roundtrip_transport("JOIN peer zid=0102 batch=8192 lease=10s next_sn rel=1 be=2 Patch=1", &m, 0, &d);
    CHECK(!d.body.join.has_size && d.body.join.lease_secs);
    CHECK_EQ_INT(d.body.join.batch_size, 8192);
    CHECK_EQ_INT(d.body.join.next_sn_reliable, 1);
    CHECK_EQ_INT(d.body.join.next_sn_best_effort, 2);
    CHECK_EQ_INT(d.body.join.exts, ZM_JOIN_EXT_PATCH);
}

/* ---- FRAME vectors and batch iteration ------------------------------------------------------- */

/* Iterates a whole batch; records transport ids and, per FRAME, its network message ids. */
typedef struct {
    uint8_t ids[8];
    size_t n;
    uint8_t net[8][8];
    size_t n_net[8];
} batch_walk_t;

static z_result_t walk_batch(const uint8_t *b, size_t len, batch_walk_t *out)
{
    zm_batch_iter_t it;
    zm_transport_msg_t m;
    bool got;
    memset(out, 0, sizeof(*out));
    zm_batch_iter_init(&it, b, len, ZM_SN_MASK_DEFAULT);
    for (;;) {
        ZM_TRY(zm_batch_next(&it, &m, &got));
        if (!got) {
            return Z_OK;
        }
        size_t k = out->n++;
        out->ids[k] = m.id;
        if (m.id == ZM_MID_FRAME) {
            zm_network_msg_t nm;
            for (;;) {
                ZM_TRY(zm_batch_next_network(&it, &nm, &got));
                if (!got) {
                    break;
                }
                out->net[k][out->n_net[k]++] = nm.id;
            }
            /* once the FRAME ended, asking again still says so */
            ZM_TRY(zm_batch_next_network(&it, &nm, &got));
            if (got) {
                return Z_EGENERIC;
            }
        }
    }
}

static void test_frame_vectors(void)
{
    zm_transport_msg_t m = new_msg(ZM_MID_FRAME), d;
    zm_frame_t *f = &m.body.frame;
    batch_walk_t walk;

    f->reliable = true;
    f->sn = 5;
    roundtrip_transport("FRAME reliable sn=5 [PUSH 'demo/example' PUT 'hi']", &m, 2, &d);
    CHECK(d.body.frame.reliable && !d.body.frame.has_qos);
    CHECK_EQ_INT(d.body.frame.sn, 5);
    vector_t *v = vec("FRAME reliable sn=5 [PUSH 'demo/example' PUT 'hi']");
    CHECK(walk_batch(v->bytes, v->len, &walk) == Z_OK);
    CHECK_EQ_INT(walk.n, 1);
    CHECK_EQ_INT(walk.ids[0], ZM_MID_FRAME);
    CHECK_EQ_INT(walk.n_net[0], 1);
    CHECK_EQ_INT(walk.net[0][0], ZM_MID_N_PUSH);

    /* the TCP batch of the same FRAME: split off the stream, then the same walk */
    vector_t *tcp = vec("TCP batch (len prefix + FRAME above)");
    zm_reader_t s;
    zm_slice_t batch;
    zm_reader_init(&s, tcp->bytes, tcp->len);
    CHECK(zm_stream_next(&s, &batch) == Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, v->bytes, v->len);
    CHECK_EQ_INT(zm_reader_left(&s), 0);

    f->reliable = false;
    f->sn = 0;
    f->has_qos = true;
    f->qos = ZM_PRIO_REAL_TIME;
    roundtrip_transport("FRAME best-effort sn=0 QoS prio=RealTime(1) [PUSH ...]", &m, 4, &d);
    CHECK(!d.body.frame.reliable && d.body.frame.has_qos);
    CHECK_EQ_INT(d.body.frame.qos, ZM_PRIO_REAL_TIME);
    v = vec("FRAME best-effort sn=0 QoS prio=RealTime(1) [PUSH ...]");
    CHECK(walk_batch(v->bytes, v->len, &walk) == Z_OK);
    CHECK_EQ_INT(walk.n, 1);
    CHECK_EQ_INT(walk.n_net[0], 1);
    CHECK_EQ_INT(walk.net[0][0], ZM_MID_N_PUSH);

    f->reliable = true;
    f->sn = 0x1234;
    f->has_qos = false;
    const char *decl = "FRAME reliable sn=0x1234 [DECLARE D_SUBSCRIBER id=1 'demo/**' (M=0)]";
    roundtrip_transport(decl, &m, 3, &d);
    CHECK_EQ_INT(d.body.frame.sn, 0x1234);
    v = vec(decl);
    CHECK(walk_batch(v->bytes, v->len, &walk) == Z_OK);
    CHECK_EQ_INT(walk.n, 1);
    CHECK_EQ_INT(walk.n_net[0], 1);
    CHECK_EQ_INT(walk.net[0][0], ZM_MID_N_DECLARE);
    zm_reader_init(&s, v->tcp, v->tcp_len);
    CHECK(zm_stream_next(&s, &batch) == Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, v->bytes, v->len);

    /* two PUSHes, then a KEEP_ALIVE after the FRAME in the same batch */
    f->sn = 0x1235;
    const char *two = "FRAME reliable sn=0x1235 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2']";
    roundtrip_transport(two, &m, 3, &d);
    v = vec(two);
    CHECK_EQ_INT(v->tail_len, 1);
    uint8_t full[MAX_BYTES];
    memcpy(full, v->bytes, v->len);
    memcpy(full + v->len, v->tail, v->tail_len);
    size_t full_len = v->len + v->tail_len;
    zm_reader_init(&s, v->tcp, v->tcp_len);
    CHECK(zm_stream_next(&s, &batch) == Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, full, full_len);
    CHECK(walk_batch(batch.ptr, batch.len, &walk) == Z_OK);
    CHECK_EQ_INT(walk.n, 2);
    CHECK_EQ_INT(walk.ids[0], ZM_MID_FRAME);
    CHECK_EQ_INT(walk.n_net[0], 2);
    CHECK_EQ_INT(walk.net[0][0], ZM_MID_N_PUSH);
    CHECK_EQ_INT(walk.net[0][1], ZM_MID_N_PUSH);
    CHECK_EQ_INT(walk.ids[1], ZM_MID_KEEP_ALIVE);
    CHECK_EQ_INT(walk.n_net[1], 0);

    /* calling zm_batch_next while still inside the FRAME skips its messages */
    zm_batch_iter_t it;
    bool got;
    zm_network_msg_t nm;
    zm_batch_iter_init(&it, full, full_len, ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && got && d.id == ZM_MID_FRAME);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && got && d.id == ZM_MID_KEEP_ALIVE);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && !got);
    /* ... or after reading only one of them */
    zm_batch_iter_init(&it, full, full_len, ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && got && d.id == ZM_MID_FRAME);
    CHECK(zm_batch_next_network(&it, &nm, &got) == Z_OK && got && nm.id == ZM_MID_N_PUSH);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && got && d.id == ZM_MID_KEEP_ALIVE);
    /* outside a FRAME there is no network message to read */
    CHECK(zm_batch_next_network(&it, &nm, &got) == Z_OK && !got);
    CHECK(zm_batch_next(&it, &d, &got) == Z_OK && !got);

    /* a transport's FRAME headers, written without a struct, are the vectors' own */
    uint8_t hdr[8];
    zm_writer_t w;
    zm_writer_init(&w, hdr, sizeof(hdr));
    CHECK(zm_frame_header_encode(&w, false, 0, true, ZM_PRIO_REAL_TIME) == Z_OK);
    v = vec("FRAME best-effort sn=0 QoS prio=RealTime(1) [PUSH ...]");
    CHECK_EQ_MEM(hdr, w.len, v->bytes, 4);
    zm_writer_init(&w, hdr, sizeof(hdr));
    CHECK(zm_frame_header_encode(&w, true, 0x1234, false, ZM_PRIO_DATA) == Z_OK);
    v = vec(decl);
    CHECK_EQ_MEM(hdr, w.len, v->bytes, 3);
    /* all or nothing */
    zm_writer_init(&w, hdr, 3);
    CHECK_EQ_INT(zm_frame_header_encode(&w, false, 0x1234, true, ZM_PRIO_REAL_TIME), ZM_E_NO_SPACE);
    CHECK_EQ_INT(w.len, 0);
    /* the header written in one piece into room for the longest is the same, at every SN width,
     * and an exact room takes the header alone */
    static const uint32_t sns[] = {0,       1,        0x7f,       0x80,       0x3fff,     0x4000,
                                   0x1fffff, 0x200000, 0xfffffff, 0x10000000, 0x89abcdef, 0xffffffffu};
    for (size_t i = 0; i < sizeof(sns) / sizeof(sns[0]); i++) {
        for (int q = 0; q < 2; q++) {
            uint8_t one[ZM_FRAME_HEADER_MAX], exact[ZM_FRAME_HEADER_MAX];
            size_t n = zm_frame_header_put(one, i % 2 == 0, sns[i], q != 0, ZM_PRIO_REAL_TIME);
            zm_writer_init(&w, exact, 1u + zm_zint_len(sns[i]) + (q != 0 ? 2u : 0u));
            CHECK_EQ_INT(zm_frame_header_encode(&w, i % 2 == 0, sns[i], q != 0, ZM_PRIO_REAL_TIME), Z_OK);
            CHECK_EQ_INT(w.len, w.cap);
            CHECK_EQ_MEM(one, n, exact, w.len);
            zm_reader_t r;
            zm_reader_init(&r, one, n);
            CHECK(zm_transport_decode(&r, 0xffffffffu, &d) == Z_OK && d.id == ZM_MID_FRAME);
            CHECK(d.body.frame.sn == sns[i] && d.body.frame.reliable == (i % 2 == 0));
            CHECK(d.body.frame.has_qos == (q != 0));
        }
    }

    /* the INIT Ack's TCP form */
    v = vec("INIT Ack router 16-byte zid batch=2048 cookie=c00c1e Patch=1");
    zm_reader_init(&s, v->tcp, v->tcp_len);
    CHECK(zm_stream_next(&s, &batch) == Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, v->bytes, v->len);
    CHECK(walk_batch(batch.ptr, batch.len, &walk) == Z_OK);
    CHECK_EQ_INT(walk.n, 1);
    CHECK_EQ_INT(walk.ids[0], ZM_MID_INIT);
}

static void test_batch_errors(void)
{
    batch_walk_t walk;
    zm_batch_iter_t it;
    zm_transport_msg_t m;
    zm_network_msg_t nm;
    bool got;

    /* empty batch: nothing in it */
    static const uint8_t none[1] = {0x04};
    zm_batch_iter_init(&it, none, 0, ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && !got);

    /* a PUSH cut short inside a FRAME fails the batch, read or skipped */
    static const uint8_t cut[] = {0x25, 0x05, 0x3d, 0x00, 0x0c, 0x64};
    zm_batch_iter_init(&it, cut, sizeof(cut), ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && got);
    CHECK(zm_batch_next_network(&it, &nm, &got) < 0);
    zm_batch_iter_init(&it, cut, sizeof(cut), ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && got);
    CHECK(zm_batch_next(&it, &m, &got) < 0);

    /* a byte in neither namespace after a FRAME ends it, then fails at transport level */
    static const uint8_t stray[] = {0x25, 0x05, 0x3d, 0x00, 0x02, 0x61, 0x62, 0x01, 0x01, 0x31, 0x08};
    CHECK_EQ_INT(walk_batch(stray, sizeof(stray), &walk), ZM_E_MSG_UNKNOWN);
    CHECK_EQ_INT(walk.n_net[0], 1);
    zm_batch_iter_init(&it, stray, sizeof(stray), ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && got);
    CHECK_EQ_INT(zm_batch_next(&it, &m, &got), ZM_E_MSG_UNKNOWN);
    CHECK_EQ_INT(zm_reader_offset(&it.r), sizeof(stray) - 1);

    /* a FRAGMENT takes the rest of the batch, whatever it looks like */
    static const uint8_t frag[] = {0x26, 0x0b, 0xaa, 0x04, 0x25};
    zm_batch_iter_init(&it, frag, sizeof(frag), ZM_SN_MASK_DEFAULT);
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && got && m.id == ZM_MID_FRAGMENT);
    CHECK(slice_is(m.body.fragment.payload, frag + 2, 3));
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && !got);

    /* an SN beyond the iterator's mask */
    static const uint8_t big_sn[] = {0x25, 0x80, 0x01};
    zm_batch_iter_init(&it, big_sn, sizeof(big_sn), zm_sn_mask(0));
    CHECK_EQ_INT(zm_batch_next(&it, &m, &got), ZM_E_SN_RANGE);
    zm_batch_iter_init(&it, big_sn, sizeof(big_sn), zm_sn_mask(1));
    CHECK(zm_batch_next(&it, &m, &got) == Z_OK && got && m.body.frame.sn == 128);
}

/* A batch of one sample alone, as an unbatched publisher sends it, is decoded straight as the
 * iterator decodes it; any other batch is left to the iterator. */
static void test_lone_push(void)
{
#if ZM_DECODE_PUSH_PLAIN
    zm_lone_push_t l;
    /* FRAME reliable sn=0x1234, PUSH of key id 5, PUT "abc" */
    static const uint8_t one[] = {0x25, 0xb4, 0x24, 0x1d, 0x05, 0x01, 0x03, 'a', 'b', 'c'};
    CHECK(zm_batch_lone_push(one, sizeof(one), ZM_SN_MASK_DEFAULT, &l));
    CHECK(l.sn == 0x1234 && l.reliable && l.m.id == ZM_MID_N_PUSH && l.m.ext.present == 0);
    CHECK(l.m.body.push.wire_expr.scope == 5 && !l.m.body.push.wire_expr.has_suffix);
    CHECK(l.m.body.push.body_id == ZM_MID_PUT && slice_is(l.m.body.push.body.put.payload, one + 7, 3));
    /* best effort, an empty payload */
    static const uint8_t be[] = {0x05, 0x01, 0x1d, 0x05, 0x01, 0x00};
    CHECK(zm_batch_lone_push(be, sizeof(be), ZM_SN_MASK_DEFAULT, &l));
    CHECK(l.sn == 1 && !l.reliable && l.m.body.push.body.put.payload.len == 0);
    /* not alone, or not plain: the iterator's */
    static const uint8_t more[] = {0x25, 0x01, 0x1d, 0x05, 0x01, 0x00, 0x1d, 0x05, 0x01, 0x00};
    CHECK(!zm_batch_lone_push(more, sizeof(more), ZM_SN_MASK_DEFAULT, &l)); /* two PUSHes */
    CHECK(!zm_batch_lone_push(more, 7, ZM_SN_MASK_DEFAULT, &l));            /* a byte after it */
    CHECK(!zm_batch_lone_push(one, sizeof(one) - 1, ZM_SN_MASK_DEFAULT, &l)); /* cut short */
    static const uint8_t qos[] = {0xa5, 0x01, 0x31, 0x02, 0x1d, 0x05, 0x01, 0x00};
    CHECK(!zm_batch_lone_push(qos, sizeof(qos), ZM_SN_MASK_DEFAULT, &l)); /* a FRAME extension */
    static const uint8_t suffix[] = {0x25, 0x01, 0x3d, 0x00, 0x01, 'k', 0x01, 0x00};
    CHECK(!zm_batch_lone_push(suffix, sizeof(suffix), ZM_SN_MASK_DEFAULT, &l)); /* a key's suffix */
    static const uint8_t ka[] = {0x04, 0x25, 0x01, 0x1d, 0x05, 0x01, 0x00};
    CHECK(!zm_batch_lone_push(ka, sizeof(ka), ZM_SN_MASK_DEFAULT, &l)); /* a KEEP_ALIVE first */
    CHECK(!zm_batch_lone_push(one, sizeof(one), zm_sn_mask(0), &l));    /* an SN beyond the mask */
#endif
}

/* ---- stream framing ---------------------------------------------------------------------- */

static void test_stream(void)
{
    /* four TCP batches back to back, and the batch each must give */
    vector_t *v0 = vec("TCP batch (len prefix + FRAME above)");
    vector_t *f0 = vec("FRAME reliable sn=5 [PUSH 'demo/example' PUT 'hi']");
    vector_t *v1 = vec("FRAME reliable sn=0x1234 [DECLARE D_SUBSCRIBER id=1 'demo/**' (M=0)]");
    vector_t *v2 = vec("FRAME reliable sn=0x1235 [PUSH 'demo/a' PUT '1', PUSH 'demo/b' PUT '2']");
    vector_t *v3 = vec("INIT Ack router 16-byte zid batch=2048 cookie=c00c1e Patch=1");
    uint8_t want2[MAX_BYTES];
    memcpy(want2, v2->bytes, v2->len);
    memcpy(want2 + v2->len, v2->tail, v2->tail_len);
    const uint8_t *tcp[4] = {v0->bytes, v1->tcp, v2->tcp, v3->tcp};
    size_t tcp_len[4] = {v0->len, v1->tcp_len, v2->tcp_len, v3->tcp_len};
    const uint8_t *want[4] = {f0->bytes, v1->bytes, want2, v3->bytes};
    size_t want_len[4] = {f0->len, v1->len, v2->len + v2->tail_len, v3->len};

    uint8_t stream[4 * MAX_BYTES];
    size_t len = 0;
    size_t ends[4];
    for (size_t i = 0; i < 4; i++) {
        memcpy(stream + len, tcp[i], tcp_len[i]);
        len += tcp_len[i];
        ends[i] = len;
    }
    zm_reader_t r;
    zm_slice_t batch;
    zm_reader_init(&r, stream, len);
    for (size_t i = 0; i < 4; i++) {
        CHECK(zm_stream_next(&r, &batch) == Z_OK);
        CHECK_EQ_MEM(batch.ptr, batch.len, want[i], want_len[i]);
        CHECK_EQ_INT(zm_reader_offset(&r), ends[i]);
    }
    CHECK_EQ_INT(zm_stream_next(&r, &batch), ZM_E_TRUNCATED);
    CHECK_EQ_INT(zm_reader_offset(&r), len);
    /* every cut inside a batch (its prefix included) asks for more and does not move */
    for (size_t cut = ends[0] + 1; cut < ends[1]; cut++) {
        zm_reader_init(&r, stream, cut);
        CHECK(zm_stream_next(&r, &batch) == Z_OK);
        CHECK_CTX(zm_stream_next(&r, &batch) == ZM_E_TRUNCATED && zm_reader_offset(&r) == ends[0],
                  "cut at %zu", cut);
    }
    /* an empty batch is a batch */
    static const uint8_t empty[] = {0x00, 0x00, 0x04};
    zm_reader_init(&r, empty, sizeof(empty));
    CHECK(zm_stream_next(&r, &batch) == Z_OK && batch.len == 0);
    CHECK_EQ_INT(zm_reader_offset(&r), 2);
}

/* ---- decode errors -------------------------------------------------------------------------- */

static void expect_t(const char *what, const uint8_t *b, size_t n, uint32_t mask, z_result_t want,
                     size_t offset)
{
    zm_reader_t r;
    zm_transport_msg_t m;
    zm_reader_init(&r, b, n);
    z_result_t rc = zm_transport_decode(&r, mask, &m);
    CHECK_CTX(rc == want, "%s: got %d (%s), want %d (%s)", what, rc, zm_strerror(rc), want,
              zm_strerror(want));
    CHECK_CTX(zm_reader_offset(&r) == offset, "%s: offset %zu, want %zu", what, zm_reader_offset(&r), offset);
}

static void expect_s(const char *what, const uint8_t *b, size_t n, z_result_t want, size_t offset)
{
    zm_reader_t r;
    zm_scouting_msg_t m;
    zm_reader_init(&r, b, n);
    z_result_t rc = zm_scouting_decode(&r, &m);
    CHECK_CTX(rc == want, "%s: got %d (%s), want %d (%s)", what, rc, zm_strerror(rc), want,
              zm_strerror(want));
    CHECK_CTX(zm_reader_offset(&r) == offset, "%s: offset %zu, want %zu", what, zm_reader_offset(&r), offset);
}

#define EXPECT_T(what, mask, want, offset, ...)                                                 \
    do {                                                                                       \
        static const uint8_t b_[] = {__VA_ARGS__};                                             \
        expect_t(what, b_, sizeof(b_), mask, want, offset);                                    \
    } while (0)
#define EXPECT_S(what, want, offset, ...)                                                       \
    do {                                                                                       \
        static const uint8_t b_[] = {__VA_ARGS__};                                             \
        expect_s(what, b_, sizeof(b_), want, offset);                                          \
    } while (0)

static void test_errors(void)
{
    const uint32_t def = ZM_SN_MASK_DEFAULT;

    /* whatami 0b11 */
    EXPECT_S("HELLO wai 3", ZM_E_WHATAMI, 2, 0x02, 0x09, 0x13, 0x01, 0x02);
    EXPECT_T("INIT wai 3", def, ZM_E_WHATAMI, 2, 0x01, 0x09, 0x13, 0x01, 0x02);
    EXPECT_T("JOIN wai 3", def, ZM_E_WHATAMI, 2, 0x07, 0x09, 0x13, 0x01, 0x02, 0x0a, 0x01, 0x02);

    /* SNs past the mask: the zint is read whole, the error names its first byte */
    EXPECT_T("FRAME sn 2^28", def, ZM_E_SN_RANGE, 1, 0x25, 0x80, 0x80, 0x80, 0x80, 0x01);
    EXPECT_T("FRAME sn 0x0fffffff", def, Z_OK, 5, 0x25, 0xff, 0xff, 0xff, 0x7f);
    EXPECT_T("FRAME sn 128, 8-bit", 0x7f, ZM_E_SN_RANGE, 1, 0x05, 0x80, 0x01);
    EXPECT_T("FRAME sn 2^32, 64-bit", 0xffffffffu, ZM_E_SN_RANGE, 1, 0x05, 0x80, 0x80, 0x80, 0x80, 0x10);
    EXPECT_T("FRAGMENT sn 2^14, 16-bit", 0x3fff, ZM_E_SN_RANGE, 1, 0x26, 0x80, 0x80, 0x01, 0xaa);
    EXPECT_T("OPEN initial_sn 2^28", def, ZM_E_SN_RANGE, 2, 0x62, 0x0a, 0x80, 0x80, 0x80, 0x80, 0x01);
    EXPECT_T("JOIN next rel sn 128, 8-bit", 0x7f, ZM_E_SN_RANGE, 6, 0x27, 0x09, 0x11, 0x01, 0x02, 0x0a,
             0x80, 0x01, 0x02);
    EXPECT_T("JOIN next be sn 128, 8-bit", 0x7f, ZM_E_SN_RANGE, 7, 0x27, 0x09, 0x11, 0x01, 0x02, 0x0a,
             0x01, 0x80, 0x01);

    /* bounded zints */
    EXPECT_T("INIT Ack cookie 65536", def, ZM_E_ZINT_OVERFLOW, 5, 0x21, 0x09, 0x12, 0x01, 0x02, 0x80,
             0x80, 0x04);
    EXPECT_T("OAM id 65536", def, ZM_E_ZINT_OVERFLOW, 1, 0x00, 0x80, 0x80, 0x04);

    /* unknown ids */
    EXPECT_T("transport id 0x08", def, ZM_E_MSG_UNKNOWN, 0, 0x08);
    EXPECT_T("network id at transport level", def, ZM_E_MSG_UNKNOWN, 0, 0x1d, 0x00);
    EXPECT_S("scouting id 0x03", ZM_E_MSG_UNKNOWN, 0, 0x03, 0x09);
    EXPECT_S("scouting id 0x00", ZM_E_MSG_UNKNOWN, 0, 0x00);

    /* truncation (every prefix of every vector is checked with the vectors) */
    EXPECT_T("Z without an extension", def, ZM_E_TRUNCATED, 1, 0x84);
    static const uint8_t ka[1] = {0x04};
    expect_t("nothing", ka, 0, def, ZM_E_TRUNCATED, 0);
    expect_s("nothing", ka, 0, ZM_E_TRUNCATED, 0);
    EXPECT_T("INIT S cut in batch size", def, ZM_E_TRUNCATED, 5, 0x41, 0x09, 0x00, 0x01, 0x0a, 0x00);
    EXPECT_T("OPEN syn cookie longer than input", def, ZM_E_TRUNCATED, 3, 0x42, 0x0a, 0x00, 0x05, 0xde);
    EXPECT_T("OAM zbuf body cut", def, ZM_E_TRUNCATED, 2, 0x40, 0x01, 0x03, 0xaa);

    /* zero zid */
    EXPECT_T("INIT zero zid", def, ZM_E_ZID, 3, 0x01, 0x09, 0x12, 0x00, 0x00);
    EXPECT_S("SCOUT zero zid", ZM_E_ZID, 3, 0x01, 0x09, 0x0b, 0x00);
    EXPECT_S("HELLO zero zid", ZM_E_ZID, 3, 0x02, 0x09, 0x01, 0x00);
    EXPECT_T("JOIN zero zid", def, ZM_E_ZID, 3, 0x07, 0x09, 0x01, 0x00, 0x0a, 0x01, 0x02);
    /* trailing zero bytes are kept as sent (Rust accepts them too) */
    EXPECT_T("INIT zid 01 00", def, Z_OK, 5, 0x01, 0x09, 0x12, 0x01, 0x00);

    /* mandatory unknown extensions; ENC 0b11 */
    EXPECT_T("KEEP_ALIVE mandatory ext", def, ZM_E_EXT_MANDATORY, 1, 0x84, 0x11);
    EXPECT_T("INIT QoS with M set", def, ZM_E_EXT_MANDATORY, 5, 0x81, 0x09, 0x12, 0x01, 0x02, 0x11);
    EXPECT_T("FRAME QoS without M", def, Z_OK, 4, 0x85, 0x00, 0x21, 0x01);
    EXPECT_T("CLOSE second ext mandatory", def, ZM_E_EXT_MANDATORY, 3, 0x83, 0x00, 0x82, 0x50, 0x00);
    EXPECT_T("ext ENC 0b11", def, ZM_E_EXT_ENCODING, 1, 0x84, 0x60);
    EXPECT_T("OAM ENC 0b11", def, ZM_E_EXT_ENCODING, 0, 0x60, 0x01);

    /* JOIN QoS: 8 x (rel, be), each within the mask, filling the body exactly */
    EXPECT_T("JOIN QoS short", def, ZM_E_TRUNCATED, 8, 0x87, 0x09, 0x11, 0x01, 0x02, 0x0a, 0x00, 0x00,
             0x51, 0x03, 0x00, 0x00, 0x00);
    EXPECT_T("JOIN QoS trailing", def, ZM_E_TRAILING, 8, 0x87, 0x09, 0x11, 0x01, 0x02, 0x0a, 0x00, 0x00,
             0x51, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);
    EXPECT_T("JOIN QoS sn 128, 8-bit", 0x7f, ZM_E_SN_RANGE, 8, 0x87, 0x09, 0x11, 0x01, 0x02, 0x0a, 0x00,
             0x00, 0x51, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x80, 0x01);
    EXPECT_T("JOIN QoS without M", def, Z_OK, 26, 0x87, 0x09, 0x11, 0x01, 0x02, 0x0a, 0x00, 0x00, 0x41,
             0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    EXPECT_T("JOIN shm", def, Z_OK, 11, 0x87, 0x09, 0x11, 0x01, 0x02, 0x0a, 0x00, 0x00, 0x52, 0x01, 0xaa);
}

/* ---- locators --------------------------------------------------------------------------------- */

static z_result_t hello_with(const char *loc, size_t len, size_t *offset)
{
    uint8_t b[300] = {0x22, 0x09, 0x00, 0x01, 0x01};
    size_t n = 5;
    n += zm_zint_put(b + n, len);
    memcpy(b + n, loc, len);
    n += len;
    zm_reader_t r;
    zm_scouting_msg_t m;
    zm_reader_init(&r, b, n);
    z_result_t rc = zm_scouting_decode(&r, &m);
    *offset = zm_reader_offset(&r);
    return rc;
}

static void expect_locator(const char *loc, z_result_t want)
{
    size_t off;
    z_result_t rc = hello_with(loc, strlen(loc), &off);
    CHECK_CTX(rc == want, "locator '%s': got %d (%s), want %d", loc, rc, zm_strerror(rc), want);
    if (want != Z_OK) {
        CHECK_CTX(off == 5, "locator '%s': error at %zu, not at its length", loc, off);
    }
}

static void test_locators(void)
{
    expect_locator("tcp/10.0.0.1:7447", Z_OK);
    expect_locator("udp/[fe80::1]:7447?iface=eth0", Z_OK);
    expect_locator("tcp/a?a=1;b=2", Z_OK);
    expect_locator("tcp/a?a;b=2", Z_OK);
    expect_locator("tcp/a/b", Z_OK);
    expect_locator("tcp/10.0.0.1:7447#iface=eth0", ZM_E_LOCATOR);
    expect_locator("tcp/a#", ZM_E_LOCATOR);
    expect_locator("tcp10.0.0.1", ZM_E_LOCATOR);
    expect_locator("/10.0.0.1:7447", ZM_E_LOCATOR);
    expect_locator("tcp/", ZM_E_LOCATOR);
    expect_locator("tcp/a?", ZM_E_LOCATOR);
    expect_locator("tcp?a=1/b", ZM_E_LOCATOR);
    expect_locator("tcp/a?b=1;a=2", ZM_E_LOCATOR); /* Rust re-sorts, then sees a different string */
    expect_locator("tcp/a?a=1;", ZM_E_LOCATOR);
    expect_locator("tcp/a?a=1;;b=2", ZM_E_LOCATOR);
    expect_locator("tcp/a?=1", ZM_E_LOCATOR);
    expect_locator("tcp/a?a=", ZM_E_LOCATOR);
    expect_locator("", ZM_E_LOCATOR);
    expect_locator("tcp/\xc3\x28", ZM_E_LOCATOR); /* not UTF-8 */
    expect_locator("tcp/\xc3\xa9", Z_OK);

    /* 255 bytes is the most a locator may take; 256 is refused at its length */
    char big[257];
    memcpy(big, "tcp/", 4);
    memset(big + 4, 'a', sizeof(big) - 4);
    size_t off;
    CHECK_EQ_INT(hello_with(big, 255, &off), Z_OK);
    CHECK_EQ_INT(hello_with(big, 256, &off), ZM_E_LOCATOR);
    CHECK_EQ_INT(off, 5);

    /* a list of three, walked in order; the second one bad fails the HELLO at its length */
    static const uint8_t three[] = {0x22, 0x09, 0x00, 0x01, 0x03, 0x05, 't', 'c', 'p', '/', 'a', 0x05,
                                    'u', 'd', 'p', '/', 'b', 0x03, 'x', '/', 'y'};
    zm_reader_t r;
    zm_scouting_msg_t m;
    zm_reader_init(&r, three, sizeof(three));
    CHECK(zm_scouting_decode(&r, &m) == Z_OK);
    CHECK_EQ_INT(m.body.hello.locator_count, 3);
    CHECK(slice_is(m.body.hello.locators, three + 5, sizeof(three) - 5));
    zm_reader_t it;
    zm_slice_t loc;
    bool got;
    const char *want[] = {"tcp/a", "udp/b", "x/y"};
    zm_reader_init(&it, m.body.hello.locators.ptr, m.body.hello.locators.len);
    for (size_t i = 0; i < 3; i++) {
        CHECK(zm_locators_next(&it, &loc, &got) == Z_OK && got);
        CHECK_EQ_MEM(loc.ptr, loc.len, want[i], strlen(want[i]));
    }
    CHECK(zm_locators_next(&it, &loc, &got) == Z_OK && !got);

    static const uint8_t bad2[] = {0x22, 0x09, 0x00, 0x01, 0x02, 0x05, 't', 'c', 'p', '/', 'a', 0x03,
                                   'u', 'd', 'p'};
    expect_s("HELLO second locator bad", bad2, sizeof(bad2), ZM_E_LOCATOR, 11);
    /* a count larger than the list runs into the end of the input */
    static const uint8_t many[] = {0x22, 0x09, 0x00, 0x01, 0x02, 0x05, 't', 'c', 'p', '/', 'a'};
    expect_s("HELLO count past the list", many, sizeof(many), ZM_E_TRUNCATED, 11);
    /* L set with an empty list stays so */
    static const uint8_t none[] = {0x22, 0x09, 0x00, 0x01, 0x00};
    zm_reader_init(&r, none, sizeof(none));
    CHECK(zm_scouting_decode(&r, &m) == Z_OK && m.body.hello.has_locators && m.body.hello.locator_count == 0);
    uint8_t out[16];
    zm_writer_t w;
    zm_writer_init(&w, out, sizeof(out));
    CHECK(zm_scouting_encode(&w, &m) == Z_OK);
    CHECK_EQ_MEM(out, w.len, none, sizeof(none));
}

/* ---- extensions kept, ordered and re-emitted -------------------------------------------------- */

/* Decodes, checks the decoded struct with a callback, and re-encodes to the very same bytes. */
static void reencode_t(const char *what, const uint8_t *b, size_t n, zm_transport_msg_t *m)
{
    zm_reader_t r;
    zm_reader_init(&r, b, n);
    z_result_t rc = zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, m);
    CHECK_CTX(rc == Z_OK && zm_reader_left(&r) == 0, "%s: decode %d, %zu left", what, rc, zm_reader_left(&r));
    uint8_t out[MAX_BYTES];
    zm_writer_t w;
    zm_writer_init(&w, out, sizeof(out));
    CHECK_CTX(zm_transport_encode(&w, m) == Z_OK, "%s: encode", what);
    CHECK_EQ_MEM(out, w.len, b, n);
    check_no_space(what, enc_transport, m, n);
}

static void reencode_s(const char *what, const uint8_t *b, size_t n, zm_scouting_msg_t *m)
{
    zm_reader_t r;
    zm_reader_init(&r, b, n);
    z_result_t rc = zm_scouting_decode(&r, m);
    CHECK_CTX(rc == Z_OK && zm_reader_left(&r) == 0, "%s: decode %d", what, rc);
    uint8_t out[MAX_BYTES];
    zm_writer_t w;
    zm_writer_init(&w, out, sizeof(out));
    CHECK_CTX(zm_scouting_encode(&w, m) == Z_OK, "%s: encode", what);
    CHECK_EQ_MEM(out, w.len, b, n);
}

#define REENCODE_T(what, m, ...)                                                                 \
    do {                                                                                       \
        static const uint8_t b_[] = {__VA_ARGS__};                                             \
        reencode_t(what, b_, sizeof(b_), m);                                                   \
    } while (0)

static void test_extensions(void)
{
    zm_transport_msg_t m;
    zm_scouting_msg_t s;

    /* every INIT extension, in catalogue order, then an unknown one */
    REENCODE_T("INIT all exts", &m, 0xa1, 0x09, 0x12, 0x01, 0x02, 0x00, /* InitAck, empty cookie */
               0x81, 0xa1, 0x05, 0xc2, 0x01, 0x51, 0xc3, 0x01, 0x52, 0xc4, 0x01, 0x53, 0x85, 0x86, 0xa7,
               0x01, 0xc8, 0x02, 'n', 's', 0x22, 0x07);
    CHECK_EQ_INT(m.body.init.exts, 0x01ff);
    CHECK_EQ_INT(m.body.init.qos_link, 5);
    CHECK(slice_is(m.body.init.shm, "\x51", 1) && slice_is(m.body.init.auth, "\x52", 1));
    CHECK(slice_is(m.body.init.mlink, "\x53", 1) && slice_is(m.body.init.region, "ns", 2));
    CHECK_EQ_INT(m.body.init.unknown.n, 1);

    /* the resolution byte keeps its low 6 bits, as Rust reads it */
    {
        static const uint8_t in[] = {0x41, 0x09, 0x00, 0x01, 0xca, 0x00, 0x08};
        zm_reader_t r;
        zm_reader_init(&r, in, sizeof(in));
        CHECK(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m) == Z_OK);
        CHECK_EQ_INT(m.body.init.resolution, 0x0a);
        CHECK_EQ_INT(m.body.init.batch_size, 2048);
    }

    /* an unknown extension read first is written after the known ones */
    {
        static const uint8_t in[] = {0x81, 0x09, 0x12, 0x01, 0x02, 0xa2, 0x07, 0x81, 0x27, 0x01};
        static const uint8_t canon[] = {0x81, 0x09, 0x12, 0x01, 0x02, 0x81, 0xa7, 0x01, 0x22, 0x07};
        zm_reader_t r;
        zm_reader_init(&r, in, sizeof(in));
        CHECK(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m) == Z_OK);
        uint8_t out[32];
        zm_writer_t w;
        zm_writer_init(&w, out, sizeof(out));
        CHECK(zm_transport_encode(&w, &m) == Z_OK);
        CHECK_EQ_MEM(out, w.len, canon, sizeof(canon));
    }

    /* OPEN syn: every extension; MultiLink has a body here */
    REENCODE_T("OPEN syn all exts", &m, 0xc2, 0x0a, 0x01, 0x01, 0xcc, 0x81, 0xc2, 0x01, 0x61, 0xc3, 0x01,
               0x62, 0xc4, 0x01, 0x63, 0x85, 0x86, 0xa7, 0x01, 0x22, 0x09);
    CHECK_EQ_INT(m.body.open.exts, 0x7f);
    CHECK(slice_is(m.body.open.mlink, "\x63", 1));
    CHECK_EQ_INT(m.body.open.remote_bound, 1);
    CHECK_EQ_INT(m.body.open.unknown.n, 1); /* the older z64 Shm is just unknown */
    /* OPEN ack: MultiLink is a bare marker, and the syn form is unknown there */
    REENCODE_T("OPEN ack mlink", &m, 0xe2, 0x0a, 0x01, 0x84, 0x44, 0x01, 0x00);
    CHECK_EQ_INT(m.body.open.exts, ZM_OPEN_EXT_MLINK);
    CHECK_EQ_INT(m.body.open.unknown.n, 1);
    REENCODE_T("OPEN syn unit 0x04 unknown", &m, 0x82, 0x0a, 0x01, 0x00, 0x04);
    CHECK_EQ_INT(m.body.open.exts, 0);
    CHECK_EQ_INT(m.body.open.unknown.n, 1);

    /* FRAGMENT: QoS, First, Drop, unknown */
    REENCODE_T("FRAGMENT all exts", &m, 0x86, 0x03, 0xb1, 0x02, 0x82, 0x83, 0x04, 0xaa, 0xbb);
    CHECK(m.body.fragment.has_qos && m.body.fragment.first && m.body.fragment.drop);
    CHECK_EQ_INT(m.body.fragment.qos, 2);
    CHECK(slice_is(m.body.fragment.payload, "\xaa\xbb", 2));

    /* FRAME: a QoS ext whose value is past a byte keeps the low byte, like Rust */
    {
        static const uint8_t in[] = {0x85, 0x00, 0x31, 0x81, 0x02};
        zm_reader_t r;
        zm_reader_init(&r, in, sizeof(in));
        CHECK(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m) == Z_OK);
        CHECK_EQ_INT(m.body.frame.qos, 0x01);
    }

    /* JOIN with size, ms lease, QoS (16 SNs), SHM, Patch */
    REENCODE_T("JOIN all exts", &m, 0xc7, 0x09, 0x21, 0x01, 0x02, 0x03, 0x09, 0x00, 0x20, 0xc4, 0x13,
               0x00, 0x00, 0xd1, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xd2, 0x01,
               0xaa, 0x27, 0x01);
    CHECK(m.body.join.has_size && !m.body.join.lease_secs);
    CHECK_EQ_INT(m.body.join.whatami, ZM_WAI_PEER);
    CHECK_EQ_INT(m.body.join.zid.len, 3);
    CHECK_EQ_INT(m.body.join.resolution, 0x09);
    CHECK_EQ_INT(m.body.join.batch_size, 0x2000);
    CHECK_EQ_INT(m.body.join.lease, 2500);
    CHECK_EQ_INT(m.body.join.exts, ZM_JOIN_EXT_QOS | ZM_JOIN_EXT_SHM | ZM_JOIN_EXT_PATCH);
    CHECK_EQ_INT(m.body.join.qos_sns.len, 16);

    /* transport OAM, the three bodies, with QoS and an unknown extension */
    REENCODE_T("OAM unit", &m, 0x00, 0x01);
    CHECK_EQ_INT(m.body.oam.enc, ZM_OAM_UNIT);
    REENCODE_T("OAM z64 + QoS", &m, 0xa0, 0x80, 0x01, 0x31, 0x03, 0xac, 0x02);
    CHECK_EQ_INT(m.body.oam.id, 128);
    CHECK(m.body.oam.has_qos && m.body.oam.qos == 3);
    CHECK_EQ_INT(m.body.oam.z64, 300);
    REENCODE_T("OAM zbuf + QoS + unknown", &m, 0xc0, 0x02, 0xb1, 0x00, 0x22, 0x01, 0x02, 0xaa, 0xbb);
    CHECK_EQ_INT(m.body.oam.enc, ZM_OAM_ZBUF);
    CHECK(slice_is(m.body.oam.zbuf, "\xaa\xbb", 2));
    CHECK_EQ_INT(m.body.oam.unknown.n, 1);

    /* CLOSE and KEEP_ALIVE keep their unknown extensions in order */
    REENCODE_T("CLOSE two unknown", &m, 0xa3, 0x02, 0xa2, 0x01, 0x41, 0x01, 0xcc);
    CHECK_EQ_INT(m.body.close.unknown.n, 2);
    REENCODE_T("KEEP_ALIVE unknown", &m, 0x84, 0x07);
    /* more unknown extensions than kept: the extra is counted, then lost on re-encode */
    {
        static const uint8_t in[] = {0x84, 0x81, 0x82, 0x83, 0x04};
        zm_reader_t r;
        zm_reader_init(&r, in, sizeof(in));
        CHECK(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m) == Z_OK);
        CHECK_EQ_INT(m.body.keep_alive.unknown.n + m.body.keep_alive.unknown.dropped, 4);
        CHECK_EQ_INT(zm_reader_left(&r), 0);
    }

    /* scouting: Rust ignores the M bit of scouting extensions, so they are all kept */
    reencode_s("SCOUT mandatory ext", (const uint8_t *)"\x81\x09\x03\x11", 4, &s);
    CHECK_EQ_INT(s.body.scout.unknown.n, 1);
    reencode_s("HELLO ext after locators",
               (const uint8_t *)"\xa2\x09\x00\x01\x01\x03x/y\x41\x01\x00", 12, &s);
    CHECK_EQ_INT(s.body.hello.unknown.n, 1);
    CHECK_EQ_INT(s.body.hello.locator_count, 1);
    /* a SCOUT without I ignores the zid nibble, as Rust does */
    {
        zm_reader_t r;
        zm_reader_init(&r, (const uint8_t *)"\x01\x09\x37", 3);
        CHECK(zm_scouting_decode(&r, &s) == Z_OK && !s.body.scout.has_zid && s.body.scout.what == 7);
    }
}

/* ---- encoder argument checks, resolution masks --------------------------------------------- */

static void test_encode_checks(void)
{
    uint8_t out[64];
    zm_writer_t w;
    zm_transport_msg_t m = new_msg(ZM_MID_INIT);
    m.body.init.whatami = 3;
    m.body.init.zid = zid_of(ZID_0102, 2);
    zm_writer_init(&w, out, sizeof(out));
    CHECK_EQ_INT(zm_transport_encode(&w, &m), ZM_E_WHATAMI);
    CHECK_EQ_INT(w.len, 0);
    m.body.init.whatami = ZM_WAI_PEER;
    m.body.init.zid.len = 0;
    CHECK_EQ_INT(zm_transport_encode(&w, &m), ZM_E_ZID);
    m.body.init.zid.len = 17;
    CHECK_EQ_INT(zm_transport_encode(&w, &m), ZM_E_ZID);
    CHECK_EQ_INT(w.len, 0);

    m = new_msg(0x08);
    CHECK_EQ_INT(zm_transport_encode(&w, &m), ZM_E_MSG_UNKNOWN);
    m = new_msg(ZM_MID_T_OAM);
    m.body.oam.enc = 3;
    CHECK_EQ_INT(zm_transport_encode(&w, &m), Z_EINVAL);
    CHECK_EQ_INT(w.len, 0);

    zm_scouting_msg_t s;
    memset(&s, 0, sizeof(s));
    s.id = ZM_MID_HELLO;
    s.body.hello.whatami = 3;
    s.body.hello.zid = zid_of(ZID_0102, 2);
    CHECK_EQ_INT(zm_scouting_encode(&w, &s), ZM_E_WHATAMI);
    s.id = 0x05;
    CHECK_EQ_INT(zm_scouting_encode(&w, &s), ZM_E_MSG_UNKNOWN);
    CHECK_EQ_INT(w.len, 0);

    CHECK_EQ_INT(zm_sn_mask(0), 0x7f);
    CHECK_EQ_INT(zm_sn_mask(1), 0x3fff);
    CHECK_EQ_INT(zm_sn_mask(2), 0x0fffffff);
    CHECK_EQ_INT(zm_sn_mask(3), 0xffffffffu);
    CHECK_EQ_INT(zm_sn_mask(ZM_RESOLUTION_DEFAULT & 0x03), ZM_SN_MASK_DEFAULT);
}

/* Every scouting or transport vector of the file was exercised above. */
static void test_coverage(void)
{
    static const char *prefixes[] = {"SCOUT", "HELLO", "INIT", "OPEN", "CLOSE", "KEEP_ALIVE",
                                     "FRAME", "FRAGMENT", "JOIN", "TCP batch"};
    for (size_t i = 0; i < n_vectors; i++) {
        for (size_t p = 0; p < ZM_ARRAY_LEN(prefixes); p++) {
            if (strncmp(vectors[i].name, prefixes[p], strlen(prefixes[p])) == 0) {
                CHECK_CTX(vectors[i].used, "vector not tested: %s", vectors[i].name);
            }
        }
    }
}

int main(void)
{
    load_vectors();
    CHECK(n_vectors > 40);
    test_scouting_vectors();
    test_init_vectors();
    test_syn_encoders();
    test_open_close_vectors();
    test_fragment_join_vectors();
    test_frame_vectors();
    test_batch_errors();
    test_lone_push();
    test_stream();
    test_errors();
    test_locators();
    test_extensions();
    test_encode_checks();
    test_coverage();
    return CHECK_DONE();
}
