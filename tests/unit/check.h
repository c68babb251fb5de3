/*
 * The unit tests' one assert header: each check prints both sides and where it failed, counts,
 * and carries on, so one run shows every failure. CHECK_DONE() prints the closing count line.
 */
#ifndef ZM_TEST_CHECK_H
#define ZM_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned check_passed;
static unsigned check_failed;

static inline void check_dump(const char *tag, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    fprintf(stderr, "    %s [%zu]:", tag, n);
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, " %02x", b[i]);
    }
    fprintf(stderr, "\n");
}

#define CHECK_FAIL_AT() (check_failed++, fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__))

#define CHECK(cond)                                 \
    do {                                            \
        if (cond) {                                 \
            check_passed++;                         \
        } else {                                    \
            CHECK_FAIL_AT();                        \
            fprintf(stderr, "%s\n", #cond);         \
        }                                           \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
    do {                                                                                     \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                      \
        if (check_a_ == check_b_) {                                                          \
            check_passed++;                                                                  \
        } else {                                                                             \
            CHECK_FAIL_AT();                                                                 \
            fprintf(stderr, "%s == %s: %lld != %lld\n", #a, #b, check_a_, check_b_);         \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                   \
    do {                                                                                     \
        const char *check_a_ = (a), *check_b_ = (b);                                         \
        if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) {                       \
            check_passed++;                                                                  \
        } else {                                                                             \
            CHECK_FAIL_AT();                                                                 \
            fprintf(stderr, "%s == %s: \"%s\" != \"%s\"\n", #a, #b,                          \
                    check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");         \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_MEM(a, alen, b, blen)                                                       \
    do {                                                                                     \
        size_t check_al_ = (size_t)(alen), check_bl_ = (size_t)(blen);                       \
        if (check_al_ == check_bl_ && (check_al_ == 0 || memcmp((a), (b), check_al_) == 0)) { \
            check_passed++;                                                                  \
        } else {                                                                             \
            CHECK_FAIL_AT();                                                                 \
            fprintf(stderr, "%s == %s\n", #a, #b);                                           \
            check_dump("left ", (a), check_al_);                                             \
            check_dump("right", (b), check_bl_);                                             \
        }                                                                                    \
    } while (0)

/* A context line printed with the next failure, for table-driven tests. */
#define CHECK_CTX(cond, ...)                        \
    do {                                            \
        if (cond) {                                 \
            check_passed++;                         \
        } else {                                    \
            CHECK_FAIL_AT();                        \
            fprintf(stderr, "%s: ", #cond);         \
            fprintf(stderr, __VA_ARGS__);           \
            fprintf(stderr, "\n");                  \
        }                                           \
    } while (0)

#define CHECK_DONE()                                                         \
    (printf("%u passed, %u failed\n", check_passed, check_failed), check_failed != 0)

#endif /* ZM_TEST_CHECK_H */
