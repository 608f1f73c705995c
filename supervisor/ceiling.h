/* supervisor/ceiling.h: the ceilings porta counts for the whole run:
 * --max-cpu always, --max-memory-mb where no memory cgroup holds it.
 *
 * ARCHITECTURE (docs/design.md, Ceilings): a timer on the supervisor's
 * event loop reads what the run's processes used together and, once it
 * passes the ceiling, says so and calls back, and the supervisor ends the
 * whole run as --timeout does (killing init takes the PID namespace with
 * it; degraded, the command and then everything it left).  What it reads:
 *   - CPU: the cgroup's accounting where supervisor/cgroup.h made one
 *     (cgroup v2 cpu.stat usage_usec, v1 cpuacct.usage), else porta's own:
 *     the sum over every live or zombie process of the run of utime, stime,
 *     cutime and cstime (/proc/PID/stat).  A dead process's time was added
 *     to exactly one reaper's cutime and cstime when it was reaped, so each
 *     CPU second is counted once.  The run's processes are those of init's
 *     PID namespace (/proc/PID/ns/pid is init's); degraded, where porta is
 *     the child subreaper, porta's reaped children (getrusage
 *     RUSAGE_CHILDREN, less what it held before the run) and its live
 *     descendants.
 *   - memory, polled: the sum of RssAnon and RssShmem (/proc/PID/status)
 *     of the same processes, and the bytes in the sandbox's private /tmp
 *     and /dev/shm (tmpfs, statfs(2) through /proc/INIT/root).
 * The interval: CPU cannot pass the budget sooner than the budget left
 * divided by the CPUs online, so the timer sleeps that long while it is
 * far; near it, at most a tenth of the budget spread over the CPUs or
 * 250 ms, whichever is less (never under 10 ms), which bounds the
 * overshoot.  Memory is read every SUPERVISOR_CEILING_MEMORY_MS.  None of
 * this exists, and nothing runs, without --max-cpu or a polled
 * --max-memory-mb.  One thread: the event loop's.
 */
#ifndef PORTA_SUPERVISOR_CEILING_H
#define PORTA_SUPERVISOR_CEILING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/error.h"
#include "policy/plan.h"
#include "supervisor/cgroup.h"

struct event_base;
struct supervisor_ceiling;

/* How often a polled --max-memory-mb is read. */
#define SUPERVISOR_CEILING_MEMORY_MS 100

/* Before clone: the ceilings of plan porta counts (--max-cpu; --max-memory-mb
 * when cg holds no memory controller), reading cg's CPU accounting when it
 * has one.  *out = NULL when there is none to count.  Opens nothing (init
 * inherits no descriptor of it).  0, or -ENOMEM with e filled.  cg is
 * borrowed and must outlive the ceiling. */
int supervisor_ceiling_create(const struct policy_plan *plan, struct supervisor_cgroup *cg,
			      struct supervisor_ceiling **out, struct porta_error *e);

/* After clone: opens /proc and starts the timer on base.  pid: init, or
 * degraded the payload (porta's own child).  stop(arg) is called once, from
 * the loop, when a ceiling is passed, after the line saying which.  Where
 * porta cannot read /proc, says so in one line: --max-cpu is then each
 * process's RLIMIT_CPU alone, and a polled --max-memory-mb fails the run
 * (-errno).  0 or -errno.  NULL c: nothing, 0. */
int supervisor_ceiling_start(struct supervisor_ceiling *c, struct event_base *base, pid_t pid,
			     bool degraded, void (*stop)(void *arg), void *arg);

/* Whether a ceiling was passed (stop was called).  NULL: false. */
bool supervisor_ceiling_reached(const struct supervisor_ceiling *c);

/* Stops the timer, frees.  NULL: nothing. */
void supervisor_ceiling_destroy(struct supervisor_ceiling *c);

/* `porta explain`: a note on plan for each ceiling (CPU, memory, processes)
 * saying what a run here would count and how, from what host/cgroup.h
 * finds (nothing is made).  degraded: the run would have no user
 * namespace. */
void supervisor_ceilings_explain(struct policy_plan *plan, bool degraded);

/* `porta check`: host_check()'s report with what a run here would count the
 * ceilings with (text: lines before the verdict; JSON: a "ceilings"
 * object).  Returns host_check()'s status. */
int supervisor_check(FILE *out, bool json);

/* ---- pure parts ---- */

/* From /proc/PID/stat's text buf[0..n): utime + stime + cutime + cstime
 * (fields 14 to 17, proc(5)), in clock ticks, into *ticks.  The command name
 * (field 2) may hold spaces and parentheses: fields are counted after its
 * last ')'.  False when the text is not such a line, or is cut short before
 * the space after field 17. */
bool supervisor_ceiling_stat_ticks(const char *buf, size_t n, uint64_t *ticks);

/* From /proc/PID/status's text buf[0..n): RssAnon + RssShmem in KiB into
 * *kib (0 for a zombie, which has neither).  False when a line present is
 * malformed. */
bool supervisor_ceiling_status_kib(const char *buf, size_t n, uint64_t *kib);

/* The next check of a CPU budget of budget_us with used_us used so far, on
 * ncpu CPUs, in microseconds (see ARCHITECTURE). */
uint64_t supervisor_ceiling_cpu_interval_us(uint64_t budget_us, uint64_t used_us, unsigned ncpu);

#endif /* PORTA_SUPERVISOR_CEILING_H */
