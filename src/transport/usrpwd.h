/*
 * User/password authentication of a unicast handshake, as Rust Zenoh's `transport/auth/usrpwd`.
 * It rides in INIT's and OPEN's Auth extension (0x43, a zbuf), whose body is a list of one
 * sub-extension per method; user/password is id 2:
 *   InitSyn  unit 0x02         the opener has credentials
 *   InitAck  z64  0x22 nonce   the acceptor's challenge
 *   OpenSyn  zbuf 0x42         <user;zbytes> <hmac;zbytes>: HMAC-SHA3-256 of the password, keyed
 *                              with the nonce's 8 little-endian bytes
 *   OpenAck  unit 0x02         accepted
 * A refusal is a CLOSE (GENERIC). The acceptor's nonce is the last 8 bytes of the cookie it
 * sends in the same InitAck (random, or a stateless cookie's MAC), so it holds no state of its own.
 * Everything here borrows; nothing allocates.
 */
#ifndef ZM_TRANSPORT_USRPWD_H
#define ZM_TRANSPORT_USRPWD_H

#include "proto/core.h"
#include "util/bytes.h"

#if ZM_AUTH_USRPWD

/** Longest user name presented (the OpenSyn that carries it is built on the opener's stack). */
#define ZM_USRPWD_USER_MAX 128u
/** Most bytes zm_usrpwd_open_syn_ext writes: the Auth header and length, the sub-extension's, the
 *  user and the HMAC with their lengths. */
#define ZM_USRPWD_OPEN_SYN_EXT_MAX (1u + 2u + 1u + 2u + 2u + ZM_USRPWD_USER_MAX + 1u + 32u)
/** The body of an InitSyn's or OpenAck's Auth extension: the user/password unit. */
#define ZM_USRPWD_UNIT 0x02u
/** Most bytes of an InitAck's Auth body: the z64 sub-extension's header and a 64-bit zint (9 bytes at most). */
#define ZM_USRPWD_INIT_ACK_BODY_MAX 10u

/** Appends an InitSyn's Auth extension (3 bytes, the last extension) at o; returns its length. */
size_t zm_usrpwd_init_syn_put(uint8_t *o);

/** Whether an Auth body holds the user/password sub-extension with the encoding enc (ZM_EXT_ENC_*):
 *  a unit in an InitSyn or OpenAck. */
bool zm_usrpwd_has(zm_slice_t auth, uint8_t enc);

/** The nonce of an InitAck's Auth body: ZM_E_AUTH_UNSUPPORTED if it holds none (or a malformed
 *  body: the peer does not speak user/password). */
ZM_NODISCARD z_result_t zm_usrpwd_nonce(zm_slice_t auth, uint64_t *nonce);

/** The nonce an acceptor takes from its cookie (which the caller checked holds 8 bytes at least). */
uint64_t zm_usrpwd_cookie_nonce(zm_slice_t cookie);

/** Writes an InitAck's Auth body for nonce into out (ZM_USRPWD_INIT_ACK_BODY_MAX bytes); its length. */
size_t zm_usrpwd_init_ack_body(uint8_t *out, uint64_t nonce);

/** Appends an OpenSyn's Auth extension (the last one) answering nonce with user and password. */
ZM_NODISCARD z_result_t zm_usrpwd_open_syn_ext(zm_writer_t *w, const char *user, const char *password, uint64_t nonce);

/**
 * Checks an OpenSyn's Auth body against dict (lines of `user:password`, see zm_usrpwd_dict_valid)
 * for nonce: Z_OK when its user is there and its HMAC is that of the user's password;
 * ZM_E_AUTH_MISSING without a user/password sub-extension, ZM_E_FIELD for a malformed one,
 * ZM_E_AUTH_BAD for an unknown user or a wrong password.
 */
ZM_NODISCARD z_result_t zm_usrpwd_check(const char *dict, uint64_t nonce, zm_slice_t auth);

/** Whether dict is a valid dictionary, as Rust reads its dictionary file: lines of
 *  `user:password`, each side trimmed of blanks and neither empty, blank lines skipped. */
bool zm_usrpwd_dict_valid(const char *dict);

#endif /* ZM_AUTH_USRPWD */
#endif /* ZM_TRANSPORT_USRPWD_H */
