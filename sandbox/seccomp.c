/* sandbox/seccomp.c: hands the prebuilt filter to the kernel.
 *
 * The program itself comes from the generated seccomp_bpf.c (tools/
 * gen_seccomp).  glibc 2.36 has no seccomp() wrapper, hence syscall(2).
 */
#include "sandbox/seccomp.h"

#include <errno.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/kernel.h"

#if !defined(__x86_64__)
#error "porta's seccomp table and generated filter are x86_64's"
#endif

size_t sandbox_seccomp_prog_len(enum policy_seccomp_variant v)
{
	const struct sock_filter *insns;
	size_t len;

	if (sandbox_seccomp_prog(v, &insns, &len) != 0)
		return 0;
	return len;
}

int sandbox_seccomp_install(enum policy_seccomp_variant v)
{
	const struct sock_filter *insns;
	size_t len;
	int rc = sandbox_seccomp_prog(v, &insns, &len);

	if (rc != 0)
		return rc;
	/* The generator refuses programs over BPF_MAXINSNS (4096), so len
	 * always fits sock_fprog's unsigned short; check anyway rather than
	 * let a truncated length install half a filter. */
	if (len == 0 || len > USHRT_MAX)
		return -EINVAL;

	/* struct sock_fprog's filter pointer is not const, but the kernel only
	 * copies the program in (seccomp_prepare_user_filter). */
	struct sock_fprog prog = {
		.len = (unsigned short)len,
		.filter = (struct sock_filter *)insns,
	};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -errno;
	return 0;
}
