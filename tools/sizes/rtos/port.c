/* The stand-in RTOS port's functions (see zmote_platform.h): trivial bodies, never run. */
#include <stdlib.h>
#include <string.h>

#include "zmote/port.h"

void *zm_port_malloc(size_t size) { return malloc(size); }
void zm_port_free(void *ptr) { free(ptr); }
uint64_t zm_port_clock_ms(void) { return 0; }
uint64_t zm_port_time_ns(void) { return 0; }
void zm_port_sleep_ms(uint32_t ms) { (void)ms; }
void zm_port_random(void *buf, size_t len) { memset(buf, 0x5a, len); }
zm_thread_id_t zm_port_thread_self(void) { return 1; }

z_result_t zm_port_mutex_init(zm_mutex_t *m)
{
    m->handle = NULL;
    return Z_OK;
}
void zm_port_mutex_destroy(zm_mutex_t *m) { (void)m; }
void zm_port_mutex_lock(zm_mutex_t *m) { (void)m; }
bool zm_port_mutex_trylock(zm_mutex_t *m)
{
    (void)m;
    return true;
}
void zm_port_mutex_unlock(zm_mutex_t *m) { (void)m; }
z_result_t zm_port_condvar_init(zm_condvar_t *c)
{
    c->handle = NULL;
    return Z_OK;
}
void zm_port_condvar_destroy(zm_condvar_t *c) { (void)c; }
void zm_port_condvar_signal(zm_condvar_t *c) { (void)c; }
void zm_port_condvar_broadcast(zm_condvar_t *c) { (void)c; }
z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms)
{
    (void)c;
    (void)m;
    (void)deadline_ms;
    return ZM_E_TIMEOUT;
}
z_result_t zm_port_task_start(zm_task_t *t, void *(*fn)(void *), void *arg)
{
    t->handle = fn(arg);
    return Z_OK;
}
void zm_port_task_join(zm_task_t *t) { (void)t; }
z_result_t zm_port_task_start_detached(void *(*fn)(void *), void *arg)
{
    (void)fn(arg);
    return Z_OK;
}

z_result_t zm_port_serial_open(zm_serial_t *s, const char *dev, uint32_t baudrate)
{
    s->uart = dev[0] + (int)baudrate;
    return Z_OK;
}
z_result_t zm_port_serial_wait_readable(zm_serial_t *s, uint32_t timeout_ms)
{
    (void)s;
    (void)timeout_ms;
    return ZM_E_TIMEOUT;
}
z_result_t zm_port_serial_read(zm_serial_t *s, uint8_t *buf, size_t len, size_t *n)
{
    (void)s;
    (void)buf;
    (void)len;
    *n = 0;
    return ZM_E_CLOSED;
}
z_result_t zm_port_serial_write(zm_serial_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    (void)s;
    (void)buf;
    (void)deadline_ms;
    *written = len;
    return Z_OK;
}
void zm_port_serial_shutdown(zm_serial_t *s) { (void)s; }
void zm_port_serial_close(zm_serial_t *s) { (void)s; }
zm_socket_t *zm_port_serial_socket(zm_serial_t *s)
{
    (void)s;
    return NULL;
}
