/* supervisor/supervisor.h: one run as the parent process sees it.
 *
 * ARCHITECTURE (docs/design.md, Processes):
 *
 *   porta (supervisor)   supervisor_run(): prepares everything that can fail
 *     |                  (the Landlock ruleset, the control channel, the
 *     |                  ceilings' cgroups, the guard), clones (or, where
 *     |                  user namespaces are refused, forks: degraded.h),
 *     |                  then runs the event loop: control messages, signals
 *     |                  to forward, the --timeout timer, the guard, network
 *     |                  policy mode's proxy, DNS and connect watch (net.h),
 *     |                  --why's tracer (why.h), init's exit.
 *     +- init (pid 1)    sandbox/child.h
 *          +- payload
 *
 * This is the only module that wires the sandbox (sandbox/), the host
 * (host/), the proxy (netproxy/) and the DNS responder (dns/) together.
 */
#ifndef PORTA_SUPERVISOR_SUPERVISOR_H
#define PORTA_SUPERVISOR_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "policy/plan.h"

/* The outcome of a run. */
enum supervisor_outcome {
	SUPERVISOR_EXITED,       /* the command exited: code */
	SUPERVISOR_SIGNALED,     /* the command was killed by signal: code */
	SUPERVISOR_TIMED_OUT,    /* --timeout reached; the whole sandbox was killed */
	SUPERVISOR_SETUP_FAILED, /* before the command started; error filled */
	SUPERVISOR_EXEC_FAILED,  /* execve failed: code is 126 or 127, error filled */
	SUPERVISOR_STOPPED,      /* porta ended the run: a protected name appeared, or a
				  * path it mounted over was replaced outside (the guard
				  * said which on stderr); code is 137 */
	SUPERVISOR_CEILING,      /* porta ended the run at a ceiling it counts for the
				  * whole run (--max-cpu, a polled --max-memory-mb;
				  * supervisor/ceiling.h said which on stderr); code
				  * is 137 */
};

struct supervisor_result {
	enum supervisor_outcome outcome;
	int code;
	struct porta_error error;
	int cpu_ms; /* the command's CPU time when known, else -1 */
	size_t net_refused; /* distinct destinations refused (network policy mode) */
	/* SUPERVISOR_SETUP_FAILED because init found no capabilities in its
	 * user namespace (sandbox_ctl_ns_refused()); supervisor_run() then
	 * ran the command degraded, so a caller only sees it set if that
	 * attempt failed the same way, which it cannot (no namespace) */
	bool ns_refused;
	/* porta learn: --why's answers (supervisor_why_answers()), freed by
	 * supervisor_result_release() */
	char **learn_options, **learn_closed;
	size_t n_learn_options, n_learn_closed;
};

/* Frees what a result owns (the learn answers); the result stays valid. */
void supervisor_result_release(struct supervisor_result *r);

/* Runs the plan's command confined and waits for it.  Blocks SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGCHLD in the caller and
 * leaves them blocked (a pending one must not end porta before it reports);
 * forwards all but SIGCHLD to the command.  argv: the command (NULL-
 * terminated).  Returns 0 with *r filled (even when the command failed), or
 * -errno when porta itself could not run it (r->error filled). */
int supervisor_run(const struct policy_plan *plan, char *const argv[],
		   struct supervisor_result *r);

#endif /* PORTA_SUPERVISOR_SUPERVISOR_H */
