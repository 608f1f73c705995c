/* tests/unit/netproxy/proxy_lab.h: a small internet for the proxy tests,
 * built inside a user and network namespace of the test's own (docs/design.md,
 * "Testing the network without a network"):
 *
 *   "host" netns H   lo up, AnyIP routes; fake servers on public-looking
 *                    addresses (203.0.113.x) and a canary on 127.0.0.1,
 *                    a fake DNS upstream on 127.0.0.1:5353 that logs every
 *                    question; the proxy's loop thread lives here, so its
 *                    dials and c-ares' sockets are in H (as the supervisor's
 *                    are on the host).
 *   "sandbox" netns S lo up, AnyIP routes; the proxy's listeners ([::]:P
 *                    transparent, 127.0.0.1:3128 HTTP, 127.0.0.1:1080
 *                    SOCKS5), and the test's clients (the main thread).
 *
 * Nothing leaves these namespaces.  Each scenario runs in a forked child
 * (a process with threads cannot unshare a user namespace, and criterion's
 * runner has threads); LAB_CHECK failures are printed and counted, and the
 * child's exit status is their number (77: no namespaces here). */
#ifndef PORTA_TESTS_UNIT_NETPROXY_PROXY_LAB_H
#define PORTA_TESTS_UNIT_NETPROXY_PROXY_LAB_H

#include <arpa/inet.h>
#include <dirent.h>
#include <execinfo.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LAB_LEAK_CHECK() __lsan_do_leak_check()
#else
#define LAB_LEAK_CHECK() ((void)0)
#endif

#include "decision/log.h"
#include "dns/namemap.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "netproxy/proxy.h"
#include "policy/netrule.h"
#include "sandbox/netns.h"

static int lab_failures;
static int lab_err = 2; /* the real stderr, while fd 2 goes to a file */

#define LAB_CHECK(cond, ...)                                                        \
	do {                                                                        \
		if (!(cond)) {                                                      \
			lab_failures++;                                             \
			dprintf(lab_err, "%s:%d: check failed: %s: ", __FILE__,     \
				__LINE__, #cond);                                   \
			dprintf(lab_err, __VA_ARGS__);                              \
			dprintf(lab_err, "\n");                                     \
		}                                                                   \
	} while (0)

static inline uint64_t lab_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void lab_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* ---- sockaddr helpers ---- */

static inline socklen_t lab_sa(const char *ip, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s4->sin_addr);
	return sizeof(*s4);
}

static inline int lab_listen(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = lab_sa(ip, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* addresses that are local only through the AnyIP route */
	setsockopt(fd, SOL_IP, IP_FREEBIND, &one, sizeof(one));
	if (ss.ss_family == AF_INET6) {
		setsockopt(fd, SOL_IPV6, IPV6_FREEBIND, &one, sizeof(one));
		int zero = 0;
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4096) < 0) {
		dprintf(lab_err, "listen %s:%u: %s\n", ip, port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* A blocking client with a 5 s receive timeout. */
static inline int lab_connect(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = lab_sa(ip, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = { 5, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static inline bool lab_send(int fd, const void *b, size_t n)
{
	return send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n;
}

/* Reads exactly n bytes; false on EOF, error or timeout. */
static inline bool lab_recv_n(int fd, void *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = recv(fd, (char *)b + got, n - got, 0);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* Reads until EOF/reset/timeout; returns the bytes read (into b, cap). */
static inline size_t lab_recv_all(int fd, void *b, size_t cap)
{
	size_t got = 0;
	for (;;) {
		ssize_t r = recv(fd, (char *)b + got, cap - got, 0);
		if (r <= 0 || got + (size_t)r >= cap) {
			if (r > 0)
				got += (size_t)r;
			return got;
		}
		got += (size_t)r;
	}
}

/* True when the peer closed or reset without sending anything. */
static inline bool lab_refused(int fd)
{
	char b[64];
	ssize_t r = recv(fd, b, sizeof(b), 0);
	return r == 0 || (r < 0 && (errno == ECONNRESET || errno == EPIPE));
}

/* ---- a ClientHello with a chosen SNI (or none) ---- */

static inline size_t lab_hello(uint8_t *out, const char *sni)
{
	uint8_t body[1024];
	size_t n = 0;
	body[n++] = 0x03;
	body[n++] = 0x03;
	for (int i = 0; i < 32; i++)
		body[n++] = (uint8_t)i;
	body[n++] = 0; /* session id */
	body[n++] = 0;
	body[n++] = 2;
	body[n++] = 0x13;
	body[n++] = 0x01; /* TLS_AES_128_GCM_SHA256 */
	body[n++] = 1;
	body[n++] = 0; /* null compression */
	size_t ext_len_at = n;
	n += 2;
	if (sni) {
		size_t sl = strlen(sni);
		body[n++] = 0;
		body[n++] = 0; /* server_name */
		body[n++] = (uint8_t)((sl + 5) >> 8);
		body[n++] = (uint8_t)(sl + 5);
		body[n++] = (uint8_t)((sl + 3) >> 8);
		body[n++] = (uint8_t)(sl + 3);
		body[n++] = 0; /* host_name */
		body[n++] = (uint8_t)(sl >> 8);
		body[n++] = (uint8_t)sl;
		memcpy(body + n, sni, sl);
		n += sl;
	}
	size_t el = n - ext_len_at - 2;
	body[ext_len_at] = (uint8_t)(el >> 8);
	body[ext_len_at + 1] = (uint8_t)el;
	size_t o = 0;
	out[o++] = 22;
	out[o++] = 3;
	out[o++] = 1;
	out[o++] = (uint8_t)((n + 4) >> 8);
	out[o++] = (uint8_t)(n + 4);
	out[o++] = 1; /* client_hello */
	out[o++] = 0;
	out[o++] = (uint8_t)(n >> 8);
	out[o++] = (uint8_t)n;
	memcpy(out + o, body, n);
	return o + n;
}

/* ---- fake servers (in H): echo, or speak first, count what they get ---- */

#define LAB_MAX_SERVERS 8
#define LAB_SERVER_CONNS 4096

struct lab_server {
	char ip[64];
	uint16_t port;
	int lfd;
	const char *greeting; /* sent on accept, or NULL */
	bool reset_after_first; /* reset the connection after the first read */
	atomic_ullong bytes;   /* received in all */
	atomic_uint conns;     /* accepted in all */
	atomic_uint open;      /* open now */
	pthread_t th;
	int stop[2];
};

static inline void *lab_server_run(void *arg)
{
	struct lab_server *s = arg;
	struct pollfd *pf = calloc(LAB_SERVER_CONNS + 2, sizeof(*pf));
	size_t n = 2;
	pf[0] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = s->stop[0], .events = POLLIN };
	uint8_t buf[65536];
	for (;;) {
		if (poll(pf, n, -1) < 0)
			continue;
		if (pf[1].revents)
			break;
		if (pf[0].revents & POLLIN) {
			int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				atomic_fetch_add(&s->conns, 1);
				if (n < LAB_SERVER_CONNS + 2) {
					atomic_fetch_add(&s->open, 1);
					if (s->greeting)
						send(fd, s->greeting, strlen(s->greeting), MSG_NOSIGNAL);
					pf[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
				} else {
					close(fd);
				}
			}
		}
		for (size_t i = 2; i < n; i++) {
			if (!pf[i].revents)
				continue;
			ssize_t r = recv(pf[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r > 0) {
				atomic_fetch_add(&s->bytes, (unsigned long long)r);
				if (s->reset_after_first) {
					struct linger lg = { 1, 0 };
					setsockopt(pf[i].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
					r = 0;
				} else {
					/* echo, blocking: the client reads what it sent */
					size_t off = 0;
					while (off < (size_t)r) {
						ssize_t w = send(pf[i].fd, buf + off, (size_t)r - off,
								 MSG_NOSIGNAL);
						if (w <= 0)
							break;
						off += (size_t)w;
					}
					continue;
				}
			}
			close(pf[i].fd);
			atomic_fetch_sub(&s->open, 1);
			pf[i] = pf[--n];
			i--;
		}
	}
	for (size_t i = 2; i < n; i++)
		close(pf[i].fd);
	free(pf);
	return NULL;
}

static struct lab_server lab_servers[LAB_MAX_SERVERS];
static size_t lab_n_servers;

static inline struct lab_server *lab_server_start(const char *ip, uint16_t port, const char *greeting)
{
	struct lab_server *s = &lab_servers[lab_n_servers++];
	memset(s, 0, sizeof(*s));
	snprintf(s->ip, sizeof(s->ip), "%s", ip);
	s->port = port;
	s->greeting = greeting;
	s->lfd = lab_listen(ip, port);
	if (s->lfd < 0 || pipe2(s->stop, O_CLOEXEC) < 0)
		return NULL;
	pthread_create(&s->th, NULL, lab_server_run, s);
	return s;
}

static inline void lab_servers_stop(void)
{
	for (size_t i = 0; i < lab_n_servers; i++) {
		struct lab_server *s = &lab_servers[i];
		(void)!write(s->stop[1], "x", 1);
		pthread_join(s->th, NULL);
		close(s->lfd);
		close(s->stop[0]);
		close(s->stop[1]);
	}
	lab_n_servers = 0;
}

/* ---- the fake DNS upstream (in H, UDP 127.0.0.1:5353) ---- */

struct lab_dns_entry {
	const char *name;
	const char *addrs[4]; /* A and AAAA together, NULL-terminated */
};

static const struct lab_dns_entry *lab_dns_table;
static char lab_dns_log[64][256];
static atomic_uint lab_dns_n;
static int lab_dns_fd = -1;
static pthread_t lab_dns_th;
static int lab_dns_stop[2];

static inline void *lab_dns_run(void *arg)
{
	(void)arg;
	uint8_t in[512], out[1024];
	struct pollfd pf[2] = { { lab_dns_fd, POLLIN, 0 }, { lab_dns_stop[0], POLLIN, 0 } };
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents)
			return NULL;
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		ssize_t n = recvfrom(lab_dns_fd, in, sizeof(in), 0, (struct sockaddr *)&peer, &pl);
		if (n < 17)
			continue;
		char name[256];
		size_t nl = 0, off = 12;
		while (off < (size_t)n && in[off] && nl < 250) {
			size_t l = in[off++];
			if (nl)
				name[nl++] = '.';
			memcpy(name + nl, in + off, l);
			nl += l;
			off += l;
		}
		name[nl] = '\0';
		off++;
		unsigned qtype = (unsigned)in[off] << 8 | in[off + 1];
		off += 4;
		unsigned k = atomic_fetch_add(&lab_dns_n, 1);
		if (k < 64)
			snprintf(lab_dns_log[k], sizeof(lab_dns_log[k]), "%s", name);
		memcpy(out, in, off);
		out[2] = 0x81;
		out[3] = 0x80;
		out[10] = out[11] = 0; /* no additional (drop the OPT) */
		size_t o = off, an = 0;
		const struct lab_dns_entry *e = NULL;
		for (size_t i = 0; lab_dns_table && lab_dns_table[i].name; i++)
			if (strcasecmp(lab_dns_table[i].name, name) == 0)
				e = &lab_dns_table[i];
		if (!e)
			out[3] = 0x83; /* NXDOMAIN */
		for (size_t i = 0; e && e->addrs[i]; i++) {
			bool v6 = strchr(e->addrs[i], ':') != NULL;
			if ((qtype == 28) != v6)
				continue;
			out[o++] = 0xc0;
			out[o++] = 12;
			out[o++] = 0;
			out[o++] = (uint8_t)qtype;
			out[o++] = 0;
			out[o++] = 1;
			out[o++] = 0;
			out[o++] = 0;
			out[o++] = 0;
			out[o++] = 60;
			out[o++] = 0;
			out[o++] = v6 ? 16 : 4;
			inet_pton(v6 ? AF_INET6 : AF_INET, e->addrs[i], out + o);
			o += v6 ? 16 : 4;
			an++;
		}
		out[6] = 0;
		out[7] = (uint8_t)an;
		sendto(lab_dns_fd, out, o, 0, (struct sockaddr *)&peer, pl);
	}
}

/* How many questions (A and AAAA alike) the lab's resolver got for name. */
static inline unsigned lab_dns_count(const char *name)
{
	unsigned n = atomic_load(&lab_dns_n), c = 0;
	for (unsigned i = 0; i < n && i < 64; i++)
		c += strcasecmp(lab_dns_log[i], name) == 0;
	return c;
}

static inline bool lab_dns_asked(const char *name)
{
	unsigned n = atomic_load(&lab_dns_n);
	for (unsigned i = 0; i < n && i < 64; i++)
		if (strcasecmp(lab_dns_log[i], name) == 0)
			return true;
	return false;
}

/* ---- the lab ---- */

struct lab {
	int ns_host, ns_sandbox;
	struct event_base *base;
	struct dnsd_namemap *map;
	struct dnsd_upstream *up;
	struct policy_net_rule rules[16];
	size_t n_rules;
	struct proxy *proxy;
	struct decision_log *log;
	FILE *audit;
	char audit_path[64], err_path[64];
	pthread_t loop_th;
	struct event *ev_stop;
	int stop_fd[2];
	int fds_before;
};

static inline int lab_count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own */
}

static inline void lab_rule(struct lab *l, const char *text, enum policy_net_action act,
		     enum policy_net_scope scope)
{
	enum policy_net_rule_status st =
		policy_net_rule_parse(text, strlen(text), act, scope, &l->rules[l->n_rules]);
	if (st != POLICY_NET_RULE_OK)
		dprintf(lab_err, "rule %s: %s\n", text, policy_net_rule_reason(st));
	else
		l->n_rules++;
}

static inline int lab_ns_setup(void)
{
	int r = sandbox_netns_lo_up();
	if (r == 0)
		r = sandbox_netns_anyip();
	return r;
}

static inline void lab_on_crash(int sig)
{
	void *bt[64];
	int n = backtrace(bt, 64);
	dprintf(lab_err, "lab child: signal %d\n", sig);
	backtrace_symbols_fd(bt, n, lab_err);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Step 1: namespaces (the child is now in H). 77 when not possible. */
static inline int lab_enter(struct lab *l)
{
	memset(l, 0, sizeof(*l));
	signal(SIGPIPE, SIG_IGN);
	lab_err = dup(2);
	signal(SIGSEGV, lab_on_crash);
	signal(SIGABRT, lab_on_crash);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return 77;
	if (lab_ns_setup() < 0)
		return 77;
	l->ns_host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	l->map = dnsd_namemap_create(0);
	return 0;
}

static inline void *lab_loop(void *arg)
{
	struct lab *l = arg;
	/* the supervisor's side: dials and DNS from the host network */
	if (setns(l->ns_host, CLONE_NEWNET) < 0)
		dprintf(lab_err, "setns host: %s\n", strerror(errno));
	event_base_dispatch(l->base);
	return NULL;
}

static inline void lab_on_stop(evutil_socket_t fd, short what, void *arg)
{
	struct lab *l = arg;
	(void)fd;
	(void)what;
	event_base_loopbreak(l->base);
}

struct lab_opts {
	struct proxy_limits limits;
	bool no_http, no_socks;
	const uint16_t *ports; /* transparent ports, 0-terminated */
	decision_owner_fn owner_fn; /* the supervisor's owner lookup, or NULL */
	void *owner_arg;
};

/* Step 2 (servers and DNS table set up in H): the sandbox netns, the
 * listeners there, the proxy, and its loop thread.  The main thread stays
 * in S as the program would. */
static inline int lab_start(struct lab *l, const struct lab_opts *o)
{
	static const uint16_t default_ports[] = { 443, 80, 22, 0 };
	const uint16_t *ports = o && o->ports ? o->ports : default_ports;

	/* the fake DNS upstream in H */
	lab_dns_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss;
	socklen_t sl = lab_sa("127.0.0.1", 5353, &ss);
	if (bind(lab_dns_fd, (struct sockaddr *)&ss, sl) < 0 || pipe2(lab_dns_stop, O_CLOEXEC) < 0)
		return 2;
	atomic_store(&lab_dns_n, 0);
	pthread_create(&lab_dns_th, NULL, lab_dns_run, NULL);

	l->fds_before = lab_count_fds();
	snprintf(l->audit_path, sizeof(l->audit_path), "/tmp/porta-lab-audit.%d", getpid());
	snprintf(l->err_path, sizeof(l->err_path), "/tmp/porta-lab-err.%d", getpid());
	l->audit = fopen(l->audit_path, "w+e");
	int ef = open(l->err_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	dup2(ef, 2);
	close(ef);

	l->base = event_base_new();
	struct dnsd_upstream_config uc = { .timeout_ms = 500, .tries = 1 };
	uc.server.port = 5353;
	policy_addr_parse("127.0.0.1", 9, &uc.server.addr);
	if (dnsd_upstream_create(l->base, &uc, &l->up) < 0)
		return 2;

	if (unshare(CLONE_NEWNET) < 0 || lab_ns_setup() < 0)
		return 2;
	l->ns_sandbox = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	struct proxy_listener lst[16];
	size_t n = 0;
	for (size_t i = 0; ports[i]; i++) {
		lst[n].fd = lab_listen("::", ports[i]);
		lst[n].port = ports[i];
		if (lst[n++].fd < 0)
			return 2;
	}
	struct decision_log_config lc = { .audit = l->audit };
	if (decision_log_create(&lc, &l->log) < 0)
		return 2;
	struct proxy_config cfg = {
		.base = l->base,
		.rules = l->rules,
		.n_rules = l->n_rules,
		.map = l->map,
		.upstream = l->up,
		.transparent = lst,
		.n_transparent = n,
		.http_fd = o && o->no_http ? -1 : lab_listen("127.0.0.1", 3128),
		.socks_fd = o && o->no_socks ? -1 : lab_listen("127.0.0.1", 1080),
		.log = l->log,
	};
	if (o) {
		cfg.limits = o->limits;
		cfg.owner_fn = o->owner_fn;
		cfg.owner_arg = o->owner_arg;
	}
	if (proxy_create(&cfg, &l->proxy) < 0)
		return 2;
	if (pipe2(l->stop_fd, O_CLOEXEC) < 0)
		return 2;
	l->ev_stop = event_new(l->base, l->stop_fd[0], EV_READ, lab_on_stop, l);
	event_add(l->ev_stop, NULL);
	pthread_create(&l->loop_th, NULL, lab_loop, l);
	return 0;
}

/* Stops the loop, destroys the proxy and everything, checks for leaked
 * fds.  Returns the child's exit status. */
static inline int lab_finish(struct lab *l)
{
	(void)!write(l->stop_fd[1], "x", 1);
	pthread_join(l->loop_th, NULL);
	proxy_destroy(l->proxy);
	decision_log_destroy(l->log);
	dnsd_upstream_destroy(l->up);
	dnsd_namemap_destroy(l->map);
	event_free(l->ev_stop);
	event_base_free(l->base);
	close(l->stop_fd[0]);
	close(l->stop_fd[1]);
	close(l->ns_sandbox);
	fclose(l->audit);
	/* the servers close their side once the proxy's upstream sockets are gone */
	int now = lab_count_fds();
	for (int i = 0; i < 200 && now != l->fds_before; i++) {
		lab_sleep_ms(10);
		now = lab_count_fds();
	}
	LAB_CHECK(now == l->fds_before, "fds before %d, after %d", l->fds_before, now);
	(void)!write(lab_dns_stop[1], "x", 1);
	pthread_join(lab_dns_th, NULL);
	close(lab_dns_fd);
	close(lab_dns_stop[0]);
	close(lab_dns_stop[1]);
	lab_servers_stop();
	unlink(l->audit_path);
	unlink(l->err_path);
	/* the child leaves with _exit(): LeakSanitizer's exit-time check would
	 * not run, so ask for it here (it reports on the real stderr) */
	dup2(lab_err, 2);
	LAB_LEAK_CHECK();
	return lab_failures > 100 ? 100 : lab_failures;
}

/* ---- reading back what the proxy wrote ---- */

/* Every audit line parsed; each must be an object with docs/design.md's keys. */
static inline size_t lab_audit(struct lab *l, json_t **out, size_t cap)
{
	fflush(l->audit);
	FILE *f = fopen(l->audit_path, "re");
	char line[8192];
	size_t n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		/* the proxy thread may be writing this record now: a line without
		 * its newline is not finished, and neither is the file */
		if (!strchr(line, '\n'))
			break;
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		LAB_CHECK(o && json_is_object(o), "audit line is not JSON: %s", line);
		if (!o)
			continue;
		static const char *const keys[] = { "ts", "seq", "kind", "dst", "host", "sni",
						    "rule", "verdict", "reason", "hint" };
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			LAB_CHECK(json_object_get(o, keys[i]), "no key %s in %s", keys[i], line);
		const char *ts = json_string_value(json_object_get(o, "ts"));
		LAB_CHECK(ts && strlen(ts) == 24 && ts[10] == 'T' && ts[19] == '.' && ts[23] == 'Z',
			  "ts %s", ts ? ts : "(null)");
		if (n < cap)
			out[n++] = o;
		else
			json_decref(o);
	}
	if (f)
		fclose(f);
	return n;
}

/* The first audit record whose reason is `reason` (and host, when given). */
static inline json_t *lab_find(json_t **recs, size_t n, const char *reason, const char *host)
{
	for (size_t i = 0; i < n; i++) {
		const char *r = json_string_value(json_object_get(recs[i], "reason"));
		const char *h = json_string_value(json_object_get(recs[i], "host"));
		if (r && strcmp(r, reason) == 0 && (!host || (h && strcmp(h, host) == 0)))
			return recs[i];
	}
	return NULL;
}

static inline const char *lab_str(json_t *o, const char *key)
{
	const char *s = o ? json_string_value(json_object_get(o, key)) : NULL;
	return s ? s : "(null)";
}

static inline void lab_free_recs(json_t **recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(recs[i]);
}

/* What the proxy printed on stderr so far. */
static inline size_t lab_stderr(struct lab *l, char *buf, size_t cap)
{
	int fd = open(l->err_path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, cap - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

static inline size_t lab_count_substr(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Runs scenario in a forked child; the criterion side. */
#define LAB_RUN(fn)                                                                   \
	do {                                                                          \
		pid_t pid_ = fork();                                                  \
		cr_assert_geq(pid_, 0);                                               \
		if (pid_ == 0)                                                        \
			_exit(fn());                                                  \
		int st_;                                                              \
		cr_assert_eq(waitpid(pid_, &st_, 0), pid_);                           \
		cr_assert(WIFEXITED(st_), "the lab child died (signal %d)",           \
			  WIFSIGNALED(st_) ? WTERMSIG(st_) : 0);                      \
		if (WEXITSTATUS(st_) == 77)                                           \
			cr_skip_test("no unprivileged user and network namespace here"); \
		cr_assert_eq(WEXITSTATUS(st_), 0, "%d check(s) failed (see above)",   \
			     WEXITSTATUS(st_));                                       \
	} while (0)

#endif /* PORTA_TESTS_UNIT_NETPROXY_PROXY_LAB_H */
