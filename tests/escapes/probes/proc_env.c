/*
 * Rows 65-67: what of porta's environment and memory reaches the command.
 *
 * usage: proc_env
 *
 * Prints its own environment ("ENV NAME=VALUE"), then attacks its parent,
 * which under porta is the sandbox's init (pid 1), a fork of porta holding
 * porta's whole environment, memory and control socket; in the control it
 * is a shell started with the same secrets:
 *   - /proc/PPID/environ              "PEER-ENVIRON ..." (NULs as spaces)
 *   - /proc/PPID/mem over [stack]      "PEER-MEM ..." around each marker found
 *   - pidfd_getfd(PPID, 0..15)         RESULT pidfd_getfd:N ok FD
 * The runner looks for MUST-NOT-LEAK on stdout and for any fd taken.
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/syscall.h>

extern char **environ;

static const char marker[] = "MUST-NOT-LEAK";

static void print_flat(const char *tag, char *buf, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	dprintf(STDOUT_FILENO, "%s %.*s\n", tag, (int)n, buf);
}

static void peer_environ(pid_t pp)
{
	char path[64], buf[65536];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pp);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		probe_fail("peer-environ", errno);
		return;
	}
	ssize_t n = read(fd, buf, sizeof buf);
	int err = errno;
	close(fd);
	probe_report("peer-environ", n, err);
	if (n > 0)
		print_flat("PEER-ENVIRON", buf, n);
}

static void peer_mem(pid_t pp)
{
	char path[64], line[512];
	unsigned long lo = 0, hi = 0;
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pp);
	FILE *maps = fopen(path, "re");
	if (!maps) {
		probe_fail("peer-maps", errno);
		return;
	}
	while (fgets(line, sizeof line, maps))
		if (strstr(line, "[stack]"))
			sscanf(line, "%lx-%lx", &lo, &hi);
	fclose(maps);
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pp);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		probe_fail("peer-mem", errno);
		return;
	}
	if (hi <= lo || hi - lo > (64UL << 20)) {
		/* maps unreadable: try the usual top of the stack anyway */
		dprintf(STDOUT_FILENO, "RESULT peer-mem setup-fail NOSTACK\n");
		close(fd);
		return;
	}
	size_t len = hi - lo;
	char *buf = malloc(len);
	ssize_t n = buf ? pread(fd, buf, len, (off_t)lo) : -1;
	int err = errno;
	close(fd);
	probe_report("peer-mem", n, err);
	for (ssize_t i = 0; n > 0 && i + (ssize_t)sizeof marker <= n; i++) {
		if (memcmp(buf + i, marker, sizeof marker - 1) == 0) {
			ssize_t s = i > 40 ? i - 40 : 0;
			ssize_t e = i + 60 < n ? i + 60 : n;
			print_flat("PEER-MEM", buf + s, e - s);
			i += 60;
		}
	}
	free(buf);
}

static void peer_fds(pid_t pp)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pp, 0);
	if (pidfd < 0) {
		probe_fail("pidfd_open", errno);
		return;
	}
	for (int n = 0; n < 16; n++) {
		char name[32], link[64], target[256] = "";
		snprintf(name, sizeof name, "pidfd_getfd:%d", n);
		int fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
		int err = errno;
		if (fd < 0) {
			if (err != EBADF)
				probe_fail(name, err);
			continue;
		}
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t l = readlink(link, target, sizeof target - 1);
		target[l > 0 ? l : 0] = '\0';
		dprintf(STDOUT_FILENO, "RESULT %s ok %s\n", name, target);
		close(fd);
	}
	close(pidfd);
}

int main(void)
{
	probe_started();
	for (char **e = environ; *e; e++)
		dprintf(STDOUT_FILENO, "ENV %s\n", *e);
	pid_t pp = getppid();
	dprintf(STDOUT_FILENO, "PPID %d\n", (int)pp);
	peer_environ(pp);
	peer_mem(pp);
	peer_fds(pp);
	return 0;
}
