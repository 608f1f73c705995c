/* policy/paths.h: lexical path arithmetic (pure).
 *
 * ARCHITECTURE: these functions never look at the filesystem; symlinks are
 * resolved by host/resolve.c with realpath(3) before a path is used for
 * anything that matters.  They exist so that joining, normalising and
 * "is this under that" are one tested implementation.
 */
#ifndef PORTA_POLICY_PATHS_H
#define PORTA_POLICY_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Normalises path[0..len) lexically into out[cap]: a relative path is joined
 * to base (absolute), "//" and "." collapse, ".." removes the previous
 * component (never above "/").  Returns the length written, or 0 when the
 * input is empty, base is not absolute, or the result does not fit. */
size_t policy_path_normalize(const char *base, const char *path, size_t len, char *out,
			     size_t cap);

/* Joins dir and a relative name into out[cap] and normalises; returns the
 * length or 0 (as policy_path_normalize). */
size_t policy_path_join(const char *dir, const char *name, char *out, size_t cap);

/* True when path equals dir or lies beneath it; both must be normalised
 * absolute paths. */
bool policy_path_is_under(const char *dir, const char *path);

/* The name a refused entry is moved aside to, in its own directory:
 * "NAME.porta-refused-PID", then "...-PID-2", "-3" for attempt k = 1, 2, ...
 * (the first free one).  The suffix keeps it inert: no editor, shell, agent
 * or git reads a name of that shape.  Writes into out[cap] and returns the
 * length, or 0 when it does not fit in a file name (NAME_MAX) or cap. */
size_t policy_path_aside_name(const char *name, long pid, unsigned k, char *out, size_t cap);

#endif /* PORTA_POLICY_PATHS_H */
