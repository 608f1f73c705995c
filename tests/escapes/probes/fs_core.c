/*
 * Row 62: a core dump written outside the mounts.
 *
 * usage: fs_core DIR
 *
 * The kernel writes a core file into the crashing process's working
 * directory (kernel.core_pattern "core"), opened on the process's behalf.
 * The probe moves into DIR (outside every writable mount), raises its soft
 * RLIMIT_CORE to the hard limit (or to unlimited where it may), marks itself
 * dumpable and crashes a child.  Evidence: a core file in DIR on the host.
 * Control: unconfined, the core lands in DIR.
 */
#include "probe.h"

#include <sys/prctl.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	probe_started();
	if (argc != 2)
		return 2;
	if (chdir(argv[1]) < 0) {
		probe_fail("chdir", errno);
		return 1;
	}
	struct rlimit rl;
	getrlimit(RLIMIT_CORE, &rl);
	struct rlimit want = { RLIM_INFINITY, RLIM_INFINITY };
	if (setrlimit(RLIMIT_CORE, &want) < 0) {
		want.rlim_cur = want.rlim_max = rl.rlim_max;
		setrlimit(RLIMIT_CORE, &want);
	}
	getrlimit(RLIMIT_CORE, &rl);
	probe_ok("rlimit-core-soft", rl.rlim_cur == RLIM_INFINITY ? -1 : (long)rl.rlim_cur);
	PROBE_TRY("set-dumpable", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	probe_ok("crashed", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	probe_ok("core-dumped", WIFSIGNALED(status) && WCOREDUMP(status));
	return 0;
}
