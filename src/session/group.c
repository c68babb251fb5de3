/*
 * Joining the multicast group: the group's transport goes into its slot, our JOIN and
 * declarations go out (the hub), and its read task starts. Apart from mcast.c, which the read
 * task calls for each datagram, so that what starts the reader is not what it runs.
 */
#include <string.h>

#include "session/hub.h"

#if Z_FEATURE_MULTICAST_TRANSPORT

/* Whether s may join a group now: a peer with the slots of a group (session.c), not on one already. */
static bool may_join(zm_session_t *s)
{
    S_LOCK(s);
    bool taken = s->mcast.open;
    S_UNLOCK(s);
    return s->cfg.mode == ZM_MODE_PEER && zm_slots(s) > ZM_GROUP_SLOT && !taken;
}

z_result_t zm_mcast_join(zm_session_t *s, const char *endpoint)
{
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, endpoint, strlen(endpoint), ZM_ENDPOINT_CONNECT));
    if (!may_join(s)) {
        return ZM_E_UNSUPPORTED; /* a client has no group (nor in Rust); one group a session */
    }
    zm_link_t link;
    ZM_TRY(zm_link_mcast_open(&link, &ep));
    z_result_t rc = zm_mcast_join_link(s, &link);
    if (rc != Z_OK && zm_link_is_open(&link)) {
        zm_link_close(&link);
    }
    return rc;
}

z_result_t zm_mcast_join_link(zm_session_t *s, zm_link_t *link)
{
    if (!may_join(s)) {
        return ZM_E_UNSUPPORTED;
    }
    zm_transport_params_t params = zm_mcast_params(s);
    zm_transport_t t;
    z_result_t rc = zm_mcast_open(&t, link, &params);
    if (rc != Z_OK) {
        return rc; /* the link is the caller's again */
    }
    link->ops = NULL; /* the group's now */
    zm_peer_t *g = &s->peers[ZM_GROUP_SLOT];
    uint32_t seed[2];
    zm_port_random(seed, sizeof(seed));
    S_LOCK(s);
    g->t = t;
    zm_peer_setup(s, g, false);
    zm_atomic_inc(&g->refs); /* ours, while our JOIN and declarations go out */
    s->mcast.open = true;
    s->mcast.seed = seed[0];
    s->mcast.announce = false;
    s->mcast.last_join_ms = zm_port_clock_ms();
    s->mcast.last_announce_ms = s->mcast.last_join_ms;
    memset(s->mcast.table, 0, sizeof(s->mcast.table));
    if (Z_FEATURE_QUERY) {
        /* other members see the replies to our gets: ids from a random start seldom meet theirs */
        s->next_rid = seed[1] != 0 ? seed[1] : 1u;
    }
    S_UNLOCK(s);
    /* our JOIN first: the members take nothing from us before it */
    rc = zm_mcast_tick(&g->t, &params, true);
    if (rc == Z_OK) {
        rc = zm_hub_push_all(s, g);
    }
    zm_peer_start(s, g);
    zm_peer_unpin(g);
    if (rc != Z_OK) {
        zm_peer_send_failed(g, rc, "nothing could be sent to it");
    }
    return rc;
}

#endif /* Z_FEATURE_MULTICAST_TRANSPORT */
