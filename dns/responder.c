/* dns/responder.c: see responder.h. */
#include "dns/responder.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/kernel.h"
#include "common/log.h"
#include "decision/log.h"
#include "dns/answers.h"
#include "dns/upstream.h"
#include "wire/dns.h"

/* The wire parser's text name goes through policy_name_canonical(), so its
 * limits must be the policy's own. */
_Static_assert(DNSD_NAME_TEXT_MAX == POLICY_NAME_MAX, "text name limits differ");
_Static_assert(DNSD_LABEL_MAX == POLICY_LABEL_MAX, "label limits differ");

#define UDP_BATCH 32      /* datagrams per readable callback: fairness with TCP */
#define ACCEPT_BATCH 16
#define ACCEPT_PAUSE_MS 1000
#define MAX_UPSTREAM_ADDRS 64 /* address records read from one answer; any more
			       * are ignored (a UDP answer holds at most ~75 A) */

#define DEF_MAX_IN_FLIGHT 256
#define DEF_MAX_TCP_CONNS 64
#define DEF_MAX_TCP_IN_FLIGHT 16
#define DEF_TCP_IDLE_MS 10000
#define DEF_TCP_OUT_MAX (256 * 1024)
#define DEF_UPSTREAM_TIMEOUT_MS 2000
#define DEF_UPSTREAM_TRIES 2
#define DEF_MAX_TTL_S 3600
#define DEF_MAP_MIN_TTL_S 60

struct tcp_conn;

/* Where a query came from and how to answer it. */
struct origin {
	enum dnsd_transport transport;
	struct tcp_conn *conn;          /* TCP; NULL once the connection is gone */
	struct sockaddr_storage peer;   /* UDP: where the reply goes */
	socklen_t peer_len;
	bool local_known;               /* UDP: the query's destination address */
	struct policy_addr local;       /* unmapped: IPv4 for IPv4 queries */
	int ifindex;
	struct policy_addr client, server; /* for events, unmapped */
	uint16_t client_port, server_port;
	struct decision_owner owner;    /* the program's process, when owner_fn told */
};

enum tcp_state {
	TCP_OPEN,     /* reading queries */
	TCP_DRAINING, /* the client sent EOF: finish what is in flight, then close */
};

struct tcp_conn {
	struct dnsd_responder *r;
	struct bufferevent *bev;
	struct event *idle;
	enum tcp_state state;
	bool doomed;  /* close at the next settle: framing broken, output full */
	bool paused;  /* reading stopped: too many queries in flight */
	uint32_t in_flight;
	struct origin origin;
	struct tcp_conn *prev, *next;
};

/* A question sent upstream.  One state (in flight, on r->pending) and one
 * free path: on_upstream(), which c-ares calls exactly once, also from
 * dnsd_upstream_destroy().  If its TCP connection closes first, o.conn is
 * set to NULL and the answer goes nowhere. */
struct pending {
	struct dnsd_responder *r;
	struct origin o;
	struct dnsd_query q;
	char name[POLICY_NAME_MAX + 1];
	const struct policy_net_rule *rule;
	struct pending *prev, *next;
};


struct dnsd_responder {
	struct event_base *base;
	int udp_fd, tcp_fd;
	int udp_family;
	uint16_t udp_port;
	struct event *ev_udp, *ev_accept, *ev_accept_resume;
	const struct proxy_secret *secrets; /* the tripwire (responder.h) */
	size_t n_secrets;
	const struct policy_net_rule *rules;
	size_t n_rules;
	const struct policy_addr *host_addrs;
	size_t n_host_addrs;
	struct dnsd_namemap *map;
	dnsd_event_fn on_event;
	void *event_arg;
	struct decision_log *log;
	decision_owner_fn owner_fn;
	void *owner_arg;
	struct dnsd_limits lim;
	struct dnsd_upstream *up; /* NULL when offline */
	bool offline;             /* --no-net: every name is refused, nothing asked */
	struct pending *pending;
	struct tcp_conn *conns;
	size_t n_conns;
	struct dnsd_responder_stats stats;
	struct dnsd_answers *answers; /* upstream answers kept for their TTL */
	/* scratch, last and never zeroed (dnsd_responder_create()) */
	uint8_t in[65536];           /* one received message */
	uint8_t out[2 + DNSD_TCP_MAX]; /* one response, after room for the TCP prefix */
};

uint64_t dnsd_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* --- addresses ------------------------------------------------------------ */

static bool sa_to_addr(const struct sockaddr *sa, struct policy_addr *a, uint16_t *port)
{
	memset(a, 0, sizeof(*a));
	*port = 0;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		a->family = POLICY_ADDR_V4;
		memcpy(a->b, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		a->family = POLICY_ADDR_V6;
		memcpy(a->b, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		*a = policy_addr_unmap(a);
	} else {
		return false;
	}
	return true;
}

/* --- events ----------------------------------------------------------------- */

static void event_begin(struct dnsd_event *ev, const struct origin *o)
{
	memset(ev, 0, sizeof(*ev));
	ev->transport = o->transport;
	ev->client = o->client;
	ev->client_port = o->client_port;
	ev->server_known = o->transport == DNSD_TRANSPORT_TCP || o->local_known;
	ev->server = o->server;
	ev->server_port = o->server_port;
	ev->qname = "";
	ev->rcode = -1;
	ev->pid = o->owner.pid;
	ev->comm = o->owner.comm[0] ? o->owner.comm : NULL;
}

/* Asks owner_fn who holds the program's socket, into o->owner: once per
 * UDP query or TCP connection, while the program waits for its answer. */
static void ask_owner(const struct dnsd_responder *r, int protocol, const struct sockaddr *peer,
		      socklen_t peer_len, const struct sockaddr *local, socklen_t local_len,
		      struct origin *o)
{
	memset(&o->owner, 0, sizeof(o->owner));
	if (r->owner_fn)
		r->owner_fn(r->owner_arg, protocol, peer, peer_len, local, local_len, &o->owner);
}

/* The query's destination as a socket address, for ask_owner(). */
static socklen_t local_sockaddr(const struct policy_addr *a, uint16_t port,
				struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == POLICY_ADDR_V4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->b, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->b, 16);
	return sizeof(*s6);
}

/* The question name as received, labels joined by '.', raw bytes. */
static size_t qname_text(const struct dnsd_query *q, char out[DNSD_NAME_WIRE_MAX + 1])
{
	size_t o = 0;

	for (size_t i = 0; i < q->qname_len && q->qname[i] != 0; i += 1 + (size_t)q->qname[i]) {
		size_t n = q->qname[i];
		if (i + 1 + n > q->qname_len)
			break;
		if (o)
			out[o++] = '.';
		memcpy(out + o, q->qname + i + 1, n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

/* The decision log's record of one query: the resolver the program asked as
 * dst, the name decided on (else the bytes as asked) as host.  A question
 * names no port, so neither the stderr line nor the hint makes one up: the
 * program may have wanted the name for HTTP as well as for TLS. */
static void record(struct dnsd_responder *r, const struct dnsd_event *ev)
{
	char dst[DECISION_DST_STRLEN];
	const char *host = ev->name ? ev->name : ev->qname;
	size_t host_len = ev->name ? strlen(ev->name) : ev->qname_len;
	struct decision d = {
		.kind = DECISION_KIND_DNS,
		.reason = ev->reason,
		.dst = ev->server_known ? decision_format_dst(&ev->server, ev->server_port, dst)
					: NULL,
		.host = host,
		.host_len = host_len,
		.rule = ev->rule,
		.hint_name = ev->name,
		.port = ev->hint_port,
		.label = host_len ? host : NULL,
		.label_len = host_len > POLICY_NAME_MAX ? POLICY_NAME_MAX : host_len,
		.pid = ev->pid,
		.comm = ev->comm,
	};
	if (decision_log_record(r->log, &d) < 0)
		log_msg(LOG_LEVEL_DEBUG, "cannot write the audit record of a DNS query");
}

static void emit(struct dnsd_responder *r, struct dnsd_event *ev)
{
	ev->verdict = policy_reason_verdict(ev->reason);
	r->stats.queries++;
	if (ev->verdict == POLICY_VERDICT_DENY)
		r->stats.refused++;
	else if (ev->verdict == POLICY_VERDICT_ERROR)
		r->stats.errors++;
	record(r, ev);
	if (r->on_event)
		r->on_event(ev, r->event_arg);
}

/* --- sending ---------------------------------------------------------------- */

/* Replies FROM the address the query was sent TO (see responder.h).  An IPv4
 * query on a dual-stack socket is answered with IP_PKTINFO: udpv6_sendmsg()
 * hands IPv4-mapped destinations to udp_sendmsg(), which reads SOL_IP
 * control messages (ip_cmsg_send()) on every kernel, while IPV6_PKTINFO with
 * a mapped source is only understood there since Linux 4.x. */
static int udp_send(struct dnsd_responder *r, const struct origin *o, const uint8_t *msg,
		    size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = {
		.msg_name = (void *)&o->peer,
		.msg_namelen = o->peer_len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};

	memset(&cbuf, 0, sizeof(cbuf));
	if (o->local_known) {
		mh.msg_control = cbuf.buf;
		struct cmsghdr *cm = (struct cmsghdr *)cbuf.buf;
		if (o->local.family == POLICY_ADDR_V4) {
			struct in_pktinfo pi = { .ipi_ifindex = o->ifindex };
			memcpy(&pi.ipi_spec_dst, o->local.b, 4);
			cm->cmsg_level = IPPROTO_IP;
			cm->cmsg_type = IP_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
			mh.msg_controllen = CMSG_SPACE(sizeof(pi));
		} else {
			struct in6_pktinfo pi = { .ipi6_ifindex = (unsigned)o->ifindex };
			memcpy(&pi.ipi6_addr, o->local.b, 16);
			cm->cmsg_level = IPPROTO_IPV6;
			cm->cmsg_type = IPV6_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
			mh.msg_controllen = CMSG_SPACE(sizeof(pi));
		}
	}
	for (;;) {
		if (sendmsg(r->udp_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		int err = errno;
		if (err == EINTR)
			continue;
		/* A full socket buffer drops the reply, as the network would;
		 * the client retries. */
		log_msg(LOG_LEVEL_DEBUG, "dns: sendmsg: %s", strerror(err));
		return -err;
	}
}

static void conn_touch(struct tcp_conn *c)
{
	uint32_t ms = c->r->lim.tcp_idle_ms;
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };

	event_add(c->idle, &tv);
}

static int tcp_send(struct tcp_conn *c, const uint8_t *msg, size_t len)
{
	uint8_t prefix[2];
	struct evbuffer *outb = bufferevent_get_output(c->bev);

	if (c->doomed || dnsd_tcp_prefix(len, prefix) != DNSD_OK)
		return -EINVAL;
	/* A client that sends queries and never reads the answers would grow
	 * this buffer without end: close it instead (RFC 7766 6.2.3 lets a
	 * server close any connection). */
	if (evbuffer_get_length(outb) + 2 + len > c->r->lim.tcp_out_max) {
		c->doomed = true;
		return -ENOBUFS;
	}
	if (evbuffer_add(outb, prefix, 2) != 0 || evbuffer_add(outb, msg, len) != 0) {
		c->doomed = true;
		return -ENOMEM;
	}
	conn_touch(c);
	return 0;
}

static int send_msg(struct dnsd_responder *r, const struct origin *o, const uint8_t *msg,
		    size_t len)
{
	if (o->transport == DNSD_TRANSPORT_UDP)
		return udp_send(r, o, msg, len);
	if (!o->conn)
		return -ENOTCONN;
	return tcp_send(o->conn, msg, len);
}

/* Builds and sends the answer to q.  Returns the rcode sent, -1 if none was. */
static int reply(struct dnsd_responder *r, const struct origin *o, const struct dnsd_query *q,
		 enum dnsd_rcode rcode, const struct policy_addr *addrs, size_t n, uint32_t ttl)
{
	size_t limit = o->transport == DNSD_TRANSPORT_UDP ? dnsd_udp_limit(q) : DNSD_TCP_MAX;
	size_t len;

	if (dnsd_build_response(q, rcode, addrs, n, ttl, limit, r->out + 2, DNSD_TCP_MAX, &len) !=
	    DNSD_OK)
		return -1;
	return send_msg(r, o, r->out + 2, len) == 0 ? (int)rcode : -1;
}

/* A header-only FORMERR or NOTIMP to a message that did not parse. */
static int reply_error(struct dnsd_responder *r, const struct origin *o, const uint8_t *msg,
		       size_t len, enum dnsd_rcode rcode)
{
	size_t out_len;

	if (dnsd_build_error(msg, len, rcode, r->out + 2, DNSD_TCP_MAX, &out_len) != DNSD_OK)
		return -1; /* shorter than a header, or a response: dropped */
	return send_msg(r, o, r->out + 2, out_len) == 0 ? (int)rcode : -1;
}

/* --- the decision ------------------------------------------------------------ */

static bool is_name_rule(const struct policy_net_rule *ru)
{
	return ru->kind == POLICY_NET_RULE_NAME || ru->kind == POLICY_NET_RULE_SUFFIX ||
	       ru->kind == POLICY_NET_RULE_ANY;
}

/* policy_net_name_resolvable() decides; this only finds the rule and reason
 * code to show with it, asking policy_net_decide() at the ports that
 * function tries (an allow rule's first port, the port after a deny
 * range). */
static bool decide_name(const struct dnsd_responder *r, const char *name,
			const struct policy_net_rule **rule, enum policy_reason *reason,
			uint16_t *port)
{
	struct policy_net_query nq = { .name = name, .host_addrs = r->host_addrs,
				       .n_host_addrs = r->n_host_addrs };
	struct policy_net_decision d;
	bool allowed = policy_net_name_resolvable(r->rules, r->n_rules, name);
	bool port_set = false;

	*rule = NULL;
	*reason = allowed ? POLICY_REASON_ALLOW : POLICY_REASON_NO_RULE;
	for (size_t i = 0; i < r->n_rules; i++) {
		const struct policy_net_rule *ru = &r->rules[i];
		if (ru->scope != POLICY_NET_SCOPE_ALL || !is_name_rule(ru) ||
		    !policy_name_matches(ru->pattern, name))
			continue;
		if (!allowed) {
			/* the first port a rule names for this name says why */
			nq.port = ru->port_lo;
			port_set = true;
			break;
		}
		unsigned cand = ru->action == POLICY_NET_ALLOW ? ru->port_lo : (unsigned)ru->port_hi + 1;
		if (cand > 65535)
			continue;
		nq.port = (uint16_t)cand;
		if (policy_net_decide(r->rules, r->n_rules, &nq, &d) == POLICY_NET_ALLOWED) {
			*rule = d.rule;
			return true;
		}
	}
	if (allowed)
		return true;
	if (!port_set) {
		/* a --proxy-allow name, asked by a client that does not use the
		 * proxy: the proxy resolves it itself, so this question is
		 * refused, saying why, with the port the proxy would allow */
		nq.via_proxy = true;
		for (size_t i = 0; i < r->n_rules; i++) {
			const struct policy_net_rule *ru = &r->rules[i];
			if (ru->scope != POLICY_NET_SCOPE_PROXY || ru->action != POLICY_NET_ALLOW ||
			    !is_name_rule(ru) || !policy_name_matches(ru->pattern, name))
				continue;
			nq.port = ru->port_lo;
			if (policy_net_decide(r->rules, r->n_rules, &nq, &d) == POLICY_NET_ALLOWED) {
				*reason = POLICY_REASON_PROXY_ONLY;
				*port = nq.port;
				return false;
			}
		}
		nq.via_proxy = false;
		nq.port = POLICY_NET_DEFAULT_PORT;
	}
	if (policy_net_decide(r->rules, r->n_rules, &nq, &d) != POLICY_NET_ALLOWED) {
		*reason = policy_reason_of_net(&d);
		*rule = d.rule;
	}
	return false;
}

static void conn_process(struct tcp_conn *c);

/* Turns the upstream's answer into ours (responder.h, steps 4 and 5). */
static void answer_upstream(struct dnsd_responder *r, struct pending *p, const uint8_t *msg,
			    size_t len, struct policy_addr keep[MAX_UPSTREAM_ADDRS],
			    struct dnsd_event *ev)
{
	struct dnsd_addr_rr rrs[MAX_UPSTREAM_ADDRS];
	struct dnsd_response resp;
	enum policy_addr_family want = p->q.qtype == DNSD_TYPE_A ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
	size_t n_keep = 0, dropped = 0;
	uint32_t ttl = UINT32_MAX;

	if (dnsd_response_parse(msg, len, &resp, rrs, MAX_UPSTREAM_ADDRS) != DNSD_OK ||
	    resp.qtype != p->q.qtype ||
	    !dnsd_name_equal(resp.qname, resp.qname_len, p->q.qname, p->q.qname_len)) {
		ev->reason = POLICY_REASON_UPSTREAM_MALFORMED;
		ev->rcode = reply(r, &p->o, &p->q, DNSD_RCODE_SERVFAIL, NULL, 0, 0);
		return;
	}
	if (resp.rcode == DNSD_RCODE_NXDOMAIN) {
		ev->reason = POLICY_REASON_NXDOMAIN;
		ev->rcode = reply(r, &p->o, &p->q, DNSD_RCODE_NXDOMAIN, NULL, 0, 0);
		return;
	}
	if (resp.rcode != DNSD_RCODE_NOERROR) {
		ev->reason = POLICY_REASON_UPSTREAM_ERROR;
		ev->rcode = reply(r, &p->o, &p->q, DNSD_RCODE_SERVFAIL, NULL, 0, 0);
		return;
	}
	for (size_t i = 0; i < resp.n_addrs; i++) {
		if (rrs[i].addr.family != want)
			continue;
		if (policy_addr_class_on_host(&rrs[i].addr, r->host_addrs, r->n_host_addrs) !=
		    POLICY_ADDR_PUBLIC) {
			dropped++;
			continue;
		}
		keep[n_keep++] = rrs[i].addr;
		if (rrs[i].ttl < ttl)
			ttl = rrs[i].ttl;
	}
	if (ttl > r->lim.max_ttl_s)
		ttl = r->lim.max_ttl_s;
	if (n_keep == 0)
		ttl = 0;
	ev->n_dropped = dropped;
	/* the name's other addresses still answer: an allow that says some
	 * were dropped; none left: refused */
	if (dropped)
		ev->reason = n_keep ? POLICY_REASON_SOME_DENIED : POLICY_REASON_DENIED_ADDRESS;
	ev->rcode = reply(r, &p->o, &p->q, DNSD_RCODE_NOERROR, keep, n_keep, ttl);
	ev->addrs = keep;
	ev->n_addrs = n_keep;
	ev->ttl = ttl;
	if (r->map && n_keep) {
		uint64_t now = dnsd_clock_ms();
		uint32_t hold = ttl > r->lim.map_min_ttl_s ? ttl : r->lim.map_min_ttl_s;
		for (size_t i = 0; i < n_keep; i++)
			dnsd_namemap_add(r->map, p->name, &keep[i], hold, now);
	}
}

static void pending_unlink(struct dnsd_responder *r, struct pending *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		r->pending = p->next;
	if (p->next)
		p->next->prev = p->prev;
	r->stats.in_flight--;
}

static void on_upstream(enum dnsd_upstream_result res, const uint8_t *msg, size_t len, void *arg)
{
	struct pending *p = arg;
	struct dnsd_responder *r = p->r;
	struct tcp_conn *c = p->o.conn;
	struct dnsd_event ev;
	char qtext[DNSD_NAME_WIRE_MAX + 1];
	struct policy_addr keep[MAX_UPSTREAM_ADDRS];

	pending_unlink(r, p);
	if (c)
		c->in_flight--;
	if (res == DNSD_UPSTREAM_CANCELLED) {
		/* dnsd_responder_destroy(): no answer, no event */
		free(p);
		return;
	}
	event_begin(&ev, &p->o);
	ev.qname_len = qname_text(&p->q, qtext);
	ev.qname = qtext;
	ev.name = p->name;
	ev.qtype = p->q.qtype;
	ev.rule = p->rule ? p->rule->text : NULL;
	ev.reason = POLICY_REASON_ALLOW;
	switch (res) {
	case DNSD_UPSTREAM_ANSWER:
		answer_upstream(r, p, msg, len, keep, &ev);
		if (ev.n_addrs &&
		    (ev.reason == POLICY_REASON_ALLOW || ev.reason == POLICY_REASON_SOME_DENIED))
			dnsd_answers_put(r->answers, p->name, p->q.qtype, ev.addrs, ev.n_addrs,
					 ev.n_dropped, ev.ttl, dnsd_clock_ms());
		break;
	case DNSD_UPSTREAM_TIMEOUT:
		ev.reason = POLICY_REASON_UPSTREAM_TIMEOUT;
		ev.rcode = reply(r, &p->o, &p->q, DNSD_RCODE_SERVFAIL, NULL, 0, 0);
		break;
	case DNSD_UPSTREAM_ERROR:
	case DNSD_UPSTREAM_CANCELLED:
		ev.reason = POLICY_REASON_UPSTREAM_ERROR;
		ev.rcode = reply(r, &p->o, &p->q, DNSD_RCODE_SERVFAIL, NULL, 0, 0);
		break;
	}
	emit(r, &ev);
	free(p);
	if (c)
		conn_process(c); /* below its cap again: read on (may close c) */
}

/* One message from a client: decide, answer or ask upstream. */
static void handle_query(struct dnsd_responder *r, const struct origin *o, const uint8_t *msg,
			 size_t len)
{
	struct dnsd_query q;
	struct dnsd_event ev;
	char qtext[DNSD_NAME_WIRE_MAX + 1];
	char name[POLICY_NAME_MAX + 1];
	size_t name_len;
	const struct policy_net_rule *rule;
	enum policy_reason reason;
	/* A name porta will not resolve does not exist, as far as the program
	 * can tell: NXDOMAIN is "no such host" (EAI_NONAME, Node's ENOTFOUND),
	 * which clients give up on at once; REFUSED reads as a temporary
	 * failure (EAI_AGAIN) that npm, pip and the like retry for a minute.
	 * Inside the sandbox no shared cache can keep the answer. */
	uint8_t refuse_rcode = DNSD_RCODE_NXDOMAIN;
	enum dnsd_status st = dnsd_query_parse(msg, len, &q);

	event_begin(&ev, o);
	switch (st) {
	case DNSD_OK:
		break;
	case DNSD_NOT_QUERY:
		/* never answer a response: two resolvers could bounce it forever */
		ev.reason = POLICY_REASON_NOT_QUERY;
		emit(r, &ev);
		return;
	case DNSD_NOTIMP:
		ev.reason = POLICY_REASON_NOT_IMPLEMENTED;
		ev.rcode = reply_error(r, o, msg, len, DNSD_RCODE_NOTIMP);
		emit(r, &ev);
		return;
	default:
		ev.reason = POLICY_REASON_MALFORMED_QUERY;
		ev.rcode = reply_error(r, o, msg, len, DNSD_RCODE_FORMERR);
		emit(r, &ev);
		return;
	}
	ev.qname_len = qname_text(&q, qtext);
	ev.qname = qtext;
	ev.qtype = q.qtype;
	if (q.edns && q.edns_version != 0) {
		ev.reason = POLICY_REASON_BAD_EDNS_VERSION;
		ev.rcode = reply(r, o, &q, DNSD_RCODE_BADVERS, NULL, 0, 0);
		emit(r, &ev);
		return;
	}
	if (!q.name_is_text) {
		ev.reason = POLICY_REASON_MALFORMED_NAME;
		goto refuse;
	}
	switch (policy_name_canonical((const uint8_t *)q.name, q.name_len, name, &name_len)) {
	case POLICY_NAME_OK:
		break;
	case POLICY_NAME_NUMERIC:
		ev.reason = POLICY_REASON_IP_LITERAL_NAME;
		goto refuse;
	case POLICY_NAME_MALFORMED:
		ev.reason = POLICY_REASON_MALFORMED_NAME;
		goto refuse;
	}
	ev.name = name;
	if (q.qclass != DNSD_CLASS_IN) {
		/* not a host lookup (CHAOS version.bind): "not from this server" */
		ev.reason = POLICY_REASON_UNSUPPORTED_CLASS;
		refuse_rcode = DNSD_RCODE_REFUSED;
		goto refuse;
	}
	/* the name as asked and as canonical: case, percent and dots looked
	 * through, as a label may be spelled to slip a placeholder past */
	if (r->n_secrets &&
	    (proxy_secret_find(r->secrets, r->n_secrets, (const uint8_t *)q.name, q.name_len,
			       PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT, NULL) ||
	     proxy_secret_find(r->secrets, r->n_secrets, (const uint8_t *)name, name_len,
			       PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT, NULL))) {
		ev.reason = POLICY_REASON_SECRET_ELSEWHERE;
		refuse_rcode = DNSD_RCODE_REFUSED;
		goto refuse;
	}
	if (r->offline) {
		/* --no-net: no name exists, and the program is told so at once */
		ev.reason = POLICY_REASON_NO_NET;
		goto refuse;
	}
	if (!decide_name(r, name, &rule, &reason, &ev.hint_port)) {
		ev.reason = reason;
		ev.rule = rule ? rule->text : NULL;
		goto refuse;
	}
	ev.rule = rule ? rule->text : NULL;
	if (q.qtype != DNSD_TYPE_A && q.qtype != DNSD_TYPE_AAAA) {
		/* docs/design.md: other record types get an empty answer; nothing
		 * is asked upstream, so no TXT or ANY data can come back in */
		ev.reason = POLICY_REASON_NOT_ADDRESS_TYPE;
		ev.rcode = reply(r, o, &q, DNSD_RCODE_NOERROR, NULL, 0, 0);
		emit(r, &ev);
		return;
	}
	uint32_t left;
	const struct dnsd_answer *hit = dnsd_answers_get(r->answers, name, q.qtype, dnsd_clock_ms(), &left);
	if (hit && hit->n_addrs) {
		/* as the upstream answered, with the TTL that is left */
		r->stats.cache_hits++;
		ev.reason = hit->n_dropped ? POLICY_REASON_SOME_DENIED : POLICY_REASON_ALLOW;
		ev.n_dropped = hit->n_dropped;
		ev.addrs = hit->addrs;
		ev.n_addrs = hit->n_addrs;
		ev.ttl = left;
		ev.rcode = reply(r, o, &q, DNSD_RCODE_NOERROR, hit->addrs, hit->n_addrs, left);
		if (r->map) {
			uint64_t now = dnsd_clock_ms();
			uint32_t hold = left > r->lim.map_min_ttl_s ? left : r->lim.map_min_ttl_s;
			for (size_t i = 0; i < hit->n_addrs; i++)
				dnsd_namemap_add(r->map, name, &hit->addrs[i], hold, now);
		}
		emit(r, &ev);
		return;
	}
	if (r->stats.in_flight >= r->lim.max_in_flight) {
		ev.reason = POLICY_REASON_TOO_MANY_QUERIES;
		goto servfail;
	}
	struct pending *p = calloc(1, sizeof(*p));
	if (!p) {
		ev.reason = POLICY_REASON_NO_MEMORY;
		goto servfail;
	}
	p->r = r;
	p->o = *o;
	p->q = q;
	memcpy(p->name, name, name_len + 1);
	p->rule = rule;
	int rc = dnsd_upstream_query(r->up, p->name, q.qtype, on_upstream, p);
	if (rc < 0) {
		free(p);
		ev.reason = rc == -ENOMEM ? POLICY_REASON_NO_MEMORY : POLICY_REASON_UPSTREAM_ERROR;
		goto servfail;
	}
	p->next = r->pending;
	if (p->next)
		p->next->prev = p;
	r->pending = p;
	r->stats.in_flight++;
	r->stats.upstream_queries++;
	if (o->conn)
		o->conn->in_flight++;
	return; /* the event is emitted with the answer */
servfail:
	ev.rcode = reply(r, o, &q, DNSD_RCODE_SERVFAIL, NULL, 0, 0);
	emit(r, &ev);
	return;
refuse:
	/* answered here: the question never leaves the machine */
	ev.rcode = reply(r, o, &q, refuse_rcode, NULL, 0, 0);
	emit(r, &ev);
}

/* --- UDP --------------------------------------------------------------------- */

static void on_udp(evutil_socket_t fd, short what, void *arg)
{
	struct dnsd_responder *r = arg;

	(void)fd;
	(void)what;
	for (int i = 0; i < UDP_BATCH; i++) {
		union {
			char buf[256];
			struct cmsghdr align;
		} cbuf;
		struct origin o = { .transport = DNSD_TRANSPORT_UDP };
		struct iovec iov = { .iov_base = r->in, .iov_len = sizeof(r->in) };
		struct msghdr mh = {
			.msg_name = &o.peer,
			.msg_namelen = sizeof(o.peer),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = cbuf.buf,
			.msg_controllen = sizeof(cbuf.buf),
		};
		ssize_t n = recvmsg(r->udp_fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			if (err != EAGAIN && err != EWOULDBLOCK)
				log_msg(LOG_LEVEL_DEBUG, "dns: recvmsg: %s", strerror(err));
			return;
		}
		o.peer_len = mh.msg_namelen;
		if (!sa_to_addr((const struct sockaddr *)&o.peer, &o.client, &o.client_port))
			continue;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;
				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				o.local.family = POLICY_ADDR_V6;
				memcpy(o.local.b, &pi.ipi6_addr, 16);
				o.local = policy_addr_unmap(&o.local);
				o.ifindex = (int)pi.ipi6_ifindex;
				o.local_known = true;
			} else if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;
				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				memset(&o.local, 0, sizeof(o.local));
				o.local.family = POLICY_ADDR_V4;
				memcpy(o.local.b, &pi.ipi_addr, 4); /* the header's destination */
				o.ifindex = pi.ipi_ifindex;
				o.local_known = true;
			}
		}
		o.server = o.local;
		o.server_port = r->udp_port;
		if (o.local_known && r->owner_fn) {
			struct sockaddr_storage local;
			socklen_t ll = local_sockaddr(&o.local, r->udp_port, &local);
			ask_owner(r, IPPROTO_UDP, (const struct sockaddr *)&o.peer, o.peer_len,
				  (const struct sockaddr *)&local, ll, &o);
		}
		handle_query(r, &o, r->in, (size_t)n);
	}
}

/* --- TCP --------------------------------------------------------------------- */

static void conn_close(struct tcp_conn *c)
{
	struct dnsd_responder *r = c->r;

	/* queries still upstream answer nobody when they complete */
	for (struct pending *p = r->pending; p; p = p->next) {
		if (p->o.conn == c)
			p->o.conn = NULL;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		r->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	r->n_conns--;
	r->stats.tcp_conns = r->n_conns;
	bufferevent_free(c->bev); /* BEV_OPT_CLOSE_ON_FREE: closes the socket */
	event_free(c->idle);
	free(c);
}

/* The one place a connection is closed after it is set up: when it is
 * doomed, or draining with nothing left to answer or to write. */
static void conn_settle(struct tcp_conn *c)
{
	if (c->doomed) {
		conn_close(c);
		return;
	}
	if (c->state == TCP_DRAINING && c->in_flight == 0 &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_close(c);
}

/* Handles every complete frame buffered, then settles (which may free c). */
static void conn_process(struct tcp_conn *c)
{
	struct dnsd_responder *r = c->r;
	struct evbuffer *in = bufferevent_get_input(c->bev);

	while (!c->doomed) {
		if (c->in_flight >= r->lim.max_tcp_in_flight) {
			/* back-pressure: read again when one completes */
			if (!c->paused && c->state == TCP_OPEN)
				bufferevent_disable(c->bev, EV_READ);
			c->paused = true;
			break;
		}
		size_t avail = evbuffer_get_length(in);
		uint8_t hdr[2];
		if (avail < 2 || evbuffer_copyout(in, hdr, 2) != 2)
			break;
		size_t msg_len = (size_t)hdr[0] << 8 | hdr[1];
		if (msg_len < DNSD_HEADER_LEN) {
			/* RFC 7766 8: the framing can no longer be trusted */
			struct dnsd_event ev;
			event_begin(&ev, &c->origin);
			ev.reason = POLICY_REASON_MALFORMED_QUERY;
			emit(r, &ev);
			c->doomed = true;
			break;
		}
		if (avail < 2 + msg_len)
			break;
		evbuffer_drain(in, 2);
		evbuffer_remove(in, r->in, msg_len);
		conn_touch(c);
		handle_query(r, &c->origin, r->in, msg_len);
	}
	if (c->paused && c->in_flight < r->lim.max_tcp_in_flight && !c->doomed) {
		c->paused = false;
		if (c->state == TCP_OPEN)
			bufferevent_enable(c->bev, EV_READ);
	}
	conn_settle(c);
}

static void conn_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg);
}

static void conn_write(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_settle(arg); /* the output drained: a draining connection may end */
}

static void conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct tcp_conn *c = arg;

	(void)bev;
	if (what & BEV_EVENT_EOF) {
		/* the client is done sending (it may have half-closed to say
		 * so): answer what it asked, then close */
		c->state = TCP_DRAINING;
		bufferevent_disable(c->bev, EV_READ);
		conn_process(c);
		return;
	}
	conn_close(c); /* reset or error */
}

static void conn_idle(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_conn *c = arg;

	(void)fd;
	(void)what;
	if (c->in_flight > 0) {
		conn_touch(c); /* waiting for upstream is not idleness */
		return;
	}
	conn_close(c);
}

static void conn_open(struct dnsd_responder *r, int fd, const struct sockaddr_storage *peer)
{
	struct tcp_conn *c = calloc(1, sizeof(*c));
	struct sockaddr_storage local;
	socklen_t local_len = sizeof(local);

	if (!c)
		goto fail;
	c->r = r;
	c->origin.transport = DNSD_TRANSPORT_TCP;
	c->origin.conn = c;
	sa_to_addr((const struct sockaddr *)peer, &c->origin.client, &c->origin.client_port);
	/* with AnyIP, the address the program dialled */
	if (getsockname(fd, (struct sockaddr *)&local, &local_len) == 0) {
		sa_to_addr((const struct sockaddr *)&local, &c->origin.server, &c->origin.server_port);
		ask_owner(r, IPPROTO_TCP, (const struct sockaddr *)peer, sizeof(*peer),
			  (const struct sockaddr *)&local, local_len, &c->origin);
	}
	c->bev = bufferevent_socket_new(r->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		goto fail;
	fd = -1; /* the bufferevent owns it */
	c->idle = evtimer_new(r->base, conn_idle, c);
	if (!c->idle)
		goto fail;
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	/* stop reading once one largest frame is buffered */
	bufferevent_setwatermark(c->bev, EV_READ, 0, 2 + DNSD_TCP_MAX);
	if (bufferevent_enable(c->bev, EV_READ) != 0)
		goto fail;
	c->next = r->conns;
	if (c->next)
		c->next->prev = c;
	r->conns = c;
	r->n_conns++;
	r->stats.tcp_conns = r->n_conns;
	conn_touch(c);
	return;
fail:
	if (c) {
		if (c->bev)
			bufferevent_free(c->bev);
		if (c->idle)
			event_free(c->idle);
		free(c);
	}
	if (fd >= 0)
		close(fd);
	log_msg(LOG_LEVEL_WARN, "dns: out of memory for a TCP connection, closed it");
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
	struct dnsd_responder *r = arg;

	(void)fd;
	(void)what;
	event_add(r->ev_accept, NULL);
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct dnsd_responder *r = arg;

	(void)fd;
	(void)what;
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t peer_len = sizeof(peer);
		int cfd = accept4(r->tcp_fd, (struct sockaddr *)&peer, &peer_len,
				  SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			int err = errno;
			if (err == EINTR || err == ECONNABORTED || err == EPROTO)
				continue;
			if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
				/* the pending connection stays queued and the
				 * listener stays readable: pause instead of spinning */
				struct timeval tv = { ACCEPT_PAUSE_MS / 1000, 0 };
				log_msg(LOG_LEVEL_WARN, "dns: accept: %s; pausing TCP for %d ms",
					strerror(err), ACCEPT_PAUSE_MS);
				event_del(r->ev_accept);
				event_add(r->ev_accept_resume, &tv);
			}
			return;
		}
		if (r->n_conns >= r->lim.max_tcp_conns) {
			struct origin o = { .transport = DNSD_TRANSPORT_TCP };
			struct sockaddr_storage local;
			socklen_t local_len = sizeof(local);
			struct dnsd_event ev;
			sa_to_addr((const struct sockaddr *)&peer, &o.client, &o.client_port);
			if (getsockname(cfd, (struct sockaddr *)&local, &local_len) == 0) {
				sa_to_addr((const struct sockaddr *)&local, &o.server, &o.server_port);
				ask_owner(r, IPPROTO_TCP, (const struct sockaddr *)&peer, peer_len,
					  (const struct sockaddr *)&local, local_len, &o);
			}
			close(cfd);
			event_begin(&ev, &o);
			ev.reason = POLICY_REASON_TOO_MANY_CONNECTIONS;
			emit(r, &ev);
			continue;
		}
		conn_open(r, cfd, &peer);
	}
}

/* --- life cycle ------------------------------------------------------------ */

static int sock_check(int fd, int type, int *family, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int t;
	socklen_t tl = sizeof(t);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) < 0)
		return -errno;
	if (t != type || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -EINVAL;
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return -EINVAL;
	*family = ss.ss_family;
	struct policy_addr a;
	sa_to_addr((const struct sockaddr *)&ss, &a, port);
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Options the UDP socket needs to answer from the dialled address. */
static int udp_setup(struct dnsd_responder *r)
{
	int one = 1;

	if (r->udp_family == AF_INET6) {
		if (setsockopt(r->udp_fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0)
			return -errno;
		/* IPv4 queries on a dual-stack socket: IP_PKTINFO is delivered
		 * for them too (udpv6_recvmsg() -> ip_cmsg_recv_offset());
		 * IPV6_PKTINFO also carries them as ::ffff:a.b.c.d, so this
		 * one may fail on an IPv6-only socket without harm. */
		(void)setsockopt(r->udp_fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		/* ip6_datagram_send_ctl() refuses an IPV6_PKTINFO source that is
		 * not configured on an interface unless the socket is freebind;
		 * AnyIP addresses are routed locally, not configured.  Kernels
		 * before 4.15 lack IPV6_FREEBIND; IP_FREEBIND sets the same flag. */
		if (setsockopt(r->udp_fd, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one)) < 0 &&
		    setsockopt(r->udp_fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) < 0)
			log_msg(LOG_LEVEL_DEBUG, "dns: no IPV6_FREEBIND: IPv6 replies may "
				"come from another address");
	} else {
		if (setsockopt(r->udp_fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0)
			return -errno;
		(void)setsockopt(r->udp_fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
	}
	return 0;
}

static uint32_t or_default(uint32_t v, uint32_t def)
{
	return v ? v : def;
}

int dnsd_responder_create(const struct dnsd_responder_config *cfg, struct dnsd_responder **out)
{
	struct dnsd_responder *r;
	int err = 0, tcp_family = 0;
	uint16_t tcp_port = 0;

	*out = NULL;
	if (!cfg->base || (cfg->udp_fd < 0 && cfg->tcp_fd < 0))
		return -EINVAL;
	/* in and out are scratch, written before they are read: left unzeroed,
	 * their 128 KiB are faulted in only as far as messages reach, not by
	 * every start (docs/benchmarks/startup.md). */
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	memset(r, 0, offsetof(struct dnsd_responder, in));
	if (!cfg->offline && !(r->answers = calloc(1, sizeof(*r->answers)))) {
		free(r);
		return -ENOMEM;
	}
	r->base = cfg->base;
	r->udp_fd = r->tcp_fd = -1; /* adopted only on success */
	r->rules = cfg->rules;
	r->n_rules = cfg->n_rules;
	r->secrets = cfg->secrets;
	r->n_secrets = cfg->n_secrets;
	r->host_addrs = cfg->host_addrs;
	r->n_host_addrs = cfg->n_host_addrs;
	r->map = cfg->map;
	r->on_event = cfg->on_event;
	r->log = cfg->log;
	r->owner_fn = cfg->owner_fn;
	r->owner_arg = cfg->owner_arg;
	r->event_arg = cfg->event_arg;
	r->lim.max_in_flight = or_default(cfg->limits.max_in_flight, DEF_MAX_IN_FLIGHT);
	r->lim.max_tcp_conns = or_default(cfg->limits.max_tcp_conns, DEF_MAX_TCP_CONNS);
	r->lim.max_tcp_in_flight = or_default(cfg->limits.max_tcp_in_flight, DEF_MAX_TCP_IN_FLIGHT);
	r->lim.tcp_idle_ms = or_default(cfg->limits.tcp_idle_ms, DEF_TCP_IDLE_MS);
	r->lim.tcp_out_max = or_default(cfg->limits.tcp_out_max, DEF_TCP_OUT_MAX);
	r->lim.upstream_timeout_ms =
		or_default(cfg->limits.upstream_timeout_ms, DEF_UPSTREAM_TIMEOUT_MS);
	r->lim.upstream_tries = or_default(cfg->limits.upstream_tries, DEF_UPSTREAM_TRIES);
	r->lim.max_ttl_s = or_default(cfg->limits.max_ttl_s, DEF_MAX_TTL_S);
	r->lim.map_min_ttl_s = or_default(cfg->limits.map_min_ttl_s, DEF_MAP_MIN_TTL_S);

	if (cfg->udp_fd >= 0) {
		err = sock_check(cfg->udp_fd, SOCK_DGRAM, &r->udp_family, &r->udp_port);
		if (err)
			goto fail;
		r->udp_fd = cfg->udp_fd;
		err = udp_setup(r);
		r->udp_fd = -1;
		if (err)
			goto fail;
		r->ev_udp = event_new(r->base, cfg->udp_fd, EV_READ | EV_PERSIST, on_udp, r);
		if (!r->ev_udp)
			goto nomem;
	}
	if (cfg->tcp_fd >= 0) {
		err = sock_check(cfg->tcp_fd, SOCK_STREAM, &tcp_family, &tcp_port);
		if (err)
			goto fail;
		r->ev_accept = event_new(r->base, cfg->tcp_fd, EV_READ | EV_PERSIST, on_accept, r);
		r->ev_accept_resume = evtimer_new(r->base, on_accept_resume, r);
		if (!r->ev_accept || !r->ev_accept_resume)
			goto nomem;
	}
	struct dnsd_upstream_config ucfg = {
		.server = cfg->upstream,
		.timeout_ms = r->lim.upstream_timeout_ms,
		.tries = r->lim.upstream_tries,
	};
	r->offline = cfg->offline;
	if (r->offline)
		err = 0;
	else if (cfg->shared_upstream)
		err = dnsd_upstream_share(cfg->shared_upstream, &r->up);
	else
		err = dnsd_upstream_create(r->base, &ucfg, &r->up);
	if (err)
		goto fail;
	r->udp_fd = cfg->udp_fd;
	r->tcp_fd = cfg->tcp_fd;
	if (r->ev_udp)
		event_add(r->ev_udp, NULL);
	if (r->ev_accept)
		event_add(r->ev_accept, NULL);
	*out = r;
	return 0;
nomem:
	err = -ENOMEM;
fail:
	dnsd_responder_destroy(r); /* udp_fd and tcp_fd are still -1: not closed */
	return err;
}

void dnsd_responder_destroy(struct dnsd_responder *r)
{
	if (!r)
		return;
	/* first: every pending query's callback runs (CANCELLED) and frees it,
	 * while the connections it points to still exist */
	dnsd_upstream_destroy(r->up);
	while (r->conns)
		conn_close(r->conns);
	if (r->ev_udp)
		event_free(r->ev_udp);
	if (r->ev_accept)
		event_free(r->ev_accept);
	if (r->ev_accept_resume)
		event_free(r->ev_accept_resume);
	if (r->udp_fd >= 0)
		close(r->udp_fd);
	if (r->tcp_fd >= 0)
		close(r->tcp_fd);
	free(r->answers);
	free(r);
}

void dnsd_responder_stats(const struct dnsd_responder *r, struct dnsd_responder_stats *out)
{
	*out = r->stats;
}
