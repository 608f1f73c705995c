/* wire/sniff_http.c: an HTTP/1.x request head, its target and its one
 * Host header (sniff.h).
 *
 * The grammar is RFC 9112 §2-§5 read strictly: where the RFC lets a
 * recipient be lenient (bare LF, §2.2) or where implementations disagree
 * (obs-fold, whitespace before the colon, Content-Length beside
 * Transfer-Encoding, two Host fields), porta refuses, because the server
 * behind it may read the other way and the decision would then be about a
 * request the server never sees.  The head is checked one complete line at
 * a time, so a prefix of a good head is always PROXY_HTTP_NEED_MORE.
 */
#include "wire/sniff.h"

#include <arpa/inet.h>
#include <string.h>

#include "common/ascii.h"
#include "wire/cursor.h"
#include "wire/http_syntax.h"

/* RFC 3986 §3.2.2 reg-name bytes: unreserved, sub-delims and '%' of
 * pct-encoded (whether the escapes are well-formed is policy's concern: its
 * canonical names have no '%' at all). */
static bool is_regname(uint8_t c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c != '\0' && strchr("-._~!$&'()*+,;=%", c) != NULL;
}

enum proxy_authority_status proxy_parse_authority(const uint8_t *p, size_t n, int port_required,
						  struct proxy_authority *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return PROXY_AUTHORITY_MALFORMED;
	if (p[0] == '[') {
		/* RFC 3986 §3.2.2 IP-literal; IPvFuture ("[v1.x]") and RFC 6874
		 * zone ids ("%25eth0") name nothing a rule can. */
		const uint8_t *close = memchr(p, ']', n);
		char text[INET6_ADDRSTRLEN];
		uint8_t addr[16];
		if (!close)
			return PROXY_AUTHORITY_MALFORMED;
		size_t m = (size_t)(close - p) - 1;
		if (m < 2 || m >= sizeof(text))
			return PROXY_AUTHORITY_MALFORMED;
		for (size_t k = 0; k < m; k++) {
			uint8_t c = p[1 + k];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			      (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
				return PROXY_AUTHORITY_MALFORMED;
		}
		memcpy(text, p + 1, m);
		text[m] = '\0';
		if (inet_pton(AF_INET6, text, addr) != 1)
			return PROXY_AUTHORITY_MALFORMED;
		out->host.p = p + 1;
		out->host.n = m;
		out->ipv6 = true;
		i = m + 2;
	} else {
		for (i = 0; i < n && p[i] != ':'; i++) {
			if (!is_regname(p[i]))
				return PROXY_AUTHORITY_MALFORMED; /* '@', '/', blanks, CTLs, non-ASCII */
		}
		if (i == 0)
			return PROXY_AUTHORITY_MALFORMED;
		out->host.p = p;
		out->host.n = i;
	}
	if (i == n)
		return port_required ? PROXY_AUTHORITY_MALFORMED : PROXY_AUTHORITY_OK;
	if (p[i] != ':')
		return PROXY_AUTHORITY_MALFORMED;
	i++;
	/* Ports with a leading zero or out of range are refused rather than
	 * read: "0443" is 443 to one parser and octal or an error to another
	 * (escape corpus row 33). */
	if (!ascii_port_parse((const char *)p + i, n - i, &out->port))
		return PROXY_AUTHORITY_MALFORMED;
	return PROXY_AUTHORITY_OK;
}

/* Classifies the request-target by method (RFC 9112 §3.2). */
static enum proxy_http_status parse_target(struct proxy_http_head *h)
{
	const uint8_t *t = h->target.p;
	size_t n = h->target.n;

	if (memchr(t, '#', n))
		return PROXY_HTTP_MALFORMED; /* a fragment is never sent (RFC 9110 §4.2.5) */
	/* RFC 9112 §3.2.3: CONNECT uses authority-form and nothing else, and
	 * RFC 9110 §9.3.6: the port is always given. */
	if (h->method.n == 7 && memcmp(h->method.p, "CONNECT", 7) == 0) {
		if (proxy_parse_authority(t, n, 1, &h->target_authority) != PROXY_AUTHORITY_OK)
			return PROXY_HTTP_MALFORMED;
		h->form = PROXY_HTTP_FORM_AUTHORITY;
		return PROXY_HTTP_OK;
	}
	if (n == 1 && t[0] == '*') {
		if (h->method.n != 7 || memcmp(h->method.p, "OPTIONS", 7) != 0)
			return PROXY_HTTP_MALFORMED;
		h->form = PROXY_HTTP_FORM_ASTERISK;
		return PROXY_HTTP_OK;
	}
	if (t[0] == '/') {
		h->form = PROXY_HTTP_FORM_ORIGIN;
		h->target_path = h->target;
		return PROXY_HTTP_OK;
	}
	/* Absolute-form.  Only http: an https:// target would ask porta to
	 * speak TLS upstream, which it never does (clients CONNECT instead). */
	if (n < 7 || !ascii_eq_lit_nocase(t, 7, "http://"))
		return PROXY_HTTP_MALFORMED;
	size_t a = 7, e = a;
	while (e < n && t[e] != '/' && t[e] != '?')
		e++;
	if (proxy_parse_authority(t + a, e - a, 0, &h->target_authority) != PROXY_AUTHORITY_OK)
		return PROXY_HTTP_MALFORMED;
	h->form = PROXY_HTTP_FORM_ABSOLUTE;
	h->target_path.p = t + e;
	h->target_path.n = n - e;
	return PROXY_HTTP_OK;
}

/* Parses "METHOD SP target SP HTTP/1.x" (the line without its CRLF). */
static enum proxy_http_status parse_request_line(const uint8_t *p, size_t n,
						 struct proxy_http_head *h)
{
	size_t i = h->method.n + 1, ts = i;

	while (i < n && p[i] >= 0x21 && p[i] <= 0x7e)
		i++;
	if (i == ts || i == n || p[i] != ' ')
		return PROXY_HTTP_MALFORMED; /* empty target, a CTL or non-ASCII byte, no version */
	h->target.p = p + ts;
	h->target.n = i - ts;
	i++;
	/* RFC 9113 §3.4: the HTTP/2 preface starts "PRI * HTTP/2.0"; such a
	 * connection carries no HTTP/1 head and is handled like any other
	 * protocol that is not HTTP/1. */
	if (n - i == 8 && memcmp(p + i, "HTTP/2.0", 8) == 0 && h->method.n == 3 &&
	    memcmp(p, "PRI", 3) == 0 && h->target.n == 1 && h->target.p[0] == '*')
		return PROXY_HTTP_NOT_HTTP;
	if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7) != 0 || (p[i + 7] != '0' && p[i + 7] != '1'))
		return PROXY_HTTP_MALFORMED;
	h->version_minor = p[i + 7] - '0';
	return parse_target(h);
}

enum proxy_http_status proxy_http_parse_head(const uint8_t *buf, size_t len,
					     struct proxy_http_head *out)
{
	struct wire_cursor c =
		wire_stream(buf, len < PROXY_HTTP_HEAD_MAX ? len : PROXY_HTTP_HEAD_MAX);
	struct wire_span method, line, name, value;
	size_t hosts = 0;
	enum proxy_http_status st;
	unsigned te_chunked = 0;
	bool te_last_chunked = false, te_any = false;
	uint8_t sp;

	memset(out, 0, sizeof(*out));
	/* The method decides whether this is HTTP at all, as soon as its bytes
	 * arrive: a TLS record, an SSH banner or a database's binary start-up
	 * shows a non-token byte or no SP early on. */
	wire_take_while(&c, proxy_http_tchar, PROXY_HTTP_METHOD_MAX + 1, &method);
	if (method.n > PROXY_HTTP_METHOD_MAX)
		return PROXY_HTTP_NOT_HTTP;
	if (!wire_peek(&c, &sp))
		return PROXY_HTTP_NEED_MORE;
	if (method.n == 0 || sp != ' ')
		return PROXY_HTTP_NOT_HTTP;
	out->method.p = method.p;
	out->method.n = method.n;

	c.pos = 0;
	st = proxy_http_next_line(&c, len, &line);
	if (st != PROXY_HTTP_OK)
		return st;
	st = parse_request_line(line.p, line.n, out);
	if (st != PROXY_HTTP_OK)
		return st;

	for (;;) {
		st = proxy_http_next_line(&c, len, &line);
		if (st != PROXY_HTTP_OK)
			return st;
		if (line.n == 0) {
			out->head_len = c.pos;
			break;
		}
		if (!proxy_http_field(line, &name, &value))
			return PROXY_HTTP_MALFORMED;
		out->header_count++;

		if (ascii_eq_lit_nocase(name.p, name.n, "host")) {
			if (++hosts == 1) {
				out->host_value.p = value.p;
				out->host_value.n = value.n;
			}
		} else if (ascii_eq_lit_nocase(name.p, name.n, "content-length")) {
			/* Two Content-Length fields, even equal ones, or a list
			 * ("5, 5") are refused rather than merged (§6.3). */
			if (out->flags & PROXY_HTTP_CONTENT_LENGTH)
				return PROXY_HTTP_MALFORMED;
			out->flags |= PROXY_HTTP_CONTENT_LENGTH;
			if (!proxy_http_content_length(value.p, value.n, &out->content_length))
				return PROXY_HTTP_MALFORMED;
		} else if (ascii_eq_lit_nocase(name.p, name.n, "transfer-encoding")) {
			out->flags |= PROXY_HTTP_TRANSFER_ENCODING;
			proxy_http_te_list(value.p, value.n, &te_chunked, &te_last_chunked, &te_any);
		} else if (ascii_eq_lit_nocase(name.p, name.n, "upgrade")) {
			out->flags |= PROXY_HTTP_UPGRADE;
		}
	}

	/* RFC 9112 §6.1: both framings at once is how requests are smuggled
	 * past one parser to another; Transfer-Encoding is not HTTP/1.0. */
	if (out->flags & PROXY_HTTP_TRANSFER_ENCODING) {
		if ((out->flags & PROXY_HTTP_CONTENT_LENGTH) || out->version_minor == 0)
			return PROXY_HTTP_MALFORMED;
	}
	if (te_any && te_last_chunked && te_chunked == 1)
		out->flags |= PROXY_HTTP_TE_CHUNKED_LAST;
	/* RFC 9112 §3.2: a server MUST reject a request with more than one Host
	 * field, and an HTTP/1.1 request without one. */
	if (hosts == 0)
		return PROXY_HTTP_HOST_MISSING;
	if (hosts > 1) {
		out->host_value.p = NULL;
		out->host_value.n = 0;
		return PROXY_HTTP_HOST_DUPLICATE;
	}
	if (proxy_parse_authority(out->host_value.p, out->host_value.n, 0, &out->host) !=
	    PROXY_AUTHORITY_OK)
		return PROXY_HTTP_MALFORMED;
	return PROXY_HTTP_OK;
}

bool proxy_http_target_matches_host(const struct proxy_http_head *head)
{
	const struct proxy_authority *t = &head->target_authority, *h = &head->host;

	if (head->form != PROXY_HTTP_FORM_ABSOLUTE && head->form != PROXY_HTTP_FORM_AUTHORITY)
		return false;
	if (h->host.n == 0 || t->ipv6 != h->ipv6 ||
	    !ascii_eq_nocase(t->host.p, t->host.n, h->host.p, h->host.n))
		return false;
	unsigned tp = t->port ? t->port : 80;
	unsigned hp = h->port ? h->port : (head->form == PROXY_HTTP_FORM_AUTHORITY ? tp : 80);
	return tp == hp;
}
