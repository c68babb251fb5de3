/*
 * zmote-hello: a program built apart from zmote, against its installed package (find_package or
 * pkg-config) or its source tree (add_subdirectory). It subscribes to a key, puts one sample on
 * it and prints what its own subscriber received: a session's puts reach its own subscribers
 * (Z_FEATURE_LOCAL_SUBSCRIBER), at once, before z_put returns. Alone it is a peer listening on a
 * loopback port the system picks; given a Zenoh router's endpoint, a client of that router, and
 * the router's other clients and peers see the put too.
 *
 * usage: zmote-hello [ENDPOINT]     exits 0 once its subscriber has the sample
 */
#include <stdatomic.h>
#include <stdio.h>

#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1 && Z_FEATURE_SUBSCRIPTION == 1 && Z_FEATURE_LOCAL_SUBSCRIBER == 1

#define KEY "demo/zmote/hello"

/* Atomic: with a router, samples others put on the key arrive on the session's read task. */
static atomic_int received;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    z_owned_string_t value;
    z_bytes_to_string(z_sample_payload(sample), &value);
    printf("received '%.*s': '%.*s'\n", (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)),
           (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
    z_drop(z_move(value));
    atomic_fetch_add(&received, 1);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("zmote %s, zenoh-pico API %s\n", ZMOTE_VERSION, ZENOH_PICO);

    z_owned_config_t config;
    z_config_default(&config);
    if (argc > 1) {
        zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, "client");
        zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, argv[1]);
    } else {
        zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, "peer");
        zp_config_insert(z_loan_mut(config), Z_CONFIG_LISTEN_KEY, "tcp/127.0.0.1:0");
    }
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) < 0) {
        printf("cannot open a session%s%s\n", argc > 1 ? " with " : "", argc > 1 ? argv[1] : "");
        return 1;
    }

    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str_unchecked(&ke, KEY);
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ke), z_move(callback), NULL) < 0) {
        printf("cannot declare a subscriber\n");
        z_drop(z_move(s));
        return 1;
    }

    z_owned_bytes_t payload;
    z_bytes_copy_from_str(&payload, "Hello from zmote!");
    int rc = z_put(z_loan(s), z_loan(ke), z_move(payload), NULL);

    z_drop(z_move(sub));
    z_drop(z_move(s));
    if (rc < 0 || atomic_load(&received) == 0) {
        printf("put %s, but the subscriber got nothing\n", rc < 0 ? "failed" : "done");
        return 1;
    }
    return 0;
}

#else
int main(void)
{
    printf("zmote-hello needs Z_FEATURE_PUBLICATION, Z_FEATURE_SUBSCRIPTION and Z_FEATURE_LOCAL_SUBSCRIBER\n");
    return 1;
}
#endif
