/*
 * Row 21: signal a process outside the sandbox.
 *
 * usage: kill_decoy DECOY-PID RUN-ID
 *
 * The probe sends SIGUSR1 and SIGTERM with kill(), then SIGUSR2 through
 * pidfd_send_signal(), to the decoy's host pid and to every process in its
 * /proc whose cmdline carries the marker and RUN-ID (so that concurrent runs
 * on one host leave each other's decoys alone). It never uses kill(-1): outside a
 * sandbox that would signal every process of the user. The decoy logs each
 * signal it receives with the sender's pid; that log is the evidence.
 * Control: outside the sandbox the decoy logs all three.
 */
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>

static void attack(pid_t pid)
{
	char name[64];
	snprintf(name, sizeof name, "kill-USR1:%d", (int)pid);
	PROBE_TRY(name, kill(pid, SIGUSR1));
	snprintf(name, sizeof name, "kill-TERM:%d", (int)pid);
	PROBE_TRY(name, kill(pid, SIGTERM));
	snprintf(name, sizeof name, "pidfd_send_signal-USR2:%d", (int)pid);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		probe_fail(name, errno);
		return;
	}
	PROBE_TRY(name, syscall(SYS_pidfd_send_signal, pidfd, SIGUSR2, NULL, 0));
	close(pidfd);
}

int main(int argc, char **argv)
{
	probe_started();
	pid_t decoy = argc > 1 ? (pid_t)atoi(argv[1]) : 0;
	const char *run_id = argc > 2 ? argv[2] : "decoy";
	if (decoy > 0)
		attack(decoy);
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || pid == getpid() || pid == decoy)
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
		if (strstr(buf, "MUST-NOT-LEAK") && strstr(buf, run_id))
			attack(pid);
	}
	closedir(d);
	/* Stay a moment, so the decoy can log who we are. */
	struct timespec ts = { 0, 500 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	return 0;
}
