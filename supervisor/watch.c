/* supervisor/watch.c: one seccomp notification, received, looked at,
 * answered.
 *
 * The order is the one seccomp_unotify(2) prescribes for reading through a
 * pid: receive, read (memory, /proc), then SECCOMP_IOCTL_NOTIF_ID_VALID, and
 * only then trust what was read (for a call that is let go on, nothing read
 * is kept, and the answer is the check); the answer goes out whatever
 * happened in between, so the caller never waits on a failure of ours.
 */
#include "supervisor/watch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel.h"
#include "common/log.h"
#include "supervisor/identity.h"
#include "supervisor/procmem.h"
#include "supervisor/unixsock.h"

#if !defined(__x86_64__)
#error "the notified syscalls' argument layout below is x86_64's"
#endif

/* Buffers for the kernel's structs: the kernel copies its own size of
 * seccomp_notif out and of seccomp_notif_resp in, which SECCOMP_GET_NOTIF_SIZES
 * reports and which may grow in a later kernel (seccomp_unotify(2)). */
#define NOTIF_BUF 512

union notif_buf {
	struct seccomp_notif n;
	unsigned char raw[NOTIF_BUF];
};

union resp_buf {
	struct seccomp_notif_resp r;
	unsigned char raw[NOTIF_BUF];
};

/* 127.0.0.0/8, ::1, and 127/8 mapped into IPv6 (::ffff:127.x.y.z). */
static bool is_loopback(const struct supervisor_connect_event *ev)
{
	if (ev->family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&ev->sa;
		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	}
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&ev->sa;
	if (IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && sin6->sin6_addr.s6_addr[12] == 127;
}

enum supervisor_connect_verdict supervisor_connect_decide(const struct supervisor_connect_event *ev,
						    const struct policy_port_set *allowed)
{
	if (ev->addr_status != SUPERVISOR_CONNECT_ADDR_OK)
		return SUPERVISOR_CONNECT_CONTINUE;
	if (ev->family != AF_INET && ev->family != AF_INET6)
		return SUPERVISOR_CONNECT_CONTINUE;
	/* Loopback inside the sandbox's network namespace is the sandbox's
	 * own (a test server, a language server the command started): no
	 * host service is there, so no port of it is refused here. */
	if (is_loopback(ev))
		return SUPERVISOR_CONNECT_CONTINUE;
	if (ev->sock_type == SOCK_DGRAM && ev->port != 53)
		return SUPERVISOR_CONNECT_REFUSE;
	return policy_port_set_has(allowed, ev->port) ? SUPERVISOR_CONNECT_CONTINUE
						       : SUPERVISOR_CONNECT_REFUSE;
}

/* Exactly the address porta's proxy listens on: 127.0.0.1 (or as ::ffff:127.0.0.1). */
static bool is_proxy_address(const struct supervisor_connect_event *ev)
{
	if (ev->family == AF_INET)
		return ntohl(((const struct sockaddr_in *)&ev->sa)->sin_addr.s_addr) == INADDR_LOOPBACK;
	const struct in6_addr *a = &((const struct sockaddr_in6 *)&ev->sa)->sin6_addr;
	return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127 && a->s6_addr[13] == 0 &&
	       a->s6_addr[14] == 0 && a->s6_addr[15] == 1;
}

enum supervisor_connect_verdict supervisor_connect_decide_local(const struct supervisor_connect_event *ev,
							  const struct policy_port_set *proxy_ports)
{
	switch (ev->addr_status) {
	case SUPERVISOR_CONNECT_ADDR_NONE:
		return SUPERVISOR_CONNECT_CONTINUE;
	case SUPERVISOR_CONNECT_ADDR_UNREADABLE:
		return SUPERVISOR_CONNECT_REFUSE;
	case SUPERVISOR_CONNECT_ADDR_BAD_LEN:
		/* The kernel refuses such a length itself (EINVAL), unless the
		 * family was short for IP: refuse those here as well. */
		return (ev->family == AF_INET || ev->family == AF_INET6 ||
			ev->family == AF_UNSPEC)
			       ? SUPERVISOR_CONNECT_REFUSE
			       : SUPERVISOR_CONNECT_CONTINUE;
	case SUPERVISOR_CONNECT_ADDR_OK:
		break;
	}
	if (ev->family != AF_INET && ev->family != AF_INET6)
		return SUPERVISOR_CONNECT_CONTINUE;
	if (ev->call == SUPERVISOR_CONNECT_CALL_CONNECT && ev->sock_type == SOCK_STREAM &&
	    is_proxy_address(ev) && policy_port_set_has(proxy_ports, ev->port))
		return SUPERVISOR_CONNECT_ON_BEHALF;
	return SUPERVISOR_CONNECT_REFUSE;
}

const char *supervisor_connect_call_name(enum supervisor_connect_call c)
{
	switch (c) {
	case SUPERVISOR_CONNECT_CALL_CONNECT:
		return "connect";
	case SUPERVISOR_CONNECT_CALL_SENDTO:
		return "sendto";
	case SUPERVISOR_CONNECT_CALL_SENDMSG:
		return "sendmsg";
	case SUPERVISOR_CONNECT_CALL_SENDMMSG:
		return "sendmmsg";
	case SUPERVISOR_CONNECT_CALL_OTHER:
		break;
	}
	return "other";
}

bool supervisor_connect_event_dst(const struct supervisor_connect_event *ev, char *out, size_t cap)
{
	char ip[INET6_ADDRSTRLEN];
	int n = -1;

	if (cap)
		out[0] = '\0';
	if (ev->addr_status != SUPERVISOR_CONNECT_ADDR_OK)
		return false;
	if (ev->family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&ev->sa;
		if (inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip)))
			n = snprintf(out, cap, "%s:%u", ip, (unsigned)ev->port);
	} else if (ev->family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&ev->sa;
		if (inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip)))
			n = snprintf(out, cap, "[%s]:%u", ip, (unsigned)ev->port);
	}
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			out[0] = '\0';
		return false;
	}
	return true;
}

/* The thread's comm, its thread group id, and that id inside the
 * sandbox's own pid namespace (identity.h, shared with the owner lookup). */
static void read_identity(pid_t tid, struct supervisor_connect_event *ev)
{
	struct supervisor_identity id;

	supervisor_identity_read(tid, &id);
	ev->pid = id.pid;
	ev->ns_pid = id.ns_pid;
	_Static_assert(sizeof(ev->comm) == sizeof(id.comm), "comm sizes differ");
	memcpy(ev->comm, id.comm, sizeof(ev->comm));
}

/* Where the call's address is and how long the caller says it is. */
static void locate_address(const struct seccomp_data *d, struct supervisor_connect_event *ev,
			   uint64_t *where, int64_t *len)
{
	*where = 0;
	*len = 0;
	switch (ev->call) {
	case SUPERVISOR_CONNECT_CALL_CONNECT:
		/* connect(fd, addr, int addrlen): the kernel truncates the
		 * int argument to its low 32 bits. */
		*where = d->args[1];
		*len = (int32_t)(uint32_t)d->args[2];
		break;
	case SUPERVISOR_CONNECT_CALL_SENDTO:
		/* sendto(fd, buf, len, flags, dest_addr, int addrlen) */
		*where = d->args[4];
		*len = (int32_t)(uint32_t)d->args[5];
		break;
	case SUPERVISOR_CONNECT_CALL_SENDMSG:
	case SUPERVISOR_CONNECT_CALL_SENDMMSG: {
		/* sendmsg(fd, msg, flags), sendmmsg(fd, msgvec, vlen, flags):
		 * struct mmsghdr starts with its struct msghdr, whose first
		 * fields are void *msg_name and int msg_namelen. */
		struct {
			uint64_t name;
			int32_t namelen;
		} h;
		ssize_t n;

		if (ev->call == SUPERVISOR_CONNECT_CALL_SENDMMSG && (uint32_t)d->args[2] == 0) {
			ev->addr_status = SUPERVISOR_CONNECT_ADDR_NONE; /* vlen 0 sends nothing */
			return;
		}
		n = supervisor_read_memory(ev->tid, d->args[1], &h, 12);
		if (n != 12) {
			ev->addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
			ev->addr_err = n < 0 ? (int)-n : EFAULT;
			return;
		}
		if (h.name == 0) {
			ev->addr_status = SUPERVISOR_CONNECT_ADDR_NONE;
			return;
		}
		*where = h.name;
		/* copy_msghdr_from_user: a negative length is EINVAL, a long
		 * one is clamped to sizeof(struct sockaddr_storage). */
		*len = h.namelen > (int32_t)sizeof(struct sockaddr_storage)
			       ? (int64_t)sizeof(struct sockaddr_storage)
			       : h.namelen;
		break;
	}
	case SUPERVISOR_CONNECT_CALL_OTHER:
		ev->addr_status = SUPERVISOR_CONNECT_ADDR_NONE;
		return;
	}
	if (*where == 0)
		ev->addr_status = SUPERVISOR_CONNECT_ADDR_NONE;
}

/* Reads and parses the destination into ev, mirroring the kernel's own
 * length rules (move_addr_to_kernel, inet_stream_connect, tcp_v4_connect,
 * tcp_v6_connect), so that a call the kernel would refuse with EINVAL is let
 * through to be refused there. */
static void read_address(const struct seccomp_data *d, struct supervisor_connect_event *ev)
{
	uint64_t where;
	int64_t len;
	ssize_t n;

	ev->addr_status = SUPERVISOR_CONNECT_ADDR_OK;
	locate_address(d, ev, &where, &len);
	if (ev->addr_status != SUPERVISOR_CONNECT_ADDR_OK)
		return;
	if (len < (int64_t)sizeof(sa_family_t) || len > (int64_t)sizeof(struct sockaddr_storage)) {
		ev->addr_status = SUPERVISOR_CONNECT_ADDR_BAD_LEN;
		return;
	}
	n = supervisor_read_memory(ev->tid, where, &ev->sa, (size_t)len);
	if (n != (ssize_t)len) {
		/* Partial: the kernel's copy of the whole length would fault. */
		memset(&ev->sa, 0, sizeof(ev->sa));
		ev->addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
		ev->addr_err = n < 0 ? (int)-n : EFAULT;
		return;
	}
	ev->sa_len = (socklen_t)len;
	ev->family = ev->sa.ss_family;
	if (ev->family == AF_INET) {
		if (len < (int64_t)sizeof(struct sockaddr_in)) {
			ev->addr_status = SUPERVISOR_CONNECT_ADDR_BAD_LEN;
			return;
		}
		ev->port = ntohs(((const struct sockaddr_in *)&ev->sa)->sin_port);
	} else if (ev->family == AF_INET6) {
		/* SIN6_LEN_RFC2133: sin6_scope_id is optional. */
		if (len < (int64_t)offsetof(struct sockaddr_in6, sin6_scope_id)) {
			ev->addr_status = SUPERVISOR_CONNECT_ADDR_BAD_LEN;
			return;
		}
		ev->port = ntohs(((const struct sockaddr_in6 *)&ev->sa)->sin6_port);
	}
}

static enum supervisor_connect_call call_of(const struct seccomp_data *d)
{
	if (d->arch != AUDIT_ARCH_X86_64)
		return SUPERVISOR_CONNECT_CALL_OTHER; /* the filter kills these first */
	switch (d->nr) {
	case SYS_connect:
		return SUPERVISOR_CONNECT_CALL_CONNECT;
	case SYS_sendto:
		return SUPERVISOR_CONNECT_CALL_SENDTO;
	case SYS_sendmsg:
		return SUPERVISOR_CONNECT_CALL_SENDMSG;
	case SYS_sendmmsg:
		return SUPERVISOR_CONNECT_CALL_SENDMMSG;
	default:
		return SUPERVISOR_CONNECT_CALL_OTHER;
	}
}

/* Sends the answer for id; 0, -ENOENT (the call is gone) or -errno.
 * result: what an ON_BEHALF call returns (0 or -errno). */
static int answer(int fd, uint64_t id, enum supervisor_connect_verdict v, int result)
{
	/* result: also what a REFUSE returns (-ECONNREFUSED when 0) */
	union resp_buf rb;

	/* Zeroed to NOTIF_BUF, at least the kernel's seccomp_notif_resp size
	 * (checked before the receive), so any field it adds reads as 0. */
	memset(&rb, 0, sizeof(rb));
	rb.r.id = id;
	if (v == SUPERVISOR_CONNECT_REFUSE) {
		rb.r.error = result ? result : -ECONNREFUSED;
	} else if (v == SUPERVISOR_CONNECT_ON_BEHALF) {
		/* the call returns result: bytes sent (val), or -1 with errno */
		if (result < 0)
			rb.r.error = result;
		else
			rb.r.val = result;
	} else {
		/* CONTINUE needs error == val == 0 (seccomp_unotify(2)). */
		rb.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	}
	while (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &rb) != 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int supervisor_connect_watch_sync_wake(int listener_fd)
{
	/* The flags are the argument itself, not a pointer to them
	 * (seccomp_notify_ioctl). */
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		  (unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) != 0)
		return -errno;
	return 0;
}

void supervisor_connect_cache_clear(struct supervisor_connect_cache *cache)
{
	if (cache && cache->pidfd >= 0)
		close(cache->pidfd);
	if (cache) {
		cache->pid = 0;
		cache->pidfd = -1;
	}
}

/* A copy of the caller's socket through a new pidfd, or -1.  A pidfd names
 * a process: the calling thread's id is one unless the thread is not its
 * process's first (pidfd_open(2) fails: EINVAL before Linux 6.9, ENOENT
 * since), and then the process id is read from /proc (ev->pid).  Only a
 * pidfd opened by the caller's own id goes to the cache (watch.h). */
static int copy_through_new_pidfd(struct supervisor_connect_event *ev,
				  struct supervisor_connect_cache *cache, int *copy_err)
{
	bool own = true;
	int pidfd = (int)syscall(SYS_pidfd_open, ev->tid, 0);
	if (pidfd < 0) {
		own = false;
		if (!ev->pid)
			read_identity(ev->tid, ev);
		if (ev->pid > 0 && ev->pid != ev->tid)
			pidfd = (int)syscall(SYS_pidfd_open, ev->pid, 0);
	}
	if (pidfd < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, ev->sockfd, 0);
	if (fd < 0)
		*copy_err = errno;
	if (own && fd >= 0 && cache) {
		supervisor_connect_cache_clear(cache);
		cache->pid = ev->tid;
		cache->pidfd = pidfd;
	} else {
		close(pidfd);
	}
	return fd;
}

/* The type of the caller's socket, through a copy of its fd (pidfd_getfd(2):
 * the same ptrace access check as reading its memory).  0 when unknown.
 * The copy is left in *copy, for the caller to close once the call is
 * answered: a close(2) less before the answer; *copy_err gets
 * pidfd_getfd(2)'s errno when the copy itself was refused (0 otherwise). */
static int read_socket_type(struct supervisor_connect_event *ev,
			    struct supervisor_connect_cache *cache, int *copy, int *copy_err)
{
	int type = 0, fd;

	*copy_err = 0;
	socklen_t len = sizeof(type);

	if (cache && cache->pidfd >= 0 && cache->pid == ev->tid) {
		fd = (int)syscall(SYS_pidfd_getfd, cache->pidfd, ev->sockfd, 0);
		if (fd < 0)
			*copy_err = errno;
		if (fd < 0 && *copy_err == ESRCH) {
			/* that process is gone: the id may be another's now */
			supervisor_connect_cache_clear(cache);
			*copy_err = 0;
			fd = copy_through_new_pidfd(ev, cache, copy_err);
		}
	} else {
		fd = copy_through_new_pidfd(ev, cache, copy_err);
	}
	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		type = 0;
	*copy = fd;
	return type;
}

/* The caller is gone (or was interrupted): its pid may already name another
 * process, so nothing read through it counts. */
static void withdraw(struct supervisor_connect_event *ev)
{
	ev->withdrawn = true;
	ev->pid = 0;
	ev->ns_pid = 0;
	ev->comm[0] = '\0';
	memset(&ev->sa, 0, sizeof(ev->sa));
	ev->sa_len = 0;
	ev->family = AF_UNSPEC;
	ev->port = 0;
	ev->addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
	ev->addr_err = ESRCH;
	ev->sock_type = 0;
}

/* The file status flags of the caller's descriptor, from
 * /proc/PID/fdinfo/FD ("flags:\t0NNNN", octal, O_CLOEXEC included); -1
 * when unreadable. */
static long fdinfo_flags(pid_t pid, int fd)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	ssize_t n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *t = strstr(buf, "\nflags:");
	char *end;
	if (!t)
		return -1;
	long v = strtol(t + strlen("\nflags:"), &end, 8);
	return end == t + strlen("\nflags:") ? -1 : v;
}

/* Where pidfd_getfd(2) is refused (Docker's default seccomp profile allows
 * it only with CAP_SYS_PTRACE): a TCP socket of porta's own, connected by
 * porta to the address it checked, put in place of the caller's descriptor
 * (SECCOMP_IOCTL_NOTIF_ADDFD with SETFD, as dup2(2) would), carrying the
 * caller's O_NONBLOCK and close-on-exec.  The destination is porta's choice
 * whatever the caller's memory says later; what the caller set on its own
 * socket before connecting (options, a bound port) is not carried over.
 * Only for the degraded host's proxies, where the second filter
 * (POLICY_SECCOMP_CLOSED_NET) lets no IP socket but TCP exist.  0 or -errno. */
static int connect_by_replacing(int listener_fd, uint64_t id,
				const struct supervisor_connect_event *ev)
{
	long flags = fdinfo_flags(ev->pid, ev->sockfd);
	if (flags < 0)
		return -ECONNREFUSED;
	int fd = socket(ev->family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0)
		return -ECONNREFUSED;
	int err = 0;
	if (connect(fd, (const struct sockaddr *)&ev->sa, ev->sa_len) < 0)
		err = -errno;
	if (!err && (flags & O_NONBLOCK) && fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		err = -errno;
	if (!err) {
		struct seccomp_notif_addfd a = {
			.id = id,
			.flags = SECCOMP_ADDFD_FLAG_SETFD,
			.srcfd = (uint32_t)fd,
			.newfd = (uint32_t)ev->sockfd,
			.newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0,
		};
		if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0)
			err = errno == ENOENT ? -ENOENT : -ECONNREFUSED;
	}
	close(fd);
	return err;
}

/* The supervisor's own connect(2) of a copy of the caller's socket (the same
 * open file description) to the address it read: 0 or -errno.  Where the
 * copy is refused, connect_by_replacing(). */
static int connect_on_behalf(int listener_fd, uint64_t id, int pidfd,
			     const struct supervisor_connect_event *ev)
{
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, ev->sockfd, 0);
	if (fd < 0 && (errno == EPERM || errno == EACCES))
		return connect_by_replacing(listener_fd, id, ev);
	if (fd < 0)
		return -ECONNREFUSED;
	int r = connect(fd, (const struct sockaddr *)&ev->sa, ev->sa_len);
	int err = r < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* The kernel's sizes of its notification structs: fixed for the kernel
 * that runs, so asked once (the event loop's thread only). */
static int notif_sizes_fit(void)
{
	static int fit = 1; /* 1: not asked yet; 0: they fit; -errno */

	if (fit == 1) {
		struct seccomp_notif_sizes sizes;
		if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
			return -errno; /* asked again next time */
		/* a kernel from the future: closing the listener is safe */
		fit = sizes.seccomp_notif > sizeof(union notif_buf) ||
				      sizes.seccomp_notif_resp > sizeof(union resp_buf)
			      ? -E2BIG
			      : 0;
	}
	return fit;
}

/* A call porta makes on the caller's behalf (unixsock.h), through its copy
 * of the caller's socket: every call the watch does not refuse, never let
 * go on, since the kernel would look the descriptor up again (another
 * thread may have put a Unix socket in its place, escape corpus row 108)
 * and read the address again.  The Unix rule decides names when the copy
 * is a Unix socket (unix_socket). */
static int handle_unix(int listener_fd, struct supervisor_unix *ux, const struct seccomp_data *d,
		       int copy, bool unix_socket, struct supervisor_connect_cache *cache,
		       struct supervisor_connect_event *ev, struct supervisor_unix_result *ures)
{
	uint64_t id = ev->id;

	/* The copy came through a pid: it is the caller's socket only if the
	 * call is still there (the pid not yet another process's). */
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
		withdraw(ev);
		return 0;
	}
	/* the pidfd for the descriptors a message passes: the cache's when it
	 * names this process (read_socket_type() just filled it) */
	int pidfd = cache && cache->pidfd >= 0 && cache->pid == ev->tid ? cache->pidfd : -1;
	bool own_pidfd = false;
	if (pidfd < 0) {
		if (!ev->pid)
			read_identity(ev->tid, ev);
		pidfd = (int)syscall(SYS_pidfd_open, ev->pid > 0 ? ev->pid : ev->tid, 0);
		own_pidfd = pidfd >= 0;
	}
	supervisor_unix_call(ux, listener_fd, id, d, ev->tid, pidfd, copy, unix_socket, ures);
	if (own_pidfd)
		close(pidfd);
	ev->verdict = ures->withheld ? SUPERVISOR_CONNECT_REFUSE : SUPERVISOR_CONNECT_ON_BEHALF;
	if (ev->verdict == SUPERVISOR_CONNECT_REFUSE && !ev->pid)
		read_identity(ev->tid, ev);
	if (ev->verdict == SUPERVISOR_CONNECT_REFUSE &&
	    ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
		withdraw(ev);
	if (ures->deferred)
		return 0; /* a thread answers */
	int r = answer(listener_fd, id, SUPERVISOR_CONNECT_ON_BEHALF, ures->result);
	if (r == -ENOENT) {
		withdraw(ev);
		return 0;
	}
	return r;
}

static int handle(int listener_fd, const struct policy_port_set *allowed, bool local,
		  int refuse_err, struct supervisor_connect_cache *cache,
		  struct supervisor_connect_event *ev, bool open_net, struct supervisor_unix *ux,
		  struct supervisor_unix_result *ures)
{
	struct pollfd p = { .fd = listener_fd, .events = POLLIN };
	union notif_buf nb;
	uint64_t id;
	int r, copy = -1; /* the caller's socket, copied to read its type */

	if (!allowed || !ev)
		return -EINVAL;
	if (listener_fd < 0)
		return -EBADF; /* poll(2) would skip it and say "nothing pending" */
	memset(ev, 0, sizeof(*ev));
	ev->verdict = SUPERVISOR_CONNECT_CONTINUE;

	/* SECCOMP_IOCTL_NOTIF_RECV blocks when nothing is pending; an event
	 * loop's read callback also runs on POLLHUP (no process left under
	 * the filter), so look first.  Once POLLIN was seen, RECV does not
	 * block: a notification withdrawn meanwhile makes it fail with ENOENT
	 * (seccomp_notify_recv). */
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (p.revents & POLLNVAL)
		return -EBADF;
	if (!(p.revents & POLLIN))
		return (p.revents & (POLLHUP | POLLERR)) ? -EPIPE : -EAGAIN;

	if ((r = notif_sizes_fit()) < 0)
		return r;

	/* The buffer must be zero (EINVAL otherwise, since 5.5). */
	memset(&nb, 0, sizeof(nb));
	while (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_RECV, &nb) != 0) {
		if (errno != EINTR)
			return -errno; /* ENOENT: gone before we got it; nothing to answer */
		memset(&nb, 0, sizeof(nb));
	}

	/* From here on exactly one answer goes out, whatever happens. */
	id = nb.n.id;
	ev->id = id;
	ev->tid = (pid_t)nb.n.pid;
	ev->call = call_of(&nb.n.data);
	ev->sockfd = (int)(uint32_t)nb.n.data.args[0];

	if (ures)
		memset(ures, 0, sizeof(*ures));
	if (ux && ev->tid > 0 && ev->call != SUPERVISOR_CONNECT_CALL_OTHER) {
		/* Which calls are Unix ones is the socket's domain, read through
		 * a copy of it: not the address, which another thread may
		 * rewrite once it was read. */
		int copy_err, domain = 0;
		socklen_t dl = sizeof(domain);
		ev->sock_type = read_socket_type(ev, cache, &copy, &copy_err);
		if (copy >= 0 && getsockopt(copy, SOL_SOCKET, SO_DOMAIN, &domain, &dl) == 0 &&
		    domain == AF_UNIX) {
			r = handle_unix(listener_fd, ux, &nb.n.data, copy, true, cache, ev, ures);
			close(copy);
			return r;
		}
		if (copy < 0 && (copy_err == EPERM || copy_err == EACCES) &&
		    supervisor_unix_fd_is_unix(ev->tid, ev->sockfd)) {
			/* porta may not copy the socket, so it cannot make the
			 * call itself, and letting it go on would let the kernel
			 * read an address porta did not check: refused, said
			 * once (fails closed) */
			static bool said;
			if (!said) {
				said = true;
				log_msg(LOG_LEVEL_ERROR,
					"porta may not copy the command's sockets here (pidfd_getfd: %s, "
					"as under Docker's default seccomp profile without "
					"CAP_SYS_PTRACE): its Unix-socket connections are refused; give "
					"the container CAP_SYS_PTRACE or a profile that allows "
					"pidfd_getfd",
					strerror(copy_err));
			}
			if (ures) {
				ures->looked = true;
				ures->verdict = POLICY_UNIX_REFUSED;
				snprintf(ures->path, sizeof(ures->path), "(a socket porta may not copy)");
			}
			ev->verdict = SUPERVISOR_CONNECT_REFUSE;
			r = answer(listener_fd, id, SUPERVISOR_CONNECT_REFUSE, -EPERM);
			return r == -ENOENT ? 0 : r;
		}
	}
	bool fastopen = (ev->call == SUPERVISOR_CONNECT_CALL_SENDMSG &&
			 (nb.n.data.args[2] & MSG_FASTOPEN)) ||
			(ev->call == SUPERVISOR_CONNECT_CALL_SENDMMSG &&
			 (nb.n.data.args[3] & MSG_FASTOPEN));
	bool ip_watched = !open_net && (fastopen || (ev->call != SUPERVISOR_CONNECT_CALL_SENDMSG &&
						      ev->call != SUPERVISOR_CONNECT_CALL_SENDMMSG));
	if (!ip_watched) {
		/* Not a Unix socket, and a call the IP rules never looked at:
		 * made on the caller's behalf all the same (handle_unix()). */
		if (ux && copy >= 0) {
			r = handle_unix(listener_fd, ux, &nb.n.data, copy, false, cache, ev, ures);
			close(copy);
			return r;
		}
		r = answer(listener_fd, id, SUPERVISOR_CONNECT_CONTINUE, 0);
		if (copy >= 0)
			close(copy);
		return r == -ENOENT ? 0 : r;
	}
	if (ev->tid <= 0) {
		/* 0: the caller is not visible in our pid namespace. */
		ev->addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
		ev->addr_err = ESRCH;
	} else {
		read_address(&nb.n.data, ev);
		if (copy < 0 && ev->addr_status == SUPERVISOR_CONNECT_ADDR_OK &&
		    (ev->family == AF_INET || ev->family == AF_INET6)) {
			int copy_err;
			ev->sock_type = read_socket_type(ev, cache, &copy, &copy_err);
			/* A copy refused (no CAP_SYS_PTRACE under Docker's
			 * profile): on the degraded host the second filter
			 * lets no IP socket but TCP exist, so it is one. */
			if (local && ev->sock_type == 0 && copy < 0 &&
			    (copy_err == EPERM || copy_err == EACCES))
				ev->sock_type = SOCK_STREAM;
		}
	}
	/* The verdict sent below, unless the call is withdrawn meanwhile (and
	 * then nothing read is kept anyway). */
	enum supervisor_connect_verdict v = local ? supervisor_connect_decide_local(ev, allowed)
						  : supervisor_connect_decide(ev, allowed);
	/* A degraded run without the network: Landlock refuses every TCP
	 * connect, loopback's included, and porta's own call on the caller's
	 * behalf would not meet Landlock, so the watch refuses them. */
	if (ux && supervisor_unix_degraded(ux) && !open_net && !local &&
	    ev->addr_status == SUPERVISOR_CONNECT_ADDR_OK &&
	    (ev->family == AF_INET || ev->family == AF_INET6))
		v = SUPERVISOR_CONNECT_REFUSE;
	if (ux && copy >= 0 && v == SUPERVISOR_CONNECT_CONTINUE) {
		r = handle_unix(listener_fd, ux, &nb.n.data, copy, false, cache, ev, ures);
		close(copy);
		return r;
	}
	/* Who called, only for what is recorded (a refusal) or done on its
	 * behalf: two /proc files per call would otherwise stand in the way
	 * of every allowed connect. */
	if (v != SUPERVISOR_CONNECT_CONTINUE && ev->tid > 0 && !ev->pid)
		read_identity(ev->tid, ev);
	/* What was read through the pid counts only once the call is known to
	 * be still there: before it is recorded or acted on.  A call let go
	 * on needs no check: nothing read is kept, and the answer itself
	 * fails (ENOENT) when the call is gone. */
	if (v != SUPERVISOR_CONNECT_CONTINUE &&
	    ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
		withdraw(ev);

	int result = 0;
	ev->verdict = v;
	if (local) {
		if (ev->verdict == SUPERVISOR_CONNECT_ON_BEHALF) {
			/* Only for the calls porta makes itself (not every
			 * Unix-socket connect): the pidfd, then the validity
			 * check again, so that it names the caller and not a
			 * later process that reused its pid. */
			int pidfd = (int)syscall(SYS_pidfd_open, ev->pid, 0);
			if (pidfd >= 0 && ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
				result = connect_on_behalf(listener_fd, id, pidfd, ev);
			else
				result = -ECONNREFUSED;
			if (pidfd >= 0)
				close(pidfd);
		}
	} else {
		result = refuse_err;
	}
	r = answer(listener_fd, id, ev->verdict, result);
	if (copy >= 0)
		close(copy);
	if (r == -ENOENT) {
		/* Gone between the check and the answer: the same rule, nothing
		 * read through its pid is kept (supervisor_connect_event). */
		withdraw(ev);
		return 0;
	}
	return r;
}

int supervisor_connect_watch_handle(int listener_fd, const struct policy_port_set *allowed,
				    struct supervisor_connect_cache *cache,
				    struct supervisor_connect_event *ev)
{
	return handle(listener_fd, allowed, false, -ECONNREFUSED, cache, ev, false, NULL, NULL);
}

int supervisor_connect_watch_handle_mode(int listener_fd, enum supervisor_watch_mode mode,
					 const struct policy_port_set *allowed,
					 struct supervisor_unix *ux,
					 struct supervisor_connect_cache *cache,
					 struct supervisor_connect_event *ev,
					 struct supervisor_unix_result *ures)
{
	return handle(listener_fd, allowed, mode == SUPERVISOR_WATCH_LOCAL,
		      mode == SUPERVISOR_WATCH_OFFLINE ? -ENETUNREACH : -ECONNREFUSED, cache, ev,
		      mode == SUPERVISOR_WATCH_OPEN, ux, ures);
}

int supervisor_connect_watch_handle_offline(int listener_fd, const struct policy_port_set *allowed,
					    struct supervisor_connect_cache *cache,
					    struct supervisor_connect_event *ev)
{
	return handle(listener_fd, allowed, false, -ENETUNREACH, cache, ev, false, NULL, NULL);
}

int supervisor_connect_watch_handle_local(int listener_fd, const struct policy_port_set *proxy_ports,
					  struct supervisor_connect_cache *cache,
					  struct supervisor_connect_event *ev)
{
	return handle(listener_fd, proxy_ports, true, 0, cache, ev, false, NULL, NULL);
}
