/*
 * Command-line handling shared by the examples. Each example keeps zenoh-pico's flags and
 * messages exactly (benchmark scripts drive both side by side), so the three options every
 * example accepts and getopt's error report are written once here, as static inline helpers.
 */
#ifndef ZM_EXAMPLES_CLI_H
#define ZM_EXAMPLES_CLI_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "zenoh-pico.h"

/*
 * Applies -e (connect, appends), -m (mode, replaces) or -l (listen, replaces) to the config.
 * Returns true when opt was one of them.
 */
static inline bool cli_config_option(z_owned_config_t *config, int opt, const char *arg)
{
    switch (opt) {
    case 'e':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_CONNECT_KEY, arg);
        return true;
    case 'm':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_MODE_KEY, arg);
        return true;
    case 'l':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_LISTEN_KEY, arg);
        return true;
    default:
        return false;
    }
}

/*
 * Reports what getopt refused ('?'), in zenoh-pico's words: an option that takes an argument
 * (one followed by ':' in optstring) lacked it, or the option is unknown. Returns 1, the exit
 * status the examples give for a bad command line.
 */
static inline int cli_bad_option(const char *optstring)
{
    const char *at = (optopt != 0 && optopt != ':') ? strchr(optstring, optopt) : NULL;
    if (at != NULL && at[1] == ':') {
        fprintf(stderr, "Option -%c requires an argument.\n", optopt);
    } else {
        fprintf(stderr, "Unknown option `-%c'.\n", optopt);
    }
    return 1;
}

#endif /* ZM_EXAMPLES_CLI_H */
