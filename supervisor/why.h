/* supervisor/why.h: `--why`, the tracer: every refusal the sandbox caused.
 *
 * ARCHITECTURE (only under --why; without it none of this runs):
 *   supervisor  after clone, PTRACE_SEIZEs init (pid 1 of a PID namespace in
 *               a user namespace porta created, so an unprivileged porta may
 *               trace it) with TRACESECCOMP, TRACEFORK/VFORK/CLONE and
 *               EXITKILL, then opens a gate init waits at before it forks the
 *               payload: every process of the command is traced from birth.
 *   payload     just before porta's own seccomp program, installs a filter
 *               returning SECCOMP_RET_TRACE for the calls the sandbox can
 *               refuse (opens, execs, creating/removing/renaming names,
 *               truncate, chmod, connect and sendto) and ALLOW for the rest.
 *               Stacked filters take the most restrictive verdict, so a call
 *               porta's program refuses (ERRNO) or notifies (USER_NOTIF:
 *               connect() in network policy mode) never reaches the tracer.
 *   supervisor  at each seccomp stop reads the call's path (process_vm_readv,
 *               dirfd through /proc/TID/fd, the cwd through /proc/TID/cwd),
 *               resumes to the syscall-exit stop, reads the result, and asks
 *               policy_why_classify() (policy/why.h) with what the host says
 *               about the path: exists? would the user's own permissions,
 *               without capabilities, allow it?  Refusals are kept, each once.
 * Network policy mode's refusals (DNS names, connections) are the proxy's:
 * supervisor/net.c hands them over with supervisor_why_add_net().
 * After the run supervisor_why_report() prints them and the command line to run
 * again.  Everything runs on the supervisor's event loop thread.
 */
#ifndef PORTA_SUPERVISOR_WHY_H
#define PORTA_SUPERVISOR_WHY_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/plan.h"

struct supervisor_why;

/* A tracer for plan (which must outlive it).  NULL on ENOMEM. */
struct supervisor_why *supervisor_why_create(const struct policy_plan *plan);

/* In the supervisor, right after clone: seizes init and opens the gate
 * (writes one byte to gate_fd; the caller closes it).  0 or -errno (then the
 * caller kills init; the gate stays shut so init never forks the payload). */
int supervisor_why_seize(struct supervisor_why *w, pid_t init, int gate_fd);

/* On SIGCHLD: handles every wait status pending for the tracees (ptrace
 * stops, which it resumes; signals, which it passes on; exits, which it
 * reaps).  Returns true when init itself ended, with its status in
 * *init_status. */
bool supervisor_why_on_sigchld(struct supervisor_why *w, pid_t init, int *init_status);

/* A network refusal decided elsewhere (policy mode's proxy, DNS responder
 * and connect watch): dst as printed ("evil.test:443", "192.0.2.1:22"),
 * reason ("no rule"), hint (the option that would allow it, or "" / NULL).
 * Strings are copied; dst and hint must already be escaped. */
void supervisor_why_add_net(struct supervisor_why *w, const char *dst, const char *reason,
			 const char *hint);

/* A Unix-socket call the connect watch answered with err (a positive
 * errno: the rule's refusal, or no socket there): judged as the tracer
 * judges what it sees (the connect watch decides those calls before any
 * tracing filter could stop them).  path: absolute, as the sandbox sees it. */
void supervisor_why_add_unix(struct supervisor_why *w, const char *path, int err);

/* Prints, on err, each distinct refusal with the option that would have
 * allowed it (or why none does), then the full command line to run again, or
 * that nothing was refused.  argc/argv: porta's own. */
void supervisor_why_report(const struct supervisor_why *w, int argc, char *const argv[], FILE *err);

/* porta learn: the refusals, each once, as answers: the option that allows
 * each (network refusals left out: the learning run's audit has them) into
 * *options ("-v /dir"), and each that no option opens into *closed ("read
 * /x (credential path; closed by the preset)").  Arrays and strings
 * malloc'd, the caller's.  0 or -ENOMEM (nothing handed over). */
int supervisor_why_answers(const struct supervisor_why *w, char ***options, size_t *n_options,
			   char ***closed, size_t *n_closed);

/* Frees w.  destroy(NULL) is a no-op. */
void supervisor_why_destroy(struct supervisor_why *w);

#endif /* PORTA_SUPERVISOR_WHY_H */
