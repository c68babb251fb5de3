/**
 * @file
 * Compatibility header: zenoh-pico's path "zenoh-pico/api/advanced_subscriber.h". zmote keeps the whole API
 * behind zmote.h (what this part of zenoh-pico's API declares exists there only as far as zmote
 * implements it), so this path just leads there.
 */
#include "zmote.h"
