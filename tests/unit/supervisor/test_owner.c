/* tests/unit/supervisor/test_owner.c: who holds the program's end of a
 * connection or query (supervisor/owner.h).
 *
 * The pure parts are checked byte for byte: the sock_diag request (which end
 * is src for TCP and for UDP, IPv4-mapped addresses asked as IPv4), the
 * reply parser (with a truncation sweep) and the fd link parser.  The lookup
 * itself runs against this process's own network and pid namespaces: a
 * forked child named OTHER_COMM holds the client socket, the test holds the
 * server end and asks, and the answer must be the child's pid and name;
 * then the same with the socket closed (nobody can tell), and with the pid
 * namespace of another process (the scan must not look outside it).
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/owner.h"

#define OTHER_COMM "owner-probe"

/* ===================================================================== */
/* Pure parts                                                             */
/* ===================================================================== */

static struct sockaddr_in v4(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(port) };
	cr_assert_eq(inet_pton(AF_INET, ip, &s.sin_addr), 1);
	return s;
}

static struct sockaddr_in6 v6(const char *ip, uint16_t port)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	cr_assert_eq(inet_pton(AF_INET6, ip, &s.sin6_addr), 1);
	return s;
}

struct req {
	struct nlmsghdr nh;
	struct inet_diag_req_v2 r;
};

static struct req build(int proto, const void *peer, socklen_t pl, const void *local, socklen_t ll)
{
	struct req m;
	uint8_t buf[256];
	size_t n = supervisor_owner_diag_request(proto, peer, pl, local, ll, 77, buf, sizeof(buf));
	cr_assert_eq(n, sizeof(m));
	memcpy(&m, buf, sizeof(m));
	cr_assert_eq(m.nh.nlmsg_len, sizeof(m));
	cr_assert_eq(m.nh.nlmsg_type, SOCK_DIAG_BY_FAMILY);
	cr_assert_eq(m.nh.nlmsg_flags, NLM_F_REQUEST);
	cr_assert_eq(m.nh.nlmsg_seq, 77);
	cr_assert_eq(m.r.sdiag_protocol, proto);
	cr_assert_eq(m.r.id.idiag_cookie[0], INET_DIAG_NOCOOKIE);
	cr_assert_eq(m.r.id.idiag_cookie[1], INET_DIAG_NOCOOKIE);
	return m;
}

Test(owner_request, tcp_names_the_program_socket_by_its_own_end)
{
	struct sockaddr_in peer = v4("10.0.0.7", 40000), local = v4("203.0.113.5", 443);
	struct req m = build(IPPROTO_TCP, &peer, sizeof(peer), &local, sizeof(local));

	cr_assert_eq(m.r.sdiag_family, AF_INET);
	cr_assert_eq(m.r.id.idiag_src[0], peer.sin_addr.s_addr);
	cr_assert_eq(m.r.id.idiag_sport, htons(40000));
	cr_assert_eq(m.r.id.idiag_dst[0], local.sin_addr.s_addr);
	cr_assert_eq(m.r.id.idiag_dport, htons(443));
}

Test(owner_request, udp_swaps_src_and_dst)
{
	struct sockaddr_in peer = v4("10.0.0.7", 40000), local = v4("203.0.113.53", 53);
	struct req m = build(IPPROTO_UDP, &peer, sizeof(peer), &local, sizeof(local));

	cr_assert_eq(m.r.sdiag_family, AF_INET);
	cr_assert_eq(m.r.id.idiag_src[0], local.sin_addr.s_addr);
	cr_assert_eq(m.r.id.idiag_sport, htons(53));
	cr_assert_eq(m.r.id.idiag_dst[0], peer.sin_addr.s_addr);
	cr_assert_eq(m.r.id.idiag_dport, htons(40000));
}

Test(owner_request, mapped_addresses_ask_as_ipv4)
{
	struct sockaddr_in6 peer = v6("::ffff:10.0.0.7", 40000);
	struct sockaddr_in6 local = v6("::ffff:203.0.113.5", 443);
	struct sockaddr_in local4 = v4("203.0.113.5", 443);
	struct req m = build(IPPROTO_TCP, &peer, sizeof(peer), &local, sizeof(local));

	cr_assert_eq(m.r.sdiag_family, AF_INET);
	cr_assert_eq(m.r.id.idiag_src[0], htonl(0x0a000007));
	cr_assert_eq(m.r.id.idiag_src[1], 0, "an IPv4 request uses the first word only");
	cr_assert_eq(m.r.id.idiag_dst[0], htonl(0xcb007105));
	/* an IPv4 local end with a mapped peer (a UDP query's PKTINFO) */
	m = build(IPPROTO_UDP, &peer, sizeof(peer), &local4, sizeof(local4));
	cr_assert_eq(m.r.sdiag_family, AF_INET);
	cr_assert_eq(m.r.id.idiag_dst[0], htonl(0x0a000007));
}

Test(owner_request, ipv6_asks_as_ipv6)
{
	struct sockaddr_in6 peer = v6("2001:db8::7", 40000), local = v6("2001:db8::5", 443);
	struct req m = build(IPPROTO_TCP, &peer, sizeof(peer), &local, sizeof(local));

	cr_assert_eq(m.r.sdiag_family, AF_INET6);
	cr_assert_eq(memcmp(m.r.id.idiag_src, &peer.sin6_addr, 16), 0);
	cr_assert_eq(memcmp(m.r.id.idiag_dst, &local.sin6_addr, 16), 0);
}

Test(owner_request, refuses_what_no_socket_could_be)
{
	struct sockaddr_in a = v4("10.0.0.7", 1);
	struct sockaddr_in6 b = v6("2001:db8::5", 2);
	struct sockaddr sa = { .sa_family = AF_UNIX };
	uint8_t buf[256];

	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_TCP, (void *)&a, sizeof(a), (void *)&b,
						   sizeof(b), 1, buf, sizeof(buf)), 0, "mixed");
	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_SCTP, (void *)&a, sizeof(a), (void *)&a,
						   sizeof(a), 1, buf, sizeof(buf)), 0, "sctp");
	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_TCP, &sa, sizeof(sa), (void *)&a,
						   sizeof(a), 1, buf, sizeof(buf)), 0, "unix");
	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_TCP, (void *)&a, 4, (void *)&a,
						   sizeof(a), 1, buf, sizeof(buf)), 0, "short");
	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_TCP, (void *)&a, sizeof(a), (void *)&a,
						   sizeof(a), 1, buf, 20), 0, "small buffer");
	cr_assert_eq(supervisor_owner_diag_request(IPPROTO_TCP, NULL, 0, (void *)&a, sizeof(a), 1,
						   buf, sizeof(buf)), 0, "no peer");
}

/* One SOCK_DIAG_BY_FAMILY answer as the kernel writes it. */
static size_t reply(uint8_t *buf, uint32_t seq, uint16_t sport, uint16_t dport, uint8_t state,
		    uint32_t inode)
{
	struct nlmsghdr nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg)),
			       .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_seq = seq };
	struct inet_diag_msg m = { .idiag_family = AF_INET, .idiag_state = state,
				   .idiag_inode = inode };
	m.id.idiag_sport = htons(sport);
	m.id.idiag_dport = htons(dport);
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + sizeof(nh), &m, sizeof(m));
	return NLMSG_ALIGN(nh.nlmsg_len);
}

static size_t error_reply(uint8_t *buf, uint32_t seq, int error)
{
	struct nlmsghdr nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr)),
			       .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = seq };
	struct nlmsgerr e = { .error = error };
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + sizeof(nh), &e, sizeof(e));
	return NLMSG_ALIGN(nh.nlmsg_len);
}

Test(owner_reply, the_socket_found)
{
	uint8_t buf[512];
	uint32_t ino;
	size_t n = reply(buf, 9, 40000, 443, TCP_ESTABLISHED, 12345);

	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_FOUND);
	cr_assert_eq(ino, 12345);
	/* UDP: an unconnected socket has no remote port; not checked */
	n = reply(buf, 9, 40000, 0, TCP_CLOSE, 777);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 0, &ino),
		     SUPERVISOR_OWNER_REPLY_FOUND);
	cr_assert_eq(ino, 777);
}

Test(owner_reply, a_late_answer_to_an_earlier_request_is_skipped)
{
	uint8_t buf[512];
	uint32_t ino;
	size_t n = reply(buf, 8, 1111, 443, TCP_ESTABLISHED, 1);

	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NONE);
	n += reply(buf + n, 9, 40000, 443, TCP_ESTABLISHED, 2);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_FOUND);
	cr_assert_eq(ino, 2);
}

Test(owner_reply, what_is_not_the_programs_socket)
{
	uint8_t buf[512];
	uint32_t ino = 5;
	size_t n;

	n = reply(buf, 9, 40001, 443, TCP_ESTABLISHED, 3);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NOT_FOUND, "another local port");
	cr_assert_eq(ino, 0);
	n = reply(buf, 9, 40000, 444, TCP_ESTABLISHED, 3);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NOT_FOUND, "connected elsewhere");
	n = reply(buf, 9, 40000, 443, TCP_LISTEN, 3);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NOT_FOUND, "a listener");
	n = reply(buf, 9, 40000, 443, TCP_TIME_WAIT, 0);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NOT_FOUND, "closed: no inode");
	n = error_reply(buf, 9, -ENOENT);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NOT_FOUND);
	n = error_reply(buf, 9, -EINVAL);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_ERROR);
	n = error_reply(buf, 9, 0);
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_NONE, "an acknowledgement answers nothing");
}

Test(owner_reply, truncation_sweep)
{
	uint8_t buf[512];
	uint32_t ino;
	size_t n = reply(buf, 9, 40000, 443, TCP_ESTABLISHED, 42);

	for (size_t i = 0; i < n; i++) {
		enum supervisor_owner_reply r = supervisor_owner_diag_parse(buf, i, 9, 40000, 443, &ino);
		cr_assert(r == (i == 0 ? SUPERVISOR_OWNER_REPLY_NONE : SUPERVISOR_OWNER_REPLY_MALFORMED),
			  "prefix %zu: %d", i, r);
	}
	/* a length field that lies */
	struct nlmsghdr nh;
	memcpy(&nh, buf, sizeof(nh));
	nh.nlmsg_len = 8;
	memcpy(buf, &nh, sizeof(nh));
	cr_assert_eq(supervisor_owner_diag_parse(buf, n, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_MALFORMED);
	nh.nlmsg_len = sizeof(nh) + 4; /* too short for an inet_diag_msg */
	memcpy(buf, &nh, sizeof(nh));
	cr_assert_eq(supervisor_owner_diag_parse(buf, sizeof(nh) + 4, 9, 40000, 443, &ino),
		     SUPERVISOR_OWNER_REPLY_MALFORMED);
}

Test(owner_children, children_files)
{
	pid_t out[4];

	cr_assert_eq(supervisor_owner_parse_pids("12 345 6 ", 9, out, 4), 3);
	cr_assert(out[0] == 12 && out[1] == 345 && out[2] == 6);
	cr_assert_eq(supervisor_owner_parse_pids("", 0, out, 4), 0);
	cr_assert_eq(supervisor_owner_parse_pids("1 2 3 4 5 6 ", 12, out, 4), 6,
		     "the count past cap, so the caller knows it was cut");
	cr_assert_eq(out[3], 4);
	cr_assert_eq(supervisor_owner_parse_pids("7 8x 9 ", 7, out, 4), 1, "stops at a stray byte");
	cr_assert_eq(supervisor_owner_parse_pids("0 ", 2, out, 4), 0, "pid 0 is no process");
	cr_assert_eq(supervisor_owner_parse_pids("99999999999 ", 12, out, 4), 0, "too big");
	cr_assert_eq(supervisor_owner_parse_pids("5", 1, out, 4), 1, "cut short: what is there");
}

Test(owner_link, socket_links)
{
	static const struct {
		const char *s;
		bool ok;
		uint32_t ino;
	} v[] = {
		{ "socket:[12345]", true, 12345 },
		{ "socket:[4294967295]", true, 4294967295u },
		{ "socket:[4294967296]", false, 0 },
		{ "socket:[]", false, 0 },
		{ "socket:[12a]", false, 0 },
		{ "socket:[012]", false, 0 },
		{ "socket:[12", false, 0 },
		{ "pipe:[12]", false, 0 },
		{ "/tmp/socket:[12]", false, 0 },
		{ "socket:[-1]", false, 0 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint32_t ino = 0;
		bool ok = supervisor_owner_socket_link(v[i].s, strlen(v[i].s), &ino);
		cr_assert_eq(ok, v[i].ok, "%s", v[i].s);
		if (ok)
			cr_assert_eq(ino, v[i].ino, "%s", v[i].s);
	}
}

/* ===================================================================== */
/* The lookup, in this process's own namespaces                            */
/* ===================================================================== */

struct holder {
	pid_t pid;
	int fd;       /* our end: accepted TCP, or the UDP server */
	struct sockaddr_storage peer, local;
	socklen_t peer_len, local_len;
};

static int diag_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_SOCK_DIAG);
	if (fd < 0)
		cr_skip_test("no NETLINK_SOCK_DIAG here: %s", strerror(errno));
	return fd;
}

/* A forked child named OTHER_COMM connects (TCP) or sends one datagram (UDP)
 * from a socket of family cfam to srv (a socket of ours), then waits with
 * the socket open until killed (close_first: closes it first, and says so).
 * We accept or receive: h->peer is the child's end as we see it. */
static bool start_holder(int type, int srv, int cfam, const struct sockaddr *dst, socklen_t dl,
			 bool close_first, struct holder *h)
{
	int ready[2];
	char c;

	memset(h, 0, sizeof(*h));
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	h->pid = fork();
	cr_assert_geq(h->pid, 0);
	if (h->pid == 0) {
		prctl(PR_SET_NAME, OTHER_COMM);
		int fd = socket(cfam, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			_exit(1);
		if (type == SOCK_STREAM ? connect(fd, dst, dl) < 0
					: sendto(fd, "q", 1, 0, dst, dl) != 1)
			_exit(1);
		if (close_first)
			close(fd);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	bool ok = read(ready[0], &c, 1) == 1;
	close(ready[0]);
	if (!ok)
		return false;
	h->peer_len = sizeof(h->peer);
	if (type == SOCK_STREAM) {
		h->fd = accept4(srv, (struct sockaddr *)&h->peer, &h->peer_len, SOCK_CLOEXEC);
		cr_assert_geq(h->fd, 0);
		h->local_len = sizeof(h->local);
		cr_assert_eq(getsockname(h->fd, (struct sockaddr *)&h->local, &h->local_len), 0);
	} else {
		char b;
		cr_assert_eq(recvfrom(srv, &b, 1, 0, (struct sockaddr *)&h->peer, &h->peer_len), 1);
		h->fd = -1;
		memcpy(&h->local, dst, dl);
		h->local_len = dl;
	}
	return true;
}

static void stop_holder(struct holder *h)
{
	kill(h->pid, SIGKILL);
	waitpid(h->pid, NULL, 0);
	if (h->fd >= 0)
		close(h->fd);
}

/* A bound socket of family fam and type on addr (port 0), its address
 * written back; -1 when the family is not available here. */
static int server(int type, int fam, const char *addr, bool v6only, struct sockaddr_storage *ss,
		  socklen_t *len)
{
	int fd = socket(fam, type | SOCK_CLOEXEC, 0), zero = 0;
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		struct sockaddr_in s = v4(addr, 0);
		memcpy(ss, &s, sizeof(s));
		*len = sizeof(s);
	} else {
		struct sockaddr_in6 s = v6(addr, 0);
		memcpy(ss, &s, sizeof(s));
		*len = sizeof(s);
		if (!v6only)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)ss, *len) < 0 ||
	    getsockname(fd, (struct sockaddr *)ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) < 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
					: ((const struct sockaddr_in6 *)ss)->sin6_port;
}

/* The holder of h's socket, asked as porta asks. */
static bool ask(pid_t ns_of, int proto, const struct holder *h, struct decision_owner *out)
{
	struct supervisor_owner *o;
	int r = supervisor_owner_create(diag_socket(), ns_of, &o);
	cr_assert_eq(r, 0, "create: %s", strerror(-r));
	bool ok = supervisor_owner_lookup(o, proto, (const struct sockaddr *)&h->peer, h->peer_len,
					  (const struct sockaddr *)&h->local, h->local_len, out);
	supervisor_owner_destroy(o);
	return ok;
}

/* The child's pid and name come back, for a client of family cfam talking
 * to a server of family sfam on addr (dual-stack when sfam is AF_INET6 and
 * addr is "::"). */
static void found(int type, int sfam, const char *addr, int cfam, const char *dial)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct holder h;
	struct decision_owner who;
	int srv = server(type, sfam, addr, false, &ss, &sl);
	if (srv < 0)
		cr_skip_test("no %s here", addr);
	struct sockaddr_storage dst;
	socklen_t dl;
	if (cfam == AF_INET) {
		struct sockaddr_in d = v4(dial, 0);
		d.sin_port = port_of(&ss);
		memcpy(&dst, &d, sizeof(d));
		dl = sizeof(d);
	} else {
		struct sockaddr_in6 d = v6(dial, 0);
		d.sin6_port = port_of(&ss);
		memcpy(&dst, &d, sizeof(d));
		dl = sizeof(d);
	}
	cr_assert(start_holder(type, srv, cfam, (struct sockaddr *)&dst, dl, false, &h));
	bool ok = ask(getpid(), type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP, &h, &who);
	pid_t child = h.pid;
	stop_holder(&h);
	close(srv);
	cr_assert(ok, "the holder was not found");
	cr_assert_eq(who.pid, child, "pid %d, the child is %d", who.pid, child);
	cr_assert_str_eq(who.comm, OTHER_COMM);
}

Test(owner_lookup, tcp_ipv4)
{
	found(SOCK_STREAM, AF_INET, "127.0.0.1", AF_INET, "127.0.0.1");
}

Test(owner_lookup, tcp_ipv4_on_a_dual_stack_listener)
{
	/* the listener sees ::ffff:127.0.0.1; the child's socket is AF_INET */
	found(SOCK_STREAM, AF_INET6, "::", AF_INET, "127.0.0.1");
}

Test(owner_lookup, tcp_ipv6)
{
	found(SOCK_STREAM, AF_INET6, "::1", AF_INET6, "::1");
}

Test(owner_lookup, udp_ipv4)
{
	found(SOCK_DGRAM, AF_INET, "127.0.0.1", AF_INET, "127.0.0.1");
}

Test(owner_lookup, udp_ipv4_from_a_dual_stack_client)
{
	/* an AF_INET6 client socket sending to a mapped address */
	found(SOCK_DGRAM, AF_INET, "127.0.0.1", AF_INET6, "::ffff:127.0.0.1");
}

Test(owner_lookup, udp_ipv6)
{
	found(SOCK_DGRAM, AF_INET6, "::1", AF_INET6, "::1");
}

/* The holder is in the pid namespace but not below the process given as
 * init (as a process re-parented while the walk read its old parent's
 * children would be): the scan of /proc still finds it. */
Test(owner_lookup, outside_the_walk)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct holder h;
	struct decision_owner who;
	pid_t idle = fork();
	cr_assert_geq(idle, 0);
	if (idle == 0) {
		pause();
		_exit(0);
	}
	int srv = server(SOCK_STREAM, AF_INET, "127.0.0.1", false, &ss, &sl);
	cr_assert_geq(srv, 0);
	struct sockaddr_in d = v4("127.0.0.1", 0);
	d.sin_port = port_of(&ss);
	cr_assert(start_holder(SOCK_STREAM, srv, AF_INET, (struct sockaddr *)&d, sizeof(d), false, &h));
	bool ok = ask(idle, IPPROTO_TCP, &h, &who);
	pid_t child = h.pid;
	stop_holder(&h);
	close(srv);
	kill(idle, SIGKILL);
	waitpid(idle, NULL, 0);
	cr_assert(ok);
	cr_assert_eq(who.pid, child);
	cr_assert_str_eq(who.comm, OTHER_COMM);
}

/* The child closed its socket before we asked: nobody can tell. */
static void closed(int type)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct holder h;
	struct decision_owner who;
	int srv = server(type, AF_INET, "127.0.0.1", false, &ss, &sl);
	cr_assert_geq(srv, 0);
	struct sockaddr_in d = v4("127.0.0.1", 0);
	d.sin_port = port_of(&ss);
	cr_assert(start_holder(type, srv, AF_INET, (struct sockaddr *)&d, sizeof(d), true, &h));
	bool ok = ask(getpid(), type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP, &h, &who);
	stop_holder(&h);
	close(srv);
	cr_assert(!ok, "found %d %s for a closed socket", who.pid, who.comm);
	cr_assert_eq(who.pid, 0);
	cr_assert_str_eq(who.comm, "");
}

Test(owner_lookup, closed_tcp)
{
	closed(SOCK_STREAM);
}

Test(owner_lookup, closed_udp)
{
	closed(SOCK_DGRAM);
}

/* Only processes of the given pid namespace are looked at: with another
 * one's, our child's socket has no holder. */
Test(owner_lookup, only_the_sandboxs_pid_namespace)
{
	int go[2];

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	pid_t helper = fork();
	cr_assert_geq(helper, 0);
	if (helper == 0) {
		/* a pid namespace of its own, for a child that then waits */
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(2);
		pid_t inner = fork();
		if (inner == 0) {
			pause();
			_exit(0);
		}
		if (inner < 0 || write(go[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(1);
		waitpid(inner, NULL, 0);
		_exit(0);
	}
	close(go[1]);
	pid_t inner = 0;
	bool have = read(go[0], &inner, sizeof(inner)) == sizeof(inner);
	close(go[0]);
	if (!have) {
		int st;
		waitpid(helper, &st, 0);
		cr_skip_test("no user and pid namespace for the test");
	}

	struct sockaddr_storage ss;
	socklen_t sl;
	struct holder h;
	struct decision_owner who;
	int srv = server(SOCK_STREAM, AF_INET, "127.0.0.1", false, &ss, &sl);
	cr_assert_geq(srv, 0);
	struct sockaddr_in d = v4("127.0.0.1", 0);
	d.sin_port = port_of(&ss);
	cr_assert(start_holder(SOCK_STREAM, srv, AF_INET, (struct sockaddr *)&d, sizeof(d), false, &h));
	struct decision_owner mine;
	bool other = ask(inner, IPPROTO_TCP, &h, &who);
	bool ours = ask(getpid(), IPPROTO_TCP, &h, &mine); /* the control */
	stop_holder(&h);
	close(srv);
	kill(inner, SIGKILL);
	waitpid(helper, NULL, 0);
	cr_assert(ours, "the control: found in our own pid namespace");
	cr_assert(!other, "found %d %s outside the given pid namespace", who.pid, who.comm);
}
