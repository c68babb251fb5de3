/*
 * User/password authentication: SHA3-256 against FIPS 202's examples, HMAC-SHA3-256 against
 * NIST's (keys shorter than and as long as a block), the Auth extension's bytes as Rust's codec
 * writes them, the acceptor's check of an OpenSyn (right, wrong, unknown, missing, malformed),
 * the InitAck's nonce, and the dictionary read as Rust reads its file. The shared golden vectors
 * (shared/protocol/vectors-*.txt) hold none for the Auth extension; its wire format is checked
 * against Rust 1.10.2 itself by tests/interop/test_usrpwd.py.
 */
#include <stdlib.h>

#include "check.h"
#include "transport/usrpwd.h"
#include "util/sha3.h"

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void check_sha3(const uint8_t *msg, size_t len, const char *want_hex)
{
    uint8_t want[32], got[32];
    unhex(want_hex, want);
    zm_sha3_t c;
    zm_sha3_init(&c);
    zm_sha3_update(&c, msg, len);
    zm_sha3_final(&c, got);
    CHECK_EQ_MEM(got, 32, want, 32);
}

static void test_sha3_vectors(void)
{
    check_sha3((const uint8_t *)"", 0, "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    check_sha3((const uint8_t *)"abc", 3, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha3((const uint8_t *)m448, strlen(m448),
               "41c0dba2a9d6240849100376a8235e2c82e1b9998a999e21db32dd97496d3376");
    /* one byte short of a block, and a whole block: the padding's two cases */
    uint8_t x[136];
    memset(x, 'x', sizeof(x));
    check_sha3(x, 135, "c150125edc74b56fb5cbfdd024fabe20ea5a99bd3c97305bbf7cb55885c106fe");
    check_sha3(x, 136, "5bc276bac9c582508b8fa9b3949e7ed9b6e584ee4d2925b29a426b9931ba1486");
    /* a million 'a', fed in uneven pieces */
    uint8_t *a = malloc(1000000);
    memset(a, 'a', 1000000);
    zm_sha3_t c;
    zm_sha3_init(&c);
    for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 7 % 1013 + 1) {
        zm_sha3_update(&c, a + off, off + step > 1000000 ? 1000000 - off : step);
    }
    uint8_t got[32], want[32];
    zm_sha3_final(&c, got);
    unhex("5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1", want);
    CHECK_EQ_MEM(got, 32, want, 32);
    free(a);
}

static void check_hmac(size_t key_len, const char *msg, const char *want_hex)
{
    uint8_t key[136], want[32], got[32];
    for (size_t i = 0; i < key_len; i++) {
        key[i] = (uint8_t)i;
    }
    unhex(want_hex, want);
    zm_hmac_sha3_256(key, key_len, (const uint8_t *)msg, strlen(msg), got);
    CHECK_EQ_MEM(got, 32, want, 32);
}

static void test_hmac_vectors(void)
{
    /* NIST's HMAC_SHA3-256 examples: keys 00 01 02 ... */
    check_hmac(32, "Sample message for keylen<blocklen",
               "4fe8e202c4f058e8dddc23d8c34e467343e23555e24fc2f025d598f558f67205");
    check_hmac(136, "Sample message for keylen=blocklen",
               "68b94e2e538a9be4103bebb5aa016d47961d4d1aa906061313b557f8af2c3faa");
}

/* The Auth extension of an OpenSyn for usr1/pwd1 under nonce 0x0123456789abcdef, as Rust writes
 * it: Auth 0x43 (zbuf), in it user/password 0x42 (zbuf): <user;zbytes> <hmac;zbytes>, where the
 * HMAC-SHA3-256 is keyed with the nonce's little-endian bytes (Python's hmac computed it). */
#define NONCE 0x0123456789abcdefull
#define USR1_HMAC "37ac82a6c0840fc41cf1a88b0c40aa800834cd9ffd8a8ebb408026b4810b3a42"

static void test_open_syn_bytes(void)
{
    uint8_t buf[256], want[64];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_usrpwd_open_syn_ext(&w, "usr1", "pwd1", NONCE), Z_OK);
    size_t n = unhex("43284226047573723120" USR1_HMAC, want);
    CHECK_EQ_MEM(buf, w.len, want, n);

    /* the acceptor's side of the same bytes */
    zm_slice_t auth = zm_slice(buf + 2, w.len - 2);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, auth), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("other:x\nusr1 : pwd1 \n", NONCE, auth), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd2", NONCE, auth), ZM_E_AUTH_BAD);
    CHECK_EQ_INT(zm_usrpwd_check("usr2:pwd1", NONCE, auth), ZM_E_AUTH_BAD);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE + 1, auth), ZM_E_AUTH_BAD);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(NULL, 0)), ZM_E_AUTH_MISSING);
    /* another method's sub-extension first (pubkey, id 1), then ours */
    uint8_t two[80];
    two[0] = 0x81; /* unit, id 1, more follow */
    memcpy(two + 1, auth.ptr, auth.len);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(two, auth.len + 1)), Z_OK);
    /* a truncated body, a HMAC one byte short, id 2 with another encoding */
    for (size_t cut = 1; cut < auth.len; cut++) {
        CHECK(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(auth.ptr, cut)) != Z_OK);
    }
    uint8_t short_hmac[64];
    memcpy(short_hmac, auth.ptr, auth.len);
    short_hmac[1] = (uint8_t)(short_hmac[1] - 1); /* the body's length */
    short_hmac[7] = 31;                            /* the HMAC's */
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(short_hmac, auth.len - 1)), ZM_E_AUTH_BAD);
    const uint8_t unit = 0x02;
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(&unit, 1)), ZM_E_FIELD);
    /* a user longer than a dictionary entry is simply unknown */
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_usrpwd_open_syn_ext(&w, "usr1usr1", "pwd1", NONCE), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("usr1:pwd1", NONCE, zm_slice(buf + 2, w.len - 2)), ZM_E_AUTH_BAD);
    /* a user the OpenSyn cannot carry */
    char user[ZM_USRPWD_USER_MAX + 2];
    memset(user, 'u', sizeof(user) - 1);
    user[sizeof(user) - 1] = '\0';
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_usrpwd_open_syn_ext(&w, user, "p", NONCE), Z_EINVAL);
    CHECK_EQ_INT(w.len, 0);
    user[ZM_USRPWD_USER_MAX] = '\0';
    CHECK_EQ_INT(zm_usrpwd_open_syn_ext(&w, user, "p", NONCE), Z_OK);
    CHECK(w.len <= ZM_USRPWD_OPEN_SYN_EXT_MAX);
    /* the longest user: every length on two bytes, the acceptor reads it back */
    zm_reader_t r;
    zm_reader_init(&r, buf + 1, w.len - 1);
    zm_slice_t body;
    CHECK_EQ_INT(zm_read_zbytes(&r, UINT32_MAX, &body), Z_OK);
    CHECK_EQ_INT(zm_reader_left(&r), 0);
    char line[ZM_USRPWD_USER_MAX + 8];
    snprintf(line, sizeof(line), "%s:p", user);
    CHECK_EQ_INT(zm_usrpwd_check(line, NONCE, body), Z_OK);
}

static void test_init_and_acks(void)
{
    uint8_t buf[16];
    CHECK_EQ_INT(zm_usrpwd_init_syn_put(buf), 3);
    const uint8_t init_syn[] = {0x43, 0x01, 0x02};
    CHECK_EQ_MEM(buf, 3, init_syn, 3);
    zm_slice_t unit = zm_slice(buf + 2, 1);
    CHECK(zm_usrpwd_has(unit, ZM_EXT_ENC_UNIT));
    CHECK(!zm_usrpwd_has(unit, ZM_EXT_ENC_Z64));
    CHECK(!zm_usrpwd_has(zm_slice(NULL, 0), ZM_EXT_ENC_UNIT));
    const uint8_t pubkey_only[] = {0x01};
    CHECK(!zm_usrpwd_has(zm_slice(pubkey_only, 1), ZM_EXT_ENC_UNIT));

    /* InitAck: z64 0x22 and the nonce as a zint */
    size_t n = zm_usrpwd_init_ack_body(buf, NONCE);
    uint8_t want[16];
    CHECK_EQ_MEM(buf, n, want, unhex("22ef9bafcdf8acd19101", want));
    uint64_t nonce = 0;
    CHECK_EQ_INT(zm_usrpwd_nonce(zm_slice(buf, n), &nonce), Z_OK);
    CHECK(nonce == NONCE);
    n = zm_usrpwd_init_ack_body(buf, UINT64_MAX);
    CHECK_EQ_INT(n, ZM_USRPWD_INIT_ACK_BODY_MAX);
    CHECK_EQ_INT(zm_usrpwd_nonce(zm_slice(buf, n), &nonce), Z_OK);
    CHECK(nonce == UINT64_MAX);
    CHECK_EQ_INT(zm_usrpwd_nonce(zm_slice(NULL, 0), &nonce), ZM_E_AUTH_UNSUPPORTED);
    CHECK_EQ_INT(zm_usrpwd_nonce(unit, &nonce), ZM_E_AUTH_UNSUPPORTED);
    CHECK_EQ_INT(zm_usrpwd_nonce(zm_slice(buf, 3), &nonce), ZM_E_AUTH_UNSUPPORTED); /* truncated */

    /* the acceptor's nonce: its cookie's last 8 bytes, little-endian */
    const uint8_t cookie[10] = {0xaa, 0xbb, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01};
    CHECK(zm_usrpwd_cookie_nonce(zm_slice(cookie, sizeof(cookie))) == NONCE);
}

static void test_dictionary(void)
{
    /* as Rust's own test of its dictionary file */
    CHECK(zm_usrpwd_dict_valid("usr1:pwd1\n"));
    CHECK(!zm_usrpwd_dict_valid("usr1\n"));
    CHECK(!zm_usrpwd_dict_valid("usr1:\n"));
    CHECK(!zm_usrpwd_dict_valid(":pwd1\n"));
    CHECK(!zm_usrpwd_dict_valid(":\n"));
    /* blank lines, blanks around each side, CR LF, no final newline; a colon in a password */
    CHECK(zm_usrpwd_dict_valid("\n  a : b \r\n\n\tc:d:e"));
    CHECK(zm_usrpwd_dict_valid(""));
    CHECK(!zm_usrpwd_dict_valid("a:b\n  \nc :  \n"));

    uint8_t buf[128];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    CHECK_EQ_INT(zm_usrpwd_open_syn_ext(&w, "c", "d:e", NONCE), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("\n  a : b \r\n\n\tc:d:e", NONCE, zm_slice(buf + 2, w.len - 2)), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("\n  a : b \r\n\n\tc:d:e ", NONCE, zm_slice(buf + 2, w.len - 2)), Z_OK);
    CHECK_EQ_INT(zm_usrpwd_check("c:d", NONCE, zm_slice(buf + 2, w.len - 2)), ZM_E_AUTH_BAD);
}

int main(void)
{
    test_sha3_vectors();
    test_hmac_vectors();
    test_open_syn_bytes();
    test_init_and_acks();
    test_dictionary();
    return CHECK_DONE();
}
