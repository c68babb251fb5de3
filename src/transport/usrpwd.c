/*
 * User/password authentication in the handshake's Auth extension (usrpwd.h has the exchange).
 * The parsers here read what a peer sent: every length is bounded by the extension that holds
 * it, and an unexpected shape is an error for the handshake, never an assert.
 */
#include <string.h>

#include "transport/usrpwd.h"
#include "util/sha3.h"

#if ZM_AUTH_USRPWD

#define AUTH_EXT 0x43u   /* INIT's and OPEN's Auth: a zbuf, not mandatory */
#define USRPWD_ID 0x02u  /* the method's id among the Auth body's sub-extensions */
#define ID_BITS 0x0fu

size_t zm_usrpwd_init_syn_put(uint8_t *o)
{
    o[0] = AUTH_EXT;
    o[1] = 1u;
    o[2] = USRPWD_ID; /* a unit: we have credentials */
    return 3u;
}

/*
 * The user/password sub-extension of an Auth body (a list of extensions, each with its Z flag
 * when another follows): the first of id 2, as Rust takes it, which must then have encoding enc
 * (and no M flag), as Rust converts it. Its z64 or zbuf value in *v or *body.
 */
static ZM_NOINLINE z_result_t find(zm_slice_t auth, uint8_t enc, uint64_t *v, zm_slice_t *body)
{
    if (auth.len == 0) {
        return ZM_E_AUTH_MISSING;
    }
    zm_reader_t r;
    zm_reader_init(&r, auth.ptr, auth.len);
    for (bool more = true; more;) {
        uint8_t h;
        ZM_TRY(zm_read_u8(&r, &h));
        more = (h & ZM_FLAG_Z) != 0;
        *v = 0;
        *body = zm_slice(NULL, 0);
        switch (h & ZM_EXT_ENC_MASK) {
        case ZM_EXT_ENC_UNIT:
            break;
        case ZM_EXT_ENC_Z64:
            ZM_TRY(zm_read_zint(&r, v));
            break;
        case ZM_EXT_ENC_ZBUF:
            ZM_TRY(zm_read_zbytes(&r, UINT32_MAX, body));
            break;
        default:
            return ZM_E_EXT_ENCODING;
        }
        if ((h & ID_BITS) == USRPWD_ID) {
            return (h & (uint8_t)~ZM_FLAG_Z) == (enc | USRPWD_ID) ? Z_OK : ZM_E_FIELD;
        }
    }
    return ZM_E_AUTH_MISSING;
}

bool zm_usrpwd_has(zm_slice_t auth, uint8_t enc)
{
    uint64_t v;
    zm_slice_t body;
    return find(auth, enc, &v, &body) == Z_OK;
}

z_result_t zm_usrpwd_nonce(zm_slice_t auth, uint64_t *nonce)
{
    zm_slice_t body;
    return find(auth, ZM_EXT_ENC_Z64, nonce, &body) == Z_OK ? Z_OK : ZM_E_AUTH_UNSUPPORTED;
}

uint64_t zm_usrpwd_cookie_nonce(zm_slice_t cookie)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 8u; i++) {
        v |= (uint64_t)cookie.ptr[cookie.len - 8u + i] << (8u * i);
    }
    return v;
}

size_t zm_usrpwd_init_ack_body(uint8_t *out, uint64_t nonce)
{
    zm_writer_t w;
    zm_writer_init(&w, out, ZM_USRPWD_INIT_ACK_BODY_MAX);
    z_result_t rc = zm_write_u8(&w, ZM_EXT_ENC_Z64 | USRPWD_ID);
    if (rc == Z_OK) {
        rc = zm_write_zint(&w, nonce);
    }
    ZM_ASSERT(rc == Z_OK); /* sized for the longest zint */
    ZM_UNUSED(rc);
    return w.len;
}

static void sign(const uint8_t *password, size_t len, uint64_t nonce, uint8_t out[ZM_SHA3_256_LEN])
{
    uint8_t key[8];
    for (unsigned i = 0; i < 8u; i++) {
        key[i] = (uint8_t)(nonce >> (8u * i));
    }
    zm_hmac_sha3_256(key, sizeof(key), password, len, out);
}

z_result_t zm_usrpwd_open_syn_ext(zm_writer_t *w, const char *user, const char *password, uint64_t nonce)
{
    size_t user_len = strlen(user);
    if (user_len > ZM_USRPWD_USER_MAX) {
        return Z_EINVAL;
    }
    uint8_t hmac[ZM_SHA3_256_LEN];
    sign((const uint8_t *)password, strlen(password), nonce, hmac);
    /* the sub-extension's body, then the sub-extension, then the Auth body around it */
    size_t body = zm_zint_len(user_len) + user_len + 1u + sizeof(hmac);
    size_t sub = 1u + zm_zint_len(body) + body;
    size_t mark = w->len;
    z_result_t rc = zm_write_u8(w, AUTH_EXT);
    if (rc == Z_OK) {
        rc = zm_write_zint(w, sub);
    }
    if (rc == Z_OK) {
        rc = zm_write_u8(w, ZM_EXT_ENC_ZBUF | USRPWD_ID);
    }
    if (rc == Z_OK) {
        rc = zm_write_zint(w, body);
    }
    if (rc == Z_OK) {
        rc = zm_write_zbytes(w, user, user_len);
    }
    if (rc == Z_OK) {
        rc = zm_write_zbytes(w, hmac, sizeof(hmac));
    }
    if (rc != Z_OK) {
        w->len = mark;
    }
    return rc;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static zm_slice_t trim(const char *from, const char *to)
{
    while (from < to && blank(*from)) {
        from++;
    }
    while (to > from && blank(to[-1])) {
        to--;
    }
    return zm_slice(from, (size_t)(to - from));
}

/*
 * The next entry of a dictionary at *at, which moves past it: 1 with its user and password,
 * 0 at the end, -1 for a line that is no `user:password` (no colon, an empty side).
 */
static ZM_NOINLINE int next_entry(const char **at, zm_slice_t *user, zm_slice_t *password)
{
    for (const char *line = *at; *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (end == NULL) {
            end = line + strlen(line);
        }
        *at = *end == '\n' ? end + 1 : end;
        zm_slice_t whole = trim(line, end);
        line = *at;
        if (whole.len == 0) {
            continue;
        }
        const char *colon = memchr(whole.ptr, ':', whole.len);
        if (colon == NULL) {
            return -1;
        }
        *user = trim((const char *)whole.ptr, colon);
        *password = trim(colon + 1, (const char *)whole.ptr + whole.len);
        return user->len > 0 && password->len > 0 ? 1 : -1;
    }
    return 0;
}

bool zm_usrpwd_dict_valid(const char *dict)
{
    zm_slice_t user, password;
    int got;
    while ((got = next_entry(&dict, &user, &password)) > 0) {
    }
    return got == 0;
}

/* An OpenSyn's user and HMAC, from its Auth body. Out of line, as next_entry: the check's frame,
 * which the HMAC's stacks on, holds only what it keeps. */
static ZM_NOINLINE z_result_t open_syn_read(zm_slice_t auth, zm_slice_t *user, zm_slice_t *hmac)
{
    uint64_t v;
    zm_slice_t body;
    ZM_TRY(find(auth, ZM_EXT_ENC_ZBUF, &v, &body));
    zm_reader_t r;
    zm_reader_init(&r, body.ptr, body.len);
    ZM_TRY(zm_read_zbytes(&r, UINT32_MAX, user));
    return zm_read_zbytes(&r, UINT32_MAX, hmac);
}

z_result_t zm_usrpwd_check(const char *dict, uint64_t nonce, zm_slice_t auth)
{
    zm_slice_t user, hmac;
    ZM_TRY(open_syn_read(auth, &user, &hmac));
    zm_slice_t u, password;
    while (next_entry(&dict, &u, &password) > 0) {
        if (!zm_slice_eq(u, user)) {
            continue;
        }
        uint8_t want[ZM_SHA3_256_LEN];
        sign(password.ptr, password.len, nonce, want);
        /* every byte compared, so that the time taken tells nothing of where they differ */
        uint8_t diff = (uint8_t)(hmac.len != sizeof(want));
        for (size_t i = 0; i < hmac.len && i < sizeof(want); i++) {
            diff |= (uint8_t)(hmac.ptr[i] ^ want[i]);
        }
        return diff == 0 ? Z_OK : ZM_E_AUTH_BAD;
    }
    return ZM_E_AUTH_BAD;
}

#endif /* ZM_AUTH_USRPWD */
