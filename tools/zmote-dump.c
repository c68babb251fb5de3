/*
 * zmote-dump: decodes Zenoh 1.x wire bytes given as hex and prints every message on a line of its
 * own, or (--reencode) the bytes the encoders give back for what was decoded. It is the codec's
 * magnifying glass and its shell-level round-trip check at once, so both modes walk the input
 * the same way; malformed input names the byte offset where decoding stopped, and the next
 * input is still processed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/codec.h"

/* A batch is at most 65535 bytes; on a stream its 2-byte length prefix comes on top. */
#define BATCH_CAP (65535u + 2u)
#define PREVIEW_MAX 24u

typedef enum { LAYER_SCOUTING, LAYER_TRANSPORT, LAYER_NETWORK, LAYER_STREAM } layer_t;

/* Where an input failed (offset from its first byte), why, and in which step. */
typedef struct {
    size_t at;
    z_result_t rc;
    const char *step; /* NULL for a decode error */
} failure_t;

/* The re-encoded bytes of one input, grown as batches are appended. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
} outbuf_t;

static uint8_t batch_buf[BATCH_CAP];

/* Where the input being processed came from, before each of its error messages: "line N: " for
 * standard input, empty for an argument. */
static char where[40];

static bool fail(failure_t *f, size_t at, z_result_t rc, const char *step)
{
    f->at = at;
    f->rc = rc;
    f->step = step;
    return false;
}

static void out_append(outbuf_t *o, const uint8_t *p, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256u;
        while (cap < o->len + n) {
            cap *= 2;
        }
        uint8_t *grown = realloc(o->data, cap);
        if (grown == NULL) {
            fprintf(stderr, "zmote-dump: out of memory\n");
            exit(2);
        }
        o->data = grown;
        o->cap = cap;
    }
    if (n > 0) {
        memcpy(o->data + o->len, p, n);
    }
    o->len += n;
}

/* ============================== printing ====================================================== */

static void put_indent(int n)
{
    printf("%*s", n, "");
}

/* Text as a quoted, escaped string; stops after max bytes. */
static void put_text(zm_slice_t s, size_t max)
{
    putchar('"');
    size_t n = s.len < max ? s.len : max;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s.ptr[i];
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c >= 0x20 && c < 0x7f) {
            putchar(c);
        } else {
            printf("\\x%02x", c);
        }
    }
    putchar('"');
    if (n < s.len) {
        printf("...");
    }
}

static bool is_printable(zm_slice_t s)
{
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] < 0x20 || s.ptr[i] >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* A byte string as its size plus a short look at its start. */
static void put_blob(const char *name, zm_slice_t s)
{
    printf(" %s=%zuB", name, s.len);
    if (s.len == 0) {
        return;
    }
    if (is_printable(s)) {
        putchar(' ');
        put_text(s, PREVIEW_MAX);
        return;
    }
    printf(" [");
    size_t n = s.len < PREVIEW_MAX / 2 ? s.len : PREVIEW_MAX / 2;
    for (size_t i = 0; i < n; i++) {
        printf(i ? " %02x" : "%02x", s.ptr[i]);
    }
    printf(n < s.len ? " ...]" : "]");
}

/* The text form of a zid: lowercase hex of the u128, most significant first, no leading zeros. */
static void put_zid(const zm_zid_t *z)
{
    unsigned n = z->len <= 16 ? z->len : 16;
    while (n > 0 && z->id[n - 1] == 0) {
        n--;
    }
    if (n == 0) {
        printf("0");
        return;
    }
    printf("%x", z->id[n - 1]);
    for (unsigned i = n - 1; i > 0; i--) {
        printf("%02x", z->id[i - 1]);
    }
}

static const char *whatami_name(uint8_t w)
{
    switch (w) {
    case ZM_WAI_ROUTER:
        return "router";
    case ZM_WAI_PEER:
        return "peer";
    case ZM_WAI_CLIENT:
        return "client";
    default:
        return "invalid";
    }
}

static void put_what(uint8_t what)
{
    static const char *const names[3] = {"router", "peer", "client"};
    const char *sep = "";
    printf(" what=");
    for (unsigned i = 0; i < 3; i++) {
        if (what & (1u << i)) {
            printf("%s%s", sep, names[i]);
            sep = "|";
        }
    }
    if (what & ~0x07u) {
        printf("%s0x%02x", sep, what & ~0x07u);
    } else if (*sep == '\0') {
        printf("none");
    }
}

static const char *priority_name(unsigned p)
{
    static const char *const names[8] = {"control", "real-time", "interactive-high",
                                         "interactive-low", "data-high", "data", "data-low",
                                         "background"};
    return names[p & 7u];
}

/* Network QoS value: |r|r|F|E|D|prio(3)| */
static void put_net_qos(uint8_t q)
{
    printf(" qos=0x%02x(prio=%u %s %s", q, ZM_QOS_PRIO(q), priority_name(ZM_QOS_PRIO(q)),
           (q & ZM_QOS_BLOCK) ? "block" : "drop");
    if (q & ZM_QOS_EXPRESS) {
        printf(" express");
    }
    if (q & 0x20u) {
        printf(" block-first");
    }
    if (q & 0xc0u) {
        printf(" reserved=0x%02x", q & 0xc0u);
    }
    putchar(')');
}

/* Transport QoS value (FRAME/FRAGMENT/OAM ext 0x31): the channel priority. */
static void put_transport_qos(bool has, uint8_t q)
{
    if (!has) {
        return;
    }
    printf(" qos=0x%02x(prio=%u %s", q, ZM_QOS_PRIO(q), priority_name(ZM_QOS_PRIO(q)));
    if (q & ~0x07u) {
        printf(" reserved=0x%02x", q & ~0x07u);
    }
    putchar(')');
}

static void put_timestamp(const char *name, const zm_timestamp_t *ts)
{
    printf(" %s=0x%016llx/", name, (unsigned long long)ts->time);
    put_zid(&ts->id);
}

static const char *encoding_name(uint16_t id)
{
    static const char *const names[] = {
        "zenoh/bytes",     "zenoh/string",      "zenoh/serialized",  "application/octet-stream",
        "text/plain",      "application/json",  "text/json",         "application/cdr",
        "application/cbor", "application/yaml", "text/yaml",         "text/json5",
        "application/python-serialized-object", "application/protobuf",
        "application/java-serialized-object",   "application/openmetrics-text",
        "image/png",       "image/jpeg",        "image/gif",         "image/bmp",
        "image/webp",
    };
    if (id < ZM_ARRAY_LEN(names)) {
        return names[id];
    }
    return id == 0xffff ? "custom" : NULL;
}

static void put_encoding(const char *name, const zm_encoding_t *e)
{
    const char *known = encoding_name(e->id);
    printf("%s%s=%u", *name ? " " : "", name, e->id);
    if (known) {
        printf("(%s)", known);
    }
    if (e->has_schema) {
        printf(";schema=");
        put_text(e->schema, 64);
    }
}

static void put_entity(const char *name, const zm_zid_t *zid, uint32_t eid)
{
    printf(" %s=(zid=", name);
    put_zid(zid);
    printf(" eid=%u", eid);
}

static void put_source(const zm_source_info_t *s)
{
    put_entity("source", &s->zid, s->eid);
    printf(" sn=%u)", s->sn);
}

static void put_unknown(const zm_ext_unknown_t *u)
{
    if (u->n == 0 && u->dropped == 0) {
        return;
    }
    printf(" unknown_exts=%u", (unsigned)u->n + u->dropped);
    if (u->dropped) {
        printf("(%u dropped)", u->dropped);
    }
}

static void put_wire_expr(const char *name, const zm_wire_expr_t *we)
{
    printf(" %s=(scope=%u", name, we->scope);
    if (we->has_suffix) {
        printf(" suffix=");
        put_text(we->suffix, 256);
    }
    printf(" mapping=%s)", we->mapping == ZM_MAPPING_SENDER ? "sender" : "receiver");
}

/* The header's flag bits by name (bits 5, 6, 7); a bit with no name shows as its value. */
static void put_flags(uint8_t h, const char *b5, const char *b6)
{
    const char *names[3] = {b5, b6, "Z"};
    const char *sep = "";
    printf(" flags=");
    for (unsigned i = 0; i < 3; i++) {
        unsigned bit = 0x20u << i;
        if (h & bit) {
            if (names[i]) {
                printf("%s%s", sep, names[i]);
            } else {
                printf("%s0x%02x", sep, bit);
            }
            sep = "|";
        }
    }
    if (*sep == '\0') {
        putchar('-');
    }
}

static const char *oam_enc_name(uint8_t enc)
{
    switch (enc) {
    case ZM_OAM_UNIT:
        return "unit";
    case ZM_OAM_Z64:
        return "z64";
    case ZM_OAM_ZBUF:
        return "zbuf";
    default:
        return "invalid";
    }
}

static void put_oam_body(const zm_oam_t *o)
{
    printf(" id=%u enc=%s", o->id, oam_enc_name(o->enc));
    if (o->enc == ZM_OAM_Z64) {
        printf(" value=%llu", (unsigned long long)o->z64);
    } else if (o->enc == ZM_OAM_ZBUF) {
        put_blob("body", o->zbuf);
    }
}

static void put_lease(bool secs, uint64_t lease)
{
    printf(" lease=%llu%s", (unsigned long long)lease, secs ? "s" : "ms");
}

static void put_size_params(bool has_size, uint8_t resolution, uint16_t batch)
{
    static const char *const bits[4] = {"8", "16", "32", "64"};
    printf(" resolution=0x%02x(sn=%sbit rid=%sbit) batch=%u%s", resolution, bits[resolution & 3u],
           bits[(resolution >> 2) & 3u], batch, has_size ? "" : "(default)");
}

/* ---- scouting ------------------------------------------------------------------------------- */

static void put_scouting(const zm_scouting_msg_t *m, uint8_t h)
{
    if (m->id == ZM_MID_SCOUT) {
        const zm_scout_t *s = &m->body.scout;
        printf("SCOUT");
        put_flags(h, NULL, NULL);
        printf(" version=0x%02x", s->version);
        put_what(s->what);
        if (s->has_zid) {
            printf(" zid=");
            put_zid(&s->zid);
        }
        put_unknown(&s->unknown);
    } else {
        const zm_hello_t *hl = &m->body.hello;
        printf("HELLO");
        put_flags(h, "L", NULL);
        printf(" version=0x%02x whatami=%s zid=", hl->version, whatami_name(hl->whatami));
        put_zid(&hl->zid);
        if (hl->has_locators) {
            zm_reader_t it;
            zm_slice_t loc;
            bool got = false;
            const char *sep = "";
            zm_reader_init(&it, hl->locators.ptr, hl->locators.len);
            printf(" locators=%u[", hl->locator_count);
            while (zm_locators_next(&it, &loc, &got) == Z_OK && got) {
                printf("%s", sep);
                put_text(loc, 256);
                sep = " ";
            }
            putchar(']');
        }
        put_unknown(&hl->unknown);
    }
    putchar('\n');
}

/* ---- transport ------------------------------------------------------------------------------ */

static void put_init(const zm_init_t *in, uint8_t h)
{
    printf("INIT %s", in->ack ? "Ack" : "Syn");
    put_flags(h, "A", "S");
    printf(" version=0x%02x whatami=%s zid=", in->version, whatami_name(in->whatami));
    put_zid(&in->zid);
    put_size_params(in->has_size, in->resolution, in->batch_size);
    if (in->ack) {
        put_blob("cookie", in->cookie);
    }
    if (in->exts & ZM_INIT_EXT_QOS) {
        printf(" qos");
    }
    if (in->exts & ZM_INIT_EXT_QOS_LINK) {
        printf(" qos_link=0x%llx", (unsigned long long)in->qos_link);
    }
    if (in->exts & ZM_INIT_EXT_SHM) {
        put_blob("shm", in->shm);
    }
    if (in->exts & ZM_INIT_EXT_AUTH) {
        put_blob("auth", in->auth);
    }
    if (in->exts & ZM_INIT_EXT_MLINK) {
        put_blob("multilink", in->mlink);
    }
    if (in->exts & ZM_INIT_EXT_LOWLATENCY) {
        printf(" lowlatency");
    }
    if (in->exts & ZM_INIT_EXT_COMPRESSION) {
        printf(" compression");
    }
    if (in->exts & ZM_INIT_EXT_PATCH) {
        printf(" patch=%llu", (unsigned long long)in->patch);
    }
    if (in->exts & ZM_INIT_EXT_REGION) {
        put_blob("region", in->region);
    }
    put_unknown(&in->unknown);
}

static void put_open(const zm_open_t *o, uint8_t h)
{
    printf("OPEN %s", o->ack ? "Ack" : "Syn");
    put_flags(h, "A", "T");
    put_lease(o->lease_secs, o->lease);
    printf(" initial_sn=0x%x", o->initial_sn);
    if (!o->ack) {
        put_blob("cookie", o->cookie);
    }
    if (o->exts & ZM_OPEN_EXT_QOS) {
        printf(" qos");
    }
    if (o->exts & ZM_OPEN_EXT_SHM) {
        put_blob("shm", o->shm);
    }
    if (o->exts & ZM_OPEN_EXT_AUTH) {
        put_blob("auth", o->auth);
    }
    if (o->exts & ZM_OPEN_EXT_MLINK) {
        if (o->ack) {
            printf(" multilink");
        } else {
            put_blob("multilink", o->mlink);
        }
    }
    if (o->exts & ZM_OPEN_EXT_LOWLATENCY) {
        printf(" lowlatency");
    }
    if (o->exts & ZM_OPEN_EXT_COMPRESSION) {
        printf(" compression");
    }
    if (o->exts & ZM_OPEN_EXT_REMOTE_BOUND) {
        printf(" remote_bound=%llu", (unsigned long long)o->remote_bound);
    }
    put_unknown(&o->unknown);
}

static const char *close_reason_name(uint8_t r)
{
    static const char *const names[] = {"GENERIC", "UNSUPPORTED", "INVALID", "MAX_SESSIONS",
                                        "MAX_LINKS", "EXPIRED", "UNRESPONSIVE",
                                        "CONNECTION_TO_SELF"};
    return r < ZM_ARRAY_LEN(names) ? names[r] : "unknown";
}

static void put_join(const zm_join_t *j, uint8_t h)
{
    printf("JOIN");
    put_flags(h, "T", "S");
    printf(" version=0x%02x whatami=%s zid=", j->version, whatami_name(j->whatami));
    put_zid(&j->zid);
    put_size_params(j->has_size, j->resolution, j->batch_size);
    put_lease(j->lease_secs, j->lease);
    printf(" next_sn=(reliable=0x%x best_effort=0x%x)", j->next_sn_reliable,
           j->next_sn_best_effort);
    if (j->exts & ZM_JOIN_EXT_QOS) {
        zm_reader_t r;
        uint64_t rel, be;
        printf(" qos_sns=[");
        zm_reader_init(&r, j->qos_sns.ptr, j->qos_sns.len);
        for (unsigned p = 0; p < 8; p++) {
            if (zm_read_zint(&r, &rel) != Z_OK || zm_read_zint(&r, &be) != Z_OK) {
                printf("?");
                break;
            }
            printf(p ? " %llx/%llx" : "%llx/%llx", (unsigned long long)rel,
                   (unsigned long long)be);
        }
        putchar(']');
    }
    if (j->exts & ZM_JOIN_EXT_SHM) {
        put_blob("shm", j->shm);
    }
    if (j->exts & ZM_JOIN_EXT_PATCH) {
        printf(" patch=%llu", (unsigned long long)j->patch);
    }
    put_unknown(&j->unknown);
}

static void put_transport(const zm_transport_msg_t *m, uint8_t h)
{
    switch (m->id) {
    case ZM_MID_T_OAM:
        printf("OAM");
        put_flags(h, "ENC0", "ENC1");
        put_oam_body(&m->body.oam);
        put_transport_qos(m->body.oam.has_qos, m->body.oam.qos);
        put_unknown(&m->body.oam.unknown);
        break;
    case ZM_MID_INIT:
        put_init(&m->body.init, h);
        break;
    case ZM_MID_OPEN:
        put_open(&m->body.open, h);
        break;
    case ZM_MID_CLOSE:
        printf("CLOSE");
        put_flags(h, "S", NULL);
        printf(" %s reason=%s(0x%02x)", m->body.close.session ? "session" : "link",
               close_reason_name(m->body.close.reason), m->body.close.reason);
        put_unknown(&m->body.close.unknown);
        break;
    case ZM_MID_KEEP_ALIVE:
        printf("KEEP_ALIVE");
        put_flags(h, NULL, NULL);
        put_unknown(&m->body.keep_alive.unknown);
        break;
    case ZM_MID_FRAME:
        printf("FRAME");
        put_flags(h, "R", NULL);
        printf(" %s sn=0x%x", m->body.frame.reliable ? "reliable" : "best-effort",
               m->body.frame.sn);
        put_transport_qos(m->body.frame.has_qos, m->body.frame.qos);
        put_unknown(&m->body.frame.unknown);
        break;
    case ZM_MID_FRAGMENT: {
        const zm_fragment_t *f = &m->body.fragment;
        printf("FRAGMENT");
        put_flags(h, "R", "M");
        printf(" %s %s sn=0x%x", f->reliable ? "reliable" : "best-effort", f->more ? "more" : "last",
               f->sn);
        put_transport_qos(f->has_qos, f->qos);
        if (f->first) {
            printf(" first");
        }
        if (f->drop) {
            printf(" drop");
        }
        put_unknown(&f->unknown);
        put_blob("payload", f->payload);
        break;
    }
    case ZM_MID_JOIN:
        put_join(&m->body.join, h);
        break;
    default:
        printf("transport 0x%02x?", m->id);
        break;
    }
    putchar('\n');
}

/* ---- zenoh bodies --------------------------------------------------------------------------- */

static void put_put(const zm_put_t *p)
{
    printf(" PUT");
    if (p->has_timestamp) {
        put_timestamp("ts", &p->timestamp);
    }
    if (p->has_encoding) {
        put_encoding("encoding", &p->encoding);
    }
    if (p->exts & ZM_PUT_EXT_SOURCE) {
        put_source(&p->source);
    }
    if (p->exts & ZM_PUT_EXT_SHM) {
        printf(" shm");
    }
    if (p->exts & ZM_PUT_EXT_ATTACHMENT) {
        put_blob("attachment", p->attachment);
    }
    put_unknown(&p->unknown);
    put_blob("payload", p->payload);
}

static void put_del(const zm_del_t *d)
{
    printf(" DEL");
    if (d->has_timestamp) {
        put_timestamp("ts", &d->timestamp);
    }
    if (d->exts & ZM_DEL_EXT_SOURCE) {
        put_source(&d->source);
    }
    if (d->exts & ZM_DEL_EXT_ATTACHMENT) {
        put_blob("attachment", d->attachment);
    }
    put_unknown(&d->unknown);
}

static const char *consolidation_name(uint8_t c)
{
    static const char *const names[] = {"auto", "none", "monotonic", "latest"};
    return c < ZM_ARRAY_LEN(names) ? names[c] : "unknown";
}

static void put_consolidation(bool has, uint8_t c)
{
    if (has) {
        printf(" consolidation=%s(%u)", consolidation_name(c), c);
    }
}

static void put_query(const zm_query_t *q)
{
    printf(" QUERY");
    put_consolidation(q->has_consolidation, q->consolidation);
    if (q->has_parameters) {
        printf(" parameters=");
        put_text(q->parameters, 256);
    }
    if (q->exts & ZM_QUERY_EXT_SOURCE) {
        put_source(&q->source);
    }
    if (q->exts & ZM_QUERY_EXT_SHM) {
        printf(" shm");
    }
    if (q->exts & ZM_QUERY_EXT_BODY) {
        printf(" body=(encoding");
        put_encoding("", &q->body_encoding);
        put_blob("payload", q->body_payload);
        putchar(')');
    }
    if (q->exts & ZM_QUERY_EXT_ATTACHMENT) {
        put_blob("attachment", q->attachment);
    }
    put_unknown(&q->unknown);
}

static void put_err(const zm_err_t *e)
{
    printf(" ERR");
    if (e->has_encoding) {
        put_encoding("encoding", &e->encoding);
    }
    if (e->exts & ZM_ERR_EXT_SOURCE) {
        put_source(&e->source);
    }
    if (e->exts & ZM_ERR_EXT_SHM) {
        printf(" shm");
    }
    put_unknown(&e->unknown);
    put_blob("payload", e->payload);
}

static void put_push_body(uint8_t id, const zm_put_t *put, const zm_del_t *del)
{
    if (id == ZM_MID_PUT) {
        put_put(put);
    } else if (id == ZM_MID_DEL) {
        put_del(del);
    } else {
        printf(" body 0x%02x?", id);
    }
}

/* ---- declarations --------------------------------------------------------------------------- */

static const char *decl_name(uint8_t kind)
{
    switch (kind) {
    case ZM_DECL_KEYEXPR:
        return "D_KEYEXPR";
    case ZM_UNDECL_KEYEXPR:
        return "U_KEYEXPR";
    case ZM_DECL_SUBSCRIBER:
        return "D_SUBSCRIBER";
    case ZM_UNDECL_SUBSCRIBER:
        return "U_SUBSCRIBER";
    case ZM_DECL_QUERYABLE:
        return "D_QUERYABLE";
    case ZM_UNDECL_QUERYABLE:
        return "U_QUERYABLE";
    case ZM_DECL_TOKEN:
        return "D_TOKEN";
    case ZM_UNDECL_TOKEN:
        return "U_TOKEN";
    case ZM_DECL_FINAL:
        return "D_FINAL";
    default:
        return "D_?";
    }
}

static void put_declaration(const zm_declaration_t *d)
{
    printf(" %s", decl_name(d->kind));
    switch (d->kind) {
    case ZM_DECL_KEYEXPR:
    case ZM_DECL_SUBSCRIBER:
    case ZM_DECL_QUERYABLE:
    case ZM_DECL_TOKEN:
        printf(" id=%u", d->id);
        put_wire_expr("key", &d->wire_expr);
        break;
    case ZM_UNDECL_KEYEXPR:
        printf(" id=%u", d->id);
        break;
    case ZM_UNDECL_SUBSCRIBER:
    case ZM_UNDECL_QUERYABLE:
    case ZM_UNDECL_TOKEN:
        printf(" id=%u", d->id);
        if (d->has_ext_wire) {
            put_wire_expr("ext_key", &d->wire_expr);
        }
        break;
    default:
        break;
    }
    if (d->has_qbl_info) {
        printf(" complete=%d distance=%u", d->qbl_complete ? 1 : 0, d->qbl_distance);
    }
    put_unknown(&d->unknown);
}

/* ---- network -------------------------------------------------------------------------------- */

static const char *target_name(uint8_t t)
{
    static const char *const names[] = {"best-matching", "all", "all-complete"};
    return t < ZM_ARRAY_LEN(names) ? names[t] : "unknown";
}

static void put_net_exts(const zm_net_exts_t *x)
{
    if (x->present & ZM_NET_EXT_QOS) {
        put_net_qos(x->qos);
    }
    if (x->present & ZM_NET_EXT_TIMESTAMP) {
        put_timestamp("ts", &x->timestamp);
    }
    if (x->present & ZM_NET_EXT_RESPONDER) {
        put_entity("responder", &x->responder.zid, x->responder.eid);
        putchar(')');
    }
    if (x->present & ZM_NET_EXT_TARGET) {
        printf(" target=%s(%u)", target_name(x->target), x->target);
    }
    if (x->present & ZM_NET_EXT_BUDGET) {
        printf(" budget=%u", x->budget);
    }
    if (x->present & ZM_NET_EXT_TIMEOUT) {
        printf(" timeout=%llums", (unsigned long long)x->timeout_ms);
    }
    if (x->present & ZM_NET_EXT_NODEID) {
        printf(" nodeid=%u", x->nodeid);
    }
    if (x->present & ZM_NET_EXT_TS_STACK) {
        put_blob("ts_stack", x->ts_stack);
    }
    put_unknown(&x->unknown);
}

static const char *interest_mode_name(uint8_t mode)
{
    static const char *const names[4] = {"final", "current", "future", "current-future"};
    return names[mode & 3u];
}

static void put_interest_options(uint8_t o)
{
    static const char *const names[8] = {"K", "S", "Q", "T", "R", "N", "M", "A"};
    const char *sep = "";
    printf(" options=0x%02x(", o);
    for (unsigned i = 0; i < 8; i++) {
        if (o & (1u << i)) {
            printf("%s%s", sep, names[i]);
            sep = "|";
        }
    }
    putchar(')');
}

static void put_network(const zm_network_msg_t *m, uint8_t h)
{
    switch (m->id) {
    case ZM_MID_N_PUSH: {
        const zm_push_t *p = &m->body.push;
        printf("PUSH");
        put_flags(h, "N", "M");
        put_wire_expr("key", &p->wire_expr);
        put_net_exts(&m->ext);
        put_push_body(p->body_id, &p->body.put, &p->body.del);
        break;
    }
    case ZM_MID_N_REQUEST: {
        const zm_request_t *q = &m->body.request;
        printf("REQUEST");
        put_flags(h, "N", "M");
        printf(" rid=%u", q->rid);
        put_wire_expr("key", &q->wire_expr);
        put_net_exts(&m->ext);
        put_query(&q->query);
        break;
    }
    case ZM_MID_N_RESPONSE: {
        const zm_response_t *r = &m->body.response;
        printf("RESPONSE");
        put_flags(h, "N", "M");
        printf(" rid=%u", r->rid);
        put_wire_expr("key", &r->wire_expr);
        put_net_exts(&m->ext);
        if (r->body_id == ZM_MID_REPLY) {
            const zm_reply_t *rp = &r->body.reply;
            printf(" REPLY");
            put_consolidation(rp->has_consolidation, rp->consolidation);
            put_unknown(&rp->unknown);
            put_push_body(rp->body_id, &rp->body.put, &rp->body.del);
        } else if (r->body_id == ZM_MID_ERR) {
            put_err(&r->body.err);
        } else {
            printf(" body 0x%02x?", r->body_id);
        }
        break;
    }
    case ZM_MID_N_RESPONSE_FINAL:
        printf("RESPONSE_FINAL");
        put_flags(h, NULL, NULL);
        printf(" rid=%u", m->body.response_final.rid);
        put_net_exts(&m->ext);
        break;
    case ZM_MID_N_INTEREST: {
        const zm_interest_t *i = &m->body.interest;
        printf("INTEREST");
        put_flags(h, "MODE0", "MODE1");
        printf(" id=%u mode=%s", i->id, interest_mode_name(i->mode));
        if (i->mode != ZM_INTEREST_FINAL) {
            put_interest_options(i->options);
            if (i->options & ZM_INTEREST_R) {
                put_wire_expr("key", &i->wire_expr);
            }
        }
        put_net_exts(&m->ext);
        break;
    }
    case ZM_MID_N_DECLARE: {
        const zm_declare_t *d = &m->body.declare;
        printf("DECLARE");
        put_flags(h, "I", NULL);
        if (d->has_interest_id) {
            printf(" interest_id=%u", d->interest_id);
        }
        put_net_exts(&m->ext);
        put_declaration(&d->decl);
        break;
    }
    case ZM_MID_N_OAM:
        printf("OAM");
        put_flags(h, "ENC0", "ENC1");
        put_oam_body(&m->body.oam);
        put_net_exts(&m->ext);
        break;
    default:
        printf("network 0x%02x?", m->id);
        break;
    }
    putchar('\n');
}

/* ============================== walking an input ============================================== */

/*
 * Decodes one batch and either prints it (w == NULL) or re-encodes it into w. base is the
 * batch's offset in the input, so that errors name input offsets.
 */
static bool walk_batch(const uint8_t *b, size_t len, size_t base, int indent, zm_writer_t *w,
                       failure_t *f)
{
    zm_batch_iter_t it;
    unsigned count = 0;
    zm_batch_iter_init(&it, b, len, ZM_SN_MASK_DEFAULT);
    for (;;) {
        zm_transport_msg_t t;
        bool got = false;
        size_t at = zm_reader_offset(&it.r);
        uint8_t h = at < len ? b[at] : 0;
        z_result_t rc = zm_batch_next(&it, &t, &got);
        if (rc != Z_OK) {
            return fail(f, base + zm_reader_offset(&it.r), rc, NULL);
        }
        if (!got) {
            break;
        }
        count++;
        if (w) {
            rc = zm_transport_encode(w, &t);
            if (rc != Z_OK) {
                return fail(f, base + at, rc, "re-encoding");
            }
        } else {
            put_indent(indent);
            put_transport(&t, h);
        }
        if (t.id != ZM_MID_FRAME) {
            continue;
        }
        for (;;) {
            zm_network_msg_t n;
            at = zm_reader_offset(&it.r);
            h = at < len ? b[at] : 0;
            rc = zm_batch_next_network(&it, &n, &got);
            if (rc != Z_OK) {
                return fail(f, base + zm_reader_offset(&it.r), rc, NULL);
            }
            if (!got) {
                break;
            }
            if (w) {
                rc = zm_network_encode(w, &n);
                if (rc != Z_OK) {
                    return fail(f, base + at, rc, "re-encoding");
                }
            } else {
                put_indent(indent + 2);
                put_network(&n, h);
            }
        }
    }
    if (count == 0 && w == NULL) {
        put_indent(indent);
        printf("(empty batch)\n");
    }
    return true;
}

static bool walk_stream(const uint8_t *in, size_t len, outbuf_t *o, failure_t *f)
{
    zm_reader_t r;
    zm_reader_init(&r, in, len);
    while (zm_reader_left(&r) > 0) {
        zm_slice_t batch;
        z_result_t rc = zm_stream_next(&r, &batch);
        if (rc != Z_OK) {
            return fail(f, zm_reader_offset(&r), rc, NULL);
        }
        size_t base = (size_t)(batch.ptr - in);
        if (o == NULL) {
            printf("batch len=%zu\n", batch.len);
            if (!walk_batch(batch.ptr, batch.len, base, 2, NULL, f)) {
                return false;
            }
            continue;
        }
        zm_writer_t w;
        zm_writer_init(&w, batch_buf, sizeof(batch_buf));
        w.len = 2; /* the prefix, filled in once the batch's length is known */
        if (!walk_batch(batch.ptr, batch.len, base, 0, &w, f)) {
            return false;
        }
        size_t n = w.len - 2;
        if (n > UINT16_MAX) {
            return fail(f, base - 2, ZM_E_NO_SPACE, "re-encoding");
        }
        batch_buf[0] = (uint8_t)n;
        batch_buf[1] = (uint8_t)(n >> 8);
        out_append(o, batch_buf, w.len);
    }
    return true;
}

/* One message that must span the whole input (scouting datagram, bare network message). */
static bool walk_single(layer_t layer, const uint8_t *in, size_t len, outbuf_t *o, failure_t *f)
{
    zm_reader_t r;
    zm_writer_t w;
    z_result_t rc;
    zm_scouting_msg_t s;
    zm_network_msg_t n;
    uint8_t h = len > 0 ? in[0] : 0;

    zm_reader_init(&r, in, len);
    rc = layer == LAYER_SCOUTING ? zm_scouting_decode(&r, &s) : zm_network_decode(&r, &n);
    if (rc != Z_OK) {
        return fail(f, zm_reader_offset(&r), rc, NULL);
    }
    if (zm_reader_left(&r) > 0) {
        return fail(f, zm_reader_offset(&r), ZM_E_TRAILING, NULL);
    }
    if (o == NULL) {
        if (layer == LAYER_SCOUTING) {
            put_scouting(&s, h);
        } else {
            put_network(&n, h);
        }
        return true;
    }
    zm_writer_init(&w, batch_buf, sizeof(batch_buf));
    rc = layer == LAYER_SCOUTING ? zm_scouting_encode(&w, &s) : zm_network_encode(&w, &n);
    if (rc != Z_OK) {
        return fail(f, 0, rc, "re-encoding");
    }
    out_append(o, w.data, w.len);
    return true;
}

/* Decodes one input; prints it or its re-encoding. Returns false (after saying why) on error. */
static bool process(layer_t layer, bool reencode, const uint8_t *in, size_t len)
{
    failure_t f = {0, Z_OK, NULL};
    outbuf_t o = {NULL, 0, 0};
    bool ok;

    switch (layer) {
    case LAYER_TRANSPORT:
        if (reencode) {
            zm_writer_t w;
            zm_writer_init(&w, batch_buf, sizeof(batch_buf));
            ok = walk_batch(in, len, 0, 0, &w, &f);
            if (ok) {
                out_append(&o, w.data, w.len);
            }
        } else {
            ok = walk_batch(in, len, 0, 0, NULL, &f);
        }
        break;
    case LAYER_STREAM:
        ok = walk_stream(in, len, reencode ? &o : NULL, &f);
        break;
    default:
        ok = walk_single(layer, in, len, reencode ? &o : NULL, &f);
        break;
    }
    if (ok && reencode) {
        for (size_t i = 0; i < o.len; i++) {
            printf(i ? " %02x" : "%02x", o.data[i]);
        }
        putchar('\n');
    }
    fflush(stdout);
    if (!ok) {
        if (f.step) {
            fprintf(stderr, "%serror at byte %zu: %s failed: %s\n", where, f.at, f.step, zm_strerror(f.rc));
        } else {
            fprintf(stderr, "%serror at byte %zu: %s\n", where, f.at, zm_strerror(f.rc));
        }
    }
    free(o.data);
    return ok;
}

/* ============================== input ========================================================= */

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

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
}

/*
 * Hex bytes, optionally separated by white space; each byte is two adjacent digits. The buffer
 * is allocated to the exact length so that a sanitizer catches any read past the input.
 */
static bool parse_hex(const char *s, uint8_t **out, size_t *len)
{
    size_t digits = 0;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (is_space(s[i])) {
            continue;
        }
        if (hex_digit(s[i]) < 0) {
            unsigned char c = (unsigned char)s[i];
            if (c > 0x20 && c < 0x7f) {
                fprintf(stderr, "%serror: invalid hex: unexpected character '%c' at position %zu\n", where, c, i);
            } else {
                fprintf(stderr, "%serror: invalid hex: unexpected byte 0x%02x at position %zu\n", where, c, i);
            }
            return false;
        }
        if (hex_digit(s[i + 1]) >= 0) {
            digits += 2;
            i++;
        } else {
            fprintf(stderr, "%serror: invalid hex: lone digit at position %zu (a byte takes two)\n", where, i);
            return false;
        }
    }
    *len = digits / 2;
    *out = malloc(*len > 0 ? *len : 1u);
    if (*out == NULL) {
        fprintf(stderr, "zmote-dump: out of memory\n");
        exit(2);
    }
    size_t n = 0;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (is_space(s[i])) {
            continue;
        }
        (*out)[n++] = (uint8_t)(hex_digit(s[i]) << 4 | hex_digit(s[i + 1]));
        i++;
    }
    return true;
}

static bool process_hex(layer_t layer, bool reencode, const char *hex)
{
    uint8_t *bytes;
    size_t len;
    if (!parse_hex(hex, &bytes, &len)) {
        return false;
    }
    bool ok = process(layer, reencode, bytes, len);
    free(bytes);
    return ok;
}

/* Reads one line of any length; NULL at end of input. The caller frees. */
static char *read_line(FILE *in)
{
    size_t cap = 256, len = 0;
    char *line = malloc(cap);
    if (line == NULL) {
        fprintf(stderr, "zmote-dump: out of memory\n");
        exit(2);
    }
    int c;
    while ((c = fgetc(in)) != EOF && c != '\n') {
        if (len + 1 >= cap) {
            char *grown = realloc(line, cap * 2);
            if (grown == NULL) {
                free(line);
                fprintf(stderr, "zmote-dump: out of memory\n");
                exit(2);
            }
            line = grown;
            cap *= 2;
        }
        line[len++] = (char)c;
    }
    if (c == EOF && len == 0) {
        free(line);
        return NULL;
    }
    line[len] = '\0';
    return line;
}

static bool is_blank_or_comment(const char *s)
{
    while (is_space(*s)) {
        s++;
    }
    return *s == '\0' || *s == '#';
}

static void usage(void)
{
    printf("usage: zmote-dump [--layer LAYER] [--reencode] [--] [HEX...]\n"
           "Decodes each HEX argument, or else each line of standard input, as one input, and prints\n"
           "its messages one per line. Bytes are pairs of hex digits; spaces and commas between them\n"
           "are ignored, and so are blank lines and lines starting with '#' on standard input.\n"
           "\n"
           "Options:\n"
           "  --layer LAYER  what an input holds (also --layer=LAYER):\n"
           "                   scouting   one SCOUT or HELLO\n"
           "                   transport  one batch of transport messages (the default; also: batch)\n"
           "                   network    one network message\n"
           "                   stream     batches, each behind a 2-byte little-endian length\n"
           "  --reencode     print the bytes the encoders give back for each input, as hex\n"
           "  --             what follows is hex, even if it starts with '-'\n"
           "  -h, --help     print this help and exit\n"
           "\n"
           "Exit status: 0 if every input decoded, 1 if one did not (each error names the byte where\n"
           "decoding stopped, and the line of standard input it came from), 2 for a bad command line.\n");
}

/* A bad command line: what is wrong (arg quoted, unprintable bytes escaped), then where help is.
 * Returns the exit status. */
static int usage_error(const char *what, const char *arg, const char *more)
{
    fprintf(stderr, "zmote-dump: %s", what);
    if (arg != NULL) {
        fputs(" '", stderr);
        for (const char *p = arg; *p != '\0'; p++) {
            unsigned char c = (unsigned char)*p;
            if (c < 0x20 || c >= 0x7f) {
                fprintf(stderr, "\\x%02x", c);
            } else {
                fputc(c, stderr);
            }
        }
        fputc('\'', stderr);
    }
    fprintf(stderr, "%s\nzmote-dump: run with --help for usage\n", more);
    return 2;
}

static bool parse_layer(const char *s, layer_t *layer)
{
    static const struct {
        const char *name;
        layer_t layer;
    } layers[] = {{"scouting", LAYER_SCOUTING}, {"transport", LAYER_TRANSPORT},
                  {"batch", LAYER_TRANSPORT},   {"network", LAYER_NETWORK},
                  {"stream", LAYER_STREAM}};
    for (size_t i = 0; i < ZM_ARRAY_LEN(layers); i++) {
        if (strcmp(s, layers[i].name) == 0) {
            *layer = layers[i].layer;
            return true;
        }
    }
    return false;
}

#define LAYER_NAMES "scouting, transport, network or stream"

int main(int argc, char **argv)
{
    layer_t layer = LAYER_TRANSPORT;
    bool reencode = false;
    bool options_done = false;
    int nhex = 0;
    /* hex[i]: argv[i] is an input (not an option nor an option's value) */
    bool *hex = calloc((size_t)argc + 1u, sizeof(*hex));
    if (hex == NULL) {
        fprintf(stderr, "zmote-dump: out of memory\n");
        return 2;
    }

    /* Options first (anywhere before "--"); what remains is hex. No hex starts with '-'. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-') {
            hex[i] = true;
            nhex++;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (strcmp(a, "--reencode") == 0) {
            reencode = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            free(hex);
            return 0;
        } else if (strcmp(a, "--layer") == 0 || strncmp(a, "--layer=", 8) == 0) {
            const char *v = NULL;
            if (a[7] == '=') {
                v = a + 8;
            } else if (i + 1 < argc && argv[i + 1][0] != '-') {
                v = argv[++i];
            }
            if (v == NULL || v[0] == '\0') {
                free(hex);
                return usage_error("--layer needs a value (" LAYER_NAMES ")", NULL, "");
            }
            if (!parse_layer(v, &layer)) {
                free(hex);
                return usage_error("unknown layer", v, " (expected " LAYER_NAMES ")");
            }
        } else {
            free(hex);
            return usage_error("unknown option", a, "");
        }
    }

    bool all_ok = true;
    where[0] = '\0';
    if (nhex > 0) {
        for (int i = 1; i < argc; i++) {
            if (hex[i] && !process_hex(layer, reencode, argv[i])) {
                all_ok = false;
            }
        }
    } else {
        char *line;
        unsigned long n = 0;
        while ((line = read_line(stdin)) != NULL) {
            snprintf(where, sizeof(where), "line %lu: ", ++n);
            if (!is_blank_or_comment(line) && !process_hex(layer, reencode, line)) {
                all_ok = false;
            }
            free(line);
        }
    }
    free(hex);
    return all_ok ? 0 : 1;
}
