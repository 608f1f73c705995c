/* policy/explain.h: the plan in words (`porta explain`), as text or JSON.
 *
 * ARCHITECTURE: pure rendering of a resolved plan; what is printed is what
 * run would do, because run executes the same plan.
 */
#ifndef PORTA_POLICY_EXPLAIN_H
#define PORTA_POLICY_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "policy/plan.h"

/* Writes the plan for the command argv[0..argc) to out.  json selects a
 * single JSON object (keys: mounts, read_policy, closed_paths, protected,
 * closed_sockets, network, limits, env, command, notes, landlock_abi) instead
 * of text.  Returns 0 or -ENOMEM. */
int policy_explain(FILE *out, const struct policy_plan *plan, int argc, char *const argv[],
		   int landlock_abi, bool json);

#endif /* PORTA_POLICY_EXPLAIN_H */
