/*
 * The TLS entry of the link table: Mbed TLS (2.28 or 3.x) over the port's TCP sockets. A TLS
 * link is a stream like TCP, so link.c frames its batches (2-byte length) and buffers its reads;
 * here are only the records. Mbed TLS does its I/O through two callbacks that call the port's
 * socket read and write and never block, and takes its randomness from zm_port_random: a port
 * gets TLS by providing sockets and a cryptographic random source.
 *
 * Reads never wait: a read that finds part of a record, or none, is ZM_E_AGAIN, and link.c's
 * receive that may wait waits for the socket and reads again. So an accepted link's handshake
 * runs inside its reads, one step per call, as the acceptor (transport/accept.c) drives its
 * zenoh handshake: a peer that stalls or sends garbage holds its own slot until its deadline and
 * nobody else. A connecting link finishes its handshake in open, within the open's timeout.
 *
 * One thread reads while another writes (link.h), but an Mbed TLS session is not safe for both
 * at once: each call into it holds the link's lock, and none of them waits inside it (the send
 * callback takes what the socket takes now; a write waits for room outside the lock).
 */
#include "link/tls.h"

#include <string.h>

#include "link/link.h"
#include "util/alloc.h"
#include "util/log.h"

#if Z_FEATURE_LINK_TLS

#include <mbedtls/base64.h>
#include <mbedtls/net_sockets.h> /* MBEDTLS_ERR_NET_*: the callbacks' errors */
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/version.h>
#include <mbedtls/x509_crt.h>

/* ---- what differs between Mbed TLS 2.x and 3.x ----------------------------------------------- */

static int tls_rng(void *p, unsigned char *out, size_t len)
{
    ZM_UNUSED(p);
    zm_port_random(out, len);
    return 0;
}

#if MBEDTLS_VERSION_MAJOR >= 3
#include <psa/crypto.h>
#define pk_parse_key(pk, buf, len) mbedtls_pk_parse_key(pk, buf, len, NULL, 0, tls_rng, NULL)
#define pk_parse_keyfile(pk, path) mbedtls_pk_parse_keyfile(pk, path, NULL, tls_rng, NULL)
/* TLS 1.3 and 3.x's key parsing go through PSA, which must be started once (it may be again). */
#define crypto_start() (psa_crypto_init() == PSA_SUCCESS)
#else
#define pk_parse_key(pk, buf, len) mbedtls_pk_parse_key(pk, buf, len, NULL, 0)
#define pk_parse_keyfile(pk, path) mbedtls_pk_parse_keyfile(pk, path, NULL)
#define crypto_start() true
#endif

/* ---- credentials ------------------------------------------------------------------------------ */

struct zm_tls_creds {
    mbedtls_x509_crt ca, listen_cert, connect_cert;
    mbedtls_pk_context listen_key, connect_key;
    mbedtls_ssl_config client, server;
    bool has_ca, has_listen, has_connect;
    bool client_ok, server_ok; /* client needs the root CA; server its certificate and key */
};

bool zm_tls_config_any(const zm_tls_config_t *cfg)
{
    const char *const all[] = {cfg->root_ca,         cfg->root_ca_base64,     cfg->listen_key,
                               cfg->listen_key_base64, cfg->listen_cert,      cfg->listen_cert_base64,
                               cfg->connect_key,     cfg->connect_key_base64, cfg->connect_cert,
                               cfg->connect_cert_base64, cfg->enable_mtls,    cfg->verify_name};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (all[i] != NULL) {
            return true;
        }
    }
    return false;
}

z_result_t zm_tls_base64_decode(const char *s, uint8_t *out, size_t cap, size_t *n)
{
    int ret = mbedtls_base64_decode(out, cap, n, (const unsigned char *)s, strlen(s));
    if (ret == MBEDTLS_ERR_BASE64_BUFFER_TOO_SMALL) {
        return ZM_E_NO_SPACE;
    }
    return ret == 0 ? Z_OK : ZM_E_FIELD;
}

/* zenoh-pico's reading of a boolean: false if it starts with 0, n or f (any case), else true. */
static bool flag(const char *v, bool dflt)
{
    if (v == NULL) {
        return dflt;
    }
    char c = v[0];
    return !(c == '0' || c == 'n' || c == 'N' || c == 'f' || c == 'F');
}

/*
 * A certificate (key false) or private key (key true) from base64 text or else a file, into obj;
 * *has tells whether either was given. Base64 holds PEM or DER: PEM is parsed with its NUL.
 */
static z_result_t load(void *obj, bool key, const char *file, const char *b64, const char *what, bool *has)
{
    *has = file != NULL || b64 != NULL;
    if (!*has) {
        return Z_OK;
    }
    int ret;
    if (b64 != NULL) {
        size_t cap = strlen(b64) / 4u * 3u + 3u, n = 0;
        uint8_t *der = zm_alloc(cap + 1u);
        if (der == NULL) {
            return ZM_E_NOMEM;
        }
        if (zm_tls_base64_decode(b64, der, cap, &n) != Z_OK) {
            zm_free(der);
            ZM_LOG_E("tls: %s: not base64", what);
            return ZM_E_TLS_CONFIG;
        }
        der[n] = 0;
        size_t len = n > 0 && der[0] == '-' ? n + 1u : n; /* PEM ("-----BEGIN") with its NUL */
        ret = key ? pk_parse_key((mbedtls_pk_context *)obj, der, len)
                  : mbedtls_x509_crt_parse((mbedtls_x509_crt *)obj, der, len);
        zm_free(der);
    } else {
#if defined(MBEDTLS_FS_IO)
        ret = key ? pk_parse_keyfile((mbedtls_pk_context *)obj, file)
                  : mbedtls_x509_crt_parse_file((mbedtls_x509_crt *)obj, file);
#else
        ZM_LOG_E("tls: %s: this Mbed TLS reads no files (MBEDTLS_FS_IO): give it in base64", what);
        return ZM_E_TLS_CONFIG;
#endif
    }
    if (ret != 0) { /* > 0: some certificates of a chain did not parse */
        ZM_LOG_E("tls: %s: cannot read or parse it (mbedtls -0x%x)", what, (unsigned)(ret < 0 ? -ret : ret));
        return ZM_E_TLS_CONFIG;
    }
    return Z_OK;
}

/* The client never accepts a server name that differs, unless verify_name is off. */
static int skip_name(void *p, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
    ZM_UNUSED(p);
    ZM_UNUSED(crt);
    ZM_UNUSED(depth);
    *flags &= ~(uint32_t)MBEDTLS_X509_BADCERT_CN_MISMATCH;
    return 0;
}

static z_result_t conf_base(mbedtls_ssl_config *conf, int endpoint)
{
    if (mbedtls_ssl_config_defaults(conf, endpoint, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT) != 0) {
        return ZM_E_TLS_CONFIG;
    }
    mbedtls_ssl_conf_rng(conf, tls_rng, NULL);
    return Z_OK;
}

static z_result_t creds_make(zm_tls_creds_t *c, const zm_tls_config_t *cfg)
{
    bool mtls = flag(cfg->enable_mtls, false);
    bool has_key;
    ZM_TRY(load(&c->ca, false, cfg->root_ca, cfg->root_ca_base64, "root CA certificate", &c->has_ca));
    ZM_TRY(load(&c->listen_cert, false, cfg->listen_cert, cfg->listen_cert_base64, "listen certificate",
                &c->has_listen));
    ZM_TRY(load(&c->listen_key, true, cfg->listen_key, cfg->listen_key_base64, "listen private key", &has_key));
    if (has_key != c->has_listen) {
        ZM_LOG_E("tls: the listen certificate and private key go together");
        return ZM_E_TLS_CONFIG;
    }
    ZM_TRY(load(&c->connect_cert, false, cfg->connect_cert, cfg->connect_cert_base64, "connect certificate",
                &c->has_connect));
    ZM_TRY(load(&c->connect_key, true, cfg->connect_key, cfg->connect_key_base64, "connect private key", &has_key));
    if (has_key != c->has_connect) {
        ZM_LOG_E("tls: the connect certificate and private key go together");
        return ZM_E_TLS_CONFIG;
    }
    if (mtls && !c->has_ca) {
        ZM_LOG_E("tls: mutual TLS needs the root CA that signs the peers' certificates");
        return ZM_E_TLS_CONFIG;
    }
    if (c->has_ca) {
        ZM_TRY(conf_base(&c->client, MBEDTLS_SSL_IS_CLIENT));
        mbedtls_ssl_conf_authmode(&c->client, MBEDTLS_SSL_VERIFY_REQUIRED);
        mbedtls_ssl_conf_ca_chain(&c->client, &c->ca, NULL);
        if (c->has_connect && mbedtls_ssl_conf_own_cert(&c->client, &c->connect_cert, &c->connect_key) != 0) {
            return ZM_E_TLS_CONFIG;
        }
        if (!flag(cfg->verify_name, true)) {
            mbedtls_ssl_conf_verify(&c->client, skip_name, NULL);
        }
        c->client_ok = true;
    }
    if (c->has_listen) {
        ZM_TRY(conf_base(&c->server, MBEDTLS_SSL_IS_SERVER));
        if (mbedtls_ssl_conf_own_cert(&c->server, &c->listen_cert, &c->listen_key) != 0) {
            return ZM_E_TLS_CONFIG;
        }
        mbedtls_ssl_conf_authmode(&c->server, mtls ? MBEDTLS_SSL_VERIFY_REQUIRED : MBEDTLS_SSL_VERIFY_NONE);
        if (c->has_ca) {
            mbedtls_ssl_conf_ca_chain(&c->server, &c->ca, NULL);
        }
        c->server_ok = true;
    }
    return Z_OK;
}

z_result_t zm_tls_creds_new(zm_tls_creds_t **out, const zm_tls_config_t *cfg)
{
    *out = NULL;
    if (!zm_tls_config_any(cfg)) {
        return Z_OK;
    }
    if (!crypto_start()) {
        return ZM_E_TLS_CONFIG;
    }
    zm_tls_creds_t *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        return ZM_E_NOMEM;
    }
    memset(c, 0, sizeof(*c));
    mbedtls_x509_crt_init(&c->ca);
    mbedtls_x509_crt_init(&c->listen_cert);
    mbedtls_x509_crt_init(&c->connect_cert);
    mbedtls_pk_init(&c->listen_key);
    mbedtls_pk_init(&c->connect_key);
    mbedtls_ssl_config_init(&c->client);
    mbedtls_ssl_config_init(&c->server);
    z_result_t r = creds_make(c, cfg);
    if (r != Z_OK) {
        zm_tls_creds_free(c);
        return r;
    }
    *out = c;
    return Z_OK;
}

void zm_tls_creds_free(zm_tls_creds_t *c)
{
    if (c == NULL) {
        return;
    }
    mbedtls_ssl_config_free(&c->client);
    mbedtls_ssl_config_free(&c->server);
    mbedtls_x509_crt_free(&c->ca);
    mbedtls_x509_crt_free(&c->listen_cert);
    mbedtls_x509_crt_free(&c->connect_cert);
    mbedtls_pk_free(&c->listen_key);
    mbedtls_pk_free(&c->connect_key);
    zm_free(c);
}

/* ---- a TLS session over a socket ---------------------------------------------------------------- */

/* A link's state (l->ctx), on the heap so that the callbacks' pointer survives the link's moves. */
typedef struct {
    zm_socket_t sock;
    mbedtls_ssl_context ssl;
    ZM_IF_THREADS(zm_mutex_t lock;) /* held around every call into ssl */
    size_t pending; /* plaintext of a record a write counted as written before all of it went out */
    bool up;        /* handshake done */
} tls_link_t;

static void lock(tls_link_t *t)
{
    ZM_IF_THREADS(zm_port_mutex_lock(&t->lock);)
    ZM_UNUSED(t);
}

static void unlock(tls_link_t *t)
{
    ZM_IF_THREADS(zm_port_mutex_unlock(&t->lock);)
    ZM_UNUSED(t);
}

/* Mbed TLS's send: what the socket takes now, WANT_WRITE if nothing. */
static int bio_send(void *p, const unsigned char *buf, size_t len)
{
    tls_link_t *t = p;
    size_t n = 0;
    z_result_t r = zm_port_socket_write(&t->sock, buf, len, 0, &n);
    if (n > 0) {
        return (int)n;
    }
    return r == ZM_E_TIMEOUT ? MBEDTLS_ERR_SSL_WANT_WRITE : MBEDTLS_ERR_NET_SEND_FAILED;
}

/* Mbed TLS's receive: what the socket has now, WANT_READ if nothing, 0 at its end. */
static int bio_recv(void *p, unsigned char *buf, size_t len)
{
    tls_link_t *t = p;
    if (zm_port_socket_wait_readable(&t->sock, 0) == ZM_E_TIMEOUT) {
        return MBEDTLS_ERR_SSL_WANT_READ;
    }
    size_t n = 0;
    z_result_t r = zm_port_socket_read(&t->sock, buf, len, &n);
    if (r == Z_OK) {
        return (int)n;
    }
    return r == ZM_E_CLOSED ? 0 : MBEDTLS_ERR_NET_RECV_FAILED;
}

static void tls_link_free(tls_link_t *t, bool close_sock)
{
    mbedtls_ssl_free(&t->ssl);
    ZM_IF_THREADS(zm_port_mutex_destroy(&t->lock);)
    if (close_sock) {
        zm_port_socket_close(&t->sock);
    }
    zm_free(t);
}

static z_result_t tls_link_new(tls_link_t **out, const mbedtls_ssl_config *conf)
{
    tls_link_t *t = zm_alloc(sizeof(*t));
    if (t == NULL) {
        return ZM_E_NOMEM;
    }
    memset(t, 0, sizeof(*t));
    mbedtls_ssl_init(&t->ssl);
#if Z_FEATURE_MULTI_THREAD
    if (zm_port_mutex_init(&t->lock) != Z_OK) {
        mbedtls_ssl_free(&t->ssl);
        zm_free(t);
        return ZM_E_NOMEM;
    }
#endif
    /* setup allocates the record buffers: Mbed TLS's IN and OUT content lengths */
    if (mbedtls_ssl_setup(&t->ssl, conf) != 0) {
        tls_link_free(t, false);
        return ZM_E_NOMEM;
    }
    mbedtls_ssl_set_bio(&t->ssl, t, bio_send, bio_recv, NULL);
    *out = t;
    return Z_OK;
}

/* What a failed handshake's Mbed TLS error and certificate checks say, for the user. */
static z_result_t handshake_error(tls_link_t *t, int ret)
{
    uint32_t flags = mbedtls_ssl_get_verify_result(&t->ssl);
    z_result_t r = ZM_E_TLS_HANDSHAKE;
    if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED && flags != 0 && flags != (uint32_t)-1) {
        if (flags & MBEDTLS_X509_BADCERT_CN_MISMATCH) {
            r = ZM_E_TLS_NAME;
        } else if (flags & (MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE)) {
            r = ZM_E_TLS_EXPIRED;
        } else if (flags & MBEDTLS_X509_BADCERT_NOT_TRUSTED) {
            r = ZM_E_TLS_UNKNOWN_CA;
        }
    } else if (ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE || ret == MBEDTLS_ERR_SSL_CONN_EOF ||
               ret == MBEDTLS_ERR_NET_RECV_FAILED || ret == MBEDTLS_ERR_NET_SEND_FAILED) {
        r = ZM_E_TLS_REFUSED; /* the peer said no, or hung up */
    }
    ZM_LOG_W("tls: handshake failed: %s (mbedtls -0x%x, certificate flags 0x%x)", zm_strerror(r),
             (unsigned)(ret < 0 ? -ret : ret), (unsigned)flags);
    return r;
}

/* One step of the handshake, never waiting: Z_OK once done, ZM_E_AGAIN until then. */
static z_result_t handshake_step(tls_link_t *t)
{
    lock(t);
    int ret = mbedtls_ssl_handshake(&t->ssl);
    unlock(t);
    if (ret == 0) {
        t->up = true;
        return Z_OK;
    }
    if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
        return ZM_E_AGAIN;
    }
    return handshake_error(t, ret);
}

static z_result_t tls_open(zm_link_t *l, const zm_endpoint_t *ep, uint32_t timeout_ms)
{
    if (ep->tls == NULL || !ep->tls->client_ok) {
        ZM_LOG_E("tls: connecting needs a root CA certificate (Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_KEY)");
        return ZM_E_TLS_CONFIG;
    }
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(zm_endpoint_host(ep, host, sizeof(host)));
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    tls_link_t *t;
    ZM_TRY(tls_link_new(&t, &ep->tls->client));
    z_result_t r = zm_port_tcp_connect(&t->sock, host, ep->port, timeout_ms);
    if (r != Z_OK) {
        tls_link_free(t, false);
        return r;
    }
    /* the name the certificate must carry (unless verify_name is off), and the SNI */
    r = mbedtls_ssl_set_hostname(&t->ssl, host) == 0 ? Z_OK : ZM_E_NOMEM;
    while (r == Z_OK && (r = handshake_step(t)) == ZM_E_AGAIN) {
        uint64_t now = zm_port_clock_ms();
        r = now < deadline ? zm_port_socket_wait_readable(&t->sock, (uint32_t)(deadline - now)) : ZM_E_TIMEOUT;
        if (r == ZM_E_TIMEOUT) {
            ZM_LOG_W("tls: handshake timed out");
        }
    }
    if (r != Z_OK) {
        tls_link_free(t, true);
        return r;
    }
    l->ctx = t;
    return Z_OK;
}

static z_result_t tls_local_port(const zm_link_t *l, uint16_t *port)
{
    const tls_link_t *t = l->ctx;
    return zm_port_socket_local_port(&t->sock, port);
}

static z_result_t tls_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    tls_link_t *t = l->ctx;
    if (t->up && mbedtls_ssl_get_bytes_avail(&t->ssl) > 0) {
        return Z_OK;
    }
    return zm_port_socket_wait_readable(&t->sock, timeout_ms);
}

static zm_socket_t *tls_socket(zm_link_t *l) { return &((tls_link_t *)l->ctx)->sock; }

/* Bytes of a record already taken out of the socket wait in Mbed TLS, which no poll sees. */
static bool tls_pending(zm_link_t *l)
{
    tls_link_t *t = l->ctx;
    return t->up && mbedtls_ssl_get_bytes_avail(&t->ssl) > 0;
}

static z_result_t tls_read(zm_link_t *l, uint8_t *buf, size_t len, size_t *n)
{
    tls_link_t *t = l->ctx;
    if (!t->up) {
        ZM_TRY(handshake_step(t)); /* an accepted link's, one step per read */
    }
    for (;;) {
        lock(t);
        int ret = mbedtls_ssl_read(&t->ssl, buf, len);
        unlock(t);
        if (ret > 0) {
            *n = (size_t)ret;
            return Z_OK;
        }
        if (ret == MBEDTLS_ERR_SSL_WANT_READ || ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
            return ZM_E_AGAIN;
        }
#if defined(MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET)
        if (ret == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) {
            continue; /* TLS 1.3 news for a resumption zmote does not do */
        }
#endif
        if (ret != 0 && ret != MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY && ret != MBEDTLS_ERR_SSL_CONN_EOF) {
            ZM_LOG_I("tls: receive failed (mbedtls -0x%x)", (unsigned)-ret);
        }
        return ZM_E_CLOSED;
    }
}

/*
 * Writes as link.h says. A record is encrypted only once the socket has room, so a write that
 * could not start by its deadline leaves nothing behind (ZM_E_TIMEOUT, nothing written). Once
 * encrypted, a record counts as written: if it went out only in part by the deadline, the next
 * write (the batch's rest, by the later deadline) first sends the rest of it, which Mbed TLS
 * keeps, by calling it again as it asks, with the same length.
 */
static z_result_t tls_write(zm_link_t *l, const uint8_t *buf, size_t len, uint64_t deadline_ms, size_t *written)
{
    tls_link_t *t = l->ctx;
    size_t done = 0;
    z_result_t r = t->up ? Z_OK : ZM_E_CLOSED; /* nothing goes out before the handshake (a CLOSE to a newcomer) */
    while (r == Z_OK && (t->pending > 0 || done < len)) {
        r = zm_port_socket_wait_writable(&t->sock, deadline_ms);
        if (r != Z_OK) {
            break;
        }
        size_t want = t->pending > 0 ? t->pending : len - done;
        lock(t);
        int ret = mbedtls_ssl_write(&t->ssl, buf + done, want);
        size_t rec = want;
        if (ret == MBEDTLS_ERR_SSL_WANT_WRITE && t->pending == 0) {
            int max = mbedtls_ssl_get_max_out_record_payload(&t->ssl);
            rec = max > 0 && (size_t)max < want ? (size_t)max : want;
        }
        unlock(t);
        if (ret > 0) {
            if (t->pending > 0) {
                t->pending = 0; /* counted by the write that encrypted it */
            } else {
                done += (size_t)ret;
            }
        } else if (ret == MBEDTLS_ERR_SSL_WANT_WRITE) {
            if (t->pending == 0) {
                t->pending = rec;
                done += rec;
            }
        } else {
            ZM_LOG_I("tls: send failed (mbedtls -0x%x)", (unsigned)-ret);
            r = ZM_E_CLOSED;
        }
    }
    *written = done;
    return r;
}

/* Makes a blocked read or write return: the socket only, which any thread may do. */
static void tls_shutdown(zm_link_t *l) { zm_port_socket_shutdown(&((tls_link_t *)l->ctx)->sock); }

static void tls_close(zm_link_t *l)
{
    tls_link_t *t = l->ctx;
    if (t->up) {
        (void)mbedtls_ssl_close_notify(&t->ssl); /* what fits now: the peer learns it was no attack */
    }
    tls_link_free(t, true);
    l->ctx = NULL;
}

#if Z_FEATURE_UNICAST_PEER
/* ---- the listener: a TCP listener whose links start their handshake as they are read -------------- */

static z_result_t listener_accept(zm_link_t *listener, zm_link_t *out, uint32_t timeout_ms)
{
    zm_socket_t s;
    ZM_TRY(zm_port_tcp_accept(&listener->sock, &s, timeout_ms));
    zm_tls_creds_t *c = listener->ctx;
    tls_link_t *t;
    z_result_t r = tls_link_new(&t, &c->server);
    if (r != Z_OK) {
        zm_port_socket_close(&s);
        return r;
    }
    t->sock = s;
    out->ops = &zm_link_tls_ops;
    out->ctx = t;
    return Z_OK;
}

static z_result_t listener_local_port(const zm_link_t *l, uint16_t *port)
{
    return zm_port_socket_local_port(&l->sock, port);
}

static z_result_t listener_wait_readable(zm_link_t *l, uint32_t timeout_ms)
{
    return zm_port_socket_wait_readable(&l->sock, timeout_ms);
}

static zm_socket_t *listener_socket(zm_link_t *l) { return &l->sock; }

static void listener_shutdown(zm_link_t *l) { zm_port_socket_shutdown(&l->sock); }

static void listener_close(zm_link_t *l) { zm_port_socket_close(&l->sock); }

static const zm_link_ops_t listener_ops = {
    .streamed = true,
    .mtu = ZM_LINK_STREAM_BATCH_MAX,
    .accept = listener_accept,
    .local_port = listener_local_port,
    .wait_readable = listener_wait_readable,
    .socket = listener_socket,
    .shutdown = listener_shutdown,
    .close = listener_close,
};

static z_result_t tls_listen(zm_link_t *l, const zm_endpoint_t *ep)
{
    if (ep->tls == NULL || !ep->tls->server_ok) {
        ZM_LOG_E("tls: listening needs a certificate and its private key (Z_CONFIG_TLS_LISTEN_CERTIFICATE_KEY, "
                 "Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_KEY)");
        return ZM_E_TLS_CONFIG;
    }
    char host[ZM_ENDPOINT_HOST_MAX + 1];
    ZM_TRY(zm_endpoint_host(ep, host, sizeof(host)));
    ZM_TRY(zm_port_tcp_listen(&l->sock, host, ep->port));
    l->ctx = ep->tls;
    l->ops = &listener_ops;
    return Z_OK;
}
#endif /* Z_FEATURE_UNICAST_PEER */

const zm_link_ops_t zm_link_tls_ops = {
    .streamed = true,
    .mtu = ZM_LINK_STREAM_BATCH_MAX,
    .open = tls_open,
    ZM_IF_PEER(.listen = tls_listen,)
    .local_port = tls_local_port,
    .wait_readable = tls_wait_readable,
    .socket = tls_socket,
    .pending = tls_pending,
    .read = tls_read,
    .write = tls_write,
    .shutdown = tls_shutdown,
    .close = tls_close,
};

#endif /* Z_FEATURE_LINK_TLS */
