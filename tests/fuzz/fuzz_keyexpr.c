/*
 * libFuzzer target for key expressions. The input is two strings split at the first 0xFF byte
 * (a byte no valid key expression holds; without one, both strings are the whole input). Each is
 * canonized; the laws checked are those the reference keeps: canonical input is a fixed point,
 * canonization is idempotent and ends valid, intersects is symmetric, includes is reflexive and
 * implies intersects, and against a key without wildcards the two relations coincide.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keyexpr/keyexpr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)     \
    do {                  \
        if (!(cond)) {    \
            abort();      \
        }                 \
    } while (0)

/* Exact-size heap copies, so that any read past the length is an ASan report. */
static char *copy(const void *p, size_t n)
{
    char *c = malloc(n > 0 ? n : 1);
    REQUIRE(c != NULL);
    if (n > 0) {
        memcpy(c, p, n);
    }
    return c;
}

/* Canonizes a copy of s; returns the copy (caller frees) and whether it succeeded. */
static char *canonized(const char *s, size_t n, size_t *out_n, bool *ok)
{
    char *c = copy(s, n);
    size_t len = n;
    z_result_t r = zm_keyexpr_canonize(c, &len);
    *ok = r == Z_OK;
    if (*ok) {
        REQUIRE(len <= n);
        REQUIRE(zm_keyexpr_validate(c, len) == Z_OK);
        /* Idempotent: the canonical form canonizes to itself. */
        char *again = copy(c, len);
        size_t alen = len;
        REQUIRE(zm_keyexpr_canonize(again, &alen) == Z_OK);
        REQUIRE(alen == len && memcmp(again, c, len) == 0);
        free(again);
    } else {
        REQUIRE(r == ZM_E_KEYEXPR);
        REQUIRE(len == n);
    }
    /* Input already valid is already canonical: canonizing leaves it as it was. */
    if (zm_keyexpr_validate(s, n) == Z_OK) {
        REQUIRE(*ok && len == n && memcmp(c, s, n) == 0);
    }
    *out_n = len;
    return c;
}

static void check_relations(const char *a, size_t an, const char *b, size_t bn)
{
    bool i_ab = zm_keyexpr_intersects(a, an, b, bn);
    bool i_ba = zm_keyexpr_intersects(b, bn, a, an);
    bool c_ab = zm_keyexpr_includes(a, an, b, bn);
    bool c_ba = zm_keyexpr_includes(b, bn, a, an);
    REQUIRE(i_ab == i_ba);
    REQUIRE(zm_keyexpr_includes(a, an, a, an));
    REQUIRE(zm_keyexpr_includes(b, bn, b, bn));
    REQUIRE(zm_keyexpr_intersects(a, an, a, an));
    REQUIRE(!c_ab || i_ab);
    REQUIRE(!c_ba || i_ab);
    if (!zm_keyexpr_is_wild(b, bn)) {
        REQUIRE(c_ab == i_ab);
    }
    if (!zm_keyexpr_is_wild(a, an)) {
        REQUIRE(c_ba == i_ab);
    }
}

/* Whatever the bytes, the helpers stay inside them. */
static void poke_raw(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n;
    (void)zm_keyexpr_intersects(a, an, b, bn);
    (void)zm_keyexpr_includes(a, an, b, bn);
    (void)zm_keyexpr_is_wild(a, an);
    if (zm_keyexpr_nonwild_prefix(a, an, &n)) {
        REQUIRE(n > 0 && n <= an);
    }
    char out[64];
    if (zm_keyexpr_concat(out, sizeof(out), &n, a, an, b, bn) == Z_OK) {
        REQUIRE(n == an + bn && memcmp(out, a, an) == 0 && memcmp(out + an, b, bn) == 0);
    } else {
        REQUIRE(an + bn > sizeof(out));
    }
    z_result_t r = zm_keyexpr_join(out, sizeof(out), &n, a, an, b, bn);
    if (r == Z_OK) {
        REQUIRE(zm_keyexpr_validate(out, n) == Z_OK);
    } else {
        REQUIRE(r == ZM_E_KEYEXPR || (r == ZM_E_NO_SPACE && an + bn + 1 > sizeof(out)));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep = memchr(data, 0xFF, size);
    size_t an = sep != NULL ? (size_t)(sep - data) : size;
    const uint8_t *bp = sep != NULL ? sep + 1 : data;
    size_t bn = sep != NULL ? size - an - 1 : size;

    char *a = copy(data, an);
    char *b = copy(bp, bn);
    poke_raw(a, an, b, bn);

    size_t can, cbn;
    bool aok, bok;
    char *ca = canonized(a, an, &can, &aok);
    char *cb = canonized(b, bn, &cbn, &bok);
    if (aok && bok) {
        /* Fresh exact-size copies of the canonical lengths. */
        char *x = copy(ca, can);
        char *y = copy(cb, cbn);
        check_relations(x, can, y, cbn);
        free(x);
        free(y);
    }
    free(ca);
    free(cb);
    free(a);
    free(b);
    return 0;
}
