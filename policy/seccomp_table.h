/* policy/seccomp_table.h: the seccomp policy as data.
 *
 * ARCHITECTURE: the syscalls porta refuses are rows of a table here, each
 * with the reason it exists.  Nothing in policy/ compiles or loads a filter:
 * tools/gen_seccomp turns the table into classic BPF with libseccomp at build
 * time, the generated program is linked into porta_sandbox, and
 * sandbox/seccomp.c installs it with seccomp(2) (libseccomp in the child
 * costs ~1.2 ms; see docs/design.md, Performance).  The table is x86_64's: clone's
 * flags are its first argument there, and any other architecture (i386 via
 * int $0x80, x32 syscall numbers) kills the process.
 *
 * Semantics of a variant's rows: a call that matches no row is allowed; a call
 * that matches a row gets that row's verdict.  Rows of one syscall with
 * different verdicts must be provably disjoint (policy_seccomp_check()),
 * because libseccomp silently keeps only one of two overlapping rules with
 * different actions.  Comparisons are on the full 64-bit register value; rows
 * that refuse a 32-bit argument's value mask it with 0xffffffff (the kernel
 * truncates int arguments, so 0x100005412 is TIOCSTI), while allowlists treat
 * a value with upper bits set as not on the list.
 *
 * Variants: the rows of BASE and NOTIFY_CONNECT are prefixes of one table, so
 * NOTIFY_CONNECT is the base rows plus its own set appended; CLOSED_NET,
 * DEGRADED and DEGRADED_ROOT are tables of their own, installed as further
 * filters on top of one of them on hosts without user namespaces;
 * CORE_PINNED is one too, installed where a crash's dump would go to a
 * program of the host (policy_plan.core_target).  A row
 * may name a syscall newer than the build host's libseccomp as "NR name"
 * (its x86_64 number, a space, its name).
 * POLICY_SECCOMP_NOTIFY_CONNECT (network policy mode) appends POLICY_SC_NOTIFY
 * rows: connect(2), sendto(2) with a destination, and sendmsg(2)/sendmmsg(2)
 * with MSG_FASTOPEN.  The supervisor (supervisor/watch.c) reads the
 * address, records who dialled what and refuses ports no rule names at once;
 * it never decides an allow (the kernel re-reads the address of a call it lets
 * through), the network namespace enforces.  Everything here is pure: no
 * syscalls, no globals beyond the const table.
 */
#ifndef PORTA_POLICY_SECCOMP_TABLE_H
#define PORTA_POLICY_SECCOMP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum policy_seccomp_variant {
	POLICY_SECCOMP_BASE,           /* every mode: the baseline of docs/defaults.md */
	POLICY_SECCOMP_NOTIFY_CONNECT, /* network policy mode: BASE plus a user
					* notification on every call that names a
					* destination the filter can see (connect,
					* sendto with an address, MSG_FASTOPEN) */
	POLICY_SECCOMP_CLOSED_NET,     /* a second filter on hosts without user
					* namespaces whose network is not open:
					* only TCP, which Landlock confines */
	POLICY_SECCOMP_DEGRADED,       /* a second filter on every host without
					* user namespaces: no SysV IPC, no POSIX
					* message queues (no IPC namespace) */
	POLICY_SECCOMP_DEGRADED_ROOT,  /* and, for uid 0 there, no change of a
					* file's mode, owner, times or xattrs */
	POLICY_SECCOMP_CORE_PINNED,    /* a further filter on any host whose
					* kernel.core_pattern hands dumps to a
					* program: RLIMIT_CORE stays at 1 */
	POLICY_SECCOMP_VARIANT_COUNT,
};

enum policy_sc_action {
	POLICY_SC_ERRNO, /* fail the call with the row's err */
	POLICY_SC_KILL,  /* kill the whole process (SECCOMP_RET_KILL_PROCESS) */
	POLICY_SC_NOTIFY, /* stop the call and ask the supervisor
			   * (SECCOMP_RET_USER_NOTIF, seccomp_unotify(2)); err unused */
	POLICY_SC_SKIP,   /* answer success without running the call
			   * (SECCOMP_RET_ERRNO with 0, seccomp(2)); err unused.
			   * Only for a setting the sandbox keeps where a refusal
			   * would stop programs that only ask for less */
};

/* How an argument is compared; value and mask are 64-bit, as seccomp sees
 * the registers (struct seccomp_data.args, seccomp(2)). */
enum policy_sc_op {
	POLICY_SC_EQ,        /* arg == value */
	POLICY_SC_NE,        /* arg != value */
	POLICY_SC_LT,        /* arg <  value, unsigned */
	POLICY_SC_LE,        /* arg <= value, unsigned */
	POLICY_SC_GT,        /* arg >  value, unsigned */
	POLICY_SC_GE,        /* arg >= value, unsigned */
	POLICY_SC_MASKED_EQ, /* (arg & mask) == value */
};

struct policy_sc_arg {
	uint8_t index; /* 0..5 */
	enum policy_sc_op op;
	uint64_t value;
	uint64_t mask; /* POLICY_SC_MASKED_EQ only */
};

#define POLICY_SC_MAX_ARGS 3

/* One row: a call to `syscall` whose arguments satisfy all of args[0..n_args)
 * gets `action` (with errno `err` for POLICY_SC_ERRNO).  n_args == 0 matches
 * every call.  At most one comparison per argument index (libseccomp's rule). */
struct policy_syscall_rule {
	const char *syscall; /* kernel name, as seccomp_syscall_resolve_name() knows it */
	enum policy_sc_action action;
	int err;
	uint8_t n_args;
	struct policy_sc_arg args[POLICY_SC_MAX_ARGS];
	const char *why; /* one line for `porta explain` and reviewers */
};

/* What policy_seccomp_check() found. */
enum policy_sc_table_status {
	POLICY_SC_TABLE_OK,
	POLICY_SC_TABLE_BAD_VARIANT, /* v is not a variant */
	POLICY_SC_TABLE_NO_WHY,      /* a row without a reason, or without a name */
	POLICY_SC_TABLE_BAD_ROW,     /* n_args > 3, index > 5, two comparisons of
				      * one argument, a mask that cannot match,
				      * an errno outside 1..4095, an unknown op */
	POLICY_SC_TABLE_DUPLICATE,   /* two rows with the same conditions, or a
				      * row without conditions next to others of
				      * its syscall (libseccomp would merge them) */
	POLICY_SC_TABLE_CONFLICT,    /* two rows with different verdicts that are
				      * not provably disjoint */
};

/* Returns the rows of variant v (static storage, never freed) and stores
 * their count in *n.  Returns NULL and *n = 0 for a value that is not a
 * variant.  Pure. */
const struct policy_syscall_rule *policy_seccomp_rules(enum policy_seccomp_variant v, size_t *n);

/* Returns the variant's short name ("base", "notify_connect"), a C
 * identifier used for generated symbol names and by `porta explain`; NULL for
 * a value that is not a variant.  Pure. */
const char *policy_seccomp_variant_name(enum policy_seccomp_variant v);

/* True when some row of variant v has POLICY_SC_NOTIFY: such a filter must be
 * installed with a listener (sandbox_seccomp_install_listener()), since a
 * notifying filter without one fails every notified call with ENOSYS.  False
 * for a value that is not a variant.  Pure. */
bool policy_seccomp_variant_notifies(enum policy_seccomp_variant v);

/* Returns true when value satisfies the comparison a.  Pure. */
bool policy_seccomp_arg_matches(const struct policy_sc_arg *a, uint64_t value);

/* The reference semantics of variant v: returns the first row of v whose
 * syscall is `syscall` and whose comparisons args[] (the six argument
 * registers) satisfy, or NULL when the call is allowed.  The check below
 * guarantees every matching row has the same verdict, so "first" only picks
 * which reason to show.  Pure; the generated BPF must agree with it. */
const struct policy_syscall_rule *policy_seccomp_match(enum policy_seccomp_variant v,
						       const char *syscall,
						       const uint64_t args[6]);

/* Validates the n rows at r (see enum policy_sc_table_status); r is only
 * read.  On failure *first and *second (either may be NULL) get the indices
 * of the offending rows (the same index twice for a one-row problem); on
 * success both get 0.  Rows of one syscall with different verdicts must
 * differ on some argument both compare (an EQ against another value, disjoint
 * ranges, masks that disagree on a bit): the overlap test is exact.  Pure. */
enum policy_sc_table_status policy_seccomp_check_rows(const struct policy_syscall_rule *r, size_t n,
						      size_t *first, size_t *second);

/* policy_seccomp_check_rows() on variant v's rows; POLICY_SC_TABLE_BAD_VARIANT
 * when v is not a variant.  The generator refuses to build from a table that
 * fails this.  Pure. */
enum policy_sc_table_status policy_seccomp_check(enum policy_seccomp_variant v,
						 size_t *first, size_t *second);

/* A fixed English description of a status, for build-time messages.  Pure. */
const char *policy_seccomp_status_str(enum policy_sc_table_status s);

#endif /* PORTA_POLICY_SECCOMP_TABLE_H */
