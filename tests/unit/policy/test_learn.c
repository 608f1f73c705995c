/* tests/unit/policy/test_learn.c: the profile `porta learn` writes from a
 * run's audit and --why's answers (policy/learn.h), read back as the
 * option lines a profile holds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/auditsum.h"
#include "policy/learn.h"
#include "policy/netrule.h"
#include "policy/options.h"
#include "policy/profile.h"

static struct policy_audit a;
static char *text;
static size_t text_len;

static void setup(void)
{
	policy_audit_init(&a);
}

static void teardown(void)
{
	policy_audit_free(&a);
	free(text);
	text = NULL;
}

TestSuite(learn, .init = setup, .fini = teardown);

/* A connection record as decision/log.c writes it: name (or NULL: by
 * address), the address and port dialled, the verdict and its hint. */
static void record(const char *host, const char *dst, const char *verdict, const char *hint)
{
	char line[1024], err[POLICY_AUDIT_ERR_MAX];
	char h[300] = "null", k[300] = "null";
	if (host)
		snprintf(h, sizeof(h), "\"%s\"", host);
	if (hint)
		snprintf(k, sizeof(k), "\"%s\"", hint);
	snprintf(line, sizeof(line),
		 "{\"seq\":1,\"kind\":\"connect\",\"pid\":3,\"comm\":\"tool\",\"dst\":\"%s\","
		 "\"host\":%s,\"sni\":null,\"rule\":null,\"verdict\":\"%s\",\"reason\":\"%s\","
		 "\"hint\":%s,\"upstream\":\"%s\"}",
		 dst, h, verdict, strcmp(verdict, "allow") ? "no-rule" : "allow", k, dst);
	cr_assert_eq(policy_audit_add(&a, line, strlen(line), err), POLICY_AUDIT_OK, "%s", err);
}

static void dns(const char *host)
{
	char line[512], err[POLICY_AUDIT_ERR_MAX];
	snprintf(line, sizeof(line),
		 "{\"seq\":2,\"kind\":\"dns\",\"pid\":3,\"comm\":\"tool\",\"dst\":\"10.255.255.53:53\","
		 "\"host\":\"%s\",\"sni\":null,\"rule\":\"*:80\",\"verdict\":\"allow\","
		 "\"reason\":\"allow\",\"hint\":null}",
		 host);
	cr_assert_eq(policy_audit_add(&a, line, strlen(line), err), POLICY_AUDIT_OK, "%s", err);
}

/* "co.uk" and one-label names are public suffixes here; nothing else. */
static bool suffix(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "co.uk") == 0 || !strchr(name, '.');
}

/* Below "cloud.example" lies a public suffix ("s3.cloud.example", as
 * s3.amazonaws.com lies below amazonaws.com); below "uk" lies "co.uk". */
static bool below(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "cloud.example") == 0 || strcmp(name, "uk") == 0;
}

static struct policy_learn_input input(void)
{
	static char *cmd[] = { "tool", "--fetch" };
	return (struct policy_learn_input){ .audit = &a, .command = cmd, .n_command = 2,
					    .transparent = true, .public_suffix = suffix,
					    .suffix_below = below,
					    .when = "2026-12-02 10:00 UTC" };
}

static void write_profile(const struct policy_learn_input *in, struct policy_learn_counts *c)
{
	FILE *out = open_memstream(&text, &text_len);
	cr_assert_not_null(out);
	cr_assert(policy_learn_write(out, in, c));
	fclose(out);
}

/* The option lines, in order, joined by "|". */
static void options(char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n && l[0] != '#')
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? "|" : "", (int)n, l);
		l = nl ? nl + 1 : NULL;
	}
}

Test(learn, one_rule_per_destination_used)
{
	record("registry.example", "203.0.113.1:443", "allow", NULL);
	record("registry.example", "203.0.113.1:443", "allow", NULL);
	record("files.example", "203.0.113.2:80", "allow", NULL);
	record(NULL, "198.51.100.7:443", "allow", NULL);
	record(NULL, "[2001:db8::9]:443", "allow", NULL);
	dns("registry.example");
	dns("asked-only.example");
	struct policy_learn_input in = input();
	struct policy_learn_counts c;
	write_profile(&in, &c);
	char got[2048];
	options(got, sizeof(got));
	cr_expect_str_eq(got, "--allow-net 198.51.100.7:443|--allow-net '[2001:db8::9]:443'|"
			      "--allow-net files.example:80|--allow-net registry.example:443",
			 "%s", text);
	cr_expect_eq(c.destinations, 4);
	cr_expect_not_null(strstr(text, "reached by its address alone"), "%s", text);
	cr_expect_not_null(strstr(text, "names only looked up (DNS), never connected to: "
					"asked-only.example\n"), "%s", text);
	cr_expect_not_null(strstr(text, "# learned 2026-12-02 10:00 UTC from: tool --fetch\n"),
			   "%s", text);
}

Test(learn, what_the_users_rules_allow_is_not_learned_again)
{
	record("registry.example", "203.0.113.1:443", "allow", NULL);
	record("new.example", "203.0.113.3:443", "allow", NULL);
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	char *argv[] = { "porta", "run", "--allow-net", "registry.example", "--", "true" };
	cr_assert_eq(policy_parse_args(6, argv, &o, err), POLICY_PARSE_OK, "%s", err);
	struct policy_net_rule rules[4];
	size_t n = 0;
	cr_assert_eq(policy_net_compile(&o, rules, 4, &n, err), POLICY_NET_COMPILE_OK, "%s", err);
	struct policy_learn_input in = input();
	in.user_rules = rules;
	in.n_user_rules = n;
	char *words[] = { "--allow-net", "registry.example", "-v", "/srv/my project" };
	in.user_words = words;
	in.n_user_words = 4;
	struct policy_learn_counts c;
	write_profile(&in, &c);
	char got[2048];
	options(got, sizeof(got));
	cr_expect_str_eq(got, "--allow-net registry.example|-v '/srv/my project'|"
			      "--allow-net new.example:443", "%s", text);
}

Test(learn, many_names_under_a_parent_fold_but_not_under_a_public_suffix)
{
	const char *cdn[] = { "a.cdn.example", "b.cdn.example", "c.cdn.example", "d.cdn.example" };
	for (size_t i = 0; i < 4; i++)
		record(cdn[i], "203.0.113.5:443", "allow", NULL);
	record("cdn.example", "203.0.113.5:443", "allow", NULL);
	/* the same names on another port: a parent and port each */
	record("a.cdn.example", "203.0.113.5:8443", "allow", NULL);
	/* three under one parent: not many */
	record("x.few.example", "203.0.113.6:443", "allow", NULL);
	record("y.few.example", "203.0.113.6:443", "allow", NULL);
	record("z.few.example", "203.0.113.6:443", "allow", NULL);
	/* a public suffix never becomes a wildcard */
	const char *uk[] = { "one.co.uk", "two.co.uk", "three.co.uk", "four.co.uk" };
	for (size_t i = 0; i < 4; i++)
		record(uk[i], "203.0.113.7:443", "allow", NULL);
	/* nor a parent a public suffix lies below (escape: *.amazonaws.com
	 * reaches any bucket under s3.amazonaws.com) */
	const char *cl[] = { "s3.cloud.example", "a.cloud.example", "b.cloud.example",
			     "c.cloud.example" };
	for (size_t i = 0; i < 4; i++)
		record(cl[i], "203.0.113.9:443", "allow", NULL);
	struct policy_learn_input in = input();
	struct policy_learn_counts c;
	write_profile(&in, &c);
	char got[4096];
	options(got, sizeof(got));
	cr_expect_str_eq(got,
			 "--allow-net '*.cdn.example:443'|--allow-net a.cdn.example:8443|"
			 "--allow-net a.cloud.example:443|--allow-net b.cloud.example:443|"
			 "--allow-net c.cloud.example:443|"
			 "--allow-net four.co.uk:443|--allow-net one.co.uk:443|"
			 "--allow-net s3.cloud.example:443|"
			 "--allow-net three.co.uk:443|--allow-net two.co.uk:443|"
			 "--allow-net x.few.example:443|--allow-net y.few.example:443|"
			 "--allow-net z.few.example:443",
			 "%s", text);
	cr_expect_not_null(strstr(text, "# 4 names under cdn.example, port 443: a.cdn.example "
					"b.cdn.example c.cdn.example d.cdn.example cdn.example\n"),
			   "%s", text);
	/* without a public suffix list nothing folds */
	free(text);
	text = NULL;
	in.public_suffix = NULL;
	write_profile(&in, &c);
	options(got, sizeof(got));
	cr_expect_null(strstr(got, "*."), "%s", got);
	/* nor without knowing what lies below a parent */
	free(text);
	text = NULL;
	in.public_suffix = suffix;
	in.suffix_below = NULL;
	write_profile(&in, &c);
	options(got, sizeof(got));
	cr_expect_null(strstr(got, "*."), "%s", got);
}

Test(learn, refusals_an_option_allows_are_learned_the_others_listed)
{
	/* another port than learn catches transparently: refused, with a hint */
	record("svc.example", "203.0.113.8:8443", "deny", "--allow-net svc.example:8443");
	/* a class no rule reaches: refused, no hint */
	record(NULL, "169.254.169.254:80", "deny", NULL);
	struct policy_learn_input in = input();
	const char *files[] = { "-v /srv/out", "-v /srv/out/sub", "-v /srv/out:ro",
				"--allow-unix /run/app.sock" };
	in.file_options = files;
	in.n_file_options = 4;
	const char *closed[] = { "read /home/u/.ssh/id_ed25519 (credential path; closed by the "
				 "preset)" };
	in.closed = closed;
	in.n_closed = 1;
	struct policy_learn_counts c;
	write_profile(&in, &c);
	char got[2048];
	options(got, sizeof(got));
	cr_expect_str_eq(got, "--allow-net svc.example:8443|-v /srv/out|"
			      "--allow-unix /run/app.sock", "%s", text);
	cr_expect_eq(c.refused, 2);
	cr_expect_eq(c.files, 2);
	cr_expect_not_null(strstr(text, "refused, no option allows it: 169.254.169.254:80\n"), "%s",
			   text);
	cr_expect_not_null(strstr(text, "closed, no option opens it: read /home/u/.ssh/id_ed25519"),
			   "%s", text);
}

Test(learn, the_catch_all_rules_compile_as_learn_adds_them)
{
	const char *transparent, *proxied;
	policy_learn_catch_all(&transparent, &proxied);
	char *argv[] = { "porta", "run", "--allow-net", (char *)transparent, "--proxy-allow",
			 (char *)proxied, "--", "true" };
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	cr_assert_eq(policy_parse_args(8, argv, &o, err), POLICY_PARSE_OK, "%s", err);
	static struct policy_net_rule rules[POLICY_NET_MAX_RULES];
	size_t n = 0;
	cr_assert_eq(policy_net_compile(&o, rules, POLICY_NET_MAX_RULES, &n, err),
		     POLICY_NET_COMPILE_OK, "%s", err);
	cr_expect_eq(n, 6 + 3 * 64);
	/* any name on any port through the proxy; 443 transparently; never
	 * loopback or metadata */
	struct policy_net_query q = { .name = "anything.example", .port = 65535, .via_proxy = true };
	struct policy_net_decision d;
	cr_expect_eq(policy_net_decide(rules, n, &q, &d), POLICY_NET_ALLOWED);
	q = (struct policy_net_query){ .name = "anything.example", .port = 443 };
	cr_expect_eq(policy_net_decide(rules, n, &q, &d), POLICY_NET_ALLOWED);
	q = (struct policy_net_query){ .name = "anything.example", .port = 8443 };
	cr_expect_neq(policy_net_decide(rules, n, &q, &d), POLICY_NET_ALLOWED);
	struct policy_net_target t;
	const char *denied[] = { "127.0.0.1", "169.254.169.254", "[::1]" };
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(policy_net_target_parse((const uint8_t *)denied[i], strlen(denied[i]), &t),
			     POLICY_NET_TARGET_OK);
		q = (struct policy_net_query){ .addr = &t.addr, .port = 443, .via_proxy = true };
		cr_expect_neq(policy_net_decide(rules, n, &q, &d), POLICY_NET_ALLOWED, "%s",
			      denied[i]);
	}
}

/* Paths below where learn ran are ./REL, below the home ~/REL; the profile
 * parser reads them back as the same paths (with ~ the home and the
 * relative ones anchored at that directory, as a project file's are). */
Test(learn, paths_below_the_directory_and_the_home_are_written_relative)
{
	struct policy_learn_input in = input();
	const char *files[] = { "-v /srv/app/out", "-v /home/u/.npm", "-v /srv/app",
				"-v /elsewhere/x", "-v /home/u/a b:ro", "--allow-unix /srv/app-other/s" };
	in.file_options = files;
	in.n_file_options = 6;
	in.cwd = "/srv/app";
	in.home = "/home/u";
	struct policy_learn_counts c;
	write_profile(&in, &c);
	char got[2048];
	options(got, sizeof(got));
	cr_expect_str_eq(got, "-v ~/.npm|-v .|-v /elsewhere/x|-v ~/'a b:ro'|"
			      "--allow-unix /srv/app-other/s", "%s", text);
	static struct policy_profile p;
	char err[POLICY_ERR_MAX];
	cr_assert_eq(policy_profile_parse((const uint8_t *)text, strlen(text), "/home/u", &p, err),
		     POLICY_PROFILE_OK, "%s", err);
	cr_assert(policy_profile_anchor(&p, "/srv/app"));
	/* "." anchored is "/srv/app/.", which resolve normalises */
	const char *want[] = { "-v", "/home/u/.npm", "-v", "/srv/app/.", "-v", "/elsewhere/x",
			       "-v", "/home/u/a b:ro", "--allow-unix", "/srv/app-other/s" };
	cr_assert_eq(p.n, 10);
	for (size_t i = 0; i < 10; i++)
		cr_expect_str_eq(p.text + p.word[i], want[i], "word %zu: %s", i, p.text + p.word[i]);
}
