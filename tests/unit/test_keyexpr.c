/*
 * Key expressions against the reference: every row of rust-keyexpr.txt (spec section 9) and of
 * the generated keyexpr-gen.txt when it is there, the symmetry and reflexivity every relation
 * must have, the reference's canonization quirks, the helpers, and inputs that would take the
 * reference's backtracking search exponential time. Every string handed to the library sits in a
 * heap block of exactly its length, so a read past the end trips the address sanitizer.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keyexpr/keyexpr.h"

/* ---- exact-length copies ---------------------------------------------------------------- */

static char *dup_exact(const char *s, size_t n)
{
    char *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (n > 0) {
        memcpy(p, s, n);
    }
    return p;
}

static bool valid_n(const char *s, size_t n)
{
    char *p = dup_exact(s, n);
    z_result_t r = zm_keyexpr_validate(p, n);
    free(p);
    return r == Z_OK;
}

static bool valid(const char *s)
{
    return valid_n(s, strlen(s));
}

/* Canonizes a copy of s; on success the result is in out (NUL-terminated) and true returned. */
static bool canon(const char *s, size_t n, char *out, size_t cap)
{
    char *p = dup_exact(s, n);
    size_t len = n;
    z_result_t r = zm_keyexpr_canonize(p, &len);
    bool ok = r == Z_OK;
    if (ok) {
        CHECK(len <= n);
        if (len < cap) {
            memcpy(out, p, len);
            out[len] = '\0';
        } else {
            ok = false;
        }
    } else {
        CHECK_EQ_INT(r, ZM_E_KEYEXPR);
        CHECK_EQ_INT(len, n); /* untouched on failure */
    }
    free(p);
    return ok;
}

static bool inter(const char *a, size_t an, const char *b, size_t bn)
{
    char *x = dup_exact(a, an), *y = dup_exact(b, bn);
    bool r = zm_keyexpr_intersects(x, an, y, bn);
    free(x);
    free(y);
    return r;
}

static bool incl(const char *a, size_t an, const char *b, size_t bn)
{
    char *x = dup_exact(a, an), *y = dup_exact(b, bn);
    bool r = zm_keyexpr_includes(x, an, y, bn);
    free(x);
    free(y);
    return r;
}

/* Long inputs are shown by their first bytes only. */
#define SHOW(n) ((int)((n) > 100 ? 100 : (n)))

/* One pair with its expected relations, plus the properties any pair must have. */
static void check_pair(const char *a, size_t an, const char *b, size_t bn, bool want_inter,
                       bool want_incl)
{
    CHECK_CTX(valid_n(a, an), "not valid: %.*s", SHOW(an), a);
    CHECK_CTX(valid_n(b, bn), "not valid: %.*s", SHOW(bn), b);
    bool i_ab = inter(a, an, b, bn);
    bool i_ba = inter(b, bn, a, an);
    bool c_ab = incl(a, an, b, bn);
    CHECK_CTX(i_ab == want_inter, "intersects(%.*s, %.*s) = %d, want %d", SHOW(an), a, SHOW(bn), b,
              i_ab, want_inter);
    CHECK_CTX(c_ab == want_incl, "includes(%.*s, %.*s) = %d, want %d", SHOW(an), a, SHOW(bn), b,
              c_ab, want_incl);
    CHECK_CTX(i_ab == i_ba, "intersects not symmetric: %.*s | %.*s", SHOW(an), a, SHOW(bn), b);
    CHECK_CTX(!c_ab || i_ab, "includes without intersects: %.*s | %.*s", SHOW(an), a, SHOW(bn), b);
    CHECK_CTX(incl(a, an, a, an), "includes(a, a) false: %.*s", SHOW(an), a);
    CHECK_CTX(incl(b, bn, b, bn), "includes(b, b) false: %.*s", SHOW(bn), b);
    CHECK_CTX(inter(a, an, a, an), "intersects(a, a) false: %.*s", SHOW(an), a);
}

/* A validity row; a valid expression must also include and intersect itself. */
static void check_valid_row(const char *s, size_t n, bool want)
{
    bool got = valid_n(s, n);
    CHECK_CTX(got == want, "valid(%.*s) = %d, want %d", SHOW(n), s, got, want);
    if (got) {
        CHECK_CTX(incl(s, n, s, n) && inter(s, n, s, n), "not reflexive: %.*s", SHOW(n), s);
    }
}

static void check_pair_s(const char *a, const char *b, bool want_inter, bool want_incl)
{
    check_pair(a, strlen(a), b, strlen(b), want_inter, want_incl);
}

/* expected NULL: canonization must fail. */
static void check_canon(const char *s, size_t n, const char *expected)
{
    static char out[1 << 17];
    bool ok = canon(s, n, out, sizeof(out));
    if (expected == NULL) {
        CHECK_CTX(!ok, "canonize(%.*s) = %s, want an error", (int)n, s, out);
        return;
    }
    CHECK_CTX(ok, "canonize(%.*s) failed, want %s", (int)n, s, expected);
    if (ok) {
        CHECK_CTX(strcmp(out, expected) == 0, "canonize(%.*s) = %s, want %s", (int)n, s, out,
                  expected);
        /* The canonical form is a fixed point. */
        static char again[1 << 17];
        size_t on = strlen(out);
        CHECK_CTX(canon(out, on, again, sizeof(again)) && strcmp(again, out) == 0,
                  "canonize not idempotent on %s", out);
    }
}

static void check_canon_s(const char *s, const char *expected)
{
    check_canon(s, strlen(s), expected);
}

/* ---- vector files ------------------------------------------------------------------------ */

static char line_buf[1 << 20];

/* Reads one line without its end of line; false at end of file. Over-long lines fail a check. */
static bool read_line(FILE *f, size_t *n)
{
    if (fgets(line_buf, sizeof(line_buf), f) == NULL) {
        return false;
    }
    size_t len = strlen(line_buf);
    bool whole = len > 0 && line_buf[len - 1] == '\n';
    CHECK_CTX(whole || feof(f), "vector line longer than %zu bytes", sizeof(line_buf));
    while (len > 0 && (line_buf[len - 1] == '\n' || line_buf[len - 1] == '\r')) {
        len--;
    }
    line_buf[len] = '\0';
    *n = len;
    return true;
}

/* A markdown cell holding `text`: returns the text span, false if the cell is not quoted so. */
static bool md_cell(const char **p, const char **s, size_t *n)
{
    const char *q = *p;
    while (*q == ' ') {
        q++;
    }
    if (*q != '`') {
        return false;
    }
    const char *end = strchr(q + 1, '`');
    if (end == NULL) {
        return false;
    }
    *s = q + 1;
    *n = (size_t)(end - q - 1);
    q = end + 1;
    while (*q == ' ') {
        q++;
    }
    if (*q != '|') {
        return false;
    }
    *p = q + 1;
    return true;
}

static bool md_bool(const char **p, bool *v)
{
    const char *q = *p;
    while (*q == ' ') {
        q++;
    }
    if (strncmp(q, "true", 4) == 0) {
        *v = true;
        q += 4;
    } else if (strncmp(q, "false", 5) == 0) {
        *v = false;
        q += 5;
    } else {
        return false;
    }
    while (*q == ' ') {
        q++;
    }
    if (*q != '|') {
        return false;
    }
    *p = q + 1;
    return true;
}

/* "quoted" at *p, up to the quote that starts " -> " (or the last quote when arrow is false). */
static bool quoted(const char **p, const char **s, size_t *n, bool arrow)
{
    const char *q = *p;
    if (*q != '"') {
        return false;
    }
    const char *end = arrow ? strstr(q + 1, "\" -> ") : strrchr(q + 1, '"');
    if (end == NULL) {
        return false;
    }
    *s = q + 1;
    *n = (size_t)(end - q - 1);
    *p = end + 1;
    return true;
}

static void run_rust_vectors(void)
{
    const char *path = ZM_VECTORS_DIR "/rust-keyexpr.txt";
    FILE *f = fopen(path, "r");
    CHECK_CTX(f != NULL, "cannot open %s", path);
    if (f == NULL) {
        return;
    }
    unsigned pairs = 0, valids = 0, canons = 0;
    size_t n;
    while (read_line(f, &n)) {
        const char *p = line_buf;
        if (p[0] == '|') {
            const char *a, *b;
            size_t an, bn;
            bool vi, vc;
            p++;
            if (!md_cell(&p, &a, &an)) {
                continue; /* the header and separator rows */
            }
            bool ok = md_cell(&p, &b, &bn) && md_bool(&p, &vi) && md_bool(&p, &vc);
            CHECK_CTX(ok, "bad table row: %s", line_buf);
            if (ok) {
                check_pair(a, an, b, bn, vi, vc);
                pairs++;
            }
        } else if (strncmp(p, "valid? ", 7) == 0) {
            const char *s;
            size_t sn;
            p += 7;
            bool ok = quoted(&p, &s, &sn, true);
            CHECK_CTX(ok && (strcmp(p, " -> true") == 0 || strcmp(p, " -> false") == 0),
                      "bad valid line: %s", line_buf);
            if (ok) {
                check_valid_row(s, sn, strcmp(p, " -> true") == 0);
                valids++;
            }
        } else if (strncmp(p, "canon ", 6) == 0) {
            const char *s, *r;
            size_t sn, rn;
            p += 6;
            bool ok = quoted(&p, &s, &sn, true) && strncmp(p, " -> ", 4) == 0;
            CHECK_CTX(ok, "bad canon line: %s", line_buf);
            if (!ok) {
                continue;
            }
            p += 4;
            char want[4096];
            if (strcmp(p, "ERR") == 0) {
                check_canon(s, sn, NULL);
            } else if (quoted(&p, &r, &rn, false) && rn < sizeof(want)) {
                memcpy(want, r, rn);
                want[rn] = '\0';
                check_canon(s, sn, want);
            } else {
                CHECK_CTX(false, "bad canon line: %s", line_buf);
                continue;
            }
            canons++;
        } else if (n > 0) {
            CHECK_CTX(false, "unknown line in %s: %s", path, line_buf);
        }
    }
    fclose(f);
    printf("rust-keyexpr.txt: %u pairs, %u validity rows, %u canon rows\n", pairs, valids,
           canons);
    CHECK(pairs >= 30 && valids >= 10 && canons >= 3);
}

/* Splits line_buf at tabs, in place; returns the field count (at most max). */
static size_t split_tabs(char *line, const char **fields, size_t *lens, size_t max)
{
    size_t k = 0;
    char *p = line;
    while (k < max) {
        char *tab = strchr(p, '\t');
        fields[k] = p;
        lens[k] = tab != NULL ? (size_t)(tab - p) : strlen(p);
        k++;
        if (tab == NULL) {
            break;
        }
        p = tab + 1;
    }
    return k;
}

static bool field_is(const char *f, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(f, word, n) == 0;
}

static void run_generated_vectors(void)
{
    const char *path = ZM_VECTORS_DIR "/keyexpr-gen.txt";
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        printf("keyexpr-gen.txt: absent, skipped\n");
        return;
    }
    unsigned pairs = 0, valids = 0, canons = 0, other = 0;
    size_t n;
    static char out[1 << 17];
    while (read_line(f, &n)) {
        const char *fl[6];
        size_t ln[6];
        size_t k = split_tabs(line_buf, fl, ln, 6);
        if (k == 3 && field_is(fl[0], ln[0], "valid")) {
            bool want = field_is(fl[2], ln[2], "true");
            CHECK_CTX(want || field_is(fl[2], ln[2], "false"), "bad row: %s", line_buf);
            check_valid_row(fl[1], ln[1], want);
            valids++;
        } else if (k == 3 && field_is(fl[0], ln[0], "canon")) {
            bool ok = canon(fl[1], ln[1], out, sizeof(out));
            bool want_err = field_is(fl[2], ln[2], "ERR") || field_is(fl[2], ln[2], "PANIC");
            /* The input "ERR" canonizes to itself, which the format also spells ERR. */
            bool same_word = ok && strlen(out) == ln[2] && memcmp(out, fl[2], ln[2]) == 0;
            if (want_err && !same_word) {
                CHECK_CTX(!ok, "canonize(%.*s) = %s, want %.*s", (int)ln[1], fl[1], out,
                          (int)ln[2], fl[2]);
            } else {
                CHECK_CTX(same_word, "canonize(%.*s) = %s, want %.*s", (int)ln[1], fl[1],
                          ok ? out : "(error)", (int)ln[2], fl[2]);
            }
            canons++;
        } else if (k == 5 && field_is(fl[0], ln[0], "pair")) {
            bool ok = (field_is(fl[3], ln[3], "true") || field_is(fl[3], ln[3], "false")) &&
                      (field_is(fl[4], ln[4], "true") || field_is(fl[4], ln[4], "false"));
            CHECK_CTX(ok, "bad row: %s", line_buf);
            check_pair(fl[1], ln[1], fl[2], ln[2], field_is(fl[3], ln[3], "true"),
                       field_is(fl[4], ln[4], "true"));
            pairs++;
        } else if (n > 0 && line_buf[0] != '#') {
            other++;
        }
    }
    fclose(f);
    printf("keyexpr-gen.txt: %u pairs, %u validity rows, %u canon rows, %u other lines\n",
           pairs, valids, canons, other);
    CHECK_CTX(pairs + valids + canons > 0, "%s holds no rows", path);
    CHECK_EQ_INT(other, 0);
}

/* ---- our own cases ------------------------------------------------------------------------ */

static void test_validate(void)
{
    static const char *const good[] = {
        "a", "a/b", "*", "**", "a/*/**", "**/a", "*/**", "**/a/**", "@a/**", "a$*", "$*a",
        "a$*b$*c", "@$*", "@", "a/@", "a b!%&.-_~", "\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x98\x80",
        "a@b", "**/@a/*",
    };
    static const char *const bad[] = {
        "", "/", "a//b", "/a", "a/", "**/**", "**/*", "a/**/*/b/**/*", "***", "**a", "a**",
        "*a", "a*", "$", "a$", "$a", "a$*$", "$*", "a/$*/b", "$*$*a", "a$**", "a?b", "#",
        "\xff", "\xc3", "\xc3(", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
        "\xc0\xaf", "\xf8\x88\x80\x80\x80", "*/", "**/",
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        CHECK_CTX(valid(good[i]), "should be valid: %s", good[i]);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_CTX(!valid(bad[i]), "should be invalid: %s", bad[i]);
    }
    CHECK(valid_n("a\0b", 3));          /* the reference accepts any other character */
    CHECK(valid_n("a/b//", 3));         /* only len bytes count */
    CHECK(!valid_n("a/b//", 4));
    CHECK_EQ_INT(zm_keyexpr_validate(NULL, 0), ZM_E_KEYEXPR);
}

static void test_canonize(void)
{
    check_canon_s("a/b", "a/b");
    check_canon_s("**/**/**", "**");
    check_canon_s("**/*/**/*", "*/*/**");
    check_canon_s("$*$*$*/a", "*/a");
    check_canon_s("a/**/$*", "a/*/**");
    check_canon_s("@a/$*", "@a/*");
    check_canon_s("hello/foo$*$*/bar", "hello/foo$*/bar");
    check_canon_s("a/**/**/$*$*/**/*/x$*$*yz/**", "a/*/*/**/x$*yz/**");
    check_canon_s("a$*$*bc", "a$*bc");
    /* The reference's limits, kept: a `$*$*` needs two more bytes after it in its chunk... */
    check_canon_s("a$*$*b", NULL);
    check_canon_s("a$*$*", NULL);
    /* ...and longer runs are only partly folded, leaving a non-canonical result. */
    check_canon_s("a$*$*$*", NULL);
    check_canon_s("a$*$*$*$*b", NULL);
    /* ...and when `$*` comes two bytes after a `$*$*`, those two bytes are dropped unread. */
    check_canon_s("a$*$*xy$*bc", NULL);
    check_canon_s("a/b$*$*cd$*e/f", NULL);
    check_canon_s("a$*$*xyz$*bc", "a$*xyz$*bc");
    check_canon_s("", NULL);
    check_canon_s("**/", NULL);
    check_canon_s("a//b", NULL);
    check_canon_s("a#b", NULL);
    /* Only len bytes are read and rewritten. */
    char buf[] = "**/**/x!!!!";
    size_t len = 7;
    CHECK_EQ_INT(zm_keyexpr_canonize(buf, &len), Z_OK);
    CHECK_EQ_MEM(buf, len, "**/x", 4);
    CHECK_EQ_MEM(buf + 7, 4, "!!!!", 4);
}

static void test_relations(void)
{
    /* The reference's includes is narrower than set inclusion. */
    check_pair_s("*/**", "**/x", true, false);
    check_pair_s("*/**", "**", true, false);
    check_pair_s("**", "*/**", true, true);
    check_pair_s("**/x/**", "**/x/y/**", true, true);
    check_pair_s("a$*/**/b$*", "a/**/b", true, true);
    check_pair_s("**/b", "a/**", true, false);
    check_pair_s("$*x$*", "a$*b", true, false);
    check_pair_s("ab$*", "$*ba", true, false);
    check_pair_s("a$*", "b$*", false, false);
    check_pair_s("a/**/b/**/c", "a/b/x/b/c", true, true);
    check_pair_s("a/**/b/**/c", "a/b/x/c", true, true);
    check_pair_s("a/**/b/**/c", "a/x/c", false, false);
    /* Verbatim chunks: matched only by themselves, never crossed by `**`. */
    check_pair_s("**/@a/**", "x/@a", true, true);
    check_pair_s("a/@$*", "a/@$*", true, true);
    check_pair_s("a/@$*", "a/@x", false, false);
    check_pair_s("a/$*x", "a/@x", false, false);
    check_pair_s("a/*", "a/@x", false, false);
    check_pair_s("**/@a/**/@b", "@a/@b", true, true);
    check_pair_s("@a/**/@b", "@a/@c/@b", false, false);
    check_pair_s("@a/**", "@a/x/@b", false, false);
    check_pair_s("*/@a/*", "**/@a/**", true, false);
    CHECK(!zm_keyexpr_intersects("a", 1, "b", 1));
    CHECK(zm_keyexpr_intersects("a/b", 3, "a/b", 3));
}

/* Inputs on which a backtracking search takes exponential time, at wire-size scale. */
static void test_hard_inputs(void)
{
    enum { K = 4000 };
    static char a[8 * K], b[8 * K];
    size_t an = 0, bn = 0;
    /* `**`/a/`**`/a/.../`**`/b against a/a/.../a: every a fits somewhere, b nowhere. */
    for (int i = 0; i < K / 4; i++) {
        memcpy(a + an, "**/a/", 5);
        an += 5;
    }
    memcpy(a + an, "**/b", 4);
    an += 4;
    for (int i = 0; i < K; i++) {
        memcpy(b + bn, "a/", 2);
        bn += 2;
    }
    bn--;
    check_pair(a, an, b, bn, false, false);
    b[bn - 1] = 'b';
    check_pair(a, an, b, bn, true, true);

    /* One long `**`-separated run searched through a long text. */
    an = 0;
    memcpy(a + an, "**/a/", 5);
    an += 5;
    for (int i = 0; i < K / 2; i++) {
        memcpy(a + an, "*/", 2);
        an += 2;
    }
    memcpy(a + an, "c/**", 4);
    an += 4;
    check_pair(a, an, b, bn, false, false);

    /* The same inside a single chunk: $*a$*a...$*b against aaaa...a. */
    an = 0;
    for (int i = 0; i < K / 2; i++) {
        memcpy(a + an, "$*a", 3);
        an += 3;
    }
    memcpy(a + an, "$*b", 3);
    an += 3;
    memset(b, 'a', 2 * K);
    bn = 2 * K;
    check_pair(a, an, b, bn, false, false);
    b[bn - 1] = 'b';
    check_pair(a, an, b, bn, true, true);
    /* And two globs: only heads and tails matter to intersects. */
    memcpy(b, "a$*", 3);
    check_pair(a, an, b, bn, true, true);
    check_pair(b, bn, a, an, true, false);
}

static void test_helpers(void)
{
    CHECK(!zm_keyexpr_is_wild("a/b", 3));
    CHECK(!zm_keyexpr_is_wild("@a", 2));
    CHECK(zm_keyexpr_is_wild("a/*", 3));
    CHECK(zm_keyexpr_is_wild("a$*", 3));
    CHECK(zm_keyexpr_is_wild("**", 2));
    CHECK(!zm_keyexpr_is_wild("a/*", 2));
    CHECK(!zm_keyexpr_is_wild(NULL, 0));

    static const struct {
        const char *s;
        const char *prefix; /* NULL: none */
    } pre[] = {
        {"demo/example/**", "demo/example"}, {"demo/**/test/**", "demo"},
        {"demo/example/test", "demo/example/test"}, {"demo/ex$*/**", "demo"},
        {"**", NULL}, {"dem$*", NULL}, {"*/a", NULL}, {"a/*", "a"},
    };
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
        size_t n = 99;
        bool has = zm_keyexpr_nonwild_prefix(pre[i].s, strlen(pre[i].s), &n);
        CHECK_EQ_INT(has, pre[i].prefix != NULL);
        if (pre[i].prefix != NULL) {
            CHECK_EQ_MEM(pre[i].s, n, pre[i].prefix, strlen(pre[i].prefix));
        } else {
            CHECK_EQ_INT(n, 0);
        }
    }

    char out[16];
    size_t n = 0;
    CHECK_EQ_INT(zm_keyexpr_concat(out, sizeof(out), &n, "demo/", 5, "example", 7), Z_OK);
    CHECK_EQ_MEM(out, n, "demo/example", 12);
    CHECK_EQ_INT(zm_keyexpr_concat(out, 12, &n, "demo/", 5, "example", 7), Z_OK);
    CHECK_EQ_INT(zm_keyexpr_concat(out, 11, &n, "demo/", 5, "example", 7), ZM_E_NO_SPACE);
    CHECK_EQ_INT(n, 12);
    memcpy(out, "ab", 2);
    CHECK_EQ_INT(zm_keyexpr_concat(out, sizeof(out), &n, out, 2, "/cd", 3), Z_OK);
    CHECK_EQ_MEM(out, n, "ab/cd", 5);
    CHECK_EQ_INT(zm_keyexpr_concat(out, 0, &n, "", 0, "", 0), Z_OK);
    CHECK_EQ_INT(n, 0);

    CHECK_EQ_INT(zm_keyexpr_join(out, sizeof(out), &n, "a", 1, "b", 1), Z_OK);
    CHECK_EQ_MEM(out, n, "a/b", 3);
    CHECK_EQ_INT(zm_keyexpr_join(out, sizeof(out), &n, "a/**", 4, "*", 1), Z_OK);
    CHECK_EQ_MEM(out, n, "a/*/**", 6);
    CHECK_EQ_INT(zm_keyexpr_join(out, sizeof(out), &n, "a/**", 4, "**/b", 4), Z_OK);
    CHECK_EQ_MEM(out, n, "a/**/b", 6);
    CHECK_EQ_INT(zm_keyexpr_join(out, sizeof(out), &n, "a", 1, "", 0), ZM_E_KEYEXPR);
    CHECK_EQ_INT(zm_keyexpr_join(out, 3, &n, "a", 1, "b", 1), Z_OK);
    CHECK_EQ_INT(zm_keyexpr_join(out, 2, &n, "a", 1, "b", 1), ZM_E_NO_SPACE);
    CHECK_EQ_INT(zm_keyexpr_join(out, 0, &n, "", 0, "", 0), ZM_E_NO_SPACE);
}

int main(void)
{
    test_validate();
    test_canonize();
    test_relations();
    test_hard_inputs();
    test_helpers();
    run_rust_vectors();
    run_generated_vectors();
    return CHECK_DONE();
}
