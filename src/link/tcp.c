/*
 * The TCP entry of the link table: each operation is one call into port.h. A TCP link is a
 * stream, so batches travel behind the 2-byte length that link.c adds and removes; the MTU is
 * the largest batch that prefix can describe, prefix included, as Rust counts it.
 */
#include "link/link.h"

#if Z_FEATURE_LINK_TCP

static z_result_t tcp_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(zm_endpoint_host(ep, host, sizeof(host)));
    return zm_port_tcp_connect(&l->sock, host, ep->port, timeout_ms);
}

#if Z_FEATURE_UNICAST_PEER
static z_result_t tcp_listen(zm_link_t *l, const zm_endpoint_t *ep)
{
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(zm_endpoint_host(ep, host, sizeof(host)));
    return zm_port_tcp_listen(&l->sock, host, ep->port);
}

static z_result_t tcp_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms)
{
    return zm_port_tcp_accept(&listener->sock, &out->sock, timeout_ms);
}
#endif

static z_result_t tcp_local_port(const zm_link_t *l, uint16_t *port)
{
    return zm_port_socket_local_port(&l->sock, port);
}

static z_result_t tcp_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_port_socket_wait_readable(&l->sock, timeout_ms);
}

static zm_socket_t *tcp_socket(zm_link_t *l) { return &l->sock; }

static z_result_t tcp_read(zm_link_t *l, uint8_t *buf, size_t len, size_t *n)
{
    return zm_port_socket_read(&l->sock, buf, len, n);
}

static z_result_t tcp_write(zm_link_t *l, const uint8_t *buf, size_t len, uint64_t deadline_ms, size_t *written)
{
    return zm_port_socket_write(&l->sock, buf, len, deadline_ms, written);
}

static void tcp_shutdown(zm_link_t *l) { zm_port_socket_shutdown(&l->sock); }

static void tcp_close(zm_link_t *l) { zm_port_socket_close(&l->sock); }

const zm_link_ops_t zm_link_tcp_ops = {
    .streamed = true,
    .mtu = ZM_LINK_STREAM_BATCH_MAX,
    .open = tcp_open,
    ZM_IF_PEER(
        .listen = tcp_listen,
        .accept = tcp_accept,
    )
    .local_port = tcp_local_port,
    .wait_readable = tcp_wait_readable,
    .socket = tcp_socket,
    .read = tcp_read,
    .write = tcp_write,
    .shutdown = tcp_shutdown,
    .close = tcp_close,
};
#endif /* Z_FEATURE_LINK_TCP */
