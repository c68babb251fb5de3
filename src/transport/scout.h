/*
 * Scouting (spec: SCOUT and HELLO over UDP multicast): the scout that asks a group who is there
 * and collects the HELLOs that come back, and the responder with which a listening peer answers.
 * Neither knows sessions: the scout hands each new node's HELLO to a callback, the responder is
 * told what to announce. Both work on any datagram socket, so that tests drive them over
 * unicast loopback; only zm_scout_run and zm_scout_responder_open touch a multicast group.
 */
#ifndef ZM_TRANSPORT_SCOUT_H
#define ZM_TRANSPORT_SCOUT_H

#include <stdatomic.h>

#include "link/link.h"
#include "proto/msg.h"

#if Z_FEATURE_SCOUTING

/* Longest interface name a scouting locator may give (`#iface=eth0`), NUL excluded. */
#define ZM_SCOUT_IFACE_MAX 31u

/* Hops a SCOUT may travel (Rust's default: the local network only). */
#define ZM_SCOUT_TTL 1u

/**
 * A scouting group, from a locator such as `udp/224.0.0.224:7446#iface=eth0`: an IPv4 multicast
 * address (NUL-terminated literal), its port, and the interface to scout on ("": the system's
 * choice, by its routes).
 */
typedef struct {
    char group[16];
    uint16_t port;
    char iface[ZM_SCOUT_IFACE_MAX + 1];
} zm_scout_group_t;

/**
 * Parses a scouting locator into *g. ZM_E_LOCATOR when it is malformed, not udp, or its address
 * is not an IPv4 multicast group (a name, a unicast address); ZM_E_UNSUPPORTED for an IPv6
 * group, metadata, or a config key other than `iface`. Nothing is sent or opened.
 */
ZM_NODISCARD z_result_t zm_scout_group_parse(zm_scout_group_t *g, const char *locator);

/** Called with each HELLO of a new node (borrowed: valid during the call); true stops the scout. */
typedef bool (*zm_scout_hello_fn)(const zm_hello_t *hello, void *ctx);

/** What a scout asks and for how long. */
typedef struct {
    uint8_t what;             /* ZM_WHAT_* mask: HELLOs of other kinds are ignored */
    const zm_zid_t *zid;      /* sent in the SCOUT; NULL: none (as Rust's scouts) */
    uint32_t timeout_ms;      /* the scout ends this long after it starts, HELLOs or not */
    const atomic_bool *cancel; /* if not NULL: the scout ends soon after it turns true */
} zm_scout_params_t;

/**
 * Scouts the group: sends a SCOUT from a fresh socket on g's interface, again 1, 2, 4 then every
 * 8 seconds as Rust does (a datagram may be lost), and hands each HELLO to fn, once per node and
 * locator list (the first ZM_SCOUT_SEEN_MAX are remembered; a HELLO of a kind not asked for,
 * malformed or longer than ZM_SCOUT_HELLO_MAX is skipped). Blocks until fn returns true or the
 * timeout, on the calling thread; at the timeout, the HELLOs already waiting (those that came
 * while fn ran), ZM_SCOUT_SEEN_MAX datagrams at most, are still handed to fn. Z_OK then, found or not; errors: the interface is unknown (ZM_E_LOCATOR),
 * no route leads to the group (ZM_E_UNREACHABLE), no socket (ZM_E_NOMEM...).
 */
ZM_NODISCARD z_result_t zm_scout_run(const zm_scout_group_t *g, const zm_scout_params_t *p, zm_scout_hello_fn fn,
                                     void *ctx);

/**
 * zm_scout_run's exchange on a socket the caller opened (borrowed) towards *to, any address: the
 * SCOUTs go there and HELLOs are read from the socket. Same rules and results.
 */
ZM_NODISCARD z_result_t zm_scout_exchange(zm_socket_t *sock, const zm_addr_t *to, const zm_scout_params_t *p,
                                          zm_scout_hello_fn fn, void *ctx);

/**
 * Whether a session may dial a locator a HELLO gave: a tcp or udp one of a link this build has,
 * a node (not a multicast group), at a numeric address. A HELLO is anyone's datagram: a serial
 * line named in one is never opened (scouting runs only when the configuration names no
 * endpoint, so it never names that line), and a host name is never resolved, on any thread, so
 * that no HELLO makes a session wait on a name lookup (Rust's HELLOs carry addresses).
 */
bool zm_scout_locator_dialable(const zm_endpoint_t *ep);

#if ZM_SCOUT_RESPONDER
/**
 * A responder: its socket (joined to the group) as a link, so that the task or zp_read that
 * waits over a peer's links with zm_link_wait_any waits on it too, and the bucket its answers
 * come from. Owned by the session; served by one thread at a time; shut down from any thread,
 * closed once after that thread stopped.
 */
typedef struct {
    zm_link_t link;
    uint64_t empty_at; /* the answers' bucket is empty at this time, full a second after it */
    bool dropping;     /* SCOUTs were dropped since the bucket was last full */
} zm_scout_responder_t;

/** What a responder announces: whatami (ZM_WAI_*), zid, and the locators it listens on. */
typedef struct {
    uint8_t whatami;
    zm_zid_t zid;
    /*
     * Locators as listened on, with their real port: `tcp/0.0.0.0:7447`, `tcp/192.168.1.2:7447`.
     * An unspecified address is replaced by the address the scout reaches us at; a loopback one
     * is left out of answers to other machines, where it means nothing.
     */
    const char *const *locators;
    size_t n_locators;
} zm_scout_self_t;

/** Joins the group on g's interface and takes the socket into *r. Errors as zm_port_udp_join. */
ZM_NODISCARD z_result_t zm_scout_responder_open(zm_scout_responder_t *r, const zm_scout_group_t *g);
/** Takes sock (opened by the caller, any datagram socket) into *r: tests answer over unicast. */
void zm_scout_responder_init(zm_scout_responder_t *r, zm_socket_t sock);
/**
 * Reads the datagrams waiting on the responder, at most ZM_SCOUT_ANSWER_BURST, never blocking,
 * and answers each SCOUT that asks for self's kind (and is not self's own) with one unicast HELLO
 * to its sender, sent from a socket of its own so that its source is the address the scout
 * reaches us at, at most ZM_SCOUT_ANSWER_RATE a second (a second's worth at once). Anything else
 * is dropped. Returns how many were answered in *answered (may be
 * NULL); ZM_E_CLOSED once shut down.
 */
ZM_NODISCARD z_result_t zm_scout_responder_serve(zm_scout_responder_t *r, const zm_scout_self_t *self,
                                                 unsigned *answered);
void zm_scout_responder_shutdown(zm_scout_responder_t *r);
void zm_scout_responder_close(zm_scout_responder_t *r);

/** Whether a locator's address is a loopback one (127.0.0.0/8, ::1, localhost): reached from here only. */
bool zm_scout_locator_is_loopback(const char *locator);
#endif /* ZM_SCOUT_RESPONDER */

#endif /* Z_FEATURE_SCOUTING */
#endif /* ZM_TRANSPORT_SCOUT_H */
