/*
 * z_sub_attachment: subscribes to a key expression and prints every sample it receives with its
 * encoding, its timestamp when it has one, and its attachment read as a zenoh-ext list of
 * (key, value) string pairs (what z_pub_attachment sends). Flags, defaults and printed lines are
 * zenoh-pico 1.9.0's z_sub_attachment: -k key, -n samples to wait for (0: run until killed),
 * -e/-m/-l session config. Pairs are printed as they are read, so an attachment of any size
 * needs no memory beyond one pair, and one that is not such a list prints no more than what
 * could be read of it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "atomics.h"
#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_SUBSCRIPTION == 1

#define SUB_OPTIONS "k:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to subscribe to", "demo/example/**"},
    {'n', "COUNT", "exit after COUNT samples, 0 for never", "0"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] =
    "Subscribes to a key expression and prints every sample with its encoding, timestamp and attachment.";

static atomic_int received;

static void print_attachment(const z_loaned_bytes_t *attachment)
{
    ze_deserializer_t deserializer = ze_deserializer_from_bytes(attachment);
    size_t count = 0;
    if (ze_deserializer_deserialize_sequence_length(&deserializer, &count) != Z_OK || count == 0) {
        return;
    }
    printf("    with attachment:\n");
    for (size_t i = 0; i < count; i++) {
        z_owned_string_t key, value;
        if (ze_deserializer_deserialize_string(&deserializer, &key) != Z_OK) {
            return;
        }
        if (ze_deserializer_deserialize_string(&deserializer, &value) != Z_OK) {
            z_drop(z_move(key));
            return;
        }
        printf("     %zu: %.*s, %.*s\n", i, (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)),
               (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
        z_drop(z_move(key));
        z_drop(z_move(value));
    }
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    z_owned_string_t value;
    z_bytes_to_string(z_sample_payload(sample), &value);
    z_owned_string_t encoding;
    z_encoding_to_string(z_sample_encoding(sample), &encoding);
    printf(">> [Subscriber] Received ('%.*s': '%.*s')\n", (int)z_string_len(z_loan(key)),
           z_string_data(z_loan(key)), (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
    printf("    with encoding: %.*s\n", (int)z_string_len(z_loan(encoding)), z_string_data(z_loan(encoding)));
    const z_timestamp_t *ts = z_sample_timestamp(sample);
    if (ts != NULL) {
        printf("    with timestamp: %" PRIu64 "\n", z_timestamp_ntp64_time(ts));
    }
    print_attachment(z_sample_attachment(sample));
    z_drop(z_move(value));
    z_drop(z_move(encoding));
    atomic_fetch_add(&received, 1);
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, int *count)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, SUB_OPTIONS)) != -1) {
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
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(SUB_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/**";
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

    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    printf("Declaring Subscriber on '%s'...\n", keyexpr);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return -1;
    }
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ke), z_move(callback), NULL) < 0) {
        printf("Unable to declare subscriber.\n");
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
    return cli_needs("subscriptions", "-DZ_FEATURE_SUBSCRIPTION=1");
}
#endif
