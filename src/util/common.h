/*
 * Small shared definitions for every layer: invariant checks, unused marks and the attribute
 * that makes ignoring a z_result_t a compiler warning. Depends on nothing but opt.h.
 */
#ifndef ZM_UTIL_COMMON_H
#define ZM_UTIL_COMMON_H

#include "switches.h"
#include "zmote/result.h"

#if defined(__GNUC__) || defined(__clang__)
#define ZM_NODISCARD __attribute__((warn_unused_result))
#define ZM_LIKELY(x) __builtin_expect(!!(x), 1)
#define ZM_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Keeps a function's frame out of its callers': for a big local that only a rare path needs, so
 * that the frames stacked on the common path do not carry it (scripts/check-stack.sh). */
#define ZM_NOINLINE __attribute__((noinline))
/* Puts a function's body in each caller: for one the library calls from one place, which -Os
 * would leave out of line (a large frame, or a function around it for the tests to call by name,
 * which a build that does not call it leaves out). */
#define ZM_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ZM_NODISCARD
#define ZM_LIKELY(x) (x)
#define ZM_UNLIKELY(x) (x)
#define ZM_NOINLINE
#define ZM_ALWAYS_INLINE inline
#endif

#define ZM_UNUSED(x) ((void)(x))
#define ZM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Invariants of our own code; never used for what comes from the network or the user. */
#if ZM_ASSERT_ENABLED
void zm_assert_fail(const char *expr, const char *file, int line);
#define ZM_ASSERT(e) ((e) ? (void)0 : zm_assert_fail(#e, __FILE__, __LINE__))
#else
#define ZM_ASSERT(e) ((void)0)
#endif

/* Propagates an error: evaluates e once, returns it from the caller if it failed. */
#define ZM_TRY(e)                 \
    do {                          \
        z_result_t zm_try_r_ = (e); \
        if (zm_try_r_ < 0) {      \
            return zm_try_r_;     \
        }                         \
    } while (0)

#endif /* ZM_UTIL_COMMON_H */
