/*
 * zm_live: the zmote end of the liveliness interop tests (tests/interop/test_liveliness.py),
 * through the public API only, driven by lines on stdin so that the tests wait on events, never
 * on time:
 *   token KEY        declares a token            -> "token KEY"
 *   drop KEY         undeclares it               -> "dropped KEY"
 *   sub KEY [h]      a liveliness subscriber (h: with history), then a liveliness get on KEY
 *                    and its end, so that whoever it asks has its interest too -> "sub KEY ready"
 *   unsub KEY        undeclares that subscriber  -> "unsub KEY"
 *   get KEY          a liveliness get            -> "reply KEY" per reply, then "end n=N"
 * Subscribers print "put KEY" and "delete KEY" per event, prefixed by their key ("[SUBKEY] ").
 * Options: -m mode, -e connect, -l listen; -t deadline in ms (default 60000): the program ends
 * then, or at the end of stdin.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zenoh-pico.h"

#define LIVE_OPTIONS "m:e:l:t:"
#define ITEMS_MAX 16
#define KEY_MAX 128

typedef struct {
    char key[KEY_MAX];
    bool used;
    z_owned_liveliness_token_t token;
    z_owned_subscriber_t sub;
} item_t;

static item_t tokens[ITEMS_MAX];
static item_t subs[ITEMS_MAX];
static char sub_keys[ITEMS_MAX][KEY_MAX]; /* the callback's context: the subscriber's key */

static z_owned_mutex_t mutex;
static z_owned_condvar_t cond;
static bool get_done;
static bool print_replies; /* the barrier get of "sub" only counts */
static long replies;

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000L + (long)(t.tv_nsec / 1000000L);
}

static item_t *find(item_t *table, const char *key)
{
    for (size_t i = 0; i < ITEMS_MAX; i++) {
        if (table[i].used && strcmp(table[i].key, key) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

static item_t *take_slot(item_t *table, const char *key)
{
    for (size_t i = 0; i < ITEMS_MAX; i++) {
        if (!table[i].used) {
            snprintf(table[i].key, sizeof(table[i].key), "%s", key);
            return &table[i];
        }
    }
    return NULL;
}

static void on_event(z_loaned_sample_t *sample, void *ctx)
{
    const char *sub = ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    printf("[%s] %s %.*s\n", sub, z_sample_kind(sample) == Z_SAMPLE_KIND_PUT ? "put" : "delete",
           (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)));
}

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(mutex));
    replies++;
    bool print = print_replies;
    z_mutex_unlock(z_loan_mut(mutex));
    if (!print) {
        return;
    }
    if (z_reply_is_ok(reply)) {
        z_view_string_t key;
        z_keyexpr_as_view_string(z_sample_keyexpr(z_reply_ok(reply)), &key);
        printf("reply %.*s\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)));
    } else {
        printf("reply error\n");
    }
}

static void on_get_end(void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(mutex));
    get_done = true;
    z_condvar_signal(z_loan_mut(cond));
    z_mutex_unlock(z_loan_mut(mutex));
}

/* A liveliness get on key; waits for its end. Returns the number of replies, or -1. */
static long get(const z_loaned_session_t *s, const char *key, bool quiet)
{
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, key) != Z_OK) {
        return -1;
    }
    z_mutex_lock(z_loan_mut(mutex));
    get_done = false;
    print_replies = !quiet;
    replies = 0;
    z_mutex_unlock(z_loan_mut(mutex));
    z_owned_closure_reply_t cb;
    z_closure(&cb, on_reply, on_get_end, NULL);
    z_liveliness_get_options_t opts;
    z_liveliness_get_options_default(&opts);
    opts.timeout_ms = 20000;
    if (z_liveliness_get(s, z_loan(ke), z_move(cb), &opts) != Z_OK) {
        return -1;
    }
    z_mutex_lock(z_loan_mut(mutex));
    while (!get_done) {
        z_condvar_wait(z_loan_mut(cond), z_loan_mut(mutex));
    }
    long n = replies;
    z_mutex_unlock(z_loan_mut(mutex));
    return n;
}

static void command(const z_loaned_session_t *s, char *line)
{
    char *verb = strtok(line, " \t\r\n");
    char *key = strtok(NULL, " \t\r\n");
    char *flag = strtok(NULL, " \t\r\n");
    if (verb == NULL || key == NULL) {
        return;
    }
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, key) != Z_OK) {
        printf("bad key %s\n", key);
        return;
    }
    if (strcmp(verb, "token") == 0) {
        item_t *t = take_slot(tokens, key);
        if (t != NULL && z_liveliness_declare_token(s, &t->token, z_loan(ke), NULL) == Z_OK) {
            t->used = true;
            printf("token %s\n", key);
        } else {
            printf("token %s failed\n", key);
        }
    } else if (strcmp(verb, "drop") == 0) {
        item_t *t = find(tokens, key);
        if (t != NULL) {
            z_result_t rc = z_liveliness_undeclare_token(z_move(t->token));
            t->used = false;
            printf(rc == Z_OK ? "dropped %s\n" : "drop %s failed\n", key);
        }
    } else if (strcmp(verb, "sub") == 0) {
        item_t *t = take_slot(subs, key);
        if (t == NULL) {
            printf("sub %s failed\n", key);
            return;
        }
        char *ctx = sub_keys[t - subs];
        snprintf(ctx, KEY_MAX, "%s", key);
        z_owned_closure_sample_t cb;
        z_closure(&cb, on_event, NULL, ctx);
        z_liveliness_subscriber_options_t opts;
        z_liveliness_subscriber_options_default(&opts);
        opts.history = flag != NULL && strcmp(flag, "h") == 0;
        if (z_liveliness_declare_subscriber(s, &t->sub, z_loan(ke), z_move(cb), &opts) != Z_OK) {
            printf("sub %s failed\n", key);
            return;
        }
        t->used = true;
        /* whoever a get reaches has read the subscriber's interest sent before it */
        printf(get(s, key, true) >= 0 ? "sub %s ready\n" : "sub %s failed\n", key);
    } else if (strcmp(verb, "unsub") == 0) {
        item_t *t = find(subs, key);
        if (t != NULL) {
            z_result_t rc = z_undeclare_subscriber(z_move(t->sub));
            t->used = false;
            printf(rc == Z_OK ? "unsub %s\n" : "unsub %s failed\n", key);
        }
    } else if (strcmp(verb, "get") == 0) {
        long n = get(s, key, false);
        printf("end n=%ld\n", n);
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    z_owned_config_t config;
    z_config_default(&config);
    long timeout_ms = 60000;
    int opt;
    while ((opt = getopt(argc, argv, LIVE_OPTIONS)) != -1) {
        switch (opt) {
        case 'm':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'l':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_LISTEN_KEY, optarg);
            break;
        case 't':
            timeout_ms = atol(optarg);
            break;
        default:
            z_drop(z_move(config));
            return 2;
        }
    }
    z_mutex_init(&mutex);
    z_condvar_init(&cond);
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) != Z_OK) {
        printf("open failed\n");
        return 1;
    }
    printf("ready\n");
    /* stdin read by hand (no stdio buffer hiding lines from poll), a line at a time */
    long deadline = now_ms() + timeout_ms;
    char buf[512];
    size_t have = 0;
    bool eof = false;
    while (!eof && now_ms() < deadline) {
        char *nl = memchr(buf, '\n', have);
        if (nl != NULL) {
            *nl = '\0';
            command(z_loan(s), buf);
            size_t used = (size_t)(nl - buf) + 1;
            memmove(buf, buf + used, have - used);
            have -= used;
            continue;
        }
        struct pollfd pfd = {0, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0) {
            continue;
        }
        ssize_t n = read(0, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0) {
            eof = true;
        } else {
            have += (size_t)n;
        }
        if (have == sizeof(buf) - 1) {
            have = 0; /* a line longer than any command: dropped */
        }
    }
    for (size_t i = 0; i < ITEMS_MAX; i++) {
        if (subs[i].used) {
            z_drop(z_move(subs[i].sub));
        }
        if (tokens[i].used) {
            z_drop(z_move(tokens[i].token));
        }
    }
    z_drop(z_move(s));
    z_drop(z_move(cond));
    z_drop(z_move(mutex));
    return 0;
}
