/*
 * The serial link: the framing against frames captured from Rust's (tests/vectors/rust-serial.txt),
 * round trips over every payload size, bad frames dropped and counted with the next one intact,
 * serial endpoint options; then real links on pseudo-terminals, with this test playing the far
 * end byte by byte (the handshake both ways, garbage, a peer that starts over), and two sessions
 * exchanging samples through the public API over a pair of pseudo-terminals joined by a relay
 * thread. Every wait has a deadline.
 */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "check.h"
#include "link/link.h"
#include "link/serial.h"
#include "vectors.h"
#include "zenoh-pico.h"

#define WAIT_MS 3000u

/* ---- the framing ------------------------------------------------------------------------------- */

static void test_crc(void)
{
    CHECK_EQ_INT(zm_serial_crc32((const uint8_t *)"123456789", 9), 0xfc4f2be9u);
    CHECK_EQ_INT(zm_serial_crc32(NULL, 0), 0);
    const uint8_t crate[] = {0x00, 0x11, 0x00}; /* z-serial's own test: CRC bytes 73 ec 75 f9 */
    CHECK_EQ_INT(zm_serial_crc32(crate, sizeof(crate)), 0xf975ec73u);
}

/* Where the tests below decode payloads to. */
static uint8_t dec_buf[ZM_SERIAL_MTU];

/* Decodes wire in one go; the frame must come out exactly at its delimiter. */
static z_result_t decode_all(zm_serial_decoder_t *d, const uint8_t *wire, size_t n, zm_serial_frame_t *f)
{
    size_t used = 0;
    z_result_t r = zm_serial_decode(d, wire, n, &used, dec_buf, sizeof(dec_buf), f);
    CHECK_EQ_INT(used, n);
    return r;
}

static uint8_t vec_payload[2048];
static uint8_t vec_wire[4096];
static uint8_t enc[4096];

static void test_golden(void)
{
    FILE *f = fopen(ZM_VECTORS_DIR "/rust-serial.txt", "r");
    CHECK(f != NULL);
    if (f == NULL) {
        return;
    }
    static char line[16384];
    unsigned frames = 0, handshakes = 0;
    zm_serial_decoder_t d;
    zm_serial_decoder_init(&d);
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#') {
            continue;
        }
        char *fields[6] = {0};
        size_t nf = 0;
        for (char *p = line; nf < 6;) {
            fields[nf++] = p;
            char *tab = strchr(p, '\t');
            if (tab == NULL) {
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        size_t n = 0;
        if (strcmp(fields[0], "frame") == 0 && nf == 5) {
            unsigned flags = (unsigned)strtoul(fields[2], NULL, 16);
            long plen = vec_hex(fields[3], vec_payload, sizeof(vec_payload));
            long wlen = vec_hex(fields[4], vec_wire, sizeof(vec_wire));
            CHECK_CTX(plen >= 0 && wlen > 0, "%s: bad hex", fields[1]);
            CHECK_EQ_INT(zm_serial_encode((uint8_t)flags, vec_payload, (size_t)plen, enc, sizeof(enc), &n), Z_OK);
            CHECK_CTX(n == (size_t)wlen && memcmp(enc, vec_wire, n) == 0, "%s: encoding differs from Rust's",
                      fields[1]);
            zm_serial_frame_t fr;
            CHECK_EQ_INT(decode_all(&d, vec_wire, (size_t)wlen, &fr), Z_OK);
            CHECK_EQ_INT(fr.flags, flags);
            CHECK_EQ_MEM(fr.payload.ptr, fr.payload.len, vec_payload, (size_t)plen);
            frames++;
            continue;
        }
        uint8_t flags;
        if (strcmp(fields[0], "connect-sends") == 0) {
            flags = ZM_SERIAL_FLAG_INIT;
        } else if (strcmp(fields[0], "accept-answers") == 0) {
            flags = ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK;
        } else if (strcmp(fields[0], "reinit-answers") == 0) {
            flags = ZM_SERIAL_FLAG_RESET;
        } else {
            continue;
        }
        long wlen = vec_hex(fields[1], vec_wire, sizeof(vec_wire));
        CHECK_EQ_INT(zm_serial_encode(flags, NULL, 0, enc, sizeof(enc), &n), Z_OK);
        CHECK_EQ_MEM(enc, n, vec_wire, (size_t)wlen);
        handshakes++;
    }
    fclose(f);
    CHECK_EQ_INT(frames, 13);
    CHECK_EQ_INT(handshakes, 3);
    CHECK_EQ_INT(d.dropped, 0);
}

/* Every size up to the MTU, with zeros and runs that cross COBS block bounds, fed in chunks of
 * 1, 7 and 300 bytes and whole. */
static void test_round_trip(void)
{
    static uint8_t payload[ZM_SERIAL_MTU];
    static uint8_t wire[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];
    static const size_t chunks[] = {1, 7, 300, sizeof(wire)};
    unsigned bad = 0;
    for (size_t len = 0; len <= ZM_SERIAL_MTU; len++) {
        for (size_t i = 0; i < len; i++) {
            payload[i] = (uint8_t)(i % 300 < 260 ? (i * 7 + len) % 255 + 1 : (i * 13) & 0xff); /* long runs, some zeros */
        }
        size_t n = 0;
        if (zm_serial_encode(0, payload, len, wire, sizeof(wire), &n) != Z_OK || n > ZM_SERIAL_WIRE_MAX(len) ||
            memchr(wire, 0, n - 1) != NULL || wire[n - 1] != 0) {
            bad++;
            continue;
        }
        for (size_t c = 0; c < ZM_ARRAY_LEN(chunks); c++) {
            zm_serial_decoder_t d;
            zm_serial_decoder_init(&d);
            size_t pos = 0;
            z_result_t r = ZM_E_AGAIN;
            zm_serial_frame_t f;
            while (pos < n && r == ZM_E_AGAIN) {
                size_t take = n - pos < chunks[c] ? n - pos : chunks[c];
                size_t used = 0;
                r = zm_serial_decode(&d, wire + pos, take, &used, dec_buf, sizeof(dec_buf), &f);
                pos += used;
            }
            if (r != Z_OK || pos != n || f.flags != 0 || f.payload.len != len ||
                (len > 0 && memcmp(f.payload.ptr, payload, len) != 0)) {
                bad++;
                fprintf(stderr, "round trip of %zu bytes in chunks of %zu: r=%d\n", len, chunks[c], r);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);

    size_t n = 0;
    CHECK_EQ_INT(zm_serial_encode(0, payload, ZM_SERIAL_MTU + 1, wire, sizeof(wire), &n), ZM_E_FIELD);
    CHECK_EQ_INT(zm_serial_encode(0, payload, 10, wire, ZM_SERIAL_WIRE_MAX(10) - 1, &n), ZM_E_NO_SPACE);
    CHECK_EQ_INT(n, 0);
}

/* The encoder in pieces of 1, 7, ZM_SERIAL_TX_CHUNK and 300 bytes: each piece full but the last,
 * together the bytes of a whole-frame encoding, then nothing. */
static void test_encode_pieces(void)
{
    static uint8_t payload[ZM_SERIAL_MTU];
    static uint8_t wire[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];
    static uint8_t got[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU) + 300];
    static const size_t sizes[] = {0, 1, 57, 247, 248, 253, 254, 500, ZM_SERIAL_MTU};
    static const size_t pieces[] = {1, 7, ZM_SERIAL_TX_CHUNK, 300};
    unsigned bad = 0;
    for (size_t i = 0; i < ZM_ARRAY_LEN(sizes); i++) {
        size_t len = sizes[i];
        for (size_t j = 0; j < len; j++) {
            payload[j] = (uint8_t)(j % 97 == 3 ? 0 : j * 11 + 1);
        }
        size_t n = 0;
        CHECK_EQ_INT(zm_serial_encode(ZM_SERIAL_FLAG_ACK, payload, len, wire, sizeof(wire), &n), Z_OK);
        for (size_t p = 0; p < ZM_ARRAY_LEN(pieces); p++) {
            zm_serial_encoder_t e;
            CHECK_EQ_INT(zm_serial_encoder_start(&e, ZM_SERIAL_FLAG_ACK, payload, len), Z_OK);
            size_t have = 0, k;
            bool short_piece = false;
            while ((k = zm_serial_encoder_fill(&e, got + have, pieces[p])) > 0) {
                short_piece = short_piece || (have > 0 && have % pieces[p] != 0);
                have += k;
                if (have > sizeof(got) - pieces[p]) {
                    break;
                }
            }
            if (short_piece || have != n || memcmp(got, wire, n) != 0 || zm_serial_encoder_fill(&e, got, 1) != 0) {
                bad++;
                fprintf(stderr, "encoding %zu bytes in pieces of %zu differs\n", len, pieces[p]);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    zm_serial_encoder_t e;
    CHECK_EQ_INT(zm_serial_encoder_start(&e, 0, payload, ZM_SERIAL_MTU + 1), ZM_E_FIELD);
}

/* The handshake's frames, which a line writes as known bytes: an encoding of flags alone. */
static void test_control_frames(void)
{
    static const uint8_t flags[] = {ZM_SERIAL_FLAG_INIT, ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK, ZM_SERIAL_FLAG_RESET};
    for (size_t i = 0; i < ZM_ARRAY_LEN(flags); i++) {
        const uint8_t want[] = {0x02, flags[i], 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
        uint8_t wire[ZM_SERIAL_WIRE_MAX(0)];
        size_t n = 0;
        CHECK_EQ_INT(zm_serial_encode(flags[i], NULL, 0, wire, sizeof(wire), &n), Z_OK);
        CHECK_EQ_INT(n, sizeof(want));
        CHECK(memcmp(wire, want, sizeof(want)) == 0);
    }
}

/* The frame of "123456789" as Rust writes it. */
static const uint8_t ascii_frame[] = {0x01, 0x02, 0x09, 0x0e, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36,
                                      0x37, 0x38, 0x39, 0xe9, 0x2b, 0x4f, 0xfc, 0x00};

/* Feeds bytes until a frame or an error comes out; AGAIN if they ran out first. */
static z_result_t feed(zm_serial_decoder_t *d, const uint8_t **p, const uint8_t *end, zm_serial_frame_t *f)
{
    while (*p < end) {
        size_t used = 0;
        z_result_t r = zm_serial_decode(d, *p, (size_t)(end - *p), &used, dec_buf, sizeof(dec_buf), f);
        *p += used;
        if (r != ZM_E_AGAIN) {
            return r;
        }
    }
    return ZM_E_AGAIN;
}

static void test_bad_frames(void)
{
    zm_serial_decoder_t d;
    zm_serial_decoder_init(&d);
    zm_serial_frame_t f;
    uint8_t buf[4096];

    /* a payload byte changed on the way: CRC mismatch, then the next frame is whole */
    memcpy(buf, ascii_frame, sizeof(ascii_frame));
    buf[5] ^= 0x01;
    memcpy(buf + sizeof(ascii_frame), ascii_frame, sizeof(ascii_frame));
    const uint8_t *p = buf, *end = buf + 2 * sizeof(ascii_frame);
    CHECK_EQ_INT(feed(&d, &p, end, &f), ZM_E_CHECKSUM);
    CHECK_EQ_INT(feed(&d, &p, end, &f), Z_OK);
    CHECK_EQ_MEM(f.payload.ptr, f.payload.len, "123456789", 9);
    CHECK_EQ_INT(d.dropped, 1);

    /* garbage with no delimiter in front of a frame costs that frame; lone delimiters cost nothing */
    size_t n = 0;
    for (size_t i = 0; i < 100; i++) {
        buf[n++] = (uint8_t)(0x80 + i);
    }
    memcpy(buf + n, ascii_frame, sizeof(ascii_frame));
    n += sizeof(ascii_frame);
    buf[n++] = 0x00;
    buf[n++] = 0x00;
    memcpy(buf + n, ascii_frame, sizeof(ascii_frame));
    n += sizeof(ascii_frame);
    p = buf;
    end = buf + n;
    z_result_t r = feed(&d, &p, end, &f);
    CHECK(r == ZM_E_TRUNCATED || r == ZM_E_CHECKSUM);
    CHECK_EQ_INT(feed(&d, &p, end, &f), Z_OK);
    CHECK_EQ_MEM(f.payload.ptr, f.payload.len, "123456789", 9);
    CHECK(p == end);
    CHECK_EQ_INT(d.dropped, 2);

    /* garbage ended by a delimiter: dropped alone, the frame after it is whole */
    n = 0;
    for (size_t i = 0; i < 40; i++) {
        buf[n++] = (uint8_t)(i * 37 + 1);
    }
    buf[n++] = 0x00;
    memcpy(buf + n, ascii_frame, sizeof(ascii_frame));
    n += sizeof(ascii_frame);
    p = buf;
    end = buf + n;
    r = feed(&d, &p, end, &f);
    CHECK(r == ZM_E_TRUNCATED || r == ZM_E_CHECKSUM);
    CHECK_EQ_INT(feed(&d, &p, end, &f), Z_OK);
    CHECK_EQ_INT(d.dropped, 3);

    /* a length field that disagrees with the frame, a frame shorter than its header */
    memcpy(buf, ascii_frame, sizeof(ascii_frame));
    buf[2] = 0x08;
    p = buf;
    end = buf + sizeof(ascii_frame);
    CHECK_EQ_INT(feed(&d, &p, end, &f), ZM_E_TRUNCATED);
    const uint8_t tiny[] = {0x02, 0x01, 0x01, 0x00};
    p = tiny;
    end = tiny + sizeof(tiny);
    CHECK_EQ_INT(feed(&d, &p, end, &f), ZM_E_TRUNCATED);
    /* a COBS block cut short by the delimiter */
    const uint8_t cut[] = {0x01, 0x02, 0x09, 0x0e, 0x31, 0x32, 0x00};
    p = cut;
    end = cut + sizeof(cut);
    CHECK_EQ_INT(feed(&d, &p, end, &f), ZM_E_TRUNCATED);
    CHECK_EQ_INT(d.dropped, 6);

    /* longer than the MTU: skipped to its delimiter, whatever its size */
    n = 0;
    for (size_t i = 0; i < 3000; i++) {
        buf[n++] = (uint8_t)(i % 200 + 1);
    }
    buf[n++] = 0x00;
    memcpy(buf + n, ascii_frame, sizeof(ascii_frame));
    n += sizeof(ascii_frame);
    p = buf;
    end = buf + n;
    CHECK_EQ_INT(feed(&d, &p, end, &f), ZM_E_NO_SPACE);
    CHECK_EQ_INT(feed(&d, &p, end, &f), Z_OK);
    CHECK_EQ_INT(d.dropped, 7);

    /* a frame of the largest size Rust sends, but with a payload one byte over our MTU */
    static uint8_t big[ZM_SERIAL_MTU + 1];
    memset(big, 0x55, sizeof(big));
    CHECK_EQ_INT(zm_serial_encode(0, big, ZM_SERIAL_MTU, buf, sizeof(buf), &n), Z_OK);
    p = buf;
    end = buf + n;
    CHECK_EQ_INT(feed(&d, &p, end, &f), Z_OK);
    CHECK_EQ_INT(f.payload.len, ZM_SERIAL_MTU);

    /* an intact frame longer than the caller's buffer: ZM_E_FIELD with its flags, not a drop;
     * without a buffer, an empty frame still comes out whole */
    uint8_t small[8];
    size_t used = 0;
    CHECK_EQ_INT(zm_serial_decode(&d, ascii_frame, sizeof(ascii_frame), &used, small, sizeof(small), &f), ZM_E_FIELD);
    CHECK_EQ_INT(used, sizeof(ascii_frame));
    CHECK_EQ_INT(f.payload.len, 0);
    CHECK_EQ_INT(d.dropped, 7);
    CHECK_EQ_INT(zm_serial_encode(ZM_SERIAL_FLAG_RESET, NULL, 0, buf, sizeof(buf), &n), Z_OK);
    CHECK_EQ_INT(zm_serial_decode(&d, buf, n, &used, NULL, 0, &f), Z_OK);
    CHECK_EQ_INT(f.flags, ZM_SERIAL_FLAG_RESET);
    CHECK_EQ_INT(f.payload.len, 0);
    /* a corrupt frame too long for the buffer is a drop as any other */
    memcpy(buf, ascii_frame, sizeof(ascii_frame));
    buf[8] ^= 0x04;
    CHECK_EQ_INT(zm_serial_decode(&d, buf, sizeof(ascii_frame), &used, small, sizeof(small), &f), ZM_E_CHECKSUM);
    CHECK_EQ_INT(d.dropped, 8);

    /* a frame in progress moves with its buffer; one whose bytes were lost is dropped */
    static uint8_t one[ZM_SERIAL_MTU], two[ZM_SERIAL_MTU];
    CHECK_EQ_INT(zm_serial_decode(&d, ascii_frame, 8, &used, one, sizeof(one), &f), ZM_E_AGAIN);
    CHECK_EQ_INT(d.stored, 4);
    memcpy(two, one, d.stored);
    CHECK_EQ_INT(zm_serial_decode(&d, ascii_frame + 8, sizeof(ascii_frame) - 8, &used, two, sizeof(two), &f), Z_OK);
    CHECK(f.payload.ptr == two);
    CHECK_EQ_MEM(f.payload.ptr, f.payload.len, "123456789", 9);
    CHECK_EQ_INT(zm_serial_decode(&d, ascii_frame, 8, &used, one, sizeof(one), &f), ZM_E_AGAIN);
    zm_serial_decoder_lose(&d);
    CHECK_EQ_INT(zm_serial_decode(&d, ascii_frame + 8, sizeof(ascii_frame) - 8, &used, two, sizeof(two), &f),
                 ZM_E_NO_SPACE);
    CHECK_EQ_INT(d.dropped, 9);
    zm_serial_decoder_lose(&d); /* between frames: nothing to lose */
    CHECK_EQ_INT(decode_all(&d, ascii_frame, sizeof(ascii_frame), &f), Z_OK);
    CHECK_EQ_INT(d.dropped, 9);
}

static void test_endpoint_config(void)
{
    zm_endpoint_t ep;
    zm_serial_config_t cfg;
    const char *s = "serial//dev/ttyACM0#baudrate=921600;tout=1500";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, s, strlen(s), ZM_ENDPOINT_CONNECT), Z_OK);
    CHECK_EQ_INT(zm_endpoint_serial_config(&ep, &cfg), Z_OK);
    CHECK_EQ_INT(cfg.baudrate, 921600);
    CHECK_EQ_INT(cfg.reset_wait_ms, 2); /* 1500 us, in whole milliseconds rounded up */
    CHECK_EQ_MEM(ep.address.ptr, ep.address.len, "/dev/ttyACM0", 12);
    s = "serial/ttyS1";
    CHECK_EQ_INT(zm_endpoint_parse(&ep, s, strlen(s), ZM_ENDPOINT_LISTEN), Z_OK);
    CHECK_EQ_INT(zm_endpoint_serial_config(&ep, &cfg), Z_OK);
    CHECK_EQ_INT(cfg.baudrate, 9600); /* Rust's defaults */
    CHECK_EQ_INT(cfg.reset_wait_ms, 50);
    static const struct {
        const char *endpoint;
        z_result_t rc;
        uint32_t ms;
    } touts[] = {
        {"serial/a#tout=0", Z_OK, 0},
        {"serial/a#tout=1", Z_OK, 1},
        {"serial/a#tout=999", Z_OK, 1},
        {"serial/a#tout=1000", Z_OK, 1},
        {"serial/a#tout=1001", Z_OK, 2},
        {"serial/a#tout=004000", Z_OK, 4},
        {"serial/a#tout=4294967295000", Z_OK, UINT32_MAX},
        {"serial/a#tout=4294967295001", Z_OK, UINT32_MAX},
        {"serial/a#tout=18446744073709551615", Z_OK, UINT32_MAX},
        {"serial/a#tout=18446744073709551616", ZM_E_LOCATOR, 0},
        {"serial/a#tout=99999999999999999999", ZM_E_LOCATOR, 0},
        {"serial/a#tout=1x", ZM_E_LOCATOR, 0},
        {"serial/a#baudrate=4294967295", Z_OK, 50},
        {"serial/a#baudrate=4294967296", ZM_E_LOCATOR, 0},
        {"serial/a#baudrate=00000000000000000000009600", Z_OK, 50},
    };
    for (size_t i = 0; i < sizeof(touts) / sizeof(touts[0]); i++) {
        s = touts[i].endpoint;
        z_result_t rc = zm_endpoint_parse(&ep, s, strlen(s), ZM_ENDPOINT_CONNECT);
        if (rc == Z_OK) {
            rc = zm_endpoint_serial_config(&ep, &cfg);
        }
        CHECK_CTX(rc == touts[i].rc && (rc != Z_OK || cfg.reset_wait_ms == touts[i].ms), "%s: %d, %u ms", s,
                  (int)rc, (unsigned)cfg.reset_wait_ms);
    }
}

/* ---- pseudo-terminals -------------------------------------------------------------------------- */

/* A pseudo-terminal: the test holds the master and keeps a slave fd open, so that the master never
 * sees a hang-up while zmote closes and reopens the slave. */
typedef struct {
    int master;
    int slave;
    char path[64];
} pty_t;

static bool pty_open(pty_t *t)
{
    t->master = posix_openpt(O_RDWR | O_NOCTTY);
    if (t->master < 0 || grantpt(t->master) != 0 || unlockpt(t->master) != 0 || ptsname(t->master) == NULL) {
        perror("posix_openpt");
        return false;
    }
    snprintf(t->path, sizeof(t->path), "%s", ptsname(t->master));
    t->slave = open(t->path, O_RDWR | O_NOCTTY);
    struct termios tio;
    if (t->slave < 0 || tcgetattr(t->slave, &tio) != 0) {
        perror("pty slave");
        return false;
    }
    /* raw before zmote opens it, so that nothing written early is echoed back */
    tio.c_iflag = 0;
    tio.c_oflag = 0;
    tio.c_lflag = 0;
    tio.c_cflag = (tio.c_cflag & ~(tcflag_t)(CSIZE | PARENB)) | CS8 | CREAD | CLOCAL;
    tcsetattr(t->slave, TCSANOW, &tio);
    int fl = fcntl(t->master, F_GETFL);
    fcntl(t->master, F_SETFL, fl | O_NONBLOCK);
    return true;
}

static void pty_close(pty_t *t)
{
    close(t->slave);
    close(t->master);
}

static void put_raw(pty_t *t, const uint8_t *p, size_t n)
{
    while (n > 0) {
        struct pollfd pf = {t->master, POLLOUT, 0};
        if (poll(&pf, 1, (int)WAIT_MS) <= 0) {
            CHECK(!"pty write stalled");
            return;
        }
        ssize_t w = write(t->master, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        }
    }
}

static void put_frame(pty_t *t, uint8_t flags, const void *payload, size_t len)
{
    uint8_t wire[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];
    size_t n = 0;
    CHECK_EQ_INT(zm_serial_encode(flags, payload, len, wire, sizeof(wire), &n), Z_OK);
    put_raw(t, wire, n);
}

/* Reads the next frame's bytes from the master, delimiter included, within ms; 0 if none came. */
static size_t get_raw_frame(pty_t *t, uint8_t *out, size_t cap, unsigned ms)
{
    uint64_t deadline = zm_port_clock_ms() + ms;
    size_t n = 0;
    while (n < cap) {
        uint64_t now = zm_port_clock_ms();
        struct pollfd pf = {t->master, POLLIN, 0};
        if (now >= deadline || poll(&pf, 1, (int)(deadline - now)) <= 0) {
            return 0;
        }
        if (read(t->master, out + n, 1) == 1 && out[n++] == 0x00) {
            if (n > 1) {
                return n;
            }
            n = 0; /* a lone delimiter */
        }
    }
    return 0;
}

/* The flags of the next frame from the master, its payload into *payload; -1 if none came. */
static int get_frame(pty_t *t, uint8_t *payload, size_t *len, unsigned ms)
{
    uint8_t raw[ZM_SERIAL_WIRE_MAX(ZM_SERIAL_MTU)];
    size_t n = get_raw_frame(t, raw, sizeof(raw), ms);
    if (n == 0) {
        return -1;
    }
    zm_serial_decoder_t d;
    zm_serial_decoder_init(&d);
    zm_serial_frame_t f;
    if (decode_all(&d, raw, n, &f) != Z_OK) {
        return -1;
    }
    if (payload != NULL) {
        memcpy(payload, f.payload.ptr, f.payload.len);
        *len = f.payload.len;
    }
    return f.flags;
}

/* Every byte the master has: at least `least`, awaited up to WAIT_MS (the line's buffers pass
 * them on later under load), then the rest until it stays silent for 200 ms; how many. */
static size_t drain(pty_t *t, uint8_t *out, size_t cap, size_t least)
{
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    size_t n = 0;
    struct pollfd pf = {t->master, POLLIN, 0};
    while (n < cap) {
        uint64_t now = zm_port_clock_ms();
        int wait = n >= least ? 200 : now < deadline ? (int)(deadline - now) : 0;
        if (poll(&pf, 1, wait) <= 0) {
            break;
        }
        ssize_t r = read(t->master, out + n, cap - n);
        if (r <= 0) {
            break;
        }
        n += (size_t)r;
    }
    return n;
}

static void parse_ep(zm_endpoint_t *ep, char *text, size_t cap, const char *path, const char *cfg, zm_endpoint_use_t use)
{
    snprintf(text, cap, "serial/%s#%s", path, cfg);
    CHECK_EQ_INT(zm_endpoint_parse(ep, text, strlen(text), use), Z_OK);
}

/* A payload of 300 bytes with zeros in it, for a frame sent in parts. */
static const uint8_t *noise_for_parts(void)
{
    static uint8_t p[300];
    for (size_t i = 0; i < sizeof(p); i++) {
        p[i] = (uint8_t)(i * 7);
    }
    return p;
}

/* The listener's side against bytes from Rust's opener. */
static void test_listener(void)
{
    pty_t t;
    if (!pty_open(&t)) {
        CHECK(!"no pseudo-terminal");
        return;
    }
    char text[128];
    zm_endpoint_t ep;
    parse_ep(&ep, text, sizeof(text), t.path, "baudrate=115200", ZM_ENDPOINT_LISTEN);
    zm_link_t listener, link;
    CHECK_EQ_INT(zm_link_listen(&listener, &ep), Z_OK);
    CHECK_EQ_INT(zm_link_accept(&listener, &link, 50), ZM_E_TIMEOUT);

    /* leftovers before the INIT are skipped; the answer is byte for byte Rust's */
    static const uint8_t init[] = {0x02, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
    static const uint8_t init_ack[] = {0x02, 0x03, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
    static const uint8_t reset[] = {0x02, 0x04, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00};
    put_frame(&t, 0, "old", 3);
    put_raw(&t, init, sizeof(init));
    CHECK_EQ_INT(zm_link_accept(&listener, &link, WAIT_MS), Z_OK);
    uint8_t raw[64];
    size_t n = get_raw_frame(&t, raw, sizeof(raw), WAIT_MS);
    CHECK_EQ_MEM(raw, n, init_ack, sizeof(init_ack));
    CHECK(!zm_link_is_streamed(&link));
    CHECK_EQ_INT(zm_link_mtu(&link), ZM_SERIAL_MTU);
    zm_link_set_deadline(&link, zm_port_clock_ms() + 4 * WAIT_MS); /* every receive below is bounded */

    /* one listener, one link: no second accept while this one is open, and nothing to poll */
    uint8_t ready[1];
    zm_link_t *one[1] = {&listener};
    CHECK_EQ_INT(zm_link_wait_any(one, 1, 50, ready), ZM_E_TIMEOUT);
    zm_link_t second;
    CHECK_EQ_INT(zm_link_accept(&listener, &second, 0), ZM_E_TIMEOUT);

    /* batches both ways; two frames in one write come out one at a time, the second without
     * waiting on the line */
    static uint8_t rx[ZM_SERIAL_MTU + 2];
    zm_slice_t batch;
    put_frame(&t, 0, "first", 5);
    put_frame(&t, 0, "second", 6);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, sizeof(rx), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "first", 5);
    zm_link_t *l1[1] = {&link};
    CHECK_EQ_INT(zm_link_wait_any(l1, 1, WAIT_MS, ready), Z_OK);
    CHECK_EQ_INT(ready[0], 1);
    CHECK_EQ_INT(zm_link_try_recv_batch(&link, rx, sizeof(rx), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "second", 6);
    CHECK_EQ_INT(zm_link_try_recv_batch(&link, rx, sizeof(rx), &batch), ZM_E_AGAIN);

    /* a frame that arrives in parts is decoded into the caller's buffer as it comes; rebuffering
     * carries its first part along, as it does a handshake's early bytes */
    static uint8_t part[sizeof(ascii_frame) + 300];
    size_t plen = 0;
    CHECK_EQ_INT(zm_serial_encode(0, noise_for_parts(), 300, part, sizeof(part), &plen), Z_OK);
    put_raw(&t, part, 100);
    static uint8_t hs[512];
    z_result_t pr = ZM_E_AGAIN;
    for (uint64_t until = zm_port_clock_ms() + WAIT_MS; link.rx_len == 0 && zm_port_clock_ms() < until;) {
        pr = zm_link_try_recv_batch(&link, hs, sizeof(hs), &batch);
        zm_port_sleep_ms(10);
    }
    CHECK_EQ_INT(pr, ZM_E_AGAIN);
    CHECK(link.rx_len > 0);
    CHECK_EQ_INT(zm_link_rebuffer(&link, rx, sizeof(rx)), Z_OK);
    put_raw(&t, part + 100, plen - 100);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, sizeof(rx), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, noise_for_parts(), 300);
    CHECK(batch.ptr == rx);

    static uint8_t tx[ZM_LINK_HEADROOM + ZM_SERIAL_MTU + 1];
    static uint8_t got[ZM_SERIAL_MTU];
    for (size_t i = 0; i < sizeof(tx); i++) {
        tx[i] = (uint8_t)(i * 31);
    }
    uint64_t now = zm_port_clock_ms();
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, ZM_SERIAL_MTU, now + WAIT_MS, now + WAIT_MS), Z_OK);
    size_t len = 0;
    CHECK_EQ_INT(get_frame(&t, got, &len, WAIT_MS), 0);
    CHECK_EQ_MEM(got, len, tx + ZM_LINK_HEADROOM, ZM_SERIAL_MTU);
    CHECK_EQ_INT(zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, ZM_SERIAL_MTU + 1, now + WAIT_MS, now + WAIT_MS),
                 ZM_E_FIELD);

    /* noise, a corrupt frame and an oversize one are dropped; the batch behind them comes through */
    static uint8_t noise[4000];
    for (size_t i = 0; i < sizeof(noise); i++) {
        noise[i] = (uint8_t)(i % 250 + 1);
    }
    put_raw(&t, noise, 100);
    put_raw(&t, (const uint8_t *)"\0", 1);
    uint8_t bad[sizeof(ascii_frame)];
    memcpy(bad, ascii_frame, sizeof(bad));
    bad[6] ^= 0x10;
    put_raw(&t, bad, sizeof(bad));
    put_raw(&t, noise, sizeof(noise));
    put_raw(&t, (const uint8_t *)"\0", 1);
    put_frame(&t, 0, "third", 5);
    zm_link_set_deadline(&link, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, sizeof(rx), &batch), Z_OK);
    CHECK_EQ_MEM(batch.ptr, batch.len, "third", 5);

    /* a batch longer than the receiver's buffer is an error, not a cut */
    put_frame(&t, 0, noise, 100);
    zm_link_set_deadline(&link, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, 50, &batch), ZM_E_FIELD);

    /* the peer starts over: its INIT ends the link with a RESET, as Rust's listener answers */
    put_raw(&t, init, sizeof(init));
    zm_link_set_deadline(&link, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, sizeof(rx), &batch), ZM_E_CLOSED);
    n = get_raw_frame(&t, raw, sizeof(raw), WAIT_MS);
    CHECK_EQ_MEM(raw, n, reset, sizeof(reset));
    zm_link_close(&link);

    /* the listener opens the device again and takes the next INIT */
    put_raw(&t, init, sizeof(init));
    z_result_t r = ZM_E_TIMEOUT;
    uint64_t end = zm_port_clock_ms() + WAIT_MS;
    while (r == ZM_E_TIMEOUT && zm_port_clock_ms() < end) {
        /* the INIT may have come before the device was open again (it flushes): send it again */
        r = zm_link_accept(&listener, &link, 300);
        if (r == ZM_E_TIMEOUT) {
            put_raw(&t, init, sizeof(init));
        }
    }
    CHECK_EQ_INT(r, Z_OK);
    n = get_raw_frame(&t, raw, sizeof(raw), WAIT_MS);
    CHECK_EQ_MEM(raw, n, init_ack, sizeof(init_ack));

    /* a peer that does not read, and deadlines already past: each send leaves whole, or not a
     * byte of it (ZM_E_AGAIN), or breaks off inside its frame (ZM_E_TIMEOUT); the line then holds
     * exactly the whole frames, and a cut one only after a timeout */
    unsigned sent = 0;
    z_result_t s = Z_OK;
    for (unsigned i = 0; i < 4000 && s == Z_OK; i++) {
        uint64_t t0 = zm_port_clock_ms();
        s = zm_link_send_batch(&link, tx + ZM_LINK_HEADROOM, 200, t0, t0);
        sent += s == Z_OK;
    }
    CHECK(s == ZM_E_AGAIN || s == ZM_E_TIMEOUT);
    static uint8_t line[1u << 20];
    static uint8_t frame200[ZM_SERIAL_WIRE_MAX(200)];
    size_t frame200_len = 0;
    CHECK_EQ_INT(zm_serial_encode(0, tx + ZM_LINK_HEADROOM, 200, frame200, sizeof(frame200), &frame200_len), Z_OK);
    size_t have = drain(&t, line, sizeof(line), sent * frame200_len);
    zm_serial_decoder_t d;
    zm_serial_decoder_init(&d);
    unsigned whole = 0;
    size_t pos = 0;
    for (;;) {
        const uint8_t *end0 = memchr(line + pos, 0, have - pos);
        if (end0 == NULL) {
            break;
        }
        zm_serial_frame_t f;
        size_t flen = (size_t)(end0 - (line + pos)) + 1;
        if (decode_all(&d, line + pos, flen, &f) == Z_OK && f.payload.len == 200 &&
            memcmp(f.payload.ptr, tx + ZM_LINK_HEADROOM, 200) == 0) {
            whole++;
        }
        pos += flen;
    }
    CHECK_EQ_INT(whole, sent);
    CHECK_EQ_INT(d.dropped, 0);
    CHECK_EQ_INT(have - pos > 0, s == ZM_E_TIMEOUT);

    /* a RESET from the peer ends the link too */
    put_frame(&t, ZM_SERIAL_FLAG_RESET, NULL, 0);
    zm_link_set_deadline(&link, zm_port_clock_ms() + WAIT_MS);
    CHECK_EQ_INT(zm_link_recv_batch(&link, rx, sizeof(rx), &batch), ZM_E_CLOSED);
    zm_link_close(&link);

    /* a shut listener accepts nothing more */
    zm_link_shutdown(&listener);
    CHECK_EQ_INT(zm_link_accept(&listener, &link, WAIT_MS), ZM_E_CLOSED);
    zm_link_close(&listener);
    pty_close(&t);
}

typedef struct {
    zm_endpoint_t ep;
    char text[128];
    uint32_t timeout_ms;
    zm_link_t link;
    z_result_t result;
} opener_t;

static void *opener_main(void *arg)
{
    opener_t *o = arg;
    o->result = zm_link_open(&o->link, &o->ep, o->timeout_ms);
    return NULL;
}

/* The opener's side against the bytes of Rust's listener. */
static void test_opener(void)
{
    pty_t t;
    if (!pty_open(&t)) {
        CHECK(!"no pseudo-terminal");
        return;
    }
    static opener_t o;
    parse_ep(&o.ep, o.text, sizeof(o.text), t.path, "baudrate=57600;tout=1000", ZM_ENDPOINT_CONNECT);

    /* INIT, RESET from a listener still busy, INIT again after tout, INIT|ACK: open */
    o.timeout_ms = 2 * WAIT_MS;
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, opener_main, &o), 0);
    CHECK_EQ_INT(get_frame(&t, NULL, NULL, WAIT_MS), ZM_SERIAL_FLAG_INIT);
    put_frame(&t, ZM_SERIAL_FLAG_RESET, NULL, 0);
    CHECK_EQ_INT(get_frame(&t, NULL, NULL, WAIT_MS), ZM_SERIAL_FLAG_INIT);
    put_frame(&t, 0, "stale", 5); /* skipped */
    put_frame(&t, ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK, NULL, 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(o.result, Z_OK);
    if (o.result == Z_OK) {
        static uint8_t rx[ZM_SERIAL_MTU];
        zm_slice_t batch;
        put_frame(&t, 0, "hello", 5);
        zm_link_set_deadline(&o.link, zm_port_clock_ms() + WAIT_MS);
        CHECK_EQ_INT(zm_link_recv_batch(&o.link, rx, sizeof(rx), &batch), Z_OK);
        CHECK_EQ_MEM(batch.ptr, batch.len, "hello", 5);
        zm_link_close(&o.link);
    }

    /* an INIT that got no answer goes again: a listener may have opened its line only now */
    o.timeout_ms = 2 * WAIT_MS;
    CHECK_EQ_INT(pthread_create(&th, NULL, opener_main, &o), 0);
    CHECK_EQ_INT(get_frame(&t, NULL, NULL, WAIT_MS), ZM_SERIAL_FLAG_INIT);
    CHECK_EQ_INT(get_frame(&t, NULL, NULL, ZM_SERIAL_INIT_RETRY_MS + WAIT_MS), ZM_SERIAL_FLAG_INIT);
    put_frame(&t, ZM_SERIAL_FLAG_INIT | ZM_SERIAL_FLAG_ACK, NULL, 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(o.result, Z_OK);
    if (o.result == Z_OK) {
        zm_link_close(&o.link);
    }

    /* nobody answers: the open gives up at its timeout */
    o.timeout_ms = 200;
    uint64_t start = zm_port_clock_ms();
    opener_main(&o);
    CHECK_EQ_INT(o.result, ZM_E_TIMEOUT);
    CHECK(zm_port_clock_ms() - start < WAIT_MS);

    /* a rate the line cannot do is refused when it opens */
    parse_ep(&o.ep, o.text, sizeof(o.text), t.path, "baudrate=12345", ZM_ENDPOINT_CONNECT);
    o.timeout_ms = 200;
    opener_main(&o);
    CHECK_EQ_INT(o.result, ZM_E_UNSUPPORTED);
    pty_close(&t);
}

/* ---- two sessions over a pair of pseudo-terminals ---------------------------------------------- */

typedef struct {
    pty_t a, b;
    atomic_bool stop;
    pthread_t thread;
} relay_t;

/* Copies bytes between the two masters, as a null-modem cable would, until told to stop. */
static void *relay_main(void *arg)
{
    relay_t *r = arg;
    uint8_t buf[512];
    while (!atomic_load(&r->stop)) {
        struct pollfd pf[2] = {{r->a.master, POLLIN, 0}, {r->b.master, POLLIN, 0}};
        if (poll(pf, 2, 50) <= 0) {
            continue;
        }
        for (int i = 0; i < 2; i++) {
            if (pf[i].revents & POLLIN) {
                ssize_t n = read(pf[i].fd, buf, sizeof(buf));
                if (n > 0) {
                    put_raw(i == 0 ? &r->b : &r->a, buf, (size_t)n);
                }
            }
        }
    }
    return NULL;
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned count;
    char last[64];
} inbox_t;

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    inbox_t *in = ctx;
    pthread_mutex_lock(&in->lock);
    z_bytes_reader_t r = z_bytes_get_reader(z_sample_payload(sample));
    size_t n = z_bytes_reader_read(&r, (uint8_t *)in->last, sizeof(in->last) - 1);
    in->last[n] = '\0';
    in->count++;
    pthread_cond_broadcast(&in->cond);
    pthread_mutex_unlock(&in->lock);
}

static bool inbox_wait(inbox_t *in, unsigned n, unsigned ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000u;
    ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&in->lock);
    while (in->count < n && pthread_cond_timedwait(&in->cond, &in->lock, &ts) == 0) {
    }
    bool ok = in->count >= n;
    pthread_mutex_unlock(&in->lock);
    return ok;
}

static z_result_t open_node(z_owned_session_t *s, const char *mode, uint8_t key, const char *ep)
{
    z_owned_config_t c;
    z_config_default(&c);
    zp_config_insert(z_loan_mut(c), Z_CONFIG_MODE_KEY, mode);
    zp_config_insert(z_loan_mut(c), key, ep);
    return z_open(s, z_move(c), NULL);
}

/* Puts on key until the subscriber has n samples (its declaration takes a moment to arrive). */
static bool put_until(const z_loaned_session_t *s, const char *key, const char *text, inbox_t *in, unsigned n)
{
    z_view_keyexpr_t ke;
    z_view_keyexpr_from_str(&ke, key);
    for (int i = 0; i < 60; i++) {
        z_owned_bytes_t p;
        z_bytes_copy_from_str(&p, text);
        CHECK_EQ_INT(z_put(s, z_loan(ke), z_move(p), NULL), Z_OK);
        if (inbox_wait(in, n, 100)) {
            return true;
        }
    }
    return false;
}

static void test_sessions(void)
{
    static relay_t r;
    if (!pty_open(&r.a) || !pty_open(&r.b)) {
        CHECK(!"no pseudo-terminal");
        return;
    }
    atomic_init(&r.stop, false);
    CHECK_EQ_INT(pthread_create(&r.thread, NULL, relay_main, &r), 0);

    char listen[128], connect[128];
    snprintf(listen, sizeof(listen), "serial/%s#baudrate=115200", r.a.path);
    snprintf(connect, sizeof(connect), "serial/%s#baudrate=115200", r.b.path);
    z_owned_session_t peer, client;
    CHECK_EQ_INT(open_node(&peer, "peer", Z_CONFIG_LISTEN_KEY, listen), Z_OK);
    CHECK_EQ_INT(open_node(&client, "client", Z_CONFIG_CONNECT_KEY, connect), Z_OK);

    static inbox_t at_peer, at_client;
    pthread_mutex_init(&at_peer.lock, NULL);
    pthread_cond_init(&at_peer.cond, NULL);
    pthread_mutex_init(&at_client.lock, NULL);
    pthread_cond_init(&at_client.cond, NULL);

    z_view_keyexpr_t ke;
    z_owned_closure_sample_t cb;
    z_owned_subscriber_t sub_peer, sub_client;
    z_view_keyexpr_from_str(&ke, "serial/to-peer/**");
    z_closure(&cb, on_sample, NULL, &at_peer);
    CHECK_EQ_INT(z_declare_subscriber(z_loan(peer), &sub_peer, z_loan(ke), z_move(cb), NULL), Z_OK);
    z_view_keyexpr_from_str(&ke, "serial/to-client/**");
    z_closure(&cb, on_sample, NULL, &at_client);
    CHECK_EQ_INT(z_declare_subscriber(z_loan(client), &sub_client, z_loan(ke), z_move(cb), NULL), Z_OK);

    CHECK(put_until(z_loan(client), "serial/to-peer/x", "from the client", &at_peer, 1));
    CHECK_EQ_STR(at_peer.last, "from the client");
    CHECK(put_until(z_loan(peer), "serial/to-client/y", "from the peer", &at_client, 1));
    CHECK_EQ_STR(at_client.last, "from the peer");

    /* a payload that needs fragments: larger than the 1500-byte batches of the line */
    static char big[4001];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    unsigned before = at_peer.count;
    CHECK(put_until(z_loan(client), "serial/to-peer/big", big, &at_peer, before + 1));

    z_drop(z_move(sub_client));
    z_drop(z_move(sub_peer));
    z_drop(z_move(client));
    z_drop(z_move(peer));
    atomic_store(&r.stop, true);
    pthread_join(r.thread, NULL);
    pty_close(&r.a);
    pty_close(&r.b);
    pthread_cond_destroy(&at_peer.cond);
    pthread_mutex_destroy(&at_peer.lock);
    pthread_cond_destroy(&at_client.cond);
    pthread_mutex_destroy(&at_client.lock);
}

int main(void)
{
    test_crc();
    test_control_frames();
    test_golden();
    test_round_trip();
    test_encode_pieces();
    test_bad_frames();
    test_endpoint_config();
    test_listener();
    test_opener();
    test_sessions();
    return CHECK_DONE();
}
