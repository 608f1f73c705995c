/* common/log.h: porta's only way to speak on stderr.
 *
 * ARCHITECTURE: every message starts with "porta: " and ends with one
 * newline; the logger preserves errno so a caller may log and then still
 * read the errno of the call that failed.  Program-controlled strings must go
 * through log_escape() before they are printed.
 */
#ifndef PORTA_COMMON_LOG_H
#define PORTA_COMMON_LOG_H

#include <stddef.h>

enum log_level {
	LOG_LEVEL_ERROR,  /* always printed */
	LOG_LEVEL_WARN,   /* printed unless --quiet */
	LOG_LEVEL_NOTICE, /* printed unless --quiet */
	LOG_LEVEL_DEBUG,  /* printed only with PORTA_DEBUG=1 in porta's environment */
};

/* Sets the most verbose level printed.  Call once, from main, before any
 * other thread or child exists. */
void log_set_level(enum log_level most_verbose);

/* Prints "porta: " + the formatted message + "\n" to stderr in one write(2),
 * so lines from several processes never interleave.  Preserves errno. */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes a printable copy of the n bytes at s into out (capacity cap, always
 * NUL-terminated when cap > 0): bytes outside 0x20..0x7e, backslash and double
 * quote become \xNN / \\ / \".  Returns out.  Pure. */
char *log_escape(const char *s, size_t n, char *out, size_t cap);

#endif /* PORTA_COMMON_LOG_H */
