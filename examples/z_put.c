/*
 * z_put: one put, without a publisher, on a key expression declared for the occasion.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_put: -k key, -v value,
 * -e/-m/-l session config. Declaring the key first lets the put travel as a numeric id.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1

#define PUT_OPTIONS "k:v:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to put on", "demo/example/zenoh-pico-put"},
    {'v', "VALUE", "the value put", "Pub from Pico!"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Puts one value on a key expression, without a publisher, and exits.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, const char **value)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PUT_OPTIONS)) != -1) {
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
            return cli_bad_option(PUT_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/zenoh-pico-put";
    const char *value = "Pub from Pico!";
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &value);
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

    printf("Declaring key expression '%s'...\n", keyexpr);
    z_view_keyexpr_t vke;
    if (z_view_keyexpr_from_str(&vke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }
    z_owned_keyexpr_t ke;
    if (z_declare_keyexpr(z_loan(s), &ke, z_loan(vke)) < 0) {
        z_drop(z_move(s));
        return -1;
    }

    /* The value outlives the put, so the payload can alias it instead of copying. */
    z_owned_bytes_t payload;
    z_bytes_from_static_str(&payload, value);
    printf("Putting Data ('%s': '%s')...\n", keyexpr, value);
    if (z_put(z_loan(s), z_loan(ke), z_move(payload), NULL) < 0) {
        printf("Oh no! Put has failed...\n");
    }

    z_undeclare_keyexpr(z_loan(s), z_move(ke));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
