/* sandbox/sandbox.h: the Linux side of porta — everything that makes a
 * sandboxing syscall.
 *
 * ARCHITECTURE (DESIGN.md, Processes and Set-up order):
 *
 *   porta (supervisor)   sandbox_run(): prepares everything that can fail
 *     |                  (plan, Landlock ruleset, seccomp program), clones,
 *     |                  then runs the event loop: control messages,
 *     |                  signals to forward, the --timeout timer, init's exit.
 *     +- init (pid 1)    maps its own uid/gid, makes / private, brings lo up
 *          |             (--no-net), performs the plan's mount steps, forks the
 *          |             payload, reaps, reports the payload's status.
 *          +- payload    rlimits, capabilities dropped, no_new_privs,
 *                        Landlock, seccomp, execve(COMMAND).
 *
 * The control channel is an AF_UNIX SOCK_SEQPACKET pair (one message per
 * send, boundaries kept).  Set-up failures travel as (step, errno, path) so
 * the supervisor prints one precise message and porta exits 125.
 */
#ifndef PORTA_SANDBOX_SANDBOX_H
#define PORTA_SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "policy/options.h"
#include "policy/plan.h"

/* Resolves opts against the host (cwd, $HOME, which paths exist, Unix sockets
 * bound now, git directories, the environment) into a new plan.  argv is the
 * argv opts were parsed from, envp porta's own environment.  Returns 0 and
 * sets *out (caller owns, policy_plan_destroy), or -errno with *e filled. */
int sandbox_resolve(const struct policy_options *opts, char *const argv[],
		    char *const envp[], struct policy_plan **out, struct porta_error *e);

/* The outcome of a run. */
enum sandbox_outcome {
	SANDBOX_EXITED,       /* the command exited: code */
	SANDBOX_SIGNALED,     /* the command was killed by signal: code */
	SANDBOX_TIMED_OUT,    /* --timeout reached; the whole sandbox was killed */
	SANDBOX_SETUP_FAILED, /* before the command started; error filled */
	SANDBOX_EXEC_FAILED,  /* execve failed: code is 126 or 127, error filled */
	SANDBOX_STOPPED,      /* porta ended the run: a protected name appeared, or a path
			       * it mounted over was replaced outside (the guard said
			       * which on stderr); code is 137 */
};

struct sandbox_result {
	enum sandbox_outcome outcome;
	int code;
	struct porta_error error;
};

/* Runs the plan's command confined and waits for it.  Blocks SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGCHLD in the caller and
 * leaves them blocked (a pending one must not end porta before it reports);
 * forwards all but SIGCHLD to the command.  argv: the command (NULL-
 * terminated).  Returns 0 with *r filled (even when the command failed), or
 * -errno when porta itself could not run it (r->error filled). */
int sandbox_run(const struct policy_plan *plan, char *const argv[], struct sandbox_result *r);

/* True when porta runs as uid 0 of the host: euid 0 in a user namespace
 * whose uid 0 is the parent's uid 0 (the initial namespace, or one made by
 * root).  uid 0 of a namespace an unprivileged user made (`unshare -r`) owns
 * nothing of the host and is not "root" here. */
bool sandbox_euid_is_host_root(void);
/* True when a ceiling of o needs a cgroup (--max-memory-mb; --max-procs when
 * porta runs as root) that porta cannot create on this host; why[cap] then
 * holds one sentence naming the option, what each cgroup version lacks and
 * what would help.  Reads /proc and the cgroup files, creates nothing. */
bool sandbox_ceilings_refusal(const struct policy_options *o, char *why, size_t cap);

/* The Landlock ABI the kernel offers (0 when none). */
int sandbox_landlock_abi(void);

/* Whether this process may create a user namespace (probed in a forked
 * child, so it costs a fork: for check and explain, not run's hot path). */
bool sandbox_userns_available(void);

/* `porta check`: probes the host and prints each primitive to out, as text or
 * JSON.  Returns 0 when porta can run here, 1 when it cannot. */
int sandbox_check(FILE *out, bool json);

#endif /* PORTA_SANDBOX_SANDBOX_H */
