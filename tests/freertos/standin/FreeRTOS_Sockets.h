/* Stand-in FreeRTOS+TCP: see FreeRTOS.h. */
#ifndef STANDIN_FREERTOS_SOCKETS_H
#define STANDIN_FREERTOS_SOCKETS_H

#include "FreeRTOS.h"

typedef struct xSOCKET *Socket_t;
typedef struct xSOCKET const *ConstSocket_t;
typedef struct xSOCKET_SET *SocketSet_t;
typedef struct xSOCKET_SET const *ConstSocketSet_t;
typedef uint32_t socklen_t;
typedef uint32_t EventBits_t;

typedef union {
    uint32_t ulIP_IPv4;
    uint8_t xIP_IPv6[16];
} IP_Address_t;

struct freertos_sockaddr {
    uint8_t sin_len;
    uint8_t sin_family;
    uint16_t sin_port;
    uint32_t sin_flowinfo;
    IP_Address_t sin_address;
};

#define FREERTOS_INVALID_SOCKET ((Socket_t)~0U)
#define FREERTOS_AF_INET 2
#define FREERTOS_SOCK_DGRAM 2
#define FREERTOS_SOCK_STREAM 1
#define FREERTOS_IPPROTO_UDP 17
#define FREERTOS_IPPROTO_TCP 6
#define FREERTOS_ZERO_COPY 1
#define FREERTOS_MSG_PEEK 4
#define FREERTOS_SO_RCVTIMEO 0
#define FREERTOS_SO_SNDTIMEO 1
#define FREERTOS_SHUT_RDWR 2

typedef enum { eSELECT_READ = 1, eSELECT_WRITE = 2, eSELECT_EXCEPT = 4, eSELECT_INTR = 8, eSELECT_ALL = 15 } eSelectEvent_t;

Socket_t FreeRTOS_socket(BaseType_t domain, BaseType_t type, BaseType_t protocol);
BaseType_t FreeRTOS_bind(Socket_t s, struct freertos_sockaddr const *a, socklen_t len);
BaseType_t FreeRTOS_setsockopt(Socket_t s, int32_t level, int32_t name, const void *value, size_t len);
BaseType_t FreeRTOS_closesocket(Socket_t s);
BaseType_t FreeRTOS_SignalSocket(Socket_t s);
size_t FreeRTOS_GetLocalAddress(ConstSocket_t s, struct freertos_sockaddr *a);
BaseType_t FreeRTOS_connect(Socket_t s, const struct freertos_sockaddr *a, socklen_t len);
BaseType_t FreeRTOS_listen(Socket_t s, BaseType_t backlog);
Socket_t FreeRTOS_accept(Socket_t s, struct freertos_sockaddr *a, socklen_t *len);
BaseType_t FreeRTOS_send(Socket_t s, const void *buf, size_t len, BaseType_t flags);
BaseType_t FreeRTOS_recv(Socket_t s, void *buf, size_t len, BaseType_t flags);
BaseType_t FreeRTOS_shutdown(Socket_t s, BaseType_t how);
int32_t FreeRTOS_sendto(Socket_t s, const void *buf, size_t len, BaseType_t flags, const struct freertos_sockaddr *to,
                        socklen_t tolen);
int32_t FreeRTOS_recvfrom(ConstSocket_t s, void *buf, size_t len, BaseType_t flags, struct freertos_sockaddr *from,
                          socklen_t *fromlen);
uint32_t FreeRTOS_inet_addr(const char *text);
SocketSet_t FreeRTOS_CreateSocketSet(void);
void FreeRTOS_DeleteSocketSet(SocketSet_t set);
BaseType_t FreeRTOS_select(SocketSet_t set, TickType_t ticks);
void FreeRTOS_FD_SET(Socket_t s, SocketSet_t set, EventBits_t bits);
void FreeRTOS_FD_CLR(Socket_t s, SocketSet_t set, EventBits_t bits);
EventBits_t FreeRTOS_FD_ISSET(ConstSocket_t s, ConstSocketSet_t set);

#endif
