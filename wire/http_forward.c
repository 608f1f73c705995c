/* wire/http_forward.c: see http_forward.h. */
#include "wire/http_forward.h"

#include <string.h>

static uint8_t lower(uint8_t ch)
{
	return ch >= 'A' && ch <= 'Z' ? (uint8_t)(ch - 'A' + 'a') : ch;
}

/* The field line at line[0..n) is named name (lower case, with its colon
 * when the whole name is meant, without it for a prefix). */
static bool field_is(const uint8_t *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n < k)
		return false;
	for (size_t i = 0; i < k; i++) {
		if (lower(line[i]) != (uint8_t)name[i])
			return false;
	}
	return true;
}

static bool is_ows(uint8_t ch)
{
	return ch == ' ' || ch == '\t';
}

/* A Connection field's value v[0..n) names the option "close": a
 * comma-separated list of tokens (RFC 9110 §7.6.1), compared without case. */
static bool names_close(const uint8_t *v, size_t n)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && (is_ows(v[i]) || v[i] == ','))
			i++;
		size_t start = i;
		while (i < n && v[i] != ',' && !is_ows(v[i]))
			i++;
		size_t len = i - start;
		if (len == 5 && field_is(v + start, len, "close"))
			return true;
		while (i < n && v[i] != ',')
			i++;
	}
	return false;
}

static const char close_field[] = "Connection: close\r\n";

size_t proxy_http_forward_max(const struct proxy_http_head *h)
{
	/* request line rebuilt: method, SP, "/" and the target, " HTTP/1.x\r\n";
	 * then at most the original field lines, Connection: close, CRLF */
	return h->method.n + 1 + 1 + h->target.n + 11 + h->head_len + sizeof(close_field) + 2;
}

size_t proxy_http_forward_head(const uint8_t *buf, const struct proxy_http_head *h,
			       uint8_t *out, size_t cap, bool *close)
{
	size_t n = 0;
	bool client_close = false;

	if (cap < proxy_http_forward_max(h))
		return 0;
	memcpy(out + n, h->method.p, h->method.n);
	n += h->method.n;
	out[n++] = ' ';
	if (h->form == PROXY_HTTP_FORM_ABSOLUTE) {
		if (h->target_path.n == 0 || h->target_path.p[0] == '?')
			out[n++] = '/';
		memcpy(out + n, h->target_path.p, h->target_path.n);
		n += h->target_path.n;
	} else {
		memcpy(out + n, h->target.p, h->target.n);
		n += h->target.n;
	}
	memcpy(out + n, h->version_minor ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n", 11);
	n += 11;

	/* the parser accepted the head: every line ends in CRLF, and the
	 * request line is the first */
	const uint8_t *p = memchr(buf, '\n', h->head_len) + 1;
	const uint8_t *end = buf + h->head_len - 2; /* the empty line */
	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p) + 2);
		size_t ll = (size_t)(eol - p) + 1;
		if (field_is(p, ll, "connection:")) {
			client_close = client_close || names_close(p + 11, ll - 13);
		} else if (!field_is(p, ll, "proxy-") && !field_is(p, ll, "keep-alive:") &&
			   !field_is(p, ll, "upgrade:")) {
			memcpy(out + n, p, ll);
			n += ll;
		}
		p = eol + 1;
	}
	if (client_close) {
		memcpy(out + n, close_field, sizeof(close_field) - 1);
		n += sizeof(close_field) - 1;
	}
	out[n++] = '\r';
	out[n++] = '\n';
	if (close)
		*close = client_close;
	return n;
}

struct proxy_http_head proxy_http_forward_framing(const struct proxy_http_head *h)
{
	struct proxy_http_head f = *h;
	f.flags &= ~PROXY_HTTP_UPGRADE;
	return f;
}
