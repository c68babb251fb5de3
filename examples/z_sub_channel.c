/*
 * z_sub_channel: like z_sub, but samples go through a FIFO channel of three places and main
 * takes them out, instead of being printed on the read task. Flags, defaults and printed lines
 * are zenoh-pico 1.9.0's z_sub_channel: -k key, -e/-m/-l session config; it runs until killed.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1

#define CHANNEL_OPTIONS "k:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to subscribe to", "demo/example/**"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Subscribes to a key expression and prints the samples it takes out of a channel.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, CHANNEL_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(CHANNEL_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/**";
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr);
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

    printf("Declaring Subscriber on '%s'...\n", keyexpr);
    z_owned_closure_sample_t closure;
    z_owned_fifo_handler_sample_t handler;
    z_fifo_channel_sample_new(&closure, &handler, 3);

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(closure));
        z_drop(z_move(handler));
        z_drop(z_move(s));
        return -1;
    }
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ke), z_move(closure), NULL) < 0) {
        printf("Unable to declare subscriber.\n");
        z_drop(z_move(handler));
        z_drop(z_move(s));
        return -1;
    }

    /* recv blocks while the channel is empty and fails once the subscriber side is gone. */
    z_owned_sample_t sample;
    while (z_recv(z_loan(handler), &sample) == Z_OK) {
        z_view_string_t key;
        z_keyexpr_as_view_string(z_sample_keyexpr(z_loan(sample)), &key);
        z_owned_string_t value;
        z_bytes_to_string(z_sample_payload(z_loan(sample)), &value);
        printf(">> [Subscriber] Received ('%.*s': '%.*s')\n", (int)z_string_len(z_loan(key)),
               z_string_data(z_loan(key)), (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
        z_drop(z_move(value));
        z_drop(z_move(sample));
    }

    z_drop(z_move(sub));
    z_drop(z_move(handler));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("subscriptions", "-DZ_FEATURE_SUBSCRIPTION=1");
}
#endif
