/*
 * Options of the no-heap build the tests run on POSIX (cmake -DZM_NO_HEAP=ON): the same library
 * with every block from static pools, sized for the unit and interop tests, which open several
 * sessions in one process and peers with the default 64 KiB batches.
 */
#ifndef ZMOTE_CONFIG_H
#define ZMOTE_CONFIG_H

#define ZM_NO_HEAP 1
#define ZM_SESSIONS_MAX 8
#define ZM_POOL_CLASSES(X)                                                                     \
    X(32, 512)                                                                                 \
    X(64, 512)                                                                                 \
    X(160, 256)                                                                                \
    X(512, 128)                                                                                \
    X(4096, 64)                                                                                \
    X(ZM_BATCH_UNICAST_SIZE + 2, 48)                                                            \
    X(4u << 20, 8)

/* the largest message the tests send in fragments (1 MiB) fits a block of reassembly's pool, and
 * the largest class holds the message encoded whole for sending and the API's copies of it */
#define ZM_FRAG_MAX_SIZE (4u << 20)
#define ZM_FRAG_POOL_BLOCKS 4

/* the sessions' declarations within these pools, beyond a peer's bounds (which the tests reach) */
#ifndef ZM_SESSION_DECL_BYTES_MAX /* zm_budget_small sets its own */
#define ZM_SESSION_DECL_BYTES_MAX (64u * 1024u)
#endif

#endif /* ZMOTE_CONFIG_H */
