/*
 * Every internal switch, derived once from the public options (zmote/opt.h) and nowhere else:
 * what a build links follows from the Z_FEATURE_* and ZM_* options a user sets, so each switch
 * is written here, with why it exists, and its sanity checks beside it (as lwIP's opt.h/init.c).
 * A switch removes code; it never renames a function, changes a linkage or a locking rule.
 * Sections go from the bottom layer up, and a switch reads only options and switches above it.
 */
#ifndef ZM_SWITCHES_H
#define ZM_SWITCHES_H

#include "zmote/opt.h"

/* ---- every layer ------------------------------------------------------------------------- */

/*
 * Z_FEATURE_UNSTABLE_API is defined or not (zenoh-pico tests it with #ifdef); ZM_UNSTABLE_API is
 * the same as 0 or 1, so that every layer tests it as it tests the other options, with #if.
 */
#ifdef Z_FEATURE_UNSTABLE_API
#define ZM_UNSTABLE_API 1
#else
#define ZM_UNSTABLE_API 0
#endif

/*
 * A statement (or part of a condition) that exists only with its option, as Zephyr's IF_ENABLED:
 * what a single-thread build has no object for (a lock, a condition variable, an atomic's
 * initialisation, a task), and what the unstable API alone declares (zmote.h's fields of it),
 * written inline where it happens rather than under an #if each.
 */
#if Z_FEATURE_MULTI_THREAD
#define ZM_IF_THREADS(...) __VA_ARGS__
#else
#define ZM_IF_THREADS(...)
#endif
#if ZM_UNSTABLE_API
#define ZM_IF_UNSTABLE(...) __VA_ARGS__
#else
#define ZM_IF_UNSTABLE(...)
#endif

/* ---- links ------------------------------------------------------------------------------- */

/* Whether the build has a link over IP, whose endpoints are `host:port`, or scouts (its group is one). */
#define ZM_LINK_IP (Z_FEATURE_LINK_TCP || Z_FEATURE_LINK_UDP_UNICAST || Z_FEATURE_LINK_UDP_MULTICAST || Z_FEATURE_SCOUTING)

/*
 * Whether this build has a link that moves bytes (read and write: TCP's stream) rather than whole
 * batches (send and recv: the serial line, which frames its batches itself). Only such a link
 * needs the stream framing and the buffered reader of link.c; a build without one has neither.
 */
#define ZM_LINK_BYTES Z_FEATURE_LINK_TCP

/*
 * Whether the build's only link is a client's serial line (no link over IP, no listener): link.c
 * then calls the line's operations directly rather than through a table, and a link is open while
 * it holds its line (ctx). Links of caller-supplied operations (zm_link_init) need the table.
 */
#define ZM_LINK_DIRECT (Z_FEATURE_LINK_SERIAL && !ZM_LINK_IP && !Z_FEATURE_UNICAST_PEER)

/* Whether a link may share its socket with others (the links a UDP listener accepts). */
#define ZM_LINK_SHARED (Z_FEATURE_LINK_UDP_UNICAST && Z_FEATURE_UNICAST_PEER)

#if ZM_LINK_DIRECT && (ZM_LINK_BYTES || ZM_LINK_SHARED)
#error "a direct serial line must be the build's only link"
#endif

/* ---- codec ------------------------------------------------------------------------------- */

/*
 * ZM_CODEC_FULL (opt.h) builds every encoder and decoder (the dump tool, the fuzzers, the tests of
 * the codec). Without it a build encodes only what it sends and decodes only what it can receive,
 * by message kind: each switch below names a kind, and what of the build needs it.
 *
 * The network messages it reads, the contents of FRAMEs and FRAGMENTs: a peer and a multicast
 * node read every one; a client only those its features take something from, for Rust sends it
 * no other (data only to its subscribers, queries only to its queryables, replies only to its
 * queries, declarations only in answer to its interests). Decoding one of the others is
 * ZM_E_MSG_UNKNOWN, and a batch that holds one is read no further (zm_batch_next_network).
 */
#define ZM_DECODE_ALL_NETWORK (ZM_CODEC_FULL || Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT)
#define ZM_DECODE_PUSH (ZM_DECODE_ALL_NETWORK || Z_FEATURE_SUBSCRIPTION)
#define ZM_DECODE_REQUEST \
    (ZM_DECODE_ALL_NETWORK || Z_FEATURE_QUERYABLE || Z_FEATURE_LIVELINESS || Z_FEATURE_ADMIN_SPACE)
#define ZM_DECODE_RESPONSE (ZM_DECODE_ALL_NETWORK || Z_FEATURE_QUERY || Z_FEATURE_LIVELINESS)
/* A client's interests (matching, liveliness) are answered with declarations. */
#define ZM_DECODE_DECLARE (ZM_DECODE_ALL_NETWORK || Z_FEATURE_MATCHING || Z_FEATURE_LIVELINESS)
/* Nor does anyone send a client an INTEREST (it asks its router what it needs, no one asks it)
 * or a network OAM (routers exchange them). */
#define ZM_DECODE_INTEREST ZM_DECODE_ALL_NETWORK
#define ZM_DECODE_N_OAM ZM_DECODE_ALL_NETWORK
/*
 * Whether the build decodes network messages at all. A publisher-only client takes nothing from
 * them: its receiver reads no further than a FRAME's header, and reads INIT, OPEN, CLOSE and
 * KEEP_ALIVE alone, through a decoder of its own (proto/transport.c), without the decoders of
 * network messages, of their extensions and the table reader.
 */
#define ZM_DECODE_NETWORK (ZM_DECODE_PUSH || ZM_DECODE_REQUEST || ZM_DECODE_RESPONSE || ZM_DECODE_DECLARE)

/*
 * The messages only a multicast group exchanges, JOIN and the transport OAM (Rust sends no OAM on
 * a unicast link): outside the complete codec and multicast, decoding one is ZM_E_MSG_UNKNOWN.
 * A FRAGMENT where the build reassembles none is read no further either (its payload is the rest
 * of the batch anyway).
 */
#define ZM_CODEC_MULTICAST (ZM_CODEC_FULL || Z_FEATURE_MULTICAST_TRANSPORT)
#define ZM_DECODE_FRAGMENT (ZM_CODEC_FULL || (ZM_DECODE_NETWORK && Z_FEATURE_FRAGMENTATION))

/*
 * The network messages it sends besides PUSH and DECLARE: requests (gets), responses (a build with
 * queryables: the admin space is one), the final response to a query it read, interests (a
 * client's questions to its router, for matching and liveliness), network OAMs (none but the
 * complete codec's). A build that sends none of them (a client that publishes or subscribes)
 * encodes PUSH and DECLARE through one path, with the QoS extension alone, without the extension
 * table: a message with any other extension fails to encode (Z_EINVAL) rather than go out without.
 */
#define ZM_ENCODE_REQUEST (ZM_CODEC_FULL || Z_FEATURE_QUERY)
#define ZM_ENCODE_RESPONSE (ZM_CODEC_FULL || Z_FEATURE_QUERYABLE || Z_FEATURE_ADMIN_SPACE)
#define ZM_ENCODE_RESPONSE_FINAL ZM_DECODE_REQUEST
#define ZM_ENCODE_INTEREST (ZM_CODEC_FULL || Z_FEATURE_MATCHING || Z_FEATURE_LIVELINESS)
#define ZM_ENCODE_DATA_ONLY \
    (!ZM_ENCODE_REQUEST && !ZM_ENCODE_RESPONSE && !ZM_ENCODE_RESPONSE_FINAL && !ZM_ENCODE_INTEREST && !ZM_CODEC_FULL)
/*
 * Without queries nor replies (whose encoders need the extension tables anyway), a PUT or DEL
 * writes its extensions itself: the source info (with the unstable API), then the attachment.
 */
#define ZM_ENCODE_PUT_EXTS_DIRECT (!ZM_ENCODE_REQUEST && !ZM_ENCODE_RESPONSE)
/* The entity extension (a sample's source info, a reply's responder): only the unstable API sets
 * a source, only a reply has a responder. */
#define ZM_ENCODE_ENTITY (ZM_UNSTABLE_API || ZM_ENCODE_RESPONSE)
/* A declaration's wire-expression extension names the entity a U_* undeclares: a build that
 * declares no entity but keys (a publisher-only one) writes none. */
#define ZM_ENCODE_DECL_ENTITIES \
    (ZM_CODEC_FULL || Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERYABLE || Z_FEATURE_LIVELINESS || Z_FEATURE_ADMIN_SPACE)
/* Only a build that accepts sends an INIT or OPEN ack: a client's encoders know the syns alone,
 * and refuse an ack rather than send it wrong. */
#define ZM_ENCODE_ACKS (ZM_CODEC_FULL || Z_FEATURE_UNICAST_PEER)

#if ZM_CODEC_FULL && !(ZM_DECODE_NETWORK && ZM_DECODE_FRAGMENT && ZM_CODEC_MULTICAST && !ZM_ENCODE_DATA_ONLY)
#error "the complete codec must decode and encode every message"
#endif
#if (ZM_DECODE_FRAGMENT || ZM_CODEC_MULTICAST) && !ZM_DECODE_NETWORK
#error "a build that reads FRAGMENTs or a group's messages reads network messages (proto/transport.c)"
#endif
#if ZM_ENCODE_RESPONSE_FINAL && !ZM_DECODE_REQUEST
#error "a build sends the final response to the queries it reads"
#endif

/* ---- transport --------------------------------------------------------------------------- */

/*
 * Whether a session pushes its declarations to a peer through one batch held open across sends:
 * to a newcomer it accepted, the router it reconnected to, a group.
 */
#define ZM_TX_PUSH_BATCH (Z_FEATURE_UNICAST_PEER || Z_FEATURE_AUTO_RECONNECT || Z_FEATURE_MULTICAST_TRANSPORT)
/*
 * Whether a batch may stay open across sends: with zp_batch_start (Z_FEATURE_BATCHING) or while
 * a session pushes its declarations. Without, every send writes out the batch it filled before it
 * returns, and the batch is empty between calls.
 */
#define ZM_TX_BATCHING (Z_FEATURE_BATCHING || ZM_TX_PUSH_BATCH)
/* Without batching nor fragments a batch holds one FRAME at most: what it takes of the SNs is
 * one of its channel, given back by the sender itself when the batch is dropped. */
#define ZM_TX_ONE_FRAME (!ZM_TX_BATCHING && !Z_FEATURE_FRAGMENTATION)

/* Whether the handshake helpers (transport/internal.h) serve others than the opener: the acceptor
 * of a peer, a multicast group. Without, they are file-local to unicast.c, where the compiler
 * inlines those called once (106 B of the publisher-only app): the one linkage a switch changes. */
#define ZM_TRANSPORT_SHARED (Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT)

/* Whether the build answers SCOUTs: a listening peer does, with the addresses it listens on; only
 * builds with peers have a listener. */
#define ZM_SCOUT_RESPONDER (Z_FEATURE_SCOUTING && Z_FEATURE_UNICAST_PEER)

#if ZM_TX_ONE_FRAME && (ZM_TX_PUSH_BATCH || Z_FEATURE_FRAGMENTATION)
#error "a batch of one FRAME is neither held open nor fragmented"
#endif
#if ZM_SCOUT_RESPONDER && !ZM_LINK_IP
#error "scouting needs a link over IP"
#endif

/* ---- session ----------------------------------------------------------------------------- */

/* ---- api --------------------------------------------------------------------------------- */

/*
 * The options of locality, which zmote.h declares only with local subscribers or queryables (as
 * zenoh-pico does): set and read through ZM_IF_LOCAL_SUB and ZM_IF_LOCAL_QBL.
 */
#if Z_FEATURE_LOCAL_SUBSCRIBER
#define ZM_IF_LOCAL_SUB(...) __VA_ARGS__
#else
#define ZM_IF_LOCAL_SUB(...)
#endif
#if Z_FEATURE_LOCAL_QUERYABLE
#define ZM_IF_LOCAL_QBL(...) __VA_ARGS__
#else
#define ZM_IF_LOCAL_QBL(...)
#endif

#endif
