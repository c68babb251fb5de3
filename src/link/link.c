/*
 * The link table and the batch framing over it. Framing lives here, not in each protocol, so
 * that every stream link (TCP, TLS) shares one buffered reader: it fills the caller's
 * buffer with as much as one read gives, hands out whole batches in place, and moves only the
 * unfinished tail to the front when it needs room. See link.h for who may call what, when. A
 * client whose only link is serial (ZM_LINK_DIRECT) calls the line's operations by name instead,
 * and the line (serial.c) opens, receives on, shuts and closes itself as link.h's own.
 */
#include "link/link.h"

#include <string.h>

static const zm_link_ops_t *const link_table[ZM_PROTO_COUNT] = {
    [ZM_PROTO_TCP] = Z_FEATURE_LINK_TCP ? &zm_link_tcp_ops : NULL,
    [ZM_PROTO_UDP] = Z_FEATURE_LINK_UDP_UNICAST ? &zm_link_udp_ops : NULL,
    [ZM_PROTO_SERIAL] = Z_FEATURE_LINK_SERIAL ? &zm_link_serial_ops : NULL,
    [ZM_PROTO_TLS] = Z_FEATURE_LINK_TLS ? &zm_link_tls_ops : NULL,
};

const zm_link_ops_t *zm_link_ops_for(zm_link_proto_t proto)
{
    return (unsigned)proto < ZM_PROTO_COUNT ? link_table[proto] : NULL;
}

static void link_reset(zm_link_t *l, const zm_link_ops_t *ops, zm_link_proto_t proto, void *ctx)
{
    memset(l, 0, sizeof(*l));
    l->ops = ops;
    l->proto = proto;
    l->ctx = ctx;
}

#if !ZM_LINK_DIRECT /* else a client's serial line, the build's only link: serial.c opens it */
void zm_link_init(zm_link_t *l, zm_link_proto_t proto, const zm_link_ops_t *ops, void *ctx)
{
    ZM_ASSERT(ops != NULL && (ops->recv != NULL || (ZM_LINK_BYTES && ops->read != NULL)) &&
              (ops->send != NULL || (ZM_LINK_BYTES && ops->write != NULL)));
    link_reset(l, ops, proto, ctx);
}

z_result_t zm_link_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    const zm_link_ops_t *ops = zm_link_ops_for(ep->proto);
    if (ops == NULL) {
        return ZM_E_UNSUPPORTED;
    }
    ZM_ASSERT(ops->open != NULL); /* every protocol of the table can be opened */
    link_reset(l, ops, ep->proto, NULL);
    z_result_t r = ops->open(l, ep, timeout_ms);
    if (r != Z_OK) {
        l->ops = NULL; /* nothing to close */
    }
    return r;
}
#endif /* !ZM_LINK_DIRECT */

z_result_t zm_link_listen(zm_link_t *listener, const zm_endpoint_t *ep)
{
    const zm_link_ops_t *ops = Z_FEATURE_UNICAST_PEER ? zm_link_ops_for(ep->proto) : NULL; /* only peers listen */
    if (ops == NULL || ops->listen == NULL) {
        return ZM_E_UNSUPPORTED;
    }
    link_reset(listener, ops, ep->proto, NULL);
    z_result_t r = ops->listen(listener, ep);
    if (r != Z_OK) {
        listener->ops = NULL;
    }
    return r;
}

z_result_t zm_link_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms)
{
    if (!Z_FEATURE_UNICAST_PEER) {
        return ZM_E_UNSUPPORTED; /* nothing listens */
    }
    ZM_ASSERT(listener->ops != NULL && listener->ops->accept != NULL);
    link_reset(out, listener->ops, listener->proto, listener->ctx);
    z_result_t r = listener->ops->accept(listener, out, timeout_ms);
    if (r != Z_OK) {
        out->ops = NULL;
    }
    return r;
}

z_result_t zm_link_local_port(const zm_link_t *l, uint16_t *port)
{
    if (ZM_PORT_SOCKETS && l->ops->local_port != NULL) {
        return l->ops->local_port(l, port);
    }
    return ZM_E_UNSUPPORTED; /* a link without a port: serial */
}

#if !ZM_LINK_DIRECT
bool zm_link_is_streamed(const zm_link_t *l) { return ZM_LINK_BYTES && l->ops->streamed; }

uint16_t zm_link_mtu(const zm_link_t *l) { return l->ops->mtu; }

/* Writes a whole frame: the first byte must leave by start, the rest by end (see link.h). */
static z_result_t write_frame(zm_link_t *l, const uint8_t *frame, size_t len, uint64_t start, uint64_t end)
{
    size_t done = 0;
    z_result_t r = l->ops->write(l, frame, len, start, &done);
    if (r != ZM_E_TIMEOUT) {
        return r;
    }
    if (done == 0) {
        return ZM_E_AGAIN;
    }
    size_t more = 0;
    return l->ops->write(l, frame + done, len - done, end, &more);
}

z_result_t zm_link_send_batch(zm_link_t *l, uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                              uint64_t end_deadline_ms)
{
    if (!ZM_LINK_BYTES || !l->ops->streamed) {
        if (len > l->ops->mtu) {
            return ZM_E_FIELD;
        }
        if (!ZM_LINK_BYTES || l->ops->send != NULL) {
            return l->ops->send(l, batch, len, start_deadline_ms, end_deadline_ms);
        }
        return write_frame(l, batch, len, start_deadline_ms, end_deadline_ms);
    }
    uint8_t *frame = zm_link_stream_frame(l, batch, len);
    if (frame == NULL) {
        return ZM_E_FIELD;
    }
    return write_frame(l, frame, len + ZM_LINK_HEADROOM, start_deadline_ms, end_deadline_ms);
}

#if ZM_LINK_BYTES
z_result_t zm_link_send_rest(zm_link_t *l, const uint8_t *frame, size_t len, size_t done, uint32_t rest_ms)
{
    if (done == 0) {
        return ZM_E_AGAIN;
    }
    size_t more = 0;
    return l->ops->write(l, frame + done, len - done, zm_port_clock_ms() + rest_ms, &more);
}
#endif
#endif /* !ZM_LINK_DIRECT */

#if Z_FEATURE_LINK_UDP_MULTICAST || ZM_LINK_SHARED
const zm_addr_t *zm_link_sender(const zm_link_t *l)
{
    return l->ops->sender != NULL ? l->ops->sender(l) : NULL;
}
#endif

#if ZM_LINK_BYTES
/* The length announced by the buffered prefix; the caller checked two bytes are there. */
static size_t buffered_len(const zm_link_t *l)
{
    const uint8_t *p = l->rx_buf + l->rx_pos;
    return (size_t)p[0] | ((size_t)p[1] << 8);
}

/* True if recv_batch can answer from the buffer alone (a whole batch, or a bad length). */
static bool batch_buffered(const zm_link_t *l)
{
    size_t have = l->rx_len - l->rx_pos;
    if (have < ZM_LINK_HEADROOM) {
        return false;
    }
    size_t n = buffered_len(l) + ZM_LINK_HEADROOM;
    return have >= n || n > l->rx_cap;
}

/* One read, first waiting for bytes until the link's deadline when it has one. */
static z_result_t read_some(zm_link_t *l, uint8_t *buf, size_t len, size_t *n)
{
#if Z_FEATURE_LINK_TLS
    for (;;) {
#endif
        if (l->rx_deadline_ms != 0 && l->ops->wait_readable != NULL) {
            uint64_t now = zm_port_clock_ms();
            if (now >= l->rx_deadline_ms) {
                return ZM_E_TIMEOUT;
            }
            ZM_TRY(l->ops->wait_readable(l, (uint32_t)(l->rx_deadline_ms - now)));
        }
#if Z_FEATURE_LINK_TLS
        /* A link of records (TLS) never waits in its read: ZM_E_AGAIN until a record is whole. */
        z_result_t r = l->ops->read(l, buf, len, n);
        if (r != ZM_E_AGAIN) {
            return r;
        }
        if (l->rx_deadline_ms == 0) {
            r = l->ops->wait_readable(l, UINT32_MAX);
            if (r != Z_OK && r != ZM_E_TIMEOUT) {
                return r;
            }
        }
    }
#else
    return l->ops->read(l, buf, len, n);
#endif
}

/* Hands out the next buffered batch of a stream link: Z_OK, ZM_E_FIELD if its announced length
 * can never fit, ZM_E_AGAIN if it is not all in yet (its start then moved to the front). */
static z_result_t take_buffered(zm_link_t *l, zm_slice_t *batch)
{
    if (zm_link_take_whole(l, batch)) {
        return Z_OK;
    }
    size_t have = l->rx_len - l->rx_pos;
    if (have >= ZM_LINK_HEADROOM && buffered_len(l) + ZM_LINK_HEADROOM > l->rx_cap) {
        return ZM_E_FIELD; /* the stream cannot be resynchronised: close the link */
    }
    /* Short of a whole batch: the batch handed out last is dead now, so its room is free. */
    if (l->rx_pos > 0) {
        memmove(l->rx_buf, l->rx_buf + l->rx_pos, have);
        l->rx_pos = 0;
        l->rx_len = have;
    }
    return ZM_E_AGAIN;
}


/* ZM_E_AGAIN unless a read would return at once; a link that cannot tell is read regardless. */
static z_result_t poll_now(zm_link_t *l)
{
    if (l->ops->wait_readable == NULL) {
        return Z_OK;
    }
    z_result_t r = l->ops->wait_readable(l, 0);
    return r == ZM_E_TIMEOUT ? ZM_E_AGAIN : r;
}

/* One read into buf: waiting (until the link's deadline, if any), or only if bytes are there now. */
static z_result_t read_step(zm_link_t *l, bool wait, uint8_t *buf, size_t len, size_t *n)
{
    if (wait) {
        return read_some(l, buf, len, n);
    }
    ZM_TRY(poll_now(l));
    return l->ops->read(l, buf, len, n);
}

/* The buffered reader of byte links, with reads that wait or not. Each round reads what the link
 * gives, up to the room left; the loop ends because a batch that fits completes within cap bytes,
 * or, without waiting, the link runs dry first. */
static z_result_t receive_bytes(zm_link_t *l, uint8_t *buf, size_t cap, zm_slice_t *batch, bool wait)
{
    if (!l->ops->streamed) {
        size_t n = 0;
        ZM_TRY(read_step(l, wait, buf, cap, &n));
        *batch = zm_slice(buf, n);
        return Z_OK;
    }
    if (cap < ZM_LINK_HEADROOM) {
        return ZM_E_NO_SPACE;
    }
    for (;;) {
        z_result_t r = take_buffered(l, batch);
        if (r != ZM_E_AGAIN) {
            return r;
        }
        size_t got = 0;
        ZM_TRY(read_step(l, wait, buf + l->rx_len, cap - l->rx_len, &got));
        l->rx_len += got;
    }
}
#endif /* ZM_LINK_BYTES */

#if !ZM_LINK_DIRECT /* else the line's own (serial.c) */
/* recv_batch and try_recv_batch: a framed link's own recv, or the reader of byte links. */
z_result_t zm_link_receive(zm_link_t *l, uint8_t *buf, size_t cap, zm_slice_t *batch, bool wait)
{
    zm_link_adopt_buffer(l, buf, cap);
#if ZM_LINK_BYTES
    if (l->ops->recv == NULL) {
        return receive_bytes(l, buf, cap, batch, wait);
    }
#endif
    size_t n = 0;
    ZM_TRY(l->ops->recv(l, buf, cap, wait, &n));
    *batch = zm_slice(buf, n);
    return Z_OK;
}
#endif

z_result_t zm_link_rebuffer(zm_link_t *l, uint8_t *buf, size_t cap)
{
    size_t have = l->rx_len - l->rx_pos;
    if (have > cap) {
        return ZM_E_NO_SPACE;
    }
    if (have > 0) {
        memmove(buf, l->rx_buf + l->rx_pos, have); /* memmove: buf may be the old buffer */
    }
    l->rx_buf = buf;
    l->rx_cap = cap;
    l->rx_pos = 0;
    l->rx_len = have;
    return Z_OK;
}

#if !ZM_LINK_DIRECT
/* True if a receive on l (an accept on a listener) has work without waiting for its line. */
static bool ready_now(zm_link_t *l)
{
#if ZM_LINK_BYTES
    if (l->ops->streamed && batch_buffered(l)) {
        return true;
    }
#endif
    return l->ops->pending != NULL && l->ops->pending(l);
}
#endif

#if ZM_PORT_SOCKETS
/*
 * One poll over the links' sockets. A shared link that cannot be watched now (another link's
 * datagram holds their socket) shortens the poll to a slice and sets *sliced, so that the caller
 * asks again: what frees the socket is no event of any socket.
 */
static z_result_t wait_round(zm_link_t *const *links, size_t n, uint32_t timeout_ms, uint8_t *ready, bool *sliced)
{
    zm_socket_t *socks[ZM_SOCKET_WAIT_MAX];
    uint8_t polled[ZM_SOCKET_WAIT_MAX];
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        zm_link_t *l = links[i];
        socks[i] = NULL;
        ready[i] = 0;
        if (l == NULL || l->ops == NULL) {
            continue;
        }
        if (ready_now(l)) {
            ready[i] = 1; /* the socket may be silent: the bytes are already here */
            any = true;
            continue;
        }
        if (l->ops->socket == NULL) {
            ready[i] = 1; /* cannot be watched: the caller finds out by reading */
            any = true;
            continue;
        }
        socks[i] = l->ops->socket(l); /* NULL: nothing to watch now, not ready */
        *sliced = *sliced || (ZM_LINK_SHARED && socks[i] == NULL && l->ops->shared);
    }
    /* With something ready already, the poll only collects what else is. */
    uint32_t wait = any ? 0u : timeout_ms;
    if (*sliced && wait > ZM_LINK_POLL_SLICE_MS) {
        wait = ZM_LINK_POLL_SLICE_MS;
    }
    z_result_t r = zm_port_socket_wait_any(socks, n, wait, polled);
    if (r == ZM_E_TIMEOUT) {
        return any ? Z_OK : ZM_E_TIMEOUT;
    }
    ZM_TRY(r);
    for (size_t i = 0; i < n; i++) {
        ready[i] = (uint8_t)(ready[i] | polled[i]);
    }
    return Z_OK;
}

z_result_t zm_link_wait_any(zm_link_t *const *links, size_t n, uint32_t timeout_ms, uint8_t *ready)
{
    if (n > ZM_SOCKET_WAIT_MAX) {
        return ZM_E_LIMIT;
    }
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        bool sliced = false; /* only where links share a socket (ZM_LINK_SHARED) */
        z_result_t r = wait_round(links, n, timeout_ms, ready, &sliced);
        if (r != ZM_E_TIMEOUT || !sliced) {
            return r;
        }
        uint64_t now = zm_port_clock_ms();
        if (now >= deadline) {
            return r;
        }
        timeout_ms = (uint32_t)(deadline - now);
    }
}
#elif !Z_FEATURE_UNICAST_PEER
/* A client waits on one link at most, its router's (none while it has no router): in that
 * link's own wait_readable, so it wakes as soon as its bytes come. */
z_result_t zm_link_wait_any(zm_link_t *const *links, size_t n, uint32_t timeout_ms, uint8_t *ready)
{
    if (n > 1) {
        return ZM_E_LIMIT;
    }
    zm_link_t *l = n == 1 ? links[0] : NULL;
    if (l == NULL || !zm_link_is_open(l)) {
        zm_port_sleep_ms(timeout_ms);
        if (n == 1) {
            ready[0] = 0;
        }
        return ZM_E_TIMEOUT;
    }
    /* A link that cannot wait (ZM_E_UNSUPPORTED) is ready, as is one with an error: the read meets it. */
    z_result_t r = zm_link_wait_readable(l, timeout_ms);
    ready[0] = r != ZM_E_TIMEOUT;
    return r == ZM_E_TIMEOUT ? r : Z_OK;
}
#else
/* Without sockets nothing watches many lines at once: each link is asked in turn, without
 * waiting, and the round repeats every ZM_LINK_POLL_SLICE_MS until one is ready. A single link
 * (a client's) waits in its own wait_readable, and so wakes as soon as its bytes come. */
z_result_t zm_link_wait_any(zm_link_t *const *links, size_t n, uint32_t timeout_ms, uint8_t *ready)
{
    if (n > ZM_SOCKET_WAIT_MAX) {
        return ZM_E_LIMIT;
    }
    if (n == 1 && links[0] != NULL && links[0]->ops != NULL && links[0]->ops->wait_readable != NULL) {
        z_result_t r = zm_link_wait_readable(links[0], timeout_ms);
        ready[0] = r != ZM_E_TIMEOUT; /* an error is ready too: the read meets it */
        return r == ZM_E_TIMEOUT ? r : Z_OK;
    }
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            zm_link_t *l = links[i];
            ready[i] = 0;
            if (l == NULL || l->ops == NULL) {
                continue;
            }
            if (ready_now(l) || l->ops->wait_readable == NULL || l->ops->wait_readable(l, 0) != ZM_E_TIMEOUT) {
                ready[i] = 1;
                any = true;
            }
        }
        uint64_t now = zm_port_clock_ms();
        if (any || now >= deadline) {
            return any ? Z_OK : ZM_E_TIMEOUT;
        }
        uint64_t left = deadline - now;
        zm_port_sleep_ms(left < ZM_LINK_POLL_SLICE_MS ? (uint32_t)left : ZM_LINK_POLL_SLICE_MS);
    }
}
#endif

#if !ZM_LINK_DIRECT
z_result_t zm_link_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    if (ready_now(l)) {
        return Z_OK;
    }
    if (l->ops->wait_readable == NULL) {
        return ZM_E_UNSUPPORTED;
    }
    return l->ops->wait_readable(l, timeout_ms);
}

/* else the line's own (serial.c) */
void zm_link_shutdown(zm_link_t *l)
{
    if (l->ops != NULL && l->ops->shutdown != NULL) {
        l->ops->shutdown(l);
    }
}

void zm_link_close(zm_link_t *l)
{
    if (l->ops != NULL && l->ops->close != NULL) {
        l->ops->close(l);
    }
    l->ops = NULL;
    l->rx_buf = NULL;
    l->rx_cap = 0;
    l->rx_pos = 0;
    l->rx_len = 0;
}
#endif
