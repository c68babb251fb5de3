/*
 * UDP on loopback (unicast only): the port's datagram sockets (bound and connected, both ways,
 * the sender's address, a datagram too large for the buffer, a peek, a refusal, shutdown waking
 * a blocked receive, an interface that does not exist), then the udp link over them (batches
 * both ways up to the MTU, a listener telling two sources apart, bounded by its table, from one
 * thread and from many), then transports over it, where a lost fragment costs its message only.
 */
#include <stdlib.h>

#include "check.h"
#include "link/link.h"
#include "transport/transport.h"

#define WAIT_MS 5000u

static uint8_t big[1u << 20];

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 13u + seed);
    }
}

/* A UDP port where nothing listens: one the system gave a socket that is closed again. */
static uint16_t closed_port(void)
{
    zm_socket_t s;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_udp_open(&s, "127.0.0.1", 0, false), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&s, &port), Z_OK);
    zm_port_socket_close(&s);
    return port;
}

/* ---- the port ---------------------------------------------------------------------------------- */

static void test_port_datagrams(void)
{
    zm_socket_t bound, conn;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_udp_open(&bound, "127.0.0.1", 0, false), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&bound, &port), Z_OK);
    CHECK(port != 0);
    CHECK_EQ_INT(zm_port_udp_open(&conn, "127.0.0.1", port, true), Z_OK);

    /* connected -> bound: the sender's address is the connected socket's own */
    uint8_t buf[256];
    size_t n = 0;
    zm_addr_t from, local;
    CHECK_EQ_INT(zm_port_udp_send(&conn, (const uint8_t *)"hello", 5, NULL, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_socket_wait_readable(&bound, WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_recv(&bound, buf, sizeof(buf), &n, &from), Z_OK);
    CHECK_EQ_MEM(buf, n, "hello", 5);
    CHECK_EQ_INT(zm_port_udp_local_addr(&conn, &local), Z_OK);
    CHECK(zm_port_addr_equal(&from, &local));
    char text[64];
    uint16_t conn_port = 0;
    CHECK_EQ_INT(zm_port_socket_local_port(&conn, &conn_port), Z_OK);
    char want[64];
    snprintf(want, sizeof(want), "127.0.0.1:%u", (unsigned)conn_port);
    CHECK_EQ_INT(zm_port_addr_format(&from, text, sizeof(text)), strlen(want));
    CHECK_EQ_STR(text, want);

    /* bound -> connected, to the address it heard from; an empty datagram is one too */
    CHECK_EQ_INT(zm_port_udp_send(&bound, (const uint8_t *)"back", 4, &from, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_recv(&conn, buf, sizeof(buf), &n, NULL), Z_OK);
    CHECK_EQ_MEM(buf, n, "back", 4);
    CHECK_EQ_INT(zm_port_udp_send(&bound, buf, 0, &from, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_recv(&conn, buf, sizeof(buf), &n, NULL), Z_OK);
    CHECK_EQ_INT(n, 0);

    /* A peek tells length and sender and leaves the datagram; none queued: ZM_E_AGAIN. */
    size_t len = 99;
    CHECK_EQ_INT(zm_port_udp_peek(&bound, &len, &from), ZM_E_AGAIN);
    fill(big, 1000, 1);
    CHECK_EQ_INT(zm_port_udp_send(&conn, big, 1000, NULL, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_socket_wait_readable(&bound, WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_peek(&bound, &len, &from), Z_OK);
    CHECK_EQ_INT(len, 1000);
    CHECK(zm_port_addr_equal(&from, &local));
    CHECK_EQ_INT(zm_port_udp_peek(&bound, &len, &from), Z_OK);
    CHECK_EQ_INT(len, 1000);

    /* Too large for the buffer: dropped whole, ZM_E_FIELD; the next one comes whole. */
    CHECK_EQ_INT(zm_port_udp_recv(&bound, buf, sizeof(buf), &n, NULL), ZM_E_FIELD);
    CHECK_EQ_INT(zm_port_udp_send(&conn, big, 200, NULL, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_recv(&bound, buf, sizeof(buf), &n, NULL), Z_OK);
    CHECK_EQ_MEM(buf, n, big, 200);

    /* The largest datagram a UDP link sends goes through whole. */
    fill(big, ZM_UDP_MTU, 2);
    CHECK_EQ_INT(zm_port_udp_send(&conn, big, ZM_UDP_MTU, NULL, zm_port_clock_ms() + WAIT_MS), Z_OK);
    uint8_t *large = malloc(ZM_UDP_MTU);
    CHECK(large != NULL);
    if (large != NULL) {
        CHECK_EQ_INT(zm_port_udp_recv(&bound, large, ZM_UDP_MTU, &n, NULL), Z_OK);
        CHECK_EQ_MEM(large, n, big, ZM_UDP_MTU);
        free(large);
    }
    zm_port_socket_close(&conn);
    zm_port_socket_close(&bound);

    /* Nobody listens there: the refusal the system reports ends a look with ZM_E_REFUSED. */
    CHECK_EQ_INT(zm_port_udp_open(&conn, "127.0.0.1", closed_port(), true), Z_OK);
    CHECK_EQ_INT(zm_port_udp_send(&conn, (const uint8_t *)"x", 1, NULL, zm_port_clock_ms() + WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_socket_wait_readable(&conn, WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_port_udp_peek(&conn, &len, &from), ZM_E_REFUSED);
    CHECK_EQ_INT(zm_port_udp_peek(&conn, &len, &from), ZM_E_AGAIN);
    zm_port_socket_close(&conn);

    /* Interfaces are looked up by name before anything is opened. */
    zm_socket_t s;
    CHECK_EQ_INT(zm_port_udp_sender(&s, "zmote-no-such-if", 1), ZM_E_LOCATOR);
    CHECK_EQ_INT(zm_port_udp_join(&s, "224.0.0.224", 7446, "zmote-no-such-if", 1), ZM_E_LOCATOR);
    CHECK_EQ_INT(zm_port_udp_join(&s, "127.0.0.1", 7446, NULL, 1), ZM_E_LOCATOR); /* not a group */
}

#if Z_FEATURE_MULTI_THREAD
typedef struct {
    zm_socket_t *sock;
    z_result_t rc;
} blocked_t;

static void *recv_blocked(void *arg)
{
    blocked_t *b = arg;
    uint8_t buf[16];
    size_t n;
    b->rc = zm_port_udp_recv(b->sock, buf, sizeof(buf), &n, NULL);
    return NULL;
}

/* A receive blocked in the socket (or about to be) returns ZM_E_CLOSED once it is shut down. */
static void test_port_shutdown(void)
{
    for (int connected = 0; connected < 2; connected++) {
        zm_socket_t s;
        CHECK_EQ_INT(zm_port_udp_open(&s, "127.0.0.1", connected ? closed_port() : 0, connected != 0), Z_OK);
        blocked_t b = {&s, Z_OK};
        zm_task_t task;
        CHECK_EQ_INT(zm_port_task_start(&task, recv_blocked, &b), Z_OK);
        zm_port_socket_shutdown(&s);
        zm_port_task_join(&task);
        CHECK_EQ_INT(b.rc, ZM_E_CLOSED);
        zm_port_socket_close(&s);
    }
}
#endif

/* ---- the link ---------------------------------------------------------------------------------- */

static void endpoint_of(zm_endpoint_t *ep, char *text, size_t cap, uint16_t port)
{
    snprintf(text, cap, "udp/127.0.0.1:%u", (unsigned)port);
    CHECK_EQ_INT(zm_endpoint_parse(ep, text, strlen(text), ZM_ENDPOINT_CONNECT), Z_OK);
}

/* A listener on a port of the system's choosing; its port in *port. */
static bool listen_any(zm_link_t *listener, uint16_t *port)
{
    zm_endpoint_t ep;
    const char *text = "udp/127.0.0.1:0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, text, strlen(text), ZM_ENDPOINT_LISTEN), Z_OK);
    z_result_t rc = zm_link_listen(listener, &ep);
    CHECK_EQ_INT(rc, Z_OK);
    if (rc != Z_OK) {
        return false;
    }
    CHECK_EQ_INT(zm_link_local_port(listener, port), Z_OK);
    return true;
}

static bool dial(zm_link_t *link, uint16_t port)
{
    zm_endpoint_t ep;
    char text[64];
    endpoint_of(&ep, text, sizeof(text), port);
    z_result_t rc = zm_link_open(link, &ep, WAIT_MS);
    CHECK_EQ_INT(rc, Z_OK);
    return rc == Z_OK;
}

/* Sends text as one batch (built past the headroom, as the transport does). */
static z_result_t send_text(zm_link_t *l, const char *text)
{
    uint8_t buf[ZM_LINK_HEADROOM + 64];
    size_t len = strlen(text);
    memcpy(buf + ZM_LINK_HEADROOM, text, len);
    uint64_t now = zm_port_clock_ms();
    return zm_link_send_batch(l, buf + ZM_LINK_HEADROOM, len, now + WAIT_MS, now + WAIT_MS);
}

static uint8_t rx_a[ZM_UDP_MTU + ZM_LINK_HEADROOM];
static uint8_t rx_b[ZM_UDP_MTU + ZM_LINK_HEADROOM];

/* Receives one batch and checks it is text. */
static void expect_text(zm_link_t *l, uint8_t *buf, size_t cap, const char *text)
{
    zm_slice_t batch = zm_slice(NULL, 0);
    zm_link_set_deadline(l, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(l, buf, cap, &batch), Z_OK);
    zm_link_set_deadline(l, 0);
    CHECK_EQ_MEM(batch.ptr, batch.len, text, strlen(text));
}

static void test_link_batches(void)
{
    zm_link_t listener, link, accepted;
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return;
    }
    CHECK_EQ_INT(zm_link_mtu(&listener), ZM_UDP_MTU);
    CHECK_EQ_INT(zm_link_accept(&listener, &accepted, 0), ZM_E_TIMEOUT);
    if (!dial(&link, port)) {
        zm_link_close(&listener);
        return;
    }
    CHECK(!zm_link_is_streamed(&link));
    CHECK_EQ_INT(zm_link_mtu(&link), ZM_UDP_MTU);

    /* The first datagram of a new source makes a link, and is that link's first batch. */
    CHECK_EQ_INT(send_text(&link, "init"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &accepted, WAIT_MS), Z_OK);
    CHECK_EQ_INT(zm_link_mtu(&accepted), ZM_UDP_MTU);
    CHECK(!zm_link_is_streamed(&accepted));
    uint16_t accepted_port = 0;
    CHECK_EQ_INT(zm_link_local_port(&accepted, &accepted_port), Z_OK);
    CHECK_EQ_INT(accepted_port, port);
    expect_text(&accepted, rx_a, sizeof(rx_a), "init");
    CHECK_EQ_INT(send_text(&accepted, "ack"), Z_OK);
    expect_text(&link, rx_b, sizeof(rx_b), "ack");

    /* Batches of the MTU both ways, one datagram each; one byte more is refused. */
    static uint8_t tx[ZM_UDP_MTU + ZM_LINK_HEADROOM + 1];
    zm_slice_t batch;
    for (int way = 0; way < 2; way++) {
        zm_link_t *from = way ? &accepted : &link;
        zm_link_t *to = way ? &link : &accepted;
        uint8_t *buf = way ? rx_b : rx_a;
        fill(tx + ZM_LINK_HEADROOM, ZM_UDP_MTU, (uint8_t)way);
        uint64_t now = zm_port_clock_ms();
        CHECK_EQ_INT(zm_link_send_batch(from, tx + ZM_LINK_HEADROOM, ZM_UDP_MTU, now + WAIT_MS, now + WAIT_MS), Z_OK);
        CHECK_EQ_INT(zm_link_send_batch(from, tx + ZM_LINK_HEADROOM, ZM_UDP_MTU + 1u, now + WAIT_MS, now + WAIT_MS),
                     ZM_E_FIELD);
        zm_link_set_deadline(to, zm_port_clock_ms() + WAIT_MS);
        CHECK_EQ_INT(zm_link_recv_batch(to, buf, sizeof(rx_a), &batch), Z_OK);
        CHECK_EQ_MEM(batch.ptr, batch.len, tx + ZM_LINK_HEADROOM, ZM_UDP_MTU);
        /* nothing else came: a receive that must not wait says so */
        CHECK_EQ_INT(zm_link_try_recv_batch(to, buf, sizeof(rx_a), &batch), ZM_E_AGAIN);
        zm_link_set_deadline(to, 0);
    }

    /* A batch longer than the receive buffer is an error of the peer. */
    CHECK_EQ_INT(send_text(&link, "0123456789"), Z_OK);
    zm_link_set_deadline(&accepted, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&accepted, rx_a, 4, &batch), ZM_E_FIELD);
    zm_link_close(&accepted);

    /* The listener closed, an accepted link goes on; a new source is dropped. */
    CHECK_EQ_INT(send_text(&link, "again"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &accepted, WAIT_MS), Z_OK);
    zm_link_close(&listener);
    expect_text(&accepted, rx_a, sizeof(rx_a), "again");
    zm_link_t other;
    if (dial(&other, port)) {
        CHECK_EQ_INT(send_text(&other, "stranger"), Z_OK);
        CHECK_EQ_INT(send_text(&link, "still"), Z_OK);
        expect_text(&accepted, rx_a, sizeof(rx_a), "still");
        zm_link_close(&other);
    }
    zm_link_close(&accepted);
    zm_link_close(&link);

    /* Rust's reliable UDP (`rel=1`) is QUIC: refused; `rel=0` is this link. */
    zm_endpoint_t ep;
    const char *rel1 = "udp/127.0.0.1:7447?rel=1", *rel0 = "udp/127.0.0.1:7447?rel=0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, rel1, strlen(rel1), ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_link_open(&link, &ep, WAIT_MS), ZM_E_UNSUPPORTED);
    CHECK_EQ_INT(zm_link_listen(&link, &ep), ZM_E_UNSUPPORTED);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, rel0, strlen(rel0), ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_link_open(&link, &ep, WAIT_MS), Z_OK);
    zm_link_close(&link);
    /* A group is never a unicast peer: nothing is sent to it. */
    const char *group = "udp/224.0.0.224:7446";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, group, strlen(group), ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_link_open(&link, &ep, WAIT_MS), ZM_E_UNSUPPORTED);
    CHECK_EQ_INT(zm_link_listen(&link, &ep), ZM_E_UNSUPPORTED);

    /* Nobody at the other end: a receive with a deadline ends with the refusal, not a hang. */
    if (dial(&link, closed_port())) {
        CHECK_EQ_INT(send_text(&link, "anyone?"), Z_OK);
        zm_link_set_deadline(&link, zm_port_clock_ms() + WAIT_MS);
        CHECK_EQ_INT(zm_link_recv_batch(&link, rx_b, sizeof(rx_b), &batch), ZM_E_REFUSED);
        zm_link_close(&link);
    }
}

/* One listener, two sources, one thread: each accepted link gets its own source's batches. */
static void test_link_demux(void)
{
    zm_link_t listener, a, b, acc_a, acc_b;
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return;
    }
    if (!dial(&a, port) || !dial(&b, port)) {
        zm_link_close(&listener);
        return;
    }
    CHECK_EQ_INT(send_text(&a, "a1"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "b1"), Z_OK);
    CHECK_EQ_INT(send_text(&a, "a2"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "b2"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_a, WAIT_MS), Z_OK);
    /* b's first datagram is behind a's: the second source comes once a's link took its own */
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_b, 0), ZM_E_TIMEOUT);
    expect_text(&acc_a, rx_a, sizeof(rx_a), "a1");
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_b, WAIT_MS), Z_OK);
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b1");
    expect_text(&acc_a, rx_a, sizeof(rx_a), "a2");
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b2");

    /* A datagram waits at the head of the socket for its own link: the other is not ready. */
    CHECK_EQ_INT(send_text(&a, "a3"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "b3"), Z_OK);
    zm_link_t *links[3] = {&listener, &acc_a, &acc_b};
    uint8_t ready[3];
    CHECK_EQ_INT(zm_link_wait_readable(&acc_a, WAIT_MS), Z_OK);
    zm_slice_t batch;
    CHECK_EQ_INT(zm_link_try_recv_batch(&acc_b, rx_b, sizeof(rx_b), &batch), ZM_E_AGAIN);
    CHECK_EQ_INT(zm_link_wait_any(links, 3, WAIT_MS, ready), Z_OK);
    CHECK(ready[0] == 0 && ready[1] == 1 && ready[2] == 0);
    CHECK_EQ_INT(zm_link_try_recv_batch(&acc_a, rx_a, sizeof(rx_a), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "a3", 2);
    CHECK_EQ_INT(zm_link_wait_any(links, 3, WAIT_MS, ready), Z_OK);
    CHECK(ready[2] == 1);
    CHECK_EQ_INT(zm_link_try_recv_batch(&acc_b, rx_b, sizeof(rx_b), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "b3", 2);
    /* nothing queued: nothing ready, within the wait */
    CHECK_EQ_INT(zm_link_wait_any(links, 3, 20, ready), ZM_E_TIMEOUT);

    /* A closed link's source comes again as a newcomer; a datagram left for a link that closes
     * does not hold the socket. */
    CHECK_EQ_INT(send_text(&b, "b4"), Z_OK);
    CHECK_EQ_INT(send_text(&a, "a4"), Z_OK);
    CHECK_EQ_INT(zm_link_wait_readable(&acc_b, WAIT_MS), Z_OK);
    zm_link_close(&acc_b);
    expect_text(&acc_a, rx_a, sizeof(rx_a), "a4");
    CHECK_EQ_INT(send_text(&b, "b5"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_b, WAIT_MS), Z_OK);
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b5");

    /* A datagram whose link does not receive it holds the socket for a while, not for ever: the
     * other link's receive drops it and gets its own; the busy link loses that one only. */
    CHECK_EQ_INT(send_text(&a, "a5"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "b6"), Z_OK);
    uint64_t start = zm_port_clock_ms();
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b6");
    CHECK(zm_port_clock_ms() - start < WAIT_MS / 2u);
    /* still busy: its next datagrams are dropped at once, the other link's come through */
    CHECK_EQ_INT(send_text(&a, "a6"), Z_OK);
    CHECK_EQ_INT(send_text(&a, "a7"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "b7"), Z_OK);
    start = zm_port_clock_ms();
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b7");
    CHECK(zm_port_clock_ms() - start < 50u);
    /* once it receives again, it is served as before */
    zm_slice_t none;
    CHECK_EQ_INT(zm_link_try_recv_batch(&acc_a, rx_a, sizeof(rx_a), &none), ZM_E_AGAIN);
    CHECK_EQ_INT(send_text(&a, "a8"), Z_OK);
    expect_text(&acc_a, rx_a, sizeof(rx_a), "a8");

    /* A shut link's receive ends; its peer's datagrams no longer reach it. */
    zm_link_shutdown(&acc_a);
    CHECK_EQ_INT(zm_link_try_recv_batch(&acc_a, rx_a, sizeof(rx_a), &batch), ZM_E_CLOSED);
    CHECK_EQ_INT(send_text(&acc_a, "late"), ZM_E_CLOSED);
    zm_link_close(&acc_a);
    zm_link_close(&acc_b);
    zm_link_close(&a);
    zm_link_close(&b);
    zm_link_close(&listener);
}

/* ---- stateless handshakes -------------------------------------------------------------------- */

static zm_acceptor_t acceptor;
static zm_transport_params_t params(uint8_t id, uint16_t batch);

/* Sends transport message m from l as one batch. */
static z_result_t send_msg(zm_link_t *l, const zm_transport_msg_t *m)
{
    uint8_t buf[ZM_LINK_HEADROOM + 256];
    zm_writer_t w;
    zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof(buf) - ZM_LINK_HEADROOM);
    ZM_TRY(zm_transport_encode(&w, m));
    uint64_t now = zm_port_clock_ms();
    return zm_link_send_batch(l, buf + ZM_LINK_HEADROOM, w.len, now + WAIT_MS, now + WAIT_MS);
}

static z_result_t send_open_syn(zm_link_t *l, const uint8_t *cookie, size_t len)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_OPEN;
    m.body.open.lease_secs = true;
    m.body.open.lease = 10;
    m.body.open.initial_sn = 7;
    m.body.open.cookie = zm_slice(cookie, len);
    return send_msg(l, &m);
}

/* Steps the acceptor until it has nothing more to do now: Z_OK if a transport came out in *t. */
static z_result_t serve(const zm_transport_params_t *p, zm_transport_t *t, zm_link_t *listener)
{
    z_result_t rc;
    uint64_t until = zm_port_clock_ms() + 200u;
    do {
        rc = zm_acceptor_step(&acceptor, listener, p, 20, t);
    } while (rc != Z_OK && zm_port_clock_ms() < until);
    return rc;
}

/*
 * An InitSyn on a shared socket is answered with a cookie that holds it all, and leaves no
 * pending handshake; an OpenSyn makes a transport only with its cookie intact and from the
 * source it was given to; a bad one gets no answer.
 */
static void test_stateless_handshake(void)
{
    zm_link_t listener, a, b;
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return;
    }
    if (!dial(&a, port) || !dial(&b, port)) {
        zm_link_close(&listener);
        return;
    }
    zm_acceptor_init(&acceptor, WAIT_MS);
    zm_transport_params_t p = params(1, 8192);
    zm_transport_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_INIT;
    m.body.init.version = ZM_PROTO_VERSION;
    m.body.init.whatami = ZM_WAI_PEER;
    m.body.init.zid.len = 4;
    memcpy(m.body.init.zid.id, "\xaa\xbb\xcc\xdd", 4);
    CHECK_EQ_INT(send_msg(&a, &m), Z_OK);
    zm_transport_t t;
    CHECK(serve(&p, &t, &listener) != Z_OK);
    zm_link_t *pending[ZM_ACCEPT_PENDING_MAX];
    uint64_t deadline;
    CHECK_EQ_INT(zm_acceptor_links(&acceptor, pending, ZM_ACCEPT_PENDING_MAX, &deadline), 0);

    zm_slice_t batch = zm_slice(NULL, 0);
    zm_link_set_deadline(&a, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&a, rx_a, sizeof(rx_a), &batch), Z_OK);
    zm_reader_t r;
    zm_reader_init(&r, batch.ptr, batch.len);
    CHECK_EQ_INT(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m), Z_OK);
    CHECK(m.id == ZM_MID_INIT && m.body.init.ack);
    uint8_t cookie[64];
    size_t len = m.body.init.cookie.len;
    CHECK_EQ_INT(len, 35);
    if (len != 35) {
        zm_link_close(&a);
        zm_link_close(&b);
        zm_link_close(&listener);
        return;
    }
    memcpy(cookie, m.body.init.cookie.ptr, len);

    /* altered, cut short, or from another source: nothing comes of it, no answer */
    cookie[12] ^= 1u;
    CHECK_EQ_INT(send_open_syn(&a, cookie, len), Z_OK);
    cookie[12] ^= 1u;
    CHECK_EQ_INT(send_open_syn(&a, cookie, len - 1), Z_OK);
    CHECK_EQ_INT(send_open_syn(&b, cookie, len), Z_OK);
    CHECK(serve(&p, &t, &listener) != Z_OK);
    CHECK_EQ_INT(zm_link_try_recv_batch(&a, rx_a, sizeof(rx_a), &batch), ZM_E_AGAIN);
    CHECK_EQ_INT(zm_link_try_recv_batch(&b, rx_b, sizeof(rx_b), &batch), ZM_E_AGAIN);

    /* intact, from its source: the transport, with what the InitSyn negotiated */
    CHECK_EQ_INT(send_open_syn(&a, cookie, len), Z_OK);
    CHECK_EQ_INT(serve(&p, &t, &listener), Z_OK);
    CHECK_EQ_INT(t.remote_zid.len, 4);
    CHECK_EQ_MEM(t.remote_zid.id, t.remote_zid.len, "\xaa\xbb\xcc\xdd", 4);
    CHECK_EQ_INT(t.remote_lease_ms, 10000);
    zm_link_set_deadline(&a, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&a, rx_a, sizeof(rx_a), &batch), Z_OK);
    zm_reader_init(&r, batch.ptr, batch.len);
    CHECK_EQ_INT(zm_transport_decode(&r, ZM_SN_MASK_DEFAULT, &m), Z_OK);
    CHECK(m.id == ZM_MID_OPEN && m.body.open.ack);
    zm_transport_close(&t, ZM_CLOSE_GENERIC);
    zm_transport_free(&t);
    zm_acceptor_close(&acceptor);
    zm_link_close(&a);
    zm_link_close(&b);
    zm_link_close(&listener);
}

/* The listener's table holds every peer and pending handshake and a newcomer, no more: a source
 * beyond it is dropped until a link closes. */
static void test_link_table_bound(void)
{
    enum { N = ZM_PEERS_MAX + ZM_ACCEPT_PENDING_MAX + 1 };
    zm_link_t listener, dialled[N + 1], accepted[N];
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return;
    }
    size_t opened = 0;
    for (; opened < N; opened++) {
        if (!dial(&dialled[opened], port)) {
            break;
        }
        char text[16];
        snprintf(text, sizeof(text), "hi %u", (unsigned)opened);
        CHECK_EQ_INT(send_text(&dialled[opened], text), Z_OK);
        CHECK_EQ_INT(zm_link_accept(&listener, &accepted[opened], WAIT_MS), Z_OK);
        expect_text(&accepted[opened], rx_a, sizeof(rx_a), text);
    }
    if (opened == N && dial(&dialled[N], port)) {
        CHECK_EQ_INT(send_text(&dialled[N], "one too many"), Z_OK);
        CHECK_EQ_INT(send_text(&dialled[0], "first"), Z_OK);
        expect_text(&accepted[0], rx_a, sizeof(rx_a), "first"); /* the stray went before it */
        zm_link_t none;
        CHECK_EQ_INT(zm_link_accept(&listener, &none, 0), ZM_E_TIMEOUT);
        zm_link_close(&accepted[0]);
        CHECK_EQ_INT(send_text(&dialled[N], "my turn"), Z_OK);
        z_result_t rc = zm_link_accept(&listener, &accepted[0], WAIT_MS);
        CHECK_EQ_INT(rc, Z_OK);
        if (rc == Z_OK) {
            expect_text(&accepted[0], rx_a, sizeof(rx_a), "my turn");
        }
        zm_link_close(&dialled[N]);
    }
    for (size_t i = 0; i < opened; i++) {
        zm_link_close(&accepted[i]);
        zm_link_close(&dialled[i]);
    }
    zm_link_close(&listener);
}

#if Z_FEATURE_MULTI_THREAD
#define FLOOD 64u

typedef struct {
    zm_link_t *link;
    uint8_t *buf;
    char tag;
    bool deadline; /* each receive bounded by WAIT_MS */
    unsigned got;
    bool in_order;
    z_result_t rc;
} reader_t;

/* Receives <tag><n> batches, n counting up, until "end" (rc Z_OK) or an error. */
static void *reader_main(void *arg)
{
    reader_t *r = arg;
    r->in_order = true;
    for (;;) {
        zm_slice_t batch;
        zm_link_set_deadline(r->link, r->deadline ? zm_port_clock_ms() + WAIT_MS : 0u);
        r->rc = zm_link_recv_batch(r->link, r->buf, sizeof(rx_a), &batch);
        if (r->rc != Z_OK || (batch.len == 3 && memcmp(batch.ptr, "end", 3) == 0)) {
            return NULL;
        }
        char want[16];
        snprintf(want, sizeof(want), "%c%u", r->tag, r->got);
        r->in_order = r->in_order && batch.len == strlen(want) && memcmp(batch.ptr, want, batch.len) == 0;
        r->got++;
    }
}

typedef struct {
    zm_link_t *listener;
    zm_link_t *out;
    z_result_t rc;
} accepter_t;

static void *accept_blocked(void *arg)
{
    accepter_t *a = arg;
    a->rc = zm_link_accept(a->listener, a->out, 60000);
    return NULL;
}

/* Each accepted link read by a thread of its own, blocked in its receive: every batch reaches
 * its own reader, in order; a shut link's reader returns, so does a blocked accept. */
static void test_link_threads(void)
{
    zm_link_t listener, a, b, acc_a, acc_b;
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return;
    }
    if (!dial(&a, port) || !dial(&b, port)) {
        zm_link_close(&listener);
        return;
    }
    CHECK_EQ_INT(send_text(&a, "a-hello"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_a, WAIT_MS), Z_OK);
    expect_text(&acc_a, rx_a, sizeof(rx_a), "a-hello");
    CHECK_EQ_INT(send_text(&b, "b-hello"), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &acc_b, WAIT_MS), Z_OK);
    expect_text(&acc_b, rx_b, sizeof(rx_b), "b-hello");

    reader_t ra = {&acc_a, rx_a, 'a', true, 0, true, Z_OK};
    reader_t rb = {&acc_b, rx_b, 'b', true, 0, true, Z_OK};
    zm_task_t ta, tb;
    CHECK_EQ_INT(zm_port_task_start(&ta, reader_main, &ra), Z_OK);
    CHECK_EQ_INT(zm_port_task_start(&tb, reader_main, &rb), Z_OK);
    for (unsigned i = 0; i < FLOOD; i++) {
        char text[16];
        snprintf(text, sizeof(text), "a%u", i);
        CHECK_EQ_INT(send_text(&a, text), Z_OK);
        snprintf(text, sizeof(text), "b%u", i);
        CHECK_EQ_INT(send_text(&b, text), Z_OK);
    }
    CHECK_EQ_INT(send_text(&a, "end"), Z_OK);
    CHECK_EQ_INT(send_text(&b, "end"), Z_OK);
    zm_port_task_join(&ta);
    zm_port_task_join(&tb);
    CHECK_EQ_INT(ra.rc, Z_OK);
    CHECK_EQ_INT(rb.rc, Z_OK);
    CHECK_EQ_INT(ra.got, FLOOD);
    CHECK_EQ_INT(rb.got, FLOOD);
    CHECK(ra.in_order && rb.in_order);

    /* Readers blocked without a deadline (one waits in the socket, the other for it) return
     * ZM_E_CLOSED when their links are shut down. */
    ra.deadline = rb.deadline = false;
    CHECK_EQ_INT(zm_port_task_start(&ta, reader_main, &ra), Z_OK);
    CHECK_EQ_INT(zm_port_task_start(&tb, reader_main, &rb), Z_OK);
    zm_link_shutdown(&acc_a);
    zm_port_task_join(&ta);
    CHECK_EQ_INT(ra.rc, ZM_E_CLOSED);
    zm_link_shutdown(&acc_b);
    zm_port_task_join(&tb);
    CHECK_EQ_INT(rb.rc, ZM_E_CLOSED);

    /* A blocked accept returns ZM_E_CLOSED once the listener is shut down. */
    zm_link_t out;
    accepter_t acc = {&listener, &out, Z_OK};
    zm_task_t tacc;
    CHECK_EQ_INT(zm_port_task_start(&tacc, accept_blocked, &acc), Z_OK);
    zm_link_shutdown(&listener);
    zm_port_task_join(&tacc);
    CHECK_EQ_INT(acc.rc, ZM_E_CLOSED);

    zm_link_close(&acc_a);
    zm_link_close(&acc_b);
    zm_link_close(&a);
    zm_link_close(&b);
    zm_link_close(&listener);
}
#endif

/* ---- transports over UDP ------------------------------------------------------------------------ */
#if Z_FEATURE_MULTI_THREAD && Z_FEATURE_FRAGMENTATION

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned count;
    size_t last_len;
    bool bad; /* a payload was not what was sent */
} rx_log_t;

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    rx_log_t *log = ctx;
    zm_port_mutex_lock(&log->lock);
    if (m->id == ZM_MID_N_PUSH && m->body.push.body_id == ZM_MID_PUT) {
        zm_slice_t p = m->body.push.body.put.payload;
        for (size_t i = 0; i < p.len; i++) {
            if (p.ptr[i] != (uint8_t)(i * 7u + p.len)) {
                log->bad = true;
                break;
            }
        }
        log->last_len = p.len;
    }
    log->count++;
    zm_port_condvar_broadcast(&log->cond);
    zm_port_mutex_unlock(&log->lock);
}

static bool wait_count(rx_log_t *log, unsigned n)
{
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    zm_port_mutex_lock(&log->lock);
    while (log->count < n) {
        if (zm_port_condvar_wait_until(&log->cond, &log->lock, deadline) == ZM_E_TIMEOUT) {
            break;
        }
    }
    bool ok = log->count >= n;
    zm_port_mutex_unlock(&log->lock);
    return ok;
}

/* What the log holds now, read under its lock. */
static rx_log_t log_now(rx_log_t *log)
{
    zm_port_mutex_lock(&log->lock);
    rx_log_t copy = *log;
    zm_port_mutex_unlock(&log->lock);
    return copy;
}

typedef struct {
    zm_transport_t t;
    rx_log_t log;
    zm_task_t reader;
    z_result_t read_rc;
} side_t;

static void *read_loop(void *arg)
{
    side_t *s = arg;
    z_result_t rc;
    do {
        rc = zm_transport_read_once(&s->t);
    } while (rc == Z_OK);
    s->read_rc = rc;
    return NULL;
}

static zm_transport_params_t params(uint8_t id, uint16_t batch)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 2;
    p.zid.id[0] = id;
    p.zid.id[1] = 0x5a;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = batch;
    p.lease_ms = 10000;
    p.qos = true;
    return p;
}

typedef struct {
    zm_link_t *listener;
    zm_transport_t *t;
    uint16_t batch;
    z_result_t rc;
} acceptor_t;

static void *accept_main(void *arg)
{
    acceptor_t *a = arg;
    zm_link_t link;
    a->rc = zm_link_accept(a->listener, &link, WAIT_MS);
    if (a->rc == Z_OK) {
        zm_transport_params_t p = params(1, a->batch);
        a->rc = zm_transport_accept(a->t, &link, &p, WAIT_MS);
    }
    return NULL;
}

/* a accepts on a UDP listener (closed again once it did), b connects; batch sizes as given. */
static bool pair_open(side_t *a, side_t *b, uint16_t batch_a, uint16_t batch_b)
{
    memset(a, 0, sizeof(*a));
    memset(b, 0, sizeof(*b));
    side_t *sides[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(zm_port_mutex_init(&sides[i]->log.lock), Z_OK);
        CHECK_EQ_INT(zm_port_condvar_init(&sides[i]->log.cond), Z_OK);
    }
    zm_link_t listener, link;
    uint16_t port = 0;
    if (!listen_any(&listener, &port)) {
        return false;
    }
    acceptor_t acc = {&listener, &a->t, batch_a, Z_OK};
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, accept_main, &acc), Z_OK);
    z_result_t rc = dial(&link, port) ? Z_OK : Z_ENETWORK;
    if (rc == Z_OK) {
        zm_transport_params_t p = params(2, batch_b);
        rc = zm_transport_open(&b->t, &link, &p, WAIT_MS);
        CHECK_EQ_INT(rc, Z_OK);
    }
    zm_port_task_join(&task);
    zm_link_close(&listener);
    CHECK_EQ_INT(acc.rc, Z_OK);
    if (rc != Z_OK || acc.rc != Z_OK) {
        return false;
    }
    uint16_t expect = batch_a < batch_b ? batch_a : batch_b;
    expect = expect < ZM_UDP_MTU ? expect : (uint16_t)ZM_UDP_MTU;
    CHECK_EQ_INT(a->t.batch_size, expect);
    CHECK_EQ_INT(b->t.batch_size, expect);
    CHECK_EQ_INT(a->t.patch, 1);
    return true;
}

/* The account and reassembly a session would give its transports, shared by every side here. */
static zm_account_t account;
static zm_defrag_share_t share = {&account, NULL, ATOMIC_FLAG_INIT};

static void side_start(side_t *s)
{
    s->t.on_message = on_message;
    s->t.ctx = &s->log;
    s->t.share = &share;
    CHECK_EQ_INT(zm_port_task_start(&s->reader, read_loop, s), Z_OK);
}

static void pair_close(side_t *a, side_t *b)
{
    zm_transport_close(&b->t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&b->reader);
    zm_port_task_join(&a->reader);
    CHECK_EQ_INT(a->read_rc, ZM_E_CLOSED); /* a saw the CLOSE */
    zm_transport_close(&a->t, ZM_CLOSE_GENERIC);
    zm_transport_free(&a->t);
    zm_transport_free(&b->t);
    side_t *sides[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        zm_port_condvar_destroy(&sides[i]->log.cond);
        zm_port_mutex_destroy(&sides[i]->log.lock);
    }
}

/* A PUT of size pattern bytes (BLOCK: congestion control never drops it). */
static z_result_t send_put(zm_transport_t *t, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        big[i] = (uint8_t)(i * 7u + size);
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice("test/udp", 8);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = zm_slice(big, size);
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_BLOCK | ZM_PRIO_DATA;
    return zm_transport_send(t, &m, true, ZM_PRIO_DATA, true);
}

/* Batches and fragments both ways over UDP, the batch the smaller of the MTU and the sizes. */
static void test_transport_pair(void)
{
    static side_t a, b;
    if (!pair_open(&a, &b, ZM_BATCH_UNICAST_SIZE, ZM_BATCH_UNICAST_SIZE)) {
        return;
    }
    side_start(&a);
    side_start(&b);
    const size_t sizes[] = {10, 1000, 65000, 200000, 1u << 20};
    unsigned n = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        n++;
        CHECK_EQ_INT(send_put(&b.t, sizes[i]), Z_OK);
        CHECK_CTX(wait_count(&a.log, n), "b -> a, %zu bytes", sizes[i]);
        CHECK_EQ_INT(log_now(&a.log).last_len, sizes[i]);
        CHECK_EQ_INT(send_put(&a.t, sizes[i]), Z_OK);
        CHECK_CTX(wait_count(&b.log, n), "a -> b, %zu bytes", sizes[i]);
        CHECK_EQ_INT(log_now(&b.log).last_len, sizes[i]);
    }
    CHECK(!log_now(&a.log).bad && !log_now(&b.log).bad);
    pair_close(&a, &b);
}

/* A link that loses one datagram it sends, the drop-th (counting from 0), as UDP may. */
typedef struct {
    zm_link_t inner;
    unsigned sent;
    unsigned drop;
} lossy_t;

static z_result_t lossy_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start, uint64_t end)
{
    lossy_t *x = l->ctx;
    if (x->sent++ == x->drop) {
        return Z_OK; /* gone on the way */
    }
    return x->inner.ops->send(&x->inner, batch, len, start, end);
}

static z_result_t lossy_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    lossy_t *x = l->ctx;
    x->inner.rx_deadline_ms = l->rx_deadline_ms;
    return x->inner.ops->recv(&x->inner, buf, cap, wait, n);
}

static z_result_t lossy_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    lossy_t *x = l->ctx;
    return x->inner.ops->wait_readable(&x->inner, timeout_ms);
}

static void lossy_shutdown(zm_link_t *l)
{
    lossy_t *x = l->ctx;
    zm_link_shutdown(&x->inner);
}

static void lossy_close(zm_link_t *l)
{
    lossy_t *x = l->ctx;
    zm_link_close(&x->inner);
}

static const zm_link_ops_t lossy_ops = {
    .mtu = ZM_UDP_MTU,
    .wait_readable = lossy_wait_readable,
    .send = lossy_send,
    .recv = lossy_recv,
    .shutdown = lossy_shutdown,
    .close = lossy_close,
};

/*
 * One fragment of a message lost: that message is dropped, the next one arrives whole and the
 * link goes on. With First markers (patch 1, what Rust and zmote agree on) a message after any
 * loss starts cleanly; without them (patch 0) a fragment after a loss may be any part of a
 * message, so what follows is dropped until a message's last fragment: a lost last fragment
 * costs the next message too.
 */
/* Which fragment of the message goes missing. */
enum { LOSE_FIRST, LOSE_MIDDLE, LOSE_LAST };

static void test_transport_loss(uint8_t patch, int which, bool second_arrives)
{
    static side_t a, b;
    static lossy_t lossy;
    /* 2048-byte batches: a 16 kB message goes in about 8 fragments, each a datagram */
    if (!pair_open(&a, &b, 2048, 2048)) {
        return;
    }
    memset(&lossy, 0, sizeof(lossy));
    lossy.inner = b.t.link;
    lossy.drop = UINT32_MAX;
    zm_link_init(&b.t.link, ZM_PROTO_UDP, &lossy_ops, &lossy);
    a.t.patch = patch;
    b.t.patch = patch;
    side_start(&a);
    side_start(&b);

    /* the message once whole, to count its fragments */
    CHECK_EQ_INT(send_put(&b.t, 16000), Z_OK);
    CHECK(wait_count(&a.log, 1));
    unsigned n = lossy.sent;
    CHECK(n > 4);
    lossy.drop = n + (which == LOSE_FIRST ? 0u : which == LOSE_MIDDLE ? n / 2u : n - 1u);
    CHECK_EQ_INT(send_put(&b.t, 16000), Z_OK); /* loses one of its fragments */
    CHECK_EQ_INT(send_put(&b.t, 17000), Z_OK);
    CHECK_EQ_INT(send_put(&b.t, 100), Z_OK); /* one FRAME */
    unsigned want = second_arrives ? 3u : 2u;
    CHECK_CTX(wait_count(&a.log, want), "patch %u, fragment %d lost", (unsigned)patch, which);
    rx_log_t got = log_now(&a.log);
    CHECK_EQ_INT(got.count, want);
    CHECK_EQ_INT(got.last_len, 100);
    CHECK(!got.bad);
    CHECK(lossy.sent > lossy.drop);
    pair_close(&a, &b);
}
#endif

int main(void)
{
    test_port_datagrams();
#if Z_FEATURE_MULTI_THREAD
    test_port_shutdown();
#endif
    test_link_batches();
    test_link_demux();
    test_stateless_handshake();
    test_link_table_bound();
#if Z_FEATURE_MULTI_THREAD
    test_link_threads();
#endif
#if Z_FEATURE_MULTI_THREAD && Z_FEATURE_FRAGMENTATION
    test_transport_pair();
    for (uint8_t patch = 0; patch <= 1; patch++) {
        test_transport_loss(patch, LOSE_FIRST, true);
        test_transport_loss(patch, LOSE_MIDDLE, true);
        test_transport_loss(patch, LOSE_LAST, patch == 1); /* without markers, the next goes too */
    }
#endif
    return CHECK_DONE();
}
