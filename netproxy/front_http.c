/* netproxy/front_http.c: the HTTP proxy front end (loopback inside the
 * sandbox, announced as HTTP_PROXY/HTTPS_PROXY).
 *
 *   CONNECT host:port   decided on the canonical host (IP literals as the
 *                       address they spell), "200 Connection established"
 *                       only once the upstream connect succeeded, then the
 *                       SNI of a ClientHello that follows must name the
 *                       same host (proxy.c, proxy_check_sni_*).  Bytes the
 *                       client pipelined after the head stay in the
 *                       socket's queue until the relay (corpus row 37).
 *   GET http://h/p      absolute-form: decided, dialled, the head forwarded
 *                       in origin-form without the proxy's hop-by-hop
 *                       fields (wire/http_forward.h), then relayed through
 *                       the request framer: the connection stays
 *                       persistent, and every later request on it is
 *                       forwarded the same way if it names the same host
 *                       and port, or resets the connection if it names
 *                       another (a new host needs a decision and a
 *                       connection of its own: clients that pool by
 *                       proxy rather than by origin reconnect).
 * Refusals answer 403 with a short text naming the option that would allow
 * it; a head porta cannot read, 400; an upstream it cannot reach, 502.
 */
#include "netproxy/conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "wire/http_forward.h"

static void start(struct proxy_conn *c)
{
	proxy_conn_sniff(c, false);
}

static bool take_target(struct proxy_conn *c, const struct proxy_authority *a, uint16_t port)
{
	c->target.port = port;
	return proxy_conn_take_name(c, a->host.p, a->host.n);
}

/* The head to send upstream for an absolute-form request: origin-form,
 * without the proxy's fields (wire/http_forward.h). */
static uint8_t *forward_head(const uint8_t *buf, const struct proxy_http_head *h,
			     size_t *out_len)
{
	size_t cap = proxy_http_forward_max(h);
	uint8_t *o = malloc(cap);
	if (o)
		*out_len = proxy_http_forward_head(buf, h, o, cap, NULL);
	return o;
}

static void readable(struct proxy_conn *c)
{
	struct proxy_http_head h;
	ssize_t n = proxy_conn_peek(c, PROXY_HTTP_HEAD_MAX + 1);

	if (n == -EAGAIN) {
		proxy_conn_want_more(c, c->peeked);
		return;
	}
	if (n <= 0) {
		proxy_conn_free(c);
		return;
	}
	const uint8_t *buf = c->p->scratch;
	enum proxy_http_status st = proxy_http_parse_head(buf, (size_t)n, &h);
	switch (st) {
	case PROXY_HTTP_NEED_MORE:
		proxy_conn_want_more(c, (size_t)n);
		return;
	case PROXY_HTTP_NOT_HTTP:
	case PROXY_HTTP_MALFORMED:
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_HTTP);
		return;
	case PROXY_HTTP_TOO_BIG:
		proxy_conn_refuse(c, POLICY_REASON_TOO_BIG);
		return;
	case PROXY_HTTP_HOST_DUPLICATE:
		proxy_conn_refuse(c, POLICY_REASON_DUPLICATE_HOST);
		return;
	case PROXY_HTTP_OK:
	case PROXY_HTTP_HOST_MISSING:
		break;
	}
	uint16_t port;
	if (h.form == PROXY_HTTP_FORM_AUTHORITY) {
		port = h.target_authority.port;
	} else if (h.form == PROXY_HTTP_FORM_ABSOLUTE) {
		port = h.target_authority.port ? h.target_authority.port : 80;
	} else {
		proxy_conn_refuse(c, POLICY_REASON_NOT_PROXY_REQUEST);
		return;
	}
	/* a Host that names another host than the target: two readers could
	 * take two destinations from one head */
	if (st == PROXY_HTTP_OK && !proxy_http_target_matches_host(&h)) {
		take_target(c, &h.target_authority, port);
		proxy_conn_refuse(c, POLICY_REASON_HOST_MISMATCH);
		return;
	}
	if (!take_target(c, &h.target_authority, port)) {
		proxy_conn_refuse(c, POLICY_REASON_MALFORMED_NAME);
		return;
	}
	/* once the target is known, so the refusal can name it: the head
	 * (its Basic credentials too) and whatever followed it */
	if (proxy_conn_tripwire(c, buf, h.head_len, true) ||
	    proxy_conn_tripwire(c, buf, (size_t)n, false))
		return;
	if (h.form == PROXY_HTTP_FORM_ABSOLUTE && proxy_conn_terminated(c)) {
		/* plain HTTP to an endpoint with --allow-http rules: the
		 * terminating relay reads this head and every later one, checks
		 * each against the rules and forwards it in origin-form */
		c->term_proxied = true;
		proxy_conn_decide(c);
		return;
	}
	if (h.form == PROXY_HTTP_FORM_ABSOLUTE) {
		/* the body and every later request go through the framer: a
		 * second request on this connection must name the same host
		 * and port (escape corpus row 47) */
		struct proxy_http_head fh;
		size_t used;
		proxy_http_stream_init(&c->hs);
		enum proxy_hs_status hs = proxy_http_stream_feed(&c->hs, buf, (size_t)n, &used, &fh);
		if (hs != PROXY_HS_HEAD && hs != PROXY_HS_NO_HOST) {
			proxy_conn_refuse(c, POLICY_REASON_MALFORMED_HTTP);
			return;
		}
		struct proxy_http_head framing = proxy_http_forward_framing(&fh);
		proxy_http_stream_accept(&c->hs, &framing);
		c->http_framed = true;
		c->hs_port_set = true;
		c->hs_port = port;
		c->http_absolute = true;
		c->out = forward_head(buf, &h, &c->out_len);
		if (!c->out) {
			proxy_conn_refuse(c, POLICY_REASON_NO_MEMORY);
			return;
		}
	}
	/* the head is the proxy's; what follows stays queued until the relay */
	if (proxy_conn_consume(c, h.head_len) < 0) {
		proxy_conn_free(c);
		return;
	}
	proxy_conn_decide(c);
}

static void relay_now(struct proxy_conn *c)
{
	proxy_conn_relay(c);
}

static void connected(struct proxy_conn *c)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	if (c->term_proxied) {
		c->replied = true; /* the terminating relay answers from now on */
		proxy_conn_relay(c);
		return;
	}
	if (c->http_absolute) {
		uint8_t *head = c->out;
		size_t len = c->out_len;
		c->out = NULL;
		c->out_len = 0;
		c->replied = true; /* the upstream answers from now on */
		proxy_conn_write(c, c->upstream, head, len, relay_now);
		free(head);
		return;
	}
	c->replied = true;
	proxy_conn_write(c, c->client, ok, sizeof(ok) - 1, proxy_check_sni_start);
}

/* The status line of a refusal: what porta could not read is the client's
 * fault (400), what it could not reach the upstream's (502). */
static const char *refusal_status(enum policy_reason reason)
{
	switch (reason) {
	case POLICY_REASON_MALFORMED_HTTP:
	case POLICY_REASON_TOO_BIG:
	case POLICY_REASON_NOT_PROXY_REQUEST:
	case POLICY_REASON_DUPLICATE_HOST:
	case POLICY_REASON_HOST_MISMATCH:
	case POLICY_REASON_MALFORMED_NAME: return "400 Bad Request";
	case POLICY_REASON_DIAL_FAILED:
	case POLICY_REASON_RESOLVE_FAILED: return "502 Bad Gateway";
	case POLICY_REASON_SNIFF_TIMEOUT: return "408 Request Timeout";
	case POLICY_REASON_LIMIT:
	case POLICY_REASON_NO_MEMORY: return "503 Service Unavailable";
	default: return "403 Forbidden";
	}
}

static bool refused(struct proxy_conn *c, enum policy_reason reason, const char *hint)
{
	char body[POLICY_NAME_MAX * 4 + 160], esc[POLICY_NAME_MAX * 4 + 8], msg[sizeof(body) + 200];
	const char *status = refusal_status(reason);
	const char *code = policy_reason_code(reason);

	if (c->target.has_name)
		snprintf(esc, sizeof(esc), "%s", c->target.name);
	else if (c->target.has_addr)
		decision_format_dst(&c->target.addr, c->target.port, esc);
	else
		log_escape(c->raw, c->raw_len, esc, sizeof(esc));
	int bl;
	if (c->target.has_name)
		bl = snprintf(body, sizeof(body), "porta: refused %s:%u (%s)%s%s\n", esc,
			      c->target.port, code, hint ? "; allow with " : "", hint ? hint : "");
	else
		bl = snprintf(body, sizeof(body), "porta: refused %s (%s)%s%s\n", esc, code,
			      hint ? "; allow with " : "", hint ? hint : "");
	if (bl < 0 || (size_t)bl >= sizeof(body))
		bl = (int)strlen(body);
	int ml = snprintf(msg, sizeof(msg),
			  "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			  "Connection: close\r\n\r\n%s",
			  status, bl, body);
	if (ml > 0 && (size_t)ml < sizeof(msg))
		(void)!send(c->client, msg, (size_t)ml, MSG_NOSIGNAL | MSG_DONTWAIT);
	/* drop what the client pipelined, so close(2) sends FIN after the
	 * answer rather than a reset that could discard it */
	uint8_t sink[4096];
	for (int i = 0; i < 16 && recv(c->client, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	shutdown(c->client, SHUT_WR);
	c->replied = true;
	return true;
}

static const struct proxy_front_ops ops = {
	.front = PROXY_FRONT_HTTP,
	.start = start,
	.readable = readable,
	.connected = connected,
	.refused = refused,
};

const struct proxy_front_ops *proxy_front_http(void)
{
	return &ops;
}
