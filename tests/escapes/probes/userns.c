/*
 * Row 13: enter a new user namespace (or any other new namespace).
 *
 * A new user namespace hands the program every capability over its own
 * namespaces, which is the usual first step of a kernel or sandbox escape.
 * Attempts: unshare() of each CLONE_NEW* flag alone and with CLONE_NEWUSER,
 * clone() with each flag alone and with CLONE_NEWUSER, and clone3() with a
 * valid struct clone_args. A successful clone's child checks that its
 * /proc/self/ns link really changed before it reports success, so a call
 * that "succeeds" without creating anything is not counted.
 *
 * Control: unsandboxed, CLONE_NEWUSER (and any flag combined with it) works
 * for an unprivileged user on a host that allows user namespaces, and every
 * flag alone works for root.
 */
#include "probe.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

struct nsflag {
	const char *name;
	unsigned long flag;
	const char *nsfile; /* /proc/self/ns/<nsfile> changes when it works */
};

static const struct nsflag flags[] = {
	{ "NEWUSER", CLONE_NEWUSER, "user" },
	{ "NEWNS", CLONE_NEWNS, "mnt" },
	{ "NEWPID", CLONE_NEWPID, "pid_for_children" },
	{ "NEWNET", CLONE_NEWNET, "net" },
	{ "NEWUTS", CLONE_NEWUTS, "uts" },
	{ "NEWIPC", CLONE_NEWIPC, "ipc" },
	{ "NEWCGROUP", CLONE_NEWCGROUP, "cgroup" },
	{ "NEWTIME", CLONE_NEWTIME, "time_for_children" },
};

static ino_t ns_ino(const char *nsfile)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/self/ns/%s", nsfile);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* In a child that may or may not be in new namespaces: exit 0 iff it is. */
static int __attribute__((noreturn)) child_verdict(ino_t before, const char *nsfile)
{
	ino_t after = ns_ino(nsfile);
	/* Without /proc we cannot tell: the call's success is the evidence. */
	_exit(before == 0 || after == 0 || before != after ? 0 : 3);
}

static void report_child(const char *name, long pid, int err)
{
	if (pid < 0) {
		probe_fail(name, err);
		return;
	}
	int status;
	while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		probe_ok(name, 0);
	else
		dprintf(STDOUT_FILENO, "RESULT %s fail NOCHANGE\n", name);
}

static const struct nsflag *cur;
static unsigned long cur_extra;

static void try_unshare(const char *name)
{
	ino_t before = ns_ino(cur->nsfile);
	unsigned long f = cur->flag | cur_extra;
	if (unshare((int)f) < 0) {
		probe_fail(name, errno);
		return;
	}
	ino_t after = ns_ino(cur->nsfile);
	if (before && after && before == after)
		dprintf(STDOUT_FILENO, "RESULT %s fail NOCHANGE\n", name);
	else
		probe_ok(name, 0);
}

static void try_clone(const char *name)
{
	ino_t before = ns_ino(cur->nsfile);
	/* Raw clone with no new stack behaves like fork(). */
	long pid = syscall(SYS_clone, cur->flag | cur_extra | SIGCHLD, 0, 0, 0, 0);
	int err = errno;
	if (pid == 0)
		child_verdict(before, cur->nsfile);
	report_child(name, pid, err);
}

static void try_clone3(const char *name)
{
	ino_t before = ns_ino(cur->nsfile);
	struct clone_args args;
	memset(&args, 0, sizeof args);
	args.flags = cur->flag | cur_extra;
	args.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &args, sizeof args);
	int err = errno;
	if (pid == 0)
		child_verdict(before, cur->nsfile);
	report_child(name, pid, err);
}

int main(void)
{
	probe_started();
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		cur = &flags[i];
		for (int with_user = 0; with_user < 2; with_user++) {
			if (with_user && cur->flag == CLONE_NEWUSER)
				continue;
			cur_extra = with_user ? CLONE_NEWUSER : 0;
			char name[96];
			const char *suffix = with_user ? "+NEWUSER" : "";
			snprintf(name, sizeof name, "unshare:%s%s", cur->name, suffix);
			probe_isolated(name, try_unshare);
			/* clone() cannot carry CLONE_NEWTIME: it overlaps CSIGNAL. */
			if (cur->flag != CLONE_NEWTIME) {
				snprintf(name, sizeof name, "clone:%s%s", cur->name, suffix);
				probe_isolated(name, try_clone);
			}
			snprintf(name, sizeof name, "clone3:%s%s", cur->name, suffix);
			probe_isolated(name, try_clone3);
		}
	}
	return 0;
}
