/*
 * Channel handlers: a closure that queues every sample it receives, and a handler that takes
 * them out on the program's own thread. A fifo keeps samples in order and, when full, makes the
 * delivering thread wait for room; a ring, when full, forgets its oldest sample. Queued samples
 * are owned copies made into buffers the channel recycles, so a steady stream allocates nothing.
 */
#ifndef ZMOTE_API_HANDLERS_H
#define ZMOTE_API_HANDLERS_H

#include "zmote/api/primitives.h"

/*
 * Per-type functions of the two handler types (see primitives.h): null, check, loan, loan_mut,
 * move, take, drop. Dropping the handler forgets what is queued; the closure side keeps the
 * channel alive until it is dropped too (samples it still receives are then discarded).
 */
ZM_OWNED_FUNCTIONS_RC(fifo_handler_sample)
ZM_OWNED_FUNCTIONS_RC(ring_handler_sample)

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
 * Takes the oldest sample out into *sample (returned owned). Blocks while the queue is empty and
 * the closure side is alive; Z_CHANNEL_DISCONNECTED (sample null) once that side was dropped
 * (subscriber undeclared, session closed) and the queue is empty. In single-thread builds it
 * does not block: Z_OK with a null sample when empty.
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

#endif /* ZMOTE_API_HANDLERS_H */
