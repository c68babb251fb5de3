/*
 * z_advanced_sub: declares an advanced subscriber (history of the publishers there and of those
 * that come later, recovery of missed samples on the publishers' heartbeats, subscriber
 * detection), a sample miss listener and a listener of the publishers' tokens, and prints what
 * they see. Flags, defaults and printed lines are zenoh-pico 1.9.0's z_advanced_sub: -k key,
 * -e/-m/-l session config (a miss line ends with a newline here).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_ADVANCED_SUBSCRIPTION == 1

#define ADVANCED_SUB_OPTIONS "k:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to subscribe to", "demo/example/**"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] =
    "Prints the samples of advanced publishers (their history too), the samples missed and the publishers seen.";

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

static void data_handler(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t keystr;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &keystr);
    z_owned_string_t value;
    z_bytes_to_string(z_sample_payload(sample), &value);
    printf(">> [Advanced Subscriber] Received %s ('%.*s': '%.*s')\n", kind_to_str(z_sample_kind(sample)),
           (int)z_string_len(z_loan(keystr)), z_string_data(z_loan(keystr)), (int)z_string_len(z_loan(value)),
           z_string_data(z_loan(value)));
    z_drop(z_move(value));
}

static void liveliness_handler(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key_string;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key_string);
    switch (z_sample_kind(sample)) {
    case Z_SAMPLE_KIND_PUT:
        printf(">> [Liveliness Subscriber] New alive token ('%.*s')\n", (int)z_string_len(z_loan(key_string)),
               z_string_data(z_loan(key_string)));
        break;
    case Z_SAMPLE_KIND_DELETE:
        printf(">> [Liveliness Subscriber] Dropped token ('%.*s')\n", (int)z_string_len(z_loan(key_string)),
               z_string_data(z_loan(key_string)));
        break;
    }
}

static void miss_handler(const ze_miss_t *miss, void *arg)
{
    (void)arg;
    z_id_t id = z_entity_global_id_zid(&miss->source);
    z_owned_string_t id_string;
    z_id_to_string(&id, &id_string);
    printf(">> [Advanced Subscriber] Missed %d samples from '%.*s' !!!\n", (int)miss->nb,
           (int)z_string_len(z_loan(id_string)), z_string_data(z_loan(id_string)));
    z_drop(z_move(id_string));
}

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **keyexpr)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, ADVANCED_SUB_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *keyexpr = optarg;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(ADVANCED_SUB_OPTIONS);
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

    ze_advanced_subscriber_options_t sub_opts;
    ze_advanced_subscriber_options_default(&sub_opts);
    ze_advanced_subscriber_history_options_default(&sub_opts.history);
    sub_opts.history.detect_late_publishers = true;
    ze_advanced_subscriber_recovery_options_default(&sub_opts.recovery);
    ze_advanced_subscriber_last_sample_miss_detection_options_default(&sub_opts.recovery.last_sample_miss_detection);
    sub_opts.recovery.last_sample_miss_detection.periodic_queries_period_ms = 0; /* on the publishers' heartbeats */
    sub_opts.subscriber_detection = true;

    z_owned_closure_sample_t callback;
    z_closure(&callback, data_handler, NULL, NULL);
    printf("Declaring AdvancedSubscriber on '%s'...\n", keyexpr);
    ze_owned_advanced_subscriber_t sub;
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return -1;
    }
    if (ze_declare_advanced_subscriber(z_loan(s), &sub, z_loan(ke), z_move(callback), &sub_opts) < 0) {
        printf("Unable to declare advanced subscriber.\n");
        z_drop(z_move(s));
        return -1;
    }

    ze_owned_closure_miss_t miss_callback;
    ze_owned_sample_miss_listener_t miss_listener;
    z_closure(&miss_callback, miss_handler, NULL, NULL);
    ze_advanced_subscriber_declare_sample_miss_listener(z_loan(sub), &miss_listener, z_move(miss_callback));

    z_owned_closure_sample_t liveliness_callback;
    z_closure(&liveliness_callback, liveliness_handler, NULL, NULL);
    z_liveliness_subscriber_options_t liveliness_sub_opt;
    z_liveliness_subscriber_options_default(&liveliness_sub_opt);
    z_owned_subscriber_t liveliness_sub;
    if (ze_advanced_subscriber_detect_publishers(z_loan(sub), &liveliness_sub, z_move(liveliness_callback),
                                                 &liveliness_sub_opt) < 0) {
        printf("Unable to declare liveliness subscriber.\n");
        z_drop(z_move(miss_listener));
        z_drop(z_move(sub));
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    for (;;) {
        z_sleep_s(1);
    }

    z_drop(z_move(miss_listener));
    z_drop(z_move(liveliness_sub));
    z_drop(z_move(sub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("advanced subscribers", "-DZ_FEATURE_UNSTABLE_API=ON -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1");
}
#endif
