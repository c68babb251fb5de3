/*
 * board-check: proves the board and port/baremetal without Zenoh, for the QEMU test. It prints
 * its steps on the console (UART1) and talks to the test over UART0 through the port's serial
 * functions: a wait that must time out, an echo of a block the test sends (each byte XORed with
 * ECHO_XOR, so a loopback cannot pass), a flood the test does not read (the write must stop at
 * its deadline), and reads, waits and writes after shutdown. Exits 0 if every step held.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "zmote/port.h"

#define ECHO_XOR 0x5au
#define WAIT_IDLE_MS 300u
#define HOST_WAIT_MS 20000u
#define FLOOD_BYTES (1024u * 1024u) /* well beyond what the host pty buffers (~68 KiB on Linux) */
#define FLOOD_DEADLINE_MS 500u

#define EXIT_CHECK 8 /* a step did not hold; the console says which */

static int failures;

static void step(const char *what, bool ok)
{
    board_puts(ok ? "check: ok " : "check: FAIL ");
    board_puts(what);
    board_puts("\n");
    failures += ok ? 0 : 1;
}

static void value(const char *name, uint32_t v)
{
    board_puts("check: ");
    board_puts(name);
    board_puts("=");
    board_put_u32(v);
    board_puts("\n");
}

/* FNV-1a over what was received, so the test can compare both ends. */
static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

static bool read_exact(zm_serial_t *s, uint8_t *buf, size_t len)
{
    size_t have = 0;
    while (have < len) {
        if (zm_port_serial_wait_readable(s, HOST_WAIT_MS) != Z_OK) {
            return false;
        }
        size_t n = 0;
        if (zm_port_serial_read(s, buf + have, len - have, &n) != Z_OK || n == 0u) {
            return false;
        }
        have += n;
    }
    return true;
}

/* Receives a u32 length, then echoes that many bytes back XORed, chunk by chunk as they come. */
static void echo(zm_serial_t *s)
{
    uint8_t hdr[4];
    if (!read_exact(s, hdr, sizeof(hdr))) {
        step("echo: length from the host", false);
        return;
    }
    uint32_t total = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
    value("echo_len", total);
    uint32_t hash = 2166136261u;
    uint32_t done = 0;
    uint8_t chunk[128];
    bool ok = true;
    while (ok && done < total) {
        if (zm_port_serial_wait_readable(s, HOST_WAIT_MS) != Z_OK) {
            ok = false;
            break;
        }
        size_t want = total - done < sizeof(chunk) ? total - done : sizeof(chunk);
        size_t n = 0;
        ok = zm_port_serial_read(s, chunk, want, &n) == Z_OK && n > 0u;
        if (ok) {
            hash = fnv1a(hash, chunk, n);
            for (size_t i = 0; i < n; i++) {
                chunk[i] ^= ECHO_XOR;
            }
            size_t written = 0;
            ok = zm_port_serial_write(s, chunk, n, zm_port_clock_ms() + HOST_WAIT_MS, &written) == Z_OK &&
                 written == n;
            done += (uint32_t)n;
        }
    }
    value("echo_done", done);
    value("echo_fnv", hash);
    step("echo", ok && done == total);
}

/* The test reads nothing now: the host's buffers fill, then the TX ring, then the write must
 * give up at its deadline with part of the bytes handed over. */
static void flood(zm_serial_t *s)
{
    static uint8_t block[1024];
    for (size_t i = 0; i < sizeof(block); i++) {
        block[i] = (uint8_t)i;
    }
    uint64_t start = zm_port_clock_ms();
    uint64_t deadline = start + FLOOD_DEADLINE_MS;
    uint32_t total = 0;
    z_result_t r = Z_OK;
    while (r == Z_OK && total < FLOOD_BYTES) {
        size_t written = 0;
        r = zm_port_serial_write(s, block, sizeof(block), deadline, &written);
        total += (uint32_t)written;
    }
    uint64_t took = zm_port_clock_ms() - start;
    value("flood_written", total);
    value("flood_ms", (uint32_t)took);
    step("flood: write stops at its deadline", r == ZM_E_TIMEOUT && total < FLOOD_BYTES && took >= FLOOD_DEADLINE_MS);
}

int main(void)
{
    board_puts("check: boot, mps2-an386\n");

    uint64_t t0 = zm_port_clock_ms();
    zm_port_sleep_ms(1000);
    uint64_t t1 = zm_port_clock_ms();
    value("tick_slept_ms", (uint32_t)(t1 - t0));
    step("tick: a 1000 ms sleep lasts 1000..1100 ticks", t1 - t0 >= 1000u && t1 - t0 <= 1100u);

    zm_serial_t s;
    step("serial: no uart9", zm_port_serial_open(&s, "uart9", 115200) == Z_ENETWORK);
    step("serial: uart0 refuses 10 Mbaud", zm_port_serial_open(&s, "uart0", 10000000) == ZM_E_UNSUPPORTED);
    z_result_t r = zm_port_serial_open(&s, "uart0", 115200);
    step("serial: open uart0", r == Z_OK);
    if (r != Z_OK) {
        return EXIT_CHECK;
    }
    step("serial: uart0 is busy once open", zm_port_serial_open(&(zm_serial_t){0}, "uart0", 115200) == ZM_E_BUSY);
    step("serial: not a socket", zm_port_serial_socket(&s) == NULL);

    t0 = zm_port_clock_ms();
    r = zm_port_serial_wait_readable(&s, WAIT_IDLE_MS);
    t1 = zm_port_clock_ms();
    step("serial: a wait with nothing sent times out", r == ZM_E_TIMEOUT && t1 - t0 >= WAIT_IDLE_MS);

    board_puts("check: ready for echo\n");
    echo(&s);
    board_puts("check: flooding\n");
    flood(&s);

    zm_port_serial_shutdown(&s);
    uint8_t byte = 0;
    size_t n = 0;
    step("shutdown: wait returns at once", zm_port_serial_wait_readable(&s, HOST_WAIT_MS) == Z_OK);
    step("shutdown: read is closed", zm_port_serial_read(&s, &byte, 1, &n) == ZM_E_CLOSED && n == 0u);
    step("shutdown: write is closed",
         zm_port_serial_write(&s, &byte, 1, zm_port_clock_ms() + 100u, &n) == ZM_E_CLOSED && n == 0u);
    zm_port_serial_close(&s);
    r = zm_port_serial_open(&s, "uart0", 115200);
    step("serial: uart0 opens again after close", r == Z_OK);
    if (r == Z_OK) {
        zm_port_serial_close(&s);
    }

    value("uart0_rx_dropped", board_uart0_rx_dropped());
    value("failures", (uint32_t)failures);
    board_puts(failures == 0 ? "check: PASS\n" : "check: FAILED\n");
    return failures == 0 ? BOARD_EXIT_OK : EXIT_CHECK;
}
