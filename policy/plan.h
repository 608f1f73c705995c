/* policy/plan.h: the sandbox plan — what run will do, resolved against the host.
 *
 * ARCHITECTURE: options (policy/options.h) say what the user asked for; the
 * plan says what that means on this host: absolute paths of every grant, the
 * ordered list of mount steps init performs, the environment, and the notes a
 * user should read.  host/resolve.c fills it (it looks at the host),
 * policy/explain.c renders it (pure), sandbox/ executes it.  The plan owns
 * every string in it; policy_plan_destroy() frees them.
 */
#ifndef PORTA_POLICY_PLAN_H
#define PORTA_POLICY_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/addr.h"
#include "policy/netrule.h"
#include "policy/caches.h"
#include "policy/options.h"
#include "policy/profile.h"
#include "policy/path_reason.h"

/* Path grants, in words; policy/landlock.h turns them into access masks. */
enum policy_grant {
	POLICY_GRANT_READ = 1 << 0,  /* read files, list directories, execute */
	POLICY_GRANT_WRITE = 1 << 1, /* create, write, remove, rename, truncate */
	POLICY_GRANT_DEV = 1 << 2,   /* read, write and ioctl on device files */
	POLICY_GRANT_LIST = 1 << 3,  /* list directories only (degraded hosts: the
				      * parents of a closed path, policy/degrade.h) */
};

struct policy_rule {
	char *path; /* absolute, symlinks resolved */
	unsigned grant;
	bool is_dir;
};

enum policy_mount_kind {
	POLICY_MOUNT_PROC,       /* a fresh procfs on /proc (the sandbox's PID namespace) */
	POLICY_MOUNT_TMPFS,      /* a private, writable tmpfs (/tmp, /dev/shm) */
	POLICY_MOUNT_DEVPTS,     /* a private devpts instance on /dev/pts, its ptmx on /dev/ptmx */
	POLICY_MOUNT_REBIND,     /* a -v path or a device under a private tmpfs, bound back at its own path */
	POLICY_MOUNT_PIN,        /* a read-write self-bind: the path can no longer be renamed away */
	POLICY_MOUNT_READONLY,   /* a read-only self-bind (protected names, /proc/sys, :ro mounts) */
	POLICY_MOUNT_COVER_DIR,  /* an empty read-only tmpfs over a closed directory */
	POLICY_MOUNT_COVER_FILE, /* /dev/null, read-only, over a closed file or socket */
};

struct policy_mount_step {
	enum policy_mount_kind kind;
	char *path;
	enum policy_path_reason reason; /* why the step is there: its words, and how
					 * explain, --why and the guard treat it */
	bool has_id; /* dev and ino: the host entry resolve mounted over */
	unsigned long long dev, ino;
};

/* A -v mount at or beneath a closed path: it reopens exactly itself. */
struct policy_reopen {
	char *path;   /* the -v path, real */
	char *closed; /* the closed path it lies at or beneath */
	enum policy_path_reason reason; /* the closure's: POLICY_PATH_CREDENTIAL or _DENY_READ */
};

/* A protected name (or a directory above one) that is a symbolic link inside
 * a writable mount: no mount can keep the link itself, so the run's guard
 * (supervisor/guard.h) watches that it stays this very link. */
struct policy_link {
	char *path;   /* the link, absolute */
	char *target; /* what it pointed to at start (readlink) */
	unsigned long long dev, ino; /* the link's own inode at start */
};

/* Nameservers made local under --no-net, at most (glibc reads 3, other
 * resolvers more). */
#define POLICY_MAX_RESOLVERS 8

enum policy_core_target {
	POLICY_CORE_FILES,   /* a file name: written where the crash is, Landlock judging */
	POLICY_CORE_PIPE,    /* '|': a helper of the host (systemd-coredump, apport) */
	POLICY_CORE_SOCKET,  /* '@' (Linux 6.16): a socket of the host */
	POLICY_CORE_UNKNOWN, /* the pattern could not be read: treated as both */
};

struct policy_plan {
	const struct policy_options *opts; /* not owned */
	const struct policy_sources *sources; /* not owned; NULL: no profile was used */
	int argc;                          /* porta's own command line (--why repeats it); */
	char *const *argv;                 /* not owned, outlives the plan */
	char *home;                        /* the user's home, absolute, or NULL */
	char *cwd;
	/* --read-policy home: the sandbox's ~/.gitconfig, the host's user.*
	 * values only (policy/gitconfig.h), which init writes into the cover
	 * of the home; NULL when there is none to write */
	char *home_gitconfig;
	/* the working directory's project shown read-only in the closed home
	 * (docs/defaults.md, "The home"), or NULL */
	char *home_project;
	/* --audit's file as resolved before the command starts: a real path
	 * (no link in it), which the supervisor opens without following one
	 * (common/safeopen.h); NULL without --audit */
	char *audit_real;

	struct policy_rule *rules;
	size_t n_rules;
	struct policy_mount_step *mounts;
	size_t n_mounts;
	char **absent_protected; /* protected names that do not exist, so cannot be covered:
				  * the guard watches those inside writable mounts */
	size_t n_absent_protected;
	struct policy_link *links; /* protected names, or their parents, that are symlinks */
	size_t n_links;
	struct policy_reopen *reopened; /* -v mounts that reopen a closed path */
	size_t n_reopened;
	/* porta's configuration directory (host/profiles.h), when a writable
	 * mount holds it or a directory or link on the way to it (escape corpus
	 * row 90): as named ($XDG_CONFIG_HOME or ~/.config, then porta) and as
	 * found, links followed; both NULL when no writable mount reaches it.
	 * config_absent: it does not exist yet, and `run` makes it (explain
	 * makes nothing). */
	char *config_named;
	char *config_real;
	bool config_absent;
	/* Where kernel.core_pattern sends a crash's dump (escape corpus row
	 * 62).  Anything but POLICY_CORE_FILES: the payload's RLIMIT_CORE is
	 * pinned at 1, the one limit the kernel honours for a pipe
	 * (POLICY_SECCOMP_CORE_PINNED keeps it), and its coredump_filter is 0,
	 * so that a socket, which ignores every limit, gets no memory
	 * (sandbox/process.c). */
	enum policy_core_target core_target;
	struct policy_cache_dir *caches; /* --caches: granted writable, created if absent */
	size_t n_caches;
	char **notes; /* things the user should know, one sentence each */
	size_t n_notes;
	char **warnings; /* what run says on stderr before it starts (explain: notes too) */
	size_t n_warnings;
	char **envp; /* NULL-terminated environment for the command */
	size_t n_env;

	/* Network policy mode (opts->net_mode == POLICY_NET_POLICY), else empty. */
	struct policy_net_rule *net_rules; /* compiled --allow/--deny/--proxy-* rules */
	size_t n_net_rules;
	uint16_t *listen_ports; /* one transparent listener each (policy_net_listen_ports) */
	size_t n_listen_ports;
	struct policy_addr *host_addrs; /* the host's own addresses: never dialled by name */
	size_t n_host_addrs;
	struct policy_addr dns_upstream; /* the resolver porta asks for allowed names */
	uint16_t dns_upstream_port;

	/* --no-net (opts->net_mode == POLICY_NET_NONE), else empty: the
	 * nameservers of the host's resolv.conf, which the sandbox reads too.
	 * Init makes each a local address of the empty namespace so that a
	 * lookup reaches porta's responder (sandbox/netinit.h). */
	struct policy_addr resolvers[POLICY_MAX_RESOLVERS];
	size_t n_resolvers;

	/* Set only in the copy a degraded payload gets (supervisor/run.c,
	 * fork_degraded()): it runs in the host's user namespace, where
	 * RLIMIT_NPROC counts the user's other processes too, so it sets
	 * none (sandbox/process.c); a pids cgroup holds the processes there. */
	bool host_user_ns;
};

/* The ports that need a transparent listener: those of every allow rule that
 * applies to every connection (proxy-only rules are reached through the
 * proxy), without 53 (the DNS responder's), sorted, each once.  Writes up to
 * cap into out and returns how many there are (more than cap: the caller
 * refuses the run).  Pure. */
size_t policy_net_listen_ports(const struct policy_net_rule *rules, size_t n_rules, uint16_t *out,
			       size_t cap);

/* Returns an empty plan for opts (which must outlive it), or NULL on ENOMEM. */
struct policy_plan *policy_plan_create(const struct policy_options *opts);

/* Frees the plan and everything it owns.  destroy(NULL) is a no-op. */
void policy_plan_destroy(struct policy_plan *plan);

/* Appenders: copy path/text; return 0 or -ENOMEM. */
int policy_plan_add_rule(struct policy_plan *plan, const char *path, unsigned grant,
			 bool is_dir);
int policy_plan_add_mount(struct policy_plan *plan, enum policy_mount_kind kind,
			  const char *path, enum policy_path_reason reason);
/* Records the identity of the entry the last added mount step lies over
 * (the guard watches that it stays the same, supervisor/guard.h). */
void policy_plan_set_last_mount_id(struct policy_plan *plan, unsigned long long dev,
				   unsigned long long ino);
int policy_plan_add_absent(struct policy_plan *plan, const char *path);
int policy_plan_add_link(struct policy_plan *plan, const char *path, const char *target,
			 unsigned long long dev, unsigned long long ino);
int policy_plan_add_reopen(struct policy_plan *plan, const char *path, const char *closed,
			   enum policy_path_reason reason);
int policy_plan_add_note(struct policy_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int policy_plan_add_warning(struct policy_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets (or replaces) NAME=VALUE in the command's environment. */
int policy_plan_setenv(struct policy_plan *plan, const char *name, size_t name_len,
		       const char *value, size_t value_len);

/* True when rule's path is replaced by a filesystem the sandbox mounts
 * (a fresh /proc, a private tmpfs, the private devpts and its ptmx, a
 * cover): its
 * Landlock rule must be added inside the sandbox after the mounts, because
 * Landlock never consults a rule on a mount point's hidden inode
 * (security/landlock/fs.c, is_access_to_paths_allowed(): "Ignores hidden
 * mount points").  Pure. */
bool policy_plan_rule_after_mounts(const struct policy_plan *plan, const struct policy_rule *rule);

/* After its own steps, init makes every other mount of the sandbox
 * read-only: Landlock does not mediate chmod(2), chown(2), utimes(2) or
 * setxattr(2), a read-only mount refuses them all (EROFS).  True when the
 * mount at mount_point keeps its flags: it lies at or beneath a path the
 * plan grants write to (a -v mount, /tmp, /dev/shm), or it is a filesystem
 * the sandbox made itself (a fresh /proc, a private tmpfs or devpts, a
 * cover, which are read-only already).  Pure. */
bool policy_plan_mount_stays_writable(const struct policy_plan *plan, const char *mount_point);

/* True when step m closes a Unix socket (a host or credential socket's
 * cover) or a directory where host programs bind them.  Pure. */
bool policy_mount_closes_socket(const struct policy_mount_step *m);

/* The directories a writable mount lets the command create entries in that
 * a guard must watch: true when path lies inside one of the plan's writable
 * -v mounts (or the host's /tmp, when shared).  Pure. */
bool policy_plan_in_writable_mount(const struct policy_plan *plan, const char *path);

/* Finds the mount step for path, or NULL. */
const struct policy_mount_step *policy_plan_find_mount(const struct policy_plan *plan,
							 const char *path);

#endif /* PORTA_POLICY_PLAN_H */
