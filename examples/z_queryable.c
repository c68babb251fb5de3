/*
 * z_queryable: answers every query on a key expression with a value, a deletion or an error.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_queryable: -k key expression, -v
 * the value replied, -d reply a deletion, -f reply an error, -n queries to answer before
 * leaving (0: run until killed), -e/-m/-l session config. The count is atomic because the
 * callback runs on the session's read task while main polls it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_QUERYABLE == 1

#define QUERYABLE_OPTIONS "k:v:e:m:l:n:dfh"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to answer for", "demo/example/zenoh-pico-queryable"},
    {'v', "VALUE", "the value replied", "Queryable from Pico!"},
    {'n', "COUNT", "exit after answering COUNT queries, 0 for never", "0"},
    {'d', NULL, "reply a deletion instead of a value", NULL},
    {'f', NULL, "reply an error instead of a value", NULL},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Answers every query on a key expression with a value, a deletion or an error.";

typedef enum { REPLY_DATA, REPLY_DELETE, REPLY_ERR } reply_kind_t;

static const char *value = "Queryable from Pico!";
static const char *error_text = "Demo error";
static reply_kind_t reply_kind = REPLY_DATA;
static atomic_int answered;

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
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
    switch (reply_kind) {
    case REPLY_DATA:
        z_bytes_from_static_str(&reply, value);
        z_query_reply(query, z_query_keyexpr(query), z_move(reply), NULL);
        break;
    case REPLY_DELETE:
        z_query_reply_del(query, z_query_keyexpr(query), NULL);
        break;
    case REPLY_ERR:
        z_bytes_from_static_str(&reply, error_text);
        z_query_reply_err(query, z_move(reply), NULL);
        break;
    }
    atomic_fetch_add(&answered, 1);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, int *count)
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
            value = optarg;
            break;
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, count)) {
                return 1;
            }
            break;
        case 'd':
            reply_kind = REPLY_DELETE;
            break;
        case 'f':
            reply_kind = REPLY_ERR;
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

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/zenoh-pico-queryable";
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

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Creating Queryable on '%s'...\n", keyexpr);
    z_owned_closure_query_t callback;
    z_closure(&callback, on_query, NULL, NULL);
    z_owned_queryable_t qable;
    if (z_declare_queryable(z_loan(s), &qable, z_loan(ke), z_move(callback), NULL) < 0) {
        printf("Unable to create queryable.\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    /* zenoh-pico polls once a second; a tenth of that lets -n runs end promptly. */
    while (count == 0 || atomic_load(&answered) < count) {
        z_sleep_ms(100);
    }

    z_drop(z_move(qable));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queryables", "-DZ_FEATURE_QUERYABLE=1");
}
#endif
