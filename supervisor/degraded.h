/* supervisor/degraded.h: running on a host that refuses user namespaces.
 *
 * ARCHITECTURE (docs/design.md, Degraded hosts; policy/degrade.h decides): when
 * clone(CLONE_NEWUSER) is refused, supervisor_run() does not give up: the
 * supervisor forks the payload directly (no init, no namespaces), after
 * these steps in the supervisor:
 *   1. refuse what cannot be enforced (policy_degrade_refusal(), exit 125);
 *   2. in network policy mode, listen for the proxies on the host's
 *      127.0.0.1 (supervisor_net_listen_local());
 *   3. make a private TMPDIR under /tmp (the host's /tmp stays closed);
 *   4. build the Landlock ruleset from policy_degrade_rules(), with TCP
 *      confined to the proxy ports (or to nothing with --no-net);
 *   5. print one line per protection that is lost.
 * The payload then drops what it holds, restricts itself and installs the
 * seccomp programs (the base or connect-notifying one, plus
 * POLICY_SECCOMP_CLOSED_NET when the network is not open).  porta is the
 * child subreaper of everything the command starts, so when the command
 * ends, supervisor_degraded_sweep() kills and reaps whatever it left behind.
 */
#ifndef PORTA_SUPERVISOR_DEGRADED_H
#define PORTA_SUPERVISOR_DEGRADED_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/landlock.h"
#include "policy/plan.h"
#include "common/error.h"
#include "supervisor/net.h"

/* True when clone(2) failed with an errno that means "no user namespace for
 * you here" (EPERM, EACCES, ENOSPC, EINVAL, EUSERS). */
bool supervisor_degraded_errno(int err);

struct supervisor_degraded {
	char *tmpdir;   /* the private TMPDIR, or NULL (--share-tmp) */
	char **envp;    /* the command's environment with TMPDIR pointing there */
};

/* Steps 1-5 above.  no_caps: NULL where clone(CLONE_NEWUSER) was refused;
 * else init's refusal inside the namespace (sandbox_ctl_ns_refused()),
 * named in the first line.  net may be NULL (open or --no-net); in policy mode it
 * gets its listeners and *ports their numbers.  On success *ruleset_fd and
 * *m are the degraded ruleset and its masks; d owns what it holds
 * (supervisor_degraded_cleanup()).  0 or -errno (e filled); d is cleaned up on
 * failure. */
int supervisor_degraded_prepare(const struct policy_plan *plan, struct supervisor_net *net,
			     const struct porta_error *no_caps,
			     struct sandbox_net_ports *ports, struct supervisor_degraded *d,
			     int *ruleset_fd, struct policy_landlock_masks *m,
			     struct porta_error *e);

/* For `porta explain`: when this host refuses user namespaces or what porta
 * needs inside them (host_userns_probe()), adds notes to plan saying that run will confine with
 * Landlock and seccomp only, what that loses, or why run would refuse.
 * True when a run here would be degraded. */
bool supervisor_degraded_explain(struct policy_plan *plan);

/* Kills (SIGKILL) and reaps every remaining child of porta, again and again
 * as orphans are re-parented to it, until none is left. */
void supervisor_degraded_sweep(void);

/* Removes the private TMPDIR and everything in it, frees d's memory. */
void supervisor_degraded_cleanup(struct supervisor_degraded *d);

#endif /* PORTA_SUPERVISOR_DEGRADED_H */
