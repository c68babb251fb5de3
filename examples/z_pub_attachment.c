/*
 * z_pub_attachment: a publisher that puts a numbered string once a second, each sample with an
 * encoding, a timestamp and an attachment: the key/value pairs ("source", "C") and ("index", n)
 * serialized as zenoh-ext does a list of string pairs, so any Zenoh subscriber can read them.
 * Flags, defaults and printed lines are zenoh-pico 1.9.0's z_pub_attachment: -k key, -v value,
 * -n count, -e/-m/-l session config.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "zenoh-pico.h"

#if Z_FEATURE_PUBLICATION == 1

#define PUB_OPTIONS "k:v:e:m:l:n:h"

static const cli_flag_t FLAGS[] = {
    {'k', "KEYEXPR", "key expression to publish on", "demo/example/zenoh-pico-pub"},
    {'v', "VALUE", "the value put, after its number", "Pub from Pico!"},
    {'n', "COUNT", "puts before exiting", "no limit"},
    CLI_SESSION_FLAGS,
};
static const char SUMMARY[] = "Puts a numbered value once a second, with an encoding, a timestamp and an attachment.";

typedef struct {
    const char *key;
    const char *value;
    int count;
} pub_args_t;

static int parse_args(int argc, char **argv, z_owned_config_t *config, pub_args_t *args)
{
    int opt;
    while ((opt = cli_getopt(argc, argv, PUB_OPTIONS)) != -1) {
        if (cli_config_option(config, opt, optarg)) {
            continue;
        }
        switch (opt) {
        case 'k':
            args->key = optarg;
            break;
        case 'v':
            args->value = optarg;
            break;
        case 'n':
            if (!cli_int(opt, optarg, 0, INT_MAX, &args->count)) {
                return 1;
            }
            break;
        case 'h':
        case CLI_LONG_HELP:
            return CLI_USAGE(SUMMARY, FLAGS, NULL);
        case '?':
            return cli_bad_option(PUB_OPTIONS);
        default:
            return -1;
        }
    }
    return 0;
}

/* The attachment of sample idx: a sequence of two (key, value) string pairs. */
static z_result_t make_attachment(z_owned_bytes_t *attachment, int idx)
{
    char index[16];
    snprintf(index, sizeof index, "%d", idx);
    const char *pairs[2][2] = {{"source", "C"}, {"index", index}};
    ze_owned_serializer_t serializer;
    ze_serializer_empty(&serializer);
    z_result_t r = ze_serializer_serialize_sequence_length(z_loan_mut(serializer), 2);
    for (size_t i = 0; i < 2 && r == Z_OK; i++) {
        r = ze_serializer_serialize_str(z_loan_mut(serializer), pairs[i][0]);
        if (r == Z_OK) {
            r = ze_serializer_serialize_str(z_loan_mut(serializer), pairs[i][1]);
        }
    }
    if (r != Z_OK) {
        z_drop(z_move(serializer));
        z_internal_null(attachment);
        return r;
    }
    ze_serializer_finish(z_move(serializer), attachment);
    return Z_OK;
}

static void put_one(const z_loaned_session_t *s, const z_loaned_publisher_t *pub, const pub_args_t *args, int idx)
{
    char text[256];
    snprintf(text, sizeof text, "[%4d] %s", idx, args->value);
    printf("Putting Data ('%s': '%s')...\n", args->key, text);
    z_owned_bytes_t payload;
    z_bytes_copy_from_str(&payload, text);

    z_publisher_put_options_t options;
    z_publisher_put_options_default(&options);
    z_owned_bytes_t attachment;
    if (make_attachment(&attachment, idx) == Z_OK) {
        options.attachment = z_move(attachment);
    }
    z_owned_encoding_t encoding;
    if (z_encoding_from_str(&encoding, "zenoh/string;utf8") == Z_OK) {
        options.encoding = z_move(encoding);
    }
    z_timestamp_t ts;
    if (z_timestamp_new(&ts, s) == Z_OK) {
        options.timestamp = &ts;
    }
    z_publisher_put(pub, z_move(payload), &options);
}

int main(int argc, char **argv)
{
    pub_args_t args = {"demo/example/zenoh-pico-pub", "Pub from Pico!", INT_MAX};
    setvbuf(stdout, NULL, _IOLBF, 0);

    z_owned_config_t config;
    z_config_default(&config);
    int ret = parse_args(argc, argv, &config, &args);
    if (ret != 0) {
        z_drop(z_move(config));
        return cli_exit_code(ret);
    }

    printf("Opening session...\n");
    z_owned_session_t s;
    z_result_t opened = z_open(&s, z_move(config), NULL);
    if (opened < 0) {
        printf("Unable to open session!\n");
        cli_open_failed(opened);
        return -1;
    }

#if Z_FEATURE_ADMIN_SPACE == 1
    if (zp_start_admin_space(z_loan_mut(s)) < 0) {
        printf("Unable to start admin space\n");
        z_drop(z_move(s));
        return -1;
    }
#endif

    printf("Declaring publisher for '%s'...\n", args.key);
    z_view_keyexpr_t ke;
    if (z_view_keyexpr_from_str(&ke, args.key) < 0) {
        printf("%s is not a valid key expression\n", args.key);
        z_drop(z_move(s));
        return -1;
    }
    z_owned_publisher_t pub;
    if (z_declare_publisher(z_loan(s), &pub, z_loan(ke), NULL) < 0) {
        printf("Unable to declare publisher for key expression!\n");
        z_drop(z_move(s));
        return -1;
    }

    printf("Press CTRL-C to quit...\n");
    for (int idx = 0; idx < args.count; ++idx) {
        z_sleep_s(1);
        put_one(z_loan(s), z_loan(pub), &args, idx);
    }

    z_drop(z_move(pub));
    z_drop(z_move(s));
    return 0;
}

#else
int main(void)
{
    return cli_needs("publications", "-DZ_FEATURE_PUBLICATION=1");
}
#endif
