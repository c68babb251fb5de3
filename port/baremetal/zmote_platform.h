/*
 * The bare-metal port's opaque types for zmote/port.h. There is one thread and no scheduler, so
 * no mutex, condition variable or task type: a multi-threaded build is refused here. A serial
 * link is a board UART (zmote_board.h) and a flag that shutdown raises; there are no sockets.
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

/** A board UART used as a serial link; uart is NULL once closed. shut is raised by shutdown
 *  (perhaps from an interrupt handler) and read by the waits. */
typedef struct {
    const struct zm_board_uart *uart;
    atomic_bool shut;
} zm_serial_t;

#endif /* ZMOTE_PLATFORM_H */
