/*
 * A fake peer for tests and benchmarks: zmote's own transport, connected to a listening node,
 * with a reader thread that counts the PUSHes it gets (their keys kept in a small ring) and
 * notices when the node closes the link. It sends whatever a test makes it send, declarations
 * and puts included, so it can behave as a hostile peer would; and the listening node it talks
 * to. Header-only: one user per program.
 */
#ifndef ZM_TEST_FAKE_PEER_H
#define ZM_TEST_FAKE_PEER_H

#include <stdio.h>
#include <string.h>

#include "session/session.h"
#include "transport/transport.h"
#include "zmote/port.h"

/* A peer-mode node listening on a free loopback port (told through *port), with its tasks or
 * driven by zm_session_read; NULL if it could not open. */
static inline zm_session_t *node_listen(uint16_t *port, bool tasks)
{
    zm_socket_t probe;
    *port = 0;
    if (zm_port_tcp_listen(&probe, "127.0.0.1", 0) != Z_OK) {
        return NULL;
    }
    z_result_t rc = zm_port_socket_local_port(&probe, port);
    zm_port_socket_close(&probe);
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", *port);
    zm_session_config_t c;
    memset(&c, 0, sizeof(c));
    c.mode = ZM_MODE_PEER;
    c.start_tasks = tasks;
    c.listen[0] = listen;
    c.n_listen = 1;
    zm_session_t *s = NULL;
    return rc == Z_OK && zm_session_open(&s, &c) == Z_OK ? s : NULL;
}

typedef struct {
    zm_transport_t t;
    zm_task_t reader;
    zm_mutex_t lock;
    zm_condvar_t cond;
    bool closed;
    unsigned pushes;
    char keys[8][64]; /* key of push i in keys[i % 8] */
} fake_t;

static inline void fake_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    fake_t *f = ctx;
    if (m->id != ZM_MID_N_PUSH) {
        return;
    }
    zm_port_mutex_lock(&f->lock);
    const zm_slice_t *k = &m->body.push.wire_expr.suffix;
    char *key = f->keys[f->pushes % 8];
    size_t n = k->len < sizeof(f->keys[0]) ? k->len : sizeof(f->keys[0]) - 1;
    if (n > 0) { /* a key sent as a declared id has no suffix */
        memcpy(key, k->ptr, n);
    }
    key[n] = '\0';
    f->pushes++;
    zm_port_condvar_broadcast(&f->cond);
    zm_port_mutex_unlock(&f->lock);
}

static inline void *fake_reader(void *arg)
{
    fake_t *f = arg;
    while (zm_transport_read_once(&f->t) == Z_OK) {
    }
    zm_port_mutex_lock(&f->lock);
    f->closed = true;
    zm_port_condvar_broadcast(&f->cond);
    zm_port_mutex_unlock(&f->lock);
    return NULL;
}

static inline bool fake_open(fake_t *f, uint16_t port, uint64_t lease_ms)
{
    memset(f, 0, sizeof(*f));
    if (zm_port_mutex_init(&f->lock) != Z_OK || zm_port_condvar_init(&f->cond) != Z_OK) {
        return false;
    }
    char text[64];
    snprintf(text, sizeof(text), "tcp/127.0.0.1:%u", port);
    zm_endpoint_t ep;
    zm_link_t link;
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    zm_port_random(p.zid.id, sizeof(p.zid.id));
    p.zid.id[0] |= 1u;
    p.zid.len = 16;
    p.whatami = ZM_WAI_PEER;
    p.batch_size = 65535;
    p.lease_ms = lease_ms;
    p.qos = true;
    if (zm_endpoint_parse(&ep, text, strlen(text), ZM_ENDPOINT_CONNECT) != Z_OK || zm_link_open(&link, &ep, 2000) != Z_OK) {
        return false;
    }
    if (zm_transport_open(&f->t, &link, &p, 2000) != Z_OK) {
        zm_link_close(&link);
        return false;
    }
    f->t.on_message = fake_on_message;
    f->t.ctx = f;
    return zm_port_task_start(&f->reader, fake_reader, f) == Z_OK;
}

static inline void fake_close(fake_t *f)
{
    zm_transport_close(&f->t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&f->reader);
    zm_transport_free(&f->t);
    zm_port_condvar_destroy(&f->cond);
    zm_port_mutex_destroy(&f->lock);
}

/* Waits until the node closed the fake's link, or until ms passed. */
static inline bool fake_wait_closed(fake_t *f, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&f->lock);
    while (!f->closed && zm_port_condvar_wait_until(&f->cond, &f->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool closed = f->closed;
    zm_port_mutex_unlock(&f->lock);
    return closed;
}

/* Waits for push number before + 1; its key is left in key. */
static inline bool fake_wait_push(fake_t *f, unsigned before, char *key, size_t cap, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    zm_port_mutex_lock(&f->lock);
    while (f->pushes <= before && zm_port_condvar_wait_until(&f->cond, &f->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool got = f->pushes > before;
    snprintf(key, cap, "%s", got ? f->keys[before % 8] : "");
    zm_port_mutex_unlock(&f->lock);
    return got;
}

static inline unsigned fake_pushes(fake_t *f)
{
    zm_port_mutex_lock(&f->lock);
    unsigned n = f->pushes;
    zm_port_mutex_unlock(&f->lock);
    return n;
}

static inline z_result_t fake_declare(fake_t *f, uint8_t kind, uint32_t id, const char *key, size_t len, bool flush)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m.body.declare.decl;
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
    if (kind == ZM_DECL_FINAL) {
        m.body.declare.has_interest_id = true;
    }
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, flush);
}

static inline z_result_t fake_put(fake_t *f, const char *key, size_t len)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_PUSH;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE; /* Block: nothing of it may be dropped */
    m.body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice(key, len);
    m.body.push.body_id = ZM_MID_PUT;
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, true);
}

#endif /* ZM_TEST_FAKE_PEER_H */
