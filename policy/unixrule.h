/* policy/unixrule.h: whether the command may reach one pathname Unix
 * socket, decided when it connects (or sends a datagram), by rule.
 *
 * A socket a host program binds after porta started can appear anywhere the
 * command can see; a list of directories closed at start cannot follow it.
 * So the supervisor resolves every connect(2), sendto(2) and sendmsg(2) to a
 * path the way the kernel would, in the sandbox's own root, and asks here
 * (supervisor/unixsock.c).  The rule needs no list of places: a socket is
 * reachable when --allow-unix names it, or it lies on a mount the command
 * may write (a -v mount, a cache, the private /tmp: it could have bound it
 * there itself) and is no credential socket (the preset's expressions,
 * --deny-unix, $SSH_AUTH_SOCK), or it is one of the few kept sockets; never
 * when it lies in a porta runtime directory.  Pure. */
#ifndef PORTA_POLICY_UNIXRULE_H
#define PORTA_POLICY_UNIXRULE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"

enum policy_unix_verdict {
	POLICY_UNIX_GRANTED_WRITABLE, /* on a writable mount of the sandbox */
	POLICY_UNIX_GRANTED_ALLOWED,  /* --allow-unix names it (by path, now) */
	POLICY_UNIX_GRANTED_KEPT,     /* a kept socket (policy_kept_sockets()) */
	POLICY_UNIX_REFUSED_RUNTIME,  /* inside a porta runtime directory */
	POLICY_UNIX_REFUSED_CREDENTIAL, /* a credential socket's name */
	POLICY_UNIX_REFUSED,          /* none of the above: not granted */
};

static inline bool policy_unix_granted(enum policy_unix_verdict v)
{
	return v <= POLICY_UNIX_GRANTED_KEPT;
}

/* What the supervisor found at the path. */
struct policy_unix_query {
	const char *path;    /* the socket's canonical path, as the sandbox sees it */
	bool writable_mount; /* the mount holding it is writable in the sandbox
			      * (full mode: the mount's flags; degraded mode: a
			      * path the plan grants write to) */
	bool credential;     /* its name matches a credential expression (the
			      * preset's or --deny-unix: the caller matches) */
	char *const *allowed; /* --allow-unix, each absolute and canonical */
	size_t n_allowed;
};

/* The porta runtime directories: $XDG_RUNTIME_DIR/porta (when set) and
 * /run/user/<any uid>/porta; the control sockets of every run live there,
 * and no command is ever connected to one on its behalf.  True when path
 * lies at or under one.  Pure. */
bool policy_unix_in_porta_runtime(const char *path, const char *xdg_runtime_dir);

/* The verdict for one socket, under the plan: a porta runtime directory
 * refuses first; then --allow-unix (an entry equal to path: the user named
 * it); a credential name refuses; then the kept sockets, a writable mount;
 * else refused.  Pure. */
enum policy_unix_verdict policy_unix_decide(const struct policy_plan *plan,
					    const char *xdg_runtime_dir,
					    const struct policy_unix_query *q);

/* True when path is a socket porta keeps reachable (policy_kept_sockets())
 * under network mode mode.  Pure. */
bool policy_unix_kept(const char *path, enum policy_net_mode mode);

/* True when path is one of allowed[0..n).  Pure. */
bool policy_unix_allowed(const char *const *allowed, size_t n, const char *path);

/* True when a rule of the plan grants write at or above path (Landlock's
 * view: what a degraded run, with no mount of its own, may write).  Pure. */
bool policy_unix_plan_grants_write(const struct policy_plan *plan, const char *path);

/* One word for a verdict, for records: "writable-mount", "allow-unix",
 * "kept", "porta-runtime", "credential", "not-granted". */
const char *policy_unix_verdict_word(enum policy_unix_verdict v);

#endif /* PORTA_POLICY_UNIXRULE_H */
