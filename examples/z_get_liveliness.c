/*
 * z_get_liveliness: asks once for the liveliness tokens alive and prints each, then exits.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_get_liveliness: -k key expression,
 * -e/-m/-l session config. The program waits for the end of the query (the reply closure's drop)
 * on a condition variable.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_LIVELINESS == 1 && Z_FEATURE_QUERY == 1 && Z_FEATURE_MULTI_THREAD == 1

#define GET_LIVELINESS_OPTIONS "k:e:m:l:"

static z_owned_mutex_t mutex;
static z_owned_condvar_t cond;
static bool done;

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    if (z_reply_is_ok(reply)) {
        const z_loaned_sample_t *sample = z_reply_ok(reply);
        z_view_string_t key;
        z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
        printf(">> Alive token ('%.*s')\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)));
    } else {
        printf("Received an error\n");
    }
}

static void on_end(void *ctx)
{
    (void)ctx;
    z_mutex_lock(z_loan_mut(mutex));
    done = true;
    z_condvar_signal(z_loan_mut(cond));
    z_mutex_unlock(z_loan_mut(mutex));
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key)
{
    int opt;
    while ((opt = getopt(argc, argv, GET_LIVELINESS_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
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
        return ret;
    }
    z_mutex_init(&mutex);
    z_condvar_init(&cond);

    printf("Opening session...\n");
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) < 0) {
        printf("Unable to open session!\n");
        return -1;
    }

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Sending liveliness query '%s'...\n", keyexpr);
    z_owned_closure_reply_t callback;
    z_closure(&callback, on_reply, on_end, NULL);
    /* the query may end before the call returns (every answer in, or nobody to ask): on_end then
     * runs on this thread, so the lock is not held across the call */
    if (z_liveliness_get(z_loan(s), z_loan(ke), z_move(callback), NULL) < 0) {
        printf("Liveliness query failed");
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
    printf("ERROR: Zenoh pico was compiled without Z_FEATURE_QUERY or Z_FEATURE_LIVELINESS but this example requires "
           "them.\n");
    return -2;
}
#endif
