/*
 * Configuration: a fixed table of (key, copied string) pairs in insertion order, as small as the
 * handful of keys a session reads. Connect locators may repeat (each insert adds one); every
 * other key holds one value.
 */
#include <string.h>

#include "api/api.h"

static char *copy_str(const char *value)
{
    size_t len = strlen(value);
    char *c = zm_alloc(len + 1);
    if (c != NULL) {
        memcpy(c, value, len + 1);
    }
    return c;
}

static void config_clear(zm_api_config_t *c)
{
    for (uint8_t i = 0; i < c->n; i++) {
        zm_free(c->entries[i].value);
    }
    memset(c, 0, sizeof(*c));
}

void z_internal_config_null(z_owned_config_t *obj)
{
    if (obj != NULL) {
        memset(&obj->_val, 0, sizeof(obj->_val));
    }
}

bool z_internal_config_check(const z_owned_config_t *obj) { return obj != NULL && obj->_val.n > 0; }

ZM_API_DEFINE_TAKE(config)

void z_config_drop(z_moved_config_t *obj)
{
    if (obj != NULL) {
        config_clear(&obj->_this._val);
    }
}

z_result_t z_config_clone(z_owned_config_t *dst, const z_loaned_config_t *src)
{
    if (dst == NULL) {
        return Z_EINVAL;
    }
    z_internal_config_null(dst);
    if (src == NULL || src->n > ZM_CONFIG_ENTRIES_MAX) {
        return Z_EINVAL;
    }
    zm_api_config_t c;
    memset(&c, 0, sizeof(c));
    for (uint8_t i = 0; i < src->n; i++) {
        c.entries[i].key = src->entries[i].key;
        c.entries[i].value = copy_str(src->entries[i].value);
        if (c.entries[i].value == NULL) {
            config_clear(&c);
            return ZM_E_NOMEM;
        }
        c.n++;
    }
    dst->_val = c;
    return Z_OK;
}

z_result_t z_config_take_from_loaned(z_owned_config_t *dst, z_loaned_config_t *src)
{
    if (dst == NULL || src == NULL) {
        return Z_EINVAL;
    }
    dst->_val = *src;
    memset(src, 0, sizeof(*src));
    return Z_OK;
}

z_result_t zp_config_insert(z_loaned_config_t *config, uint8_t key, const char *value)
{
    if (config == NULL || value == NULL || config->n > ZM_CONFIG_ENTRIES_MAX) {
        return Z_EINVAL;
    }
    size_t i = 0; /* the entry of key; a connect locator always takes a new one */
    while (i < config->n && (key == Z_CONFIG_CONNECT_KEY || config->entries[i].key != key)) {
        i++;
    }
    if (i == ZM_CONFIG_ENTRIES_MAX) {
        return _Z_ERR_CONFIG_FAILED_INSERT;
    }
    char *copy = copy_str(value);
    if (copy == NULL) {
        return ZM_E_NOMEM;
    }
    if (i == config->n) {
        config->entries[i].key = key;
        config->n++;
    } else {
        zm_free(config->entries[i].value);
    }
    config->entries[i].value = copy;
    return Z_OK;
}

const char *zp_config_get(const z_loaned_config_t *config, uint8_t key)
{
    if (config == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < config->n && i < ZM_CONFIG_ENTRIES_MAX; i++) {
        if (config->entries[i].key == key) {
            return config->entries[i].value;
        }
    }
    return NULL;
}

z_result_t z_config_default(z_owned_config_t *config)
{
    if (config == NULL) {
        return Z_EINVAL;
    }
    z_internal_config_null(config);
    /* zenoh-pico's defaults: the keys, and their values one after the other in one string (a
     * table of pointers to them would cost more flash than the strings). */
    static const uint8_t keys[] = {Z_CONFIG_MODE_KEY, Z_CONFIG_MULTICAST_SCOUTING_KEY, Z_CONFIG_MULTICAST_LOCATOR_KEY,
                                   Z_CONFIG_SCOUTING_TIMEOUT_KEY};
    const char *value = Z_CONFIG_MODE_DEFAULT "\0" Z_CONFIG_MULTICAST_SCOUTING_DEFAULT
        "\0" Z_CONFIG_MULTICAST_LOCATOR_DEFAULT "\0" Z_CONFIG_SCOUTING_TIMEOUT_DEFAULT;
    for (size_t i = 0; i < sizeof(keys); i++, value += strlen(value) + 1) {
        z_result_t r = zp_config_insert(&config->_val, keys[i], value);
        if (r != Z_OK) {
            config_clear(&config->_val);
            return r;
        }
    }
    return Z_OK;
}

#if Z_FEATURE_SCOUTING || ZM_UNSTABLE_API
/* ---- values of keys that z_open and z_scout read ------------------------------------------------ */

/* A decimal number of at most max, no sign, no spaces. */
static bool parse_u32(const char *text, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (*text == '\0') {
        return false;
    }
    for (const char *p = text; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            return false;
        }
        v = v * 10u + (uint64_t)(*p - '0');
        if (v > max) {
            return false;
        }
    }
    *out = (uint32_t)v;
    return true;
}

static const char *config_or(const zm_api_config_t *c, uint8_t key, const char *fallback)
{
    const char *v = zp_config_get(c, key);
    return v != NULL ? v : fallback;
}

z_result_t zm_api_config_bool(const zm_api_config_t *c, uint8_t key, const char *fallback, bool *out)
{
    const char *v = config_or(c, key, fallback);
    if (strcmp(v, "true") == 0) {
        *out = true;
    } else if (strcmp(v, "false") == 0) {
        *out = false;
    } else {
        return Z_EINVAL;
    }
    return Z_OK;
}
#endif

#if ZM_UNSTABLE_API
z_result_t zm_api_config_timeout(const zm_api_config_t *c, uint8_t key, const char *fallback, int32_t *out)
{
    const char *v = config_or(c, key, fallback);
    uint32_t ms;
    if (strcmp(v, "-1") == 0) {
        *out = -1;
    } else if (parse_u32(v, INT32_MAX, &ms)) {
        *out = (int32_t)ms;
    } else {
        return Z_EINVAL;
    }
    return Z_OK;
}
#endif

#if Z_FEATURE_SCOUTING
/* ---- the scouting keys (z_scout and z_open read them) ------------------------------------------ */

z_result_t zm_api_scout_config(const zm_api_config_t *c, bool *enabled, const char **locator, uint8_t *what,
                               uint32_t *timeout_ms)
{
    ZM_TRY(zm_api_config_bool(c, Z_CONFIG_MULTICAST_SCOUTING_KEY, Z_CONFIG_MULTICAST_SCOUTING_DEFAULT, enabled));
    *locator = config_or(c, Z_CONFIG_MULTICAST_LOCATOR_KEY, Z_CONFIG_MULTICAST_LOCATOR_DEFAULT);
    uint32_t w;
    if (!parse_u32(config_or(c, Z_CONFIG_SCOUTING_WHAT_KEY, Z_CONFIG_SCOUTING_WHAT_DEFAULT), 7u, &w) || w == 0) {
        return Z_EINVAL;
    }
    *what = (uint8_t)w;
    if (!parse_u32(config_or(c, Z_CONFIG_SCOUTING_TIMEOUT_KEY, Z_CONFIG_SCOUTING_TIMEOUT_DEFAULT), UINT32_MAX,
                   timeout_ms)) {
        return Z_EINVAL;
    }
    return Z_OK;
}
#endif
