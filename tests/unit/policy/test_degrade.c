/* tests/unit/policy/test_degrade.c: the plan on a host that refuses user
 * namespaces (policy/degrade.h).
 *
 * policy_degrade_rules() walks the host through a lister; here the lister is
 * a small in-memory tree, so every expectation is a complete rule set written
 * out by hand: what each path gets, and that nothing else is granted.  The
 * refusals and the stated losses are matched on the paths and option names
 * the user must read, not on whole sentences.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "policy/degrade.h"
#include "policy/netrule.h"
#include "policy/options.h"
#include "policy/plan.h"

/* ---- the fake host ------------------------------------------------------ */

struct fake_entry {
	const char *dir;
	const char *name;
	bool is_dir, is_symlink;
};

#define D(dir, name) { dir, name, true, false }
#define F(dir, name) { dir, name, false, false }
#define L(dir, name) { dir, name, false, true }

static const struct fake_entry tree[] = {
	L("/", "bin"), D("/", "usr"), D("/", "etc"), D("/", "home"), D("/", "tmp"),
	D("/", "dev"), D("/", "work"), D("/", "proc"),
	F("/proc", "kallsyms"), D("/proc", "1"), L("/proc", "self"),
	D("/usr", "bin"), D("/usr", "lib"),
	F("/etc", "passwd"), F("/etc", "hosts"),
	D("/home", "u"), D("/home", "v"),
	D("/home/u", ".ssh"), F("/home/u", ".netrc"), F("/home/u", "notes.txt"),
	D("/home/u", "src"), D("/home/u", "locked"), L("/home/u", "keys"),
	F("/home/u/.ssh", "id_ed25519"), F("/home/u/.ssh", "config"),
	F("/home/u/src", "main.c"),
	F("/home/u/locked", "key"), F("/home/u/locked", "readme"),
	F("/home/v", "notes"),
	F("/dev", "null"), F("/dev", "zero"), F("/dev", "sda"), D("/dev", "shm"),
	D("/dev", "pts"), F("/dev", "ptmx"),
	F("/dev/shm", "sem.x"),
	F("/tmp", "x"), D("/tmp", "porta-1"), F("/tmp", "krb5cc_1000"),
	F("/work", "Makefile"),
};

struct fake_fs {
	const char *unlistable; /* a directory whose listing fails, or NULL */
	const char *long_name;  /* an extra entry of "/" (for ENAMETOOLONG), or NULL */
	char listed[64][64];    /* every directory asked for, in order */
	size_t n_listed;
};

static int fake_list(void *arg, const char *dir,
		     void (*each)(void *ctx, const struct policy_dirent *e), void *ctx)
{
	struct fake_fs *fs = arg;

	cr_assert_lt(fs->n_listed, ARRAY_LEN(fs->listed));
	snprintf(fs->listed[fs->n_listed++], sizeof(fs->listed[0]), "%s", dir);
	if (fs->unlistable && strcmp(dir, fs->unlistable) == 0)
		return -EACCES;
	for (size_t i = 0; i < ARRAY_LEN(tree); i++) {
		if (strcmp(tree[i].dir, dir) != 0)
			continue;
		struct policy_dirent e = { tree[i].name, tree[i].is_dir, tree[i].is_symlink };
		each(ctx, &e);
	}
	if (fs->long_name && strcmp(dir, "/") == 0) {
		struct policy_dirent e = { fs->long_name, true, false };
		each(ctx, &e);
	}
	return 0;
}

static bool was_listed(const struct fake_fs *fs, const char *dir)
{
	for (size_t i = 0; i < fs->n_listed; i++) {
		if (strcmp(fs->listed[i], dir) == 0)
			return true;
	}
	return false;
}

/* ---- plans --------------------------------------------------------------- */

#define PRIVATE_TMP "/tmp/porta-1"

static struct policy_options opts;

static struct policy_plan *new_plan(void)
{
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_not_null(p);
	return p;
}

static void rule(struct policy_plan *p, const char *path, unsigned grant, bool is_dir)
{
	cr_assert_eq(policy_plan_add_rule(p, path, grant, is_dir), 0);
}

static void add_mount(struct policy_plan *p, enum policy_mount_kind kind, const char *path,
		      enum policy_path_reason reason)
{
	cr_assert_eq(policy_plan_add_mount(p, kind, path, reason), 0);
}

/* What host/resolve.c makes of an open-read run with -v /home/u/src,
 * a credential directory and file in the home, and the usual devices. */
static struct policy_plan *open_read_plan(void)
{
	struct policy_plan *p = new_plan();

	rule(p, "/", POLICY_GRANT_READ, true);
	rule(p, "/home/u/src", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true);
	rule(p, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true);
	rule(p, "/dev/shm", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true);
	rule(p, "/dev/null", POLICY_GRANT_READ | POLICY_GRANT_DEV, false);
	rule(p, "/dev/zero", POLICY_GRANT_READ | POLICY_GRANT_DEV, false);
	rule(p, "/dev/ptmx", POLICY_GRANT_READ | POLICY_GRANT_DEV, false);
	rule(p, "/dev/pts", POLICY_GRANT_READ | POLICY_GRANT_DEV, true);
	add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES);
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/proc/kallsyms", POLICY_PATH_KERNEL_ADDRESSES);
	add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP);
	add_mount(p, POLICY_MOUNT_TMPFS, "/dev", POLICY_PATH_PRIVATE_DEV);
	add_mount(p, POLICY_MOUNT_REBIND, "/dev/null", POLICY_PATH_DEVICE);
	add_mount(p, POLICY_MOUNT_REBIND, "/dev/zero", POLICY_PATH_DEVICE);
	add_mount(p, POLICY_MOUNT_TMPFS, "/dev/shm", POLICY_PATH_PRIVATE_SHM);
	add_mount(p, POLICY_MOUNT_DEVPTS, "/dev/pts", POLICY_PATH_OWN_TERMINALS);
	add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u/.ssh", POLICY_PATH_CREDENTIAL);
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/.netrc", POLICY_PATH_CREDENTIAL);
	return p;
}

/* ---- the rules ----------------------------------------------------------- */

struct want {
	const char *path;
	unsigned grant;
	bool is_dir;
};

struct got {
	struct policy_rule *v;
	size_t n;
};

static struct got degrade(const struct policy_plan *p, const char *private_tmp, struct fake_fs *fs)
{
	struct got g = { (struct policy_rule *)1, 99 };

	cr_assert_eq(policy_degrade_rules(p, private_tmp, fake_list, fs, &g.v, &g.n), 0);
	return g;
}

static const struct policy_rule *find(const struct got *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->v[i].path, path) == 0)
			return &g->v[i];
	}
	return NULL;
}

/* g holds exactly the rules of want, each path once. */
static void expect_exactly(const struct got *g, const struct want *want, size_t n_want)
{
	for (size_t i = 0; i < g->n; i++) {
		for (size_t j = i + 1; j < g->n; j++)
			cr_expect_str_neq(g->v[i].path, g->v[j].path, "%s twice", g->v[i].path);
		bool wanted = false;
		for (size_t k = 0; k < n_want; k++)
			wanted |= strcmp(want[k].path, g->v[i].path) == 0;
		cr_expect(wanted, "%s granted %#x, which nothing asked for", g->v[i].path,
			  g->v[i].grant);
	}
	for (size_t k = 0; k < n_want; k++) {
		const struct policy_rule *r = find(g, want[k].path);
		cr_expect_not_null(r, "%s: no rule", want[k].path);
		if (!r)
			continue;
		cr_expect_eq(r->grant, want[k].grant, "%s: grant %#x, want %#x", want[k].path,
			     r->grant, want[k].grant);
		cr_expect_eq(r->is_dir, want[k].is_dir, "%s: is_dir", want[k].path);
	}
	cr_expect_eq(g->n, n_want, "%zu rules, want %zu", g->n, n_want);
}

#define R POLICY_GRANT_READ
#define W POLICY_GRANT_WRITE
#define DEV POLICY_GRANT_DEV
#define LIST POLICY_GRANT_LIST

Test(degrade_rules, read_grants_are_carved_around_the_closed_paths)
{
	struct policy_plan *p = open_read_plan();
	struct fake_fs fs = { 0 };
	struct got g = degrade(p, PRIVATE_TMP, &fs);
	static const struct want want[] = {
		/* the parents of a closed path: listing only */
		{ "/", LIST, true },
		{ "/home", LIST, true },
		{ "/home/u", LIST, true },
		/* every sibling on the way down: the read grant */
		{ "/usr", R, true },
		{ "/etc", R, true },
		{ "/work", R, true },
		/* the host's /proc, whole: its process directories come and
		 * go, so the full sandbox's kallsyms cover is a stated loss */
		{ "/proc", R, true },
		{ "/home/v", R, true },
		{ "/home/u/notes.txt", R, false },
		{ "/home/u/locked", R, true },
		/* the -v mount, as the plan says (the carve's read merged in) */
		{ "/home/u/src", R | W, true },
		/* /tmp's grant, moved to the private directory */
		{ PRIVATE_TMP, R | W, true },
		/* the granted devices, as they are */
		{ "/dev/null", R | DEV, false },
		{ "/dev/zero", R | DEV, false },
	};

	expect_exactly(&g, want, ARRAY_LEN(want));
	/* Spelled out, since they matter most: */
	cr_expect_null(find(&g, "/home/u/.ssh"), "a closed directory (COVER_DIR)");
	cr_expect_null(find(&g, "/home/u/.ssh/id_ed25519"));
	cr_expect_null(find(&g, "/home/u/.netrc"), "a closed file (COVER_FILE)");
	cr_expect_null(find(&g, "/bin"), "a symlink is judged at its target");
	cr_expect_null(find(&g, "/home/u/keys"), "a symlink is judged at its target");
	cr_expect_null(find(&g, "/tmp"), "the host's /tmp");
	cr_expect_null(find(&g, "/tmp/x"));
	cr_expect_null(find(&g, "/dev"), "the host's /dev");
	cr_expect_null(find(&g, "/dev/sda"));
	cr_expect_null(find(&g, "/dev/shm"), "shared with the host");
	cr_expect_null(find(&g, "/dev/pts"), "the user's other terminals");
	cr_expect_null(find(&g, "/dev/ptmx"));
	/* Closed directories are never walked; open ones need not be. */
	cr_expect_not(was_listed(&fs, "/home/u/.ssh"));
	cr_expect_not(was_listed(&fs, "/dev"));
	cr_expect_not(was_listed(&fs, "/usr"), "nothing closed beneath it: granted whole");
	cr_expect_not(was_listed(&fs, "/proc"), "a carve would freeze its process directories");
	cr_expect(was_listed(&fs, "/") && was_listed(&fs, "/home") && was_listed(&fs, "/home/u"));

	policy_degrade_rules_free(g.v, g.n);
	policy_plan_destroy(p);
}

Test(degrade_rules, an_unlistable_directory_is_only_listed)
{
	struct policy_plan *p = open_read_plan();
	struct fake_fs fs = { .unlistable = "/home/u/locked" };

	add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/locked/key", POLICY_PATH_DENY_READ);
	struct got g = degrade(p, PRIVATE_TMP, &fs);

	cr_expect(was_listed(&fs, "/home/u/locked"));
	const struct policy_rule *r = find(&g, "/home/u/locked");
	cr_assert_not_null(r);
	cr_expect_eq(r->grant, LIST, "grant %#x: a directory that could not be carved", r->grant);
	cr_expect(r->is_dir);
	for (size_t i = 0; i < g.n; i++)
		cr_expect_not(strncmp(g.v[i].path, "/home/u/locked/", 15) == 0, "%s granted",
			      g.v[i].path);
	/* The failure stays where it happened. */
	r = find(&g, "/home/u/notes.txt");
	cr_expect(r && r->grant == R);
	r = find(&g, "/usr");
	cr_expect(r && r->grant == R);

	policy_degrade_rules_free(g.v, g.n);
	policy_plan_destroy(p);
}

Test(degrade_rules, a_listable_directory_with_a_closed_file_is_carved)
{
	struct policy_plan *p = open_read_plan();
	struct fake_fs fs = { 0 };

	add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/locked/key", POLICY_PATH_DENY_READ);
	struct got g = degrade(p, PRIVATE_TMP, &fs);
	const struct policy_rule *r = find(&g, "/home/u/locked");

	cr_assert_not_null(r);
	cr_expect_eq(r->grant, LIST);
	r = find(&g, "/home/u/locked/readme");
	cr_expect(r && r->grant == R && !r->is_dir);
	cr_expect_null(find(&g, "/home/u/locked/key"));

	policy_degrade_rules_free(g.v, g.n);
	policy_plan_destroy(p);
}

/* --read-policy strict: the system directories, the home covered (with a
 * read rule so the empty directory lists), a -v mount beneath it. */
Test(degrade_rules, the_read_rule_on_a_covered_home_is_dropped)
{
	struct policy_plan *p = new_plan();
	struct fake_fs fs = { 0 };

	rule(p, "/usr", R, true);
	rule(p, "/etc", R, true);
	rule(p, "/home/u/src", R | W, true);
	rule(p, "/tmp", R | W, true);
	rule(p, "/dev/null", R | DEV, false);
	rule(p, "/home/u", R, true);
	add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP);
	add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u", POLICY_PATH_HOME_CLOSED);
	add_mount(p, POLICY_MOUNT_REBIND, "/home/u/src", POLICY_PATH_UNDER_HOME);

	struct got g = degrade(p, PRIVATE_TMP, &fs);
	static const struct want want[] = {
		{ "/usr", R, true },
		{ "/etc", R, true },
		{ "/home/u/src", R | W, true },
		{ PRIVATE_TMP, R | W, true },
		{ "/dev/null", R | DEV, false },
	};
	expect_exactly(&g, want, ARRAY_LEN(want));
	cr_expect_null(find(&g, "/home/u"), "the empty directory of the full sandbox");
	cr_expect_eq(fs.n_listed, 0, "no read grant had a closed path beneath it");

	char why[512] = "";
	cr_expect_not(policy_degrade_refusal(p, false, why, sizeof(why)), "%s", why);

	policy_degrade_rules_free(g.v, g.n);
	policy_plan_destroy(p);
}

Test(degrade_rules, share_tmp_keeps_the_hosts_tmp)
{
	struct policy_plan *p = open_read_plan();
	struct fake_fs fs = { 0 };
	struct got g = degrade(p, NULL, &fs);
	const struct policy_rule *r = find(&g, "/tmp");

	cr_assert_not_null(r, "--share-tmp: /tmp is granted as the plan says");
	cr_expect_eq(r->grant, R | W, "grant %#x", r->grant);
	cr_expect(r->is_dir);
	cr_expect_null(find(&g, PRIVATE_TMP));
	cr_expect_null(find(&g, "/tmp/x"), "/tmp is granted whole, not carved");
	cr_expect_not(was_listed(&fs, "/tmp"));
	/* The rest does not change. */
	r = find(&g, "/");
	cr_expect(r && r->grant == LIST);
	cr_expect_null(find(&g, "/dev/shm"));
	cr_expect_null(find(&g, "/home/u/.ssh"));

	policy_degrade_rules_free(g.v, g.n);
	policy_plan_destroy(p);
}

Test(degrade_rules, a_name_too_long_fails_cleanly)
{
	struct policy_plan *p = open_read_plan();
	static char name[5000];
	struct fake_fs fs = { .long_name = name };
	struct policy_rule *out = (struct policy_rule *)1;
	size_t n = 99;

	memset(name, 'a', sizeof(name) - 1);
	cr_expect_eq(policy_degrade_rules(p, PRIVATE_TMP, fake_list, &fs, &out, &n), -ENAMETOOLONG);
	cr_expect_null(out);
	cr_expect_eq(n, 0);
	policy_plan_destroy(p);
}

/* The covers are bounded; past the bound the run fails, it is never
 * granted more. */
Test(degrade_rules, too_many_covers_fail_cleanly)
{
	struct policy_plan *p = open_read_plan();
	struct fake_fs fs = { 0 };
	struct policy_rule *out = (struct policy_rule *)1;
	size_t n = 99;

	for (int i = 0; i < 300; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/home/u/notes-%d.txt", i);
		add_mount(p, POLICY_MOUNT_COVER_FILE, path, POLICY_PATH_DENY_READ);
	}
	cr_expect_lt(policy_degrade_rules(p, PRIVATE_TMP, fake_list, &fs, &out, &n), 0);
	cr_expect_null(out);
	cr_expect_eq(n, 0);
	policy_plan_destroy(p);
}

/* ---- refusals ------------------------------------------------------------ */

static bool refused(const struct policy_plan *p, char *why, size_t cap)
{
	why[0] = '\0';
	return policy_degrade_refusal(p, false, why, cap);
}

/* True when why names path as a whole path, not only as the start of a
 * longer one ("/home/u/src" in "/home/u/src/.env" does not count). */
static bool names(const char *why, const char *path)
{
	size_t len = strlen(path);

	for (const char *s = strstr(why, path); s; s = strstr(s + 1, path)) {
		char next = s[len];
		if (next != '/' && next != '.' && next != '-' && next != '_' &&
		    !(next >= 'a' && next <= 'z') && !(next >= 'A' && next <= 'Z') &&
		    !(next >= '0' && next <= '9'))
			return true;
	}
	return false;
}

static void set_net_rule(struct policy_plan *p, const char *text, enum policy_net_action action,
			 enum policy_net_scope scope)
{
	struct policy_net_rule *r = calloc(1, sizeof(*r)); /* the plan frees it */

	cr_assert_not_null(r);
	cr_assert_eq(policy_net_rule_parse(text, strlen(text), action, scope, r), POLICY_NET_RULE_OK,
		     "%s", text);
	p->net_rules = r;
	p->n_net_rules = 1;
}

Test(degrade_refusal, the_plain_plan_runs)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);
}

Test(degrade_refusal, transparent_network_rules)
{
	static const struct {
		enum policy_net_action action;
		const char *option;
	} cases[] = { { POLICY_NET_ALLOW, "--allow-net" }, { POLICY_NET_DENY, "--deny-net" } };
	char why[512];

	opts.net_mode = POLICY_NET_POLICY;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct policy_plan *p = open_read_plan();
		set_net_rule(p, "example.com:443", cases[i].action, POLICY_NET_SCOPE_ALL);
		cr_expect(refused(p, why, sizeof(why)), "%s", cases[i].option);
		cr_expect_not_null(strstr(why, "--proxy-allow"), "no way out: %s", why);
		cr_expect_not_null(strstr(why, cases[i].option), "%s", why);
		cr_expect_not_null(strstr(why, "example.com"), "the rule: %s", why);
		policy_plan_destroy(p);

		/* The same rule for the proxy is enforceable. */
		p = open_read_plan();
		set_net_rule(p, "example.com:443", cases[i].action, POLICY_NET_SCOPE_PROXY);
		cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
		policy_plan_destroy(p);
	}
	opts.net_mode = POLICY_NET_OPEN;
}

Test(degrade_refusal, max_procs)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	opts.max_procs.set = true;
	opts.max_procs.value = 64;
	cr_expect(refused(p, why, sizeof(why)));
	cr_expect_not_null(strstr(why, "--max-procs"), "%s", why);
	/* held by a pids cgroup (root): not refused */
	cr_expect_not(policy_degrade_refusal(p, true, why, sizeof(why)), "%s", why);
	opts.max_procs.set = false;
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);
}

Test(degrade_refusal, a_closed_path_inside_a_writable_mount)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/src/.env", POLICY_PATH_CREDENTIAL);
	cr_expect(refused(p, why, sizeof(why)));
	cr_expect(names(why, "/home/u/src/.env"), "the closed path: %s", why);
	cr_expect(names(why, "/home/u/src"), "the writable mount: %s", why);
	policy_plan_destroy(p);

	p = open_read_plan();
	add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u/src/secrets", POLICY_PATH_DENY_READ);
	cr_expect(refused(p, why, sizeof(why)));
	cr_expect(names(why, "/home/u/src/secrets"), "the closed path: %s", why);
	cr_expect(names(why, "/home/u/src"), "the writable mount: %s", why);
	policy_plan_destroy(p);
}

/* host/resolve.c: reach_config_dir() records porta's configuration
 * directory only when a writable mount reaches it, as named or as found
 * (escape corpus row 90); one under the writable /home/u/src, absent or not,
 * or reached through a link there, is refused: nothing could close it. */
Test(degrade_refusal, porta_configuration_inside_a_writable_mount)
{
	static const struct {
		const char *named, *real;
		bool refused;
	} cases[] = {
		{ "/home/u/src/.config/porta", "/home/u/src/.config/porta", true },
		{ "/home/u/src/cfg/porta", "/home/u/dotfiles/porta", true },
		{ "/home/u/.config/porta", "/home/u/src/dotfiles/porta", true },
		{ "/home/u/.config/porta", "/home/u/.config/porta", false },
	};
	char why[512];

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct policy_plan *p = open_read_plan();
		p->config_named = strdup(cases[i].named);
		p->config_real = strdup(cases[i].real);
		cr_assert(p->config_named && p->config_real);
		cr_expect_eq(refused(p, why, sizeof(why)), cases[i].refused, "%s", cases[i].named);
		if (cases[i].refused) {
			cr_expect(names(why, cases[i].named), "the directory: %s", why);
			cr_expect(names(why, "/home/u/src"), "the writable mount: %s", why);
		}
		policy_plan_destroy(p);
	}
}

Test(degrade_refusal, a_credential_socket_is_a_loss_not_a_refusal)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/src/agent.sock", POLICY_PATH_CREDENTIAL_SOCKET);
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);
}

Test(degrade_refusal, a_read_only_mount_inside_a_writable_one)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	rule(p, "/home/u/src/vendor", R, true);
	add_mount(p, POLICY_MOUNT_READONLY, "/home/u/src/vendor", POLICY_PATH_READONLY_MOUNT);
	cr_expect(refused(p, why, sizeof(why)));
	cr_expect(names(why, "/home/u/src/vendor"), "the read-only mount: %s", why);
	cr_expect(names(why, "/home/u/src"), "the writable mount: %s", why);
	policy_plan_destroy(p);

	/* Not inside a writable mount: nothing to make read-only. */
	p = open_read_plan();
	rule(p, "/work", R, true);
	add_mount(p, POLICY_MOUNT_READONLY, "/work", POLICY_PATH_READONLY_MOUNT);
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);

	/* A protected name inside one is a stated loss (policy_degrade_losses). */
	p = open_read_plan();
	add_mount(p, POLICY_MOUNT_READONLY, "/home/u/src/.git/hooks", POLICY_PATH_PROTECTED);
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);
}

Test(degrade_refusal, tmp_is_replaced_unless_shared)
{
	struct policy_plan *p = open_read_plan();
	char why[512];

	/* The host's /tmp is not granted (the private directory stands in),
	 * so a closed path in it stays closed. */
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/tmp/krb5cc_1000", POLICY_PATH_CREDENTIAL);
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	/* /dev/shm likewise is never granted. */
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/dev/shm/sem.x", POLICY_PATH_DENY_READ);
	cr_expect_not(refused(p, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);

	opts.share_tmp = true;
	p = open_read_plan();
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/tmp/krb5cc_1000", POLICY_PATH_CREDENTIAL);
	cr_expect(refused(p, why, sizeof(why)), "--share-tmp: /tmp is granted whole");
	cr_expect(names(why, "/tmp/krb5cc_1000"), "%s", why);
	cr_expect(names(why, "/tmp"), "%s", why);
	opts.share_tmp = false;
	policy_plan_destroy(p);
}

/* ---- losses -------------------------------------------------------------- */

struct lines {
	char v[32][1024];
	size_t n;
};

static void collect(const char *line, void *arg)
{
	struct lines *l = arg;

	cr_assert_lt(l->n, ARRAY_LEN(l->v));
	cr_assert_lt(strlen(line), sizeof(l->v[0]));
	snprintf(l->v[l->n++], sizeof(l->v[0]), "%s", line);
}

static struct lines losses(const struct policy_plan *p, const char *private_tmp)
{
	struct lines l = { .n = 0 };

	policy_degrade_losses(p, private_tmp, NULL, collect, &l);
	for (size_t i = 0; i < l.n; i++) {
		cr_expect_neq(l.v[i][0], '\0', "line %zu is empty", i);
		cr_expect_neq(strncmp(l.v[i], "porta: ", 7), 0, "line %zu: the caller says porta", i);
	}
	return l;
}

/* The line containing needle, or NULL. */
static const char *line_with(const struct lines *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strstr(l->v[i], needle))
			return l->v[i];
	}
	return NULL;
}

Test(degrade_losses, the_plain_plan)
{
	struct policy_plan *p = open_read_plan();
	struct lines l = losses(p, PRIVATE_TMP);
	const char *s;

	cr_assert_gt(l.n, 0);
	cr_expect_not_null(strstr(l.v[0], "user namespaces"), "first: %s", l.v[0]);
	s = line_with(&l, "TMPDIR=" PRIVATE_TMP);
	cr_expect_not_null(s, "the /tmp line names the private directory");
	cr_expect_null(line_with(&l, "protected names"));
	cr_expect_null(line_with(&l, "credential sockets"));
	cr_expect_null(line_with(&l, "no private network"), "the network is open");
	cr_expect_null(line_with(&l, "no transparent egress"));
	policy_plan_destroy(p);
}

Test(degrade_losses, protected_names_inside_writable_mounts)
{
	struct policy_plan *p = open_read_plan();
	struct lines l;
	const char *s;

	add_mount(p, POLICY_MOUNT_READONLY, "/home/u/src/.git/hooks", POLICY_PATH_PROTECTED);
	add_mount(p, POLICY_MOUNT_PIN, "/home/u/src/.git", POLICY_PATH_GIT_DIR);
	/* Not inside a writable mount: the same in both sandboxes. */
	add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS);
	l = losses(p, PRIVATE_TMP);
	s = line_with(&l, "protected names");
	cr_assert_not_null(s);
	cr_expect_not_null(strstr(s, " 2 "), "two inside the -v mount: %s", s);
	cr_expect_not_null(strstr(s, "/home/u/src/.git/hooks"), "the first as the example: %s", s);
	cr_expect_null(strstr(s, "absent"), "%s", s);
	cr_expect_null(strstr(s, "/proc/sys"), "%s", s);

	cr_expect_eq(policy_plan_add_absent(p, "/home/u/src/.envrc"), 0);
	l = losses(p, PRIVATE_TMP);
	s = line_with(&l, "protected names");
	cr_assert_not_null(s);
	cr_expect_not_null(strstr(s, "absent"), "absent names can be created: %s", s);
	policy_plan_destroy(p);

	/* Absent ones alone are enough for the line. */
	p = open_read_plan();
	cr_expect_eq(policy_plan_add_absent(p, "/home/u/src/.envrc"), 0);
	l = losses(p, PRIVATE_TMP);
	cr_expect_not_null(line_with(&l, "protected names"));
	policy_plan_destroy(p);

	/* Outside any writable mount: nothing lost. */
	p = open_read_plan();
	add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS);
	add_mount(p, POLICY_MOUNT_READONLY, "/tmp/ro", POLICY_PATH_READONLY_MOUNT); /* /tmp is replaced */
	l = losses(p, PRIVATE_TMP);
	cr_expect_null(line_with(&l, "protected names"));
	policy_plan_destroy(p);
}

/* A socket's cover is no loss on a degraded host: the connect watch decides
 * every Unix-socket call by rule there too (supervisor/unixsock.h). */
Test(degrade_losses, credential_sockets_are_no_loss)
{
	struct policy_plan *p = open_read_plan();
	struct lines l;

	add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/user/1000/gnupg/S.gpg-agent", POLICY_PATH_CREDENTIAL_SOCKET);
	add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/user/1000/ssh-agent.sock", POLICY_PATH_CREDENTIAL_SOCKET);
	l = losses(p, PRIVATE_TMP);
	cr_expect_gt(l.n, 0, "the other losses are still said");
	cr_expect_null(line_with(&l, "sockets"));
	policy_plan_destroy(p);
}

/* The full sandbox closes /proc/kallsyms in its fresh /proc; the host's
 * /proc stays whole (degrade_rules above), and the line says what that
 * leaves open and when it matters. */
Test(degrade_losses, kernel_addresses_in_the_hosts_proc)
{
	struct policy_plan *p = open_read_plan();
	struct lines l = losses(p, PRIVATE_TMP);
	const char *s = line_with(&l, "/proc/kallsyms");

	cr_assert_not_null(s);
	cr_expect_not_null(strstr(s, "kernel.kptr_restrict"), "%s", s);
	cr_expect_not_null(strstr(s, "kernel.perf_event_paranoid"), "%s", s);
	char why[512] = "";
	cr_expect_not(policy_degrade_refusal(p, false, why, sizeof(why)), "%s", why);
	policy_plan_destroy(p);

	/* A kernel without kallsyms: resolve adds no cover, nothing to say. */
	p = new_plan();
	rule(p, "/", POLICY_GRANT_READ, true);
	add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES);
	l = losses(p, PRIVATE_TMP);
	cr_expect_null(line_with(&l, "kallsyms"));
	policy_plan_destroy(p);
}

Test(degrade_losses, tmp_line_only_with_a_private_directory)
{
	struct policy_plan *p = open_read_plan();
	struct lines l = losses(p, "/tmp/porta-xyz");

	cr_expect_not_null(line_with(&l, "TMPDIR=/tmp/porta-xyz"));
	l = losses(p, NULL);
	cr_expect_null(line_with(&l, "TMPDIR="), "--share-tmp: /tmp is the host's on purpose");
	policy_plan_destroy(p);
}

Test(degrade_losses, network_lines_follow_the_mode)
{
	struct policy_plan *p = open_read_plan();
	struct lines l;

	opts.net_mode = POLICY_NET_NONE;
	l = losses(p, PRIVATE_TMP);
	cr_expect_not_null(line_with(&l, "no private network"));
	cr_expect_null(line_with(&l, "no transparent egress"));

	opts.net_mode = POLICY_NET_POLICY;
	l = losses(p, PRIVATE_TMP);
	cr_expect_not_null(line_with(&l, "no transparent egress"));
	cr_expect_null(line_with(&l, "no private network"));

	opts.net_mode = POLICY_NET_OPEN;
	l = losses(p, PRIVATE_TMP);
	cr_expect_null(line_with(&l, "no transparent egress"));
	cr_expect_null(line_with(&l, "no private network"));
	policy_plan_destroy(p);
}

/* --share-tmp: resolve.c pins the host's /tmp so it stays writable when
 * init makes the rest read-only.  That pin is no protected name. */
Test(degrade_losses, the_shared_tmp_pin_is_no_protected_name)
{
	struct policy_plan *p = new_plan();
	struct lines l;

	opts.share_tmp = true;
	rule(p, "/", R, true);
	rule(p, "/tmp", R | W, true);
	add_mount(p, POLICY_MOUNT_PIN, "/tmp", POLICY_PATH_SHARED_TMP);
	l = losses(p, NULL);
	const char *s = line_with(&l, "protected names");
	cr_expect_null(s, "%s", s ? s : "");
	opts.share_tmp = false;
	policy_plan_destroy(p);
}
