/*
 * The board behind port/baremetal for the size table: a counter for a tick and one UART that
 * takes every byte and never receives. Nothing runs; it only lets the apps link, so that what
 * the table counts is the library.
 */
#include "zmote_board.h"

#include <string.h>

static uint32_t ticks;

uint32_t zm_board_millis(void) { return ticks++; }

void zm_board_idle(void) {}

void zm_board_entropy(uint8_t *buf, size_t len) { memset(buf, 0x5a, len); }

void zm_board_console_write(const char *text, size_t len)
{
    (void)text;
    (void)len;
}

_Noreturn void zm_board_fatal(void)
{
    for (;;) {
    }
}

static z_result_t uart_open(void *hw, uint32_t baudrate)
{
    (void)hw;
    (void)baudrate;
    return Z_OK;
}

static size_t uart_read(void *hw, uint8_t *buf, size_t len)
{
    (void)hw;
    (void)buf;
    (void)len;
    return 0;
}

static bool uart_readable(void *hw)
{
    (void)hw;
    return false;
}

static size_t uart_write(void *hw, const uint8_t *buf, size_t len)
{
    (void)hw;
    (void)buf;
    return len;
}

static void uart_close(void *hw) { (void)hw; }

static const zm_board_uart_t uart0 = {"uart0", uart_open, uart_read, uart_readable, uart_write, uart_close, NULL};

const zm_board_uart_t *zm_board_uart(const char *name) { return strcmp(name, "uart0") == 0 ? &uart0 : NULL; }
