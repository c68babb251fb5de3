/*
 * zm_adv: the zmote end of the advanced publisher interop tests (tests/interop/test_advanced.py),
 * through the public API only, driven by lines on stdin so that the tests wait on events:
 *   put N            puts N samples, "<key> #<i>" for the next i, -> "put N" once sent
 *   del              a deletion                                   -> "deleted"
 *   skip N           puts N samples that only the cache sees (sent to this session alone: a loss
 *                    that the sequence numbers show)           -> "skipped N"
 * and prints "ready" once the publisher is declared. Options: -m mode, -e connect, -l listen,
 * -k key, -c cache samples (0: no cache), -s miss detection (sequence numbers), -b period in ms
 * of heartbeats (periodic; -B: sporadic), -d publisher detection. It ends at the end of stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zenoh-pico.h"

#if Z_FEATURE_ADVANCED_PUBLICATION == 1

#define ADV_OPTIONS "m:e:l:k:c:sb:B:d"

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *key = "zm/adv";
    ze_advanced_publisher_options_t o;
    ze_advanced_publisher_options_default(&o);
    z_owned_config_t config;
    z_config_default(&config);
    int opt;
    while ((opt = getopt(argc, argv, ADV_OPTIONS)) != -1) {
        switch (opt) {
        case 'm':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'l':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_LISTEN_KEY, optarg);
            break;
        case 'k':
            key = optarg;
            break;
        case 'c':
            o.cache.max_samples = strtoul(optarg, NULL, 10);
            o.cache.is_enabled = o.cache.max_samples > 0;
            break;
        case 's':
            o.sample_miss_detection.is_enabled = true;
            break;
        case 'b':
        case 'B':
            o.sample_miss_detection.is_enabled = true;
            o.sample_miss_detection.heartbeat_period_ms = strtoul(optarg, NULL, 10);
            o.sample_miss_detection.heartbeat_mode = opt == 'b' ? ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_PERIODIC
                                                                : ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_SPORADIC;
            break;
        case 'd':
            o.publisher_detection = true;
            break;
        default:
            fprintf(stderr, "usage: zm_adv [-m mode] [-e connect] [-l listen] [-k key] [-c n] [-s] [-b|-B ms] [-d]\n");
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
    ze_owned_advanced_publisher_t pub;
    rc = ze_declare_advanced_publisher(z_loan(s), &pub, z_loan(ke), &o);
    if (rc != Z_OK) {
        printf("declare failed %d\n", rc);
        z_drop(z_move(s));
        return 1;
    }
    printf("ready\n");
    char line[256];
    unsigned next = 0;
    while (fgets(line, sizeof(line), stdin) != NULL) {
        unsigned n;
        if (sscanf(line, "put %u", &n) == 1) {
            for (unsigned i = 0; i < n; i++, next++) {
                char text[300];
                snprintf(text, sizeof(text), "%s #%u", key, next);
                z_owned_bytes_t payload;
                z_bytes_copy_from_str(&payload, text);
                rc = ze_advanced_publisher_put(z_loan(pub), z_move(payload), NULL);
                if (rc != Z_OK) {
                    printf("put failed %d\n", rc);
                }
            }
            printf("put %u\n", n);
        } else if (sscanf(line, "skip %u", &n) == 1) {
            /* the test's hook: the plain publisher inside sends to this session alone for a while */
            z_locality_t was = pub._val.publisher._val.allowed_destination;
            pub._val.publisher._val.allowed_destination = Z_LOCALITY_SESSION_LOCAL;
            for (unsigned i = 0; i < n; i++, next++) {
                char text[300];
                snprintf(text, sizeof(text), "%s #%u", key, next);
                z_owned_bytes_t payload;
                z_bytes_copy_from_str(&payload, text);
                rc = ze_advanced_publisher_put(z_loan(pub), z_move(payload), NULL);
                if (rc != Z_OK) {
                    printf("put failed %d\n", rc);
                }
            }
            pub._val.publisher._val.allowed_destination = was;
            printf("skipped %u\n", n);
        } else if (strncmp(line, "del", 3) == 0) {
            rc = ze_advanced_publisher_delete(z_loan(pub), NULL);
            printf(rc == Z_OK ? "deleted\n" : "delete failed\n");
        }
    }
    rc = ze_undeclare_advanced_publisher(z_move(pub));
    z_drop(z_move(s));
    printf("end %d\n", rc);
    return rc == Z_OK ? 0 : 1;
}

#else
int main(void)
{
    printf("no advanced publishers in this build\n");
    return 3;
}
#endif
