/*
 * Row 10: read another process's argv and environment through
 * /proc/PID/cmdline and /proc/PID/environ.
 *
 * usage: proc_read DECOY-PID
 *
 * Command lines and environments carry tokens (API keys passed as flags or
 * variables). The probe reads the decoy's files by its host pid and then
 * every process it can see; it prints the contents of any file that holds
 * the marker, and of the decoy's pid whatever they hold. The decoy carries
 * MUST-NOT-LEAK in its argv and environment, so the marker on stdout is the
 * evidence. Control: outside the sandbox the same user reads both files.
 */
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>

static void dump(pid_t pid, const char *what, int always)
{
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0) {
		if (always)
			probe_fail(path, errno);
		return;
	}
	ssize_t n = read(f, buf, sizeof buf - 1);
	int err = errno;
	close(f);
	if (n < 0) {
		if (always)
			probe_fail(path, err);
		return;
	}
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	if (always || strstr(buf, "MUST-NOT-LEAK")) {
		probe_ok(path, (long)n);
		dprintf(STDOUT_FILENO, "DATA %s %.300s\n", path, buf);
	}
}

int main(int argc, char **argv)
{
	probe_started();
	pid_t decoy = argc > 1 ? (pid_t)atoi(argv[1]) : 0;
	if (decoy > 0) {
		dump(decoy, "cmdline", 1);
		dump(decoy, "environ", 1);
	}
	DIR *d = opendir("/proc");
	if (!d) {
		probe_fail("opendir /proc", errno);
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == getpid() || pid == decoy)
			continue;
		dump(pid, "cmdline", 0);
		dump(pid, "environ", 0);
	}
	closedir(d);
	return 0;
}
