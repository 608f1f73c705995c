/*
 * Row 15: fileless exec. Copy a program into a memfd and execute it with
 * execveat(fd, "", ..., AT_EMPTY_PATH), and also through the magic link
 * /proc/self/fd/N with plain execve(), which a filter on execveat's flags
 * alone does not see.
 *
 * A sandbox that restricts what may be executed by path (Landlock EXECUTE,
 * noexec mounts) is bypassed if an anonymous file can be executed. The
 * executed program prints "MARKER-RAN <variant>"; this probe never prints
 * that string, so its presence is the evidence. Control: both variants work
 * outside the sandbox.
 *
 * usage: memfd_exec PATH-OF-MARKER-PROGRAM
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

extern char **environ;

static const char *marker_path;

/*
 * A memfd holding a copy of the marker program, or -1 after reporting why:
 * memfd_create refused is the sandbox holding ("fail"); the marker program
 * unreadable is the probe's own failure ("setup-fail", the runner says broken).
 */
static int load_memfd(const char *name)
{
	/* MFD_EXEC keeps vm.memfd_noexec=1 from sealing the memfd noexec; an
	 * attacker refused it simply tries without, then with MFD_NOEXEC_SEAL
	 * (what a sandbox may insist on) and tries to make it executable. */
	int mfd = memfd_create("probe", MFD_CLOEXEC | MFD_EXEC);
	if (mfd < 0)
		mfd = memfd_create("probe", MFD_CLOEXEC);
	if (mfd < 0) {
		mfd = memfd_create("probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
		if (mfd >= 0 && fchmod(mfd, 0755) < 0)
			dprintf(STDOUT_FILENO, "INFO %s noexec-sealed memfd, fchmod +x: %s\n", name,
				probe_errname(errno));
	}
	if (mfd < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s fail %s (memfd_create)\n", name, probe_errname(errno));
		return -1;
	}
	int in = open(marker_path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s (open marker)\n", name, probe_errname(errno));
		return -1;
	}
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0) {
		if (write(mfd, buf, (size_t)n) != n) {
			dprintf(STDOUT_FILENO, "RESULT %s fail %s (write memfd)\n", name, probe_errname(errno));
			return -1;
		}
	}
	close(in);
	return mfd;
}

static void via_execveat(const char *name)
{
	int mfd = load_memfd(name);
	if (mfd < 0)
		return;
	char *args[] = { "marker", "execveat", NULL };
	syscall(SYS_execveat, mfd, "", args, environ, AT_EMPTY_PATH);
	probe_fail(name, errno); /* only reached if the exec failed */
}

static void via_proc_fd(const char *name)
{
	int mfd = load_memfd(name);
	if (mfd < 0)
		return;
	/* The magic link is resolved before close-on-exec closes the fd. */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", mfd);
	char *args[] = { "marker", "proc-self-fd", NULL };
	execve(path, args, environ);
	probe_fail(name, errno);
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 2) {
		dprintf(STDOUT_FILENO, "usage: memfd_exec MARKER-PROGRAM\n");
		return 2;
	}
	marker_path = argv[1];
	probe_isolated("execveat", via_execveat);
	probe_isolated("proc-self-fd", via_proc_fd);
	return 0;
}
