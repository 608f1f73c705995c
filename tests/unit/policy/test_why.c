/* tests/unit/policy/test_why.c: --why's classification and command line
 * (policy/why.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/options.h"
#include "policy/plan.h"
#include "policy/preset.h"
#include "policy/why.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static struct policy_options opts;

/* A plan like the resolver makes for `porta run -v /home/u/proj` with the
 * default preset and open reads, home /home/u. */
static struct policy_plan *open_plan(void)
{
	memset(&opts, 0, sizeof(opts));
	opts.net_mode = POLICY_NET_OPEN;
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_not_null(p);
	p->home = strdup("/home/u");
	cr_assert_not_null(p->home);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u/proj", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/dev", POLICY_PATH_PRIVATE_DEV), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/home/u/proj", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/home/u/proj/.bashrc", POLICY_PATH_PROTECTED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/home/u/proj/keep", POLICY_PATH_PROTECTED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u/.ssh", POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/.netrc", POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/secret.txt", POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/user/1000/bus", POLICY_PATH_CREDENTIAL_SOCKET), 0);
	return p;
}

struct vector {
	enum policy_why_op op;
	const char *path;
	int err;
	bool exists, permits;
	enum policy_why_verdict want;
	const char *option; /* for OPTION and USER */
};

static void check(struct policy_plan *p, const struct vector *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct policy_why_facts f = { .op = v[i].op, .path = v[i].path, .err = v[i].err,
					      .host_exists = v[i].exists, .host_permits = v[i].permits };
		struct policy_why_answer a;
		enum policy_why_verdict got = policy_why_classify(p, &f, &a);
		cr_assert_eq(got, v[i].want, "vector %zu (%s %s errno %d): verdict %d, want %d (%s)", i,
			     policy_why_op_name(v[i].op), v[i].path, v[i].err, got, v[i].want, a.reason);
		cr_assert_eq(a.verdict, got);
		if (v[i].option)
			cr_assert_str_eq(a.option, v[i].option, "vector %zu", i);
		else if (got != POLICY_WHY_OPTION && got != POLICY_WHY_USER)
			cr_assert_str_eq(a.option, "", "vector %zu", i);
		cr_assert_eq(got == POLICY_WHY_WITHHELD, a.withheld && a.withheld[0],
			     "vector %zu: a withheld option says why, no other does", i);
		if (got != POLICY_WHY_NOT_SANDBOX)
			cr_assert(a.reason && a.reason[0], "vector %zu gives no reason", i);
	}
}

Test(why, files_under_open_reads)
{
	struct policy_plan *p = open_plan();
	const struct vector v[] = {
		/* a write outside every writable mount: its directory */
		{ POLICY_WHY_WRITE, "/srv/data/log", EROFS, true, true, POLICY_WHY_OPTION, "-v /srv/data" },
		{ POLICY_WHY_CREATE, "/home/u/src/new.c", EACCES, false, true, POLICY_WHY_OPTION, "-v /home/u/src" },
		/* ... unless the command could have steered it to open the host
		 * (escape corpus row 92): named, not suggested */
		{ POLICY_WHY_CREATE, "/home/u/out.txt", EACCES, false, true, POLICY_WHY_WITHHELD, "-v /home/u" },
		{ POLICY_WHY_CREATE, "/x", EACCES, false, true, POLICY_WHY_WITHHELD, "-v /" },
		/* the home's dot-directories: programs run what is there */
		{ POLICY_WHY_CREATE, "/home/u/.config/nvim/init.lua", EACCES, false, true,
		  POLICY_WHY_WITHHELD, "-v /home/u/.config/nvim" },
		{ POLICY_WHY_CREATE, "/home/u/.ipython/profile_default/startup/00.py", EACCES, false,
		  true, POLICY_WHY_WITHHELD, "-v /home/u/.ipython/profile_default/startup" },
		/* ... but for the caches porta knows and the profiles' state */
		{ POLICY_WHY_CREATE, "/home/u/.npm/_cacache/tmp/x", EACCES, false, true,
		  POLICY_WHY_OPTION, "-v /home/u/.npm/_cacache/tmp" },
		{ POLICY_WHY_CREATE, "/home/u/.claude/todos/x", EACCES, false, true, POLICY_WHY_OPTION,
		  "-v /home/u/.claude/todos" },
		/* the same, but the user's own permissions refuse it too */
		{ POLICY_WHY_CREATE, "/etc/passwd-new", EACCES, false, false, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/home/u/proj/locked", EACCES, true, false, POLICY_WHY_NOT_SANDBOX, NULL },
		/* inside the writable mount: not the mount's doing */
		{ POLICY_WHY_CREATE, "/home/u/proj/new", EACCES, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* successes and ordinary errors */
		{ POLICY_WHY_READ, "/etc/hostname", 0, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/nonexistent", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_CREATE, "/home/u/out.txt", EEXIST, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "relative", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* open reads: a read refused is not the mounts' */
		{ POLICY_WHY_READ, "/root/x", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
	};
	check(p, v, N_ELEMS(v));
	policy_plan_destroy(p);
}

Test(why, covers_and_protected_names)
{
	struct policy_plan *p = open_plan();
	const struct vector v[] = {
		/* credentials: hidden (ENOENT in the empty directory, an empty
		 * file), listed whatever the call returned */
		{ POLICY_WHY_READ, "/home/u/.ssh/id_ed25519", ENOENT, true, true, POLICY_WHY_PRESET, NULL },
		{ POLICY_WHY_READ, "/home/u/.ssh", 0, true, true, POLICY_WHY_PRESET, NULL },
		{ POLICY_WHY_READ, "/home/u/.netrc", 0, true, true, POLICY_WHY_PRESET, NULL },
		{ POLICY_WHY_CREATE, "/home/u/.ssh/authorized_keys", EROFS, false, true, POLICY_WHY_PRESET, NULL },
		/* not a credential: a name beside one */
		{ POLICY_WHY_READ, "/home/u/.sshx", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/home/u/secret.txt", 0, true, true, POLICY_WHY_USER, "--deny-read /home/u/secret.txt" },
		{ POLICY_WHY_UNIX, "/run/user/1000/bus", ECONNREFUSED, true, true, POLICY_WHY_OPTION,
		  "--allow-unix /run/user/1000/bus" },
		{ POLICY_WHY_UNIX, "/run/other.sock", ECONNREFUSED, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* protected names: by the preset, or by --protect (below) */
		{ POLICY_WHY_WRITE, "/home/u/proj/.bashrc", EROFS, true, true, POLICY_WHY_PRESET, NULL },
		{ POLICY_WHY_READ, "/home/u/proj/.bashrc", 0, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_WRITE, "/proc/sys/kernel/x", EROFS, true, true, POLICY_WHY_FIXED, NULL },
		{ POLICY_WHY_WRITE, "/proc/sys/kernel/x", EROFS, true, false, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/proc/1/environ", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* the private /tmp hides the host's files, not new ones */
		{ POLICY_WHY_READ, "/tmp/host-file", ENOENT, true, true, POLICY_WHY_OPTION, "-v /tmp/host-file:ro" },
		{ POLICY_WHY_READ, "/tmp/never", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/tmp/host-locked", ENOENT, true, false, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_CREATE, "/tmp/new", 0, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/dev/sda", ENOENT, true, true, POLICY_WHY_FIXED, NULL },
	};
	check(p, v, N_ELEMS(v));

	opts.protect.v[0] = "keep";
	opts.protect.n = 1;
	const struct vector u[] = {
		{ POLICY_WHY_CREATE, "/home/u/proj/keep", EROFS, true, true, POLICY_WHY_USER, "--protect keep" },
		{ POLICY_WHY_WRITE, "/home/u/proj/.bashrc", EACCES, true, true, POLICY_WHY_PRESET, NULL },
	};
	check(p, u, N_ELEMS(u));
	policy_plan_destroy(p);
}

/* Every write suggestion the command could steer to open the host: the
 * root, the home or what holds it, a protected name's own directory, one
 * beneath it, or one between it and the directory it belongs to.  Names
 * that merely begin like one are suggested (escape corpus row 92). */
Test(why, suggestions_the_command_could_steer)
{
	struct policy_plan *p = open_plan();
	const struct vector v[] = {
		{ POLICY_WHY_CREATE, "/home/x", EACCES, false, true, POLICY_WHY_WITHHELD, "-v /home" },
		{ POLICY_WHY_CREATE, "/home/u/.vimrc", EROFS, false, true, POLICY_WHY_WITHHELD, "-v /home/u" },
		{ POLICY_WHY_CREATE, "/home/u/.config/x", EROFS, false, true, POLICY_WHY_WITHHELD,
		  "-v /home/u/.config" },
		{ POLICY_WHY_CREATE, "/home/u/.config/autostart/x.desktop", EROFS, false, true,
		  POLICY_WHY_WITHHELD, "-v /home/u/.config/autostart" },
		{ POLICY_WHY_CREATE, "/home/u/.local/bin/git", EROFS, false, true, POLICY_WHY_WITHHELD,
		  "-v /home/u/.local/bin" },
		{ POLICY_WHY_CREATE, "/srv/repo/.git/hooks/pre-commit", EROFS, false, true,
		  POLICY_WHY_WITHHELD, "-v /srv/repo/.git/hooks" },
		{ POLICY_WHY_CREATE, "/srv/repo/.git/x", EROFS, false, true, POLICY_WHY_WITHHELD,
		  "-v /srv/repo/.git" },
		{ POLICY_WHY_CREATE, "/srv/repo/.vscode/sub/x", EROFS, false, true, POLICY_WHY_WITHHELD,
		  "-v /srv/repo/.vscode/sub" },
		/* beginning like a name is not being one */
		{ POLICY_WHY_CREATE, "/srv/repo/.github/x", EROFS, false, true, POLICY_WHY_OPTION,
		  "-v /srv/repo/.github" },
		{ POLICY_WHY_CREATE, "/srv/.configs/x", EROFS, false, true, POLICY_WHY_OPTION,
		  "-v /srv/.configs" },
		{ POLICY_WHY_CREATE, "/home/u/.cache/pip/x", EROFS, false, true, POLICY_WHY_OPTION,
		  "-v /home/u/.cache/pip" },
		{ POLICY_WHY_CREATE, "/home/u2/x", EACCES, false, true, POLICY_WHY_OPTION, "-v /home/u2" },
	};
	check(p, v, N_ELEMS(v));

	/* --protect's relative names count; --preset none drops the preset's */
	opts.protect.v[0] = "build/out";
	opts.protect.n = 1;
	const struct vector u[] = {
		{ POLICY_WHY_CREATE, "/srv/proj/build/x", EROFS, false, true, POLICY_WHY_WITHHELD,
		  "-v /srv/proj/build" },
	};
	check(p, u, N_ELEMS(u));
	opts.protect.n = 0;
	opts.preset = POLICY_PRESET_NONE;
	const struct vector w[] = {
		{ POLICY_WHY_CREATE, "/srv/repo/.git/hooks/pre-commit", EROFS, false, true,
		  POLICY_WHY_OPTION, "-v /srv/repo/.git/hooks" },
		{ POLICY_WHY_CREATE, "/x", EACCES, false, true, POLICY_WHY_WITHHELD, "-v /" },
	};
	check(p, w, N_ELEMS(w));
	policy_plan_destroy(p);
}

Test(why, strict_reads)
{
	memset(&opts, 0, sizeof(opts));
	opts.read_mode = POLICY_READ_STRICT;
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u/proj", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u", POLICY_PATH_HOME_CLOSED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/home/u/proj", POLICY_PATH_UNDER_HOME), 0);
	const struct vector v[] = {
		{ POLICY_WHY_READ, "/srv/notes", EACCES, true, true, POLICY_WHY_OPTION, "-v /srv/notes:ro" },
		{ POLICY_WHY_EXEC, "/opt/tool/bin/t", EACCES, true, true, POLICY_WHY_OPTION, "-v /opt/tool/bin/t:ro" },
		{ POLICY_WHY_READ, "/usr/share/x", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/home/u/.gitconfig", ENOENT, true, true, POLICY_WHY_OPTION, "-v /home/u/.gitconfig:ro" },
		{ POLICY_WHY_READ, "/home/u/absent", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_CREATE, "/home/u/x", EROFS, false, true, POLICY_WHY_OPTION, "-v /home/u" },
		{ POLICY_WHY_READ, "/home/u/proj/a", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		{ POLICY_WHY_READ, "/home/u/proj/a", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
	};
	check(p, v, N_ELEMS(v));
	policy_plan_destroy(p);
}

Test(why, network_only_under_no_net)
{
	struct policy_plan *p = open_plan();
	const struct vector v[] = {
		{ POLICY_WHY_NET, "192.0.2.1:80", ENETUNREACH, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
	};
	check(p, v, N_ELEMS(v));
	opts.net_mode = POLICY_NET_NONE;
	const struct vector w[] = {
		{ POLICY_WHY_NET, "192.0.2.1:80", ENETUNREACH, false, true, POLICY_WHY_OPTION, "--allow-net 192.0.2.1:80" },
		{ POLICY_WHY_NET, "[2001:db8::1]:443", ECONNREFUSED, false, true, POLICY_WHY_OPTION,
		  "--allow-net [2001:db8::1]:443" },
		{ POLICY_WHY_NET, "192.0.2.1:80", ETIMEDOUT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* the resolver: the lookup failed, and TCP to the resolver would
		 * not allow it; the hosts looked up are the option */
		{ POLICY_WHY_NET, "10.255.255.53:53", ENETUNREACH, false, true, POLICY_WHY_USER, "--no-net" },
		{ POLICY_WHY_NET, "[2001:db8::53]:53", ECONNREFUSED, false, true, POLICY_WHY_USER, "--no-net" },
		{ POLICY_WHY_NET, "192.0.2.1:5353", ENETUNREACH, false, true, POLICY_WHY_OPTION,
		  "--allow-net 192.0.2.1:5353" },
	};
	check(p, w, N_ELEMS(w));
	struct policy_why_facts f = { .op = POLICY_WHY_NET, .path = "192.0.2.1:80", .err = ENETUNREACH };
	struct policy_why_answer a;
	policy_why_classify(p, &f, &a);
	cr_assert(a.drops_no_net);
	opts.net_mode = POLICY_NET_POLICY;
	check(p, v, N_ELEMS(v));
	policy_plan_destroy(p);
}

static void parse(int argc, char **argv, struct policy_options *o)
{
	char err[POLICY_ERR_MAX];
	cr_assert_eq(policy_parse_args(argc, argv, o, err), POLICY_PARSE_OK, "%s", err);
}

Test(why, command_inserts_before_the_command)
{
	struct policy_options o;
	char out[1024];
	char *a1[] = { "porta", "run", "-v", "/w", "--why", "--", "sh", "-c", "echo 'hi' > x" };
	parse(N_ELEMS(a1), a1, &o);
	const char *add[] = { "-v /home/u", "--allow-net evil.test:443" };
	cr_assert_gt(policy_why_command(N_ELEMS(a1), a1, &o, add, 2, false, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "porta run -v /w --why -v /home/u --allow-net evil.test:443 -- sh -c "
			      "'echo '\\''hi'\\'' > x'");

	char *a2[] = { "./porta", "run", "--no-net", "-e", "A=--no-net", "cat", "my file" };
	parse(N_ELEMS(a2), a2, &o);
	const char *add2[] = { "--allow-net 192.0.2.1:80" };
	cr_assert_gt(policy_why_command(N_ELEMS(a2), a2, &o, add2, 1, true, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "./porta run -e A=--no-net --allow-net 192.0.2.1:80 cat 'my file'",
			 "only the option --no-net goes, not a value that reads the same");
	cr_assert_gt(policy_why_command(N_ELEMS(a2), a2, &o, add2, 0, false, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "./porta run --no-net -e A=--no-net cat 'my file'");
	cr_assert_eq(policy_why_command(N_ELEMS(a2), a2, &o, add2, 1, true, out, 20), 0,
		     "too small: 0, never a cut line");
}

Test(why, command_leaves_out_implied_mounts)
{
	struct policy_options o;
	char out[1024];
	char *a[] = { "porta", "run", "true" };
	parse(N_ELEMS(a), a, &o);
	const char *add[] = { "-v /a/b:ro", "-v /a", "-v /a/c", "-v /a", "-v /z:ro", "-v /z/y:ro",
			      "-v /q:ro", "-v /q" };
	cr_assert_gt(policy_why_command(N_ELEMS(a), a, &o, add, N_ELEMS(add), false, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "porta run -v /a -v /z:ro -v /q true");
}

Test(why, quote)
{
	const char *in[] = { "plain/path-1.2_x", "", "a b", "it's", "$HOME", "*", "x\ny", "a'\\\t\x01" };
	const char *want[] = { "plain/path-1.2_x", "''", "'a b'", "'it'\\''s'", "'$HOME'", "'*'",
			       "$'x\\ny'", "$'a\\'\\\\\\t\\x01'" };
	for (size_t i = 0; i < N_ELEMS(in); i++) {
		char out[64];
		size_t len = 0;
		cr_assert(policy_why_quote(in[i], out, sizeof(out), &len));
		cr_assert_str_eq(out, want[i]);
		cr_assert_eq(len, strlen(want[i]));
	}
	char small[4];
	size_t len = 0;
	cr_assert_not(policy_why_quote("a b c", small, sizeof(small), &len));
	cr_assert_eq(len, 0);
}

Test(why, option_words)
{
	cr_assert_eq(policy_option_words("-v"), 2);
	cr_assert_eq(policy_option_words("--allow-net"), 2);
	cr_assert_eq(policy_option_words("--allow-net=x"), 1);
	cr_assert_eq(policy_option_words("-v/dir"), 1);
	cr_assert_eq(policy_option_words("--no-net"), 1);
	cr_assert_eq(policy_option_words("-q"), 1);
	cr_assert_eq(policy_option_words("--"), 1);
	cr_assert_eq(policy_option_words("cmd"), 1);
	cr_assert_eq(policy_option_words("--unknown"), 1);
}

/* policy_preset_profile_state() names exactly the home paths the built-in
 * profiles mount (profiles/: their "-v ~/..." lines). */
Test(why, profile_state_matches_the_profiles)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "sed -n 's|^-v ~/\\([^: ]*\\).*|\\1|p' %s/profiles/* | sort -u", PORTA_SOURCE_DIR);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	char line[256];
	size_t seen = 0, n = 0;
	const char *const *state = policy_preset_profile_state(&n);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		bool listed = false;
		for (size_t i = 0; i < n; i++)
			listed = listed || strcmp(state[i], line) == 0;
		cr_expect(listed, "profiles/ mounts ~/%s, which policy_preset_profile_state() lacks",
			  line);
		seen++;
	}
	pclose(f);
	cr_expect_eq(seen, n, "the list names %zu paths, the profiles %zu", n, seen);
}

Test(why, home_reads)
{
	memset(&opts, 0, sizeof(opts));
	opts.read_mode = POLICY_READ_HOME;
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_eq(policy_plan_add_rule(p, "/", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u", POLICY_PATH_HOME_CLOSED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/home/u/proj", POLICY_PATH_HOME_PROJECT), 0);
	const struct vector v[] = {
		/* a hidden file of the home: shown with -v PATH:ro */
		{ POLICY_WHY_READ, "/home/u/notes/a.txt", ENOENT, true, true, POLICY_WHY_OPTION, "-v /home/u/notes/a.txt:ro" },
		/* a credential path the home hides: the list's, never a line opening it */
		{ POLICY_WHY_READ, "/home/u/.ssh/id_ed25519", ENOENT, true, true, POLICY_WHY_PRESET, NULL },
		{ POLICY_WHY_CREATE, "/home/u/.aws/new", ENOENT, false, true, POLICY_WHY_NOT_SANDBOX, NULL },
		/* outside the home: open reads */
		{ POLICY_WHY_READ, "/srv/x", EACCES, true, true, POLICY_WHY_NOT_SANDBOX, NULL },
	};
	check(p, v, N_ELEMS(v));
	/* a file created in a hidden directory that exists on the host: the
	 * directory is what to grant */
	struct policy_why_facts f = { .op = POLICY_WHY_CREATE, .path = "/home/u/out/result",
				      .err = ENOENT, .host_dir_exists = true, .host_permits = true };
	struct policy_why_answer a;
	cr_assert_eq(policy_why_classify(p, &f, &a), POLICY_WHY_OPTION, "%s", a.reason);
	cr_assert_str_eq(a.option, "-v /home/u/out");
	f.host_dir_exists = false; /* nothing there on the host either */
	cr_assert_eq(policy_why_classify(p, &f, &a), POLICY_WHY_NOT_SANDBOX);
	policy_plan_destroy(p);
}
