/*
 * z_bytes: payloads and serialization, without a session. It wraps raw bytes and text into
 * payloads and back, serializes a number, writes and reads a payload piece by piece, serializes
 * composite values (a sequence, key/value pairs, a struct as a tuple) and reads them back, then
 * prints the contiguous runs of a payload made by appending. As zenoh-pico 1.9.0's z_bytes it
 * takes no flags (but -h) and prints only the runs ("slice len: N, slice data: '0x.. '"), one per
 * appended payload. A value that does not come back as it went in is reported on stderr (exit
 * status 1).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "zenoh-pico.h"

#define BYTES_OPTIONS "h"

static int failures;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "z_bytes: %s did not come back as it went in\n", what);
        failures++;
    }
}

static void raw_data(void)
{
    const uint8_t input[] = {1, 2, 3, 4};
    z_owned_bytes_t payload;
    z_owned_slice_t output;
    z_bytes_copy_from_buf(&payload, input, sizeof(input));
    z_bytes_to_slice(z_loan(payload), &output);
    expect(z_slice_len(z_loan(output)) == sizeof(input) &&
               memcmp(input, z_slice_data(z_loan(output)), sizeof(input)) == 0,
           "a buffer");
    z_drop(z_move(payload));
    z_drop(z_move(output));

    /* the same for text; the encoding to give z_put would be z_encoding_zenoh_string() */
    z_owned_string_t text;
    z_bytes_copy_from_str(&payload, "test");
    z_bytes_to_string(z_loan(payload), &text);
    expect(z_string_len(z_loan(text)) == 4 && strncmp("test", z_string_data(z_loan(text)), 4) == 0, "a string");
    z_drop(z_move(payload));
    z_drop(z_move(text));
}

/* Numbers, bools, strings and byte strings serialize alone; the encoding is z_encoding_zenoh_serialized(). */
static void one_number(void)
{
    z_owned_bytes_t payload;
    uint32_t output = 0;
    ze_serialize_uint32(&payload, 1234);
    expect(ze_deserialize_uint32(z_loan(payload), &output) == Z_OK && output == 1234, "a uint32");
    z_drop(z_move(payload));
}

static void writer_and_reader(void)
{
    const uint8_t input[] = {0, 1, 2, 3, 4};
    uint8_t output[5] = {0};
    z_owned_bytes_writer_t writer;
    z_owned_bytes_t payload;
    z_bytes_writer_empty(&writer);
    z_bytes_writer_write_all(z_loan_mut(writer), input, 3);
    z_bytes_writer_write_all(z_loan_mut(writer), input + 3, 2);
    z_bytes_writer_finish(z_move(writer), &payload);
    z_bytes_reader_t reader = z_bytes_get_reader(z_loan(payload));
    size_t n = z_bytes_reader_read(&reader, output, sizeof(output));
    expect(n == sizeof(input) && memcmp(input, output, sizeof(output)) == 0, "written bytes");
    z_drop(z_move(payload));
}

/* A sequence: its length, then the elements. */
static void sequence(void)
{
    const int32_t input[] = {1, 2, 3, 4};
    ze_owned_serializer_t serializer;
    z_owned_bytes_t payload;
    ze_serializer_empty(&serializer);
    ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 4);
    for (size_t i = 0; i < 4; i++) {
        ze_serializer_serialize_int32(z_loan_mut(serializer), input[i]);
    }
    ze_serializer_finish(z_move(serializer), &payload);

    ze_deserializer_t deserializer = ze_deserializer_from_bytes(z_loan(payload));
    size_t count = 0;
    bool ok = ze_deserializer_deserialize_sequence_length(&deserializer, &count) == Z_OK && count == 4;
    for (size_t i = 0; ok && i < count; i++) {
        int32_t v = 0;
        ok = ze_deserializer_deserialize_int32(&deserializer, &v) == Z_OK && v == input[i];
    }
    expect(ok && ze_deserializer_is_done(&deserializer), "a sequence of int32");
    z_drop(z_move(payload));
}

/* Key/value pairs (a map): the pair count, then each key and its value. */
static void key_value_pairs(void)
{
    const int32_t keys[2] = {0, 1};
    const char *values[2] = {"abc", "def"};
    ze_owned_serializer_t serializer;
    z_owned_bytes_t payload;
    ze_serializer_empty(&serializer);
    ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 2);
    for (size_t i = 0; i < 2; i++) {
        ze_serializer_serialize_int32(z_loan_mut(serializer), keys[i]);
        ze_serializer_serialize_str(z_loan_mut(serializer), values[i]);
    }
    ze_serializer_finish(z_move(serializer), &payload);

    ze_deserializer_t deserializer = ze_deserializer_from_bytes(z_loan(payload));
    size_t count = 0;
    bool ok = ze_deserializer_deserialize_sequence_length(&deserializer, &count) == Z_OK && count == 2;
    for (size_t i = 0; ok && i < count; i++) {
        int32_t key = -1;
        z_owned_string_t value;
        z_internal_null(&value); /* dropped below even when the key did not match */
        ok = ze_deserializer_deserialize_int32(&deserializer, &key) == Z_OK && key == keys[i] &&
             ze_deserializer_deserialize_string(&deserializer, &value) == Z_OK &&
             z_string_len(z_loan(value)) == strlen(values[i]) &&
             strncmp(values[i], z_string_data(z_loan(value)), strlen(values[i])) == 0;
        z_drop(z_move(value));
    }
    expect(ok, "key/value pairs");
    z_drop(z_move(payload));
}

typedef struct {
    float f;
    uint64_t u[2][3];
    const char *c;
} custom_struct_t;

/* A struct as a tuple of its fields, the array as a sequence of sequences. */
static void custom_struct(void)
{
    const custom_struct_t cs = {1.0f, {{1, 2, 3}, {4, 5, 6}}, "test"};
    ze_owned_serializer_t serializer;
    z_owned_bytes_t payload;
    ze_serializer_empty(&serializer);
    ze_serializer_serialize_float(z_loan_mut(serializer), cs.f);
    ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 2);
    for (size_t i = 0; i < 2; i++) {
        ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 3);
        for (size_t j = 0; j < 3; j++) {
            ze_serializer_serialize_uint64(z_loan_mut(serializer), cs.u[i][j]);
        }
    }
    ze_serializer_serialize_str(z_loan_mut(serializer), cs.c);
    ze_serializer_finish(z_move(serializer), &payload);

    ze_deserializer_t deserializer = ze_deserializer_from_bytes(z_loan(payload));
    float f = 0.0f;
    size_t rows = 0;
    bool ok = ze_deserializer_deserialize_float(&deserializer, &f) == Z_OK && f == cs.f &&
              ze_deserializer_deserialize_sequence_length(&deserializer, &rows) == Z_OK && rows == 2;
    for (size_t i = 0; ok && i < rows; i++) {
        size_t cols = 0;
        ok = ze_deserializer_deserialize_sequence_length(&deserializer, &cols) == Z_OK && cols == 3;
        for (size_t j = 0; ok && j < cols; j++) {
            uint64_t u = 0;
            ok = ze_deserializer_deserialize_uint64(&deserializer, &u) == Z_OK && u == cs.u[i][j];
        }
    }
    z_owned_string_t c;
    z_internal_null(&c);
    ok = ok && ze_deserializer_deserialize_string(&deserializer, &c) == Z_OK && z_string_len(z_loan(c)) == 4 &&
         strncmp(cs.c, z_string_data(z_loan(c)), 4) == 0;
    expect(ok && ze_deserializer_is_done(&deserializer), "a custom struct");
    z_drop(z_move(c));
    z_drop(z_move(payload));
}

static void print_runs(void)
{
    z_owned_bytes_t parts[3], payload;
    z_bytes_copy_from_str(&parts[0], "abc");
    z_bytes_copy_from_str(&parts[1], "def");
    z_bytes_copy_from_str(&parts[2], "hij");
    z_owned_bytes_writer_t writer;
    z_bytes_writer_empty(&writer);
    for (size_t i = 0; i < 3; i++) {
        z_bytes_writer_append(z_loan_mut(writer), z_move(parts[i]));
    }
    z_bytes_writer_finish(z_move(writer), &payload);

    z_bytes_slice_iterator_t it = z_bytes_get_slice_iterator(z_loan(payload));
    z_view_slice_t run;
    while (z_bytes_slice_iterator_next(&it, &run)) {
        const uint8_t *data = z_slice_data(z_loan(run));
        size_t len = z_slice_len(z_loan(run));
        printf("slice len: %d, slice data: '", (int)len);
        for (size_t i = 0; i < len; i++) {
            printf("0x%02x ", data[i]);
        }
        printf("'\n");
    }
    z_drop(z_move(payload));
}

int main(int argc, char **argv)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, BYTES_OPTIONS)) != -1) {
        if (opt == 'h' || opt == CLI_LONG_HELP) {
            cli_usage("Shows payloads and serialization without a session; prints the runs of an appended payload.",
                      NULL, 0, NULL);
            return 0;
        }
        return cli_bad_option(BYTES_OPTIONS);
    }
    raw_data();
    one_number();
    writer_and_reader();
    sequence();
    key_value_pairs();
    custom_struct();
    print_runs();
    return failures == 0 ? 0 : 1;
}
