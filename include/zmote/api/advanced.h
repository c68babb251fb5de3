/**
 * @file
 * The advanced publisher of zenoh-pico's unstable API (zenoh-ext's AdvancedPublisher), wire
 * compatible with Rust's: a publisher whose last samples wait in a cache that advanced subscribers
 * query for history and for the samples they missed, with sequence numbers for them to notice a
 * miss, a liveliness token for them to notice the publisher, and heartbeats for them to notice a
 * miss of the last sample. Built with Z_FEATURE_ADVANCED_PUBLICATION (which needs the unstable
 * API, publication, queryables and liveliness); a build without it has none of this.
 *
 * On the network, for a publisher on key K with zid Z and entity id E: its samples on K, with
 * source info (Z, E, sequence number) when miss detection is on, and a timestamp; the cache's
 * queryable, the liveliness token and the heartbeat publisher on
 * `K/@adv/pub/Z/E/_` (`K/@adv/pub/Z/uhlc/_` without sequence numbers; the last chunk is the
 * publisher detection metadata when given). The cache answers queries by the parameters `_sn`
 * (a range `a..b` of sequence numbers, either end open) and `_max` (the newest that many), with
 * the samples it holds in the order they were put; `_time` is not read (every sample matches).
 */
#ifndef ZMOTE_API_ADVANCED_H
#define ZMOTE_API_ADVANCED_H

#include "zmote/api/liveliness.h"
#include "zmote/api/primitives.h"

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_PUBLICATION == 1

#ifdef __cplusplus
extern "C" {
#endif

/** How an advanced publisher sends heartbeats: the sequence number of its last sample. */
typedef enum {
    ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_NONE,     /**< none */
    ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_PERIODIC, /**< every period */
    ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_SPORADIC, /**< every period in which it published */
} ze_advanced_publisher_heartbeat_mode_t;
/** The default heartbeat mode: none. */
#define ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_DEFAULT ZE_ADVANCED_PUBLISHER_HEARTBEAT_MODE_NONE

/** The cache of an advanced publisher (ze_advanced_publisher_cache_options_default). */
typedef struct {
    bool is_enabled;                           /**< keep a cache; default true (false in the publisher's options) */
    size_t max_samples;                        /**< how many of its last samples it keeps; default 1 */
    z_congestion_control_t congestion_control; /**< of the replies (a reply goes as its query came) */
    z_priority_t priority;                     /**< of the replies (a reply goes as its query came) */
    bool is_express;                           /**< the replies are sent at once; default false */
} ze_advanced_publisher_cache_options_t;

/** Miss detection of an advanced publisher (ze_advanced_publisher_sample_miss_detection_options_default). */
typedef struct {
    bool is_enabled;                                       /**< sequence numbers; default true (false in the publisher's options) */
    ze_advanced_publisher_heartbeat_mode_t heartbeat_mode; /**< default none */
    uint64_t heartbeat_period_ms;                          /**< must be > 0 with heartbeats */
} ze_advanced_publisher_sample_miss_detection_options_t;

/** Options of ze_declare_advanced_publisher (ze_advanced_publisher_options_default). */
typedef struct {
    z_publisher_options_t publisher_options;                             /**< the plain publisher's */
    ze_advanced_publisher_cache_options_t cache;                         /**< the cache; off by default */
    ze_advanced_publisher_sample_miss_detection_options_t sample_miss_detection; /**< off by default */
    bool publisher_detection;                     /**< a liveliness token for subscribers to find it; default false */
    z_loaned_keyexpr_t *publisher_detection_metadata; /**< borrowed: the last chunk of its token's key; NULL: `_` */
} ze_advanced_publisher_options_t;

/** Options of ze_advanced_publisher_put: the plain put's. */
typedef struct {
    z_publisher_put_options_t put_options; /**< as for z_publisher_put (timestamp and source info are the publisher's) */
} ze_advanced_publisher_put_options_t;

/** Options of ze_advanced_publisher_delete: the plain delete's. */
typedef struct {
    z_publisher_delete_options_t delete_options; /**< as for z_publisher_delete (timestamp and source info are the publisher's) */
} ze_advanced_publisher_delete_options_t;

/** The object behind ze_owned_advanced_publisher_t: its publisher, and the rest of it (NULL: none). */
typedef struct {
    z_owned_publisher_t publisher;  /**< the plain publisher */
    struct zm_api_adv_pub *parts;   /**< cache, token, heartbeat, sequence numbers */
} zm_api_advanced_publisher_t;

/** An owned advanced publisher (ze_declare_advanced_publisher). */
typedef struct {
    zm_api_advanced_publisher_t _val; /**< the publisher */
} ze_owned_advanced_publisher_t;
/** A borrowed advanced publisher. */
typedef zm_api_advanced_publisher_t ze_loaned_advanced_publisher_t;
/** An owned advanced publisher given away: to ze_advanced_publisher_drop or ze_undeclare_advanced_publisher. */
typedef struct {
    ze_owned_advanced_publisher_t _this; /**< the publisher given away */
} ze_moved_advanced_publisher_t;

/** Makes obj null (not a publisher). */
void ze_internal_advanced_publisher_null(ze_owned_advanced_publisher_t *obj);
/** Whether obj holds a publisher. */
bool ze_internal_advanced_publisher_check(const ze_owned_advanced_publisher_t *obj);
/** Borrows obj. */
static inline const ze_loaned_advanced_publisher_t *ze_advanced_publisher_loan(const ze_owned_advanced_publisher_t *obj)
{
    return &obj->_val;
}
/** Borrows obj for modification. */
static inline ze_loaned_advanced_publisher_t *ze_advanced_publisher_loan_mut(ze_owned_advanced_publisher_t *obj)
{
    return &obj->_val;
}
/** Gives obj away. */
static inline ze_moved_advanced_publisher_t *ze_advanced_publisher_move(ze_owned_advanced_publisher_t *obj)
{
    return (ze_moved_advanced_publisher_t *)obj;
}
/** Moves src into obj (which must be null or dropped), leaving src null. */
void ze_advanced_publisher_take(ze_owned_advanced_publisher_t *obj, ze_moved_advanced_publisher_t *src);
/** Undeclares the publisher, as ze_undeclare_advanced_publisher, and leaves it null. */
void ze_advanced_publisher_drop(ze_moved_advanced_publisher_t *obj);

/** The cache's defaults: enabled, 1 sample, replies with the default QoS. */
void ze_advanced_publisher_cache_options_default(ze_advanced_publisher_cache_options_t *options);
/** Miss detection's defaults: enabled, no heartbeat. */
void ze_advanced_publisher_sample_miss_detection_options_default(
    ze_advanced_publisher_sample_miss_detection_options_t *options);
/** An advanced publisher's defaults: a plain publisher's, no cache, no miss detection, no detection. */
void ze_advanced_publisher_options_default(ze_advanced_publisher_options_t *options);
/** The put's defaults. */
void ze_advanced_publisher_put_options_default(ze_advanced_publisher_put_options_t *options);
/** The delete's defaults. */
void ze_advanced_publisher_delete_options_default(ze_advanced_publisher_delete_options_t *options);

/**
 * Declares an advanced publisher on keyexpr: a plain publisher, and as options ask, its cache
 * (a queryable), sequence numbers, a liveliness token and a heartbeat (a thread of its own, so
 * only in multi-thread builds: ZM_E_UNSUPPORTED elsewhere). Z_EINVAL for a bad argument, a cache
 * of 0 samples or heartbeats every 0 ms; the errors of what it declares. pub is null on failure.
 */
z_result_t ze_declare_advanced_publisher(const z_loaned_session_t *zs, ze_owned_advanced_publisher_t *pub,
                                         const z_loaned_keyexpr_t *keyexpr,
                                         const ze_advanced_publisher_options_t *options);
/** Undeclares pub and all its parts; Z_ENULL for a null one. */
z_result_t ze_undeclare_advanced_publisher(ze_moved_advanced_publisher_t *pub);
/**
 * Publishes payload (taken) as z_publisher_put does, with a timestamp and, with miss detection,
 * the next sequence number; the cache keeps a copy. Errors as z_publisher_put, and ZM_E_NOMEM
 * when the cache cannot copy the sample (then nothing is sent).
 */
z_result_t ze_advanced_publisher_put(const ze_loaned_advanced_publisher_t *pub, z_moved_bytes_t *payload,
                                     const ze_advanced_publisher_put_options_t *options);
/** Publishes a deletion, as ze_advanced_publisher_put does a put. */
z_result_t ze_advanced_publisher_delete(const ze_loaned_advanced_publisher_t *pub,
                                        const ze_advanced_publisher_delete_options_t *options);
/** The publisher's key expression; NULL for a NULL pub. */
const z_loaned_keyexpr_t *ze_advanced_publisher_keyexpr(const ze_loaned_advanced_publisher_t *pub);
/** The publisher's global id (its source id in the samples' source info). */
z_entity_global_id_t ze_advanced_publisher_id(const ze_loaned_advanced_publisher_t *pub);
#if Z_FEATURE_MATCHING == 1
/** As z_publisher_get_matching_status, for its plain publisher. */
z_result_t ze_advanced_publisher_get_matching_status(const ze_loaned_advanced_publisher_t *publisher,
                                                     z_matching_status_t *matching_status);
/** As z_publisher_declare_matching_listener, for its plain publisher. */
z_result_t ze_advanced_publisher_declare_matching_listener(const ze_loaned_advanced_publisher_t *publisher,
                                                           z_owned_matching_listener_t *matching_listener,
                                                           z_moved_closure_matching_status_t *callback);
/** As z_publisher_declare_background_matching_listener, for its plain publisher. */
z_result_t ze_advanced_publisher_declare_background_matching_listener(const ze_loaned_advanced_publisher_t *publisher,
                                                                      z_moved_closure_matching_status_t *callback);
#endif

#ifdef __cplusplus
}
#endif

#endif /* Z_FEATURE_UNSTABLE_API && Z_FEATURE_ADVANCED_PUBLICATION */

#endif /* ZMOTE_API_ADVANCED_H */
