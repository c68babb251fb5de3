/*
 * Core wire types shared by every message: zenoh ids, timestamps, encodings, wire expressions,
 * extensions. Decoded values borrow from the input (zero-copy): every zm_slice_t inside a decoded
 * message points into the bytes that were decoded, and is valid exactly as long as those bytes
 * are (for a received batch: until the callback that sees it returns). Encoders only read them.
 */
#ifndef ZM_PROTO_CORE_H
#define ZM_PROTO_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/bytes.h"
#include "util/utf8.h"

#define ZM_PROTO_VERSION 0x09

/* Header byte: |Z|F2|F1| ID(5) | */
#define ZM_MID(h) ((uint8_t)((h)&0x1f))
#define ZM_FLAG_1 0x20u
#define ZM_FLAG_2 0x40u
#define ZM_FLAG_Z 0x80u

/* WhatAmI, the 2-bit wire code (INIT, JOIN, HELLO) */
typedef enum { ZM_WAI_ROUTER = 0, ZM_WAI_PEER = 1, ZM_WAI_CLIENT = 2 } zm_whatami_t;
/* ... and the matcher bitmask (SCOUT) */
#define ZM_WHAT_ROUTER 0x01u
#define ZM_WHAT_PEER 0x02u
#define ZM_WHAT_CLIENT 0x04u

/** A zenoh id: 1..16 little-endian bytes of a nonzero u128, as on the wire. */
typedef struct {
    uint8_t len;
    uint8_t id[16];
} zm_zid_t;

/** An HLC timestamp: NTP64 time since the UNIX epoch and the id of its clock. */
typedef struct {
    uint64_t time;
    zm_zid_t id;
} zm_timestamp_t;

/** Encoding: a u16 id and an optional schema (borrowed). */
typedef struct {
    uint16_t id;
    bool has_schema;
    zm_slice_t schema;
} zm_encoding_t;

typedef enum { ZM_MAPPING_RECEIVER = 0, ZM_MAPPING_SENDER = 1 } zm_mapping_t;

/**
 * A key expression on the wire: scope (0 = none, else a declared id) plus a suffix. The N flag
 * (has_suffix) is kept as received; the writer sets it iff the suffix is non-empty.
 */
typedef struct {
    uint16_t scope;
    uint8_t mapping; /* zm_mapping_t: whose id table scope refers to */
    bool has_suffix;
    zm_slice_t suffix;
} zm_wire_expr_t;

/** SourceInfo (PUT/DEL/QUERY/ERR ext 0x41). */
typedef struct {
    zm_zid_t zid;
    uint32_t eid;
    uint32_t sn;
} zm_source_info_t;

/** ResponderId (RESPONSE ext 0x43). */
typedef struct {
    zm_zid_t zid;
    uint32_t eid;
} zm_entity_id_t;

/* Extension header: |Z|ENC(2)|M|ID(4)| */
#define ZM_EXT_ENC_MASK 0x60u
#define ZM_EXT_ENC_UNIT 0x00u
#define ZM_EXT_ENC_Z64 0x20u
#define ZM_EXT_ENC_ZBUF 0x40u
#define ZM_EXT_M 0x10u

/** Unknown, non-mandatory extensions kept raw (header byte with Z cleared on write, body). */
typedef struct {
    uint8_t n;
    uint8_t dropped; /* how many more were skipped for lack of room */
    zm_slice_t raw[ZM_EXT_UNKNOWN_MAX > 0 ? ZM_EXT_UNKNOWN_MAX : 1];
} zm_ext_unknown_t;

/* Network QoS ext value (0x21): |r|r|F|E|D|prio(3)| */
#define ZM_QOS_DEFAULT 0x05u
#define ZM_QOS_PRIO(q) ((uint8_t)((q)&0x07u))
#define ZM_QOS_BLOCK 0x08u
#define ZM_QOS_EXPRESS 0x10u
#define ZM_QOS_DECLARE 0x08u /* Control + Block: Rust's DECLARE/INTEREST/OAM preset */
#define ZM_QOS_REQUEST 0x0du /* Data + Block: Rust's REQUEST/RESPONSE preset */

typedef enum {
    ZM_PRIO_CONTROL = 0,
    ZM_PRIO_REAL_TIME = 1,
    ZM_PRIO_INTERACTIVE_HIGH = 2,
    ZM_PRIO_INTERACTIVE_LOW = 3,
    ZM_PRIO_DATA_HIGH = 4,
    ZM_PRIO_DATA = 5,
    ZM_PRIO_DATA_LOW = 6,
    ZM_PRIO_BACKGROUND = 7,
} zm_priority_t;

/* ---- codecs of the core types --------------------------------------------------------------- */
/* The writers below are pieces of a message: on failure they may leave part of themselves written,
 * which the encoder of the message takes back with the rest (ZM_ENC_TRY to where it began). */

/** zid in "form A": the caller already has len (1..16) from a nibble; reads len bytes. */
ZM_NODISCARD z_result_t zm_zid_read(zm_reader_t *r, uint8_t len, zm_zid_t *out);
ZM_NODISCARD z_result_t zm_zid_write(zm_writer_t *w, const zm_zid_t *zid);
/** Significant length of a zid given as 16 little-endian bytes (0 if all zero). */
uint8_t zm_zid_trim(const uint8_t bytes[16]);

ZM_NODISCARD z_result_t zm_timestamp_read(zm_reader_t *r, zm_timestamp_t *out);
ZM_NODISCARD z_result_t zm_timestamp_write(zm_writer_t *w, const zm_timestamp_t *ts);

ZM_NODISCARD z_result_t zm_encoding_read(zm_reader_t *r, zm_encoding_t *out);
ZM_NODISCARD z_result_t zm_encoding_write(zm_writer_t *w, const zm_encoding_t *e);
static inline bool zm_encoding_is_empty(const zm_encoding_t *e) { return e->id == 0 && !e->has_schema; }

/** Reads scope then, if has_suffix was set from the N flag, the suffix (UTF-8 checked). */
ZM_NODISCARD z_result_t zm_wire_expr_read(zm_reader_t *r, zm_wire_expr_t *we);
ZM_NODISCARD z_result_t zm_wire_expr_write(zm_writer_t *w, const zm_wire_expr_t *we);


/* ---- extensions ---------------------------------------------------------------------------- */

/** One extension as read: its header byte (Z kept) and its value or body. */
typedef struct {
    uint8_t header;
    uint64_t z64;    /* ENC Z64 */
    zm_slice_t body; /* ENC ZBUF */
    zm_slice_t raw;  /* header through end of body, as received */
} zm_ext_t;

/** Reads one extension, whatever its kind; ZM_E_EXT_ENCODING for ENC 0b11. */
ZM_NODISCARD z_result_t zm_ext_read(zm_reader_t *r, zm_ext_t *ext);

/**
 * Handles an extension the caller does not know: an error if mandatory, else kept in u (or
 * counted as dropped when u is full). The reader must be just past the extension.
 */
ZM_NODISCARD z_result_t zm_ext_unknown(zm_reader_t *r, const zm_ext_t *ext, zm_ext_unknown_t *u);

/** Writers, pieces of a message as those above: more = another extension follows (sets Z on this one). */
ZM_NODISCARD z_result_t zm_ext_write_unit(zm_writer_t *w, uint8_t id, bool more);
ZM_NODISCARD z_result_t zm_ext_write_z64(zm_writer_t *w, uint8_t id, uint64_t v, bool more);
ZM_NODISCARD z_result_t zm_ext_write_zbuf(zm_writer_t *w, uint8_t id, zm_slice_t body, bool more);
/** Re-emits the kept unknown extensions; more applies to the last of them. */
ZM_NODISCARD z_result_t zm_ext_write_unknown(zm_writer_t *w, const zm_ext_unknown_t *u, bool more);

/**
 * Reads extensions while the Z chain goes on (more = the Z flag that announced the first one).
 * on() handles each: it sets *known when the header byte is one of its own; others go to
 * zm_ext_unknown(). On error the reader is left at the failing extension's first byte.
 */
typedef z_result_t (*zm_ext_fn)(void *ctx, const zm_ext_t *ext, bool *known);
ZM_NODISCARD z_result_t zm_ext_loop(zm_reader_t *r, bool more, zm_ext_fn on, void *ctx,
                                    zm_ext_unknown_t *unknown);

/*
 * Known extensions as data: a message's table lists each extension it knows, in the order Rust
 * writes them, with the kind of its value and where the value lives in the message struct. One
 * reader and one writer serve every message, so no message carries its own extension code.
 */
enum { /* the kinds every build that reads network messages takes come first, and the ones of
        * queries and replies or multicast last, which keeps the readers' switches short */
    ZM_EXTV_UNIT,      /* presence only */
    ZM_EXTV_U8,        /* z64, kept as its low byte */
    ZM_EXTV_U16,       /* z64, kept as its low 16 bits */
    ZM_EXTV_U64,       /* z64 */
    ZM_EXTV_ZBUF,      /* body, kept as a slice */
    ZM_EXTV_SOURCE,    /* body: zid, eid, sn (zm_source_info_t) */
    ZM_EXTV_TIMESTAMP, /* body: a timestamp that fills it (zm_timestamp_t) */
    ZM_EXTV_U32,       /* z64 that must fit 32 bits */
    ZM_EXTV_TARGET,    /* z64 0..2, a query target kept as a byte */
    ZM_EXTV_ENTITY,    /* body: zid, eid (zm_entity_id_t) */
    ZM_EXTV_ENC_BODY,  /* body: an encoding then a payload to its end (zm_encoding_t, zm_slice_t) */
    ZM_EXTV_SN_PAIRS,  /* body, kept as a slice: 8 pairs of SNs under the SN mask */
};

typedef struct {
    uint8_t header; /* |0|ENC(2)|M|ID(4)|, as on the wire with Z clear */
    uint8_t kind;   /* ZM_EXTV_* */
    uint8_t bit;    /* its bit in the message's presence mask */
    uint8_t offset; /* of its value in the message struct */
} zm_ext_spec_t;

typedef struct {
    const zm_ext_spec_t *spec;
    uint8_t n;
    uint8_t present; /* offset of the message's uint16_t presence mask */
    uint8_t unknown; /* offset of its zm_ext_unknown_t */
} zm_ext_table_t;

/**
 * Reads the extensions that follow header (none without its Z flag) into msg: a known one is an
 * entry of t whose bit is set in entries (a mask over t's entries: what this message takes)
 * and whose header matches; others go to zm_ext_unknown(). Clears the presence mask and the
 * unknown list first. sn_mask bounds ZM_EXTV_SN_PAIRS. On error the reader is left at the
 * failing extension's first byte.
 */
ZM_NODISCARD z_result_t zm_exts_read(zm_reader_t *r, uint8_t header, const zm_ext_table_t *t,
                                     uint16_t entries, void *msg, uint32_t sn_mask);

/** zm_exts_read() for the data path: a message with no extensions costs a test and two stores. */
ZM_NODISCARD static inline z_result_t zm_exts_read_hot(zm_reader_t *r, uint8_t header, const zm_ext_table_t *t,
                                                       uint16_t entries, void *msg)
{
    if (header & ZM_FLAG_Z) {
        return zm_exts_read(r, header, t, entries, msg, 0);
    }
    uint8_t *base = msg;
    zm_ext_unknown_t *u = (zm_ext_unknown_t *)(void *)(base + t->unknown);
    *(uint16_t *)(void *)(base + t->present) = 0;
    u->n = 0;
    u->dropped = 0;
    return Z_OK;
}

/** How many of msg's present extensions among entries zm_exts_write() writes (no unknown ones). */
unsigned zm_exts_known(const zm_ext_table_t *t, uint16_t entries, const void *msg);

/** How many extensions zm_exts_write() writes for msg (unknown: the kept unknown ones too). */
static inline unsigned zm_exts_count(const zm_ext_table_t *t, uint16_t entries, const void *msg, bool unknown)
{
    const uint8_t *base = msg;
    unsigned n = unknown ? ((const zm_ext_unknown_t *)(const void *)(base + t->unknown))->n : 0u;
    if (*(const uint16_t *)(const void *)(base + t->present) != 0) {
        n += zm_exts_known(t, entries, msg);
    }
    return n;
}

/** Writes msg's present extensions among entries in table order, then (unknown) the kept ones. */
ZM_NODISCARD z_result_t zm_exts_write(zm_writer_t *w, const zm_ext_table_t *t, uint16_t entries,
                                      const void *msg, bool unknown);

/** Number of set bits: how many known extensions a presence mask will write. */
static inline unsigned zm_popcount16(uint16_t v)
{
    unsigned n = 0;
    for (; v != 0; v &= (uint16_t)(v - 1)) {
        n++;
    }
    return n;
}

/** Reads a timestamp that must fill exactly the given extension body. */
ZM_NODISCARD z_result_t zm_timestamp_from_body(zm_slice_t body, zm_timestamp_t *ts);
/** zid + eid (+ sn) bodies of SourceInfo / ResponderId: |zid_len-1|0000| zid %eid% [%sn%] */
ZM_NODISCARD z_result_t zm_entity_body_read(zm_slice_t body, zm_zid_t *zid, uint32_t *eid,
                                            uint32_t *sn);
/** Writes an extension whose body is a timestamp, or an entity (zid, eid, optional sn). */
ZM_NODISCARD z_result_t zm_ext_write_timestamp(zm_writer_t *w, uint8_t id, const zm_timestamp_t *ts,
                                               bool more);
ZM_NODISCARD z_result_t zm_ext_write_entity(zm_writer_t *w, uint8_t id, const zm_zid_t *zid,
                                            uint32_t eid, const uint32_t *sn, bool more);

#endif /* ZM_PROTO_CORE_H */
