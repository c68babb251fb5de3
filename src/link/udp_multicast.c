/*
 * The UDP multicast link: a group joined on one interface. It holds two sockets, as Rust's does:
 * the link's own socket is bound to the group and receives what every member sends (ours too),
 * and a unicast socket sends to the group, so that its address tells this node from the others
 * on the same machine. One datagram is one batch. Receives hand out whole datagrams and remember
 * their sender (zm_link_mcast_sender) and never return our own, nor empty or oversized ones:
 * on a group, a datagram that cannot be read costs only itself.
 */
#include "link/link.h"

#include <string.h>

#include "util/alloc.h"

#if Z_FEATURE_LINK_UDP_MULTICAST

/* TTL of what we send: one hop, the group's own network. */
#define MCAST_TTL 1u

/* Largest UDP payload over IPv4. */
#define MCAST_MTU 65507u

typedef struct {
    zm_socket_t tx;  /* sends to the group; its address is ours as the members see it */
    zm_addr_t group;
    zm_addr_t self;  /* tx's address: datagrams from it are our own, looped back */
    zm_addr_t from;  /* the sender of the last datagram handed out (receiving thread) */
} mcast_t;

static z_result_t mcast_send(zm_link_t *l, const uint8_t *batch, size_t len, uint64_t start_deadline_ms,
                             uint64_t end_deadline_ms)
{
    ZM_UNUSED(end_deadline_ms); /* a datagram leaves whole or not at all */
    mcast_t *m = l->ctx;
    z_result_t r = zm_port_udp_send(&m->tx, batch, len, &m->group, start_deadline_ms);
    return r == ZM_E_TIMEOUT ? ZM_E_AGAIN : r;
}

static z_result_t mcast_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_port_socket_wait_readable(&l->sock, timeout_ms);
}

static z_result_t mcast_recv(zm_link_t *l, uint8_t *buf, size_t cap, bool wait, size_t *n)
{
    mcast_t *m = l->ctx;
    for (;;) {
        if (!wait) {
            z_result_t r = zm_port_socket_wait_readable(&l->sock, 0);
            if (r != Z_OK) {
                return r == ZM_E_TIMEOUT ? ZM_E_AGAIN : r;
            }
        }
        z_result_t r = zm_port_udp_recv(&l->sock, buf, cap, n, &m->from);
        if (r == ZM_E_FIELD || (r == Z_OK && (*n == 0 || zm_port_addr_equal(&m->from, &m->self)))) {
            continue; /* longer than any batch, empty, or ours: not for us */
        }
        return r;
    }
}

static zm_socket_t *mcast_socket(zm_link_t *l) { return &l->sock; }

static const zm_addr_t *mcast_sender(const zm_link_t *l)
{
    const mcast_t *m = l->ctx;
    return &m->from;
}

static void mcast_shutdown(zm_link_t *l)
{
    mcast_t *m = l->ctx;
    zm_port_socket_shutdown(&l->sock);
    zm_port_socket_shutdown(&m->tx);
}

static void mcast_close(zm_link_t *l)
{
    mcast_t *m = l->ctx;
    zm_port_socket_close(&l->sock);
    zm_port_socket_close(&m->tx);
    zm_free(m);
    l->ctx = NULL;
}

static const zm_link_ops_t mcast_ops = {
    .streamed = false,
    .mtu = MCAST_MTU,
    .wait_readable = mcast_wait_readable,
    .socket = mcast_socket,
    .send = mcast_send,
    .recv = mcast_recv,
    .sender = mcast_sender,
    .shutdown = mcast_shutdown,
    .close = mcast_close,
};

const zm_addr_t *zm_link_mcast_self(const zm_link_t *l)
{
    const mcast_t *m = l->ctx;
    return m != NULL ? &m->self : NULL;
}

z_result_t zm_link_mcast_open(zm_link_t *l, const zm_endpoint_t *ep)
{
    if (!zm_endpoint_is_multicast(ep)) {
        return ZM_E_LOCATOR;
    }
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    char iface[ZM_ENDPOINT_IFACE_MAX + 1];
    ZM_TRY(zm_endpoint_host(ep, host, sizeof(host)));
    ZM_TRY(zm_endpoint_iface(ep, iface, sizeof(iface)));
    mcast_t *m = zm_alloc(sizeof(*m));
    if (m == NULL) {
        return ZM_E_NOMEM;
    }
    memset(m, 0, sizeof(*m));
    zm_link_init(l, ZM_PROTO_UDP, &mcast_ops, m);
    z_result_t r = zm_port_addr_resolve(&m->group, host, ep->port);
    if (r == Z_OK) {
        r = zm_port_udp_join(&l->sock, host, ep->port, iface, MCAST_TTL);
    }
    if (r == Z_OK) {
        r = zm_port_udp_sender(&m->tx, iface, MCAST_TTL);
        if (r != Z_OK) {
            zm_port_socket_close(&l->sock);
        }
    }
    if (r == Z_OK) {
        r = zm_port_udp_local_addr(&m->tx, &m->self);
        if (r != Z_OK) {
            zm_port_socket_close(&l->sock);
            zm_port_socket_close(&m->tx);
        }
    }
    if (r != Z_OK) {
        zm_free(m);
        l->ops = NULL; /* nothing to close */
        l->ctx = NULL;
    }
    return r;
}

#endif /* Z_FEATURE_LINK_UDP_MULTICAST */
