/* sandbox/seccomp.h: installing porta's prebuilt seccomp filter.
 *
 * ARCHITECTURE: the filter is compiled from policy/seccomp_table.c by
 * tools/gen_seccomp at build time (with libseccomp, on the build host) into a
 * generated C file that is part of porta_sandbox; it defines
 * sandbox_seccomp_prog() below.  At run time nothing is compiled: the payload
 * hands the ready program to seccomp(2), which costs microseconds where
 * libseccomp in the child cost ~1.2 ms (docs/design.md, Performance).  porta_sandbox
 * therefore needs no libseccomp at run time.  The program is x86_64's and
 * kills the process on any other architecture, x32 included.
 */
#ifndef PORTA_SANDBOX_SECCOMP_H
#define PORTA_SANDBOX_SECCOMP_H

#include <stddef.h>
#include <linux/filter.h>

#include "policy/seccomp_table.h"

/* Stores the generated BPF program of variant v in *insns (static storage,
 * never freed, read-only) and its instruction count in *len.  Returns 0, or
 * -EINVAL when v is not a variant.  Defined in the generated seccomp_bpf.c.
 * Any thread; no side effects. */
int sandbox_seccomp_prog(enum policy_seccomp_variant v, const struct sock_filter **insns,
			 size_t *len);

/* Instruction count of variant v's program (for `porta explain`), 0 when v
 * is not a variant.  Any thread; no side effects. */
size_t sandbox_seccomp_prog_len(enum policy_seccomp_variant v);

/* Installs variant v's program on the calling thread with
 * seccomp(SECCOMP_SET_MODE_FILTER, 0, ...), see seccomp(2).  The caller must
 * already have set PR_SET_NO_NEW_PRIVS (otherwise the kernel answers EACCES
 * unless the caller has CAP_SYS_ADMIN).  Meant for the payload child between
 * clone and execve: it does not allocate or log and is async-signal-safe.
 * Returns 0 or -errno (-EINVAL for a bad variant or for one that notifies,
 * which needs sandbox_seccomp_install_listener(); -EACCES, -EFAULT, -ENOMEM
 * as seccomp(2) reports them).  The filter is inherited across fork and
 * execve and cannot be removed. */
int sandbox_seccomp_install(enum policy_seccomp_variant v);

/* Installs variant v's program like sandbox_seccomp_install(), for a variant
 * with notifying rows (policy_seccomp_variant_notifies()), with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, and stores the notification listener in
 * *listener_fd (O_CLOEXEC, set by the kernel; the caller owns it).  Asks for
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV too (Linux 5.19): once the
 * supervisor has received a notification, only a fatal signal interrupts the
 * waiting call, so a runtime that signals its threads constantly (Go's
 * preemption, SIGURG) does not restart its connect() forever; an older kernel
 * answers EINVAL to the flag and the filter is installed without it.
 *
 * The payload hands the listener to the supervisor (sandbox_fdpass_send())
 * and lets execve close its own copy.  Until the listener and every
 * duplicate of it are closed, a notified call waits for an answer; once they
 * are, every notified call fails with ENOSYS (seccomp_unotify(2)).
 * Same context rules as sandbox_seccomp_install(): no_new_privs first,
 * async-signal-safe, no allocation or logging.  Returns 0 or -errno: -EINVAL
 * for a bad variant, one that does not notify, or a NULL listener_fd; -EBUSY
 * when the thread already runs under a filter with a listener (porta itself
 * under another supervisor such as a container runtime's: only one listener
 * per thread), in which case the caller may install POLICY_SECCOMP_BASE and
 * lose only the observation, never the enforcement; else seccomp(2)'s errno.
 * *listener_fd is untouched on failure. */
int sandbox_seccomp_install_listener(enum policy_seccomp_variant v, int *listener_fd);

#endif /* PORTA_SANDBOX_SECCOMP_H */
