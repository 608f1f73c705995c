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

#include "policy/path_reason.h"

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

/* The places porta closes, as one spelling of them (named or real: the
 * caller builds one of each, policy_closed_place() compares strings). */
struct policy_closed_places {
	const char *home;                   /* normalized absolute, or NULL */
	const char *const *credentials;     /* relative to home (policy_preset_credentials()) */
	size_t n_credentials;
	char *const *deny_read;             /* normalized absolute */
	size_t n_deny_read;
	const char *config_dir;             /* porta's configuration, or NULL/"" */
	const char *const *protected_names; /* relative, matched at any depth */
	size_t n_protected;
	bool home_hidden;                   /* --read-policy strict: the home shows only grants */
};

/* Whether path (normalized absolute) lies in a place c closes, and which
 * kind: a credential path or what lies beneath one, a --deny-read path,
 * porta's configuration, a protected name at any depth or a directory
 * holding one at its top (path ending in ".git" holds ".git/hooks"), or the
 * hidden home.  Returns true and sets *reason; false when the place is open.
 * For the rule "a grant that passes through a link may not land in a
 * closed place" (host/resolve.c, check_links()): it is asked of the real
 * path and of the path as named.  Pure. */
bool policy_closed_place(const struct policy_closed_places *c, const char *path,
			 enum policy_path_reason *reason);

#endif /* PORTA_POLICY_PATHS_H */
