/*
 * Stand-ins for port.h's socket functions, which this library still references from its TCP
 * link and its wait over many links even with Z_FEATURE_LINK_TCP=0. Each refuses: a firmware
 * without sockets cannot reach them through any endpoint it accepts. This file goes once
 * Z_FEATURE_LINK_TCP=0 removes those references (with --gc-sections it is dead code then).
 */
#include "zmote/port.h"

z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port, uint32_t timeout_ms)
{
    (void)s, (void)host, (void)port, (void)timeout_ms;
    return ZM_E_UNSUPPORTED;
}

z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port)
{
    (void)s, (void)host, (void)port;
    return ZM_E_UNSUPPORTED;
}

z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms)
{
    (void)listener, (void)out, (void)timeout_ms;
    return ZM_E_UNSUPPORTED;
}

z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port)
{
    (void)s, (void)port;
    return ZM_E_UNSUPPORTED;
}

z_result_t zm_port_socket_wait_readable(zm_socket_t *s, uint32_t timeout_ms)
{
    (void)s, (void)timeout_ms;
    return ZM_E_UNSUPPORTED;
}

/* Links that are not sockets come as NULL entries and are ready without a wait. */
z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms, uint8_t *ready)
{
    (void)socks, (void)timeout_ms;
    for (size_t i = 0; i < n; i++) {
        ready[i] = 0;
    }
    return ZM_E_TIMEOUT;
}

z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n)
{
    (void)s, (void)buf, (void)len;
    *n = 0;
    return ZM_E_CLOSED;
}

z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    (void)s, (void)buf, (void)len, (void)deadline_ms;
    *written = 0;
    return ZM_E_CLOSED;
}

void zm_port_socket_shutdown(zm_socket_t *s) { (void)s; }

void zm_port_socket_close(zm_socket_t *s) { (void)s; }
