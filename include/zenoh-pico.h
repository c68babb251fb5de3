#include "zmote.h"
#include "zenoh-pico/protocol/core.h" /* _z_id_len, which zenoh-pico's examples use */
