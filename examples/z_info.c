/*
 * z_info: opens a session and prints its own id and those of the routers and peers it is
 * connected to. Flags and printed lines are zenoh-pico 1.9.0's z_info (without the connectivity
 * part, which zmote does not have): -e/-m/-l session config.
 */
#include <stdio.h>

#include "cli.h"
#include "zenoh-pico.h"

#define INFO_OPTIONS "e:m:l:h"

static const cli_flag_t FLAGS[] = {CLI_SESSION_FLAGS};
static const char SUMMARY[] =
    "Opens a session and prints its id and those of the routers and peers it is connected to.";

static void print_zid(const z_id_t *id, void *ctx)
{
    (void)ctx;
    z_owned_string_t text;
    z_id_to_string(id, &text);
    printf(" %.*s\n", (int)z_string_len(z_loan(text)), z_string_data(z_loan(text)));
    z_drop(z_move(text));
}

static int parse_args(int argc, char **argv, z_owned_config_t *config)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, INFO_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        if (opt == 'h' || opt == CLI_LONG_HELP) {
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        }
        if (opt == '?') {
            return cli_bad_option(INFO_OPTIONS);
        }
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config);
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

    z_id_t self_id = z_info_zid(z_loan(s));
    printf("Own ID:");
    print_zid(&self_id, NULL);

    printf("Routers IDs:\n");
    z_owned_closure_zid_t callback;
    z_closure(&callback, print_zid, NULL, NULL);
    z_info_routers_zid(z_loan(s), z_move(callback));

    printf("Peers IDs:\n");
    z_owned_closure_zid_t callback2;
    z_closure(&callback2, print_zid, NULL, NULL);
    z_info_peers_zid(z_loan(s), z_move(callback2));

    z_drop(z_move(s));
    return 0;
}
