/*
 * z_info: opens a session and prints its own id and those of the routers and peers it is
 * connected to; with the connectivity API (Z_FEATURE_CONNECTIVITY), also its transports and
 * links, then their events until interrupted. Flags and printed lines are zenoh-pico 1.9.0's
 * z_info: -e/-m/-l session config.
 */
#include <signal.h>
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

#if Z_FEATURE_CONNECTIVITY == 1
static const char *yes_no(bool b) { return b ? "true" : "false"; }

static void print_text(const z_loaned_string_t *text) { printf("%.*s", (int)z_string_len(text), z_string_data(text)); }

static void print_transport(z_loaned_transport_t *transport, void *ctx)
{
    (void)ctx;
    z_id_t zid = z_transport_zid(transport);
    z_owned_string_t zid_text;
    z_id_to_string(&zid, &zid_text);
    z_view_string_t what;
    z_whatami_to_view_string(z_transport_whatami(transport), &what);
    printf("  transport{zid=");
    print_text(z_loan(zid_text));
    printf(", whatami=");
    print_text(z_loan(what));
    printf(", is_qos=%s, is_multicast=%s, is_shm=%s}\n", yes_no(z_transport_is_qos(transport)),
           yes_no(z_transport_is_multicast(transport)), yes_no(z_transport_is_shm(transport)));
    z_drop(z_move(zid_text));
}

/* Prints ", name=" and the locator, or <n/a> when the link cannot tell it. */
static void print_locator(const char *name, z_result_t got, z_owned_string_t *locator)
{
    printf(", %s=", name);
    if (got == Z_OK) {
        print_text(z_loan(*locator));
        z_drop(z_move(*locator));
    } else {
        printf("<n/a>");
    }
}

static void print_link(z_loaned_link_t *link, void *ctx)
{
    (void)ctx;
    z_id_t zid = z_link_zid(link);
    z_owned_string_t zid_text;
    z_id_to_string(&zid, &zid_text);
    printf("  link{zid=");
    print_text(z_loan(zid_text));
    z_drop(z_move(zid_text));
    z_owned_string_t src;
    z_owned_string_t dst;
    print_locator("src", z_link_src(link, &src), &src);
    print_locator("dst", z_link_dst(link, &dst), &dst);
    z_owned_string_t group;
    z_link_group(link, &group);
    if (z_string_len(z_loan(group)) > 0) {
        printf(", group=");
        print_text(z_loan(group));
    }
    z_drop(z_move(group));
    z_owned_string_t auth;
    z_link_auth_identifier(link, &auth);
    if (z_string_len(z_loan(auth)) > 0) {
        printf(", auth_id=");
        print_text(z_loan(auth));
    }
    z_drop(z_move(auth));
    z_owned_string_array_t ifaces;
    z_link_interfaces(link, &ifaces);
    printf(", interfaces=[");
    for (size_t i = 0; i < z_string_array_len(z_loan(ifaces)); i++) {
        fputs(i > 0 ? ", " : "", stdout);
        print_text(z_string_array_get(z_loan(ifaces), i));
    }
    printf("]");
    z_drop(z_move(ifaces));
    uint8_t lowest;
    uint8_t highest;
    if (z_link_priorities(link, &lowest, &highest)) {
        printf(", priorities=[%u, %u]", (unsigned)lowest, (unsigned)highest);
    }
    z_reliability_t reliability;
    if (z_link_reliability(link, &reliability)) {
        printf(", reliability=%s", reliability == Z_RELIABILITY_RELIABLE ? "reliable" : "best_effort");
    }
    printf(", mtu=%u, is_streamed=%s, is_reliable=%s}\n", (unsigned)z_link_mtu(link),
           yes_no(z_link_is_streamed(link)), yes_no(z_link_is_reliable(link)));
}

static void on_transport_event(z_loaned_transport_event_t *event, void *ctx)
{
    (void)ctx;
    printf(">> [Transport Event] %s:\n", z_transport_event_kind(event) == Z_SAMPLE_KIND_PUT ? "Opened" : "Closed");
    print_transport(z_transport_event_transport_mut(event), NULL);
}

static void on_link_event(z_loaned_link_event_t *event, void *ctx)
{
    (void)ctx;
    printf(">> [Link Event] %s:\n", z_link_event_kind(event) == Z_SAMPLE_KIND_PUT ? "Opened" : "Closed");
    print_link(z_link_event_link_mut(event), NULL);
}

static volatile sig_atomic_t running = 1;

static void on_signal(int signo)
{
    (void)signo;
    running = 0;
}

/* Lists the transports and links, then prints their events until SIGINT or SIGTERM. */
static int follow_connectivity(const z_loaned_session_t *s)
{
    printf("Connected transports:\n");
    z_owned_closure_transport_t transports;
    z_closure(&transports, print_transport, NULL, NULL);
    if (z_info_transports(s, z_move(transports)) < 0) {
        printf("Unable to fetch connected transports\n");
        return -1;
    }
    printf("Connected links:\n");
    z_owned_closure_link_t links;
    z_closure(&links, print_link, NULL, NULL);
    if (z_info_links(s, z_move(links), NULL) < 0) {
        printf("Unable to fetch connected links\n");
        return -1;
    }
    /* no history: what is open was just listed */
    printf("Declaring transport events listener...\n");
    z_owned_closure_transport_event_t on_transport;
    z_closure(&on_transport, on_transport_event, NULL, NULL);
    if (z_declare_background_transport_events_listener(s, z_move(on_transport), NULL) < 0) {
        printf("Unable to declare transport events listener\n");
        return -1;
    }
    printf("Declaring link events listener...\n");
    z_owned_closure_link_event_t on_link;
    z_closure(&on_link, on_link_event, NULL, NULL);
    z_owned_link_events_listener_t link_listener;
    if (z_declare_link_events_listener(s, &link_listener, z_move(on_link), NULL) < 0) {
        printf("Unable to declare link events listener\n");
        return -1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    printf("Press CTRL-C to quit...\n");
    while (running) {
        z_sleep_ms(100);
    }
    z_drop(z_move(link_listener));
    return 0;
}
#endif

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

#if Z_FEATURE_CONNECTIVITY == 1
    ret = follow_connectivity(z_loan(s));
#endif
    z_drop(z_move(s));
    return ret;
}
