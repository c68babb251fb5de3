/*
 * C++ code often includes C headers inside its own extern "C" block. The overloads of the
 * generic names must survive it (they sit in extern "C++"), and, being inline, link beside those
 * of overloads.cpp. Returns how many of its checks failed.
 */
extern "C" {
#include "zenoh-pico.h"
}

int wrapped_checks(void);

int wrapped_checks(void)
{
    int failed = 0;
    z_owned_bytes_t b;
    if (z_bytes_copy_from_str(&b, "wrapped") != Z_OK || !z_internal_check(b)) {
        failed++;
    }
    if (z_bytes_len(z_loan(b)) != 7) {
        failed++;
    }
    z_drop(z_move(b));
    if (z_internal_check(b)) {
        failed++;
    }
    return failed;
}
