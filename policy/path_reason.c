/* policy/path_reason.c: see path_reason.h. */
#include "policy/path_reason.h"

#define NO_SOCKET POLICY_PATH_CLOSES_NO_SOCKET

/* The one table.  The words are the strings the steps carried before this
 * table existed, so explain, --why, stderr and the guard print what they
 * always printed.
 *
 * guarded: the steps whose mount point a program outside may replace,
 * taking the mount away with it, which the guard therefore watches
 * (supervisor/guard.c, above add_mounted()): the covers and the write
 * protections.  Not the sandbox's own filesystems, what is bound back, the
 * strict home or a writable mount's root (its Landlock rule stays on the old
 * directory); not /proc/sys (the kernel's, no host program replaces it);
 * and not the socket covers: services unlink and bind their sockets again
 * as they restart, and a run stopped by every such restart on the host
 * would be a run nobody can finish; a socket bound again outside the closed
 * socket directories is a stated window (docs/threat-model.md). */
static const struct policy_path_reason_info table[POLICY_PATH_COUNT_] = {
	[POLICY_PATH_CREDENTIAL] = { "credential", NO_SOCKET, true },
	[POLICY_PATH_DENY_READ] = { "--deny-read", NO_SOCKET, true },
	[POLICY_PATH_PORTA_CONFIG] = { "porta's configuration", NO_SOCKET, true },
	[POLICY_PATH_HOME_CLOSED] = { "the home (closed unless granted)", NO_SOCKET, false },
	[POLICY_PATH_KERNEL_ADDRESSES] = { "kernel addresses", NO_SOCKET, false },
	[POLICY_PATH_CREDENTIAL_SOCKET] = { "credential socket", POLICY_PATH_CLOSES_SOCKET, false },
	[POLICY_PATH_HOST_SOCKET] = { "host socket", POLICY_PATH_CLOSES_SOCKET, false },
	[POLICY_PATH_SOCKET_DIR] = { "host programs bind sockets there", POLICY_PATH_CLOSES_SOCKET_DIR, false },
	[POLICY_PATH_ALLOW_UNIX] = { "--allow-unix", NO_SOCKET, false },
	[POLICY_PATH_KEPT_SOCKET] = { "a kept socket", NO_SOCKET, false },
	[POLICY_PATH_PROTECTED] = { "protected", NO_SOCKET, true },
	[POLICY_PATH_PROTECTED_PARENT] = { "parent of a protected name", NO_SOCKET, true },
	[POLICY_PATH_GIT_DIR] = { "git directory", NO_SOCKET, true },
	[POLICY_PATH_WRITABLE_ROOT] = { "writable mount root", NO_SOCKET, false },
	[POLICY_PATH_READONLY_MOUNT] = { "read-only mount", NO_SOCKET, true },
	[POLICY_PATH_KERNEL_SETTINGS] = { "kernel settings", NO_SOCKET, false },
	[POLICY_PATH_OWN_PROCESSES] = { "the sandbox's own processes", NO_SOCKET, false },
	[POLICY_PATH_PRIVATE_TMP] = { "private /tmp", NO_SOCKET, false },
	[POLICY_PATH_SHARED_TMP] = { "the shared /tmp", NO_SOCKET, true },
	[POLICY_PATH_PRIVATE_DEV] = { "private /dev", NO_SOCKET, false },
	[POLICY_PATH_PRIVATE_SHM] = { "private shared memory", NO_SOCKET, false },
	[POLICY_PATH_OWN_TERMINALS] = { "the sandbox's own terminals", NO_SOCKET, false },
	[POLICY_PATH_DEVICE] = { "device", NO_SOCKET, false },
	[POLICY_PATH_UNDER_DEV] = { "mount under /dev", NO_SOCKET, false },
	[POLICY_PATH_UNDER_TMP] = { "mount under /tmp", NO_SOCKET, false },
	[POLICY_PATH_UNDER_HOME] = { "mount under the home", NO_SOCKET, false },
	[POLICY_PATH_HOME_PROJECT] = { "the working directory's project", NO_SOCKET, false },
	[POLICY_PATH_HOME_VISIBLE] = { "a toolchain or configuration place (docs/defaults.md)", NO_SOCKET, false },
	[POLICY_PATH_UNDER_SOCKET_DIR] = { "mount under a closed socket directory", NO_SOCKET, false },
	[POLICY_PATH_NEEDED_FILE] = { "a file programs need", NO_SOCKET, false },
	[POLICY_PATH_REOPENED] = { "reopened inside a closed path", NO_SOCKET, false },
};

static const struct policy_path_reason_info unknown = { "unknown", NO_SOCKET, false };

const struct policy_path_reason_info *policy_path_reason_info(enum policy_path_reason r)
{
	if ((unsigned)r >= POLICY_PATH_COUNT_ || !table[r].words)
		return &unknown;
	return &table[r];
}
