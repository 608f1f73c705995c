/*
 * Row 68: a setuid-root or file-capability program run in the sandbox
 * gains nothing (no_new_privs, and root of the host is not mapped).
 *
 * usage: proc_suid DIR
 *
 * The runner installs copies of this probe owned by root, one setuid
 * (mode 4755) and one with the file capability cap_dac_override+ep, and
 * runs them as an unprivileged user. DIR is owned by root, mode 0755: only
 * a process with euid 0 or CAP_DAC_OVERRIDE can create DIR/created-by-PID.
 * That file on the host is the evidence.
 */
#include "probe.h"

#include <fcntl.h>

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 2)
		return 2;
	dprintf(STDOUT_FILENO, "IDS uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
	char path[4096];
	snprintf(path, sizeof path, "%s/created-by-%d", argv[1], (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int err = errno;
	probe_report("create-in-root-dir", fd, err);
	if (fd >= 0)
		close(fd);
	return 0;
}
