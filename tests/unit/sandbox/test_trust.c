/* tests/unit/sandbox/test_trust.c: porta's run CA added to the trust store
 * inside (sandbox/trust.h), in user and mount namespaces of the test's own
 * (docs/style.md §13: each check in a forked child; the parent asserts what
 * the child reports).  The host's bundle is read before and after: it must
 * never change. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/trust.h"

#define BUNDLE "/etc/ssl/certs/ca-certificates.crt"
#define PEM "-----BEGIN CERTIFICATE-----\nTUlJQnBvcnRhLXRlc3Q=\n-----END CERTIFICATE-----\n"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len + 65536 > cap) {
			cap = (*len + 65536) * 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		_exit(90);
	close(fd);
}

/* What a child reports: one int each, 0 or an errno, and the primary path. */
enum { R_SETUP, R_INSTALL, R_CONTENT, R_WRITE, R_HIDDEN, R_COUNT };
struct report {
	int r[R_COUNT];
	char primary[128];
	char error[256];
};

static void child(const char *host, size_t host_len, int out)
{
	struct report rep = { .r = { 0 } };
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
		rep.r[R_SETUP] = errno;
		goto done;
	}
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		rep.r[R_SETUP] = errno;
		goto done;
	}
	struct porta_error e;
	const char *primary = NULL;
	rep.r[R_INSTALL] = -sandbox_trust_install(PEM, strlen(PEM), NULL, &primary, &e);
	if (rep.r[R_INSTALL]) {
		porta_error_format(&e, rep.error, sizeof(rep.error));
		goto done;
	}
	snprintf(rep.primary, sizeof(rep.primary), "%s", primary);
	/* the host's bytes, porta's label line, then the PEM */
	size_t len;
	char *in = slurp(BUNDLE, &len);
	rep.r[R_CONTENT] = !in || len < host_len + strlen(PEM) || memcmp(in, host, host_len) != 0 ||
			   memcmp(in + len - strlen(PEM), PEM, strlen(PEM)) != 0 ||
			   !strstr(in + host_len, "porta");
	free(in);
	/* uid 0 of this namespace passes mode bits: only the mount refuses */
	int fd = open(BUNDLE, O_WRONLY | O_CLOEXEC);
	rep.r[R_WRITE] = fd < 0 ? errno : 0;
	/* no mount of the copies anywhere but over a bundle */
	size_t ml;
	char *mi = slurp("/proc/self/mountinfo", &ml);
	rep.r[R_HIDDEN] = 0;
	for (char *line = mi ? strtok(mi, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char root[512], mp[512];
		/* "id parent major:minor root mount-point ...": a copy is a
		 * tmpfs mount whose root is /bundleN */
		if (!strstr(line, " - tmpfs ") ||
		    sscanf(line, "%*s %*s %*s %511s %511s", root, mp) != 2 ||
		    strncmp(root, "/bundle", 7) != 0)
			continue;
		bool known = false;
		for (size_t i = 0; sandbox_trust_bundles[i]; i++) {
			char real[4096];
			known |= realpath(sandbox_trust_bundles[i], real) && strcmp(real, mp) == 0;
		}
		rep.r[R_HIDDEN] |= !known;
		rep.r[R_HIDDEN] |= 2 * (strcmp(mp, BUNDLE) == 0); /* seen where expected */
	}
	free(mi);
done:
	(void)!write(out, &rep, sizeof(rep));
	_exit(0);
}

static struct report run(const char *host, size_t host_len)
{
	int p[2];
	struct report rep;
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		child(host, host_len, p[1]);
	}
	close(p[1]);
	cr_assert_eq(read(p[0], &rep, sizeof(rep)), (ssize_t)sizeof(rep));
	close(p[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return rep;
}

Test(trust, bundle_covered_read_only_host_untouched)
{
	size_t host_len;
	char *host = slurp(BUNDLE, &host_len);
	if (!host)
		cr_skip_test("no %s on this host (ca-certificates not installed)", BUNDLE);
	struct report rep = run(host, host_len);
	if (rep.r[R_SETUP] == EPERM || rep.r[R_SETUP] == ENOSPC)
		cr_skip_test("no user namespaces here (%s)", strerror(rep.r[R_SETUP]));
	cr_assert_eq(rep.r[R_SETUP], 0, "setup: %s", strerror(rep.r[R_SETUP]));
	cr_assert_eq(rep.r[R_INSTALL], 0, "install: %s", rep.error);
	cr_assert_str_eq(rep.primary, BUNDLE);
	cr_assert_eq(rep.r[R_CONTENT], 0, "the bundle inside is not the host's plus the PEM");
	cr_assert_eq(rep.r[R_WRITE], EROFS, "open for writing: %s", strerror(rep.r[R_WRITE]));
	cr_assert_eq(rep.r[R_HIDDEN], 2, "a copy is mounted somewhere else, or not over %s (%d)", BUNDLE,
		     rep.r[R_HIDDEN]);
	size_t after_len;
	char *after = slurp(BUNDLE, &after_len);
	cr_assert(after && after_len == host_len && memcmp(after, host, host_len) == 0,
		  "the host's bundle changed");
	free(after);
	free(host);
}

Test(trust, env_sets_each_name_but_keeps_the_users_own)
{
	char *envp[] = { "PATH=/usr/bin", "GIT_SSL_CAINFO=/home/u/corp.pem", NULL };
	char **out = sandbox_trust_env(envp, BUNDLE);
	cr_assert(out);
	size_t set = 0;
	bool git_kept = false;
	for (size_t i = 0; out[i]; i++) {
		if (strcmp(out[i], "GIT_SSL_CAINFO=/home/u/corp.pem") == 0)
			git_kept = true;
		for (size_t k = 0; sandbox_trust_env_names[k]; k++) {
			size_t l = strlen(sandbox_trust_env_names[k]);
			if (strncmp(out[i], sandbox_trust_env_names[k], l) == 0 && out[i][l] == '=' &&
			    strcmp(out[i] + l + 1, BUNDLE) == 0)
				set++;
		}
	}
	cr_assert(git_kept, "the user's own GIT_SSL_CAINFO was replaced");
	size_t names = 0;
	while (sandbox_trust_env_names[names])
		names++;
	cr_assert_eq(set, names - 1, "every name but the user's set to the bundle");
	cr_assert(sandbox_trust_env_kept(envp, "GIT_SSL_CAINFO"));
	cr_assert_not(sandbox_trust_env_kept(envp, "SSL_CERT_FILE"));
	/* the new strings are the function's (the payload execs and never
	 * frees them); here they go, and the array */
	for (size_t i = 2; out[i]; i++)
		free(out[i]);
	free(out);
}
