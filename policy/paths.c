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
