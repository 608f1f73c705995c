/* tests/unit/dns/test_namemap.c: the name <-> address map: expiry, caps,
 * replacement, IPv4-mapped keys. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dns/namemap.h"

static struct policy_addr A(const char *s)
{
	struct policy_addr a;
	cr_assert_eq(policy_addr_parse(s, strlen(s), &a), POLICY_ADDR_OK, "%s", s);
	return a;
}

Test(namemap, destroy_null)
{
	dnsd_namemap_destroy(NULL);
}

Test(namemap, add_and_expire)
{
	struct dnsd_namemap *m = dnsd_namemap_create(16);
	struct dnsd_namemap_name out[4];
	struct policy_addr a = A("198.51.100.7");

	cr_assert_not_null(m);
	cr_assert_eq(dnsd_namemap_add(m, "api.example.com", &a, 30, 1000), 0);
	cr_expect_eq(dnsd_namemap_lookup(m, &a, 1000, out, 4), 1);
	cr_expect_str_eq(out[0].name, "api.example.com");
	cr_expect_eq(out[0].expires_ms, 31000);
	cr_expect_eq(dnsd_namemap_lookup(m, &a, 30999, out, 4), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &a, 31000, out, 4), 0, "expired at now == expiry");
	cr_expect_eq(dnsd_namemap_size(m), 0, "the expired pair was dropped on lookup");
	dnsd_namemap_destroy(m);
}

Test(namemap, ttl_zero_records_nothing)
{
	struct dnsd_namemap *m = dnsd_namemap_create(4);
	struct policy_addr a = A("198.51.100.7");

	cr_assert_eq(dnsd_namemap_add(m, "rebind.example", &a, 0, 5000), 0);
	cr_expect_eq(dnsd_namemap_lookup(m, &a, 5000, NULL, 0), 0);
	cr_expect_eq(dnsd_namemap_size(m), 0);
	dnsd_namemap_destroy(m);
}

Test(namemap, bad_names)
{
	struct dnsd_namemap *m = dnsd_namemap_create(4);
	struct policy_addr a = A("198.51.100.7");
	char longname[300];

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_expect_eq(dnsd_namemap_add(m, "", &a, 10, 0), -EINVAL);
	cr_expect_eq(dnsd_namemap_add(m, longname, &a, 10, 0), -EINVAL);
	cr_expect_eq(dnsd_namemap_size(m), 0);
	dnsd_namemap_destroy(m);
}

Test(namemap, several_names_one_address)
{
	struct dnsd_namemap *m = dnsd_namemap_create(16);
	struct dnsd_namemap_name out[4];
	struct policy_addr cdn = A("203.0.113.10"), other = A("203.0.113.11");

	dnsd_namemap_add(m, "a.example", &cdn, 10, 0);
	dnsd_namemap_add(m, "b.example", &cdn, 100, 0);
	dnsd_namemap_add(m, "c.example", &other, 100, 0);
	cr_assert_eq(dnsd_namemap_lookup(m, &cdn, 0, out, 4), 2);
	cr_expect_str_eq(out[0].name, "b.example", "most recently added first");
	cr_expect_str_eq(out[1].name, "a.example");
	cr_expect_eq(dnsd_namemap_lookup(m, &cdn, 50000, out, 4), 1);
	cr_expect_str_eq(out[0].name, "b.example");
	/* more than cap: the count, and only cap copied */
	dnsd_namemap_add(m, "d.example", &cdn, 100, 0);
	cr_expect_eq(dnsd_namemap_lookup(m, &cdn, 0, out, 1), 2);
	cr_expect_str_eq(out[0].name, "d.example");
	dnsd_namemap_destroy(m);
}

Test(namemap, readd_keeps_later_expiry)
{
	struct dnsd_namemap *m = dnsd_namemap_create(16);
	struct dnsd_namemap_name out[2];
	struct policy_addr a = A("2001:db8::10");

	dnsd_namemap_add(m, "x.example", &a, 100, 0);
	dnsd_namemap_add(m, "x.example", &a, 10, 0);
	cr_assert_eq(dnsd_namemap_lookup(m, &a, 0, out, 2), 1);
	cr_expect_eq(out[0].expires_ms, 100000);
	dnsd_namemap_add(m, "x.example", &a, 200, 1000);
	cr_assert_eq(dnsd_namemap_lookup(m, &a, 0, out, 2), 1);
	cr_expect_eq(out[0].expires_ms, 201000);
	cr_expect_eq(dnsd_namemap_size(m), 1);
	dnsd_namemap_destroy(m);
}

/* A dual-stack listener reports an IPv4 peer as ::ffff:a.b.c.d. */
Test(namemap, mapped_is_ipv4)
{
	struct dnsd_namemap *m = dnsd_namemap_create(16);
	struct policy_addr v4 = A("198.51.100.7"), mapped = A("::ffff:198.51.100.7");
	struct policy_addr compat = A("::198.51.100.7");

	dnsd_namemap_add(m, "x.example", &mapped, 10, 0);
	cr_expect_eq(dnsd_namemap_lookup(m, &v4, 0, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &mapped, 0, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &compat, 0, NULL, 0), 0, "other forms are other addresses");
	dnsd_namemap_destroy(m);
}

/* Full: expired pairs go first, then the one expiring soonest; the size
 * never passes the cap. */
Test(namemap, cap_and_replacement)
{
	struct dnsd_namemap *m = dnsd_namemap_create(4);
	struct policy_addr a[6];
	char name[32];

	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "192.0.2.%d", i + 1);
		a[i] = A(name);
	}
	dnsd_namemap_add(m, "n0.example", &a[0], 50, 0);
	dnsd_namemap_add(m, "n1.example", &a[1], 5, 0);  /* soonest */
	dnsd_namemap_add(m, "n2.example", &a[2], 60, 0);
	dnsd_namemap_add(m, "n3.example", &a[3], 70, 0);
	cr_expect_eq(dnsd_namemap_size(m), 4);
	dnsd_namemap_add(m, "n4.example", &a[4], 80, 1000);
	cr_expect_eq(dnsd_namemap_size(m), 4);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[1], 1000, NULL, 0), 0, "soonest replaced");
	cr_expect_eq(dnsd_namemap_lookup(m, &a[4], 1000, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[0], 1000, NULL, 0), 1);
	/* at 55 s n0 has expired: it is the one to go, not the soonest live */
	dnsd_namemap_add(m, "n5.example", &a[5], 10, 55000);
	cr_expect_eq(dnsd_namemap_size(m), 4);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[5], 55000, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[2], 55000, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[3], 55000, NULL, 0), 1);
	cr_expect_eq(dnsd_namemap_lookup(m, &a[4], 55000, NULL, 0), 1);
	dnsd_namemap_destroy(m);
}

Test(namemap, expire_sweep)
{
	struct dnsd_namemap *m = dnsd_namemap_create(64);
	char name[32];

	for (int i = 0; i < 64; i++) {
		struct policy_addr a = { .family = POLICY_ADDR_V6 };
		a.b[0] = 0x20;
		a.b[1] = 0x01;
		a.b[15] = (uint8_t)i;
		snprintf(name, sizeof(name), "h%d.example", i);
		cr_assert_eq(dnsd_namemap_add(m, name, &a, (uint32_t)(i % 4 + 1), 0), 0);
	}
	cr_expect_eq(dnsd_namemap_size(m), 64);
	cr_expect_eq(dnsd_namemap_expire(m, 2000), 32);
	cr_expect_eq(dnsd_namemap_size(m), 32);
	cr_expect_eq(dnsd_namemap_expire(m, 4000), 32);
	cr_expect_eq(dnsd_namemap_size(m), 0);
	dnsd_namemap_destroy(m);
}

/* Many more pairs than the cap, all live: the size stays at the cap and the
 * newest are all there. */
Test(namemap, flood)
{
	struct dnsd_namemap *m = dnsd_namemap_create(128);
	char name[32];

	for (uint32_t i = 0; i < 5000; i++) {
		struct policy_addr a = { .family = POLICY_ADDR_V4 };
		a.b[0] = 198;
		a.b[1] = 51;
		a.b[2] = (uint8_t)(i >> 8);
		a.b[3] = (uint8_t)i;
		snprintf(name, sizeof(name), "f%u.example", i);
		cr_assert_eq(dnsd_namemap_add(m, name, &a, 1000 + i, 0), 0);
		cr_assert_leq(dnsd_namemap_size(m), 128);
	}
	for (uint32_t i = 5000 - 128; i < 5000; i++) {
		struct policy_addr a = { .family = POLICY_ADDR_V4 };
		a.b[0] = 198;
		a.b[1] = 51;
		a.b[2] = (uint8_t)(i >> 8);
		a.b[3] = (uint8_t)i;
		cr_expect_eq(dnsd_namemap_lookup(m, &a, 0, NULL, 0), 1, "pair %u", i);
	}
	dnsd_namemap_destroy(m);
}
