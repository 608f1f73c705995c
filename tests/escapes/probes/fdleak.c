/*
 * Row 6: inherit an open file descriptor from porta.
 *
 * porta holds files (the --audit log) and sockets (control channel, proxy
 * listeners) while it sets up; any of them left open across the payload's
 * execve() is a handle the payload can use. The probe lists every fd 3..1023
 * before opening anything itself, with its readlink target, and writes a
 * tag into each one it can, so that a leaked audit file or listener shows the
 * tag on the host too (outside evidence).
 *
 * Control: the runner hands the unsandboxed probe an open file and a socket
 * of its own; the probe must list both.
 */
#include "probe.h"

#include <fcntl.h>
#include <limits.h>

int main(int argc, char **argv)
{
	const char *tag = argc > 1 ? argv[1] : "FD-LEAK-TAG";
	probe_started();
	for (int fd = 3; fd < 1024; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		char path[64], target[PATH_MAX];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n < 0)
			n = snprintf(target, sizeof target, "(readlink: %s)",
				     probe_errname(errno));
		target[n] = '\0';
		dprintf(STDOUT_FILENO, "OPENFD %d %s\n", fd, target);
		/* Use it: a write shows up in the host-side file or peer. */
		ssize_t w = write(fd, tag, strlen(tag));
		dprintf(STDOUT_FILENO, "WRITEFD %d %s\n", fd,
			w >= 0 ? "ok" : probe_errname(errno));
	}
	dprintf(STDOUT_FILENO, "DONE\n");
	return 0;
}
