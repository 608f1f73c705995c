/*
 * Row 16: read another process's memory and steal its file descriptors:
 * ptrace(PTRACE_ATTACH) + PEEKDATA, process_vm_readv(), and
 * pidfd_open() + pidfd_getfd().
 *
 * usage: peek PID PTRACE-ADDR VMREAD-ADDR FD RUN-ID
 *
 * The target is the decoy (host pid from the runner); the probe also scans
 * /proc for any process whose cmdline carries the marker (and RUN-ID, so that
 * concurrent runs leave each other's decoys alone), as a real attacker would
 * once the given pid turns out not to exist. Whatever it reads it
 * prints: the decoy's buffers and secret file hold distinct MUST-NOT-LEAK
 * markers, so the runner sees on the probe's stdout exactly which channel
 * leaked. Control: outside the sandbox all three work against the decoy.
 */
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define MARKER "MUST-NOT-LEAK"

static void print_data(const char *what, pid_t pid, const char *buf, size_t n)
{
	char clean[256];
	size_t j = 0;
	for (size_t i = 0; i < n && j < sizeof clean - 1; i++)
		clean[j++] = (buf[i] >= 0x20 && buf[i] < 0x7f) ? buf[i] : '.';
	clean[j] = '\0';
	dprintf(STDOUT_FILENO, "DATA %s pid=%d %s\n", what, (int)pid, clean);
}

static void try_ptrace(pid_t pid, unsigned long addr)
{
	char name[64];
	snprintf(name, sizeof name, "ptrace:%d", (int)pid);
	if (ptrace(PTRACE_ATTACH, pid, 0, 0) < 0) {
		probe_fail(name, errno);
		return;
	}
	int status;
	waitpid(pid, &status, __WALL);
	char buf[40];
	size_t got = 0;
	for (; got < sizeof buf; got += sizeof(long)) {
		errno = 0;
		long word = ptrace(PTRACE_PEEKDATA, pid, addr + got, 0);
		if (errno)
			break;
		memcpy(buf + got, &word, sizeof word);
	}
	ptrace(PTRACE_DETACH, pid, 0, 0);
	probe_ok(name, (long)got);
	print_data("ptrace", pid, buf, got);
}

static void try_vmread(pid_t pid, unsigned long addr)
{
	char name[64], buf[40];
	snprintf(name, sizeof name, "process_vm_readv:%d", (int)pid);
	struct iovec local = { buf, sizeof buf }, remote = { (void *)addr, sizeof buf };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	probe_report(name, n, errno);
	if (n > 0)
		print_data("process_vm_readv", pid, buf, (size_t)n);
}

static void try_getfd(pid_t pid, int targetfd)
{
	char name[64];
	snprintf(name, sizeof name, "pidfd_getfd:%d", (int)pid);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s fail %s (pidfd_open)\n", name,
			probe_errname(errno));
		return;
	}
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, targetfd, 0);
	probe_report(name, fd, errno);
	if (fd >= 0) {
		char buf[128];
		ssize_t n = pread(fd, buf, sizeof buf, 0);
		if (n > 0)
			print_data("pidfd_getfd", pid, buf, (size_t)n);
	}
}

static void attack(pid_t pid, unsigned long a1, unsigned long a2, int fd)
{
	try_ptrace(pid, a1);
	try_vmread(pid, a2);
	try_getfd(pid, fd);
}

/* pids in our /proc whose cmdline names the marker (other than us). */
static void scan(unsigned long a1, unsigned long a2, int fd, pid_t given, const char *run_id)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == getpid() || pid == given)
			continue;
		char path[64], buf[4096];
		snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
		int f = open(path, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			continue;
		ssize_t n = read(f, buf, sizeof buf - 1);
		close(f);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		if (strstr(buf, MARKER) && strstr(buf, run_id))
			attack(pid, a1, a2, fd);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 6) {
		dprintf(STDOUT_FILENO, "usage: peek PID ADDR1 ADDR2 FD RUN-ID\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	unsigned long a1 = strtoul(argv[2], NULL, 0), a2 = strtoul(argv[3], NULL, 0);
	int fd = atoi(argv[4]);
	attack(pid, a1, a2, fd);
	scan(a1, a2, fd, pid, argv[5]);
	return 0;
}
