/*
 * UTF-8 checks: Rust reads every string field (key expressions, parameters, locators) as UTF-8
 * and refuses what is not, so the codec and the key-expression layer refuse the same bytes.
 */
#ifndef ZM_UTIL_UTF8_H
#define ZM_UTIL_UTF8_H

#include "util/bytes.h"

/** Length of the well-formed multi-byte sequence at s (lead byte >= 0x80), 0 if ill-formed. */
size_t zm_utf8_seq(const uint8_t *s, size_t n);

/** True if s is valid UTF-8 (no overlong forms, surrogates, or values past U+10FFFF). */
bool zm_utf8_valid(zm_slice_t s);

#endif /* ZM_UTIL_UTF8_H */
