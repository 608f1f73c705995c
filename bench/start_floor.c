/* bench/start_floor.c: what porta's start-up asks of the kernel, with none of
 * porta's own work: the floor a faster porta could not go below without
 * dropping a layer (docs/benchmarks/startup.md).
 *
 *   start_floor [--net] WRITE COMMAND [ARGS...]
 *
 * bench/floor's structure (a clone into new user, mount, PID, IPC and UTS
 * namespaces, and with --net a network namespace with lo brought up; init
 * maps its ids and reaps the command) plus every layer porta lays at each
 * start, in its cheapest form:
 *  - the mounts of porta's default plan: a private /dev (a tmpfs, the host's
 *    null, zero, full, random, urandom and tty bound in and made read-only,
 *    a new devpts with its ptmx, a /dev/shm), /proc, a private /tmp, an empty
 *    read-only tmpfs over /run, WRITE bound on itself, and every other mount
 *    made read-only (mount_setattr(2), one call each);
 *  - the command spawned on init's memory (CLONE_VM | CLONE_VFORK), which
 *    sets no_new_privs, empties its capability bounding set, restricts
 *    itself with porta's Landlock ruleset for this kernel's ABI (porta's
 *    rights and flags: read beneath /, everything beneath WRITE, /dev and
 *    /tmp) and loads
 *    porta's own seccomp program (sandbox_seccomp_prog(), the base variant);
 *  - an inotify watch on WRITE with the mask of porta's guard.
 * As porta now does, the parent exits on init's word that the command
 * ended (a byte on a pipe), not at init's exit.
 *
 * Left out as porta's own work, not the kernel's: resolving the plan (which
 * paths exist, what to cover), the event loop, the control channel, the
 * covers of credential paths, and more than four Landlock rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kernel.h"
#include "policy/landlock.h"
#include "sandbox/seccomp.h"

static const char *const devices[] = { "null", "zero", "full", "random", "urandom", "tty" };
#define N_DEVICES (sizeof(devices) / sizeof(devices[0]))

struct job {
	char **cmd;
	const char *write;
	int status_w; /* init -> parent: the command's status, one int */
};

static __attribute__((noreturn)) void die(const char *what)
{
	fprintf(stderr, "start_floor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

static void write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, data, strlen(data)) < 0)
		die(path);
	close(fd);
}

static void mnt(const char *src, const char *dst, const char *type, unsigned long flags,
		const char *data)
{
	if (mount(src, dst, type, flags, data) < 0)
		die(dst);
}

static void read_only(const char *path)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

	if (mount_setattr(AT_FDCWD, path, 0, &attr, sizeof(attr)) < 0 && errno != ENOENT &&
	    errno != EACCES)
		die(path);
}

static void lo_up(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = { .nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_NEWLINK,
			  .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		  .ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 1, .ifi_flags = IFF_UP,
			   .ifi_change = IFF_UP } };
	char ack[256];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0 || send(fd, &req, sizeof(req), 0) < 0 || recv(fd, ack, sizeof(ack), 0) < 0)
		die("lo up");
	close(fd);
}

/* The mounts of a default porta plan; what stays writable is /dev's, /tmp,
 * /proc and WRITE. */
static void mounts(const struct job *j)
{
	char path[64];

	mnt(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mnt(j->write, j->write, NULL, MS_BIND | MS_REC, NULL);
	/* the device nodes, opened in this namespace before the private /dev
	 * hides them */
	int dev_fd[N_DEVICES];
	for (size_t i = 0; i < N_DEVICES; i++) {
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		if ((dev_fd[i] = open(path, O_PATH | O_CLOEXEC)) < 0)
			die(path);
	}
	mnt("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755");
	for (size_t i = 0; i < N_DEVICES; i++) {
		char src[64];
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			die(path);
		close(fd);
		snprintf(src, sizeof(src), "/proc/self/fd/%d", dev_fd[i]);
		mnt(src, path, NULL, MS_BIND | MS_REC, NULL);
		close(dev_fd[i]);
	}
	if (mkdir("/dev/shm", 0755) < 0 || mkdir("/dev/pts", 0755) < 0)
		die("/dev/shm, /dev/pts");
	mnt("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777");
	mnt("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620");
	int fd = open("/dev/ptmx", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("/dev/ptmx");
	close(fd);
	mnt("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL);
	mnt("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mnt("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	mnt("tmpfs", "/run", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "size=4k,mode=0500");

	/* every other mount read-only, as porta's make_rest_read_only() */
	static char buf[1 << 16];
	int mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;
	while (mi >= 0 && (n = read(mi, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	if (mi < 0 || n < 0)
		die("/proc/self/mountinfo");
	close(mi);
	buf[len] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char point[4096], opts[256];
		if (sscanf(line, "%*s %*s %*s %*s %4095s %255s", point, opts) != 2)
			continue;
		bool own = strncmp(point, "/dev", 4) == 0 || strcmp(point, "/tmp") == 0 ||
			   strncmp(point, "/proc", 5) == 0 || strcmp(point, j->write) == 0;
		if (own || strncmp(opts, "ro", 2) == 0)
			continue;
		read_only(point); /* mount points with escapes in them: left as they are */
	}
	for (size_t i = 0; i < N_DEVICES; i++) {
		snprintf(path, sizeof(path), "/dev/%s", devices[i]);
		read_only(path);
	}
}

static int command(void *arg)
{
	const struct job *j = arg;
	const struct sock_filter *insns;
	size_t len;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("no_new_privs");
	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			die("capability bounding set");
	}
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	struct policy_landlock_masks m;
	policy_landlock_masks((int)abi, &m);
	struct kernel_landlock_ruleset_attr attr = { .handled_access_fs = m.handled_fs,
						     .scoped = m.scoped };
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		die("Landlock ruleset");
	/* the private /dev and /tmp are the command's to write, as in porta */
	const char *paths[4] = { "/", j->write, "/dev", "/tmp" };
	uint64_t rights[4] = { m.read, m.write, m.write, m.write };
	for (int i = 0; i < 4; i++) {
		int fd = open(paths[i], O_PATH | O_CLOEXEC);
		struct landlock_path_beneath_attr pb = { .allowed_access = rights[i],
							 .parent_fd = fd };
		if (fd < 0 ||
		    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			die(paths[i]);
		close(fd);
	}
	if (syscall(SYS_landlock_restrict_self, rs, m.restrict_flags) < 0)
		die("Landlock restrict_self");
	close(rs);
	if (sandbox_seccomp_prog(POLICY_SECCOMP_BASE, &insns, &len) != 0)
		die("porta's seccomp program");
	struct sock_fprog prog = { .len = (unsigned short)len, .filter = (struct sock_filter *)insns };
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		die("seccomp");
	execvp(j->cmd[0], j->cmd);
	_exit(127);
}

static __attribute__((noreturn)) void run_init(const struct job *j, unsigned uid, unsigned gid,
						bool net)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	char map[64];
	int st;

	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	write_file("/proc/self/gid_map", map);
	if (net)
		lo_up();
	mounts(j);
	pid_t cmd = clone(command, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			  (void *)j);
	if (cmd < 0 || waitpid(cmd, &st, 0) != cmd)
		die("the command");
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (write(j->status_w, &code, sizeof(code)) != sizeof(code))
		die("status");
	_exit(0);
}

int main(int argc, char *argv[])
{
	bool net = false;
	int i = 1, p[2], code;

	if (i < argc && strcmp(argv[i], "--net") == 0) {
		net = true;
		i++;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: start_floor [--net] WRITE COMMAND [ARGS...]\n");
		return 125;
	}
	struct job j = { .cmd = argv + i + 1, .write = argv[i] };
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	/* the guard's watch, held by this process (porta's supervisor) */
	int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (watch < 0 || inotify_add_watch(watch, j.write, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR |
								    IN_DONT_FOLLOW) < 0)
		die("inotify");
	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe");
	j.status_w = p[1];
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | (net ? CLONE_NEWNET : 0) | SIGCHLD;
	pid_t pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (pid < 0)
		die("clone");
	if (pid == 0) {
		close(p[0]);
		run_init(&j, uid, gid, net);
	}
	close(p[1]);
	/* init's word, not its exit: its teardown goes on after this one */
	if (read(p[0], &code, sizeof(code)) != sizeof(code)) {
		waitpid(pid, NULL, 0);
		return 125;
	}
	return code;
}
