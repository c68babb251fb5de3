/**
 * @file
 * Encodings: the table of predefined encodings shared with Rust Zenoh (id and text), a function
 * z_encoding_<name>() and a constant ZP_ENCODING_<NAME> for each, and the functions that parse,
 * print and compare encodings. One X-macro list holds the table, so that the ids, the names and
 * the strings cannot drift apart.
 */
#ifndef ZMOTE_API_ENCODING_H
#define ZMOTE_API_ENCODING_H

#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(id, function suffix, CONSTANT SUFFIX, text) */
/**
 * The predefined encodings, as X(id, function suffix, CONSTANT SUFFIX, text): the ids and texts
 * are Rust Zenoh's. With Z_FEATURE_ENCODING_VALUES each entry gives a function
 * `const z_loaned_encoding_t *z_encoding_<suffix>(void)` (e.g. z_encoding_text_plain()) and a
 * constant `ZP_ENCODING_<SUFFIX>` (a `const z_owned_encoding_t`), see ZM_ENCODING_DECLARE.
 */
#define ZM_ENCODING_LIST(X)                                                                        \
    X(0, zenoh_bytes, ZENOH_BYTES, "zenoh/bytes")                                                  \
    X(1, zenoh_string, ZENOH_STRING, "zenoh/string")                                               \
    X(2, zenoh_serialized, ZENOH_SERIALIZED, "zenoh/serialized")                                   \
    X(3, application_octet_stream, APPLICATION_OCTET_STREAM, "application/octet-stream")           \
    X(4, text_plain, TEXT_PLAIN, "text/plain")                                                     \
    X(5, application_json, APPLICATION_JSON, "application/json")                                   \
    X(6, text_json, TEXT_JSON, "text/json")                                                        \
    X(7, application_cdr, APPLICATION_CDR, "application/cdr")                                      \
    X(8, application_cbor, APPLICATION_CBOR, "application/cbor")                                   \
    X(9, application_yaml, APPLICATION_YAML, "application/yaml")                                   \
    X(10, text_yaml, TEXT_YAML, "text/yaml")                                                       \
    X(11, text_json5, TEXT_JSON5, "text/json5")                                                    \
    X(12, application_python_serialized_object, APPLICATION_PYTHON_SERIALIZED_OBJECT,              \
      "application/python-serialized-object")                                                      \
    X(13, application_protobuf, APPLICATION_PROTOBUF, "application/protobuf")                      \
    X(14, application_java_serialized_object, APPLICATION_JAVA_SERIALIZED_OBJECT,                  \
      "application/java-serialized-object")                                                        \
    X(15, application_openmetrics_text, APPLICATION_OPENMETRICS_TEXT,                              \
      "application/openmetrics-text")                                                              \
    X(16, image_png, IMAGE_PNG, "image/png")                                                       \
    X(17, image_jpeg, IMAGE_JPEG, "image/jpeg")                                                    \
    X(18, image_gif, IMAGE_GIF, "image/gif")                                                       \
    X(19, image_bmp, IMAGE_BMP, "image/bmp")                                                       \
    X(20, image_webp, IMAGE_WEBP, "image/webp")                                                    \
    X(21, application_xml, APPLICATION_XML, "application/xml")                                     \
    X(22, application_x_www_form_urlencoded, APPLICATION_X_WWW_FORM_URLENCODED,                    \
      "application/x-www-form-urlencoded")                                                         \
    X(23, text_html, TEXT_HTML, "text/html")                                                       \
    X(24, text_xml, TEXT_XML, "text/xml")                                                          \
    X(25, text_css, TEXT_CSS, "text/css")                                                          \
    X(26, text_javascript, TEXT_JAVASCRIPT, "text/javascript")                                     \
    X(27, text_markdown, TEXT_MARKDOWN, "text/markdown")                                           \
    X(28, text_csv, TEXT_CSV, "text/csv")                                                          \
    X(29, application_sql, APPLICATION_SQL, "application/sql")                                     \
    X(30, application_coap_payload, APPLICATION_COAP_PAYLOAD, "application/coap-payload")          \
    X(31, application_json_patch_json, APPLICATION_JSON_PATCH_JSON, "application/json-patch+json") \
    X(32, application_json_seq, APPLICATION_JSON_SEQ, "application/json-seq")                      \
    X(33, application_jsonpath, APPLICATION_JSONPATH, "application/jsonpath")                      \
    X(34, application_jwt, APPLICATION_JWT, "application/jwt")                                     \
    X(35, application_mp4, APPLICATION_MP4, "application/mp4")                                     \
    X(36, application_soap_xml, APPLICATION_SOAP_XML, "application/soap+xml")                      \
    X(37, application_yang, APPLICATION_YANG, "application/yang")                                  \
    X(38, audio_aac, AUDIO_AAC, "audio/aac")                                                       \
    X(39, audio_flac, AUDIO_FLAC, "audio/flac")                                                    \
    X(40, audio_mp4, AUDIO_MP4, "audio/mp4")                                                       \
    X(41, audio_ogg, AUDIO_OGG, "audio/ogg")                                                       \
    X(42, audio_vorbis, AUDIO_VORBIS, "audio/vorbis")                                              \
    X(43, video_h261, VIDEO_H261, "video/h261")                                                    \
    X(44, video_h263, VIDEO_H263, "video/h263")                                                    \
    X(45, video_h264, VIDEO_H264, "video/h264")                                                    \
    X(46, video_h265, VIDEO_H265, "video/h265")                                                    \
    X(47, video_h266, VIDEO_H266, "video/h266")                                                    \
    X(48, video_mp4, VIDEO_MP4, "video/mp4")                                                       \
    X(49, video_ogg, VIDEO_OGG, "video/ogg")                                                       \
    X(50, video_raw, VIDEO_RAW, "video/raw")                                                       \
    X(51, video_vp8, VIDEO_VP8, "video/vp8")                                                       \
    X(52, video_vp9, VIDEO_VP9, "video/vp9")

#if Z_FEATURE_ENCODING_VALUES == 1
/**
 * For each entry of ZM_ENCODING_LIST: `const z_loaned_encoding_t *z_encoding_<name>(void)`, a
 * static encoding (never NULL, never to be dropped), and `extern const z_owned_encoding_t
 * ZP_ENCODING_<NAME>`, the same encoding as an owned object (to clone, never to drop).
 */
#define ZM_ENCODING_DECLARE(id, fn, cst, text)        \
    const z_loaned_encoding_t *z_encoding_##fn(void); \
    extern const z_owned_encoding_t ZP_ENCODING_##cst;
ZM_ENCODING_LIST(ZM_ENCODING_DECLARE)
#undef ZM_ENCODING_DECLARE
#endif

/** The default encoding (zenoh/bytes, id 0), static. */
const z_loaned_encoding_t *z_encoding_loan_default(void);

/**
 * Returns owned in *encoding the encoding written as s ("<name>" or "<name>;<schema>"): the
 * part before the first ';' picks the first table entry it is a prefix of, the rest is copied as
 * the schema. Text that names no entry gives id 0 with the whole text as schema. NULL or empty s
 * gives the default encoding. ZM_E_NOMEM leaves *encoding null.
 */
z_result_t z_encoding_from_str(z_owned_encoding_t *encoding, const char *s);
/** Same as z_encoding_from_str for s[0..len). */
z_result_t z_encoding_from_substr(z_owned_encoding_t *encoding, const char *s, size_t len);
/** Replaces the encoding's schema with a copy of the NUL-terminated schema (NULL: none). */
z_result_t z_encoding_set_schema_from_str(z_loaned_encoding_t *encoding, const char *schema);
/** Replaces the encoding's schema with a copy of schema[0..len). ZM_E_NOMEM keeps the old one. */
z_result_t z_encoding_set_schema_from_substr(z_loaned_encoding_t *encoding, const char *schema, size_t len);
/**
 * Returns owned in *string the encoding written as "<name>" or "<name>;<schema>" (an id outside
 * the table has an empty name). ZM_E_NOMEM leaves *string null.
 */
z_result_t z_encoding_to_string(const z_loaned_encoding_t *encoding, z_owned_string_t *string);
/** True when both have the same id and the same schema. */
bool z_encoding_equals(const z_loaned_encoding_t *left, const z_loaned_encoding_t *right);

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_ENCODING_H */
