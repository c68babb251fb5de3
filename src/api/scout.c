/*
 * Scouting in the API: z_scout and its options (the scouting keys of a configuration, which z_open
 * reads too, are config.c's). z_scout blocks for its timeout, as zenoh-pico's does, and hands each node
 * found to the closure on the calling thread, once per node, as soon as its HELLO comes.
 */
#include "api/api.h"
#include "proto/codec.h" /* zm_locators_next: a HELLO's locators */

#if Z_FEATURE_SCOUTING

/* Z_CONFIG_SCOUTING_TIMEOUT_DEFAULT as a number: z_scout_options_default's timeout. */
#define SCOUT_TIMEOUT_DEFAULT_MS 1000u

void z_scout_options_default(z_scout_options_t *options)
{
    if (options != NULL) {
        options->timeout_ms = SCOUT_TIMEOUT_DEFAULT_MS;
        options->what = Z_WHAT_ROUTER_PEER;
    }
}

/* Hands one node to the closure as a loaned hello, whose locators are copies it may take. */
static bool on_hello(const zm_hello_t *h, void *arg)
{
    const zm_api_closure_hello_t *closure = arg;
    z_owned_hello_t hello;
    z_internal_hello_null(&hello);
    hello._val.zid = zm_api_id_from_zid(&h->zid);
    hello._val.whatami = (z_whatami_t)(1u << h->whatami);
    zm_reader_t it;
    zm_reader_init(&it, h->locators.ptr, h->locators.len);
    for (;;) {
        zm_slice_t loc;
        bool got = false;
        if (zm_locators_next(&it, &loc, &got) != Z_OK || !got) {
            break;
        }
        z_view_string_t text;
        size_t before = hello._val.locators.len;
        if (z_view_string_from_substr(&text, (const char *)loc.ptr, loc.len) != Z_OK ||
            z_string_array_push_by_copy(&hello._val.locators, z_view_string_loan(&text)) == before) {
            break; /* out of memory: the node goes with the locators copied so far */
        }
    }
    closure->call(&hello._val, closure->context);
    z_hello_drop(z_hello_move(&hello)); /* whatever the callback did not take */
    return false;
}

z_result_t z_scout(z_moved_config_t *config, z_moved_closure_hello_t *callback, const z_scout_options_t *options)
{
    zm_api_closure_hello_t closure = {NULL, NULL, NULL};
    if (callback != NULL) {
        closure = callback->_this._val;
        z_internal_closure_hello_null(&callback->_this);
    }
    z_result_t rc = config == NULL || closure.call == NULL ? Z_EINVAL : Z_OK;
    bool enabled;
    const char *locator = NULL;
    uint8_t what = 0;
    uint32_t timeout_ms = 0;
    zm_zid_t zid;
    bool has_zid = false;
    if (rc == Z_OK) {
        rc = zm_api_scout_config(&config->_this._val, &enabled, &locator, &what, &timeout_ms);
    }
    const char *zid_text = rc == Z_OK ? zp_config_get(&config->_this._val, Z_CONFIG_SESSION_ZID_KEY) : NULL;
    if (zid_text != NULL) {
        rc = zm_api_zid_parse(zid_text, &zid);
        has_zid = rc == Z_OK;
    }
    if (rc == Z_OK && options != NULL) {
        what = (uint8_t)(options->what & Z_WHAT_ROUTER_PEER_CLIENT);
        timeout_ms = options->timeout_ms;
        rc = what != 0 ? Z_OK : Z_EINVAL;
    }
    if (rc == Z_OK) {
        rc = zm_scout_find(locator, what, has_zid ? &zid : NULL, timeout_ms, on_hello, &closure);
    }
    z_config_drop(config);
    if (closure.drop != NULL) {
        closure.drop(closure.context);
    }
    return rc;
}

#endif /* Z_FEATURE_SCOUTING */
