/*
 * The budget of a get's kept replies: a latest get keeps a small reply for its end, but gives a
 * reply bigger than ZM_GET_KEPT_BYTES at once, and from then on its key as monotonic (a reply no
 * newer than the one given is dropped). Answered by a queryable of the same session, which sees
 * what the get was given after each of its replies. A counting allocator checks leaks.
 */
#include "query_util.h"

#if Z_FEATURE_LOCAL_QUERYABLE == 1

typedef struct {
    tally_t *get;
    unsigned seen[4]; /* the get's ok replies after each reply of the queryable */
} answers_t;

static unsigned tally_ok(tally_t *t)
{
    z_mutex_lock(z_loan_mut(t->lock));
    unsigned n = t->ok;
    z_mutex_unlock(z_loan_mut(t->lock));
    return n;
}

static void reply_sized(const z_loaned_query_t *q, const char *key, size_t size)
{
    uint8_t *data = malloc(size);
    CHECK(data != NULL);
    memset(data, 'b', size);
    z_owned_bytes_t b;
    CHECK_EQ_INT(z_bytes_copy_from_buf(&b, data, size), Z_OK);
    free(data);
    z_view_keyexpr_t k;
    CHECK_EQ_INT(z_query_reply(q, key_of(&k, key), z_move(b), NULL), Z_OK);
}

static void answer(z_loaned_query_t *query, void *ctx)
{
    answers_t *a = ctx;
    reply_sized(query, "qb/small", 1); /* kept for the end */
    a->seen[0] = tally_ok(a->get);
    reply_sized(query, "qb/big", ZM_GET_KEPT_BYTES + 1); /* past the budget: given at once */
    a->seen[1] = tally_ok(a->get);
    reply_sized(query, "qb/big", 2); /* no newer than the one given: dropped */
    a->seen[2] = tally_ok(a->get);
    reply_sized(query, "qb/other", 1); /* kept for the end */
    a->seen[3] = tally_ok(a->get);
}

static void test_latest_past_the_budget(void)
{
    long before = live();
    char ep[64];
    listen_endpoint(ep, sizeof(ep));
    z_owned_session_t s;
    CHECK_EQ_INT(open_peer(&s, ep, NULL), Z_OK);
    tally_t t;
    tally_init(&t);
    answers_t a = {.get = &t};
    z_owned_closure_query_t qcb;
    z_closure(&qcb, answer, NULL, &a);
    z_owned_queryable_t qbl;
    z_view_keyexpr_t k;
    CHECK_EQ_INT(z_declare_queryable(z_loan(s), &qbl, key_of(&k, "qb/**"), z_move(qcb), NULL), Z_OK);

    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation = z_query_consolidation_latest();
    o.allowed_destination = Z_LOCALITY_SESSION_LOCAL;
    o.timeout_ms = 5000;
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_get(z_loan(s), key_of(&k, "qb/**"), "", z_move(cb), &o), Z_OK);
    CHECK(tally_wait_end(&t, 5000));
    CHECK_EQ_INT(a.seen[0], 0);
    CHECK_EQ_INT(a.seen[1], 1);
    CHECK_EQ_INT(a.seen[2], 1);
    CHECK_EQ_INT(a.seen[3], 1);
    CHECK_EQ_INT(tally_ok(&t), 3); /* the big one, then the two kept at the end */
    CHECK_EQ_INT(t.last[0], 'b');

    z_drop(z_move(qbl));
    z_drop(z_move(s));
    tally_fini(&t);
    CHECK_EQ_INT(live(), before);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_latest_past_the_budget();
    zm_allocator_set(NULL);
    return CHECK_DONE();
}

#else
int main(void) { return 0; }
#endif
