/**
 * @file
 * The functions of the Zenoh C API (zenoh-pico 1.9.0's signatures): configuration, sessions,
 * key expressions, payloads, samples, publication and subscription, and the tasks that drive a
 * session. Every function checks its arguments (NULL, dropped objects) and reports misuse with
 * an error code instead of crashing; every failure leaves the objects it was given usable and
 * leaks nothing.
 *
 * @anchor api_conventions
 * @par Ownership
 * Ownership words used below: "borrows" (the argument must stay valid for the call only),
 * "takes" (a z_moved_X_t argument is consumed, on success and on failure alike), "returns
 * owned" (the caller must drop the result), "aliases" (the result points into an argument and
 * is valid as long as that argument is). An owned object is released with z_drop(z_move(x));
 * dropping an object in the null state does nothing, so an object may always be dropped.
 *
 * @par Blocking
 * Unless said otherwise a function does not block. Those that send wait, for each router or peer
 * a message goes to, as its congestion control says: DROP waits at most ZM_TX_DROP_WAIT_MS for
 * room and then drops the message (not an error), BLOCK at most ZM_TX_BLOCK_TIMEOUT_MS, after
 * which that peer's link is declared dead. Declarations (of key expressions, subscribers,
 * publishers, queryables, queriers, tokens) are sent with BLOCK.
 *
 * @anchor api_threads
 * @par Threads
 * Every function may be called from any thread; a session and the entities declared on it may
 * be used by several threads at once, any other object (a payload, an owned sample, a
 * configuration) by one thread at a time. Callbacks (closures' calls and drops) run on the
 * thread that learnt what they report: in multi-thread builds (Z_FEATURE_MULTI_THREAD) a read task
 * of the session, one per connected router or peer, for what arrives from the network, and the
 * session's lease task for what times out (a get's end, a peer whose lease expired); in
 * single-thread builds the thread calling zp_read(), zp_spin_once() or zp_send_keep_alive(),
 * inside that call. What the session does itself runs its callbacks on the calling thread,
 * inside the call: its own puts reach its subscribers within z_put(), its own gets reach its
 * queryables within z_get(), and a declaration or undeclaration that changes a matching status
 * calls the listeners within it. A callback may call the API, except what would wait for itself:
 * closing its session (z_close()), or stopping the lease task (zp_stop_lease_task()) from a
 * callback that runs on it.
 *
 * @anchor api_errors
 * @par Errors
 * Common to every function: Z_EINVAL for a NULL or invalid argument, ZM_E_NOMEM when memory runs
 * out; for a function that uses a session, Z_ENULL when the session (or the entity that carries
 * it) is NULL or dropped and Z_ESESSION_CLOSED once the session is closed. Each function names
 * the others it returns.
 *
 * @anchor api_send_errors
 * @par Send errors
 * A function that sends returns, when a router or peer it sends to does not take the message:
 * ZM_E_TOO_LARGE (larger than a batch without Z_FEATURE_FRAGMENTATION, or than ZM_FRAG_MAX_SIZE:
 * nothing was sent, the link stays up), ZM_E_TIMEOUT (a BLOCK message waited its whole timeout),
 * ZM_E_CLOSED (the link is closed, or a client's router is gone and Z_FEATURE_AUTO_RECONNECT is
 * off), Z_ENETWORK or Z_EIO (the link failed). Except for ZM_E_TOO_LARGE the peer is dropped; the
 * message still went to the others, and to this session's own subscribers.
 */
#ifndef ZMOTE_API_PRIMITIVES_H
#define ZMOTE_API_PRIMITIVES_H

#include "zmote/api/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-type functions ------------------------------------------------------------------------
 *
 * Documented with the macros that declare them: ZM_OWNED_FUNCTIONS_BASE and its siblings below.
 */

/**
 * Declares the per-type functions every owned type `name` has (the generic macros of
 * zmote/api/macros.h pick them by type; X stands for `name`):
 * - `void z_internal_X_null(z_owned_X_t *obj)`: makes obj the empty ("null", "gravestone")
 *   state; obj's previous content is forgotten, not dropped.
 * - `bool z_internal_X_check(const z_owned_X_t *obj)`: true unless obj is in the null state.
 * - `const z_loaned_X_t *z_X_loan(const z_owned_X_t *obj)`: borrows obj's object (no copy).
 * - `z_loaned_X_t *z_X_loan_mut(z_owned_X_t *obj)`: borrows it for modification.
 * - `z_moved_X_t *z_X_move(z_owned_X_t *obj)`: marks obj as given away to the function it is
 *   passed to; that function leaves obj null.
 * - `void z_X_take(z_owned_X_t *dst, z_moved_X_t *src)`: moves src's object into dst (dst's old
 *   content is forgotten, not dropped) and leaves src null.
 * - `void z_X_drop(z_moved_X_t *obj)`: releases obj's object and leaves obj null; dropping a
 *   null object (or NULL) does nothing.
 *
 * None of them allocates or blocks, except the drops of entities declared on a session, which
 * undeclare them as z_undeclare_X does and may wait as it does: subscriber, publisher,
 * queryable, querier, matching_listener, liveliness_token (the drop of a session closes it,
 * see z_close()). Declared with this macro alone: subscriber, publisher, matching_listener,
 * queryable, querier, liveliness_token; ZM_OWNED_FUNCTIONS, ZM_OWNED_FUNCTIONS_NO_COPY,
 * ZM_OWNED_FUNCTIONS_RC and ZM_CLOSURE_FUNCTIONS add to it for the other types.
 */
#define ZM_OWNED_FUNCTIONS_BASE(name)                                                              \
    void z_internal_##name##_null(z_owned_##name##_t *obj);                                        \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj);                                 \
    static inline const z_loaned_##name##_t *z_##name##_loan(const z_owned_##name##_t *obj)        \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_loaned_##name##_t *z_##name##_loan_mut(z_owned_##name##_t *obj)                \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_moved_##name##_t *z_##name##_move(z_owned_##name##_t *obj)                     \
    {                                                                                              \
        return (z_moved_##name##_t *)obj;                                                          \
    }                                                                                              \
    void z_##name##_take(z_owned_##name##_t *obj, z_moved_##name##_t *src);                        \
    void z_##name##_drop(z_moved_##name##_t *obj);

/**
 * The functions of ZM_OWNED_FUNCTIONS_BASE, plus:
 * - `z_result_t z_X_clone(z_owned_X_t *dst, const z_loaned_X_t *src)`: returns owned in dst a
 *   copy of src. Byte runs something keeps alive are shared, not copied (a reference more);
 *   borrowed ones (inside a callback) are copied, into one allocation. dst is null on failure:
 *   Z_EINVAL (a NULL argument; for a query, also a null or dropped one), ZM_E_NOMEM. Cloning a
 *   query keeps it open (see z_query_clone()).
 * - `z_result_t z_X_take_from_loaned(z_owned_X_t *dst, z_loaned_X_t *src)`: moves the object out
 *   of a loan into dst, copying whatever the loan only borrows (e.g. the sample in a callback),
 *   and leaves the loaned object empty (a query's loan stays as it was); errors as clone.
 *
 * For string, keyexpr, config, hello, string_array, sample, slice, bytes, encoding, query,
 * reply and reply_err.
 */
#define ZM_OWNED_FUNCTIONS(name)                                                                   \
    ZM_OWNED_FUNCTIONS_BASE(name)                                                                  \
    z_result_t z_##name##_clone(z_owned_##name##_t *dst, const z_loaned_##name##_t *src);          \
    z_result_t z_##name##_take_from_loaned(z_owned_##name##_t *dst, z_loaned_##name##_t *src);

/**
 * The functions of ZM_OWNED_FUNCTIONS_BASE plus `z_X_take_from_loaned` (as in ZM_OWNED_FUNCTIONS),
 * for a type that cannot be copied: bytes_writer.
 */
#define ZM_OWNED_FUNCTIONS_NO_COPY(name)                                                           \
    ZM_OWNED_FUNCTIONS_BASE(name)                                                                  \
    z_result_t z_##name##_take_from_loaned(z_owned_##name##_t *dst, z_loaned_##name##_t *src);

/**
 * The functions of ZM_OWNED_FUNCTIONS_BASE for a reference-counted handle (ZM_OWNED_TYPE_RC):
 * the loans give the handle, the drop lets go of one reference. For session (whose drop closes
 * it, see z_close()), cancellation_token and the six channel handlers (zmote/api/handlers.h).
 */
#define ZM_OWNED_FUNCTIONS_RC(name)                                                                \
    void z_internal_##name##_null(z_owned_##name##_t *obj);                                        \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj);                                 \
    static inline const z_loaned_##name##_t *z_##name##_loan(const z_owned_##name##_t *obj)        \
    {                                                                                              \
        return &obj->_rc;                                                                          \
    }                                                                                              \
    static inline z_loaned_##name##_t *z_##name##_loan_mut(z_owned_##name##_t *obj)                \
    {                                                                                              \
        return &obj->_rc;                                                                          \
    }                                                                                              \
    static inline z_moved_##name##_t *z_##name##_move(z_owned_##name##_t *obj)                     \
    {                                                                                              \
        return (z_moved_##name##_t *)obj;                                                          \
    }                                                                                              \
    void z_##name##_take(z_owned_##name##_t *obj, z_moved_##name##_t *src);                        \
    void z_##name##_drop(z_moved_##name##_t *obj);

/**
 * The functions of a closure type: those of ZM_OWNED_FUNCTIONS_BASE without loan_mut. Dropping a
 * closure calls its drop(context) once, on the calling thread, and leaves it null;
 * `z_internal_X_check` is true while its call is set. For closure_sample, closure_zid,
 * closure_hello, closure_query, closure_reply and closure_matching_status; each also has a
 * constructor `z_X()` and `z_X_call()`, declared one by one.
 */
#define ZM_CLOSURE_FUNCTIONS(name)                                                                 \
    void z_internal_##name##_null(z_owned_##name##_t *obj);                                        \
    bool z_internal_##name##_check(const z_owned_##name##_t *obj);                                 \
    static inline const z_loaned_##name##_t *z_##name##_loan(const z_owned_##name##_t *obj)        \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_moved_##name##_t *z_##name##_move(z_owned_##name##_t *obj)                     \
    {                                                                                              \
        return (z_moved_##name##_t *)obj;                                                          \
    }                                                                                              \
    void z_##name##_take(z_owned_##name##_t *obj, z_moved_##name##_t *src);                        \
    void z_##name##_drop(z_moved_##name##_t *obj);

/**
 * The functions of a view type `z_view_X_t`: `bool z_view_X_is_empty(const z_view_X_t *view)`
 * (true when it shows no byte), `z_view_X_loan` and `z_view_X_loan_mut` (borrow the view's
 * object), and `void z_view_X_empty(z_view_X_t *view)` (makes an empty view). A view never owns
 * what it shows, so it has no drop. For keyexpr, string and slice.
 */
#define ZM_VIEW_FUNCTIONS(name)                                                                    \
    bool z_view_##name##_is_empty(const z_view_##name##_t *obj);                                   \
    static inline const z_loaned_##name##_t *z_view_##name##_loan(const z_view_##name##_t *obj)    \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    static inline z_loaned_##name##_t *z_view_##name##_loan_mut(z_view_##name##_t *obj)            \
    {                                                                                              \
        return &obj->_val;                                                                         \
    }                                                                                              \
    void z_view_##name##_empty(z_view_##name##_t *obj);

ZM_OWNED_FUNCTIONS(string)
ZM_OWNED_FUNCTIONS(keyexpr)
ZM_OWNED_FUNCTIONS(config)
ZM_OWNED_FUNCTIONS(hello)
ZM_OWNED_FUNCTIONS(string_array)
ZM_OWNED_FUNCTIONS(sample)
ZM_OWNED_FUNCTIONS(slice)
ZM_OWNED_FUNCTIONS(bytes)
ZM_OWNED_FUNCTIONS(encoding)
ZM_OWNED_FUNCTIONS_NO_COPY(bytes_writer)
ZM_OWNED_FUNCTIONS_RC(session)
ZM_OWNED_FUNCTIONS_BASE(subscriber)
ZM_OWNED_FUNCTIONS_BASE(publisher)
ZM_CLOSURE_FUNCTIONS(closure_sample)
ZM_CLOSURE_FUNCTIONS(closure_zid)
ZM_CLOSURE_FUNCTIONS(closure_hello)
ZM_VIEW_FUNCTIONS(keyexpr)
ZM_VIEW_FUNCTIONS(string)
ZM_VIEW_FUNCTIONS(slice)

/* ---- configuration ------------------------------------------------------------------------------ */

/**
 * Returns owned in *config the default configuration: client mode, multicast scouting on
 * udp/224.0.0.224:7446 with a 1000 ms timeout (see z_open() and z_scout()). Allocates the copies of
 * the default strings; drop it, or give it to z_open(). Errors: Z_EINVAL (NULL config), ZM_E_NOMEM
 * (*config is left null).
 */
z_result_t z_config_default(z_owned_config_t *config);

/**
 * Sets key (a Z_CONFIG_*_KEY) to a copy of value (value is borrowed). Z_CONFIG_CONNECT_KEY adds
 * one more locator each time; every other key replaces its previous value. Errors: Z_EINVAL (NULL
 * config or value), ZM_E_NOMEM (config unchanged), _Z_ERR_CONFIG_FAILED_INSERT when the table
 * (ZM_CONFIG_ENTRIES_MAX entries) is full.
 */
z_result_t zp_config_insert(z_loaned_config_t *config, uint8_t key, const char *value);

/**
 * Returns the first value stored for key, aliased (valid until the configuration changes or is
 * dropped), or NULL when there is none (or config is NULL).
 */
const char *zp_config_get(const z_loaned_config_t *config, uint8_t key);

/* ---- sessions ----------------------------------------------------------------------------------- */

/**
 * Fills options with the defaults: in multi-thread builds the session's tasks start in z_open
 * (auto_start_read_task), the admin space does not.
 */
void z_open_options_default(z_open_options_t *options);

/**
 * Opens a session and returns it owned in *zs (null on failure): drop it (which closes it) when
 * done. Takes config (dropped on every path); options may be NULL (the defaults).
 *
 * A listen locator makes the session a peer that listens (the first listen locator), then
 * connects to every connect locator, skipping those that fail; a client connects to the first
 * connect locator that answers. Blocks until then: up to Z_TRANSPORT_CONNECT_TIMEOUT for each
 * locator's connection and again for its handshake. In multi-thread builds the session's tasks
 * start here unless options->auto_start_read_task is false: a read task per connected router or
 * peer (callbacks run on them), an accept task when listening, and the lease task.
 *
 * Without connect nor listen locator the session scouts (Z_FEATURE_SCOUTING, as z_scout() does)
 * on the group of Z_CONFIG_MULTICAST_LOCATOR_KEY for the kinds of Z_CONFIG_SCOUTING_WHAT_KEY
 * (routers and peers by default), for up to Z_CONFIG_SCOUTING_TIMEOUT_KEY ms, and connects to the
 * first node that answers with a locator this build can open; a client found that way scouts
 * again to reconnect. A listening peer answers SCOUTs for peers on that group while it is open
 * (Z_CONFIG_MULTICAST_SCOUTING_KEY "true", the default), on its accept task (or in zp_read()),
 * with the locators it can be reached at, unless it listens on a loopback address only.
 *
 * Errors: Z_EINVAL (NULL arguments, a malformed zid or scouting value, more than ZM_ENDPOINTS_MAX
 * connect or listen locators, no locator while Z_CONFIG_MULTICAST_SCOUTING_KEY is "false"),
 * _Z_ERR_CONFIG_INVALID_MODE (a mode other than "client" or "peer"), _Z_ERR_SCOUT_NO_RESULTS
 * (scouting found nothing to connect to), ZM_E_UNSUPPORTED (no connect nor listen locator in a
 * build without Z_FEATURE_SCOUTING; peer mode in a build without Z_FEATURE_UNICAST_PEER; a task
 * that could not be started), ZM_E_NOMEM, ZM_E_LOCATOR (a locator that does not parse; a scouting
 * locator that is not a multicast group or names an unknown interface), and the errors of the
 * links and handshakes (ZM_E_REFUSED, ZM_E_ADDR_IN_USE, ZM_E_NO_HOST, ZM_E_UNREACHABLE, Z_ENETWORK,
 * ZM_E_TIMEOUT, ZM_E_CLOSED, Z_EIO, ...): of the listen locator, or of the last connect locator
 * tried when none could be reached and the session does not listen; ZM_E_UNREACHABLE too for a
 * scouting group no route leads to.
 */
z_result_t z_open(z_owned_session_t *zs, z_moved_config_t *config, const z_open_options_t *options);

/** Fills options with the defaults (there are none yet). */
void z_close_options_default(z_close_options_t *options);

/**
 * Closes the session: waits for the calls under way on it to return, stops and joins its tasks,
 * sends CLOSE to its routers and peers and closes its transports, ends every entity (subscribers,
 * queryables, matching listeners, gets: their closures' drop runs, on the calling thread) and
 * forgets its declarations locally (nothing is undeclared on the wire). Blocks until the tasks
 * have stopped, so it must not be called from a callback of the same session. The owned session
 * stays to be dropped; entities still owned by the program stay valid, report Z_ESESSION_CLOSED,
 * and are undeclared as Z_OK. Closing twice, or a NULL session, is Z_OK: it always returns Z_OK.
 * options may be NULL.
 */
z_result_t z_close(z_loaned_session_t *zs, const z_close_options_t *options);

/** True once the session is closed (or when zs is NULL). */
bool z_session_is_closed(const z_loaned_session_t *zs);

/** Returns the session's zid (all zero when zs is NULL or closed). */
z_id_t z_info_zid(const z_loaned_session_t *zs);

/**
 * Calls callback once per connected peer with its zid, on the calling thread, within this call,
 * then drops the callback. Takes callback (dropped on every path). Errors: Z_EINVAL (NULL callback),
 * Z_ENULL (NULL session), Z_ESESSION_CLOSED.
 */
z_result_t z_info_peers_zid(const z_loaned_session_t *zs, z_moved_closure_zid_t *callback);

/** Same as z_info_peers_zid() for the routers this session is connected to (client mode). */
z_result_t z_info_routers_zid(const z_loaned_session_t *zs, z_moved_closure_zid_t *callback);

/**
 * Returns owned in *str the zid as 32 lowercase hexadecimal digits, most significant byte
 * (id[15]) first. Errors: Z_EINVAL (NULL argument), ZM_E_NOMEM; *str is null on failure.
 */
z_result_t z_id_to_string(const z_id_t *id, z_owned_string_t *str);

/* ---- key expressions ------------------------------------------------------------------------------ */

/** Makes keyexpr a view of name (aliased, NUL-terminated). Z_EINVAL unless name is canonical. */
z_result_t z_view_keyexpr_from_str(z_view_keyexpr_t *keyexpr, const char *name);
/** Like z_view_keyexpr_from_str without the check: name must be a canonical key expression. */
void z_view_keyexpr_from_str_unchecked(z_view_keyexpr_t *keyexpr, const char *name);
/** Canonizes name in place (it may shrink; a NUL ends it again), then makes keyexpr view it. */
z_result_t z_view_keyexpr_from_str_autocanonize(z_view_keyexpr_t *keyexpr, char *name);
/** View of the first len bytes of name (aliased). Z_EINVAL unless they are canonical. */
z_result_t z_view_keyexpr_from_substr(z_view_keyexpr_t *keyexpr, const char *name, size_t len);
/** Canonizes name[0..*len) in place, updates *len, then makes keyexpr view it. */
z_result_t z_view_keyexpr_from_substr_autocanonize(z_view_keyexpr_t *keyexpr, char *name, size_t *len);
/** View of name[0..len) without the check: the bytes must be a canonical key expression. */
void z_view_keyexpr_from_substr_unchecked(z_view_keyexpr_t *keyexpr, const char *name, size_t len);

/** Returns owned in *keyexpr a copy of name; Z_EINVAL unless it is canonical, ZM_E_NOMEM. */
z_result_t z_keyexpr_from_str(z_owned_keyexpr_t *keyexpr, const char *name);
/** Returns owned a copy of name[0..len); Z_EINVAL unless canonical, ZM_E_NOMEM. */
z_result_t z_keyexpr_from_substr(z_owned_keyexpr_t *keyexpr, const char *name, size_t len);
/**
 * Returns owned a canonized copy of name (name itself is not modified). Z_EINVAL when it cannot be
 * made canonical, ZM_E_NOMEM.
 */
z_result_t z_keyexpr_from_str_autocanonize(z_owned_keyexpr_t *keyexpr, const char *name);
/**
 * Returns owned a canonized copy of name[0..*len) and sets *len to the copy's length. Z_EINVAL when
 * it cannot be made canonical, ZM_E_NOMEM.
 */
z_result_t z_keyexpr_from_substr_autocanonize(z_owned_keyexpr_t *keyexpr, const char *name, size_t *len);

/**
 * Makes str a view of the key expression's text (aliased; not NUL-terminated in general). Z_EINVAL
 * for a NULL argument.
 */
z_result_t z_keyexpr_as_view_string(const z_loaned_keyexpr_t *keyexpr, z_view_string_t *str);

/**
 * Returns owned in *key the text of left followed directly by right[0..len) (no separator).
 * Z_EINVAL when the result is not a canonical key expression; ZM_E_NOMEM.
 */
z_result_t z_keyexpr_concat(z_owned_keyexpr_t *key, const z_loaned_keyexpr_t *left, const char *right, size_t len);
/** Returns owned in *key "left/right", canonized. Z_EINVAL when that is not valid; ZM_E_NOMEM. */
z_result_t z_keyexpr_join(z_owned_keyexpr_t *key, const z_loaned_keyexpr_t *left, const z_loaned_keyexpr_t *right);

/** Z_OK when start[0..len) is a canonical key expression, else Z_EINVAL. Borrows start. */
z_result_t z_keyexpr_is_canon(const char *start, size_t len);
/** Canonizes start[0..*len) in place and updates *len; Z_EINVAL if it cannot be made valid. */
z_result_t z_keyexpr_canonize(char *start, size_t *len);
/** Canonizes the NUL-terminated start in place and terminates the result; Z_EINVAL. */
z_result_t z_keyexpr_canonize_null_terminated(char *start);
/** True when every key matched by r is matched by l (zenoh's includes relation). */
bool z_keyexpr_includes(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r);
/** True when some key is matched by both. */
bool z_keyexpr_intersects(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r);
/** True when both have the same text. */
bool z_keyexpr_equals(const z_loaned_keyexpr_t *l, const z_loaned_keyexpr_t *r);
/** EQUALS, INCLUDES (left includes right), INTERSECTS or DISJOINT, the first that holds. */
z_keyexpr_intersection_level_t z_keyexpr_relation_to(const z_loaned_keyexpr_t *left,
                                                     const z_loaned_keyexpr_t *right);

/**
 * Declares keyexpr on the session so that later messages carry a short numeric id instead of
 * the text; returns owned in *declared_keyexpr a key expression carrying that id (use it with
 * z_put() / z_delete() on this session; a key declared already is shared, not declared twice).
 * Borrows keyexpr. Blocks while the declaration is sent to each router or peer (BLOCK, see
 * @ref api_conventions "Blocking"); a peer that does not take it is dropped, the declaration
 * stands. Release it with z_undeclare_keyexpr(); dropping it only frees the memory.
 * Errors: Z_EINVAL (NULL or empty key expression), ZM_E_KEYEXPR (text that is not a valid key
 * expression), ZM_E_NO_SPACE (the session's 65535 key ids are all in use), ZM_E_NOMEM, Z_ENULL,
 * Z_ESESSION_CLOSED; *declared_keyexpr is null on failure.
 */
z_result_t z_declare_keyexpr(const z_loaned_session_t *zs, z_owned_keyexpr_t *declared_keyexpr,
                             const z_loaned_keyexpr_t *keyexpr);

/**
 * Undeclares a key expression declared with z_declare_keyexpr() and drops it (takes keyexpr on
 * every path); the declaration leaves the wire with its last user (its publishers hold it too).
 * Sends the undeclaration as z_declare_keyexpr() sends the declaration. Errors: Z_EINVAL (NULL, or
 * not declared), _Z_ERR_KEYEXPR_DECLARED_ON_ANOTHER_SESSION (it belongs to another session),
 * Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t z_undeclare_keyexpr(const z_loaned_session_t *zs, z_moved_keyexpr_t *keyexpr);

/* ---- slices ------------------------------------------------------------------------------------- */

/** Returns owned a copy of data[0..len); ZM_E_NOMEM. */
z_result_t z_slice_copy_from_buf(z_owned_slice_t *slice, const uint8_t *data, size_t len);
/**
 * Returns owned a slice that takes data: deleter(data, context) runs once, on the thread that
 * drops the last reference (NULL deleter: data is never released and must outlive every copy;
 * nothing is allocated then). Errors: Z_EINVAL (NULL slice, or NULL data with len > 0: the deleter
 * does not run, data stays the caller's), ZM_E_NOMEM (the deleter has already run).
 */
z_result_t z_slice_from_buf(z_owned_slice_t *slice, uint8_t *data, size_t len,
                            void (*deleter)(void *data, void *context), void *context);
/** Makes slice a view of data[0..len) (aliased). */
z_result_t z_view_slice_from_buf(z_view_slice_t *slice, const uint8_t *data, size_t len);
/** Makes slice an empty owned slice. */
void z_slice_empty(z_owned_slice_t *slice);
/** The slice's first byte (aliased; may be NULL when empty). */
const uint8_t *z_slice_data(const z_loaned_slice_t *slice);
/** Length of the slice in bytes (0 for NULL). */
size_t z_slice_len(const z_loaned_slice_t *slice);
/** True when the slice has no bytes (or is NULL). */
bool z_slice_is_empty(const z_loaned_slice_t *slice);

/* ---- strings ------------------------------------------------------------------------------------ */

/** The string's text (aliased; NUL-terminated only when the library allocated it). */
const char *z_string_data(const z_loaned_string_t *str);
/** Length of the text in bytes, without any NUL. */
size_t z_string_len(const z_loaned_string_t *str);
/** True when the string has no bytes (or is NULL). */
bool z_string_is_empty(const z_loaned_string_t *str);
/** Returns owned a copy of the NUL-terminated value; ZM_E_NOMEM. */
z_result_t z_string_copy_from_str(z_owned_string_t *str, const char *value);
/** Returns owned a copy of value[0..len), NUL-terminated; ZM_E_NOMEM. */
z_result_t z_string_copy_from_substr(z_owned_string_t *str, const char *value, size_t len);
/**
 * Returns owned a string that takes value (NUL-terminated): deleter(value, context) runs once,
 * on the thread that drops the last reference (NULL: never). Errors: Z_EINVAL (NULL argument: the
 * deleter does not run), ZM_E_NOMEM (the deleter has already run).
 */
z_result_t z_string_from_str(z_owned_string_t *str, char *value, void (*deleter)(void *value, void *context),
                             void *context);
/** Makes str an empty owned string. */
void z_string_empty(z_owned_string_t *str);
/** The string's bytes as a slice (aliased). */
const z_loaned_slice_t *z_string_as_slice(const z_loaned_string_t *str);
/** Makes str a view of the NUL-terminated value (aliased). */
z_result_t z_view_string_from_str(z_view_string_t *str, const char *value);
/** Makes str a view of value[0..len) (aliased). */
z_result_t z_view_string_from_substr(z_view_string_t *str, const char *value, size_t len);

/* ---- string arrays -------------------------------------------------------------------------------- */

/** Makes a an empty owned array (allocates nothing until the first push). */
void z_string_array_new(z_owned_string_array_t *a);
/** Appends an alias of value (value must outlive the array); returns the new length (unchanged on ZM_E_NOMEM). */
size_t z_string_array_push_by_alias(z_loaned_string_array_t *a, const z_loaned_string_t *value);
/** Appends a copy of value; returns the new length (unchanged when memory runs out). */
size_t z_string_array_push_by_copy(z_loaned_string_array_t *a, const z_loaned_string_t *value);
/** The k-th string (aliased), or NULL when k is out of range. */
const z_loaned_string_t *z_string_array_get(const z_loaned_string_array_t *a, size_t k);
/** Number of strings in the array. */
size_t z_string_array_len(const z_loaned_string_array_t *a);
/** True when the array holds no string. */
bool z_string_array_is_empty(const z_loaned_string_array_t *a);

/* ---- payloads (bytes) ----------------------------------------------------------------------------- */

/** Makes bytes an empty owned payload. */
void z_bytes_empty(z_owned_bytes_t *bytes);
/** Returns owned a copy of data[0..len) (one allocation); ZM_E_NOMEM. */
z_result_t z_bytes_copy_from_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len);
/**
 * Returns owned a payload that takes data: deleter(data, context) runs exactly once, when the
 * last clone is dropped, on the thread that drops it (possibly another, e.g. a read task after the
 * network wrote it). The reference count is allocated here, once, so that clones never allocate.
 * NULL deleter: data is never released (it must outlive every clone) and nothing is allocated.
 * Errors: Z_EINVAL (NULL bytes, or NULL data with len > 0: the deleter does not run, data stays
 * the caller's), ZM_E_NOMEM (the deleter has already run).
 */
z_result_t z_bytes_from_buf(z_owned_bytes_t *bytes, uint8_t *data, size_t len,
                            void (*deleter)(void *data, void *context), void *context);
/** Returns owned a payload aliasing data, which must never change nor go away. Never allocates. */
z_result_t z_bytes_from_static_buf(z_owned_bytes_t *bytes, const uint8_t *data, size_t len);
/**
 * Takes slice and returns owned a payload over its bytes (no copy unless the slice only borrowed
 * them). Z_EINVAL for a NULL argument, ZM_E_NOMEM.
 */
z_result_t z_bytes_from_slice(z_owned_bytes_t *bytes, z_moved_slice_t *slice);
/** Returns owned a copy of slice's bytes; ZM_E_NOMEM. */
z_result_t z_bytes_copy_from_slice(z_owned_bytes_t *bytes, const z_loaned_slice_t *slice);
/**
 * Takes s and returns owned a payload over its text (no copy unless the string only borrowed it,
 * no NUL). s is taken on every path. Z_EINVAL for a NULL argument, ZM_E_NOMEM.
 */
z_result_t z_bytes_from_string(z_owned_bytes_t *bytes, z_moved_string_t *s);
/** Returns owned a copy of s's text; ZM_E_NOMEM. */
z_result_t z_bytes_copy_from_string(z_owned_bytes_t *bytes, const z_loaned_string_t *s);
/** Like z_bytes_from_buf() for the NUL-terminated value (the NUL is not part of the payload). */
z_result_t z_bytes_from_str(z_owned_bytes_t *bytes, char *value, void (*deleter)(void *value, void *context),
                            void *context);
/** Returns owned a copy of the NUL-terminated value, without the NUL; ZM_E_NOMEM. */
z_result_t z_bytes_copy_from_str(z_owned_bytes_t *bytes, const char *value);
/** Returns owned a payload aliasing the static NUL-terminated value. Never allocates. */
z_result_t z_bytes_from_static_str(z_owned_bytes_t *bytes, const char *value);

/** Length of the payload in bytes (0 for NULL). */
size_t z_bytes_len(const z_loaned_bytes_t *bytes);
/** True when the payload has no bytes (or is NULL). */
bool z_bytes_is_empty(const z_loaned_bytes_t *bytes);
/**
 * Returns owned in *str a NUL-terminated copy of the payload (one allocation, none for an empty
 * payload, which gives an empty string). ZM_E_NOMEM leaves *str null.
 */
z_result_t z_bytes_to_string(const z_loaned_bytes_t *bytes, z_owned_string_t *str);
/** Returns owned in *dst a copy of the payload; ZM_E_NOMEM leaves *dst null. */
z_result_t z_bytes_to_slice(const z_loaned_bytes_t *bytes, z_owned_slice_t *dst);
#ifdef Z_FEATURE_UNSTABLE_API
/** Makes view a view of the payload's bytes (aliased); Z_EINVAL for one of several runs (z_bytes_writer_append). */
z_result_t z_bytes_get_contiguous_view(const z_loaned_bytes_t *bytes, z_view_slice_t *view);
#endif

/** Returns an iterator over the payload's contiguous runs (borrows bytes). */
z_bytes_slice_iterator_t z_bytes_get_slice_iterator(const z_loaned_bytes_t *bytes);
/** Sets *out to a view of the next run and returns true, or returns false after the last one. */
bool z_bytes_slice_iterator_next(z_bytes_slice_iterator_t *iter, z_view_slice_t *out);

/** Returns a reader positioned at the payload's start (borrows bytes). */
z_bytes_reader_t z_bytes_get_reader(const z_loaned_bytes_t *bytes);
/** Copies up to len bytes into dst and advances; returns how many were copied. */
size_t z_bytes_reader_read(z_bytes_reader_t *reader, uint8_t *dst, size_t len);
/**
 * Moves the reader to offset from origin (SEEK_SET 0, SEEK_CUR 1, SEEK_END 2). Z_EINVAL, and the
 * reader stays put, when the position would fall outside the payload or origin is unknown.
 */
z_result_t z_bytes_reader_seek(z_bytes_reader_t *reader, int64_t offset, int origin);
/** The reader's position from the payload's start. */
int64_t z_bytes_reader_tell(z_bytes_reader_t *reader);
/** Bytes left to read. */
size_t z_bytes_reader_remaining(const z_bytes_reader_t *reader);

/** Returns owned in *writer an empty writer (allocates on the first write). */
z_result_t z_bytes_writer_empty(z_owned_bytes_writer_t *writer);
/** Appends a copy of src[0..len); ZM_E_NOMEM leaves the writer as it was. */
z_result_t z_bytes_writer_write_all(z_loaned_bytes_writer_t *writer, const uint8_t *src, size_t len);
/** Takes bytes and appends its runs as they are, without copying (writes after them start a new run); ZM_E_NOMEM. */
z_result_t z_bytes_writer_append(z_loaned_bytes_writer_t *writer, z_moved_bytes_t *bytes);
/** Takes writer and returns owned in *bytes what was written (no copy). */
void z_bytes_writer_finish(z_moved_bytes_writer_t *writer, z_owned_bytes_t *bytes);

/* ---- closures ----------------------------------------------------------------------------------- */

/**
 * Makes an owned closure of call, drop and context (any may be NULL here; the functions the
 * closure is given to refuse a NULL call). The library calls call(sample, context) for each sample
 * on the thread that received it (see @ref api_threads "Threads": a read task of the session, the
 * caller of zp_read() in single-thread builds, or the publishing thread for the session's own
 * samples), and drop(context) exactly once when the closure ends. Z_EINVAL only for a NULL closure.
 */
z_result_t z_closure_sample(z_owned_closure_sample_t *closure, z_closure_sample_callback_t call,
                            z_closure_drop_callback_t drop, void *context);
/** Calls the closure on sample, on the calling thread (no-op for a NULL or null closure). */
void z_closure_sample_call(const z_loaned_closure_sample_t *closure, z_loaned_sample_t *sample);
/**
 * Makes an owned zid closure, as z_closure_sample() does; see z_info_peers_zid() for when it runs.
 * Z_EINVAL only for a NULL closure.
 */
z_result_t z_closure_zid(z_owned_closure_zid_t *closure, z_closure_zid_callback_t call,
                         z_closure_drop_callback_t drop, void *context);
/** Calls the closure on id, on the calling thread (no-op for a NULL or null closure). */
void z_closure_zid_call(const z_loaned_closure_zid_t *closure, const z_id_t *id);
/**
 * Makes an owned hello closure (for z_scout()), as z_closure_sample() does. Z_EINVAL only for a
 * NULL closure.
 */
z_result_t z_closure_hello(z_owned_closure_hello_t *closure, z_closure_hello_callback_t call,
                           z_closure_drop_callback_t drop, void *context);
/** Calls the closure on hello, on the calling thread (no-op for a NULL or null closure). */
void z_closure_hello_call(const z_loaned_closure_hello_t *closure, z_loaned_hello_t *hello);

/* ---- samples ------------------------------------------------------------------------------------ */
/* The accessors below alias the sample (valid as long as it is) and never fail: a NULL sample
 * reads as an empty one. */

/** The sample's key expression (aliased). */
const z_loaned_keyexpr_t *z_sample_keyexpr(const z_loaned_sample_t *sample);
/** The sample's payload (aliased). */
const z_loaned_bytes_t *z_sample_payload(const z_loaned_sample_t *sample);
/** The sample's timestamp (aliased), or NULL when it carries none. */
const z_timestamp_t *z_sample_timestamp(const z_loaned_sample_t *sample);
/** The sample's encoding (aliased; id 0 without schema when none was sent). */
const z_loaned_encoding_t *z_sample_encoding(const z_loaned_sample_t *sample);
/** PUT or DELETE. */
z_sample_kind_t z_sample_kind(const z_loaned_sample_t *sample);
/** The sample's attachment (aliased; empty when none was sent). Never NULL for a valid sample. */
const z_loaned_bytes_t *z_sample_attachment(const z_loaned_sample_t *sample);
/** The priority the sample was sent with (from its QoS). */
z_priority_t z_sample_priority(const z_loaned_sample_t *sample);
/** The congestion control the sample was sent with (from its QoS). */
z_congestion_control_t z_sample_congestion_control(const z_loaned_sample_t *sample);
/** True when the sample was sent express (not batched). */
bool z_sample_express(const z_loaned_sample_t *sample);
#ifdef Z_FEATURE_UNSTABLE_API
/** Whether the sample came on the reliable or the best-effort channel. */
z_reliability_t z_sample_reliability(const z_loaned_sample_t *sample);
/** The sample's source info (aliased), or NULL when it carries none. */
const z_source_info_t *z_sample_source_info(const z_loaned_sample_t *sample);
#endif

/* ---- timestamps and ids -------------------------------------------------------------------------- */

/**
 * Sets *ts to a new timestamp of the session's clock (now, the session's zid). Errors: Z_EINVAL
 * (NULL ts), Z_ENULL, Z_ESESSION_CLOSED (then *ts is zeroed: not valid).
 */
z_result_t z_timestamp_new(z_timestamp_t *ts, const z_loaned_session_t *zs);
/** The timestamp's NTP64 time (seconds since the UNIX epoch in the high 32 bits). */
uint64_t z_timestamp_ntp64_time(const z_timestamp_t *ts);
/** The zid of the clock that made the timestamp. */
z_id_t z_timestamp_id(const z_timestamp_t *ts);
/** Sets *gid to (zid, eid); Z_EINVAL on NULL. */
z_result_t z_entity_global_id_new(z_entity_global_id_t *gid, const z_id_t *zid, uint32_t eid);
/** The entity id part (0 for NULL). */
uint32_t z_entity_global_id_eid(const z_entity_global_id_t *gid);
/** The zid part (all zero for NULL). */
z_id_t z_entity_global_id_zid(const z_entity_global_id_t *gid);
/** Returns a source info made of source_id and source_sn. */
z_source_info_t z_source_info_new(const z_entity_global_id_t *source_id, uint32_t source_sn);
/** The sequence number of the source info (0 for NULL). */
uint32_t z_source_info_sn(const z_source_info_t *info);
/** The entity that published (all zero for NULL). */
z_entity_global_id_t z_source_info_id(const z_source_info_t *info);

/** Returns Z_PRIORITY_DATA. */
z_priority_t z_priority_default(void);
/** Returns Z_RELIABILITY_RELIABLE. */
z_reliability_t z_reliability_default(void);

/* ---- put and delete ------------------------------------------------------------------------------ */

/** Fills options with the defaults: no encoding, DROP, priority DATA, no timestamp, not express. */
void z_put_options_default(z_put_options_t *options);
/** Fills options with the defaults: DROP, priority DATA, not express, no timestamp. */
void z_delete_options_default(z_delete_options_t *options);

/**
 * Publishes payload on keyexpr: sends it to the router (client) or to every router and every peer
 * with a matching subscriber, and delivers it to the matching subscribers of this session, whose
 * callbacks run on the calling thread before this returns (unless allowed_destination is
 * Z_LOCALITY_REMOTE). Takes payload and the options' encoding and attachment (dropped on every
 * path). Borrows keyexpr and options (NULL: the defaults). Never allocates for a payload made with
 * z_bytes_from_static_buf(), z_bytes_from_buf() or a clone of one. Blocks as its congestion
 * control says (@ref api_conventions "Blocking"): with DROP, the default, a message no peer has
 * room for within ZM_TX_DROP_WAIT_MS is dropped (still Z_OK); with BLOCK it waits up to
 * ZM_TX_BLOCK_TIMEOUT_MS per peer.
 * Errors: Z_EINVAL (NULL or empty key expression, NULL payload, a priority, congestion control or
 * locality out of range), Z_ENULL (NULL session), Z_ESESSION_CLOSED, and the
 * @ref api_send_errors "send errors".
 */
z_result_t z_put(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr, z_moved_bytes_t *payload,
                 const z_put_options_t *options);

/**
 * Publishes a deletion of keyexpr: as z_put() without a payload (same routing, local delivery,
 * blocking and errors; options may be NULL).
 */
z_result_t z_delete(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                    const z_delete_options_t *options);

/* ---- publishers ---------------------------------------------------------------------------------- */

/** Fills options with the defaults: no encoding, DROP, priority DATA, not express, anywhere. */
void z_publisher_options_default(z_publisher_options_t *options);
/** Fills options with the defaults: no encoding (the publisher's), no timestamp, no attachment. */
void z_publisher_put_options_default(z_publisher_put_options_t *options);
/** Fills options with the defaults: no timestamp. */
void z_publisher_delete_options_default(z_publisher_delete_options_t *options);

/**
 * Declares a publisher on keyexpr and returns it owned in *pub (null on failure). Its key
 * expression is declared once so that each put carries a short id, and a copy of keyexpr is kept
 * (keyexpr is borrowed). Takes options->encoding, on every path; options may be NULL (the
 * defaults). Blocks while the declaration is sent (BLOCK; with Z_FEATURE_MATCHING a client also
 * sends its router an INTEREST in the key's subscribers). Undeclare it with
 * z_undeclare_publisher() or drop it.
 * Errors: Z_EINVAL (NULL pub, empty key expression, QoS out of range), ZM_E_KEYEXPR (not a valid
 * key expression), ZM_E_NO_SPACE (the session's 65535 key ids are all in use), ZM_E_NOMEM,
 * Z_ENULL (NULL session), Z_ESESSION_CLOSED.
 */
z_result_t z_declare_publisher(const z_loaned_session_t *zs, z_owned_publisher_t *pub,
                               const z_loaned_keyexpr_t *keyexpr, const z_publisher_options_t *options);

/**
 * Undeclares the publisher and drops it (takes pub): its matching listeners end (their drops run
 * on the calling thread) and its key expression is undeclared with its last user. Sends as
 * z_declare_publisher() does. Errors: Z_ENULL for a NULL or null publisher; Z_OK also when its
 * session is closed.
 */
z_result_t z_undeclare_publisher(z_moved_publisher_t *pub);

/**
 * Publishes payload with the publisher's key expression and QoS; as z_put() otherwise (routing,
 * local delivery, blocking as the publisher's congestion control says). Takes payload and the
 * options' encoding and attachment, on every path; options may be NULL (the publisher's encoding,
 * no timestamp, no attachment). Errors: Z_ENULL (NULL or null publisher), Z_EINVAL (NULL payload),
 * Z_ESESSION_CLOSED once the session is closed, and the @ref api_send_errors "send errors".
 */
z_result_t z_publisher_put(const z_loaned_publisher_t *pub, z_moved_bytes_t *payload,
                           const z_publisher_put_options_t *options);

/**
 * Publishes a deletion with the publisher's key expression and QoS; options may be NULL. Errors:
 * Z_ENULL (NULL or null publisher), Z_ESESSION_CLOSED, and the @ref api_send_errors "send errors".
 */
z_result_t z_publisher_delete(const z_loaned_publisher_t *pub, const z_publisher_delete_options_t *options);

/** The publisher's key expression (aliased; NULL for a NULL publisher). */
const z_loaned_keyexpr_t *z_publisher_keyexpr(const z_loaned_publisher_t *publisher);

/* ---- matching ------------------------------------------------------------------------------------ */

ZM_OWNED_FUNCTIONS_BASE(matching_listener)
ZM_CLOSURE_FUNCTIONS(closure_matching_status)

/**
 * Makes an owned closure of matching statuses, as z_closure_sample() does (a NULL call is
 * refused by the functions the closure is given to). Z_EINVAL only for a NULL closure.
 */
z_result_t z_closure_matching_status(z_owned_closure_matching_status_t *closure,
                                     z_closure_matching_status_callback_t call, z_closure_drop_callback_t drop,
                                     void *context);
/** Calls the closure on status, on the calling thread (no-op for a NULL or null closure). */
void z_closure_matching_status_call(const z_loaned_closure_matching_status_t *closure,
                                    const z_matching_status_t *status);

#if Z_FEATURE_MATCHING == 1
/**
 * Sets *matching_status to whether any subscriber matches the publisher's key now: a remote one
 * (as routers and peers declared them), or one of this session if the publisher delivers locally.
 * Reads counts kept up to date as declarations come and go: no scan, no wait on the network.
 * Errors: Z_EINVAL (NULL argument), Z_ENULL (a dropped or undeclared publisher), Z_ESESSION_CLOSED.
 */
z_result_t z_publisher_get_matching_status(const z_loaned_publisher_t *publisher, z_matching_status_t *matching_status);
/**
 * Declares a listener of the publisher's matching status, returned owned in *matching_listener.
 * Takes callback: its call runs when a first subscriber matches and when the last one goes, on the
 * thread that learnt it (@ref api_threads "Threads"), and within this call, on the calling thread,
 * if one matches already; its drop runs once the listener, or its publisher, is undeclared or the
 * session closes (and when this fails). Errors: Z_EINVAL (NULL argument, NULL call, a dropped or
 * undeclared publisher), ZM_E_NOMEM, Z_ESESSION_CLOSED.
 */
z_result_t z_publisher_declare_matching_listener(const z_loaned_publisher_t *publisher,
                                                 z_owned_matching_listener_t *matching_listener,
                                                 z_moved_closure_matching_status_t *callback);
/** Like z_publisher_declare_matching_listener() for a listener that lives as long as its publisher. */
z_result_t z_publisher_declare_background_matching_listener(const z_loaned_publisher_t *publisher,
                                                            z_moved_closure_matching_status_t *callback);
#endif
/**
 * Undeclares the listener (takes it). When it returns its callback runs no more and its drop has
 * run, on the calling thread (called from the listener's own callback: right after that returns);
 * it waits for a call under way on another thread. Errors: Z_ENULL for a NULL or null listener;
 * Z_OK also when its publisher or querier ended it already or the session is closed.
 */
z_result_t z_undeclare_matching_listener(z_moved_matching_listener_t *listener);

/* ---- subscribers --------------------------------------------------------------------------------- */

/** Fills options with the defaults: samples from anywhere. */
void z_subscriber_options_default(z_subscriber_options_t *options);

/**
 * Declares a subscriber on keyexpr and returns it owned in *sub (null on failure); keyexpr is
 * borrowed (a copy is kept), options may be NULL (the defaults). Takes callback: its call runs for
 * every matching sample on the thread that received it (@ref api_threads "Threads": a read task
 * of the session in multi-thread builds, the caller of zp_read() in single-thread builds, the
 * publishing thread for samples of this session), with a sample that borrows the received message
 * and is valid until the call returns (z_sample_clone() keeps it); its drop runs once when the
 * subscriber is undeclared or dropped or the session closes, and also when this declaration fails.
 * Blocks while the declaration is sent (BLOCK); matching listeners of this session's publishers
 * may be called within it. Allocates a small record per subscriber, nothing per sample.
 * Errors: Z_EINVAL (NULL sub or callback, NULL call, empty key expression, a locality out of
 * range), ZM_E_KEYEXPR (not a valid key expression), ZM_E_NOMEM, Z_ENULL (NULL session),
 * Z_ESESSION_CLOSED.
 */
z_result_t z_declare_subscriber(const z_loaned_session_t *zs, z_owned_subscriber_t *sub,
                                const z_loaned_keyexpr_t *keyexpr, z_moved_closure_sample_t *callback,
                                const z_subscriber_options_t *options);

/**
 * Like z_declare_subscriber() for a subscriber that lives until the session closes (nothing to
 * undeclare or drop).
 */
z_result_t z_declare_background_subscriber(const z_loaned_session_t *zs, const z_loaned_keyexpr_t *keyexpr,
                                           z_moved_closure_sample_t *callback,
                                           const z_subscriber_options_t *options);

/**
 * Undeclares the subscriber and drops it (takes sub), and sends the undeclaration (BLOCK). When it
 * returns the callback runs no more and its drop has run, on the calling thread: it waits for
 * calls of the callback under way on other threads (called from the callback itself, it does not
 * wait, and the drop runs right after the callback returns). Errors: Z_ENULL for a NULL or null
 * subscriber; Z_OK also when its session is closed.
 */
z_result_t z_undeclare_subscriber(z_moved_subscriber_t *sub);

/** The subscriber's key expression (aliased; NULL for a NULL subscriber). */
const z_loaned_keyexpr_t *z_subscriber_keyexpr(const z_loaned_subscriber_t *subscriber);

#ifdef Z_FEATURE_UNSTABLE_API
/** The global id of the session: its zid, entity 0 (all zero when NULL or closed). */
z_entity_global_id_t z_session_id(const z_loaned_session_t *zs);
/** The global id of the publisher (all zero when NULL, dropped or its session closed). */
z_entity_global_id_t z_publisher_id(const z_loaned_publisher_t *publisher);
/** The global id of the subscriber (all zero when NULL, dropped or its session closed). */
z_entity_global_id_t z_subscriber_id(const z_loaned_subscriber_t *subscriber);
#endif

/* ---- scouting results -------------------------------------------------------------------------------- */

/** The zid of the node that answered a scout (all zero for NULL). */
z_id_t z_hello_zid(const z_loaned_hello_t *hello);
/** What the node that answered a scout is. */
z_whatami_t z_hello_whatami(const z_loaned_hello_t *hello);
/** The locators of the node that answered (aliased). */
const z_loaned_string_array_t *zp_hello_locators(const z_loaned_hello_t *hello);
/** Returns owned in *locators_out a copy of the locators (empty when memory runs out). */
void z_hello_locators(const z_loaned_hello_t *hello, z_owned_string_array_t *locators_out);
/**
 * Makes str_out a view of zenoh-pico's name for a whatami mask: "Router", "Peer", "Client", or
 * the names of several joined by '|' ("Router|Peer"); "Other" and Z_EINVAL for 0 and above 7.
 */
z_result_t z_whatami_to_view_string(z_whatami_t whatami, z_view_string_t *str_out);

#if Z_FEATURE_SCOUTING == 1
/** Fills options with the defaults: a 1000 ms scout for routers and peers. */
void z_scout_options_default(z_scout_options_t *options);
/**
 * Scouts for Zenoh nodes: sends SCOUTs on the group of Z_CONFIG_MULTICAST_LOCATOR_KEY
 * (udp/224.0.0.224:7446 by default; `#iface=NAME` picks the interface, else the system's
 * routes do) and calls callback with each node that answers, once per node, on the calling
 * thread, as its HELLO comes. Blocks for the whole timeout: options->timeout_ms, or without
 * options Z_CONFIG_SCOUTING_TIMEOUT_KEY (1000 ms); options->what, or Z_CONFIG_SCOUTING_WHAT_KEY
 * (routers and peers), says which kinds to look for. SCOUTs go again after 1, 2, 4, then every
 * 8 seconds while it lasts, as Rust's do. Takes config and callback (both dropped on every path;
 * the callback's drop runs once, after the last hello, before z_scout() returns). The loaned
 * hello lives during the call; z_hello_clone() or z_hello_take_from_loaned() keeps it.
 * Z_OK whether or not anything answered. Errors: Z_EINVAL (NULL arguments, a malformed
 * configuration value), ZM_E_LOCATOR (a malformed locator, not a multicast group, an unknown
 * interface), ZM_E_UNSUPPORTED (an IPv6 group, metadata or a config key other than iface),
 * ZM_E_UNREACHABLE (no route leads to the group).
 */
z_result_t z_scout(z_moved_config_t *config, z_moved_closure_hello_t *callback, const z_scout_options_t *options);
#endif

/* ---- driving a session ------------------------------------------------------------------------------- */

#if Z_FEATURE_MULTI_THREAD == 1
/** Fills options with the defaults (no attributes). */
void zp_task_read_options_default(zp_task_read_options_t *options);
/**
 * Starts the session's read tasks when z_open() did not: one per connected router or peer (and one
 * for each that connects later), and the accept task of a listening peer. Callbacks run on them
 * (@ref api_threads "Threads"). Idempotent; options may be NULL, its attributes are ignored.
 * Errors: ZM_E_UNSUPPORTED (the accept task could not be started; a peer whose read task cannot
 * start is dropped instead), Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_start_read_task(z_loaned_session_t *zs, const zp_task_read_options_t *options);
/**
 * Stops giving read tasks to routers and peers that connect from now on. Read tasks already
 * running go on until their router or peer leaves or the session closes (z_close() joins them):
 * this neither stops nor waits for them, and does not block. Errors: Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_stop_read_task(z_loaned_session_t *zs);
/**
 * True from zp_start_read_task() (or z_open() starting the tasks) until zp_stop_read_task();
 * false once the session is closed.
 */
bool zp_read_task_is_running(const z_loaned_session_t *zs);
/** Fills options with the defaults (no attributes). */
void zp_task_lease_options_default(zp_task_lease_options_t *options);
/**
 * Starts the lease task when z_open() did not: it sends the keep-alives that are due, drops
 * routers and peers silent for longer than their lease, ends gets whose timeout passed (their
 * closures' drop runs on it) and reconnects a client that lost its router
 * (Z_FEATURE_AUTO_RECONNECT). Idempotent; options may be NULL, its attributes are ignored.
 * Errors: ZM_E_UNSUPPORTED (the task could not be started), Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_start_lease_task(z_loaned_session_t *zs, const zp_task_lease_options_t *options);
/**
 * Stops and joins the lease task: blocks until its step under way has ended. Must not be called
 * from a callback running on the lease task. Errors: Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_stop_lease_task(z_loaned_session_t *zs);
/** True while the lease task runs (false once the session is closed). */
bool zp_lease_task_is_running(const z_loaned_session_t *zs);
#else
/** Fills options with the defaults. */
void zp_read_options_default(zp_read_options_t *options);
/**
 * Reads and dispatches what arrived on the session's links: waits up to Z_CONFIG_SOCKET_TIMEOUT
 * ms (less when a handshake is due sooner) for a link to have something, then reads what is
 * ready without blocking (at most 8 batches per router or peer), accepts the peers that connected
 * (a listening peer), and ends the gets whose timeout passed. Callbacks run on the calling thread,
 * inside this call. A router or peer whose data cannot be read is dropped, which is not an error.
 * options may be NULL (and is ignored). Errors: Z_ENULL, Z_ESESSION_CLOSED, ZM_E_CLOSED (the
 * listening socket was shut down).
 */
z_result_t zp_read(const z_loaned_session_t *zs, const zp_read_options_t *options);
/** Fills options with the defaults. */
void zp_send_keep_alive_options_default(zp_send_keep_alive_options_t *options);
/**
 * Does what the lease task does in multi-thread builds, once (see zp_start_lease_task()): sends the
 * keep-alives that are due, drops routers and peers silent for longer than their lease, ends gets
 * whose timeout passed and reconnects a lost router. Call it often enough that each peer gets
 * ZM_KEEP_ALIVE_DIVISOR keep-alives per lease (ZM_LEASE_MS: every 2.5 s by default). Callbacks it
 * causes run on the calling thread. A keep-alive that finds no room is skipped. Errors: Z_ENULL,
 * Z_ESESSION_CLOSED.
 */
z_result_t zp_send_keep_alive(const z_loaned_session_t *zs, const zp_send_keep_alive_options_t *options);
/** Fills options with the defaults. */
void zp_send_join_options_default(zp_send_join_options_t *options);
/**
 * Multicast only: zmote has no multicast transport yet, so this does nothing. Errors: Z_ENULL,
 * Z_ESESSION_CLOSED; Z_OK otherwise.
 */
z_result_t zp_send_join(const z_loaned_session_t *zs, const zp_send_join_options_t *options);
#endif
/**
 * One step of a session driven by hand: dispatches what already arrived (without waiting; in
 * multi-thread builds only on links no read task serves) and does what zp_send_keep_alive() does.
 * Callbacks run on the calling thread. A no-op on a NULL or closed session.
 */
void zp_spin_once(const z_loaned_session_t *zs);

#if Z_FEATURE_BATCHING == 1
/**
 * Starts batching: until zp_batch_stop(), messages of this session are gathered per router or
 * peer and sent when a batch is full, at zp_batch_flush() or zp_batch_stop(), or with the lease
 * task's next step. Errors: Z_EGENERIC when batching is already on, Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_batch_start(const z_loaned_session_t *zs);
/**
 * Sends what is batched now, blocking as the messages' congestion control says; batching stays
 * on. Errors: Z_ENULL, Z_ESESSION_CLOSED, and the @ref api_send_errors "send errors".
 */
z_result_t zp_batch_flush(const z_loaned_session_t *zs);
/**
 * Sends what is batched, as zp_batch_flush() does, and turns batching off. Errors: as
 * zp_batch_flush().
 */
z_result_t zp_batch_stop(const z_loaned_session_t *zs);
#endif

#if defined(Z_FEATURE_UNSTABLE_API) && Z_FEATURE_ADMIN_SPACE == 1
/**
 * Declares the admin space, as zenoh-pico 1.9 does: a queryable on the key expressions under
 * "@/<zid>/pico" answering with JSON descriptions of the session, its transport and its peers.
 * Idempotent. Replies are sent from the thread that receives the query. Blocks while the
 * queryable's declaration is sent. Errors: ZM_E_NOMEM, Z_ENULL, Z_ESESSION_CLOSED.
 */
z_result_t zp_start_admin_space(z_loaned_session_t *zs);
/** Undeclares the admin space; Z_OK if it was not started. Errors: Z_ENULL, Z_ESESSION_CLOSED. */
z_result_t zp_stop_admin_space(z_loaned_session_t *zs);
#endif

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_API_PRIMITIVES_H */
