/*
 * The bare-metal port's opaque types for zmote/port.h. There is one thread and no scheduler, so
 * no mutex, condition variable or task type: a multi-threaded build is refused here. A serial
 * link is a board UART (zmote_board.h) and a flag that shutdown raises; there are no sockets,
 * but zm_socket_t stays a (never opened) type because the link layer's structs name it.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/opt.h"
#include "zmote/result.h"

#if Z_FEATURE_MULTI_THREAD
#error "port/baremetal is single-thread: build it with Z_FEATURE_MULTI_THREAD=0 (drive sessions with zp_read)"
#endif
#if Z_FEATURE_LINK_TCP
#error "port/baremetal has no sockets: build it with Z_FEATURE_LINK_TCP=0"
#endif

struct zm_board_uart;

/** No sockets on bare metal; a placeholder for the structs that name the type. Tagged
 *  zm_socket, as port.h's own incomplete zm_socket_t of builds without TCP is, so both agree. */
typedef struct zm_socket {
    int none;
} zm_socket_t;

/** A board UART used as a serial link; uart is NULL once closed. shut is raised by shutdown
 *  (perhaps from an interrupt handler) and read by the waits. */
typedef struct {
    const struct zm_board_uart *uart;
    atomic_bool shut;
} zm_serial_t;

#if Z_FEATURE_LINK_SERIAL
/* The serial functions of zmote/port.h, declared here too (identically, which C allows) for the
 * programs and builds whose port.h does not have them yet. */
z_result_t zm_port_serial_open(zm_serial_t *s, const char *dev, uint32_t baudrate);
z_result_t zm_port_serial_wait_readable(zm_serial_t *s, uint32_t timeout_ms);
z_result_t zm_port_serial_read(zm_serial_t *s, uint8_t *buf, size_t len, size_t *n);
z_result_t zm_port_serial_write(zm_serial_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written);
void zm_port_serial_shutdown(zm_serial_t *s);
void zm_port_serial_close(zm_serial_t *s);
zm_socket_t *zm_port_serial_socket(zm_serial_t *s);
#endif

#endif /* ZMOTE_PLATFORM_H */
