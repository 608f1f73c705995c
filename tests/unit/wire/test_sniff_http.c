/* tests/unit/wire/test_sniff_http.c: HTTP/1.x request heads and
 * authorities (wire/sniff.h).  Inputs are parsed from exact-size heap
 * copies, so a read past len is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sniff.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, p, n);
	return c;
}

static bool span_inside(struct proxy_span s, const uint8_t *buf, size_t len)
{
	if (s.n == 0)
		return true;
	return s.p >= buf && s.n <= len && (size_t)(s.p - buf) <= len - s.n;
}

static bool span_is(struct proxy_span s, const char *want)
{
	return s.n == strlen(want) && (s.n == 0 || memcmp(s.p, want, s.n) == 0);
}

/* Parses a heap copy; on the statuses that fill *out, checks that every
 * span lies inside the input and copies the spans out as text in *desc:
 * "METHOD|TARGET|form|1.x|thost:tport|HOST|host:port|count|head_len". */
static enum proxy_http_status parse(const void *p, size_t n, char *desc, size_t cap)
{
	uint8_t *c = dup_exact(p, n);
	struct proxy_http_head h;
	memset(&h, 0xa5, sizeof(h));
	enum proxy_http_status st = proxy_http_parse_head(c, n, &h);
	if (desc)
		desc[0] = '\0';
	if (st == PROXY_HTTP_OK || st == PROXY_HTTP_HOST_MISSING ||
	    st == PROXY_HTTP_HOST_DUPLICATE) {
		cr_assert(span_inside(h.method, c, n) && span_inside(h.target, c, n));
		cr_assert(span_inside(h.target_path, c, n) && span_inside(h.host_value, c, n));
		cr_assert(span_inside(h.target_authority.host, c, n));
		cr_assert(span_inside(h.host.host, c, n));
		cr_assert(h.head_len >= 4 && h.head_len <= n && h.head_len <= PROXY_HTTP_HEAD_MAX);
		cr_assert(memcmp(c + h.head_len - 4, "\r\n\r\n", 4) == 0 || h.head_len > 0);
		static const char *forms[] = { "origin", "absolute", "authority", "asterisk" };
		if (desc)
			snprintf(desc, cap, "%.*s|%.*s|%s|1.%d|%.*s:%u|%.*s|%.*s:%u|%zu|%zu",
				 (int)h.method.n, (const char *)h.method.p, (int)h.target.n,
				 (const char *)h.target.p, forms[h.form], h.version_minor,
				 (int)h.target_authority.host.n,
				 (const char *)h.target_authority.host.p, h.target_authority.port,
				 (int)h.host_value.n, (const char *)h.host_value.p,
				 (int)h.host.host.n, (const char *)h.host.host.p, h.host.port,
				 h.header_count, h.head_len);
	}
	free(c);
	return st;
}

/* Every strict prefix of a good head is NEED_MORE; bytes after the head
 * (a body, a pipelined request) change nothing. */
static void sweep(const char *in, size_t n)
{
	const char *end = memmem(in, n, "\r\n\r\n", 4);
	size_t head = end ? (size_t)(end - in) + 4 : n;
	enum proxy_http_status whole = parse(in, head, NULL, 0);
	for (size_t k = head; k <= n; k++)
		cr_assert_eq(parse(in, k, NULL, 0), whole, "%zu bytes after the head", k - head);
	for (size_t k = 0; k < head; k++) {
		enum proxy_http_status st = parse(in, k, NULL, 0);
		cr_assert_eq(st, PROXY_HTTP_NEED_MORE, "prefix %zu of %zu (%.*s): %d", k, n,
			     (int)k, in, st);
	}
}

static const struct {
	const char *in;
	size_t len;
	const char *desc;
} good[] = {
	{ S("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n"),
	  "GET|/|origin|1.1|:0|example.test|example.test:0|1|38" },
	{ S("GET /a?b=c HTTP/1.0\r\nhost:a.test:8080\r\nAccept: */*\r\n\r\n"),
	  "GET|/a?b=c|origin|1.0|:0|a.test:8080|a.test:8080|2|54" },
	/* curl through a proxy */
	{ S("GET http://www.allowed.test/index.html HTTP/1.1\r\nHost: www.allowed.test\r\n"
	    "User-Agent: curl/8.5.0\r\nAccept: */*\r\nProxy-Connection: Keep-Alive\r\n\r\n"),
	  "GET|http://www.allowed.test/index.html|absolute|1.1|www.allowed.test:0|"
	  "www.allowed.test|www.allowed.test:0|4|142" },
	{ S("CONNECT api.allowed.test:443 HTTP/1.1\r\nHost: api.allowed.test:443\r\n"
	    "User-Agent: curl/8.5.0\r\nProxy-Connection: Keep-Alive\r\n\r\n"),
	  "CONNECT|api.allowed.test:443|authority|1.1|api.allowed.test:443|api.allowed.test:443|"
	  "api.allowed.test:443|3|123" },
	{ S("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n"),
	  "CONNECT|[2001:db8::1]:8443|authority|1.1|2001:db8::1:8443|[2001:db8::1]:8443|"
	  "2001:db8::1:8443|1|65" },
	{ S("OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n"),
	  "OPTIONS|*|asterisk|1.1|:0|a.test|a.test:0|1|36" },
	{ S("POST /up HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhello"),
	  "POST|/up|origin|1.1|:0|a.test|a.test:0|2|54" },
	{ S("POST /up HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"),
	  "POST|/up|origin|1.1|:0|a.test|a.test:0|2|63" },
	/* OWS around values, tabs inside, obs-text in another field */
	{ S("GET / HTTP/1.1\r\nHost:\t a.test \t\r\nX-A: a\tb \xe9\r\n\r\n"),
	  "GET|/|origin|1.1|:0|a.test|a.test:0|2|47" },
	{ S("GET http://a.test HTTP/1.1\r\nHost: a.test\r\n\r\n"),
	  "GET|http://a.test|absolute|1.1|a.test:0|a.test|a.test:0|1|44" },
	{ S("GET HTTP://A.test:81?q HTTP/1.1\r\nHost: a.test:81\r\n\r\n"),
	  "GET|HTTP://A.test:81?q|absolute|1.1|A.test:81|a.test:81|a.test:81|1|52" },
	{ S("M-SEARCH / HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n\r\n"),
	  "M-SEARCH|/|origin|1.1|:0|239.255.255.250:1900|239.255.255.250:1900|1|51" },
};

Test(sniff_http, good_heads)
{
	char desc[1024];
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		enum proxy_http_status st = parse(good[i].in, good[i].len, desc, sizeof(desc));
		cr_assert_eq(st, PROXY_HTTP_OK, "vector %zu: %d", i, st);
		cr_assert_str_eq(desc, good[i].desc, "vector %zu: %s", i, desc);
		sweep(good[i].in, good[i].len);
	}
}

Test(sniff_http, head_len_and_flags)
{
	static const char req[] = "POST /up HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhello";
	struct proxy_http_head h;
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)req, sizeof(req) - 1, &h), PROXY_HTTP_OK);
	cr_assert_eq(h.head_len, sizeof(req) - 1 - 5);
	cr_assert_eq(h.flags, PROXY_HTTP_CONTENT_LENGTH);
	cr_assert_eq(h.content_length, 5);
	cr_assert(span_is(h.target_path, "/up"));
	static const char te[] = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)te, sizeof(te) - 1, &h), PROXY_HTTP_OK);
	cr_assert_eq(h.flags, PROXY_HTTP_TRANSFER_ENCODING | PROXY_HTTP_TE_CHUNKED_LAST);
	static const char abs[] = "GET http://a.test:8080 HTTP/1.1\r\nHost: a.test:8080\r\n\r\n";
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)abs, sizeof(abs) - 1, &h),
		     PROXY_HTTP_OK);
	cr_assert_eq(h.target_path.n, 0);
	cr_assert_eq(h.target_authority.port, 8080);
}

/* ---- not HTTP ------------------------------------------------------------ */

Test(sniff_http, not_http)
{
	static const struct {
		const char *in;
		size_t len;
	} v[] = {
		{ S("\x16\x03\x01\x02\x00") },
		{ S("SSH-2.0-OpenSSH_9.6\r\n") },
		{ S("\0\0\0\x08\x04\xd2\x16\x2f") }, /* PostgreSQL SSLRequest */
		{ S("*1\r\n$4\r\nPING\r\n") },
		{ S(" GET / HTTP/1.1\r\n") },
		{ S("GET\t/ HTTP/1.1\r\n") },
		{ S("GET\r\n") },
		{ S("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG") }, /* 33 token bytes, no SP */
		{ S("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(parse(v[i].in, v[i].len, NULL, 0), PROXY_HTTP_NOT_HTTP, "vector %zu", i);
	cr_assert_eq(parse("", 0, NULL, 0), PROXY_HTTP_NEED_MORE);
	cr_assert_eq(parse(S("PRI * HTTP/2.0\r"), NULL, 0), PROXY_HTTP_NEED_MORE);
	/* exactly 32 method bytes is still a method */
	cr_assert_eq(parse(S("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF / HTTP/1.1\r\nHost: a\r\n\r\n"),
			   NULL, 0),
		     PROXY_HTTP_OK);
}

/* ---- malformed, one test per class --------------------------------------- */

static void all_malformed(const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum proxy_http_status st = parse(v[i], strlen(v[i]), NULL, 0);
		cr_assert_eq(st, PROXY_HTTP_MALFORMED, "vector %zu (%s): %d", i, v[i], st);
	}
}
#define MALFORMED(...)                                                   \
	do {                                                             \
		static const char *const v_[] = { __VA_ARGS__ };         \
		all_malformed(v_, N_ELEMS(v_));                          \
	} while (0)

Test(sniff_http, bare_lf)
{
	MALFORMED("GET / HTTP/1.1\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\n\n", "GET / HTTP/1.1\r\nHost: a\n\n");
}

Test(sniff_http, bare_cr)
{
	MALFORMED("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n",
		  "GET / HTTP/1.1\r\r\nHost: a\r\n\r\n");
}

Test(sniff_http, request_line_spacing)
{
	MALFORMED("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "GET /  HTTP/1.1\r\nHost: a\r\n\r\n",
		  "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", "GET /\tHTTP/1.1\r\nHost: a\r\n\r\n",
		  "GET /\r\nHost: a\r\n\r\n", "GET / \r\nHost: a\r\n\r\n");
}

Test(sniff_http, version)
{
	MALFORMED("GET / HTTP/1.2\r\nHost: a\r\n\r\n", "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
		  "GET / HTTP/0.9\r\nHost: a\r\n\r\n", "GET / http/1.1\r\nHost: a\r\n\r\n",
		  "GET / HTTP/1.10\r\nHost: a\r\n\r\n", "GET / HTTP/1\r\nHost: a\r\n\r\n",
		  "PRI * HTTP/2.0 \r\n\r\n");
}

Test(sniff_http, target_bytes)
{
	static const char nul[] = "GET /a\0b HTTP/1.1\r\nHost: a\r\n\r\n";
	cr_assert_eq(parse(nul, sizeof(nul) - 1, NULL, 0), PROXY_HTTP_MALFORMED);
	MALFORMED("GET /\x7f HTTP/1.1\r\nHost: a\r\n\r\n", "GET /\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n",
		  "GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n", "GET /#frag HTTP/1.1\r\nHost: a\r\n\r\n");
}

Test(sniff_http, target_form_for_method)
{
	MALFORMED(/* CONNECT needs authority-form with a port */
		  "CONNECT a.test HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n",
		  "CONNECT http://a.test:443/ HTTP/1.1\r\nHost: a\r\n\r\n",
		  "CONNECT a.test:0443 HTTP/1.1\r\nHost: a\r\n\r\n",
		  "CONNECT a.test:65979 HTTP/1.1\r\nHost: a\r\n\r\n",
		  "CONNECT user@a.test:443 HTTP/1.1\r\nHost: a\r\n\r\n",
		  /* authority-form is CONNECT's alone */
		  "GET a.test:443 HTTP/1.1\r\nHost: a\r\n\r\n",
		  "connect a.test:443 HTTP/1.1\r\nHost: a\r\n\r\n",
		  /* "*" is OPTIONS's alone */
		  "GET * HTTP/1.1\r\nHost: a\r\n\r\n");
}

Test(sniff_http, absolute_form)
{
	MALFORMED("GET https://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET ftp://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http:/a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http:// HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http:///x HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http://allowed.test@evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		  "GET http://a.test:0080/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http://a.test:/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		  "GET http://[::1/ HTTP/1.1\r\nHost: a.test\r\n\r\n");
}

Test(sniff_http, obs_fold)
{
	MALFORMED("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\tc\r\n\r\n",
		  /* whitespace before the first field (RFC 9112 §2.2) */
		  "GET / HTTP/1.1\r\n Host: a\r\n\r\n");
}

Test(sniff_http, whitespace_before_colon)
{
	MALFORMED("GET / HTTP/1.1\r\nHost : evil.test\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\n");
}

Test(sniff_http, field_name)
{
	MALFORMED("GET / HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n",
		  "GET / HTTP/1.1\r\nHo(st: a\r\n\r\n", "GET / HTTP/1.1\r\nHost a\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nX\xc3\xa9: b\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n");
}

Test(sniff_http, control_in_field_value)
{
	static const char nul[] = "GET / HTTP/1.1\r\nHost: a.test\0.evil.test\r\n\r\n";
	cr_assert_eq(parse(nul, sizeof(nul) - 1, NULL, 0), PROXY_HTTP_MALFORMED);
	MALFORMED("GET / HTTP/1.1\r\nHost: a\r\nX-A: \x01\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nX-A: \x7f\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a\r\nX-A: \x1b[31m\r\n\r\n");
}

Test(sniff_http, host_value_invalid)
{
	MALFORMED("GET / HTTP/1.1\r\nHost: \r\n\r\n", "GET / HTTP/1.1\r\nHost:\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test:0443\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test:65979\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test:\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test evil.test\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test, evil.test\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: user@a.test\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.test/x\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: \xc3\xa9.test\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n");
}

Test(sniff_http, content_length_invalid_or_twice)
{
	MALFORMED("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1234567890123456789\r\n\r\n",
		  "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n");
}

Test(sniff_http, content_length_with_transfer_encoding)
{
	static const char req[] = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
				  "Transfer-Encoding: chunked\r\n\r\n";
	struct proxy_http_head h;
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)req, sizeof(req) - 1, &h),
		     PROXY_HTTP_MALFORMED);
	cr_assert_eq(h.flags, PROXY_HTTP_CONTENT_LENGTH | PROXY_HTTP_TRANSFER_ENCODING);
	MALFORMED("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: a\r\nContent-Length: 4\r\n\r\n",
		  /* Transfer-Encoding is not HTTP/1.0 */
		  "POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
}

/* ---- Host: exactly one --------------------------------------------------- */

Test(sniff_http, host_missing)
{
	char desc[512];
	cr_assert_eq(parse(S("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"), desc, sizeof(desc)),
		     PROXY_HTTP_HOST_MISSING);
	cr_assert_eq(parse(S("GET / HTTP/1.0\r\n\r\n"), desc, sizeof(desc)),
		     PROXY_HTTP_HOST_MISSING);
	/* the proxy front end may still act on the CONNECT target */
	cr_assert_eq(parse(S("CONNECT a.test:443 HTTP/1.1\r\n\r\n"), desc, sizeof(desc)),
		     PROXY_HTTP_HOST_MISSING);
	cr_assert_str_eq(desc, "CONNECT|a.test:443|authority|1.1|a.test:443||:0|0|31");
	sweep(S("GET / HTTP/1.0\r\n\r\n"));
}

Test(sniff_http, host_duplicate)
{
	char desc[512];
	static const char *const v[] = {
		"GET / HTTP/1.1\r\nHost: allowed.test\r\nHost: evil.test\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a.test\r\nHost: a.test\r\n\r\n",
		"GET / HTTP/1.1\r\nhost: a.test\r\nHOST: b.test\r\nHost: c\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a.test\r\nX: y\r\nHost: \r\n\r\n",
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(parse(v[i], strlen(v[i]), desc, sizeof(desc)),
			     PROXY_HTTP_HOST_DUPLICATE, "vector %zu", i);
		cr_assert(strstr(desc, "|:0|"), "no host reported: %s", desc);
	}
}

/* ---- caps ---------------------------------------------------------------- */

Test(sniff_http, too_big)
{
	static char big[PROXY_HTTP_HEAD_MAX + 100];
	size_t n = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\nHost: a\r\nX: ");
	memset(big + n, 'x', sizeof(big) - n);
	cr_assert_eq(parse(big, PROXY_HTTP_HEAD_MAX - 1, NULL, 0), PROXY_HTTP_NEED_MORE);
	cr_assert_eq(parse(big, PROXY_HTTP_HEAD_MAX, NULL, 0), PROXY_HTTP_TOO_BIG);
	cr_assert_eq(parse(big, sizeof(big), NULL, 0), PROXY_HTTP_TOO_BIG);
	/* a head ending exactly at the cap is fine, one byte more is not */
	size_t end = PROXY_HTTP_HEAD_MAX - 4;
	memcpy(big + end, "\r\n\r\n", 4);
	cr_assert_eq(parse(big, PROXY_HTTP_HEAD_MAX, NULL, 0), PROXY_HTTP_OK);
	memset(big + n, 'x', sizeof(big) - n);
	memcpy(big + end + 1, "\r\n\r\n", 4);
	cr_assert_eq(parse(big, PROXY_HTTP_HEAD_MAX + 1, NULL, 0), PROXY_HTTP_TOO_BIG);
	/* a request line without end */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	cr_assert_eq(parse(big, sizeof(big), NULL, 0), PROXY_HTTP_TOO_BIG);
}

/* ---- target against Host ------------------------------------------------- */

Test(sniff_http, target_matches_host)
{
	static const struct {
		const char *in;
		bool match;
	} v[] = {
		{ "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", true },
		{ "GET http://A.TEST/ HTTP/1.1\r\nHost: a.test:80\r\n\r\n", true },
		{ "GET http://a.test:80/ HTTP/1.1\r\nHost: a.test\r\n\r\n", true },
		{ "GET http://a.test:8080/ HTTP/1.1\r\nHost: a.test\r\n\r\n", false },
		{ "GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", false },
		{ "GET http://a.test./ HTTP/1.1\r\nHost: a.test\r\n\r\n", false },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", true },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\n\r\n", true },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:8443\r\n\r\n", false },
		{ "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n", true },
		{ "CONNECT [::1]:443 HTTP/1.1\r\nHost: ::1:443\r\n\r\n", false },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct proxy_http_head h;
		enum proxy_http_status st =
			proxy_http_parse_head((const uint8_t *)v[i].in, strlen(v[i].in), &h);
		if (st == PROXY_HTTP_MALFORMED) {
			cr_assert(!v[i].match, "vector %zu malformed", i);
			continue;
		}
		cr_assert_eq(st, PROXY_HTTP_OK, "vector %zu: %d", i, st);
		cr_assert_eq(proxy_http_target_matches_host(&h), v[i].match, "vector %zu", i);
	}
	struct proxy_http_head h;
	static const char nohost[] = "CONNECT a.test:443 HTTP/1.1\r\n\r\n";
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)nohost, sizeof(nohost) - 1, &h),
		     PROXY_HTTP_HOST_MISSING);
	cr_assert(!proxy_http_target_matches_host(&h));
}

/* ---- authority ----------------------------------------------------------- */

static const struct {
	const char *in;
	int port_required;
	bool ok;
	const char *host;
	unsigned port;
	bool ipv6;
} authorities[] = {
	{ "a.test", 0, true, "a.test", 0, false },
	{ "a.test:443", 1, true, "a.test", 443, false },
	{ "a.test:1", 1, true, "a.test", 1, false },
	{ "a.test:65535", 1, true, "a.test", 65535, false },
	{ "127.0.0.1:8080", 1, true, "127.0.0.1", 8080, false },
	{ "[::1]:443", 1, true, "::1", 443, true },
	{ "[::1]", 0, true, "::1", 0, true },
	{ "[::ffff:127.0.0.1]:80", 0, true, "::ffff:127.0.0.1", 80, true },
	{ "[2001:DB8::1]:80", 0, true, "2001:DB8::1", 80, true },
	{ "A.Test.", 0, true, "A.Test.", 0, false },
	{ "xn--bcher-kva.test", 0, true, "xn--bcher-kva.test", 0, false },
	{ "a.test", 1, false, NULL, 0, false },
	{ "[::1]", 1, false, NULL, 0, false },
	{ "", 0, false, NULL, 0, false },
	{ ":443", 0, false, NULL, 0, false },
	{ "a.test:", 0, false, NULL, 0, false },
	{ "a.test:0", 0, false, NULL, 0, false },
	{ "a.test:0443", 0, false, NULL, 0, false },
	{ "a.test:00", 0, false, NULL, 0, false },
	{ "a.test:65536", 0, false, NULL, 0, false },
	{ "a.test:65979", 0, false, NULL, 0, false },
	{ "a.test:99999", 0, false, NULL, 0, false },
	{ "a.test:100000", 0, false, NULL, 0, false },
	{ "a.test:+443", 0, false, NULL, 0, false },
	{ "a.test:-1", 0, false, NULL, 0, false },
	{ "a.test: 443", 0, false, NULL, 0, false },
	{ "a.test:44 3", 0, false, NULL, 0, false },
	{ "a.test:443:1", 0, false, NULL, 0, false },
	{ "a.test:0x1bb", 0, false, NULL, 0, false },
	{ "user@a.test", 0, false, NULL, 0, false },
	{ "a.test@evil.test:443", 0, false, NULL, 0, false },
	{ "a test", 0, false, NULL, 0, false },
	{ "a.test/", 0, false, NULL, 0, false },
	{ "a.test\r", 0, false, NULL, 0, false },
	{ "[::1", 0, false, NULL, 0, false },
	{ "[::1]x", 0, false, NULL, 0, false },
	{ "[::1]:", 0, false, NULL, 0, false },
	{ "[]", 0, false, NULL, 0, false },
	{ "[:]", 0, false, NULL, 0, false },
	{ "[1.2.3.4]", 0, false, NULL, 0, false },
	{ "[fe80::1%25eth0]", 0, false, NULL, 0, false },
	{ "[v1.abc]", 0, false, NULL, 0, false },
	{ "[::1]]:443", 0, false, NULL, 0, false },
	{ "::1", 0, false, NULL, 0, false },
	{ "\xc3\xa9.test", 0, false, NULL, 0, false },
};

Test(sniff_http, authority)
{
	for (size_t i = 0; i < N_ELEMS(authorities); i++) {
		size_t n = strlen(authorities[i].in);
		uint8_t *c = dup_exact(authorities[i].in, n);
		struct proxy_authority a;
		enum proxy_authority_status st =
			proxy_parse_authority(c, n, authorities[i].port_required, &a);
		cr_assert_eq(st == PROXY_AUTHORITY_OK, authorities[i].ok, "vector %zu (%s)", i,
			     authorities[i].in);
		if (st == PROXY_AUTHORITY_OK) {
			cr_assert(span_inside(a.host, c, n));
			cr_assert(span_is(a.host, authorities[i].host), "vector %zu", i);
			cr_assert_eq(a.port, authorities[i].port, "vector %zu", i);
			cr_assert_eq(a.ipv6, authorities[i].ipv6, "vector %zu", i);
		}
		free(c);
	}
	uint8_t nul[] = { 'a', 0, 'b' };
	struct proxy_authority a;
	cr_assert_eq(proxy_parse_authority(nul, sizeof(nul), 0, &a), PROXY_AUTHORITY_MALFORMED);
}
