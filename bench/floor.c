/*
 * The floor under z_ping/z_pong's round trip: the same exchange over bare TCP sockets, with no
 * protocol at all, built as a z_ping and a z_pong that take the flags bench/run.sh lat gives
 * (-m peer, -l/-e tcp/ADDR:PORT, -s, -n, -w) and print what the examples print. Its threads are
 * those of the examples: z_ping's main thread sends a ping and spins until a read thread, asleep
 * in recv(), has counted the echo; z_pong's one thread echoes what it reads and, having written,
 * polls its socket for FLOOR_POLL_US (yielding its CPU between tries) before it sleeps again, the
 * fastest of the ways to wait tried on loopback. A ping is the payload and 12 bytes, about what a
 * zmote PUSH of it takes on the wire. What a library adds to a round trip is its time over this.
 *
 * Built twice: -DFLOOR_PING makes z_ping, without it z_pong (bench/CMakeLists.txt, into
 * bench/floor/ of the build tree): bench/run.sh lat -a BUILD/bench/floor.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_POLL_US 40u
#define FLOOR_HEAD 12u
#define FLOOR_SIZE_MAX 65536u
#define ECHO_TIMEOUT_US 10000000ull

static uint64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* "tcp/A.B.C.D:PORT" into sa; false for anything else. */
static bool parse_endpoint(const char *ep, struct sockaddr_in *sa)
{
    char host[64];
    unsigned port;
    if (sscanf(ep, "tcp/%63[0-9.]:%u", host, &port) != 2 || port == 0 || port > 65535) {
        return false;
    }
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1;
}

static void no_delay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

#ifdef FLOOR_PING
static int sock;
static atomic_ullong received; /* bytes echoed so far */

static void *read_task(void *arg)
{
    (void)arg;
    static uint8_t buf[FLOOR_SIZE_MAX + FLOOR_HEAD];
    for (;;) {
        ssize_t n = recv(sock, buf, sizeof(buf), 0);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            return NULL;
        }
        if (n > 0) {
            atomic_fetch_add_explicit(&received, (unsigned long long)n, memory_order_relaxed);
        }
    }
}

/* Sends one ping of len bytes and spins until its echo is in; false after the timeout. */
static bool ping(const uint8_t *msg, size_t len, unsigned long long *sent)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send(sock, msg + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno != EINTR) {
            return false;
        }
        done += n > 0 ? (size_t)n : 0u;
    }
    *sent += len;
    uint64_t start = now_us();
    for (unsigned long spins = 1; atomic_load_explicit(&received, memory_order_relaxed) < *sent; spins++) {
        if ((spins & 0xfffu) == 0 && now_us() - start > ECHO_TIMEOUT_US) {
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *ep = NULL;
    unsigned long size = 8, count = 100, warmup_ms = 1000;
    int opt;
    while ((opt = getopt(argc, argv, "s:n:w:e:m:")) != -1) {
        switch (opt) {
        case 's': size = strtoul(optarg, NULL, 10); break;
        case 'n': count = strtoul(optarg, NULL, 10); break;
        case 'w': warmup_ms = strtoul(optarg, NULL, 10); break;
        case 'e': ep = optarg; break;
        case 'm': break; /* peer: the only mode */
        default: return 2;
        }
    }
    struct sockaddr_in sa;
    if (ep == NULL || !parse_endpoint(ep, &sa) || size > FLOOR_SIZE_MAX) {
        fprintf(stderr, "usage: z_ping -e tcp/A.B.C.D:PORT [-s BYTES] [-n COUNT] [-w MS]\n");
        return 2;
    }
    sock = socket(AF_INET, SOCK_STREAM, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        printf("Unable to open session!\n");
        return 1;
    }
    no_delay(sock);
    pthread_t reader;
    if (pthread_create(&reader, NULL, read_task, NULL) != 0) {
        return 1;
    }
    size_t len = size + FLOOR_HEAD;
    uint8_t *msg = calloc(1, len);
    uint64_t *rtt = calloc(count > 0 ? count : 1u, sizeof(*rtt));
    if (msg == NULL || rtt == NULL) {
        return 1;
    }
    unsigned long long sent = 0;
    for (uint64_t start = now_us(); now_us() - start < warmup_ms * 1000ull;) {
        if (!ping(msg, len, &sent)) {
            fprintf(stderr, "No echo from z_pong for 10 s.\n");
            return 1;
        }
    }
    for (unsigned long i = 0; i < count; i++) {
        uint64_t start = now_us();
        if (!ping(msg, len, &sent)) {
            fprintf(stderr, "No echo from z_pong for 10 s.\n");
            return 1;
        }
        rtt[i] = now_us() - start;
    }
    for (unsigned long i = 0; i < count; i++) {
        printf("%lu\n", (unsigned long)rtt[i]);
    }
    shutdown(sock, SHUT_RDWR);
    pthread_join(reader, NULL);
    close(sock);
    free(msg);
    free(rtt);
    return 0;
}

#else

/* Reads what comes, polling first when it has just written; 0 at the end of the stream. */
static ssize_t read_echo(int fd, uint8_t *buf, size_t len, bool wrote)
{
    uint64_t start = wrote ? now_us() : 0u;
    for (;;) {
        ssize_t n = recv(fd, buf, len, wrote ? MSG_DONTWAIT : 0);
        if (n >= 0) {
            return n;
        }
        if (wrote && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (now_us() - start > FLOOR_POLL_US) {
                wrote = false; /* nothing came: sleep */
            } else {
                sched_yield();
            }
        } else if (errno != EINTR) {
            return -1;
        }
    }
}

/* Ends the process when 'q' comes on stdin, as the examples' z_pong ends. */
static void *stdin_task(void *arg)
{
    (void)arg;
    for (int c; (c = getchar()) != EOF;) {
        if (c == 'q') {
            exit(0);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *ep = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "l:m:")) != -1) {
        switch (opt) {
        case 'l': ep = optarg; break;
        case 'm': break; /* peer: the only mode */
        default: return 2;
        }
    }
    struct sockaddr_in sa;
    if (ep == NULL || !parse_endpoint(ep, &sa)) {
        fprintf(stderr, "usage: z_pong -l tcp/A.B.C.D:PORT\n");
        return 2;
    }
    int one = 1;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(listener, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(listener, 1) != 0) {
        printf("Unable to open session!\n");
        return 1;
    }
    pthread_t quit;
    if (pthread_create(&quit, NULL, stdin_task, NULL) != 0) {
        return 1;
    }
    printf("Pong app is running, press 'q' to quit\n");
    fflush(stdout);
    for (;;) { /* one z_ping after another */
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) {
            continue;
        }
        no_delay(fd);
        static uint8_t buf[FLOOR_SIZE_MAX + FLOOR_HEAD];
        bool wrote = false;
        for (ssize_t n; (n = read_echo(fd, buf, sizeof(buf), wrote)) > 0;) {
            for (ssize_t done = 0; done < n;) {
                ssize_t w = send(fd, buf + done, (size_t)(n - done), MSG_NOSIGNAL);
                if (w < 0 && errno != EINTR) {
                    break;
                }
                done += w > 0 ? w : 0;
            }
            wrote = true;
        }
        close(fd);
    }
}
#endif
