/*
 * Connectivity: the transports of the session and their listeners (session/connectivity.h). The
 * peer table is the core's; this file only reads it, under s->lock, and keeps in s->conn what
 * its listeners were told.
 */
#include <string.h>

#include "session/hub.h"

#if Z_FEATURE_CONNECTIVITY

static const char *const proto_names[ZM_PROTO_COUNT] = {"tcp", "udp", "tls", "serial"};

/* Writes `proto/address` into out, or leaves it empty when the address is unknown (len 0). */
static void locator_put(char out[ZM_CONN_LOCATOR_MAX], uint8_t proto, const char *addr, size_t len)
{
    size_t n = strlen(proto_names[proto]);
    out[0] = '\0';
    if (len == 0 || n + 1 + len >= ZM_CONN_LOCATOR_MAX) {
        return;
    }
    memcpy(out, proto_names[proto], n);
    out[n] = '/';
    memcpy(out + n + 1, addr, len);
    out[n + 1 + len] = '\0';
}

#if ZM_PORT_SOCKETS
/* The local or remote address of a socket link, or of the one sender of a shared socket's link. */
static void link_locator(const zm_link_t *l, bool remote, char out[ZM_CONN_LOCATOR_MAX])
{
    char addr[ZM_CONN_LOCATOR_MAX];
    size_t len = zm_port_socket_address(&l->sock, remote, addr, sizeof(addr));
#if ZM_LINK_SHARED
    const zm_addr_t *from = len == 0 && remote ? zm_link_sender(l) : NULL;
    if (from != NULL) {
        len = zm_port_addr_format(from, addr, sizeof(addr));
    }
#endif
    locator_put(out, (uint8_t)l->proto, addr, len);
}
#else
static void link_locator(const zm_link_t *l, bool remote, char out[ZM_CONN_LOCATOR_MAX])
{
    ZM_UNUSED(l);
    ZM_UNUSED(remote);
    out[0] = '\0';
}
#endif

/* s->lock held, p live: the transport p is, and its link. */
static void conn_fill(const zm_session_t *s, const zm_peer_t *p, zm_conn_t *c)
{
    memset(c, 0, sizeof(*c));
    c->zid = p->t.remote_zid;
    c->whatami = p->t.remote_whatami;
    c->qos = p->t.qos;
    const zm_link_t *l = &p->t.link;
    ZM_IF_MCAST(
        if (zm_peer_is_member(p)) {
            /* a member is heard on the group's link: from its address, to ours (that of our sends) */
            l = &s->peers[ZM_GROUP_SLOT].t.link;
            c->multicast = true;
            char addr[ZM_CONN_LOCATOR_MAX];
            locator_put(c->dst, ZM_PROTO_UDP, addr, zm_port_addr_format(&p->addr, addr, sizeof(addr)));
            const zm_addr_t *self = zm_link_mcast_self(l);
            locator_put(c->src, ZM_PROTO_UDP, addr, self != NULL ? zm_port_addr_format(self, addr, sizeof(addr)) : 0);
        } else
    )
    {
        link_locator(l, true, c->dst);
        link_locator(l, false, c->src);
    }
    ZM_UNUSED(s);
    c->mtu = zm_link_mtu(l);
    c->streamed = zm_link_is_streamed(l);
    c->reliable = l->proto != ZM_PROTO_UDP;
}

/* A slot that holds a transport of the API: a live peer, not the group's own slot. */
static bool slot_live(const zm_peer_t *p) { return p->state == PEER_LIVE && !zm_peer_is_group(p); }

/*
 * s->lock held: calls fn(c, up, link) of every listener declared before change seq (and not
 * undeclared), each without the lock, with a frame that lets it undeclare itself. Returns with
 * the lock held.
 */
static void tell_one(zm_session_t *s, const zm_conn_t *c, bool up, bool link, uint32_t seq)
{
    zm_cb_frame_t frame = {NULL, zm_port_thread_self()};
    zm_entity_t *e = s->conns;
    while (e != NULL) {
        if (e->removed || (int32_t)(seq - e->since) <= 0) {
            e = e->next;
            continue;
        }
        e->busy++;
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        e->cfn(c, up, link, e->ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
        e = zm_entity_unpin(s, &s->conns, e);
    }
}

/* s->lock held: tells change seq, the transport before its link when up, after it when down. */
static void tell(zm_session_t *s, const zm_conn_t *c, bool up, uint32_t seq)
{
    tell_one(s, c, up, !up, seq);
    tell_one(s, c, up, up, seq);
}

/* s->lock held: whether the calling thread may change the slots now (it then owns them until
 * release); it may already, when it declares a listener from a listener's callback. */
static bool take_slots(zm_session_t *s, bool *mine)
{
    zm_thread_id_t self = zm_port_thread_self();
    *mine = false;
    if (s->conn.syncing) {
        return s->conn.owner == self;
    }
    s->conn.syncing = true;
    s->conn.owner = self;
    *mine = true;
    return true;
}

static void release_slots(zm_session_t *s, bool mine)
{
    if (mine) {
        s->conn.syncing = false;
        S_BROADCAST(s);
    }
}

/* s->lock held, the slots ours: tells every change of the peer table since the last look. */
static void sync(zm_session_t *s)
{
    for (size_t i = 0; i < zm_slots(s); i++) {
        const zm_peer_t *p = &s->peers[i];
        zm_conn_slot_t *k = &s->conn.slots[i];
        for (;;) { /* a slot that changed hands is told down, then up */
            bool live = slot_live(p);
            bool up;
            if (k->known && (!live || p->gen != k->gen)) {
                k->known = false;
                up = false;
            } else if (!k->known && live) {
                conn_fill(s, p, &k->c);
                k->gen = p->gen;
                k->known = true;
                up = true;
            } else {
                break;
            }
            zm_conn_t c = k->c; /* the slot may change while the listeners run */
            tell(s, &c, up, ++s->conn.seq);
        }
    }
}

void zm_connectivity_tick(zm_session_t *s, uint64_t now_ms)
{
    ZM_UNUSED(now_ms);
    bool mine;
    S_LOCK(s);
    if (take_slots(s, &mine) && mine) {
        sync(s);
        release_slots(s, true);
    } /* else another thread compares them now: the next tick will see what it missed */
    S_UNLOCK(s);
}

void zm_connectivity_close(zm_session_t *s)
{
    zm_entities_free_all(&s->conns);
}

z_result_t zm_session_conn_list(zm_session_t *s, zm_conn_fn fn, void *ctx)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    for (size_t i = 0; i < zm_slots(s); i++) {
        zm_conn_t c;
        S_LOCK(s);
        bool live = slot_live(&s->peers[i]);
        if (live) {
            conn_fill(s, &s->peers[i], &c);
        }
        S_UNLOCK(s);
        if (live) {
            fn(&c, true, false, ctx);
            fn(&c, true, true, ctx);
        }
    }
    return Z_OK;
}

z_result_t zm_session_declare_conn_listener(zm_session_t *s, bool history, zm_conn_fn fn, zm_drop_fn drop, void *ctx,
                                            uint32_t *id)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    zm_entity_t *e = zm_entity_new("", 0);
    if (e == NULL) {
        return ZM_E_NOMEM;
    }
    e->cfn = fn;
    e->drop = drop;
    e->ctx = ctx;
    bool mine = false;
    S_LOCK(s);
    /* the slots brought up to date first, so that what opened before the listener is not told to
     * it as a change; then, as they are, its history: nobody changes them meanwhile */
    while (!take_slots(s, &mine)) {
        S_WAIT(s, 1000u);
    }
    if (mine) {
        sync(s);
    }
    /* listed with the number of the last change under the same lock: it is told every later one */
    e->since = s->conn.seq;
    e->busy = 1; /* pinned while its history is told */
    e->id = s->next_id++;
    e->next = s->conns;
    s->conns = e;
    *id = e->id;
    zm_cb_frame_t frame = {NULL, zm_port_thread_self()};
    for (size_t i = 0; history && i < ZM_PEER_SLOTS && !e->removed; i++) {
        if (!s->conn.slots[i].known) {
            continue;
        }
        zm_conn_t c = s->conn.slots[i].c;
        zm_callback_enter(s, &frame);
        S_UNLOCK(s);
        fn(&c, true, false, ctx);
        fn(&c, true, true, ctx);
        S_LOCK(s);
        zm_callback_leave(s, &frame);
    }
    release_slots(s, mine);
    (void)zm_entity_unpin(s, &s->conns, e);
    S_UNLOCK(s);
    return Z_OK;
}

z_result_t zm_session_undeclare_conn_listener(zm_session_t *s, uint32_t id)
{
    bool remote;
    return zm_entity_remove(s, &s->conns, id, &remote);
}

#endif /* Z_FEATURE_CONNECTIVITY */
