/*
 * Every Zenoh 1.x message as a plain struct, in three namespaces: scouting, transport, network
 * (with its declarations and zenoh bodies nested). Decoded messages borrow from the input bytes
 * (see proto/core.h); nothing here owns memory. Flags that Rust derives from values (S, E, T, N,
 * extension presence) are kept as explicit booleans or ext bits, so a decoded message re-encodes
 * to exactly the bytes it came from; builders set them the way Rust does (see proto/build.h).
 */
#ifndef ZM_PROTO_MSG_H
#define ZM_PROTO_MSG_H

#include "proto/core.h"

/* ============================== scouting ======================================================= */

#define ZM_MID_SCOUT 0x01
#define ZM_MID_HELLO 0x02

typedef struct {
    uint8_t version;
    uint8_t what; /* ZM_WHAT_* bitmask */
    bool has_zid;
    zm_zid_t zid;
    zm_ext_unknown_t unknown;
} zm_scout_t;

typedef struct {
    uint8_t version;
    uint8_t whatami; /* zm_whatami_t */
    zm_zid_t zid;
    bool has_locators;       /* L flag */
    uint32_t locator_count;  /* entries in locators */
    zm_slice_t locators;     /* the raw n x <locator;z8>, iterate with zm_locators_next */
    zm_ext_unknown_t unknown;
} zm_hello_t;

typedef struct {
    uint8_t id; /* ZM_MID_SCOUT or ZM_MID_HELLO */
    union {
        zm_scout_t scout;
        zm_hello_t hello;
    } body;
} zm_scouting_msg_t;

/* ============================== transport ====================================================== */

#define ZM_MID_T_OAM 0x00
#define ZM_MID_INIT 0x01
#define ZM_MID_OPEN 0x02
#define ZM_MID_CLOSE 0x03
#define ZM_MID_KEEP_ALIVE 0x04
#define ZM_MID_FRAME 0x05
#define ZM_MID_FRAGMENT 0x06
#define ZM_MID_JOIN 0x07

#define ZM_RESOLUTION_DEFAULT 0x0au
#define ZM_BATCH_DEFAULT 65535u
#define ZM_JOIN_BATCH_DEFAULT 8192u

/* INIT extension bits, in write order */
#define ZM_INIT_EXT_QOS 0x0001u         /* 0x01 unit */
#define ZM_INIT_EXT_QOS_LINK 0x0002u    /* 0x21 z64 */
#define ZM_INIT_EXT_SHM 0x0004u         /* 0x42 zbuf */
#define ZM_INIT_EXT_AUTH 0x0008u        /* 0x43 zbuf */
#define ZM_INIT_EXT_MLINK 0x0010u       /* 0x44 zbuf */
#define ZM_INIT_EXT_LOWLATENCY 0x0020u  /* 0x05 unit */
#define ZM_INIT_EXT_COMPRESSION 0x0040u /* 0x06 unit */
#define ZM_INIT_EXT_PATCH 0x0080u       /* 0x27 z64 */
#define ZM_INIT_EXT_REGION 0x0100u      /* 0x48 zbuf */

typedef struct {
    bool ack; /* A: InitAck */
    uint8_t version;
    uint8_t whatami;
    zm_zid_t zid;
    bool has_size; /* S */
    uint8_t resolution;
    uint16_t batch_size;
    zm_slice_t cookie; /* InitAck only */
    uint16_t exts;     /* ZM_INIT_EXT_* present */
    uint64_t qos_link;
    zm_slice_t shm, auth, mlink, region;
    uint64_t patch;
    zm_ext_unknown_t unknown;
} zm_init_t;

/* OPEN extension bits, in write order */
#define ZM_OPEN_EXT_QOS 0x0001u          /* 0x01 unit */
#define ZM_OPEN_EXT_SHM 0x0002u          /* 0x42 zbuf (1.10.2) */
#define ZM_OPEN_EXT_AUTH 0x0004u         /* 0x43 zbuf */
#define ZM_OPEN_EXT_MLINK 0x0008u        /* syn: 0x44 zbuf; ack: 0x04 unit */
#define ZM_OPEN_EXT_LOWLATENCY 0x0010u   /* 0x05 unit */
#define ZM_OPEN_EXT_COMPRESSION 0x0020u  /* 0x06 unit */
#define ZM_OPEN_EXT_REMOTE_BOUND 0x0040u /* 0x27 z64 */

typedef struct {
    bool ack;         /* A: OpenAck */
    bool lease_secs;  /* T: lease counted in seconds */
    uint64_t lease;   /* as on the wire: seconds if lease_secs, else milliseconds */
    uint32_t initial_sn;
    zm_slice_t cookie; /* OpenSyn only */
    uint16_t exts;
    zm_slice_t shm, auth, mlink;
    uint64_t remote_bound;
    zm_ext_unknown_t unknown;
} zm_open_t;

#define ZM_CLOSE_GENERIC 0x00
#define ZM_CLOSE_UNSUPPORTED 0x01
#define ZM_CLOSE_INVALID 0x02
#define ZM_CLOSE_MAX_SESSIONS 0x03
#define ZM_CLOSE_MAX_LINKS 0x04
#define ZM_CLOSE_EXPIRED 0x05
#define ZM_CLOSE_UNRESPONSIVE 0x06
#define ZM_CLOSE_CONNECTION_TO_SELF 0x07

typedef struct {
    bool session; /* S: the whole session, not only this link */
    uint8_t reason;
    uint16_t exts; /* none known: always 0 */
    zm_ext_unknown_t unknown;
} zm_close_t;

typedef struct {
    uint16_t exts; /* none known: always 0 */
    zm_ext_unknown_t unknown;
} zm_keep_alive_t;

/**
 * FRAME header. Its network messages follow it in the batch and are read one by one with
 * zm_batch_next_network() (or written after it with zm_network_encode()).
 */
typedef struct {
    bool reliable;
    uint32_t sn;
    bool has_qos; /* ext 0x31 (M): the channel priority */
    uint8_t qos;
    zm_ext_unknown_t unknown;
} zm_frame_t;

typedef struct {
    bool reliable;
    bool more; /* M: more fragments follow */
    uint32_t sn;
    bool has_qos; /* ext 0x31 (M) */
    uint8_t qos;
    bool first; /* ext 0x02 unit */
    bool drop;  /* ext 0x03 unit */
    zm_slice_t payload; /* the rest of the batch */
    zm_ext_unknown_t unknown;
} zm_fragment_t;

#define ZM_JOIN_EXT_QOS 0x0001u   /* 0x51 zbuf M: 8 x (reliable sn, best-effort sn) */
#define ZM_JOIN_EXT_SHM 0x0002u   /* 0x52 zbuf M */
#define ZM_JOIN_EXT_PATCH 0x0004u /* 0x27 z64 */

typedef struct {
    uint8_t version;
    uint8_t whatami;
    zm_zid_t zid;
    bool has_size; /* S */
    uint8_t resolution;
    uint16_t batch_size;
    bool lease_secs; /* T */
    uint64_t lease;
    uint32_t next_sn_reliable;
    uint32_t next_sn_best_effort;
    uint16_t exts;
    zm_slice_t qos_sns; /* validated: 8 pairs of zints */
    zm_slice_t shm;
    uint64_t patch;
    zm_ext_unknown_t unknown;
} zm_join_t;

/* OAM body encodings (header bits 5-6, transport and network alike) */
#define ZM_OAM_UNIT 0x00u
#define ZM_OAM_Z64 0x01u
#define ZM_OAM_ZBUF 0x02u

typedef struct {
    uint16_t id;
    uint8_t enc; /* ZM_OAM_* */
    uint64_t z64;
    zm_slice_t zbuf;
    bool has_qos; /* transport OAM only: ext 0x31 (M); network OAM uses zm_net_exts_t */
    uint8_t qos;
    zm_ext_unknown_t unknown; /* transport OAM only */
} zm_oam_t;

typedef struct {
    uint8_t id; /* ZM_MID_* of the transport namespace */
    union {
        zm_oam_t oam;
        zm_init_t init;
        zm_open_t open;
        zm_close_t close;
        zm_keep_alive_t keep_alive;
        zm_frame_t frame;
        zm_fragment_t fragment;
        zm_join_t join;
    } body;
} zm_transport_msg_t;

/* ============================== zenoh bodies =================================================== */

#define ZM_MID_PUT 0x01
#define ZM_MID_DEL 0x02
#define ZM_MID_QUERY 0x03
#define ZM_MID_REPLY 0x04
#define ZM_MID_ERR 0x05

/*
 * PUT and DEL: a DEL is a PUT without encoding and payload (its encoder writes neither, its
 * decoder leaves them empty), so one struct, one encoder and one decoder serve both, and a
 * program that only puts links nothing more for deletes. The extension bits are shared too.
 */
#define ZM_PUT_EXT_SOURCE 0x01u     /* 0x41 zbuf */
#define ZM_PUT_EXT_SHM 0x02u        /* PUT: 0x12 unit M */
#define ZM_PUT_EXT_ATTACHMENT 0x04u /* PUT: 0x43 zbuf; DEL: 0x42 zbuf */

typedef struct {
    bool has_timestamp; /* T */
    zm_timestamp_t timestamp;
    bool has_encoding; /* E (PUT only) */
    zm_encoding_t encoding;
    uint16_t exts; /* ZM_PUT_EXT_* */
    zm_source_info_t source;
    zm_slice_t attachment;
    zm_slice_t payload; /* PUT only */
    zm_ext_unknown_t unknown;
} zm_put_t;

#define ZM_DEL_EXT_SOURCE ZM_PUT_EXT_SOURCE
#define ZM_DEL_EXT_ATTACHMENT ZM_PUT_EXT_ATTACHMENT

typedef zm_put_t zm_del_t;

typedef enum {
    ZM_CONSOLIDATION_AUTO = 0,
    ZM_CONSOLIDATION_NONE = 1,
    ZM_CONSOLIDATION_MONOTONIC = 2,
    ZM_CONSOLIDATION_LATEST = 3,
} zm_consolidation_t;

#define ZM_QUERY_EXT_SOURCE 0x01u     /* 0x41 zbuf */
#define ZM_QUERY_EXT_SHM 0x02u        /* 0x04 unit: the body is in shared memory */
#define ZM_QUERY_EXT_BODY 0x04u       /* 0x43 zbuf: encoding + payload */
#define ZM_QUERY_EXT_ATTACHMENT 0x08u /* 0x45 zbuf */

typedef struct {
    bool has_consolidation; /* C */
    uint8_t consolidation;  /* zm_consolidation_t, as on the wire */
    bool has_parameters;    /* P */
    zm_slice_t parameters;
    uint16_t exts; /* ZM_QUERY_EXT_* */
    zm_source_info_t source;
    zm_encoding_t body_encoding;
    zm_slice_t body_payload;
    zm_slice_t attachment;
    zm_ext_unknown_t unknown;
} zm_query_t;

typedef struct {
    bool has_consolidation;
    uint8_t consolidation;
    uint8_t body_id; /* ZM_MID_PUT or ZM_MID_DEL */
    union {
        zm_put_t put;
        zm_del_t del;
    } body;
    zm_ext_unknown_t unknown;
} zm_reply_t;

#define ZM_ERR_EXT_SOURCE 0x01u /* 0x41 zbuf */
#define ZM_ERR_EXT_SHM 0x02u    /* 0x12 unit M */

typedef struct {
    bool has_encoding; /* E */
    zm_encoding_t encoding;
    uint16_t exts; /* ZM_ERR_EXT_* */
    zm_source_info_t source;
    zm_slice_t payload;
    zm_ext_unknown_t unknown;
} zm_err_t;

/* ============================== declarations =================================================== */

#define ZM_DECL_KEYEXPR 0x00
#define ZM_UNDECL_KEYEXPR 0x01
#define ZM_DECL_SUBSCRIBER 0x02
#define ZM_UNDECL_SUBSCRIBER 0x03
#define ZM_DECL_QUERYABLE 0x04
#define ZM_UNDECL_QUERYABLE 0x05
#define ZM_DECL_TOKEN 0x06
#define ZM_UNDECL_TOKEN 0x07
#define ZM_DECL_FINAL 0x1a

/**
 * One declaration. id is the expr id (z16) for key expressions, the entity id (u32) otherwise.
 * wire_expr is the declared expression for D_*, and the 0x5F extension for U_* (has_ext_wire).
 */
typedef struct {
    uint8_t kind; /* ZM_DECL_* / ZM_UNDECL_* */
    uint32_t id;
    zm_wire_expr_t wire_expr;
    bool has_ext_wire;    /* U_*: 0x5F extension present */
    bool has_qbl_info;    /* D_QUERYABLE: 0x21 extension present */
    bool qbl_complete;
    uint16_t qbl_distance;
    zm_ext_unknown_t unknown;
} zm_declaration_t;

/* ============================== network ======================================================== */

#define ZM_MID_N_INTEREST 0x19
#define ZM_MID_N_RESPONSE_FINAL 0x1a
#define ZM_MID_N_RESPONSE 0x1b
#define ZM_MID_N_REQUEST 0x1c
#define ZM_MID_N_PUSH 0x1d
#define ZM_MID_N_DECLARE 0x1e
#define ZM_MID_N_OAM 0x1f

/* Network extension bits shared by all network messages (each uses the ones it has), in the
 * order Rust writes them. */
#define ZM_NET_EXT_QOS 0x0001u        /* 0x21 z64 */
#define ZM_NET_EXT_TIMESTAMP 0x0002u  /* 0x42 zbuf */
#define ZM_NET_EXT_RESPONDER 0x0004u  /* RESPONSE 0x43 zbuf */
#define ZM_NET_EXT_TARGET 0x0008u     /* REQUEST 0x34 z64 M */
#define ZM_NET_EXT_BUDGET 0x0010u     /* REQUEST 0x25 z64 */
#define ZM_NET_EXT_TIMEOUT 0x0020u    /* REQUEST 0x26 z64 */
#define ZM_NET_EXT_NODEID 0x0040u     /* 0x33 z64 M */
#define ZM_NET_EXT_TS_STACK 0x0080u   /* 0x47 zbuf */

typedef enum {
    ZM_TARGET_BEST_MATCHING = 0,
    ZM_TARGET_ALL = 1,
    ZM_TARGET_ALL_COMPLETE = 2,
} zm_query_target_t;

/** Extensions common to network messages; which ones apply depends on the message. */
typedef struct {
    uint16_t present; /* ZM_NET_EXT_* */
    uint8_t qos;
    uint16_t nodeid;
    zm_timestamp_t timestamp;
    zm_slice_t ts_stack; /* raw body, skipped */
    uint8_t target;
    uint32_t budget;
    uint64_t timeout_ms;
    zm_entity_id_t responder;
    zm_ext_unknown_t unknown;
} zm_net_exts_t;

typedef struct {
    zm_wire_expr_t wire_expr;
    uint8_t body_id; /* ZM_MID_PUT or ZM_MID_DEL */
    union {
        zm_put_t put;
        zm_del_t del;
    } body;
} zm_push_t;

/*
 * A PUSH as a put sends it, from its parts: the key (a declared id, a suffix, or both), the QoS
 * byte (its extension is written only when it is not ZM_QOS_DEFAULT) and the body, borrowed: no
 * zm_network_msg_t to fill, no copy of the body (zm_push_encode). Or, with body NULL, a PUT whose
 * PUSH was encoded once up to its payload (a publisher's: zm_push_head_encode): head_len bytes of
 * head (which has ZM_PUSH_HEAD_MAX bytes), then payload; qos is still the one head carries, and
 * wire_expr and body_id are not read.
 */
#define ZM_PUSH_HEAD_MAX 16u
typedef struct {
    zm_wire_expr_t wire_expr;
    uint8_t qos;
    uint8_t body_id; /* ZM_MID_PUT or ZM_MID_DEL */
    const zm_put_t *body;
    const uint8_t *head;
    size_t head_len;
    zm_slice_t payload;
} zm_push_ref_t;

typedef struct {
    uint32_t rid;
    zm_wire_expr_t wire_expr;
    zm_query_t query;
} zm_request_t;

typedef struct {
    uint32_t rid;
    zm_wire_expr_t wire_expr;
    uint8_t body_id; /* ZM_MID_REPLY or ZM_MID_ERR */
    union {
        zm_reply_t reply;
        zm_err_t err;
    } body;
} zm_response_t;

typedef struct {
    uint32_t rid;
} zm_response_final_t;

#define ZM_INTEREST_FINAL 0x0u
#define ZM_INTEREST_CURRENT 0x1u
#define ZM_INTEREST_FUTURE 0x2u
#define ZM_INTEREST_CURRENT_FUTURE 0x3u

/* INTEREST options byte: |A|M|N|R|T|Q|S|K| */
#define ZM_INTEREST_K 0x01u
#define ZM_INTEREST_S 0x02u
#define ZM_INTEREST_Q 0x04u
#define ZM_INTEREST_T 0x08u
#define ZM_INTEREST_R 0x10u
#define ZM_INTEREST_N 0x20u
#define ZM_INTEREST_M 0x40u
#define ZM_INTEREST_A 0x80u

/**
 * INTEREST. options is the byte as on the wire (absent for Final); when R is set, wire_expr is
 * the restriction and the writer derives N and M from it.
 */
typedef struct {
    uint32_t id;
    uint8_t mode; /* ZM_INTEREST_FINAL .. CURRENT_FUTURE */
    uint8_t options;
    zm_wire_expr_t wire_expr; /* meaningful iff options & ZM_INTEREST_R */
} zm_interest_t;

typedef struct {
    bool has_interest_id; /* I */
    uint32_t interest_id;
    zm_declaration_t decl;
} zm_declare_t;

typedef struct {
    uint8_t id; /* ZM_MID_N_* */
    zm_net_exts_t ext;
    union {
        zm_push_t push;
        zm_request_t request;
        zm_response_t response;
        zm_response_final_t response_final;
        zm_interest_t interest;
        zm_declare_t declare;
        zm_oam_t oam; /* network OAM: its own fields; ext holds qos/timestamp */
    } body;
} zm_network_msg_t;

#endif /* ZM_PROTO_MSG_H */
