/* tests/unit/wire/test_http_stream.c: the request framer
 * (wire/http_stream.h).  A stream is run to its end the way the relay
 * runs it: heads are accepted, every pass counted, and the record of what
 * happened is compared; each input is a heap copy of its exact size, so a
 * read past it is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_stream.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

struct outcome {
	enum proxy_hs_status end; /* the answer that stopped the run */
	size_t passed;            /* bytes let through, heads included */
	size_t heads;
	char hosts[256];          /* every head's Host value, ";"-separated */
};

/* Runs buf[0..len) fed in pieces of `step` bytes (0: all at once), as the
 * relay does: the unpassed tail is handed again with the next piece.  With
 * skip, the bytes proxy_http_stream_unseen() names are let through unfed,
 * as the relay's gate lets a body go (netproxy/conn.c, http_gate). */
static struct outcome run_skipping(const void *data, size_t len, size_t step, bool skip)
{
	uint8_t *buf = malloc(len ? len : 1);
	struct proxy_http_stream s;
	struct outcome o = { .end = PROXY_HS_NEED_MORE };
	size_t avail = step ? 0 : len;

	cr_assert(buf);
	memcpy(buf, data, len);
	proxy_http_stream_init(&s);
	for (;;) {
		struct proxy_http_head h;
		size_t used = 99;
		/* an exact-size copy of what has arrived, from the position on */
		size_t n = avail - o.passed;
		uint64_t unseen = skip ? proxy_http_stream_unseen(&s) : 0;
		if (unseen > 0 && n > 0) {
			size_t k = unseen < n ? (size_t)unseen : n;
			proxy_http_stream_skip(&s, k);
			o.passed += k;
			continue;
		}
		uint8_t *piece = malloc(n ? n : 1);
		cr_assert(piece);
		memcpy(piece, buf + o.passed, n);
		enum proxy_hs_status st = proxy_http_stream_feed(&s, piece, n, &used, &h);
		if (st == PROXY_HS_PASS) {
			cr_assert(used > 0 && used <= n);
			o.passed += used;
		} else if (st == PROXY_HS_HEAD) {
			cr_assert_eq(used, h.head_len);
			size_t l = strlen(o.hosts);
			snprintf(o.hosts + l, sizeof(o.hosts) - l, "%s%.*s", o.heads ? ";" : "",
				 (int)h.host_value.n, (const char *)h.host_value.p);
			proxy_http_stream_accept(&s, &h);
			o.heads++;
			o.passed += used;
		} else {
			cr_assert_eq(used, 0);
			free(piece);
			if (st == PROXY_HS_NEED_MORE && avail < len) {
				avail = avail + step > len ? len : avail + step;
				continue;
			}
			o.end = st;
			break;
		}
		free(piece);
	}
	free(buf);
	return o;
}

static struct outcome run(const void *data, size_t len, size_t step)
{
	return run_skipping(data, len, step, false);
}

#define RUN(lit) run(lit, sizeof(lit) - 1, 0)

static void expect(const char *in, enum proxy_hs_status end, size_t passed, const char *hosts)
{
	struct outcome o = run(in, strlen(in), 0);
	cr_assert_eq(o.end, end, "%s: end %d, want %d", in, o.end, end);
	cr_assert_eq(o.passed, passed, "%s: passed %zu, want %zu", in, o.passed, passed);
	cr_assert_str_eq(o.hosts, hosts, "%s", in);
}

/* ---- good streams --------------------------------------------------------- */

static const char *const good[] = {
	"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a.test\r\n\r\nGET /2 HTTP/1.1\r\nHost: b.test\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: b\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 34\r\n\r\nGET / HTTP/1.1\r\nHost: hidden\r\n\r\n"
	"GET / HTTP/1.1\r\nHost: b\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
	"5\r\nhello\r\n1A;ext=val;q=\"x\\\"y\" ; e2\r\nabcdefghijklmnopqrstuvwxyz\r\n"
	"000\r\nX-Sum: 1\r\nX-Other:\t2 \r\n\r\nGET / HTTP/1.1\r\nHost: b\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: ,chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n\r\n\r\nGET / HTTP/1.0\r\nHost: b\r\n\r\n",
	"GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
	"\x81\x85" "anything at all\r\n\n",
	"CONNECT a.test:80 HTTP/1.1\r\nHost: a.test:80\r\n\r\nopaque bytes",
};

static const char *const good_hosts[] = {
	"a.test", "a.test;b.test", "a.test;b", "a;b", "a;b", "a", "a", "a;b", "a", "a.test:80",
};

Test(http_stream, good_streams_pass_whole)
{
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		size_t len = strlen(good[i]);
		if (i == 8) /* a NUL-free literal: the websocket frame bytes follow */
			len = strlen(good[i]);
		struct outcome o = run(good[i], len, 0);
		cr_assert_eq(o.end, PROXY_HS_NEED_MORE, "good[%zu]: end %d", i, o.end);
		cr_assert_eq(o.passed, len, "good[%zu]: passed %zu of %zu", i, o.passed, len);
		cr_assert_str_eq(o.hosts, good_hosts[i], "good[%zu]", i);
	}
}

/* docs/style.md §12: every prefix of a good stream passes a prefix and is never
 * refused; fed a byte at a time (and in odd pieces) it ends the same. */
Test(http_stream, truncation_at_every_byte)
{
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		size_t len = strlen(good[i]);
		struct outcome whole = run(good[i], len, 0);
		for (size_t k = 0; k < len; k++) {
			struct outcome o = run(good[i], k, 0);
			cr_assert_eq(o.end, PROXY_HS_NEED_MORE, "good[%zu] cut at %zu: end %d", i, k, o.end);
			cr_assert(o.passed <= k && o.passed <= whole.passed);
			cr_assert(strncmp(o.hosts, whole.hosts, strlen(o.hosts)) == 0);
		}
		size_t steps[] = { 1, 2, 3, 7, 64 };
		for (size_t j = 0; j < N_ELEMS(steps); j++) {
			struct outcome o = run(good[i], len, steps[j]);
			cr_assert_eq(o.end, whole.end, "good[%zu] by %zu", i, steps[j]);
			cr_assert_eq(o.passed, whole.passed, "good[%zu] by %zu", i, steps[j]);
			cr_assert_str_eq(o.hosts, whole.hosts, "good[%zu] by %zu", i, steps[j]);
		}
	}
}

Test(http_stream, head_waits_whole_and_body_passes_as_it_comes)
{
	/* a head is never let through before it is complete */
	expect("GET / HTTP/1.1\r\nHost: a\r\n", PROXY_HS_NEED_MORE, 0, "");
	/* body bytes pass as they arrive, the next head waits */
	expect("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhel", PROXY_HS_NEED_MORE,
	       51, "a");
	expect("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nhelGET / HTTP/1.1\r\nHo",
	       PROXY_HS_NEED_MORE, 50, "a");
	/* chunk data passes before its CRLF; the size line waits for its LF */
	expect("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nab",
	       PROXY_HS_NEED_MORE, 62, "a");
	expect("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10", PROXY_HS_NEED_MORE,
	       56, "a");
}

/* ---- refusals, one class each ------------------------------------------------ */

#define CHUNKED_HEAD "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
#define CH_LEN (sizeof(CHUNKED_HEAD) - 1)

Test(http_stream, head_refusals)
{
	struct {
		const char *in;
		enum proxy_hs_status end;
	} v[] = {
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		  PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		  PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\n", PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
		  PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: "
		  "chunked\r\n\r\n", PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n", PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", PROXY_HS_MALFORMED },
		{ "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n y\r\n\r\n", PROXY_HS_MALFORMED }, /* obs-fold */
		{ "GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n", PROXY_HS_MALFORMED },          /* bare LF */
		{ "GET / HTTP/1.1\r\nHost: a\rX: 1\r\n\r\n", PROXY_HS_MALFORMED },          /* bare CR */
		{ "GET / HTTP/1.1\r\nX: 1\r\n\r\n", PROXY_HS_NO_HOST },
		{ "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", PROXY_HS_DUPLICATE_HOST },
		{ "\x16\x03\x01\x00\x05hello", PROXY_HS_MALFORMED },
		{ "\n", PROXY_HS_MALFORMED },
		{ "\r\r", PROXY_HS_MALFORMED },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++)
		expect(v[i].in, v[i].end, 0, "");
}

Test(http_stream, second_head_refused_after_the_first_passed)
{
	static const char first[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	char in[256];
	snprintf(in, sizeof(in), "%sPOST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n",
		 first);
	expect(in, PROXY_HS_MALFORMED, sizeof(first) - 1, "a");
	snprintf(in, sizeof(in), "%sGET / HTTP/1.1\r\n\r\n", first);
	expect(in, PROXY_HS_NO_HOST, sizeof(first) - 1, "a");
	snprintf(in, sizeof(in), "%sgarbage\r\n\r\n", first);
	expect(in, PROXY_HS_MALFORMED, sizeof(first) - 1, "a");
	snprintf(in, sizeof(in), "%s\n", first);
	expect(in, PROXY_HS_MALFORMED, sizeof(first) - 1, "a");
}

Test(http_stream, chunk_refusals)
{
	static const char *const bad[] = {
		"\r\n",                       /* no size */
		"g\r\n",                      /* not hex */
		"-1\r\n",                     /* a sign */
		"0x10\r\n",                   /* a prefix */
		" 1\r\n",                     /* a blank first */
		"1 2\r\n",                    /* a blank inside */
		"1\n",                        /* bare LF */
		"1\rx\r\n",                   /* bare CR */
		"11111111111111111\r\n",      /* 2^64 and more */
		"1000000000000001\r\n",       /* past 2^60 */
		"1;\r\n",                     /* extension without a name */
		"1;a=\r\n",                   /* without a value */
		"1;a=\"x\r\n",                /* an open quoted-string */
		"1;a=\"x\x01\"\r\n",          /* a CTL in it */
		"1;a b\r\n",                  /* two tokens */
		"1;a=b c\r\n",
		"1;a@b\r\n",                  /* not a token */
		"1\r\nxy\r\n",                /* data longer than its size */
		"1\r\nx\n",                   /* data then a bare LF */
		"1\r\nx\rx",                  /* data then CR and not LF */
		"0\r\nHost: b\r\n\r\n",       /* routing fields in trailers */
		"0\r\ncontent-length: 1\r\n\r\n",
		"0\r\nTransfer-Encoding: chunked\r\n\r\n",
		"0\r\n folded\r\n\r\n",       /* obs-fold */
		"0\r\nX : 1\r\n\r\n",         /* a blank before the colon */
		"0\r\nX: \x01\r\n\r\n",       /* a CTL in a value */
		"0\r\nnocolon\r\n\r\n",
		"0\r\nX: 1\n\r\n",            /* bare LF */
	};
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		char in[512];
		int n = snprintf(in, sizeof(in), "%s%s", CHUNKED_HEAD, bad[i]);
		struct outcome o = run(in, (size_t)n, 0);
		cr_assert_eq(o.end, PROXY_HS_MALFORMED, "chunk[%zu] %s: end %d", i, bad[i], o.end);
		cr_assert(o.passed >= CH_LEN, "chunk[%zu]", i);
	}
}

Test(http_stream, caps)
{
	/* a chunk-size line past its cap */
	size_t n = CH_LEN + PROXY_HS_CHUNK_LINE_MAX + 8;
	char *in = malloc(n);
	cr_assert(in);
	memcpy(in, CHUNKED_HEAD, CH_LEN);
	memset(in + CH_LEN, '0', n - CH_LEN);
	struct outcome o = run(in, n, 0);
	cr_assert_eq(o.end, PROXY_HS_TOO_BIG);
	cr_assert_eq(o.passed, CH_LEN);
	/* just under the cap: leading zeros are still a size */
	memset(in + CH_LEN, '0', PROXY_HS_CHUNK_LINE_MAX - 2);
	memcpy(in + CH_LEN + PROXY_HS_CHUNK_LINE_MAX - 2, "\r\n\r\n", 4);
	o = run(in, CH_LEN + PROXY_HS_CHUNK_LINE_MAX + 2, 0);
	cr_assert_eq(o.end, PROXY_HS_NEED_MORE);
	cr_assert_eq(o.passed, CH_LEN + PROXY_HS_CHUNK_LINE_MAX + 2);
	free(in);

	/* a trailer section past its cap, made of lines each well-formed */
	size_t lines = PROXY_HS_TRAILERS_MAX / 16 + 2;
	n = CH_LEN + 3 + lines * 16;
	in = malloc(n);
	cr_assert(in);
	memcpy(in, CHUNKED_HEAD "0\r\n", CH_LEN + 3);
	for (size_t i = 0; i < lines; i++)
		memcpy(in + CH_LEN + 3 + i * 16, "X-Trailer: 1234\r\n", 16);
	o = run(in, n, 0);
	cr_assert_eq(o.end, PROXY_HS_TOO_BIG);
	free(in);

	/* a head past PROXY_HTTP_HEAD_MAX */
	n = PROXY_HTTP_HEAD_MAX + 64;
	in = malloc(n);
	cr_assert(in);
	memset(in, 'a', n);
	memcpy(in, "GET / HTTP/1.1\r\nHost: a\r\nX: ", 28);
	o = run(in, n, 0);
	cr_assert_eq(o.end, PROXY_HS_TOO_BIG);
	cr_assert_eq(o.passed, 0);
	free(in);
}

Test(http_stream, large_sizes_pass_in_pieces)
{
	/* a body larger than any one buffer passes piece by piece */
	static const char head[] = "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999\r\n\r\n";
	struct proxy_http_stream s;
	struct proxy_http_head h;
	size_t used;
	uint8_t body[4096];
	memset(body, 'G', sizeof(body));
	proxy_http_stream_init(&s);
	cr_assert_eq(proxy_http_stream_feed(&s, (const uint8_t *)head, sizeof(head) - 1, &used, &h),
		     PROXY_HS_HEAD);
	proxy_http_stream_accept(&s, &h);
	for (int i = 0; i < 100; i++) {
		cr_assert_eq(proxy_http_stream_feed(&s, body, sizeof(body), &used, &h), PROXY_HS_PASS);
		cr_assert_eq(used, sizeof(body));
	}
	cr_assert_eq(s.state, PROXY_HS_BODY);
	cr_assert_eq(s.remaining, UINT64_C(999999999999) - 100 * sizeof(body));
	/* the largest chunk size accepted */
	static const char big[] = CHUNKED_HEAD "1000000000000000\r\n";
	struct outcome o = RUN(big);
	cr_assert_eq(o.end, PROXY_HS_NEED_MORE);
	cr_assert_eq(o.passed, sizeof(big) - 1);
	/* len 0 asks for more in every state */
	cr_assert_eq(proxy_http_stream_feed(&s, body, 0, &used, &h), PROXY_HS_NEED_MORE);
	cr_assert_eq(used, 0);
}

Test(http_stream, upgrade_and_connect_are_opaque)
{
	static const char up[] = "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n\r\n"
				 "GET / HTTP/1.1\r\nHost: other\r\n\r\n";
	struct outcome o = RUN(up);
	cr_assert_eq(o.passed, sizeof(up) - 1);
	cr_assert_eq(o.heads, 1); /* documented: after Upgrade the bytes are not read */
	cr_assert_str_eq(o.hosts, "a");
}

/* Letting the bytes proxy_http_stream_unseen() names go unfed frames every
 * stream as feeding them does: the same bytes pass, the same heads are seen
 * (a head hidden in a body stays hidden, one after it is still seen), the
 * same refusal ends it, in one piece or many. */
Test(http_stream, skipping_unseen_bytes_frames_the_same)
{
	static const char *const more[] = {
		/* a body, then a head with no Host */
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\n",
		/* chunk data not followed by CRLF */
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY",
		/* a body cut short */
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\nonly this",
		/* two chunks, then trailers naming Host */
		("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
		 "2\r\nab\r\n4\r\ncdef\r\n0\r\nHost: b\r\n\r\n"),
	};
	static const size_t steps[] = { 0, 1, 2, 5, 13 };
	for (size_t i = 0; i < N_ELEMS(good) + N_ELEMS(more); i++) {
		const char *in = i < N_ELEMS(good) ? good[i] : more[i - N_ELEMS(good)];
		for (size_t j = 0; j < N_ELEMS(steps); j++) {
			struct outcome fed = run_skipping(in, strlen(in), steps[j], false);
			struct outcome skipped = run_skipping(in, strlen(in), steps[j], true);
			cr_assert_eq(skipped.end, fed.end, "stream %zu, step %zu", i, steps[j]);
			cr_assert_eq(skipped.passed, fed.passed, "stream %zu, step %zu", i, steps[j]);
			cr_assert_eq(skipped.heads, fed.heads, "stream %zu, step %zu", i, steps[j]);
			cr_assert_str_eq(skipped.hosts, fed.hosts, "stream %zu, step %zu", i, steps[j]);
		}
	}
}

Test(http_stream, unseen_is_what_passes_without_a_look)
{
	struct proxy_http_stream s;
	struct proxy_http_head h;
	size_t used;
	static const char post[] = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n";

	proxy_http_stream_init(&s);
	cr_assert_eq(proxy_http_stream_unseen(&s), 0, "a head must be read");
	cr_assert_eq(proxy_http_stream_feed(&s, (const uint8_t *)post, sizeof(post) - 1, &used, &h),
		     PROXY_HS_HEAD);
	proxy_http_stream_accept(&s, &h);
	cr_assert_eq(proxy_http_stream_unseen(&s), 10);
	proxy_http_stream_skip(&s, 4);
	cr_assert_eq(proxy_http_stream_unseen(&s), 6);
	proxy_http_stream_skip(&s, 100); /* clamped */
	cr_assert_eq(proxy_http_stream_unseen(&s), 0);
	cr_assert_eq(s.state, PROXY_HS_AT_HEAD, "the next head is read again");
}
