/* netproxy/transparent.c: a connection the program made to some address,
 * landed on porta's listener for that port (AnyIP: every address is local in
 * the sandbox).  getsockname(2) of the accepted socket is the address the
 * program dialled.  The first bytes are peeked (never consumed: recv(2)
 * MSG_PEEK) until they decide (docs/design.md, Network):
 *
 *   TLS   the ClientHello's SNI is required; a hello without SNI is allowed
 *         only by an IP/CIDR rule for the dialled address ("no-sni").
 *   HTTP  exactly one Host ("no-host" unless an IP/CIDR rule allows the
 *         address, "duplicate-host" always); an absolute-form or CONNECT
 *         target must name the Host's host and port ("host-mismatch":
 *         RFC 9112 3.2.2, a server uses the target and ignores Host).
 *         Every later request on the connection must name the same host
 *         and port: the relay frames them (http_stream.h) and resets the
 *         connection on another ("host-changed", escape corpus row 47).
 *   else  (or nothing within the quiet wait: the server speaks first) the
 *         DNS map or an IP/CIDR rule (proxy.c).
 */
#include "netproxy/conn.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "netproxy/dial.h"

static void start(struct proxy_conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(c->client, (struct sockaddr *)&ss, &len) < 0 ||
	    proxy_sockaddr_to(&ss, &c->dialled, &c->dialled_port) < 0) {
		log_msg(LOG_LEVEL_WARN, "getsockname of an accepted connection: %s", strerror(errno));
		proxy_conn_free(c);
		return;
	}
	c->has_dialled = true;
	c->target.port = c->dialled_port;
	proxy_conn_sniff(c, true);
}

/* No name to decide on: only an IP/CIDR rule for the dialled address. */
static void decide_address_rule_only(struct proxy_conn *c, enum policy_reason reason)
{
	struct policy_net_decision d;
	struct policy_net_query q = {
		.addr = &c->dialled,
		.port = c->dialled_port,
		.host_addrs = c->p->host_addrs,
		.n_host_addrs = c->p->n_host_addrs,
	};
	if (policy_net_decide(c->p->rules, c->p->n_rules, &q, &d) == POLICY_NET_ALLOWED) {
		proxy_conn_decide(c); /* decides the same query and dials the address */
		return;
	}
	c->rule = d.verdict == POLICY_NET_DENIED ? d.rule : NULL;
	proxy_conn_refuse(c, d.verdict == POLICY_NET_DENIED ? POLICY_REASON_DENY_RULE : reason);
}

static void sniff_http(struct proxy_conn *c, const uint8_t *buf, size_t n)
{
	struct proxy_http_head h;

	switch (proxy_http_parse_head(buf, n, &h)) {
	case PROXY_HTTP_NEED_MORE:
		proxy_conn_want_more(c, n);
		return;
	case PROXY_HTTP_NOT_HTTP:
		proxy_conn_decide_by_address(c);
		return;
	case PROXY_HTTP_MALFORMED:
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_HTTP);
		return;
	case PROXY_HTTP_TOO_BIG:
		proxy_conn_refuse(c, POLICY_REASON_TOO_BIG);
		return;
	case PROXY_HTTP_HOST_MISSING:
		decide_address_rule_only(c, POLICY_REASON_NO_HOST);
		return;
	case PROXY_HTTP_HOST_DUPLICATE:
		proxy_conn_refuse(c, POLICY_REASON_DUPLICATE_HOST);
		return;
	case PROXY_HTTP_OK:
		break;
	}
	if (proxy_conn_tripwire(c, buf, h.head_len, true))
		return;
	if ((h.form == PROXY_HTTP_FORM_ABSOLUTE || h.form == PROXY_HTTP_FORM_AUTHORITY) &&
	    !proxy_http_target_matches_host(&h)) {
		proxy_conn_take_name(c, h.host.host.p, h.host.host.n);
		proxy_conn_refuse(c, POLICY_REASON_HOST_MISMATCH);
		return;
	}
	if (!proxy_conn_take_name(c, h.host.host.p, h.host.host.n)) {
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_NAME);
		return;
	}
	/* the relay reads every request of the connection (row 47) */
	c->http_framed = true;
	proxy_http_stream_init(&c->hs);
	proxy_conn_decide(c);
}

static void readable(struct proxy_conn *c)
{
	struct proxy_tls_hello hello;
	ssize_t n = proxy_conn_peek(c, PROXY_TLS_WIRE_MAX);

	if (n == -EAGAIN) {
		proxy_conn_want_more(c, c->peeked);
		return;
	}
	if (n <= 0) {
		/* the client vanished (EOF or reset) before deciding anything */
		proxy_conn_free(c);
		return;
	}
	const uint8_t *buf = c->p->scratch;
	if (proxy_conn_tripwire(c, buf, (size_t)n, false))
		return;
	switch (proxy_sniff_tls(buf, (size_t)n, &hello)) {
	case SNIFF_OK:
		c->sni_len = hello.sni_len;
		memcpy(c->sni, hello.sni, hello.sni_len + 1);
		if (!proxy_conn_take_name(c, (const uint8_t *)hello.sni, hello.sni_len)) {
			proxy_conn_refuse(c, POLICY_REASON_MALFORMED_NAME);
			return;
		}
		proxy_conn_decide(c);
		return;
	case SNIFF_NO_SNI:
		decide_address_rule_only(c, POLICY_REASON_NO_SNI);
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
	case SNIFF_NOT_TLS:
		sniff_http(c, buf, (size_t)n);
		return;
	}
}

/* Dialled: relay at once, or, when decided before the client spoke, check
 * its first bytes when they come (conn.h, proxy_check_sni_*). */
static void connected(struct proxy_conn *c)
{
	if (c->quiet_decided)
		proxy_check_sni_start(c);
	else
		proxy_conn_relay(c);
}

/* A refusal is a reset: nothing was ever said to the program. */
static const struct proxy_front_ops ops = {
	.front = PROXY_FRONT_TRANSPARENT,
	.start = start,
	.readable = readable,
	.connected = connected,
	.refused = NULL,
};

const struct proxy_front_ops *proxy_front_transparent(void)
{
	return &ops;
}
