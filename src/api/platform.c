/*
 * The API's platform helpers, on top of zmote/port.h: sleeps, clocks, memory from the library's
 * allocator, random numbers, and threads, mutexes and condition variables for programs. The
 * mutex is built from the port's mutex and condition variable so that it can offer try_lock,
 * which the port interface does not have.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "api/api.h"
#include "zmote/port.h"

/* ---- random ------------------------------------------------------------------------------------- */

uint8_t z_random_u8(void)
{
    uint8_t v;
    zm_port_random(&v, sizeof(v));
    return v;
}

uint16_t z_random_u16(void)
{
    uint16_t v;
    zm_port_random(&v, sizeof(v));
    return v;
}

uint32_t z_random_u32(void)
{
    uint32_t v;
    zm_port_random(&v, sizeof(v));
    return v;
}

uint64_t z_random_u64(void)
{
    uint64_t v;
    zm_port_random(&v, sizeof(v));
    return v;
}

void z_random_fill(void *buf, size_t len)
{
    if (buf != NULL && len > 0) {
        zm_port_random(buf, len);
    }
}

/* ---- memory -------------------------------------------------------------------------------------- */

/* zm_alloc does not remember sizes, and z_realloc needs the old one: each block starts with a
 * header holding it, padded to the strictest alignment a program may store in the block. */
typedef union {
    size_t size;
    max_align_t align;
} mem_header_t;

void *z_malloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(mem_header_t)) {
        return NULL;
    }
    mem_header_t *h = zm_alloc(sizeof(mem_header_t) + size);
    if (h == NULL) {
        return NULL;
    }
    h->size = size;
    return h + 1;
}

void z_free(void *ptr)
{
    if (ptr != NULL) {
        zm_free((mem_header_t *)ptr - 1);
    }
}

void *z_realloc(void *ptr, size_t size)
{
    if (ptr == NULL) {
        return z_malloc(size);
    }
    void *fresh = z_malloc(size);
    if (fresh == NULL) {
        return NULL;
    }
    size_t old = ((mem_header_t *)ptr - 1)->size;
    memcpy(fresh, ptr, old < size ? old : size);
    z_free(ptr);
    return fresh;
}

/* ---- sleeping ------------------------------------------------------------------------------------ */

static void sleep_ms(uint64_t ms)
{
    while (ms > 0) {
        uint32_t step = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
        zm_port_sleep_ms(step);
        ms -= step;
    }
}

z_result_t z_sleep_us(size_t time)
{
    sleep_ms(((uint64_t)time + 999u) / 1000u);
    return Z_OK;
}

z_result_t z_sleep_ms(size_t time)
{
    sleep_ms((uint64_t)time);
    return Z_OK;
}

z_result_t z_sleep_s(size_t time)
{
    sleep_ms((uint64_t)time * 1000u);
    return Z_OK;
}

/* ---- monotonic clock -------------------------------------------------------------------------------- */

z_clock_t z_clock_now(void)
{
    z_clock_t c;
    c.mono_ms = zm_port_clock_ms();
    c.wall_ns = zm_port_time_ns();
    return c;
}

/*
 * Microseconds from a to b. The monotonic clock counts whole milliseconds, so the true time
 * lies within one millisecond of its difference; the wall clock has the resolution but may
 * jump. Its difference is used when it falls in that window, the monotonic one otherwise.
 */
static uint64_t clock_diff_us(const z_clock_t *a, const z_clock_t *b)
{
    if (b->mono_ms < a->mono_ms) {
        return 0;
    }
    uint64_t ms = b->mono_ms - a->mono_ms;
    if (b->wall_ns >= a->wall_ns) {
        uint64_t us = (b->wall_ns - a->wall_ns) / 1000u;
        uint64_t lo = ms > 0 ? (ms - 1u) * 1000u : 0;
        uint64_t hi = (ms + 1u) * 1000u;
        if (us >= lo && us <= hi) {
            return us;
        }
    }
    return ms * 1000u;
}

static unsigned long to_ulong(uint64_t v) { return v > ULONG_MAX ? ULONG_MAX : (unsigned long)v; }

unsigned long zp_clock_elapsed_us_since(z_clock_t *instant, z_clock_t *epoch)
{
    return instant != NULL && epoch != NULL ? to_ulong(clock_diff_us(epoch, instant)) : 0;
}

unsigned long zp_clock_elapsed_ms_since(z_clock_t *instant, z_clock_t *epoch)
{
    return instant != NULL && epoch != NULL ? to_ulong(clock_diff_us(epoch, instant) / 1000u) : 0;
}

unsigned long zp_clock_elapsed_s_since(z_clock_t *instant, z_clock_t *epoch)
{
    return instant != NULL && epoch != NULL ? to_ulong(clock_diff_us(epoch, instant) / 1000000u) : 0;
}

unsigned long z_clock_elapsed_us(z_clock_t *time)
{
    z_clock_t now = z_clock_now();
    return time != NULL ? to_ulong(clock_diff_us(time, &now)) : 0;
}

unsigned long z_clock_elapsed_ms(z_clock_t *time)
{
    z_clock_t now = z_clock_now();
    return time != NULL ? to_ulong(clock_diff_us(time, &now) / 1000u) : 0;
}

unsigned long z_clock_elapsed_s(z_clock_t *time)
{
    z_clock_t now = z_clock_now();
    return time != NULL ? to_ulong(clock_diff_us(time, &now) / 1000000u) : 0;
}

void z_clock_advance_us(z_clock_t *clock, unsigned long duration)
{
    if (clock != NULL) {
        clock->wall_ns += (uint64_t)duration * 1000u;
        clock->mono_ms += (uint64_t)duration / 1000u;
    }
}

void z_clock_advance_ms(z_clock_t *clock, unsigned long duration)
{
    if (clock != NULL) {
        clock->wall_ns += (uint64_t)duration * 1000000u;
        clock->mono_ms += (uint64_t)duration;
    }
}

void z_clock_advance_s(z_clock_t *clock, unsigned long duration)
{
    z_clock_advance_ms(clock, duration * 1000ul);
}

/* ---- wall clock ---------------------------------------------------------------------------------- */

z_time_t z_time_now(void)
{
    z_time_t t = {zm_port_time_ns()};
    return t;
}

static uint64_t time_elapsed_ns(const z_time_t *t)
{
    uint64_t now = zm_port_time_ns();
    return t != NULL && now > t->ns ? now - t->ns : 0;
}

unsigned long z_time_elapsed_us(z_time_t *time) { return to_ulong(time_elapsed_ns(time) / 1000u); }
unsigned long z_time_elapsed_ms(z_time_t *time) { return to_ulong(time_elapsed_ns(time) / 1000000u); }
unsigned long z_time_elapsed_s(z_time_t *time) { return to_ulong(time_elapsed_ns(time) / 1000000000u); }

/* Writes v as exactly width decimal digits. */
static void put_digits(char *out, unsigned long v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + v % 10u);
        v /= 10u;
    }
}

const char *z_time_now_as_str(char *const buf, unsigned long buflen)
{
    if (buf == NULL || buflen == 0) {
        return buf;
    }
    uint64_t secs = zm_port_time_ns() / 1000000000u;
    unsigned long sod = (unsigned long)(secs % 86400u);
    /* Days since 1970-01-01 to a civil date (proleptic Gregorian, 400-year eras from March). */
    int64_t z = (int64_t)(secs / 86400u) + 719468;
    int64_t era = z / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t day = doy - (153 * mp + 2) / 5 + 1;
    int64_t month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    char text[21]; /* YYYY-MM-DDTHH:MM:SSZ */
    put_digits(text, (unsigned long)year, 4);
    text[4] = '-';
    put_digits(text + 5, (unsigned long)month, 2);
    text[7] = '-';
    put_digits(text + 8, (unsigned long)day, 2);
    text[10] = 'T';
    put_digits(text + 11, sod / 3600u, 2);
    text[13] = ':';
    put_digits(text + 14, sod / 60u % 60u, 2);
    text[16] = ':';
    put_digits(text + 17, sod % 60u, 2);
    text[19] = 'Z';
    text[20] = '\0';
    size_t n = buflen - 1 < sizeof(text) - 1 ? (size_t)(buflen - 1) : sizeof(text) - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

/* ---- threads, mutexes, condition variables -------------------------------------------------------------- */

#define SYSTEM_FUNCTIONS(name)                                                          \
    void z_internal_##name##_null(z_owned_##name##_t *obj)                              \
    {                                                                                   \
        if (obj != NULL) {                                                              \
            obj->_val.ptr = NULL;                                                       \
        }                                                                               \
    }                                                                                   \
    ZM_API_DEFINE_TAKE(name)

SYSTEM_FUNCTIONS(task)
SYSTEM_FUNCTIONS(mutex)
SYSTEM_FUNCTIONS(condvar)

#if Z_FEATURE_MULTI_THREAD

struct zm_api_task {
    zm_task_t task;
};

/* A program's mutex: held says whether some thread owns it; the port mutex guards held and is
 * only ever kept for a few instructions, so try_lock never blocks for long. */
struct zm_api_mutex {
    zm_mutex_t guard;
    zm_condvar_t released;
    bool held;
};

struct zm_api_condvar {
    zm_condvar_t cv;
};

z_result_t z_task_init(z_owned_task_t *task, z_task_attr_t *attr, void *(*fun)(void *), void *arg)
{
    ZM_UNUSED(attr);
    if (task == NULL) {
        return Z_EINVAL;
    }
    task->_val.ptr = NULL;
    if (fun == NULL) {
        return Z_EINVAL;
    }
    struct zm_api_task *t = zm_alloc(sizeof(*t));
    if (t == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t r = zm_port_task_start(&t->task, fun, arg);
    if (r != Z_OK) {
        zm_free(t);
        return r;
    }
    task->_val.ptr = t;
    return Z_OK;
}

z_result_t z_task_join(z_moved_task_t *task)
{
    if (task == NULL || task->_this._val.ptr == NULL) {
        return Z_ENULL;
    }
    struct zm_api_task *t = task->_this._val.ptr;
    task->_this._val.ptr = NULL;
    zm_port_task_join(&t->task);
    zm_free(t);
    return Z_OK;
}

z_result_t z_task_detach(z_moved_task_t *task)
{
    if (task == NULL || task->_this._val.ptr == NULL) {
        return Z_ENULL;
    }
    return ZM_E_UNSUPPORTED;
}

z_result_t z_task_drop(z_moved_task_t *task) { return z_task_detach(task); }

z_result_t z_mutex_init(z_owned_mutex_t *m)
{
    if (m == NULL) {
        return Z_EINVAL;
    }
    m->_val.ptr = NULL;
    struct zm_api_mutex *mx = zm_alloc(sizeof(*mx));
    if (mx == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t r = zm_port_mutex_init(&mx->guard);
    if (r == Z_OK) {
        r = zm_port_condvar_init(&mx->released);
        if (r != Z_OK) {
            zm_port_mutex_destroy(&mx->guard);
        }
    }
    if (r != Z_OK) {
        zm_free(mx);
        return r;
    }
    mx->held = false;
    m->_val.ptr = mx;
    return Z_OK;
}

z_result_t z_mutex_drop(z_moved_mutex_t *m)
{
    if (m == NULL || m->_this._val.ptr == NULL) {
        return Z_ENULL;
    }
    struct zm_api_mutex *mx = m->_this._val.ptr;
    m->_this._val.ptr = NULL;
    zm_port_condvar_destroy(&mx->released);
    zm_port_mutex_destroy(&mx->guard);
    zm_free(mx);
    return Z_OK;
}

/* Takes ownership of mx; guard held on entry and on return. */
static void acquire_locked(struct zm_api_mutex *mx)
{
    while (mx->held) {
        ZM_UNUSED(zm_port_condvar_wait_until(&mx->released, &mx->guard, UINT64_MAX));
    }
    mx->held = true;
}

z_result_t z_mutex_lock(z_loaned_mutex_t *m)
{
    if (m == NULL || m->ptr == NULL) {
        return Z_ENULL;
    }
    zm_port_mutex_lock(&m->ptr->guard);
    acquire_locked(m->ptr);
    zm_port_mutex_unlock(&m->ptr->guard);
    return Z_OK;
}

z_result_t z_mutex_try_lock(z_loaned_mutex_t *m)
{
    if (m == NULL || m->ptr == NULL) {
        return Z_ENULL;
    }
    zm_port_mutex_lock(&m->ptr->guard);
    bool got = !m->ptr->held;
    m->ptr->held = true;
    zm_port_mutex_unlock(&m->ptr->guard);
    return got ? Z_OK : ZM_E_BUSY;
}

z_result_t z_mutex_unlock(z_loaned_mutex_t *m)
{
    if (m == NULL || m->ptr == NULL) {
        return Z_ENULL;
    }
    zm_port_mutex_lock(&m->ptr->guard);
    m->ptr->held = false;
    zm_port_condvar_signal(&m->ptr->released);
    zm_port_mutex_unlock(&m->ptr->guard);
    return Z_OK;
}

z_result_t z_condvar_init(z_owned_condvar_t *cv)
{
    if (cv == NULL) {
        return Z_EINVAL;
    }
    cv->_val.ptr = NULL;
    struct zm_api_condvar *c = zm_alloc(sizeof(*c));
    if (c == NULL) {
        return ZM_E_NOMEM;
    }
    z_result_t r = zm_port_condvar_init(&c->cv);
    if (r != Z_OK) {
        zm_free(c);
        return r;
    }
    cv->_val.ptr = c;
    return Z_OK;
}

z_result_t z_condvar_drop(z_moved_condvar_t *cv)
{
    if (cv == NULL || cv->_this._val.ptr == NULL) {
        return Z_ENULL;
    }
    struct zm_api_condvar *c = cv->_this._val.ptr;
    cv->_this._val.ptr = NULL;
    zm_port_condvar_destroy(&c->cv);
    zm_free(c);
    return Z_OK;
}

z_result_t z_condvar_signal(z_loaned_condvar_t *cv)
{
    if (cv == NULL || cv->ptr == NULL) {
        return Z_ENULL;
    }
    zm_port_condvar_signal(&cv->ptr->cv);
    return Z_OK;
}

/*
 * The program holds m (held is set). Waiting releases it and sleeps on cv with the guard, in one
 * step as far as other threads can tell: they need the guard to take m, and the guard is only
 * given up inside the wait. A signaller that holds m therefore cannot slip in between.
 */
static z_result_t wait_until(struct zm_api_condvar *c, struct zm_api_mutex *mx, uint64_t deadline)
{
    zm_port_mutex_lock(&mx->guard);
    mx->held = false;
    zm_port_condvar_signal(&mx->released);
    z_result_t r = zm_port_condvar_wait_until(&c->cv, &mx->guard, deadline);
    acquire_locked(mx);
    zm_port_mutex_unlock(&mx->guard);
    return r == ZM_E_TIMEOUT ? Z_ETIMEDOUT : Z_OK;
}

z_result_t z_condvar_wait(z_loaned_condvar_t *cv, z_loaned_mutex_t *m)
{
    if (cv == NULL || cv->ptr == NULL || m == NULL || m->ptr == NULL) {
        return Z_ENULL;
    }
    return wait_until(cv->ptr, m->ptr, UINT64_MAX);
}

z_result_t z_condvar_wait_until(z_loaned_condvar_t *cv, z_loaned_mutex_t *m, const z_clock_t *abstime)
{
    if (cv == NULL || cv->ptr == NULL || m == NULL || m->ptr == NULL || abstime == NULL) {
        return Z_ENULL;
    }
    return wait_until(cv->ptr, m->ptr, abstime->mono_ms);
}

#else /* single-thread builds: no threads to make, nothing to lock */

z_result_t z_task_init(z_owned_task_t *task, z_task_attr_t *attr, void *(*fun)(void *), void *arg)
{
    ZM_UNUSED(attr);
    ZM_UNUSED(fun);
    ZM_UNUSED(arg);
    z_internal_task_null(task);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_task_join(z_moved_task_t *task)
{
    ZM_UNUSED(task);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_task_detach(z_moved_task_t *task)
{
    ZM_UNUSED(task);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_task_drop(z_moved_task_t *task) { return z_task_detach(task); }

z_result_t z_mutex_init(z_owned_mutex_t *m)
{
    z_internal_mutex_null(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_mutex_drop(z_moved_mutex_t *m)
{
    ZM_UNUSED(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_mutex_lock(z_loaned_mutex_t *m)
{
    ZM_UNUSED(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_mutex_try_lock(z_loaned_mutex_t *m)
{
    ZM_UNUSED(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_mutex_unlock(z_loaned_mutex_t *m)
{
    ZM_UNUSED(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_condvar_init(z_owned_condvar_t *cv)
{
    z_internal_condvar_null(cv);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_condvar_drop(z_moved_condvar_t *cv)
{
    ZM_UNUSED(cv);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_condvar_signal(z_loaned_condvar_t *cv)
{
    ZM_UNUSED(cv);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_condvar_wait(z_loaned_condvar_t *cv, z_loaned_mutex_t *m)
{
    ZM_UNUSED(cv);
    ZM_UNUSED(m);
    return ZM_E_UNSUPPORTED;
}

z_result_t z_condvar_wait_until(z_loaned_condvar_t *cv, z_loaned_mutex_t *m, const z_clock_t *abstime)
{
    ZM_UNUSED(cv);
    ZM_UNUSED(m);
    ZM_UNUSED(abstime);
    return ZM_E_UNSUPPORTED;
}

#endif
