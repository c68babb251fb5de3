/*
 * z_get: sends one query and prints every reply, then the end of the query.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_get: -k key expression (a selector's
 * parameters may follow a '?'), -v a value sent with the query, -e/-m/-l session config. The
 * program waits for the end of the query (the reply closure's drop) on a condition variable.
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
static const char SUMMARY[] = "Sends one query and prints every reply, then the end of the query.";

static z_owned_mutex_t mutex;
static z_owned_condvar_t cond;
static bool done;

static const char *kind_to_str(z_sample_kind_t kind)
{
    switch (kind) {
    case Z_SAMPLE_KIND_PUT:
        return "PUT";
    case Z_SAMPLE_KIND_DELETE:
        return "DELETE";
    default:
        return "UNKNOWN";
    }
}

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    if (z_reply_is_ok(reply)) {
        const z_loaned_sample_t *sample = z_reply_ok(reply);
        z_view_string_t key;
        z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
        z_owned_string_t value;
        z_bytes_to_string(z_sample_payload(sample), &value);
        printf(">> Received %s ('%.*s': '%.*s')\n", kind_to_str(z_sample_kind(sample)),
               (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)), (int)z_string_len(z_loan(value)),
               z_string_data(z_loan(value)));
        z_drop(z_move(value));
    } else {
        z_owned_string_t err;
        z_bytes_to_string(z_reply_err_payload(z_reply_err(reply)), &err);
        printf(">> Received an error: %.*s\n", (int)z_string_len(z_loan(err)), z_string_data(z_loan(err)));
        z_drop(z_move(err));
    }
}

static void on_end(void *ctx)
{
    (void)ctx;
    printf(">> Received query final notification\n");
    z_mutex_lock(z_loan_mut(mutex));
    done = true;
    z_condvar_signal(z_loan_mut(cond));
    z_mutex_unlock(z_loan_mut(mutex));
}

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
    z_mutex_init(&mutex);
    z_condvar_init(&cond);

    printf("Opening session...\n");
    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }

    /* a selector: the key expression, then its parameters after a '?' */
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
    z_owned_closure_reply_t callback;
    z_closure(&callback, on_reply, on_end, NULL);
    /* Not under the lock: the query may end within z_get, which then runs on_end right here. */
    if (z_get(z_loan(s), z_loan(ke), params != NULL ? params + 1 : "", z_move(callback), &opts) < 0) {
        printf("Unable to send query.\n");
        z_drop(z_move(s));
        return -1;
    }
    z_mutex_lock(z_loan_mut(mutex));
    while (!done) {
        z_condvar_wait(z_loan_mut(cond), z_loan_mut(mutex));
    }
    z_mutex_unlock(z_loan_mut(mutex));

    z_drop(z_move(s));
    z_drop(z_move(cond));
    z_drop(z_move(mutex));
    return 0;
}

#else
int main(void)
{
    return cli_needs("queries or threads", "-DZ_FEATURE_QUERY=1 -DZ_FEATURE_MULTI_THREAD=1");
}
#endif
