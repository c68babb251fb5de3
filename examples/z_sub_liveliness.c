/*
 * z_sub_liveliness: declares a liveliness subscriber and prints each token that appears or goes.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_sub_liveliness: -k key, -h history
 * (also the tokens alive already), -n events to wait for (0: run until killed), -e/-m/-l session
 * config. The count is atomic because the callback runs on the session's read task.
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_LIVELINESS == 1

#define SUB_LIVELINESS_OPTIONS "k:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression of the tokens", "group1/**"},
    {'n', "COUNT", "exit after COUNT events, 0 for never", "0"},
    {'h', NULL, "history: also the tokens alive already", NULL},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Declares a liveliness subscriber and prints each token that appears or goes.";

static atomic_int received;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    switch (z_sample_kind(sample)) {
    case Z_SAMPLE_KIND_PUT:
        printf(">> [LivelinessSubscriber] New alive token ('%.*s')\n", (int)z_string_len(z_loan(key)),
               z_string_data(z_loan(key)));
        break;
    case Z_SAMPLE_KIND_DELETE:
        printf(">> [LivelinessSubscriber] Dropped token ('%.*s')\n", (int)z_string_len(z_loan(key)),
               z_string_data(z_loan(key)));
        break;
    default:
        break;
    }
    atomic_fetch_add(&received, 1);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, int *count, bool *history)
{
    int opt;
    cli_state()->help_is_h = false; /* -h is zenoh-pico's history flag here */
    while ((opt = cli_getopt(argc, argv, SUB_LIVELINESS_OPTIONS)) != -1) {
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
            *history = true;
            break;
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(SUB_LIVELINESS_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "group1/**";
    bool history = false;
    int count = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &count, &history);
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

    printf("Declaring liveliness subscriber on '%s'...\n", keyexpr);
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    z_liveliness_subscriber_options_t opts;
    z_liveliness_subscriber_options_default(&opts);
    opts.history = history;
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return -1;
    }
    z_owned_subscriber_t sub;
    if (z_liveliness_declare_subscriber(z_loan(s), &sub, z_loan(ke), z_move(callback), &opts) < 0) {
        printf("Unable to declare liveliness subscriber.\n");
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
    return cli_needs("subscriptions or liveliness", "-DZ_FEATURE_SUBSCRIPTION=1 -DZ_FEATURE_LIVELINESS=1");
}
#endif
