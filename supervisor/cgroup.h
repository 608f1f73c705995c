/* supervisor/cgroup.h: the cgroups porta makes for the ceilings: for
 * --max-memory-mb and --max-cpu where the host gives them (elsewhere porta
 * counts for itself: supervisor/ceiling.h), for --max-procs as root (refused
 * where none can be made), and on a host without user namespaces for the
 * default process ceiling: created before the payload starts where
 * host/cgroup.h found room, joined by init (or the degraded payload)
 * through the cgroup.procs fds opened here, reported on and removed once
 * init is reaped.
 */
#ifndef PORTA_SUPERVISOR_CGROUP_H
#define PORTA_SUPERVISOR_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "host/cgroup.h"
#include "policy/options.h"

struct supervisor_cgroup;

/* Creates the cgroups o needs (host_cg_needed(): refused, -errno with e
 * filled, where the host has none) and those it wants where the host gives
 * them (host_cg_wanted(): left out where not), writes the limits and opens
 * their cgroup.procs for init.  *out = NULL when none was made.  0 with
 * *out (caller owns, supervisor_cgroup_finish) or -errno with e filled and
 * nothing left behind. */
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

/* A host without user namespaces, before the payload is forked: the
 * default process ceiling, max_procs tasks, through a pids cgroup where one
 * can be made (added to *cg, made when NULL).  1 when *cg holds pids, 0 when
 * no pids cgroup can be made here (nothing made), -errno with e filled. */
int supervisor_cgroup_add_pids(struct supervisor_cgroup **cg, uint64_t max_procs,
			       struct porta_error *e);

/* Whether cg holds controller c (false for NULL). */
bool supervisor_cgroup_holds(const struct supervisor_cgroup *cg, enum host_cg_ctrl c);

/* The directory holding c, or NULL. */
const char *supervisor_cgroup_dir(const struct supervisor_cgroup *cg, enum host_cg_ctrl c);

/* The CPU time of every process that was ever in cg (cpu.stat's usage_usec,
 * or cpuacct.usage), in microseconds: one pread(2) of a file opened at the
 * first call (after the clone, so that init inherits no descriptor of it).
 * 0, or -ENOENT when cg holds no CPU accounting, -errno.  Any time before
 * finish. */
int supervisor_cgroup_cpu_usec(struct supervisor_cgroup *cg, uint64_t *usec);

/* After init has been reaped: says on stderr when a ceiling was reached
 * (the OOM killer ran, forks were refused), removes the cgroups (retrying a
 * short, bounded while on EBUSY; a warning names any that stays) and frees
 * cg.  NULL is a no-op. */
void supervisor_cgroup_finish(struct supervisor_cgroup *cg);

#endif /* PORTA_SUPERVISOR_CGROUP_H */
