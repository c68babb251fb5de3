/**
 * @file
 * Compatibility header: programs written for zenoh-pico include "zenoh-pico/system/platform.h"
 * for its clocks, sleeps and threads (its z_ping example does). zmote declares those in
 * zmote/api/platform.h, which zmote.h includes.
 */
#include "zmote.h"
