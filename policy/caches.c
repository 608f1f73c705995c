/* policy/caches.c: the cache table of --caches (see caches.h). */
#include "policy/caches.h"

#include <string.h>

#include "policy/paths.h"

/* Where a default lies: under the home, XDG_CACHE_HOME, XDG_DATA_HOME or
 * the first entry of GOPATH (each with its own default). */
enum base { BASE_HOME, BASE_XDG_CACHE, BASE_XDG_DATA, BASE_GOPATH };

static const struct cache {
	const char *tool;
	const char *var;  /* the variable that moves it, or NULL */
	const char *tail; /* appended to the variable's value ("" : the value itself) */
	enum base base;
	const char *rel;  /* the default, relative to base */
	bool is_file;
} caches[] = {
	{ "npm", "npm_config_cache", "", BASE_HOME, ".npm", false },
	{ "npm", "NPM_CONFIG_CACHE", "", BASE_HOME, ".npm", false },
	{ "yarn", "YARN_CACHE_FOLDER", "", BASE_XDG_CACHE, "yarn", false },
	{ "pnpm", "npm_config_store_dir", "", BASE_XDG_DATA, "pnpm/store", false },
	{ "pnpm", NULL, NULL, BASE_XDG_CACHE, "pnpm", false },
	{ "pip", "PIP_CACHE_DIR", "", BASE_XDG_CACHE, "pip", false },
	{ "uv", "UV_CACHE_DIR", "", BASE_XDG_CACHE, "uv", false },
	{ "cargo", "CARGO_HOME", "/registry", BASE_HOME, ".cargo/registry", false },
	{ "cargo", "CARGO_HOME", "/git", BASE_HOME, ".cargo/git", false },
	{ "cargo", "CARGO_HOME", "/.package-cache", BASE_HOME, ".cargo/.package-cache", true },
	{ "cargo", "CARGO_HOME", "/.package-cache-mutate", BASE_HOME,
	  ".cargo/.package-cache-mutate", true },
	{ "go", "GOMODCACHE", "", BASE_GOPATH, "pkg/mod", false },
	{ "go", "GOCACHE", "", BASE_XDG_CACHE, "go-build", false },
	{ "maven", NULL, NULL, BASE_HOME, ".m2/repository", false },
	{ "gradle", "GRADLE_USER_HOME", "/caches", BASE_HOME, ".gradle/caches", false },
	{ "gradle", "GRADLE_USER_HOME", "/wrapper", BASE_HOME, ".gradle/wrapper", false },
	{ "ccache", "CCACHE_DIR", "", BASE_XDG_CACHE, "ccache", false },
};

/* Variables that only move the defaults: passed through too. */
static const char *const base_vars[] = { "XDG_CACHE_HOME", "XDG_DATA_HOME", "GOPATH" };

static const char *getenv_in(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* A base directory: its variable when set and absolute (the XDG
 * specification ignores a relative one), else its default under home. */
static size_t base_dir(enum base b, const char *home, char *const envp[], char *out, size_t cap)
{
	static const struct {
		const char *var, *rel;
	} bases[] = {
		[BASE_HOME] = { NULL, "" },
		[BASE_XDG_CACHE] = { "XDG_CACHE_HOME", ".cache" },
		[BASE_XDG_DATA] = { "XDG_DATA_HOME", ".local/share" },
		[BASE_GOPATH] = { "GOPATH", "go" },
	};
	const char *v = bases[b].var ? getenv_in(envp, bases[b].var) : NULL;

	if (v && v[0] == '/') {
		/* GOPATH is a list: the first entry holds the module cache */
		size_t len = b == BASE_GOPATH ? strcspn(v, ":") : strlen(v);
		return policy_path_normalize("/", v, len, out, cap);
	}
	if (b == BASE_HOME)
		return policy_path_normalize("/", home, strlen(home), out, cap);
	return policy_path_join(home, bases[b].rel, out, cap);
}

enum policy_caches_status policy_caches(const char *home, char *const envp[],
					struct policy_cache_dir out[POLICY_MAX_CACHES], size_t *n,
					const char **bad_var)
{
	char base[PATH_MAX], joined[PATH_MAX];

	*n = 0;
	*bad_var = NULL;
	if (!home || home[0] != '/')
		return POLICY_CACHES_NO_HOME;
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		const struct cache *c = &caches[i];
		const char *v = c->var ? getenv_in(envp, c->var) : NULL;
		size_t len;
		if (v) {
			if (v[0] != '/') {
				*bad_var = c->var;
				return POLICY_CACHES_RELATIVE;
			}
			if (!policy_path_normalize("/", v, strlen(v), base, sizeof(base))) {
				*bad_var = c->var;
				return POLICY_CACHES_TOO_LONG;
			}
			/* the variable's own directory may not be the home or
			 * above it, even when only a part below is granted */
			if (policy_path_is_under(base, home)) {
				*bad_var = c->var;
				return POLICY_CACHES_TOO_WIDE;
			}
			len = c->tail[0] ? policy_path_join(base, c->tail + 1, joined, sizeof(joined))
					 : policy_path_normalize("/", base, strlen(base), joined,
								 sizeof(joined));
		} else {
			if (!base_dir(c->base, home, envp, base, sizeof(base)))
				return POLICY_CACHES_TOO_LONG;
			len = policy_path_join(base, c->rel, joined, sizeof(joined));
		}
		if (!len)
			return POLICY_CACHES_TOO_LONG;
		if (policy_path_is_under(joined, home)) {
			/* an XDG_CACHE_HOME of / or of the home, say */
			*bad_var = c->var ? c->var : c->base == BASE_XDG_CACHE ? "XDG_CACHE_HOME"
						   : c->base == BASE_XDG_DATA  ? "XDG_DATA_HOME"
						   : c->base == BASE_GOPATH    ? "GOPATH"
									       : "HOME";
			return POLICY_CACHES_TOO_WIDE;
		}
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(out[k].path, joined) == 0;
		if (seen || *n == POLICY_MAX_CACHES)
			continue;
		memcpy(out[*n].path, joined, len + 1);
		out[*n].tool = c->tool;
		out[*n].var = v ? c->var : NULL;
		out[*n].is_file = c->is_file;
		(*n)++;
	}
	return POLICY_CACHES_OK;
}

const char *policy_caches_reason(enum policy_caches_status st)
{
	switch (st) {
	case POLICY_CACHES_OK: return "ok";
	case POLICY_CACHES_NO_HOME:
		return "no home directory to find the caches in; set HOME to an absolute path";
	case POLICY_CACHES_RELATIVE:
		return "names a relative path; a cache directory must be absolute";
	case POLICY_CACHES_TOO_WIDE:
		return "names /, the home or a directory above it: --caches would make all of it "
		       "writable; point it at a directory of its own";
	case POLICY_CACHES_TOO_LONG: return "a cache path longer than PATH_MAX";
	}
	return "malformed";
}

bool policy_cache_env(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++)
		if (caches[i].var && strlen(caches[i].var) == len &&
		    memcmp(caches[i].var, name, len) == 0)
			return true;
	for (size_t i = 0; i < sizeof(base_vars) / sizeof(base_vars[0]); i++)
		if (strlen(base_vars[i]) == len && memcmp(base_vars[i], name, len) == 0)
			return true;
	return false;
}

/* Each tool's own word for "work from the cache alone".  Without it npm
 * retries every failed request, "no such host" included, twice with 10 and
 * 60 s waits (npm 11): a cold cache under --no-net took 73 s to fail, one
 * package at a time.  pip has no such switch that keeps a local index
 * usable (--no-index drops them all), so it is not here. */
static const struct {
	const char *var, *value;
} offline[] = {
	{ "npm_config_offline", "true" }, /* npm: ENOTCACHED at once for what is not cached */
	{ "CARGO_NET_OFFLINE", "true" },  /* cargo --offline */
	{ "GOPROXY", "off" },             /* go: "module lookup disabled by GOPROXY=off" */
	{ "UV_OFFLINE", "1" },            /* uv --offline */
};

bool policy_caches_offline_at(size_t i, const char **var, const char **value)
{
	if (i >= sizeof(offline) / sizeof(offline[0]))
		return false;
	*var = offline[i].var;
	*value = offline[i].value;
	return true;
}
