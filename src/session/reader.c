/*
 * The read task of a peer (multi-thread builds): it reads its transport, or for the multicast
 * group its datagrams, until the link ends or the session closes, then kills the peer and says
 * it is done, for the reaper (the worker, or close) to join it without waiting. A callback that
 * blocks holds this task alone: its peer expires meanwhile, and is reaped once it returns. A
 * lifecycle of its own, apart from the core it hands messages through.
 */
#include "session/internal.h"

#if Z_FEATURE_MULTI_THREAD
static void *reader_main(void *arg)
{
    zm_peer_t *p = arg;
    zm_session_t *s = p->s;
    S_LOCK(s);
    p->reader_thread = zm_port_thread_self(); /* its callbacks are inside the session (session.c) */
    S_UNLOCK(s);
    z_result_t rc;
    if (zm_peer_is_group(p)) {
        do {
            rc = zm_mcast_read(p->s, p, true);
        } while (rc == Z_OK && !p->s->closing);
    } else
    {
        do {
            rc = zm_transport_read_once(&p->t);
        } while (rc == Z_OK && !p->s->closing);
    }
    if (rc == ZM_E_CLOSED) {
        zm_peer_link_ended(p);
    } else {
        /* the reason's text only where it is logged: zm_strerror's table is large for a firmware */
        zm_peer_kill(p, ZM_CLOSE_INVALID, ZM_LOG_LEVEL >= ZM_LOG_WARN ? zm_strerror(rc) : "unreadable");
    }
    /* the last touch of the session: from here a join returns at once */
    S_LOCK(s);
    p->reader_done = true;
    zm_port_condvar_signal(&s->work_cond);
    S_BROADCAST(s);
    S_UNLOCK(s);
    return NULL;
}
#endif

void zm_peer_start(zm_session_t *s, zm_peer_t *p)
{
#if Z_FEATURE_MULTI_THREAD
    /* decided under the lock: zp_start_read_task and an accept may both get here for one peer */
    S_LOCK(s);
    bool start = s->readers_on && !p->reader_started;
    p->reader_started = p->reader_started || start;
    if (start) {
        p->reader_thread = 0; /* until the task tells its own */
    }
    S_UNLOCK(s);
    if (start && zm_port_task_start(&p->reader, reader_main, p) != Z_OK) {
        S_LOCK(s);
        p->reader_started = false;
        S_UNLOCK(s);
        zm_peer_kill(p, ZM_CLOSE_GENERIC, "no thread for its reader");
    }
#else
    ZM_UNUSED(s);
    ZM_UNUSED(p);
#endif
}
