/*
 * z_sub_thr: throughput sink. Counts the samples of a background subscriber and prints the
 * samples per second of each 1/-f s window ("%.3lf"; empty windows print nothing) for 23 s.
 * Flags, timing and output are zenoh-pico 1.9.0's z_sub_thr so bench scripts compare the two.
 * The callback only bumps an atomic: what is measured is the library, not the example.
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_MULTI_THREAD == 1

#define THR_OPTIONS "k:e:m:l:f:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to subscribe to", "thr"},
    {'f', "HZ", "windows per second the rate is printed for (0 counts as 1)", "10"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Throughput sink: counts samples for 23 s, printing the samples per second.";
#ifndef RUN_TIME_S /* a build for longer runs sets it (ZM_THR_RUN_S) */
#define RUN_TIME_S 23
#endif

typedef struct {
    atomic_ulong count;
} thr_stats_t;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    thr_stats_t *stats = (thr_stats_t *)ctx;
    atomic_fetch_add_explicit(&stats->count, 1, memory_order_relaxed);
}

static void drop_stats(void *ctx)
{
    free(ctx);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, unsigned long *frequency)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, THR_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 'f':
            if (!cli_ulong(opt, optarg, 0, 1000000ul, frequency)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(THR_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "thr";
    unsigned long frequency = 10;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &frequency);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }
    if (frequency == 0) {
        frequency = 1;
    }

    /* Owned by the subscriber's closure from here on: drop_stats frees it with the session. */
    thr_stats_t *stats = (thr_stats_t *)malloc(sizeof *stats);
    if (stats == NULL) {
        exit(-1);
    }
    atomic_init(&stats->count, 0);

    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        free(stats);
        exit(-1);
    }

    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, drop_stats, stats);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return -1;
    }
    if (z_declare_background_subscriber(z_loan(s), z_loan(ke), z_move(callback), NULL) < 0) {
        printf("Unable to create subscriber.\n");
        exit(-1);
    }

    unsigned long window_us = 1000000ul / frequency;
    z_clock_t begin = z_clock_now();
    while (z_clock_elapsed_s(&begin) < RUN_TIME_S) {
        z_clock_t start = z_clock_now();
        z_sleep_us(window_us);
        unsigned long elapsed_us = z_clock_elapsed_us(&start);
        unsigned long count = atomic_exchange(&stats->count, 0);
        if (count > 0) {
            printf("%.3lf\n", (double)count * 1000000.0 / (double)elapsed_us);
        }
    }

    z_drop(z_move(s));
    exit(0);
}

#else
int main(void)
{
    return cli_needs("subscriptions", "-DZ_FEATURE_SUBSCRIPTION=1");
}
#endif
