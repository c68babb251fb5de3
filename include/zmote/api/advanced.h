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
 * the samples it holds in the order they were put, and `_time` (a range of `now(...)` offsets:
 * only the samples whose timestamp falls in it).
 *
 * The advanced subscriber (zenoh-ext's AdvancedSubscriber), built with
 * Z_FEATURE_ADVANCED_SUBSCRIPTION: a subscriber on K that, as options ask, queries the keys
 * under `K/@adv` for history (`_max`, `_time`), follows each publisher's sequence numbers (the
 * source info of its samples) to deliver them in order and to notice a miss, asks the publisher's
 * cache for the missed ones (the keys under `K/@adv/<any>/Z/E` with `_sn=a..`, or on a heartbeat
 * `_sn=a..b`), and detects late publishers through their liveliness tokens under `K/@adv/pub`
 * (`@adv/pub/Z/E/...` as above, E `uhlc` for a publisher without sequence numbers). It tracks at most
 * ZM_ADV_SUB_PUBLISHERS publishers and holds at most ZM_ADV_SUB_HELD samples out of order.
 */
#ifndef ZMOTE_API_ADVANCED_H
#define ZMOTE_API_ADVANCED_H

#include "zmote/api/liveliness.h"
#include "zmote/api/primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_PUBLICATION == 1

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

#endif /* Z_FEATURE_UNSTABLE_API && Z_FEATURE_ADVANCED_PUBLICATION */

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADVANCED_SUBSCRIPTION == 1

/** Samples an advanced subscriber missed: their publisher and how many. */
typedef struct {
    z_entity_global_id_t source; /**< the publisher */
    uint32_t nb;                 /**< how many samples it missed */
} ze_miss_t;

/** A miss callback: miss is borrowed for the call. */
typedef void (*ze_closure_miss_callback_t)(const ze_miss_t *miss, void *arg);

/** A closure of misses: the inner object of ze_owned_closure_miss_t. */
typedef struct {
    void *context;                   /**< given to call and drop */
    ze_closure_miss_callback_t call; /**< called at each miss */
    z_closure_drop_callback_t drop;  /**< called once at the end (may be NULL) */
} zm_api_closure_miss_t;

/** An owned closure of misses (ze_closure_miss). */
typedef struct {
    zm_api_closure_miss_t _val; /**< the closure */
} ze_owned_closure_miss_t;
/** A borrowed closure of misses. */
typedef zm_api_closure_miss_t ze_loaned_closure_miss_t;
/** An owned closure of misses given away. */
typedef struct {
    ze_owned_closure_miss_t _this; /**< the closure given away */
} ze_moved_closure_miss_t;

/** Makes closure call call(miss, context) at each miss and drop(context) once at its end. */
z_result_t ze_closure_miss(ze_owned_closure_miss_t *closure, ze_closure_miss_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
/** Calls closure with miss. */
void ze_closure_miss_call(const ze_loaned_closure_miss_t *closure, const ze_miss_t *miss);
/** Makes obj null. */
void ze_internal_closure_miss_null(ze_owned_closure_miss_t *obj);
/** Whether obj holds a closure. */
bool ze_internal_closure_miss_check(const ze_owned_closure_miss_t *obj);
/** Borrows obj. */
static inline const ze_loaned_closure_miss_t *ze_closure_miss_loan(const ze_owned_closure_miss_t *obj)
{
    return &obj->_val;
}
/** Gives obj away. */
static inline ze_moved_closure_miss_t *ze_closure_miss_move(ze_owned_closure_miss_t *obj)
{
    return (ze_moved_closure_miss_t *)obj;
}
/** Moves src into obj, leaving src null. */
void ze_closure_miss_take(ze_owned_closure_miss_t *obj, ze_moved_closure_miss_t *src);
/** Runs the closure's drop, once, and leaves it null. */
void ze_closure_miss_drop(ze_moved_closure_miss_t *obj);

/** History of an advanced subscriber (ze_advanced_subscriber_history_options_default). */
typedef struct {
    bool is_enabled;             /**< query the publishers' caches at declaration; default true (false in the subscriber's options) */
    bool detect_late_publishers; /**< query those that appear later too (their liveliness tokens); default false */
    size_t max_samples;          /**< the newest that many of each publisher (`_max`); 0 (default): all */
    uint64_t max_age_ms;         /**< only samples younger than that (`_time`); 0 (default): any age */
} ze_advanced_subscriber_history_options_t;

/** Detection of a miss of the last sample(s) (ze_advanced_subscriber_last_sample_miss_detection_options_default). */
typedef struct {
    bool is_enabled;                     /**< default true (false in the recovery's options) */
    uint64_t periodic_queries_period_ms; /**< query each publisher that often; 0 (default): on its heartbeats */
} ze_advanced_subscriber_last_sample_miss_detection_options_t;

/** Recovery of missed samples from the publishers' caches (ze_advanced_subscriber_recovery_options_default). */
typedef struct {
    bool is_enabled; /**< default true (false in the subscriber's options) */
    ze_advanced_subscriber_last_sample_miss_detection_options_t last_sample_miss_detection; /**< off by default */
} ze_advanced_subscriber_recovery_options_t;

/** Options of ze_declare_advanced_subscriber (ze_advanced_subscriber_options_default). */
typedef struct {
    z_subscriber_options_t subscriber_options;          /**< the plain subscriber's */
    ze_advanced_subscriber_history_options_t history;   /**< off by default */
    ze_advanced_subscriber_recovery_options_t recovery; /**< off by default */
    uint64_t query_timeout_ms;                          /**< of history and recovery queries; 0: Z_GET_TIMEOUT_DEFAULT */
    bool subscriber_detection;                          /**< a liveliness token for publishers to find it; default false */
    const z_loaned_keyexpr_t *subscriber_detection_metadata; /**< borrowed: the last chunk of its token's key; NULL: none */
} ze_advanced_subscriber_options_t;

/** The object behind ze_owned_advanced_subscriber_t: its state, shared with its callbacks and queries (NULL: none). */
typedef struct {
    struct zm_api_adv_sub *state; /**< the subscribers, token, thread and what they track */
} zm_api_advanced_subscriber_t;

/** An owned advanced subscriber (ze_declare_advanced_subscriber). */
typedef struct {
    zm_api_advanced_subscriber_t _val; /**< the subscriber */
} ze_owned_advanced_subscriber_t;
/** A borrowed advanced subscriber. */
typedef zm_api_advanced_subscriber_t ze_loaned_advanced_subscriber_t;
/** An owned advanced subscriber given away. */
typedef struct {
    ze_owned_advanced_subscriber_t _this; /**< the subscriber given away */
} ze_moved_advanced_subscriber_t;

/** Makes obj null. */
void ze_internal_advanced_subscriber_null(ze_owned_advanced_subscriber_t *obj);
/** Whether obj holds a subscriber. */
bool ze_internal_advanced_subscriber_check(const ze_owned_advanced_subscriber_t *obj);
/** Borrows obj. */
static inline const ze_loaned_advanced_subscriber_t *ze_advanced_subscriber_loan(const ze_owned_advanced_subscriber_t *obj)
{
    return &obj->_val;
}
/** Borrows obj for modification. */
static inline ze_loaned_advanced_subscriber_t *ze_advanced_subscriber_loan_mut(ze_owned_advanced_subscriber_t *obj)
{
    return &obj->_val;
}
/** Gives obj away. */
static inline ze_moved_advanced_subscriber_t *ze_advanced_subscriber_move(ze_owned_advanced_subscriber_t *obj)
{
    return (ze_moved_advanced_subscriber_t *)obj;
}
/** Moves src into obj (which must be null or dropped), leaving src null. */
void ze_advanced_subscriber_take(ze_owned_advanced_subscriber_t *obj, ze_moved_advanced_subscriber_t *src);
/** Undeclares the subscriber, as ze_undeclare_advanced_subscriber, and leaves it null. */
void ze_advanced_subscriber_drop(ze_moved_advanced_subscriber_t *obj);

/** The object behind ze_owned_sample_miss_listener_t: its subscriber's state (a reference) and its number. */
typedef struct {
    struct zm_api_adv_sub *state; /**< counted reference; NULL: none */
    size_t id;                    /**< the listener's number in its subscriber */
} zm_api_sample_miss_listener_t;

/** An owned sample miss listener (ze_advanced_subscriber_declare_sample_miss_listener). */
typedef struct {
    zm_api_sample_miss_listener_t _val; /**< the listener */
} ze_owned_sample_miss_listener_t;
/** A borrowed sample miss listener. */
typedef zm_api_sample_miss_listener_t ze_loaned_sample_miss_listener_t;
/** An owned sample miss listener given away. */
typedef struct {
    ze_owned_sample_miss_listener_t _this; /**< the listener given away */
} ze_moved_sample_miss_listener_t;

/** Makes obj null. */
void ze_internal_sample_miss_listener_null(ze_owned_sample_miss_listener_t *obj);
/** Whether obj holds a listener. */
bool ze_internal_sample_miss_listener_check(const ze_owned_sample_miss_listener_t *obj);
/** Borrows obj. */
static inline const ze_loaned_sample_miss_listener_t *ze_sample_miss_listener_loan(const ze_owned_sample_miss_listener_t *obj)
{
    return &obj->_val;
}
/** Borrows obj for modification. */
static inline ze_loaned_sample_miss_listener_t *ze_sample_miss_listener_loan_mut(ze_owned_sample_miss_listener_t *obj)
{
    return &obj->_val;
}
/** Gives obj away. */
static inline ze_moved_sample_miss_listener_t *ze_sample_miss_listener_move(ze_owned_sample_miss_listener_t *obj)
{
    return (ze_moved_sample_miss_listener_t *)obj;
}
/** Moves src into obj, leaving src null. */
void ze_sample_miss_listener_take(ze_owned_sample_miss_listener_t *obj, ze_moved_sample_miss_listener_t *src);
/** Undeclares the listener, as ze_undeclare_sample_miss_listener. */
void ze_sample_miss_listener_drop(ze_moved_sample_miss_listener_t *obj);

/** History's defaults: enabled, no late publisher detection, no limit of samples or age. */
void ze_advanced_subscriber_history_options_default(ze_advanced_subscriber_history_options_t *options);
/** Recovery's defaults: enabled, without last sample miss detection. */
void ze_advanced_subscriber_recovery_options_default(ze_advanced_subscriber_recovery_options_t *options);
/** Last sample miss detection's defaults: enabled, on heartbeats. */
void ze_advanced_subscriber_last_sample_miss_detection_options_default(
    ze_advanced_subscriber_last_sample_miss_detection_options_t *options);
/** An advanced subscriber's defaults: a plain subscriber's, no history, no recovery, no detection. */
void ze_advanced_subscriber_options_default(ze_advanced_subscriber_options_t *options);

/**
 * Declares an advanced subscriber on keyexpr, calling callback (taken) with each sample, in order
 * per publisher; as options ask, it queries history, detects late publishers, recovers missed
 * samples (on heartbeats, or by periodic queries, a thread of its own: multi-thread builds only,
 * ZM_E_UNSUPPORTED elsewhere) and declares a liveliness token. The callback runs on the threads
 * that deliver samples and replies, with the subscriber's lock held: it must not undeclare this
 * subscriber nor declare a miss listener on it. Allocates its state (ZM_ADV_SUB_PUBLISHERS
 * publishers, ZM_ADV_SUB_HELD samples held out of order, each held sample's bytes a block).
 * Errors: Z_EINVAL (a NULL argument), those of what it declares; sub is null on failure.
 */
z_result_t ze_declare_advanced_subscriber(const z_loaned_session_t *zs, ze_owned_advanced_subscriber_t *subscriber,
                                          const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                          ze_advanced_subscriber_options_t *options);
/** ze_declare_advanced_subscriber for a subscriber that lives until the session closes. */
z_result_t ze_declare_background_advanced_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                                     z_moved_closure_sample_t *callback,
                                                     ze_advanced_subscriber_options_t *options);
/** Undeclares the subscriber and its parts; its callback and miss listeners are dropped. Z_ENULL for a null one. */
z_result_t ze_undeclare_advanced_subscriber(ze_moved_advanced_subscriber_t *subscriber);
/** The subscriber's key expression; NULL for a NULL or null one. */
const z_loaned_keyexpr_t *ze_advanced_subscriber_keyexpr(const ze_loaned_advanced_subscriber_t *subscriber);
/** The subscriber's global id. */
z_entity_global_id_t ze_advanced_subscriber_id(const ze_loaned_advanced_subscriber_t *subscriber);
/**
 * Registers callback (taken) to be called at each miss the subscriber notices, with its lock held,
 * until the listener is undeclared or the subscriber is. Z_EINVAL, ZM_E_NOMEM.
 */
z_result_t ze_advanced_subscriber_declare_sample_miss_listener(const ze_loaned_advanced_subscriber_t *subscriber,
                                                               ze_owned_sample_miss_listener_t *sample_miss_listener,
                                                               ze_moved_closure_miss_t *callback);
/** As ze_advanced_subscriber_declare_sample_miss_listener, for a listener that lives as long as its subscriber. */
z_result_t ze_advanced_subscriber_declare_background_sample_miss_listener(
    const ze_loaned_advanced_subscriber_t *subscriber, ze_moved_closure_miss_t *callback);
/** Undeclares the listener (its closure is dropped); Z_ENULL for a null one. */
z_result_t ze_undeclare_sample_miss_listener(ze_moved_sample_miss_listener_t *sample_miss_listener);
/** Declares a liveliness subscriber on the tokens of the advanced publishers of the subscriber's key (those under `K/@adv/pub`). */
z_result_t ze_advanced_subscriber_detect_publishers(const ze_loaned_advanced_subscriber_t *subscriber,
                                                    z_owned_subscriber_t *liveliness_subscriber,
                                                    z_moved_closure_sample_t *callback,
                                                    z_liveliness_subscriber_options_t *options);
/** As ze_advanced_subscriber_detect_publishers, in the background (until the session closes). */
z_result_t ze_advanced_subscriber_detect_publishers_background(const ze_loaned_advanced_subscriber_t *subscriber,
                                                               z_moved_closure_sample_t *callback,
                                                               z_liveliness_subscriber_options_t *options);

#endif /* Z_FEATURE_UNSTABLE_API && Z_FEATURE_ADVANCED_SUBSCRIPTION */

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_ADVANCED_H */
