/* tests/unit/policy/test_landlock.c: Landlock access masks per ABI
 * (policy/landlock.h).  Expected values are spelled as the kernel's bit
 * numbers (include/uapi/linux/landlock.h) so a wrong constant in a header
 * cannot hide; the running kernel is asked too where it has Landlock. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kernel.h"
#include "policy/landlock.h"
#include "policy/plan.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1ULL << (n))

/* include/uapi/linux/landlock.h, LANDLOCK_ACCESS_FS_* */
enum {
	EXECUTE = 0, WRITE_FILE, READ_FILE, READ_DIR, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR,
	MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM, REFER, TRUNCATE,
	IOCTL_DEV,
};

static const struct {
	int abi;
	uint64_t fs, scoped;
	uint32_t flags;
} expect[] = {
	{ 1, BIT(REFER) - 1, 0, 0 },          /* EXECUTE .. MAKE_SYM */
	{ 2, BIT(TRUNCATE) - 1, 0, 0 },       /* + REFER */
	{ 3, BIT(IOCTL_DEV) - 1, 0, 0 },      /* + TRUNCATE */
	{ 4, BIT(IOCTL_DEV) - 1, 0, 0 },      /* ABI 4 adds only TCP rights */
	{ 5, BIT(IOCTL_DEV + 1) - 1, 0, 0 },  /* + IOCTL_DEV */
	{ 6, BIT(IOCTL_DEV + 1) - 1, 0x3, 0 }, /* scopes: abstract unix sockets, signals */
	{ 7, BIT(IOCTL_DEV + 1) - 1, 0x3, 0x2 }, /* LOG_NEW_EXEC_ON */
	{ 8, BIT(IOCTL_DEV + 1) - 1, 0x3, 0x2 }, /* a newer kernel: what porta knows */
};

Test(landlock, handled_per_abi)
{
	for (size_t i = 0; i < N_ELEMS(expect); i++) {
		struct policy_landlock_masks m;
		memset(&m, 0xa5, sizeof(m));
		policy_landlock_masks(expect[i].abi, &m);
		cr_assert_eq(m.abi, expect[i].abi);
		cr_assert_eq(m.handled_fs, expect[i].fs, "abi %d: handled_fs %#llx", expect[i].abi,
			     (unsigned long long)m.handled_fs);
		cr_assert_eq(m.handled_net, 0, "abi %d", expect[i].abi);
		cr_assert_eq(m.scoped, expect[i].scoped, "abi %d", expect[i].abi);
		cr_assert_eq(m.restrict_flags, expect[i].flags, "abi %d", expect[i].abi);
	}
}

Test(landlock, abi_zero_and_below_is_all_zero)
{
	static const int abis[] = { 0, -1, -95 };
	for (size_t i = 0; i < N_ELEMS(abis); i++) {
		struct policy_landlock_masks m;
		memset(&m, 0xa5, sizeof(m));
		policy_landlock_masks(abis[i], &m);
		cr_assert_eq(m.abi, abis[i]);
		cr_assert(m.handled_fs == 0 && m.handled_net == 0 && m.scoped == 0 &&
			  m.restrict_flags == 0 && m.read == 0 && m.write == 0 && m.dev == 0 &&
			  m.file_only == 0,
			  "abi %d", abis[i]);
		for (unsigned g = 0; g < 8; g++) {
			cr_assert_eq(policy_landlock_access(&m, g, true), 0);
			cr_assert_eq(policy_landlock_access(&m, g, false), 0);
		}
	}
}

Test(landlock, grant_masks)
{
	for (int abi = 1; abi <= 8; abi++) {
		struct policy_landlock_masks m;
		policy_landlock_masks(abi, &m);
		uint64_t fs = m.handled_fs;
		/* nothing beyond what the ABI handles */
		cr_assert_eq(m.read & ~fs, 0);
		cr_assert_eq(m.write & ~fs, 0);
		cr_assert_eq(m.dev & ~fs, 0);
		cr_assert_eq(m.file_only & ~fs, 0);

		cr_assert_eq(m.read, BIT(EXECUTE) | BIT(READ_FILE) | BIT(READ_DIR), "abi %d", abi);
		cr_assert_eq(m.write, fs, "abi %d: write is every right", abi);
		uint64_t dev = BIT(READ_FILE) | BIT(WRITE_FILE) | BIT(READ_DIR);
		if (abi >= 3)
			dev |= BIT(TRUNCATE);
		if (abi >= 5)
			dev |= BIT(IOCTL_DEV);
		cr_assert_eq(m.dev, dev, "abi %d", abi);
		/* security/landlock/fs.c ACCESS_FILE */
		uint64_t file = BIT(EXECUTE) | BIT(WRITE_FILE) | BIT(READ_FILE);
		if (abi >= 3)
			file |= BIT(TRUNCATE);
		if (abi >= 5)
			file |= BIT(IOCTL_DEV);
		cr_assert_eq(m.file_only, file, "abi %d", abi);
		/* the rights that need a later ABI are absent before it */
		cr_assert_eq(!!(fs & BIT(REFER)), abi >= 2);
		cr_assert_eq(!!(fs & BIT(TRUNCATE)), abi >= 3);
		cr_assert_eq(!!(fs & BIT(IOCTL_DEV)), abi >= 5);
		cr_assert_eq(!!(m.restrict_flags & LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON), abi >= 7);
	}
}

/* Degraded hosts: the parents of a closed path may only be listed
 * (policy/degrade.h).  Exactly READ_DIR, which means nothing on a file. */
Test(landlock, list_grant_is_read_dir_only)
{
	for (int abi = 1; abi <= 8; abi++) {
		struct policy_landlock_masks m;
		policy_landlock_masks(abi, &m);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST, true), BIT(READ_DIR),
			     "abi %d", abi);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST, true),
			     LANDLOCK_ACCESS_FS_READ_DIR);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST, false), 0, "abi %d", abi);
		/* It adds nothing to a grant that reads already. */
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST | POLICY_GRANT_READ, true),
			     m.read);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST | POLICY_GRANT_READ, false),
			     m.read & m.file_only);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_LIST | POLICY_GRANT_WRITE, true),
			     m.write);
	}
	struct policy_landlock_masks none;
	policy_landlock_masks(0, &none);
	cr_assert_eq(policy_landlock_access(&none, POLICY_GRANT_LIST, true), 0, "no Landlock");
}

Test(landlock, access_for_grants)
{
	for (int abi = 1; abi <= 8; abi++) {
		struct policy_landlock_masks m;
		policy_landlock_masks(abi, &m);
		cr_assert_eq(policy_landlock_access(&m, 0, true), 0);
		cr_assert_eq(policy_landlock_access(&m, 0, false), 0);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_READ, true), m.read);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_WRITE, true), m.write);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_DEV, true), m.dev);
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_READ | POLICY_GRANT_DEV, true),
			     m.read | m.dev);
		for (unsigned g = 0; g < 8; g++) {
			uint64_t d = policy_landlock_access(&m, g, true);
			uint64_t f = policy_landlock_access(&m, g, false);
			cr_assert_eq(d & ~m.handled_fs, 0, "abi %d grant %u", abi, g);
			/* files get only file rights, and all of the grant's file rights */
			cr_assert_eq(f, d & m.file_only, "abi %d grant %u", abi, g);
			cr_assert_eq(f & ~m.file_only, 0);
		}
		/* read on a file: read and execute, never a directory right */
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_READ, false),
			     BIT(EXECUTE) | BIT(READ_FILE));
		cr_assert_eq(policy_landlock_access(&m, POLICY_GRANT_READ, false) & BIT(READ_DIR), 0);
		/* write on a file: no make/remove/refer rights */
		uint64_t wf = policy_landlock_access(&m, POLICY_GRANT_WRITE, false);
		cr_assert_eq(wf & (BIT(MAKE_REG) | BIT(REMOVE_FILE) | BIT(REFER) | BIT(MAKE_DIR)), 0);
		cr_assert(wf & BIT(WRITE_FILE));
	}
}

/* ---- the running kernel ------------------------------------------------ */

static int kernel_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi < 0 ? 0 : (int)abi;
}

/* The kernel takes the masks of its own ABI as they are: a handled right it
 * does not know is EINVAL, so this is the check that nothing is beyond it. */
Test(landlock, kernel_accepts_its_abi_masks)
{
	int abi = kernel_abi();
	if (abi < 1)
		cr_skip_test("Landlock is not enabled on this kernel (%s)", strerror(errno));
	for (int a = 1; a <= abi && a <= 7; a++) {
		struct policy_landlock_masks m;
		policy_landlock_masks(a, &m);
		struct kernel_landlock_ruleset_attr attr = {
			.handled_access_fs = m.handled_fs,
			.handled_access_net = m.handled_net,
			.scoped = m.scoped,
		};
		/* the struct size tells the kernel which fields exist (ABI 4: net,
		 * ABI 6: scoped) */
		size_t size = a >= 6 ? sizeof(attr) : a >= 4 ? 16 : 8;
		long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
		cr_assert_geq(fd, 0, "abi %d masks refused: %s", a, strerror(errno));

		/* files take exactly file rights: each grant on a regular file */
		int file = open("/proc/self/exe", O_PATH | O_CLOEXEC);
		int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		cr_assert(file >= 0 && dir >= 0);
		for (unsigned g = 1; g < 8; g++) {
			struct landlock_path_beneath_attr pb = {
				.allowed_access = policy_landlock_access(&m, g, false),
				.parent_fd = file,
			};
			cr_assert_eq(syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0),
				     0, "abi %d grant %u on a file: %s", a, g, strerror(errno));
			pb.allowed_access = policy_landlock_access(&m, g, true);
			pb.parent_fd = dir;
			cr_assert_eq(syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0),
				     0, "abi %d grant %u on a directory: %s", a, g, strerror(errno));
		}
		/* and a directory right on a file is refused: the mask matters */
		struct landlock_path_beneath_attr bad = {
			.allowed_access = BIT(READ_DIR),
			.parent_fd = file,
		};
		cr_assert_eq(syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &bad, 0), -1);
		cr_assert_eq(errno, EINVAL);
		close(file);
		close(dir);
		close((int)fd);
	}
}

/* restrict_self with the ABI's flags, in a forked child (docs/style.md §13): the
 * parent asserts the child could apply the domain. */
Test(landlock, kernel_accepts_restrict_flags)
{
	int abi = kernel_abi();
	if (abi < 1)
		cr_skip_test("Landlock is not enabled on this kernel");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct policy_landlock_masks m;
		policy_landlock_masks(abi, &m);
		struct kernel_landlock_ruleset_attr attr = {
			.handled_access_fs = m.handled_fs,
			.scoped = m.scoped,
		};
		size_t size = abi >= 6 ? sizeof(attr) : abi >= 4 ? 16 : 8;
		long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
		if (fd < 0)
			_exit(10);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(11);
		if (syscall(SYS_landlock_restrict_self, fd, m.restrict_flags))
			_exit(errno == EINVAL ? 12 : 13);
		/* nothing was granted: "/" cannot be read now */
		_exit(open("/", O_RDONLY | O_DIRECTORY) < 0 && errno == EACCES ? 0 : 14);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child died: status %#x", status);
	cr_assert_eq(WEXITSTATUS(status), 0, "child step %d failed (abi %d)", WEXITSTATUS(status),
		     abi);
}

/* Every feature an older ABI lacks is named, and ABI 7 lacks none. */
Test(landlock, missing_features_per_abi)
{
	static const size_t want[] = { 5, 5, 4, 3, 3, 2, 1, 0, 0 };
	const char *out[8];

	for (int abi = 0; abi <= 8; abi++) {
		size_t n = policy_landlock_missing(abi, out, 8);
		cr_expect_eq(n, want[abi], "ABI %d: %zu notes", abi, n);
		for (size_t i = 0; i < n; i++)
			cr_expect(strstr(out[i], "Landlock ABI <") == out[i], "%s", out[i]);
	}
	/* cap bounds what is written, not what is counted */
	cr_expect_eq(policy_landlock_missing(1, out, 2), 5);
}
