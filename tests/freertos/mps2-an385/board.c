/*
 * The mps2-an385 board under FreeRTOS: the vector table (the kernel's SVC, PendSV and SysTick
 * handlers, the UART0 and Ethernet interrupts), a reset handler that copies .data, clears .bss
 * and calls main, UART0 for Zenoh's serial link (the bare-metal firmware's interrupt-driven
 * driver, examples/baremetal/mps2-an386/cmsdk_uart.c), UART1 as a polled console, exit through
 * semihosting, the kernel's and FreeRTOS+TCP's hooks, and the zm_board_* functions that
 * port/freertos takes from port/baremetal/zmote_board.h (its serial links wait a tick at a time).
 */
#include "board.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "FreeRTOS.h"
#include "cmsdk_uart.h"
#include "cortex_m.h"
#include "task.h"
#include "zmote_board.h"
#include "zmote_freertos.h"

#define IRQ_UART0_RX 0u
#define IRQ_UART0_TX 1u
#define IRQ_ETHERNET 13u
#define PCLK_HZ 25000000u
#define NVIC_IPR(irq) (*(volatile uint8_t *)(uintptr_t)(0xE000E400u + (irq)))

int main(void);
void reset_handler(void);
void vPortSVCHandler(void);
void xPortPendSVHandler(void);
void xPortSysTickHandler(void);
void EthernetISR(void);

extern uint32_t __data_start[], __data_end[], __data_load[], __bss_start[], __bss_end[], __stack_top[];

static cmsdk_uart_t uart0;
static cmsdk_uart_t console;

static void fault_handler(void) { board_fail("hard fault", BOARD_EXIT_FAULT); }
static void uart0_rx_handler(void) { cmsdk_uart_rx_isr(&uart0); }
static void uart0_tx_handler(void) { cmsdk_uart_tx_isr(&uart0); }

typedef struct {
    void *initial_sp;
    void (*handlers[15 + 32])(void);
} vector_table_t;

__attribute__((section(".isr_vector"), used)) static const vector_table_t vectors = {
    .initial_sp = __stack_top,
    .handlers = {
        [0] = reset_handler,
        [1] = fault_handler,
        [2] = fault_handler,
        [3] = fault_handler,
        [4] = fault_handler,
        [5] = fault_handler,
        [10] = vPortSVCHandler,
        [13] = xPortPendSVHandler,
        [14] = xPortSysTickHandler,
        [15 + IRQ_UART0_RX] = uart0_rx_handler,
        [15 + IRQ_UART0_TX] = uart0_tx_handler,
#if FW_IP
        [15 + IRQ_ETHERNET] = EthernetISR,
#endif
    },
};

void reset_handler(void)
{
    memcpy(__data_start, __data_load, (size_t)((uintptr_t)__data_end - (uintptr_t)__data_start));
    memset(__bss_start, 0, (size_t)((uintptr_t)__bss_end - (uintptr_t)__bss_start));
    uart0.base = 0x40004000u;
    uart0.pclk_hz = PCLK_HZ;
    uart0.rx_irq = IRQ_UART0_RX;
    uart0.tx_irq = IRQ_UART0_TX;
    console.base = 0x40005000u;
    console.pclk_hz = PCLK_HZ;
    cmsdk_uart_open_polled(&console, 115200u);
    /* The Ethernet handler calls the kernel: its priority must be at or below the kernel's mask. */
    NVIC_IPR(IRQ_ETHERNET) = 0xe0u;
    board_exit(main());
}

_Noreturn void board_exit(int status)
{
    const uint32_t block[2] = {SEMIHOST_APPLICATION_EXIT, (uint32_t)status};
    (void)semihost_call(SEMIHOST_SYS_EXIT_EXTENDED, block);
    for (;;) {
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

void board_puts(const char *s) { zm_board_console_write(s, strlen(s)); }

void board_put_u32(uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1u - n] = (char)('0' + v % 10u);
        v /= 10u;
        n++;
    } while (v != 0u);
    zm_board_console_write(digits + sizeof(digits) - n, n);
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

uint32_t board_uart0_rx_dropped(void) { return uart0.rx_dropped; }

/* ---- the kernel's and FreeRTOS+TCP's hooks ---------------------------------------------------- */

void board_assert_failed(const char *file, int line)
{
    board_puts("board: assertion failed at ");
    board_puts(file);
    board_puts(":");
    board_put_i32(line);
    board_puts("\n");
    board_exit(BOARD_EXIT_FATAL);
}

void vApplicationMallocFailedHook(void);
void vApplicationMallocFailedHook(void) { board_fail("the kernel's heap is exhausted", BOARD_EXIT_FATAL); }

void vApplicationStackOverflowHook(TaskHandle_t task, char *name);
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    board_puts("board: stack overflow in task ");
    board_fail(name, BOARD_EXIT_FATAL);
}

/* No TRNG on this board: the SysTick phase and the tick count, which depend on host timing under
 * QEMU, mixed by an LCG; port/freertos stirs them further. */
BaseType_t xApplicationGetRandomNumber(uint32_t *number)
{
    static uint32_t state = 0x2545f491u;
    state = state * 1664525u + 1013904223u + SYST_CVR + (xTaskGetTickCount() << 16);
    *number = state;
    return pdTRUE;
}

uint32_t ulApplicationGetNextSequenceNumber(uint32_t local_ip, uint16_t local_port, uint32_t remote_ip,
                                            uint16_t remote_port);
uint32_t ulApplicationGetNextSequenceNumber(uint32_t local_ip, uint16_t local_port, uint32_t remote_ip,
                                            uint16_t remote_port)
{
    uint32_t r;
    (void)xApplicationGetRandomNumber(&r);
    return r ^ local_ip ^ remote_ip ^ ((uint32_t)local_port << 16 | remote_port);
}

/* The C library has no heap: every block comes from the kernel's (heap_4). Its printf family,
 * which FreeRTOS+TCP's driver uses to name the interface, links malloc without calling it here. */
void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    (void)incr;
    errno = ENOMEM;
    return (void *)-1;
}

/* ---- zmote_board.h ---------------------------------------------------------------------------- */

/* A full TX ring takes 22 ms at 115200 baud; a line slower than that, or stalled, gets no more. */
#define UART_DRAIN_MS 100u

static void uart_drain_close(void *hw)
{
    for (uint32_t waited = 0; !cmsdk_uart_tx_idle(hw) && waited < UART_DRAIN_MS; waited++) {
        vTaskDelay(1);
    }
    cmsdk_uart_close(hw);
}

static const zm_board_uart_t uarts[] = {
    {.name = "uart0", .open = cmsdk_uart_open, .read = cmsdk_uart_read, .readable = cmsdk_uart_readable,
     .write = cmsdk_uart_write, .close = uart_drain_close, .hw = &uart0},
};

uint32_t zm_board_millis(void) { return (uint32_t)(xTaskGetTickCount() * 1000u / configTICK_RATE_HZ); }

/* The serial links' waits: a tick's sleep, which lets every other task run. */
void zm_board_idle(void) { vTaskDelay(1); }

void zm_board_entropy(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i += 4u) {
        uint32_t r;
        (void)xApplicationGetRandomNumber(&r);
        memcpy(buf + i, &r, len - i < 4u ? len - i : 4u);
    }
}

/* The console is shared by the tasks: a line may be cut by another task's, never lost. */
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
