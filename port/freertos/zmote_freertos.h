/*
 * What the FreeRTOS port offers the application beyond zmote/port.h, and what it asks of it.
 * It asks for xApplicationGetRandomNumber (FreeRTOS+TCP's own hook, defined by every FreeRTOS+TCP
 * application; a serial-only one defines it too) and, for serial links and log lines, the board
 * functions zm_board_uart, zm_board_console_write and zm_board_fatal of port/baremetal/zmote_board.h.
 */
#ifndef ZMOTE_FREERTOS_H
#define ZMOTE_FREERTOS_H

#include <stdint.h>

#include "FreeRTOS.h"

/** Fills *number with a random value from the board's best source; pdTRUE on success. */
BaseType_t xApplicationGetRandomNumber(uint32_t *number);

/** Sets the wall clock (zm_port_time_ns, z_time_now) to now_ns nanoseconds since the UNIX epoch;
 *  until called, it counts from the epoch at the scheduler's start. */
void zm_freertos_set_time_ns(uint64_t now_ns);

#endif /* ZMOTE_FREERTOS_H */
