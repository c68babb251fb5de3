/*
 * Reassembly of FRAGMENTs and its budgets (transport/rx.c), driven through zm_transport_rx_batch
 * on receive states made up here, each fragment alone in a batch of any length. Checked: the
 * messages of two priorities interleaved on one reliable channel both arrive; a delivered
 * message's buffer larger than a batch goes back; a message over a peer's budget is dropped and
 * the link stays; at the node's budget a small message takes the room of an idle large one, a
 * large one never that of a smaller one; a session's full budget leaves another session's whole;
 * a reassembly silent for a lease is freed. In a no-heap
 * build: a small request never takes a block of a larger class, and reassembly takes its own.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proto/codec.h"
#include "transport/internal.h"
#include "transport/account.h"
#include "util/alloc.h"

#if Z_FEATURE_MULTICAST_TRANSPORT && Z_FEATURE_FRAGMENTATION

#define BATCH 8192u

static struct {
    unsigned n;
    size_t last_len;
    bool last_ok;   /* the payload had the pattern of its length */
    uint8_t last_prio_tag;
} heard;

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)ctx;
    (void)t;
    (void)reliable;
    if (m->id != ZM_MID_N_PUSH) {
        return;
    }
    zm_slice_t p = m->body.push.body.put.payload;
    heard.n++;
    heard.last_len = p.len;
    heard.last_ok = true;
    for (size_t i = 1; i < p.len; i++) {
        heard.last_ok = heard.last_ok && p.ptr[i] == (uint8_t)(i * 7u + p.ptr[0]);
    }
    heard.last_prio_tag = p.len > 0 ? p.ptr[0] : 0;
}

/* Two sessions' accounts and reassembly: the transports made here are the first one's, unless
 * said otherwise. */
static zm_account_t account[2];
static zm_defrag_share_t share[2];

static size_t held_of(unsigned session) { return zm_account_held(&account[session], ZM_HELD_FRAGS); }
static size_t frag_held(void) { return held_of(0); }

/* A receive state as a member's, with or without QoS, each channel's next SN 1. */
static void rx_init(zm_transport_t *t, bool qos, uint32_t lease_ms)
{
    memset(t, 0, sizeof(*t));
    for (unsigned i = 0; i < 2; i++) {
        share[i].account = &account[i];
    }
    t->share = &share[0];
    t->member = true;
    t->qos = qos;
    t->patch = 1;
    t->sn_mask = ZM_SN_MASK_DEFAULT;
    t->batch_size = BATCH;
    t->remote_lease_ms = lease_ms;
    t->on_message = on_message;
    t->tx_frame = -1;
}

/* A PUSH whose payload of len bytes starts with tag, encoded whole: the bytes to cut. */
typedef struct {
    uint8_t *buf;
    size_t len;
    size_t off; /* what was sent of it */
    uint32_t sn;
    bool reliable;
    uint8_t prio;
} msg_t;

static void msg_make(msg_t *m, size_t len, uint8_t tag, bool reliable, uint8_t prio)
{
    uint8_t *payload = malloc(len);
    for (size_t i = 0; i < len; i++) {
        payload[i] = (uint8_t)(i * 7u + tag);
    }
    payload[0] = tag;
    zm_network_msg_t n;
    memset(&n, 0, sizeof(n));
    n.id = ZM_MID_N_PUSH;
    n.body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    n.body.push.wire_expr.has_suffix = true;
    n.body.push.wire_expr.suffix = zm_slice("rx/frag", 7);
    n.body.push.body_id = ZM_MID_PUT;
    n.body.push.body.put.payload = zm_slice(payload, len);
    memset(m, 0, sizeof(*m));
    m->buf = malloc(len + 64u);
    zm_writer_t w;
    zm_writer_init(&w, m->buf, len + 64u);
    CHECK_EQ_INT(zm_network_encode(&w, &n), Z_OK);
    m->len = w.len;
    m->sn = 1;
    m->reliable = reliable;
    m->prio = prio;
    free(payload);
}

/* Sends the next n bytes of m (the rest if n is 0) as one FRAGMENT: what rx_batch returned. */
static z_result_t msg_send(zm_transport_t *t, msg_t *m, size_t n)
{
    if (n == 0 || m->off + n > m->len) {
        n = m->len - m->off;
    }
    zm_fragment_t f;
    memset(&f, 0, sizeof(f));
    f.reliable = m->reliable;
    f.sn = m->sn++;
    f.has_qos = t->qos;
    f.qos = m->prio;
    f.first = m->off == 0;
    f.more = m->off + n < m->len;
    f.payload = zm_slice(m->buf + m->off, n);
    m->off += n;
    uint8_t *batch = malloc(n + 32u);
    zm_writer_t w;
    zm_writer_init(&w, batch, n + 32u);
    CHECK_EQ_INT(zm_fragment_encode(&w, &f), Z_OK);
    z_result_t rc = zm_transport_rx_batch(t, zm_slice(batch, w.len));
    free(batch);
    return rc;
}

static void msg_free(msg_t *m) { free(m->buf); }

/* Two priorities' messages interleaved on the reliable channel, as Rust sends them: both arrive. */
static void test_interleaved_priorities(void)
{
    zm_transport_t t;
    rx_init(&t, true, 10000);
    memset(&heard, 0, sizeof(heard));
    msg_t a, b;
    msg_make(&a, 3 * BATCH, 2, true, 2);
    msg_make(&b, 5 * BATCH, 5, true, 5);
    for (int k = 0; k < 6; k++) {
        if (a.off < a.len) {
            CHECK_EQ_INT(msg_send(&t, &a, BATCH), Z_OK);
        }
        CHECK_EQ_INT(msg_send(&t, &b, BATCH), Z_OK);
    }
    CHECK_EQ_INT(heard.n, 2);
    CHECK(heard.last_ok);
    CHECK_EQ_INT(heard.last_len, 5 * BATCH);
    CHECK_EQ_INT(heard.last_prio_tag, 5);
    /* both delivered, both larger than a batch: nothing held */
    CHECK_EQ_INT(frag_held(), 0);
    msg_free(&a);
    msg_free(&b);
    zm_transport_defrag_free(&t);
}

/* Unfinished messages on one peer's channels up to its budget: the next is dropped, the link
 * stays, and the others complete. */
static void test_peer_budget(void)
{
    zm_transport_t t;
    rx_init(&t, true, 10000);
    memset(&heard, 0, sizeof(heard));
    msg_t m[8];
    size_t part = ZM_FRAG_MAX_SIZE / 2u;
    unsigned held_n = 0;
    bool dropped = false;
    for (unsigned k = 0; k < 8 && !dropped; k++) {
        msg_make(&m[k], part, (uint8_t)k, true, (uint8_t)k);
        size_t before = frag_held();
        CHECK_EQ_INT(msg_send(&t, &m[k], part - 1000u), Z_OK); /* over the budget: Z_OK, the link stays */
        CHECK(frag_held() <= ZM_FRAG_PEER_BYTES_MAX);
        dropped = frag_held() == before;
        held_n += dropped ? 0u : 1u;
    }
    CHECK(dropped);
    CHECK(held_n >= 1 && held_n < 8);
    CHECK_EQ_INT(msg_send(&t, &m[held_n], 0), Z_OK); /* the rest of the dropped one: ignored */
    CHECK_EQ_INT(heard.n, 0);
    for (unsigned k = 0; k < held_n; k++) {
        CHECK_EQ_INT(msg_send(&t, &m[k], 0), Z_OK);
        CHECK_EQ_INT(heard.n, k + 1);
        CHECK(heard.last_ok);
        CHECK_EQ_INT(heard.last_len, part);
    }
    CHECK_EQ_INT(frag_held(), 0);
    for (unsigned k = 0; k <= held_n; k++) {
        msg_free(&m[k]);
    }
    zm_transport_defrag_free(&t);
}

#define HOLDERS 8

/*
 * The node's budget full of large unfinished messages from idle peers: a small one takes the
 * room of the one silent longest, whose message is lost; a large one takes none from small ones.
 */
static void test_node_budget(void)
{
    static zm_transport_t hold[HOLDERS];
    static msg_t hm[HOLDERS];
    memset(&heard, 0, sizeof(heard));
    size_t part = (ZM_FRAG_PEER_BYTES_MAX < ZM_FRAG_MAX_SIZE ? ZM_FRAG_PEER_BYTES_MAX : ZM_FRAG_MAX_SIZE) * 3u / 4u;
    unsigned n = 0;
    /* as many holders as the budget takes, each a little older than the next */
    while (n < HOLDERS) {
        rx_init(&hold[n], false, 10000);
        msg_make(&hm[n], part + 1000u, (uint8_t)(10 + n), true, ZM_PRIO_DATA);
        size_t before = frag_held();
        CHECK_EQ_INT(msg_send(&hold[n], &hm[n], part), Z_OK);
        size_t after = frag_held();
        CHECK(after <= ZM_FRAG_BYTES_MAX);
        if (after <= before) { /* it took another's room: the budget is full */
            break;
        }
        for (unsigned k = 0; k <= n; k++) {
            hold[k].defrag->slot[1].last_ms -= 1000u; /* all of them silent a while, the first longest */
        }
        n++;
    }
    CHECK(n >= 1 && n < HOLDERS);
    /* the newest evicted the oldest: its message is lost, the others arrive */
    size_t full = frag_held();
    CHECK_EQ_INT(msg_send(&hold[0], &hm[0], 0), Z_OK);
    CHECK_EQ_INT(heard.n, 0);
    CHECK(frag_held() <= full);
    hold[n].defrag->slot[1].last_ms -= 1000u;

    /* a small message from another peer takes a large one's room: it arrives */
    zm_transport_t small;
    rx_init(&small, false, 10000);
    msg_t s;
    msg_make(&s, 4 * BATCH, 99, true, ZM_PRIO_DATA);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(msg_send(&small, &s, BATCH), Z_OK);
    }
    CHECK(frag_held() <= ZM_FRAG_BYTES_MAX);
    CHECK_EQ_INT(msg_send(&small, &s, 0), Z_OK);
    CHECK_EQ_INT(heard.n, 1);
    CHECK(heard.last_ok);
    CHECK_EQ_INT(heard.last_prio_tag, 99);

    /* the holders finish: one more lost its room to the small message, the rest arrive */
    unsigned delivered = 0;
    for (unsigned k = 1; k <= n; k++) {
        unsigned before = heard.n;
        CHECK_EQ_INT(msg_send(&hold[k], &hm[k], 0), Z_OK);
        delivered += heard.n - before;
        CHECK(heard.n == before || (heard.last_ok && heard.last_prio_tag == 10 + k));
    }
    CHECK_EQ_INT(delivered, n - 1);
    CHECK_EQ_INT(frag_held(), 0);

    /* small unfinished messages fill the budget: a large one takes none of their room */
    size_t each = ZM_NO_HEAP ? ZM_FRAG_MAX_SIZE : ZM_FRAG_BYTES_MAX / HOLDERS;
    for (unsigned k = 0; k < HOLDERS; k++) {
        msg_free(&hm[k]);
        zm_transport_defrag_free(&hold[k]);
        rx_init(&hold[k], false, 10000);
        msg_make(&hm[k], each, (uint8_t)k, true, ZM_PRIO_DATA);
        CHECK_EQ_INT(msg_send(&hold[k], &hm[k], each - 100u), Z_OK);
    }
    size_t smalls = frag_held();
    CHECK(smalls <= ZM_FRAG_BYTES_MAX);
    msg_t large;
    msg_make(&large, ZM_FRAG_MAX_SIZE - 100u, 77, true, ZM_PRIO_DATA);
    zm_transport_t big;
    rx_init(&big, false, 10000);
    unsigned before = heard.n;
    while (large.off < large.len) { /* in parts larger than each small one's room */
        CHECK_EQ_INT(msg_send(&big, &large, 2u * each), Z_OK);
        CHECK(frag_held() <= ZM_FRAG_BYTES_MAX);
    }
    if (!ZM_NO_HEAP) { /* every small one still there: the large one was dropped */
        CHECK_EQ_INT(heard.n, before);
        for (unsigned k = 0; k < HOLDERS; k++) {
            CHECK(hold[k].defrag->slot[1].buf != NULL);
        }
    }
    for (unsigned k = 0; k < HOLDERS; k++) {
        zm_transport_defrag_free(&hold[k]);
        msg_free(&hm[k]);
    }
    CHECK_EQ_INT(frag_held(), 0);
    zm_transport_defrag_free(&big);
    zm_transport_defrag_free(&small);
    msg_free(&large);
    msg_free(&s);
}

/*
 * Each session has its own reassembly budget: one whose budget is full of small unfinished
 * messages (none large enough to give way to a large one) leaves another session's large message
 * its whole room, and the other's holds nothing of the first's.
 */
static void test_sessions_apart(void)
{
    static zm_transport_t hold[HOLDERS];
    static msg_t hm[HOLDERS];
    memset(&heard, 0, sizeof(heard));
    /* no heap: the sessions draw on one pool of blocks, of which the second's message needs one */
    unsigned holders = ZM_NO_HEAP ? (ZM_FRAG_POOL_BLOCKS < HOLDERS ? ZM_FRAG_POOL_BLOCKS : HOLDERS) - 1u : HOLDERS;
    if (holders == 0) {
        return;
    }
    size_t each = ZM_NO_HEAP ? ZM_FRAG_MAX_SIZE : ZM_FRAG_BYTES_MAX / HOLDERS;
    for (unsigned k = 0; k < holders; k++) {
        rx_init(&hold[k], false, 10000);
        msg_make(&hm[k], each, (uint8_t)k, true, ZM_PRIO_DATA);
        CHECK_EQ_INT(msg_send(&hold[k], &hm[k], each - 100u), Z_OK);
    }
    CHECK(held_of(0) > 0 && held_of(0) <= ZM_FRAG_BYTES_MAX);
    CHECK_EQ_INT(held_of(1), 0);
    msg_t large;
    msg_make(&large, ZM_FRAG_MAX_SIZE - 100u, 77, true, ZM_PRIO_DATA);
    zm_transport_t other;
    rx_init(&other, false, 10000);
    other.share = &share[1];
    size_t first = held_of(0);
    while (large.off < large.len) {
        CHECK_EQ_INT(msg_send(&other, &large, 2u * each), Z_OK);
        CHECK_EQ_INT(held_of(0), first); /* the first session's reassemblies are left alone */
    }
    CHECK_EQ_INT(heard.n, 1);
    CHECK(heard.last_ok);
    CHECK_EQ_INT(heard.last_prio_tag, 77);
    CHECK_EQ_INT(held_of(1), 0); /* delivered, larger than a batch: its buffer went back */
    for (unsigned k = 0; k < holders; k++) {
        zm_transport_defrag_free(&hold[k]);
        msg_free(&hm[k]);
    }
    CHECK_EQ_INT(held_of(0), 0);
    CHECK_EQ_INT(zm_account_held(&account[0], ZM_HELD_KINDS), 0);
    zm_transport_defrag_free(&other);
    msg_free(&large);
}

/* A reassembly that heard nothing for a lease is freed at the peer's first batch after the lease
 * looked at the link. */
static void test_idle_for_a_lease(void)
{
    zm_transport_t t;
    rx_init(&t, false, 1000);
    memset(&heard, 0, sizeof(heard));
    msg_t a;
    msg_make(&a, 4 * BATCH, 1, true, ZM_PRIO_DATA);
    CHECK_EQ_INT(msg_send(&t, &a, BATCH), Z_OK);
    CHECK(frag_held() > 0);
    static const uint8_t keep_alive[] = {ZM_MID_KEEP_ALIVE};
    CHECK_EQ_INT(zm_transport_rx_batch(&t, zm_slice(keep_alive, 1)), Z_OK);
    CHECK(frag_held() > 0); /* not silent for a lease yet */
    /* its last fragment a lease and more ago, and so the last look */
    t.defrag->slot[1].last_ms -= 1500u;
    t.defrag_sweep_ms -= 1500u;
    CHECK_EQ_INT(zm_transport_rx_batch(&t, zm_slice(keep_alive, 1)), Z_OK);
    CHECK(frag_held() > 0); /* the lease has not looked since the last batch */
    (void)zm_transport_heard_ms(&t, (uint32_t)zm_port_clock_ms());
    CHECK_EQ_INT(zm_transport_rx_batch(&t, zm_slice(keep_alive, 1)), Z_OK);
    CHECK_EQ_INT(frag_held(), 0);
    CHECK_EQ_INT(msg_send(&t, &a, 0), Z_OK); /* the rest: a message with no start, ignored */
    CHECK_EQ_INT(heard.n, 0);
    msg_free(&a);
    zm_transport_defrag_free(&t);
}
#endif

#if ZM_NO_HEAP
#define MANY 4096

/* Small requests exhaust their class and fail: no batch block goes; reassembly has its own pool. */
static void test_pool_classes(void)
{
    zm_pool_stat_t st[16];
    size_t count = zm_pool_stats(st, 16);
    CHECK(count >= 2 && count <= 16);
    size_t batch_class = 0;
    while (batch_class < count && st[batch_class].size < ZM_BATCH_UNICAST_SIZE + 2u) {
        batch_class++;
    }
    CHECK(batch_class < count);
    size_t batch_used = st[batch_class].used;
    static void *got[MANY];
    size_t n = 0;
    while (n < MANY && (got[n] = zm_alloc(20)) != NULL) {
        n++;
    }
    CHECK(n < MANY);
    CHECK_EQ_INT(n, st[0].count - st[0].used); /* the smallest class, and nothing else */
    zm_pool_stat_t now[16];
    (void)zm_pool_stats(now, 16);
    for (size_t i = 1; i < count; i++) {
        CHECK_EQ_INT(now[i].used, st[i].used);
    }
    void *batch = zm_alloc(ZM_BATCH_UNICAST_SIZE);
    CHECK(batch != NULL);
    zm_free(batch);
#if Z_FEATURE_FRAGMENTATION
    /* reassembly: blocks of its own pool, the last, and no more than it has */
    static void *frag[ZM_FRAG_POOL_BLOCKS + 1];
    for (size_t i = 0; i <= ZM_FRAG_POOL_BLOCKS; i++) {
        frag[i] = zm_alloc_frag(ZM_FRAG_MAX_SIZE);
        CHECK((frag[i] != NULL) == (i < ZM_FRAG_POOL_BLOCKS));
    }
    (void)zm_pool_stats(now, 16);
    CHECK_EQ_INT(now[count - 1].used, ZM_FRAG_POOL_BLOCKS);
    CHECK_EQ_INT(now[batch_class].used, batch_used);
    for (size_t i = 0; i < ZM_FRAG_POOL_BLOCKS; i++) {
        zm_free(frag[i]);
    }
#endif
    while (n > 0) {
        zm_free(got[--n]);
    }
}
#endif

int main(void)
{
#if Z_FEATURE_MULTICAST_TRANSPORT && Z_FEATURE_FRAGMENTATION
    test_interleaved_priorities();
    test_peer_budget();
    test_node_budget();
    test_sessions_apart();
    test_idle_for_a_lease();
#endif
#if ZM_NO_HEAP
    test_pool_classes();
#endif
    return CHECK_DONE();
}
