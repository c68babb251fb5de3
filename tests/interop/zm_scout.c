/*
 * zm_scout: the zmote end of test_scout.py, through the public API only. Without -o it runs
 * z_scout and prints one line per node found, then how it ended with its result code; with -o it
 * opens a session instead (a client or peer without endpoints scouts for one), prints the result
 * and the zid and the routers and peers it reached, then waits for "stop" or the end of stdin.
 *
 *   zm_scout [-o] [-m MODE] [-e EP] [-l EP] [-L SCOUT_LOCATOR] [-t MS] [-w WHAT] [-n]
 *
 * -w passes a what mask and -t a timeout (through z_scout_options_t with -n, else through the
 * configuration). Lines: `hello zid=<hex> whatami=<Name> locators=<l1,l2>`, `scout rc=<rc>
 * found=<n> dropped=<n>`, `open rc=<rc>`, `zid <hex>`, `router <hex>`, `peer <hex>`, `done`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zenoh-pico.h"

#if Z_FEATURE_SCOUTING == 1
#define SCOUT_OPTIONS "om:e:l:L:t:w:n"

typedef struct {
    int found;
    int dropped;
} tally_t;

static void print_id(const z_id_t *id)
{
    z_owned_string_t text;
    if (z_id_to_string(id, &text) == Z_OK) {
        printf("%.*s", (int)z_string_len(z_loan(text)), z_string_data(z_loan(text)));
        z_drop(z_move(text));
    }
}

static void on_hello(z_loaned_hello_t *hello, void *ctx)
{
    tally_t *t = ctx;
    t->found++;
    z_id_t zid = z_hello_zid(hello);
    z_view_string_t what;
    z_whatami_to_view_string(z_hello_whatami(hello), &what);
    printf("hello zid=");
    print_id(&zid);
    printf(" whatami=%.*s locators=", (int)z_string_len(z_loan(what)), z_string_data(z_loan(what)));
    const z_loaned_string_array_t *locs = zp_hello_locators(hello);
    for (size_t i = 0; i < z_string_array_len(locs); i++) {
        const z_loaned_string_t *l = z_string_array_get(locs, i);
        printf("%s%.*s", i > 0 ? "," : "", (int)z_string_len(l), z_string_data(l));
    }
    printf("\n");
}

static void on_drop(void *ctx) { ((tally_t *)ctx)->dropped++; }

static void print_peer(const z_id_t *id, void *ctx)
{
    printf("%s ", (const char *)ctx);
    print_id(id);
    printf("\n");
}

static int run_open(z_owned_config_t *config)
{
    z_owned_session_t s;
    z_result_t rc = z_open(&s, z_move(*config), NULL);
    printf("open rc=%d\n", (int)rc);
    if (rc != Z_OK) {
        return 1;
    }
    z_id_t zid = z_info_zid(z_loan(s));
    printf("zid ");
    print_id(&zid);
    printf("\n");
    z_owned_closure_zid_t routers, peers;
    z_closure(&routers, print_peer, NULL, "router");
    z_info_routers_zid(z_loan(s), z_move(routers));
    z_closure(&peers, print_peer, NULL, "peer");
    z_info_peers_zid(z_loan(s), z_move(peers));
    printf("ready\n");
    char line[64];
    while (fgets(line, sizeof(line), stdin) != NULL && strncmp(line, "stop", 4) != 0) {
    }
    z_drop(z_move(s));
    printf("done\n");
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    z_owned_config_t config;
    z_config_default(&config);
    bool open = false, with_options = false;
    const char *timeout = NULL, *what = NULL;
    int opt;
    while ((opt = getopt(argc, argv, SCOUT_OPTIONS)) != -1) {
        switch (opt) {
        case 'o':
            open = true;
            break;
        case 'm':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, optarg);
            break;
        case 'e':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, optarg);
            break;
        case 'l':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_LISTEN_KEY, optarg);
            break;
        case 'L':
            zp_config_insert(z_loan_mut(config), Z_CONFIG_MULTICAST_LOCATOR_KEY, optarg);
            break;
        case 't':
            timeout = optarg;
            break;
        case 'w':
            what = optarg;
            break;
        case 'n':
            with_options = true;
            break;
        default:
            fprintf(stderr, "usage: zm_scout [-o] [-m MODE] [-e EP] [-l EP] [-L LOCATOR] [-t MS] [-w WHAT] [-n]\n");
            z_drop(z_move(config));
            return 2;
        }
    }
    z_scout_options_t options;
    z_scout_options_default(&options);
    if (with_options) {
        options.timeout_ms = timeout != NULL ? (uint32_t)strtoul(timeout, NULL, 10) : options.timeout_ms;
        options.what = what != NULL ? (z_what_t)atoi(what) : options.what;
    } else {
        if (timeout != NULL) {
            zp_config_insert(z_loan_mut(config), Z_CONFIG_SCOUTING_TIMEOUT_KEY, timeout);
        }
        if (what != NULL) {
            zp_config_insert(z_loan_mut(config), Z_CONFIG_SCOUTING_WHAT_KEY, what);
        }
    }
    if (open) {
        return run_open(&config);
    }
    tally_t t = {0, 0};
    z_owned_closure_hello_t closure;
    z_closure(&closure, on_hello, on_drop, &t);
    z_result_t rc = z_scout(z_move(config), z_move(closure), with_options ? &options : NULL);
    printf("scout rc=%d found=%d dropped=%d\n", (int)rc, t.found, t.dropped);
    return rc == Z_OK ? 0 : 1;
}
#else
int main(void)
{
    printf("zm_scout: built without Z_FEATURE_SCOUTING\n");
    return 2;
}
#endif
