/* tests/unit/policy/test_names.c: host name canonicalisation, matching and
 * reserved names (policy/names.h).  Inputs are canonicalised from exact-size
 * heap copies, so a read past len is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/names.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

static enum policy_name_status canon(const void *in, size_t len, char out[POLICY_NAME_MAX + 1],
				     size_t *ol)
{
	uint8_t *c = malloc(len ? len : 1);
	cr_assert(c);
	memcpy(c, in, len);
	enum policy_name_status st = policy_name_canonical(c, len, out, ol);
	free(c);
	cr_assert_lt(*ol, POLICY_NAME_MAX + 1);
	cr_assert_eq(out[*ol], '\0');
	return st;
}

static const struct {
	const char *in;
	size_t len;
	enum policy_name_status st;
	const char *out;
} good[] = {
	{ S("example.com"), POLICY_NAME_OK, "example.com" },
	{ S("EXAMPLE.Com"), POLICY_NAME_OK, "example.com" },
	{ S("example.com."), POLICY_NAME_OK, "example.com" },
	{ S("a"), POLICY_NAME_OK, "a" },
	{ S("a."), POLICY_NAME_OK, "a" },
	{ S("_dmarc.Example-1.org"), POLICY_NAME_OK, "_dmarc.example-1.org" },
	{ S("xn--80ak6aa92e.com"), POLICY_NAME_OK, "xn--80ak6aa92e.com" },
	{ S("1.2.3.com"), POLICY_NAME_OK, "1.2.3.com" },
	{ S("0x.example"), POLICY_NAME_OK, "0x.example" },
	{ S("a.0xg"), POLICY_NAME_OK, "a.0xg" },
	{ S("localhost."), POLICY_NAME_OK, "localhost" },
	/* IP literals in disguise (escape corpus row 29) */
	{ S("127.1"), POLICY_NAME_NUMERIC, "127.1" },
	{ S("2130706433"), POLICY_NAME_NUMERIC, "2130706433" },
	{ S("0x7f000001"), POLICY_NAME_NUMERIC, "0x7f000001" },
	{ S("0X7F000001"), POLICY_NAME_NUMERIC, "0x7f000001" },
	{ S("0177.0.0.1"), POLICY_NAME_NUMERIC, "0177.0.0.1" },
	{ S("127.0.0.1"), POLICY_NAME_NUMERIC, "127.0.0.1" },
	{ S("127.0.0.1."), POLICY_NAME_NUMERIC, "127.0.0.1" },
	{ S("0.0.0.0"), POLICY_NAME_NUMERIC, "0.0.0.0" },
	{ S("example.0x"), POLICY_NAME_NUMERIC, "example.0x" },
	{ S("foo.123"), POLICY_NAME_NUMERIC, "foo.123" },
};

Test(names, canonical_vectors)
{
	char out[POLICY_NAME_MAX + 1];
	size_t ol;
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		enum policy_name_status st = canon(good[i].in, good[i].len, out, &ol);
		cr_assert_eq(st, good[i].st, "%s: status %d", good[i].in, st);
		cr_assert_str_eq(out, good[i].out, "%s", good[i].in);
		cr_assert_eq(ol, strlen(good[i].out));
	}
}

/* one array per malformed class */
static void all_malformed(const char *cls, const char *const *v, const size_t *lens, size_t n)
{
	char out[POLICY_NAME_MAX + 1];
	size_t ol;
	for (size_t i = 0; i < n; i++) {
		size_t len = lens ? lens[i] : strlen(v[i]);
		cr_assert_eq(canon(v[i], len, out, &ol), POLICY_NAME_MALFORMED, "%s: #%zu '%s'",
			     cls, i, v[i]);
	}
}

Test(names, malformed_empty_labels)
{
	static const char *const v[] = { "", ".", "..", ".a", "a..b", "a..", "a.b..", ".a." };
	all_malformed("empty", v, NULL, N_ELEMS(v));
}

Test(names, malformed_bytes)
{
	static const char *const v[] = { "a b", "a%b", "a%2eb", "a/b", "a:b", "a*b", "*.a",
					 "a\tb", "a+b", "a@b", "a\\b", "[::1]", "a,b" };
	all_malformed("bytes", v, NULL, N_ELEMS(v));
}

Test(names, malformed_nul)
{
	static const char *const v[] = { "a\0b", "\0", "example.com\0" };
	static const size_t lens[] = { 3, 1, 12 };
	all_malformed("nul", v, lens, N_ELEMS(v));
}

Test(names, malformed_non_ascii)
{
	/* Cyrillic 'а' (U+0430) in "аpple.com", a fullwidth dot, Latin-1 */
	static const char *const v[] = { "\xd0\xb0pple.com", ("example\xef\xbc\x8e" "com"),
					 "caf\xe9.fr", "\x80", "a.\xff" };
	all_malformed("non-ascii", v, NULL, N_ELEMS(v));
}

Test(names, lengths)
{
	char in[300], out[POLICY_NAME_MAX + 1];
	size_t ol;

	memset(in, 'a', 63);
	cr_assert_eq(canon(in, 63, out, &ol), POLICY_NAME_OK);
	memset(in, 'a', 64);
	cr_assert_eq(canon(in, 64, out, &ol), POLICY_NAME_MALFORMED, "label of 64");
	/* 4 labels of 63 with dots: 255 bytes; trim to exactly 253 */
	for (int k = 0; k < 4; k++) {
		memset(in + k * 64, 'b', 63);
		if (k < 3)
			in[k * 64 + 63] = '.';
	}
	cr_assert_eq(canon(in, 253, out, &ol), POLICY_NAME_OK);
	cr_assert_eq(ol, 253);
	in[253] = '.';
	cr_assert_eq(canon(in, 254, out, &ol), POLICY_NAME_OK, "253 and a trailing dot");
	cr_assert_eq(canon(in, 255, out, &ol), POLICY_NAME_MALFORMED, "254 bytes");
}

Test(names, canonical_is_idempotent)
{
	char out[POLICY_NAME_MAX + 1], again[POLICY_NAME_MAX + 1];
	size_t ol, al;
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		enum policy_name_status st = canon(good[i].in, good[i].len, out, &ol);
		cr_assert_eq(canon(out, ol, again, &al), st);
		cr_assert_str_eq(again, out);
	}
}

static const struct {
	const char *pattern, *name;
	bool match;
} match_vectors[] = {
	{ "*", "anything.example", true },
	{ "*", "a", true },
	{ "*.allowed.test", "allowed.test", true },
	{ "*.allowed.test", "www.allowed.test", true },
	{ "*.allowed.test", "a.b.c.allowed.test", true },
	/* escape corpus row 33 */
	{ "*.allowed.test", "evilallowed.test", false },
	{ "*.allowed.test", "allowed.test.evil.test", false },
	{ "*.allowed.test", "allowed.tes", false },
	{ "*.allowed.test", "llowed.test", false },
	{ "*.allowed.test", "xallowed.test", false },
	{ "*.allowed.test", "test", false },
	{ "allowed.test", "allowed.test", true },
	{ "allowed.test", "www.allowed.test", false },
	{ "allowed.test", "allowed.test.", false }, /* never canonical */
	{ "*.", "a", false },
};

Test(names, matching)
{
	for (size_t i = 0; i < N_ELEMS(match_vectors); i++)
		cr_assert_eq(policy_name_matches(match_vectors[i].pattern, match_vectors[i].name),
			     match_vectors[i].match, "%s vs %s", match_vectors[i].pattern,
			     match_vectors[i].name);
}

/* Row 33's spellings, canonicalised first as every caller does. */
Test(names, row33_spellings)
{
	static const struct {
		const char *in;
		bool match;
	} v[] = {
		{ "WWW.ALLOWED.TEST", true }, { "allowed.test.", true }, { "Allowed.Test.", true },
		{ "evilallowed.test", false }, { "allowed.test.evil.test", false },
		{ "ALLOWED.TEST.EVIL.TEST.", false },
	};
	char out[POLICY_NAME_MAX + 1];
	size_t ol;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(canon(v[i].in, strlen(v[i].in), out, &ol), POLICY_NAME_OK);
		cr_assert_eq(policy_name_matches("*.allowed.test", out), v[i].match, "%s", v[i].in);
	}
	cr_assert_eq(canon(S("\xd0\xb0llowed.test"), out, &ol), POLICY_NAME_MALFORMED);
}

Test(names, reserved)
{
	cr_assert_eq(policy_name_reserved("localhost"), POLICY_NAME_LOCALHOST);
	cr_assert_eq(policy_name_reserved("a.b.localhost"), POLICY_NAME_LOCALHOST);
	cr_assert_eq(policy_name_reserved("metadata.google.internal"), POLICY_NAME_METADATA);
	cr_assert_eq(policy_name_reserved("metadata.azure.internal"), POLICY_NAME_METADATA);
	cr_assert_eq(policy_name_reserved("notlocalhost"), POLICY_NAME_NOT_RESERVED);
	cr_assert_eq(policy_name_reserved("localhost.example.com"), POLICY_NAME_NOT_RESERVED);
	cr_assert_eq(policy_name_reserved("example.com"), POLICY_NAME_NOT_RESERVED);
}

/* Every prefix of a good name is a name, numeric or malformed, never a
 * crash, and a prefix that is OK is exactly the canonical prefix. */
Test(names, truncation_sweep)
{
	static const char in[] = "Www.Example-1.Allowed.TEST.";
	char out[POLICY_NAME_MAX + 1];
	size_t ol;
	for (size_t n = 0; n <= sizeof(in) - 1; n++) {
		enum policy_name_status st = canon(in, n, out, &ol);
		bool empty_last = n == 0 || (n >= 2 && in[n - 1] == '.' && in[n - 2] == '.');
		if (empty_last)
			cr_assert_eq(st, POLICY_NAME_MALFORMED, "prefix %zu", n);
		else
			cr_assert_eq(st, POLICY_NAME_OK, "prefix %zu", n);
	}
}
