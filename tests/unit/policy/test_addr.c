/* tests/unit/policy/test_addr.c: IPv4/IPv6/CIDR text, inet_aton spellings,
 * address classes with every IPv4-in-IPv6 form (policy/addr.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/addr.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

typedef enum policy_addr_status (*parse_fn)(const char *, size_t, struct policy_addr *);

/* Parses from an exact-size heap copy (ASan sees reads past n). */
static enum policy_addr_status parse_exact(parse_fn f, const char *s, struct policy_addr *a)
{
	size_t n = strlen(s);
	char *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, s, n);
	enum policy_addr_status st = f(c, n, a);
	free(c);
	return st;
}

static struct policy_addr A(const char *s)
{
	struct policy_addr a;
	cr_assert_eq(policy_addr_parse(s, strlen(s), &a), POLICY_ADDR_OK, "%s", s);
	return a;
}

static const char *fmt(const struct policy_addr *a)
{
	static char buf[POLICY_ADDR_STRLEN];
	return policy_addr_format(a, buf);
}

Test(addr, ipv4_strict_good)
{
	static const char *const v[] = { "0.0.0.0", "1.2.3.4", "255.255.255.255", "10.0.0.1",
					 "192.168.100.200" };
	struct policy_addr a;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(parse_exact(policy_addr_parse_ipv4, v[i], &a), POLICY_ADDR_OK, "%s", v[i]);
		cr_assert_str_eq(fmt(&a), v[i]);
	}
}

Test(addr, ipv4_strict_malformed)
{
	static const char *const v[] = { "", "1", "1.2.3", "1.2.3.4.", "1.2.3.4.5", "256.0.0.1",
					 "01.2.3.4", "1.2.3.04", "1.2.3.00", "0x1.2.3.4", "1..3.4",
					 ".1.2.3", "1.2.3.-4", "+1.2.3.4", "1.2.3.4 ", " 1.2.3.4",
					 "1.2.3.4/8", "1.2.3.1000", "127.1", "2130706433" };
	struct policy_addr a;
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(parse_exact(policy_addr_parse_ipv4, v[i], &a), POLICY_ADDR_MALFORMED,
			     "%s", v[i]);
}

Test(addr, ipv4_loose)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{ "127.1", "127.0.0.1" },         { "2130706433", "127.0.0.1" },
		{ "0x7f000001", "127.0.0.1" },    { "0X7F000001", "127.0.0.1" },
		{ "0177.0.0.1", "127.0.0.1" },    { "0177.1", "127.0.0.1" },
		{ "127.0.1", "127.0.0.1" },       { "0", "0.0.0.0" },
		{ "0x", "0.0.0.0" },              { "1.2.3.4", "1.2.3.4" },
		{ "0xa9.0xfe.0xa9.0xfe", "169.254.169.254" },
		{ "169.16689662", "169.254.169.254" }, { "4294967295", "255.255.255.255" },
		{ "10.0x10203", "10.1.2.3" },
	};
	struct policy_addr a;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(parse_exact(policy_addr_parse_loose_ipv4, v[i].in, &a), POLICY_ADDR_OK,
			     "%s", v[i].in);
		cr_assert_str_eq(fmt(&a), v[i].out, "%s", v[i].in);
	}
	static const char *const bad[] = { "", ".", "1.", "1..2", "4294967296", "256.1",
					   "1.2.3.256", "1.2.65536", "1.2.3.4.5", "08", "0x1g",
					   "1.2.3.4 junk", "-1", "99999999999999999999" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		cr_assert_eq(parse_exact(policy_addr_parse_loose_ipv4, bad[i], &a),
			     POLICY_ADDR_MALFORMED, "%s", bad[i]);
}

Test(addr, ipv6_good_and_format)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{ "::", "::" },
		{ "::1", "::1" },
		{ "1::", "1::" },
		{ "2001:DB8::1", "2001:db8::1" },
		{ "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1" },
		{ "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1" },
		{ "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8" },
		{ "1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0" },
		{ "::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8" },
		{ "::ffff:1.2.3.4", "::ffff:1.2.3.4" },
		{ "::FFFF:7f00:1", "::ffff:127.0.0.1" },
		{ "::1.2.3.4", "::102:304" },
		{ "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304" },
		{ "fe80::1:0:0:0", "fe80::1:0:0:0" },
		{ "64:ff9b::7f00:1", "64:ff9b::7f00:1" },
	};
	struct policy_addr a;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(parse_exact(policy_addr_parse_ipv6, v[i].in, &a), POLICY_ADDR_OK, "%s",
			     v[i].in);
		cr_assert_eq(a.family, POLICY_ADDR_V6);
		cr_assert_str_eq(fmt(&a), v[i].out, "%s", v[i].in);
		/* the formatted text parses back to the same address */
		struct policy_addr b;
		cr_assert_eq(parse_exact(policy_addr_parse_ipv6, v[i].out, &b), POLICY_ADDR_OK);
		cr_assert(policy_addr_equal(&a, &b));
	}
}

Test(addr, ipv6_malformed)
{
	static const char *const v[] = { "", ":", ":::", "1:::2", ":1::", "1::2::3", "12345::",
					 "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::",
					 "::1:", "1:", "g::", "::1.2.3", "::1.2.3.04",
					 "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4:1", "[::1]", " ::1",
					 "::ffff:256.1.1.1" };
	struct policy_addr a;
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_assert_eq(parse_exact(policy_addr_parse_ipv6, v[i], &a), POLICY_ADDR_MALFORMED,
			     "%s", v[i]);
}

Test(addr, ipv6_zone_refused)
{
	struct policy_addr a;
	cr_assert_eq(parse_exact(policy_addr_parse_ipv6, "fe80::1%eth0", &a), POLICY_ADDR_ZONE_ID);
	cr_assert_eq(parse_exact(policy_addr_parse_ipv6, "fe80::1%25eth0", &a), POLICY_ADDR_ZONE_ID);
	cr_assert_eq(parse_exact(policy_addr_parse, "::1%1", &a), POLICY_ADDR_ZONE_ID);
}

Test(addr, cidr)
{
	struct policy_cidr c;
	struct policy_addr a;
	cr_assert_eq(policy_cidr_parse("10.0.0.0/8", 10, &c), POLICY_ADDR_OK);
	cr_assert_eq(c.prefix, 8);
	a = A("10.255.1.2");
	cr_assert(policy_cidr_contains(&c, &a));
	a = A("11.0.0.0");
	cr_assert_not(policy_cidr_contains(&c, &a));
	a = A("::ffff:10.1.1.1");
	cr_assert_not(policy_cidr_contains(&c, &a), "families differ; callers unmap");
	struct policy_addr u = policy_addr_unmap(&a);
	cr_assert(policy_cidr_contains(&c, &u));

	cr_assert_eq(policy_cidr_parse("172.16.0.0/12", 13, &c), POLICY_ADDR_OK);
	a = A("172.31.255.255");
	cr_assert(policy_cidr_contains(&c, &a));
	a = A("172.32.0.0");
	cr_assert_not(policy_cidr_contains(&c, &a));
	cr_assert_eq(policy_cidr_parse("fd00::/8", 8, &c), POLICY_ADDR_OK);
	a = A("fdff::1");
	cr_assert(policy_cidr_contains(&c, &a));
	cr_assert_eq(policy_cidr_parse("0.0.0.0/0", 9, &c), POLICY_ADDR_OK);
	a = A("8.8.8.8");
	cr_assert(policy_cidr_contains(&c, &a));
	cr_assert_eq(policy_cidr_parse("::/0", 4, &c), POLICY_ADDR_OK);
	cr_assert_eq(policy_cidr_parse("1.2.3.4/32", 10, &c), POLICY_ADDR_OK);
	cr_assert_eq(policy_cidr_parse("::1/128", 7, &c), POLICY_ADDR_OK);

	static const char *const bad[] = { "10.0.0.0", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/08",
					   "10.0.0.0/-1", "10.0.0.0/8/8", "/8", "10.0.0/8",
					   "::/129", "::/1000", "10.0.0.0/ 8" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		cr_assert_eq(policy_cidr_parse(bad[i], strlen(bad[i]), &c), POLICY_ADDR_MALFORMED,
			     "%s", bad[i]);
	cr_assert_eq(policy_cidr_parse("10.0.0.1/8", 10, &c), POLICY_ADDR_HOST_BITS);
	cr_assert_eq(policy_cidr_parse("fd00::1/8", 9, &c), POLICY_ADDR_HOST_BITS);
	cr_assert_eq(policy_cidr_parse("fe80::1%lo/64", 13, &c), POLICY_ADDR_ZONE_ID);
}

static const struct {
	const char *addr;
	enum policy_addr_class cls;
} class_vectors[] = {
	/* IPv4 */
	{ "8.8.8.8", POLICY_ADDR_PUBLIC },
	{ "1.1.1.1", POLICY_ADDR_PUBLIC },
	{ "0.0.0.0", POLICY_ADDR_UNSPECIFIED },
	{ "0.1.2.3", POLICY_ADDR_RESERVED },
	{ "127.0.0.1", POLICY_ADDR_LOOPBACK },
	{ "127.255.255.254", POLICY_ADDR_LOOPBACK },
	{ "10.1.2.3", POLICY_ADDR_PRIVATE },
	{ "172.16.0.1", POLICY_ADDR_PRIVATE },
	{ "172.31.255.255", POLICY_ADDR_PRIVATE },
	{ "172.32.0.1", POLICY_ADDR_PUBLIC },
	{ "172.15.255.255", POLICY_ADDR_PUBLIC },
	{ "192.168.1.1", POLICY_ADDR_PRIVATE },
	{ "100.64.0.1", POLICY_ADDR_CGNAT },
	{ "100.127.255.255", POLICY_ADDR_CGNAT },
	{ "100.128.0.0", POLICY_ADDR_PUBLIC },
	{ "100.63.255.255", POLICY_ADDR_PUBLIC },
	{ "169.254.1.1", POLICY_ADDR_LINK_LOCAL },
	{ "169.254.169.254", POLICY_ADDR_METADATA },
	{ "100.100.100.200", POLICY_ADDR_METADATA },
	{ "168.63.129.16", POLICY_ADDR_METADATA },
	{ "192.0.0.192", POLICY_ADDR_METADATA },
	{ "192.0.0.8", POLICY_ADDR_RESERVED },
	{ "192.0.1.1", POLICY_ADDR_PUBLIC },
	{ "224.0.0.1", POLICY_ADDR_MULTICAST },
	{ "239.255.255.250", POLICY_ADDR_MULTICAST },
	{ "240.0.0.1", POLICY_ADDR_RESERVED },
	{ "255.255.255.254", POLICY_ADDR_RESERVED },
	{ "255.255.255.255", POLICY_ADDR_BROADCAST },
	{ "203.0.113.5", POLICY_ADDR_PUBLIC }, /* documentation nets stay public: test internets use them */
	/* IPv6 */
	{ "::", POLICY_ADDR_UNSPECIFIED },
	{ "::1", POLICY_ADDR_LOOPBACK },
	{ "2606:4700::1111", POLICY_ADDR_PUBLIC },
	{ "fe80::1", POLICY_ADDR_LINK_LOCAL },
	{ "febf::1", POLICY_ADDR_LINK_LOCAL },
	{ "fec0::1", POLICY_ADDR_PRIVATE },
	{ "fc00::1", POLICY_ADDR_PRIVATE },
	{ "fdff:ffff::1", POLICY_ADDR_PRIVATE },
	{ "fd00:ec2::254", POLICY_ADDR_METADATA },
	{ "ff02::1", POLICY_ADDR_MULTICAST },
	{ "ff05::1:3", POLICY_ADDR_MULTICAST },
	/* IPv4-mapped ::ffff:0:0/96 */
	{ "::ffff:127.0.0.1", POLICY_ADDR_LOOPBACK },
	{ "::ffff:169.254.169.254", POLICY_ADDR_METADATA },
	{ "::ffff:10.0.0.1", POLICY_ADDR_PRIVATE },
	{ "::ffff:0.0.0.0", POLICY_ADDR_UNSPECIFIED },
	{ "::ffff:8.8.8.8", POLICY_ADDR_PUBLIC },
	/* IPv4-compatible ::/96 */
	{ "::127.0.0.1", POLICY_ADDR_LOOPBACK },
	{ "::169.254.169.254", POLICY_ADDR_METADATA },
	{ "::0.0.0.2", POLICY_ADDR_RESERVED },
	{ "::8.8.8.8", POLICY_ADDR_PUBLIC },
	/* SIIT ::ffff:0:0:0/96 */
	{ "::ffff:0:127.0.0.1", POLICY_ADDR_LOOPBACK },
	{ "::ffff:0:8.8.8.8", POLICY_ADDR_PUBLIC },
	/* NAT64 64:ff9b::/96 */
	{ "64:ff9b::127.0.0.1", POLICY_ADDR_LOOPBACK },
	{ "64:ff9b::a9fe:a9fe", POLICY_ADDR_METADATA },
	{ "64:ff9b::192.168.0.1", POLICY_ADDR_PRIVATE },
	{ "64:ff9b::8.8.8.8", POLICY_ADDR_PUBLIC },
	{ "64:ff9b:0:0:1::8.8.8.8", POLICY_ADDR_PUBLIC }, /* outside both NAT64 prefixes */
	/* local NAT64 64:ff9b:1::/48, each RFC 6052 position */
	{ "64:ff9b:1::127.0.0.1", POLICY_ADDR_LOOPBACK },          /* /96 */
	{ "64:ff9b:1:7f00:0001::", POLICY_ADDR_LOOPBACK },         /* /48: 7f00 then u=00, 01.. */
	{ "64:ff9b:1:7f00:0000:0100::", POLICY_ADDR_LOOPBACK },    /* /48: 127.0.0.1 */
	{ "64:ff9b:1:007f:0000:0001::", POLICY_ADDR_LOOPBACK },    /* /56: 127 | u | 0.0.1 */
	{ "64:ff9b:1:0:007f:0000:0100::", POLICY_ADDR_LOOPBACK },  /* /64: u | 127.0.0.1 */
	/* /48 reads 8.8.8.8 but the /96 position reads 0.0.0.0: the prefix
	 * length in use is unknown, so the most restrictive reading wins */
	{ "64:ff9b:1:0808:0008:0800::", POLICY_ADDR_UNSPECIFIED },
	{ "64:ff9b:1:808:8:800:a00:1", POLICY_ADDR_PRIVATE }, /* only /96 reads 10.0.0.1 */
	/* 6to4 2002::/16 */
	{ "2002:7f00:1::", POLICY_ADDR_LOOPBACK },
	{ "2002:a9fe:a9fe::1", POLICY_ADDR_METADATA },
	{ "2002:c0a8:101::1", POLICY_ADDR_PRIVATE },
	{ "2002:808:808::1", POLICY_ADDR_PUBLIC },
	/* Teredo 2001::/32: server bits 32..63, client = last 32 bits inverted */
	{ "2001:0:4136:e378:8000:63bf:80ff:fffe", POLICY_ADDR_LOOPBACK }, /* client ~ = 127.0.0.1 */
	{ "2001:0:7f00:1:8000:63bf:f7f7:f7f7", POLICY_ADDR_LOOPBACK },  /* server 127.0.0.1 */
	{ "2001:0:4136:e378:8000:63bf:5601:5601", POLICY_ADDR_METADATA }, /* client 169.254.169.254 */
	{ "2001:0:4136:e378:8000:63bf:3fff:fff7", POLICY_ADDR_RESERVED }, /* client 192.0.0.8 */
	{ "2001:0:4136:e378:8000:63bf:f7f7:f7f7", POLICY_ADDR_PUBLIC },  /* client 8.8.8.8 */
	{ "2001:1::1", POLICY_ADDR_PUBLIC },                              /* not Teredo */
};

Test(addr, classes)
{
	for (size_t i = 0; i < N_ELEMS(class_vectors); i++) {
		struct policy_addr a = A(class_vectors[i].addr);
		enum policy_addr_class c = policy_addr_class(&a);
		cr_assert_eq(c, class_vectors[i].cls, "%s: %s, expected %s", class_vectors[i].addr,
			     policy_addr_class_name(c),
			     policy_addr_class_name(class_vectors[i].cls));
		cr_assert_eq(policy_addr_default_denied(&a), class_vectors[i].cls != POLICY_ADDR_PUBLIC);
	}
}

Test(addr, host_addresses)
{
	struct policy_addr host[] = { A("203.0.113.7"), A("2001:db8::7"), A("::ffff:198.51.100.9") };
	struct policy_addr a;

	a = A("203.0.113.7");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST);
	a = A("::ffff:203.0.113.7");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST);
	a = A("198.51.100.9");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST, "mapped host entry");
	a = A("2001:db8::7");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST);
	a = A("64:ff9b::203.0.113.7");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST, "NAT64 of a host address");
	a = A("2002:cb00:7107::1");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_HOST, "6to4 of a host address");
	a = A("203.0.113.8");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_PUBLIC);
	cr_assert_eq(policy_addr_class_on_host(&a, NULL, 0), POLICY_ADDR_PUBLIC);
	a = A("127.0.0.1");
	cr_assert_eq(policy_addr_class_on_host(&a, host, 3), POLICY_ADDR_LOOPBACK);
	cr_assert_str_eq(policy_addr_class_name(POLICY_ADDR_HOST), "host");
}

Test(addr, unmap)
{
	struct policy_addr a = A("::ffff:1.2.3.4"), u = policy_addr_unmap(&a);
	cr_assert_eq(u.family, POLICY_ADDR_V4);
	cr_assert_str_eq(fmt(&u), "1.2.3.4");
	a = A("64:ff9b::1.2.3.4");
	u = policy_addr_unmap(&a);
	cr_assert_eq(u.family, POLICY_ADDR_V6, "NAT64 is another destination");
}

/* Every proper prefix of a good literal is malformed or a different
 * address; none reads past its length (exact-size copies under ASan). */
Test(addr, truncation_sweep)
{
	static const char *const v[] = { "192.168.100.200", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff",
					 "::ffff:169.254.169.254", "fd00::/8", "10.0.0.0/8" };
	struct policy_addr a, full;
	struct policy_cidr c;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		size_t n = strlen(v[i]);
		bool cidr = strchr(v[i], '/') != NULL;
		if (!cidr)
			cr_assert_eq(policy_addr_parse(v[i], n, &full), POLICY_ADDR_OK);
		for (size_t k = 0; k < n; k++) {
			char *p = malloc(k ? k : 1);
			memcpy(p, v[i], k);
			if (cidr) {
				enum policy_addr_status st = policy_cidr_parse(p, k, &c);
				cr_assert(st == POLICY_ADDR_MALFORMED || st == POLICY_ADDR_HOST_BITS ||
						  st == POLICY_ADDR_OK,
					  "%s[..%zu]", v[i], k);
			} else if (policy_addr_parse(p, k, &a) == POLICY_ADDR_OK) {
				cr_assert_not(policy_addr_equal(&a, &full), "%s[..%zu]", v[i], k);
			}
			free(p);
		}
	}
}
