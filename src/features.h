/*
 * Every internal switch, derived once from the public options (zmote/opt.h) and nowhere else:
 * what a build links follows from the Z_FEATURE_* and ZM_* options a user sets, so each switch
 * is written here, with why it exists, and its sanity checks beside it (as lwIP's opt.h/init.c).
 * A switch removes code; it never renames a function, changes a linkage or a locking rule.
 * Sections go from the bottom layer up, and a switch reads only options and switches above it.
 */
#ifndef ZM_FEATURES_H
#define ZM_FEATURES_H

#include "zmote/opt.h"

/* ---- links ------------------------------------------------------------------------------- */

/* ---- codec ------------------------------------------------------------------------------- */

/* ---- transport --------------------------------------------------------------------------- */

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
 * listeners (s->mls) with their callbacks, liveliness tokens (s->tokens) and liveliness
 * subscribers (s->lsubs).
 */
#define ZM_LOCAL_ENTITIES (Z_FEATURE_SUBSCRIPTION || Z_FEATURE_QUERYABLE || Z_FEATURE_MATCHING || Z_FEATURE_LIVELINESS)

/* Whether peers' activity is tracked: it orders evictions, and only a peer that accepts evicts.
 * Elsewhere the read path does not note each message. */
#define ZM_PEER_ACTIVITY (ZM_PEER_EVICT && Z_FEATURE_UNICAST_PEER)

/*
 * Puts go only to the peers that subscribed to their key (a write filter) in peer mode with
 * interests. A client sends everything to its router, which routes: it tracks no subscriber.
 */
#define ZM_WRITE_FILTER (Z_FEATURE_UNICAST_PEER && Z_FEATURE_INTEREST)

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
 * Whether peers in use are pinned (refs), so that no reaper frees one under its user: where
 * another thread may reap (a read task, the lease task), or where code the session calls out to
 * may (the application's callbacks, which come with peers' declarations, scouting and the admin
 * space; a multicast group's members). A single-thread build with none of them, a
 * publisher-only one, uses a peer only within one of its own steps and reaps only between them
 * (z_info's callbacks, which may run a step, are given zids the slots themselves hold).
 */
#define ZM_PEER_PINS \
    (Z_FEATURE_MULTI_THREAD || ZM_REMOTE_DECLS || Z_FEATURE_SCOUTING || Z_FEATURE_ADMIN_SPACE || Z_FEATURE_MULTICAST_TRANSPORT)

/* Only matching and liveliness subscribers pick the peers they pin; elsewhere fn is NULL. */
#define ZM_PIN_FILTERS (Z_FEATURE_MATCHING || ZM_LIVELINESS_SUBS)

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
/* (The transport batches at least where this is true: ZM_TX_BATCHING.) */
#define ZM_PUSH_DECLS (Z_FEATURE_UNICAST_PEER || Z_FEATURE_AUTO_RECONNECT || Z_FEATURE_MULTICAST_TRANSPORT)

/*
 * Our publishers and queriers are kept where something reads them after they are declared: the
 * matching status of both, a querier's target. A build with neither keeps no record of them: a
 * publisher is then a use of its key expression, and goes by its key id.
 */
#define ZM_SENDERS_KEPT (Z_FEATURE_MATCHING || Z_FEATURE_QUERY)

/* A listening peer answers SCOUTs beside its listener: the transport's responder, which only a
 * build with unicast peers has (ZM_SCOUT_RESPONDER). */
#define ZM_ANSWERS_SCOUTS (Z_FEATURE_SCOUTING && Z_FEATURE_UNICAST_PEER)

/* Sanity checks of the options the session sizes itself by. */
#if ZM_PEERS_MAX < 1
#error "ZM_PEERS_MAX must be at least 1: a client needs its router's slot"
#endif
#if Z_FEATURE_MULTICAST_TRANSPORT && ZM_PEERS_MAX + 1 + ZM_MCAST_PEERS_MAX > 255
#error "ZM_PEERS_MAX + 1 + ZM_MCAST_PEERS_MAX must stay below 256: a peer's slot index is a byte"
#endif

/* ---- api --------------------------------------------------------------------------------- */

#endif

/* The C library's headers include a <features.h> of their own, which -Isrc finds here first: it
 * follows, as a system header, after what this file is. */
#if defined(__has_include_next)
#if __has_include_next(<features.h>)
#pragma GCC system_header
#include_next <features.h>
#endif
#endif
