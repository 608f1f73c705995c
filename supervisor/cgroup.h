/* supervisor/cgroup.h: the cgroups porta makes for --max-memory-mb and, for
 * root, --max-procs: created before clone where host/cgroup.h found room,
 * joined by init through the cgroup.procs fds opened here, reported on and
 * removed once init is reaped.
 */
#ifndef PORTA_SUPERVISOR_CGROUP_H
#define PORTA_SUPERVISOR_CGROUP_H

#include <stddef.h>

#include "common/error.h"
#include "policy/options.h"

struct supervisor_cgroup;

/* Creates the cgroups o needs (nothing, *out = NULL, when it needs none),
 * writes the limits and opens their cgroup.procs for init.  0 with *out
 * (caller owns, supervisor_cgroup_finish) or -errno with e filled and nothing
 * left behind. */
int supervisor_cgroup_create(const struct policy_options *o, struct supervisor_cgroup **out,
			  struct porta_error *e);

/* The cgroup.procs fds init joins through (sandbox_cgroup_join()), at most
 * cap, written to fds; returns how many.  cg may be NULL (none).  The fds
 * stay cg's: the supervisor closes its copies in supervisor_cgroup_finish(). */
size_t supervisor_cgroup_procs_fds(const struct supervisor_cgroup *cg, int *fds, size_t cap);

/* A host without user namespaces (sandbox/degraded.h) has no init in the
 * cgroup: pids.max becomes exactly --max-procs.  Before the payload is
 * forked.  0 or -errno (e filled); cg may be NULL. */
int supervisor_cgroup_without_init(struct supervisor_cgroup *cg, struct porta_error *e);

/* After init has been reaped: says on stderr when a ceiling was reached
 * (the OOM killer ran, forks were refused), removes the cgroups (retrying a
 * short, bounded while on EBUSY; a warning names any that stays) and frees
 * cg.  NULL is a no-op. */
void supervisor_cgroup_finish(struct supervisor_cgroup *cg);

#endif /* PORTA_SUPERVISOR_CGROUP_H */
