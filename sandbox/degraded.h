/* sandbox/degraded.h: the payload's part on a host that refuses user
 * namespaces: the seccomp programs it installs (the supervisor's part, and
 * the whole story, is supervisor/degraded.h).
 */
#ifndef PORTA_SANDBOX_DEGRADED_H
#define PORTA_SANDBOX_DEGRADED_H

#include "common/error.h"
#include "policy/plan.h"

/* In the payload, after Landlock: the seccomp programs (the
 * connect-notifying one in every mode, plus POLICY_SECCOMP_CLOSED_NET when
 * the network is not open, and the degraded programs); the notifying one's
 * listener goes to porta through helper (sandbox/netinit.h).  A listener
 * that cannot be had (EBUSY: porta runs under another one) refuses the
 * run here, since nothing else would decide the command's Unix-socket
 * calls or keep it to the proxy.  0 or -errno (e filled). */
struct sandbox_watch_handover;
int sandbox_degraded_payload_seccomp(const struct policy_plan *plan,
				     struct sandbox_watch_handover *watch, struct porta_error *e);

#endif /* PORTA_SANDBOX_DEGRADED_H */
