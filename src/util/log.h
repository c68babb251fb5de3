/*
 * Log lines: what the library tells its user when it drops a peer, refuses a connection or
 * meets something it cannot serve. A line is formatted here, without stdio, and handed whole to
 * zm_port_log; a port with a console prints it, the weak default drops it. Levels above
 * ZM_LOG_LEVEL compile to nothing: their arguments sit in an unevaluated sizeof, so they are
 * still type-checked and count as used, but no code and no reference to zm_log remain.
 */
#ifndef ZM_UTIL_LOG_H
#define ZM_UTIL_LOG_H

#include <stdint.h>

#include "util/common.h"

#define ZM_LOG_ERROR 1
#define ZM_LOG_WARN 2
#define ZM_LOG_INFO 3
#define ZM_LOG_DEBUG 4

/** Longest line handed to the port, NUL included; longer ones are cut. */
#define ZM_LOG_LINE_MAX 160

/**
 * Formats and emits one line. fmt knows %s, %.*s (int length, then the chars), %d (int),
 * %u (unsigned), %x (unsigned, hex), %U (uint64_t) and %%; anything else is copied as it is.
 */
void zm_log(uint8_t level, const char *fmt, ...);

/** The sink, one whole line without newline; the port's definition replaces a silent default. */
void zm_port_log(uint8_t level, const char *line);

#define ZM_LOG_NONE(...) ((void)sizeof((zm_log(__VA_ARGS__), 0)))

#if ZM_LOG_LEVEL >= ZM_LOG_ERROR
#define ZM_LOG_E(...) zm_log(ZM_LOG_ERROR, __VA_ARGS__)
#else
#define ZM_LOG_E(...) ZM_LOG_NONE(ZM_LOG_ERROR, __VA_ARGS__)
#endif
#if ZM_LOG_LEVEL >= ZM_LOG_WARN
#define ZM_LOG_W(...) zm_log(ZM_LOG_WARN, __VA_ARGS__)
#else
#define ZM_LOG_W(...) ZM_LOG_NONE(ZM_LOG_WARN, __VA_ARGS__)
#endif
#if ZM_LOG_LEVEL >= ZM_LOG_INFO
#define ZM_LOG_I(...) zm_log(ZM_LOG_INFO, __VA_ARGS__)
#else
#define ZM_LOG_I(...) ZM_LOG_NONE(ZM_LOG_INFO, __VA_ARGS__)
#endif
#if ZM_LOG_LEVEL >= ZM_LOG_DEBUG
#define ZM_LOG_D(...) zm_log(ZM_LOG_DEBUG, __VA_ARGS__)
#else
#define ZM_LOG_D(...) ZM_LOG_NONE(ZM_LOG_DEBUG, __VA_ARGS__)
#endif

/*
 * A text that only a warning reads, such as why a peer was dropped: NULL when warnings are
 * compiled out, and then neither the text nor what computes it (zm_strerror) is in the image.
 */
#if ZM_LOG_LEVEL >= ZM_LOG_WARN
#define ZM_LOG_WHY(text) (text)
#else
#define ZM_LOG_WHY(text) ((void)sizeof(text), (const char *)0)
#endif

#endif /* ZM_UTIL_LOG_H */
