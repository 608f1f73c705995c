/* tests/unit/policy/test_path_reason.c: the mount steps' vocabulary
 * (policy/path_reason.h): every reason has its words, and the properties
 * explain, --why and the guard ask the table about hold where they must. */
#include <criterion/criterion.h>
#include <string.h>

#include "policy/path_reason.h"
#include "policy/plan.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

Test(path_reason, every_value_has_words_of_its_own)
{
	const struct policy_path_reason_info *unknown =
		policy_path_reason_info((enum policy_path_reason)POLICY_PATH_COUNT_);

	for (int r = 0; r < POLICY_PATH_COUNT_; r++) {
		const struct policy_path_reason_info *ri =
			policy_path_reason_info((enum policy_path_reason)r);
		cr_assert_neq(ri, unknown, "reason %d has no row", r);
		cr_assert_not_null(ri->words, "reason %d", r);
		cr_expect_gt(strlen(ri->words), 0, "reason %d", r);
		cr_expect_null(strchr(ri->words, '\n'), "reason %d", r);
		/* two values with the same words could not be told apart in
		 * explain's output */
		for (int k = 0; k < r; k++)
			cr_expect_str_neq(ri->words,
					  policy_path_reason_words((enum policy_path_reason)k),
					  "reasons %d and %d", k, r);
	}
}

Test(path_reason, out_of_range_is_never_null)
{
	static const int bad[] = { POLICY_PATH_COUNT_, POLICY_PATH_COUNT_ + 1, -1, 1 << 20 };

	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		const struct policy_path_reason_info *ri =
			policy_path_reason_info((enum policy_path_reason)bad[i]);
		cr_assert_not_null(ri);
		cr_expect_str_eq(ri->words, "unknown");
		cr_expect_eq(ri->closes, POLICY_PATH_CLOSES_NO_SOCKET);
		cr_expect(!ri->guarded);
	}
}

/* The words explain, --why, stderr and the guard have always printed:
 * integration tests and users' scripts read them. */
Test(path_reason, words_are_the_ones_printed_before_the_table)
{
	static const struct {
		enum policy_path_reason r;
		const char *words;
	} v[] = {
		{ POLICY_PATH_CREDENTIAL, "credential" },
		{ POLICY_PATH_DENY_READ, "--deny-read" },
		{ POLICY_PATH_PORTA_CONFIG, "porta's configuration" },
		{ POLICY_PATH_HOME_CLOSED, "the home (closed unless granted)" },
		{ POLICY_PATH_KERNEL_ADDRESSES, "kernel addresses" },
		{ POLICY_PATH_CREDENTIAL_SOCKET, "credential socket" },
		{ POLICY_PATH_HOST_SOCKET, "host socket" },
		{ POLICY_PATH_SOCKET_DIR, "host programs bind sockets there" },
		{ POLICY_PATH_ALLOW_UNIX, "--allow-unix" },
		{ POLICY_PATH_KEPT_SOCKET, "a kept socket" },
		{ POLICY_PATH_PROTECTED, "protected" },
		{ POLICY_PATH_PROTECTED_PARENT, "parent of a protected name" },
		{ POLICY_PATH_GIT_DIR, "git directory" },
		{ POLICY_PATH_WRITABLE_ROOT, "writable mount root" },
		{ POLICY_PATH_READONLY_MOUNT, "read-only mount" },
		{ POLICY_PATH_KERNEL_SETTINGS, "kernel settings" },
		{ POLICY_PATH_OWN_PROCESSES, "the sandbox's own processes" },
		{ POLICY_PATH_PRIVATE_TMP, "private /tmp" },
		{ POLICY_PATH_SHARED_TMP, "the shared /tmp" },
		{ POLICY_PATH_PRIVATE_DEV, "private /dev" },
		{ POLICY_PATH_PRIVATE_SHM, "private shared memory" },
		{ POLICY_PATH_OWN_TERMINALS, "the sandbox's own terminals" },
		{ POLICY_PATH_DEVICE, "device" },
		{ POLICY_PATH_UNDER_DEV, "mount under /dev" },
		{ POLICY_PATH_UNDER_TMP, "mount under /tmp" },
		{ POLICY_PATH_UNDER_HOME, "mount under the home" },
		{ POLICY_PATH_HOME_PROJECT, "the working directory's project" },
		{ POLICY_PATH_HOME_VISIBLE, "a toolchain or configuration place (docs/defaults.md)" },
		{ POLICY_PATH_UNDER_SOCKET_DIR, "mount under a closed socket directory" },
		{ POLICY_PATH_NEEDED_FILE, "a file programs need" },
		{ POLICY_PATH_REOPENED, "reopened inside a closed path" },
	};

	cr_assert_eq(N_ELEMS(v), POLICY_PATH_COUNT_, "a reason without its expected words");
	for (size_t i = 0; i < N_ELEMS(v); i++)
		cr_expect_str_eq(policy_path_reason_words(v[i].r), v[i].words, "vector %zu", i);
}

/* Only the socket rule's reasons close sockets: a file cover for one socket,
 * a directory cover for where they are bound. */
Test(path_reason, only_the_socket_rules_close_sockets)
{
	for (int r = 0; r < POLICY_PATH_COUNT_; r++) {
		enum policy_path_closes c = policy_path_reason_info((enum policy_path_reason)r)->closes;
		enum policy_path_closes want =
			r == POLICY_PATH_CREDENTIAL_SOCKET || r == POLICY_PATH_HOST_SOCKET
				? POLICY_PATH_CLOSES_SOCKET
			: r == POLICY_PATH_SOCKET_DIR ? POLICY_PATH_CLOSES_SOCKET_DIR
						      : POLICY_PATH_CLOSES_NO_SOCKET;
		cr_expect_eq(c, want, "%s", policy_path_reason_words((enum policy_path_reason)r));
	}
}

/* The guard watches the covers and the write protections a host program
 * could take away (supervisor/guard.c); never a socket cover (services bind
 * theirs again as they restart), the strict home, a mount root, /proc/sys,
 * or what the sandbox makes or binds back. */
Test(path_reason, guarded_exactly_where_the_guard_must_watch)
{
	static const enum policy_path_reason guarded[] = {
		POLICY_PATH_CREDENTIAL,       POLICY_PATH_DENY_READ, POLICY_PATH_PORTA_CONFIG,
		POLICY_PATH_PROTECTED,        POLICY_PATH_PROTECTED_PARENT, POLICY_PATH_GIT_DIR,
		POLICY_PATH_READONLY_MOUNT,   POLICY_PATH_SHARED_TMP,
	};

	for (int r = 0; r < POLICY_PATH_COUNT_; r++) {
		bool want = false;
		for (size_t k = 0; k < N_ELEMS(guarded); k++)
			want = want || (int)guarded[k] == r;
		const struct policy_path_reason_info *ri =
			policy_path_reason_info((enum policy_path_reason)r);
		cr_expect_eq(ri->guarded, want, "%s", ri->words);
		/* a cover the guard watched would stop the run at every
		 * service restart */
		if (ri->closes != POLICY_PATH_CLOSES_NO_SOCKET)
			cr_expect(!ri->guarded, "%s", ri->words);
	}
}

/* What the steps are asked, through the plan: the socket rule's covers. */
Test(path_reason, a_plan_step_closes_a_socket_by_its_reason)
{
	struct policy_mount_step file = { .kind = POLICY_MOUNT_COVER_FILE,
					   .path = (char *)"/run/x.sock",
					   .reason = POLICY_PATH_CREDENTIAL_SOCKET };
	struct policy_mount_step dir = { .kind = POLICY_MOUNT_COVER_DIR,
					  .path = (char *)"/run/user/1000",
					  .reason = POLICY_PATH_SOCKET_DIR };
	struct policy_mount_step cred = { .kind = POLICY_MOUNT_COVER_DIR,
					   .path = (char *)"/home/u/.ssh",
					   .reason = POLICY_PATH_CREDENTIAL };

	cr_expect(policy_mount_closes_socket(&file));
	cr_expect(policy_mount_closes_socket(&dir));
	cr_expect(!policy_mount_closes_socket(&cred));
}
