/* bench/watch_floor.h: the least a connect watch does, shared by the two
 * floors that carry one (bench/watch_floor.c, the watcher in a process of
 * its own; bench/relay_floor.c with a command, the watcher and the relay in
 * one poll(2) loop, as porta runs them).  Both are compiled by bench/relay at
 * run time, each as one translation unit, and by bench/CMakeLists.txt with
 * the project's warnings.  A benchmark's code: not part of porta.
 *
 * watch_floor_spawn() runs a command under a seccomp filter that hands every
 * connect(2) to the caller (SECCOMP_RET_USER_NOTIF, seccomp_unotify(2));
 * watch_floor_answer() answers one notification the way porta's connect
 * watch answers a call it allows: receive it, read the destination from the
 * caller's memory (process_vm_readv(2)), let the call go on
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  No decision, no socket type, no
 * /proc: what any design pays that sees a program's connect() from outside
 * it (docs/design.md, the connect watch), and nothing of porta's.  The
 * listener asks for synchronous wake-ups, as porta's does
 * (supervisor_connect_watch_sync_wake(), Linux 6.6), unless
 * WATCH_FLOOR_ASYNC is set in the environment (the floors as they were
 * before porta asked for them). */
#ifndef PORTA_BENCH_WATCH_FLOOR_H
#define PORTA_BENCH_WATCH_FLOOR_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* the build defines it; bench/relay's cc line does not */
#endif
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h> /* before common/kernel.h, which fills in what it lacks */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kernel.h" /* bench/relay compiles with -I the repository */

static int watch_floor_send_fd(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int watch_floor_recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	int fd = -1;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* In the child: connect(2) to the listener, everything else allowed (another
 * architecture's calls too: a benchmark, not a sandbox). */
static int watch_floor_install(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
}

/* Runs argv[0] (PATH searched) under the filter.  Returns the listener, or
 * -1 (message printed); *child is the command's pid once forked, also when
 * the listener could not be had (the command then never runs). */
static int watch_floor_spawn(char **argv, pid_t *child)
{
	int sp[2];

	*child = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		perror("watch_floor: socketpair");
		return -1;
	}
	*child = fork();
	if (*child < 0) {
		perror("watch_floor: fork");
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (*child == 0) {
		int listener = watch_floor_install();
		if (listener < 0 || watch_floor_send_fd(sp[1], listener) != 0) {
			perror("watch_floor: seccomp");
			_exit(127);
		}
		close(listener);
		close(sp[0]);
		close(sp[1]);
		execvp(argv[0], argv);
		perror("watch_floor: exec");
		_exit(127);
	}
	close(sp[1]);
	int listener = watch_floor_recv_fd(sp[0]);
	close(sp[0]);
	if (listener >= 0 && !getenv("WATCH_FLOOR_ASYNC") &&
	    ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) != 0)
		perror("watch_floor: synchronous wake-up (continuing without)");
	return listener;
}

/* One notification: received, its address read, let go on.  -1 when the
 * listener has nothing more to give. */
static int watch_floor_answer(int listener)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp r;
	struct sockaddr_storage sa;

	memset(&n, 0, sizeof(n));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
		return errno == EINTR || errno == ENOENT ? 0 : -1;
	size_t len = (size_t)(uint32_t)n.data.args[2];
	struct iovec local = { &sa, len < sizeof(sa) ? len : sizeof(sa) };
	struct iovec remote = { (void *)(uintptr_t)n.data.args[1], local.iov_len };
	(void)process_vm_readv((pid_t)n.pid, &local, 1, &remote, 1, 0);
	memset(&r, 0, sizeof(r));
	r.id = n.id;
	r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r) != 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* The command's exit status as a shell gives it (128 + signal when killed);
 * 1 when it cannot be waited for. */
static int watch_floor_wait(pid_t child)
{
	int status;

	if (child < 0)
		return 1;
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* PORTA_BENCH_WATCH_FLOOR_H */
