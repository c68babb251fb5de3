/*
 * The log formatter: a handful of conversions into a stack line, so that the library needs no
 * stdio (newlib's printf family alone outweighs a small firmware). Unused when ZM_LOG_LEVEL is 0.
 */
#include "util/log.h"

#include <stdarg.h>
#include <stddef.h>

#if ZM_LOG_LEVEL > 0

typedef struct {
    char *buf;
    size_t len;
} line_t;

static void put_char(line_t *l, char c)
{
    if (l->len + 1 < ZM_LOG_LINE_MAX) {
        l->buf[l->len++] = c;
    }
}

static void put_str(line_t *l, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i] != '\0'; i++) {
        put_char(l, s[i]);
    }
}

static void put_uint(line_t *l, uint64_t v, unsigned base)
{
    char digits[20];
    size_t n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + (d - 10));
        v /= base;
    } while (v != 0);
    while (n > 0) {
        put_char(l, digits[--n]);
    }
}

void zm_log(uint8_t level, const char *fmt, ...)
{
#if Z_FEATURE_MULTI_THREAD
    char buf[ZM_LOG_LINE_MAX];
#else
    /* One thread calls the library (and zm_port_log does not log): the line can live outside the
     * stack, where it would add its 160 bytes at the deepest point of every path that warns. */
    static char buf[ZM_LOG_LINE_MAX];
#endif
    line_t l = {buf, 0};
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%' || p[1] == '\0') {
            put_char(&l, *p);
            continue;
        }
        p++;
        switch (*p) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            put_str(&l, s != NULL ? s : "(null)", (size_t)-1);
            break;
        }
        case '.':
            if (p[1] == '*' && p[2] == 's') {
                int n = va_arg(ap, int);
                const char *s = va_arg(ap, const char *);
                put_str(&l, s, n > 0 ? (size_t)n : 0u);
                p += 2;
            } else {
                put_char(&l, '%');
                put_char(&l, '.');
            }
            break;
        case 'd': {
            int v = va_arg(ap, int);
            if (v < 0) {
                put_char(&l, '-');
            }
            put_uint(&l, v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v, 10);
            break;
        }
        case 'u':
            put_uint(&l, va_arg(ap, unsigned), 10);
            break;
        case 'x':
            put_uint(&l, va_arg(ap, unsigned), 16);
            break;
        case 'U':
            put_uint(&l, va_arg(ap, uint64_t), 10);
            break;
        default:
            put_char(&l, '%');
            if (*p != '%') {
                put_char(&l, *p);
            }
            break;
        }
    }
    va_end(ap);
    buf[l.len] = '\0';
    zm_port_log(level, buf);
}

/* Weak, like zm_assert_fail: a port with a console defines the real one. */
__attribute__((weak)) void zm_port_log(uint8_t level, const char *line)
{
    ZM_UNUSED(level);
    ZM_UNUSED(line);
}

#endif /* ZM_LOG_LEVEL > 0 */
