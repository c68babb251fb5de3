/*
 * The FreeRTOS port's opaque types for zmote/port.h: kernel mutexes and tasks, condition variables
 * made of a list of waiting tasks woken by task notifications, FreeRTOS+TCP sockets (TCP, and UDP
 * unicast: FreeRTOS+TCP has no multicast membership) and the
 * board's UARTs (port/baremetal/zmote_board.h) for serial links. With configSUPPORT_STATIC_ALLOCATION
 * the kernel objects live inside these structs; otherwise they come from the kernel's heap.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"
#include "zmote/opt.h"

#if ZM_PORT_SOCKETS
#include "FreeRTOS_IP.h"
#include "FreeRTOS_Sockets.h"
#endif

#if configUSE_MUTEXES != 1
#error "port/freertos needs configUSE_MUTEXES 1 in FreeRTOSConfig.h"
#endif
#if Z_FEATURE_MULTI_THREAD && (configUSE_TASK_NOTIFICATIONS != 1 || configTASK_NOTIFICATION_ARRAY_ENTRIES < 2)
#error "port/freertos needs configUSE_TASK_NOTIFICATIONS 1 and configTASK_NOTIFICATION_ARRAY_ENTRIES >= 2 (condition variables use the last)"
#endif
#if Z_FEATURE_MULTI_THREAD && (INCLUDE_vTaskDelete != 1 || INCLUDE_xTaskGetCurrentTaskHandle != 1)
#error "port/freertos needs INCLUDE_vTaskDelete 1 and INCLUDE_xTaskGetCurrentTaskHandle 1 in FreeRTOSConfig.h"
#endif
#if Z_FEATURE_LINK_UDP_MULTICAST || Z_FEATURE_SCOUTING
#error "FreeRTOS+TCP joins no multicast group: build port/freertos with Z_FEATURE_LINK_UDP_MULTICAST=0 and Z_FEATURE_SCOUTING=0"
#endif

typedef struct {
    SemaphoreHandle_t handle;
#if configSUPPORT_STATIC_ALLOCATION
    StaticSemaphore_t mem;
#endif
} zm_mutex_t;

/** A task waiting on a condition variable: a node on its own stack, in the list while it waits. */
struct zm_freertos_waiter;

/** Waiters in arrival order; read and changed only with the waiters' mutex held. */
typedef struct {
    struct zm_freertos_waiter *head;
    struct zm_freertos_waiter *tail;
} zm_condvar_t;

/** A task and the semaphore its end gives, which join takes. */
typedef struct {
    TaskHandle_t handle;
    SemaphoreHandle_t done;
    void *(*fn)(void *);
    void *arg;
#if configSUPPORT_STATIC_ALLOCATION
    StaticSemaphore_t done_mem;
#endif
} zm_task_t;

#if ZM_PORT_SOCKETS
/** A FreeRTOS+TCP socket; shut is raised by zm_port_socket_shutdown and read by every wait. A UDP
 *  socket opened connected keeps its peer, since FreeRTOS+TCP connects TCP sockets only. */
typedef struct zm_socket {
    Socket_t sock;
    atomic_bool shut;
#if ZM_PORT_UDP
    bool udp;
    bool connected;
    struct freertos_sockaddr peer;
#endif
} zm_socket_t;
#endif

struct zm_board_uart;

/** A board UART used as a serial link; uart is NULL once closed. */
typedef struct {
    const struct zm_board_uart *uart;
    atomic_bool shut;
} zm_serial_t;

#endif /* ZMOTE_PLATFORM_H */
