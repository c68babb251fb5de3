/*
 * Every internal switch, derived once from the public options (zmote/opt.h) and nowhere else:
 * what a build links follows from the Z_FEATURE_* and ZM_* options a user sets, so each switch
 * is written here, with why it exists, and its sanity checks beside it (as lwIP's opt.h/init.c).
 * A switch removes code; it never renames a function, changes a linkage or a locking rule.
 * Sections go from the bottom layer up, and a switch reads only options and switches above it.
 */
#ifndef ZM_FEATURES_H
#define ZM_FEATURES_H

#include "zmote/opt.h"

/* ---- links ------------------------------------------------------------------------------- */

/* ---- codec ------------------------------------------------------------------------------- */

/* ---- transport --------------------------------------------------------------------------- */

/* ---- session ----------------------------------------------------------------------------- */

/* ---- api --------------------------------------------------------------------------------- */

#endif

/* The C library's headers include a <features.h> of their own, which -Isrc finds here first: it
 * follows, as a system header, after what this file is. */
#if defined(__has_include_next)
#if __has_include_next(<features.h>)
#pragma GCC system_header
#include_next <features.h>
#endif
#endif
