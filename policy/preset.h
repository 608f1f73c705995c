/* policy/preset.h: the built-in closure lists (docs/defaults.md), as data.
 *
 * ARCHITECTURE: compiled-in constant tables; `--preset none` simply does not
 * consult the first three.  The kept sockets, the socket directories, the
 * strict-read and environment lists apply in every preset.  Pure.
 */
#ifndef PORTA_POLICY_PRESET_H
#define PORTA_POLICY_PRESET_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>

/* Credential paths, relative to the user's home, closed to reads in every
 * read mode (inside writable mounts too). */
const char *const *policy_preset_credentials(size_t *n);

/* The built-in profiles' own state in the home (profiles/claude-code,
 * profiles/codex: their -v lines), relative to the home: with the caches
 * --caches knows, the only places in the home's dot-directories --why and
 * learn ever suggest writable (policy/why.c). */
const char *const *policy_preset_profile_state(size_t *n);

/* Names kept unwritable and unrenamable inside every writable mount. */
const char *const *policy_preset_protected(size_t *n);

/* POSIX extended regular expressions over socket paths: credential sockets
 * closed at start. */
const char *const *policy_preset_sockets(size_t *n);

/* A host socket left reachable on purpose (README lists each with why). */
struct policy_kept_socket {
	const char *path;   /* absolute */
	const char *why;    /* what it is and why reaching it grants nothing */
	bool open_net_only; /* kept only when the network is open (it resolves names) */
};

/* The host sockets porta leaves reachable; every other pathname socket
 * outside the writable mounts and the private /tmp is closed, in every
 * preset (the rule is not a list: --allow-unix reopens one). */
const struct policy_kept_socket *policy_kept_sockets(size_t *n);

/* The directories where host programs bind sockets after porta started,
 * closed whole so that a socket bound there while the command runs is not
 * reachable: /run, the user's runtime directory (/run/user/UID and
 * $XDG_RUNTIME_DIR), GNU screen's (/run/screen, /var/run/screen,
 * $SCREENDIR), $TMUX_TMPDIR/tmux-UID, and with a shared /tmp the socket
 * directories of tmux, screen, X11, ICE and Emacs in it.  Arguments that are
 * NULL or empty are skipped.  Writes up to cap absolute paths, each once, into out
 * and returns how many; the caller decides which exist and qualify. */
size_t policy_socket_dirs(unsigned uid, bool share_tmp, const char *xdg_runtime_dir,
			  const char *tmux_tmpdir, const char *screendir, char (*out)[PATH_MAX],
			  size_t cap);

/* Absolute paths readable under --read-policy strict (directories and the few
 * /etc files programs need to start), besides the mounts. */
const char *const *policy_strict_readable(size_t *n);

/* A place in the home that --read-policy home shows (read-only): relative
 * to the home, with the reason docs/defaults.md gives for it. */
struct policy_home_place {
	const char *path;
	const char *reason;
};

/* The built-in visible places of the closed home: toolchains and
 * configuration that holds no secret (docs/defaults.md, "The home"). */
const struct policy_home_place *policy_home_visible(size_t *n);

/* True when the variable name[0..n) passes into the sandbox by default:
 * PATH HOME USER LOGNAME SHELL TERM COLORTERM LANG LANGUAGE LC_* TZ. */
bool policy_env_passes_by_default(const char *name, size_t n);

#endif /* PORTA_POLICY_PRESET_H */
