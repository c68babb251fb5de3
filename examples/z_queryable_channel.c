/*
 * z_queryable_channel: like z_queryable, but queries go through a ring channel of ten places
 * and main takes them out, replies and drops them (the drop ends each query), instead of
 * answering on the session's read task. Flags, defaults and printed lines are zenoh-pico
 * 1.9.0's z_queryable_channel: -k key expression, -v the value replied, -e/-m/-l session config;
 * it runs until killed. Single-thread builds have no read task to fill the channel: it needs threads.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_QUERYABLE == 1 && Z_FEATURE_MULTI_THREAD == 1

#define QUERYABLE_OPTIONS "k:v:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to answer for", "demo/example/zenoh-pico-queryable"},
    {'v', "VALUE", "the value replied", "Queryable from Pico!"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Answers queries taken out of a channel, from the main thread.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, const char **value)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, QUERYABLE_OPTIONS)) != -1) {
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
            return cli_bad_option(QUERYABLE_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

static void answer(const z_loaned_query_t *query, const char *value)
{
    z_view_string_t key;
    z_keyexpr_as_view_string(z_query_keyexpr(query), &key);
    z_view_string_t params;
    z_query_parameters(query, &params);
    printf(" >> [Queryable handler] Received Query '%.*s%.*s'\n", (int)z_string_len(z_loan(key)),
           z_string_data(z_loan(key)), (int)z_string_len(z_loan(params)), z_string_data(z_loan(params)));
    z_owned_string_t payload;
    z_bytes_to_string(z_query_payload(query), &payload);
    if (z_string_len(z_loan(payload)) > 0) {
        printf("     with value '%.*s'\n", (int)z_string_len(z_loan(payload)), z_string_data(z_loan(payload)));
    }
    z_drop(z_move(payload));

    z_owned_bytes_t reply;
    z_bytes_from_static_str(&reply, value);
    z_query_reply(query, z_query_keyexpr(query), z_move(reply), NULL);
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/zenoh-pico-queryable";
    const char *value = "Queryable from Pico!";
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

#if Z_FEATURE_ADMIN_SPACE == 1
    if (zp_start_admin_space(z_loan_mut(s)) < 0) {
        printf("Unable to start admin space\n");
        z_drop(z_move(s));
        return -1;
    }
#endif

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Creating Queryable on '%s'...\n", keyexpr);
    z_owned_closure_query_t closure;
    z_owned_ring_handler_query_t handler;
    if (z_ring_channel_query_new(&closure, &handler, 10) < 0) {
        printf("Unable to create a channel.\n");
        z_drop(z_move(s));
        return -1;
    }
    z_owned_queryable_t qable;
    if (z_declare_queryable(z_loan(s), &qable, z_loan(ke), z_move(closure), NULL) < 0) {
        printf("Unable to create queryable.\n");
        z_drop(z_move(handler));
        z_drop(z_move(s));
        return -1;
    }

    /* each query taken out is owned: reply, then drop it, which sends the end of the query */
    z_owned_query_t query;
    while (z_recv(z_loan(handler), &query) == Z_OK) {
        answer(z_loan(query), value);
        z_drop(z_move(query));
    }

    z_drop(z_move(handler));
    z_drop(z_move(qable));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queryables or threads", "-DZ_FEATURE_QUERYABLE=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
