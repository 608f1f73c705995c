/* tests/unit/wire/test_http_response.c: the response framer
 * (wire/http_response.h).  A server's stream is run to its end the way a
 * terminating relay runs it: the requests it answers are queued first, each
 * head is accepted, every pass counted, and the statuses seen are compared.
 * Each input is fed as exact-size heap copies, in one piece and byte by
 * byte, so a read past it is an ASan report in the sanitizer build and a
 * framing that depends on how bytes arrive is a failure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_response.h"

struct outcome {
	enum proxy_hr_status end; /* the answer that stopped the run */
	size_t passed;            /* bytes let through, heads included */
	char statuses[256];       /* every head's status, ";"-separated */
	enum proxy_hr_state state;
	unsigned pending;         /* requests still unanswered at the end */
};

/* Runs data[0..len) in pieces of `step` bytes (0: all at once) after
 * queueing the requests named by `reqs` ('G' ordinary, 'H' HEAD, 'C'
 * CONNECT). */
static struct outcome run_step(const char *reqs, const void *data, size_t len, size_t step)
{
	struct proxy_http_responses s;
	struct outcome o = { .end = PROXY_HR_NEED_MORE };
	size_t avail = step ? 0 : len;

	proxy_http_responses_init(&s);
	for (const char *r = reqs; *r; r++)
		cr_assert(proxy_http_responses_expect(&s, *r == 'H' ? PROXY_HR_REQUEST_HEAD :
							  *r == 'C' ? PROXY_HR_REQUEST_CONNECT :
								      PROXY_HR_REQUEST));
	for (;;) {
		struct proxy_http_response h;
		size_t used = 99, n = avail - o.passed;
		uint8_t *piece = malloc(n ? n : 1);
		cr_assert(piece);
		memcpy(piece, (const uint8_t *)data + o.passed, n);
		enum proxy_hr_status st = proxy_http_responses_feed(&s, piece, n, &used, &h);
		free(piece);
		if (st == PROXY_HR_PASS) {
			cr_assert(used > 0 && used <= n);
			o.passed += used;
		} else if (st == PROXY_HR_HEAD) {
			cr_assert_eq(used, h.head_len);
			size_t l = strlen(o.statuses);
			snprintf(o.statuses + l, sizeof(o.statuses) - l, "%s%u", l ? ";" : "", h.status);
			proxy_http_responses_accept(&s, &h);
			o.passed += used;
		} else {
			cr_assert_eq(used, 0);
			if (st == PROXY_HR_NEED_MORE && avail < len) {
				avail = avail + step > len ? len : avail + step;
				continue;
			}
			o.end = st;
			break;
		}
	}
	o.state = s.state;
	o.pending = s.count;
	return o;
}

/* Both ways of feeding must agree on everything. */
static void expect(const char *reqs, const char *in, enum proxy_hr_status end, size_t passed,
		   const char *statuses, enum proxy_hr_state state)
{
	for (size_t step = 0; step <= 1; step++) {
		struct outcome o = run_step(reqs, in, strlen(in), step);
		cr_assert_eq(o.end, end, "%s (step %zu): end %d, want %d", in, step, o.end, end);
		cr_assert_eq(o.passed, passed, "%s (step %zu): passed %zu, want %zu", in, step,
			     o.passed, passed);
		cr_assert_str_eq(o.statuses, statuses, "%s (step %zu)", in, step);
		cr_assert_eq(o.state, state, "%s (step %zu): state %d, want %d", in, step, o.state,
			     state);
	}
}


Test(http_response, content_length_then_next_head)
{
	const char *in = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello"
			 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	expect("GG", in, PROXY_HR_NEED_MORE, strlen(in), "200;404", PROXY_HR_AT_HEAD);
}

Test(http_response, chunked_with_extensions_and_trailers)
{
	const char *in = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
			 "5;ext=\"v\"\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n"
			 "HTTP/1.1 204 No Content\r\n\r\n";
	expect("GG", in, PROXY_HR_NEED_MORE, strlen(in), "200;204", PROXY_HR_AT_HEAD);
}

/* §6.3 rule 1: the answer to HEAD has no body, whatever it declares; a
 * framer that read 5 body bytes would swallow the next head. */
Test(http_response, head_answer_has_no_body)
{
	const char *in = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
			 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	expect("HG", in, PROXY_HR_NEED_MORE, strlen(in), "200;200", PROXY_HR_AT_HEAD);
	/* the same bytes answering two GETs: the second head is body */
	struct outcome o = run_step("GG", in, strlen(in), 0);
	cr_assert_str_eq(o.statuses, "200");
	cr_assert_eq(o.end, PROXY_HR_MALFORMED, "\"ok\" read as a status line");
}

Test(http_response, no_body_statuses)
{
	const char *in = "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
			 "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n"
			 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	expect("GGG", in, PROXY_HR_NEED_MORE, strlen(in), "304;204;200", PROXY_HR_AT_HEAD);
}

/* §15.2: 1xx is interim: the final response to the same request follows,
 * and the HEAD it answers still frames that final one. */
Test(http_response, interim_responses_keep_the_request)
{
	const char *in = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
			 "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"
			 "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
	expect("HG", in, PROXY_HR_NEED_MORE, strlen(in), "100;103;200;200", PROXY_HR_AT_HEAD);
	struct outcome o = run_step("HG", in, strlen(in), 0);
	cr_assert_eq(o.pending, 0);
}

Test(http_response, switching_protocols_is_opaque)
{
	const char *in = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
			 "\x81\x05hello HTTP/1.1 200 OK\r\n\r\n";
	expect("G", in, PROXY_HR_NEED_MORE, strlen(in), "101", PROXY_HR_OPAQUE);
}

Test(http_response, connect_2xx_is_a_tunnel_but_refusal_is_not)
{
	const char *tunnel = "HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01";
	expect("C", tunnel, PROXY_HR_NEED_MORE, strlen(tunnel), "200", PROXY_HR_OPAQUE);
	const char *no = "HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno"
			 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	expect("CG", no, PROXY_HR_NEED_MORE, strlen(no), "403;200", PROXY_HR_AT_HEAD);
}

/* §6.3 rules 4 and 8: no length, or a coding other than chunked: the body
 * is everything until the server closes. */
Test(http_response, until_close)
{
	const char *nolen = "HTTP/1.0 200 OK\r\n\r\nbody HTTP/1.1 200 OK\r\n\r\n";
	expect("GG", nolen, PROXY_HR_NEED_MORE, strlen(nolen), "200", PROXY_HR_UNTIL_CLOSE);
	const char *gzip = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n\x1f\x8b";
	expect("G", gzip, PROXY_HR_NEED_MORE, strlen(gzip), "200", PROXY_HR_UNTIL_CLOSE);
}

Test(http_response, unsolicited_response_framed_as_ordinary)
{
	const char *in = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 3\r\n\r\nbye";
	expect("", in, PROXY_HR_NEED_MORE, strlen(in), "408", PROXY_HR_AT_HEAD);
}

Test(http_response, status_line_forms)
{
	const char *no_reason = "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n";
	expect("G", no_reason, PROXY_HR_NEED_MORE, strlen(no_reason), "200", PROXY_HR_AT_HEAD);
	const char *empty_reason = "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n";
	expect("G", empty_reason, PROXY_HR_NEED_MORE, strlen(empty_reason), "200",
	       PROXY_HR_AT_HEAD);
}

/* Each a framing porta refuses rather than guess: the client could read it
 * the other way, and its next "response" would be bytes porta never read. */
Test(http_response, refused)
{
	static const char *const bad[] = {
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.2 200 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/1.1 099 Low\r\n\r\n",
		"HTTP/1.1 200OK\r\n\r\n",
		"HTTP/1.1  200 OK\r\n\r\n",
		"HTTP/1.1 200 O\x01K\r\n\r\n",
		"http/1.1 200 OK\r\n\r\n",
		"ICY 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\n\r\n",
		"HTTP/1.1 200 OK\r\nX : a\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1, 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 5\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (size_t step = 0; step <= 1; step++) {
			struct outcome o = run_step("G", bad[i], strlen(bad[i]), step);
			cr_assert_eq(o.end, PROXY_HR_MALFORMED, "#%zu %s (step %zu): end %d", i,
				     bad[i], step, o.end);
		}
	}
}

Test(http_response, head_too_big)
{
	size_t n = PROXY_HTTP_HEAD_MAX + 10;
	char *in = malloc(n + 1);
	cr_assert(in);
	memcpy(in, "HTTP/1.1 200 OK\r\nX: ", 21);
	memset(in + 21, 'a', n - 21);
	in[n] = '\0';
	struct outcome o = run_step("G", in, n, 0);
	cr_assert_eq(o.end, PROXY_HR_TOO_BIG);
	free(in);
}

Test(http_response, pending_queue_is_bounded_and_in_order)
{
	struct proxy_http_responses s;
	proxy_http_responses_init(&s);
	for (unsigned i = 0; i < PROXY_HR_PENDING_MAX; i++)
		cr_assert(proxy_http_responses_expect(&s, i == 1 ? PROXY_HR_REQUEST_HEAD : PROXY_HR_REQUEST));
	cr_assert_not(proxy_http_responses_expect(&s, PROXY_HR_REQUEST));
	cr_assert_eq(s.count, PROXY_HR_PENDING_MAX);
	/* the first answers a GET (body read), the second the HEAD (none) */
	static const char in[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
				 "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n"
				 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	size_t off = 0, used;
	struct proxy_http_response h;
	int heads = 0;
	while (off < sizeof(in) - 1) {
		enum proxy_hr_status st = proxy_http_responses_feed(&s, (const uint8_t *)in + off,
								    sizeof(in) - 1 - off, &used, &h);
		cr_assert(st == PROXY_HR_PASS || st == PROXY_HR_HEAD, "status %d at %zu", st, off);
		if (st == PROXY_HR_HEAD) {
			proxy_http_responses_accept(&s, &h);
			heads++;
		}
		off += used;
	}
	cr_assert_eq(heads, 3);
	cr_assert_eq(s.count, PROXY_HR_PENDING_MAX - 3);
	cr_assert(proxy_http_responses_expect(&s, PROXY_HR_REQUEST));
}
