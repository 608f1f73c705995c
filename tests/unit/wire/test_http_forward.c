/* tests/unit/wire/test_http_forward.c: the head porta's HTTP proxy forwards
 * upstream for a client's request (wire/http_forward.h): origin-form, the
 * proxy's hop-by-hop fields gone, "close" passed on, Upgrade dropped and
 * the framing the request framer accepts plain. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_forward.h"
#include "wire/http_stream.h"

/* Parses head (an exact-size heap copy, so ASan sees any over-read),
 * forwards it and compares with want; returns the parsed head's flags. */
static unsigned forwarded(const char *head, const char *want, bool want_close)
{
	size_t len = strlen(head);
	uint8_t *buf = malloc(len);
	cr_assert(buf);
	memcpy(buf, head, len);
	struct proxy_http_head h;
	enum proxy_http_status st = proxy_http_parse_head(buf, len, &h);
	cr_assert(st == PROXY_HTTP_OK, "parse %d: %s", st, head);
	size_t cap = proxy_http_forward_max(&h);
	uint8_t *out = malloc(cap);
	cr_assert(out);
	cr_assert_eq(proxy_http_forward_head(buf, &h, out, cap - 1, NULL), 0,
		     "a buffer below the maximum is refused");
	bool close = !want_close;
	size_t n = proxy_http_forward_head(buf, &h, out, cap, &close);
	cr_assert(n > 0 && n <= cap);
	cr_assert_eq(n, strlen(want), "length %zu, want %zu: %.*s", n, strlen(want), (int)n, out);
	cr_assert(memcmp(out, want, n) == 0, "got: %.*s", (int)n, out);
	cr_assert_eq(close, want_close);
	/* what goes upstream is itself a head the parser accepts, in
	 * origin-form (or the asterisk-form it was) */
	struct proxy_http_head again;
	cr_assert_eq(proxy_http_parse_head(out, n, &again), PROXY_HTTP_OK);
	cr_assert_eq(again.form, h.form == PROXY_HTTP_FORM_ABSOLUTE ? PROXY_HTTP_FORM_ORIGIN : h.form);
	unsigned flags = h.flags;
	free(out);
	free(buf);
	return flags;
}

Test(http_forward, absolute_form_becomes_origin_form_without_proxy_fields)
{
	forwarded("GET http://registry.example:8080/pkg/a?b=c HTTP/1.1\r\n"
		  "Host: registry.example:8080\r\nProxy-Authorization: Basic eA==\r\n"
		  "PROXY-CONNECTION: keep-alive\r\nAccept: */*\r\nConnection: keep-alive\r\n"
		  "Keep-Alive: timeout=5\r\nUser-Agent: t\r\n\r\n",
		  "GET /pkg/a?b=c HTTP/1.1\r\nHost: registry.example:8080\r\nAccept: */*\r\n"
		  "User-Agent: t\r\n\r\n",
		  false);
}

Test(http_forward, empty_path_gets_a_slash)
{
	forwarded("GET http://registry.example HTTP/1.1\r\nHost: registry.example\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: registry.example\r\n\r\n", false);
	forwarded("HEAD http://registry.example?q HTTP/1.0\r\nHost: registry.example\r\n\r\n",
		  "HEAD /?q HTTP/1.0\r\nHost: registry.example\r\n\r\n", false);
}

Test(http_forward, close_among_the_options_is_passed_on)
{
	const char *closing[] = { "close", "Close", "keep-alive, close", " x ,CLOSE , y",
				  "upgrade,close" };
	for (size_t i = 0; i < sizeof(closing) / sizeof(closing[0]); i++) {
		char head[256];
		snprintf(head, sizeof(head),
			 "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nConnection: %s\r\n\r\n",
			 closing[i]);
		forwarded(head, "GET / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n",
			  true);
	}
	/* tokens that only contain the word do not close */
	forwarded("GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n"
		  "Connection: closer, xclose, close-x\r\n\r\n",
		  "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", false);
}

Test(http_forward, upgrade_is_dropped_and_the_framing_stays_plain)
{
	const char *head = "GET http://a.example/ws HTTP/1.1\r\nHost: a.example\r\n"
			   "Upgrade: websocket\r\nConnection: Upgrade\r\nContent-Length: 2\r\n\r\n";
	unsigned flags = forwarded(head, "GET /ws HTTP/1.1\r\nHost: a.example\r\n"
				   "Content-Length: 2\r\n\r\n", false);
	cr_assert(flags & PROXY_HTTP_UPGRADE, "the client's head did carry Upgrade");

	struct proxy_http_head h;
	cr_assert_eq(proxy_http_parse_head((const uint8_t *)head, strlen(head), &h), PROXY_HTTP_OK);
	struct proxy_http_head f = proxy_http_forward_framing(&h);
	cr_assert_not(f.flags & PROXY_HTTP_UPGRADE);
	cr_assert(f.flags & PROXY_HTTP_CONTENT_LENGTH);
	cr_assert_eq(f.content_length, 2);
	/* the framer then reads the body and the next head, not opaque bytes */
	struct proxy_http_stream s;
	proxy_http_stream_init(&s);
	proxy_http_stream_accept(&s, &f);
	cr_assert_eq(s.state, PROXY_HS_BODY);
	proxy_http_stream_init(&s);
	proxy_http_stream_accept(&s, &h);
	cr_assert_eq(s.state, PROXY_HS_OPAQUE, "the client's own head would have");
}

Test(http_forward, origin_form_keeps_its_target)
{
	forwarded("OPTIONS * HTTP/1.1\r\nHost: a.example\r\nProxy-X: 1\r\n\r\n",
		  "OPTIONS * HTTP/1.1\r\nHost: a.example\r\n\r\n", false);
	forwarded("GET /p?q HTTP/1.1\r\nHost: a.example\r\n\r\n",
		  "GET /p?q HTTP/1.1\r\nHost: a.example\r\n\r\n", false);
}
