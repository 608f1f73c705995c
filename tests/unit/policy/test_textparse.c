/* tests/unit/policy/test_textparse.c: --env-file lines, /proc/net/unix lines,
 * .git files (policy/textparse.h).  Inputs are parsed from exact-size heap
 * copies, so a read past len is an ASan report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "policy/textparse.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, p, n);
	return c;
}

static bool span_inside(struct policy_span s, const uint8_t *buf, size_t len)
{
	return s.p >= buf && s.n <= len && (size_t)(s.p - buf) <= len - s.n;
}

/* ---- --env-file -------------------------------------------------------- */

/* Runs the parser to the end over buf and writes a trace: "KEY=VALUE|" per
 * assignment, "!N|" for a malformed line N, "$" at the end. */
static void envfile_trace(const void *data, size_t len, char *trace, size_t cap)
{
	uint8_t *buf = dup_exact(data, len);
	size_t pos = 0, line = 0, o = 0, prev_pos = 0;
	struct policy_span k, v;
	enum policy_envfile_status st;

	trace[0] = '\0';
	for (int guard = 0; guard < 10000; guard++) {
		st = policy_envfile_next(buf, len, &pos, &line, &k, &v);
		cr_assert_leq(pos, len, "pos past the end");
		if (st == POLICY_ENVFILE_END) {
			o += (size_t)snprintf(trace + o, cap - o, "$");
			break;
		}
		cr_assert_gt(pos, prev_pos, "no progress");
		prev_pos = pos;
		if (st == POLICY_ENVFILE_MALFORMED) {
			o += (size_t)snprintf(trace + o, cap - o, "!%zu|", line);
			continue;
		}
		cr_assert_eq(st, POLICY_ENVFILE_LINE);
		cr_assert(span_inside(k, buf, len) && span_inside(v, buf, len));
		cr_assert(k.n > 0);
		cr_assert_eq(k.p[k.n], '=');
		cr_assert(v.p == k.p + k.n + 1);
		o += (size_t)snprintf(trace + o, cap - o, "%.*s=%.*s|", (int)k.n, (const char *)k.p,
				      (int)v.n, (const char *)v.p);
	}
	cr_assert_eq(st, POLICY_ENVFILE_END, "never ended");
	cr_assert_lt(o, cap);
	free(buf);
}

#define S(lit) lit, sizeof(lit) - 1

/* cls: NULL for good input, else the malformed-input class it belongs to */
static const struct {
	const char *in;
	size_t len;
	const char *trace;
	const char *cls;
} env_vectors[] = {
	{ S("A=1\nB=2\n"), "A=1|B=2|$", NULL },
	{ S("A=1"), "A=1|$", NULL },
	{ S(""), "$", NULL },
	{ S("\n\n\n"), "$", NULL },
	{ S("# comment\n  # indented\n\t#tab\nA=1\n"), "A=1|$", NULL },
	{ S("export A=1\n"), "A=1|$", NULL },
	{ S("export=1\n"), "export=1|$", NULL },
	{ S("A=1\r\nB=2\r\n"), "A=1|B=2|$", NULL },
	{ S("A=1\r"), "A=1|$", NULL },
	{ S("\r\n\r\nA=x\r\n"), "A=x|$", NULL },
	{ S("A=\n"), "A=|$", NULL },
	{ S("A=b=c\n"), "A=b=c|$", NULL },
	{ S("A=  spaced  \n"), "A=  spaced  |$", NULL },
	{ S("A=\"quoted\" 'too'\n"), "A=\"quoted\" 'too'|$", NULL },
	{ S("A=1 # not a comment\n"), "A=1 # not a comment|$", NULL },
	{ S("  A=1\n\tB=2\n"), "A=1|B=2|$", NULL },
	{ S("_x9=ok\n"), "_x9=ok|$", NULL },
	{ S("A=\xc3\xa9\xff\n"), "A=\xc3\xa9\xff|$", NULL }, /* the value is bytes */
	{ S("A=1\n\n\nB=2"), "A=1|B=2|$", NULL },
	/* malformed lines, each named by its number; parsing goes on */
	{ S("NOEQ\nA=1\n"), "!1|A=1|$", "key" },
	{ S("A = 1\n"), "!1|$", "key" },
	{ S("A =1\n"), "!1|$", "key" },
	{ S("=1\n"), "!1|$", "key" },
	{ S("1A=x\n"), "!1|$", "key" },
	{ S("A-B=x\n"), "!1|$", "key" },
	{ S("A=1\n\nB\nC=3\n"), "A=1|!3|C=3|$", "key" },
	{ S("A=x\0y\nB=2"), "!1|B=2|$", "nul" },
	{ S("\0\n"), "!1|$", "nul" },
	{ S("# c\0mment\n"), "!1|$", "nul" }, /* a NUL anywhere in a line */
	{ S("export\n"), "!1|$", "export" },
	{ S("export \n"), "!1|$", "export" },
	{ S("export A\n"), "!1|$", "export" },
	{ S("export  A=1\n"), "!1|$", "export" },
	{ S("export\tA=1\n"), "!1|$", "export" },
	{ S("EXPORT A=1\n"), "!1|$", "export" },
	{ S("\xef\xbb\xbf" "A=1\n"), "!1|$", "key" }, /* a BOM is not part of a name */
};

static void env_class(const char *cls)
{
	size_t seen = 0;
	for (size_t i = 0; i < N_ELEMS(env_vectors); i++) {
		char trace[512];
		if (cls ? !env_vectors[i].cls || strcmp(env_vectors[i].cls, cls) != 0
			: env_vectors[i].cls != NULL)
			continue;
		seen++;
		envfile_trace(env_vectors[i].in, env_vectors[i].len, trace, sizeof(trace));
		cr_assert_str_eq(trace, env_vectors[i].trace, "vector %zu", i);
	}
	cr_assert_gt(seen, 0);
}

Test(textparse, envfile_vectors) { env_class(NULL); }
Test(textparse, envfile_bad_key) { env_class("key"); }
Test(textparse, envfile_nul_byte) { env_class("nul"); }
Test(textparse, envfile_bad_export) { env_class("export"); }

Test(textparse, envfile_line_numbers)
{
	const char in[] = "A=1\n# c\n\nB\r\nC=3\nD";
	uint8_t *buf = dup_exact(in, sizeof(in) - 1);
	size_t pos = 0, line = 0;
	struct policy_span k, v;
	static const struct {
		enum policy_envfile_status st;
		size_t line;
	} expect[] = {
		{ POLICY_ENVFILE_LINE, 1 },
		{ POLICY_ENVFILE_MALFORMED, 4 },
		{ POLICY_ENVFILE_LINE, 5 },
		{ POLICY_ENVFILE_MALFORMED, 6 },
		{ POLICY_ENVFILE_END, 6 },
		{ POLICY_ENVFILE_END, 6 }, /* END stays END */
	};
	for (size_t i = 0; i < N_ELEMS(expect); i++) {
		cr_assert_eq(policy_envfile_next(buf, sizeof(in) - 1, &pos, &line, &k, &v),
			     expect[i].st, "step %zu", i);
		cr_assert_eq(line, expect[i].line, "step %zu", i);
	}
	free(buf);
}

/* Truncation sweep.  Contract for every prefix buf[0..k) of a good file: the
 * lines that end inside the prefix give exactly the assignments they give in
 * the whole file; the cut last line gives nothing (blank or comment so far),
 * MALFORMED (its KEY= is not complete yet), or the same KEY with a prefix of
 * its VALUE; then END.  Spans never leave the prefix. */
Test(textparse, envfile_truncation_sweep)
{
	const char good[] = "# settings\nexport GOPATH=/home/u/go\n\nA=1\r\nLONG_NAME=with=equals "
			    "and spaces\n  INDENTED=yes\nEMPTY=\nLAST=no newline";
	const size_t n = sizeof(good) - 1;
	struct ev {
		size_t line;
		bool ok;
		char key[32], val[64];
	} full[16];
	size_t nfull = 0;

	{
		uint8_t *buf = dup_exact(good, n);
		size_t pos = 0, line = 0;
		struct policy_span k, v;
		enum policy_envfile_status st;
		while ((st = policy_envfile_next(buf, n, &pos, &line, &k, &v)) != POLICY_ENVFILE_END) {
			cr_assert_eq(st, POLICY_ENVFILE_LINE, "the good file has a bad line %zu", line);
			full[nfull].line = line;
			full[nfull].ok = true;
			snprintf(full[nfull].key, 32, "%.*s", (int)k.n, (const char *)k.p);
			snprintf(full[nfull].val, 64, "%.*s", (int)v.n, (const char *)v.p);
			nfull++;
		}
		free(buf);
	}
	cr_assert_eq(nfull, 6);

	for (size_t cut = 0; cut <= n; cut++) {
		uint8_t *buf = dup_exact(good, cut);
		size_t complete = 0;
		for (size_t i = 0; i < cut; i++)
			complete += good[i] == '\n';
		size_t pos = 0, line = 0, fi = 0;
		struct policy_span k, v;
		enum policy_envfile_status st;
		while ((st = policy_envfile_next(buf, cut, &pos, &line, &k, &v)) != POLICY_ENVFILE_END) {
			cr_assert_leq(pos, cut);
			if (line <= complete) {
				cr_assert_eq(st, POLICY_ENVFILE_LINE, "cut %zu line %zu", cut, line);
				cr_assert_lt(fi, nfull);
				cr_assert_eq(full[fi].line, line);
				cr_assert(k.n == strlen(full[fi].key) && !memcmp(k.p, full[fi].key, k.n));
				cr_assert(v.n == strlen(full[fi].val) && !memcmp(v.p, full[fi].val, v.n),
					  "cut %zu line %zu", cut, line);
				fi++;
				continue;
			}
			cr_assert_eq(line, complete + 1, "cut %zu: an event past the cut line", cut);
			if (st == POLICY_ENVFILE_MALFORMED)
				continue;
			cr_assert(span_inside(k, buf, cut) && span_inside(v, buf, cut));
			cr_assert_lt(fi, nfull);
			cr_assert_eq(full[fi].line, line, "cut %zu", cut);
			cr_assert(k.n == strlen(full[fi].key) && !memcmp(k.p, full[fi].key, k.n),
				  "cut %zu: key %.*s", cut, (int)k.n, (const char *)k.p);
			cr_assert(v.n <= strlen(full[fi].val) && !memcmp(v.p, full[fi].val, v.n),
				  "cut %zu: value %.*s is not a prefix", cut, (int)v.n, (const char *)v.p);
			fi++;
		}
		/* every assignment of a complete line was seen */
		size_t want = 0;
		for (size_t i = 0; i < nfull; i++)
			want += full[i].line <= complete;
		cr_assert_geq(fi, want, "cut %zu", cut);
		free(buf);
	}
}

/* ---- /proc/net/unix ---------------------------------------------------- */

enum { NO_LISTEN_CHECK = -1 };

static const struct {
	const char *line;
	size_t len;
	enum policy_unix_status st;
	const char *path; /* for OK */
	int listening;    /* for OK and NO_PATH, or NO_LISTEN_CHECK */
	const char *cls;  /* for MALFORMED: the class of malformed input */
} unix_vectors[] = {
	/* lines as this machine's kernel prints them (6.18, hashed %pK) */
	{ S("0000000072f6e884: 00000002 00000000 00010000 0001 01 45609 /tmp/porta t sock"),
	  POLICY_UNIX_OK, "/tmp/porta t sock", 1, NULL },
	{ S("00000000eb66dc88: 00000002 00000000 00000000 0002 01 45611 /tmp/dg.sock"),
	  POLICY_UNIX_OK, "/tmp/dg.sock", 0, NULL },
	{ S("00000000f96d09e9: 00000003 00000000 00000000 0001 03  1057"), POLICY_UNIX_NO_PATH,
	  NULL, 0, NULL },
	{ S("000000009051f619: 00000003 00000000 00000000 0001 02     0 /tmp/porta t sock"),
	  POLICY_UNIX_OK, "/tmp/porta t sock", 0, NULL }, /* an embryo: inode 0 */
	{ S("00000000341aa5a2: 00000002 00000000 00010000 0001 01 45610 @abstract@x"),
	  POLICY_UNIX_NO_PATH, NULL, 1, NULL },
	{ S("000000004e2d85a1: 00000002 00000000 00000000 0005 01 45613 @c961b"),
	  POLICY_UNIX_NO_PATH, NULL, 0, NULL }, /* autobind */
	{ S("00000000960fdfc1: 00000002 00000000 00000000 0001 01 45612 rel.sock"),
	  POLICY_UNIX_NO_PATH, NULL, 0, NULL }, /* bound to a relative name */
	/* other kernels: %pK as zeros, or a real address */
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 22817 /run/systemd/private"),
	  POLICY_UNIX_OK, "/run/systemd/private", 1, NULL },
	{ S("ffff8881003c2000: 00000002 00000000 00010000 0001 01 18821 /run/user/1000/gnupg/S.gpg-agent"),
	  POLICY_UNIX_OK, "/run/user/1000/gnupg/S.gpg-agent", 1, NULL },
	{ S("FFFF8881003C2000: 00000002 00000000 0001000A 0001 01 1 /x"), POLICY_UNIX_OK, "/x", 1, NULL },
	{ S("00000000: 00000002 00000000 00000000 0001 01 1 /x y  z "), POLICY_UNIX_OK, "/x y  z ", 0, NULL },
	{ S("0: 2 0 10000 1 1 123 /s"), POLICY_UNIX_OK, "/s", 1, NULL },
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 22817 "), POLICY_UNIX_NO_PATH,
	  NULL, 1, NULL },
	{ S("0000000000000000: 00000002 00000000 00000000 0001 01 22817 @"), POLICY_UNIX_NO_PATH,
	  NULL, 0, NULL },
	{ S("0000000000000000: 00000002 00000000 00000000 0001 01 22817  /x"), POLICY_UNIX_NO_PATH,
	  NULL, 0, NULL }, /* two spaces: " /x" is a relative name */
	/* malformed */
	{ S("Num       RefCount Protocol Flags    Type St Inode Path"), POLICY_UNIX_MALFORMED, NULL,
	  NO_LISTEN_CHECK, "not-entry" },
	{ S(""), POLICY_UNIX_MALFORMED, NULL, NO_LISTEN_CHECK, "not-entry" },
	{ S("   "), POLICY_UNIX_MALFORMED, NULL, NO_LISTEN_CHECK, "not-entry" },
	{ S(":"), POLICY_UNIX_MALFORMED, NULL, NO_LISTEN_CHECK, "bad-num" },
	{ S(": 00000002 00000000 00010000 0001 01 22817 /x"), POLICY_UNIX_MALFORMED, NULL,
	  NO_LISTEN_CHECK, "bad-num" },
	{ S("0000000000000000 00000002 00000000 00010000 0001 01 22817 /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-num" }, /* Num without ':' */
	{ S("000000000000000g: 00000002 00000000 00010000 0001 01 22817 /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-num" },
	{ S("0000000000000000: 0000000x 00000000 00010000 0001 01 22817 /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-field" },
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01"), POLICY_UNIX_MALFORMED, NULL,
	  NO_LISTEN_CHECK, "no-inode" }, /* no inode */
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 "), POLICY_UNIX_MALFORMED, NULL,
	  NO_LISTEN_CHECK, "no-inode" },
	{ S("0000000000000000: 00000002 00000000 00010000 0001"), POLICY_UNIX_MALFORMED, NULL,
	  NO_LISTEN_CHECK, "no-inode" },
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 2281x /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-inode" },
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 -1 /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-inode" },
	{ S("0000000000000000: 00000002 00000000 10000000000010000 0001 01 1 /x"),
	  POLICY_UNIX_MALFORMED, NULL, NO_LISTEN_CHECK, "bad-field" }, /* a 17-digit field */
	{ S("0000000000000000: 00000002 00000000 00010000 0001 01 1 /x\0y"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "nul-path" },
	{ S("0000000000000000:\t00000002 00000000 00010000 0001 01 1 /x"), POLICY_UNIX_MALFORMED,
	  NULL, NO_LISTEN_CHECK, "bad-num" }, /* fields are separated by spaces only */
	{ S("garbage"), POLICY_UNIX_MALFORMED, NULL, NO_LISTEN_CHECK, "not-entry" },
};

static void unix_class(const char *cls)
{
	size_t seen = 0;
	for (size_t i = 0; i < N_ELEMS(unix_vectors); i++) {
		if (cls ? !unix_vectors[i].cls || strcmp(unix_vectors[i].cls, cls) != 0
			: unix_vectors[i].cls != NULL)
			continue;
		seen++;
		uint8_t *line = dup_exact(unix_vectors[i].line, unix_vectors[i].len);
		struct policy_span path = { NULL, 0 };
		int listening = -7;
		enum policy_unix_status st =
			policy_parse_proc_net_unix_line(line, unix_vectors[i].len, &path, &listening);
		cr_assert_eq(st, unix_vectors[i].st, "vector %zu: \"%s\" gave %d", i,
			     unix_vectors[i].line, st);
		if (unix_vectors[i].listening != NO_LISTEN_CHECK)
			cr_assert_eq(listening, unix_vectors[i].listening, "vector %zu", i);
		if (st == POLICY_UNIX_OK) {
			cr_assert(span_inside(path, line, unix_vectors[i].len));
			cr_assert_eq(path.n, strlen(unix_vectors[i].path), "vector %zu", i);
			cr_assert(!memcmp(path.p, unix_vectors[i].path, path.n), "vector %zu", i);
		}
		free(line);
	}
	cr_assert_gt(seen, 0);
}

Test(textparse, proc_net_unix_vectors) { unix_class(NULL); }
Test(textparse, proc_net_unix_not_an_entry) { unix_class("not-entry"); }
Test(textparse, proc_net_unix_bad_num) { unix_class("bad-num"); }
Test(textparse, proc_net_unix_bad_field) { unix_class("bad-field"); }
Test(textparse, proc_net_unix_no_inode) { unix_class("no-inode"); }
Test(textparse, proc_net_unix_bad_inode) { unix_class("bad-inode"); }
Test(textparse, proc_net_unix_nul_in_path) { unix_class("nul-path"); }

/* Truncation sweep.  Contract for each prefix of a good line with a path:
 * before the inode field starts, MALFORMED; within the inode or right after
 * its one trailing space, NO_PATH (a valid unbound line); from the first path
 * byte on, OK with that prefix of the path.  The listening flag is right
 * whenever the answer is not MALFORMED. */
Test(textparse, proc_net_unix_truncation_sweep)
{
	static const char *const good[] = {
		"0000000072f6e884: 00000002 00000000 00010000 0001 01 45609 /tmp/porta t sock",
		"0000000000000000: 00000003 00000000 00000000 0001 03  1057 /run/x.sock",
	};
	for (size_t g = 0; g < N_ELEMS(good); g++) {
		const char *l = good[g];
		size_t n = strlen(l);
		const char *path_start = strchr(l, '/');
		size_t path_off = (size_t)(path_start - l);
		size_t inode_end = path_off - 1; /* the space before the path */
		size_t inode_start = inode_end;
		while (l[inode_start - 1] != ' ')
			inode_start--;
		int want_listen = strstr(l, "00010000") != NULL;
		for (size_t k = 0; k <= n; k++) {
			uint8_t *line = dup_exact(l, k);
			struct policy_span path;
			int listening = -1;
			enum policy_unix_status st =
				policy_parse_proc_net_unix_line(line, k, &path, &listening);
			if (k <= inode_start) {
				cr_assert_eq(st, POLICY_UNIX_MALFORMED, "prefix %zu", k);
			} else if (k <= path_off) {
				cr_assert_eq(st, POLICY_UNIX_NO_PATH, "prefix %zu", k);
				cr_assert_eq(listening, want_listen);
			} else {
				cr_assert_eq(st, POLICY_UNIX_OK, "prefix %zu", k);
				cr_assert_eq(listening, want_listen);
				cr_assert(path.p == line + path_off && path.n == k - path_off);
			}
			free(line);
		}
	}
}

/* This machine's own /proc/net/unix: a socket the test binds and listens on
 * is found, with its path and the listening flag; every line but the header
 * is a valid entry. */
Test(textparse, proc_net_unix_live)
{
	char dir[] = "/tmp/porta-unit-XXXXXX";
	if (!mkdtemp(dir))
		cr_skip_test("mkdtemp: no writable /tmp");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/agent.sock", dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(fd, 1), 0);

	FILE *f = fopen("/proc/net/unix", "re");
	if (!f) {
		close(fd);
		unlink(sa.sun_path);
		rmdir(dir);
		cr_skip_test("/proc/net/unix is not readable here");
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lines = 0, found = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		struct policy_span path;
		int listening;
		enum policy_unix_status st =
			policy_parse_proc_net_unix_line((const uint8_t *)line, (size_t)n, &path,
							&listening);
		if (lines++ == 0) {
			cr_assert_eq(st, POLICY_UNIX_MALFORMED, "the header line");
			continue;
		}
		/* a path with a newline in it would split a line; none here */
		cr_assert(st == POLICY_UNIX_OK || st == POLICY_UNIX_NO_PATH, "line \"%.*s\"", (int)n,
			  line);
		if (st == POLICY_UNIX_OK && path.n == strlen(sa.sun_path) &&
		    memcmp(path.p, sa.sun_path, path.n) == 0) {
			found += listening == 1;
		}
	}
	free(line);
	fclose(f);
	close(fd);
	unlink(sa.sun_path);
	rmdir(dir);
	cr_assert_eq(found, 1, "the test's listening socket was not found");
}

/* ---- .git files -------------------------------------------------------- */

static const struct {
	const char *in;
	size_t len;
	const char *gitdir; /* NULL: malformed */
	size_t gitdir_len;
	const char *cls; /* for malformed: its class */
} git_vectors[] = {
	{ S("gitdir: /r/.git/worktrees/x\n"), "/r/.git/worktrees/x", 19, NULL },
	{ S("gitdir: ../.git/modules/sub"), "../.git/modules/sub", 19, NULL },
	{ S("gitdir: x\r\n"), "x", 1, NULL },
	{ S("gitdir: x\n\n"), "x", 1, NULL },        /* git drops every trailing newline */
	{ S("gitdir: x\r\n\r\n\n"), "x", 1, NULL },
	{ S("gitdir: a b "), "a b ", 4, NULL },
	{ S("gitdir:  x"), " x", 2, NULL },
	{ S("gitdir: a\nb\n"), "a\nb", 3, NULL },    /* git takes an inner newline literally */
	{ S("gitdir: /d\0junk\n"), "/d", 2, NULL },  /* git reads a C string */
	{ S("gitdir: /d\n\0x"), "/d\n", 3, NULL },
	{ S("gitdir: /\xc3\xa9"), "/\xc3\xa9", 3, NULL },
	{ S("gitdir: "), NULL, 0, "empty-path" },
	{ S("gitdir: \n"), NULL, 0, "empty-path" },
	{ S("gitdir: \r\n\r\n"), NULL, 0, "empty-path" },
	{ S("gitdir: \0/x"), NULL, 0, "empty-path" },
	{ S("gitdir:x"), NULL, 0, "bad-prefix" },
	{ S("gitdir:\t/x"), NULL, 0, "bad-prefix" },
	{ S("GITDIR: /x"), NULL, 0, "bad-prefix" },
	{ S(" gitdir: /x"), NULL, 0, "bad-prefix" },
	{ S("gitdir"), NULL, 0, "bad-prefix" },
	{ S(""), NULL, 0, "bad-prefix" },
	{ S("\n"), NULL, 0, "bad-prefix" },
	{ S("git\0ir: /x"), NULL, 0, "bad-prefix" },
	{ S("ref: refs/heads/main\n"), NULL, 0, "bad-prefix" },
};

static void git_class(const char *cls)
{
	size_t seen = 0;
	for (size_t i = 0; i < N_ELEMS(git_vectors); i++) {
		if (cls ? !git_vectors[i].cls || strcmp(git_vectors[i].cls, cls) != 0
			: git_vectors[i].cls != NULL)
			continue;
		seen++;
		uint8_t *buf = dup_exact(git_vectors[i].in, git_vectors[i].len);
		struct policy_span d = { NULL, 0 };
		enum policy_gitfile_status st = policy_parse_gitfile(buf, git_vectors[i].len, &d);
		if (!git_vectors[i].gitdir) {
			cr_assert_eq(st, POLICY_GITFILE_MALFORMED, "vector %zu accepted", i);
		} else {
			cr_assert_eq(st, POLICY_GITFILE_OK, "vector %zu refused", i);
			cr_assert(span_inside(d, buf, git_vectors[i].len));
			cr_assert_eq(d.n, git_vectors[i].gitdir_len, "vector %zu", i);
			cr_assert(!memcmp(d.p, git_vectors[i].gitdir, d.n), "vector %zu", i);
			cr_assert(d.n > 0 && !memchr(d.p, '\0', d.n));
		}
		free(buf);
	}
	cr_assert_gt(seen, 0);
}

Test(textparse, gitfile_vectors) { git_class(NULL); }
Test(textparse, gitfile_bad_prefix) { git_class("bad-prefix"); }
Test(textparse, gitfile_empty_path) { git_class("empty-path"); }

/* Truncation sweep.  Contract for each prefix of "gitdir: PATH\n": up to and
 * including "gitdir: " it is MALFORMED; after it, OK with the prefix of PATH
 * (the newline, when it is in, is not part of it). */
Test(textparse, gitfile_truncation_sweep)
{
	const char good[] = "gitdir: /home/u/src/repo/.git/worktrees/feature-x\n";
	const size_t n = sizeof(good) - 1, pl = 8;
	for (size_t k = 0; k <= n; k++) {
		uint8_t *buf = dup_exact(good, k);
		struct policy_span d;
		enum policy_gitfile_status st = policy_parse_gitfile(buf, k, &d);
		if (k <= pl) {
			cr_assert_eq(st, POLICY_GITFILE_MALFORMED, "prefix %zu", k);
		} else {
			cr_assert_eq(st, POLICY_GITFILE_OK, "prefix %zu", k);
			cr_assert(d.p == buf + pl);
			cr_assert_eq(d.n, k == n ? k - pl - 1 : k - pl, "prefix %zu", k);
		}
		free(buf);
	}
}
