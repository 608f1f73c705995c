/* policy/paths.c: see paths.h. */
#include "policy/paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

size_t policy_path_normalize(const char *base, const char *path, size_t len, char *out,
			     size_t cap)
{
	size_t o = 0;

	if (len == 0 || cap < 2)
		return 0;
	out[o++] = '/';
	/* Two passes over one routine: first the base (when path is relative),
	 * then the path itself. */
	for (int pass = 0; pass < 2; pass++) {
		const char *s;
		size_t n;
		if (pass == 0) {
			if (path[0] == '/')
				continue;
			if (!base || base[0] != '/')
				return 0;
			s = base;
			n = strlen(base);
		} else {
			s = path;
			n = len;
		}
		size_t i = 0;
		while (i < n) {
			while (i < n && s[i] == '/')
				i++;
			size_t start = i;
			while (i < n && s[i] != '/')
				i++;
			size_t clen = i - start;
			if (clen == 0 || (clen == 1 && s[start] == '.'))
				continue;
			if (clen == 2 && s[start] == '.' && s[start + 1] == '.') {
				/* drop the last component, never above "/" */
				while (o > 1 && out[o - 1] != '/')
					o--;
				if (o > 1)
					o--;
				continue;
			}
			if (memchr(s + start, '\0', clen))
				return 0;
			size_t need = (o > 1 ? 1 : 0) + clen;
			if (o + need + 1 > cap)
				return 0;
			if (o > 1)
				out[o++] = '/';
			memcpy(out + o, s + start, clen);
			o += clen;
		}
	}
	out[o] = '\0';
	return o;
}

size_t policy_path_join(const char *dir, const char *name, char *out, size_t cap)
{
	return policy_path_normalize(dir, name, strlen(name), out, cap);
}

bool policy_path_is_under(const char *dir, const char *path)
{
	size_t dl = strlen(dir);

	if (dl == 1 && dir[0] == '/')
		return path[0] == '/';
	if (strncmp(dir, path, dl) != 0)
		return false;
	return path[dl] == '\0' || path[dl] == '/';
}

size_t policy_path_aside_name(const char *name, long pid, unsigned k, char *out, size_t cap)
{
	char buf[NAME_MAX + 2];
	int n = k == 0 ? snprintf(buf, sizeof(buf), "%s.porta-refused-%ld", name, pid)
		       : snprintf(buf, sizeof(buf), "%s.porta-refused-%ld-%u", name, pid, k + 1);

	if (!name[0] || strchr(name, '/') || n < 0 || (size_t)n > NAME_MAX || (size_t)n >= cap)
		return 0;
	memcpy(out, buf, (size_t)n + 1);
	return (size_t)n;
}

/* True when the last components of path equal the first k >= 1 components
 * of name, or name's components appear in path as a whole run of
 * components ending at the end of path or before a '/'. */
static bool holds_or_under_name(const char *path, const char *name)
{
	size_t plen = strlen(path), nlen = strlen(name);

	/* path at or beneath some X/name: "/name" as whole components */
	for (const char *p = path; (p = strstr(p, "/")) != NULL; p++) {
		if (strncmp(p + 1, name, nlen) == 0 && (p[1 + nlen] == '\0' || p[1 + nlen] == '/'))
			return true;
	}
	/* path a directory that holds name at its top: path ends with the
	 * first k components of name ("/.git" for ".git/hooks") */
	for (size_t k = 0; k < nlen; k++) {
		if (name[k] != '/')
			continue;
		if (plen > k && path[plen - k - 1] == '/' && strncmp(path + plen - k, name, k) == 0)
			return true;
	}
	return false;
}

bool policy_closed_place(const struct policy_closed_places *c, const char *path,
			 enum policy_path_reason *reason)
{
	char p[4096];

	if (c->home) {
		for (size_t i = 0; i < c->n_credentials; i++) {
			if (policy_path_join(c->home, c->credentials[i], p, sizeof(p)) &&
			    policy_path_is_under(p, path)) {
				*reason = POLICY_PATH_CREDENTIAL;
				return true;
			}
		}
	}
	for (size_t i = 0; i < c->n_deny_read; i++) {
		if (policy_path_is_under(c->deny_read[i], path)) {
			*reason = POLICY_PATH_DENY_READ;
			return true;
		}
	}
	if (c->config_dir && c->config_dir[0] && policy_path_is_under(c->config_dir, path)) {
		*reason = POLICY_PATH_PORTA_CONFIG;
		return true;
	}
	for (size_t i = 0; i < c->n_protected; i++) {
		if (holds_or_under_name(path, c->protected_names[i])) {
			*reason = POLICY_PATH_PROTECTED;
			return true;
		}
	}
	if (c->home_hidden && c->home && policy_path_is_under(c->home, path)) {
		*reason = POLICY_PATH_HOME_CLOSED;
		return true;
	}
	return false;
}
