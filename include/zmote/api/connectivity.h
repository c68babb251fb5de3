/**
 * @file
 * The connectivity API (Z_FEATURE_CONNECTIVITY, unstable as in zenoh-pico 1.9.0): the session's
 * transports (one per remote node it talks to: a unicast peer or router, or a member of its
 * multicast group) and their links (one each), listed now (z_info_transports(), z_info_links())
 * or followed as they open and close (transport and link events listeners).
 *
 * Transports, links and events are plain values: copying one copies what it holds (its link's
 * locators included), and dropping one frees nothing. Listeners are told a transport's PUT when it
 * opens and its DELETE when it closes, whatever the cause (a CLOSE, a lost link, an expired lease,
 * an eviction); a transport that reconnects is a new one. A link's events come with its
 * transport's: PUT after the transport's, DELETE before. They are told on the session's worker
 * (or, in a single-thread build, the thread that drives the session), within one lease step of
 * the change, or sooner on a thread that declares a listener (which first tells the others what
 * changed, so that it is not told what happened before it); with history, the transports open
 * already are told first, on the declaring thread.
 */
#ifndef ZMOTE_API_CONNECTIVITY_H
#define ZMOTE_API_CONNECTIVITY_H

#include "zmote/api/primitives.h"

#if Z_FEATURE_CONNECTIVITY

#ifdef __cplusplus
extern "C" {
#endif

/** Room for a link's locator (`tcp/192.168.1.2:7447`), NUL included. */
#define ZM_LINK_LOCATOR_MAX 64

/** A transport: the inner object of z_owned_transport_t. */
typedef struct {
    z_id_t _zid;          /**< the remote node's id (all zero: the null transport) */
    z_whatami_t _whatami; /**< what the remote node is */
    bool _is_qos;         /**< per-priority channels were agreed */
    bool _is_multicast;   /**< a member of the session's multicast group */
    bool _is_shm;         /**< shared memory (never, in zmote) */
} zm_api_transport_t;
ZM_OWNED_TYPE(zm_api_transport_t, transport)

/** A link: the inner object of z_owned_link_t. */
typedef struct {
    z_id_t _zid;                   /**< the remote node's id (all zero: the null link) */
    char _src[ZM_LINK_LOCATOR_MAX]; /**< the local locator, "" when the platform cannot tell */
    char _dst[ZM_LINK_LOCATOR_MAX]; /**< the remote locator, likewise */
    uint16_t _mtu;                 /**< the largest batch it carries */
    bool _is_streamed;             /**< a byte stream (TCP) */
    bool _is_reliable;             /**< it loses nothing (not UDP) */
} zm_api_link_t;
ZM_OWNED_TYPE(zm_api_link_t, link)

/** A transport that opened (Z_SAMPLE_KIND_PUT) or closed (DELETE): the inner object of z_owned_transport_event_t. */
typedef struct {
    z_sample_kind_t kind;         /**< PUT: opened; DELETE: closed */
    zm_api_transport_t transport; /**< the transport */
} zm_api_transport_event_t;
ZM_OWNED_TYPE(zm_api_transport_event_t, transport_event)

/** A link that opened or closed: the inner object of z_owned_link_event_t. */
typedef struct {
    z_sample_kind_t kind; /**< PUT: opened; DELETE: closed */
    zm_api_link_t link;   /**< the link */
} zm_api_link_event_t;
ZM_OWNED_TYPE(zm_api_link_event_t, link_event)

/** A transport events listener: the inner object of z_owned_transport_events_listener_t. */
typedef struct {
    struct zm_api_session *session; /**< counted reference */
    uint32_t id;                    /**< its id in the session */
} zm_api_transport_events_listener_t;
ZM_OWNED_TYPE(zm_api_transport_events_listener_t, transport_events_listener)

/** A link events listener: the inner object of z_owned_link_events_listener_t. */
typedef struct {
    struct zm_api_session *session; /**< counted reference */
    uint32_t id;                    /**< its id in the session */
} zm_api_link_events_listener_t;
ZM_OWNED_TYPE(zm_api_link_events_listener_t, link_events_listener)

/** Called with a transport, borrowed for the call. */
typedef void (*z_closure_transport_callback_t)(z_loaned_transport_t *transport, void *context);
/** Called with a link, borrowed for the call. */
typedef void (*z_closure_link_callback_t)(z_loaned_link_t *link, void *context);
/** Called with a transport event, borrowed for the call. */
typedef void (*z_closure_transport_event_callback_t)(z_loaned_transport_event_t *event, void *context);
/** Called with a link event, borrowed for the call. */
typedef void (*z_closure_link_event_callback_t)(z_loaned_link_event_t *event, void *context);

/** A closure of transports: the inner object of z_owned_closure_transport_t. */
typedef struct {
    void *context;                       /**< given to call and drop */
    z_closure_transport_callback_t call; /**< called for each transport */
    z_closure_drop_callback_t drop;      /**< called once at the end (may be NULL) */
} zm_api_closure_transport_t;
ZM_OWNED_TYPE(zm_api_closure_transport_t, closure_transport)

/** A closure of links: the inner object of z_owned_closure_link_t. */
typedef struct {
    void *context;                  /**< given to call and drop */
    z_closure_link_callback_t call; /**< called for each link */
    z_closure_drop_callback_t drop; /**< called once at the end (may be NULL) */
} zm_api_closure_link_t;
ZM_OWNED_TYPE(zm_api_closure_link_t, closure_link)

/** A closure of transport events: the inner object of z_owned_closure_transport_event_t. */
typedef struct {
    void *context;                             /**< given to call and drop */
    z_closure_transport_event_callback_t call; /**< called for each event */
    z_closure_drop_callback_t drop;            /**< called once at the end (may be NULL) */
} zm_api_closure_transport_event_t;
ZM_OWNED_TYPE(zm_api_closure_transport_event_t, closure_transport_event)

/** A closure of link events: the inner object of z_owned_closure_link_event_t. */
typedef struct {
    void *context;                        /**< given to call and drop */
    z_closure_link_event_callback_t call; /**< called for each event */
    z_closure_drop_callback_t drop;       /**< called once at the end (may be NULL) */
} zm_api_closure_link_event_t;
ZM_OWNED_TYPE(zm_api_closure_link_event_t, closure_link_event)

/** Options of z_declare_transport_events_listener(). */
typedef struct z_transport_events_listener_options_t {
    bool history; /**< the transports open now are told first, as PUT events */
} z_transport_events_listener_options_t;

/** Options of z_declare_link_events_listener(). */
typedef struct z_link_events_listener_options_t {
    bool history;                   /**< the links open now are told first, as PUT events */
    z_moved_transport_t *transport; /**< if set (taken), only the links of this transport */
} z_link_events_listener_options_t;

/** Options of z_info_links(). */
typedef struct z_info_links_options_t {
    z_moved_transport_t *transport; /**< if set (taken), only the links of this transport */
} z_info_links_options_t;

ZM_OWNED_FUNCTIONS(transport)
ZM_OWNED_FUNCTIONS(link)
ZM_OWNED_FUNCTIONS(transport_event)
ZM_OWNED_FUNCTIONS(link_event)
ZM_OWNED_FUNCTIONS_BASE(transport_events_listener)
ZM_OWNED_FUNCTIONS_BASE(link_events_listener)
ZM_CLOSURE_FUNCTIONS(closure_transport)
ZM_CLOSURE_FUNCTIONS(closure_link)
ZM_CLOSURE_FUNCTIONS(closure_transport_event)
ZM_CLOSURE_FUNCTIONS(closure_link_event)

/** Makes an owned closure of transports, as z_closure_sample() does. */
z_result_t z_closure_transport(z_owned_closure_transport_t *closure, z_closure_transport_callback_t call,
                               z_closure_drop_callback_t drop, void *context);
/** Calls the closure with transport (nothing if it has no call). */
void z_closure_transport_call(const z_loaned_closure_transport_t *closure, z_loaned_transport_t *transport);
/** Makes an owned closure of links, as z_closure_sample() does. */
z_result_t z_closure_link(z_owned_closure_link_t *closure, z_closure_link_callback_t call,
                          z_closure_drop_callback_t drop, void *context);
/** Calls the closure with link (nothing if it has no call). */
void z_closure_link_call(const z_loaned_closure_link_t *closure, z_loaned_link_t *link);
/** Makes an owned closure of transport events, as z_closure_sample() does. */
z_result_t z_closure_transport_event(z_owned_closure_transport_event_t *closure,
                                     z_closure_transport_event_callback_t call, z_closure_drop_callback_t drop,
                                     void *context);
/** Calls the closure with event (nothing if it has no call). */
void z_closure_transport_event_call(const z_loaned_closure_transport_event_t *closure,
                                    z_loaned_transport_event_t *event);
/** Makes an owned closure of link events, as z_closure_sample() does. */
z_result_t z_closure_link_event(z_owned_closure_link_event_t *closure, z_closure_link_event_callback_t call,
                                z_closure_drop_callback_t drop, void *context);
/** Calls the closure with event (nothing if it has no call). */
void z_closure_link_event_call(const z_loaned_closure_link_event_t *closure, z_loaned_link_event_t *event);

/**
 * Calls callback (taken) for each transport of the session now, on the calling thread, then
 * drops it. Z_EINVAL for a NULL argument, Z_ESESSION_CLOSED once closed.
 */
z_result_t z_info_transports(const z_loaned_session_t *zs, z_moved_closure_transport_t *callback);
/** Fills options with the defaults: every transport's links. */
void z_info_links_options_default(z_info_links_options_t *options);
/** As z_info_transports(), for the links (those of options->transport only, if set). */
z_result_t z_info_links(const z_loaned_session_t *zs, z_moved_closure_link_t *callback,
                        z_info_links_options_t *options);

/** Fills options with the defaults: no history. */
void z_transport_events_listener_options_default(z_transport_events_listener_options_t *options);
/**
 * Declares a listener of transports opening and closing, returned owned in *listener; callback
 * (taken) runs for each event as the file's comment says, and its drop when the listener ends
 * (undeclared, dropped, or the session closed). options may be NULL (the defaults).
 */
z_result_t z_declare_transport_events_listener(const z_loaned_session_t *zs,
                                               z_owned_transport_events_listener_t *listener,
                                               z_moved_closure_transport_event_t *callback,
                                               const z_transport_events_listener_options_t *options);
/** As z_declare_transport_events_listener(), for a listener that lives as long as the session. */
z_result_t z_declare_background_transport_events_listener(const z_loaned_session_t *zs,
                                                          z_moved_closure_transport_event_t *callback,
                                                          const z_transport_events_listener_options_t *options);
/** Undeclares the listener and drops it: after it returns, its callback runs no more. */
z_result_t z_undeclare_transport_events_listener(z_moved_transport_events_listener_t *listener);

/** Fills options with the defaults: no history, every transport. */
void z_link_events_listener_options_default(z_link_events_listener_options_t *options);
/** As z_declare_transport_events_listener(), for links (options->transport, if set, is taken). */
z_result_t z_declare_link_events_listener(const z_loaned_session_t *zs, z_owned_link_events_listener_t *listener,
                                          z_moved_closure_link_event_t *callback,
                                          z_link_events_listener_options_t *options);
/** As z_declare_link_events_listener(), for a listener that lives as long as the session. */
z_result_t z_declare_background_link_events_listener(const z_loaned_session_t *zs,
                                                     z_moved_closure_link_event_t *callback,
                                                     z_link_events_listener_options_t *options);
/** Undeclares the listener and drops it: after it returns, its callback runs no more. */
z_result_t z_undeclare_link_events_listener(z_moved_link_events_listener_t *listener);

/** The remote node's id. */
z_id_t z_transport_zid(const z_loaned_transport_t *transport);
/** What the remote node is: router, peer or client. */
z_whatami_t z_transport_whatami(const z_loaned_transport_t *transport);
/** Whether per-priority channels were agreed with the remote node. */
bool z_transport_is_qos(const z_loaned_transport_t *transport);
/** Whether the remote node is a member of the session's multicast group. */
bool z_transport_is_multicast(const z_loaned_transport_t *transport);
/** Always false: zmote has no shared memory. */
bool z_transport_is_shm(const z_loaned_transport_t *transport);

/** The id of the node at the other end of the link. */
z_id_t z_link_zid(const z_loaned_link_t *link);
/** Returns owned in str_out the link's local locator; Z_EUNAVAILABLE (str_out null) when unknown. */
z_result_t z_link_src(const z_loaned_link_t *link, z_owned_string_t *str_out);
/** Returns owned in str_out the link's remote locator; Z_EUNAVAILABLE (str_out null) when unknown. */
z_result_t z_link_dst(const z_loaned_link_t *link, z_owned_string_t *str_out);
/** The largest batch the link carries, in bytes. */
uint16_t z_link_mtu(const z_loaned_link_t *link);
/** Whether the link is a byte stream (TCP), where batches travel behind a length. */
bool z_link_is_streamed(const z_loaned_link_t *link);
/** Whether the link loses nothing (TCP, serial; not UDP). */
bool z_link_is_reliable(const z_loaned_link_t *link);
/** A null string: zmote's links have no group, as zenoh-pico's. */
void z_link_group(const z_loaned_link_t *link, z_owned_string_t *str_out);
/** A null string: zmote's links have no authentication. */
void z_link_auth_identifier(const z_loaned_link_t *link, z_owned_string_t *str_out);
/** A null array: zmote does not tell a link's interfaces, as zenoh-pico. */
void z_link_interfaces(const z_loaned_link_t *link, z_owned_string_array_t *interfaces_out);
/** False: zmote's links carry every priority, unbounded, as zenoh-pico's. */
bool z_link_priorities(const z_loaned_link_t *link, uint8_t *min_out, uint8_t *max_out);
/** False: a link's reliability is z_link_is_reliable(). */
bool z_link_reliability(const z_loaned_link_t *link, z_reliability_t *reliability_out);

/** Z_SAMPLE_KIND_PUT when the transport opened, Z_SAMPLE_KIND_DELETE when it closed. */
z_sample_kind_t z_transport_event_kind(const z_loaned_transport_event_t *event);
/** The transport of the event, borrowed from it. */
const z_loaned_transport_t *z_transport_event_transport(const z_loaned_transport_event_t *event);
/** The transport of the event, borrowed from it for modification. */
z_loaned_transport_t *z_transport_event_transport_mut(z_loaned_transport_event_t *event);
/** Z_SAMPLE_KIND_PUT when the link opened, Z_SAMPLE_KIND_DELETE when it closed. */
z_sample_kind_t z_link_event_kind(const z_loaned_link_event_t *event);
/** The link of the event, borrowed from it. */
const z_loaned_link_t *z_link_event_link(const z_loaned_link_event_t *event);
/** The link of the event, borrowed from it for modification. */
z_loaned_link_t *z_link_event_link_mut(z_loaned_link_event_t *event);

#ifdef __cplusplus
}
#endif

#endif /* Z_FEATURE_CONNECTIVITY */

#endif /* ZMOTE_API_CONNECTIVITY_H */
