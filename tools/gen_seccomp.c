/* tools/gen_seccomp.c: compiles policy/seccomp_table.c into classic BPF at
 * build time.
 *
 * Runs on the build host, never in the sandbox: for each variant it checks
 * the table (policy_seccomp_check), builds the filter with libseccomp for
 * x86_64 (default ALLOW, any other architecture and x32 KILL_PROCESS), exports
 * the program with seccomp_export_bpf(3) into a memfd, and writes one C file
 * holding every program plus sandbox_seccomp_prog() (declared in
 * sandbox/seccomp.h).  Optionally it also writes libseccomp's pseudo filter
 * code (seccomp_export_pfc(3)) for people reading the build.
 *
 * Usage: gen_seccomp OUT.c [OUT.pfc].  Exit 0 on success; on any problem
 * (unknown syscall name, table conflict, libseccomp error) a message on stderr
 * and exit 1, which fails the build.  The output is written to a temporary
 * name and renamed, so a failed run never leaves a half file behind.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/seccomp_table.h"

struct compiled {
	struct sock_filter *insns;
	size_t len;
	size_t n_rows;
};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("gen_seccomp: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static enum scmp_compare to_scmp_op(enum policy_sc_op op)
{
	switch (op) {
	case POLICY_SC_EQ:
		return SCMP_CMP_EQ;
	case POLICY_SC_NE:
		return SCMP_CMP_NE;
	case POLICY_SC_LT:
		return SCMP_CMP_LT;
	case POLICY_SC_LE:
		return SCMP_CMP_LE;
	case POLICY_SC_GT:
		return SCMP_CMP_GT;
	case POLICY_SC_GE:
		return SCMP_CMP_GE;
	case POLICY_SC_MASKED_EQ:
		return SCMP_CMP_MASKED_EQ;
	}
	return _SCMP_CMP_MIN; /* rejected by libseccomp; the check rules it out */
}

static uint32_t to_scmp_action(const struct policy_syscall_rule *r)
{
	switch (r->action) {
	case POLICY_SC_ERRNO:
		return SCMP_ACT_ERRNO((uint32_t)r->err);
	case POLICY_SC_KILL:
		return SCMP_ACT_KILL_PROCESS;
	case POLICY_SC_NOTIFY:
		/* SECCOMP_RET_USER_NOTIF: libseccomp only checks that the build
		 * host's kernel knows the action; the program is exported, never
		 * loaded here. */
		return SCMP_ACT_NOTIFY;
	case POLICY_SC_SKIP:
		/* errno 0: the call returns 0 and never runs (seccomp(2),
		 * SECCOMP_RET_ERRNO) */
		return SCMP_ACT_ERRNO(0);
	}
	return SCMP_ACT_KILL_PROCESS;
}

/* Reads the whole of fd (positioned anywhere) into a malloc'd buffer. */
static int slurp(int fd, uint8_t **out, size_t *out_len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return -errno;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			free(buf);
			return -err;
		}
		got += (size_t)n;
	}
	*out = buf;
	*out_len = got;
	return 0;
}

static int add_row(scmp_filter_ctx ctx, const char *vname, size_t idx,
		   const struct policy_syscall_rule *r)
{
	struct scmp_arg_cmp cmp[POLICY_SC_MAX_ARGS];
	/* A row may name a syscall newer than this libseccomp by its x86_64
	 * number ("452 fchmodat2": the number, a space, the name). */
	int nr = r->syscall[0] >= '0' && r->syscall[0] <= '9'
			 ? atoi(r->syscall)
			 : seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, r->syscall);
	int rc;

	if (nr == __NR_SCMP_ERROR) {
		fail("variant %s, row %zu: libseccomp %u.%u.%u does not know a syscall "
		     "named \"%s\" on x86_64",
		     vname, idx, seccomp_version()->major, seccomp_version()->minor,
		     seccomp_version()->micro, r->syscall);
		return -ENOENT;
	}
	if (nr < 0) {
		/* A negative number is one of libseccomp's pseudo syscalls
		 * (multiplexed on some architectures): never a real x86_64 one. */
		fail("variant %s, row %zu: \"%s\" is not a real x86_64 syscall (%d)",
		     vname, idx, r->syscall, nr);
		return -ENOENT;
	}
	for (size_t i = 0; i < r->n_args; i++) {
		const struct policy_sc_arg *a = &r->args[i];

		cmp[i].arg = a->index;
		cmp[i].op = to_scmp_op(a->op);
		if (a->op == POLICY_SC_MASKED_EQ) {
			cmp[i].datum_a = a->mask;
			cmp[i].datum_b = a->value;
		} else {
			cmp[i].datum_a = a->value;
			cmp[i].datum_b = 0;
		}
	}
	/* _exact: fail rather than let libseccomp rewrite the row. */
	rc = seccomp_rule_add_exact_array(ctx, to_scmp_action(r), nr, r->n_args, cmp);
	if (rc < 0) {
		fail("variant %s, row %zu (%s): seccomp_rule_add_exact_array: %s",
		     vname, idx, r->syscall, strerror(-rc));
		return rc;
	}
	return 0;
}

static int compile_variant(enum policy_seccomp_variant v, FILE *pfc, struct compiled *out)
{
	const char *vname = policy_seccomp_variant_name(v);
	size_t n, bad1, bad2;
	const struct policy_syscall_rule *rows = policy_seccomp_rules(v, &n);
	enum policy_sc_table_status st = policy_seccomp_check(v, &bad1, &bad2);
	scmp_filter_ctx ctx = NULL;
	_cleanup_fd_ int mfd = -1;
	uint8_t *buf = NULL;
	size_t buf_len = 0;
	int rc;

	if (st != POLICY_SC_TABLE_OK) {
		fail("variant %s: %s: row %zu (%s) and row %zu (%s)", vname,
		     policy_seccomp_status_str(st), bad1,
		     bad1 < n && rows[bad1].syscall ? rows[bad1].syscall : "?", bad2,
		     bad2 < n && rows[bad2].syscall ? rows[bad2].syscall : "?");
		return -EINVAL;
	}

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fail("seccomp_init failed");
		return -ENOMEM;
	}
	/* The table is x86_64's whatever the build host is: make x86_64 the
	 * only architecture in the filter. */
	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		rc = seccomp_arch_add(ctx, SCMP_ARCH_X86_64);
		if (rc == 0)
			rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
		if (rc < 0) {
			fail("cannot target x86_64: %s", strerror(-rc));
			goto out;
		}
	}
	/* Foreign architecture: kill the whole process, not only the thread
	 * (SECCOMP_RET_KILL_PROCESS).  libseccomp sends x32 syscall numbers
	 * (bit 0x40000000) on an x86_64-only filter to this action too. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		fail("SCMP_FLTATR_ACT_BADARCH: %s", strerror(-rc));
		goto out;
	}
	/* Binary search over syscall numbers instead of a linear chain: every
	 * allowed syscall of the payload that the kernel's action cache cannot
	 * answer walks this program. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		fail("SCMP_FLTATR_CTL_OPTIMIZE: %s", strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		rc = add_row(ctx, vname, i, &rows[i]);
		if (rc < 0)
			goto out;
	}

	mfd = memfd_create("porta-seccomp-bpf", MFD_CLOEXEC);
	if (mfd < 0) {
		rc = -errno;
		fail("memfd_create: %s", strerror(-rc));
		goto out;
	}
	rc = seccomp_export_bpf(ctx, mfd);
	if (rc < 0) {
		fail("variant %s: seccomp_export_bpf: %s", vname, strerror(-rc));
		goto out;
	}
	rc = slurp(mfd, &buf, &buf_len);
	if (rc < 0) {
		fail("reading the exported program: %s", strerror(-rc));
		goto out;
	}
	if (buf_len == 0 || buf_len % sizeof(struct sock_filter) != 0 ||
	    buf_len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		fail("variant %s: exported program of %zu bytes is not 1..%d instructions",
		     vname, buf_len, BPF_MAXINSNS);
		rc = -E2BIG;
		goto out;
	}
	if (pfc) {
		fprintf(pfc, "# variant %s\n", vname);
		fflush(pfc);
		rc = seccomp_export_pfc(ctx, fileno(pfc));
		if (rc < 0) {
			fail("variant %s: seccomp_export_pfc: %s", vname, strerror(-rc));
			goto out;
		}
	}
	out->insns = (struct sock_filter *)buf;
	out->len = buf_len / sizeof(struct sock_filter);
	out->n_rows = n;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	seccomp_release(ctx);
	return rc;
}

/* A short disassembly of one instruction for the generated file's comments,
 * in the notation of the kernel's bpf_dbg/bpf_asm.  Jump targets are absolute
 * instruction indices. */
static void describe(const struct sock_filter *f, size_t at, char *buf, size_t cap)
{
	static const char *const jumps[] = { [BPF_JEQ >> 4] = "jeq", [BPF_JGT >> 4] = "jgt",
					     [BPF_JGE >> 4] = "jge", [BPF_JSET >> 4] = "jset" };
	uint32_t k = f->k;

	if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
		const char *what = "?";
		char argbuf[24];
		if (k == offsetof(struct seccomp_data, nr)) {
			what = "nr";
		} else if (k == offsetof(struct seccomp_data, arch)) {
			what = "arch";
		} else if (k >= offsetof(struct seccomp_data, args) && k < sizeof(struct seccomp_data)) {
			unsigned off = k - (unsigned)offsetof(struct seccomp_data, args);
			/* little endian: the low word comes first */
			snprintf(argbuf, sizeof(argbuf), "args[%u] %s", off / 8, off % 8 ? "hi" : "lo");
			what = argbuf;
		} else if (k >= offsetof(struct seccomp_data, instruction_pointer)) {
			what = "ip";
		}
		snprintf(buf, cap, "ld [%" PRIu32 "] %s", k, what);
	} else if (BPF_CLASS(f->code) == BPF_JMP && BPF_OP(f->code) == BPF_JA) {
		snprintf(buf, cap, "ja %zu", at + 1 + k);
	} else if (BPF_CLASS(f->code) == BPF_JMP && BPF_SRC(f->code) == BPF_K &&
		   (BPF_OP(f->code) >> 4) < ARRAY_LEN(jumps) && jumps[BPF_OP(f->code) >> 4]) {
		snprintf(buf, cap, "%s #0x%" PRIx32 ", %zu, %zu", jumps[BPF_OP(f->code) >> 4], k,
			 at + 1 + f->jt, at + 1 + f->jf);
	} else if (f->code == (BPF_ALU | BPF_AND | BPF_K)) {
		snprintf(buf, cap, "and #0x%" PRIx32, k);
	} else if (f->code == (BPF_RET | BPF_K)) {
		switch (k & SECCOMP_RET_ACTION_FULL) {
		case SECCOMP_RET_ALLOW:
			snprintf(buf, cap, "ret ALLOW");
			break;
		case SECCOMP_RET_ERRNO:
			snprintf(buf, cap, "ret ERRNO(%" PRIu32 ")", k & SECCOMP_RET_DATA);
			break;
		case SECCOMP_RET_KILL_PROCESS:
			snprintf(buf, cap, "ret KILL_PROCESS");
			break;
		case SECCOMP_RET_KILL_THREAD:
			snprintf(buf, cap, "ret KILL_THREAD");
			break;
		case SECCOMP_RET_USER_NOTIF:
			snprintf(buf, cap, "ret USER_NOTIF");
			break;
		default:
			snprintf(buf, cap, "ret #0x%08" PRIx32, k);
			break;
		}
	} else {
		snprintf(buf, cap, "op 0x%04x", f->code);
	}
}

static int write_c(FILE *f, const struct compiled *progs)
{
	const struct scmp_version *ver = seccomp_version();

	fprintf(f,
		"/* Generated by tools/gen_seccomp from policy/seccomp_table.c with\n"
		" * libseccomp %u.%u.%u.  Do not edit: change the table and rebuild.\n"
		" * The programs are x86_64's: default ALLOW, other architectures and\n"
		" * x32 syscall numbers KILL_PROCESS. */\n"
		"#include <errno.h>\n"
		"#include <stddef.h>\n"
		"#include <linux/filter.h>\n\n"
		"#include \"policy/seccomp_table.h\"\n"
		"#include \"sandbox/seccomp.h\"\n\n"
		"_Static_assert(POLICY_SECCOMP_VARIANT_COUNT == %d,\n"
		"               \"policy/seccomp_table.h changed: rebuild gen_seccomp's output\");\n",
		ver->major, ver->minor, ver->micro, (int)POLICY_SECCOMP_VARIANT_COUNT);

	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		const struct compiled *c = &progs[v];
		const char *name = policy_seccomp_variant_name((enum policy_seccomp_variant)v);

		fprintf(f, "\n/* variant \"%s\": %zu table rows, %zu instructions */\n", name,
			c->n_rows, c->len);
		fprintf(f, "static const struct sock_filter prog_%s[%zu] = {\n", name, c->len);
		for (size_t i = 0; i < c->len; i++) {
			char text[96];
			describe(&c->insns[i], i, text, sizeof(text));
			fprintf(f, "\t/* %4zu */ { 0x%04x, %3u, %3u, 0x%08" PRIx32 " }, /* %s */\n", i,
				c->insns[i].code, c->insns[i].jt, c->insns[i].jf, c->insns[i].k, text);
		}
		fprintf(f, "};\n");
	}

	fprintf(f,
		"\nstatic const struct {\n"
		"\tconst struct sock_filter *insns;\n"
		"\tsize_t len;\n"
		"} progs[POLICY_SECCOMP_VARIANT_COUNT] = {\n");
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++) {
		const char *name = policy_seccomp_variant_name((enum policy_seccomp_variant)v);
		fprintf(f, "\t[%d] = { prog_%s, %zu },\n", v, name, progs[v].len);
	}
	fprintf(f,
		"};\n\n"
		"int sandbox_seccomp_prog(enum policy_seccomp_variant v, const struct sock_filter **insns,\n"
		"\t\t\t size_t *len)\n"
		"{\n"
		"\tif ((unsigned)v >= POLICY_SECCOMP_VARIANT_COUNT)\n"
		"\t\treturn -EINVAL;\n"
		"\t*insns = progs[v].insns;\n"
		"\t*len = progs[v].len;\n"
		"\treturn 0;\n"
		"}\n");
	return ferror(f) ? -EIO : 0;
}

/* Writes the file at path through path.tmp and rename(2). */
static int write_atomically(const char *path, const struct compiled *progs)
{
	_cleanup_free_ char *tmp = NULL;
	FILE *f;
	int rc;

	if (asprintf(&tmp, "%s.tmp", path) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	f = fopen(tmp, "we");
	if (!f) {
		rc = -errno;
		fail("%s: %s", tmp, strerror(-rc));
		return rc;
	}
	rc = write_c(f, progs);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		fail("%s: %s", path, strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct compiled progs[POLICY_SECCOMP_VARIANT_COUNT] = { { 0 } };
	_cleanup_fclose_ FILE *pfc = NULL;
	int rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s OUT.c [OUT.pfc]\n", argv[0]);
		return 2;
	}
	if (argc == 3) {
		pfc = fopen(argv[2], "we");
		if (!pfc) {
			fail("%s: %s", argv[2], strerror(errno));
			return 1;
		}
	}
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT && rc == 0; v++)
		rc = compile_variant((enum policy_seccomp_variant)v, pfc, &progs[v]);
	if (rc == 0)
		rc = write_atomically(argv[1], progs);
	for (int v = 0; v < POLICY_SECCOMP_VARIANT_COUNT; v++)
		free(progs[v].insns);
	return rc == 0 ? 0 : 1;
}
