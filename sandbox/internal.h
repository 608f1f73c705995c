/* sandbox/internal.h: what the sandbox module's files share (and its tests). */
#ifndef PORTA_SANDBOX_INTERNAL_H
#define PORTA_SANDBOX_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "policy/landlock.h"
#include "sandbox/sandbox.h"

/* Transparent listeners at most, one per port the rules name (issue 3). */
#define SANDBOX_MAX_LISTENERS 1024

/* Builds the Landlock ruleset for plan (opens every rule path O_PATH).  On
 * success *ruleset_fd is a CLOEXEC fd the caller owns and *m the masks used.
 * Returns 0 or -errno (e filled). */
int sandbox_landlock_prepare(const struct policy_plan *plan, int *ruleset_fd,
			     struct policy_landlock_masks *m, struct porta_error *e);

/* Hosts without user namespaces (sandbox/degraded.c): a ruleset from an
 * explicit rule array (policy_degrade_rules()), handling TCP bind and connect
 * when confine_tcp (refused below Landlock ABI 4) with connect allowed only
 * to connect_ports[0..n_ports).  0 or -errno (e filled). */
int sandbox_landlock_prepare_rules(const struct policy_rule *rules, size_t n, bool confine_tcp,
				   const uint16_t *connect_ports, size_t n_ports, int *ruleset_fd,
				   struct policy_landlock_masks *m, struct porta_error *e);

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

/* In init, in a new network namespace: brings lo up over rtnetlink.  0 or -errno. */
int sandbox_netns_lo_up(void);

/* In init, in a new network namespace with lo up (policy mode): adds the
 * local routes 0.0.0.0/0 and ::/0 on lo, so that a connect() to any address
 * reaches a listener on the wildcard address.  0 or -errno. */
int sandbox_netns_anyip(void);

/* In the payload: rlimits from opts.  0 or -errno (e filled). */
int sandbox_limits_apply(const struct policy_options *opts, struct porta_error *e);

/* In the payload: drops every capability (effective, permitted, inheritable,
 * bounding, ambient) and locks the securebits.  0 or -errno (e filled). */
int sandbox_caps_drop(struct porta_error *e);

/* True when the calling process holds any capability (permitted set) or
 * uid 0: only then is there anything for sandbox_caps_drop() to drop (an
 * unprivileged process on a host without user namespaces holds none, and
 * may not touch its securebits). */
bool sandbox_caps_held(void);

#endif /* PORTA_SANDBOX_INTERNAL_H */
