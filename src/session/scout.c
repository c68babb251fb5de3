/*
 * A session's scouting: finding a node to connect to when the configuration names none, and the
 * answers of a listening peer to the SCOUTs of others. The responder has no task of its own: its
 * socket is one more link in the wait of the task (or zp_read) that serves the listener.
 */
#include <string.h>

#include "session/internal.h"

#if Z_FEATURE_SCOUTING

z_result_t zm_scout_find(const char *locator, uint8_t what, const zm_zid_t *zid, uint32_t timeout_ms, zm_hello_fn fn,
                         void *ctx)
{
    zm_scout_group_t g;
    z_result_t rc = zm_scout_group_parse(&g, locator);
    if (rc != Z_OK) {
        ZM_LOG_W("scouting: bad locator %s (%s)", locator, zm_strerror(rc));
        return rc;
    }
    zm_scout_params_t p = {.what = what, .zid = zid, .timeout_ms = timeout_ms, .cancel = NULL};
    return zm_scout_run(&g, &p, fn, ctx);
}

typedef struct {
    zm_session_t *s;
    uint64_t deadline; /* no dialling past it: the scout's timeout plus ZM_SCOUT_DIAL_MS */
    bool found;        /* a HELLO had a locator this session may dial */
    z_result_t last;   /* the last connection's result */
} connect_ctx_t;

/*
 * Tries the locators of one HELLO in turn, within ZM_SCOUT_DIAL_MS for them all (each step of
 * each, the link and then the handshake, within half of what is left), and only those it may
 * dial (zm_scout_locator_dialable): a HELLO without any, as a Rust router listening on loopback
 * only sends, is passed by. True (the scout ends) at the first that connects, or when the time
 * to dial is over.
 */
static bool connect_hello(const zm_hello_t *h, void *arg)
{
    connect_ctx_t *c = arg;
    if (h->zid.len == c->s->zid.len && memcmp(h->zid.id, c->s->zid.id, h->zid.len) == 0) {
        return false; /* ourselves */
    }
    uint64_t now = zm_port_clock_ms();
    uint64_t until = now + ZM_SCOUT_DIAL_MS < c->deadline ? now + ZM_SCOUT_DIAL_MS : c->deadline;
    zm_reader_t it;
    zm_reader_init(&it, h->locators.ptr, h->locators.len);
    for (;;) {
        zm_slice_t loc;
        bool got = false;
        if (zm_locators_next(&it, &loc, &got) != Z_OK || !got) {
            return false;
        }
        char text[ZM_LOCATOR_MAX + 1];
        zm_endpoint_t ep;
        memcpy(text, loc.ptr, loc.len); /* at most ZM_LOCATOR_MAX: checked by the decoder */
        text[loc.len] = '\0';
        if (zm_endpoint_parse(&ep, text, loc.len, ZM_ENDPOINT_CONNECT) != Z_OK || !zm_scout_locator_dialable(&ep)) {
            ZM_LOG_I("scouting: %s not dialled (not a tcp or udp address this session may dial)", text);
            continue;
        }
        if (atomic_load(&c->s->closing)) {
            return true;
        }
        now = zm_port_clock_ms();
        if (now >= until) {
            return now >= c->deadline; /* this node's time is over; others may come within the whole's */
        }
        c->found = true;
        c->last = zm_peer_connect(c->s, text, (uint32_t)((until - now + 1u) / 2u));
        if (c->last == Z_OK) {
            return true;
        }
    }
}

z_result_t zm_session_scout_connect(zm_session_t *s)
{
    zm_scout_group_t g;
    z_result_t rc = zm_scout_group_parse(&g, s->cfg.scout_locator);
    if (rc != Z_OK) {
        ZM_LOG_W("scouting: bad locator %s (%s)", s->cfg.scout_locator, zm_strerror(rc));
        return rc;
    }
    uint64_t deadline = zm_port_clock_ms() + s->cfg.scout_timeout_ms + ZM_SCOUT_DIAL_MS;
    connect_ctx_t c = {s, deadline, false, _Z_ERR_SCOUT_NO_RESULTS};
    zm_scout_params_t p = {
        .what = s->cfg.scout_what, .zid = &s->zid, .timeout_ms = s->cfg.scout_timeout_ms, .cancel = &s->closing};
    ZM_TRY(zm_scout_run(&g, &p, connect_hello, &c));
    return c.found ? c.last : _Z_ERR_SCOUT_NO_RESULTS;
}

#if ZM_SCOUT_RESPONDER
/* The endpoint the listener listens on: the first listen endpoint that is not a multicast group. */
static z_result_t listened(const zm_session_t *s, zm_endpoint_t *ep)
{
    for (size_t i = 0; i < s->cfg.n_listen; i++) {
        const char *l = s->cfg.listen[i];
        ZM_TRY(zm_endpoint_parse(ep, l, strlen(l), ZM_ENDPOINT_LISTEN));
        if (Z_FEATURE_LINK_UDP_MULTICAST && zm_endpoint_is_multicast(ep)) {
            continue; /* a group the session joined, not where it listens */
        }
        return Z_OK;
    }
    return ZM_E_LOCATOR;
}

z_result_t zm_session_responder_open(zm_session_t *s)
{
    zm_endpoint_t ep;
    ZM_TRY(listened(s, &ep));
    if (ep.proto == ZM_PROTO_SERIAL) {
        return Z_OK; /* reached over its line: nothing to announce on a network */
    }
    ZM_TRY(zm_link_local_port(&s->listener, &ep.port));
    size_t len;
    ZM_TRY(zm_endpoint_to_locator(&ep, s->announced, ZM_LOCATOR_MAX + 1u, &len));
    if (zm_scout_locator_is_loopback(s->announced)) {
        return Z_OK;
    }
    zm_scout_group_t g;
    z_result_t rc = zm_scout_group_parse(&g, s->cfg.scout_locator);
    if (rc != Z_OK) {
        ZM_LOG_W("scouting: bad locator %s (%s)", s->cfg.scout_locator, zm_strerror(rc));
        return rc;
    }
    rc = zm_scout_responder_open(s->responder, &g);
    if (rc == ZM_E_LOCATOR) {
        ZM_LOG_W("scouting: no interface %s to answer on", g.iface);
        return rc;
    }
    if (rc != Z_OK) {
        ZM_LOG_W("scouting: cannot join %s:%u, SCOUTs go unanswered (%s)", g.group, (unsigned)g.port, zm_strerror(rc));
        return Z_OK;
    }
    s->responding = true;
    return Z_OK;
}

void zm_session_responder_serve(zm_session_t *s)
{
    const char *locators[1] = {s->announced};
    zm_scout_self_t self = {.whatami = ZM_WAI_PEER, .zid = s->zid, .locators = locators, .n_locators = 1};
    z_result_t rc = zm_scout_responder_serve(s->responder, &self, NULL);
    ZM_UNUSED(rc); /* shut down at close: the task that serves it ends then */
}
#endif /* ZM_SCOUT_RESPONDER */

#endif /* Z_FEATURE_SCOUTING */
