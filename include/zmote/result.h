/**
 * @file
 * Result codes. Every fallible function returns z_result_t: 0 is success, a negative value an
 * error, a positive value a non-error status (channel states). Public codes keep the names and
 * values zenoh-pico 1.x gives them, so programs written for it compare correctly; zmote's finer
 * codes (ZM_E_*) sit at values zenoh-pico leaves unused. One X-macro list holds every distinct
 * code, so that names, values and messages never drift apart: ZM_RESULT_LIST below is the table
 * of codes, and zm_strerror() gives each one's message.
 */
#ifndef ZMOTE_RESULT_H
#define ZMOTE_RESULT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int8_t z_result_t;

/**
 * @typedef z_result_t
 * What every fallible function returns: Z_OK (0) on success, a negative code on failure, a
 * positive one for a status that is not a failure (Z_CHANNEL_DISCONNECTED, Z_CHANNEL_NODATA).
 * Each code is an enumerator named in ZM_RESULT_LIST; zm_strerror() gives its message.
 */

/**
 * Every result code, as X(name, value, message): each becomes an enumerator `name = value`, and
 * zm_strerror() returns `message` for it. Names starting with "_Z_" are zenoh-pico's own
 * spellings, kept for source compatibility (its examples test e.g. `!= _Z_RES_OK`); they are the
 * only identifiers with a leading underscore in this file. Many of zenoh-pico's codes exist only
 * so that its programs compile; each function's documentation names the codes it returns.
 */
#define ZM_RESULT_LIST(X)                                                              \
    X(Z_OK, 0, "ok")                                                                   \
    X(Z_CHANNEL_DISCONNECTED, 1, "channel disconnected")                               \
    X(Z_CHANNEL_NODATA, 2, "channel has no data")                                      \
    X(Z_NO_DATA_PROCESSED, 3, "no data processed")                                     \
    X(Z_SYNC_GROUP_CLOSED, 6, "sync group closed")                                     \
    /* zenoh-c style codes without a zenoh-pico counterpart */                         \
    X(Z_EPARSE, -2, "parse error")                                                     \
    X(Z_EIO, -3, "i/o error")                                                          \
    X(Z_ENETWORK, -4, "network error")                                                 \
    X(Z_EUNAVAILABLE, -6, "unavailable")                                               \
    X(Z_EUTF8, -9, "invalid utf-8")                                                    \
    /* zmote's own codes: -20..-59, a range zenoh-pico does not use */                 \
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
    X(ZM_E_BUSY, -39, "resource busy")                                                 \
    X(ZM_E_AGAIN, -40, "not ready yet, nothing was done")                              \
    X(ZM_E_LIMIT, -41, "a configured limit was reached")                               \
    X(ZM_E_TOO_LARGE, -42, "message too large to send in this build")                 \
    X(ZM_E_CHECKSUM, -43, "checksum mismatch")                                         \
    X(ZM_E_REFUSED, -44, "connection refused")                                         \
    X(ZM_E_ADDR_IN_USE, -45, "address already in use")                                 \
    X(ZM_E_UNREACHABLE, -46, "network or host unreachable")                            \
    X(ZM_E_NO_HOST, -47, "host name not resolved")                                     \
    X(ZM_E_TLS_UNKNOWN_CA, -52, "TLS: certificate not signed by a trusted CA")       \
    X(ZM_E_TLS_NAME, -53, "TLS: certificate name mismatch")                           \
    X(ZM_E_TLS_EXPIRED, -54, "TLS: certificate expired or not yet valid")             \
    X(ZM_E_TLS_REFUSED, -55, "TLS: handshake refused by the peer")                    \
    X(ZM_E_TLS_HANDSHAKE, -56, "TLS: handshake failed")                               \
    X(ZM_E_TLS_CONFIG, -57, "TLS: certificate, key or CA missing or unreadable")      \
    X(ZM_E_AUTH_UNSUPPORTED, -48, "the peer does not authenticate by user and password")   \
    X(ZM_E_AUTH_REFUSED, -49, "refused by the peer's authentication: bad user or password") \
    X(ZM_E_AUTH_BAD, -50, "bad user or password")                                      \
    X(ZM_E_AUTH_MISSING, -51, "credentials required, none presented")                 \
    /* zenoh-pico's public and internal codes, with its values */                      \
    X(Z_ERR_CANCELLED, -69, "operation cancelled")                                     \
    X(_Z_ERR_KEYEXPR_DECLARED_ON_ANOTHER_SESSION, -70,                                 \
      "key expression declared on another session")                                    \
    X(Z_ETIMEDOUT, -71, "timed out")                                                   \
    X(Z_EDESERIALIZE, -72, "deserialization error")                                    \
    X(Z_ESESSION_CLOSED, -73, "session closed")                                        \
    X(_Z_ERR_OVERFLOW, -74, "overflow")                                                \
    X(Z_EINVAL, -75, "invalid argument")                                               \
    X(_Z_ERR_DID_NOT_READ, -76, "did not read")                                        \
    X(_Z_ERR_CONNECTION_CLOSED, -77, "connection closed")                              \
    X(_Z_ERR_SYSTEM_OUT_OF_MEMORY, -78, "system out of memory")                        \
    X(_Z_ERR_SYSTEM_TASK_FAILED, -79, "system task failed")                            \
    X(_Z_ERR_SYSTEM_GENERIC, -80, "system error")                                      \
    X(_Z_ERR_UNDERFLOW, -81, "underflow")                                              \
    X(_Z_ERR_SCOUT_NO_RESULTS, -87, "scouting found nothing")                          \
    X(_Z_ERR_CONFIG_INVALID_MODE, -90, "invalid mode in the configuration")            \
    X(_Z_ERR_CONFIG_LOCATOR_INVALID, -91, "invalid locator in the configuration")      \
    X(_Z_ERR_CONFIG_LOCATOR_SCHEMA_UNKNOWN, -92, "unknown locator scheme")             \
    X(_Z_ERR_CONFIG_UNSUPPORTED_PEER_UNICAST, -93, "peer unicast unsupported")         \
    X(_Z_ERR_CONFIG_UNSUPPORTED_CLIENT_MULTICAST, -94, "client multicast unsupported") \
    X(_Z_ERR_CONFIG_FAILED_INSERT, -95, "configuration insert failed")                 \
    X(_Z_ERR_TRANSPORT_NOT_ENOUGH_BYTES, -97, "not enough bytes")                      \
    X(_Z_ERR_TRANSPORT_NO_SPACE, -98, "no space in the transport buffer")              \
    X(_Z_ERR_TRANSPORT_RX_FAILED, -99, "receive failed")                               \
    X(_Z_ERR_TRANSPORT_TX_FAILED, -100, "transmission failed")                         \
    X(_Z_ERR_TRANSPORT_OPEN_SN_RESOLUTION, -101, "sequence number resolution refused") \
    X(_Z_ERR_TRANSPORT_OPEN_FAILED, -102, "transport open failed")                     \
    X(_Z_ERR_TRANSPORT_NOT_AVAILABLE, -103, "transport not available")                 \
    X(_Z_ERR_QUERY_NOT_MATCH, -107, "query does not match")                            \
    X(_Z_ERR_KEYEXPR_NOT_MATCH, -108, "key expression does not match")                 \
    X(_Z_ERR_KEYEXPR_UNKNOWN, -109, "unknown key expression")                          \
    X(_Z_ERR_ENTITY_UNKNOWN, -110, "unknown entity")                                   \
    X(_Z_ERR_ENTITY_DECLARATION_FAILED, -111, "entity declaration failed")             \
    X(_Z_ERR_MESSAGE_EXTENSION_MANDATORY_AND_UNKNOWN, -112,                            \
      "unknown mandatory extension")                                                   \
    X(_Z_ERR_MESSAGE_TRANSPORT_UNKNOWN, -113, "unknown transport message")             \
    X(_Z_ERR_MESSAGE_ZENOH_UNKNOWN, -114, "unknown zenoh message")                     \
    X(_Z_ERR_MESSAGE_ZENOH_DECLARATION_UNKNOWN, -115, "unknown declaration")           \
    X(_Z_ERR_MESSAGE_FLAG_UNEXPECTED, -116, "unexpected message flag")                 \
    X(_Z_ERR_MESSAGE_UNEXPECTED, -117, "unexpected message")                           \
    X(_Z_ERR_MESSAGE_SERIALIZATION_FAILED, -118, "message serialization failed")       \
    X(_Z_ERR_MESSAGE_DESERIALIZATION_FAILED, -119, "message deserialization failed")   \
    X(_Z_ERR_TRANSPORT_RX_DURATION_EXPIRED, -120, "receive duration expired")          \
    X(_Z_ERR_FAILED_TO_SPAWN_TASK, -121, "failed to spawn a task")                     \
    X(Z_ENULL, -127, "null or dropped object")                                         \
    X(Z_EGENERIC, INT8_MIN, "generic error")

/** Makes one enumerator of an entry of ZM_RESULT_LIST. */
#define ZM_RESULT_ENUM(name, value, msg) name = (value),
enum { ZM_RESULT_LIST(ZM_RESULT_ENUM) };
#undef ZM_RESULT_ENUM

/* zenoh-pico's second names for codes of the list above. */
/** zenoh-pico's second name of Z_OK. */
#define _Z_RES_OK Z_OK
/** zenoh-pico's second name of Z_CHANNEL_DISCONNECTED. */
#define _Z_RES_CHANNEL_CLOSED Z_CHANNEL_DISCONNECTED
/** zenoh-pico's second name of Z_CHANNEL_NODATA. */
#define _Z_RES_CHANNEL_NODATA Z_CHANNEL_NODATA
/** zenoh-pico's second name of Z_NO_DATA_PROCESSED. */
#define _Z_NO_DATA_PROCESSED Z_NO_DATA_PROCESSED
/** zenoh-pico's second name of Z_EINVAL. */
#define _Z_ERR_INVALID Z_EINVAL
/** zenoh-pico's second name of Z_ESESSION_CLOSED. */
#define _Z_ERR_SESSION_CLOSED Z_ESESSION_CLOSED
/** zenoh-pico's second name of Z_ENULL. */
#define _Z_ERR_NULL Z_ENULL
/** zenoh-pico's second name of Z_EGENERIC. */
#define _Z_ERR_GENERIC Z_EGENERIC
/** zenoh-pico's internal status of a reference count still above zero; no zmote function returns it. */
#define _Z_RESOURCE_POSITIVE_REF_COUNT 4

/**
 * Returns a static, human-readable message for a result code: the message of its entry in
 * ZM_RESULT_LIST, or "unknown error" for a value that is none of them. Never NULL; any thread.
 */
const char *zm_strerror(z_result_t r);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_RESULT_H */
