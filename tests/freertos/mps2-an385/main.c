/*
 * zmote-freertos: a threaded Zenoh client on FreeRTOS (mps2-an385, Cortex-M3). The application
 * task opens a session on FW_LOCATOR (a serial line on UART0, or TCP or UDP through FreeRTOS+TCP
 * on the board's LAN9118), whose read and lease tasks port/freertos starts; it declares a subscriber, a
 * publisher, a queryable and a liveliness token, gets from the host's queryable, publishes
 * FW_PUT_COUNT samples and waits for FW_EXPECT samples, a reply and a query. With FW_RECONNECT
 * it then keeps publishing until it hears again from the host after the router's restart. It
 * prints its memory figures (every task's stack high-water mark before the session closes, the
 * kernel heap's low-water mark) before QEMU exits with the status below.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "cortex_m.h"
#include "task.h"
#include "zenoh-pico.h"
#if FW_IP
#include "FreeRTOS_ARP.h"
#include "FreeRTOS_IP.h"
#endif

/* The serial line on UART0, or the host's router through QEMU's user-mode network (for TCP, a
 * guestfwd maps 10.0.2.100:7447 there; for UDP, 10.0.2.2 is the host). A locator given on QEMU's
 * semihosting command line (-semihosting-config arg=...) takes the place of FW_LOCATOR. */
#ifndef FW_LOCATOR
#if FW_IP
#define FW_LOCATOR "tcp/10.0.2.100:7447"
#else
#define FW_LOCATOR "serial/uart0#baudrate=115200"
#endif
#endif
#define PUB_KEY "demo/example/zmote-mcu"
#define SUB_KEY "demo/example/zmote-host/**"
#define QUERYABLE_KEY "demo/example/zmote-mcu/q"
#define TOKEN_KEY "demo/example/zmote-mcu/alive"
#define GET_KEY "demo/example/zmote-host/q"
#define PUT_COUNT 10u
#define PUT_PERIOD_MS 100u
#define EXPECT 5u
#ifndef FW_TIMEOUT_MS
#define FW_TIMEOUT_MS 60000u
#endif
#define APP_STACK_BYTES 4096u
#define APP_PRIORITY 1u

#define EXIT_NO_SESSION 8
#define EXIT_DECLARE 9
#define EXIT_TIMEOUT 10
#define EXIT_NO_NETWORK 11

#define SEMIHOST_SYS_GET_CMDLINE 0x15u

static volatile uint32_t received;
static volatile uint32_t received_after_restart;
static volatile uint32_t queries;
static volatile uint32_t replies;
static volatile bool restarting;

static void print_bytes(const z_loaned_bytes_t *bytes)
{
    char chunk[64];
    size_t n;
    z_bytes_reader_t reader = z_bytes_get_reader(bytes);
    while ((n = z_bytes_reader_read(&reader, (uint8_t *)chunk, sizeof(chunk) - 1u)) > 0) {
        chunk[n] = '\0';
        board_puts(chunk);
    }
}

static void print_key(const z_loaned_keyexpr_t *ke)
{
    z_view_string_t key;
    z_keyexpr_as_view_string(ke, &key);
    char line[96];
    size_t n = z_string_len(z_loan(key));
    n = n < sizeof(line) - 1u ? n : sizeof(line) - 1u;
    memcpy(line, z_string_data(z_loan(key)), n);
    line[n] = '\0';
    board_puts(line);
}

/* A line of the console is written in pieces, by the application task and by zmote's read task:
 * no task switch in the middle of one, so that the host reads every line whole. */
static void line_begin(void) { vTaskSuspendAll(); }
static void line_end(void) { (void)xTaskResumeAll(); }

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    (void)ctx;
    line_begin();
    board_puts(">> [Subscriber] Received ('");
    print_key(z_sample_keyexpr(sample));
    board_puts("': '");
    print_bytes(z_sample_payload(sample));
    board_puts("')\n");
    line_end();
    received++;
    if (restarting) {
        received_after_restart++;
    }
}

static void on_query(z_loaned_query_t *query, void *ctx)
{
    (void)ctx;
    line_begin();
    board_puts(">> [Queryable] Received query ('");
    print_key(z_query_keyexpr(query));
    board_puts("')\n");
    line_end();
    z_owned_bytes_t payload;
    if (z_bytes_copy_from_str(&payload, "reply from FreeRTOS") == Z_OK &&
        z_query_reply(query, z_query_keyexpr(query), z_move(payload), NULL) == Z_OK) {
        queries++;
    }
}

static void on_reply(z_loaned_reply_t *reply, void *ctx)
{
    (void)ctx;
    if (!z_reply_is_ok(reply)) {
        board_puts(">> [Get] Received an error\n");
        return;
    }
    const z_loaned_sample_t *sample = z_reply_ok(reply);
    line_begin();
    board_puts(">> [Get] Received ('");
    print_key(z_sample_keyexpr(sample));
    board_puts("': '");
    print_bytes(z_sample_payload(sample));
    board_puts("')\n");
    line_end();
    replies++;
}

static void put_sample(const z_loaned_publisher_t *pub, uint32_t idx, const char *what)
{
    char text[48] = "[    ] "; /* "[   n] what", as zenoh-pico's examples print it */
    size_t pos = 4;
    uint32_t v = idx;
    do {
        text[pos--] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v > 0u && pos > 0u);
    strncat(text, what, sizeof(text) - strlen(text) - 1u);
    z_owned_bytes_t payload;
    if (z_bytes_copy_from_str(&payload, text) == Z_OK) {
        z_result_t r = z_publisher_put(pub, z_move(payload), NULL);
        if (r != Z_OK) {
            board_puts("zmote-freertos: put failed: ");
            board_put_i32(r);
            board_puts("\n");
        }
    }
}

/* Free bytes of the kernel's heap before the session opened. */
static size_t heap_free_before_open;

/* The figures the test log shows: each task's unused stack (the session's tasks still alive). */
static void report_tasks(void)
{
    TaskStatus_t tasks[12];
    UBaseType_t n = uxTaskGetSystemState(tasks, 12, NULL);
    for (UBaseType_t i = 0; i < n; i++) {
        board_puts("mem: task name=");
        board_puts(tasks[i].pcTaskName);
        board_puts(" stack_unused=");
        board_put_u32((uint32_t)(tasks[i].usStackHighWaterMark * sizeof(StackType_t)));
        board_puts("\n");
    }
}

/* And the kernel heap's: its size, its free bytes before the session opened, at the fullest and now. */
static void report_heap(void)
{
    board_puts("mem: heap total=");
    board_put_u32(configTOTAL_HEAP_SIZE);
    board_puts(" free_before_open=");
    board_put_u32((uint32_t)heap_free_before_open);
    board_puts(" min_free=");
    board_put_u32((uint32_t)xPortGetMinimumEverFreeHeapSize());
    board_puts(" free=");
    board_put_u32((uint32_t)xPortGetFreeHeapSize());
    board_puts("\nmem: uart0 rx_dropped=");
    board_put_u32(board_uart0_rx_dropped());
    board_puts("\n");
}

static bool wait_for(const volatile uint32_t *count, uint32_t want, z_clock_t *start)
{
    while (*count < want) {
        if (z_clock_elapsed_ms(start) >= FW_TIMEOUT_MS) {
            return false;
        }
        z_sleep_ms(20);
    }
    return true;
}

/* The last word of the semihosting command line if it is a locator, else FW_LOCATOR. */
static const char *locator(void)
{
    static char line[96];
    struct {
        char *buf;
        uint32_t len;
    } block = {line, sizeof(line) - 1u};
    if (semihost_call(SEMIHOST_SYS_GET_CMDLINE, &block) != 0u || block.len >= sizeof(line)) {
        return FW_LOCATOR;
    }
    line[block.len] = '\0';
    char *word = strrchr(line, ' ');
    word = word != NULL ? word + 1 : line;
    return strncmp(word, "tcp/", 4) == 0 || strncmp(word, "udp/", 4) == 0 || strncmp(word, "serial/", 7) == 0
               ? word
               : FW_LOCATOR;
}

static int run(void)
{
    const char *where = locator();
    z_owned_config_t config;
    z_config_default(&config);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, Z_CONFIG_MODE_CLIENT);
    zp_config_insert(z_loan_mut(config), Z_CONFIG_CONNECT_KEY, where);

    board_puts("zmote-freertos: opening session on ");
    board_puts(where);
    board_puts("\n");
    heap_free_before_open = xPortGetFreeHeapSize();
    z_owned_session_t s;
    z_result_t r = z_open(&s, z_move(config), NULL);
    if (r != Z_OK) {
        board_puts("zmote-freertos: z_open failed: ");
        board_put_i32(r);
        board_puts("\n");
        return EXIT_NO_SESSION;
    }
    board_puts("zmote-freertos: session open\n");

    z_view_keyexpr_t pub_ke, sub_ke, q_ke, token_ke, get_ke;
    z_owned_publisher_t pub;
    z_owned_subscriber_t sub;
    z_owned_queryable_t qable;
    z_owned_liveliness_token_t token;
    z_owned_closure_sample_t sample_cb;
    z_owned_closure_query_t query_cb;
    z_closure(&sample_cb, on_sample, NULL, NULL);
    z_closure(&query_cb, on_query, NULL, NULL);
    z_view_keyexpr_from_str_unchecked(&pub_ke, PUB_KEY);
    z_view_keyexpr_from_str_unchecked(&sub_ke, SUB_KEY);
    z_view_keyexpr_from_str_unchecked(&q_ke, QUERYABLE_KEY);
    z_view_keyexpr_from_str_unchecked(&token_ke, TOKEN_KEY);
    z_view_keyexpr_from_str_unchecked(&get_ke, GET_KEY);
    if (z_declare_subscriber(z_loan(s), &sub, z_loan(sub_ke), z_move(sample_cb), NULL) != Z_OK ||
        z_declare_publisher(z_loan(s), &pub, z_loan(pub_ke), NULL) != Z_OK ||
        z_declare_queryable(z_loan(s), &qable, z_loan(q_ke), z_move(query_cb), NULL) != Z_OK ||
        z_liveliness_declare_token(z_loan(s), &token, z_loan(token_ke), NULL) != Z_OK) {
        board_puts("zmote-freertos: a declaration failed\n");
        z_drop(z_move(s));
        return EXIT_DECLARE;
    }
    board_puts("zmote-freertos: declared publisher, subscriber, queryable and token\n");

    z_owned_closure_reply_t reply_cb;
    z_closure(&reply_cb, on_reply, NULL, NULL);
    r = z_get(z_loan(s), z_loan(get_ke), "", z_move(reply_cb), NULL);
    if (r != Z_OK) {
        board_puts("zmote-freertos: z_get failed: ");
        board_put_i32(r);
        board_puts("\n");
    }

    z_clock_t start = z_clock_now();
    uint32_t sent = 0;
    for (; sent < PUT_COUNT; sent++) {
        put_sample(z_loan(pub), sent, "Pub from FreeRTOS!");
        z_sleep_ms(PUT_PERIOD_MS);
    }
    int status = BOARD_EXIT_OK;
    if (!wait_for(&received, EXPECT, &start) || !wait_for(&replies, 1u, &start) ||
        !wait_for(&queries, 1u, &start)) {
        status = EXIT_TIMEOUT;
    }
    line_begin();
    board_puts("zmote-freertos: sent ");
    board_put_u32(sent);
    board_puts(", received ");
    board_put_u32(received);
    board_puts(", replies ");
    board_put_u32(replies);
    board_puts(", queries ");
    board_put_u32(queries);
    board_puts("\n");
    line_end();
#if FW_RECONNECT
    if (status == BOARD_EXIT_OK) {
        /* The host restarts its router now; the session reconnects by itself and the host
         * greets it again on the same subscriber. */
        restarting = true;
        board_puts("zmote-freertos: ready for the router's restart\n");
        start = z_clock_now();
        uint32_t n = 0;
        while (received_after_restart < EXPECT && z_clock_elapsed_ms(&start) < FW_TIMEOUT_MS) {
            put_sample(z_loan(pub), n++, "after restart");
            z_sleep_ms(200);
        }
        /* The host is heard again, so it hears these: the session has its declarations back. */
        for (uint32_t i = 0; i < PUT_COUNT; i++) {
            put_sample(z_loan(pub), n++, "after restart");
            z_sleep_ms(PUT_PERIOD_MS);
        }
        board_puts("zmote-freertos: after restart received ");
        board_put_u32(received_after_restart);
        board_puts("\n");
        status = received_after_restart >= EXPECT ? BOARD_EXIT_OK : EXIT_TIMEOUT;
    }
#endif

    report_tasks();
    z_drop(z_move(token));
    z_drop(z_move(qable));
    z_drop(z_move(pub));
    z_drop(z_move(sub));
    z_drop(z_move(s));
    return status;
}

static void app_task(void *arg)
{
    (void)arg;
    int status = BOARD_EXIT_OK;
#if FW_IP
    for (uint32_t waited = 0; !FreeRTOS_IsNetworkUp(); waited += 10u) {
        if (waited >= 10000u) {
            status = EXIT_NO_NETWORK;
            break;
        }
        vTaskDelay(pdMS_TO_TICKS(10));
    }
    if (status == BOARD_EXIT_OK) {
        board_puts("zmote-freertos: network up\n");
        /* FreeRTOS+TCP sends an ARP request in place of a UDP datagram to an address it has no MAC
         * for, and drops the datagram: learn the gateway's first, or a UDP session's first INIT is lost. */
        (void)xARPWaitResolution(FreeRTOS_inet_addr_quick(10u, 0u, 2u, 2u), pdMS_TO_TICKS(2000));
        status = run();
    }
#else
    status = run();
#endif
    report_heap();
    board_puts("zmote-freertos: exit ");
    board_put_i32(status);
    board_puts("\n");
    board_exit(status);
}

int main(void)
{
    board_puts("zmote-freertos: boot, mps2-an385, FreeRTOS " tskKERNEL_VERSION_NUMBER "\n");
#if FW_IP
    /* QEMU's user-mode network: the guest at 10.0.2.15, the host's gateway at 10.0.2.2. */
    static const uint8_t ip[4] = {10, 0, 2, 15};
    static const uint8_t mask[4] = {255, 255, 255, 0};
    static const uint8_t gateway[4] = {10, 0, 2, 2};
    static const uint8_t dns[4] = {10, 0, 2, 3};
    static const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    if (FreeRTOS_IPInit(ip, mask, gateway, dns, mac) != pdPASS) {
        board_fail("FreeRTOS_IPInit failed", EXIT_NO_NETWORK);
    }
#endif
    if (xTaskCreate(app_task, "app", APP_STACK_BYTES / sizeof(StackType_t), NULL, APP_PRIORITY, NULL) !=
        pdPASS) {
        board_fail("cannot create the application task", BOARD_EXIT_FATAL);
    }
    vTaskStartScheduler();
    board_fail("the scheduler returned", BOARD_EXIT_FATAL);
}
