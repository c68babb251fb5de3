/*
 * The order logic of the advanced subscriber (src/api/advanced_seq.h), driven directly with
 * samples made here: delivery in sequence number order, a gap reported or waited for while a
 * query is under way, history held until its query ends, sequence numbers that wrap, the bounds
 * of held samples and of publishers followed, heartbeats and periodic queries, timestamp order
 * for publishers without sequence numbers. Nothing is left held at the end.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/advanced_seq.h"
#include "check.h"
#include "util/alloc.h"
#include "zenoh-pico.h"

static atomic_long live_blocks;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    atomic_fetch_add(&live_blocks, 1);
    return malloc(size);
}

static void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr != NULL) {
        atomic_fetch_sub(&live_blocks, 1);
    }
    free(ptr);
}

/* What the outlets saw: "<sn>" per delivered sample (its payload), "m<nb>" per miss, space-separated. */
static char seen[1024];

static void note(const char *text)
{
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof(seen) - n, "%s%s", n > 0 ? " " : "", text);
}

static void deliver(void *ctx, z_loaned_sample_t *sample)
{
    (void)ctx;
    z_owned_string_t s;
    z_bytes_to_string(z_sample_payload(sample), &s);
    char text[32];
    snprintf(text, sizeof(text), "%.*s", (int)z_string_len(z_loan(s)), z_string_data(z_loan(s)));
    z_drop(z_move(s));
    note(text);
}

static z_entity_global_id_t last_miss_source;

static void missed(void *ctx, const z_entity_global_id_t *source, uint32_t nb)
{
    (void)ctx;
    char text[16];
    snprintf(text, sizeof(text), "m%u", (unsigned)nb);
    note(text);
    last_miss_source = *source;
}

static z_entity_global_id_t pub_id(uint8_t zid0, uint32_t eid)
{
    z_entity_global_id_t id;
    memset(&id, 0, sizeof(id));
    id.zid.id[0] = zid0;
    id.eid = eid;
    return id;
}

/* A sample of publisher id with sequence number sn (its payload the number), or without source info
 * but with timestamp time when sequenced is false; then given to seq. Returns what seq asked. */
static bool feed(zm_adv_seq_t *seq, z_entity_global_id_t id, uint32_t sn, bool sequenced, uint64_t time,
                 zm_adv_ask_t *ask)
{
    char text[16];
    snprintf(text, sizeof(text), "%u", (unsigned)(sequenced ? sn : time));
    z_owned_bytes_t payload;
    CHECK_EQ_INT(z_bytes_copy_from_str(&payload, text), Z_OK);
    zm_api_sample_t s;
    memset(&s, 0, sizeof(s));
    s.payload = payload._val;
    s.kind = Z_SAMPLE_KIND_PUT;
    if (sequenced) {
        s.has_source_info = true;
        s.source_info = z_source_info_new(&id, sn);
    } else {
        s.timestamp.valid = true;
        s.timestamp.id = id.zid;
        s.timestamp.time = time;
    }
    bool asked = zm_adv_seq_sample(seq, &s, ask);
    z_bytes_drop(z_move(payload));
    return asked;
}

static bool put(zm_adv_seq_t *seq, z_entity_global_id_t id, uint32_t sn, zm_adv_ask_t *ask)
{
    return feed(seq, id, sn, true, 0, ask);
}

static void start(zm_adv_seq_t *seq, bool retransmission, bool history, size_t depth)
{
    seen[0] = '\0';
    zm_adv_seq_init(seq, deliver, missed, NULL, retransmission, history, depth);
}

static zm_adv_seq_t seq; /* big: ZM_ADV_SUB_HELD samples */

static void test_in_order_and_gaps(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    zm_adv_ask_t ask;
    start(&seq, false, false, SIZE_MAX);
    for (uint32_t sn = 0; sn < 3; sn++) {
        CHECK(!put(&seq, a, sn, &ask));
    }
    CHECK(!put(&seq, a, 6, &ask)); /* no recovery: the gap is reported at once */
    CHECK(!put(&seq, a, 4, &ask)); /* older than the last: dropped */
    CHECK(!put(&seq, a, 7, &ask));
    CHECK_EQ_STR(seen, "0 1 2 m3 6 7");
    CHECK_EQ_INT(last_miss_source.eid, 7);
    CHECK_EQ_INT(last_miss_source.zid.id[0], 1);
    zm_adv_seq_clear(&seq);
}

static void test_recovery(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    zm_adv_ask_t ask;
    start(&seq, true, false, SIZE_MAX);
    CHECK(!put(&seq, a, 10, &ask));
    CHECK(put(&seq, a, 13, &ask)); /* held, and a query for what follows 10 */
    CHECK(ask.has_first && ask.first == 11 && ask.id.eid == 7);
    CHECK(!put(&seq, a, 14, &ask)); /* held; the query is under way already */
    CHECK_EQ_STR(seen, "10");
    CHECK(!put(&seq, a, 11, NULL)); /* the query's replies */
    CHECK_EQ_STR(seen, "10 11");
    CHECK(!put(&seq, a, 12, NULL));
    CHECK(!put(&seq, a, 13, NULL)); /* held already: once */
    CHECK_EQ_STR(seen, "10 11 12 13 14");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    CHECK_EQ_STR(seen, "10 11 12 13 14");

    /* a query that ends without the missing ones: the gap is reported then */
    CHECK(put(&seq, a, 17, &ask));
    CHECK(ask.first == 15);
    CHECK(!put(&seq, a, 16, NULL));
    CHECK_EQ_STR(seen, "10 11 12 13 14");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    CHECK_EQ_STR(seen, "10 11 12 13 14 m1 16 17");
    zm_adv_seq_clear(&seq);
}

static void test_history(void)
{
    z_entity_global_id_t a = pub_id(1, 7), b = pub_id(2, 1);
    start(&seq, true, true, SIZE_MAX);
    CHECK(!put(&seq, a, 5, NULL)); /* live samples before the history query ends: held */
    CHECK(!put(&seq, b, 0, NULL));
    CHECK(!put(&seq, a, 3, NULL)); /* its replies */
    CHECK(!put(&seq, a, 4, NULL));
    CHECK_EQ_STR(seen, "");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_INITIAL, NULL, true);
    CHECK(strcmp(seen, "3 4 5 0") == 0 || strcmp(seen, "0 3 4 5") == 0);
    zm_adv_seq_clear(&seq);

    /* history of one sample: no holding */
    start(&seq, false, true, 1);
    CHECK(!put(&seq, a, 9, NULL));
    CHECK(!put(&seq, a, 10, NULL));
    CHECK_EQ_STR(seen, "9 10");
    zm_adv_seq_clear(&seq);

    /* history of 2 samples: the third held goes out first */
    start(&seq, false, true, 3);
    CHECK(!put(&seq, a, 8, NULL));
    CHECK(!put(&seq, a, 6, NULL));
    CHECK_EQ_STR(seen, "");
    CHECK(!put(&seq, a, 7, NULL));
    CHECK_EQ_STR(seen, "6 7 8");
    zm_adv_seq_clear(&seq);
}

static void test_wrap(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    zm_adv_ask_t ask;
    start(&seq, true, false, SIZE_MAX);
    CHECK(!put(&seq, a, UINT32_MAX - 1u, &ask));
    CHECK(put(&seq, a, 1, &ask)); /* after UINT32_MAX, 0 */
    CHECK(ask.first == UINT32_MAX);
    CHECK(!put(&seq, a, UINT32_MAX, NULL));
    CHECK(!put(&seq, a, 0, NULL));
    CHECK_EQ_STR(seen, "4294967294 4294967295 0 1");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    zm_adv_seq_clear(&seq);
}

static void test_bounds(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    zm_adv_ask_t ask;
    start(&seq, true, false, SIZE_MAX);
    CHECK(!put(&seq, a, 0, &ask));
    CHECK(put(&seq, a, 2, &ask));
    for (uint32_t sn = 3; sn < 2u + ZM_ADV_SUB_HELD; sn++) {
        CHECK(!put(&seq, a, sn, &ask));
    }
    CHECK_EQ_STR(seen, "0");
    /* full: the oldest held goes, its gap reported, and those after it */
    CHECK(!put(&seq, a, 2u + ZM_ADV_SUB_HELD, &ask));
    char want[1024] = "0 m1";
    for (uint32_t sn = 2; sn <= 2u + ZM_ADV_SUB_HELD; sn++) {
        size_t n = strlen(want);
        snprintf(want + n, sizeof(want) - n, " %u", (unsigned)sn);
    }
    CHECK_EQ_STR(seen, want);
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    zm_adv_seq_clear(&seq);

    /* publishers: one more than the table forgets the least recently seen idle one */
    start(&seq, false, false, SIZE_MAX);
    for (uint32_t p = 0; p <= ZM_ADV_SUB_PUBLISHERS; p++) {
        CHECK(!put(&seq, pub_id(3, p), 5, NULL));
    }
    CHECK(!put(&seq, pub_id(3, 0), 9, NULL)); /* forgotten: a new start, no miss */
    CHECK(strstr(seen, "m") == NULL);
    CHECK(!put(&seq, pub_id(3, ZM_ADV_SUB_PUBLISHERS), 7, NULL)); /* still followed */
    CHECK(strstr(seen, "m1") != NULL);
    zm_adv_seq_clear(&seq);
}

static void test_heartbeats_and_periodic(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    zm_adv_ask_t ask;
    start(&seq, true, false, SIZE_MAX);
    CHECK(zm_adv_seq_heartbeat(&seq, &a, 3, &ask)); /* unknown publisher: all up to 3 */
    CHECK(!ask.has_first);
    CHECK(!zm_adv_seq_heartbeat(&seq, &a, 3, &ask)); /* a query under way */
    CHECK(!put(&seq, a, 2, NULL));
    CHECK(!put(&seq, a, 3, NULL));
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    CHECK_EQ_STR(seen, "2 3");
    CHECK(!zm_adv_seq_heartbeat(&seq, &a, 3, &ask)); /* nothing missed */
    CHECK(zm_adv_seq_heartbeat(&seq, &a, 5, &ask));
    CHECK(ask.has_first && ask.first == 4);
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);

    zm_adv_ask_t asks[ZM_ADV_SUB_PUBLISHERS];
    CHECK_EQ_INT(zm_adv_seq_periodic(&seq, asks), 1);
    CHECK(asks[0].has_first && asks[0].first == 4 && asks[0].id.eid == 7);
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    zm_adv_seq_clear(&seq);

    /* a heartbeat of a publisher new during the history query waits for its history */
    start(&seq, true, true, SIZE_MAX);
    CHECK(!zm_adv_seq_heartbeat(&seq, &a, 3, &ask));
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_INITIAL, NULL, true);
    zm_adv_seq_clear(&seq);
}

static void test_late_publisher(void)
{
    z_entity_global_id_t a = pub_id(1, 7);
    start(&seq, true, false, SIZE_MAX);
    CHECK(zm_adv_seq_publisher(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true));
    CHECK(!put(&seq, a, 2, NULL)); /* its history, delivered as it comes (as Rust does) */
    CHECK(!put(&seq, a, 3, NULL));
    CHECK(!put(&seq, a, 5, NULL)); /* live, after a gap: held until the query ends */
    CHECK_EQ_STR(seen, "2 3");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_SEQUENCED, &a, true);
    CHECK_EQ_STR(seen, "2 3 m1 5");
    CHECK(!put(&seq, a, 1, NULL)); /* a reply older than what was delivered: dropped */
    CHECK_EQ_STR(seen, "2 3 m1 5");
    CHECK(!zm_adv_seq_publisher(&seq, ZM_ADV_QUERY_SEQUENCED, &a, false)); /* gone */
    CHECK(zm_adv_seq_publisher(&seq, ZM_ADV_QUERY_INITIAL, &a, true));    /* unplaced: all history */
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_INITIAL, NULL, true);
    zm_adv_seq_clear(&seq);
}

static void test_timestamps(void)
{
    z_entity_global_id_t a = pub_id(4, 0);
    start(&seq, false, true, SIZE_MAX);
    CHECK(!feed(&seq, a, 0, false, 300, NULL));
    CHECK(!feed(&seq, a, 0, false, 100, NULL));
    CHECK(!feed(&seq, a, 0, false, 100, NULL)); /* the same twice: once */
    CHECK(!feed(&seq, a, 0, false, 200, NULL));
    CHECK_EQ_STR(seen, "");
    zm_adv_seq_query_end(&seq, ZM_ADV_QUERY_INITIAL, NULL, true);
    CHECK_EQ_STR(seen, "100 200 300");
    CHECK(!feed(&seq, a, 0, false, 250, NULL)); /* older than the last: dropped */
    CHECK(!feed(&seq, a, 0, false, 400, NULL));
    CHECK_EQ_STR(seen, "100 200 300 400");
    zm_adv_seq_clear(&seq);
}

int main(void)
{
    zm_allocator_t counting = {count_alloc, count_free, NULL};
    zm_allocator_set(&counting);
    test_in_order_and_gaps();
    test_recovery();
    test_history();
    test_wrap();
    test_bounds();
    test_heartbeats_and_periodic();
    test_late_publisher();
    test_timestamps();
    CHECK_EQ_INT(atomic_load(&live_blocks), 0);
    zm_allocator_set(NULL);
    return CHECK_DONE();
}
