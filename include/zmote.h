/**
 * @file
 * zmote: the Zenoh 1.x C API, as zenoh-pico 1.9.0 has it, over a from-scratch implementation of
 * the Zenoh 1.x protocol (version 0x09). Programs written for zenoh-pico include "zenoh-pico.h",
 * which is this header. Nothing internal is declared here; zmote-only additions carry the zm_
 * prefix. The API lives in zmote/api/: constants, types, primitives (the functions), queries,
 * liveliness, serialization (zenoh-ext's format), encodings, channel handlers, platform helpers
 * and the generic macros. Compile-time options are in zmote/opt.h, result codes in
 * zmote/result.h, versions in zmote/version.h, and the interface a platform port implements in
 * zmote/port.h (not included here: programs never need it).
 *
 * The conventions every function follows (who owns what, what blocks, which thread runs the
 * callbacks, the errors common to all) are written once, in zmote/api/primitives.h.
 */
#ifndef ZMOTE_H
#define ZMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* zenoh-pico's header brings these along, and programs written for it use them unincluded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zmote/opt.h"
#include "zmote/result.h"
#include "zmote/version.h"

/** Zenoh protocol version spoken on the wire. */
#define Z_PROTO_VERSION 0x09

#include "zmote/api/constants.h"
#include "zmote/api/types.h"
#include "zmote/api/primitives.h"
#include "zmote/api/query.h"
#include "zmote/api/liveliness.h"
#include "zmote/api/serialization.h"
#include "zmote/api/encoding.h"
#include "zmote/api/handlers.h"
#include "zmote/api/advanced.h"
#include "zmote/api/connectivity.h"
#include "zmote/pool.h" /* zmote's own: the no-heap pools' figures */
#include "zmote/api/platform.h"
#include "zmote/api/macros.h"

#endif /* ZMOTE_H */
