/*
 * Shared by the syscall and socket probes: get privilege the legitimate
 * way, by creating a user namespace (plus others) and mapping ourselves to
 * root in it. Outside a sandbox this is what makes the controls meaningful
 * for an unprivileged user (mount, fsopen, raw sockets... work there); inside
 * the sandbox it must fail, and the probe then tries the call directly.
 */
#ifndef PORTA_ESCAPES_NSUTIL_H
#define PORTA_ESCAPES_NSUTIL_H

#include "probe.h"

#include <fcntl.h>
#include <sched.h>

static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* 0 when we are now root in new namespaces (CLONE_NEWUSER | extra). */
static inline int enter_userns(int extra)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | extra) < 0)
		return -1;
	char map[64];
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
	write_file("/proc/self/gid_map", map);
	return 0;
}

/*
 * True when we are root of the initial user namespace: then a mount-table
 * operation outside a namespace of our own would change the host itself,
 * which no probe may do, so such attempts are skipped.
 */
static inline int host_root(void)
{
	if (geteuid() != 0)
		return 0;
	char buf[128] = "";
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* cannot tell: assume the worst */
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n > 0)
		buf[n] = '\0';
	unsigned a = 1, b = 1, c = 0;
	sscanf(buf, "%u %u %u", &a, &b, &c);
	return a == 0 && b == 0 && c == 4294967295U;
}

#endif
