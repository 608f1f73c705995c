/* policy/degrade.h: the plan on a host that refuses user namespaces (pure).
 *
 * ARCHITECTURE (docs/design.md, Degraded hosts): without a user namespace porta
 * cannot mount, so nothing is hidden, pinned or replaced by a mount; Landlock
 * and seccomp are what is left.  These functions turn a plan made for the
 * full sandbox into what Landlock alone can say, decide whether that is
 * still the run the user asked for (a rule that cannot be enforced refuses
 * the run, never a silent weakening), and name each protection that is lost
 * so porta can print one line for it.  sandbox/degraded.c executes the
 * result; nothing here looks at the filesystem except through the caller's
 * directory lister.
 *
 * Landlock can only grant, never subtract: "read everything but ~/.ssh" is
 * said by granting every sibling on the way down to each closed path
 * (policy_degrade_rules()), and the parents on that way get only the right
 * to list (so the names inside a closed directory can be listed, their
 * contents cannot be read).  A closed path beneath a writable grant cannot be
 * carved (write rights on a directory cover everything beneath it), so such
 * a run is refused.
 */
#ifndef PORTA_POLICY_DEGRADE_H
#define PORTA_POLICY_DEGRADE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"

/* Why a plan cannot run degraded: writes one sentence naming the cause and
 * the way out into why[cap] and returns true; false when it can run.
 * procs_in_cgroup: --max-procs is held by a pids cgroup (porta runs as root
 * and made one), not by RLIMIT_NPROC.
 * Refused: transparent network rules (--allow-net, --deny-net: no network
 * namespace to hold them; --proxy-allow is the way), a closed path (a
 * credential, --deny-read, the strict home) inside a writable grant, a
 * read-only mount inside a writable one, --max-procs without a pids cgroup
 * (RLIMIT_NPROC would count the user's other processes).  Pure. */
bool policy_degrade_refusal(const struct policy_plan *plan, bool procs_in_cgroup, char *why,
			    size_t cap);

/* Calls emit once per protection the full sandbox gives this plan and the
 * degraded one cannot (one sentence each, without "porta: "), in a fixed
 * order; private_tmp is the directory that stands in for /tmp (or NULL with
 * --share-tmp).  no_caps: NULL where user namespaces are refused outright;
 * else the step init was refused inside one (Ubuntu's AppArmor restriction,
 * a container's /proc), which the first sentence names.  Pure. */
void policy_degrade_losses(const struct policy_plan *plan, const char *private_tmp,
			   const char *no_caps, void (*emit)(const char *line, void *arg),
			   void *arg);

/* One directory entry as the lister reports it. */
struct policy_dirent {
	const char *name;
	bool is_dir;
	bool is_symlink; /* never granted: access through it is judged at its target */
};

/* Lists dir: calls each(ctx, &entry) for every entry but "." and "..";
 * returns 0, or -errno (an unreadable directory is then simply not
 * granted beyond listing). */
typedef int (*policy_lister)(void *arg, const char *dir,
			     void (*each)(void *ctx, const struct policy_dirent *e), void *ctx);

/* The degraded Landlock rules for plan: every rule of the plan, with
 *  - the read grants carved around the closed paths (the plan's covers, the
 *    host's /dev but for its granted devices, /tmp but for private_tmp, and
 *    /dev/shm),
 *  - /tmp's grant moved to private_tmp (unless --share-tmp: private_tmp NULL),
 *  - /dev/shm, /dev/pts and /dev/ptmx dropped (shared with the host),
 *  - the read grant on a covered directory (the strict home) dropped.
 * Stores a new array (caller frees each path, then the array) in *out and
 * its length in *n.  Returns 0, -ENOMEM, -ENAMETOOLONG, or -E2BIG (more than
 * 256 closed paths).  Pure but for the
 * lister. */
int policy_degrade_rules(const struct policy_plan *plan, const char *private_tmp,
			 policy_lister list, void *list_arg, struct policy_rule **out, size_t *n);

/* Frees what policy_degrade_rules() returned. */
void policy_degrade_rules_free(struct policy_rule *rules, size_t n);

#endif /* PORTA_POLICY_DEGRADE_H */
