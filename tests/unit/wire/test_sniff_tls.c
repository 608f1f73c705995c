/* tests/unit/wire/test_sniff_tls.c: the SNI of a TLS ClientHello
 * (wire/sniff.h).  Real hellos captured on loopback (tls_hellos.h) and
 * hellos built field by field here, re-framed into records of every size.
 * Inputs are parsed from exact-size heap copies, so a read past len is an
 * ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "wire/sniff.h"
#include "tls_hellos.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, p, n);
	return c;
}

static enum proxy_sniff_status sniff(const void *p, size_t n, struct proxy_tls_hello *h)
{
	uint8_t *c = dup_exact(p, n);
	memset(h, 0xa5, sizeof(*h));
	enum proxy_sniff_status st = proxy_sniff_tls(c, n, h);
	free(c);
	return st;
}

/* ---- building hellos ---------------------------------------------------- */

struct ext {
	uint16_t type;
	const uint8_t *data;
	size_t len;
};

struct spec {
	uint8_t hs_type;  /* 1 */
	uint16_t version; /* 0x0303 */
	size_t sid_len;   /* 32 */
	size_t cs_len;    /* 4 */
	size_t comp_len;  /* 1 */
	bool no_ext;      /* omit the extensions block */
	const struct ext *ext;
	size_t n_ext;
};

static void put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Writes the handshake message (header included); returns its length. */
static size_t build_msg(uint8_t *o, const struct spec *s)
{
	size_t i = 4;
	put16(o + i, s->version);
	i += 2;
	memset(o + i, 0x42, 32);
	i += 32;
	o[i++] = (uint8_t)s->sid_len;
	memset(o + i, 0x17, s->sid_len);
	i += s->sid_len;
	put16(o + i, s->cs_len);
	i += 2;
	for (size_t k = 0; k < s->cs_len; k++)
		o[i + k] = (uint8_t)(k % 2 ? 0x01 : 0x13);
	i += s->cs_len;
	o[i++] = (uint8_t)s->comp_len;
	memset(o + i, 0, s->comp_len);
	i += s->comp_len;
	if (!s->no_ext) {
		size_t at = i;
		i += 2;
		for (size_t e = 0; e < s->n_ext; e++) {
			put16(o + i, s->ext[e].type);
			put16(o + i + 2, s->ext[e].len);
			if (s->ext[e].len)
				memcpy(o + i + 4, s->ext[e].data, s->ext[e].len);
			i += 4 + s->ext[e].len;
		}
		put16(o + at, i - at - 2);
	}
	o[0] = s->hs_type;
	o[1] = (uint8_t)((i - 4) >> 16);
	o[2] = (uint8_t)((i - 4) >> 8);
	o[3] = (uint8_t)(i - 4);
	return i;
}

/* Frames msg into handshake records of at most frag bytes. */
static size_t frame(uint8_t *o, const uint8_t *msg, size_t n, size_t frag)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i += frag) {
		size_t k = n - i < frag ? n - i : frag;
		o[w] = 22;
		o[w + 1] = 3;
		o[w + 2] = i == 0 ? 1 : 3;
		put16(o + w + 3, k);
		memcpy(o + w + 5, msg + i, k);
		w += 5 + k;
	}
	return w;
}

/* The body of a server_name extension with one host_name. */
static size_t sni_body(uint8_t *o, const char *name)
{
	size_t n = strlen(name);
	put16(o, n + 3);
	o[2] = 0;
	put16(o + 3, n);
	memcpy(o + 5, name, n);
	return n + 5;
}

static const uint8_t alpn_h2[] = { 0, 3, 2, 'h', '2' };
static const uint8_t versions13[] = { 4, 0x03, 0x04, 0x03, 0x03 };
static const uint8_t ech_body[] = { 0, 0, 1, 0, 1, 0x2a, 0, 4, 1, 2, 3, 4, 0, 1, 0xee };

/* A hello with SNI "name" and the given extra extensions after it. */
static size_t hello_with(uint8_t *wire, size_t frag, const char *name, const struct ext *more,
			 size_t n_more)
{
	static uint8_t msg[70000], sni[300];
	struct ext e[16];
	size_t ne = 0;
	if (name) {
		e[ne++] = (struct ext){ 0, sni, sni_body(sni, name) };
	}
	for (size_t k = 0; k < n_more; k++)
		e[ne++] = more[k];
	struct spec s = { 1, 0x0303, 32, 4, 1, false, e, ne };
	size_t n = build_msg(msg, &s);
	return frame(wire, msg, n, frag);
}

/* ---- sweeps -------------------------------------------------------------- */

/* Every strict prefix of a good hello is NEED_MORE, never another answer. */
static void sweep(const uint8_t *wire, size_t n)
{
	struct proxy_tls_hello h;
	for (size_t k = 0; k < n; k++) {
		enum proxy_sniff_status st = sniff(wire, k, &h);
		cr_assert_eq(st, SNIFF_NEED_MORE, "prefix %zu of %zu: %d", k, n, st);
	}
}

/* Takes the handshake message out of a one-record hello, re-frames it in
 * records of frag bytes. */
static size_t reframe(uint8_t *o, const uint8_t *wire, size_t n, size_t frag)
{
	cr_assert(n > 5 && wire[0] == 22);
	size_t rl = (size_t)wire[3] << 8 | wire[4];
	cr_assert_eq(rl, n - 5);
	return frame(o, wire + 5, rl, frag);
}

static const struct {
	const char *what;
	const uint8_t *p;
	size_t n;
	enum proxy_sniff_status st;
	const char *sni;
	unsigned flags;
	uint16_t version;
} real[] = {
	{ "openssl 1.3", hello_openssl13, sizeof(hello_openssl13), SNIFF_OK, "x.test", PROXY_TLS_13,
	  0x0303 },
	{ "openssl 1.2", hello_openssl12, sizeof(hello_openssl12), SNIFF_OK, "api.example.test", 0,
	  0x0303 },
	{ "openssl 1.3 no sni", hello_openssl13_nosni, sizeof(hello_openssl13_nosni), SNIFF_NO_SNI,
	  "", PROXY_TLS_13, 0x0303 },
	{ "openssl 1.2 no sni", hello_openssl12_nosni, sizeof(hello_openssl12_nosni), SNIFF_NO_SNI,
	  "", 0, 0x0303 },
	{ "python 1.3", hello_python13, sizeof(hello_python13), SNIFF_OK, "files.python.test",
	  PROXY_TLS_13 | PROXY_TLS_ALPN, 0x0303 },
	{ "curl 1.3", hello_curl13, sizeof(hello_curl13), SNIFF_OK, "curl.allowed.test",
	  PROXY_TLS_13 | PROXY_TLS_ALPN, 0x0303 },
};

static void check_real(size_t i, const uint8_t *wire, size_t n)
{
	struct proxy_tls_hello h;
	enum proxy_sniff_status st = sniff(wire, n, &h);
	cr_assert_eq(st, real[i].st, "%s: %d", real[i].what, st);
	cr_assert_str_eq(h.sni, real[i].sni, "%s", real[i].what);
	cr_assert_eq(h.sni_len, strlen(real[i].sni));
	cr_assert_eq(h.flags, real[i].flags, "%s: flags %#x", real[i].what, h.flags);
	cr_assert_eq(h.legacy_version, real[i].version);
	cr_assert_eq(h.wire_len, n, "%s: wire_len %zu of %zu", real[i].what, h.wire_len, n);
}

Test(sniff_tls, real_hellos)
{
	for (size_t i = 0; i < N_ELEMS(real); i++) {
		check_real(i, real[i].p, real[i].n);
		sweep(real[i].p, real[i].n);
	}
}

/* RFC 8446 §5.1: a handshake message may be fragmented across records. */
Test(sniff_tls, real_hellos_split_across_records)
{
	static const size_t frags[] = { 1, 2, 3, 5, 7, 64, 100, 511 };
	static uint8_t wire[40000];
	for (size_t i = 0; i < N_ELEMS(real); i++) {
		for (size_t f = 0; f < N_ELEMS(frags); f++) {
			size_t n = reframe(wire, real[i].p, real[i].n, frags[f]);
			check_real(i, wire, n);
			if (frags[f] <= 3 || frags[f] == 100)
				sweep(wire, n);
		}
	}
}

/* What follows the hello (0-RTT data, the next flight) is not looked at. */
Test(sniff_tls, bytes_after_the_hello)
{
	static uint8_t wire[2000];
	static const uint8_t appdata[] = { 23, 3, 3, 0, 3, 'a', 'b', 'c', 21 };
	size_t n = sizeof(hello_curl13);
	memcpy(wire, hello_curl13, n);
	memcpy(wire + n, appdata, sizeof(appdata));
	struct proxy_tls_hello h;
	cr_assert_eq(sniff(wire, n + sizeof(appdata), &h), SNIFF_OK);
	cr_assert_eq(h.wire_len, n);
	cr_assert_str_eq(h.sni, "curl.allowed.test");
}

Test(sniff_tls, built_hello_flags)
{
	static uint8_t wire[80000];
	const struct ext more[] = {
		{ 16, alpn_h2, sizeof(alpn_h2) },
		{ 43, versions13, sizeof(versions13) },
		{ 42, NULL, 0 },
		{ 0xfe0d, ech_body, sizeof(ech_body) },
		{ 41, (const uint8_t *)"\0\0\0\0", 4 }, /* pre_shared_key, last */
	};
	struct proxy_tls_hello h;
	for (size_t frag = 1; frag <= 16384; frag = frag * 3 + 1) {
		size_t n = hello_with(wire, frag, "outer.allowed.test", more, N_ELEMS(more));
		cr_assert_eq(sniff(wire, n, &h), SNIFF_OK);
		cr_assert_str_eq(h.sni, "outer.allowed.test");
		cr_assert_eq(h.flags,
			     PROXY_TLS_ALPN | PROXY_TLS_13 | PROXY_TLS_EARLY_DATA | PROXY_TLS_ECH);
		if (frag < 4)
			sweep(wire, n);
	}
	/* ECH without any SNI: the outer name is what a server sees, and there
	 * is none. */
	size_t n = hello_with(wire, 16384, NULL, &more[3], 1);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_NO_SNI);
	cr_assert_eq(h.flags, PROXY_TLS_ECH);
	cr_assert_str_eq(h.sni, "");
}

Test(sniff_tls, no_extensions_is_no_sni)
{
	static uint8_t msg[200], wire[400];
	struct spec s = { 1, 0x0303, 0, 2, 1, true, NULL, 0 };
	size_t n = frame(wire, msg, build_msg(msg, &s), 1000);
	struct proxy_tls_hello h;
	cr_assert_eq(sniff(wire, n, &h), SNIFF_NO_SNI);
	sweep(wire, n);
	/* an empty extensions block (TLS 1.2 allows it) */
	s.no_ext = false;
	n = frame(wire, msg, build_msg(msg, &s), 1000);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_NO_SNI);
}

Test(sniff_tls, name_lengths)
{
	static uint8_t wire[2000];
	char name[300];
	struct proxy_tls_hello h;
	memset(name, 'a', sizeof(name));
	name[PROXY_TLS_SNI_MAX] = '\0';
	size_t n = hello_with(wire, 16384, name, NULL, 0);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_OK);
	cr_assert_eq(h.sni_len, PROXY_TLS_SNI_MAX);
	cr_assert_eq(strlen(h.sni), PROXY_TLS_SNI_MAX);
	name[PROXY_TLS_SNI_MAX + 1] = '\0';
	name[PROXY_TLS_SNI_MAX] = 'a';
	n = hello_with(wire, 16384, name, NULL, 0);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_MALFORMED);
	n = hello_with(wire, 16384, "a", NULL, 0);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_OK);
	cr_assert_str_eq(h.sni, "a");
}

/* Not canonicalised here: case, trailing dot and odd bytes are policy's. */
Test(sniff_tls, name_is_returned_as_sent)
{
	static uint8_t wire[2000];
	struct proxy_tls_hello h;
	size_t n = hello_with(wire, 16384, "WWW.Allowed.TEST.", NULL, 0);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_OK);
	cr_assert_str_eq(h.sni, "WWW.Allowed.TEST.");
	n = hello_with(wire, 16384, "a b%\xc3\xa9", NULL, 0);
	cr_assert_eq(sniff(wire, n, &h), SNIFF_OK);
	cr_assert_str_eq(h.sni, "a b%\xc3\xa9");
}

/* ---- not TLS ------------------------------------------------------------- */

Test(sniff_tls, not_tls)
{
	static const struct {
		const char *p;
		size_t n;
	} v[] = {
		{ "GET / HTTP/1.1\r\n", 16 },
		{ "SSH-2.0-OpenSSH_9.6\r\n", 21 },
		{ "\x80\x2e\x01\x03\x01", 5 }, /* SSLv2-format hello */
		{ "\x16\x02", 2 },
		{ "\x16\x04\x01", 3 },
		{ "\x17\x03\x03\x00\x05", 5 },
		{ "\x00", 1 },
	};
	struct proxy_tls_hello h;
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(sniff(v[i].p, v[i].n, &h), SNIFF_NOT_TLS, "vector %zu", i);
	cr_assert_eq(sniff("", 0, &h), SNIFF_NEED_MORE);
	cr_assert_eq(sniff("\x16", 1, &h), SNIFF_NEED_MORE);
}

/* ---- malformed, one test per class --------------------------------------- */

static void expect(const uint8_t *wire, size_t n, enum proxy_sniff_status want)
{
	struct proxy_tls_hello h;
	enum proxy_sniff_status st = sniff(wire, n, &h);
	cr_assert_eq(st, want, "got %d, want %d", st, want);
}

/* A good two-record hello with a record of another type between them. */
Test(sniff_tls, other_record_type_before_hello_complete)
{
	static const uint8_t types[] = { 20, 21, 23, 24, 0 };
	static uint8_t wire[4000];
	for (size_t t = 0; t < N_ELEMS(types); t++) {
		size_t n = reframe(wire, hello_openssl12, sizeof(hello_openssl12), 100);
		/* second record header is at 5 + 100 */
		wire[105] = types[t];
		expect(wire, n, SNIFF_MALFORMED);
		expect(wire, 106, SNIFF_MALFORMED); /* known from the type byte alone */
	}
}

Test(sniff_tls, record_version_major_not_3)
{
	static uint8_t wire[4000];
	size_t n = reframe(wire, hello_openssl12, sizeof(hello_openssl12), 100);
	wire[106] = 2;
	expect(wire, n, SNIFF_MALFORMED);
}

Test(sniff_tls, empty_record)
{
	static uint8_t wire[4000];
	size_t n = reframe(wire, hello_openssl12, sizeof(hello_openssl12), 100);
	/* insert an empty handshake record between the two fragments */
	memmove(wire + 110, wire + 105, n - 105);
	memcpy(wire + 105, "\x16\x03\x03\x00\x00", 5);
	expect(wire, n + 5, SNIFF_MALFORMED);
}

Test(sniff_tls, record_over_2_14)
{
	uint8_t wire[] = { 22, 3, 1, 0x40, 0x01, 1, 0, 0, 0x40 };
	expect(wire, sizeof(wire), SNIFF_MALFORMED);
}

Test(sniff_tls, handshake_not_client_hello)
{
	static uint8_t wire[4000];
	memcpy(wire, hello_openssl13, sizeof(hello_openssl13));
	wire[5] = 2; /* server_hello */
	expect(wire, sizeof(hello_openssl13), SNIFF_MALFORMED);
	expect(wire, 6, SNIFF_MALFORMED);
}

Test(sniff_tls, body_too_short)
{
	static uint8_t msg[200], wire[400];
	struct spec s = { 1, 0x0303, 0, 2, 1, true, NULL, 0 };
	size_t n = build_msg(msg, &s);
	/* claim a 33-byte body: shorter than version + random */
	msg[3] = 33;
	expect(wire, frame(wire, msg, 4 + 33, 1000), SNIFF_MALFORMED);
	(void)n;
}

Test(sniff_tls, legacy_version_major_not_3)
{
	static uint8_t msg[200], wire[400];
	struct spec s = { 1, 0x0203, 0, 2, 1, true, NULL, 0 };
	expect(wire, frame(wire, msg, build_msg(msg, &s), 1000), SNIFF_MALFORMED);
}

Test(sniff_tls, session_id_over_32)
{
	static uint8_t msg[300], wire[400];
	struct spec s = { 1, 0x0303, 33, 2, 1, true, NULL, 0 };
	expect(wire, frame(wire, msg, build_msg(msg, &s), 1000), SNIFF_MALFORMED);
}

Test(sniff_tls, cipher_suites_odd_or_empty)
{
	static uint8_t msg[300], wire[400];
	struct spec s = { 1, 0x0303, 0, 3, 1, true, NULL, 0 };
	expect(wire, frame(wire, msg, build_msg(msg, &s), 1000), SNIFF_MALFORMED);
	s.cs_len = 0;
	expect(wire, frame(wire, msg, build_msg(msg, &s), 1000), SNIFF_MALFORMED);
}

Test(sniff_tls, compression_methods_empty)
{
	static uint8_t msg[300], wire[400];
	struct spec s = { 1, 0x0303, 0, 2, 0, true, NULL, 0 };
	expect(wire, frame(wire, msg, build_msg(msg, &s), 1000), SNIFF_MALFORMED);
}

Test(sniff_tls, length_overruns_message)
{
	static uint8_t wire[4000];
	/* session id length past the end of a body cut short */
	static uint8_t msg[300];
	struct spec s = { 1, 0x0303, 32, 2, 1, true, NULL, 0 };
	size_t n = build_msg(msg, &s);
	msg[3] = (uint8_t)(2 + 32 + 1 + 10); /* body ends inside the session id */
	expect(wire, frame(wire, msg, n, 1000), SNIFF_MALFORMED);
	/* extensions block longer than what is left */
	memcpy(wire, hello_curl13, sizeof(hello_curl13));
	size_t at = 5 + 4 + 2 + 32;
	at += 1 + wire[at];
	at += 2 + ((size_t)wire[at] << 8 | wire[at + 1]);
	at += 1 + wire[at];
	put16(wire + at, ((size_t)wire[at] << 8 | wire[at + 1]) + 1);
	expect(wire, sizeof(hello_curl13), SNIFF_MALFORMED);
	/* ... or shorter: bytes left over in the message */
	put16(wire + at, ((size_t)wire[at] << 8 | wire[at + 1]) - 2);
	expect(wire, sizeof(hello_curl13), SNIFF_MALFORMED);
}

Test(sniff_tls, extension_overruns_block)
{
	static uint8_t wire[2000];
	const struct ext more[] = { { 0x1234, (const uint8_t *)"abcd", 4 } };
	size_t n = hello_with(wire, 16384, "a.test", more, 1);
	/* the last extension's length, 4 bytes before its body, grows by one */
	wire[n - 4 - 1] = 5;
	expect(wire, n, SNIFF_MALFORMED);
	/* a block ending with 3 stray bytes, too few for a header */
	static uint8_t msg[300];
	struct spec s = { 1, 0x0303, 0, 2, 1, false, NULL, 0 };
	size_t m = build_msg(msg, &s);
	memcpy(msg + m, "\x00\x00\x00", 3);
	put16(msg + m - 2, 3);
	msg[3] = (uint8_t)(m + 3 - 4);
	expect(wire, frame(wire, msg, m + 3, 1000), SNIFF_MALFORMED);
}

Test(sniff_tls, duplicate_extension)
{
	static uint8_t wire[2000], sni2[100];
	const struct ext unknown[] = { { 0x1234, NULL, 0 }, { 0x1234, NULL, 0 } };
	const struct ext alpn[] = { { 16, alpn_h2, sizeof(alpn_h2) }, { 16, alpn_h2, sizeof(alpn_h2) } };
	const struct ext sni[] = { { 0, sni2, sni_body(sni2, "evil.test") } };
	expect(wire, hello_with(wire, 16384, "a.test", unknown, 2), SNIFF_MALFORMED);
	expect(wire, hello_with(wire, 16384, "a.test", alpn, 2), SNIFF_MALFORMED);
	/* two server_name extensions: never "first wins" (docs/style.md §17) */
	expect(wire, hello_with(wire, 16384, "a.test", sni, 1), SNIFF_MALFORMED);
	const struct ext grease[] = { { 0x0a0a, NULL, 0 }, { 0x1a1a, (const uint8_t *)"\0", 1 } };
	expect(wire, hello_with(wire, 16384, "a.test", grease, 2), SNIFF_OK);
}

Test(sniff_tls, pre_shared_key_not_last)
{
	static uint8_t wire[2000];
	const struct ext more[] = { { 41, (const uint8_t *)"\0\0\0\0", 4 }, { 0x1234, NULL, 0 } };
	expect(wire, hello_with(wire, 16384, "a.test", more, 2), SNIFF_MALFORMED);
}

Test(sniff_tls, server_name_list_not_one_host_name)
{
	static uint8_t wire[2000];
	static const uint8_t two_names[] = { 0, 12, 0, 0, 3, 'a', '.', 't', 0, 0, 3, 'e', '.', 't' };
	static const uint8_t other_type[] = { 0, 6, 1, 0, 3, 'a', '.', 't' };
	static const uint8_t host_then_other[] = { 0, 12, 0, 0, 3, 'a', '.', 't', 1, 0, 3, 'e', '.', 't' };
	static const uint8_t empty_list[] = { 0, 0 };
	static const uint8_t list_short[] = { 0, 5, 0, 0, 3, 'a', '.', 't' };
	static const uint8_t list_long[] = { 0, 7, 0, 0, 3, 'a', '.', 't' };
	static const uint8_t name_overruns[] = { 0, 6, 0, 0, 4, 'a', '.', 't' };
	static const uint8_t truncated_entry[] = { 0, 2, 0, 0 };
	const struct {
		const uint8_t *p;
		size_t n;
	} v[] = {
		{ two_names, sizeof(two_names) },
		{ other_type, sizeof(other_type) },
		{ host_then_other, sizeof(host_then_other) },
		{ empty_list, sizeof(empty_list) },
		{ list_short, sizeof(list_short) },
		{ list_long, sizeof(list_long) },
		{ name_overruns, sizeof(name_overruns) },
		{ truncated_entry, sizeof(truncated_entry) },
		{ NULL, 0 }, /* empty extension body: a ServerHello's, not a ClientHello's */
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		const struct ext e = { 0, v[i].p, v[i].n };
		expect(wire, hello_with(wire, 16384, NULL, &e, 1), SNIFF_MALFORMED);
	}
}

Test(sniff_tls, host_name_empty)
{
	static uint8_t wire[2000];
	static const uint8_t empty_name[] = { 0, 3, 0, 0, 0 };
	const struct ext e = { 0, empty_name, sizeof(empty_name) };
	expect(wire, hello_with(wire, 16384, NULL, &e, 1), SNIFF_MALFORMED);
}

Test(sniff_tls, host_name_with_nul)
{
	static uint8_t wire[2000];
	static const uint8_t nul_name[] = { 0, 14, 0, 0, 11, 'a', '.', 't', 'e', 's', 't', 0,
					    'e', 'v', 'i', 'l' };
	const struct ext e = { 0, nul_name, sizeof(nul_name) };
	expect(wire, hello_with(wire, 16384, NULL, &e, 1), SNIFF_MALFORMED);
}

Test(sniff_tls, alpn_ill_formed)
{
	static uint8_t wire[2000];
	static const uint8_t empty[] = { 0, 0 };
	static const uint8_t zero_len_proto[] = { 0, 1, 0 };
	static const uint8_t proto_overruns[] = { 0, 3, 3, 'h', '2' };
	const uint8_t *v[] = { empty, zero_len_proto, proto_overruns };
	size_t n[] = { sizeof(empty), sizeof(zero_len_proto), sizeof(proto_overruns) };
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		const struct ext e = { 16, v[i], n[i] };
		expect(wire, hello_with(wire, 16384, "a.test", &e, 1), SNIFF_MALFORMED);
	}
}

Test(sniff_tls, supported_versions_ill_formed)
{
	static uint8_t wire[2000];
	static const uint8_t odd[] = { 3, 3, 4, 3 };
	static const uint8_t empty[] = { 0 };
	static const uint8_t mismatch[] = { 4, 3, 4 };
	const uint8_t *v[] = { odd, empty, mismatch };
	size_t n[] = { sizeof(odd), sizeof(empty), sizeof(mismatch) };
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		const struct ext e = { 43, v[i], n[i] };
		expect(wire, hello_with(wire, 16384, "a.test", &e, 1), SNIFF_MALFORMED);
	}
}

Test(sniff_tls, early_data_with_body)
{
	static uint8_t wire[2000];
	const struct ext e = { 42, (const uint8_t *)"\0\0\0\1", 4 };
	expect(wire, hello_with(wire, 16384, "a.test", &e, 1), SNIFF_MALFORMED);
}

/* ---- caps ---------------------------------------------------------------- */

Test(sniff_tls, handshake_over_cap)
{
	/* the declared length alone decides, from the handshake header */
	uint8_t wire[] = { 22, 3, 1, 0x40, 0x00, 1, 0x00, 0x40, 0x00 };
	expect(wire, sizeof(wire), SNIFF_TOO_BIG);
	static uint8_t big[80000], pad[PROXY_TLS_HELLO_MAX];
	memset(pad, 0, sizeof(pad));
	/* padding (21) bringing the message exactly to the cap is fine */
	size_t base = hello_with(big, 16384, "a.test", NULL, 0) - 5;
	size_t pl = PROXY_TLS_HELLO_MAX - base - 4;
	struct ext e = { 21, pad, pl };
	size_t n = hello_with(big, 16384, "a.test", &e, 1);
	expect(big, n, SNIFF_OK);
	e.len++;
	n = hello_with(big, 16384, "a.test", &e, 1);
	expect(big, n, SNIFF_TOO_BIG);
	expect(big, 9, SNIFF_TOO_BIG);
}

Test(sniff_tls, wire_over_cap)
{
	static uint8_t big[120000], pad[PROXY_TLS_HELLO_MAX];
	memset(pad, 0, sizeof(pad));
	/* 1-byte records cost 6 wire bytes per handshake byte: a 5000-byte
	 * hello fits in 30000, a 6000-byte one does not fit in 32768. */
	struct ext e = { 21, pad, 5000 - 100 };
	size_t n = hello_with(big, 1, "a.test", &e, 1);
	cr_assert_leq(n, PROXY_TLS_WIRE_MAX);
	expect(big, n, SNIFF_OK);
	e.len = 6000;
	n = hello_with(big, 1, "a.test", &e, 1);
	cr_assert_gt(n, PROXY_TLS_WIRE_MAX);
	expect(big, n, SNIFF_TOO_BIG);
	expect(big, PROXY_TLS_WIRE_MAX, SNIFF_TOO_BIG);
	for (size_t k = 0; k < PROXY_TLS_WIRE_MAX - 6; k += 997)
		expect(big, k, SNIFF_NEED_MORE);
}
