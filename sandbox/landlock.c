/* sandbox/landlock.c: the Landlock ruleset (Documentation/userspace-api/landlock.rst).
 *
 * The ruleset is built once in the supervisor before clone and inherited by
 * the payload, which only calls landlock_restrict_self(): rules attach to
 * inodes, so the mount namespace the payload later sees does not matter.
 * The exception is a filesystem the sandbox mounts in place of a granted one
 * (/tmp, /dev/shm, /dev/pts, /proc): Landlock skips the hidden mount point's
 * inode, so init adds those rules to the same ruleset after its mounts.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "common/log.h"
#include "sandbox/internal.h"
#include "sandbox/landlock.h"

int sandbox_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return abi < 0 ? 0 : (int)abi;
}

static int add_rule(const struct policy_rule *rule, int fd, const struct policy_landlock_masks *m,
		    struct porta_error *e)
{
	{
		struct landlock_path_beneath_attr pb = {
			.allowed_access = policy_landlock_access(m, rule->grant, rule->is_dir),
		};
		if (pb.allowed_access == 0)
			return 0;
		_cleanup_fd_ int pfd = open(rule->path, O_PATH | O_CLOEXEC);
		if (pfd < 0) {
			if (errno == ENOENT)
				return 0; /* vanished since resolving: nothing to grant */
			return porta_fail(e, "Landlock rule", rule->path, errno, NULL);
		}
		pb.parent_fd = pfd;
		if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			return porta_fail(e, "Landlock rule", rule->path, errno, NULL);
	}
	return 0;
}

/* Adds the plan's rules whose after-mounts status is late (see
 * policy_plan_rule_after_mounts()) to the ruleset. */
static int add_rules(const struct policy_plan *plan, int fd, const struct policy_landlock_masks *m,
		     bool late, struct porta_error *e)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		if (policy_plan_rule_after_mounts(plan, &plan->rules[i]) != late)
			continue;
		int rc = add_rule(&plan->rules[i], fd, m, e);
		if (rc)
			return rc;
	}
	return 0;
}

/* The files behind stdin, stdout and stderr were handed to the command by
 * the user; `echo x > /dev/stderr` reopens them by path (/proc/self/fd/N),
 * and Landlock would judge that path like any other.  Grant each regular file
 * or terminal exactly the access its fd already carries, so reopening works
 * and nothing more is granted.  Pipes and sockets need no rule: Landlock does
 * not govern them. */
static int add_std_streams(int ruleset, const struct policy_landlock_masks *m,
			   struct porta_error *e)
{
	for (int sfd = 0; sfd <= 2; sfd++) {
		struct stat st;
		int fl = fcntl(sfd, F_GETFL);
		if (fl < 0 || fstat(sfd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
			continue;
		uint64_t access = 0;
		if ((fl & O_ACCMODE) != O_WRONLY)
			access |= LANDLOCK_ACCESS_FS_READ_FILE;
		if ((fl & O_ACCMODE) != O_RDONLY)
			access |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
		if (S_ISCHR(st.st_mode))
			access |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
		struct landlock_path_beneath_attr pb = {
			.allowed_access = access & m->file_only,
			.parent_fd = sfd,
		};
		if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			return porta_fail(e, "Landlock rule for standard stream", NULL, errno,
					    "fd %d", sfd);
	}
	return 0;
}

/* An empty ruleset handling m's rights; the fd or -errno (e filled). */
static int new_ruleset(const struct policy_landlock_masks *m, struct porta_error *e)
{
	int abi = m->abi;
	struct kernel_landlock_ruleset_attr attr = {
		.handled_access_fs = m->handled_fs,
		.handled_access_net = m->handled_net,
		.scoped = m->scoped,
	};
	/* The struct grew with the ABI: pass the size this ABI knows. */
	size_t size = abi >= 6 ? sizeof(attr)
		      : abi >= 4 ? offsetof(struct kernel_landlock_ruleset_attr, scoped)
				 : offsetof(struct kernel_landlock_ruleset_attr, handled_access_net);
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0)
		return porta_fail(e, "Landlock ruleset", NULL, errno, NULL);
	return fd;
}

/* The ABI, its masks, and a warning per feature it lacks; 0 or -errno. */
static int masks_for_host(struct policy_landlock_masks *m, struct porta_error *e)
{
	int abi = sandbox_landlock_abi();

	if (abi < 1)
		return porta_fail(e, "Landlock", NULL, EOPNOTSUPP,
				    "this kernel has no Landlock, so writes cannot be confined; see 'porta check'");
	policy_landlock_masks(abi, m);
	/* Degrade, but say so (docs/design.md: never silently weakened). */
	const char *missing[8];
	size_t n_missing = policy_landlock_missing(abi, missing, 8);
	for (size_t i = 0; i < n_missing && i < 8; i++)
		log_msg(LOG_LEVEL_WARN, "%s", missing[i]);
	return 0;
}

int sandbox_landlock_prepare(const struct policy_plan *plan, int *ruleset_fd,
			     struct policy_landlock_masks *m, struct porta_error *e)
{
	int rc = masks_for_host(m, e);
	if (rc)
		return rc;
	_cleanup_fd_ int fd = new_ruleset(m, e);
	if (fd < 0)
		return fd;

	rc = add_rules(plan, fd, m, false, e);
	if (rc || (rc = add_std_streams(fd, m, e)))
		return rc;
	*ruleset_fd = steal_fd(&fd);
	return 0;
}

int sandbox_landlock_add_after_mounts(const struct policy_plan *plan, int ruleset_fd,
				      const struct policy_landlock_masks *m,
				      struct porta_error *e)
{
	return add_rules(plan, ruleset_fd, m, true, e);
}

int sandbox_landlock_enforce(int ruleset_fd, uint32_t flags)
{
	if (syscall(SYS_landlock_restrict_self, ruleset_fd, flags) < 0)
		return -errno;
	return 0;
}

int sandbox_landlock_prepare_rules(const struct policy_rule *rules, size_t n, bool confine_tcp,
				   const uint16_t *connect_ports, size_t n_ports, int *ruleset_fd,
				   struct policy_landlock_masks *m, struct porta_error *e)
{
	int rc = masks_for_host(m, e);
	if (rc)
		return rc;
	if (confine_tcp) {
		if (m->abi < 4)
			return porta_fail(e, "Landlock", NULL, EOPNOTSUPP,
					    "Landlock ABI %d has no TCP rules (ABI 4, Linux 6.7), and "
					    "without a network namespace nothing else can confine the "
					    "network here: run without --no-net/--proxy-allow, or on a "
					    "host with user namespaces",
					    m->abi);
		m->handled_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
	}
	_cleanup_fd_ int fd = new_ruleset(m, e);
	if (fd < 0)
		return fd;
	for (size_t i = 0; i < n; i++) {
		if ((rc = add_rule(&rules[i], fd, m, e)))
			return rc;
	}
	for (size_t i = 0; i < n_ports; i++) {
		struct kernel_landlock_net_port_attr np = {
			.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
			.port = connect_ports[i],
		};
		if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
			return porta_fail(e, "Landlock TCP rule", NULL, errno, "port %u",
					    (unsigned)connect_ports[i]);
	}
	if ((rc = add_std_streams(fd, m, e)))
		return rc;
	*ruleset_fd = steal_fd(&fd);
	return 0;
}
