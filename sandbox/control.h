/* sandbox/control.h: the control channel between the supervisor and the
 * sandbox's processes, and every message it carries.
 *
 * ARCHITECTURE: one AF_UNIX SOCK_SEQPACKET pair made before clone; the
 * supervisor keeps one end, init (or, on a degraded host, the payload) the
 * other.  Each message is one sandbox_fdpass message (type, payload, fds),
 * so boundaries are kept and passed fds can never be silently dropped.  The
 * types are one enum, here: set-up failures travel as struct porta_error so
 * the supervisor prints one precise message; the run's end as the payload's
 * wait status; network policy mode's listeners as fds.
 */
#ifndef PORTA_SANDBOX_CONTROL_H
#define PORTA_SANDBOX_CONTROL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "common/error.h"

enum sandbox_ctl {
	SANDBOX_CTL_SETUP_ERROR = 1, /* init or payload -> supervisor: error */
	SANDBOX_CTL_EXEC_ERROR,      /* payload -> supervisor: value = exit code, error */
	SANDBOX_CTL_CPU,             /* init -> supervisor: value = the payload's CPU ms, sent
				      * just before its status */
	SANDBOX_CTL_STATUS,          /* init -> supervisor: value = the payload's wait status */
	SANDBOX_CTL_SIGNAL,          /* supervisor -> init: value = signal to forward */
	SANDBOX_CTL_EMPTY,           /* init -> supervisor: after the status, every other
				      * process of the sandbox is gone; init exits next */
	SANDBOX_CTL_NS_REFUSED,      /* init -> supervisor: error, a set-up failure for
				      * which sandbox_ctl_ns_refused() holds */
	SANDBOX_CTL_NET_LISTENERS,   /* init -> supervisor: fds + struct sandbox_net_listener[] */
	SANDBOX_CTL_NET_DONE,        /* init -> supervisor: every listener was sent */
	SANDBOX_CTL_NET_WATCH,       /* init (degraded: the payload's helper) -> supervisor:
				      * the payload's seccomp listener fd (sandbox/netinit.h) */
};

/* The payload of the non-network messages. */
struct sandbox_ctl_msg {
	int32_t value;
	struct porta_error error;
};

/* The value of SANDBOX_CTL_CPU: user and system time of a reaped process,
 * in milliseconds (capped). */
static inline int32_t sandbox_ctl_cpu_ms(const struct rusage *ru)
{
	long long ms = (long long)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000 +
		       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;

	return ms > INT32_MAX ? INT32_MAX : (int32_t)ms;
}

/* True when e, a failure of init's, says the host made the user namespace
 * but refuses what porta needs inside it: writing the id maps, making /
 * private, mounting a fresh /proc or a private tmpfs, refused with EPERM or
 * EACCES.  Ubuntu's AppArmor restriction
 * (kernel.apparmor_restrict_unprivileged_userns=1) refuses every capability
 * inside (the id maps first); a container's masked /proc refuses the proc
 * mount.  The supervisor then runs the command degraded, as where user
 * namespaces are refused outright (supervisor/degraded.h).  Steps that name
 * a user's path never count: their failures stop the run.  Pure. */
bool sandbox_ctl_ns_refused(const struct porta_error *e);

/* Sends one message (type, value, e may be NULL) on fd; a peer that is gone
 * has nothing left to learn, so failures are ignored (and no SIGPIPE). */
void sandbox_ctl_send(int fd, enum sandbox_ctl type, int value, const struct porta_error *e);

#endif /* PORTA_SANDBOX_CONTROL_H */
