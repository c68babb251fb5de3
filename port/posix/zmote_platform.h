/*
 * The POSIX port's opaque types for zmote/port.h: thin wrappers over pthread objects and a file
 * descriptor. Each is a struct, not a typedef of the native type, so that upper layers cannot
 * reach past port.h and call pthread or socket functions on them by accident.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t m;
} zm_mutex_t;

typedef struct {
    pthread_cond_t c;
} zm_condvar_t;

typedef struct {
    pthread_t t;
} zm_task_t;

/** A TCP socket; fd is -1 once closed. */
typedef struct {
    int fd;
} zm_socket_t;

#endif /* ZMOTE_PLATFORM_H */
