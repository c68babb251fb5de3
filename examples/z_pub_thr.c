/*
 * z_pub_thr: throughput source. Puts one payload of -s bytes (every byte 1) as fast as the
 * session takes it, for 20 s, and prints the puts per second of each 1/-f s window ("%.3lf").
 * Flags, timing and output are zenoh-pico 1.9.0's z_pub_thr so bench scripts compare the two:
 * congestion control Drop, and with Z_FEATURE_BATCHING the put loop runs inside a batch, as
 * pico's does with its default payload size.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1 && Z_FEATURE_MULTI_THREAD == 1

#define THR_OPTIONS "k:e:m:l:f:s:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to publish on", "thr"},
    {'s', "BYTES", "payload size of each put", "8"},
    {'f', "HZ", "windows per second the rate is printed for (0 counts as 1)", "10"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Throughput source: puts as fast as it can for 20 s, printing the puts per second.";
#ifndef RUN_TIME_S /* a build for longer runs sets it (ZM_THR_RUN_S) */
#define RUN_TIME_S 20
#endif

typedef struct {
    unsigned long frequency;
    atomic_ulong count;
    atomic_bool stop;
} thr_stats_t;

static void free_payload(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* Every window: swap the count for 0 and print the rate; empty windows print nothing. */
static void *report_task(void *arg)
{
    thr_stats_t *stats = (thr_stats_t *)arg;
    unsigned long window_us = 1000000ul / stats->frequency;
    while (!atomic_load(&stats->stop)) {
        z_clock_t start = z_clock_now();
        z_sleep_us(window_us);
        unsigned long elapsed_us = z_clock_elapsed_us(&start);
        unsigned long count = atomic_exchange(&stats->count, 0);
        if (count > 0) {
            printf("%.3lf\n", (double)count * 1000000.0 / (double)elapsed_us);
        }
    }
    return NULL;
}

static void *stop_task(void *arg)
{
    thr_stats_t *stats = (thr_stats_t *)arg;
    z_sleep_s(RUN_TIME_S);
    atomic_store(&stats->stop, true);
    return NULL;
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, unsigned long *frequency,
                      size_t *size)
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
        case 's':
            if (!cli_size(opt, optarg, 0, CLI_PAYLOAD_MAX, size)) {
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
    size_t size = 8;
    static thr_stats_t stats;
    stats.frequency = 10;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &stats.frequency, &size);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }
    if (stats.frequency == 0) {
        stats.frequency = 1;
    }

    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        exit(-1);
    }

    /* Give the subscriber's declaration a second to arrive, as zenoh-pico's version does. */
    z_sleep_s(1);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }
    z_publisher_options_t opts;
    z_publisher_options_default(&opts);
    opts.congestion_control = Z_CONGESTION_CONTROL_DROP;
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ke), &opts) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        exit(-1);
    }

    uint8_t *data = (uint8_t *)malloc(size > 0 ? size : 1);
    if (data == NULL) {
        printf("Unable to allocate the payload.\n");
        exit(-1);
    }
    memset(data, 1, size);
    z_owned_bytes_t payload;
    z_bytes_from_buf(&payload, data, size, free_payload, NULL);

    pthread_t reporter;
    pthread_t stopper;
    pthread_create(&reporter, NULL, report_task, &stats);
    pthread_create(&stopper, NULL, stop_task, &stats);

#if Z_FEATURE_BATCHING == 1
    zp_batch_start(z_loan(s));
#endif
    while (!atomic_load_explicit(&stats.stop, memory_order_relaxed)) {
        z_owned_bytes_t copy;
        z_bytes_clone(&copy, z_loan(payload));
        z_publisher_put(z_loan(pub), z_move(copy), NULL);
        atomic_fetch_add_explicit(&stats.count, 1, memory_order_relaxed);
    }
#if Z_FEATURE_BATCHING == 1
    zp_batch_stop(z_loan(s));
#endif

    pthread_join(reporter, NULL);
    pthread_join(stopper, NULL);
    z_drop(z_move(pub));
    z_drop(z_move(s));
    z_drop(z_move(payload));
    exit(0);
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
