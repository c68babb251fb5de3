/*
 * z_advanced_pub: declares an advanced publisher (a cache of its last samples, sequence numbers
 * with a heartbeat every 500 ms, publisher detection) and puts a sample every second.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_advanced_pub: -k key, -v value, -i
 * the cache's size in samples, -e/-m/-l session config. Advanced subscribers that join late get
 * the cached samples; those that miss one get it back.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_ADVANCED_PUBLICATION == 1

#define ADVANCED_PUB_OPTIONS "k:v:e:m:l:i:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to publish on", "demo/example/zenoh-pico-pub"},
    {'v', "VALUE", "value of the samples", "Pub from Pico!"},
    {'i', "SAMPLES", "how many of the last samples the cache keeps", "1"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Puts a sample every second through an advanced publisher with a cache.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, const char **value,
                      unsigned long *history)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, ADVANCED_PUB_OPTIONS)) != -1) {
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
        case 'i':
            if (!cli_ulong(opt, optarg, 0, 4294967295ul, history)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(ADVANCED_PUB_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/zenoh-pico-pub";
    const char *value = "Pub from Pico!";
    unsigned long history = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &value, &history);
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

    printf("Declaring AdvancedPublisher for '%s'...\n", keyexpr);
    ze_owned_advanced_publisher_t pub;
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }
    ze_advanced_publisher_options_t pub_opts;
    ze_advanced_publisher_options_default(&pub_opts);
    pub_opts.cache.max_samples = history;
    pub_opts.cache.is_enabled = true;
    pub_opts.publisher_detection = true;
    ze_advanced_publisher_sample_miss_detection_options_default(&pub_opts.sample_miss_detection);
    pub_opts.sample_miss_detection.is_enabled = true;
    pub_opts.sample_miss_detection.heartbeat_period_ms = 500;
    pub_opts.sample_miss_detection.heartbeat_mode = ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_PERIODIC;
    if (ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &pub_opts) < 0) {
        printf("Unable to declare AdvancedPublisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    char buf[256];
    for (int idx = 0; 1; ++idx) {
        z_sleep_s(1);
        snprintf(buf, sizeof(buf), "[%4d] %s", idx, value);
        printf("Putting Data ('%s': '%s')...\n", keyexpr, buf);
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, buf);
        ze_advanced_publisher_put(z_loan(pub), z_move(payload), NULL);
    }

    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("advanced publishers", "-DZ_FEATURE_UNSTABLE_API=ON -DZ_FEATURE_ADVANCED_PUBLICATION=1");
}
#endif
