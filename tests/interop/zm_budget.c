/*
 * zm_budget: several zmote sessions in one process, for test_budget.py. Each -l opens a peer
 * session listening there, with a subscriber on -k that prints "sample s=I len=N" per sample.
 * Stdin takes "held" (prints each session's memory account: "held s=I decls=D frags=F replies=R
 * total=T", read through the session's internals) and "stop" (closes every session: a debug
 * build asserts there that its account is back at zero). Everything ends at the -t deadline.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "session/internal.h"
#include "zenoh-pico.h"

#define SESSIONS_MAX 4
#define POLL_MS 50

static struct timespec started;

static long elapsed_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - started.tv_sec) * 1000L + (long)(now.tv_nsec - started.tv_nsec) / 1000000L;
}

static void on_sample(z_loaned_sample_t *sample, void *ctx)
{
    printf("sample s=%d len=%zu\n", (int)(intptr_t)ctx, z_bytes_len(z_sample_payload(sample)));
}

static void print_held(int i, z_owned_session_t *s)
{
    zm_session_t *core = zm_atomic_load(&z_loan(*s)->ptr->s);
    zm_account_t *a = &core->account;
    printf("held s=%d decls=%zu frags=%zu replies=%zu total=%zu\n", i, zm_account_held(a, ZM_HELD_DECLS),
           zm_account_held(a, ZM_HELD_FRAGS), zm_account_held(a, ZM_HELD_REPLIES), zm_account_held(a, ZM_HELD_KINDS));
}

/* The next line of stdin within wait_ms into line (NUL-terminated, without its newline): false if
 * none came; "stop" when stdin ended. */
static bool read_line(char *line, size_t cap, int wait_ms)
{
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
    if (poll(&pfd, 1, wait_ms) <= 0) {
        return false;
    }
    if (fgets(line, (int)cap, stdin) == NULL) {
        snprintf(line, cap, "stop");
        return true;
    }
    line[strcspn(line, "\n")] = '\0';
    return true;
}

static int usage(void)
{
    fprintf(stderr, "usage: zm_budget -l ENDPOINT [-l ENDPOINT...] -k KEY [-t MS]\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    clock_gettime(CLOCK_MONOTONIC, &started);
    const char *listen[SESSIONS_MAX];
    int n = 0;
    const char *key = NULL;
    long timeout_ms = 60000;
    int opt;
    while ((opt = getopt(argc, argv, "l:k:t:")) != -1) {
        if (opt == 'l' && n < SESSIONS_MAX) {
            listen[n++] = optarg;
        } else if (opt == 'k') {
            key = optarg;
        } else if (opt == 't') {
            timeout_ms = atol(optarg);
        } else {
            return usage();
        }
    }
    if (n == 0 || key == NULL) {
        return usage();
    }
    static z_owned_session_t sessions[SESSIONS_MAX];
    static z_owned_subscriber_t subs[SESSIONS_MAX];
    for (int i = 0; i < n; i++) {
        z_owned_config_t config;
        z_config_default(&config);
        zp_config_insert(z_loan_mut(config), Z_CONFIG_MODE_KEY, "peer");
        zp_config_insert(z_loan_mut(config), Z_CONFIG_LISTEN_KEY, listen[i]);
        zp_config_insert(z_loan_mut(config), Z_CONFIG_MULTICAST_SCOUTING_KEY, "false");
        z_result_t rc = z_open(&sessions[i], z_move(config), NULL);
        z_view_keyexpr_t ke;
        if (rc == Z_OK) {
            rc = z_view_keyexpr_from_str(&ke, key);
        }
        if (rc == Z_OK) {
            z_owned_closure_sample_t callback;
            z_closure(&callback, on_sample, NULL, (void *)(intptr_t)i);
            rc = z_declare_subscriber(z_loan(sessions[i]), &subs[i], z_loan(ke), z_move(callback), NULL);
        }
        if (rc != Z_OK) {
            printf("error session %d rc=%d\n", i, (int)rc);
            return 1;
        }
    }
    printf("ready\n");
    char line[64];
    while (elapsed_ms() < timeout_ms) {
        if (!read_line(line, sizeof line, POLL_MS)) {
            continue;
        }
        if (strcmp(line, "stop") == 0) {
            break;
        }
        if (strcmp(line, "held") == 0) {
            for (int i = 0; i < n; i++) {
                print_held(i, &sessions[i]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        z_drop(z_move(subs[i]));
        z_drop(z_move(sessions[i]));
    }
    printf("done\n");
    return 0;
}
