/* sandbox/why.c: `--why` inside the sandbox (see why.h); the tracer that
 * reads what this filter stops is the supervisor's (supervisor/why.c). */
#include "sandbox/why.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "common/log.h"

#if !defined(__x86_64__)
#error "the --why filter names x86_64's system calls"
#endif

/* Every call whose refusal the sandbox can cause and that names a path or
 * an address.  The order is the jump table's; N_TRACED counts them. */
enum {
	I_SYS_open, I_SYS_openat, I_SYS_openat2, I_SYS_creat, I_SYS_execve, I_SYS_execveat,
	I_SYS_mkdir, I_SYS_mkdirat, I_SYS_mknod, I_SYS_mknodat, I_SYS_unlink, I_SYS_unlinkat,
	I_SYS_rmdir, I_SYS_rename, I_SYS_renameat, I_SYS_renameat2, I_SYS_link, I_SYS_linkat,
	I_SYS_symlink, I_SYS_symlinkat, I_SYS_truncate, I_SYS_chmod, I_SYS_fchmodat,
	I_SYS_connect, I_SYS_sendto, I_SYS_access, I_SYS_faccessat, I_SYS_faccessat2, N_TRACED
};

/* A call matching entry I jumps over the rest of the table (N_TRACED - I - 1
 * entries) and the ALLOW after it, onto the TRACE. */
#define TRACED(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), N_TRACED - I_##nr, 0)

static const struct sock_filter why_filter[] = {
	/* Another architecture's numbers mean other calls: porta's own
	 * program kills such a process; this one lets it through to that. */
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	TRACED(SYS_open), TRACED(SYS_openat), TRACED(SYS_openat2), TRACED(SYS_creat),
	TRACED(SYS_execve), TRACED(SYS_execveat), TRACED(SYS_mkdir), TRACED(SYS_mkdirat),
	TRACED(SYS_mknod), TRACED(SYS_mknodat), TRACED(SYS_unlink), TRACED(SYS_unlinkat),
	TRACED(SYS_rmdir), TRACED(SYS_rename), TRACED(SYS_renameat), TRACED(SYS_renameat2),
	TRACED(SYS_link), TRACED(SYS_linkat), TRACED(SYS_symlink), TRACED(SYS_symlinkat),
	TRACED(SYS_truncate), TRACED(SYS_chmod), TRACED(SYS_fchmodat), TRACED(SYS_connect),
	TRACED(SYS_sendto), TRACED(SYS_access), TRACED(SYS_faccessat), TRACED(SYS_faccessat2),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
};

_Static_assert(ARRAY_LEN(why_filter) == 4 + N_TRACED + 2, "one jump per traced call");

int sandbox_why_payload_install(void)
{
	struct sock_fprog prog = { .len = (unsigned short)ARRAY_LEN(why_filter),
				   .filter = (struct sock_filter *)why_filter };

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -errno;
	return 0;
}

int sandbox_why_init_wait(int gate_fd)
{
	char b;
	ssize_t n;

	do
		n = read(gate_fd, &b, 1);
	while (n < 0 && errno == EINTR);
	close(gate_fd);
	return n == 1 ? 0 : -EPIPE;
}
