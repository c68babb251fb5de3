/*
 * libFuzzer target for user/password authentication's parsers of outside bytes: the Auth
 * extension's body as each handshake message brings it (an InitSyn's or OpenAck's unit, an
 * InitAck's nonce, an OpenSyn's user and HMAC, checked against a dictionary), and the input as
 * a dictionary. Laws: a nonce read is written back to the same value; an OpenSyn this code makes
 * for a dictionary's entry passes the check of that dictionary, one with another password fails.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/usrpwd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)     \
    do {                  \
        if (!(cond)) {    \
            abort();      \
        }                 \
    } while (0)

static const char dict[] = "alice:secret1\n  bob : pa:ss word \n";

/* An OpenSyn's Auth body for user and password under nonce, through the opener's own writer. */
static z_result_t check_made(const char *d, const char *user, const char *password, uint64_t nonce)
{
    uint8_t buf[ZM_USRPWD_OPEN_SYN_EXT_MAX];
    zm_writer_t w;
    zm_writer_init(&w, buf, sizeof(buf));
    REQUIRE(zm_usrpwd_open_syn_ext(&w, user, password, nonce) == Z_OK);
    /* the body, past Auth's header and length */
    zm_reader_t r;
    zm_reader_init(&r, buf + 1, w.len - 1);
    zm_slice_t body;
    REQUIRE(zm_read_zbytes(&r, UINT32_MAX, &body) == Z_OK && zm_reader_left(&r) == 0);
    return zm_usrpwd_check(d, nonce, body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* exact-size heap copies, so that any read past the length is an ASan report */
    uint8_t *body = malloc(size > 0 ? size : 1);
    REQUIRE(body != NULL);
    if (size > 0) {
        memcpy(body, data, size);
    }
    zm_slice_t auth = zm_slice(size > 0 ? body : NULL, size);

    (void)zm_usrpwd_has(auth, ZM_EXT_ENC_UNIT);
    uint64_t nonce = 0;
    if (zm_usrpwd_nonce(auth, &nonce) == Z_OK) {
        uint8_t again[ZM_USRPWD_INIT_ACK_BODY_MAX];
        uint64_t back = ~nonce;
        REQUIRE(zm_usrpwd_nonce(zm_slice(again, zm_usrpwd_init_ack_body(again, nonce)), &back) == Z_OK);
        REQUIRE(back == nonce);
    }
    z_result_t rc = zm_usrpwd_check(dict, nonce, auth);
    REQUIRE(rc == Z_OK || rc < 0);

    /* the input as a dictionary (up to its first NUL) */
    char *text = malloc(size + 1);
    REQUIRE(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    if (zm_usrpwd_dict_valid(text)) {
        (void)zm_usrpwd_check(text, nonce, auth);
        /* its first entry, as the user writes it, gets in; with a wrong password it does not */
        const char *line = text + strspn(text, " \t\r\v\f\n");
        const char *colon = strchr(line, ':');
        const char *end = strchr(line, '\n');
        if (colon != NULL && (end == NULL || colon < end)) {
            size_t ul = (size_t)(colon - line), pl = end != NULL ? (size_t)(end - colon - 1) : strlen(colon + 1);
            char *user = calloc(1, ul + 1), *password = calloc(1, pl + 2);
            REQUIRE(user != NULL && password != NULL);
            memcpy(user, line, ul);
            memcpy(password, colon + 1, pl);
            /* as Rust does, the dictionary's sides are trimmed: present them trimmed too */
            while (ul > 0 && strchr(" \t\r\v\f", user[ul - 1]) != NULL) {
                user[--ul] = '\0';
            }
            char *p = password + strspn(password, " \t\r\v\f");
            size_t n = strlen(p);
            while (n > 0 && strchr(" \t\r\v\f", p[n - 1]) != NULL) {
                p[--n] = '\0';
            }
            if (ul <= ZM_USRPWD_USER_MAX && strchr(user, '\0') == user + ul) {
                /* an earlier line of the same user would shadow it: only the first line is tested */
                REQUIRE(check_made(text, user, p, nonce) == Z_OK);
                p[n] = 'x'; /* one byte more: another password */
                p[n + 1] = '\0';
                REQUIRE(check_made(text, user, p, nonce) == ZM_E_AUTH_BAD);
            }
            free(user);
            free(password);
        }
    }
    free(text);
    free(body);
    return 0;
}
