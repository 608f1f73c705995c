/* sandbox/degraded.h: the payload's part on a host that refuses user
 * namespaces: the seccomp programs it installs (the supervisor's part, and
 * the whole story, is supervisor/degraded.h).
 */
#ifndef PORTA_SANDBOX_DEGRADED_H
#define PORTA_SANDBOX_DEGRADED_H

#include "common/error.h"
#include "policy/plan.h"

/* In the payload, after Landlock: the seccomp programs (the base or connect-notifying one, plus POLICY_SECCOMP_CLOSED_NET
 * when the network is not open, and the degraded programs); a
 * notifying one's listener is sent over ctl (SANDBOX_CTL_NET_WATCH).  A
 * listener that cannot be had (EBUSY: porta runs under another one) refuses
 * the run here, since nothing else would keep the command to the proxy.
 * 0 or -errno (e filled). */
int sandbox_degraded_payload_seccomp(const struct policy_plan *plan, int ctl,
				     struct porta_error *e);

#endif /* PORTA_SANDBOX_DEGRADED_H */
