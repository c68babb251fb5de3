/*
 * zmote-mcu: a Zenoh client on a microcontroller. It opens a session over the serial link on
 * UART0, declares a publisher and a subscriber, publishes FW_PUT_COUNT samples and prints each
 * sample it receives on the console (UART1), driving the session from its own loop with zp_read
 * and zp_send_keep_alive. It ends once it has sent them all and received FW_EXPECT samples, or at
 * FW_TIMEOUT_MS, and prints its memory figures before QEMU exits with the status below.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "zenoh-pico.h"
#include "zmote_baremetal.h"

#ifndef FW_LOCATOR
#define FW_LOCATOR "serial/uart0#baudrate=115200"
#endif
#ifndef FW_PUB_KEY
#define FW_PUB_KEY "demo/example/zmote-mcu"
#endif
#ifndef FW_SUB_KEY
#define FW_SUB_KEY "demo/example/zmote-host/**"
#endif
#ifndef FW_PUT_COUNT
#define FW_PUT_COUNT 10
#endif
#ifndef FW_PUT_PERIOD_MS
#define FW_PUT_PERIOD_MS 100u
#endif
#ifndef FW_EXPECT
#define FW_EXPECT 5
#endif
#ifndef FW_TIMEOUT_MS
#define FW_TIMEOUT_MS 30000u
#endif

/* Exit statuses beyond board.h's. */
#define EXIT_NO_SESSION 8  /* z_open failed */
#define EXIT_DECLARE 9     /* a declaration failed */
#define EXIT_TIMEOUT 10    /* FW_TIMEOUT_MS passed first */

static uint32_t received;

/* Prints the sample without allocating: the payload is read in pieces into a small buffer. */
static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    z_view_string_t key;
    z_keyexpr_as_view_string(z_sample_keyexpr(sample), &key);
    char line[96];
    size_t n = z_string_len(z_loan(key));
    n = n < sizeof(line) - 1u ? n : sizeof(line) - 1u;
    memcpy(line, z_string_data(z_loan(key)), n);
    line[n] = '\0';
    board_puts(">> [Subscriber] Received ('");
    board_puts(line);
    board_puts("': '");
    z_bytes_reader_t reader = z_bytes_get_reader(z_sample_payload(sample));
    while ((n = z_bytes_reader_read(&reader, (uint8_t *)line, sizeof(line) - 1u)) > 0) {
        line[n] = '\0';
        board_puts(line);
    }
    board_puts("')\n");
    received++;
}

static void put_sample(const z_loaned_publisher_t *pub, uint32_t idx)
{
    /* "[   n] Pub from zmote MCU!" as z_pub prints it, without stdio. */
    char text[] = "[    ] Pub from zmote MCU!";
    size_t pos = 4;
    do {
        text[pos--] = (char)('0' + idx % 10u);
        idx /= 10u;
    } while (idx > 0u && pos > 0u);
    board_puts("Putting Data ('" FW_PUB_KEY "': '");
    board_puts(text);
    board_puts("')...\n");
    z_owned_bytes_t payload;
    if (z_bytes_copy_from_str(&payload, text) == Z_OK) {
        z_result_t r = z_publisher_put(pub, z_move(payload), NULL);
        if (r != Z_OK) {
            board_puts("zmote-mcu: put failed: ");
            board_put_i32(r);
            board_puts("\n");
        }
    }
}

/* The figures the test log shows: heap, stack and static RAM. */
static void report_memory(void)
{
    zm_baremetal_heap_stats_t h;
    zm_baremetal_heap_stats(&h);
    board_puts("mem: heap peak=");
    board_put_u32((uint32_t)h.peak);
    board_puts(" in_use=");
    board_put_u32((uint32_t)h.in_use);
    board_puts(" allocs=");
    board_put_u32(h.allocs);
    board_puts(" failures=");
    board_put_u32(h.failures);
    board_puts(" sbrk=");
    board_put_u32((uint32_t)board_heap_extent());
    board_puts("\nmem: stack peak=");
    board_put_u32((uint32_t)(board_stack_size() - board_stack_unused()));
    board_puts(" size=");
    board_put_u32((uint32_t)board_stack_size());
    board_puts("\nmem: static data=");
    board_put_u32((uint32_t)board_static_data());
    board_puts(" bss=");
    board_put_u32((uint32_t)board_static_bss());
    board_puts("\nmem: uart0 rx_dropped=");
    board_put_u32(board_uart0_rx_dropped());
    board_puts("\n");
    /* no heap: the library's pools, each with its blocks in use now and at the most */
    zm_pool_stat_t pools[8];
    size_t n = zm_pool_stats(pools, 8);
    for (size_t i = 0; i < n && i < 8; i++) {
        board_puts("mem: pool size=");
        board_put_u32((uint32_t)pools[i].size);
        board_puts(" count=");
        board_put_u32((uint32_t)pools[i].count);
        board_puts(" used=");
        board_put_u32((uint32_t)pools[i].used);
        board_puts(" peak=");
        board_put_u32((uint32_t)pools[i].peak);
        board_puts("\n");
    }
}

static int finish(int status)
{
    report_memory();
    board_puts("zmote-mcu: exit ");
    board_put_i32(status);
    board_puts("\n");
    return status;
}

static int run(void)
{
    z_owned_config_t config;
    z_config_default(&config);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, Z_CONFIG_MODE_CLIENT);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, FW_LOCATOR);

    board_puts("zmote-mcu: opening session on " FW_LOCATOR "\n");
    z_owned_session_t s;
    z_result_t r = z_open(&s, z_move(config), NULL);
    if (r != Z_OK) {
        board_puts("zmote-mcu: z_open failed: ");
        board_put_i32(r);
        board_puts("\n");
        return EXIT_NO_SESSION;
    }
    board_puts("zmote-mcu: session open\n");

    z_view_keyexpr_t pub_ke;
    z_view_keyexpr_t sub_ke;
    z_owned_publisher_t pub;
    z_owned_subscriber_t sub;
    z_owned_closure_sample_t callback;
    z_closure(&callback, on_sample, NULL, NULL);
    if (z_view_keyexpr_from_str(&pub_ke, FW_PUB_KEY) != Z_OK ||
        z_view_keyexpr_from_str(&sub_ke, FW_SUB_KEY) != Z_OK ||
        z_declare_subscriber(z_loan(s), &sub, z_loan(sub_ke), z_move(callback), NULL) != Z_OK) {
        board_puts("zmote-mcu: cannot declare the subscriber on " FW_SUB_KEY "\n");
        z_drop(z_move(callback));
        z_drop(z_move(s));
        return EXIT_DECLARE;
    }
    if (z_declare_publisher(z_loan(s), &pub, z_loan(pub_ke), NULL) != Z_OK) {
        board_puts("zmote-mcu: cannot declare the publisher on " FW_PUB_KEY "\n");
        z_drop(z_move(sub));
        z_drop(z_move(s));
        return EXIT_DECLARE;
    }
    board_puts("zmote-mcu: declared publisher " FW_PUB_KEY " and subscriber " FW_SUB_KEY "\n");

    uint32_t sent = 0;
    z_clock_t start = z_clock_now();
    z_clock_t last_put = start;
    int status = BOARD_EXIT_OK;
    while (sent < FW_PUT_COUNT || received < FW_EXPECT) {
        if (z_clock_elapsed_ms(&start) >= FW_TIMEOUT_MS) {
            status = EXIT_TIMEOUT;
            break;
        }
        /* zp_read waits up to Z_CONFIG_SOCKET_TIMEOUT for a batch and delivers it here. */
        r = zp_read(z_loan(s), NULL);
        if (r < 0 && r != ZM_E_TIMEOUT && r != Z_ETIMEDOUT) {
            board_puts("zmote-mcu: zp_read: ");
            board_put_i32(r);
            board_puts("\n");
        }
        (void)zp_send_keep_alive(z_loan(s), NULL);
        if (sent < FW_PUT_COUNT && z_clock_elapsed_ms(&last_put) >= FW_PUT_PERIOD_MS) {
            put_sample(z_loan(pub), sent);
            sent++;
            last_put = z_clock_now();
        }
    }
    board_puts("zmote-mcu: sent ");
    board_put_u32(sent);
    board_puts(", received ");
    board_put_u32(received);
    board_puts("\n");

    z_drop(z_move(pub));
    z_drop(z_move(sub));
    z_drop(z_move(s));
    return status;
}

int main(void)
{
    board_puts("zmote-mcu: boot, mps2-an386\n");
    return finish(run());
}
