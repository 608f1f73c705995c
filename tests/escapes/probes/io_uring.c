/*
 * Row 14: io_uring_setup() with a valid, zeroed params struct.
 *
 * An io_uring performs openat, connect, sendmsg... inside the kernel without
 * the corresponding syscalls, so a seccomp filter that does not refuse
 * io_uring_setup is bypassed entirely. The params struct is valid (zeroed,
 * 8 entries): a probe that passes NULL gets EFAULT everywhere and proves
 * nothing. Control: the same call outside the sandbox returns a ring fd
 * (unless the host disables io_uring, which the runner reports as n/a).
 */
#include "probe.h"

#include <linux/io_uring.h>
#include <sys/syscall.h>

int main(void)
{
	probe_started();
	struct io_uring_params params;
	memset(&params, 0, sizeof params);
	long fd = syscall(SYS_io_uring_setup, 8, &params);
	probe_report("io_uring_setup", fd, errno);
	if (fd >= 0)
		dprintf(STDOUT_FILENO, "INFO sq_entries=%u features=0x%x\n",
			params.sq_entries, params.features);
	return 0;
}
