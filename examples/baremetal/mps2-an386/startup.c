/*
 * Reset and exceptions of the mps2-an386 firmware: the vector table, a reset handler that paints
 * the stack (so its high-water mark can be measured at exit), copies .data, clears .bss and calls
 * main, and fault handlers that say what happened on the console and end the run. Plain C: the
 * Cortex-M loads the stack pointer from the table itself, so no assembly is needed.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "cortex_m.h"

int main(void);
void reset_handler(void);

/* From the linker script. */
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[], __stack_limit[];

static void fault_handler(void)
{
    board_fail("hard fault", BOARD_EXIT_FAULT);
}

static void unexpected_handler(void)
{
    board_fail("unexpected interrupt", BOARD_EXIT_FAULT);
}

/* The table the core reads at reset: the initial stack pointer, then 15 system exceptions and
 * the AN386's external interrupts (32 lines on this board; only the UARTs' are used). */
typedef struct {
    void *initial_sp;
    void (*handlers[15 + 32])(void);
} vector_table_t;

__attribute__((section(".isr_vector"), used)) static const vector_table_t vectors = {
    .initial_sp = __stack_top,
    .handlers = {
        [0] = reset_handler,
        [1] = fault_handler,                                    /* NMI */
        [2] = fault_handler,                                    /* HardFault */
        [3] = fault_handler,                                    /* MemManage */
        [4] = fault_handler,                                    /* BusFault */
        [5] = fault_handler,                                    /* UsageFault */
        [10] = unexpected_handler,                              /* SVCall */
        [11] = unexpected_handler,                              /* DebugMon */
        [13] = unexpected_handler,                              /* PendSV */
        [14] = board_systick_handler,                           /* SysTick */
        [15 + BOARD_IRQ_UART0_RX] = board_uart0_rx_handler,
        [15 + BOARD_IRQ_UART0_TX] = board_uart0_tx_handler,
    },
};

void reset_handler(void)
{
    /* Paint the stack below this frame, then count the untouched words at exit. */
    uint32_t *top = (uint32_t *)(cpu_sp() - 64u);
    for (uint32_t *p = __stack_limit; p < top; p++) {
        *p = BOARD_STACK_PAINT;
    }
    memcpy(__data_start, __data_load, (size_t)((uintptr_t)__data_end - (uintptr_t)__data_start));
    memset(__bss_start, 0, (size_t)((uintptr_t)__bss_end - (uintptr_t)__bss_start));
    board_init();
    board_exit(main());
}
