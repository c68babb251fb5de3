/**
 * @file
 * The platform helpers of the Zenoh C API that programs use for themselves: sleeping, clocks,
 * memory, random numbers, threads, mutexes and condition variables. They sit on zmote's port
 * (zmote/port.h), so a program using them runs wherever zmote is ported. Memory from z_malloc
 * comes from the same allocator as the library's own (zm_allocator_set replaces both).
 */
#ifndef ZMOTE_API_PLATFORM_H
#define ZMOTE_API_PLATFORM_H

#include "zmote/api/primitives.h"

/*
 * zenoh-pico's POSIX platform header brings in <pthread.h>, and programs written for it (its
 * throughput examples) create their own threads relying on that; so does this header, where the
 * toolchain has it. zmote itself never uses it from here.
 */
#if Z_FEATURE_MULTI_THREAD == 1 && defined(__has_include)
#if __has_include(<pthread.h>)
#include <pthread.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- random ----------------------------------------------------------------------------------- */

/** A random value from the port's best source (zm_port_random); never blocks for long. */
uint8_t z_random_u8(void);
/** Same as z_random_u8, 16 bits. */
uint16_t z_random_u16(void);
/** Same as z_random_u8, 32 bits. */
uint32_t z_random_u32(void);
/** Same as z_random_u8, 64 bits. */
uint64_t z_random_u64(void);
/** Fills buf[0..len) with random bytes from the best source the platform has. */
void z_random_fill(void *buf, size_t len);

/* ---- memory ----------------------------------------------------------------------------------- */

/** Returns size bytes the caller owns (release with z_free), or NULL. Thread-safe. */
void *z_malloc(size_t size);
/** Resizes a block from z_malloc (NULL ptr: like z_malloc); NULL on failure, ptr untouched. */
void *z_realloc(void *ptr, size_t size);
/** Releases a block from z_malloc or z_realloc; NULL does nothing. */
void z_free(void *ptr);

/* ---- sleeping ----------------------------------------------------------------------------------- */

/** Blocks the calling thread for at least time microseconds (the port sleeps in whole ms). */
z_result_t z_sleep_us(size_t time);
/** Blocks the calling thread for at least time milliseconds. */
z_result_t z_sleep_ms(size_t time);
/** Blocks the calling thread for at least time seconds. */
z_result_t z_sleep_s(size_t time);

/* ---- monotonic clock -------------------------------------------------------------------------- */

/** The current instant of the monotonic clock. */
z_clock_t z_clock_now(void);
/** Time from *instant to *epoch (0 if epoch is earlier). */
unsigned long zp_clock_elapsed_us_since(z_clock_t *instant, z_clock_t *epoch);
/** Same as zp_clock_elapsed_us_since, in milliseconds. */
unsigned long zp_clock_elapsed_ms_since(z_clock_t *instant, z_clock_t *epoch);
/** Same as zp_clock_elapsed_us_since, in seconds. */
unsigned long zp_clock_elapsed_s_since(z_clock_t *instant, z_clock_t *epoch);
/**
 * Time elapsed since *time. Microseconds come from the wall clock while it agrees with the
 * monotonic one to the millisecond, and from the monotonic clock (ms resolution) otherwise.
 */
unsigned long z_clock_elapsed_us(z_clock_t *time);
/** Same as z_clock_elapsed_us, in milliseconds. */
unsigned long z_clock_elapsed_ms(z_clock_t *time);
/** Same as z_clock_elapsed_us, in seconds. */
unsigned long z_clock_elapsed_s(z_clock_t *time);
/** Moves *clock forward by duration. */
void z_clock_advance_us(z_clock_t *clock, unsigned long duration);
/** Same as z_clock_advance_us, in milliseconds. */
void z_clock_advance_ms(z_clock_t *clock, unsigned long duration);
/** Same as z_clock_advance_us, in seconds. */
void z_clock_advance_s(z_clock_t *clock, unsigned long duration);

/* ---- wall clock ------------------------------------------------------------------------------- */

/** The current wall-clock time. */
z_time_t z_time_now(void);
/** Writes the current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf (truncated to buflen); returns buf. */
const char *z_time_now_as_str(char *const buf, unsigned long buflen);
/** Wall-clock time elapsed since *time (0 if the clock went back). */
unsigned long z_time_elapsed_us(z_time_t *time);
/** Same as z_time_elapsed_us, in milliseconds. */
unsigned long z_time_elapsed_ms(z_time_t *time);
/** Same as z_time_elapsed_us, in seconds. */
unsigned long z_time_elapsed_s(z_time_t *time);

/* ---- threads, mutexes, condition variables -------------------------------------------------------- */

/**
 * Per-type functions (see ZM_OWNED_FUNCTIONS_BASE in primitives.h): z_internal_X_null, z_X_take,
 * z_X_loan, z_X_loan_mut, z_X_move, for X = task, mutex, condvar; each one's drop is declared
 * below (z_drop(z_move(task)) joins the task). In single-thread builds every function of tasks,
 * mutexes and condition variables below returns ZM_E_UNSUPPORTED; in multi-thread builds those
 * given a NULL or dropped object return Z_ENULL (the constructors: Z_EINVAL for NULL).
 */
#define ZM_SYSTEM_FUNCTIONS(name)                                                                  \
    void z_internal_##name##_null(z_owned_##name##_t *obj);                                        \
    void z_##name##_take(z_owned_##name##_t *obj, z_moved_##name##_t *src);                        \
    static inline const z_loaned_##name##_t *z_##name##_loan(const z_owned_##name##_t *obj)        \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_loaned_##name##_t *z_##name##_loan_mut(z_owned_##name##_t *obj)                \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_moved_##name##_t *z_##name##_move(z_owned_##name##_t *obj)                     \
    {                                                                                              \
        return (z_moved_##name##_t *)obj;                                                          \
    }

ZM_SYSTEM_FUNCTIONS(task)
ZM_SYSTEM_FUNCTIONS(mutex)
ZM_SYSTEM_FUNCTIONS(condvar)

/**
 * Starts fun(arg) on a new thread and returns the task owned in *task. attr is ignored (NULL).
 * Allocates the task's record; ZM_E_NOMEM or the port's error leaves *task null.
 */
z_result_t z_task_init(z_owned_task_t *task, z_task_attr_t *attr, void *(*fun)(void *), void *arg);
/** Waits until the task's function returned, then releases the task (takes task). Blocks. */
z_result_t z_task_join(z_moved_task_t *task);
/**
 * Would let the task run on unjoined; the port interface has no detach yet, so this returns
 * ZM_E_UNSUPPORTED and leaves the task owned (join it instead).
 */
z_result_t z_task_detach(z_moved_task_t *task);
/** Same as z_task_detach (zenoh-pico's drop of a task detaches it). */
z_result_t z_task_drop(z_moved_task_t *task);

/** Returns owned in *m a new unlocked, non-recursive mutex (allocates it). */
z_result_t z_mutex_init(z_owned_mutex_t *m);
/** Releases the mutex (takes m); it must be unlocked. */
z_result_t z_mutex_drop(z_moved_mutex_t *m);
/** Locks, blocking while another thread holds the mutex. */
z_result_t z_mutex_lock(z_loaned_mutex_t *m);
/** Locks if free, else returns ZM_E_BUSY at once. */
z_result_t z_mutex_try_lock(z_loaned_mutex_t *m);
/** Unlocks a mutex the calling thread holds. */
z_result_t z_mutex_unlock(z_loaned_mutex_t *m);

/** Returns owned in *cv a new condition variable (allocates it). */
z_result_t z_condvar_init(z_owned_condvar_t *cv);
/** Releases the condition variable (takes cv); no thread may be waiting on it. */
z_result_t z_condvar_drop(z_moved_condvar_t *cv);
/** Wakes one waiter (call it with the waiters' mutex held so that no wake-up is lost). */
z_result_t z_condvar_signal(z_loaned_condvar_t *cv);
/**
 * Releases m (held by the caller), waits to be signalled, then locks m again. Blocks. Like any
 * condition variable it may wake without a signal: wait in a loop on your own condition.
 */
z_result_t z_condvar_wait(z_loaned_condvar_t *cv, z_loaned_mutex_t *m);
/** Same as z_condvar_wait with a deadline on the monotonic clock; Z_ETIMEDOUT once it passed. */
z_result_t z_condvar_wait_until(z_loaned_condvar_t *cv, z_loaned_mutex_t *m, const z_clock_t *abstime);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_PLATFORM_H */
