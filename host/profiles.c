/* host/profiles.c: where profiles live, and reading them (see profiles.h). */
#include "host/profiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mbedtls/sha256.h>

#include "common/cleanup.h"
#include "host/host.h"
#include "policy/paths.h"

const char *host_env_get(char *const envp[], const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

int host_config_dir(char *const envp[], char *out, size_t cap)
{
	const char *xdg = host_env_get(envp, "XDG_CONFIG_HOME");
	const char *home = host_env_get(envp, "HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(out, cap, "%s/porta", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, cap, "%s/.config/porta", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

size_t host_profile_builtin_dirs(char dirs[2][PATH_MAX], char *exe_out, size_t exe_cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	if (exe_out)
		snprintf(exe_out, exe_cap, "%s", exe);
	char *slash = strrchr(exe, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	size_t k = 0;
	if (snprintf(dirs[k], PATH_MAX, "%s/share/porta/profiles", exe) < PATH_MAX)
		k++;
	/* BIN is a real path (the kernel's), so BIN/.. is its parent */
	char *up = strrchr(exe, '/');
	if (up && snprintf(dirs[k], PATH_MAX, "%.*s/share/porta/profiles", (int)(up - exe), exe) <
			  PATH_MAX)
		k++;
	return k;
}

static bool name_valid(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
	return true;
}

/* Reads path whole into buf[cap]; *len its size.  -errno; -EFBIG when it
 * is larger than cap. */
static int read_small(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	_cleanup_fd_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			uint8_t probe;
			if (read(fd, &probe, 1) > 0)
				return -EFBIG;
			break;
		}
	}
	*len = n;
	return 0;
}

/* Where NAME is: the first of the user's and the built-in directories
 * that has it, into file[cap]; searched[scap] lists where it looked.
 * Returns 0 or -ENOENT. */
static int find_profile(const char *name, char *const envp[], char *file, size_t cap,
			char *searched, size_t scap)
{
	char dirs[3][PATH_MAX];
	size_t n = 0, used = 0;
	char cfg[PATH_MAX];
	if (host_config_dir(envp, cfg, sizeof(cfg)) == 0 &&
	    snprintf(dirs[n], PATH_MAX, "%s/profiles", cfg) < PATH_MAX)
		n++;
	char b[2][PATH_MAX];
	size_t nb = host_profile_builtin_dirs(b, NULL, 0);
	for (size_t i = 0; i < nb; i++)
		memcpy(dirs[n++], b[i], PATH_MAX);
	searched[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int w = snprintf(file, cap, "%s/%s", dirs[i], name);
		if (w > 0 && (size_t)w < cap && stat(file, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
		/* an installed porta's ../share is not worth naming when absent */
		if (i > 0 && stat(dirs[i], &st) < 0)
			continue;
		int m = snprintf(searched + used, scap - used, "%s%s", used ? ", " : "", dirs[i]);
		if (m > 0 && (size_t)m < scap - used)
			used += (size_t)m;
	}
	return -ENOENT;
}

int host_profile_load(const char *name, char *const envp[], struct policy_profile *out,
		      char *file, size_t cap, struct porta_error *e)
{
	if (strchr(name, '/')) {
		if ((size_t)snprintf(file, cap, "%s", name) >= cap)
			return porta_fail(e, "--profile", name, ENAMETOOLONG, NULL);
	} else {
		char searched[1024];
		if (!name_valid(name))
			return porta_fail(e, "--profile", name, 0,
					  "not a profile name (letters, digits, '.', '_', '-'; "
					  "a path needs a '/': ./%s)",
					  name);
		if (find_profile(name, envp, file, cap, searched, sizeof(searched)) < 0)
			return porta_fail(e, "--profile", name, 0,
					  "no such profile (looked in %s); 'porta profiles' lists them",
					  searched[0] ? searched : "no directory: neither HOME nor "
								  "XDG_CONFIG_HOME is set");
	}
	return host_profile_read(file, envp, out, NULL, e);
}

int host_profile_read(const char *file, char *const envp[], struct policy_profile *out,
		      uint8_t sha256[32], struct porta_error *e)
{
	_cleanup_free_ uint8_t *buf = malloc(POLICY_PROFILE_BYTES_MAX);
	size_t len = 0;
	if (!buf)
		return porta_fail(e, "profile", file, ENOMEM, NULL);
	/* Read through a link into a closed place (a credential, porta's own
	 * configuration from elsewhere), never: host_links_refused(). */
	{
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		char named[PATH_MAX], why[3 * PATH_MAX], cfg[PATH_MAX];
		_cleanup_free_ char *real = NULL;
		struct host_links *links = malloc(sizeof(*links));
		bool refused = false;
		if (links && cwd && policy_path_normalize(cwd, file, strlen(file), named, sizeof(named)) &&
		    (real = realpath(named, NULL)) &&
		    host_links_init(links, host_env_get(envp, "HOME"),
				    host_config_dir(envp, cfg, sizeof(cfg)) == 0 ? cfg : NULL, cwd,
				    NULL, 0, false, true) == 0) {
			refused = host_links_refused(links, named, real, why, sizeof(why));
			host_links_release(links);
		}
		free(links);
		if (refused)
			return porta_fail(e, "profile", file, 0, "%s", why);
	}
	int rc = read_small(file, buf, POLICY_PROFILE_BYTES_MAX, &len);
	if (rc == -EFBIG)
		return porta_fail(e, "profile", file, 0, "longer than %d bytes",
				  POLICY_PROFILE_BYTES_MAX);
	if (rc == -EINVAL)
		return porta_fail(e, "profile", file, 0, "not a regular file");
	if (rc < 0)
		return porta_fail(e, "profile", file, -rc, NULL);
	/* the bytes hashed are the bytes parsed: nothing can change between */
	if (sha256 && mbedtls_sha256_ret(buf, len, sha256, 0) != 0)
		return porta_fail(e, "profile", file, EIO, "SHA-256 failed");
	char why[POLICY_ERR_MAX];
	if (policy_profile_parse(buf, len, host_env_get(envp, "HOME"), out, why) !=
	    POLICY_PROFILE_OK)
		return porta_fail(e, "profile", file, 0, "%s", why); /* "FILE: line N: what" */
	return 0;
}

/* The first comment line of a profile (its description), into out[cap]. */
static void describe(const char *file, char *out, size_t cap)
{
	uint8_t buf[4096];
	out[0] = '\0';
	_cleanup_fd_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t got = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (got <= 0)
		return;
	size_t len = (size_t)got; /* the head of the file is enough */
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && buf[j] != '\n')
			j++;
		size_t k = i;
		while (k < j && (buf[k] == ' ' || buf[k] == '\t'))
			k++;
		if (k < j && buf[k] == '#') {
			k++;
			while (k < j && buf[k] == ' ')
				k++;
			size_t o = 0;
			for (; k < j && o + 1 < cap; k++)
				out[o++] = buf[k] >= 0x20 && buf[k] < 0x7f ? (char)buf[k] : '?';
			out[o] = '\0';
			return;
		}
		if (k < j)
			return; /* an option first: no description */
		i = j + 1;
	}
}

/* qsort over char[72] names */
static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* The names of the regular files in dir, sorted, into names[cap]. */
static size_t list_dir(const char *dir, char names[][72], size_t cap)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < cap) {
		if (!name_valid(de->d_name))
			continue;
		char p[PATH_MAX];
		struct stat st;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p) ||
		    stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		size_t l = strlen(de->d_name); /* name_valid(): at most 64 */
		memcpy(names[n++], de->d_name, l + 1);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_name);
	return n;
}

int host_profiles_list(FILE *out, char *const envp[])
{
	static char user[256][72], built[256][72];
	char cfg[PATH_MAX], udir[PATH_MAX + 16] = "", bdir[PATH_MAX] = "";
	size_t nu = 0, nb = 0;
	if (host_config_dir(envp, cfg, sizeof(cfg)) == 0) {
		snprintf(udir, sizeof(udir), "%s/profiles", cfg);
		nu = list_dir(udir, user, 256);
	}
	char b[2][PATH_MAX];
	size_t ndirs = host_profile_builtin_dirs(b, NULL, 0);
	for (size_t i = 0; i < ndirs && nb == 0; i++) {
		nb = list_dir(b[i], built, 256);
		if (nb) {
			char *real = realpath(b[i], NULL);
			snprintf(bdir, sizeof(bdir), "%s", real ? real : b[i]);
			free(real);
		}
	}
	char file[2 * PATH_MAX + 80], what[160];
	fprintf(out, "built-in profiles (%s):\n", nb ? bdir : "none found beside porta");
	for (size_t i = 0; i < nb; i++) {
		bool shadowed = false;
		for (size_t j = 0; j < nu; j++)
			shadowed = shadowed || strcmp(user[j], built[i]) == 0;
		snprintf(file, sizeof(file), "%s/%.64s", bdir, built[i]);
		describe(file, what, sizeof(what));
		fprintf(out, "  %-14s %s%s\n", built[i], what,
			shadowed ? "  [a user profile of this name is used instead]" : "");
	}
	fprintf(out, "user profiles (%s):\n", udir[0] ? udir : "none: neither HOME nor XDG_CONFIG_HOME is set");
	if (udir[0] && nu == 0)
		fprintf(out, "  none\n");
	for (size_t i = 0; i < nu; i++) {
		snprintf(file, sizeof(file), "%s/%.64s", udir, user[i]);
		describe(file, what, sizeof(what));
		fprintf(out, "  %-14s %s\n", user[i], what);
	}
	fprintf(out, "use one with: porta run --profile NAME [OPTIONS] -- COMMAND; "
		     "see it merged with: porta explain --profile NAME -- COMMAND\n");
	return 0;
}
