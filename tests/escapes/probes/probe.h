/*
 * Shared helpers for the escape-corpus probes.
 *
 * A probe is a small hostile program. It prints PROBE-STARTED first (so the
 * runner knows the sandbox really ran it), then attempts one escape and says
 * what happened on stdout, one line per attempt:
 *
 *   RESULT <name> ok <value>        the call succeeded
 *   RESULT <name> fail <ERRNO>      the call failed with that errno
 *   RESULT <name> killed <SIGNAL>   the attempt's child died of a signal
 *
 * Wherever it can, the runner judges from evidence outside the sandbox (a
 * file on the host, a listener's log, a decoy's state); RESULT lines are the
 * evidence only where no outside trace exists (a syscall's return value).
 * Everything is written with unbuffered write(2) so that nothing is lost when
 * a probe is killed.
 */
#ifndef PORTA_ESCAPES_PROBE_H
#define PORTA_ESCAPES_PROBE_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void probe_started(void)
{
	static const char msg[] = "PROBE-STARTED\n";
	/* Listeners hang up at once; a write must fail, not kill the probe. */
	signal(SIGPIPE, SIG_IGN);
	(void)!write(STDOUT_FILENO, msg, sizeof msg - 1);
}

/* strerrorname_np() needs glibc 2.32; Debian 12 has 2.36. */
static inline const char *probe_errname(int err)
{
	const char *name = strerrorname_np(err);
	return name ? name : "E?";
}

static inline void probe_ok(const char *name, long value)
{
	dprintf(STDOUT_FILENO, "RESULT %s ok %ld\n", name, value);
}

static inline void probe_fail(const char *name, int err)
{
	dprintf(STDOUT_FILENO, "RESULT %s fail %s\n", name, probe_errname(err));
}

/* Report rc (>= 0: ok) or the saved errno. */
static inline void probe_report(const char *name, long rc, int err)
{
	if (rc >= 0)
		probe_ok(name, rc);
	else
		probe_fail(name, err);
}

/* Evaluate a call, then read errno (never in the same argument list). */
#define PROBE_TRY(name, call)                        \
	do {                                         \
		long probe_rc_ = (long)(call);       \
		int probe_err_ = errno;              \
		probe_report((name), probe_rc_, probe_err_); \
	} while (0)

/*
 * Run fn in a forked child so that a seccomp kill (SIGSYS) or a crash ends
 * only this attempt. The child reports through probe_report(); a death by
 * signal is reported here.
 */
static inline void probe_isolated(const char *name, void (*fn)(const char *))
{
	pid_t pid = fork();
	if (pid < 0) {
		probe_fail(name, errno);
		return;
	}
	if (pid == 0) {
		fn(name);
		_exit(0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		dprintf(STDOUT_FILENO, "RESULT %s killed %s\n", name,
			sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
}

#endif
