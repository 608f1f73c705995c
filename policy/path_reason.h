/* policy/path_reason.h: the filesystem side's vocabulary: why a mount step
 * is in the plan, in one table.
 *
 * ARCHITECTURE: pure.  Every mount step and every reopened path of the plan
 * (policy/plan.h) names one enum policy_path_reason; host/resolve.c chooses
 * it.  The table in path_reason.c gives, for each: its words (what
 * `porta explain`, --why, run's stderr and the guard print, unchanged from
 * when the reasons were strings), whether it closes a Unix socket, and
 * whether the run's guard (supervisor/guard.h) watches the entry the step
 * lies over.  Code that tells steps apart compares the enum or asks the
 * table; nothing compares the words.  The network decisions have their own
 * table (policy/reason.h): the two share no values and no properties.
 */
#ifndef PORTA_POLICY_PATH_REASON_H
#define PORTA_POLICY_PATH_REASON_H

#include <stdbool.h>

enum policy_path_reason {
	/* closed to reads (covers) */
	POLICY_PATH_CREDENTIAL,        /* the preset's credential paths */
	POLICY_PATH_DENY_READ,         /* --deny-read */
	POLICY_PATH_PORTA_CONFIG,      /* porta's configuration directory (host/profiles.h) */
	POLICY_PATH_HOME_CLOSED,       /* the home, emptied (--read-policy home and strict) */
	POLICY_PATH_KERNEL_ADDRESSES,  /* /proc/kallsyms in the fresh /proc */
	/* Unix sockets */
	POLICY_PATH_CREDENTIAL_SOCKET, /* a named host socket: --deny-unix, the preset, $SSH_AUTH_SOCK */
	POLICY_PATH_HOST_SOCKET,       /* any other host socket bound at start */
	POLICY_PATH_SOCKET_DIR,        /* a directory where host programs bind sockets */
	POLICY_PATH_ALLOW_UNIX,        /* a socket --allow-unix binds back */
	POLICY_PATH_KEPT_SOCKET,       /* a kept socket bound back into a closed directory */
	/* kept unwritable */
	POLICY_PATH_PROTECTED,         /* a protected name, read-only */
	POLICY_PATH_PROTECTED_PARENT,  /* a directory above one, pinned against rename */
	POLICY_PATH_GIT_DIR,           /* a git directory, pinned */
	POLICY_PATH_WRITABLE_ROOT,     /* a writable -v mount's root, pinned */
	POLICY_PATH_READONLY_MOUNT,    /* a :ro mount inside a writable one */
	POLICY_PATH_KERNEL_SETTINGS,   /* /proc/sys, read-only */
	/* filesystems the sandbox makes */
	POLICY_PATH_OWN_PROCESSES,     /* the fresh /proc */
	POLICY_PATH_PRIVATE_TMP,
	POLICY_PATH_SHARED_TMP,        /* the host's /tmp (--share-tmp), pinned */
	POLICY_PATH_PRIVATE_DEV,
	POLICY_PATH_PRIVATE_SHM,
	POLICY_PATH_OWN_TERMINALS,     /* the private devpts */
	/* bound back into them */
	POLICY_PATH_DEVICE,
	POLICY_PATH_UNDER_DEV,         /* a -v mount beneath /dev */
	POLICY_PATH_UNDER_TMP,         /* a -v mount beneath the private /tmp */
	POLICY_PATH_UNDER_HOME,        /* a -v mount beneath the closed home */
	POLICY_PATH_HOME_PROJECT,      /* the working directory's project, in the closed home */
	POLICY_PATH_HOME_VISIBLE,      /* a toolchain or configuration place, in the closed home */
	POLICY_PATH_UNDER_SOCKET_DIR,  /* a -v mount beneath a closed socket directory */
	POLICY_PATH_NEEDED_FILE,       /* /etc/resolv.conf, /etc/hosts linking into one */
	POLICY_PATH_REOPENED,          /* a -v mount beneath a closed path */
	POLICY_PATH_COUNT_
};

/* Which Unix sockets a step closes, if it closes any. */
enum policy_path_closes {
	POLICY_PATH_CLOSES_NO_SOCKET,
	POLICY_PATH_CLOSES_SOCKET,     /* one socket, covered by /dev/null (a file cover) */
	POLICY_PATH_CLOSES_SOCKET_DIR, /* a directory host programs bind sockets in (a directory cover) */
};

/* One row of the table.  words is a static string. */
struct policy_path_reason_info {
	const char *words;              /* explain, --why, stderr: "credential" */
	enum policy_path_closes closes; /* the sockets it closes, if any */
	bool guarded;                   /* the guard watches the entry beneath the step */
};

/* The row of r; an out-of-range r gets a row with words "unknown", closing
 * no socket and unguarded (never NULL).  Pure. */
const struct policy_path_reason_info *policy_path_reason_info(enum policy_path_reason r);

static inline const char *policy_path_reason_words(enum policy_path_reason r)
{
	return policy_path_reason_info(r)->words;
}

#endif /* PORTA_POLICY_PATH_REASON_H */
