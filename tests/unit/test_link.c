/*
 * The link layer: endpoint parsing and locator formatting (a table of valid and malformed
 * endpoints), the buffered batch reader over a scripted in-memory link (every chunking of the
 * stream must give the same batches), the start and end deadlines of a send, and TCP over
 * loopback through the POSIX port: batches both ways byte-exact (answered at once, and too late
 * for the answering reader's poll), shutdown waking a blocked reader, a peer that stops reading
 * (bounded sends, shutdown waking a waiting writer), a closed peer, a refused connect.
 * Threads synchronise through condvars with deadlines; no test waits by sleeping (the late
 * batches sleep to be late, not to wait for anything).
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "link/endpoint.h"
#include "link/link.h"
#include "zmote/port.h"

#define BIG_CAP 65535u /* a receive buffer for the largest stream batch, prefix included */
#define WAIT_MS 10000u /* an upper bound for things that happen at once; never reached */

static z_result_t parse(zm_endpoint_t *ep, const char *s, zm_endpoint_use_t use)
{
    return zm_endpoint_parse(ep, s, strlen(s), use);
}

static int slice_is(zm_slice_t s, const char *v) { return zm_slice_eq(s, zm_slice(v, strlen(v))); }

/* A batch sent by a peer that is expected to read: the deadlines are only there not to hang. */
static z_result_t send_batch(zm_link_t *l, uint8_t *batch, size_t len)
{
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    return zm_link_send_batch(l, batch, len, deadline, deadline);
}

/* Raw bytes on a socket, for streams the framing would not produce. */
static z_result_t sock_write(zm_socket_t *s, const uint8_t *buf, size_t len)
{
    size_t written = 0;
    return zm_port_socket_write(s, buf, len, zm_port_clock_ms() + WAIT_MS, &written);
}

/* ---- endpoints ------------------------------------------------------------------------------- */

typedef struct {
    const char *text;
    zm_endpoint_use_t use;
    z_result_t result;
    zm_link_proto_t proto; /* the fields below are checked only when result is Z_OK */
    const char *host;
    uint16_t port;
    int ipv6;
    const char *metadata;
    const char *locator; /* what zm_endpoint_to_locator gives back */
} ep_case_t;

static const ep_case_t ep_cases[] = {
    {"tcp/127.0.0.1:7447", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "127.0.0.1", 7447, 0, "",
     "tcp/127.0.0.1:7447"},
    {"tcp/localhost:7447", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "localhost", 7447, 0, "",
     "tcp/localhost:7447"},
    {"tcp/[::1]:7447", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "::1", 7447, 1, "",
     "tcp/[::1]:7447"},
    {"tcp/127.0.0.1:7447?prio=1-7", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "127.0.0.1", 7447,
     0, "prio=1-7", "tcp/127.0.0.1:7447?prio=1-7"},
    {"tcp/[::1]:7447?prio=1-7;rel=1", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "::1", 7447, 1,
     "prio=1-7;rel=1", "tcp/[::1]:7447?prio=1-7;rel=1"},
    {"tcp/[fe80::1%eth0]:1", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "fe80::1%eth0", 1, 1, "",
     "tcp/[fe80::1%eth0]:1"},
    {"tcp/[::ffff:10.0.0.1]:65535", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "::ffff:10.0.0.1",
     65535, 1, "", "tcp/[::ffff:10.0.0.1]:65535"},
    {"tcp/my-router.local:07447", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "my-router.local",
     7447, 0, "", "tcp/my-router.local:7447"},
    {"tcp/h:1?a;;b=x=y;", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "h", 1, 0, "a;;b=x=y;",
     "tcp/h:1?a;;b=x=y;"},
    {"tcp/h:1#", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TCP, "h", 1, 0, "", "tcp/h:1"},
    {"tcp/0.0.0.0:0", ZM_ENDPOINT_LISTEN, Z_OK, ZM_PROTO_TCP, "0.0.0.0", 0, 0, "",
     "tcp/0.0.0.0:0"},
    {"udp/10.0.0.1:7447", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_UDP, "10.0.0.1", 7447, 0, "",
     "udp/10.0.0.1:7447"},
    {"tls/example.com:443", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_TLS, "example.com", 443, 0, "",
     "tls/example.com:443"},
    {"serial/ttyUSB0", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_SERIAL, "", 0, 0, "",
     "serial/ttyUSB0"},
    /* Rust's serial keys; the locator drops the #config */
    {"serial//dev/ttyUSB0#baudrate=115200", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_SERIAL, "", 0, 0,
     "", "serial//dev/ttyUSB0"},
    {"serial/COM3#baudrate=9600;exclusive=true;tout=0;release_on_close=true", ZM_ENDPOINT_LISTEN,
     Z_OK, ZM_PROTO_SERIAL, "", 0, 0, "", "serial/COM3"},
    {"serial/x?a;;b=1#;baudrate=9600;", ZM_ENDPOINT_CONNECT, Z_OK, ZM_PROTO_SERIAL, "", 0, 0, "a;;b=1",
     "serial/x?a;;b=1"},

    {"tcp/127.0.0.1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0}, /* missing port */
    {"tcp/127.0.0.1:", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:0", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:70000", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:65536", ZM_ENDPOINT_LISTEN, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:123456", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:74x7", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/127.0.0.1:-1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/[::1:7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/[::1]7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/[::1]", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/[]:7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/[1.2.3.4]:7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/::1:7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0}, /* needs brackets */
    {"tcp/:7447", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},     /* empty host */
    {"tcp/", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/bad host:1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h\x01:1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"/h:1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/#baudrate=9600", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#baudrate=0", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#baudrate=4294967296", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#baudrate=fast", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#baudrate=", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#tout=-1", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#exclusive=yes", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#exclusive=false", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0, 0},
    {"serial/ttyS0#release_on_close=false", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0,
     0},
    {"serial/ttyS0#parity=even", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0, 0},
    {"foo/x:1", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0, 0},
    {"TCP/h:1", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1?=x", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1?a=1;=x", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1?a=1?b=2", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1#a=1#b", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1#=x", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1#a?b", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0}, /* '?' in the config */
    {"serial/x?a#b;=c", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"serial/x?a?b#baudrate=9600", ZM_ENDPOINT_CONNECT, ZM_E_LOCATOR, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1#iface=eth0", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0, 0, 0},
    {"tcp/h:1?prio=1-7#tcp_rx_buffer=65535", ZM_ENDPOINT_CONNECT, ZM_E_UNSUPPORTED, 0, 0, 0, 0,
     0, 0},
};

static void test_endpoint_table(void)
{
    for (size_t i = 0; i < ZM_ARRAY_LEN(ep_cases); i++) {
        const ep_case_t *c = &ep_cases[i];
        zm_endpoint_t ep;
        z_result_t r = parse(&ep, c->text, c->use);
        CHECK_CTX(r == c->result, "\"%s\": got %d (%s), want %d", c->text, r, zm_strerror(r),
                  c->result);
        if (r != Z_OK || c->result != Z_OK) {
            continue;
        }
        CHECK_CTX(ep.proto == c->proto, "\"%s\": proto", c->text);
        CHECK_CTX(slice_is(ep.host, c->host), "\"%s\": host", c->text);
        CHECK_CTX(ep.port == c->port, "\"%s\": port %u", c->text, ep.port);
        CHECK_CTX(ep.ipv6 == (c->ipv6 != 0), "\"%s\": ipv6", c->text);
        CHECK_CTX(slice_is(ep.metadata, c->metadata), "\"%s\": metadata", c->text);
        char loc[ZM_LOCATOR_MAX + 1];
        size_t len = 0;
        CHECK_EQ_INT(zm_endpoint_to_locator(&ep, loc, sizeof(loc), &len), Z_OK);
        CHECK_EQ_STR(loc, c->locator);
        CHECK_EQ_INT(len, strlen(c->locator));
    }
}

static void test_endpoint_details(void)
{
    zm_endpoint_t ep;
    zm_slice_t v;

    /* The input need not be NUL-terminated: HELLO locators are slices of a batch. */
    const char *text = "tcp/10.0.0.1:7447XYZ";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, text, 17, ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(ep.port, 7447);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, text, 16, ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(ep.port, 744);

    CHECK_EQ_INT(parse(&ep, "tcp/h:1?prio=1-7;rel=1;flag;prio=2", ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK(zm_endpoint_param(ep.metadata, "prio", &v) && slice_is(v, "1-7"));
    CHECK(zm_endpoint_param(ep.metadata, "rel", &v) && slice_is(v, "1"));
    CHECK(zm_endpoint_param(ep.metadata, "flag", &v) && v.len == 0);
    CHECK(!zm_endpoint_param(ep.metadata, "pri", &v));
    CHECK(!zm_endpoint_param(ep.config, "prio", &v));

    /* Formatting fails cleanly one byte short, and fits exactly with room for the NUL. */
    CHECK_EQ_INT(parse(&ep, "tcp/[::1]:7447?prio=1-7", ZM_ENDPOINT_CONNECT), Z_OK);
    const char *want = "tcp/[::1]:7447?prio=1-7";
    char buf[64];
    size_t len = 99;
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, buf, strlen(want), &len), ZM_E_NO_SPACE);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_STR(buf, "");
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, buf, strlen(want) + 1, &len), Z_OK);
    CHECK_EQ_STR(buf, want);
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, buf, 0, &len), ZM_E_NO_SPACE);

    /* A listener advertises the port it was given by setting it before formatting. */
    CHECK_EQ_INT(parse(&ep, "tcp/192.168.1.2:0", ZM_ENDPOINT_LISTEN), Z_OK);
    ep.port = 40123;
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, buf, sizeof(buf), &len), Z_OK);
    CHECK_EQ_STR(buf, "tcp/192.168.1.2:40123");

    char host[4];
    CHECK_EQ_INT(parse(&ep, "tcp/[::1]:1", ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_endpoint_host(&ep, host, sizeof(host)), Z_OK);
    CHECK_EQ_STR(host, "::1");
    CHECK_EQ_INT(parse(&ep, "tcp/abcd:1", ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_endpoint_host(&ep, host, sizeof(host)), ZM_E_NO_SPACE);

    /* The longest host fits a locator; one more character is refused. */
    char name[ZM_ENDPOINT_HOST_MAX + 16];
    memset(name, 'a', sizeof(name));
    memcpy(name, "tcp/", 4);
    memcpy(name + 4 + ZM_ENDPOINT_HOST_MAX, ":65535", 6);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, name, 4 + ZM_ENDPOINT_HOST_MAX + 6, ZM_ENDPOINT_CONNECT),
                 Z_OK);
    char loc[ZM_ENDPOINT_HOST_MAX + 32];
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, loc, sizeof(loc), &len), Z_OK);
    CHECK_EQ_INT(len, 4 + ZM_ENDPOINT_HOST_MAX + 6);
    CHECK_EQ_INT(zm_endpoint_host(&ep, loc, sizeof(loc)), Z_OK);
    CHECK_EQ_INT(strlen(loc), ZM_ENDPOINT_HOST_MAX);
    memset(name, 'a', sizeof(name));
    memcpy(name, "tcp/", 4);
    memcpy(name + 5 + ZM_ENDPOINT_HOST_MAX, ":1", 2);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, name, 5 + ZM_ENDPOINT_HOST_MAX + 2, ZM_ENDPOINT_CONNECT),
                 ZM_E_LOCATOR);

    CHECK_EQ_STR(zm_link_proto_name(ZM_PROTO_TCP), "tcp");
    CHECK_EQ_STR(zm_link_proto_name(ZM_PROTO_SERIAL), "serial");
}

/* ---- the batch reader over a scripted in-memory link ----------------------------------------- */

/* Hands out a fixed byte stream in reads of at most `chunk` bytes, then end of stream. */
typedef struct {
    const uint8_t *data;
    size_t len;
    size_t pos;
    size_t chunk;
    unsigned reads;
    uint8_t out[512];
    size_t out_len;
    unsigned writes;
    bool limited;          /* a peer that takes only `room` more bytes, then stops reading */
    size_t room;
    uint64_t deadlines[4]; /* of the first writes */
} mem_t;

static z_result_t mem_read(zm_link_t *l, uint8_t *buf, size_t len, size_t *n)
{
    mem_t *m = (mem_t *)l->ctx;
    *n = 0;
    if (m->pos == m->len) {
        return ZM_E_CLOSED;
    }
    size_t k = m->len - m->pos;
    k = k < m->chunk ? k : m->chunk;
    k = k < len ? k : len;
    memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    m->reads++;
    *n = k;
    return Z_OK;
}

static z_result_t mem_write(zm_link_t *l, const uint8_t *buf, size_t len, uint64_t deadline_ms, size_t *written)
{
    mem_t *m = (mem_t *)l->ctx;
    *written = 0;
    if (m->writes < ZM_ARRAY_LEN(m->deadlines)) {
        m->deadlines[m->writes] = deadline_ms;
    }
    m->writes++;
    size_t n = m->limited && m->room < len ? m->room : len;
    if (n > sizeof(m->out) - m->out_len) {
        return ZM_E_NO_SPACE;
    }
    memcpy(m->out + m->out_len, buf, n);
    m->out_len += n;
    *written = n;
    if (m->limited) {
        m->room -= n;
    }
    return n == len ? Z_OK : ZM_E_TIMEOUT; /* the deadline passed waiting for the rest */
}

static z_result_t mem_wait(zm_link_t *l, uint32_t timeout_ms)
{
    ZM_UNUSED(timeout_ms);
    mem_t *m = (mem_t *)l->ctx;
    return m->pos < m->len ? Z_OK : ZM_E_TIMEOUT;
}

static const zm_link_ops_t mem_ops = {
    .streamed = true,
    .mtu = 65535,
    .wait_readable = mem_wait,
    .read = mem_read,
    .write = mem_write,
};

static uint8_t pattern(size_t batch, size_t i) { return (uint8_t)(batch * 37u + i * 11u + 1u); }

/* Frames batches of the given sizes back to back into out; returns the stream length. */
static size_t build_stream(uint8_t *out, const size_t *sizes, size_t count)
{
    size_t pos = 0;
    for (size_t b = 0; b < count; b++) {
        out[pos++] = (uint8_t)(sizes[b] & 0xff);
        out[pos++] = (uint8_t)(sizes[b] >> 8);
        for (size_t i = 0; i < sizes[b]; i++) {
            out[pos++] = pattern(b, i);
        }
    }
    return pos;
}

static int batch_ok(zm_slice_t s, size_t b, size_t size)
{
    if (s.len != size) {
        return 0;
    }
    for (size_t i = 0; i < size; i++) {
        if (s.ptr[i] != pattern(b, i)) {
            return 0;
        }
    }
    return 1;
}

static void test_reader_chunkings(void)
{
    static const size_t sizes[] = {0, 1, 60, 2, 0, 33, 59, 7, 60, 1, 0};
    uint8_t stream[1024];
    size_t len = build_stream(stream, sizes, ZM_ARRAY_LEN(sizes));
    static const size_t chunks[] = {1, 2, 3, 5, 61, 62, 63, 200, 4096};
    static const size_t caps[] = {62, 64, 100, 1024};
    for (size_t c = 0; c < ZM_ARRAY_LEN(chunks); c++) {
        for (size_t k = 0; k < ZM_ARRAY_LEN(caps); k++) {
            mem_t m = {stream, len, 0, chunks[c], 0, {0}, 0, 0, false, 0, {0}};
            zm_link_t link;
            zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
            uint8_t buf[1024];
            for (size_t b = 0; b < ZM_ARRAY_LEN(sizes); b++) {
                zm_slice_t s;
                z_result_t r = zm_link_recv_batch(&link, buf, caps[k], &s);
                CHECK_CTX(r == Z_OK && batch_ok(s, b, sizes[b]), "chunk %zu cap %zu batch %zu: %s",
                          chunks[c], caps[k], b, zm_strerror(r));
                CHECK(r != Z_OK || (s.ptr >= buf && s.ptr + s.len <= buf + caps[k]));
            }
            zm_slice_t s;
            CHECK_EQ_INT(zm_link_recv_batch(&link, buf, caps[k], &s), ZM_E_CLOSED);
            zm_link_close(&link);
        }
    }

    /* One read that brings every batch serves them all: no byte is lost, no read is wasted. */
    mem_t m = {stream, len, 0, 4096, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_t link;
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
    uint8_t buf[1024];
    zm_slice_t s;
    for (size_t b = 0; b < ZM_ARRAY_LEN(sizes); b++) {
        CHECK(zm_link_recv_batch(&link, buf, sizeof(buf), &s) == Z_OK && batch_ok(s, b, sizes[b]));
    }
    CHECK_EQ_INT(m.reads, 1);
    zm_link_close(&link);
}

static void test_reader_errors(void)
{
    uint8_t buf[64];
    zm_slice_t s;
    zm_link_t link;

    /* 16 announced: cap 18 holds prefix + batch, cap 17 does not and the link is done. */
    uint8_t sixteen[18] = {16, 0};
    mem_t m = {sixteen, sizeof(sixteen), 0, 100, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, 17, &s), ZM_E_FIELD);
    m.pos = 0;
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, 18, &s), Z_OK);
    CHECK_EQ_INT(s.len, 16);

    /* 65535 announced into a 64-byte buffer: refused as soon as the prefix is in. */
    static const uint8_t huge[] = {0xff, 0xff, 1, 2, 3};
    mem_t h = {huge, sizeof(huge), 0, 1, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &h);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, sizeof(buf), &s), ZM_E_FIELD);
    CHECK_EQ_INT(h.reads, 2);

    /* The stream ends inside a body, then inside a prefix. */
    static const uint8_t cut_body[] = {5, 0, 'a', 'b'};
    mem_t b = {cut_body, sizeof(cut_body), 0, 100, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &b);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, sizeof(buf), &s), ZM_E_CLOSED);
    static const uint8_t cut_prefix[] = {1, 0, 'x', 5};
    mem_t p = {cut_prefix, sizeof(cut_prefix), 0, 100, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &p);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, sizeof(buf), &s), Z_OK);
    CHECK_EQ_MEM(s.ptr, s.len, "x", 1);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, sizeof(buf), &s), ZM_E_CLOSED);

    /* A buffer that cannot even hold a prefix is the caller's mistake, reported as such. */
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &b);
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, 1, &s), ZM_E_NO_SPACE);
}

static void test_reader_wait_and_send(void)
{
    static const size_t sizes[] = {3, 4};
    uint8_t stream[16];
    size_t len = build_stream(stream, sizes, 2);
    mem_t m = {stream, len, 0, 4096, 0, {0}, 0, 0, false, 0, {0}};
    zm_link_t link;
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
    uint8_t buf[64];
    zm_slice_t s;
    CHECK_EQ_INT(zm_link_wait_readable(&link, 0), Z_OK); /* bytes pending on the link */
    CHECK_EQ_INT(zm_link_recv_batch(&link, buf, sizeof(buf), &s), Z_OK);
    /* The link is drained, yet the second batch waits in the buffer: readable. */
    CHECK_EQ_INT(m.pos, m.len);
    CHECK_EQ_INT(zm_link_wait_readable(&link, 0), Z_OK);
    CHECK(zm_link_recv_batch(&link, buf, sizeof(buf), &s) == Z_OK && batch_ok(s, 1, 4));
    CHECK_EQ_INT(zm_link_wait_readable(&link, 0), ZM_E_TIMEOUT);

    /* send_batch writes the prefix into the headroom and everything in one write. */
    uint8_t tx[2 + 5] = {0xee, 0xee, 'h', 'e', 'l', 'l', 'o'};
    CHECK_EQ_INT(send_batch(&link, tx + ZM_LINK_HEADROOM, 5), Z_OK);
    CHECK_EQ_INT(m.writes, 1);
    CHECK_EQ_MEM(m.out, m.out_len, "\x05\x00hello", 7);
    CHECK_EQ_MEM(tx + 2, 5, "hello", 5);
    CHECK_EQ_INT(send_batch(&link, tx + ZM_LINK_HEADROOM, 0), Z_OK);
    CHECK_EQ_MEM(m.out + 7, m.out_len - 7, "\x00\x00", 2);
    CHECK_EQ_INT(zm_link_is_streamed(&link), 1);
    CHECK_EQ_INT(zm_link_mtu(&link), 65535);
    /* Past the MTU, prefix included, nothing is written. */
    CHECK_EQ_INT(send_batch(&link, tx + ZM_LINK_HEADROOM, 65534), ZM_E_FIELD);
    CHECK_EQ_INT(m.writes, 2);
    zm_link_close(&link);
}

/* The two deadlines of send_batch, over a peer that takes only so many bytes. */
static void test_send_deadlines(void)
{
    uint8_t tx[2 + 5] = {0, 0, 'h', 'e', 'l', 'l', 'o'};
    zm_link_t link;

    /* No room at all: nothing left by the start deadline, the link is intact. */
    mem_t m = {NULL, 0, 0, 1, 0, {0}, 0, 0, true, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &m);
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 5, 100, 200), ZM_E_AGAIN);
    CHECK_EQ_INT(m.writes, 1);
    CHECK_EQ_INT(m.deadlines[0], 100);
    CHECK_EQ_INT(m.out_len, 0);
    /* Room comes: the same batch is retried whole. */
    m.room = 7;
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 5, 100, 200), Z_OK);
    CHECK_EQ_MEM(m.out, m.out_len, "\x05\x00hello", 7);
    zm_link_close(&link);

    /* A first byte left: the rest is waited for until the end deadline, then the stream is broken. */
    mem_t p = {NULL, 0, 0, 1, 0, {0}, 0, 0, true, 3, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &p);
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 5, 100, 200), ZM_E_TIMEOUT);
    CHECK_EQ_INT(p.writes, 2);
    CHECK_EQ_INT(p.deadlines[0], 100);
    CHECK_EQ_INT(p.deadlines[1], 200);
    CHECK_EQ_MEM(p.out, p.out_len, "\x05\x00h", 3);
    zm_link_close(&link);

    /* Sent now: the first write's deadline is already past; once a byte left, the rest is given
     * rest_ms from then (a reading of the clock only then). */
    mem_t n = {NULL, 0, 0, 1, 0, {0}, 0, 0, true, 0, {0}};
    zm_link_init(&link, ZM_PROTO_TCP, &mem_ops, &n);
    CHECK_EQ_INT(zm_link_send_batch_now(&link, tx + ZM_LINK_HEADROOM, 5, 200), ZM_E_AGAIN);
    CHECK_EQ_INT(n.writes, 1);
    CHECK_EQ_INT(n.deadlines[0], 0);
    CHECK_EQ_INT(n.out_len, 0);
    n.room = 7;
    CHECK_EQ_INT(zm_link_send_batch_now(&link, tx + ZM_LINK_HEADROOM, 5, 200), Z_OK);
    CHECK_EQ_INT(n.writes, 2);
    CHECK_EQ_MEM(n.out, n.out_len, "\x05\x00hello", 7);
    n.room = 3;
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_link_send_batch_now(&link, tx + ZM_LINK_HEADROOM, 5, 200), ZM_E_TIMEOUT);
    CHECK_EQ_INT(n.writes, 4);
    CHECK_EQ_INT(n.deadlines[2], 0);
    CHECK(n.deadlines[3] >= t0 + 200 && n.deadlines[3] <= zm_port_clock_ms() + 200);
    CHECK_EQ_MEM(n.out + 7, n.out_len - 7, "\x05\x00h", 3);
    CHECK_EQ_INT(zm_link_send_batch_now(&link, tx + ZM_LINK_HEADROOM, 65534, 200), ZM_E_FIELD);
    zm_link_close(&link);

    /* Datagram links go whole or not at all, with the same codes. */
    static const zm_link_ops_t dgram_ops = {.streamed = false, .mtu = 512, .read = mem_read, .write = mem_write};
    mem_t d = {NULL, 0, 0, 1, 0, {0}, 0, 0, true, 0, {0}};
    zm_link_init(&link, ZM_PROTO_UDP, &dgram_ops, &d);
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 5, 100, 200), ZM_E_AGAIN);
    d.room = 5;
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 5, 100, 200), Z_OK);
    CHECK_EQ_MEM(d.out, d.out_len, "hello", 5);
    zm_link_close(&link);
}

/* ---- the POSIX port -------------------------------------------------------------------------- */

static void test_port_basics(void)
{
    uint64_t a = zm_port_clock_ms();
    uint64_t b = zm_port_clock_ms();
    CHECK(b >= a);
    CHECK(zm_port_time_ns() > 1577836800ull * 1000000000ull); /* after 2020-01-01 */
    uint8_t r1[32] = {0}, r2[32] = {0}, zero[32] = {0};
    zm_port_random(r1, sizeof(r1));
    zm_port_random(r2, sizeof(r2));
    CHECK(memcmp(r1, zero, sizeof(r1)) != 0);
    CHECK(memcmp(r1, r2, sizeof(r1)) != 0);
    void *p = zm_port_malloc(100);
    CHECK(p != NULL);
    zm_port_free(p);
    zm_port_free(NULL);
#if Z_FEATURE_MULTI_THREAD
    zm_mutex_t m;
    zm_condvar_t c;
    CHECK_EQ_INT(zm_port_mutex_init(&m), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&c), Z_OK);
    zm_port_mutex_lock(&m);
    /* A deadline already past times out at once; so does one a few ms away, nobody signals. */
    CHECK_EQ_INT(zm_port_condvar_wait_until(&c, &m, 0), ZM_E_TIMEOUT);
    uint64_t deadline = zm_port_clock_ms() + 5;
    z_result_t r;
    while ((r = zm_port_condvar_wait_until(&c, &m, deadline)) == Z_OK) {
    }
    CHECK_EQ_INT(r, ZM_E_TIMEOUT);
    CHECK(zm_port_clock_ms() >= deadline);
    zm_port_mutex_unlock(&m);
    zm_port_condvar_destroy(&c);
    zm_port_mutex_destroy(&m);
#endif
}

/* ---- TCP over loopback ----------------------------------------------------------------------- */

typedef struct {
    zm_link_t listener;
    zm_link_t client;
    zm_link_t server;
} tcp_pair_t;

/* Listens on `host` port 0, connects to the port it got, accepts. False (and a line saying
 * why) if the listen fails, which for ::1 means the machine has no IPv6 loopback. */
static int tcp_pair_open(tcp_pair_t *t, const char *listen_text)
{
    zm_endpoint_t ep;
    CHECK_EQ_INT(parse(&ep, listen_text, ZM_ENDPOINT_LISTEN), Z_OK);
    z_result_t r = zm_link_listen(&t->listener, &ep);
    if (r != Z_OK) {
        printf("skip %s: listen failed (%s)\n", listen_text, zm_strerror(r));
        return 0;
    }
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&t->listener, &port), Z_OK);
    CHECK(port != 0);

    /* The connect endpoint is the listener's locator with the real port, parsed back. */
    ep.port = port;
    char loc[ZM_LOCATOR_MAX + 1];
    size_t len = 0;
    CHECK_EQ_INT(zm_endpoint_to_locator(&ep, loc, sizeof(loc), &len), Z_OK);
    zm_endpoint_t cep;
    CHECK_EQ_INT(zm_endpoint_parse(&cep, loc, len, ZM_ENDPOINT_CONNECT), Z_OK);
    r = zm_link_open(&t->client, &cep, WAIT_MS);
    CHECK_CTX(r == Z_OK, "connect %s: %s", loc, zm_strerror(r));
    if (r != Z_OK) {
        zm_link_close(&t->listener);
        return 0;
    }
    r = zm_link_accept(&t->listener, &t->server, WAIT_MS);
    CHECK_CTX(r == Z_OK, "accept on %s: %s", loc, zm_strerror(r));
    if (r != Z_OK) {
        zm_link_close(&t->client);
        zm_link_close(&t->listener);
        return 0;
    }
    uint16_t sport = 0;
    CHECK_EQ_INT(zm_link_local_port(&t->server, &sport), Z_OK);
    CHECK_EQ_INT(sport, port);
    CHECK(zm_link_is_streamed(&t->client));
    CHECK_EQ_INT(zm_link_mtu(&t->client), 65535);
    return 1;
}

static void tcp_pair_close(tcp_pair_t *t)
{
    zm_link_close(&t->client);
    zm_link_close(&t->server);
    zm_link_close(&t->listener);
}

#if Z_FEATURE_MULTI_THREAD

/* Sends every batch it receives straight back, until its link fails. */
typedef struct {
    zm_link_t *link;
    z_result_t result; /* written by the echo task, read after join */
    unsigned echoed;
} echo_t;

static void *echo_main(void *arg)
{
    echo_t *e = (echo_t *)arg;
    uint8_t *rx = malloc(BIG_CAP);
    uint8_t *tx = malloc(BIG_CAP + ZM_LINK_HEADROOM);
    e->result = ZM_E_NOMEM;
    while (rx != NULL && tx != NULL) {
        zm_slice_t b;
        e->result = zm_link_recv_batch(e->link, rx, BIG_CAP, &b);
        if (e->result != Z_OK) {
            break;
        }
        if (b.len > 0) {
            memcpy(tx + ZM_LINK_HEADROOM, b.ptr, b.len);
        }
        e->result = send_batch(e->link, tx + ZM_LINK_HEADROOM, b.len);
        if (e->result != Z_OK) {
            break;
        }
        e->echoed++;
    }
    free(rx);
    free(tx);
    return NULL;
}

/* Client -> server -> client for each size, then a burst of small batches sent back to back
 * (which the receivers get several per read), all compared byte for byte. */
static void test_tcp_exchange(tcp_pair_t *t, const char *tag)
{
    echo_t echo = {&t->server, Z_OK, 0};
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, echo_main, &echo), Z_OK);

    uint8_t *rx = malloc(BIG_CAP);
    uint8_t *tx = malloc(BIG_CAP + ZM_LINK_HEADROOM);
    CHECK(rx != NULL && tx != NULL);
    unsigned sent = 0;
    static const size_t sizes[] = {0, 1, 100, 65533};
    for (size_t k = 0; rx && tx && k < ZM_ARRAY_LEN(sizes); k++) {
        for (size_t i = 0; i < sizes[k]; i++) {
            tx[ZM_LINK_HEADROOM + i] = pattern(k, i);
        }
        CHECK_EQ_INT(send_batch(&t->client, tx + ZM_LINK_HEADROOM, sizes[k]), Z_OK);
        sent++;
        zm_slice_t s;
        z_result_t r = zm_link_recv_batch(&t->client, rx, BIG_CAP, &s);
        CHECK_CTX(r == Z_OK && batch_ok(s, k, sizes[k]), "%s: size %zu: %s (got %zu bytes)", tag,
                  sizes[k], zm_strerror(r), r == Z_OK ? s.len : 0);
    }
    /* Answers that come later than the echo task's poll for them (it wrote, so it polls before
     * it sleeps): every one still arrives, through the sleeping read. */
    for (size_t k = 0; rx && tx && k < 6; k++) {
        zm_port_sleep_ms(2);
        tx[ZM_LINK_HEADROOM] = pattern(k + 50, 0);
        CHECK_EQ_INT(send_batch(&t->client, tx + ZM_LINK_HEADROOM, 1), Z_OK);
        sent++;
        zm_slice_t s;
        z_result_t r = zm_link_recv_batch(&t->client, rx, BIG_CAP, &s);
        CHECK_CTX(r == Z_OK && batch_ok(s, k + 50, 1), "%s: late %zu: %s", tag, k, zm_strerror(r));
    }
    enum { BURST = 64 };
    for (size_t k = 0; rx && tx && k < BURST; k++) {
        size_t n = (k * 13u) % 40u;
        for (size_t i = 0; i < n; i++) {
            tx[ZM_LINK_HEADROOM + i] = pattern(k + 100, i);
        }
        CHECK_EQ_INT(send_batch(&t->client, tx + ZM_LINK_HEADROOM, n), Z_OK);
        sent++;
    }
    for (size_t k = 0; rx && tx && k < BURST; k++) {
        zm_slice_t s;
        z_result_t r = zm_link_recv_batch(&t->client, rx, BIG_CAP, &s);
        CHECK_CTX(r == Z_OK && batch_ok(s, k + 100, (k * 13u) % 40u), "%s: burst %zu: %s", tag, k,
                  zm_strerror(r));
    }

    /* Shutting the server link down ends the echo task's blocking receive. */
    zm_link_shutdown(&t->server);
    zm_port_task_join(&task);
    CHECK_EQ_INT(echo.result, ZM_E_CLOSED);
    CHECK_EQ_INT(echo.echoed, sent);
    free(rx);
    free(tx);
}

/* A reader blocked in recv_batch, and what it saw; guarded by m. */
typedef struct {
    zm_mutex_t m;
    zm_condvar_t c;
    zm_link_t *link;
    int started;
    int done;
    z_result_t result;
} blocked_t;

static void *blocked_main(void *arg)
{
    blocked_t *b = (blocked_t *)arg;
    uint8_t buf[256];
    zm_port_mutex_lock(&b->m);
    b->started = 1;
    zm_port_condvar_broadcast(&b->c);
    zm_port_mutex_unlock(&b->m);
    zm_slice_t s;
    z_result_t r = zm_link_recv_batch(b->link, buf, sizeof(buf), &s);
    zm_port_mutex_lock(&b->m);
    b->done = 1;
    b->result = r;
    zm_port_condvar_broadcast(&b->c);
    zm_port_mutex_unlock(&b->m);
    return NULL;
}

/* Waits, with the mutex held, until *flag is set or the deadline passes. */
static int wait_flag(blocked_t *b, const int *flag, uint64_t deadline)
{
    while (!*flag && zm_port_condvar_wait_until(&b->c, &b->m, deadline) != ZM_E_TIMEOUT) {
    }
    return *flag;
}

static void test_tcp_shutdown_wakes_reader(tcp_pair_t *t)
{
    blocked_t b;
    memset(&b, 0, sizeof(b));
    b.link = &t->server;
    CHECK_EQ_INT(zm_port_mutex_init(&b.m), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&b.c), Z_OK);
    /* Half a batch first, so that the reader is inside recv_batch, waiting for the rest. */
    static const uint8_t half[] = {10, 0, 1, 2, 3};
    CHECK_EQ_INT(sock_write(&t->client.sock, half, sizeof(half)), Z_OK);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, blocked_main, &b), Z_OK);

    zm_port_mutex_lock(&b.m);
    CHECK(wait_flag(&b, &b.started, zm_port_clock_ms() + WAIT_MS));
    CHECK(!b.done);
    zm_port_mutex_unlock(&b.m);

    zm_link_shutdown(&t->server);

    zm_port_mutex_lock(&b.m);
    int done = wait_flag(&b, &b.done, zm_port_clock_ms() + WAIT_MS);
    z_result_t r = b.result;
    zm_port_mutex_unlock(&b.m);
    CHECK(done);
    if (!done) {
        zm_link_close(&t->client); /* the peer going away frees the reader, so join returns */
    } else {
        CHECK_EQ_INT(r, ZM_E_CLOSED);
    }
    zm_port_task_join(&task);
    /* A shut-down link refuses to send as well. */
    uint8_t tx[2 + 1] = {0, 0, 'x'};
    CHECK_EQ_INT(send_batch(&t->server, tx + ZM_LINK_HEADROOM, 1), ZM_E_CLOSED);
    zm_port_condvar_destroy(&b.c);
    zm_port_mutex_destroy(&b.m);
}

/* A sender that waits for room for as long as WAIT_MS allows: only a shutdown frees it early. */
static void *stuck_writer_main(void *arg)
{
    blocked_t *b = (blocked_t *)arg;
    uint8_t tx[2 + 100] = {0};
    zm_port_mutex_lock(&b->m);
    b->started = 1;
    zm_port_condvar_broadcast(&b->c);
    zm_port_mutex_unlock(&b->m);
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    z_result_t r = zm_link_send_batch(b->link, tx + ZM_LINK_HEADROOM, 100, deadline, deadline);
    zm_port_mutex_lock(&b->m);
    b->done = 1;
    b->result = r;
    zm_port_condvar_broadcast(&b->c);
    zm_port_mutex_unlock(&b->m);
    return NULL;
}

/* Writes to a server that never reads until not a byte more goes in 250 ms (past the delayed
 * acknowledgements that still free room after the window closed); returns how many went. */
static size_t fill_pipe(tcp_pair_t *t)
{
    static uint8_t junk[65536];
    size_t total = 0;
    for (int i = 0; i < 10000; i++) {
        size_t w = 0;
        z_result_t r = zm_port_socket_write(&t->client.sock, junk, sizeof(junk), zm_port_clock_ms() + 250u, &w);
        total += w;
        if (r != Z_OK) {
            CHECK_EQ_INT(r, ZM_E_TIMEOUT);
            if (w == 0) {
                return total;
            }
        }
    }
    CHECK_CTX(false, "the pipe never filled (%zu bytes written)", total);
    return total;
}

/* Reads n bytes on the server, each wait bounded. */
static void drain(tcp_pair_t *t, size_t n)
{
    static uint8_t sink[65536];
    while (n > 0) {
        size_t got = 0;
        z_result_t r = zm_port_socket_wait_readable(&t->server.sock, WAIT_MS);
        if (r == Z_OK) {
            r = zm_port_socket_read(&t->server.sock, sink, n < sizeof(sink) ? n : sizeof(sink), &got);
        }
        CHECK_EQ_INT(r, Z_OK);
        if (r != Z_OK) {
            return;
        }
        n -= got;
    }
}

/* A peer that stops reading: sends stop at their deadlines instead of blocking, leave the link
 * usable when nothing went, flow again once the peer reads, and a shutdown frees a waiting one. */
static void test_tcp_peer_not_reading(tcp_pair_t *t)
{
    uint8_t tx[2 + 100] = {0};
    size_t filled = fill_pipe(t);
    CHECK(filled > 0);

    /* A past deadline tries once; a near one waits for it; neither writes a byte. */
    size_t w = 1;
    CHECK_EQ_INT(zm_port_socket_write(&t->client.sock, tx, sizeof(tx), 0, &w), ZM_E_TIMEOUT);
    CHECK_EQ_INT(w, 0);
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_link_send_batch(&t->client, tx + ZM_LINK_HEADROOM, 100, t0, t0 + WAIT_MS), ZM_E_AGAIN);
    CHECK(zm_port_clock_ms() - t0 < WAIT_MS / 2); /* the end deadline was never waited for */
    t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_link_send_batch(&t->client, tx + ZM_LINK_HEADROOM, 100, t0 + 30, t0 + 30), ZM_E_AGAIN);
    CHECK(zm_port_clock_ms() - t0 < WAIT_MS / 2);

    /* The peer reads everything: the link was left intact, batches flow again. */
    drain(t, filled);
    t0 = zm_port_clock_ms();
    CHECK_EQ_INT(zm_link_send_batch(&t->client, tx + ZM_LINK_HEADROOM, 100, t0 + WAIT_MS, t0 + WAIT_MS), Z_OK);
    zm_slice_t s;
    uint8_t *rx = malloc(BIG_CAP);
    CHECK(rx != NULL);
    if (rx != NULL) {
        CHECK_EQ_INT(zm_link_recv_batch(&t->server, rx, BIG_CAP, &s), Z_OK);
        CHECK_EQ_INT(s.len, 100);
        free(rx);
    }

    /* Stuck again, a sender waits for room; the link's shutdown makes it return at once. */
    (void)fill_pipe(t);
    blocked_t b;
    memset(&b, 0, sizeof(b));
    b.link = &t->client;
    CHECK_EQ_INT(zm_port_mutex_init(&b.m), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&b.c), Z_OK);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, stuck_writer_main, &b), Z_OK);
    zm_port_mutex_lock(&b.m);
    CHECK(wait_flag(&b, &b.started, zm_port_clock_ms() + WAIT_MS));
    zm_port_mutex_unlock(&b.m);
    zm_link_shutdown(&t->client);
    zm_port_mutex_lock(&b.m);
    CHECK(wait_flag(&b, &b.done, zm_port_clock_ms() + WAIT_MS / 2));
    z_result_t r = b.result;
    zm_port_mutex_unlock(&b.m);
    zm_port_task_join(&task);
    CHECK_EQ_INT(r, ZM_E_CLOSED);
    zm_port_condvar_destroy(&b.c);
    zm_port_mutex_destroy(&b.m);
}

#endif /* Z_FEATURE_MULTI_THREAD */

static void test_tcp_peer_closed(tcp_pair_t *t)
{
    uint8_t buf[256];
    zm_slice_t s;
    uint8_t tx[2 + 3] = {0, 0, 'a', 'b', 'c'};

    CHECK_EQ_INT(zm_link_wait_readable(&t->server, 1), ZM_E_TIMEOUT);
    CHECK_EQ_INT(send_batch(&t->client, tx + ZM_LINK_HEADROOM, 3), Z_OK);
    CHECK_EQ_INT(zm_link_wait_readable(&t->server, WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_link_recv_batch(&t->server, buf, sizeof(buf), &s), Z_OK);
    CHECK_EQ_MEM(s.ptr, s.len, "abc", 3);

    /* A prefix announcing more than the buffer holds is refused. */
    static const uint8_t big[] = {0x00, 0x01}; /* 256 + 2 > sizeof(buf) */
    CHECK_EQ_INT(sock_write(&t->client.sock, big, sizeof(big)), Z_OK);
    CHECK_EQ_INT(zm_link_recv_batch(&t->server, buf, sizeof(buf), &s), ZM_E_FIELD);

    /* A batch, then a cut one, then the peer leaves: the whole batch still arrives. */
    zm_link_t *rx = &t->client;
    CHECK_EQ_INT(send_batch(&t->server, tx + ZM_LINK_HEADROOM, 3), Z_OK);
    static const uint8_t cut[] = {9, 0, 'x'};
    CHECK_EQ_INT(sock_write(&t->server.sock, cut, sizeof(cut)), Z_OK);
    zm_link_close(&t->server);
    CHECK_EQ_INT(zm_link_recv_batch(rx, buf, sizeof(buf), &s), Z_OK);
    CHECK_EQ_MEM(s.ptr, s.len, "abc", 3);
    CHECK_EQ_INT(zm_link_recv_batch(rx, buf, sizeof(buf), &s), ZM_E_CLOSED);
    CHECK_EQ_INT(zm_link_wait_readable(rx, WAIT_MS), Z_OK); /* end of stream counts */
}

static void test_tcp_listener(void)
{
    zm_endpoint_t ep;
    zm_link_t listener, link;
    uint16_t port = 0;

    /* Nobody connects: the accept times out (the code decides, not the clock). */
    CHECK_EQ_INT(parse(&ep, "tcp/127.0.0.1:0", ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(&listener, &ep), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &link, 1), ZM_E_TIMEOUT);
    /* A second listener on the same port is told why it cannot have it. */
    CHECK_EQ_INT(zm_link_local_port(&listener, &port), Z_OK);
    char taken[64];
    snprintf(taken, sizeof(taken), "tcp/127.0.0.1:%u", (unsigned)port);
    CHECK_EQ_INT(parse(&ep, taken, ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(&link, &ep), ZM_E_ADDR_IN_USE);
    /* A listener that was shut down refuses at once, whatever the timeout. */
    zm_link_shutdown(&listener);
    CHECK_EQ_INT(zm_link_accept(&listener, &link, WAIT_MS), ZM_E_CLOSED);
    CHECK_EQ_INT(zm_link_local_port(&listener, &port), Z_OK);
    zm_link_close(&listener);

    /* Connecting to a port nobody listens on any more is refused, not timed out. */
    char text[64];
    snprintf(text, sizeof(text), "tcp/127.0.0.1:%u", (unsigned)port);
    CHECK_EQ_INT(parse(&ep, text, ZM_ENDPOINT_CONNECT), Z_OK);
    z_result_t r = zm_link_open(&link, &ep, WAIT_MS);
    CHECK_CTX(r == ZM_E_REFUSED, "connect %s: %s", text, zm_strerror(r));

    /* localhost may resolve to ::1 first: the connect moves on to 127.0.0.1. */
    CHECK_EQ_INT(parse(&ep, "tcp/127.0.0.1:0", ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(&listener, &ep), Z_OK);
    CHECK_EQ_INT(zm_link_local_port(&listener, &port), Z_OK);
    snprintf(text, sizeof(text), "tcp/localhost:%u", (unsigned)port);
    CHECK_EQ_INT(parse(&ep, text, ZM_ENDPOINT_CONNECT), Z_OK);
    r = zm_link_open(&link, &ep, WAIT_MS);
    CHECK_CTX(r == Z_OK, "connect %s: %s", text, zm_strerror(r));
    zm_link_t server;
    if (r == Z_OK) {
        CHECK_EQ_INT(zm_link_accept(&listener, &server, WAIT_MS), Z_OK);
        zm_link_close(&server);
        zm_link_close(&link);
    }
    zm_link_close(&listener);

    /* Recognised protocols without an implementation say so; TLS without credentials too. */
    CHECK_EQ_INT(parse(&ep, "tls/127.0.0.1:7447", ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_link_open(&link, &ep, WAIT_MS), Z_FEATURE_LINK_TLS ? ZM_E_TLS_CONFIG : ZM_E_UNSUPPORTED);
    CHECK_EQ_INT(zm_link_listen(&link, &ep), Z_FEATURE_LINK_TLS ? ZM_E_TLS_CONFIG : ZM_E_UNSUPPORTED);
    /* A serial device that does not exist is a clear error, not a wait. */
    CHECK_EQ_INT(parse(&ep, "serial//dev/zmote-no-such-tty#baudrate=115200", ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_link_open(&link, &ep, WAIT_MS), Z_ENETWORK);
    CHECK_EQ_INT(zm_link_listen(&link, &ep), Z_ENETWORK);
}

static void test_tcp(const char *listen_text)
{
    tcp_pair_t t;
    if (!tcp_pair_open(&t, listen_text)) {
        return;
    }
#if Z_FEATURE_MULTI_THREAD
    test_tcp_exchange(&t, listen_text);
    tcp_pair_close(&t);
    if (!tcp_pair_open(&t, listen_text)) {
        return;
    }
    test_tcp_shutdown_wakes_reader(&t);
    tcp_pair_close(&t);
    if (!tcp_pair_open(&t, listen_text)) {
        return;
    }
    test_tcp_peer_not_reading(&t);
    tcp_pair_close(&t);
    if (!tcp_pair_open(&t, listen_text)) {
        return;
    }
#endif
    test_tcp_peer_closed(&t);
    tcp_pair_close(&t);
}

int main(void)
{
    test_endpoint_table();
    test_endpoint_details();
    test_reader_chunkings();
    test_reader_errors();
    test_reader_wait_and_send();
    test_send_deadlines();
    test_port_basics();
    test_tcp_listener();
    test_tcp("tcp/127.0.0.1:0");
    test_tcp("tcp/[::1]:0");
    return CHECK_DONE();
}
