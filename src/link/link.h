/*
 * Links: one table of operations per protocol ({open, listen, accept, read, write, shutdown,
 * close} plus the streamed flag and MTU), and on top of it the batch framing the transport
 * uses. Stream links (TCP) carry each batch behind a 2-byte little-endian length; the reader
 * is buffered so that one recv() can deliver many small batches, and every batch it returns
 * points into the caller's receive buffer: nothing is copied on either side. Framed links
 * (serial, and UDP, one batch per datagram) bring their own framing through the send and recv
 * operations instead.
 *
 * Ownership and threads. A zm_link_t is owned by whoever opened it (the transport). At most
 * one thread receives (recv_batch, try_recv_batch, rebuffer, wait_readable, wait_any) and at
 * most one thread sends (send_batch) at a time, and the two may run concurrently: the
 * transport serialises its senders with its own lock. zm_link_shutdown may be called from any thread at any time between open and close and
 * makes a blocked receive, send or accept return. zm_link_close is called once, only after
 * every task that used the link has been joined; it never races a reader. A link may be moved
 * by copying the struct (before its tasks start); the copy carries the buffered bytes along,
 * so it must keep receiving into the same buffer, and the original is forgotten.
 */
#ifndef ZM_LINK_LINK_H
#define ZM_LINK_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link/endpoint.h"
#include "util/bytes.h"
#include "zmote/port.h"

/* Bytes a sender reserves in front of every batch, for the stream length prefix. */
#define ZM_LINK_HEADROOM 2u

/* Largest batch a stream link can frame: the prefix is a u16. */
#define ZM_LINK_STREAM_BATCH_MAX 65535u

/* Builds without sockets wait over many links by asking each in turn, this often. */
#define ZM_LINK_POLL_SLICE_MS 5u

typedef struct zm_link zm_link_t;

/**
 * A protocol's operations. Each works on the link's own transport object (l->sock for socket
 * links, l->ctx for others) and follows the rules of the matching port.h socket call: reads
 * block until at least one byte came (ZM_E_CLOSED at the end); writes send everything or stop at
 * their monotonic deadline with ZM_E_TIMEOUT, *written telling how much went either way (a
 * datagram link writes all or nothing). A listen operation may switch l->ops to a table of its
 * listener's own (accept and the waits), and accept sets out->ops and out->ctx as it needs.
 * A read may also be ZM_E_AGAIN, having nothing whole to give though its socket was readable
 * (TLS: part of a record): a receive that waits then waits for the socket and reads again.
 * A table fills only the operations its build can use: listen and accept with peers, local_port
 * and socket with sockets, read and write with a link that moves bytes (ZM_LINK_BYTES).
 */
typedef struct {
    bool streamed; /* a byte stream that needs the length prefix (TCP), not datagrams */
    /* Its socket serves other links too: when its socket op gives NULL, another link's datagram
     * holds the socket, and a wait over many links asks again every ZM_LINK_POLL_SLICE_MS. */
    bool shared;
    uint16_t mtu;  /* largest batch this link carries, prefix included when streamed */
    z_result_t (*open)(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms);
    z_result_t (*listen)(zm_link_t *l, const zm_endpoint_t *ep);
    z_result_t (*accept)(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms);
    z_result_t (*local_port)(const zm_link_t *l, uint16_t *port);
    z_result_t (*wait_readable)(zm_link_t *l, uint32_t timeout_ms);
#if ZM_PORT_SOCKETS
    /*
     * The socket a wait over many links polls for this one. No op: the link cannot be watched
     * and is always reported ready. An op that returns NULL: nothing to watch right now (a
     * serial listener whose line is in use), the link is not ready unless pending says so.
     */
    zm_socket_t *(*socket)(zm_link_t *l);
#endif
    /* True when a receive (a listener: an accept) has work without waiting, e.g. bytes the link
     * already took from its line; a wait over many links reports such a link ready at once. */
    bool (*pending)(zm_link_t *l);
    z_result_t (*read)(zm_link_t *l, uint8_t *buf, size_t len, size_t *n);
    z_result_t (*write)(zm_link_t *l, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                        size_t *written);
    /*
     * Framed links: sends one batch with the link's own framing, under the rules and deadlines of
     * zm_link_send_batch (ZM_E_AGAIN if not a byte left by start_deadline_ms: nothing was sent;
     * once one did, the rest by end_deadline_ms or ZM_E_TIMEOUT). Called by the sending thread;
     * the batch is borrowed for the call. A link with send needs no write.
     */
    z_result_t (*send)(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                       uint64_t end_deadline_ms);
    /*
     * Framed links: receives one whole batch into buf[0..cap) and its length into *n (never 0).
     * With wait it blocks until one is in, bounded by l->rx_deadline_ms (ZM_E_TIMEOUT past it);
     * without, it reads only what the line has now and returns ZM_E_AGAIN if no batch completed.
     * ZM_E_FIELD for a batch longer than cap; ZM_E_CLOSED at the end. A batch may be received
     * into buf as it comes: the part of one not yet whole stays there between calls, and the op
     * keeps l->rx_len at its size (rx_pos 0), so that zm_link_rebuffer carries it along.
     */
    z_result_t (*recv)(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n);
#if Z_FEATURE_LINK_UDP_MULTICAST || ZM_LINK_SHARED
    /* Datagram links that hear many senders (a group): the sender of the last batch recv handed
     * out; links a shared socket accepted: their one peer. */
    const zm_addr_t *(*sender)(const zm_link_t *l);
#endif
    void (*shutdown)(zm_link_t *l);
    void (*close)(zm_link_t *l);
} zm_link_ops_t;

/**
 * A link. ops, proto, sock and ctx are set when it opens and stay put until close. The rx_*
 * fields are the buffered reader's state and belong to the receiving thread alone: rx_buf is
 * the caller's buffer of the last recv_batch, bytes [rx_pos, rx_len) of it are received but
 * not yet handed out.
 */
struct zm_link {
    const zm_link_ops_t *ops; /* NULL in a ZM_LINK_DIRECT build: link.c calls the line's own */
    zm_link_proto_t proto;
#if ZM_PORT_SOCKETS
    zm_socket_t sock;
#endif
    void *ctx;
    uint8_t *rx_buf;
    size_t rx_cap;
    size_t rx_pos;
    size_t rx_len;
    uint64_t rx_deadline_ms; /* receives fail with ZM_E_TIMEOUT past it; 0: none */
#if Z_FEATURE_LINK_UDP_UNICAST
    /* The sending thread's pacing of datagrams (udp.c): bytes not yet drained at tx_paced_ms. */
    uint64_t tx_paced_ms;
    uint32_t tx_paced;
#endif
};

/** The TCP entry of the table (tcp.c). */
extern const zm_link_ops_t zm_link_tcp_ops;

/** The TLS entry of the table (tls.c). */
extern const zm_link_ops_t zm_link_tls_ops;

/** The UDP unicast entry of the table (udp.c). */
extern const zm_link_ops_t zm_link_udp_ops;

/** The serial entry of the table (serial.c). */
extern const zm_link_ops_t zm_link_serial_ops;

/* Its operations, which link.c calls directly in a ZM_LINK_DIRECT build (see zm_link_ops_t). */
ZM_NODISCARD z_result_t zm_serial_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms);
ZM_NODISCARD z_result_t zm_serial_link_send(zm_link_t *l, const uint8_t *batch, size_t len,
                                            uint64_t start_deadline_ms, uint64_t end_deadline_ms);
ZM_NODISCARD z_result_t zm_serial_link_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n);
ZM_NODISCARD z_result_t zm_serial_link_wait_readable(zm_link_t *l, uint32_t timeout_ms);
void zm_serial_link_shutdown(zm_link_t *l);
void zm_serial_link_close(zm_link_t *l);

#if Z_FEATURE_LINK_UDP_MULTICAST
/**
 * Opens a link on the multicast group of ep (zm_endpoint_is_multicast), joined on its `iface`:
 * sends go to the group (from a unicast socket of our own, whose address the members see),
 * receives take what any member sends, never what we sent. Not in the link table: a group is
 * neither connected to nor accepted from, the multicast transport opens it. Datagrams longer than
 * the receive buffer, empty ones and our own are dropped inside the receive.
 */
ZM_NODISCARD z_result_t zm_link_mcast_open(zm_link_t *l, const zm_endpoint_t *ep);
/** Our address on the group link l as its members see it (that of our sends), NULL once closed. */
const zm_addr_t *zm_link_mcast_self(const zm_link_t *l);
#endif
#if Z_FEATURE_LINK_UDP_MULTICAST || ZM_LINK_SHARED
/** The sender of the last batch a receive handed out on a link that hears many (the receiving
 *  thread's; valid until its next receive), or the one peer of a link a shared socket accepted;
 *  NULL for a link that cannot tell. */
const zm_addr_t *zm_link_sender(const zm_link_t *l);
#endif

/**
 * The operations for proto, or NULL if zmote recognises the protocol but does not implement
 * it (tcp, tls, udp and serial when their Z_FEATURE_LINK_* is 0).
 */
const zm_link_ops_t *zm_link_ops_for(zm_link_proto_t proto);

/**
 * Prepares a link over caller-supplied operations, e.g. an in-memory link that lets transport
 * tests run without sockets; proto is what the link reports itself as, ctx is borrowed and
 * reaches the operations as l->ctx. The link counts as open.
 */
void zm_link_init(zm_link_t *l, zm_link_proto_t proto, const zm_link_ops_t *ops, void *ctx);

/**
 * Connects to ep within timeout_ms. ep (and the string it borrows from) is only read during
 * the call. ZM_E_UNSUPPORTED if the protocol has no implementation; otherwise port.h's errors.
 * On error there is nothing to close.
 */
ZM_NODISCARD z_result_t zm_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms);

/**
 * Listens on ep (parsed with ZM_ENDPOINT_LISTEN; port 0 picks one, see zm_link_local_port).
 * The listener is only used with zm_link_accept, zm_link_local_port, shutdown and close.
 */
ZM_NODISCARD z_result_t zm_link_listen(zm_link_t *listener, const zm_endpoint_t *ep);

/**
 * Waits up to timeout_ms for a peer and opens *out for it; ZM_E_TIMEOUT if none came,
 * ZM_E_CLOSED once the listener was shut down. *out is a new link the caller owns.
 */
ZM_NODISCARD z_result_t zm_link_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms);

/** The local port of a listening or connected link. */
ZM_NODISCARD z_result_t zm_link_local_port(const zm_link_t *l, uint16_t *port);

/*
 * zm_link_is_streamed: true if the link is a byte stream and batches travel behind a length prefix.
 * zm_link_mtu: the largest batch the link carries, prefix included on stream links (the INIT batch
 * size cap). Constants where the only link is a serial line.
 */
/** True while the link holds an open connection: its operations, or in a ZM_LINK_DIRECT build its line. */
static inline bool zm_link_is_open(const zm_link_t *l)
{
#if ZM_LINK_DIRECT
    return l->ctx != NULL;
#else
    return l->ops != NULL;
#endif
}

#if ZM_LINK_DIRECT
static inline bool zm_link_is_streamed(const zm_link_t *l)
{
    (void)l;
    return false;
}

static inline uint16_t zm_link_mtu(const zm_link_t *l)
{
    (void)l;
    return ZM_SERIAL_MTU;
}
#else
bool zm_link_is_streamed(const zm_link_t *l);
uint16_t zm_link_mtu(const zm_link_t *l);
#endif

/**
 * Sends one batch of len bytes (<= 65535) in a single write. Convention: the caller builds the
 * batch ZM_LINK_HEADROOM bytes into its transmit buffer, so batch[-2] and batch[-1] are its
 * own; on stream links the little-endian length is written there and the prefix and batch go
 * out together, with no copy. The batch itself is not modified.
 *
 * Two monotonic deadlines (zm_port_clock_ms values) bound the wait for a peer that does not
 * read. If not a single byte (prefix included) could be handed to the system by
 * start_deadline_ms: ZM_E_AGAIN, nothing was sent and the link is intact, so the batch may be
 * retried or discarded. Once a first byte left, the rest must follow by end_deadline_ms, or
 * ZM_E_TIMEOUT: the stream is broken in the middle of a batch. A deadline already past means
 * "only what fits right now". After any error other than ZM_E_AGAIN the link must be closed.
 */
#if ZM_LINK_DIRECT
/* The line's send refuses a batch beyond its MTU itself (ZM_E_FIELD), before a byte is written. */
ZM_NODISCARD static inline z_result_t zm_link_send_batch(zm_link_t *l, uint8_t *batch, size_t len,
                                                         uint64_t start_deadline_ms, uint64_t end_deadline_ms)
{
    return zm_serial_link_send(l, batch, len, start_deadline_ms, end_deadline_ms);
}
#else
ZM_NODISCARD z_result_t zm_link_send_batch(zm_link_t *l, uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                                           uint64_t end_deadline_ms);
#endif

#if !ZM_LINK_DIRECT
/* The frame of a batch on a stream link, its length prefix written in the headroom: NULL if the
 * prefix cannot describe it. Prefix and batch go in one write: two would cost a second syscall
 * and, with TCP_NODELAY, a segment of two bytes. */
static inline uint8_t *zm_link_stream_frame(const zm_link_t *l, uint8_t *batch, size_t len)
{
    if (len > (size_t)l->ops->mtu - ZM_LINK_HEADROOM || len > ZM_LINK_STREAM_BATCH_MAX) {
        return NULL;
    }
    uint8_t *frame = batch - ZM_LINK_HEADROOM;
    frame[0] = (uint8_t)(len & 0xffu);
    frame[1] = (uint8_t)(len >> 8);
    return frame;
}
#endif

#if ZM_LINK_BYTES && !ZM_LINK_DIRECT
/* For zm_link_send_batch_now: the frame of len bytes of which a write that waited for nothing
 * took done; the rest within rest_ms (ZM_E_AGAIN if done is 0: nothing was sent). */
ZM_NODISCARD z_result_t zm_link_send_rest(zm_link_t *l, const uint8_t *frame, size_t len, size_t done,
                                          uint32_t rest_ms);
#endif

/**
 * zm_link_send_batch with its first byte due now (a deadline already past), and the rest due
 * rest_ms after the first write: a stream link reads the clock only when that write fell short,
 * so that a batch the system takes at once costs no reading of the clock. Written inline, in
 * its sender.
 */
ZM_NODISCARD static inline z_result_t zm_link_send_batch_now(zm_link_t *l, uint8_t *batch, size_t len,
                                                             uint32_t rest_ms)
{
#if ZM_LINK_BYTES && !ZM_LINK_DIRECT
    if (l->ops->streamed) {
        uint8_t *frame = zm_link_stream_frame(l, batch, len);
        if (frame == NULL) {
            return ZM_E_FIELD;
        }
        size_t done = 0;
        z_result_t r = l->ops->write(l, frame, len + ZM_LINK_HEADROOM, 0, &done); /* a deadline already past */
        return r == ZM_E_TIMEOUT ? zm_link_send_rest(l, frame, len + ZM_LINK_HEADROOM, done, rest_ms) : r;
    }
#endif
    uint64_t now = zm_port_clock_ms();
    return zm_link_send_batch(l, batch, len, now, now + rest_ms);
}

/** zm_link_recv_batch (wait) and zm_link_try_recv_batch (not), below; in a ZM_LINK_DIRECT build
 *  the line's own (serial.c). */
ZM_NODISCARD z_result_t zm_link_receive(zm_link_t *l, uint8_t *buf, size_t cap, zm_slice_t *batch, bool wait);

#if ZM_LINK_BYTES
/* For zm_link_receive, and its callers' common case (a busy stream, whose reads bring several
 * batches): true when a whole batch of a stream link is buffered; it is then in *batch, taken. */
static inline bool zm_link_take_whole(zm_link_t *l, zm_slice_t *batch)
{
    size_t have = l->rx_len - l->rx_pos;
    if (have < ZM_LINK_HEADROOM) {
        return false;
    }
    const uint8_t *p = l->rx_buf + l->rx_pos;
    size_t n = (size_t)p[0] | ((size_t)p[1] << 8);
    if (have < n + ZM_LINK_HEADROOM) {
        return false;
    }
    *batch = zm_slice(p + ZM_LINK_HEADROOM, n);
    l->rx_pos += n + ZM_LINK_HEADROOM;
    if (l->rx_pos == l->rx_len) {
        l->rx_pos = 0; /* the next read starts at the front; *batch lives till then */
        l->rx_len = 0;
    }
    return true;
}
#endif

/* zm_link_take_whole for a receive into buf and cap that are the link's buffer already (a new one
 * is zm_link_receive's to adopt). */
static inline bool zm_link_buffered_batch(zm_link_t *l, const uint8_t *buf, size_t cap, zm_slice_t *batch)
{
#if ZM_LINK_BYTES && !ZM_LINK_DIRECT
    return buf == l->rx_buf && cap == l->rx_cap && l->ops->streamed && zm_link_take_whole(l, batch);
#else
    ZM_UNUSED(l);
    ZM_UNUSED(buf);
    ZM_UNUSED(cap);
    ZM_UNUSED(batch);
    return false;
#endif
}

/* For zm_link_receive: receives go into the caller's buffer; a new buffer would lose what the old
 * one still holds (zm_link_rebuffer is the way to change it with bytes pending). */
static inline void zm_link_adopt_buffer(zm_link_t *l, uint8_t *buf, size_t cap)
{
    if (buf != l->rx_buf || cap != l->rx_cap) {
        ZM_ASSERT(l->rx_pos == l->rx_len);
        l->rx_buf = buf;
        l->rx_cap = cap;
        l->rx_pos = 0;
        l->rx_len = 0;
    }
}

/**
 * Receives exactly one batch into *batch, which points into buf and stays valid until the next
 * recv_batch on this link. Pass the same buf and cap on every call: bytes received beyond the
 * returned batch are kept there for the next call (they are moved to the front of buf then).
 * On a stream link a batch of n bytes needs n + 2 <= cap; a longer announced length fails with
 * ZM_E_FIELD. Blocks until a whole batch is in; ZM_E_CLOSED when the peer closed or the link
 * was shut down, even in the middle of a batch. After any error the link must be closed.
 */
ZM_NODISCARD static inline z_result_t zm_link_recv_batch(zm_link_t *l, uint8_t *buf, size_t cap,
                                                         zm_slice_t *batch)
{
    if (zm_link_buffered_batch(l, buf, cap, batch)) {
        return Z_OK; /* in already, from the last read: no call */
    }
    return zm_link_receive(l, buf, cap, batch, true);
}

/**
 * Waits up to timeout_ms until zm_link_recv_batch has something to work on: a whole batch is
 * already buffered, or the link has bytes, end of stream or an error pending. Z_OK then,
 * ZM_E_TIMEOUT otherwise. For single-thread builds that must not block in a receive; a batch
 * that arrives only in part can still make the following recv_batch wait for its rest.
 */
#if ZM_LINK_DIRECT
/* The line's wait counts the bytes it already read as readable. */
ZM_NODISCARD static inline z_result_t zm_link_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_serial_link_wait_readable(l, timeout_ms);
}
#else
ZM_NODISCARD z_result_t zm_link_wait_readable(zm_link_t *l, uint32_t timeout_ms);
#endif

/**
 * The non-blocking form of zm_link_recv_batch, for a thread that serves many links: returns a
 * whole batch (as recv_batch, same buffer rules) if one is buffered or can be completed from
 * the bytes the link has right now, ZM_E_AGAIN otherwise. It never waits: it reads only after
 * the link's wait_readable reported bytes, and at most what fits in buf; partial bytes stay
 * buffered for the next call. Errors as recv_batch (ZM_E_CLOSED at the end of the stream,
 * ZM_E_FIELD for an announced length beyond cap), after which the link must be closed. A link
 * whose protocol has no wait_readable cannot be asked, so its read may block. The receive
 * deadline (zm_link_set_deadline) plays no part: the caller keeps its own time.
 */
ZM_NODISCARD static inline z_result_t zm_link_try_recv_batch(zm_link_t *l, uint8_t *buf, size_t cap,
                                                             zm_slice_t *batch)
{
    if (zm_link_buffered_batch(l, buf, cap, batch)) {
        return Z_OK; /* in already, from the last read: no call */
    }
    return zm_link_receive(l, buf, cap, batch, false);
}

/**
 * Moves the bytes the link has received but not yet handed out into buf (cap bytes, owned by
 * the caller), which every later receive then uses; the old buffer is free once this returns
 * and the last batch handed out from it is dead. Lets a handshake receive into a small buffer
 * and hand the link, with whatever the peer sent early, to a transport with a large one.
 * ZM_E_NO_SPACE (nothing changed) if the bytes do not fit. buf may be the current buffer.
 */
ZM_NODISCARD z_result_t zm_link_rebuffer(zm_link_t *l, uint8_t *buf, size_t cap);

/**
 * Waits up to timeout_ms until at least one of n links has something for a receive: a whole
 * batch already buffered (such a link is ready without any wait), or bytes, end of stream or an
 * error pending on its socket; for a listener, a connection to accept. Sets ready[i] to 1 for
 * each such link, 0 for the others. A link that is not a socket (its protocol has no socket op)
 * cannot be watched and is always reported ready; NULL entries and closed links never are. In
 * builds without sockets (ZM_PORT_SOCKETS 0) the links are asked in turn with their
 * wait_readable, in slices of ZM_LINK_POLL_SLICE_MS.
 * Z_OK if any is ready, ZM_E_TIMEOUT if none, ZM_E_LIMIT if n > ZM_SOCKET_WAIT_MAX. Called by
 * the thread that receives on all of them; the links are borrowed for the call only.
 */
ZM_NODISCARD z_result_t zm_link_wait_any(zm_link_t *const *links, size_t n, uint32_t timeout_ms,
                                         uint8_t *ready);

/**
 * Bounds every following receive by a monotonic deadline (zm_port_clock_ms), even one whose batch
 * arrives only in part: ZM_E_TIMEOUT past it (then the link must be closed). 0 removes it.
 * For handshakes, which must not let a silent or slow peer hold their caller.
 */
static inline void zm_link_set_deadline(zm_link_t *l, uint64_t deadline_ms) { l->rx_deadline_ms = deadline_ms; }

/** Makes blocked and future receives, sends and accepts on l return; any thread, idempotent. */
void zm_link_shutdown(zm_link_t *l);

/** Releases the link; every task using it must have been joined. */
void zm_link_close(zm_link_t *l);

#endif /* ZM_LINK_LINK_H */
