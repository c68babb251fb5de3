/*
 * Serial links on the board's UARTs. The driver buffers both ways from its interrupts
 * (zmote_board.h), so nothing is lost while the application is busy elsewhere; here are only
 * the waits port.h asks for, each a loop of non-blocking tries and zm_board_idle, bounded by
 * its timeout or deadline on the monotonic clock, and ended early by shutdown's flag.
 */
#include <stdatomic.h>

#include "zmote/port.h"
#include "zmote_board.h"

#if Z_FEATURE_LINK_SERIAL

/* True once zm_port_serial_shutdown ran: every wait returns, reads and writes fail. The flag
 * publishes nothing else, so its loads and its store need no barrier (relaxed: plain byte
 * accesses on one core, an interrupt handler's included). */
static bool is_shut(zm_serial_t *s) { return atomic_load_explicit(&s->shut, memory_order_relaxed); }

z_result_t zm_port_serial_open(zm_serial_t *s, const char *dev, uint32_t baudrate)
{
    const zm_board_uart_t *u = zm_board_uart(dev);
    if (u == NULL) {
        return Z_ENETWORK; /* no such device: as a name that does not resolve */
    }
    z_result_t r = u->open(u->hw, baudrate);
    if (r != Z_OK) {
        return r;
    }
    s->uart = u;
    atomic_init(&s->shut, false);
    return Z_OK;
}

z_result_t zm_port_serial_wait_readable(zm_serial_t *s, uint32_t timeout_ms)
{
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        /* Shut down: a read would return ZM_E_CLOSED at once, so it would not block. */
        if (is_shut(s) || s->uart->readable(s->uart->hw)) {
            return Z_OK;
        }
        if (zm_port_clock_ms() >= deadline) {
            return ZM_E_TIMEOUT;
        }
        zm_board_idle();
    }
}

z_result_t zm_port_serial_read(zm_serial_t *s, uint8_t *buf, size_t len, size_t *n)
{
    *n = 0;
    for (;;) {
        if (is_shut(s)) {
            return ZM_E_CLOSED;
        }
        size_t got = s->uart->read(s->uart->hw, buf, len);
        if (got > 0) {
            *n = got;
            return Z_OK;
        }
        zm_board_idle();
    }
}

z_result_t zm_port_serial_write(zm_serial_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    *written = 0;
    for (;;) {
        if (is_shut(s)) {
            return ZM_E_CLOSED;
        }
        *written += s->uart->write(s->uart->hw, buf + *written, len - *written);
        if (*written == len) {
            return Z_OK;
        }
        /* A deadline already past still took what fitted at once, above. */
        if (zm_port_clock_ms() >= deadline_ms) {
            return ZM_E_TIMEOUT;
        }
        zm_board_idle();
    }
}

void zm_port_serial_shutdown(zm_serial_t *s) { atomic_store_explicit(&s->shut, true, memory_order_relaxed); }

void zm_port_serial_close(zm_serial_t *s)
{
    if (s->uart != NULL) {
        s->uart->close(s->uart->hw);
        s->uart = NULL;
    }
}

zm_socket_t *zm_port_serial_socket(zm_serial_t *s)
{
    (void)s;
    return NULL; /* a UART is not a socket: a wait over many links treats it as always ready */
}

#endif /* Z_FEATURE_LINK_SERIAL */
