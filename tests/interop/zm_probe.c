/*
 * zm_probe: the zmote end of the interop tests (pytest, tests/interop). `pub` puts or deletes N
 * samples of S bytes, with optional attachment, encoding, timestamp and QoS; `sub` declares a
 * subscriber per -k and prints one line per sample, every payload byte checked. Stdin takes
 * "go"/"stop" lines so tests wait on events, never on sleeps; everything ends at the -t deadline.
 * For floods, -q N prints one put or sample line in N, -w stamps sample lines with the wall
 * clock (to measure delivery delays against a sender's clock), -y reports the connected peers,
 * -g KEY makes a subscriber also put a greeting on KEY now and then (for nodes that wait for one),
 * -z MS makes the first subscriber's callback block for MS after each sample (a slow application).
 * -A USER:PASSWORD presents credentials, -D FILE makes a listener require those of FILE's
 * `user:password` lines (user/password authentication); a failed open says why, as the examples do.
 * Pattern of sample q: byte i = byte i%4 of the little-endian u32 ((q%256) << 24) + i/4.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h" /* CLI_TLS_FROM_ENV: the TLS settings from the environment, as the examples */
#include "zenoh-pico.h"

#define PROBE_OPTIONS "m:e:l:k:n:s:Pda:c:Tp:xbi:S:u:rt:Wq:wyg:z:A:D:"
#define SUBS_MAX 4
#define CHECK_CHUNK 65536
#define SYNC_PERIOD_MS 50
#define POLL_MS 20
#define GREET_EVERY 5 /* polls between two greetings of sub -g */

typedef struct {
    bool publish;
    const char *keys[SUBS_MAX];
    size_t n_keys;
    long count;
    size_t size;
    bool session_put;
    bool delete_kind;
    const char *attachment;
    const char *encoding;
    bool timestamp;
    int priority;
    bool express;
    bool block;
    long interval_ms;
    const char *sync_key;
    long undeclare_after;
    bool report_routers;
    long timeout_ms;
    bool wait_stop;
    long quiet;       /* print one put or sample line in this many */
    bool wall_clock;  /* sample lines end with rt=<microseconds since the UNIX epoch> */
    bool report_peers;
    const char *greet_key; /* sub: puts "[n] Pub from zmote host!" on it every GREET_EVERY polls */
} probe_args_t;

static struct timespec started;
static long quiet = 1;
static long slow_ms; /* -z: the first subscriber's callback sleeps this long after each sample */
static bool wall_clock;

/* ---- small utilities ------------------------------------------------------------------------- */

static long elapsed_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - started.tv_sec) * 1000L + (long)(now.tv_nsec - started.tv_nsec) / 1000000L;
}

static uint8_t pattern_byte(long seq, size_t i)
{
    uint32_t word = ((uint32_t)(seq & 0xff) << 24) + (uint32_t)(i / 4);
    return (uint8_t)(word >> (8u * (unsigned)(i % 4)));
}

static void fill_pattern(uint8_t *buf, size_t len, long seq)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = pattern_byte(seq, i);
    }
}

static void print_zid(const z_id_t *id)
{
    z_owned_string_t text;
    if (z_id_to_string(id, &text) == Z_OK) {
        printf("%.*s", (int)z_string_len(z_loan(text)), z_string_data(z_loan(text)));
        z_drop(z_move(text));
    } else {
        printf("?");
    }
}

/*
 * Stdin carries commands, one per line. Returns 1 with a line in buf, 0 when nothing came
 * within wait_ms, -1 at end of input.
 */
static int read_command(char *buf, size_t cap, int wait_ms)
{
    static char pending[256];
    static size_t used;
    static bool eof;
    for (;;) {
        char *nl = memchr(pending, '\n', used);
        if (nl != NULL) {
            size_t len = (size_t)(nl - pending);
            size_t keep = len < cap - 1 ? len : cap - 1;
            memcpy(buf, pending, keep);
            buf[keep] = '\0';
            used -= len + 1;
            memmove(pending, nl + 1, used);
            return 1;
        }
        if (eof) {
            return -1;
        }
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        int ready = poll(&pfd, 1, wait_ms);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            return 0;
        }
        if (used == sizeof pending) {
            used = 0; /* an overlong line is nobody's command */
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

/* Waits up to wait_ms for a command; returns true when it is "stop" or input ended. */
static bool stop_requested(int wait_ms, bool *go)
{
    char line[64];
    int got = read_command(line, sizeof line, wait_ms);
    while (got == 1) {
        if (strcmp(line, "stop") == 0) {
            return true;
        }
        if (strcmp(line, "go") == 0 && go != NULL) {
            *go = true;
        }
        got = read_command(line, sizeof line, 0);
    }
    return got < 0;
}

static bool past_deadline(const probe_args_t *args)
{
    return elapsed_ms() > args->timeout_ms;
}

/* ---- routers --------------------------------------------------------------------------------- */

static void count_zid(const z_id_t *id, void *ctx)
{
    (void)id;
    (*(int *)ctx)++;
}

static int router_count(const z_loaned_session_t *s)
{
    int n = 0;
    z_owned_closure_zid_t callback;
    z_closure(&callback, count_zid, NULL, &n);
    if (z_info_routers_zid(s, z_move(callback)) != Z_OK) {
        return -1;
    }
    return n;
}

/* Prints "routers N" whenever the number of connected routers changed since the last call. */
static void report_routers(const z_loaned_session_t *s)
{
    static int last = -2;
    int n = router_count(s);
    if (n != last) {
        printf("routers %d t=%ld\n", n, elapsed_ms());
        last = n;
    }
}

static int peer_count(const z_loaned_session_t *s)
{
    int n = 0;
    z_owned_closure_zid_t callback;
    z_closure(&callback, count_zid, NULL, &n);
    if (z_info_peers_zid(s, z_move(callback)) != Z_OK) {
        return -1;
    }
    return n;
}

/* Prints "peers N" whenever the number of connected peers changed since the last call. */
static void report_peers(const z_loaned_session_t *s)
{
    static int last = -2;
    int n = peer_count(s);
    if (n != last) {
        printf("peers %d t=%ld\n", n, elapsed_ms());
        last = n;
    }
}

static void report_links(const z_loaned_session_t *s, const probe_args_t *args)
{
    if (args->report_routers) {
        report_routers(s);
    }
    if (args->report_peers) {
        report_peers(s);
    }
}

/* ---- subscriber side ------------------------------------------------------------------------- */

#if Z_FEATURE_SUBSCRIPTION

typedef struct {
    int index;
    atomic_long numbered; /* samples given their number: as the callback starts, since two peers'
                           * read tasks may run it at once */
    atomic_long received; /* samples whose line is out */
} sub_state_t;

static sub_state_t subs[SUBS_MAX];
static atomic_long total_received;
static atomic_bool synced;

static void print_hex(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        printf("%02x", data[i]);
    }
}


static void print_check(const z_loaned_bytes_t *payload, long seq)
{
    static uint8_t chunk[CHECK_CHUNK];
    z_bytes_reader_t reader = z_bytes_get_reader(payload);
    size_t at = 0;
    size_t got;
    while ((got = z_bytes_reader_read(&reader, chunk, sizeof chunk)) > 0) {
        for (size_t i = 0; i < got; i++) {
            if (chunk[i] != pattern_byte(seq, at + i)) {
                printf(" check=bad@%zu", at + i);
                return;
            }
        }
        at += got;
    }
    if (at != z_bytes_len(payload)) {
        printf(" check=short@%zu", at);
        return;
    }
    printf(" check=ok");
}

static void print_head(const z_loaned_bytes_t *payload)
{
    uint8_t head[32];
    z_bytes_reader_t reader = z_bytes_get_reader(payload);
    size_t got = z_bytes_reader_read(&reader, head, sizeof head);
    printf(" head=");
    if (got == 0) {
        printf("-");
    }
    print_hex(head, got);
}

static void print_encoding(const z_loaned_encoding_t *encoding)
{
    z_owned_string_t text;
    if (encoding != NULL && z_encoding_to_string(encoding, &text) == Z_OK) {
        printf(" enc=%.*s", (int)z_string_len(z_loan(text)), z_string_data(z_loan(text)));
        z_drop(z_move(text));
    } else {
        printf(" enc=?");
    }
}

static void print_attachment(const z_loaned_bytes_t *attachment)
{
    printf(" att=");
    if (attachment == NULL || z_bytes_len(attachment) == 0) {
        printf("-");
        return;
    }
    uint8_t buf[256];
    z_bytes_reader_t reader = z_bytes_get_reader(attachment);
    size_t got = z_bytes_reader_read(&reader, buf, sizeof buf);
    print_hex(buf, got);
}

static void print_timestamp(const z_timestamp_t *ts)
{
    printf(" ts=");
    if (ts == NULL) {
        printf("-");
        return;
    }
    z_id_t id = z_timestamp_id(ts);
    printf("%llu/", (unsigned long long)z_timestamp_ntp64_time(ts));
    print_zid(&id);
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    sub_state_t *sub = ctx;
    long seq = atomic_fetch_add(&sub->numbered, 1);
    const z_loaned_bytes_t *payload = z_sample_payload(sample);
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    bool is_delete = z_sample_kind(sample) == Z_SAMPLE_KIND_DELETE;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    if (seq % quiet != 0) {
        atomic_fetch_add(&sub->received, 1);
        atomic_fetch_add(&total_received, 1);
        return;
    }

    /* One printf per field, all under one lock, so lines of two subscribers never interleave. */
    flockfile(stdout);
    printf("sample sub=%d n=%ld key=%.*s kind=%s len=%zu", sub->index, seq, (int)z_string_len(z_loan(key)),
           z_string_data(z_loan(key)), is_delete ? "delete" : "put", z_bytes_len(payload));
    print_check(payload, seq);
    print_head(payload);
    print_encoding(z_sample_encoding(sample));
    print_attachment(z_sample_attachment(sample));
    print_timestamp(z_sample_timestamp(sample));
    printf(" prio=%d express=%d cc=%s", (int)z_sample_priority(sample), z_sample_express(sample) ? 1 : 0,
           z_sample_congestion_control(sample) == Z_CONGESTION_CONTROL_BLOCK ? "block" : "drop");
    if (wall_clock) {
        printf(" rt=%lld", (long long)wall.tv_sec * 1000000LL + (long long)wall.tv_nsec / 1000LL);
    }
    printf("\n");
    funlockfile(stdout);

    atomic_fetch_add(&sub->received, 1);
    atomic_fetch_add(&total_received, 1);
    if (slow_ms > 0 && sub->index == 0) {
        fflush(stdout); /* the line is out before the callback blocks */
        struct timespec nap = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
        nanosleep(&nap, NULL);
    }
}

static void on_sync(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    if (!atomic_exchange(&synced, true)) {
        printf("sync\n");
    }
}

/* A sample for a node that answers only once it hears from us (the firmware tests' MCU). */
static void greet(const z_loaned_session_t *s, const char *key, long n)
{
    z_view_keyexpr_t ke;
    char text[64];
    snprintf(text, sizeof(text), "[%4ld] Pub from zmote host!", n);
    z_owned_bytes_t payload;
    if (z_view_keyexpr_from_str(&ke, key) == Z_OK && z_bytes_copy_from_str(&payload, text) == Z_OK) {
        z_put(s, z_loan(ke), z_move(payload), NULL);
    }
}

static int run_sub(const z_loaned_session_t *s, const probe_args_t *args)
{
    z_owned_subscriber_t handles[SUBS_MAX];
    bool live[SUBS_MAX] = {false};
    for (size_t i = 0; i < args->n_keys; i++) {
        z_view_keyexpr_t ke;
        if (z_view_keyexpr_from_str(&ke, args->keys[i]) != Z_OK) {
            printf("error keyexpr %s\n", args->keys[i]);
            return 1;
        }
        subs[i].index = (int)i;
        z_owned_closure_sample_t callback;
        z_closure(&callback, on_sample, NULL, &subs[i]);
        z_result_t rc = z_declare_subscriber(s, &handles[i], z_loan(ke), z_move(callback), NULL);
        if (rc != Z_OK) {
            printf("error declare_subscriber %s rc=%d\n", args->keys[i], (int)rc);
            return 1;
        }
        live[i] = true;
    }
    z_owned_subscriber_t sync_sub;
    bool has_sync = false;
    if (args->sync_key != NULL) {
        z_view_keyexpr_t ke;
        z_owned_closure_sample_t callback;
        z_closure(&callback, on_sync, NULL, NULL);
        if (z_view_keyexpr_from_str(&ke, args->sync_key) != Z_OK ||
            z_declare_subscriber(s, &sync_sub, z_loan(ke), z_move(callback), NULL) != Z_OK) {
            printf("error sync subscriber\n");
            return 1;
        }
        has_sync = true;
    }
    printf("ready\n");

    int status = 0;
    long polls = 0;
    long greetings = 0;
    for (;;) {
        report_links(s, args);
        if (args->greet_key != NULL && polls++ % GREET_EVERY == 0) {
            greet(s, args->greet_key, greetings++);
        }
        if (live[0] && args->undeclare_after > 0 && atomic_load(&subs[0].received) >= args->undeclare_after) {
            z_drop(z_move(handles[0]));
            live[0] = false;
            printf("undeclared 0\n");
        }
        if (args->count > 0 && atomic_load(&total_received) >= args->count) {
            break;
        }
        if (past_deadline(args)) {
            printf("timeout received=%ld\n", atomic_load(&total_received));
            status = 3;
            break;
        }
        if (stop_requested(POLL_MS, NULL)) {
            break;
        }
    }
    if (has_sync) {
        z_drop(z_move(sync_sub));
    }
    for (size_t i = 0; i < args->n_keys; i++) {
        if (live[i]) {
            z_drop(z_move(handles[i]));
        }
    }
    return status;
}
#else
/* A publisher-only build of the library has no subscribers to declare. */
static int run_sub(const z_loaned_session_t *s, const probe_args_t *args)
{
    (void)s;
    (void)args;
    printf("error: zm_probe sub needs a library built with Z_FEATURE_SUBSCRIPTION\n");
    return 2;
}
#endif

/* ---- publisher side -------------------------------------------------------------------------- */

static void free_payload(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* Puts empty samples on the sync key until a "go" line arrives; false on stop or deadline. */
static bool await_go(const z_loaned_session_t *s, const probe_args_t *args)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args->sync_key) != Z_OK) {
        printf("error keyexpr %s\n", args->sync_key);
        return false;
    }
    bool go = false;
    while (!go) {
        z_owned_bytes_t empty;
        z_bytes_empty(&empty);
        z_put(s, z_loan(ke), z_move(empty), NULL);
        if (stop_requested(SYNC_PERIOD_MS, &go) || past_deadline(args)) {
            return false;
        }
    }
    return true;
}

static z_result_t make_payload(z_owned_bytes_t *payload, const probe_args_t *args, long seq)
{
    if (args->size == 0) {
        z_bytes_empty(payload);
        return Z_OK;
    }
    uint8_t *data = malloc(args->size);
    if (data == NULL) {
        return (z_result_t)-1; /* out of memory: any negative code will do */
    }
    fill_pattern(data, args->size, seq);
    return z_bytes_from_buf(payload, data, args->size, free_payload, NULL);
}

/* The optional parts every put or delete may carry; encoding and attachment are consumed. */
typedef struct {
    z_owned_encoding_t encoding;
    bool has_encoding;
    z_owned_bytes_t attachment;
    bool has_attachment;
    z_timestamp_t timestamp;
    bool has_timestamp;
} extras_t;

static z_result_t make_extras(extras_t *x, const z_loaned_session_t *s, const probe_args_t *args, long seq)
{
    memset(x, 0, sizeof *x);
    if (args->encoding != NULL) {
        if (z_encoding_from_str(&x->encoding, args->encoding) != Z_OK) {
            return Z_EINVAL;
        }
        x->has_encoding = true;
    }
    if (args->attachment != NULL) {
        if (z_bytes_copy_from_str(&x->attachment, args->attachment) != Z_OK) {
            return Z_EINVAL;
        }
        x->has_attachment = true;
    }
    if (args->timestamp) {
        if (z_timestamp_new(&x->timestamp, s) != Z_OK) {
            return Z_EINVAL;
        }
        x->has_timestamp = true;
        z_id_t id = z_timestamp_id(&x->timestamp);
        printf("ts %ld %llu ", seq, (unsigned long long)z_timestamp_ntp64_time(&x->timestamp));
        print_zid(&id);
        printf("\n");
    }
    return Z_OK;
}

static z_result_t publish_one(const z_loaned_session_t *s, const z_loaned_keyexpr_t *ke,
                              const z_owned_publisher_t *pub, const probe_args_t *args, long seq)
{
    extras_t x;
    z_result_t rc = make_extras(&x, s, args, seq);
    if (rc != Z_OK) {
        return rc;
    }
    if (args->delete_kind) {
        /* A delete carries neither encoding nor attachment in this API. */
        if (x.has_encoding) {
            z_drop(z_move(x.encoding));
        }
        if (x.has_attachment) {
            z_drop(z_move(x.attachment));
        }
        if (pub != NULL) {
            z_publisher_delete_options_t opts;
            z_publisher_delete_options_default(&opts);
            opts.timestamp = x.has_timestamp ? &x.timestamp : NULL;
            return z_publisher_delete(z_publisher_loan(pub), &opts);
        }
        z_delete_options_t opts;
        z_delete_options_default(&opts);
        opts.timestamp = x.has_timestamp ? &x.timestamp : NULL;
        opts.congestion_control = args->block ? Z_CONGESTION_CONTROL_BLOCK : Z_CONGESTION_CONTROL_DROP;
        opts.is_express = args->express;
        if (args->priority > 0) {
            opts.priority = (z_priority_t)args->priority;
        }
        return z_delete(s, ke, &opts);
    }

    z_owned_bytes_t payload;
    rc = make_payload(&payload, args, seq);
    if (rc != Z_OK) {
        return rc;
    }
    if (pub != NULL) {
        z_publisher_put_options_t opts;
        z_publisher_put_options_default(&opts);
        opts.encoding = x.has_encoding ? z_move(x.encoding) : NULL;
        opts.attachment = x.has_attachment ? z_move(x.attachment) : NULL;
        opts.timestamp = x.has_timestamp ? &x.timestamp : NULL;
        return z_publisher_put(z_publisher_loan(pub), z_move(payload), &opts);
    }
    z_put_options_t opts;
    z_put_options_default(&opts);
    opts.encoding = x.has_encoding ? z_move(x.encoding) : NULL;
    opts.attachment = x.has_attachment ? z_move(x.attachment) : NULL;
    opts.timestamp = x.has_timestamp ? &x.timestamp : NULL;
    opts.congestion_control = args->block ? Z_CONGESTION_CONTROL_BLOCK : Z_CONGESTION_CONTROL_DROP;
    opts.is_express = args->express;
    if (args->priority > 0) {
        opts.priority = (z_priority_t)args->priority;
    }
    return z_put(s, ke, z_move(payload), &opts);
}

static int run_pub(const z_loaned_session_t *s, const probe_args_t *args)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args->keys[0]) != Z_OK) {
        printf("error keyexpr %s\n", args->keys[0]);
        return 1;
    }
    z_owned_publisher_t pub;
    bool has_pub = false;
    if (!args->session_put) {
        z_publisher_options_t opts;
        z_publisher_options_default(&opts);
        opts.congestion_control = args->block ? Z_CONGESTION_CONTROL_BLOCK : Z_CONGESTION_CONTROL_DROP;
        opts.is_express = args->express;
        if (args->priority > 0) {
            opts.priority = (z_priority_t)args->priority;
        }
        z_result_t rc = z_declare_publisher(s, &pub, z_loan(ke), &opts);
        if (rc != Z_OK) {
            printf("error declare_publisher rc=%d\n", (int)rc);
            return 1;
        }
        has_pub = true;
    }
    printf("ready\n");

    int status = 0;
    bool stopped = false;
    if (args->sync_key != NULL && !await_go(s, args)) {
        printf("timeout waiting for go\n");
        stopped = true;
        status = 3;
    }
    long checked = elapsed_ms();
    for (long seq = 0; !stopped && (args->count == 0 || seq < args->count); seq++) {
        if (seq > 0 && args->interval_ms > 0) {
            long until = elapsed_ms() + args->interval_ms;
            for (long left = args->interval_ms; !stopped && left > 0; left = until - elapsed_ms()) {
                report_links(s, args);
                stopped = stop_requested(left < POLL_MS ? (int)left : POLL_MS, NULL);
            }
            if (stopped) {
                break;
            }
        } else if (elapsed_ms() - checked >= POLL_MS) {
            /* a flood still reports and hears "stop", without a poll per put */
            checked = elapsed_ms();
            report_links(s, args);
            stopped = stop_requested(0, NULL);
            if (stopped) {
                break;
            }
        }
        z_result_t rc = publish_one(s, z_loan(ke), has_pub ? &pub : NULL, args, seq);
        if (seq % args->quiet == 0 || rc != Z_OK) {
            printf("put %ld rc=%d t=%ld\n", seq, (int)rc, elapsed_ms());
        }
        if (past_deadline(args)) {
            printf("timeout\n");
            status = 3;
            break;
        }
    }
    printf("sent\n");
    /* -W: keep the session until told, so the receiver decides when the data has all arrived. */
    while (args->wait_stop && !stopped && !past_deadline(args)) {
        report_links(s, args);
        stopped = stop_requested(POLL_MS, NULL);
    }
    if (has_pub) {
        z_drop(z_move(pub));
    }
    return status;
}

/* ---- main ------------------------------------------------------------------------------------ */

static int usage(void)
{
    fprintf(stderr,
            "usage: zm_probe pub|sub [-m MODE] [-e EP]... [-l EP] [-k KEY]... [-n N] [-s SIZE] [-P] [-d]\n"
            "                [-a ATTACHMENT] [-c ENCODING] [-T] [-p PRIORITY] [-x] [-b] [-i MS] [-S SYNC_KEY]\n"
            "                [-u K] [-r] [-t MS] [-W] [-q N] [-w] [-y] [-g KEY] [-z MS] [-A USER:PASSWORD]\n"
            "                [-D DICTIONARY_FILE]\n");
    return 2;
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, probe_args_t *args)
{
    if (argc < 2 || (strcmp(argv[1], "pub") != 0 && strcmp(argv[1], "sub") != 0)) {
        return usage();
    }
    args->publish = strcmp(argv[1], "pub") == 0;
    optind = 2;
    int opt;
    while ((opt = getopt(argc, argv, PROBE_OPTIONS)) != -1) {
        switch (opt) {
        case 'm':
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            CLI_TLS_FROM_ENV(config);
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'l':
            CLI_TLS_FROM_ENV(config);
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_LISTEN_KEY, optarg);
            break;
        case 'k':
            if (args->n_keys == SUBS_MAX) {
                return usage();
            }
            args->keys[args->n_keys++] = optarg;
            break;
        case 'n':
            args->count = atol(optarg);
            break;
        case 's':
            args->size = (size_t)strtoull(optarg, NULL, 10);
            break;
        case 'P':
            args->session_put = true;
            break;
        case 'd':
            args->delete_kind = true;
            break;
        case 'a':
            args->attachment = optarg;
            break;
        case 'c':
            args->encoding = optarg;
            break;
        case 'T':
            args->timestamp = true;
            break;
        case 'p':
            args->priority = atoi(optarg);
            break;
        case 'x':
            args->express = true;
            break;
        case 'b':
            args->block = true;
            break;
        case 'i':
            args->interval_ms = atol(optarg);
            break;
        case 'S':
            args->sync_key = optarg;
            break;
        case 'u':
            args->undeclare_after = atol(optarg);
            break;
        case 'r':
            args->report_routers = true;
            break;
        case 't':
            args->timeout_ms = atol(optarg);
            break;
        case 'W':
            args->wait_stop = true;
            break;
        case 'q':
            args->quiet = atol(optarg);
            if (args->quiet < 1) {
                return usage();
            }
            break;
        case 'w':
            args->wall_clock = true;
            break;
        case 'y':
            args->report_peers = true;
            break;
        case 'g':
            args->greet_key = optarg;
            break;
        case 'z':
            slow_ms = atol(optarg);
            break;
        case 'A': {
            char *colon = strchr(optarg, ':');
            if (colon == NULL) {
                return usage();
            }
            *colon = '\0';
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_USER_KEY, optarg);
            zp_config_insert(z_loan_mut(*config), Z_CONFIG_PASSWORD_KEY, colon + 1);
            break;
        }
        case 'D': {
            static char dict[4096];
            FILE *f = fopen(optarg, "r");
            size_t n = f != NULL ? fread(dict, 1, sizeof(dict) - 1, f) : 0;
            bool whole = f != NULL && feof(f);
            if (f != NULL) {
                fclose(f);
            }
            if (!whole) {
                fprintf(stderr, "zm_probe: cannot read the whole of %s\n", optarg);
                return 2;
            }
            dict[n] = '\0';
            zp_config_insert(z_loan_mut(*config), ZM_CONFIG_USRPWD_DICTIONARY_KEY, dict);
            break;
        }
        default:
            return usage();
        }
    }
    if (args->n_keys == 0) {
        args->keys[args->n_keys++] = "zm/probe";
    }
    if (args->publish && args->n_keys != 1) {
        return usage();
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    clock_gettime(CLOCK_MONOTONIC, &started);
    probe_args_t args = {.count = 1, .size = 8, .timeout_ms = 60000, .quiet = 1};

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &args);
    if (ret != 0) {
        z_drop(z_move(config));
        return ret;
    }
    quiet = args.quiet;
    wall_clock = args.wall_clock;

    z_owned_session_t s;
    z_result_t rc = z_open(&s, z_move(config), NULL);
    if (rc != Z_OK) {
        printf("Unable to open session!\n");
        printf("error open rc=%d: %s\n", (int)rc, zm_strerror(rc));
        return 1;
    }
    z_id_t zid = z_info_zid(z_loan(s));
    printf("zid ");
    print_zid(&zid);
    printf("\n");

    int status = args.publish ? run_pub(z_loan(s), &args) : run_sub(z_loan(s), &args);

    z_drop(z_move(s));
    printf("done\n");
    return status;
}
