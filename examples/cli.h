/*
 * Command-line handling shared by the examples. Each example keeps zenoh-pico's flags and
 * messages exactly (benchmark scripts drive both side by side), so what zmote adds goes on
 * stderr, after them: a usage text for -h and --help, a hint after a bad command line, strict
 * numbers, and why z_open failed. Everything here is static inline: one header, no library.
 */
#ifndef ZM_EXAMPLES_CLI_H
#define ZM_EXAMPLES_CLI_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zenoh-pico.h"

/* What cli_getopt returns for --help (getopt alone would read it as the flags -, h, e, l, p). */
#define CLI_LONG_HELP 0x100

/* What parse_args returns once the usage was printed: main drops what it holds and exits 0. */
#define CLI_USAGE_SHOWN 1000

/* The largest payload a flag may ask for: what the build can send, fragmented. */
#define CLI_PAYLOAD_MAX ZM_FRAG_MAX_SIZE

/* One flag of an example, for its usage text. */
typedef struct {
    char flag;
    const char *value;    /* the name of its argument, NULL for a switch */
    const char *meaning;  /* one line */
    const char *fallback; /* its default, as text; NULL for none */
} cli_flag_t;

/* The -e, -m and -l every example that opens a session takes; its table ends with these. */
#define CLI_SESSION_FLAGS                                                                     \
    {'e', "ENDPOINT", "connect to ENDPOINT, e.g. tcp/192.168.1.2:7447 (repeat for more)",    \
     "none"},                                                                                 \
        {'m', "MODE", "client (through a router) or peer", "client"},                        \
        {'l', "ENDPOINT", "listen on ENDPOINT, e.g. tcp/0.0.0.0:7447 (makes the session a peer)", "none"}

/* What the command line said about the session, for the reason of a failed z_open. */
#define CLI_CONNECT_MAX 8
typedef struct {
    const char *program;
    const char *mode;
    const char *listen;
    const char *connect[CLI_CONNECT_MAX];
    unsigned n_connect;
    bool help_is_h; /* -h is the help flag; false where zenoh-pico gives -h another meaning */
} cli_state_t;

static inline cli_state_t *cli_state(void)
{
    static cli_state_t state = {"zmote", NULL, NULL, {NULL}, 0, true};
    return &state;
}

/* getopt, plus --help, and the program's name for the messages below. */
static inline int cli_getopt(int argc, char **argv, const char *optstring)
{
    cli_state_t *st = cli_state();
    if (argc > 0 && argv[0] != NULL) {
        const char *slash = strrchr(argv[0], '/');
        st->program = slash != NULL ? slash + 1 : argv[0];
    }
    if (optind > 0 && optind < argc && strcmp(argv[optind], "--help") == 0) {
        optind++;
        return CLI_LONG_HELP;
    }
    return getopt(argc, argv, optstring);
}

static inline void cli_hint(void)
{
    fprintf(stderr, "%s: run with %s for usage\n", cli_state()->program, cli_state()->help_is_h ? "-h" : "--help");
}

#if Z_FEATURE_LINK_TLS
/*
 * The TLS settings, which zenoh-pico's flags have no room for, from the environment: each
 * Z_CONFIG_TLS_<NAME>_KEY from ZMOTE_TLS_<NAME> (e.g. ZMOTE_TLS_ROOT_CA_CERTIFICATE=ca.pem,
 * ZMOTE_TLS_ENABLE_MTLS=true). Read with the first -e or -l.
 */
static inline void cli_tls_from_env(z_owned_config_t *config)
{
    static const struct {
        uint8_t key;
        const char *var;
    } vars[] = {
        {Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_KEY, "ZMOTE_TLS_ROOT_CA_CERTIFICATE"},
        {Z_CONFIG_TLS_ROOT_CA_CERTIFICATE_BASE64_KEY, "ZMOTE_TLS_ROOT_CA_CERTIFICATE_BASE64"},
        {Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_KEY, "ZMOTE_TLS_LISTEN_PRIVATE_KEY"},
        {Z_CONFIG_TLS_LISTEN_PRIVATE_KEY_BASE64_KEY, "ZMOTE_TLS_LISTEN_PRIVATE_KEY_BASE64"},
        {Z_CONFIG_TLS_LISTEN_CERTIFICATE_KEY, "ZMOTE_TLS_LISTEN_CERTIFICATE"},
        {Z_CONFIG_TLS_LISTEN_CERTIFICATE_BASE64_KEY, "ZMOTE_TLS_LISTEN_CERTIFICATE_BASE64"},
        {Z_CONFIG_TLS_ENABLE_MTLS_KEY, "ZMOTE_TLS_ENABLE_MTLS"},
        {Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_KEY, "ZMOTE_TLS_CONNECT_PRIVATE_KEY"},
        {Z_CONFIG_TLS_CONNECT_PRIVATE_KEY_BASE64_KEY, "ZMOTE_TLS_CONNECT_PRIVATE_KEY_BASE64"},
        {Z_CONFIG_TLS_CONNECT_CERTIFICATE_KEY, "ZMOTE_TLS_CONNECT_CERTIFICATE"},
        {Z_CONFIG_TLS_CONNECT_CERTIFICATE_BASE64_KEY, "ZMOTE_TLS_CONNECT_CERTIFICATE_BASE64"},
        {Z_CONFIG_TLS_VERIFY_NAME_ON_CONNECT_KEY, "ZMOTE_TLS_VERIFY_NAME_ON_CONNECT"},
    };
    static bool done = false;
    for (size_t i = 0; !done && i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i].var);
        if (v != NULL) {
            zp_config_insert(z_loan_mut(*config), vars[i].key, v);
        }
    }
    done = true;
}
#define CLI_TLS_FROM_ENV(config) cli_tls_from_env(config)
#else
#define CLI_TLS_FROM_ENV(config) ((void)(config))
#endif

/*
 * Applies -e (connect, appends), -m (mode, replaces) or -l (listen, replaces) to the config.
 * Returns true when opt was one of them.
 */
static inline bool cli_config_option(z_owned_config_t *config, int opt, const char *arg)
{
    cli_state_t *st = cli_state();
    if (opt == 'e' || opt == 'l') {
        CLI_TLS_FROM_ENV(config);
    }
    switch (opt) {
    case 'e':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_CONNECT_KEY, arg);
        if (st->n_connect < CLI_CONNECT_MAX) {
            st->connect[st->n_connect++] = arg;
        }
        return true;
    case 'm':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_MODE_KEY, arg);
        st->mode = arg;
        return true;
    case 'l':
        zp_config_insert(z_loan_mut(*config), Z_CONFIG_LISTEN_KEY, arg);
        st->listen = arg;
        return true;
    default:
        return false;
    }
}

/*
 * Reports what getopt refused ('?'), in zenoh-pico's words: an option that takes an argument
 * (one followed by ':' in optstring) lacked it, or the option is unknown; then how to get help.
 * Returns 1, the exit status the examples give for a bad command line.
 */
static inline int cli_bad_option(const char *optstring)
{
    const char *at = (optopt != 0 && optopt != ':') ? strchr(optstring, optopt) : NULL;
    if (at != NULL && at[1] == ':') {
        fprintf(stderr, "Option -%c requires an argument.\n", optopt);
    } else {
        fprintf(stderr, "Unknown option `-%c'.\n", optopt);
    }
    cli_hint();
    return 1;
}

/* Prints s with anything unprintable escaped, so that a message stays one readable line. */
static inline void cli_put_text(FILE *to, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f) {
            fprintf(to, "\\x%02x", c);
        } else {
            fputc(c, to);
        }
    }
}

/*
 * A whole number of decimal digits within min..max, for flag: no sign, no spaces, no suffix.
 * Anything else is reported on stderr, naming the flag and the value; the caller exits 1.
 */
static inline bool cli_number(int flag, const char *arg, unsigned long long min, unsigned long long max,
                              unsigned long long *out)
{
    bool ok = arg[0] != '\0';
    unsigned long long v = 0;
    for (const char *p = arg; ok && *p != '\0'; p++) {
        unsigned d = (unsigned)(*p - '0');
        ok = *p >= '0' && *p <= '9' && v <= (ULLONG_MAX - d) / 10u;
        v = ok ? v * 10u + d : v;
    }
    if (!ok || v < min || v > max) {
        fprintf(stderr, "%s: invalid value '", cli_state()->program);
        cli_put_text(stderr, arg);
        fprintf(stderr, "' for -%c: expected a whole number from %llu to %llu\n", flag, min, max);
        cli_hint();
        return false;
    }
    *out = v;
    return true;
}

static inline bool cli_int(int flag, const char *arg, int min, int max, int *out)
{
    unsigned long long v;
    if (!cli_number(flag, arg, (unsigned long long)min, (unsigned long long)max, &v)) {
        return false;
    }
    *out = (int)v;
    return true;
}

static inline bool cli_unsigned(int flag, const char *arg, unsigned min, unsigned max, unsigned *out)
{
    unsigned long long v;
    if (!cli_number(flag, arg, min, max, &v)) {
        return false;
    }
    *out = (unsigned)v;
    return true;
}

static inline bool cli_ulong(int flag, const char *arg, unsigned long min, unsigned long max, unsigned long *out)
{
    unsigned long long v;
    if (!cli_number(flag, arg, min, max, &v)) {
        return false;
    }
    *out = (unsigned long)v;
    return true;
}

static inline bool cli_size(int flag, const char *arg, size_t min, size_t max, size_t *out)
{
    unsigned long long v;
    if (!cli_number(flag, arg, min, max, &v)) {
        return false;
    }
    *out = (size_t)v;
    return true;
}

/*
 * Prints the usage text on stdout: what the program does, each flag with its meaning and default,
 * then notes (NULL for none). Returns CLI_USAGE_SHOWN, for parse_args to return.
 */
static inline int cli_usage(const char *summary, const cli_flag_t *flags, size_t n, const char *notes)
{
    const cli_state_t *st = cli_state();
    bool session = false;
    printf("Usage: %s [OPTIONS]\n%s\n\nOptions:\n", st->program, summary);
    for (size_t i = 0; i < n; i++) {
        char head[32];
        snprintf(head, sizeof(head), "-%c%s%s", flags[i].flag, flags[i].value != NULL ? " " : "",
                 flags[i].value != NULL ? flags[i].value : "");
        printf("  %-13s %s", head, flags[i].meaning);
        if (flags[i].fallback != NULL) {
            printf(" (default: %s)", flags[i].fallback);
        }
        printf("\n");
        session = session || flags[i].flag == 'e';
    }
    printf("  %-13s %s\n", st->help_is_h ? "-h, --help" : "--help", "print this help and exit");
    if (session) {
#if Z_FEATURE_SCOUTING
        printf("\nWith neither -e nor -l, a router (or, in peer mode, a peer) is found by scouting.\n");
#else
        printf("\nWith neither -e nor -l there is nothing to open: this build does not scout.\n");
#endif
    }
    if (notes != NULL) {
        printf("\n%s\n", notes);
    }
    return CLI_USAGE_SHOWN;
}

#define CLI_USAGE(summary, flags, notes) cli_usage((summary), (flags), sizeof(flags) / sizeof((flags)[0]), (notes))

/* main's exit status after parse_args returned ret (not 0). */
static inline int cli_exit_code(int ret) { return ret == CLI_USAGE_SHOWN ? 0 : ret; }

/* Appends the connect endpoints, comma-separated. */
static inline void cli_put_connects(FILE *to)
{
    const cli_state_t *st = cli_state();
    for (unsigned i = 0; i < st->n_connect; i++) {
        fputs(i > 0 ? ", " : "", to);
        cli_put_text(to, st->connect[i]);
    }
}

/* Why an endpoint z_open refused with ZM_E_UNSUPPORTED cannot be served. */
static inline void cli_put_unsupported(FILE *to, const char *endpoint)
{
    const char *slash = strchr(endpoint, '/');
    if (strchr(endpoint, '#') != NULL || slash == NULL) {
        fputs(": its protocol or a #option is not in this build", to);
    } else {
        fprintf(to, ": protocol '%.*s' is not in this build", (int)(slash - endpoint), endpoint);
    }
}

/* What the endpoint the error is about lacks, for the errors the endpoint itself explains. */
static inline void cli_put_endpoint_error(FILE *to, z_result_t rc, const char *endpoint)
{
    if (rc == ZM_E_UNSUPPORTED) {
        cli_put_unsupported(to, endpoint);
    } else if (rc == ZM_E_LOCATOR) {
        fputs(": expected PROTOCOL/ADDRESS, e.g. tcp/127.0.0.1:7447", to);
    }
}

/*
 * After zenoh-pico's "Unable to open session!": one line on stderr saying why, with what the
 * command line asked for (the mode, the endpoint listened on, or those connected to).
 */
static inline void cli_open_failed(z_result_t rc)
{
    const cli_state_t *st = cli_state();
    fflush(stdout);
    fprintf(stderr, "zmote: cannot open session: %s (", zm_strerror(rc));
    bool peer = st->listen != NULL || (st->mode != NULL && strcmp(st->mode, "peer") == 0);
    if (rc == _Z_ERR_CONFIG_INVALID_MODE && st->mode != NULL) {
        fputs("mode '", stderr);
        cli_put_text(stderr, st->mode);
        fputs("': expected client or peer", stderr);
    } else if (!Z_FEATURE_UNICAST_PEER && peer && rc == ZM_E_UNSUPPORTED) {
        fputs("this build has no peer mode: configure with -DZ_FEATURE_UNICAST_PEER=1", stderr);
    } else if (st->listen != NULL) {
        fputs("listen on ", stderr);
        cli_put_text(stderr, st->listen);
        cli_put_endpoint_error(stderr, rc, st->listen);
    } else if (st->n_connect > 0) {
        cli_put_connects(stderr);
        if (st->n_connect == 1) {
            cli_put_endpoint_error(stderr, rc, st->connect[0]);
        }
    } else if (rc == ZM_E_UNSUPPORTED) {
        fputs("neither -e nor -l was given, and this build does not scout", stderr);
    } else {
        fputs("no endpoint given", stderr);
    }
    fputs(")\n", stderr);
}

/*
 * What an example prints in a build without what it needs: names zmote and the options to
 * configure it with. Returns -2, zenoh-pico's exit status for it.
 */
static inline int cli_needs(const char *what, const char *options)
{
    fprintf(stderr, "ERROR: zmote was built without %s: configure with %s\n", what, options);
    return -2;
}

#endif /* ZM_EXAMPLES_CLI_H */
