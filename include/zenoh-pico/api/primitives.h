/**
 * @file
 * Compatibility header: programs written for zenoh-pico may include its header paths one by one
 * ("zenoh-pico/api/primitives.h"; its z_put example includes api/macros.h and api/types.h). zmote keeps the
 * whole API behind zmote.h, so this path just leads there.
 */
#include "zmote.h"
