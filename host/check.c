/* host/check.c: `porta check` — what this host can enforce.
 *
 * Each primitive is probed the way porta uses it, in a throwaway child where
 * the probe changes the process (a namespace, a filter), so the answer is
 * this kernel's and this user's, not a guess from version numbers.
 */
#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kernel.h"
#include "host/cgroup.h"
#include "host/host.h"
#include "sandbox/landlock.h"
#include "sandbox/sandbox.h"

struct primitive {
	const char *name;
	bool available;
	bool required; /* porta refuses to run without it */
	char detail[768];
	const char *missing_means;
};

/* Runs fn in a forked child; true when it exits 0. */
static bool in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(fn() == 0 ? 0 : 1);
	if (waitpid(pid, &st, 0) != pid)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int probe_userns(void)
{
	return unshare(CLONE_NEWUSER);
}

static int probe_all_ns(void)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
		       CLONE_NEWUTS);
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

bool host_userns_available(void)
{
	return in_child(probe_userns);
}

int host_check(FILE *out, bool json)
{
	struct primitive p[12];
	size_t n = 0;
	int abi = sandbox_landlock_abi();
	long max_userns = read_long("/proc/sys/user/max_user_namespaces");

	bool userns = host_userns_available();
	p[n] = (struct primitive){ "user namespaces", userns, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "%s (max_user_namespaces=%ld)",
		 userns ? "unprivileged creation allowed" : "creation refused", max_userns);
	p[n++].missing_means = "porta runs degraded, with Landlock and seccomp only (README, Hosts "
			       "without user namespaces): other processes visible, no protected names "
			       "inside writable mounts, credential sockets reachable, names listable, "
			       "no private /tmp (a private TMPDIR instead), no transparent --allow-net "
			       "or --deny-net and no --max-procs (refused), --no-net and proxy mode "
			       "through Landlock TCP rules";

	bool all_ns = userns && in_child(probe_all_ns);
	p[n] = (struct primitive){ "mount, PID, network, IPC and UTS namespaces", all_ns, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "%s", all_ns ? "available inside a user namespace"
								 : "refused");
	p[n++].missing_means = "porta runs degraded (see user namespaces above)";

	p[n] = (struct primitive){ "Landlock TCP rules", abi >= 4, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "needs ABI 4, have %d", abi);
	p[n++].missing_means = "without user namespaces too, --no-net and proxy mode are refused "
			       "(nothing else could confine the network)";

	p[n] = (struct primitive){ "Landlock", abi >= 1, true, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), abi ? "ABI %d" : "absent", abi);
	p[n++].missing_means = "writes cannot be confined to the mounts; porta refuses to run";

	p[n] = (struct primitive){ "Landlock truncate and device ioctl rights", abi >= 5, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "needs ABI 5, have %d", abi);
	p[n++].missing_means = "truncate(2) and device ioctls are not restricted by Landlock";

	p[n] = (struct primitive){ "Landlock scopes (abstract sockets, signals)", abi >= 6, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "needs ABI 6, have %d", abi);
	p[n++].missing_means = "in open network mode the command can reach the host's abstract Unix sockets";

	bool seccomp_ok = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
	p[n] = (struct primitive){ "seccomp filters", seccomp_ok, true, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "%s",
		 seccomp_ok ? "SECCOMP_SET_MODE_FILTER available" : "absent");
	p[n++].missing_means = "dangerous syscalls (namespaces, io_uring, bpf, ptrace) cannot be refused";

	struct seccomp_notif_sizes sizes;
	bool notif = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0;
	p[n] = (struct primitive){ "seccomp user notification", notif, false, "", NULL };
	snprintf(p[n].detail, sizeof(p[n].detail), "%s", notif ? "available" : "absent");
	p[n++].missing_means = "network policy mode cannot name the process behind each connection; "
			       "without user namespaces too, proxy mode is refused";

	/* The ceilings' cgroups (host/cgroup.h): where porta would make
	 * one for each controller, or why it cannot. */
	struct host_cg_facts *facts = calloc(1, sizeof(*facts));
	struct host_cg_choice *choice = calloc(1, sizeof(*choice));
	bool gathered = facts && choice && host_cg_gather(facts) == 0;
	static const struct {
		enum host_cg_ctrl ctrl;
		const char *name, *missing_means;
	} cgs[] = {
		{ HOST_CG_MEMORY, "cgroup with the memory controller",
		  "--max-memory-mb is refused (exit 125)" },
		{ HOST_CG_PIDS, "cgroup with the pids controller",
		  "--max-procs is refused for root (exit 125), whom the kernel exempts from "
		  "RLIMIT_NPROC; other users keep RLIMIT_NPROC" },
	};
	for (size_t i = 0; i < sizeof(cgs) / sizeof(cgs[0]); i++) {
		char why[768];
		bool ok = gathered && host_cg_choose(facts, 1u << cgs[i].ctrl, choice, NULL, why,
							sizeof(why)) == HOST_CG_OK;
		p[n] = (struct primitive){ cgs[i].name, ok, false, "", cgs[i].missing_means };
		if (!gathered)
			snprintf(p[n].detail, sizeof(p[n].detail),
				 "cannot read /proc/self/cgroup or /proc/self/mountinfo");
		else if (ok)
			snprintf(p[n].detail, sizeof(p[n].detail), "cgroup v%d: porta-<pid> under %.600s",
				 choice->version[cgs[i].ctrl], choice->parent[cgs[i].ctrl]);
		else
			snprintf(p[n].detail, sizeof(p[n].detail), "%s", why);
		n++;
	}
	free(choice);
	free(facts);

	bool can_run = true;
	for (size_t i = 0; i < n; i++)
		can_run = can_run && (p[i].available || !p[i].required);

	if (json) {
		json_t *root = json_object(), *arr = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "name", json_string(p[i].name));
			json_object_set_new(o, "available", json_boolean(p[i].available));
			json_object_set_new(o, "required", json_boolean(p[i].required));
			json_object_set_new(o, "detail", json_string(p[i].detail));
			json_object_set_new(o, "missing_means", json_string(p[i].missing_means));
			json_array_append_new(arr, o);
		}
		json_object_set_new(root, "primitives", arr);
		json_object_set_new(root, "landlock_abi", json_integer(abi));
		json_object_set_new(root, "can_run", json_boolean(can_run));
		json_object_set_new(root, "degraded", json_boolean(can_run && !all_ns));
		json_dumpf(root, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(root);
	} else {
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%-4s %s: %s\n", p[i].available ? "yes" : "NO", p[i].name,
				p[i].detail);
			if (!p[i].available)
				fprintf(out, "     without it: %s\n", p[i].missing_means);
		}
		fprintf(out, "%s\n", !can_run ? "porta cannot run here: a required primitive is missing."
				     : all_ns ? "porta can run here."
					      : "porta can run here, degraded: Landlock and seccomp only.");
	}
	return can_run ? 0 : 1;
}
