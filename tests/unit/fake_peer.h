/*
 * A fake peer for tests and benchmarks: zmote's own transport, connected to a listening node,
 * with a reader thread that counts the PUSHes it gets (their keys kept in a small ring), logs
 * the DECLAREs and INTERESTs (in another) and notices when the node closes the link. It sends
 * whatever a test makes it send, declarations, interests and puts included, so it can behave as
 * a hostile peer would, or as a router; and the listening node it talks to. Header-only: one
 * user per program.
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

/* A DECLARE or INTEREST the node sent, as the fake read it. */
typedef struct {
    uint8_t mid;     /* ZM_MID_N_DECLARE or ZM_MID_N_INTEREST */
    uint8_t kind;    /* DECLARE: the declaration's kind */
    uint8_t mode;    /* INTEREST: its mode */
    uint8_t options; /* INTEREST: its options */
    bool has_iid;    /* DECLARE: the I flag */
    uint32_t iid;    /* DECLARE: the interest id */
    uint32_t id;     /* the declaration's or the interest's id */
    char key[48];    /* the wire expression's suffix */
} fake_msg_t;

#define FAKE_MSGS 64

typedef struct {
    zm_transport_t t;
    zm_task_t reader;
    zm_mutex_t lock;
    zm_condvar_t cond;
    bool closed;
    unsigned pushes;
    char keys[8][64]; /* key of push i in keys[i % 8] */
    unsigned n_msgs;
    fake_msg_t msgs[FAKE_MSGS]; /* message i in msgs[i % FAKE_MSGS] */
} fake_t;

static inline void fake_copy_key(char *dst, size_t cap, const zm_slice_t *k)
{
    size_t n = k->len < cap ? k->len : cap - 1;
    if (n > 0) {
        memcpy(dst, k->ptr, n);
    }
    dst[n] = '\0';
}

/* lock held */
static inline void fake_log(fake_t *f, const zm_network_msg_t *m)
{
    fake_msg_t *e = &f->msgs[f->n_msgs % FAKE_MSGS];
    memset(e, 0, sizeof(*e));
    e->mid = m->id;
    if (m->id == ZM_MID_N_DECLARE) {
        const zm_declare_t *d = &m->body.declare;
        e->kind = d->decl.kind;
        e->has_iid = d->has_interest_id;
        e->iid = d->interest_id;
        e->id = d->decl.id;
        fake_copy_key(e->key, sizeof(e->key), &d->decl.wire_expr.suffix);
    } else {
        const zm_interest_t *it = &m->body.interest;
        e->mode = it->mode;
        e->options = it->options;
        e->id = it->id;
        fake_copy_key(e->key, sizeof(e->key), &it->wire_expr.suffix);
    }
    f->n_msgs++;
    zm_port_condvar_broadcast(&f->cond);
}

static inline void fake_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    fake_t *f = ctx;
    if (m->id == ZM_MID_N_DECLARE || m->id == ZM_MID_N_INTEREST) {
        zm_port_mutex_lock(&f->lock);
        fake_log(f, m);
        zm_port_mutex_unlock(&f->lock);
        return;
    }
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

/* Connects to the node on port as a peer, or as whatami (a ZM_WAI_*) with fake_open_as. */
static inline bool fake_open_as(fake_t *f, uint16_t port, uint32_t lease_ms, uint8_t whatami)
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
    p.whatami = whatami;
    p.batch_size = 65535;
    p.lease_ms = lease_ms;
    p.qos = true;
    if (zm_endpoint_parse(&ep, text, strlen(text), ZM_ENDPOINT_CONNECT) != Z_OK || zm_link_open(&link, &ep, 2000) != Z_OK) {
        return false;
    }
    if (zm_transport_open(&f->t, &link, &p, 2000) != Z_OK) {
        return false;
    }
    f->t.on_message = fake_on_message;
    f->t.ctx = f;
    return zm_port_task_start(&f->reader, fake_reader, f) == Z_OK;
}

static inline bool fake_open(fake_t *f, uint16_t port, uint32_t lease_ms)
{
    return fake_open_as(f, port, lease_ms, ZM_WAI_PEER);
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

/*
 * From message number from on, the first the node sent with mid and (for a DECLARE) kind,
 * waiting up to ms for it: its number, or -1. *out gets a copy.
 */
static inline int fake_wait_msg(fake_t *f, unsigned from, uint8_t mid, uint8_t kind, fake_msg_t *out, uint32_t ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    int found = -1;
    zm_port_mutex_lock(&f->lock);
    for (unsigned i = from;;) {
        for (; found < 0 && i < f->n_msgs; i++) {
            const fake_msg_t *e = &f->msgs[i % FAKE_MSGS];
            if (e->mid == mid && (mid != ZM_MID_N_DECLARE || e->kind == kind)) {
                *out = *e;
                found = (int)i;
            }
        }
        if (found >= 0 || zm_port_condvar_wait_until(&f->cond, &f->lock, deadline) == ZM_E_TIMEOUT) {
            break;
        }
    }
    zm_port_mutex_unlock(&f->lock);
    return found;
}

static inline unsigned fake_msgs(fake_t *f)
{
    zm_port_mutex_lock(&f->lock);
    unsigned n = f->n_msgs;
    zm_port_mutex_unlock(&f->lock);
    return n;
}

/*
 * Sends a declaration: in a DECLARE with interest id iid when has_iid; for an undeclaration,
 * key (if any) goes in its wire expression extension.
 */
static inline z_result_t fake_declare_ex(fake_t *f, uint8_t kind, uint32_t id, const char *key, size_t len,
                                         bool has_iid, uint32_t iid, bool flush)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    m.body.declare.has_interest_id = has_iid;
    m.body.declare.interest_id = iid;
    zm_declaration_t *d = &m.body.declare.decl;
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
    d->has_ext_wire = kind == ZM_UNDECL_TOKEN; /* as Rust writes it, null when key is */
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, flush);
}

static inline z_result_t fake_declare(fake_t *f, uint8_t kind, uint32_t id, const char *key, size_t len, bool flush)
{
    return fake_declare_ex(f, kind, id, key, len, kind == ZM_DECL_FINAL, 0, flush);
}

/* Sends an INTEREST of mode and options, restricted to key when options has R. */
static inline z_result_t fake_interest(fake_t *f, uint32_t id, uint8_t mode, uint8_t options, const char *key)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_INTEREST;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    zm_interest_t *it = &m.body.interest;
    it->id = id;
    it->mode = mode;
    it->options = options;
    if (options & ZM_INTEREST_R) {
        it->wire_expr.mapping = ZM_MAPPING_SENDER;
        it->wire_expr.has_suffix = true;
        it->wire_expr.suffix = zm_slice(key, strlen(key));
    }
    return zm_transport_send(&f->t, &m, true, ZM_PRIO_CONTROL, true);
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
