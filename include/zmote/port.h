/**
 * @file
 * The platform interface: the only thing a port implements (port/posix today; FreeRTOS, Zephyr
 * and bare metal later). The port's own zmote_platform.h, found on the include path of the
 * chosen port, defines the opaque types; upper layers never test the platform, they call here.
 * Functions that can fail return z_result_t; none of them allocates unless it says so, and
 * every one may be called from any thread unless its comment restricts it.
 */
#ifndef ZMOTE_PORT_H
#define ZMOTE_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/opt.h"
#include "zmote/result.h"
#include "zmote_platform.h" /* zm_mutex_t, zm_condvar_t, zm_task_t, zm_socket_t, zm_serial_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory: the default heap behind zm_alloc/zm_free (a static arena may replace it) -------- */

/** Returns size bytes the caller owns, or NULL when the heap is exhausted. */
void *zm_port_malloc(size_t size);
/** Gives back a block from zm_port_malloc; NULL is a no-op. */
void zm_port_free(void *ptr);

/* ---- clocks and randomness ------------------------------------------------------------------- */

/** Monotonic milliseconds, for leases and timeouts; never goes back, unrelated to wall time. */
uint64_t zm_port_clock_ms(void);
/** Wall clock as nanoseconds since the UNIX epoch, for timestamps (may jump). */
uint64_t zm_port_time_ns(void);
/** Blocks the calling thread for at least ms milliseconds. */
void zm_port_sleep_ms(uint32_t ms);
/** Fills buf with len bytes from the best source the platform has (zids, nonces). */
void zm_port_random(void *buf, size_t len);

/* ---- threads --------------------------------------------------------------------------------- */

/** Tells threads apart: equal for calls from one thread, different for two live threads. */
typedef uintptr_t zm_thread_id_t;
/** The calling thread's id (a single-thread build may always return the same value). */
zm_thread_id_t zm_port_thread_self(void);

#if Z_FEATURE_MULTI_THREAD
/*
 * Mutexes are not recursive. Locking or unlocking wrongly (twice, or from a thread that does
 * not hold it) is a bug of the caller; a port may abort on it in debug builds.
 */

/** Initializes a mutex in place; destroy it once no thread uses it. */
z_result_t zm_port_mutex_init(zm_mutex_t *m);
/** Releases what zm_port_mutex_init set up; no thread may hold or wait for m. */
void zm_port_mutex_destroy(zm_mutex_t *m);
/** Waits until the calling thread holds m. */
void zm_port_mutex_lock(zm_mutex_t *m);
/** Takes m if no thread holds it and returns true, or returns false at once without waiting. */
bool zm_port_mutex_trylock(zm_mutex_t *m);
/** Releases m, held by the calling thread. */
void zm_port_mutex_unlock(zm_mutex_t *m);

/** Initializes a condition variable whose deadlines are read on zm_port_clock_ms. */
z_result_t zm_port_condvar_init(zm_condvar_t *c);
/** Releases what zm_port_condvar_init set up; no thread may be waiting on c. */
void zm_port_condvar_destroy(zm_condvar_t *c);
/** Wakes one waiter; call with the waiters' mutex held so no wake-up is lost. */
void zm_port_condvar_signal(zm_condvar_t *c);
/** Wakes every waiter; same rule as zm_port_condvar_signal. */
void zm_port_condvar_broadcast(zm_condvar_t *c);
/**
 * Waits on c (m held, released while waiting, held again on return) until woken or until the
 * monotonic deadline deadline_ms (a zm_port_clock_ms value); ZM_E_TIMEOUT then. It may also
 * return Z_OK without a wake-up, so callers loop on their own condition. A deadline far in the
 * future waits as long as it takes.
 */
z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms);

/** Starts fn(arg) on a new thread; the task must be joined exactly once. */
z_result_t zm_port_task_start(zm_task_t *t, void *(*fn)(void *), void *arg);
/** Waits until the task's function has returned and releases the task. */
void zm_port_task_join(zm_task_t *t);
/** Starts fn(arg) on a new thread that nobody joins: what the thread holds goes when fn returns. */
z_result_t zm_port_task_start_detached(void *(*fn)(void *), void *arg);
#endif

#if ZM_PORT_SOCKETS
/* ---- sockets (stream links) ------------------------------------------------------------------ */
/*
 * A zm_socket_t belongs to whoever opened it and is a plain value: copying it moves it (a link
 * moves into its transport) and the old copy is forgotten. One thread may read while another
 * writes, and zm_port_socket_shutdown may be called from any thread at any time before close;
 * close is called once, after every thread that used the socket has stopped. A read blocks until
 * data comes; a write waits for room only until its deadline, so that a peer that stops reading
 * cannot hold the writer (and the locks it holds) for ever. Errors: ZM_E_TIMEOUT when a timeout ran out, ZM_E_CLOSED
 * when the peer closed or reset the connection or the socket was shut down, ZM_E_REFUSED,
 * ZM_E_ADDR_IN_USE, ZM_E_UNREACHABLE and ZM_E_NO_HOST where the platform tells those apart (a
 * port may return Z_ENETWORK for any of them), Z_ENETWORK for other network failures, Z_EIO for
 * the rest.
 */

#if Z_FEATURE_LINK_TCP
/**
 * Connects to host:port within timeout_ms. host is a NUL-terminated name, IPv4 literal or IPv6
 * literal without brackets; every address it resolves to is tried in turn. Name resolution
 * itself may block longer than the timeout on platforms without an asynchronous resolver.
 */
z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port,
                               uint32_t timeout_ms);
/**
 * Listens on host:port (host as in connect, backlog 16); port 0 picks a free port, read it back
 * with zm_port_socket_local_port.
 */
z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port);
/**
 * Waits up to timeout_ms for a connection on a listening socket and opens it in *out;
 * ZM_E_TIMEOUT if none came, ZM_E_CLOSED once the listener was shut down.
 */
z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms);
#endif /* Z_FEATURE_LINK_TCP */
/** The local port of a listening or connected socket. */
z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port);
/**
 * Writes the local (remote false) or remote address of a connected or bound socket, as
 * `192.168.1.2:7447` or `[fe80::1]:7447`, NUL-terminated, into buf (cap bytes); returns its
 * length, or 0 when it does not fit or the port cannot tell.
 */
size_t zm_port_socket_address(const zm_socket_t *s, bool remote, char *buf, size_t cap);
/**
 * Waits up to timeout_ms until a read would not block (data, end of stream or an error is
 * pending); Z_OK then, ZM_E_TIMEOUT otherwise. Lets single-thread builds poll a link.
 */
z_result_t zm_port_socket_wait_readable(zm_socket_t *s, uint32_t timeout_ms);
/**
 * Waits up to timeout_ms until at least one of n sockets is ready, so one thread can serve a
 * listener and many connections. ready[i] is set to 1 for each socket with data, end of stream
 * or an error pending (a listener: a connection to accept), 0 for the others; a NULL entry is
 * skipped and never ready. Z_OK if any is ready, ZM_E_TIMEOUT if none became so in time,
 * ZM_E_LIMIT if n > ZM_SOCKET_WAIT_MAX. The sockets are only borrowed for the call.
 */
z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms,
                                   uint8_t *ready);
/**
 * Reads at most len (> 0) bytes, blocking until at least one arrives, and sets *n to how many
 * came (never 0 on success); ZM_E_CLOSED at end of stream.
 */
z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n);
/**
 * Writes len bytes, waiting for room in the socket until the monotonic deadline deadline_ms (a
 * zm_port_clock_ms value); *written tells how many bytes were handed to the system, whatever the
 * result. Z_OK once all of them were; ZM_E_TIMEOUT when the deadline passed first (the rest was
 * not written: call again for it). A deadline already past writes only what fits at once. A port
 * should start only when the socket has a good share of room (POSIX: POLLOUT, asked again once a
 * few KiB went since it last said so), not squeeze in a few bytes, so that a batch is rarely cut
 * when the peer stops reading. Other errors as above; never raises a signal when the peer is
 * gone. Shutting the socket down makes a waiting write return ZM_E_CLOSED.
 */
z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written);
#if Z_FEATURE_LINK_TLS
/**
 * Waits until the monotonic deadline deadline_ms for room in the socket, as a write would (POSIX:
 * POLLOUT); Z_OK then, ZM_E_TIMEOUT if the deadline passed first (a past one polls once). TLS
 * links wait here, outside their session's lock, before they encrypt a record.
 */
z_result_t zm_port_socket_wait_writable(zm_socket_t *s, uint64_t deadline_ms);
#endif
/** Makes reads, writes and accepts blocked on s, now or later, return (then close it). */
void zm_port_socket_shutdown(zm_socket_t *s);
/** Releases the socket; s must not be used again until it is opened anew. */
void zm_port_socket_close(zm_socket_t *s);

#if ZM_PORT_UDP
/* ---- datagram sockets (UDP links, scouting) ---------------------------------------------------- */
/*
 * UDP sockets are zm_socket_t values with the rules above: wait_readable, wait_any, shutdown,
 * close and local_port apply to them too (zm_port_socket_read and _write do not: datagrams go
 * through send and recv below). One datagram is one whole message; nothing is ever cut, so a
 * datagram longer than the receive buffer is an error, not a partial read. Interfaces are named
 * as the system names them ("lo", "eth0"); NULL or "" lets the system choose. A name the system
 * does not know fails with ZM_E_LOCATOR, an address that is not a multicast group with
 * ZM_E_LOCATOR too, and a group that cannot be joined with Z_ENETWORK.
 */

/** Room for any IPv4 or IPv6 address with its port, in the port's own form (a sockaddr). */
#define ZM_ADDR_SIZE 28u

/** Aligns the bytes of a zm_addr_t for the sockaddr a port keeps in them (C11 and C++11 spell it apart). */
#ifdef __cplusplus
#define ZM_ADDR_ALIGN alignas(8)
#else
#define ZM_ADDR_ALIGN _Alignas(8)
#endif

/** A UDP peer's address: opaque to upper layers, which copy, compare and print it only. */
typedef struct {
    uint8_t len;                             /**< bytes of raw in use; 0: no address */
    ZM_ADDR_ALIGN uint8_t raw[ZM_ADDR_SIZE]; /**< the address in the port's own form */
} zm_addr_t;

/** Resolves host:port (host as in zm_port_tcp_connect; the first address wins) into *a. */
z_result_t zm_port_addr_resolve(zm_addr_t *a, const char *host, uint16_t port);
/** True when a and b are the same address and port. */
bool zm_port_addr_equal(const zm_addr_t *a, const zm_addr_t *b);
/**
 * A hash of a's address and port under seed: equal addresses (zm_port_addr_equal) hash alike.
 * For tables keyed by a sender's address; a random seed keeps senders from aiming at one slot.
 */
uint32_t zm_port_addr_hash(const zm_addr_t *a, uint32_t seed);
/**
 * Writes a as a locator address, `192.168.1.2:7447` or `[fe80::1]:7447`, NUL-terminated, into
 * buf (cap bytes); returns its length, or 0 if it does not fit or a holds no address.
 */
size_t zm_port_addr_format(const zm_addr_t *a, char *buf, size_t cap);

/**
 * A UDP socket bound to host:port (port 0: one the system picks, see local_port), for a listener
 * or a unicast sender that receives its answers. With connect, the socket is instead connected to
 * host:port (bound to a port of the system's choosing): it sends there with to NULL and receives
 * only from there.
 */
z_result_t zm_port_udp_open(zm_socket_t *s, const char *host, uint16_t port, bool connect);
/**
 * A socket that receives what is sent to the multicast group:port on interface iface (the group
 * joined, the port shared with other sockets of the machine, so that many processes can listen to
 * one group), and that sends to the group from that interface, with multicast loopback on (so
 * that processes on this machine see each other) and TTL ttl. Its own datagrams come back to it
 * when it listens to the group: a caller tells them apart with zm_port_udp_open's unicast socket,
 * whose address is the one others see as the sender.
 */
z_result_t zm_port_udp_join(zm_socket_t *s, const char *group, uint16_t port, const char *iface,
                            uint8_t ttl);
/**
 * A socket that sends to multicast groups out of interface iface (TTL ttl, loopback on) from an
 * address of that interface and a port of the system's choosing, and receives unicast datagrams
 * sent back to that address (answers to scouting, a multicast peer's own identity).
 */
z_result_t zm_port_udp_sender(zm_socket_t *s, const char *iface, uint8_t ttl);
/**
 * The local address and port of s: what others see as the sender of what it sends, unless it is
 * bound to the unspecified address (then only the port tells).
 */
z_result_t zm_port_udp_local_addr(const zm_socket_t *s, zm_addr_t *a);
/**
 * Sends one datagram of len bytes to *to (NULL: the address a connected socket was opened for),
 * waiting for room until the monotonic deadline deadline_ms (ZM_E_TIMEOUT past it, nothing sent).
 * All or nothing; ZM_E_TOO_LARGE if the system refuses the size.
 */
z_result_t zm_port_udp_send(zm_socket_t *s, const uint8_t *buf, size_t len, const zm_addr_t *to,
                            uint64_t deadline_ms);
/**
 * Receives one datagram into buf (cap bytes), blocking until one comes; *n is its length (it may
 * be 0) and *from, unless NULL, its sender. ZM_E_FIELD if it was longer than cap (it is dropped
 * whole); ZM_E_CLOSED once the socket was shut down.
 */
z_result_t zm_port_udp_recv(zm_socket_t *s, uint8_t *buf, size_t cap, size_t *n, zm_addr_t *from);
#if Z_FEATURE_LINK_UDP_UNICAST
/**
 * Without waiting, the length (*n, may be 0) and sender (*from) of the datagram a receive would
 * take next, which stays queued: a listener shared by many peers looks before it takes, and a
 * receive that must not block looks first. ZM_E_AGAIN if none is queued; ZM_E_REFUSED if the
 * system reported that an earlier datagram of a connected socket was refused (nobody listens
 * there: the report is taken); ZM_E_CLOSED once the socket was shut down.
 */
z_result_t zm_port_udp_peek(zm_socket_t *s, size_t *n, zm_addr_t *from);
#endif
#endif /* ZM_PORT_UDP */
#endif /* ZM_PORT_SOCKETS */

#if Z_FEATURE_LINK_SERIAL
/* ---- serial lines ------------------------------------------------------------------------------ */
/*
 * A zm_serial_t is a plain value like a zm_socket_t, with the same threading rules: one thread
 * may read while another writes, shutdown may come from any thread at any time before close,
 * close comes once after every user stopped. Bytes go through untouched (no echo, no line
 * discipline, no translation); the framing above finds its frames in them. Errors: ZM_E_TIMEOUT
 * when a wait ran out, ZM_E_CLOSED once shut down or when the device went away, ZM_E_UNSUPPORTED
 * for a baud rate the line cannot do, ZM_E_BUSY for a line another program holds, Z_ENETWORK for
 * a device that cannot be opened (missing, no permission), Z_EIO for the rest.
 *
 * zm_serial_t comes from the port's zmote_platform.h, like zm_socket_t. A port without sockets
 * (ZM_PORT_SOCKETS 0) need not define zm_socket_t: it is then the incomplete `struct
 * zm_socket` declared here (a port that does define it uses that tag), and zm_port_serial_socket
 * returns NULL.
 */
#if !ZM_PORT_SOCKETS
/** A socket, incomplete: a build without sockets only passes pointers to it around (always NULL). */
typedef struct zm_socket zm_socket_t;
#endif

/**
 * Opens the serial line dev (NUL-terminated: a path such as /dev/ttyUSB0 on POSIX, a UART name the
 * board defines on bare metal) at baudrate bit/s, 8N1, raw, no flow control. Bytes that were
 * waiting in the line are discarded.
 */
z_result_t zm_port_serial_open(zm_serial_t *s, const char *dev, uint32_t baudrate);
/** Waits up to timeout_ms until a read would not block; Z_OK then, ZM_E_TIMEOUT otherwise. */
z_result_t zm_port_serial_wait_readable(zm_serial_t *s, uint32_t timeout_ms);
/**
 * Reads at most len (> 0) bytes, blocking until at least one arrives; *n never 0 on success;
 * ZM_E_CLOSED once shut down or the line is gone.
 */
z_result_t zm_port_serial_read(zm_serial_t *s, uint8_t *buf, size_t len, size_t *n);
/**
 * Writes len bytes, waiting for room until the monotonic deadline deadline_ms; *written as in
 * zm_port_socket_write (how many left, whatever the result); ZM_E_TIMEOUT past it.
 */
z_result_t zm_port_serial_write(zm_serial_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written);
/** Makes blocked and later reads/writes return ZM_E_CLOSED; any thread. */
void zm_port_serial_shutdown(zm_serial_t *s);
/** Releases the line; s must not be used again until it is opened anew. */
void zm_port_serial_close(zm_serial_t *s);
/**
 * The socket a wait over many links (zm_port_socket_wait_any) may poll for this line: it reports
 * ready when a read would not block. NULL where a line cannot be polled with sockets; the
 * caller then asks zm_port_serial_wait_readable instead. Valid until close.
 */
zm_socket_t *zm_port_serial_socket(zm_serial_t *s);
#endif /* Z_FEATURE_LINK_SERIAL */

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_PORT_H */
