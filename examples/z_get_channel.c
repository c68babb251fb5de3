/*
 * z_get_channel: sends one query and prints its replies as main takes them out of a channel,
 * instead of printing them on the session's read task. Flags, defaults and printed lines are
 * zenoh-pico 1.9.0's z_get_channel: -k key expression (a selector's parameters may follow a
 * '?'), -v a value sent with the query, -e/-m/-l session config. The channel is a fifo of 16
 * replies; the end of the query disconnects it, which ends the loop.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_QUERY == 1 && Z_FEATURE_MULTI_THREAD == 1

#define GET_OPTIONS "k:v:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "SELECTOR", "key expression queried, parameters may follow a '?'", "demo/example/**"},
    {'v', "VALUE", "a value sent with the query", "none"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Sends one query and prints the replies as it takes them out of a channel.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, const char **value)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, GET_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 'v':
            *value = optarg;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(GET_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

static void print_reply(const z_loaned_reply_t *reply)
{
    if (!z_reply_is_ok(reply)) {
        printf(">> Received an error\n");
        return;
    }
    const z_loaned_sample_t *sample = z_reply_ok(reply);
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    z_owned_string_t value;
    z_bytes_to_string(z_sample_payload(sample), &value);
    printf(">> Received ('%.*s': '%.*s')\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)),
           (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
    z_drop(z_move(value));
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/**";
    const char *value = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &value);
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

    const char *params = strchr(keyexpr, '?');
    size_t key_len = params != NULL ? (size_t)(params - keyexpr) : strlen(keyexpr);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_substr(&ke, keyexpr, key_len) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Sending Query '%s'...\n", keyexpr);
    z_get_options_t opts;
    z_get_options_default(&opts);
    z_owned_bytes_t payload;
    if (value != NULL) {
        z_bytes_copy_from_str(&payload, value);
        opts.payload = z_move(payload);
    }
    z_owned_closure_reply_t closure;
    z_owned_fifo_handler_reply_t handler;
    if (z_fifo_channel_reply_new(&closure, &handler, 16) < 0) {
        printf("Unable to create a channel.\n");
        z_drop(z_move(s));
        return -1;
    }
    if (z_get(z_loan(s), z_loan(ke), params != NULL ? params + 1 : "", z_move(closure), &opts) < 0) {
        printf("Unable to send query.\n");
        z_drop(z_move(handler));
        z_drop(z_move(s));
        return -1;
    }

    /* recv waits for each reply and fails once the query has ended and every reply is out */
    z_owned_reply_t reply;
    while (z_recv(z_loan(handler), &reply) == Z_OK) {
        print_reply(z_loan(reply));
        z_drop(z_move(reply));
    }

    z_drop(z_move(handler));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queries or threads", "-DZ_FEATURE_QUERY=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
