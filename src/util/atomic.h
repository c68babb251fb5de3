/*
 * The counters and flags that threads share: atomic where a build has threads. A single-thread
 * build (Z_FEATURE_MULTI_THREAD=0) runs the library on the application's one thread and never
 * from an interrupt, as its locks (none) already assume: there they are plain variables, each
 * access a plain load or store, without the barriers and exclusive-access loops of atomics.
 * Only the operations the layers use; the counts are unsigned, stepped by one (the memory
 * account's, transport/account.h, by any amount).
 */
#ifndef ZM_UTIL_ATOMIC_H
#define ZM_UTIL_ATOMIC_H

#include "zmote/opt.h"

#if Z_FEATURE_MULTI_THREAD
#include <stdatomic.h>

#define ZM_ATOMIC(T) _Atomic(T)
#define zm_atomic_init(p, v) atomic_init((p), (v))
#define zm_atomic_load(p) atomic_load(p)
#define zm_atomic_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define zm_atomic_store(p, v) atomic_store((p), (v))
#define zm_atomic_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
/* The value before the step. */
#define zm_atomic_inc(p) atomic_fetch_add((p), 1u)
#define zm_atomic_inc_relaxed(p) atomic_fetch_add_explicit((p), 1u, memory_order_relaxed)
#define zm_atomic_dec(p) atomic_fetch_sub((p), 1u)
#define zm_atomic_dec_acq_rel(p) atomic_fetch_sub_explicit((p), 1u, memory_order_acq_rel)
#define zm_atomic_dec_relaxed(p) atomic_fetch_sub_explicit((p), 1u, memory_order_relaxed)
/* For values that order nothing else (the memory account's counts, the admin space's queryable
 * id). Stores d if *p is *e (true), else loads *p into *e (false; it may fail spuriously: loop). */
#define zm_atomic_cas_relaxed(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_relaxed, memory_order_relaxed)
#define zm_atomic_sub_relaxed(p, n) atomic_fetch_sub_explicit((p), (n), memory_order_relaxed)
/* Sets the bits of v in *p; the value before. */
#define zm_atomic_or(p, v) atomic_fetch_or((p), (v))
/* Stores d if *p is *e (true: what this thread did before is seen by whoever acquires *p after),
 * else loads *p into *e (false; it may fail spuriously: loop). */
#define zm_atomic_cas_release(p, e, d) \
    atomic_compare_exchange_weak_explicit((p), (e), (d), memory_order_release, memory_order_relaxed)
#else
#define ZM_ATOMIC(T) T
#define zm_atomic_init(p, v) ((void)(*(p) = (v)))
#define zm_atomic_load(p) (*(p))
#define zm_atomic_load_relaxed(p) (*(p))
#define zm_atomic_store(p, v) ((void)(*(p) = (v)))
#define zm_atomic_store_relaxed(p, v) ((void)(*(p) = (v)))
#define zm_atomic_inc(p) ((*(p))++)
#define zm_atomic_inc_relaxed(p) ((*(p))++)
#define zm_atomic_dec(p) ((*(p))--)
#define zm_atomic_dec_acq_rel(p) ((*(p))--)
#define zm_atomic_dec_relaxed(p) ((*(p))--)
#define zm_atomic_cas_relaxed(p, e, d) (*(p) == *(e) ? ((*(p) = (d)), true) : ((*(e) = *(p)), false))
#define zm_atomic_sub_relaxed(p, n) ((*(p)) -= (n))
#define zm_atomic_or(p, v) zm_atomic_or_plain((p), (v))
#define zm_atomic_cas_release(p, e, d) zm_atomic_cas_relaxed((p), (e), (d))
static inline unsigned zm_atomic_or_plain(unsigned *p, unsigned v)
{
    unsigned old = *p;
    *p = old | v;
    return old;
}
#endif

#endif /* ZM_UTIL_ATOMIC_H */
