/*
 * Sockets on FreeRTOS+TCP's Berkeley API: TCP, and UDP unicast (FreeRTOS+TCP joins no multicast
 * group). Reads block with no timeout and are ended by shutdown through FreeRTOS_SignalSocket
 * (ipconfigSUPPORT_SIGNALS); writes wait for room in steps of at most WRITE_STEP_MS, so that
 * shutdown (a flag) ends them too. Host names resolve through FreeRTOS+TCP's DNS client when it
 * is built (ipconfigUSE_DNS), IPv4 literals always.
 */
#include <string.h>

#include "zmote/port.h"

#if ZM_PORT_SOCKETS

#if ipconfigSUPPORT_SIGNALS != 1
#error "port/freertos needs ipconfigSUPPORT_SIGNALS 1 in FreeRTOSIPConfig.h (shutdown ends a blocked read)"
#endif

#if ipconfigUSE_DNS
#include "FreeRTOS_DNS.h"
#endif

/* Longest a write waits for room before it looks at the shutdown flag again. */
#define WRITE_STEP_MS 50u

static bool is_shut(const zm_socket_t *s) { return atomic_load_explicit(&s->shut, memory_order_relaxed); }

static TickType_t ms_to_ticks(uint64_t ms)
{
    uint64_t t = (ms * configTICK_RATE_HZ + 999u) / 1000u;
    return t < (uint64_t)portMAX_DELAY ? (TickType_t)t : portMAX_DELAY - 1u;
}

static void set_timeout(Socket_t sock, int option, TickType_t ticks)
{
    (void)FreeRTOS_setsockopt(sock, 0, option, &ticks, sizeof(ticks));
}

static z_result_t resolve(struct freertos_sockaddr *a, const char *host, uint16_t port)
{
    uint32_t ip = FreeRTOS_inet_addr(host);
#if ipconfigUSE_DNS
    if (ip == 0u) {
        ip = FreeRTOS_gethostbyname(host);
    }
#endif
    if (ip == 0u && strcmp(host, "0.0.0.0") != 0) {
        return ZM_E_NO_HOST;
    }
    memset(a, 0, sizeof(*a));
    a->sin_len = (uint8_t)sizeof(*a);
    a->sin_family = FREERTOS_AF_INET;
    a->sin_port = FreeRTOS_htons(port);
    a->sin_address.ulIP_IPv4 = ip;
    return Z_OK;
}

#endif /* ZM_PORT_SOCKETS */

#if Z_FEATURE_LINK_TCP

static z_result_t open_tcp(zm_socket_t *s)
{
    s->sock = FreeRTOS_socket(FREERTOS_AF_INET, FREERTOS_SOCK_STREAM, FREERTOS_IPPROTO_TCP);
    if (s->sock == FREERTOS_INVALID_SOCKET || s->sock == NULL) {
        return ZM_E_NOMEM;
    }
    atomic_init(&s->shut, false);
#if ZM_PORT_UDP
    s->udp = false;
    s->connected = false;
#endif
    return Z_OK;
}

z_result_t zm_port_tcp_connect(zm_socket_t *s, const char *host, uint16_t port, uint32_t timeout_ms)
{
    struct freertos_sockaddr a;
    z_result_t r = resolve(&a, host, port);
    if (r != Z_OK || (r = open_tcp(s)) != Z_OK) {
        return r;
    }
    set_timeout(s->sock, FREERTOS_SO_RCVTIMEO, ms_to_ticks(timeout_ms)); /* connect's timeout */
    BaseType_t rc = FreeRTOS_connect(s->sock, &a, sizeof(a));
    if (rc != 0) {
        (void)FreeRTOS_closesocket(s->sock);
        s->sock = NULL;
        return rc == -pdFREERTOS_ERRNO_ETIMEDOUT ? ZM_E_TIMEOUT
               : rc == -pdFREERTOS_ERRNO_ENOTCONN ? ZM_E_REFUSED
                                                  : Z_ENETWORK;
    }
    return Z_OK;
}

z_result_t zm_port_tcp_listen(zm_socket_t *s, const char *host, uint16_t port)
{
    struct freertos_sockaddr a;
    z_result_t r = resolve(&a, host, port);
    if (r != Z_OK || (r = open_tcp(s)) != Z_OK) {
        return r;
    }
    if (FreeRTOS_bind(s->sock, &a, sizeof(a)) != 0 || FreeRTOS_listen(s->sock, 16) != 0) {
        (void)FreeRTOS_closesocket(s->sock);
        s->sock = NULL;
        return ZM_E_ADDR_IN_USE;
    }
    return Z_OK;
}

z_result_t zm_port_tcp_accept(zm_socket_t *listener, zm_socket_t *out, uint32_t timeout_ms)
{
    if (is_shut(listener)) {
        return ZM_E_CLOSED;
    }
    set_timeout(listener->sock, FREERTOS_SO_RCVTIMEO, ms_to_ticks(timeout_ms));
    struct freertos_sockaddr peer;
    socklen_t len = sizeof(peer);
    Socket_t c = FreeRTOS_accept(listener->sock, &peer, &len);
    if (is_shut(listener)) {
        if (c != NULL && c != FREERTOS_INVALID_SOCKET) {
            (void)FreeRTOS_closesocket(c);
        }
        return ZM_E_CLOSED;
    }
    if (c == NULL) {
        return ZM_E_TIMEOUT;
    }
    if (c == FREERTOS_INVALID_SOCKET) {
        return Z_ENETWORK;
    }
    out->sock = c;
    atomic_init(&out->shut, false);
#if ZM_PORT_UDP
    out->udp = false;
    out->connected = false;
#endif
    return Z_OK;
}

#endif /* Z_FEATURE_LINK_TCP */

#if ZM_PORT_SOCKETS

z_result_t zm_port_socket_local_port(const zm_socket_t *s, uint16_t *port)
{
    struct freertos_sockaddr a;
    memset(&a, 0, sizeof(a));
    (void)FreeRTOS_GetLocalAddress(s->sock, &a);
    *port = FreeRTOS_ntohs(a.sin_port);
    return Z_OK;
}

/* The addresses of links are not told on this port (the connectivity API says so). */
size_t zm_port_socket_address(const zm_socket_t *s, bool remote, char *buf, size_t cap)
{
    (void)s;
    (void)remote;
    (void)buf;
    (void)cap;
    return 0;
}

z_result_t zm_port_socket_wait_readable(zm_socket_t *s, uint32_t timeout_ms)
{
    if (is_shut(s)) {
        return Z_OK; /* a read would return ZM_E_CLOSED at once */
    }
    set_timeout(s->sock, FREERTOS_SO_RCVTIMEO, ms_to_ticks(timeout_ms));
#if ZM_PORT_UDP
    if (s->udp) {
        uint8_t *payload;
        int32_t n = FreeRTOS_recvfrom(s->sock, &payload, 0, FREERTOS_ZERO_COPY | FREERTOS_MSG_PEEK, NULL, NULL);
        return n >= 0 || n == -pdFREERTOS_ERRNO_EINTR ? Z_OK : ZM_E_TIMEOUT;
    }
#endif
    uint8_t byte;
    BaseType_t n = FreeRTOS_recv(s->sock, &byte, 1, FREERTOS_MSG_PEEK);
    return n != 0 ? Z_OK : ZM_E_TIMEOUT; /* data, or an error a read would report at once */
}

#if ipconfigSUPPORT_SELECT_FUNCTION
z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms,
                                   uint8_t *ready)
{
    if (n > ZM_SOCKET_WAIT_MAX) {
        return ZM_E_LIMIT;
    }
    SocketSet_t set = FreeRTOS_CreateSocketSet();
    if (set == NULL) {
        return ZM_E_NOMEM;
    }
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        ready[i] = 0;
        if (socks[i] != NULL) {
            if (is_shut(socks[i])) {
                ready[i] = 1;
                any = true;
            }
            FreeRTOS_FD_SET(socks[i]->sock, set, eSELECT_READ | eSELECT_EXCEPT);
        }
    }
    if (!any && FreeRTOS_select(set, ms_to_ticks(timeout_ms)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (socks[i] != NULL && FreeRTOS_FD_ISSET(socks[i]->sock, set) != 0u) {
                ready[i] = 1;
                any = true;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (socks[i] != NULL) {
            FreeRTOS_FD_CLR(socks[i]->sock, set, eSELECT_ALL);
        }
    }
    FreeRTOS_DeleteSocketSet(set);
    return any ? Z_OK : ZM_E_TIMEOUT;
}
#else
z_result_t zm_port_socket_wait_any(zm_socket_t *const *socks, size_t n, uint32_t timeout_ms,
                                   uint8_t *ready)
{
    (void)socks;
    (void)n;
    (void)timeout_ms;
    (void)ready;
    return ZM_E_UNSUPPORTED; /* a listening peer needs ipconfigSUPPORT_SELECT_FUNCTION */
}
#endif

z_result_t zm_port_socket_read(zm_socket_t *s, uint8_t *buf, size_t len, size_t *n)
{
    *n = 0;
    set_timeout(s->sock, FREERTOS_SO_RCVTIMEO, portMAX_DELAY);
    for (;;) {
        if (is_shut(s)) {
            return ZM_E_CLOSED;
        }
        BaseType_t got = FreeRTOS_recv(s->sock, buf, len, 0);
        if (got > 0) {
            *n = (size_t)got;
            return Z_OK;
        }
        if (got < 0 && got != -pdFREERTOS_ERRNO_EINTR && got != -pdFREERTOS_ERRNO_EWOULDBLOCK) {
            return got == -pdFREERTOS_ERRNO_ENOTCONN ? ZM_E_CLOSED : Z_ENETWORK;
        }
        /* 0 (portMAX_DELAY ran out) or a signal: look at the flag and wait again */
    }
}

z_result_t zm_port_socket_write(zm_socket_t *s, const uint8_t *buf, size_t len, uint64_t deadline_ms,
                                size_t *written)
{
    *written = 0;
    for (;;) {
        if (is_shut(s)) {
            return ZM_E_CLOSED;
        }
        uint64_t now = zm_port_clock_ms();
        uint64_t left = deadline_ms > now ? deadline_ms - now : 0u;
        set_timeout(s->sock, FREERTOS_SO_SNDTIMEO, ms_to_ticks(left < WRITE_STEP_MS ? left : WRITE_STEP_MS));
        BaseType_t sent = FreeRTOS_send(s->sock, buf + *written, len - *written, 0);
        if (sent < 0 && sent != -pdFREERTOS_ERRNO_ENOSPC && sent != -pdFREERTOS_ERRNO_EWOULDBLOCK) {
            return sent == -pdFREERTOS_ERRNO_ENOTCONN ? ZM_E_CLOSED : Z_ENETWORK;
        }
        if (sent > 0) {
            *written += (size_t)sent;
        }
        if (*written == len) {
            return Z_OK;
        }
        if (left == 0u) {
            return ZM_E_TIMEOUT;
        }
    }
}

void zm_port_socket_shutdown(zm_socket_t *s)
{
    atomic_store_explicit(&s->shut, true, memory_order_relaxed);
#if ZM_PORT_UDP
    if (!s->udp)
#endif
    {
        (void)FreeRTOS_shutdown(s->sock, FREERTOS_SHUT_RDWR);
    }
    (void)FreeRTOS_SignalSocket(s->sock);
}

void zm_port_socket_close(zm_socket_t *s)
{
    if (s->sock != NULL) {
        (void)FreeRTOS_closesocket(s->sock);
        s->sock = NULL;
    }
}

#endif /* ZM_PORT_SOCKETS */

#if ZM_PORT_UDP

/* A zm_addr_t holds a struct freertos_sockaddr. */
_Static_assert(sizeof(struct freertos_sockaddr) <= ZM_ADDR_SIZE, "a FreeRTOS+TCP address fits a zm_addr_t");

static void addr_set(zm_addr_t *a, const struct freertos_sockaddr *sa)
{
    memset(a, 0, sizeof(*a));
    a->len = (uint8_t)sizeof(*sa);
    memcpy(a->raw, sa, sizeof(*sa));
}

static const struct freertos_sockaddr *addr_get(const zm_addr_t *a)
{
    return (const struct freertos_sockaddr *)(const void *)a->raw;
}

static bool same_peer(const struct freertos_sockaddr *a, const struct freertos_sockaddr *b)
{
    return a->sin_port == b->sin_port && a->sin_address.ulIP_IPv4 == b->sin_address.ulIP_IPv4;
}

z_result_t zm_port_addr_resolve(zm_addr_t *a, const char *host, uint16_t port)
{
    struct freertos_sockaddr sa;
    z_result_t r = resolve(&sa, host, port);
    if (r == Z_OK) {
        addr_set(a, &sa);
    }
    return r;
}

bool zm_port_addr_equal(const zm_addr_t *a, const zm_addr_t *b)
{
    return a->len == b->len && (a->len == 0u || same_peer(addr_get(a), addr_get(b)));
}

uint32_t zm_port_addr_hash(const zm_addr_t *a, uint32_t seed)
{
    uint32_t h = seed ^ 2166136261u;
    if (a->len != 0u) {
        const struct freertos_sockaddr *sa = addr_get(a);
        uint32_t words[2] = {sa->sin_address.ulIP_IPv4, sa->sin_port};
        const uint8_t *p = (const uint8_t *)words;
        for (size_t i = 0; i < sizeof(words); i++) {
            h = (h ^ p[i]) * 16777619u;
        }
    }
    return h;
}

static size_t put_uint(char *buf, size_t at, size_t cap, unsigned v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    if (at + n >= cap) {
        return cap;
    }
    while (n > 0) {
        buf[at++] = digits[--n];
    }
    return at;
}

size_t zm_port_addr_format(const zm_addr_t *a, char *buf, size_t cap)
{
    if (a->len == 0u || cap == 0u) {
        return 0;
    }
    const struct freertos_sockaddr *sa = addr_get(a);
    const uint8_t *ip = (const uint8_t *)&sa->sin_address.ulIP_IPv4; /* network order */
    size_t at = 0;
    for (size_t i = 0; i < 4u && at < cap; i++) {
        at = put_uint(buf, at, cap, ip[i]);
        if (at + 1u < cap) {
            buf[at++] = i < 3u ? '.' : ':';
        } else {
            at = cap;
        }
    }
    at = at < cap ? put_uint(buf, at, cap, FreeRTOS_ntohs(sa->sin_port)) : cap;
    if (at >= cap) {
        return 0;
    }
    buf[at] = '\0';
    return at;
}

z_result_t zm_port_udp_open(zm_socket_t *s, const char *host, uint16_t port, bool connect)
{
    struct freertos_sockaddr a;
    z_result_t r = resolve(&a, host, port);
    if (r != Z_OK) {
        return r;
    }
    s->sock = FreeRTOS_socket(FREERTOS_AF_INET, FREERTOS_SOCK_DGRAM, FREERTOS_IPPROTO_UDP);
    if (s->sock == FREERTOS_INVALID_SOCKET || s->sock == NULL) {
        return ZM_E_NOMEM;
    }
    atomic_init(&s->shut, false);
    s->udp = true;
    s->connected = connect;
    s->peer = a;
    struct freertos_sockaddr local;
    memset(&local, 0, sizeof(local));
    local.sin_len = (uint8_t)sizeof(local);
    local.sin_family = FREERTOS_AF_INET;
    if (FreeRTOS_bind(s->sock, connect ? &local : &a, sizeof(a)) != 0) {
        (void)FreeRTOS_closesocket(s->sock);
        s->sock = NULL;
        return ZM_E_ADDR_IN_USE;
    }
    return Z_OK;
}

z_result_t zm_port_udp_local_addr(const zm_socket_t *s, zm_addr_t *a)
{
    struct freertos_sockaddr sa;
    memset(&sa, 0, sizeof(sa));
    (void)FreeRTOS_GetLocalAddress(s->sock, &sa);
    sa.sin_len = (uint8_t)sizeof(sa);
    sa.sin_family = FREERTOS_AF_INET;
    addr_set(a, &sa);
    return Z_OK;
}

z_result_t zm_port_udp_send(zm_socket_t *s, const uint8_t *buf, size_t len, const zm_addr_t *to,
                            uint64_t deadline_ms)
{
    if (is_shut(s)) {
        return ZM_E_CLOSED;
    }
    const struct freertos_sockaddr *dest = to != NULL ? addr_get(to) : &s->peer;
    uint64_t now = zm_port_clock_ms();
    set_timeout(s->sock, FREERTOS_SO_SNDTIMEO, ms_to_ticks(deadline_ms > now ? deadline_ms - now : 0u));
    int32_t sent = FreeRTOS_sendto(s->sock, buf, len, 0, dest, sizeof(*dest));
    if (sent == (int32_t)len) {
        return Z_OK;
    }
    return len > ipconfigNETWORK_MTU ? ZM_E_TOO_LARGE : ZM_E_TIMEOUT; /* no network buffer came in time */
}

/* Takes the next datagram (waiting with the socket's receive timeout) without copying it: *payload
 * and its length, or a negative FreeRTOS+TCP error. Datagrams from others than a connected
 * socket's peer are dropped. With peek it stays queued. */
static int32_t take(zm_socket_t *s, uint8_t **payload, struct freertos_sockaddr *from, bool peek)
{
    for (;;) {
        if (is_shut(s)) {
            return -pdFREERTOS_ERRNO_EINTR;
        }
        socklen_t len = sizeof(*from);
        int32_t n = FreeRTOS_recvfrom(s->sock, payload, 0, FREERTOS_ZERO_COPY | (peek ? FREERTOS_MSG_PEEK : 0),
                                      from, &len);
        if (n < 0 || !s->connected || same_peer(from, &s->peer)) {
            return n;
        }
        if (peek) { /* someone else's: take it off the queue, then look again */
            n = FreeRTOS_recvfrom(s->sock, payload, 0, FREERTOS_ZERO_COPY, from, &len);
            if (n < 0) {
                return n;
            }
        }
        FreeRTOS_ReleaseUDPPayloadBuffer(*payload);
    }
}

z_result_t zm_port_udp_recv(zm_socket_t *s, uint8_t *buf, size_t cap, size_t *n, zm_addr_t *from)
{
    *n = 0;
    set_timeout(s->sock, FREERTOS_SO_RCVTIMEO, portMAX_DELAY);
    for (;;) {
        uint8_t *payload;
        struct freertos_sockaddr sa;
        int32_t got = take(s, &payload, &sa, false);
        if (got == -pdFREERTOS_ERRNO_EINTR || is_shut(s)) {
            if (got >= 0) {
                FreeRTOS_ReleaseUDPPayloadBuffer(payload);
            }
            return ZM_E_CLOSED;
        }
        if (got < 0) {
            continue; /* portMAX_DELAY ran out */
        }
        z_result_t r = Z_OK;
        if ((size_t)got > cap) {
            r = ZM_E_FIELD; /* dropped whole */
        } else {
            memcpy(buf, payload, (size_t)got);
            *n = (size_t)got;
            if (from != NULL) {
                addr_set(from, &sa);
            }
        }
        FreeRTOS_ReleaseUDPPayloadBuffer(payload);
        return r;
    }
}

#if Z_FEATURE_LINK_UDP_UNICAST
z_result_t zm_port_udp_peek(zm_socket_t *s, size_t *n, zm_addr_t *from)
{
    set_timeout(s->sock, FREERTOS_SO_RCVTIMEO, 0);
    uint8_t *payload;
    struct freertos_sockaddr sa;
    int32_t got = take(s, &payload, &sa, true);
    if (is_shut(s)) {
        return ZM_E_CLOSED;
    }
    if (got < 0) {
        return ZM_E_AGAIN; /* FreeRTOS+TCP reports no refused datagram */
    }
    *n = (size_t)got;
    addr_set(from, &sa);
    return Z_OK;
}
#endif

#endif /* ZM_PORT_UDP */
