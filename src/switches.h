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
/* The same for the parts of a feature that are a statement or a field here and there: what
 * accepts (a peer's listener, its task), a multicast group's, user/password authentication's,
 * reassembly's. */
#if Z_FEATURE_UNICAST_PEER
#define ZM_IF_PEER(...) __VA_ARGS__
#else
#define ZM_IF_PEER(...)
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT
#define ZM_IF_MCAST(...) __VA_ARGS__
#else
#define ZM_IF_MCAST(...)
#endif
#if ZM_AUTH_USRPWD
#define ZM_IF_USRPWD(...) __VA_ARGS__
#else
#define ZM_IF_USRPWD(...)
#endif
#if Z_FEATURE_FRAGMENTATION
#define ZM_IF_FRAGMENTATION(...) __VA_ARGS__
#else
#define ZM_IF_FRAGMENTATION(...)
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
/* The PUSH of a stream of samples (a key id alone, a plain PUT) decoded on a path of its own
 * (zm_batch_next_network), where any peer may stream to the build; a client of the smallest
 * kind keeps the flash, and decodes every PUSH the one way. */
#define ZM_DECODE_PUSH_PLAIN ZM_DECODE_ALL_NETWORK
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
 * encodes DECLARE alone, with the QoS extension alone, without the extension table (PUSHes go out
 * through zm_push_encode in every build): a message with any other extension fails to encode
 * (Z_EINVAL) rather than go out without.
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
/* A build optimised for speed (not -Os, where flash counts) encodes the common PUSH in one piece. */
#ifdef __OPTIMIZE_SIZE__
#define ZM_ENCODE_FAST 0
#else
#define ZM_ENCODE_FAST 1
#endif
/* There too, a publisher keeps its PUSH encoded up to the payload, for its puts without options
 * (api/pubsub.c, session/data.c: zm_session_put_head). */
#define ZM_PUT_HEAD (ZM_ENCODE_FAST && Z_FEATURE_PUBLICATION)
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
/* Whether INIT's and OPEN's Auth extension is read and written: for user/password authentication. */
#define ZM_CODEC_AUTH (ZM_CODEC_FULL || ZM_AUTH_USRPWD)

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
/* Whether a batch's write is tried at once before the clock is read for its deadlines: with
 * threads (a sender that must wait tells the others first), and in a build for speed. */
#define ZM_TX_TRY_FIRST (Z_FEATURE_MULTI_THREAD || ZM_ENCODE_FAST)

/*
 * Whether a connecting node receives the handshake into a buffer of its own, and sizes its
 * receive buffer by the batch the InitAck agrees: a link over IP proposes batches up to 64 KiB,
 * which a router may answer smaller. A client whose only link is a serial line proposes the
 * line's MTU, which is Rust's too (ZM_SERIAL_MTU): its receive buffer, allocated as proposed,
 * serves the handshake.
 */
#define ZM_RX_AGREED (!ZM_LINK_DIRECT)

/* Whether the build answers SCOUTs: a listening peer does, with the addresses it listens on; only
 * builds with peers have a listener. */
#define ZM_SCOUT_RESPONDER (Z_FEATURE_SCOUTING && Z_FEATURE_UNICAST_PEER)
#if ZM_SCOUT_RESPONDER
#define ZM_IF_RESPONDER(...) __VA_ARGS__
#else
#define ZM_IF_RESPONDER(...)
#endif

#if ZM_TX_ONE_FRAME && (ZM_TX_PUSH_BATCH || Z_FEATURE_FRAGMENTATION)
#error "a batch of one FRAME is neither held open nor fragmented"
#endif
#if ZM_SCOUT_RESPONDER && !ZM_LINK_IP
#error "scouting needs a link over IP"
#endif

/* ---- session ----------------------------------------------------------------------------- */

/* Liveliness subscribers (they deliver samples) and liveliness gets (they are queries). */
#define ZM_LIVELINESS_SUBS (Z_FEATURE_LIVELINESS && Z_FEATURE_SUBSCRIPTION)
#define ZM_LIVELINESS_GET (Z_FEATURE_LIVELINESS && Z_FEATURE_QUERY)

/*
 * A client hears of tokens only when it asked: its router reports them to its liveliness
 * subscribers' and gets' interests. In a build that is only a client, the code that takes that
 * news is reached through s->live_rx, which the first liveliness subscriber or get sets, so that
 * a program with neither (one that only declares tokens) does not link it. Peers push their
 * tokens unasked, so a build with peers calls it directly.
 */
#define ZM_LIVELINESS_LATE \
    ((ZM_LIVELINESS_SUBS || ZM_LIVELINESS_GET) && !Z_FEATURE_UNICAST_PEER && !Z_FEATURE_MULTICAST_TRANSPORT)

/*
 * Local entities kept in lists: subscribers (s->subs), queryables (s->qbls) and matching
 * listeners (s->mls) with their callbacks, liveliness tokens (s->tokens), liveliness
 * subscribers (s->lsubs) and connectivity listeners (s->conns).
 */
#define ZM_LOCAL_ENTITIES \
    (Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERYABLE || Z_FEATURE_MATCHING || Z_FEATURE_LIVELINESS || Z_FEATURE_CONNECTIVITY)
/* Whether the application's callbacks may run inside the session (a close from one waits for a
 * close from outside): its entities', or its gets' replies. */
#define ZM_APP_CALLBACKS (ZM_LOCAL_ENTITIES || Z_FEATURE_QUERY)

/* Whether peers' activity is tracked: it orders evictions, and only a peer that accepts evicts.
 * Elsewhere the read path does not note each message. */
#define ZM_PEER_ACTIVITY (ZM_PEER_EVICT && Z_FEATURE_UNICAST_PEER)

/*
 * Puts go only to the peers that subscribed to their key (a write filter) in peer mode with
 * interests. A client sends everything to its router, which routes: it tracks no subscriber.
 */
#define ZM_WRITE_FILTER (Z_FEATURE_UNICAST_PEER && Z_FEATURE_INTEREST)

/* A build optimised for speed (not -Os, where flash counts) keeps the subscribers that a peer's
 * stream on one key goes to, instead of matching every subscriber per sample (session/subs.c). */
#ifdef __OPTIMIZE_SIZE__
#define ZM_DISPATCH_MEMO 0
#else
#define ZM_DISPATCH_MEMO Z_FEATURE_SUBSCRIPTION
#endif

/*
 * Peers' declarations are kept where something reads them: to resolve the keys of samples
 * (subscription), of queries and replies, and of subscribers and queryables (the write filter,
 * matching). A build with none of these, a publisher-only client, ignores them.
 */
#define ZM_REMOTE_DECLS \
    (Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERY || Z_FEATURE_QUERYABLE || ZM_WRITE_FILTER || Z_FEATURE_MATCHING || \
     Z_FEATURE_LIVELINESS)

/*
 * Peers' subscribers are counted against our keys for the write filter, and for the matching
 * status of our publishers.
 */
#define ZM_SUB_TRACKING (ZM_WRITE_FILTER || Z_FEATURE_MATCHING)

/* Peers' queryables are kept for the matching status of our queriers. */
#define ZM_QBL_TRACKING (Z_FEATURE_QUERY && Z_FEATURE_MATCHING)

/*
 * Our key expressions are looked up by id on the data path where a peer may name one (receiver
 * mapping) or a put reads its hits: there s->keys is an id map. A build that keeps no peer
 * declarations (a publisher-only client) looks them up only to declare and undeclare, and keeps
 * them in a list, without the map's code.
 */
#define ZM_LKEY_MAP ZM_REMOTE_DECLS

/*
 * Peer slots. The first ZM_PEERS_MAX hold unicast transports. With multicast, the next one holds
 * the group (ZM_GROUP_SLOT: the transport what we send to the group goes on; it declares nothing),
 * and the ZM_MCAST_PEERS_MAX after it the group's members, each a remote peer for declarations,
 * queries and liveliness, whose transport is only its receive state: what we send to one goes to
 * the group (zm_peer_t.tx). zm_peers_pin visits the ZM_PEERS_PIN slots we send on: unicast peers
 * and the group, never its members.
 */
#define ZM_GROUP_SLOT ZM_PEERS_MAX /* the slot after the unicast ones, empty without multicast */
#if Z_FEATURE_MULTICAST_TRANSPORT
#define ZM_PEERS_PIN (ZM_PEERS_MAX + 1)
#define ZM_PEER_SLOTS (ZM_PEERS_PIN + ZM_MCAST_PEERS_MAX)
#else
#define ZM_PEERS_PIN ZM_PEERS_MAX
#define ZM_PEER_SLOTS ZM_PEERS_MAX
#endif

/*
 * Whether a session allocates its slots when it opens, as many as its mode and endpoints let it
 * use (session.c: a client its router's; a peer one per endpoint it connects to, or ZM_PEERS_MAX
 * when it listens; the group's and its members' only with a multicast endpoint): a build with
 * peers or a group. One that opens clients only holds its one slot inline.
 */
#define ZM_SLOTS_SIZED (Z_FEATURE_UNICAST_PEER || Z_FEATURE_MULTICAST_TRANSPORT)

/*
 * Whether a session reads its endpoint strings after open: to reconnect (or scout again), to
 * dial and listen as a peer, or to show them in the admin space. Only then are they copied; a
 * client that never reconnects reads them during open alone, where the caller's are valid.
 */
#define ZM_KEEPS_ENDPOINTS \
    (Z_FEATURE_UNICAST_PEER || Z_FEATURE_AUTO_RECONNECT || Z_FEATURE_MULTICAST_TRANSPORT || Z_FEATURE_ADMIN_SPACE)

/*
 * Whether a node can meet a router or peer after it declared something, and must then push its
 * declarations to it: a peer accepts and dials at any time, a client reconnects. A client that
 * never reconnects meets its one router or peer inside z_open, before any declaration exists.
 */
#define ZM_PUSH_DECLS ZM_TX_PUSH_BATCH /* the transport's batch held open for that push */

/*
 * Our publishers and queriers are kept where something reads them after they are declared: the
 * matching status of both, a querier's target. A build with neither keeps no record of them: a
 * publisher is then a use of its key expression, and goes by its key id.
 */
#define ZM_SENDERS_KEPT (Z_FEATURE_MATCHING || Z_FEATURE_QUERY)

/* Sanity checks of the options the session sizes itself by. */
#if ZM_PEERS_MAX < 1
#error "ZM_PEERS_MAX must be at least 1: a client needs its router's slot"
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT && ZM_PEERS_MAX + 1 + ZM_MCAST_PEERS_MAX > 255
#error "ZM_PEERS_MAX + 1 + ZM_MCAST_PEERS_MAX must stay below 256: a peer's slot index is a byte"
#endif

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
