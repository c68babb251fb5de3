/*
 * Size table, app "pubsub": a client with one publisher and one subscriber, its read and lease
 * tasks on threads. It fails (exit status 4) if no sample reached its subscriber.
 * zenoh-pico's API only: the same source builds against either library.
 */
#include "zenoh-pico.h"

static volatile unsigned received;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    received++;
}

int main(void)
{
    z_owned_config_t config;
    z_config_default(&config);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, "serial/uart0#baudrate=115200");
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) < 0) {
        return 1;
    }
    zp_start_read_task(z_loan_mut(s), NULL);
    zp_start_lease_task(z_loan_mut(s), NULL);
    z_view_keyexpr_t kp, ks;
    z_view_keyexpr_from_str(&kp, "demo/zmote/pub");
    z_view_keyexpr_from_str(&ks, "demo/zmote/sub");
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(kp), NULL) < 0) {
        return 2;
    }
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    z_owned_subscriber_t sub;
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(ks), z_move(callback), NULL) < 0) {
        return 3;
    }
    for (int i = 0; i < 100; i++) {
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, "hello");
        z_publisher_put(z_loan(pub), z_move(payload), NULL);
        z_sleep_ms(10);
    }
    z_drop(z_move(sub));
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return received > 0 ? 0 : 4;
}
