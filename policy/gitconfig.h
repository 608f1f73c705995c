/* policy/gitconfig.h: the [user] section of a git configuration file, read
 * and written again (pure).
 *
 * ARCHITECTURE: under --read-policy home the home is closed, and git would
 * see no ~/.gitconfig, so commits in the sandbox would have no author.  The
 * resolver reads the host's ~/.gitconfig and $XDG_CONFIG_HOME/git/config,
 * keeps only their user.* values (the identity: name, email, signingKey)
 * and init writes them as the sandbox's ~/.gitconfig (docs/defaults.md, "The
 * home").  Everything else in those files (credential helpers, URL rewrites
 * that carry tokens, aliases that run programs) stays on the host.
 *
 * The syntax is git-config(1)'s "Syntax": sections in brackets, names
 * case-insensitive, `#` and `;` comments, values trimmed, double quotes,
 * the escapes \" \\ \n \t \b, and a backslash before the end of a line
 * continuing the value.  [include] and [includeIf] are not followed.
 */
#ifndef PORTA_POLICY_GITCONFIG_H
#define PORTA_POLICY_GITCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define POLICY_GITCFG_KEY_MAX 64
#define POLICY_GITCFG_VALUE_MAX 1024

struct policy_gitcfg_var {
	char key[POLICY_GITCFG_KEY_MAX];     /* lower case, as git compares it */
	char value[POLICY_GITCFG_VALUE_MAX]; /* decoded; no NUL inside */
};

enum policy_gitcfg_status {
	POLICY_GITCFG_OK,
	POLICY_GITCFG_MALFORMED, /* *line: the first line git would refuse */
	POLICY_GITCFG_TOO_MANY,  /* more user.* variables than cap */
};

/* Appends to out (from *n on, at most cap in all) every variable of the
 * [user] section of text, a file's contents, in the order they appear.  At
 * a line git would refuse it stops: what came before stays in out, and
 * *line (1-based) names it.  A value longer than POLICY_GITCFG_VALUE_MAX - 1
 * counts as malformed.  Pure. */
enum policy_gitcfg_status policy_gitconfig_user(const char *text, size_t len,
						 struct policy_gitcfg_var *out, size_t *n,
						 size_t cap, size_t *line);

/* Writes vars as a configuration file with one [user] section, each value
 * quoted so that git reads back exactly it; the length written, or 0 when
 * it does not fit in cap (out is then "").  Pure. */
size_t policy_gitconfig_format(const struct policy_gitcfg_var *vars, size_t n, char *out,
			       size_t cap);

#endif /* PORTA_POLICY_GITCONFIG_H */
