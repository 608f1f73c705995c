/* host/links.c: a path the user named, followed through links, may not
 * land in a place porta closes (see host.h, host_links_*). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "host/host.h"
#include "policy/paths.h"
#include "policy/preset.h"

/* realpath(3) of the deepest part of path that exists, the rest appended
 * as named.  0 or -errno. */
int host_real_path_as_far(const char *path, char *out, size_t cap)
{
	char p[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, len + 1);
	for (;;) {
		char *real = realpath(p[0] ? p : "/", NULL);
		if (real) {
			const char *rest = path + strlen(p);
			int n = snprintf(out, cap, "%s%s", strcmp(real, "/") == 0 && *rest ? "" : real,
					 rest);
			free(real);
			return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		char *slash = strrchr(p, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
	}
}

static void set_places(struct policy_closed_places *c, const char *home, const char *config,
		       char *const *deny, size_t n_deny, bool strict, bool preset)
{
	memset(c, 0, sizeof(*c));
	c->home = home && home[0] ? home : NULL;
	c->config_dir = config;
	c->deny_read = deny;
	c->n_deny_read = n_deny;
	c->home_hidden = strict;
	if (preset) {
		c->credentials = policy_preset_credentials(&c->n_credentials);
		c->protected_names = policy_preset_protected(&c->n_protected);
	}
}

int host_links_init(struct host_links *l, const char *home, const char *config_dir,
		    const char *cwd, const char *const *deny_read, size_t n_deny, bool strict,
		    bool preset)
{
	const char *dir = config_dir;
	char named[PATH_MAX], real[PATH_MAX];

	memset(l, 0, sizeof(*l));
	if (home && home[0] == '/' &&
	    policy_path_normalize("/", home, strlen(home), named, sizeof(named))) {
		l->home_real = realpath(named, NULL);
		if (!(l->home_named = strdup(named)) ||
		    (!l->home_real && !(l->home_real = strdup(named))))
			goto oom;
	}
	if (dir && dir[0] == '/' && policy_path_normalize("/", dir, strlen(dir), named, sizeof(named))) {
		real[0] = '\0';
		(void)host_real_path_as_far(named, real, sizeof(real));
		if (!(l->config_named = strdup(named)) || !(l->config_real = strdup(real)))
			goto oom;
	}
	for (size_t i = 0; i < n_deny && l->n_deny < HOST_LINKS_DENY_MAX; i++) {
		if (!policy_path_normalize(cwd, deny_read[i], strlen(deny_read[i]), named,
					   sizeof(named)) ||
		    host_real_path_as_far(named, real, sizeof(real)) < 0)
			continue;
		if (!(l->deny_named[l->n_deny] = strdup(named)) ||
		    !(l->deny_real[l->n_deny] = strdup(real))) {
			free(l->deny_named[l->n_deny]);
			goto oom;
		}
		l->n_deny++;
	}
	set_places(&l->named, l->home_named, l->config_named, l->deny_named, l->n_deny, strict,
		   preset);
	set_places(&l->real, l->home_real, l->config_real, l->deny_real, l->n_deny, strict, preset);
	return 0;
oom:
	host_links_release(l);
	return -ENOMEM;
}

void host_links_release(struct host_links *l)
{
	for (size_t i = 0; i < l->n_deny; i++) {
		free(l->deny_named[i]);
		free(l->deny_real[i]);
	}
	l->n_deny = 0;
	free(l->home_named);
	free(l->home_real);
	free(l->config_named);
	free(l->config_real);
	l->home_named = l->home_real = l->config_named = l->config_real = NULL;
}

/* The first component of named (absolute, normalized) that is a symbolic
 * link: its path into link[cap] and what it says into target[cap]; false
 * when none is (the difference came from elsewhere, or the path changed). */
static bool first_link(const char *named, char *link, size_t lcap, char *target, size_t tcap)
{
	char p[PATH_MAX];
	size_t len = strlen(named);

	if (len >= sizeof(p))
		return false;
	memcpy(p, named, len + 1);
	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';
		if (*s == '/' || end) {
			char keep = *s;
			*s = '\0';
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
				ssize_t n = readlink(p, target, tcap - 1);
				target[n < 0 ? 0 : n] = '\0';
				snprintf(link, lcap, "%s", p);
				return true;
			}
			*s = keep;
		}
		if (end)
			return false;
	}
}

/* The message of a refusal.  Not inlined: its 20 KiB of buffers would be
 * in host_links_refused()'s frame, and -fstack-clash-protection probes
 * every page of a frame at each call, refused or not: pages faulted in at
 * every start (docs/benchmarks/startup.md). */
static __attribute__((noinline)) void say_refused(const char *named, const char *real,
						  enum policy_path_reason reason, char *why,
						  size_t cap)
{
	char link[PATH_MAX], target[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64], c[PATH_MAX + 64];

	if (!first_link(named, link, sizeof(link), target, sizeof(target))) {
		snprintf(link, sizeof(link), "%s", named);
		snprintf(target, sizeof(target), "%s", real);
	}
	log_escape(link, strlen(link), a, sizeof(a));
	log_escape(target, strlen(target), b, sizeof(b));
	log_escape(real, strlen(real), c, sizeof(c));
	snprintf(why, cap,
		 "%s is a symbolic link to %s, so this leads to %s, which porta closes (%s); "
		 "porta does not follow a link into a closed place (a command may have made it): "
		 "name %s itself to reopen it, or remove the link",
		 a, b, c, policy_path_reason_words(reason), c);
}

bool host_links_refused(const struct host_links *l, const char *named, const char *real,
			char *why, size_t cap)
{
	enum policy_path_reason r_real, r_named;

	if (strcmp(named, real) == 0 || !policy_closed_place(&l->real, real, &r_real))
		return false;
	/* named literally: a closed place reopened by its own name */
	if (policy_closed_place(&l->named, named, &r_named) ||
	    policy_closed_place(&l->real, named, &r_named))
		return false;
	say_refused(named, real, r_real, why, cap);
	return true;
}
