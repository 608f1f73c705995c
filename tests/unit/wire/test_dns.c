/* tests/unit/wire/test_dns.c: DNS queries, responses and TCP framing
 * (wire/dns.h).  Messages are parsed from exact-size heap copies, so a read
 * past len is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dns/dns.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a small message writer for the vectors ---------------------------- */

struct msg {
	uint8_t b[4096];
	size_t n;
};

static void u8(struct msg *m, unsigned v)
{
	cr_assert_lt(m->n, sizeof(m->b));
	m->b[m->n++] = (uint8_t)v;
}

static void u16(struct msg *m, unsigned v)
{
	u8(m, v >> 8);
	u8(m, v & 0xff);
}

static void u32(struct msg *m, uint32_t v)
{
	u16(m, v >> 16);
	u16(m, v & 0xffff);
}

static void raw(struct msg *m, const void *p, size_t n)
{
	cr_assert_leq(m->n + n, sizeof(m->b));
	if (n)
		memcpy(m->b + m->n, p, n);
	m->n += n;
}

/* "www.example.com" as labels and a root byte; "" is the root */
static void name(struct msg *m, const char *text)
{
	while (*text) {
		const char *dot = strchr(text, '.');
		size_t l = dot ? (size_t)(dot - text) : strlen(text);
		u8(m, (unsigned)l);
		raw(m, text, l);
		text += l + (dot ? 1 : 0);
	}
	u8(m, 0);
}

static void header(struct msg *m, unsigned id, unsigned flags, unsigned qd, unsigned an,
		   unsigned ns, unsigned ar)
{
	m->n = 0;
	u16(m, id);
	u16(m, flags);
	u16(m, qd);
	u16(m, an);
	u16(m, ns);
	u16(m, ar);
}

static void opt(struct msg *m, unsigned payload, uint32_t ttl, const void *opts, size_t olen)
{
	u8(m, 0);
	u16(m, DNSD_TYPE_OPT);
	u16(m, payload);
	u32(m, ttl);
	u16(m, (unsigned)olen);
	raw(m, opts, olen);
}

static struct msg query(unsigned id, const char *qname, unsigned qtype, bool edns)
{
	struct msg m;
	header(&m, id, 0x0100 /* RD */, 1, 0, 0, edns ? 1 : 0);
	name(&m, qname);
	u16(&m, qtype);
	u16(&m, DNSD_CLASS_IN);
	if (edns)
		opt(&m, 4096, 0x8000 /* DO */, NULL, 0);
	return m;
}

static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, p, n);
	return c;
}

static enum dnsd_status qparse(const uint8_t *p, size_t n, struct dnsd_query *q)
{
	uint8_t *c = dup_exact(p, n);
	enum dnsd_status st = dnsd_query_parse(c, n, q);
	free(c);
	return st;
}

static enum dnsd_status rparse(const uint8_t *p, size_t n, struct dnsd_response *r,
			       struct dnsd_addr_rr *a, size_t cap)
{
	uint8_t *c = dup_exact(p, n);
	enum dnsd_status st = dnsd_response_parse(c, n, r, a, cap);
	free(c);
	return st;
}

static struct policy_addr A(const char *s)
{
	struct policy_addr a;
	cr_assert_eq(policy_addr_parse(s, strlen(s), &a), POLICY_ADDR_OK, "%s", s);
	return a;
}

/* ---- queries ----------------------------------------------------------- */

Test(wire, query_good)
{
	struct dnsd_query q;
	struct msg m = query(0xbeef, "WwW.Example.com", DNSD_TYPE_AAAA, false);

	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(q.id, 0xbeef);
	cr_assert(q.rd);
	cr_assert_eq(q.opcode, 0);
	cr_assert_eq(q.qtype, DNSD_TYPE_AAAA);
	cr_assert_eq(q.qclass, DNSD_CLASS_IN);
	cr_assert(q.name_is_text);
	cr_assert_str_eq(q.name, "WwW.Example.com", "case is kept; policy canonicalises");
	cr_assert_eq(q.name_len, 15);
	cr_assert_eq(q.qname_len, 17);
	cr_assert_eq(memcmp(q.qname, m.b + 12, 17), 0);
	cr_assert_not(q.edns);

	m = query(1, "a.test", DNSD_TYPE_A, true);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert(q.edns);
	cr_assert_eq(q.edns_payload, 4096);
	cr_assert(q.edns_do);
	cr_assert_eq(dnsd_udp_limit(&q), DNSD_EDNS_PAYLOAD);

	/* EDNS with a cookie option (RFC 7873), and a payload below 512 */
	static const uint8_t cookie[] = { 0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8 };
	header(&m, 2, 0, 1, 0, 0, 1);
	name(&m, "a.test");
	u16(&m, 16);
	u16(&m, DNSD_CLASS_IN);
	opt(&m, 100, 0, cookie, sizeof(cookie));
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(q.edns_payload, 512);
	cr_assert_eq(dnsd_udp_limit(&q), 512);
	cr_assert_not(q.rd);

	/* a label holding a '.' or other non-host bytes: not a host name */
	header(&m, 3, 0, 1, 0, 0, 0);
	u8(&m, 3);
	raw(&m, "a.b", 3);
	u8(&m, 4);
	raw(&m, "test", 4);
	u8(&m, 0);
	u16(&m, 1);
	u16(&m, 1);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_not(q.name_is_text);

	m = query(4, "", DNSD_TYPE_A, false); /* the root */
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_not(q.name_is_text);

	/* the longest name: 255 wire bytes, 253 text bytes */
	char longname[254];
	memset(longname, 'x', 253);
	longname[253] = '\0';
	longname[63] = longname[127] = longname[191] = '.';
	m = query(5, longname, DNSD_TYPE_A, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(q.qname_len, 255);
	cr_assert(q.name_is_text);
	cr_assert_eq(q.name_len, 253);

	/* a query with a TSIG-like extra additional record is still a query */
	m = query(6, "a.test", DNSD_TYPE_A, true);
	m.b[11] = 2;
	name(&m, "key.test");
	u16(&m, 250);
	u16(&m, 255);
	u32(&m, 0);
	u16(&m, 2);
	u16(&m, 0);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
}

Test(wire, query_not_query_or_notimp)
{
	struct dnsd_query q;
	struct msg m = query(7, "a.test", DNSD_TYPE_A, false);
	m.b[2] |= 0x80;
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_NOT_QUERY);
	m = query(8, "a.test", DNSD_TYPE_A, false);
	m.b[2] = (uint8_t)(m.b[2] | (5 << 3)); /* UPDATE */
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_NOTIMP);
	cr_assert_eq(q.id, 8);
	cr_assert_eq(q.opcode, 5);
}

Test(wire, query_malformed_counts)
{
	struct dnsd_query q;
	static const unsigned counts[][4] = { { 0, 0, 0, 0 }, { 2, 0, 0, 0 }, { 1, 1, 0, 0 },
					      { 1, 0, 1, 0 }, { 1, 0, 0, 1 } };
	for (size_t i = 0; i < N_ELEMS(counts); i++) {
		struct msg m = query(9, "a.test", DNSD_TYPE_A, false);
		m.b[5] = (uint8_t)counts[i][0];
		m.b[7] = (uint8_t)counts[i][1];
		m.b[9] = (uint8_t)counts[i][2];
		m.b[11] = (uint8_t)counts[i][3];
		enum dnsd_status st = qparse(m.b, m.n, &q);
		/* ARCOUNT 1 with no record left is the end of the message */
		cr_assert(st == (i == 4 ? DNSD_TRUNCATED : DNSD_MALFORMED), "#%zu: %d", i, st);
		cr_assert_eq(q.id, 9);
	}
}

Test(wire, query_malformed_labels)
{
	struct dnsd_query q;
	struct msg m;

	/* 0x40 and 0x80 label types */
	static const uint8_t types[] = { 0x40, 0x80, 0x7f, 0xbf };
	for (size_t i = 0; i < N_ELEMS(types); i++) {
		header(&m, 1, 0, 1, 0, 0, 0);
		u8(&m, types[i]);
		for (int k = 0; k < 70; k++)
			u8(&m, 'a');
		u8(&m, 0);
		u16(&m, 1);
		u16(&m, 1);
		cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED, "type 0x%02x", types[i]);
	}
	/* a name of 256 wire bytes */
	header(&m, 1, 0, 1, 0, 0, 0);
	for (int l = 0; l < 4; l++) {
		u8(&m, 63);
		for (int k = 0; k < 63; k++)
			u8(&m, 'a');
	}
	u8(&m, 0); /* 4 * 64 + 1 = 257 */
	u16(&m, 1);
	u16(&m, 1);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
}

Test(wire, query_malformed_pointers)
{
	struct dnsd_query q;
	struct msg m;
	/* pointer to itself, forward, into the header */
	static const unsigned targets[] = { 12, 14, 0, 11, 0x3fff };
	for (size_t i = 0; i < N_ELEMS(targets); i++) {
		header(&m, 1, 0, 1, 0, 0, 0);
		u16(&m, 0xc000 | targets[i]);
		u16(&m, 1);
		u16(&m, 1);
		cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED, "target %u", targets[i]);
	}
}

Test(wire, query_malformed_edns)
{
	struct dnsd_query q;
	struct msg m;
	static const uint8_t bad_opts[] = { 0, 10, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t short_opt[] = { 0, 10, 0 };

	/* two OPT records */
	m = query(1, "a.test", DNSD_TYPE_A, true);
	m.b[11] = 2;
	opt(&m, 512, 0, NULL, 0);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
	/* OPT owned by a name */
	header(&m, 1, 0, 1, 0, 0, 1);
	name(&m, "a.test");
	u16(&m, 1);
	u16(&m, 1);
	name(&m, "x");
	u16(&m, DNSD_TYPE_OPT);
	u16(&m, 512);
	u32(&m, 0);
	u16(&m, 0);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
	/* an option running past RDATA, a cut option header */
	header(&m, 1, 0, 1, 0, 0, 1);
	name(&m, "a.test");
	u16(&m, 1);
	u16(&m, 1);
	opt(&m, 512, 0, bad_opts, sizeof(bad_opts));
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
	header(&m, 1, 0, 1, 0, 0, 1);
	name(&m, "a.test");
	u16(&m, 1);
	u16(&m, 1);
	opt(&m, 512, 0, short_opt, sizeof(short_opt));
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
}

Test(wire, query_trailing_bytes)
{
	struct dnsd_query q;
	struct msg m = query(1, "a.test", DNSD_TYPE_A, true);
	u8(&m, 0);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_MALFORMED);
}

/* Every proper prefix of a good query is TRUNCATED (wire.h contract). */
Test(wire, query_truncation_sweep)
{
	struct msg good[3];
	good[0] = query(1, "www.example.com", DNSD_TYPE_A, false);
	good[1] = query(2, "a.test", DNSD_TYPE_AAAA, true);
	good[2] = query(3, "", DNSD_TYPE_A, true);
	struct dnsd_query q;
	for (size_t g = 0; g < N_ELEMS(good); g++) {
		cr_assert_eq(qparse(good[g].b, good[g].n, &q), DNSD_OK);
		for (size_t n = 0; n < good[g].n; n++)
			cr_assert_eq(qparse(good[g].b, n, &q), DNSD_TRUNCATED, "#%zu prefix %zu", g, n);
	}
}

/* ---- responses built --------------------------------------------------- */

Test(wire, build_answers_and_parse_back)
{
	struct dnsd_query q;
	struct msg m = query(0x1234, "WWW.Allowed.Test", DNSD_TYPE_A, false);
	struct policy_addr addrs[] = { A("93.184.216.34"), A("2001:db8::1"), A("93.184.216.35") };
	uint8_t out[512];
	size_t len;
	struct dnsd_response r;
	struct dnsd_addr_rr got[8];

	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 3, 300, dnsd_udp_limit(&q),
					 out, sizeof(out), &len),
		     DNSD_OK);
	cr_assert_eq(out[0], 0x12);
	cr_assert_eq(out[1], 0x34);
	cr_assert_eq(out[2], 0x81, "QR and RD");
	cr_assert_eq(out[3], 0x80, "RA, NOERROR");
	cr_assert_eq(memcmp(out + 12, m.b + 12, q.qname_len + 4), 0, "question copied");
	cr_assert_eq(rparse(out, len, &r, got, 8), DNSD_OK);
	cr_assert_eq(r.id, 0x1234);
	cr_assert_eq(r.rcode, 0);
	cr_assert_eq(r.n_addrs, 2);
	cr_assert(policy_addr_equal(&got[0].addr, &addrs[0]));
	cr_assert(policy_addr_equal(&got[1].addr, &addrs[2]));
	cr_assert_eq(got[0].ttl, 300);

	m = query(7, "a.test", DNSD_TYPE_AAAA, true);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 3, 0x80000005u,
					 dnsd_udp_limit(&q), out, sizeof(out), &len),
		     DNSD_OK);
	cr_assert_eq(rparse(out, len, &r, got, 8), DNSD_OK);
	cr_assert_eq(r.n_addrs, 1);
	cr_assert(policy_addr_equal(&got[0].addr, &addrs[1]));
	cr_assert_eq(got[0].ttl, 5, "TTL top bit never sent");
	cr_assert_eq(out[11], 1, "OPT echoed");
}

Test(wire, build_refused_and_empty)
{
	struct dnsd_query q;
	struct policy_addr addrs[] = { A("93.184.216.34") };
	uint8_t out[512];
	size_t len;
	struct dnsd_response r;
	struct dnsd_addr_rr got[2];

	struct msg m = query(9, "evil.test", DNSD_TYPE_A, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_REFUSED, addrs, 1, 60, 512, out, sizeof(out),
					 &len),
		     DNSD_OK);
	cr_assert_eq(len, 12 + q.qname_len + 4);
	cr_assert_eq(rparse(out, len, &r, got, 2), DNSD_OK);
	cr_assert_eq(r.rcode, DNSD_RCODE_REFUSED);
	cr_assert_eq(r.n_addrs, 0);

	/* TXT (data exfiltration's favourite) for an allowed name: empty NOERROR */
	m = query(10, "allowed.test", 16, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 1, 60, 512, out, sizeof(out),
					 &len),
		     DNSD_OK);
	cr_assert_eq(out[7], 0, "ANCOUNT 0");
	cr_assert_eq(rparse(out, len, &r, got, 2), DNSD_OK);
	cr_assert_eq(r.n_addrs, 0);
}

Test(wire, build_truncates_whole_rrsets)
{
	struct dnsd_query q;
	struct policy_addr addrs[40];
	uint8_t out[4096];
	size_t len;
	for (int i = 0; i < 40; i++) {
		memset(&addrs[i], 0, sizeof(addrs[i]));
		addrs[i].family = POLICY_ADDR_V4;
		addrs[i].b[0] = 93;
		addrs[i].b[3] = (uint8_t)i;
	}
	struct msg m = query(11, "many.test", DNSD_TYPE_A, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 40, 60, dnsd_udp_limit(&q),
					 out, sizeof(out), &len),
		     DNSD_OK);
	cr_assert_leq(len, 512);
	cr_assert(out[2] & 0x02, "TC");
	cr_assert_eq(out[7], 0, "no partial answer");
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 40, 60, DNSD_TCP_MAX, out,
					 sizeof(out), &len),
		     DNSD_OK);
	cr_assert_not(out[2] & 0x02);
	cr_assert_eq(out[7], 40);
	/* not even header and question */
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_NOERROR, addrs, 40, 60, 512, out, 20, &len),
		     DNSD_NO_SPACE);
}

Test(wire, build_badvers)
{
	struct dnsd_query q;
	uint8_t out[512];
	size_t len;
	struct dnsd_response r;
	struct dnsd_addr_rr got[1];

	struct msg m = query(12, "a.test", DNSD_TYPE_A, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_BADVERS, NULL, 0, 0, 512, out, sizeof(out), &len),
		     DNSD_MALFORMED, "an extended rcode needs EDNS");
	m = query(12, "a.test", DNSD_TYPE_A, true);
	m.b[m.n - 5] = 1; /* EDNS version 1 */
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(q.edns_version, 1);
	cr_assert_eq(dnsd_build_response(&q, DNSD_RCODE_BADVERS, NULL, 0, 0, 512, out, sizeof(out), &len),
		     DNSD_OK);
	cr_assert_eq(rparse(out, len, &r, got, 1), DNSD_OK);
	cr_assert_eq(r.rcode, DNSD_RCODE_BADVERS);
}

Test(wire, build_error)
{
	uint8_t out[64];
	size_t len;
	struct msg m = query(0x4242, "a.test", DNSD_TYPE_A, false);
	m.b[5] = 2; /* QDCOUNT 2: FORMERR */
	cr_assert_eq(dnsd_build_error(m.b, m.n, DNSD_RCODE_FORMERR, out, sizeof(out), &len), DNSD_OK);
	cr_assert_eq(len, 12);
	cr_assert_eq(out[0], 0x42);
	cr_assert_eq(out[2], 0x81);
	cr_assert_eq(out[3], 0x81);
	for (int i = 4; i < 12; i++)
		cr_assert_eq(out[i], 0);
	cr_assert_eq(dnsd_build_error(m.b, 11, DNSD_RCODE_FORMERR, out, sizeof(out), &len),
		     DNSD_TRUNCATED);
	m.b[2] |= 0x80;
	cr_assert_eq(dnsd_build_error(m.b, m.n, DNSD_RCODE_FORMERR, out, sizeof(out), &len),
		     DNSD_NOT_QUERY);
	m.b[2] &= 0x7f;
	cr_assert_eq(dnsd_build_error(m.b, m.n, DNSD_RCODE_FORMERR, out, 11, &len), DNSD_NO_SPACE);
}

/* ---- upstream responses ------------------------------------------------ */

/* www.allowed.test CNAME edge.cdn.test (compressed), edge.cdn.test A x2,
 * AAAA x1, an A for an unrelated name (ignored), an authority NS, an OPT. */
static struct msg upstream(void)
{
	struct msg m;
	header(&m, 0x5555, 0x8180, 1, 5, 1, 1);
	name(&m, "www.allowed.test"); /* at 12 */
	u16(&m, DNSD_TYPE_A);
	u16(&m, 1);
	/* CNAME, owner pointer to 12 */
	u16(&m, 0xc00c);
	u16(&m, DNSD_TYPE_CNAME);
	u16(&m, 1);
	u32(&m, 120);
	size_t rdlen_at = m.n;
	u16(&m, 0);
	size_t target_at = m.n;
	u8(&m, 4);
	raw(&m, "edge", 4);
	u8(&m, 3);
	raw(&m, "cdn", 3);
	u16(&m, 0xc000 | (12 + 4 + 8)); /* "test" of the question */
	m.b[rdlen_at + 1] = (uint8_t)(m.n - target_at);
	/* A records owned by the CNAME target (pointer), one in upper case */
	u16(&m, 0xc000 | (unsigned)target_at);
	u16(&m, DNSD_TYPE_A);
	u16(&m, 1);
	u32(&m, 300);
	u16(&m, 4);
	raw(&m, "\x5d\xb8\xd8\x22", 4); /* 93.184.216.34 */
	u8(&m, 4);
	raw(&m, "EDGE", 4);
	u8(&m, 3);
	raw(&m, "CDN", 3);
	u8(&m, 4);
	raw(&m, "TEST", 4);
	u8(&m, 0);
	u16(&m, DNSD_TYPE_A);
	u16(&m, 1);
	u32(&m, 0x80000000u); /* top bit: 0 */
	u16(&m, 4);
	raw(&m, "\x5d\xb8\xd8\x23", 4);
	u16(&m, 0xc000 | (unsigned)target_at);
	u16(&m, DNSD_TYPE_AAAA);
	u16(&m, 1);
	u32(&m, 60);
	u16(&m, 16);
	raw(&m, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	/* smuggled: an A for another name */
	name(&m, "evil.test");
	u16(&m, DNSD_TYPE_A);
	u16(&m, 1);
	u32(&m, 300);
	u16(&m, 4);
	raw(&m, "\x7f\0\0\x01", 4);
	/* authority NS */
	u16(&m, 0xc00c);
	u16(&m, 2);
	u16(&m, 1);
	u32(&m, 300);
	u16(&m, 2);
	u16(&m, 0xc00c);
	opt(&m, 1232, 0, NULL, 0);
	return m;
}

Test(wire, response_cname_chain)
{
	struct msg m = upstream();
	struct dnsd_response r;
	struct dnsd_addr_rr got[8];

	cr_assert_eq(rparse(m.b, m.n, &r, got, 8), DNSD_OK);
	cr_assert_eq(r.id, 0x5555);
	cr_assert_eq(r.n_addrs, 3);
	cr_assert_eq(r.n_addrs_found, 3);
	cr_assert_eq(got[0].ttl, 120, "lowered to the CNAME's TTL");
	cr_assert_eq(got[1].ttl, 0);
	cr_assert_eq(got[2].ttl, 60);
	cr_assert_eq(got[0].addr.family, POLICY_ADDR_V4);
	cr_assert_eq(got[2].addr.family, POLICY_ADDR_V6);
	cr_assert_eq(r.target_len, 15);
	cr_assert_eq(memcmp(r.target, "\4edge\3cdn\4test", 15), 0);
	/* a short cap still counts */
	cr_assert_eq(rparse(m.b, m.n, &r, got, 1), DNSD_OK);
	cr_assert_eq(r.n_addrs, 1);
	cr_assert_eq(r.n_addrs_found, 3);
}

Test(wire, response_truncation_sweep)
{
	struct msg m = upstream();
	struct dnsd_response r;
	struct dnsd_addr_rr got[8];
	for (size_t n = 0; n < m.n; n++)
		cr_assert_eq(rparse(m.b, n, &r, got, 8), DNSD_TRUNCATED, "prefix %zu", n);
}

Test(wire, response_malformed)
{
	struct dnsd_response r;
	struct dnsd_addr_rr got[4];
	struct msg m;

	/* not a response */
	m = query(1, "a.test", DNSD_TYPE_A, false);
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_NOT_RESPONSE);
	/* trailing byte */
	m = upstream();
	u8(&m, 0);
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED);
	/* an A record of 5 bytes */
	header(&m, 1, 0x8180, 1, 1, 0, 0);
	name(&m, "a.test");
	u16(&m, 1);
	u16(&m, 1);
	u16(&m, 0xc00c);
	u16(&m, DNSD_TYPE_A);
	u16(&m, 1);
	u32(&m, 1);
	u16(&m, 5);
	raw(&m, "\1\2\3\4\5", 5);
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED);
	/* an answer owner pointing at itself, and forward */
	for (int fwd = 0; fwd < 2; fwd++) {
		header(&m, 1, 0x8180, 1, 1, 0, 0);
		name(&m, "a.test");
		u16(&m, 1);
		u16(&m, 1);
		u16(&m, 0xc000 | (unsigned)(m.n + (size_t)fwd * 2));
		u16(&m, DNSD_TYPE_A);
		u16(&m, 1);
		u32(&m, 1);
		u16(&m, 4);
		raw(&m, "\1\2\3\4", 4);
		cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED, "fwd %d", fwd);
	}
	/* a CNAME whose target runs past its RDATA */
	header(&m, 1, 0x8180, 1, 1, 0, 0);
	name(&m, "a.test");
	u16(&m, 1);
	u16(&m, 1);
	u16(&m, 0xc00c);
	u16(&m, DNSD_TYPE_CNAME);
	u16(&m, 1);
	u32(&m, 1);
	u16(&m, 2);
	raw(&m, "\1b\0", 3);
	m.b[7] = 1;
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED);
	/* QDCOUNT 0 */
	m = upstream();
	m.b[5] = 0;
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED);
}

Test(wire, response_cname_loop)
{
	struct dnsd_response r;
	struct dnsd_addr_rr got[4];
	struct msg m;

	/* a.test CNAME b.test, b.test CNAME a.test, and an A for each */
	header(&m, 1, 0x8180, 1, 4, 0, 0);
	name(&m, "a.test"); /* 12 */
	u16(&m, 1);
	u16(&m, 1);
	u16(&m, 0xc00c);
	u16(&m, DNSD_TYPE_CNAME);
	u16(&m, 1);
	u32(&m, 1);
	u16(&m, 4);
	size_t b_at = m.n;
	u8(&m, 1);
	u8(&m, 'b');
	u16(&m, 0xc000 | 14); /* "test" */
	u16(&m, 0xc000 | (unsigned)b_at);
	u16(&m, DNSD_TYPE_CNAME);
	u16(&m, 1);
	u32(&m, 1);
	u16(&m, 2);
	u16(&m, 0xc00c);
	for (int k = 0; k < 2; k++) {
		u16(&m, 0xc000 | (unsigned)(k ? b_at : 12));
		u16(&m, DNSD_TYPE_A);
		u16(&m, 1);
		u32(&m, 1);
		u16(&m, 4);
		raw(&m, "\x5d\1\1\1", 4);
	}
	cr_assert_eq(rparse(m.b, m.n, &r, got, 4), DNSD_MALFORMED);
}

/* ---- names ------------------------------------------------------------- */

Test(wire, name_from_text_and_equal)
{
	uint8_t w[DNSD_NAME_WIRE_MAX];
	size_t wl;
	cr_assert_eq(dnsd_name_from_text("www.allowed.test", 16, w, &wl), DNSD_OK);
	cr_assert_eq(wl, 18);
	cr_assert_eq(memcmp(w, "\3www\7allowed\4test", 18), 0);
	cr_assert(dnsd_name_equal(w, wl, (const uint8_t *)"\3WwW\7ALLOWED\4Test", 18));
	cr_assert_not(dnsd_name_equal(w, wl, (const uint8_t *)"\3wwx\7allowed\4test", 18));
	cr_assert_not(dnsd_name_equal(w, wl, (const uint8_t *)"\3www\7allowed\4tes", 17));
	/* case folding is ASCII only: 0xc1 is not 0xe1 */
	cr_assert_not(dnsd_name_equal((const uint8_t *)"\1\xc1", 3, (const uint8_t *)"\1\xe1", 3));

	static const char *const bad[] = { "", ".", "a.", ".a", "a..b", "a b", "a\x80" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		cr_assert_eq(dnsd_name_from_text(bad[i], strlen(bad[i]), w, &wl), DNSD_MALFORMED,
			     "%s", bad[i]);
	char longname[254];
	memset(longname, 'x', 253);
	longname[63] = longname[127] = longname[191] = '.';
	cr_assert_eq(dnsd_name_from_text(longname, 253, w, &wl), DNSD_OK);
	cr_assert_eq(wl, 255);
	longname[63] = 'x';
	cr_assert_eq(dnsd_name_from_text(longname, 253, w, &wl), DNSD_MALFORMED, "label of 127");

	/* what a query parses to, written back, is the same wire name */
	struct dnsd_query q;
	struct msg m = query(1, "a-b.c_d.test", DNSD_TYPE_A, false);
	cr_assert_eq(qparse(m.b, m.n, &q), DNSD_OK);
	cr_assert_eq(dnsd_name_from_text(q.name, q.name_len, w, &wl), DNSD_OK);
	cr_assert(wl == q.qname_len && memcmp(w, q.qname, wl) == 0);
}

/* ---- TCP framing ------------------------------------------------------- */

Test(wire, tcp_framing)
{
	struct msg q = query(1, "a.test", DNSD_TYPE_A, false);
	uint8_t stream[1024];
	size_t len;

	cr_assert_eq(dnsd_tcp_prefix(q.n, stream), DNSD_OK);
	memcpy(stream + 2, q.b, q.n);
	memcpy(stream + 2 + q.n, stream, 2 + q.n); /* two messages back to back */
	for (size_t n = 0; n < 2 + q.n; n++) {
		uint8_t *c = dup_exact(stream, n);
		cr_assert_eq(dnsd_tcp_frame(c, n, &len), DNSD_NEED_MORE, "prefix %zu", n);
		free(c);
	}
	cr_assert_eq(dnsd_tcp_frame(stream, 2 * (2 + q.n), &len), DNSD_OK);
	cr_assert_eq(len, q.n);
	struct dnsd_query pq;
	cr_assert_eq(dnsd_query_parse(stream + 2, len, &pq), DNSD_OK);
	cr_assert_eq(dnsd_tcp_frame(stream + 2 + len, 2 + q.n, &len), DNSD_OK);

	static const uint8_t tiny[] = { 0, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	cr_assert_eq(dnsd_tcp_frame(tiny, sizeof(tiny), &len), DNSD_MALFORMED);
	cr_assert_eq(dnsd_tcp_frame(tiny, 2, &len), DNSD_MALFORMED);
	cr_assert_eq(dnsd_tcp_prefix(65536, stream), DNSD_MALFORMED);
	cr_assert_eq(dnsd_tcp_prefix(65535, stream), DNSD_OK);
	cr_assert_eq(stream[0], 0xff);
	cr_assert_eq(stream[1], 0xff);
}
