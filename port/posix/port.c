/*
 * zmote/port.h for POSIX systems (Linux first): pthreads, clock_gettime, getaddrinfo and
 * blocking BSD sockets. Sockets stay blocking so the read task sleeps in recv() at no cost (once
 * it has answered on its socket, it first polls it briefly: zm_port_socket_read); connect,
 * accept and writes use poll(), because they need a deadline (a write sends with MSG_DONTWAIT,
 * the socket itself stays blocking for the reader), and shutdown() is what wakes a reader or a
 * waiting writer when a link is torn down. This is the only code that sees POSIX headers.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* accept4, SOCK_CLOEXEC, getrandom */
#else
#define _POSIX_C_SOURCE 200809L
#endif

#include "zmote/opt.h" /* which links to build, before the headers they need */

#include <errno.h>
#include <fcntl.h>
#if ZM_PORT_UDP
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#endif
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#if Z_FEATURE_LINK_SERIAL
#include <sys/ioctl.h>
#include <termios.h>
#endif
#include <unistd.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/random.h>
#include <sys/syscall.h>
#endif

#include "zmote/port.h"

/* Declared by util/common.h only when asserts are on; defined here always, so that a test built
 * with asserts links against a library built without them. */
void zm_assert_fail(const char *expr, const char *file, int line);

#define LISTEN_BACKLOG 16

#if Z_FEATURE_MULTI_THREAD
/* A failing pthread call on a valid object is a bug in the caller (double lock, unlock by the
 * wrong thread); carrying on would only corrupt state further. */
static _Noreturn void die(const char *what, int err)
{
    fprintf(stderr, "zmote: %s failed: %s\n", what, strerror(err));
    abort();
}
#endif

/* A strong definition: it replaces the trap-only weak one of the portable core. */
void zm_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "zmote: assertion failed: %s (%s:%d)\n", expr, file, line);
    fflush(stderr);
    abort();
}

#if ZM_LOG_LEVEL > 0
/* Declared by util/log.h; one line on stderr, written whole so that threads do not interleave. */
void zm_port_log(uint8_t level, const char *line);

void zm_port_log(uint8_t level, const char *line)
{
    static const char *const names[] = {"", "error", "warn", "info", "debug"};
    fprintf(stderr, "zmote %s: %s\n", level < 5 ? names[level] : "log", line);
}
#endif

/* ---- memory ---------------------------------------------------------------------------------- */

/*
 * Blocks of PORT_MAP_MIN bytes and more (a large message's reassembly) are mapped on their own and
 * unmapped when freed. From malloc, a large block freed would stay in its thread's arena: glibc
 * raises its threshold for mapping to the largest block freed (up to 32 MiB) and keeps up to
 * twice that free per arena, so the reassembly budgets would not bound what the process holds.
 * Every block carries its size ahead of it, for free to tell the two kinds apart.
 */
#define PORT_MAP_MIN (256u * 1024u)

typedef union {
    size_t size; /* of the whole block, header included */
    max_align_t align;
} block_head_t;

void *zm_port_malloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(block_head_t)) {
        return NULL;
    }
    size_t total = size + sizeof(block_head_t);
    block_head_t *h;
    if (total >= PORT_MAP_MIN) {
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        h = m == MAP_FAILED ? NULL : m;
    } else {
        h = malloc(total);
    }
    if (h == NULL) {
        return NULL;
    }
    h->size = total;
    return h + 1;
}

void zm_port_free(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    block_head_t *h = (block_head_t *)ptr - 1;
    if (h->size >= PORT_MAP_MIN) {
        (void)munmap(h, h->size);
    } else {
        free(h);
    }
}

/* ---- clocks and randomness ------------------------------------------------------------------- */

uint64_t zm_port_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t zm_port_time_ns(void) { return clock_ns(CLOCK_REALTIME); }

void zm_port_sleep_ms(uint32_t ms)
{
    struct timespec left = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

/* Fills what it can from the kernel; false if some bytes are still missing. */
static bool random_from_os(uint8_t *p, size_t len)
{
#if defined(__linux__)
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            break; /* old kernel (ENOSYS) or seccomp: try the device */
        }
        p += n;
        len -= (size_t)n;
    }
    if (len == 0) {
        return true;
    }
#endif
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    close(fd);
    return len == 0;
}

/* Last resort when the kernel gives nothing (chroot without /dev, seccomp): xorshift64* seeded
 * from clocks, pid and an address. Good enough for distinct zids, not for secrets. */
static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t fallback_state;

static void random_fallback(uint8_t *p, size_t len)
{
    pthread_mutex_lock(&fallback_lock);
    if (fallback_state == 0) {
        fallback_state = zm_port_time_ns() ^ (zm_port_clock_ms() << 20) ^
                         ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&len;
        fallback_state |= 1u;
    }
    for (size_t i = 0; i < len; i++) {
        fallback_state ^= fallback_state >> 12;
        fallback_state ^= fallback_state << 25;
        fallback_state ^= fallback_state >> 27;
        p[i] = (uint8_t)((fallback_state * 0x2545f4914f6cdd1dull) >> 56);
    }
    pthread_mutex_unlock(&fallback_lock);
}

void zm_port_random(void *buf, size_t len)
{
    if (!random_from_os((uint8_t *)buf, len)) {
        random_fallback((uint8_t *)buf, len);
    }
}

/* ---- threads --------------------------------------------------------------------------------- */
#if Z_FEATURE_MULTI_THREAD

static z_result_t resource_result(int err)
{
    return (err == ENOMEM || err == EAGAIN) ? ZM_E_NOMEM : Z_EGENERIC;
}

#if ZM_PORT_FUTEX
/*
 * The classic three-state futex mutex: a thread that finds it held marks it 2 (someone sleeps)
 * before sleeping, so an unlock makes the system call only when a thread may be asleep. The
 * atomics' orders (acquire when taken, release when given back) are what order the data.
 */
static long futex(unsigned *word, int op, unsigned val, const struct timespec *ts)
{
    return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

z_result_t zm_port_mutex_init(zm_mutex_t *m)
{
    m->state = 0;
    m->owner = 0;
    return Z_OK;
}

void zm_port_mutex_destroy(zm_mutex_t *m)
{
    if (ZM_ASSERT_ENABLED && __atomic_load_n(&m->state, __ATOMIC_RELAXED) != 0) {
        die("zm_port_mutex_destroy", EBUSY);
    }
}

/* Takes m, found held: marked 2 from now on, since other threads may sleep on it too. */
static void lock_contended(zm_mutex_t *m)
{
    unsigned c = __atomic_exchange_n(&m->state, 2u, __ATOMIC_ACQUIRE);
    while (c != 0) {
        futex(&m->state, FUTEX_WAIT, 2u, NULL); /* returns at once if it is no longer 2 */
        c = __atomic_exchange_n(&m->state, 2u, __ATOMIC_ACQUIRE);
    }
}

/* Builds with asserts catch a double lock and a foreign unlock instead of deadlocking. */
static void owner_set(zm_mutex_t *m)
{
    if (ZM_ASSERT_ENABLED) {
        __atomic_store_n(&m->owner, zm_port_thread_self(), __ATOMIC_RELAXED);
    }
}

void zm_port_mutex_lock(zm_mutex_t *m)
{
    if (ZM_ASSERT_ENABLED && __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == zm_port_thread_self()) {
        die("zm_port_mutex_lock", EDEADLK);
    }
    unsigned free_state = 0;
    if (!__atomic_compare_exchange_n(&m->state, &free_state, 1u, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        lock_contended(m);
    }
    owner_set(m);
}

bool zm_port_mutex_trylock(zm_mutex_t *m)
{
    unsigned free_state = 0;
    if (!__atomic_compare_exchange_n(&m->state, &free_state, 1u, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return false;
    }
    owner_set(m);
    return true;
}

void zm_port_mutex_unlock(zm_mutex_t *m)
{
    if (ZM_ASSERT_ENABLED) {
        if (__atomic_load_n(&m->owner, __ATOMIC_RELAXED) != zm_port_thread_self()) {
            die("zm_port_mutex_unlock", EPERM);
        }
        __atomic_store_n(&m->owner, (uintptr_t)0, __ATOMIC_RELAXED);
    }
    if (__atomic_exchange_n(&m->state, 0u, __ATOMIC_RELEASE) == 2) {
        futex(&m->state, FUTEX_WAKE, 1u, NULL);
    }
}

z_result_t zm_port_condvar_init(zm_condvar_t *c)
{
    c->seq = 0;
    c->waiters = 0;
    return Z_OK;
}

void zm_port_condvar_destroy(zm_condvar_t *c) { (void)c; }

/*
 * A signal moves seq, then looks for waiters; a waiter counts itself, then reads seq. In that
 * order (sequentially consistent), either the signal sees the waiter and wakes it, or the waiter
 * reads the moved seq and the signal came before its wait: no wake-up is lost, and a signal with
 * nobody waiting (a channel's every item) makes no system call.
 */
static void wake(zm_condvar_t *c, unsigned n)
{
    __atomic_fetch_add(&c->seq, 1u, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->waiters, __ATOMIC_SEQ_CST) != 0) {
        futex(&c->seq, FUTEX_WAKE, n, NULL);
    }
}

void zm_port_condvar_signal(zm_condvar_t *c) { wake(c, 1u); }

void zm_port_condvar_broadcast(zm_condvar_t *c) { wake(c, (unsigned)INT_MAX); }

/*
 * Reads seq while m is held, so a signal given after the unlock (by a thread that took m) has
 * moved it and the sleep returns at once. m is taken back as contended: other waiters woken by
 * a broadcast may sleep on it.
 */
z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms)
{
    __atomic_fetch_add(&c->waiters, 1u, __ATOMIC_SEQ_CST);
    unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_SEQ_CST);
    zm_port_mutex_unlock(m);
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time, the clock of zm_port_clock_ms */
    uint64_t sec = deadline_ms / 1000u;
    struct timespec ts = {(time_t)(sec > (uint64_t)INT32_MAX ? (uint64_t)INT32_MAX : sec),
                          (long)(deadline_ms % 1000u) * 1000000L};
    long r = futex(&c->seq, FUTEX_WAIT_BITSET, seq, &ts);
    int err = r == 0 ? 0 : errno;
    lock_contended(m);
    owner_set(m);
    __atomic_fetch_sub(&c->waiters, 1u, __ATOMIC_RELAXED);
    if (err == ETIMEDOUT) {
        return ZM_E_TIMEOUT;
    }
    if (err != 0 && err != EAGAIN && err != EINTR) {
        die("futex", err);
    }
    return Z_OK;
}
#else
z_result_t zm_port_mutex_init(zm_mutex_t *m)
{
    pthread_mutexattr_t attr;
    int err = pthread_mutexattr_init(&attr);
    if (err != 0) {
        return resource_result(err);
    }
#if ZM_ASSERT_ENABLED
    /* Debug builds catch double locks and foreign unlocks instead of deadlocking. */
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
#endif
    err = pthread_mutex_init(&m->m, &attr);
    pthread_mutexattr_destroy(&attr);
    return err == 0 ? Z_OK : resource_result(err);
}

void zm_port_mutex_destroy(zm_mutex_t *m)
{
    int err = pthread_mutex_destroy(&m->m);
    if (err != 0) {
        die("pthread_mutex_destroy", err);
    }
}

void zm_port_mutex_lock(zm_mutex_t *m)
{
    int err = pthread_mutex_lock(&m->m);
    if (err != 0) {
        die("pthread_mutex_lock", err);
    }
}

bool zm_port_mutex_trylock(zm_mutex_t *m)
{
    int err = pthread_mutex_trylock(&m->m);
    if (err == 0) {
        return true;
    }
    if (err != EBUSY) {
        die("pthread_mutex_trylock", err);
    }
    return false;
}

void zm_port_mutex_unlock(zm_mutex_t *m)
{
    int err = pthread_mutex_unlock(&m->m);
    if (err != 0) {
        die("pthread_mutex_unlock", err);
    }
}

z_result_t zm_port_condvar_init(zm_condvar_t *c)
{
    pthread_condattr_t attr;
    int err = pthread_condattr_init(&attr);
    if (err != 0) {
        return resource_result(err);
    }
    /* Deadlines are zm_port_clock_ms values: a wall-clock jump must not stretch a lease. */
    err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (err == 0) {
        err = pthread_cond_init(&c->c, &attr);
    }
    pthread_condattr_destroy(&attr);
    return err == 0 ? Z_OK : resource_result(err);
}

void zm_port_condvar_destroy(zm_condvar_t *c)
{
    int err = pthread_cond_destroy(&c->c);
    if (err != 0) {
        die("pthread_cond_destroy", err);
    }
}

void zm_port_condvar_signal(zm_condvar_t *c) { pthread_cond_signal(&c->c); }

void zm_port_condvar_broadcast(zm_condvar_t *c) { pthread_cond_broadcast(&c->c); }

z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms)
{
    /* Clamped so that a "never" deadline fits a 32-bit time_t: 68 years of uptime. */
    uint64_t sec = deadline_ms / 1000u;
    if (sec > (uint64_t)INT32_MAX) {
        sec = (uint64_t)INT32_MAX;
    }
    struct timespec ts = {(time_t)sec, (long)(deadline_ms % 1000u) * 1000000L};
    int err = pthread_cond_timedwait(&c->c, &m->m, &ts);
    if (err == ETIMEDOUT) {
        return ZM_E_TIMEOUT;
    }
    if (err != 0 && err != EINTR) {
        die("pthread_cond_timedwait", err);
    }
    return Z_OK;
}

#endif

z_result_t zm_port_task_start(zm_task_t *t, void *(*fn)(void *), void *arg)
{
    int err = pthread_create(&t->t, NULL, fn, arg);
    return err == 0 ? Z_OK : resource_result(err);
}

z_result_t zm_port_task_start_detached(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    int err = pthread_create(&t, NULL, fn, arg);
    if (err != 0) {
        return resource_result(err);
    }
    (void)pthread_detach(t);
    return Z_OK;
}

void zm_port_task_join(zm_task_t *t)
{
    int err = pthread_join(t->t, NULL);
    if (err != 0) {
        die("pthread_join", err);
    }
}

#endif /* Z_FEATURE_MULTI_THREAD */

zm_thread_id_t zm_port_thread_self(void)
{
#if Z_FEATURE_MULTI_THREAD
    return (zm_thread_id_t)pthread_self(); /* an integer or a pointer on every POSIX system we serve */
#else
    return 0;
#endif
}

/* ---- sockets --------------------------------------------------------------------------------- */
#if ZM_PORT_SOCKETS

static z_result_t errno_result(int err)
{
    switch (err) {
    case EPIPE:
    case ECONNRESET:
    case ENOTCONN:
        return ZM_E_CLOSED;
    case ECONNREFUSED:
        return ZM_E_REFUSED;
    case EADDRINUSE:
        return ZM_E_ADDR_IN_USE;
    case ENETDOWN:
    case ENETUNREACH:
    case EHOSTUNREACH:
        return ZM_E_UNREACHABLE;
    case ECONNABORTED:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT:
    case ETIMEDOUT: /* the kernel gave up on the peer: the connection is dead, not slow */
        return Z_ENETWORK;
    case ENOMEM:
    case ENOBUFS:
    case EMFILE:
    case ENFILE:
        return ZM_E_NOMEM;
    default:
        return Z_EIO;
    }
}

/* Polls one fd until the monotonic deadline, retrying after signals. 1: ready, 0: timed out,
 * -1: error in errno. */
static int poll_until(int fd, short events, uint64_t deadline)
{
    for (;;) {
        uint64_t now = zm_port_clock_ms();
        uint64_t left = now < deadline ? deadline - now : 0;
        struct pollfd p = {fd, events, 0};
        int n = poll(&p, 1, left > (uint64_t)INT_MAX ? INT_MAX : (int)left);
        if (n > 0) {
            return 1;
        }
        if (n == 0) {
            if (left <= (uint64_t)INT_MAX) {
                return 0;
            }
            continue; /* waited INT_MAX ms of a longer timeout */
        }
        if (errno != EINTR) {
            return -1;
        }
    }
}

static int open_socket(int family, int type)
{
#if defined(SOCK_CLOEXEC)
    return socket(family, type | SOCK_CLOEXEC, 0);
#else
    int fd = socket(family, type, 0);
    if (fd >= 0) {
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
#endif
}

static z_result_t resolve(const char *host, uint16_t port, bool passive, int socktype,
                          struct addrinfo **out)
{
    char service[8];
    snprintf(service, sizeof(service), "%u", (unsigned)port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = socktype;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    int err = getaddrinfo(host, service, &hints, out);
    if (err == 0) {
        return Z_OK;
    }
    switch (err) {
    case EAI_MEMORY:
        return ZM_E_NOMEM;
    case EAI_NONAME:
#ifdef EAI_NODATA
    case EAI_NODATA:
#endif
        return ZM_E_NO_HOST;
    default:
        return Z_ENETWORK; /* EAI_AGAIN and the like: the resolver itself failed */
    }
}

#if Z_FEATURE_LINK_TCP
static z_result_t set_blocking(int fd, bool blocking)
{
    int flags = fcntl(fd, F_GETFL, 0);
    if (flags < 0) {
        return errno_result(errno);
    }
    flags = blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK);
    return fcntl(fd, F_SETFL, flags) == 0 ? Z_OK : errno_result(errno);
}

/* Small batches must leave at once (Nagle would hold them for an ack), and a peer that went
 * away must give EPIPE, not SIGPIPE, where MSG_NOSIGNAL does not exist. */
static void tune_connected(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
#if !defined(MSG_NOSIGNAL) && defined(SO_NOSIGPIPE)
    (void)setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
}

/* One address: a non-blocking connect bounded by the deadline, then back to blocking. */
static z_result_t connect_one(const struct addrinfo *ai, uint64_t deadline, int *out)
{
    int fd = open_socket(ai->ai_family, SOCK_STREAM);
    if (fd < 0) {
        return errno_result(errno);
    }
    z_result_t r = set_blocking(fd, false);
    if (r == Z_OK && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            r = errno_result(errno);
        } else {
            int ready = poll_until(fd, POLLOUT, deadline);
            if (ready == 0) {
                r = ZM_E_TIMEOUT;
            } else if (ready < 0) {
                r = errno_result(errno);
            } else {
                int err = 0;
                socklen_t len = sizeof(err);
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
                    err = errno;
                }
                r = err == 0 ? Z_OK : errno_result(err);
            }
        }
    }
    if (r == Z_OK) {
        r = set_blocking(fd, true);
    }
    if (r != Z_OK) {
        close(fd);
        return r;
    }
    tune_connected(fd);
    *out = fd;
    return Z_OK;
}

z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port,
                               uint32_t timeout_ms)
{
    *s = (zm_socket_t){.fd = -1};
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    struct addrinfo *list = NULL;
    z_result_t r = resolve(host, port, false, SOCK_STREAM, &list);
    if (r != Z_OK) {
        return r;
    }
    r = Z_ENETWORK;
    for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        int fd = -1;
        r = connect_one(ai, deadline, &fd);
        if (r == Z_OK) {
            s->fd = fd;
            break;
        }
        if (r == ZM_E_TIMEOUT) {
            break; /* the whole budget is spent */
        }
    }
    freeaddrinfo(list);
    return r;
}

z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port)
{
    s->fd = -1;
    struct addrinfo *list = NULL;
    z_result_t r = resolve(host, port, true, SOCK_STREAM, &list);
    if (r != Z_OK) {
        return r;
    }
    r = Z_ENETWORK;
    for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        int fd = open_socket(ai->ai_family, SOCK_STREAM);
        if (fd < 0) {
            r = errno_result(errno);
            continue;
        }
        int one = 1;
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
            bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
            r = errno_result(errno);
            close(fd);
            continue;
        }
        /* The listener polls, then accepts without blocking: a connection reset between the
         * two must not leave accept() stuck past its timeout. */
        r = set_blocking(fd, false);
        if (r != Z_OK) {
            close(fd);
            continue;
        }
        s->fd = fd;
        break;
    }
    freeaddrinfo(list);
    return r;
}

z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms)
{
    *out = (zm_socket_t){.fd = -1};
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        int ready = poll_until(listener->fd, POLLIN, deadline);
        if (ready == 0) {
            return ZM_E_TIMEOUT;
        }
        if (ready < 0) {
            return errno_result(errno);
        }
#if defined(__linux__)
        int fd = accept4(listener->fd, NULL, NULL, SOCK_CLOEXEC);
#else
        int fd = accept(listener->fd, NULL, NULL);
        if (fd >= 0) {
            (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
#endif
        if (fd >= 0) {
            /* BSDs hand down the listener's O_NONBLOCK; reads and writes here must block. */
            z_result_t r = set_blocking(fd, true);
            if (r != Z_OK) {
                close(fd);
                return r;
            }
            tune_connected(fd);
            out->fd = fd;
            return Z_OK;
        }
        if (errno == EINVAL) {
            return ZM_E_CLOSED; /* Linux: the listener was shut down */
        }
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED) {
            return errno_result(errno);
        }
    }
}

#endif /* Z_FEATURE_LINK_TCP */

/* Writes sa as `192.168.1.2:7447` or `[fe80::1]:7447` into buf (cap bytes): its length, or 0. */
static size_t sockaddr_format(const struct sockaddr_storage *sa, char *buf, size_t cap)
{
    char ip[INET6_ADDRSTRLEN];
    int n;
    if (cap == 0) {
        return 0;
    }
    if (sa->ss_family == AF_INET) {
        const struct sockaddr_in *p = (const struct sockaddr_in *)(const void *)sa;
        if (inet_ntop(AF_INET, &p->sin_addr, ip, sizeof(ip)) == NULL) {
            return 0;
        }
        n = snprintf(buf, cap, "%s:%u", ip, (unsigned)ntohs(p->sin_port));
    } else if (sa->ss_family == AF_INET6) {
        const struct sockaddr_in6 *p = (const struct sockaddr_in6 *)(const void *)sa;
        if (inet_ntop(AF_INET6, &p->sin6_addr, ip, sizeof(ip)) == NULL) {
            return 0;
        }
        n = snprintf(buf, cap, "[%s]:%u", ip, (unsigned)ntohs(p->sin6_port));
    } else {
        return 0;
    }
    if (n < 0 || (size_t)n >= cap) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

size_t zm_port_socket_address(const zm_socket_t *s, bool remote, char *buf, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    memset(&ss, 0, sizeof(ss));
    int rc = remote ? getpeername(s->fd, (struct sockaddr *)&ss, &len) : getsockname(s->fd, (struct sockaddr *)&ss, &len);
    return rc == 0 ? sockaddr_format(&ss, buf, cap) : 0;
}

z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(s->fd, (struct sockaddr *)&ss, &len) != 0) {
        return errno_result(errno);
    }
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        *port = ntohs(a->sin_port);
        return Z_OK;
    }
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        *port = ntohs(a->sin6_port);
        return Z_OK;
    }
    return Z_EIO;
}

z_result_t zm_port_socket_wait_readable(zm_socket_t *s, uint32_t timeout_ms)
{
    int ready = poll_until(s->fd, POLLIN, zm_port_clock_ms() + timeout_ms);
    if (ready < 0) {
        return errno_result(errno);
    }
    return ready ? Z_OK : ZM_E_TIMEOUT;
}

z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms,
                                   uint8_t *ready)
{
    if (n > ZM_SOCKET_WAIT_MAX) {
        return ZM_E_LIMIT;
    }
    /* Bounded by the option so the wait needs no allocation; poll() ignores negative fds,
     * which is how NULL entries stay out of it. */
    struct pollfd fds[ZM_SOCKET_WAIT_MAX];
    for (size_t i = 0; i < n; i++) {
        fds[i].fd = socks[i] != NULL ? socks[i]->fd : -1;
        fds[i].events = POLLIN;
        fds[i].revents = 0;
        ready[i] = 0;
    }
    uint64_t deadline = zm_port_clock_ms() + timeout_ms;
    for (;;) {
        uint64_t now = zm_port_clock_ms();
        uint64_t left = now < deadline ? deadline - now : 0;
        int got = poll(fds, (nfds_t)n, left > (uint64_t)INT_MAX ? INT_MAX : (int)left);
        if (got > 0) {
            break;
        }
        if (got == 0) {
            if (left <= (uint64_t)INT_MAX) {
                return ZM_E_TIMEOUT;
            }
            continue;
        }
        if (errno != EINTR) {
            return errno_result(errno);
        }
    }
    for (size_t i = 0; i < n; i++) {
        ready[i] = (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) != 0 ? 1u : 0u;
    }
    return Z_OK;
}

/*
 * A reader that wrote on its socket since its last read (a callback that answered a query or
 * echoed a sample) expects the next message within a round trip: it polls the socket for up to
 * ZM_READ_POLL_US before it sleeps in recv(), yielding its CPU between tries (to the peer it may
 * just have woken there). A sleeping reader costs a wake-up of its CPU per message, which on a
 * short link (loopback, a virtual machine's) is most of the round trip. A poll that finds
 * nothing costs its whole window: after two in a row, the next 16 such reads sleep at once,
 * twice as many after each further miss, up to 1024; a poll that finds its message starts over.
 * A long link, whose answers come too late for any poll, soon polls once per 1024 answers. The
 * one thread of a build without threads reads only when asked, so it never polls.
 */
#define READ_POLL_NS (Z_FEATURE_MULTI_THREAD ? ZM_READ_POLL_US * 1000ull : 0u)
#define READ_POLL_REST_MIN 16u
#define READ_POLL_MISSES_MAX 8u /* a rest of 16 << 6 */

z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n)
{
    *n = 0;
    int flags = 0;
    uint64_t poll_start = 0;
    if (READ_POLL_NS > 0 && __atomic_load_n(&s->writer, __ATOMIC_RELAXED) == zm_port_thread_self()) {
        __atomic_store_n(&s->writer, (uintptr_t)0, __ATOMIC_RELAXED);
        if (s->poll_rest > 0) {
            s->poll_rest--;
        } else {
            flags = MSG_DONTWAIT;
            poll_start = clock_ns(CLOCK_MONOTONIC);
        }
    }
    for (;;) {
        ssize_t got = recv(s->fd, buf, len, flags);
        if (got > 0) {
            s->poll_misses = flags != 0 ? 0u : s->poll_misses;
            *n = (size_t)got;
            return Z_OK;
        }
        if (got == 0) {
            return ZM_E_CLOSED;
        }
        if (flags != 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (clock_ns(CLOCK_MONOTONIC) - poll_start <= READ_POLL_NS) {
                sched_yield();
                continue;
            }
            s->poll_misses += s->poll_misses < READ_POLL_MISSES_MAX;
            s->poll_rest = s->poll_misses < 2 ? 0u : READ_POLL_REST_MIN << (s->poll_misses - 2u);
            flags = 0; /* nothing came: sleep */
        } else if (errno != EINTR) {
            return errno_result(errno);
        }
    }
}

/*
 * Bytes a write may hand to a socket without polling it first, counted from the last poll that
 * found room. POLLOUT comes back only while at least a third of the send buffer is free (Linux:
 * free space at least half of what is queued), and Linux starts a TCP send buffer at 16 KiB
 * (tcp_wmem) and shrinks it only when memory runs short: what follows such a poll within this
 * bound fits whole. A small batch, a round trip's, then costs one send() and no poll().
 */
#define WRITE_UNPOLLED_MAX 4096u

/* MSG_DONTWAIT per call rather than O_NONBLOCK on the socket: the reader keeps sleeping in a
 * blocking recv() on the same descriptor. */
#if defined(MSG_NOSIGNAL)
#define WRITE_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL)
#else
#define WRITE_FLAGS MSG_DONTWAIT /* SO_NOSIGPIPE was set when the socket was opened */
#endif

/*
 * send() is a cancellation point: glibc turns asynchronous cancellation on and off around every
 * call, two calls into the thread library per batch. zmote cancels no thread, so on Linux the
 * system is asked directly (same call, same result, errno as send() sets it).
 */
#if defined(__linux__) && defined(SYS_sendto)
#define send_now(fd, buf, len) (ssize_t) syscall(SYS_sendto, (fd), (buf), (len), WRITE_FLAGS, NULL, 0)
#else
#define send_now(fd, buf, len) send((fd), (buf), (len), WRITE_FLAGS)
#endif

/* zm_port_socket_write from done bytes on, sent by the caller's first attempt (and once that
 * fell short, or not within WRITE_UNPOLLED_MAX, every send polls first). */
__attribute__((noinline)) static z_result_t write_polled(zm_socket_t *s, const uint8_t *buf, size_t len,
                                                         size_t done, uint64_t deadline_ms, size_t *written)
{
    z_result_t r = Z_OK;
    bool smooth = done == 0;
    while (done < len) {
        int ready = poll_until(s->fd, POLLOUT, deadline_ms);
        if (ready == 0) {
            r = ZM_E_TIMEOUT;
            break;
        }
        if (ready < 0) {
            r = errno_result(errno);
            break;
        }
        s->unpolled = 0;
        ssize_t sent = send_now(s->fd, buf + done, len - done);
        if (sent >= 0) {
            done += (size_t)sent;
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            r = errno_result(errno);
            break;
        }
        smooth = smooth && done == len;
    }
    bool few = smooth && r == Z_OK && done <= WRITE_UNPOLLED_MAX - s->unpolled;
    s->unpolled = few ? s->unpolled + (unsigned)done : WRITE_UNPOLLED_MAX;
    *written = done;
    return r;
}

z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    /* Wait until the socket reports itself writable before a send, unless a poll found room
     * only a few bytes ago: a send into an almost full socket takes a few bytes and stops, and a
     * batch cut like that can no longer be dropped whole when the peer stops reading. POLLOUT
     * only comes back once a good share of the buffer is free. A past deadline polls once: what
     * fits now goes. Once a send fell short, or a poll found no room, every send polls first. */
    size_t done = 0;
    if (READ_POLL_NS > 0) {
        __atomic_store_n(&s->writer, zm_port_thread_self(), __ATOMIC_RELAXED);
    }
    if (len <= WRITE_UNPOLLED_MAX - s->unpolled) {
        ssize_t sent = send_now(s->fd, buf, len);
        if (sent == (ssize_t)len) {
            s->unpolled += (unsigned)len;
            *written = len;
            return Z_OK;
        }
        if (sent < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            s->unpolled = WRITE_UNPOLLED_MAX;
            *written = 0;
            return errno_result(errno);
        }
        done = sent > 0 ? (size_t)sent : 0u;
        s->unpolled = WRITE_UNPOLLED_MAX; /* fell short: no longer smooth */
    }
    return write_polled(s, buf, len, done, deadline_ms, written);
}

#if Z_FEATURE_LINK_TLS
z_result_t zm_port_socket_wait_writable(zm_socket_t *s, uint64_t deadline_ms)
{
    int ready = poll_until(s->fd, POLLOUT, deadline_ms);
    return ready > 0 ? Z_OK : ready == 0 ? ZM_E_TIMEOUT : errno_result(errno);
}
#endif

void zm_port_socket_shutdown(zm_socket_t *s)
{
    if (s->fd >= 0) {
        (void)shutdown(s->fd, SHUT_RDWR);
    }
}

void zm_port_socket_close(zm_socket_t *s)
{
    if (s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}
#if ZM_PORT_UDP
/*
 * UDP: blocking sockets like TCP's, datagrams sent with MSG_DONTWAIT after a poll for room, and
 * received whole (MSG_TRUNC tells a datagram that did not fit). Multicast is IPv4 or IPv6, joined
 * on one interface chosen by name.
 */

static void addr_set(zm_addr_t *a, const struct sockaddr *sa, socklen_t len)
{
    if (len > ZM_ADDR_SIZE) {
        a->len = 0;
        return;
    }
    memcpy(a->raw, sa, len);
    a->len = (uint8_t)len;
}

/* A zm_addr_t's bytes have no alignment of their own: they are read through an aligned copy. */
static struct sockaddr_storage addr_get(const zm_addr_t *a)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    memcpy(&ss, a->raw, a->len <= sizeof(ss) ? a->len : sizeof(ss));
    return ss;
}

z_result_t zm_port_addr_resolve(zm_addr_t *a, const char *host, uint16_t port)
{
    a->len = 0;
    struct addrinfo *list = NULL;
    z_result_t r = resolve(host, port, false, SOCK_DGRAM, &list);
    if (r != Z_OK) {
        return r;
    }
    addr_set(a, list->ai_addr, list->ai_addrlen);
    freeaddrinfo(list);
    return a->len != 0 ? Z_OK : Z_ENETWORK;
}

bool zm_port_addr_equal(const zm_addr_t *a, const zm_addr_t *b)
{
    if (a->len == 0 || a->len != b->len) {
        return false;
    }
    struct sockaddr_storage sa = addr_get(a), sb = addr_get(b);
    const struct sockaddr *x = (const struct sockaddr *)(const void *)&sa;
    if (x->sa_family == AF_INET) {
        const struct sockaddr_in *p = (const struct sockaddr_in *)(const void *)&sa;
        const struct sockaddr_in *q = (const struct sockaddr_in *)(const void *)&sb;
        return q->sin_family == AF_INET && p->sin_port == q->sin_port &&
               p->sin_addr.s_addr == q->sin_addr.s_addr;
    }
    if (x->sa_family == AF_INET6) {
        const struct sockaddr_in6 *p = (const struct sockaddr_in6 *)(const void *)&sa;
        const struct sockaddr_in6 *q = (const struct sockaddr_in6 *)(const void *)&sb;
        return q->sin6_family == AF_INET6 && p->sin6_port == q->sin6_port &&
               memcmp(&p->sin6_addr, &q->sin6_addr, sizeof(p->sin6_addr)) == 0;
    }
    return false;
}

/* FNV-1a over the bytes zm_port_addr_equal compares, the seed folded in first. */
static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 16777619u;
    }
    return h;
}

uint32_t zm_port_addr_hash(const zm_addr_t *a, uint32_t seed)
{
    uint32_t h = hash_bytes(2166136261u, &seed, sizeof(seed));
    struct sockaddr_storage sa = addr_get(a);
    const struct sockaddr *x = (const struct sockaddr *)(const void *)&sa;
    if (a->len == 0) {
        return h;
    }
    if (x->sa_family == AF_INET) {
        const struct sockaddr_in *p = (const struct sockaddr_in *)(const void *)&sa;
        h = hash_bytes(h, &p->sin_port, sizeof(p->sin_port));
        return hash_bytes(h, &p->sin_addr, sizeof(p->sin_addr));
    }
    if (x->sa_family == AF_INET6) {
        const struct sockaddr_in6 *p = (const struct sockaddr_in6 *)(const void *)&sa;
        h = hash_bytes(h, &p->sin6_port, sizeof(p->sin6_port));
        return hash_bytes(h, &p->sin6_addr, sizeof(p->sin6_addr));
    }
    return h;
}

size_t zm_port_addr_format(const zm_addr_t *a, char *buf, size_t cap)
{
    if (a->len == 0) {
        return 0;
    }
    struct sockaddr_storage sa = addr_get(a);
    return sockaddr_format(&sa, buf, cap);
}

/*
 * Raises the receive buffer to ZM_UDP_RCVBUF: the fragments of one large message arrive as a
 * burst of datagrams of up to 64 kB, and the system's default (about 200 kB on Linux) holds only
 * a few. SO_RCVBUFFORCE passes the system's ceiling where the process may (CAP_NET_ADMIN);
 * SO_RCVBUF gets what the ceiling allows. A buffer already larger is left alone.
 */
static void udp_rcvbuf(int fd)
{
#if ZM_UDP_RCVBUF > 0
    int want = (int)ZM_UDP_RCVBUF;
    int have = 0;
    socklen_t len = sizeof(have);
    /* the system reports twice what it was asked (its own bookkeeping counts too) */
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &have, &len) == 0 && have / 2 >= want) {
        return;
    }
#if defined(SO_RCVBUFFORCE)
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) == 0) {
        return;
    }
#endif
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
#else
    (void)fd;
#endif
}

z_result_t zm_port_udp_open(zm_socket_t *s, const char *host, uint16_t port, bool connect_to)
{
    s->fd = -1;
    struct addrinfo *list = NULL;
    z_result_t r = resolve(host, port, !connect_to, SOCK_DGRAM, &list);
    if (r != Z_OK) {
        return r;
    }
    r = Z_ENETWORK;
    for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        int fd = open_socket(ai->ai_family, SOCK_DGRAM);
        if (fd < 0) {
            r = errno_result(errno);
            continue;
        }
        int ok = connect_to ? connect(fd, ai->ai_addr, ai->ai_addrlen) : bind(fd, ai->ai_addr, ai->ai_addrlen);
        if (ok != 0) {
            r = errno_result(errno);
            close(fd);
            continue;
        }
        udp_rcvbuf(fd);
        s->fd = fd;
        r = Z_OK;
        break;
    }
    freeaddrinfo(list);
    return r;
}

/* An interface by name: its index, and its first address of the family (for IPv4 sources). */
static z_result_t iface_find(const char *iface, int family, unsigned *index, struct sockaddr_storage *addr)
{
    *index = 0;
    memset(addr, 0, sizeof(*addr));
    addr->ss_family = (sa_family_t)family;
    if (iface == NULL || iface[0] == '\0') {
        return Z_OK;
    }
    *index = if_nametoindex(iface);
    if (*index == 0) {
        return ZM_E_LOCATOR;
    }
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) {
        return errno_result(errno);
    }
    z_result_t r = family == AF_INET ? Z_ENETWORK : Z_OK; /* IPv4 sources need an address */
    for (const struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr != NULL && i->ifa_addr->sa_family == family && strcmp(i->ifa_name, iface) == 0) {
            memcpy(addr, i->ifa_addr, family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
            r = Z_OK;
            break;
        }
    }
    freeifaddrs(list);
    return r;
}

/* Multicast sending options: out of iface, with ttl hops, looped back to this machine. */
static z_result_t mcast_send_options(int fd, int family, unsigned index, const struct sockaddr_storage *src,
                                     uint8_t ttl)
{
    int hops = ttl;
    int loop = 1;
    unsigned char loop4 = 1;
    unsigned char ttl4 = ttl;
    if (family == AF_INET) {
        struct in_addr via = ((const struct sockaddr_in *)(const void *)src)->sin_addr;
        if ((index != 0 && setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &via, sizeof(via)) != 0) ||
            setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl4, sizeof(ttl4)) != 0 ||
            setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop4, sizeof(loop4)) != 0) {
            return errno_result(errno);
        }
        return Z_OK;
    }
    if ((index != 0 && setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &index, sizeof(index)) != 0) ||
        setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) != 0 ||
        setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &loop, sizeof(loop)) != 0) {
        return errno_result(errno);
    }
    return Z_OK;
}

z_result_t zm_port_udp_join(zm_socket_t *s, const char *group, uint16_t port, const char *iface,
                            uint8_t ttl)
{
    s->fd = -1;
    zm_addr_t g;
    z_result_t r = zm_port_addr_resolve(&g, group, port);
    if (r != Z_OK) {
        return ZM_E_LOCATOR;
    }
    struct sockaddr_storage gs = addr_get(&g);
    const struct sockaddr *ga = (const struct sockaddr *)(const void *)&gs;
    int family = ga->sa_family;
    if ((family == AF_INET && !IN_MULTICAST(ntohl(((const struct sockaddr_in *)(const void *)&gs)->sin_addr.s_addr))) ||
        (family == AF_INET6 && !IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)(const void *)&gs)->sin6_addr))) {
        return ZM_E_LOCATOR;
    }
    unsigned index;
    struct sockaddr_storage src;
    r = iface_find(iface, family, &index, &src);
    if (r != Z_OK) {
        return r;
    }
    int fd = open_socket(family, SOCK_DGRAM);
    if (fd < 0) {
        return errno_result(errno);
    }
    udp_rcvbuf(fd);
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
#if defined(SO_REUSEPORT)
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
#endif
    /* Bound to the group itself, so that only its datagrams come in, not every unicast one sent
     * to this port. */
    if (bind(fd, ga, g.len) != 0) {
        r = errno_result(errno);
        close(fd);
        return r;
    }
    int joined;
    if (family == AF_INET) {
        struct ip_mreqn m;
        memset(&m, 0, sizeof(m));
        m.imr_multiaddr = ((const struct sockaddr_in *)(const void *)&gs)->sin_addr;
        m.imr_ifindex = (int)index;
        joined = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m));
    } else {
        struct ipv6_mreq m;
        memset(&m, 0, sizeof(m));
        m.ipv6mr_multiaddr = ((const struct sockaddr_in6 *)(const void *)&gs)->sin6_addr;
        m.ipv6mr_interface = index;
        joined = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m));
    }
    if (joined != 0) {
        close(fd);
        return Z_ENETWORK;
    }
    r = mcast_send_options(fd, family, index, &src, ttl);
    if (r != Z_OK) {
        close(fd);
        return r;
    }
    s->fd = fd;
    return Z_OK;
}

z_result_t zm_port_udp_sender(zm_socket_t *s, const char *iface, uint8_t ttl)
{
    s->fd = -1;
    unsigned index;
    struct sockaddr_storage src;
    z_result_t r = iface_find(iface, AF_INET, &index, &src);
    if (r != Z_OK) {
        return r;
    }
    int fd = open_socket(AF_INET, SOCK_DGRAM);
    if (fd < 0) {
        return errno_result(errno);
    }
    udp_rcvbuf(fd);
    /* src holds the interface's address (or the unspecified one) with port 0: a fresh port. */
    if (bind(fd, (const struct sockaddr *)&src, sizeof(struct sockaddr_in)) != 0) {
        r = errno_result(errno);
        close(fd);
        return r;
    }
    r = mcast_send_options(fd, AF_INET, index, &src, ttl);
    if (r != Z_OK) {
        close(fd);
        return r;
    }
    s->fd = fd;
    return Z_OK;
}

z_result_t zm_port_udp_local_addr(const zm_socket_t *s, zm_addr_t *a)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    a->len = 0;
    if (getsockname(s->fd, (struct sockaddr *)&ss, &len) != 0) {
        return errno_result(errno);
    }
    addr_set(a, (const struct sockaddr *)&ss, len);
    return a->len != 0 ? Z_OK : Z_EIO;
}

z_result_t zm_port_udp_send(zm_socket_t *s, const uint8_t *buf, size_t len, const zm_addr_t *to,
                            uint64_t deadline_ms)
{
#if defined(MSG_NOSIGNAL)
    const int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
#else
    const int flags = MSG_DONTWAIT;
#endif
    const struct sockaddr *sa = to != NULL ? (const struct sockaddr *)(const void *)to->raw : NULL;
    socklen_t salen = to != NULL ? to->len : 0;
    for (;;) {
        ssize_t sent = sendto(s->fd, buf, len, flags, sa, salen);
        if (sent >= 0) {
            return (size_t)sent == len ? Z_OK : Z_EIO;
        }
        if (errno == EMSGSIZE) {
            return ZM_E_TOO_LARGE;
        }
        if (errno == ECONNREFUSED) {
            continue; /* an earlier datagram was refused (ICMP); this one may still go */
        }
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
            return errno_result(errno);
        }
        if (errno != EINTR) {
            int ready = poll_until(s->fd, POLLOUT, deadline_ms);
            if (ready == 0) {
                return ZM_E_TIMEOUT;
            }
            if (ready < 0) {
                return errno_result(errno);
            }
            if (zm_port_clock_ms() > deadline_ms) {
                return ZM_E_TIMEOUT;
            }
        }
    }
}

z_result_t zm_port_udp_recv(zm_socket_t *s, uint8_t *buf, size_t cap, size_t *n, zm_addr_t *from)
{
    *n = 0;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        ssize_t got = recvfrom(s->fd, buf, cap, MSG_TRUNC, (struct sockaddr *)&ss, &len);
        if (got >= 0) {
            if ((size_t)got > cap) {
                return ZM_E_FIELD;
            }
            if (got == 0 && len == 0) {
                return ZM_E_CLOSED; /* shut down: an empty read from nobody, not a datagram */
            }
            *n = (size_t)got;
            if (from != NULL) {
                addr_set(from, (const struct sockaddr *)&ss, len);
            }
            return Z_OK;
        }
        if (errno == ECONNREFUSED) {
            continue; /* a connected socket's earlier datagram was refused: not this one's fault */
        }
        if (errno != EINTR) {
            return errno_result(errno);
        }
    }
}

#if Z_FEATURE_LINK_UDP_UNICAST
z_result_t zm_port_udp_peek(zm_socket_t *s, size_t *n, zm_addr_t *from)
{
    *n = 0;
    from->len = 0;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof(ss);
        uint8_t byte;
        /* MSG_TRUNC: the datagram's whole length, though one byte is looked at */
        ssize_t got = recvfrom(s->fd, &byte, sizeof(byte), MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT,
                               (struct sockaddr *)&ss, &len);
        if (got >= 0) {
            if (got == 0 && len == 0) {
                return ZM_E_CLOSED;
            }
            *n = (size_t)got;
            addr_set(from, (const struct sockaddr *)&ss, len);
            return Z_OK;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return ZM_E_AGAIN;
        }
        if (errno != EINTR) {
            return errno_result(errno); /* ECONNREFUSED: ZM_E_REFUSED */
        }
    }
}
#endif
#endif /* ZM_PORT_UDP */
#endif /* ZM_PORT_SOCKETS */

/* ---- serial lines ---------------------------------------------------------------------------- */
#if Z_FEATURE_LINK_SERIAL
/*
 * A tty in raw mode, non-blocking, so that every wait is a poll() with a deadline over the tty and
 * the wake pipe: shutdown writes one byte to the pipe and never drains it, so every wait after it
 * returns at once. A pseudo-terminal whose other side closed reports EIO (Linux) or end of file:
 * both are ZM_E_CLOSED, as a USB adapter that was pulled out.
 */

static z_result_t serial_errno_result(int err)
{
    switch (err) {
    case EIO:
    case ENXIO:
    case ENODEV:
    case EBADF:
        return ZM_E_CLOSED;
    case EBUSY:
        return ZM_E_BUSY;
    case ENOMEM:
    case EMFILE:
    case ENFILE:
        return ZM_E_NOMEM;
    default:
        return Z_EIO;
    }
}

/* The termios constant of a baud rate; false for a rate the system has no constant for. */
static bool baud_constant(uint32_t baud, speed_t *out)
{
    static const struct {
        uint32_t rate;
        speed_t constant;
    } rates[] = {
        {1200, B1200},     {2400, B2400},     {4800, B4800},     {9600, B9600},
        {19200, B19200},   {38400, B38400},   {57600, B57600},   {115200, B115200},
        {230400, B230400},
#ifdef B460800
        {460800, B460800},
#endif
#ifdef B500000
        {500000, B500000},
#endif
#ifdef B576000
        {576000, B576000},
#endif
#ifdef B921600
        {921600, B921600},
#endif
#ifdef B1000000
        {1000000, B1000000},
#endif
#ifdef B1500000
        {1500000, B1500000},
#endif
#ifdef B2000000
        {2000000, B2000000},
#endif
#ifdef B3000000
        {3000000, B3000000},
#endif
#ifdef B4000000
        {4000000, B4000000},
#endif
    };
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        if (rates[i].rate == baud) {
            *out = rates[i].constant;
            return true;
        }
    }
    return false;
}

/* 8N1, raw, no flow control, reads that return as soon as one byte is in. */
static int make_raw(int fd, speed_t speed)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0) {
        return -1;
    }
    t.c_iflag &= (tcflag_t) ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF | IXANY | INPCK);
    t.c_oflag &= (tcflag_t)~OPOST;
    t.c_lflag &= (tcflag_t) ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= (tcflag_t) ~(CSIZE | PARENB | CSTOPB);
#ifdef CRTSCTS
    t.c_cflag &= (tcflag_t)~CRTSCTS;
#endif
    t.c_cflag |= (tcflag_t)(CS8 | CREAD | CLOCAL);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, speed) != 0 || cfsetospeed(&t, speed) != 0 || tcsetattr(fd, TCSANOW, &t) != 0) {
        return -1;
    }
    return tcflush(fd, TCIOFLUSH); /* what waited in the line belongs to nobody */
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL, 0);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        return -1;
    }
    return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

z_result_t zm_port_serial_open(zm_serial_t *s, const char *dev, uint32_t baudrate)
{
    s->tty.fd = -1;
    s->wake_rd = -1;
    s->wake_wr = -1;
    speed_t speed;
    if (!baud_constant(baudrate, &speed)) {
        return ZM_E_UNSUPPORTED;
    }
    int fd = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return err == EBUSY ? ZM_E_BUSY : err == ENOMEM || err == EMFILE || err == ENFILE ? ZM_E_NOMEM : Z_ENETWORK;
    }
    s->tty.fd = fd;
    /* Exclusive, as Rust opens its lines by default: a second program gets EBUSY instead of
     * half of the bytes. */
#ifdef TIOCEXCL
    (void)ioctl(fd, TIOCEXCL);
#endif
    int pipefd[2];
    z_result_t r = Z_OK;
    if (make_raw(fd, speed) != 0) {
        r = errno == ENOTTY ? ZM_E_UNSUPPORTED : serial_errno_result(errno);
    } else if (pipe(pipefd) != 0) {
        r = serial_errno_result(errno);
    } else {
        s->wake_rd = pipefd[0];
        s->wake_wr = pipefd[1];
        if (set_flags(s->wake_rd) != 0 || set_flags(s->wake_wr) != 0) {
            r = serial_errno_result(errno);
        }
    }
    if (r != Z_OK) {
        zm_port_serial_close(s);
    }
    return r;
}

/* Polls the tty for events and the wake pipe until the deadline. 1: the tty is ready, 0: timed
 * out, -1: shut down, -2: error in errno. */
static int serial_poll(zm_serial_t *s, short events, uint64_t deadline)
{
    for (;;) {
        uint64_t now = zm_port_clock_ms();
        uint64_t left = now < deadline ? deadline - now : 0;
        struct pollfd p[2] = {{s->tty.fd, events, 0}, {s->wake_rd, POLLIN, 0}};
        int n = poll(p, 2, left > (uint64_t)INT_MAX ? INT_MAX : (int)left);
        if (n > 0) {
            return p[1].revents != 0 ? -1 : 1;
        }
        if (n == 0) {
            if (left <= (uint64_t)INT_MAX) {
                return 0;
            }
            continue;
        }
        if (errno != EINTR) {
            return -2;
        }
    }
}

z_result_t zm_port_serial_wait_readable(zm_serial_t *s, uint32_t timeout_ms)
{
    int ready = serial_poll(s, POLLIN, zm_port_clock_ms() + timeout_ms);
    if (ready == -2) {
        return serial_errno_result(errno);
    }
    return ready != 0 ? Z_OK : ZM_E_TIMEOUT; /* shut down: the read that follows says so */
}

z_result_t zm_port_serial_read(zm_serial_t *s, uint8_t *buf, size_t len, size_t *n)
{
    *n = 0;
    for (;;) {
        int ready = serial_poll(s, POLLIN, UINT64_MAX);
        if (ready == -1) {
            return ZM_E_CLOSED;
        }
        if (ready == -2) {
            return serial_errno_result(errno);
        }
        ssize_t got = read(s->tty.fd, buf, len);
        if (got > 0) {
            *n = (size_t)got;
            return Z_OK;
        }
        if (got == 0) {
            return ZM_E_CLOSED; /* the other side of a pseudo-terminal closed */
        }
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            return serial_errno_result(errno);
        }
    }
}

z_result_t zm_port_serial_write(zm_serial_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    size_t done = 0;
    z_result_t r = Z_OK;
    while (done < len) {
        int ready = serial_poll(s, POLLOUT, deadline_ms);
        if (ready == 0) {
            r = ZM_E_TIMEOUT;
            break;
        }
        if (ready < 0) {
            r = ready == -1 ? ZM_E_CLOSED : serial_errno_result(errno);
            break;
        }
        ssize_t sent = write(s->tty.fd, buf + done, len - done);
        if (sent >= 0) {
            done += (size_t)sent;
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            r = serial_errno_result(errno);
            break;
        }
    }
    *written = done;
    return r;
}

void zm_port_serial_shutdown(zm_serial_t *s)
{
    if (s->wake_wr >= 0) {
        const uint8_t one = 1;
        ssize_t w = write(s->wake_wr, &one, 1); /* a full pipe is already a wake-up */
        (void)w;
    }
}

void zm_port_serial_close(zm_serial_t *s)
{
    close_fd(&s->tty.fd);
    close_fd(&s->wake_rd);
    close_fd(&s->wake_wr);
}

zm_socket_t *zm_port_serial_socket(zm_serial_t *s) { return &s->tty; }
#endif /* Z_FEATURE_LINK_SERIAL */
