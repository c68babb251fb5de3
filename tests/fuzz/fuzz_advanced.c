/*
 * libFuzzer target for what advanced subscribers and publishers read from the network
 * (src/api/advanced_keys.h): the input is read as a liveliness or heartbeat key
 * (`.../@adv/<entity>/<zid>/<eid>/...`) and as the `_time` range of a history query, from an
 * exact-size copy so that a read past its length is an ASan report. The laws checked: the eid
 * chunk lies within the key and holds no '/', a zid read prints back to a chunk that reads the
 * same, a range is read from brackets only, and an offset stays under 2^31 s.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/advanced_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)     \
    do {                  \
        if (!(cond)) {    \
            abort();      \
        }                 \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size > 0 ? size : 1);
    REQUIRE(s != NULL);
    if (size > 0) {
        memcpy(s, data, size);
    }
    z_id_t zid;
    const char *eid = NULL;
    size_t eid_len = 0;
    if (zm_adv_key_chunks(s, size, &zid, &eid, &eid_len)) {
        REQUIRE(eid >= s && eid_len > 0 && (size_t)(eid - s) + eid_len <= size);
        REQUIRE(memchr(eid, '/', eid_len) == NULL);
        char chunk[ZM_ADV_ZID_CHUNK_MAX];
        size_t n = zm_adv_zid_chunk(&zid, chunk);
        REQUIRE(n >= 1 && n <= ZM_ADV_ZID_CHUNK_MAX && (n == 1 || chunk[0] != '0'));
        z_id_t again;
        REQUIRE(zm_adv_zid_parse(chunk, n, &again) && memcmp(&again, &zid, sizeof(zid)) == 0);
    }
    static const uint64_t nows[] = {0, (uint64_t)1775000000u << 32, UINT64_MAX};
    for (size_t i = 0; i < sizeof(nows) / sizeof(nows[0]); i++) {
        uint64_t since = 1, until = 1;
        if (zm_adv_time_range(s, size, nows[i], &since, &until)) {
            REQUIRE(size >= 4 && (s[0] == '[' || s[0] == ']'));
        }
    }
    int64_t off;
    if (zm_adv_offset_parse(s, size, &off)) {
        uint64_t mag = off < 0 ? 0u - (uint64_t)off : (uint64_t)off;
        REQUIRE(mag < ((uint64_t)1 << 63)); /* under 2^31 s */
    }
    free(s);
    return 0;
}
