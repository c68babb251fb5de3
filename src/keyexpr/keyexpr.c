/*
 * Key expressions, matching zenoh-keyexpr 1.10.2 result for result. The reference decides
 * intersects/includes with a backtracking search that is exponential on some inputs; here the
 * same answers come from a split at verbatim (`@`) chunks, which `**` can never cross, and a
 * greedy leftmost search per `**`-separated run: no recursion, O(1) stack, O(|a|*|b|) at worst.
 * Chunks are walked in place as byte ranges [begin, end) of the caller's string.
 */
#include "keyexpr/keyexpr.h"
#include "util/utf8.h"

#include <string.h>

/* ---- chunk ranges ------------------------------------------------------------------------- */

/* End of the chunk starting at pos, inside a range ending at end. Chunks are mostly short, so
 * a plain loop comes first and memchr only takes over for long ones. */
static inline size_t chunk_end(const char *s, size_t pos, size_t end)
{
    size_t stop = end - pos > 16 ? pos + 16 : end;
    for (; pos < stop; pos++) {
        if (s[pos] == '/') {
            return pos;
        }
    }
    if (pos == end) {
        return end;
    }
    const char *slash = memchr(s + pos, '/', end - pos);
    return slash != NULL ? (size_t)(slash - s) : end;
}

/* Start of the next chunk after one ending at ce: end itself when that was the last one. */
static size_t chunk_next(size_t ce, size_t end)
{
    return ce < end ? ce + 1 : end;
}

/* Start of the chunk ending at ce, searching no further back than begin. */
static size_t chunk_begin(const char *s, size_t begin, size_t ce)
{
    while (ce > begin && s[ce - 1] != '/') {
        ce--;
    }
    return ce;
}

/* End of the range before the chunk starting at cb (the range starts at begin). */
static size_t chunk_prev(size_t cb, size_t begin)
{
    return cb > begin ? cb - 1 : begin;
}

static bool is_double_wild(const char *c, size_t n)
{
    return n == 2 && c[0] == '*' && c[1] == '*';
}

static bool is_single_wild(const char *c, size_t n)
{
    return n == 1 && c[0] == '*';
}

static bool is_verbatim(const char *c, size_t n)
{
    return n > 0 && c[0] == '@';
}

/* Byte equality; the first byte is compared inline because most unequal chunks differ there. */
static bool same(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn) {
        return false;
    }
    if (an == 0) {
        return true;
    }
    return a[0] == b[0] && (an == 1 || memcmp(a + 1, b + 1, an - 1) == 0);
}

/* ---- inside one chunk: `$*` globs --------------------------------------------------------- */

/* Leftmost occurrence of needle in hay[from, to), as an index into hay; false if none. */
static bool find_bytes(const char *hay, size_t from, size_t to, const char *needle, size_t nn,
                       size_t *at)
{
    if (nn == 0) {
        *at = from;
        return true;
    }
    while (to - from >= nn) {
        const char *first = memchr(hay + from, needle[0], to - from - nn + 1);
        if (first == NULL) {
            return false;
        }
        from = (size_t)(first - hay);
        if (memcmp(hay + from, needle, nn) == 0) {
            *at = from;
            return true;
        }
        from++;
    }
    return false;
}

/*
 * Does glob p (literal runs separated by `$*`) match text t taken literally? t's own `$` and `*`
 * are plain characters here, which is how the reference decides chunk inclusion. Greedy
 * leftmost placement of the middle runs is exact for `*`-only globs.
 */
static bool glob_match(const char *p, size_t pn, const char *t, size_t tn)
{
    const char *d = memchr(p, '$', pn);
    if (d == NULL) {
        return same(p, pn, t, tn);
    }
    size_t head = (size_t)(d - p);
    size_t last = pn; /* index of the last `$` */
    while (last > 0 && p[last - 1] != '$') {
        last--;
    }
    last--;
    size_t tail_at = last + 2 > pn ? pn : last + 2; /* clamp: only invalid input ends in `$` */
    size_t tail = pn - tail_at;
    if (tn < head + tail || memcmp(p, t, head) != 0 ||
        memcmp(p + tail_at, t + tn - tail, tail) != 0) {
        return false;
    }
    size_t lo = head;
    size_t hi = tn - tail;
    size_t i = head + 2; /* past the first `$*` */
    while (i < last) {
        const char *nd = memchr(p + i, '$', last - i);
        size_t ne = nd != NULL ? (size_t)(nd - p) : last;
        size_t at;
        if (!find_bytes(t, lo, hi, p + i, ne - i, &at)) {
            return false;
        }
        lo = at + (ne - i);
        i = ne + 2;
    }
    return true;
}

/* Length of the literal run before the first `$`, and after the last `$*`. */
static size_t glob_head(const char *c, size_t n)
{
    const char *d = memchr(c, '$', n);
    return d != NULL ? (size_t)(d - c) : n;
}

static size_t glob_tail(const char *c, size_t n)
{
    size_t i = n;
    while (i > 0 && c[i - 1] != '$') {
        i--;
    }
    return i == 0 ? n : (n - i > 0 ? n - i - 1 : 0);
}

/*
 * Some chunk matched by both x and y (neither is `**`). A verbatim chunk only meets itself.
 * Two globs that both hold `$*` meet exactly when their literal heads agree on the shorter one's
 * length and so do their tails: a witness is the longer head, every middle run, the longer tail.
 */
static bool chunk_intersects(const char *x, size_t xn, const char *y, size_t yn)
{
    if (is_single_wild(x, xn)) {
        return !is_verbatim(y, yn);
    }
    if (is_single_wild(y, yn)) {
        return !is_verbatim(x, xn);
    }
    if (same(x, xn, y, yn)) {
        return true;
    }
    if (is_verbatim(x, xn) || is_verbatim(y, yn)) {
        return false;
    }
    bool xg = memchr(x, '$', xn) != NULL;
    bool yg = memchr(y, '$', yn) != NULL;
    if (xg && yg) {
        size_t xh = glob_head(x, xn), yh = glob_head(y, yn);
        size_t xt = glob_tail(x, xn), yt = glob_tail(y, yn);
        size_t h = xh < yh ? xh : yh;
        size_t t = xt < yt ? xt : yt;
        return memcmp(x, y, h) == 0 && memcmp(x + xn - t, y + yn - t, t) == 0;
    }
    if (xg) {
        return glob_match(x, xn, y, yn);
    }
    if (yg) {
        return glob_match(y, yn, x, xn);
    }
    return false;
}

/* Does pattern chunk l include text chunk r (the reference's chunk rule; r is not `**`)? */
static bool chunk_includes(const char *l, size_t ln, const char *r, size_t rn)
{
    if (is_single_wild(l, ln)) {
        return !is_verbatim(r, rn);
    }
    if (same(l, ln, r, rn)) {
        return true;
    }
    if (is_verbatim(l, ln) || is_verbatim(r, rn)) {
        return false;
    }
    if (memchr(l, '$', ln) != NULL) {
        return glob_match(l, ln, r, rn);
    }
    return false;
}

/* ---- chunk sequences ---------------------------------------------------------------------- */

enum relation { REL_INTERSECTS, REL_INCLUDES };

/* One pattern chunk p against one text chunk t. The cases that decide most comparisons come
 * first, inline, since a search may make one call per pair of chunks. */
static inline bool chunk_rel(enum relation rel, const char *p, size_t pn, const char *t, size_t tn)
{
    if (rel == REL_INTERSECTS) {
        if (is_single_wild(p, pn)) {
            return !is_verbatim(t, tn);
        }
        return chunk_intersects(p, pn, t, tn);
    }
    if (is_double_wild(t, tn)) {
        return false;
    }
    if (is_single_wild(p, pn)) {
        return !is_verbatim(t, tn);
    }
    return chunk_includes(p, pn, t, tn);
}

static bool has_double_wild(const char *s, size_t b, size_t e)
{
    while (b < e) {
        size_t ce = chunk_end(s, b, e);
        if (is_double_wild(s + b, ce - b)) {
            return true;
        }
        b = chunk_next(ce, e);
    }
    return false;
}

/*
 * Pattern p[pb, pe) matches text t[tb, te) chunk for chunk, each `**` of p standing for any run
 * of text chunks (no verbatim chunk lies in either range). The run before the first `**` is
 * anchored at the start, the run after the last one at the end, and each run in between is
 * placed at its leftmost fit: a later fit never leaves more room to what follows, so greedy
 * placement loses no match. Every (pattern chunk, text chunk) pair is compared at most once.
 */
static bool seq_match(enum relation rel, const char *p, size_t pb, size_t pe, const char *t,
                      size_t tb, size_t te)
{
    size_t pce;
    while (pb < pe) {
        pce = chunk_end(p, pb, pe);
        if (is_double_wild(p + pb, pce - pb)) {
            break;
        }
        if (tb >= te) {
            return false;
        }
        size_t tce = chunk_end(t, tb, te);
        if (!chunk_rel(rel, p + pb, pce - pb, t + tb, tce - tb)) {
            return false;
        }
        pb = chunk_next(pce, pe);
        tb = chunk_next(tce, te);
    }
    if (pb >= pe) {
        return tb >= te;
    }
    /* p[pb] is a `**`: anchor the tail run from the end of the text. */
    for (;;) {
        size_t pcb = chunk_begin(p, pb, pe);
        if (is_double_wild(p + pcb, pe - pcb)) {
            break;
        }
        if (te <= tb) {
            return false;
        }
        size_t tcb = chunk_begin(t, tb, te);
        if (!chunk_rel(rel, p + pcb, pe - pcb, t + tcb, te - tcb)) {
            return false;
        }
        pe = chunk_prev(pcb, pb);
        te = chunk_prev(tcb, tb);
    }
    /* p[pb, pe) now starts and ends with `**`; place each run between them leftmost. */
    while (pb < pe) {
        pce = chunk_end(p, pb, pe);
        if (is_double_wild(p + pb, pce - pb)) {
            pb = chunk_next(pce, pe);
            continue;
        }
        size_t start = tb;
        for (;;) {
            size_t x = pb, y = start;
            bool fit = true;
            while (x < pe) {
                size_t xe = chunk_end(p, x, pe);
                if (is_double_wild(p + x, xe - x)) {
                    break;
                }
                if (y >= te) {
                    return false; /* not enough text left for this run anywhere */
                }
                size_t ye = chunk_end(t, y, te);
                if (!chunk_rel(rel, p + x, xe - x, t + y, ye - y)) {
                    fit = false;
                    break;
                }
                x = chunk_next(xe, pe);
                y = chunk_next(ye, te);
            }
            if (fit) {
                pb = x;
                tb = y;
                break;
            }
            if (start >= te) {
                return false;
            }
            start = chunk_next(chunk_end(t, start, te), te);
        }
    }
    return true;
}

/* Heads up to the first `**` and tails back to the last one, pairwise (both ranges hold one). */
static bool wild_ranges_intersect(const char *a, size_t ab, size_t ae, const char *b, size_t bb,
                                  size_t be)
{
    for (;;) {
        size_t ace = chunk_end(a, ab, ae), bce = chunk_end(b, bb, be);
        if (is_double_wild(a + ab, ace - ab) || is_double_wild(b + bb, bce - bb)) {
            break;
        }
        if (!chunk_intersects(a + ab, ace - ab, b + bb, bce - bb)) {
            return false;
        }
        ab = chunk_next(ace, ae);
        bb = chunk_next(bce, be);
    }
    for (;;) {
        size_t acb = chunk_begin(a, ab, ae), bcb = chunk_begin(b, bb, be);
        if (is_double_wild(a + acb, ae - acb) || is_double_wild(b + bcb, be - bcb)) {
            return true;
        }
        if (!chunk_intersects(a + acb, ae - acb, b + bcb, be - bcb)) {
            return false;
        }
        ae = chunk_prev(acb, ab);
        be = chunk_prev(bcb, bb);
    }
}

/*
 * Two ranges free of verbatim chunks intersect when: neither has `**` and they agree chunk for
 * chunk; one has `**` and it matches the other as a pattern (every text position picks its own
 * witness chunk, so a per-position test is exact); both have `**` and their heads and tails
 * agree, since each side's `**` can absorb whatever the other side adds.
 */
static bool ranges_intersect(const char *a, size_t ab, size_t ae, const char *b, size_t bb,
                             size_t be)
{
    bool aw = has_double_wild(a, ab, ae);
    bool bw = has_double_wild(b, bb, be);
    if (aw && bw) {
        return wild_ranges_intersect(a, ab, ae, b, bb, be);
    }
    if (bw) {
        return seq_match(REL_INTERSECTS, b, bb, be, a, ab, ae);
    }
    return seq_match(REL_INTERSECTS, a, ab, ae, b, bb, be);
}

/*
 * Next stretch of non-verbatim chunks from *pos: [*rb, *re), then the verbatim chunk closing it
 * in [*vb, *ve) when there is one (returns true). Neither `*`, `**` nor `$*` matches a verbatim
 * chunk, so two expressions relate only if their verbatim chunks pair up one for one, and then
 * the stretches between them relate independently.
 */
static bool next_stretch(const char *s, size_t len, size_t *pos, size_t *rb, size_t *re,
                         size_t *vb, size_t *ve)
{
    size_t x = *pos;
    *rb = x;
    *re = x;
    while (x < len) {
        size_t ce = chunk_end(s, x, len);
        if (is_verbatim(s + x, ce - x)) {
            *vb = x;
            *ve = ce;
            *pos = chunk_next(ce, len);
            return true;
        }
        *re = ce;
        x = chunk_next(ce, len);
    }
    *pos = len;
    return false;
}

static bool relate(enum relation rel, const char *a, size_t alen, const char *b, size_t blen)
{
    if (same(a, alen, b, blen)) {
        return true;
    }
    size_t apos = 0, bpos = 0;
    for (;;) {
        size_t arb, are, avb = 0, ave = 0, brb, bre, bvb = 0, bve = 0;
        bool av = next_stretch(a, alen, &apos, &arb, &are, &avb, &ave);
        bool bv = next_stretch(b, blen, &bpos, &brb, &bre, &bvb, &bve);
        if (av != bv || (av && !same(a + avb, ave - avb, b + bvb, bve - bvb))) {
            return false;
        }
        bool ok = rel == REL_INTERSECTS ? ranges_intersect(a, arb, are, b, brb, bre)
                                        : seq_match(REL_INCLUDES, a, arb, are, b, brb, bre);
        if (!ok) {
            return false;
        }
        if (!av) {
            return true;
        }
    }
}

bool zm_keyexpr_intersects(const char *a, size_t alen, const char *b, size_t blen)
{
    return relate(REL_INTERSECTS, a, alen, b, blen);
}

bool zm_keyexpr_includes(const char *a, size_t alen, const char *b, size_t blen)
{
    return relate(REL_INCLUDES, a, alen, b, blen);
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
        if (c > '/' && c != '?' && c < 0x80) {
            i++;
            continue;
        }
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
            if (i + 1 == len) {
                return Z_OK;
            }
            if (u[i + 1] == '/') {
                i += 2;
                cs = i;
                break;
            }
            if (u[i + 1] != '*' || (i + 2 < len && u[i + 2] != '/')) {
                return ZM_E_KEYEXPR;
            }
            if (i + 2 == len) {
                return Z_OK;
            }
            after_dw = true;
            i += 3;
            cs = i;
            break;
        case '$':
            if (i + 1 >= len || u[i + 1] != '*') {
                return ZM_E_KEYEXPR; /* `$` only as `$*` */
            }
            if (i + 2 < len && u[i + 2] == '$') {
                return ZM_E_KEYEXPR; /* `$*$`: not canonical */
            }
            if (i == cs && (i + 2 == len || u[i + 2] == '/')) {
                return ZM_E_KEYEXPR; /* a lone `$*` chunk is spelled `*` */
            }
            i += 2;
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
