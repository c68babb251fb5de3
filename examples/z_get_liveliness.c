/*
 * z_get_liveliness: asks once for the liveliness tokens alive and prints each, then exits.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_get_liveliness: -k key expression,
 * -e/-m/-l session config. Replies go through a fifo channel of 16, which the end of the query
 * disconnects, ending the loop.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_LIVELINESS == 1 && Z_FEATURE_QUERY == 1 && Z_FEATURE_MULTI_THREAD == 1

#define GET_LIVELINESS_OPTIONS "k:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression of the tokens asked for", "group1/**"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Asks once for the liveliness tokens alive and prints each.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, GET_LIVELINESS_OPTIONS)) != -1) {
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
            return cli_bad_option(GET_LIVELINESS_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "group1/**";
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

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Sending liveliness query '%s'...\n", keyexpr);
    z_owned_fifo_handler_reply_t handler;
    z_owned_closure_reply_t closure;
    if (z_fifo_channel_reply_new(&closure, &handler, 16) < 0) {
        printf("Unable to create a channel.\n");
        z_drop(z_move(s));
        return -1;
    }
    if (z_liveliness_get(z_loan(s), z_loan(ke), z_move(closure), NULL) < 0) {
        printf("Liveliness query failed");
        z_drop(z_move(handler));
        z_drop(z_move(s));
        return -1;
    }
    /* recv waits for each reply and fails once the query has ended and every reply is out */
    z_owned_reply_t reply;
    while (z_recv(z_loan(handler), &reply) == Z_OK) {
        if (z_reply_is_ok(z_loan(reply))) {
            const z_loaned_sample_t *sample = z_reply_ok(z_loan(reply));
            z_view_string_t key;
            z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
            printf(">> Alive token ('%.*s')\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)));
        } else {
            printf("Received an error\n");
        }
        z_drop(z_move(reply));
    }

    z_drop(z_move(handler));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queries, liveliness or threads",
                     "-DZ_FEATURE_QUERY=1 -DZ_FEATURE_LIVELINESS=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
