/**
 * @file
 * zmote's version, and the zenoh-pico release whose API it provides. Checked in rather than
 * generated, so that builds without CMake (the Cortex-M4 scripts, a firmware's own makefile) see
 * it too; CMake's configure stops if ZMOTE_VERSION and project()'s version disagree.
 */
#ifndef ZMOTE_VERSION_H
#define ZMOTE_VERSION_H

/** zmote's version as text, "major.minor.patch". */
#define ZMOTE_VERSION "0.1.0"
/** zmote's version: major. */
#define ZMOTE_VERSION_MAJOR 0
/** zmote's version: minor. */
#define ZMOTE_VERSION_MINOR 1
/** zmote's version: patch. */
#define ZMOTE_VERSION_PATCH 0

/*
 * zenoh-pico 1.9.0's own version macros, by its names: programs that test them to pick code
 * paths get the 1.9.0 ones. ZENOH_PICO_TWEAK is empty, as in a zenoh-pico release.
 */
/** The zenoh-pico release whose API zmote provides, as text. */
#define ZENOH_PICO "1.9.0"
/** Major version of the zenoh-pico API provided. */
#define ZENOH_PICO_MAJOR 1
/** Minor version of the zenoh-pico API provided. */
#define ZENOH_PICO_MINOR 9
/** Patch version of the zenoh-pico API provided. */
#define ZENOH_PICO_PATCH 0
/** zenoh-pico's tweak version: empty, as in its releases. */
#define ZENOH_PICO_TWEAK

#endif /* ZMOTE_VERSION_H */
