/*
 * The port's mutex and condition variable under contention: exclusion (no increment lost among
 * threads that fight for one mutex), a hand-off that wakes its waiter every time, a broadcast
 * that wakes every waiter, a timed wait that returns at its deadline and not before, and a
 * trylock that fails while another thread holds the mutex.
 */
#include "check.h"
#include "zmote/port.h"

#if Z_FEATURE_MULTI_THREAD
#define THREADS 4
#define ROUNDS 200000
#define HANDOFFS 20000
#define WAIT_MS 10000u /* a bound on every wait: a lost wake-up fails instead of hanging */

typedef struct {
    zm_mutex_t m;
    zm_condvar_t c;
    unsigned long count;  /* the increments, under m */
    unsigned turn;        /* the hand-off's ball: whose turn, under m */
    unsigned started;     /* waiters of the broadcast asleep, under m */
    bool go;              /* the broadcast's condition, under m */
    unsigned woken;       /* waiters that saw it, under m */
    bool timed_out;       /* a hand-off wait that hit its bound */
    bool tried;           /* what a trylock of another thread got while the main thread held m */
} shared_t;

static void *increment(void *arg)
{
    shared_t *s = arg;
    for (int i = 0; i < ROUNDS; i++) {
        zm_port_mutex_lock(&s->m);
        s->count++;
        zm_port_mutex_unlock(&s->m);
    }
    return NULL;
}

static void test_exclusion(shared_t *s)
{
    zm_task_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ_INT(zm_port_task_start(&t[i], increment, s), Z_OK);
    }
    for (int i = 0; i < THREADS; i++) {
        zm_port_task_join(&t[i]);
    }
    CHECK_EQ_INT(s->count, (long long)THREADS * ROUNDS);
}

/* Waits until it is side's turn, then passes the ball to the other side. */
static void play(shared_t *s, unsigned side)
{
    for (int i = 0; i < HANDOFFS; i++) {
        zm_port_mutex_lock(&s->m);
        uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
        while (s->turn != side && !s->timed_out) {
            if (zm_port_condvar_wait_until(&s->c, &s->m, deadline) == ZM_E_TIMEOUT) {
                s->timed_out = true;
            }
        }
        s->turn = 1u - side;
        zm_port_condvar_signal(&s->c);
        zm_port_mutex_unlock(&s->m);
    }
}

static void *play_one(void *arg)
{
    play(arg, 1u);
    return NULL;
}

static void test_handoff(shared_t *s)
{
    zm_task_t t;
    s->turn = 0;
    CHECK_EQ_INT(zm_port_task_start(&t, play_one, s), Z_OK);
    play(s, 0u);
    zm_port_task_join(&t);
    CHECK(!s->timed_out);
    CHECK_EQ_INT(s->turn, 0);
}

static void *await_go(void *arg)
{
    shared_t *s = arg;
    zm_port_mutex_lock(&s->m);
    s->started++;
    zm_port_condvar_broadcast(&s->c); /* the main thread waits for every waiter on c too */
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    while (!s->go && zm_port_condvar_wait_until(&s->c, &s->m, deadline) != ZM_E_TIMEOUT) {
    }
    s->woken += s->go;
    zm_port_mutex_unlock(&s->m);
    return NULL;
}

static void test_broadcast(shared_t *s)
{
    zm_task_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        CHECK_EQ_INT(zm_port_task_start(&t[i], await_go, s), Z_OK);
    }
    zm_port_mutex_lock(&s->m);
    uint64_t deadline = zm_port_clock_ms() + WAIT_MS;
    while (s->started < THREADS && zm_port_condvar_wait_until(&s->c, &s->m, deadline) != ZM_E_TIMEOUT) {
    }
    CHECK_EQ_INT(s->started, THREADS);
    s->go = true;
    zm_port_condvar_broadcast(&s->c);
    zm_port_mutex_unlock(&s->m);
    for (int i = 0; i < THREADS; i++) {
        zm_port_task_join(&t[i]);
    }
    CHECK_EQ_INT(s->woken, THREADS);
}

/* Tries the mutex the main thread holds; the main thread reads what it got after the join. */
static void *try_held(void *arg)
{
    shared_t *s = arg;
    s->tried = zm_port_mutex_trylock(&s->m);
    return NULL;
}

static void test_timeout_and_trylock(shared_t *s)
{
    zm_port_mutex_lock(&s->m);
    uint64_t start = zm_port_clock_ms();
    z_result_t r = Z_OK;
    while (r == Z_OK) { /* a spurious return is allowed: wait again */
        r = zm_port_condvar_wait_until(&s->c, &s->m, start + 20u);
    }
    CHECK_EQ_INT(r, ZM_E_TIMEOUT);
    CHECK(zm_port_clock_ms() >= start + 20u);
    zm_task_t t;
    CHECK_EQ_INT(zm_port_task_start(&t, try_held, s), Z_OK); /* held again after the wait */
    zm_port_task_join(&t);
    CHECK(!s->tried);
    zm_port_mutex_unlock(&s->m);
    CHECK(zm_port_mutex_trylock(&s->m));
    zm_port_mutex_unlock(&s->m);
}

int main(void)
{
    static shared_t s;
    CHECK_EQ_INT(zm_port_mutex_init(&s.m), Z_OK);
    CHECK_EQ_INT(zm_port_condvar_init(&s.c), Z_OK);
    test_exclusion(&s);
    test_handoff(&s);
    test_broadcast(&s);
    test_timeout_and_trylock(&s);
    zm_port_condvar_destroy(&s.c);
    zm_port_mutex_destroy(&s.m);
    return CHECK_DONE();
}
#else
int main(void) { return 0; }
#endif
