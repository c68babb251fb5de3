/*
 * Attachments of the attachment examples: a zenoh-ext list of (key, value) string pairs, what
 * zenoh-pico's and Rust's serializers write for one, made and read with the serialization API.
 * Pairs are printed as they are read, so an attachment of any size needs no memory beyond one
 * pair, and one that is not such a list prints no more than what could be read of it.
 */
#ifndef ZM_EXAMPLES_ATTACHMENT_H
#define ZM_EXAMPLES_ATTACHMENT_H

#include <stdio.h>

#include "zenoh-pico.h"

/** Returns owned in *out an attachment of the one pair (key, value); *out is null on failure. */
static inline z_result_t attachment_of_pair(z_owned_bytes_t *out, const char *key, const char *value)
{
    ze_owned_serializer_t serializer;
    z_result_t r = ze_serializer_empty(&serializer);
    if (r == Z_OK) {
        r = ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 1);
    }
    if (r == Z_OK) {
        r = ze_serializer_serialize_str(z_loan_mut(serializer), key);
    }
    if (r == Z_OK) {
        r = ze_serializer_serialize_str(z_loan_mut(serializer), value);
    }
    ze_serializer_finish(z_move(serializer), out);
    if (r != Z_OK) {
        z_drop(z_move(*out));
    }
    return r;
}

/** Prints the pairs of an attachment as zenoh-pico's examples do; nothing when it has none. */
static inline void attachment_print(const z_loaned_bytes_t *attachment)
{
    ze_deserializer_t deserializer = ze_deserializer_from_bytes(attachment);
    size_t count = 0;
    if (ze_deserializer_deserialize_sequence_length(&deserializer, &count) != Z_OK || count == 0) {
        return;
    }
    printf("    with attachment:\n");
    for (size_t i = 0; i < count; i++) {
        z_owned_string_t key, value;
        if (ze_deserializer_deserialize_string(&deserializer, &key) != Z_OK) {
            return;
        }
        if (ze_deserializer_deserialize_string(&deserializer, &value) != Z_OK) {
            z_drop(z_move(key));
            return;
        }
        printf("     %zu: %.*s, %.*s\n", i, (int)z_string_len(z_loan(key)), z_string_data(z_loan(key)),
               (int)z_string_len(z_loan(value)), z_string_data(z_loan(value)));
        z_drop(z_move(key));
        z_drop(z_move(value));
    }
}

#endif /* ZM_EXAMPLES_ATTACHMENT_H */
