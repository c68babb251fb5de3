/*
 * zm_advsub: the zmote end of the advanced subscriber interop tests (tests/interop/test_advanced_sub.py),
 * through the public API only: an advanced subscriber that prints "ready" once declared, then
 * "sample <put|del> <payload>" for each sample it delivers and "miss <nb>" for each miss its
 * listener hears, in order. Options: -m mode, -e connect, -k key, -H max samples of history
 * (0: history of any size), -A max age in ms of history, -L late publisher detection, -r recovery,
 * -b last sample miss detection on heartbeats, -p period in ms of periodic queries, -t query
 * timeout in ms, -d subscriber detection (a liveliness token). It ends at the end of stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zenoh-pico.h"

#if Z_FEATURE_ADVANCED_SUBSCRIPTION == 1

#define ADVSUB_OPTIONS "m:e:k:H:A:Lrbp:t:d"

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_owned_string_t text;
    z_bytes_to_string(z_sample_payload(sample), &text);
    printf("sample %s %.*s\n", z_sample_kind(sample) == Z_SAMPLE_KIND_PUT ? "put" : "del",
           (int)z_string_len(z_loan(text)), z_string_data(z_loan(text)));
    z_drop(z_move(text));
}

static void on_miss(const ze_miss_t *miss, void *ctx)
{
    (void)ctx;
    printf("miss %u\n", (unsigned)miss->nb);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *key = "zm/advsub";
    ze_advanced_subscriber_options_t o;
    ze_advanced_subscriber_options_default(&o);
    z_owned_config_t config;
    z_config_default(&config);
    int opt;
    while ((opt = getopt(argc, argv, ADVSUB_OPTIONS)) != -1) {
        switch (opt) {
        case 'm':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'k':
            key = optarg;
            break;
        case 'H':
            o.history.is_enabled = true;
            o.history.max_samples = strtoul(optarg, NULL, 10);
            break;
        case 'A':
            o.history.is_enabled = true;
            o.history.max_age_ms = strtoull(optarg, NULL, 10);
            break;
        case 'L':
            o.history.is_enabled = true;
            o.history.detect_late_publishers = true;
            break;
        case 'r':
            o.recovery.is_enabled = true;
            break;
        case 'b':
            o.recovery.is_enabled = true;
            o.recovery.last_sample_miss_detection.is_enabled = true;
            break;
        case 'p':
            o.recovery.is_enabled = true;
            o.recovery.last_sample_miss_detection.is_enabled = true;
            o.recovery.last_sample_miss_detection.periodic_queries_period_ms = strtoull(optarg, NULL, 10);
            break;
        case 't':
            o.query_timeout_ms = strtoull(optarg, NULL, 10);
            break;
        case 'd':
            o.subscriber_detection = true;
            break;
        default:
            fprintf(stderr, "usage: zm_advsub [-m mode] [-e connect] [-k key] [-H n] [-A ms] [-L] [-r] [-b] [-p ms] [-t ms] [-d]\n");
            z_drop(z_move(config));
            return 2;
        }
    }
    z_owned_session_t s;
    z_result_t rc = z_open(&s, z_move(config), NULL);
    if (rc != Z_OK) {
        printf("open failed %d\n", rc);
        return 1;
    }
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, key);
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, NULL, NULL);
    ze_owned_advanced_subscriber_t sub;
    rc = ze_declare_advanced_subscriber(z_loan(s), &sub, z_loan(ke), z_move(cb), &o);
    if (rc != Z_OK) {
        printf("declare failed %d\n", rc);
        z_drop(z_move(s));
        return 1;
    }
    ze_owned_closure_miss_t miss_cb;
    z_closure(&miss_cb, on_miss, NULL, NULL);
    ze_owned_sample_miss_listener_t listener;
    rc = ze_advanced_subscriber_declare_sample_miss_listener(z_loan(sub), &listener, z_move(miss_cb));
    if (rc != Z_OK) {
        printf("listener failed %d\n", rc);
    }
    printf("ready\n");
    char line[64];
    while (fgets(line, sizeof(line), stdin) != NULL) {
    }
    z_drop(z_move(listener));
    rc = ze_undeclare_advanced_subscriber(z_move(sub));
    z_drop(z_move(s));
    printf("end %d\n", rc);
    return rc == Z_OK ? 0 : 1;
}

#else
int main(void)
{
    printf("no advanced subscribers in this build\n");
    return 3;
}
#endif
