/*
 * z_pub_st: z_pub without the session's tasks, as a single-thread build (Z_FEATURE_MULTI_THREAD
 * == 0) has to run it. The loop itself drives the session: it naps 50 ms, lets the session do one
 * step of its work (zp_spin_once), and puts once a second. Flags and lines are zenoh-pico 1.9.0's.
 * A threaded build runs it too: the session is opened without its read and lease tasks.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1

#define PUB_OPTIONS "k:v:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to publish on", "demo/example/zenoh-pico-pub"},
    {'v', "VALUE", "the value put, after its number", "Pub from Pico!"},
    {'n', "COUNT", "puts before exiting", "no limit"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "z_pub driven by its own loop (zp_spin_once), without the session's tasks.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, const char **value,
                      int *count)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PUB_OPTIONS)) != -1) {
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
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, count)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(PUB_OPTIONS);
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
    int count = INT_MAX;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &value, &count);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }

    printf("Opening session...\n");
    z_owned_session_t s;
    z_open_options_t options;
    z_open_options_default(&options);
#if Z_FEATURE_MULTI_THREAD == 1
    options.auto_start_read_task = false; /* zp_spin_once below does their work */
#endif
    z_result_t opened = z_open(&s, z_move(config), &options);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }

    printf("Declaring publisher for '%s'...\n", keyexpr);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ke), NULL) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    char text[256];
    z_clock_t last = z_clock_now();
    for (int idx = 0; idx < count;) {
        if (z_clock_elapsed_ms(&last) > 1000) {
            snprintf(text, sizeof text, "[%4d] %s", idx, value);
            printf("Putting Data ('%s': '%s')...\n", keyexpr, text);
            z_owned_bytes_t payload;
            z_bytes_copy_from_str(&payload, text);
            z_publisher_put(z_loan(pub), z_move(payload), NULL);
            ++idx;
            last = z_clock_now();
        }
        z_sleep_ms(50);
        zp_spin_once(z_loan(s));
    }

    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
