/*
 * Scouting: the scout and the responder of transport/scout.h. Each datagram is one SCOUT or
 * HELLO, decoded in place from a buffer on the stack; nothing is allocated. What a remote node
 * can make either side hold is fixed: the scout remembers at most ZM_SCOUT_SEEN_MAX zids and ends
 * at its deadline however fast HELLOs come, the responder reads a bounded burst per wake-up and
 * answers a SCOUT with exactly one HELLO.
 */
#include "transport/scout.h"

#include <string.h>

#include "proto/codec.h"
#include "util/log.h"

#if Z_FEATURE_SCOUTING

/* Rust's SCOUT schedule: the first at once, the next after 1 s, then twice as long each time up
 * to 8 s. */
#define SCOUT_FIRST_PERIOD_MS 1000u
#define SCOUT_MAX_PERIOD_MS 8000u
/* A cancellable scout looks at its flag at least this often. */
#define SCOUT_CANCEL_SLICE_MS 100u
/* How long a SCOUT or a HELLO may wait for room in the socket. */
#define SEND_WAIT_MS 100u
/* A SCOUT: header, version, flags, a 16-byte zid; room for nothing else. */
#define SCOUT_BUF_SIZE 24u
/* SCOUTs are read into this much; a longer datagram is no SCOUT we answer. */
#define SCOUT_RX_SIZE 128u
/* Room for an address formatted by the port, `[v6]:port` with its NUL. */
#define ADDR_TEXT_MAX 64u

/* ---- the group -------------------------------------------------------------------------------- */

static bool slice_is(zm_slice_t s, const char *text)
{
    size_t n = strlen(text);
    return s.len == n && memcmp(s.ptr, text, n) == 0;
}

/* The `#k=v;k2=v2` part of a scouting locator: `iface` only. */
static z_result_t group_config(zm_scout_group_t *g, zm_slice_t cfg)
{
    while (cfg.len > 0) {
        const uint8_t *semi = memchr(cfg.ptr, ';', cfg.len);
        size_t len = semi != NULL ? (size_t)(semi - cfg.ptr) : cfg.len;
        zm_slice_t entry = zm_slice(cfg.ptr, len);
        cfg = semi != NULL ? zm_slice(semi + 1, cfg.len - len - 1) : zm_slice(cfg.ptr + len, 0);
        if (entry.len == 0) {
            continue;
        }
        const uint8_t *eq = memchr(entry.ptr, '=', entry.len);
        if (eq == NULL || eq == entry.ptr) {
            return ZM_E_LOCATOR;
        }
        zm_slice_t key = zm_slice(entry.ptr, (size_t)(eq - entry.ptr));
        zm_slice_t value = zm_slice(eq + 1, entry.len - key.len - 1);
        if (!slice_is(key, "iface")) {
            return ZM_E_UNSUPPORTED;
        }
        if (value.len == 0 || value.len > ZM_SCOUT_IFACE_MAX) {
            return ZM_E_LOCATOR;
        }
        for (size_t i = 0; i < value.len; i++) {
            if (value.ptr[i] <= 0x20 || value.ptr[i] >= 0x7f || value.ptr[i] == '?' || value.ptr[i] == '#') {
                return ZM_E_LOCATOR;
            }
        }
        memcpy(g->iface, value.ptr, value.len);
        g->iface[value.len] = '\0';
    }
    return Z_OK;
}

z_result_t zm_scout_group_parse(zm_scout_group_t *g, const char *locator)
{
    memset(g, 0, sizeof(*g));
    size_t len = strlen(locator);
    const char *hash = memchr(locator, '#', len);
    size_t ep_len = hash != NULL ? (size_t)(hash - locator) : len;
    zm_endpoint_t ep;
    ZM_TRY(zm_endpoint_parse(&ep, locator, ep_len, ZM_ENDPOINT_CONNECT));
    if (ep.proto != ZM_PROTO_UDP) {
        return ZM_E_LOCATOR; /* scouting goes over UDP */
    }
    if (ep.metadata.len > 0) {
        return ZM_E_UNSUPPORTED;
    }
    if (ep.ipv6) {
        /* ff00::/8 is a group, but the port scouts over IPv4 only */
        bool group = ep.host.len >= 2 && (ep.host.ptr[0] | 0x20) == 'f' && (ep.host.ptr[1] | 0x20) == 'f';
        return group ? ZM_E_UNSUPPORTED : ZM_E_LOCATOR;
    }
    uint8_t ip[4];
    if (!zm_endpoint_ipv4(ep.host, ip) || ip[0] < 224 || ip[0] > 239) {
        return ZM_E_LOCATOR; /* a name, or not in 224.0.0.0/4 */
    }
    memcpy(g->group, ep.host.ptr, ep.host.len);
    g->group[ep.host.len] = '\0';
    g->port = ep.port;
    if (hash != NULL) {
        ZM_TRY(group_config(g, zm_slice(hash + 1, len - ep_len - 1)));
    }
    return Z_OK;
}

/* ---- the scout ---------------------------------------------------------------------------------- */

/*
 * The nodes a scout has reported, so that a node answering each SCOUT is reported once: a zid
 * with a hash of its locators, so that a HELLO that takes another node's zid does not hide it.
 */
typedef struct {
    zm_zid_t zid[ZM_SCOUT_SEEN_MAX];
    uint32_t where[ZM_SCOUT_SEEN_MAX];
    unsigned n;
} seen_t;

static bool zid_eq(const zm_zid_t *a, const zm_zid_t *b)
{
    return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

/* FNV-1a of a HELLO's locators, to tell a node's HELLO from another that borrows its zid. */
static uint32_t locators_hash(zm_slice_t l)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < l.len; i++) {
        h = (h ^ l.ptr[i]) * 16777619u;
    }
    return h;
}

/* True if the node is new; it is remembered while there is room (past it, a node may repeat). */
static bool seen_add(seen_t *seen, const zm_hello_t *h)
{
    uint32_t where = locators_hash(h->locators);
    for (unsigned i = 0; i < seen->n; i++) {
        if (zid_eq(&seen->zid[i], &h->zid) && seen->where[i] == where) {
            return false;
        }
    }
    if (seen->n < ZM_SCOUT_SEEN_MAX) {
        seen->zid[seen->n] = h->zid;
        seen->where[seen->n++] = where;
    }
    return true;
}

static z_result_t scout_send(zm_socket_t *sock, const zm_addr_t *to, const zm_scout_params_t *p)
{
    zm_scouting_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_SCOUT;
    m.body.scout.version = ZM_PROTO_VERSION;
    m.body.scout.what = (uint8_t)(p->what & 0x07u);
    if (p->zid != NULL) {
        m.body.scout.has_zid = true;
        m.body.scout.zid = *p->zid;
    }
    uint8_t buf[SCOUT_BUF_SIZE];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    ZM_TRY(zm_scouting_encode(&w, &m));
    return zm_port_udp_send(sock, buf, w.len, to, zm_port_clock_ms() + SEND_WAIT_MS);
}

/* One datagram taken from the socket: a HELLO of a new node of a kind asked for goes to fn. */
static bool scout_take(uint8_t *buf, size_t n, uint8_t what, seen_t *seen, zm_scout_hello_fn fn, void *ctx)
{
    zm_reader_t r;
    zm_reader_init(&r, buf, n);
    zm_scouting_msg_t m;
    if (zm_scouting_decode(&r, &m) != Z_OK || m.id != ZM_MID_HELLO) {
        return false; /* malformed, or a SCOUT: nothing a scout reads */
    }
    const zm_hello_t *h = &m.body.hello;
    if ((what & (1u << h->whatami)) == 0 || !seen_add(seen, h)) {
        return false;
    }
    return fn(h, ctx);
}

z_result_t zm_scout_exchange(zm_socket_t *sock, const zm_addr_t *to, const zm_scout_params_t *p,
                             zm_scout_hello_fn fn, void *ctx)
{
    seen_t seen;
    seen.n = 0;
    uint8_t buf[ZM_SCOUT_HELLO_MAX];
    uint64_t now = zm_port_clock_ms();
    uint64_t deadline = now + p->timeout_ms;
    uint64_t next_send = now;
    uint32_t period = SCOUT_FIRST_PERIOD_MS;
    unsigned late = 0; /* datagrams taken past the deadline */
    for (;;) {
        if (p->cancel != NULL && atomic_load(p->cancel)) {
            return Z_OK;
        }
        now = zm_port_clock_ms();
        bool over = now >= deadline;
        if (!over && now >= next_send) {
            ZM_TRY(scout_send(sock, to, p));
            next_send = now + period;
            period = period * 2u <= SCOUT_MAX_PERIOD_MS ? period * 2u : SCOUT_MAX_PERIOD_MS;
        }
        /* past the deadline, the HELLOs that came while fn ran are still taken, a bounded
         * number of them, without waiting for more */
        if (over && late++ == ZM_SCOUT_SEEN_MAX) {
            return Z_OK;
        }
        uint64_t until = deadline < next_send ? deadline : next_send;
        uint64_t wait = over ? 0u : until - now;
        if (p->cancel != NULL && wait > SCOUT_CANCEL_SLICE_MS) {
            wait = SCOUT_CANCEL_SLICE_MS;
        }
        z_result_t rc = zm_port_socket_wait_readable(sock, (uint32_t)wait);
        if (rc == ZM_E_TIMEOUT) {
            if (over) {
                return Z_OK;
            }
            continue;
        }
        ZM_TRY(rc);
        size_t n = 0;
        rc = zm_port_udp_recv(sock, buf, sizeof(buf), &n, NULL);
        if (rc == ZM_E_FIELD) {
            continue; /* longer than any HELLO we read: dropped whole */
        }
        ZM_TRY(rc);
        if (scout_take(buf, n, p->what, &seen, fn, ctx)) {
            return Z_OK;
        }
    }
}

z_result_t zm_scout_run(const zm_scout_group_t *g, const zm_scout_params_t *p, zm_scout_hello_fn fn, void *ctx)
{
    zm_addr_t to;
    z_result_t rc = zm_port_addr_resolve(&to, g->group, g->port);
    if (rc != Z_OK) {
        return ZM_E_LOCATOR; /* a literal that the resolver refuses */
    }
    zm_socket_t sock;
    rc = zm_port_udp_sender(&sock, g->iface[0] != '\0' ? g->iface : NULL, ZM_SCOUT_TTL);
    if (rc != Z_OK) {
        if (g->iface[0] != '\0') {
            ZM_LOG_W("scouting: no socket on interface %s (%s)", g->iface, zm_strerror(rc));
        }
        return rc;
    }
    rc = zm_scout_exchange(&sock, &to, p, fn, ctx);
    if (rc != Z_OK) {
        ZM_LOG_W("scouting on %s:%u failed: %s", g->group, (unsigned)g->port, zm_strerror(rc));
    }
    zm_port_socket_close(&sock);
    return rc;
}

bool zm_scout_locator_dialable(const zm_endpoint_t *ep)
{
    uint8_t ip[4];
    bool ip_link = (ep->proto == ZM_PROTO_TCP || ep->proto == ZM_PROTO_UDP) && zm_link_ops_for(ep->proto) != NULL;
    bool group = (Z_FEATURE_LINK_UDP_MULTICAST || Z_FEATURE_LINK_UDP_UNICAST) && zm_endpoint_is_multicast(ep);
    return ip_link && !group && (ep->ipv6 || zm_endpoint_ipv4(ep->host, ip));
}

/* ---- the responder ------------------------------------------------------------------------------- */
#if ZM_SCOUT_RESPONDER

/* The answers' bucket: a second's worth of answers at most, one more every ANSWER_COST_MS. */
#define ANSWER_COST_MS (1000u / ZM_SCOUT_ANSWER_RATE)
#define ANSWER_BUCKET_MS (ANSWER_COST_MS * ZM_SCOUT_ANSWER_RATE)

static zm_socket_t *responder_socket(zm_link_t *l) { return &l->sock; }

static z_result_t responder_wait(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_port_socket_wait_readable(&l->sock, timeout_ms);
}

static void responder_shutdown_op(zm_link_t *l) { zm_port_socket_shutdown(&l->sock); }

static void responder_close_op(zm_link_t *l) { zm_port_socket_close(&l->sock); }

/* Not a link that carries batches: only what a wait over many links and close look at. */
static const zm_link_ops_t responder_ops = {
    .wait_readable = responder_wait,
    .socket = responder_socket,
    .shutdown = responder_shutdown_op,
    .close = responder_close_op,
};

void zm_scout_responder_init(zm_scout_responder_t *r, zm_socket_t sock)
{
    memset(r, 0, sizeof(*r));
    r->link.ops = &responder_ops;
    r->link.proto = ZM_PROTO_UDP;
    r->link.sock = sock;
}

z_result_t zm_scout_responder_open(zm_scout_responder_t *r, const zm_scout_group_t *g)
{
    zm_socket_t sock;
    memset(r, 0, sizeof(*r));
    ZM_TRY(zm_port_udp_join(&sock, g->group, g->port, g->iface[0] != '\0' ? g->iface : NULL, ZM_SCOUT_TTL));
    zm_scout_responder_init(r, sock);
    return Z_OK;
}

void zm_scout_responder_shutdown(zm_scout_responder_t *r) { zm_link_shutdown(&r->link); }

void zm_scout_responder_close(zm_scout_responder_t *r) { zm_link_close(&r->link); }

/* The host of a formatted address (`1.2.3.4:5` or `[::1]:5`), into host, and its port. */
static bool split_addr(const char *text, char *host, size_t cap, uint16_t *port)
{
    const char *colon = strrchr(text, ':');
    if (colon == NULL) {
        return false;
    }
    const char *start = text;
    const char *end = colon;
    if (*start == '[') {
        start++;
        if (end == start || end[-1] != ']') {
            return false;
        }
        end--;
    }
    size_t n = (size_t)(end - start);
    unsigned long v = 0;
    for (const char *d = colon + 1; *d != '\0'; d++) {
        if (*d < '0' || *d > '9' || v > 65535u) {
            return false;
        }
        v = v * 10u + (unsigned long)(*d - '0');
    }
    if (n == 0 || n >= cap || v == 0 || v > 65535u) {
        return false;
    }
    memcpy(host, start, n);
    host[n] = '\0';
    *port = (uint16_t)v;
    return true;
}

static bool host_is_loopback(zm_slice_t host, bool ipv6)
{
    if (ipv6) {
        return slice_is(host, "::1");
    }
    return slice_is(host, "localhost") || (host.len > 4 && memcmp(host.ptr, "127.", 4) == 0);
}

static bool host_is_unspecified(zm_slice_t host, bool ipv6)
{
    return ipv6 ? slice_is(host, "::") : slice_is(host, "0.0.0.0");
}

bool zm_scout_locator_is_loopback(const char *locator)
{
    zm_endpoint_t ep;
    return zm_endpoint_parse(&ep, locator, strlen(locator), ZM_ENDPOINT_LISTEN) == Z_OK &&
           ep.proto != ZM_PROTO_SERIAL && host_is_loopback(ep.host, ep.ipv6);
}

/*
 * Appends self's locators, as the scout sees them, to w as n x <locator;z8>: local is the
 * address (host only) our answer leaves from, which replaces an unspecified one.
 */
static z_result_t hello_locators(zm_writer_t *w, const zm_scout_self_t *self, const char *local, bool to_loopback,
                                 uint32_t *count)
{
    char text[ZM_LOCATOR_MAX + 1];
    *count = 0;
    for (size_t i = 0; i < self->n_locators; i++) {
        zm_endpoint_t ep;
        const char *l = self->locators[i];
        if (zm_endpoint_parse(&ep, l, strlen(l), ZM_ENDPOINT_LISTEN) != Z_OK || ep.proto == ZM_PROTO_SERIAL) {
            continue; /* reached over a line, not the network the scout came from */
        }
        if (host_is_unspecified(ep.host, ep.ipv6)) {
            ep.host = zm_slice(local, strlen(local));
            ep.ipv6 = memchr(local, ':', strlen(local)) != NULL;
        } else if (!to_loopback && host_is_loopback(ep.host, ep.ipv6)) {
            continue; /* an address that means this very machine, to another one */
        }
        size_t len;
        if (zm_endpoint_to_locator(&ep, text, sizeof(text), &len) != Z_OK) {
            continue;
        }
        ZM_TRY(zm_write_zint(w, len));
        ZM_TRY(zm_write_bytes(w, text, len));
        (*count)++;
    }
    return Z_OK;
}

/* One HELLO to the scout at from, from a socket connected to it: the system picks the source
 * address that reaches it, and that address is the one announced for an unspecified listener. */
static z_result_t answer(const zm_scout_self_t *self, const zm_addr_t *from)
{
    char text[ADDR_TEXT_MAX];
    char host[ADDR_TEXT_MAX];
    uint16_t port;
    if (zm_port_addr_format(from, text, sizeof(text)) == 0 || !split_addr(text, host, sizeof(host), &port)) {
        return ZM_E_FIELD;
    }
    zm_socket_t sock;
    ZM_TRY(zm_port_udp_open(&sock, host, port, true));
    zm_addr_t local_addr;
    char local[ADDR_TEXT_MAX];
    uint16_t local_port;
    z_result_t rc = zm_port_udp_local_addr(&sock, &local_addr);
    if (rc == Z_OK && (zm_port_addr_format(&local_addr, text, sizeof(text)) == 0 ||
                       !split_addr(text, local, sizeof(local), &local_port))) {
        rc = ZM_E_FIELD;
    }
    uint8_t locs[ZM_LOCATOR_MAX + 2];
    zm_writer_t lw;
    zm_writer_init(&lw, locs, sizeof(locs));
    uint32_t count = 0;
    if (rc == Z_OK) {
        size_t hl = strlen(host);
        bool to_loopback = host_is_loopback(zm_slice(host, hl), memchr(host, ':', hl) != NULL);
        rc = hello_locators(&lw, self, local, to_loopback, &count);
    }
    if (rc == Z_OK) {
        zm_scouting_msg_t m;
        memset(&m, 0, sizeof(m));
        m.id = ZM_MID_HELLO;
        m.body.hello.version = ZM_PROTO_VERSION;
        m.body.hello.whatami = self->whatami;
        m.body.hello.zid = self->zid;
        m.body.hello.has_locators = count > 0;
        m.body.hello.locator_count = count;
        m.body.hello.locators = zm_slice(locs, lw.len);
        uint8_t buf[SCOUT_BUF_SIZE + ZM_ZINT_MAX_LEN + sizeof(locs)];
        zm_writer_t w;
        zm_writer_init(&w, buf, sizeof(buf));
        rc = zm_scouting_encode(&w, &m);
        if (rc == Z_OK) {
            rc = zm_port_udp_send(&sock, buf, w.len, NULL, zm_port_clock_ms() + SEND_WAIT_MS);
        }
    }
    zm_port_socket_close(&sock);
    return rc;
}

/*
 * Takes one answer from the bucket; false (the SCOUT is dropped) when it is empty. A flood of
 * SCOUTs, from one source or many, costs at most ZM_SCOUT_ANSWER_RATE HELLOs a second; one
 * log line says when the dropping starts, after the bucket was last full.
 */
static bool answer_allowed(zm_scout_responder_t *r)
{
    uint64_t now = zm_port_clock_ms();
    uint64_t full = now > ANSWER_BUCKET_MS ? now - ANSWER_BUCKET_MS : 0u;
    if (r->empty_at <= full) {
        r->empty_at = full;
        r->dropping = false;
    }
    if (now - r->empty_at < ANSWER_COST_MS) {
        if (!r->dropping) {
            ZM_LOG_W("scouting: more than %u SCOUTs a second, the rest go unanswered", (unsigned)ZM_SCOUT_ANSWER_RATE);
            r->dropping = true;
        }
        return false;
    }
    r->empty_at += ANSWER_COST_MS;
    return true;
}

z_result_t zm_scout_responder_serve(zm_scout_responder_t *r, const zm_scout_self_t *self, unsigned *answered)
{
    unsigned done = 0;
    z_result_t rc = Z_OK;
    for (unsigned i = 0; i < ZM_SCOUT_ANSWER_BURST; i++) {
        rc = zm_port_socket_wait_readable(&r->link.sock, 0);
        if (rc == ZM_E_TIMEOUT) {
            rc = Z_OK;
            break;
        }
        if (rc != Z_OK) {
            break;
        }
        uint8_t buf[SCOUT_RX_SIZE];
        size_t n = 0;
        zm_addr_t from;
        rc = zm_port_udp_recv(&r->link.sock, buf, sizeof(buf), &n, &from);
        if (rc == ZM_E_FIELD) {
            rc = Z_OK;
            continue; /* longer than any SCOUT: not one we answer */
        }
        if (rc != Z_OK) {
            break;
        }
        zm_reader_t rd;
        zm_reader_init(&rd, buf, n);
        zm_scouting_msg_t m;
        if (zm_scouting_decode(&rd, &m) != Z_OK || m.id != ZM_MID_SCOUT) {
            continue; /* malformed, or a HELLO sent to the group: not for us */
        }
        const zm_scout_t *sc = &m.body.scout;
        if ((sc->what & (1u << self->whatami)) == 0 || (sc->has_zid && zid_eq(&sc->zid, &self->zid))) {
            continue; /* asks for other kinds, or is our own */
        }
        if (!answer_allowed(r)) {
            continue;
        }
        if (answer(self, &from) == Z_OK) {
            done++;
        }
    }
    if (answered != NULL) {
        *answered = done;
    }
    return rc;
}
#endif /* ZM_SCOUT_RESPONDER */

#endif /* Z_FEATURE_SCOUTING */
