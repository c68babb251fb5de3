/*
 * Data: puts going out (to the router, or to each peer that declared a matching subscriber,
 * and to local subscribers), and everything a peer sends coming in, on its read thread: key
 * expressions resolved against the peer's or our own declarations, samples built in place
 * from the received batch and handed to the matching subscribers without a copy.
 */
#include <string.h>

#include "keyexpr/keyexpr.h"
#include "session/internal.h"
#include "util/alloc.h"

void zm_put_args_init(zm_put_args_t *a, const char *key, size_t key_len)
{
    memset(a, 0, sizeof(*a));
    a->key = key;
    a->key_len = key_len;
    a->kind = ZM_SAMPLE_PUT;
    a->priority = ZM_PRIO_DATA;
    a->reliable = true;
    a->destination = ZM_LOCALITY_ANY;
}

/*
 * A peer wants a key if it routes (a router), if we do not know its subscribers yet (its
 * initial declarations end with D_FINAL of interest 0; clients never send one), or if it
 * declared an intersecting subscriber.
 */
static bool peer_wants(zm_peer_t *p, const void *arg)
{
    const zm_put_args_t *a = arg;
    if (p->t.remote_whatami != ZM_WAI_PEER || !p->declared) {
        return true;
    }
    for (const zm_decl_t *d = p->rsubs; d != NULL; d = d->next) {
        if (zm_keyexpr_intersects(d->key, d->key_len, a->key, a->key_len)) {
            return true;
        }
    }
    return false;
}

static void push_build(zm_network_msg_t *m, const zm_put_args_t *a)
{
    memset(m, 0, sizeof(*m));
    m->id = ZM_MID_N_PUSH;
    zm_push_t *p = &m->body.push;
    p->wire_expr.mapping = ZM_MAPPING_SENDER;
    if (a->key_id != 0) {
        p->wire_expr.scope = a->key_id;
    } else {
        p->wire_expr.has_suffix = true;
        p->wire_expr.suffix = zm_slice(a->key, a->key_len);
    }
    uint8_t qos = (uint8_t)((a->priority & 7u) | (a->block ? ZM_QOS_BLOCK : 0u) | (a->express ? ZM_QOS_EXPRESS : 0u));
    if (qos != ZM_QOS_DEFAULT) {
        m->ext.present |= ZM_NET_EXT_QOS;
        m->ext.qos = qos;
    }
    if (a->kind == ZM_SAMPLE_PUT) {
        zm_put_t *put = &p->body.put;
        p->body_id = ZM_MID_PUT;
        put->payload = a->payload;
        if (a->timestamp != NULL) {
            put->has_timestamp = true;
            put->timestamp = *a->timestamp;
        }
        if (a->encoding != NULL && !zm_encoding_is_empty(a->encoding)) {
            put->has_encoding = true;
            put->encoding = *a->encoding;
        }
        if (a->source != NULL) {
            put->exts |= ZM_PUT_EXT_SOURCE;
            put->source = *a->source;
        }
        if (a->attachment != NULL) {
            put->exts |= ZM_PUT_EXT_ATTACHMENT;
            put->attachment = *a->attachment;
        }
    } else {
        zm_del_t *del = &p->body.del;
        p->body_id = ZM_MID_DEL;
        if (a->timestamp != NULL) {
            del->has_timestamp = true;
            del->timestamp = *a->timestamp;
        }
        if (a->source != NULL) {
            del->exts |= ZM_DEL_EXT_SOURCE;
            del->source = *a->source;
        }
        if (a->attachment != NULL) {
            del->exts |= ZM_DEL_EXT_ATTACHMENT;
            del->attachment = *a->attachment;
        }
    }
}

static void sample_from_args(zm_sample_t *smp, const zm_put_args_t *a)
{
    memset(smp, 0, sizeof(*smp));
    smp->key = a->key;
    smp->key_len = a->key_len;
    smp->kind = a->kind;
    smp->payload = a->kind == ZM_SAMPLE_PUT ? a->payload : zm_slice(NULL, 0);
    if (a->encoding != NULL && a->kind == ZM_SAMPLE_PUT) {
        smp->encoding = *a->encoding;
    }
    if (a->timestamp != NULL) {
        smp->has_timestamp = true;
        smp->timestamp = *a->timestamp;
    }
    if (a->attachment != NULL) {
        smp->has_attachment = true;
        smp->attachment = *a->attachment;
    }
    if (a->source != NULL) {
        smp->has_source = true;
        smp->source = *a->source;
    }
    smp->priority = a->priority;
    smp->block = a->block;
    smp->express = a->express;
    smp->reliable = a->reliable;
}

z_result_t zm_session_put(zm_session_t *s, const zm_put_args_t *a)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (a->key == NULL || a->key_len == 0 || a->priority > ZM_PRIO_BACKGROUND || a->priority == ZM_PRIO_CONTROL ||
        a->kind > ZM_SAMPLE_DELETE || a->destination > ZM_LOCALITY_REMOTE) {
        return Z_EINVAL;
    }
    z_result_t rc = Z_OK;
    if (a->destination != ZM_LOCALITY_SESSION_LOCAL) {
        zm_peer_t *pinned[ZM_PEERS_MAX];
        size_t n = zm_peers_pin(s, pinned, peer_wants, a);
        if (n > 0) {
            zm_network_msg_t m;
            push_build(&m, a);
            for (size_t i = 0; i < n; i++) {
                z_result_t r = zm_transport_send(&pinned[i]->t, &m, a->reliable, a->priority, a->express);
                if (r != Z_OK) {
                    zm_peer_kill(pinned[i], ZM_CLOSE_GENERIC);
                    rc = r;
                }
            }
            zm_peers_unpin(s, pinned, n);
        } else if (s->cfg.mode == ZM_MODE_CLIENT && !s->cfg.auto_reconnect) {
            rc = ZM_E_CLOSED; /* a client's router is its only peer: gone, and not coming back */
        }
    }
    if (a->destination != ZM_LOCALITY_REMOTE) {
        zm_sample_t smp;
        sample_from_args(&smp, a);
        zm_dispatch(s, &smp, false);
    }
    return rc;
}

static z_result_t batch_each(zm_session_t *s, bool on, bool flush)
{
    zm_peer_t *pinned[ZM_PEERS_MAX];
    size_t n = zm_peers_pin(s, pinned, NULL, NULL);
    z_result_t rc = Z_OK;
    for (size_t i = 0; i < n; i++) {
        zm_transport_set_batching(&pinned[i]->t, on);
        if (flush) {
            z_result_t r = zm_transport_flush(&pinned[i]->t);
            rc = r != Z_OK ? r : rc;
        }
    }
    zm_peers_unpin(s, pinned, n);
    return rc;
}

z_result_t zm_session_batch_start(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    if (s->batching) {
        return Z_EGENERIC;
    }
    s->batching = true;
    return batch_each(s, true, false);
}

z_result_t zm_session_batch_flush(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    return batch_each(s, s->batching, true);
}

z_result_t zm_session_batch_stop(zm_session_t *s)
{
    if (s->closing) {
        return Z_ESESSION_CLOSED;
    }
    s->batching = false;
    return batch_each(s, false, true);
}

/* ---- receiving ---------------------------------------------------------------------------------- */

static const zm_decl_t *decl_find(const zm_decl_t *list, uint32_t id)
{
    while (list != NULL && list->id != id) {
        list = list->next;
    }
    return list;
}

/*
 * The full key of a wire expression: the suffix alone when there is no scope (no copy), else
 * the declared prefix (the peer's table with sender mapping, ours with receiver mapping) and
 * the suffix, joined in the peer's key buffer.
 */
static z_result_t resolve(zm_peer_t *p, const zm_wire_expr_t *we, const char **key, size_t *len)
{
    if (we->scope == 0) {
        *key = (const char *)we->suffix.ptr;
        *len = we->suffix.len;
        return *len > 0 ? Z_OK : ZM_E_KEYEXPR;
    }
    const zm_decl_t *d;
    if (we->mapping == ZM_MAPPING_SENDER) {
        d = decl_find(p->rkeys, we->scope);
    } else {
        S_LOCK(p->s);
        d = decl_find(p->s->keys, we->scope);
        if (d != NULL && d->key_len + we->suffix.len <= sizeof(p->key_buf)) {
            memcpy(p->key_buf, d->key, d->key_len); /* copied under the lock: it may be undeclared */
        }
        S_UNLOCK(p->s);
        if (d == NULL) {
            return ZM_E_KEYEXPR;
        }
        size_t n = d->key_len;
        if (n + we->suffix.len > sizeof(p->key_buf)) {
            return ZM_E_NO_SPACE;
        }
        if (we->suffix.len > 0) {
            memcpy(p->key_buf + n, we->suffix.ptr, we->suffix.len);
        }
        *key = p->key_buf;
        *len = n + we->suffix.len;
        return Z_OK;
    }
    if (d == NULL) {
        return ZM_E_KEYEXPR;
    }
    if (d->key_len + we->suffix.len > sizeof(p->key_buf)) {
        return ZM_E_NO_SPACE;
    }
    memcpy(p->key_buf, d->key, d->key_len);
    if (we->suffix.len > 0) {
        memcpy(p->key_buf + d->key_len, we->suffix.ptr, we->suffix.len);
    }
    *key = p->key_buf;
    *len = d->key_len + we->suffix.len;
    return Z_OK;
}

static void on_push(zm_peer_t *p, const zm_network_msg_t *m, bool reliable)
{
    const zm_push_t *push = &m->body.push;
    zm_sample_t smp;
    memset(&smp, 0, sizeof(smp));
    if (resolve(p, &push->wire_expr, &smp.key, &smp.key_len) != Z_OK) {
        return; /* a key we cannot resolve: nobody here can want it */
    }
    uint8_t qos = (m->ext.present & ZM_NET_EXT_QOS) ? m->ext.qos : ZM_QOS_DEFAULT;
    smp.priority = ZM_QOS_PRIO(qos);
    smp.block = (qos & ZM_QOS_BLOCK) != 0;
    smp.express = (qos & ZM_QOS_EXPRESS) != 0;
    smp.reliable = reliable;
    if (push->body_id == ZM_MID_PUT) {
        const zm_put_t *put = &push->body.put;
        smp.kind = ZM_SAMPLE_PUT;
        smp.payload = put->payload;
        smp.encoding = put->encoding;
        smp.has_timestamp = put->has_timestamp;
        smp.timestamp = put->timestamp;
        smp.has_attachment = (put->exts & ZM_PUT_EXT_ATTACHMENT) != 0;
        smp.attachment = put->attachment;
        smp.has_source = (put->exts & ZM_PUT_EXT_SOURCE) != 0;
        smp.source = put->source;
    } else {
        const zm_del_t *del = &push->body.del;
        smp.kind = ZM_SAMPLE_DELETE;
        smp.has_timestamp = del->has_timestamp;
        smp.timestamp = del->timestamp;
        smp.has_attachment = (del->exts & ZM_DEL_EXT_ATTACHMENT) != 0;
        smp.attachment = del->attachment;
        smp.has_source = (del->exts & ZM_DEL_EXT_SOURCE) != 0;
        smp.source = del->source;
    }
    zm_dispatch(p->s, &smp, true);
}

static void decl_remove(zm_decl_t **list, uint32_t id)
{
    while (*list != NULL) {
        if ((*list)->id == id) {
            zm_decl_t *d = *list;
            *list = d->next;
            zm_free(d);
            return;
        }
        list = &(*list)->next;
    }
}

static void on_declare(zm_peer_t *p, const zm_declare_t *dm)
{
    const zm_declaration_t *d = &dm->decl;
    zm_session_t *s = p->s;
    const char *key;
    size_t len;
    switch (d->kind) {
    case ZM_DECL_KEYEXPR:
        if (resolve(p, &d->wire_expr, &key, &len) == Z_OK) {
            zm_decl_t *k = zm_decl_new(d->id, key, len);
            if (k != NULL) {
                decl_remove(&p->rkeys, d->id); /* a redeclaration replaces */
                k->next = p->rkeys;
                p->rkeys = k;
            }
        }
        break;
    case ZM_UNDECL_KEYEXPR:
        decl_remove(&p->rkeys, d->id);
        break;
    case ZM_DECL_SUBSCRIBER:
        if (resolve(p, &d->wire_expr, &key, &len) == Z_OK) {
            zm_decl_t *sub = zm_decl_new(d->id, key, len);
            if (sub != NULL) {
                S_LOCK(s);
                decl_remove(&p->rsubs, d->id);
                sub->next = p->rsubs;
                p->rsubs = sub;
                S_UNLOCK(s);
            }
        }
        break;
    case ZM_UNDECL_SUBSCRIBER:
        S_LOCK(s);
        decl_remove(&p->rsubs, d->id);
        S_UNLOCK(s);
        break;
    case ZM_DECL_FINAL:
        if (dm->has_interest_id && dm->interest_id == 0) {
            S_LOCK(s);
            p->declared = true; /* its initial declarations are all in */
            S_UNLOCK(s);
        }
        break;
    default:
        break; /* queryables and tokens: not served yet */
    }
}

static void send_or_kill(zm_peer_t *p, const zm_network_msg_t *m, uint8_t prio, bool flush)
{
    if (zm_transport_send(&p->t, m, true, prio, flush) != Z_OK) {
        zm_peer_kill(p, ZM_CLOSE_GENERIC);
    }
}

/* Answers an INTEREST's current part with our matching subscribers, then D_FINAL. */
static void on_interest(zm_peer_t *p, const zm_interest_t *it)
{
    if ((it->mode & ZM_INTEREST_CURRENT) == 0) {
        return; /* future declarations reach every peer anyway */
    }
    zm_session_t *s = p->s;
    const char *rkey = NULL;
    size_t rlen = 0;
    if ((it->options & ZM_INTEREST_R) && resolve(p, &it->wire_expr, &rkey, &rlen) != Z_OK) {
        rkey = NULL;
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = it->id;
    if (it->options & ZM_INTEREST_S) {
        /* each subscriber is pinned like a callback while its declaration is sent unlocked */
        S_LOCK(s);
        for (zm_sub_t *sub = s->subs; sub != NULL; sub = sub->next) {
            if (sub->removed || sub->origin == ZM_LOCALITY_SESSION_LOCAL ||
                (rkey != NULL && !zm_keyexpr_intersects(sub->key, sub->key_len, rkey, rlen))) {
                continue;
            }
            sub->busy++;
            S_UNLOCK(s);
            zm_declaration_t *d = &m.body.declare.decl;
            memset(d, 0, sizeof(*d));
            d->kind = ZM_DECL_SUBSCRIBER;
            d->id = sub->id;
            d->wire_expr.mapping = ZM_MAPPING_SENDER;
            d->wire_expr.has_suffix = true;
            d->wire_expr.suffix = zm_slice(sub->key, sub->key_len);
            send_or_kill(p, &m, ZM_PRIO_CONTROL, false);
            S_LOCK(s);
            sub->busy--;
            S_BROADCAST(s);
        }
        S_UNLOCK(s);
    }
    memset(&m.body.declare.decl, 0, sizeof(m.body.declare.decl));
    m.body.declare.decl.kind = ZM_DECL_FINAL;
    send_or_kill(p, &m, ZM_PRIO_CONTROL, true);
}

/* The admin space is the only queryable yet: it answers, then the final response closes the query. */
static void on_request(zm_peer_t *p, const zm_network_msg_t *req)
{
    const zm_request_t *rq = &req->body.request;
    const char *key;
    size_t len;
    uint8_t qos = (req->ext.present & ZM_NET_EXT_QOS) ? req->ext.qos : ZM_QOS_DEFAULT;
    if (resolve(p, &rq->wire_expr, &key, &len) == Z_OK) {
        zm_admin_on_query(p, rq->rid, qos, key, len);
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof(m));
    m.id = ZM_MID_N_RESPONSE_FINAL;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_REQUEST;
    m.body.response_final.rid = rq->rid;
    send_or_kill(p, &m, ZM_PRIO_DATA, true);
}

void zm_session_on_message(void *ctx, zm_transport_t *t, const zm_network_msg_t *m, bool reliable)
{
    ZM_UNUSED(t);
    zm_peer_t *p = ctx;
    switch (m->id) {
    case ZM_MID_N_PUSH:
        on_push(p, m, reliable);
        break;
    case ZM_MID_N_DECLARE:
        on_declare(p, &m->body.declare);
        break;
    case ZM_MID_N_INTEREST:
        on_interest(p, &m->body.interest);
        break;
    case ZM_MID_N_REQUEST:
        on_request(p, m);
        break;
    default:
        break; /* responses (no queries yet), network OAM */
    }
}
