/*
 * The opaque types of a stand-in port, for the stack check (scripts/check-stack.sh) only: it
 * lets the whole library compile for a microcontroller without an RTOS or a network stack. The
 * types are as small as a bare-metal port's would be; nothing here ever runs.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

typedef struct {
    unsigned char unused;
} zm_mutex_t;

typedef struct {
    unsigned char unused;
} zm_condvar_t;

typedef struct {
    unsigned char unused;
} zm_task_t;

/** A socket handle, as a network stack's own would be. */
typedef struct {
    int fd;
} zm_socket_t;

#endif /* ZMOTE_PLATFORM_H */
