/*
 * zmote/port.h on FreeRTOS: the kernel's heap, tick, mutexes and tasks. Condition variables are
 * a list of waiting tasks, each woken by a notification on the last index of its notification
 * array (the kernel's own stream buffers use index 0), so they allocate nothing and wake exactly
 * the waiters they mean to. Randomness is FreeRTOS+TCP's random-number hook stirred through the
 * same generator as port/baremetal. Sockets are in sockets.c; log lines and failed invariants
 * (port/baremetal/console.c) and serial links (port/baremetal/serial.c) are the bare-metal port's.
 */
#include <stdint.h>

#include "../baremetal/zmote_board.h"
#include "../baremetal/zmote_rng.h"
#include "zmote/port.h"
#include "zmote_freertos.h"


/* ---- memory ---------------------------------------------------------------------------------- */

void *zm_port_malloc(size_t size) { return pvPortMalloc(size); }
void zm_port_free(void *ptr) { vPortFree(ptr); }

/* ---- clocks ---------------------------------------------------------------------------------- */

/* The tick's last value and its wraps, widened under a critical section since any task reads it. */
static TickType_t tick_last;
static uint32_t tick_wraps;
static uint64_t wall_offset_ns;

uint64_t zm_port_clock_ms(void)
{
    taskENTER_CRITICAL();
    TickType_t now = xTaskGetTickCount();
    if (now < tick_last) {
        tick_wraps++;
    }
    tick_last = now;
    uint64_t ticks = (uint64_t)tick_wraps << (8u * sizeof(TickType_t)) | now;
    taskEXIT_CRITICAL();
    return ticks * 1000u / configTICK_RATE_HZ;
}

uint64_t zm_port_time_ns(void) { return zm_port_clock_ms() * 1000000u + wall_offset_ns; }

void zm_freertos_set_time_ns(uint64_t now_ns)
{
    uint64_t mono_ns = zm_port_clock_ms() * 1000000u;
    wall_offset_ns = now_ns > mono_ns ? now_ns - mono_ns : 0u;
}

/* Ticks for ms milliseconds, rounded up and one more: a delay of n ticks may end n-1 ticks
 * later, the current tick being partly gone. Saturates below portMAX_DELAY. */
static TickType_t ticks_for(uint64_t ms)
{
    uint64_t t = (ms * configTICK_RATE_HZ + 999u) / 1000u + 1u;
    return t < (uint64_t)portMAX_DELAY ? (TickType_t)t : portMAX_DELAY - 1u;
}

void zm_port_sleep_ms(uint32_t ms) { vTaskDelay(ticks_for(ms)); }

/* ---- randomness ------------------------------------------------------------------------------ */

/* port/baremetal's generator (zmote_rng.h), fed with FreeRTOS+TCP's random numbers and the tick
 * at each call. The state is shared by the tasks, under a critical section. */
static uint64_t rng_state;

void zm_port_random(void *buf, size_t len)
{
    uint32_t fresh[2] = {0u, 0u};
    (void)xApplicationGetRandomNumber(&fresh[0]);
    (void)xApplicationGetRandomNumber(&fresh[1]);
    taskENTER_CRITICAL();
    zm_rng_fill(&rng_state, ((uint64_t)fresh[1] << 32 | fresh[0]) ^ xTaskGetTickCount(), buf, len);
    taskEXIT_CRITICAL();
}

/* ---- threads --------------------------------------------------------------------------------- */

zm_thread_id_t zm_port_thread_self(void) { return (zm_thread_id_t)xTaskGetCurrentTaskHandle(); }

#if Z_FEATURE_MULTI_THREAD

z_result_t zm_port_mutex_init(zm_mutex_t *m)
{
#if configSUPPORT_STATIC_ALLOCATION
    m->handle = xSemaphoreCreateMutexStatic(&m->mem);
#else
    m->handle = xSemaphoreCreateMutex();
#endif
    return m->handle != NULL ? Z_OK : ZM_E_NOMEM;
}

void zm_port_mutex_destroy(zm_mutex_t *m)
{
    vSemaphoreDelete(m->handle);
    m->handle = NULL;
}

void zm_port_mutex_lock(zm_mutex_t *m) { (void)xSemaphoreTake(m->handle, portMAX_DELAY); }
bool zm_port_mutex_trylock(zm_mutex_t *m) { return xSemaphoreTake(m->handle, 0) == pdTRUE; }
void zm_port_mutex_unlock(zm_mutex_t *m) { (void)xSemaphoreGive(m->handle); }

/* The notification index the condition variables use: the last, so that the kernel's stream
 * buffers (index 0) and an application that keeps to the first ones are left alone. */
#define CV_NOTIFY_INDEX (configTASK_NOTIFICATION_ARRAY_ENTRIES - 1)

struct zm_freertos_waiter {
    struct zm_freertos_waiter *next;
    TaskHandle_t task;
    bool woken; /* set by signal or broadcast as they take the waiter off the list */
};

z_result_t zm_port_condvar_init(zm_condvar_t *c)
{
    c->head = NULL;
    c->tail = NULL;
    return Z_OK;
}

void zm_port_condvar_destroy(zm_condvar_t *c) { (void)c; }

/* Takes the first waiter off the list and wakes it; the waiters' mutex is held. */
static bool wake_first(zm_condvar_t *c)
{
    struct zm_freertos_waiter *w = c->head;
    if (w == NULL) {
        return false;
    }
    c->head = w->next;
    if (c->head == NULL) {
        c->tail = NULL;
    }
    w->woken = true;
    (void)xTaskNotifyGiveIndexed(w->task, CV_NOTIFY_INDEX);
    return true;
}

void zm_port_condvar_signal(zm_condvar_t *c) { (void)wake_first(c); }

void zm_port_condvar_broadcast(zm_condvar_t *c)
{
    while (wake_first(c)) {
    }
}

z_result_t zm_port_condvar_wait_until(zm_condvar_t *c, zm_mutex_t *m, uint64_t deadline_ms)
{
    struct zm_freertos_waiter self = {.next = NULL, .task = xTaskGetCurrentTaskHandle(), .woken = false};
    uint64_t now = zm_port_clock_ms();
    if (deadline_ms <= now) {
        return ZM_E_TIMEOUT;
    }
    if (c->tail != NULL) {
        c->tail->next = &self;
    } else {
        c->head = &self;
    }
    c->tail = &self;
    zm_port_mutex_unlock(m);
    /* A notification left by a wake-up that came after an earlier wait had timed out ends this
     * wait early: a spurious wake-up, which callers allow. */
    (void)ulTaskNotifyTakeIndexed(CV_NOTIFY_INDEX, pdTRUE, ticks_for(deadline_ms - now));
    zm_port_mutex_lock(m);
    if (self.woken) {
        return Z_OK;
    }
    /* Still listed: take the node off before its frame goes. */
    struct zm_freertos_waiter **pp = &c->head;
    struct zm_freertos_waiter *prev = NULL;
    while (*pp != &self) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    *pp = self.next;
    if (c->tail == &self) {
        c->tail = prev;
    }
    return zm_port_clock_ms() >= deadline_ms ? ZM_E_TIMEOUT : Z_OK;
}

/* The task's body: runs fn, tells join, and deletes itself without touching *t again, since
 * join may release it as soon as the semaphore is given. */
static void task_main(void *arg)
{
    zm_task_t *t = arg;
    (void)t->fn(t->arg);
    (void)xSemaphoreGive(t->done);
    vTaskDelete(NULL);
}

z_result_t zm_port_task_start(zm_task_t *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
#if configSUPPORT_STATIC_ALLOCATION
    t->done = xSemaphoreCreateBinaryStatic(&t->done_mem);
#else
    t->done = xSemaphoreCreateBinary();
#endif
    if (t->done == NULL) {
        return ZM_E_NOMEM;
    }
    if (xTaskCreate(task_main, "zmote", (configSTACK_DEPTH_TYPE)(ZM_FREERTOS_TASK_STACK / sizeof(StackType_t)),
                    t, ZM_FREERTOS_TASK_PRIORITY, &t->handle) != pdPASS) {
        vSemaphoreDelete(t->done);
        return ZM_E_NOMEM;
    }
    return Z_OK;
}

/* A task nobody joins: its function and argument, in a block of its own that it frees. */
typedef struct {
    void *(*fn)(void *);
    void *arg;
} detached_t;

static void detached_main(void *arg)
{
    detached_t d = *(detached_t *)arg;
    vPortFree(arg);
    (void)d.fn(d.arg);
    vTaskDelete(NULL);
}

z_result_t zm_port_task_start_detached(void *(*fn)(void *), void *arg)
{
    detached_t *d = pvPortMalloc(sizeof(*d));
    if (d == NULL) {
        return ZM_E_NOMEM;
    }
    d->fn = fn;
    d->arg = arg;
    if (xTaskCreate(detached_main, "zmote", (configSTACK_DEPTH_TYPE)(ZM_FREERTOS_TASK_STACK / sizeof(StackType_t)), d,
                    ZM_FREERTOS_TASK_PRIORITY, NULL) != pdPASS) {
        vPortFree(d);
        return ZM_E_NOMEM;
    }
    return Z_OK;
}

void zm_port_task_join(zm_task_t *t)
{
    (void)xSemaphoreTake(t->done, portMAX_DELAY);
    vSemaphoreDelete(t->done);
    t->done = NULL;
    t->handle = NULL;
}

#endif /* Z_FEATURE_MULTI_THREAD */
