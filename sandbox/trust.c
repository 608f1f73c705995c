/* sandbox/trust.c: porta's run CA in the sandbox's trust store
 * (trust.h). */
#include "sandbox/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

const char *const sandbox_trust_bundles[] = {
	"/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Alpine, Gentoo */
	"/etc/pki/tls/certs/ca-bundle.crt",                  /* Fedora, RHEL */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7+, CentOS */
	"/etc/ssl/ca-bundle.pem",                            /* openSUSE */
	"/etc/ca-certificates/extracted/tls-ca-bundle.pem",  /* Arch */
	"/etc/pki/tls/cacert.pem",                           /* OpenELEC */
	"/etc/ssl/cert.pem",                                 /* Alpine, OpenBSD's layout */
	NULL,
};

const char *const sandbox_trust_env_names[] = {
	"SSL_CERT_FILE",       /* OpenSSL, Python's ssl, Go, Ruby, rustls-native-certs */
	"NODE_EXTRA_CA_CERTS", /* Node: added to its built-in roots (npm too) */
	"REQUESTS_CA_BUNDLE",  /* Python requests (and pip's vendored copy) */
	"CURL_CA_BUNDLE",      /* curl built against OpenSSL */
	"PIP_CERT",            /* pip --cert */
	"GIT_SSL_CAINFO",      /* git's http.sslCAInfo */
	"CARGO_HTTP_CAINFO",   /* cargo's http.cainfo */
	"AWS_CA_BUNDLE",       /* AWS CLI and SDKs */
	"DENO_CERT",           /* Deno */
	NULL,
};

/* Bundles larger than this are not a trust store (Debian's is ~220 KiB). */
#define TRUST_BUNDLE_MAX (16u << 20)

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies the host's bundle at `path` into a new file `name` of the
 * detached tmpfs mnt, then the PEM, with a newline between them should the
 * bundle not end in one. */
static int fill(int mnt, const char *name, const char *path, const char *pem, size_t pem_len)
{
	_cleanup_fd_ int in = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (in < 0)
		return -errno;
	_cleanup_fd_ int out = openat(mnt, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (out < 0)
		return -errno;
	char buf[65536];
	size_t total = 0;
	char last = '\n';
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (total > TRUST_BUNDLE_MAX)
			return -EFBIG;
		last = buf[n - 1];
		int r = write_all(out, buf, (size_t)n);
		if (r)
			return r;
	}
	static const char label[] = "\n# porta: this run's certificate authority (porta run --secret/--allow-http)\n";
	int r = write_all(out, label + (last == '\n'), sizeof(label) - 1 - (last == '\n'));
	if (r == 0)
		r = write_all(out, pem, pem_len);
	return r;
}

#define TRUST_N_SYSTEM (sizeof(sandbox_trust_bundles) / sizeof(sandbox_trust_bundles[0]) - 1)
#define TRUST_N_NAMES (sizeof(sandbox_trust_env_names) / sizeof(sandbox_trust_env_names[0]) - 1)
#define TRUST_N_MAX (TRUST_N_SYSTEM + TRUST_N_NAMES)

struct trust_target {
	const char *path;    /* as listed or named */
	char real[PATH_MAX]; /* resolved: what is covered */
};

/* The bundles of paths[0..n) that exist here as regular files, resolved,
 * each file once, appended to t[*count..). */
static void find_bundles(const char *const *paths, size_t n, struct trust_target t[TRUST_N_MAX],
			 struct stat seen[TRUST_N_MAX], size_t *count)
{
	for (size_t i = 0; i < n && *count < TRUST_N_MAX; i++) {
		struct stat st;
		size_t k = *count;
		if (!paths[i] || !realpath(paths[i], t[k].real) || stat(t[k].real, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue; /* not on this host */
		bool dup = false;
		for (size_t j = 0; j < k; j++)
			dup |= seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino;
		if (dup)
			continue; /* a link to a bundle already covered */
		seen[k] = st;
		t[k].path = paths[i];
		(*count)++;
	}
}

int sandbox_trust_install(const char *pem, size_t pem_len, char *const envp[],
			  const char **primary, struct porta_error *e)
{
	struct trust_target t[TRUST_N_MAX];
	struct stat seen[TRUST_N_MAX];
	const char *named[TRUST_N_NAMES];
	char name[32];
	size_t n = 0;
	int r;

	*primary = NULL;
	find_bundles(sandbox_trust_bundles, TRUST_N_SYSTEM, t, seen, &n);
	size_t n_system = n;
	/* a bundle the user's own variables name is kept as theirs, so it
	 * gets porta's CA too, or a program reading it would refuse porta */
	for (size_t i = 0; i < TRUST_N_NAMES; i++) {
		size_t l = strlen(sandbox_trust_env_names[i]);
		named[i] = NULL;
		for (size_t k = 0; envp && envp[k]; k++) {
			if (strncmp(envp[k], sandbox_trust_env_names[i], l) == 0 && envp[k][l] == '=')
				named[i] = envp[k] + l + 1;
		}
	}
	find_bundles(named, TRUST_N_NAMES, t, seen, &n);
	if (n_system == 0)
		return porta_fail(e, "find the system trust bundle", sandbox_trust_bundles[0], ENOENT,
				  "TLS termination needs one to add porta's CA to "
				  "(Debian: apt-get install ca-certificates)");
	_cleanup_fd_ int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return porta_fail(e, "fsopen", "tmpfs", errno, "for the trust bundle");
	if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return porta_fail(e, "create a tmpfs", NULL, errno, "for the trust bundle");
	_cleanup_fd_ int mnt =
		fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return porta_fail(e, "fsmount", "tmpfs", errno, "for the trust bundle");
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bundle%zu", i);
		if ((r = fill(mnt, name, t[i].real, pem, pem_len)))
			return porta_fail(e, "copy the trust bundle", t[i].real, -r, NULL);
	}
	/* read-only before anything is bound: no moment where the command
	 * could find the copies writable */
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	if (mount_setattr(mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return porta_fail(e, "make the trust bundle read-only", NULL, errno, NULL);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bundle%zu", i);
		_cleanup_fd_ int tree = open_tree(mnt, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (tree < 0)
			return porta_fail(e, "open_tree", t[i].real, errno, "the trust bundle's copy");
		if (move_mount(tree, "", AT_FDCWD, t[i].real, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return porta_fail(e, "mount the trust bundle over", t[i].real, errno, NULL);
	}
	*primary = t[0].path;
	return 0;
}

int sandbox_trust_env_kept(char *const envp[], const char *name)
{
	size_t l = strlen(name);
	for (size_t i = 0; envp[i]; i++) {
		if (strncmp(envp[i], name, l) == 0 && envp[i][l] == '=')
			return 1;
	}
	return 0;
}

char **sandbox_trust_env(char *const envp[], const char *bundle)
{
	size_t n = 0, k = 0;
	while (envp[n])
		n++;
	char **out = calloc(n + sizeof(sandbox_trust_env_names) / sizeof(char *) + 1, sizeof(char *));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		out[k++] = envp[i];
	for (size_t i = 0; sandbox_trust_env_names[i]; i++) {
		if (sandbox_trust_env_kept(envp, sandbox_trust_env_names[i]))
			continue;
		size_t len = strlen(sandbox_trust_env_names[i]) + 1 + strlen(bundle) + 1;
		char *s = malloc(len);
		if (!s)
			return NULL; /* the caller dies of ENOMEM; nothing to reclaim */
		snprintf(s, len, "%s=%s", sandbox_trust_env_names[i], bundle);
		out[k++] = s;
	}
	out[k] = NULL;
	return out;
}
