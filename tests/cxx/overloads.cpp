/*
 * The C++ overloads of the generic names (z_loan, z_move, z_drop, z_closure, z_call, z_recv, ...)
 * at run time: each reaches the per-type function the C selection picks, so objects end up in
 * the states the C macros leave them in. Which result type each overload has, for every type, is
 * checked at compile time by the file tests/cxx/gen_generic_checks.py writes; this one checks
 * behaviour on the types that need no session. wrapped.cpp, linked in, includes the header
 * inside extern "C" and calls the overloads from there.
 */
#include "zenoh-pico.h"

#include <type_traits>

#include "../unit/check.h"

int wrapped_checks(void);

/* ---- every owned type: null, check, move, take, drop ----------------------------------------- */

/* A null object checks false, moves and takes as null, and drops as a no-op. */
template <class Owned> static void null_round_trip()
{
    Owned a, b;
    z_internal_null(&a);
    CHECK(!z_internal_check(a));
    z_take(&b, z_move(a));
    CHECK(!z_internal_check(b));
    z_drop(z_move(b));
    CHECK(!z_internal_check(b));
    /* the loans alias the object, as the per-type functions' do */
    CHECK((const void *)z_loan(b) == (const void *)&b);
}

static void every_owned_type(void)
{
    null_round_trip<z_owned_keyexpr_t>();
    null_round_trip<z_owned_config_t>();
    null_round_trip<z_owned_session_t>();
    null_round_trip<z_owned_subscriber_t>();
    null_round_trip<z_owned_publisher_t>();
    null_round_trip<z_owned_hello_t>();
    null_round_trip<z_owned_string_t>();
    null_round_trip<z_owned_string_array_t>();
    null_round_trip<z_owned_sample_t>();
    null_round_trip<z_owned_slice_t>();
    null_round_trip<z_owned_bytes_t>();
    null_round_trip<z_owned_bytes_writer_t>();
    null_round_trip<ze_owned_serializer_t>();
    null_round_trip<z_owned_encoding_t>();
    null_round_trip<z_owned_fifo_handler_sample_t>();
    null_round_trip<z_owned_ring_handler_sample_t>();
    null_round_trip<z_owned_fifo_handler_query_t>();
    null_round_trip<z_owned_ring_handler_query_t>();
    null_round_trip<z_owned_fifo_handler_reply_t>();
    null_round_trip<z_owned_ring_handler_reply_t>();
    null_round_trip<z_owned_query_t>();
    null_round_trip<z_owned_reply_t>();
    null_round_trip<z_owned_reply_err_t>();
    null_round_trip<z_owned_queryable_t>();
    null_round_trip<z_owned_querier_t>();
    null_round_trip<z_owned_liveliness_token_t>();
    null_round_trip<z_owned_matching_listener_t>();
    null_round_trip<z_owned_closure_sample_t>();
    null_round_trip<z_owned_closure_zid_t>();
    null_round_trip<z_owned_closure_hello_t>();
    null_round_trip<z_owned_closure_query_t>();
    null_round_trip<z_owned_closure_reply_t>();
    null_round_trip<z_owned_closure_matching_status_t>();
#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
    null_round_trip<z_owned_cancellation_token_t>();
#endif
}

/* ---- values: bytes, strings, slices, key expressions, encodings, configurations -------------- */

static void bytes_and_strings(void)
{
    z_owned_bytes_t b, copy, taken;
    CHECK_EQ_INT(z_bytes_copy_from_str(&b, "hello"), Z_OK);
    CHECK(z_internal_check(b));
    CHECK(z_loan(b) == z_bytes_loan(&b));
    CHECK(z_loan_mut(b) == z_bytes_loan_mut(&b));
    CHECK_EQ_INT(z_clone(&copy, z_loan(b)), Z_OK);
    CHECK_EQ_INT(z_bytes_len(z_loan(copy)), 5);
    z_take(&taken, z_move(copy));
    CHECK(!z_internal_check(copy));
    CHECK(z_internal_check(taken));
    z_owned_string_t s;
    CHECK_EQ_INT(z_bytes_to_string(z_loan(taken), &s), Z_OK);
    CHECK_EQ_MEM(z_string_data(z_loan(s)), z_string_len(z_loan(s)), "hello", 5);
    z_drop(z_move(taken));
    CHECK(!z_internal_check(taken));
    z_drop(z_move(b));
    CHECK(!z_internal_check(b));

    /* z_take_from_loaned moves the object out of a loan */
    z_owned_string_t out;
    CHECK_EQ_INT(z_take_from_loaned(&out, z_loan_mut(s)), Z_OK);
    CHECK(z_internal_check(out));
    CHECK_EQ_MEM(z_string_data(z_loan(out)), z_string_len(z_loan(out)), "hello", 5);
    z_drop(z_move(out));
    z_drop(z_move(s));

    z_owned_slice_t sl, sl2;
    const uint8_t raw[3] = {1, 2, 3};
    CHECK_EQ_INT(z_slice_copy_from_buf(&sl, raw, sizeof raw), Z_OK);
    CHECK_EQ_INT(z_clone(&sl2, z_loan(sl)), Z_OK);
    CHECK_EQ_INT(z_slice_len(z_loan(sl2)), 3);
    z_drop(z_move(sl));
    z_drop(z_move(sl2));

    z_owned_string_array_t arr;
    z_string_array_new(&arr);
    z_view_string_t v;
    CHECK_EQ_INT(z_view_string_from_str(&v, "one"), Z_OK);
    CHECK(z_loan(v) == z_view_string_loan(&v));
    CHECK_EQ_INT(z_string_array_push_by_copy(z_loan_mut(arr), z_loan(v)), 1);
    CHECK_EQ_INT(z_string_array_len(z_loan(arr)), 1);
    z_drop(z_move(arr));

    z_owned_bytes_writer_t w;
    CHECK_EQ_INT(z_bytes_writer_empty(&w), Z_OK);
    CHECK_EQ_INT(z_bytes_writer_write_all(z_loan_mut(w), raw, sizeof raw), Z_OK);
    z_owned_bytes_t written;
    z_bytes_writer_finish(z_move(w), &written);
    CHECK_EQ_INT(z_bytes_len(z_loan(written)), 3);
    z_drop(z_move(written));
}

static void keyexprs_encodings_configs(void)
{
    z_view_keyexpr_t vk;
    CHECK_EQ_INT(z_view_keyexpr_from_str(&vk, "zm/cxx/a"), Z_OK);
    CHECK(z_loan(vk) == z_view_keyexpr_loan(&vk));
    CHECK(z_loan_mut(vk) == z_view_keyexpr_loan_mut(&vk));
    z_owned_keyexpr_t k;
    CHECK_EQ_INT(z_clone(&k, z_loan(vk)), Z_OK);
    z_view_string_t ks;
    CHECK_EQ_INT(z_keyexpr_as_view_string(z_loan(k), &ks), Z_OK);
    CHECK_EQ_MEM(z_string_data(z_loan(ks)), z_string_len(z_loan(ks)), "zm/cxx/a", 8);
    z_drop(z_move(k));
    CHECK(!z_internal_check(k));

    z_owned_encoding_t e, e2;
    CHECK_EQ_INT(z_encoding_from_str(&e, "text/plain"), Z_OK);
    CHECK_EQ_INT(z_clone(&e2, z_loan(e)), Z_OK);
    CHECK(z_encoding_equals(z_loan(e), z_loan(e2)));
    z_drop(z_move(e));
    z_drop(z_move(e2));

    z_owned_config_t c, c2;
    CHECK_EQ_INT(z_config_default(&c), Z_OK);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer"), Z_OK);
    CHECK_EQ_INT(z_clone(&c2, z_loan(c)), Z_OK);
    CHECK_EQ_STR(zp_config_get(z_loan(c2), Z_CONFIG_MODE_KEY), "peer");
    z_drop(z_move(c));
    z_drop(z_move(c2));
    CHECK(!z_internal_check(c2));

    ze_owned_serializer_t ser;
    CHECK_EQ_INT(ze_serializer_empty(&ser), Z_OK);
    CHECK_EQ_INT(ze_serializer_serialize_uint32(z_loan_mut(ser), 1234567u), Z_OK);
    z_owned_bytes_t payload;
    ze_serializer_finish(z_move(ser), &payload);
    uint32_t got = 0;
    CHECK_EQ_INT(ze_deserialize_uint32(z_loan(payload), &got), Z_OK);
    CHECK_EQ_INT(got, 1234567);
    z_drop(z_move(payload));
}

/* ---- closures: z_closure with one to three arguments, z_call, z_drop ------------------------- */

struct zid_seen {
    int calls;
    int drops;
    uint8_t first;
};

static void on_zid(const z_id_t *id, void *ctx)
{
    if (ctx != NULL) {
        zid_seen *seen = static_cast<zid_seen *>(ctx);
        seen->calls++;
        seen->first = id->id[0];
    }
}

static void on_zid_drop(void *ctx)
{
    if (ctx != NULL) {
        static_cast<zid_seen *>(ctx)->drops++;
    }
}

static void on_status(const z_matching_status_t *status, void *ctx)
{
    *static_cast<bool *>(ctx) = status->matching;
}

static void closures(void)
{
    z_id_t id;
    memset(&id, 0, sizeof id);
    id.id[0] = 0x5a;

    z_owned_closure_zid_t c;
    z_closure(&c, on_zid); /* call only: drop and context 0 */
    CHECK(z_internal_check(c));
    CHECK(c._val.call == on_zid && c._val.drop == NULL && c._val.context == NULL);
    z_closure(&c, on_zid, on_zid_drop); /* no context */
    CHECK(c._val.drop == on_zid_drop && c._val.context == NULL);
    z_drop(z_move(c)); /* drop(NULL) */

    zid_seen seen = {0, 0, 0};
    z_closure(&c, on_zid, on_zid_drop, &seen);
    z_call(*z_loan(c), &id);
    z_call(*z_loan(c), &id);
    CHECK_EQ_INT(seen.calls, 2);
    CHECK_EQ_INT(seen.first, 0x5a);
    z_owned_closure_zid_t moved;
    z_take(&moved, z_move(c));
    CHECK(!z_internal_check(c));
    CHECK_EQ_INT(seen.drops, 0);
    z_drop(z_move(moved));
    CHECK_EQ_INT(seen.drops, 1);
    z_drop(z_move(moved)); /* dropped already: nothing more */
    CHECK_EQ_INT(seen.drops, 1);

    /* a captureless lambda converts to the callback type */
    z_owned_closure_zid_t lc;
    int lambda_calls = 0;
    z_closure(&lc, [](const z_id_t *, void *ctx) { ++*static_cast<int *>(ctx); }, NULL, &lambda_calls);
    z_call(*z_loan(lc), &id);
    CHECK_EQ_INT(lambda_calls, 1);
    z_drop(z_move(lc));

    bool matching = false;
    z_owned_closure_matching_status_t ms;
    z_closure(&ms, on_status, NULL, &matching);
    z_matching_status_t status = {true};
    z_call(*z_loan(ms), &status);
    CHECK(matching);
    z_drop(z_move(ms));
}

/* ---- channels: z_recv / z_try_recv on fifo and ring handlers --------------------------------- */

static void channels(void)
{
    z_owned_closure_sample_t cb;
    z_owned_fifo_handler_sample_t fifo;
    CHECK_EQ_INT(z_fifo_channel_sample_new(&cb, &fifo, 4), Z_OK);
    z_owned_sample_t s;
    CHECK_EQ_INT(z_try_recv(z_loan(fifo), &s), Z_CHANNEL_NODATA);
    z_drop(z_move(cb)); /* the sending side goes: the channel is disconnected once empty */
    CHECK_EQ_INT(z_recv(z_loan(fifo), &s), Z_CHANNEL_DISCONNECTED);
    CHECK(!z_internal_check(s));
    z_drop(z_move(fifo));
    CHECK(!z_internal_check(fifo));

    z_owned_closure_reply_t rcb;
    z_owned_ring_handler_reply_t ring;
    CHECK_EQ_INT(z_ring_channel_reply_new(&rcb, &ring, 2), Z_OK);
    z_owned_reply_t r;
    CHECK_EQ_INT(z_try_recv(z_loan(ring), &r), Z_CHANNEL_NODATA);
    z_drop(z_move(rcb));
    CHECK_EQ_INT(z_recv(z_loan(ring), &r), Z_CHANNEL_DISCONNECTED);
    z_drop(z_move(ring));

    z_owned_closure_query_t qcb;
    z_owned_fifo_handler_query_t qfifo;
    CHECK_EQ_INT(z_fifo_channel_query_new(&qcb, &qfifo, 1), Z_OK);
    z_owned_query_t q;
    CHECK_EQ_INT(z_try_recv(z_loan(qfifo), &q), Z_CHANNEL_NODATA);
    z_drop(z_move(qcb));
    z_drop(z_move(qfifo));
}

/* ---- threads: dropping a task joins it; mutexes and condition variables ---------------------- */

#if Z_FEATURE_MULTI_THREAD == 1
struct task_state {
    z_owned_mutex_t *m;
    z_owned_condvar_t *cv;
    bool started;
    bool finished;
};

static void *task_body(void *arg)
{
    task_state *st = static_cast<task_state *>(arg);
    z_mutex_lock(z_loan_mut(*st->m));
    st->started = true;
    z_condvar_signal(z_loan_mut(*st->cv));
    z_mutex_unlock(z_loan_mut(*st->m));
    st->finished = true;
    return NULL;
}

static void threads(void)
{
    z_owned_mutex_t m;
    z_owned_condvar_t cv;
    CHECK_EQ_INT(z_mutex_init(&m), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&cv), Z_OK);
    task_state st = {&m, &cv, false, false};
    z_owned_task_t t;
    CHECK_EQ_INT(z_mutex_lock(z_loan_mut(m)), Z_OK);
    CHECK_EQ_INT(z_task_init(&t, NULL, task_body, &st), Z_OK);
    while (!st.started) {
        CHECK_EQ_INT(z_condvar_wait(z_loan_mut(cv), z_loan_mut(m)), Z_OK);
    }
    CHECK_EQ_INT(z_mutex_unlock(z_loan_mut(m)), Z_OK);
    z_result_t joined = z_drop(z_move(t)); /* joins, as the C selection's z_task_join */
    CHECK_EQ_INT(joined, Z_OK);
    CHECK(st.finished);
    CHECK_EQ_INT(z_drop(z_move(cv)), Z_OK);
    CHECK_EQ_INT(z_drop(z_move(m)), Z_OK);
}
#endif

#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
static void cancellation_tokens(void)
{
    z_owned_cancellation_token_t a, b;
    CHECK_EQ_INT(z_cancellation_token_new(&a), Z_OK);
    CHECK_EQ_INT(z_clone(&b, z_loan(a)), Z_OK);
    CHECK_EQ_INT(z_cancellation_token_cancel(z_loan_mut(a)), Z_OK);
    CHECK(z_cancellation_token_is_cancelled(z_loan(b))); /* a clone is the same token */
    z_drop(z_move(a));
    z_drop(z_move(b));
    CHECK(!z_internal_check(b));
}
#endif

/* ---- the type maps --------------------------------------------------------------------------- */

static_assert(std::is_same<z_owned_to_loaned_type_t<z_owned_bytes_t>::type, z_loaned_bytes_t>::value, "");
static_assert(std::is_same<z_loaned_to_owned_type_t<z_loaned_bytes_t>::type, z_owned_bytes_t>::value, "");
static_assert(std::is_same<z_loaned_to_owned_type_t<ze_loaned_serializer_t>::type, ze_owned_serializer_t>::value, "");
static_assert(std::is_same<z_owned_to_loaned_type_t<z_owned_closure_sample_t>::type, z_loaned_closure_sample_t>::value,
              "");
static_assert(std::is_same<z_loaned_to_owned_type_t<z_loaned_ring_handler_reply_t>::type,
                           z_owned_ring_handler_reply_t>::value,
              "");
static_assert(std::is_same<z_owned_to_loaned_type_t<z_owned_session_t>::type, z_loaned_session_t>::value, "");

int main(void)
{
    every_owned_type();
    bytes_and_strings();
    keyexprs_encodings_configs();
    closures();
    channels();
#if Z_FEATURE_MULTI_THREAD == 1
    threads();
#endif
#if Z_FEATURE_QUERY == 1 && defined(Z_FEATURE_UNSTABLE_API)
    cancellation_tokens();
#endif
    int wrapped_failed = wrapped_checks();
    if (wrapped_failed != 0) {
        check_failed += (unsigned)wrapped_failed;
        fprintf(stderr, "FAIL wrapped.cpp: %d checks\n", wrapped_failed);
    }
    return CHECK_DONE();
}
