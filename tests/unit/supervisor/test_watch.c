/* tests/unit/supervisor/test_watch.c: the connect(2) notification from
 * both ends, inside a user and network namespace of each test's own.
 *
 * Each kernel test forks a target that joins the test's namespaces (made by
 * a forked helper: see own_network()), sets its name, no_new_privs and the
 * POLICY_SECCOMP_NOTIFY_CONNECT filter, hands the listener to the parent with
 * sandbox_fdpass_send() over a SOCK_SEQPACKET pair, and then makes its calls,
 * writing (errno, detail) pairs for each to a pipe.  The parent plays the
 * supervisor: it polls the listener, its own TCP listeners and UDP sockets on
 * TEST_ADDR (made in the test's network namespace; ephemeral ports; every
 * address is local there, as in porta's, and loopback is exempt from the
 * refusal, so a public-looking address is what exercises it), answers with
 * supervisor_connect_watch_handle() and counts what reached each socket.  A
 * "canary" is a socket on a port the policy refuses: it must see nothing,
 * and each test first shows the canary is reachable without the filter (from
 * a child in the same namespace), so the zero means something.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "policy/portset.h"
#include "supervisor/watch.h"
#include "sandbox/netns.h"
#include "sandbox/control.h"
#include "sandbox/fdpass.h"
#include "sandbox/netinit.h"
#include "sandbox/seccomp.h"

#define TARGET_COMM "porta-target"
#define MAX_EVENTS 1024
#define MAX_RESULTS 2048
#define MAX_SOCKS 6

/* ===================================================================== */
/* Pure parts                                                             */
/* ===================================================================== */

static struct supervisor_connect_event ip4_event(uint16_t port)
{
	struct supervisor_connect_event ev = { .addr_status = SUPERVISOR_CONNECT_ADDR_OK,
					    .family = AF_INET, .port = port };
	struct sockaddr_in *s = (struct sockaddr_in *)&ev.sa;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = htonl(0xc0000201); /* 192.0.2.1 */
	ev.sa_len = sizeof(*s);
	return ev;
}

Test(connect_decide, only_an_ip_port_outside_the_set_is_refused)
{
	struct policy_port_set allowed = { { 0 } };
	struct supervisor_connect_event ev;

	policy_port_set_add(&allowed, 443);
	ev = ip4_event(443);
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);
	ev = ip4_event(80);
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_REFUSE);
	ev = ip4_event(0);
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_REFUSE);
	ev.family = AF_INET6;
	ev.port = 80;
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_REFUSE);
	ev.port = 443;
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);

	/* Not refused here, whatever the port field says. */
	static const int families[] = { AF_UNIX, AF_NETLINK, AF_UNSPEC, AF_PACKET, 12345 };
	for (size_t i = 0; i < ARRAY_LEN(families); i++) {
		ev = ip4_event(80);
		ev.family = families[i];
		cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE,
			     "family %d", families[i]);
	}
	static const enum supervisor_connect_addr statuses[] = {
		SUPERVISOR_CONNECT_ADDR_NONE, SUPERVISOR_CONNECT_ADDR_BAD_LEN, SUPERVISOR_CONNECT_ADDR_UNREADABLE
	};
	for (size_t i = 0; i < ARRAY_LEN(statuses); i++) {
		ev = ip4_event(80);
		ev.addr_status = statuses[i];
		cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);
	}
}

/* porta forwards no UDP but DNS: a datagram socket aimed anywhere but port
 * 53 is refused even on a port a (TCP) rule names; loopback stays the
 * sandbox's own. */
Test(connect_decide, udp_only_to_port_53)
{
	struct policy_port_set allowed = { { 0 } };
	struct supervisor_connect_event ev;

	policy_port_set_add(&allowed, 443);
	policy_port_set_add(&allowed, 53);
	ev = ip4_event(443);
	ev.sock_type = SOCK_DGRAM;
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_REFUSE);
	ev.port = 53;
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);
	ev = ip4_event(443);
	ev.sock_type = SOCK_STREAM;
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);
	ev.sock_type = 0; /* unknown: the port decides */
	cr_assert_eq(supervisor_connect_decide(&ev, &allowed), SUPERVISOR_CONNECT_CONTINUE);
}

Test(connect_decide, destinations_format_for_the_audit)
{
	struct supervisor_connect_event ev = ip4_event(443);
	char out[64];

	cr_assert(supervisor_connect_event_dst(&ev, out, sizeof(out)));
	cr_assert_str_eq(out, "192.0.2.1:443");
	cr_assert_not(supervisor_connect_event_dst(&ev, out, 8), "too small");
	cr_assert_str_eq(out, "");

	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ev.sa;
	memset(&ev.sa, 0, sizeof(ev.sa));
	s6->sin6_family = AF_INET6;
	s6->sin6_addr.s6_addr[0] = 0x20;
	s6->sin6_addr.s6_addr[1] = 0x01;
	s6->sin6_addr.s6_addr[2] = 0x0d;
	s6->sin6_addr.s6_addr[3] = 0xb8;
	s6->sin6_addr.s6_addr[15] = 1;
	ev.family = AF_INET6;
	ev.port = 8443;
	cr_assert(supervisor_connect_event_dst(&ev, out, sizeof(out)));
	cr_assert_str_eq(out, "[2001:db8::1]:8443");

	ev.family = AF_UNIX;
	cr_assert_not(supervisor_connect_event_dst(&ev, out, sizeof(out)));
	ev = ip4_event(1);
	ev.addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
	cr_assert_not(supervisor_connect_event_dst(&ev, out, sizeof(out)));
	cr_assert_str_eq(supervisor_connect_call_name(SUPERVISOR_CONNECT_CALL_CONNECT), "connect");
	cr_assert_str_eq(supervisor_connect_call_name(SUPERVISOR_CONNECT_CALL_SENDMMSG), "sendmmsg");
	cr_assert_str_eq(supervisor_connect_call_name((enum supervisor_connect_call)99), "other");
}

/* Degraded hosts (supervisor_connect_decide_local()): no network namespace,
 * so what the supervisor reads is the decision.  Only a stream connect(2)
 * to exactly 127.0.0.1 (or ::ffff:127.0.0.1) at a proxy port is made on the
 * caller's behalf; every other IP destination is refused. */
#define PROXY_PORT 3128

static struct supervisor_connect_event local4(uint32_t addr, uint16_t port)
{
	struct supervisor_connect_event ev = { .addr_status = SUPERVISOR_CONNECT_ADDR_OK,
					    .call = SUPERVISOR_CONNECT_CALL_CONNECT,
					    .sock_type = SOCK_STREAM,
					    .family = AF_INET, .port = port };
	struct sockaddr_in *s = (struct sockaddr_in *)&ev.sa;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = htonl(addr);
	ev.sa_len = sizeof(*s);
	return ev;
}

static struct supervisor_connect_event local6(const uint8_t addr[16], uint16_t port)
{
	struct supervisor_connect_event ev = { .addr_status = SUPERVISOR_CONNECT_ADDR_OK,
					    .call = SUPERVISOR_CONNECT_CALL_CONNECT,
					    .sock_type = SOCK_STREAM,
					    .family = AF_INET6, .port = port };
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ev.sa;

	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	memcpy(s->sin6_addr.s6_addr, addr, 16);
	ev.sa_len = sizeof(*s);
	return ev;
}

static const uint8_t mapped_127_0_0_1[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 };
static const uint8_t mapped_127_0_0_2[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 2 };
static const uint8_t v6_loopback[16] = { [15] = 1 };

static enum supervisor_connect_verdict local(const struct supervisor_connect_event *ev)
{
	struct policy_port_set proxy = { { 0 } };

	policy_port_set_add(&proxy, PROXY_PORT);
	policy_port_set_add(&proxy, 1080);
	return supervisor_connect_decide_local(ev, &proxy);
}

Test(connect_decide_local, only_the_proxy_address_and_ports_are_dialled_on_behalf)
{
	struct supervisor_connect_event ev;

	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_ON_BEHALF);
	ev = local4(INADDR_LOOPBACK, 1080);
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_ON_BEHALF, "every proxy port");
	ev = local6(mapped_127_0_0_1, PROXY_PORT);
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_ON_BEHALF, "::ffff:127.0.0.1");
}

Test(connect_decide_local, every_other_ip_destination_is_refused)
{
	struct supervisor_connect_event ev;

	ev = local4(0x7f000002, PROXY_PORT); /* 127.0.0.2: the host's, not the proxy */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local6(mapped_127_0_0_2, PROXY_PORT);
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local6(v6_loopback, PROXY_PORT); /* ::1: the proxy does not listen there */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local4(0x0a000001, PROXY_PORT); /* 10.0.0.1 */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local4(0xc0000201, 443); /* 192.0.2.1:443 */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local4(INADDR_LOOPBACK, 8080); /* a host service on loopback */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local4(INADDR_LOOPBACK, 0);
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);
	ev = local4(INADDR_ANY, PROXY_PORT); /* 0.0.0.0 connects to the host */
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);

	/* The proxy's address and port, but not a stream connect(2). */
	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	ev.sock_type = SOCK_DGRAM;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "a datagram socket");
	ev.sock_type = 0;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "a socket type that could not be read");
	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	ev.call = SUPERVISOR_CONNECT_CALL_SENDTO;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "sendto");
	ev.call = SUPERVISOR_CONNECT_CALL_SENDMSG;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "sendmsg with MSG_FASTOPEN");
	ev.call = SUPERVISOR_CONNECT_CALL_SENDMMSG;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);

	/* No proxy ports at all: nothing is dialled. */
	struct policy_port_set none = { { 0 } };
	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	cr_assert_eq(supervisor_connect_decide_local(&ev, &none), SUPERVISOR_CONNECT_REFUSE);
}

Test(connect_decide_local, addresses_not_read_whole)
{
	struct supervisor_connect_event ev;

	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	ev.addr_status = SUPERVISOR_CONNECT_ADDR_UNREADABLE;
	ev.addr_err = EFAULT;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "unreadable: the family is unknown");
	ev.family = AF_UNSPEC;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE);

	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	ev.addr_status = SUPERVISOR_CONNECT_ADDR_BAD_LEN;
	ev.sa_len = 4;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "AF_INET cut short");
	ev.family = AF_INET6;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "AF_INET6 cut short");
	ev.family = AF_UNSPEC;
	ev.sa_len = 1;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_REFUSE, "not even the family");

	ev = local4(INADDR_LOOPBACK, PROXY_PORT);
	ev.addr_status = SUPERVISOR_CONNECT_ADDR_NONE;
	ev.call = SUPERVISOR_CONNECT_CALL_SENDMSG;
	ev.family = AF_UNSPEC;
	ev.port = 0;
	cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_CONTINUE, "no address: a connected socket's own");
}

Test(connect_decide_local, other_families_continue)
{
	static const int families[] = { AF_UNIX, AF_NETLINK };
	struct supervisor_connect_event ev;

	for (size_t i = 0; i < ARRAY_LEN(families); i++) {
		ev = local4(INADDR_LOOPBACK, PROXY_PORT);
		ev.family = families[i];
		ev.sa.ss_family = (sa_family_t)families[i];
		ev.port = 0;
		cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_CONTINUE, "family %d", families[i]);
		ev.sock_type = SOCK_DGRAM;
		ev.call = SUPERVISOR_CONNECT_CALL_SENDTO;
		cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_CONTINUE, "family %d", families[i]);
		/* A length the kernel refuses itself (EINVAL) for this family. */
		ev.addr_status = SUPERVISOR_CONNECT_ADDR_BAD_LEN;
		cr_assert_eq(local(&ev), SUPERVISOR_CONNECT_CONTINUE, "family %d", families[i]);
	}
}

/* ===================================================================== */
/* The test's namespaces and the parent's sockets                         */
/* ===================================================================== */

/* 203.0.113.7 (TEST-NET-3), local only inside the test's own namespace. */
#define TEST_ADDR 0xcb007107u

/* Each test runs in its own process (criterion) and gets a user and network
 * namespace of its own, where lo is up and every address is local, as in
 * porta's sandbox.  Criterion's worker has threads, and a process with
 * threads can neither unshare nor join a user namespace: a forked helper
 * (single-threaded) creates them and hands back fds of both.  Every process
 * that needs the network then forks and joins them (join_test_ns()): the
 * targets, the controls, and the "socket factory" that makes the parent's
 * sockets there (a socket keeps the namespace it was created in).  The test
 * process itself never touches the host's network. */
static struct {
	int user, net;
} test_ns = { -1, -1 };

enum { NS_OK = 1, NS_FAILED = 2 };

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	int err = 0;

	if (fd < 0)
		return errno;
	ssize_t n = write(fd, text, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

/* In the helper: the namespaces, an identity map of the helper's own uid
 * and gid (a target's own user namespace nests in this one, and the kernel
 * only lets a mapped uid create one), lo and the AnyIP routes.  Returns 0
 * or an errno, *step naming what failed. */
static int make_test_ns(const char **step, int fds[2])
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int r;

	*step = "unshare(CLONE_NEWUSER|CLONE_NEWNET)";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		return errno;
	*step = "setgroups deny";
	if ((r = write_file("/proc/self/setgroups", "deny")))
		return r;
	*step = "uid_map";
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	if ((r = write_file("/proc/self/uid_map", map)))
		return r;
	*step = "gid_map";
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	if ((r = write_file("/proc/self/gid_map", map)))
		return r;
	*step = "sandbox_netns_lo_up";
	if ((r = sandbox_netns_lo_up()))
		return -r;
	*step = "sandbox_netns_anyip";
	if ((r = sandbox_netns_anyip()))
		return -r;
	*step = "open /proc/self/ns";
	fds[0] = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0 || fds[1] < 0)
		return errno;
	return 0;
}

static void own_network(void)
{
	struct sandbox_fdpass_msg m;
	struct {
		int err;
		char step[60];
	} rep = { 0 };
	int sv[2], status;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		const char *step = "";
		int fds[2] = { -1, -1 };

		close(sv[0]);
		rep.err = make_test_ns(&step, fds);
		snprintf(rep.step, sizeof(rep.step), "%s", step);
		if (rep.err)
			sandbox_fdpass_send(sv[1], NS_FAILED, &rep, sizeof(rep), NULL, 0);
		else
			sandbox_fdpass_send(sv[1], NS_OK, &rep, sizeof(rep), fds, 2);
		_exit(0);
	}
	close(sv[1]);
	struct pollfd p = { .fd = sv[0], .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 10000), 1, "the namespace helper never reported");
	cr_assert_eq(sandbox_fdpass_recv(sv[0], 0, &rep, sizeof(rep), 2, &m), 0);
	close(sv[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(m.type, NS_OK, "the test's namespaces: %s: %s", rep.step, strerror(rep.err));
	cr_assert_eq(m.n_fds, 2);
	test_ns.user = m.fds[0];
	test_ns.net = m.fds[1];
}

static void close_network(void)
{
	if (test_ns.user >= 0)
		close(test_ns.user);
	if (test_ns.net >= 0)
		close(test_ns.net);
	test_ns.user = test_ns.net = -1;
}

/* In a forked (so single-threaded) child, before anything else: joins the
 * test's user namespace (owned by this uid: every capability there), then
 * its network namespace.  0 or -errno. */
static int join_test_ns(void)
{
	if (test_ns.user < 0 || test_ns.net < 0)
		return -EBADF;
	if (setns(test_ns.user, CLONE_NEWUSER) != 0 || setns(test_ns.net, CLONE_NEWNET) != 0)
		return -errno;
	close(test_ns.user);
	close(test_ns.net);
	return 0;
}

/* Runs fn(arg) in a forked child that joined the test's namespaces; returns
 * its errno (0: done). */
static int in_test_ns(int (*fn)(void *), void *arg)
{
	int pipefd[2], status;
	struct {
		int join, err;
	} r = { 0 };

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		r.join = -join_test_ns();
		if (r.join == 0)
			r.err = fn(arg);
		_exit(write(pipefd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(pipefd[1]);
	struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 10000), 1, "the child in the test's namespace never reported");
	cr_assert_eq(read(pipefd[0], &r, sizeof(r)), (ssize_t)sizeof(r));
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	cr_assert_eq(r.join, 0, "joining the test's namespaces: %s", strerror(r.join));
	return r.err;
}

/* The socket factory: the parent's sockets, made in the test's network
 * namespace and passed back. */
enum ns_sock_kind { NS_TCP, NS_UDP, NS_UDP53, NS_UNIX };

struct ns_sock_req {
	enum ns_sock_kind kind;
	const struct sockaddr_un *un; /* NS_UNIX: the (abstract) address */
	int chan;                     /* where the fd goes */
};

static int make_ns_socket(void *arg)
{
	const struct ns_sock_req *q = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(TEST_ADDR) };
	int fd, r;

	switch (q->kind) {
	case NS_TCP:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 4096) != 0)
			return errno;
		break;
	case NS_UDP53: /* the only UDP port porta lets datagrams reach: DNS */
		a.sin_port = htons(53);
		/* fall through */
	case NS_UDP:
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
			return errno;
		break;
	case NS_UNIX:
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 ||
		    bind(fd, (const struct sockaddr *)q->un,
			 offsetof(struct sockaddr_un, sun_path) + 1 + strlen(q->un->sun_path + 1)) != 0 ||
		    listen(fd, 8) != 0)
			return errno;
		break;
	default:
		return EINVAL;
	}
	r = sandbox_fdpass_send(q->chan, 0, NULL, 0, &fd, 1);
	return -r;
}

static int ns_socket(enum ns_sock_kind kind, const struct sockaddr_un *un, uint16_t *port)
{
	struct sandbox_fdpass_msg m;
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	struct ns_sock_req q = { .kind = kind, .un = un, .chan = sv[1] };
	int err = in_test_ns(make_ns_socket, &q);
	cr_assert_eq(err, 0, "a socket in the test's namespace: %s", strerror(err));
	close(sv[1]);
	cr_assert_eq(sandbox_fdpass_recv(sv[0], MSG_DONTWAIT, NULL, 0, 1, &m), 0);
	close(sv[0]);
	cr_assert_eq(m.n_fds, 1);
	if (port) {
		struct sockaddr_in a;
		socklen_t len = sizeof(a);
		cr_assert_eq(getsockname(m.fds[0], (struct sockaddr *)&a, &len), 0);
		cr_assert_eq(a.sin_addr.s_addr, htonl(TEST_ADDR));
		*port = ntohs(a.sin_port);
	}
	return m.fds[0];
}

static int tcp_listener(uint16_t *port)
{
	return ns_socket(NS_TCP, NULL, port);
}

static int udp_socket(uint16_t *port)
{
	return ns_socket(NS_UDP, NULL, port);
}

static struct sockaddr_in lo4(uint16_t port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port),
				     .sin_addr.s_addr = htonl(TEST_ADDR) };
}

/* ::ffff:203.0.113.7 */
static struct sockaddr_in6 mapped6(uint16_t port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	a.sin6_addr.s6_addr[10] = 0xff;
	a.sin6_addr.s6_addr[11] = 0xff;
	a.sin6_addr.s6_addr[12] = 203;
	a.sin6_addr.s6_addr[13] = 0;
	a.sin6_addr.s6_addr[14] = 113;
	a.sin6_addr.s6_addr[15] = 7;
	return a;
}

/* Accepts (and closes) whatever is queued on a non-blocking listener. */
static size_t drain_accepts(int fd)
{
	size_t n = 0;
	int c;

	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

static size_t drain_datagrams(int fd)
{
	char buf[64];
	size_t n = 0;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/* The control of each canary: without any filter, a connect (or datagram)
 * from the test's network namespace reaches it.  In a child that joins the
 * namespace as the targets do. */
static int control_connect(void *arg)
{
	struct sockaddr_in a = lo4(*(const uint16_t *)arg);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0 ? errno : 0;

	close(s);
	return err;
}

static int control_datagram(void *arg)
{
	struct sockaddr_in a = lo4(*(const uint16_t *)arg);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err = s < 0 || sendto(s, "c", 1, 0, (struct sockaddr *)&a, sizeof(a)) != 1 ? errno : 0;

	close(s);
	return err;
}

static void canary_is_reachable(int listener, uint16_t port)
{
	int err = in_test_ns(control_connect, &port);

	cr_assert_eq(err, 0, "control connect: %s", strerror(err));
	size_t n = 0;
	for (int i = 0; i < 1000 && n == 0; i++) {
		n += drain_accepts(listener);
		if (n == 0)
			usleep(1000);
	}
	cr_assert_eq(n, 1, "the control reached the canary %zu times", n);
	cr_assert_eq(drain_accepts(listener), 0, "control drained");
}

static void udp_canary_is_reachable(int sock, uint16_t port)
{
	int err = in_test_ns(control_datagram, &port);

	cr_assert_eq(err, 0, "control datagram: %s", strerror(err));
	struct pollfd p = { .fd = sock, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 2000), 1);
	cr_assert_eq(drain_datagrams(sock), 1);
}

/* ===================================================================== */
/* The target and the supervisor loop                                     */
/* ===================================================================== */

struct target {
	pid_t pid;
	int listener; /* the seccomp listener, received */
	int results;  /* read end of the child's result pipe */
};

struct result {
	int err;    /* 0 or errno */
	int detail; /* test-defined */
};

typedef void (*target_body)(int out, void *arg);

static void put_result(int out, int err, int detail)
{
	struct result r = { err, detail };
	ssize_t n;

	do
		n = write(out, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
}

/* The errno of a call that returns -1 on failure. */
static int rc_err(long rc)
{
	return rc < 0 ? errno : 0;
}

enum { MSG_LISTENER = SANDBOX_CTL_NET_WATCH, MSG_INSTALL_FAILED = 100, MSG_NS_FAILED = 101 };

/* The target first joins the test's namespaces.  ns_flags: namespaces
 * (CLONE_NEWUSER|CLONE_NEWPID) the target runs in, created after the join
 * (a user namespace nested in the test's; the network stays the test's) and
 * before the filter (which refuses them); the target is then pid 1 of its
 * own pid namespace, a grandchild, as porta's payload is. */
static struct target start_target_in(target_body body, void *arg, int ns_flags)
{
	int sv[2], pipefd[2];
	struct target t = { .listener = -1, .results = -1 };
	struct sandbox_fdpass_msg m;
	int rc = 0;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert_geq(t.pid, 0);
	if (t.pid == 0) {
		const struct rlimit no_core = { 0, 0 };

		close(sv[0]);
		close(pipefd[0]);
		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if ((rc = join_test_ns()) != 0) {
			sandbox_fdpass_send(sv[1], MSG_NS_FAILED, &rc, sizeof(rc), NULL, 0);
			_exit(0);
		}
		if (ns_flags) {
			int status;
			if (unshare(ns_flags) != 0) {
				rc = -errno;
				sandbox_fdpass_send(sv[1], MSG_NS_FAILED, &rc, sizeof(rc), NULL, 0);
				_exit(0);
			}
			pid_t g = fork(); /* pid 1 of the new pid namespace */
			if (g < 0)
				_exit(1);
			if (g > 0) {
				close(sv[1]);
				close(pipefd[1]);
				while (waitpid(g, &status, 0) < 0 && errno == EINTR)
					;
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
			}
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		}
		prctl(PR_SET_NAME, TARGET_COMM, 0, 0, 0);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			rc = -errno;
		else {
			/* as the payload does: the listener leaves through a
			 * helper the filter does not cover (every sendmsg of
			 * the filtered thread would wait for the very
			 * supervisor it is reaching) */
			struct sandbox_watch_handover h;
			rc = sandbox_watch_handover_start(sv[1], -1, &h);
			if (rc == 0)
				rc = sandbox_watch_install(&h, POLICY_SECCOMP_NOTIFY_CONNECT);
		}
		if (rc != 0) {
			sandbox_fdpass_send(sv[1], MSG_INSTALL_FAILED, &rc, sizeof(rc), NULL, 0);
			_exit(1);
		}
		close(sv[1]);
		body(pipefd[1], arg);
		_exit(0);
	}
	close(sv[1]);
	close(pipefd[1]);
	struct pollfd p = { .fd = sv[0], .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 10000), 1, "the target never reported");
	int err = 0;
	cr_assert_eq(sandbox_fdpass_recv(sv[0], 0, &err, sizeof(err), 2, &m), 0);
	cr_assert_neq(m.type, MSG_NS_FAILED, "the target's namespaces: %s", strerror(-err));
	cr_assert_eq(m.type, MSG_LISTENER, "installing the filter failed: %s", strerror(-err));
	cr_assert_eq(m.n_fds, 1, "the listener");
	close(sv[0]);
	t.listener = m.fds[0];
	t.results = pipefd[0];
	return t;
}

static struct target start_target(target_body body, void *arg)
{
	return start_target_in(body, arg, 0);
}

struct serve {
	struct policy_port_set allowed;
	int tcp[MAX_SOCKS];
	size_t accepts[MAX_SOCKS];
	size_t n_tcp;
	int udp[MAX_SOCKS];
	size_t datagrams[MAX_SOCKS];
	size_t n_udp;
	struct supervisor_connect_event ev[MAX_EVENTS];
	size_t n_ev;
	struct result res[MAX_RESULTS];
	size_t n_res;
	double handle_ns; /* total time spent in the handler */
	int status;       /* the target's wait status */
	/* The watch's cache (watch.h) as serve() starts it: seed.pid 0 for an
	 * empty one; serve() takes seed.pidfd over. */
	struct supervisor_connect_cache seed;
	/* serve() sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener
	 * first, as the supervisor does (watch.h) */
	bool sync_wake;
};

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Plays the supervisor until the target has exited and its filter has no
 * user left; then drains every socket once more. */
static void serve(struct target *t, struct serve *s)
{
	bool results_open = true, listener_open = true;
	double deadline = now_ns() + 30e9;
	/* one cache for every call, as the supervisor keeps it */
	struct supervisor_connect_cache cache = SUPERVISOR_CONNECT_CACHE_INIT;
	if (s->seed.pid)
		cache = s->seed;
	if (s->sync_wake) {
		int rc = supervisor_connect_watch_sync_wake(t->listener);
		cr_assert(rc == 0 || rc == -EINVAL, "synchronous wake-up: %s", strerror(-rc));
		if (rc == -EINVAL)
			cr_log_warn("no SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP here (Linux 6.6): "
				    "the answers are checked without it");
	}

	while (results_open || listener_open) {
		struct pollfd p[2 + 2 * MAX_SOCKS];
		size_t n = 0;

		cr_assert_lt(now_ns(), deadline, "the target is stuck");
		p[n++] = (struct pollfd){ .fd = listener_open ? t->listener : -1, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = results_open ? t->results : -1, .events = POLLIN };
		for (size_t i = 0; i < s->n_tcp; i++)
			p[n++] = (struct pollfd){ .fd = s->tcp[i], .events = POLLIN };
		for (size_t i = 0; i < s->n_udp; i++)
			p[n++] = (struct pollfd){ .fd = s->udp[i], .events = POLLIN };
		int r = poll(p, n, 1000);
		cr_assert_geq(r, 0);

		if (p[0].revents) {
			struct supervisor_connect_event ev;
			double t0 = now_ns();
			int rc = supervisor_connect_watch_handle(t->listener, &s->allowed, &cache, &ev);
			double t1 = now_ns();
			if (rc == 0) {
				s->handle_ns += t1 - t0;
				cr_assert_lt(s->n_ev, MAX_EVENTS);
				s->ev[s->n_ev++] = ev;
			} else if (rc == -EPIPE) {
				listener_open = false;
			} else {
				cr_assert(rc == -EAGAIN || rc == -ENOENT, "handle: %s", strerror(-rc));
			}
		}
		if (p[1].revents) {
			struct result res;
			ssize_t got = read(t->results, &res, sizeof(res));
			if (got == 0) {
				results_open = false;
			} else {
				cr_assert_eq(got, sizeof(res));
				cr_assert_lt(s->n_res, MAX_RESULTS);
				s->res[s->n_res++] = res;
			}
		}
		for (size_t i = 0; i < s->n_tcp; i++)
			s->accepts[i] += drain_accepts(s->tcp[i]);
		for (size_t i = 0; i < s->n_udp; i++)
			s->datagrams[i] += drain_datagrams(s->udp[i]);
	}
	supervisor_connect_cache_clear(&cache);
	cr_assert_eq(waitpid(t->pid, &s->status, 0), t->pid);
	/* Loopback delivers synchronously, but give stragglers a moment. */
	usleep(10000);
	for (size_t i = 0; i < s->n_tcp; i++)
		s->accepts[i] += drain_accepts(s->tcp[i]);
	for (size_t i = 0; i < s->n_udp; i++)
		s->datagrams[i] += drain_datagrams(s->udp[i]);
	close(t->listener);
	close(t->results);
	cr_assert(WIFEXITED(s->status) && WEXITSTATUS(s->status) == 0,
		  "target status %#x", s->status);
}

static void assert_event(const struct serve *s, size_t i, pid_t pid, enum supervisor_connect_call call,
			 int family, uint16_t port, enum supervisor_connect_verdict v)
{
	cr_assert_lt(i, s->n_ev, "event %zu missing (%zu events)", i, s->n_ev);
	const struct supervisor_connect_event *ev = &s->ev[i];
	cr_assert_not(ev->withdrawn, "event %zu", i);
	if (v == SUPERVISOR_CONNECT_CONTINUE) {
		/* recorded nowhere: /proc is not read for it (watch.h) */
		cr_assert_eq(ev->pid, 0, "event %zu: pid %d read for a CONTINUE", i, ev->pid);
		cr_assert_eq(ev->ns_pid, 0, "event %zu", i);
		cr_assert_str_eq(ev->comm, "", "event %zu", i);
	} else {
		cr_assert_eq(ev->pid, pid, "event %zu: pid %d", i, ev->pid);
		cr_assert_eq(ev->ns_pid, pid, "event %zu: same pid namespace here", i);
		cr_assert_str_eq(ev->comm, TARGET_COMM, "event %zu", i);
	}
	cr_assert_eq(ev->call, call, "event %zu: call %s", i, supervisor_connect_call_name(ev->call));
	cr_assert_eq(ev->family, family, "event %zu: family %d", i, ev->family);
	cr_assert_eq(ev->port, port, "event %zu: port %u, want %u", i, ev->port, port);
	cr_assert_eq(ev->verdict, v, "event %zu: verdict %d", i, ev->verdict);
}

static void assert_result(const struct serve *s, size_t i, int err)
{
	cr_assert_lt(i, s->n_res, "result %zu missing", i);
	cr_assert_eq(s->res[i].err, err, "result %zu: %s, want %s", i,
		     strerrorname_np(s->res[i].err) ?: "0", strerrorname_np(err) ?: "0");
}

/* ===================================================================== */
/* connect(2)                                                             */
/* ===================================================================== */

struct ports {
	uint16_t allowed, denied, udp_allowed, udp_denied;
	int target_cpu; /* -1: leave the scheduler alone */
};

static void *thread_connect_denied(void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in a = lo4(p->denied);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long err = rc_err(connect(s, (struct sockaddr *)&a, sizeof(a)));
	close(s);
	return (void *)err;
}

static void body_allowed_and_denied(int out, void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in a = lo4(p->allowed), d = lo4(p->denied);
	struct sockaddr_in6 d6 = mapped6(p->denied);
	int s;

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&a, sizeof(a))), 0);
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&d, sizeof(d))), 0);
	close(s);
	/* The same port through an IPv6 socket, as ::ffff:203.0.113.7. */
	s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, s < 0 ? errno : rc_err(connect(s, (struct sockaddr *)&d6, sizeof(d6))), 0);
	close(s);
	/* From a second thread: the event names the thread and its process. */
	pthread_t th;
	void *ret = NULL;
	if (pthread_create(&th, NULL, thread_connect_denied, (void *)p) == 0 &&
	    pthread_join(th, &ret) == 0)
		put_result(out, (int)(long)ret, 0);
	else
		put_result(out, -1, 0);
}

TestSuite(connect_watch, .init = own_network, .fini = close_network);

static void allowed_and_denied(bool sync_wake)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	memset(&s, 0, sizeof(s));
	s.sync_wake = sync_wake;
	s.tcp[0] = tcp_listener(&p.allowed);
	s.tcp[1] = tcp_listener(&p.denied);
	s.n_tcp = 2;
	canary_is_reachable(s.tcp[1], p.denied);
	policy_port_set_add(&s.allowed, p.allowed);

	struct target t = start_target(body_allowed_and_denied, &p);
	serve(&t, &s);

	assert_result(&s, 0, 0);
	assert_result(&s, 1, ECONNREFUSED);
	assert_result(&s, 2, ECONNREFUSED);
	assert_result(&s, 3, ECONNREFUSED);
	cr_assert_eq(s.accepts[0], 1, "the allowed listener accepted %zu", s.accepts[0]);
	cr_assert_eq(s.accepts[1], 0, "the canary accepted %zu", s.accepts[1]);
	cr_assert_eq(s.n_ev, 4);
	assert_event(&s, 0, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p.allowed, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 1, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p.denied, SUPERVISOR_CONNECT_REFUSE);
	assert_event(&s, 2, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET6, p.denied, SUPERVISOR_CONNECT_REFUSE);
	assert_event(&s, 3, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p.denied, SUPERVISOR_CONNECT_REFUSE);
	cr_assert_eq(s.ev[0].tid, t.pid, "single-threaded: tid is pid");
	cr_assert_neq(s.ev[3].tid, t.pid, "the second thread's own id");
	cr_assert_eq(s.ev[0].sockfd, s.ev[1].sockfd, "same fd number reused");

	char dst[64], want[64];
	cr_assert(supervisor_connect_event_dst(&s.ev[1], dst, sizeof(dst)));
	snprintf(want, sizeof(want), "203.0.113.7:%u", p.denied);
	cr_assert_str_eq(dst, want);
	cr_assert(supervisor_connect_event_dst(&s.ev[2], dst, sizeof(dst)));
	snprintf(want, sizeof(want), "[::ffff:203.0.113.7]:%u", p.denied);
	cr_assert_str_eq(dst, want);
	cr_log_info("handler: %.1f us per notification", s.handle_ns / (double)s.n_ev / 1e3);
	close(s.tcp[0]);
	close(s.tcp[1]);
}

Test(connect_watch, allowed_port_connects_denied_port_refused_before_any_listener)
{
	allowed_and_denied(false);
}

/* The supervisor asks for synchronous wake-ups (net.c): the same calls get
 * the same answers, from both threads, with the listener so flagged. */
Test(connect_watch, with_synchronous_wake_ups_the_answers_are_the_same)
{
	int probe[2];
	cr_assert_eq(pipe2(probe, O_CLOEXEC), 0);
	cr_assert_lt(supervisor_connect_watch_sync_wake(probe[0]), 0, "a pipe is no listener");
	close(probe[0]);
	close(probe[1]);
	allowed_and_denied(true);
}

/* A datagram from a thread that is not its process's first: its socket's
 * type is read through the process (a pidfd names a process, not this
 * thread), so the UDP rule holds on a port that TCP may use. */
static void *thread_send_udp(void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in a = lo4(p->udp_denied);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long err = rc_err(sendto(u, "u", 1, 0, (struct sockaddr *)&a, sizeof(a)));
	close(u);
	return (void *)err;
}

static void body_thread_udp(int out, void *arg)
{
	pthread_t th;
	void *ret = NULL;
	if (pthread_create(&th, NULL, thread_send_udp, arg) == 0 && pthread_join(th, &ret) == 0)
		put_result(out, (int)(long)ret, 0);
	else
		put_result(out, -1, 0);
}

/* A UDP canary on a port the policy allows, but only for TCP (UDP goes to
 * port 53 alone): a datagram there must be refused. */
static void udp_to_a_tcp_port(struct serve *s, struct ports *p)
{
	memset(s, 0, sizeof(*s));
	s->udp[0] = udp_socket(&p->udp_denied);
	s->n_udp = 1;
	udp_canary_is_reachable(s->udp[0], p->udp_denied);
	policy_port_set_add(&s->allowed, p->udp_denied);
}

Test(connect_watch, a_second_threads_datagram_to_an_allowed_tcp_port_is_refused)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	udp_to_a_tcp_port(&s, &p);

	struct target t = start_target(body_thread_udp, &p);
	serve(&t, &s);

	assert_result(&s, 0, ECONNREFUSED);
	cr_assert_eq(s.n_ev, 1, "%zu events", s.n_ev);
	assert_event(&s, 0, t.pid, SUPERVISOR_CONNECT_CALL_SENDTO, AF_INET, p.udp_denied,
		     SUPERVISOR_CONNECT_REFUSE);
	cr_assert_neq(s.ev[0].tid, t.pid, "the second thread's own id");
	cr_assert_eq(s.ev[0].sock_type, SOCK_DGRAM);
	cr_assert_eq(s.datagrams[0], 0, "the canary got the datagram");
	close(s.udp[0]);
}

/* The same datagram from the process's first thread, whose id names the
 * process: what the watch's cache keeps (watch.h). */
static void body_udp(int out, void *arg)
{
	put_result(out, (int)(long)thread_send_udp(arg), 0);
}

/* The cache holds a pidfd for the caller's id, but of a process that is
 * gone (the id reused: set up by hand with a reaped child's pidfd under the
 * target's pid).  The copy through it fails, so the type must be read
 * through a new pidfd, and the UDP rule hold. */
Test(connect_watch, a_cached_pidfd_of_a_gone_process_is_replaced)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	udp_to_a_tcp_port(&s, &p);

	pid_t gone = fork();
	cr_assert_geq(gone, 0);
	if (gone == 0)
		_exit(0);
	int stale = (int)syscall(SYS_pidfd_open, gone, 0);
	cr_assert_geq(stale, 0, "pidfd_open: %s", strerror(errno));
	cr_assert_eq(waitpid(gone, NULL, 0), gone);

	struct target t = start_target(body_udp, &p);
	s.seed = (struct supervisor_connect_cache){ .pid = t.pid, .pidfd = stale };
	serve(&t, &s);

	assert_result(&s, 0, ECONNREFUSED);
	cr_assert_eq(s.n_ev, 1, "%zu events", s.n_ev);
	cr_assert_eq(s.ev[0].tid, t.pid);
	cr_assert_eq(s.ev[0].sock_type, SOCK_DGRAM, "type %d", s.ev[0].sock_type);
	cr_assert_eq(s.datagrams[0], 0, "the canary got the datagram");
	cr_assert_eq(fcntl(stale, F_GETFD), -1, "the stale pidfd was kept open");
	close(s.udp[0]);
}

static void body_two_connects(int out, void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in a = lo4(p->allowed), d = lo4(p->denied);
	int s;

	put_result(out, 0, (int)getpid());
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&a, sizeof(a))), 0);
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&d, sizeof(d))), 0);
	close(s);
}

/* porta's shape: the target is pid 1 of its own pid namespace inside its own
 * user namespace, the supervisor outside both.  The supervisor still reads
 * its memory and /proc, and sees both of its pids. */
Test(connect_watch, target_in_its_own_user_and_pid_namespace)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	memset(&s, 0, sizeof(s));
	s.tcp[0] = tcp_listener(&p.allowed);
	s.tcp[1] = tcp_listener(&p.denied);
	s.n_tcp = 2;
	canary_is_reachable(s.tcp[1], p.denied);
	policy_port_set_add(&s.allowed, p.allowed);

	struct target t = start_target_in(body_two_connects, &p, CLONE_NEWUSER | CLONE_NEWPID);
	serve(&t, &s);

	assert_result(&s, 0, 0);
	cr_assert_eq(s.res[0].detail, 1, "the target is pid 1 in its namespace");
	assert_result(&s, 1, 0);
	assert_result(&s, 2, ECONNREFUSED);
	cr_assert_eq(s.accepts[0], 1);
	cr_assert_eq(s.accepts[1], 0);
	cr_assert_eq(s.n_ev, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct supervisor_connect_event *ev = &s.ev[i];
		cr_assert_gt(ev->tid, 1);
		cr_assert_neq(ev->tid, t.pid, "the grandchild, not the child");
		cr_assert_eq(ev->addr_status, SUPERVISOR_CONNECT_ADDR_OK);
	}
	/* who called is read for the refusal, which is recorded */
	cr_assert_eq(s.ev[0].pid, 0, "not for a CONTINUE");
	cr_assert_eq(s.ev[1].pid, s.ev[1].tid);
	cr_assert_eq(s.ev[1].ns_pid, 1);
	cr_assert_str_eq(s.ev[1].comm, TARGET_COMM);
	cr_assert_eq(s.ev[0].port, p.allowed);
	cr_assert_eq(s.ev[0].verdict, SUPERVISOR_CONNECT_CONTINUE);
	cr_assert_eq(s.ev[1].port, p.denied);
	cr_assert_eq(s.ev[1].verdict, SUPERVISOR_CONNECT_REFUSE);
	close(s.tcp[0]);
	close(s.tcp[1]);
}

/* Loopback inside the sandbox's network namespace is the sandbox's own: a
 * server the command started itself stays reachable on any port.  The
 * target listens on 127.0.0.1:P and [::1]:Q (ephemeral, so unlisted) and on
 * TEST_ADDR:P, the same port on a public-looking address, which stays
 * refused: the address is what is exempt, not the port. */
static int own_listener(int family, const void *addr, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage ss = { .ss_family = family };
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		memcpy(&a->sin_addr, addr, 4);
		a->sin_port = htons(port);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		memcpy(&a->sin6_addr, addr, 16);
		a->sin6_port = htons(port);
		len = sizeof(*a);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	*bound = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					 : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

/* Connects to sa and reports (errno, connections waiting at listener). */
static void connect_and_count(int out, int family, const void *sa, socklen_t len, int listener)
{
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = s < 0 ? errno : rc_err(connect(s, sa, len));

	if (err == 0) {
		struct pollfd p = { .fd = listener, .events = POLLIN };
		poll(&p, 1, 2000);
	}
	put_result(out, err, (int)drain_accepts(listener));
	close(s);
}

static void body_loopback(int out, void *arg)
{
	(void)arg;
	const struct in_addr lo = { htonl(INADDR_LOOPBACK) }, test = { htonl(TEST_ADDR) };
	uint16_t p = 0, q = 0, p2 = 0;
	int l4 = own_listener(AF_INET, &lo, 0, &p);
	int l6 = own_listener(AF_INET6, &in6addr_loopback, 0, &q);
	int lt = l4 < 0 ? -1 : own_listener(AF_INET, &test, p, &p2);

	/* 0, 1: the listeners (detail: the port). */
	put_result(out, l4 < 0 || lt < 0 ? errno : 0, p);
	put_result(out, l6 < 0 ? errno : 0, q);
	/* 2: 127.0.0.1:P */
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(p), .sin_addr = lo };
	connect_and_count(out, AF_INET, &a, sizeof(a), l4);
	/* 3: [::1]:Q */
	struct sockaddr_in6 b = { .sin6_family = AF_INET6, .sin6_port = htons(q),
				  .sin6_addr = in6addr_loopback };
	connect_and_count(out, AF_INET6, &b, sizeof(b), l6);
	/* 4: [::ffff:127.0.0.1]:P, through an IPv6 socket. */
	struct sockaddr_in6 c = { .sin6_family = AF_INET6, .sin6_port = htons(p) };
	c.sin6_addr.s6_addr[10] = c.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&c.sin6_addr.s6_addr[12], &lo, 4);
	connect_and_count(out, AF_INET6, &c, sizeof(c), l4);
	/* 5: TEST_ADDR:P, the same port elsewhere: refused. */
	struct sockaddr_in d = lo4(p);
	connect_and_count(out, AF_INET, &d, sizeof(d), lt);
	close(l4);
	close(l6);
	close(lt);
}

Test(connect_watch, loopback_is_the_sandboxs_own_and_continues_on_any_port)
{
	static struct serve s;

	memset(&s, 0, sizeof(s));
	policy_port_set_add(&s.allowed, 443); /* P and Q are ephemeral: not listed */
	struct target t = start_target(body_loopback, NULL);
	serve(&t, &s);

	assert_result(&s, 0, 0);
	assert_result(&s, 1, 0);
	uint16_t p = (uint16_t)s.res[0].detail, q = (uint16_t)s.res[1].detail;
	cr_assert(p != 443 && q != 443);
	assert_result(&s, 2, 0);
	cr_assert_eq(s.res[2].detail, 1, "127.0.0.1: the target's own listener accepted");
	assert_result(&s, 3, 0);
	cr_assert_eq(s.res[3].detail, 1, "::1: the target's own listener accepted");
	assert_result(&s, 4, 0);
	cr_assert_eq(s.res[4].detail, 1, "::ffff:127.0.0.1: the target's own listener accepted");
	assert_result(&s, 5, ECONNREFUSED);
	cr_assert_eq(s.res[5].detail, 0, "nothing reached TEST_ADDR at the same port");
	cr_assert_eq(s.n_ev, 4, "%zu events", s.n_ev);
	assert_event(&s, 0, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 1, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET6, q, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 2, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET6, p, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 3, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p, SUPERVISOR_CONNECT_REFUSE);

	char dst[64], want[64];
	cr_assert(supervisor_connect_event_dst(&s.ev[0], dst, sizeof(dst)));
	snprintf(want, sizeof(want), "127.0.0.1:%u", p);
	cr_assert_str_eq(dst, want);
	cr_assert(supervisor_connect_event_dst(&s.ev[1], dst, sizeof(dst)));
	snprintf(want, sizeof(want), "[::1]:%u", q);
	cr_assert_str_eq(dst, want);
	cr_assert(supervisor_connect_event_dst(&s.ev[2], dst, sizeof(dst)));
	snprintf(want, sizeof(want), "[::ffff:127.0.0.1]:%u", p);
	cr_assert_str_eq(dst, want);
}

static void body_other_families(int out, void *arg)
{
	const struct sockaddr_un *un = arg;
	int s;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, (const struct sockaddr *)un,
				       offsetof(struct sockaddr_un, sun_path) + 1 + strlen(un->sun_path + 1))),
		   0);
	close(s);
	/* AF_UNSPEC on a datagram socket dissolves its association. */
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(connect(s, &unspec, sizeof(unspec))), 0);
	close(s);
	/* AF_NETLINK: connect sets the default peer (the kernel, pid 0). */
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	put_result(out, s < 0 ? errno : rc_err(connect(s, (struct sockaddr *)&nl, sizeof(nl))), 0);
	close(s);
}

Test(connect_watch, unix_unspec_and_netlink_continue)
{
	static struct serve s;
	struct sockaddr_un un = { .sun_family = AF_UNIX };

	memset(&s, 0, sizeof(s)); /* empty allowed set: every IP port refused */
	snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1, "porta-test-%d", (int)getpid());
	/* An abstract name belongs to a network namespace: the test's. */
	int l = ns_socket(NS_UNIX, &un, NULL);
	s.tcp[0] = l;
	s.n_tcp = 1;

	struct target t = start_target(body_other_families, &un);
	serve(&t, &s);

	assert_result(&s, 0, 0);
	assert_result(&s, 1, 0);
	assert_result(&s, 2, 0);
	cr_assert_eq(s.accepts[0], 1);
	cr_assert_eq(s.n_ev, 3);
	assert_event(&s, 0, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_UNIX, 0, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 1, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_UNSPEC, 0, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 2, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_NETLINK, 0, SUPERVISOR_CONNECT_CONTINUE);
	cr_assert_eq(memcmp(&s.ev[0].sa, &un, s.ev[0].sa_len), 0, "the path as the program wrote it");
	close(l);
}

/* Calls the kernel fails by itself are let through so that it does: the
 * program sees the kernel's errno, not the supervisor's. */
static void body_malformed(int out, void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in d = lo4(p->denied);
	long page = sysconf(_SC_PAGESIZE);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	put_result(out, rc_err(connect(s, (struct sockaddr *)8, sizeof(d))), 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&d, 8)), 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&d, 0)), 0);
	put_result(out, rc_err(connect(s, (struct sockaddr *)&d, -1)), 0);
	struct sockaddr_storage big;
	memset(&big, 0, sizeof(big));
	memcpy(&big, &d, sizeof(d));
	put_result(out, rc_err(connect(s, (struct sockaddr *)&big, sizeof(big) + 1)), 0);
	/* An address straddling the end of a mapping: 8 readable bytes of 16. */
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + page, page);
	memcpy(m + page - 8, &d, 8);
	put_result(out, rc_err(connect(s, (struct sockaddr *)(m + page - 8), sizeof(d))), 0);
	close(s);
}

Test(connect_watch, malformed_calls_keep_the_kernels_errno)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	memset(&s, 0, sizeof(s));
	s.tcp[0] = tcp_listener(&p.denied);
	s.n_tcp = 1;
	struct target t = start_target(body_malformed, &p);
	serve(&t, &s);

	static const struct {
		int err;
		enum supervisor_connect_addr st;
		int addr_err;
	} want[] = {
		{ EFAULT, SUPERVISOR_CONNECT_ADDR_UNREADABLE, EFAULT },
		{ EINVAL, SUPERVISOR_CONNECT_ADDR_BAD_LEN, 0 },
		{ EINVAL, SUPERVISOR_CONNECT_ADDR_BAD_LEN, 0 },
		{ EINVAL, SUPERVISOR_CONNECT_ADDR_BAD_LEN, 0 },
		{ EINVAL, SUPERVISOR_CONNECT_ADDR_BAD_LEN, 0 },
		{ EFAULT, SUPERVISOR_CONNECT_ADDR_UNREADABLE, EFAULT },
	};
	cr_assert_eq(s.n_ev, ARRAY_LEN(want));
	for (size_t i = 0; i < ARRAY_LEN(want); i++) {
		assert_result(&s, i, want[i].err);
		cr_assert_eq(s.ev[i].addr_status, want[i].st, "call %zu: status %d", i, s.ev[i].addr_status);
		cr_assert_eq(s.ev[i].addr_err, want[i].addr_err, "call %zu", i);
		cr_assert_eq(s.ev[i].verdict, SUPERVISOR_CONNECT_CONTINUE, "call %zu", i);
		cr_assert_str_eq(s.ev[i].comm, "", "a CONTINUE's caller is not read");
	}
	cr_assert_eq(s.accepts[0], 0);
	close(s.tcp[0]);
}

/* ===================================================================== */
/* sendto, sendmsg, sendmmsg                                              */
/* ===================================================================== */

static void body_sends(int out, void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in ua = lo4(p->udp_allowed), ud = lo4(p->udp_denied), td = lo4(p->denied);
	int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), t;

	/* 0, 1: unconnected UDP with a destination: notified. */
	put_result(out, rc_err(sendto(u, "a", 1, 0, (struct sockaddr *)&ua, sizeof(ua))), 0);
	put_result(out, rc_err(sendto(u, "d", 1, 0, (struct sockaddr *)&ud, sizeof(ud))), 0);
	/* 2: connected, no destination: send(2) is not notified. */
	connect(u, (struct sockaddr *)&ua, sizeof(ua)); /* notified, allowed */
	put_result(out, rc_err(send(u, "c", 1, 0)), 0);
	close(u);
	/* 3: TCP Fast Open to the refused port: sendto connects. */
	t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(sendto(t, "f", 1, MSG_FASTOPEN, (struct sockaddr *)&td, sizeof(td))), 0);
	close(t);
	/* 4: the same through sendmsg. */
	struct iovec iov = { .iov_base = "g", .iov_len = 1 };
	struct msghdr mh = { .msg_name = &td, .msg_namelen = sizeof(td), .msg_iov = &iov, .msg_iovlen = 1 };
	t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(sendmsg(t, &mh, MSG_FASTOPEN)), 0);
	close(t);
	/* 5: and through sendmmsg. */
	struct mmsghdr mm = { .msg_hdr = mh };
	t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(sendmmsg(t, &mm, 1, MSG_FASTOPEN)), 0);
	close(t);
	/* 6: sendmsg with a destination but without MSG_FASTOPEN: notified
	 * (every sendmsg is, for the Unix rule: policy/seccomp_table.c) and
	 * let go on unread, an IP socket's datagram is no IP rule's business.
	 * The network namespace is where it ends: here, the test's own, where
	 * the canary gets it. */
	struct iovec iov2 = { .iov_base = "h", .iov_len = 1 };
	struct msghdr mh2 = { .msg_name = &ud, .msg_namelen = sizeof(ud), .msg_iov = &iov2, .msg_iovlen = 1 };
	u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	put_result(out, rc_err(sendmsg(u, &mh2, 0)), 0);
	close(u);
}

Test(connect_watch, sends_with_a_destination_are_watched)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };

	memset(&s, 0, sizeof(s));
	s.tcp[0] = tcp_listener(&p.denied);
	s.n_tcp = 1;
	s.udp[0] = ns_socket(NS_UDP53, NULL, &p.udp_allowed);
	s.udp[1] = udp_socket(&p.udp_denied);
	s.n_udp = 2;
	canary_is_reachable(s.tcp[0], p.denied);
	udp_canary_is_reachable(s.udp[1], p.udp_denied);
	policy_port_set_add(&s.allowed, p.udp_allowed);

	struct target t = start_target(body_sends, &p);
	serve(&t, &s);

	assert_result(&s, 0, 0);
	assert_result(&s, 1, ECONNREFUSED);
	assert_result(&s, 2, 0);
	assert_result(&s, 3, ECONNREFUSED);
	assert_result(&s, 4, ECONNREFUSED);
	assert_result(&s, 5, ECONNREFUSED);
	assert_result(&s, 6, 0);
	cr_assert_eq(s.n_ev, 7, "%zu events", s.n_ev);
	assert_event(&s, 6, t.pid, SUPERVISOR_CONNECT_CALL_SENDMSG, AF_UNSPEC, 0, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 0, t.pid, SUPERVISOR_CONNECT_CALL_SENDTO, AF_INET, p.udp_allowed, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 1, t.pid, SUPERVISOR_CONNECT_CALL_SENDTO, AF_INET, p.udp_denied, SUPERVISOR_CONNECT_REFUSE);
	assert_event(&s, 2, t.pid, SUPERVISOR_CONNECT_CALL_CONNECT, AF_INET, p.udp_allowed, SUPERVISOR_CONNECT_CONTINUE);
	assert_event(&s, 3, t.pid, SUPERVISOR_CONNECT_CALL_SENDTO, AF_INET, p.denied, SUPERVISOR_CONNECT_REFUSE);
	assert_event(&s, 4, t.pid, SUPERVISOR_CONNECT_CALL_SENDMSG, AF_INET, p.denied, SUPERVISOR_CONNECT_REFUSE);
	assert_event(&s, 5, t.pid, SUPERVISOR_CONNECT_CALL_SENDMMSG, AF_INET, p.denied, SUPERVISOR_CONNECT_REFUSE);
	cr_assert_eq(s.datagrams[0], 2, "allowed: the sendto and the send");
	cr_assert_eq(s.accepts[0], 0, "TCP canary: no Fast Open connect arrived");
	cr_assert_eq(s.datagrams[1], 1, "UDP canary: only the sendmsg let go on");
	close(s.tcp[0]);
	close(s.udp[0]);
	close(s.udp[1]);
}

/* ===================================================================== */
/* The rest of the filter still holds                                     */
/* ===================================================================== */

static void body_base_rules(int out, void *arg)
{
	(void)arg;
	int lfd = -1;
	long v = 0;
	struct iovec l = { &v, sizeof(v) }, r = { &v, sizeof(v) };

	put_result(out, rc_err(unshare(CLONE_NEWUSER)), 0);
	put_result(out, rc_err(unshare(CLONE_NEWNET)), 0);
	put_result(out, rc_err(socket(AF_PACKET, SOCK_RAW, 0)), 0);
	put_result(out, rc_err(process_vm_readv(getppid(), &l, 1, &r, 1, 0)), 0);
	put_result(out, rc_err(syscall(SYS_io_uring_setup, 1, NULL)), 0);
	/* A second listener: the kernel keeps one per thread. */
	put_result(out, -sandbox_seccomp_install_listener(POLICY_SECCOMP_NOTIFY_CONNECT, &lfd), 0);
	/* Stacking a plain filter is allowed and does not hide connect. */
	put_result(out, -sandbox_seccomp_install(POLICY_SECCOMP_BASE), 0);
}

Test(connect_watch, base_rules_hold_in_the_notify_variant)
{
	static struct serve s;

	memset(&s, 0, sizeof(s));
	struct target t = start_target(body_base_rules, NULL);
	serve(&t, &s);
	assert_result(&s, 0, EPERM);
	assert_result(&s, 1, EPERM);
	assert_result(&s, 2, EAFNOSUPPORT);
	assert_result(&s, 3, EPERM);
	assert_result(&s, 4, ENOSYS);
	assert_result(&s, 5, EBUSY);
	assert_result(&s, 6, 0);
	cr_assert_eq(s.n_ev, 0, "none of those is notified");
}

Test(connect_watch, install_entry_points_refuse_the_wrong_variant)
{
	int fd = -7;

	/* Both fail before any syscall: safe in the test process itself. */
	cr_assert_eq(sandbox_seccomp_install(POLICY_SECCOMP_NOTIFY_CONNECT), -EINVAL);
	cr_assert_eq(sandbox_seccomp_install_listener(POLICY_SECCOMP_BASE, &fd), -EINVAL);
	cr_assert_eq(sandbox_seccomp_install_listener(POLICY_SECCOMP_VARIANT_COUNT, &fd), -EINVAL);
	cr_assert_eq(sandbox_seccomp_install_listener(POLICY_SECCOMP_NOTIFY_CONNECT, NULL), -EINVAL);
	cr_assert_eq(fd, -7);
	cr_assert_gt(sandbox_seccomp_prog_len(POLICY_SECCOMP_NOTIFY_CONNECT),
		     sandbox_seccomp_prog_len(POLICY_SECCOMP_BASE));
}

Test(connect_watch, handler_errors_without_a_notification)
{
	struct policy_port_set allowed = { { 0 } };
	struct supervisor_connect_event ev;
	int p[2];

	cr_assert_eq(supervisor_connect_watch_handle(-1, &allowed, NULL, &ev), -EBADF);
	cr_assert_eq(supervisor_connect_watch_handle(0, NULL, NULL, &ev), -EINVAL);
	cr_assert_eq(supervisor_connect_watch_handle(0, &allowed, NULL, NULL), -EINVAL);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(supervisor_connect_watch_handle(p[0], &allowed, NULL, &ev), -EAGAIN, "nothing readable");
	cr_assert_eq(write(p[1], "x", 1), 1);
	cr_assert_eq(supervisor_connect_watch_handle(p[0], &allowed, NULL, &ev), -ENOTTY, "not a listener");
	close(p[1]);
	close(p[0]);
}

/* ===================================================================== */
/* The target goes away                                                   */
/* ===================================================================== */

static void body_connect_forever(int out, void *arg)
{
	const struct ports *p = arg;
	struct sockaddr_in a = lo4(p->allowed);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	put_result(out, rc_err(connect(s, (struct sockaddr *)&a, sizeof(a))), 0);
	for (;;)
		pause();
}

static void wait_notified(int listener)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 10000), 1, "no notification");
	cr_assert(p.revents & POLLIN);
}

Test(connect_watch, target_killed_before_the_receive)
{
	struct policy_port_set allowed = { { 0 } };
	struct supervisor_connect_event ev;
	struct ports p = { .target_cpu = -1 };
	int status, rc;
	int l = tcp_listener(&p.allowed);

	policy_port_set_add(&allowed, p.allowed);
	struct target t = start_target(body_connect_forever, &p);
	wait_notified(t.listener);
	cr_assert_eq(kill(t.pid, SIGKILL), 0);
	cr_assert_eq(waitpid(t.pid, &status, 0), t.pid);
	rc = supervisor_connect_watch_handle(t.listener, &allowed, NULL, &ev);
	cr_assert(rc == -ENOENT || rc == -EPIPE, "%s", strerror(-rc));
	cr_assert_eq(supervisor_connect_watch_handle(t.listener, &allowed, NULL, &ev), -EPIPE,
		     "no user left: the loop stops watching");
	cr_assert_eq(drain_accepts(l), 0);
	close(t.listener);
	close(t.results);
	close(l);
}

struct killer {
	pid_t pid;
	double delay_ns;
	atomic_bool go;
};

/* Busy-waits (usleep's slack is longer than the whole handler) for the
 * signal to go, then for delay_ns, then kills. */
static void *kill_later(void *arg)
{
	struct killer *k = arg;

	while (!atomic_load(&k->go))
		;
	double until = now_ns() + k->delay_ns;
	while (now_ns() < until)
		;
	kill(k->pid, SIGKILL);
	return NULL;
}

/* The kill lands anywhere from before the receive to after the answer; the
 * handler always returns, the answer either lands or is reported withdrawn,
 * and the listener reports the end.  200 rounds, the kill 0 to 49 us after
 * the handler starts.  The port is not allowed: the refusal is what reads
 * the caller's pid and comm (a CONTINUE reads neither). */
Test(connect_watch, target_killed_while_being_handled_never_wedges)
{
	struct policy_port_set allowed = { { 0 } };
	struct ports p = { .target_cpu = -1 };
	int l = tcp_listener(&p.allowed);
	size_t answered = 0, withdrawn = 0, vanished = 0;

	for (unsigned round = 0; round < 200; round++) {
		struct supervisor_connect_event ev;
		struct target t = start_target(body_connect_forever, &p);
		struct killer k = { .pid = t.pid, .delay_ns = (double)(round % 50) * 1000.0 };
		pthread_t th;
		int status;

		atomic_store(&k.go, false);
		cr_assert_eq(pthread_create(&th, NULL, kill_later, &k), 0);
		wait_notified(t.listener);
		atomic_store(&k.go, true);
		int rc = supervisor_connect_watch_handle(t.listener, &allowed, NULL, &ev);
		pthread_join(th, NULL);
		cr_assert_eq(waitpid(t.pid, &status, 0), t.pid);
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		if (rc == 0 && !ev.withdrawn) {
			answered++;
			cr_assert_eq(ev.verdict, SUPERVISOR_CONNECT_REFUSE);
			cr_assert_eq(ev.pid, t.pid);
			cr_assert_str_eq(ev.comm, TARGET_COMM);
			cr_assert_eq(ev.port, p.allowed);
		} else if (rc == 0) {
			withdrawn++;
			cr_assert_eq(ev.pid, 0, "nothing read through a dead pid is kept");
			cr_assert_str_eq(ev.comm, "");
		} else {
			/* -EAGAIN: the kill withdrew the call before the poll,
			 * and the killed task had not let go of the filter yet
			 * (no POLLHUP): nothing pending, nothing wedged */
			cr_assert(rc == -ENOENT || rc == -EPIPE || rc == -EAGAIN, "round %u: %s", round,
				  strerror(-rc));
			vanished++;
		}
		cr_assert_eq(supervisor_connect_watch_handle(t.listener, &allowed, NULL, &ev), -EPIPE);
		close(t.listener);
		close(t.results);
		drain_accepts(l);
	}
	cr_log_info("kill race: %zu answered, %zu withdrawn mid-handling, %zu gone before receipt",
		    answered, withdrawn, vanished);
	close(l);
}

/* ===================================================================== */
/* TOCTOU: the kernel re-reads the address of a call let through          */
/* ===================================================================== */

#define TOCTOU_ROUNDS 400

/* The first two CPUs this process may run on, when there are two. */
static bool two_cpus(int cpu[2])
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	}
	return n == 2;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

struct flipper {
	struct sockaddr_in *sa;
	uint16_t a, b;
	atomic_bool stop;
};

static void *flip(void *arg)
{
	struct flipper *f = arg;
	volatile uint16_t *port = &f->sa->sin_port;

	while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
		*port = htons(f->a);
		for (volatile int i = 0; i < 50; i++)
			;
		*port = htons(f->b);
		for (volatile int i = 0; i < 50; i++)
			;
	}
	return NULL;
}

static void body_toctou(int out, void *arg)
{
	const struct ports *p = arg;
	static struct sockaddr_in sa;
	static struct flipper f;
	pthread_t th;

	/* The flipper must run while the supervisor looks: on a CPU of its
	 * own, it does; sharing the supervisor's, the address is frozen from
	 * the look to the re-read and the race never shows. */
	if (p->target_cpu >= 0)
		pin(p->target_cpu);
	sa = lo4(p->allowed);
	f.sa = &sa;
	f.a = p->allowed;
	f.b = p->denied;
	atomic_store(&f.stop, false);
	if (pthread_create(&th, NULL, flip, &f) != 0)
		_exit(2);
	for (int i = 0; i < TOCTOU_ROUNDS; i++) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int err = rc_err(connect(s, (struct sockaddr *)&sa, sizeof(sa)));
		struct sockaddr_in peer = { 0 };
		socklen_t len = sizeof(peer);
		if (err == 0)
			getpeername(s, (struct sockaddr *)&peer, &len);
		put_result(out, err, ntohs(peer.sin_port));
		close(s);
	}
	atomic_store(&f.stop, true);
	pthread_join(th, NULL);
}

Test(connect_watch, toctou_can_redirect_a_continue_but_never_a_refusal)
{
	static struct serve s;
	struct ports p = { .target_cpu = -1 };
	size_t refused = 0, continued = 0, redirected = 0;
	int cpu[2];
	bool pinned = two_cpus(cpu);

	memset(&s, 0, sizeof(s));
	s.tcp[0] = tcp_listener(&p.allowed);
	s.tcp[1] = tcp_listener(&p.denied);
	s.n_tcp = 2;
	canary_is_reachable(s.tcp[1], p.denied);
	policy_port_set_add(&s.allowed, p.allowed);
	p.target_cpu = pinned ? cpu[1] : -1;

	struct target t = start_target(body_toctou, &p);
	if (pinned)
		pin(cpu[0]);
	serve(&t, &s);

	/* One thread connects, so events and results pair up in order. */
	cr_assert_eq(s.n_ev, TOCTOU_ROUNDS);
	cr_assert_eq(s.n_res, TOCTOU_ROUNDS);
	for (size_t i = 0; i < TOCTOU_ROUNDS; i++) {
		const struct supervisor_connect_event *ev = &s.ev[i];
		const struct result *r = &s.res[i];

		cr_assert_not(ev->withdrawn);
		if (ev->verdict == SUPERVISOR_CONNECT_REFUSE) {
			/* What the handler saw was the refused port; whatever
			 * the flipper wrote afterwards, the call never ran. */
			refused++;
			cr_assert_eq(ev->port, p.denied, "round %zu", i);
			cr_assert_eq(r->err, ECONNREFUSED, "round %zu: a refused call ran", i);
		} else {
			/* The handler saw the allowed port and let the call
			 * through; the kernel read the address again, and it
			 * may have changed: that is why CONTINUE is never an
			 * allow, and the network namespace decides. */
			continued++;
			cr_assert_eq(ev->port, p.allowed, "round %zu", i);
			cr_assert_eq(r->err, 0, "round %zu: %s", i, strerror(r->err));
			cr_assert(r->detail == p.allowed || r->detail == p.denied, "round %zu", i);
			if (r->detail == p.denied)
				redirected++;
		}
	}
	/* Everything that reached the canary came through a CONTINUE whose
	 * address changed after the look; nothing came through a refusal. */
	cr_assert_eq(s.accepts[1], redirected, "canary %zu, redirected %zu", s.accepts[1], redirected);
	cr_assert_eq(s.accepts[0], continued - redirected);
	cr_log_info("toctou: %zu refused (none reached the canary), %zu continued, of which %zu "
		    "were redirected to the refused port after the handler looked; %.1f us per "
		    "notification",
		    refused, continued, redirected, s.handle_ns / (double)s.n_ev / 1e3);
	cr_assert_gt(refused, 0, "the flipper never showed the refused port");
	cr_assert_gt(continued, 0);
	if (pinned)
		cr_assert_gt(redirected, 0, "with the flipper on its own CPU the re-read shows");
	else
		cr_log_warn("one CPU: the redirect half of the race cannot show here");
	close(s.tcp[0]);
	close(s.tcp[1]);
}
