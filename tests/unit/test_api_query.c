/*
 * Queries over real sessions in one process, counted by the allocator: a peer listening on
 * loopback TCP with a queryable, another connecting and getting. A steady stream of gets costs
 * exactly the get's own records (its table entry and its closure) and nothing per reply nor per
 * query answered; latest consolidation adds one kept reply per key. Then every allocation of a
 * get's and a kept query's life fails in turn: each failure is an error code or a lost reply,
 * never a crash or a leak, and the sessions stay usable. Waits are on condvars with deadlines.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "util/alloc.h"
#include "zenoh-pico.h"
#include "zmote/port.h"

static atomic_long allocs;
static atomic_long frees;
static atomic_long attempts; /* allocations asked for, failed ones included */
static atomic_long fail_at;  /* the attempt that fails, 0: none */

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    long n = atomic_fetch_add(&attempts, 1) + 1;
    if (n == atomic_load(&fail_at)) {
        return NULL;
    }
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr != NULL) {
        atomic_fetch_add(&frees, 1);
    }
    free(ptr);
}

static long live(void) { return atomic_load(&allocs) - atomic_load(&frees); }

static uint16_t free_port(void)
{
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

static z_result_t open_peer(z_owned_session_t *s, const char *listen, const char *connect)
{
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    if (listen != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    }
    if (connect != NULL) {
        zp_config_insert(z_loan_mut(c), Z_CONFIG_CONNECT_KEY, connect);
    }
    return z_open(s, z_move(c), NULL);
}

/* ---- the getting side: replies counted, ends awaited ------------------------------------------------ */

static z_owned_mutex_t lock;
static z_owned_condvar_t changed;
static unsigned replies;
static unsigned ends;

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(lock));
    replies += z_reply_is_ok(reply) ? 1u : 0u;
    z_condvar_signal(z_loan_mut(changed));
    z_mutex_unlock(z_loan_mut(lock));
}

static void on_end(void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(lock));
    ends++;
    z_condvar_signal(z_loan_mut(changed));
    z_mutex_unlock(z_loan_mut(lock));
}

static unsigned ends_now(void)
{
    z_mutex_lock(z_loan_mut(lock));
    unsigned n = ends;
    z_mutex_unlock(z_loan_mut(lock));
    return n;
}

/* Waits until n gets ended (up to ms); false on timeout. */
static bool wait_ends(unsigned n, uint64_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    z_mutex_lock(z_loan_mut(lock));
    while (ends < n && zm_port_clock_ms() < deadline) {
        z_clock_t until = z_clock_now();
        until.mono_ms += 50;
        z_condvar_wait_until(z_loan_mut(changed), z_loan_mut(lock), &until);
    }
    bool ok = ends >= n;
    z_mutex_unlock(z_loan_mut(lock));
    return ok;
}

static z_result_t get(const z_loaned_session_t *s, const char *key, z_consolidation_mode_t mode)
{
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, key);
    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation.mode = mode;
    o.timeout_ms = 5000;
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, NULL);
    return z_get(s, z_loan(ke), "", z_move(cb), &o);
}

/* ---- the answering side -------------------------------------------------------------------------- */

static atomic_bool keep_queries;   /* clone each query and answer it later, from the test's thread */
static z_owned_query_t kept;
static atomic_bool kept_ready;

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    if (atomic_load(&keep_queries)) {
        if (z_query_clone(&kept, query) == Z_OK) {
            atomic_store(&kept_ready, true);
        }
        return;
    }
    z_owned_bytes_t b;
    z_bytes_from_static_str(&b, "answer");
    z_result_t r = z_query_reply(query, z_query_keyexpr(query), z_move(b), NULL);
    (void)r; /* may fail when an allocation is made to fail */
}

typedef struct {
    z_owned_session_t a, b;
    z_owned_queryable_t q;
} pair_t;

static void pair_open(pair_t *p)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    CHECK_EQ_INT(open_peer(&p->a, listen, NULL), Z_OK);
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "qa/**");
    z_owned_closure_query_t cb;
    z_closure(&cb, on_query, NULL, NULL);
    CHECK_EQ_INT(z_declare_queryable(z_loan(p->a), &p->q, z_loan(ke), z_move(cb), NULL), Z_OK);
    CHECK_EQ_INT(open_peer(&p->b, NULL, listen), Z_OK);
}

static void pair_close(pair_t *p)
{
    z_drop(z_move(p->q));
    z_drop(z_move(p->b));
    z_drop(z_move(p->a));
}

/* Until gets reach the queryable (the peers' declarations have crossed): a get with a reply. */
static void warm_up(pair_t *p)
{
    for (int i = 0; i < 100; i++) {
        z_mutex_lock(z_loan_mut(lock));
        unsigned r0 = replies, e0 = ends;
        z_mutex_unlock(z_loan_mut(lock));
        CHECK_EQ_INT(get(z_loan(p->b), "qa/x", Z_CONSOLIDATION_MODE_NONE), Z_OK);
        CHECK(wait_ends(e0 + 1, 5000));
        z_mutex_lock(z_loan_mut(lock));
        bool replied = replies > r0;
        z_mutex_unlock(z_loan_mut(lock));
        if (replied) {
            return;
        }
        zm_port_sleep_ms(10);
    }
    CHECK_CTX(false, "%s", "no reply came");
}

static void test_allocs_per_get(void)
{
    long before = live();
    pair_t p;
    pair_open(&p);
    warm_up(&p);
    enum { GETS = 200 };
    /* none: the get's record and its closure; nothing for the query answered, nor the reply */
    long a0 = atomic_load(&allocs);
    unsigned r0 = replies, e0 = ends;
    for (int i = 0; i < GETS; i++) {
        CHECK_EQ_INT(get(z_loan(p.b), "qa/x", Z_CONSOLIDATION_MODE_NONE), Z_OK);
        CHECK(wait_ends(e0 + (unsigned)i + 1, 5000));
    }
    long used = atomic_load(&allocs) - a0;
    CHECK_EQ_INT(replies - r0, GETS);
    CHECK_CTX(used == 2 * GETS, "%ld allocations for %d gets (none), 2 each expected", used, GETS);
    /* latest: one kept reply more per get, its one key */
    a0 = atomic_load(&allocs);
    r0 = replies;
    e0 = ends;
    for (int i = 0; i < GETS; i++) {
        CHECK_EQ_INT(get(z_loan(p.b), "qa/x", Z_CONSOLIDATION_MODE_LATEST), Z_OK);
        CHECK(wait_ends(e0 + (unsigned)i + 1, 5000));
    }
    used = atomic_load(&allocs) - a0;
    CHECK_EQ_INT(replies - r0, GETS);
    CHECK_CTX(used == 3 * GETS, "%ld allocations for %d gets (latest), 3 each expected", used, GETS);
    pair_close(&p);
    CHECK_EQ_INT(live(), before);
}

/*
 * One get answered from a kept query: clone in the callback, reply and drop from here. With the
 * allocation number n failing (0: none), it either completes or fails cleanly; true when no
 * allocation failed within it.
 */
static bool kept_query_life(pair_t *p, long n)
{
    atomic_store(&keep_queries, true);
    atomic_store(&kept_ready, false);
    unsigned e0 = ends_now();
    long a0 = atomic_load(&attempts);
    atomic_store(&fail_at, n > 0 ? a0 + n : 0);
    z_result_t r = get(z_loan(p->b), "qa/y", Z_CONSOLIDATION_MODE_LATEST);
    if (r == Z_OK) {
        uint64_t deadline = zm_port_clock_ms() + 2000;
        while (!atomic_load(&kept_ready) && zm_port_clock_ms() < deadline && ends_now() == e0) {
            zm_port_sleep_ms(1); /* the callback's clone: no event crosses from it but this flag */
        }
        if (atomic_load(&kept_ready)) {
            z_owned_bytes_t b;
            z_bytes_copy_from_str(&b, "later");
            (void)z_query_reply(z_loan(kept), z_query_keyexpr(z_loan(kept)), z_move(b), NULL);
            z_drop(z_move(kept));
        }
        CHECK(wait_ends(e0 + 1, 8000)); /* a final response or the timeout: it always ends */
    } else {
        CHECK(r == ZM_E_NOMEM);
    }
    long asked = atomic_load(&attempts) - a0;
    atomic_store(&fail_at, 0);
    atomic_store(&keep_queries, false);
    return n == 0 || n > asked;
}

static void test_failing_allocations(void)
{
    long before = live();
    pair_t p;
    pair_open(&p);
    warm_up(&p);
    long base = live();
    CHECK(kept_query_life(&p, 0));
    CHECK_EQ_INT(live(), base);
    int lives = 0;
    for (long n = 1; n < 40 && !kept_query_life(&p, n); n++) {
        lives++;
        CHECK_CTX(live() == base, "allocation %ld failing leaked %ld blocks", n, live() - base);
    }
    CHECK_CTX(lives >= 4, "%d allocations in a kept query's life", lives); /* get, closure, query, reply */
    warm_up(&p); /* still usable */
    pair_close(&p);
    CHECK_EQ_INT(live(), before);
}

/* Declares a publisher (or a querier) on key with allocation n failing (0: none); undeclares it. */
static z_result_t sender_life(const z_loaned_session_t *s, bool querier, long n, long *asked)
{
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "qa/sender");
    long a0 = atomic_load(&attempts);
    atomic_store(&fail_at, n > 0 ? a0 + n : 0);
    z_result_t r;
    if (querier) {
        z_owned_querier_t q;
        r = z_declare_querier(s, &q, z_loan(ke), NULL);
        if (r == Z_OK) {
            CHECK_EQ_INT(z_undeclare_querier(z_move(q)), Z_OK);
        }
    } else {
        z_owned_publisher_t pub;
        r = z_declare_publisher(s, &pub, z_loan(ke), NULL);
        if (r == Z_OK) {
            CHECK_EQ_INT(z_undeclare_publisher(z_move(pub)), Z_OK);
        }
    }
    *asked = atomic_load(&attempts) - a0;
    atomic_store(&fail_at, 0);
    return r;
}

/* A publisher or querier whose declaration runs out of memory leaves nothing declared: its key
 * expression, declared before it, goes with it; one undeclared takes its key along. */
static void test_failing_sender_declarations(void)
{
    long before = live();
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", free_port());
    z_owned_session_t s; /* alone: no peer's copy of its declarations counts */
    CHECK_EQ_INT(open_peer(&s, listen, NULL), Z_OK);
    for (int querier = 0; querier < 2; querier++) {
        long asked = 0;
        CHECK_EQ_INT(sender_life(z_loan(s), querier, 0, &asked), Z_OK); /* the tables it grows stay grown */
        long base = live();
        CHECK_EQ_INT(sender_life(z_loan(s), querier, 0, &asked), Z_OK);
        CHECK_EQ_INT(live(), base);
        CHECK_CTX(asked >= 3, "%ld allocations in a declaration", asked); /* its key copied, its key, its record */
        long all = asked;
        for (long n = 1; n <= all; n++) {
            z_result_t r = sender_life(z_loan(s), querier, n, &asked);
            CHECK_CTX(r == ZM_E_NOMEM || r == Z_OK, "allocation %ld failing: %d", n, (int)r);
            CHECK_CTX(live() == base, "allocation %ld failing leaked %ld blocks", n, live() - base);
        }
    }
    z_drop(z_move(s));
    CHECK_EQ_INT(live(), before);
}

#ifdef Z_FEATURE_UNSTABLE_API
/* A get waiting on a kept query ends when its token is cancelled; a cancelled token refuses new gets. */
static void test_cancellation(void)
{
    long before = live();
    pair_t p;
    pair_open(&p);
    warm_up(&p);
    z_owned_cancellation_token_t token;
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    atomic_store(&keep_queries, true);
    atomic_store(&kept_ready, false);
    unsigned e0 = ends_now();
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "qa/c");
    z_get_options_t o;
    z_get_options_default(&o);
    o.timeout_ms = 30000;
    z_owned_cancellation_token_t clone;
    CHECK_EQ_INT(z_cancellation_token_clone(&clone, z_loan(token)), Z_OK);
    o.cancellation_token = z_move(clone);
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, NULL);
    uint64_t t0 = zm_port_clock_ms();
    CHECK_EQ_INT(z_get(z_loan(p.b), z_loan(ke), "", z_move(cb), &o), Z_OK);
    while (!atomic_load(&kept_ready) && zm_port_clock_ms() < t0 + 5000) {
        zm_port_sleep_ms(1); /* the queryable's callback sets it: no event crosses from there */
    }
    CHECK(atomic_load(&kept_ready));
    CHECK_EQ_INT(ends_now(), e0); /* the query is held: the get waits */
    CHECK(!z_cancellation_token_is_cancelled(z_loan(token)));
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    CHECK(z_cancellation_token_is_cancelled(z_loan(token)));
    CHECK(wait_ends(e0 + 1, 2000)); /* at once, not at the 30 s timeout */
    CHECK(zm_port_clock_ms() - t0 < 5000);
    z_drop(z_move(kept)); /* its final response finds the get gone */
    atomic_store(&keep_queries, false);

    /* a cancelled token: the get is refused and its closure dropped */
    z_get_options_default(&o);
    CHECK_EQ_INT(z_cancellation_token_clone(&clone, z_loan(token)), Z_OK);
    o.cancellation_token = z_move(clone);
    z_closure(&cb, on_reply, on_end, NULL);
    CHECK_EQ_INT(z_get(z_loan(p.b), z_loan(ke), "", z_move(cb), &o), Z_ERR_CANCELLED);
    CHECK_EQ_INT(ends_now(), e0 + 2);
    z_drop(z_move(token));
    pair_close(&p);
    CHECK_EQ_INT(live(), before);
}

/* ---- queries held on the answering side: one reply each, no final until dropped ---------------- */

#define HELD_MAX 8
static z_owned_query_t held[HELD_MAX];
static atomic_uint n_held;

static void on_query_hold(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    unsigned i = atomic_load(&n_held);
    if (i < HELD_MAX && z_query_clone(&held[i], query) == Z_OK) {
        z_owned_bytes_t b;
        z_bytes_from_static_str(&b, "held");
        (void)z_query_reply(query, z_query_keyexpr(query), z_move(b), NULL);
        atomic_store(&n_held, i + 1);
    }
}

static bool wait_held(unsigned n)
{
    uint64_t deadline = zm_port_clock_ms() + 5000;
    while (atomic_load(&n_held) < n && zm_port_clock_ms() < deadline) {
        zm_port_sleep_ms(1); /* the queryable's callback counts them: no event crosses from there */
    }
    return atomic_load(&n_held) >= n;
}

static void held_drop(void)
{
    for (unsigned i = 0; i < atomic_load(&n_held); i++) {
        z_drop(z_move(held[i]));
    }
    atomic_store(&n_held, 0);
}

/* A get on key linked to a clone of token, its replies to fn. */
static z_result_t get_with(const z_loaned_session_t *s, const char *key, const z_loaned_cancellation_token_t *token,
                           void (*fn)(z_loaned_reply_t *reply, void *ctx), void *ctx)
{
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, key);
    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation.mode = Z_CONSOLIDATION_MODE_NONE;
    o.timeout_ms = 30000;
    z_owned_cancellation_token_t clone;
    CHECK_EQ_INT(z_cancellation_token_clone(&clone, token), Z_OK);
    o.cancellation_token = z_move(clone);
    z_owned_closure_reply_t cb;
    z_closure(&cb, fn, on_end, ctx);
    return z_get(s, z_loan(ke), "", z_move(cb), &o);
}

/* A reply callback that cancels the token it is given. */
static void on_reply_cancel(z_loaned_reply_t *reply, void *ctx)
{
    on_reply(reply, NULL);
    CHECK_EQ_INT(z_cancellation_token_cancel(ctx), Z_OK);
}

/* Checked by the joining thread: the check counters belong to the main thread. */
static z_result_t cancel_task_result;

static void *cancel_task(void *arg)
{
    cancel_task_result = z_cancellation_token_cancel(arg);
    return NULL;
}

/* Until b's gets on qc/ reach a's holding queryable (its declaration has crossed). */
static void warm_up_held(pair_t *p)
{
    z_owned_cancellation_token_t token;
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    for (int i = 0; i < 100 && atomic_load(&n_held) == 0; i++) {
        unsigned e0 = ends_now();
        CHECK_EQ_INT(get_with(z_loan(p->b), "qc/warm", z_loan(token), on_reply, NULL), Z_OK);
        uint64_t deadline = zm_port_clock_ms() + 5000;
        while (ends_now() == e0 && atomic_load(&n_held) == 0 && zm_port_clock_ms() < deadline) {
            zm_port_sleep_ms(1);
        }
        if (atomic_load(&n_held) == 0) {
            zm_port_sleep_ms(10); /* asked nobody: it ended at once */
        }
    }
    CHECK(atomic_load(&n_held) == 1);
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    held_drop();
    z_drop(z_move(token));
}

/*
 * One token shared by several gets ends them all at once; cancelling again, or after the gets
 * ended, does nothing more; a reply callback may cancel its own get's token (the get ends once
 * it returns); a cancel racing each get's own end, or its session's close, ends each get once.
 */
static void test_cancellation_shared(void)
{
    long before = live();
    pair_t p;
    pair_open(&p);
    z_view_keyexpr_t hk;
    z_view_keyexpr_from_str(&hk, "qc/**");
    z_owned_closure_query_t qcb;
    z_closure(&qcb, on_query_hold, NULL, NULL);
    z_owned_queryable_t hq;
    CHECK_EQ_INT(z_declare_queryable(z_loan(p.a), &hq, z_loan(hk), z_move(qcb), NULL), Z_OK);
    warm_up_held(&p);
    /* several gets, one token */
    z_owned_cancellation_token_t token;
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    unsigned e0 = ends_now();
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ_INT(get_with(z_loan(p.b), "qc/many", z_loan(token), on_reply, NULL), Z_OK);
    }
    CHECK(wait_held(4));
    CHECK_EQ_INT(ends_now(), e0);
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    CHECK(wait_ends(e0 + 4, 2000)); /* at once, or once a reply callback under way returns */
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    CHECK_EQ_INT(ends_now(), e0 + 4);
    held_drop(); /* their final responses find the gets gone */
    z_drop(z_move(token));

    /* a cancel after its gets ended */
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    e0 = ends_now();
    CHECK_EQ_INT(get_with(z_loan(p.b), "qa/x", z_loan(token), on_reply, NULL), Z_OK);
    CHECK(wait_ends(e0 + 1, 5000));
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
    CHECK(z_cancellation_token_is_cancelled(z_loan(token)));
    CHECK_EQ_INT(ends_now(), e0 + 1);
    z_drop(z_move(token));

    /* a reply callback cancels: its get and the token's other get end */
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    e0 = ends_now();
    CHECK_EQ_INT(get_with(z_loan(p.b), "qc/quiet", z_loan(token), on_reply, NULL), Z_OK);
    CHECK(wait_held(1));
    CHECK_EQ_INT(get_with(z_loan(p.b), "qc/cancel", z_loan(token), on_reply_cancel, z_loan_mut(token)), Z_OK);
    CHECK(wait_ends(e0 + 2, 5000)); /* at once, not at the 30 s timeout */
    CHECK(wait_held(2));
    held_drop();
    z_drop(z_move(token));

    /* cancels racing the gets' own ends */
    e0 = ends_now();
    for (unsigned i = 0; i < 50; i++) {
        CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
        CHECK_EQ_INT(get_with(z_loan(p.b), "qa/x", z_loan(token), on_reply, NULL), Z_OK);
        CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(token)), Z_OK);
        z_drop(z_move(token));
    }
    CHECK(wait_ends(e0 + 50, 5000));

    /* a cancel racing the close of the get's session */
    CHECK_EQ_INT(z_cancellation_token_new(&token), Z_OK);
    e0 = ends_now();
    CHECK_EQ_INT(get_with(z_loan(p.b), "qc/close", z_loan(token), on_reply, NULL), Z_OK);
    CHECK(wait_held(1));
    zm_task_t t;
    cancel_task_result = Z_EGENERIC;
    z_result_t started = zm_port_task_start(&t, cancel_task, z_loan_mut(token));
    CHECK_EQ_INT(started, Z_OK);
    z_drop(z_move(p.b));
    zm_port_task_join(&t);
    CHECK_EQ_INT(cancel_task_result, Z_OK);
    CHECK_EQ_INT(ends_now(), e0 + 1);
    held_drop();
    z_drop(z_move(token));
    z_drop(z_move(hq));
    pair_close(&p);
    CHECK_EQ_INT(live(), before);
}
#endif

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    CHECK_EQ_INT(z_mutex_init(&lock), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&changed), Z_OK);
    test_allocs_per_get();
    test_failing_allocations();
    test_failing_sender_declarations();
#ifdef Z_FEATURE_UNSTABLE_API
    test_cancellation();
    test_cancellation_shared();
#endif
    z_drop(z_move(changed));
    z_drop(z_move(lock));
    CHECK_EQ_INT(live(), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
