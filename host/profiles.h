/* host/profiles.h: where profiles live, and reading them (docs/porta.1,
 * PROFILES; the grammar and the merge are policy/profile.h's).
 *
 * ARCHITECTURE: I/O only; parsing is policy/profile.c's.  A profile is
 * named by NAME (letters, digits, '.', '_', '-'; no '/') or by PATH (any
 * word with a '/'). A NAME is looked up first in the user's profiles,
 * DIR/profiles/NAME under the user's porta configuration directory
 * (host_config_dir()), then among the built-in ones installed with porta:
 * BIN/share/porta/profiles (the build tree: cmake copies profiles/ there)
 * and BIN/../share/porta/profiles (an installed porta), BIN being the
 * directory of porta's own executable.  A user profile of a built-in's
 * name is the one used; `porta profiles` says so.
 */
#ifndef PORTA_HOST_PROFILES_H
#define PORTA_HOST_PROFILES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "policy/profile.h"

/* porta's configuration directory for this user: $XDG_CONFIG_HOME/porta
 * when XDG_CONFIG_HOME is an absolute path, else $HOME/.config/porta;
 * written to out[cap].  Returns 0, or -ENOENT when neither is set (no
 * home: no user profiles). envp: porta's environment. */
int host_config_dir(char *const envp[], char *out, size_t cap);

/* Finds the profile NAME or PATH, reads it and parses it into *out.
 * file[cap] gets the path read.  Returns 0, or -errno with e filled: the
 * profile is not found (the message lists where NAME was looked for), not
 * readable, too long, or a line is malformed (e names the file and the
 * line). */
int host_profile_load(const char *name, char *const envp[], struct policy_profile *out,
		      char *file, size_t cap, struct porta_error *e);

/* Reads the profile file and parses it into *out; with sha256 not NULL,
 * also the SHA-256 of the very bytes parsed.  Returns 0, or -errno with e
 * filled (not readable, not a regular file, too long, a malformed line:
 * e names the file and the line). */
int host_profile_read(const char *file, char *const envp[], struct policy_profile *out,
		      uint8_t sha256[32], struct porta_error *e);

/* The directories of the built-in profiles, in the order they are looked
 * in: BIN/share/porta/profiles, then PREFIX/share/porta/profiles, BIN
 * being the directory of porta's executable (its real path, written to
 * exe_out[exe_cap] when not NULL).  Returns how many. */
size_t host_profile_builtin_dirs(char dirs[2][PATH_MAX], char *exe_out, size_t exe_cap);

/* The value of NAME in envp (the first, as getenv(3) finds it), or NULL.
 * The one lookup of porta's own environment (host/resolve.c too). */
const char *host_env_get(char *const envp[], const char *name);

/* `porta profiles`: every built-in and user profile, one per line: its
 * name, where it comes from, and its first comment line.  Returns 0. */
int host_profiles_list(FILE *out, char *const envp[]);

#endif /* PORTA_HOST_PROFILES_H */
