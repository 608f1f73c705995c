/* supervisor/unixsock.c: see unixsock.h. */
#include "supervisor/unixsock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/kernel.h"
#include "policy/options.h"
#include "policy/paths.h"
#include "policy/preset.h"
#include "supervisor/procmem.h"

#if !defined(__x86_64__)
#error "the notified syscalls' argument layout below is x86_64's"
#endif

/* What porta copies of one message: the kernel's own limits are lower (a
 * Unix datagram is at most the socket's send buffer, wmem_max; a control
 * message optmem_max), so nothing the kernel would send is cut. */
#define PAYLOAD_MAX (8u << 20)
#define CONTROL_MAX (64u << 10)
#define IOV_MAX_KERNEL 1024 /* UIO_MAXIOV */
#define ST_RDONLY_FLAG 1    /* statfs(2) f_flags: ST_RDONLY */
#define SHORT_WAIT_MS 2     /* a blocking caller's handshake waited for on the loop */

struct supervisor_unix {
	const struct policy_plan *plan;
	bool degraded;
	bool shared_netns;
	pid_t init;
	char *xdg;
	char **allowed; /* --allow-unix: lexical and, where it exists, real forms */
	size_t n_allowed;
	regex_t *re;    /* the preset's credential expressions and --deny-unix */
	char *agent;    /* $SSH_AUTH_SOCK, real path: a credential socket by name */
	size_t n_re;
	bool compiled;
};

static int add_allowed(struct supervisor_unix *ux, const char *p)
{
	for (size_t i = 0; i < ux->n_allowed; i++) {
		if (strcmp(ux->allowed[i], p) == 0)
			return 0;
	}
	char *c = strdup(p);
	if (!c)
		return -ENOMEM;
	ux->allowed[ux->n_allowed++] = c;
	return 0;
}

struct supervisor_unix *supervisor_unix_create(const struct policy_plan *plan, bool degraded,
					       bool shared_netns, const char *xdg_runtime_dir)
{
	const struct policy_options *o = plan->opts;
	struct supervisor_unix *ux = calloc(1, sizeof(*ux));

	if (!ux)
		return NULL;
	ux->plan = plan;
	ux->degraded = degraded;
	ux->shared_netns = shared_netns;
	if (xdg_runtime_dir && !(ux->xdg = strdup(xdg_runtime_dir)))
		goto fail;
	const char *agent = getenv("SSH_AUTH_SOCK");
	if (agent && agent[0] == '/')
		ux->agent = realpath(agent, NULL); /* NULL when gone: its name then names nothing */
	if (o->allow_unix.n && !(ux->allowed = calloc(2 * o->allow_unix.n, sizeof(char *))))
		goto fail;
	for (size_t i = 0; i < o->allow_unix.n; i++) {
		const char *v = o->allow_unix.v[i];
		char norm[PATH_MAX];
		if (policy_path_normalize(plan->cwd ? plan->cwd : "/", v, strlen(v), norm,
					  sizeof(norm)) &&
		    add_allowed(ux, norm))
			goto fail;
		char *real = realpath(v, NULL);
		int r = real ? add_allowed(ux, real) : 0;
		free(real);
		if (r)
			goto fail;
	}
	return ux;
fail:
	supervisor_unix_destroy(ux);
	return NULL;
}

void supervisor_unix_destroy(struct supervisor_unix *ux)
{
	if (!ux)
		return;
	for (size_t i = 0; i < ux->n_allowed; i++)
		free(ux->allowed[i]);
	free(ux->allowed);
	for (size_t i = 0; i < ux->n_re; i++)
		regfree(&ux->re[i]);
	free(ux->re);
	free(ux->xdg);
	free(ux->agent);
	free(ux);
}

void supervisor_unix_set_init(struct supervisor_unix *ux, pid_t init)
{
	if (ux)
		ux->init = init;
}

/* The credential expressions, compiled at the first pathname socket (the
 * resolver compiled and checked the same ones at start, so none fails
 * here; one that would is skipped). */
static bool credential_name(struct supervisor_unix *ux, const char *path)
{
	const struct policy_options *o = ux->plan->opts;

	if (!ux->compiled) {
		size_t n = 0;
		const char *const *pat = o->preset == POLICY_PRESET_DEFAULT
						 ? policy_preset_sockets(&n)
						 : NULL;
		ux->compiled = true;
		ux->re = calloc(n + o->deny_unix.n + 1, sizeof(regex_t));
		if (!ux->re)
			return true; /* fails closed */
		for (size_t i = 0; i < n + o->deny_unix.n; i++) {
			const char *e = i < n ? pat[i] : o->deny_unix.v[i - n];
			if (regcomp(&ux->re[ux->n_re], e, REG_EXTENDED | REG_NOSUB) == 0)
				ux->n_re++;
		}
	}
	if (!ux->re)
		return true;
	for (size_t i = 0; i < ux->n_re; i++) {
		if (regexec(&ux->re[i], path, 0, NULL, 0) == 0)
			return true;
	}
	return ux->agent && strcmp(ux->agent, path) == 0;
}

/* ---- finding the socket as the caller would --------------------------- */

static ssize_t read_link(const char *link, char *out, size_t cap)
{
	ssize_t n = readlink(link, out, cap - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= cap - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return n;
}

/* The pathname in sun_path[0..n) resolved in tid's root and working
 * directory: an O_PATH descriptor of what the kernel's lookup would find
 * (the last component followed, as unix_find_bsd() does), its path as the
 * sandbox sees it in canon.  -errno: the lookup's own error, which the call
 * returns (ENOENT, EACCES, ELOOP, ...).  A magic link (/proc/self/fd/N) is
 * not followed: it would name porta's own descriptors, not the caller's. */
static int resolve_in_caller(pid_t tid, const char *name, char *canon, size_t cap)
{
	char link[64], want[PATH_MAX];

	if (name[0] == '/') {
		if (strlen(name) >= sizeof(want))
			return -ENAMETOOLONG;
		strcpy(want, name);
	} else {
		char cwd[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
		ssize_t n = read_link(link, cwd, sizeof(cwd));
		if (n < 0)
			return (int)n;
		if (cwd[0] != '/')
			return -ENOENT;
		if (policy_path_join(cwd, name, want, sizeof(want)) == 0)
			return -ENAMETOOLONG;
	}
	snprintf(link, sizeof(link), "/proc/%d/root", (int)tid);
	int root = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, root, want, &how, sizeof(how));
	int err = errno;
	close(root);
	if (fd < 0)
		return -err;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = read_link(link, canon, cap);
	if (n < 0) {
		close(fd);
		return (int)n;
	}
	return fd;
}

/* Is the abstract socket name[0..len) (without its leading NUL) held by a
 * process of the sandbox?  Where the command shares the host's network
 * namespace, porta's own connect would reach the host's abstract sockets,
 * which Landlock's scope keeps from the command: so only a socket of the
 * sandbox's own (the listener's inode in a descriptor of init or one of
 * its descendants) is reached. */
static bool inode_held_below(pid_t pid, unsigned long ino, int depth)
{
	char path[64], link[64], want[48];
	bool found = false;

	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while (!found && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char fdp[sizeof(path) + 1 + sizeof(e->d_name)];
			snprintf(fdp, sizeof(fdp), "%s/%s", path, e->d_name);
			if (read_link(fdp, link, sizeof(link)) > 0 && strcmp(link, want) == 0)
				found = true;
		}
		closedir(d);
	}
	if (found || depth > 64)
		return found;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	struct dirent *t;
	while (!found && (t = readdir(d))) {
		if (t->d_name[0] == '.')
			continue;
		char cp[sizeof(path) + sizeof(t->d_name) + 16];
		snprintf(cp, sizeof(cp), "%s/%s/children", path, t->d_name);
		FILE *f = fopen(cp, "re");
		if (!f)
			continue;
		int child;
		while (!found && fscanf(f, "%d", &child) == 1)
			found = inode_held_below(child, ino, depth + 1);
		fclose(f);
	}
	closedir(d);
	return found;
}

static bool abstract_is_sandboxes(const struct supervisor_unix *ux, pid_t tid,
				  const char *name, size_t len)
{
	char path[64], shown[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	bool any = false, all = true;

	if (ux->init <= 0 || len + 1 >= sizeof(shown))
		return false;
	/* /proc/net/unix shows an abstract name with '@' for its NULs */
	shown[0] = '@';
	for (size_t i = 0; i < len; i++)
		shown[i + 1] = name[i] ? name[i] : '@';
	shown[len + 1] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/net/unix", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		unsigned long ino, flags;
		unsigned type;
		int off = 0;
		/* Num RefCount Protocol Flags Type St Inode Path: the socket a
		 * connect or a datagram reaches is the listening one (flag
		 * __SO_ACCEPTCON) or the bound datagram one; the accepted ones
		 * show the same name and may linger unheld */
		if (sscanf(line, "%*s %*s %*s %lx %x %*s %lu %n", &flags, &type, &ino, &off) != 3 ||
		    !off)
			continue;
		char *p = line + off;
		p[strcspn(p, "\n")] = '\0';
		if (strcmp(p, shown) != 0 || !((flags & 0x10000) || type == SOCK_DGRAM))
			continue;
		any = true;
		if (!inode_held_below(ux->init, ino, 0))
			all = false;
	}
	fclose(f);
	return any && all;
}

/* The kernel's own check of a connect or send to a pathname socket is write
 * permission on its inode, as the caller (unix_find_bsd()); porta makes
 * the call with its own identity, which may be root's: so the caller's
 * file system ids and groups (/proc/TID/status; its capabilities are
 * dropped) against the mode bits.  True when the caller may write it. */
static bool caller_may_write(pid_t tid, const struct stat *st)
{
	char path[64], line[1024];
	unsigned long fsuid = (unsigned long)-1, fsgid = (unsigned long)-1;
	bool in_group = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, c, d;
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &a, &b, &c, &d) == 4)
			fsuid = d;
		else if (sscanf(line, "Gid: %lu %lu %lu %lu", &a, &b, &c, &d) == 4)
			fsgid = d;
		else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;
			for (unsigned long g = strtoul(p, &end, 10); end != p; g = strtoul(p, &end, 10)) {
				if (g == (unsigned long)st->st_gid)
					in_group = true;
				p = end;
			}
		}
	}
	fclose(f);
	if (fsuid == (unsigned long)st->st_uid)
		return st->st_mode & S_IWUSR;
	if (fsgid == (unsigned long)st->st_gid || in_group)
		return st->st_mode & S_IWGRP;
	return st->st_mode & S_IWOTH;
}

/* ---- the decision ------------------------------------------------------ */

/* What the caller named, as one of: a pathname (resolved into *fd, the
 * address to use written as /proc/self/fd/N into *out), an abstract name
 * (checked, copied), or anything else (copied, for the kernel to refuse or
 * act on: AF_UNSPEC disconnects a datagram socket).  0, or -errno for the
 * answer.  *fd stays open for the call, the caller closes it. */
static int destination(struct supervisor_unix *ux, pid_t tid, const struct sockaddr_storage *sa,
		       socklen_t len, struct sockaddr_storage *st_out, socklen_t *out_len, int *fd,
		       struct supervisor_unix_result *res)
{
	struct sockaddr_un *out = (struct sockaddr_un *)st_out;
	*fd = -1;
	memcpy(st_out, sa, len < sizeof(*st_out) ? len : sizeof(*st_out));
	*out_len = len < sizeof(*st_out) ? len : (socklen_t)sizeof(*st_out);
	/* another family's socket: the address as read, for the kernel to
	 * use or refuse on porta's copy of the caller's socket */
	if (!res->unix_socket || sa->ss_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path))
		return 0;
	const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	if (un->sun_path[0] == '\0') {
		res->looked = true;
		snprintf(res->path, sizeof(res->path), "@%.*s", (int)(n - 1), un->sun_path + 1);
		if (ux->shared_netns && !abstract_is_sandboxes(ux, tid, un->sun_path + 1, n - 1)) {
			res->verdict = POLICY_UNIX_REFUSED;
			res->withheld = true;
			return -ECONNREFUSED;
		}
		res->verdict = POLICY_UNIX_GRANTED_WRITABLE; /* the sandbox's own */
		return 0;
	}
	char name[sizeof(un->sun_path) + 1];
	memcpy(name, un->sun_path, n);
	name[n] = '\0';
	res->looked = true;
	snprintf(res->path, sizeof(res->path), "%s", name);
	int s = resolve_in_caller(tid, name, res->path, sizeof(res->path));
	if (s < 0) {
		res->verdict = POLICY_UNIX_REFUSED;
		return s;
	}
	struct policy_unix_query q = {
		.path = res->path,
		.allowed = ux->allowed,
		.n_allowed = ux->n_allowed,
	};
	q.credential = credential_name(ux, res->path);
	if (policy_unix_allowed((const char *const *)ux->allowed, ux->n_allowed, res->path) &&
	    !policy_unix_in_porta_runtime(res->path, ux->xdg)) {
		/* --allow-unix names the host's socket at that path now, whatever
		 * stands over it inside (a cover, an old socket's bind) */
		int h = open(res->path, O_PATH | O_CLOEXEC);
		if (h >= 0) {
			close(s);
			s = h;
		}
	}
	struct stat st;
	if (fstat(s, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		/* what the kernel says of a name that is no socket */
		close(s);
		res->verdict = POLICY_UNIX_REFUSED;
		return -ECONNREFUSED;
	}
	if (!caller_may_write(tid, &st)) {
		close(s);
		res->verdict = POLICY_UNIX_REFUSED;
		return -EACCES;
	}
	if (ux->degraded) {
		q.writable_mount = policy_unix_plan_grants_write(ux->plan, res->path);
	} else {
		struct statfs sf;
		q.writable_mount = fstatfs(s, &sf) == 0 && !(sf.f_flags & ST_RDONLY_FLAG);
	}
	res->verdict = policy_unix_decide(ux->plan, ux->xdg, &q);
	if (!policy_unix_granted(res->verdict)) {
		close(s);
		res->withheld = true;
		return -EACCES;
	}
	memset(out, 0, sizeof(*out));
	out->sun_family = AF_UNIX;
	snprintf(out->sun_path, sizeof(out->sun_path), "/proc/self/fd/%d", s);
	*out_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(out->sun_path) + 1);
	*fd = s;
	return 0;
}

/* ---- making the call --------------------------------------------------- */

/* One message as porta sends it: its own copies of the bytes, the control
 * data (with the caller's descriptors copied in) and the destination. */
struct message {
	struct sockaddr_storage to;
	socklen_t to_len;
	bool named;
	int dest_fd;       /* the resolved socket, named in to */
	struct iovec iov;  /* one buffer holding every iovec's bytes */
	char *control;
	size_t control_len;
	int passed[CONTROL_MAX / sizeof(int)]; /* copies of passed fds */
	size_t n_passed;
	int flags;
};

static void message_free(struct message *m)
{
	if (m->dest_fd >= 0)
		close(m->dest_fd);
	for (size_t i = 0; i < m->n_passed; i++)
		close(m->passed[i]);
	free(m->iov.iov_base);
	free(m->control);
	free(m);
}

/* A netlink request porta sends for the command must be one the command
 * could send: the only netlink the sandbox may open is NETLINK_ROUTE
 * (policy/seccomp_table.c), whose every request but a GET needs
 * CAP_NET_ADMIN over the namespace (rtnetlink_rcv_msg()), as does sending
 * to a multicast group (netlink_sendmsg()); the command has neither, porta
 * has both over the sandbox's own network namespace (and, as root, the
 * host's).  So only GET requests and control messages, to no group, pass;
 * anything else is EPERM, as the kernel would have said to the command. */
static int netlink_allowed(const struct message *m, int protocol)
{
	if (protocol != NETLINK_ROUTE)
		return -EPERM;
	if (m->named && ((const struct sockaddr_nl *)&m->to)->nl_groups)
		return -EPERM;
	const unsigned char *p = m->iov.iov_base;
	size_t left = m->iov.iov_len;
	while (left >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > left)
			break; /* malformed: the kernel ignores the rest */
		if (h.nlmsg_type >= RTM_BASE && (h.nlmsg_type - RTM_BASE) % 4 != 2)
			return -EPERM;
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return 0;
}

static ssize_t send_message(int sock, struct message *m, int extra_flags)
{
	struct msghdr h = {
		.msg_name = m->named ? &m->to : NULL,
		.msg_namelen = m->named ? m->to_len : 0,
		.msg_iov = &m->iov,
		.msg_iovlen = 1,
		.msg_control = m->control_len ? m->control : NULL,
		.msg_controllen = m->control_len,
	};
	ssize_t n = sendmsg(sock, &h, m->flags | extra_flags);
	return n < 0 ? -errno : n;
}

/* A control message porta sends for the command is one the command could
 * send itself: the kernel checks some against the sender's capabilities
 * (sock_cmsg_send(), ip_cmsg_send(), ip6_datagram_send_ctl()), and the
 * sender is porta, which holds every capability over the sandbox's user
 * namespace (it made it) and, run as root, the host's.  The command holds
 * none (its capabilities are dropped), so what needs one is refused here
 * as the kernel would refuse it (EPERM): SO_MARK, SO_PRIORITY above 6, IP
 * options and IPv6 extension headers. */
static int control_allowed(const struct cmsghdr *c)
{
	if (c->cmsg_level == SOL_SOCKET) {
		if (c->cmsg_type == SO_MARK)
			return -EPERM;
		if (c->cmsg_type == SO_PRIORITY && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t prio;
			memcpy(&prio, CMSG_DATA(c), sizeof(prio));
			if (prio > 6)
				return -EPERM;
		}
		return 0;
	}
	if (c->cmsg_level == IPPROTO_IP && (c->cmsg_type == IP_RETOPTS || c->cmsg_type == IP_OPTIONS))
		return -EPERM;
	if (c->cmsg_level == IPPROTO_IPV6 &&
	    (c->cmsg_type == IPV6_HOPOPTS || c->cmsg_type == IPV6_DSTOPTS ||
	     c->cmsg_type == IPV6_RTHDRDSTOPTS || c->cmsg_type == IPV6_RTHDR ||
	     c->cmsg_type == IPV6_2292HOPOPTS || c->cmsg_type == IPV6_2292DSTOPTS ||
	     c->cmsg_type == IPV6_2292RTHDR))
		return -EPERM;
	return 0;
}

/* The caller's descriptors in its SCM_RIGHTS messages, replaced by copies
 * of porta's (the same open files): 0 or -errno (EBADF for one that is not
 * open, as the kernel would say). */
static int copy_passed_fds(struct message *m, int pidfd)
{
	if (m->control_len < sizeof(struct cmsghdr))
		return 0;
	struct msghdr h = { .msg_control = m->control, .msg_controllen = m->control_len };
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		int r = control_allowed(c);
		if (r)
			return r;
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			/* the kernel checks credentials against the sender, porta
			 * here, which may claim more than the command could:
			 * porta's own, which are all it may claim unprivileged */
			struct ucred own = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
			memcpy(CMSG_DATA(c), &own, sizeof(own));
			continue;
		}
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *fds = (int *)CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			int theirs;
			memcpy(&theirs, &fds[i], sizeof(int));
			int mine = (int)syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
			if (mine < 0)
				return errno == EBADF ? -EBADF : -errno;
			if (m->n_passed == sizeof(m->passed) / sizeof(m->passed[0])) {
				close(mine);
				return -ETOOMANYREFS;
			}
			m->passed[m->n_passed++] = mine;
			memcpy(&fds[i], &mine, sizeof(int));
		}
	}
	return 0;
}

/* Reads one struct msghdr of the caller at addr into a message: the name
 * (resolved and decided), every iovec's bytes, the control data.  0 or
 * -errno (the answer). */
static int read_message(struct supervisor_unix *ux, pid_t tid, int pidfd, uint64_t addr,
			struct message *m, struct supervisor_unix_result *res)
{
	struct msghdr h;
	ssize_t n = supervisor_read_memory(tid, addr, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h))
		return -EFAULT;
	if (h.msg_iovlen > IOV_MAX_KERNEL)
		return -EMSGSIZE;
	if (h.msg_name && h.msg_namelen) {
		if ((int)h.msg_namelen < 0)
			return -EINVAL;
		struct sockaddr_storage sa;
		socklen_t len = h.msg_namelen > sizeof(sa) ? (socklen_t)sizeof(sa) : h.msg_namelen;
		memset(&sa, 0, sizeof(sa));
		if (supervisor_read_memory(tid, (uint64_t)(uintptr_t)h.msg_name, &sa, len) !=
		    (ssize_t)len)
			return -EFAULT;
		int r = destination(ux, tid, &sa, len, &m->to, &m->to_len, &m->dest_fd, res);
		if (r)
			return r;
		m->named = true;
	}
	struct iovec *iov = NULL;
	size_t total = 0;
	if (h.msg_iovlen) {
		if (!(iov = calloc(h.msg_iovlen, sizeof(*iov))))
			return -ENOMEM;
		n = supervisor_read_memory(tid, (uint64_t)(uintptr_t)h.msg_iov, iov,
					   h.msg_iovlen * sizeof(*iov));
		if (n != (ssize_t)(h.msg_iovlen * sizeof(*iov))) {
			free(iov);
			return -EFAULT;
		}
		for (size_t i = 0; i < h.msg_iovlen; i++) {
			if (iov[i].iov_len > PAYLOAD_MAX || total + iov[i].iov_len > PAYLOAD_MAX) {
				free(iov);
				return -EMSGSIZE;
			}
			total += iov[i].iov_len;
		}
	}
	m->iov.iov_base = malloc(total ? total : 1);
	m->iov.iov_len = total;
	if (!m->iov.iov_base) {
		free(iov);
		return -ENOMEM;
	}
	size_t at = 0;
	for (size_t i = 0; i < h.msg_iovlen; i++) {
		if (!iov[i].iov_len)
			continue;
		n = supervisor_read_memory(tid, (uint64_t)(uintptr_t)iov[i].iov_base,
					   (char *)m->iov.iov_base + at, iov[i].iov_len);
		if (n != (ssize_t)iov[i].iov_len) {
			free(iov);
			return -EFAULT;
		}
		at += iov[i].iov_len;
	}
	free(iov);
	if (h.msg_control && h.msg_controllen) {
		if (h.msg_controllen > CONTROL_MAX)
			return -ENOBUFS;
		if (!(m->control = malloc(h.msg_controllen)))
			return -ENOMEM;
		m->control_len = h.msg_controllen;
		if (supervisor_read_memory(tid, (uint64_t)(uintptr_t)h.msg_control, m->control,
					   m->control_len) != (ssize_t)m->control_len)
			return -EFAULT;
		int r = copy_passed_fds(m, pidfd);
		if (r)
			return r;
	}
	return 0;
}

static struct message *message_new(void)
{
	struct message *m = calloc(1, sizeof(*m));
	if (m)
		m->dest_fd = -1;
	return m;
}

/* ---- answering later --------------------------------------------------- */

static int send_answer(int listener_fd, uint64_t id, int result)
{
	struct {
		struct seccomp_notif_resp r;
		unsigned char pad[256]; /* a later kernel's larger struct reads zeros */
	} rb;
	memset(&rb, 0, sizeof(rb));
	rb.r.id = id;
	if (result < 0)
		rb.r.error = result;
	else
		rb.r.val = result;
	while (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SEND, &rb) != 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* A call the caller made blocking that would have waited: made again,
 * blocking, by a thread of its own, which answers. */
enum deferred_op {
	DEFER_CONNECT, /* connect again, blocking (a Unix backlog was full) */
	DEFER_WAIT,    /* a TCP connect under way: wait for it, then SO_ERROR */
	DEFER_SEND,    /* send the rest from m's offset, blocking */
};

struct deferred {
	int listener; /* a dup: the loop may close its own */
	uint64_t id;
	int sock;     /* the caller's socket (a copy) */
	enum deferred_op op;
	size_t done;  /* DEFER_SEND: bytes sent already */
	struct message *m; /* connect: m->to only */
};

static int wait_connected(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLOUT };
	int err = 0;
	socklen_t len = sizeof(err);

	while (poll(&p, 1, -1) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return -errno;
	return -err;
}

static void *deferred_main(void *arg)
{
	struct deferred *df = arg;
	int result;

	if (df->op == DEFER_CONNECT) {
		result = connect(df->sock, (struct sockaddr *)&df->m->to, df->m->to_len) < 0 ? -errno
											      : 0;
	} else if (df->op == DEFER_WAIT) {
		result = wait_connected(df->sock);
	} else {
		/* the rest of the bytes, blocking; the control data went with
		 * the first part when some was sent already */
		size_t total = df->m->iov.iov_len, done = df->done;
		ssize_t n;
		do {
			struct message *m = df->m;
			struct iovec whole = m->iov;
			size_t clen = m->control_len;
			m->iov.iov_base = (char *)whole.iov_base + done;
			m->iov.iov_len = total - done;
			if (done)
				m->control_len = 0;
			n = send_message(df->sock, m, MSG_NOSIGNAL);
			m->iov = whole;
			m->control_len = clen;
			if (n > 0)
				done += (size_t)n;
		} while (n > 0 && done < total);
		result = done ? (done > INT32_MAX ? INT32_MAX : (int)done) : (n < 0 ? (int)n : 0);
	}
	(void)send_answer(df->listener, df->id, result);
	close(df->listener);
	close(df->sock);
	message_free(df->m);
	free(df);
	return NULL;
}

/* Hands the call to a thread; true when it took m (and a dup of sock). */
static bool defer(int listener_fd, uint64_t id, int sock, enum deferred_op op, size_t done,
		  struct message *m)
{
	struct deferred *df = calloc(1, sizeof(*df));
	if (!df)
		return false;
	df->listener = fcntl(listener_fd, F_DUPFD_CLOEXEC, 3);
	df->sock = fcntl(sock, F_DUPFD_CLOEXEC, 3);
	df->id = id;
	df->op = op;
	df->done = done;
	df->m = m;
	pthread_attr_t a;
	pthread_t t;
	bool ok = df->listener >= 0 && df->sock >= 0 && pthread_attr_init(&a) == 0;
	if (ok) {
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 256 * 1024);
		ok = pthread_create(&t, &a, deferred_main, df) == 0;
		pthread_attr_destroy(&a);
	}
	if (!ok) {
		if (df->listener >= 0)
			close(df->listener);
		if (df->sock >= 0)
			close(df->sock);
		free(df);
	}
	return ok;
}

/* ---- the calls ---------------------------------------------------------- */

static bool caller_blocks(int sock, int flags)
{
	int fl = fcntl(sock, F_GETFL);
	return fl >= 0 && !(fl & O_NONBLOCK) && !(flags & MSG_DONTWAIT);
}

/* porta's send never waits: what a blocking caller's send would have
 * waited for (a full queue, the rest of a stream's bytes) a thread sends,
 * and answers with the whole count.  Takes m. */
static void finish_send(int listener_fd, uint64_t id, int copy, int flags, struct message *m,
			struct supervisor_unix_result *res)
{
	ssize_t n = send_message(copy, m, MSG_DONTWAIT | MSG_NOSIGNAL);
	bool blocks = caller_blocks(copy, flags);
	if (blocks && (n == -EAGAIN || (n >= 0 && (size_t)n < m->iov.iov_len && res->stream)) &&
	    defer(listener_fd, id, copy, DEFER_SEND, n < 0 ? 0 : (size_t)n, m)) {
		res->deferred = true;
		return;
	}
	res->result = n < 0 ? (int)n : (n > INT32_MAX ? INT32_MAX : (int)n);
	message_free(m);
}

/* A message read (r: 0, or the -errno reading it ended with): vetted
 * (netlink_allowed()) and sent, or answered with the error.  Takes m. */
static void send_read(int listener_fd, uint64_t id, int copy, int flags, int r, struct message *m,
		      struct supervisor_unix_result *res)
{
	if (!r && res->domain == AF_NETLINK)
		r = netlink_allowed(m, res->protocol);
	if (r) {
		res->result = r;
		message_free(m);
		return;
	}
	finish_send(listener_fd, id, copy, flags, m, res);
}

static void do_connect(struct supervisor_unix *ux, int listener_fd, uint64_t id, pid_t tid,
		       const struct seccomp_data *d, int copy, struct supervisor_unix_result *res)
{
	struct sockaddr_storage sa;
	int64_t len = (int32_t)(uint32_t)d->args[2];

	if (len < (int64_t)sizeof(sa_family_t) || len > (int64_t)sizeof(sa)) {
		res->result = -EINVAL;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	if (supervisor_read_memory(tid, d->args[1], &sa, (size_t)len) != (ssize_t)len) {
		res->result = -EFAULT;
		return;
	}
	struct message *m = message_new();
	if (!m) {
		res->result = -ENOMEM;
		return;
	}
	int r = destination(ux, tid, &sa, (socklen_t)len, &m->to, &m->to_len, &m->dest_fd, res);
	/* a netlink socket connected to a group sends to it (netlink_connect()) */
	if (!r && res->domain == AF_NETLINK && sa.ss_family == AF_NETLINK &&
	    len >= (int64_t)sizeof(struct sockaddr_nl) && ((struct sockaddr_nl *)&sa)->nl_groups)
		r = -EPERM;
	if (r) {
		res->result = r;
		message_free(m);
		return;
	}
	/* porta's connect never waits: a blocking caller's file is made
	 * non-blocking for the call (the caller is stopped in it) */
	int fl = fcntl(copy, F_GETFL);
	bool blocking = fl >= 0 && !(fl & O_NONBLOCK);
	if (blocking)
		(void)fcntl(copy, F_SETFL, fl | O_NONBLOCK);
	r = connect(copy, (struct sockaddr *)&m->to, m->to_len) < 0 ? -errno : 0;
	if (blocking)
		(void)fcntl(copy, F_SETFL, fl);
	/* a handshake with a listener on this machine (porta's own, in policy
	 * mode) is done within microseconds: a short wait here spares a thread */
	if (blocking && r == -EINPROGRESS) {
		struct pollfd pf = { .fd = copy, .events = POLLOUT };
		if (poll(&pf, 1, SHORT_WAIT_MS) == 1) {
			int err = 0;
			socklen_t el = sizeof(err);
			r = getsockopt(copy, SOL_SOCKET, SO_ERROR, &err, &el) < 0 ? -errno : -err;
		}
	}
	/* what a blocking connect would have waited for: a Unix backlog with
	 * room (connect again, blocking), a TCP handshake (wait for it) */
	if (blocking && (r == -EAGAIN || r == -EINPROGRESS) &&
	    defer(listener_fd, id, copy, r == -EAGAIN ? DEFER_CONNECT : DEFER_WAIT, 0, m)) {
		res->deferred = true;
		return;
	}
	res->result = r;
	message_free(m);
}

static void do_sendto(struct supervisor_unix *ux, int listener_fd, uint64_t id, pid_t tid,
		      const struct seccomp_data *d, int copy, struct supervisor_unix_result *res)
{
	/* sendto(fd, buf, len, flags, dest_addr, addrlen) */
	struct sockaddr_storage sa;
	int64_t alen = (int32_t)(uint32_t)d->args[5];
	size_t blen = (size_t)d->args[2];
	int flags = (int)d->args[3];

	if (alen < 0) {
		res->result = -EINVAL;
		return;
	}
	if (alen > (int64_t)sizeof(sa))
		alen = sizeof(sa);
	if (blen > PAYLOAD_MAX) {
		res->result = -EMSGSIZE;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	if (alen && supervisor_read_memory(tid, d->args[4], &sa, (size_t)alen) != (ssize_t)alen) {
		res->result = -EFAULT;
		return;
	}
	struct message *m = message_new();
	if (!m) {
		res->result = -ENOMEM;
		return;
	}
	m->flags = flags;
	int r = 0;
	if (alen) {
		r = destination(ux, tid, &sa, (socklen_t)alen, &m->to, &m->to_len, &m->dest_fd, res);
		m->named = true;
	}
	if (!r && !(m->iov.iov_base = malloc(blen ? blen : 1)))
		r = -ENOMEM;
	m->iov.iov_len = blen;
	if (!r && blen && supervisor_read_memory(tid, d->args[1], m->iov.iov_base, blen) != (ssize_t)blen)
		r = -EFAULT;
	send_read(listener_fd, id, copy, flags, r, m, res);
}

static void do_sendmsg(struct supervisor_unix *ux, int listener_fd, uint64_t id, pid_t tid,
		       int pidfd, const struct seccomp_data *d, int copy,
		       struct supervisor_unix_result *res)
{
	struct message *m = message_new();
	if (!m) {
		res->result = -ENOMEM;
		return;
	}
	m->flags = (int)d->args[2];
	int r = read_message(ux, tid, pidfd, d->args[1], m, res);
	send_read(listener_fd, id, copy, m->flags, r, m, res);
}

/* sendmmsg(fd, msgvec, vlen, flags): each message as sendmsg, its msg_len
 * written back; the count sent, or the first error when none was.  A
 * blocking caller whose first message would wait gets EAGAIN: sendmmsg(2) on
 * an unconnected Unix datagram socket is rare enough not to hold a thread. */
static void do_sendmmsg(struct supervisor_unix *ux, pid_t tid, int pidfd,
			const struct seccomp_data *d, int copy, struct supervisor_unix_result *res)
{
	unsigned vlen = (unsigned)d->args[2];
	int flags = (int)d->args[3];
	int sent = 0;

	if (vlen > IOV_MAX_KERNEL)
		vlen = IOV_MAX_KERNEL;
	for (unsigned i = 0; i < vlen; i++) {
		uint64_t at = d->args[1] + (uint64_t)i * sizeof(struct mmsghdr);
		struct message *m = message_new();
		if (!m) {
			res->result = sent ? sent : -ENOMEM;
			return;
		}
		m->flags = flags;
		int r = read_message(ux, tid, pidfd, at, m, res);
		if (!r && res->domain == AF_NETLINK)
			r = netlink_allowed(m, res->protocol);
		ssize_t n = r ? r : send_message(copy, m, MSG_DONTWAIT | MSG_NOSIGNAL);
		message_free(m);
		if (n < 0) {
			res->result = sent ? sent : (int)n;
			return;
		}
		unsigned len = (unsigned)n;
		(void)supervisor_write_memory(tid, at + offsetof(struct mmsghdr, msg_len), &len,
					      sizeof(len));
		sent++;
	}
	res->result = sent;
}

void supervisor_unix_call(struct supervisor_unix *ux, int listener_fd, uint64_t id,
			  const struct seccomp_data *d, pid_t tid, int pidfd, int copy,
			  bool unix_socket, struct supervisor_unix_result *res)
{
	int type = 0;
	socklen_t tl = sizeof(type);

	memset(res, 0, sizeof(*res));
	res->unix_socket = unix_socket;
	res->stream = getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type == SOCK_STREAM;
	tl = sizeof(res->domain);
	if (getsockopt(copy, SOL_SOCKET, SO_DOMAIN, &res->domain, &tl) < 0)
		res->domain = AF_UNSPEC;
	tl = sizeof(res->protocol);
	if (getsockopt(copy, SOL_SOCKET, SO_PROTOCOL, &res->protocol, &tl) < 0)
		res->protocol = -1;
	switch (d->nr) {
	case SYS_connect:
		do_connect(ux, listener_fd, id, tid, d, copy, res);
		break;
	case SYS_sendto:
		do_sendto(ux, listener_fd, id, tid, d, copy, res);
		break;
	case SYS_sendmsg:
		do_sendmsg(ux, listener_fd, id, tid, pidfd, d, copy, res);
		break;
	case SYS_sendmmsg:
		do_sendmmsg(ux, tid, pidfd, d, copy, res);
		break;
	default:
		res->result = -ENOSYS;
		break;
	}
}

bool supervisor_unix_fd_is_unix(pid_t tid, int fd)
{
	char link[64], target[64];
	unsigned long ino;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, fd);
	if (read_link(link, target, sizeof(target)) < 0 || sscanf(target, "socket:[%lu]", &ino) != 1)
		return false;
	snprintf(link, sizeof(link), "/proc/%d/net/unix", (int)tid);
	FILE *f = fopen(link, "re");
	if (!f)
		return true; /* a socket porta cannot place: counted as one (fails closed) */
	char line[512];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long i;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu", &i) == 1 && i == ino)
			found = true;
	}
	fclose(f);
	return found;
}

bool supervisor_unix_degraded(const struct supervisor_unix *ux)
{
	return ux && ux->degraded;
}
