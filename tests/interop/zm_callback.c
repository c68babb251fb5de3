/*
 * zm_callback: callbacks that misbehave, for test_callbacks.py, through the public API only.
 *
 *   zm_callback block -k KEY -B MS   a subscriber on KEY whose first callback blocks for MS ms
 *                                    ("blocking" then "unblocked"); each sample prints "sample KEY".
 *   zm_callback close ROLE -k KEY    a callback that closes its own session: ROLE sub (a
 *                                    subscriber's first sample), reply (a get's first reply), drop
 *                                    (a get's end at its timeout), live (a liveliness
 *                                    subscriber's first event), local (a local put's delivery),
 *                                    qbl (a local get's queryable), undeclare (a subscriber's
 *                                    drop, run by its undeclare from the program's thread),
 *                                    livget (a liveliness get's reply, from a token of this very
 *                                    session). Prints "closing", then "closed rc=R" once z_close
 *                                    returned in the callback.
 *   zm_callback last ROLE -k KEY     drops the session's last reference ("dropping", then
 *                                    "dropped") from a callback: ROLE sub (a background
 *                                    subscriber's first sample, on its read task), drop (a get's
 *                                    end at its timeout, on its worker). The program then waits
 *                                    for the background subscriber's drop, which the session's
 *                                    close runs ("subscriber dropped"), without touching the
 *                                    session.
 *
 * Common: -m mode, -e connect, -l listen, -t deadline in ms (default 60000). Prints "ready" once
 * declared; it ends at the deadline, on SIGTERM or SIGINT, or once its session is closed, then
 * drops the session and prints "done".
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zenoh-pico.h"

static z_owned_session_t session;
static atomic_bool stop;
static atomic_bool blocked_once;
static long block_ms;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop, true);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static atomic_bool closed_once;

/* Closes the session from inside a callback, once. */
static void close_here(void)
{
    if (atomic_exchange(&closed_once, true)) {
        return;
    }
    printf("closing\n");
    z_result_t rc = z_close(z_loan_mut(session), NULL);
    printf("closed rc=%d\n", (int)rc);
}

static void on_block(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    printf("sample %.*s\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)));
    if (!atomic_exchange(&blocked_once, true)) {
        printf("blocking\n");
        sleep_ms(block_ms);
        printf("unblocked\n");
    }
}

static void on_sample_close(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    close_here();
}

static void on_reply_close(z_loaned_reply_t *reply, void *ctx)
{
    (void)reply;
    (void)ctx;
    close_here();
}

static void on_reply_ignore(z_loaned_reply_t *reply, void *ctx)
{
    (void)reply;
    (void)ctx;
}

static void on_drop_close(void *ctx)
{
    (void)ctx;
    close_here();
}

static atomic_bool session_gone;
static atomic_bool sub_dropped;

static void on_sub_drop(void *ctx)
{
    (void)ctx;
    atomic_store(&sub_dropped, true);
}

static void drop_session_here(void)
{
    if (atomic_exchange(&session_gone, true)) {
        return;
    }
    printf("dropping\n");
    z_drop(z_move(session));
    printf("dropped\n");
}

static void on_sample_drop_session(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    drop_session_here();
}

static void on_drop_drop_session(void *ctx)
{
    (void)ctx;
    drop_session_here();
}

static void on_query_close(z_loaned_query_t *query, void *ctx)
{
    (void)query;
    (void)ctx;
    close_here();
}

static int usage(void)
{
    fprintf(stderr,
            "usage: zm_callback block|close ROLE|last ROLE -k KEY [-B MS] [-m MODE] [-e EP] [-l EP] [-t MS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        return usage();
    }
    const char *what = argv[1];
    const char *role = "";
    int first = 2;
    if (strcmp(what, "close") == 0 || strcmp(what, "last") == 0) {
        if (argc < 3) {
            return usage();
        }
        role = argv[2];
        first = 3;
    } else if (strcmp(what, "block") != 0) {
        return usage();
    }
    const char *key = "zm/callback";
    long timeout_ms = 60000;
    z_owned_config_t config;
    z_config_default(&config);
    optind = first;
    int opt;
    while ((opt = getopt(argc, argv, "k:B:m:e:l:t:")) != -1) {
        switch (opt) {
        case 'k':
            key = optarg;
            break;
        case 'B':
            block_ms = atol(optarg);
            break;
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
            return usage();
        }
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (z_open(&session, z_move(config), NULL) != Z_OK) {
        printf("error open\n");
        return 1;
    }
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, key) != Z_OK) {
        printf("error keyexpr\n");
        z_drop(z_move(session));
        return 1;
    }
    z_owned_subscriber_t sub;
    bool has_sub = false;
    z_owned_queryable_t qbl;
    bool has_qbl = false;
    z_owned_liveliness_token_t token;
    bool has_token = false;
    int rc = 0;
    if (strcmp(what, "last") == 0) {
        z_owned_closure_sample_t cb;
        z_closure(&cb, on_sample_drop_session, on_sub_drop, NULL);
        rc = z_declare_background_subscriber(z_loan(session), z_loan(ke), z_move(cb), NULL);
    } else if (strcmp(what, "block") == 0 || strcmp(role, "sub") == 0 || strcmp(role, "local") == 0 ||
               strcmp(role, "undeclare") == 0) {
        z_owned_closure_sample_t cb;
        if (strcmp(role, "undeclare") == 0) {
            z_closure(&cb, on_sample_close, on_drop_close, NULL);
        } else {
            z_closure(&cb, strcmp(what, "block") == 0 ? on_block : on_sample_close, NULL, NULL);
        }
        rc = z_declare_subscriber(z_loan(session), &sub, z_loan(ke), z_move(cb), NULL);
        has_sub = rc == 0;
    } else if (strcmp(role, "livget") == 0) {
        rc = z_liveliness_declare_token(z_loan(session), &token, z_loan(ke), NULL);
        has_token = rc == 0;
    } else if (strcmp(role, "live") == 0) {
        z_owned_closure_sample_t cb;
        z_closure(&cb, on_sample_close, NULL, NULL);
        /* with history: the peer's token may have come before the subscriber */
        z_liveliness_subscriber_options_t lo;
        z_liveliness_subscriber_options_default(&lo);
        lo.history = true;
        rc = z_liveliness_declare_subscriber(z_loan(session), &sub, z_loan(ke), z_move(cb), &lo);
        has_sub = rc == 0;
    } else if (strcmp(role, "qbl") == 0) {
        z_owned_closure_query_t cb;
        z_closure(&cb, on_query_close, NULL, NULL);
        rc = z_declare_queryable(z_loan(session), &qbl, z_loan(ke), z_move(cb), NULL);
        has_qbl = rc == 0;
    } else if (strcmp(role, "reply") != 0 && strcmp(role, "drop") != 0 && strcmp(what, "last") != 0) {
        z_drop(z_move(session));
        return usage();
    }
    if (rc != 0) {
        printf("error declare rc=%d\n", rc);
        z_drop(z_move(session));
        return 1;
    }
    printf("ready\n");
    if (strcmp(what, "last") == 0) {
        if (strcmp(role, "drop") == 0) {
            z_owned_closure_reply_t cb;
            z_closure(&cb, on_reply_ignore, on_drop_drop_session, NULL);
            z_get_options_t opts;
            z_get_options_default(&opts);
            opts.timeout_ms = 2000;
            rc = z_get(z_loan(session), z_loan(ke), "", z_move(cb), &opts);
            printf("get rc=%d\n", rc);
        }
        long deadline = now_ms() + timeout_ms;
        while (!atomic_load(&stop) && !atomic_load(&session_gone) && now_ms() < deadline) {
            sleep_ms(20);
        }
        if (!atomic_load(&session_gone)) {
            z_drop(z_move(session));
        }
        deadline = now_ms() + 10000;
        while (!atomic_load(&sub_dropped) && now_ms() < deadline) {
            sleep_ms(20);
        }
        printf(atomic_load(&sub_dropped) ? "subscriber dropped\n" : "subscriber not dropped\n");
        printf("done\n");
        return 0;
    }
    if (strcmp(role, "undeclare") == 0) {
        z_drop(z_move(sub)); /* its drop closes the session, from this thread */
        has_sub = false;
    } else if (strcmp(role, "livget") == 0) {
        z_owned_closure_reply_t cb;
        z_closure(&cb, on_reply_close, NULL, NULL);
        rc = z_liveliness_get(z_loan(session), z_loan(ke), z_move(cb), NULL);
        printf("get rc=%d\n", rc);
    } else if (strcmp(role, "local") == 0) {
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, "local");
        z_put(z_loan(session), z_loan(ke), z_move(payload), NULL);
    } else if (strcmp(role, "reply") == 0 || strcmp(role, "drop") == 0 || strcmp(role, "qbl") == 0) {
        z_owned_closure_reply_t cb;
        if (strcmp(role, "drop") == 0) {
            z_closure(&cb, on_reply_ignore, on_drop_close, NULL);
        } else {
            z_closure(&cb, strcmp(role, "reply") == 0 ? on_reply_close : on_reply_ignore, NULL, NULL);
        }
        z_get_options_t opts;
        z_get_options_default(&opts);
        opts.timeout_ms = 2000;
        rc = z_get(z_loan(session), z_loan(ke), "", z_move(cb), &opts);
        printf("get rc=%d\n", rc);
    }
    long deadline = now_ms() + timeout_ms;
    while (!atomic_load(&stop) && !z_session_is_closed(z_loan(session)) && now_ms() < deadline) {
        sleep_ms(20);
    }
    if (has_sub) {
        z_drop(z_move(sub));
    }
    if (has_qbl) {
        z_drop(z_move(qbl));
    }
    if (has_token) {
        z_drop(z_move(token));
    }
    z_drop(z_move(session));
    printf("done\n");
    return 0;
}
