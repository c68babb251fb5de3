/*
 * Scouting messages, SCOUT and HELLO: one per UDP datagram, no length prefix, no batch.
 * A HELLO's locator list is checked whole at decode time (so a bad HELLO is refused up front,
 * as Rust refuses it) and then kept raw: zm_locators_next() walks it without copying.
 */
#include "proto/codec.h"

#define ZM_SCOUT_FLAG_I 0x08u /* in the flags byte: a zid follows */
#define ZM_HELLO_FLAG_L 0x20u /* in the header: a locator list follows */
#define ZM_LOCATOR_MAX 255u

/*
 * Rust reads scouting extensions without looking at their M bit, so a mandatory one does not
 * make a SCOUT or HELLO fail there; every extension is kept here, as an unknown one.
 */
static z_result_t scouting_ext(void *ctx, const zm_ext_t *ext, bool *known)
{
    zm_ext_unknown_t *u = ctx;
    *known = true;
    if (u->n < ZM_EXT_UNKNOWN_MAX) {
        u->raw[u->n++] = ext->raw;
    } else if (u->dropped < UINT8_MAX) {
        u->dropped++;
    }
    return Z_OK;
}

/* ---- locators: proto/address[?metadata] --------------------------------------------------- */

static const uint8_t *find_byte(const uint8_t *p, const uint8_t *end, uint8_t c)
{
    while (p < end && *p != c) {
        p++;
    }
    return p;
}

/* Orders two keys as Rust orders &str: bytewise, then the shorter first. */
static int key_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n > 0 ? memcmp(a, b, n) : 0;
    if (c != 0) {
        return c;
    }
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

/*
 * Rust parses the metadata into key=value pairs, sorts them by key and rebuilds the string,
 * then refuses the locator if the rebuilt string differs from the received one. So only the
 * canonical form passes: no empty entry, no empty key, no "key=" with an empty value, and keys
 * in ascending order (equal keys are left as they come).
 */
static bool metadata_canonical(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *prev_key = NULL;
    size_t prev_len = 0;
    for (;;) {
        const uint8_t *semi = find_byte(p, end, ';');
        const uint8_t *eq = find_byte(p, semi, '=');
        if (semi == p || eq == p || eq + 1 == semi) {
            return false;
        }
        size_t klen = (size_t)(eq - p);
        if (prev_key != NULL && key_cmp(prev_key, prev_len, p, klen) > 0) {
            return false;
        }
        if (semi == end) {
            return true;
        }
        prev_key = p;
        prev_len = klen;
        p = semi + 1;
    }
}

static bool locator_valid(zm_slice_t s)
{
    const uint8_t *end = s.ptr + s.len;
    if (!zm_utf8_valid(s) || find_byte(s.ptr, end, '#') != end) {
        return false;
    }
    const uint8_t *slash = find_byte(s.ptr, end, '/');
    if (slash == s.ptr || slash == end || slash + 1 == end) {
        return false; /* empty protocol, no separator, or empty address */
    }
    const uint8_t *q = find_byte(s.ptr, end, '?');
    if (q == end) {
        return true;
    }
    if (q < slash || q + 1 == end) {
        return false;
    }
    return metadata_canonical(q + 1, end);
}

/* <locator;z8>, validated. On error the reader is at the locator's length. */
static z_result_t locator_read(zm_reader_t *r, zm_slice_t *loc)
{
    const uint8_t *mark = r->ptr;
    uint64_t n;
    ZM_TRY(zm_read_zint(r, &n));
    if (n > ZM_LOCATOR_MAX) {
        r->ptr = mark;
        return ZM_E_LOCATOR;
    }
    z_result_t rc = zm_read_bytes(r, (size_t)n, loc);
    if (rc == Z_OK && !locator_valid(*loc)) {
        rc = ZM_E_LOCATOR;
    }
    if (rc != Z_OK) {
        r->ptr = mark;
    }
    return rc;
}

z_result_t zm_locators_next(zm_reader_t *it, zm_slice_t *locator, bool *got)
{
    *got = false;
    if (zm_reader_left(it) == 0) {
        return Z_OK;
    }
    ZM_TRY(locator_read(it, locator));
    *got = true;
    return Z_OK;
}

/* ---- SCOUT  |Z|X|X| 0x01 | version | zid_len(4)|I|what(3) | [zid] [exts] ------------------- */

static z_result_t scout_decode(zm_reader_t *r, uint8_t h, zm_scout_t *s)
{
    uint8_t flags;
    s->unknown.n = 0;
    s->unknown.dropped = 0;
    ZM_TRY(zm_read_u8(r, &s->version));
    ZM_TRY(zm_read_u8(r, &flags));
    s->what = (uint8_t)(flags & 0x07u);
    s->has_zid = (flags & ZM_SCOUT_FLAG_I) != 0;
    if (s->has_zid) {
        ZM_TRY(zm_zid_read(r, (uint8_t)((flags >> 4) + 1u), &s->zid));
    } else {
        memset(&s->zid, 0, sizeof(s->zid));
    }
    return zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, scouting_ext, &s->unknown, &s->unknown);
}

static z_result_t scout_encode(zm_writer_t *w, const zm_scout_t *s)
{
    size_t mark = w->len;
    uint8_t flags = (uint8_t)(s->what & 0x07u);
    if (s->has_zid) {
        if (s->zid.len < 1 || s->zid.len > 16) {
            return ZM_E_ZID;
        }
        flags = (uint8_t)(flags | ((s->zid.len - 1u) << 4) | ZM_SCOUT_FLAG_I);
    }
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(ZM_MID_SCOUT | (s->unknown.n ? ZM_FLAG_Z : 0u))));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, s->version));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, flags));
    if (s->has_zid) {
        ZM_ENC_TRY(w, mark, zm_zid_write(w, &s->zid));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &s->unknown, false));
    return Z_OK;
}

/* ---- HELLO  |Z|X|L| 0x02 | version | zid_len(4)|X|X|wai(2) | zid [%n% n x <loc;z8>] [exts] - */

static z_result_t hello_decode(zm_reader_t *r, uint8_t h, zm_hello_t *m)
{
    uint8_t flags;
    m->unknown.n = 0;
    m->unknown.dropped = 0;
    m->locator_count = 0;
    m->locators = zm_slice(NULL, 0);
    ZM_TRY(zm_read_u8(r, &m->version));
    ZM_TRY(zm_read_u8(r, &flags));
    if ((flags & 0x03u) == 0x03u) {
        r->ptr--;
        return ZM_E_WHATAMI;
    }
    m->whatami = (uint8_t)(flags & 0x03u);
    ZM_TRY(zm_zid_read(r, (uint8_t)((flags >> 4) + 1u), &m->zid));
    m->has_locators = (h & ZM_HELLO_FLAG_L) != 0;
    if (m->has_locators) {
        uint64_t count;
        ZM_TRY(zm_read_zint_max(r, UINT32_MAX, &count));
        const uint8_t *list = r->ptr;
        /* each locator takes at least one byte: a count past the input ends in truncation */
        for (uint64_t i = 0; i < count; i++) {
            zm_slice_t loc;
            ZM_TRY(locator_read(r, &loc));
        }
        m->locator_count = (uint32_t)count;
        m->locators = zm_slice(list, (size_t)(r->ptr - list));
    }
    return zm_ext_loop(r, (h & ZM_FLAG_Z) != 0, scouting_ext, &m->unknown, &m->unknown);
}

static z_result_t hello_encode(zm_writer_t *w, const zm_hello_t *m)
{
    size_t mark = w->len;
    if (m->zid.len < 1 || m->zid.len > 16) {
        return ZM_E_ZID;
    }
    if (m->whatami > ZM_WAI_CLIENT) {
        return ZM_E_WHATAMI;
    }
    uint8_t h = (uint8_t)(ZM_MID_HELLO | (m->has_locators ? ZM_HELLO_FLAG_L : 0u) |
                          (m->unknown.n ? ZM_FLAG_Z : 0u));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, h));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, m->version));
    ZM_ENC_TRY(w, mark, zm_write_u8(w, (uint8_t)(((m->zid.len - 1u) << 4) | m->whatami)));
    ZM_ENC_TRY(w, mark, zm_zid_write(w, &m->zid));
    if (m->has_locators) {
        ZM_ENC_TRY(w, mark, zm_write_zint(w, m->locator_count));
        ZM_ENC_TRY(w, mark, zm_write_bytes(w, m->locators.ptr, m->locators.len));
    }
    ZM_ENC_TRY(w, mark, zm_ext_write_unknown(w, &m->unknown, false));
    return Z_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

z_result_t zm_scouting_decode(zm_reader_t *r, zm_scouting_msg_t *m)
{
    uint8_t h;
    ZM_TRY(zm_read_u8(r, &h));
    m->id = ZM_MID(h);
    switch (m->id) {
    case ZM_MID_SCOUT:
        return scout_decode(r, h, &m->body.scout);
    case ZM_MID_HELLO:
        return hello_decode(r, h, &m->body.hello);
    default:
        r->ptr--;
        return ZM_E_MSG_UNKNOWN;
    }
}

z_result_t zm_scouting_encode(zm_writer_t *w, const zm_scouting_msg_t *m)
{
    switch (m->id) {
    case ZM_MID_SCOUT:
        return scout_encode(w, &m->body.scout);
    case ZM_MID_HELLO:
        return hello_encode(w, &m->body.hello);
    default:
        return ZM_E_MSG_UNKNOWN;
    }
}
