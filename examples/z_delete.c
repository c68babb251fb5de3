/*
 * z_delete: tells the subscribers of a key expression that its value is gone (a DELETE
 * sample). zenoh-pico 1.9.0 ships no such example; this one follows its z_put: flags -k key and
 * -e/-m/-l session config, the same opening lines, and a delete where z_put puts.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1

#define DELETE_OPTIONS "k:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to delete", "demo/example/zenoh-pico-delete"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Deletes the value of a key expression: its subscribers receive a DELETE sample.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, DELETE_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(DELETE_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "demo/example/zenoh-pico-delete";
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

    printf("Deleting resources matching '%s'...\n", keyexpr);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }
    if (z_delete(z_loan(s), z_loan(ke), NULL) < 0) {
        printf("Oh no! Delete has failed...\n");
    }

    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
