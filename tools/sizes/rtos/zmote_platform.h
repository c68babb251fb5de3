/*
 * A stand-in RTOS port for the size table's threaded app: the port.h types of a port with
 * threads (mutex, condition variable, task) and a serial line, as small as an RTOS's handles.
 * port/baremetal is single-thread; this lets a threaded build link for Cortex-M4 so the table
 * can count the library's share. Nothing here runs.
 */
#ifndef ZMOTE_PLATFORM_H
#define ZMOTE_PLATFORM_H

typedef struct {
    void *handle;
} zm_mutex_t;

typedef struct {
    void *handle;
} zm_condvar_t;

typedef struct {
    void *handle;
} zm_task_t;

typedef struct {
    int uart;
} zm_serial_t;

#endif /* ZMOTE_PLATFORM_H */
