/* host/cgroup.h: what the host offers for the cgroups behind the ceilings:
 * --max-memory-mb (a memory cgroup), --max-cpu (CPU accounting) and, for
 * root, --max-procs (a pids cgroup).
 *
 * ARCHITECTURE: the supervisor decides before clone where a cgroup can be
 * made for the controllers the options need (cgroup v2 first, the v1
 * hierarchy of that controller where v2 lacks it), creates porta-<pid>-<random>
 * below porta's own cgroup in each hierarchy it uses, writes the limits and
 * opens each new cgroup's cgroup.procs.  init, as its very first step,
 * writes "0" to those inherited fds: the kernel checks the credentials of
 * whoever OPENED the file (v1 __cgroup1_procs_write() and v2
 * cgroup_procs_write_permission() use of->file->f_cred), so init joins
 * without a handshake and before it forks anything, and everything the
 * command starts is born inside.  Once init is reaped, the supervisor
 * reports a ceiling that was hit and removes the cgroups.
 *
 * The parsers and the choice are pure: they take the text of
 * /proc/self/mountinfo and /proc/self/cgroup lines and the facts gathered
 * from the host, and neither allocate nor log.  host_cg_gather() reads the
 * host; supervisor/cgroup.h makes and removes the cgroups.
 */
#ifndef PORTA_HOST_CGROUP_H
#define PORTA_HOST_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/options.h"

#define HOST_CG_PATH_MAX 1024
#define HOST_CG_LIST_MAX 256

/* HOST_CG_CPU is the run's CPU time for --max-cpu: cgroup v2's cpu.stat,
 * which every v2 cgroup has whatever its controllers (the core's own
 * accounting), or the v1 cpuacct controller's cpuacct.usage. */
enum host_cg_ctrl { HOST_CG_MEMORY, HOST_CG_PIDS, HOST_CG_CPU, HOST_CG_NCTRL };

/* "memory", "pids", "cpuacct" (the v1 name). */
const char *host_cg_ctrl_name(enum host_cg_ctrl c);

/* ---- pure ---- */

enum host_cg_mount_kind {
	HOST_CG_MOUNT_OTHER,     /* not a cgroup file system */
	HOST_CG_MOUNT_V1,        /* "cgroup": has[] says which controllers */
	HOST_CG_MOUNT_V2,        /* "cgroup2" */
	HOST_CG_MOUNT_MALFORMED, /* not a mountinfo line, or a path too long */
};

struct host_cg_mount {
	char root[HOST_CG_PATH_MAX]; /* the hierarchy's directory mounted here */
	char dir[HOST_CG_PATH_MAX];  /* the mount point */
	bool has[HOST_CG_NCTRL];     /* v1: controllers bound to the hierarchy */
};

/* Parses one line of /proc/self/mountinfo (proc(5): "ID PARENT MAJ:MIN ROOT
 * MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS"), without its
 * newline, unescaping the octal escapes (\040) of ROOT and MOUNTPOINT. */
enum host_cg_mount_kind host_cg_parse_mountinfo(const char *line, size_t len,
						      struct host_cg_mount *m);

enum host_cg_member_kind {
	HOST_CG_MEMBER_V1,        /* has[] says which controllers (may be none: name=...) */
	HOST_CG_MEMBER_V2,        /* "0::PATH" */
	HOST_CG_MEMBER_MALFORMED,
};

struct host_cg_member {
	bool has[HOST_CG_NCTRL];
	char path[HOST_CG_PATH_MAX];
};

/* Parses one line of /proc/self/cgroup ("ID:CONTROLLERS:PATH", cgroups(7)). */
enum host_cg_member_kind host_cg_parse_member(const char *line, size_t len,
						    struct host_cg_member *m);

/* The directory of cgroup cg_path in a hierarchy whose directory mount_root
 * is mounted at mount_dir, into out[cap].  False when cg_path lies outside
 * mount_root (not reachable through this mount), has a ".." component, or
 * does not fit. */
bool host_cg_dir(const char *mount_dir, const char *mount_root, const char *cg_path,
		    char *out, size_t cap);

/* True when word is one of the space-separated words of list (the format of
 * cgroup.controllers and cgroup.subtree_control). */
bool host_cg_list_has(const char *list, const char *word);

/* The value of "KEY N" among the lines of text[0..len) (memory.events,
 * memory.oom_control, pids.events); false when the key is absent. */
bool host_cg_counter(const char *text, size_t len, const char *key, uint64_t *out);

/* What the host offers, gathered by host_cg_gather(). */
struct host_cg_facts {
	unsigned uid;                   /* porta's euid, for the messages */
	bool v2_mounted;
	char v2_mount[HOST_CG_PATH_MAX];
	char v2_dir[HOST_CG_PATH_MAX]; /* porta's own v2 cgroup; "" when not reachable */
	bool v2_is_root;                 /* porta's own v2 cgroup is the hierarchy's root */
	bool v2_writable;
	char v2_controllers[HOST_CG_LIST_MAX]; /* of porta's own cgroup */
	char v2_subtree[HOST_CG_LIST_MAX];
	struct {
		bool mounted;
		char mount[HOST_CG_PATH_MAX];
		char dir[HOST_CG_PATH_MAX]; /* porta's own cgroup; "" when not reachable */
		bool writable;
	} v1[HOST_CG_NCTRL];
};

/* Where each needed controller's cgroup goes: below parent[c] in cgroup
 * version[c] (0 when not needed); enable[c] when v2 must first get
 * "+controller" in parent's cgroup.subtree_control. */
struct host_cg_choice {
	int version[HOST_CG_NCTRL];
	char parent[HOST_CG_NCTRL][HOST_CG_PATH_MAX];
	bool enable[HOST_CG_NCTRL];
};

enum host_cg_verdict { HOST_CG_OK, HOST_CG_UNAVAILABLE };

/* Chooses, for each controller whose bit (1 << ctrl) is in need, cgroup v2
 * when porta can create a child of its own v2 cgroup with it, else the v1
 * hierarchy of that controller when porta's cgroup there is writable.  On
 * HOST_CG_UNAVAILABLE, why[cap] says, for the first controller that has
 * neither, what each version lacks (no "porta: " prefix, no option name). */
enum host_cg_verdict host_cg_choose(const struct host_cg_facts *f, unsigned need,
					  struct host_cg_choice *c, enum host_cg_ctrl *failed,
					  char *why, size_t cap);

/* ---- effects (supervisor, before clone, unless said otherwise) ---- */

/* Fills *f from /proc/self/mountinfo, /proc/self/cgroup and the cgroup
 * files; 0 or -errno when /proc cannot be read. */
int host_cg_gather(struct host_cg_facts *f);

/* The controllers o cannot do without: pids for --max-procs when porta runs
 * as root (the kernel exempts uid 0 from RLIMIT_NPROC; other users keep
 * RLIMIT_NPROC alone).  A run that needs one the host cannot give is
 * refused. */
unsigned host_cg_needed(const struct policy_options *o);

/* The controllers o uses where the host gives them: memory for
 * --max-memory-mb, CPU accounting for --max-cpu.  Where it does not, porta
 * counts the run's processes itself (supervisor/ceiling.h). */
unsigned host_cg_wanted(const struct policy_options *o);

/* Chooses, like host_cg_choose(), each controller of want that the host
 * offers, and returns their bits; c holds the choice for those.  Pure. */
unsigned host_cg_choose_each(const struct host_cg_facts *f, unsigned want,
			     struct host_cg_choice *c);

/* The refusal for the controller that has no cgroup, as one sentence naming
 * the option (why: what host_cg_choose() said each version lacks). */
void host_cg_refusal(enum host_cg_ctrl failed, const char *why, char *out, size_t cap);

#endif /* PORTA_HOST_CGROUP_H */
