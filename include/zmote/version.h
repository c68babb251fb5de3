/*
 * zmote's version, and the zenoh-pico release whose API it provides. Checked in rather than
 * generated, so that builds without CMake (the Cortex-M4 scripts, a firmware's own makefile) see
 * it too; CMake's configure stops if ZMOTE_VERSION and project()'s version disagree.
 */
#ifndef ZMOTE_VERSION_H
#define ZMOTE_VERSION_H

#define ZMOTE_VERSION "0.1.0"
#define ZMOTE_VERSION_MAJOR 0
#define ZMOTE_VERSION_MINOR 1
#define ZMOTE_VERSION_PATCH 0

/*
 * zenoh-pico 1.9.0's own version macros, by its names: programs that test them to pick code
 * paths get the 1.9.0 ones. ZENOH_PICO_TWEAK is empty, as in a zenoh-pico release.
 */
#define ZENOH_PICO "1.9.0"
#define ZENOH_PICO_MAJOR 1
#define ZENOH_PICO_MINOR 9
#define ZENOH_PICO_PATCH 0
#define ZENOH_PICO_TWEAK

#endif /* ZMOTE_VERSION_H */
