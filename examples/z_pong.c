/*
 * z_pong: the echo side of z_ping. Every sample on "test/ping" is put again, unchanged, on
 * "test/pong", from inside the subscriber's callback. Flags and lines are zenoh-pico 1.9.0's
 * z_pong (-e/-m/-l). It reads stdin until 'q'; unlike pico's it also stops at end of input
 * rather than spinning on it, so keep stdin open for as long as it should run.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_PUBLICATION == 1

#define PONG_OPTIONS "e:m:l:"

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
    while ((opt = getopt(argc, argv, PONG_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
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
        return ret;
    }

    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) < 0) {
        printf("Unable to open session!\n");
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
    int c;
    do {
        c = getchar();
    } while (c != 'q' && c != EOF);

    /* The subscriber goes first: once it is undeclared no callback can use the publisher. */
    z_drop(z_move(sub));
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    printf("ERROR: Zenoh pico was compiled without Z_FEATURE_SUBSCRIPTION or Z_FEATURE_PUBLICATION but this "
           "example requires them.\n");
    return -2;
}
#endif
