/* netproxy/conn.c: see conn.h.  The connection table, and the path every
 * front end shares once it knows the target: decide, resolve or take the
 * dialled address, dial, hand back to the front end (through its table),
 * relay, and the one free path. */
#include "netproxy/conn.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "dns/namemap.h"
#include "dns/responder.h"
#include "wire/dns.h"
#include "wire/http_forward.h"
#include "netproxy/dial.h"

uint64_t proxy_now_ms(void)
{
	return dnsd_clock_ms();
}

/* Copies a NUL-terminated canonical name into a buffer of cap bytes
 * (POLICY_NAME_MAX + 1 on both sides; truncation cannot happen, but the
 * compiler cannot see the bound). */
static void copy_name(char *dst, size_t cap, const char *src)
{
	size_t l = strnlen(src, cap - 1);
	memcpy(dst, src, l);
	dst[l] = '\0';
}

static bool is_addr_rule(const struct policy_net_rule *r)
{
	return r && (r->kind == POLICY_NET_RULE_ADDR || r->kind == POLICY_NET_RULE_CIDR);
}

/* ---- the connection table ---------------------------------------------- */

void proxy_conn_free(struct proxy_conn *c)
{
	if (!c)
		return;
	if (c->relay) {
		/* the relay's callback comes back here with relay NULL */
		struct proxy_relay *r = c->relay;
		c->relay = NULL;
		proxy_relay_abort(r);
		return;
	}
	if (c->term) {
		struct proxy_term *t = c->term;
		c->term = NULL;
		proxy_term_abort(t); /* its done callback frees c */
		return;
	}
	struct proxy_core *p = c->p;
	if (c->ev_read)
		event_free(c->ev_read);
	if (c->ev_write)
		event_free(c->ev_write);
	if (c->ev_sniff)
		event_free(c->ev_sniff);
	if (c->ev_quiet)
		event_free(c->ev_quiet);
	if (c->ev_down)
		event_free(c->ev_down);
	if (c->ev_down_w)
		event_free(c->ev_down_w);
	free(c->down);
	proxy_dial_cancel(c->dial);
	for (int i = 0; i < 2; i++)
		proxy_resolve_detach(c->res[i]);
	if (c->client >= 0)
		close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	free(c->out);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->n_conns--;
	free(c);
}

static void check_sni_readable(struct proxy_conn *c);

static void on_client_read(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	(void)fd;
	(void)what;

	if (c->state == PROXY_CONN_CHECK_SNI) {
		check_sni_readable(c);
		return;
	}
	if (c->state != PROXY_CONN_SNIFF) {
		event_del(c->ev_read);
		return;
	}
	c->ops->readable(c);
}

static void stop_sniffing(struct proxy_conn *c)
{
	event_del(c->ev_read);
	event_del(c->ev_sniff);
	event_del(c->ev_quiet);
}

static void on_sniff_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	(void)fd;
	(void)what;
	stop_sniffing(c);
	if (c->state == PROXY_CONN_CHECK_SNI && !c->first_seen)
		proxy_conn_refuse(c, POLICY_REASON_IDLE); /* neither side said anything */
	else
		proxy_conn_refuse(c, POLICY_REASON_SNIFF_TIMEOUT);
}

static void on_quiet(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	(void)fd;
	(void)what;
	if (c->peeked != 0 || c->state != PROXY_CONN_SNIFF || c->front != PROXY_FRONT_TRANSPARENT)
		return; /* bytes arrived: the sniffer decides, within the deadline */
	/* The server may speak first: decide without a name, dial, and check
	 * the client's first bytes when they come (proxy_check_sni_*), so a
	 * client that merely waits cannot skip the SNI or Host rule. */
	c->quiet_decided = true;
	proxy_conn_decide_by_address(c);
}

static void arm(struct event *ev, uint32_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
	event_add(ev, &tv);
}

/* Who holds the program's end (owner.h), once per connection: asked when
 * the connection has to wait anyway (for its dial, its name's answer, more
 * of its first bytes) or is refused, never ahead of its dial (the lookup
 * reads /proc: tens of microseconds the connection would wait for).  Every
 * record of the connection comes after one of those. */
static void ask_owner(struct proxy_conn *c)
{
	if (c->owner_asked)
		return;
	c->owner_asked = true;
	if (c->client >= 0)
		proxy_conn_owner(c->p, c->client, &c->owner);
}

void proxy_conn_sniff(struct proxy_conn *c, bool quiet)
{
	c->peeked = 0;
	arm(c->ev_sniff, c->p->limits.sniff_timeout_ms);
	if (quiet)
		arm(c->ev_quiet, c->p->quiet_ms);
	/* a client usually sends its first bytes as soon as its connect
	 * returns, before porta accepts: look at once (the read event is
	 * added only if they are not there, proxy_conn_want_more) */
	c->ops->readable(c);
}

static void on_down(evutil_socket_t fd, short what, void *arg);

/* Sends what down[] holds to the client; arms the write event if it would
 * block.  -1 when the client failed (c refused and freed). */
static int flush_down(struct proxy_conn *c)
{
	while (c->down_off < c->down_len) {
		ssize_t n = send(c->client, c->down + c->down_off, c->down_len - c->down_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->down_off += (size_t)n;
			c->pre_down += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_del(c->ev_down);
			event_add(c->ev_down_w, NULL);
			return 0;
		}
		proxy_conn_refuse(c, POLICY_REASON_WRITE_FAILED);
		return -1;
	}
	c->down_off = c->down_len = 0;
	event_del(c->ev_down_w);
	if (c->relay_pending) {
		proxy_conn_relay(c);
		return -1;
	}
	if (!c->up_eof)
		event_add(c->ev_down, NULL);
	return 0;
}

static void on_down(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	(void)what;

	ssize_t n = recv(fd, c->down, PROXY_TLS_WIRE_MAX, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		proxy_conn_refuse(c, POLICY_REASON_RESET);
		return;
	}
	if (n == 0) {
		/* the server is done sending; the client may still speak */
		c->up_eof = true;
		event_del(c->ev_down);
		shutdown(c->client, SHUT_WR);
		return;
	}
	c->down_len = (size_t)n;
	c->down_off = 0;
	c->server_spoke = true;
	flush_down(c);
}

static void on_down_writable(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	flush_down(arg);
}

void proxy_check_sni_start(struct proxy_conn *c)
{
	struct proxy_core *p = c->p;

	c->state = PROXY_CONN_CHECK_SNI;
	c->peeked = 0;
	c->down = malloc(PROXY_TLS_WIRE_MAX);
	c->ev_down = event_new(p->base, c->upstream, EV_READ | EV_PERSIST, on_down, c);
	c->ev_down_w = event_new(p->base, c->client, EV_WRITE, on_down_writable, c);
	if (!c->down || !c->ev_down || !c->ev_down_w) {
		proxy_conn_refuse(c, POLICY_REASON_NO_MEMORY);
		return;
	}
	event_add(c->ev_read, NULL);
	event_add(c->ev_down, NULL);
	/* until the client's first byte, the idle limit; then the sniff deadline */
	arm(c->ev_sniff, p->limits.idle_timeout_ms);
}

static struct proxy_conn *conn_new(struct proxy_core *p, int fd,
				   const struct proxy_front_ops *ops)
{
	struct proxy_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->p = p;
	c->ops = ops;
	c->front = ops->front;
	c->state = PROXY_CONN_SNIFF;
	c->client = fd;
	c->upstream = -1;
	c->out_fd = -1;
	c->lowat = 1; /* socket(7): SO_RCVLOWAT's default */
	c->via_proxy = c->front != PROXY_FRONT_TRANSPARENT;
	c->started_ms = proxy_now_ms();
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->n_conns++;
	c->ev_read = event_new(p->base, fd, EV_READ | EV_PERSIST, on_client_read, c);
	c->ev_sniff = evtimer_new(p->base, on_sniff_deadline, c);
	c->ev_quiet = evtimer_new(p->base, on_quiet, c);
	if (!c->ev_read || !c->ev_sniff || !c->ev_quiet) {
		c->client = -1; /* stays the caller's */
		proxy_conn_free(c);
		return NULL;
	}
	return c;
}

void proxy_conn_owner(const struct proxy_core *p, int fd, struct decision_owner *out)
{
	struct sockaddr_storage peer, local;
	socklen_t pl = sizeof(peer), ll = sizeof(local);

	memset(out, 0, sizeof(*out));
	/* once, while the program surely still holds its end: a close
	 * record may come long after the program closed it */
	if (p->owner_fn && getpeername(fd, (struct sockaddr *)&peer, &pl) == 0 &&
	    getsockname(fd, (struct sockaddr *)&local, &ll) == 0)
		p->owner_fn(p->owner_arg, IPPROTO_TCP, (struct sockaddr *)&peer, pl,
			    (struct sockaddr *)&local, ll, out);
}

void proxy_conn_start(struct proxy_core *p, int fd, const struct proxy_front_ops *ops)
{
	struct proxy_conn *c = conn_new(p, fd, ops);
	if (!c) {
		log_msg(LOG_LEVEL_WARN, "no memory for a connection: dropped");
		close(fd);
		return;
	}
	ops->start(c);
}

void proxy_conn_free_all(struct proxy_core *p)
{
	while (p->conns)
		proxy_conn_free(p->conns);
}

/* ---- peeking ----------------------------------------------------------- */

ssize_t proxy_conn_peek(struct proxy_conn *c, size_t cap)
{
	if (cap > PROXY_TLS_WIRE_MAX)
		cap = PROXY_TLS_WIRE_MAX;
	for (;;) {
		ssize_t n = recv(c->client, c->p->scratch, cap, MSG_PEEK | MSG_DONTWAIT);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		return -errno;
	}
}

/* True when the client has sent its FIN (what MSG_PEEK cannot tell while
 * bytes are still queued): TCP_INFO's state is CLOSE_WAIT then. */
static bool client_closed(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return true;
	return ti.tcpi_state != TCP_ESTABLISHED;
}

void proxy_conn_want_more(struct proxy_conn *c, size_t have)
{
	/* Level-triggered readiness would fire again at once for the bytes
	 * already peeked; SO_RCVLOWAT (socket(7)) makes poll report readable
	 * only when more than `have` bytes are queued (or on EOF/error). */
	if (have > 0 && have == c->peeked && client_closed(c->client)) {
		/* no new bytes and the client is done sending: it vanished mid-handshake */
		stop_sniffing(c);
		log_msg(LOG_LEVEL_DEBUG, "client closed before its first bytes decided");
		proxy_conn_free(c);
		return;
	}
	if (c->state == PROXY_CONN_CHECK_SNI && have > 0 && !c->first_seen) {
		c->first_seen = true;
		arm(c->ev_sniff, c->p->limits.sniff_timeout_ms);
	}
	int lowat = (int)have + 1;
	if (lowat != c->lowat &&
	    setsockopt(c->client, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat)) == 0)
		c->lowat = lowat;
	c->peeked = have;
	ask_owner(c);
	event_add(c->ev_read, NULL);
}

int proxy_conn_consume(struct proxy_conn *c, size_t n)
{
	uint8_t sink[512];
	while (n > 0) {
		ssize_t r = recv(c->client, sink, n < sizeof(sink) ? n : sizeof(sink), MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		n -= (size_t)r;
	}
	return 0;
}

/* ---- writing a reply or a head ----------------------------------------- */

static void on_writable(evutil_socket_t fd, short what, void *arg);

static void write_step(struct proxy_conn *c, void (*then)(struct proxy_conn *c))
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->out_fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += (size_t)n;
			if (c->out_fd == c->upstream)
				c->pre_up += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			event_add(c->ev_write, NULL);
			return;
		}
		proxy_conn_refuse(c, POLICY_REASON_WRITE_FAILED);
		return;
	}
	if (c->ev_write)
		event_del(c->ev_write);
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	then(c);
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_conn *c = arg;
	(void)fd;
	(void)what;
	write_step(c, c->then);
}

int proxy_conn_write(struct proxy_conn *c, int fd, const void *buf, size_t len,
		     void (*then)(struct proxy_conn *c))
{
	c->out = malloc(len ? len : 1);
	if (!c->out) {
		proxy_conn_refuse(c, POLICY_REASON_NO_MEMORY);
		return -ENOMEM;
	}
	memcpy(c->out, buf, len);
	c->out_len = len;
	c->out_off = 0;
	c->out_fd = fd;
	c->then = then;
	c->state = PROXY_CONN_REPLY;
	if (c->ev_write)
		event_free(c->ev_write);
	c->ev_write = event_new(c->p->base, fd, EV_WRITE, on_writable, c);
	if (!c->ev_write) {
		proxy_conn_refuse(c, POLICY_REASON_NO_MEMORY);
		return -ENOMEM;
	}
	write_step(c, then);
	return 0;
}

/* ---- audit helpers ------------------------------------------------------ */

/* The address a refusal or an allow is about, for dst and hints. */
static const struct policy_addr *conn_addr(const struct proxy_conn *c)
{
	if (c->target.has_addr)
		return &c->target.addr;
	if (c->has_dialled)
		return &c->dialled;
	return NULL;
}

static uint16_t conn_port(const struct proxy_conn *c)
{
	return c->target.port ? c->target.port : c->dialled_port;
}

/* The record of c's decision: what the connection showed, and what a hint
 * may name (the address a name resolved to, for a default-denied one). */
static void fill_decision(const struct proxy_conn *c, enum policy_reason reason,
			  struct decision *d, char dst[PROXY_DST_STRLEN])
{
	memset(d, 0, sizeof(*d));
	d->kind = c->front == PROXY_FRONT_TRANSPARENT ? DECISION_KIND_CONNECT : DECISION_KIND_PROXY;
	d->reason = reason;
	d->pid = c->owner.pid;
	d->comm = c->owner.comm[0] ? c->owner.comm : NULL;
	if (c->has_dialled)
		d->dst = decision_format_dst(&c->dialled, c->dialled_port, dst);
	else if (c->target.has_addr)
		d->dst = decision_format_dst(&c->target.addr, c->target.port, dst);
	if (c->target.has_name) {
		d->host = c->target.name;
		d->host_len = strlen(c->target.name);
	} else if (c->raw_len) {
		d->host = c->raw;
		d->host_len = c->raw_len;
	}
	if (c->sni_len) {
		d->sni = c->sni;
		d->sni_len = c->sni_len;
	}
	d->rule = c->rule ? c->rule->text : NULL;
	d->detail = c->detail[0] ? c->detail : NULL;
	d->hint_name = c->target.has_name ? c->target.name : NULL;
	/* refused after resolving: the address the name resolved to */
	d->hint_addr = reason == POLICY_REASON_DENIED_ADDRESS && c->denied_seen ? &c->denied_addr
										 : conn_addr(c);
	d->port = conn_port(c);
}

static void record(struct proxy_core *p, const struct decision *d)
{
	if (decision_log_record(p->log, d) < 0)
		log_msg(LOG_LEVEL_WARN, "cannot write the audit record: %s", strerror(errno));
}

void proxy_conn_refuse(struct proxy_conn *c, enum policy_reason reason)
{
	struct decision d;
	char dst[PROXY_DST_STRLEN], hint[POLICY_HINT_MAX], label[POLICY_NAME_MAX + 8];

	ask_owner(c);
	fill_decision(c, reason, &d, dst);
	/* stderr and the summary name the destination as the program did */
	size_t ll = 0;
	uint16_t port = conn_port(c);
	const struct policy_addr *a = conn_addr(c);
	if (c->target.has_name)
		ll = (size_t)snprintf(label, sizeof(label), "%s:%u", c->target.name, port);
	else if (c->raw_len && !c->target.has_addr && port)
		ll = (size_t)snprintf(label, sizeof(label), "%.*s:%u", (int)c->raw_len, c->raw, port);
	else if (c->raw_len && !c->target.has_addr)
		ll = (size_t)snprintf(label, sizeof(label), "%.*s", (int)c->raw_len, c->raw);
	else if (a)
		ll = strlen(decision_format_dst(a, port, label));
	if (ll >= sizeof(label))
		ll = sizeof(label) - 1;
	d.label = label;
	d.label_len = ll;
	record(c->p, &d);

	const char *h = decision_log_hint(c->p->log, &d, hint, sizeof(hint)) ? hint : NULL;
	bool answered = c->client >= 0 && !c->replied && c->ops->refused &&
			c->ops->refused(c, reason, h);
	/* Otherwise a TCP RST (SO_LINGER 0, socket(7)): the program sees the
	 * refusal at once.  Nothing was ever sent upstream. */
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	if (c->client >= 0 && !answered)
		setsockopt(c->client, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (c->upstream >= 0)
		setsockopt(c->upstream, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	proxy_conn_free(c);
}

/* Names the secret whose placeholder was found (its NAME, never a value). */
static void secret_detail(struct proxy_conn *c, size_t which)
{
	const char *name = which < c->p->n_secrets ? c->p->secrets[which].name : NULL;
	snprintf(c->detail, sizeof(c->detail), "the placeholder of %s, a secret for other hosts",
		 name ? name : "a --secret");
}

static bool found_secret(struct proxy_conn *c, const uint8_t *buf, size_t n, bool head,
			 size_t *which)
{
	struct proxy_core *p = c->p;
	if (!p->n_secrets)
		return false;
	return head ? proxy_secret_find_head(p->secrets, p->n_secrets, buf, n, which) :
		      proxy_secret_find(p->secrets, p->n_secrets, buf, n, PROXY_SECRET_FIND_PCT,
					which);
}

bool proxy_conn_tripwire(struct proxy_conn *c, const uint8_t *buf, size_t n, bool head)
{
	size_t which = 0;
	if (!found_secret(c, buf, n, head, &which))
		return false;
	secret_detail(c, which);
	proxy_conn_refuse(c, POLICY_REASON_SECRET_ELSEWHERE);
	return true;
}

static void write_allow(struct proxy_conn *c)
{
	struct decision d;
	char dst[PROXY_DST_STRLEN], up[PROXY_DST_STRLEN];

	if (!decision_log_keeps(c->p->log, POLICY_REASON_ALLOW))
		return; /* nothing to write it to: not built on the dial's path */
	fill_decision(c, POLICY_REASON_ALLOW, &d, dst);
	d.upstream = decision_format_dst(&c->upstream_addr, conn_port(c), up);
	if (!d.dst)
		d.dst = d.upstream; /* a proxied name: where it went */
	record(c->p, &d);
}

/* ---- relay -------------------------------------------------------------- */

static enum policy_reason end_reason(enum proxy_relay_end end)
{
	switch (end) {
	case PROXY_RELAY_CLOSED: return POLICY_REASON_CLOSED;
	case PROXY_RELAY_RESET: return POLICY_REASON_CLOSED_RESET;
	case PROXY_RELAY_IDLE: return POLICY_REASON_CLOSED_IDLE;
	case PROXY_RELAY_NO_MEMORY: return POLICY_REASON_CLOSED_NO_MEMORY;
	case PROXY_RELAY_REFUSED: return POLICY_REASON_CLOSED_REFUSED;
	}
	return POLICY_REASON_CLOSED;
}

static void on_relay_done(enum proxy_relay_end end, const struct proxy_relay_stats *st, void *arg)
{
	struct proxy_conn *c = arg;
	struct decision d;
	char dst[PROXY_DST_STRLEN], up[PROXY_DST_STRLEN];

	c->relay = NULL;
	if (!decision_log_keeps(c->p->log, end_reason(end))) {
		proxy_conn_free(c);
		return;
	}
	fill_decision(c, end_reason(end), &d, dst);
	d.upstream = decision_format_dst(&c->upstream_addr, conn_port(c), up);
	if (!d.dst)
		d.dst = d.upstream;
	d.closing = true;
	d.bytes_up = st->bytes_up + c->pre_up;
	d.bytes_down = st->bytes_down + c->pre_down;
	d.duration_ms = st->duration_ms;
	record(c->p, &d);
	proxy_conn_free(c);
}

/* A refusal in the middle of a relay (the gate's): the record names what
 * the refused request named, with no hint; the relay resets both sides and
 * its close record follows. */
static void refuse_in_relay(struct proxy_conn *c, enum policy_reason reason,
			    const struct proxy_http_head *h)
{
	struct decision d;
	char dst[PROXY_DST_STRLEN], up[PROXY_DST_STRLEN];

	fill_decision(c, reason, &d, dst);
	d.upstream = decision_format_dst(&c->upstream_addr, conn_port(c), up);
	if (!d.dst)
		d.dst = d.upstream;
	if (h && h->host_value.n) {
		d.host = (const char *)h->host_value.p;
		d.host_len = h->host_value.n;
		d.label = d.host;
		d.label_len = d.host_len < POLICY_NAME_MAX + 7 ? d.host_len : POLICY_NAME_MAX + 7;
	}
	d.rule = NULL;
	d.hint_name = NULL;
	d.hint_addr = NULL;
	record(c->p, &d);
}

/* A later request's Host (and target) name the host and port the first
 * request did, compared canonical (the first one sets the port). */
static bool same_authority(struct proxy_conn *c, const struct proxy_http_head *h)
{
	struct policy_net_target t;

	if ((h->form == PROXY_HTTP_FORM_ABSOLUTE || h->form == PROXY_HTTP_FORM_AUTHORITY) &&
	    !proxy_http_target_matches_host(h))
		return false;
	if (policy_net_target_parse(h->host.host.p, h->host.host.n, &t) != POLICY_NET_TARGET_OK)
		return false;
	bool same = false;
	if (c->target.has_name)
		same = !t.is_addr && strcmp(t.name, c->target.name) == 0;
	else if (c->target.has_addr)
		same = t.is_addr && policy_addr_equal(&t.addr, &c->target.addr);
	/* RFC 9110 §4.2.1: http without a port means 80 */
	uint16_t port = h->host.port ? h->host.port : 80;
	if (!c->hs_port_set) {
		c->hs_port_set = true;
		c->hs_port = port;
	}
	return same && port == c->hs_port;
}

/* A later request to the HTTP proxy on a kept-alive connection (its head
 * at buf[0..)): forwarded in origin-form without the proxy's fields, as
 * the first was (front_http.c).  A CONNECT there is refused: the framer
 * would have to go opaque after it. */
static enum proxy_relay_gate_verdict forward_later(struct proxy_conn *c, const uint8_t *buf,
						   const struct proxy_http_head *h, size_t *pass,
						   struct proxy_relay_replacement *repl)
{
	if (h->form == PROXY_HTTP_FORM_AUTHORITY) {
		refuse_in_relay(c, POLICY_REASON_MALFORMED_HTTP, h);
		return PROXY_RELAY_GATE_STOP;
	}
	size_t cap = proxy_http_forward_max(h);
	uint8_t *out = malloc(cap);
	if (!out) {
		refuse_in_relay(c, POLICY_REASON_NO_MEMORY, h);
		return PROXY_RELAY_GATE_STOP;
	}
	repl->bytes = out;
	repl->len = proxy_http_forward_head(buf, h, out, cap, NULL);
	struct proxy_http_head framing = proxy_http_forward_framing(h);
	proxy_http_stream_accept(&c->hs, &framing);
	*pass = h->head_len;
	return PROXY_RELAY_GATE_REPLACE;
}

/* The relay's gate on plain HTTP: frames the client's requests and lets
 * through only those naming the connection's host (escape corpus row 47);
 * on the HTTP proxy's connections each head is forwarded in origin-form. */
static enum proxy_relay_gate_verdict http_gate(const uint8_t *buf, size_t len, size_t *pass,
					       struct proxy_relay_replacement *repl, void *arg)
{
	struct proxy_conn *c = arg;
	size_t off = 0;

	while (off < len) {
		struct proxy_http_head h;
		size_t used = 0;
		enum policy_reason reason = POLICY_REASON_ALLOW;
		switch (proxy_http_stream_feed(&c->hs, buf + off, len - off, &used, &h)) {
		case PROXY_HS_PASS:
			off += used;
			continue;
		case PROXY_HS_NEED_MORE:
			if (len >= PROXY_RELAY_GATE_MAX && off == 0)
				reason = POLICY_REASON_TOO_BIG; /* cannot happen below the caps; never wait forever */
			break;
		case PROXY_HS_HEAD: {
			size_t which = 0;
			if (found_secret(c, buf + off, h.head_len, true, &which)) {
				secret_detail(c, which);
				refuse_in_relay(c, POLICY_REASON_SECRET_ELSEWHERE, &h);
				return PROXY_RELAY_GATE_STOP;
			}
			/* framed by an IP/CIDR rule only for the tripwire: that
			 * rule allows whatever the bytes name */
			if (!c->http_absolute && is_addr_rule(c->rule)) {
				proxy_http_stream_accept(&c->hs, &h);
				off += used;
				continue;
			}
			if (!same_authority(c, &h)) {
				refuse_in_relay(c, POLICY_REASON_HOST_CHANGED, &h);
				return PROXY_RELAY_GATE_STOP;
			}
			if (c->http_absolute) {
				if (off > 0)
					break; /* what comes before the head goes first */
				return forward_later(c, buf, &h, pass, repl);
			}
			proxy_http_stream_accept(&c->hs, &h);
			off += used;
			continue;
		}
		case PROXY_HS_MALFORMED: reason = POLICY_REASON_MALFORMED_HTTP; break;
		case PROXY_HS_TOO_BIG: reason = POLICY_REASON_TOO_BIG; break;
		case PROXY_HS_NO_HOST: reason = POLICY_REASON_NO_HOST; break;
		case PROXY_HS_DUPLICATE_HOST: reason = POLICY_REASON_DUPLICATE_HOST; break;
		}
		if (reason != POLICY_REASON_ALLOW) {
			refuse_in_relay(c, reason, NULL);
			return PROXY_RELAY_GATE_STOP;
		}
		break;
	}
	/* What follows the view and needs no look (the rest of a body of
	 * declared length, of a chunk's data, or an opaque stream) goes
	 * unpeeked: peeking it only to pass it copied every body out of the
	 * socket, a recv(2) of up to PROXY_RELAY_GATE_MAX bytes for each
	 * splice(2) (docs/benchmarks/relay.md) */
	if (off == len) {
		uint64_t unseen = proxy_http_stream_unseen(&c->hs);
		uint64_t more = unseen < (uint64_t)(SIZE_MAX - off) ? unseen : SIZE_MAX - off;
		proxy_http_stream_skip(&c->hs, more);
		off += (size_t)more;
	}
	*pass = off;
	return PROXY_RELAY_GATE_PASS;
}

/* ---- terminated connections (terminate.h) ---------------------------------- */

static void on_term_done(enum proxy_relay_end end, const struct proxy_relay_stats *st, void *arg)
{
	struct proxy_conn *c = arg;
	c->term = NULL;
	c->relay = NULL;
	on_relay_done(end, st, c);
}

/* One request on a terminated connection, in the decision log (kind
 * "http": method, path, the rule that allowed it or why it was refused,
 * and the --allow-http rule that would allow a refused one). */
static void record_http(struct proxy_conn *c, const struct proxy_term_event *ev,
			enum policy_reason reason)
{
	struct decision d;
	char dst[PROXY_DST_STRLEN], up[PROXY_DST_STRLEN];
	char hint[POLICY_HTTP_RULE_TEXT_MAX + 32], label[POLICY_NAME_MAX + 96], detail[512];

	fill_decision(c, reason, &d, dst);
	d.kind = DECISION_KIND_HTTP;
	d.upstream = decision_format_dst(&c->upstream_addr, conn_port(c), up);
	if (!d.dst)
		d.dst = d.upstream;
	d.method = (const char *)ev->method;
	d.method_len = ev->method ? ev->method_len : 0;
	d.path = (const char *)ev->target;
	d.path_len = ev->target ? ev->target_len : 0;
	if (ev->kind == PROXY_TERM_REQUEST) {
		d.rule = ev->rule_text ? ev->rule_text : d.rule;
	} else {
		const char *w = ev->why ? ev->why : "";
		if (strncmp(w, "porta: ", 7) == 0)
			w += 7;
		snprintf(detail, sizeof(detail), "%s", w);
		size_t dl = strlen(detail);
		if (dl && detail[dl - 1] == '\n')
			detail[dl - 1] = '\0';
		d.rule = NULL;
		d.detail = detail;
		if (ev->suggestion) {
			snprintf(hint, sizeof(hint), "--allow-http '%s'", ev->suggestion);
			d.hint_text = hint;
		}
		/* stderr and the summary name the request: METHOD SCHEME://HOST/PATH
		 * (a failed verification has said it already, with its reason) */
		int n = snprintf(label, sizeof(label), "%.*s %s://%s%.*s", (int)d.method_len,
				 d.method ? d.method : "", c->term_tls ? "https" : "http",
				 c->target.has_name ? c->target.name : "",
				 (int)(d.path_len > 64 ? 64 : d.path_len), d.path ? d.path : "");
		d.label = label;
		d.label_len = reason == POLICY_REASON_UPSTREAM_UNVERIFIED || n < 0 ? 0 :
			      (size_t)n < sizeof(label) ? (size_t)n : sizeof(label) - 1;
	}
	record(c->p, &d);
}

/* What porta did on a terminated connection: the decision log for each
 * request, stderr for what the log cannot say. */
static void on_term_event(const struct proxy_term_event *ev, void *arg)
{
	struct proxy_conn *c = arg;
	const char *host = c->target.has_name ? c->target.name : "";

	switch (ev->kind) {
	case PROXY_TERM_REQUEST:
		record_http(c, ev, POLICY_REASON_ALLOW);
		break;
	case PROXY_TERM_REFUSED:
		record_http(c, ev, ev->reason);
		break;
	case PROXY_TERM_SECRET_ELSEWHERE:
		break; /* the refusal that follows records it */
	case PROXY_TERM_CLIENT_TLS:
		/* why names the client's refusal and its likely cause already
		 * (tls/verify.h) */
		log_msg(LOG_LEVEL_WARN, "%s: the program's TLS handshake with porta failed: %s; drop "
			"--secret and --allow-http for this host to splice it", host,
			ev->why ? ev->why : "");
		break;
	case PROXY_TERM_UPSTREAM_TLS:
		log_msg(LOG_LEVEL_WARN, "%s: the server could not be verified: %s", host,
			ev->why ? ev->why : "");
		break;
	}
}

/* A decided connection to a terminated endpoint: the terminating relay
 * instead of the splice.  False when the endpoint is not terminated. */
/* The terminated endpoint c goes to: by its name, else by the address it
 * goes to (an http:// rule may name an address, and a request naming any
 * host to that address is held to it: the relay then refuses a Host other
 * than the address). */
static bool term_params(struct proxy_conn *c, struct proxy_term_params *prm)
{
	if (!c->p->term_fn)
		return false;
	if (c->target.has_name &&
	    policy_net_target_parse((const uint8_t *)c->target.name, strlen(c->target.name),
				    &c->term_host) == POLICY_NET_TARGET_OK &&
	    c->p->term_fn(c->p->term_arg, &c->term_host, conn_port(c), prm))
		return true;
	const struct policy_addr *a = conn_addr(c);
	if (!a)
		return false;
	memset(&c->term_host, 0, sizeof(c->term_host));
	c->term_host.is_addr = true;
	c->term_host.addr = *a;
	return c->p->term_fn(c->p->term_arg, &c->term_host, conn_port(c), prm);
}

bool proxy_conn_terminated(struct proxy_conn *c)
{
	struct proxy_term_params prm;
	return term_params(c, &prm);
}

static bool relay_terminated(struct proxy_conn *c, int client, int upstream)
{
	struct proxy_term_params prm;

	if (!term_params(c, &prm))
		return false;
	prm.proxied = c->term_proxied;
	c->term_tls = prm.server != NULL;
	c->term = proxy_term_start(c->p->base, client, upstream, &prm,
				   c->p->limits.idle_timeout_ms, on_term_event, on_term_done, c);
	if (!c->term) {
		log_msg(LOG_LEVEL_WARN, "cannot terminate a connection: %s", strerror(errno));
		proxy_conn_free(c);
	}
	return true;
}

void proxy_conn_relay(struct proxy_conn *c)
{
	int one = 1;

	stop_sniffing(c);
	if (c->ev_down)
		event_del(c->ev_down);
	if (c->down_off < c->down_len) {
		/* the server's first words are still on their way down: they
		 * go before anything the relay carries */
		c->relay_pending = true;
		event_add(c->ev_down_w, NULL);
		return;
	}
	/* the server's first words are all down: what carried them is done
	 * with, and held for the connection's life it was most of an idle
	 * tunnel's memory (docs/benchmarks/relay-idle.md) */
	if (c->ev_down) {
		event_free(c->ev_down);
		c->ev_down = NULL;
	}
	if (c->ev_down_w) {
		event_free(c->ev_down_w);
		c->ev_down_w = NULL;
	}
	free(c->down);
	c->down = NULL;
	if (c->ev_write)
		event_del(c->ev_write);
	/* the relay's splice(2) reads must not wait for a low-water mark */
	if (c->lowat != one)
		setsockopt(c->client, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof(one));
	c->state = PROXY_CONN_RELAY;
	int client = c->client, upstream = c->upstream;
	c->client = c->upstream = -1;
	if (relay_terminated(c, client, upstream))
		return;
	c->relay = proxy_relay_start(c->p->base, &c->p->pipes, client, upstream,
				     c->p->limits.idle_timeout_ms, on_relay_done, c);
	if (!c->relay) {
		log_msg(LOG_LEVEL_WARN, "cannot relay a connection: %s", strerror(errno));
		proxy_conn_free(c);
		return;
	}
	/* an IP/CIDR rule allowed the address, whatever the bytes name; but
	 * a proxy request is forwarded head by head whatever allowed it, and
	 * with secrets every head is searched for their placeholders */
	if (c->http_framed && (c->http_absolute || !is_addr_rule(c->rule) || c->p->n_secrets) &&
	    proxy_relay_set_gate(c->relay, http_gate, c) < 0) {
		log_msg(LOG_LEVEL_WARN, "no memory to frame a connection's requests: dropped");
		proxy_conn_free(c); /* aborts the relay, whose callback frees c */
	}
}

/* ---- dial ---------------------------------------------------------------- */

static void on_dialled(int fd, size_t index, int err, void *arg)
{
	struct proxy_conn *c = arg;

	c->dial = NULL;
	if (fd < 0) {
		char d[PROXY_DST_STRLEN];
		log_msg(LOG_LEVEL_DEBUG, "dial %s: %s",
			decision_format_dst(&c->cand[c->n_cand - 1], conn_port(c), d), strerror(-err));
		proxy_conn_refuse(c, POLICY_REASON_DIAL_FAILED);
		return;
	}
	c->upstream = fd;
	c->upstream_addr = c->cand[index];
	write_allow(c);
	c->ops->connected(c);
}

static void dial_cands(struct proxy_conn *c)
{
	c->state = PROXY_CONN_DIAL;
	c->dial = proxy_dial_start(c->p->base, c->cand, c->n_cand, conn_port(c),
				   c->p->limits.dial_timeout_ms, on_dialled, c);
	if (!c->dial) {
		proxy_conn_refuse(c, POLICY_REASON_DIAL_FAILED);
		return;
	}
	ask_owner(c); /* while the dial is on its way */
}

static void dial_one(struct proxy_conn *c, const struct policy_addr *a)
{
	c->cand[0] = *a;
	c->n_cand = 1;
	dial_cands(c);
}

/* ---- resolve ------------------------------------------------------------ */

static void resolved(struct proxy_conn *c)
{
	struct policy_net_query q = {
		.name = c->target.name,
		.port = conn_port(c),
		.via_proxy = c->via_proxy,
		.host_addrs = c->p->host_addrs,
		.n_host_addrs = c->p->n_host_addrs,
	};
	struct policy_net_decision d;

	c->n_cand = 0;
	/* A answers first, then AAAA; every address is decided again with the
	 * name: default-denied classes only through an explicit IP/CIDR rule,
	 * and deny rules on addresses apply (docs/design.md, Network) */
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; i < c->res_n[f]; i++) {
			q.addr = &c->res_addrs[f][i];
			if (policy_net_decide(c->p->rules, c->p->n_rules, &q, &d) ==
			    POLICY_NET_ALLOWED) {
				c->cand[c->n_cand++] = c->res_addrs[f][i];
			} else if (!c->denied_seen) {
				c->denied_seen = true;
				c->denied_addr = c->res_addrs[f][i];
			}
		}
	}
	if (c->n_cand > 0) {
		dial_cands(c);
		return;
	}
	if (c->denied_seen)
		proxy_conn_refuse(c, POLICY_REASON_DENIED_ADDRESS);
	else
		proxy_conn_refuse(c, POLICY_REASON_RESOLVE_FAILED);
}

static void on_resolved(bool ok, const struct policy_addr *addrs, size_t n, void *arg, int f)
{
	struct proxy_conn *c = arg;
	c->res[f] = NULL;
	c->res_ok[f] = ok;
	c->res_n[f] = n > PROXY_RESOLVE_MAX ? PROXY_RESOLVE_MAX : n;
	memcpy(c->res_addrs[f], addrs, c->res_n[f] * sizeof(*addrs));
	if (--c->res_pending == 0)
		resolved(c);
}

static void on_resolved_a(bool ok, const struct policy_addr *addrs, size_t n, void *arg)
{
	on_resolved(ok, addrs, n, arg, 0);
}

static void on_resolved_aaaa(bool ok, const struct policy_addr *addrs, size_t n, void *arg)
{
	on_resolved(ok, addrs, n, arg, 1);
}

static void resolve_name(struct proxy_conn *c)
{
	c->state = PROXY_CONN_RESOLVE;
	/* both families answered within their TTL: no round trip upstream
	 * (a registry's hundred connections ask it once) */
	if (proxy_resolve_kept(c->p->answers, c->target.name, DNSD_TYPE_A, c->res_addrs[0],
			       &c->res_n[0]) &&
	    proxy_resolve_kept(c->p->answers, c->target.name, DNSD_TYPE_AAAA, c->res_addrs[1],
			       &c->res_n[1])) {
		c->res_ok[0] = c->res_ok[1] = true;
		c->res_pending = 0;
		resolved(c);
		return;
	}
	ask_owner(c); /* while the answers are on their way */
	c->res_pending = 2;
	c->res[0] = proxy_resolve_start(c->p->upstream, c->p->answers, c->target.name,
					DNSD_TYPE_A, on_resolved_a, c);
	if (!c->res[0])
		c->res_pending--;
	c->res[1] = proxy_resolve_start(c->p->upstream, c->p->answers, c->target.name,
					DNSD_TYPE_AAAA, on_resolved_aaaa, c);
	if (!c->res[1])
		c->res_pending--;
	if (c->res_pending == 0)
		proxy_conn_refuse(c, POLICY_REASON_RESOLVE_FAILED);
}

/* True when porta's own resolver handed `a` out for `name` (and it has not
 * expired): only then may the address the program chose be dialled for a
 * name decision. */
static bool map_says(struct proxy_core *p, const struct policy_addr *a, const char *name)
{
	struct dnsd_namemap_name names[16];
	if (!p->map)
		return false;
	size_t n = dnsd_namemap_lookup(p->map, a, proxy_now_ms(), names, 16);
	for (size_t i = 0; i < n && i < 16; i++)
		if (strcmp(names[i].name, name) == 0)
			return true;
	return false;
}

/* ---- decide -------------------------------------------------------------- */

void proxy_conn_decide(struct proxy_conn *c)
{
	struct proxy_core *p = c->p;
	struct policy_net_decision d;
	struct policy_net_query q = {
		.name = c->target.has_name ? c->target.name : NULL,
		.port = conn_port(c),
		.via_proxy = c->via_proxy,
		.host_addrs = p->host_addrs,
		.n_host_addrs = p->n_host_addrs,
	};

	stop_sniffing(c);
	/* a placeholder in what names the destination goes nowhere: the
	 * destination is not the host its secret is for (case, percent and
	 * dots are looked through: a resolver or a server reads them so) */
	size_t which = 0;
	if (p->n_secrets &&
	    (proxy_secret_find(p->secrets, p->n_secrets, (const uint8_t *)c->raw, c->raw_len,
			       PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT, &which) ||
	     proxy_secret_find(p->secrets, p->n_secrets, (const uint8_t *)c->sni, c->sni_len,
			       PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT, &which) ||
	     (c->target.has_name &&
	      proxy_secret_find(p->secrets, p->n_secrets, (const uint8_t *)c->target.name,
				strlen(c->target.name), PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT,
				&which)))) {
		secret_detail(c, which);
		proxy_conn_refuse(c, POLICY_REASON_SECRET_ELSEWHERE);
		return;
	}
	/* an address target is decided on that address; a name on the
	 * transparent path with the address the program dialled (a name rule
	 * never reaches a default-denied address) */
	if (c->target.has_addr)
		q.addr = &c->target.addr;
	else if (c->has_dialled)
		q.addr = &c->dialled;
	if (!q.name && !q.addr) {
		proxy_conn_refuse(c, POLICY_REASON_NO_RULE);
		return;
	}
	enum policy_net_verdict v = policy_net_decide(p->rules, p->n_rules, &q, &d);
	c->rule = d.rule;
	if (v != POLICY_NET_ALLOWED) {
		proxy_conn_refuse(c, policy_reason_of_net(&d));
		return;
	}
	if (is_addr_rule(d.rule) || !q.name) {
		/* an IP/CIDR rule allowed this very address */
		dial_one(c, q.addr);
		return;
	}
	if (c->has_dialled && !c->target.has_addr && map_says(p, &c->dialled, c->target.name)) {
		dial_one(c, &c->dialled);
		return;
	}
	/* never the address the program chose because a name was allowed */
	resolve_name(c);
}

void proxy_conn_decide_by_address(struct proxy_conn *c)
{
	struct proxy_core *p = c->p;
	struct policy_net_decision d;
	struct dnsd_namemap_name names[16];
	const struct policy_net_rule *allow = NULL;
	const char *allow_name = NULL;
	struct policy_net_query q = {
		.addr = &c->dialled,
		.port = c->dialled_port,
		.host_addrs = p->host_addrs,
		.n_host_addrs = p->n_host_addrs,
	};

	stop_sniffing(c);
	/* docs/design.md: a connection without SNI or Host is allowed only by the
	 * DNS mapping or by an IP/CIDR rule.  Every name porta handed this
	 * address out for is decided; a deny for any of them refuses (the
	 * bytes cannot say which of them the program meant). */
	size_t n = p->map ? dnsd_namemap_lookup(p->map, &c->dialled, proxy_now_ms(), names, 16) : 0;
	for (size_t i = 0; i < n && i < 16; i++) {
		q.name = names[i].name;
		enum policy_net_verdict v = policy_net_decide(p->rules, p->n_rules, &q, &d);
		if (v == POLICY_NET_DENIED) {
			c->target.has_name = true;
			copy_name(c->target.name, sizeof(c->target.name), names[i].name);
			c->rule = d.rule;
			proxy_conn_refuse(c, POLICY_REASON_DENY_RULE);
			return;
		}
		if (v == POLICY_NET_ALLOWED && !allow) {
			allow = d.rule;
			allow_name = names[i].name;
		}
	}
	q.name = NULL;
	enum policy_net_verdict v = policy_net_decide(p->rules, p->n_rules, &q, &d);
	if (v == POLICY_NET_DENIED) {
		c->rule = d.rule;
		proxy_conn_refuse(c, POLICY_REASON_DENY_RULE);
		return;
	}
	if (allow) {
		c->target.has_name = true;
		copy_name(c->target.name, sizeof(c->target.name), allow_name);
		c->rule = allow;
	} else if (v == POLICY_NET_ALLOWED) {
		c->rule = d.rule;
	} else {
		c->rule = NULL;
		proxy_conn_refuse(c, policy_reason_of_net(&d));
		return;
	}
	dial_one(c, &c->dialled);
}

/* ---- the SNI after a CONNECT or SOCKS reply ------------------------------ */

/* True when the name as sent reads as the canonical name `want`. */
static bool same_name(const char *raw, size_t len, const char *want)
{
	struct policy_net_target t;
	return policy_net_target_parse((const uint8_t *)raw, len, &t) == POLICY_NET_TARGET_OK &&
	       !t.is_addr && strcmp(t.name, want) == 0;
}

/* The transparent rules for an HTTP head, against the host decided on. */
static void check_http(struct proxy_conn *c, size_t n)
{
	struct proxy_http_head h;

	switch (proxy_http_parse_head(c->p->scratch, n, &h)) {
	case PROXY_HTTP_NEED_MORE:
		proxy_conn_want_more(c, n);
		return;
	case PROXY_HTTP_NOT_HTTP:
		proxy_conn_relay(c);
		return;
	case PROXY_HTTP_MALFORMED:
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_HTTP);
		return;
	case PROXY_HTTP_TOO_BIG:
		proxy_conn_refuse(c, POLICY_REASON_TOO_BIG);
		return;
	case PROXY_HTTP_HOST_MISSING:
		proxy_conn_refuse(c, POLICY_REASON_NO_HOST);
		return;
	case PROXY_HTTP_HOST_DUPLICATE:
		proxy_conn_refuse(c, POLICY_REASON_DUPLICATE_HOST);
		return;
	case PROXY_HTTP_OK:
		break;
	}
	if (proxy_conn_tripwire(c, c->p->scratch, h.head_len, true))
		return;
	if (((h.form != PROXY_HTTP_FORM_ABSOLUTE && h.form != PROXY_HTTP_FORM_AUTHORITY) ||
	     proxy_http_target_matches_host(&h)) &&
	    c->target.has_name && same_name((const char *)h.host.host.p, h.host.host.n, c->target.name)) {
		c->http_framed = true; /* and every later request (row 47) */
		proxy_http_stream_init(&c->hs);
		proxy_conn_relay(c);
		return;
	}
	proxy_conn_refuse(c, POLICY_REASON_HOST_MISMATCH);
}

/* Keeps the name as sent (for the audit) and reads it as a target: a
 * canonical name, or an address spelled as a name ("127.1"). */
bool proxy_conn_take_name(struct proxy_conn *c, const uint8_t *name, size_t len)
{
	struct policy_net_target t;

	c->raw_len = len < sizeof(c->raw) ? len : sizeof(c->raw) - 1;
	memcpy(c->raw, name, c->raw_len);
	c->raw[c->raw_len] = '\0';
	if (policy_net_target_parse(name, len, &t) != POLICY_NET_TARGET_OK)
		return false;
	if (t.is_addr) {
		c->target.has_addr = true;
		c->target.addr = t.addr;
	} else {
		c->target.has_name = true;
		memcpy(c->target.name, t.name, sizeof(c->target.name));
	}
	return true;
}

static void check_sni_readable(struct proxy_conn *c)
{
	struct proxy_tls_hello hello;
	ssize_t n = proxy_conn_peek(c, PROXY_TLS_WIRE_MAX);

	if (n == -EAGAIN) {
		proxy_conn_want_more(c, c->peeked);
		return;
	}
	if (n <= 0) {
		/* the client is done (or gone) before sending anything: the relay
		 * carries the EOF and writes the close record */
		proxy_conn_relay(c);
		return;
	}
	if (proxy_conn_tripwire(c, c->p->scratch, (size_t)n, false))
		return;
	/* Transparent (decided before the client spoke): the bytes must show
	 * what they would have had to show at once, naming the host decided
	 * on; an IP/CIDR rule for the address allows any bytes. */
	bool strict = c->front == PROXY_FRONT_TRANSPARENT && !is_addr_rule(c->rule);
	switch (proxy_sniff_tls(c->p->scratch, (size_t)n, &hello)) {
	case SNIFF_OK:
		c->sni_len = hello.sni_len;
		memcpy(c->sni, hello.sni, hello.sni_len + 1);
		if (c->front == PROXY_FRONT_TRANSPARENT && !strict) {
			proxy_conn_relay(c);
			return;
		}
		/* the SNI must name the CONNECT host, compared canonical; an
		 * address target has no name an SNI could repeat */
		if (c->target.has_name && same_name(hello.sni, hello.sni_len, c->target.name)) {
			proxy_conn_relay(c);
			return;
		}
		proxy_conn_refuse(c, POLICY_REASON_SNI_MISMATCH);
		return;
	case SNIFF_NO_SNI:
		/* After a CONNECT or SOCKS request for a NAME, the hello must
		 * name that host (docs/design.md): one without SNI gets the server's
		 * default certificate, another tenant of a shared front.  An
		 * address target, or an IP rule transparently, names no host. */
		if (strict || (c->front != PROXY_FRONT_TRANSPARENT && c->target.has_name))
			proxy_conn_refuse(c, POLICY_REASON_NO_SNI);
		else
			proxy_conn_relay(c); /* allowed by the rule that allowed the target */
		return;
	case SNIFF_NOT_TLS:
		/* Plain HTTP must name the host decided on, as a hello must,
		 * and so must every later request of the connection (row 47):
		 * transparently, and in a CONNECT or SOCKS tunnel to a name.
		 * Bytes that are not HTTP are relayed as they come, and so is
		 * everything after a server that spoke first (an HTTP server
		 * never does: SMTP, SSH, FTP, databases). */
		if (!c->server_spoke &&
		    (strict || (c->front != PROXY_FRONT_TRANSPARENT && c->target.has_name &&
				!is_addr_rule(c->rule))))
			check_http(c, (size_t)n);
		else
			proxy_conn_relay(c);
		return;
	case SNIFF_NEED_MORE:
		if ((size_t)n >= PROXY_TLS_WIRE_MAX) {
			proxy_conn_refuse(c, POLICY_REASON_TOO_BIG);
			return;
		}
		proxy_conn_want_more(c, (size_t)n);
		return;
	case SNIFF_MALFORMED:
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_TLS);
		return;
	case SNIFF_TOO_BIG:
		proxy_conn_refuse(c, POLICY_REASON_TOO_BIG);
		return;
	}
}
