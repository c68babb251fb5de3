/*
 * The mps2-an386 board as the firmware sees it: clocks, interrupt lines, the console, and the
 * way out of QEMU. board.c also defines the zm_board_* functions of port/baremetal/zmote_board.h,
 * which is all zmote knows of the board. UART0 (QEMU's first -serial) carries Zenoh, UART1 (the
 * second) is the console.
 */
#ifndef MPS2_BOARD_H
#define MPS2_BOARD_H

#include <stddef.h>
#include <stdint.h>

#define BOARD_PCLK_HZ 25000000u /* SYSCLK of the MPS2 FPGA images, also the UARTs' clock */
#define BOARD_CONSOLE_BAUD 115200u

/* External interrupt lines of the AN385/AN386 images: RX, then TX, of each UART. */
#define BOARD_IRQ_UART0_RX 0u
#define BOARD_IRQ_UART0_TX 1u

#define BOARD_STACK_PAINT 0xdeadbeefu

/* Exit statuses, seen by whoever ran QEMU. Programs use 0 and their own from 8 on. */
#define BOARD_EXIT_OK 0
#define BOARD_EXIT_FATAL 3 /* a broken invariant of zmote (zm_board_fatal) */
#define BOARD_EXIT_FAULT 4 /* a processor fault */

/** Starts the tick and the console; called by the reset handler before main. */
void board_init(void);

/** Ends the run: QEMU exits with status (semihosting); never returns. */
_Noreturn void board_exit(int status);

/** Prints "<what>" on the console and ends the run with status. */
_Noreturn void board_fail(const char *what, int status);

/** Console output: a string, an unsigned decimal, a signed decimal. */
void board_puts(const char *s);
void board_put_u32(uint32_t v);
void board_put_i32(int32_t v);

/** Stack bytes never touched since reset (the painted words still intact), and the stack size. */
size_t board_stack_unused(void);
size_t board_stack_size(void);

/** Bytes of RAM the heap has taken from the system (highest _sbrk break) and may take at most. */
size_t board_heap_extent(void);
size_t board_heap_capacity(void);

/** Bytes of .data and .bss. */
size_t board_static_data(void);
size_t board_static_bss(void);

/** Bytes the Zenoh UART's RX ring had to drop because it was full. */
uint32_t board_uart0_rx_dropped(void);

/* Interrupt handlers, for the vector table. */
void board_systick_handler(void);
void board_uart0_rx_handler(void);
void board_uart0_tx_handler(void);

#endif /* MPS2_BOARD_H */
