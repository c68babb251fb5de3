/*
 * Responses to our gets as a remote peer sends them, seen from the wire: a raw transport connects
 * to a listening session, receives its requests and answers them by hand. An error on the empty
 * key expression (what Rust sends when a query times out on its side) reaches the get as an error
 * and keeps the link; responses to a get that ended are ignored; a reply (not an error) on the
 * empty key expression is invalid and closes the link.
 */
#include <stdio.h>

#include "check.h"
#include "session/session.h"
#include "transport/transport.h"

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned requests;
    uint32_t last_rid;
    bool closed;
    /* what the get saw */
    unsigned oks;
    unsigned errs;
    unsigned ends;
    char last[32];
} seen_t;

static seen_t v;
static zm_transport_t t;

static void on_message(void *ctx, zm_transport_t *tr, const zm_network_msg_t *m, bool reliable)
{
    (void)ctx;
    (void)tr;
    (void)reliable;
    if (m->id != ZM_MID_N_REQUEST) {
        return;
    }
    zm_port_mutex_lock(&v.lock);
    v.requests++;
    v.last_rid = m->body.request.rid;
    zm_port_condvar_broadcast(&v.cond);
    zm_port_mutex_unlock(&v.lock);
}

static void *reader(void *arg)
{
    (void)arg;
    while (zm_transport_read_once(&t) == Z_OK) {
    }
    zm_port_mutex_lock(&v.lock);
    v.closed = true;
    zm_port_condvar_broadcast(&v.cond);
    zm_port_mutex_unlock(&v.lock);
    return NULL;
}

static void on_reply(const zm_reply_in_t *r, void *ctx)
{
    (void)ctx;
    zm_port_mutex_lock(&v.lock);
    if (r->kind == ZM_REPLY_OK) {
        v.oks++;
    } else {
        v.errs++;
    }
    size_t n = r->sample.payload.len < sizeof(v.last) - 1 ? r->sample.payload.len : sizeof(v.last) - 1;
    if (n > 0) {
        memcpy(v.last, r->sample.payload.ptr, n);
    }
    v.last[n] = '\0';
    zm_port_mutex_unlock(&v.lock);
}

static void on_end(void *ctx)
{
    (void)ctx;
    zm_port_mutex_lock(&v.lock);
    v.ends++;
    zm_port_condvar_broadcast(&v.cond);
    zm_port_mutex_unlock(&v.lock);
}

/* Waits until *counter reaches n (or the link closed, with closing set), at most 5 s. */
static bool wait_for(const unsigned *counter, unsigned n, bool closing)
{
    uint64_t deadline = zm_port_clock_ms() + 5000;
    zm_port_mutex_lock(&v.lock);
    while (*counter < n && !(closing && v.closed) &&
           zm_port_condvar_wait_until(&v.cond, &v.lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool ok = *counter >= n || (closing && v.closed);
    zm_port_mutex_unlock(&v.lock);
    return ok;
}

static void count_remote(const zm_zid_t *zid, void *ctx)
{
    (void)zid;
    (*(unsigned *)ctx)++;
}

static unsigned remotes(zm_session_t *s)
{
    unsigned n = 0;
    zm_session_foreach_remote(s, 0xff, count_remote, &n);
    return n;
}

/* Sends a get of key from s; returns the request id the raw peer received. */
static uint32_t get(zm_session_t *s, const char *key)
{
    zm_get_args_t a;
    memset(&a, 0, sizeof(a));
    a.key = key;
    a.key_len = strlen(key);
    a.consolidation = ZM_CONSOLIDATION_NONE;
    a.priority = ZM_PRIO_DATA;
    a.destination = ZM_LOCALITY_REMOTE;
    a.timeout_ms = 10000;
    zm_port_mutex_lock(&v.lock); /* the raw peer's read task writes them */
    unsigned before = v.requests;
    zm_port_mutex_unlock(&v.lock);
    CHECK_EQ_INT(zm_session_get(s, &a, on_reply, on_end, NULL, NULL), Z_OK);
    CHECK(wait_for(&v.requests, before + 1, false));
    zm_port_mutex_lock(&v.lock);
    uint32_t rid = v.last_rid;
    zm_port_mutex_unlock(&v.lock);
    return rid;
}

/* The raw peer's response to rid: an error when key is NULL (on the empty key expression). */
static void respond(uint32_t rid, const char *key, const char *payload)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE;
    zm_response_t *r = &m.body.response;
    r->rid = rid;
    r->wire_expr.mapping = ZM_MAPPING_SENDER;
    if (key == NULL) {
        r->body_id = ZM_MID_ERR;
        r->body.err.payload = zm_slice(payload, strlen(payload));
    } else {
        r->wire_expr.has_suffix = key[0] != '\0';
        r->wire_expr.suffix = zm_slice(key, strlen(key));
        r->body_id = ZM_MID_REPLY;
        r->body.reply.body_id = ZM_MID_PUT;
        r->body.reply.body.put.payload = zm_slice(payload, strlen(payload));
    }
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, true), Z_OK);
}

static void respond_final(uint32_t rid)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE_FINAL;
    m.body.response_final.rid = rid;
    CHECK_EQ_INT(zm_transport_send(&t, &m, true, ZM_PRIO_DATA, true), Z_OK);
}

int main(void)
{
    zm_socket_t probe;
    uint16_t port = 0;
    CHECK_EQ_INT(zm_port_tcp_listen(&probe, "127.0.0.1", 0), Z_OK);
    CHECK_EQ_INT(zm_port_socket_local_port(&probe, &port), Z_OK);
    zm_port_socket_close(&probe);
    char ep[64];
    snprintf(ep, sizeof(ep), "tcp/127.0.0.1:%u", port);

    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.listen[0] = ep;
    c.n_listen = 1;
    c.start_tasks = true;
    zm_session_t *s = NULL;
    CHECK_EQ_INT(zm_session_open(&s, &c), Z_OK);
    if (s == NULL) {
        return CHECK_DONE();
    }
    CHECK_EQ_INT(zm_port_mutex_init(&v.lock), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&v.cond), Z_OK);
    zm_endpoint_t e;
    CHECK_EQ_INT(zm_endpoint_parse(&e, ep, strlen(ep), ZM_ENDPOINT_CONNECT), Z_OK);
    zm_link_t link;
    CHECK_EQ_INT(zm_link_open(&link, &e, 5000), Z_OK);
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid.len = 1;
    p.zid.id[0] = 0x77;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = 65535;
    p.lease_ms = 10000;
    CHECK_EQ_INT(zm_transport_open(&t, &link, &p, 5000), Z_OK);
    t.on_message = on_message;
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, reader, NULL), Z_OK);
    for (int i = 0; i < 500 && remotes(s) == 0; i++) { /* until the session has installed us */
        zm_port_sleep_ms(10);
    }
    CHECK_EQ_INT(remotes(s), 1);

    /* an error on the empty key expression, then the final: an error reply, and the get ends */
    uint32_t rid = get(s, "w/a");
    respond(rid, NULL, "Timeout");
    respond_final(rid);
    CHECK(wait_for(&v.ends, 1, false));
    CHECK_EQ_INT(v.errs, 1);
    CHECK_EQ_STR(v.last, "Timeout");

    /* the link is still there: the next get gets its reply; late responses are ignored */
    uint32_t rid2 = get(s, "w/b");
    respond(rid, "w/a", "late");
    respond(rid, NULL, "late");
    respond_final(rid);
    respond(rid2, "w/b", "ok");
    respond_final(rid2);
    CHECK(wait_for(&v.ends, 2, false));
    CHECK_EQ_INT(v.oks, 1);
    CHECK_EQ_INT(v.errs, 1);
    CHECK_EQ_STR(v.last, "ok");
    CHECK(!v.closed);

    /* a reply on the empty key expression is invalid: the link goes, and the get ends with it */
    uint32_t rid3 = get(s, "w/c");
    respond(rid3, "", "bad");
    CHECK(wait_for(&v.ends, 3, false));
    CHECK_EQ_INT(v.oks, 1);
    CHECK(wait_for(&v.ends, 99, true)); /* the raw peer saw its link closed */

    zm_transport_close(&t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&task);
    zm_transport_free(&t);
    zm_session_close(s);
    zm_port_condvar_destroy(&v.cond);
    zm_port_mutex_destroy(&v.lock);
    return CHECK_DONE();
}
