/*
 * The admin space as zenoh-pico 1.9 has it: under @/<zid>/pico, JSON descriptions of the session,
 * its transport and its peers, each entry at its own key, given for a query only when that key
 * intersects it. This file writes the entries from the session's state; the queryable that
 * serves them is the API's (api/admin.c), an ordinary one of the session, built only with
 * Z_FEATURE_ADMIN_SPACE: its replies are sent from inside its callback, on the receive path, so a
 * firmware that serves it needs more stack than the bound scripts/check-stack.sh checks.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

#if Z_FEATURE_ADMIN_SPACE

#define ADMIN_JSON_MAX 4096u
#define ADMIN_KEY_MAX ZM_ADMIN_KEY_MAX
/* The longest key answered on, @/<zid>/pico/session/transports/0/peers/<zid>, fits with its NUL. */
_Static_assert(sizeof("@/") + 32 + sizeof("/pico/session/transports/0/peers/") + 32 - 1 <= ADMIN_KEY_MAX,
               "ZM_ADMIN_KEY_MAX holds every admin key");

/* 32 lowercase hex digits, most significant byte first, as zenoh-pico prints zids. */
static void zid_hex(const zm_zid_t *zid, char out[33])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15, k = 0; i >= 0; i--, k += 2) {
        uint8_t b = i < zid->len ? zid->id[i] : 0;
        out[k] = digits[b >> 4];
        out[k + 1] = digits[b & 15];
    }
    out[32] = '\0';
}

static const char *whatami_name(uint8_t w)
{
    return w == ZM_WAI_ROUTER ? "router" : w == ZM_WAI_PEER ? "peer" : "client";
}

/* A bounded text builder: a write that does not fit marks it failed, never overflows. */
typedef struct {
    char *buf;
    size_t len, cap;
    bool full;
} text_t;

static void put(text_t *t, const char *s, size_t n)
{
    if (t->full || t->cap - t->len <= n) {
        t->full = true;
        return;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void puts_(text_t *t, const char *s) { put(t, s, strlen(s)); }

/* A JSON string; locators and modes hold no character that needs escaping but '"' and '\'. */
static void put_json_str(text_t *t, const char *s, size_t n)
{
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\') {
            put(t, "\\", 1);
        }
        put(t, s + i, 1);
    }
    put(t, "\"", 1);
}

typedef struct {
    zm_zid_t zid;
    uint8_t whatami;
} peer_info_t;

static void put_peer(text_t *t, const peer_info_t *p)
{
    char hex[33];
    zid_hex(&p->zid, hex);
    puts_(t, "{\"zid\":\"");
    puts_(t, hex);
    puts_(t, "\",\"whatami\":\"");
    puts_(t, whatami_name(p->whatami));
    puts_(t, "\"}");
}

static void put_peers(text_t *t, const peer_info_t *peers, size_t n)
{
    puts_(t, "[");
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            puts_(t, ",");
        }
        put_peer(t, &peers[i]);
    }
    puts_(t, "]");
}

/* The session's own link: the listen endpoint of a listening peer, else the first connect one. */
static void put_link(text_t *t, const zm_session_t *s)
{
    const char *ep = s->cfg.n_listen > 0 ? s->cfg.listen[0] : s->cfg.n_connect > 0 ? s->cfg.connect[0] : "";
    const char *slash = strchr(ep, '/');
    size_t plen = slash != NULL ? (size_t)(slash - ep) : 0;
    const char *addr = slash != NULL ? slash + 1 : ep;
    size_t alen = strcspn(addr, "?#");
    puts_(t, "{\"type\":");
    put_json_str(t, ep, plen);
    puts_(t, ",\"endpoint\":{\"locator\":{\"metadata\":{},\"protocol\":");
    put_json_str(t, ep, plen);
    puts_(t, ",\"address\":");
    put_json_str(t, addr, alen);
    puts_(t, "},\"config\":{}},\"capabilities\":{\"transport\":\"unicast\",\"flow\":\"stream\","
             "\"is_reliable\":true}}");
}

static void put_transport(text_t *t, const zm_session_t *s, const peer_info_t *peers, size_t n)
{
    puts_(t, "{\"type\":\"unicast\",\"link\":");
    put_link(t, s);
    puts_(t, ",\"peers\":");
    put_peers(t, peers, n);
    puts_(t, "}");
}

static void put_session(text_t *t, const zm_session_t *s, const peer_info_t *peers, size_t n)
{
    char hex[33];
    zid_hex(&s->zid, hex);
    puts_(t, "{\"zid\":\"");
    puts_(t, hex);
    puts_(t, "\",\"whatami\":\"");
    puts_(t, zm_session_is_peer(s) ? "peer" : "client");
    puts_(t, "\",\"transports\":[");
    put_transport(t, s, peers, n);
    puts_(t, "]}");
}

/* Appends the NUL-terminated parts to out[*len..cap), cut to fit; out stays NUL-terminated. */
static void key_append(char *out, size_t cap, size_t *len, const char *part)
{
    size_t n = strlen(part);
    if (n > cap - 1 - *len) {
        n = cap - 1 - *len;
    }
    memcpy(out + *len, part, n);
    *len += n;
    out[*len] = '\0';
}

static void admin_prefix(const zm_session_t *s, char *out, size_t cap)
{
    char hex[33];
    zid_hex(&s->zid, hex);
    size_t len = 0;
    out[0] = '\0';
    key_append(out, cap, &len, "@/");
    key_append(out, cap, &len, hex);
    key_append(out, cap, &len, "/pico");
}

static void collect_peers(zm_session_t *s, peer_info_t *out, size_t *n)
{
    *n = 0;
    S_LOCK(s);
    for (size_t i = 0; i < zm_slots_unicast(s); i++) {
        if (s->peers[i].state == PEER_LIVE) {
            out[*n].zid = s->peers[i].t.remote_zid;
            out[*n].whatami = s->peers[i].t.remote_whatami;
            (*n)++;
        }
    }
    S_UNLOCK(s);
}

/*
 * What answering a query needs besides the keys, allocated for the answer: the peers (up to
 * ZM_PEERS_MAX of them) would otherwise sit on the receive path's stack with the JSON builder.
 */
typedef struct {
    peer_info_t peers[ZM_PEERS_MAX];
    char json[ADMIN_JSON_MAX];
    char key[ADMIN_KEY_MAX];
} answer_t;

/* The JSON of entry e (see admin_on_query) into json. */
static void entry_json(text_t *json, zm_session_t *s, size_t e, const peer_info_t *peers, size_t n, size_t n_fixed)
{
    switch (e) {
    case 0:
        puts_(json, "{\"session\":");
        put_session(json, s, peers, n);
        puts_(json, "}");
        break;
    case 1:
        put_session(json, s, peers, n);
        break;
    case 2:
        puts_(json, "[");
        put_transport(json, s, peers, n);
        puts_(json, "]");
        break;
    case 3:
        put_transport(json, s, peers, n);
        break;
    case 4:
        put_peers(json, peers, n);
        break;
    default:
        put_peer(json, &peers[e - n_fixed]);
        break;
    }
}

z_result_t zm_session_admin_answer(zm_session_t *s, const char *query, size_t query_len, zm_admin_entry_fn fn,
                                   void *ctx)
{
    answer_t *a = zm_alloc(sizeof(*a));
    if (a == NULL) {
        return ZM_E_NOMEM;
    }
    char *key = a->key;
    admin_prefix(s, key, ADMIN_KEY_MAX);
    size_t base = strlen(key);
    size_t n;
    collect_peers(s, a->peers, &n);
    text_t json = {a->json, 0, ADMIN_JSON_MAX, false};
    /* the entries in zenoh-pico's order: each key with its JSON, sent if the query wants it */
    static const char *const suffixes[] = {"", "/session", "/session/transports", "/session/transports/0",
                                           "/session/transports/0/peers"};
    for (size_t e = 0; e < ZM_ARRAY_LEN(suffixes) + n; e++) {
        size_t klen = base;
        key[klen] = '\0';
        if (e < ZM_ARRAY_LEN(suffixes)) {
            key_append(key, ADMIN_KEY_MAX, &klen, suffixes[e]);
        } else {
            char hex[33];
            zid_hex(&a->peers[e - ZM_ARRAY_LEN(suffixes)].zid, hex);
            key_append(key, ADMIN_KEY_MAX, &klen, "/session/transports/0/peers/");
            key_append(key, ADMIN_KEY_MAX, &klen, hex);
        }
        if (!zm_keyexpr_intersects(key, klen, query, query_len)) {
            continue;
        }
        json.len = 0;
        json.full = false;
        entry_json(&json, s, e, a->peers, n, ZM_ARRAY_LEN(suffixes));
        if (!json.full) {
            fn(key, klen, json.buf, json.len, ctx);
        }
    }
    zm_free(a);
    return Z_OK;
}

size_t zm_session_admin_key(const zm_session_t *s, char out[ZM_ADMIN_KEY_MAX])
{
    admin_prefix(s, out, ADMIN_KEY_MAX);
    size_t len = strlen(out);
    memcpy(out + len, "/**", 4);
    return len + 3;
}

#endif /* Z_FEATURE_ADMIN_SPACE */
