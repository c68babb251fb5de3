/* UTF-8 validation, byte ranges as in RFC 3629 (table 3-7 of Unicode). */
#include "util/utf8.h"

size_t zm_utf8_seq(const uint8_t *s, size_t n)
{
    unsigned c = s[0];
    unsigned lo = 0x80, hi = 0xBF;
    size_t need;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlong forms */
        hi = c == 0xED ? 0x9F : 0xBF; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (n <= need || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t k = 2; k <= need; k++) {
        if ((s[k] & 0xC0) != 0x80) {
            return 0;
        }
    }
    return need + 1;
}

bool zm_utf8_valid(zm_slice_t s)
{
    size_t i = 0;
    while (i < s.len) {
        if (s.ptr[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = zm_utf8_seq(s.ptr + i, s.len - i);
        if (k == 0) {
            return false;
        }
        i += k;
    }
    return true;
}
