/*
 * zmote: the Zenoh 1.x C API (as zenoh-c and zenoh-pico 1.x share it) over a from-scratch
 * implementation of the Zenoh 1.x protocol (version 0x09). Nothing internal is declared here;
 * zmote-only additions carry the zm_ prefix.
 */
#ifndef ZMOTE_H
#define ZMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/opt.h"
#include "zmote/result.h"

#define ZMOTE_VERSION_MAJOR 0
#define ZMOTE_VERSION_MINOR 1
#define ZMOTE_VERSION_PATCH 0

/** Zenoh protocol version spoken on the wire. */
#define Z_PROTO_VERSION 0x09

#endif /* ZMOTE_H */
