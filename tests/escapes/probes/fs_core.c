/*
 * Row 62: a core dump written outside the mounts, or handed to a program of
 * the host.
 *
 * usage: fs_core DIR [lowered]
 *
 * The kernel writes a core file into the crashing process's working
 * directory (kernel.core_pattern "core"), opened on the process's behalf.
 * The probe moves into DIR (outside every writable mount), raises its soft
 * RLIMIT_CORE to the hard limit (or to unlimited where it may), marks itself
 * dumpable and crashes a child.  Evidence: a core file in DIR on the host.
 * Control: unconfined, the core lands in DIR.
 *
 * Each crashing child holds the marker in its heap.  With "lowered" the
 * probe then sets its soft limit to 0 and crashes a second child.  A core_pattern that pipes to a program ("|...") ignores the limit
 * except for exactly 1, the kernel's guard against a helper's own crash
 * (fs/coredump.c), so a limit of 1 alone keeps no dump from the host's
 * helper: lowering it to 0 opens the way again.
 */
#include "probe.h"

#include <sys/prctl.h>
#include <sys/resource.h>

/* Dies of SIGSEGV with the marker in its memory (64 KiB of the heap), so
 * that a dump that carries memory carries the marker. */
static void crash(void)
{
	static const char m[] = "MUST-NOT-LEAK core ";
	size_t len = 64 * 1024;
	volatile char *buf = malloc(len);

	for (size_t i = 0; buf && i < len; i++)
		buf[i] = m[i % (sizeof(m) - 1)];
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	_exit(0);
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc != 2 && argc != 3)
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
		crash();
	}
	int status = 0;
	waitpid(pid, &status, 0);
	probe_ok("crashed", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	probe_ok("core-dumped", WIFSIGNALED(status) && WCOREDUMP(status));
	if (argc < 3 || strcmp(argv[2], "lowered") != 0)
		return 0;
	struct rlimit zero = { 0, rl.rlim_max };
	PROBE_TRY("lower-rlimit-core", setrlimit(RLIMIT_CORE, &zero));
	getrlimit(RLIMIT_CORE, &rl);
	probe_ok("rlimit-core-soft-lowered", rl.rlim_cur == RLIM_INFINITY ? -1 : (long)rl.rlim_cur);
	pid = fork();
	if (pid == 0) {
		crash();
	}
	waitpid(pid, &status, 0);
	probe_ok("core-dumped-lowered", WIFSIGNALED(status) && WCOREDUMP(status));
	return 0;
}
