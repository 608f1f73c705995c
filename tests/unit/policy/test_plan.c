/* tests/unit/policy/test_plan.c: the plan's appenders (policy/plan.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "policy/options.h"
#include "policy/plan.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static struct policy_options opts;

static struct policy_plan *new_plan(void)
{
	struct policy_plan *p = policy_plan_create(&opts);
	cr_assert_not_null(p);
	return p;
}

Test(plan, create_is_empty_and_destroy_null)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(p->opts, &opts);
	cr_assert(p->n_rules == 0 && p->n_mounts == 0 && p->n_notes == 0 && p->n_env == 0 &&
		  p->n_absent_protected == 0);
	cr_assert_not_null(p->envp, "envp must be a valid empty environment");
	cr_assert_null(p->envp[0]);
	cr_assert_null(p->home);
	policy_plan_destroy(p);
	policy_plan_destroy(NULL);
}

Test(plan, rules_merge_same_path)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/work", POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_DEV, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/usr/", POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(p->n_rules, 3, "same path twice is one rule");
	cr_assert_str_eq(p->rules[0].path, "/usr");
	cr_assert_eq(p->rules[0].grant, POLICY_GRANT_READ | POLICY_GRANT_DEV);
	cr_assert_str_eq(p->rules[1].path, "/work");
	cr_assert_eq(p->rules[1].grant, POLICY_GRANT_WRITE);
	cr_assert_str_eq(p->rules[2].path, "/usr/"); /* lexical: callers normalise first */
	policy_plan_destroy(p);
}

Test(plan, appenders_copy_their_input)
{
	struct policy_plan *p = new_plan();
	char buf[64];
	snprintf(buf, sizeof(buf), "/home/u/.ssh");
	cr_assert_eq(policy_plan_add_rule(p, buf, POLICY_GRANT_READ, false), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, buf, POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_absent(p, buf), 0);
	memset(buf, 'X', sizeof(buf) - 1);
	cr_assert_str_eq(p->rules[0].path, "/home/u/.ssh");
	cr_assert(!p->rules[0].is_dir);
	cr_assert_str_eq(p->mounts[0].path, "/home/u/.ssh");
	cr_assert_str_eq(p->absent_protected[0], "/home/u/.ssh");
	policy_plan_destroy(p);
}

/* Many of each: the growth keeps every element, in order. */
Test(plan, many_elements_in_order)
{
	struct policy_plan *p = new_plan();
	const size_t n = 1000;
	for (size_t i = 0; i < n; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/p/%zu", i);
		cr_assert_eq(policy_plan_add_rule(p, path, POLICY_GRANT_READ, true), 0);
		cr_assert_eq(policy_plan_add_mount(p, (enum policy_mount_kind)(i % 7), path, (enum policy_path_reason)(i % POLICY_PATH_COUNT_)), 0);
		cr_assert_eq(policy_plan_add_absent(p, path), 0);
		cr_assert_eq(policy_plan_add_note(p, "note %zu of %s", i, "many"), 0);
	}
	cr_assert(p->n_rules == n && p->n_mounts == n && p->n_absent_protected == n &&
		  p->n_notes == n);
	for (size_t i = 0; i < n; i++) {
		char path[32], note[32];
		snprintf(path, sizeof(path), "/p/%zu", i);
		snprintf(note, sizeof(note), "note %zu of many", i);
		cr_assert_str_eq(p->rules[i].path, path);
		cr_assert_str_eq(p->mounts[i].path, path);
		cr_assert_eq(p->mounts[i].kind, (enum policy_mount_kind)(i % 7));
		cr_assert_str_eq(p->absent_protected[i], path);
		cr_assert_str_eq(p->notes[i], note);
	}
	policy_plan_destroy(p);
}

Test(plan, find_mount)
{
	struct policy_plan *p = new_plan();
	cr_assert_null(policy_plan_find_mount(p, "/proc"));
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/docker.sock",
					       POLICY_PATH_CREDENTIAL_SOCKET),
		     0);
	const struct policy_mount_step *m = policy_plan_find_mount(p, "/tmp");
	cr_assert_not_null(m);
	cr_assert_eq(m->kind, POLICY_MOUNT_TMPFS);
	cr_assert_eq(m->reason, POLICY_PATH_PRIVATE_TMP);
	m = policy_plan_find_mount(p, "/run/docker.sock");
	cr_assert_not_null(m);
	cr_assert_eq(m->kind, POLICY_MOUNT_COVER_FILE);
	cr_assert_null(policy_plan_find_mount(p, "/tm"));
	cr_assert_null(policy_plan_find_mount(p, "/tmp/"));
	cr_assert_null(policy_plan_find_mount(p, "/run"));
	policy_plan_destroy(p);
}

Test(plan, notes_format)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(policy_plan_add_note(p, "%s is not a valid gitdir pointer", "/w/.git"), 0);
	cr_assert_eq(policy_plan_add_note(p, "plain"), 0);
	cr_assert_eq(policy_plan_add_note(p, "%d%%", 50), 0);
	cr_assert_eq(p->n_notes, 3);
	cr_assert_str_eq(p->notes[0], "/w/.git is not a valid gitdir pointer");
	cr_assert_str_eq(p->notes[1], "plain");
	cr_assert_str_eq(p->notes[2], "50%");
	policy_plan_destroy(p);
}

static const char *env_get(const struct policy_plan *p, const char *name)
{
	size_t l = strlen(name);
	for (size_t i = 0; i < p->n_env; i++)
		if (strncmp(p->envp[i], name, l) == 0 && p->envp[i][l] == '=')
			return p->envp[i] + l + 1;
	return NULL;
}

static void assert_env_terminated(const struct policy_plan *p)
{
	cr_assert_null(p->envp[p->n_env], "envp is not NULL-terminated");
	for (size_t i = 0; i < p->n_env; i++)
		cr_assert_not_null(strchr(p->envp[i], '='));
}

Test(plan, setenv_appends_and_replaces)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(policy_plan_setenv(p, "PATH", 4, "/usr/bin", 8), 0);
	cr_assert_eq(policy_plan_setenv(p, "PATHX", 5, "x", 1), 0);
	cr_assert_eq(policy_plan_setenv(p, "PAT", 3, "y", 1), 0);
	cr_assert_eq(p->n_env, 3);
	assert_env_terminated(p);
	/* replacing PATH touches neither PATHX nor PAT, and keeps the order */
	cr_assert_eq(policy_plan_setenv(p, "PATH", 4, "/bin", 4), 0);
	cr_assert_eq(p->n_env, 3);
	assert_env_terminated(p);
	cr_assert_str_eq(p->envp[0], "PATH=/bin");
	cr_assert_str_eq(env_get(p, "PATHX"), "x");
	cr_assert_str_eq(env_get(p, "PAT"), "y");
	cr_assert_eq(policy_plan_setenv(p, "PAT", 3, "", 0), 0);
	cr_assert_str_eq(p->envp[2], "PAT=");
	cr_assert_eq(policy_plan_setenv(p, "E", 1, "a=b=c", 5), 0);
	cr_assert_str_eq(env_get(p, "E"), "a=b=c");
	cr_assert_eq(p->n_env, 4);
	assert_env_terminated(p);
	policy_plan_destroy(p);
}

/* name and value are spans, not strings: only name_len/value_len bytes count. */
Test(plan, setenv_takes_spans)
{
	struct policy_plan *p = new_plan();
	const char line[] = "HOME=/home/u\nTERM=xterm";
	cr_assert_eq(policy_plan_setenv(p, line, 4, line + 5, 7), 0);
	cr_assert_eq(policy_plan_setenv(p, line + 13, 4, line + 18, 5), 0);
	cr_assert_str_eq(p->envp[0], "HOME=/home/u");
	cr_assert_str_eq(p->envp[1], "TERM=xterm");
	/* "HOME" given as a prefix of "HOMEDIR": a new variable, not HOME */
	cr_assert_eq(policy_plan_setenv(p, "HOMEDIR", 7, "x", 1), 0);
	cr_assert_eq(p->n_env, 3);
	cr_assert_str_eq(env_get(p, "HOME"), "/home/u");
	policy_plan_destroy(p);
}

Test(plan, setenv_many)
{
	struct policy_plan *p = new_plan();
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 300; i++) {
			char name[16], val[16];
			int nl = snprintf(name, sizeof(name), "V%d", i);
			int vl = snprintf(val, sizeof(val), "%d-%d", round, i);
			cr_assert_eq(policy_plan_setenv(p, name, (size_t)nl, val, (size_t)vl), 0);
		}
	}
	cr_assert_eq(p->n_env, 300);
	assert_env_terminated(p);
	cr_assert_str_eq(env_get(p, "V299"), "1-299");
	cr_assert_str_eq(env_get(p, "V0"), "1-0");
	policy_plan_destroy(p);
}

/* destroy frees what the caller put in the owned fields too (home, cwd);
 * under ASan a leak or double free shows. */
Test(plan, destroy_frees_owned_fields)
{
	struct policy_plan *p = new_plan();
	p->home = strdup("/home/u");
	p->cwd = strdup("/work");
	cr_assert_eq(policy_plan_add_rule(p, "/work", POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_setenv(p, "A", 1, "1", 1), 0);
	policy_plan_destroy(p);
}

/* Rules on filesystems the sandbox mounts itself must be added after the
 * mounts (Landlock skips a mount point's hidden inode); the rest before. */
Test(plan, rules_after_mounts_are_those_on_replaced_filesystems)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_DEVPTS, "/dev/pts", POLICY_PATH_OWN_TERMINALS), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/work", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u", POLICY_PATH_HOME_CLOSED), 0);
	static const struct {
		const char *path;
		bool late;
	} v[] = {
		{ "/proc", true },     { "/tmp", true },       { "/dev/pts", true },
		{ "/dev/ptmx", true }, { "/work", false },     { "/proc/sys", false },
		{ "/", false },        { "/tmp/x", false },    { "/dev/null", false },
		{ "/home/u", true },   { "/home/u/p", false },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct policy_rule r = { (char *)v[i].path, POLICY_GRANT_READ, true };
		cr_expect_eq(policy_plan_rule_after_mounts(p, &r), v[i].late, "%s", v[i].path);
	}
	policy_plan_destroy(p);

	/* Without a devpts step, /dev/ptmx is the host's file: an early rule. */
	p = new_plan();
	struct policy_rule ptmx = { (char *)"/dev/ptmx", POLICY_GRANT_DEV, false };
	cr_expect_not(policy_plan_rule_after_mounts(p, &ptmx));
	policy_plan_destroy(p);
}

/* Escape corpus row 56: what init leaves writable when it makes the rest
 * of the sandbox's mounts read-only (chmod, utimes and xattrs are not
 * Landlock's). */
Test(plan, mounts_stay_writable_only_under_write_grants_or_when_the_sandbox_made_them)
{
	struct policy_plan *p = new_plan();
	cr_assert_eq(policy_plan_add_rule(p, "/", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u/ws", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u/ro", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/dev/null", POLICY_GRANT_READ | POLICY_GRANT_DEV, false), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/dev", POLICY_PATH_PRIVATE_DEV), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/dev/null", POLICY_PATH_DEVICE), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_DEVPTS, "/dev/pts", POLICY_PATH_OWN_TERMINALS), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/home/u/ws", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u/.ssh", POLICY_PATH_CREDENTIAL), 0);
	static const struct {
		const char *mp;
		bool writable;
	} v[] = {
		{ "/", false },          { "/home", false },          { "/home/u", false },
		{ "/home/u/ro", false }, { "/home/u/ws", true },      { "/home/u/ws/sub", true },
		{ "/home/u/wsx", false }, { "/tmp", true },           { "/tmp/x", true },
		{ "/dev", true },        { "/dev/null", false },      { "/dev/pts", true },
		{ "/proc", true },       { "/proc/sys", false },      { "/sys", false },
		{ "/sys/fs/cgroup", false }, { "/home/u/.ssh", true }, { "/boot", false },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		cr_expect_eq(policy_plan_mount_stays_writable(p, v[i].mp), v[i].writable, "%s", v[i].mp);
	policy_plan_destroy(p);

	/* -v / leaves every mount as it was. */
	p = new_plan();
	cr_assert_eq(policy_plan_add_rule(p, "/", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_expect(policy_plan_mount_stays_writable(p, "/"));
	cr_expect(policy_plan_mount_stays_writable(p, "/sys"));
	policy_plan_destroy(p);
}

/* Which mount steps are the socket rule's: the cover of a host or
 * credential socket, and a closed socket directory; nothing else. */
Test(plan, mount_closes_socket)
{
	static const struct {
		enum policy_mount_kind kind;
		enum policy_path_reason reason;
		bool closes;
	} v[] = {
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_HOST_SOCKET, true },
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_CREDENTIAL_SOCKET, true },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_SOCKET_DIR, true },
		/* a closed directory or file that is not the socket rule's */
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_CREDENTIAL, false },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_DENY_READ, false },
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_CREDENTIAL, false },
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_DENY_READ, false },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_HOME_CLOSED, false },
		/* the right reason on the wrong kind */
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_SOCKET_DIR, false },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_HOST_SOCKET, false },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_CREDENTIAL_SOCKET, false },
		{ POLICY_MOUNT_REBIND, POLICY_PATH_ALLOW_UNIX, false },
		{ POLICY_MOUNT_REBIND, POLICY_PATH_HOST_SOCKET, false },
		{ POLICY_MOUNT_REBIND, POLICY_PATH_KEPT_SOCKET, false },
		{ POLICY_MOUNT_READONLY, POLICY_PATH_SOCKET_DIR, false },
		{ POLICY_MOUNT_PIN, POLICY_PATH_PROTECTED_PARENT, false },
		{ POLICY_MOUNT_TMPFS, POLICY_PATH_PRIVATE_TMP, false },
		/* a value outside the table */
		{ POLICY_MOUNT_COVER_FILE, POLICY_PATH_COUNT_, false },
		{ POLICY_MOUNT_COVER_DIR, POLICY_PATH_COUNT_, false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_mount_step m = { .kind = v[i].kind, .path = (char *)"/run/x",
					       .reason = v[i].reason };
		cr_assert_eq(policy_mount_closes_socket(&m), v[i].closes, "vector %zu (%s)", i,
			     policy_path_reason_words(v[i].reason));
	}
}

/* Options as the command line gives them (the plan keeps a pointer). */
static struct policy_options parsed;

static struct policy_plan *plan_for(char *const *argv)
{
	int argc = 0;
	char err[POLICY_ERR_MAX];
	while (argv[argc])
		argc++;
	cr_assert_eq(policy_parse_args(argc, argv, &parsed, err), POLICY_PARSE_OK, "%s", err);
	struct policy_plan *p = policy_plan_create(&parsed);
	cr_assert_not_null(p);
	cr_assert_eq(policy_plan_add_rule(p, "/", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/srv/ro", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/work", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/home/u/data", POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/dev/shm", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true),
		     0);
	cr_assert_eq(policy_plan_add_rule(p, "/dev/null",
					  POLICY_GRANT_READ | POLICY_GRANT_WRITE | POLICY_GRANT_DEV,
					  false),
		     0);
	cr_assert_eq(policy_plan_add_rule(p, "/dev/dri",
					  POLICY_GRANT_READ | POLICY_GRANT_WRITE | POLICY_GRANT_DEV,
					  true),
		     0);
	/* mounts do not make a path writable: only the -v rules do */
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/srv/ro", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/run/t", POLICY_PATH_PRIVATE_TMP), 0);
	return p;
}

static const struct {
	const char *path;
	bool private_tmp, shared_tmp; /* in a writable mount, with either /tmp */
} writable_vectors[] = {
	{ "/work", true, true },
	{ "/work/.envrc", true, true },
	{ "/work/a/b/.claude/settings.json", true, true },
	{ "/home/u/data/x", true, true },
	{ "/workx/.envrc", false, false },
	{ "/wor", false, false },
	{ "/home/u/.bashrc", false, false },
	{ "/home/u/datax", false, false },
	{ "/", false, false },
	{ "/srv/ro", false, false },
	{ "/srv/ro/.envrc", false, false },
	{ "/run/t/x", false, false },
	/* the sandbox's own /tmp never reaches the host; the host's does */
	{ "/tmp", false, true },
	{ "/tmp/x/.envrc", false, true },
	{ "/tmpx", false, false },
	{ "/dev/shm/x", false, false },
	{ "/dev/shm", false, false },
	/* devices are not directories a name can appear in */
	{ "/dev/null", false, false },
	{ "/dev/dri/card0", false, false },
	{ "/dev/x", false, false },
};

Test(plan, in_writable_mount)
{
	static char *const private_argv[] = { "porta", "run", "-v", "/work", "--", "true", NULL };
	static char *const shared_argv[] = { "porta", "run", "-v", "/work", "--share-tmp", "--",
					     "true", NULL };
	struct policy_plan *p = plan_for(private_argv);
	cr_assert(!parsed.share_tmp);
	for (size_t i = 0; i < N_ELEMS(writable_vectors); i++)
		cr_expect_eq(policy_plan_in_writable_mount(p, writable_vectors[i].path),
			     writable_vectors[i].private_tmp, "%s, private /tmp",
			     writable_vectors[i].path);
	policy_plan_destroy(p);

	p = plan_for(shared_argv);
	cr_assert(parsed.share_tmp);
	for (size_t i = 0; i < N_ELEMS(writable_vectors); i++)
		cr_expect_eq(policy_plan_in_writable_mount(p, writable_vectors[i].path),
			     writable_vectors[i].shared_tmp, "%s, shared /tmp",
			     writable_vectors[i].path);
	policy_plan_destroy(p);

	/* no rules: nothing is writable */
	p = new_plan();
	cr_assert(!policy_plan_in_writable_mount(p, "/work"));
	cr_assert(!policy_plan_in_writable_mount(p, "/"));
	policy_plan_destroy(p);
}

Test(plan, reopen_copies_and_is_once_per_path)
{
	struct policy_plan *p = new_plan();
	cr_assert(p->n_reopened == 0 && p->n_links == 0 && p->n_warnings == 0);
	char path[64], closed[64];
	snprintf(path, sizeof(path), "/home/u/.aws/config");
	snprintf(closed, sizeof(closed), "/home/u/.aws");
	cr_assert_eq(policy_plan_add_reopen(p, path, closed, POLICY_PATH_CREDENTIAL), 0);
	memset(path, 'X', sizeof(path) - 1);
	memset(closed, 'X', sizeof(closed) - 1);
	cr_assert_eq(p->n_reopened, 1);
	cr_assert_str_eq(p->reopened[0].path, "/home/u/.aws/config");
	cr_assert_str_eq(p->reopened[0].closed, "/home/u/.aws");
	cr_assert_eq(p->reopened[0].reason, POLICY_PATH_CREDENTIAL);

	/* the same path again, whatever it is said to reopen: one entry, the first */
	cr_assert_eq(policy_plan_add_reopen(p, "/home/u/.aws/config", "/home/u",
					    POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(p->n_reopened, 1);
	cr_assert_str_eq(p->reopened[0].closed, "/home/u/.aws");
	cr_assert_eq(p->reopened[0].reason, POLICY_PATH_CREDENTIAL);

	/* another path is another entry, in order; a prefix is another path */
	cr_assert_eq(policy_plan_add_reopen(p, "/home/u/.aws", "/home/u/.aws",
					    POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_reopen(p, "/secret/x", "/secret", POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(p->n_reopened, 3);
	cr_assert_str_eq(p->reopened[1].path, "/home/u/.aws");
	cr_assert_str_eq(p->reopened[2].path, "/secret/x");
	cr_assert_str_eq(p->reopened[2].closed, "/secret");
	cr_assert_eq(p->reopened[2].reason, POLICY_PATH_DENY_READ);
	policy_plan_destroy(p);
}

Test(plan, link_copies_its_strings)
{
	struct policy_plan *p = new_plan();
	char path[64], target[64];
	snprintf(path, sizeof(path), "/work/.envrc");
	snprintf(target, sizeof(target), "../elsewhere/envrc");
	cr_assert_eq(policy_plan_add_link(p, path, target, 0xfd01ULL, 1ULL << 40), 0);
	memset(path, 'X', sizeof(path) - 1);
	memset(target, 'X', sizeof(target) - 1);
	cr_assert_eq(policy_plan_add_link(p, "/work/.claude", "/opt/claude", 2, 3), 0);
	cr_assert_eq(p->n_links, 2);
	cr_assert_str_eq(p->links[0].path, "/work/.envrc");
	cr_assert_str_eq(p->links[0].target, "../elsewhere/envrc");
	cr_assert_eq(p->links[0].dev, 0xfd01ULL);
	cr_assert_eq(p->links[0].ino, 1ULL << 40);
	cr_assert_str_eq(p->links[1].path, "/work/.claude");
	cr_assert_str_eq(p->links[1].target, "/opt/claude");
	cr_assert(p->links[1].dev == 2 && p->links[1].ino == 3);
	policy_plan_destroy(p);
}

/* Many of each through the growth; destroy frees every string (a leak or
 * double free shows under ASan). */
Test(plan, many_links_reopens_and_warnings)
{
	struct policy_plan *p = new_plan();
	const size_t n = 300;
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32];
		snprintf(a, sizeof(a), "/w/%zu", i);
		snprintf(b, sizeof(b), "/t/%zu", i);
		cr_assert_eq(policy_plan_add_link(p, a, b, i, i), 0);
		cr_assert_eq(policy_plan_add_reopen(p, a, b, POLICY_PATH_CREDENTIAL), 0);
		cr_assert_eq(policy_plan_add_reopen(p, a, "/", POLICY_PATH_DENY_READ), 0);
		cr_assert_eq(policy_plan_add_warning(p, "reopened %s", a), 0);
	}
	cr_assert(p->n_links == n && p->n_reopened == n && p->n_warnings == n);
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], w[48];
		snprintf(a, sizeof(a), "/w/%zu", i);
		snprintf(b, sizeof(b), "/t/%zu", i);
		snprintf(w, sizeof(w), "reopened %s", a);
		cr_assert_str_eq(p->links[i].path, a);
		cr_assert_str_eq(p->links[i].target, b);
		cr_assert_eq(p->links[i].ino, i);
		cr_assert_str_eq(p->reopened[i].path, a);
		cr_assert_str_eq(p->reopened[i].closed, b);
		cr_assert_str_eq(p->warnings[i], w);
	}
	policy_plan_destroy(p);
}

static struct policy_net_rule port_rule(enum policy_net_action a, enum policy_net_scope sc,
					uint16_t lo, uint16_t hi)
{
	struct policy_net_rule r;
	memset(&r, 0, sizeof(r));
	r.action = a;
	r.scope = sc;
	r.port_lo = lo;
	r.port_hi = hi;
	return r;
}

/* One transparent listener per port an --allow-net rule opens: the union of
 * the allow rules' ports, ascending, without 53 (the DNS responder's) and
 * without what deny and proxy-only rules name; counted past cap. */
Test(plan, listen_ports_are_the_ordered_union_of_allow_rules)
{
	struct policy_net_rule rules[] = {
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 8443, 8443),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 443, 443),
		port_rule(POLICY_NET_DENY, POLICY_NET_SCOPE_ALL, 22, 22),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY, 9000, 9000),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 50, 70),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 63, 65),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 65535, 65535),
		port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 443, 443),
	};
	uint16_t want[] = { 50, 51, 52, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64,
			    65, 66, 67, 68, 69, 70, 443, 8443, 65535 };
	uint16_t got[64];

	size_t n = policy_net_listen_ports(rules, N_ELEMS(rules), got, N_ELEMS(got));
	cr_assert_eq(n, N_ELEMS(want));
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "port %zu: %u, not %u", i, got[i], want[i]);
	/* counted past cap, only cap written */
	uint16_t few[3] = { 0, 0, 0 };
	cr_assert_eq(policy_net_listen_ports(rules, N_ELEMS(rules), few, 2), N_ELEMS(want));
	cr_assert(few[0] == 50 && few[1] == 51 && few[2] == 0);
	cr_assert_eq(policy_net_listen_ports(rules, N_ELEMS(rules), NULL, 0), N_ELEMS(want));
	/* every port, as learn's catch-all rules ask */
	struct policy_net_rule all = port_rule(POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, 1, 65535);
	cr_assert_eq(policy_net_listen_ports(&all, 1, NULL, 0), 65534);
}
