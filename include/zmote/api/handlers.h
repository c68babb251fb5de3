/**
 * @file
 * Channel handlers: a closure that queues every sample, query or reply it receives, and a
 * handler that takes them out on the program's own thread. A fifo keeps items in order and, when
 * full, makes the delivering thread wait for room; a ring, when full, forgets its oldest item.
 * Queued items are owned copies made into buffers the channel recycles, so a steady stream of
 * samples allocates nothing. A queued query keeps its query open (as z_query_clone does): the
 * querier gets its final response once the program has taken the query out and dropped it.
 * An item whose copy cannot be allocated is not queued (it is lost, as a full ring's oldest is).
 *
 * The constructors (z_fifo_channel_X_new, z_ring_channel_X_new) return Z_EINVAL for a NULL
 * argument or a capacity of 0, ZM_E_NOMEM, or the port's error when its mutex or condition
 * variable cannot be made; the closure and handler they fill are null on failure. recv and
 * try_recv return Z_EINVAL for a NULL item and Z_ENULL for a NULL or dropped handler.
 */
#ifndef ZMOTE_API_HANDLERS_H
#define ZMOTE_API_HANDLERS_H

#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Per-type functions of the handler types (ZM_OWNED_FUNCTIONS_RC in primitives.h): null, check,
 * loan, loan_mut, move, take, drop. Dropping the handler drops what is queued, on the calling
 * thread, and wakes a delivering thread waiting for room; the closure side keeps the channel
 * alive until it is dropped too (items it still receives are then discarded).
 */
ZM_OWNED_FUNCTIONS_RC(fifo_handler_sample)
ZM_OWNED_FUNCTIONS_RC(ring_handler_sample)
ZM_OWNED_FUNCTIONS_RC(fifo_handler_query)
ZM_OWNED_FUNCTIONS_RC(ring_handler_query)
ZM_OWNED_FUNCTIONS_RC(fifo_handler_reply)
ZM_OWNED_FUNCTIONS_RC(ring_handler_reply)

/* ---- samples ------------------------------------------------------------------------------------ */

/**
 * Makes a fifo channel of capacity samples (>= 1, else Z_EINVAL): returns owned in *callback a
 * closure to give to z_declare_subscriber and owned in *handler its receiving end. Allocates the
 * channel. When the queue is full, the delivering thread (the session's read task) waits until
 * the program takes a sample out or drops the handler; in single-thread builds the new sample is
 * dropped instead. So while a full fifo may be waiting, drop the handler before undeclaring the
 * subscriber or closing the session, which wait for the delivering thread.
 */
z_result_t z_fifo_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_fifo_handler_sample_t *handler,
                                     size_t capacity);
/**
 * Takes the oldest sample out into *sample (returned owned). Blocks, without a timeout, while the
 * queue is empty and the closure side is alive; Z_CHANNEL_DISCONNECTED (sample null) once that
 * side was dropped (subscriber undeclared, session closed) and the queue is empty. In
 * single-thread builds it does not block: Z_OK with a null sample when empty. Z_EINVAL for a NULL
 * sample, Z_ENULL for a NULL or dropped handler.
 */
z_result_t z_fifo_handler_sample_recv(const z_loaned_fifo_handler_sample_t *handler, z_owned_sample_t *sample);
/** Like z_fifo_handler_sample_recv without waiting: Z_CHANNEL_NODATA when the queue is empty. */
z_result_t z_fifo_handler_sample_try_recv(const z_loaned_fifo_handler_sample_t *handler, z_owned_sample_t *sample);

/** Makes a ring channel of capacity samples (>= 1): as a fifo, but a full ring drops its oldest sample. */
z_result_t z_ring_channel_sample_new(z_owned_closure_sample_t *callback, z_owned_ring_handler_sample_t *handler,
                                     size_t capacity);
/** Same as z_fifo_handler_sample_recv for a ring. */
z_result_t z_ring_handler_sample_recv(const z_loaned_ring_handler_sample_t *handler, z_owned_sample_t *sample);
/** Same as z_fifo_handler_sample_try_recv for a ring. */
z_result_t z_ring_handler_sample_try_recv(const z_loaned_ring_handler_sample_t *handler, z_owned_sample_t *sample);

/* ---- queries (Z_FEATURE_QUERYABLE) ---------------------------------------------------------------- */

/**
 * Makes a fifo channel of capacity queries for z_declare_queryable; as z_fifo_channel_sample_new
 * otherwise. Each query taken out is owned: reply to it from any thread, then drop it (its final
 * response goes then). A query still queued when the handler is dropped is dropped: its querier
 * gets the final response without a reply. Queries of this session's own gets are delivered on
 * the thread calling z_get: a full fifo makes that thread wait, so it must not be the one that
 * takes the queries out.
 */
z_result_t z_fifo_channel_query_new(z_owned_closure_query_t *callback, z_owned_fifo_handler_query_t *handler,
                                    size_t capacity);
/** Takes the oldest query out into *query (returned owned); as z_fifo_handler_sample_recv. */
z_result_t z_fifo_handler_query_recv(const z_loaned_fifo_handler_query_t *handler, z_owned_query_t *query);
/** Like z_fifo_handler_query_recv without waiting: Z_CHANNEL_NODATA when the queue is empty. */
z_result_t z_fifo_handler_query_try_recv(const z_loaned_fifo_handler_query_t *handler, z_owned_query_t *query);
/**
 * Makes a ring channel of capacity queries: a full ring drops its oldest query as a new one comes
 * (its querier gets the final response when the new query's delivery is over). A query handed to
 * the closure by the program itself, rather than by its queryable, is not queued when the ring is
 * full.
 */
z_result_t z_ring_channel_query_new(z_owned_closure_query_t *callback, z_owned_ring_handler_query_t *handler,
                                    size_t capacity);
/** Same as z_fifo_handler_query_recv for a ring. */
z_result_t z_ring_handler_query_recv(const z_loaned_ring_handler_query_t *handler, z_owned_query_t *query);
/** Same as z_fifo_handler_query_try_recv for a ring. */
z_result_t z_ring_handler_query_try_recv(const z_loaned_ring_handler_query_t *handler, z_owned_query_t *query);

/* ---- replies (Z_FEATURE_QUERY) -------------------------------------------------------------------- */

/**
 * Makes a fifo channel of capacity replies for z_get or z_querier_get; as
 * z_fifo_channel_sample_new otherwise. The closure's end (the end of the get) is the channel's
 * disconnection: recv returns Z_CHANNEL_DISCONNECTED once every reply is taken out. Replies come
 * on the thread that receives them, and for queryables of the same session on the thread that
 * replies, which may be the one calling z_get: a fifo too small for what a local queryable
 * replies within z_get would wait there for ever, so size it for those replies or use a ring.
 */
z_result_t z_fifo_channel_reply_new(z_owned_closure_reply_t *callback, z_owned_fifo_handler_reply_t *handler,
                                    size_t capacity);
/** Takes the oldest reply out into *reply (returned owned); as z_fifo_handler_sample_recv. */
z_result_t z_fifo_handler_reply_recv(const z_loaned_fifo_handler_reply_t *handler, z_owned_reply_t *reply);
/** Like z_fifo_handler_reply_recv without waiting: Z_CHANNEL_NODATA when the queue is empty. */
z_result_t z_fifo_handler_reply_try_recv(const z_loaned_fifo_handler_reply_t *handler, z_owned_reply_t *reply);
/** Makes a ring channel of capacity replies: a full ring drops its oldest reply. */
z_result_t z_ring_channel_reply_new(z_owned_closure_reply_t *callback, z_owned_ring_handler_reply_t *handler,
                                    size_t capacity);
/** Same as z_fifo_handler_reply_recv for a ring. */
z_result_t z_ring_handler_reply_recv(const z_loaned_ring_handler_reply_t *handler, z_owned_reply_t *reply);
/** Same as z_fifo_handler_reply_try_recv for a ring. */
z_result_t z_ring_handler_reply_try_recv(const z_loaned_ring_handler_reply_t *handler, z_owned_reply_t *reply);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_HANDLERS_H */
