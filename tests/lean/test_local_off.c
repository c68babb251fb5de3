/*
 * A build without local subscribers (Z_FEATURE_LOCAL_SUBSCRIBER=0, built with that option by
 * tests/CMakeLists.txt): as in zenoh-pico, a session's puts and deletes, through z_put or a
 * publisher, never reach its own subscribers, however well their keys match.
 */
#include "query_util.h"

_Static_assert(Z_FEATURE_LOCAL_SUBSCRIBER == 0, "this test needs a build without local subscribers");

static atomic_uint delivered;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)sample;
    (void)ctx;
    atomic_fetch_add(&delivered, 1u);
}

int main(void)
{
    char listen[64];
    snprintf(listen, sizeof(listen), "tcp/127.0.0.1:%u", (unsigned)free_port());
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, "peer");
    zp_config_insert(z_loan_mut(c), Z_CONFIG_LISTEN_KEY, listen);
    z_owned_session_t s;
    CHECK_EQ_INT(z_open(&s, z_move(c), NULL), Z_OK);

    z_view_keyexpr_t all, key;
    z_view_keyexpr_from_str(&all, "local/**");
    z_view_keyexpr_from_str(&key, "local/x");
    z_owned_closure_sample_t cb;
    z_closure(&cb, on_sample, NULL, NULL);
    z_owned_subscriber_t sub;
    CHECK_EQ_INT(z_declare_subscriber(z_loan(s), &sub, z_loan(all), z_move(cb), NULL), Z_OK);

    z_owned_bytes_t p;
    z_bytes_from_static_str(&p, "here");
    CHECK_EQ_INT(z_put(z_loan(s), z_loan(key), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(z_delete(z_loan(s), z_loan(key), NULL), Z_OK);
    z_owned_publisher_t pub;
    CHECK_EQ_INT(z_declare_publisher(z_loan(s), &pub, z_loan(key), NULL), Z_OK);
    z_bytes_from_static_str(&p, "published");
    CHECK_EQ_INT(z_publisher_put(z_loan(pub), z_move(p), NULL), Z_OK);
    CHECK_EQ_INT(z_publisher_delete(z_loan(pub), NULL), Z_OK);
    /* delivery, had there been any, would have happened on this thread, before each call returned */
    CHECK_EQ_INT(atomic_load(&delivered), 0);

    z_drop(z_move(pub));
    z_drop(z_move(sub));
    z_drop(z_move(s));
    return CHECK_DONE();
}
