/*
 * A byte ring for UART drivers: one producer and one consumer, one of them an interrupt handler
 * (RX: the handler puts, the port's read takes; TX: the other way round). No lock and no
 * interrupt masking: each side writes only its own index, with release ordering, after the
 * bytes it covers, so it works on any core count. The size is a power of two, at most 2^31;
 * indices run freely and wrap, so all of the storage is usable.
 */
#ifndef ZMOTE_RING_H
#define ZMOTE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *buf;
    uint32_t size;          /* a power of two */
    _Atomic uint32_t head;  /* next byte put; written by the producer only */
    _Atomic uint32_t tail;  /* next byte taken; written by the consumer only */
} zm_ring_t;

/** Prepares r over storage[0..size), size a power of two; call before either side runs. */
static inline void zm_ring_init(zm_ring_t *r, uint8_t *storage, uint32_t size)
{
    r->buf = storage;
    r->size = size;
    atomic_init(&r->head, 0u);
    atomic_init(&r->tail, 0u);
}

/** Bytes waiting to be taken (the consumer's view, or a snapshot for anyone else). */
static inline uint32_t zm_ring_used(const zm_ring_t *r)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    return head - tail;
}

/** Producer: puts one byte; false (nothing stored) if the ring is full. */
static inline bool zm_ring_put(zm_ring_t *r, uint8_t byte)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (head - tail == r->size) {
        return false;
    }
    r->buf[head & (r->size - 1u)] = byte;
    atomic_store_explicit(&r->head, head + 1u, memory_order_release);
    return true;
}

/** Producer: puts up to len bytes, returns how many fitted. */
static inline size_t zm_ring_write(zm_ring_t *r, const uint8_t *src, size_t len)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    uint32_t room = r->size - (head - tail);
    size_t n = len < room ? len : room;
    for (size_t i = 0; i < n; i++) {
        r->buf[(head + (uint32_t)i) & (r->size - 1u)] = src[i];
    }
    atomic_store_explicit(&r->head, head + (uint32_t)n, memory_order_release);
    return n;
}

/** Consumer: takes one byte into *byte; false if the ring is empty. */
static inline bool zm_ring_get(zm_ring_t *r, uint8_t *byte)
{
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (head == tail) {
        return false;
    }
    *byte = r->buf[tail & (r->size - 1u)];
    atomic_store_explicit(&r->tail, tail + 1u, memory_order_release);
    return true;
}

/** Consumer: takes up to len bytes into dst, returns how many. */
static inline size_t zm_ring_read(zm_ring_t *r, uint8_t *dst, size_t len)
{
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint32_t used = head - tail;
    size_t n = len < used ? len : used;
    for (size_t i = 0; i < n; i++) {
        dst[i] = r->buf[(tail + (uint32_t)i) & (r->size - 1u)];
    }
    atomic_store_explicit(&r->tail, tail + (uint32_t)n, memory_order_release);
    return n;
}

/** Consumer: drops everything buffered (only while the producer is stopped, or races it). */
static inline void zm_ring_clear(zm_ring_t *r)
{
    atomic_store_explicit(&r->tail, atomic_load_explicit(&r->head, memory_order_acquire),
                          memory_order_release);
}

#endif /* ZMOTE_RING_H */
