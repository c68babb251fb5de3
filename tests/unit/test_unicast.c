/*
 * The unicast transport over real loopback TCP: both handshake roles, small messages batched
 * into FRAMEs, messages too large for a batch cut into FRAGMENTs and reassembled, keep-alives,
 * lease expiry and CLOSE. Waits are on the receiving thread's own progress, bounded by deadlines.
 */
#include <stdlib.h>

#include "check.h"
#include "transport/transport.h"

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned count;
    size_t bytes;
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
        log->bytes += p.len;
    }
    log->count++;
    zm_port_condvar_broadcast(&log->cond);
    zm_port_mutex_unlock(&log->lock);
}

static bool wait_count(rx_log_t *log, unsigned n, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
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

typedef struct {
    zm_link_t listener;
    side_t *side;
    zm_transport_params_t params;
    z_result_t rc;
} acceptor_t;

static void *accept_main(void *arg)
{
    acceptor_t *a = arg;
    zm_link_t link;
    a->rc = zm_link_accept(&a->listener, &link, 5000);
    if (a->rc == Z_OK) {
        a->rc = zm_transport_accept(&a->side->t, &link, &a->params, 5000);
        if (a->rc != Z_OK) {
            zm_link_close(&link);
        }
    }
    return NULL;
}

static zm_transport_params_t params(uint8_t id, uint8_t whatami, uint16_t batch, uint64_t lease)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 2;
    p.zid.id[0] = id;
    p.zid.id[1] = 0x5a;
    p.whatami = whatami;
    p.batch_size = batch;
    p.lease_ms = lease;
    p.qos = true;
    return p;
}

static void side_init(side_t *s)
{
    memset(s, 0, sizeof(*s));
    CHECK_EQ_INT(zm_port_mutex_init(&s->log.lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&s->log.cond), Z_OK);
}

static void side_wire(side_t *s)
{
    s->t.on_message = on_message;
    s->t.ctx = &s->log;
    CHECK_EQ_INT(zm_port_task_start(&s->reader, read_loop, s), Z_OK);
}

/* Opens a pair: a accepts, b connects; returns false if the handshake failed. */
static bool pair_open(side_t *a, side_t *b, uint16_t batch_a, uint16_t batch_b, uint64_t lease_b)
{
    side_init(a);
    side_init(b);
    zm_endpoint_t ep;
    const char *listen = "tcp/127.0.0.1:0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, listen, strlen(listen), ZM_ENDPOINT_LISTEN), Z_OK);
    acceptor_t acc;
    memset(&acc, 0, sizeof(acc));
    CHECK_EQ_INT(zm_link_listen(&acc.listener, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&acc.listener, &port), Z_OK);
    acc.side = a;
    acc.params = params(1, ZM_WAI_PEER, batch_a, 10000);
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, accept_main, &acc), Z_OK);

    char conn[64];
    snprintf(conn, sizeof(conn), "tcp/127.0.0.1:%u", port);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, conn, strlen(conn), ZM_ENDPOINT_CONNECT), Z_OK);
    zm_link_t link;
    CHECK_EQ_INT(zm_link_open(&link, &ep, 5000), Z_OK);
    zm_transport_params_t pb = params(2, ZM_WAI_CLIENT, batch_b, lease_b);
    z_result_t rc = zm_transport_open(&b->t, &link, &pb, 5000);
    CHECK_EQ_INT(rc, Z_OK);
    zm_port_task_join(&task);
    zm_link_close(&acc.listener);
    CHECK_EQ_INT(acc.rc, Z_OK);
    if (rc != Z_OK || acc.rc != Z_OK) {
        return false;
    }
    /* what each side learnt of the other */
    CHECK_EQ_INT(a->t.remote_zid.id[0], 2);
    CHECK_EQ_INT(b->t.remote_zid.id[0], 1);
    CHECK_EQ_INT(a->t.remote_whatami, ZM_WAI_CLIENT);
    CHECK_EQ_INT(b->t.remote_whatami, ZM_WAI_PEER);
    uint16_t expect = batch_a < batch_b ? batch_a : batch_b;
    CHECK_EQ_INT(a->t.batch_size, expect);
    CHECK_EQ_INT(b->t.batch_size, expect);
    CHECK(a->t.qos && b->t.qos);
    CHECK_EQ_INT(a->t.patch, 1);
    CHECK_EQ_INT(a->t.remote_lease_ms, lease_b);
    side_wire(a);
    side_wire(b);
    return true;
}

static void pair_close(side_t *a, side_t *b)
{
    zm_transport_close(&b->t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&b->reader);
    zm_port_task_join(&a->reader);
    /* a saw the CLOSE (or the end of the stream) */
    CHECK(a->read_rc == ZM_E_CLOSED);
    zm_transport_close(&a->t, ZM_CLOSE_GENERIC);
    zm_transport_free(&a->t);
    zm_transport_free(&b->t);
    zm_port_condvar_destroy(&a->log.cond);
    zm_port_mutex_destroy(&a->log.lock);
    zm_port_condvar_destroy(&b->log.cond);
    zm_port_mutex_destroy(&b->log.lock);
}

static uint8_t big[1u << 20];

/* A PUT whose delivery the test counts on: BLOCK, so congestion control never drops it. */
static z_result_t send_put(zm_transport_t *t, size_t size, bool flush)
{
    for (size_t i = 0; i < size; i++) {
        big[i] = (uint8_t)(i * 7u + size);
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice("test/unicast", 12);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = zm_slice(big, size);
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_BLOCK | ZM_PRIO_DATA;
    return zm_transport_send(t, &m, true, ZM_PRIO_DATA, flush);
}

static void test_pubsub_both_ways(void)
{
    side_t a, b;
    if (!pair_open(&a, &b, 65535, 2048, 10000)) {
        return;
    }
    static const size_t sizes[] = {0, 8, 1000, 2040, 5000, 65536, 1u << 20};
    size_t total = 0;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        CHECK_EQ_INT(send_put(&b.t, sizes[i], false), Z_OK);
        CHECK_EQ_INT(send_put(&a.t, sizes[i], false), Z_OK);
        total += sizes[i];
    }
    CHECK(wait_count(&a.log, ZM_ARRAY_LEN(sizes), 5000));
    CHECK(wait_count(&b.log, ZM_ARRAY_LEN(sizes), 5000));
    CHECK_EQ_INT(a.log.bytes, total);
    CHECK_EQ_INT(b.log.bytes, total);
    CHECK(!a.log.bad && !b.log.bad);

    /* batching: 100 small puts stay in one batch until flushed */
    zm_transport_set_batching(&b.t, true);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(send_put(&b.t, 8, false), Z_OK);
    }
    CHECK(b.t.tx.len > 0);
    CHECK_EQ_INT(zm_transport_flush(&b.t), Z_OK);
    CHECK_EQ_INT(b.t.tx.len, 0);
    CHECK(wait_count(&a.log, ZM_ARRAY_LEN(sizes) + 100, 5000));
    zm_transport_set_batching(&b.t, false);

    /* an idle link sends keep-alives, and the peer's silence is noticed after its lease */
    uint64_t now = zm_port_clock_ms();
    b.t.last_tx_ms = now - 3000; /* as if idle for 3 s (its tx state: only this thread sends) */
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), Z_OK);
    CHECK(b.t.last_tx_ms >= now); /* a keep-alive went out */
    atomic_store(&b.t.last_rx_ms, (uint32_t)(now - 20001));
    CHECK_EQ_INT(zm_transport_lease_tick(&b.t), ZM_E_TIMEOUT);
    pair_close(&a, &b);
}

static void test_lease_units(void)
{
    side_t a, b;
    /* a lease that is not whole seconds travels in milliseconds */
    if (!pair_open(&a, &b, 4096, 4096, 2500)) {
        return;
    }
    CHECK_EQ_INT(a.t.remote_lease_ms, 2500);
    CHECK_EQ_INT(b.t.remote_lease_ms, 10000);
    pair_close(&a, &b);
}

static void test_refused(void)
{
    /* nothing listens: the connect fails cleanly */
    zm_endpoint_t ep;
    const char *listen = "tcp/127.0.0.1:0";
    zm_link_t l;
    CHECK_EQ_INT(zm_endpoint_parse(&ep, listen, strlen(listen), ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_link_listen(&l, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&l, &port), Z_OK);
    zm_link_close(&l);
    char conn[64];
    snprintf(conn, sizeof(conn), "tcp/127.0.0.1:%u", port);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, conn, strlen(conn), ZM_ENDPOINT_CONNECT), Z_OK);
    zm_link_t c;
    CHECK(zm_link_open(&c, &ep, 2000) != Z_OK);
}

int main(void)
{
    test_pubsub_both_ways();
    test_lease_units();
    test_refused();
    return CHECK_DONE();
}
