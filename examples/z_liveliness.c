/*
 * z_liveliness: declares a liveliness token, keeps it alive, then undeclares it.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_liveliness: -k key, -t seconds to
 * keep the token (0: until killed), -e/-m/-l session config. Killing the program makes the token
 * go too: its peers notice the session is gone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_LIVELINESS == 1

#define LIVELINESS_OPTIONS "k:t:e:m:l:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression of the token", "group1/zenoh-pico"},
    {'t', "SECONDS", "undeclare the token after SECONDS, 0 for never", "0"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Declares a liveliness token, keeps it alive, then undeclares it.";

static int parse_args(int argc, char **argv, z_owned_config_t *config, const char **key, unsigned long *timeout)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, LIVELINESS_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            *key = optarg;
            break;
        case 't':
            if (!cli_ulong(opt, optarg, 0, 4294967295ul, timeout)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(LIVELINESS_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *keyexpr = "group1/zenoh-pico";
    unsigned long timeout = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &keyexpr, &timeout);
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

    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, keyexpr) < 0) {
        printf("%s is not a valid key expression\n", keyexpr);
        z_drop(z_move(s));
        return -1;
    }

    printf("Declaring liveliness token '%s'...\n", keyexpr);
    z_owned_liveliness_token_t token;
    if (z_liveliness_declare_token(z_loan(s), &token, z_loan(ke), NULL) < 0) {
        printf("Unable to create liveliness token!\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to undeclare liveliness token and quit...\n");
    z_clock_t clock = z_clock_now();
    while (timeout == 0 || z_clock_elapsed_s(&clock) < timeout) {
        z_sleep_ms(100);
    }

    /* dropping the token undeclares it; so would closing the session */
    printf("Undeclaring liveliness token...\n");
    z_drop(z_move(token));

    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("liveliness", "-DZ_FEATURE_LIVELINESS=1");
}
#endif
