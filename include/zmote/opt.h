/*
 * Every compile-time option of zmote, with its default and one line of doc. Override any of
 * them in your own zmote_config.h (found on the include path when ZM_CONFIG_FILE is defined)
 * or with -D. Options zenoh-pico also has keep its Z_FEATURE_* name and meaning.
 */
#ifndef ZMOTE_OPT_H
#define ZMOTE_OPT_H

#ifdef ZM_CONFIG_FILE
#include "zmote_config.h"
#endif

/* ---- features ---------------------------------------------------------------------------- */

/** Threads: a read task and a lease task per session (0: single thread, drive with zp_read). */
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

/** Reassembly of fragmented messages on receive (sending fragments is always possible). */
#ifndef Z_FEATURE_FRAGMENTATION
#define Z_FEATURE_FRAGMENTATION 1
#endif

/** Batching API (zp_batch_start / zp_batch_stop / zp_batch_flush). */
#ifndef Z_FEATURE_BATCHING
#define Z_FEATURE_BATCHING 1
#endif

/* ---- sizes -------------------------------------------------------------------------------- */

/** Largest batch this node receives on a unicast link (announced in INIT; Rust caps at 65535). */
#ifndef ZM_BATCH_UNICAST_SIZE
#define ZM_BATCH_UNICAST_SIZE 65535
#endif

/** Largest reassembled (fragmented) message accepted, in bytes. */
#ifndef ZM_FRAG_MAX_SIZE
#define ZM_FRAG_MAX_SIZE (16u * 1024u * 1024u + 4096u)
#endif

/** Unknown, non-mandatory extensions kept per decoded message (for faithful re-encoding). */
#ifndef ZM_EXT_UNKNOWN_MAX
#define ZM_EXT_UNKNOWN_MAX 2
#endif

/** Connect or listen endpoints a session keeps (each). */
#ifndef ZM_ENDPOINTS_MAX
#define ZM_ENDPOINTS_MAX 8
#endif

/** Transports a peer-mode session holds at once (accepted plus connected). */
#ifndef ZM_PEERS_MAX
#define ZM_PEERS_MAX 8
#endif

/** Longest key expression a received message may resolve to (scope + suffix). */
#ifndef ZM_KEYEXPR_MAX
#define ZM_KEYEXPR_MAX 1024
#endif

/** Lease announced in OPEN, in milliseconds (Rust default). */
#ifndef ZM_LEASE_MS
#define ZM_LEASE_MS 10000u
#endif

/** Keep-alives sent per lease period when the link is otherwise idle (Rust: 4). */
#ifndef ZM_KEEP_ALIVE_DIVISOR
#define ZM_KEEP_ALIVE_DIVISOR 4u
#endif

/* ---- checks ------------------------------------------------------------------------------- */

/** Internal invariant checks (ZM_ASSERT): on in debug, test and fuzz builds. */
#ifndef ZM_ASSERT_ENABLED
#define ZM_ASSERT_ENABLED 1
#endif

#if ZM_BATCH_UNICAST_SIZE > 65535 || ZM_BATCH_UNICAST_SIZE < 64
#error "ZM_BATCH_UNICAST_SIZE must be within 64..65535 (a u16 on the wire)"
#endif
#if ZM_EXT_UNKNOWN_MAX < 0 || ZM_EXT_UNKNOWN_MAX > 16
#error "ZM_EXT_UNKNOWN_MAX must be within 0..16"
#endif
#if ZM_KEEP_ALIVE_DIVISOR < 1
#error "ZM_KEEP_ALIVE_DIVISOR must be at least 1"
#endif

#endif /* ZMOTE_OPT_H */
