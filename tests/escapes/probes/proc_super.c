/*
 * Rows 63 and 64: attack the sandbox's own supervisor (porta) and its
 * process group from inside.
 *
 * usage: proc_super OP [PID]
 *
 *   kill-pid PID    kill(PID, SIGKILL): PID is porta's pid as the host sees it
 *   pidfd-kill PID  pidfd_open(PID) + pidfd_send_signal(SIGKILL)
 *   kill-ppid       kill(getppid(), SIGKILL): the parent chain
 *   ptrace PID      ptrace(PTRACE_SEIZE, PID)
 *   vm-write PID    process_vm_writev(PID) of one byte to address 0: EFAULT
 *                   means the call reached the other process's memory map
 *                   (and wrote nothing), ESRCH/EPERM that it was refused
 *   pgrp            kill(0, SIGURG), setpriority(PRIO_PGRP, 0, 7),
 *                   ioprio_set(IOPRIO_WHO_PGRP, 0, idle): "my process group"
 *   all             kill(-1, SIGURG): every process the caller may signal
 *
 * Only harmless signals go to groups (SIGURG is ignored by default): outside
 * a sandbox kill(-1) reaches every process of the user. The probe exits 42;
 * the runner's evidence is the exit status of the run (porta killed is not
 * 42) and a decoy's signal log and priorities, never the RESULT lines alone.
 */
#include "probe.h"

#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#define IOPRIO_WHO_PGRP 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13

static void pause_a_moment(void)
{
	/* A killed supervisor takes the run with it: give the kernel time to
	 * deliver before the probe's own exit decides the status. */
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 2)
		return 2;
	const char *op = argv[1];
	pid_t pid = argc > 2 ? (pid_t)atoi(argv[2]) : 0;

	if (strcmp(op, "kill-pid") == 0) {
		PROBE_TRY("kill-pid", kill(pid, SIGKILL));
	} else if (strcmp(op, "pidfd-kill") == 0) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);
		int err = errno;
		probe_report("pidfd_open", fd, err);
		if (fd >= 0)
			PROBE_TRY("pidfd_send_signal", syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0));
	} else if (strcmp(op, "kill-ppid") == 0) {
		pid_t pp = getppid();
		dprintf(STDOUT_FILENO, "PPID %d\n", (int)pp);
		PROBE_TRY("kill-ppid", kill(pp, SIGKILL));
	} else if (strcmp(op, "ptrace") == 0) {
		PROBE_TRY("ptrace-seize", ptrace(PTRACE_SEIZE, pid, NULL, NULL));
	} else if (strcmp(op, "vm-write") == 0) {
		char byte = 0;
		struct iovec local = { &byte, 1 }, remote = { NULL, 1 };
		PROBE_TRY("process_vm_writev", process_vm_writev(pid, &local, 1, &remote, 1, 0));
	} else if (strcmp(op, "pgrp") == 0) {
		PROBE_TRY("kill-0", kill(0, SIGURG));
		PROBE_TRY("setpriority-pgrp", setpriority(PRIO_PGRP, 0, 7));
		PROBE_TRY("ioprio_set-pgrp",
			  syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT));
	} else if (strcmp(op, "all") == 0) {
		PROBE_TRY("kill-all", kill(-1, SIGURG));
	} else {
		return 2;
	}
	pause_a_moment();
	return 42;
}
