/* tests/unit/tls/test_constraints.c: the CA's names and the DER that
 * carries them (tls/constraints.h).  The DER is compared with bytes worked
 * out by hand from RFC 5280's ASN.1 module, not with what the encoder wrote
 * once; every buffer is a heap copy of its exact size, so a write past it is
 * an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tls/constraints.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define TEXT(lit) ((struct tls_text){ lit, sizeof(lit) - 1 })

static enum tls_name_status parse(struct tls_text t, struct tls_name *out)
{
	char *copy = malloc(t.n ? t.n : 1);
	cr_assert(copy);
	memcpy(copy, t.p, t.n);
	enum tls_name_status st = tls_name_parse(copy, t.n, out);
	free(copy);
	return st;
}

/* ---- names ---------------------------------------------------------------- */

Test(tls_name, host_names_and_literals)
{
	struct tls_name n;
	cr_assert_eq(parse(TEXT("api.example"), &n), TLS_NAME_OK);
	cr_assert_eq(n.kind, TLS_NAME_DNS);
	cr_assert_not(n.wildcard);
	cr_assert_str_eq(n.dns, "api.example");
	cr_assert_eq(n.dns_len, 11);

	cr_assert_eq(parse(TEXT("*.registry.example"), &n), TLS_NAME_OK);
	cr_assert_eq(n.kind, TLS_NAME_DNS);
	cr_assert(n.wildcard);
	cr_assert_str_eq(n.dns, "registry.example");

	cr_assert_eq(parse(TEXT("a_b-c.example"), &n), TLS_NAME_OK); /* policy/'s grammar */

	cr_assert_eq(parse(TEXT("192.0.2.1"), &n), TLS_NAME_OK);
	cr_assert_eq(n.kind, TLS_NAME_IPV4);
	cr_assert_eq(memcmp(n.addr.b, "\xc0\x00\x02\x01", 4), 0);

	cr_assert_eq(parse(TEXT("2001:db8::1"), &n), TLS_NAME_OK);
	cr_assert_eq(n.kind, TLS_NAME_IPV6);
	cr_assert_eq(memcmp(n.addr.b, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16), 0);
}

Test(tls_name, refused)
{
	static const struct {
		struct tls_text in;
		enum tls_name_status want;
	} v[] = {
		{ TEXT(""), TLS_NAME_EMPTY },
		{ TEXT("*."), TLS_NAME_EMPTY },
		{ TEXT("*"), TLS_NAME_ANY },
		{ TEXT("API.example"), TLS_NAME_NOT_CANONICAL },
		{ TEXT("api.example."), TLS_NAME_NOT_CANONICAL },
		{ TEXT("*.Registry.example"), TLS_NAME_NOT_CANONICAL },
		{ TEXT("api\0.example"), TLS_NAME_MALFORMED },
		{ TEXT("api.example\0"), TLS_NAME_MALFORMED },
		{ TEXT("a..example"), TLS_NAME_MALFORMED },
		{ TEXT(".example"), TLS_NAME_MALFORMED },
		{ TEXT("a b.example"), TLS_NAME_MALFORMED },
		{ TEXT("a,b.example"), TLS_NAME_MALFORMED },    /* would split an X.500 name */
		{ TEXT("caf\xc3\xa9.example"), TLS_NAME_MALFORMED },
		{ TEXT("*.*.example"), TLS_NAME_MALFORMED },
		{ TEXT("a.*.example"), TLS_NAME_MALFORMED },
		{ TEXT("*example"), TLS_NAME_MALFORMED },
		{ TEXT("127.1"), TLS_NAME_MALFORMED },          /* an address in disguise */
		{ TEXT("2130706433"), TLS_NAME_MALFORMED },
		{ TEXT("010.0.0.1"), TLS_NAME_MALFORMED },      /* octal to inet_aton */
		{ TEXT("*.192.0.2.1"), TLS_NAME_MALFORMED },
		{ TEXT("[2001:db8::1]"), TLS_NAME_MALFORMED },  /* brackets are the caller's */
		{ TEXT("fe80::1%eth0"), TLS_NAME_MALFORMED },
		{ TEXT("2001:db8::1:"), TLS_NAME_MALFORMED },
		{ TEXT("*.2001:db8::1"), TLS_NAME_MALFORMED },
		{ TEXT("api.example:443"), TLS_NAME_MALFORMED },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct tls_name n;
		cr_assert_eq(parse(v[i].in, &n), v[i].want, "vector %zu", i);
	}
}

Test(tls_name, length_limit)
{
	/* 253 bytes: labels of 63, 63, 63 and 61 */
	char name[300];
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	struct tls_name n;
	cr_assert_eq(parse((struct tls_text){ name, 253 }, &n), TLS_NAME_OK);
	cr_assert_eq(n.dns_len, 253);
	cr_assert_eq(parse((struct tls_text){ name, 254 }, &n), TLS_NAME_TOO_LONG);
	/* "*." does not count against the 253 */
	char wild[300] = "*.";
	memcpy(wild + 2, name, 253);
	cr_assert_eq(parse((struct tls_text){ wild, 255 }, &n), TLS_NAME_OK);
	cr_assert_eq(parse((struct tls_text){ wild, 256 }, &n), TLS_NAME_TOO_LONG);
	/* a label of 64 */
	memset(name, 'b', 64);
	memcpy(name + 64, ".example", 8);
	cr_assert_eq(parse((struct tls_text){ name, 72 }, &n), TLS_NAME_MALFORMED);
}

static struct tls_name must_parse(const char *s)
{
	struct tls_name n;
	cr_assert_eq(tls_name_parse(s, strlen(s), &n), TLS_NAME_OK, "%s", s);
	return n;
}

Test(tls_name, permits)
{
	struct tls_name list[] = { must_parse("api.example"), must_parse("*.registry.example"),
				   must_parse("192.0.2.1"), must_parse("2001:db8::1") };
	static const struct {
		const char *name;
		bool want;
	} v[] = {
		{ "api.example", true },
		{ "x.api.example", false },      /* narrower than the constraint */
		{ "example", false },
		{ "registry.example", true },
		{ "a.b.registry.example", true },
		{ "evilregistry.example", false },
		{ "*.registry.example", false }, /* a leaf names one host */
		{ "other.example", false },
		{ "192.0.2.1", true },
		{ "192.0.2.2", false },
		{ "2001:db8::1", true },
		{ "2001:db8:0::1", true },       /* another spelling, the same address */
		{ "::ffff:192.0.2.1", false },   /* another name form */
		{ "2001:db8::2", false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct tls_name n = must_parse(v[i].name);
		cr_assert_eq(tls_name_permits(list, N_ELEMS(list), &n), v[i].want, "%s", v[i].name);
	}
	struct tls_name n = must_parse("api.example");
	cr_assert_not(tls_name_permits(list, 0, &n));
}

/* ---- nameConstraints ------------------------------------------------------ */

/* Encodes names into an exact-size heap buffer of cap bytes. */
static enum tls_der_status encode(const struct tls_text *names, size_t n, size_t cap,
				  uint8_t *out, size_t *len)
{
	uint8_t *buf = malloc(cap ? cap : 1);
	cr_assert(buf);
	enum tls_der_status st = tls_name_constraints_der(names, n, buf, cap, len, NULL, NULL);
	if (st == TLS_DER_OK)
		memcpy(out, buf, *len);
	free(buf);
	return st;
}

static void expect_der(const struct tls_text *names, size_t n, const uint8_t *want, size_t want_len)
{
	uint8_t out[TLS_NC_DER_MAX];
	size_t len = 99;
	cr_assert_eq(encode(names, n, TLS_NC_DER_MAX, out, &len), TLS_DER_OK);
	cr_assert_eq(len, want_len, "length %zu, want %zu", len, want_len);
	cr_assert_eq(memcmp(out, want, len), 0);
	/* every smaller buffer is refused, and the exact size is enough */
	for (size_t cap = 0; cap < want_len; cap++) {
		len = 99;
		cr_assert_eq(encode(names, n, cap, out, &len), TLS_DER_TOO_BIG, "cap %zu", cap);
		cr_assert_eq(len, 0);
	}
	cr_assert_eq(encode(names, n, want_len, out, &len), TLS_DER_OK);
	cr_assert_eq(memcmp(out, want, len), 0);
}

Test(tls_nc, host_name_only_excludes_every_address)
{
	struct tls_text names[] = { TEXT("api.example") };
	static const uint8_t want[] = {
		0x30, 0x43,                         /* NameConstraints */
		0xa0, 0x0f,                         /* permittedSubtrees [0] */
		0x30, 0x0d, 0x82, 0x0b, 'a', 'p', 'i', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		0xa1, 0x30,                         /* excludedSubtrees [1] */
		0x30, 0x0a, 0x87, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, /* 0.0.0.0/0 */
		0x30, 0x22, 0x87, 0x20,             /* ::/0 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	expect_der(names, 1, want, sizeof(want));
}

Test(tls_nc, address_only_excludes_every_host_name)
{
	struct tls_text names[] = { TEXT("192.0.2.1") };
	static const uint8_t want[] = {
		0x30, 0x14,
		0xa0, 0x0c, 0x30, 0x0a, 0x87, 0x08, 0xc0, 0x00, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff,
		0xa1, 0x04, 0x30, 0x02, 0x82, 0x00, /* the empty dNSName: every name */
	};
	expect_der(names, 1, want, sizeof(want));
}

Test(tls_nc, both_forms_in_order_and_nothing_excluded)
{
	struct tls_text names[] = { TEXT("2001:db8::1"), TEXT("*.r.example"), TEXT("a.example"),
				    TEXT("a.example") };
	static const uint8_t want[] = {
		0x30, 0x4d, 0xa0, 0x4b,
		0x30, 0x22, 0x87, 0x20,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x30, 0x0b, 0x82, 0x09, 'r', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		0x30, 0x0b, 0x82, 0x09, 'a', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		0x30, 0x0b, 0x82, 0x09, 'a', '.', 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	};
	expect_der(names, N_ELEMS(names), want, sizeof(want));
}

Test(tls_nc, long_lengths)
{
	/* a 253-byte name: the dNSName's length takes the long form (0x81),
	 * its subtree's too (0x82 0x01 0x00: 256 bytes) */
	char name[253];
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	struct tls_text names[] = { { name, 253 }, TEXT("192.0.2.1") };
	uint8_t out[TLS_NC_DER_MAX];
	size_t len = 0;
	cr_assert_eq(encode(names, 2, TLS_NC_DER_MAX, out, &len), TLS_DER_OK);
	static const uint8_t head[] = { 0x30, 0x82, 0x01, 0x14, 0xa0, 0x82, 0x01, 0x10,
					0x30, 0x82, 0x01, 0x00, 0x82, 0x81, 0xfd };
	cr_assert_eq(len, 4 + 4 + 260 + 12);
	cr_assert_eq(memcmp(out, head, sizeof(head)), 0);
	cr_assert_eq(memcmp(out + sizeof(head), name, 253), 0);
}

Test(tls_nc, refusals)
{
	size_t len = 99, bad = 99;
	enum tls_name_status why = TLS_NAME_OK;
	uint8_t buf[64];
	cr_assert_eq(tls_name_constraints_der(NULL, 0, buf, sizeof(buf), &len, &bad, &why),
		     TLS_DER_NO_NAMES);
	cr_assert_eq(len, 0);

	struct tls_text names[] = { TEXT("a.example"), TEXT("b.example"), TEXT("B.example"),
				    TEXT("*") };
	cr_assert_eq(tls_name_constraints_der(names, 4, buf, sizeof(buf), &len, &bad, &why),
		     TLS_DER_BAD_NAME);
	cr_assert_eq(bad, 2);
	cr_assert_eq(why, TLS_NAME_NOT_CANONICAL);
	cr_assert_eq(len, 0);
	/* the first bad name is named even when the buffer is too small */
	cr_assert_eq(tls_name_constraints_der(names, 4, buf, 0, &len, &bad, &why),
		     TLS_DER_BAD_NAME);
	cr_assert_eq(bad, 2);

	struct tls_text many[TLS_NAMES_MAX + 1];
	for (size_t i = 0; i < N_ELEMS(many); i++)
		many[i] = TEXT("a.example");
	uint8_t *big = malloc(TLS_NC_DER_MAX);
	cr_assert(big);
	cr_assert_eq(tls_name_constraints_der(many, TLS_NAMES_MAX + 1, big, TLS_NC_DER_MAX, &len,
					      NULL, NULL),
		     TLS_DER_TOO_MANY);
	cr_assert_eq(tls_name_constraints_der(many, TLS_NAMES_MAX, big, TLS_NC_DER_MAX, &len,
					      NULL, NULL),
		     TLS_DER_OK);
	free(big);
}

Test(tls_nc, the_bound_holds_for_the_longest_list)
{
	/* TLS_NAMES_MAX names of 253 bytes, no address: the largest DER */
	char name[253];
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	struct tls_text names[TLS_NAMES_MAX];
	for (size_t i = 0; i < TLS_NAMES_MAX; i++)
		names[i] = (struct tls_text){ name, sizeof(name) };
	uint8_t *buf = malloc(TLS_NC_DER_MAX);
	cr_assert(buf);
	size_t len = 0;
	cr_assert_eq(tls_name_constraints_der(names, TLS_NAMES_MAX, buf, TLS_NC_DER_MAX, &len,
					      NULL, NULL),
		     TLS_DER_OK);
	cr_assert_leq(len, TLS_NC_DER_MAX);
	free(buf);
}

/* ---- subjectAltName ------------------------------------------------------- */

static void expect_san(const char *name, const uint8_t *want, size_t want_len)
{
	struct tls_name n = must_parse(name);
	for (size_t cap = 0; cap <= want_len; cap++) {
		uint8_t *buf = malloc(cap ? cap : 1);
		cr_assert(buf);
		size_t len = 99;
		enum tls_der_status st = tls_subject_alt_name_der(&n, buf, cap, &len);
		if (cap < want_len) {
			cr_assert_eq(st, TLS_DER_TOO_BIG, "%s cap %zu", name, cap);
			cr_assert_eq(len, 0);
		} else {
			cr_assert_eq(st, TLS_DER_OK);
			cr_assert_eq(len, want_len);
			cr_assert_eq(memcmp(buf, want, len), 0, "%s", name);
		}
		free(buf);
	}
}

Test(tls_san, one_name_exactly)
{
	static const uint8_t dns[] = { 0x30, 0x0d, 0x82, 0x0b, 'a', 'p', 'i', '.',
				       'e',  'x',  'a',  'm',  'p', 'l', 'e' };
	expect_san("api.example", dns, sizeof(dns));
	static const uint8_t v4[] = { 0x30, 0x06, 0x87, 0x04, 0xc0, 0x00, 0x02, 0x01 };
	expect_san("192.0.2.1", v4, sizeof(v4));
	static const uint8_t v6[] = { 0x30, 0x12, 0x87, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0,
				      0,    0,    0,    0,    0,    0,    0,    0,    0, 0x01 };
	expect_san("2001:db8::1", v6, sizeof(v6));

	struct tls_name wild = must_parse("*.api.example");
	uint8_t buf[TLS_SAN_DER_MAX];
	size_t len = 99;
	cr_assert_eq(tls_subject_alt_name_der(&wild, buf, sizeof(buf), &len), TLS_DER_BAD_NAME);
	cr_assert_eq(len, 0);
}
