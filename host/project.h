/* host/project.h: the project file, `.porta` (docs/porta.1, PROJECT FILE),
 * and `porta trust`.
 *
 * ARCHITECTURE: I/O only (finding, hashing, the trust store); the file is
 * a profile (policy/profile.h) and is merged as one.  `porta run` and
 * `porta explain` use the `.porta` of the working directory, or of the
 * nearest parent that has one, only when its SHA-256 is the one `porta
 * trust` recorded for that path; an untrusted or changed file stops the
 * run (exit 125) with the line that says how to review and trust it, and
 * `--no-project` runs without it (src/main.c, apply_profiles()).  The record
 * lives in porta's configuration directory (host_config_dir()/trusted:
 * one "SHA256HEX PATH" line per file), which every sandbox finds closed,
 * and `.porta` is a protected name inside every writable mount
 * (policy/preset.c), so no command can trust or change its own next run's
 * file.
 */
#ifndef PORTA_HOST_PROJECT_H
#define PORTA_HOST_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "policy/profile.h"

#define HOST_PROJECT_FILE ".porta"

enum host_project_state {
	HOST_PROJECT_NONE,      /* no .porta here or above */
	HOST_PROJECT_TRUSTED,   /* found, its hash recorded: *out holds it */
	HOST_PROJECT_UNTRUSTED, /* found, never trusted */
	HOST_PROJECT_CHANGED,   /* found, trusted once, changed since */
};

/* The .porta of dir or its nearest parent that has one (a regular file),
 * into path[cap].  Returns true when one was found. */
bool host_project_find(const char *dir, char *path, size_t cap);

/* Finds the project file from dir and, when it is trusted, reads it into
 * *out (envp: porta's environment, for HOME and the configuration
 * directory).  path[cap] gets the file found.  Returns the state, or -errno
 * with e filled when a trusted file cannot be read or does not parse (it
 * was checked when trusted, so only its parser's limits could have
 * changed). */
int host_project_load(const char *dir, char *const envp[], struct policy_profile *out,
		      char *path, size_t cap, struct porta_error *e);

/* `porta trust [FILE]`: checks FILE (default: the project file run would
 * use from the working directory) parses as a profile, then records its
 * hash, replacing an earlier record of the same path.  Prints what it did
 * to out.  Returns 0, or -errno with e filled. */
int host_project_trust(const char *file, char *const envp[], FILE *out,
		       struct porta_error *e);

#endif /* PORTA_HOST_PROJECT_H */
