/*
 * What a board gives the bare-metal port: a millisecond tick, a way to idle, some entropy, a
 * console and its UARTs by name. The application (or a board package) defines these functions;
 * the port itself never touches a register, so one port/baremetal serves every board, and a
 * FreeRTOS or Zephyr port can reuse the same board drivers with its own idle and wake-ups.
 * Everything here is called from the one thread of the application, never from an interrupt.
 */
#ifndef ZMOTE_BOARD_H
#define ZMOTE_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/result.h"

/**
 * Milliseconds since reset, counted by a periodic interrupt (SysTick) or a free-running timer;
 * wraps at 2^32. The port extends it to 64 bits, so it must be read at least once every 49
 * days, which any session does.
 */
uint32_t zm_board_millis(void);

/**
 * Waits a little for something to happen, or returns at once: the body of every wait loop of
 * the port (WFI on Cortex-M). An interrupt must end it within a millisecond or so, which the
 * tick interrupt does; UART interrupts end it sooner.
 */
void zm_board_idle(void);

/**
 * Fills buf with len bytes that differ from board to board and from boot to boot: a TRNG if
 * the board has one, otherwise whatever varies (a unique id, ADC noise, timer jitter). The port
 * stirs them through a generator, so weak sources still yield distinct Zenoh ids.
 */
void zm_board_entropy(uint8_t *buf, size_t len);

/** Writes len characters of text to the board's console, waiting as needed; may drop them. */
void zm_board_console_write(const char *text, size_t len);

/** Called after the port reported a broken invariant on the console: reset, halt or exit. */
_Noreturn void zm_board_fatal(void);

/**
 * A UART of the board, found by name (zm_port_serial_open's dev). Its operations never block:
 * received bytes wait in a buffer the driver fills from its receive interrupt (see
 * zmote_ring.h), sent ones go into a buffer its transmit interrupt drains, and the port's
 * waits call zm_board_idle between tries. Every operation gets the descriptor's hw pointer.
 */
typedef struct zm_board_uart {
    const char *name;
    /** Sets the line to baudrate, 8N1, no flow control, empties the buffers, enables the interrupts.
     *  ZM_E_UNSUPPORTED for a rate the UART cannot make, ZM_E_BUSY if it is open already. */
    z_result_t (*open)(void *hw, uint32_t baudrate);
    /** Moves up to len received bytes into buf and returns how many (0: none yet). */
    size_t (*read)(void *hw, uint8_t *buf, size_t len);
    /** True if read would return at least one byte. */
    bool (*readable)(void *hw);
    /** Queues up to len bytes for sending and returns how many it took (0: no room yet). */
    size_t (*write)(void *hw, const uint8_t *buf, size_t len);
    /** Lets the bytes still queued go out (waiting no longer than they take at the line's rate,
     *  and a bounded time in all), then disables the interrupts and the UART. */
    void (*close)(void *hw);
    void *hw;
} zm_board_uart_t;

/** The board's UART called name (e.g. "uart0"), or NULL if it has none by that name. */
const zm_board_uart_t *zm_board_uart(const char *name);

#endif /* ZMOTE_BOARD_H */
