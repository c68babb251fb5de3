/*
 * allocount: an LD_PRELOAD shim that counts a program's heap calls and heap bytes, for
 * bench/run.sh heap. Allocation stays glibc's own (its __libc_* entry points), only the counting
 * is added, so the program behaves as without the shim. A line of counts is written on SIGUSR1
 * and at exit: a script takes one at each end of a span and subtracts, and a run it ends with a
 * signal still reports. glibc only; bytes are malloc_usable_size(), what the caller may use.
 *
 * build: cc -O2 -shared -fPIC -o allocount.so allocount.c
 * use:   LD_PRELOAD=./allocount.so ALLOCOUNT_OUT=counts.txt prog args...   (no ALLOCOUNT_OUT: stderr)
 * line:  allocount snapshot=N why=signal|exit pid=P malloc=N calloc=N realloc=N aligned=N free=N
 *        live_bytes=N peak_bytes=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glibc's allocator under its exported internal names: calling these cannot recurse into us. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_free(void *ptr);

/* Relaxed atomics: the counts are sums, read only when a line is written. */
static atomic_ullong n_malloc;
static atomic_ullong n_calloc;
static atomic_ullong n_realloc;
static atomic_ullong n_aligned;
static atomic_ullong n_free;
static atomic_llong live_bytes;
static atomic_llong peak_bytes;
static atomic_uint snapshots;
static int out_fd = 2;

static void gained(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    long long size = (long long)malloc_usable_size(ptr);
    long long now = atomic_fetch_add_explicit(&live_bytes, size, memory_order_relaxed) + size;
    long long peak = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak_explicit(&peak_bytes, &peak, now, memory_order_relaxed,
                                                                memory_order_relaxed)) {
    }
}

static void lost(void *ptr)
{
    if (ptr != NULL) {
        atomic_fetch_sub_explicit(&live_bytes, (long long)malloc_usable_size(ptr), memory_order_relaxed);
    }
}

static void bump(atomic_ullong *counter)
{
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

void *malloc(size_t size)
{
    bump(&n_malloc);
    void *ptr = __libc_malloc(size);
    gained(ptr);
    return ptr;
}

void *calloc(size_t count, size_t size)
{
    bump(&n_calloc);
    void *ptr = __libc_calloc(count, size);
    gained(ptr);
    return ptr;
}

/* The old block's bytes leave before the call: once it returns they may belong to another. */
void *realloc(void *ptr, size_t size)
{
    bump(&n_realloc);
    size_t old = ptr != NULL ? malloc_usable_size(ptr) : 0;
    void *moved = __libc_realloc(ptr, size);
    if (ptr != NULL && (moved != NULL || size == 0)) {
        atomic_fetch_sub_explicit(&live_bytes, (long long)old, memory_order_relaxed);
    }
    gained(moved);
    return moved;
}

/* glibc's own reallocarray would call its realloc past us; this one goes through ours. */
void *reallocarray(void *ptr, size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(ptr, total);
}

/* A null free does nothing, so it is not counted as a heap call. */
void free(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    bump(&n_free);
    lost(ptr);
    __libc_free(ptr);
}

void *memalign(size_t alignment, size_t size)
{
    bump(&n_aligned);
    void *ptr = __libc_memalign(alignment, size);
    gained(ptr);
    return ptr;
}

void *aligned_alloc(size_t alignment, size_t size)
{
    return memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *ptr = memalign(alignment, size);
    if (ptr == NULL) {
        return ENOMEM;
    }
    *out = ptr;
    return 0;
}

void *valloc(size_t size)
{
    bump(&n_aligned);
    void *ptr = __libc_valloc(size);
    gained(ptr);
    return ptr;
}

void *pvalloc(size_t size)
{
    bump(&n_aligned);
    void *ptr = __libc_pvalloc(size);
    gained(ptr);
    return ptr;
}

/* Formatting by hand: a signal handler may not call snprintf. */
static size_t put_str(char *buf, size_t at, const char *s)
{
    while (*s != '\0') {
        buf[at++] = *s++;
    }
    return at;
}

static size_t put_num(char *buf, size_t at, const char *name, long long value)
{
    char digits[24];
    size_t n = 0;
    unsigned long long v = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    at = put_str(buf, at, name);
    if (value < 0) {
        buf[at++] = '-';
    }
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) {
        buf[at++] = digits[--n];
    }
    return at;
}

static long long load(atomic_ullong *counter)
{
    return (long long)atomic_load_explicit(counter, memory_order_relaxed);
}

static void write_line(const char *why)
{
    char buf[512];
    size_t at = put_num(buf, 0, "allocount snapshot=", (long long)(atomic_fetch_add(&snapshots, 1) + 1));
    at = put_str(buf, at, " why=");
    at = put_str(buf, at, why);
    at = put_num(buf, at, " pid=", (long long)getpid());
    at = put_num(buf, at, " malloc=", load(&n_malloc));
    at = put_num(buf, at, " calloc=", load(&n_calloc));
    at = put_num(buf, at, " realloc=", load(&n_realloc));
    at = put_num(buf, at, " aligned=", load(&n_aligned));
    at = put_num(buf, at, " free=", load(&n_free));
    at = put_num(buf, at, " live_bytes=", atomic_load_explicit(&live_bytes, memory_order_relaxed));
    at = put_num(buf, at, " peak_bytes=", atomic_load_explicit(&peak_bytes, memory_order_relaxed));
    buf[at++] = '\n';
    /* One write per line, to a file opened for appending: lines of several processes never mix. */
    ssize_t done = write(out_fd, buf, at);
    (void)done;
}

static void on_usr1(int sig)
{
    (void)sig;
    int saved = errno;
    write_line("signal");
    errno = saved;
}

__attribute__((constructor)) static void start(void)
{
    const char *path = getenv("ALLOCOUNT_OUT");
    if (path != NULL && *path != '\0') {
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            out_fd = fd;
        }
    }
    /* Only where the program left SIGUSR1 alone: its own use of the signal wins. */
    struct sigaction old;
    if (sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
    }
}

__attribute__((destructor)) static void finish(void)
{
    write_line("exit");
}
