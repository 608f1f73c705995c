/* tests/unit/dns/test_responder.c: the DNS responder for real, over loopback
 * only: its sockets on 127.0.0.1 / ::1, a fake upstream resolver on
 * 127.0.0.1 in the same event loop that logs every question it receives,
 * and clients that ask over UDP and TCP.  Escape corpus rows 27 (refused
 * names never reach upstream) and 28 (default-denied addresses are never
 * handed out, TTL 0 rebinding included). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decision/log.h"
#include "dns/namemap.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "wire/dns.h"
#include "sandbox/netns.h"

#define T_A DNSD_TYPE_A
#define T_AAAA DNSD_TYPE_AAAA
#define T_TXT 16
#define T_MX 15
#define T_ANY DNSD_TYPE_ANY

/* --- the fake upstream ----------------------------------------------------- */

struct fake_answer {
	bool silent;          /* never answer */
	int rcode;
	const char *addrs[8]; /* A or AAAA records, NULL-terminated */
	uint32_t ttl;
	const char *cname;    /* answer through a CNAME to this name first */
};

struct logged {
	char name[256]; /* as asked, dotted */
	uint16_t qtype;
};

struct fixture;
typedef void (*script_fn)(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			  struct fake_answer *out);

struct got_event {
	enum dnsd_transport transport;
	char qname[256];
	char name[256];
	bool has_name;
	uint16_t qtype;
	enum policy_verdict verdict;
	enum policy_reason reason;
	char rule[300];
	bool has_rule;
	int rcode;
	size_t n_addrs, n_dropped;
	uint32_t ttl;
	char server[POLICY_ADDR_STRLEN];
	bool server_known;
	int pid;
	char comm[16];
};

struct fixture {
	struct event_base *base;
	struct dnsd_responder *r;
	struct decision_log *dlog; /* quiet: the audit lines only, into audit_buf */
	FILE *audit;
	char audit_buf[1 << 16];
	struct dnsd_namemap *map;
	struct policy_net_rule rules[8];
	size_t n_rules;
	int family; /* of the responder's sockets */
	struct sockaddr_storage udp_addr, tcp_addr;
	socklen_t addr_len;
	int up_fd;
	uint16_t up_port;
	struct event *up_ev;
	struct logged log[128];
	size_t n_log;
	script_fn script;
	struct dnsd_upstream *shared; /* the channel given as shared_upstream, or NULL */
	struct got_event events[128];
	size_t n_events;
};

static struct policy_addr A(const char *s)
{
	struct policy_addr a;
	cr_assert_eq(policy_addr_parse(s, strlen(s), &a), POLICY_ADDR_OK, "%s", s);
	return a;
}

static size_t put_name(uint8_t *p, const char *name)
{
	size_t o = 0;
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t n = dot ? (size_t)(dot - name) : strlen(name);
		p[o++] = (uint8_t)n;
		/* a byte loop: gcc -O3 misjudges memcpy's bounds here */
		for (size_t k = 0; k < n; k++)
			p[o + k] = (uint8_t)name[k];
		o += n;
		name += n;
		if (*name == '.')
			name++;
	}
	p[o++] = 0;
	return o;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void on_upstream_query(evutil_socket_t fd, short what, void *arg)
{
	struct fixture *f = arg;
	uint8_t in[2048], out[2048];
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	(void)what;

	ssize_t n = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&peer, &pl);
	if (n < 12)
		return;
	/* the question: uncompressed labels right after the header */
	size_t off = 12;
	char name[256];
	size_t nl = 0;
	while (off < (size_t)n && in[off] != 0) {
		size_t l = in[off];
		if (nl)
			name[nl++] = '.';
		memcpy(name + nl, in + off + 1, l);
		nl += l;
		off += 1 + l;
	}
	name[nl] = '\0';
	off++;
	uint16_t qtype = (uint16_t)get16(in + off);
	size_t qend = off + 4;
	unsigned nth = 0;
	for (size_t i = 0; i < f->n_log; i++)
		nth += strcmp(f->log[i].name, name) == 0 && f->log[i].qtype == qtype;
	cr_assert_lt(f->n_log, 128);
	snprintf(f->log[f->n_log].name, sizeof(f->log[0].name), "%s", name);
	f->log[f->n_log++].qtype = qtype;

	struct fake_answer a = { .ttl = 300 };
	if (f->script)
		f->script(f, name, qtype, nth, &a);
	if (a.silent)
		return;
	memcpy(out, in, qend);
	put16(out + 2, 0x8180 | (unsigned)a.rcode); /* QR RD RA */
	put16(out + 4, 1);
	put16(out + 8, 0);
	put16(out + 10, 0);
	size_t o = qend, an = 0;
	if (a.cname) {
		put16(out + o, 0xc00c);
		put16(out + o + 2, 5);
		put16(out + o + 4, 1);
		put16(out + o + 6, 0);
		put16(out + o + 8, a.ttl);
		size_t l = put_name(out + o + 12, a.cname);
		put16(out + o + 10, (unsigned)l);
		o += 12 + l;
		an++;
	}
	size_t owner = a.cname ? qend + 12 : 12;
	for (int i = 0; a.addrs[i]; i++) {
		struct policy_addr ad = A(a.addrs[i]);
		size_t alen = ad.family == POLICY_ADDR_V4 ? 4 : 16;
		put16(out + o, 0xc000 | (unsigned)owner);
		put16(out + o + 2, ad.family == POLICY_ADDR_V4 ? T_A : T_AAAA);
		put16(out + o + 4, 1);
		put16(out + o + 6, a.ttl >> 16);
		put16(out + o + 8, a.ttl & 0xffff);
		put16(out + o + 10, (unsigned)alen);
		memcpy(out + o + 12, ad.b, alen);
		o += 12 + alen;
		an++;
	}
	put16(out + 6, (unsigned)an);
	sendto(fd, out, o, 0, (struct sockaddr *)&peer, pl);
}

/* Allowed names answer with documentation (public) addresses by default. */
static void script_default(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			   struct fake_answer *out)
{
	(void)f;
	(void)name;
	(void)nth;
	if (qtype == T_A)
		out->addrs[0] = "198.51.100.7";
	else
		out->addrs[0] = "2001:db8::7";
}

static void on_event(const struct dnsd_event *ev, void *arg)
{
	struct fixture *f = arg;
	cr_assert_lt(f->n_events, 128);
	struct got_event *g = &f->events[f->n_events++];
	memset(g, 0, sizeof(*g));
	g->transport = ev->transport;
	cr_assert_leq(ev->qname_len, 255);
	memcpy(g->qname, ev->qname, ev->qname_len);
	g->has_name = ev->name != NULL;
	if (ev->name)
		snprintf(g->name, sizeof(g->name), "%s", ev->name);
	g->qtype = ev->qtype;
	g->verdict = ev->verdict;
	g->reason = ev->reason;
	cr_assert_eq(ev->verdict, policy_reason_verdict(ev->reason));
	g->has_rule = ev->rule != NULL;
	if (ev->rule)
		snprintf(g->rule, sizeof(g->rule), "%s", ev->rule);
	g->rcode = ev->rcode;
	g->n_addrs = ev->n_addrs;
	g->n_dropped = ev->n_dropped;
	g->ttl = ev->ttl;
	g->server_known = ev->server_known;
	g->pid = ev->pid;
	if (ev->comm)
		snprintf(g->comm, sizeof(g->comm), "%s", ev->comm);
	policy_addr_format(&ev->server, g->server);
	for (size_t i = 0; i < ev->n_addrs; i++)
		cr_assert(!policy_addr_default_denied(&ev->addrs[i]));
}

static const struct got_event *last_event(struct fixture *f)
{
	cr_assert_gt(f->n_events, 0);
	return &f->events[f->n_events - 1];
}

static size_t upstream_count(struct fixture *f, const char *needle)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_log; i++)
		n += strstr(f->log[i].name, needle) != NULL;
	return n;
}

static int bound_socket(int family, int type, const char *addr, struct sockaddr_storage *ss,
			socklen_t *len)
{
	int fd = socket(family, type | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, addr, &s4->sin_addr), 1);
		*len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		int off = 0;
		s6->sin6_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, addr, &s6->sin6_addr), 1);
		/* a mapped address needs a dual-stack socket */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		*len = sizeof(*s6);
	}
	cr_assert_eq(bind(fd, (struct sockaddr *)ss, *len), 0, "bind %s: %s", addr, strerror(errno));
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)ss, len), 0);
	return fd;
}

static const char *const default_rules[] = { "api.allowed.test", "*.wild.allowed.test:22",
					     "slow.allowed.test", "rebind.allowed.test",
					     "bad.allowed.test", NULL };

/* The owner lookup the responder is given (the supervisor's is
 * supervisor/owner.h); NULL in most tests.  Each test is a process. */
static decision_owner_fn fixture_owner_fn;

/* Set: the responder asks through a channel the fixture made
 * (shared_upstream), as the supervisor's shares the proxy's. */
static bool fixture_shared_upstream;

static void start_at(struct fixture *f, int family, const char *addr,
		     const char *const *rules, const struct dnsd_limits *lim)
{
	struct sockaddr_storage up;
	socklen_t up_len;

	memset(f, 0, sizeof(*f));
	signal(SIGPIPE, SIG_IGN);
	f->family = family;
	f->base = event_base_new();
	cr_assert_not_null(f->base);
	f->map = dnsd_namemap_create(64);
	cr_assert_not_null(f->map);
	f->audit = fmemopen(f->audit_buf, sizeof(f->audit_buf), "w");
	struct decision_log_config lc = { .audit = f->audit, .quiet = true };
	cr_assert_eq(decision_log_create(&lc, &f->dlog), 0);
	for (size_t i = 0; rules[i]; i++) {
		cr_assert_eq(policy_net_rule_parse(rules[i], strlen(rules[i]), POLICY_NET_ALLOW,
						   POLICY_NET_SCOPE_ALL, &f->rules[f->n_rules]),
			     POLICY_NET_RULE_OK, "%s", rules[i]);
		f->n_rules++;
	}
	f->up_fd = bound_socket(AF_INET, SOCK_DGRAM, "127.0.0.1", &up, &up_len);
	f->up_port = ntohs(((struct sockaddr_in *)&up)->sin_port);
	f->up_ev = event_new(f->base, f->up_fd, EV_READ | EV_PERSIST, on_upstream_query, f);
	event_add(f->up_ev, NULL);
	f->script = script_default;

	int udp = bound_socket(family, SOCK_DGRAM, addr, &f->udp_addr, &f->addr_len);
	int tcp = bound_socket(family, SOCK_STREAM, addr, &f->tcp_addr, &f->addr_len);
	struct dnsd_responder_config cfg = {
		.base = f->base,
		.udp_fd = udp,
		.tcp_fd = tcp,
		.rules = f->rules,
		.n_rules = f->n_rules,
		.upstream = { .addr = A("127.0.0.1"), .port = f->up_port },
		.map = f->map,
		.on_event = on_event,
		.event_arg = f,
		.log = f->dlog,
		.owner_fn = fixture_owner_fn,
		.owner_arg = f,
	};
	if (lim)
		cfg.limits = *lim;
	if (fixture_shared_upstream) {
		struct dnsd_upstream_config ucfg = { .server = cfg.upstream };
		cr_assert_eq(dnsd_upstream_create(f->base, &ucfg, &f->shared), 0);
		cfg.shared_upstream = f->shared;
	}
	cr_assert_eq(dnsd_responder_create(&cfg, &f->r), 0);
}

static void start(struct fixture *f, const struct dnsd_limits *lim)
{
	start_at(f, AF_INET, "127.0.0.1", default_rules, lim);
}

static void stop(struct fixture *f)
{
	dnsd_responder_destroy(f->r);
	dnsd_upstream_destroy(f->shared);
	event_free(f->up_ev);
	close(f->up_fd);
	dnsd_namemap_destroy(f->map);
	decision_log_destroy(f->dlog);
	fclose(f->audit);
	event_base_free(f->base);
}

/* --- clients ------------------------------------------------------------- */

static size_t build_query(uint8_t *q, uint16_t id, const char *name, uint16_t qtype, bool edns)
{
	memset(q, 0, 12);
	put16(q, id);
	put16(q + 2, 0x0100); /* RD */
	put16(q + 4, 1);
	size_t o = 12 + put_name(q + 12, name);
	put16(q + o, qtype);
	put16(q + o + 2, 1);
	o += 4;
	if (edns) {
		put16(q + 10, 1);
		q[o] = 0;
		put16(q + o + 1, DNSD_TYPE_OPT);
		put16(q + o + 3, 1232);
		memset(q + o + 5, 0, 6);
		o += 11;
	}
	return o;
}

struct wait {
	struct fixture *f;
	int fd;
	bool tcp;
	uint8_t buf[65536 + 2];
	size_t len;
	size_t want_frames; /* TCP: stop after this many complete frames */
	bool eof;
	bool timed_out;
	struct sockaddr_storage from;
	socklen_t from_len;
};

static size_t tcp_frames(const struct wait *w)
{
	size_t off = 0, n = 0;
	while (off + 2 <= w->len && off + 2 + get16(w->buf + off) <= w->len) {
		off += 2 + get16(w->buf + off);
		n++;
	}
	return n;
}

static void on_client(evutil_socket_t fd, short what, void *arg)
{
	struct wait *w = arg;
	(void)what;
	if (!w->tcp) {
		w->from_len = sizeof(w->from);
		ssize_t n = recvfrom(fd, w->buf, sizeof(w->buf), 0, (struct sockaddr *)&w->from,
				     &w->from_len);
		if (n >= 0) {
			w->len = (size_t)n;
			event_base_loopbreak(w->f->base);
		}
		return;
	}
	ssize_t n = read(fd, w->buf + w->len, sizeof(w->buf) - w->len);
	if (n <= 0) {
		w->eof = true;
		event_base_loopbreak(w->f->base);
		return;
	}
	w->len += (size_t)n;
	if (tcp_frames(w) >= w->want_frames)
		event_base_loopbreak(w->f->base);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct wait *w = arg;
	(void)fd;
	(void)what;
	w->timed_out = true;
	event_base_loopbreak(w->f->base);
}

/* Runs the loop until the client fd has what w wants, or timeout_ms. */
static void run_until(struct wait *w, unsigned timeout_ms)
{
	struct event *ev = event_new(w->f->base, w->fd, EV_READ | EV_PERSIST, on_client, w);
	struct event *dl = evtimer_new(w->f->base, on_deadline, w);
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	event_add(ev, NULL);
	event_add(dl, &tv);
	event_base_dispatch(w->f->base);
	event_free(ev);
	event_free(dl);
}

/* Lets the loop run for ms (timers, upstream answers nobody waits for). */
static void run_for(struct fixture *f, unsigned ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	event_base_loopexit(f->base, &tv);
	event_base_dispatch(f->base);
}

static int udp_client(struct fixture *f)
{
	int fd = socket(f->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	cr_assert_geq(fd, 0);
	return fd;
}

/* Sends msg over UDP and waits for one datagram back; its length, or -1. */
static ssize_t udp_exchange(struct fixture *f, int fd, const uint8_t *msg, size_t len,
			    struct wait *w, unsigned timeout_ms)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->fd = fd;
	cr_assert_eq(sendto(fd, msg, len, 0, (struct sockaddr *)&f->udp_addr, f->addr_len),
		     (ssize_t)len);
	run_until(w, timeout_ms);
	return w->timed_out ? -1 : (ssize_t)w->len;
}

struct answer {
	int rcode;       /* -1: no answer */
	uint16_t id;
	size_t n;
	char addrs[16][POLICY_ADDR_STRLEN];
	uint32_t ttl;
	bool tc;
	uint16_t qtype;
	uint8_t qname[DNSD_NAME_WIRE_MAX];
	size_t qname_len;
};

static void read_answer(const uint8_t *msg, size_t len, struct answer *a)
{
	struct dnsd_response resp;
	struct dnsd_addr_rr rrs[16];

	memset(a, 0, sizeof(*a));
	cr_assert_geq(len, 12);
	a->id = (uint16_t)get16(msg);
	a->rcode = msg[3] & 0x0f;
	cr_assert(msg[2] & 0x80, "QR set");
	if (get16(msg + 4) == 0)
		return; /* header only (FORMERR, NOTIMP) */
	cr_assert_eq(dnsd_response_parse(msg, len, &resp, rrs, 16), DNSD_OK);
	a->n = resp.n_addrs;
	a->tc = resp.tc;
	a->qtype = resp.qtype;
	memcpy(a->qname, resp.qname, resp.qname_len);
	a->qname_len = resp.qname_len;
	for (size_t i = 0; i < resp.n_addrs; i++) {
		policy_addr_format(&rrs[i].addr, a->addrs[i]);
		a->ttl = rrs[i].ttl;
	}
}

static struct answer ask_udp(struct fixture *f, const char *name, uint16_t qtype)
{
	uint8_t q[512];
	struct wait *w = malloc(sizeof(*w));
	struct answer a = { .rcode = -1 };
	int fd = udp_client(f);
	static uint16_t id = 0x1000;
	size_t len = build_query(q, ++id, name, qtype, true);

	if (udp_exchange(f, fd, q, len, w, 3000) >= 0) {
		read_answer(w->buf, w->len, &a);
		cr_expect_eq(a.id, id, "the reply answers this query");
	}
	close(fd);
	free(w);
	return a;
}

static int tcp_client(struct fixture *f)
{
	int fd = socket(f->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	/* the kernel completes the handshake from the listen queue: no loop needed */
	cr_assert_eq(connect(fd, (struct sockaddr *)&f->tcp_addr, f->addr_len), 0);
	return fd;
}

static void tcp_send_query(int fd, uint16_t id, const char *name, uint16_t qtype)
{
	uint8_t q[514];
	size_t len = build_query(q + 2, id, name, qtype, false);
	put16(q, (unsigned)len);
	cr_assert_eq(write(fd, q, len + 2), (ssize_t)(len + 2));
}

/* Reads n frames (or EOF) from a TCP client; w holds them. */
static void tcp_wait(struct fixture *f, int fd, struct wait *w, size_t n, unsigned timeout_ms)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->fd = fd;
	w->tcp = true;
	w->want_frames = n;
	run_until(w, timeout_ms);
}

static void tcp_frame_answer(const struct wait *w, size_t k, struct answer *a)
{
	size_t off = 0;
	for (size_t i = 0; i < k; i++)
		off += 2 + get16(w->buf + off);
	read_answer(w->buf + off + 2, get16(w->buf + off), a);
}

static bool has_addr(const struct answer *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++) {
		if (strcmp(a->addrs[i], s) == 0)
			return true;
	}
	return false;
}

static size_t map_names(struct fixture *f, const char *addr, char first[POLICY_NAME_MAX + 1])
{
	struct dnsd_namemap_name out[4];
	struct policy_addr a = A(addr);
	size_t n = dnsd_namemap_lookup(f->map, &a, dnsd_clock_ms(), out, 4);
	if (n && first)
		memcpy(first, out[0].name, POLICY_NAME_MAX + 1);
	return n;
}

/* --- tests ---------------------------------------------------------------- */

Test(responder, destroy_null)
{
	dnsd_responder_destroy(NULL);
}

Test(responder, bad_config)
{
	struct event_base *base = event_base_new();
	struct dnsd_responder *r = (void *)1;
	struct dnsd_responder_config cfg = { .base = base, .udp_fd = -1, .tcp_fd = -1 };
	cr_expect_eq(dnsd_responder_create(&cfg, &r), -EINVAL);
	cr_expect_null(r);
	/* a TCP socket where UDP is expected: refused, and still the caller's */
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cfg.udp_fd = s;
	cr_expect_eq(dnsd_responder_create(&cfg, &r), -EINVAL);
	cr_expect_eq(fcntl(s, F_GETFD), FD_CLOEXEC, "not closed");
	close(s);
	event_base_free(base);
}

Test(responder, allowed_name_resolved_and_mapped)
{
	struct fixture f;
	char name[POLICY_NAME_MAX + 1];
	start(&f, NULL);

	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_assert_eq(a.n, 1);
	cr_expect_str_eq(a.addrs[0], "198.51.100.7");
	cr_expect_eq(a.ttl, 300);
	cr_assert_eq(f.n_log, 1);
	cr_expect_str_eq(f.log[0].name, "api.allowed.test");
	cr_expect_eq(f.log[0].qtype, T_A);
	const struct got_event *ev = last_event(&f);
	cr_expect_eq(ev->verdict, POLICY_VERDICT_ALLOW);
	cr_expect_eq(ev->reason, POLICY_REASON_ALLOW);
	cr_expect_str_eq(ev->rule, "api.allowed.test");
	cr_expect_str_eq(ev->name, "api.allowed.test");
	cr_expect_eq(ev->rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(ev->n_addrs, 1);
	cr_expect(ev->server_known);
	cr_expect_str_eq(ev->server, "127.0.0.1");
	cr_expect_eq(map_names(&f, "198.51.100.7", name), 1);
	cr_expect_str_eq(name, "api.allowed.test");

	a = ask_udp(&f, "api.allowed.test", T_AAAA);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_assert_eq(a.n, 1);
	cr_expect_str_eq(a.addrs[0], "2001:db8::7");
	cr_expect_eq(map_names(&f, "2001:db8::7", NULL), 1);
	cr_expect_eq(map_names(&f, "198.51.100.8", NULL), 0, "an address never handed out");
	stop(&f);
}

/* --- one upstream channel, two users ------------------------------------ */

struct up_done {
	unsigned calls;
	enum dnsd_upstream_result result;
	size_t len;
};

static void on_up_done(enum dnsd_upstream_result result, const uint8_t *msg, size_t len,
		       void *arg)
{
	struct up_done *d = arg;
	(void)msg;
	d->calls++;
	d->result = result;
	d->len = len;
}

/* The supervisor's responder asks through the proxy's channel
 * (supervisor/net.c): answers come back as with a channel of its own, and
 * the channel's other user goes on using it once the responder is gone. */
Test(responder, shared_upstream_answers_and_outlives_the_responder)
{
	struct fixture f;
	fixture_shared_upstream = true;
	start(&f, NULL);

	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_assert_eq(a.n, 1);
	cr_expect_str_eq(a.addrs[0], "198.51.100.7");
	cr_assert_eq(f.n_log, 1, "the fake upstream was asked once");
	cr_expect_eq(dnsd_upstream_in_flight(f.shared), 0, "the responder's query is its own");

	dnsd_responder_destroy(f.r);
	f.r = NULL;
	struct up_done d = { 0 };
	cr_assert_eq(dnsd_upstream_query(f.shared, "other.test", T_A, on_up_done, &d), 0);
	cr_expect_eq(dnsd_upstream_in_flight(f.shared), 1);
	for (int i = 0; i < 100 && d.calls == 0; i++)
		run_for(&f, 20);
	cr_assert_eq(d.calls, 1);
	cr_expect_eq(d.result, DNSD_UPSTREAM_ANSWER);
	cr_expect_gt(d.len, 12);
	cr_expect_eq(f.n_log, 2);
	stop(&f);
}

/* Destroying one handle cancels its queries, at once and only its: the
 * other handle's query in flight on the same channel is answered, and the
 * cancelled one's late answer reaches nobody. */
Test(responder, shared_upstream_destroy_cancels_only_its_own)
{
	struct fixture f;
	start(&f, NULL); /* only for the loop and the fake upstream */
	struct dnsd_upstream_config ucfg = {
		.server = { .addr = A("127.0.0.1"), .port = f.up_port },
	};
	struct dnsd_upstream *one, *two;
	cr_assert_eq(dnsd_upstream_create(f.base, &ucfg, &one), 0);
	cr_assert_eq(dnsd_upstream_share(one, &two), 0);

	struct up_done d1 = { 0 }, d2 = { 0 };
	cr_assert_eq(dnsd_upstream_query(one, "first.test", T_A, on_up_done, &d1), 0);
	cr_assert_eq(dnsd_upstream_query(two, "second.test", T_A, on_up_done, &d2), 0);
	cr_expect_eq(dnsd_upstream_in_flight(one), 1);
	cr_expect_eq(dnsd_upstream_in_flight(two), 1);

	/* the channel's creator goes first: the channel stays for two */
	dnsd_upstream_destroy(one);
	cr_expect_eq(d1.calls, 1, "cancelled before destroy returned");
	cr_expect_eq(d1.result, DNSD_UPSTREAM_CANCELLED);
	cr_expect_eq(d2.calls, 0);

	for (int i = 0; i < 100 && (d2.calls == 0 || f.n_log < 2); i++)
		run_for(&f, 20);
	cr_assert_eq(d2.calls, 1);
	cr_expect_eq(d2.result, DNSD_UPSTREAM_ANSWER);
	cr_expect_eq(f.n_log, 2, "both questions went out on the one channel");
	run_for(&f, 50); /* the first's answer, if still on its way */
	cr_expect_eq(d1.calls, 1, "the cancelled query's answer reached nobody");
	cr_expect_eq(dnsd_upstream_in_flight(two), 0);
	dnsd_upstream_destroy(two);
	stop(&f);
}

/* The name is decided and asked in canonical form; the answer echoes the
 * question as the client wrote it (resolvers compare it, RFC 5452 9). */
Test(responder, case_and_trailing_dot)
{
	struct fixture f;
	start(&f, NULL);
	struct answer a = ask_udp(&f, "API.Allowed.TEST", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.n, 1);
	cr_expect_eq(memcmp(a.qname, "\3API\7Allowed\4TEST", 18), 0);
	cr_assert_eq(f.n_log, 1);
	cr_expect_str_eq(f.log[0].name, "api.allowed.test");
	/* a suffix rule (port 22 is still a port: the name resolves) */
	a = ask_udp(&f, "git.wild.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_str_eq(last_event(&f)->rule, "*.wild.allowed.test:22");
	stop(&f);
}

/* Escape corpus row 27: <data>.evil.test over UDP, TCP, TXT, ANY: NXDOMAIN
 * here, and the upstream never sees a single question about it. */
Test(responder, refused_names_never_reach_upstream)
{
	struct fixture f;
	start(&f, NULL);
	static const char *const names[] = {
		"c2VjcmV0LWRhdGE.evil.test", "MUST-NOT-LEAK.evil.test", "evilallowed.test",
		"api.allowed.test.evil.test", "allowed.test", "wild.allowed.test.evil.test",
		"localhost", "x.localhost", "metadata.google.internal", NULL,
	};
	static const uint16_t types[] = { T_A, T_AAAA, T_TXT, T_ANY, T_MX };

	for (size_t i = 0; names[i]; i++) {
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
			struct answer a = ask_udp(&f, names[i], types[t]);
			cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN, "%s/%u", names[i], types[t]);
			cr_expect_eq(a.n, 0);
			const struct got_event *ev = last_event(&f);
			cr_expect_eq(ev->verdict, POLICY_VERDICT_DENY);
			cr_expect_eq(ev->qtype, types[t]);
		}
	}
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_NO_RULE);
	/* over TCP, several on one connection */
	int fd = tcp_client(&f);
	tcp_send_query(fd, 1, "ZGF0YQ.evil.test", T_A);
	tcp_send_query(fd, 2, "ZGF0YQ.evil.test", T_TXT);
	tcp_send_query(fd, 3, "ZGF0YQ.evil.test", T_ANY);
	struct wait *w = malloc(sizeof(*w));
	tcp_wait(&f, fd, w, 3, 3000);
	cr_assert_eq(tcp_frames(w), 3);
	for (size_t k = 0; k < 3; k++) {
		struct answer a;
		tcp_frame_answer(w, k, &a);
		cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	}
	free(w);
	close(fd);
	cr_expect_eq(f.n_log, 0, "upstream saw %zu questions", f.n_log);
	cr_expect_eq(upstream_count(&f, "evil"), 0);
	stop(&f);
}

/* Every query is recorded in the decision log.  A name refused at DNS was
 * asked without a port: the hint and the summary name it without one (they
 * once said NAME:443, whatever the program went on to fetch). */
Test(responder, records_a_refused_name_without_a_port)
{
	struct fixture f;
	start(&f, NULL);
	struct answer a = ask_udp(&f, "evil.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	a = ask_udp(&f, "api.allowed.test", T_TXT);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	fflush(f.audit);
	char dst[64];
	snprintf(dst, sizeof(dst), "\"dst\":\"127.0.0.1:%u\"",
		 ntohs(((struct sockaddr_in *)&f.udp_addr)->sin_port));
	cr_expect(strstr(f.audit_buf, dst), "%s", f.audit_buf);
	cr_expect(strstr(f.audit_buf, "\"kind\":\"dns\","), "%s", f.audit_buf);
	cr_expect(strstr(f.audit_buf, "\"host\":\"evil.test\",\"sni\":null,\"rule\":null,"
				      "\"verdict\":\"deny\",\"reason\":\"no-rule\","
				      "\"hint\":\"--allow-net evil.test\"}\n"),
		  "%s", f.audit_buf);
	cr_expect(strstr(f.audit_buf, "\"host\":\"api.allowed.test\",\"sni\":null,"
				      "\"rule\":\"api.allowed.test\",\"verdict\":\"allow\","
				      "\"reason\":\"not-address-type\",\"hint\":null}\n"),
		  "%s", f.audit_buf);
	const char *d, *words, *hint;
	cr_assert(decision_log_refused_at(f.dlog, 0, &d, &words, &hint));
	cr_expect_str_eq(d, "evil.test");
	cr_expect_str_eq(words, "no rule");
	cr_expect_str_eq(hint, "--allow-net evil.test");
	cr_expect_not(decision_log_refused_at(f.dlog, 1, &d, &words, &hint));
	stop(&f);
}

/* A stand-in for the supervisor's owner lookup: what it was asked. */
static unsigned owner_calls;
static int owner_protos[8];
static uint16_t owner_peer_ports[8], owner_local_ports[8];
static char owner_locals[8][POLICY_ADDR_STRLEN];

static bool owner_stub(void *arg, int protocol, const struct sockaddr *peer, socklen_t peer_len,
		       const struct sockaddr *local, socklen_t local_len, struct decision_owner *out)
{
	struct policy_addr a;
	(void)arg;
	(void)peer_len;
	(void)local_len;
	cr_assert_lt(owner_calls, 8);
	unsigned i = owner_calls++;
	owner_protos[i] = protocol;
	owner_peer_ports[i] = ntohs(((const struct sockaddr_in *)peer)->sin_port);
	cr_assert_eq(local->sa_family, AF_INET);
	owner_local_ports[i] = ntohs(((const struct sockaddr_in *)local)->sin_port);
	memset(&a, 0, sizeof(a));
	a.family = POLICY_ADDR_V4;
	memcpy(a.b, &((const struct sockaddr_in *)local)->sin_addr, 4);
	policy_addr_format(&a, owner_locals[i]);
	out->pid = 31;
	snprintf(out->comm, sizeof(out->comm), "asker");
	return true;
}

static uint16_t local_port_of(int fd)
{
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&me, &ml), 0);
	return ntohs(me.sin_port);
}

/* With an owner_fn, each UDP query asks it once, about the client's socket
 * and the address the query went to; a TCP connection once, however many
 * queries it carries; every event and record carries what it answered. */
Test(responder, owner_asked_once_per_query_or_connection)
{
	struct fixture f;
	uint8_t q[512];
	struct wait *w = malloc(sizeof(*w));

	fixture_owner_fn = owner_stub;
	start(&f, NULL);
	uint16_t dns_port = ntohs(((struct sockaddr_in *)&f.udp_addr)->sin_port);
	int fd = udp_client(&f);
	size_t len = build_query(q, 7, "evil.test", T_A, false);
	cr_assert_geq(udp_exchange(&f, fd, q, len, w, 3000), 0);
	uint16_t udp_port = local_port_of(fd);
	close(fd);
	cr_assert_eq(owner_calls, 1);
	cr_expect_eq(owner_protos[0], IPPROTO_UDP);
	cr_expect_eq(owner_peer_ports[0], udp_port);
	cr_expect_eq(owner_local_ports[0], dns_port);
	cr_expect_str_eq(owner_locals[0], "127.0.0.1");

	fd = tcp_client(&f);
	uint16_t tcp_port = local_port_of(fd);
	tcp_send_query(fd, 8, "evil.test", T_A);
	tcp_send_query(fd, 9, "api.allowed.test", T_TXT);
	tcp_wait(&f, fd, w, 2, 3000);
	close(fd);
	free(w);
	cr_assert_eq(owner_calls, 2, "asked %u times", owner_calls);
	cr_expect_eq(owner_protos[1], IPPROTO_TCP);
	cr_expect_eq(owner_peer_ports[1], tcp_port);
	cr_expect_eq(owner_local_ports[1], ntohs(((struct sockaddr_in *)&f.tcp_addr)->sin_port));

	cr_assert_eq(f.n_events, 3);
	for (size_t i = 0; i < f.n_events; i++) {
		cr_expect_eq(f.events[i].pid, 31);
		cr_expect_str_eq(f.events[i].comm, "asker");
	}
	fflush(f.audit);
	size_t recs = 0;
	for (const char *p = f.audit_buf; (p = strstr(p, "\"pid\":31,\"comm\":\"asker\"")); p++)
		recs++;
	cr_expect_eq(recs, 3, "%s", f.audit_buf);
	stop(&f);
}

/* Without one, no record names a process. */
Test(responder, no_owner_no_pid)
{
	struct fixture f;
	start(&f, NULL);
	struct answer a = ask_udp(&f, "evil.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	fflush(f.audit);
	cr_expect(strstr(f.audit_buf, "\"kind\":\"dns\""), "%s", f.audit_buf);
	cr_expect_not(strstr(f.audit_buf, "\"pid\""), "%s", f.audit_buf);
	cr_expect_eq(last_event(&f)->pid, 0);
	stop(&f);
}

Test(responder, reasons_for_refusal)
{
	struct fixture f;
	static const char *const rules[] = { "*", NULL };
	start_at(&f, AF_INET, "127.0.0.1", rules, NULL);
	struct answer a = ask_udp(&f, "localhost", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_RESERVED_NAME);
	a = ask_udp(&f, "1.2.3.4", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_IP_LITERAL_NAME);
	a = ask_udp(&f, "anything.example", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_str_eq(last_event(&f)->rule, "*");
	cr_expect_eq(f.n_log, 1);
	stop(&f);
}

Test(responder, other_types_empty_and_local)
{
	struct fixture f;
	start(&f, NULL);
	static const uint16_t types[] = { T_TXT, T_ANY, T_MX, 33 /* SRV */, 65 /* HTTPS */ };
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct answer a = ask_udp(&f, "api.allowed.test", types[t]);
		cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR, "type %u", types[t]);
		cr_expect_eq(a.n, 0);
		cr_expect_eq(last_event(&f)->verdict, POLICY_VERDICT_ALLOW);
		cr_expect_eq(last_event(&f)->reason, POLICY_REASON_NOT_ADDRESS_TYPE);
	}
	cr_expect_eq(f.n_log, 0);
	stop(&f);
}

static void script_bad(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
		       struct fake_answer *out)
{
	(void)f;
	(void)nth;
	if (strncmp(name, "mixed", 5) == 0)
		out->addrs[0] = "127.0.0.1", out->addrs[1] = "169.254.169.254",
		out->addrs[2] = "198.51.100.9", out->addrs[3] = "10.0.0.1";
	else if (qtype == T_A)
		out->addrs[0] = "127.0.0.1", out->addrs[1] = "169.254.169.254",
		out->addrs[2] = "10.1.2.3", out->addrs[3] = "100.64.0.1",
		out->addrs[4] = "192.168.1.1", out->addrs[5] = "0.0.0.0";
	else
		out->addrs[0] = "::ffff:10.0.0.1", out->addrs[1] = "::ffff:127.0.0.1",
		out->addrs[2] = "::1", out->addrs[3] = "fe80::1",
		out->addrs[4] = "64:ff9b::a9fe:a9fe", out->addrs[5] = "fd00:ec2::254",
		out->addrs[6] = "::ffff:169.254.169.254";
}

/* Escape corpus row 28: default-denied addresses are dropped; none left is
 * an empty NOERROR, and nothing of it reaches the map. */
Test(responder, denied_addresses_stripped)
{
	struct fixture f;
	static const char *const rules[] = { "*.allowed.test", NULL };
	start_at(&f, AF_INET, "127.0.0.1", rules, NULL);
	f.script = script_bad;

	struct answer a = ask_udp(&f, "bad.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.n, 0);
	cr_expect_eq(last_event(&f)->verdict, POLICY_VERDICT_DENY);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_DENIED_ADDRESS);
	cr_expect_eq(last_event(&f)->n_dropped, 6);

	a = ask_udp(&f, "bad.allowed.test", T_AAAA);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.n, 0);
	cr_expect_eq(last_event(&f)->n_dropped, 7);

	a = ask_udp(&f, "mixed.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_assert_eq(a.n, 1);
	cr_expect_str_eq(a.addrs[0], "198.51.100.9");
	cr_expect_eq(last_event(&f)->verdict, POLICY_VERDICT_ALLOW);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_SOME_DENIED);
	cr_expect_eq(last_event(&f)->n_dropped, 3);

	static const char *const never[] = { "127.0.0.1", "169.254.169.254", "10.1.2.3",
					     "::ffff:10.0.0.1", "::1", "10.0.0.1", NULL };
	for (size_t i = 0; never[i]; i++)
		cr_expect_eq(map_names(&f, never[i], NULL), 0, "%s in the map", never[i]);
	cr_expect_eq(map_names(&f, "198.51.100.9", NULL), 1);
	stop(&f);
}

/* The host's own addresses are default-denied too. */
Test(responder, host_addresses_stripped)
{
	struct fixture f;
	start(&f, NULL);
	dnsd_responder_destroy(f.r);
	struct policy_addr host[] = { A("198.51.100.7") };
	int udp = bound_socket(AF_INET, SOCK_DGRAM, "127.0.0.1", &f.udp_addr, &f.addr_len);
	struct dnsd_responder_config cfg = {
		.base = f.base, .udp_fd = udp, .tcp_fd = -1, .rules = f.rules,
		.n_rules = f.n_rules, .host_addrs = host, .n_host_addrs = 1,
		.upstream = { .addr = A("127.0.0.1"), .port = f.up_port },
		.map = f.map, .on_event = on_event, .event_arg = &f,
	};
	cr_assert_eq(dnsd_responder_create(&cfg, &f.r), 0);
	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.n, 0);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_DENIED_ADDRESS);
	stop(&f);
}

static void script_rebind(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			  struct fake_answer *out)
{
	(void)f;
	(void)name;
	(void)qtype;
	out->ttl = 0;
	out->addrs[0] = nth % 2 == 0 ? "198.51.100.20" : "127.0.0.1";
}

/* A rebinding name alternating public / 127.0.0.1 with TTL 0: every
 * 127.0.0.1 answer comes back empty, every public one as it is with TTL 0;
 * the map keeps the public pair for the floor, never the loopback one. */
Test(responder, ttl0_rebinding)
{
	struct fixture f;
	start(&f, NULL);
	f.script = script_rebind;
	for (int i = 0; i < 6; i++) {
		struct answer a = ask_udp(&f, "rebind.allowed.test", T_A);
		cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
		cr_expect(!has_addr(&a, "127.0.0.1"));
		if (i % 2 == 0) {
			cr_assert_eq(a.n, 1, "round %d", i);
			cr_expect_str_eq(a.addrs[0], "198.51.100.20");
			cr_expect_eq(a.ttl, 0);
		} else {
			cr_expect_eq(a.n, 0, "round %d", i);
		}
	}
	cr_expect_eq(f.n_log, 6, "TTL 0: every question went upstream");
	cr_expect_eq(map_names(&f, "127.0.0.1", NULL), 0);
	cr_expect_eq(map_names(&f, "198.51.100.20", NULL), 1, "held for map_min_ttl_s");
	stop(&f);
}

static void script_ttl2(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			struct fake_answer *out)
{
	(void)f;
	(void)name;
	(void)qtype;
	(void)nth;
	out->ttl = 2;
	out->addrs[0] = "198.51.100.30";
}

/* An upstream answer is kept for its TTL: the same question within it is
 * answered here with the TTL that is left, the map still fed; past it (or
 * with less than a second left) the upstream is asked again.  Another type
 * of the same name is another question. */
Test(responder, answers_kept_for_their_ttl)
{
	struct fixture f;
	start(&f, NULL);
	f.script = script_ttl2;
	struct answer a = ask_udp(&f, "x.wild.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.ttl, 2);
	for (int i = 0; i < 3; i++) {
		a = ask_udp(&f, "x.wild.allowed.test", T_A);
		cr_assert_eq(a.n, 1);
		cr_expect_str_eq(a.addrs[0], "198.51.100.30");
		cr_expect(a.ttl == 1 || a.ttl == 2, "the TTL left, in whole seconds: %u",
			  (unsigned)a.ttl);
		cr_expect_eq(last_event(&f)->reason, POLICY_REASON_ALLOW);
	}
	cr_expect_eq(f.n_log, 1, "upstream asked %zu times", f.n_log);
	cr_expect_eq(map_names(&f, "198.51.100.30", NULL), 1);
	a = ask_udp(&f, "x.wild.allowed.test", T_AAAA);
	cr_expect_eq(f.n_log, 2, "AAAA is its own question");
	usleep(1100 * 1000);
	a = ask_udp(&f, "x.wild.allowed.test", T_A);
	cr_expect_eq(a.ttl, 2, "asked again");
	cr_expect_eq(f.n_log, 3);
	stop(&f);
}

static void script_cname(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			 struct fake_answer *out)
{
	(void)f;
	(void)name;
	(void)nth;
	(void)qtype;
	out->cname = "edge.cdn.example";
	out->ttl = 7200;
	out->addrs[0] = "203.0.113.5";
	out->addrs[1] = "203.0.113.6";
}

/* CNAMEs are flattened; the TTL is capped at max_ttl_s. */
Test(responder, cname_flattened_ttl_capped)
{
	struct fixture f;
	struct dnsd_limits lim = { .max_ttl_s = 600 };
	start(&f, &lim);
	f.script = script_cname;
	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_assert_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_assert_eq(a.n, 2);
	cr_expect(has_addr(&a, "203.0.113.5") && has_addr(&a, "203.0.113.6"));
	cr_expect_eq(a.ttl, 600);
	char name[POLICY_NAME_MAX + 1];
	cr_expect_eq(map_names(&f, "203.0.113.6", name), 1);
	cr_expect_str_eq(name, "api.allowed.test", "the allowed name, not the CNAME target");
	stop(&f);
}

static void script_rcode(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			 struct fake_answer *out)
{
	(void)f;
	(void)qtype;
	(void)nth;
	if (strncmp(name, "api", 3) == 0)
		out->rcode = DNSD_RCODE_NXDOMAIN;
	else
		out->rcode = DNSD_RCODE_SERVFAIL;
}

Test(responder, upstream_rcodes)
{
	struct fixture f;
	start(&f, NULL);
	f.script = script_rcode;
	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_NXDOMAIN);
	a = ask_udp(&f, "bad.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_SERVFAIL);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_UPSTREAM_ERROR);
	cr_expect_eq(last_event(&f)->verdict, POLICY_VERDICT_ERROR);
	cr_expect_eq(f.n_log, 2, "NOCHECKRESP: SERVFAIL is not retried");
	stop(&f);
}

static void script_slow(struct fixture *f, const char *name, uint16_t qtype, unsigned nth,
			struct fake_answer *out)
{
	script_default(f, name, qtype, nth, out);
	out->silent = strncmp(name, "slow", 4) == 0;
}

/* An upstream that never answers: SERVFAIL after the timeout, and the
 * responder goes on answering. */
Test(responder, upstream_timeout)
{
	struct fixture f;
	struct dnsd_limits lim = { .upstream_timeout_ms = 200, .upstream_tries = 1 };
	start(&f, &lim);
	f.script = script_slow;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct answer a = ask_udp(&f, "slow.allowed.test", T_A);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_eq(a.rcode, DNSD_RCODE_SERVFAIL);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	cr_expect_geq(ms, 150, "answered after %ld ms", ms);
	cr_expect_lt(ms, 2000, "answered after %ld ms", ms);
	cr_expect_eq(last_event(&f)->verdict, POLICY_VERDICT_ERROR);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_UPSTREAM_TIMEOUT);
	a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_eq(a.n, 1);
	struct dnsd_responder_stats st;
	dnsd_responder_stats(f.r, &st);
	cr_expect_eq(st.in_flight, 0);
	stop(&f);
}

/* Over the in-flight cap: that query gets SERVFAIL at once, the others go on. */
Test(responder, in_flight_cap)
{
	struct fixture f;
	struct dnsd_limits lim = { .max_in_flight = 1, .upstream_timeout_ms = 300,
				   .upstream_tries = 1 };
	start(&f, &lim);
	f.script = script_slow;
	uint8_t q[512];
	int c1 = udp_client(&f);
	size_t len = build_query(q, 0x4242, "slow.allowed.test", T_A, false);
	cr_assert_eq(sendto(c1, q, len, 0, (struct sockaddr *)&f.udp_addr, f.addr_len), (ssize_t)len);
	run_for(&f, 50);
	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_SERVFAIL);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_TOO_MANY_QUERIES);
	struct wait *w = malloc(sizeof(*w));
	memset(w, 0, sizeof(*w));
	w->f = &f;
	w->fd = c1;
	run_until(w, 3000);
	cr_assert(!w->timed_out);
	struct answer a1;
	read_answer(w->buf, w->len, &a1);
	cr_expect_eq(a1.id, 0x4242);
	cr_expect_eq(a1.rcode, DNSD_RCODE_SERVFAIL);
	a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR, "served again once below the cap");
	free(w);
	close(c1);
	stop(&f);
}

/* TCP: two queries in one write, both answered on the connection; then EOF
 * from the client and the responder closes after answering. */
Test(responder, tcp_pipelined)
{
	struct fixture f;
	start(&f, NULL);
	int fd = tcp_client(&f);
	uint8_t buf[1024];
	size_t l1 = build_query(buf + 2, 0x0a01, "api.allowed.test", T_A, false);
	put16(buf, (unsigned)l1);
	size_t l2 = build_query(buf + 4 + l1, 0x0a02, "api.allowed.test", T_AAAA, false);
	put16(buf + 2 + l1, (unsigned)l2);
	cr_assert_eq(write(fd, buf, 4 + l1 + l2), (ssize_t)(4 + l1 + l2));
	struct wait *w = malloc(sizeof(*w));
	tcp_wait(&f, fd, w, 2, 3000);
	cr_assert_eq(tcp_frames(w), 2);
	bool seen[2] = { false, false };
	for (size_t k = 0; k < 2; k++) {
		struct answer a;
		tcp_frame_answer(w, k, &a);
		cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
		cr_assert_eq(a.n, 1);
		if (a.id == 0x0a01) {
			seen[0] = true;
			cr_expect_str_eq(a.addrs[0], "198.51.100.7");
		} else {
			cr_assert_eq(a.id, 0x0a02);
			seen[1] = true;
			cr_expect_str_eq(a.addrs[0], "2001:db8::7");
		}
	}
	cr_expect(seen[0] && seen[1]);
	cr_expect_eq(last_event(&f)->transport, DNSD_TRANSPORT_TCP);

	/* a third query, then a half-close: answered, then closed */
	tcp_send_query(fd, 0x0a03, "api.allowed.test", T_A);
	shutdown(fd, SHUT_WR);
	tcp_wait(&f, fd, w, 2, 3000); /* 1 frame, then EOF */
	cr_expect_eq(tcp_frames(w), 1);
	cr_expect(w->eof, "closed after the last answer");
	struct dnsd_responder_stats st;
	dnsd_responder_stats(f.r, &st);
	cr_expect_eq(st.tcp_conns, 0);
	free(w);
	close(fd);
	stop(&f);
}

Test(responder, tcp_idle_timeout_and_conn_cap)
{
	struct fixture f;
	struct dnsd_limits lim = { .tcp_idle_ms = 200, .max_tcp_conns = 2 };
	start(&f, &lim);
	int c1 = tcp_client(&f), c2 = tcp_client(&f);
	run_for(&f, 50);
	int c3 = tcp_client(&f);
	struct wait *w = malloc(sizeof(*w));
	tcp_wait(&f, c3, w, 1, 1000);
	cr_expect(w->eof, "the third connection is closed");
	bool capped = false;
	for (size_t i = 0; i < f.n_events; i++)
		capped |= f.events[i].reason == POLICY_REASON_TOO_MANY_CONNECTIONS;
	cr_expect(capped);
	/* the first two still serve */
	tcp_send_query(c1, 7, "api.allowed.test", T_A);
	tcp_wait(&f, c1, w, 1, 3000);
	cr_expect_eq(tcp_frames(w), 1);
	/* and then go idle: closed by the responder */
	tcp_wait(&f, c2, w, 1, 2000);
	cr_expect(w->eof && !w->timed_out, "idle connection closed");
	tcp_wait(&f, c1, w, 1, 2000);
	cr_expect(w->eof && !w->timed_out, "idle connection closed");
	struct dnsd_responder_stats st;
	dnsd_responder_stats(f.r, &st);
	cr_expect_eq(st.tcp_conns, 0);
	free(w);
	close(c1);
	close(c2);
	close(c3);
	stop(&f);
}

/* Malformed input, one class each: FORMERR when a header is there, nothing
 * for less than a header or for a response; NXDOMAIN for a name that is not
 * a host name; the responder answers the next good query every time. */
Test(responder, malformed_queries)
{
	struct fixture f;
	start(&f, NULL);
	int fd = udp_client(&f);
	struct wait *w = malloc(sizeof(*w));
	uint8_t q[512];
	size_t len;

	/* 5 bytes: dropped (no header to answer with) */
	cr_expect_eq(udp_exchange(&f, fd, (const uint8_t *)"\x12\x34\x01\x00\x00", 5, w, 300), -1);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_MALFORMED_QUERY);
	cr_expect_eq(last_event(&f)->rcode, -1);

	/* two questions: FORMERR with the same ID */
	len = build_query(q, 0x5151, "api.allowed.test", T_A, false);
	put16(q + 4, 2);
	cr_assert_gt(udp_exchange(&f, fd, q, len, w, 1000), 0);
	cr_expect_eq(get16(w->buf), 0x5151);
	cr_expect_eq(w->buf[3] & 0x0f, DNSD_RCODE_FORMERR);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_MALFORMED_QUERY);

	/* a response (QR set): never answered */
	len = build_query(q, 0x5252, "api.allowed.test", T_A, false);
	q[2] |= 0x80;
	cr_expect_eq(udp_exchange(&f, fd, q, len, w, 300), -1);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_NOT_QUERY);

	/* opcode STATUS: NOTIMP */
	len = build_query(q, 0x5353, "api.allowed.test", T_A, false);
	q[2] = (uint8_t)(q[2] | (2 << 3));
	cr_assert_gt(udp_exchange(&f, fd, q, len, w, 1000), 0);
	cr_expect_eq(w->buf[3] & 0x0f, DNSD_RCODE_NOTIMP);

	/* a label holding a space, a NUL, a dot, non-ASCII: NXDOMAIN, not asked */
	static const char *const labels[] = { "a b", "a\0b", "a.b", "\xc3\xa9", NULL };
	static const size_t lens[] = { 3, 3, 3, 2 };
	for (size_t i = 0; labels[i]; i++) {
		size_t o = 12;
		memset(q, 0, 12);
		put16(q, 0x6000 + (unsigned)i);
		put16(q + 4, 1);
		q[o++] = (uint8_t)lens[i];
		memcpy(q + o, labels[i], lens[i]);
		o += lens[i];
		o += put_name(q + o, "allowed.test");
		put16(q + o, T_A);
		put16(q + o + 2, 1);
		o += 4;
		cr_assert_gt(udp_exchange(&f, fd, q, o, w, 1000), 0, "label %zu", i);
		cr_expect_eq(w->buf[3] & 0x0f, DNSD_RCODE_NXDOMAIN, "label %zu", i);
		cr_expect_eq(last_event(&f)->reason, POLICY_REASON_MALFORMED_NAME);
	}

	/* EDNS version 1: BADVERS (extended rcode 16 = OPT ext 1, header 0) */
	len = build_query(q, 0x5454, "api.allowed.test", T_A, true);
	q[len - 5] = 1; /* the OPT TTL's version byte (after the extended rcode) */
	cr_assert_gt(udp_exchange(&f, fd, q, len, w, 1000), 0);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_BAD_EDNS_VERSION);

	/* class CHAOS (version.bind): REFUSED */
	len = build_query(q, 0x5555, "api.allowed.test", T_TXT, false);
	put16(q + len - 2, 3);
	cr_assert_gt(udp_exchange(&f, fd, q, len, w, 1000), 0);
	cr_expect_eq(w->buf[3] & 0x0f, DNSD_RCODE_REFUSED);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_UNSUPPORTED_CLASS);

	cr_expect_eq(f.n_log, 0);
	struct answer a = ask_udp(&f, "api.allowed.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);

	/* TCP: a frame shorter than a header breaks the framing: closed */
	int t = tcp_client(&f);
	cr_assert_eq(write(t, "\x00\x05hello", 7), 7);
	tcp_wait(&f, t, w, 1, 2000);
	cr_expect(w->eof && !w->timed_out);
	cr_expect_eq(last_event(&f)->reason, POLICY_REASON_MALFORMED_QUERY);
	close(t);
	free(w);
	close(fd);
	stop(&f);
}

/* IPv6 and the IPv4-mapped case of a dual-stack socket. */
Test(responder, ipv6_and_mapped)
{
	struct fixture f;
	int probe = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	if (probe < 0 || bind(probe, (struct sockaddr *)&s6, sizeof(s6)) < 0) {
		if (probe >= 0)
			close(probe);
		cr_skip_test("no IPv6 loopback on this host");
	}
	close(probe);

	start_at(&f, AF_INET6, "::1", default_rules, NULL);
	struct answer a = ask_udp(&f, "api.allowed.test", T_AAAA);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_str_eq(last_event(&f)->server, "::1");
	a = ask_udp(&f, "x.evil.test", T_A);
	cr_expect_eq(a.rcode, DNSD_RCODE_NXDOMAIN);
	int fd = tcp_client(&f);
	tcp_send_query(fd, 9, "api.allowed.test", T_A);
	struct wait *w = malloc(sizeof(*w));
	tcp_wait(&f, fd, w, 1, 3000);
	cr_expect_eq(tcp_frames(w), 1);
	close(fd);
	stop(&f);

	/* an AF_INET6 socket bound to ::ffff:127.0.0.1 receives IPv4 only:
	 * the reply must come from 127.0.0.1 (IP_PKTINFO on a v6 socket) */
	start_at(&f, AF_INET6, "::ffff:127.0.0.1", default_rules, NULL);
	uint8_t q[512];
	size_t len = build_query(q, 0x7777, "api.allowed.test", T_A, false);
	int c = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = ((struct sockaddr_in6 *)&f.udp_addr)->sin6_port,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert_eq(sendto(c, q, len, 0, (struct sockaddr *)&dst, sizeof(dst)), (ssize_t)len);
	memset(w, 0, sizeof(*w));
	w->f = &f;
	w->fd = c;
	run_until(w, 3000);
	cr_assert(!w->timed_out);
	cr_expect_eq(((struct sockaddr_in *)&w->from)->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	read_answer(w->buf, w->len, &a);
	cr_expect_eq(a.rcode, DNSD_RCODE_NOERROR);
	cr_expect_str_eq(last_event(&f)->server, "127.0.0.1", "unmapped");
	close(c);
	free(w);
	stop(&f);
}

/* The reason for PKTINFO: a socket bound to the wildcard (as [::]:53 is in
 * the sandbox) answers a query sent to 127.0.0.53 FROM 127.0.0.53, one
 * sent to 127.1.2.3 from 127.1.2.3, and one sent from 2001:db8::54 to
 * 2001:db8::53 from 2001:db8::53 (the kernel alone would pick ::54); and,
 * with the sandbox's AnyIP routes, one sent to 2001:db8:ffff::99, an address
 * configured nowhere, from 2001:db8:ffff::99.  All of it on lo in a
 * namespace the test created: nothing leaves it.  Run in a fresh user and network
 * namespace (only a loopback there), in a forked child since a
 * multi-threaded process cannot unshare a user namespace. */
static int pktinfo_child(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return 77;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = { 0 };
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return 77;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return 77;
	close(s);

	/* two IPv6 addresses on lo (no DAD on loopback): a client on one asks
	 * the other, so the kernel's own source choice would be wrong */
	bool v6 = true;
	static const char *const v6addrs[] = { "2001:db8::53", "2001:db8::54" };
	int s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (size_t i = 0; i < 2 && v6; i++) {
		struct {
			struct in6_addr addr;
			uint32_t prefixlen;
			int ifindex;
		} ifr6 = { .prefixlen = 128, .ifindex = (int)if_nametoindex("lo") };
		inet_pton(AF_INET6, v6addrs[i], &ifr6.addr);
		v6 = s6 >= 0 && ioctl(s6, SIOCSIFADDR, &ifr6) == 0;
	}
	if (s6 >= 0)
		close(s6);
	/* a new address is tentative until addrconf's work runs (even on lo,
	 * where it skips DAD): wait until each can be bound, at most 2 s */
	for (size_t i = 0; i < 2 && v6; i++) {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
		inet_pton(AF_INET6, v6addrs[i], &sa.sin6_addr);
		int ok = -1;
		for (int tries = 0; tries < 200 && ok < 0; tries++) {
			int p = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			ok = bind(p, (struct sockaddr *)&sa, sizeof(sa));
			close(p);
			if (ok < 0)
				usleep(10000);
		}
		v6 = ok == 0;
	}

	/* and the sandbox's own set-up: every address local (AnyIP), so an
	 * IPv6 address configured nowhere is answered from too, which needs
	 * IPV6_FREEBIND (ip6_datagram_send_ctl() checks configured addresses) */
	bool anyip = v6 && sandbox_netns_anyip() == 0;

	struct fixture f;
	start_at(&f, AF_INET6, "::", default_rules, NULL);
	static const char *const dsts[] = { "127.0.0.53", "127.1.2.3", "2001:db8::53",
					    "2001:db8:ffff::99", NULL };
	uint16_t port = ((struct sockaddr_in6 *)&f.udp_addr)->sin6_port;
	struct wait *w = malloc(sizeof(*w));
	int bad = 0;
	for (size_t i = 0; dsts[i]; i++) {
		if (strchr(dsts[i], ':') && (!v6 || (!anyip && strstr(dsts[i], "ffff"))))
			continue;
		if (strchr(dsts[i], ':')) {
			uint8_t q[512];
			size_t len = build_query(q, 0x600, "api.allowed.test", T_A, false);
			int c = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			struct sockaddr_in6 src = { .sin6_family = AF_INET6 };
			struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = port };
			inet_pton(AF_INET6, v6addrs[1], &src.sin6_addr);
			inet_pton(AF_INET6, dsts[i], &dst.sin6_addr);
			if (bind(c, (struct sockaddr *)&src, sizeof(src)) < 0 ||
			    connect(c, (struct sockaddr *)&dst, sizeof(dst)) < 0 ||
			    send(c, q, len, 0) != (ssize_t)len) {
				fprintf(stderr, "%s: %s\n", dsts[i], strerror(errno));
				return 2;
			}
			memset(w, 0, sizeof(*w));
			w->f = &f;
			w->fd = c;
			run_until(w, 2000);
			struct sockaddr_in6 *from = (struct sockaddr_in6 *)&w->from;
			if (w->timed_out || memcmp(&from->sin6_addr, &dst.sin6_addr, 16) != 0 ||
			    strcmp(last_event(&f)->server, dsts[i]) != 0) {
				fprintf(stderr, "%s: %s, event server %s\n", dsts[i],
					w->timed_out ? "no reply" : "reply from elsewhere",
					last_event(&f)->server);
				bad++;
			}
			close(c);
			continue;
		}
		uint8_t q[512];
		size_t len = build_query(q, (uint16_t)(0x100 + i), "api.allowed.test", T_A, false);
		int c = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = port };
		inet_pton(AF_INET, dsts[i], &dst.sin_addr);
		/* connected: the kernel delivers only what comes from dst */
		if (connect(c, (struct sockaddr *)&dst, sizeof(dst)) < 0 || send(c, q, len, 0) != (ssize_t)len)
			return 2;
		memset(w, 0, sizeof(*w));
		w->f = &f;
		w->fd = c;
		run_until(w, 2000);
		struct sockaddr_in *from = (struct sockaddr_in *)&w->from;
		if (w->timed_out || from->sin_addr.s_addr != dst.sin_addr.s_addr ||
		    strcmp(last_event(&f)->server, dsts[i]) != 0) {
			fprintf(stderr, "%s: %s, event server %s\n", dsts[i],
				w->timed_out ? "no reply" : "reply from elsewhere", last_event(&f)->server);
			bad++;
		}
		close(c);
	}
	free(w);
	stop(&f);
	return bad ? 1 : v6 && anyip ? 0 : 78;
}

Test(responder, reply_from_dialled_address)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(pktinfo_child());
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("no unprivileged user and network namespace here");
	if (WEXITSTATUS(status) == 78)
		cr_log_warn("no IPv6 on lo or no AnyIP route here: not every case was checked");
	else
		cr_expect_eq(WEXITSTATUS(status), 0, "the reply came from another address (%d)",
			     WEXITSTATUS(status));
}

/* Destroy with queries in flight and connections open: nothing leaks
 * (ASan in the sanitizer build), no event for the abandoned queries. */
Test(responder, destroy_in_flight)
{
	struct fixture f;
	start(&f, NULL);
	f.script = script_slow;
	uint8_t q[512];
	int c = udp_client(&f);
	size_t len = build_query(q, 1, "slow.allowed.test", T_A, false);
	cr_assert_eq(sendto(c, q, len, 0, (struct sockaddr *)&f.udp_addr, f.addr_len), (ssize_t)len);
	int t = tcp_client(&f);
	tcp_send_query(t, 2, "slow.allowed.test", T_AAAA);
	run_for(&f, 100);
	struct dnsd_responder_stats st;
	dnsd_responder_stats(f.r, &st);
	cr_expect_eq(st.in_flight, 2);
	cr_expect_eq(st.tcp_conns, 1);
	size_t before = f.n_events;
	dnsd_responder_destroy(f.r);
	f.r = NULL;
	cr_expect_eq(f.n_events, before);
	close(c);
	close(t);
	stop(&f);
}
