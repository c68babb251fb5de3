/*
 * Zenoh endpoints and locators: `proto/address[?metadata][#config]`, e.g. `tcp/[::1]:7447?prio=1`.
 * Parsing is pure and allocates nothing: a parsed endpoint is a set of slices borrowed from the
 * input string, which must outlive it. The locator form (no #config) is what HELLO carries and
 * what logs print; it is formatted back into a caller's buffer.
 */
#ifndef ZM_LINK_ENDPOINT_H
#define ZM_LINK_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/bytes.h"

/* Protocols zmote recognises; which ones it can open is the link table's business. */
typedef enum {
    ZM_PROTO_TCP = 0,
    ZM_PROTO_UDP,
    ZM_PROTO_TLS,
    ZM_PROTO_SERIAL,
    ZM_PROTO_COUNT
} zm_link_proto_t;

/* Whether port 0 (any free port) is allowed: only where the endpoint is listened on. */
typedef enum { ZM_ENDPOINT_CONNECT = 0, ZM_ENDPOINT_LISTEN } zm_endpoint_use_t;

/* Longest host accepted: a DNS name is at most 253 characters, and so is anything else here. */
#define ZM_ENDPOINT_HOST_MAX 253u

/* Longest locator zm_endpoint_to_locator can produce, NUL excluded: a z8 on the wire. */
#define ZM_LOCATOR_MAX 255u

/**
 * A serial endpoint's #config: the keys of Rust's serial link, with Rust's defaults.
 * - `baudrate=N`: bits per second, 1..2^32-1 (default 9600, as Rust; the port refuses rates its
 *   line cannot do when it opens).
 * - `tout=N`: microseconds an opener waits after the listener answered RESET before it sends
 *   INIT again (default 50000, as Rust), 0..2^64-1; kept in whole milliseconds, rounded up, and
 *   at most 2^32-1 of them (an open's own deadline, a 32-bit count of milliseconds, ends a
 *   longer wait first).
 * - `exclusive=true` and `release_on_close=true`: Rust's defaults, which are what zmote does (the
 *   line is opened exclusively; a listener's line is closed with its link and opened again for
 *   the next). `false` for either is refused with ZM_E_UNSUPPORTED.
 */
typedef struct {
    uint32_t baudrate;
    uint32_t reset_wait_ms;
} zm_serial_config_t;

/**
 * A parsed endpoint. Every slice borrows from the parsed string.
 * - host: for tcp, udp and tls, the name or IP literal without brackets; ipv6 tells whether it
 *   was bracketed. For serial, empty: the device is in address.
 * - port: 1..65535 (0 allowed for ZM_ENDPOINT_LISTEN); 0 for serial.
 * - metadata and config: the raw text after '?' and '#', without the separator; empty when
 *   absent. Their form was checked: `key[=value]` entries separated by ';', key non-empty.
 * - serial: for serial, the #config as read when it was checked, so that opening or listening
 *   on the line does not read the text again; zero for the other protocols.
 */
typedef struct {
    zm_link_proto_t proto;
    zm_slice_t address;
    zm_slice_t host;
    uint16_t port;
    bool ipv6;
    zm_slice_t metadata;
    zm_slice_t config;
    zm_serial_config_t serial;
    struct zm_tls_creds *tls; /* a tls endpoint's credentials (link/tls.h): NULL from the parse, the session's set by the session */
} zm_endpoint_t;

/**
 * Parses s[0..len) into *ep (which then borrows from s). ZM_E_LOCATOR for a malformed endpoint
 * (bad address, missing or out-of-range port, malformed metadata or config, a character that
 * is not printable ASCII); ZM_E_UNSUPPORTED for an unknown protocol or a config key zmote does
 * not implement: Rust's tcp options (`iface`, `bind`, `so_rcvbuf`, `so_sndbuf`,
 * `tcp_rx_buffer`...) are refused rather than silently ignored. Serial endpoints take the keys of
 * zm_serial_config_t, multicast groups `iface` (zm_endpoint_iface), checked here
 * already. *ep is unspecified after an error.
 */
ZM_NODISCARD z_result_t zm_endpoint_parse(zm_endpoint_t *ep, const char *s, size_t len,
                                          zm_endpoint_use_t use);

/**
 * The #config of a serial endpoint that zm_endpoint_parse accepted, into *cfg; always Z_OK (the
 * parse already refused a malformed value with ZM_E_LOCATOR, and another key or a setting zmote
 * cannot honour with ZM_E_UNSUPPORTED).
 */
static inline z_result_t zm_endpoint_serial_config(const zm_endpoint_t *ep, zm_serial_config_t *cfg)
{
    *cfg = ep->serial;
    return Z_OK;
}

/**
 * Finds key in a checked `k=v;k2=v2` list (an endpoint's metadata or config). True and *value
 * (borrowed; empty for a bare `key`) if present; the first occurrence wins.
 */
bool zm_endpoint_param(zm_slice_t params, const char *key, zm_slice_t *value);

/**
 * Writes the locator `proto/address[?metadata]` of ep as a NUL-terminated string into
 * buf[0..cap) and its length (NUL excluded) to *len. The port is ep->port, so a listener can
 * set the port it was actually given before advertising itself. ZM_E_NO_SPACE if it does not
 * fit, and then buf holds an empty string (if cap > 0).
 */
ZM_NODISCARD z_result_t zm_endpoint_to_locator(const zm_endpoint_t *ep, char *buf, size_t cap,
                                               size_t *len);

/**
 * Copies ep's host into buf as a NUL-terminated string (what a socket API takes);
 * ZM_E_NO_SPACE if cap is not larger than the host.
 */
ZM_NODISCARD z_result_t zm_endpoint_host(const zm_endpoint_t *ep, char *buf, size_t cap);

/**
 * Whether host is a dotted IPv4 literal, four decimal bytes without leading zeros (which a
 * resolver may read as octal), and its bytes into out. Builds with IP links only.
 */
bool zm_endpoint_ipv4(zm_slice_t host, uint8_t out[4]);

/** True for a udp endpoint whose host is a multicast group (IPv4 224.0.0.0/4, IPv6 ff00::/8). */
bool zm_endpoint_is_multicast(const zm_endpoint_t *ep);

#if Z_FEATURE_LINK_UDP_MULTICAST
/* Longest interface name in an endpoint's `iface` option (a system's names are far shorter). */
#define ZM_ENDPOINT_IFACE_MAX 63u

/**
 * The `iface` option of a multicast endpoint's #config into buf (NUL-terminated; empty when
 * absent: the system chooses). ZM_E_UNSUPPORTED for another key, ZM_E_LOCATOR for an empty or
 * malformed name, ZM_E_NO_SPACE if cap is too small. zm_endpoint_parse checked it already.
 */
ZM_NODISCARD z_result_t zm_endpoint_iface(const zm_endpoint_t *ep, char *buf, size_t cap);
#endif

/** The protocol's name as written in endpoints ("tcp"); never NULL. */
const char *zm_link_proto_name(zm_link_proto_t proto);

#endif /* ZM_LINK_ENDPOINT_H */
