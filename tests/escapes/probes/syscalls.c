/*
 * Row 18: kernel interfaces a sandboxed program has no business calling.
 * Each is one sub-check, in its own child, with valid arguments:
 *
 *   bpf             BPF_PROG_LOAD of a two-instruction socket filter
 *   perf_event_open a user-space-only task-clock counter on ourselves
 *   userfaultfd     UFFD_USER_MODE_ONLY (allowed unprivileged since 5.11)
 *   keyctl          KEYCTL_GET_KEYRING_ID of a new process keyring
 *   add_key         a "user" key in the process keyring
 *   kexec_load      a flags word the kernel rejects with EINVAL *after* its
 *                   CAP_SYS_BOOT check, so that even an escape cannot replace
 *                   the host's kernel image: EINVAL means "reached", EPERM
 *                   means "refused"
 *   init_module     an empty image: ENOEXEC after the CAP_SYS_MODULE check
 *   mount           tmpfs on a scratch directory
 *   open_tree       OPEN_TREE_CLONE | AT_RECURSIVE of /
 *   fsopen          tmpfs
 *   pivot_root      pivot_root(".", ".") on a fresh tmpfs
 *   setns           into a UTS namespace we own
 *
 * Each call is tried directly, and the mount-family calls and setns also
 * as NAME+userns inside a user (and mount or UTS) namespace of their own
 * (nsutil.h): outside a sandbox that is the control that shows the call
 * works for an unprivileged user; inside, the unshare must fail too.
 * Mount-table changes are never made directly as root of the host.
 *
 * usage: syscalls SCRATCH-DIR [NAME...]
 */
#include "nsutil.h"

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/kexec.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <sys/mount.h>
#include <sys/syscall.h>

static const char *scratch;

static void do_bpf(const char *name)
{
	struct bpf_insn insns[2];
	memset(insns, 0, sizeof insns);
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	union bpf_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (__u64)(unsigned long)"GPL";
	PROBE_TRY(name, syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr));
}

static void do_perf(const char *name)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof attr;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	PROBE_TRY(name, syscall(SYS_perf_event_open, &attr, 0, -1, -1,
				   PERF_FLAG_FD_CLOEXEC));
}

static void do_uffd(const char *name)
{
	PROBE_TRY(name, syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}

static void do_keyctl(const char *name)
{
	PROBE_TRY(name, syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
				   KEY_SPEC_PROCESS_KEYRING, 1));
}

static void do_add_key(const char *name)
{
	PROBE_TRY(name, syscall(SYS_add_key, "user", "porta-escape-probe", "x", 1,
				   KEY_SPEC_PROCESS_KEYRING));
}

static void do_kexec(const char *name)
{
	/* 0x8000 is neither a KEXEC_* flag nor an arch: EINVAL after the
	 * permission check, never a load or an unload. */
	PROBE_TRY(name, syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0x8000UL));
}

static void do_init_module(const char *name)
{
	static char empty[1];
	PROBE_TRY(name, syscall(SYS_init_module, empty, 0UL, ""));
}

static void do_mount(const char *name)
{
	PROBE_TRY(name, mount("none", scratch, "tmpfs", 0, "size=1m"));
}

static void do_open_tree(const char *name)
{
	PROBE_TRY(name, syscall(SYS_open_tree, AT_FDCWD, "/",
				   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
}

static void do_fsopen(const char *name)
{
	PROBE_TRY(name, syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
}

static void do_pivot_root(const char *name)
{
	/* A fresh tmpfs is a mount point we may pivot onto; if the mount is
	 * refused, pivot_root on the scratch directory still tells EPERM
	 * (refused) from EINVAL (reached the kernel's checks). */
	mount("none", scratch, "tmpfs", 0, "size=1m");
	if (chdir(scratch) < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s\n", name, probe_errname(errno));
		return;
	}
	PROBE_TRY(name, syscall(SYS_pivot_root, ".", "."));
}

static void do_setns(const char *name)
{
	int fd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s\n", name, probe_errname(errno));
		return;
	}
	PROBE_TRY(name, syscall(SYS_setns, fd, CLONE_NEWUTS));
}

static const struct check {
	const char *name;
	void (*fn)(const char *);
	int own_ns;	/* also try inside CLONE_NEWUSER | own_ns */
	int host_danger; /* never run directly as root of the host */
} checks[] = {
	{ "bpf", do_bpf, 0, 0 },
	{ "perf_event_open", do_perf, 0, 0 },
	{ "userfaultfd", do_uffd, 0, 0 },
	{ "keyctl", do_keyctl, 0, 0 },
	{ "add_key", do_add_key, 0, 0 },
	{ "kexec_load", do_kexec, 0, 0 },
	{ "init_module", do_init_module, 0, 0 },
	{ "mount", do_mount, CLONE_NEWNS, 1 },
	{ "open_tree", do_open_tree, CLONE_NEWNS, 0 },
	{ "fsopen", do_fsopen, CLONE_NEWNS, 0 },
	{ "pivot_root", do_pivot_root, CLONE_NEWNS, 1 },
	{ "setns", do_setns, CLONE_NEWUTS, 0 },
};

static const struct check *cur;

static void direct(const char *name)
{
	if (cur->host_danger && host_root()) {
		dprintf(STDOUT_FILENO, "RESULT %s skipped host-root\n", name);
		return;
	}
	cur->fn(name);
}

static void in_own_ns(const char *name)
{
	if (enter_userns(cur->own_ns) < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s fail %s (unshare)\n", name, probe_errname(errno));
		return;
	}
	/* Our mounts must never propagate back to the parent namespace. */
	if (cur->own_ns & CLONE_NEWNS)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	cur->fn(name);
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 2) {
		dprintf(STDOUT_FILENO, "usage: syscalls SCRATCH-DIR [NAME...]\n");
		return 2;
	}
	scratch = argv[1];
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		int wanted = argc == 2;
		for (int a = 2; a < argc; a++)
			wanted |= strcmp(argv[a], checks[i].name) == 0;
		if (!wanted)
			continue;
		cur = &checks[i];
		probe_isolated(cur->name, direct);
		if (cur->own_ns) {
			char name[64];
			snprintf(name, sizeof name, "%s+userns", cur->name);
			probe_isolated(name, in_own_ns);
		}
	}
	return 0;
}
