/*
 * Size table, app "full": a client with a publisher, a subscriber, a queryable, a get and a
 * liveliness token, its read and lease tasks on threads. It fails (exit status 6) if no sample
 * reached its subscriber or no reply its gets. zenoh-pico's API only: the same source builds
 * against either library.
 */
#include "zenoh-pico.h"

static volatile unsigned received;
static volatile unsigned replies;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    received++;
}

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    z_owned_bytes_t payload;
    z_bytes_copy_from_str(&payload, "answer");
    z_query_reply(query, z_query_keyexpr(query), z_move(payload), NULL);
}

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    if (z_reply_is_ok(reply)) {
        replies++;
    }
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
    z_view_keyexpr_t kp, ks, kq;
    z_view_keyexpr_from_str(&kp, "demo/zmote/pub");
    z_view_keyexpr_from_str(&ks, "demo/zmote/sub");
    z_view_keyexpr_from_str(&kq, "demo/zmote/q");
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
    z_owned_closure_query_t qcb;
    z_closure(&qcb, on_query, NULL, NULL);
    z_owned_queryable_t qbl;
    if (z_declare_queryable(z_loan(s), &qbl, z_loan(kq), z_move(qcb), NULL) < 0) {
        return 4;
    }
    z_owned_liveliness_token_t token;
    if (z_liveliness_declare_token(z_loan(s), &token, z_loan(kp), NULL) < 0) {
        return 5;
    }
    for (int i = 0; i < 100; i++) {
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, "hello");
        z_publisher_put(z_loan(pub), z_move(payload), NULL);
        z_owned_closure_reply_t rcb;
        z_closure(&rcb, on_reply, NULL, NULL);
        z_get(z_loan(s), z_loan(kq), "", z_move(rcb), NULL);
        z_sleep_ms(10);
    }
    z_drop(z_move(token));
    z_drop(z_move(qbl));
    z_drop(z_move(sub));
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return received > 0 && replies > 0 ? 0 : 6;
}
