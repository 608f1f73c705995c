/* src/learn_cmd.h: `porta learn` (docs/porta.1, LEARNING) around the run
 * src/main.c makes: what is added to the user's options before the plan
 * is resolved (policy/learn.h: the catch-all rules, an audit of the run's
 * own, --why), and the profile written once the command has ended. */
#ifndef PORTA_SRC_LEARN_CMD_H
#define PORTA_SRC_LEARN_CMD_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy/netrule.h"
#include "policy/options.h"
#include "supervisor/supervisor.h"

struct porta_learn {
	int audit_fd;           /* a memfd holding the run's audit, or -1 */
	char audit_path[64];    /* "/proc/self/fd/N": where the supervisor opens it */
	const char *user_audit; /* the user's own --audit, read from user_audit_from */
	off_t user_audit_from;
	struct policy_net_rule *user_rules; /* the user's rules, before the catch-all */
	size_t n_user_rules;
	bool transparent; /* ports 80 and 443 caught transparently (user namespaces) */
	int out_dir;      /* -o's directory, opened before the run (O_PATH), or -1 */
	char out_name[256]; /* -o's last component, made in out_dir after the run */
};

/* Before the plan is resolved: refuses an -o FILE that exists or whose
 * directory does not, compiles the user's own rules, then adds the
 * catch-all rules and the audit to *opts and turns --why on.  0, or 125
 * after saying why. */
int porta_learn_prepare(struct porta_learn *l, struct policy_options *opts);

/* After the run: reads the audit, writes the profile to -o FILE (never
 * over a file: one made meanwhile leaves the profile on stderr instead)
 * and says so in one line.  argv[2..cmd_index) are the user's own words
 * as typed (before any profile was merged); profiles and project_file say
 * what else the run used.  0, or 125 when no profile could be written. */
int porta_learn_finish(struct porta_learn *l, const struct policy_options *opts, char *const argv[],
		       int cmd_index, bool project_file, const struct supervisor_result *r);

/* Frees what prepare allocated; closes the memfd. */
void porta_learn_release(struct porta_learn *l);

#endif /* PORTA_SRC_LEARN_CMD_H */
