/*
 * The query API misused, which must give error codes, never crash, and leak nothing: NULL and
 * moved-from objects given to every function of queries, replies, queryables, queriers and their
 * channels, double drops, replies to dropped queries, outside their query or after their get
 * ended, a get asking nobody, ZM_GETS_MAX gets at once, a get timing out with no peer, and every
 * call on a closed session. A counting allocator checks leaks.
 */
#include "query_util.h"

/* ---- misuse: NULL and moved-from (null) objects everywhere ----------------------------------------- */

static void test_null_and_moved(void)
{
    long before = live();
    char ep[64];
    listen_endpoint(ep, sizeof(ep));
    z_owned_session_t a;
    CHECK_EQ_INT(open_peer(&a, ep, NULL), Z_OK);
    z_view_keyexpr_t k;
    const z_loaned_keyexpr_t *key = key_of(&k, "nm/a");
    tally_t t;
    tally_init(&t);

    /* closures and options */
    CHECK_EQ_INT(z_closure_query(NULL, keep_query, NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_closure_reply(NULL, on_reply, NULL, NULL), Z_EINVAL);
    z_closure_query_call(NULL, NULL);
    z_closure_reply_call(NULL, NULL);
    z_closure_query_drop(NULL);
    z_closure_reply_drop(NULL);
    z_get_options_default(NULL);
    z_querier_options_default(NULL);
    z_querier_get_options_default(NULL);
    z_queryable_options_default(NULL);
    z_query_reply_options_default(NULL);
    z_query_reply_del_options_default(NULL);
    z_query_reply_err_options_default(NULL);

    /* gets: a refused get still takes its closure (its drop runs) and its options' parts */
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, &t);
    CHECK(z_get(NULL, key, "", z_move(cb), NULL) < 0);
    CHECK(!z_internal_check(cb));
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_get(z_loan(a), NULL, "", z_move(cb), NULL), Z_EINVAL);
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_get_with_parameters_substr(z_loan(a), key, NULL, 3, z_move(cb), NULL), Z_EINVAL);
    z_get_options_t go;
    z_get_options_default(&go);
    go.target = (z_query_target_t)42;
    z_owned_bytes_t payload, att;
    z_owned_encoding_t enc;
    z_bytes_copy_from_str(&payload, "payload");
    z_bytes_copy_from_str(&att, "attachment");
    z_encoding_from_str(&enc, "text/plain;schema");
    go.payload = z_move(payload);
    go.attachment = z_move(att);
    go.encoding = z_move(enc);
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_get(z_loan(a), key, "", z_move(cb), &go), Z_EINVAL);
    CHECK(!z_internal_check(payload) && !z_internal_check(att) && !z_internal_check(enc));
    CHECK_EQ_INT(tally_ends(&t), 4);
    CHECK_EQ_INT(z_get(z_loan(a), key, "", NULL, NULL), Z_EINVAL);
    z_internal_null(&cb);
    CHECK_EQ_INT(z_get(z_loan(a), key, "", z_move(cb), NULL), Z_OK); /* no call: as zenoh-pico, nothing is called */

    /* queriers */
    z_owned_querier_t qr;
    CHECK_EQ_INT(z_declare_querier(NULL, &qr, key, NULL), Z_EINVAL);
    CHECK(!z_internal_check(qr));
    CHECK_EQ_INT(z_declare_querier(z_loan(a), NULL, key, NULL), Z_EINVAL);
    z_querier_options_t qo;
    z_querier_options_default(&qo);
    z_encoding_from_str(&enc, "text/plain;taken");
    qo.encoding = z_move(enc);
    CHECK_EQ_INT(z_declare_querier(z_loan(a), &qr, NULL, &qo), Z_EINVAL);
    CHECK(!z_internal_check(enc) && !z_internal_check(qr));
    CHECK_EQ_INT(z_undeclare_querier(NULL), Z_ENULL);
    CHECK_EQ_INT(z_undeclare_querier(z_move(qr)), Z_ENULL);
    z_querier_drop(NULL);
    z_drop(z_move(qr));
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_querier_get(NULL, "", z_move(cb), NULL), Z_EINVAL);
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_querier_get(z_loan(qr), "", z_move(cb), NULL), Z_EINVAL);
    CHECK(z_querier_keyexpr(NULL) == NULL);
    CHECK_EQ_INT(z_querier_id(NULL).eid, 0);
    CHECK_EQ_INT(z_querier_id(z_loan(qr)).eid, 0);
    CHECK_EQ_INT(z_declare_querier(z_loan(a), &qr, key, NULL), Z_OK);
    z_closure(&cb, on_reply, on_end, &t);
    CHECK_EQ_INT(z_querier_get_with_parameters_substr(z_loan(qr), NULL, 2, z_move(cb), NULL), Z_EINVAL);
    z_drop(z_move(qr));
    z_drop(z_move(qr));
    CHECK(!z_internal_check(qr));
    CHECK_EQ_INT(tally_ends(&t), 7);

    /* replies */
    z_owned_reply_t r, r2;
    z_internal_null(&r);
    z_entity_global_id_t gid;
    CHECK(!z_reply_is_ok(NULL) && z_reply_ok(NULL) == NULL && z_reply_err(NULL) == NULL);
    CHECK(!z_reply_replier_id(NULL, &gid) && !z_reply_replier_id(z_loan(r), &gid));
    CHECK(z_reply_err_payload(NULL) == NULL && z_reply_err_encoding(NULL) == NULL);
    CHECK(!z_reply_is_ok(z_loan(r)));
    CHECK_EQ_INT(z_bytes_len(z_sample_payload(z_reply_ok(z_loan(r)))), 0);
    CHECK_EQ_INT(z_reply_clone(NULL, z_loan(r)), Z_EINVAL);
    CHECK_EQ_INT(z_reply_clone(&r2, NULL), Z_EINVAL);
    CHECK(!z_internal_check(r2));
    CHECK_EQ_INT(z_reply_clone(&r2, z_loan(r)), Z_EINVAL);
    CHECK_EQ_INT(z_reply_take_from_loaned(&r2, z_loan_mut(r)), Z_EINVAL);
    CHECK_EQ_INT(z_reply_take_from_loaned(NULL, NULL), Z_EINVAL);
    z_reply_take(NULL, z_move(r));
    z_reply_take(&r2, NULL);
    CHECK(!z_internal_check(r2));
    z_reply_drop(NULL);
    z_drop(z_move(r));
    z_drop(z_move(r));
    z_owned_reply_err_t e, e2;
    z_internal_null(&e);
    CHECK_EQ_INT(z_reply_err_clone(NULL, z_loan(e)), Z_EINVAL);
    CHECK_EQ_INT(z_reply_err_clone(&e2, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_reply_err_take_from_loaned(NULL, NULL), Z_EINVAL);
    z_reply_err_drop(NULL);
    z_drop(z_move(e));
    z_drop(z_move(e));

    /* queryables: a refused declaration takes its closure */
    keeper_t kp;
    memset(&kp, 0, sizeof(kp));
    z_owned_closure_query_t qc;
    z_owned_queryable_t qbl;
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK(z_declare_queryable(NULL, &qbl, key, z_move(qc), NULL) < 0);
    CHECK(!z_internal_check(qbl) && !z_internal_check(qc));
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), NULL, key, z_move(qc), NULL), Z_EINVAL);
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, NULL, z_move(qc), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key, NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key, z_move(qc), NULL), Z_OK); /* moved-from: no call */
    CHECK_EQ_INT(z_undeclare_queryable(z_move(qbl)), Z_OK);
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK(z_declare_background_queryable(NULL, key, z_move(qc), NULL) < 0);
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_background_queryable(z_loan(a), NULL, z_move(qc), NULL), Z_EINVAL);
#if Z_FEATURE_LOCAL_QUERYABLE == 1
    z_queryable_options_t qbo;
    z_queryable_options_default(&qbo);
    qbo.allowed_origin = (z_locality_t)42;
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key, z_move(qc), &qbo), Z_EINVAL);
    CHECK_EQ_INT(atomic_load(&kp.drops), 6);
#else
    CHECK_EQ_INT(atomic_load(&kp.drops), 5);
#endif
    CHECK_EQ_INT(z_undeclare_queryable(NULL), Z_ENULL);
    CHECK_EQ_INT(z_undeclare_queryable(z_move(qbl)), Z_ENULL);
    z_queryable_drop(NULL);
    CHECK(z_queryable_keyexpr(NULL) == NULL);
    CHECK_EQ_INT(z_queryable_id(NULL).eid, 0);
    CHECK_EQ_INT(z_queryable_id(z_loan(qbl)).eid, 0);
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key, z_move(qc), NULL), Z_OK);
    CHECK(z_queryable_id(z_loan(qbl)).eid != 0);
    z_drop(z_move(qbl));
    z_drop(z_move(qbl));
    CHECK(!z_internal_check(qbl));

    /* queries */
    z_owned_query_t q, q2;
    z_internal_null(&q);
    z_view_string_t params;
    CHECK(z_query_keyexpr(NULL) == NULL && z_query_payload(NULL) == NULL);
    CHECK(z_query_encoding(NULL) == NULL && z_query_attachment(NULL) == NULL);
    CHECK(z_query_source_info(NULL) == NULL && z_query_source_info(z_loan(q)) == NULL);
    z_query_parameters(NULL, &params);
    CHECK_EQ_INT(z_string_len(z_loan(params)), 0);
    z_query_parameters(z_loan(q), NULL);
    CHECK_EQ_INT(z_query_accepts_replies(NULL), Z_REPLY_KEYEXPR_MATCHING_QUERY);
    CHECK_EQ_INT(z_query_accepts_replies(z_loan(q)), Z_REPLY_KEYEXPR_MATCHING_QUERY);
    z_query_reply_options_t ro;
    z_query_reply_options_default(&ro);
    z_bytes_copy_from_str(&att, "attachment");
    z_encoding_from_str(&enc, "text/plain;taken");
    ro.attachment = z_move(att);
    ro.encoding = z_move(enc);
    z_bytes_copy_from_str(&payload, "x");
    CHECK_EQ_INT(z_query_reply(NULL, key, z_move(payload), &ro), Z_EINVAL);
    CHECK(!z_internal_check(payload) && !z_internal_check(att) && !z_internal_check(enc));
    z_bytes_copy_from_str(&payload, "x");
    CHECK_EQ_INT(z_query_reply(z_loan(q), key, z_move(payload), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_reply(z_loan(q), key, NULL, NULL), Z_EINVAL);
    z_bytes_copy_from_str(&payload, "x");
    CHECK_EQ_INT(z_query_reply(z_loan(q), NULL, z_move(payload), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_reply_del(NULL, key, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_reply_del(z_loan(q), key, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_reply_del(z_loan(q), NULL, NULL), Z_EINVAL);
    z_bytes_copy_from_str(&payload, "x");
    CHECK_EQ_INT(z_query_reply_err(NULL, z_move(payload), NULL), Z_EINVAL);
    z_bytes_copy_from_str(&payload, "x");
    CHECK_EQ_INT(z_query_reply_err(z_loan(q), z_move(payload), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_reply_err(z_loan(q), NULL, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_clone(NULL, z_loan(q)), Z_EINVAL);
    CHECK_EQ_INT(z_query_clone(&q2, NULL), Z_EINVAL);
    CHECK_EQ_INT(z_query_clone(&q2, z_loan(q)), Z_EINVAL);
    CHECK(!z_internal_check(q2));
    CHECK_EQ_INT(z_query_take_from_loaned(NULL, NULL), Z_EINVAL);
    z_query_take(NULL, z_move(q));
    z_query_take(&q2, NULL);
    CHECK(!z_internal_check(q2));
    z_query_drop(NULL);
    z_drop(z_move(q));
    z_drop(z_move(q));

    /* channels of queries and their handlers */
    z_owned_fifo_handler_query_t fh;
    z_owned_ring_handler_query_t rh;
    CHECK_EQ_INT(z_fifo_channel_query_new(NULL, &fh, 1), Z_EINVAL);
    CHECK_EQ_INT(z_fifo_channel_query_new(&qc, NULL, 1), Z_EINVAL);
    CHECK_EQ_INT(z_fifo_channel_query_new(&qc, &fh, 0), Z_EINVAL);
    CHECK(!z_internal_check(qc) && !z_internal_check(fh));
    CHECK_EQ_INT(z_ring_channel_query_new(&qc, &rh, 0), Z_EINVAL);
    CHECK_EQ_INT(z_recv(z_loan(fh), &q), Z_ENULL);
    CHECK_EQ_INT(z_try_recv(z_loan(rh), &q), Z_ENULL);
    CHECK(!z_internal_check(q));
    CHECK_EQ_INT(z_fifo_handler_query_recv(NULL, &q), Z_ENULL);
    CHECK_EQ_INT(z_ring_handler_query_try_recv(NULL, &q), Z_ENULL);
    CHECK_EQ_INT(z_ring_channel_query_new(&qc, &rh, 2), Z_OK);
    CHECK_EQ_INT(z_ring_handler_query_recv(z_loan(rh), NULL), Z_EINVAL);
    CHECK_EQ_INT(z_try_recv(z_loan(rh), &q), Z_CHANNEL_NODATA);
    z_ring_handler_query_drop(NULL);
    z_drop(z_move(rh));
    z_drop(z_move(rh));
    CHECK_EQ_INT(z_try_recv(z_loan(rh), &q), Z_ENULL);
    z_drop(z_move(qc)); /* the closure side of a channel whose handler is gone */
    z_drop(z_move(qc));
    z_owned_fifo_handler_reply_t frh;
    z_internal_null(&frh);
    CHECK_EQ_INT(z_recv(z_loan(frh), &r), Z_ENULL);
    z_fifo_handler_reply_drop(NULL);
    z_drop(z_move(frh));

    tally_fini(&t);
    z_drop(z_move(a));
    CHECK_EQ_INT(live(), before);
}

/* ---- misuse: replies to the wrong query, or too late; too many gets; a closed session ------------- */

static void test_misuse_session(void)
{
    long before = live();
    char ep[64];
    listen_endpoint(ep, sizeof(ep));
    z_owned_session_t a;
    CHECK_EQ_INT(open_peer(&a, ep, NULL), Z_OK);
    z_view_keyexpr_t k;
    keeper_t kp;
    memset(&kp, 0, sizeof(kp));
    CHECK_EQ_INT(z_mutex_init(&kp.lock), Z_OK);
    z_owned_closure_query_t qc;
    z_closure(&qc, keep_query, keeper_drop, &kp);
    z_owned_queryable_t qbl;
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key_of(&k, "mu/**"), z_move(qc), NULL), Z_OK);

    /* a get nobody can answer ends at once: no peer, no queryable of its own */
    tally_t t0;
    tally_init(&t0);
    CHECK_EQ_INT(tally_get(z_loan(a), "nobody/here", &t0, 0), Z_OK);
    CHECK_EQ_INT(tally_ends(&t0), 1);

    /* outside the query, then to a dropped copy: errors; the last copy's drop ends the get */
    tally_t t1;
    tally_init(&t1);
    CHECK_EQ_INT(tally_get(z_loan(a), "mu/x", &t1, 0), Z_OK);
    CHECK_EQ_INT(kp.outside, ZM_E_KEYEXPR); /* replied from the callback, outside "mu/x" */
    CHECK_EQ_INT(kp.n, 1);
    CHECK_EQ_INT(tally_ends(&t1), 0);
    z_owned_query_t dup;
    CHECK_EQ_INT(z_query_clone(&dup, z_loan(kp.kept[0])), Z_OK);
    z_drop(z_move(kp.kept[0]));
    reply_text(z_loan(kp.kept[0]), "to a dropped query", Z_EINVAL);
    z_drop(z_move(kp.kept[0]));
    CHECK_EQ_INT(tally_ends(&t1), 0); /* dup keeps it open */
    z_owned_bytes_t p;
    z_bytes_from_static_str(&p, "x");
    CHECK_EQ_INT(z_query_reply(z_loan(dup), key_of(&k, "mu/y"), z_move(p), NULL), ZM_E_KEYEXPR);
    CHECK_EQ_INT(z_query_reply_del(z_loan(dup), key_of(&k, "elsewhere"), NULL), ZM_E_KEYEXPR);
    CHECK_EQ_INT(z_query_reply_del(z_loan(dup), key_of(&k, "mu/*"), NULL), Z_OK);
    z_bytes_from_static_str(&p, "bad");
    CHECK_EQ_INT(z_query_reply_err(z_loan(dup), z_move(p), NULL), Z_OK);
    z_drop(z_move(dup));
    CHECK(tally_wait_end(&t1, 5000));
    CHECK_EQ_INT(t1.ok, 1);
    CHECK_EQ_INT(t1.err, 1);

    /* a get that times out with its query kept and no peer: a reply after that is refused */
    tally_t t2;
    tally_init(&t2);
    kp.n = 0;
    CHECK_EQ_INT(tally_get(z_loan(a), "mu/t", &t2, 300), Z_OK);
    CHECK(tally_wait_end(&t2, 10000));
    CHECK_EQ_INT(t2.ok, 0);
    reply_text(z_loan(kp.kept[0]), "too late", ZM_E_CLOSED);
    z_drop(z_move(kp.kept[0]));

    /* ZM_GETS_MAX gets waiting at once: one more is refused, and its closure dropped */
    z_owned_closure_query_t mc;
    z_owned_fifo_handler_query_t mh;
    CHECK_EQ_INT(z_fifo_channel_query_new(&mc, &mh, ZM_GETS_MAX + 1), Z_OK);
    z_owned_queryable_t mq;
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &mq, key_of(&k, "mx/**"), z_move(mc), NULL), Z_OK);
    tally_t many[ZM_GETS_MAX], over;
    for (size_t i = 0; i < ZM_GETS_MAX; i++) {
        tally_init(&many[i]);
        CHECK_EQ_INT(tally_get(z_loan(a), "mx/k", &many[i], 0), Z_OK);
    }
    tally_init(&over);
    CHECK_EQ_INT(tally_get(z_loan(a), "mx/k", &over, 0), ZM_E_LIMIT);
    CHECK_EQ_INT(tally_ends(&over), 1);
    z_drop(z_move(mh)); /* drops the queued queries: every get ends */
    for (size_t i = 0; i < ZM_GETS_MAX; i++) {
        CHECK(tally_wait_end(&many[i], 5000));
        tally_fini(&many[i]);
    }
    CHECK_EQ_INT(tally_get(z_loan(a), "mx/k", &over, 0), Z_OK); /* room again */
    CHECK(tally_wait_end(&over, 5000));
    z_drop(z_move(mq));

    /* a closed session: its gets end, and every call on it fails cleanly */
    tally_t t3, t4;
    tally_init(&t3);
    tally_init(&t4);
    kp.n = 0;
    CHECK_EQ_INT(tally_get(z_loan(a), "mu/c", &t3, 0), Z_OK);
    CHECK_EQ_INT(kp.n, 1);
    z_owned_querier_t qr;
    CHECK_EQ_INT(z_declare_querier(z_loan(a), &qr, key_of(&k, "mu/q"), NULL), Z_OK);
    CHECK_EQ_INT(z_close(z_loan_mut(a), NULL), Z_OK);
    CHECK(tally_wait_end(&t3, 5000));
    CHECK_EQ_INT(atomic_load(&kp.drops), 1); /* the queryable ended with the session */
    CHECK_EQ_INT(tally_get(z_loan(a), "mu/x", &t4, 0), Z_ESESSION_CLOSED);
    CHECK_EQ_INT(tally_ends(&t4), 1);
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, &t4);
    CHECK_EQ_INT(z_querier_get(z_loan(qr), "", z_move(cb), NULL), Z_ESESSION_CLOSED);
    CHECK_EQ_INT(tally_ends(&t4), 2);
    reply_text(z_loan(kp.kept[0]), "closed", Z_ESESSION_CLOSED);
    z_drop(z_move(kp.kept[0]));
    z_owned_querier_t qr2;
    CHECK_EQ_INT(z_declare_querier(z_loan(a), &qr2, key_of(&k, "mu/q"), NULL), Z_ESESSION_CLOSED);
    CHECK_EQ_INT(z_undeclare_queryable(z_move(qbl)), Z_OK); /* closing ended it already */
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key_of(&k, "mu/**"), z_move(qc), NULL), Z_ESESSION_CLOSED);
    z_closure(&qc, keep_query, keeper_drop, &kp);
    CHECK_EQ_INT(z_declare_queryable(z_loan(a), &qbl, key_of(&k, "mu/**"), z_move(qc), NULL), Z_ESESSION_CLOSED);
    CHECK_EQ_INT(atomic_load(&kp.drops), 3);
    CHECK_EQ_INT(z_undeclare_queryable(z_move(qbl)), Z_ENULL); /* refused above: null */
    z_drop(z_move(qr));

    tally_fini(&t0);
    tally_fini(&t1);
    tally_fini(&t2);
    tally_fini(&t3);
    tally_fini(&t4);
    tally_fini(&over);
    z_drop(z_move(kp.lock));
    z_drop(z_move(a));
    CHECK_EQ_INT(live(), before);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_null_and_moved();
    test_misuse_session();
    CHECK_EQ_INT(live(), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
