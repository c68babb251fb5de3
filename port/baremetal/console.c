/*
 * The board console's part of a port without an operating system's (port/baremetal, and
 * port/freertos, which takes it too): a failed assertion and the library's log lines, written
 * to zm_board_console_write. The console takes no lock: lines of two tasks may interleave.
 */
#include <string.h>

#include "zmote/port.h"
#include "zmote_board.h"

/* Declared by util/common.h only when asserts are on; defined here always, so that a program
 * built with asserts links against a library built without them. */
void zm_assert_fail(const char *expr, const char *file, int line);

/* ---- console --------------------------------------------------------------------------------- */

static void console_str(const char *s) { zm_board_console_write(s, strlen(s)); }

static void console_uint(unsigned v)
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

/* A strong definition: it replaces the trap-only weak one of the portable core. */
void zm_assert_fail(const char *expr, const char *file, int line)
{
    console_str("zmote: assertion failed: ");
    console_str(expr);
    console_str(" (");
    console_str(file);
    console_str(":");
    console_uint((unsigned)line);
    console_str(")\n");
    zm_board_fatal();
}

#if ZM_LOG_LEVEL > 0
/* Declared by util/log.h. */
void zm_port_log(uint8_t level, const char *line);

void zm_port_log(uint8_t level, const char *line)
{
    static const char *const names[] = {"", "error", "warn", "info", "debug"};
    console_str("zmote ");
    console_str(level < 5 ? names[level] : "log");
    console_str(": ");
    console_str(line);
    console_str("\n");
}
#endif
