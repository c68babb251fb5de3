/*
 * The non-blocking acceptor over loopback TCP: a real opener gets through a crowd of idle and
 * half-sent connections, a peer that sends byte by byte still finishes, malformed and late
 * handshakes are refused with the right CLOSE on the wire, and what an opener sends right behind
 * its OpenSyn reaches the transport intact. Below them, the link's non-blocking receive,
 * rebuffering and the wait over many links. Every wait is bounded; none is a sleep.
 */

#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"
#include "transport/transport.h"
#include "util/alloc.h"

#define WAIT_MS 3000u

static zm_transport_params_t params(uint8_t id)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 2;
    p.zid.id[0] = id;
    p.zid.id[1] = 0xa5;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = ZM_BATCH_UNICAST_SIZE;
    p.lease_ms = 10000;
    p.qos = true;
    return p;
}

static uint16_t listen_any(zm_link_t *listener)
{
    zm_endpoint_t ep;
    const char *s = "tcp/127.0.0.1:0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, s, strlen(s), ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(listener, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(listener, &port), Z_OK);
    return port;
}

static z_result_t connect_to(zm_link_t *c, uint16_t port)
{
    char s[64];
    snprintf(s, sizeof(s), "tcp/127.0.0.1:%u", port);
    zm_endpoint_t ep;
    CHECK_EQ_INT(zm_endpoint_parse(&ep, s, strlen(s), ZM_ENDPOINT_CONNECT), Z_OK);
    return zm_link_open(c, &ep, WAIT_MS);
}

/* A client that speaks the handshake by hand, with its own receive buffer. */
typedef struct {
    zm_link_t link;
    uint8_t rx[2048];
} raw_t;

/* Encodes m as one stream batch (prefix included) into out; returns its length. */
static size_t encode_batch(const zm_transport_msg_t *m, uint8_t *out, size_t cap)
{
    zm_writer_t w;
    zm_writer_init(&w, out + 2, cap - 2);
    CHECK_EQ_INT(zm_transport_encode(&w, m), Z_OK);
    out[0] = (uint8_t)(w.len & 0xffu);
    out[1] = (uint8_t)(w.len >> 8);
    return w.len + 2;
}

static void raw_write(raw_t *c, const uint8_t *b, size_t n)
{
    size_t written = 0;
    CHECK_EQ_INT(zm_port_socket_write(&c->link.sock, b, n, zm_port_clock_ms() + 2000u, &written), Z_OK);
}

static void raw_send(raw_t *c, const zm_transport_msg_t *m)
{
    uint8_t b[600];
    raw_write(c, b, encode_batch(m, b, sizeof(b)));
}

/* Receives and decodes the next message, waiting at most WAIT_MS. */
static z_result_t raw_recv(raw_t *c, zm_transport_msg_t *m)
{
    zm_link_set_deadline(&c->link, zm_port_clock_ms() + WAIT_MS);
    zm_slice_t b;
    ZM_TRY(zm_link_recv_batch(&c->link, c->rx, sizeof(c->rx), &b));
    zm_reader_t r;
    zm_reader_init(&r, b.ptr, b.len);
    return zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, m);
}

/* The peer must have sent CLOSE(reason) (any reason if reason is 0xff), then closed. */
static void expect_close(raw_t *c, uint8_t reason, const char *what)
{
    zm_transport_msg_t m;
    z_result_t rc = raw_recv(c, &m);
    CHECK_CTX(rc == Z_OK && m.id == ZM_MID_CLOSE, "%s: %s, id %u", what, zm_strerror(rc), rc == Z_OK ? m.id : 0);
    if (rc == Z_OK && m.id == ZM_MID_CLOSE && reason != 0xffu) {
        CHECK_CTX(m.body.close.reason == reason, "%s: reason %u, want %u", what, m.body.close.reason, reason);
    }
    rc = raw_recv(c, &m);
    CHECK_CTX(rc == ZM_E_CLOSED, "%s: then %s", what, zm_strerror(rc));
}

static void init_syn(zm_transport_msg_t *m, uint8_t id)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_INIT;
    m->body.init.version = ZM_PROTO_VERSION;
    m->body.init.whatami = ZM_WAI_PEER;
    m->body.init.zid.len = 2;
    m->body.init.zid.id[0] = id;
    m->body.init.zid.id[1] = 0x3c;
    m->body.init.exts = ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH;
    m->body.init.patch = 1;
}

static void open_syn(zm_transport_msg_t *m, zm_slice_t cookie, uint32_t initial_sn)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_OPEN;
    m->body.open.lease_secs = true;
    m->body.open.lease = 10;
    m->body.open.initial_sn = initial_sn;
    m->body.open.cookie = cookie;
}

/* Steps the acceptor until nothing is pending any more (or WAIT_MS passed); false on timeout. */
static bool step_until_idle(zm_acceptor_t *a, zm_link_t *listener, const zm_transport_params_t *p)
{
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    bool accepted = false;
    while (zm_port_clock_ms() < end) {
        zm_transport_t t;
        z_result_t rc = zm_acceptor_step(a, listener, p, 100, &t);
        CHECK(rc != Z_OK);
        if (rc == Z_OK) {
            zm_transport_close(&t, ZM_CLOSE_GENERIC);
            zm_transport_free(&t);
        }
        zm_link_t *links[ZM_ACCEPT_PENDING_MAX];
        uint64_t deadline;
        size_t n = zm_acceptor_links(a, links, ZM_ARRAY_LEN(links), &deadline);
        accepted = accepted || n > 0 || rc == ZM_E_AGAIN;
        if (accepted && n == 0) {
            return true;
        }
    }
    return false;
}

/* Steps the acceptor (no handshake may finish) until the client has an answer to read. */
static bool step_until_answered(zm_acceptor_t *a, zm_link_t *listener, const zm_transport_params_t *p, raw_t *c)
{
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    while (zm_port_clock_ms() < end) {
        zm_transport_t t;
        CHECK(zm_acceptor_step(a, listener, p, 100, &t) != Z_OK);
        if (zm_port_socket_wait_readable(&c->link.sock, 0) == Z_OK) {
            return true;
        }
    }
    return false;
}

/* Steps until a handshake finishes; the result of the last step. */
static z_result_t step_until_done(zm_acceptor_t *a, zm_link_t *listener, const zm_transport_params_t *p,
                                  zm_transport_t *out)
{
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    z_result_t rc = ZM_E_TIMEOUT;
    while (zm_port_clock_ms() < end) {
        rc = zm_acceptor_step(a, listener, p, 100, out);
        if (rc != ZM_E_AGAIN && rc != ZM_E_TIMEOUT) {
            break;
        }
    }
    return rc;
}

/* ---- received messages --------------------------------------------------------------------- */

typedef struct {
    unsigned count;
    size_t sizes[8];
    bool bad;
} rx_log_t;

static uint8_t pattern(size_t size, size_t i) { return (uint8_t)(i * 13u + size); }

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    ZM_UNUSED(t);
    ZM_UNUSED(reliable);
    rx_log_t *log = ctx;
    if (m->id != ZM_MID_N_PUSH || m->body.push.body_id != ZM_MID_PUT) {
        log->bad = true;
        return;
    }
    zm_slice_t p = m->body.push.body.put.payload;
    for (size_t i = 0; i < p.len; i++) {
        if (p.ptr[i] != pattern(p.len, i)) {
            log->bad = true;
        }
    }
    if (log->count < ZM_ARRAY_LEN(log->sizes)) {
        log->sizes[log->count] = p.len;
    }
    log->count++;
}

static uint8_t payload[4096];

static void put_msg(zm_network_msg_t *m, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        payload[i] = pattern(size, i);
    }
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_PUSH;
    m->body.push.wire_expr.has_suffix = true;
    m->body.push.wire_expr.suffix = zm_slice("test/accept", 11);
    m->body.push.body_id = ZM_MID_PUT;
    m->body.push.body.put.payload = zm_slice(payload, size);
}

/* One FRAME batch (prefix included) with one PUT of size bytes, at sn. */
static size_t frame_batch(uint8_t *out, size_t cap, uint32_t sn, size_t size)
{
    zm_writer_t w;
    zm_writer_init(&w, out + 2, cap - 2);
    zm_transport_msg_t f;
    memset(&f, 0, sizeof(f));
    f.id = ZM_MID_FRAME;
    f.body.frame.reliable = true;
    f.body.frame.sn = sn;
    CHECK_EQ_INT(zm_transport_encode(&w, &f), Z_OK);
    zm_network_msg_t m;
    put_msg(&m, size);
    CHECK_EQ_INT(zm_network_encode(&w, &m), Z_OK);
    out[0] = (uint8_t)(w.len & 0xffu);
    out[1] = (uint8_t)(w.len >> 8);
    return w.len + 2;
}

/* ---- a real opener through a crowd --------------------------------------------------------- */

typedef struct {
    zm_acceptor_t acc;
    zm_link_t *listener;
    zm_transport_params_t p;
    zm_transport_t t;
    z_result_t rc;
} server_t;

static void *server_main(void *arg)
{
    server_t *s = arg;
    uint64_t end = zm_port_clock_ms() + 10000u;
    do {
        s->rc = zm_acceptor_step(&s->acc, s->listener, &s->p, 50, &s->t);
    } while ((s->rc == ZM_E_AGAIN || s->rc == ZM_E_TIMEOUT) && zm_port_clock_ms() < end);
    return NULL;
}

#define IDLE_CONNECTIONS 50
#define HALF_INITS 5

static void test_opener_through_crowd(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    static server_t s;
    memset(&s, 0, sizeof(s));
    zm_acceptor_init(&s.acc, ZM_ACCEPT_TIMEOUT_MS);
    s.listener = &listener;
    s.p = params(1);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, server_main, &s), Z_OK);

    static raw_t idle[IDLE_CONNECTIONS];
    static raw_t half[HALF_INITS];
    for (size_t i = 0; i < IDLE_CONNECTIONS; i++) {
        CHECK_EQ_INT(connect_to(&idle[i].link, port), Z_OK);
        /* Every 8 connections, until the server evicted the one 4 back (it took this one then):
         * a full accept queue would drop SYNs, and the kernel's retry takes a second. */
        if (i % 8 == 7 && i >= ZM_ACCEPT_PENDING_MAX) {
            CHECK_EQ_INT(zm_port_socket_wait_readable(&idle[i - ZM_ACCEPT_PENDING_MAX].link.sock, WAIT_MS), Z_OK);
        }
    }
    for (size_t i = 0; i < HALF_INITS; i++) {
        CHECK_EQ_INT(connect_to(&half[i].link, port), Z_OK);
        zm_transport_msg_t m;
        init_syn(&m, (uint8_t)(0x40 + i));
        uint8_t b[128];
        size_t n = encode_batch(&m, b, sizeof(b));
        raw_write(&half[i], b, n / 2);
    }

    /* the real opener, blocking, while the server thread serves everyone */
    uint64_t t0 = zm_port_clock_ms();
    zm_link_t link;
    CHECK_EQ_INT(connect_to(&link, port), Z_OK);
    zm_transport_params_t pb = params(2);
    zm_transport_t tb;
    z_result_t rc = zm_transport_open(&tb, &link, &pb, ZM_ACCEPT_TIMEOUT_MS * 2u);
    zm_port_task_join(&task);
    uint64_t elapsed = zm_port_clock_ms() - t0;
    CHECK_EQ_INT(rc, Z_OK);
    CHECK_EQ_INT(s.rc, Z_OK);
    CHECK_CTX(elapsed < 1000u, "the opener took %u ms", (unsigned)elapsed);
    if (rc != Z_OK || s.rc != Z_OK) {
        if (rc == Z_OK) {
            zm_transport_free(&tb);
        } else {
            zm_link_close(&link);
        }
        zm_acceptor_close(&s.acc);
        zm_link_close(&listener);
        return;
    }
    CHECK_EQ_INT(s.t.remote_zid.id[0], 2);
    CHECK_EQ_INT(tb.remote_zid.id[0], 1);

    /* the transport works */
    rx_log_t log;
    memset(&log, 0, sizeof(log));
    s.t.on_message = on_message;
    s.t.ctx = &log;
    zm_network_msg_t m;
    put_msg(&m, 100);
    CHECK_EQ_INT(zm_transport_send(&tb, &m, true, ZM_PRIO_DATA, true), Z_OK);
    CHECK_EQ_INT(zm_transport_read_once(&s.t), Z_OK);
    CHECK_EQ_INT(log.count, 1);
    CHECK(!log.bad);

    /* every idle connection was evicted by those after it; the half-sent ones that are still
     * pending go now */
    zm_acceptor_close(&s.acc);
    for (size_t i = 0; i < IDLE_CONNECTIONS; i++) {
        expect_close(&idle[i], ZM_CLOSE_MAX_LINKS, "idle");
        zm_link_close(&idle[i].link);
    }
    for (size_t i = 0; i < HALF_INITS; i++) {
        expect_close(&half[i], 0xffu, "half INIT");
        zm_link_close(&half[i].link);
    }
    zm_transport_close(&tb, ZM_CLOSE_GENERIC);
    zm_transport_close(&s.t, ZM_CLOSE_GENERIC);
    zm_transport_free(&tb);
    zm_transport_free(&s.t);
    zm_link_close(&listener);
}

/* ---- a slow opener, and bytes right behind the OpenSyn ------------------------------------- */

/* Sends bytes one at a time, stepping the acceptor after each; every step must leave it
 * pending. */
static void trickle(raw_t *c, const uint8_t *b, size_t n, zm_acceptor_t *a, zm_link_t *listener,
                    const zm_transport_params_t *p)
{
    for (size_t i = 0; i + 1 < n; i++) {
        raw_write(c, b + i, 1);
        zm_transport_t t;
        z_result_t rc = zm_acceptor_step(a, listener, p, 100, &t);
        CHECK_CTX(rc == ZM_E_AGAIN || rc == ZM_E_TIMEOUT, "byte %zu: %s", i, zm_strerror(rc));
    }
    raw_write(c, b + n - 1, 1);
}

static void test_slow_opener(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    zm_transport_params_t p = params(1);
    raw_t c;
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);

    zm_transport_msg_t m;
    init_syn(&m, 7);
    uint8_t b[128];
    size_t n = encode_batch(&m, b, sizeof(b));
    trickle(&c, b, n, &a, &listener, &p);
    CHECK(step_until_answered(&a, &listener, &p, &c)); /* InitAck sent, waiting */
    zm_transport_t t;
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    CHECK(m.id == ZM_MID_INIT && m.body.init.ack);
    uint8_t cookie[64];
    size_t cookie_len = m.body.init.cookie.len;
    CHECK(cookie_len <= sizeof(cookie));
    memcpy(cookie, m.body.init.cookie.ptr, cookie_len);

    open_syn(&m, zm_slice(cookie, cookie_len), 77);
    n = encode_batch(&m, b, sizeof(b));
    trickle(&c, b, n, &a, &listener, &p);
    CHECK_EQ_INT(step_until_done(&a, &listener, &p, &t), Z_OK);
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    CHECK(m.id == ZM_MID_OPEN && m.body.open.ack);
    CHECK_EQ_INT(t.remote_zid.id[0], 7);
    CHECK_EQ_INT(t.remote_lease_ms, 10000);
    CHECK(t.qos);
    CHECK_EQ_INT(t.patch, 1);
    CHECK_EQ_INT(t.rx_sn[ZM_CHANNEL(true, ZM_PRIO_DATA)], 76);
    zm_transport_close(&t, ZM_CLOSE_GENERIC);
    zm_transport_free(&t);
    zm_link_close(&c.link);
    zm_acceptor_close(&a);
    zm_link_close(&listener);
}

static void test_bytes_after_open_syn(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    zm_transport_params_t p = params(1);
    raw_t c;
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);

    zm_transport_msg_t m;
    init_syn(&m, 9);
    raw_send(&c, &m);
    CHECK(step_until_answered(&a, &listener, &p, &c));
    zm_transport_t t;
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    uint8_t cookie[64];
    size_t cookie_len = m.body.init.cookie.len;
    memcpy(cookie, m.body.init.cookie.ptr, cookie_len);

    /* OpenSyn and three FRAMEs in one write: the first two fit in the handshake's buffer with
     * it, the third is larger than that buffer and is cut across it and the socket */
    static const size_t sizes[] = {10, 200, ZM_HANDSHAKE_BUF_SIZE + 500};
    static uint8_t stream[ZM_HANDSHAKE_BUF_SIZE + 2048];
    open_syn(&m, zm_slice(cookie, cookie_len), 1000);
    size_t len = encode_batch(&m, stream, sizeof(stream));
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        len += frame_batch(stream + len, sizeof(stream) - len, 1000u + (uint32_t)i, sizes[i]);
    }
    raw_write(&c, stream, len);
    CHECK_EQ_INT(step_until_done(&a, &listener, &p, &t), Z_OK);
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    CHECK(m.id == ZM_MID_OPEN && m.body.open.ack);

    rx_log_t log;
    memset(&log, 0, sizeof(log));
    t.on_message = on_message;
    t.ctx = &log;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(zm_transport_read_once(&t), Z_OK);
    }
    CHECK_EQ_INT(log.count, 3);
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(log.sizes[i], sizes[i]);
    }
    CHECK(!log.bad);
    zm_transport_close(&t, ZM_CLOSE_GENERIC);
    zm_transport_free(&t);
    zm_link_close(&c.link);
    zm_link_close(&listener);
}

typedef struct {
    zm_link_t *link;
    zm_transport_params_t p;
    zm_transport_t t;
    z_result_t rc;
} opener_t;

static void *opener_main(void *arg)
{
    opener_t *o = arg;
    o->rc = zm_transport_open(&o->t, o->link, &o->p, WAIT_MS);
    return NULL;
}

/* The mirror of the above for a real opener, whose acks are received into the handshake's buffer:
 * what the acceptor sends right behind its OpenAck reaches the transport intact, though it is
 * more than one batch as small as the InitAck agrees, and the transport's buffer is no larger
 * than what it holds. */
static void test_bytes_after_open_ack(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_link_t link;
    CHECK_EQ_INT(connect_to(&link, port), Z_OK);
    raw_t c;
    CHECK_EQ_INT(zm_link_accept(&listener, &c.link, WAIT_MS), Z_OK);
    static opener_t o;
    o.link = &link;
    o.p = params(2);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, opener_main, &o), Z_OK);

    enum { BATCH = 128 };
    zm_transport_msg_t m;
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    CHECK(m.id == ZM_MID_INIT && !m.body.init.ack);
    CHECK_EQ_INT(m.body.init.batch_size, ZM_BATCH_UNICAST_SIZE);
    init_syn(&m, 7);
    m.body.init.ack = true;
    m.body.init.has_size = true;
    m.body.init.resolution = ZM_RESOLUTION_DEFAULT;
    m.body.init.batch_size = BATCH;
    m.body.init.cookie = zm_slice("cookie", 6);
    raw_send(&c, &m);
    CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
    CHECK(m.id == ZM_MID_OPEN && !m.body.open.ack);

    static const size_t sizes[] = {90, 90, 90, 90};
    uint8_t stream[ZM_HANDSHAKE_BUF_SIZE];
    open_syn(&m, zm_slice(NULL, 0), 1000);
    m.body.open.ack = true;
    size_t len = encode_batch(&m, stream, sizeof(stream));
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        size_t n = frame_batch(stream + len, sizeof(stream) - len, 1000u + (uint32_t)i, sizes[i]);
        CHECK(n <= BATCH);
        len += n;
    }
    raw_write(&c, stream, len);
    zm_port_task_join(&task);
    CHECK_EQ_INT(o.rc, Z_OK);
    if (o.rc != Z_OK) {
        zm_link_close(&link);
        zm_link_close(&c.link);
        zm_link_close(&listener);
        return;
    }
    CHECK_EQ_INT(o.t.batch_size, BATCH);
#if ZM_RX_AGREED
    CHECK(o.t.rx_cap >= BATCH + ZM_LINK_HEADROOM && o.t.rx_cap <= ZM_HANDSHAKE_BUF_SIZE);
#endif

    rx_log_t log;
    memset(&log, 0, sizeof(log));
    o.t.on_message = on_message;
    o.t.ctx = &log;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(zm_transport_read_once(&o.t), Z_OK);
    }
    CHECK_EQ_INT(log.count, ZM_ARRAY_LEN(sizes));
    CHECK(!log.bad);
    /* and a FRAME as large as the batch agreed, sent on its own */
    len = frame_batch(stream, BATCH, 1004u, 0);
    size_t fill = BATCH - len;
    len = frame_batch(stream, sizeof(stream), 1004u, fill);
    CHECK_EQ_INT(len, BATCH);
    raw_write(&c, stream, len);
    CHECK_EQ_INT(zm_transport_read_once(&o.t), Z_OK);
    CHECK_EQ_INT(log.count, ZM_ARRAY_LEN(sizes) + 1);
    CHECK_EQ_INT(log.sizes[ZM_ARRAY_LEN(sizes)], fill);
    CHECK(!log.bad);
    zm_transport_close(&o.t, ZM_CLOSE_GENERIC);
    zm_transport_free(&o.t);
    zm_link_close(&c.link);
    zm_link_close(&listener);
}

/* Two openers finish in the same round: one call returns each. */
static void test_two_finish_together(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    zm_transport_params_t p = params(1);
    raw_t c[2];
    uint8_t cookie[2][64];
    size_t cookie_len[2];
    zm_transport_msg_t m;
    for (size_t i = 0; i < 2; i++) {
        CHECK_EQ_INT(connect_to(&c[i].link, port), Z_OK);
        init_syn(&m, (uint8_t)(20 + i));
        raw_send(&c[i], &m);
    }
    zm_transport_t t[2];
    for (size_t i = 0; i < 2; i++) {
        /* both InitSyns are answered, in one round or two */
        zm_transport_msg_t ack;
        z_result_t rc;
        uint64_t end = zm_port_clock_ms() + WAIT_MS;
        do {
            rc = zm_acceptor_step(&a, &listener, &p, 100, &t[0]);
            CHECK(rc != Z_OK);
        } while (zm_port_socket_wait_readable(&c[i].link.sock, 0) != Z_OK && zm_port_clock_ms() < end);
        CHECK_EQ_INT(raw_recv(&c[i], &ack), Z_OK);
        cookie_len[i] = ack.body.init.cookie.len;
        memcpy(cookie[i], ack.body.init.cookie.ptr, cookie_len[i]);
    }
    for (size_t i = 0; i < 2; i++) {
        open_syn(&m, zm_slice(cookie[i], cookie_len[i]), 5);
        raw_send(&c[i], &m);
    }
    /* loopback has both OpenSyns in by now: the round that finishes one has seen the other,
     * which the next call returns without a wait */
    CHECK_EQ_INT(step_until_done(&a, &listener, &p, &t[0]), Z_OK);
    CHECK_EQ_INT(zm_acceptor_step(&a, &listener, &p, 0, &t[1]), Z_OK);
    CHECK(t[0].remote_zid.id[0] != t[1].remote_zid.id[0]);
    for (size_t i = 0; i < 2; i++) {
        zm_transport_close(&t[i], ZM_CLOSE_GENERIC);
        zm_transport_free(&t[i]);
        zm_link_close(&c[i].link);
    }
    zm_link_close(&listener);
}

/* ---- refusals ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    uint8_t bytes[16];
    size_t len;
    uint8_t reason;
} bad_case_t;

static void test_refusals(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    zm_transport_params_t p = params(1);

    static const bad_case_t cases[] = {
        {"unknown message id", {0x01, 0x00, 0x1f}, 3, ZM_CLOSE_INVALID},
        {"truncated INIT", {0x02, 0x00, 0x01, 0x09}, 4, ZM_CLOSE_INVALID},
        {"empty batch", {0x00, 0x00}, 2, ZM_CLOSE_INVALID},
        {"batch beyond the buffer", {0xff, 0x7f, 0x01}, 3, ZM_CLOSE_INVALID},
        {"KEEP_ALIVE first", {0x01, 0x00, 0x04}, 3, ZM_CLOSE_INVALID},
    };
    for (size_t i = 0; i < ZM_ARRAY_LEN(cases); i++) {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        raw_write(&c, cases[i].bytes, cases[i].len);
        CHECK_CTX(step_until_idle(&a, &listener, &p), "%s", cases[i].name);
        expect_close(&c, cases[i].reason, cases[i].name);
        zm_link_close(&c.link);
    }

    /* well-formed messages that are refused */
    for (int k = 0; k < 4; k++) {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        zm_transport_msg_t m;
        init_syn(&m, 30);
        uint8_t reason = ZM_CLOSE_INVALID;
        const char *what = "";
        if (k == 0) {
            m.body.init.version = 8;
            reason = ZM_CLOSE_UNSUPPORTED;
            what = "old version";
        } else if (k == 1) {
            m.body.init.zid = p.zid;
            reason = ZM_CLOSE_CONNECTION_TO_SELF;
            what = "our own zid";
        } else if (k == 2) {
            m.body.init.ack = true;
            m.body.init.cookie = zm_slice("x", 1);
            what = "InitAck to an acceptor";
        } else {
            m.body.init.has_size = true;
            m.body.init.resolution = ZM_RESOLUTION_DEFAULT;
            m.body.init.batch_size = 32;
            what = "batch size below 64";
        }
        raw_send(&c, &m);
        CHECK_CTX(step_until_idle(&a, &listener, &p), "%s", what);
        expect_close(&c, reason, what);
        zm_link_close(&c.link);
    }

    /* a wrong cookie, then an OpenSyn sn beyond the resolution */
    for (int k = 0; k < 2; k++) {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        zm_transport_msg_t m;
        init_syn(&m, 31);
        if (k == 1) {
            /* 8-bit sequence numbers */
            m.body.init.has_size = true;
            m.body.init.resolution = ZM_RESOLUTION_DEFAULT & ~3u;
            m.body.init.batch_size = 4096;
        }
        raw_send(&c, &m);
        CHECK(step_until_answered(&a, &listener, &p, &c));
        CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
        uint8_t cookie[64];
        size_t cookie_len = m.body.init.cookie.len;
        memcpy(cookie, m.body.init.cookie.ptr, cookie_len);
        if (k == 0) {
            cookie[0] ^= 1u;
        }
        open_syn(&m, zm_slice(cookie, cookie_len), k == 0 ? 1u : 256u);
        raw_send(&c, &m);
        CHECK(step_until_idle(&a, &listener, &p));
        expect_close(&c, ZM_CLOSE_INVALID, k == 0 ? "bad cookie" : "sn range");
        zm_link_close(&c.link);
    }

    /* a peer that closes first gets nothing back */
    {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        zm_transport_msg_t m;
        memset(&m, 0, sizeof(m));
        m.id = ZM_MID_CLOSE;
        raw_send(&c, &m);
        CHECK(step_until_idle(&a, &listener, &p));
        CHECK_EQ_INT(raw_recv(&c, &m), ZM_E_CLOSED);
        zm_link_close(&c.link);
    }

    /* the blocking zm_transport_accept refuses the same way, and closes the link */
    {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        raw_write(&c, cases[0].bytes, cases[0].len);
        zm_link_t in;
        CHECK_EQ_INT(zm_link_accept(&listener, &in, WAIT_MS), Z_OK);
        zm_transport_t t;
        CHECK_EQ_INT(zm_transport_accept(&t, &in, &p, WAIT_MS), ZM_E_MSG_UNKNOWN);
        expect_close(&c, ZM_CLOSE_INVALID, "zm_transport_accept");
        zm_link_close(&c.link);
    }
    zm_link_close(&listener);
}

/* ---- memory -------------------------------------------------------------------------------- */

/* Counts allocations and fails the one numbered fail_at (-1: none). Atomic: the crowd test
 * allocates on two threads. */
static atomic_long allocs;
static long fail_at = -1;

static void *counting_alloc(void *ctx, size_t size)
{
    ZM_UNUSED(ctx);
    long n = atomic_fetch_add(&allocs, 1);
    return n == fail_at ? NULL : malloc(size);
}

static void counting_free(void *ctx, void *ptr)
{
    ZM_UNUSED(ctx);
    free(ptr);
}

/* Nothing is allocated before the OpenSyn checks out; then each allocation that fails refuses
 * the peer with CLOSE GENERIC and leaves nothing behind (ASan's leak check sees to that). */
static void test_allocations(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    zm_transport_params_t p = params(1);
    for (long k = 0;; k++) {
        raw_t c;
        CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
        zm_transport_msg_t m;
        init_syn(&m, 50);
        raw_send(&c, &m);
        long before = atomic_load(&allocs);
        CHECK(step_until_answered(&a, &listener, &p, &c));
        CHECK_EQ_INT(atomic_load(&allocs), before);
        CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
        uint8_t cookie[64];
        size_t cookie_len = m.body.init.cookie.len;
        memcpy(cookie, m.body.init.cookie.ptr, cookie_len);
        open_syn(&m, zm_slice(cookie, cookie_len), 3);
        fail_at = atomic_load(&allocs) + k;
        raw_send(&c, &m);
        zm_transport_t t;
        z_result_t rc;
        size_t pending;
        uint64_t end = zm_port_clock_ms() + WAIT_MS;
        do {
            rc = zm_acceptor_step(&a, &listener, &p, 100, &t);
            zm_link_t *links[ZM_ACCEPT_PENDING_MAX];
            uint64_t next;
            pending = zm_acceptor_links(&a, links, ZM_ARRAY_LEN(links), &next);
        } while (rc != Z_OK && pending != 0 && zm_port_clock_ms() < end);
        fail_at = -1;
        if (rc == Z_OK) {
            CHECK(k >= 2); /* the rx and tx buffers */
            CHECK_EQ_INT(raw_recv(&c, &m), Z_OK);
            CHECK(m.id == ZM_MID_OPEN && m.body.open.ack);
            zm_transport_close(&t, ZM_CLOSE_GENERIC);
            zm_transport_free(&t);
            zm_link_close(&c.link);
            break;
        }
        CHECK_EQ_INT(pending, 0); /* refused; the failure is the acceptor's, not the caller's */
        expect_close(&c, ZM_CLOSE_GENERIC, "allocation failed");
        zm_link_close(&c.link);
        if (k > 8) {
            CHECK(false);
            break;
        }
    }
    zm_link_close(&listener);
}

/* ---- deadlines ----------------------------------------------------------------------------- */

static void test_deadline(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    zm_acceptor_t a;
    zm_acceptor_init(&a, 150); /* each newcomer gets 150 ms */
    zm_transport_params_t p = params(1);

    raw_t c;
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
    zm_transport_msg_t m;
    init_syn(&m, 40);
    uint8_t b[128];
    size_t n = encode_batch(&m, b, sizeof(b));
    raw_write(&c, b, n - 1); /* all but the last byte */
    CHECK(step_until_idle(&a, &listener, &p)); /* the step's own wait ends at the deadline */
    expect_close(&c, ZM_CLOSE_EXPIRED, "acceptor deadline");
    zm_link_close(&c.link);

    /* zm_transport_accept: the same, within its timeout */
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
    zm_link_t in;
    CHECK_EQ_INT(zm_link_accept(&listener, &in, WAIT_MS), Z_OK);
    zm_transport_t t;
    CHECK_EQ_INT(zm_transport_accept(&t, &in, &p, 100), ZM_E_TIMEOUT);
    expect_close(&c, ZM_CLOSE_EXPIRED, "zm_transport_accept deadline");
    zm_link_close(&c.link);

    /* a shut listener ends the acceptor's rounds */
    zm_acceptor_init(&a, ZM_ACCEPT_TIMEOUT_MS);
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    zm_link_t *pending[ZM_ACCEPT_PENDING_MAX];
    uint64_t next = 0;
    while (zm_acceptor_links(&a, pending, ZM_ARRAY_LEN(pending), &next) == 0 && zm_port_clock_ms() < end) {
        CHECK(zm_acceptor_step(&a, &listener, &p, 100, &t) != Z_OK);
    }
    CHECK_EQ_INT(zm_acceptor_links(&a, pending, ZM_ARRAY_LEN(pending), &next), 1);
    CHECK(next > zm_port_clock_ms());
    zm_link_shutdown(&listener);
    CHECK_EQ_INT(step_until_done(&a, &listener, &p, &t), ZM_E_CLOSED);
    zm_acceptor_close(&a);
    expect_close(&c, ZM_CLOSE_GENERIC, "acceptor closed");
    zm_link_close(&c.link);
    zm_link_close(&listener);
}

/* ---- the link underneath ------------------------------------------------------------------- */

static void test_link_try_recv(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    raw_t c;
    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
    zm_link_t s;
    CHECK_EQ_INT(zm_link_accept(&listener, &s, WAIT_MS), Z_OK);

    uint8_t small[64];
    zm_slice_t batch;
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, small, sizeof(small), &batch), ZM_E_AGAIN);

    /* two batches and the start of a third */
    static const uint8_t wire[] = {3, 0, 'a', 'b', 'c', 1, 0, 'd', 5, 0, 'e', 'f'};
    raw_write(&c, wire, sizeof(wire));
    zm_link_t *one[1] = {&s};
    uint8_t ready[1];
    CHECK_EQ_INT(zm_link_wait_any(one, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(ready[0], 1);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, small, sizeof(small), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "abc", 3);
    /* the second is buffered: ready without the socket having anything */
    CHECK_EQ_INT(zm_link_wait_any(one, 1, 0, ready), Z_OK);
    CHECK_EQ_INT(ready[0], 1);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, small, sizeof(small), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "d", 1);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, small, sizeof(small), &batch), ZM_E_AGAIN);
    CHECK_EQ_INT(zm_link_wait_any(one, 1, 0, ready), ZM_E_TIMEOUT);
    CHECK_EQ_INT(ready[0], 0);

    /* the partial batch moves to a bigger buffer and completes there, blocking or not */
    uint8_t big[256];
    CHECK_EQ_INT(zm_link_rebuffer(&s, big, sizeof(big)), Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, big, sizeof(big), &batch), ZM_E_AGAIN);
    static const uint8_t rest[] = {'g', 'h', 'i', 2, 0, 'j', 'k'};
    raw_write(&c, rest, sizeof(rest));
    CHECK_EQ_INT(zm_link_recv_batch(&s, big, sizeof(big), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "efghi", 5);
    CHECK_EQ_INT(zm_link_wait_any(one, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, big, sizeof(big), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "jk", 2);

    /* a too-small new buffer is refused and nothing moves */
    static const uint8_t more[] = {9, 0, '1', '2', '3', '4'};
    raw_write(&c, more, sizeof(more));
    CHECK_EQ_INT(zm_link_wait_any(one, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, big, sizeof(big), &batch), ZM_E_AGAIN);
    uint8_t tiny[4];
    CHECK_EQ_INT(zm_link_rebuffer(&s, tiny, sizeof(tiny)), ZM_E_NO_SPACE);

    /* an announced length beyond the buffer, and the end of the stream */
    zm_link_close(&c.link);
    CHECK_EQ_INT(zm_link_wait_any(one, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, big, sizeof(big), &batch), ZM_E_CLOSED);
    zm_link_close(&s);

    CHECK_EQ_INT(connect_to(&c.link, port), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &s, WAIT_MS), Z_OK);
    static const uint8_t huge[] = {0x00, 0x01, 'x'};
    raw_write(&c, huge, sizeof(huge));
    CHECK_EQ_INT(zm_link_wait_any(one, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&s, small, sizeof(small), &batch), ZM_E_FIELD);
    zm_link_close(&s);
    zm_link_close(&c.link);
    zm_link_close(&listener);
}

static void test_wait_any(void)
{
    zm_link_t listener;
    uint16_t port = listen_any(&listener);
    raw_t c[3];
    zm_link_t s[3];
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(connect_to(&c[i].link, port), Z_OK);
        CHECK_EQ_INT(zm_link_accept(&listener, &s[i], WAIT_MS), Z_OK);
    }
    zm_link_t *links[5] = {&listener, &s[0], NULL, &s[1], &s[2]};
    uint8_t ready[5];
    CHECK_EQ_INT(zm_link_wait_any(links, 5, 10, ready), ZM_E_TIMEOUT);

    /* a pending connection makes the listener ready; bytes make their link ready */
    raw_t d;
    CHECK_EQ_INT(connect_to(&d.link, port), Z_OK);
    raw_write(&c[1], (const uint8_t *)"\x01\x00z", 3);
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    do {
        CHECK_EQ_INT(zm_link_wait_any(links, 5, WAIT_MS, ready), Z_OK);
    } while (!(ready[0] && ready[3]) && zm_port_clock_ms() < end);
    CHECK_EQ_INT(ready[0], 1);
    CHECK_EQ_INT(ready[1], 0);
    CHECK_EQ_INT(ready[2], 0);
    CHECK_EQ_INT(ready[3], 1);
    CHECK_EQ_INT(ready[4], 0);

    /* end of stream counts */
    zm_link_close(&c[2].link);
    end = zm_port_clock_ms() + WAIT_MS;
    do {
        CHECK_EQ_INT(zm_link_wait_any(links, 5, WAIT_MS, ready), Z_OK);
    } while (!ready[4] && zm_port_clock_ms() < end);
    CHECK_EQ_INT(ready[4], 1);

    /* more links than a wait can watch */
    zm_link_t *many[ZM_SOCKET_WAIT_MAX + 1];
    uint8_t many_ready[ZM_SOCKET_WAIT_MAX + 1];
    for (size_t i = 0; i < ZM_ARRAY_LEN(many); i++) {
        many[i] = &s[0];
    }
    CHECK_EQ_INT(zm_link_wait_any(many, ZM_ARRAY_LEN(many), 0, many_ready), ZM_E_LIMIT);

    zm_link_close(&d.link);
    for (size_t i = 0; i < 3; i++) {
        zm_link_close(&s[i]);
        if (i != 2) {
            zm_link_close(&c[i].link);
        }
    }
    zm_link_close(&listener);
}

int main(void)
{
    static const zm_allocator_t counting = {counting_alloc, counting_free, NULL};
    zm_allocator_set(&counting);
    test_allocations();
    test_link_try_recv();
    test_wait_any();
    test_slow_opener();
    test_bytes_after_open_syn();
    test_bytes_after_open_ack();
    test_two_finish_together();
    test_refusals();
    test_deadline();
    test_opener_through_crowd();
    return CHECK_DONE();
}
