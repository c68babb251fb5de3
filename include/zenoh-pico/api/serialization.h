/**
 * @file
 * Compatibility header: zenoh-pico declares its serialization API (ze_serialize_*, ze_serializer_*,
 * ze_deserialize_*, ze_deserializer_*) here; zmote keeps it in zmote/api/serialization.h, behind zmote.h.
 */
#include "zmote.h"
