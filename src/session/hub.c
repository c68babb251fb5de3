/*
 * The hub's fan-outs: each event of hub.h goes to every feature of the build that answers it,
 * in the list's order, by direct calls. What frames an event for all the features (the batching
 * of a push and its D_FINAL, the DECLARE an interest's answers travel in) is done here once.
 */
#include <string.h>

#include "session/hub.h"

#if ZM_PUSH_DECLS
#define HUB_PUSH(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(push)(if (rc == Z_OK) { rc = zm_##name##_push(s, p); })

/*
 * Our declarations to a new peer, batched, then the D_FINAL of the implicit interest 0. Nothing
 * is sent under s->lock: a newcomer that does not read may hold its sender for a block timeout,
 * and with it only the thread that added it. A declaration racing with this push reaches the
 * peer either here or by its own broadcast.
 */
z_result_t zm_hub_push_all(zm_session_t *s, zm_peer_t *p)
{
    zm_transport_set_batching(&p->t, true);
    z_result_t rc = Z_OK;
    ZM_FEATURES(HUB_PUSH)
    S_LOCK(s);
    bool batching = s->batching;
    S_UNLOCK(s);
    if (rc == Z_OK && p->t.remote_whatami != ZM_WAI_ROUTER) {
        rc = zm_decl_send_final(p, 0); /* ends the implicit interest 0 */
    }
    zm_transport_set_batching(&p->t, batching);
    z_result_t flushed = zm_transport_flush(&p->t);
    return rc != Z_OK ? rc : flushed;
}

#else
/* Nothing is declared yet (ZM_PUSH_DECLS): a peer is only told that there is nothing. */
z_result_t zm_hub_push_all(zm_session_t *s, zm_peer_t *p)
{
    ZM_UNUSED(s);
    if (p->t.remote_whatami == ZM_WAI_ROUTER) {
        return Z_OK;
    }
    return zm_decl_send_final(p, 0); /* ends the implicit interest 0 */
}
#endif /* ZM_PUSH_DECLS */

#if ZM_DECODE_INTEREST
#define HUB_INTEREST(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(interest)(zm_##name##_interest(p, it->options, rkey, rlen, &m);)

void zm_hub_on_interest(zm_peer_t *p, const zm_interest_t *it)
{
    if ((it->mode & ZM_INTEREST_CURRENT) == 0) {
        return; /* future declarations reach every peer anyway */
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = it->id;
    const char *rkey = NULL;
    size_t rlen = 0;
    /* only the features that answer interests (peers' declarations kept) read the key */
    if (ZM_REMOTE_DECLS && (it->options & ZM_INTEREST_R) &&
        zm_remote_resolve(p, &it->wire_expr, &rkey, &rlen) != Z_OK) {
        rkey = NULL;
    }
    ZM_FEATURES(HUB_INTEREST)
    ZM_UNUSED(rkey);
    ZM_UNUSED(rlen);
    zm_decl_fill(&m.body.declare.decl, ZM_DECL_FINAL, 0, NULL, 0);
    zm_peer_send(p, &m, ZM_PRIO_CONTROL, true);
}
#endif

#if ZM_REMOTE_DECLS
#define HUB_DECLARED(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(declared)(if (!taken) { taken = zm_##name##_declared(p, dm, &rc); })

void zm_hub_on_declare(zm_peer_t *p, const zm_declare_t *dm)
{
    z_result_t rc = Z_OK;
    bool taken = false;
    ZM_FEATURES(HUB_DECLARED)
    if (!taken) {
        rc = zm_remote_on_declare(p, dm);
        uint8_t kind = dm->decl.kind;
        if (rc == Z_OK && (kind == ZM_DECL_SUBSCRIBER || kind == ZM_UNDECL_SUBSCRIBER ||
                           kind == ZM_DECL_QUERYABLE || kind == ZM_UNDECL_QUERYABLE)) {
            zm_hub_changed(p->s);
        }
    }
    if (rc == ZM_E_LIMIT) {
        zm_peer_kill(p, ZM_CLOSE_INVALID, "declarations past ZM_PEER_DECL*_MAX or ZM_SESSION_DECL_BYTES_MAX");
    } else if (rc == ZM_E_NOMEM) {
        zm_peer_kill(p, ZM_CLOSE_GENERIC, "no memory for its declarations");
    } else if (rc != Z_OK) {
        zm_bad_key(p, rc);
    }
}
#endif

#define HUB_GONE(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(gone)(zm_##name##_gone(s, p);)

void zm_hub_peer_gone(zm_session_t *s, zm_peer_t *p)
{
    ZM_FEATURES(HUB_GONE)
    if (ZM_REMOTE_DECLS) {
        zm_remote_free(s, p);
    }
    zm_hub_changed(s); /* its subscribers and queryables no longer count */
    ZM_UNUSED(p);
}

#define HUB_TICK(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(tick)(zm_##name##_tick(s, now_ms);)

void zm_hub_tick(zm_session_t *s, uint64_t now_ms)
{
    ZM_FEATURES(HUB_TICK)
    ZM_UNUSED(s);
    ZM_UNUSED(now_ms);
}

#define HUB_CLOSE(name, push, interest, declared, gone, tick, close, changed, sender, peer_qbl, gets) \
    ZM_HUB_IF(close)(zm_##name##_close(s);)

void zm_hub_close(zm_session_t *s) { ZM_FEATURES(HUB_CLOSE) }
