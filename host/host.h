/* host/host.h: what this host is and offers, looked at before anything runs.
 *
 * ARCHITECTURE: the plan (policy/plan.h) is what the user's options mean on
 * this host: host_resolve() looks at the host (cwd, $HOME, which paths
 * exist, the Unix sockets bound now, git directories, the environment, the
 * resolver, the host's addresses) and fills it; the supervisor then only
 * executes it.  `porta check` (host_check()) and the ceilings' cgroups
 * (host/cgroup.h) are the other questions asked of the host.  Everything
 * here reads the host; nothing here confines or runs anything.
 */
#ifndef PORTA_HOST_HOST_H
#define PORTA_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "policy/options.h"
#include "policy/plan.h"

/* Resolves opts against the host into a new plan.  argv is the argv opts
 * were parsed from, envp porta's own environment.  Returns 0 and sets *out
 * (caller owns, policy_plan_destroy), or -errno with *e filled. */
int host_resolve(const struct policy_options *opts, char *const argv[], char *const envp[],
		 struct policy_plan **out, struct porta_error *e);

/* True when a ceiling of o needs a cgroup (--max-memory-mb; --max-procs when
 * porta runs as root) that porta cannot create on this host; why[cap] then
 * holds one sentence naming the option, what each cgroup version lacks and
 * what would help.  Reads /proc and the cgroup files, creates nothing. */
bool host_ceilings_refusal(const struct policy_options *o, char *why, size_t cap);

/* Whether this process may create a user namespace (probed in a forked
 * child, so it costs a fork: for check and explain, not run's hot path). */
bool host_userns_available(void);

/* `porta check`: probes the host and prints each primitive to out, as text or
 * JSON.  Returns 0 when porta can run here, 1 when it cannot. */
int host_check(FILE *out, bool json);

#endif /* PORTA_HOST_HOST_H */
