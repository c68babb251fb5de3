/**
 * @file
 * Every compile-time option of zmote, with its default and one line of doc. Override any of
 * them in your own zmote_config.h (found on the include path when ZM_CONFIG_FILE is defined)
 * or with -D. Options zenoh-pico also has keep its Z_FEATURE_* name and meaning.
 *
 * The options shape the library's structs, so the library and every program built against it
 * must see the same values: set them where both read them (CMake's `-DZ_FEATURE_X=0|1` cache
 * variables and `ZM_CONFIG_DIR` do, see the getting-started page). Inconsistent combinations
 * stop the build with an `#error` at the end of this file.
 */
#ifndef ZMOTE_OPT_H
#define ZMOTE_OPT_H

#ifdef ZM_CONFIG_FILE
#include "zmote_config.h"
#endif

/* ---- features ---------------------------------------------------------------------------- */

/**
 * Threads: a session has a read task per connected router or peer, an accept task when it
 * listens, and a lease task (0: a single thread, which drives the session with zp_read and
 * zp_send_keep_alive).
 */
#ifndef Z_FEATURE_MULTI_THREAD
#define Z_FEATURE_MULTI_THREAD 1
#endif

/** Publication (publishers, z_put, z_delete). */
#ifndef Z_FEATURE_PUBLICATION
#define Z_FEATURE_PUBLICATION 1
#endif

/** Subscription (subscribers and their handlers). */
#ifndef Z_FEATURE_SUBSCRIPTION
#define Z_FEATURE_SUBSCRIPTION 1
#endif

/** Peer mode over unicast links (listen, accept several peers, connect). */
#ifndef Z_FEATURE_UNICAST_PEER
#define Z_FEATURE_UNICAST_PEER 1
#endif

/** Fragmentation: messages larger than a batch are cut on send and reassembled on receive (0: refused, dropped). */
#ifndef Z_FEATURE_FRAGMENTATION
#define Z_FEATURE_FRAGMENTATION 1
#endif

/** Batching API (zp_batch_start / zp_batch_stop / zp_batch_flush). */
#ifndef Z_FEATURE_BATCHING
#define Z_FEATURE_BATCHING 1
#endif

/**
 * Local delivery: a put or delete reaches the matching subscribers of its own session, as in Rust
 * (zenoh-pico's default is 0), and the locality options of puts, deletes, publishers and
 * subscribers (allowed_destination, allowed_origin: z_locality_t) choose where it goes. With it
 * off, as in zenoh-pico, a session's samples go only to its router or peers.
 */
#ifndef Z_FEATURE_LOCAL_SUBSCRIBER
#define Z_FEATURE_LOCAL_SUBSCRIBER 1
#endif

/** The table of predefined encodings (z_encoding_text_plain() and friends). */
#ifndef Z_FEATURE_ENCODING_VALUES
#define Z_FEATURE_ENCODING_VALUES 1
#endif

/** z_publisher_put and friends report Z_ESESSION_CLOSED once their session is closed. */
#ifndef Z_FEATURE_SESSION_CHECK
#define Z_FEATURE_SESSION_CHECK 1
#endif

/** Client sessions reconnect to a router and redeclare everything after losing it. */
#ifndef Z_FEATURE_AUTO_RECONNECT
#define Z_FEATURE_AUTO_RECONNECT 1
#endif

/** Interests (write filters of publishers). */
#ifndef Z_FEATURE_INTEREST
#define Z_FEATURE_INTEREST 1
#endif

/** Queries: z_get, queriers and their replies. */
#ifndef Z_FEATURE_QUERY
#define Z_FEATURE_QUERY 1
#endif

/** Queryables, and replies to the queries they receive. */
#ifndef Z_FEATURE_QUERYABLE
#define Z_FEATURE_QUERYABLE 1
#endif

/** Queryables of a session answer that session's own queries (as Rust does); needs both above. */
#ifndef Z_FEATURE_LOCAL_QUERYABLE
#if Z_FEATURE_QUERY && Z_FEATURE_QUERYABLE
#define Z_FEATURE_LOCAL_QUERYABLE 1
#else
#define Z_FEATURE_LOCAL_QUERYABLE 0
#endif
#endif

/**
 * Matching status and listeners of publishers and queriers: whether any subscriber (queryable)
 * matches their key.
 */
#ifndef Z_FEATURE_MATCHING
#define Z_FEATURE_MATCHING (Z_FEATURE_PUBLICATION || Z_FEATURE_QUERY)
#endif

/** Liveliness: tokens, liveliness subscribers and z_liveliness_get (the query part needs Z_FEATURE_QUERY). */
#ifndef Z_FEATURE_LIVELINESS
#define Z_FEATURE_LIVELINESS 1
#endif

/**
 * Scouting over UDP multicast: z_scout, sessions without an endpoint that find a router or peer
 * by scouting, and listening peers that answer SCOUTs. It needs the port's datagram sockets, so
 * it follows TCP by default: on where the build has IP sockets (POSIX), off in serial-only builds.
 */
#ifndef Z_FEATURE_SCOUTING
#define Z_FEATURE_SCOUTING Z_FEATURE_LINK_TCP
#endif

/** The connectivity API (zmote/api/connectivity.h): off by default, as in zenoh-pico; needs the unstable API. */
#ifndef Z_FEATURE_CONNECTIVITY
#define Z_FEATURE_CONNECTIVITY 0
#endif
/** Advanced publishers (zenoh-ext's, zmote/api/advanced.h): off by default, as in zenoh-pico; needs the unstable API. */
#ifndef Z_FEATURE_ADVANCED_PUBLICATION
#define Z_FEATURE_ADVANCED_PUBLICATION 0
#endif
/** Advanced subscribers (zenoh-ext's, zmote/api/advanced.h): off by default, as in zenoh-pico; needs the unstable API. */
#ifndef Z_FEATURE_ADVANCED_SUBSCRIPTION
#define Z_FEATURE_ADVANCED_SUBSCRIPTION 0
#endif
/** Publishers one advanced subscriber follows at once (their sequence numbers); the least recent idle one makes room. */
#ifndef ZM_ADV_SUB_PUBLISHERS
#define ZM_ADV_SUB_PUBLISHERS 8
#endif
/** Samples one advanced subscriber holds back to deliver them in order (history, recovery); full: the oldest goes. */
#ifndef ZM_ADV_SUB_HELD
#define ZM_ADV_SUB_HELD 32
#endif
/** Unicast transports: always there (every link of zmote is unicast). */
#ifndef Z_FEATURE_UNICAST_TRANSPORT
#define Z_FEATURE_UNICAST_TRANSPORT 1
#endif
/** TCP links (`tcp/host:port`); 0 removes every use of the port's socket functions. */
#ifndef Z_FEATURE_LINK_TCP
#define Z_FEATURE_LINK_TCP 1
#endif

/** Serial links (`serial/<device>#baudrate=N`), framed as Rust's serial link (docs/serial.md). */
#ifndef Z_FEATURE_LINK_SERIAL
#define Z_FEATURE_LINK_SERIAL 1
#endif

/**
 * UDP multicast links (`udp/224.0.0.123:7447#iface=lo`): on where the build has TCP, i.e. a port
 * with sockets; a firmware without sockets leaves it off.
 */
#ifndef Z_FEATURE_LINK_UDP_MULTICAST
#define Z_FEATURE_LINK_UDP_MULTICAST Z_FEATURE_LINK_TCP
#endif

/** Peer mode on a multicast group (docs/multicast.md); needs Z_FEATURE_LINK_UDP_MULTICAST. */
#ifndef Z_FEATURE_MULTICAST_TRANSPORT
#define Z_FEATURE_MULTICAST_TRANSPORT Z_FEATURE_LINK_UDP_MULTICAST
#endif

/**
 * Key expressions declared on a multicast group too (D_KEYEXPR, and their ids in what we send
 * there), as zenoh-pico's switch; 0: full keys on the group, which members that join late can
 * always read.
 */
#ifndef Z_FEATURE_MULTICAST_DECLARATIONS
#define Z_FEATURE_MULTICAST_DECLARATIONS 0
#endif

/**
 * UDP unicast links (`udp/host:port`, one batch per datagram as Rust's UDP link: docs/udp.md): on
 * where the build has TCP, i.e. a port with sockets; a firmware without sockets leaves it off.
 */
#ifndef Z_FEATURE_LINK_UDP_UNICAST
#define Z_FEATURE_LINK_UDP_UNICAST Z_FEATURE_LINK_TCP
#endif

/*
 * Whether the port's datagram sockets are needed (UDP links, scouting), and whether any socket
 * is (those, or TCP): builds without either never reference the port's socket functions.
 */
/** Derived, not to be set: the port's datagram sockets are needed (UDP links, scouting). */
#define ZM_PORT_UDP (Z_FEATURE_LINK_UDP_UNICAST || Z_FEATURE_LINK_UDP_MULTICAST || Z_FEATURE_SCOUTING)
/** Derived, not to be set: some socket is needed (TCP, or ZM_PORT_UDP). */
#define ZM_PORT_SOCKETS (Z_FEATURE_LINK_TCP || ZM_PORT_UDP)

/** TLS links (`tls/host:port`, Mbed TLS 2.x or 3.x over the port's TCP sockets; needs LINK_TCP). */
#ifndef Z_FEATURE_LINK_TLS
#define Z_FEATURE_LINK_TLS 0
#endif

/** TCP links send without delay (Nagle off): always so in zmote. */
#ifndef Z_FEATURE_TCP_NODELAY
#define Z_FEATURE_TCP_NODELAY 1
#endif

/*
 * zenoh-pico's other switches, for programs that test them: links and tasks zmote does not have
 * (1 is refused below).
 */
/** WebSocket links: zmote has none (1 is refused). */
#ifndef Z_FEATURE_LINK_WS
#define Z_FEATURE_LINK_WS 0
#endif
/** Bluetooth links: zmote has none (1 is refused). */
#ifndef Z_FEATURE_LINK_BLUETOOTH
#define Z_FEATURE_LINK_BLUETOOTH 0
#endif
/** zenoh-pico's USB serial links: zmote has none (1 is refused; serial lines are Z_FEATURE_LINK_SERIAL). */
#ifndef Z_FEATURE_LINK_SERIAL_USB
#define Z_FEATURE_LINK_SERIAL_USB 0
#endif
/** Raw Ethernet transport: zmote has none (1 is refused). */
#ifndef Z_FEATURE_RAWETH_TRANSPORT
#define Z_FEATURE_RAWETH_TRANSPORT 0
#endif
/** zenoh-pico's batching mutex: zmote has none (1 is refused). */
#ifndef Z_FEATURE_BATCH_TX_MUTEX
#define Z_FEATURE_BATCH_TX_MUTEX 0
#endif
/** zenoh-pico's per-peer batching mutex: zmote has none (1 is refused). */
#ifndef Z_FEATURE_BATCH_PEER_MUTEX
#define Z_FEATURE_BATCH_PEER_MUTEX 0
#endif
/** zenoh-pico's receive cache: zmote has none (1 is refused). */
#ifndef Z_FEATURE_RX_CACHE
#define Z_FEATURE_RX_CACHE 0
#endif
/** zenoh-pico's periodic task scheduler: zmote has none (1 is refused). */
#ifndef Z_FEATURE_PERIODIC_TASKS
#define Z_FEATURE_PERIODIC_TASKS 0
#endif

/**
 * The admin space (zp_start_admin_space), as in zenoh-pico: only with Z_FEATURE_UNSTABLE_API
 * defined, and with queryables (it is one). Z_FEATURE_UNSTABLE_API itself is a defined/undefined switch
 * (zenoh-pico tests it with `#ifdef`): define it to expose the unstable parts of the API.
 */
#ifndef Z_FEATURE_ADMIN_SPACE
#define Z_FEATURE_ADMIN_SPACE 0
#endif

/**
 * User/password authentication of unicast sessions, as Rust Zenoh's transport/auth/usrpwd
 * (docs/auth.md): presenting Z_CONFIG_USER_KEY and Z_CONFIG_PASSWORD_KEY, and checking
 * ZM_CONFIG_USRPWD_DICTIONARY_KEY's list when accepting. 0 removes it (and its SHA3 code).
 */
#ifndef ZM_AUTH_USRPWD
#define ZM_AUTH_USRPWD 1
#endif

/* ---- sizes -------------------------------------------------------------------------------- */

/** Largest batch this node receives on a unicast link (announced in INIT; Rust caps at 65535). */
#ifndef ZM_BATCH_UNICAST_SIZE
#define ZM_BATCH_UNICAST_SIZE 65535
#endif

/** Largest message sent in fragments or reassembled from them, in bytes (with Z_FEATURE_FRAGMENTATION). */
#ifndef ZM_FRAG_MAX_SIZE
#if defined(ZM_NO_HEAP) && ZM_NO_HEAP
#define ZM_FRAG_MAX_SIZE ZM_BATCH_UNICAST_SIZE /* a no-heap build's largest default pool block */
#else
#define ZM_FRAG_MAX_SIZE (16u * 1024u * 1024u + 4096u)
#endif
#endif

/** Unknown, non-mandatory extensions kept per decoded message (for faithful re-encoding). */
#ifndef ZM_EXT_UNKNOWN_MAX
#define ZM_EXT_UNKNOWN_MAX 2
#endif

/** Largest batch on a multicast group, announced in JOIN: Rust 1.10.2 takes only members whose batch is its own, 8192. */
#ifndef ZM_BATCH_MULTICAST_SIZE
#define ZM_BATCH_MULTICAST_SIZE 8192
#endif

/** Members of a multicast group kept at once; a JOIN beyond them is ignored. */
#ifndef ZM_MCAST_PEERS_MAX
#define ZM_MCAST_PEERS_MAX 16
#endif

/** How often a node sends its JOIN to a multicast group (Rust: 2500 ms); JOINs keep it a member. */
#ifndef ZM_MCAST_JOIN_INTERVAL_MS
#define ZM_MCAST_JOIN_INTERVAL_MS 2500u
#endif

/**
 * How long opening a session on a multicast group listens before it returns, so that the zmote
 * members, which answer a newcomer's JOIN with theirs and their declarations, are known to its
 * first get; 0: not at all.
 */
#ifndef ZM_MCAST_OPEN_WAIT_MS
#define ZM_MCAST_OPEN_WAIT_MS 300u
#endif

/** Connect or listen endpoints a session keeps (each). */
#ifndef ZM_ENDPOINTS_MAX
#define ZM_ENDPOINTS_MAX 8
#endif

/** Transports a listening peer holds at once (accepted plus dialled): its slots, allocated at open; one that only dials has one per endpoint, a client one. */
#ifndef ZM_PEERS_MAX
#if Z_FEATURE_UNICAST_PEER
#define ZM_PEERS_MAX 8
#else
#define ZM_PEERS_MAX 1
#endif
#endif

/**
 * Declarations (key expressions, subscribers, queryables, tokens) one peer may hold here; more
 * closes its link. A router's have their own bound (ZM_ROUTER_DECLS_MAX).
 */
#ifndef ZM_PEER_DECLS_MAX
#define ZM_PEER_DECLS_MAX 256
#endif

/** Bytes of key expressions one peer's declarations may hold here; more closes its link. */
#ifndef ZM_PEER_DECL_BYTES_MAX
#define ZM_PEER_DECL_BYTES_MAX (16u * 1024u)
#endif

/**
 * Declarations (key expressions, subscribers, queryables, tokens) a router may hold here; the
 * same for whatever a client connects to. A router's declarations are the network's: past this
 * bound the excess is ignored (counted, logged once per burst) and the link stays. Thousands on
 * a build with IP sockets, a peer's bound elsewhere.
 */
#ifndef ZM_ROUTER_DECLS_MAX
#if Z_FEATURE_LINK_TCP && !(defined(ZM_NO_HEAP) && ZM_NO_HEAP)
#define ZM_ROUTER_DECLS_MAX 16384
#else
#define ZM_ROUTER_DECLS_MAX ZM_PEER_DECLS_MAX
#endif
#endif

/** Bytes of key expressions a router's declarations may hold here; past them the excess is ignored. */
#ifndef ZM_ROUTER_DECL_BYTES_MAX
#if Z_FEATURE_LINK_TCP && !(defined(ZM_NO_HEAP) && ZM_NO_HEAP)
#define ZM_ROUTER_DECL_BYTES_MAX (1024u * 1024u)
#else
#define ZM_ROUTER_DECL_BYTES_MAX ZM_PEER_DECL_BYTES_MAX
#endif
#endif

/** A full peer table makes room for a newcomer by closing the least recently active accepted peer. */
#ifndef ZM_PEER_EVICT
#define ZM_PEER_EVICT 1
#endif

/** Keys of z_put (without a declared key expression) whose matching peers are remembered. */
#ifndef ZM_PUT_CACHE_SLOTS
#define ZM_PUT_CACHE_SLOTS 4
#endif

/** Gets of a session waiting for replies at once (each ~100 B and its key); one more is refused with ZM_E_LIMIT. */
#ifndef ZM_GETS_MAX
#if defined(ZM_NO_HEAP) && ZM_NO_HEAP
#define ZM_GETS_MAX 16
#else
#define ZM_GETS_MAX 1024
#endif
#endif

/**
 * Keys a get consolidates (monotonic: their last timestamps; latest: their newest replies, kept
 * until the get ends); replies on more keys go to the application unconsolidated.
 */
#ifndef ZM_GET_KEPT_MAX
#define ZM_GET_KEPT_MAX 64
#endif

/**
 * Bytes of replies one get keeps for consolidation; a latest reply that does not fit is given at once,
 * only its key and timestamp kept (its key is then consolidated as monotonic: no loss, no older reply).
 */
#ifndef ZM_GET_KEPT_BYTES
#if defined(ZM_NO_HEAP) && ZM_NO_HEAP
#define ZM_GET_KEPT_BYTES 2048u
#else
#define ZM_GET_KEPT_BYTES (1024u * 1024u)
#endif
#endif

/** Bytes of kept replies all the gets of a session hold together, as ZM_GET_KEPT_BYTES for one get. */
#ifndef ZM_GETS_KEPT_BYTES
#if defined(ZM_NO_HEAP) && ZM_NO_HEAP
#define ZM_GETS_KEPT_BYTES 4096u
#else
#define ZM_GETS_KEPT_BYTES (8u * 1024u * 1024u)
#endif
#endif

/** Longest key such a slot holds; z_put on longer keys matches them against every declaration. */
#ifndef ZM_PUT_CACHE_KEY_MAX
#define ZM_PUT_CACHE_KEY_MAX 96
#endif

/** Longest key expression a received message may resolve to (scope + suffix). */
#ifndef ZM_KEYEXPR_MAX
#define ZM_KEYEXPR_MAX 1024
#endif

/** How long a peer that connects to us has to finish its handshake, from its arrival. */
#ifndef ZM_ACCEPT_TIMEOUT_MS
#define ZM_ACCEPT_TIMEOUT_MS 5000u
#endif

/** Handshakes an accepting node runs at once; a newcomer beyond them evicts the oldest. */
#ifndef ZM_ACCEPT_PENDING_MAX
#define ZM_ACCEPT_PENDING_MAX 4
#endif

/**
 * Receive buffer of each pending handshake, and of a connecting one (on its stack), 2-byte stream
 * prefix included: a longer InitSyn or OpenSyn is refused (CLOSE INVALID), a longer InitAck fails
 * the connection. Rust 1.10.2 sends well under 200 bytes of any of them with its default
 * extensions; the rest leaves room for auth and shm extensions.
 */
#ifndef ZM_HANDSHAKE_BUF_SIZE
#define ZM_HANDSHAKE_BUF_SIZE 512
#endif

/** Sockets one wait can watch (zm_port_socket_wait_any): listener, pending handshakes, peers. */
#ifndef ZM_SOCKET_WAIT_MAX
#define ZM_SOCKET_WAIT_MAX 32
#endif

/**
 * Microseconds a read task that has just written on its TCP link (a callback that answered or
 * echoed) polls the link for the next message before it sleeps, on the POSIX port with threads:
 * a round trip then costs no wake-up of the reader's CPU. Polls that keep finding nothing
 * soon stop being tried (port/posix/port.c). 0: the reader always sleeps.
 */
#ifndef ZM_READ_POLL_US
#define ZM_READ_POLL_US 40
#endif

/** Largest batch on a serial link (Rust: 1500); a smaller one shrinks every serial buffer. */
#ifndef ZM_SERIAL_MTU
#define ZM_SERIAL_MTU 1500
#endif

/** Bytes a serial link takes from its line per read, before the framing looks for frames in them. */
#ifndef ZM_SERIAL_RX_CHUNK
#define ZM_SERIAL_RX_CHUNK 256
#endif

/** Bytes a serial link encodes before it writes them to the line: its frames need no buffer of their size. */
#ifndef ZM_SERIAL_TX_CHUNK
#define ZM_SERIAL_TX_CHUNK 64
#endif

/**
 * Largest batch on a UDP link, which is one datagram (Rust: 65535 - 8 - 40, the largest payload
 * of an IPv6 datagram with its headers counted as Rust does); the batch of a transport over UDP is
 * the smaller of this and ZM_BATCH_UNICAST_SIZE. A smaller one (e.g. 1400) keeps datagrams within
 * an Ethernet frame, where losing one IP fragment would lose the whole batch.
 */
#ifndef ZM_UDP_MTU
#define ZM_UDP_MTU 65487
#endif

/**
 * Bytes a UDP link sends at once before it paces its datagrams (at ZM_UDP_PACE_BYTES_PER_MS): the
 * fragments of a large message would otherwise overflow the peer's socket buffer (about 200 kB by
 * default on Linux, Rust's too) and be lost.
 */
#ifndef ZM_UDP_BURST
#define ZM_UDP_BURST (64u * 1024u)
#endif
/** The rate a UDP link keeps beyond ZM_UDP_BURST, in bytes per millisecond; 0: no pacing. */
#ifndef ZM_UDP_PACE_BYTES_PER_MS
#define ZM_UDP_PACE_BYTES_PER_MS (16u * 1024u)
#endif

/** Longest serial device name (an endpoint's address), in bytes. */
#ifndef ZM_SERIAL_DEV_MAX
#define ZM_SERIAL_DEV_MAX 128
#endif

/** How long a serial opener waits for the listener's INIT|ACK before it sends its INIT again. */
#ifndef ZM_SERIAL_INIT_RETRY_MS
#define ZM_SERIAL_INIT_RETRY_MS 1000u
#endif

/** Lease announced in OPEN, in milliseconds (Rust default). */
#ifndef ZM_LEASE_MS
#define ZM_LEASE_MS 10000u
#endif

/** Keep-alives sent per lease period when the link is otherwise idle (Rust: 4). */
#ifndef ZM_KEEP_ALIVE_DIVISOR
#define ZM_KEEP_ALIVE_DIVISOR 4u
#endif

/** How long a BLOCK send may wait for the peer to read before its link is declared dead (Rust: 5 s). */
#ifndef ZM_TX_BLOCK_TIMEOUT_MS
#define ZM_TX_BLOCK_TIMEOUT_MS 5000u
#endif

/** How long a batch of DROP messages waits for room before it is dropped (Rust: 1 ms). */
#ifndef ZM_TX_DROP_WAIT_MS
#define ZM_TX_DROP_WAIT_MS 1u
#endif

/** Longest lease accepted from a peer, in milliseconds; a longer one is clamped to it. */
#ifndef ZM_LEASE_MAX_MS
#define ZM_LEASE_MAX_MS 60000u
#endif

/** Nodes one scout remembers, to report each of them once however many HELLOs it sends. */
#ifndef ZM_SCOUT_SEEN_MAX
#define ZM_SCOUT_SEEN_MAX 16
#endif

/** Largest HELLO a scout reads, in bytes; a longer datagram is dropped whole. */
#ifndef ZM_SCOUT_HELLO_MAX
#define ZM_SCOUT_HELLO_MAX 2048
#endif

/** SCOUTs a listening peer reads per wake-up of its task (or per zp_read); the rest wait. */
#ifndef ZM_SCOUT_ANSWER_BURST
#define ZM_SCOUT_ANSWER_BURST 8
#endif

/** SCOUTs a listening peer answers per second at most (a second's worth at once): the rest are dropped. */
#ifndef ZM_SCOUT_ANSWER_RATE
#define ZM_SCOUT_ANSWER_RATE 10
#endif

/** Longest a session tries a scouted node's locators, all together, in ms; all nodes: scouting's timeout more. */
#ifndef ZM_SCOUT_DIAL_MS
#define ZM_SCOUT_DIAL_MS 4000u
#endif

/** Entries a z_owned_config_t holds (each a key and a copied string; CONNECT may repeat). */
#ifndef ZM_CONFIG_ENTRIES_MAX
#define ZM_CONFIG_ENTRIES_MAX 16
#endif

/* ---- codec -------------------------------------------------------------------------------- */

/**
 * The codec encodes and decodes every message and extension of the protocol (1: tools, tests, a
 * node that may send anything), or only what this build sends and reads (0: no query, reply,
 * interest, OAM or JOIN encoder unless a feature sends them, no handshake extension zmote never
 * announces; a build that takes nothing from network messages, a publisher-only client, reads
 * a batch no further than its first FRAME). A node still reads, or skips, whatever a peer sends.
 */
#ifndef ZM_CODEC_FULL
#define ZM_CODEC_FULL 1
#endif

/* ---- memory ------------------------------------------------------------------------------- */

/**
 * No heap: every block comes from static pools (ZM_POOL_CLASSES) and sessions from a static
 * table (ZM_SESSIONS_MAX); nothing calls zm_port_malloc, so the port's heap is never linked in.
 */
#ifndef ZM_NO_HEAP
#define ZM_NO_HEAP 0
#endif

/** Sessions a no-heap build holds open at once, each a static record. */
#ifndef ZM_SESSIONS_MAX
#define ZM_SESSIONS_MAX 1
#endif

/**
 * The pools of a no-heap build, smallest blocks first: X(block size, block count) per class. An
 * allocation takes a block of the smallest class that fits, or fails when it has none free: a
 * class never lends to smaller requests. Every declaration, key expression copy, handler buffer
 * and each transport's two batch buffers come from here; reassembly from ZM_FRAG_POOL_BLOCKS.
 */
#ifndef ZM_POOL_CLASSES
#define ZM_POOL_CLASSES(X)                                                                     \
    X(32, 32)                                                                                  \
    X(64, 32)                                                                                  \
    X(160, 16)                                                                                 \
    X(512, 8)                                                                                  \
    X(ZM_BATCH_UNICAST_SIZE + 2, 2 * ZM_PEERS_MAX)
#endif

/* Reassembly of fragmented messages: what a peer can make this node hold, within two bounds. */

/** A no-heap build's blocks of ZM_FRAG_MAX_SIZE bytes for reassembly alone (no other class gives one). */
#ifndef ZM_FRAG_POOL_BLOCKS
#define ZM_FRAG_POOL_BLOCKS 1
#endif

/** Bytes the reassemblies of one peer or multicast member hold at once; a message beyond is dropped. */
#ifndef ZM_FRAG_PEER_BYTES_MAX
#if ZM_NO_HEAP /* half the pool's blocks, at least one: a block per message */
#define ZM_FRAG_PEER_BYTES_MAX ((ZM_FRAG_POOL_BLOCKS + 1) / 2 * ZM_FRAG_MAX_SIZE)
#else
#define ZM_FRAG_PEER_BYTES_MAX ZM_FRAG_MAX_SIZE
#endif
#endif

/** Bytes every reassembly of a session holds at once; past it the idlest larger one gives way, or the message is dropped. */
#ifndef ZM_FRAG_BYTES_MAX
#if ZM_NO_HEAP
#define ZM_FRAG_BYTES_MAX (ZM_FRAG_POOL_BLOCKS * ZM_FRAG_MAX_SIZE)
#else
#define ZM_FRAG_BYTES_MAX (ZM_FRAG_MAX_SIZE + ZM_FRAG_MAX_SIZE / 2u)
#endif
#endif

/* A session's memory account (src/util/account.h): what all its peers make it hold, by kind
 * (declarations; reassembly, ZM_FRAG_BYTES_MAX; kept replies, ZM_GETS_KEPT_BYTES) and in all. */

/** Bytes the declarations of all the peers of a session hold (records and keys); past it a peer's declaration closes its link, a router's is ignored. */
#ifndef ZM_SESSION_DECL_BYTES_MAX
#if ZM_NO_HEAP
#define ZM_SESSION_DECL_BYTES_MAX 2048u
#else
#define ZM_SESSION_DECL_BYTES_MAX (2u * 1024u * 1024u)
#endif
#endif

/** Bytes a session holds for its peers, every kind together (by default each kind's bound alone binds). */
#ifndef ZM_SESSION_BYTES_MAX
#define ZM_SESSION_BYTES_MAX (ZM_SESSION_DECL_BYTES_MAX + ZM_FRAG_BYTES_MAX + ZM_GETS_KEPT_BYTES)
#endif

/* ---- logging ------------------------------------------------------------------------------ */

/**
 * Most detailed log level compiled in: 0 none, 1 errors, 2 warnings, 3 info, 4 debug. Unset, it
 * follows zenoh-pico's switches when one is defined: ZENOH_DEBUG (0 none, 1 errors, 2 info,
 * 3 debug; it wins over the others, as in zenoh-pico), else the most detailed of ZENOH_LOG_TRACE
 * and ZENOH_LOG_DEBUG (debug), ZENOH_LOG_INFO, ZENOH_LOG_WARN, ZENOH_LOG_ERROR.
 */
#ifndef ZM_LOG_LEVEL
#if defined(ZENOH_DEBUG)
#if ZENOH_DEBUG >= 3
#define ZM_LOG_LEVEL 4
#elif ZENOH_DEBUG == 2
#define ZM_LOG_LEVEL 3
#elif ZENOH_DEBUG == 1
#define ZM_LOG_LEVEL 1
#else
#define ZM_LOG_LEVEL 0
#endif
#elif defined(ZENOH_LOG_TRACE) || defined(ZENOH_LOG_DEBUG)
#define ZM_LOG_LEVEL 4
#elif defined(ZENOH_LOG_INFO)
#define ZM_LOG_LEVEL 3
#elif defined(ZENOH_LOG_WARN)
#define ZM_LOG_LEVEL 2
#elif defined(ZENOH_LOG_ERROR)
#define ZM_LOG_LEVEL 1
#else
#define ZM_LOG_LEVEL 2
#endif
#endif

/* ---- port/baremetal ------------------------------------------------------------------------ */

/** The bare-metal heap counts the bytes in use and their peak (zm_baremetal_heap_stats). */
#ifndef ZM_BAREMETAL_HEAP_STATS
#define ZM_BAREMETAL_HEAP_STATS 1
#endif

/* ---- port/posix ---------------------------------------------------------------------------- */

/**
 * Receive buffer asked of the system for each UDP socket, in bytes (0: the system's default): a
 * burst of large datagrams, the fragments of one big message, must not overflow it. The port
 * passes the system's ceiling where it may (Linux: SO_RCVBUFFORCE), else gets what it allows.
 */
#ifndef ZM_UDP_RCVBUF
#define ZM_UDP_RCVBUF (4u << 20)
#endif

/* ---- port/freertos ------------------------------------------------------------------------- */

/**
 * Stack of each task the library starts (a link's read task, the lease task, the accept task),
 * in bytes: the read task runs the application's callbacks on it, so it covers zp_read's bound
 * (scripts/check-stack.sh) plus the deepest callback.
 */
#ifndef ZM_FREERTOS_TASK_STACK
#define ZM_FREERTOS_TASK_STACK 3072u
#endif

/** FreeRTOS priority of the tasks the library starts: at or above the application's that use zmote. */
#ifndef ZM_FREERTOS_TASK_PRIORITY
#define ZM_FREERTOS_TASK_PRIORITY 2
#endif

/* ---- checks ------------------------------------------------------------------------------- */

/** Internal invariant checks (ZM_ASSERT): on in debug, test and fuzz builds. */
#ifndef ZM_ASSERT_ENABLED
#define ZM_ASSERT_ENABLED 1
#endif

#if ZM_BATCH_UNICAST_SIZE > 65535 || ZM_BATCH_UNICAST_SIZE < 64
#error "ZM_BATCH_UNICAST_SIZE must be within 64..65535 (a u16 on the wire)"
#endif
#if ZM_FREERTOS_TASK_STACK < 1024
#error "ZM_FREERTOS_TASK_STACK must be at least 1024 bytes: a read task runs zp_read's frames and callbacks"
#endif
#if ZM_EXT_UNKNOWN_MAX < 0 || ZM_EXT_UNKNOWN_MAX > 16
#error "ZM_EXT_UNKNOWN_MAX must be within 0..16"
#endif
#if ZM_PEERS_MAX < 1 || ZM_PEERS_MAX > 255
#error "ZM_PEERS_MAX must be within 1..255"
#endif
#if ZM_PEER_DECLS_MAX < 1 || ZM_PEER_DECLS_MAX > 16777216
#error "ZM_PEER_DECLS_MAX must be within 1..2^24"
#endif
#if ZM_ROUTER_DECLS_MAX < 1 || ZM_ROUTER_DECLS_MAX > 16777216
#error "ZM_ROUTER_DECLS_MAX must be within 1..2^24"
#endif
#if ZM_KEYEXPR_MAX > 65535
#error "ZM_KEYEXPR_MAX must fit a u16"
#endif
#if ZM_PUT_CACHE_SLOTS < 0 || ZM_PUT_CACHE_KEY_MAX < 1 || ZM_PUT_CACHE_KEY_MAX > 65535
#error "ZM_PUT_CACHE_SLOTS must be >= 0 and ZM_PUT_CACHE_KEY_MAX within 1..65535"
#endif
#if ZM_ACCEPT_PENDING_MAX < 1 || ZM_ACCEPT_PENDING_MAX > 64
#error "ZM_ACCEPT_PENDING_MAX must be within 1..64"
#endif
#if ZM_HANDSHAKE_BUF_SIZE < 64 || ZM_HANDSHAKE_BUF_SIZE > 65537
#error "ZM_HANDSHAKE_BUF_SIZE must be within 64..65537"
#endif
#if ZM_SOCKET_WAIT_MAX < ZM_ACCEPT_PENDING_MAX + ZM_PEERS_MAX + 1 + Z_FEATURE_MULTICAST_TRANSPORT + Z_FEATURE_SCOUTING
#error "ZM_SOCKET_WAIT_MAX must cover a listener, every pending handshake, every peer, a multicast group and the scouting socket"
#endif
#if ZM_SCOUT_SEEN_MAX < 1 || ZM_SCOUT_HELLO_MAX < 64 || ZM_SCOUT_HELLO_MAX > 65535 || ZM_SCOUT_ANSWER_BURST < 1
#error "ZM_SCOUT_SEEN_MAX and ZM_SCOUT_ANSWER_BURST must be at least 1, ZM_SCOUT_HELLO_MAX within 64..65535"
#endif
#if ZM_SCOUT_ANSWER_RATE < 1 || ZM_SCOUT_ANSWER_RATE > 1000 || ZM_SCOUT_DIAL_MS < 100 || ZM_SCOUT_DIAL_MS > 60000
#error "ZM_SCOUT_ANSWER_RATE must be within 1..1000, ZM_SCOUT_DIAL_MS within 100..60000"
#endif
#if ZM_SERIAL_MTU < 64 || ZM_SERIAL_MTU > 1500
#error "ZM_SERIAL_MTU must be within 64..1500 (Rust refuses larger serial frames)"
#endif
#if ZM_SERIAL_RX_CHUNK < 1 || ZM_SERIAL_TX_CHUNK < 1 || ZM_SERIAL_DEV_MAX < 1
#error "ZM_SERIAL_RX_CHUNK, ZM_SERIAL_TX_CHUNK and ZM_SERIAL_DEV_MAX must be at least 1"
#endif
#if ZM_AUTH_USRPWD != 0 && ZM_AUTH_USRPWD != 1
#error "ZM_AUTH_USRPWD must be 0 or 1"
#endif
#if !Z_FEATURE_LINK_TCP && !Z_FEATURE_LINK_SERIAL && !Z_FEATURE_LINK_UDP_UNICAST && !Z_FEATURE_LINK_UDP_MULTICAST
#error "zmote needs at least one link: Z_FEATURE_LINK_TCP, _UDP_UNICAST, _SERIAL or _UDP_MULTICAST"
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT && !Z_FEATURE_LINK_UDP_MULTICAST
#error "Z_FEATURE_MULTICAST_TRANSPORT needs Z_FEATURE_LINK_UDP_MULTICAST"
#endif
#if Z_FEATURE_MULTICAST_DECLARATIONS && !Z_FEATURE_MULTICAST_TRANSPORT
#error "Z_FEATURE_MULTICAST_DECLARATIONS needs Z_FEATURE_MULTICAST_TRANSPORT"
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT && (ZM_MCAST_PEERS_MAX < 1 || ZM_PEERS_MAX + ZM_MCAST_PEERS_MAX > 250)
#error "ZM_MCAST_PEERS_MAX must be at least 1, and ZM_PEERS_MAX + ZM_MCAST_PEERS_MAX at most 250"
#endif
#if ZM_BATCH_MULTICAST_SIZE < 64 || ZM_BATCH_MULTICAST_SIZE > 65507
#error "ZM_BATCH_MULTICAST_SIZE must be within 64..65507 (a UDP datagram)"
#endif
#if ZM_UDP_MTU < 64 || ZM_UDP_MTU > 65487
#error "ZM_UDP_MTU must be within 64..65487 (Rust's largest UDP batch)"
#endif
#if ZM_KEEP_ALIVE_DIVISOR < 1
#error "ZM_KEEP_ALIVE_DIVISOR must be at least 1"
#endif

#if Z_FEATURE_LOCAL_QUERYABLE && !(Z_FEATURE_QUERY && Z_FEATURE_QUERYABLE)
#error "Z_FEATURE_LOCAL_QUERYABLE needs Z_FEATURE_QUERY and Z_FEATURE_QUERYABLE"
#endif
#if ZM_FRAG_POOL_BLOCKS < 0 || ZM_FRAG_PEER_BYTES_MAX < 1 || ZM_FRAG_BYTES_MAX < 1
#error "ZM_FRAG_POOL_BLOCKS must be at least 0, ZM_FRAG_PEER_BYTES_MAX and ZM_FRAG_BYTES_MAX at least 1"
#endif
#if ZM_GETS_MAX < 1 || ZM_GETS_MAX > 4096 || ZM_GET_KEPT_MAX < 0
#error "ZM_GETS_MAX must be within 1..4096 and ZM_GET_KEPT_MAX at least 0"
#endif
#if ZM_GETS_KEPT_BYTES < ZM_GET_KEPT_BYTES
#error "ZM_GETS_KEPT_BYTES (all gets) must be at least ZM_GET_KEPT_BYTES (one get)"
#endif
#if ZM_SESSION_DECL_BYTES_MAX < 1 || ZM_SESSION_BYTES_MAX < 1
#error "ZM_SESSION_DECL_BYTES_MAX and ZM_SESSION_BYTES_MAX must be at least 1"
#endif
#if Z_FEATURE_MATCHING && !(Z_FEATURE_PUBLICATION || Z_FEATURE_QUERY)
#error "Z_FEATURE_MATCHING needs Z_FEATURE_PUBLICATION or Z_FEATURE_QUERY"
#endif
#if Z_FEATURE_CONNECTIVITY && !defined(Z_FEATURE_UNSTABLE_API)
#error "Z_FEATURE_CONNECTIVITY needs Z_FEATURE_UNSTABLE_API"
#endif
#if Z_FEATURE_ADVANCED_PUBLICATION &&                                                                       \
    !(defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_PUBLICATION && Z_FEATURE_QUERYABLE && Z_FEATURE_LIVELINESS)
#error "Z_FEATURE_ADVANCED_PUBLICATION needs Z_FEATURE_UNSTABLE_API, PUBLICATION, QUERYABLE and LIVELINESS"
#endif
#if Z_FEATURE_ADVANCED_SUBSCRIPTION &&                                                                      \
    !(defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_SUBSCRIPTION && Z_FEATURE_QUERY && Z_FEATURE_LIVELINESS)
#error "Z_FEATURE_ADVANCED_SUBSCRIPTION needs Z_FEATURE_UNSTABLE_API, SUBSCRIPTION, QUERY and LIVELINESS"
#endif
#if ZM_ADV_SUB_PUBLISHERS < 1 || ZM_ADV_SUB_PUBLISHERS > 255 || ZM_ADV_SUB_HELD < 1 || ZM_ADV_SUB_HELD > 4096
#error "ZM_ADV_SUB_PUBLISHERS must be within 1..255 and ZM_ADV_SUB_HELD within 1..4096"
#endif
#if Z_FEATURE_LINK_WS || Z_FEATURE_LINK_BLUETOOTH || Z_FEATURE_LINK_SERIAL_USB || Z_FEATURE_RAWETH_TRANSPORT
#error "zmote has TCP, TLS, UDP and serial links only: leave the other Z_FEATURE_LINK_* and Z_FEATURE_RAWETH_TRANSPORT at 0"
#endif
#if Z_FEATURE_LINK_TLS && !Z_FEATURE_LINK_TCP
#error "Z_FEATURE_LINK_TLS needs Z_FEATURE_LINK_TCP (a TLS link runs over the port's TCP sockets)"
#endif
#if Z_FEATURE_LINK_TLS && ZM_NO_HEAP
#error "Z_FEATURE_LINK_TLS needs a heap: Mbed TLS allocates each TLS session's record buffers itself"
#endif
#if Z_FEATURE_BATCH_TX_MUTEX || Z_FEATURE_BATCH_PEER_MUTEX || Z_FEATURE_RX_CACHE || Z_FEATURE_PERIODIC_TASKS
#error "zmote has no Z_FEATURE_BATCH_TX_MUTEX, BATCH_PEER_MUTEX, RX_CACHE or PERIODIC_TASKS: leave them at 0"
#endif
#if !Z_FEATURE_TCP_NODELAY
#error "zmote always sends TCP without delay: leave Z_FEATURE_TCP_NODELAY at 1"
#endif
#if Z_FEATURE_ADMIN_SPACE && !Z_FEATURE_QUERYABLE
#error "Z_FEATURE_ADMIN_SPACE needs Z_FEATURE_QUERYABLE (the admin space is a queryable)"
#endif
#if Z_FEATURE_ADMIN_SPACE && !defined(Z_FEATURE_UNSTABLE_API)
#error "Z_FEATURE_ADMIN_SPACE needs Z_FEATURE_UNSTABLE_API defined"
#endif
#if ZM_LEASE_MS < 1 || ZM_LEASE_MS > 0x7fffffff
#error "ZM_LEASE_MS must be within 1..2^31-1 (leases are kept in 32 bits)"
#endif
#if ZM_LEASE_MAX_MS < 1 || ZM_LEASE_MAX_MS > 0x7fffffff
#error "ZM_LEASE_MAX_MS must be within 1..2^31-1 (silences are measured on a 32-bit clock)"
#endif
#if ZM_CONFIG_ENTRIES_MAX < 4 || ZM_CONFIG_ENTRIES_MAX > 255
#error "ZM_CONFIG_ENTRIES_MAX must be within 4..255"
#endif

#endif /* ZMOTE_OPT_H */
