/**
 * @file
 * Serialization in zenoh-ext's format, the one Rust's z_serialize/z_deserialize and Python's
 * zenoh.ext write and read, so that typed data crosses languages: integers and floats as fixed
 * width little-endian, a bool as one byte (0 or 1), the length of a sequence, string or byte
 * string as an unsigned LEB128 varint before its content, a tuple as its fields one after the
 * other, and a map as a sequence of key/value pairs. Nothing marks types on the wire: reader and
 * writer agree on them.
 *
 * A serializer is an owned buffer that grows geometrically and becomes a payload without a copy
 * (ze_serializer_finish); a deserializer is a plain cursor over a payload it borrows. Every write
 * puts a whole item or nothing; every read is bounds-checked, takes a whole item or leaves the
 * cursor where it was, and reports malformed input as Z_EDESERIALIZE.
 *
 * Errors of the writes (ze_serializer_serialize_*): Z_EINVAL for a NULL argument, Z_ENULL for a
 * serializer that is not live, ZM_E_NOMEM when the buffer cannot grow (what was written before
 * stays, and the serializer stays usable). Errors of the reads (ze_deserializer_deserialize_*,
 * ze_deserialize_*): Z_EINVAL for a NULL argument, Z_EDESERIALIZE when the bytes do not hold the
 * item (too few, a bool other than 0 or 1, a malformed or oversized varint, a length beyond the
 * bytes that remain, a string that is not UTF-8; for ze_deserialize_*, bytes left after it),
 * ZM_E_NOMEM when a copy cannot be allocated; on failure *val is left as it was (scalars) or null
 * (slices, strings). None of them blocks; they may be used from any thread, one thread per
 * serializer or deserializer at a time.
 */
#ifndef ZMOTE_API_SERIALIZATION_H
#define ZMOTE_API_SERIALIZATION_H

#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types ------------------------------------------------------------------------------------- */

/**
 * The object behind ze_owned_serializer_t: a payload being written, and whether the serializer
 * is live (made by ze_serializer_empty, not yet finished, dropped or moved away). A serializer
 * that is not live refuses writes with Z_ENULL.
 */
typedef struct {
    zm_api_bytes_writer_t writer; /**< the payload being written */
    bool live;                    /**< made by ze_serializer_empty, not finished, dropped or moved away */
} zm_api_serializer_t;

/** An owned serializer (ze_serializer_empty): the object in `_val`, as z_owned_X_t holds its own. */
typedef struct {
    zm_api_serializer_t _val; /**< the serializer */
} ze_owned_serializer_t;
/** A borrowed serializer, which the ze_serializer_serialize_* writes take. */
typedef zm_api_serializer_t ze_loaned_serializer_t;
/** An owned serializer given away (ze_serializer_move): to ze_serializer_finish or ze_serializer_drop. */
typedef struct {
    ze_owned_serializer_t _this; /**< the serializer given away */
} ze_moved_serializer_t;

/**
 * A read cursor over a payload: a plain value (nothing to drop), valid while the payload it was
 * made from is, which must not change meanwhile.
 */
typedef struct {
    z_bytes_reader_t reader; /**< the cursor */
} ze_deserializer_t;

/* ---- per-type functions of the serializer (as for every owned type: see primitives.h) ---------- */

/** Makes the serializer null (not live); what it held is forgotten, not dropped. */
void ze_internal_serializer_null(ze_owned_serializer_t *obj);
/** True while the serializer is live (an empty one made by ze_serializer_empty included). */
bool ze_internal_serializer_check(const ze_owned_serializer_t *obj);
/** Borrows the serializer (no copy). */
static inline const ze_loaned_serializer_t *ze_serializer_loan(const ze_owned_serializer_t *obj)
{
    return &obj->_val;
}
/** Borrows the serializer for writing (no copy). */
static inline ze_loaned_serializer_t *ze_serializer_loan_mut(ze_owned_serializer_t *obj) { return &obj->_val; }
/** Gives the serializer away to the function it is passed to, which leaves it null. */
static inline ze_moved_serializer_t *ze_serializer_move(ze_owned_serializer_t *obj)
{
    return (ze_moved_serializer_t *)obj;
}
/** Moves src's serializer into obj (obj's old content is forgotten, not dropped) and leaves src null. */
void ze_serializer_take(ze_owned_serializer_t *obj, ze_moved_serializer_t *src);
/** Releases what was written and leaves the serializer null; a null one is left as it is. */
void ze_serializer_drop(ze_moved_serializer_t *obj);
/** Moves the loaned serializer into dst (no copy) and leaves src not live; Z_EINVAL for NULL. */
z_result_t ze_serializer_take_from_loaned(ze_owned_serializer_t *dst, ze_loaned_serializer_t *src);

/* ---- serializer -------------------------------------------------------------------------------- */

/** Returns owned in *serializer an empty, live serializer (allocates on the first write). */
z_result_t ze_serializer_empty(ze_owned_serializer_t *serializer);
/**
 * Takes serializer and returns owned in *bytes what was written, without a copy. A serializer that
 * is not live gives an empty payload; a NULL bytes drops what was written.
 */
void ze_serializer_finish(ze_moved_serializer_t *serializer, z_owned_bytes_t *bytes);

/*
 * The writes below borrow the serializer and their arguments. Each appends one whole item or
 * nothing: Z_EINVAL for a NULL argument, Z_ENULL for a serializer that is not live, ZM_E_NOMEM
 * when the buffer cannot grow (what was written before stays, and the serializer stays usable).
 */
/** Writes val: 1 byte. */
z_result_t ze_serializer_serialize_uint8(ze_loaned_serializer_t *serializer, uint8_t val);
/** Writes val: 2 bytes, little-endian. */
z_result_t ze_serializer_serialize_uint16(ze_loaned_serializer_t *serializer, uint16_t val);
/** Writes val: 4 bytes, little-endian. */
z_result_t ze_serializer_serialize_uint32(ze_loaned_serializer_t *serializer, uint32_t val);
/** Writes val: 8 bytes, little-endian. */
z_result_t ze_serializer_serialize_uint64(ze_loaned_serializer_t *serializer, uint64_t val);
/** Writes val: 1 byte, two's complement. */
z_result_t ze_serializer_serialize_int8(ze_loaned_serializer_t *serializer, int8_t val);
/** Writes val: 2 bytes, little-endian two's complement. */
z_result_t ze_serializer_serialize_int16(ze_loaned_serializer_t *serializer, int16_t val);
/** Writes val: 4 bytes, little-endian two's complement. */
z_result_t ze_serializer_serialize_int32(ze_loaned_serializer_t *serializer, int32_t val);
/** Writes val: 8 bytes, little-endian two's complement. */
z_result_t ze_serializer_serialize_int64(ze_loaned_serializer_t *serializer, int64_t val);
/** Writes the IEEE 754 binary32 bits of val, little-endian. */
z_result_t ze_serializer_serialize_float(ze_loaned_serializer_t *serializer, float val);
/** Writes the IEEE 754 binary64 bits of val, little-endian. */
z_result_t ze_serializer_serialize_double(ze_loaned_serializer_t *serializer, double val);
/** Writes one byte, 1 for true and 0 for false. */
z_result_t ze_serializer_serialize_bool(ze_loaned_serializer_t *serializer, bool val);
/** Writes a byte string: len as a varint, then val[0..len) (val may be NULL when len is 0). */
z_result_t ze_serializer_serialize_buf(ze_loaned_serializer_t *serializer, const uint8_t *val, size_t len);
/** Writes the slice's bytes as a byte string. */
z_result_t ze_serializer_serialize_slice(ze_loaned_serializer_t *serializer, const z_loaned_slice_t *val);
/** Writes the NUL-terminated val (valid UTF-8; not checked) as a string, without the NUL. */
z_result_t ze_serializer_serialize_str(ze_loaned_serializer_t *serializer, const char *val);
/** Writes start[0..len) (valid UTF-8; not checked) as a string. */
z_result_t ze_serializer_serialize_substr(ze_loaned_serializer_t *serializer, const char *start, size_t len);
/** Writes the string's text (valid UTF-8; not checked) as a string. */
z_result_t ze_serializer_serialize_string(ze_loaned_serializer_t *serializer, const z_loaned_string_t *val);
/**
 * Starts a sequence (or a map) of len elements (pairs): writes len as a varint. The elements
 * (keys and values in turn) are then written one after the other.
 */
z_result_t ze_serializer_serialize_sequence_length(ze_loaned_serializer_t *serializer, size_t len);

/* ---- deserializer ------------------------------------------------------------------------------ */

/** Returns a deserializer at the start of bytes (borrowed; NULL gives one with nothing to read). */
ze_deserializer_t ze_deserializer_from_bytes(const z_loaned_bytes_t *bytes);
/** True when nothing is left to read (or deserializer is NULL). */
bool ze_deserializer_is_done(const ze_deserializer_t *deserializer);

/*
 * The reads below borrow the deserializer. Each takes one whole item and advances past it, or
 * fails and leaves the deserializer where it was: Z_EINVAL for a NULL argument, Z_EDESERIALIZE
 * when the remaining bytes do not hold the item (too few, a bool other than 0 or 1, a malformed
 * or oversized varint, a length beyond the bytes that remain, a string that is not UTF-8),
 * ZM_E_NOMEM when a copy cannot be allocated. On failure *val is left as it was (scalars) or
 * null (slices, strings).
 */
/** Reads the next byte into *val. */
z_result_t ze_deserializer_deserialize_uint8(ze_deserializer_t *deserializer, uint8_t *val);
/** Reads the next 2 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_uint16(ze_deserializer_t *deserializer, uint16_t *val);
/** Reads the next 4 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_uint32(ze_deserializer_t *deserializer, uint32_t *val);
/** Reads the next 8 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_uint64(ze_deserializer_t *deserializer, uint64_t *val);
/** Reads the next byte into *val. */
z_result_t ze_deserializer_deserialize_int8(ze_deserializer_t *deserializer, int8_t *val);
/** Reads the next 2 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_int16(ze_deserializer_t *deserializer, int16_t *val);
/** Reads the next 4 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_int32(ze_deserializer_t *deserializer, int32_t *val);
/** Reads the next 8 bytes (little-endian) into *val. */
z_result_t ze_deserializer_deserialize_int64(ze_deserializer_t *deserializer, int64_t *val);
/** Reads the next 4 bytes (IEEE 754 binary32, little-endian) into *val. */
z_result_t ze_deserializer_deserialize_float(ze_deserializer_t *deserializer, float *val);
/** Reads the next 8 bytes (IEEE 754 binary64, little-endian) into *val. */
z_result_t ze_deserializer_deserialize_double(ze_deserializer_t *deserializer, double *val);
/** Reads the next byte, 0 or 1 (any other value is Z_EDESERIALIZE), into *val. */
z_result_t ze_deserializer_deserialize_bool(ze_deserializer_t *deserializer, bool *val);
/**
 * Returns owned in *val the next byte string. When the payload has a holder (it was copied,
 * built or taken, not borrowed from a callback) the slice shares it and nothing is copied or
 * allocated; otherwise the bytes are copied. An empty byte string gives a null slice.
 */
z_result_t ze_deserializer_deserialize_slice(ze_deserializer_t *deserializer, z_owned_slice_t *val);
/**
 * Returns owned in *val a NUL-terminated copy of the next string, which must be valid UTF-8
 * (one allocation; none for an empty string, which gives a null string).
 */
z_result_t ze_deserializer_deserialize_string(ze_deserializer_t *deserializer, z_owned_string_t *val);
/**
 * Reads the element count of a sequence (pair count of a map) into *len. A count larger than
 * the bytes that remain is refused: every element the API writes takes at least one byte, so
 * such a count can only come from malformed input (and never sizes an allocation).
 */
z_result_t ze_deserializer_deserialize_sequence_length(ze_deserializer_t *deserializer, size_t *len);

/* ---- whole payloads ------------------------------------------------------------------------------
 *
 * ze_serialize_X returns owned in *bytes a payload holding the one item (one allocation of its
 * exact size; Z_EINVAL, ZM_E_NOMEM leave *bytes null). ze_deserialize_X reads one item that must
 * span the whole of bytes (borrowed): Z_EDESERIALIZE also when bytes remain after it.
 */

/** Returns owned in *bytes the byte string data[0..len) (data may be NULL when len is 0). */
z_result_t ze_serialize_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len);
/** Returns owned in *bytes the slice's bytes as a byte string. */
z_result_t ze_serialize_slice(z_owned_bytes_t *bytes, const z_loaned_slice_t *slice);
/** Returns owned in *bytes the NUL-terminated value as a string (without the NUL; UTF-8 not checked). */
z_result_t ze_serialize_str(z_owned_bytes_t *bytes, const char *value);
/** Returns owned in *bytes start[0..len) as a string (UTF-8 not checked). */
z_result_t ze_serialize_substr(z_owned_bytes_t *bytes, const char *start, size_t len);
/** Returns owned in *bytes the string's text as a string (UTF-8 not checked). */
z_result_t ze_serialize_string(z_owned_bytes_t *bytes, const z_loaned_string_t *s);
/** Returns owned in *bytes val alone (1 byte). */
z_result_t ze_serialize_uint8(z_owned_bytes_t *bytes, uint8_t val);
/** Returns owned in *bytes val alone (2 bytes, little-endian). */
z_result_t ze_serialize_uint16(z_owned_bytes_t *bytes, uint16_t val);
/** Returns owned in *bytes val alone (4 bytes, little-endian). */
z_result_t ze_serialize_uint32(z_owned_bytes_t *bytes, uint32_t val);
/** Returns owned in *bytes val alone (8 bytes, little-endian). */
z_result_t ze_serialize_uint64(z_owned_bytes_t *bytes, uint64_t val);
/** Returns owned in *bytes val alone (1 byte). */
z_result_t ze_serialize_int8(z_owned_bytes_t *bytes, int8_t val);
/** Returns owned in *bytes val alone (2 bytes, little-endian). */
z_result_t ze_serialize_int16(z_owned_bytes_t *bytes, int16_t val);
/** Returns owned in *bytes val alone (4 bytes, little-endian). */
z_result_t ze_serialize_int32(z_owned_bytes_t *bytes, int32_t val);
/** Returns owned in *bytes val alone (8 bytes, little-endian). */
z_result_t ze_serialize_int64(z_owned_bytes_t *bytes, int64_t val);
/** Returns owned in *bytes val alone (4 bytes, IEEE 754 binary32, little-endian). */
z_result_t ze_serialize_float(z_owned_bytes_t *bytes, float val);
/** Returns owned in *bytes val alone (8 bytes, IEEE 754 binary64, little-endian). */
z_result_t ze_serialize_double(z_owned_bytes_t *bytes, double val);
/** Returns owned in *bytes val alone (1 byte, 0 or 1). */
z_result_t ze_serialize_bool(z_owned_bytes_t *bytes, bool val);

/** Returns owned in *dst the byte string that bytes holds (shared or copied, as above). */
z_result_t ze_deserialize_slice(const z_loaned_bytes_t *bytes, z_owned_slice_t *dst);
/** Returns owned in *str a NUL-terminated copy of the string that bytes holds. */
z_result_t ze_deserialize_string(const z_loaned_bytes_t *bytes, z_owned_string_t *str);
/** Reads into *dst the one uint8 value that bytes holds (1 byte). */
z_result_t ze_deserialize_uint8(const z_loaned_bytes_t *bytes, uint8_t *dst);
/** Reads into *dst the one uint16 value that bytes holds (2 bytes). */
z_result_t ze_deserialize_uint16(const z_loaned_bytes_t *bytes, uint16_t *dst);
/** Reads into *dst the one uint32 value that bytes holds (4 bytes). */
z_result_t ze_deserialize_uint32(const z_loaned_bytes_t *bytes, uint32_t *dst);
/** Reads into *dst the one uint64 value that bytes holds (8 bytes). */
z_result_t ze_deserialize_uint64(const z_loaned_bytes_t *bytes, uint64_t *dst);
/** Reads into *dst the one int8 value that bytes holds (1 byte). */
z_result_t ze_deserialize_int8(const z_loaned_bytes_t *bytes, int8_t *dst);
/** Reads into *dst the one int16 value that bytes holds (2 bytes). */
z_result_t ze_deserialize_int16(const z_loaned_bytes_t *bytes, int16_t *dst);
/** Reads into *dst the one int32 value that bytes holds (4 bytes). */
z_result_t ze_deserialize_int32(const z_loaned_bytes_t *bytes, int32_t *dst);
/** Reads into *dst the one int64 value that bytes holds (8 bytes). */
z_result_t ze_deserialize_int64(const z_loaned_bytes_t *bytes, int64_t *dst);
/** Reads into *dst the one float value that bytes holds (4 bytes, IEEE 754 binary32). */
z_result_t ze_deserialize_float(const z_loaned_bytes_t *bytes, float *dst);
/** Reads into *dst the one double value that bytes holds (8 bytes, IEEE 754 binary64). */
z_result_t ze_deserialize_double(const z_loaned_bytes_t *bytes, double *dst);
/** Reads into *dst the one bool value that bytes holds (1 byte, 0 or 1). */
z_result_t ze_deserialize_bool(const z_loaned_bytes_t *bytes, bool *dst);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_SERIALIZATION_H */
