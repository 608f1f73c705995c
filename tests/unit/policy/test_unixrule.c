/* tests/unit/policy/test_unixrule.c: the rule a Unix socket is decided by
 * when the command connects (policy/unixrule.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "policy/options.h"
#include "policy/plan.h"
#include "policy/preset.h"
#include "policy/unixrule.h"

static struct policy_options opts;

static struct policy_plan *plan_with_write(const char *dir)
{
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_not_null(p);
	if (dir)
		cr_assert_eq(policy_plan_add_rule(p, dir, POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	return p;
}

static enum policy_unix_verdict decide(const struct policy_plan *p, const char *path, bool writable,
				       bool credential, char *const *allowed, size_t n)
{
	struct policy_unix_query q = { .path = path, .writable_mount = writable,
				       .credential = credential, .allowed = allowed, .n_allowed = n };
	return policy_unix_decide(p, "/run/user/1000", &q);
}

Test(unixrule, the_porta_runtime_directories)
{
	cr_expect(policy_unix_in_porta_runtime("/run/user/1000/porta", NULL));
	cr_expect(policy_unix_in_porta_runtime("/run/user/0/porta/run-1.sock", NULL));
	cr_expect(policy_unix_in_porta_runtime("/x/rt/porta/s", "/x/rt"));
	cr_expect(policy_unix_in_porta_runtime("/x/rt/porta", "/x/rt/"));
	cr_expect_not(policy_unix_in_porta_runtime("/run/user/1000/portal/s", NULL), "a prefix is no directory");
	cr_expect_not(policy_unix_in_porta_runtime("/run/user/x/porta/s", NULL));
	cr_expect_not(policy_unix_in_porta_runtime("/run/user/1000/bus", NULL));
	cr_expect_not(policy_unix_in_porta_runtime("/x/rt/porta/s", NULL));
	cr_expect_not(policy_unix_in_porta_runtime("/x/rt/porta/s", "relative"));
	cr_expect_not(policy_unix_in_porta_runtime(NULL, NULL));
}

Test(unixrule, granted_only_by_rule)
{
	opts.net_mode = POLICY_NET_POLICY;
	struct policy_plan *p = plan_with_write("/home/u/ws");
	char *allowed[] = { "/srv/app/ipc.sock" };

	/* a socket bound anywhere the command may only read: refused */
	cr_expect_eq(decide(p, "/home/u/.cache/git/credential/socket", false, false, NULL, 0),
		     POLICY_UNIX_REFUSED);
	cr_expect_eq(decide(p, "/var/tmp/x/s.sock", false, false, NULL, 0), POLICY_UNIX_REFUSED);
	/* on a writable mount: the command could have bound it itself */
	cr_expect_eq(decide(p, "/home/u/ws/dev.sock", true, false, NULL, 0),
		     POLICY_UNIX_GRANTED_WRITABLE);
	/* ... unless it is a credential socket */
	cr_expect_eq(decide(p, "/home/u/ws/S.gpg-agent", true, true, NULL, 0),
		     POLICY_UNIX_REFUSED_CREDENTIAL);
	/* --allow-unix by path, whatever the mount; credential names too */
	cr_expect_eq(decide(p, "/srv/app/ipc.sock", false, false, allowed, 1),
		     POLICY_UNIX_GRANTED_ALLOWED);
	cr_expect_eq(decide(p, "/srv/app/ipc.sock", false, true, allowed, 1),
		     POLICY_UNIX_GRANTED_ALLOWED);
	cr_expect_eq(decide(p, "/srv/app/ipc.sock2", false, false, allowed, 1), POLICY_UNIX_REFUSED);
	/* never a porta runtime directory, whatever else says yes */
	char *rt[] = { "/run/user/1000/porta/r1.sock" };
	cr_expect_eq(decide(p, "/run/user/1000/porta/r1.sock", true, false, rt, 1),
		     POLICY_UNIX_REFUSED_RUNTIME);
	/* a relative or empty path is never granted */
	cr_expect_eq(decide(p, "ws/dev.sock", true, false, NULL, 0), POLICY_UNIX_REFUSED);
	cr_expect(policy_unix_granted(POLICY_UNIX_GRANTED_KEPT));
	cr_expect_not(policy_unix_granted(POLICY_UNIX_REFUSED_CREDENTIAL));
	policy_plan_destroy(p);
}

Test(unixrule, the_kept_sockets_follow_the_network)
{
	size_t n;
	const struct policy_kept_socket *k = policy_kept_sockets(&n);
	for (size_t i = 0; i < n; i++) {
		for (int m = 0; m < 3; m++) {
			opts.net_mode = m == 0 ? POLICY_NET_OPEN : m == 1 ? POLICY_NET_NONE : POLICY_NET_POLICY;
			struct policy_plan *p = plan_with_write(NULL);
			bool want = !k[i].open_net_only || opts.net_mode == POLICY_NET_OPEN;
			cr_expect_eq(decide(p, k[i].path, false, false, NULL, 0) == POLICY_UNIX_GRANTED_KEPT,
				     want, "%s in mode %d", k[i].path, m);
			policy_plan_destroy(p);
		}
	}
	opts.net_mode = POLICY_NET_OPEN;
}

Test(unixrule, degraded_writes_are_landlocks_grants)
{
	struct policy_plan *p = plan_with_write("/home/u/ws");
	cr_expect(policy_unix_plan_grants_write(p, "/home/u/ws/a/b.sock"));
	cr_expect(policy_unix_plan_grants_write(p, "/home/u/ws"));
	cr_expect_not(policy_unix_plan_grants_write(p, "/home/u/wsx/b.sock"));
	cr_expect_not(policy_unix_plan_grants_write(p, "/home/u/.cache/s"));
	policy_plan_destroy(p);
}

Test(unixrule, words)
{
	cr_expect_str_eq(policy_unix_verdict_word(POLICY_UNIX_REFUSED), "not-granted");
	cr_expect_str_eq(policy_unix_verdict_word(POLICY_UNIX_GRANTED_ALLOWED), "allow-unix");
	cr_expect_str_eq(policy_unix_verdict_word(POLICY_UNIX_REFUSED_RUNTIME), "porta-runtime");
}
