/*
 * z_pong: the echo side of z_ping. Every sample on "test/ping" is put again, unchanged, on
 * "test/pong", from inside the subscriber's callback. Flags and lines are zenoh-pico 1.9.0's
 * z_pong (-e/-m/-l). It quits on a 'q' read from stdin, as pico's does, and on SIGINT or SIGTERM;
 * at the end of stdin (</dev/null, a script's background job) or in a background job of a
 * terminal it waits for the signal alone, so that it runs without a terminal.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_PUBLICATION == 1

#define PONG_OPTIONS "e:m:l:h"

static const cli_flag_t FLAGS[] = {CLI_SESSION_FLAGS};
static const char SUMMARY[] = "The echo side of z_ping: puts every sample of test/ping again on test/pong.";

/* Written to by the signal handler, read by main's wait: a signal wakes it whichever thread
 * the signal lands on. */
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    (void)sig;
    char c = 0;
    ssize_t n = write(wake_pipe[1], &c, 1);
    (void)n;
}

static bool catch_signals(void)
{
    if (pipe(wake_pipe) != 0) {
        return false;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0;
}

/* Returns on 'q' from stdin or on SIGINT/SIGTERM; once stdin ends, on the signal alone. */
static void wait_for_quit(void)
{
    /* a background job of a terminal would be stopped (SIGTTIN) by reading it */
    bool use_stdin = !isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) == getpgrp();
    struct pollfd fds[2] = {{wake_pipe[0], POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    for (;;) {
        if (poll(fds, use_stdin ? 2u : 1u, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        if (fds[0].revents != 0) {
            return;
        }
        if (use_stdin && fds[1].revents != 0) {
            char buf[256];
            ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n > 0 && memchr(buf, 'q', (size_t)n) != NULL) {
                return;
            }
            if (n <= 0) {
                fprintf(stderr, "z_pong: standard input ended: running until SIGINT or SIGTERM\n");
                use_stdin = false;
            }
        }
    }
}

static void on_ping(z_loaned_sample_t *sample, void *ctx)
{
    const z_owned_publisher_t *pub = (const z_owned_publisher_t *)ctx;
    /* A clone shares the received bytes rather than copying them. */
    z_owned_bytes_t echo;
    z_bytes_clone(&echo, z_sample_payload(sample));
    z_publisher_put(z_publisher_loan(pub), z_move(echo), NULL);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PONG_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        if (opt == 'h' || opt == CLI_LONG_HELP) {
            return CLI_USAGE(SUMMARY, FLAGS,
                             "It quits on a line holding 'q' on standard input, or on SIGINT (Ctrl-C) or SIGTERM.\n"
                             "Once standard input ends (e.g. </dev/null, or a background job), it runs until\n"
                             "one of those signals.");
        }
        if (opt == '?') {
            return cli_bad_option(PONG_OPTIONS);
        }
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }

    if (!catch_signals()) {
        perror("z_pong: cannot catch SIGINT and SIGTERM");
        z_drop(z_move(config));
        return -1;
    }

    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }

    z_view_keyexpr_t pong_key;
    z_view_keyexpr_from_str_unchecked(&pong_key, "test/pong");
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(pong_key), NULL) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }

    z_view_keyexpr_t ping_key;
    z_view_keyexpr_from_str_unchecked(&ping_key, "test/ping");
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_ping, NULL, &pub);
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ping_key), z_move(callback), NULL) < 0) {
        printf("Unable to declare subscriber for key expression.\n");
        z_drop(z_move(pub));
        z_drop(z_move(s));
        return -1;
    }

    printf("Pong app is running, press 'q' to quit\n");
    wait_for_quit();

    /* The subscriber goes first: once it is undeclared no callback can use the publisher. */
    z_drop(z_move(sub));
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("subscriptions or publications", "-DZ_FEATURE_SUBSCRIPTION=1 -DZ_FEATURE_PUBLICATION=1");
}
#endif
