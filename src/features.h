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
