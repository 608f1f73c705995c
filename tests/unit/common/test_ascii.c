/* tests/unit/common/test_ascii.c: the shared ASCII helpers (common/ascii.h):
 * case-insensitive equality, hex digits and the strict port parser, which
 * policy/ (rules) and the wire parsers (HTTP, resolv.conf) both rely on. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/ascii.h"

#define U8(s) ((const uint8_t *)(s))

Test(ascii, lower_maps_only_upper_letters)
{
	for (unsigned c = 0; c < 256; c++) {
		uint8_t want = c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : (uint8_t)c;
		cr_assert_eq(ascii_lower((uint8_t)c), want, "byte %u", c);
	}
}

Test(ascii, eq_nocase)
{
	cr_assert(ascii_eq_nocase(U8("Example.TEST"), 12, U8("example.test"), 12));
	cr_assert(ascii_eq_nocase(U8(""), 0, U8(""), 0));
	cr_assert_not(ascii_eq_nocase(U8("a.test"), 6, U8("a.test."), 7));
	cr_assert_not(ascii_eq_nocase(U8("a"), 1, U8("b"), 1));
	/* only A-Z fold: '@' (0x40) and '`' (0x60), '[' and '{' differ by 0x20 too */
	cr_assert_not(ascii_eq_nocase(U8("@"), 1, U8("`"), 1));
	cr_assert_not(ascii_eq_nocase(U8("["), 1, U8("{"), 1));
	cr_assert_not(ascii_eq_nocase(U8("\xc9"), 1, U8("\xe9"), 1)); /* Latin-1 É/é */
}

Test(ascii, eq_lit_nocase)
{
	cr_assert(ascii_eq_lit_nocase(U8("HoSt"), 4, "host"));
	cr_assert(ascii_eq_lit_nocase(U8(""), 0, ""));
	cr_assert_not(ascii_eq_lit_nocase(U8("hos"), 3, "host"));   /* one short */
	cr_assert_not(ascii_eq_lit_nocase(U8("hosts"), 5, "host")); /* one over */
	cr_assert_not(ascii_eq_lit_nocase(U8("host\0"), 5, "host"));
	cr_assert_not(ascii_eq_lit_nocase(U8("host"), 4, "Host")); /* lit must be lowercase */
}

Test(ascii, hex_value)
{
	for (unsigned c = 0; c < 256; c++) {
		int want = -1;
		if (c >= '0' && c <= '9')
			want = (int)c - '0';
		else if (c >= 'a' && c <= 'f')
			want = (int)c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			want = (int)c - 'A' + 10;
		cr_assert_eq(ascii_hex_value((uint8_t)c), want, "byte %u", c);
	}
}

Test(ascii, port_accepts_1_to_65535)
{
	static const struct {
		const char *s;
		uint16_t port;
	} good[] = { { "1", 1 }, { "9", 9 }, { "10", 10 }, { "443", 443 }, { "8080", 8080 },
		     { "65534", 65534 }, { "65535", 65535 } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint16_t p = 0;
		cr_assert(ascii_port_parse(good[i].s, strlen(good[i].s), &p), "%s", good[i].s);
		cr_assert_eq(p, good[i].port, "%s", good[i].s);
	}
}

Test(ascii, port_refuses_everything_else)
{
	static const char *const bad[] = { "", "0", "00", "0443", "65536", "99999", "100000",
					   "+1", "-1", " 1", "1 ", "1a", "0x10", ("4\x00" "3"),
					   "\xef\xbc\x91" /* fullwidth 1 */ };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint16_t p = 7;
		size_t n = strlen(bad[i]);
		if (i == 13)
			n = 3; /* "4", NUL, "3" */
		cr_assert_not(ascii_port_parse(bad[i], n, &p), "case %zu", i);
		cr_assert_eq(p, 7, "untouched on refusal, case %zu", i);
	}
	/* the length bounds the read: "443" inside a longer buffer */
	uint16_t p = 0;
	cr_assert(ascii_port_parse("4430", 3, &p));
	cr_assert_eq(p, 443);
}
