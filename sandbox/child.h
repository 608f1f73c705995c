/* sandbox/child.h: what the sandbox's own processes do, init and the
 * payload, from clone to execve.
 *
 * ARCHITECTURE (docs/design.md, Processes and Set-up order): the supervisor
 * (supervisor/run.c) fills a struct sandbox_child before clone and calls
 * sandbox_child_main() in the child:
 *   init (pid 1)  joins the ceilings' cgroups, maps its own uid/gid, makes /
 *                 private, brings lo up (policy mode: every address local,
 *                 listeners made and sent up), performs the plan's mount
 *                 steps, adds Landlock rules for what it mounted, forks the
 *                 payload, reaps everything, reports the payload's status;
 *   payload       rlimits, every capability dropped, no_new_privs, Landlock,
 *                 seccomp (in policy mode with a notification on connect),
 *                 execve(COMMAND).
 * On a host without user namespaces there is no init: the supervisor forks
 * the payload itself (degraded).  Failures travel up the control channel
 * (sandbox/control.h) and the process ends with 125.
 */
#ifndef PORTA_SANDBOX_CHILD_H
#define PORTA_SANDBOX_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy/landlock.h"
#include "policy/plan.h"
#include "sandbox/netinit.h"

/* Everything init and the payload need, filled by the supervisor before
 * clone (the child has its own copy). */
struct sandbox_child {
	const struct policy_plan *plan;
	char *const *argv;
	int ctl;
	int ruleset_fd;
	struct policy_landlock_masks masks;
	uid_t uid;
	gid_t gid;
	sigset_t old_mask;
	struct sandbox_net_ports net_ports; /* policy mode: set by init before the fork */
	int watch_to_init;         /* set by init: the pipe the payload writes the
				    * watch's listener's number to (sandbox/netinit.h);
				    * degraded, -1 */
	bool degraded;             /* a host without user namespaces: the payload is
				    * porta's own child, and there is no init */
	char *const *degraded_envp; /* then: the environment with its private TMPDIR */
	pid_t supervisor;
	int cg_fds[4];             /* the ceilings' cgroup.procs, to join first */
	size_t n_cg_fds;
	int why_gate; /* --why: init forks the payload once this reads a byte; else -1 */
	/* TLS termination (supervisor/term.h): the run CA's PEM, put into the
	 * trust bundles by init (sandbox/trust.h), or NULL; the command's
	 * environment with every secret's placeholder, or NULL */
	const char *trust_pem;
	char *const *term_envp;
	const char *trust_bundle; /* set by init: the bundle the variables name */
};

/* In the child after clone: runs init (or, degraded, the payload) and never
 * returns. */
__attribute__((noreturn)) void sandbox_child_main(const struct sandbox_child *c);

#endif /* PORTA_SANDBOX_CHILD_H */
