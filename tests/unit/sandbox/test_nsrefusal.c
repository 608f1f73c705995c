/* tests/unit/sandbox/test_nsrefusal.c: which of init's failures mean "the
 * host made the user namespace but refuses porta what it needs inside it"
 * (sandbox_ctl_ns_refused()), so the supervisor runs degraded instead of
 * failing; and which must still stop the run.
 *
 * The vectors are the failures as init reports them (sandbox/child.c,
 * sandbox/mounts.c): Ubuntu's AppArmor restriction refuses the id map
 * write first (EPERM from map_write()'s capability check), a Podman
 * container's masked /proc the proc mount, tests/hosts/hostsim.py's
 * simulation making / private. */
#include <criterion/criterion.h>
#include <errno.h>

#include "common/error.h"
#include "sandbox/control.h"

static bool refused(const char *step, const char *path, int err)
{
	struct porta_error e;

	porta_fail(&e, step, path, err, NULL);
	return sandbox_ctl_ns_refused(&e);
}

Test(nsrefusal, capability_refusals_inside_the_namespace)
{
	cr_assert(refused("write", "/proc/self/uid_map", EPERM));
	cr_assert(refused("write", "/proc/self/gid_map", EPERM));
	cr_assert(refused("write", "/proc/self/setgroups", EPERM));
	cr_assert(refused("write", "/proc/self/uid_map", EACCES));
	cr_assert(refused("make / private", NULL, EPERM));
	cr_assert(refused("mount /proc", "/proc", EPERM));
	cr_assert(refused("mount private tmpfs on", "/tmp", EPERM));
}

Test(nsrefusal, other_errors_of_the_same_steps_stop_the_run)
{
	/* not a refusal of privilege: a broken host, said as it is */
	cr_assert_not(refused("write", "/proc/self/uid_map", EINVAL));
	cr_assert_not(refused("make / private", NULL, ENOMEM));
	cr_assert_not(refused("mount /proc", "/proc", ENODEV));
	cr_assert_not(refused("mount private tmpfs on", "/tmp", ENOSPC));
}

Test(nsrefusal, steps_that_name_a_users_path_never_count)
{
	/* a refusal there is the user's path, not the host's namespaces:
	 * degrading would weaken the run silently */
	cr_assert_not(refused("write", "/home/u/proj/x", EPERM));
	cr_assert_not(refused("write", "/proc/self/uid_map2", EPERM));
	cr_assert_not(refused("pin", "/home/u/proj", EPERM));
	cr_assert_not(refused("make read-only", "/home/u/proj", EPERM));
	cr_assert_not(refused("cover closed directory", "/home/u/.ssh", EPERM));
	cr_assert_not(refused("bind back (beneath a private or closed directory)", "/tmp/ws",
			      EACCES));
	cr_assert_not(refused("capture a path to bind back", "/tmp/ws", EACCES));
	/* the payload's own steps */
	cr_assert_not(refused("Landlock restrict_self", NULL, EPERM));
	cr_assert_not(refused("no_new_privs", NULL, EPERM));
	cr_assert_not(refused("execute", "/usr/bin/true", EACCES));
}
