/* sandbox/why.h: `--why` inside the sandbox: the filter that stops the calls
 * the sandbox can refuse, and init's wait until the tracer holds it.
 *
 * ARCHITECTURE: the supervisor's tracer (supervisor/why.h) reads what these
 * stops show; nothing here decides or records anything.
 */
#ifndef PORTA_SANDBOX_WHY_H
#define PORTA_SANDBOX_WHY_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/plan.h"

/* In the payload, after no_new_privs and Landlock, before porta's own
 * seccomp program: installs the tracing filter.  Without a tracer attached a
 * SECCOMP_RET_TRACE call fails with ENOSYS, so only call it when the
 * supervisor seized init.  Async-signal-safe, no allocation.  0 or -errno. */
int sandbox_why_payload_install(void);

/* In init, before it forks the payload: waits until the supervisor opened
 * the gate (one byte on gate_fd, which it closes).  0, or -EPIPE when the
 * supervisor closed it without a byte (it could not trace: the run ends). */
int sandbox_why_init_wait(int gate_fd);

#endif /* PORTA_SANDBOX_WHY_H */
