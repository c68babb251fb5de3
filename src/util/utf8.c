/* UTF-8 validation, byte ranges as in RFC 3629 (table 3-7 of Unicode). */
#include "util/utf8.h"

size_t zm_utf8_seq(const uint8_t *s, size_t n)
{
    unsigned c = s[0];
    if (c - 0xC2u > 0xF4u - 0xC2u) {
        return 0; /* a continuation byte, an overlong two-byte lead, or past U+10FFFF */
    }
    size_t need = 1u + (c >= 0xE0) + (c >= 0xF0);
    if (n <= need) {
        return 0;
    }
    /* Narrower second bytes rule out overlong forms, surrogates and U+110000 up; every byte after
     * the lead is a continuation, 0x80 to 0xBF. */
    unsigned b = s[1];
    if ((c == 0xE0 && b < 0xA0) || (c == 0xF0 && b < 0x90) || (c == 0xED && b > 0x9F) || (c == 0xF4 && b > 0x8F)) {
        return 0;
    }
    for (size_t k = 1; k <= need; k++) {
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
