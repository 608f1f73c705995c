/* tests/unit/policy/test_option_table.c: policy_option_next() and
 * policy_command_next(), the walk over the tables policy_parse_args() reads,
 * from which the shell completions are generated (tools/gen_completions.c).
 *
 * What the walk says must be what the parser does: every option it lists is
 * accepted by exactly the commands it names, in --long, --long=VALUE and -s
 * form; every word it lists for a value is accepted and a word it does not
 * list is refused; every command it lists that the parser reads is parsed as
 * that command, and the others are refused by name.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "policy/options.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Parses "porta" and words[0..n), skipping the NULL ones (a form without
 * that word).  The words must outlive *o. */
static enum policy_parse_status parse_words(struct policy_options *o, char err[POLICY_ERR_MAX],
					    const char *const *words, size_t n)
{
	char *argv[16];
	int argc = 0;

	argv[argc++] = (char *)"porta";
	for (size_t k = 0; k < n && argc < 15; k++)
		if (words[k])
			argv[argc++] = (char *)words[k];
	argv[argc] = NULL;
	return policy_parse_args(argc, argv, o, err);
}

#define PARSE(o, err, ...)                                                             \
	parse_words(o, err, (const char *const[]){ __VA_ARGS__ },                      \
		    N_ELEMS(((const char *const[]){ __VA_ARGS__ })))

static const struct {
	const char *name;
	enum policy_command cmd;
} parsed_cmds[] = {
	{ "run", POLICY_CMD_RUN },
	{ "learn", POLICY_CMD_LEARN },
	{ "explain", POLICY_CMD_EXPLAIN },
	{ "check", POLICY_CMD_CHECK },
};

/* A value the option accepts, for the parse below. */
static const char *good_value(const struct policy_option_info *i)
{
	if (i->kind == POLICY_VALUE_WORD)
		return i->words[0];
	if (strcmp(i->long_name, "env") == 0)
		return "A=1";
	if (strcmp(i->long_name, "env-pass") == 0)
		return "A";
	if (strcmp(i->long_name, "secret") == 0)
		return "TOKEN@api.example.com";
	if (strcmp(i->long_name, "allow-http") == 0)
		return "GET https://api.example.com/*";
	if (strstr(i->long_name, "net") || strstr(i->long_name, "proxy-") == i->long_name)
		return strstr(i->long_name, "audit") ? "/tmp/a" : "example.com";
	if (strcmp(i->long_name, "dns-upstream") == 0)
		return "192.0.2.1";
	if (i->kind == POLICY_VALUE_TEXT && strstr(i->hint, "> 0"))
		return "5";
	return "/tmp/x";
}

/* What the command line needs besides the option for the parse to succeed:
 * learn its -o FILE; NULL for nothing. */
static const char *learn_output(const struct policy_option_info *i, enum policy_command cmd)
{
	if (cmd == POLICY_CMD_LEARN && strcmp(i->long_name, "output") != 0)
		return "-o/tmp/learned";
	return NULL;
}

/* --dns-upstream needs a network rule, --audit-max an audit file. */
static const char *net_rule(const struct policy_option_info *i)
{
	if (strcmp(i->long_name, "audit-max") == 0)
		return "--audit=/tmp/a";
	return strcmp(i->long_name, "dns-upstream") == 0 ? "--allow-net=example.com" : NULL;
}

Test(option_table, every_option_is_parsed_by_exactly_its_commands)
{
	struct policy_option_info i;
	size_t cur = 0, n = 0;

	while (policy_option_next(&cur, &i)) {
		n++;
		cr_assert(i.long_name && i.long_name[0] && i.long_name[0] != '-');
		cr_assert_eq(i.kind == POLICY_VALUE_NONE, i.hint == NULL, "--%s", i.long_name);
		cr_assert_eq(i.kind == POLICY_VALUE_WORD, i.words != NULL, "--%s", i.long_name);
		cr_assert_neq(i.commands, 0u, "--%s is no command's", i.long_name);
		const char *value = i.kind == POLICY_VALUE_NONE ? NULL : good_value(&i);
		char lng[64], eq[128], shrt[3] = { '-', i.short_name, 0 };
		snprintf(lng, sizeof(lng), "--%s", i.long_name);
		snprintf(eq, sizeof(eq), "--%s%s%s", i.long_name, value ? "=" : "",
			 value ? value : "");
		for (size_t c = 0; c < N_ELEMS(parsed_cmds); c++) {
			enum policy_command cmd = parsed_cmds[c].cmd;
			const char *name = parsed_cmds[c].name;
			const char *more = learn_output(&i, cmd), *rule = net_rule(&i);
			const char *command = cmd == POLICY_CMD_CHECK ? NULL : "true";
			bool want = i.commands & POLICY_CMD_BIT(cmd);
			/* learn watches the network: --no-net is its option, refused
			 * for that reason (policy_parse_args()'s finish()) */
			bool contradiction = cmd == POLICY_CMD_LEARN &&
					     strcmp(i.long_name, "no-net") == 0;
			const char *forms[3][2] = { { lng, value }, { eq, NULL }, { shrt, value } };
			for (size_t f = 0; f < (i.short_name ? 3 : 2); f++) {
				struct policy_options o;
				char err[POLICY_ERR_MAX];
				enum policy_parse_status st =
					PARSE(&o, err, name, more, rule, forms[f][0], forms[f][1],
					      command);
				if (contradiction) {
					cr_assert_eq(st, POLICY_PARSE_ERROR);
					cr_assert(strstr(err, "--no-net"), "%s", err);
					continue;
				}
				cr_assert_eq(st == POLICY_PARSE_OK, want, "porta %s %s %s: %s", name,
					     forms[f][0], forms[f][1] ? forms[f][1] : "",
					     st == POLICY_PARSE_OK ? "accepted" : err);
				if (!want)
					cr_assert(strstr(err, "is not an option of"), "%s", err);
			}
		}
	}
	cr_assert_gt(n, 30, "the walk listed %zu options", n);
}

Test(option_table, words_are_exactly_the_accepted_values)
{
	struct policy_option_info i;
	size_t cur = 0, n_word_opts = 0;

	while (policy_option_next(&cur, &i)) {
		if (i.kind != POLICY_VALUE_WORD)
			continue;
		n_word_opts++;
		char opt[64];
		struct policy_options o;
		char err[POLICY_ERR_MAX];
		snprintf(opt, sizeof(opt), "--%s", i.long_name);
		for (size_t k = 0; i.words[k]; k++) {
			cr_assert_eq(PARSE(&o, err, "run", opt, i.words[k], "true"),
				     POLICY_PARSE_OK, "%s %s: %s", opt, i.words[k], err);
			/* the message's list is the same words */
			cr_assert(strstr(i.hint, i.words[k]), "%s: hint '%s' lacks %s", opt, i.hint,
				  i.words[k]);
		}
		cr_assert_eq(PARSE(&o, err, "run", opt, "no-such-word", "true"),
			     POLICY_PARSE_ERROR);
		cr_assert(strstr(err, i.hint), "%s: '%s'", opt, err);
	}
	cr_assert_eq(n_word_opts, 2); /* --read-policy, --preset */
}

Test(option_table, commands_are_what_the_parser_reads)
{
	struct policy_command_info c;
	size_t cur = 0, n = 0, n_own = 0;

	while (policy_command_next(&cur, &c)) {
		struct policy_options o;
		char err[POLICY_ERR_MAX];
		n++;
		if (c.command == POLICY_CMD_NONE) {
			/* src/main.c's own: the parser names it among the expected */
			n_own++;
			cr_assert_eq(PARSE(&o, err, c.name), POLICY_PARSE_ERROR);
			cr_assert(strstr(err, c.name), "%s", err);
			cr_assert(!c.alias);
			continue;
		}
		enum policy_parse_status st =
			c.args == POLICY_ARGS_COMMAND
				? PARSE(&o, err, c.name,
					c.command == POLICY_CMD_LEARN ? "-o/tmp/l" : NULL, "true")
				: PARSE(&o, err, c.name);
		cr_assert_eq(st, POLICY_PARSE_OK, "%s: %s", c.name, err);
		cr_assert_eq(o.command, c.command, "%s", c.name);
		/* what takes nothing refuses a word more */
		if (c.args == POLICY_ARGS_NONE)
			cr_assert_eq(PARSE(&o, err, c.name, "x"), POLICY_PARSE_ERROR, "%s x",
				     c.name);
	}
	cr_assert_eq(n_own, 3); /* profiles, trust, audit */
	cr_assert_geq(n, 10);
	struct policy_options o;
	char err[POLICY_ERR_MAX];
	cr_assert_eq(PARSE(&o, err, "bogus"), POLICY_PARSE_ERROR);
	cr_assert_str_eq(err, "unknown command 'bogus'; expected run, learn, explain, check, "
			      "profiles, trust, audit, help or --version");
}
