/* policy/preset.h: the built-in closure lists (reference/defaults.md), as data.
 *
 * ARCHITECTURE: compiled-in constant tables; `--preset none` simply does not
 * consult the first three.  The strict-read and environment lists apply in
 * every preset.  Pure.
 */
#ifndef PORTA_POLICY_PRESET_H
#define PORTA_POLICY_PRESET_H

#include <stdbool.h>
#include <stddef.h>

/* Credential paths, relative to the user's home, closed to reads in every
 * read mode (inside writable mounts too). */
const char *const *policy_preset_credentials(size_t *n);

/* Names kept unwritable and unrenamable inside every writable mount. */
const char *const *policy_preset_protected(size_t *n);

/* POSIX extended regular expressions over socket paths: credential sockets
 * closed at start. */
const char *const *policy_preset_sockets(size_t *n);

/* Absolute paths readable under --read-policy strict (directories and the few
 * /etc files programs need to start), besides the mounts. */
const char *const *policy_strict_readable(size_t *n);

/* True when the variable name[0..n) passes into the sandbox by default:
 * PATH HOME USER LOGNAME SHELL TERM COLORTERM LANG LANGUAGE LC_* TZ. */
bool policy_env_passes_by_default(const char *name, size_t n);

#endif /* PORTA_POLICY_PRESET_H */
