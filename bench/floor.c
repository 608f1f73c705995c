/* bench/floor.c: the kernel's price for porta's process structure, with no
 * policy at all — the floor no implementation of docs/design.md can go below.
 *
 *   floor COMMAND [ARGS...]
 *
 * Does exactly the structural steps porta takes, nothing else: clone into new
 * user, mount, PID, IPC and UTS namespaces; the child maps its own uid/gid,
 * makes / private, mounts a fresh /proc, forks the command (which must not be
 * pid 1) and reaps it; the parent waits and exits with the command's status.
 * No Landlock, seccomp, capability drop, covers, private /tmp or event loop.
 * bench/overhead runs it beside porta so that porta's own cost (porta minus
 * floor) and the structure's cost (floor minus bare) are read from one run.
 */

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, data, strlen(data)) < 0)
		_exit(125);
	close(fd);
}

int main(int argc, char *argv[])
{
	char map[64];
	unsigned uid = getuid(), gid = getgid();
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: floor COMMAND [ARGS...]\n");
		return 125;
	}
	pid_t init = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
					       CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD,
				    NULL, NULL, NULL, NULL);
	if (init < 0) {
		perror("floor: clone");
		return 125;
	}
	if (init == 0) {
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
		write_file("/proc/self/gid_map", map);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(125);
		pid_t cmd = fork();
		if (cmd == 0) {
			execvp(argv[1], argv + 1);
			_exit(127);
		}
		if (cmd < 0 || waitpid(cmd, &st, 0) != cmd)
			_exit(125);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	if (waitpid(init, &st, 0) != init)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
