/*
 * Peers: the transports of a session, each in a fixed slot. A peer is added after a finished
 * handshake (we connected or we accepted), gets its declarations pushed and a read task, and
 * is removed in two steps: killed (its link shut, so its reader returns), then reaped by the
 * lease task or at close, once its reader is joined and nobody has it pinned.
 */
#include <string.h>

#include "session/internal.h"
#include "util/alloc.h"

#define CONNECT_TIMEOUT_MS 10000u

static zm_peer_t *peer_slot(zm_session_t *s)
{
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        if (s->peers[i].state == PEER_FREE && s->peers[i].refs == 0) {
            return &s->peers[i];
        }
    }
    return NULL;
}

static zm_transport_params_t local_params(const zm_session_t *s)
{
    zm_transport_params_t p;
    memset(&p, 0, sizeof(p));
    p.zid = s->zid;
    p.whatami = s->cfg.mode == ZM_MODE_PEER ? ZM_WAI_PEER : ZM_WAI_CLIENT;
    p.batch_size = ZM_BATCH_UNICAST_SIZE;
    p.lease_ms = ZM_LEASE_MS;
    p.qos = true;
    return p;
}

#if Z_FEATURE_MULTI_THREAD
static void *reader_main(void *arg)
{
    zm_peer_t *p = arg;
    z_result_t rc;
    do {
        rc = zm_transport_read_once(&p->t);
    } while (rc == Z_OK && !p->s->closing);
    zm_peer_kill(p, rc == ZM_E_CLOSED ? ZM_CLOSE_GENERIC : ZM_CLOSE_INVALID);
    return NULL;
}
#endif

void zm_peer_start(zm_session_t *s, zm_peer_t *p)
{
#if Z_FEATURE_MULTI_THREAD
    if (s->readers_on && !p->reader_started) {
        p->reader_started = zm_port_task_start(&p->reader, reader_main, p) == Z_OK;
        if (!p->reader_started) {
            zm_peer_kill(p, ZM_CLOSE_GENERIC);
        }
    }
#else
    ZM_UNUSED(s);
    ZM_UNUSED(p);
#endif
}

/* Takes a transport that finished its handshake into a free slot; false if none is free. */
static bool peer_add(zm_session_t *s, zm_transport_t *t)
{
    S_LOCK(s);
    zm_peer_t *p = peer_slot(s);
    if (p == NULL || s->closing) {
        S_UNLOCK(s);
        return false;
    }
    p->t = *t;
    p->t.on_message = zm_session_on_message;
    p->t.ctx = p;
    p->s = s;
    p->rkeys = NULL;
    p->rsubs = NULL;
    p->reader_started = false;
    p->declared = false;
    p->state = PEER_LIVE;
    p->refs = 1; /* ours, while we push the declarations */
    S_UNLOCK(s);
    if (zm_decl_push_all(s, p) != Z_OK) {
        zm_peer_kill(p, ZM_CLOSE_GENERIC);
    }
    zm_peer_start(s, p);
    zm_peers_unpin(s, &p, 1);
    return true;
}

static void transport_drop(zm_transport_t *t)
{
    zm_transport_close(t, ZM_CLOSE_MAX_LINKS);
    zm_transport_free(t);
}

z_result_t zm_peer_connect(zm_session_t *s, const char *endpoint)
{
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT));
    zm_link_t link;
    uint32_t timeout = s->cfg.open_timeout_ms ? s->cfg.open_timeout_ms : CONNECT_TIMEOUT_MS;
    ZM_TRY(zm_link_open(&link, &ep, timeout));
    zm_transport_params_t params = local_params(s);
    zm_transport_t t;
    z_result_t rc = zm_transport_open(&t, &link, &params, timeout);
    if (rc != Z_OK) {
        zm_link_close(&link);
        return rc;
    }
    if (!peer_add(s, &t)) {
        transport_drop(&t);
        return ZM_E_NO_SPACE;
    }
    return Z_OK;
}

z_result_t zm_peer_accept_one(zm_session_t *s, uint32_t timeout_ms)
{
    zm_link_t link;
    ZM_TRY(zm_link_accept(&s->listener, &link, timeout_ms));
    zm_transport_params_t params = local_params(s);
    zm_transport_t t;
    z_result_t rc = zm_transport_accept(&t, &link, &params, ZM_ACCEPT_TIMEOUT_MS);
    if (rc != Z_OK) {
        zm_link_close(&link);
        return Z_OK; /* a bad newcomer does not stop the listener */
    }
    if (!peer_add(s, &t)) {
        transport_drop(&t);
    }
    return Z_OK;
}

void zm_peer_kill(zm_peer_t *p, uint8_t reason)
{
    zm_session_t *s = p->s;
    S_LOCK(s);
    bool live = p->state == PEER_LIVE;
    if (live) {
        p->state = PEER_DEAD;
    }
    S_UNLOCK(s);
    if (live) {
        zm_transport_close(&p->t, reason); /* idempotent; shuts the link so the reader returns */
    }
}

void zm_peer_reap(zm_session_t *s)
{
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        zm_peer_t *p = &s->peers[i];
        S_LOCK(s);
        bool reap = p->state == PEER_DEAD && p->refs == 0;
        S_UNLOCK(s);
        if (!reap) {
            continue;
        }
#if Z_FEATURE_MULTI_THREAD
        if (p->reader_started) {
            zm_port_task_join(&p->reader);
            p->reader_started = false;
        }
#endif
        zm_transport_free(&p->t);
        zm_decl_list_free(&p->rkeys);
        S_LOCK(s);
        zm_decl_list_free(&p->rsubs);
        p->state = PEER_FREE;
        S_UNLOCK(s);
    }
}

size_t zm_peers_pin(zm_session_t *s, zm_peer_t **out, bool (*fn)(zm_peer_t *p, const void *arg), const void *arg)
{
    size_t n = 0;
    S_LOCK(s);
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && (fn == NULL || fn(p, arg))) {
            p->refs++;
            out[n++] = p;
        }
    }
    S_UNLOCK(s);
    return n;
}

void zm_peers_unpin(zm_session_t *s, zm_peer_t **peers, size_t n)
{
    S_LOCK(s);
    for (size_t i = 0; i < n; i++) {
        peers[i]->refs--;
    }
    S_BROADCAST(s);
    S_UNLOCK(s);
}
