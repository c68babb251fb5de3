/*
 * Key-expression relations against a model: zenoh-keyexpr 1.10.2's own intersects
 * (intersect/classical.rs) and includes (include.rs, LTRIncluder) transcribed as they are, with
 * their recursion and backtracking, which is fine on the short keys used here. Every pair of keys
 * up to three chunks long over a small alphabet of chunk forms is compared, then random longer
 * keys with sub-chunk wildcards, verbatim chunks and pairs that differ in a few bytes. Each key
 * handed to the library sits in a heap block of exactly its length.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keyexpr/keyexpr.h"

/* ---- the model ---------------------------------------------------------------------------- */

typedef struct {
    const char *p;
    size_t n;
} str_t;

static bool str_is(str_t s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static bool str_eq(str_t a, str_t b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

/* Rust's split_once at `/`: the chunk before it, and what follows (empty when there is none). */
static str_t split_next(str_t s, str_t *rest)
{
    const char *slash = s.n > 0 ? memchr(s.p, '/', s.n) : NULL;
    if (slash == NULL) {
        *rest = (str_t){s.p + s.n, 0};
        return s;
    }
    size_t i = (size_t)(slash - s.p);
    *rest = (str_t){slash + 1, s.n - i - 1};
    return (str_t){s.p, i};
}

static bool direct_verbatim(str_t s)
{
    return s.n > 0 && s.p[0] == '@';
}

static bool has_verbatim(str_t s)
{
    while (s.n > 0) {
        str_t rest;
        if (direct_verbatim(split_next(s, &rest))) {
            return true;
        }
        s = rest;
    }
    return false;
}

static bool star_dsl_intersect(str_t a, str_t b)
{
    while (a.n > 0 && b.n > 0) {
        char c1 = a.p[0], c2 = b.p[0];
        if (c1 == '$' && c2 == '$') {
            if (a.n == 2 || b.n == 2) {
                return true;
            }
            if (star_dsl_intersect((str_t){a.p + 2, a.n - 2}, b)) {
                return true;
            }
            return star_dsl_intersect(a, (str_t){b.p + 2, b.n - 2});
        }
        if (c1 == '$') {
            if (a.n == 2) {
                return true;
            }
            if (star_dsl_intersect((str_t){a.p + 2, a.n - 2}, b)) {
                return true;
            }
            b = (str_t){b.p + 1, b.n - 1};
        } else if (c2 == '$') {
            if (b.n == 2) {
                return true;
            }
            if (star_dsl_intersect(a, (str_t){b.p + 2, b.n - 2})) {
                return true;
            }
            a = (str_t){a.p + 1, a.n - 1};
        } else if (c1 == c2) {
            a = (str_t){a.p + 1, a.n - 1};
            b = (str_t){b.p + 1, b.n - 1};
        } else {
            return false;
        }
    }
    return (a.n == 0 && b.n == 0) || str_is(a, "$*") || str_is(b, "$*");
}

static bool chunk_intersect(bool dsl, str_t c1, str_t c2)
{
    if (str_eq(c1, c2)) {
        return true;
    }
    if (direct_verbatim(c1) || direct_verbatim(c2)) {
        return false;
    }
    return str_is(c1, "*") || str_is(c2, "*") || (dsl && star_dsl_intersect(c1, c2));
}

static bool it_intersect(bool dsl, str_t it1, str_t it2)
{
    while (it1.n > 0 && it2.n > 0) {
        str_t adv1, adv2;
        str_t cur1 = split_next(it1, &adv1), cur2 = split_next(it2, &adv2);
        if (str_is(cur1, "**")) {
            if (adv1.n == 0) {
                return !has_verbatim(it2);
            }
            return (!direct_verbatim(cur2) && it_intersect(dsl, it1, adv2)) ||
                   it_intersect(dsl, adv1, it2);
        }
        if (str_is(cur2, "**")) {
            if (adv2.n == 0) {
                return !has_verbatim(it1);
            }
            return (!direct_verbatim(cur1) && it_intersect(dsl, adv1, it2)) ||
                   it_intersect(dsl, it1, adv2);
        }
        if (!chunk_intersect(dsl, cur1, cur2)) {
            return false;
        }
        it1 = adv1;
        it2 = adv2;
    }
    return (it1.n == 0 || str_is(it1, "**")) && (it2.n == 0 || str_is(it2, "**"));
}

/* 0: no wildcard, 1: `*` but no `$`, 2: a `$` (the reference's MatchComplexity). */
static int complexity(str_t s)
{
    int c = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] == '$') {
            return 2;
        }
        if (s.p[i] == '*') {
            c = 1;
        }
    }
    return c;
}

static bool model_intersects(str_t a, str_t b)
{
    if (str_eq(a, b)) {
        return true;
    }
    int c = complexity(a) | complexity(b);
    return c != 0 && it_intersect(c >= 2, a, b);
}

/* Splits at the first `$*`: the piece before it, and what follows (rest.p NULL: no `$*`). */
static str_t split_dsl(str_t s, str_t *rest)
{
    for (size_t i = 0; i + 1 < s.n; i++) {
        if (s.p[i] == '$' && s.p[i + 1] == '*') {
            *rest = (str_t){s.p + i + 2, s.n - i - 2};
            return (str_t){s.p, i};
        }
    }
    *rest = (str_t){NULL, 0};
    return s;
}

static bool chunk_includes(str_t l, str_t r)
{
    if (str_eq(l, r)) {
        return true;
    }
    if (direct_verbatim(l) || direct_verbatim(r)) {
        return false;
    }
    if (str_is(l, "*")) {
        return true;
    }
    if (memchr(l.p, '$', l.n) == NULL) {
        return false;
    }
    /* The first piece is a prefix of r, the last a suffix of what is left, and the middle pieces
     * are found in order, each at its leftmost place. */
    str_t rest;
    str_t head = split_dsl(l, &rest);
    if (r.n < head.n || memcmp(r.p, head.p, head.n) != 0) {
        return false;
    }
    r = (str_t){r.p + head.n, r.n - head.n};
    size_t last = 0; /* the last piece starts after the last `$*` */
    for (size_t i = 0; i + 1 < l.n; i++) {
        if (l.p[i] == '$' && l.p[i + 1] == '*') {
            last = i + 2;
        }
    }
    str_t tail = {l.p + last, l.n - last};
    if (r.n < tail.n || memcmp(r.p + r.n - tail.n, tail.p, tail.n) != 0) {
        return false;
    }
    r.n -= tail.n;
    while (rest.p < tail.p) {
        str_t next;
        str_t needle = split_dsl(rest, &next);
        size_t at = 0;
        while (at + needle.n <= r.n && memcmp(r.p + at, needle.p, needle.n) != 0) {
            at++;
        }
        if (at + needle.n > r.n) {
            return false;
        }
        r = (str_t){r.p + at + needle.n, r.n - at - needle.n};
        rest = next;
    }
    return true;
}

static bool ltr_includes(str_t left, str_t right)
{
    for (;;) {
        str_t lrest;
        str_t lchunk = split_next(left, &lrest);
        bool lempty = lrest.n == 0;
        if (str_is(lchunk, "**")) {
            if ((lempty && !has_verbatim(right)) || (!lempty && ltr_includes(lrest, right))) {
                return true;
            }
            if (direct_verbatim(right)) {
                return false;
            }
            (void)split_next(right, &right);
            if (right.n == 0) {
                return false;
            }
        } else {
            str_t rrest;
            str_t rchunk = split_next(right, &rrest);
            if (rchunk.n == 0 || str_is(rchunk, "**") || !chunk_includes(lchunk, rchunk)) {
                return false;
            }
            if (lempty) {
                return rrest.n == 0;
            }
            left = lrest;
            right = rrest;
        }
    }
}

static bool model_includes(str_t a, str_t b)
{
    return str_eq(a, b) || ltr_includes(a, b);
}

/* ---- comparing ---------------------------------------------------------------------------- */

static unsigned compared, mismatches;

static void compare(const char *a, size_t an, const char *b, size_t bn)
{
    char *x = malloc(an), *y = malloc(bn);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(x, a, an);
    memcpy(y, b, bn);
    str_t sa = {a, an}, sb = {b, bn};
    bool wi = model_intersects(sa, sb), wc = model_includes(sa, sb);
    bool gi = zm_keyexpr_intersects(x, an, y, bn), gc = zm_keyexpr_includes(x, an, y, bn);
    compared++;
    if ((gi != wi || gc != wc) && mismatches++ < 20) {
        CHECK_CTX(gi == wi, "intersects(%.*s, %.*s) = %d, the reference says %d", (int)an, a,
                  (int)bn, b, gi, wi);
        CHECK_CTX(gc == wc, "includes(%.*s, %.*s) = %d, the reference says %d", (int)an, a,
                  (int)bn, b, gc, wc);
    }
    free(x);
    free(y);
}

/* ---- every short key over a small alphabet ------------------------------------------------ */

enum { KEY_CAP = 128, MAX_KEYS = 1024 };

typedef struct {
    char s[KEY_CAP];
    size_t n;
} key_buf_t;

static void test_exhaustive(void)
{
    static const char *const forms[] = {"a", "b", "ab", "*", "**", "@a", "a$*", "$*b", "a$*b"};
    enum { F = sizeof(forms) / sizeof(forms[0]) };
    static key_buf_t keys[MAX_KEYS];
    size_t count = 0;
    for (unsigned len = 1; len <= 3; len++) {
        unsigned total = 1;
        for (unsigned i = 0; i < len; i++) {
            total *= F;
        }
        for (unsigned code = 0; code < total; code++) {
            key_buf_t k = {.n = 0};
            unsigned c = code;
            for (unsigned i = 0; i < len; i++, c /= F) {
                const char *f = forms[c % F];
                if (i > 0) {
                    k.s[k.n++] = '/';
                }
                memcpy(k.s + k.n, f, strlen(f));
                k.n += strlen(f);
            }
            if (zm_keyexpr_validate(k.s, k.n) == Z_OK && count < MAX_KEYS) {
                keys[count++] = k;
            }
        }
    }
    CHECK(count > 600);
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < count; j++) {
            compare(keys[i].s, keys[i].n, keys[j].s, keys[j].n);
        }
    }
}

/* ---- random longer keys ------------------------------------------------------------------- */

static uint64_t rng_state = 0x5eed;

/* splitmix64 */
static uint32_t rnd(uint32_t below)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (uint32_t)((z ^ (z >> 31)) % below);
}

/* A random key of up to 6 chunks, canonized; false when it does not canonize. */
static bool random_key(key_buf_t *k)
{
    k->n = 0;
    unsigned chunks = 1 + rnd(rnd(2) ? 3 : 6);
    for (unsigned c = 0; c < chunks; c++) {
        if (c > 0) {
            k->s[k->n++] = '/';
        }
        unsigned kind = rnd(10);
        if (kind == 0) {
            k->s[k->n++] = '*';
        } else if (kind <= 2) {
            k->s[k->n++] = '*';
            k->s[k->n++] = '*';
        } else {
            if (kind == 3) {
                k->s[k->n++] = '@';
            }
            unsigned pieces = 1 + rnd(4);
            for (unsigned i = 0; i < pieces; i++) {
                unsigned r = rnd(4);
                if (r == 0) {
                    k->s[k->n++] = '$';
                    k->s[k->n++] = '*';
                } else {
                    k->s[k->n++] = "aab"[r - 1];
                }
            }
        }
    }
    return zm_keyexpr_canonize(k->s, &k->n) == Z_OK;
}

static void test_random(void)
{
    for (unsigned i = 0; i < 200000;) {
        key_buf_t a, b;
        if (!random_key(&a) || !random_key(&b)) {
            continue;
        }
        if (rnd(4) == 0) {
            /* a near copy, which relates far more often than an unrelated key */
            b = a;
            for (size_t j = 0; j < b.n; j++) {
                if (b.s[j] == 'b' && rnd(2) == 0) {
                    b.s[j] = 'a';
                }
            }
            if (zm_keyexpr_canonize(b.s, &b.n) != Z_OK) {
                continue;
            }
        }
        compare(a.s, a.n, b.s, b.n);
        i++;
    }
}

int main(void)
{
    test_exhaustive();
    test_random();
    printf("%u pairs compared with the reference's algorithms, %u differ\n", compared, mismatches);
    CHECK_EQ_INT(mismatches, 0);
    return CHECK_DONE();
}
