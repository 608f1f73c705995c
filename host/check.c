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

/* PORTA_APPARMOR_PROFILE: where this build installs its AppArmor profile
 * (packaging/CMakeLists.txt) */
#include "generated/install_paths.h"

struct primitive {
	const char *name;
	bool available;
	bool required; /* porta refuses to run without it */
	char detail[768];
	const char *missing_means;
};


static void add_advice(const char *line, void *arg)
{
	json_array_append_new(arg, json_string(line));
}

int host_check(FILE *out, bool json)
{
	struct primitive p[12];
	size_t n = 0;
	int abi = sandbox_landlock_abi();

	struct host_userns ns;
	struct host_userns_facts facts_ns;
	host_userns_probe(&ns);
	host_userns_facts(&ns, &facts_ns);
	long max_userns = facts_ns.max_user_namespaces;
	bool userns = ns.mode != HOST_USERNS_REFUSED;
	p[n] = (struct primitive){ "user namespaces", userns, false, "", NULL };
	if (userns)
		snprintf(p[n].detail, sizeof(p[n].detail),
			 "unprivileged creation allowed (max_user_namespaces=%ld)", max_userns);
	else
		snprintf(p[n].detail, sizeof(p[n].detail),
			 "creation refused: %s (max_user_namespaces=%ld)", strerror(ns.err),
			 max_userns);
	p[n++].missing_means = "porta runs degraded, with Landlock and seccomp only (README, Hosts "
			       "without user namespaces): other processes visible, no protected names "
			       "inside writable mounts, credential sockets reachable, names listable, "
			       "no private /tmp (a private TMPDIR instead), no transparent --allow-net "
			       "or --deny-net and no --max-procs (refused), --no-net and proxy mode "
			       "through Landlock TCP rules";

	bool caps = ns.mode == HOST_USERNS_FULL;
	p[n] = (struct primitive){ "mounts and id maps inside a user namespace", caps, false, "",
				   NULL };
	if (caps)
		snprintf(p[n].detail, sizeof(p[n].detail),
			 "mount, PID, network, IPC and UTS namespaces made; ids mapped, / private, "
			 "a fresh /proc and a tmpfs mounted");
	else if (userns)
		snprintf(p[n].detail, sizeof(p[n].detail), "refused: %s: %s", ns.step,
			 strerror(ns.err));
	else
		snprintf(p[n].detail, sizeof(p[n].detail), "not tried: no user namespace");
	p[n++].missing_means = "porta runs degraded by itself (see user namespaces above), one "
			       "line for each protection lost; what gives the full sandbox is below";

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
		  "--max-memory-mb is counted by porta polling the run's processes every 100 ms "
		  "(a short burst between two polls can pass it)" },
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
			snprintf(p[n].detail, sizeof(p[n].detail), "cgroup v%d: porta-<pid>-<random> under %.600s",
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

	/* What refuses the full sandbox here, and what would give it. */
	json_t *advice = json_array();
	host_userns_advice(&facts_ns, PORTA_APPARMOR_PROFILE, add_advice, advice);

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
		json_object_set_new(root, "degraded", json_boolean(can_run && !caps));
		static const char *const modes[] = { "full", "refused", "no-capabilities" };
		json_t *u = json_object();
		json_object_set_new(u, "mode", json_string(modes[ns.mode]));
		if (ns.mode != HOST_USERNS_FULL) {
			json_object_set_new(u, "step", json_string(ns.step));
			json_object_set_new(u, "errno", json_string(strerror(ns.err)));
		}
		json_object_set_new(root, "userns", u);
		json_object_set_new(root, "advice", advice);
		advice = NULL;
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
		if (json_array_size(advice))
			fprintf(out, "Why, and what to do:\n");
		for (size_t i = 0; i < json_array_size(advice); i++)
			fprintf(out, "  - %s\n", json_string_value(json_array_get(advice, i)));
		fprintf(out, "%s\n", !can_run ? "porta cannot run here: a required primitive is missing."
				     : caps ? "porta can run here."
					      : "porta can run here, degraded: Landlock and seccomp only.");
	}
	json_decref(advice);
	return can_run ? 0 : 1;
}
