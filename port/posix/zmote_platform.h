/*
 * The POSIX port's opaque types for zmote/port.h: thin wrappers over pthread objects (or futex
 * words) and a file descriptor. Each is a struct, not a typedef of the native type, so that upper
 * layers cannot reach past port.h and call pthread or socket functions on them by accident.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

#include <pthread.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * On Linux, a mutex is one word and a futex (port.c): taking a free one and giving back one that
 * no thread waits for are an atomic instruction each, a third of a pthread mutex's instructions,
 * which every put and every received sample pays. Under ThreadSanitizer the pthread objects
 * stay, so that it checks the order in which locks are taken.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZM_PORT_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ZM_PORT_TSAN 1
#endif
#if defined(__linux__) && !defined(ZM_PORT_TSAN)
#define ZM_PORT_FUTEX 1
#else
#define ZM_PORT_FUTEX 0
#endif

#if ZM_PORT_FUTEX
/** state: 0 free, 1 held, 2 held with threads asleep on it; owner: the holder (checked by
 * builds with asserts), 0 when free. */
typedef struct {
    unsigned state;
    uintptr_t owner;
} zm_mutex_t;

/** seq: moved by every signal, so that a waiter that read it before unlocking cannot sleep
 * through a signal given after; waiters: the threads in a wait, which alone need a system call
 * to be woken. */
typedef struct {
    unsigned seq;
    unsigned waiters;
} zm_condvar_t;
#else
typedef struct {
    pthread_mutex_t m;
} zm_mutex_t;

typedef struct {
    pthread_cond_t c;
} zm_condvar_t;
#endif

typedef struct {
    pthread_t t;
} zm_task_t;

/**
 * A TCP socket; fd is -1 once closed. unpolled: bytes written since a poll last found room, so
 * that a write may skip its poll while they stay few (port.c, zm_port_socket_write); writers
 * only, one at a time. writer: the thread of the last write (atomic), which tells the reader
 * that it answered since its last read; poll_rest: reads that sleep without a poll first,
 * poll_misses: polls in a row that found nothing (port.c, zm_port_socket_read; reader only).
 * Tagged: port.h names `struct zm_socket` in builds without TCP.
 */
typedef struct zm_socket {
    int fd;
    unsigned unpolled;
    uintptr_t writer;
    unsigned poll_rest;
    unsigned poll_misses;
} zm_socket_t;

/**
 * A serial line: the tty's descriptor (inside a zm_socket_t, which is what a wait over many
 * links polls), and a pipe whose write end shutdown writes to, so that a reader or writer
 * waiting in poll() wakes up. Every fd is -1 once closed.
 */
typedef struct {
    zm_socket_t tty;
    int wake_rd;
    int wake_wr;
} zm_serial_t;

#ifdef __cplusplus
}
#endif

#endif /* ZMOTE_PLATFORM_H */
