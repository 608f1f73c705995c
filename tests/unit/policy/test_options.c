/* tests/unit/policy/test_options.c: the command line of docs/porta.1.
 *
 * Every option is accepted in `--opt VALUE` and `--opt=VALUE` form (and its
 * short form); every malformed or contradictory form is refused with one line
 * that names the option.  Vectors are arrays; one test per malformed class.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/options.h"
#include "policy/textparse.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ARGS 300

/* Parses "porta" + the NULL-terminated args.  The strings must outlive *o. */
static enum policy_parse_status parse_v(const char *const *args, struct policy_options *o,
					char err[POLICY_ERR_MAX], int *argc_out)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0;

	argv[argc++] = (char *)"porta";
	for (size_t i = 0; args[i]; i++) {
		cr_assert_lt(argc, MAX_ARGS);
		argv[argc++] = (char *)args[i];
	}
	argv[argc] = NULL;
	if (argc_out)
		*argc_out = argc;
	memset(err, 'X', POLICY_ERR_MAX); /* the parser must terminate what it writes */
	return policy_parse_args(argc, argv, o, err);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* One line, non-empty, NUL-terminated inside the buffer, without control bytes. */
static void assert_one_line(const char *err)
{
	size_t n = strnlen(err, POLICY_ERR_MAX);
	cr_assert_lt(n, POLICY_ERR_MAX, "error message not terminated");
	cr_assert_gt(n, 0, "error without a message");
	for (size_t i = 0; i < n; i++)
		cr_assert(!((unsigned char)err[i] < 0x20 || err[i] == 0x7f),
			  "control byte 0x%02x in message \"%s\"", (unsigned char)err[i], err);
}

static void assert_refused(const char *const *args, const char *names)
{
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	char line[1024] = "";

	for (size_t i = 0; args[i]; i++) {
		strncat(line, args[i], sizeof(line) - strlen(line) - 2);
		strncat(line, " ", sizeof(line) - strlen(line) - 1);
	}
	cr_assert_eq(parse_v(args, &o, err, NULL), POLICY_PARSE_ERROR, "accepted: porta %s", line);
	assert_one_line(err);
	if (names)
		cr_assert(strstr(err, names), "porta %s: message \"%s\" does not name \"%s\"", line,
			  err, names);
}

static void assert_accepted(const char *const *args, struct policy_options *o)
{
	char err[POLICY_ERR_MAX];
	char line[1024] = "";

	for (size_t i = 0; args[i]; i++) {
		strncat(line, args[i], sizeof(line) - strlen(line) - 2);
		strncat(line, " ", sizeof(line) - strlen(line) - 1);
	}
	cr_assert_eq(parse_v(args, o, err, NULL), POLICY_PARSE_OK, "refused: porta %s: %s", line,
		     err);
}

/* ---- every option, every form ---------------------------------------- */

typedef bool (*opt_check)(const struct policy_options *o, const char *value);

static bool chk_mount_rw(const struct policy_options *o, const char *v)
{
	return o->n_mounts == 1 && !o->mounts[0].read_only &&
	       o->mounts[0].path_len == strlen(v) && o->mounts[0].path == v;
}
static bool chk_mount_ro(const struct policy_options *o, const char *v)
{
	return o->n_mounts == 1 && o->mounts[0].read_only &&
	       o->mounts[0].path_len == strlen(v) - 3 && strncmp(o->mounts[0].path, "/srv/data", 9) == 0;
}
static bool chk_strict(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->read_mode == POLICY_READ_STRICT && o->read_mode_given;
}
static bool chk_open(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->read_mode == POLICY_READ_OPEN && o->read_mode_given;
}
static bool one_item(const struct policy_strlist *l, const char *v)
{
	return l->n == 1 && l->v[0] == v;
}
static bool chk_deny_read(const struct policy_options *o, const char *v) { return one_item(&o->deny_read, v); }
static bool chk_protect(const struct policy_options *o, const char *v) { return one_item(&o->protect, v); }
static bool chk_allow_unix(const struct policy_options *o, const char *v) { return one_item(&o->allow_unix, v); }
static bool chk_deny_unix(const struct policy_options *o, const char *v) { return one_item(&o->deny_unix, v); }
static bool chk_preset_none(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->preset == POLICY_PRESET_NONE && o->preset_given;
}
static bool chk_preset_default(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->preset == POLICY_PRESET_DEFAULT && o->preset_given;
}
static bool chk_allow_net(const struct policy_options *o, const char *v)
{
	return one_item(&o->allow_net, v) && o->net_mode == POLICY_NET_POLICY;
}
static bool chk_deny_net(const struct policy_options *o, const char *v)
{
	return one_item(&o->deny_net, v) && o->net_mode == POLICY_NET_POLICY;
}
static bool chk_proxy_allow(const struct policy_options *o, const char *v)
{
	return one_item(&o->proxy_allow, v) && o->net_mode == POLICY_NET_POLICY;
}
static bool chk_proxy_deny(const struct policy_options *o, const char *v)
{
	return one_item(&o->proxy_deny, v) && o->net_mode == POLICY_NET_POLICY;
}
static bool chk_audit(const struct policy_options *o, const char *v) { return o->audit_path == v; }
static bool chk_dns(const struct policy_options *o, const char *v)
{
	return o->dns_upstream == v && o->net_mode == POLICY_NET_POLICY;
}
static bool chk_env(const struct policy_options *o, const char *v) { return one_item(&o->env_set, v); }
static bool chk_env_pass(const struct policy_options *o, const char *v) { return one_item(&o->env_pass, v); }
static bool chk_env_file(const struct policy_options *o, const char *v) { return one_item(&o->env_files, v); }
static bool chk_timeout(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->timeout_ms.set && o->timeout_ms.value == 2500;
}
static bool chk_cpu(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->max_cpu_s.set && o->max_cpu_s.value == 30;
}
static bool chk_procs(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->max_procs.set && o->max_procs.value == 64;
}
static bool chk_fsize(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->max_file_size_mib.set && o->max_file_size_mib.value == 100;
}
static bool chk_mem(const struct policy_options *o, const char *v)
{
	(void)v;
	return o->max_memory_mib.set && o->max_memory_mib.value == 512;
}

struct value_opt {
	const char *cmd;      /* run or explain */
	const char *name;     /* long name without "--" */
	char short_name;      /* 0 when none */
	const char *value;
	const char *extra;    /* an extra option the value needs, or NULL */
	opt_check check;
};

static const struct value_opt value_opts[] = {
	{ "run", "mount", 'v', "/srv/data", NULL, chk_mount_rw },
	{ "run", "mount", 'v', "/srv/data:ro", NULL, chk_mount_ro },
	{ "run", "read-policy", 0, "strict", NULL, chk_strict },
	{ "run", "read-policy", 0, "open", NULL, chk_open },
	{ "run", "deny-read", 0, "/home/u/secrets", NULL, chk_deny_read },
	{ "run", "protect", 0, ".envrc.local", NULL, chk_protect },
	{ "run", "protect", 0, "/etc/hosts", NULL, chk_protect },
	{ "run", "allow-unix", 0, "/run/user/1000/bus", NULL, chk_allow_unix },
	{ "run", "deny-unix", 0, "/foo[0-9]+\\.sock$", NULL, chk_deny_unix },
	{ "run", "preset", 0, "none", NULL, chk_preset_none },
	{ "run", "preset", 0, "default", NULL, chk_preset_default },
	{ "run", "allow-net", 0, "example.com:443,*.example.org", NULL, chk_allow_net },
	{ "run", "deny-net", 0, "evil.example.com", NULL, chk_deny_net },
	{ "run", "proxy-allow", 0, "pypi.org:80-443", NULL, chk_proxy_allow },
	{ "run", "proxy-deny", 0, "[2001:db8::1]:22", NULL, chk_proxy_deny },
	{ "run", "audit", 0, "/var/log/porta.jsonl", NULL, chk_audit },
	{ "run", "proxy-audit", 0, "/var/log/porta.jsonl", NULL, chk_audit },
	{ "run", "dns-upstream", 0, "10.0.0.53:5353", "--allow-net=example.com", chk_dns },
	{ "run", "dns-upstream", 0, "10.0.0.53", "--deny-net=example.com", chk_dns },
	{ "run", "env", 'e', "FOO=bar=baz", NULL, chk_env },
	{ "run", "env", 'e', "_EMPTY=", NULL, chk_env },
	{ "run", "env-pass", 0, "AWS_REGION,GOPATH", NULL, chk_env_pass },
	{ "run", "env-file", 0, "/home/u/.env", NULL, chk_env_file },
	{ "run", "timeout", 0, "2.5", NULL, chk_timeout },
	{ "run", "max-cpu", 0, "30", NULL, chk_cpu },
	{ "run", "max-procs", 0, "64", NULL, chk_procs },
	{ "run", "max-file-size", 0, "100", NULL, chk_fsize },
	{ "run", "max-memory-mb", 0, "512", NULL, chk_mem },
	{ "explain", "mount", 'v', "/srv/data", NULL, chk_mount_rw },
	{ "explain", "allow-net", 0, "example.com:443,*.example.org", NULL, chk_allow_net },
	{ "explain", "env", 'e', "FOO=bar=baz", NULL, chk_env },
	{ "explain", "timeout", 0, "2.5", NULL, chk_timeout },
};

static void run_value_form(const struct value_opt *t, int form)
{
	/* form 0: --opt VALUE; 1: --opt=VALUE; 2: -o VALUE; 3: -oVALUE */
	char joined[256], shortopt[8];
	const char *args[12];
	size_t n = 0;
	struct policy_options o;
	char err[POLICY_ERR_MAX];

	/* The value must be the very string the struct points at, so the
	 * joined forms are checked by the parsed value's content. */
	args[n++] = t->cmd;
	if (t->extra)
		args[n++] = t->extra;
	switch (form) {
	case 0:
		snprintf(joined, sizeof(joined), "--%s", t->name);
		args[n++] = joined;
		args[n++] = t->value;
		break;
	case 1:
		snprintf(joined, sizeof(joined), "--%s=%s", t->name, t->value);
		args[n++] = joined;
		break;
	case 2:
		snprintf(shortopt, sizeof(shortopt), "-%c", t->short_name);
		args[n++] = shortopt;
		args[n++] = t->value;
		break;
	default:
		snprintf(joined, sizeof(joined), "-%c%s", t->short_name, t->value);
		args[n++] = joined;
		break;
	}
	args[n++] = "make";
	args[n++] = "-j2";
	args[n] = NULL;
	cr_assert_eq(parse_v(args, &o, err, NULL), POLICY_PARSE_OK, "%s form %d of --%s %s: %s",
		     t->cmd, form, t->name, t->value, err);
	cr_assert_eq(o.command, strcmp(t->cmd, "run") == 0 ? POLICY_CMD_RUN : POLICY_CMD_EXPLAIN);
	cr_assert_eq(o.cmd_argc, 2, "form %d of --%s", form, t->name);
	cr_assert_str_eq(args[o.cmd_index - 1], "make"); /* argv[i] is args[i - 1] */
	if (form == 0 || form == 2) {
		cr_assert(t->check(&o, t->value), "--%s %s (form %d) parsed wrong", t->name,
			  t->value, form);
	} else {
		/* The value points into the joined word: compare its text. */
		const char *in_word = joined + strlen(joined) - strlen(t->value);
		cr_assert(t->check(&o, in_word), "--%s=%s (form %d) parsed wrong", t->name,
			  t->value, form);
	}
}

Test(options, every_value_option_both_forms)
{
	for (size_t i = 0; i < N_ELEMS(value_opts); i++) {
		run_value_form(&value_opts[i], 0);
		run_value_form(&value_opts[i], 1);
		if (value_opts[i].short_name) {
			run_value_form(&value_opts[i], 2);
			run_value_form(&value_opts[i], 3);
		}
	}
}

struct flag_opt {
	const char *cmd;
	const char *word;
	size_t offset; /* offsetof the bool in struct policy_options */
};

static const struct flag_opt flag_opts[] = {
	{ "run", "--share-tmp", offsetof(struct policy_options, share_tmp) },
	{ "run", "--no-net", offsetof(struct policy_options, no_net) },
	{ "run", "--allow-root", offsetof(struct policy_options, allow_root) },
	{ "run", "--why", offsetof(struct policy_options, why) },
	{ "run", "--quiet", offsetof(struct policy_options, quiet) },
	{ "run", "-q", offsetof(struct policy_options, quiet) },
	{ "explain", "--json", offsetof(struct policy_options, json) },
	{ "explain", "--no-net", offsetof(struct policy_options, no_net) },
	{ "explain", "-q", offsetof(struct policy_options, quiet) },
};

Test(options, every_flag)
{
	for (size_t i = 0; i < N_ELEMS(flag_opts); i++) {
		struct policy_options o;
		assert_accepted(ARGS(flag_opts[i].cmd, flag_opts[i].word, "true"), &o);
		cr_assert(*(const bool *)((const char *)&o + flag_opts[i].offset), "%s not set",
			  flag_opts[i].word);
		cr_assert_eq(o.cmd_argc, 1);
	}
	struct policy_options o;
	assert_accepted(ARGS("run", "--no-net", "true"), &o);
	cr_assert_eq(o.net_mode, POLICY_NET_NONE);
	assert_accepted(ARGS("run", "true"), &o);
	cr_assert_eq(o.net_mode, POLICY_NET_OPEN);
	cr_assert_eq(o.read_mode, POLICY_READ_HOME);
	cr_assert_eq(o.preset, POLICY_PRESET_DEFAULT);
	cr_assert(!o.read_mode_given && !o.preset_given && !o.timeout_ms.set);
}

Test(options, check_help_version)
{
	struct policy_options o;

	assert_accepted(ARGS("check"), &o);
	cr_assert_eq(o.command, POLICY_CMD_CHECK);
	cr_assert(!o.json);
	assert_accepted(ARGS("check", "--json"), &o);
	cr_assert(o.json);
	assert_accepted(ARGS("check", "--"), &o);
	static const char *const helps[] = { "help", "--help", "-h" };
	for (size_t i = 0; i < N_ELEMS(helps); i++) {
		assert_accepted(ARGS(helps[i]), &o);
		cr_assert_eq(o.command, POLICY_CMD_HELP);
	}
	assert_accepted(ARGS("--version"), &o);
	cr_assert_eq(o.command, POLICY_CMD_VERSION);
}

Test(options, repeatable_options_accumulate)
{
	struct policy_options o;

	assert_accepted(ARGS("run", "-v", "/a", "--mount=/b:ro", "-v/c:rw", "--allow-net", "a.com",
			     "--allow-net=b.com:80,c.com", "-e", "A=1", "--env=B=2", "-eC=3",
			     "--env-pass", "X", "--env-pass=Y,Z", "--deny-read", "/x", "--deny-read",
			     "/y", "--read-policy", "strict", "--read-policy=strict", "--preset",
			     "none", "--preset=none", "cmd"),
			&o);
	cr_assert_eq(o.n_mounts, 3);
	cr_assert(!o.mounts[0].read_only && o.mounts[1].read_only && !o.mounts[2].read_only);
	cr_assert_eq(o.mounts[2].path_len, 2); /* ":rw" is stripped too */
	cr_assert_eq(o.allow_net.n, 2);
	cr_assert_str_eq(o.allow_net.v[1], "b.com:80,c.com"); /* stored whole */
	cr_assert_eq(o.env_set.n, 3);
	cr_assert_str_eq(o.env_set.v[2], "C=3");
	cr_assert_eq(o.env_pass.n, 2);
	cr_assert_eq(o.deny_read.n, 2);
	cr_assert_eq(o.read_mode, POLICY_READ_STRICT);
	cr_assert_eq(o.preset, POLICY_PRESET_NONE);
}

/* ---- where options stop ---------------------------------------------- */

Test(options, options_stop_at_first_word)
{
	struct policy_options o;
	int argc;
	char err[POLICY_ERR_MAX];

	const char *const *a = ARGS("run", "-q", "env", "--no-net", "-v", "/x");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(o.quiet && !o.no_net && o.n_mounts == 0);
	cr_assert_eq(o.cmd_index, 3);
	cr_assert_eq(o.cmd_argc, 4);
	cr_assert_eq(o.cmd_index + o.cmd_argc, argc);

	a = ARGS("run", "--", "--no-net", "x");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(!o.no_net);
	cr_assert_eq(o.cmd_index, 3);
	cr_assert_eq(o.cmd_argc, 2);

	/* only the first "--" ends the options */
	a = ARGS("run", "--no-net", "--", "--", "x");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(o.no_net);
	cr_assert_eq(o.cmd_index, 4);
	cr_assert_eq(o.cmd_argc, 2);

	/* "-" alone is a word (a command named "-"), not an option */
	a = ARGS("run", "-", "--no-net");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(!o.no_net);
	cr_assert_eq(o.cmd_index, 2);
	cr_assert_eq(o.cmd_argc, 2);

	/* a value that looks like an option is the option's value */
	a = ARGS("run", "--deny-read", "--no-net", "cmd");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(!o.no_net);
	cr_assert_str_eq(o.deny_read.v[0], "--no-net");

	/* explain takes the same words */
	a = ARGS("explain", "--json", "--", "ls", "-l");
	cr_assert_eq(parse_v(a, &o, err, &argc), POLICY_PARSE_OK, "%s", err);
	cr_assert(o.json);
	cr_assert_eq(o.cmd_argc, 2);
}

/* ---- malformed input, one test per class ------------------------------ */

Test(options, unknown_command)
{
	static const char *const cmds[] = { "runn", "Run", "", "-v", "--no-net", "exec", "--json",
					    "checks", "-" };
	for (size_t i = 0; i < N_ELEMS(cmds); i++)
		assert_refused(ARGS(cmds[i], "true"), NULL);
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	cr_assert_eq(parse_v((const char *const[]){ NULL }, &o, err, NULL), POLICY_PARSE_ERROR);
	assert_one_line(err);
}

Test(options, unknown_option)
{
	static const char *const words[] = {
		"--nonet", "--no-nett", "--mount-ro", "--moun", "--Mount", "-x", "-V", "-Q",
		"--=x", "---no-net", "--no-net-", "--env_pass=A", "--allow_net=a", "-",
	};
	for (size_t i = 0; i < N_ELEMS(words); i++) {
		if (strcmp(words[i], "-") == 0)
			continue; /* a word, see options_stop_at_first_word */
		assert_refused(ARGS("run", words[i], "true"), words[i]);
		assert_refused(ARGS("explain", words[i], "true"), words[i]);
	}
}

static const char *const value_names[] = {
	"mount", "read-policy", "deny-read", "protect", "allow-unix", "deny-unix", "preset",
	"allow-net", "deny-net", "proxy-allow", "proxy-deny", "audit", "proxy-audit",
	"dns-upstream", "env", "env-pass", "env-file", "timeout", "max-cpu", "max-procs",
	"max-file-size", "max-memory-mb",
};

/* The long name a short option's messages use. */
Test(options, missing_value_at_end)
{
	char w[64];
	for (size_t i = 0; i < N_ELEMS(value_names); i++) {
		snprintf(w, sizeof(w), "--%s", value_names[i]);
		assert_refused(ARGS("run", w), w);
		assert_refused(ARGS("explain", "-q", w), w);
	}
	assert_refused(ARGS("run", "-v"), "--mount");
	assert_refused(ARGS("run", "-e"), "--env");
}

Test(options, empty_value)
{
	char w[64], w2[64];
	for (size_t i = 0; i < N_ELEMS(value_names); i++) {
		snprintf(w, sizeof(w), "--%s=", value_names[i]);
		snprintf(w2, sizeof(w2), "--%s", value_names[i]);
		assert_refused(ARGS("run", w, "true"), w2);
		assert_refused(ARGS("run", w2, "", "true"), w2);
	}
	assert_refused(ARGS("run", "-v", "", "true"), "--mount");
	assert_refused(ARGS("run", "-e", "", "true"), "--env");
	/* a mount whose path is empty once ":ro" is taken off */
	assert_refused(ARGS("run", "-v", ":ro", "true"), "--mount");
	assert_refused(ARGS("run", "--mount=:rw", "true"), "--mount");
}

Test(options, flag_given_a_value)
{
	static const char *const words[] = {
		"--share-tmp=1", "--no-net=yes", "--allow-root=", "--why=1", "--quiet=1", "-qq",
		"-q1",
	};
	static const char *const names[] = {
		"--share-tmp", "--no-net", "--allow-root", "--why", "--quiet", "-q", "-q",
	};
	for (size_t i = 0; i < N_ELEMS(words); i++)
		assert_refused(ARGS("run", words[i], "true"), names[i]);
	assert_refused(ARGS("explain", "--json=1", "true"), "--json");
	assert_refused(ARGS("check", "--json=yes"), "--json");
}

static const char *const int_options[] = { "max-cpu", "max-procs", "max-file-size",
					   "max-memory-mb", "timeout" };

Test(options, bad_numbers)
{
	static const char *const bad[] = {
		"0", "-1", "1e3", "99999999999999999999", "999999999999999999999999", "+5", " 5",
		"5 ", "5s", "0x10", "five", "1,000", "-0", "\t5", "5\n", "٣",
	};
	char w[64], wv[128];
	for (size_t i = 0; i < N_ELEMS(int_options); i++) {
		snprintf(w, sizeof(w), "--%s", int_options[i]);
		for (size_t k = 0; k < N_ELEMS(bad); k++) {
			assert_refused(ARGS("run", w, bad[k], "true"), w);
			snprintf(wv, sizeof(wv), "--%s=%s", int_options[i], bad[k]);
			assert_refused(ARGS("run", wv, "true"), w);
		}
	}
	/* whole numbers only for the ceilings */
	for (size_t i = 0; i < 4; i++) {
		snprintf(w, sizeof(w), "--%s", int_options[i]);
		assert_refused(ARGS("run", w, "1.5", "true"), w);
	}
}

Test(options, bad_timeout)
{
	static const char *const bad[] = { "1.", ".5", "1.2345", "1..2", "1.-5", "0.0", "0.000",
					   "1.5.", "31536001", "1.+5", "1. 5", "." };
	for (size_t k = 0; k < N_ELEMS(bad); k++)
		assert_refused(ARGS("run", "--timeout", bad[k], "true"), "--timeout");
}

Test(options, numbers_at_the_bounds)
{
	struct policy_options o;
	static const struct {
		const char *name, *value;
		uint64_t expect;
		bool ok;
	} v[] = {
		{ "--timeout", "0.001", 1, true },
		{ "--timeout", "0.01", 10, true },
		{ "--timeout", "30", 30000, true },
		{ "--timeout", "007", 7000, true },
		{ "--timeout", "31536000", 31536000000ULL, true },
		{ "--max-cpu", "1", 1, true },
		{ "--max-cpu", "31536000", 31536000, true },
		{ "--max-cpu", "31536001", 0, false },
		{ "--max-procs", "4194304", 4194304, true },
		{ "--max-procs", "4194305", 0, false },
		{ "--max-file-size", "1099511627776", 1ULL << 40, true },
		{ "--max-file-size", "1099511627777", 0, false },
		{ "--max-memory-mb", "1099511627776", 1ULL << 40, true },
		{ "--max-memory-mb", "18446744073709551615", 0, false },
		{ "--max-memory-mb", "18446744073709551616", 0, false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		if (!v[i].ok) {
			assert_refused(ARGS("run", v[i].name, v[i].value, "true"), v[i].name);
			continue;
		}
		assert_accepted(ARGS("run", v[i].name, v[i].value, "true"), &o);
		uint64_t got = strcmp(v[i].name, "--timeout") == 0	? o.timeout_ms.value
			       : strcmp(v[i].name, "--max-cpu") == 0	? o.max_cpu_s.value
			       : strcmp(v[i].name, "--max-procs") == 0	? o.max_procs.value
			       : strcmp(v[i].name, "--max-file-size") == 0 ? o.max_file_size_mib.value
									   : o.max_memory_mib.value;
		cr_assert_eq(got, v[i].expect, "%s %s", v[i].name, v[i].value);
	}
}

Test(options, single_valued_given_twice)
{
	const char *const *const twice[] = {
		ARGS("run", "--timeout", "1", "--timeout", "1", "true"),
		ARGS("run", "--max-cpu", "1", "--max-cpu=2", "true"),
		ARGS("run", "--max-procs", "1", "--max-procs", "1", "true"),
		ARGS("run", "--max-file-size", "1", "--max-file-size", "1", "true"),
		ARGS("run", "--max-memory-mb", "1", "--max-memory-mb", "1", "true"),
		ARGS("run", "--audit", "/a", "--proxy-audit", "/b", "true"),
		ARGS("run", "--allow-net", "x.com", "--dns-upstream", "1.1.1.1", "--dns-upstream",
		     "1.1.1.1", "true"),
	};
	static const char *const names[] = { "--timeout", "--max-cpu", "--max-procs",
					     "--max-file-size", "--max-memory-mb", "--audit",
					     "--dns-upstream" };
	for (size_t i = 0; i < N_ELEMS(twice); i++)
		assert_refused(twice[i], names[i]);
}

Test(options, bad_read_policy_and_preset)
{
	static const char *const bad[] = { "Open", "STRICT", "strict ", "opens", "none", "1",
					   "default" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_refused(ARGS("run", "--read-policy", bad[i], "true"), "--read-policy");
	static const char *const badp[] = { "Default", "off", "strict", "none ", "no", "open" };
	for (size_t i = 0; i < N_ELEMS(badp); i++)
		assert_refused(ARGS("run", "--preset", badp[i], "true"), "--preset");
}

Test(options, read_policy_and_preset_contradicting)
{
	assert_refused(ARGS("run", "--read-policy", "open", "--read-policy=strict", "true"),
		       "--read-policy");
	assert_refused(ARGS("run", "--read-policy", "strict", "--read-policy", "open", "true"),
		       "--read-policy");
	assert_refused(ARGS("run", "--preset=none", "--preset", "default", "true"), "--preset");
	assert_refused(ARGS("run", "--preset=default", "--preset", "none", "true"), "--preset");
}

Test(options, no_net_with_policy_option)
{
	static const char *const pol[] = { "--allow-net=a.com", "--deny-net=a.com",
					   "--proxy-allow=a.com", "--proxy-deny=a.com" };
	for (size_t i = 0; i < N_ELEMS(pol); i++) {
		assert_refused(ARGS("run", "--no-net", pol[i], "true"), "--no-net");
		assert_refused(ARGS("run", pol[i], "--no-net", "true"), "--no-net");
		assert_refused(ARGS("explain", pol[i], "--no-net", "true"), "--no-net");
	}
	assert_refused(ARGS("run", "--no-net", "--allow-net", "a.com", "--dns-upstream", "1.1.1.1",
			    "true"),
		       "--no-net");
	assert_refused(ARGS("run", "--no-net", "--dns-upstream", "1.1.1.1", "true"),
		       "--dns-upstream");
}

Test(options, dns_upstream_without_rule)
{
	assert_refused(ARGS("run", "--dns-upstream", "1.1.1.1", "true"), "--dns-upstream");
	assert_refused(ARGS("explain", "--dns-upstream=1.1.1.1:53", "--share-tmp", "true"),
		       "--dns-upstream");
}

Test(options, env_without_equals_or_bad_key)
{
	static const char *const bad[] = { "FOO", "=bar", "1FOO=x", "FOO-BAR=x", "FOO.BAR=x",
					   "FOO BAR=x", " FOO=x", "FÖÖ=x", "FOO\n=x", "$X=1",
					   "A-=" };
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		assert_refused(ARGS("run", "-e", bad[i], "true"), "--env");
		assert_refused(ARGS("run", "--env", bad[i], "true"), "--env");
	}
}

Test(options, env_pass_empty_or_bad_item)
{
	static const char *const bad[] = { ",", "A,", ",A", "A,,B", "A, B", "A B", "1A", "A=1",
					   "A,-", ",,", "A,B," };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_refused(ARGS("run", "--env-pass", bad[i], "true"), "--env-pass");
}

Test(options, net_rule_empty_item)
{
	static const char *const opts[] = { "--allow-net", "--deny-net", "--proxy-allow",
					    "--proxy-deny" };
	static const char *const bad[] = { ",", "a.com,", ",a.com", "a.com,,b.com" };
	for (size_t i = 0; i < N_ELEMS(opts); i++)
		for (size_t k = 0; k < N_ELEMS(bad); k++)
			assert_refused(ARGS("run", opts[i], bad[k], "true"), opts[i]);
}

Test(options, protect_dotdot)
{
	static const char *const bad[] = { "..", "../x", "a/..", "a/../b", "/etc/../root",
					   "./..", "a//..//b", "../" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_refused(ARGS("run", "--protect", bad[i], "true"), "--protect");
	static const char *const good[] = { "..a", "a..", "...", ".x/..y", "a/.../b", ".git/x" };
	struct policy_options o;
	for (size_t i = 0; i < N_ELEMS(good); i++)
		assert_accepted(ARGS("run", "--protect", good[i], "true"), &o);
}

Test(options, run_without_command)
{
	assert_refused(ARGS("run"), "COMMAND");
	assert_refused(ARGS("run", "--no-net"), "COMMAND");
	assert_refused(ARGS("run", "--"), "COMMAND");
	assert_refused(ARGS("run", "-v", "/x", "--"), "COMMAND");
}

Test(options, json_for_run)
{
	assert_refused(ARGS("run", "--json", "true"), "--json");
	assert_refused(ARGS("run", "-q", "--json", "--", "true"), "--json");
}

Test(options, check_takes_only_json)
{
	for (size_t i = 0; i < N_ELEMS(value_names); i++) {
		char w[64];
		snprintf(w, sizeof(w), "--%s", value_names[i]);
		assert_refused(ARGS("check", w, "x"), w);
	}
	static const char *const flags[] = { "--share-tmp", "--no-net", "--allow-root", "--why",
					     "--quiet" };
	for (size_t i = 0; i < N_ELEMS(flags); i++)
		assert_refused(ARGS("check", flags[i]), flags[i]);
	assert_refused(ARGS("check", "-q"), "quiet");
	assert_refused(ARGS("check", "-v", "/x"), "mount");
	assert_refused(ARGS("check", "ls"), "check");
	assert_refused(ARGS("check", "--json", "ls"), "check");
	assert_refused(ARGS("check", "--", "ls"), "check");
}

Test(options, help_with_extra_args)
{
	assert_refused(ARGS("help", "run"), "help");
	assert_refused(ARGS("--help", "x"), "--help");
	assert_refused(ARGS("-h", "-h"), "-h");
	assert_refused(ARGS("--version", "--json"), "--version");
}

Test(options, too_many_items)
{
	static const char *args[MAX_ARGS];
	size_t n = 0;
	args[n++] = "run";
	for (int i = 0; i <= POLICY_MAX_LIST; i++)
		args[n++] = "-v/x";
	args[n++] = "true";
	args[n] = NULL;
	assert_refused(args, "--mount");
	n = 0;
	args[n++] = "run";
	for (int i = 0; i < POLICY_MAX_LIST; i++)
		args[n++] = "-eA=1";
	args[n++] = "true";
	args[n] = NULL;
	struct policy_options o;
	assert_accepted(args, &o);
	cr_assert_eq(o.env_set.n, POLICY_MAX_LIST);
	args[n - 1] = "-eA=1";
	args[n++] = "true";
	args[n] = NULL;
	assert_refused(args, "--env");
}

Test(options, messages_escape_control_bytes)
{
	/* A value with a newline or an escape sequence must not make the
	 * one-line message two lines, or drive the terminal. */
	assert_refused(ARGS("run", "--read-policy", "open\nporta: all good", "true"),
		       "--read-policy");
	assert_refused(ARGS("run", "--timeout", "\x1b[2J5", "true"), "--timeout");
	assert_refused(ARGS("run", "--no\x1b[0m-net", "true"), NULL);
	assert_refused(ARGS("bogus\r\n", "true"), NULL);
}

/* ---- truncation sweeps -------------------------------------------------
 * Contract for prefixes of a good command line: every argc-prefix parses to
 * OK or to ERROR with a one-line message, never anything else; a prefix that
 * stops after an option needing a value names that option; a prefix that
 * stops before COMMAND is "missing COMMAND"; once COMMAND is in, it is OK
 * with cmd_argc counting the words taken. */
Test(options, truncation_sweep_argc)
{
	static const char *const good[] = {
		"run", "-v", "/srv:ro", "--mount=/work", "--read-policy", "strict", "--deny-read",
		"/x", "--protect", ".env", "--allow-unix", "/run/a.sock", "--deny-unix", "x$",
		"--preset", "none", "--share-tmp", "--allow-net", "a.com,b.com:80", "--deny-net",
		"c.com", "--proxy-allow", "d.com", "--proxy-deny", "e.com", "--audit", "/log",
		"--dns-upstream", "9.9.9.9", "-e", "A=1", "--env-pass", "B,C", "--env-file", "/f",
		"--timeout", "1.5", "--max-cpu", "2", "--max-procs", "3", "--max-file-size", "4",
		"--max-memory-mb", "5", "--allow-root", "--why", "-q", "--", "make", "all",
	};
	const size_t n = N_ELEMS(good);
	size_t dashdash = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(good[i], "--") == 0)
			dashdash = i;

	for (size_t k = 1; k <= n; k++) {
		const char *args[N_ELEMS(good) + 1];
		struct policy_options o;
		char err[POLICY_ERR_MAX];
		memcpy(args, good, k * sizeof(*args));
		args[k] = NULL;
		enum policy_parse_status st = parse_v(args, &o, err, NULL);
		if (k > dashdash + 1) {
			cr_assert_eq(st, POLICY_PARSE_OK, "prefix %zu: %s", k, err);
			cr_assert_eq(o.cmd_argc, (int)(k - dashdash - 1));
			continue;
		}
		cr_assert_eq(st, POLICY_PARSE_ERROR, "prefix %zu accepted", k);
		assert_one_line(err);
		const char *last = good[k - 1];
		bool needs_value = last[0] == '-' && strchr(last, '=') == NULL &&
				   (strcmp(last, "-v") == 0 || strcmp(last, "-e") == 0 ||
				    (last[1] == '-' && k < n && good[k][0] != '-'));
		/* flags followed by a value-looking word would be misjudged:
		 * name the flags explicitly */
		static const char *const flags[] = { "--share-tmp", "--allow-root", "--why", "-q",
						     "--" };
		for (size_t f = 0; f < N_ELEMS(flags); f++)
			if (strcmp(last, flags[f]) == 0)
				needs_value = false;
		if (needs_value)
			cr_assert(strstr(err, "needs a value"), "prefix %zu (%s): %s", k, last, err);
		else
			cr_assert(strstr(err, "COMMAND") || strstr(err, "--dns-upstream"),
				  "prefix %zu (%s): %s", k, last, err);
	}
}

/* Every prefix of every word of a good command line: OK or a one-line error,
 * and never a read past the word (the words here are exact-size heap copies,
 * so ASan catches one). */
Test(options, truncation_sweep_words)
{
	static const char *const good[] = {
		"run", "--mount=/srv:ro", "-v/work", "--read-policy=strict", "--timeout=12.25",
		"--env=KEY=VALUE", "-eK=V", "--env-pass=A,B", "--allow-net=a.com:443,b.org",
		"--max-procs=100", "--protect=../x", "--preset=default", "--no-net", "cmd",
	};
	const size_t n = N_ELEMS(good);
	for (size_t w = 0; w < n; w++) {
		size_t wl = strlen(good[w]);
		for (size_t k = 0; k <= wl; k++) {
			char *words[N_ELEMS(good) + 2];
			words[0] = (char *)"porta";
			for (size_t i = 0; i < n; i++) {
				size_t l = i == w ? k : strlen(good[i]);
				words[i + 1] = malloc(l + 1);
				memcpy(words[i + 1], good[i], l);
				words[i + 1][l] = '\0';
			}
			words[n + 1] = NULL;
			struct policy_options o;
			char err[POLICY_ERR_MAX];
			enum policy_parse_status st = policy_parse_args((int)n + 1, words, &o, err);
			cr_assert(st == POLICY_PARSE_OK || st == POLICY_PARSE_ERROR);
			if (st == POLICY_PARSE_ERROR)
				assert_one_line(err);
			else
				cr_assert_eq(o.cmd_index + o.cmd_argc, (int)n + 1);
			for (size_t i = 1; i <= n; i++)
				free(words[i]);
		}
	}
}

/* ---- the helpers ------------------------------------------------------ */

Test(options, parse_u64_vectors)
{
	static const struct {
		const char *s;
		uint64_t max;
		bool ok;
		uint64_t v;
	} v[] = {
		{ "0", 10, true, 0 },
		{ "10", 10, true, 10 },
		{ "11", 10, false, 0 },
		{ "9", 5, false, 0 }, /* a digit above a small bound */
		{ "5", 5, true, 5 },
		{ "6", 5, false, 0 },
		{ "0", 0, true, 0 },
		{ "1", 0, false, 0 },
		{ "000000000000000000001", UINT64_MAX, false, 0 }, /* 21 digits */
		{ "00000000000000000001", UINT64_MAX, true, 1 },
		{ "18446744073709551615", UINT64_MAX, true, UINT64_MAX },
		{ "18446744073709551616", UINT64_MAX, false, 0 },
		{ "99999999999999999999", UINT64_MAX, false, 0 },
		{ "", 10, false, 0 },
		{ "-1", 10, false, 0 },
		{ "+1", 10, false, 0 },
		{ " 1", 10, false, 0 },
		{ "1 ", 10, false, 0 },
		{ "1a", 10, false, 0 },
		{ "1e3", 10000, false, 0 },
		{ "255", 255, true, 255 },
		{ "256", 255, false, 0 },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		uint64_t out = 12345;
		bool ok = policy_parse_u64(v[i].s, strlen(v[i].s), v[i].max, &out);
		cr_assert_eq(ok, v[i].ok, "\"%s\" max %llu", v[i].s, (unsigned long long)v[i].max);
		if (ok)
			cr_assert_eq(out, v[i].v, "\"%s\"", v[i].s);
		else
			cr_assert_eq(out, 12345, "\"%s\": out written on failure", v[i].s);
	}
	/* n bounds the read: "12" of "123" */
	uint64_t out;
	cr_assert(policy_parse_u64("123", 2, 100, &out));
	cr_assert_eq(out, 12);
	/* exhaustive against a reference for small bounds */
	for (uint64_t max = 0; max < 120; max++) {
		for (unsigned x = 0; x < 1000; x++) {
			char s[8];
			int l = snprintf(s, sizeof(s), "%u", x);
			bool ok = policy_parse_u64(s, (size_t)l, max, &out);
			cr_assert_eq(ok, x <= max, "%u max %llu", x, (unsigned long long)max);
			if (ok)
				cr_assert_eq(out, x);
		}
	}
}

Test(options, split_next_vectors)
{
	static const struct {
		const char *s;
		const char *items[5];
		size_t n;
	} v[] = {
		{ "a", { "a" }, 1 },
		{ "a,b", { "a", "b" }, 2 },
		{ "", { "" }, 1 },
		{ ",", { "", "" }, 2 },
		{ "a,", { "a", "" }, 2 },
		{ ",a", { "", "a" }, 2 },
		{ "a,,b", { "a", "", "b" }, 3 },
		{ "abc,de,f", { "abc", "de", "f" }, 3 },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		const char *cur = v[i].s, *item;
		size_t len, n = 0;
		while (policy_split_next(&cur, &item, &len)) {
			cr_assert_lt(n, v[i].n, "\"%s\": too many items", v[i].s);
			cr_assert_eq(len, strlen(v[i].items[n]), "\"%s\" item %zu", v[i].s, n);
			cr_assert(strncmp(item, v[i].items[n], len) == 0);
			n++;
		}
		cr_assert_eq(n, v[i].n, "\"%s\"", v[i].s);
		cr_assert(!policy_split_next(&cur, &item, &len), "not sticky at the end");
	}
	const char *cur = NULL, *item;
	size_t len;
	cr_assert(!policy_split_next(&cur, &item, &len));
}

Test(options, env_name_vectors)
{
	static const char *const good[] = { "A", "_", "PATH", "LC_ALL", "a1", "_9", "Z_z_0" };
	static const char *const bad[] = { "", "1", "9A", "A-B", "A.B", "A B", "A=", "=", "é",
					   "A\tB", "-" };
	for (size_t i = 0; i < N_ELEMS(good); i++)
		cr_assert(policy_env_name_valid(good[i], strlen(good[i])), "%s", good[i]);
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		cr_assert(!policy_env_name_valid(bad[i], strlen(bad[i])), "%s", bad[i]);
	/* n bounds the read */
	cr_assert(policy_env_name_valid("AB=1", 2));
	cr_assert(!policy_env_name_valid("A\0B", 3));
}

/* Network rules are checked against the rule grammar when porta starts:
 * malformed ones and ones that can never take effect are refused, naming
 * the option and the rule. */
Test(options, net_rules_checked_at_parse_time)
{
	static const struct {
		const char *opt, *rule;
	} bad[] = {
		{ "--allow-net", "localhost" },       { "--allow-net", "*.com" },
		{ "--allow-net", "x.test:0" },        { "--allow-net", "x.test:0443" },
		{ "--allow-net", "x.test:65979" },    { "--deny-net", "127.1" },
		{ "--proxy-allow", "a.test:443-80" }, { "--proxy-deny", "bad name.test" },
		{ "--allow-net", "ok.test,*.org" },   { "--allow-net", "::1:443" },
	};
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		assert_refused(ARGS("run", bad[i].opt, bad[i].rule, "--", "true"), bad[i].opt);

	struct policy_options o;
	assert_accepted(ARGS("run", "--allow-net", "github.com,*.npmjs.org:443,10.0.0.0/8:5432",
			     "--deny-net", "[2001:db8::1]:22", "--proxy-allow", "api.example.com:8000-8010",
			     "--", "true"),
			&o);
	cr_assert_eq(o.net_mode, POLICY_NET_POLICY);
}

/* --secret and --allow-http: checked at once, naming the problem; both mean
 * policy mode, and neither goes with --no-net. */
Test(options, secret_and_allow_http)
{
	struct policy_options o;
	assert_accepted(ARGS("run", "--secret", "GH_TOKEN@api.example,uploads.example",
			     "--allow-http", "GET,HEAD https://api.example/v1/*", "--", "true"), &o);
	cr_assert_eq(o.secrets.n, 1);
	cr_assert_eq(o.allow_http.n, 1);
	cr_assert_eq(o.net_mode, POLICY_NET_POLICY);
	assert_refused(ARGS("run", "--secret", "GH_TOKEN", "--", "true"), "--secret");
	assert_refused(ARGS("run", "--secret", "GH@*.example", "--", "true"), "--secret");
	assert_refused(ARGS("run", "--secret", "1GH@api.example", "--", "true"), "--secret");
	assert_refused(ARGS("run", "--allow-http", "GET", "--", "true"), "--allow-http");
	assert_refused(ARGS("run", "--allow-http", "get https://api.example/", "--", "true"),
		       "--allow-http");
	assert_refused(ARGS("run", "--allow-http", "GET ftp://api.example/", "--", "true"),
		       "--allow-http");
	assert_refused(ARGS("run", "--no-net", "--secret", "GH@api.example", "--", "true"),
		       "--secret");
	/* the set as one run's, refused alike by run, explain and learn */
#define SET_REFUSED(...)                                                                   \
	do {                                                                               \
		assert_refused(ARGS("run", __VA_ARGS__, "--", "true"), want);              \
		assert_refused(ARGS("explain", __VA_ARGS__, "--", "true"), want);          \
		assert_refused(ARGS("learn", "-o", "p", __VA_ARGS__, "--", "true"), want); \
	} while (0)
	const char *want = "TLS only";
	SET_REFUSED("--secret", "GH@api.example:80");
	want = "given twice";
	SET_REFUSED("--secret", "GH@a.example", "--secret", "GH@b.example");
	want = "both as http:// and as https://";
	SET_REFUSED("--allow-http", "GET http://a.example:8080/*", "--allow-http",
		    "GET https://a.example:8080/x");
#undef SET_REFUSED
}

/* What --secret needs of the environment: checked apart from argv, by
 * run, explain and learn alike (src/main.c), never quoting a value. */
Test(options, secret_environment)
{
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	assert_accepted(ARGS("explain", "--secret", "GH@api.example", "--", "true"), &o);
	char *ok[] = { "PATH=/usr/bin", "GH=s3cret-value", NULL };
	cr_assert_eq(policy_options_check_env(&o, ok, err), POLICY_PARSE_OK, "%s", err);
	char *unset[] = { "PATH=/usr/bin", NULL };
	cr_assert_eq(policy_options_check_env(&o, unset, err), POLICY_PARSE_ERROR);
	cr_assert(strstr(err, "GH is not set"), "%s", err);
	char *ctl[] = { "GH=a\nb", NULL };
	cr_assert_eq(policy_options_check_env(&o, ctl, err), POLICY_PARSE_ERROR);
	cr_assert_null(strstr(err, "a\nb"), "the value is never quoted: %s", err);
}

/* Their hosts are allowed, once each even when both options name one. */
Test(options, secret_and_allow_http_hosts_allowed)
{
	struct policy_options o;
	static struct policy_net_rule rules[POLICY_NET_MAX_RULES];
	size_t n;
	char err[POLICY_ERR_MAX];
	assert_accepted(ARGS("run", "--secret", "GH@api.example", "--allow-http",
			     "GET https://api.example/*", "--allow-http", "* https://up.example:8443/x",
			     "--", "true"), &o);
	cr_assert_eq(policy_net_compile(&o, rules, POLICY_NET_MAX_RULES, &n, err),
		     POLICY_NET_COMPILE_OK, "%s", err);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rules[0].text, "api.example:443");
	cr_assert_str_eq(rules[1].text, "up.example:8443");
	cr_assert_eq(rules[1].port_lo, 8443);
}
