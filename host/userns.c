/* host/userns.c: what a user namespace gives porta here, and what to do
 * about it (see host.h: host_userns_probe(), host_userns_advice()). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host.h"

/* What one probe child found, sent up a pipe. */
struct probe_result {
	int mode;
	int err;
	char step[128];
};

static void probe_send(int fd, int mode, int err, const char *step)
{
	struct probe_result r = { .mode = mode, .err = err };

	snprintf(r.step, sizeof(r.step), "%s", step);
	(void)!write(fd, &r, sizeof(r));
}

static int write_proc(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, data, strlen(data)) != (ssize_t)strlen(data))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* The probe child: porta's clone and init's first steps, in the same order
 * and under the same names (sandbox/child.c, sandbox/mounts.c), reported
 * on fd.  Never returns. */
static __attribute__((noreturn)) void probe_child(int fd, uid_t uid, gid_t gid)
{
	char map[64];
	int err;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
		    CLONE_NEWUTS) < 0) {
		probe_send(fd, HOST_USERNS_REFUSED, errno, "unshare");
		_exit(0);
	}
	if ((err = write_proc("/proc/self/setgroups", "deny"))) {
		probe_send(fd, HOST_USERNS_NO_CAPS, err, "write /proc/self/setgroups");
		_exit(0);
	}
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if ((err = write_proc("/proc/self/uid_map", map))) {
		probe_send(fd, HOST_USERNS_NO_CAPS, err, "write /proc/self/uid_map");
		_exit(0);
	}
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if ((err = write_proc("/proc/self/gid_map", map))) {
		probe_send(fd, HOST_USERNS_NO_CAPS, err, "write /proc/self/gid_map");
		_exit(0);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		probe_send(fd, HOST_USERNS_NO_CAPS, errno, "make / private");
		_exit(0);
	}
	/* pid 1 of the new PID namespace mounts its /proc, as init does */
	pid_t pid = fork();
	if (pid == 0) {
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			probe_send(fd, HOST_USERNS_NO_CAPS, errno, "mount /proc");
		else if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
			probe_send(fd, HOST_USERNS_NO_CAPS, errno, "mount private tmpfs on /tmp");
		else
			probe_send(fd, HOST_USERNS_FULL, 0, "");
		_exit(0);
	}
	if (pid < 0)
		probe_send(fd, HOST_USERNS_NO_CAPS, errno, "fork in the new PID namespace");
	else
		waitpid(pid, NULL, 0);
	_exit(0);
}

void host_userns_probe(struct host_userns *out)
{
	struct probe_result r = { .mode = HOST_USERNS_REFUSED, .err = EIO, .step = "probe" };
	int p[2];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (pipe2(p, O_CLOEXEC) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			close(p[0]);
			probe_child(p[1], uid, gid);
		}
		close(p[1]);
		if (pid > 0) {
			/* a child that died says nothing: a read of 0 bytes */
			if (read(p[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
				r = (struct probe_result){ .mode = HOST_USERNS_REFUSED, .err = EIO,
							   .step = "probe" };
			waitpid(pid, NULL, 0);
		}
		close(p[0]);
	}
	out->mode = (enum host_userns_mode)r.mode;
	out->err = r.err;
	r.step[sizeof(r.step) - 1] = '\0';
	snprintf(out->step, sizeof(out->step), "%s", r.step);
}

bool host_userns_available(void)
{
	struct host_userns u;

	host_userns_probe(&u);
	return u.mode == HOST_USERNS_FULL;
}

/* A number at the start of a file, or -1 (absent, unreadable). */
static long read_number(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* "Seccomp:\t<mode>" of /proc/self/status: 0, 1 (strict) or 2 (filter). */
static int seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

void host_userns_facts(const struct host_userns *ns, struct host_userns_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->ns = *ns;
	f->apparmor_restrict = read_number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	f->unprivileged_userns_clone = read_number("/proc/sys/kernel/unprivileged_userns_clone");
	f->max_user_namespaces = read_number("/proc/sys/user/max_user_namespaces");
	f->seccomp = seccomp_mode();
	/* the files Docker and Podman leave in a container's root */
	if (access("/.dockerenv", F_OK) == 0)
		f->container = "Docker";
	else if (access("/run/.containerenv", F_OK) == 0)
		f->container = "Podman";
	else if (getenv("container"))
		f->container = "a container";
}

static bool is_step(const struct host_userns *ns, const char *prefix)
{
	return strncmp(ns->step, prefix, strlen(prefix)) == 0;
}

size_t host_userns_advice(const struct host_userns_facts *f, const char *apparmor_file,
			  void (*emit)(const char *line, void *arg), void *arg)
{
	const struct host_userns *ns = &f->ns;
	char line[768];
	size_t n = 0;
	bool container_fix = f->container != NULL;

#define SAY(...)                                                    \
	do {                                                        \
		snprintf(line, sizeof(line), __VA_ARGS__);          \
		emit(line, arg);                                    \
		n++;                                                \
	} while (0)

	if (ns->mode == HOST_USERNS_FULL)
		return 0;
	if (ns->mode == HOST_USERNS_REFUSED) {
		SAY("this host refuses to make a user namespace (%s)", strerror(ns->err));
		if (f->seccomp == 2) {
			SAY("porta runs under a seccomp filter (Seccomp: 2 in /proc/self/status) that "
			    "refuses it, as Docker's default profile refuses CLONE_NEWUSER to a "
			    "container without CAP_SYS_ADMIN");
			container_fix = true;
		}
		if (f->max_user_namespaces == 0)
			SAY("user.max_user_namespaces is 0: as root, 'sysctl -w "
			    "user.max_user_namespaces=10000' allows them");
		if (f->unprivileged_userns_clone == 0)
			SAY("kernel.unprivileged_userns_clone is 0: as root, 'sysctl -w "
			    "kernel.unprivileged_userns_clone=1' allows them");
	} else {
		SAY("this host makes a user namespace but refuses porta what it needs inside "
		    "it: %s: %s",
		    ns->step, strerror(ns->err));
		if (f->apparmor_restrict == 1) {
			SAY("Ubuntu's AppArmor restriction is on "
			    "(kernel.apparmor_restrict_unprivileged_userns=1): it takes every "
			    "capability away inside a user namespace made by a program whose AppArmor "
			    "profile does not grant 'userns'");
			SAY("for the full sandbox, load the profile porta ships, which grants it to "
			    "the installed porta only: sudo install -m 0644 %s /etc/apparmor.d/porta "
			    "&& sudo apparmor_parser -r /etc/apparmor.d/porta (the .deb package does "
			    "this by itself)",
			    apparmor_file);
		} else if (f->seccomp == 2 && !is_step(ns, "mount /proc")) {
			SAY("porta runs under a seccomp filter (Seccomp: 2 in /proc/self/status) that "
			    "refuses it: a container's or a launcher's (on Ubuntu's AppArmor "
			    "restriction the same call fails the same way)");
			container_fix = true;
		}
		if (is_step(ns, "mount /proc")) {
			SAY("/proc here has masked or read-only parts, as a container's has, so a "
			    "fresh /proc cannot be mounted over it");
			container_fix = true;
		}
	}
	if (container_fix)
		SAY("in a container (%s), the full sandbox needs: Docker: --security-opt "
		    "seccomp=unconfined --security-opt apparmor=unconfined --security-opt "
		    "systempaths=unconfined; Podman: --security-opt unmask=ALL (and --security-opt "
		    "seccomp=unconfined under rootful Docker-like profiles); README, 'Containers', "
		    "says what each costs the container",
		    f->container ? f->container : "if this is one");
	SAY("or run as it is: porta chooses the degraded mode by itself, with Landlock and "
	    "seccomp, and prints one line for each protection lost ('porta explain' shows them "
	    "for a command)");
#undef SAY
	return n;
}
