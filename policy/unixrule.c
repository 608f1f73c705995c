/* policy/unixrule.c: see unixrule.h. */
#include "policy/unixrule.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "policy/options.h"
#include "policy/paths.h"
#include "policy/preset.h"

/* "/run/user/<digits>/porta" at the start of path, then '/' or the end. */
static bool under_run_user_porta(const char *path)
{
	static const char prefix[] = "/run/user/";
	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *p = path + sizeof(prefix) - 1;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return strncmp(p, "/porta", 6) == 0 && (p[6] == '\0' || p[6] == '/');
}

bool policy_unix_in_porta_runtime(const char *path, const char *xdg_runtime_dir)
{
	if (!path)
		return false;
	if (under_run_user_porta(path))
		return true;
	if (!xdg_runtime_dir || xdg_runtime_dir[0] != '/')
		return false;
	char dir[PATH_MAX];
	if (policy_path_join(xdg_runtime_dir, "porta", dir, sizeof(dir)) == 0)
		return false;
	return policy_path_is_under(dir, path);
}

bool policy_unix_allowed(const char *const *allowed, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		if (allowed[i] && strcmp(allowed[i], path) == 0)
			return true;
	}
	return false;
}

bool policy_unix_kept(const char *path, enum policy_net_mode mode)
{
	size_t n;
	const struct policy_kept_socket *k = policy_kept_sockets(&n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(k[i].path, path) == 0)
			return !k[i].open_net_only || mode == POLICY_NET_OPEN;
	}
	return false;
}

enum policy_unix_verdict policy_unix_decide(const struct policy_plan *plan,
					    const char *xdg_runtime_dir,
					    const struct policy_unix_query *q)
{
	if (!q->path || q->path[0] != '/')
		return POLICY_UNIX_REFUSED;
	if (policy_unix_in_porta_runtime(q->path, xdg_runtime_dir))
		return POLICY_UNIX_REFUSED_RUNTIME;
	if (policy_unix_allowed((const char *const *)q->allowed, q->n_allowed, q->path))
		return POLICY_UNIX_GRANTED_ALLOWED;
	if (q->credential)
		return POLICY_UNIX_REFUSED_CREDENTIAL;
	if (policy_unix_kept(q->path, plan->opts->net_mode))
		return POLICY_UNIX_GRANTED_KEPT;
	if (q->writable_mount)
		return POLICY_UNIX_GRANTED_WRITABLE;
	return POLICY_UNIX_REFUSED;
}

bool policy_unix_plan_grants_write(const struct policy_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		if ((r->grant & POLICY_GRANT_WRITE) && !(r->grant & POLICY_GRANT_DEV) &&
		    policy_path_is_under(r->path, path))
			return true;
	}
	return false;
}

const char *policy_unix_verdict_word(enum policy_unix_verdict v)
{
	switch (v) {
	case POLICY_UNIX_GRANTED_WRITABLE: return "writable-mount";
	case POLICY_UNIX_GRANTED_ALLOWED: return "allow-unix";
	case POLICY_UNIX_GRANTED_KEPT: return "kept";
	case POLICY_UNIX_REFUSED_RUNTIME: return "porta-runtime";
	case POLICY_UNIX_REFUSED_CREDENTIAL: return "credential";
	case POLICY_UNIX_REFUSED: return "not-granted";
	}
	return "not-granted";
}
