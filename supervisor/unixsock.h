/* supervisor/unixsock.h: the command's Unix-socket calls, made by porta on
 * its behalf after the rule (policy/unixrule.h) allowed them.
 *
 * ARCHITECTURE (docs/design.md, Unix sockets): every connect(2), sendto(2)
 * with a destination, sendmsg(2) and sendmmsg(2) of the command stops in
 * the connect watch (supervisor/watch.c).  When the caller's socket is a
 * Unix one (its domain, read through the copy pidfd_getfd(2) gives, not the
 * address: another thread can rewrite the address after porta read it), the
 * call is never let go on to the kernel, which would read the address
 * again.  porta resolves the path the way the kernel would (in the
 * caller's root and working directory: openat2(2) RESOLVE_IN_ROOT through
 * /proc/TID/root), decides on the socket it found, and makes the call
 * itself through the copy, naming the socket by the descriptor it resolved
 * (/proc/self/fd/N): what was checked is what is reached.  The answer is
 * that call's result.  Abstract names are made on behalf as well; where the
 * command shares the host's network namespace (the network open, or a
 * degraded host) an abstract name is reached only when a process of the
 * sandbox holds the socket, as Landlock's scope would have it.
 *
 * Blocking: porta's own call never blocks its loop.  A call the caller made
 * blocking that would wait (a full backlog, a full receive queue) is made
 * by a thread of its own, which answers when the kernel returns.
 */
#ifndef PORTA_SUPERVISOR_UNIXSOCK_H
#define PORTA_SUPERVISOR_UNIXSOCK_H

#include <limits.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/plan.h"
#include "policy/unixrule.h"

struct supervisor_unix;

/* The run's Unix-socket rules: the plan (not owned), whether the run is
 * degraded (no mount namespace: Landlock's write grants say what is
 * writable) and whether it shares the host's network namespace.  NULL on
 * ENOMEM. */
struct supervisor_unix *supervisor_unix_create(const struct policy_plan *plan, bool degraded,
					       bool shared_netns, const char *xdg_runtime_dir);
void supervisor_unix_destroy(struct supervisor_unix *ux);
/* The sandbox's init, whose /proc says which processes are the sandbox's. */
void supervisor_unix_set_init(struct supervisor_unix *ux, pid_t init);

/* What became of one call. */
struct supervisor_unix_result {
	bool unix_socket; /* the caller's socket is a Unix one (the rule applies) */
	bool stream;     /* a stream socket: a short send is finished by a thread */
	int domain;      /* the socket's family and protocol (SO_DOMAIN, SO_PROTOCOL) */
	int protocol;
	bool looked;     /* a name was resolved and decided (path/verdict set) */
	bool withheld;   /* a socket was there and the rule refused it */
	enum policy_unix_verdict verdict;
	char path[PATH_MAX]; /* the socket's path as the sandbox sees it ("@name"
			      * for an abstract one), program-controlled */
	int result;      /* the call's return: >= 0, or -errno */
	bool deferred;   /* a thread makes the call and answers */
};

/* Makes the notified call (d: the notification's data; pid: the caller's
 * process; copy: the caller's socket through pidfd_getfd(2), a Unix one
 * when unix_socket, when only the Unix rule's names are decided here;
 * pidfd: a pidfd of the caller's process, for the descriptors sendmsg(2)
 * passes) on its behalf.  When res->deferred is false the caller sends
 * res->result as the answer; when true, a thread took dup()s of what it
 * needs and answers itself.  Never blocks. */
void supervisor_unix_call(struct supervisor_unix *ux, int listener_fd, uint64_t id,
			  const struct seccomp_data *d, pid_t tid, int pidfd, int copy,
			  bool unix_socket, struct supervisor_unix_result *res);

/* Whether the run is degraded (ux's). */
bool supervisor_unix_degraded(const struct supervisor_unix *ux);

/* Where porta may not copy the caller's socket (pidfd_getfd(2) refused: a
 * container's profile without CAP_SYS_PTRACE): whether descriptor fd of
 * tid is a Unix socket, by its inode in /proc/TID/net/unix.  A socket
 * porta cannot place counts as one. */
bool supervisor_unix_fd_is_unix(pid_t tid, int fd);

#endif /* PORTA_SUPERVISOR_UNIXSOCK_H */
