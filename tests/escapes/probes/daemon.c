/*
 * Rows 22 (--timeout) and 23: leave a process running after the sandbox.
 *
 * usage: daemon HEARTBEAT-FILE TAG exit|stay
 *
 * The classic daemon: fork, setsid() in the child, fork again, and let the
 * grandchild (no controlling tty, reparented away from its parent, SIGHUP
 * and SIGTERM ignored, stdio on /dev/null) append a line to HEARTBEAT-FILE
 * every 100 ms for 20 s. "exit": the probe returns at once (porta must not
 * leave the grandchild behind when its command exits). "stay": the probe
 * sleeps, so --timeout has to end the run, and everything in it.
 *
 * TAG is only there so the runner can find survivors on the host by their
 * command line, and kill them. Evidence: survivors found that way, and a
 * heartbeat file that keeps growing after porta has exited. Control:
 * outside a sandbox the grandchild outlives its parent.
 */
#include "probe.h"

#include <fcntl.h>
#include <time.h>

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 4) {
		dprintf(STDOUT_FILENO, "usage: daemon HEARTBEAT TAG exit|stay\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		probe_fail("fork", errno);
		return 1;
	}
	if (pid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		for (int i = 0; i < 200; i++) {
			int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
			if (fd >= 0) {
				(void)!write(fd, "beat\n", 5);
				close(fd);
			}
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	dprintf(STDOUT_FILENO, "RESULT daemonised ok 0\n");
	if (strcmp(argv[3], "stay") == 0)
		sleep(30);
	return 0;
}
