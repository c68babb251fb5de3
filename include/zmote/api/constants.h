/**
 * @file
 * Constants of the Zenoh C API: enumerations, configuration keys and their accepted values,
 * and the protocol and timing constants programs written for zenoh-pico read. Values are those
 * of zenoh-pico 1.9.0, so that a program's stored numbers and switch statements keep working.
 */
#ifndef ZMOTE_API_CONSTANTS_H
#define ZMOTE_API_CONSTANTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration keys (zp_config_insert / zp_config_get) ---------------------------------- */
/*
 * z_open reads the mode, the connect and listen locators, the zid, the scouting keys (z_scout
 * reads those too), the connection establishment keys, the user/password authentication keys
 * and, with Z_FEATURE_LINK_TLS, the TLS keys. The other keys are stored and returned by
 * zp_config_get, for programs written for zenoh-pico, but change nothing: zmote has no
 * automatic timestamps.
 */

/** The session's mode: Z_CONFIG_MODE_CLIENT (the default) or Z_CONFIG_MODE_PEER. */
#define Z_CONFIG_MODE_KEY 0x40
/** Mode value: a client, connected to one router (or peer) by the first connect locator that answers. */
#define Z_CONFIG_MODE_CLIENT "client"
/** Mode value: a peer, connected to every connect locator and listening on the listen locator. */
#define Z_CONFIG_MODE_PEER "peer"
/** The mode of z_config_default(): client. */
#define Z_CONFIG_MODE_DEFAULT Z_CONFIG_MODE_CLIENT

/** A locator to connect to, e.g. "tcp/192.168.1.2:7447"; inserting it again adds another one. */
#define Z_CONFIG_CONNECT_KEY 0x41
/** A locator to listen on; makes the session a peer. */
#define Z_CONFIG_LISTEN_KEY 0x42
/**
 * User name presented to the routers and peers this session connects to, with
 * Z_CONFIG_PASSWORD_KEY (both or neither; at most 128 bytes), as Rust Zenoh's
 * transport/auth/usrpwd/user (read with ZM_AUTH_USRPWD, docs/auth.md).
 */
#define Z_CONFIG_USER_KEY 0x43
/** Password presented with Z_CONFIG_USER_KEY (Rust's transport/auth/usrpwd/password). */
#define Z_CONFIG_PASSWORD_KEY 0x44
/**
 * zmote's: the users a listening peer accepts, one `user:password` a line (the content of Rust's
 * transport/auth/usrpwd/dictionary_file, lines split by newline characters). With it, every peer
 * that connects must present one of them; without it, none is asked for credentials.
 */
#define ZM_CONFIG_USRPWD_DICTIONARY_KEY 0x70
/**
 * Multicast scouting, "true" or "false": without it a session with no locator has nothing to
 * connect to (Z_EINVAL), and a listening peer answers no SCOUT.
 */
#define Z_CONFIG_MULTICAST_SCOUTING_KEY 0x45
/** Default of Z_CONFIG_MULTICAST_SCOUTING_KEY, set by z_config_default(). */
#define Z_CONFIG_MULTICAST_SCOUTING_DEFAULT "true"
/** The group scouted on, `udp/<IPv4 group>:<port>[#iface=<interface>]` (no iface: the system's routes pick). */
#define Z_CONFIG_MULTICAST_LOCATOR_KEY 0x46
/** Default of Z_CONFIG_MULTICAST_LOCATOR_KEY, set by z_config_default(). */
#define Z_CONFIG_MULTICAST_LOCATOR_DEFAULT "udp/224.0.0.224:7446"
/** How long z_scout(), or z_open() looking for a node to connect to, scouts, in milliseconds. */
#define Z_CONFIG_SCOUTING_TIMEOUT_KEY 0x47
/** Default of Z_CONFIG_SCOUTING_TIMEOUT_KEY, set by z_config_default(). */
#define Z_CONFIG_SCOUTING_TIMEOUT_DEFAULT "1000"
/** What to scout for, a z_what_t mask as decimal text (1 to 7). */
#define Z_CONFIG_SCOUTING_WHAT_KEY 0x48
/** zenoh-pico's default of Z_CONFIG_SCOUTING_WHAT_KEY: routers and peers. */
#define Z_CONFIG_SCOUTING_WHAT_DEFAULT "3"
/** The session's zid: 32 hex digits (dashes of a UUID allowed); random when absent. */
#define Z_CONFIG_SESSION_ZID_KEY 0x49
/** Whether puts get a timestamp automatically (stored, not used: pass one in the options). */
#define Z_CONFIG_ADD_TIMESTAMP_KEY 0x4A
/** zenoh-pico's default of Z_CONFIG_ADD_TIMESTAMP_KEY. */
#define Z_CONFIG_ADD_TIMESTAMP_DEFAULT "false"
/** TLS: the root CA certificate file (PEM or DER) that signs the peers' certificates. */
#define Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_KEY 0x4B
/** TLS: the root CA certificate in base64 (the file's content; wins over the file). */
#define Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_BASE64_KEY 0x4C
/** TLS: a listener's private key file. */
#define Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_KEY 0x4D
/** TLS: a listener's private key in base64. */
#define Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_BASE64_KEY 0x4E
/** TLS: a listener's certificate file. */
#define Z_CONFIG_TLS_LISTEN_CERTIFICATE_KEY 0x4F
/** TLS: a listener's certificate in base64. */
#define Z_CONFIG_TLS_LISTEN_CERTIFICATE_BASE64_KEY 0x50
/** TLS: "true" for mutual TLS: a listener requires a client certificate signed by the root CA. */
#define Z_CONFIG_TLS_ENABLE_MTLS_KEY 0x51
/** TLS: a client's private key file (mutual TLS). */
#define Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_KEY 0x52
/** TLS: a client's private key in base64. */
#define Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_BASE64_KEY 0x53
/** TLS: a client's certificate file (mutual TLS). */
#define Z_CONFIG_TLS_CONNECT_CERTIFICATE_KEY 0x54
/** TLS: a client's certificate in base64. */
#define Z_CONFIG_TLS_CONNECT_CERTIFICATE_BASE64_KEY 0x55
/** TLS: "false" to accept a server certificate for another name than the host connected to. */
#define Z_CONFIG_TLS_VERIFY_NAME_ON_CONNECT_KEY 0x56

/*
 * Connection establishment (zenoh-pico's and Rust's connect/listen timeout and exit_on_failure):
 * how long z_open retries the endpoints whose failure may pass (nobody listening yet, a network
 * down, a line held), and whether a failure ends it. Milliseconds as decimal text: "0" tries each
 * endpoint once, "-1" retries until it succeeds; retries pause 10 ms, doubling up to 1 s. An
 * endpoint that fails for good (malformed, unsupported) is not retried. Read by z_open only where
 * Z_FEATURE_UNSTABLE_API is defined; elsewhere the defaults apply.
 */
#ifdef Z_FEATURE_UNSTABLE_API
/**
 * How long z_open retries the connect endpoints: a client until one answers, a peer until it has
 * a link (listening counts) or, with Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY "true", all of them.
 */
#define Z_CONFIG_CONNECT_TIMEOUT_KEY 0x57
/**
 * "true": a peer's z_open fails unless every connect endpoint is reached within the timeout, and
 * at once when one fails for good. A client needs one endpoint whatever it says.
 */
#define Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY 0x58
/** How long z_open retries the listen endpoint. */
#define Z_CONFIG_LISTEN_TIMEOUT_KEY 0x59
/** "true": z_open fails when the listen endpoint cannot be opened; "false": the peer goes on without. */
#define Z_CONFIG_LISTEN_EXIT_ON_FAILURE_KEY 0x5A
#endif
/** Default of Z_CONFIG_CONNECT_TIMEOUT_KEY: each endpoint once. */
#define Z_CONFIG_CONNECT_TIMEOUT_DEFAULT "0"
/** Default of Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY in client mode. */
#define Z_CONFIG_CONNECT_EXIT_ON_FAILURE_CLIENT_DEFAULT "true"
/** Default of Z_CONFIG_CONNECT_EXIT_ON_FAILURE_KEY in peer mode. */
#define Z_CONFIG_CONNECT_EXIT_ON_FAILURE_PEER_DEFAULT "false"
/** Default of Z_CONFIG_LISTEN_TIMEOUT_KEY: once. */
#define Z_CONFIG_LISTEN_TIMEOUT_DEFAULT "0"
/** Default of Z_CONFIG_LISTEN_EXIT_ON_FAILURE_KEY. */
#define Z_CONFIG_LISTEN_EXIT_ON_FAILURE_DEFAULT "true"

/* ---- protocol and timing constants ---------------------------------------------------------- */
/* Values programs written for zenoh-pico read; those zmote itself uses say so. */

/** Bytes of a zenoh id (z_id_t). */
#define Z_ZID_LENGTH 16
/** zenoh-pico's multicast JOIN period in milliseconds (zmote has no multicast transport). */
#define Z_JOIN_INTERVAL 2500
/** zenoh-pico's sequence number resolution code (zmote negotiates its own in the handshake). */
#define Z_SN_RESOLUTION 0x02
/** zenoh-pico's request id resolution code. */
#define Z_REQ_RESOLUTION 0x02
/** Timeout of a get, in milliseconds, when its options give 0 (also the options' default). */
#define Z_GET_TIMEOUT_DEFAULT 10000
/** Most transports a listening peer holds: ZM_PEERS_MAX. */
#define Z_LISTEN_MAX_CONNECTION_NB ZM_PEERS_MAX
/** How long zp_read waits for data, in milliseconds. */
#define Z_CONFIG_SOCKET_TIMEOUT 100
/** Lease announced to peers, in milliseconds: ZM_LEASE_MS. */
#define Z_TRANSPORT_LEASE ZM_LEASE_MS
/** zenoh-pico's lease factor (zmote sends ZM_KEEP_ALIVE_DIVISOR keep-alives per lease instead). */
#define Z_TRANSPORT_LEASE_EXPIRE_FACTOR 3
/**
 * How long z_open waits for each connect locator to connect, then again for its handshake, in
 * milliseconds.
 */
#define Z_TRANSPORT_CONNECT_TIMEOUT 10000
/** zenoh-pico's accept timeout (zmote's is ZM_ACCEPT_TIMEOUT_MS). */
#define Z_TRANSPORT_ACCEPT_TIMEOUT 1000
/** Largest batch received on a unicast link: ZM_BATCH_UNICAST_SIZE. */
#define Z_BATCH_UNICAST_SIZE ZM_BATCH_UNICAST_SIZE
/** Largest message sent in fragments or reassembled: ZM_FRAG_MAX_SIZE. */
#define Z_FRAG_MAX_SIZE ZM_FRAG_MAX_SIZE

/** Selector parameter asking for a time range; a get with it consolidates none by default. */
#define Z_SELECTOR_TIME "_time="
/**
 * Selector parameter that accepts replies on any key: a query whose parameters hold it may be
 * answered on keys outside its key expression (as Z_REPLY_KEYEXPR_ANY).
 */
#define Z_SELECTOR_QUERY_MATCH "_anyke"

/* ---- enumerations ----------------------------------------------------------------------------- */

/** What to look for when scouting: a mask of node kinds (z_scout_options_t, Z_CONFIG_SCOUTING_WHAT_KEY). */
typedef enum {
    Z_WHAT_ROUTER = 0x01,
    Z_WHAT_PEER = 0x02,
    Z_WHAT_CLIENT = 0x04,
    Z_WHAT_ROUTER_PEER = 0x03,
    Z_WHAT_ROUTER_CLIENT = 0x05,
    Z_WHAT_PEER_CLIENT = 0x06,
    Z_WHAT_ROUTER_PEER_CLIENT = 0x07,
} z_what_t;

/** The kind of a node. */
typedef enum z_whatami_t {
    Z_WHATAMI_ROUTER = 0x01,
    Z_WHATAMI_PEER = 0x02,
    Z_WHATAMI_CLIENT = 0x04,
} z_whatami_t;
/** zenoh-pico's default node kind. */
#define Z_WHATAMI_DEFAULT Z_WHATAMI_ROUTER

/**
 * Where a publication (or query) may go, or where a subscriber (or queryable) accepts them from:
 * anywhere, this session only, or other nodes only (Z_FEATURE_LOCAL_SUBSCRIBER,
 * Z_FEATURE_LOCAL_QUERYABLE).
 */
typedef enum z_locality_t {
    Z_LOCALITY_ANY = 0,
    Z_LOCALITY_SESSION_LOCAL = 1,
    Z_LOCALITY_REMOTE = 2,
} z_locality_t;

/** Returns Z_LOCALITY_ANY. */
static inline z_locality_t z_locality_default(void) { return Z_LOCALITY_ANY; }

/** Why a key expression is not canonical (zenoh-pico's detailed statuses). */
typedef enum {
    Z_KEYEXPR_CANON_SUCCESS = 0,
    Z_KEYEXPR_CANON_LONE_DOLLAR_STAR = -1,
    Z_KEYEXPR_CANON_SINGLE_STAR_AFTER_DOUBLE_STAR = -2,
    Z_KEYEXPR_CANON_DOUBLE_STAR_AFTER_DOUBLE_STAR = -3,
    Z_KEYEXPR_CANON_EMPTY_CHUNK = -4,
    Z_KEYEXPR_CANON_STARS_IN_CHUNK = -5,
    Z_KEYEXPR_CANON_DOLLAR_AFTER_DOLLAR_OR_STAR = -6,
    Z_KEYEXPR_CANON_CONTAINS_SHARP_OR_QMARK = -7,
    Z_KEYEXPR_CANON_CONTAINS_UNBOUND_DOLLAR = -8
} zp_keyexpr_canon_status_t;

/** How two key expressions relate (z_keyexpr_relation_to). */
typedef enum {
    Z_KEYEXPR_INTERSECTION_LEVEL_DISJOINT = 0,
    Z_KEYEXPR_INTERSECTION_LEVEL_INTERSECTS = 1,
    Z_KEYEXPR_INTERSECTION_LEVEL_INCLUDES = 2,
    Z_KEYEXPR_INTERSECTION_LEVEL_EQUALS = 3,
} z_keyexpr_intersection_level_t;

/** What a sample announces: a value put on its key, or the deletion of its key. */
typedef enum {
    Z_SAMPLE_KIND_PUT = 0,
    Z_SAMPLE_KIND_DELETE = 1,
    Z_SAMPLE_KIND_DEFAULT = Z_SAMPLE_KIND_PUT
} z_sample_kind_t;

/**
 * How a get consolidates its replies: NONE hands every reply over as it comes; MONOTONIC hands a
 * reply over only when it is newer than the last one handed over on its key; LATEST keeps only the
 * newest reply of each key and hands them over when the get ends; AUTO (the default) is LATEST,
 * or NONE when the parameters ask for a time range (Z_SELECTOR_TIME). At most ZM_GET_KEPT_MAX
 * keys are consolidated per get; replies on more keys pass unconsolidated. LATEST keeps at most
 * ZM_GET_KEPT_BYTES per get (ZM_GETS_KEPT_BYTES per session): a reply past them is handed over at
 * once, and its key consolidated as MONOTONIC from then on.
 */
typedef enum {
    Z_CONSOLIDATION_MODE_AUTO = -1,
    Z_CONSOLIDATION_MODE_NONE = 0,
    Z_CONSOLIDATION_MODE_MONOTONIC = 1,
    Z_CONSOLIDATION_MODE_LATEST = 2,
    Z_CONSOLIDATION_MODE_DEFAULT = Z_CONSOLIDATION_MODE_AUTO
} z_consolidation_mode_t;

/** The channel a message goes on: reliable (the default) or best effort. */
typedef enum {
    Z_RELIABILITY_BEST_EFFORT = 1,
    Z_RELIABILITY_RELIABLE = 0,
    Z_RELIABILITY_DEFAULT = Z_RELIABILITY_RELIABLE
} z_reliability_t;

/** What a full queue does to a new message: drop it, or block the sender until there is room. */
typedef enum {
    Z_CONGESTION_CONTROL_BLOCK = 1,
    Z_CONGESTION_CONTROL_DROP = 0,
    Z_CONGESTION_CONTROL_DEFAULT = Z_CONGESTION_CONTROL_DROP
} z_congestion_control_t;

/** Congestion control of puts and deletes by default: Z_CONGESTION_CONTROL_DROP. */
static inline z_congestion_control_t z_internal_congestion_control_default_push(void)
{
    return Z_CONGESTION_CONTROL_DROP;
}
/** Congestion control of queries and replies by default: Z_CONGESTION_CONTROL_BLOCK. */
static inline z_congestion_control_t z_internal_congestion_control_default_request(void)
{
    return Z_CONGESTION_CONTROL_BLOCK;
}

/** Message priority, 1 (most urgent) to 7; 0 is reserved for the protocol's control traffic. */
typedef enum {
    Z_PRIORITY_REAL_TIME = 1,
    Z_PRIORITY_INTERACTIVE_HIGH = 2,
    Z_PRIORITY_INTERACTIVE_LOW = 3,
    Z_PRIORITY_DATA_HIGH = 4,
    Z_PRIORITY_DATA = 5,
    Z_PRIORITY_DATA_LOW = 6,
    Z_PRIORITY_BACKGROUND = 7,
    Z_PRIORITY_DEFAULT = Z_PRIORITY_DATA
} z_priority_t;

/**
 * Which queryables a query is for: the best matching ones (the default), all of them, or all the
 * complete ones (those declared complete that cover the key).
 */
typedef enum {
    Z_QUERY_TARGET_BEST_MATCHING = 0,
    Z_QUERY_TARGET_ALL = 1,
    Z_QUERY_TARGET_ALL_COMPLETE = 2,
    Z_QUERY_TARGET_DEFAULT = Z_QUERY_TARGET_BEST_MATCHING
} z_query_target_t;

/**
 * Which keys a querier accepts replies on: those that match its query's key expression (the
 * default), or any.
 */
typedef enum z_reply_keyexpr_t {
    Z_REPLY_KEYEXPR_ANY = 0,
    Z_REPLY_KEYEXPR_MATCHING_QUERY = 1,
    Z_REPLY_KEYEXPR_DEFAULT = Z_REPLY_KEYEXPR_MATCHING_QUERY
} z_reply_keyexpr_t;

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_CONSTANTS_H */
