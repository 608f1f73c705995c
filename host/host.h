/* host/host.h: what this host is and offers, looked at before anything runs.
 *
 * ARCHITECTURE: the plan (policy/plan.h) is what the user's options mean on
 * this host: host_resolve() looks at the host (cwd, $HOME, which paths
 * exist, the Unix sockets bound now, git directories, the environment, the
 * resolver, the host's addresses) and fills it; the supervisor then only
 * executes it.  `porta check` (host_check()) and the ceilings' cgroups
 * (host/cgroup.h) are the other questions asked of the host.  Everything
 * here reads the host; nothing here confines or runs anything.
 */
#ifndef PORTA_HOST_HOST_H
#define PORTA_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "policy/options.h"
#include "policy/paths.h"
#include "policy/plan.h"

/* Resolves opts against the host into a new plan.  argv is the argv opts
 * were parsed from, envp porta's own environment.  Returns 0 and sets *out
 * (caller owns, policy_plan_destroy), or -errno with *e filled. */
int host_resolve(const struct policy_options *opts, char *const argv[], char *const envp[],
		 struct policy_plan **out, struct porta_error *e);

/* True when a ceiling of o needs a cgroup (--max-memory-mb; --max-procs when
 * porta runs as root) that porta cannot create on this host; why[cap] then
 * holds one sentence naming the option, what each cgroup version lacks and
 * what would help.  Reads /proc and the cgroup files, creates nothing. */
bool host_ceilings_refusal(const struct policy_options *o, char *why, size_t cap);

/* What a user namespace gives porta on this host. */
enum host_userns_mode {
	HOST_USERNS_FULL,    /* created, and porta's init steps work inside it */
	HOST_USERNS_REFUSED, /* clone/unshare(CLONE_NEWUSER) refused */
	HOST_USERNS_NO_CAPS, /* created, but an init step is refused inside it
			      * (sandbox_ctl_ns_refused(): Ubuntu's AppArmor
			      * restriction, a container's masked /proc) */
};

struct host_userns {
	enum host_userns_mode mode;
	int err;        /* the refusal's errno (not FULL) */
	char step[128]; /* NO_CAPS: the step refused, as porta's init names it */
};

/* Probes, in forked children, what porta's clone and init would meet: the
 * namespaces unshared, the id maps written, / made private, a fresh /proc
 * and a tmpfs mounted in a new PID namespace.  Costs two forks: for check,
 * explain and learn, not run's hot path (run learns the same from init's
 * first failure, supervisor/run.c). */
void host_userns_probe(struct host_userns *out);

/* What else the advice depends on: the host's settings and marks. */
struct host_userns_facts {
	struct host_userns ns;
	long apparmor_restrict;         /* kernel.apparmor_restrict_unprivileged_userns, or -1 */
	long unprivileged_userns_clone; /* kernel.unprivileged_userns_clone (Debian), or -1 */
	long max_user_namespaces;       /* user.max_user_namespaces, or -1 */
	int seccomp;                    /* "Seccomp:" of /proc/self/status: 2 = a filter */
	const char *container;          /* "Docker", "Podman", "a container" or NULL */
};

/* Reads the facts for ns from /proc and the container marks. */
void host_userns_facts(const struct host_userns *ns, struct host_userns_facts *f);

/* Calls emit once per sentence of advice (without "porta: "): what refuses
 * the full sandbox here, what would give it (the AppArmor profile at
 * apparmor_file where Ubuntu's restriction is on; a container's flags), and
 * that porta runs degraded by itself otherwise.  Nothing for
 * HOST_USERNS_FULL.  Returns the number of sentences.  Pure. */
size_t host_userns_advice(const struct host_userns_facts *f, const char *apparmor_file,
			  void (*emit)(const char *line, void *arg), void *arg);

/* host_userns_probe() says HOST_USERNS_FULL. */
bool host_userns_available(void);

/* `porta check`: probes the host and prints each primitive to out, as text or
 * JSON.  Returns 0 when porta can run here, 1 when it cannot. */
int host_check(FILE *out, bool json);

/* ---- links (host/links.c) ------------------------------------------------
 * The rule for every path porta grants or reads on the user's behalf (-v,
 * --caches, --env-file, --profile PATH, .porta, --audit): followed through
 * its links, it may not land in a place porta closes (policy_closed_place():
 * credentials, --deny-read, porta's configuration, a protected name, the
 * strict home) unless the name itself already lies there (reopening a closed
 * place takes naming it).  A link elsewhere keeps working. */

#define HOST_LINKS_DENY_MAX 64

struct host_links {
	struct policy_closed_places named, real; /* the places, as named and as real */
	/* malloc'd, NULL when none: four PATH_MAX arrays here were four pages
	 * of every start's stack, written or not (docs/benchmarks/startup.md) */
	char *home_named, *home_real;
	char *config_named, *config_real;
	char *deny_named[HOST_LINKS_DENY_MAX], *deny_real[HOST_LINKS_DENY_MAX];
	size_t n_deny;
};

/* Fills l from the home and porta's configuration directory as named (either
 * may be NULL), deny_read (as given, relative to cwd), strict (--read-policy
 * strict) and preset (the default preset's credentials and protected
 * names); their real paths are looked up here.  0 or -ENOMEM;
 * host_links_release() frees what it holds. */
int host_links_init(struct host_links *l, const char *home, const char *config_dir,
		    const char *cwd, const char *const *deny_read, size_t n_deny, bool strict,
		    bool preset);
void host_links_release(struct host_links *l);

/* True when real (named's realpath, or as far as it exists) lies in a closed
 * place that named does not: why[cap] then names the link, its target and
 * the place, for a 125 message.  Reads the links on the way (lstat,
 * readlink) only to say which. */
bool host_links_refused(const struct host_links *l, const char *named, const char *real,
			char *why, size_t cap);

/* realpath(3) of the deepest part of path (absolute, normalized) that
 * exists, the rest appended as named.  0 or -errno. */
int host_real_path_as_far(const char *path, char *out, size_t cap);

#endif /* PORTA_HOST_HOST_H */
