/**
 * @file
 * Compatibility header: zenoh-pico's path "zenoh-pico/utils/result.h". zmote's result codes, with
 * zenoh-pico's names and values, are in zmote/result.h, which zmote.h includes.
 */
#include "zmote.h"
