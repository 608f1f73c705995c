/* sandbox/landlock.h: the Landlock rulesets the supervisor builds before
 * clone (every rule path opened O_PATH there, where a failure can still be
 * reported), and init and the payload complete and enforce
 * (sandbox/internal.h).
 */
#ifndef PORTA_SANDBOX_LANDLOCK_H
#define PORTA_SANDBOX_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "policy/landlock.h"
#include "policy/plan.h"

/* Builds the Landlock ruleset for plan (opens every rule path O_PATH).  On
 * success *ruleset_fd is a CLOEXEC fd the caller owns and *m the masks used.
 * Returns 0 or -errno (e filled). */
int sandbox_landlock_prepare(const struct policy_plan *plan, int *ruleset_fd,
			     struct policy_landlock_masks *m, struct porta_error *e);

/* Hosts without user namespaces (supervisor/degraded.c): a ruleset from an
 * explicit rule array (policy_degrade_rules()), handling TCP bind and connect
 * when confine_tcp (refused below Landlock ABI 4) with connect allowed only
 * to connect_ports[0..n_ports).  0 or -errno (e filled). */
int sandbox_landlock_prepare_rules(const struct policy_rule *rules, size_t n, bool confine_tcp,
				   const uint16_t *connect_ports, size_t n_ports, int *ruleset_fd,
				   struct policy_landlock_masks *m, struct porta_error *e);

#endif /* PORTA_SANDBOX_LANDLOCK_H */
