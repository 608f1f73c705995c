/* policy/caches.h: --caches, the per-user caches of common package managers
 * and build tools, granted writable in one word.
 *
 * ARCHITECTURE: pure.  One table names each tool's cache directories: where
 * its variable (npm_config_cache, PIP_CACHE_DIR, CARGO_HOME, ...) puts them
 * when the environment sets it, else its default under the home or the XDG
 * directories.  Only the caches: ~/.cargo/bin and config.toml,
 * ~/.m2/settings.xml and ~/.gradle/init.d (programs or settings the host
 * runs, or credentials) are never among them; cargo's lock files in
 * CARGO_HOME are, one by one, since cargo takes them to read its registry.  host/resolve.c creates the absent ones and mounts them like -v
 * DIR; the variables pass through into the sandbox (policy_cache_env()).
 * Refused: a variable naming a relative path, /, or the home or a directory
 * above it (a cache there would make the whole home writable).
 */
#ifndef PORTA_POLICY_CACHES_H
#define PORTA_POLICY_CACHES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define POLICY_MAX_CACHES 24

struct policy_cache_dir {
	char path[PATH_MAX]; /* absolute, normalized */
	const char *tool;    /* "npm", "pip", ... */
	const char *var;     /* the variable that placed it, or NULL for the default */
	bool is_file;        /* a lock file (cargo's), not a directory */
	bool absent;         /* set by host/resolve.c for explain: run will make it */
	bool skipped;        /* a link at (or into a closed place on the way to) it: left out */
};

enum policy_caches_status {
	POLICY_CACHES_OK,
	POLICY_CACHES_NO_HOME,   /* no absolute home: the defaults have nowhere to be */
	POLICY_CACHES_RELATIVE,  /* *bad_var is not an absolute path */
	POLICY_CACHES_TOO_WIDE,  /* *bad_var names /, the home or above it */
	POLICY_CACHES_TOO_LONG,  /* a path longer than PATH_MAX */
};

/* The cache directories for home and the environment envp (NULL-terminated
 * "NAME=VALUE"), each once, into out[POLICY_MAX_CACHES]; *n their number.
 * On a refusal *bad_var names the variable at fault (NULL for NO_HOME). */
enum policy_caches_status policy_caches(const char *home, char *const envp[],
					struct policy_cache_dir out[POLICY_MAX_CACHES], size_t *n,
					const char **bad_var);

/* One line for a status, naming what to do. */
const char *policy_caches_reason(enum policy_caches_status st);

/* True for a variable --caches passes through when it is set. */
bool policy_cache_env(const char *name, size_t len);

/* --caches under --no-net: the i-th variable that tells a tool to work from
 * its cache alone (npm_config_offline=true, CARGO_NET_OFFLINE=true,
 * GOPROXY=off, UV_OFFLINE=1), so that what is not cached fails at once
 * rather than after the tool's network retries.  host/resolve.c sets each
 * one the host's environment does not set (-e, --env-file and --env still
 * override it).  False past the last. */
bool policy_caches_offline_at(size_t i, const char **var, const char **value);

#endif /* PORTA_POLICY_CACHES_H */
