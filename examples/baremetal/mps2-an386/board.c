/*
 * The mps2-an386 board: a 1 ms SysTick, UART0 for Zenoh (interrupt-driven, cmsdk_uart.c), UART1
 * as a polled console, a heap for newlib's malloc (_sbrk) that records its extent, and exit
 * through semihosting. Here are also the zm_board_* functions port/baremetal asks for.
 */
#include "board.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cmsdk_uart.h"
#include "cortex_m.h"
#include "zmote_board.h"

extern uint32_t __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[], __stack_limit[], __heap_start[], __heap_limit[];

static volatile uint32_t ticks;

/* Set up in board_init, not by initializers: the rings stay in .bss rather than in the image. */
static cmsdk_uart_t uart0;
static cmsdk_uart_t console;

/* A full TX ring takes 22 ms at 115200 baud; a line slower than that, or stalled, gets no more. */
#define UART_DRAIN_MS 100u

/* Sends what is still queued (the session's last samples and its CLOSE), then closes. */
static void uart_drain_close(void *hw)
{
    uint32_t start = ticks;
    while (!cmsdk_uart_tx_idle(hw) && ticks - start < UART_DRAIN_MS) {
        cpu_wfi();
    }
    cmsdk_uart_close(hw);
}

static const zm_board_uart_t uarts[] = {
    {.name = "uart0", .open = cmsdk_uart_open, .read = cmsdk_uart_read, .readable = cmsdk_uart_readable,
     .write = cmsdk_uart_write, .close = uart_drain_close, .hw = &uart0},
};

void board_init(void)
{
    uart0.base = 0x40004000u;
    uart0.pclk_hz = BOARD_PCLK_HZ;
    uart0.rx_irq = BOARD_IRQ_UART0_RX;
    uart0.tx_irq = BOARD_IRQ_UART0_TX;
    console.base = 0x40005000u;
    console.pclk_hz = BOARD_PCLK_HZ;
    cmsdk_uart_open_polled(&console, BOARD_CONSOLE_BAUD);
    SYST_RVR = BOARD_PCLK_HZ / 1000u - 1u;
    SYST_CVR = 0u;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}

void board_systick_handler(void) { ticks++; }
void board_uart0_rx_handler(void) { cmsdk_uart_rx_isr(&uart0); }
void board_uart0_tx_handler(void) { cmsdk_uart_tx_isr(&uart0); }

uint32_t board_uart0_rx_dropped(void) { return uart0.rx_dropped; }

/* ---- exit ------------------------------------------------------------------------------------ */

_Noreturn void board_exit(int status)
{
    const uint32_t block[2] = {SEMIHOST_APPLICATION_EXIT, (uint32_t)status};
    (void)semihost_call(SEMIHOST_SYS_EXIT_EXTENDED, block);
    for (;;) { /* without a debugger to serve the call: stop here */
        cpu_irq_off();
        cpu_wfi();
    }
}

_Noreturn void board_fail(const char *what, int status)
{
    board_puts("board: ");
    board_puts(what);
    board_puts("\n");
    board_exit(status);
}

/* ---- console --------------------------------------------------------------------------------- */

void board_puts(const char *s) { cmsdk_uart_write_polled(&console, (const uint8_t *)s, strlen(s)); }

void board_put_u32(uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1u - n] = (char)('0' + v % 10u);
        v /= 10u;
        n++;
    } while (v != 0u);
    cmsdk_uart_write_polled(&console, (const uint8_t *)digits + sizeof(digits) - n, n);
}

void board_put_i32(int32_t v)
{
    if (v < 0) {
        board_puts("-");
        board_put_u32(0u - (uint32_t)v);
    } else {
        board_put_u32((uint32_t)v);
    }
}

/* ---- memory figures -------------------------------------------------------------------------- */

size_t board_stack_unused(void)
{
    const uint32_t *p = __stack_limit;
    while (p < __stack_top && *p == BOARD_STACK_PAINT) {
        p++;
    }
    return (size_t)((uintptr_t)p - (uintptr_t)__stack_limit);
}

size_t board_stack_size(void) { return (size_t)((uintptr_t)__stack_top - (uintptr_t)__stack_limit); }

size_t board_static_data(void) { return (size_t)((uintptr_t)__data_end - (uintptr_t)__data_start); }
size_t board_static_bss(void) { return (size_t)((uintptr_t)__bss_end - (uintptr_t)__bss_start); }

/* newlib's malloc grows its arena through _sbrk; the break never comes back down. */
static uintptr_t heap_break;

void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    if (heap_break == 0u) {
        heap_break = (uintptr_t)__heap_start;
    }
    uintptr_t old = heap_break;
    if (incr < 0 || (uintptr_t)incr > (uintptr_t)__heap_limit - old) {
        errno = ENOMEM;
        return (void *)-1;
    }
    heap_break = old + (uintptr_t)incr;
    return (void *)old;
}

size_t board_heap_extent(void)
{
    return heap_break == 0u ? 0u : (size_t)(heap_break - (uintptr_t)__heap_start);
}

size_t board_heap_capacity(void) { return (size_t)((uintptr_t)__heap_limit - (uintptr_t)__heap_start); }

/* ---- zmote_board.h --------------------------------------------------------------------------- */

uint32_t zm_board_millis(void) { return ticks; }

void zm_board_idle(void) { cpu_wfi(); }

void zm_board_entropy(uint8_t *buf, size_t len)
{
    /* No TRNG on this board: the SysTick phase and the tick count when asked, which depend on
     * host timing under QEMU and on input timing on hardware, mixed by an LCG per byte. */
    static uint32_t state = 0x2545f491u;
    for (size_t i = 0; i < len; i++) {
        state = state * 1664525u + 1013904223u + SYST_CVR + (ticks << 16);
        buf[i] = (uint8_t)(state >> 24);
    }
}

void zm_board_console_write(const char *text, size_t len)
{
    cmsdk_uart_write_polled(&console, (const uint8_t *)text, len);
}

_Noreturn void zm_board_fatal(void) { board_exit(BOARD_EXIT_FATAL); }

const zm_board_uart_t *zm_board_uart(const char *name)
{
    for (size_t i = 0; i < sizeof(uarts) / sizeof(uarts[0]); i++) {
        if (strcmp(uarts[i].name, name) == 0) {
            return &uarts[i];
        }
    }
    return NULL;
}
