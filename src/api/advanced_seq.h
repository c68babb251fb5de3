/*
 * The order logic of an advanced subscriber (zenoh-ext's, state for state): per publisher, the
 * last sample delivered (its sequence number, or its timestamp for publishers without miss
 * detection) and the queries under way; the samples held back until those before them come or
 * the queries end. No lock and no I/O here: the caller holds its subscriber's lock and sends the
 * queries asked for. Bounded: ZM_ADV_SUB_PUBLISHERS publishers (full: the least recently seen
 * idle one is forgotten), ZM_ADV_SUB_HELD held samples (full: the oldest is delivered, as if
 * the queries for what is missing before it had ended).
 */
#ifndef ZM_API_ADVANCED_SEQ_H
#define ZM_API_ADVANCED_SEQ_H

#include "zmote.h"

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_SUBSCRIPTION == 1

/** What a query's end settles: the history of all publishers, or of one (by sn or timestamp). */
typedef enum { ZM_ADV_QUERY_INITIAL, ZM_ADV_QUERY_SEQUENCED, ZM_ADV_QUERY_TIMESTAMPED } zm_adv_query_t;

/** A recovery query to send: publisher id's samples from first on (none: all). */
typedef struct {
    z_entity_global_id_t id;
    bool has_first;
    uint32_t first;
} zm_adv_ask_t;

/** A publisher followed. */
typedef struct {
    bool used;
    bool sequenced; /* keyed by (zid, eid); else by zid, ordered by timestamps */
    bool alive;     /* its liveliness token is there */
    bool has_last;
    z_entity_global_id_t id;
    uint32_t last;          /* sequenced: the last sn delivered */
    z_timestamp_t last_ts;  /* timestamped: the last timestamp delivered */
    uint32_t pending;       /* its queries under way */
    uint32_t held;          /* its samples held */
    uint64_t seen;          /* when last used (a tick of the tracker), for the choice of one to forget */
} zm_adv_source_t;

/** A sample held back. */
typedef struct {
    bool used;
    uint8_t source; /* index in sources */
    uint32_t sn;
    z_owned_sample_t sample;
} zm_adv_held_t;

/** Delivers a sample to the program. */
typedef void (*zm_adv_deliver_fn)(void *ctx, z_loaned_sample_t *sample);
/** Tells the miss listeners that source missed nb samples. */
typedef void (*zm_adv_missed_fn)(void *ctx, const z_entity_global_id_t *source, uint32_t nb);

typedef struct {
    zm_adv_deliver_fn deliver;
    zm_adv_missed_fn missed;
    void *ctx;
    bool retransmission;     /* recovery: wait for missing samples (else report them missed) */
    uint32_t global_pending; /* history queries of all publishers under way */
    size_t max_depth;        /* history's max samples (SIZE_MAX: none) */
    uint64_t tick;
    zm_adv_source_t sources[ZM_ADV_SUB_PUBLISHERS];
    zm_adv_held_t held[ZM_ADV_SUB_HELD];
} zm_adv_seq_t;

/** Sets seq up; history: the declaration sends a history query of all publishers (ended by zm_adv_seq_query_end). */
void zm_adv_seq_init(zm_adv_seq_t *seq, zm_adv_deliver_fn deliver, zm_adv_missed_fn missed, void *ctx,
                     bool retransmission, bool history, size_t max_depth);
/** Drops the held samples. */
void zm_adv_seq_clear(zm_adv_seq_t *seq);
/**
 * A sample (live, or a reply): delivered now, held, or dropped (a duplicate). With ask non-NULL
 * (a live sample), true when a query for what is missing before it must be sent (*ask; counted
 * under way: its end must be given to zm_adv_seq_query_end).
 */
bool zm_adv_seq_sample(zm_adv_seq_t *seq, z_loaned_sample_t *sample, zm_adv_ask_t *ask);
/** A query of kind (for publisher id) ended: what it held back may go. */
void zm_adv_seq_query_end(zm_adv_seq_t *seq, zm_adv_query_t kind, const z_entity_global_id_t *id, bool deliver);
/** A publisher's token came (put) or went: true when its history must be asked for (counted under way). */
bool zm_adv_seq_publisher(zm_adv_seq_t *seq, zm_adv_query_t kind, const z_entity_global_id_t *id, bool put);
/** A heartbeat of publisher id, of last sn: true when its samples up to sn must be asked for (*ask, counted). */
bool zm_adv_seq_heartbeat(zm_adv_seq_t *seq, const z_entity_global_id_t *id, uint32_t sn, zm_adv_ask_t *ask);
/** The periodic queries, one per publisher followed by sequence number (counted): how many in asks. */
size_t zm_adv_seq_periodic(zm_adv_seq_t *seq, zm_adv_ask_t asks[ZM_ADV_SUB_PUBLISHERS]);

#endif

#endif /* ZM_API_ADVANCED_SEQ_H */
