/*
 * The stand-in port of the stack check: every port.h function of a single-thread build, empty,
 * so that the library's call graph ends at the port with a frame that gcc measured. A real
 * port's own stack (its network stack below a socket write, say) comes on top of the figures.
 */
#include "zmote/port.h"

void *zm_port_malloc(size_t size)
{
    (void)size;
    return NULL;
}

void zm_port_free(void *ptr) { (void)ptr; }

uint64_t zm_port_clock_ms(void) { return 0; }

uint64_t zm_port_time_ns(void) { return 0; }

void zm_port_sleep_ms(uint32_t ms) { (void)ms; }

void zm_port_random(void *buf, size_t len)
{
    (void)buf;
    (void)len;
}

zm_thread_id_t zm_port_thread_self(void) { return 1; }

z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port, uint32_t timeout_ms)
{
    (void)s;
    (void)host;
    (void)port;
    (void)timeout_ms;
    return Z_ENETWORK;
}

z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port)
{
    (void)s;
    (void)host;
    (void)port;
    return Z_ENETWORK;
}

z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms)
{
    (void)listener;
    (void)out;
    (void)timeout_ms;
    return ZM_E_TIMEOUT;
}

z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port)
{
    (void)s;
    *port = 0;
    return Z_OK;
}

z_result_t zm_port_socket_wait_readable(zm_socket_t *s, uint32_t timeout_ms)
{
    (void)s;
    (void)timeout_ms;
    return ZM_E_TIMEOUT;
}

z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms, uint8_t *ready)
{
    (void)socks;
    (void)n;
    (void)timeout_ms;
    (void)ready;
    return ZM_E_TIMEOUT;
}

z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n)
{
    (void)s;
    (void)buf;
    (void)len;
    *n = 0;
    return ZM_E_CLOSED;
}

z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    (void)s;
    (void)buf;
    (void)len;
    (void)deadline_ms;
    *written = 0;
    return ZM_E_CLOSED;
}

void zm_port_socket_shutdown(zm_socket_t *s) { (void)s; }

void zm_port_socket_close(zm_socket_t *s) { (void)s; }
