/* tests/unit/policy/test_seccomp_table.c: the seccomp table against
 * docs/defaults.md ("seccomp baseline refused in every mode"), and the
 * table checker against rows built to break it.
 *
 * The expectations here are written from the reference, independently of the
 * table's own layout: the socket and personality sweeps compare
 * policy_seccomp_match() with small spec functions over many argument values.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "common/cleanup.h"
#include <linux/memfd.h>

#include "common/kernel.h"
#include "policy/seccomp_table.h"

static const struct policy_syscall_rule *base(size_t *n)
{
	const struct policy_syscall_rule *r = policy_seccomp_rules(POLICY_SECCOMP_BASE, n);
	cr_assert_not_null(r);
	cr_assert_gt(*n, 0);
	return r;
}

static const struct policy_syscall_rule *decide(const char *sc, uint64_t a0, uint64_t a1,
						uint64_t a2, uint64_t a3, uint64_t a4)
{
	const uint64_t args[6] = { a0, a1, a2, a3, a4, 0 };
	return policy_seccomp_match(POLICY_SECCOMP_BASE, sc, args);
}

/* The errno a call gets, 0 when it is allowed. */
static int verdict(const char *sc, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	const struct policy_syscall_rule *r = decide(sc, a0, a1, a2, a3, a4);
	if (!r)
		return 0;
	cr_assert_eq(r->action, POLICY_SC_ERRNO, "%s: base variant only fails calls", sc);
	return r->err;
}

Test(seccomp_table, base_variant_passes_the_checker)
{
	size_t a = 99, b = 99;
	enum policy_sc_table_status st = policy_seccomp_check(POLICY_SECCOMP_BASE, &a, &b);

	cr_assert_eq(st, POLICY_SC_TABLE_OK, "%s: rows %zu and %zu", policy_seccomp_status_str(st), a, b);
	cr_assert_eq(a, 0);
	cr_assert_eq(b, 0);
}

Test(seccomp_table, variants_and_names)
{
	size_t n = 7;

	cr_assert_str_eq(policy_seccomp_variant_name(POLICY_SECCOMP_BASE), "base");
	cr_assert_null(policy_seccomp_variant_name(POLICY_SECCOMP_VARIANT_COUNT));
	cr_assert_null(policy_seccomp_rules(POLICY_SECCOMP_VARIANT_COUNT, &n));
	cr_assert_eq(n, 0);
	cr_assert_null(policy_seccomp_rules((enum policy_seccomp_variant)-1, &n));
	cr_assert_eq(policy_seccomp_check(POLICY_SECCOMP_VARIANT_COUNT, NULL, NULL),
		     POLICY_SC_TABLE_BAD_VARIANT);
}

/* Every syscall docs/defaults.md refuses outright (plus the ones the
 * brief added beside it), with the errno it gets. */
static const struct {
	const char *name;
	int err;
} whole_syscalls[] = {
	{ "ptrace", EPERM },          { "process_vm_readv", EPERM },
	{ "process_vm_writev", EPERM }, { "pidfd_getfd", EPERM },
	{ "userfaultfd", EPERM },     { "keyctl", EPERM },
	{ "add_key", EPERM },         { "request_key", EPERM },
	{ "bpf", EPERM },             { "perf_event_open", EPERM },
	{ "mount", EPERM },           { "umount2", EPERM },
	{ "pivot_root", EPERM },      { "open_tree", EPERM },
	{ "move_mount", EPERM },      { "fsopen", EPERM },
	{ "fsconfig", EPERM },        { "fsmount", EPERM },
	{ "fspick", EPERM },          { "mount_setattr", EPERM },
	{ "unshare", EPERM },         { "setns", EPERM },
	{ "open_by_handle_at", EPERM }, { "name_to_handle_at", EPERM },
	{ "kexec_load", EPERM },      { "kexec_file_load", EPERM },
	{ "init_module", EPERM },     { "finit_module", EPERM },
	{ "delete_module", EPERM },   { "reboot", EPERM },
	{ "swapon", EPERM },          { "swapoff", EPERM },
	{ "acct", EPERM },            { "quotactl", EPERM },
	{ "quotactl_fd", EPERM },     { "sethostname", EPERM },
	{ "setdomainname", EPERM },   { "ioperm", EPERM },
	{ "iopl", EPERM },            { "syslog", EPERM },
	{ "lookup_dcookie", EPERM },  { "uselib", EPERM },
	{ "vhangup", EPERM },
	{ "io_uring_setup", ENOSYS }, { "io_uring_enter", ENOSYS },
	{ "io_uring_register", ENOSYS }, { "clone3", ENOSYS },
};

Test(seccomp_table, every_whole_syscall_refusal_is_one_unconditional_row)
{
	size_t n;
	const struct policy_syscall_rule *r = base(&n);

	for (size_t i = 0; i < ARRAY_LEN(whole_syscalls); i++) {
		size_t rows = 0;
		for (size_t j = 0; j < n; j++) {
			if (strcmp(r[j].syscall, whole_syscalls[i].name) != 0)
				continue;
			rows++;
			cr_expect_eq(r[j].n_args, 0, "%s must be refused whatever its arguments",
				     whole_syscalls[i].name);
			cr_expect_eq(r[j].action, POLICY_SC_ERRNO, "%s", whole_syscalls[i].name);
			cr_expect_eq(r[j].err, whole_syscalls[i].err, "%s: errno %d, want %d",
				     whole_syscalls[i].name, r[j].err, whole_syscalls[i].err);
		}
		cr_expect_eq(rows, 1, "%s: %zu rows", whole_syscalls[i].name, rows);
		cr_expect_eq(verdict(whole_syscalls[i].name, 0, 0, 0, 0, 0), whole_syscalls[i].err);
		cr_expect_eq(verdict(whole_syscalls[i].name, ~0ULL, 1, 2, 3, 4), whole_syscalls[i].err);
	}
}

Test(seccomp_table, unconditional_rows_are_exactly_the_whole_syscall_list)
{
	size_t n;
	const struct policy_syscall_rule *r = base(&n);

	for (size_t j = 0; j < n; j++) {
		bool listed = false;
		if (r[j].n_args != 0)
			continue;
		for (size_t i = 0; i < ARRAY_LEN(whole_syscalls); i++)
			listed |= strcmp(r[j].syscall, whole_syscalls[i].name) == 0;
		cr_expect(listed, "row %zu refuses all of %s, which the reference does not", j,
			  r[j].syscall);
	}
}

Test(seccomp_table, every_row_says_why_and_no_row_repeats)
{
	size_t n;
	const struct policy_syscall_rule *r = base(&n);

	for (size_t i = 0; i < n; i++) {
		cr_expect_not_null(r[i].why, "row %zu (%s)", i, r[i].syscall);
		if (r[i].why)
			cr_expect_geq(strlen(r[i].why), 20, "row %zu (%s): \"%s\" explains nothing", i,
				      r[i].syscall, r[i].why);
		cr_expect_leq(r[i].n_args, POLICY_SC_MAX_ARGS);
		for (size_t j = i + 1; j < n; j++) {
			if (strcmp(r[i].syscall, r[j].syscall) != 0 || r[i].n_args != r[j].n_args)
				continue;
			cr_expect(memcmp(r[i].args, r[j].args, sizeof(r[i].args[0]) * r[i].n_args) != 0,
				  "rows %zu and %zu (%s) are the same", i, j, r[i].syscall);
		}
	}
}

Test(seccomp_table, base_variant_never_kills_on_a_row)
{
	size_t n;
	const struct policy_syscall_rule *r = base(&n);

	/* Killing is for a foreign architecture only; a refused call must get
	 * an errno the program can handle. */
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(r[i].action, POLICY_SC_ERRNO, "row %zu (%s)", i, r[i].syscall);
}

Test(seccomp_table, clone_with_any_namespace_flag)
{
	static const uint64_t ns[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
				       CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_NEWTIME };
	const uint64_t thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
				CLONE_CHILD_CLEARTID;

	for (size_t i = 0; i < ARRAY_LEN(ns); i++) {
		cr_expect_eq(verdict("clone", ns[i] | SIGCHLD, 0, 0, 0, 0), EPERM, "flag %#lx",
			     (unsigned long)ns[i]);
		cr_expect_eq(verdict("clone", ns[i] | thread, 0, 0, 0, 0), EPERM);
		cr_expect_eq(verdict("clone", ns[i] | (1ULL << 40), 0, 0, 0, 0), EPERM);
	}
	cr_expect_eq(verdict("clone", CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0),
		     EPERM);
	/* fork, vfork and pthread_create stay allowed. */
	cr_expect_eq(verdict("clone", SIGCHLD, 0, 0, 0, 0), 0);
	cr_expect_eq(verdict("clone", CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0), 0);
	cr_expect_eq(verdict("clone", thread, 0, 0, 0, 0), 0);
	cr_expect_eq(verdict("clone", CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0, 0, 0), 0);
}

Test(seccomp_table, ioctl_terminal_injection)
{
	cr_expect_eq(verdict("ioctl", 0, TIOCSTI, 0, 0, 0), EPERM);
	cr_expect_eq(verdict("ioctl", 0, TIOCLINUX, 0, 0, 0), EPERM);
	/* The kernel truncates cmd to 32 bits (unsigned int). */
	cr_expect_eq(verdict("ioctl", 0, 0x100000000ULL | TIOCSTI, 0, 0, 0), EPERM);
	cr_expect_eq(verdict("ioctl", 0, 0xffffffff00000000ULL | TIOCLINUX, 0, 0, 0), EPERM);
	cr_expect_eq(verdict("ioctl", 5, TIOCGWINSZ, 0, 0, 0), 0);
	cr_expect_eq(verdict("ioctl", 5, TIOCSWINSZ, 0, 0, 0), 0);
	cr_expect_eq(verdict("ioctl", 5, FIONREAD, 0, 0, 0), 0);
	cr_expect_eq(verdict("ioctl", TIOCSTI, 0, 0, 0, 0), 0, "fd numbers do not matter");
	cr_expect_eq(verdict("ioctl", 0, TIOCSTI + 1, 0, 0, 0), 0);
}

Test(seccomp_table, ioctl_line_discipline)
{
	cr_expect_eq(verdict("ioctl", 0, TIOCSETD, 0, 0, 0), EPERM);
	cr_expect_eq(verdict("ioctl", 7, 0x100000000ULL | TIOCSETD, 0, 0, 0), EPERM);
	cr_expect_eq(verdict("ioctl", 0, TIOCGETD, 0, 0, 0), 0, "reading it back stays allowed");
}

Test(seccomp_table, process_group_priorities)
{
	/* who == 0 is the caller's group: porta's, outside the sandbox. */
	cr_expect_eq(verdict("setpriority", PRIO_PGRP, 0, 7, 0, 0), EPERM);
	cr_expect_eq(verdict("setpriority", 0xffffffff00000000ULL | PRIO_PGRP, 0x100000000ULL, 7, 0, 0),
		     EPERM, "int arguments: the kernel reads the low 32 bits");
	cr_expect_eq(verdict("setpriority", PRIO_PGRP, 42, 7, 0, 0), 0, "a group by its own number");
	cr_expect_eq(verdict("setpriority", PRIO_PROCESS, 0, 7, 0, 0), 0, "nice(1) on itself");
	cr_expect_eq(verdict("setpriority", PRIO_USER, 0, 7, 0, 0), 0);
	cr_expect_eq(verdict("ioprio_set", 2 /* IOPRIO_WHO_PGRP */, 0, 3 << 13, 0, 0), EPERM);
	cr_expect_eq(verdict("ioprio_set", 2, 42, 3 << 13, 0, 0), 0);
	cr_expect_eq(verdict("ioprio_set", 1 /* IOPRIO_WHO_PROCESS */, 0, 3 << 13, 0, 0), 0, "ionice on itself");
}

Test(seccomp_table, execveat_empty_path)
{
	cr_expect_eq(verdict("execveat", 3, 0, 0, 0, AT_EMPTY_PATH), EPERM);
	cr_expect_eq(verdict("execveat", 3, 0, 0, 0, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), EPERM);
	cr_expect_eq(verdict("execveat", (uint64_t)AT_FDCWD, 0, 0, 0, 0), 0);
	cr_expect_eq(verdict("execveat", 3, 0, 0, 0, AT_SYMLINK_NOFOLLOW), 0);
	cr_expect_eq(verdict("execve", 0, 0, 0, 0, AT_EMPTY_PATH), 0);
}

/* The reference for personality: only the two exact register values. */
static int personality_spec(uint64_t v)
{
	return v == 0 || v == 0xffffffffULL ? 0 : EPERM;
}

Test(seccomp_table, personality_only_linux_or_query)
{
	static const uint64_t vals[] = {
		0, 0xffffffffULL, PER_LINUX32, ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC,
		ADDR_COMPAT_LAYOUT, MMAP_PAGE_ZERO, ADDR_LIMIT_3GB, PER_BSD, PER_SVR4,
		0xfffffffeULL, 0x7fffffffULL, 0x80000000ULL, 0x7ffffffeULL, 1ULL << 32,
		(1ULL << 32) | 0xffffffffULL, ~0ULL, 0xffffffff00000000ULL,
		0x100000000ULL | ADDR_NO_RANDOMIZE,
	};
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < ARRAY_LEN(vals); i++)
		cr_expect_eq(verdict("personality", vals[i], 0, 0, 0, 0), personality_spec(vals[i]),
			     "personality(%#llx)", (unsigned long long)vals[i]);
	for (unsigned b = 0; b < 64; b++) {
		cr_expect_eq(verdict("personality", 1ULL << b, 0, 0, 0, 0), EPERM, "bit %u", b);
		cr_expect_eq(verdict("personality", 0xffffffffULL & ~(1ULL << b), 0, 0, 0, 0),
			     personality_spec(0xffffffffULL & ~(1ULL << b)), "all but bit %u", b);
	}
	for (int i = 0; i < 20000; i++) {
		/* xorshift64: cheap, reproducible spread over both halves */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = i & 1 ? (x & 0xffffffffULL) : x;
		cr_assert_eq(verdict("personality", v, 0, 0, 0, 0), personality_spec(v), "%#llx",
			     (unsigned long long)v);
	}
}

/* The reference for socket(2), written from the brief rather than from the
 * table: an allowlist of families (a register with upper bits set is no
 * allowed family), raw and packet types refused except in netlink, MPTCP
 * refused, netlink only NETLINK_ROUTE. */
static int socket_spec(uint64_t fam, uint64_t type, uint64_t proto)
{
	if (fam != AF_UNIX && fam != AF_INET && fam != AF_INET6 && fam != AF_NETLINK)
		return EAFNOSUPPORT;
	if (fam == AF_NETLINK)
		return proto == NETLINK_ROUTE ? 0 : EPERM;
	if ((type & 0xf) == SOCK_RAW || (type & 0xf) == SOCK_PACKET)
		return EPERM;
	if ((fam == AF_INET || fam == AF_INET6) && (proto & 0xffffffffULL) == IPPROTO_MPTCP)
		return EPERM;
	return 0;
}

Test(seccomp_table, socket_sweep_matches_the_reference)
{
	static const uint64_t types[] = {
		SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET,
		SOCK_RAW | SOCK_CLOEXEC, SOCK_PACKET | SOCK_NONBLOCK, SOCK_STREAM | SOCK_CLOEXEC,
		(1ULL << 32) | SOCK_RAW, 0xf0ULL | SOCK_DGRAM, 0,
	};
	static const uint64_t protos[] = {
		0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_MPTCP, IPPROTO_ICMPV6,
		(1ULL << 32) | IPPROTO_MPTCP, NETLINK_ROUTE, NETLINK_SOCK_DIAG, NETLINK_AUDIT,
		NETLINK_KOBJECT_UEVENT, NETLINK_GENERIC, 1ULL << 32, ~0ULL, 0x0300,
	};
	size_t checked = 0;

	for (uint64_t f = 0; f < 80; f++) {
		const uint64_t fams[] = { f, f | (1ULL << 32), f | 0xffffffff00000000ULL };
		for (size_t k = 0; k < ARRAY_LEN(fams); k++)
			for (size_t t = 0; t < ARRAY_LEN(types); t++)
				for (size_t p = 0; p < ARRAY_LEN(protos); p++) {
					int want = socket_spec(fams[k], types[t], protos[p]);
					int got = verdict("socket", fams[k], types[t], protos[p], 0, 0);
					cr_assert_eq(got, want, "socket(%#llx, %#llx, %#llx): %d, want %d",
						     (unsigned long long)fams[k],
						     (unsigned long long)types[t],
						     (unsigned long long)protos[p], got, want);
					checked++;
				}
	}
	cr_assert_gt(checked, 10000);
	cr_expect_eq(verdict("socket", ~0ULL, SOCK_STREAM, 0, 0, 0), EAFNOSUPPORT);
}

Test(seccomp_table, socket_named_cases)
{
	cr_expect_eq(verdict("socket", AF_PACKET, SOCK_RAW, 0x0300, 0, 0), EAFNOSUPPORT);
	cr_expect_eq(verdict("socket", AF_VSOCK, SOCK_STREAM, 0, 0, 0), EAFNOSUPPORT);
	cr_expect_eq(verdict("socket", AF_BLUETOOTH, SOCK_SEQPACKET, 0, 0, 0), EAFNOSUPPORT);
	cr_expect_eq(verdict("socket", AF_ALG, SOCK_SEQPACKET, 0, 0, 0), EAFNOSUPPORT);
	cr_expect_eq(verdict("socket", AF_INET, SOCK_RAW, IPPROTO_ICMP, 0, 0), EPERM);
	cr_expect_eq(verdict("socket", AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6, 0, 0), EPERM);
	cr_expect_eq(verdict("socket", AF_INET, SOCK_PACKET, 0x0300, 0, 0), EPERM);
	cr_expect_eq(verdict("socket", AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP, 0, 0), EPERM);
	cr_expect_eq(verdict("socket", AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT, 0, 0), EPERM);
	/* What porta itself, ip(8), curl and ping use. */
	cr_expect_eq(verdict("socket", AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE, 0, 0), 0);
	cr_expect_eq(verdict("socket", AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE, 0, 0), 0);
	cr_expect_eq(verdict("socket", AF_INET, SOCK_STREAM, 0, 0, 0), 0);
	cr_expect_eq(verdict("socket", AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, IPPROTO_UDP, 0, 0), 0);
	cr_expect_eq(verdict("socket", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0, 0), 0, "ping sockets");
	cr_expect_eq(verdict("socket", AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0), 0);
	cr_expect_eq(verdict("socketpair", AF_UNIX, SOCK_STREAM, 0, 0, 0), 0);
	cr_expect_eq(verdict("socketpair", AF_INET, SOCK_STREAM, 0, 0, 0), EAFNOSUPPORT);
	cr_expect_eq(verdict("socketpair", AF_UNIX | (1ULL << 32), SOCK_STREAM, 0, 0, 0), EAFNOSUPPORT);
}

Test(seccomp_table, memfd_must_be_created_sealed)
{
	cr_expect_eq(verdict("memfd_create", 0, 0, 0, 0, 0), EACCES);
	cr_expect_eq(verdict("memfd_create", 0, MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0), EACCES);
	cr_expect_eq(verdict("memfd_create", 0, MFD_EXEC, 0, 0, 0), EACCES);
	cr_expect_eq(verdict("memfd_create", 0, MFD_NOEXEC_SEAL, 0, 0, 0), 0);
	cr_expect_eq(verdict("memfd_create", 0, MFD_CLOEXEC | MFD_NOEXEC_SEAL, 0, 0, 0), 0);
}

Test(seccomp_table, unrelated_syscalls_are_allowed)
{
	static const char *const names[] = { "read", "write", "openat", "connect", "execve",
					     "clone" /* no flags */, "wait4",
					     "pidfd_open", "landlock_create_ruleset" };

	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		cr_expect_null(decide(names[i], 0, 0, 0, 0, 0), "%s", names[i]);
}

/* --- the checker on rows built to fail it ----------------------------- */

#define ROW(name, e, n, ...) \
	((struct policy_syscall_rule){ name, POLICY_SC_ERRNO, e, n, { __VA_ARGS__ }, "a reason long enough" })
#define A(i, o, v) { .index = (i), .op = POLICY_SC_##o, .value = (v) }
#define M(i, m, v) { .index = (i), .op = POLICY_SC_MASKED_EQ, .value = (v), .mask = (m) }

static enum policy_sc_table_status check2(struct policy_syscall_rule a, struct policy_syscall_rule b)
{
	struct policy_syscall_rule rows[2] = { a, b };
	size_t i = 99, j = 99;
	enum policy_sc_table_status st = policy_seccomp_check_rows(rows, 2, &i, &j);

	if (st == POLICY_SC_TABLE_OK) {
		cr_expect_eq(i, 0);
		cr_expect_eq(j, 0);
	} else if (st == POLICY_SC_TABLE_CONFLICT || st == POLICY_SC_TABLE_DUPLICATE) {
		cr_expect_eq(i, 0);
		cr_expect_eq(j, 1);
	}
	return st;
}

Test(seccomp_table_check, overlap_with_different_verdicts_is_a_conflict)
{
	/* The libseccomp trap: "family 17" and "family 17 and SOCK_RAW". */
	cr_expect_eq(check2(ROW("socket", EAFNOSUPPORT, 1, A(0, EQ, 17)),
			    ROW("socket", EPERM, 2, A(0, EQ, 17), M(1, 0xf, 3))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("socket", EAFNOSUPPORT, 1, A(0, GE, 46)),
			    ROW("socket", EPERM, 1, A(0, EQ, 100))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("ioctl", EPERM, 1, M(1, 0xffffffff, 0x5412)),
			    ROW("ioctl", EINVAL, 1, A(1, GT, 0x100000000ULL))),
		     POLICY_SC_TABLE_CONFLICT, "0x100005412 satisfies both");
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, NE, 1)), ROW("x", EINVAL, 1, A(0, NE, 2))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, NE, 5)), ROW("x", EINVAL, 1, M(0, 0xf, 5))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, LT, 10)), ROW("x", EINVAL, 1, A(0, GE, 9))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, EQ, 1)), ROW("x", EINVAL, 1, A(1, EQ, 1))),
		     POLICY_SC_TABLE_CONFLICT, "different arguments are independent");
}

Test(seccomp_table_check, disjoint_rows_with_different_verdicts_are_fine)
{
	cr_expect_eq(check2(ROW("socket", EAFNOSUPPORT, 1, A(0, EQ, 17)),
			    ROW("socket", EPERM, 2, A(0, EQ, 2), M(1, 0xf, 3))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("socket", EAFNOSUPPORT, 1, A(0, GE, 46)),
			    ROW("socket", EPERM, 1, A(0, EQ, 45))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, LT, 10)), ROW("x", EINVAL, 1, A(0, GE, 10))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, LE, 10)), ROW("x", EINVAL, 1, A(0, GT, 10))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0x3, 1)), ROW("x", EINVAL, 1, M(0, 0x6, 2))),
		     POLICY_SC_TABLE_OK, "bit 1 must be 0 for one and 1 for the other");
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0x3, 1)), ROW("x", EINVAL, 1, M(0, 0x6, 4))),
		     POLICY_SC_TABLE_CONFLICT, "5 satisfies both");
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, NE, 7)), ROW("x", EINVAL, 1, A(0, EQ, 7))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, NE, 7)), ROW("x", EINVAL, 1, M(0, ~0ULL, 7))),
		     POLICY_SC_TABLE_OK);
	/* A mask no value in a range satisfies: 0x10..0x1f never has bit 5. */
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0x20, 0x20)),
			    ROW("x", EINVAL, 1, A(0, LE, 0x1f))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0x20, 0x20)),
			    ROW("x", EINVAL, 1, A(0, LE, 0x20))),
		     POLICY_SC_TABLE_CONFLICT);
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0xf0, 0x50)),
			    ROW("x", EINVAL, 1, A(0, GE, 0x60))),
		     POLICY_SC_TABLE_CONFLICT, "0x150 is >= 0x60 and has 0x5 in bits 4-7");
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, ~0ULL, 0x50)),
			    ROW("x", EINVAL, 1, A(0, GE, 0x60))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("a", EPERM, 0), ROW("b", EINVAL, 0)), POLICY_SC_TABLE_OK);
}

Test(seccomp_table_check, masked_against_a_bound_agrees_with_brute_force)
{
	/* A mask that also pins every bit above 7 to zero makes an 8-bit world
	 * small enough to enumerate. */
	for (uint64_t m8 = 1; m8 < 256; m8 += 7)
		for (uint64_t w8 = 0; w8 < 256; w8++) {
			if (w8 & ~m8)
				continue;
			struct policy_syscall_rule mk = ROW("x", EPERM, 1, M(0, m8 | ~0xffULL, w8));
			for (uint64_t bound = 0; bound < 256; bound += 5) {
				bool above = false, below = false;
				for (uint64_t x = 0; x < 256; x++) {
					if ((x & m8) != w8)
						continue;
					above |= x >= bound;
					below |= x <= bound;
				}
				struct policy_syscall_rule ge = ROW("x", EINVAL, 1, A(0, GE, bound));
				struct policy_syscall_rule le = ROW("x", EINVAL, 1, A(0, LE, bound));
				struct policy_syscall_rule eq = ROW("x", EINVAL, 1, A(0, EQ, bound));
				cr_assert_eq(check2(mk, ge),
					     above ? POLICY_SC_TABLE_CONFLICT : POLICY_SC_TABLE_OK,
					     "m=%#llx w=%#llx >= %llu", (unsigned long long)m8,
					     (unsigned long long)w8, (unsigned long long)bound);
				cr_assert_eq(check2(mk, le),
					     below ? POLICY_SC_TABLE_CONFLICT : POLICY_SC_TABLE_OK);
				cr_assert_eq(check2(mk, eq),
					     (bound & m8) == w8 ? POLICY_SC_TABLE_CONFLICT
								: POLICY_SC_TABLE_OK);
			}
		}
	/* The top bit. */
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 1ULL << 63, 0)),
			    ROW("x", EINVAL, 1, A(0, GE, 1ULL << 63))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0xff00000000000000ULL, 0x1200000000000000ULL)),
			    ROW("x", EINVAL, 1, A(0, GE, 0x1300000000000000ULL))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, M(0, 0xff00000000000000ULL, 0x1200000000000000ULL)),
			    ROW("x", EINVAL, 1, A(0, GE, 0x11ff000000000000ULL))),
		     POLICY_SC_TABLE_CONFLICT);
}

Test(seccomp_table_check, duplicates)
{
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, EQ, 1)), ROW("x", EPERM, 1, A(0, EQ, 1))),
		     POLICY_SC_TABLE_DUPLICATE);
	cr_expect_eq(check2(ROW("x", EPERM, 2, A(0, EQ, 1), A(1, EQ, 2)),
			    ROW("x", EPERM, 2, A(1, EQ, 2), A(0, EQ, 1))),
		     POLICY_SC_TABLE_DUPLICATE, "order of comparisons does not matter");
	cr_expect_eq(check2(ROW("x", EPERM, 0), ROW("x", EPERM, 1, A(0, EQ, 1))),
		     POLICY_SC_TABLE_DUPLICATE, "an unconditional row swallows the rest");
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, EQ, 1)), ROW("x", EPERM, 1, A(0, EQ, 2))),
		     POLICY_SC_TABLE_OK);
	cr_expect_eq(check2(ROW("x", EPERM, 1, A(0, EQ, 1)), ROW("x", EPERM, 1, A(0, GE, 1))),
		     POLICY_SC_TABLE_OK, "overlap with the same verdict is allowed");
}

Test(seccomp_table_check, malformed_rows)
{
	struct policy_syscall_rule ok = ROW("x", EPERM, 0);
	struct policy_syscall_rule bad;
	size_t i = 99, j = 99;

	bad = ROW("x", EPERM, 1, A(6, EQ, 1));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "argument index 6");
	bad = ROW("x", EPERM, 2, A(0, EQ, 1), A(0, EQ, 2));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "two comparisons of arg0");
	bad = ROW("x", EPERM, 1, M(0, 0x0f, 0x10));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "value outside the mask");
	bad = ROW("x", EPERM, 1, M(0, 0, 0));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "empty mask");
	bad = ROW("x", EPERM, 1, A(0, LT, 0));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "LT 0 matches nothing");
	bad = ROW("x", EPERM, 1, A(0, GT, ~0ULL));
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW);
	bad = ROW("x", 0, 0);
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "errno 0 would allow");
	bad = ROW("x", 4096, 0);
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW);
	bad = ROW("x", EPERM, 4);
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_BAD_ROW, "n_args 4");
	bad = ROW("x", EPERM, 0);
	bad.why = "";
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_NO_WHY);
	bad.why = NULL;
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_NO_WHY);
	bad = ROW(NULL, EPERM, 0);
	cr_expect_eq(check2(ok, bad), POLICY_SC_TABLE_NO_WHY);

	bad = ROW("x", EPERM, 1, A(6, EQ, 1));
	cr_expect_eq(policy_seccomp_check_rows(&bad, 1, &i, &j), POLICY_SC_TABLE_BAD_ROW);
	cr_expect_eq(i, 0);
	cr_expect_eq(j, 0);
	cr_expect_eq(policy_seccomp_check_rows(NULL, 0, NULL, NULL), POLICY_SC_TABLE_OK);
	cr_expect_str_neq(policy_seccomp_status_str(POLICY_SC_TABLE_CONFLICT), "");
}

Test(seccomp_table_check, arg_matches_every_op)
{
	const struct policy_sc_arg eq = A(0, EQ, 5), ne = A(0, NE, 5), lt = A(0, LT, 5),
				   le = A(0, LE, 5), gt = A(0, GT, 5), ge = A(0, GE, 5),
				   mk = M(0, 0xf0, 0x50);

	cr_expect(policy_seccomp_arg_matches(&eq, 5) && !policy_seccomp_arg_matches(&eq, 6));
	cr_expect(!policy_seccomp_arg_matches(&ne, 5) && policy_seccomp_arg_matches(&ne, 6));
	cr_expect(policy_seccomp_arg_matches(&lt, 4) && !policy_seccomp_arg_matches(&lt, 5));
	cr_expect(policy_seccomp_arg_matches(&le, 5) && !policy_seccomp_arg_matches(&le, 6));
	cr_expect(policy_seccomp_arg_matches(&gt, 6) && !policy_seccomp_arg_matches(&gt, 5));
	cr_expect(policy_seccomp_arg_matches(&ge, 5) && !policy_seccomp_arg_matches(&ge, 4));
	cr_expect(policy_seccomp_arg_matches(&mk, 0x15f) && !policy_seccomp_arg_matches(&mk, 0x60));
	cr_expect(policy_seccomp_arg_matches(&gt, ~0ULL), "unsigned: ~0 is the largest value");
}

/* --- POLICY_SECCOMP_NOTIFY_CONNECT -------------------------------------- */

static const struct policy_syscall_rule *notify_decide(const char *sc, const uint64_t args[6])
{
	return policy_seccomp_match(POLICY_SECCOMP_NOTIFY_CONNECT, sc, args);
}

static bool notified(const char *sc, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		     uint64_t a4, uint64_t a5)
{
	const uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	const struct policy_syscall_rule *r = notify_decide(sc, args);
	return r && r->action == POLICY_SC_NOTIFY;
}

Test(seccomp_table, notify_variant_is_base_plus_notify_rows)
{
	size_t nb, nn, a = 99, b = 99;
	const struct policy_syscall_rule *rb = policy_seccomp_rules(POLICY_SECCOMP_BASE, &nb);
	const struct policy_syscall_rule *rn = policy_seccomp_rules(POLICY_SECCOMP_NOTIFY_CONNECT, &nn);
	enum policy_sc_table_status st = policy_seccomp_check(POLICY_SECCOMP_NOTIFY_CONNECT, &a, &b);

	cr_assert_eq(st, POLICY_SC_TABLE_OK, "%s: rows %zu and %zu", policy_seccomp_status_str(st), a, b);
	cr_assert_str_eq(policy_seccomp_variant_name(POLICY_SECCOMP_NOTIFY_CONNECT), "notify_connect");
	cr_assert_eq(rb, rn, "one table, two prefixes");
	cr_assert_gt(nn, nb);
	for (size_t i = 0; i < nb; i++)
		cr_assert_neq(rb[i].action, POLICY_SC_NOTIFY, "row %zu (%s): base never notifies", i,
			      rb[i].syscall);
	for (size_t i = nb; i < nn; i++)
		cr_assert_eq(rn[i].action, POLICY_SC_NOTIFY, "row %zu (%s)", i, rn[i].syscall);
	cr_assert_not(policy_seccomp_variant_notifies(POLICY_SECCOMP_BASE));
	cr_assert(policy_seccomp_variant_notifies(POLICY_SECCOMP_NOTIFY_CONNECT));
	cr_assert_not(policy_seccomp_variant_notifies(POLICY_SECCOMP_VARIANT_COUNT));
}

Test(seccomp_table, notify_variant_keeps_every_base_verdict)
{
	/* A base refusal stays a refusal with the same errno. */
	const uint64_t newuser[6] = { CLONE_NEWUSER, 0, 0, 0, 0, 0 };
	const uint64_t packet[6] = { AF_PACKET, SOCK_RAW, 0, 0, 0, 0 };
	const struct policy_syscall_rule *r;

	r = notify_decide("unshare", newuser);
	cr_assert(r && r->action == POLICY_SC_ERRNO && r->err == EPERM);
	r = notify_decide("clone", newuser);
	cr_assert(r && r->action == POLICY_SC_ERRNO && r->err == EPERM);
	r = notify_decide("socket", packet);
	cr_assert(r && r->action == POLICY_SC_ERRNO && r->err == EAFNOSUPPORT);
}

Test(seccomp_table, notify_variant_notifies_what_names_a_destination)
{
	const uint64_t p = 0x7ffd12345000ULL;

	/* connect: always, whatever the arguments. */
	cr_assert(notified("connect", 3, p, 16, 0, 0, 0));
	cr_assert(notified("connect", 3, 0, 0, 0, 0, 0));
	/* sendto: exactly when dest_addr (arg4) is not NULL; flags do not matter. */
	cr_assert(notified("sendto", 3, p, 10, 0, p, 16));
	cr_assert(notified("sendto", 3, p, 10, MSG_FASTOPEN, p, 16));
	cr_assert(notified("sendto", 3, p, 10, 0, 1ULL << 32, 0), "upper half of the pointer counts");
	cr_assert_not(notified("sendto", 3, p, 10, 0, 0, 16), "send(2) is sendto(..., NULL, 0)");
	cr_assert_not(notified("sendto", 3, p, 10, MSG_FASTOPEN, 0, 0));
	/* sendmsg/sendmmsg: always (a Unix datagram socket's destination is
	 * inside struct msghdr, out of the filter's reach). */
	cr_assert(notified("sendmsg", 3, p, MSG_FASTOPEN, 0, 0, 0));
	cr_assert(notified("sendmsg", 3, p, MSG_NOSIGNAL, 0, 0, 0));
	cr_assert(notified("sendmsg", 3, p, 0, 0, 0, 0));
	cr_assert(notified("sendmmsg", 3, p, 2, MSG_FASTOPEN, 0, 0));
	cr_assert(notified("sendmmsg", 3, p, 2, 0, 0, 0));
	/* Nothing else is notified. */
	cr_assert_not(notified("write", 3, p, 10, 0, 0, 0));
	cr_assert_not(notified("recvfrom", 3, p, 10, 0, p, p));
	cr_assert_not(notified("bind", 3, p, 16, 0, 0, 0));
	/* And the base variant notifies nothing. */
	const uint64_t args[6] = { 3, p, 16, 0, p, 16 };
	cr_assert_null(policy_seccomp_match(POLICY_SECCOMP_BASE, "connect", args));
	cr_assert_null(policy_seccomp_match(POLICY_SECCOMP_BASE, "sendto", args));
}

/* --- POLICY_SECCOMP_CLOSED_NET ------------------------------------------ *
 *
 * A second filter on hosts without user namespaces: Landlock confines TCP
 * only, so every other IP socket and TCP Fast Open (which connects without
 * connect(2)) is refused.  A table of its own, stacked on BASE or
 * NOTIFY_CONNECT, not a prefix of theirs. */

static const struct policy_syscall_rule *closed(const char *sc, uint64_t a0, uint64_t a1,
						uint64_t a2, uint64_t a3, uint64_t a4)
{
	const uint64_t args[6] = { a0, a1, a2, a3, a4, 0 };
	return policy_seccomp_match(POLICY_SECCOMP_CLOSED_NET, sc, args);
}

/* The errno CLOSED_NET gives a call, 0 when it lets it through. */
static int closed_verdict(const char *sc, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
			  uint64_t a4)
{
	const struct policy_syscall_rule *r = closed(sc, a0, a1, a2, a3, a4);
	if (!r)
		return 0;
	cr_assert_eq(r->action, POLICY_SC_ERRNO, "%s: closed_net only fails calls", sc);
	return r->err;
}

Test(seccomp_table, closed_net_is_a_table_of_its_own)
{
	size_t nb, nn, nc, a = 99, b = 99;
	const struct policy_syscall_rule *rb = policy_seccomp_rules(POLICY_SECCOMP_BASE, &nb);
	const struct policy_syscall_rule *rn = policy_seccomp_rules(POLICY_SECCOMP_NOTIFY_CONNECT, &nn);
	const struct policy_syscall_rule *rc = policy_seccomp_rules(POLICY_SECCOMP_CLOSED_NET, &nc);
	enum policy_sc_table_status st = policy_seccomp_check(POLICY_SECCOMP_CLOSED_NET, &a, &b);

	cr_assert_eq(st, POLICY_SC_TABLE_OK, "%s: rows %zu and %zu", policy_seccomp_status_str(st), a, b);
	cr_assert_eq(a, 0);
	cr_assert_eq(b, 0);
	cr_assert_str_eq(policy_seccomp_variant_name(POLICY_SECCOMP_CLOSED_NET), "closed_net");
	cr_assert_not_null(rc);
	cr_assert_gt(nc, 0);
	/* Not a prefix of the BASE/NOTIFY_CONNECT table, and no copy of it. */
	cr_assert_neq(rc, rb);
	cr_assert_neq(rc, rn);
	cr_assert_lt(nc, nb, "the base rows are not in it");
	for (size_t i = 0; i < nc; i++) {
		cr_assert_eq(rc[i].action, POLICY_SC_ERRNO, "row %zu (%s): it only refuses", i,
			     rc[i].syscall);
		cr_assert_eq(rc[i].err, EACCES, "row %zu (%s)", i, rc[i].syscall);
		cr_assert(strcmp(rc[i].syscall, "socket") == 0 || strcmp(rc[i].syscall, "sendto") == 0 ||
			  strcmp(rc[i].syscall, "sendmsg") == 0 || strcmp(rc[i].syscall, "sendmmsg") == 0,
			  "row %zu: %s", i, rc[i].syscall);
		cr_assert_not_null(rc[i].why);
		cr_assert_geq(strlen(rc[i].why), 20, "row %zu (%s)", i, rc[i].syscall);
		for (size_t j = 0; j < nb; j++)
			cr_assert_neq(&rc[i], &rb[j]);
	}
	cr_assert_not(policy_seccomp_variant_notifies(POLICY_SECCOMP_CLOSED_NET),
		      "a second filter cannot notify: the first holds the listener");
	/* Every variant has a name and passes the checker. */
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		cr_assert_not_null(policy_seccomp_variant_name((enum policy_seccomp_variant)v));
		cr_assert_eq(policy_seccomp_check((enum policy_seccomp_variant)v, NULL, NULL),
			     POLICY_SC_TABLE_OK, "variant %d", v);
	}
}

Test(seccomp_table, closed_net_named_cases)
{
	/* Refused: what Landlock's TCP rules do not see. */
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_DGRAM, 0, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0, 0), EACCES,
		     "ping sockets");
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, IPPROTO_UDP, 0, 0),
		     EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_STREAM, IPPROTO_SCTP, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_STREAM, IPPROTO_MPTCP, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP, 0, 0),
		     EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_DCCP, 0, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_RDM, 0, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("sendto", 3, 0x7ffd0000, 10, MSG_FASTOPEN, 0x7ffd1000), EACCES);
	cr_expect_eq(closed_verdict("sendto", 3, 0x7ffd0000, 10, MSG_FASTOPEN | MSG_NOSIGNAL, 0),
		     EACCES);
	cr_expect_eq(closed_verdict("sendmsg", 3, 0x7ffd0000, MSG_FASTOPEN, 0, 0), EACCES);
	cr_expect_eq(closed_verdict("sendmmsg", 3, 0x7ffd0000, 2, MSG_FASTOPEN, 0), EACCES);

	/* Allowed: TCP, which Landlock confines, and everything not IP. */
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_INET, SOCK_STREAM, IPPROTO_TCP, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_INET6, SOCK_STREAM, IPPROTO_TCP, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_UNIX, SOCK_DGRAM, 0, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, 0, 0), 0);
	cr_expect_eq(closed_verdict("socket", AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE, 0, 0), 0);
	cr_expect_eq(closed_verdict("sendto", 3, 0x7ffd0000, 10, 0, 0), 0, "send(2)");
	cr_expect_eq(closed_verdict("sendto", 3, 0x7ffd0000, 10, MSG_NOSIGNAL, 0x7ffd1000), 0,
		     "to an address, on a socket that can only be TCP or not IP");
	cr_expect_eq(closed_verdict("sendmsg", 3, 0x7ffd0000, MSG_NOSIGNAL, 0, 0), 0);
	cr_expect_eq(closed_verdict("sendmmsg", 3, 0x7ffd0000, MSG_FASTOPEN, 0, 0), 0,
		     "vlen is not flags");
	static const char *const others[] = { "connect", "bind", "listen", "write", "socketpair",
					      "recvfrom", "clone", "ptrace" };
	for (size_t i = 0; i < ARRAY_LEN(others); i++)
		cr_expect_null(closed(others[i], AF_INET, SOCK_DGRAM, MSG_FASTOPEN, MSG_FASTOPEN, 0),
			       "%s", others[i]);
}

/* The two filters together, against the intent written down here: an IP
 * socket is TCP (a stream socket of protocol 0 or IPPROTO_TCP) or refused.
 * Protocols 1..5 make no stream socket (the kernel answers EPROTONOSUPPORT
 * itself) and are left out. */
Test(seccomp_table, closed_net_stacked_on_base_leaves_only_tcp)
{
	static const uint64_t types[] = {
		SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET,
		SOCK_STREAM | SOCK_CLOEXEC, SOCK_STREAM | SOCK_NONBLOCK, SOCK_DGRAM | SOCK_CLOEXEC,
		(1ULL << 32) | SOCK_STREAM, (1ULL << 32) | SOCK_DGRAM, 0xf0ULL | SOCK_DGRAM,
	};
	static const uint64_t protos[] = {
		0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDPLITE, IPPROTO_SCTP, IPPROTO_MPTCP,
		IPPROTO_DCCP, IPPROTO_RAW, 1ULL << 32, (1ULL << 32) | IPPROTO_MPTCP,
	};
	const uint64_t fams[] = { AF_INET, AF_INET6, AF_INET | (1ULL << 32),
				  AF_INET6 | 0xffffffff00000000ULL };
	size_t checked = 0;

	for (size_t f = 0; f < ARRAY_LEN(fams); f++)
		for (size_t t = 0; t < ARRAY_LEN(types); t++)
			for (size_t p = 0; p < ARRAY_LEN(protos); p++) {
				uint64_t fam = fams[f], type = types[t], proto = protos[p];
				bool tcp = (fam == AF_INET || fam == AF_INET6) &&
					   (type & 0xf) == SOCK_STREAM &&
					   (proto == 0 || proto == IPPROTO_TCP);
				bool refused = verdict("socket", fam, type, proto, 0, 0) != 0 ||
					       closed_verdict("socket", fam, type, proto, 0, 0) != 0;
				cr_assert_eq(refused, !tcp, "socket(%#llx, %#llx, %#llx): %s",
					     (unsigned long long)fam, (unsigned long long)type,
					     (unsigned long long)proto, refused ? "refused" : "allowed");
				checked++;
			}
	cr_assert_eq(checked, ARRAY_LEN(fams) * ARRAY_LEN(types) * ARRAY_LEN(protos));
}

/* POLICY_SECCOMP_CORE_PINNED: setting RLIMIT_CORE is answered without effect,
 * reading it and every other limit are the program's. */
static const struct policy_syscall_rule *core_row(const char *sc, uint64_t a0, uint64_t a1,
						  uint64_t a2, uint64_t a3)
{
	const uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
	return policy_seccomp_match(POLICY_SECCOMP_CORE_PINNED, sc, args);
}

Test(seccomp_table, core_pinned_named_cases)
{
	const uint64_t buf = 0x7ffd0000, buf2 = 0x7ffd1000;
	const struct policy_syscall_rule *r;

	r = core_row("setrlimit", RLIMIT_CORE, buf, 0, 0);
	cr_assert(r && r->action == POLICY_SC_SKIP, "setrlimit(RLIMIT_CORE)");
	r = core_row("setrlimit", (1ULL << 32) | RLIMIT_CORE, buf, 0, 0);
	cr_assert(r && r->action == POLICY_SC_SKIP, "the kernel reads 32 bits of the resource");
	cr_expect_null(core_row("setrlimit", RLIMIT_NOFILE, buf, 0, 0));
	cr_expect_null(core_row("setrlimit", RLIMIT_FSIZE, buf, 0, 0));

	r = core_row("prlimit64", 0, RLIMIT_CORE, buf, 0);
	cr_assert(r && r->action == POLICY_SC_SKIP, "prlimit64 setting RLIMIT_CORE");
	r = core_row("prlimit64", 1234, RLIMIT_CORE, buf, 0);
	cr_assert(r && r->action == POLICY_SC_SKIP, "another process of the sandbox");
	r = core_row("prlimit64", 0, RLIMIT_CORE, buf, buf2);
	cr_assert(r && r->action == POLICY_SC_ERRNO && r->err == EPERM,
		  "setting and reading: refused, not left unfilled");
	cr_expect_null(core_row("prlimit64", 0, RLIMIT_CORE, 0, buf2), "reading is free");
	cr_expect_null(core_row("prlimit64", 0, RLIMIT_NOFILE, buf, buf2));
	cr_expect_null(core_row("getrlimit", RLIMIT_CORE, buf, 0, 0));

	cr_assert_not(policy_seccomp_variant_notifies(POLICY_SECCOMP_CORE_PINNED),
		      "a further filter cannot notify: the first holds the listener");
	cr_assert_str_eq(policy_seccomp_variant_name(POLICY_SECCOMP_CORE_PINNED), "core_pinned");
}
