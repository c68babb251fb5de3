/*
 * zmote's options for the FreeRTOS firmware (ZM_CONFIG_DIR points here; scripts/freertos.sh also
 * compiles port/freertos against the stand-in headers with them): a threaded client over TCP
 * (FreeRTOS+TCP; UDP unicast too) or a serial line, with a publisher, a subscriber, a get, a queryable and a
 * liveliness token, its read and lease tasks on FreeRTOS tasks, blocks from the kernel's heap.
 */
#ifndef ZMOTE_CONFIG_H
#define ZMOTE_CONFIG_H

#define Z_FEATURE_MULTI_THREAD 1
#define Z_FEATURE_LINK_TCP 1
#define Z_FEATURE_LINK_SERIAL 1
#define Z_FEATURE_LINK_UDP_UNICAST 1
#define Z_FEATURE_SCOUTING 0 /* FreeRTOS+TCP joins no multicast group */
#define Z_FEATURE_LINK_UDP_MULTICAST 0
#define Z_FEATURE_UNICAST_PEER 0
#define Z_FEATURE_ADMIN_SPACE 0
#define Z_FEATURE_MATCHING 0
#define Z_FEATURE_AUTO_RECONNECT 1
#define ZM_CODEC_FULL 0

#define ZM_BATCH_UNICAST_SIZE 2048
#define ZM_FRAG_MAX_SIZE 4096u
#define ZM_ENDPOINTS_MAX 1
#define ZM_PEERS_MAX 1
#define ZM_PEER_DECLS_MAX 32
#define ZM_PEER_DECL_BYTES_MAX 1024u
#define ZM_KEYEXPR_MAX 256
#define ZM_ACCEPT_PENDING_MAX 1
#define ZM_SOCKET_WAIT_MAX 8
#define ZM_CONFIG_ENTRIES_MAX 8
#define ZM_SERIAL_DEV_MAX 15
#define ZM_SERIAL_RX_CHUNK 64

#endif /* ZMOTE_CONFIG_H */
