/* sandbox/internal.h: what the sandbox module's files share (and its tests). */
#ifndef PORTA_SANDBOX_INTERNAL_H
#define PORTA_SANDBOX_INTERNAL_H

#ifndef PORTA_INSIDE_SANDBOX
#error "sandbox/internal.h is sandbox/'s own (and its unit tests'): use sandbox/sandbox.h"
#endif

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "policy/landlock.h"
#include "policy/options.h"
#include "policy/plan.h"
#include "sandbox/sandbox.h"

/* In init, after the mounts: adds the rules on filesystems the sandbox
 * mounted itself (policy_plan_rule_after_mounts()) to ruleset_fd.  0 or
 * -errno (e filled). */
int sandbox_landlock_add_after_mounts(const struct policy_plan *plan, int ruleset_fd,
				      const struct policy_landlock_masks *m,
				      struct porta_error *e);

/* In the payload: landlock_restrict_self(ruleset_fd, flags).  0 or -errno. */
int sandbox_landlock_enforce(int ruleset_fd, uint32_t flags);

/* In init, after the uid map: performs the plan's mount steps in order.
 * 0 or -errno (e filled). */
int sandbox_mounts_apply(const struct policy_plan *plan, struct porta_error *e);

/* In the payload: rlimits from the options, and RLIMIT_CORE pinned at 1
 * and coredump_filter 0 when the plan says dumps go to a program of the
 * host.  0 or -errno (e filled). */
int sandbox_limits_apply(const struct policy_plan *plan, struct porta_error *e);

/* In the payload: drops every capability (effective, permitted, inheritable,
 * bounding, ambient) and locks the securebits.  0 or -errno (e filled). */
int sandbox_caps_drop(struct porta_error *e);

/* True when the calling process holds any capability (permitted set) or
 * uid 0: only then is there anything for sandbox_caps_drop() to drop (an
 * unprivileged process on a host without user namespaces holds none, and
 * may not touch its securebits). */
bool sandbox_caps_held(void);

/* In init (or, on a degraded host, the payload), first thing: moves the
 * calling process into every cgroup of the ceilings by writing "0" to each
 * inherited cgroup.procs fd (the kernel checks the opener's credentials,
 * supervisor/cgroup.h), then closes them.  0 or -errno (e filled). */
int sandbox_cgroup_join(const int *fds, size_t n, struct porta_error *e);

#endif /* PORTA_SANDBOX_INTERNAL_H */
