/* sandbox/degraded.c: see degraded.h. */
#include "sandbox/degraded.h"

#include <errno.h>
#include <unistd.h>

#include "sandbox/control.h"
#include "sandbox/fdpass.h"
#include "sandbox/internal.h"
#include "sandbox/netinit.h"
#include "sandbox/seccomp.h"

int sandbox_degraded_payload_seccomp(const struct policy_plan *plan,
				     struct sandbox_watch_handover *watch, struct porta_error *e)
{
	enum policy_net_mode mode = plan->opts->net_mode;
	int r;

	/* every mode: the Unix rule (supervisor/unixsock.h); in policy mode
	 * also what keeps the command to porta's proxy */
	if ((r = sandbox_watch_install(watch, POLICY_SECCOMP_NOTIFY_CONNECT)))
		return porta_fail(e, r == -EPIPE ? "pass the connect watch to porta" : "seccomp",
				  NULL, -r,
				  r == -EBUSY ? "another seccomp listener is in use, and without one "
						"porta cannot decide the command's Unix-socket "
						"connections (nor keep it to porta's proxy on this "
						"host)"
					      : NULL);
	if (mode != POLICY_NET_OPEN && (r = sandbox_seccomp_install(POLICY_SECCOMP_CLOSED_NET)))
		return porta_fail(e, "seccomp", NULL, -r, "closed network");
	if ((r = sandbox_seccomp_install(POLICY_SECCOMP_DEGRADED)))
		return porta_fail(e, "seccomp", NULL, -r, "no IPC namespace");
	if (sandbox_euid_is_host_root() && (r = sandbox_seccomp_install(POLICY_SECCOMP_DEGRADED_ROOT)))
		return porta_fail(e, "seccomp", NULL, -r, "root without a mount namespace");
	return 0;
}
