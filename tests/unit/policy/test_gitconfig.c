/* tests/unit/policy/test_gitconfig.c: the [user] section of a git
 * configuration, as git reads it, and written back so git reads the same. */
#include <criterion/criterion.h>
#include <string.h>

#include "policy/gitconfig.h"

static struct policy_gitcfg_var vars[16];
static size_t n, line;

static enum policy_gitcfg_status parse(const char *text)
{
	n = 0;
	line = 0;
	return policy_gitconfig_user(text, strlen(text), vars, &n, 16, &line);
}

Test(gitconfig, only_the_user_section)
{
	cr_assert_eq(parse("[core]\n\teditor = vim\n[User]\n\tName = A. Person\n"
			   "\temail = a@example.test\n[credential]\n\thelper = store\n"
			   "[url \"https://tok@host.example/\"]\n\tinsteadOf = https://host.example/\n"),
		     POLICY_GITCFG_OK);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(vars[0].key, "name");
	cr_assert_str_eq(vars[0].value, "A. Person");
	cr_assert_str_eq(vars[1].key, "email");
	cr_assert_str_eq(vars[1].value, "a@example.test");
}

Test(gitconfig, a_subsection_of_user_is_not_user)
{
	cr_assert_eq(parse("[user \"x\"]\n\tname = no\n[user.y]\nname = no\n"), POLICY_GITCFG_OK);
	cr_assert_eq(n, 0);
}

Test(gitconfig, quotes_escapes_comments_and_continuations)
{
	cr_assert_eq(parse("[user] name = \"  spaced \\\"quoted\\\"\" tail # comment\n"
			   "  email = a\\\n@b ; comment\r\n"
			   "\tsigningkey = \"x;y#z\"\n\tuseConfigOnly\n"),
		     POLICY_GITCFG_OK);
	cr_assert_eq(n, 4);
	cr_assert_str_eq(vars[0].value, "  spaced \"quoted\" tail");
	cr_assert_str_eq(vars[1].value, "a@b");
	cr_assert_str_eq(vars[2].key, "signingkey");
	cr_assert_str_eq(vars[2].value, "x;y#z");
	cr_assert_str_eq(vars[3].key, "useconfigonly");
	cr_assert_str_eq(vars[3].value, "true");
}

Test(gitconfig, malformed_stops_and_names_the_line)
{
	cr_assert_eq(parse("[user]\n\tname = ok\n\temail = \"unterminated\n\tname = later\n"),
		     POLICY_GITCFG_MALFORMED);
	cr_assert_eq(line, 3);
	cr_assert_eq(n, 1);
	cr_assert_eq(parse("name = outside\n"), POLICY_GITCFG_MALFORMED);
	cr_assert_eq(parse("[user]\n\tname = a\\q\n"), POLICY_GITCFG_MALFORMED);
	cr_assert_eq(parse("[user\n"), POLICY_GITCFG_MALFORMED);
	cr_assert_eq(parse("[]\n"), POLICY_GITCFG_MALFORMED);
}

Test(gitconfig, format_reads_back_the_same)
{
	cr_assert_eq(parse("[user]\n\tname = \"a\\tb\\\\c\\\"d\\ne\"\n\temail = \" x \"\n"),
		     POLICY_GITCFG_OK);
	char text[512];
	size_t w = policy_gitconfig_format(vars, n, text, sizeof(text));
	cr_assert_gt(w, 0);
	struct policy_gitcfg_var before[16];
	size_t m = n;
	memcpy(before, vars, sizeof(before));
	cr_assert_eq(parse(text), POLICY_GITCFG_OK, "%s", text);
	cr_assert_eq(n, m);
	for (size_t i = 0; i < n; i++) {
		cr_assert_str_eq(vars[i].key, before[i].key);
		cr_assert_str_eq(vars[i].value, before[i].value);
	}
	cr_assert_str_eq(before[1].value, " x ");
}

Test(gitconfig, format_refuses_what_does_not_fit)
{
	cr_assert_eq(parse("[user]\n\tname = someone\n"), POLICY_GITCFG_OK);
	char small[10];
	cr_assert_eq(policy_gitconfig_format(vars, n, small, sizeof(small)), 0);
	cr_assert_str_eq(small, "");
}

Test(gitconfig, too_many)
{
	char text[4096] = "[user]\n";
	for (int i = 0; i < 20; i++)
		strcat(text, "\tname = x\n");
	cr_assert_eq(parse(text), POLICY_GITCFG_TOO_MANY);
	cr_assert_eq(n, 16);
}
