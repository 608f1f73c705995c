/* sandbox/fdpass.c: SCM_RIGHTS with a header that says what must arrive.
 *
 * unix(7): the fds of one SCM_RIGHTS message are installed in the receiver
 * by recvmsg(2) itself; when the control buffer is too small the kernel
 * installs what fits, closes the rest and sets MSG_CTRUNC (scm_detach_fds),
 * and when the receiver is out of fds it also sets MSG_CTRUNC.  So the
 * receiver first collects every fd that arrived, then judges the message,
 * and closes them all if it is refused.
 */
#include "sandbox/fdpass.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/kernel.h"

/* Room for the largest SCM_RIGHTS message plus the control messages a
 * receiver may get unasked for: credentials (SO_PASSCRED) and a pidfd
 * (SO_PASSPIDFD).  The kernel puts those before the fds (scm_recv), so
 * without this room they would push the fds into MSG_CTRUNC. */
#define EXTRA_CMSG_SPACE (CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)))

union cmsg_buf {
	char buf[CMSG_SPACE(sizeof(int) * SANDBOX_FDPASS_MAX_FDS) + EXTRA_CMSG_SPACE];
	struct cmsghdr align;
};

int sandbox_fdpass_send(int sock, uint32_t type, const void *data, size_t len, const int *fds,
			size_t n_fds)
{
	struct sandbox_fdpass_hdr hdr = {
		.type = type,
		.n_fds = (uint32_t)n_fds,
		.len = (uint32_t)len,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)data, .iov_len = len },
	};
	union cmsg_buf cbuf;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (n_fds > SANDBOX_FDPASS_MAX_FDS || len > SANDBOX_FDPASS_MAX_DATA ||
	    (n_fds && !fds) || (len && !data))
		return -EINVAL;
	if (n_fds) {
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* A SOCK_SEQPACKET message is sent whole or not at all; a short count
	 * means sock is not one (a stream socket), which the receiver could
	 * not parse. */
	if ((size_t)n != sizeof(hdr) + len)
		return -EMSGSIZE;
	return 0;
}

int sandbox_fdpass_write(int sock, uint32_t type, const void *data, size_t len)
{
	union {
		struct sandbox_fdpass_hdr hdr;
		unsigned char b[SANDBOX_FDPASS_WRITE_MAX];
	} m;
	ssize_t n;

	if (len > sizeof(m) - sizeof(m.hdr) || (len && !data))
		return -EINVAL;
	m.hdr = (struct sandbox_fdpass_hdr){ .type = type, .len = (uint32_t)len };
	if (len)
		memcpy(m.b + sizeof(m.hdr), data, len);
	do
		n = sendto(sock, m.b, sizeof(m.hdr) + len, MSG_NOSIGNAL, NULL, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(m.hdr) + len ? 0 : -EMSGSIZE;
}

static void close_all(struct sandbox_fdpass_msg *m)
{
	for (size_t i = 0; i < m->n_fds; i++) {
		close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->n_fds = 0;
}

int sandbox_fdpass_recv(int sock, int flags, void *data, size_t cap, size_t max_fds,
			struct sandbox_fdpass_msg *m)
{
	struct sandbox_fdpass_hdr hdr;
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = data, .iov_len = cap },
	};
	union cmsg_buf cbuf;
	struct msghdr msg;
	bool too_many = false;
	ssize_t n;
	int rc;

	if (!m || max_fds > SANDBOX_FDPASS_MAX_FDS || (flags & ~MSG_DONTWAIT) || (cap && !data))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < SANDBOX_FDPASS_MAX_FDS; i++)
		m->fds[i] = -1;

	do {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = 2;
		msg.msg_control = cbuf.buf;
		/* Room for max_fds and the unasked-for extras only: a message
		 * with more fds is cut by the kernel (MSG_CTRUNC) rather than
		 * filling the table with fds the caller did not plan for. */
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * max_fds) + EXTRA_CMSG_SPACE;
		n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	/* Collect every fd first: whatever is wrong below, they get closed. */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;
		const unsigned char *p = CMSG_DATA(c);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (c->cmsg_type == SCM_PIDFD) {
			for (size_t i = 0; i < k; i++) {
				int fd;
				memcpy(&fd, p + i * sizeof(int), sizeof(int));
				if (fd >= 0)
					close(fd);
			}
			continue;
		}
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < k; i++) {
			int fd;
			memcpy(&fd, p + i * sizeof(int), sizeof(int));
			if (m->n_fds < SANDBOX_FDPASS_MAX_FDS && m->n_fds < max_fds) {
				m->fds[m->n_fds++] = fd;
			} else {
				/* CMSG_SPACE rounds up to 8 bytes, so the
				 * kernel may fit one fd more than max_fds. */
				close(fd);
				too_many = true;
			}
		}
	}

	if (too_many || (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		rc = -EMSGSIZE;
		goto fail;
	}
	if (n == 0 && m->n_fds == 0) {
		/* Every message has a header: 0 bytes is the peer's close. */
		return -EPIPE;
	}
	if ((size_t)n < sizeof(hdr) || hdr.reserved != 0 || hdr.n_fds != m->n_fds ||
	    hdr.len != (size_t)n - sizeof(hdr)) {
		rc = -EBADMSG;
		goto fail;
	}
	m->type = hdr.type;
	m->len = hdr.len;
	return 0;
fail:
	close_all(m);
	return rc;
}
