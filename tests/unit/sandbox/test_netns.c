/* tests/unit/sandbox/test_netns.c: lo and the AnyIP routes, in a network
 * namespace of the test's own (docs/style.md §13: each check in a forked child; the
 * parent asserts what the child reports).  No packet leaves the namespace. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "sandbox/netns.h"

/* Results a child reports, one int each: 0 or an errno. */
enum { R_UNSHARE, R_LO, R_ROUTES, R_V4, R_V6, R_V4_SEEN, R_V6_SEEN, R_COUNT };

/* Connects to addr:443 and reports errno; when it is accepted by the
 * wildcard listener, also whether the accepted socket's local address is
 * the one dialled (what porta's proxy reads as the original destination). */
static void dial(int lfd, const struct sockaddr *to, socklen_t len, int *res, int *seen)
{
	int c = socket(to->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, to, len) < 0) {
		*res = errno;
		*seen = -1;
		return;
	}
	*res = 0;
	struct sockaddr_storage local;
	socklen_t ll = sizeof(local);
	int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (a < 0 || getsockname(a, (struct sockaddr *)&local, &ll) < 0) {
		*seen = errno;
		return;
	}
	if (to->sa_family == AF_INET) {
		/* a dual-stack listener sees IPv4 as ::ffff:a.b.c.d */
		const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)&local;
		const struct sockaddr_in *t4 = (const struct sockaddr_in *)to;
		*seen = !(IN6_IS_ADDR_V4MAPPED(&l6->sin6_addr) &&
			  memcmp(&l6->sin6_addr.s6_addr[12], &t4->sin_addr, 4) == 0);
	} else {
		const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)&local;
		const struct sockaddr_in6 *t6 = (const struct sockaddr_in6 *)to;
		*seen = memcmp(&l6->sin6_addr, &t6->sin6_addr, 16) != 0;
	}
	close(a);
	close(c);
}

static void run_child(bool with_routes, int res[R_COUNT])
{
	int pfd[2];
	cr_assert_eq(pipe(pfd), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int r[R_COUNT];
		for (int i = 0; i < R_COUNT; i++)
			r[i] = -1;
		r[R_UNSHARE] = unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno : 0;
		if (r[R_UNSHARE] == 0) {
			r[R_LO] = -sandbox_netns_lo_up();
			r[R_ROUTES] = with_routes ? -sandbox_netns_anyip() : 0;
			int l = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
			int off = 0;
			setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
			struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
			if (bind(l, (struct sockaddr *)&any, sizeof(any)) == 0 && listen(l, 8) == 0) {
				struct sockaddr_in v4 = { .sin_family = AF_INET, .sin_port = htons(443) };
				struct sockaddr_in6 v6 = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
				inet_pton(AF_INET, "203.0.113.7", &v4.sin_addr);       /* TEST-NET-3 */
				inet_pton(AF_INET6, "2001:db8::7", &v6.sin6_addr);     /* documentation */
				dial(l, (struct sockaddr *)&v4, sizeof(v4), &r[R_V4], &r[R_V4_SEEN]);
				dial(l, (struct sockaddr *)&v6, sizeof(v6), &r[R_V6], &r[R_V6_SEEN]);
			}
		}
		ssize_t w = write(pfd[1], r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(pfd[1]);
	cr_assert_eq(read(pfd[0], res, sizeof(int) * R_COUNT), (ssize_t)(sizeof(int) * R_COUNT));
	close(pfd[0]);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(netns, anyip_makes_every_address_reach_the_wildcard_listener)
{
	int r[R_COUNT];

	run_child(true, r);
	if (r[R_UNSHARE] != 0)
		cr_skip_test("user namespaces refused here: %s", strerror(r[R_UNSHARE]));
	cr_assert_eq(r[R_LO], 0, "lo up: %s", strerror(r[R_LO]));
	cr_assert_eq(r[R_ROUTES], 0, "routes: %s", strerror(r[R_ROUTES]));
	cr_assert_eq(r[R_V4], 0, "connect to 203.0.113.7: %s", strerror(r[R_V4]));
	cr_assert_eq(r[R_V6], 0, "connect to 2001:db8::7: %s", strerror(r[R_V6]));
	cr_assert_eq(r[R_V4_SEEN], 0, "the accepted socket does not show the dialled IPv4 address");
	cr_assert_eq(r[R_V6_SEEN], 0, "the accepted socket does not show the dialled IPv6 address");
}

/* The control: with lo up but without the routes, the same dials find no
 * route — so the routes are what makes the addresses local. */
Test(netns, without_anyip_the_addresses_are_unreachable)
{
	int r[R_COUNT];

	run_child(false, r);
	if (r[R_UNSHARE] != 0)
		cr_skip_test("user namespaces refused here: %s", strerror(r[R_UNSHARE]));
	cr_assert_eq(r[R_LO], 0);
	cr_assert_eq(r[R_V4], ENETUNREACH, "got %s", strerror(r[R_V4]));
	cr_assert_eq(r[R_V6], ENETUNREACH, "got %s", strerror(r[R_V6]));
}
