/* policy/learn.h: `porta learn`, the pure part: the rules a learning run
 * adds to the user's, and the profile written from what the run used
 * (docs/porta.1, LEARNING).
 *
 * ARCHITECTURE: a learning run is a run (src/main.c) with --why on (file
 * refusals traced and answered, supervisor/why.h), an audit of its own,
 * and these catch-all network rules added after the user's: every name
 * and every address on ports 80 and 443 transparently, and on every port
 * through porta's proxies.  They still go through the proxy, the DNS
 * responder and policy_net_decide(), so the address classes no rule
 * reaches (loopback, the host's own, cloud metadata, ...) stay closed and
 * the user's deny rules still win.  After the run policy_learn_write()
 * turns the audit (policy/auditsum.h) and the file answers into a profile:
 * the user's own options, one --allow-net per destination used that none
 * of the user's rules allowed (a wildcard only where many names share a
 * parent that is not a public suffix), the -v and other options that
 * would have allowed each refused file, and what one run could not learn.
 * Nothing here looks at the host; the public-suffix question is the
 * caller's (host side: libpsl).
 */
#ifndef PORTA_POLICY_LEARN_H
#define PORTA_POLICY_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "policy/auditsum.h"
#include "policy/netrule.h"

/* Names under one parent (same port) before they are written as one
 * "*.PARENT" rule. */
#define POLICY_LEARN_FOLD_MIN 4

/* The catch-all rules, comma-joined as --allow-net and --proxy-allow take
 * them: *transparent (NULL when only the proxies are to catch: no network
 * namespace, degraded) and *proxied.  Static strings. */
void policy_learn_catch_all(const char **transparent, const char **proxied);

/* Is name a public suffix ("com", "co.uk")?  The caller's answer. */
typedef bool (*policy_learn_suffix_fn)(const char *name, void *arg);

struct policy_learn_input {
	const struct policy_audit *audit;           /* the learning run's records */
	const struct policy_net_rule *user_rules;   /* the user's own, compiled */
	size_t n_user_rules;
	char *const *user_words; /* the user's own options, as typed (no -o, --why, ...) */
	size_t n_user_words;
	char *const *profiles; /* --profile NAMEs the run used, to be given again */
	size_t n_profiles;
	bool project_file;     /* a trusted .porta applied to the run */
	char *const *command;  /* the command, for the comment at the top */
	size_t n_command;
	const char *const *file_options; /* --why's answers: "-v /dir", "--allow-unix P" */
	size_t n_file_options;
	const char *const *closed; /* refusals no option opens: "read /x (credential path)" */
	size_t n_closed;
	bool transparent; /* the catch-all held ports 80 and 443 transparently */
	const char *cwd;  /* where learn ran: file paths below it are written ./REL */
	const char *home; /* porta's HOME, or NULL: paths below it are written ~/REL */
	policy_learn_suffix_fn public_suffix; /* NULL: no list, never fold */
	/* Whether some public suffix lies strictly below a name ("amazonaws.com"
	 * holds "s3.amazonaws.com"): a wildcard over it would reach names any
	 * customer of that suffix registers.  NULL: not known, never fold. */
	policy_learn_suffix_fn suffix_below;
	void *suffix_arg;
	const char *when; /* "2026-12-02 19:20 UTC" */
};

/* What policy_learn_write() found, for the caller's one-line summary. */
struct policy_learn_counts {
	size_t destinations; /* --allow-net lines written */
	size_t files;        /* file options written */
	size_t refused;      /* destinations refused in the run (listed, learnable or not) */
};

/* Writes the profile to out.  Returns false on ENOMEM (nothing useful
 * written). */
bool policy_learn_write(FILE *out, const struct policy_learn_input *in,
			struct policy_learn_counts *counts);

#endif /* PORTA_POLICY_LEARN_H */
