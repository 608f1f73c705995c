/* supervisor/owner.c: see owner.h. */
#include "supervisor/owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "supervisor/identity.h"

struct supervisor_owner {
	int diag_fd;
	int proc_fd;         /* /proc, a directory fd */
	dev_t ns_dev;        /* the sandbox's pid namespace (stat of /proc/INIT/ns/pid) */
	ino_t ns_ino;
	uint32_t seq;
	pid_t init;          /* init's host pid: the root of the walk */
	pid_t recent[SUPERVISOR_OWNER_RECENT]; /* host pids, the latest holder first */
	size_t n_recent;
	/* scratch, last and never zeroed (supervisor_owner_create()) */
	pid_t walk[SUPERVISOR_OWNER_MAX_PROCS]; /* the walk's queue */
	char children[65536]; /* one children file */
};

/* ---- pure parts -------------------------------------------------------- */

struct ip_end {
	int family;        /* AF_INET or AF_INET6 */
	uint8_t addr[16];  /* 4 bytes for AF_INET */
	uint16_t port;     /* network order */
};

/* An address as the kernel's tables hold it: ::ffff:a.b.c.d, which a
 * dual-stack socket shows for an IPv4 peer, is the IPv4 socket's a.b.c.d. */
static bool ip_end_of(const struct sockaddr *sa, socklen_t len, struct ip_end *e)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(e, 0, sizeof(*e));
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		e->family = AF_INET;
		memcpy(e->addr, &s4->sin_addr, 4);
		e->port = s4->sin_port;
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		e->port = s6->sin6_port;
		if (memcmp(s6->sin6_addr.s6_addr, mapped, sizeof(mapped)) == 0) {
			e->family = AF_INET;
			memcpy(e->addr, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			e->family = AF_INET6;
			memcpy(e->addr, s6->sin6_addr.s6_addr, 16);
		}
		return true;
	}
	return false;
}

size_t supervisor_owner_diag_request(int protocol, const struct sockaddr *peer, socklen_t peer_len,
				     const struct sockaddr *local, socklen_t local_len,
				     uint32_t seq, void *buf, size_t cap)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 req;
	} m;
	struct ip_end prog, ours;

	if (protocol != IPPROTO_TCP && protocol != IPPROTO_UDP)
		return 0;
	if (!ip_end_of(peer, peer_len, &prog) || !ip_end_of(local, local_len, &ours) ||
	    prog.family != ours.family || cap < sizeof(m))
		return 0;
	memset(&m, 0, sizeof(m));
	m.nh.nlmsg_len = sizeof(m);
	m.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m.nh.nlmsg_flags = NLM_F_REQUEST;
	m.nh.nlmsg_seq = seq;
	m.req.sdiag_family = (uint8_t)prog.family;
	m.req.sdiag_protocol = (uint8_t)protocol;
	m.req.idiag_states = ~0u;
	size_t alen = prog.family == AF_INET ? 4 : 16;
	/* TCP: inet_diag_find_one_icsk() looks up the socket whose own end is
	 * src and whose remote end is dst; UDP: udp_dump_one() the socket that
	 * receives from src at dst ("src and dst are swapped for historical
	 * reasons", net/ipv4/udp_diag.c). */
	const struct ip_end *src = protocol == IPPROTO_TCP ? &prog : &ours;
	const struct ip_end *dst = protocol == IPPROTO_TCP ? &ours : &prog;
	memcpy(m.req.id.idiag_src, src->addr, alen);
	memcpy(m.req.id.idiag_dst, dst->addr, alen);
	m.req.id.idiag_sport = src->port;
	m.req.id.idiag_dport = dst->port;
	m.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	m.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	memcpy(buf, &m, sizeof(m));
	return sizeof(m);
}

enum supervisor_owner_reply supervisor_owner_diag_parse(const void *buf, size_t len, uint32_t seq,
							uint16_t port, uint16_t our_port,
							uint32_t *inode)
{
	const uint8_t *p = buf;
	size_t off = 0;

	*inode = 0;
	while (len - off >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nh;
		memcpy(&nh, p + off, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - off)
			return SUPERVISOR_OWNER_REPLY_MALFORMED;
		const uint8_t *body = p + off + sizeof(nh);
		size_t body_len = nh.nlmsg_len - sizeof(nh);
		off += NLMSG_ALIGN(nh.nlmsg_len) < len - off ? NLMSG_ALIGN(nh.nlmsg_len) : len - off;
		if (nh.nlmsg_seq != seq)
			continue; /* an answer to an earlier request, read late */
		if (nh.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;
			if (body_len < sizeof(e.error))
				return SUPERVISOR_OWNER_REPLY_MALFORMED;
			memcpy(&e.error, body, sizeof(e.error));
			if (e.error == 0)
				continue; /* an acknowledgement: not an answer */
			return e.error == -ENOENT ? SUPERVISOR_OWNER_REPLY_NOT_FOUND
						  : SUPERVISOR_OWNER_REPLY_ERROR;
		}
		if (nh.nlmsg_type != SOCK_DIAG_BY_FAMILY)
			continue;
		struct inet_diag_msg msg;
		if (body_len < sizeof(msg))
			return SUPERVISOR_OWNER_REPLY_MALFORMED;
		memcpy(&msg, body, sizeof(msg));
		/* the socket found must be the program's: its own port, and
		 * for TCP connected to ours (a lookup falls back to listeners,
		 * __inet_lookup(), and those have no remote port) */
		if (ntohs(msg.id.idiag_sport) != port ||
		    (our_port && ntohs(msg.id.idiag_dport) != our_port) ||
		    msg.idiag_state == TCP_LISTEN || msg.idiag_inode == 0)
			return SUPERVISOR_OWNER_REPLY_NOT_FOUND;
		*inode = msg.idiag_inode;
		return SUPERVISOR_OWNER_REPLY_FOUND;
	}
	return off == len ? SUPERVISOR_OWNER_REPLY_NONE : SUPERVISOR_OWNER_REPLY_MALFORMED;
}

bool supervisor_owner_socket_link(const char *link, size_t n, uint32_t *inode)
{
	static const char pre[] = "socket:[";
	size_t pl = sizeof(pre) - 1;
	uint64_t v = 0;

	if (n < pl + 2 || memcmp(link, pre, pl) != 0 || link[n - 1] != ']')
		return false;
	for (size_t i = pl; i < n - 1; i++) {
		if (link[i] < '0' || link[i] > '9' || (i == pl && link[i] == '0' && n - 1 - pl > 1))
			return false;
		v = v * 10 + (uint64_t)(link[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*inode = (uint32_t)v;
	return true;
}

size_t supervisor_owner_parse_pids(const char *buf, size_t n, pid_t *out, size_t cap)
{
	size_t k = 0;
	size_t i = 0;

	while (i < n) {
		while (i < n && buf[i] == ' ')
			i++;
		if (i == n)
			break;
		uint64_t v = 0;
		size_t digits = 0;
		while (i < n && buf[i] >= '0' && buf[i] <= '9' && v <= 0x7fffffff) {
			v = v * 10 + (uint64_t)(buf[i++] - '0');
			digits++;
		}
		if (!digits || v == 0 || v > 0x7fffffff || (i < n && buf[i] != ' '))
			break; /* not the kernel's format: what was read so far */
		if (k < cap)
			out[k] = (pid_t)v;
		k++;
	}
	return k;
}

/* ---- the kernel's answer ------------------------------------------------ */

static uint16_t port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

/* The inode of the program's socket, or 0.  A request to the kernel is
 * handled inside sendmsg(2) (netlink_unicast_kernel() -> sock_diag_rcv()),
 * so the answer is queued when send returns: the non-blocking receive that
 * follows finds it, and nothing waits on the event loop. */
static uint32_t ask_kernel(struct supervisor_owner *o, int protocol, const struct sockaddr *peer,
			   socklen_t peer_len, const struct sockaddr *local, socklen_t local_len)
{
	union {
		struct nlmsghdr align;
		uint8_t b[8192];
	} buf;
	uint32_t seq = ++o->seq;
	size_t n = supervisor_owner_diag_request(protocol, peer, peer_len, local, local_len, seq,
						 buf.b, sizeof(buf.b));
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (n == 0)
		return 0;
	while (sendto(o->diag_fd, buf.b, n, MSG_DONTWAIT, (struct sockaddr *)&kernel,
		      sizeof(kernel)) < 0) {
		if (errno != EINTR)
			return 0;
	}
	for (int tries = 0; tries < 8; tries++) {
		ssize_t got = recv(o->diag_fd, buf.b, sizeof(buf.b), MSG_DONTWAIT);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0; /* EAGAIN: no answer; ENOBUFS: answers were lost */
		uint32_t inode;
		switch (supervisor_owner_diag_parse(buf.b, (size_t)got, seq, port_of(peer),
						    protocol == IPPROTO_TCP ? port_of(local) : 0,
						    &inode)) {
		case SUPERVISOR_OWNER_REPLY_FOUND:
			return inode;
		case SUPERVISOR_OWNER_REPLY_NONE:
			continue; /* a late answer to an earlier request */
		case SUPERVISOR_OWNER_REPLY_NOT_FOUND:
		case SUPERVISOR_OWNER_REPLY_ERROR:
		case SUPERVISOR_OWNER_REPLY_MALFORMED:
			return 0;
		}
	}
	return 0;
}

/* ---- the holder ---------------------------------------------------------- */

/* True when pid is a process of the sandbox's pid namespace.  /proc/PID/ns/pid
 * needs ptrace read access (proc(5)): a process porta may not inspect is not
 * one it attributes anything to. */
static bool in_sandbox(const struct supervisor_owner *o, pid_t pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "%d/ns/pid", (int)pid);
	return fstatat(o->proc_fd, path, &st, 0) == 0 && st.st_ino == o->ns_ino &&
	       st.st_dev == o->ns_dev;
}

/* True when one of pid's fds is the socket inode.  Each link read spends
 * one of *budget.  A process that exits meanwhile, or whose fds porta may
 * not read, holds nothing. */
static bool holds(const struct supervisor_owner *o, pid_t pid, uint32_t inode, size_t *budget)
{
	char path[32], link[64];
	bool found = false;

	snprintf(path, sizeof(path), "%d/fd", (int)pid);
	int dfd = openat(o->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return false;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return false;
	}
	struct dirent *de;
	while (!found && *budget > 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		(*budget)--;
		/* the links of /proc/PID/fd are magic: readlinkat(2) gives their
		 * text without following them (proc_fd_link()) */
		ssize_t l = readlinkat(dfd, de->d_name, link, sizeof(link));
		uint32_t ino;
		found = l > 0 && supervisor_owner_socket_link(link, (size_t)l, &ino) && ino == inode;
	}
	closedir(d); /* closes dfd */
	return found;
}

static void remember(struct supervisor_owner *o, pid_t pid)
{
	size_t i = 0;

	while (i < o->n_recent && o->recent[i] != pid)
		i++;
	if (i == o->n_recent && o->n_recent < SUPERVISOR_OWNER_RECENT)
		o->n_recent++;
	if (i == SUPERVISOR_OWNER_RECENT)
		i--;
	memmove(o->recent + 1, o->recent, i * sizeof(o->recent[0]));
	o->recent[0] = pid;
}

static bool was_recent(const struct supervisor_owner *o, pid_t pid)
{
	for (size_t i = 0; i < o->n_recent; i++)
		if (o->recent[i] == pid)
			return true;
	return false;
}

/* Appends the children of every thread of pid (/proc/PID/task/TID/children,
 * proc(5)) to q[*n..cap).  What it cannot read (a kernel without
 * CONFIG_PROC_CHILDREN, a full q) is left to find_holder()'s scan. */
static void add_children(struct supervisor_owner *o, pid_t pid, pid_t *q, size_t *n, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "%d/task", (int)pid);
	int tfd = openat(o->proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return; /* gone: its children went to init, read later or by the scan */
	DIR *d = fdopendir(tfd);
	if (!d) {
		close(tfd);
		return;
	}
	struct dirent *de;
	while (*n < cap && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%.20s/children", de->d_name);
		int fd = openat(tfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		size_t got = 0;
		ssize_t r;
		while (got < sizeof(o->children) &&
		       (r = read(fd, o->children + got, sizeof(o->children) - got)) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			got += (size_t)r;
		}
		close(fd);
		size_t room = cap - *n;
		size_t k = supervisor_owner_parse_pids(o->children, got, q + *n, room);
		*n += k < room ? k : room;
	}
	closedir(d);
}

static bool listed(const pid_t *q, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (q[i] == pid)
			return true;
	return false;
}

/* The host pid of a process holding the socket, or 0, in this order: the
 * last holders (a program that opened one connection usually opens the
 * next); init's descendants, breadth first (a parent before its children),
 * which costs what the sandbox holds and nothing of the host's; then, for
 * what that walk cannot see (a process that moved to a new parent while it
 * was read, a kernel without children files, more than
 * SUPERVISOR_OWNER_MAX_PROCS processes), every other process of /proc of
 * the sandbox's pid namespace, in pid order.  That last step costs a
 * stat(2) per process of the host and is reached only when the walk did
 * not find the holder.  The caller checks the namespace of the one found. */
static pid_t find_holder(struct supervisor_owner *o, uint32_t inode)
{
	size_t budget = SUPERVISOR_OWNER_MAX_LINKS;
	pid_t *q = o->walk;
	size_t nq = 0;

	for (size_t i = 0; i < o->n_recent; i++) {
		if (holds(o, o->recent[i], inode, &budget))
			return o->recent[i];
	}
	q[nq++] = o->init;
	for (size_t i = 0; i < nq && budget > 0; i++) {
		if (!was_recent(o, q[i]) && holds(o, q[i], inode, &budget))
			return q[i];
		add_children(o, q[i], q, &nq, SUPERVISOR_OWNER_MAX_PROCS);
	}
	/* A process can exit and its children move to init (or a subreaper)
	 * after that parent's list was read: those the walk missed are still
	 * in the pid namespace. */
	int dfd = openat(o->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	pid_t found = 0;
	struct dirent *de;
	while (!found && budget > 0 && (de = readdir(d)) != NULL) {
		char *end;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		long v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0 || v > 0x7fffffff)
			continue;
		pid_t pid = (pid_t)v;
		if (!was_recent(o, pid) && !listed(q, nq, pid) && in_sandbox(o, pid) &&
		    holds(o, pid, inode, &budget))
			found = pid;
	}
	closedir(d);
	return found;
}

bool supervisor_owner_lookup(void *arg, int protocol, const struct sockaddr *peer,
			     socklen_t peer_len, const struct sockaddr *local, socklen_t local_len,
			     struct decision_owner *out)
{
	struct supervisor_owner *o = arg;
	struct supervisor_identity id;

	memset(out, 0, sizeof(*out));
	if (!o || !peer || !local)
		return false;
	uint32_t inode = ask_kernel(o, protocol, peer, peer_len, local, local_len);
	if (!inode)
		return false;
	pid_t pid = find_holder(o, inode);
	/* the pid the program sees is NStgid's innermost (identity.h), as the
	 * connect watch writes it; a pid read from a list may have been
	 * reused since by a process outside: asked once more here */
	if (!pid || !in_sandbox(o, pid) || supervisor_identity_read(pid, &id) < 0 || id.ns_pid <= 0)
		return false;
	remember(o, pid);
	out->pid = id.ns_pid;
	_Static_assert(sizeof(out->comm) == sizeof(id.comm), "comm sizes differ");
	memcpy(out->comm, id.comm, sizeof(out->comm));
	return true;
}

/* ---- life cycle ------------------------------------------------------------ */

int supervisor_owner_create(int diag_fd, pid_t init, struct supervisor_owner **out)
{
	char path[32];
	struct stat st;
	_cleanup_fd_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*out = NULL;
	if (proc < 0)
		return -errno;
	snprintf(path, sizeof(path), "%d/ns/pid", (int)init);
	if (init <= 0 || fstatat(proc, path, &st, 0) < 0)
		return init <= 0 ? -EINVAL : -errno;
	/* walk and children are scratch, written before they are read: left
	 * unzeroed, their pages are faulted in only by a walk that needs them,
	 * never by a start-up that makes no connection (docs/benchmarks/startup.md). */
	struct supervisor_owner *o = malloc(sizeof(*o));
	if (!o)
		return -ENOMEM;
	memset(o, 0, offsetof(struct supervisor_owner, walk));
	o->ns_dev = st.st_dev;
	o->ns_ino = st.st_ino;
	o->init = init;
	o->proc_fd = steal_fd(&proc);
	o->diag_fd = diag_fd;
	*out = o;
	return 0;
}

void supervisor_owner_destroy(struct supervisor_owner *o)
{
	if (!o)
		return;
	close(o->diag_fd);
	close(o->proc_fd);
	free(o);
}
