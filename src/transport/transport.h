/*
 * The unicast transport: one link to one remote node, opened by the INIT/OPEN handshake, then
 * FRAMEs (batched) and FRAGMENTs both ways, keep-alives and lease expiry. A session owns one per
 * remote node (one in client mode, several in peer mode); it is shaped so that multicast and
 * further links can sit beside it later.
 *
 * Threads: any thread may send (tx state is guarded by tx_lock). Exactly one thread receives at
 * a time: the read task, or the caller of zm_transport_try_read_once() in single-thread mode; rx
 * state belongs to it. A transport is freed only after the tasks using it have been joined.
 * Received messages borrow from the rx buffer and are valid during the on_message call only.
 *
 * Congestion control, as Rust does it: a batch holding any BLOCK message (QoS D bit) waits up to
 * tx_block_timeout_ms for the peer to take it, then the link is declared dead; a batch of DROP
 * messages only (the default QoS) waits ZM_TX_DROP_WAIT_MS for room, then it is dropped and
 * counted. No sender ever waits without a bound, and the lease and close paths never wait on a
 * sender: a peer that stops reading costs its own link, not the others' keep-alives.
 */
#ifndef ZM_TRANSPORT_H
#define ZM_TRANSPORT_H

#include <stdatomic.h>

#include "link/link.h"
#include "proto/codec.h"
#include "transport/account.h"
#include "util/atomic.h"
#include "util/log.h"
#include "zmote/port.h"

/* What a node announces about itself in the handshake. */
typedef struct {
    zm_zid_t zid;
    uint8_t whatami;     /* zm_whatami_t */
    uint16_t batch_size; /* largest batch we receive */
    uint32_t lease_ms; /* within 32 bits: opt.h bounds ZM_LEASE_MS */
    bool qos; /* ask for per-priority channels */
    ZM_IF_USRPWD(
        const char *user, *password; /* opening: the credentials presented (both, or NULL: none) */
        const char *usrpwd_dict;     /* accepting: the `user:password` lines a peer must match (NULL: any peer) */
    )
} zm_transport_params_t;

struct zm_transport;

/** Called on the receiving thread for every network message; reliable is the FRAME's channel.
 *  Never called in a build that decodes no network message (!ZM_DECODE_NETWORK). */
typedef void (*zm_transport_on_message)(void *ctx, struct zm_transport *t, const zm_network_msg_t *m,
                                        bool reliable);

/* Channels: [reliable][priority]; without QoS only priority 5 (Data) is used on the wire. */
#define ZM_TX_CHANNELS 16
#define ZM_CHANNEL(reliable, prio) ((unsigned)((reliable) ? 8u : 0u) + ((prio)&7u))

/*
 * Reassembly of one channel's fragments (Rust fragments per reliability and priority). Its bytes
 * count against the peer's budget (ZM_FRAG_PEER_BYTES_MAX) and are charged to its session's
 * account (transport/account.h: ZM_FRAG_BYTES_MAX, ZM_SESSION_BYTES_MAX): a message that would exceed
 * one is dropped, as Rust drops it (the link stays); at the session's bound, a message takes the
 * room of another reassembly of the session at least as large, the one silent longest (defrag.c),
 * so that hoarded large buffers give way to live traffic.
 */
typedef struct {
    uint8_t *buf;
    size_t len;
    size_t cap;       /* bytes held, counted in the budgets */
    uint32_t sn;      /* last fragment's sn */
    uint32_t last_ms; /* low clock bits of its last fragment: a lease of silence frees it */
    bool active;      /* a first fragment was seen and no last one yet */
    bool skip;        /* without First markers: a fragment went missing, wait for a message's last one */
    bool busy;        /* its receiving thread works on buf outside the budget's lock: kept */
    bool evicted;     /* buf was taken for another message: the one collected is lost */
} zm_defrag_t;

/* A transport's reassembly, allocated at its first fragment: a slot per channel it may use. */
typedef struct zm_defrag_set {
    struct zm_defrag_set *prev, *next; /* the sets that hold bytes (defrag.c's list, under its lock) */
    size_t held;                       /* bytes the slots hold */
    uint32_t lease_ms;                 /* the peer's: a slot silent for longer is freed */
    uint32_t batch;                    /* a delivered message's buffer no larger is kept */
    uint8_t count;                     /* slots: 16 with QoS, else 2 (best effort, reliable) */
    zm_defrag_t slot[];
} zm_defrag_set_t;

/*
 * What the transports of one session share for reassembly (defrag.c): the account their buffers
 * are charged to, and the sets that hold bytes, whose idlest may give way. Every slot's buf, cap,
 * busy, evicted and last_ms, and the list, are under its spin lock (readers of several peers run
 * at once); a slot's own thread copies fragments and delivers its message outside it, busy.
 */
typedef struct {
    zm_account_t *account;
    zm_defrag_set_t *sets;
    atomic_flag lock; /* threaded builds: ATOMIC_FLAG_INIT (zero) */
} zm_defrag_share_t;

typedef struct zm_transport {
    zm_link_t link;
    /* negotiated, read-only after the handshake */
    zm_zid_t remote_zid;
    uint8_t remote_whatami;
    uint16_t batch_size;
    uint32_t sn_mask;
    bool qos;
    uint8_t patch; /* the patch level both sides speak: 0, or 1 (fragments carry First/Drop) */
    uint32_t lease_ms;        /* ours */
    uint32_t remote_lease_ms; /* the peer's: expire after this much silence (<= ZM_LEASE_MAX_MS) */

    /* tx: guarded by tx_lock */
    ZM_IF_THREADS(zm_mutex_t tx_lock;)
    uint8_t *tx_buf; /* 2 bytes of stream prefix, then the batch */
    zm_writer_t tx;  /* the batch being filled, over tx_buf + 2 */
    uint32_t tx_sn[ZM_TX_CHANNELS];
    /* used where ZM_TX_BATCHING, else a batch holds one message (or a fragment of one) and no
     * FRAME stays open */
    int tx_frame;      /* channel of the FRAME open at the end of tx, or -1 */
    bool batching;     /* zp_batch_start: keep filling until full or flushed */
    uint16_t tx_msgs;  /* network messages in the batch: what dropping it loses */
    bool tx_block;     /* the batch holds a BLOCK message: it is never dropped */
    bool tx_congested; /* the last DROP batch was dropped: drop at once until one goes out whole */
    uint32_t tx_congested_since_ms; /* low clock bits when tx_congested last became true */
#if !ZM_TX_ONE_FRAME
    uint32_t tx_sn_sent[ZM_TX_CHANNELS]; /* tx_sn as the batch began: restored if it is dropped */
#endif
    uint32_t tx_block_timeout_ms;        /* ZM_TX_BLOCK_TIMEOUT_MS; a test may shorten it */
    uint64_t tx_dropped;                 /* messages dropped by congestion control */
    /* what a sender tells the others: none in a single-thread build */
    ZM_IF_THREADS(
        atomic_uint tx_stuck_dropped;        /* DROP messages dropped without tx_lock (any thread) */
        _Atomic uint32_t tx_waiting_since;   /* low clock bits when a write began waiting, 0: none */
    )
    ZM_IF_FRAGMENTATION(
        uint8_t *frag_buf; /* a message too large for a batch, encoded whole before cutting */
        size_t frag_cap;
    )
    uint32_t last_tx_ms;   /* low clock bits of a time no later than the last batch sent, dated by the lease */
    uint32_t tx_looked_ms; /* low clock bits of the lease tick's last look */
    bool tx_sent;          /* a batch went since that look */

    /* rx: owned by the receiving thread */
    uint8_t *rx_buf;
    size_t rx_cap;
    uint32_t rx_sn[ZM_TX_CHANNELS];
    ZM_IF_FRAGMENTATION(
        zm_defrag_set_t *defrag;   /* NULL until the first fragment */
        uint32_t defrag_sweep_ms;  /* low clock bits of the last look for silent reassemblies */
    )
    zm_defrag_share_t *share; /* its session's reassembly (with Z_FEATURE_FRAGMENTATION), set with on_message */
    ZM_ATOMIC(uint32_t) last_rx_ms; /* low 32 bits of the clock when heard, as of the last zm_transport_heard_ms */
    ZM_ATOMIC(bool) rx_heard;       /* a batch came since: set by the receiver, cleared by zm_transport_heard_ms */
    bool rx_said_close; /* a CLOSE came: its link did not just drop (only warnings read it) */

    zm_transport_on_message on_message;
    void *ctx;
#if Z_FEATURE_MULTI_THREAD
    atomic_bool closed;
#else
    bool closed; /* one thread: nothing to order it against */
#endif
    bool member; /* the receive state of a multicast group's member: its JOINs come among its batches */
    ZM_IF_MCAST(
        /* a member's: written by the thread receiving on the group, read by the lease task */
        ZM_ATOMIC(uint32_t) join_ms;   /* low clock bits of its last JOIN that agreed with its first */
        ZM_ATOMIC(bool) contradicted;  /* another JOIN came from its address: only join_ms keeps it */
        bool has_data;                 /* its FRAMEs or FRAGMENTs came in its window, the last at data_ms */
        uint32_t data_ms;              /* low clock bits; the group's receiving thread only */
    )
} zm_transport_t;

/**
 * Runs the handshake as opener (we connected) or acceptor (we accepted) over an open link,
 * within timeout_ms, blocking. Either takes the link: on success t owns it and its buffers; on
 * failure it is closed, and nothing is held. CLOSE from the remote gives ZM_E_CLOSED. The
 * acceptor is zm_handshake_step run until done, waiting for the link between steps; where it
 * refuses the peer it has sent the CLOSE already.
 */
ZM_NODISCARD z_result_t zm_transport_open(zm_transport_t *t, zm_link_t *link, const zm_transport_params_t *p,
                                          uint32_t timeout_ms);
ZM_NODISCARD z_result_t zm_transport_accept(zm_transport_t *t, zm_link_t *link,
                                            const zm_transport_params_t *p, uint32_t timeout_ms);

/* ---- the acceptor's handshake, without blocking (accept.c) ------------------------------------ */
/*
 * An accepting node must not let one silent or slow newcomer hold the others up, so its side of
 * INIT/OPEN is a state machine that consumes whatever the link has and returns: many run side
 * by side on one thread. Until it succeeds a pending handshake holds nothing but its own struct
 * (the link and a ZM_HANDSHAKE_BUF_SIZE receive buffer); the transport's buffers are allocated
 * only once the OpenSyn checked out. Its cookie only has to prove that an OpenSyn answers this
 * handshake's InitAck, so 8 random bytes kept in the struct do.
 *
 * Threads: a zm_handshake_t and a zm_acceptor_t belong to the one thread that steps them (the
 * accept task, or the caller of zp_read in single-thread builds); nothing in them is locked.
 * Another thread may only zm_link_shutdown the listener, which makes zm_acceptor_step return.
 */

#define ZM_HANDSHAKE_COOKIE_LEN 8

enum {
    ZM_HANDSHAKE_IDLE,      /* no link: a free slot, or finished (the link moved on or closed) */
    ZM_HANDSHAKE_WAIT_INIT, /* accepted, InitSyn not complete yet */
    ZM_HANDSHAKE_WAIT_OPEN  /* InitAck sent, OpenSyn not complete yet */
};

typedef struct zm_handshake {
    zm_link_t link;       /* owned while state != IDLE */
    uint8_t state;        /* ZM_HANDSHAKE_* */
    uint64_t deadline_ms; /* zm_port_clock_ms() value past which it fails; 0: none */
    uint8_t cookie[ZM_HANDSHAKE_COOKIE_LEN];
    const uint8_t *key; /* the acceptor's cookie key (NULL: none): see zm_acceptor_t */
    /* negotiated from the InitSyn, kept for the OpenSyn */
    zm_zid_t remote_zid;
    uint8_t remote_whatami;
    uint8_t resolution;
    uint16_t batch_size;
    bool qos;
    uint8_t patch;
    uint8_t buf[ZM_HANDSHAKE_BUF_SIZE]; /* the link receives into it until the transport exists */
} zm_handshake_t;

/**
 * Starts accepting over link, a connection just accepted: takes ownership of it (the caller
 * forgets its copy; it must not have received anything into another buffer yet). deadline_ms is
 * a zm_port_clock_ms() value, 0 for none; zm_handshake_step fails once it has passed.
 */
void zm_handshake_start(zm_handshake_t *h, const zm_link_t *link, uint64_t deadline_ms);

/**
 * Advances h with what its link has now; never waits for the peer (its small replies are
 * written at once, within ZM_TRANSPORT_CLOSE_SEND_MS). Call it when the link is ready (zm_link_wait_any).
 *  - ZM_E_AGAIN: needs more bytes; h is still pending.
 *  - Z_OK: *out is an established transport that owns the link and its freshly allocated
 *    buffers, with any bytes the peer sent after its OpenSyn already in out's rx buffer; h is
 *    IDLE. out->on_message and out->ctx are left for the caller to set.
 *  - an error: the handshake failed and h is IDLE: its link is closed, after a CLOSE where the
 *    peer deserves one (INVALID for a malformed or unexpected message or one that does not fit
 *    the buffer, UNSUPPORTED for another protocol version, CONNECTION_TO_SELF, EXPIRED with
 *    ZM_E_TIMEOUT once the deadline has passed); none for a peer that closed or a dead link.
 *    A line is logged with the reason. Nothing is held.
 * p is only read during the call.
 */
ZM_NODISCARD z_result_t zm_handshake_step(zm_handshake_t *h, const zm_transport_params_t *p, zm_transport_t *out);

/** Gives up on a pending handshake: CLOSE(reason), best effort, then closes the link; h is IDLE.
 *  Does nothing on an IDLE h. Logs nothing: the caller knows why. */
void zm_handshake_abort(zm_handshake_t *h, uint8_t reason);

/**
 * A bounded set of pending handshakes served together: a listener's newcomers each get
 * handshake_timeout_ms from their arrival, and when all ZM_ACCEPT_PENDING_MAX slots are taken
 * a newcomer evicts the oldest (CLOSE MAX_LINKS), so a flood of idle connections costs a real
 * peer at most its own handshake time. Memory is fixed: ZM_ACCEPT_PENDING_MAX handshakes.
 * On a shared datagram socket (UDP), where a source address costs nothing to forge, an InitSyn
 * leaves no state at all: its InitAck carries what was negotiated in a cookie keyed with key and
 * bound to the source, the link ends at once, and only an OpenSyn that brings a valid cookie back
 * from that source (within the handshake timeout) makes a transport, as Rust's stateless cookie.
 */
typedef struct {
    zm_handshake_t slot[ZM_ACCEPT_PENDING_MAX];
    uint32_t arrival[ZM_ACCEPT_PENDING_MAX]; /* order of arrival, the oldest is evicted first */
    uint8_t ready[ZM_ACCEPT_PENDING_MAX];    /* reported ready by the last wait, not stepped yet */
    uint32_t arrivals;
    uint32_t timeout_ms;
    uint8_t key[16]; /* keys the stateless cookies of links on a shared socket (UDP), random */
} zm_acceptor_t;

/** An empty set whose handshakes each get timeout_ms (ZM_ACCEPT_TIMEOUT_MS for a session). */
void zm_acceptor_init(zm_acceptor_t *a, uint32_t timeout_ms);

/** Takes a link accepted elsewhere (another listener) into the set, evicting the oldest
 *  pending handshake if it is full. The caller forgets its copy of the link. */
void zm_acceptor_add(zm_acceptor_t *a, const zm_link_t *link);

/**
 * One round of the acceptor: first steps the handshakes a previous round found ready but did
 * not get to; otherwise waits up to timeout_ms (less if a pending deadline comes first) on the
 * listener and every pending link at once, accepts every connection waiting on the listener,
 * steps every ready handshake and aborts those past their deadline (CLOSE EXPIRED). listener
 * may be NULL (only pending handshakes are served); it is borrowed for the call.
 *  - Z_OK: one handshake finished; *out is its established transport (see zm_handshake_step).
 *    Call again soon: others that finished in the same round are returned without waiting.
 *  - ZM_E_TIMEOUT: nothing happened within timeout_ms. ZM_E_AGAIN: something did (a newcomer,
 *    a step, an expiry) but nothing finished. Neither is an error: call again.
 *  - ZM_E_CLOSED: the listener was shut down; the pending handshakes are kept for
 *    zm_acceptor_close.
 *  - another error: waiting or accepting failed (e.g. out of descriptors); the set is intact,
 *    the caller may call again later.
 */
ZM_NODISCARD z_result_t zm_acceptor_step(zm_acceptor_t *a, zm_link_t *listener, const zm_transport_params_t *p,
                                         uint32_t timeout_ms, zm_transport_t *out);

/**
 * For a caller that waits on its own (a single-thread read loop that also watches its peers):
 * the links of the pending handshakes, at most cap into links (borrowed; valid until the next
 * call on a), and through *deadline_ms the earliest pending deadline (0 if none). Wait on them
 * with the listener, then call zm_acceptor_step with timeout 0.
 */
size_t zm_acceptor_links(zm_acceptor_t *a, zm_link_t **links, size_t cap, uint64_t *deadline_ms);

/** Aborts every pending handshake (CLOSE GENERIC, link closed); a stays usable. */
void zm_acceptor_close(zm_acceptor_t *a);

/** Queues a network message; it is on the wire when this returns unless batching is on or
 *  the message is not express and more are coming. Large messages are fragmented. Waits at most
 *  tx_block_timeout_ms per batch for a peer that does not read (see congestion control above):
 *  a dropped DROP message is Z_OK (counted in tx_dropped); a BLOCK one that could not go out is
 *  an error, and the link is shut down then. */
ZM_NODISCARD z_result_t zm_transport_send(zm_transport_t *t, const zm_network_msg_t *m, bool reliable,
                                          uint8_t prio, bool flush);
/** zm_transport_send of a put's PUSH, encoded from its parts straight into the batch (the body
 *  is borrowed for the call). */
ZM_NODISCARD z_result_t zm_transport_push(zm_transport_t *t, const zm_push_ref_t *p, bool reliable, uint8_t prio,
                                          bool flush);
/** Writes out the current batch, if any, with the congestion control of what it holds. */
ZM_NODISCARD z_result_t zm_transport_flush(zm_transport_t *t);
/** Batching on or off (ZM_TX_BATCHING: a build without never turns it on). */
void zm_transport_set_batching(zm_transport_t *t, bool on);

/**
 * Dispatches one whole batch received for t (its network messages to on_message, in place). The
 * receiving thread's; errors mean the sender must be dropped (ZM_E_CLOSED: it sent CLOSE).
 */
ZM_NODISCARD z_result_t zm_transport_rx_batch(zm_transport_t *t, zm_slice_t batch);

/** Receives one batch and dispatches it; blocks on the link (a read task's way: threaded builds
 *  only). Errors mean the link must close. */
ZM_NODISCARD z_result_t zm_transport_read_once(zm_transport_t *t);
/** The same without blocking: ZM_E_AGAIN while no whole batch is in (what came is kept). For a
 *  single thread serving many links, which one peer sending half a batch must not stop. */
ZM_NODISCARD z_result_t zm_transport_try_read_once(zm_transport_t *t);
/**
 * Lease work, called periodically (reads the clock itself): ZM_E_TIMEOUT if the peer was silent
 * for longer than its lease; otherwise a keep-alive if we were idle, or the batch batching mode
 * left open. Never waits: when a sender holds the transport, nothing is sent (traffic is flowing,
 * or that sender will time out), and a peer with no room now gets no keep-alive now.
 */
ZM_NODISCARD z_result_t zm_transport_lease_tick(zm_transport_t *t);

/*
 * When t was last heard from, now (low clock bits) if a batch came since the last call: a batch
 * sets a flag rather than reading the clock, so that what a lease is checked against is late by
 * no more than the time between two checks, and never early.
 */
static inline uint32_t zm_transport_heard_ms(zm_transport_t *t, uint32_t now)
{
    if (zm_atomic_load_relaxed(&t->rx_heard)) {
        zm_atomic_store_relaxed(&t->rx_heard, false);
        zm_atomic_store_relaxed(&t->last_rx_ms, now);
        return now;
    }
    return zm_atomic_load_relaxed(&t->last_rx_ms);
}

/* ---- multicast (multicast.c) ------------------------------------------------------------------ */
/*
 * A multicast group is two kinds of zm_transport_t. The group's own carries what we send, with
 * the tx path above (batches, SNs, fragments, congestion control) over a multicast link, and
 * receives every datagram into its rx buffer. Each member known by its JOIN has one holding only
 * its receive state (SNs per channel, reassembly, lease), fed with that member's batches through
 * zm_transport_rx_batch, with no link and no tx buffer: what we send to a member goes to the group.
 * Which datagram belongs to which member is the caller's business (by sender address).
 *
 * Threads: as for unicast; a member's state belongs to the thread receiving on the group.
 */

/**
 * Opens the group on link (zm_link_mcast_open, or any datagram link that tells its senders:
 * zm_link_sender), taking it: buffers for batches of
 * ZM_BATCH_MULTICAST_SIZE, random initial SNs, no QoS, fragments with markers. On error the link
 * is the caller's again and nothing is held.
 */
ZM_NODISCARD z_result_t zm_mcast_open(zm_transport_t *g, zm_link_t *link, const zm_transport_params_t *p);

/**
 * Lease work of the group, called periodically: a batch batching mode left open goes out, then,
 * with join, our JOIN (p's zid, whatami and lease; the next SN of each channel) in a batch of
 * its own. Never waits for a sender: ZM_E_AGAIN when one holds the group (call again soon).
 * Another error: the link failed and was shut down.
 */
ZM_NODISCARD z_result_t zm_mcast_tick(zm_transport_t *g, const zm_transport_params_t *p, bool join);

/**
 * Receives the next datagram of the group into its rx buffer: *batch and its sender *from (valid
 * until the next receive). With wait it blocks, else ZM_E_AGAIN when none is there. ZM_E_CLOSED
 * once the group was closed.
 */
#if Z_FEATURE_MULTICAST_TRANSPORT /* zm_addr_t is the multicast links' */
ZM_NODISCARD z_result_t zm_mcast_recv(zm_transport_t *g, bool wait, zm_slice_t *batch, const zm_addr_t **from);
#endif

/**
 * The JOIN in a batch from a sender we do not know: Z_OK and *j (borrowing from the batch) when
 * it holds one that makes it a member (version, resolution and batch size ours, zid not ours nor
 * empty, a peer or a router), ZM_E_AGAIN otherwise, the batch then being ignored whole.
 */
ZM_NODISCARD z_result_t zm_mcast_newcomer(zm_slice_t batch, const zm_zid_t *self, zm_join_t *j);

/** Sets up m as the receive state of a member from its first JOIN (m is zeroed first). */
ZM_NODISCARD z_result_t zm_mcast_member_init(zm_transport_t *m, const zm_join_t *j);

/**
 * A later JOIN of member m. One that contradicts its first (another zid, lease, ...) is ignored,
 * and from then on m lives only as long as its own JOINs keep coming; one that agrees keeps it
 * and moves back a channel whose accepted SN is ahead of what it announces (a forged FRAME).
 * An error only for a JOIN that cannot be read.
 */
ZM_NODISCARD z_result_t zm_mcast_member_join(zm_transport_t *m, const zm_join_t *j);

/** True when member m has been silent (or, contradicted, without its JOIN) longer than its lease. */
bool zm_mcast_member_expired(zm_transport_t *m, uint64_t now_ms);

/** Frees what member m's receive state holds (its reassembly buffers). */
void zm_mcast_member_free(zm_transport_t *m);

/** Sends CLOSE (best effort: skipped while a sender holds the transport or the peer has no room)
 *  and shuts the link, so that a blocked reader and a sender waiting for room return. */
void zm_transport_close(zm_transport_t *t, uint8_t reason);
/** Frees buffers and the link; only after every task using t has been joined. */
void zm_transport_free(zm_transport_t *t);

#endif /* ZM_TRANSPORT_H */
