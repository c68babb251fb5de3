/*
 * z_sub: subscribes to a key expression and prints every sample it receives.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_sub: -k key, -n samples to wait
 * for (0: run until killed), -e/-m/-l session config. The count is atomic because the callback
 * runs on the session's read task while main polls it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1

#define SUB_OPTIONS "k:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to subscribe to", "demo/example/**"},
    {'n', "COUNT", "exit after COUNT samples, 0 for never", "0"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Subscribes to a key expression and prints every sample it receives.";

static atomic_int received;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    z_owned_string_t value;
    z_bytes_to_string(z_sample_payload(sample), &value);
    printf(">> [Subscriber] Received ('%.*s': '%.*s')\n", (int)z_string_len(z_loan(key)),
           z_string_data(z_loan(key)), (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
    z_drop(z_move(value));
    atomic_fetch_add(&received, 1);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, int *count)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, SUB_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, count)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(SUB_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/**";
    int count = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &count);
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

    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    printf("Declaring Subscriber on '%s'...\n", keyexpr);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return -1;
    }
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ke), z_move(callback), NULL) < 0) {
        printf("Unable to declare subscriber.\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    /* zenoh-pico polls once a second; a tenth of that lets -n runs end promptly. */
    while (count == 0 || atomic_load(&received) < count) {
        z_sleep_ms(100);
    }

    z_drop(z_move(sub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("subscriptions", "-DZ_FEATURE_SUBSCRIPTION=1");
}
#endif
