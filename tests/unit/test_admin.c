/*
 * The admin space seen from the wire: a raw transport connects to a listening session (opened
 * through the API) whose admin space is on, sees the queryable declared once, sends queries and
 * checks the replies (keys, JSON encoding, content) and the final response; after stop, a query
 * gets only the final.
 */
#include <stdio.h>

#include "check.h"
#include "transport/transport.h"
#include "zenoh-pico.h"

typedef struct {
    zm_mutex_t lock;
    zm_condvar_t cond;
    unsigned finals;
    unsigned replies;
    unsigned queryables;
    unsigned json_bad;
    char keys[8][128];
    char session_json[1024];
} seen_t;

static void on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    (void)t;
    (void)reliable;
    seen_t *v = ctx;
    zm_port_mutex_lock(&v->lock);
    if (m->id == ZM_MID_N_RESPONSE_FINAL) {
        v->finals++;
    } else if (m->id == ZM_MID_N_DECLARE && m->body.declare.decl.kind == ZM_DECL_QUERYABLE) {
        v->queryables++;
    } else if (m->id == ZM_MID_N_RESPONSE && m->body.response.body_id == ZM_MID_REPLY) {
        const zm_put_t *p = &m->body.response.body.reply.body.put;
        zm_slice_t k = m->body.response.wire_expr.suffix;
        if (v->replies < 8 && k.len < 128) {
            memcpy(v->keys[v->replies], k.ptr, k.len);
            v->keys[v->replies][k.len] = '\0';
        }
        bool json = p->payload.len > 0 && (p->payload.ptr[0] == '{' || p->payload.ptr[0] == '[');
        if (!p->has_encoding || p->encoding.id != 5 || !json) {
            v->json_bad++;
        }
        size_t n = k.len;
        if (n >= 13 && memcmp(k.ptr + n - 13, "/pico/session", 13) == 0 && p->payload.len < sizeof(v->session_json)) {
            memcpy(v->session_json, p->payload.ptr, p->payload.len);
            v->session_json[p->payload.len] = '\0';
        }
        v->replies++;
    }
    zm_port_condvar_broadcast(&v->cond);
    zm_port_mutex_unlock(&v->lock);
}

static bool wait_finals(seen_t *v, unsigned n)
{
    uint64_t deadline = zm_port_clock_ms() + 5000;
    zm_port_mutex_lock(&v->lock);
    while (v->finals < n && zm_port_condvar_wait_until(&v->cond, &v->lock, deadline) != ZM_E_TIMEOUT) {
    }
    bool ok = v->finals >= n;
    zm_port_mutex_unlock(&v->lock);
    return ok;
}

static zm_transport_t t;

static void *reader(void *arg)
{
    (void)arg;
    while (zm_transport_read_once(&t) == Z_OK) {
    }
    return NULL;
}

static void query(uint32_t rid, const char *key)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_REQUEST;
    m.body.request.rid = rid;
    m.body.request.wire_expr.has_suffix = true;
    m.body.request.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.request.wire_expr.suffix = zm_slice(key, strlen(key));
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

    z_owned_config_t c;
    z_config_default(&c);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer"), Z_OK);
    CHECK_EQ_INT(zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, ep), Z_OK);
    z_open_options_t o;
    z_open_options_default(&o);
    o.auto_start_admin_space = true;
    z_owned_session_t s;
    CHECK_EQ_INT(z_open(&s, z_move(c), &o), Z_OK);
    CHECK_EQ_INT(zp_start_admin_space(z_loan_mut(s)), Z_OK); /* idempotent */
    /* the session's zid as zenoh-pico prints it: 32 hex digits, the last byte first */
    z_id_t zid = z_info_zid(z_loan(s));
    char hex[33];
    for (int i = 15, k = 0; i >= 0; i--, k += 2) {
        snprintf(hex + k, 3, "%02x", zid.id[i]);
    }

    seen_t v;
    memset(&v, 0, sizeof(v));
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
    t.ctx = &v;
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, reader, NULL), Z_OK);

    /* everything under the admin space: the five fixed entries and one per peer */
    query(1, "@/**");
    CHECK(wait_finals(&v, 1));
    CHECK_EQ_INT(v.queryables, 1);
    CHECK_EQ_INT(v.replies, 6);
    CHECK_EQ_INT(v.json_bad, 0);
    char expect[512];
    snprintf(expect, sizeof(expect), "@/%s/pico", hex);
    CHECK_EQ_STR(v.keys[0], expect);
    snprintf(expect, sizeof(expect), "@/%s/pico/session/transports/0/peers/00000000000000000000000000000077", hex);
    CHECK_EQ_STR(v.keys[5], expect);
    snprintf(expect, sizeof(expect),
             "{\"zid\":\"%s\",\"whatami\":\"peer\",\"transports\":[{\"type\":"
             "\"unicast\",\"link\":{\"type\":\"tcp\",\"endpoint\":{\"locator\":{\"metadata\":{},\"protocol\":\"tcp\","
             "\"address\":\"127.0.0.1:%u\"},\"config\":{}},\"capabilities\":{\"transport\":\"unicast\",\"flow\":"
             "\"stream\",\"is_reliable\":true}},\"peers\":[{\"zid\":\"00000000000000000000000000000077\","
             "\"whatami\":\"peer\"}]}]}",
             hex, port);
    CHECK_EQ_STR(v.session_json, expect);

    /* only what intersects: one entry */
    query(2, "@/*/pico");
    CHECK(wait_finals(&v, 2));
    CHECK_EQ_INT(v.replies, 7);
    /* nothing there: only the final */
    query(3, "demo/**");
    CHECK(wait_finals(&v, 3));
    CHECK_EQ_INT(v.replies, 7);
    /* stopped: the queryable goes, queries get only the final */
    CHECK_EQ_INT(zp_stop_admin_space(z_loan_mut(s)), Z_OK);
    CHECK_EQ_INT(zp_stop_admin_space(z_loan_mut(s)), Z_OK); /* idempotent */
    query(4, "@/**");
    CHECK(wait_finals(&v, 4));
    CHECK_EQ_INT(v.replies, 7);

    zm_transport_close(&t, ZM_CLOSE_GENERIC);
    zm_port_task_join(&task);
    zm_transport_free(&t);
    z_drop(z_move(s));
    zm_port_condvar_destroy(&v.cond);
    zm_port_mutex_destroy(&v.lock);
    return CHECK_DONE();
}
