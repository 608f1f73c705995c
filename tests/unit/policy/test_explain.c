/* tests/unit/policy/test_explain.c: a hand-built plan rendered as text and as
 * JSON (policy/explain.h); the JSON is parsed back with jansson. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/explain.h"
#include "policy/options.h"
#include "policy/plan.h"
#include "policy/preset.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static char *const argv_full[] = {
	"porta", "explain", "-v", "/srv/data:ro", "-v", "/work", "--read-policy", "strict",
	"--allow-net", "example.com", "--timeout", "2.5", "--max-procs", "64", "--max-cpu", "30",
	"--max-file-size", "100", "--max-memory-mb", "512", "--share-tmp", "--preset", "none",
	"--", "make", "-j2", "all", NULL,
};

struct fixture {
	struct policy_options o;
	struct policy_plan *plan;
};

static void build(struct fixture *f, char *const *argv)
{
	int argc = 0;
	char err[POLICY_ERR_MAX];
	while (argv[argc])
		argc++;
	cr_assert_eq(policy_parse_args(argc, argv, &f->o, err), POLICY_PARSE_OK, "%s", err);
	f->plan = policy_plan_create(&f->o);
	cr_assert_not_null(f->plan);
}

static void fill(struct policy_plan *p)
{
	p->core_target = POLICY_CORE_PIPE;
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/work", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/dev/null", POLICY_GRANT_DEV, false), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/home/u/.ssh", POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/home/u/.netrc", POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/secret/x", POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/docker.sock",
					   POLICY_PATH_CREDENTIAL_SOCKET), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/work/.bashrc", POLICY_PATH_PROTECTED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/work/.git/hooks", POLICY_PATH_PROTECTED), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/work", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/proc/sys", POLICY_PATH_KERNEL_SETTINGS), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/work/.envrc"), 0);
	cr_assert_eq(policy_plan_add_note(p, "/work/.git is a worktree of %s", "/src/repo"), 0);
	cr_assert_eq(policy_plan_setenv(p, "PATH", 4, "/usr/bin:/bin", 13), 0);
	cr_assert_eq(policy_plan_setenv(p, "HOME", 4, "/home/u", 7), 0);
	cr_assert_eq(policy_plan_setenv(p, "SECRET_LOOKING", 14, "hunter2", 7), 0);
}

/* Renders into a heap string. */
static char *render(const struct fixture *f, int argc, char *const argv[], int abi, bool json)
{
	char *out = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&out, &n);
	cr_assert_not_null(fp);
	cr_assert_eq(policy_explain(fp, f->plan, argc, argv, abi, json), 0);
	cr_assert_eq(fclose(fp), 0);
	return out;
}

static json_t *render_json(const struct fixture *f, int argc, char *const argv[], int abi)
{
	char *s = render(f, argc, argv, abi, true);
	json_error_t e;
	json_t *root = json_loads(s, 0, &e);
	cr_assert_not_null(root, "not JSON: %s at line %d: %s", e.text, e.line, s);
	cr_assert(json_is_object(root));
	free(s);
	return root;
}

static json_t *key(json_t *o, const char *k, json_type type)
{
	json_t *v = json_object_get(o, k);
	cr_assert_not_null(v, "key \"%s\" is missing", k);
	cr_assert_eq(json_typeof(v), type, "key \"%s\" has type %d", k, json_typeof(v));
	return v;
}

static bool array_has_string(json_t *a, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	}
	return false;
}

static json_t *find_by_path(json_t *a, const char *path)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		json_t *p = json_object_get(v, "path");
		if (json_is_string(p) && strcmp(json_string_value(p), path) == 0)
			return v;
	}
	return NULL;
}

Test(explain, json_keys_and_values)
{
	struct fixture f;
	build(&f, argv_full);
	fill(f.plan);
	json_t *root = render_json(&f, f.o.cmd_argc, argv_full + f.o.cmd_index, 6);

	json_t *mounts = key(root, "mounts", JSON_ARRAY);
	cr_assert_eq(json_array_size(mounts), 2);
	json_t *m0 = json_array_get(mounts, 0), *m1 = json_array_get(mounts, 1);
	cr_assert_str_eq(json_string_value(key(m0, "path", JSON_STRING)), "/srv/data");
	cr_assert_str_eq(json_string_value(key(m0, "access", JSON_STRING)), "ro");
	cr_assert_str_eq(json_string_value(key(m1, "path", JSON_STRING)), "/work");
	cr_assert_str_eq(json_string_value(key(m1, "access", JSON_STRING)), "rw");

	cr_assert_str_eq(json_string_value(key(root, "read_policy", JSON_STRING)), "strict");
	cr_assert_str_eq(json_string_value(key(root, "core_dumps", JSON_STRING)), "none");

	json_t *closed = key(root, "closed_paths", JSON_ARRAY);
	cr_assert_eq(json_array_size(closed), 3, "the socket cover is not a closed path");
	json_t *ssh = find_by_path(closed, "/home/u/.ssh");
	cr_assert_not_null(ssh);
	cr_assert_str_eq(json_string_value(key(ssh, "kind", JSON_STRING)), "dir");
	cr_assert_str_eq(json_string_value(key(ssh, "reason", JSON_STRING)), "credential");
	json_t *dr = find_by_path(closed, "/secret/x");
	cr_assert_not_null(dr);
	cr_assert_str_eq(json_string_value(key(dr, "kind", JSON_STRING)), "file");
	cr_assert_str_eq(json_string_value(key(dr, "reason", JSON_STRING)), "--deny-read");
	cr_assert_null(find_by_path(closed, "/run/docker.sock"));

	json_t *prot = key(root, "protected", JSON_ARRAY);
	cr_assert_eq(json_array_size(prot), 3);
	json_t *b = find_by_path(prot, "/work/.bashrc");
	cr_assert_not_null(b);
	cr_assert(json_is_true(key(b, "present", JSON_TRUE)));
	json_t *e = find_by_path(prot, "/work/.envrc");
	cr_assert_not_null(e);
	cr_assert(json_is_false(json_object_get(e, "present")));
	cr_assert_null(find_by_path(prot, "/proc/sys"), "a read-only mount is not a protected name");

	json_t *socks = key(root, "closed_sockets", JSON_ARRAY);
	cr_assert_eq(json_array_size(socks), 1);
	cr_assert(array_has_string(socks, "/run/docker.sock"));

	json_t *net = key(root, "network", JSON_OBJECT);
	cr_assert_str_eq(json_string_value(key(net, "mode", JSON_STRING)), "policy");

	json_t *lim = key(root, "limits", JSON_OBJECT);
	cr_assert_eq(json_integer_value(key(lim, "timeout_ms", JSON_INTEGER)), 2500);
	cr_assert_eq(json_integer_value(key(lim, "max_procs", JSON_INTEGER)), 64);
	cr_assert_eq(json_integer_value(key(lim, "max_cpu_s", JSON_INTEGER)), 30);
	cr_assert_eq(json_integer_value(key(lim, "max_file_size_mib", JSON_INTEGER)), 100);
	cr_assert_eq(json_integer_value(key(lim, "max_memory_mib", JSON_INTEGER)), 512);

	/* names only: values stay out of explain */
	json_t *env = key(root, "env", JSON_ARRAY);
	cr_assert_eq(json_array_size(env), 3);
	cr_assert(array_has_string(env, "PATH") && array_has_string(env, "HOME") &&
		  array_has_string(env, "SECRET_LOOKING"));
	char *dump = json_dumps(root, 0);
	cr_assert_null(strstr(dump, "hunter2"), "a variable's value leaked into explain");
	free(dump);

	json_t *cmd = key(root, "command", JSON_ARRAY);
	cr_assert_eq(json_array_size(cmd), 3);
	cr_assert_str_eq(json_string_value(json_array_get(cmd, 0)), "make");
	cr_assert_str_eq(json_string_value(json_array_get(cmd, 2)), "all");

	json_t *notes = key(root, "notes", JSON_ARRAY);
	cr_assert_eq(json_array_size(notes), 1);
	cr_assert_str_eq(json_string_value(json_array_get(notes, 0)),
			 "/work/.git is a worktree of /src/repo");

	cr_assert_eq(json_integer_value(key(root, "landlock_abi", JSON_INTEGER)), 6);
	cr_assert_str_eq(json_string_value(key(root, "preset", JSON_STRING)), "none");
	cr_assert_str_eq(json_string_value(key(root, "tmp", JSON_STRING)), "shared");
	json_t *grants = key(root, "grants", JSON_ARRAY);
	cr_assert_eq(json_array_size(grants), 3);
	json_t *w = find_by_path(grants, "/work");
	cr_assert(json_is_true(json_object_get(w, "read")) && json_is_true(json_object_get(w, "write")) &&
		  json_is_false(json_object_get(w, "device")));

	json_decref(root);
	policy_plan_destroy(f.plan);
}

Test(explain, json_of_an_empty_plan)
{
	static char *const argv[] = { "porta", "explain", "--no-net", "--", "true", NULL };
	struct fixture f;
	build(&f, argv);
	json_t *root = render_json(&f, f.o.cmd_argc, argv + f.o.cmd_index, 0);
	static const char *const arrays[] = { "mounts", "closed_paths", "protected",
					      "closed_sockets", "env", "notes", "grants" };
	for (size_t i = 0; i < N_ELEMS(arrays); i++)
		cr_assert_eq(json_array_size(key(root, arrays[i], JSON_ARRAY)), 0, "%s", arrays[i]);
	cr_assert_str_eq(json_string_value(key(root, "read_policy", JSON_STRING)), "home");
	cr_assert_str_eq(json_string_value(key(json_object_get(root, "network"), "mode",
					       JSON_STRING)),
			 "none");
	cr_assert_eq(json_object_size(key(root, "limits", JSON_OBJECT)), 0);
	cr_assert_str_eq(json_string_value(key(root, "core_dumps", JSON_STRING)), "files");
	cr_assert_eq(json_array_size(key(root, "command", JSON_ARRAY)), 1);
	cr_assert_eq(json_integer_value(key(root, "landlock_abi", JSON_INTEGER)), 0);
	json_decref(root);
	policy_plan_destroy(f.plan);

	static char *const argv2[] = { "porta", "explain", "true", NULL };
	build(&f, argv2);
	root = render_json(&f, f.o.cmd_argc, argv2 + f.o.cmd_index, 7);
	cr_assert_str_eq(json_string_value(key(json_object_get(root, "network"), "mode",
					       JSON_STRING)),
			 "open");
	json_decref(root);
	policy_plan_destroy(f.plan);
}

/* Bytes that are not UTF-8 (a Latin-1 file name, a binary argument) are
 * legal in paths and argv; the JSON must still carry every element. */
Test(explain, json_with_non_utf8_bytes)
{
	static char *const argv[] = { "porta", "explain", "-v", "/srv/caf\xe9", "--",
				      "printf", "\xff\xfe", "ok", NULL };
	struct fixture f;
	build(&f, argv);
	cr_assert_eq(policy_plan_add_mount(f.plan, POLICY_MOUNT_COVER_DIR, "/home/u/\xc3\x28",
					   POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/srv/caf\xe9/.envrc"), 0);
	cr_assert_eq(policy_plan_add_note(f.plan, "note about %s", "/srv/caf\xe9"), 0);
	json_t *root = render_json(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7);

	json_t *cmd = key(root, "command", JSON_ARRAY);
	cr_assert_eq(json_array_size(cmd), 3, "an argument was dropped");
	cr_assert(json_is_string(json_array_get(cmd, 1)));
	cr_assert_str_eq(json_string_value(json_array_get(cmd, 2)), "ok");
	json_t *m = json_array_get(key(root, "mounts", JSON_ARRAY), 0);
	cr_assert(json_is_string(json_object_get(m, "path")), "mount path dropped");
	cr_assert_str_eq(json_string_value(json_object_get(m, "path")), "/srv/caf\\xe9");
	json_t *c = json_array_get(key(root, "closed_paths", JSON_ARRAY), 0);
	cr_assert(json_is_string(json_object_get(c, "path")), "closed path dropped");
	json_t *p = json_array_get(key(root, "protected", JSON_ARRAY), 0);
	cr_assert(json_is_string(json_object_get(p, "path")), "absent name dropped");
	cr_assert_eq(json_array_size(key(root, "notes", JSON_ARRAY)), 1);
	json_decref(root);
	policy_plan_destroy(f.plan);

	/* a valid UTF-8 argument goes through as it is */
	static char *const argv2[] = { "porta", "explain", "--", "echo", "caf\xc3\xa9", NULL };
	build(&f, argv2);
	root = render_json(&f, f.o.cmd_argc, argv2 + f.o.cmd_index, 7);
	cr_assert_str_eq(json_string_value(json_array_get(key(root, "command", JSON_ARRAY), 1)),
			 "caf\xc3\xa9");
	json_decref(root);
	policy_plan_destroy(f.plan);
}

Test(explain, text_sections)
{
	struct fixture f;
	build(&f, argv_full);
	fill(f.plan);
	char *s = render(&f, f.o.cmd_argc, argv_full + f.o.cmd_index, 6, false);
	static const char *const want[] = {
		"command: make -j2 all\n",
		"files (Landlock ABI 6):",
		"  mount /srv/data  read-only\n",
		"  mount /work  read-write\n",
		"reads: strict",
		"/tmp: the host's",
		"preset: none",
		"closed to reads (found now):\n",
		"  /home/u/.ssh  (directory, credential)\n",
		"  /home/u/.netrc  (file, credential)\n",
		"  /secret/x  (file, --deny-read)\n",
		"protected (unwritable, unrenamable):\n",
		"  /work/.bashrc\n",
		"  /work/.git/hooks\n",
		"  /work  (pinned against rename: writable mount root)\n",
		"absent now (a mount cannot cover them): watched while the command runs",
		"    in /work: .envrc\n",
		"Unix sockets: reachable inside writable mounts and the private /tmp, and what "
		"--allow-unix names; every other one is closed\n",
		"  closed now (bound when porta started):\n    /run/docker.sock  (credential socket)\n",
		"  kept (they grant nothing):\n    /run/systemd/journal/socket",
		"network: policy",
		"core dumps: none (kernel.core_pattern pipes them to a program of the host; "
		"RLIMIT_CORE stays at 1)\n",
		"limits: timeout 2.500s cpu 30s procs 64 file-size 100MiB memory 512MiB\n",
		"environment: PATH HOME SECRET_LOOKING\n",
		"notes:\n  - /work/.git is a worktree of /src/repo\n",
	};
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(s, want[i]), "missing \"%s\" in:\n%s", want[i], s);
	cr_assert_null(strstr(s, "hunter2"), "a variable's value leaked into explain");
	cr_assert_null(strstr(s, "/run/docker.sock  (file"), "a socket listed as a closed path");
	free(s);
	policy_plan_destroy(f.plan);
}

Test(explain, text_of_an_empty_plan)
{
	static char *const argv[] = { "porta", "explain", "--no-net", NULL };
	struct fixture f;
	build(&f, argv);
	char *s = render(&f, 0, argv + f.o.cmd_index, 0, false);
	static const char *const want[] = {
		"command: (none given)\n",
		"no -v mounts: nothing of the host is writable",
		"reads: home",
		"/tmp: private",
		"preset: default",
		"closed to reads (found now):\n  none\n",
		"protected (unwritable, unrenamable):\n  none\n",
		"  closed now (bound when porta started): none\n",
		"  closed as directories (host programs bind there later): none found\n",
		"network: none",
		"limits: none\n",
	};
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(s, want[i]), "missing \"%s\" in:\n%s", want[i], s);
	cr_assert_null(strstr(s, "notes:"));
	cr_assert_null(strstr(s, "absent now"));
	cr_assert_null(strstr(s, "core dumps"), "the host's core_pattern writes files: nothing pinned");
	free(s);
	policy_plan_destroy(f.plan);
}

/* Program-controlled strings are escaped in the text (docs/style.md §11): a path or
 * argument cannot add a line or send a terminal escape. */
Test(explain, text_escapes_control_bytes)
{
	static char *const argv[] = { "porta", "explain", "--", "sh", "-c", "x\ny\x1b[2J", NULL };
	struct fixture f;
	build(&f, argv);
	cr_assert_eq(policy_plan_add_mount(f.plan, POLICY_MOUNT_COVER_FILE, "/a\nFORGED line",
					   POLICY_PATH_DENY_READ), 0);
	cr_assert_eq(policy_plan_add_note(f.plan, "n\x1b]0;title\x07"), 0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/w/\r.envrc"), 0);
	char *s = render(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7, false);
	cr_assert_null(strchr(s, '\x1b'), "an escape byte reached the output");
	cr_assert_null(strchr(s, '\x07'));
	cr_assert_null(strchr(s, '\r'));
	cr_assert_null(strstr(s, "\nFORGED"), "a path forged a line");
	cr_assert_not_null(strstr(s, "/a\\x0aFORGED line"), "%s", s);
	cr_assert_not_null(strstr(s, "command: sh -c x\\x0ay\\x1b[2J\n"), "%s", s);
	free(s);
	policy_plan_destroy(f.plan);
}

/* The socket rule's steps (host and credential sockets, socket
 * directories, --allow-unix), the parents of protected names, a protected
 * name that is a link, reopened paths and absent names under writable
 * mounts (the deepest holds them). */
static void fill_issue11(struct policy_plan *p)
{
	cr_assert_eq(policy_plan_add_rule(p, "/usr", POLICY_GRANT_READ, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/root", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/root/proj", POLICY_GRANT_READ | POLICY_GRANT_WRITE,
					  true), 0);
	cr_assert_eq(policy_plan_add_rule(p, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/tmp/w", POLICY_PATH_UNDER_TMP), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/root/.ssh",
					   POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/app/app.sock",
					   POLICY_PATH_HOST_SOCKET), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/run/user/0",
					   POLICY_PATH_SOCKET_DIR), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/docker.sock",
					   POLICY_PATH_CREDENTIAL_SOCKET), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/tmp/.X11-unix",
					   POLICY_PATH_SOCKET_DIR), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/run/app/allowed.sock",
					   POLICY_PATH_ALLOW_UNIX), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/root/proj", POLICY_PATH_WRITABLE_ROOT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/root/proj/.claude",
					   POLICY_PATH_PROTECTED_PARENT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/root/.config",
					   POLICY_PATH_PROTECTED_PARENT), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_READONLY, "/root/proj/.claude/settings.json",
					   POLICY_PATH_PROTECTED), 0);
	cr_assert_eq(policy_plan_add_link(p, "/root/proj/.envrc", "/etc/envrc", 1, 2), 0);
	cr_assert_eq(policy_plan_add_reopen(p, "/root/.aws/config", "/root/.aws",
					    POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_reopen(p, "/root/.netrc", "/root/.netrc",
					    POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/root/.bashrc"), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/root/proj/.cursor/mcp.json"), 0);
	/* the sandbox's /tmp is no writable mount: printed whole (only one such
	 * name: see text_lists_every_absent_name_outside_writable_mounts) */
	cr_assert_eq(policy_plan_add_absent(p, "/tmp/w/.envrc"), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/root/.profile"), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/root/proj/.gemini/settings.json"), 0);
}

static char *const argv_open[] = { "porta", "explain", "-v", "/root", "--", "sh", NULL };
static char *const argv_no_net[] = { "porta", "explain", "-v", "/root", "--no-net", "--", "sh",
				     NULL };
static char *const argv_policy_net[] = { "porta", "explain", "-v", "/root", "--allow-net",
					 "example.com", "--", "sh", NULL };

/* The text between the line starting with `from` and the next blank line. */
static char *section(const char *s, const char *from)
{
	const char *a = strstr(s, from);
	cr_assert_not_null(a, "no section \"%s\" in:\n%s", from, s);
	const char *b = strstr(a, "\n\n");
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

Test(explain, text_of_the_socket_rule_and_protected_parents)
{
	struct fixture f;
	build(&f, argv_open);
	fill_issue11(f.plan);
	char *s = render(&f, f.o.cmd_argc, argv_open + f.o.cmd_index, 7, false);
	static const char *const want[] = {
		"\nUnix sockets: reachable inside writable mounts and the private /tmp, and what "
		"--allow-unix names; every other one is closed\n",
		/* the sockets together, each with its reason, no directory between */
		"  closed now (bound when porta started):\n"
		"    /run/app/app.sock  (host socket)\n"
		"    /run/docker.sock  (credential socket)\n",
		"  closed as directories (host programs bind there later): /run/user/0 "
		"/tmp/.X11-unix\n",
		"  kept (they grant nothing):\n    /run/systemd/journal/socket  (journald: ",
		"  reopened by --allow-unix: /run/app/allowed.sock\n",
		/* every parent on one line; other pins stay in the list */
		"  pinned, as parents of protected names: /root/proj/.claude /root/.config\n",
		"  /root/proj  (pinned against rename: writable mount root)\n",
		"  /root/proj/.claude/settings.json\n",
		"  symbolic link /root/proj/.envrc -> /etc/envrc: watched; replaced, it is moved "
		"aside and restored, and the run stopped\n",
		"  reopened, each by its own -v (nothing else beneath the closed path):\n"
		"    /root/.aws/config  (credential: inside /root/.aws)\n"
		"    /root/.netrc  (credential)\n",
		/* grouped by the deepest writable mount, relative to it */
		"    in /root: .bashrc .profile\n",
		"    in /root/proj: .cursor/mcp.json .gemini/settings.json\n",
		"    /tmp/w/.envrc\n",
	};
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(s, want[i]), "missing \"%s\" in:\n%s", want[i], s);

	/* every kept socket, nscd too: the network is open */
	size_t nk;
	const struct policy_kept_socket *k = policy_kept_sockets(&nk);
	for (size_t i = 0; i < nk; i++) {
		char line[512];
		snprintf(line, sizeof(line), "\n    %s  (%s)\n", k[i].path, k[i].why);
		cr_assert_not_null(strstr(s, line), "missing \"%s\" in:\n%s", line, s);
	}
	cr_assert_not_null(strstr(s, "/run/nscd/socket"));

	/* the socket rule's covers are not closed paths; a plain cover is */
	char *closed = section(s, "closed to reads (found now):\n");
	cr_assert_not_null(strstr(closed, "  /root/.ssh  (directory, credential)\n"), "%s", closed);
	static const char *const not_closed[] = { "/run/app/app.sock", "/run/docker.sock",
						  "/run/user/0", "/tmp/.X11-unix",
						  "/run/app/allowed.sock" };
	for (size_t i = 0; i < N_ELEMS(not_closed); i++)
		cr_assert_null(strstr(closed, not_closed[i]), "%s listed in:\n%s", not_closed[i],
			       closed);
	free(closed);

	/* a parent of a protected name is not listed as its own protected entry */
	char *prot = section(s, "protected (unwritable, unrenamable):\n");
	cr_assert_null(strstr(prot, "/root/.config  (pinned"), "%s", prot);
	cr_assert_null(strstr(prot, "  /root/proj/.claude\n"), "%s", prot);
	cr_assert_null(strstr(prot, "  /root/proj/.claude  ("), "%s", prot);
	free(prot);

	cr_assert_null(strstr(s, "in /tmp:"), "%s", s);
	/* only an --allow-unix rebind is a reopened socket */
	cr_assert_null(strstr(s, "--allow-unix: /tmp/w"), "%s", s);
	free(s);
	policy_plan_destroy(f.plan);
}

/* nscd answers host lookups: kept only when the network is open. */
Test(explain, kept_sockets_follow_the_network_mode)
{
	static char *const *const argvs[] = { argv_open, argv_no_net, argv_policy_net };
	static const bool nscd[] = { true, false, false };
	size_t nk;
	const struct policy_kept_socket *k = policy_kept_sockets(&nk);
	for (size_t a = 0; a < N_ELEMS(argvs); a++) {
		struct fixture f;
		build(&f, argvs[a]);
		fill_issue11(f.plan);
		char *s = render(&f, f.o.cmd_argc, argvs[a] + f.o.cmd_index, 7, false);
		cr_assert_eq(strstr(s, "/run/nscd/socket") != NULL, nscd[a], "argv %zu:\n%s", a, s);
		cr_assert_not_null(strstr(s, "/run/systemd/journal/socket"), "argv %zu", a);
		free(s);

		json_t *root = render_json(&f, f.o.cmd_argc, argvs[a] + f.o.cmd_index, 7);
		json_t *kept = key(root, "kept_sockets", JSON_ARRAY);
		size_t applies = 0;
		for (size_t i = 0; i < nk; i++) {
			json_t *e = find_by_path(kept, k[i].path);
			bool want = !k[i].open_net_only || nscd[a];
			applies += want;
			cr_assert_eq(e != NULL, want, "argv %zu: %s", a, k[i].path);
			if (e)
				cr_assert_str_eq(json_string_value(key(e, "why", JSON_STRING)), k[i].why);
		}
		cr_assert_eq(json_array_size(kept), applies, "argv %zu", a);
		cr_assert_eq(find_by_path(kept, "/run/nscd/socket") != NULL, nscd[a], "argv %zu", a);
		json_decref(root);
		policy_plan_destroy(f.plan);
	}
}

Test(explain, json_of_the_socket_rule_and_protected_parents)
{
	struct fixture f;
	build(&f, argv_open);
	fill_issue11(f.plan);
	json_t *root = render_json(&f, f.o.cmd_argc, argv_open + f.o.cmd_index, 7);

	json_t *socks = key(root, "closed_sockets", JSON_ARRAY);
	cr_assert_eq(json_array_size(socks), 2);
	cr_assert(array_has_string(socks, "/run/app/app.sock"));
	cr_assert(array_has_string(socks, "/run/docker.sock"));

	json_t *dirs = key(root, "closed_socket_dirs", JSON_ARRAY);
	cr_assert_eq(json_array_size(dirs), 2);
	cr_assert(array_has_string(dirs, "/run/user/0"));
	cr_assert(array_has_string(dirs, "/tmp/.X11-unix"));

	json_t *allowed = key(root, "allowed_sockets", JSON_ARRAY);
	cr_assert_eq(json_array_size(allowed), 1, "only the --allow-unix rebind");
	cr_assert(array_has_string(allowed, "/run/app/allowed.sock"));

	/* the socket rule's steps are not closed paths */
	json_t *closed = key(root, "closed_paths", JSON_ARRAY);
	cr_assert_eq(json_array_size(closed), 1);
	cr_assert_not_null(find_by_path(closed, "/root/.ssh"));

	json_t *pinned = key(root, "pinned", JSON_ARRAY);
	cr_assert_eq(json_array_size(pinned), 3);
	static const struct {
		const char *path, *reason;
	} pins[] = {
		{ "/root/proj", "writable mount root" },
		{ "/root/proj/.claude", "parent of a protected name" },
		{ "/root/.config", "parent of a protected name" },
	};
	for (size_t i = 0; i < N_ELEMS(pins); i++) {
		json_t *e = find_by_path(pinned, pins[i].path);
		cr_assert_not_null(e, "%s not pinned", pins[i].path);
		cr_assert_str_eq(json_string_value(key(e, "reason", JSON_STRING)), pins[i].reason);
	}

	json_t *links = key(root, "protected_links", JSON_ARRAY);
	cr_assert_eq(json_array_size(links), 1);
	json_t *l = find_by_path(links, "/root/proj/.envrc");
	cr_assert_not_null(l);
	cr_assert_str_eq(json_string_value(key(l, "target", JSON_STRING)), "/etc/envrc");

	json_t *reopened = key(root, "reopened", JSON_ARRAY);
	cr_assert_eq(json_array_size(reopened), 2);
	json_t *r = find_by_path(reopened, "/root/.aws/config");
	cr_assert_not_null(r);
	cr_assert_str_eq(json_string_value(key(r, "closed", JSON_STRING)), "/root/.aws");
	cr_assert_str_eq(json_string_value(key(r, "reason", JSON_STRING)), "credential");
	r = find_by_path(reopened, "/root/.netrc");
	cr_assert_not_null(r);
	cr_assert_str_eq(json_string_value(key(r, "closed", JSON_STRING)), "/root/.netrc");

	/* present and absent protected names, whole paths */
	json_t *prot = key(root, "protected", JSON_ARRAY);
	cr_assert_eq(json_array_size(prot), 6);
	cr_assert(json_is_true(json_object_get(find_by_path(prot,
							    "/root/proj/.claude/settings.json"),
					       "present")));
	cr_assert(json_is_false(json_object_get(find_by_path(prot, "/root/proj/.cursor/mcp.json"),
						"present")));
	json_decref(root);
	policy_plan_destroy(f.plan);

	/* and empty, not missing, with nothing of the kind */
	static char *const argv[] = { "porta", "explain", "--no-net", "--", "true", NULL };
	build(&f, argv);
	root = render_json(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7);
	static const char *const arrays[] = { "closed_socket_dirs", "allowed_sockets", "pinned",
					      "protected_links", "reopened" };
	for (size_t i = 0; i < N_ELEMS(arrays); i++)
		cr_assert_eq(json_array_size(key(root, arrays[i], JSON_ARRAY)), 0, "%s", arrays[i]);
	cr_assert_gt(json_array_size(key(root, "kept_sockets", JSON_ARRAY)), 0);
	json_decref(root);
	policy_plan_destroy(f.plan);
}

/* The new lines escape what they print too (docs/style.md §11): a socket's, a
 * directory's, a link's or a reopened path's name cannot forge a line. */
Test(explain, socket_rule_lines_escape_control_bytes)
{
	static char *const argv[] = { "porta", "explain", "--", "true", NULL };
	struct fixture f;
	build(&f, argv);
	struct policy_plan *p = f.plan;
	cr_assert_eq(policy_plan_add_rule(p, "/w\n1", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/a\nFORGED-2\x1b[2J",
					   POLICY_PATH_HOST_SOCKET), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_FILE, "/run/b\nFORGED-3",
					   POLICY_PATH_CREDENTIAL_SOCKET), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_COVER_DIR, "/run/c\nFORGED-4\x1b]0;t\x07",
					   POLICY_PATH_SOCKET_DIR), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_REBIND, "/run/d\nFORGED-5",
					   POLICY_PATH_ALLOW_UNIX), 0);
	cr_assert_eq(policy_plan_add_mount(p, POLICY_MOUNT_PIN, "/w\n1/e\nFORGED-6",
					   POLICY_PATH_PROTECTED_PARENT), 0);
	cr_assert_eq(policy_plan_add_link(p, "/w\n1/f\nFORGED-7", "/g\nFORGED-8\r", 1, 2), 0);
	cr_assert_eq(policy_plan_add_reopen(p, "/h\nFORGED-9/x", "/h\nFORGED-9",
					    POLICY_PATH_CREDENTIAL), 0);
	cr_assert_eq(policy_plan_add_absent(p, "/w\n1/i\nFORGED-10"), 0);
	cr_assert_eq(policy_plan_add_warning(p, "j\nFORGED-11"), 0);
	char *s = render(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7, false);
	cr_assert_null(strchr(s, '\x1b'), "an escape byte reached the output:\n%s", s);
	cr_assert_null(strchr(s, '\x07'));
	cr_assert_null(strchr(s, '\r'));
	cr_assert_null(strstr(s, "\nFORGED"), "a path forged a line:\n%s", s);
	cr_assert_null(strstr(s, "\n1"), "a mount's name forged a line:\n%s", s);
	static const char *const want[] = {
		"    /run/a\\x0aFORGED-2\\x1b[2J  (host socket)\n",
		"    /run/b\\x0aFORGED-3  (credential socket)\n",
		" /run/c\\x0aFORGED-4\\x1b]0;t\\x07\n",
		"  reopened by --allow-unix: /run/d\\x0aFORGED-5\n",
		"  pinned, as parents of protected names: /w\\x0a1/e\\x0aFORGED-6\n",
		"  symbolic link /w\\x0a1/f\\x0aFORGED-7 -> /g\\x0aFORGED-8\\x0d: watched",
		"    /h\\x0aFORGED-9/x  (credential: inside /h\\x0aFORGED-9)\n",
		"    in /w\\x0a1: i\\x0aFORGED-10\n",
		"  - j\\x0aFORGED-11\n",
	};
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(s, want[i]), "missing \"%s\" in:\n%s", want[i], s);
	free(s);
	policy_plan_destroy(p);
}

/* An absent name no writable -v mount holds (an absolute --protect, a
 * worktree's git directory) is printed whole, each one: print_absent() once
 * skipped the second and later as if they were a group already shown. */
Test(explain, text_lists_every_absent_name_outside_writable_mounts)
{
	struct fixture f;
	build(&f, argv_open);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/etc/porta-a"), 0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/opt/porta-b"), 0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/srv/repo/.git/hooks"), 0);
	char *s = render(&f, f.o.cmd_argc, argv_open + f.o.cmd_index, 7, false);
	static const char *const want[] = { "    /etc/porta-a\n", "    /opt/porta-b\n",
					    "    /srv/repo/.git/hooks\n" };
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(s, want[i]), "missing \"%s\" in:\n%s", want[i], s);
	free(s);
	policy_plan_destroy(f.plan);
}

/* With -v / the name starts right after the root's "/", not one byte
 * further (print_absent() once cut the first byte). */
Test(explain, text_names_absent_names_relative_to_a_writable_root_dir)
{
	static char *const argv[] = { "porta", "explain", "-v", "/", "--", "true", NULL };
	struct fixture f;
	build(&f, argv);
	cr_assert_eq(policy_plan_add_rule(f.plan, "/", POLICY_GRANT_READ | POLICY_GRANT_WRITE, true),
		     0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/.envrc"), 0);
	cr_assert_eq(policy_plan_add_absent(f.plan, "/root/.bashrc"), 0);
	char *s = render(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7, false);
	cr_assert_not_null(strstr(s, "    in /: .envrc root/.bashrc\n"), "%s", s);
	free(s);
	policy_plan_destroy(f.plan);
}

/* Where a crash's dump goes (escape corpus row 62), in words and in JSON,
 * for each kind of kernel.core_pattern. */
Test(explain, core_dumps_follow_the_hosts_pattern)
{
	static const struct {
		enum policy_core_target t;
		const char *line; /* NULL: no line */
		const char *json;
	} v[] = {
		{ POLICY_CORE_FILES, NULL, "files" },
		{ POLICY_CORE_PIPE, "core dumps: none (kernel.core_pattern pipes them", "none" },
		{ POLICY_CORE_SOCKET, "core dumps: the kernel's notes only, no memory", "notes" },
		{ POLICY_CORE_UNKNOWN, "core dumps: none, or the kernel's notes only", "notes" },
	};
	static char *const argv[] = { "porta", "explain", "true", NULL };

	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct fixture f;
		build(&f, argv);
		f.plan->core_target = v[i].t;
		char *s = render(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7, false);
		if (v[i].line)
			cr_expect_not_null(strstr(s, v[i].line), "%zu: missing \"%s\" in:\n%s", i,
					   v[i].line, s);
		else
			cr_expect_null(strstr(s, "core dumps"), "%zu:\n%s", i, s);
		free(s);
		json_t *root = render_json(&f, f.o.cmd_argc, argv + f.o.cmd_index, 7);
		cr_expect_str_eq(json_string_value(key(root, "core_dumps", JSON_STRING)), v[i].json,
				 "%zu", i);
		json_decref(root);
		policy_plan_destroy(f.plan);
	}
}
