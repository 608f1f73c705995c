/* tests/unit/policy/test_profile.c: profiles read into words and merged
 * with the command line (policy/profile.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "policy/profile.h"

static struct policy_profile prof, prof2;
static char err[POLICY_ERR_MAX];

static enum policy_profile_status parse(struct policy_profile *p, const char *text)
{
	return policy_profile_parse((const uint8_t *)text, strlen(text), "/home/u", p, err);
}

static const char *word(const struct policy_profile *p, size_t i)
{
	cr_assert_lt(i, p->n);
	return p->text + p->word[i];
}

Test(profile, words_split_as_a_shell_splits_them)
{
	cr_assert_eq(parse(&prof, "# a comment\n"
				  "\n"
				  "   --allow-net registry.example   # why: the registry\n"
				  "--allow-http 'GET,HEAD https://api.example/v1/*'\n"
				  "--env \"A=b \\\"c\\\" \\\\ \\$x\"\n"
				  "-e K=it\\'s\r\n"
				  "--env=E=''\n"
				  "-v ~/.cache/tool\n"
				  "--deny-read ~\n"
				  "--allow-net *.example.org\n"),
		     POLICY_PROFILE_OK, "%s", err);
	const char *want[] = { "--allow-net", "registry.example",
			       "--allow-http", "GET,HEAD https://api.example/v1/*",
			       "--env", "A=b \"c\" \\ $x",
			       "-e", "K=it's",
			       "--env=E=",
			       "-v", "/home/u/.cache/tool",
			       "--deny-read", "/home/u",
			       "--allow-net", "*.example.org" };
	unsigned lines[] = { 3, 3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9, 9, 10, 10 };
	cr_assert_eq(prof.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < prof.n; i++) {
		cr_assert_str_eq(word(&prof, i), want[i], "word %zu", i);
		cr_assert_eq(prof.line[i], lines[i], "word %zu", i);
	}
}

static void refused(const char *text, const char *want)
{
	cr_assert_eq(parse(&prof, text), POLICY_PROFILE_ERROR, "accepted: %s", text);
	cr_assert(strstr(err, want), "%s: got '%s', want '%s'", text, err, want);
	for (const char *c = err; *c; c++)
		cr_assert((unsigned char)*c >= 0x20, "a control byte in the message");
}

Test(profile, refusals_name_the_line)
{
	refused("--timeout 5\n--allow-net a.example; rm -rf /\n", "line 2: ';' outside quotes");
	refused("-v $HOME/x\n", "line 1: '$' outside single quotes");
	refused("-v \"$HOME/x\"\n", "line 1: '$' inside \"...\"");
	refused("-v `pwd`\n", "line 1: '`' outside single quotes");
	refused("-v ~root/x\n", "line 1: ~r...: only ~ and ~/");
	refused("\n\n--allow-net 'never closed\n", "line 3: a ' that is never closed");
	refused("--env \"A=b\n", "line 1: a \" that is never closed");
	refused("-v \\\n", "line 1: a backslash at the end of the line");
	refused("--env A=\033[31m\n", "line 1: a control byte (0x1b)");
	refused("--profile other\n", "line 1: --profile inside a profile");
	refused("--profile=other\n", "line 1: --profile inside a profile");
	refused("--allow-root\n", "line 1: --allow-root inside a profile");
	refused("true\n", "line 1: 'true' is not an option");
	refused("-- true\n", "line 1: '--' is not an option");
	refused("--allow-net a.example b.example\n", "line 1: 3 words where '--allow-net' takes 2");
	refused("--no-net extra\n", "line 1: 2 words where '--no-net' takes 1");
	refused("--allow-net\n", "line 1: 1 words where '--allow-net' takes 2");
	refused("--bogus\n", "line 1: unknown option '--bogus'");
	refused("--timeout soon\n", "line 1: --timeout 'soon'");
	refused("--allow-net localhost\n", "line 1: --allow-net 'localhost'");
	refused("--json\n", "line 1: --json is not an option of 'porta run'");
}

Test(profile, nul_byte_refused)
{
	const char text[] = "--env A=\0b\n";
	cr_assert_eq(policy_profile_parse((const uint8_t *)text, sizeof(text) - 1, "/h", &prof, err),
		     POLICY_PROFILE_ERROR);
	cr_assert(strstr(err, "line 1: a NUL byte"), "%s", err);
}

Test(profile, tilde_needs_a_home)
{
	const char text[] = "-v ~/x\n";
	cr_assert_eq(policy_profile_parse((const uint8_t *)text, sizeof(text) - 1, NULL, &prof, err),
		     POLICY_PROFILE_ERROR);
	cr_assert(strstr(err, "HOME is not set"), "%s", err);
	/* quoted, or not at a word's start: taken as it is, as a shell does */
	cr_assert_eq(parse(&prof, "-v '~/x'\n--mount=~/y\n"), POLICY_PROFILE_OK, "%s", err);
	cr_assert_str_eq(word(&prof, 1), "~/x");
	cr_assert_str_eq(word(&prof, 2), "--mount=~/y");
}

Test(profile, too_long_refused)
{
	static char big[POLICY_PROFILE_BYTES_MAX + 2];
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	refused(big, "too long");
	/* more words than fit */
	static char many[POLICY_PROFILE_WORDS_MAX * 12];
	size_t o = 0;
	for (int i = 0; i < POLICY_PROFILE_WORDS_MAX; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "--why\n--why\n");
	refused(many, "too long");
}

/* ---- merging ---- */

static int merged_argc;
static char *merged[256];
static struct policy_origin origin[256];

static void merge(int argc, char **argv, int cmd_index, const struct policy_profile *const *p,
		  size_t n)
{
	cr_assert(policy_profile_merge(argc, argv, cmd_index, p, n, merged, origin, 256,
				       &merged_argc));
	cr_assert_null(merged[merged_argc]);
}

static void assert_words(const char *const want[], size_t n)
{
	cr_assert_eq((size_t)merged_argc, n, "%d words, want %zu", merged_argc, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(merged[i], want[i], "word %zu", i);
}

Test(profile, command_line_after_the_profiles_and_single_values_replaced)
{
	cr_assert_eq(parse(&prof, "--allow-net a.example\n--timeout 30\n--read-policy strict\n"
				  "--proxy-audit /p1\n-v /w\n"),
		     POLICY_PROFILE_OK, "%s", err);
	cr_assert_eq(parse(&prof2, "--timeout=60\n--allow-net b.example\n--preset none\n"),
		     POLICY_PROFILE_OK, "%s", err);
	char *argv[] = { "porta", "run", "--profile", "one", "--allow-net", "c.example",
			 "--profile=two", "--audit", "/p2", "--timeout", "5", "--", "cmd", "-x", NULL };
	const struct policy_profile *const p[] = { &prof, &prof2 };
	merge(14, argv, 12, p, 2);
	const char *want[] = { "porta", "run",
			       "--allow-net", "a.example", "--read-policy", "strict", "-v", "/w",
			       "--allow-net", "b.example", "--preset", "none",
			       "--allow-net", "c.example", "--audit", "/p2", "--timeout", "5",
			       "--", "cmd", "-x" };
	assert_words(want, sizeof(want) / sizeof(want[0]));
	/* where each came from */
	cr_assert_eq(origin[2].profile, 0);
	cr_assert_eq(origin[2].line, 1);
	cr_assert_eq(origin[4].profile, 0);
	cr_assert_eq(origin[4].line, 3);
	cr_assert_eq(origin[8].profile, 1);
	cr_assert_eq(origin[8].line, 2);
	cr_assert_eq(origin[12].profile, -1);
	cr_assert_eq(origin[16].profile, -1);
	/* and the parser takes the result */
	struct policy_options o;
	cr_assert_eq(policy_parse_args(merged_argc, merged, &o, err), POLICY_PARSE_OK, "%s", err);
	cr_assert_eq(o.timeout_ms.value, 5000);
	cr_assert_str_eq(o.audit_path, "/p2");
	cr_assert_eq(o.allow_net.n, 3);
	cr_assert_eq(o.profiles.n, 0, "--profile words are gone");
	cr_assert_eq(o.cmd_argc, 2);
}

Test(profile, a_later_profile_replaces_an_earlier_ones_single_value)
{
	cr_assert_eq(parse(&prof, "--timeout 30\n--max-procs 10\n"), POLICY_PROFILE_OK, "%s", err);
	cr_assert_eq(parse(&prof2, "--timeout 60\n"), POLICY_PROFILE_OK, "%s", err);
	char *argv[] = { "porta", "explain", "--profile", "a", "--profile", "b", "true", NULL };
	const struct policy_profile *const p[] = { &prof, &prof2 };
	merge(7, argv, 6, p, 2);
	const char *want[] = { "porta", "explain", "--max-procs", "10", "--timeout", "60", "true" };
	assert_words(want, sizeof(want) / sizeof(want[0]));
}

Test(profile, repeated_flags_and_lists_add_up)
{
	cr_assert_eq(parse(&prof, "--caches\n-e A=1\n--why\n"), POLICY_PROFILE_OK, "%s", err);
	char *argv[] = { "porta", "run", "--caches", "-e", "B=2", "--profile", "x", "true", NULL };
	const struct policy_profile *const p[] = { &prof };
	merge(8, argv, 7, p, 1);
	const char *want[] = { "porta", "run", "--caches", "-e", "A=1", "--why",
			       "--caches", "-e", "B=2", "true" };
	assert_words(want, sizeof(want) / sizeof(want[0]));
	struct policy_options o;
	cr_assert_eq(policy_parse_args(merged_argc, merged, &o, err), POLICY_PARSE_OK, "%s", err);
	cr_assert_eq(o.env_set.n, 2);
}

Test(profile, too_little_room_is_refused)
{
	cr_assert_eq(parse(&prof, "--why\n--why\n--why\n"), POLICY_PROFILE_OK, "%s", err);
	char *argv[] = { "porta", "run", "true", NULL };
	const struct policy_profile *const p[] = { &prof };
	int n;
	cr_assert_not(policy_profile_merge(3, argv, 2, p, 1, merged, origin, 5, &n));
	cr_assert(policy_profile_merge(3, argv, 2, p, 1, merged, origin, 7, &n));
	cr_assert_eq(n, 6);
}

Test(profile, names_in_order)
{
	char *argv[] = { "porta", "run", "--profile", "a", "-v", "/x", "--profile=./b", "--",
			 "--profile", "c", NULL };
	const char *names[4];
	size_t n;
	cr_assert(policy_profile_names(10, argv, 8, names, 4, &n));
	cr_assert_eq(n, 2, "the command's own words are not options");
	cr_assert_str_eq(names[0], "a");
	cr_assert_str_eq(names[1], "./b");
	cr_assert_not(policy_profile_names(10, argv, 8, names, 1, &n));
}

/* A project file's relative paths are its directory's. */
Test(profile, anchor_makes_relative_paths_the_projects)
{
	cr_assert_eq(parse(&prof, "-v .\n-vsrc:ro\n--mount=build\n--deny-read secrets\n"
				  "--allow-unix run/s.sock\n--env-file .env\n--audit=audit.jsonl\n"
				  "--proxy-audit a2\n-v /abs\n--protect .local\n--allow-net a.example\n"
				  "-e X=rel\n"),
		     POLICY_PROFILE_OK, "%s", err);
	cr_assert(policy_profile_anchor(&prof, "/p/q"));
	const char *want[] = { "-v", "/p/q/.", "-v/p/q/src:ro", "--mount=/p/q/build",
			       "--deny-read", "/p/q/secrets", "--allow-unix", "/p/q/run/s.sock",
			       "--env-file", "/p/q/.env", "--audit=/p/q/audit.jsonl",
			       "--proxy-audit", "/p/q/a2", "-v", "/abs", "--protect", ".local",
			       "--allow-net", "a.example", "-e", "X=rel" };
	cr_assert_eq(prof.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < prof.n; i++)
		cr_assert_str_eq(word(&prof, i), want[i], "word %zu", i);
	/* a project in / */
	cr_assert_eq(parse(&prof, "-v x\n"), POLICY_PROFILE_OK, "%s", err);
	cr_assert(policy_profile_anchor(&prof, ""));
	cr_assert_str_eq(word(&prof, 1), "/x");
}

Test(profile, anchor_refuses_when_full)
{
	static char text[POLICY_PROFILE_BYTES_MAX];
	size_t o = 0;
	for (int i = 0; i < POLICY_PROFILE_WORDS_MAX / 2; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "-v %054d\n", i);
	cr_assert_eq(parse(&prof, text), POLICY_PROFILE_OK, "%s", err);
	static char dir[4000];
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	cr_assert_not(policy_profile_anchor(&prof, dir));
}

/* Every option that takes one value (the options' table says which,
 * policy_option_single()) is replaced, not repeated, when a profile's
 * meets the command line's: the merged words parse.  --audit-max once
 * stopped the run with "given twice", as the merge kept its own list. */
Test(profile, every_single_valued_option_is_replaced)
{
	static const struct {
		const char *opt, *first, *then, *needs, *needs_value;
	} v[] = {
		{ "--read-policy", "strict", "open", NULL, NULL },
		{ "--preset", "none", "default", NULL, NULL },
		{ "--audit", "/a1", "/a2", NULL, NULL },
		{ "--proxy-audit", "/a1", "/a2", NULL, NULL },
		{ "--audit-max", "5", "7", "--audit", "/a" },
		{ "--dns-upstream", "192.0.2.1", "192.0.2.2", "--allow-net", "a.example" },
		{ "--timeout", "30", "5", NULL, NULL },
		{ "--max-cpu", "10", "20", NULL, NULL },
		{ "--max-procs", "10", "20", NULL, NULL },
		{ "--max-file-size", "10", "20", NULL, NULL },
		{ "--max-memory-mb", "100", "200", NULL, NULL },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *key;
		cr_assert(policy_option_single(v[i].opt + 2, strlen(v[i].opt + 2), &key), "%s",
			  v[i].opt);
		char text[128];
		/* a line is the option alone: what it needs of the set may
		 * come on another line, or from the command line */
		snprintf(text, sizeof(text), "%s %s\n", v[i].opt, v[i].first);
		cr_assert_eq(parse(&prof, text), POLICY_PROFILE_OK, "%s: %s", v[i].opt, err);
		char *argv[] = { "porta", "run", "--profile", "x", (char *)v[i].opt,
				 (char *)v[i].then, (char *)(v[i].needs ? v[i].needs : "--why"),
				 (char *)(v[i].needs ? v[i].needs_value : "--why"), "true", NULL };
		const struct policy_profile *const p[] = { &prof };
		merge(9, argv, 8, p, 1);
		struct policy_options o;
		cr_assert_eq(policy_parse_args(merged_argc, merged, &o, err), POLICY_PARSE_OK,
			     "%s: %s", v[i].opt, err);
		size_t seen = 0;
		for (int k = 0; k < merged_argc; k++)
			seen += strcmp(merged[k], v[i].first) == 0;
		cr_assert_eq(seen, 0, "%s: the profile's value stayed", v[i].opt);
	}
	const char *key;
	cr_assert(policy_option_single("proxy-audit", 11, &key));
	cr_assert_str_eq(key, "audit", "an alias merges as its option");
	cr_assert_not(policy_option_single("allow-net", 9, &key), "a list adds up");
	cr_assert_not(policy_option_single("why", 3, &key));
}
