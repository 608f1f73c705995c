/* tests/unit/policy/test_portset.c: the port bitmap. */
#include <criterion/criterion.h>

#include "policy/portset.h"

Test(portset, empty_when_zeroed)
{
	struct policy_port_set s = { { 0 } };

	cr_assert_eq(policy_port_set_count(&s), 0);
	for (unsigned p = 0; p <= 65535; p++)
		cr_assert_not(policy_port_set_has(&s, (uint16_t)p));
}

Test(portset, add_has_remove_at_the_edges)
{
	static const uint16_t ports[] = { 0, 1, 53, 63, 64, 65, 127, 128, 443, 8080, 65472, 65534, 65535 };
	struct policy_port_set s;

	policy_port_set_clear(&s);
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		policy_port_set_add(&s, ports[i]);
		policy_port_set_add(&s, ports[i]); /* twice: still one member */
	}
	cr_assert_eq(policy_port_set_count(&s), sizeof(ports) / sizeof(ports[0]));
	for (unsigned p = 0; p <= 65535; p++) {
		bool want = false;
		for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
			want |= ports[i] == p;
		cr_assert_eq(policy_port_set_has(&s, (uint16_t)p), want, "port %u", p);
	}
	policy_port_set_remove(&s, 64);
	policy_port_set_remove(&s, 65535);
	policy_port_set_remove(&s, 9); /* absent: no change */
	cr_assert_not(policy_port_set_has(&s, 64));
	cr_assert_not(policy_port_set_has(&s, 65535));
	cr_assert(policy_port_set_has(&s, 63));
	cr_assert(policy_port_set_has(&s, 65));
	cr_assert_eq(policy_port_set_count(&s), sizeof(ports) / sizeof(ports[0]) - 2);
	policy_port_set_clear(&s);
	cr_assert_eq(policy_port_set_count(&s), 0);
}

Test(portset, ranges)
{
	struct policy_port_set s = { { 0 } };

	cr_assert(policy_port_set_add_range(&s, 8000, 8100));
	cr_assert_eq(policy_port_set_count(&s), 101);
	cr_assert(policy_port_set_has(&s, 8000));
	cr_assert(policy_port_set_has(&s, 8100));
	cr_assert_not(policy_port_set_has(&s, 7999));
	cr_assert_not(policy_port_set_has(&s, 8101));
	cr_assert_not(policy_port_set_add_range(&s, 10, 9), "reversed range refused");
	cr_assert_eq(policy_port_set_count(&s), 101, "and adds nothing");
	cr_assert(policy_port_set_add_range(&s, 65535, 65535));
	cr_assert_eq(policy_port_set_count(&s), 102);
	policy_port_set_clear(&s);
	cr_assert(policy_port_set_add_range(&s, 0, 65535), "the whole space terminates");
	cr_assert_eq(policy_port_set_count(&s), 65536);
}
