/*
 * UDP unicast links (`udp/host:port`), framed as Rust's UDP link: one batch per datagram, no
 * length prefix, batches of at most ZM_UDP_MTU bytes (docs/udp.md). An opener has a connected
 * socket of its own. A listener has one bound socket for all its peers and tells them apart by
 * source address, as Rust's does: the first datagram from a new address makes a new link, whose
 * first batch it is (the InitSyn), and each accepted link then receives its peer's datagrams only.
 *
 * The listener looks at the sender of the next datagram before anyone takes it (a peek), so a
 * datagram waits in the socket until its own link reads it, straight into that link's buffer:
 * nothing is copied or allocated per datagram, and a link that watches the socket in a poll sees
 * its datagram there. The price is that the socket serves its links in order: while the next
 * datagram waits for a link that is busy, the others wait too (Rust's listener does the same),
 * but for HOLD_MS at most: then that datagram is dropped (unhold), so that one busy peer, whose
 * reader sits in a callback or paces large replies, costs only itself.
 */
#include <string.h>

#include "link/link.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_LINK_UDP_UNICAST

/* ---- pacing --------------------------------------------------------------------------------- */

/*
 * A burst of ZM_UDP_BURST bytes leaves at once; beyond it, datagrams leave at
 * ZM_UDP_PACE_BYTES_PER_MS, so that the fragments of a large message do not overflow the peer's
 * socket buffer, where UDP would lose them. l->tx_paced counts the bytes sent and not yet drained
 * at that rate. ZM_E_AGAIN if the datagram could not leave by start_ms: nothing was sent. Called
 * by the sending thread only.
 */
static z_result_t pace(zm_link_t *l, size_t len, uint64_t start_ms)
{
#if ZM_UDP_PACE_BYTES_PER_MS > 0
    const uint32_t rate = ZM_UDP_PACE_BYTES_PER_MS;
    for (;;) {
        uint64_t now = zm_port_clock_ms();
        uint64_t elapsed = now - l->tx_paced_ms;
        l->tx_paced = elapsed >= l->tx_paced / rate + 1u ? 0u : l->tx_paced - (uint32_t)elapsed * rate;
        l->tx_paced_ms = now;
        /* a datagram larger than the burst goes alone, once nothing is left to drain */
        if (l->tx_paced == 0 || (uint64_t)l->tx_paced + len <= ZM_UDP_BURST) {
            l->tx_paced += (uint32_t)len;
            return Z_OK;
        }
        uint64_t over = (uint64_t)l->tx_paced + len - ZM_UDP_BURST;
        uint64_t wait = (over > l->tx_paced ? l->tx_paced : over) / rate + 1u;
        if (now + wait > start_ms) {
            return ZM_E_AGAIN;
        }
        zm_port_sleep_ms((uint32_t)wait);
    }
#else
    ZM_UNUSED(l);
    ZM_UNUSED(len);
    ZM_UNUSED(start_ms);
    return Z_OK;
#endif
}

/* Milliseconds until deadline (0: none, as long as it takes), for a wait of the port. */
static uint32_t ms_until(uint64_t deadline)
{
    if (deadline == 0) {
        return UINT32_MAX;
    }
    uint64_t now = zm_port_clock_ms();
    uint64_t left = deadline > now ? deadline - now : 0u;
    return left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
}

/*
 * The host of a udp endpoint. A multicast group is the multicast link's, never a unicast peer
 * (Rust's unicast link leaves groups out too). Rust's `?rel=1` asks for its reliable UDP link,
 * which is QUIC and not this: refused rather than answered with plain datagrams its peer would
 * not understand.
 */
static z_result_t endpoint_host(const zm_endpoint_t *ep, char *host, size_t cap)
{
    zm_slice_t rel;
    if (zm_endpoint_is_multicast(ep) ||
        (zm_endpoint_param(ep->metadata, "rel", &rel) && !zm_slice_eq(rel, zm_slice("0", 1)))) {
        return ZM_E_UNSUPPORTED;
    }
    return zm_endpoint_host(ep, host, cap);
}

/* ---- connected links (the opener's) ------------------------------------------------------------ */

static z_result_t udp_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    ZM_UNUSED(timeout_ms); /* nothing is exchanged until the transport's InitSyn */
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(endpoint_host(ep, host, sizeof(host)));
    return zm_port_udp_open(&l->sock, host, ep->port, true);
}

static z_result_t udp_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                           uint64_t end_deadline_ms)
{
    ZM_UNUSED(end_deadline_ms); /* a datagram leaves whole or not at all */
    ZM_TRY(pace(l, len, start_deadline_ms));
    z_result_t rc = zm_port_udp_send(&l->sock, batch, len, NULL, start_deadline_ms);
    return rc == ZM_E_TIMEOUT ? ZM_E_AGAIN : rc;
}

/*
 * One datagram into buf. A receive that waits without a deadline sleeps in the port's receive;
 * the others wait for the socket first and look before they take, so that they never block on
 * a socket that was readable only for an error: a refusal (nobody listens at the other end, an
 * ICMP report) ends them with ZM_E_REFUSED. An empty datagram is no batch and is skipped.
 */
static z_result_t udp_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    for (;;) {
        if (wait && l->rx_deadline_ms == 0) {
            ZM_TRY(zm_port_udp_recv(&l->sock, buf, cap, n, NULL));
        } else {
            size_t len;
            zm_addr_t from;
            z_result_t rc = zm_port_udp_peek(&l->sock, &len, &from);
            if (rc == ZM_E_AGAIN && wait) {
                if (zm_port_clock_ms() >= l->rx_deadline_ms) {
                    return ZM_E_TIMEOUT;
                }
                rc = zm_port_socket_wait_readable(&l->sock, ms_until(l->rx_deadline_ms));
                if (rc == Z_OK) {
                    continue;
                }
            }
            ZM_TRY(rc);
            ZM_TRY(zm_port_udp_recv(&l->sock, buf, cap, n, NULL));
        }
        if (*n > 0) {
            return Z_OK;
        }
        if (!wait) {
            return ZM_E_AGAIN;
        }
    }
}

static z_result_t udp_local_port(const zm_link_t *l, uint16_t *port)
{
    return zm_port_socket_local_port(&l->sock, port);
}

static z_result_t udp_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_port_socket_wait_readable(&l->sock, timeout_ms);
}

static zm_socket_t *udp_socket(zm_link_t *l) { return &l->sock; }

static void udp_shutdown(zm_link_t *l) { zm_port_socket_shutdown(&l->sock); }

static void udp_close(zm_link_t *l) { zm_port_socket_close(&l->sock); }

/* ---- the listener and the links it accepts ------------------------------------------------------ */
#if Z_FEATURE_UNICAST_PEER

/* Sources a listener tells apart at once: every peer, every pending handshake, and a newcomer. */
#define UDP_PEERS (ZM_PEERS_MAX + ZM_ACCEPT_PENDING_MAX + 1)

/* L->head when nobody looked at the next datagram since the last one was taken. */
#define HEAD_UNKNOWN 0xffffu
/* L->head when the next datagram is an empty one, left for the thread that polls (a wake-up). */
#define HEAD_WAKE 0xfffeu
/* L->poller when the thread that polls is an accept. */
#define POLLER_ACCEPT 0xfffdu

/* Datagrams one look may drop or hand over: a flood of strays does not hold the caller longer. */
#define LOOK_MAX 64u

/* How long the next datagram may wait for a link that is not receiving (its reader busy in a
 * callback, or pacing what it sends) while others need the socket: then it is dropped, a loss
 * that link's peer alone bears, as UDP may lose it anyway. */
#define HOLD_MS 100u

enum { PEER_FREE = 0, PEER_NEW, PEER_OPEN };

typedef struct udp_listener udp_listener_t;

/*
 * One source address of a listener, and the accepted link that receives its datagrams: NEW from
 * its first datagram until an accept hands it out, then OPEN until that link closes. A thread
 * that waits for it on the condition variable with a buffer (wbuf) has its datagram received
 * into that buffer by whichever thread looks at the socket (got, got_len, got_rc).
 */
typedef struct {
    udp_listener_t *L;
    zm_addr_t addr;
    uint8_t state;
    bool shut;
    bool waiting;
    bool busy; /* one of its datagrams was dropped for holding the socket, and it did not receive since */
    bool got;
    uint8_t *wbuf; /* NULL: the waiter only wants to know its datagram is next */
    size_t wcap;
    size_t got_len;
    z_result_t got_rc;
} udp_peer_t;

/*
 * The state a listener shares with the links it accepted; every field is guarded by lock. It is
 * freed by the last of them to close (users). The socket is read only with the lock held, once
 * a peek said what comes next; the one thread at a time that waits in the socket for the next
 * datagram (polling, poller) does so without it.
 */
struct udp_listener {
    zm_socket_t sock;
    zm_addr_t self; /* the socket's own address: where a wake-up goes */
    ZM_IF_THREADS(
        zm_mutex_t lock;
        zm_condvar_t cond; /* the next datagram changed hands, or a link was shut */
    )
    unsigned users;
    uint16_t head;   /* the peer whose datagram is next, HEAD_UNKNOWN or HEAD_WAKE */
    uint64_t head_ms; /* when a peer's datagram became next */
    uint16_t poller; /* the peer (or POLLER_ACCEPT) that waits in the socket, if polling */
    bool polling;
    bool shut; /* the listener was shut down or closed: accepts end, newcomers are dropped */
    udp_peer_t peer[UDP_PEERS];
};

#if Z_FEATURE_MULTI_THREAD
#define L_LOCK(L) zm_port_mutex_lock(&(L)->lock)
#define L_UNLOCK(L) zm_port_mutex_unlock(&(L)->lock)
#define L_BROADCAST(L) zm_port_condvar_broadcast(&(L)->cond)
#else
#define L_LOCK(L) ((void)(L))
#define L_UNLOCK(L) ((void)(L))
#define L_BROADCAST(L) ((void)(L))
#endif

static const zm_link_ops_t udp_listener_ops;
static const zm_link_ops_t udp_accepted_ops;

/* Lock held. Sleeps until another thread changes something, or until deadline (0: none). */
static void l_wait(udp_listener_t *L, uint64_t deadline)
{
#if Z_FEATURE_MULTI_THREAD
    (void)zm_port_condvar_wait_until(&L->cond, &L->lock, deadline != 0 ? deadline : UINT64_MAX);
#else
    /* one thread: nothing else takes the datagram in the way; look again a little later */
    ZM_UNUSED(L);
    ZM_UNUSED(deadline);
    zm_port_sleep_ms(ZM_LINK_POLL_SLICE_MS);
#endif
}

/* An empty datagram to the socket itself, which ends the poll of the thread waiting in it. */
static void wake(udp_listener_t *L)
{
    uint8_t none = 0;
    (void)zm_port_udp_send(&L->sock, &none, 0, &L->self, zm_port_clock_ms());
}

/* Lock held, a peek found a datagram: takes it into buf (NULL and 0: drops it). */
static z_result_t take(udp_listener_t *L, uint8_t *buf, size_t cap, size_t *n)
{
    L->head = HEAD_UNKNOWN;
    L_BROADCAST(L);
    return zm_port_udp_recv(&L->sock, buf, cap, n, NULL);
}

static void drop(udp_listener_t *L)
{
    size_t n;
    (void)take(L, NULL, 0, &n);
}

/* Lock held. The peer that sent from a, made NEW if a is new and there is room; UDP_PEERS if none. */
static size_t peer_for(udp_listener_t *L, const zm_addr_t *a)
{
    size_t room = UDP_PEERS;
    for (size_t i = 0; i < UDP_PEERS; i++) {
        udp_peer_t *p = &L->peer[i];
        if (p->state == PEER_FREE) {
            room = room == UDP_PEERS ? i : room;
        } else if (zm_port_addr_equal(&p->addr, a)) {
            return i;
        }
    }
    if (L->shut || room == UDP_PEERS) { /* shut: no accept would ever take it */
        ZM_LOG_I("udp: %s, a datagram from a new source dropped", L->shut ? "not listening" : "no room");
        return UDP_PEERS;
    }
    udp_peer_t *p = &L->peer[room];
    p->addr = *a;
    p->state = PEER_NEW;
    p->shut = false;
    p->waiting = false;
    p->busy = false;
    p->got = false;
    return room;
}

/*
 * Lock held, the next datagram unknown. Looks at the socket for the caller (a peer's index, or
 * POLLER_ACCEPT) until the next datagram is one its own link must take (L->head is set: Z_OK) or
 * none is queued (ZM_E_AGAIN). On the way, a datagram for a link that waits with its buffer goes
 * straight into that buffer, and strays are dropped: those of sources with no room, and empty
 * ones, which are wake-ups, left for the thread that polls if it is another one.
 */
static z_result_t look(udp_listener_t *L, uint16_t who)
{
    for (unsigned k = 0; k < LOOK_MAX; k++) {
        size_t len;
        zm_addr_t from;
        ZM_TRY(zm_port_udp_peek(&L->sock, &len, &from));
        if (len == 0) {
            if (L->polling && L->poller != who) {
                L->head = HEAD_WAKE;
                return ZM_E_AGAIN;
            }
            drop(L);
            continue;
        }
        size_t i = peer_for(L, &from);
        if (i == UDP_PEERS) {
            drop(L);
            continue;
        }
        udp_peer_t *p = &L->peer[i];
        if (p->waiting && p->wbuf != NULL && !p->got) {
            p->got_rc = take(L, p->wbuf, p->wcap, &p->got_len);
            p->got = true;
            continue;
        }
        L->head = (uint16_t)i;
        L->head_ms = zm_port_clock_ms();
        L_BROADCAST(L);
        return Z_OK;
    }
    return ZM_E_AGAIN;
}

/*
 * Lock held. Fairness: the next datagram is another's (not who's) whose link is not receiving,
 * and it has held the socket for HOLD_MS: it is dropped, so that the others' datagrams behind it
 * come through, and so are that source's next ones at once until its link receives again: a
 * busy source holds the others up for HOLD_MS once, not once per datagram. Returns when the
 * caller must look again at the latest (0: no datagram is held).
 */
static uint64_t unhold(udp_listener_t *L, uint16_t who)
{
    if (L->head >= UDP_PEERS || L->head == who) {
        return 0;
    }
    udp_peer_t *p = &L->peer[L->head];
    if (p->waiting || (L->polling && L->poller == L->head)) {
        return 0; /* it is about to take it */
    }
    uint64_t until = L->head_ms + HOLD_MS;
    if (!p->busy && zm_port_clock_ms() < until) {
        return until;
    }
    if (!p->busy) {
        ZM_LOG_I("udp: a source's datagrams dropped: its link did not receive for %u ms", (unsigned)HOLD_MS);
    }
    p->busy = true; /* until it receives again, its datagrams hold nobody up: dropped at once */
    drop(L);
    return 0;
}

/* The earlier of two deadlines, 0 standing for none. */
static uint64_t earliest(uint64_t a, uint64_t b)
{
    return a == 0 ? b : b == 0 || a < b ? a : b;
}

/*
 * Lock held, released while it waits: the caller waits in the socket for the next datagram, as
 * the one thread that does, until deadline (0: none). A wake-up left for it is dropped here.
 */
static z_result_t poll_socket(udp_listener_t *L, uint16_t who, uint64_t deadline)
{
    L->polling = true;
    L->poller = who;
    L_UNLOCK(L);
    z_result_t rc = zm_port_socket_wait_readable(&L->sock, ms_until(deadline));
    L_LOCK(L);
    L->polling = false;
    if (L->head == HEAD_WAKE) {
        drop(L);
    }
    L_BROADCAST(L); /* another thread may poll now */
    return rc == ZM_E_TIMEOUT ? Z_OK : rc;
}

/*
 * Lock held. p's next datagram, until deadline (0: none; wait false: none of it): received into
 * buf, or, with buf NULL, only known to be next. ZM_E_AGAIN (no wait) or ZM_E_TIMEOUT if none came.
 */
static z_result_t peer_next(udp_peer_t *p, uint8_t *buf, size_t cap, bool wait, uint64_t deadline, size_t *n)
{
    udp_listener_t *L = p->L;
    uint16_t me = (uint16_t)(p - L->peer);
    p->busy = false; /* it receives */
    for (;;) {
        if (p->shut) {
            return ZM_E_CLOSED;
        }
        if (p->got) {
            p->got = false;
            *n = p->got_len;
            return p->got_rc;
        }
        if (L->head == me) {
            return buf != NULL ? take(L, buf, cap, n) : Z_OK;
        }
        uint64_t held = unhold(L, me);
        z_result_t rc = L->head == HEAD_UNKNOWN ? look(L, me) : ZM_E_AGAIN;
        if (rc == Z_OK) {
            continue; /* the next datagram has an owner: p, or another */
        }
        if (rc != ZM_E_AGAIN) {
            return rc;
        }
        if (!wait) {
            return ZM_E_AGAIN;
        }
        if (deadline != 0 && zm_port_clock_ms() >= deadline) {
            return ZM_E_TIMEOUT;
        }
        if (L->head == HEAD_UNKNOWN && !L->polling) {
            ZM_TRY(poll_socket(L, me, deadline)); /* the socket is empty: wait in it */
        } else {
            /* another thread waits in the socket, or the next datagram is another link's */
            p->waiting = true;
            p->wbuf = buf;
            p->wcap = cap;
            l_wait(L, earliest(deadline, held));
            p->waiting = false;
        }
    }
}

static z_result_t accepted_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    udp_peer_t *p = l->ctx;
    L_LOCK(p->L);
    z_result_t rc = peer_next(p, buf, cap, wait, l->rx_deadline_ms, n);
    L_UNLOCK(p->L);
    return rc;
}

static z_result_t accepted_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    udp_peer_t *p = l->ctx;
    size_t n;
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    L_LOCK(p->L);
    z_result_t rc = peer_next(p, NULL, 0, true, deadline != 0 ? deadline : 1u, &n);
    L_UNLOCK(p->L);
    return rc == ZM_E_CLOSED ? Z_OK : rc; /* the receive meets the end */
}

static bool accepted_pending(zm_link_t *l)
{
    udp_peer_t *p = l->ctx;
    udp_listener_t *L = p->L;
    L_LOCK(L);
    bool ready = p->shut || p->got || L->head == (uint16_t)(p - L->peer);
    L_UNLOCK(L);
    return ready;
}

/* The shared socket while the next datagram may be this link's; NULL while it is another's. */
static zm_socket_t *accepted_socket(zm_link_t *l)
{
    udp_peer_t *p = l->ctx;
    udp_listener_t *L = p->L;
    L_LOCK(L);
    bool watch = L->head == HEAD_UNKNOWN || L->head == (uint16_t)(p - L->peer);
    L_UNLOCK(L);
    return watch ? &L->sock : NULL;
}

static z_result_t accepted_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                                uint64_t end_deadline_ms)
{
    ZM_UNUSED(end_deadline_ms);
    udp_peer_t *p = l->ctx;
    L_LOCK(p->L);
    bool shut = p->shut;
    L_UNLOCK(p->L);
    if (shut) {
        return ZM_E_CLOSED;
    }
    ZM_TRY(pace(l, len, start_deadline_ms));
    /* p->addr stays put while the link is open; datagrams from many threads never mix */
    z_result_t rc = zm_port_udp_send(&p->L->sock, batch, len, &p->addr, start_deadline_ms);
    return rc == ZM_E_TIMEOUT ? ZM_E_AGAIN : rc;
}

static const zm_addr_t *accepted_sender(const zm_link_t *l)
{
    const udp_peer_t *p = l->ctx;
    return &p->addr; /* stays put while the link is open */
}

static z_result_t accepted_local_port(const zm_link_t *l, uint16_t *port)
{
    const udp_peer_t *p = l->ctx;
    return zm_port_socket_local_port(&p->L->sock, port);
}

static void accepted_shutdown(zm_link_t *l)
{
    udp_peer_t *p = l->ctx;
    udp_listener_t *L = p->L;
    L_LOCK(L);
    p->shut = true;
    L_BROADCAST(L);
    if (L->polling && L->poller == (uint16_t)(p - L->peer)) {
        wake(L);
    }
    L_UNLOCK(L);
}

/* The listener's state goes with the last of its users. */
static void listener_free(udp_listener_t *L)
{
    zm_port_socket_close(&L->sock);
    ZM_IF_THREADS(zm_port_condvar_destroy(&L->cond); zm_port_mutex_destroy(&L->lock);)
    zm_free(L);
}

/* Lock held. One user fewer; true if it was the last. */
static bool release(udp_listener_t *L)
{
    ZM_ASSERT(L->users > 0);
    L->users--;
    L_BROADCAST(L);
    return L->users == 0;
}

static void accepted_close(zm_link_t *l)
{
    udp_peer_t *p = l->ctx;
    udp_listener_t *L = p->L;
    L_LOCK(L);
    if (L->head == (uint16_t)(p - L->peer)) {
        drop(L); /* its datagram would hold the socket for ever */
    }
    p->state = PEER_FREE;
    bool last = release(L);
    L_UNLOCK(L);
    if (last) {
        listener_free(L);
    }
}

/* Lock held: the NEW peer whose first datagram is next, or NULL. */
static udp_peer_t *newcomer(udp_listener_t *L)
{
    if (L->head >= UDP_PEERS || L->peer[L->head].state != PEER_NEW) {
        return NULL;
    }
    return &L->peer[L->head];
}

/*
 * Lock held. Until deadline (0: look once), waits for a newcomer: Z_OK once one is next, and with
 * out it is handed out as an accepted link (its first datagram stays next, for that link to read).
 */
static z_result_t listener_next(udp_listener_t *L, uint64_t deadline, zm_link_t *out)
{
    for (;;) {
        if (L->shut) {
            return ZM_E_CLOSED;
        }
        udp_peer_t *p = newcomer(L);
        if (p != NULL) {
            if (out != NULL) {
                p->state = PEER_OPEN;
                L->users++;
                out->ops = &udp_accepted_ops;
                out->ctx = p;
            }
            return Z_OK;
        }
        uint64_t held = unhold(L, POLLER_ACCEPT);
        z_result_t rc = L->head == HEAD_UNKNOWN ? look(L, POLLER_ACCEPT) : ZM_E_AGAIN;
        if (rc == Z_OK) {
            continue;
        }
        if (rc != ZM_E_AGAIN) {
            return rc;
        }
        if (zm_port_clock_ms() >= deadline) {
            return ZM_E_TIMEOUT;
        }
        if (L->head == HEAD_UNKNOWN && !L->polling) {
            ZM_TRY(poll_socket(L, POLLER_ACCEPT, deadline));
        } else {
            l_wait(L, earliest(deadline, held));
        }
    }
}

static z_result_t listener_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms)
{
    udp_listener_t *L = listener->ctx;
    L_LOCK(L);
    z_result_t rc = listener_next(L, zm_port_clock_ms() + timeout_ms, out);
    L_UNLOCK(L);
    return rc;
}

static z_result_t listener_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    udp_listener_t *L = l->ctx;
    L_LOCK(L);
    z_result_t rc = listener_next(L, zm_port_clock_ms() + timeout_ms, NULL);
    L_UNLOCK(L);
    return rc == ZM_E_CLOSED ? Z_OK : rc; /* the accept meets the end */
}

static bool listener_pending(zm_link_t *l)
{
    udp_listener_t *L = l->ctx;
    L_LOCK(L);
    bool ready = L->shut || newcomer(L) != NULL;
    L_UNLOCK(L);
    return ready;
}

static zm_socket_t *listener_socket(zm_link_t *l)
{
    udp_listener_t *L = l->ctx;
    L_LOCK(L);
    bool watch = L->head == HEAD_UNKNOWN || newcomer(L) != NULL;
    L_UNLOCK(L);
    return watch ? &L->sock : NULL;
}

static z_result_t listener_local_port(const zm_link_t *l, uint16_t *port)
{
    const udp_listener_t *L = l->ctx;
    return zm_port_socket_local_port(&L->sock, port);
}

/* Ends accepts; the links accepted so far go on. A thread waiting in the socket (an accept, or a
 * wait over many links) is woken by an empty datagram. */
static void listener_shutdown(zm_link_t *l)
{
    udp_listener_t *L = l->ctx;
    L_LOCK(L);
    L->shut = true;
    L_BROADCAST(L);
    wake(L);
    L_UNLOCK(L);
}

static void listener_close(zm_link_t *l)
{
    udp_listener_t *L = l->ctx;
    L_LOCK(L);
    L->shut = true;
    udp_peer_t *p = newcomer(L);
    if (p != NULL) {
        drop(L);
        p->state = PEER_FREE;
    }
    bool last = release(L);
    L_UNLOCK(L);
    if (last) {
        listener_free(L);
    }
}

static z_result_t udp_listen(zm_link_t *l, const zm_endpoint_t *ep)
{
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(endpoint_host(ep, host, sizeof(host)));
    udp_listener_t *L = zm_alloc(sizeof(*L));
    if (L == NULL) {
        return ZM_E_NOMEM;
    }
    memset(L, 0, sizeof(*L));
    z_result_t rc = zm_port_udp_open(&L->sock, host, ep->port, false);
    if (rc != Z_OK) {
        zm_free(L);
        return rc;
    }
    rc = zm_port_udp_local_addr(&L->sock, &L->self);
    ZM_IF_THREADS(
        if (rc == Z_OK) {
            rc = zm_port_mutex_init(&L->lock);
            if (rc == Z_OK && zm_port_condvar_init(&L->cond) != Z_OK) {
                zm_port_mutex_destroy(&L->lock);
                rc = ZM_E_NOMEM;
            }
        }
    )
    if (rc != Z_OK) {
        zm_port_socket_close(&L->sock);
        zm_free(L);
        return rc;
    }
    for (size_t i = 0; i < UDP_PEERS; i++) {
        L->peer[i].L = L;
    }
    L->users = 1;
    L->head = HEAD_UNKNOWN;
    l->ops = &udp_listener_ops;
    l->ctx = L;
    return Z_OK;
}

static const zm_link_ops_t udp_listener_ops = {
    .shared = true,
    .mtu = ZM_UDP_MTU,
    .accept = listener_accept,
    .local_port = listener_local_port,
    .wait_readable = listener_wait_readable,
    .socket = listener_socket,
    .pending = listener_pending,
    .shutdown = listener_shutdown,
    .close = listener_close,
};

static const zm_link_ops_t udp_accepted_ops = {
    .shared = true,
    .sender = accepted_sender,
    .mtu = ZM_UDP_MTU,
    .local_port = accepted_local_port,
    .wait_readable = accepted_wait_readable,
    .socket = accepted_socket,
    .pending = accepted_pending,
    .send = accepted_send,
    .recv = accepted_recv,
    .shutdown = accepted_shutdown,
    .close = accepted_close,
};
#endif /* Z_FEATURE_UNICAST_PEER */

const zm_link_ops_t zm_link_udp_ops = {
    .mtu = ZM_UDP_MTU,
    .open = udp_open,
    ZM_IF_PEER(.listen = udp_listen,)
    .local_port = udp_local_port,
    .wait_readable = udp_wait_readable,
    .socket = udp_socket,
    .send = udp_send,
    .recv = udp_recv,
    .shutdown = udp_shutdown,
    .close = udp_close,
};
#endif /* Z_FEATURE_LINK_UDP_UNICAST */
