/*
 * Endpoint parsing and locator formatting. The string is split once, left to right, at the
 * first '/', then at the first '?' or '#', and every piece is checked where it lies: nothing
 * is copied, and a piece that fails names the whole endpoint malformed (ZM_E_LOCATOR). Only
 * what zmote cannot do is ZM_E_UNSUPPORTED, so a user can tell a typo from a missing feature.
 */
#include "link/endpoint.h"

#include <string.h>

/* Words a piece of an endpoint is looked up in: each ends with a NUL, the list with another. */
#define PROTO_WORDS "tcp\0udp\0tls\0serial\0" /* in zm_link_proto_t order */
#define SERIAL_KEYS "baudrate\0tout\0exclusive\0release_on_close\0"
#define TRUE_FALSE "true\0false\0"

/* The index of s among words, or the number of words if it is none of them. */
static unsigned word_index(zm_slice_t s, const char *words)
{
    unsigned i = 0;
    for (; *words != '\0'; words += strlen(words) + 1, i++) {
        if (strlen(words) == s.len && memcmp(words, s.ptr, s.len) == 0) {
            break;
        }
    }
    return i;
}

const char *zm_link_proto_name(zm_link_proto_t proto)
{
    const char *name = PROTO_WORDS;
    for (unsigned i = 0; i < (unsigned)proto && *name != '\0'; i++) {
        name += strlen(name) + 1;
    }
    return *name != '\0' ? name : "?";
}

#if ZM_LINK_IP
static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static bool is_hex(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_name_char(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '-' || c == '_';
}

#endif

/* The first occurrence of c in s, or s.len if none. s points into the parsed string, even when
 * empty (never NULL). */
static size_t find(zm_slice_t s, uint8_t c)
{
    const uint8_t *hit = memchr(s.ptr, c, s.len);
    return hit ? (size_t)(hit - s.ptr) : s.len;
}

static zm_slice_t sub(zm_slice_t s, size_t from, size_t to)
{
    return zm_slice(s.ptr + from, to - from);
}

/* A DNS name or an IPv4 literal; the resolver decides whether it exists. */
#if ZM_LINK_IP
static bool valid_name(zm_slice_t h)
{
    if (h.len == 0 || h.len > ZM_ENDPOINT_HOST_MAX) {
        return false;
    }
    for (size_t i = 0; i < h.len; i++) {
        if (!is_name_char(h.ptr[i])) {
            return false;
        }
    }
    return true;
}

/* The inside of `[...]`: hex groups, ':' and a dotted IPv4 tail, then an optional `%zone`. A
 * shape check only; the resolver rejects what is not a real address. */
static bool valid_ipv6(zm_slice_t h)
{
    if (h.len > ZM_ENDPOINT_HOST_MAX) {
        return false;
    }
    size_t zone = find(h, '%');
    unsigned colons = 0;
    for (size_t i = 0; i < zone; i++) {
        uint8_t c = h.ptr[i];
        if (c == ':') {
            colons++;
        } else if (!is_hex(c) && c != '.') {
            return false;
        }
    }
    if (colons < 2) {
        return false;
    }
    if (zone < h.len) {
        zm_slice_t z = sub(h, zone + 1, h.len);
        return valid_name(z);
    }
    return true;
}

#endif

#if ZM_LINK_IP
bool zm_endpoint_ipv4(zm_slice_t host, uint8_t out[4])
{
    size_t i = 0;
    for (unsigned part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= host.len || host.ptr[i] != '.') {
                return false;
            }
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < host.len && is_digit(host.ptr[i]) && i - start < 3) {
            v = v * 10u + (unsigned)(host.ptr[i] - '0');
            i++;
        }
        if (i == start || v > 255u || (i - start > 1 && host.ptr[start] == '0')) {
            return false;
        }
        out[part] = (uint8_t)v;
    }
    return i == host.len;
}
#endif

/* A decimal number within 0..UINT64_MAX, no sign, no spaces (Rust's from_str takes no more); a
 * caller with a smaller bound checks it after. The bound of each step is a constant, so no 64-bit division is
 * needed on a 32-bit target. */
static ZM_ALWAYS_INLINE bool parse_decimal(zm_slice_t digits, uint64_t *out)
{
    if (digits.len == 0) {
        return false;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < digits.len; i++) {
        unsigned d = (unsigned)digits.ptr[i] - '0';
        if (d > 9u || v > UINT64_MAX / 10u || (v == UINT64_MAX / 10u && d > UINT64_MAX % 10u)) {
            return false;
        }
        v = v * 10u + d;
    }
    *out = v;
    return true;
}

#if ZM_LINK_IP
static z_result_t parse_port(zm_slice_t digits, zm_endpoint_use_t use, uint16_t *port)
{
    uint64_t v = 0;
    if (digits.len > 5 || !parse_decimal(digits, &v) || v > 65535u || (v == 0 && use != ZM_ENDPOINT_LISTEN)) {
        return ZM_E_LOCATOR;
    }
    *port = (uint16_t)v;
    return Z_OK;
}

/* `host:port` or `[v6]:port`. The port is never optional: Zenoh has no default for it. */
static z_result_t parse_host_port(zm_endpoint_t *ep, zm_endpoint_use_t use)
{
    zm_slice_t a = ep->address;
    size_t colon;
    if (a.len > 0 && a.ptr[0] == '[') {
        size_t close = find(a, ']');
        if (close == a.len) {
            return ZM_E_LOCATOR;
        }
        ep->host = sub(a, 1, close);
        ep->ipv6 = true;
        if (!valid_ipv6(ep->host) || close + 1 == a.len || a.ptr[close + 1] != ':') {
            return ZM_E_LOCATOR;
        }
        colon = close + 1;
    } else {
        colon = find(a, ':');
        if (colon == a.len) {
            return ZM_E_LOCATOR;
        }
        ep->host = sub(a, 0, colon);
        if (!valid_name(ep->host)) {
            return ZM_E_LOCATOR;
        }
    }
    return parse_port(sub(a, colon + 1, a.len), use, &ep->port);
}

#endif

/* Takes the next non-empty entry of a `k=v;k2` list; false at the end. A build whose only link is
 * serial reads such lists in serial_config alone (the parse's last one is for IP links, and
 * zm_endpoint_param is the tests'), where it is inline. */
static ZM_ALWAYS_INLINE bool next_param(zm_slice_t *rest, zm_slice_t *key, zm_slice_t *value)
{
    const uint8_t *p = rest->ptr;
    const uint8_t *end = rest->len > 0 ? p + rest->len : p; /* an absent list's pointer is NULL */
    while (p < end && *p == ';') {
        p++; /* `a=1;;b=2` and a trailing ';' are tolerated, as in Rust */
    }
    if (p == end) {
        return false;
    }
    const uint8_t *semi = memchr(p, ';', (size_t)(end - p));
    semi = semi != NULL ? semi : end;
    const uint8_t *eq = memchr(p, '=', (size_t)(semi - p));
    *key = zm_slice(p, (size_t)((eq != NULL ? eq : semi) - p));
    *value = eq != NULL ? zm_slice(eq + 1, (size_t)(semi - eq - 1)) : zm_slice(semi, 0); /* a bare `key`: empty */
    *rest = zm_slice(semi, (size_t)(end - semi));
    return true;
}

bool zm_endpoint_param(zm_slice_t params, const char *key, zm_slice_t *value)
{
    zm_slice_t want = zm_slice(key, strlen(key));
    zm_slice_t rest = params, k, v;
    while (next_param(&rest, &k, &v)) {
        if (zm_slice_eq(k, want)) {
            *value = v;
            return true;
        }
    }
    return false;
}

/* A serial endpoint's #config, read once by the parse. */
static z_result_t serial_config(zm_slice_t rest, zm_serial_config_t *cfg)
{
    cfg->baudrate = 9600;
    cfg->reset_wait_ms = 50;
    zm_slice_t key, value;
    while (next_param(&rest, &key, &value)) {
        unsigned k = word_index(key, SERIAL_KEYS);
        uint64_t v = 0;
        if (k >= 2) {
            /* exclusive and release_on_close: `true` is what zmote does, `false` one it does not
             * offer; any other key is one zmote does not implement */
            unsigned b = word_index(value, TRUE_FALSE);
            if (k > 3 || b == 1) {
                return ZM_E_UNSUPPORTED;
            }
            if (b != 0) {
                return ZM_E_LOCATOR; /* a typo */
            }
        } else if (!parse_decimal(value, &v) || (k == 0 && v - 1u >= UINT32_MAX)) {
            return ZM_E_LOCATOR; /* not a number, or a baud rate of 0 or beyond 32 bits */
        } else if (k == 0) {
            cfg->baudrate = (uint32_t)v;
        } else { /* tout: microseconds, kept in milliseconds rounded up */
            uint64_t ms = v / 1000u + (v % 1000u != 0);
            cfg->reset_wait_ms = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
        }
    }
    return Z_OK;
}

z_result_t zm_endpoint_parse(zm_endpoint_t *ep, const char *s, size_t len, zm_endpoint_use_t use)
{
    memset(ep, 0, sizeof(*ep));
    zm_slice_t all = zm_slice(s, len);
    for (size_t i = 0; i < len; i++) {
        if (all.ptr[i] <= 0x20 || all.ptr[i] >= 0x7f) {
            return ZM_E_LOCATOR;
        }
    }

    size_t slash = find(all, '/');
    if (slash == 0 || slash == len) {
        return ZM_E_LOCATOR;
    }
    zm_slice_t proto = sub(all, 0, slash);
    unsigned p = word_index(proto, PROTO_WORDS);
    if (p >= ZM_PROTO_COUNT || (!ZM_LINK_IP && p != ZM_PROTO_SERIAL)) {
        return ZM_E_UNSUPPORTED; /* unknown, or a build without IP links */
    }
    ep->proto = (zm_link_proto_t)p;

    zm_slice_t rest = sub(all, slash + 1, len);
    size_t q = find(rest, '?');
    size_t h = find(rest, '#');
    size_t addr_end = q < h ? q : h;
    ep->address = sub(rest, 0, addr_end);
    if (q < h) {
        ep->metadata = sub(rest, q + 1, h);
    }
    if (h < rest.len) {
        ep->config = sub(rest, h + 1, rest.len);
    }

    if (p == ZM_PROTO_SERIAL) {
        if (ep->address.len == 0) {
            return ZM_E_LOCATOR;
        }
    } else {
#if ZM_LINK_IP
        ZM_TRY(parse_host_port(ep, use));
#else
        ZM_UNUSED(use); /* not reached: without IP links, only serial endpoints come this far */
#endif
    }
    /* Past the address come `?metadata` and `#config`, lists of `key[=value]` entries separated by
     * ';'. Another '?' or '#' is a typo (`?a=1?b`), and so is an empty key: an entry that starts
     * with '='. Empty entries are tolerated, as in Rust. */
    uint8_t prev = ';';
    for (size_t i = addr_end; i < rest.len; i++) {
        uint8_t c = rest.ptr[i];
        if (i == addr_end || i == h) {
            c = ';'; /* the separator starts the list's first entry */
        } else if (c == '?' || c == '#' || (c == '=' && prev == ';')) {
            return ZM_E_LOCATOR;
        }
        prev = c;
    }

    if (p == ZM_PROTO_SERIAL) {
        return serial_config(ep->config, &ep->serial);
    }
#if Z_FEATURE_LINK_UDP_MULTICAST
    if (zm_endpoint_is_multicast(ep)) {
        char iface[ZM_ENDPOINT_IFACE_MAX + 1];
        return zm_endpoint_iface(ep, iface, sizeof(iface));
    }
#endif
    /* No other link option is implemented; accepting one and ignoring it would mislead. */
    zm_slice_t cfg = ep->config, key, value;
    if (next_param(&cfg, &key, &value)) {
        return ZM_E_UNSUPPORTED;
    }
    return Z_OK;
}

#if Z_FEATURE_LINK_UDP_MULTICAST || Z_FEATURE_LINK_UDP_UNICAST
bool zm_endpoint_is_multicast(const zm_endpoint_t *ep)
{
    zm_slice_t h = ep->host;
    if (ep->proto != ZM_PROTO_UDP || h.len == 0) {
        return false;
    }
    if (ep->ipv6) { /* ff00::/8 */
        return h.len >= 2 && (h.ptr[0] == 'f' || h.ptr[0] == 'F') && (h.ptr[1] == 'f' || h.ptr[1] == 'F');
    }
    /* 224.0.0.0/4: a dotted IPv4 literal whose first number is 224..239 */
    size_t dot = find(h, '.');
    uint64_t first = 0;
    return dot < h.len && dot <= 3 && parse_decimal(sub(h, 0, dot), &first) && first >= 224u && first <= 239u;
}
#endif

#if Z_FEATURE_LINK_UDP_MULTICAST
z_result_t zm_endpoint_iface(const zm_endpoint_t *ep, char *buf, size_t cap)
{
    zm_slice_t rest = ep->config, key, value;
    zm_slice_t iface = zm_slice(NULL, 0);
    while (next_param(&rest, &key, &value)) {
        if (!zm_slice_eq(key, zm_slice("iface", 5))) {
            return ZM_E_UNSUPPORTED;
        }
        if (value.len == 0 || value.len > ZM_ENDPOINT_IFACE_MAX) {
            return ZM_E_LOCATOR;
        }
        for (size_t i = 0; i < value.len; i++) {
            if (value.ptr[i] == '/' || value.ptr[i] == '=') {
                return ZM_E_LOCATOR;
            }
        }
        iface = value;
    }
    if (cap <= iface.len) {
        return ZM_E_NO_SPACE;
    }
    if (iface.len > 0) {
        memcpy(buf, iface.ptr, iface.len);
    }
    buf[iface.len] = '\0';
    return Z_OK;
}
#endif

/* Appends n bytes at *pos, keeping room for the NUL; false if they do not fit. */
static bool put(char *buf, size_t cap, size_t *pos, const void *src, size_t n)
{
    if (cap - *pos <= n) {
        return false;
    }
    if (n > 0) {
        memcpy(buf + *pos, src, n);
    }
    *pos += n;
    return true;
}

static bool put_u16(char *buf, size_t cap, size_t *pos, uint16_t v)
{
    char digits[5];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1 - n] = (char)('0' + v % 10u);
        v = (uint16_t)(v / 10u);
        n++;
    } while (v != 0);
    return put(buf, cap, pos, digits + sizeof(digits) - n, n);
}

z_result_t zm_endpoint_to_locator(const zm_endpoint_t *ep, char *buf, size_t cap, size_t *len)
{
    *len = 0;
    if (cap == 0) {
        return ZM_E_NO_SPACE;
    }
    const char *name = zm_link_proto_name(ep->proto);
    size_t pos = 0;
    bool ok = put(buf, cap, &pos, name, strlen(name)) && put(buf, cap, &pos, "/", 1);
    if (ep->proto == ZM_PROTO_SERIAL) {
        ok = ok && put(buf, cap, &pos, ep->address.ptr, ep->address.len);
    } else {
        ok = ok && (!ep->ipv6 || put(buf, cap, &pos, "[", 1)) &&
             put(buf, cap, &pos, ep->host.ptr, ep->host.len) &&
             (!ep->ipv6 || put(buf, cap, &pos, "]", 1)) && put(buf, cap, &pos, ":", 1) &&
             put_u16(buf, cap, &pos, ep->port);
    }
    if (ep->metadata.len > 0) {
        ok = ok && put(buf, cap, &pos, "?", 1) &&
             put(buf, cap, &pos, ep->metadata.ptr, ep->metadata.len);
    }
    if (!ok) {
        buf[0] = '\0';
        return ZM_E_NO_SPACE;
    }
    buf[pos] = '\0';
    *len = pos;
    return Z_OK;
}

z_result_t zm_endpoint_host(const zm_endpoint_t *ep, char *buf, size_t cap)
{
    if (cap <= ep->host.len) {
        return ZM_E_NO_SPACE;
    }
    if (ep->host.len > 0) {
        memcpy(buf, ep->host.ptr, ep->host.len);
    }
    buf[ep->host.len] = '\0';
    return Z_OK;
}
