/*
 * The mps2-an385 board as the FreeRTOS firmware sees it: its console (UART1), the way out of
 * QEMU (semihosting) and the Zenoh UART's drop count. board.c also defines the zm_board_*
 * functions port/freertos uses and the kernel's hooks.
 */
#ifndef AN385_BOARD_H
#define AN385_BOARD_H

#include <stdint.h>

#define BOARD_EXIT_OK 0
#define BOARD_EXIT_FATAL 3 /* a broken invariant (zmote's or the kernel's), a stack overflow */
#define BOARD_EXIT_FAULT 4 /* a processor fault */

_Noreturn void board_exit(int status);
_Noreturn void board_fail(const char *what, int status);
void board_puts(const char *s);
void board_put_u32(uint32_t v);
void board_put_i32(int32_t v);
uint32_t board_uart0_rx_dropped(void);

#endif /* AN385_BOARD_H */
