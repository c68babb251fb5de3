/*
 * Where puts go, against what peers declared: a node's publisher puts while a fake peer has
 * declared N subscribers that do not match it (N = 0, then 50 000), and the same with z_put on
 * an undeclared key. The routing decision reads counts kept as declarations change, so the rate
 * must not depend on N. Also how long the node takes to absorb 100 000 declarations. Built with
 * its own copy of the library whose per-peer bounds allow that many (see CMakeLists.txt).
 * Prints figures; decides nothing.
 */
#include <stdio.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "fake_peer.h"
#include "session/session.h"

#define PUTS 1000000u
#define NOISE 50000u
#define STORM 100000u

static atomic_uint synced;

static void on_sample(const zm_sample_t *smp, void *ctx)
{
    (void)smp;
    (void)ctx;
    atomic_fetch_add(&synced, 1u);
}

static void die(const char *what)
{
    fprintf(stderr, "bench_match: %s\n", what);
    exit(1);
}

/* Waits until the node has read everything f sent: a put from f reached it. */
static void sync_with(fake_t *f)
{
    unsigned before = atomic_load(&synced);
    if (fake_put(f, "sync", 4) != Z_OK) {
        die("sync put failed");
    }
    uint64_t deadline = zm_port_clock_ms() + 60000u;
    while (atomic_load(&synced) == before) {
        if (zm_port_clock_ms() > deadline) {
            die("the node did not answer");
        }
        zm_port_sleep_ms(1);
    }
}

static double put_rate(zm_session_t *s, const char *key, uint16_t key_id)
{
    zm_put_args_t a;
    zm_put_args_init(&a, key, strlen(key));
    a.key_id = key_id;
    uint64_t t0 = zm_port_time_ns();
    for (unsigned i = 0; i < PUTS; i++) {
        if (zm_session_put(s, &a) != Z_OK) {
            die("put failed");
        }
    }
    return PUTS / ((double)(zm_port_time_ns() - t0) / 1e9);
}

/* Declares n subscribers on keys disjoint from the publisher's; returns the time taken, in ms. */
static double declare_noise(fake_t *f, uint32_t first, uint32_t n)
{
    char key[32];
    uint64_t t0 = zm_port_time_ns();
    for (uint32_t i = 0; i < n; i++) {
        int len = snprintf(key, sizeof(key), "noise/%u/**", (unsigned)(first + i));
        if (fake_declare(f, ZM_DECL_SUBSCRIBER, first + i, key, (size_t)len, false) != Z_OK) {
            die("declare failed");
        }
    }
    sync_with(f);
    return (double)(zm_port_time_ns() - t0) / 1e6;
}

typedef struct {
    zm_session_t *s;
    uint16_t key_id;
    fake_t f;
} node_t;

/* A listening node with a publisher, and a fake peer connected to it. */
static void node_open(node_t *n)
{
    uint16_t port = 0;
    n->s = node_listen(&port, true);
    uint32_t sub = 0, pub = 0;
    if (n->s == NULL ||
        zm_session_declare_subscriber(n->s, "sync", 4, ZM_LOCALITY_REMOTE, on_sample, NULL, NULL, &sub) != Z_OK ||
        zm_session_declare_publisher(n->s, "bench/pub", 9, &pub, &n->key_id) != Z_OK) {
        die("node setup failed");
    }
    if (!fake_open(&n->f, port, 10000) || fake_declare(&n->f, ZM_DECL_FINAL, 0, NULL, 0, true) != Z_OK) {
        die("fake peer failed");
    }
    sync_with(&n->f);
}

static void node_close(node_t *n)
{
    fake_close(&n->f);
    zm_session_close(n->s);
}

static double max_d(double a, double b) { return a > b ? a : b; }

int main(void)
{
    /* two nodes, one whose peer declared NOISE subscribers; rounds interleaved, best of each */
    static node_t clean, noisy;
    node_open(&clean);
    node_open(&noisy);
    double ms = declare_noise(&noisy.f, 1, NOISE);
    double pub0 = 0, pubn = 0, put0 = 0, putn = 0;
    for (int round = 0; round < 5; round++) {
        pub0 = max_d(pub0, put_rate(clean.s, "bench/pub", clean.key_id));
        pubn = max_d(pubn, put_rate(noisy.s, "bench/pub", noisy.key_id));
        put0 = max_d(put0, put_rate(clean.s, "bench/put", 0));
        putn = max_d(putn, put_rate(noisy.s, "bench/put", 0));
    }
    printf("declarations absorbed: %u in %.1f ms\n", NOISE, ms);
    printf("publisher put, puts/s (best of 5): %.3gM with 0 foreign declarations, %.3gM with %u: ratio %.2f\n",
           pub0 / 1e6, pubn / 1e6, NOISE, pubn / pub0);
    printf("z_put on a key, puts/s (best of 5): %.3gM with 0 foreign declarations, %.3gM with %u: ratio %.2f\n",
           put0 / 1e6, putn / 1e6, NOISE, putn / put0);
    ms = declare_noise(&noisy.f, NOISE + 1, STORM - NOISE);
    printf("declarations absorbed: %u more, %u in all, in %.1f ms\n", STORM - NOISE, STORM, ms);
    node_close(&noisy);
    node_close(&clean);
    return 0;
}
