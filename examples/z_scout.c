/*
 * z_scout: scouts for Zenoh routers and peers on the default group (udp/224.0.0.224:7446) for
 * the default second and prints each one that answers, then how it ended. Arguments and printed
 * lines are zenoh-pico 1.9.0's z_scout: none, and `Hello { zid: Some(<bytes in hex>), whatami:
 * "Router", locators: ["tcp/..."] }` per node.
 */
#include <stdio.h>
#include <stdlib.h>

#include "zenoh-pico.h"

#if Z_FEATURE_SCOUTING == 1
/* The zid as zenoh-pico prints it: its bytes in order, up to the last nonzero one. */
static void print_zid(const z_id_t *zid)
{
    size_t len = sizeof(zid->id);
    while (len > 0 && zid->id[len - 1] == 0) {
        len--;
    }
    if (len == 0) {
        printf("None");
        return;
    }
    printf("Some(");
    for (size_t i = 0; i < len; i++) {
        printf("%02X", (unsigned)zid->id[i]);
    }
    printf(")");
}

static void print_hello(const z_loaned_hello_t *hello)
{
    printf("Hello { zid: ");
    z_id_t zid = z_hello_zid(hello);
    print_zid(&zid);
    z_view_string_t whatami;
    z_whatami_to_view_string(z_hello_whatami(hello), &whatami);
    printf(", whatami: \"%.*s\"", (int)z_string_len(z_loan(whatami)), z_string_data(z_loan(whatami)));
    printf(", locators: [");
    const z_loaned_string_array_t *locators = zp_hello_locators(hello);
    for (size_t i = 0; i < z_string_array_len(locators); i++) {
        const z_loaned_string_t *l = z_string_array_get(locators, i);
        printf("%s\"%.*s\"", i > 0 ? ", " : "", (int)z_string_len(l), z_string_data(l));
    }
    printf("] }\n");
}

static void on_hello(z_loaned_hello_t *hello, void *context)
{
    print_hello(hello);
    (*(int *)context)++;
}

static void on_end(void *context)
{
    int found = *(int *)context;
    free(context);
    printf(found > 0 ? "Dropping scout results.\n" : "Did not find any zenoh process.\n");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int *found = (int *)malloc(sizeof(int));
    if (found == NULL) {
        return -1;
    }
    *found = 0;
    z_owned_config_t config;
    z_config_default(&config);
    z_owned_closure_hello_t closure;
    z_closure(&closure, on_hello, on_end, found);
    printf("Scouting...\n");
    z_scout(z_move(config), z_move(closure), NULL); /* blocks for the scouting timeout */
    return 0;
}
#else
int main(void)
{
    printf("ERROR: Zenoh pico was compiled without Z_FEATURE_SCOUTING but this example requires it.\n");
    return -2;
}
#endif
