/*
 * The admin space as zenoh-pico 1.9 has it: one queryable on @/<zid>/pico and below that answers with
 * JSON descriptions of the session, its transport and its peers, each entry at its own key and
 * only when that key intersects the query. Replies go to the querying peer alone.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

#define ADMIN_JSON_MAX 4096u
/* The longest key answered on, @/<zid>/pico/session/transports/0/peers/<zid>, fits with its NUL. */
#define ADMIN_KEY_MAX 112u
_Static_assert(sizeof("@/") + 32 + sizeof("/pico/session/transports/0/peers/") + 32 - 1 <= ADMIN_KEY_MAX,
               "ADMIN_KEY_MAX holds every admin key");
#define ENCODING_APPLICATION_JSON 5u

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
    puts_(t, s->cfg.mode == ZM_MODE_PEER ? "peer" : "client");
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

static void queryable_decl(zm_declaration_t *d, uint32_t id, uint16_t key_id)
{
    memset(d, 0, sizeof(*d));
    d->kind = ZM_DECL_QUERYABLE;
    d->id = id;
    d->wire_expr.scope = key_id;
    d->wire_expr.mapping = ZM_MAPPING_SENDER;
    d->wire_expr.has_suffix = true;
    d->wire_expr.suffix = zm_slice("/**", 3);
}

z_result_t zm_session_admin_stop(zm_session_t *s)
{
    S_LOCK(s);
    uint32_t qid = s->admin_qid;
    uint16_t key_id = s->admin_key_id;
    s->admin_qid = 0;
    s->admin_key_id = 0;
    S_UNLOCK(s);
    if (qid == 0) {
        return Z_OK;
    }
    zm_declaration_t d;
    memset(&d, 0, sizeof(d));
    d.kind = ZM_UNDECL_QUERYABLE;
    d.id = qid;
    d.has_ext_wire = true; /* as Rust writes it: the null wire expression */
    zm_decl_broadcast(s, &d);
    return zm_session_undeclare_keyexpr(s, key_id);
}

static bool admin_declaration(zm_session_t *s, zm_declaration_t *d)
{
    if (s->admin_qid == 0) {
        return false;
    }
    queryable_decl(d, s->admin_qid, s->admin_key_id);
    return true;
}

static void collect_peers(zm_session_t *s, peer_info_t *out, size_t *n)
{
    *n = 0;
    S_LOCK(s);
    for (size_t i = 0; i < ZM_PEERS_MAX; i++) {
        if (s->peers[i].state == PEER_LIVE) {
            out[*n].zid = s->peers[i].t.remote_zid;
            out[*n].whatami = s->peers[i].t.remote_whatami;
            (*n)++;
        }
    }
    S_UNLOCK(s);
}

static void reply(zm_peer_t *p, uint32_t rid, uint8_t qos, const char *key, size_t key_len, const text_t *json)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE;
    m.ext.present = ZM_NET_EXT_RESPONDER;
    m.ext.responder.zid = p->s->zid;
    if (qos != ZM_QOS_DEFAULT) {
        m.ext.present |= ZM_NET_EXT_QOS;
        m.ext.qos = qos;
    }
    zm_response_t *r = &m.body.response;
    r->rid = rid;
    r->wire_expr.mapping = ZM_MAPPING_SENDER;
    r->wire_expr.has_suffix = true;
    r->wire_expr.suffix = zm_slice(key, key_len);
    r->body_id = ZM_MID_REPLY;
    r->body.reply.body_id = ZM_MID_PUT;
    zm_put_t *put_ = &r->body.reply.body.put;
    put_->has_encoding = true;
    put_->encoding.id = ENCODING_APPLICATION_JSON;
    put_->payload = zm_slice(json->buf, json->len);
    zm_peer_send(p, &m, ZM_QOS_PRIO(qos), false);
}

/*
 * What answering a query needs besides the keys, allocated for the answer: the peers (up to
 * ZM_PEERS_MAX of them) would otherwise sit on the receive path's stack with the JSON builder.
 */
typedef struct {
    peer_info_t peers[ZM_PEERS_MAX];
    char json[ADMIN_JSON_MAX];
} answer_t;

static void admin_on_query(zm_peer_t *p, uint32_t rid, uint8_t qos, const char *qkey, size_t qlen)
{
    zm_session_t *s = p->s;
    if (s->admin_qid == 0) {
        return;
    }
    char key[ADMIN_KEY_MAX];
    admin_prefix(s, key, sizeof(key));
    size_t base = strlen(key);
    memcpy(key + base, "/**", 4);
    if (!zm_keyexpr_intersects(key, base + 3, qkey, qlen)) {
        return;
    }
    answer_t *a = zm_alloc(sizeof(*a));
    if (a == NULL) {
        return;
    }
    peer_info_t *peers = a->peers;
    size_t n;
    collect_peers(s, peers, &n);
    text_t json = {a->json, 0, ADMIN_JSON_MAX, false};
    /* the entries in zenoh-pico's order: each key with its JSON, sent if the query wants it */
    static const char *const suffixes[] = {"", "/session", "/session/transports", "/session/transports/0",
                                           "/session/transports/0/peers"};
    for (size_t e = 0; e < ZM_ARRAY_LEN(suffixes) + n; e++) {
        size_t klen = base;
        key[klen] = '\0';
        if (e < ZM_ARRAY_LEN(suffixes)) {
            key_append(key, sizeof(key), &klen, suffixes[e]);
        } else {
            char hex[33];
            zid_hex(&peers[e - ZM_ARRAY_LEN(suffixes)].zid, hex);
            key_append(key, sizeof(key), &klen, "/session/transports/0/peers/");
            key_append(key, sizeof(key), &klen, hex);
        }
        if (!zm_keyexpr_intersects(key, klen, qkey, qlen)) {
            continue;
        }
        json.len = 0;
        json.full = false;
        switch (e) {
        case 0:
            puts_(&json, "{\"session\":");
            put_session(&json, s, peers, n);
            puts_(&json, "}");
            break;
        case 1:
            put_session(&json, s, peers, n);
            break;
        case 2:
            puts_(&json, "[");
            put_transport(&json, s, peers, n);
            puts_(&json, "]");
            break;
        case 3:
            put_transport(&json, s, peers, n);
            break;
        case 4:
            put_peers(&json, peers, n);
            break;
        default:
            put_peer(&json, &peers[e - ZM_ARRAY_LEN(suffixes)]);
            break;
        }
        if (!json.full) {
            reply(p, rid, qos, key, klen, &json);
        }
    }
    zm_free(a);
}

z_result_t zm_session_admin_start(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    S_LOCK(s);
    bool on = s->admin_qid != 0;
    S_UNLOCK(s);
    if (on) {
        return Z_OK;
    }
    char prefix[48];
    admin_prefix(s, prefix, sizeof(prefix));
    uint16_t key_id;
    ZM_TRY(zm_session_declare_keyexpr(s, prefix, strlen(prefix), &key_id));
    static const zm_admin_hooks_t hooks = {admin_declaration, admin_on_query};
    S_LOCK(s);
    atomic_store(&s->admin, &hooks);
    s->admin_key_id = key_id;
    s->admin_qid = s->next_id++;
    uint32_t qid = s->admin_qid;
    S_UNLOCK(s);
    zm_declaration_t d;
    queryable_decl(&d, qid, key_id);
    zm_decl_broadcast(s, &d);
    return Z_OK;
}
