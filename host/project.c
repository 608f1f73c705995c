/* host/project.c: the project file and `porta trust` (see project.h). */
#include "host/project.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "host/profiles.h"

bool host_project_find(const char *dir, char *path, size_t cap)
{
	char d[PATH_MAX];
	if (!dir || dir[0] != '/' || (size_t)snprintf(d, sizeof(d), "%s", dir) >= sizeof(d))
		return false;
	for (;;) {
		struct stat st;
		size_t n = strlen(d);
		int w = snprintf(path, cap, "%s%s%s", d, n > 1 ? "/" : "", HOST_PROJECT_FILE);
		if (w > 0 && (size_t)w < cap && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return true;
		if (n <= 1)
			return false;
		char *slash = strrchr(d, '/');
		if (slash == d)
			d[1] = '\0';
		else
			*slash = '\0';
	}
}

static void hex(const uint8_t h[32], char out[65])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[h[i] >> 4];
		out[2 * i + 1] = digits[h[i] & 15];
	}
	out[64] = '\0';
}

/* The trust store's path: host_config_dir()/trusted. */
static int store_path(char *const envp[], char *out, size_t cap)
{
	char dir[PATH_MAX];
	int rc = host_config_dir(envp, dir, sizeof(dir));
	if (rc < 0)
		return rc;
	return (size_t)snprintf(out, cap, "%s/trusted", dir) < cap ? 0 : -ENAMETOOLONG;
}

/* The store's bytes (NULL and *len 0 when there is none yet). */
static char *store_read(const char *store, size_t *len)
{
	_cleanup_fd_ int fd = open(store, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 22))
		return NULL;
	char *buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	ssize_t n = read(fd, buf, (size_t)st.st_size);
	*len = n > 0 ? (size_t)n : 0;
	buf[*len] = '\0';
	return buf;
}

/* The store's lines "HEX PATH", one at a time: *line and *n the next from
 * *i on (without its newline); false at the end. */
static bool next_line(const char *text, size_t len, size_t *i, const char **line, size_t *n)
{
	if (!text || *i >= len)
		return false;
	*line = text + *i;
	const char *nl = memchr(*line, '\n', len - *i);
	*n = nl ? (size_t)(nl - *line) : len - *i;
	*i += *n + 1;
	return true;
}

/* Is line[0..n) the record of path? */
static bool record_of(const char *line, size_t n, const char *path)
{
	size_t plen = strlen(path);
	return n == 65 + plen && line[64] == ' ' && memcmp(line + 65, path, plen) == 0;
}

/* The hash recorded for path ("" when none); the last record wins. */
static void recorded(const char *store_text, size_t len, const char *path, char out[65])
{
	const char *line;
	size_t n;
	out[0] = '\0';
	for (size_t i = 0; next_line(store_text, len, &i, &line, &n);) {
		if (record_of(line, n, path)) {
			memcpy(out, line, 64);
			out[64] = '\0';
		}
	}
}

int host_project_load(const char *dir, char *const envp[], struct policy_profile *out,
		      char *path, size_t cap, struct porta_error *e)
{
	char store[PATH_MAX], want[65], got[65];
	uint8_t h[32];
	if (!host_project_find(dir, path, cap))
		return HOST_PROJECT_NONE;
	if (store_path(envp, store, sizeof(store)) < 0)
		return HOST_PROJECT_UNTRUSTED; /* no configuration directory: nothing trusted */
	size_t len;
	_cleanup_free_ char *text = store_read(store, &len);
	recorded(text ? text : "", len, path, want);
	if (!want[0])
		return HOST_PROJECT_UNTRUSTED;
	/* the hash is of the bytes read, taken before they are parsed; a file
	 * that cannot be read hashes as nothing, and cannot be the one trusted */
	memset(h, 0, sizeof(h));
	int rc = host_profile_read(path, envp, out, h, e);
	hex(h, got);
	if (strcmp(got, want) != 0)
		return HOST_PROJECT_CHANGED;
	if (rc < 0)
		return rc; /* the bytes trusted no longer parse: the parser changed */
	/* relative paths are the project's, from wherever porta runs below it */
	char pdir[PATH_MAX];
	snprintf(pdir, sizeof(pdir), "%s", path);
	char *slash = strrchr(pdir, '/');
	if (slash)
		*slash = '\0'; /* "" for a file in /: its paths become "/..." */
	if (!policy_profile_anchor(out, pdir))
		return porta_fail(e, "project file", path, 0, "too long once its paths are made "
							      "absolute");
	return HOST_PROJECT_TRUSTED;
}

int host_project_trust(const char *file, char *const envp[], FILE *out, struct porta_error *e)
{
	char found[PATH_MAX], store[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 32], h[65];
	uint8_t sum[32];
	static struct policy_profile p;

	if (!file) {
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		if (!cwd || !host_project_find(cwd, found, sizeof(found)))
			return porta_fail(e, "trust", cwd ? cwd : ".", 0,
					  "no %s here or in a parent directory", HOST_PROJECT_FILE);
	} else {
		_cleanup_free_ char *real = realpath(file, NULL);
		if (!real)
			return porta_fail(e, "trust", file, errno, NULL);
		snprintf(found, sizeof(found), "%s", real);
		const char *base = strrchr(found, '/');
		if (strcmp(base + 1, HOST_PROJECT_FILE) != 0)
			return porta_fail(e, "trust", file, 0,
					  "not a project file: porta uses files named %s only",
					  HOST_PROJECT_FILE);
	}
	int rc = host_profile_read(found, envp, &p, sum, e);
	if (rc < 0)
		return rc; /* a file that does not parse is not trusted */
	hex(sum, h);
	if (host_config_dir(envp, dir, sizeof(dir)) < 0 ||
	    store_path(envp, store, sizeof(store)) < 0)
		return porta_fail(e, "trust", found, 0,
				  "neither HOME nor XDG_CONFIG_HOME is set: nowhere to record it");
	/* the configuration directory, made private if absent */
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0700) < 0 && errno != EEXIST)
			return porta_fail(e, "trust", parent, errno, NULL);
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return porta_fail(e, "trust", dir, errno, NULL);

	/* every other line kept, this path's replaced; written whole, then
	 * renamed over the store, so a reader never sees half of it */
	size_t len;
	_cleanup_free_ char *text = store_read(store, &len);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", store, (long)getpid());
	/* never through a link at that name: O_EXCL creates it or fails */
	int tfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = tfd >= 0 ? fdopen(tfd, "w") : NULL;
	if (!f) {
		int err = errno;
		if (tfd >= 0)
			close(tfd);
		return porta_fail(e, "trust", tmp, err, NULL);
	}
	const char *line;
	size_t n;
	for (size_t i = 0; next_line(text, len, &i, &line, &n);) {
		if (n > 0 && !record_of(line, n, found))
			fprintf(f, "%.*s\n", (int)n, line);
	}
	fprintf(f, "%s %s\n", h, found);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		int err = errno;
		fclose(f);
		unlink(tmp);
		return porta_fail(e, "trust", tmp, err, NULL);
	}
	fclose(f);
	if (rename(tmp, store) < 0) {
		int err = errno;
		unlink(tmp);
		return porta_fail(e, "trust", store, err, NULL);
	}
	char *d = strrchr(found, '/');
	fprintf(out, "porta: trusted %s (sha256 %.16s...): porta run in %.*s and below now uses its "
		     "%zu option words; a change to it makes it untrusted again\n",
		found, h, (int)(d == found ? 1 : d - found), found, p.n);
	return 0;
}
