/*
 * Size table, app "pub": a publisher-only client on one thread. Opens a client session over a
 * serial line, declares a publisher and puts in a loop, driving the session with zp_read and
 * zp_send_keep_alive; it fails (exit status 3) on a put that fails. zenoh-pico's API only: the
 * same source builds against either library.
 */
#include "zenoh-pico.h"

int main(void)
{
    z_owned_config_t config;
    z_config_default(&config);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, "serial/uart0#baudrate=115200");
    z_owned_session_t s;
    if (z_open(&s, z_move(config), NULL) < 0) {
        return 1;
    }
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, "demo/zmote/pub");
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ke), NULL) < 0) {
        return 2;
    }
    for (int i = 0; i < 100; i++) {
        zp_read(z_loan(s), NULL);
        zp_send_keep_alive(z_loan(s), NULL);
        z_owned_bytes_t payload;
        z_bytes_copy_from_str(&payload, "hello");
        if (z_publisher_put(z_loan(pub), z_move(payload), NULL) < 0) {
            return 3;
        }
    }
    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}
