/*
 * z_pub: declares a publisher and puts a numbered string once a second.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_pub, so scripts written for one
 * drive the other: -k key, -v value, -n count, -a matching listener, -e/-m/-l session config.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1

#define PUB_OPTIONS "k:v:e:m:l:n:ah"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to publish on", "demo/example/zenoh-pico-pub"},
    {'v', "VALUE", "the value put, after its number", "Pub from Pico!"},
    {'n', "COUNT", "puts before exiting", "no limit"},
    {'a', NULL, "print when subscribers start or stop matching the publisher", NULL},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Declares a publisher and puts a numbered value once a second.";

typedef struct {
    const char *key;
    const char *value;
    int count;
    bool matching_listener;
} pub_args_t;

#if Z_FEATURE_MATCHING == 1
static void on_matching(const z_matching_status_t *status, void *ctx)
{
    (void)ctx;
    if (status->matching) {
        printf("Publisher has matching subscribers.\n");
    } else {
        printf("Publisher has NO MORE matching subscribers.\n");
    }
}
#endif

static int parse_args(int argc, char **argv, z_owned_config_t *config, pub_args_t *args)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PUB_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            args->key = optarg;
            break;
        case 'v':
            args->value = optarg;
            break;
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, &args->count)) {
                return 1;
            }
            break;
        case 'a':
            args->matching_listener = true;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(PUB_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    pub_args_t args = {"demo/example/zenoh-pico-pub", "Pub from Pico!", INT_MAX, false};
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &args);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }

    printf("Opening session...\n");
    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }

#if Z_FEATURE_ADMIN_SPACE == 1
    if (zp_start_admin_space(z_loan_mut(s)) < 0) {
        printf("Unable to start admin space\n");
        z_drop(z_move(s));
        return -1;
    }
#endif

    printf("Declaring publisher for '%s'...\n", args.key);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args.key) < 0) {
        printf("%s is not a valid key expression\n", args.key);
        z_drop(z_move(s));
        return -1;
    }
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ke), NULL) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }

    if (args.matching_listener) {
#if Z_FEATURE_MATCHING == 1
        z_owned_closure_matching_status_t listener;
        z_closure(&listener, on_matching, NULL, NULL);
        z_publisher_declare_background_matching_listener(z_loan(pub), z_move(listener));
#else
        z_drop(z_move(pub));
        z_drop(z_move(s));
        return cli_needs("matching", "-DZ_FEATURE_MATCHING=1");
#endif
    }

    printf("Press CTRL-C to quit...\n");
    char text[256];
    for (int idx = 0; idx < args.count; ++idx) {
        z_sleep_s(1);
        snprintf(text, sizeof text, "[%4d] %s", idx, args.value);
        printf("Putting Data ('%s': '%s')...\n", args.key, text);
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, text);
        z_publisher_put(z_loan(pub), z_move(payload), NULL);
    }

    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
