/*
 * zm_attack: a hostile or broken peer for the interop tests (tests/interop/test_hostile.py).
 * Each mode puts one attack in place against a listening zmote node, prints "ready", holds it
 * until "stop" on stdin or the -t deadline, then closes everything and prints what the target
 * did (CLOSE reasons, lost links, timings). Complete handshakes go through zmote's own transport
 * and codec, so the attacker speaks exactly the wire protocol and only its behaviour is hostile.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "link/endpoint.h"
#include "link/link.h"
#include "proto/codec.h"
#include "transport/transport.h"

#define ATTACK_OPTIONS "e:t:L:n:K:B:QSP"
#define CONNS_MAX 1024
#define HANDSHAKE_TIMEOUT_MS 5000u
#define CONNECT_BUDGET_MS 5000
#define KEEP_ALIVE_MS 1000u
#define POLL_MS 20
#define CLOSE_WAIT_MS 3000u
#define STORM_INTEREST_ID 0x5157u
#define STORM_ID_BASE 0x1000u
#define STORM_QBLS 200 /* storm -Q: the queryables redeclared in turn, within a peer's bound */
#define STORM_RUN "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"

typedef struct {
    const char *mode;
    const char *arg;
    const char *endpoint;
    long timeout_ms;
    uint32_t lease_ms;
    long count;
    size_t key_bytes;
    long batch; /* storm: declarations per flush */
    bool queryables; /* storm: wildcard queryables redeclared in turn, not subscribers */
    bool silent;     /* replies: never end the initial declarations (no D_FINAL of interest 0) */
    bool priorities; /* frag: a message on the channels of every priority, not of Data alone */
} attack_args_t;

static struct timespec started;
static attack_args_t args;
static zm_endpoint_t target;
static char target_host[ZM_ENDPOINT_HOST_MAX + 1];

/* ---- small utilities ------------------------------------------------------------------------- */

static long elapsed_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - started.tv_sec) * 1000L + (long)(now.tv_nsec - started.tv_nsec) / 1000000L;
}

static bool past_deadline(void) { return elapsed_ms() >= args.timeout_ms; }

static int ms_left(void)
{
    long left = args.timeout_ms - elapsed_ms();
    return left < 0 ? 0 : (int)left;
}

/*
 * Returns true once "stop" came on stdin or stdin ended; waits up to wait_ms for it. Other lines
 * are ignored.
 */
static bool stop_requested(int wait_ms)
{
    static char pending[256];
    static size_t used;
    static bool eof;
    for (;;) {
        char *nl = memchr(pending, '\n', used);
        while (nl != NULL) {
            size_t len = (size_t)(nl - pending);
            bool stop = len == 4 && memcmp(pending, "stop", 4) == 0;
            used -= len + 1;
            memmove(pending, nl + 1, used);
            if (stop) {
                return true;
            }
            nl = memchr(pending, '\n', used);
        }
        if (eof) {
            return true;
        }
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        int ready = poll(&pfd, 1, wait_ms);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            return false;
        }
        if (used == sizeof pending) {
            used = 0;
        }
        ssize_t got = read(STDIN_FILENO, pending + used, sizeof pending - used);
        if (got <= 0) {
            eof = true;
        } else {
            used += (size_t)got;
        }
        wait_ms = 0;
    }
}

/* Holds the attack until stop or the deadline. */
static void hold(void)
{
    while (!past_deadline() && !stop_requested(POLL_MS)) {
    }
}

static void print_zid(const zm_zid_t *zid)
{
    for (int i = (int)zid->len - 1; i >= 0; i--) {
        printf("%02x", zid->id[i]);
    }
}

static void random_zid(zm_zid_t *zid)
{
    zm_port_random(zid->id, sizeof zid->id);
    zid->id[15] |= 0x10; /* all 16 bytes significant */
    zid->len = 16;
}

static uint16_t local_port_of(int fd)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        return 0;
    }
    if (a.ss_family == AF_INET) {
        return ntohs(((struct sockaddr_in *)&a)->sin_port);
    }
    if (a.ss_family == AF_INET6) {
        return ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    }
    return 0;
}

/* ---- raw sockets: idle and half-init ----------------------------------------------------------- */

static struct addrinfo *resolve_target(void)
{
    char port[8];
    snprintf(port, sizeof port, "%u", (unsigned)target.port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai = NULL;
    if (getaddrinfo(target_host, port, &hints, &ai) != 0) {
        return NULL;
    }
    return ai;
}

/* An INIT syn as a peer would send it, unframed. */
static size_t encode_init_syn(uint8_t *buf, size_t cap)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_INIT;
    m.body.init.version = ZM_PROTO_VERSION;
    m.body.init.whatami = ZM_WAI_PEER;
    random_zid(&m.body.init.zid);
    m.body.init.resolution = ZM_RESOLUTION_DEFAULT;
    m.body.init.batch_size = ZM_BATCH_DEFAULT;
    m.body.init.exts = ZM_INIT_EXT_QOS | ZM_INIT_EXT_PATCH;
    m.body.init.patch = 1;
    zm_writer_t w;
    zm_writer_init(&w, buf, cap);
    return zm_transport_encode(&w, &m) == Z_OK ? w.len : 0;
}

typedef struct {
    int fd;
    bool connected;
    bool lost;
} raw_conn_t;

/*
 * N non-blocking connects at once: a listener whose accept queue is full leaves the later ones in
 * SYN-SENT, and the attack must still be in place (and say how much of it) in bounded time.
 */
static int run_raw(long n, bool half_init)
{
    if (n < 1 || n > CONNS_MAX) {
        printf("error count %ld\n", n);
        return 2;
    }
    struct addrinfo *ai = resolve_target();
    if (ai == NULL) {
        printf("error resolve %s\n", target_host);
        return 1;
    }
    static raw_conn_t conns[CONNS_MAX];
    for (long i = 0; i < n; i++) {
        conns[i].fd = socket(ai->ai_family, SOCK_STREAM, 0);
        if (conns[i].fd < 0) {
            printf("error socket %s\n", strerror(errno));
            freeaddrinfo(ai);
            return 1;
        }
        (void)fcntl(conns[i].fd, F_SETFL, O_NONBLOCK);
        if (connect(conns[i].fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            conns[i].connected = true;
        } else if (errno != EINPROGRESS) {
            conns[i].lost = true;
        }
    }
    freeaddrinfo(ai);

    uint8_t init[256];
    size_t init_len = encode_init_syn(init, sizeof init);
    uint8_t part[2 + sizeof init];
    part[0] = (uint8_t)(init_len & 0xffu);
    part[1] = (uint8_t)(init_len >> 8);
    memcpy(part + 2, init, init_len / 2);
    size_t part_len = 2 + init_len / 2;

    static struct pollfd pfds[CONNS_MAX];
    long budget_end = elapsed_ms() + CONNECT_BUDGET_MS;
    long connected = 0;
    for (;;) {
        nfds_t np = 0;
        static long idx[CONNS_MAX];
        for (long i = 0; i < n; i++) {
            if (!conns[i].connected && !conns[i].lost) {
                pfds[np] = (struct pollfd){.fd = conns[i].fd, .events = POLLOUT};
                idx[np++] = i;
            }
        }
        if (np == 0 || elapsed_ms() >= budget_end || past_deadline()) {
            break;
        }
        int ready = poll(pfds, np, POLL_MS);
        for (nfds_t k = 0; ready > 0 && k < np; k++) {
            if (pfds[k].revents == 0) {
                continue;
            }
            raw_conn_t *c = &conns[idx[k]];
            int err = 0;
            socklen_t len = sizeof err;
            (void)getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err == 0) {
                c->connected = true;
            } else {
                c->lost = true;
                printf("lost %ld t=%ld connect: %s\n", idx[k], elapsed_ms(), strerror(err));
            }
        }
    }
    for (long i = 0; i < n; i++) {
        if (!conns[i].connected) {
            continue;
        }
        connected++;
        if (half_init && send(conns[i].fd, part, part_len, MSG_NOSIGNAL) != (ssize_t)part_len) {
            conns[i].lost = true;
            printf("lost %ld t=%ld send: %s\n", i, elapsed_ms(), strerror(errno));
        }
    }
    printf("connected %ld of %ld\n", connected, n);
    printf("ready\n");

    /* Hold: notice the target dropping connections (end of stream or reset); read nothing else. */
    while (!past_deadline() && !stop_requested(0)) {
        nfds_t np = 0;
        static long idx[CONNS_MAX];
        for (long i = 0; i < n; i++) {
            if (conns[i].connected && !conns[i].lost) {
                pfds[np] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
                idx[np++] = i;
            }
        }
        int ready = poll(pfds, np, POLL_MS);
        for (nfds_t k = 0; ready > 0 && k < np; k++) {
            if (pfds[k].revents == 0) {
                continue;
            }
            raw_conn_t *c = &conns[idx[k]];
            uint8_t junk[512];
            ssize_t got = recv(c->fd, junk, sizeof junk, 0);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
                c->lost = true;
                printf("lost %ld t=%ld\n", idx[k], elapsed_ms());
            }
        }
    }
    long lost = 0;
    for (long i = 0; i < n; i++) {
        lost += conns[i].lost ? 1 : 0;
        close(conns[i].fd);
    }
    printf("summary connected=%ld lost=%ld\n", connected, lost);
    return 0;
}

/* ---- complete peers ------------------------------------------------------------------------------ */

typedef struct {
    zm_transport_t t;
    bool open;
    bool ended; /* CLOSE received or link lost */
    int close_reason; /* -1: none */
    uint64_t next_keep_alive;
} peer_conn_t;

/* Handshakes as a peer with a fresh zid announcing lease_ms; prints "open I port=P zid=Z". */
static z_result_t peer_open(peer_conn_t *c, long i, uint32_t lease_ms)
{
    memset(c, 0, sizeof *c);
    c->close_reason = -1;
    zm_link_t link;
    z_result_t rc = zm_link_open(&link, &target, HANDSHAKE_TIMEOUT_MS);
    if (rc != Z_OK) {
        printf("error connect %ld rc=%d\n", i, (int)rc);
        return rc;
    }
    zm_transport_params_t p;
    memset(&p, 0, sizeof p);
    random_zid(&p.zid);
    p.whatami = ZM_WAI_PEER;
    p.batch_size = ZM_BATCH_UNICAST_SIZE;
    p.lease_ms = lease_ms;
    p.qos = true;
    rc = zm_transport_open(&c->t, &link, &p, HANDSHAKE_TIMEOUT_MS);
    if (rc != Z_OK) {
        printf("error handshake %ld rc=%d t=%ld\n", i, (int)rc, elapsed_ms());
        return rc;
    }
    c->open = true;
    c->next_keep_alive = zm_port_clock_ms() + KEEP_ALIVE_MS;
    printf("open %ld port=%u zid=", i, (unsigned)local_port_of(c->t.link.sock.fd));
    print_zid(&p.zid);
    printf(" remote=");
    print_zid(&c->t.remote_zid);
    printf("\n");
    return Z_OK;
}

static void peer_free(peer_conn_t *c)
{
    if (c->open) {
        zm_transport_free(&c->t);
        c->open = false;
    }
}

/* One transport message alone in a batch, e.g. a KEEP_ALIVE, under the transport's tx lock. */
static z_result_t send_transport_msg(zm_transport_t *t, const zm_transport_msg_t *m)
{
    uint8_t buf[ZM_LINK_HEADROOM + 64];
    zm_writer_t w;
    zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof buf - ZM_LINK_HEADROOM);
    z_result_t rc = zm_transport_encode(&w, m);
    if (rc != Z_OK) {
        return rc;
    }
    zm_port_mutex_lock(&t->tx_lock);
    uint64_t deadline = zm_port_clock_ms() + 2000u;
    rc = zm_link_send_batch(&t->link, buf + ZM_LINK_HEADROOM, w.len, deadline, deadline);
    zm_port_mutex_unlock(&t->tx_lock);
    return rc;
}

static z_result_t send_keep_alive(zm_transport_t *t)
{
    zm_transport_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_KEEP_ALIVE;
    return send_transport_msg(t, &m);
}

/* What one received batch said: a CLOSE's reason, or the D_FINAL of an interest. */
typedef struct {
    int close_reason; /* -1: no CLOSE */
    bool final_seen;
    uint32_t final_interest;
} batch_news_t;

static z_result_t scan_batch(const zm_transport_t *t, zm_slice_t batch, batch_news_t *news)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, t->sn_mask);
    for (;;) {
        zm_transport_msg_t m;
        bool got;
        z_result_t rc = zm_batch_next(&it, &m, &got);
        if (rc != Z_OK || !got) {
            return rc;
        }
        if (m.id == ZM_MID_CLOSE) {
            news->close_reason = m.body.close.reason;
            return Z_OK;
        }
        if (m.id != ZM_MID_FRAME) {
            continue;
        }
        for (;;) {
            zm_network_msg_t n;
            rc = zm_batch_next_network(&it, &n, &got);
            if (rc != Z_OK || !got) {
                break;
            }
            const zm_declare_t *d = &n.body.declare;
            if (n.id == ZM_MID_N_DECLARE && d->has_interest_id && d->decl.kind == ZM_DECL_FINAL &&
                d->interest_id == news->final_interest) {
                news->final_seen = true;
            }
        }
        if (rc != Z_OK) {
            return rc;
        }
    }
}

/*
 * Reads what is waiting on c's link without blocking for long; returns false once the link
 * ended (CLOSE received, end of stream or error), after printing "close I reason=R" or "lost I".
 */
static bool peer_drain(peer_conn_t *c, long i)
{
    while (zm_link_wait_readable(&c->t.link, 0) == Z_OK) {
        zm_slice_t batch;
        zm_link_set_deadline(&c->t.link, zm_port_clock_ms() + 1000u);
        z_result_t rc = zm_link_recv_batch(&c->t.link, c->t.rx_buf, c->t.rx_cap, &batch);
        if (rc != Z_OK) {
            printf("lost %ld t=%ld rc=%d\n", i, elapsed_ms(), (int)rc);
            c->ended = true;
            return false;
        }
        batch_news_t news = {.close_reason = -1};
        (void)scan_batch(&c->t, batch, &news);
        if (news.close_reason >= 0) {
            c->close_reason = news.close_reason;
            printf("close %ld reason=%d t=%ld\n", i, news.close_reason, elapsed_ms());
            c->ended = true;
            return false;
        }
    }
    return true;
}

/* Holds n peers (until "stop" or the deadline): reads what they are sent, keeps their leases. */
static void peers_hold(peer_conn_t *conns, long n)
{
    struct pollfd *pfds = calloc((size_t)n, sizeof *pfds);
    long *idx = calloc((size_t)n, sizeof *idx);
    while (pfds != NULL && idx != NULL && !past_deadline() && !stop_requested(0)) {
        nfds_t np = 0;
        for (long i = 0; i < n; i++) {
            if (conns[i].open && !conns[i].ended) {
                pfds[np] = (struct pollfd){.fd = conns[i].t.link.sock.fd, .events = POLLIN};
                idx[np++] = i;
            }
        }
        (void)poll(pfds, np, POLL_MS);
        for (nfds_t k = 0; k < np; k++) {
            peer_conn_t *c = &conns[idx[k]];
            if (pfds[k].revents != 0 && !peer_drain(c, idx[k])) {
                continue;
            }
            uint64_t now = zm_port_clock_ms();
            if (now >= c->next_keep_alive) {
                c->next_keep_alive = now + KEEP_ALIVE_MS;
                if (send_keep_alive(&c->t) != Z_OK) {
                    (void)peer_drain(c, idx[k]); /* a CLOSE may be waiting behind the failure */
                    if (!c->ended) {
                        printf("lost %ld t=%ld send\n", idx[k], elapsed_ms());
                        c->ended = true;
                    }
                }
            }
        }
    }
    free(pfds);
    free(idx);
}

/* N complete peer handshakes that then only send KEEP_ALIVEs: slots taken, nothing done. */
static int run_squat(long n)
{
    if (n < 1 || n > CONNS_MAX) {
        printf("error count %ld\n", n);
        return 2;
    }
    peer_conn_t *conns = calloc((size_t)n, sizeof *conns);
    if (conns == NULL) {
        return 1;
    }
    long opened = 0;
    for (long i = 0; i < n && !past_deadline(); i++) {
        if (peer_open(&conns[i], i, args.lease_ms) == Z_OK) {
            opened++;
        }
    }
    printf("ready\n");
    peers_hold(conns, n);
    long closed = 0;
    long lost = 0;
    for (long i = 0; i < n; i++) {
        closed += conns[i].close_reason >= 0 ? 1 : 0;
        lost += conns[i].ended && conns[i].close_reason < 0 ? 1 : 0;
        peer_free(&conns[i]);
    }
    printf("summary open=%ld closed=%ld lost=%ld\n", opened, closed, lost);
    free(conns);
    return 0;
}

/* ---- storm --------------------------------------------------------------------------------------- */

typedef struct {
    peer_conn_t *c;
    atomic_bool stop;
    atomic_int close_reason; /* -1: none */
    atomic_bool final_seen;
    atomic_bool ended;
    atomic_bool writer_done; /* from then on the reader sends the keep-alives */
    atomic_long end_ms; /* when the storm was over for the target, -1 while it is not */
} storm_state_t;

static void storm_over(storm_state_t *st)
{
    long expected = -1;
    (void)atomic_compare_exchange_strong(&st->end_ms, &expected, elapsed_ms());
}

/* The storm's reader: sees CLOSE or the D_FINAL that proves everything before it was handled. */
static void *storm_reader(void *arg)
{
    storm_state_t *st = arg;
    zm_transport_t *t = &st->c->t;
    while (!atomic_load(&st->stop)) {
        if (past_deadline()) {
            zm_link_shutdown(&t->link); /* the writer may be blocked on a target that stopped reading */
            break;
        }
        uint64_t now = zm_port_clock_ms();
        if (atomic_load(&st->writer_done) && now >= st->c->next_keep_alive) {
            st->c->next_keep_alive = now + KEEP_ALIVE_MS;
            (void)send_keep_alive(t);
        }
        if (zm_link_wait_readable(&t->link, POLL_MS) != Z_OK) {
            continue;
        }
        zm_slice_t batch;
        zm_link_set_deadline(&t->link, zm_port_clock_ms() + (uint64_t)ms_left() + 1u);
        if (zm_link_recv_batch(&t->link, t->rx_buf, t->rx_cap, &batch) != Z_OK) {
            storm_over(st);
            break;
        }
        batch_news_t news = {.close_reason = -1, .final_interest = STORM_INTEREST_ID};
        (void)scan_batch(t, batch, &news);
        if (news.final_seen) {
            atomic_store(&st->final_seen, true);
            storm_over(st);
        }
        if (news.close_reason >= 0) {
            atomic_store(&st->close_reason, news.close_reason);
            storm_over(st);
            break;
        }
    }
    atomic_store(&st->ended, true);
    return NULL;
}

static void storm_key(char *buf, size_t cap, long i, size_t want)
{
    int n = snprintf(buf, cap, "zm/storm/%ld", i);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (want > len && want < cap) {
        buf[len++] = '/';
        while (len < want) {
            buf[len++] = 'x';
        }
        buf[len] = '\0';
    }
}

/*
 * One handshake, then COUNT D_SUBSCRIBERs on distinct keys (-Q: D_QUERYABLEs of STORM_QBLS ids,
 * each declared again in turn on a new wildcard key), batched, as fast as the link takes.
 */
static int run_storm(void)
{
    static char key[ZM_BATCH_UNICAST_SIZE];
    if (args.count < 1 || args.key_bytes >= sizeof key) {
        printf("error storm arguments\n");
        return 2;
    }
    peer_conn_t c;
    if (peer_open(&c, 0, ZM_LEASE_MS) != Z_OK) {
        return 1;
    }
    storm_state_t st = {.c = &c};
    atomic_init(&st.stop, false);
    atomic_init(&st.close_reason, -1);
    atomic_init(&st.final_seen, false);
    atomic_init(&st.ended, false);
    atomic_init(&st.writer_done, false);
    atomic_init(&st.end_ms, -1L);
    pthread_t reader;
    if (pthread_create(&reader, NULL, storm_reader, &st) != 0) {
        peer_free(&c);
        return 1;
    }

    long start = elapsed_ms();
    printf("storm start t=%ld\n", start);
    zm_transport_set_batching(&c.t, true);
    long written = 0;
    z_result_t rc = Z_OK;
    zm_network_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m.body.declare.decl;
    for (long i = 0; i < args.count && rc == Z_OK; i++) {
        if (atomic_load(&st.close_reason) >= 0 || atomic_load(&st.ended) || past_deadline()) {
            break;
        }
        if (args.queryables) {
            /* a run of 28 chunks "a" then one that fits no key of ours (another at each turn):
             * matching one against a long key "zm/qm/a/a/...", it is tried at each of its chunks */
            snprintf(key, sizeof key, "zm/**/%sk%ld/**/a", STORM_RUN, i);
            d->kind = ZM_DECL_QUERYABLE;
            d->id = STORM_ID_BASE + (uint32_t)(i % STORM_QBLS);
        } else {
            storm_key(key, sizeof key, i, args.key_bytes);
            d->kind = ZM_DECL_SUBSCRIBER;
            d->id = STORM_ID_BASE + (uint32_t)i;
        }
        d->wire_expr.mapping = ZM_MAPPING_SENDER;
        d->wire_expr.has_suffix = true;
        d->wire_expr.suffix = zm_slice(key, strlen(key));
        rc = zm_transport_send(&c.t, &m, true, ZM_PRIO_CONTROL, false);
        if (rc == Z_OK) {
            written++;
            if (written % args.batch == 0) {
                rc = zm_transport_flush(&c.t);
            }
        }
    }
    long written_at = elapsed_ms();
    if (rc == Z_OK && written == args.count) {
        /* An INTEREST answered by D_FINAL after every declaration before it was handled. */
        zm_network_msg_t q;
        memset(&q, 0, sizeof q);
        q.id = ZM_MID_N_INTEREST;
        q.ext.present = ZM_NET_EXT_QOS;
        q.ext.qos = ZM_QOS_DECLARE;
        q.body.interest.id = STORM_INTEREST_ID;
        q.body.interest.mode = ZM_INTEREST_CURRENT;
        q.body.interest.options = ZM_INTEREST_S;
        rc = zm_transport_send(&c.t, &q, true, ZM_PRIO_CONTROL, true);
        if (rc == Z_OK) {
            rc = zm_transport_flush(&c.t);
        }
    }
    atomic_store(&st.writer_done, true);
    if (rc != Z_OK) {
        /* The target closed the link under us: a CLOSE may still be in flight to the reader. */
        uint64_t until = zm_port_clock_ms() + CLOSE_WAIT_MS;
        while (!atomic_load(&st.ended) && zm_port_clock_ms() < until && !stop_requested(POLL_MS)) {
        }
        storm_over(&st);
    }
    while (atomic_load(&st.end_ms) < 0 && !atomic_load(&st.ended) && !past_deadline() && !stop_requested(POLL_MS)) {
    }
    long end = atomic_load(&st.end_ms);
    int reason = atomic_load(&st.close_reason);
    printf("storm written=%ld count=%ld written_ms=%ld send_rc=%d close=", written, args.count, written_at - start,
           (int)rc);
    if (reason >= 0) {
        printf("%d", reason);
    } else {
        printf("none");
    }
    printf(" final=%s elapsed=%ld\n", atomic_load(&st.final_seen) ? "yes" : "no", end >= 0 ? end - start : -1L);
    printf("ready\n");

    hold();
    atomic_store(&st.stop, true);
    zm_link_shutdown(&c.t.link);
    pthread_join(reader, NULL);
    peer_free(&c);
    return 0;
}

/* ---- unfinished fragmented messages ----------------------------------------------------------------- */

/* The first bytes of a message of BYTES (-K) on one channel of c, in FRAGMENTs that never end it. */
static z_result_t send_unfinished(peer_conn_t *c, bool reliable, uint8_t prio, size_t bytes)
{
    static uint8_t part[ZM_BATCH_UNICAST_SIZE - 64];
    static uint8_t buf[ZM_LINK_HEADROOM + ZM_BATCH_UNICAST_SIZE];
    zm_transport_t *t = &c->t;
    size_t cut = (size_t)t->batch_size - 64u;
    unsigned ch = ZM_CHANNEL(reliable, prio);
    z_result_t rc = Z_OK;
    for (size_t sent = 0; sent < bytes && rc == Z_OK; sent += cut) {
        zm_fragment_t f;
        memset(&f, 0, sizeof f);
        f.reliable = reliable;
        f.more = true;
        f.first = sent == 0;
        f.has_qos = prio != ZM_PRIO_DATA;
        f.qos = prio;
        f.sn = t->tx_sn[ch];
        t->tx_sn[ch] = (t->tx_sn[ch] + 1u) & t->sn_mask;
        f.payload = zm_slice(part, cut < bytes - sent ? cut : bytes - sent);
        zm_writer_t w;
        zm_writer_init(&w, buf + ZM_LINK_HEADROOM, sizeof buf - ZM_LINK_HEADROOM);
        rc = zm_fragment_encode(&w, &f);
        if (rc == Z_OK) {
            uint64_t deadline = zm_port_clock_ms() + 5000u;
            zm_port_mutex_lock(&t->tx_lock);
            rc = zm_link_send_batch(&t->link, buf + ZM_LINK_HEADROOM, w.len, deadline, deadline);
            zm_port_mutex_unlock(&t->tx_lock);
        }
    }
    return rc;
}

/* N peers, each with an unfinished message of -K BYTES on its reliable and best-effort channels
 * (of the Data priority, or with -P of every priority). */
static int run_frag(long n)
{
    if (n < 1 || n > CONNS_MAX || args.key_bytes == 0) {
        printf("error frag arguments\n");
        return 2;
    }
    peer_conn_t *conns = calloc((size_t)n, sizeof *conns);
    if (conns == NULL) {
        return 1;
    }
    for (long i = 0; i < n && !past_deadline(); i++) {
        if (peer_open(&conns[i], i, args.lease_ms) != Z_OK) {
            continue;
        }
        for (uint8_t prio = 0; prio < 8; prio++) {
            for (int reliable = 1; reliable >= 0 && (args.priorities || prio == ZM_PRIO_DATA); reliable--) {
                z_result_t rc = send_unfinished(&conns[i], reliable != 0, prio, args.key_bytes);
                printf("unfinished %ld reliable=%d prio=%u rc=%d t=%ld\n", i, reliable, (unsigned)prio, (int)rc,
                       elapsed_ms());
            }
        }
    }
    printf("ready\n");
    peers_hold(conns, n);
    long lost = 0;
    for (long i = 0; i < n; i++) {
        lost += conns[i].ended ? 1 : 0;
        peer_free(&conns[i]);
    }
    printf("summary lost=%ld\n", lost);
    free(conns);
    return 0;
}

/* ---- invalid key ------------------------------------------------------------------------------- */

/* One handshake, then a PUT on a key the target must refuse; waits for its CLOSE. */
static int run_badkey(void)
{
    char *key;
    size_t len;
    if (args.arg != NULL) {
        key = strdup(args.arg);
        len = strlen(args.arg);
    } else {
        len = args.key_bytes;
        key = malloc(len + 1);
        if (key != NULL) {
            storm_key(key, len + 1, 0, len);
            len = strlen(key);
        }
    }
    if (key == NULL || len == 0) {
        free(key);
        printf("error badkey needs KEY or -K BYTES\n");
        return 2;
    }
    peer_conn_t c;
    if (peer_open(&c, 0, ZM_LEASE_MS) != Z_OK) {
        free(key);
        return 1;
    }
    static const char payload[] = "hostile";
    zm_network_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_N_PUSH;
    m.body.push.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.push.wire_expr.has_suffix = true;
    m.body.push.wire_expr.suffix = zm_slice(key, len);
    m.body.push.body_id = ZM_MID_PUT;
    m.body.push.body.put.payload = zm_slice(payload, sizeof payload - 1);
    z_result_t rc = zm_transport_send(&c.t, &m, true, ZM_PRIO_DATA, true);
    if (rc == Z_OK) {
        rc = zm_transport_flush(&c.t);
    }
    printf("sent key_len=%zu rc=%d t=%ld\n", len, (int)rc, elapsed_ms());

    uint64_t until = zm_port_clock_ms() + CLOSE_WAIT_MS;
    while (!c.ended && zm_port_clock_ms() < until && !past_deadline()) {
        struct pollfd pfd = {.fd = c.t.link.sock.fd, .events = POLLIN};
        if (poll(&pfd, 1, POLL_MS) > 0) {
            (void)peer_drain(&c, 0);
        }
        if (!c.ended && zm_port_clock_ms() >= c.next_keep_alive) {
            c.next_keep_alive = zm_port_clock_ms() + KEEP_ALIVE_MS;
            (void)send_keep_alive(&c.t);
        }
    }
    if (!c.ended) {
        printf("no-close t=%ld\n", elapsed_ms());
    }
    printf("ready\n");
    hold();
    peer_free(&c);
    free(key);
    return 0;
}

/* ---- replies ------------------------------------------------------------------------------------ */

#define REPLIES_QBL_ID 0x51u

/* One RESPONSE to request rid: a PUT of size pattern bytes on key. */
static z_result_t send_response(zm_transport_t *t, uint32_t rid, const char *key, const uint8_t *data, size_t size)
{
    zm_network_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_N_RESPONSE;
    m.body.response.rid = rid;
    m.body.response.wire_expr.mapping = ZM_MAPPING_SENDER;
    m.body.response.wire_expr.has_suffix = true;
    m.body.response.wire_expr.suffix = zm_slice(key, strlen(key));
    m.body.response.body_id = ZM_MID_REPLY;
    m.body.response.body.reply.body_id = ZM_MID_PUT;
    m.body.response.body.reply.body.put.payload = zm_slice(data, size);
    return zm_transport_send(t, &m, true, ZM_PRIO_DATA, false);
}

/* The REQUEST ids in one received batch, into rids (up to cap); their count. */
static size_t batch_requests(const zm_transport_t *t, zm_slice_t batch, uint32_t *rids, size_t cap)
{
    size_t n = 0;
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, batch.ptr, batch.len, t->sn_mask);
    for (;;) {
        zm_transport_msg_t m;
        bool got;
        if (zm_batch_next(&it, &m, &got) != Z_OK || !got) {
            return n;
        }
        if (m.id != ZM_MID_FRAME) {
            continue;
        }
        for (;;) {
            zm_network_msg_t nm;
            if (zm_batch_next_network(&it, &nm, &got) != Z_OK || !got) {
                break;
            }
            if (nm.id == ZM_MID_N_REQUEST && n < cap) {
                rids[n++] = nm.body.request.rid;
            }
        }
    }
}

/*
 * One handshake; with COUNT > 0 a queryable on KEY (ending in "/\*\*"), then the end of its
 * initial declarations (D_FINAL of interest 0), as a real peer, unless -S. Each REQUEST is answered with
 * COUNT RESPONSEs of -K BYTES on distinct keys under KEY, and never a RESPONSE_FINAL; with COUNT 0
 * it is not answered at all. Prints "request rid=R t=T" and "answered rid=R n=N t=T".
 */
static int run_replies(void)
{
    size_t klen = args.arg != NULL ? strlen(args.arg) : 0;
    if (klen < 4 || strcmp(args.arg + klen - 3, "/**") != 0 || args.count < 0) {
        printf("error replies needs KEY ending in /** and -n COUNT >= 0\n");
        return 2;
    }
    uint8_t *data = malloc(args.key_bytes + 1);
    if (data == NULL) {
        return 1;
    }
    for (size_t i = 0; i < args.key_bytes; i++) {
        data[i] = (uint8_t)((i * 7u + 3u) % 251u);
    }
    peer_conn_t c;
    if (peer_open(&c, 0, ZM_LEASE_MS) != Z_OK) {
        free(data);
        return 1;
    }
    zm_network_msg_t m;
    memset(&m, 0, sizeof m);
    m.id = ZM_MID_N_DECLARE;
    m.ext.present = ZM_NET_EXT_QOS;
    m.ext.qos = ZM_QOS_DECLARE;
    zm_declaration_t *d = &m.body.declare.decl;
    z_result_t rc = Z_OK;
    if (args.count > 0) {
        d->kind = ZM_DECL_QUERYABLE;
        d->id = REPLIES_QBL_ID;
        d->wire_expr.mapping = ZM_MAPPING_SENDER;
        d->wire_expr.has_suffix = true;
        d->wire_expr.suffix = zm_slice(args.arg, klen);
        rc = zm_transport_send(&c.t, &m, true, ZM_PRIO_CONTROL, false);
    }
    memset(d, 0, sizeof *d);
    d->kind = ZM_DECL_FINAL;
    m.body.declare.has_interest_id = true;
    m.body.declare.interest_id = 0;
    if (rc == Z_OK && !args.silent) {
        rc = zm_transport_send(&c.t, &m, true, ZM_PRIO_CONTROL, true);
    }
    if (rc == Z_OK) {
        rc = zm_transport_flush(&c.t);
    }
    printf("declared rc=%d\n", (int)rc);
    printf("ready\n");
    char key[256];
    bool stopped = false;
    while (!c.ended && !past_deadline() && !(stopped = stop_requested(0))) {
        if (zm_port_clock_ms() >= c.next_keep_alive) {
            c.next_keep_alive = zm_port_clock_ms() + KEEP_ALIVE_MS;
            (void)send_keep_alive(&c.t);
        }
        if (zm_link_wait_readable(&c.t.link, POLL_MS) != Z_OK) {
            continue;
        }
        zm_slice_t batch;
        zm_link_set_deadline(&c.t.link, zm_port_clock_ms() + 1000u);
        if (zm_link_recv_batch(&c.t.link, c.t.rx_buf, c.t.rx_cap, &batch) != Z_OK) {
            printf("lost 0 t=%ld\n", elapsed_ms());
            c.ended = true;
            break;
        }
        uint32_t rids[16];
        size_t n = batch_requests(&c.t, batch, rids, ZM_ARRAY_LEN(rids));
        for (size_t r = 0; r < n; r++) {
            printf("request rid=%u t=%ld\n", (unsigned)rids[r], elapsed_ms());
            long sent = 0;
            for (long i = 0; i < args.count && rc == Z_OK; i++) {
                snprintf(key, sizeof key, "%.*s/%ld", (int)(klen - 3), args.arg, i);
                rc = send_response(&c.t, rids[r], key, data, args.key_bytes);
                sent += rc == Z_OK ? 1 : 0;
            }
            if (rc == Z_OK) {
                rc = zm_transport_flush(&c.t);
            }
            if (args.count > 0) {
                printf("answered rid=%u n=%ld rc=%d t=%ld\n", (unsigned)rids[r], sent, (int)rc, elapsed_ms());
            }
        }
    }
    if (!stopped) {
        hold(); /* the link ended first: the attack still ends at stop or the deadline */
    }
    peer_free(&c);
    free(data);
    return 0;
}

/* ---- main ---------------------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr,
            "usage: zm_attack -e tcp/HOST:PORT [-t MS] MODE [ARG]\n"
            "  idle N                 N TCP connections that send nothing\n"
            "  half-init N            N connections sending the length and half of an INIT syn\n"
            "  squat N [-L LEASE_MS]  N peer handshakes announcing LEASE_MS, then keep-alives only\n"
            "  storm -n COUNT [-K KEYBYTES] [-B PER_FLUSH]\n"
            "                         one handshake, then COUNT subscriber declarations\n"
            "  storm -Q -n COUNT      the same with COUNT declarations of 200 wildcard queryables in\n"
            "                         turn, each on a new key, slow to match against a long key zm/qm/a/a/...\n"
            "  frag N -K BYTES [-L LEASE_MS] [-P]\n"
            "                         N peer handshakes, each then sending the first BYTES of a message\n"
            "                         in FRAGMENTs on its reliable and best-effort channels (-P: of every\n"
            "                         priority), never the end\n"
            "  badkey KEY | badkey -K BYTES\n"
            "                         one handshake, then a PUT on KEY (or on a key of BYTES bytes)\n"
            "  replies KEY/** [-n COUNT] [-K BYTES] [-S]\n"
            "                         one handshake, a queryable on KEY/** (COUNT > 0), the end of its\n"
            "                         declarations (not with -S); each REQUEST answered by COUNT replies\n"
            "                         of BYTES on distinct keys, never finalised\n"
            "Prints \"ready\" once the attack is in place; ends at \"stop\" on stdin or after -t MS.\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    clock_gettime(CLOCK_MONOTONIC, &started);
    args = (attack_args_t){.timeout_ms = 30000, .lease_ms = ZM_LEASE_MS, .count = 1000, .batch = 64};
    /* Options and the positional MODE and ARG in any order (POSIX getopt stops at the first
     * positional one, so they are taken out one by one). */
    const char *positional[2] = {NULL, NULL};
    size_t n_positional = 0;
    int opt;
    for (;;) {
        opt = getopt(argc, argv, ATTACK_OPTIONS);
        if (opt == -1) {
            if (optind >= argc) {
                break;
            }
            if (n_positional == 2) {
                return usage();
            }
            positional[n_positional++] = argv[optind++];
            continue;
        }
        switch (opt) {
        case 'e':
            args.endpoint = optarg;
            break;
        case 't':
            args.timeout_ms = atol(optarg);
            break;
        case 'L': {
            unsigned long long lease = strtoull(optarg, NULL, 10);
            if (lease == 0 || lease > UINT32_MAX) {
                return usage(); /* a transport keeps its own lease in 32 bits */
            }
            args.lease_ms = (uint32_t)lease;
            break;
        }
        case 'n':
            args.count = atol(optarg);
            break;
        case 'K':
            args.key_bytes = (size_t)strtoull(optarg, NULL, 10);
            break;
        case 'B':
            args.batch = atol(optarg);
            break;
        case 'Q':
            args.queryables = true;
            break;
        case 'S':
            args.silent = true;
            break;
        case 'P':
            args.priorities = true;
            break;
        default:
            return usage();
        }
    }
    if (n_positional == 0 || args.endpoint == NULL || args.batch < 1) {
        return usage();
    }
    args.mode = positional[0];
    args.arg = positional[1];
    if (zm_endpoint_parse(&target, args.endpoint, strlen(args.endpoint), ZM_ENDPOINT_CONNECT) != Z_OK ||
        zm_endpoint_host(&target, target_host, sizeof target_host) != Z_OK) {
        printf("error endpoint %s\n", args.endpoint);
        return 2;
    }

    int status;
    if (strcmp(args.mode, "idle") == 0 || strcmp(args.mode, "half-init") == 0) {
        status = args.arg == NULL ? usage() : run_raw(atol(args.arg), strcmp(args.mode, "half-init") == 0);
    } else if (strcmp(args.mode, "squat") == 0) {
        status = args.arg == NULL ? usage() : run_squat(atol(args.arg));
    } else if (strcmp(args.mode, "storm") == 0) {
        status = run_storm();
    } else if (strcmp(args.mode, "frag") == 0) {
        status = args.arg == NULL ? usage() : run_frag(atol(args.arg));
    } else if (strcmp(args.mode, "badkey") == 0) {
        status = run_badkey();
    } else if (strcmp(args.mode, "replies") == 0) {
        status = run_replies();
    } else {
        status = usage();
    }
    printf("done\n");
    return status;
}
