/* tests/unit/sandbox/test_seccomp.c: the generated filter, in userspace and
 * in the kernel.
 *
 * Two halves:
 *  - bpf_*: a small classic-BPF interpreter runs the exact bytes
 *    sandbox_seccomp_install() hands the kernel over many argument vectors
 *    and compares each verdict with policy_seccomp_match(), the table's
 *    reference semantics.  This is what catches libseccomp merging or
 *    dropping rows.
 *  - probes: each check forks a child that sets no_new_privs, installs the
 *    real filter and makes the call with arguments that would succeed
 *    without the filter; the parent asserts the exact errno or signal (docs/style.md
 *    §13).  Where the host allows, the same child runs once without the filter
 *    and the call must succeed there (or fail the kernel's ordinary way, such
 *    as ENOKEY), so the probe could have failed (tests/escapes/README.md:
 *    a probe that cannot fail proves nothing).
 *    Probes needing privilege enter a fresh user namespace first (root in it,
 *    unprivileged outside), so the controls mean something for root and for
 *    an ordinary user, and nothing a control does reaches the host.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "policy/seccomp_table.h"
#include "sandbox/seccomp.h"

extern char **environ;

/* ===================================================================== */
/* Part 1: the program, interpreted                                       */
/* ===================================================================== */

/* Runs a classic BPF program over d the way the kernel's seccomp does
 * (net/core/filter.c semantics, seccomp's restrictions: loads only from
 * struct seccomp_data, 32-bit aligned). */
static uint32_t bpf_run(const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t k = i->k;
		uint32_t src = BPF_SRC(i->code) == BPF_X ? x : k;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS)) {
				cr_assert(k % 4 == 0 && k + 4 <= sizeof(*d), "load at %u", k);
				memcpy(&a, (const char *)d + k, 4);
			} else if (i->code == (BPF_LD | BPF_IMM)) {
				a = k;
			} else if (i->code == (BPF_LD | BPF_MEM)) {
				cr_assert_lt(k, BPF_MEMWORDS);
				a = mem[k];
			} else if (i->code == (BPF_LD | BPF_W | BPF_LEN)) {
				a = sizeof(*d);
			} else {
				cr_assert_fail("insn %zu: unsupported load 0x%04x", pc, i->code);
			}
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				x = k;
			else if (i->code == (BPF_LDX | BPF_MEM) && k < BPF_MEMWORDS)
				x = mem[k];
			else if (i->code == (BPF_LDX | BPF_W | BPF_LEN))
				x = sizeof(*d);
			else
				cr_assert_fail("insn %zu: unsupported ldx 0x%04x", pc, i->code);
			break;
		case BPF_ST:
			cr_assert_lt(k, BPF_MEMWORDS);
			mem[k] = a;
			break;
		case BPF_STX:
			cr_assert_lt(k, BPF_MEMWORDS);
			mem[k] = x;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_AND: a &= src; break;
			case BPF_OR: a |= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a = src < 32 ? a << src : 0; break;
			case BPF_RSH: a = src < 32 ? a >> src : 0; break;
			case BPF_NEG: a = -a; break;
			default: cr_assert_fail("insn %zu: unsupported alu 0x%04x", pc, i->code);
			}
			break;
		case BPF_JMP: {
			bool taken;
			if (BPF_OP(i->code) == BPF_JA) {
				cr_assert_lt(pc + 1 + k, len);
				pc += k;
				break;
			}
			switch (BPF_OP(i->code)) {
			case BPF_JEQ: taken = a == src; break;
			case BPF_JGT: taken = a > src; break;
			case BPF_JGE: taken = a >= src; break;
			case BPF_JSET: taken = (a & src) != 0; break;
			default:
				cr_assert_fail("insn %zu: unsupported jump 0x%04x", pc, i->code);
				return 0; /* cr_assert_fail aborts the test; clang cannot see it */
			}
			pc += taken ? i->jt : i->jf;
			cr_assert_lt(pc + 1, len, "jump past the end");
			break;
		}
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? a : k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	cr_assert_fail("the program fell off its end");
	return 0;
}

static void variant_prog(enum policy_seccomp_variant v, const struct sock_filter **insns,
			 size_t *len)
{
	cr_assert_eq(sandbox_seccomp_prog(v, insns, len), 0);
	cr_assert_gt(*len, 0);
	cr_assert_leq(*len, BPF_MAXINSNS);
}

static void base_prog(const struct sock_filter **insns, size_t *len)
{
	variant_prog(POLICY_SECCOMP_BASE, insns, len);
}

static uint32_t bpf_verdict_of(enum policy_seccomp_variant v, uint32_t arch, int nr,
			       const uint64_t args[6])
{
	const struct sock_filter *insns;
	size_t len;
	struct seccomp_data d = { .nr = nr, .arch = arch, .instruction_pointer = 0x401000 };

	variant_prog(v, &insns, &len);
	memcpy(d.args, args, sizeof(d.args));
	return bpf_run(insns, len, &d);
}

static uint32_t bpf_verdict(uint32_t arch, int nr, const uint64_t args[6])
{
	return bpf_verdict_of(POLICY_SECCOMP_BASE, arch, nr, args);
}

/* Every syscall the table names, with its x86_64 number from glibc. */
#define NR(n) { #n, SYS_##n }
static const struct {
	const char *name;
	int nr;
} table_nrs[] = {
	NR(ptrace), NR(process_vm_readv), NR(process_vm_writev), NR(pidfd_getfd),
	NR(userfaultfd), NR(keyctl), NR(add_key), NR(request_key), NR(bpf),
	NR(perf_event_open), NR(mount), NR(umount2), NR(pivot_root), NR(open_tree),
	NR(move_mount), NR(fsopen), NR(fsconfig), NR(fsmount), NR(fspick),
	NR(mount_setattr), NR(unshare), NR(setns), NR(open_by_handle_at),
	NR(name_to_handle_at), NR(kexec_load), NR(kexec_file_load), NR(init_module),
	NR(finit_module), NR(delete_module), NR(reboot), NR(swapon), NR(swapoff),
	NR(acct), NR(quotactl), NR(quotactl_fd), NR(sethostname), NR(setdomainname),
	NR(ioperm), NR(iopl), NR(syslog), NR(lookup_dcookie), NR(uselib), NR(vhangup),
	NR(io_uring_setup), NR(io_uring_enter), NR(io_uring_register), NR(clone3),
	NR(clone), NR(ioctl), NR(execveat), NR(memfd_create), NR(personality), NR(socket),
	NR(socketpair), NR(connect), NR(sendto), NR(sendmsg), NR(sendmmsg), NR(setpriority),
	NR(ioprio_set),
	/* POLICY_SECCOMP_DEGRADED */
	NR(shmget), NR(shmat), NR(shmctl), NR(msgget), NR(msgsnd), NR(msgrcv), NR(msgctl),
	NR(semget), NR(semop), NR(semtimedop), NR(semctl), NR(mq_open), NR(mq_unlink),
	NR(mq_timedsend), NR(mq_timedreceive), NR(mq_notify), NR(mq_getsetattr),
	/* POLICY_SECCOMP_DEGRADED_ROOT; rows newer than Debian 12's headers
	 * and libseccomp name their number first */
	NR(chmod), NR(fchmod), NR(fchmodat), { "452 fchmodat2", 452 }, NR(chown), NR(fchown),
	NR(lchown), NR(fchownat), NR(utime), NR(utimes), NR(futimesat), NR(utimensat),
	NR(setxattr), NR(lsetxattr), NR(fsetxattr), { "463 setxattrat", 463 }, NR(removexattr),
	NR(lremovexattr), NR(fremovexattr), { "466 removexattrat", 466 },
	{ "469 file_setattr", 469 },
	/* POLICY_SECCOMP_CORE_PINNED */
	NR(setrlimit), NR(prlimit64),
};

static int nr_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(table_nrs); i++) {
		if (strcmp(table_nrs[i].name, name) == 0)
			return table_nrs[i].nr;
	}
	cr_assert_fail("%s is in the table but not in this test's number list", name);
	return -1;
}

static uint32_t expected_ret(enum policy_seccomp_variant v, const char *name,
			     const uint64_t args[6])
{
	const struct policy_syscall_rule *r = policy_seccomp_match(v, name, args);

	if (!r)
		return SECCOMP_RET_ALLOW;
	if (r->action == POLICY_SC_KILL)
		return SECCOMP_RET_KILL_PROCESS;
	if (r->action == POLICY_SC_NOTIFY)
		return SECCOMP_RET_USER_NOTIF;
	if (r->action == POLICY_SC_SKIP)
		return SECCOMP_RET_ERRNO;
	return SECCOMP_RET_ERRNO | (uint32_t)r->err;
}

#define MAX_CAND 512

/* Interesting values of one argument of one syscall: each compared value,
 * its neighbours, its mask, and copies with upper or lower bits disturbed. */
static size_t candidates(const char *name, unsigned index, uint64_t *out)
{
	size_t k = 0;

#define ADD(v)                                          \
	do {                                            \
		uint64_t v_ = (v);                      \
		bool dup_ = false;                      \
		for (size_t q_ = 0; q_ < k; q_++)       \
			dup_ |= out[q_] == v_;          \
		if (!dup_ && k < MAX_CAND)              \
			out[k++] = v_;                  \
	} while (0)

	ADD(0);
	ADD(1);
	ADD(~0ULL);
	ADD(0xffffffffULL);
	ADD(1ULL << 32);
	ADD(1ULL << 63);
	/* Values from every variant's rows (they are separate tables now). */
	for (int vv = 0; vv < POLICY_SECCOMP_VARIANT_COUNT; vv++) {
		size_t n;
		const struct policy_syscall_rule *r = policy_seccomp_rules((enum policy_seccomp_variant)vv, &n);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(r[i].syscall, name) != 0)
				continue;
			for (size_t j = 0; j < r[i].n_args; j++) {
				const struct policy_sc_arg *a = &r[i].args[j];
				if (a->index != index)
					continue;
				ADD(a->value);
				ADD(a->value + 1);
				ADD(a->value - 1);
				ADD(a->value | (1ULL << 32));
				ADD(a->value | 0xffffffff00000000ULL);
				if (a->op == POLICY_SC_MASKED_EQ) {
					ADD(a->mask);
					ADD(a->value | ~a->mask);
					ADD(a->value ^ (a->mask & (a->mask - 1)) /* drop one bit */);
					ADD(~a->value & a->mask);
				}
			}
		}
	}
#undef ADD
	cr_assert_lt(k, MAX_CAND, "candidate list full for %s", name);
	return k;
}

Test(seccomp_bpf, every_table_syscall_agrees_with_the_table)
{
	size_t vectors = 0, n;
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		const struct policy_syscall_rule *r = policy_seccomp_rules((enum policy_seccomp_variant)v, &n);
		for (size_t i = 0; i < n; i++)
			cr_assert_gt(nr_of(r[i].syscall), 0);
	}
	/* Every variant, over every syscall any variant names (so a variant
	 * that leaves a syscall alone is checked to allow it). */
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		for (size_t i = 0; i < ARRAY_LEN(table_nrs); i++) {
			const char *name = table_nrs[i].name;
			int nr = table_nrs[i].nr;
			static uint64_t c0[MAX_CAND], c1[MAX_CAND], c2[MAX_CAND], c3[MAX_CAND],
				c4[MAX_CAND], c5[MAX_CAND];
			size_t n0 = candidates(name, 0, c0), n1 = candidates(name, 1, c1);
			size_t n2 = candidates(name, 2, c2), n3 = candidates(name, 3, c3);
			size_t n4 = candidates(name, 4, c4), n5 = candidates(name, 5, c5);

			for (size_t a = 0; a < n0; a++)
				for (size_t b = 0; b < n1; b++)
					for (size_t c = 0; c < n2; c++)
						for (size_t e = 0; e < n4; e += (n4 > 8 ? 3 : 1)) {
							const uint64_t args[6] = {
								c0[a], c1[b], c2[c],
								c3[(a + b + c + e) % n3], c4[e],
								c5[(a + c + e) % n5]
							};
							uint32_t want = expected_ret(
								(enum policy_seccomp_variant)v, name, args);
							uint32_t got = bpf_verdict_of(
								(enum policy_seccomp_variant)v,
								AUDIT_ARCH_X86_64, nr, args);
							cr_assert_eq(got, want,
								     "variant %s: %s(%#llx, %#llx, %#llx, "
								     "%#llx, %#llx, %#llx): BPF %#x, table %#x",
								     policy_seccomp_variant_name(
									     (enum policy_seccomp_variant)v),
								     name, (unsigned long long)args[0],
								     (unsigned long long)args[1],
								     (unsigned long long)args[2],
								     (unsigned long long)args[3],
								     (unsigned long long)args[4],
								     (unsigned long long)args[5], got, want);
							vectors++;
						}
		}
	}
	cr_log_info("bpf: %zu argument vectors agree with the table", vectors);
	cr_assert_gt(vectors, 10000);
}

Test(seccomp_bpf, syscalls_outside_the_table_are_allowed)
{
	const uint64_t zero[6] = { 0 }, ones[6] = { ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL };

	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		enum policy_seccomp_variant var = (enum policy_seccomp_variant)v;
		for (int nr = 0; nr < 600; nr++) {
			bool listed = false;
			for (size_t i = 0; i < ARRAY_LEN(table_nrs); i++)
				listed |= table_nrs[i].nr == nr;
			if (listed)
				continue;
			cr_assert_eq(bpf_verdict_of(var, AUDIT_ARCH_X86_64, nr, zero), SECCOMP_RET_ALLOW,
				     "nr %d", nr);
			cr_assert_eq(bpf_verdict_of(var, AUDIT_ARCH_X86_64, nr, ones), SECCOMP_RET_ALLOW,
				     "nr %d", nr);
		}
		/* -1 is what a tracer sets to skip a syscall; the kernel answers ENOSYS. */
		cr_assert_eq(bpf_verdict_of(var, AUDIT_ARCH_X86_64, -1, zero), SECCOMP_RET_ALLOW);
	}
}

Test(seccomp_bpf, foreign_architectures_and_x32_kill_the_process)
{
	static const uint32_t arches[] = { AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM,
					   AUDIT_ARCH_RISCV64, AUDIT_ARCH_X86_64 ^ 1, 0 };
	const uint64_t zero[6] = { 0 };

	for (size_t i = 0; i < ARRAY_LEN(arches); i++) {
		cr_assert_eq(bpf_verdict(arches[i], SYS_getpid, zero), SECCOMP_RET_KILL_PROCESS,
			     "arch %#x", arches[i]);
		cr_assert_eq(bpf_verdict(arches[i], 20 /* i386 getpid */, zero),
			     SECCOMP_RET_KILL_PROCESS);
	}
	/* x32 shares AUDIT_ARCH_X86_64 and marks its numbers with bit 30. */
	cr_assert_eq(bpf_verdict(AUDIT_ARCH_X86_64, 0x40000000 | SYS_getpid, zero),
		     SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(bpf_verdict(AUDIT_ARCH_X86_64, 0x40000000 | 512 /* x32 ioctl */, zero),
		     SECCOMP_RET_KILL_PROCESS);
	cr_assert_eq(bpf_verdict(AUDIT_ARCH_X86_64, 0x7fffffff, zero), SECCOMP_RET_KILL_PROCESS);
}

Test(seccomp_bpf, prog_accessors)
{
	const struct sock_filter *insns = NULL;
	size_t len = 0;

	cr_assert_eq(sandbox_seccomp_prog(POLICY_SECCOMP_VARIANT_COUNT, &insns, &len), -EINVAL);
	cr_assert_eq(sandbox_seccomp_prog_len(POLICY_SECCOMP_VARIANT_COUNT), 0);
	cr_assert_eq(sandbox_seccomp_prog_len((enum policy_seccomp_variant)-1), 0);
	base_prog(&insns, &len);
	cr_assert_eq(sandbox_seccomp_prog_len(POLICY_SECCOMP_BASE), len);
	cr_assert_eq(sandbox_seccomp_install(POLICY_SECCOMP_VARIANT_COUNT), -EINVAL,
		     "a bad variant must fail before any syscall");
	/* The first instructions check the architecture. */
	cr_assert_eq(insns[0].code, BPF_LD | BPF_W | BPF_ABS);
	cr_assert_eq(insns[0].k, offsetof(struct seccomp_data, arch));
	cr_log_info("base program: %zu instructions", len);
}

/* ===================================================================== */
/* Part 2: the filter in the kernel, one forked child per check           */
/* ===================================================================== */

struct probe_state {
	int fd[3];
	pid_t pid;
};

struct probe {
	const char *name;
	/* Runs before the filter (in both runs); returns 0 or an errno. */
	int (*prepare)(struct probe_state *st);
	/* When set, a failed prepare only disables the control: the filtered
	 * call still runs (its verdict does not depend on what prepare does). */
	bool prepare_optional;
	/* The call under test: returns 0 when it succeeded, else its errno.
	 * A call that execs successfully never returns. */
	int (*call)(struct probe_state *st);
	/* Reason the unfiltered control cannot show a difference on this host
	 * (NULL when it must). */
	const char *(*excuse)(void);
};

enum outcome_kind {
	OUTCOME_RETURNED,       /* value: 0 or errno */
	OUTCOME_EXECUTED,       /* the call replaced the child and it exited 0 */
	OUTCOME_SIGNALLED,      /* value: the signal */
	OUTCOME_PREPARE_FAILED, /* prepare_err says why */
};

struct outcome {
	enum outcome_kind kind;
	int value;
	int prepare_err;
};

static void put_int(int fd, int v)
{
	ssize_t n;
	do
		n = write(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
}

static void default_fault_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	struct kernel_sigaction_min {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} act = { .handler = SIG_DFL };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		syscall(SYS_rt_sigaction, sigs[i], &act, NULL, sizeof(act.mask));
}

static __attribute__((noreturn)) void probe_child(const struct probe *p, bool filtered, int wfd)
{
	struct probe_state st = { .fd = { -1, -1, -1 }, .pid = -1 };
	const struct rlimit no_core = { 0, 0 };
	int prep, rc = 0;

	/* core_pattern may be a plain file name: a child killed by SIGSYS must
	 * not leave cores in the build tree. */
	setrlimit(RLIMIT_CORE, &no_core);
	/* A probe's outcome is how the child ended.  Under AddressSanitizer a
	 * fault (int $0x80 on a kernel without IA-32 entry) would be caught
	 * and reported as a finding instead; the raw syscall puts the default
	 * back past ASan's sigaction interceptor. */
	default_fault_signals();
	prep = p->prepare ? p->prepare(&st) : 0;
	put_int(wfd, prep);
	if (prep != 0 && !p->prepare_optional)
		_exit(0);
	if (filtered) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			rc = -errno;
		else
			rc = sandbox_seccomp_install(POLICY_SECCOMP_BASE);
	}
	put_int(wfd, rc);
	if (rc != 0)
		_exit(0);
	put_int(wfd, p->call(&st));
	_exit(0);
}

static struct outcome run_probe(const struct probe *p, bool filtered)
{
	int fds[2], got[3], n = 0, status;
	struct outcome o = { .kind = OUTCOME_RETURNED };
	pid_t pid;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		probe_child(p, filtered, fds[1]);
	}
	close(fds[1]);
	while (n < 3) {
		ssize_t r = read(fds[0], &got[n], sizeof(got[n]));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		cr_assert_eq(r, sizeof(int));
		n++;
	}
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);

	cr_assert_geq(n, 1, "%s: the child died before reporting (status %#x)", p->name, status);
	o.prepare_err = got[0];
	if (got[0] != 0 && !p->prepare_optional) {
		o.kind = OUTCOME_PREPARE_FAILED;
		return o;
	}
	cr_assert_geq(n, 2, "%s: the child died before installing (status %#x)", p->name, status);
	cr_assert_eq(got[1], 0, "%s: installing the filter failed: %s", p->name, strerror(-got[1]));
	if (WIFSIGNALED(status)) {
		o.kind = OUTCOME_SIGNALLED;
		o.value = WTERMSIG(status);
	} else if (n == 3) {
		o.value = got[2];
	} else {
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "%s: no result and status %#x", p->name, status);
		o.kind = OUTCOME_EXECUTED;
	}
	return o;
}

static const char *describe(const struct outcome *o, char *buf, size_t cap)
{
	switch (o->kind) {
	case OUTCOME_RETURNED:
		if (o->value == 0)
			snprintf(buf, cap, "success");
		else
			snprintf(buf, cap, "%s (%d)", strerrorname_np(o->value) ?: "?", o->value);
		break;
	case OUTCOME_EXECUTED:
		snprintf(buf, cap, "executed");
		break;
	case OUTCOME_SIGNALLED:
		snprintf(buf, cap, "killed by %s", sigabbrev_np(o->value) ?: "?");
		break;
	case OUTCOME_PREPARE_FAILED:
		snprintf(buf, cap, "prepare failed: %s", strerror(o->prepare_err));
		break;
	}
	return buf;
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	return a->kind == b->kind && a->value == b->value;
}

/* Whether this process already runs under a seccomp filter (a container's
 * profile), in which case controls show that filter, not the kernel. */
static bool already_filtered(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Seccomp:", 8) == 0)
			return atoi(line + 8) != 0;
	}
	return false;
}

enum control {
	CONTROL_SUCCEEDS, /* without the filter the call succeeds (or executes) */
	CONTROL_DIFFERS,  /* without the filter it fails differently (ENOKEY, ENOTTY, ...) */
	CONTROL_ROOT,     /* without the filter it succeeds when run as root */
	CONTROL_MAY,      /* kernel configuration decides: logged, never asserted */
	CONTROL_NONE,     /* never run unfiltered */
};

/* Runs p once more without the filter and checks that the call could have
 * worked: a probe the kernel would refuse anyway proves nothing. */
static void control_check(const struct probe *p, const struct outcome *want, enum control c)
{
	char buf[96];
	const char *excuse = NULL;

	if (c == CONTROL_NONE)
		return;
	struct outcome u = run_probe(p, false);
	bool succeeded = (u.kind == OUTCOME_RETURNED && u.value == 0) || u.kind == OUTCOME_EXECUTED;
	bool ok = c == CONTROL_DIFFERS ? !same(&u, want) : succeeded;

	if (ok) {
		cr_log_info("%s: without the filter: %s", p->name, describe(&u, buf, sizeof(buf)));
		return;
	}
	if (u.prepare_err != 0)
		excuse = "its preparation failed on this host";
	else if (already_filtered())
		excuse = "this process already runs under a seccomp filter";
	else if (p->excuse)
		excuse = p->excuse();
	if (!excuse && c == CONTROL_ROOT && geteuid() != 0)
		excuse = "it needs root";
	if (!excuse && c == CONTROL_MAY)
		excuse = "the kernel's configuration decides it";
	if (excuse) {
		/* Not cr_log_warn: criterion 2.4 exits 1 after any warning. */
		cr_log_info("%s: NOTE: control shows nothing: %s without the filter (%s)", p->name,
			    describe(&u, buf, sizeof(buf)), excuse);
		return;
	}
	cr_expect_fail("%s: %s without the filter, so the probe could never fail", p->name,
		       describe(&u, buf, sizeof(buf)));
}

/* Probes the host could not prepare, named for the skip message: a check
 * that never ran is reported as skipped, not passed. */
static char not_prepared[512];

static void note_not_prepared(const struct probe *p, const char *why)
{
	size_t n = strlen(not_prepared);

	snprintf(not_prepared + n, sizeof(not_prepared) - n, "%s%s (%s)", n ? "; " : "", p->name,
		 why);
}

/* Ends every test of probes: a skip naming each probe that could not be
 * prepared, when any could not.  A failed expectation stays a failure
 * (criterion reports a test that failed and then skipped as failed). */
static void probes_done(void)
{
	if (not_prepared[0])
		cr_skip_test("could not prepare: %s", not_prepared);
}

static void expect_outcome(const struct probe *p, struct outcome want, enum control c)
{
	char b1[96], b2[96];
	struct outcome o = run_probe(p, true);

	if (o.kind == OUTCOME_PREPARE_FAILED) {
		/* The host cannot host this probe (no ptys, no io_uring, ...):
		 * nothing was shown, so the test ends as a skip with the reason
		 * (probes_done()), after the test's other probes have run. */
		note_not_prepared(p, describe(&o, b1, sizeof(b1)));
		return;
	}
	cr_expect(same(&o, &want), "%s under the filter: %s, want %s", p->name,
		  describe(&o, b1, sizeof(b1)), describe(&want, b2, sizeof(b2)));
	control_check(p, &want, c);
}

static void expect_errno(const struct probe *p, int err, enum control c)
{
	expect_outcome(p, (struct outcome){ .kind = OUTCOME_RETURNED, .value = err }, c);
}

static void expect_allowed(const struct probe *p)
{
	expect_outcome(p, (struct outcome){ .kind = OUTCOME_RETURNED, .value = 0 }, CONTROL_NONE);
}

static void expect_executed(const struct probe *p)
{
	expect_outcome(p, (struct outcome){ .kind = OUTCOME_EXECUTED }, CONTROL_NONE);
}

static void expect_killed(const struct probe *p, enum control c)
{
	expect_outcome(p, (struct outcome){ .kind = OUTCOME_SIGNALLED, .value = SIGSYS }, c);
}

#define PROBE(id, prep, opt, fn, exc)                                                   \
	static const struct probe id = { .name = #id, .prepare = (prep), .prepare_optional = (opt), \
					  .call = (fn), .excuse = (exc) }

/* Returns 0 when rc (a syscall's result) is not -1, else errno; closes an
 * fd it was given. */
static int fd_result(long rc)
{
	if (rc < 0)
		return errno;
	close((int)rc);
	return 0;
}

static int int_result(long rc)
{
	return rc < 0 ? errno : 0;
}

/* --- preparation helpers ---------------------------------------------- */

static int write_file(const char *path, const char *text)
{
	_cleanup_fd_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return errno;
	if (write(fd, text, len) != (ssize_t)len)
		return errno ? errno : EIO;
	return 0;
}

/* A fresh user namespace (mapped to the caller's ids) plus `flags`
 * namespaces: root in there, and nothing a control does reaches the host.
 * As root where user namespaces are refused, the other namespaces alone. */
static int enter_ns(int flags)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int err;

	if (unshare(CLONE_NEWUSER | flags) != 0) {
		err = errno;
		if (uid != 0)
			return err;
		return unshare(flags) == 0 ? 0 : errno;
	}
	err = write_file("/proc/self/setgroups", "deny");
	if (err)
		return err;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	err = write_file("/proc/self/uid_map", map);
	if (err)
		return err;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

/* Private mount and UTS namespaces where the mount syscalls would work. */
static int prep_mount_ns(struct probe_state *st)
{
	int err = enter_ns(CLONE_NEWNS | CLONE_NEWUTS);

	(void)st;
	if (err)
		return err;
	/* systemd makes / shared: without this a control's mount could
	 * propagate to the host's namespace (mount_namespaces(7)). */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return errno;
	return 0;
}

static int prep_mount_ns_tmpfs(struct probe_state *st)
{
	int err = prep_mount_ns(st);

	if (err)
		return err;
	if (mount("porta-probe", "/tmp", "tmpfs", 0, "size=64k") != 0)
		return errno;
	return 0;
}

static int prep_net_ns(struct probe_state *st)
{
	(void)st;
	return enter_ns(CLONE_NEWNET);
}

static int prep_user_ns(struct probe_state *st)
{
	(void)st;
	return enter_ns(0);
}

/* --- excuses ------------------------------------------------------------ */

static int read_int_file(const char *path, int dflt)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	int v;

	if (!f || fscanf(f, "%d", &v) != 1)
		return dflt;
	return v;
}

static const char *userns_excuse(void)
{
	if (read_int_file("/proc/sys/user/max_user_namespaces", 1) == 0)
		return "user.max_user_namespaces is 0";
	if (geteuid() != 0 && read_int_file("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0)
		return "kernel.unprivileged_userns_clone is 0";
	if (geteuid() != 0 &&
	    read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 1)
		return "AppArmor restricts unprivileged user namespaces";
	return NULL;
}

static const char *io_uring_excuse(void)
{
	/* The sysctl exists exactly when io_uring is built in (6.6+). */
	int disabled = read_int_file("/proc/sys/kernel/io_uring_disabled", -1);

	if (disabled < 0)
		return "this kernel may lack io_uring (no kernel.io_uring_disabled)";
	if (disabled == 2 || (disabled == 1 && geteuid() != 0))
		return "kernel.io_uring_disabled refuses io_uring here";
	return NULL;
}

static const char *tiocsti_excuse(void)
{
	if (read_int_file("/proc/sys/dev/tty/legacy_tiocsti", 1) == 0 && geteuid() != 0)
		return "dev.tty.legacy_tiocsti is 0 (EIO without the filter)";
	return NULL;
}

static const char *mptcp_excuse(void)
{
	if (read_int_file("/proc/sys/net/mptcp/enabled", 0) != 1)
		return "MPTCP is absent or net.mptcp.enabled is 0";
	return NULL;
}

/* ===================================================================== */
/* Namespaces: corpus row 13                                              */
/* ===================================================================== */

static int call_unshare_user(struct probe_state *st)
{
	(void)st;
	return int_result(unshare(CLONE_NEWUSER));
}
PROBE(unshare_newuser, NULL, false, call_unshare_user, userns_excuse);

Test(seccomp_ns, unshare_newuser_is_eperm)
{
	expect_errno(&unshare_newuser, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

static int call_unshare_fs(struct probe_state *st)
{
	(void)st;
	/* Harmless flags: unshare(2) is refused as a whole. */
	return int_result(unshare(CLONE_FS | CLONE_FILES));
}
PROBE(unshare_fs_files, NULL, false, call_unshare_fs, NULL);

Test(seccomp_ns, unshare_is_refused_whatever_the_flags)
{
	expect_errno(&unshare_fs_files, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* Raw clone(2) with no new stack behaves like fork: the child returns 0
 * here on a copy of this stack and must leave at once. */
static int raw_clone(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags, 0L, 0L, 0L, 0L);
	int status;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	if (waitpid((pid_t)pid, &status, __WALL) < 0)
		return errno;
	return 0;
}

static int call_clone_newuser(struct probe_state *st)
{
	(void)st;
	return raw_clone(CLONE_NEWUSER | SIGCHLD);
}
PROBE(clone_newuser, NULL, false, call_clone_newuser, userns_excuse);

Test(seccomp_ns, clone_newuser_is_eperm)
{
	expect_errno(&clone_newuser, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* One probe per other namespace flag, run inside a user namespace so the
 * control has the capability the flag needs. */
#define CLONE_FLAG_PROBE(flag)                                           \
	static int call_clone_##flag(struct probe_state *st)             \
	{                                                                \
		(void)st;                                                \
		return raw_clone(CLONE_##flag | SIGCHLD);                \
	}                                                                \
	PROBE(clone_##flag, prep_user_ns, true, call_clone_##flag, NULL)

CLONE_FLAG_PROBE(NEWNS);
CLONE_FLAG_PROBE(NEWPID);
CLONE_FLAG_PROBE(NEWNET);
CLONE_FLAG_PROBE(NEWUTS);
CLONE_FLAG_PROBE(NEWIPC);
CLONE_FLAG_PROBE(NEWCGROUP);
/* clone(2) reads bit 7 as part of the exit signal (CSIGNAL), so without the
 * filter this is a fork with exit signal 145; no valid signal sets the bit,
 * so the filter's refusal costs nothing. */
CLONE_FLAG_PROBE(NEWTIME);

Test(seccomp_ns, clone_with_each_namespace_flag_is_eperm)
{
	expect_errno(&clone_NEWNS, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWPID, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWNET, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWUTS, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWIPC, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWCGROUP, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&clone_NEWTIME, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

static int call_clone3(struct probe_state *st, uint64_t flags)
{
	struct clone_args args = { .flags = flags, .exit_signal = SIGCHLD };
	long pid = syscall(SYS_clone3, &args, sizeof(args));
	int status;

	(void)st;
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	if (waitpid((pid_t)pid, &status, 0) < 0)
		return errno;
	return 0;
}

static int call_clone3_plain(struct probe_state *st)
{
	return call_clone3(st, 0);
}
PROBE(clone3_plain, NULL, false, call_clone3_plain, NULL);

static int call_clone3_newuser(struct probe_state *st)
{
	return call_clone3(st, CLONE_NEWUSER);
}
PROBE(clone3_newuser, NULL, false, call_clone3_newuser, userns_excuse);

Test(seccomp_ns, clone3_is_enosys)
{
	expect_errno(&clone3_plain, ENOSYS, CONTROL_SUCCEEDS);
	expect_errno(&clone3_newuser, ENOSYS, CONTROL_SUCCEEDS);
	probes_done();
}

static int call_setns_uts(struct probe_state *st)
{
	return int_result(setns(st->fd[0], CLONE_NEWUTS));
}

static int prep_setns(struct probe_state *st)
{
	int err = prep_mount_ns(st);

	if (err)
		return err;
	st->fd[0] = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	return st->fd[0] < 0 ? errno : 0;
}
PROBE(setns_uts, prep_setns, false, call_setns_uts, NULL);

Test(seccomp_ns, setns_is_eperm)
{
	expect_errno(&setns_uts, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* Allowed: fork, plain clone, threads and posix_spawn (whose clone3 gets
 * ENOSYS and falls back to clone). */
static int call_fork(struct probe_state *st)
{
	int status;
	pid_t pid = fork();

	(void)st;
	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(7);
	if (waitpid(pid, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : ECHILD;
}
PROBE(fork_plain, NULL, false, call_fork, NULL);

static int call_raw_clone(struct probe_state *st)
{
	(void)st;
	return raw_clone(SIGCHLD);
}
PROBE(clone_plain, NULL, false, call_raw_clone, NULL);

static void *thread_main(void *arg)
{
	return arg;
}

static int call_pthread(struct probe_state *st)
{
	pthread_t t;
	void *ret = NULL;
	int err = pthread_create(&t, NULL, thread_main, &st->pid);

	if (err)
		return err;
	err = pthread_join(t, &ret);
	if (err)
		return err;
	return ret == &st->pid ? 0 : EPROTO;
}
PROBE(thread_create, NULL, false, call_pthread, NULL);

static int call_posix_spawn(struct probe_state *st)
{
	char *argv[] = { "true", NULL };
	pid_t pid;
	int status, err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);

	(void)st;
	if (err)
		return err;
	if (waitpid(pid, &status, 0) < 0)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}
PROBE(spawn_true, NULL, false, call_posix_spawn, NULL);

Test(seccomp_ns, processes_and_threads_still_start)
{
	expect_allowed(&fork_plain);
	expect_allowed(&clone_plain);
	expect_allowed(&thread_create);
	expect_allowed(&spawn_true);
	probes_done();
}

/* ===================================================================== */
/* io_uring: corpus row 14                                                */
/* ===================================================================== */

static int call_io_uring_setup(struct probe_state *st)
{
	struct io_uring_params params;

	(void)st;
	memset(&params, 0, sizeof(params));
	return fd_result(syscall(SYS_io_uring_setup, 8, &params));
}
PROBE(io_uring_setup_8, NULL, false, call_io_uring_setup, io_uring_excuse);

/* A ring made before the filter, as one inherited from outside would be. */
static int prep_ring(struct probe_state *st)
{
	struct io_uring_params params;

	memset(&params, 0, sizeof(params));
	st->fd[0] = (int)syscall(SYS_io_uring_setup, 8, &params);
	return st->fd[0] < 0 ? errno : 0;
}

static int call_io_uring_enter(struct probe_state *st)
{
	return int_result(syscall(SYS_io_uring_enter, st->fd[0], 0, 0, 0, NULL, 0));
}
PROBE(io_uring_enter_ring, prep_ring, true, call_io_uring_enter, io_uring_excuse);

static int call_io_uring_register(struct probe_state *st)
{
	/* Without the filter: ENXIO, no buffers registered. */
	return int_result(syscall(SYS_io_uring_register, st->fd[0], IORING_UNREGISTER_BUFFERS, NULL, 0));
}
PROBE(io_uring_register_ring, prep_ring, true, call_io_uring_register, io_uring_excuse);

Test(seccomp_io_uring, every_io_uring_call_is_enosys)
{
	expect_errno(&io_uring_setup_8, ENOSYS, CONTROL_SUCCEEDS);
	expect_errno(&io_uring_enter_ring, ENOSYS, CONTROL_SUCCEEDS);
	expect_errno(&io_uring_register_ring, ENOSYS, CONTROL_DIFFERS);
	probes_done();
}

/* ===================================================================== */
/* Fileless exec: corpus row 15                                           */
/* ===================================================================== */

/* A memfd holding a copy of /bin/true; an O_PATH fd of it where memfds
 * cannot be executed (vm.memfd_noexec). */
static int prep_exec_fd(struct probe_state *st)
{
	_cleanup_fd_ int src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	struct stat sb;

	if (src < 0 || fstat(src, &sb) != 0)
		return errno;
	st->fd[0] = memfd_create("porta-probe", MFD_CLOEXEC);
	if (st->fd[0] >= 0) {
		off_t off = 0;
		while (off < sb.st_size) {
			if (sendfile(st->fd[0], src, &off, (size_t)(sb.st_size - off)) <= 0)
				return errno ? errno : EIO;
		}
		if (read_int_file("/proc/sys/vm/memfd_noexec", 0) == 0)
			return 0;
		close(st->fd[0]);
	}
	st->fd[0] = open("/bin/true", O_PATH | O_CLOEXEC);
	return st->fd[0] < 0 ? errno : 0;
}

static int call_execveat_empty(struct probe_state *st)
{
	char *argv[] = { "true", NULL };

	syscall(SYS_execveat, st->fd[0], "", argv, environ, AT_EMPTY_PATH);
	return errno;
}
PROBE(execveat_memfd, prep_exec_fd, false, call_execveat_empty, NULL);

static int call_execveat_path(struct probe_state *st)
{
	char *argv[] = { "true", NULL };

	(void)st;
	syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, environ, 0);
	return errno;
}
PROBE(execveat_path, NULL, false, call_execveat_path, NULL);

static int call_execve_true(struct probe_state *st)
{
	char *argv[] = { "true", NULL };

	(void)st;
	execve("/bin/true", argv, environ);
	return errno;
}
PROBE(execve_true, NULL, false, call_execve_true, NULL);

Test(seccomp_exec, execveat_empty_path_is_eperm)
{
	expect_errno(&execveat_memfd, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* The other fileless road: execve("/proc/self/fd/N") of a memfd, which
 * neither Landlock nor a path-blind filter can judge.  The filter makes
 * memfd_create without MFD_NOEXEC_SEAL fail as vm.memfd_noexec=2 would. */
static int call_memfd_plain(struct probe_state *st)
{
	(void)st;
	int fd = memfd_create("porta-probe", MFD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
PROBE(memfd_plain, NULL, false, call_memfd_plain, NULL);

static int call_memfd_exec_flag(struct probe_state *st)
{
	(void)st;
	int fd = memfd_create("porta-probe", MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
PROBE(memfd_exec_flag, NULL, false, call_memfd_exec_flag, NULL);

static int call_memfd_sealed(struct probe_state *st)
{
	(void)st;
	int fd = memfd_create("porta-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
PROBE(memfd_sealed, NULL, false, call_memfd_sealed, NULL);

/* A sealed memfd holding /bin/true, executed through /proc/self/fd: the
 * kernel refuses (the seal removed the exec bits for good). */
static int prep_sealed_true(struct probe_state *st)
{
	_cleanup_fd_ int src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	struct stat sb;
	off_t off = 0;

	if (src < 0 || fstat(src, &sb) != 0)
		return errno;
	st->fd[0] = memfd_create("porta-probe", MFD_NOEXEC_SEAL);
	if (st->fd[0] < 0)
		return errno;
	while (off < sb.st_size) {
		if (sendfile(st->fd[0], src, &off, (size_t)(sb.st_size - off)) <= 0)
			return errno ? errno : EIO;
	}
	return 0;
}

static int call_exec_proc_fd(struct probe_state *st)
{
	char path[64], *argv[] = { "true", NULL };

	snprintf(path, sizeof(path), "/proc/self/fd/%d", st->fd[0]);
	execve(path, argv, environ);
	return errno;
}
PROBE(exec_sealed_memfd, prep_sealed_true, false, call_exec_proc_fd, NULL);

Test(seccomp_exec, memfd_must_be_sealed_non_executable)
{
	expect_errno(&memfd_plain, EACCES, CONTROL_SUCCEEDS);
	expect_errno(&memfd_exec_flag, EACCES, CONTROL_SUCCEEDS);
	expect_allowed(&memfd_sealed);
	/* What the seal buys: no exec through /proc/self/fd, filter or not. */
	struct outcome o = run_probe(&exec_sealed_memfd, true);
	cr_assert_eq(o.kind, OUTCOME_RETURNED, "exec of a sealed memfd ran");
	cr_assert_eq(o.value, EACCES);
	probes_done();
}

Test(seccomp_exec, exec_by_path_still_works)
{
	expect_executed(&execve_true);
	expect_executed(&execveat_path);
	probes_done();
}

/* ===================================================================== */
/* Other processes: corpus row 16                                         */
/* ===================================================================== */

/* A decoy child made before the filter; it dies with the probe child. */
static int prep_decoy(struct probe_state *st)
{
	pid_t parent = getpid();

	st->pid = fork();
	if (st->pid < 0)
		return errno;
	if (st->pid == 0) {
		/* Do not hold the report pipe open. */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	return 0;
}

static int call_ptrace_attach(struct probe_state *st)
{
	int err = int_result(ptrace(PTRACE_ATTACH, st->pid, NULL, NULL));

	kill(st->pid, SIGKILL);
	waitpid(st->pid, NULL, __WALL);
	return err;
}

static const char *yama_excuse(void)
{
	if (read_int_file("/proc/sys/kernel/yama/ptrace_scope", 0) >= 2 && geteuid() != 0)
		return "Yama ptrace_scope >= 2";
	return NULL;
}
PROBE(ptrace_attach_decoy, prep_decoy, false, call_ptrace_attach, yama_excuse);

static long probe_target = 0x5a5a5a5a;

static int call_vm_readv(struct probe_state *st)
{
	long local = 0;
	struct iovec l = { &local, sizeof(local) }, r = { &probe_target, sizeof(probe_target) };
	long n = syscall(SYS_process_vm_readv, getpid(), &l, 1UL, &r, 1UL, 0UL);

	(void)st;
	if (n < 0)
		return errno;
	return local == probe_target ? 0 : EPROTO;
}
PROBE(process_vm_readv_self, NULL, false, call_vm_readv, NULL);

static int call_vm_writev(struct probe_state *st)
{
	long local = 7;
	struct iovec l = { &local, sizeof(local) }, r = { &probe_target, sizeof(probe_target) };

	(void)st;
	return int_result(syscall(SYS_process_vm_writev, getpid(), &l, 1UL, &r, 1UL, 0UL));
}
PROBE(process_vm_writev_self, NULL, false, call_vm_writev, NULL);

static int prep_pidfd(struct probe_state *st)
{
	st->fd[0] = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (st->fd[0] < 0)
		return errno;
	st->fd[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return st->fd[1] < 0 ? errno : 0;
}

static int call_pidfd_getfd(struct probe_state *st)
{
	return fd_result(syscall(SYS_pidfd_getfd, st->fd[0], st->fd[1], 0));
}
PROBE(pidfd_getfd_self, prep_pidfd, false, call_pidfd_getfd, NULL);

Test(seccomp_procs, ptrace_and_memory_access_are_eperm)
{
	expect_errno(&ptrace_attach_decoy, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&process_vm_readv_self, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&process_vm_writev_self, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&pidfd_getfd_self, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* ===================================================================== */
/* Terminal injection: corpus row 17                                      */
/* ===================================================================== */

/* A pty pair whose slave becomes this child's controlling terminal, so an
 * unprivileged TIOCSTI works without the filter (the kernel refuses TIOCSTI
 * on a tty that is not the caller's controlling one, and with
 * dev.tty.legacy_tiocsti=0 answers EIO, never EPERM, for the caller's own). */
static int prep_pty(struct probe_state *st)
{
	char name[64];

	st->fd[0] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (st->fd[0] < 0)
		return errno;
	if (grantpt(st->fd[0]) != 0 || unlockpt(st->fd[0]) != 0 ||
	    ptsname_r(st->fd[0], name, sizeof(name)) != 0)
		return errno;
	if (setsid() < 0)
		return errno;
	st->fd[1] = open(name, O_RDWR | O_CLOEXEC);
	if (st->fd[1] < 0)
		return errno;
	if (ioctl(st->fd[1], TIOCSCTTY, 0) != 0)
		return errno;
	return 0;
}

static int call_tiocsti(struct probe_state *st)
{
	char c = '#';
	return int_result(ioctl(st->fd[1], TIOCSTI, &c));
}
PROBE(tiocsti_ctty, prep_pty, false, call_tiocsti, tiocsti_excuse);

static int call_tiocsti_high(struct probe_state *st)
{
	char c = '#';
	/* The kernel truncates cmd to unsigned int: this is TIOCSTI. */
	return int_result(syscall(SYS_ioctl, st->fd[1], (unsigned long)TIOCSTI | (1UL << 32), &c));
}
PROBE(tiocsti_ctty_high_bits, prep_pty, false, call_tiocsti_high, tiocsti_excuse);

static int call_tioclinux(struct probe_state *st)
{
	char sub[2] = { 6 /* TIOCL_GETSHIFTSTATE */, 0 };
	return int_result(ioctl(st->fd[1], TIOCLINUX, sub));
}
PROBE(tioclinux_pty, prep_pty, false, call_tioclinux, NULL);

static int call_tioclinux_high(struct probe_state *st)
{
	char sub[2] = { 6, 0 };
	return int_result(syscall(SYS_ioctl, st->fd[1], (unsigned long)TIOCLINUX | (0xffUL << 40), sub));
}
PROBE(tioclinux_pty_high_bits, prep_pty, false, call_tioclinux_high, NULL);

static int call_tiocgwinsz(struct probe_state *st)
{
	struct winsize ws;
	return int_result(ioctl(st->fd[1], TIOCGWINSZ, &ws));
}
PROBE(tiocgwinsz_pty, prep_pty, false, call_tiocgwinsz, NULL);

Test(seccomp_tty, tiocsti_and_tioclinux_are_eperm)
{
	expect_errno(&tiocsti_ctty, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&tiocsti_ctty_high_bits, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&tioclinux_pty, EPERM, CONTROL_DIFFERS);
	expect_errno(&tioclinux_pty_high_bits, EPERM, CONTROL_DIFFERS);
	probes_done();
}

Test(seccomp_tty, other_terminal_ioctls_still_work)
{
	expect_allowed(&tiocgwinsz_pty);
	probes_done();
}

/* ===================================================================== */
/* Kernel interfaces: corpus row 18                                       */
/* ===================================================================== */

static int call_bpf_map(struct probe_state *st)
{
	union bpf_attr attr;

	(void)st;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return fd_result(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)));
}
PROBE(bpf_map_create, NULL, false, call_bpf_map, NULL);

static int call_perf(struct probe_state *st)
{
	struct perf_event_attr attr;

	(void)st;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return fd_result(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}
PROBE(perf_self_task_clock, NULL, false, call_perf, NULL);

static int call_userfaultfd(struct probe_state *st)
{
	(void)st;
	/* UFFD_USER_MODE_ONLY is allowed unprivileged whatever
	 * vm.unprivileged_userfaultfd says (userfaultfd(2)). */
	return fd_result(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
}
PROBE(userfaultfd_user_mode, NULL, false, call_userfaultfd, NULL);

static int call_keyctl(struct probe_state *st)
{
	(void)st;
	return int_result(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
}
PROBE(keyctl_process_keyring, NULL, false, call_keyctl, NULL);

static int call_add_key(struct probe_state *st)
{
	(void)st;
	return int_result(syscall(SYS_add_key, "user", "porta:probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
}
PROBE(add_key_user, NULL, false, call_add_key, NULL);

static int call_request_key(struct probe_state *st)
{
	(void)st;
	/* No callout: without the filter this is ENOKEY, nothing runs. */
	return int_result(syscall(SYS_request_key, "user", "porta:absent", NULL, 0));
}
PROBE(request_key_user, NULL, false, call_request_key, NULL);

/* More segments than KEXEC_SEGMENT_MAX: the kernel checks permission first
 * (EPERM unprivileged), then refuses the count (EINVAL) before loading
 * anything, so even an unfiltered root control cannot replace the kernel. */
static int call_kexec_load(struct probe_state *st)
{
	static struct kexec_segment segs[KEXEC_SEGMENT_MAX + 1];

	(void)st;
	return int_result(syscall(SYS_kexec_load, 0UL, (unsigned long)ARRAY_LEN(segs), segs,
				  (unsigned long)KEXEC_ARCH_DEFAULT));
}
PROBE(kexec_load_too_many_segments, NULL, false, call_kexec_load, NULL);

/* Sixty-four zero bytes are no ELF image: root without the filter gets
 * ENOEXEC (or ENOSYS without module support); nothing is loaded. */
static int call_init_module(struct probe_state *st)
{
	static const char image[64];

	(void)st;
	return int_result(syscall(SYS_init_module, image, sizeof(image), ""));
}
PROBE(init_module_garbage, NULL, false, call_init_module, NULL);

static int call_personality_norandom(struct probe_state *st)
{
	(void)st;
	return int_result(personality(ADDR_NO_RANDOMIZE));
}
PROBE(personality_addr_no_randomize, NULL, false, call_personality_norandom, NULL);

static int call_personality_linux32(struct probe_state *st)
{
	(void)st;
	return int_result(personality(PER_LINUX32));
}
PROBE(personality_linux32, NULL, false, call_personality_linux32, NULL);

static int call_personality_high(struct probe_state *st)
{
	(void)st;
	/* The kernel reads an unsigned int: this would set ADDR_NO_RANDOMIZE. */
	return int_result(syscall(SYS_personality, (1UL << 32) | ADDR_NO_RANDOMIZE));
}
PROBE(personality_high_bits, NULL, false, call_personality_high, NULL);

static int call_personality_query(struct probe_state *st)
{
	(void)st;
	return int_result(personality(0xffffffff));
}
PROBE(personality_query, NULL, false, call_personality_query, NULL);

static int call_personality_linux(struct probe_state *st)
{
	(void)st;
	return int_result(personality(PER_LINUX));
}
PROBE(personality_linux, NULL, false, call_personality_linux, NULL);

Test(seccomp_kernel, kernel_interfaces_are_eperm)
{
	expect_errno(&bpf_map_create, EPERM, CONTROL_ROOT);
	expect_errno(&perf_self_task_clock, EPERM, CONTROL_MAY);
	expect_errno(&userfaultfd_user_mode, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&keyctl_process_keyring, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&add_key_user, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&request_key_user, EPERM, CONTROL_DIFFERS);
	expect_errno(&kexec_load_too_many_segments, EPERM, CONTROL_MAY);
	expect_errno(&init_module_garbage, EPERM, CONTROL_MAY);
	probes_done();
}

Test(seccomp_kernel, personality_only_linux_and_query)
{
	expect_errno(&personality_addr_no_randomize, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&personality_linux32, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&personality_high_bits, EPERM, CONTROL_SUCCEEDS);
	expect_allowed(&personality_query);
	expect_allowed(&personality_linux);
	probes_done();
}

/* --- mounts --------------------------------------------------------------- */

static int call_mount_tmpfs(struct probe_state *st)
{
	(void)st;
	return int_result(mount("porta-probe", "/tmp", "tmpfs", 0, "size=64k"));
}
PROBE(mount_tmpfs, prep_mount_ns, true, call_mount_tmpfs, NULL);

static int call_umount(struct probe_state *st)
{
	(void)st;
	return int_result(umount2("/tmp", 0));
}
PROBE(umount_tmpfs, prep_mount_ns_tmpfs, true, call_umount, NULL);

static int call_open_tree_plain(struct probe_state *st)
{
	(void)st;
	/* Without OPEN_TREE_CLONE this is an O_PATH open anyone may do. */
	return fd_result(open_tree(AT_FDCWD, "/", OPEN_TREE_CLOEXEC));
}
PROBE(open_tree_plain, NULL, false, call_open_tree_plain, NULL);

static int call_open_tree_clone(struct probe_state *st)
{
	(void)st;
	return fd_result(open_tree(AT_FDCWD, "/tmp", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
}
PROBE(open_tree_clone, prep_mount_ns_tmpfs, true, call_open_tree_clone, NULL);

static int call_fsopen(struct probe_state *st)
{
	(void)st;
	return fd_result(fsopen("tmpfs", FSOPEN_CLOEXEC));
}
PROBE(fsopen_tmpfs, prep_mount_ns, true, call_fsopen, NULL);

static int prep_pivot(struct probe_state *st)
{
	int err = prep_mount_ns_tmpfs(st);

	if (err)
		return err;
	return chdir("/tmp") == 0 ? 0 : errno;
}

static int call_pivot_root(struct probe_state *st)
{
	(void)st;
	/* pivot_root(".", ".") stacks the old root on the new one
	 * (pivot_root(2), NOTES). */
	return int_result(syscall(SYS_pivot_root, ".", "."));
}
PROBE(pivot_root_tmpfs, prep_pivot, true, call_pivot_root, NULL);

Test(seccomp_mounts, mount_calls_are_eperm)
{
	expect_errno(&mount_tmpfs, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&umount_tmpfs, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&open_tree_plain, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&open_tree_clone, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&fsopen_tmpfs, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&pivot_root_tmpfs, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

/* ===================================================================== */
/* Sockets: corpus row 19                                                 */
/* ===================================================================== */

static int sock(long family, long type, long proto)
{
	return fd_result(syscall(SYS_socket, family, type, proto));
}

#define SOCKET_PROBE_X(id, prep, fam, type, proto, exc)              \
	static int call_##id(struct probe_state *st)                \
	{                                                           \
		(void)st;                                           \
		return sock((long)(fam), (long)(type), (long)(proto)); \
	}                                                           \
	PROBE(id, prep, true, call_##id, exc)
#define SOCKET_PROBE(id, prep, fam, type, proto) SOCKET_PROBE_X(id, prep, fam, type, proto, NULL)

/* In a network namespace of a fresh user namespace the control holds
 * CAP_NET_RAW there, so raw and packet sockets work without the filter for
 * root and ordinary users alike (the corpus's "root-in-namespace"). */
SOCKET_PROBE(packet_raw, prep_net_ns, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(0x0003 /* ETH_P_ALL */));
SOCKET_PROBE(packet_dgram, prep_net_ns, AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(0x0003));
SOCKET_PROBE(inet_raw_icmp, prep_net_ns, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
SOCKET_PROBE(inet6_raw_icmp6, prep_net_ns, AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
SOCKET_PROBE(inet_sock_packet, prep_net_ns, AF_INET, SOCK_PACKET | SOCK_CLOEXEC, htons(0x0003));
SOCKET_PROBE(unix_raw, NULL, AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0);
SOCKET_PROBE_X(inet_mptcp, NULL, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP, mptcp_excuse);
SOCKET_PROBE_X(inet6_mptcp, NULL, AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP, mptcp_excuse);
SOCKET_PROBE(netlink_uevent, NULL, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
SOCKET_PROBE(netlink_sock_diag, NULL, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
SOCKET_PROBE(netlink_generic, NULL, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_GENERIC);
SOCKET_PROBE(vsock_stream, NULL, AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
SOCKET_PROBE(bluetooth_l2cap, NULL, AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
SOCKET_PROBE(alg_seqpacket, NULL, AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
/* The kernel reads an int: this is AF_INET, refused as no allowed family. */
SOCKET_PROBE(inet_high_bits, NULL, (1L << 32) | AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

SOCKET_PROBE(inet_stream, NULL, AF_INET, SOCK_STREAM, 0);
SOCKET_PROBE(inet6_dgram, NULL, AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
SOCKET_PROBE(unix_stream, NULL, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
SOCKET_PROBE(unix_dgram, NULL, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
SOCKET_PROBE(netlink_route_raw, NULL, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
SOCKET_PROBE(netlink_route_dgram, NULL, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);

static int call_socketpair_inet(struct probe_state *st)
{
	int sv[2];

	(void)st;
	if (socketpair(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
PROBE(socketpair_inet, NULL, false, call_socketpair_inet, NULL);

static int call_socketpair_unix(struct probe_state *st)
{
	int sv[2];

	(void)st;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}
PROBE(socketpair_unix, NULL, false, call_socketpair_unix, NULL);

Test(seccomp_sockets, forbidden_families_are_eafnosupport)
{
	/* A family porta does not offer is EAFNOSUPPORT whatever the type, as
	 * from a kernel without it; libraries fall back on that answer. */
	expect_errno(&packet_raw, EAFNOSUPPORT, CONTROL_SUCCEEDS);
	expect_errno(&packet_dgram, EAFNOSUPPORT, CONTROL_SUCCEEDS);
	expect_errno(&vsock_stream, EAFNOSUPPORT, CONTROL_MAY);
	expect_errno(&bluetooth_l2cap, EAFNOSUPPORT, CONTROL_MAY);
	expect_errno(&alg_seqpacket, EAFNOSUPPORT, CONTROL_MAY);
	expect_errno(&inet_high_bits, EAFNOSUPPORT, CONTROL_SUCCEEDS);
	expect_errno(&socketpair_inet, EAFNOSUPPORT, CONTROL_DIFFERS);
	probes_done();
}

Test(seccomp_sockets, raw_packet_mptcp_and_other_netlink_are_eperm)
{
	expect_errno(&inet_raw_icmp, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&inet6_raw_icmp6, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&inet_sock_packet, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&unix_raw, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&inet_mptcp, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&inet6_mptcp, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&netlink_uevent, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&netlink_sock_diag, EPERM, CONTROL_SUCCEEDS);
	expect_errno(&netlink_generic, EPERM, CONTROL_SUCCEEDS);
	probes_done();
}

Test(seccomp_sockets, ordinary_sockets_still_work)
{
	expect_allowed(&inet_stream);
	expect_allowed(&inet6_dgram);
	expect_allowed(&unix_stream);
	expect_allowed(&unix_dgram);
	/* porta itself and ip(8) talk rtnetlink over SOCK_RAW. */
	expect_allowed(&netlink_route_raw);
	expect_allowed(&netlink_route_dgram);
	expect_allowed(&socketpair_unix);
	probes_done();
}

/* ===================================================================== */
/* Foreign architectures                                                  */
/* ===================================================================== */

/* getpid through the i386 entry point (int $0x80, eax = 20).  The 32-bit
 * entry clobbers no other register we rely on, but r8-r11 are declared
 * clobbered to be safe across kernel versions. */
static long int80_getpid(void)
{
	long ret = 20;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int call_int80(struct probe_state *st)
{
	long r = int80_getpid();

	(void)st;
	if (r == getpid())
		return 0;
	return r < 0 && r > -4096 ? (int)-r : EPROTO;
}
PROBE(i386_getpid, NULL, false, call_int80, NULL);

static int call_x32(struct probe_state *st)
{
	long r = syscall(0x40000000L | SYS_getpid);

	(void)st;
	if (r < 0)
		return errno;
	return r == getpid() ? 0 : EPROTO;
}
PROBE(x32_getpid, NULL, false, call_x32, NULL);

Test(seccomp_arch, i386_int80_is_killed_by_sigsys)
{
	/* The control first: a kernel without IA-32 emulation faults the
	 * instruction (SIGSEGV) before seccomp sees a syscall. */
	struct outcome u = run_probe(&i386_getpid, false);
	char buf[96];

	if (!(u.kind == OUTCOME_RETURNED && u.value == 0))
		cr_skip_test("int $0x80 does not reach the i386 syscall table here (%s)",
			     describe(&u, buf, sizeof(buf)));
	expect_killed(&i386_getpid, CONTROL_NONE);
	probes_done();
}

Test(seccomp_arch, x32_syscall_numbers_are_killed_by_sigsys)
{
	expect_killed(&x32_getpid, CONTROL_DIFFERS);
	probes_done();
}

/* ===================================================================== */
/* Installation itself                                                    */
/* ===================================================================== */

static int call_install_without_nnp(struct probe_state *st)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	(void)st;
	memset(data, 0, sizeof(data));
	/* Without CAP_SYS_ADMIN and without no_new_privs the kernel refuses
	 * a filter (seccomp(2), EACCES). */
	if (syscall(SYS_capset, &hdr, data) != 0)
		return errno;
	return -sandbox_seccomp_install(POLICY_SECCOMP_BASE);
}

Test(seccomp_install, without_no_new_privs_is_eacces)
{
	/* Run unfiltered: the probe installs (or fails to) on its own. */
	static const struct probe p = { .name = "install_without_nnp", .call = call_install_without_nnp };
	struct outcome o = run_probe(&p, false);
	char buf[96];

	cr_expect(o.kind == OUTCOME_RETURNED && o.value == EACCES, "%s", describe(&o, buf, sizeof(buf)));
}

/* ===================================================================== */
/* RLIMIT_CORE pinned (POLICY_SECCOMP_CORE_PINNED, escape corpus row 62)  */
/* ===================================================================== */

/* What a child sees of RLIMIT_CORE after asking for {0, 0} with each call,
 * starting from {1, 1}, with or without the filter. */
struct core_seen {
	int set_rc, set_err;             /* setrlimit(RLIMIT_CORE, {0, 0}) */
	int pr_rc, pr_err;               /* prlimit64(0, RLIMIT_CORE, {0, 0}, NULL) */
	int pr_old_rc, pr_old_err;       /* prlimit64(0, RLIMIT_CORE, {0, 0}, &old) */
	long cur, max;                   /* after all three, read with prlimit64 */
	int nofile_rc;                   /* setrlimit(RLIMIT_NOFILE, lower): untouched */
	long nofile_cur;
};

static struct core_seen core_child(bool filtered)
{
	int fds[2];
	struct core_seen s;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct rlimit one = { 1, 1 }, zero = { 0, 0 }, old, nf;
		memset(&s, 0, sizeof(s));
		if (setrlimit(RLIMIT_CORE, &one) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    (filtered && sandbox_seccomp_install(POLICY_SECCOMP_CORE_PINNED) != 0))
			_exit(1);
		s.set_rc = setrlimit(RLIMIT_CORE, &zero);
		s.set_err = s.set_rc ? errno : 0;
		setrlimit(RLIMIT_CORE, &one); /* the control lowered it */
		s.pr_rc = (int)syscall(SYS_prlimit64, 0, RLIMIT_CORE, &zero, NULL);
		s.pr_err = s.pr_rc ? errno : 0;
		setrlimit(RLIMIT_CORE, &one);
		s.pr_old_rc = (int)syscall(SYS_prlimit64, 0, RLIMIT_CORE, &zero, &old);
		s.pr_old_err = s.pr_old_rc ? errno : 0;
		if (!filtered)
			setrlimit(RLIMIT_CORE, &one);
		if (syscall(SYS_prlimit64, 0, RLIMIT_CORE, NULL, &old) != 0)
			_exit(1);
		s.cur = (long)old.rlim_cur;
		s.max = (long)old.rlim_max;
		getrlimit(RLIMIT_NOFILE, &nf);
		nf.rlim_cur = nf.rlim_cur > 64 ? 64 : nf.rlim_cur;
		s.nofile_rc = setrlimit(RLIMIT_NOFILE, &nf);
		getrlimit(RLIMIT_NOFILE, &nf);
		s.nofile_cur = (long)nf.rlim_cur;
		(void)!write(fds[1], &s, sizeof(s));
		_exit(0);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &s, sizeof(s)), (ssize_t)sizeof(s), "the child did not report");
	close(fds[0]);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return s;
}

Test(seccomp_core, lowering_rlimit_core_is_answered_without_effect)
{
	/* Control: lowering to 0 is every process's right. */
	struct core_seen c = core_child(false);
	cr_assert_eq(c.set_rc, 0, "control setrlimit: %s", strerror(c.set_err));
	cr_assert_eq(c.pr_rc, 0, "control prlimit64: %s", strerror(c.pr_err));
	cr_assert_eq(c.pr_old_rc, 0, "control prlimit64 with old: %s", strerror(c.pr_old_err));

	/* Filtered: setting answers success (ssh-agent exits when it fails)
	 * and the limit stays 1, the one value the kernel honours for a
	 * core_pattern that pipes to a program; a call that also reads the
	 * old value is refused rather than left unfilled. */
	struct core_seen f = core_child(true);
	cr_expect_eq(f.set_rc, 0, "setrlimit: %s", strerror(f.set_err));
	cr_expect_eq(f.pr_rc, 0, "prlimit64: %s", strerror(f.pr_err));
	cr_expect_eq(f.pr_old_rc, -1);
	cr_expect_eq(f.pr_old_err, EPERM, "%s", strerror(f.pr_old_err));
	cr_expect_eq(f.cur, 1, "soft limit %ld", f.cur);
	cr_expect_eq(f.max, 1, "hard limit %ld", f.max);
	/* Other limits are the program's to set. */
	cr_expect_eq(f.nofile_rc, 0);
	cr_expect_leq(f.nofile_cur, 64);
}
