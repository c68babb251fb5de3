/*
 * The order logic of an advanced subscriber (advanced_seq.h), zenoh-ext's: a publisher's samples
 * go out in sequence number order (timestamp order without sequence numbers); a gap is either
 * reported at once (no recovery) or waited for while queries for it are under way, and reported
 * only when they end without it. The tables are small and fixed, so lookups are scans of them:
 * the held samples only when the publisher has some held.
 */
#include <string.h>

#include "api/advanced_seq.h"
#include "util/log.h"

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_SUBSCRIPTION == 1

/* Whether sequence number a comes after b, with wrapping (Rust's WrappingSn order). */
static bool sn_after(uint32_t a, uint32_t b)
{
    uint32_t d = a - b;
    return d != 0 && d <= UINT32_MAX / 2u;
}

/* The order of two timestamps: by time, then by clock id. */
static int ts_cmp(const z_timestamp_t *a, const z_timestamp_t *b)
{
    if (a->time != b->time) {
        return a->time < b->time ? -1 : 1;
    }
    for (size_t i = 16; i > 0; i--) {
        if (a->id.id[i - 1] != b->id.id[i - 1]) {
            return a->id.id[i - 1] < b->id.id[i - 1] ? -1 : 1;
        }
    }
    return 0;
}

void zm_adv_seq_init(zm_adv_seq_t *seq, zm_adv_deliver_fn deliver, zm_adv_missed_fn missed, void *ctx,
                     bool retransmission, bool history, size_t max_depth)
{
    memset(seq, 0, sizeof(*seq));
    seq->deliver = deliver;
    seq->missed = missed;
    seq->ctx = ctx;
    seq->retransmission = retransmission;
    seq->global_pending = history ? 1u : 0u;
    seq->max_depth = max_depth;
    for (size_t i = 0; i < ZM_ADV_SUB_HELD; i++) {
        z_internal_sample_null(&seq->held[i].sample);
    }
}

/* ---- publishers ---------------------------------------------------------------------------------- */

static int source_find(const zm_adv_seq_t *seq, bool sequenced, const z_entity_global_id_t *id)
{
    for (int k = 0; k < ZM_ADV_SUB_PUBLISHERS; k++) {
        const zm_adv_source_t *s = &seq->sources[k];
        if (s->used && s->sequenced == sequenced && memcmp(&s->id.zid, &id->zid, sizeof(id->zid)) == 0 &&
            (!sequenced || s->id.eid == id->eid)) {
            return k;
        }
    }
    return -1;
}

/* The publisher's entry, made when new (*fresh) in a free one or in place of the least recently
 * seen idle one; -1 when every entry is busy. */
static int source_get(zm_adv_seq_t *seq, bool sequenced, const z_entity_global_id_t *id, bool *fresh)
{
    int k = source_find(seq, sequenced, id);
    if (fresh != NULL) {
        *fresh = k < 0;
    }
    if (k >= 0) {
        return k;
    }
    for (int j = 0; j < ZM_ADV_SUB_PUBLISHERS; j++) {
        const zm_adv_source_t *s = &seq->sources[j];
        if (!s->used) {
            k = j;
            break;
        }
        if (!s->alive && s->pending == 0 && s->held == 0 && (k < 0 || s->seen < seq->sources[k].seen)) {
            k = j;
        }
    }
    if (k < 0) {
        ZM_LOG_W("advanced subscriber: %d publishers followed already, a new one's samples go unordered",
                 ZM_ADV_SUB_PUBLISHERS);
        return -1;
    }
    zm_adv_source_t *s = &seq->sources[k];
    memset(s, 0, sizeof(*s));
    s->used = true;
    s->sequenced = sequenced;
    s->id.zid = id->zid;
    s->id.eid = sequenced ? id->eid : 0u;
    s->seen = ++seq->tick;
    return k;
}

/* ---- held samples -------------------------------------------------------------------------------- */

static const z_timestamp_t *held_ts(const zm_adv_held_t *h) { return z_sample_timestamp(z_sample_loan(&h->sample)); }

static void held_release(zm_adv_seq_t *seq, int i)
{
    zm_adv_held_t *h = &seq->held[i];
    z_sample_drop(z_sample_move(&h->sample));
    h->used = false;
    seq->sources[h->source].held--;
}

static void held_deliver(zm_adv_seq_t *seq, int i)
{
    seq->deliver(seq->ctx, z_sample_loan_mut(&seq->held[i].sample));
    held_release(seq, i);
}

/* The held sample of publisher k with sequence number sn (or timestamp ts), or -1. */
static int held_find(const zm_adv_seq_t *seq, int k, uint32_t sn, const z_timestamp_t *ts)
{
    for (int i = 0; seq->sources[k].held > 0 && i < ZM_ADV_SUB_HELD; i++) {
        const zm_adv_held_t *h = &seq->held[i];
        if (h->used && h->source == k && (ts != NULL ? ts_cmp(held_ts(h), ts) == 0 : h->sn == sn)) {
            return i;
        }
    }
    return -1;
}

/* The first held sample of publisher k in its order, or -1. */
static int held_first(const zm_adv_seq_t *seq, int k)
{
    int best = -1;
    for (int i = 0; seq->sources[k].held > 0 && i < ZM_ADV_SUB_HELD; i++) {
        const zm_adv_held_t *h = &seq->held[i];
        if (!h->used || h->source != k) {
            continue;
        }
        if (best < 0 || (seq->sources[k].sequenced ? sn_after(seq->held[best].sn, h->sn)
                                                   : ts_cmp(held_ts(h), held_ts(&seq->held[best])) < 0)) {
            best = i;
        }
    }
    return best;
}

/* Delivers publisher k's sample of sequence number sn (a live one, or held one i), then those held after it. */
static void deliver_and_flush(zm_adv_seq_t *seq, int k, z_loaned_sample_t *sample, int i, uint32_t sn)
{
    zm_adv_source_t *s = &seq->sources[k];
    if (sample != NULL) {
        seq->deliver(seq->ctx, sample);
    } else {
        held_deliver(seq, i);
    }
    s->has_last = true;
    s->last = sn;
    while ((i = held_find(seq, k, s->last + 1u, NULL)) >= 0) {
        held_deliver(seq, i);
        s->last++;
    }
}

/* Delivers publisher k's first held sample as the end of its queries would: a gap before it is missed. */
static void flush_one(zm_adv_seq_t *seq, int k, int i)
{
    zm_adv_source_t *s = &seq->sources[k];
    if (s->sequenced) {
        uint32_t sn = seq->held[i].sn;
        if (!s->has_last || sn == s->last + 1u) {
            deliver_and_flush(seq, k, NULL, i, sn);
        } else if (sn_after(sn, s->last)) {
            ZM_LOG_I("advanced subscriber: missed %u samples", (unsigned)(sn - s->last - 1u));
            seq->missed(seq->ctx, &s->id, sn - s->last - 1u);
            deliver_and_flush(seq, k, NULL, i, sn);
        } else {
            held_release(seq, i); /* a duplicate */
        }
    } else {
        const z_timestamp_t ts = *held_ts(&seq->held[i]);
        if (!s->has_last || ts_cmp(&ts, &s->last_ts) > 0) {
            s->has_last = true;
            s->last_ts = ts;
            held_deliver(seq, i);
        } else {
            held_release(seq, i);
        }
    }
}

/* Publisher k's queries ended: everything it holds goes, in order (Rust's flush). */
static void flush(zm_adv_seq_t *seq, int k)
{
    int i;
    while (seq->sources[k].pending == 0 && (i = held_first(seq, k)) >= 0) {
        flush_one(seq, k, i);
    }
}

/* Holds sample for publisher k (sn: its sequence number); full, the oldest held goes first. */
static void hold(zm_adv_seq_t *seq, int k, uint32_t sn, z_loaned_sample_t *sample)
{
    if (held_find(seq, k, sn, seq->sources[k].sequenced ? NULL : z_sample_timestamp(sample)) >= 0) {
        return; /* the same sample twice: live and replied */
    }
    int free_slot = -1;
    for (int i = 0; i < ZM_ADV_SUB_HELD && free_slot < 0; i++) {
        free_slot = seq->held[i].used ? -1 : i;
    }
    if (free_slot < 0) {
        int j = seq->sources[k].held > 0 ? k : seq->held[0].source;
        free_slot = held_first(seq, j);
        ZM_LOG_I("advanced subscriber: %d samples held already, the oldest goes", ZM_ADV_SUB_HELD);
        flush_one(seq, j, free_slot); /* frees it, maybe others */
        const zm_adv_source_t *src = &seq->sources[k];
        if (src->sequenced && src->has_last && !sn_after(sn, src->last + 1u)) {
            if (sn == src->last + 1u) { /* its turn came */
                deliver_and_flush(seq, k, sample, -1, sn);
            }
            return;
        }
    }
    zm_adv_held_t *h = &seq->held[free_slot];
    if (z_sample_clone(&h->sample, sample) != Z_OK) {
        ZM_LOG_W("advanced subscriber: no memory to hold a sample, it is lost");
        return;
    }
    h->used = true;
    h->source = (uint8_t)k;
    h->sn = sn;
    seq->sources[k].held++;
}

/* ---- events -------------------------------------------------------------------------------------- */

static bool seen_sequenced(zm_adv_seq_t *seq, z_loaned_sample_t *sample, const z_source_info_t *si, zm_adv_ask_t *ask)
{
    z_entity_global_id_t id = z_source_info_id(si);
    uint32_t sn = z_source_info_sn(si);
    int k = source_get(seq, true, &id, NULL);
    if (k < 0) {
        seq->deliver(seq->ctx, sample);
        return false;
    }
    zm_adv_source_t *s = &seq->sources[k];
    s->seen = ++seq->tick;
    if (!s->has_last && seq->global_pending != 0) { /* history on its way: wait for it */
        if (seq->max_depth == 1) {
            s->has_last = true;
            s->last = sn;
            seq->deliver(seq->ctx, sample);
        } else {
            hold(seq, k, sn, sample);
            if (s->held >= seq->max_depth) {
                int i = held_first(seq, k);
                deliver_and_flush(seq, k, NULL, i, seq->held[i].sn);
            }
        }
    } else if (s->has_last && sn != s->last + 1u) {
        if (sn_after(sn, s->last)) { /* a gap: wait for it, or report it */
            if (seq->retransmission) {
                hold(seq, k, sn, sample);
            } else {
                ZM_LOG_I("advanced subscriber: missed %u samples", (unsigned)(sn - s->last - 1u));
                seq->missed(seq->ctx, &s->id, sn - s->last - 1u);
                seq->deliver(seq->ctx, sample);
                s->last = sn;
            }
        } /* else an old one: dropped */
    } else {
        deliver_and_flush(seq, k, sample, -1, sn);
    }
    if (ask == NULL || !seq->retransmission || s->pending != 0 || s->held == 0) {
        return false;
    }
    s->pending++;
    ask->id = s->id;
    ask->has_first = s->has_last;
    ask->first = s->last + 1u;
    return true;
}

bool zm_adv_seq_sample(zm_adv_seq_t *seq, z_loaned_sample_t *sample, zm_adv_ask_t *ask)
{
    const z_source_info_t *si = z_sample_source_info(sample);
    if (si != NULL) {
        return seen_sequenced(seq, sample, si, ask);
    }
    const z_timestamp_t *ts = z_sample_timestamp(sample);
    z_entity_global_id_t id;
    memset(&id, 0, sizeof(id));
    int k = -1;
    if (ts != NULL) {
        id.zid = z_timestamp_id(ts);
        k = source_get(seq, false, &id, NULL);
    }
    if (k < 0) {
        seq->deliver(seq->ctx, sample);
        return false;
    }
    zm_adv_source_t *s = &seq->sources[k];
    s->seen = ++seq->tick;
    if (!s->has_last || ts_cmp(ts, &s->last_ts) > 0) {
        if ((seq->global_pending == 0 && s->pending == 0) || seq->max_depth == 1) {
            s->has_last = true;
            s->last_ts = *ts;
            seq->deliver(seq->ctx, sample);
        } else {
            hold(seq, k, 0, sample);
            if (s->held >= seq->max_depth) {
                flush(seq, k);
            }
        }
    }
    return false;
}

void zm_adv_seq_query_end(zm_adv_seq_t *seq, zm_adv_query_t kind, const z_entity_global_id_t *id, bool deliver)
{
    if (kind == ZM_ADV_QUERY_INITIAL) {
        seq->global_pending -= seq->global_pending > 0 ? 1u : 0u;
        for (int k = 0; deliver && seq->global_pending == 0 && k < ZM_ADV_SUB_PUBLISHERS; k++) {
            if (seq->sources[k].used) {
                flush(seq, k);
            }
        }
        return;
    }
    int k = source_find(seq, kind == ZM_ADV_QUERY_SEQUENCED, id);
    if (k < 0) {
        return;
    }
    zm_adv_source_t *s = &seq->sources[k];
    s->pending -= s->pending > 0 ? 1u : 0u;
    if (deliver && seq->global_pending == 0) {
        flush(seq, k);
    }
}

bool zm_adv_seq_publisher(zm_adv_seq_t *seq, zm_adv_query_t kind, const z_entity_global_id_t *id, bool put)
{
    if (kind == ZM_ADV_QUERY_INITIAL) { /* a token zmote cannot place: ask all it has */
        seq->global_pending += put ? 1u : 0u;
        return put;
    }
    bool sequenced = kind == ZM_ADV_QUERY_SEQUENCED;
    if (!put) {
        int k = source_find(seq, sequenced, id);
        if (k >= 0) {
            seq->sources[k].alive = false;
        }
        return false;
    }
    int k = source_get(seq, sequenced, id, NULL);
    if (k >= 0) {
        zm_adv_source_t *s = &seq->sources[k];
        s->pending++;
        s->alive = true;
        s->seen = ++seq->tick;
    }
    return true;
}

bool zm_adv_seq_heartbeat(zm_adv_seq_t *seq, const z_entity_global_id_t *id, uint32_t sn, zm_adv_ask_t *ask)
{
    bool fresh;
    int k = source_get(seq, true, id, &fresh);
    if (k < 0) {
        return false;
    }
    zm_adv_source_t *s = &seq->sources[k];
    s->seen = ++seq->tick;
    if ((fresh && seq->global_pending > 0) || s->pending != 0 || (s->has_last && !sn_after(sn, s->last))) {
        return false; /* its history comes anyway, a query is under way, or nothing was missed */
    }
    s->pending++;
    ask->id = s->id;
    ask->has_first = s->has_last;
    ask->first = s->last + 1u;
    return true;
}

size_t zm_adv_seq_periodic(zm_adv_seq_t *seq, zm_adv_ask_t asks[ZM_ADV_SUB_PUBLISHERS])
{
    size_t n = 0;
    for (int k = 0; k < ZM_ADV_SUB_PUBLISHERS; k++) {
        zm_adv_source_t *s = &seq->sources[k];
        if (s->used && s->sequenced) {
            s->pending++;
            asks[n].id = s->id;
            asks[n].has_first = s->has_last;
            asks[n].first = s->last + 1u;
            n++;
        }
    }
    return n;
}

void zm_adv_seq_clear(zm_adv_seq_t *seq)
{
    for (int i = 0; i < ZM_ADV_SUB_HELD; i++) {
        if (seq->held[i].used) {
            held_release(seq, i);
        }
    }
}

#endif
