/*
 * z_querier: declares a querier and queries with it once a second, printing the replies of
 * each query as main takes them out of a fifo channel of 16 replies. Flags, defaults and printed
 * lines are zenoh-pico 1.9.0's z_querier: -s selector (key expression, then parameters after a
 * '?'), -v a value sent with each query (numbered "[   i] value"), -n queries before leaving
 * (default: until killed), -t timeout of each query in ms (0: the default), -a a listener that
 * tells when queryables start or stop matching the querier, -e/-m/-l session config.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_QUERY == 1 && Z_FEATURE_MULTI_THREAD == 1

#define QUERIER_OPTIONS "s:v:e:m:l:n:t:ah"

static const cli_flag_t FLAGS[] = {
    {'s', "SELECTOR", "key expression queried, parameters may follow a '?'", "demo/example/**"},
    {'v', "VALUE", "a value sent with each query, after its number", "none"},
    {'n', "COUNT", "queries before exiting", "no limit"},
    {'t', "MS", "timeout of each query in milliseconds, 0 for zmote's (10000)", "0"},
    {'a', NULL, "print when queryables start or stop matching the querier", NULL},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Declares a querier and queries with it once a second, printing the replies.";

typedef struct {
    const char *selector;
    const char *value;
    int count;
    int timeout_ms;
    bool matching;
} args_t;

static int parse_args(int argc, char **argv, z_owned_config_t *config, args_t *a)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, QUERIER_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 's':
            a->selector = optarg;
            break;
        case 'v':
            a->value = optarg;
            break;
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, &a->count)) {
                return 1;
            }
            break;
        case 't':
            if (!cli_int(opt, optarg, 0, INT_MAX, &a->timeout_ms)) {
                return 1;
            }
            break;
        case 'a':
            a->matching = true;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(QUERIER_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

#if Z_FEATURE_MATCHING == 1
static void on_matching(const z_matching_status_t *status, void *ctx)
{
    (void)ctx;
    if (status->matching) {
        printf("Querier has matching queryable.\n");
    } else {
        printf("Querier has NO MORE matching queryables.\n");
    }
}
#endif

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

/* One query with the querier; prints its replies until it ends. */
static void query_once(const z_loaned_querier_t *querier, const char *params, const char *selector,
                       const char *value, int idx)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "[%4d] %s", idx, value != NULL ? value : "");
    printf("Querying '%s' with payload '%s'...\n", selector, buf);
    z_querier_get_options_t opts;
    z_querier_get_options_default(&opts);
    z_owned_bytes_t payload; /* lives as long as opts, which points to it */
    if (value != NULL) {
        z_bytes_copy_from_str(&payload, buf);
        opts.payload = z_move(payload);
    }
    z_owned_closure_reply_t closure;
    z_owned_fifo_handler_reply_t handler;
    if (z_fifo_channel_reply_new(&closure, &handler, 16) < 0) {
        z_bytes_drop(opts.payload);
        return;
    }
    if (z_querier_get(querier, params, z_move(closure), &opts) == Z_OK) {
        z_owned_reply_t reply;
        while (z_recv(z_loan(handler), &reply) == Z_OK) {
            print_reply(z_loan(reply));
            z_drop(z_move(reply));
        }
    }
    z_drop(z_move(handler));
}

int main(int argc, char **argv)
{
    args_t a = {"demo/example/**", NULL, INT_MAX, 0, false};
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &a);
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

    const char *params = strchr(a.selector, '?');
    size_t key_len = params != NULL ? (size_t)(params - a.selector) : strlen(a.selector);
    if (params != NULL) {
        params++;
    }
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_substr(&ke, a.selector, key_len) < 0) {
        printf("%.*s is not a valid key expression\n", (int)key_len, a.selector);
        z_drop(z_move(s));
        return -1;
    }

    printf("Declaring Querier on '%s'...\n", a.selector);
    z_querier_options_t opts;
    z_querier_options_default(&opts);
    opts.timeout_ms = (uint64_t)(a.timeout_ms > 0 ? a.timeout_ms : 0);
    z_owned_querier_t querier;
    if (z_declare_querier(z_loan(s), &querier, z_loan(ke), &opts) < 0) {
        printf("Unable to declare Querier for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }
    if (a.matching) {
#if Z_FEATURE_MATCHING == 1
        z_owned_closure_matching_status_t listener;
        z_closure(&listener, on_matching, NULL, NULL);
        z_querier_declare_background_matching_listener(z_loan(querier), z_move(listener));
#else
        z_drop(z_move(querier));
        z_drop(z_move(s));
        return cli_needs("matching", "-DZ_FEATURE_MATCHING=1");
#endif
    }

    printf("Press CTRL-C to quit...\n");
    for (int idx = 0; idx != a.count; idx++) {
        z_sleep_s(1);
        query_once(z_loan(querier), params, a.selector, a.value, idx);
    }

    z_drop(z_move(querier));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queries or threads", "-DZ_FEATURE_QUERY=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
