/*
 * Channels of replies and queries: replies without a network (order, rings, the end of the get,
 * steady traffic without allocation), a full ring of samples forgetting without allocation, and
 * queries over a session answering its own gets and another session's (a query a ring forgets
 * ends its get once the delivery that pushed it out is over). A counting allocator checks leaks
 * and steady states; a timing never decides a result.
 */
#include "query_util.h"

/* ---- channels of replies, without a network ----------------------------------------------------- */

/* Sends a reply through a channel's closure as a get would: borrowed parts. */
static void push_reply(const z_owned_closure_reply_t *c, const char *key, const char *text, bool ok)
{
    zm_api_reply_t r;
    memset(&r, 0, sizeof(r));
    r.state = ok ? ZM_API_REPLY_OK : ZM_API_REPLY_ERR;
    if (ok) {
        r.sample.keyexpr.key.slice = zm_api_slice_borrow(key, strlen(key));
        r.sample.payload.slice = zm_api_slice_borrow(text, strlen(text));
    } else {
        r.err.payload.slice = zm_api_slice_borrow(text, strlen(text));
        r.err.encoding.schema.slice = zm_api_slice_borrow("why", 3);
    }
    z_call(*z_loan(*c), &r);
}

static bool reply_is(const z_owned_reply_t *r, const char *key, const char *text)
{
    if (key == NULL) {
        return !z_reply_is_ok(z_loan(*r)) && text_is(&z_reply_err_payload(z_reply_err(z_loan(*r)))->slice, text) &&
               text_is(&z_reply_err_encoding(z_reply_err(z_loan(*r)))->schema.slice, "why");
    }
    const z_loaned_sample_t *s = z_reply_ok(z_loan(*r));
    return z_reply_is_ok(z_loan(*r)) && text_is(&z_sample_keyexpr(s)->key.slice, key) &&
           text_is(&z_sample_payload(s)->slice, text);
}

static void test_reply_channels(void)
{
    long before = live();
    z_owned_closure_reply_t cl;
    z_owned_fifo_handler_reply_t fifo;
    z_owned_reply_t r;

    CHECK_EQ_INT(z_fifo_channel_reply_new(&cl, &fifo, 0), Z_EINVAL);
    CHECK(!z_internal_check(cl) && !z_internal_check(fifo));
    CHECK_EQ_INT(z_fifo_channel_reply_new(NULL, &fifo, 1), Z_EINVAL);
    CHECK_EQ_INT(z_fifo_channel_reply_new(&cl, NULL, 1), Z_EINVAL);
    CHECK_EQ_INT(z_fifo_channel_reply_new(&cl, &fifo, 3), Z_OK);
    CHECK(z_internal_check(cl) && z_internal_check(fifo));
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &r), Z_CHANNEL_NODATA);
    CHECK(!z_internal_check(r));
    push_reply(&cl, "k/1", "one", true);
    push_reply(&cl, NULL, "oops", false);
    push_reply(&cl, "k/2", "two", true);
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &r), Z_OK);
    CHECK(reply_is(&r, "k/1", "one"));
    z_drop(z_move(r));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &r), Z_OK);
    CHECK(reply_is(&r, NULL, "oops"));
    z_drop(z_move(r));
    z_drop(z_move(r)); /* twice: nothing */
    CHECK_EQ_INT(z_recv(z_loan(fifo), &r), Z_OK);
    CHECK(reply_is(&r, "k/2", "two"));
    z_owned_reply_t kept;
    z_take(&kept, z_move(r));
    CHECK(!z_internal_check(r) && z_internal_check(kept));

    /* the end of the get: what is queued still comes out, then DISCONNECTED */
    push_reply(&cl, "k/3", "three", true);
    z_drop(z_move(cl));
    CHECK(!z_internal_check(cl));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &r), Z_OK);
    CHECK(reply_is(&r, "k/3", "three"));
    z_drop(z_move(r));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &r), Z_CHANNEL_DISCONNECTED);
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &r), Z_CHANNEL_DISCONNECTED);
    CHECK(!z_internal_check(r));
    z_drop(z_move(fifo));
    z_drop(z_move(fifo));
    CHECK_EQ_INT(z_recv(z_loan(fifo), &r), Z_ENULL); /* a dropped handler */
    CHECK_EQ_INT(z_fifo_handler_reply_recv(NULL, &r), Z_ENULL);
    CHECK(reply_is(&kept, "k/2", "two")); /* a received reply outlives its channel */
    z_drop(z_move(kept));

    /* a ring forgets its oldest reply; the handler dropped first discards what comes after */
    z_owned_ring_handler_reply_t ring;
    CHECK_EQ_INT(z_ring_channel_reply_new(&cl, &ring, 2), Z_OK);
    push_reply(&cl, "r/1", "1", true);
    push_reply(&cl, "r/2", "2", true);
    push_reply(&cl, NULL, "3", false);
    CHECK_EQ_INT(z_try_recv(z_loan(ring), &r), Z_OK);
    CHECK(reply_is(&r, "r/2", "2"));
    z_drop(z_move(r));
    CHECK_EQ_INT(z_ring_handler_reply_recv(z_loan(ring), NULL), Z_EINVAL);
    push_reply(&cl, "r/4", "4", true);
    z_drop(z_move(ring));
    push_reply(&cl, "r/5", "5", true);
    z_drop(z_move(cl));

    /* steady traffic through a fifo, and a full ring forgetting, allocate nothing */
    z_owned_fifo_handler_reply_t sf;
    z_owned_ring_handler_reply_t sr;
    z_owned_closure_reply_t fcl, rcl;
    CHECK_EQ_INT(z_fifo_channel_reply_new(&fcl, &sf, 2), Z_OK);
    CHECK_EQ_INT(z_ring_channel_reply_new(&rcl, &sr, 2), Z_OK);
    long a0 = 0;
    int ok = 0;
    for (int i = -8; i < 500; i++) {
        if (i == 0) {
            a0 = atomic_load(&allocs);
            ok = 0;
        }
        push_reply(&fcl, "steady/key", "a payload of some length", i % 3 != 0);
        push_reply(&rcl, "steady/key", "x", true);
        push_reply(&rcl, "steady/key", "y", true);
        push_reply(&rcl, "steady/key", "z", true);
        ok += z_recv(z_loan(sf), &r) == Z_OK;
        z_drop(z_move(r));
        ok += z_recv(z_loan(sr), &r) == Z_OK && reply_is(&r, "steady/key", "y");
        z_drop(z_move(r));
        ok += z_try_recv(z_loan(sr), &r) == Z_OK && reply_is(&r, "steady/key", "z");
        z_drop(z_move(r));
    }
    CHECK_EQ_INT(ok, 1500);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    z_drop(z_move(fcl));
    z_drop(z_move(rcl));
    z_drop(z_move(sf));
    z_drop(z_move(sr));
    CHECK_EQ_INT(live(), before);
}

/* ---- a full ring of samples forgets without allocating ------------------------------------------------ */

static void test_sample_ring_steady(void)
{
    long before = live();
    uint8_t data[80] = {0};
    zm_sample_t in;
    memset(&in, 0, sizeof(in));
    in.key = "ring/key";
    in.key_len = 8;
    in.payload = zm_slice(data, sizeof(data));
    z_owned_closure_sample_t cl;
    z_owned_ring_handler_sample_t ring;
    CHECK_EQ_INT(z_ring_channel_sample_new(&cl, &ring, 3), Z_OK);
    zm_api_sub_ctx_t *ctx = zm_api_sub_ctx_new(z_move(cl));
    z_owned_sample_t s;
    long a0 = 0;
    int ok = 0;
    for (int i = -8; i < 1000; i++) {
        if (i == 0) {
            a0 = atomic_load(&allocs);
            ok = 0;
        }
        for (int j = 0; j < 5; j++) { /* two more than fit: the two oldest are forgotten */
            data[0] = (uint8_t)j;
            zm_api_subscriber_deliver(&in, ctx);
        }
        ok += z_recv(z_loan(ring), &s) == Z_OK && z_loan(s)->payload.slice.start[0] == 2;
        z_drop(z_move(s));
    }
    CHECK_EQ_INT(ok, 1000);
    CHECK_EQ_INT(atomic_load(&allocs) - a0, 0);
    zm_api_subscriber_release(ctx);
    z_drop(z_move(ring));
    CHECK_EQ_INT(live(), before);
}

/* ---- channels of queries, over sessions ---------------------------------------------------------- */

static void test_query_channels_local(void)
{
    long before = live();
    char ep[64];
    listen_endpoint(ep, sizeof(ep));
    z_owned_session_t a;
    CHECK_EQ_INT(open_peer(&a, ep, NULL), Z_OK);
    z_view_keyexpr_t k;

    /* a fifo of queries: a get stays open while its query waits, and ends when it is dropped */
    z_owned_closure_query_t qcl;
    z_owned_fifo_handler_query_t qh;
    CHECK_EQ_INT(z_fifo_channel_query_new(&qcl, &qh, 4), Z_OK);
    z_owned_queryable_t qbl;
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key_of(&k, "qc/**"), z_move(qcl), NULL), Z_OK);

    z_owned_closure_reply_t rcl;
    z_owned_fifo_handler_reply_t rh;
    CHECK_EQ_INT(z_fifo_channel_reply_new(&rcl, &rh, 4), Z_OK);
    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation = z_query_consolidation_none();
    z_owned_bytes_t body;
    z_bytes_copy_from_str(&body, "question");
    o.payload = z_move(body);
    CHECK_EQ_INT(z_get(z_loan(a), key_of(&k, "qc/a"), "p=1", z_move(rcl), &o), Z_OK);
    z_owned_reply_t r;
    CHECK_EQ_INT(z_try_recv(z_loan(rh), &r), Z_CHANNEL_NODATA); /* not ended: the query waits */

    z_owned_query_t q;
    CHECK_EQ_INT(z_try_recv(z_loan(qh), &q), Z_OK);
    CHECK(z_internal_check(q));
    CHECK(text_is(&z_query_keyexpr(z_loan(q))->key.slice, "qc/a"));
    z_view_string_t params;
    z_query_parameters(z_loan(q), &params);
    CHECK(text_is(&z_loan(params)->slice, "p=1"));
    CHECK(text_is(&z_query_payload(z_loan(q))->slice, "question"));
    reply_text(z_loan(q), "first", Z_OK);
    reply_text(z_loan(q), "second", Z_OK);
    z_owned_bytes_t p;
    z_bytes_from_static_str(&p, "x");
    CHECK_EQ_INT(z_query_reply(z_loan(q), key_of(&k, "other/key"), z_move(p), NULL), ZM_E_KEYEXPR);
    CHECK_EQ_INT(z_recv(z_loan(rh), &r), Z_OK); /* replies come as they are sent */
    CHECK(reply_is(&r, "qc/a", "first"));
    z_drop(z_move(r));
    z_drop(z_move(q)); /* the end of the query, so of the get */
    CHECK_EQ_INT(z_recv(z_loan(rh), &r), Z_OK);
    CHECK(reply_is(&r, "qc/a", "second"));
    z_drop(z_move(r));
    CHECK_EQ_INT(z_recv(z_loan(rh), &r), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(rh));

    /* dropping the handler with queries queued ends their gets, without a reply */
    tally_t t1, t2;
    tally_init(&t1);
    tally_init(&t2);
    CHECK_EQ_INT(tally_get(z_loan(a), "qc/b", &t1, 0), Z_OK);
    CHECK_EQ_INT(tally_get(z_loan(a), "qc/c", &t2, 0), Z_OK);
    CHECK_EQ_INT(tally_ends(&t1) + tally_ends(&t2), 0);
    z_drop(z_move(qh));
    CHECK(tally_wait_end(&t1, 5000) && tally_wait_end(&t2, 5000));
    CHECK_EQ_INT(t1.ok + t2.ok, 0);
    /* the queryable still delivers, into a channel nobody reads: its gets end at once */
    tally_t t3;
    tally_init(&t3);
    CHECK_EQ_INT(tally_get(z_loan(a), "qc/d", &t3, 0), Z_OK);
    CHECK(tally_wait_end(&t3, 5000));
    z_drop(z_move(qbl));

    /* a ring of one query: the next query makes it forget the waiting one, whose get ends */
    z_owned_ring_handler_query_t ring;
    CHECK_EQ_INT(z_ring_channel_query_new(&qcl, &ring, 1), Z_OK);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key_of(&k, "qr/**"), z_move(qcl), NULL), Z_OK);
    tally_t t4, t5;
    tally_init(&t4);
    tally_init(&t5);
    CHECK_EQ_INT(tally_get(z_loan(a), "qr/one", &t4, 0), Z_OK);
    CHECK_EQ_INT(tally_ends(&t4), 0);
    CHECK_EQ_INT(tally_get(z_loan(a), "qr/two", &t5, 0), Z_OK);
    CHECK(tally_wait_end(&t4, 5000));
    CHECK_EQ_INT(t4.ok, 0);
    CHECK_EQ_INT(tally_ends(&t5), 0);
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_OK);
    CHECK(text_is(&z_query_keyexpr(z_loan(q))->key.slice, "qr/two"));
    reply_text(z_loan(q), "answer", Z_OK);
    z_drop(z_move(q));
    CHECK(tally_wait_end(&t5, 5000));
    CHECK_EQ_INT(t5.ok, 1);
    CHECK_EQ_INT(strcmp(t5.last, "answer"), 0);
    CHECK_EQ_INT(z_try_recv(z_loan(ring), &q), Z_CHANNEL_NODATA);
    z_drop(z_move(qbl)); /* the closure side goes: DISCONNECTED */
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_CHANNEL_DISCONNECTED);
    CHECK(!z_internal_check(q));
    z_drop(z_move(ring));

    tally_fini(&t1);
    tally_fini(&t2);
    tally_fini(&t3);
    tally_fini(&t4);
    tally_fini(&t5);
    z_drop(z_move(a));
    CHECK_EQ_INT(live(), before);
}

static void count_peer(const z_id_t *id, void *ctx)
{
    (void)id;
    (*(unsigned *)ctx)++;
}

/* A query closure in front of another one, counting what it forwards. */
typedef struct {
    z_owned_closure_query_t inner;
    z_owned_mutex_t lock;
    z_owned_condvar_t cond;
    unsigned seen;
} forward_t;

static void forward_query(z_loaned_query_t *query, void *ctx)
{
    forward_t *f = ctx;
    z_closure_query_call(z_loan(f->inner), query);
    z_mutex_lock(z_loan_mut(f->lock));
    f->seen++;
    z_condvar_signal(z_loan_mut(f->cond));
    z_mutex_unlock(z_loan_mut(f->lock));
}

static void forward_drop(void *ctx)
{
    forward_t *f = ctx;
    z_drop(z_move(f->inner));
}

static bool forward_wait(forward_t *f, unsigned n, unsigned long ms)
{
    z_clock_t deadline = z_clock_now();
    z_clock_advance_ms(&deadline, ms);
    z_mutex_lock(z_loan_mut(f->lock));
    while (f->seen < n && z_condvar_wait_until(z_loan_mut(f->cond), z_loan_mut(f->lock), &deadline) != Z_ETIMEDOUT) {
    }
    bool ok = f->seen >= n;
    z_mutex_unlock(z_loan_mut(f->lock));
    return ok;
}

/*
 * A ring of queries fed by the read task, from another session: the query it forgets ends (its
 * final response goes) once the dispatch of the query that pushed it out does.
 */
static void test_query_channels_remote(void)
{
    long before = live();
    char ep[64];
    listen_endpoint(ep, sizeof(ep));
    z_owned_session_t a, b;
    CHECK_EQ_INT(open_peer(&a, ep, NULL), Z_OK);
    z_view_keyexpr_t k;
    forward_t f;
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(z_mutex_init(&f.lock), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&f.cond), Z_OK);
    z_owned_ring_handler_query_t ring;
    CHECK_EQ_INT(z_ring_channel_query_new(&f.inner, &ring, 1), Z_OK);
    z_owned_closure_query_t qcl;
    z_closure(&qcl, forward_query, forward_drop, &f);
    CHECK_EQ_INT(z_declare_background_queryable(z_loan(a), key_of(&k, "rq/**"), z_move(qcl), NULL), Z_OK);
    CHECK_EQ_INT(open_peer(&b, NULL, ep), Z_OK);

    tally_t t1, t2;
    tally_init(&t1);
    tally_init(&t2);
    CHECK_EQ_INT(tally_get(z_loan(b), "rq/one", &t1, 0), Z_OK);
    CHECK(forward_wait(&f, 1, 5000));
    CHECK_EQ_INT(tally_ends(&t1), 0); /* its query waits in the ring */
    CHECK_EQ_INT(tally_get(z_loan(b), "rq/two", &t2, 0), Z_OK);
    CHECK(forward_wait(&f, 2, 5000));
    CHECK(tally_wait_end(&t1, 5000)); /* forgotten: ended without a reply */
    CHECK_EQ_INT(t1.ok, 0);
    CHECK_EQ_INT(tally_ends(&t2), 0);
    z_owned_query_t q;
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_OK);
    CHECK(text_is(&z_query_keyexpr(z_loan(q))->key.slice, "rq/two"));
    reply_text(z_loan(q), "from a", Z_OK);
    z_drop(z_move(q));
    CHECK(tally_wait_end(&t2, 5000));
    CHECK_EQ_INT(t2.ok, 1);
    CHECK_EQ_INT(strcmp(t2.last, "from a"), 0);

    /* a query kept past its get's timeout: the late reply goes, the querier drops it */
    CHECK_EQ_INT(z_try_recv(z_loan(ring), &q), Z_CHANNEL_NODATA);
    tally_t t3;
    tally_init(&t3);
    CHECK_EQ_INT(tally_get(z_loan(b), "rq/late", &t3, 200), Z_OK);
    CHECK(tally_wait_end(&t3, 10000));
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_OK);
    reply_text(z_loan(q), "late", Z_OK);
    z_drop(z_move(q));
    CHECK_EQ_INT(t3.ok, 0);

    /* the querier's session is gone: replying to its queued query fails, dropping it is fine */
    tally_t t4;
    tally_init(&t4);
    CHECK_EQ_INT(tally_get(z_loan(b), "rq/gone", &t4, 0), Z_OK);
    CHECK(forward_wait(&f, 4, 5000));
    z_drop(z_move(b));
    CHECK(tally_wait_end(&t4, 5000));
    unsigned peers = 1;
    for (int i = 0; i < 1000 && peers > 0; i++) { /* until a has seen b leave */
        peers = 0;
        z_owned_closure_zid_t zc;
        z_closure(&zc, count_peer, NULL, &peers);
        CHECK_EQ_INT(z_info_peers_zid(z_loan(a), z_move(zc)), Z_OK);
        if (peers > 0) {
            z_sleep_ms(10);
        }
    }
    CHECK_EQ_INT(peers, 0);
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_OK);
    reply_text(z_loan(q), "nobody", ZM_E_CLOSED);
    z_drop(z_move(q));
    z_drop(z_move(a));
    CHECK_EQ_INT(z_recv(z_loan(ring), &q), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(ring));
    tally_fini(&t1);
    tally_fini(&t2);
    tally_fini(&t3);
    tally_fini(&t4);
    z_drop(z_move(f.cond));
    z_drop(z_move(f.lock));
    CHECK_EQ_INT(live(), before);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_reply_channels();
    test_sample_ring_steady();
    test_query_channels_local();
    test_query_channels_remote();
    CHECK_EQ_INT(live(), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
