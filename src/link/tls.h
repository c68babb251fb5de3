/*
 * TLS links (`tls/host:port`): Mbed TLS over the port's TCP sockets. The settings are
 * zenoh-pico's configuration keys (Z_CONFIG_TLS_*), each certificate or key a file or a base64
 * string; a session loads and parses them once, when it opens, into a set of credentials that
 * every TLS link of the session borrows (its endpoints carry it: zm_endpoint_t.tls).
 *
 * Memory: a TLS link holds one Mbed TLS session, whose record buffers are Mbed TLS's own
 * MBEDTLS_SSL_IN_CONTENT_LEN + MBEDTLS_SSL_OUT_CONTENT_LEN (plus their record overhead), set
 * where Mbed TLS is built (16 KiB each by default: a peer may send records of 16 KiB, so the
 * input side must keep its default to talk to Rust Zenoh); they come from Mbed TLS's heap
 * (calloc, or the allocator an embedded build gives it), which is why a no-heap build cannot
 * have TLS. Every TLS link is a pending handshake or a peer, so their number has the bounds
 * those have (ZM_ACCEPT_PENDING_MAX, ZM_PEERS_MAX).
 */
#ifndef ZM_LINK_TLS_H
#define ZM_LINK_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

/**
 * The configuration's TLS settings, as strings borrowed from it (NULL: not set). A file key
 * names a PEM or DER file; a base64 key holds the file's content in base64. When both are given
 * the base64 one wins. enable_mtls: a listener requires a certificate from its clients, signed by
 * the root CA, and a client presents its connect certificate. verify_name: a client checks that
 * the server's certificate names the host it connected to (default on).
 */
typedef struct {
    const char *root_ca, *root_ca_base64;
    const char *listen_key, *listen_key_base64;
    const char *listen_cert, *listen_cert_base64;
    const char *connect_key, *connect_key_base64;
    const char *connect_cert, *connect_cert_base64;
    const char *enable_mtls;
    const char *verify_name;
} zm_tls_config_t;

/** A session's parsed credentials and Mbed TLS configurations; read-only once made, so shared
 *  by its links on any thread. */
typedef struct zm_tls_creds zm_tls_creds_t;

#if Z_FEATURE_LINK_TLS

/** True if any TLS setting is given. */
bool zm_tls_config_any(const zm_tls_config_t *cfg);

/**
 * Loads and parses every certificate and key cfg names into *out (NULL, Z_OK when cfg sets
 * nothing). ZM_E_TLS_CONFIG (with a log line naming the setting) for a file that cannot be read,
 * base64 that does not decode, a certificate or key that does not parse, a key without its
 * certificate or a boolean that is neither true nor false; ZM_E_NOMEM.
 */
ZM_NODISCARD z_result_t zm_tls_creds_new(zm_tls_creds_t **out, const zm_tls_config_t *cfg);

/** Frees what zm_tls_creds_new made (NULL allowed), once no link uses it. */
void zm_tls_creds_free(zm_tls_creds_t *c);

/**
 * Decodes the base64 text s (standard alphabet, '=' padding, no whitespace) into out[0..cap),
 * its length into *n. ZM_E_FIELD for text that is not base64, ZM_E_NO_SPACE if cap is short.
 * Exposed for its tests.
 */
ZM_NODISCARD z_result_t zm_tls_base64_decode(const char *s, uint8_t *out, size_t cap, size_t *n);

#else

/* Without TLS links a session makes no credentials, whatever its configuration says. */
static inline z_result_t zm_tls_creds_new(zm_tls_creds_t **out, const zm_tls_config_t *cfg)
{
    ZM_UNUSED(cfg);
    *out = NULL;
    return Z_OK;
}

static inline void zm_tls_creds_free(zm_tls_creds_t *c) { ZM_UNUSED(c); }

#endif /* Z_FEATURE_LINK_TLS */
#endif /* ZM_LINK_TLS_H */
