/*
 * Key expressions, matching zenoh-keyexpr 1.10.2 result for result. The reference decides
 * intersects/includes with a backtracking search that is exponential on some inputs; here the
 * same answers come from a split at verbatim (`@`) chunks, which `**` can never cross, and one
 * matcher written twice, for chunks in a sequence and for bytes in a chunk: tails from the back,
 * heads from the front, then each run between wildcards at its leftmost fit. One code path
 * serves both relations; no recursion, O(1) stack, O(|a|*|b|) at worst. Chunks are walked in
 * place as pointer ranges [begin, end) of the caller's string.
 */
#include "keyexpr/keyexpr.h"
#include "util/utf8.h"

#include <string.h>

/* ---- chunk ranges ------------------------------------------------------------------------- */

/* End of the chunk starting at c, in a range ending at end. */
static const char *chunk_end(const char *c, const char *end)
{
    while (c < end && *c != '/') {
        c++;
    }
    return c;
}

/* Start of the next chunk after one ending at ce: end itself when that was the last one. */
static const char *chunk_next(const char *ce, const char *end)
{
    return ce < end ? ce + 1 : end;
}

/* Start of the chunk ending at ce, searching no further back than begin. */
static const char *chunk_begin(const char *begin, const char *ce)
{
    while (ce > begin && ce[-1] != '/') {
        ce--;
    }
    return ce;
}

/* End of the range before the chunk starting at cb (the range starts at begin). */
static const char *chunk_prev(const char *cb, const char *begin)
{
    return cb > begin ? cb - 1 : begin;
}

static bool is_double_wild(const char *c, const char *end)
{
    return end - c == 2 && c[0] == '*' && c[1] == '*';
}

static bool same(const char *a, const char *ae, const char *b, const char *be)
{
    return ae - a == be - b && (a == ae || memcmp(a, b, (size_t)(ae - a)) == 0);
}

/* ---- inside one chunk: `*` and `$*` ------------------------------------------------------- */

/* In a canonical chunk `$` only opens a `$*` and `*` only closes one or is the chunk `*`, so one
 * byte tells a wildcard from either side. */
static bool is_star(char c)
{
    return c == '$' || c == '*';
}

/* Exchanges the ranges [p, pe) and [t, te). */
static inline void swap_sides(const char **p, const char **pe, const char **t, const char **te)
{
    const char *s = *p, *se = *pe;
    *p = *t;
    *pe = *te;
    *t = s;
    *te = se;
}

/*
 * Chunk p against chunk t, neither of them verbatim nor a `**` of p. For includes: does glob p
 * match t's text, t's own `$*` and `*` taken as plain bytes (the reference's rule). For
 * intersects: is some chunk matched by both; the relation is symmetric, so whichever side shows a
 * wildcard first from the back becomes p. The chunk `*` is the glob `$*` here.
 *
 * Tails are compared from the back until p's last wildcard, then heads from the front until its
 * first. Two globs that both hold a wildcard meet as soon as these agree, up to t's first or last
 * wildcard if that comes sooner: a witness is the longer head, every run of p, the longer tail.
 * Against plain text, each later run of p takes its leftmost fit in what is left, since a later
 * fit never leaves more room to the runs after it.
 */
static bool chunk_rel(bool incl, const char *p, const char *pe, const char *t, const char *te)
{
    if (incl && is_double_wild(t, te)) {
        return false; /* only a `**` of p takes a `**` of t in */
    }
    for (;;) {
        if (!incl && t < te && is_star(te[-1]) && !(p < pe && is_star(pe[-1]))) {
            swap_sides(&p, &pe, &t, &te); /* intersects is symmetric: a side with a wildcard leads */
            continue;
        }
        if (p < pe && is_star(pe[-1])) {
            break;
        }
        if (p >= pe || t >= te) {
            return p >= pe && t >= te;
        }
        if (pe[-1] != te[-1]) {
            return false;
        }
        pe--;
        te--;
    }
    bool anchored = true;
    while (p < pe) {
        if (is_star(*p)) {
            p++;
            anchored = false;
            continue;
        }
        const char *x = p, *y = t;
        while (!is_star(*x)) {
            if (y >= te) {
                return false;
            }
            if (!incl && is_star(*y)) {
                return true;
            }
            if (*x == *y) {
                x++;
                y++;
            } else if (anchored) {
                return false;
            } else {
                x = p;
                y = ++t;
            }
        }
        p = x;
        t = y;
    }
    return true;
}

/* ---- chunk sequences ---------------------------------------------------------------------- */

/*
 * Range [p, pe) against [t, te), both free of verbatim chunks, chunk for chunk by chunk_rel, a
 * `**` of p standing for any run of t's chunks, and for intersects a `**` of t for any run of
 * p's. chunk_rel's shape one level up: tails from the back until a `**`, heads from the front,
 * then either both sides have a `**` (they meet) or each later run of p between two `**` takes
 * its leftmost fit in t. Every (chunk of p, chunk of t) pair is compared at most once, so the
 * work is O(|p| * |t|) byte steps at worst. Kept out of relate, which is smaller code for it.
 */
static ZM_NOINLINE bool seq_rel(bool incl, const char *p, const char *pe, const char *t, const char *te)
{
    for (;;) {
        const char *pcb = chunk_begin(p, pe), *tcb = chunk_begin(t, te);
        if (!incl && is_double_wild(tcb, te) && !is_double_wild(pcb, pe)) {
            swap_sides(&p, &pe, &t, &te);
            continue;
        }
        if (is_double_wild(pcb, pe)) {
            break;
        }
        if (p >= pe || t >= te) {
            return p >= pe && t >= te;
        }
        if (!chunk_rel(incl, pcb, pe, tcb, te)) {
            return false;
        }
        pe = chunk_prev(pcb, p);
        te = chunk_prev(tcb, t);
    }
    bool anchored = true;
    while (p < pe) {
        const char *pce = chunk_end(p, pe);
        if (is_double_wild(p, pce)) {
            p = chunk_next(pce, pe);
            anchored = false;
            continue;
        }
        const char *x = p, *y = t;
        for (;;) {
            const char *xe = chunk_end(x, pe);
            if (is_double_wild(x, xe)) {
                break;
            }
            if (y >= te) {
                return false;
            }
            const char *ye = chunk_end(y, te);
            if (!incl && is_double_wild(y, ye)) {
                return true;
            }
            if (chunk_rel(incl, x, xe, y, ye)) {
                x = chunk_next(xe, pe);
                y = chunk_next(ye, te);
            } else if (anchored) {
                return false;
            } else {
                x = p;
                t = chunk_next(chunk_end(t, te), te);
                y = t;
            }
        }
        p = x;
        t = y;
    }
    return true;
}

/* Start of the first verbatim chunk (one starting with `@`) at or after c, which starts a chunk;
 * end if there is none. */
static const char *verbatim_from(const char *c, const char *end)
{
    const char *at = c;
    while (at < end && (at = memchr(at, '@', (size_t)(end - at))) != NULL) {
        if (at == c || at[-1] == '/') {
            return at;
        }
        at++;
    }
    return end;
}

/*
 * Neither `*`, `**` nor `$*` matches a verbatim chunk, so two expressions relate only if their
 * verbatim chunks pair up one for one, and then the stretches between them relate on their own.
 * Equal keys, which relate too, the callers tell first, without this frame.
 */
static bool relate(const char *a, size_t an, const char *b, size_t bn, bool incl)
{
    const char *ae = a + an, *be = b + bn;
    for (;;) {
        const char *av = verbatim_from(a, ae), *bv = verbatim_from(b, be);
        /* the stretch before a verbatim chunk ends before its `/` */
        if (!seq_rel(incl, a, av - (av > a && av < ae), b, bv - (bv > b && bv < be))) {
            return false;
        }
        if (av >= ae || bv >= be) {
            return av >= ae && bv >= be;
        }
        const char *ave = chunk_end(av, ae), *bve = chunk_end(bv, be);
        if (ave - av != bve - bv || memcmp(av, bv, (size_t)(ave - av)) != 0) {
            return false; /* verbatim chunks, never empty, meet only their own bytes */
        }
        a = chunk_next(ave, ae);
        b = chunk_next(bve, be);
    }
}

/* Equal keys, a subscriber's and its samples' most often, are told before relate's frame is made. */
bool zm_keyexpr_intersects(const char *a, size_t alen, const char *b, size_t blen)
{
    return same(a, a + alen, b, b + blen) || relate(a, alen, b, blen, false);
}

bool zm_keyexpr_includes(const char *a, size_t alen, const char *b, size_t blen)
{
    return same(a, a + alen, b, b + blen) || relate(a, alen, b, blen, true);
}

/* ---- validation --------------------------------------------------------------------------- */


z_result_t zm_keyexpr_validate(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    size_t cs = 0;          /* start of the current chunk */
    bool after_dw = false;  /* the previous chunk was `**` */
    while (i < len) {
        unsigned c = u[i];
        switch (c) {
        case '/':
            if (i == cs) {
                return ZM_E_KEYEXPR; /* empty chunk */
            }
            i++;
            cs = i;
            after_dw = false;
            break;
        case '*':
            /* Only at a chunk start, as `*` or `**`, and (canon form) never after `**`. */
            if (i != cs || after_dw) {
                return ZM_E_KEYEXPR;
            }
            after_dw = i + 1 < len && u[i + 1] == '*';
            i += after_dw ? 2u : 1u;
            if (i == len) {
                return Z_OK;
            }
            if (u[i] != '/') {
                return ZM_E_KEYEXPR;
            }
            i++;
            cs = i;
            break;
        case '$':
            /* `$` only as `$*`, never `$*$` (not canonical), nor a lone `$*` chunk (spelled `*`) */
            i += 2;
            if (i > len || u[i - 1] != '*' || (i < len && u[i] == '$') ||
                (i - 2 == cs && (i == len || u[i] == '/'))) {
                return ZM_E_KEYEXPR;
            }
            break;
        case '#':
        case '?':
            return ZM_E_KEYEXPR;
        default:
            if (c >= 0x80) {
                size_t k = zm_utf8_seq(u + i, len - i);
                if (k == 0) {
                    return ZM_E_KEYEXPR;
                }
                i += k;
            } else {
                i++;
            }
            break;
        }
    }
    /* Empty input, or a trailing `/`. */
    return cs < len ? Z_OK : ZM_E_KEYEXPR;
}

/* ---- canonization ------------------------------------------------------------------------- */

static bool starts_dsds(const char *c)
{
    return c[0] == '$' && c[1] == '*' && c[2] == '$' && c[3] == '*';
}

/*
 * The reference's in-place rewrite, step for step, because its output on odd input is part of
 * the contract (a `**` run is held back and written once the next non-`*` chunk shows up).
 * Two of its quirks are kept on purpose: inside a chunk, after a `$*$*` it drops the next two
 * bytes unexamined when `$*` follows them (so `a$*$*$*$*b` stays non-canonical and fails), and
 * it fails outright (the reference panics) when fewer than two bytes follow such a `$*$*`.
 * The write index never passes the read index, so the rewrite needs no second buffer.
 */
z_result_t zm_keyexpr_canonize(char *s, size_t *len)
{
    ZM_ASSERT(len != NULL);
    size_t n = *len;
    size_t r = 0, w = 0;
    bool dw = false; /* a `**` chunk has been read but not yet written */
    for (;;) {
        size_t rem = n - r;
        const char *c = s + r;
        if (rem == 2 && c[0] == '*' && c[1] == '*') {
            s[w++] = '*';
            s[w++] = '*';
            break;
        }
        if (rem >= 3 && c[0] == '*' && c[1] == '*' && c[2] == '/') {
            dw = true;
            r += 3;
            continue;
        }
        size_t star = 0;
        if (rem >= 1 && c[0] == '*') {
            star = 1;
        } else if (rem >= 2 && c[0] == '$' && c[1] == '*') {
            star = 2;
        }
        if (star != 0 && (rem == star || c[star] == '/')) {
            s[w++] = '*';
            if (rem == star) {
                if (dw) {
                    s[w++] = '/';
                    s[w++] = '*';
                    s[w++] = '*';
                }
                break;
            }
            s[w++] = '/';
            r += star + 1;
            continue;
        }
        if (rem >= 4 && starts_dsds(c)) {
            r += 2;
            continue;
        }
        if (dw) {
            s[w++] = '*';
            s[w++] = '*';
            s[w++] = '/';
            dw = false;
        }
        /* Copy one chunk, folding `$*$*` as the reference does. */
        size_t from = r;
        bool last = false;
        for (;;) {
            if (r == n) {
                last = true;
                break;
            }
            if (s[r] == '/') {
                r++;
                break;
            }
            if (s[r] == '$' && r + 4 <= n && starts_dsds(s + r)) {
                r += 2;
                memmove(s + w, s + from, r - from);
                w += r - from;
                if (r + 4 > n) {
                    return ZM_E_KEYEXPR;
                }
                r += (r + 6 <= n && s[r + 4] == '$' && s[r + 5] == '*') ? 4 : 2;
                from = r;
                continue;
            }
            r++;
        }
        memmove(s + w, s + from, r - from);
        w += r - from;
        if (last) {
            break;
        }
    }
    ZM_TRY(zm_keyexpr_validate(s, w));
    *len = w;
    return Z_OK;
}

/* ---- small helpers ------------------------------------------------------------------------ */

bool zm_keyexpr_is_wild(const char *s, size_t len)
{
    return len > 0 && memchr(s, '*', len) != NULL;
}

bool zm_keyexpr_nonwild_prefix(const char *s, size_t len, size_t *prefix_len)
{
    const char *star = len > 0 ? memchr(s, '*', len) : NULL;
    size_t end = star != NULL ? (size_t)(star - s) : len;
    if (star != NULL) {
        while (end > 0 && s[end - 1] != '/') {
            end--;
        }
        end = end > 0 ? end - 1 : 0;
    }
    *prefix_len = end;
    return end > 0;
}

z_result_t zm_keyexpr_concat(char *out, size_t cap, size_t *out_len, const char *prefix,
                             size_t prefix_len, const char *suffix, size_t suffix_len)
{
    if (prefix_len > cap || suffix_len > cap - prefix_len) {
        return ZM_E_NO_SPACE;
    }
    if (prefix_len > 0 && out != prefix) {
        memmove(out, prefix, prefix_len);
    }
    if (suffix_len > 0) {
        memcpy(out + prefix_len, suffix, suffix_len);
    }
    *out_len = prefix_len + suffix_len;
    return Z_OK;
}

z_result_t zm_keyexpr_join(char *out, size_t cap, size_t *out_len, const char *prefix,
                           size_t prefix_len, const char *suffix, size_t suffix_len)
{
    if (prefix_len >= cap || suffix_len > cap - prefix_len - 1) {
        return ZM_E_NO_SPACE;
    }
    if (prefix_len > 0 && out != prefix) {
        memmove(out, prefix, prefix_len);
    }
    out[prefix_len] = '/';
    if (suffix_len > 0) {
        memcpy(out + prefix_len + 1, suffix, suffix_len);
    }
    size_t n = prefix_len + 1 + suffix_len;
    ZM_TRY(zm_keyexpr_canonize(out, &n));
    *out_len = n;
    return Z_OK;
}
