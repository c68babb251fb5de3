/*
 * z_ping: round-trip latency against z_pong. Same flags, defaults and output as zenoh-pico
 * 1.9.0's z_ping: -s bytes on "test/ping", echoed on "test/pong", -w ms of warm-up, then -n
 * round trips printed in microseconds ("%lu"). It busy-waits for each echo, as pico's does; it
 * also pings until a first echo comes back (the path may not exist yet) and gives up after 10 s.
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_PUBLICATION == 1 && Z_FEATURE_MULTI_THREAD == 1

#define PING_OPTIONS "s:n:w:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'s', "BYTES", "payload size of each ping", "8"},
    {'n', "COUNT", "round trips measured", "100"},
    {'w', "MS", "warm-up time before measuring, in milliseconds", "1000"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Measures round trips to z_pong: prints each one, in microseconds.";
#define ECHO_TIMEOUT_US 10000000ul
#define PRIME_WAIT_US 100000ul

static atomic_ulong echoes;

static void on_echo(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    atomic_fetch_add_explicit(&echoes, 1, memory_order_relaxed);
}

static void free_payload(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* Spins until at least target echoes arrived; false after limit_us. */
static bool wait_echoes(unsigned long target, unsigned long limit_us)
{
    z_clock_t start = z_clock_now();
    for (unsigned long spins = 1;; spins++) {
        if (atomic_load_explicit(&echoes, memory_order_relaxed) >= target) {
            return true;
        }
        if ((spins & 0xfffu) == 0 && z_clock_elapsed_us(&start) > limit_us) {
            return false;
        }
    }
}

static z_result_t send_ping(const z_loaned_publisher_t *pub, const z_loaned_bytes_t *payload)
{
    z_owned_bytes_t copy;
    z_bytes_clone(&copy, payload);
    return z_publisher_put(pub, z_move(copy), NULL);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, unsigned *size, unsigned *count,
                      unsigned *warmup_ms)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PING_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 's':
            if (!cli_unsigned(opt, optarg, 0, CLI_PAYLOAD_MAX, size)) {
                return 1;
            }
            break;
        case 'n':
            if (!cli_unsigned(opt, optarg, 0, 10000000u, count)) {
                return 1;
            }
            break;
        case 'w':
            if (!cli_unsigned(opt, optarg, 0, UINT_MAX, warmup_ms)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(PING_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned size = 8;
    unsigned count = 100;
    unsigned warmup_ms = 1000;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &size, &count, &warmup_ms);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }

    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }
    z_view_keyexpr_t ping_key;
    z_view_keyexpr_from_str_unchecked(&ping_key, "test/ping");
    z_view_keyexpr_t pong_key;
    z_view_keyexpr_from_str_unchecked(&pong_key, "test/pong");

    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ping_key), NULL) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_echo, NULL, NULL);
    if (z_declare_background_subscriber(z_loan(s), z_loan(pong_key), z_move(callback), NULL) < 0) {
        printf("Unable to declare subscriber for key expression.\n");
        z_drop(z_move(pub));
        z_drop(z_move(s));
        return -1;
    }

    uint8_t *data = (uint8_t *)malloc(size > 0 ? size : 1);
    unsigned long *rtt_us = (unsigned long *)malloc(sizeof *rtt_us * (count > 0 ? count : 1));
    bool *ok = (bool *)calloc(count > 0 ? count : 1, sizeof *ok);
    if (data == NULL || rtt_us == NULL || ok == NULL) {
        printf("Unable to allocate the payload.\n");
        return -1;
    }
    for (unsigned i = 0; i < size; i++) {
        data[i] = (uint8_t)(i % 10);
    }
    z_owned_bytes_t payload;
    z_bytes_from_buf(&payload, data, size, free_payload, NULL);

    /* Until the first echo the path may not exist yet: ping again every 100 ms, for 10 s. */
    z_clock_t prime_start = z_clock_now();
    do {
        if (z_clock_elapsed_us(&prime_start) > ECHO_TIMEOUT_US) {
            fprintf(stderr, "No echo from z_pong: is it running, on the same network?\n");
            return -1;
        }
        send_ping(z_loan(pub), z_loan(payload));
    } while (!wait_echoes(1, PRIME_WAIT_US));
    unsigned long expected = atomic_load(&echoes);

    if (warmup_ms > 0) {
        z_clock_t warmup_start = z_clock_now();
        while (z_clock_elapsed_us(&warmup_start) < (unsigned long)warmup_ms * 1000ul) {
            if (send_ping(z_loan(pub), z_loan(payload)) != Z_OK) {
                printf("Tx failed");
                continue;
            }
            if (!wait_echoes(++expected, ECHO_TIMEOUT_US)) {
                fprintf(stderr, "No echo from z_pong for 10 s.\n");
                return -1;
            }
        }
    }

    for (unsigned i = 0; i < count; i++) {
        z_clock_t start = z_clock_now();
        if (send_ping(z_loan(pub), z_loan(payload)) != Z_OK) {
            printf("Tx failed");
            continue;
        }
        if (!wait_echoes(++expected, ECHO_TIMEOUT_US)) {
            fprintf(stderr, "No echo from z_pong for 10 s.\n");
            return -1;
        }
        rtt_us[i] = z_clock_elapsed_us(&start);
        ok[i] = true;
    }
    for (unsigned i = 0; i < count; i++) {
        if (ok[i]) {
            printf("%lu\n", rtt_us[i]);
        }
    }

    z_drop(z_move(payload));
    free(rtt_us);
    free(ok);
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("subscriptions, publications or threads",
                     "-DZ_FEATURE_SUBSCRIPTION=1 -DZ_FEATURE_PUBLICATION=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
