/*
 * C11 atomics for the examples that count from a callback. The examples also build as C++ (as
 * programs written for zenoh-pico in C++ must build against it), where <stdatomic.h> is missing
 * before C++23: <atomic> has the same names there, in std, and this header brings them out.
 */
#ifndef ZM_EXAMPLES_ATOMICS_H
#define ZM_EXAMPLES_ATOMICS_H

#ifdef __cplusplus
#include <atomic>
using std::atomic_bool;
using std::atomic_exchange;
using std::atomic_fetch_add;
using std::atomic_fetch_add_explicit;
using std::atomic_init;
using std::atomic_int;
using std::atomic_load;
using std::atomic_load_explicit;
using std::atomic_store;
using std::atomic_ulong;
using std::memory_order_relaxed;
#else
#include <stdatomic.h>
#endif

#endif /* ZM_EXAMPLES_ATOMICS_H */
