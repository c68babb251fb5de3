/*
 * The core of our declarations: a declaration built and sent to one peer or to every live one
 * (on the reliable Control channel with the DECLARE QoS, Control + Block, as Rust sends them),
 * and the table of local entities (subscribers, queryables, matching listeners, tokens,
 * liveliness subscribers) with the pins that let their callbacks and sends run unlocked. The
 * features declare through it; it knows none of them.
 */
#include <string.h>

#include "session/internal.h"
#include "util/alloc.h"

#if ZM_PUSH_DECLS
void zm_decl_msg(zm_network_msg_t *m, const zm_declaration_t *d, bool with_interest)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    m->body.declare.has_interest_id = with_interest;
    m->body.declare.decl = *d;
}

z_result_t zm_decl_send(zm_peer_t *p, const zm_declaration_t *d, bool with_interest)
{
    zm_network_msg_t m;
    zm_decl_msg(&m, d, with_interest);
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, false);
}
#endif

void zm_decl_fill(zm_declaration_t *d, uint8_t kind, uint32_t id, const char *key, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
}

/*
 * The DECLARE of kind for entity id on key (suffix only; the sender's mapping, but for D_KEYEXPR,
 * which has none on the wire), built in m itself rather than apart to be copied in. Not inlined:
 * a broadcast and the D_FINAL to a new peer share it.
 */
static ZM_NOINLINE zm_declaration_t *declare_in(zm_network_msg_t *m, uint8_t kind, uint32_t id, const char *key, size_t len)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_DECLARE;
    m->ext.present = ZM_NET_EXT_QOS;
    m->ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m->body.declare.decl;
    d->kind = kind;
    d->id = id;
    d->wire_expr.mapping = kind == ZM_DECL_KEYEXPR ? ZM_MAPPING_RECEIVER : ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = len > 0;
    d->wire_expr.suffix = zm_slice(key, len);
    return d;
}

/* Not inlined: its message is on the stack only while it is sent. */
ZM_NOINLINE void zm_decl_broadcast(zm_session_t *s, uint8_t kind, uint32_t id, const char *key, size_t len,
                                   uint8_t extras)
{
    zm_network_msg_t m;
    zm_declaration_t *d = declare_in(&m, kind, id, key, len);
    if (Z_FEATURE_QUERYABLE || Z_FEATURE_LIVELINESS) {
        d->has_ext_wire = (extras & ZM_DECL_EXT_WIRE) != 0;
        d->has_qbl_info = (extras & ZM_DECL_QBL_INFO) != 0;
        d->qbl_complete = (extras & ZM_DECL_QBL_COMPLETE) != 0;
    } else {
        ZM_ASSERT(extras == 0); /* only queryables and tokens have them */
    }
    zm_pins_t pinned;
    zm_peers_pin(s, &pinned);
    for (size_t i = 0; i < pinned.n && i < ZM_PEERS_PIN; i++) { /* the bound: a client's is one peer */
        zm_peer_t *p = pinned.p[i];
        if (zm_peer_is_group(p) && !zm_mcast_declares(kind)) {
            continue;
        }
        /* written out at once, unless the application batches */
        z_result_t r = zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, !s->batching);
        if (r != Z_OK) {
            zm_peer_send_failed(p, r, "a declaration could not be sent");
        }
    }
    zm_peers_unpin(&pinned);
}

#if ZM_LOCAL_ENTITIES
/*
 * An entity that is out of its list and pinned by nobody: its owner's context goes with it. One
 * body for the three ways an entity ends. Its drop is a callback of s (NULL: s is closing from
 * outside), even when an undeclare from the application's thread runs it: a close from it only
 * begins, as the undeclare is a call into s under way.
 */
static ZM_NOINLINE void entity_free(zm_session_t *s, zm_entity_t *e)
{
    if (e->drop != NULL && s != NULL) {
        zm_cb_frame_t frame = {NULL, zm_port_thread_self()};
        S_LOCK(s);
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        e->drop(e->ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        S_UNLOCK(s);
    } else if (e->drop != NULL) {
        e->drop(e->ctx);
    }
    zm_free(e);
}

static void entity_unlink(zm_entity_t **head, zm_entity_t *e)
{
    zm_entity_t **pp = head;
    while (*pp != NULL && *pp != e) {
        pp = &(*pp)->next;
    }
    if (*pp == e) {
        *pp = e->next;
    }
}

/*
 * s->lock held: the last pin of an undeclared entity ended (zm_entity_unpin), and no undeclare
 * waits for it (that one would free it): it goes now, unlocked while it is freed.
 */
void zm_entity_release(zm_session_t *s, zm_entity_t **head, zm_entity_t *e)
{
    entity_unlink(head, e);
    S_UNLOCK(s);
    entity_free(s, e);
    S_LOCK(s);
}
#endif

z_result_t zm_decl_send_final(zm_peer_t *p, uint32_t interest_id)
{
    zm_network_msg_t m;
    declare_in(&m, ZM_DECL_FINAL, 0, NULL, 0);
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = interest_id;
    return zm_transport_send(zm_peer_tx(p), &m, true, ZM_PRIO_CONTROL, false);
}

#if ZM_LOCAL_ENTITIES

zm_entity_t *zm_entity_new(const char *key, size_t len)
{
    zm_entity_t *e = zm_alloc(sizeof(*e) + len);
    if (e != NULL) {
        memset(e, 0, sizeof(*e));
        memcpy(e->key, key, len);
        e->key_len = len;
    }
    return e;
}

/* s->lock held: what a match memo found no longer holds (zm_match_memo_t). */
static void entities_changed(zm_session_t *s)
{
    if (ZM_DISPATCH_MEMO && ++s->entities_gen == 0) {
        s->entities_gen = 1;
    }
}

uint32_t zm_entity_add(zm_session_t *s, zm_entity_t **head, zm_entity_t *e)
{
    S_LOCK(s);
    e->id = s->next_id++;
    e->next = *head;
    *head = e;
    entities_changed(s);
    uint32_t id = e->id;
    S_UNLOCK(s);
    return id;
}

z_result_t zm_entity_remove(zm_session_t *s, zm_entity_t **head, uint32_t id, bool *remote)
{
    S_LOCK(s);
    zm_entity_t *e = *head;
    while (e != NULL && (e->id != id || e->removed)) {
        e = e->next;
    }
    if (e == NULL) {
        S_UNLOCK(s);
        return Z_EINVAL;
    }
    e->removed = true;
    entities_changed(s);
    /* from here every pin ends under the lock (zm_entity_unpin_unlocked), and those that ended
     * without it are counted out already */
    (void)zm_atomic_or(&e->busy, ZM_GONE);
    *remote = e->origin != ZM_LOCALITY_SESSION_LOCAL;
    /* after this returns, the callback runs no more: wait for the calls under way, unless this
     * is one of them (or runs inside another callback on their thread) */
    bool inside = zm_session_inside(s);
    e->awaited = !inside; /* then this undeclare frees it, not the last unpin */
    while (zm_entity_pins(e) > 0 && !inside) {
        S_WAIT(s, 1000u);
    }
    bool free_now = zm_entity_pins(e) == 0;
    if (free_now) {
        entity_unlink(head, e);
    }
    S_UNLOCK(s);
    if (free_now) {
        entity_free(s, e);
    }
    return Z_OK;
}

void zm_entities_free_all(zm_entity_t **head)
{
    while (*head != NULL) {
        zm_entity_t *e = *head;
        *head = e->next;
        entity_free(NULL, e);
    }
}

#endif /* ZM_LOCAL_ENTITIES */
