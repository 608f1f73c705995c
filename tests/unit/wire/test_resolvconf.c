/* tests/unit/wire/test_resolvconf.c: the nameserver lines of a resolv.conf
 * text (wire/resolvconf.h), read the way glibc's res_init reads them.  What
 * the tokens mean as addresses is tests/unit/dns/test_resolvconf.c's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "wire/resolvconf.h"

/* Every token of conf joined by '|' into out. */
static void tokens(const char *conf, size_t len, char *out, size_t cap)
{
	struct wire_span t;
	size_t pos = 0, o = 0, last = 0;

	out[0] = '\0';
	while (wire_resolvconf_nameserver((const uint8_t *)conf, len, &pos, &t)) {
		cr_assert_gt(pos, last, "pos moves forward");
		last = pos;
		cr_assert(t.n > 0 && (const char *)t.p >= conf && (const char *)t.p + t.n <= conf + len);
		o += (size_t)snprintf(out + o, cap - o, "%s%.*s", o ? "|" : "", (int)t.n, (const char *)t.p);
	}
	cr_assert_eq(pos, len, "false leaves pos at the end");
}

#define EXPECT(conf, want)                                                   \
	do {                                                                 \
		char got[256];                                               \
		tokens(conf, sizeof(conf) - 1, got, sizeof(got));            \
		cr_assert_str_eq(got, want, "%s", #conf);                    \
	} while (0)

Test(resolvconf_lines, the_keyword_and_its_token)
{
	EXPECT("nameserver 1.2.3.4\n", "1.2.3.4");
	EXPECT("nameserver 1.2.3.4", "1.2.3.4"); /* no final LF */
	EXPECT("nameserver\t\t::1 # comment\n", "::1");
	EXPECT("nameserver 10.0.0.1;x\nnameserver 10.0.0.2\n", "10.0.0.1|10.0.0.2");
	EXPECT("nameserver 1.2.3.4\r\n", "1.2.3.4"); /* CR ends the token */
	EXPECT("nameserver \r 1.2.3.4\n", "1.2.3.4"); /* and is a blank before it */
	EXPECT("nameserver [::1]:53\n", "[::1]:53"); /* a token; dns/ refuses it */
}

Test(resolvconf_lines, what_is_not_a_nameserver_line)
{
	EXPECT("", "");
	EXPECT("\n\n", "");
	EXPECT("# nameserver 1.1.1.1\n; nameserver 2.2.2.2\n", "");
	EXPECT(" nameserver 1.1.1.1\n", "");  /* not at the start of the line */
	EXPECT("nameserver1.1.1.1\n", "");    /* no blank after the keyword */
	EXPECT("nameserver\n", "");           /* exactly the keyword */
	EXPECT("nameserver \n", "");          /* no token */
	EXPECT("nameserver #1.1.1.1\n", "");  /* a comment where the token goes */
	EXPECT("Nameserver 1.1.1.1\n", "");   /* glibc compares case-sensitively */
	EXPECT("nameserve", "");              /* one short of the keyword */
	EXPECT("search a.test\nnameserver 9.9.9.9\n", "9.9.9.9");
}

Test(resolvconf_lines, nul_bytes_are_only_bytes)
{
	static const char conf[] = "nameserver 1.2\0003.4\nnameserver 5.6.7.8\n";
	struct wire_span t;
	size_t pos = 0;

	/* the NUL is part of the token (the address parser refuses it), and
	 * does not end the text */
	cr_assert(wire_resolvconf_nameserver((const uint8_t *)conf, sizeof(conf) - 1, &pos, &t));
	cr_assert_eq(t.n, 7);
	cr_assert(wire_resolvconf_nameserver((const uint8_t *)conf, sizeof(conf) - 1, &pos, &t));
	cr_assert_eq(t.n, 7);
	cr_assert_eq(memcmp(t.p, "5.6.7.8", 7), 0);
}
