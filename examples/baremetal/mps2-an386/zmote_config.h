/*
 * zmote's options for the mps2-an386 firmware (ZM_CONFIG_DIR points here, opt.h reads it): one
 * thread driven by zp_read, a client over a serial link and no sockets, and sizes for a small
 * MCU. Whatever is not set here keeps opt.h's default.
 */
#ifndef ZMOTE_CONFIG_H
#define ZMOTE_CONFIG_H

#define Z_FEATURE_MULTI_THREAD 0
#define Z_FEATURE_LINK_TCP 0
#define Z_FEATURE_LINK_SERIAL 1
#define Z_FEATURE_SCOUTING 0 /* no UDP on a serial line */
#define Z_FEATURE_UNICAST_PEER 0
#define Z_FEATURE_ADMIN_SPACE 0
#define Z_FEATURE_QUERY 0     /* a publisher and a subscriber: no queries */
#define Z_FEATURE_QUERYABLE 0
#define Z_FEATURE_MATCHING 0
#define Z_FEATURE_LIVELINESS 0
#define ZM_CODEC_FULL 0 /* encode only what a client sends */

/* A serial link carries batches up to its MTU; the receive buffer and the transmit batch are this size. */
#define ZM_BATCH_UNICAST_SIZE 1500
#define ZM_FRAG_MAX_SIZE 4096u
#define ZM_ENDPOINTS_MAX 1
#define ZM_PEERS_MAX 1
#define ZM_PEER_DECLS_MAX 32
#define ZM_PEER_DECL_BYTES_MAX 1024u
#define ZM_KEYEXPR_MAX 256
#define ZM_PUT_CACHE_SLOTS 1
#define ZM_PUT_CACHE_KEY_MAX 48
#define ZM_ACCEPT_PENDING_MAX 1
#define ZM_SOCKET_WAIT_MAX 4
#define ZM_CONFIG_ENTRIES_MAX 8
#define ZM_SERIAL_DEV_MAX 15
#define ZM_SERIAL_RX_CHUNK 64

/*
 * No heap: every block from these pools (block size, count), the session from a static record.
 * A run against the Rust router peaks at 7 of the 32-byte blocks, 4 of the 64-byte ones, the
 * serial line's and both batch buffers (the firmware prints each pool's peak at exit); the
 * counts leave a little room above that. The allocator takes the first class that fits, so the
 * serial line's class sits before the batch buffers'.
 */
#define ZM_NO_HEAP 1
#define ZM_POOL_CLASSES(X)                                                                     \
    X(32, 10)                                                                                  \
    X(64, 6)                                                                                   \
    X(248, 1)                       /* the serial line */                                      \
    X(ZM_BATCH_UNICAST_SIZE + 2, 2) /* the transport's receive buffer and batch */

#endif /* ZMOTE_CONFIG_H */
