/* tests/unit/policy/test_closed_place.c: which places porta closes, for the
 * rule that a grant through a link may not land in one (policy_closed_place(),
 * host/links.c): credentials and what lies beneath them, --deny-read, porta's
 * configuration, protected names at any depth and the directories holding
 * one at their top, the strict home; and what stays open. */
#include <criterion/criterion.h>

#include "policy/paths.h"
#include "policy/preset.h"

static struct policy_closed_places places(bool strict)
{
	static char *deny[] = { "/srv/secret" };
	struct policy_closed_places c = {
		.home = "/home/u",
		.deny_read = deny,
		.n_deny_read = 1,
		.config_dir = "/home/u/.config/porta",
		.home_hidden = strict,
	};
	c.credentials = policy_preset_credentials(&c.n_credentials);
	c.protected_names = policy_preset_protected(&c.n_protected);
	return c;
}

static bool closed(bool strict, const char *path, enum policy_path_reason want)
{
	struct policy_closed_places c = places(strict);
	enum policy_path_reason r;

	if (!policy_closed_place(&c, path, &r))
		return false;
	cr_assert_eq(r, want, "%s: reason %d, want %d", path, r, want);
	return true;
}

Test(closed_place, credentials_and_beneath)
{
	cr_assert(closed(false, "/home/u/.ssh", POLICY_PATH_CREDENTIAL));
	cr_assert(closed(false, "/home/u/.ssh/id_ed25519", POLICY_PATH_CREDENTIAL));
	cr_assert(closed(false, "/home/u/.aws", POLICY_PATH_CREDENTIAL));
	/* a sibling with a common prefix is not beneath */
	cr_assert_not(closed(false, "/home/u/.sshx", POLICY_PATH_CREDENTIAL));
	cr_assert_not(closed(false, "/home/u/src", POLICY_PATH_CREDENTIAL));
}

Test(closed_place, deny_read_and_config)
{
	cr_assert(closed(false, "/srv/secret/a", POLICY_PATH_DENY_READ));
	cr_assert(closed(false, "/home/u/.config/porta/profiles", POLICY_PATH_PORTA_CONFIG));
	cr_assert_not(closed(false, "/srv/secrets", POLICY_PATH_DENY_READ));
}

Test(closed_place, protected_names_at_any_depth_and_their_holders)
{
	cr_assert(closed(false, "/data/proj/.git/hooks", POLICY_PATH_PROTECTED));
	cr_assert(closed(false, "/data/proj/.git/hooks/pre-commit", POLICY_PATH_PROTECTED));
	/* a .git directory holds .git/hooks at its top */
	cr_assert(closed(false, "/data/proj/.git", POLICY_PATH_PROTECTED));
	cr_assert(closed(false, "/home/u/.local/bin", POLICY_PATH_PROTECTED));
	cr_assert(closed(false, "/home/u/.local", POLICY_PATH_PROTECTED));
	cr_assert(closed(false, "/home/u/.bashrc", POLICY_PATH_PROTECTED));
	/* a name that only starts like one */
	cr_assert_not(closed(false, "/data/proj/.gitignore", POLICY_PATH_PROTECTED));
	cr_assert_not(closed(false, "/data/proj/.git-old", POLICY_PATH_PROTECTED));
	cr_assert_not(closed(false, "/scratch/build", POLICY_PATH_PROTECTED));
}

Test(closed_place, the_home_only_when_strict)
{
	cr_assert_not(closed(false, "/home/u/Documents", POLICY_PATH_HOME_CLOSED));
	cr_assert(closed(true, "/home/u/Documents", POLICY_PATH_HOME_CLOSED));
	cr_assert_not(closed(true, "/scratch/build", POLICY_PATH_HOME_CLOSED));
}
