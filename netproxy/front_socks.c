/* netproxy/front_socks.c: the SOCKS5 front end (RFC 1928; loopback inside
 * the sandbox, announced as ALL_PROXY=socks5h://...).  NO AUTHENTICATION
 * only, CONNECT only: BIND and UDP ASSOCIATE get REP 0x07, an unknown
 * address type 0x08, a refusal 0x02, a name carrying NUL, CR or LF 0x02
 * (corpus row 36).  A CONNECT is decided like the HTTP proxy's, the success
 * reply is sent only once the upstream connect succeeded, and the SNI that
 * follows must name the same host. */
#include "netproxy/conn.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "wire/socks5.h"

static void start(struct proxy_conn *c)
{
	proxy_conn_sniff(c, false);
}

static void send_now(struct proxy_conn *c, const uint8_t *b, size_t n)
{
	/* a handful of bytes into an empty send buffer: never blocks */
	(void)!send(c->client, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void refuse_code(struct proxy_conn *c, enum policy_reason reason, uint8_t rep)
{
	c->socks_rep = rep;
	proxy_conn_refuse(c, reason);
}

static void request(struct proxy_conn *c, const uint8_t *buf, size_t n)
{
	struct proxy_socks5_request req;
	enum proxy_socks5_status st = proxy_socks5_parse_request(buf, n, &req);

	switch (st) {
	case PROXY_SOCKS5_NEED_MORE:
		proxy_conn_want_more(c, n);
		return;
	case PROXY_SOCKS5_NOT_SOCKS5:
		proxy_conn_free(c);
		return;
	case PROXY_SOCKS5_MALFORMED:
		refuse_code(c, POLICY_REASON_MALFORMED_SOCKS, proxy_socks5_reply_code(st));
		return;
	case PROXY_SOCKS5_NO_METHOD:
	case PROXY_SOCKS5_CMD_UNSUPPORTED:
		refuse_code(c, POLICY_REASON_UNSUPPORTED_COMMAND, PROXY_SOCKS5_REP_CMD_UNSUPPORTED);
		return;
	case PROXY_SOCKS5_ATYP_UNSUPPORTED:
		refuse_code(c, POLICY_REASON_UNSUPPORTED_ADDRESS, PROXY_SOCKS5_REP_ATYP_UNSUPPORTED);
		return;
	case PROXY_SOCKS5_NAME_REFUSED:
		/* for the audit (escaped there): the name as far as it came,
		 * VER CMD RSV ATYP=3 LEN NAME (RFC 1928 4) */
		if (n > 5 && buf[3] == PROXY_SOCKS5_ATYP_DOMAIN) {
			size_t nl = buf[4] < n - 5 ? buf[4] : n - 5;
			c->raw_len = nl < sizeof(c->raw) ? nl : sizeof(c->raw) - 1;
			memcpy(c->raw, buf + 5, c->raw_len);
		}
		refuse_code(c, POLICY_REASON_MALFORMED_NAME, PROXY_SOCKS5_REP_NOT_ALLOWED);
		return;
	case PROXY_SOCKS5_OK:
		break;
	}
	c->target.port = req.dst.port;
	if (req.dst.atyp == PROXY_SOCKS5_ATYP_IPV4 || req.dst.atyp == PROXY_SOCKS5_ATYP_IPV6) {
		c->target.has_addr = true;
		memset(&c->target.addr, 0, sizeof(c->target.addr));
		c->target.addr.family =
			req.dst.atyp == PROXY_SOCKS5_ATYP_IPV4 ? POLICY_ADDR_V4 : POLICY_ADDR_V6;
		memcpy(c->target.addr.b, req.dst.ip, req.dst.atyp == PROXY_SOCKS5_ATYP_IPV4 ? 4 : 16);
		/* an IPv4-mapped IPv6 target is the IPv4 destination */
		c->target.addr = policy_addr_unmap(&c->target.addr);
	} else {
		if (!proxy_conn_take_name(c, req.dst.name.p, req.dst.name.n)) {
			refuse_code(c, POLICY_REASON_MALFORMED_NAME, PROXY_SOCKS5_REP_NOT_ALLOWED);
			return;
		}
	}
	/* the request is the proxy's; what follows stays queued until the relay */
	if (proxy_conn_consume(c, req.len) < 0) {
		proxy_conn_free(c);
		return;
	}
	proxy_conn_decide(c);
}

static void readable(struct proxy_conn *c)
{
	ssize_t n = proxy_conn_peek(c, 4 + 1 + 255 + 2 + 512);

	if (n == -EAGAIN) {
		proxy_conn_want_more(c, c->peeked);
		return;
	}
	if (n <= 0) {
		proxy_conn_free(c);
		return;
	}
	const uint8_t *buf = c->p->scratch;
	if (c->socks_stage == 1) {
		request(c, buf, (size_t)n);
		return;
	}
	size_t glen = 0;
	uint8_t out[2];
	switch (proxy_socks5_parse_greeting(buf, (size_t)n, &glen)) {
	case PROXY_SOCKS5_NEED_MORE:
		proxy_conn_want_more(c, (size_t)n);
		return;
	case PROXY_SOCKS5_OK:
		break;
	case PROXY_SOCKS5_NO_METHOD:
		send_now(c, out, proxy_socks5_build_method(out, sizeof(out),
							   PROXY_SOCKS5_METHOD_UNACCEPTABLE));
		c->replied = true;
		proxy_conn_refuse(c, POLICY_REASON_SOCKS_NO_METHOD);
		return;
	default:
		proxy_conn_free(c);
		return;
	}
	if (proxy_conn_consume(c, glen) < 0) {
		proxy_conn_free(c);
		return;
	}
	send_now(c, out, proxy_socks5_build_method(out, sizeof(out), PROXY_SOCKS5_METHOD_NONE));
	c->socks_stage = 1;
	c->peeked = 0;
	/* the request may already be queued behind the greeting */
	if ((size_t)n > glen) {
		request(c, buf + glen, (size_t)n - glen);
		return;
	}
	proxy_conn_want_more(c, 0);
}

static void connected(struct proxy_conn *c)
{
	uint8_t rep[PROXY_SOCKS5_REPLY_MAX];
	/* BND.ADDR 0.0.0.0:0: the client cannot reach porta's outgoing
	 * address anyway, and clients ignore it for CONNECT */
	size_t n = proxy_socks5_build_reply(rep, sizeof(rep), PROXY_SOCKS5_REP_SUCCEEDED, NULL);
	c->replied = true;
	proxy_conn_write(c, c->client, rep, n, proxy_check_sni_start);
}

/* The REP of a refusal (RFC 1928 6) when the request did not set one. */
static uint8_t reply_code(enum policy_reason reason)
{
	switch (reason) {
	case POLICY_REASON_DIAL_FAILED: return PROXY_SOCKS5_REP_CONN_REFUSED;
	case POLICY_REASON_RESOLVE_FAILED: return PROXY_SOCKS5_REP_HOST_UNREACHABLE;
	case POLICY_REASON_NO_MEMORY:
	case POLICY_REASON_SNIFF_TIMEOUT:
	case POLICY_REASON_WRITE_FAILED: return PROXY_SOCKS5_REP_GENERAL_FAILURE;
	default: return PROXY_SOCKS5_REP_NOT_ALLOWED;
	}
}

static bool refused(struct proxy_conn *c, enum policy_reason reason, const char *hint)
{
	uint8_t rep[PROXY_SOCKS5_REPLY_MAX];
	(void)hint; /* a reply code has no room for it */
	uint8_t code = c->socks_rep ? c->socks_rep : reply_code(reason);

	if (c->socks_stage == 1) /* a reply only answers a request */
		send_now(c, rep, proxy_socks5_build_reply(rep, sizeof(rep), code, NULL));
	uint8_t sink[1024];
	for (int i = 0; i < 16 && recv(c->client, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	shutdown(c->client, SHUT_WR);
	return true;
}

static const struct proxy_front_ops ops = {
	.front = PROXY_FRONT_SOCKS,
	.start = start,
	.readable = readable,
	.connected = connected,
	.refused = refused,
};

const struct proxy_front_ops *proxy_front_socks(void)
{
	return &ops;
}
