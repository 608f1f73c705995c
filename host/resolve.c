/* host/resolve.c: options -> plan, against this host (see sandbox.h).
 *
 * Everything here happens before clone, so that every failure is reported
 * before anything runs (docs/design.md, Set-up order).  The order in which mount
 * steps are appended is the order init performs them:
 *   /proc, private /tmp (+ -v paths under it bound back), /dev/shm,
 *   /proc/sys read-only, writable roots pinned, .git pinned, protected names
 *   read-only, :ro mounts inside writable ones read-only, covers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <limits.h>
#include <pwd.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/trace.h"
#include "dns/resolvconf.h"
#include "dns/upstream.h"
#include "policy/landlock.h"
#include "policy/path_reason.h"
#include "policy/caches.h"
#include "policy/gitconfig.h"
#include "policy/paths.h"
#include "policy/preset.h"
#include "policy/unixrule.h"
#include "policy/textparse.h"
#include "host/addrs.h"
#include "host/host.h"
#include "host/profiles.h"
#include "sandbox/netinit.h"
#include "sandbox/sandbox.h"

/* -v or --allow-unix naming a porta runtime directory (policy/unixrule.h). */
#define RUNTIME_REFUSED                                                          \
	"that is a porta runtime directory (the control sockets of porta's runs), " \
	"never reachable from a sandbox"

/* State while resolving: the writable roots, for "inside a writable mount". */
/* the built-in places (policy_home_visible()) and the project, per home */
#define HOME_SHOWN_MAX 64
/* user.* values kept for the sandbox's ~/.gitconfig */
#define HOME_GITCFG_MAX 32

struct resolver {
	const struct policy_options *o;
	struct policy_plan *plan;
	struct porta_error *e;
	char *writable[POLICY_MAX_LIST + 2 + POLICY_MAX_CACHES];
	size_t n_writable;
	char *ro[POLICY_MAX_LIST];
	size_t n_ro;
	/* --read-policy home: what the closed home shows read-only besides the
	 * mounts (the project, the built-in places), never a reopening of a
	 * closed path (reopen_beneath() reads writable and ro only) */
	char *shown[HOME_SHOWN_MAX];
	size_t n_shown;
	size_t n_git_modules; /* submodule git directories protected so far */
	struct dirlist *lists; /* directories read once (may_exist()) */
	size_t n_lists;
	char config_dir[PATH_MAX];   /* porta's configuration, its real path; "" if none */
	char config_named[PATH_MAX]; /* the same as the next run names it; "" if none */
	bool config_exists;          /* config_dir is its real path */
	struct host_links links;     /* closed places, for grants through links */
};

/* host_resolve()'s steps, each with a frame of its own.  Inlined, as GCC
 * inlines a static function called once, their PATH_MAX buffers were all in
 * host_resolve()'s frame (70 KiB, -fstack-usage), beneath which the deepest
 * step's calls went on; -fstack-clash-protection probes every page of a frame
 * on entry, so each of those pages was faulted in at every start, some 12 us
 * each on the VM measured (docs/benchmarks/startup.md).  Apart, the steps use
 * one stretch of the stack one after the other. */
static __attribute__((noinline)) int resolve_home(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int resolve_config_dir(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int init_links(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int add_mount_grants(struct resolver *r);
static __attribute__((noinline)) int add_caches(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int add_base_grants(struct resolver *r);
static __attribute__((noinline)) int reach_config_dir(struct resolver *r);
static __attribute__((noinline)) int add_replaced_filesystems(struct resolver *r,
								char *const envp[]);
static __attribute__((noinline)) int close_home(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int home_gitconfig(struct resolver *r, char *const envp[],
						      const char *home);
static __attribute__((noinline)) int add_closed_paths(struct resolver *r);
static __attribute__((noinline)) int add_protection(struct resolver *r);
static __attribute__((noinline)) int protect_installation(struct resolver *r);
static __attribute__((noinline)) int add_closed_sockets(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int add_env(struct resolver *r, char *const envp[]);
static __attribute__((noinline)) int add_network(struct resolver *r);
static __attribute__((noinline)) int check_audit_path(struct resolver *r);

/* What a directory held when resolve first asked: one getdents(2) where a
 * stat(2) per name would be dozens (the preset names some 80 credential
 * paths and 45 protected names, most of them absent on any host). */
struct dirlist {
	char *dir;
	char **names; /* sorted */
	size_t n;
	bool known; /* listed (or absent); false: could not be read, ask stat(2) */
};

#define DIRLIST_MAX 64
#define DIRLIST_MAX_NAMES 4096

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dirlist_fill(struct dirlist *l)
{
	DIR *d = opendir(l->dir);
	size_t cap = 0;

	if (!d) {
		l->known = errno == ENOENT || errno == ENOTDIR; /* nothing there */
		return;
	}
	l->known = true;
	for (struct dirent *de; (de = readdir(d));) {
		if (l->n == DIRLIST_MAX_NAMES) {
			l->known = false;
			break;
		}
		if (l->n == cap) {
			char **nv = realloc(l->names, (cap = cap ? cap * 2 : 32) * sizeof(char *));
			if (!nv) {
				l->known = false;
				break;
			}
			l->names = nv;
		}
		if (!(l->names[l->n] = strdup(de->d_name))) {
			l->known = false;
			break;
		}
		l->n++;
	}
	closedir(d);
	qsort(l->names, l->n, sizeof(char *), cmp_entry);
}

/* False when path certainly does not exist now (the directory above it,
 * read once, lacks its name, or is absent); true when it may (then the
 * caller's own stat(2) decides).  Only an optimisation: never a reason to
 * treat a path as present. */
static bool may_exist(struct resolver *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path || !slash[1])
		return true;
	size_t dlen = (size_t)(slash - path);
	struct dirlist *l = NULL;
	for (size_t i = 0; i < r->n_lists && !l; i++) {
		if (strlen(r->lists[i].dir) == dlen && memcmp(r->lists[i].dir, path, dlen) == 0)
			l = &r->lists[i];
	}
	if (!l) {
		if (r->n_lists == DIRLIST_MAX)
			return true;
		if (!r->lists && !(r->lists = calloc(DIRLIST_MAX, sizeof(*r->lists))))
			return true;
		char *dir = strndup(path, dlen);
		if (!dir)
			return true;
		/* A directory its own parent's listing lacks is absent: known
		 * without a call (~/.codex on a host without Codex). */
		bool absent = !may_exist(r, dir);
		if (r->n_lists == DIRLIST_MAX) {
			free(dir);
			return !absent;
		}
		l = &r->lists[r->n_lists++];
		l->dir = dir;
		if (absent)
			l->known = true;
		else
			dirlist_fill(l);
	}
	if (!l->known)
		return true;
	const char *name = slash + 1;
	return l->n && bsearch(&name, l->names, l->n, sizeof(char *), cmp_entry) != NULL;
}

static void dirlists_free(struct resolver *r)
{
	for (size_t i = 0; i < r->n_lists; i++) {
		for (size_t k = 0; k < r->lists[i].n; k++)
			free(r->lists[i].names[k]);
		free(r->lists[i].names);
		free(r->lists[i].dir);
	}
	free(r->lists);
}

static bool under_any(char *const *dirs, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		if (policy_path_is_under(dirs[i], path))
			return true;
	}
	return false;
}

static bool strictly_under_any(char *const *dirs, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		if (policy_path_is_under(dirs[i], path) && strcmp(dirs[i], path) != 0)
			return true;
	}
	return false;
}

/* Is path hidden by a filesystem the sandbox puts in place (the private /tmp,
 * the covered home of strict reads), and not bound back by a -v mount? */
static bool hidden_in_sandbox(const struct resolver *r, const char *path)
{
	bool hidden = false;

	for (size_t i = 0; i < r->plan->n_mounts && !hidden; i++) {
		const struct policy_mount_step *m = &r->plan->mounts[i];
		hidden = (m->kind == POLICY_MOUNT_TMPFS || m->kind == POLICY_MOUNT_COVER_DIR) &&
			 policy_path_is_under(m->path, path);
	}
	return hidden && !under_any(r->writable, r->n_writable, path) &&
	       !under_any(r->ro, r->n_ro, path) && !under_any(r->shown, r->n_shown, path);
}

/* Is path readable in the sandbox by Landlock rules (before covers)? */
static bool readable(const struct resolver *r, const char *path)
{
	if (r->o->read_mode != POLICY_READ_STRICT)
		return true;
	for (size_t i = 0; i < r->plan->n_rules; i++) {
		if ((r->plan->rules[i].grant & (POLICY_GRANT_READ | POLICY_GRANT_WRITE)) &&
		    policy_path_is_under(r->plan->rules[i].path, path))
			return true;
	}
	return false;
}

static int resolve_home(struct resolver *r, char *const envp[])
{
	const char *home = host_env_get(envp, "HOME");

	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return 0;
	char *real = realpath(home, NULL);
	r->plan->home = real ? real : strdup(home);
	return r->plan->home ? 0 : -ENOMEM;
}

/* Resolves a user-given path (relative to cwd) through symlinks; it must
 * exist.  Returns a malloc'd absolute path or NULL with errno set. */
static char *real_path(const char *cwd, const char *path, size_t len)
{
	char norm[PATH_MAX];

	if (policy_path_normalize(cwd, path, len, norm, sizeof(norm)) == 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return realpath(norm, NULL);
}

/* porta's configuration directory (host/profiles.h), as named and its real
 * path when it exists: closed to the sandbox (add_closed_paths()). */
static int resolve_config_dir(struct resolver *r, char *const envp[])
{
	char dir[PATH_MAX];
	if (host_config_dir(envp, dir, sizeof(dir)) < 0) {
		if (!r->plan->home ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/.config/porta", r->plan->home) >=
			    sizeof(dir))
			return 0;
	}
	if (!policy_path_normalize("/", dir, strlen(dir), r->config_named,
				   sizeof(r->config_named)))
		return 0;
	char *real = realpath(r->config_named, NULL);
	r->config_exists = real != NULL;
	snprintf(r->config_dir, sizeof(r->config_dir), "%s", real ? real : r->config_named);
	free(real);
	return 0;
}


/* The closed places, as named and as real, for the grants through links
 * (host_links_refused()). */
static int init_links(struct resolver *r, char *const envp[])
{
	const struct policy_options *o = r->o;
	const char *home = host_env_get(envp, "HOME");
	if (!home || home[0] != '/')
		home = r->plan->home;
	int rc = host_links_init(&r->links, home, r->config_named[0] ? r->config_named : NULL,
				 r->plan->cwd, o->deny_read.v, o->deny_read.n,
				 o->read_mode != POLICY_READ_OPEN, o->preset == POLICY_PRESET_DEFAULT);

	return rc ? porta_fail(r->e, "resolve", NULL, -rc, NULL) : 0;
}

static int add_mount_grants(struct resolver *r)
{
	const struct policy_options *o = r->o;

	for (size_t i = 0; i < o->n_mounts; i++) {
		const struct policy_mount *m = &o->mounts[i];
		char shown[PATH_MAX];
		snprintf(shown, sizeof(shown), "%.*s", (int)m->path_len, m->path);
		_cleanup_free_ char *real = real_path(r->plan->cwd, m->path, m->path_len);
		if (!real)
			return porta_fail(r->e, "--mount", shown, errno,
					    "give a directory or file that exists");
		char named[PATH_MAX], why[3 * PATH_MAX];
		if (policy_path_normalize(r->plan->cwd, m->path, m->path_len, named, sizeof(named)) &&
		    host_links_refused(&r->links, named, real, why, sizeof(why)))
			return porta_fail(r->e, "--mount", shown, 0, "%s", why);
		if (r->config_dir[0] && policy_path_is_under(r->config_dir, real))
			return porta_fail(r->e, "--mount", shown, 0,
					  "that is porta's own configuration (%s: profiles, trusted "
					  "project files), closed to every sandbox so that no command "
					  "can widen its own next run",
					  r->config_dir);
		if (policy_unix_in_porta_runtime(real, getenv("XDG_RUNTIME_DIR")))
			return porta_fail(r->e, "--mount", shown, 0, "%s", RUNTIME_REFUSED);
		struct stat st;
		if (stat(real, &st) < 0)
			return porta_fail(r->e, "--mount", shown, errno, NULL);
		unsigned grant = m->read_only ? POLICY_GRANT_READ
					      : POLICY_GRANT_READ | POLICY_GRANT_WRITE;
		int rc = policy_plan_add_rule(r->plan, real, grant, S_ISDIR(st.st_mode));
		if (rc)
			return porta_fail(r->e, "--mount", shown, -rc, NULL);
		if (m->read_only)
			r->ro[r->n_ro++] = steal_ptr(&real);
		else
			r->writable[r->n_writable++] = steal_ptr(&real);
	}
	return 0;
}

/* mkdir -p for a cache: each directory made 0700 (a cache is the user's
 * own); a lock file is made empty, 0600.  0 or -errno. */
static int make_cache(const char *path, bool is_file)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (is_file) {
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	}
	return mkdir(p, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/* --caches: each cache directory (policy/caches.h) granted like -v DIR,
 * made first when the command is to run (explain makes nothing: it lists
 * the absent ones as such). */
static int add_caches(struct resolver *r, char *const envp[])
{
	struct policy_plan *plan = r->plan;
	const char *bad = NULL;
	size_t n;

	if (!r->o->caches)
		return 0;
	plan->caches = calloc(POLICY_MAX_CACHES, sizeof(*plan->caches));
	if (!plan->caches)
		return porta_fail(r->e, "--caches", NULL, ENOMEM, NULL);
	enum policy_caches_status st = policy_caches(plan->home, envp, plan->caches, &n, &bad);
	if (st != POLICY_CACHES_OK)
		return porta_fail(r->e, "--caches", bad, 0, "%s", policy_caches_reason(st));
	plan->n_caches = n;
	for (size_t i = 0; i < n; i++) {
		struct policy_cache_dir *c = &plan->caches[i];
		int rc;
		/* A link at a cache path, or on the way to one into a closed
		 * place, may be an earlier run's (a command that could write the
		 * home): not followed, that cache is left out. */
		char real_far[PATH_MAX], why[3 * PATH_MAX];
		struct stat lst;
		if (lstat(c->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
			char target[PATH_MAX];
			ssize_t tn = readlink(c->path, target, sizeof(target) - 1);
			target[tn < 0 ? 0 : tn] = '\0';
			policy_plan_add_warning(plan,
						"--caches: %s is a symbolic link (to %s): porta does not "
						"follow a link at a cache path, so the %s cache is left "
						"out; make it a directory to have it",
						c->path, target, c->tool);
			c->absent = true;
			c->skipped = true;
			continue;
		}
		if (host_real_path_as_far(c->path, real_far, sizeof(real_far)) == 0 &&
		    host_links_refused(&r->links, c->path, real_far, why, sizeof(why))) {
			policy_plan_add_warning(plan, "--caches: the %s cache is left out: %s", c->tool,
						why);
			c->absent = true;
			c->skipped = true;
			continue;
		}
		if (r->o->command == POLICY_CMD_EXPLAIN) {
			c->absent = access(c->path, F_OK) < 0;
			if (c->absent)
				continue;
		} else if ((rc = make_cache(c->path, c->is_file))) {
			return porta_fail(r->e, "--caches: make", c->path, -rc, "the %s cache", c->tool);
		}
		_cleanup_free_ char *real = realpath(c->path, NULL);
		struct stat st_c;
		if (!real || stat(real, &st_c) < 0)
			return porta_fail(r->e, "--caches", c->path, errno, "the %s cache", c->tool);
		/* a link that leads to the home or above: refused like the variable */
		if (plan->home && policy_path_is_under(real, plan->home))
			return porta_fail(r->e, "--caches", c->path, 0,
					  "leads to %s, the home or above it: --caches would make all "
					  "of it writable", real);
		if ((rc = policy_plan_add_rule(plan, real, POLICY_GRANT_READ | POLICY_GRANT_WRITE,
					       S_ISDIR(st_c.st_mode))))
			return porta_fail(r->e, "--caches", c->path, -rc, NULL);
		r->writable[r->n_writable++] = steal_ptr(&real);
	}
	return 0;
}

static int add_rebinds(struct resolver *r, const char *dir, enum policy_path_reason reason);

/* A writable mount that holds porta's configuration directory, or a
 * directory or link on the way to it, would let the command write what
 * the next run reads: a profile, a trusted project file (escape corpus row
 * 90).  So that directory is closed however it is reached: absent, `run`
 * makes it first (0700, empty, as `porta trust` does), to be covered like
 * one that exists (add_closed_paths()); the directories on the way are
 * pinned and their links guarded (protect_config_dir()).  Called once the
 * writable grants are known. */
static int reach_config_dir(struct resolver *r)
{
	struct policy_plan *plan = r->plan;
	char far[PATH_MAX];
	int rc;

	/* nothing writable, nothing to reach it: no lookup on start-up's path */
	if (!r->config_named[0] || (!r->n_writable && !r->o->share_tmp))
		return 0;
	if (r->config_exists)
		snprintf(far, sizeof(far), "%s", r->config_dir);
	else if (host_real_path_as_far(r->config_named, far, sizeof(far)) < 0)
		return 0;
	if (r->o->share_tmp &&
	    (policy_path_is_under("/tmp", far) || policy_path_is_under("/tmp", r->config_named)))
		return porta_fail(r->e, "--share-tmp", NULL, 0,
				  "porta's configuration directory %s lies in /tmp, which --share-tmp "
				  "makes writable to the command: it could write what the next run "
				  "reads (profiles, trusted project files); set XDG_CONFIG_HOME "
				  "elsewhere, or drop --share-tmp",
				  r->config_named);
	if (!under_any(r->writable, r->n_writable, far) &&
	    !under_any(r->writable, r->n_writable, r->config_named))
		return 0;
	plan->config_named = strdup(r->config_named);
	plan->config_real = strdup(far);
	if (!plan->config_named || !plan->config_real)
		return porta_fail(r->e, "porta's configuration", NULL, ENOMEM, NULL);
	if (r->config_exists)
		return 0;
	if (r->o->command == POLICY_CMD_EXPLAIN) {
		plan->config_absent = true; /* explain says run makes it */
		return 0;
	}
	if ((rc = make_cache(r->config_named, false)))
		return porta_fail(r->e, "porta's configuration directory", r->config_named, -rc,
				  "a writable mount holds where it would be, so the command could "
				  "make it and write what the next run reads; make it yourself "
				  "(mkdir -p -m 700 %s) or mount a narrower directory",
				  r->config_named);
	char *real = realpath(r->config_named, NULL);
	if (!real)
		return porta_fail(r->e, "porta's configuration directory", r->config_named, errno,
				  NULL);
	snprintf(r->config_dir, sizeof(r->config_dir), "%s", real);
	free(plan->config_real);
	plan->config_real = real;
	return 0;
}

static int add_base_grants(struct resolver *r)
{
	static const char *const devices[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/tty", "/dev/ptmx", "/dev/pts",
	};
	struct policy_plan *plan = r->plan;
	struct stat st;
	int rc = 0;

	if (r->o->read_mode != POLICY_READ_STRICT) {
		/* home: the home is closed by a cover (close_home()), not here */
		rc = policy_plan_add_rule(plan, "/", POLICY_GRANT_READ, true);
	} else {
		size_t n;
		const char *const *list = policy_strict_readable(&n);
		for (size_t i = 0; i < n && rc == 0; i++) {
			_cleanup_free_ char *real = realpath(list[i], NULL);
			if (real && stat(real, &st) == 0)
				rc = policy_plan_add_rule(plan, real, POLICY_GRANT_READ,
							  S_ISDIR(st.st_mode));
		}
	}
	/* /tmp: the private tmpfs (or, with --share-tmp, the host's).  The
	 * rule is on the host directory's inode; Landlock walks from a file in
	 * the tmpfs up through its mount point, so the rule covers it. */
	if (rc == 0)
		rc = policy_plan_add_rule(plan, "/tmp", POLICY_GRANT_READ | POLICY_GRANT_WRITE,
					  true);
	/* A private /dev: the host's holds every device (disks, consoles and
	 * their screens, other terminals, /dev/kvm, /dev/fuse, ...), which a
	 * read grant on / or /dev would open to the command, and as root
	 * without any capability where the owner's mode bits allow.  Only the
	 * devices it is granted are bound back. */
	if (rc == 0 && stat("/dev", &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_TMPFS, "/dev", POLICY_PATH_PRIVATE_DEV);
		for (size_t i = 0; i < ARRAY_LEN(devices) && rc == 0; i++) {
			if (stat(devices[i], &st) == 0 && S_ISCHR(st.st_mode) &&
			    strcmp(devices[i], "/dev/ptmx") != 0)
				rc = policy_plan_add_mount(plan, POLICY_MOUNT_REBIND, devices[i],
							   POLICY_PATH_DEVICE);
		}
		if (rc == 0)
			rc = add_rebinds(r, "/dev", POLICY_PATH_UNDER_DEV);
	}
	if (rc == 0 && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = policy_plan_add_rule(plan, "/dev/shm", POLICY_GRANT_READ | POLICY_GRANT_WRITE,
					  true);
		if (rc == 0)
			rc = policy_plan_add_mount(plan, POLICY_MOUNT_TMPFS, "/dev/shm",
						   POLICY_PATH_PRIVATE_SHM);
	}
	if (rc == 0 && stat("/dev/pts", &st) == 0 && S_ISDIR(st.st_mode) &&
	    stat("/dev/ptmx", &st) == 0)
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_DEVPTS, "/dev/pts",
					   POLICY_PATH_OWN_TERMINALS);
	for (size_t i = 0; i < ARRAY_LEN(devices) && rc == 0; i++) {
		if (stat(devices[i], &st) == 0)
			rc = policy_plan_add_rule(plan, devices[i],
						  POLICY_GRANT_READ | POLICY_GRANT_DEV,
						  S_ISDIR(st.st_mode));
	}
	if (rc)
		return porta_fail(r->e, "policy", NULL, -rc, NULL);
	return 0;
}

/* Every -v path strictly beneath dir, which the sandbox replaces by an empty
 * filesystem, is bound back at its own path. */
static int add_rebinds(struct resolver *r, const char *dir, enum policy_path_reason reason)
{
	int rc = 0;

	for (size_t pass = 0; pass < 2 && rc == 0; pass++) {
		char *const *v = pass == 0 ? r->writable : r->ro;
		size_t n = pass == 0 ? r->n_writable : r->n_ro;
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (policy_path_is_under(dir, v[i]) && strcmp(v[i], dir) != 0)
				rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_REBIND, v[i], reason);
		}
	}
	return rc;
}

/* A variable's value, as getenv(3) finds it (host_env_get()); NULL when
 * unset or empty. */
static const char *env_get(char *const envp[], const char *name)
{
	const char *v = host_env_get(envp, name);
	return v && v[0] ? v : NULL;
}

/* Under --read-policy home and strict the home is closed.  Landlock alone
 * would answer EACCES for ~/.gitconfig, which git (and others) treat as
 * fatal; an empty read-only directory answers ENOENT, as for any closed
 * directory (docs/defaults.md), with what is granted beneath it bound back. */
static bool home_is_covered(const struct resolver *r, const char *home)
{
	struct stat st;

	if (r->o->read_mode == POLICY_READ_OPEN || !home || strcmp(home, "/") == 0 ||
	    stat(home, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	/* A mount at or above the home makes it readable: nothing to cover. */
	if (under_any(r->writable, r->n_writable, home) || under_any(r->ro, r->n_ro, home))
		return false;
	if (r->o->read_mode == POLICY_READ_HOME)
		return true; /* the read grant on / is what the cover closes */
	/* strict: so do the system directories it grants (a home under /usr) */
	for (size_t i = 0; i < r->plan->n_rules; i++) {
		if ((r->plan->rules[i].grant & POLICY_GRANT_READ) &&
		    policy_path_is_under(r->plan->rules[i].path, home))
			return false;
	}
	return true;
}

/* Something in dir marks a project: .git or .porta. */
static bool marks_project(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	return (policy_path_join(dir, ".git", p, sizeof(p)) && lstat(p, &st) == 0) ||
	       (policy_path_join(dir, ".porta", p, sizeof(p)) && lstat(p, &st) == 0);
}

/* The working directory's project in the closed home (docs/defaults.md,
 * "The home"): the nearest directory upward from it, strictly below home,
 * that marks a project, else the working directory itself.  False when the
 * working directory is not below home. */
static bool home_project(const char *home, const char *cwd, char *out, size_t cap)
{
	char dir[PATH_MAX];

	if (!policy_path_is_under(home, cwd) || strcmp(home, cwd) == 0)
		return false;
	snprintf(dir, sizeof(dir), "%s", cwd);
	for (;;) {
		if (marks_project(dir)) {
			snprintf(out, cap, "%s", dir);
			return true;
		}
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (strcmp(dir, home) == 0 || !policy_path_is_under(home, dir))
			break;
	}
	snprintf(out, cap, "%s", cwd);
	return true;
}

/* host_links_refused(), and the warning that path is left out.  Not inlined,
 * and called only for a path that is not its own real path: the 12 KiB
 * message would otherwise be in show_in_home()'s frame, whose pages
 * -fstack-clash-protection probes at each of its 20 calls per start
 * (docs/benchmarks/startup.md). */
static __attribute__((noinline)) bool home_link_refused(struct resolver *r, const char *path,
							 const char *real)
{
	char why[3 * PATH_MAX];

	if (!host_links_refused(&r->links, path, real, why, sizeof(why)))
		return false;
	policy_plan_add_warning(r->plan, "the closed home: %s is left out: %s", path, why);
	return true;
}

/* Shows path (a place in the closed home, named) read-only: bound back
 * into the cover, and a read rule for the degraded sandbox, whose Landlock
 * carves the home out of the grant on /.  Left out when a mount holds it
 * already, or when it is a link into a place porta closes. */
static int show_in_home(struct resolver *r, const char *home, const char *path,
			enum policy_path_reason reason)
{
	struct stat st;

	if (lstat(path, &st) < 0 || under_any(r->writable, r->n_writable, path) ||
	    under_any(r->ro, r->n_ro, path) || under_any(r->shown, r->n_shown, path))
		return 0;
	_cleanup_free_ char *real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0)
		return 0;
	/* A link (on the way) from a place of the home to another: the target
	 * is what would be shown, and nobody named it. */
	if (strcmp(real, path) != 0 && policy_path_is_under(home, real))
		return 0;
	/* Inside a closed place (the working directory in ~/.ssh): its
	 * cover would hide it anyway; showing it would only mislead the
	 * check that the working directory is visible. */
	enum policy_path_reason closed;
	if (policy_closed_place(&r->links.real, real, &closed) &&
	    (closed == POLICY_PATH_CREDENTIAL || closed == POLICY_PATH_DENY_READ ||
	     closed == POLICY_PATH_PORTA_CONFIG))
		return 0;
	/* (host_links_refused() refuses nothing named by its real path) */
	if (strcmp(real, path) != 0 && home_link_refused(r, path, real))
		return 0;
	if (r->n_shown == HOME_SHOWN_MAX)
		return -E2BIG;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	r->shown[r->n_shown++] = copy;
	int rc = policy_plan_add_rule(r->plan, real, POLICY_GRANT_READ, S_ISDIR(st.st_mode));
	return rc ? rc : policy_plan_add_mount(r->plan, POLICY_MOUNT_REBIND, path, reason);
}

/* The sandbox's ~/.gitconfig: the user.* values of the host's
 * $XDG_CONFIG_HOME/git/config and ~/.gitconfig, in the order git reads
 * them (policy/gitconfig.h).  None when -v names ~/.gitconfig (the real
 * one is bound back) or the host has no identity. */
static int home_gitconfig(struct resolver *r, char *const envp[], const char *home)
{
	struct policy_gitcfg_var *vars = NULL;
	size_t n = 0;
	char files[2][PATH_MAX];
	const char *xdg = env_get(envp, "XDG_CONFIG_HOME");
	int rc = 0;

	if (!policy_path_join(home, ".gitconfig", files[1], sizeof(files[1])) ||
	    under_any(r->writable, r->n_writable, files[1]) ||
	    under_any(r->ro, r->n_ro, files[1]))
		return 0;
	if (xdg && xdg[0] == '/')
		snprintf(files[0], sizeof(files[0]), "%s/git/config", xdg);
	else
		snprintf(files[0], sizeof(files[0]), "%s/.config/git/config", home);
	/* Not calloc(3): zeroing the 34 KiB would fault in all its pages at
	 * every start (docs/benchmarks/startup.md); the parser writes each entry
	 * whole before it counts it, and only the n counted are read. */
	if (!(vars = malloc(HOME_GITCFG_MAX * sizeof(*vars))))
		return -ENOMEM;
	for (size_t f = 0; f < 2; f++) {
		_cleanup_fd_ int fd = open(files[f], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20))
			continue;
		_cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
		ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
		if (got < 0)
			continue;
		size_t line = 0;
		enum policy_gitcfg_status s =
			policy_gitconfig_user(text, (size_t)got, vars, &n, HOME_GITCFG_MAX, &line);
		if (s != POLICY_GITCFG_OK)
			policy_plan_add_warning(
				r->plan,
				"the closed home: git's identity is read from %s up to line %zu only (%s); "
				"-v %s:ro shows the real file",
				files[f], line,
				s == POLICY_GITCFG_MALFORMED ? "git would not read that line"
							     : "too many user.* values",
				files[1]);
	}
	if (n > 0) {
		/* What policy_gitconfig_format() writes at most: the header, then
		 * per value a tab, the key, ` = "`, each byte of the value escaped
		 * to at most two, `"` and a newline; and the NUL. */
		size_t cap = sizeof("[user]\n");
		for (size_t i = 0; i < n; i++)
			cap += 1 + strlen(vars[i].key) + 4 + 2 * strlen(vars[i].value) + 2;
		char *text = malloc(cap);
		if (!text)
			rc = -ENOMEM;
		else if (policy_gitconfig_format(vars, n, text, cap) == 0)
			free(text);
		else
			r->plan->home_gitconfig = text;
	}
	free(vars);
	return rc;
}

/* --read-policy home and strict: each home ($HOME, and under home the
 * passwd entry's directory when it differs) becomes an empty read-only
 * directory (strict's Landlock rules close the passwd home already), and what
 * is granted beneath it is bound back: under home the working directory's
 * project and the built-in places first (policy_home_visible()), then the
 * -v mounts, which may lie inside them. */
static int close_home(struct resolver *r, char *const envp[])
{
	struct policy_plan *plan = r->plan;
	const char *homes[2];
	size_t n_homes = 0;
	int rc = 0;

	if (plan->home)
		homes[n_homes++] = plan->home;
	struct passwd *pw = getpwuid(getuid());
	_cleanup_free_ char *pw_real = pw && pw->pw_dir ? realpath(pw->pw_dir, NULL) : NULL;
	/* One inside the other ($HOME a directory of the passwd home): the
	 * outer cover would hide the inner one; only $HOME is closed then
	 * (docs/defaults.md, "The home"). */
	if (r->o->read_mode == POLICY_READ_HOME && pw_real &&
	    (!plan->home || (!policy_path_is_under(pw_real, plan->home) &&
			     !policy_path_is_under(plan->home, pw_real))))
		homes[n_homes++] = pw_real;

	for (size_t h = 0; h < n_homes && rc == 0; h++) {
		const char *home = homes[h];
		if (!home_is_covered(r, home))
			continue;
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_COVER_DIR, home,
					   POLICY_PATH_HOME_CLOSED);
		/* Listing the empty home shows it empty, as elsewhere. */
		if (rc == 0)
			rc = policy_plan_add_rule(plan, home, POLICY_GRANT_READ, true);
		if (rc == 0 && r->o->read_mode == POLICY_READ_HOME) {
			char project[PATH_MAX];
			if (home_project(home, plan->cwd, project, sizeof(project))) {
				rc = show_in_home(r, home, project, POLICY_PATH_HOME_PROJECT);
				if (rc == 0 && !plan->home_project &&
				    !(plan->home_project = strdup(project)))
					rc = -ENOMEM;
			} else if (policy_path_is_under(plan->cwd, home) && h == 0) {
				rc = policy_plan_add_warning(
					plan, "the working directory %s is the home or above it: nothing of "
					      "the home is shown but the mounts and the places "
					      "docs/defaults.md lists (-v names what the command needs)",
					plan->cwd);
			}
			size_t n;
			const struct policy_home_place *v = policy_home_visible(&n);
			for (size_t i = 0; i < n && rc == 0; i++) {
				char p[PATH_MAX];
				if (policy_path_join(home, v[i].path, p, sizeof(p)))
					rc = show_in_home(r, home, p, POLICY_PATH_HOME_VISIBLE);
			}
			if (rc == 0 && h == 0)
				rc = home_gitconfig(r, envp, home);
		}
		if (rc == 0)
			rc = add_rebinds(r, home, POLICY_PATH_UNDER_HOME);
	}
	return rc;
}

static bool kept_socket(const struct resolver *r, const char *real);
static int bind_back_needed(struct resolver *r, const char *dir);

/* The directories where host programs bind sockets after porta started
 * (policy_socket_dirs()) become empty read-only directories: a socket bound
 * there while the command runs is out of its reach, which no lookup at start
 * could give.  One that the environment names must look like what it claims
 * (the user's own, closed to everyone else: the XDG Base Directory rules for
 * $XDG_RUNTIME_DIR); none may hold the home or the working directory, and a
 * writable mount at or above one keeps it (sockets inside a writable mount
 * stay reachable).  -v mounts beneath one are bound back. */
#define SOCKET_DIRS_MAX 16

static int add_socket_dirs(struct resolver *r, char *const envp[])
{
	/* On the heap: 64 KiB on the stack would be faulted in whole by
	 * -fstack-clash-protection's probes at every start, for the few
	 * entries written (docs/benchmarks/startup.md). */
	_cleanup_free_ char(*dirs)[PATH_MAX] = malloc(SOCKET_DIRS_MAX * sizeof(*dirs));
	const char *xdg = env_get(envp, "XDG_RUNTIME_DIR");
	const char *tmux = env_get(envp, "TMUX_TMPDIR");
	const char *screen = env_get(envp, "SCREENDIR");
	bool hidden[SOCKET_DIRS_MAX] = { false };
	int rc = 0;

	if (!dirs)
		return porta_fail(r->e, "the socket directories", NULL, ENOMEM, NULL);
	size_t n = policy_socket_dirs((unsigned)getuid(), r->o->share_tmp, xdg, tmux, screen, dirs,
				      SOCKET_DIRS_MAX);

	for (size_t i = 0; i < n && rc == 0; i++) {
		struct stat st;
		/* Beneath one closed already (/run/screen under /run): nothing
		 * to look up.  A link in the way (/var/run) is resolved below. */
		bool beneath = false;
		for (size_t k = 0; k < i && !beneath; k++)
			beneath = policy_path_is_under(dirs[k], dirs[i]) && hidden[k];
		if (beneath)
			continue;
		_cleanup_free_ char *real = realpath(dirs[i], NULL);
		/* Whatever lies beneath a candidate the sandbox hides (/var/run,
		 * a link to the /run closed just before) is hidden too. */
		hidden[i] = real && (hidden_in_sandbox(r, real) || policy_plan_find_mount(r->plan, real));
		if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode) || strcmp(real, "/") == 0 ||
		    strcmp(real, "/tmp") == 0)
			continue;
		char tmux_dir[PATH_MAX] = "";
		if (tmux)
			snprintf(tmux_dir, sizeof(tmux_dir), "%s/tmux-%u", tmux, (unsigned)getuid());
		bool from_env = (xdg && strcmp(dirs[i], xdg) == 0) ||
				(screen && strcmp(dirs[i], screen) == 0) ||
				(tmux && strcmp(dirs[i], tmux_dir) == 0);
		if (from_env && (st.st_uid != getuid() || (st.st_mode & 077)))
			continue;
		if ((r->plan->home && policy_path_is_under(real, r->plan->home)) ||
		    policy_path_is_under(real, r->plan->cwd) ||
		    under_any(r->writable, r->n_writable, real) || hidden_in_sandbox(r, real) ||
		    policy_plan_find_mount(r->plan, real))
			continue;
		rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_COVER_DIR, real,
					   POLICY_PATH_SOCKET_DIR);
		if (rc == 0)
			policy_plan_set_last_mount_id(r->plan, st.st_dev, st.st_ino);
		hidden[i] = true;
		if (rc == 0)
			rc = add_rebinds(r, real, POLICY_PATH_UNDER_SOCKET_DIR);
		if (rc == 0)
			rc = bind_back_needed(r, real);
	}
	return rc;
}

/* What a closed socket directory must still show: the name-service files
 * that link into it (systemd-resolved's /etc/resolv.conf links to
 * /run/systemd/resolve/stub-resolv.conf, resolvconf's and NetworkManager's
 * into /run too), and the kept sockets (policy_kept_sockets()) there. */
static int bind_back_needed(struct resolver *r, const char *dir)
{
	static const char *const linked[] = { "/etc/resolv.conf", "/etc/hosts" };
	size_t n_kept;
	const struct policy_kept_socket *kept = policy_kept_sockets(&n_kept);
	int rc = 0;

	for (size_t i = 0; i < ARRAY_LEN(linked) + n_kept && rc == 0; i++) {
		struct stat st;
		char target[8];
		bool file = i < ARRAY_LEN(linked);
		const char *want = file ? linked[i] : kept[i - ARRAY_LEN(linked)].path;
		/* A file resolves into dir only through a link: readlink(2)
		 * says so in one call. */
		if (file ? readlink(want, target, sizeof(target)) < 0
			 : !kept_socket(r, want) || !policy_path_is_under(dir, want) ||
				   stat(want, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		_cleanup_free_ char *real = realpath(want, NULL);
		if (!real || !policy_path_is_under(dir, real) || strcmp(real, dir) == 0 ||
		    stat(real, &st) < 0 || policy_plan_find_mount(r->plan, real))
			continue;
		rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_REBIND, real,
					   file ? POLICY_PATH_NEEDED_FILE : POLICY_PATH_KEPT_SOCKET);
		if (rc == 0 && file)
			rc = policy_plan_add_rule(r->plan, real, POLICY_GRANT_READ, false);
	}
	return rc;
}

static int add_replaced_filesystems(struct resolver *r, char *const envp[])
{
	struct policy_plan *plan = r->plan;
	int rc = policy_plan_add_mount(plan, POLICY_MOUNT_PROC, "/proc", POLICY_PATH_OWN_PROCESSES);

	/* The fresh /proc is the sandbox's processes, but its kallsyms is the
	 * host kernel's: with kernel.kptr_restrict 0 and
	 * kernel.perf_event_paranoid 1 or lower (hosts set up for perf) it
	 * shows every symbol's real address to any reader, CAP_SYSLOG or
	 * not (kernel/kallsyms.c: kallsyms_show_value()), which undoes KASLR
	 * for an exploit.  Those settings can change while the command runs,
	 * so it is closed whatever they are now (escape corpus row 59). */
	if (rc == 0 && access("/proc/kallsyms", F_OK) == 0)
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_COVER_FILE, "/proc/kallsyms",
					   POLICY_PATH_KERNEL_ADDRESSES);

	if (rc == 0 && !r->o->share_tmp) {
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_TMPFS, "/tmp", POLICY_PATH_PRIVATE_TMP);
		if (rc == 0)
			rc = add_rebinds(r, "/tmp", POLICY_PATH_UNDER_TMP);
	} else if (rc == 0) {
		/* A mount of its own, so it stays writable when init makes the
		 * rest read-only (policy_plan_mount_stays_writable()). */
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_PIN, "/tmp", POLICY_PATH_SHARED_TMP);
	}
	if (rc == 0)
		rc = close_home(r, envp);
	if (rc == 0)
		rc = add_socket_dirs(r, envp);
	if (rc == 0)
		rc = policy_plan_add_mount(plan, POLICY_MOUNT_READONLY, "/proc/sys",
					   POLICY_PATH_KERNEL_SETTINGS);
	if (rc)
		return porta_fail(r->e, "policy", NULL, -rc, NULL);
	return 0;
}

static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
	return la < lb ? -1 : la > lb;
}

/* A symbolic link inside a writable mount, on the way to a protected name or
 * the name itself: no mount can keep the link (a bind follows it), so the
 * run's guard watches that it stays this very link (supervisor/guard.h). */
static int guard_link(struct resolver *r, const char *path, const struct stat *st)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return 0;
	target[n] = '\0';
	for (size_t i = 0; i < r->plan->n_links; i++) {
		if (strcmp(r->plan->links[i].path, path) == 0)
			return 0;
	}
	return policy_plan_add_link(r->plan, path, target, (unsigned long long)st->st_dev,
				    (unsigned long long)st->st_ino);
}

/* The kernel refuses to rename a mount point, not a directory that holds
 * one (fs/namei.c: is_local_mountpoint() looks at the renamed dentry only):
 * a read-only bind on .claude/settings.json moves along with `mv .claude x`,
 * and a fresh .claude takes its place.  So every directory between a
 * writable mount's root and a protected name, all the way up (the command
 * can rename an entry wherever its parent is writable), is pinned by a
 * self-bind, parents first.  Stops at the first component that does not
 * exist (the guard watches the deepest one that does) or is a symbolic link
 * (guarded as a link).  Returns 0 or -errno. */
static int pin_parents(struct resolver *r, const char *path)
{
	char p[PATH_MAX];
	size_t len = strlen(path);
	int rc = 0;

	if (len >= sizeof(p))
		return 0;
	memcpy(p, path, len + 1);
	for (size_t i = 1; i < len && rc == 0; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		struct stat st;
		/* Renamable: its parent directory is writable. */
		if (strictly_under_any(r->writable, r->n_writable, p) && !hidden_in_sandbox(r, p)) {
			if (!may_exist(r, p) || lstat(p, &st) < 0)
				return 0; /* absent from here down */
			if (S_ISLNK(st.st_mode))
				return guard_link(r, p, &st);
			if (S_ISDIR(st.st_mode) && !policy_plan_find_mount(r->plan, p) &&
			    (rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_PIN, p,
							POLICY_PATH_PROTECTED_PARENT)) == 0)
				policy_plan_set_last_mount_id(r->plan, st.st_dev, st.st_ino);
		}
		p[i] = '/';
	}
	return rc;
}

/* Adds a read-only step over path if it exists, else records it as absent;
 * pins the directories above it first. */
static int protect_path(struct resolver *r, const char *path)
{
	struct stat st;
	int rc;

	if (policy_plan_find_mount(r->plan, path))
		return 0;
	if (hidden_in_sandbox(r, path))
		return 0; /* under a cover: the sandbox has nothing there */
	if ((rc = pin_parents(r, path)))
		return rc;
	if (!may_exist(r, path))
		return policy_plan_add_absent(r->plan, path);
	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? policy_plan_add_absent(r->plan, path)
							   : 0;
	if (S_ISLNK(st.st_mode)) {
		/* A mount follows the link: it keeps the target read-only, and
		 * the guard keeps the link itself. */
		if (under_any(r->writable, r->n_writable, path) && (rc = guard_link(r, path, &st)))
			return rc;
		_cleanup_free_ char *target = realpath(path, NULL);
		struct stat tst;
		if (!target || stat(target, &tst) < 0 ||
		    !under_any(r->writable, r->n_writable, target) ||
		    policy_plan_find_mount(r->plan, target))
			return 0;
		return policy_plan_add_mount(r->plan, POLICY_MOUNT_READONLY, target,
					     POLICY_PATH_PROTECTED);
	}
	if ((rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_READONLY, path, POLICY_PATH_PROTECTED)))
		return rc;
	policy_plan_set_last_mount_id(r->plan, st.st_dev, st.st_ino);
	return 0;
}

/* porta's configuration directory inside a writable mount
 * (reach_config_dir()): covered, so not writable itself, but a directory
 * on the way could be renamed and made again, and a link on the way
 * repointed, for the next run to find a fresh one.  Every directory on the
 * way, as named and as found, is pinned; a link (the name itself
 * included) is guarded. */
static int protect_config_dir(struct resolver *r)
{
	const char *named = r->plan->config_named, *real = r->plan->config_real;
	struct stat st;
	int rc;

	if (!named)
		return 0;
	if ((rc = pin_parents(r, named)) || (strcmp(named, real) != 0 && (rc = pin_parents(r, real))))
		return rc;
	if (strictly_under_any(r->writable, r->n_writable, named) && lstat(named, &st) == 0 &&
	    S_ISLNK(st.st_mode))
		return guard_link(r, named, &st);
	return 0;
}

/* What the next run executes and reads beside the configuration: porta's
 * own executable and its built-in profiles (host_profile_builtin_dirs()),
 * when a writable mount holds them (PREFIX=~/.local with the home mounted,
 * a build tree inside the project): protected like a protected name, each
 * place for profiles too when absent, since the first that holds a name
 * wins (escape corpus row 90). */
static int protect_installation(struct resolver *r)
{
	char dirs[2][PATH_MAX], exe[PATH_MAX];
	const char *paths[3];
	size_t n = host_profile_builtin_dirs(dirs, exe, sizeof(exe)), k = 0;
	int rc = 0;

	if (n == 0)
		return 0;
	paths[k++] = exe;
	for (size_t i = 0; i < n; i++)
		paths[k++] = dirs[i];
	for (size_t i = 0; i < k && rc == 0; i++) {
		if (strictly_under_any(r->writable, r->n_writable, paths[i]))
			rc = protect_path(r, paths[i]);
	}
	return rc;
}

/* Submodules keep their git directories under .git/modules/NAME (NAME may
 * hold slashes; a submodule's own submodules under NAME/modules/), and git
 * runs their hooks and obeys their config as it does the top one's.  A
 * directory holding HEAD is such a git directory; others are walked into.
 * Bounded: MAX_MODULES git directories, MAX_MODULE_DEPTH levels. */
#define MAX_MODULES 256
#define MAX_MODULE_DEPTH 8

static int protect_git_modules(struct resolver *r, const char *dir, int depth)
{
	char p[PATH_MAX];
	int rc = 0;

	if (depth >= MAX_MODULE_DEPTH)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *de; rc == 0 && (de = readdir(d));) {
		struct stat st;
		if (de->d_name[0] == '.' &&
		    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if (!policy_path_join(dir, de->d_name, p, sizeof(p)) || lstat(p, &st) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		char head[PATH_MAX], sub[PATH_MAX];
		if (policy_path_join(p, "HEAD", head, sizeof(head)) && lstat(head, &st) == 0) {
			if (r->n_git_modules++ >= MAX_MODULES)
				break;
			static const char *const names[] = { "hooks", "config" };
			for (size_t k = 0; k < ARRAY_LEN(names) && rc == 0; k++) {
				if (policy_path_join(p, names[k], sub, sizeof(sub)))
					rc = protect_path(r, sub);
			}
			if (rc == 0 && policy_path_join(p, "modules", sub, sizeof(sub)))
				rc = protect_git_modules(r, sub, depth + 1);
		} else {
			rc = protect_git_modules(r, p, depth + 1);
		}
	}
	closedir(d);
	return rc;
}

/* .git/worktrees/NAME holds each linked worktree's git directory, whose
 * commondir file points git back at the shared config and hooks. */
static int protect_git_worktrees(struct resolver *r, const char *dir)
{
	char p[PATH_MAX], c[PATH_MAX];
	int rc = 0;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	for (struct dirent *de; rc == 0 && n < MAX_MODULES && (de = readdir(d));) {
		struct stat st;
		if (de->d_name[0] == '.' || !policy_path_join(dir, de->d_name, p, sizeof(p)) ||
		    lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    !policy_path_join(p, "commondir", c, sizeof(c)) || lstat(c, &st) < 0)
			continue;
		n++;
		rc = protect_path(r, c);
	}
	closedir(d);
	return rc;
}

/* .git in a writable root: pin the directory (a rename of .git would take
 * the read-only hooks with it and let a fresh .git take its place), then make
 * hooks and config read-only.  A .git file (worktree, submodule) names the
 * real directory; its commondir holds the shared hooks and config. */
static int protect_git(struct resolver *r, const char *root)
{
	char git[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int rc;

	if (!policy_path_join(root, ".git", git, sizeof(git)))
		return 0;
	if (lstat(git, &st) < 0) {
		(void)policy_path_join(git, "hooks", p, sizeof(p));
		rc = policy_plan_add_absent(r->plan, p);
		(void)policy_path_join(git, "config", p, sizeof(p));
		return rc ? rc : policy_plan_add_absent(r->plan, p);
	}
	char *dirs[2] = { NULL, NULL };
	size_t n_dirs = 0;
	_cleanup_free_ char *gitdir = NULL, *common = NULL;
	if (S_ISDIR(st.st_mode)) {
		gitdir = strdup(git);
	} else if (S_ISREG(st.st_mode)) {
		/* The pointer file itself must not be replaced. */
		if ((rc = protect_path(r, git)))
			return rc;
		uint8_t buf[PATH_MAX + 16];
		_cleanup_fd_ int fd = open(git, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
		struct policy_span span;
		if (n > 0 && policy_parse_gitfile(buf, (size_t)n, &span) == POLICY_GITFILE_OK) {
			char norm[PATH_MAX];
			if (policy_path_normalize(root, (const char *)span.p, span.n, norm,
						  sizeof(norm)))
				gitdir = realpath(norm, NULL);
		}
		if (!gitdir)
			return policy_plan_add_note(r->plan, "%s is not a valid gitdir pointer; its hooks are not protected",
						    git);
	} else {
		return 0;
	}
	if (!gitdir)
		return -ENOMEM;
	dirs[n_dirs++] = gitdir;
	if (policy_path_join(gitdir, "commondir", p, sizeof(p))) {
		uint8_t buf[PATH_MAX];
		_cleanup_fd_ int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (n > 0) {
			while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
				n--;
			char norm[PATH_MAX];
			if (n > 0 && !memchr(buf, '\0', (size_t)n) &&
			    policy_path_normalize(gitdir, (const char *)buf, (size_t)n, norm,
						  sizeof(norm)))
				common = realpath(norm, NULL);
			if (common)
				dirs[n_dirs++] = common;
		}
	}
	for (size_t i = 0; i < n_dirs; i++) {
		/* Outside every writable mount, Landlock already refuses writes. */
		if (!under_any(r->writable, r->n_writable, dirs[i]))
			continue;
		if (!policy_plan_find_mount(r->plan, dirs[i]) &&
		    (rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_PIN, dirs[i],
						POLICY_PATH_GIT_DIR)))
			return rc;
		static const char *const names[] = { "hooks", "config" };
		for (size_t k = 0; k < ARRAY_LEN(names); k++) {
			if (policy_path_join(dirs[i], names[k], p, sizeof(p)) &&
			    (rc = protect_path(r, p)))
				return rc;
		}
		if (policy_path_join(dirs[i], "modules", p, sizeof(p)) &&
		    (rc = protect_git_modules(r, p, 0)))
			return rc;
		/* git reads config and hooks from the directory a gitdir's
		 * commondir names (setup.c, get_common_dir_noenv()): a linked
		 * worktree's is there to protect.  The main one's normally is
		 * absent, which explain says (a mount cannot cover it). */
		if (policy_path_join(dirs[i], "commondir", p, sizeof(p)) &&
		    (rc = protect_path(r, p)))
			return rc;
		if (policy_path_join(dirs[i], "worktrees", p, sizeof(p)) &&
		    (rc = protect_git_worktrees(r, p)))
			return rc;
	}
	return 0;
}

/* Repositories and projects below root (`-v ~/code` holding
 * ~/code/group/proj): git runs a repository's hooks and config at the
 * user's next command there, and an editor or agent opened in a project
 * runs its .vscode tasks, .claude settings, .envrc (escape corpus rows 93
 * and 103).  A directory is a project when it holds .git, .porta or a
 * build manifest; each gets protect_git() and the preset's names that
 * exist in it at start (absent ones are not watched below the root: that
 * would cost a watch per name and project).  The walk goes PROJECT_DEPTH
 * levels down through the directories that are no project (a project's
 * own tree is its own: walk_projects()), skips dot-directories and what
 * the sandbox hides, and stops after MAX_DIRS_WALKED directories or
 * MAX_PROJECTS_BELOW projects; past either, and when directories lie
 * deeper than it looked, run says so once for the mount. */
#define PROJECT_DEPTH 3
#define MAX_PROJECTS_BELOW 128
#define MAX_DIRS_WALKED 1024

static const char *const project_marks[] = {
	".git", ".porta", "package.json", "Cargo.toml", "go.mod", "pyproject.toml", "setup.py",
	"pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "CMakeLists.txt",
	"meson.build", "Makefile", "deno.json",
};

struct project_walk {
	const char *root;
	size_t dirs, projects;
	bool deeper, stopped;
};

static bool is_project_mark(const char *name)
{
	for (size_t i = 0; i < sizeof(project_marks) / sizeof(project_marks[0]); i++)
		if (strcmp(name, project_marks[i]) == 0)
			return true;
	return false;
}

static int protect_project(struct resolver *r, const char *dir)
{
	size_t n;
	const char *const *names = policy_preset_protected(&n);
	char p[PATH_MAX];
	struct stat st;
	int rc = protect_git(r, dir);

	for (size_t k = 0; k < n && rc == 0; k++) {
		if (strncmp(names[k], ".git/", 5) == 0)
			continue; /* protect_git's */
		if (policy_path_join(dir, names[k], p, sizeof(p)) && lstat(p, &st) == 0)
			rc = protect_path(r, p);
	}
	return rc;
}

/* dir, at depth levels below the root (0: the root itself, which
 * protect_names_in() covers): one read of its entries says whether it is
 * a project and which subdirectories to go on into. */
static int walk_projects(struct resolver *r, struct project_walk *w, const char *dir, int depth)
{
	char p[PATH_MAX];
	char **subs = NULL;
	size_t n_subs = 0, cap = 0;
	bool project = false;
	int rc = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (is_project_mark(de->d_name))
			project = true;
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			if (!policy_path_join(dir, de->d_name, p, sizeof(p)) || lstat(p, &st) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		if (n_subs == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **grown = realloc(subs, ncap * sizeof(*subs));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			subs = grown;
			cap = ncap;
		}
		if (!(subs[n_subs] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n_subs++;
	}
	closedir(d);
	/* A project's own tree is not searched for more: its dependencies
	 * (node_modules, vendor, target) would make every start read
	 * thousands of directories, and nested repositories are its
	 * submodules, which protect_git() covers.  The root itself being
	 * one (`-v .` of a project), nothing below it is walked. */
	if (project) {
		if (depth > 0 && ++w->projects > MAX_PROJECTS_BELOW)
			w->stopped = true;
		else if (depth > 0)
			rc = protect_project(r, dir);
		for (size_t i = 0; i < n_subs; i++)
			free(subs[i]);
		free(subs);
		return rc;
	}
	if (rc == 0 && n_subs > 0 && depth == PROJECT_DEPTH)
		w->deeper = true; /* directories below the deepest level looked at */
	for (size_t i = 0; rc == 0 && !w->stopped && depth < PROJECT_DEPTH && i < n_subs; i++) {
		if (++w->dirs > MAX_DIRS_WALKED) {
			w->stopped = true;
			break;
		}
		if (policy_path_join(dir, subs[i], p, sizeof(p)) && !hidden_in_sandbox(r, p))
			rc = walk_projects(r, w, p, depth + 1);
	}
	for (size_t i = 0; i < n_subs; i++)
		free(subs[i]);
	free(subs);
	return rc;
}

static int protect_repos_below(struct resolver *r, const char *root)
{
	struct project_walk w = { .root = root };
	int rc = walk_projects(r, &w, root, 0);

	if (rc == 0 && w.stopped)
		rc = policy_plan_add_warning(r->plan,
					     "below %s porta protected the repositories and projects "
					     "it found before it stopped looking (%d directories, %d "
					     "projects): others keep their hooks and settings writable; "
					     "mount the project itself",
					     root, MAX_DIRS_WALKED, MAX_PROJECTS_BELOW);
	else if (rc == 0 && w.deeper)
		rc = policy_plan_add_warning(r->plan,
					     "below %s porta protects the repositories and projects up "
					     "to %d levels down; deeper ones keep their hooks and "
					     "settings writable: mount the project itself",
					     root, PROJECT_DEPTH);
	return rc;
}

static bool is_writable_root(const struct resolver *r, const char *path)
{
	for (size_t i = 0; i < r->n_writable; i++) {
		if (strcmp(r->writable[i], path) == 0)
			return true;
	}
	return false;
}

static int protect_names_in(struct resolver *r, const char *root)
{
	const struct policy_options *o = r->o;
	char p[PATH_MAX];
	struct stat st;
	int rc = 0;

	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (o->preset == POLICY_PRESET_DEFAULT) {
		size_t n;
		const char *const *names = policy_preset_protected(&n);
		rc = protect_git(r, root);
		if (rc == 0)
			rc = protect_repos_below(r, root);
		for (size_t k = 0; k < n && rc == 0; k++) {
			if (strncmp(names[k], ".git/", 5) == 0)
				continue; /* protect_git's */
			if (policy_path_join(root, names[k], p, sizeof(p)))
				rc = protect_path(r, p);
		}
	}
	for (size_t k = 0; k < o->protect.n && rc == 0; k++) {
		if (o->protect.v[k][0] != '/' && policy_path_join(root, o->protect.v[k], p, sizeof(p)))
			rc = protect_path(r, p);
	}
	return rc;
}

static int add_protection(struct resolver *r)
{
	const struct policy_options *o = r->o;
	int rc = 0;

	/* Pin writable roots, parents first so a child's pin lands on top. */
	qsort(r->writable, r->n_writable, sizeof(char *), cmp_len);
	for (size_t i = 0; i < r->n_writable && rc == 0; i++) {
		if (strcmp(r->writable[i], "/") != 0 &&
		    !policy_plan_find_mount(r->plan, r->writable[i]))
			rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_PIN, r->writable[i],
						   POLICY_PATH_WRITABLE_ROOT);
	}
	if (rc == 0)
		rc = protect_config_dir(r);
	if (rc == 0 && r->n_writable)
		rc = protect_installation(r);
	for (size_t i = 0; i < r->n_writable && rc == 0; i++)
		rc = protect_names_in(r, r->writable[i]);
	/* A writable mount above the home (-v /home, -v /): its root is not
	 * the home, and nothing relative to it names ~/.bashrc.  The home's
	 * start-up files are what such a mount most exposes, so the names are
	 * kept relative to the home too (escape corpus row 91). */
	if (rc == 0 && r->plan->home && strictly_under_any(r->writable, r->n_writable, r->plan->home) &&
	    !is_writable_root(r, r->plan->home))
		rc = protect_names_in(r, r->plan->home);
	for (size_t k = 0; k < o->protect.n && rc == 0; k++) {
		if (o->protect.v[k][0] != '/')
			continue;
		_cleanup_free_ char *real = realpath(o->protect.v[k], NULL);
		char norm[PATH_MAX];
		if (real)
			rc = protect_path(r, real);
		else if (policy_path_join("/", o->protect.v[k], norm, sizeof(norm)))
			rc = policy_plan_add_absent(r->plan, norm);
	}
	/* A :ro mount inside a writable one: Landlock grants are a union, so
	 * only a read-only bind makes it read-only. */
	for (size_t i = 0; i < r->n_ro && rc == 0; i++) {
		bool in_tmp = !o->share_tmp && policy_path_is_under("/tmp", r->ro[i]);
		if ((under_any(r->writable, r->n_writable, r->ro[i]) || in_tmp) &&
		    !policy_plan_find_mount(r->plan, r->ro[i]))
			rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_READONLY, r->ro[i],
						   POLICY_PATH_READONLY_MOUNT);
	}
	if (rc)
		return porta_fail(r->e, "protected names", NULL, -rc, NULL);
	return 0;
}

/* The -v mounts (read-write or :ro) at or beneath real, a closed path:
 * naming a path with -v is how a user reopens exactly that path (an agent
 * that must read its own token); a mount above it (-v ~) reopens nothing.
 * Each is recorded, and bound back into the cover when it lies beneath. */
static int reopen_beneath(struct resolver *r, const char *real, enum policy_path_reason reason,
			  bool *exact)
{
	int rc = 0;

	*exact = false;
	for (size_t pass = 0; pass < 2 && rc == 0; pass++) {
		char *const *v = pass == 0 ? r->writable : r->ro;
		size_t n = pass == 0 ? r->n_writable : r->n_ro;
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!policy_path_is_under(real, v[i]))
				continue;
			*exact = *exact || strcmp(real, v[i]) == 0;
			rc = policy_plan_add_reopen(r->plan, v[i], real, reason);
		}
	}
	return rc;
}

/* Covers path (which may not exist) as closed to reads. */
static int close_path(struct resolver *r, const char *path, enum policy_path_reason reason)
{
	struct stat st;
	bool exact;
	int rc;

	/* Most closed paths do not exist: the listing of the directory above
	 * says so (may_exist()), else one stat(2), where realpath(3) would
	 * lstat every component first. */
	if (!may_exist(r, path) || stat(path, &st) < 0)
		return 0; /* nothing there to read */
	_cleanup_free_ char *real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0 || strcmp(real, "/") == 0)
		return 0;
	if ((rc = reopen_beneath(r, real, reason, &exact)) || exact)
		return rc;
	/* What the closed home shows (the project, a listed place) is no
	 * grant of the user's: a closed path there is covered like elsewhere. */
	const struct policy_mount_step *at = policy_plan_find_mount(r->plan, real);
	if (hidden_in_sandbox(r, real) || !readable(r, real) ||
	    (at && at->reason != POLICY_PATH_HOME_PROJECT && at->reason != POLICY_PATH_HOME_VISIBLE))
		return 0;
	rc = policy_plan_add_mount(r->plan,
				   S_ISDIR(st.st_mode) ? POLICY_MOUNT_COVER_DIR : POLICY_MOUNT_COVER_FILE,
				   real, reason);
	if (rc == 0)
		policy_plan_set_last_mount_id(r->plan, st.st_dev, st.st_ino);
	if (rc == 0 && S_ISDIR(st.st_mode))
		rc = add_rebinds(r, real, POLICY_PATH_REOPENED);
	return rc;
}

static int add_closed_paths(struct resolver *r)
{
	const struct policy_options *o = r->o;
	char p[PATH_MAX];
	int rc = 0;

	if (o->preset == POLICY_PRESET_DEFAULT && r->plan->home) {
		size_t n;
		const char *const *cred = policy_preset_credentials(&n);
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (policy_path_join(r->plan->home, cred[i], p, sizeof(p)))
				rc = close_path(r, p, POLICY_PATH_CREDENTIAL);
		}
	}
	/* porta's own configuration (profiles, trusted project files): closed
	 * to every sandbox, whatever the preset, so that no command reads
	 * what the user keeps there or widens its own next run; a -v inside
	 * it was refused before (add_mount_grants()). */
	if (r->config_dir[0] && rc == 0)
		rc = close_path(r, r->config_dir, POLICY_PATH_PORTA_CONFIG);
	for (size_t i = 0; i < o->deny_read.n && rc == 0; i++) {
		if (!policy_path_normalize(r->plan->cwd, o->deny_read.v[i],
					   strlen(o->deny_read.v[i]), p, sizeof(p)))
			return porta_fail(r->e, "--deny-read", o->deny_read.v[i], ENAMETOOLONG,
					    NULL);
		rc = close_path(r, p, POLICY_PATH_DENY_READ);
	}
	if (rc)
		return porta_fail(r->e, "closed paths", NULL, -rc, NULL);
	return 0;
}

/* Reads a whole small file (a /proc file has no size) into a malloc'd buffer. */
static uint8_t *read_all(const char *path, size_t *len)
{
	_cleanup_fd_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	uint8_t *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap || !buf) {
			uint8_t *nb = realloc(buf, cap *= (buf ? 2 : 1));
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		ssize_t k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(buf);
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	*len = n;
	return buf;
}

/* The regular expressions a socket path is matched against: the preset's and
 * --deny-unix's.  Compiled on first use: regcomp(3) of the preset costs
 * ~45 us, wasted on a host with no bound pathname socket. */
struct socket_matcher {
	const struct policy_options *o;
	regex_t re[POLICY_MAX_LIST + 16];
	size_t n_re;
	bool compiled;
};

static int matcher_compile(struct socket_matcher *sm, struct porta_error *e)
{
	const struct policy_options *o = sm->o;

	sm->compiled = true;
	if (o->preset == POLICY_PRESET_DEFAULT) {
		size_t n;
		const char *const *pat = policy_preset_sockets(&n);
		for (size_t i = 0; i < n; i++) {
			/* The preset's patterns are constants its unit test compiles. */
			if (regcomp(&sm->re[sm->n_re], pat[i], REG_EXTENDED | REG_NOSUB) == 0)
				sm->n_re++;
		}
	}
	for (size_t i = 0; i < o->deny_unix.n; i++) {
		int err = regcomp(&sm->re[sm->n_re], o->deny_unix.v[i], REG_EXTENDED | REG_NOSUB);
		if (err) {
			char why[128];
			regerror(err, &sm->re[sm->n_re], why, sizeof(why));
			return porta_fail(e, "--deny-unix", o->deny_unix.v[i], 0,
					    "not a valid extended regular expression: %s", why);
		}
		sm->n_re++;
	}
	return 0;
}

static void matcher_free(struct socket_matcher *sm)
{
	for (size_t k = 0; k < sm->n_re; k++)
		regfree(&sm->re[k]);
}

/* Does path match any pattern?  0/1, or -errno with e filled. */
static int matcher_match(struct socket_matcher *sm, const char *path, struct porta_error *e)
{
	int rc;

	if (!sm->compiled && (rc = matcher_compile(sm, e)))
		return rc;
	for (size_t k = 0; k < sm->n_re; k++) {
		if (regexec(&sm->re[k], path, 0, NULL, 0) == 0)
			return 1;
	}
	return 0;
}

/* A socket porta leaves reachable on purpose (policy_kept_sockets()). */
static bool kept_socket(const struct resolver *r, const char *real)
{
	return policy_unix_kept(real, r->o->net_mode);
}

/* --allow-unix PATH: reachable even where the sandbox would hide it (the
 * private /tmp, a closed socket directory, a closed path), by binding that
 * one socket back at its own path. */
static int add_allowed_sockets(struct resolver *r, char *const *allowed, size_t n_allowed)
{
	int rc = 0;

	for (size_t k = 0; k < n_allowed && rc == 0; k++) {
		struct stat st;
		if (stat(allowed[k], &st) < 0 || !S_ISSOCK(st.st_mode) ||
		    !hidden_in_sandbox(r, allowed[k]) || policy_plan_find_mount(r->plan, allowed[k]))
			continue;
		rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_REBIND, allowed[k],
					   POLICY_PATH_ALLOW_UNIX);
	}
	return rc;
}

/* Host sockets: closed unless granted.  Landlock does not mediate connect(2)
 * to a pathname socket (before the kernel's LANDLOCK_ACCESS_FS_RESOLVE_UNIX),
 * a read-only mount does not stop it and a network namespace does not
 * isolate it, so every pathname socket bound when porta starts (any type, any
 * state: /proc/net/unix lists them all) is covered by /dev/null, whatever its
 * name, unless it lies inside a writable mount (or the private /tmp, which
 * hides it), --allow-unix names it, or it is one of the few kept sockets.
 * The preset's expressions, --deny-unix and $SSH_AUTH_SOCK name the
 * credential sockets among them: those are closed inside writable mounts
 * too, and their name is the reason explain and --why give.  Sockets bound
 * later are closed by the directories add_socket_dirs() closes. */
static int add_closed_sockets(struct resolver *r, char *const envp[])
{
	const struct policy_options *o = r->o;
	struct socket_matcher sm = { .o = o };
	const char *ssh_auth = NULL;
	char *allowed[POLICY_MAX_LIST];
	size_t n_allowed = 0, len = 0;
	_cleanup_free_ uint8_t *buf = NULL;
	int rc = 0;

	if (o->preset == POLICY_PRESET_DEFAULT)
		ssh_auth = env_get(envp, "SSH_AUTH_SOCK");
	/* A bad --deny-unix is refused even on a host with no socket to match. */
	if (o->deny_unix.n && (rc = matcher_compile(&sm, r->e)))
		goto out;
	for (size_t i = 0; i < o->allow_unix.n; i++) {
		char *real = real_path(r->plan->cwd, o->allow_unix.v[i], strlen(o->allow_unix.v[i]));
		/* One not there yet is reopened when the command connects
		 * (supervisor/unixsock.h matches --allow-unix by path then). */
		char named[PATH_MAX];
		const char *v = o->allow_unix.v[i];
		if (policy_unix_in_porta_runtime(real ? real : policy_path_normalize(
								   r->plan->cwd, v, strlen(v), named,
								   sizeof(named)) ? named : v,
						 getenv("XDG_RUNTIME_DIR"))) {
			free(real);
			rc = porta_fail(r->e, "--allow-unix", v, 0, "%s", RUNTIME_REFUSED);
			goto out;
		}
		if (real)
			allowed[n_allowed++] = real;
	}

	buf = read_all("/proc/net/unix", &len);
	/* The first line is the header. */
	const uint8_t *nl = buf ? memchr(buf, '\n', len) : NULL;
	size_t pos = nl ? (size_t)(nl - buf) + 1 : len;
	for (int pass = 0; rc == 0; pass++) {
		char path[PATH_MAX];
		if (pass == 0 && ssh_auth) {
			snprintf(path, sizeof(path), "%s", ssh_auth);
		} else if (pass == 0) {
			continue;
		} else {
			if (!buf || pos >= len)
				break;
			const uint8_t *line = buf + pos;
			const uint8_t *end = memchr(line, '\n', len - pos);
			size_t ll = end ? (size_t)(end - line) : len - pos;
			pos += ll + 1;
			struct policy_span sp;
			int listening;
			if (policy_parse_proc_net_unix_line(line, ll, &sp, &listening) != POLICY_UNIX_OK ||
			    sp.n >= sizeof(path))
				continue;
			memcpy(path, sp.p, sp.n);
			path[sp.n] = '\0';
		}
		/* A path bound relative to its binder's working directory names
		 * nothing from here (the directories add_socket_dirs() closes
		 * still hold). */
		if (path[0] != '/')
			continue;
		_cleanup_free_ char *real = realpath(path, NULL);
		struct stat st;
		if (!real || stat(real, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
		bool allow = false;
		for (size_t k = 0; k < n_allowed; k++)
			allow = allow || strcmp(allowed[k], real) == 0;
		if (allow || hidden_in_sandbox(r, real) || policy_plan_find_mount(r->plan, real))
			continue;
		int named = pass == 0 ? 1 : matcher_match(&sm, path, r->e);
		if (named == 0 && strcmp(path, real) != 0)
			named = matcher_match(&sm, real, r->e);
		if (named < 0) {
			rc = named;
			goto out;
		}
		if (!named && (kept_socket(r, real) || under_any(r->writable, r->n_writable, real)))
			continue;
		rc = policy_plan_add_mount(r->plan, POLICY_MOUNT_COVER_FILE, real,
					   named ? POLICY_PATH_CREDENTIAL_SOCKET
						 : POLICY_PATH_HOST_SOCKET);
		if (rc == 0)
			policy_plan_set_last_mount_id(r->plan, st.st_dev, st.st_ino);
		if (rc)
			rc = porta_fail(r->e, "closed sockets", NULL, -rc, NULL);
	}
	if (rc == 0 && (rc = add_allowed_sockets(r, allowed, n_allowed)))
		rc = porta_fail(r->e, "--allow-unix", NULL, -rc, NULL);
out:
	matcher_free(&sm);
	for (size_t k = 0; k < n_allowed; k++)
		free(allowed[k]);
	return rc;
}

static int add_env(struct resolver *r, char *const envp[])
{
	const struct policy_options *o = r->o;
	struct policy_plan *plan = r->plan;
	int rc = 0;

	for (size_t i = 0; envp[i] && rc == 0; i++) {
		const char *eq = strchr(envp[i], '=');
		if (eq && policy_env_passes_by_default(envp[i], (size_t)(eq - envp[i])))
			rc = policy_plan_setenv(plan, envp[i], (size_t)(eq - envp[i]), eq + 1,
						strlen(eq + 1));
	}
	if (rc == 0)
		rc = policy_plan_setenv(plan, "TMPDIR", 6, "/tmp", 4);
	/* --caches: the variables that place the caches, as the host has them */
	for (size_t i = 0; o->caches && envp[i] && rc == 0; i++) {
		const char *eq = strchr(envp[i], '=');
		if (eq && policy_cache_env(envp[i], (size_t)(eq - envp[i])))
			rc = policy_plan_setenv(plan, envp[i], (size_t)(eq - envp[i]), eq + 1,
						strlen(eq + 1));
	}
	/* --caches with --no-net: the tools' offline switches, where the host's
	 * environment leaves them unset */
	const char *var, *value;
	for (size_t i = 0; o->caches && o->net_mode == POLICY_NET_NONE &&
			   policy_caches_offline_at(i, &var, &value) && rc == 0;
	     i++) {
		size_t n = strlen(var);
		bool set = false;
		for (size_t k = 0; envp[k] && !set; k++)
			set = strncmp(envp[k], var, n) == 0 && envp[k][n] == '=';
		if (!set)
			rc = policy_plan_setenv(plan, var, n, value, strlen(value));
	}
	for (size_t k = 0; k < o->env_pass.n && rc == 0; k++) {
		const char *cur = o->env_pass.v[k], *item;
		size_t len;
		while (rc == 0 && policy_split_next(&cur, &item, &len)) {
			for (size_t i = 0; envp[i]; i++) {
				if (strncmp(envp[i], item, len) == 0 && envp[i][len] == '=') {
					rc = policy_plan_setenv(plan, item, len, envp[i] + len + 1,
								strlen(envp[i] + len + 1));
					break;
				}
			}
		}
	}
	if (rc)
		return porta_fail(r->e, "environment", NULL, -rc, NULL);
	for (size_t k = 0; k < o->env_files.n; k++) {
		const char *file = o->env_files.v[k];
		size_t len = 0, pos = 0, line = 0;
		char named[PATH_MAX], why[3 * PATH_MAX];
		_cleanup_free_ char *real = NULL;
		if (policy_path_normalize(plan->cwd, file, strlen(file), named, sizeof(named)) &&
		    (real = realpath(named, NULL)) &&
		    host_links_refused(&r->links, named, real, why, sizeof(why)))
			return porta_fail(r->e, "--env-file", file, 0, "%s", why);
		_cleanup_free_ uint8_t *buf = read_all(file, &len);
		struct policy_span key, val;
		enum policy_envfile_status st;
		if (!buf)
			return porta_fail(r->e, "--env-file", file, errno, NULL);
		while ((st = policy_envfile_next(buf, len, &pos, &line, &key, &val)) ==
		       POLICY_ENVFILE_LINE) {
			if ((rc = policy_plan_setenv(plan, (const char *)key.p, key.n,
						     (const char *)val.p, val.n)))
				return porta_fail(r->e, "--env-file", file, -rc, NULL);
		}
		if (st == POLICY_ENVFILE_MALFORMED) {
			char where[600];
			snprintf(where, sizeof(where), "%s:%zu", file, line);
			return porta_fail(r->e, "--env-file", where, 0,
					    "not KEY=VALUE (KEY of letters, digits and _)");
		}
	}
	for (size_t k = 0; k < o->env_set.n && rc == 0; k++) {
		const char *eq = strchr(o->env_set.v[k], '=');
		rc = policy_plan_setenv(plan, o->env_set.v[k], (size_t)(eq - o->env_set.v[k]),
					eq + 1, strlen(eq + 1));
	}
	if (rc)
		return porta_fail(r->e, "environment", NULL, -rc, NULL);
	return 0;
}

/* --no-net: the nameservers the sandbox will ask.  Policy mode: the compiled rules, the transparent listeners' ports, the
 * host's addresses and the upstream resolver, all before anything runs. */
static int add_network(struct resolver *r)
{
	const struct policy_options *o = r->o;
	struct policy_plan *plan = r->plan;
	char err[POLICY_ERR_MAX];
	int rc;

	if (o->net_mode == POLICY_NET_NONE) {
		/* the resolvers the sandbox's resolv.conf names: their questions
		 * are answered inside (no name resolves); none readable is no
		 * loss, glibc then asks loopback, which is local anyway */
		struct dnsd_server sv[POLICY_MAX_RESOLVERS];
		int n = dnsd_host_servers(NULL, sv, ARRAY_LEN(sv));
		for (int i = 0; i < n; i++)
			plan->resolvers[plan->n_resolvers++] = sv[i].addr;
		return 0;
	}
	if (o->net_mode != POLICY_NET_POLICY)
		return 0;
	plan->net_rules = calloc(POLICY_NET_MAX_RULES, sizeof(*plan->net_rules));
	if (!plan->net_rules)
		return porta_fail(r->e, "network rules", NULL, ENOMEM, NULL);
	if (policy_net_compile(o, plan->net_rules, POLICY_NET_MAX_RULES, &plan->n_net_rules, err) !=
	    POLICY_NET_COMPILE_OK)
		return porta_fail(r->e, "network rules", NULL, 0, "%s", err);

	size_t n = policy_net_listen_ports(plan->net_rules, plan->n_net_rules, NULL, 0);
	if (n > SANDBOX_MAX_LISTENERS)
		return porta_fail(r->e, "network rules", NULL, 0,
				    "the rules name %zu ports; porta opens at most %d listeners "
				    "(narrow the port ranges)",
				    n, SANDBOX_MAX_LISTENERS);
	plan->listen_ports = calloc(n ? n : 1, sizeof(uint16_t));
	if (!plan->listen_ports)
		return porta_fail(r->e, "network rules", NULL, ENOMEM, NULL);
	plan->n_listen_ports =
		policy_net_listen_ports(plan->net_rules, plan->n_net_rules, plan->listen_ports, n);

	/* the host's own addresses: a name rule never reaches them */
	if ((rc = host_own_addrs(&plan->host_addrs, &plan->n_host_addrs)))
		return porta_fail(r->e, "the host's addresses", NULL, -rc, NULL);

	struct dnsd_server up;
	if (o->dns_upstream) {
		enum dnsd_server_status st =
			dnsd_server_parse(o->dns_upstream, strlen(o->dns_upstream), &up);
		if (st != DNSD_SERVER_OK)
			return porta_fail(r->e, "--dns-upstream", o->dns_upstream, 0, "%s",
					    dnsd_server_reason(st));
	} else if ((rc = dnsd_upstream_host_server(NULL, &up))) {
		return porta_fail(r->e, "the host's resolver", "/etc/resolv.conf", -rc == ENODATA ? 0 : -rc,
				    "no usable nameserver; give one with --dns-upstream ADDR[:PORT]");
	}
	plan->dns_upstream = up.addr;
	plan->dns_upstream_port = up.port;
	return 0;
}

/* Where kernel.core_pattern sends dumps: '|' runs a helper, '@' (Linux
 * 6.16) connects to a socket (core(5)), anything else names a file.
 * Leading spaces are skipped, and an unreadable pattern is UNKNOWN: erring
 * that way costs only core files. */
static enum policy_core_target core_pattern_target(void)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/core_pattern", "re");

	if (!f)
		return POLICY_CORE_UNKNOWN;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	const char *p = buf;
	while (*p == ' ')
		p++;
	return !ok ? POLICY_CORE_UNKNOWN : *p == '|' ? POLICY_CORE_PIPE
		   : *p == '@'               ? POLICY_CORE_SOCKET
					     : POLICY_CORE_FILES;
}

/* --audit FILE (docs/porta.1): the audit file may not lie inside a writable
 * mount of the same run, where the command could rewrite it.  Not inlined:
 * its 24 KiB of paths would be in host_resolve()'s frame, whose every page
 * -fstack-clash-protection probes at each start, --audit or not
 * (docs/benchmarks/startup.md). */
static int check_audit_path(struct resolver *r)
{
	const char *audit = r->o->audit_path;
	char p[PATH_MAX];
	int rc;

	if (!policy_path_normalize(r->plan->cwd, audit, strlen(audit), p, sizeof(p)))
		return porta_fail(r->e, "--audit", audit, ENAMETOOLONG, NULL);
	/* Judged as resolved, never by its name: the file itself may not be a
	 * link (one an earlier run made would redirect porta's appends), and
	 * where the rest leads is what counts. */
	struct stat ast;
	if (lstat(p, &ast) == 0 && !S_ISREG(ast.st_mode)) {
		char target[PATH_MAX] = "";
		ssize_t tn = S_ISLNK(ast.st_mode) ? readlink(p, target, sizeof(target) - 1) : -1;
		target[tn < 0 ? 0 : tn] = '\0';
		return porta_fail(r->e, "--audit", audit, 0,
				  S_ISLNK(ast.st_mode)
					  ? "it is a symbolic link (to %s): porta appends only to a "
					    "regular file it names itself; give the file's own path"
					  : "not a regular file%s",
				  target);
	}
	if (lstat(p, &ast) == 0 && ast.st_uid != geteuid())
		return porta_fail(r->e, "--audit", audit, 0,
				  "the file belongs to uid %u, not to you (uid %u): porta "
				  "appends only to your own file",
				  (unsigned)ast.st_uid, (unsigned)geteuid());
	char real_file[PATH_MAX], why[3 * PATH_MAX];
	if ((rc = host_real_path_as_far(p, real_file, sizeof(real_file))))
		return porta_fail(r->e, "--audit", audit, -rc, NULL);
	if (host_links_refused(&r->links, p, real_file, why, sizeof(why)))
		return porta_fail(r->e, "--audit", audit, 0, "%s", why);
	if (!(r->plan->audit_real = strdup(real_file)))
		return porta_fail(r->e, "--audit", audit, ENOMEM, NULL);
	if (under_any(r->writable, r->n_writable, real_file) ||
	    (r->o->share_tmp && policy_path_is_under("/tmp", real_file)))
		return porta_fail(r->e, "--audit", audit, 0,
				  "the audit file lies inside a writable mount of this run, where "
				  "the command could rewrite it; choose a path outside every -v");
	return 0;
}

int host_resolve(const struct policy_options *opts, char *const argv[],
		    char *const envp[], struct policy_plan **out, struct porta_error *e)
{
	struct resolver r = { .o = opts, .e = e };
	int rc;

	r.plan = policy_plan_create(opts);
	if (!r.plan)
		return porta_fail(e, "policy", NULL, ENOMEM, NULL);
	r.plan->argv = argv;
	r.plan->argc = opts->cmd_index + opts->cmd_argc;
	r.plan->cwd = getcwd(NULL, 0);
	if (!r.plan->cwd)
		r.plan->cwd = strdup("/");
	r.plan->core_target = core_pattern_target();
	if ((rc = resolve_home(&r, envp)) || (rc = resolve_config_dir(&r, envp)) ||
	    (rc = init_links(&r, envp)) || (rc = add_mount_grants(&r)) ||
	    (rc = add_caches(&r, envp)) || (rc = add_base_grants(&r)) ||
	    (rc = reach_config_dir(&r)))
		goto out;
	trace_mark("resolve: grants");
	/* Filesystems that replace a host directory first, so that what is
	 * bound back into them (the -v mounts beneath) is in place before the
	 * protections inside those mounts are laid over it. */
	if ((rc = add_replaced_filesystems(&r, envp)))
		goto out;
	trace_mark("resolve: replaced filesystems");
	if ((rc = add_closed_paths(&r)))
		goto out;
	trace_mark("resolve: closed paths");
	if ((rc = add_protection(&r)))
		goto out;
	trace_mark("resolve: protected names");
	if ((rc = add_closed_sockets(&r, envp)))
		goto out;
	trace_mark("resolve: closed sockets");
	if ((rc = add_env(&r, envp)) || (rc = add_network(&r)))
		goto out;
	if (opts->audit_path && opts->audit_fd < 0 && (rc = check_audit_path(&r)))
		goto out;
	{
		const char *missing[8];
		size_t n = policy_landlock_missing(sandbox_landlock_abi(), missing, 8);
		for (size_t i = 0; i < n && i < 8; i++)
			policy_plan_add_note(r.plan, "%s", missing[i]);
	}
	if (opts->share_tmp)
		policy_plan_add_note(r.plan, "--share-tmp: the host's /tmp is shared and writable");
	if (r.n_writable == 0 && r.plan->n_caches == 0)
		policy_plan_add_note(r.plan, "no -v mount: only the private /tmp and /dev are writable");
	*out = steal_ptr(&r.plan);
out:
	for (size_t i = 0; i < r.n_writable; i++)
		free(r.writable[i]);
	for (size_t i = 0; i < r.n_ro; i++)
		free(r.ro[i]);
	for (size_t i = 0; i < r.n_shown; i++)
		free(r.shown[i]);
	dirlists_free(&r);
	host_links_release(&r.links);
	policy_plan_destroy(r.plan);
	return rc;
}
