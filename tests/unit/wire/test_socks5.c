/* tests/unit/wire/test_socks5.c: SOCKS5 greeting, request and replies
 * (wire/socks5.h, RFC 1928).  Inputs are parsed from exact-size heap
 * copies, so a read past len is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "wire/socks5.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define B(...) ((const uint8_t[]){ __VA_ARGS__ }), sizeof((const uint8_t[]){ __VA_ARGS__ })

static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, p, n);
	return c;
}

static enum proxy_socks5_status greeting(const uint8_t *p, size_t n, size_t *glen)
{
	uint8_t *c = dup_exact(p, n);
	*glen = 999;
	enum proxy_socks5_status st = proxy_socks5_parse_greeting(c, n, glen);
	free(c);
	return st;
}

/* Parses a heap copy; on OK checks the name span lies inside the input. */
static enum proxy_socks5_status request(const uint8_t *p, size_t n, struct proxy_socks5_request *r)
{
	uint8_t *c = dup_exact(p, n);
	enum proxy_socks5_status st = proxy_socks5_parse_request(c, n, r);
	if (st == PROXY_SOCKS5_OK) {
		cr_assert(r->len <= n);
		if (r->dst.atyp == PROXY_SOCKS5_ATYP_DOMAIN) {
			cr_assert(r->dst.name.p == c + 5 && r->dst.name.n == c[4]);
			cr_assert(r->dst.name.n >= 1);
			cr_assert_null(memchr(r->dst.name.p, '\0', r->dst.name.n));
		}
		/* leave the span pointing at the caller's bytes for comparisons */
		if (r->dst.name.p)
			r->dst.name.p = p + (r->dst.name.p - c);
	}
	free(c);
	return st;
}

/* ---- greeting ------------------------------------------------------------ */

Test(socks5, greeting_good)
{
	const struct {
		const uint8_t *p;
		size_t n;
		size_t glen;
	} v[] = {
		{ B(5, 1, 0), 3 },
		{ B(5, 2, 0, 2), 4 },           /* curl: NO AUTH, USERNAME/PASSWORD */
		{ B(5, 3, 2, 1, 0), 5 },        /* NO AUTH last */
		{ B(5, 1, 0, 5, 1, 0, 1), 3 },  /* request pipelined behind it */
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		size_t glen;
		cr_assert_eq(greeting(v[i].p, v[i].n, &glen), PROXY_SOCKS5_OK, "vector %zu", i);
		cr_assert_eq(glen, v[i].glen);
		for (size_t k = 0; k < v[i].glen; k++) {
			cr_assert_eq(greeting(v[i].p, k, &glen), PROXY_SOCKS5_NEED_MORE);
			cr_assert_eq(glen, 999, "greeting_len written on NEED_MORE");
		}
	}
	uint8_t all[257] = { 5, 255 };
	for (int m = 0; m < 255; m++)
		all[2 + m] = (uint8_t)(255 - m); /* 0xff down to 0x01: every method but 0 */
	size_t glen;
	cr_assert_eq(greeting(all, sizeof(all), &glen), PROXY_SOCKS5_NO_METHOD);
	all[200] = 0;
	cr_assert_eq(greeting(all, sizeof(all), &glen), PROXY_SOCKS5_OK);
	cr_assert_eq(glen, 257);
}

Test(socks5, greeting_no_acceptable_method)
{
	size_t glen;
	cr_assert_eq(greeting(B(5, 1, 2), &glen), PROXY_SOCKS5_NO_METHOD);
	cr_assert_eq(glen, 3);
	cr_assert_eq(greeting(B(5, 2, 1, 0x80), &glen), PROXY_SOCKS5_NO_METHOD);
	uint8_t out[2];
	cr_assert_eq(proxy_socks5_build_method(out, sizeof(out), PROXY_SOCKS5_METHOD_UNACCEPTABLE), 2);
	cr_assert(out[0] == 5 && out[1] == 0xff);
	cr_assert_eq(proxy_socks5_build_method(out, 1, 0), 0);
}

Test(socks5, greeting_not_socks5)
{
	size_t glen;
	/* SOCKS4 CONNECT, an HTTP request, a TLS record */
	cr_assert_eq(greeting(B(4, 1, 0, 80, 127, 0, 0, 1, 0), &glen), PROXY_SOCKS5_NOT_SOCKS5);
	cr_assert_eq(greeting((const uint8_t *)"CONNECT", 7, &glen), PROXY_SOCKS5_NOT_SOCKS5);
	cr_assert_eq(greeting(B(0x16, 3, 1), &glen), PROXY_SOCKS5_NOT_SOCKS5);
	cr_assert_eq(greeting(B(4), &glen), PROXY_SOCKS5_NOT_SOCKS5);
}

Test(socks5, greeting_zero_methods)
{
	size_t glen;
	cr_assert_eq(greeting(B(5, 0), &glen), PROXY_SOCKS5_MALFORMED);
	cr_assert_eq(greeting(B(5, 0, 0), &glen), PROXY_SOCKS5_MALFORMED);
}

/* ---- request ------------------------------------------------------------- */

Test(socks5, request_ipv4)
{
	struct proxy_socks5_request r;
	static const uint8_t m[] = { 5, 1, 0, 1, 93, 184, 216, 34, 0x01, 0xbb, 'G', 'E', 'T' };
	cr_assert_eq(request(m, sizeof(m), &r), PROXY_SOCKS5_OK);
	cr_assert_eq(r.cmd, PROXY_SOCKS5_CMD_CONNECT);
	cr_assert_eq(r.dst.atyp, PROXY_SOCKS5_ATYP_IPV4);
	cr_assert(memcmp(r.dst.ip, "\x5d\xb8\xd8\x22", 4) == 0);
	cr_assert_eq(r.dst.port, 443);
	cr_assert_eq(r.len, 10);
	cr_assert_eq(r.dst.name.n, 0);
	for (size_t k = 0; k < 10; k++)
		cr_assert_eq(request(m, k, &r), PROXY_SOCKS5_NEED_MORE, "prefix %zu", k);
}

Test(socks5, request_ipv6)
{
	struct proxy_socks5_request r;
	static const uint8_t m[] = { 5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				     0,    0, 0, 0, 0,    0,    0,    1, 0x1f, 0x90 };
	cr_assert_eq(request(m, sizeof(m), &r), PROXY_SOCKS5_OK);
	cr_assert_eq(r.dst.atyp, PROXY_SOCKS5_ATYP_IPV6);
	cr_assert(memcmp(r.dst.ip, m + 4, 16) == 0);
	cr_assert_eq(r.dst.port, 8080);
	cr_assert_eq(r.len, 22);
	for (size_t k = 0; k < sizeof(m); k++)
		cr_assert_eq(request(m, k, &r), PROXY_SOCKS5_NEED_MORE, "prefix %zu", k);
}

Test(socks5, request_domain)
{
	static const struct {
		const char *name;
		uint16_t port;
	} v[] = {
		{ "api.allowed.test", 443 },
		{ "A", 1 },
		{ "WWW.Allowed.TEST.", 65535 },
		/* not canonical, passed on for policy to refuse: only NUL, CR
		 * and LF are refused here */
		{ "a b%\xc3\xa9@evil", 80 },
	};
	uint8_t m[300];
	struct proxy_socks5_request r;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		size_t n = strlen(v[i].name);
		memcpy(m, "\x05\x01\x00\x03", 4);
		m[4] = (uint8_t)n;
		memcpy(m + 5, v[i].name, n);
		m[5 + n] = (uint8_t)(v[i].port >> 8);
		m[6 + n] = (uint8_t)v[i].port;
		cr_assert_eq(request(m, n + 7, &r), PROXY_SOCKS5_OK, "vector %zu", i);
		cr_assert_eq(r.dst.atyp, PROXY_SOCKS5_ATYP_DOMAIN);
		cr_assert(r.dst.name.n == n && memcmp(r.dst.name.p, v[i].name, n) == 0);
		cr_assert_eq(r.dst.port, v[i].port);
		cr_assert_eq(r.len, n + 7);
		for (size_t k = 0; k < n + 7; k++)
			cr_assert_eq(request(m, k, &r), PROXY_SOCKS5_NEED_MORE, "prefix %zu", k);
	}
	/* a 255-byte name */
	memcpy(m, "\x05\x01\x00\x03\xff", 5);
	memset(m + 5, 'a', 255);
	m[260] = 0;
	m[261] = 80;
	cr_assert_eq(request(m, 262, &r), PROXY_SOCKS5_OK);
	cr_assert_eq(r.dst.name.n, 255);
}

Test(socks5, request_command_unsupported)
{
	struct proxy_socks5_request r;
	/* BIND and UDP ASSOCIATE, answered from the CMD byte on */
	for (uint8_t cmd = 2; cmd <= 3; cmd++) {
		const uint8_t m[] = { 5, cmd, 0, 1, 0, 0, 0, 0, 0, 0 };
		cr_assert_eq(request(m, sizeof(m), &r), PROXY_SOCKS5_CMD_UNSUPPORTED);
		cr_assert_eq(request(m, 2, &r), PROXY_SOCKS5_CMD_UNSUPPORTED);
	}
	cr_assert_eq(request(B(5, 0, 0, 1, 1, 2, 3, 4, 0, 80), &r), PROXY_SOCKS5_CMD_UNSUPPORTED);
	cr_assert_eq(request(B(5, 0xf0, 0, 1, 1, 2, 3, 4, 0, 80), &r),
		     PROXY_SOCKS5_CMD_UNSUPPORTED);
	cr_assert_eq(proxy_socks5_reply_code(PROXY_SOCKS5_CMD_UNSUPPORTED), 0x07);
}

Test(socks5, request_address_type_unsupported)
{
	struct proxy_socks5_request r;
	static const uint8_t atyps[] = { 0, 2, 5, 0xff };
	for (size_t i = 0; i < N_ELEMS(atyps); i++) {
		const uint8_t m[] = { 5, 1, 0, atyps[i], 1, 2, 3, 4, 0, 80 };
		cr_assert_eq(request(m, sizeof(m), &r), PROXY_SOCKS5_ATYP_UNSUPPORTED);
		cr_assert_eq(request(m, 4, &r), PROXY_SOCKS5_ATYP_UNSUPPORTED);
	}
	cr_assert_eq(proxy_socks5_reply_code(PROXY_SOCKS5_ATYP_UNSUPPORTED), 0x08);
}

/* Escape corpus row 36: a name carrying NUL, CR or LF is refused, as soon
 * as the byte arrives. */
Test(socks5, request_name_with_nul_cr_lf)
{
	static const char *const names[] = { "a.test\0evil.test", "a.test\r\nHost: evil",
					     "\nevil", "evil\r", "\0" };
	static const size_t lens[] = { 16, 19, 5, 5, 1 };
	uint8_t m[300];
	struct proxy_socks5_request r;
	for (size_t i = 0; i < N_ELEMS(names); i++) {
		memcpy(m, "\x05\x01\x00\x03", 4);
		m[4] = (uint8_t)lens[i];
		memcpy(m + 5, names[i], lens[i]);
		m[5 + lens[i]] = 1;
		m[6 + lens[i]] = 0xbb;
		cr_assert_eq(request(m, lens[i] + 7, &r), PROXY_SOCKS5_NAME_REFUSED, "vector %zu", i);
		const char *bad = names[i];
		size_t at = 0;
		while (bad[at] != '\0' && bad[at] != '\r' && bad[at] != '\n')
			at++;
		cr_assert_eq(request(m, 5 + at + 1, &r), PROXY_SOCKS5_NAME_REFUSED);
		for (size_t k = 0; k <= 5 + at; k++)
			cr_assert_eq(request(m, k, &r), PROXY_SOCKS5_NEED_MORE);
	}
	cr_assert_eq(proxy_socks5_reply_code(PROXY_SOCKS5_NAME_REFUSED), 0x02);
}

Test(socks5, request_malformed)
{
	struct proxy_socks5_request r;
	/* VER not 5 */
	cr_assert_eq(request(B(4, 1, 0, 1, 1, 2, 3, 4, 0, 80), &r), PROXY_SOCKS5_MALFORMED);
	/* RSV not 0 */
	cr_assert_eq(request(B(5, 1, 1, 1, 1, 2, 3, 4, 0, 80), &r), PROXY_SOCKS5_MALFORMED);
	cr_assert_eq(request(B(5, 1, 1), &r), PROXY_SOCKS5_MALFORMED);
	/* an empty name */
	cr_assert_eq(request(B(5, 1, 0, 3, 0, 0, 80), &r), PROXY_SOCKS5_MALFORMED);
	/* port 0 */
	cr_assert_eq(request(B(5, 1, 0, 1, 1, 2, 3, 4, 0, 0), &r), PROXY_SOCKS5_MALFORMED);
	cr_assert_eq(request(B(5, 1, 0, 3, 1, 'a', 0, 0), &r), PROXY_SOCKS5_MALFORMED);
	cr_assert_eq(proxy_socks5_reply_code(PROXY_SOCKS5_MALFORMED), 0x01);
	cr_assert_eq(proxy_socks5_reply_code(PROXY_SOCKS5_OK), 0x00);
}

/* ---- replies ------------------------------------------------------------- */

Test(socks5, build_reply)
{
	uint8_t out[PROXY_SOCKS5_REPLY_MAX];
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0x07, NULL), 10);
	cr_assert(memcmp(out, "\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00", 10) == 0);

	struct proxy_socks5_addr a = { .atyp = PROXY_SOCKS5_ATYP_IPV4, .ip = { 10, 0, 0, 2 },
				       .port = 40000 };
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0, &a), 10);
	cr_assert(memcmp(out, "\x05\x00\x00\x01\x0a\x00\x00\x02\x9c\x40", 10) == 0);
	cr_assert_eq(proxy_socks5_build_reply(out, 9, 0, &a), 0);

	a.atyp = PROXY_SOCKS5_ATYP_IPV6;
	memset(a.ip, 0, 16);
	a.ip[15] = 1;
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0, &a), 22);
	cr_assert_eq(out[3], 4);
	cr_assert_eq(out[19], 1);
	cr_assert(out[20] == 0x9c && out[21] == 0x40);

	char name[255];
	memset(name, 'n', sizeof(name));
	a.atyp = PROXY_SOCKS5_ATYP_DOMAIN;
	a.name.p = (const uint8_t *)name;
	a.name.n = 255;
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0, &a), PROXY_SOCKS5_REPLY_MAX);
	cr_assert_eq(out[4], 255);
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out) - 1, 0, &a), 0);
	a.name.n = 0;
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0, &a), 0);
	a.name.n = 256;
	cr_assert_eq(proxy_socks5_build_reply(out, 1000, 0, &a), 0);
	a.atyp = 9;
	cr_assert_eq(proxy_socks5_build_reply(out, sizeof(out), 0, &a), 0);

	/* a reply built from a parsed request parses back as that request */
	static const uint8_t m[] = { 5, 1, 0, 3, 6, 'a', '.', 't', 'e', 's', 't', 0, 80 };
	struct proxy_socks5_request r;
	cr_assert_eq(request(m, sizeof(m), &r), PROXY_SOCKS5_OK);
	size_t n = proxy_socks5_build_reply(out, sizeof(out), 1, &r.dst);
	cr_assert_eq(n, sizeof(m));
	out[1] = 1;
	cr_assert(memcmp(out + 2, m + 2, n - 2) == 0);
}
