/*
 * The platform interface: the only thing a port implements (port/posix today; FreeRTOS, Zephyr
 * and bare metal later). The port's own zmote_platform.h, found on the include path of the
 * chosen port, defines the opaque types; upper layers never test the platform, they call here.
 * Functions that can fail return z_result_t; none of them allocates unless it says so.
 */
#ifndef ZMOTE_PORT_H
#define ZMOTE_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "zmote/opt.h"
#include "zmote/result.h"
#include "zmote_platform.h" /* zm_mutex_t, zm_condvar_t, zm_task_t, zm_socket_t */

/* ---- memory: the default heap behind zm_alloc/zm_free (a static arena may replace it) ---- */
void *zm_port_malloc(size_t size);
void zm_port_free(void *ptr);

/* ---- clocks and randomness --------------------------------------------------------------- */
/** Monotonic milliseconds, for leases and timeouts. */
uint64_t zm_port_clock_ms(void);
/** Wall clock as nanoseconds since the UNIX epoch, for timestamps. */
uint64_t zm_port_time_ns(void);
void zm_port_sleep_ms(uint32_t ms);
/** Fills buf with len random bytes (zids, nonces). */
void zm_port_random(void *buf, size_t len);

#if Z_FEATURE_MULTI_THREAD
/* ---- threads ------------------------------------------------------------------------------- */
z_result_t zm_port_mutex_init(zm_mutex_t *m);
void zm_port_mutex_destroy(zm_mutex_t *m);
void zm_port_mutex_lock(zm_mutex_t *m);
void zm_port_mutex_unlock(zm_mutex_t *m);
z_result_t zm_port_condvar_init(zm_condvar_t *c);
void zm_port_condvar_destroy(zm_condvar_t *c);
void zm_port_condvar_signal(zm_condvar_t *c);
void zm_port_condvar_broadcast(zm_condvar_t *c);
/** Waits on c (m held) until signalled or until the monotonic deadline; ZM_E_TIMEOUT then. */
z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms);
z_result_t zm_port_task_start(zm_task_t *t, void *(*fn)(void *), void *arg);
void zm_port_task_join(zm_task_t *t);
#endif

/* ---- sockets (stream links) --------------------------------------------------------------- */
/** Connects to host:port (name, IPv4 or IPv6 literal) within timeout_ms. */
z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port, uint32_t timeout_ms);
/** Listens on host:port; port 0 picks a free one, read back with zm_port_socket_local_port. */
z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port);
/** Waits up to timeout_ms for a connection on a listening socket; ZM_E_TIMEOUT if none came. */
z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms);
z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port);
/** Reads at most len bytes, blocking until at least one arrives; *n = 0 never means success. */
z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n);
/** Writes all len bytes or fails. */
z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len);
/** Makes blocked reads and writes on s return (another thread then closes it). */
void zm_port_socket_shutdown(zm_socket_t *s);
void zm_port_socket_close(zm_socket_t *s);

#endif /* ZMOTE_PORT_H */
