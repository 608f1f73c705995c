/* policy/degrade.c: see degrade.h. */
#include "policy/degrade.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/path_reason.h"
#include "policy/paths.h"

static bool is_cover(const struct policy_mount_step *m)
{
	return m->kind == POLICY_MOUNT_COVER_DIR || m->kind == POLICY_MOUNT_COVER_FILE;
}

/* A cover inside the full sandbox's fresh /proc.  Here /proc is the host's,
 * and Landlock cannot carve one file out of it: the carve would grant the
 * process directories that exist at start and none made after (a child's
 * /proc/self).  A stated loss, not a carve. */
static bool is_proc_cover(const struct policy_mount_step *m)
{
	return is_cover(m) && m->reason == POLICY_PATH_KERNEL_ADDRESSES;
}

/* The socket rule's covers: host and credential sockets, and the
 * directories where host programs bind them. */
static bool is_socket_cover(const struct policy_mount_step *m)
{
	return policy_mount_closes_socket(m);
}

static bool has_write(const struct policy_rule *r)
{
	return (r->grant & POLICY_GRANT_WRITE) != 0;
}

/* /tmp and /dev/shm are writable in the full sandbox because they are its
 * own filesystems; on a degraded host they are the host's. */
static bool is_replaced_dir(const char *path)
{
	return strcmp(path, "/tmp") == 0 || strcmp(path, "/dev/shm") == 0;
}

/* The writable grants a degraded run keeps: the -v mounts (and /tmp when
 * shared on purpose). */
static const struct policy_rule *writable_over(const struct policy_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		if (!has_write(r) || !policy_path_is_under(r->path, path))
			continue;
		if (is_replaced_dir(r->path) &&
		    !(strcmp(r->path, "/tmp") == 0 && plan->opts->share_tmp))
			continue;
		return r;
	}
	return NULL;
}

static bool say(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool say(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return true;
}

bool policy_degrade_refusal(const struct policy_plan *plan, bool procs_in_cgroup, char *why,
			    size_t cap)
{
	const struct policy_options *o = plan->opts;

	for (size_t i = 0; i < plan->n_net_rules; i++) {
		if (plan->net_rules[i].scope == POLICY_NET_SCOPE_ALL)
			return say(why, cap,
				   "'%s %s' needs a network namespace to catch every connection, and "
				   "user namespaces are refused here: use --proxy-allow/--proxy-deny "
				   "(programs that honour HTTP_PROXY and ALL_PROXY get through porta's "
				   "proxy)",
				   plan->net_rules[i].action == POLICY_NET_ALLOW ? "--allow-net"
										  : "--deny-net",
				   plan->net_rules[i].text);
	}
	if (o->max_procs.set && !procs_in_cgroup)
		return say(why, cap,
			   "--max-procs needs a user namespace (here RLIMIT_NPROC would count "
			   "every process of the user, not only the command's), and user "
			   "namespaces are refused here");
	if (plan->config_real) {
		/* host/resolve.c: reach_config_dir(); escape corpus row 90 */
		const struct policy_rule *w = writable_over(plan, plan->config_real);
		if (!w)
			w = writable_over(plan, plan->config_named);
		if (w)
			return say(why, cap,
				   "porta's configuration %s lies inside the writable mount %s (or is "
				   "reached through it): only a mount namespace can keep the command "
				   "from writing what the next run reads (profiles, trusted project "
				   "files), and user namespaces are refused here; mount a narrower "
				   "directory",
				   plan->config_named, w->path);
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (is_socket_cover(m) || is_proc_cover(m))
			continue; /* decided when the command connects: not a carve */
		bool ro = m->kind == POLICY_MOUNT_READONLY && m->reason == POLICY_PATH_READONLY_MOUNT;
		if (!is_cover(m) && !ro)
			continue;
		const struct policy_rule *w = writable_over(plan, m->path);
		if (!w)
			continue;
		if (ro)
			return say(why, cap,
				   "the read-only mount %s lies inside the writable mount %s: only a "
				   "mount namespace can make it read-only, and user namespaces are "
				   "refused here",
				   m->path, w->path);
		return say(why, cap,
			   "%s (closed: %s) lies inside the writable mount %s: Landlock cannot "
			   "close a path beneath a writable grant, and user namespaces are refused "
			   "here; mount a narrower directory",
			   m->path, policy_path_reason_words(m->reason), w->path);
	}
	return false;
}

void policy_degrade_losses(const struct policy_plan *plan, const char *private_tmp,
			   const char *no_caps, void (*emit)(const char *line, void *arg),
			   void *arg)
{
	const struct policy_options *o = plan->opts;
	char line[1024];
	size_t n_protected = 0;
	const char *first_protected = NULL, *proc_cover = NULL;

	if (no_caps) {
		snprintf(line, sizeof(line),
			 "this host makes user namespaces but refuses porta what it needs inside "
			 "them (%s): porta confines the command with Landlock and seccomp only "
			 "(see 'porta check' for what gives the full sandbox)",
			 no_caps);
		emit(line, arg);
	} else {
		emit("user namespaces are refused on this host: porta confines the command with "
		     "Landlock and seccomp only (see 'porta check')",
		     arg);
	}
	emit("other processes stay visible (no PID namespace): their command lines can be "
	     "read, their memory, environment and files cannot",
	     arg);
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		/* Strictly beneath a writable grant: a writable mount's own
		 * root (pinned in the full sandbox) cannot be renamed away
		 * here either, its parent not being writable. */
		const struct policy_rule *w = writable_over(plan, m->path);
		if ((m->kind == POLICY_MOUNT_READONLY || m->kind == POLICY_MOUNT_PIN) && w &&
		    strcmp(w->path, m->path) != 0) {
			if (!first_protected)
				first_protected = m->path;
			n_protected++;
		}
		/* A socket's cover is no loss: the connect watch decides every
		 * Unix-socket call by rule here too (supervisor/unixsock.h). */
		if (is_proc_cover(m))
			proc_cover = m->path;
	}
	if (n_protected || plan->n_absent_protected) {
		snprintf(line, sizeof(line),
			 "no protected names inside writable mounts (no mount namespace): %zu "
			 "existing ones stay writable and renamable%s%s%s",
			 n_protected, first_protected ? ", e.g. " : "",
			 first_protected ? first_protected : "",
			 plan->n_absent_protected ? ", and absent ones can be created" : "");
		emit(line, arg);
	}
	if (proc_cover) {
		snprintf(line, sizeof(line),
			 "%s stays open (the host's /proc): it shows kernel addresses whenever "
			 "kernel.kptr_restrict is 0 and kernel.perf_event_paranoid is 1 or lower",
			 proc_cover);
		emit(line, arg);
	}
	emit("names stay listable everywhere (/tmp, /dev, closed directories): Landlock's "
	     "right to list a directory reaches every directory beneath it; closed files "
	     "cannot be read",
	     arg);
	if (private_tmp) {
		snprintf(line, sizeof(line),
			 "/tmp is the host's: the command gets TMPDIR=%s (removed afterwards) and "
			 "cannot read or write the rest of /tmp; /dev/shm is closed",
			 private_tmp);
		emit(line, arg);
	}
	emit("no new pseudo-terminals (/dev/pts holds the user's other terminals)", arg);
	if (o->net_mode == POLICY_NET_NONE)
		emit("no private network: TCP connections and listening are refused by Landlock, "
		     "UDP and other protocols by seccomp, loopback included; no DNS responder "
		     "either, so lookups fail as temporary failures and are not reported "
		     "(--audit records nothing)",
		     arg);
	if (o->net_mode == POLICY_NET_POLICY)
		emit("no transparent egress and no DNS: only programs that honour HTTP_PROXY, "
		     "HTTPS_PROXY or ALL_PROXY reach porta's proxy (the only TCP port Landlock "
		     "lets the command dial); UDP is refused, listening too",
		     arg);
	emit("processes the command leaves running are killed when it ends, but survive if "
	     "porta itself is killed (no PID namespace)",
	     arg);
}

/* ---- carving ----------------------------------------------------------- */

struct builder {
	struct policy_rule *v;
	size_t n, cap;
	int err;
	/* closed paths the read grants are carved around */
	const char **closed;
	size_t n_closed;
	policy_lister list;
	void *list_arg;
};

static void add(struct builder *b, const char *path, unsigned grant, bool is_dir)
{
	if (b->err)
		return;
	for (size_t i = 0; i < b->n; i++) {
		if (strcmp(b->v[i].path, path) == 0 && b->v[i].is_dir == is_dir) {
			b->v[i].grant |= grant;
			return;
		}
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		struct policy_rule *v = realloc(b->v, cap * sizeof(*v));
		if (!v) {
			b->err = -ENOMEM;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	char *copy = strdup(path);
	if (!copy) {
		b->err = -ENOMEM;
		return;
	}
	b->v[b->n++] = (struct policy_rule){ .path = copy, .grant = grant, .is_dir = is_dir };
}

static bool closed_exactly(const struct builder *b, const char *path)
{
	for (size_t i = 0; i < b->n_closed; i++) {
		if (strcmp(b->closed[i], path) == 0)
			return true;
	}
	return false;
}

static bool closed_beneath(const struct builder *b, const char *path)
{
	for (size_t i = 0; i < b->n_closed; i++) {
		if (policy_path_is_under(path, b->closed[i]) && strcmp(b->closed[i], path) != 0)
			return true;
	}
	return false;
}

static void carve(struct builder *b, const char *path, unsigned grant, bool is_dir, int depth);

struct carve_ctx {
	struct builder *b;
	const char *dir;
	unsigned grant;
	int depth;
};

static void carve_entry(void *arg, const struct policy_dirent *e)
{
	struct carve_ctx *c = arg;
	char child[4096];

	if (e->is_symlink || c->b->err)
		return;
	if (!policy_path_join(c->dir, e->name, child, sizeof(child))) {
		c->b->err = -ENAMETOOLONG;
		return;
	}
	carve(c->b, child, c->grant, e->is_dir, c->depth + 1);
}

/* Grants path with grant, except the closed paths beneath it: those are
 * left out, and the directories on the way to them get only the right to
 * list. */
static void carve(struct builder *b, const char *path, unsigned grant, bool is_dir, int depth)
{
	if (b->err || closed_exactly(b, path))
		return;
	if (!is_dir || !closed_beneath(b, path)) {
		add(b, path, grant, is_dir);
		return;
	}
	if (depth > 64) { /* deeper than any closed path: nothing granted */
		return;
	}
	add(b, path, POLICY_GRANT_LIST, true);
	struct carve_ctx c = { b, path, grant, depth };
	/* An unlistable directory: its entries stay closed. */
	(void)b->list(b->list_arg, path, carve_entry, &c);
}

int policy_degrade_rules(const struct policy_plan *plan, const char *private_tmp,
			 policy_lister list, void *list_arg, struct policy_rule **out, size_t *n)
{
	const char *closed[256 + 8];
	struct builder b = { .closed = closed, .list = list, .list_arg = list_arg };

	*out = NULL;
	*n = 0;
	/* Closed: every cover (the sockets too: reading them is nothing, but a
	 * cover says the path is closed), and the host's own /dev, /tmp and
	 * /dev/shm, which the full sandbox replaces. */
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		/* A host socket's cover and a closed socket directory are about
		 * connecting, which Landlock does not govern here; a host may
		 * have hundreds of them. */
		if (!is_cover(m) || is_proc_cover(m) ||
		    (is_socket_cover(m) && m->reason != POLICY_PATH_CREDENTIAL_SOCKET))
			continue;
		if (b.n_closed == 256)
			return -E2BIG;
		closed[b.n_closed++] = plan->mounts[i].path;
	}
	closed[b.n_closed++] = "/dev";
	closed[b.n_closed++] = "/dev/shm";
	if (private_tmp)
		closed[b.n_closed++] = "/tmp";

	for (size_t i = 0; i < plan->n_rules && !b.err; i++) {
		const struct policy_rule *r = &plan->rules[i];
		if (strcmp(r->path, "/dev/shm") == 0 || strcmp(r->path, "/dev/pts") == 0 ||
		    strcmp(r->path, "/dev/ptmx") == 0)
			continue;
		if (strcmp(r->path, "/tmp") == 0 && private_tmp) {
			add(&b, private_tmp, r->grant, true);
			continue;
		}
		const struct policy_mount_step *m = policy_plan_find_mount(plan, r->path);
		if (m && m->kind == POLICY_MOUNT_COVER_DIR)
			continue; /* the empty directory of the full sandbox */
		if (has_write(r) || (r->grant & POLICY_GRANT_DEV)) {
			add(&b, r->path, r->grant, r->is_dir);
			continue;
		}
		carve(&b, r->path, r->grant, r->is_dir, 0);
	}
	if (b.err) {
		policy_degrade_rules_free(b.v, b.n);
		return b.err;
	}
	*out = b.v;
	*n = b.n;
	return 0;
}

void policy_degrade_rules_free(struct policy_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rules[i].path);
	free(rules);
}
