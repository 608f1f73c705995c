/* sandbox/process.c: what the payload gives up before execve: rlimits and
 * capabilities (capabilities(7), "Capabilities and execution of programs by
 * root"; prctl(2) PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_SET_SECUREBITS).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };
	return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

/* The file exists only on kernels that write ELF cores (CONFIG_ELF_CORE):
 * without it there is no memory to keep out of a dump. */
static int write_coredump_filter_zero(void)
{
	int fd = open("/proc/self/coredump_filter", O_WRONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (write(fd, "0\n", 2) != 2)
		r = -errno;
	close(fd);
	return r;
}

int sandbox_limits_apply(const struct policy_plan *plan, struct porta_error *e)
{
	const struct policy_options *o = plan->opts;
	int r;

	/* A core_pattern that pipes to a program of the host ignores
	 * RLIMIT_CORE but for exactly 1 (fs/coredump.c, the guard against a
	 * helper's own crash); the hard limit keeps it from being raised, and
	 * POLICY_SECCOMP_CORE_PINNED from being lowered to 0.  One that names
	 * a socket ('@', Linux 6.16) ignores the limit altogether: a
	 * coredump_filter of 0 (core(5)) keeps the memory out of the dump,
	 * leaving the kernel's notes.  It is the mm's, inherited across
	 * execve, and Landlock keeps the command from writing it back. */
	if (plan->core_target != POLICY_CORE_FILES) {
		if ((r = set_limit(RLIMIT_CORE, 1, 1)))
			return porta_fail(e, "RLIMIT_CORE", NULL, -r, NULL);
		if ((r = write_coredump_filter_zero()))
			return porta_fail(e, "write", "/proc/self/coredump_filter", -r, NULL);
	}
	/* --max-cpu is the run's processes together, which the supervisor
	 * counts and ends the run at (supervisor/ceiling.h).  Each process
	 * also gets RLIMIT_CPU a second above it: it bounds one process even
	 * when porta's count comes late, and stays out of the way of that
	 * count otherwise, so that a run ends the same way (137) whether one
	 * process or many used the CPU.  SIGXCPU at the soft limit, SIGKILL at
	 * the hard one, a second later, for a program that ignores SIGXCPU. */
	if (o->max_cpu_s.set &&
	    (r = set_limit(RLIMIT_CPU, o->max_cpu_s.value + 1, o->max_cpu_s.value + 2)))
		return porta_fail(e, "--max-cpu", NULL, -r, NULL);
	/* The process ceiling, --max-procs or the default: counted per user
	 * in the sandbox's own user namespace (kernel >= 5.14 ucounts), so the
	 * user's processes outside do not count; init is one of the
	 * namespace's processes, hence + 1.  Host root is exempt from
	 * RLIMIT_NPROC (kernel/fork.c, copy_process()), so for root the
	 * ceiling that holds is pids.max of the cgroup init joined
	 * (supervisor/cgroup.c); this one is then harmless, and main refuses
	 * --max-procs for root where no pids cgroup can be made.  Degraded,
	 * in the host's user namespace, it would count the user's other
	 * processes: none is set there (a pids cgroup holds the run).  A hard
	 * limit already below the default stays (raising it takes a
	 * privilege; what is lower holds the run anyway). */
	if (!plan->host_user_ns) {
		bool given = o->max_procs.set;
		rlim_t n = (given ? o->max_procs.value : POLICY_DEFAULT_MAX_PROCS) + 1;
		if ((r = set_limit(RLIMIT_NPROC, n, n)) && (given || r != -EPERM))
			return porta_fail(e, "--max-procs", NULL, -r, NULL);
	}
	if (o->max_file_size_mib.set) {
		rlim_t bytes = (rlim_t)o->max_file_size_mib.value << 20;
		if ((r = set_limit(RLIMIT_FSIZE, bytes, bytes)))
			return porta_fail(e, "--max-file-size", NULL, -r, NULL);
	}
	return 0;
}

bool sandbox_euid_is_host_root(void)
{
	if (geteuid() != 0)
		return false;
	/* Each line: first id inside, first id outside (in the parent user
	 * namespace), count.  Only a map taking 0 to 0 can be the host's root;
	 * a nested namespace looks the same one level up, so this errs on the
	 * side of "root". */
	FILE *f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true;
	unsigned long in, out, count;
	bool root = false, mapped = false;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3) {
		if (in == 0 && count > 0) {
			mapped = true;
			root = out == 0;
		}
	}
	fclose(f);
	return !mapped || root;
}

bool sandbox_caps_held(void)
{
	if (geteuid() == 0 || getuid() == 0)
		return true;
	cap_t now = cap_get_proc();
	cap_t none = cap_init();
	bool held = !now || !none || cap_compare(now, none) != 0;
	cap_free(now);
	cap_free(none);
	return held;
}

int sandbox_caps_drop(struct porta_error *e)
{
	/* Lock the securebits first (needs CAP_SETPCAP, still held): root in
	 * the namespace then gains nothing at execve. */
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return porta_fail(e, "lock securebits", NULL, errno, NULL);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return porta_fail(e, "clear ambient capabilities", NULL, errno, NULL);
	for (cap_value_t c = 0; c <= CAP_LAST_CAP || CAP_IS_SUPPORTED(c); c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return porta_fail(e, "drop bounding capabilities", NULL, errno, NULL);
		if (c > 63)
			break;
	}
	/* All three sets empty: the capset(2) cap_set_proc(3) of an empty
	 * cap_init(3) makes, without their malloc(3).  This runs in the
	 * payload, on init's memory, whose heap is still shared copy-on-write
	 * with the supervisor's: the allocator's writes were pages faulted in
	 * again (docs/benchmarks/startup.md). */
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0, 0, 0 } };
	if (syscall(SYS_capset, &head, none) < 0)
		return porta_fail(e, "drop capabilities", NULL, errno, NULL);
	return 0;
}

int sandbox_cgroup_join(const int *fds, size_t n, struct porta_error *e)
{
	for (size_t i = 0; i < n; i++) {
		/* "0" is the writing process itself (cgroups(7)). */
		ssize_t w = write(fds[i], "0", 1);
		int err = errno;
		if (w != 1) {
			char link[64], procs[PATH_MAX];
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fds[i]);
			ssize_t k = readlink(link, procs, sizeof(procs) - 1);
			procs[k > 0 ? k : 0] = '\0';
			return porta_fail(e, "join the cgroup: write", k > 0 ? procs : "cgroup.procs",
					  w < 0 ? err : EIO, NULL);
		}
		close(fds[i]);
	}
	return 0;
}
