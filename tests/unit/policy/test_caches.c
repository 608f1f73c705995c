/* tests/unit/policy/test_caches.c: --caches' directories from the home and
 * the environment, and the variables it refuses (policy/caches.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "policy/caches.h"

static struct policy_cache_dir dirs[POLICY_MAX_CACHES];

static const struct policy_cache_dir *find(size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(dirs[i].path, path) == 0)
			return &dirs[i];
	return NULL;
}

Test(caches, defaults_under_the_home_and_xdg)
{
	char *const env[] = { "PATH=/usr/bin", NULL };
	const char *bad;
	size_t n;

	cr_assert_eq(policy_caches("/home/u", env, dirs, &n, &bad), POLICY_CACHES_OK);
	static const char *const want[] = {
		"/home/u/.npm", "/home/u/.cache/yarn", "/home/u/.local/share/pnpm/store",
		"/home/u/.cache/pnpm", "/home/u/.cache/pip", "/home/u/.cache/uv",
		"/home/u/.cargo/registry", "/home/u/.cargo/git", "/home/u/.cargo/.package-cache",
		"/home/u/go/pkg/mod", "/home/u/.cache/go-build", "/home/u/.m2/repository",
		"/home/u/.gradle/caches", "/home/u/.gradle/wrapper", "/home/u/.cache/ccache",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct policy_cache_dir *d = find(n, want[i]);
		cr_assert(d, "%s missing", want[i]);
		cr_expect_null(d->var, "%s", want[i]);
	}
	/* npm_config_cache and NPM_CONFIG_CACHE share the default: once */
	size_t npm = 0;
	for (size_t i = 0; i < n; i++) {
		npm += strcmp(dirs[i].path, "/home/u/.npm") == 0;
		/* never what the host runs or reads as settings */
		cr_expect_null(strstr(dirs[i].path, ".cargo/bin"));
		cr_expect_null(strstr(dirs[i].path, "settings.xml"));
		cr_expect_null(strstr(dirs[i].path, "init.d"));
		cr_expect_neq(strcmp(dirs[i].path, "/home/u/.cargo"), 0);
	}
	cr_expect_eq(npm, 1);
	cr_expect(find(n, "/home/u/.cargo/.package-cache")->is_file);
	cr_expect_not(find(n, "/home/u/.npm")->is_file);
}

Test(caches, variables_move_them)
{
	char *const env[] = { "npm_config_cache=/data/npm/", "XDG_CACHE_HOME=/xdg",
			      "CARGO_HOME=/opt/cargo", "GOPATH=/gp:/other", "XDG_DATA_HOME=rel",
			      NULL };
	const char *bad;
	size_t n;

	cr_assert_eq(policy_caches("/home/u", env, dirs, &n, &bad), POLICY_CACHES_OK);
	const struct policy_cache_dir *d = find(n, "/data/npm");
	cr_assert(d);
	cr_expect_str_eq(d->var, "npm_config_cache");
	cr_expect(find(n, "/home/u/.npm"), "NPM_CONFIG_CACHE unset: its default stays");
	cr_expect(find(n, "/xdg/pip"));
	cr_expect(find(n, "/opt/cargo/registry"));
	cr_expect(find(n, "/opt/cargo/.package-cache-mutate"));
	cr_expect(find(n, "/gp/pkg/mod"), "GOPATH's first entry");
	/* a relative XDG_DATA_HOME is ignored, as the XDG specification says */
	cr_expect(find(n, "/home/u/.local/share/pnpm/store"));
}

Test(caches, refusals)
{
	static const struct {
		const char *var;
		enum policy_caches_status st;
	} cases[] = {
		{ "PIP_CACHE_DIR=cache", POLICY_CACHES_RELATIVE },
		{ "PIP_CACHE_DIR=/", POLICY_CACHES_TOO_WIDE },
		{ "PIP_CACHE_DIR=/home/u", POLICY_CACHES_TOO_WIDE },
		{ "PIP_CACHE_DIR=/home/u/", POLICY_CACHES_TOO_WIDE },
		{ "PIP_CACHE_DIR=/home", POLICY_CACHES_TOO_WIDE },
		{ "CARGO_HOME=/home/u", POLICY_CACHES_TOO_WIDE },
		{ "GRADLE_USER_HOME=/", POLICY_CACHES_TOO_WIDE },
		{ "PIP_CACHE_DIR=/home/u/x/..", POLICY_CACHES_TOO_WIDE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *const env[] = { (char *)cases[i].var, NULL };
		const char *bad = NULL;
		size_t n;
		cr_expect_eq(policy_caches("/home/u", env, dirs, &n, &bad), cases[i].st, "%s",
			     cases[i].var);
		cr_expect(bad && strncmp(cases[i].var, bad, strlen(bad)) == 0, "%s: %s", cases[i].var,
			  bad ? bad : "(null)");
		cr_expect_str_neq(policy_caches_reason(cases[i].st), "");
	}
	char *const env[] = { NULL };
	const char *bad;
	size_t n;
	cr_expect_eq(policy_caches(NULL, env, dirs, &n, &bad), POLICY_CACHES_NO_HOME);
	cr_expect_eq(policy_caches("rel", env, dirs, &n, &bad), POLICY_CACHES_NO_HOME);
}

Test(caches, the_variables_that_pass)
{
	static const char *const pass[] = { "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME",
					    "GOMODCACHE", "XDG_CACHE_HOME", "GOPATH", "CCACHE_DIR" };
	for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++)
		cr_expect(policy_cache_env(pass[i], strlen(pass[i])), "%s", pass[i]);
	static const char *const keep[] = { "HOME", "PATH", "PIP_CACHE", "CARGO_HOMEX", "NPM_TOKEN",
					    "AWS_SECRET_ACCESS_KEY" };
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		cr_expect_not(policy_cache_env(keep[i], strlen(keep[i])), "%s", keep[i]);
}

Test(caches, offline_switches)
{
	const char *var, *value;
	size_t n = 0;
	bool npm = false;

	while (policy_caches_offline_at(n, &var, &value)) {
		cr_expect(var[0] && value[0], "%zu", n);
		npm |= strcmp(var, "npm_config_offline") == 0 && strcmp(value, "true") == 0;
		n++;
	}
	cr_expect(npm);
	cr_expect_eq(n, 4);
	cr_expect_not(policy_caches_offline_at(n, &var, &value));
}
