/* tests/unit/host/test_addrs.c: the host's own addresses (host/addrs.h)
 * are the ones getifaddrs(3) gives, on the machine the tests run on. */
#include <criterion/criterion.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "host/addrs.h"

static int cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct policy_addr));
}

Test(host_addrs, the_same_addresses_as_getifaddrs)
{
	struct ifaddrs *ifa = NULL;
	struct policy_addr *got = NULL, want[512];
	size_t n = 0, nw = 0;

	cr_assert_eq(getifaddrs(&ifa), 0);
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		cr_assert_lt(nw, sizeof(want) / sizeof(want[0]));
		struct policy_addr *a = &want[nw++];
		memset(a, 0, sizeof(*a));
		if (i->ifa_addr->sa_family == AF_INET) {
			a->family = POLICY_ADDR_V4;
			memcpy(a->b, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		} else {
			a->family = POLICY_ADDR_V6;
			memcpy(a->b, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		}
	}
	freeifaddrs(ifa);

	cr_assert_eq(host_own_addrs(&got, &n), 0);
	cr_assert_not_null(got, "an array even when empty");
	cr_assert_eq(n, nw, "%zu addresses, getifaddrs(3) %zu", n, nw);
	cr_assert_gt(n, 0, "loopback at least");
	qsort(got, n, sizeof(*got), cmp);
	qsort(want, nw, sizeof(*want), cmp);
	for (size_t k = 0; k < n; k++) {
		char g[POLICY_ADDR_STRLEN], w[POLICY_ADDR_STRLEN];
		policy_addr_format(&got[k], g);
		policy_addr_format(&want[k], w);
		cr_assert_str_eq(g, w);
	}
	free(got);
}
