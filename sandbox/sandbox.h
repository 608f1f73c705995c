/* sandbox/sandbox.h: the sandbox's own side of porta: what init and the
 * payload do, and the sandboxing syscalls the supervisor prepares for them.
 *
 * ARCHITECTURE (docs/design.md, Processes and Set-up order): the supervisor
 * (supervisor/) clones and calls sandbox_child_main() (sandbox/child.h) in
 * the child; init maps its ids, makes / private, brings lo up (policy mode:
 * listeners, sandbox/netinit.h), performs the plan's mount steps
 * (sandbox/internal.h: sandbox_mounts_apply()), forks the payload, reaps it
 * and reports; the payload drops capabilities, sets no_new_privs, restricts
 * itself with Landlock and seccomp (sandbox/seccomp.h) and executes the
 * command.  They speak to the supervisor over the control channel
 * (sandbox/control.h).  This module makes sandboxing syscalls and nothing
 * else: it links neither the proxy (netproxy/) nor the DNS responder (dns/).
 */
#ifndef PORTA_SANDBOX_SANDBOX_H
#define PORTA_SANDBOX_SANDBOX_H

#include <stdbool.h>

/* True when porta runs as uid 0 of the host: euid 0 in a user namespace
 * whose uid 0 is the parent's uid 0 (the initial namespace, or one made by
 * root).  uid 0 of a namespace an unprivileged user made (`unshare -r`) owns
 * nothing of the host and is not "root" here. */
bool sandbox_euid_is_host_root(void);

/* The Landlock ABI the kernel offers (0 when none). */
int sandbox_landlock_abi(void);

#endif /* PORTA_SANDBOX_SANDBOX_H */
