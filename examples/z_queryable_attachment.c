/*
 * z_queryable_attachment: like z_queryable, printing each query's encoding and attachment, and
 * replying with the encoding zenoh/string;utf8 and an attachment (the pair reply_key =
 * reply_value). Flags, defaults and printed lines are zenoh-pico 1.9.0's z_queryable_attachment:
 * -k key expression, -v the value replied, -n queries to answer before leaving (0: run until
 * killed), -e/-m/-l session config. Attachments are zenoh-ext lists of string pairs (attachment.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "attachment.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_QUERYABLE == 1

#define QUERYABLE_OPTIONS "k:v:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to answer for", "demo/example/zenoh-pico-queryable"},
    {'v', "VALUE", "the value replied", "Queryable from Pico!"},
    {'n', "COUNT", "exit after answering COUNT queries, 0 for never", "0"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Answers queries with a value, an encoding and an attachment, printing each query's.";

static const char *value = "Queryable from Pico!";
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
    z_owned_string_t encoding;
    z_encoding_to_string(z_query_encoding(query), &encoding);
    printf("    with encoding: %.*s\n", (int)z_string_len(z_loan(encoding)), z_string_data(z_loan(encoding)));
    z_drop(z_move(encoding));
    z_owned_string_t payload;
    z_bytes_to_string(z_query_payload(query), &payload);
    if (z_string_len(z_loan(payload)) > 0) {
        printf("    with value '%.*s'\n", (int)z_string_len(z_loan(payload)), z_string_data(z_loan(payload)));
    }
    z_drop(z_move(payload));
    attachment_print(z_query_attachment(query));

    z_query_reply_options_t options;
    z_query_reply_options_default(&options);
    z_owned_bytes_t attachment;
    if (attachment_of_pair(&attachment, "reply_key", "reply_value") == Z_OK) {
        options.attachment = z_move(attachment);
    }
    z_owned_encoding_t reply_encoding;
    if (z_encoding_from_str(&reply_encoding, "zenoh/string;utf8") == Z_OK) {
        options.encoding = z_move(reply_encoding);
    }
    z_owned_bytes_t reply;
    z_bytes_from_static_str(&reply, value);
    z_query_reply(query, z_query_keyexpr(query), z_move(reply), &options);
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
