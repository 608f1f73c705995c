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

/* Fills *prog with variant v's program.  0 or -EINVAL. */
static int load_prog(enum policy_seccomp_variant v, struct sock_fprog *prog)
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
	prog->len = (unsigned short)len;
	prog->filter = (struct sock_filter *)insns;
	return 0;
}

int sandbox_seccomp_install(enum policy_seccomp_variant v)
{
	struct sock_fprog prog;
	int rc = load_prog(v, &prog);

	if (rc != 0)
		return rc;
	/* Without a listener a USER_NOTIF verdict is ENOSYS: installing a
	 * notifying variant here would break every connect(2) quietly. */
	if (policy_seccomp_variant_notifies(v))
		return -EINVAL;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -errno;
	return 0;
}

int sandbox_seccomp_install_listener(enum policy_seccomp_variant v, int *listener_fd)
{
	struct sock_fprog prog;
	long fd;
	int rc;

	if (!listener_fd || !policy_seccomp_variant_notifies(v))
		return -EINVAL;
	rc = load_prog(v, &prog);
	if (rc != 0)
		return rc;
	/* seccomp(2) checks its flags before anything else and answers EINVAL
	 * to one it does not know (seccomp_set_mode_filter), so EINVAL here
	 * on a kernel older than 5.19 means "no WAIT_KILLABLE_RECV"; any other
	 * EINVAL comes back from the second call too. */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     &prog);
	if (fd < 0)
		return -errno;
	*listener_fd = (int)fd;
	return 0;
}
