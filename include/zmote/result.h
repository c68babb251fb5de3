/*
 * Result codes. Every fallible function returns z_result_t: 0 is success, a negative value an
 * error, a positive value a non-error status (channel states). The public codes keep the values
 * of the Zenoh 1.x C API; zmote's finer codes (ZM_E_*) live below them in one X-macro list so
 * that names, values and messages never drift apart.
 */
#ifndef ZMOTE_RESULT_H
#define ZMOTE_RESULT_H

#include <stdint.h>

typedef int8_t z_result_t;

/* X(name, value, message) */
#define ZM_RESULT_LIST(X)                                                              \
    X(Z_OK, 0, "ok")                                                                   \
    X(Z_CHANNEL_DISCONNECTED, 1, "channel disconnected")                               \
    X(Z_CHANNEL_NODATA, 2, "channel has no data")                                      \
    X(Z_EINVAL, -1, "invalid argument")                                                \
    X(Z_EPARSE, -2, "parse error")                                                     \
    X(Z_EIO, -3, "i/o error")                                                          \
    X(Z_ENETWORK, -4, "network error")                                                 \
    X(Z_ENULL, -5, "null or dropped object")                                           \
    X(Z_EUNAVAILABLE, -6, "unavailable")                                               \
    X(Z_EDESERIALIZE, -7, "deserialization error")                                     \
    X(Z_ESESSION_CLOSED, -8, "session closed")                                         \
    X(Z_EUTF8, -9, "invalid utf-8")                                                    \
    X(ZM_E_NOMEM, -20, "out of memory")                                                \
    X(ZM_E_NO_SPACE, -21, "does not fit in the buffer")                                \
    X(ZM_E_TRUNCATED, -22, "message truncated")                                        \
    X(ZM_E_ZINT_OVERFLOW, -23, "integer exceeds its field's bound")                    \
    X(ZM_E_MSG_UNKNOWN, -24, "unknown message id")                                     \
    X(ZM_E_DECL_UNKNOWN, -25, "unknown declaration id")                                \
    X(ZM_E_EXT_MANDATORY, -26, "unknown mandatory extension")                          \
    X(ZM_E_EXT_ENCODING, -27, "invalid extension encoding")                            \
    X(ZM_E_WHATAMI, -28, "invalid whatami")                                            \
    X(ZM_E_SN_RANGE, -29, "sequence number outside its resolution")                    \
    X(ZM_E_ZID, -30, "invalid zenoh id")                                               \
    X(ZM_E_TRAILING, -31, "trailing bytes after the message")                          \
    X(ZM_E_BODY_UNKNOWN, -32, "unexpected message body")                               \
    X(ZM_E_LOCATOR, -33, "invalid locator")                                            \
    X(ZM_E_FIELD, -34, "invalid field value")                                          \
    X(ZM_E_KEYEXPR, -35, "invalid key expression")                                     \
    X(ZM_E_TIMEOUT, -36, "timed out")                                                  \
    X(ZM_E_CLOSED, -37, "link closed")                                                 \
    X(ZM_E_UNSUPPORTED, -38, "unsupported")                                            \
    X(Z_EGENERIC, INT8_MIN, "generic error")

#define ZM_RESULT_ENUM(name, value, msg) name = (value),
enum { ZM_RESULT_LIST(ZM_RESULT_ENUM) };
#undef ZM_RESULT_ENUM

/** Returns a static, human-readable message for a result code (never NULL). */
const char *zm_strerror(z_result_t r);

#endif /* ZMOTE_RESULT_H */
