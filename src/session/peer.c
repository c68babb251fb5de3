/*
 * A peer in use: the transports of a session, each in a fixed slot, pinned by whoever sends on
 * one or reads it, and a peer's end in its first step: killed (its link shut, so that its
 * reader returns). Its arrival, and its removal once nobody holds it (the reap), are peers.c's.
 */
#include <string.h>

#include "session/internal.h"

/* The zid as Rust prints it: hex of its little-endian value, without leading zeros. */
const char *zm_zid_text(const zm_zid_t *zid, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (size_t i = zid->len; i-- > 0;) {
        uint8_t b = zid->id[i];
        if (n > 0 || b >> 4 != 0) {
            out[n++] = hex[b >> 4];
        }
        if (n > 0 || (b & 0x0fu) != 0 || i == 0) {
            out[n++] = hex[b & 0x0fu];
        }
    }
    out[n] = '\0';
    return out;
}

#if Z_FEATURE_MULTICAST_TRANSPORT
void zm_mcast_forget(zm_session_t *s, zm_peer_t *p)
{
    size_t i = 0;
    while (i < ZM_MCAST_TABLE && s->mcast.table[i] != p->index) {
        i++;
    }
    if (i == ZM_MCAST_TABLE) {
        return;
    }
    /* backward shift: the entries after it that probed past i move up, no hole is left behind */
    s->mcast.table[i] = 0;
    for (size_t j = (i + 1) % ZM_MCAST_TABLE; s->mcast.table[j] != 0; j = (j + 1) % ZM_MCAST_TABLE) {
        size_t home = zm_mcast_table_home(s, &s->peers[s->mcast.table[j]].addr);
        /* it stays unless its home lies cyclically outside (i, j] */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            s->mcast.table[i] = s->mcast.table[j];
            s->mcast.table[j] = 0;
            i = j;
        }
    }
}
#endif

/* The group is gone: its members, who reached us only through it, go with it. */
static void members_kill(zm_session_t *s)
{
    for (size_t i = ZM_GROUP_SLOT + 1; i < zm_slots(s); i++) {
        if (s->peers[i].s != NULL) { /* a slot ever used: only those know their session */
            zm_peer_kill(&s->peers[i], ZM_CLOSE_GENERIC, NULL);
        }
    }
}

void(zm_peer_kill)(zm_peer_t *p, uint8_t reason, const char *why)
{
    zm_session_t *s = p->s;
    S_LOCK(s);
    bool live = p->state == PEER_LIVE;
    if (live) {
        p->state = PEER_DEAD;
        S_ROUTES_CHANGED(s);
        if (zm_peer_is_member(p)) {
            zm_mcast_forget(s, p);
        }
        if (Z_FEATURE_MULTI_THREAD) { /* ours until its link is shut: a reaper on another thread waits for it */
            zm_atomic_inc_relaxed(&p->refs);
        }
    }
    S_UNLOCK(s);
    if (!live) {
        return;
    }
    char zid[33];
    if (zm_peer_is_group(p)) {
        if (why != NULL && !s->closing) {
            ZM_LOG_W("multicast group dropped: %s", why);
        }
    } else if (why == NULL) {
        ZM_LOG_I("peer %s left", zm_zid_text(&p->t.remote_zid, zid));
    } else if (!s->closing) {
        ZM_LOG_W("peer %s dropped (close: %s): %s", zm_zid_text(&p->t.remote_zid, zid), zm_close_reason_name(reason), why);
    }
    /* a member has no link of its own: its datagrams are ignored from now on */
    if (!zm_peer_is_member(p)) {
        zm_transport_close(&p->t, reason); /* shuts the link so the reader returns */
        if (zm_peer_is_group(p)) {
            members_kill(s);
        }
    }
    if (Z_FEATURE_MULTI_THREAD) {
        zm_peer_unpin(p);
    }
}

void(zm_peer_send_failed)(zm_peer_t *p, z_result_t rc, const char *why)
{
    if (rc == ZM_E_TOO_LARGE) {
        ZM_LOG_W("a message too large for this build was not sent (ZM_FRAG_MAX_SIZE, Z_FEATURE_FRAGMENTATION)");
        return; /* nothing went out: the link is intact */
    }
    if (zm_peer_is_member(p)) {
        p = &p->s->peers[ZM_GROUP_SLOT]; /* what goes to a member goes to the group: it failed */
    }
    zm_peer_kill(p, ZM_CLOSE_GENERIC, rc == ZM_E_CLOSED ? NULL : why);
}

void zm_peer_send(zm_peer_t *p, const zm_network_msg_t *m, uint8_t prio, bool flush)
{
    z_result_t rc = zm_transport_send(zm_peer_tx(p), m, true, prio, flush);
    if (rc != Z_OK) {
        zm_peer_send_failed(p, rc, "it does not take what we send");
    }
}

void zm_peers_note_activity(zm_session_t *s, uint64_t now_ms)
{
    S_LOCK(s);
    for (size_t i = 0; i < zm_slots_unicast(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && atomic_exchange_explicit(&p->active, false, memory_order_relaxed)) {
            p->last_active_ms = now_ms;
        }
    }
    S_UNLOCK(s);
}


/* The one loop of zm_peers_pin and zm_peers_pin_if: inline in each, so that the first has no filter. */
static ZM_ALWAYS_INLINE void pin_live(zm_session_t *s, zm_pins_t *out, bool (*fn)(zm_peer_t *p, const void *arg),
                                      const void *arg)
{
    size_t n = 0;
    S_LOCK(s);
    for (size_t i = 0; i < zm_slots_pin(s); i++) {
        zm_peer_t *p = &s->peers[i];
        if (p->state == PEER_LIVE && (fn == NULL || fn(p, arg))) {
            zm_atomic_inc_relaxed(&p->refs);
            out->p[n++] = p;
        }
    }
    S_UNLOCK(s);
    out->n = n;
}

void zm_peers_pin(zm_session_t *s, zm_pins_t *out) { pin_live(s, out, NULL, NULL); }

void zm_peers_pin_if(zm_session_t *s, zm_pins_t *out, bool (*fn)(zm_peer_t *p, const void *arg), const void *arg)
{
    pin_live(s, out, fn, arg);
}

/* Inline in the session's private header, beside why it takes no lock. */
void zm_peer_unpin(zm_peer_t *p) { zm_peer_unpin_inline(p); }

void zm_peers_unpin(const zm_pins_t *pins)
{
    for (size_t i = 0; i < pins->n && i < ZM_PEERS_PIN; i++) { /* the bound: a client's is one peer */
        zm_peer_unpin(pins->p[i]);
    }
}
