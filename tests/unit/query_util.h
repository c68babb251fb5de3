/*
 * What the query API's unit tests share: a counting allocator, a get that tallies its replies and
 * its end, a queryable that keeps (clones) its queries, and peer sessions on loopback TCP. Waits
 * are on condvars with deadlines. Header-only: one user per program.
 */
#ifndef ZM_TEST_QUERY_UTIL_H
#define ZM_TEST_QUERY_UTIL_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "check.h"
#include "zenoh-pico.h"
#include "zmote/port.h"

static atomic_long allocs;
static atomic_long frees;

static inline void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    atomic_fetch_add(&allocs, 1);
    return malloc(size);
}

static inline void count_free(void *ctx, void *ptr)
{
    (void)ctx;
    atomic_fetch_add(&frees, 1);
    free(ptr);
}

static inline long live(void) { return atomic_load(&allocs) - atomic_load(&frees); }

static inline bool text_is(const zm_api_slice_t *s, const char *text)
{
    return s->len == strlen(text) && (s->len == 0 || memcmp(s->start, text, s->len) == 0);
}

static inline const z_loaned_keyexpr_t *key_of(z_view_keyexpr_t *k, const char *text)
{
    CHECK_EQ_INT(z_view_keyexpr_from_str(k, text), Z_OK);
    return z_loan(*k);
}

/* ---- what a get saw: its replies and its end ---------------------------------------------------- */

typedef struct {
    z_owned_mutex_t lock;
    z_owned_condvar_t cond;
    unsigned ok;
    unsigned err;
    unsigned ends;
    char last[32];
} tally_t;

static inline void tally_init(tally_t *t)
{
    memset(t, 0, sizeof(*t));
    CHECK_EQ_INT(z_mutex_init(&t->lock), Z_OK);
    CHECK_EQ_INT(z_condvar_init(&t->cond), Z_OK);
}

static inline void tally_fini(tally_t *t)
{
    z_drop(z_move(t->cond));
    z_drop(z_move(t->lock));
}

static inline void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    tally_t *t = ctx;
    z_mutex_lock(z_loan_mut(t->lock));
    const z_loaned_bytes_t *payload =
        z_reply_is_ok(reply) ? z_sample_payload(z_reply_ok(reply)) : z_reply_err_payload(z_reply_err(reply));
    z_bytes_reader_t r = z_bytes_get_reader(payload);
    size_t n = z_bytes_reader_read(&r, (uint8_t *)t->last, sizeof(t->last) - 1);
    t->last[n] = '\0';
    if (z_reply_is_ok(reply)) {
        t->ok++;
    } else {
        t->err++;
    }
    z_mutex_unlock(z_loan_mut(t->lock));
}

static inline void on_end(void *ctx)
{
    tally_t *t = ctx;
    z_mutex_lock(z_loan_mut(t->lock));
    t->ends++;
    z_condvar_signal(z_loan_mut(t->cond));
    z_mutex_unlock(z_loan_mut(t->lock));
}

/* Waits until the get ended, at most ms; true if it did. */
static inline bool tally_wait_end(tally_t *t, unsigned long ms)
{
    z_clock_t deadline = z_clock_now();
    z_clock_advance_ms(&deadline, ms);
    z_mutex_lock(z_loan_mut(t->lock));
    while (t->ends == 0 &&
           z_condvar_wait_until(z_loan_mut(t->cond), z_loan_mut(t->lock), &deadline) != Z_ETIMEDOUT) {
    }
    bool ended = t->ends > 0;
    z_mutex_unlock(z_loan_mut(t->lock));
    return ended;
}

static inline unsigned tally_ends(tally_t *t)
{
    z_mutex_lock(z_loan_mut(t->lock));
    unsigned n = t->ends;
    z_mutex_unlock(z_loan_mut(t->lock));
    return n;
}

/* A get of key on s whose replies and end go to t; timeout_ms 0: the default. */
static inline z_result_t tally_get(const z_loaned_session_t *s, const char *key, tally_t *t, uint64_t timeout_ms)
{
    z_view_keyexpr_t k;
    z_get_options_t o;
    z_get_options_default(&o);
    o.consolidation = z_query_consolidation_none();
    o.timeout_ms = timeout_ms;
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_end, t);
    return z_get(s, key_of(&k, key), "", z_move(cb), &o);
}

/* ---- a queryable that keeps every query (clones it) ---------------------------------------------- */

#define KEPT_MAX 4

typedef struct {
    z_owned_mutex_t lock;
    z_owned_query_t kept[KEPT_MAX];
    unsigned n;
    z_result_t outside; /* what replying outside the query gave */
    atomic_int drops;
} keeper_t;

static inline void keeper_drop(void *ctx)
{
    keeper_t *k = ctx;
    atomic_fetch_add(&k->drops, 1);
}

static inline void keep_query(z_loaned_query_t *query, void *ctx)
{
    keeper_t *k = ctx;
    z_owned_bytes_t p;
    z_bytes_from_static_str(&p, "x");
    z_view_keyexpr_t other;
    z_view_keyexpr_from_str(&other, "elsewhere/x");
    z_result_t outside = z_query_reply(query, z_loan(other), z_move(p), NULL);
    z_mutex_lock(z_loan_mut(k->lock));
    k->outside = outside;
    if (k->n < KEPT_MAX) {
        CHECK_EQ_INT(z_query_clone(&k->kept[k->n], query), Z_OK);
        k->n++;
    }
    z_mutex_unlock(z_loan_mut(k->lock));
}

/* ---- sessions ------------------------------------------------------------------------------------ */

static inline uint16_t free_port(void)
{
    zm_socket_t sock;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&sock, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&sock, &port), Z_OK);
    zm_port_socket_close(&sock);
    return port;
}

static inline z_result_t open_peer(z_owned_session_t *s, const char *listen, const char *connect)
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

static inline void listen_endpoint(char *out, size_t cap) { snprintf(out, cap, "tcp/127.0.0.1:%u", free_port()); }


static inline void reply_text(const z_loaned_query_t *q, const char *text, z_result_t want)
{
    z_owned_bytes_t p;
    z_bytes_copy_from_str(&p, text);
    CHECK_EQ_INT(z_query_reply(q, z_query_keyexpr(q), z_move(p), NULL), want);
}


#endif /* ZM_TEST_QUERY_UTIL_H */
