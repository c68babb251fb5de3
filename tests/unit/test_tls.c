/*
 * TLS links below the session: the base64 decoding of configured certificates and keys, every
 * way a configuration is refused, and a client and a listener of zmote's own exchanging batches
 * of every size over loopback, a batch larger than a TLS record among them, echoed by a task
 * whose blocking receives run the accepted link's handshake. The certificate is self-signed for
 * localhost (its own CA), valid until 2126.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "link/link.h"
#include "link/tls.h"

#if !Z_FEATURE_MULTI_THREAD || !Z_FEATURE_UNICAST_PEER
#error "test_tls runs a listener and an echo task: it needs threads and listening peers"
#endif

static const char CERT_PEM_B64[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJtekNDQVVHZ0F3SUJBZ0lVRkI4cFVWcGo0SlArV1FwSUZWRG5ZTVlq"
    "ekVRd0NnWUlLb1pJemowRUF3SXcKRkRFU01CQUdBMVVFQXd3SmJHOWpZV3hvYjNOME1DQVhEVEkyTVRFeU9ERXpORGt3T0Zv"
    "WUR6SXhNall4TVRBMApNVE0wT1RBNFdqQVVNUkl3RUFZRFZRUUREQWxzYjJOaGJHaHZjM1F3V1RBVEJnY3Foa2pPUFFJQkJn"
    "Z3Foa2pPClBRTUJCd05DQUFURHh0WTRkdjd3T0Y5UlBzSmpJQisyQjlrdmFMVnJTQ2N4SGhIby9ySStwRHNkMFV6Yi9nVFUK"
    "UnN3TC9wc3dZa2lPdjZwdGUxWTFmdkdHVFZwaHp1elVvMjh3YlRBZEJnTlZIUTRFRmdRVWkweVVhZE5DNXY0bwp1MS96TzRj"
    "M2ZNVG9sRUl3SHdZRFZSMGpCQmd3Rm9BVWkweVVhZE5DNXY0b3UxL3pPNGMzZk1Ub2xFSXdHZ1lEClZSMFJCQk13RVlJSmJH"
    "OWpZV3hvYjNOMGh3Ui9BQUFCTUE4R0ExVWRFd0VCL3dRRk1BTUJBZjh3Q2dZSUtvWkkKemowRUF3SURTQUF3UlFJZ1RnaFZH"
    "RlZwSjg0STJqQmRxVmFOc21RSWM4ZE9iNjNtVnJ1bmgwQUZyQWNDSVFDOQpQTEs0SjJhQ0lLb0F5RnpwcWNBQ2pncEdkN242"
    "L0tDbW9RMlJ2SVllM0E9PQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==";

static const char KEY_PEM_B64[] =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JR0hBZ0VBTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEJHMHdhd0lC"
    "QVFRZ0pucVQ3OTUyWGxvT2NRZTIKNGdabmJic3hWS1RHSmRoYkpIeUlnckl6ZWF5aFJBTkNBQVREeHRZNGR2N3dPRjlSUHNK"
    "aklCKzJCOWt2YUxWcgpTQ2N4SGhIby9ySStwRHNkMFV6Yi9nVFVSc3dML3Bzd1lraU92NnB0ZTFZMWZ2R0dUVnBoenV6VQot"
    "LS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg==";

static const char CERT_DER_B64[] =
    "MIIBmzCCAUGgAwIBAgIUFB8pUVpj4JP+WQpIFVDnYMYjzEQwCgYIKoZIzj0EAwIwFDESMBAGA1UEAwwJbG9jYWxob3N0MCAX"
    "DTI2MTEyODEzNDkwOFoYDzIxMjYxMTA0MTM0OTA4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO"
    "PQMBBwNCAATDxtY4dv7wOF9RPsJjIB+2B9kvaLVrSCcxHhHo/rI+pDsd0Uzb/gTURswL/pswYkiOv6pte1Y1fvGGTVphzuzU"
    "o28wbTAdBgNVHQ4EFgQUi0yUadNC5v4ou1/zO4c3fMTolEIwHwYDVR0jBBgwFoAUi0yUadNC5v4ou1/zO4c3fMTolEIwGgYD"
    "VR0RBBMwEYIJbG9jYWxob3N0hwR/AAABMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgTghVGFVpJ84I2jBd"
    "qVaNsmQIc8dOb63mVrunh0AFrAcCIQC9PLK4J2aCIKoAyFzpqcACjgpGd7n6/KCmoQ2RvIYe3A==";

#define BIG_CAP (65535u + ZM_LINK_HEADROOM)

static void test_base64(void)
{
    uint8_t out[16];
    size_t n = 99;
    CHECK_EQ_INT(zm_tls_base64_decode("", out, sizeof(out), &n), Z_OK);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(zm_tls_base64_decode("aGVsbG8=", out, sizeof(out), &n), Z_OK);
    CHECK_EQ_MEM(out, n, "hello", 5);
    CHECK_EQ_INT(zm_tls_base64_decode("AAECAw==", out, sizeof(out), &n), Z_OK);
    CHECK_EQ_MEM(out, n, "\x00\x01\x02\x03", 4);
    CHECK_EQ_INT(zm_tls_base64_decode("aGVs$G8=", out, sizeof(out), &n), ZM_E_FIELD);
    CHECK_EQ_INT(zm_tls_base64_decode("aGVsbG8=aGVs", out, sizeof(out), &n), ZM_E_FIELD); /* past its padding */
    CHECK_EQ_INT(zm_tls_base64_decode("a===", out, sizeof(out), &n), ZM_E_FIELD);
    CHECK_EQ_INT(zm_tls_base64_decode("aGVsbG8gd29ybGQh", out, 4, &n), ZM_E_NO_SPACE);
}

static z_result_t creds(const zm_tls_config_t *cfg)
{
    zm_tls_creds_t *c = (zm_tls_creds_t *)1;
    z_result_t r = zm_tls_creds_new(&c, cfg);
    CHECK(r == Z_OK || c == NULL);
    zm_tls_creds_free(c);
    return r;
}

static void test_config(void)
{
    zm_tls_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    zm_tls_creds_t *c = (zm_tls_creds_t *)1;
    CHECK_EQ_INT(zm_tls_creds_new(&c, &cfg), Z_OK); /* nothing set: no credentials */
    CHECK(c == NULL);
    cfg.root_ca_base64 = CERT_PEM_B64;
    CHECK_EQ_INT(creds(&cfg), Z_OK);
    cfg.root_ca_base64 = CERT_DER_B64;
    CHECK_EQ_INT(creds(&cfg), Z_OK);
    cfg.listen_cert_base64 = CERT_PEM_B64;
    cfg.listen_key_base64 = KEY_PEM_B64;
    cfg.enable_mtls = "true";
    CHECK_EQ_INT(creds(&cfg), Z_OK);

    zm_tls_config_t bad = cfg;
    bad.root_ca_base64 = "not base64!";
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad.root_ca_base64 = "aGVsbG8="; /* base64, but no certificate */
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad = cfg;
    bad.listen_key_base64 = CERT_PEM_B64; /* a certificate where the key goes */
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad = cfg;
    bad.listen_key_base64 = NULL; /* a certificate without its key */
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad = cfg;
    bad.connect_key_base64 = KEY_PEM_B64; /* a key without its certificate */
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad = cfg;
    bad.root_ca_base64 = NULL; /* mutual TLS without the CA that signs the clients */
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
    bad.enable_mtls = "false";
    CHECK_EQ_INT(creds(&bad), Z_OK);
    bad = cfg;
    bad.root_ca_base64 = NULL;
    bad.root_ca = "/nonexistent/zmote-ca.pem";
    CHECK_EQ_INT(creds(&bad), ZM_E_TLS_CONFIG);
}

static uint8_t pattern(size_t k, size_t i) { return (uint8_t)(k * 31u + i * 7u + (i >> 8)); }

typedef struct {
    zm_link_t *listener;
    z_result_t result; /* written by the echo task, read after join */
    unsigned echoed;
    zm_link_t link;
} echo_t;

/* Accepts one link and sends every batch it receives straight back, until its link fails. */
static void *echo_main(void *arg)
{
    echo_t *e = (echo_t *)arg;
    uint8_t *rx = malloc(BIG_CAP);
    uint8_t *tx = malloc(BIG_CAP);
    e->result = zm_link_accept(e->listener, &e->link, 10000);
    while (e->result == Z_OK && rx != NULL && tx != NULL) {
        zm_slice_t b;
        e->result = zm_link_recv_batch(&e->link, rx, BIG_CAP, &b);
        if (e->result != Z_OK) {
            break;
        }
        memcpy(tx + ZM_LINK_HEADROOM, b.ptr, b.len);
        uint64_t now = zm_port_clock_ms();
        e->result = zm_link_send_batch(&e->link, tx + ZM_LINK_HEADROOM, b.len, now + 5000, now + 5000);
        e->echoed += e->result == Z_OK;
    }
    free(rx);
    free(tx);
    return NULL;
}

static void test_exchange(void)
{
    zm_tls_config_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.root_ca_base64 = CERT_PEM_B64;
    cfg.listen_cert_base64 = CERT_PEM_B64;
    cfg.listen_key_base64 = KEY_PEM_B64;
    zm_tls_creds_t *c = NULL;
    CHECK_EQ_INT(zm_tls_creds_new(&c, &cfg), Z_OK);
    if (c == NULL) {
        return;
    }
    zm_endpoint_t ep;
    const char *at = "tls/127.0.0.1:0";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, at, strlen(at), ZM_ENDPOINT_LISTEN), Z_OK);
    ep.tls = c;
    zm_link_t listener, client;
    CHECK_EQ_INT(zm_link_listen(&listener, &ep), Z_OK);
    uint16_t port = 0;
    CHECK_EQ_INT(zm_link_local_port(&listener, &port), Z_OK);
    echo_t echo = {&listener, Z_OK, 0, {0}};
    zm_task_t task;
    CHECK_EQ_INT(zm_port_task_start(&task, echo_main, &echo), Z_OK);

    char to[64];
    snprintf(to, sizeof(to), "tls/localhost:%u", port);
    CHECK_EQ_INT(zm_endpoint_parse(&ep, to, strlen(to), ZM_ENDPOINT_CONNECT), Z_OK);
    ep.tls = c;
    CHECK_EQ_INT(zm_link_open(&client, &ep, 10000), Z_OK);
    CHECK(zm_link_is_streamed(&client));
    uint8_t *rx = malloc(BIG_CAP);
    uint8_t *tx = malloc(BIG_CAP);
    static const size_t sizes[] = {0, 1, 100, 16384, 40000, 65533};
    unsigned sent = 0;
    for (size_t k = 0; rx != NULL && tx != NULL && k < ZM_ARRAY_LEN(sizes); k++) {
        for (size_t i = 0; i < sizes[k]; i++) {
            tx[ZM_LINK_HEADROOM + i] = pattern(k, i);
        }
        uint64_t now = zm_port_clock_ms();
        CHECK_EQ_INT(zm_link_send_batch(&client, tx + ZM_LINK_HEADROOM, sizes[k], now + 5000, now + 5000), Z_OK);
        sent++;
        zm_slice_t s;
        client.rx_deadline_ms = zm_port_clock_ms() + 10000;
        z_result_t r = zm_link_recv_batch(&client, rx, BIG_CAP, &s);
        bool same = r == Z_OK && s.len == sizes[k];
        for (size_t i = 0; same && i < s.len; i++) {
            same = s.ptr[i] == pattern(k, i);
        }
        CHECK_CTX(same, "size %zu: %s (got %zu bytes)", sizes[k], zm_strerror(r), r == Z_OK ? s.len : 0);
    }
    /* Closing the client ends the echo's blocking receive. */
    zm_link_close(&client);
    zm_port_task_join(&task);
    CHECK_EQ_INT(echo.result, ZM_E_CLOSED);
    CHECK_EQ_INT(echo.echoed, sent);
    zm_link_close(&echo.link);
    zm_link_close(&listener);
    zm_tls_creds_free(c);
    free(rx);
    free(tx);
}

int main(void)
{
    test_base64();
    test_config();
    test_exchange();
    return CHECK_DONE();
}
