/*
 * Row 75: reach one of the host's namespaces from inside: the
 * /proc/self/ns links themselves, and the nsfs ioctls that walk up the
 * tree (NS_GET_PARENT for user and PID namespaces, NS_GET_USERNS for the
 * owner of every namespace; ioctl_ns(2)).
 *
 * usage: proc_ns
 *
 * Prints "HELD TYPE INODE HOW" for every namespace fd it got hold of; the
 * runner compares the inodes with its own namespaces'. The walk starts once
 * from where the probe is and once from inside a user namespace of its own
 * (so that the control exercises NS_GET_PARENT too).
 */
#include "probe.h"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

static const char *const types[] = { "user", "pid", "mnt", "uts", "ipc", "net", "cgroup" };

static void held(int fd, const char *type, const char *how)
{
	struct stat st;
	if (fstat(fd, &st) == 0)
		dprintf(STDOUT_FILENO, "HELD %s %lu %s\n", type, (unsigned long)st.st_ino, how);
}

static void walk_parents(int fd, const char *type, const char *from)
{
	char how[128];
	for (int depth = 1; depth < 8; depth++) {
		int parent = ioctl(fd, NS_GET_PARENT);
		if (parent < 0) {
			dprintf(STDOUT_FILENO, "RESULT NS_GET_PARENT:%s:%s:%d fail %s\n", from, type, depth,
				probe_errname(errno));
			break;
		}
		snprintf(how, sizeof how, "%s:NS_GET_PARENT*%d", from, depth);
		held(parent, type, how);
		if (fd >= 0)
			close(fd);
		fd = parent;
	}
	close(fd);
}

static void walk(const char *from)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		char path[64], how[128];
		snprintf(path, sizeof path, "/proc/self/ns/%s", types[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		snprintf(how, sizeof how, "%s:/proc/self/ns", from);
		held(fd, types[i], how);
		int owner = ioctl(fd, NS_GET_USERNS);
		if (owner >= 0) {
			snprintf(how, sizeof how, "%s:NS_GET_USERNS(%s)", from, types[i]);
			held(owner, "user", how);
			walk_parents(owner, "user", from);
		}
		if (strcmp(types[i], "user") == 0 || strcmp(types[i], "pid") == 0)
			walk_parents(dup(fd), types[i], from);
		close(fd);
	}
}

static void nested(const char *name)
{
	if (unshare(CLONE_NEWUSER) < 0) {
		probe_fail(name, errno);
		return;
	}
	probe_ok(name, 0);
	walk("nested");
}

int main(void)
{
	probe_started();
	walk("here");
	probe_isolated("unshare-user", nested);
	return 0;
}
