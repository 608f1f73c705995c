/* tests/unit/sandbox/test_fdpass.c: SCM_RIGHTS messages over a
 * SOCK_SEQPACKET socketpair, good and refused, never leaking an fd.
 *
 * Every test counts the entries of /proc/self/fd before and after: a refused
 * message must leave the receiver with exactly the fds it had.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "sandbox/fdpass.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n - 1; /* the directory's own fd */
}

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static void close_pair(int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

/* Same open file: same device and inode. */
static bool same_file(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

Test(fdpass, one_fd_with_payload_round_trip)
{
	int sv[2], p[2], before;
	struct sandbox_fdpass_msg m;
	char data[32] = { 0 };

	pair(sv);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	before = open_fds();
	cr_assert_eq(sandbox_fdpass_send(sv[0], 7, "hello", 5, &p[1], 1), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, data, sizeof(data), 4, &m), 0);
	cr_assert_eq(m.type, 7);
	cr_assert_eq(m.len, 5);
	cr_assert_arr_eq(data, "hello", 5);
	cr_assert_eq(m.n_fds, 1);
	cr_assert_neq(m.fds[0], p[1], "a new descriptor");
	cr_assert(same_file(m.fds[0], p[1]));
	cr_assert(fcntl(m.fds[0], F_GETFD) & FD_CLOEXEC, "received O_CLOEXEC");
	for (size_t i = 1; i < SANDBOX_FDPASS_MAX_FDS; i++)
		cr_assert_eq(m.fds[i], -1);
	/* It works: write through the received copy, read from the pipe. */
	cr_assert_eq(write(m.fds[0], "x", 1), 1);
	char c = 0;
	cr_assert_eq(read(p[0], &c, 1), 1);
	cr_assert_eq(c, 'x');
	cr_assert_eq(open_fds(), before + 1);
	close(m.fds[0]);
	close(p[0]);
	close(p[1]);
	close_pair(sv);
}

Test(fdpass, no_fds_and_no_payload)
{
	int sv[2];
	struct sandbox_fdpass_msg m;

	pair(sv);
	cr_assert_eq(sandbox_fdpass_send(sv[0], 3, NULL, 0, NULL, 0), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, 0, &m), 0);
	cr_assert_eq(m.type, 3);
	cr_assert_eq(m.len, 0);
	cr_assert_eq(m.n_fds, 0);
	close_pair(sv);
}

Test(fdpass, the_maximum_number_of_fds)
{
	int sv[2], fds[SANDBOX_FDPASS_MAX_FDS], before;
	struct sandbox_fdpass_msg m;

	pair(sv);
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++)
		cr_assert_geq(fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	before = open_fds();
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 0, fds, SANDBOX_FDPASS_MAX_FDS), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, SANDBOX_FDPASS_MAX_FDS, &m), 0);
	cr_assert_eq(m.n_fds, SANDBOX_FDPASS_MAX_FDS);
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++) {
		cr_assert(same_file(m.fds[i], fds[i]), "fd %zu in order", i);
		close(m.fds[i]);
		close(fds[i]);
	}
	cr_assert_eq(open_fds(), before - SANDBOX_FDPASS_MAX_FDS);
	close_pair(sv);
}

Test(fdpass, sender_refuses_bad_arguments)
{
	int sv[2], fds[SANDBOX_FDPASS_MAX_FDS + 1] = { 0 };
	struct sandbox_fdpass_msg m;

	pair(sv);
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 0, fds, SANDBOX_FDPASS_MAX_FDS + 1), -EINVAL);
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 0, NULL, 1), -EINVAL);
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 4, NULL, 0), -EINVAL);
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, "x", SANDBOX_FDPASS_MAX_DATA + 1, NULL, 0), -EINVAL);
	int bad = 1000000;
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 0, &bad, 1), -EBADF);
	/* Nothing was sent by any of those. */
	cr_assert_eq(sandbox_fdpass_recv(sv[1], MSG_DONTWAIT, NULL, 0, 1, &m), -EAGAIN);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], MSG_PEEK, NULL, 0, 1, &m), -EINVAL, "flags");
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, SANDBOX_FDPASS_MAX_FDS + 1, &m), -EINVAL);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 8, 1, &m), -EINVAL);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, 1, NULL), -EINVAL);
	close_pair(sv);
}

/* More fds than the receiver allows, for every pair (sent, allowed): the
 * kernel may cut the control data (MSG_CTRUNC) or, since CMSG_SPACE rounds up
 * to 8 bytes, deliver one more than asked; either way -EMSGSIZE, and no fd
 * stays behind. */
Test(fdpass, too_many_fds_are_all_closed)
{
	int sv[2], fds[SANDBOX_FDPASS_MAX_FDS];
	struct sandbox_fdpass_msg m;

	pair(sv);
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++)
		cr_assert_geq(fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	int before = open_fds();
	for (size_t sent = 1; sent <= SANDBOX_FDPASS_MAX_FDS; sent++) {
		for (size_t allowed = 0; allowed < sent; allowed++) {
			cr_assert_eq(sandbox_fdpass_send(sv[0], 1, NULL, 0, fds, sent), 0);
			cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, allowed, &m), -EMSGSIZE,
				     "%zu fds to a receiver of %zu", sent, allowed);
			cr_assert_eq(m.n_fds, 0);
			cr_assert_eq(open_fds(), before, "%zu fds to a receiver of %zu leaked", sent,
				     allowed);
		}
	}
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++)
		close(fds[i]);
	close_pair(sv);
}

Test(fdpass, payload_longer_than_the_buffer_closes_the_fds)
{
	int sv[2], fd, before;
	struct sandbox_fdpass_msg m;
	char big[64] = "0123456789abcdef0123456789abcdef", small[8];

	pair(sv);
	cr_assert_geq(fd = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	before = open_fds();
	cr_assert_eq(sandbox_fdpass_send(sv[0], 1, big, sizeof(big), &fd, 1), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, small, sizeof(small), 1, &m), -EMSGSIZE);
	cr_assert_eq(open_fds(), before);
	/* The next message is unaffected (SEQPACKET drops the rest of a cut one). */
	cr_assert_eq(sandbox_fdpass_send(sv[0], 2, "ok", 2, &fd, 1), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, small, sizeof(small), 1, &m), 0);
	cr_assert_eq(m.type, 2);
	cr_assert_eq(m.n_fds, 1);
	close(m.fds[0]);
	close(fd);
	close_pair(sv);
}

/* A raw message with the given header bytes and fds attached. */
static void send_raw(int sock, const void *bytes, size_t len, const int *fds, size_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} cb;
	struct iovec iov = { .iov_base = (void *)bytes, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	cr_assert_leq(n, 4);
	if (n) {
		memset(&cb, 0, sizeof(cb));
		msg.msg_control = cb.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	cr_assert_eq(sendmsg(sock, &msg, 0), (ssize_t)len);
}

Test(fdpass, headers_that_lie_are_refused)
{
	int sv[2], fds[2], before;
	struct sandbox_fdpass_msg m;
	char buf[64];

	pair(sv);
	cr_assert_geq(fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	cr_assert_geq(fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	before = open_fds();

	struct {
		const char *what;
		struct sandbox_fdpass_hdr h;
		size_t extra; /* payload bytes actually sent */
		size_t n;     /* fds actually sent */
	} cases[] = {
		{ "fewer fds than announced", { 1, 2, 0, 0 }, 0, 1 },
		{ "more fds than announced", { 1, 1, 0, 0 }, 0, 2 },
		{ "fds unannounced", { 1, 0, 0, 0 }, 0, 1 },
		{ "payload shorter than announced", { 1, 1, 8, 0 }, 4, 1 },
		{ "payload longer than announced", { 1, 1, 2, 0 }, 4, 1 },
		{ "reserved set", { 1, 1, 0, 1 }, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char wire[sizeof(struct sandbox_fdpass_hdr) + 8] = { 0 };
		memcpy(wire, &cases[i].h, sizeof(cases[i].h));
		send_raw(sv[0], wire, sizeof(cases[i].h) + cases[i].extra, fds, cases[i].n);
		cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, buf, sizeof(buf), 4, &m), -EBADMSG, "%s",
			     cases[i].what);
		cr_assert_eq(open_fds(), before, "%s: leaked", cases[i].what);
	}
	/* Shorter than a header, with and without fds. */
	for (size_t len = 1; len < sizeof(struct sandbox_fdpass_hdr); len++) {
		char wire[sizeof(struct sandbox_fdpass_hdr)] = { 0 };
		send_raw(sv[0], wire, len, fds, len % 2);
		cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, buf, sizeof(buf), 4, &m), -EBADMSG,
			     "%zu bytes", len);
		cr_assert_eq(open_fds(), before);
	}
	/* Zero bytes with an fd is not end of stream. */
	send_raw(sv[0], "", 0, fds, 1);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, buf, sizeof(buf), 4, &m), -EBADMSG);
	cr_assert_eq(open_fds(), before);
	close(fds[0]);
	close(fds[1]);
	close_pair(sv);
}

Test(fdpass, peer_closed_is_epipe_both_ways)
{
	int sv[2], fd;
	struct sandbox_fdpass_msg m;

	pair(sv);
	cr_assert_geq(fd = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	close(sv[0]);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, 1, &m), -EPIPE);
	cr_assert_eq(sandbox_fdpass_send(sv[1], 1, NULL, 0, &fd, 1), -EPIPE, "no SIGPIPE either");
	close(sv[1]);
	close(fd);
}

/* A receiver with SO_PASSCRED and SO_PASSPIDFD gets credentials and a pidfd
 * beside the fds: the fds still fit, and the pidfd is closed. */
Test(fdpass, credentials_and_pidfd_do_not_crowd_out_or_leak)
{
	int sv[2], fd, one = 1, before;
	struct sandbox_fdpass_msg m;

	pair(sv);
	cr_assert_eq(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	bool pidfd = setsockopt(sv[1], SOL_SOCKET, SO_PASSPIDFD, &one, sizeof(one)) == 0;
	if (!pidfd)
		cr_log_warn("SO_PASSPIDFD: %s (kernel before 6.5): pidfd half skipped", strerror(errno));
	cr_assert_geq(fd = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	int fds[SANDBOX_FDPASS_MAX_FDS];
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++)
		fds[i] = fd;
	before = open_fds();
	cr_assert_eq(sandbox_fdpass_send(sv[0], 9, NULL, 0, fds, SANDBOX_FDPASS_MAX_FDS), 0);
	cr_assert_eq(sandbox_fdpass_recv(sv[1], 0, NULL, 0, SANDBOX_FDPASS_MAX_FDS, &m), 0);
	cr_assert_eq(m.n_fds, SANDBOX_FDPASS_MAX_FDS);
	cr_assert_eq(open_fds(), before + SANDBOX_FDPASS_MAX_FDS, "exactly the fds, no pidfd");
	for (size_t i = 0; i < m.n_fds; i++)
		close(m.fds[i]);
	close(fd);
	close_pair(sv);
}

Test(fdpass, many_messages_keep_their_boundaries)
{
	int sv[2], fd;
	struct sandbox_fdpass_msg m;
	char buf[16];

	pair(sv);
	cr_assert_geq(fd = open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	for (uint32_t i = 0; i < 5; i++)
		cr_assert_eq(sandbox_fdpass_send(sv[0], i, &i, sizeof(i), &fd, i % 2), 0);
	for (uint32_t i = 0; i < 5; i++) {
		uint32_t v;
		cr_assert_eq(sandbox_fdpass_recv(sv[1], MSG_DONTWAIT, buf, sizeof(buf), 1, &m), 0);
		cr_assert_eq(m.type, i);
		cr_assert_eq(m.len, sizeof(v));
		memcpy(&v, buf, sizeof(v));
		cr_assert_eq(v, i);
		cr_assert_eq(m.n_fds, i % 2);
		if (m.n_fds)
			close(m.fds[0]);
	}
	cr_assert_eq(sandbox_fdpass_recv(sv[1], MSG_DONTWAIT, buf, sizeof(buf), 1, &m), -EAGAIN);
	close(fd);
	close_pair(sv);
}
