/*
 * zmote/port.h on bare metal: one thread, no OS, no stdio. Time is the board's millisecond tick
 * widened to 64 bits, every wait is a loop around zm_board_idle (WFI) bounded by that clock,
 * and randomness is the board's entropy stirred through a Weyl sequence and an integer hash. Log
 * lines and failed invariants go to the board's console in console.c, the heap is in heap.c, the
 * UARTs in serial.c.
 */
#include <stdint.h>

#include "zmote/port.h"
#include "zmote_baremetal.h"
#include "zmote_board.h"
#include "zmote_rng.h"


/* ---- clocks ---------------------------------------------------------------------------------- */

/* The tick's last value and the wraps seen so far; one thread reads the clock, so no lock. */
static uint32_t tick_last;
static uint32_t tick_wraps;
/* What zm_port_time_ns adds to the monotonic clock; set by zm_baremetal_set_time_ns. */
static uint64_t wall_offset_ns;

uint64_t zm_port_clock_ms(void)
{
    uint32_t now = zm_board_millis();
    if (now < tick_last) {
        tick_wraps++;
    }
    tick_last = now;
    return (uint64_t)tick_wraps << 32 | now;
}

uint64_t zm_port_time_ns(void) { return zm_port_clock_ms() * 1000000u + wall_offset_ns; }

void zm_baremetal_set_time_ns(uint64_t now_ns)
{
    uint64_t mono_ns = zm_port_clock_ms() * 1000000u;
    wall_offset_ns = now_ns > mono_ns ? now_ns - mono_ns : 0u;
}

void zm_port_sleep_ms(uint32_t ms)
{
    uint64_t until = zm_port_clock_ms() + ms;
    while (zm_port_clock_ms() < until) {
        zm_board_idle();
    }
}

/* ---- randomness ------------------------------------------------------------------------------ */

/* The generator of zmote_rng.h, fed with the board's entropy and the clock at each call. */
static uint64_t rng_state;

void zm_port_random(void *buf, size_t len)
{
    uint64_t fresh; /* the board's bytes, read as a word */
    zm_board_entropy((uint8_t *)&fresh, sizeof(fresh));
    zm_rng_fill(&rng_state, fresh ^ zm_port_clock_ms(), buf, len);
}

/* ---- threads --------------------------------------------------------------------------------- */

zm_thread_id_t zm_port_thread_self(void) { return 1u; }
