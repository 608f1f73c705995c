/* supervisor/guard.h: the protected names no mount can hold, watched while the
 * command runs.
 *
 * ARCHITECTURE: a protected name that exists is a read-only bind, and every
 * directory above it inside a writable mount is pinned (host/resolve.c).
 * Two kinds are left that no mount can keep: a protected name that does not
 * exist when porta starts (a mount needs a path), and a symbolic link (a bind
 * follows it).  The kernel offers no way to refuse the creation of one name
 * in a directory where others may be created: Landlock's rules are per
 * hierarchy, and a mount needs an existing path.  So the supervisor reacts
 * instead: an inotify watch on the deepest existing directory above each
 * such name (pinned, so the watch stays on that path) and on every
 * directory created on the way down to it; when a creation, rename or
 * removal there touches a name on the way, every guarded name is checked
 * again, component by component without following links.  A protected name
 * that appeared (or a link that changed, or a link in its way) is renamed
 * aside in its own directory (policy_path_aside_name(), bytes kept), a
 * changed link is put back, and the caller stops the run.  What remains is
 * the window between the creation and the rename (docs/threat-model.md).
 *
 * One owner: the supervisor creates the guard before clone (so that nothing
 * the command does goes unwatched), polls its fd from the event loop, checks
 * once more after the sandbox's last process is gone, and destroys it.
 */
#ifndef PORTA_SUPERVISOR_GUARD_H
#define PORTA_SUPERVISOR_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"
#include "common/error.h"

struct supervisor_guard;

/* Watches plan's absent protected names and protected links that lie inside
 * writable mounts (policy_plan_in_writable_mount()).  Sets *out to the new
 * guard (caller owns; supervisor_guard_destroy), or to NULL when there is
 * nothing to watch.  Returns 0, or -errno when porta cannot watch them (the
 * caller refuses the run: nothing is weakened silently); e then names why. */
int supervisor_guard_create(const struct policy_plan *plan, struct supervisor_guard **out,
			 struct porta_error *e);

/* The inotify fd to poll for reading (owned by the guard). */
int supervisor_guard_fd(const struct supervisor_guard *g);

/* Reads what is pending on the fd and, when it touches a guarded name (or
 * the queue overflowed, or always when recheck is set), checks every guarded
 * name again; a violation is moved aside and said on stderr at once.
 * Returns how many new violations were found, or -errno when the guard can
 * no longer watch (too many directories, the kernel's inotify limits): the
 * caller stops the run either way.  Supervisor's loop only. */
int supervisor_guard_check(struct supervisor_guard *g, bool recheck);

/* How many violations the guard has found so far. */
size_t supervisor_guard_violations(const struct supervisor_guard *g);

/* Closes the fd and frees everything.  destroy(NULL) is a no-op. */
void supervisor_guard_destroy(struct supervisor_guard *g);

#endif /* PORTA_SUPERVISOR_GUARD_H */
