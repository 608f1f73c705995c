/* supervisor/guard.c: see guard.h. */
#include "supervisor/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "policy/path_reason.h"
#include "policy/paths.h"
#include "common/error.h"

/* A guard that must add more watches than this stops the run: only a
 * command that keeps making and moving away directories on the way to a
 * protected name gets there. */
#define GUARD_MAX_WATCHES 4096

/* What can make a name appear (a creation, a rename into place) or replace
 * one: every watch has these.  A build or git in a watched directory wakes
 * the supervisor once per creation there (git's index.lock), so nothing
 * more is asked for; only a directory holding a guarded link also asks for
 * removals and renames away (a link removed is to be put back). */
#define GUARD_MASK (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)
#define GUARD_MASK_LINK (IN_DELETE | IN_MOVED_FROM)

enum guard_kind {
	GUARD_ABSENT,  /* a protected name that must not appear */
	GUARD_LINK,    /* a protected link that must stay this very link */
	GUARD_MOUNTED, /* a path porta mounted over, which must stay the entry it
			* mounted over: replaced from outside, the mount is gone */
};

struct guarded {
	enum guard_kind kind;
	char *path;      /* absolute */
	size_t root_len; /* ABSENT, LINK: the writable mount above it, path[0..root_len) */
	char *target;    /* LINK: the link's target, to put it back */
	const char *why; /* MOUNTED: the mount step's reason */
	bool closes;     /* MOUNTED: a cover (reads); else a write protection */
	dev_t dev;
	ino_t ino;
	bool hot;   /* an event named a component of its path: checked first */
	bool fired; /* MOUNTED: said once */
};

struct supervisor_guard {
	int fd;
	struct guarded *v;
	size_t n;
	int max_wd;
	size_t violations;
	/* The directories watched during one pass over the names, by path:
	 * the names share most of them (the mount root, .git, .claude). */
	char *seen[64];
	size_t n_seen;
	int root_fd; /* the mount root open during a pass, or -1 */
	size_t root_fd_len;
	const char *root_fd_path;
};

int supervisor_guard_fd(const struct supervisor_guard *g)
{
	return g->fd;
}

size_t supervisor_guard_violations(const struct supervisor_guard *g)
{
	return g ? g->violations : 0;
}

static void forget_seen(struct supervisor_guard *g)
{
	for (size_t i = 0; i < g->n_seen; i++)
		free(g->seen[i]);
	g->n_seen = 0;
	if (g->root_fd >= 0)
		close(g->root_fd);
	g->root_fd = -1;
	g->root_fd_path = NULL;
}

/* The writable mount root above e, open (O_PATH) once per pass: the names
 * share one or two.  Returns a new fd the caller closes, or -1. */
static int open_root(struct supervisor_guard *g, const struct guarded *e)
{
	if (g->root_fd < 0 || g->root_fd_len != e->root_len ||
	    memcmp(g->root_fd_path, e->path, e->root_len) != 0) {
		char root[PATH_MAX];
		if (e->root_len >= sizeof(root))
			return -1;
		memcpy(root, e->path, e->root_len);
		root[e->root_len] = '\0';
		if (g->root_fd >= 0)
			close(g->root_fd);
		g->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		g->root_fd_len = e->root_len;
		g->root_fd_path = e->path;
	}
	return g->root_fd < 0 ? -1 : fcntl(g->root_fd, F_DUPFD_CLOEXEC, 0);
}

void supervisor_guard_destroy(struct supervisor_guard *g)
{
	if (!g)
		return;
	if (g->fd >= 0)
		close(g->fd);
	forget_seen(g);
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path);
		free(g->v[i].target);
	}
	free(g->v);
	free(g);
}

/* The deepest writable -v mount (or shared /tmp) holding path: its length. */
static size_t root_len(const struct policy_plan *plan, const char *path)
{
	size_t best = 0;

	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		size_t len = strlen(r->path);
		if (!(r->grant & POLICY_GRANT_WRITE) || (r->grant & POLICY_GRANT_DEV) ||
		    !policy_path_is_under(r->path, path) || strcmp(r->path, path) == 0 ||
		    !policy_plan_in_writable_mount(plan, r->path))
			continue;
		if (len > best)
			best = len;
	}
	return best;
}

static struct guarded *push(struct supervisor_guard *g, enum guard_kind kind, const char *path)
{
	struct guarded *nv = realloc(g->v, (g->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	g->v = nv;
	struct guarded *e = &g->v[g->n];
	*e = (struct guarded){ .kind = kind, .path = strdup(path) };
	if (!e->path)
		return NULL;
	g->n++;
	return e;
}

static int add(struct supervisor_guard *g, const struct policy_plan *plan, const char *path,
	       const struct policy_link *l)
{
	size_t rl = root_len(plan, path);

	if (!rl)
		return 0; /* outside every writable mount: the command cannot make it */
	struct guarded *e = push(g, l ? GUARD_LINK : GUARD_ABSENT, path);
	if (!e)
		return -ENOMEM;
	e->root_len = rl;
	if (l) {
		e->dev = (dev_t)l->dev;
		e->ino = (ino_t)l->ino;
		if (!(e->target = strdup(l->target)))
			return -ENOMEM;
	}
	return 0;
}

/* The mount steps whose mount point is an entry of a host directory that a
 * program outside may replace (an editor's save, git's lock-and-rename, a
 * token refresh, a daemon binding its socket again): the kernel then takes
 * the sandbox's mount away with the old entry (fs/namei.c: vfs_unlink() and
 * vfs_rename() detach the mounts of every other namespace), and the new
 * entry is open to the command.  Covers (reads closed) and write
 * protections; not the sandbox's own filesystems, the strict home, the mount
 * roots (their Landlock rule stays on the old directory) or what is bound
 * back. */
static int add_mounted(struct supervisor_guard *g, const struct policy_mount_step *m)
{
	struct stat st;
	bool cover = m->kind == POLICY_MOUNT_COVER_FILE || m->kind == POLICY_MOUNT_COVER_DIR;
	/* Which reasons are watched, and why the socket covers are not, is
	 * the table's (policy/path_reason.c); only these kinds lie over a
	 * host entry at all. */
	bool guards = (cover || m->kind == POLICY_MOUNT_READONLY || m->kind == POLICY_MOUNT_PIN) &&
		      policy_path_reason_info(m->reason)->guarded;

	if (!guards)
		return 0;
	/* resolve records the entry it looked at; else look now. */
	if (m->has_id) {
		st.st_dev = (dev_t)m->dev;
		st.st_ino = (ino_t)m->ino;
	} else if (lstat(m->path, &st) < 0) {
		return 0;
	}
	struct guarded *e = push(g, GUARD_MOUNTED, m->path);
	if (!e)
		return -ENOMEM;
	e->why = policy_path_reason_words(m->reason);
	e->closes = cover;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	return 0;
}

static int count_watch(struct supervisor_guard *g, int wd)
{
	if (wd < 0)
		return -errno;
	/* Watch descriptors are handed out in increasing order (one per
	 * inode): the largest is the number of watches ever added. */
	if (wd > g->max_wd)
		g->max_wd = wd;
	return g->max_wd > GUARD_MAX_WATCHES ? -ENOSPC : 0;
}

/* Watches the directory open at dirfd, which is path[0..len) (by its inode:
 * the fd's magic link, so a rename of the path since changes nothing), once
 * per pass.  0 or -errno. */
static int watch(struct supervisor_guard *g, int dirfd, const char *path, size_t len, uint32_t extra)
{
	char p[64];

	for (size_t i = 0; i < g->n_seen && !extra; i++) {
		if (strlen(g->seen[i]) == len && memcmp(g->seen[i], path, len) == 0)
			return 0;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", dirfd);
	/* IN_MASK_ADD: a directory shared by a link and other names keeps
	 * what each asked for. */
	int rc = count_watch(g, inotify_add_watch(g->fd, p, GUARD_MASK | IN_MASK_ADD | extra));
	if (rc == 0 && g->n_seen < ARRAY_LEN(g->seen) && (g->seen[g->n_seen] = strndup(path, len)))
		g->n_seen++;
	return rc;
}

/* Moves dir/name aside (same directory, so a rename, never a copy) and, for
 * a link, puts the original link back.  Says so on stderr.  `shown` is the
 * path in words. */
static void refuse(struct supervisor_guard *g, int dirfd, const char *name, const char *shown,
		   const struct guarded *e, const char *what)
{
	char aside[NAME_MAX + 1], esc[2 * PATH_MAX], esc2[2 * NAME_MAX + 8];
	int err = 0;
	bool moved = false;

	log_escape(shown, strlen(shown), esc, sizeof(esc));
	for (unsigned k = 0; k < 100 && !moved; k++) {
		if (!policy_path_aside_name(name, (long)getpid(), k, aside, sizeof(aside))) {
			err = ENAMETOOLONG;
			break;
		}
		if (renameat2(dirfd, name, dirfd, aside, RENAME_NOREPLACE) == 0)
			moved = true;
		else if ((err = errno) != EEXIST)
			break;
	}
	bool link = e->kind == GUARD_LINK;
	if (link && (moved || err == ENOENT) && symlinkat(e->target, dirfd, name) < 0 &&
	    errno != EEXIST) {
		int serr = errno;
		log_msg(LOG_LEVEL_ERROR, "could not put the link %s back: %s", esc, strerror(serr));
	}
	g->violations++;
	if (moved) {
		log_escape(aside, strlen(aside), esc2, sizeof(esc2));
		const char *slash = strrchr(esc, '/');
		log_msg(LOG_LEVEL_ERROR,
			"stopping the run: %s %s while it ran; moved aside to %.*s/%s (bytes kept)%s",
			esc, what, slash ? (int)(slash - esc) : 0, esc, esc2,
			link ? ", the link put back" : "");
	} else if (err == ENOENT) {
		log_msg(LOG_LEVEL_ERROR, "stopping the run: %s %s while it ran (gone again before "
					 "porta could move it aside)%s",
			esc, what, link ? ", the link put back" : "");
	} else {
		log_msg(LOG_LEVEL_ERROR,
			"stopping the run: %s %s while it ran, and porta could not move it aside (%s): "
			"remove it before an editor, agent or shell reads it",
			esc, what, strerror(err));
	}
}

/* A MOUNTED entry: still the entry porta mounted over?  Only a program
 * outside can have replaced it (inside, a mount point cannot be renamed or
 * removed), and the sandbox's mount went with it.  Said once; the caller
 * stops the run. */
static int check_mounted(struct supervisor_guard *g, struct guarded *e)
{
	struct stat st;
	char esc[2 * PATH_MAX];

	/* Gone (removed outside): nothing to read or write there until
	 * something takes its place, which is an event of its own. */
	if (e->fired || fstatat(AT_FDCWD, e->path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (st.st_dev == e->dev && st.st_ino == e->ino))
		return 0;
	e->fired = true;
	g->violations++;
	log_escape(e->path, strlen(e->path), esc, sizeof(esc));
	log_msg(LOG_LEVEL_ERROR,
		"stopping the run: %s (%s %s) was replaced outside the sandbox while the command "
		"ran; the kernel takes porta's mount away from a replaced file, so the command "
		"could %s it in the moment before this stop%s",
		esc, e->closes ? "closed:" : "kept unwritable:", e->why,
		e->closes ? "have read" : "have written",
		e->closes ? "" : ": look at it before an editor, shell or git uses it");
	return 1;
}

/* Checks one guarded name, component by component from its writable mount
 * without following a link (renames of the directories found are harmless:
 * each step works on the directory it opened), watching every directory on
 * the way before looking into it, so that a name made after the look is an
 * event.  Returns 1 on a violation, 0, or -errno when it cannot watch. */
/* Is the entry comp of dirfd, lstat'ed as st, the link e guards?  Its
 * inode and its target: a link removed and made again can get the freed
 * inode number back at once (ext4 hands it out again), so device and inode
 * alone take a repointed link for the one porta found (escape corpus rows
 * 85 and 90). */
static bool is_guarded_link(int dirfd, const char *comp, const struct stat *st,
			    const struct guarded *e)
{
	char target[PATH_MAX];

	if (!S_ISLNK(st->st_mode) || st->st_dev != e->dev || st->st_ino != e->ino)
		return false;
	ssize_t n = readlinkat(dirfd, comp, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, e->target) == 0;
}

/* The guarded link l, found as comp of dirfd (lstat'ed as st): 0 while it
 * is the very link porta found; else the entry is moved aside, the link put
 * back, and 1 (the run is stopped).  Whichever guarded name comes upon it
 * first, the link's own entry or a name beneath it, the link is put back. */
static int link_kept(struct supervisor_guard *g, int dirfd, const char *comp, const char *shown,
		     struct stat *st, struct guarded *l)
{
	if (is_guarded_link(dirfd, comp, st, l))
		return 0;
	refuse(g, dirfd, comp, shown, l, "(a protected symbolic link) was replaced");
	/* The link put back is a new inode: the one to keep now. */
	if (fstatat(dirfd, comp, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st->st_mode)) {
		l->dev = st->st_dev;
		l->ino = st->st_ino;
	}
	return 1;
}

static int check_one(struct supervisor_guard *g, struct guarded *e)
{
	char comp[NAME_MAX + 1];
	const char *p = e->path + e->root_len;
	int rc;

	if (e->kind == GUARD_MOUNTED)
		return check_mounted(g, e);
	_cleanup_fd_ int dirfd = open_root(g, e);
	if (dirfd < 0)
		return 0; /* the mount root itself is pinned: gone only from the host */
	while (*p == '/')
		p++;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || n > NAME_MAX)
			return 0;
		memcpy(comp, p, n);
		comp[n] = '\0';
		bool last = !slash;
		if ((rc = watch(g, dirfd, e->path, (size_t)(p - e->path),
				last && e->kind == GUARD_LINK ? GUARD_MASK_LINK : 0)))
			return rc;
		struct stat st;
		size_t shown_len = (size_t)(p - e->path) + n;
		char shown[PATH_MAX];
		snprintf(shown, sizeof(shown), "%.*s", (int)shown_len, e->path);
		if (fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0; /* absent, watched */
		if (last && e->kind == GUARD_LINK)
			return link_kept(g, dirfd, comp, shown, &st, e);
		if (last) {
			refuse(g, dirfd, comp, shown, e,
			       "(a protected name that did not exist when porta started) appeared");
			return 1;
		}
		if (S_ISLNK(st.st_mode)) {
			/* A link on the way: the one porta found at start is
			 * guarded as a link itself; a new one redirects the name. */
			for (size_t i = 0; i < g->n; i++) {
				if (g->v[i].kind == GUARD_LINK && strlen(g->v[i].path) == shown_len &&
				    strncmp(g->v[i].path, e->path, shown_len) == 0)
					return link_kept(g, dirfd, comp, shown, &st, &g->v[i]);
			}
			refuse(g, dirfd, comp, shown, e,
			       "(a symbolic link on the way to a protected name) appeared");
			return 1;
		}
		if (!S_ISDIR(st.st_mode))
			return 0; /* not a directory: nothing can be below it */
		int next = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return 0; /* replaced since: the next event says by what */
		close(dirfd);
		dirfd = next;
		p = slash + 1;
		while (*p == '/')
			p++;
		if (!*p)
			return 0;
	}
}

/* Every guarded name, again: each appearance is refused, so a name made
 * again after a refusal is refused again.  The names an event touched come
 * first, so that what appeared is moved aside before the rest is looked at.
 * Not inlined: its 13 KiB of path buffers would be in the frame of
 * supervisor_guard_check(), which every run calls at its end with nothing to
 * recheck, and -fstack-clash-protection probes every page of a frame on
 * entry (docs/benchmarks/startup.md). */
static __attribute__((noinline)) int check_all(struct supervisor_guard *g)
{
	int found = 0;

	forget_seen(g);
	for (int pass = 0; pass < 2 && found >= 0; pass++) {
		for (size_t i = 0; i < g->n; i++) {
			if (g->v[i].hot != (pass == 0))
				continue;
			int r = check_one(g, &g->v[i]);
			if (r < 0) {
				found = r;
				break;
			}
			found += r;
		}
	}
	for (size_t i = 0; i < g->n; i++)
		g->v[i].hot = false;
	forget_seen(g);
	return found;
}

/* Marks the guarded names that have name as a component below their mount:
 * only those can have appeared; a build's many other files cost a compare
 * each.  Returns whether any was marked. */
static bool mark_on_the_way(struct supervisor_guard *g, const char *name)
{
	size_t len = strlen(name);
	bool any = false;

	for (size_t i = 0; i < g->n; i++) {
		const char *p = g->v[i].path + g->v[i].root_len;
		while ((p = strstr(p, name))) {
			if (p[-1] == '/' && (p[len] == '/' || p[len] == '\0')) {
				g->v[i].hot = any = true;
				break;
			}
			p += len;
		}
	}
	return any;
}

int supervisor_guard_check(struct supervisor_guard *g, bool recheck)
{
	/* inotify(7): a buffer aligned for struct inotify_event. */
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(g->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW)
				recheck = true;
			else if (ev->len && mark_on_the_way(g, ev->name))
				recheck = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return recheck ? check_all(g) : 0;
}

/* A directory the plan knows exists: pinned, or a writable mount's root. */
static bool known_dir(const struct policy_plan *plan, const char *dir)
{
	const struct policy_mount_step *m = policy_plan_find_mount(plan, dir);

	if (m && m->kind == POLICY_MOUNT_PIN)
		return true;
	for (size_t i = 0; i < plan->n_rules; i++) {
		if ((plan->rules[i].grant & POLICY_GRANT_WRITE) && plan->rules[i].is_dir &&
		    strcmp(plan->rules[i].path, dir) == 0)
			return true;
	}
	return false;
}

int supervisor_guard_create(const struct policy_plan *plan, struct supervisor_guard **out,
			 struct porta_error *e)
{
	struct supervisor_guard *g = calloc(1, sizeof(*g));
	int rc = 0;

	*out = NULL;
	if (!g)
		return porta_fail(e, "protected names", NULL, ENOMEM, NULL);
	g->fd = -1;
	g->root_fd = -1;
	for (size_t i = 0; i < plan->n_absent_protected && rc == 0; i++)
		rc = add(g, plan, plan->absent_protected[i], NULL);
	for (size_t i = 0; i < plan->n_links && rc == 0; i++)
		rc = add(g, plan, plan->links[i].path, &plan->links[i]);
	for (size_t i = 0; i < plan->n_mounts && rc == 0; i++)
		rc = add_mounted(g, &plan->mounts[i]);
	if (rc) {
		supervisor_guard_destroy(g);
		return porta_fail(e, "protected names", NULL, -rc, NULL);
	}
	if (g->n == 0) {
		supervisor_guard_destroy(g);
		return 0;
	}
	g->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (g->fd < 0) {
		int err = errno;
		supervisor_guard_destroy(g);
		return porta_fail(e, "watch the absent protected names (inotify)", NULL, err,
				    err == EMFILE ? "the user's inotify instances are used up: "
						    "fs.inotify.max_user_instances"
						  : NULL);
	}
	/* The deepest directory that exists above each name.  resolve pinned
	 * every directory that exists between a writable mount's root and a
	 * protected name (pin_parents()), so it is the deepest pinned one, or
	 * the root: found in the plan, no call to try the others.  A
	 * mounted-over path's parent exists.  Each directory is watched once
	 * (the names share a few: the mount root, .git, .claude); being
	 * pinned, a watch by path stays on it. */
	char *tried[64];
	bool tried_ok[64];
	size_t n_tried = 0;
	for (size_t i = 0; i < g->n && rc == 0; i++) {
		const struct guarded *v = &g->v[i];
		char dir[PATH_MAX];
		size_t len = strlen(v->path);
		if (len >= sizeof(dir))
			continue;
		memcpy(dir, v->path, len + 1);
		for (bool found = false; !found && rc == 0;) {
			char *slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) < v->root_len)
				break;
			*slash = '\0';
			if (!dir[0]) {
				dir[0] = '/';
				dir[1] = '\0';
			}
			if (v->kind != GUARD_MOUNTED && !known_dir(plan, dir))
				continue;
			/* The link's own directory also reports removals. */
			uint32_t extra = v->kind == GUARD_LINK && !strchr(v->path + strlen(dir) + 1, '/')
					 ? GUARD_MASK_LINK : 0;
			size_t k = 0;
			while (k < n_tried && strcmp(tried[k], dir) != 0)
				k++;
			if (k < n_tried && !(extra && tried_ok[k])) {
				found = tried_ok[k];
				continue;
			}
			int wd = inotify_add_watch(g->fd, dir,
						   GUARD_MASK | IN_DONT_FOLLOW | IN_MASK_ADD | extra);
			found = wd >= 0;
			if (found)
				rc = count_watch(g, wd);
			else if (errno != ENOENT && errno != ENOTDIR)
				rc = -errno;
			if (k == n_tried && n_tried < ARRAY_LEN(tried) && (tried[n_tried] = strdup(dir)))
				tried_ok[n_tried++] = found;
		}
	}
	for (size_t k = 0; k < n_tried; k++)
		free(tried[k]);
	if (rc < 0) {
		supervisor_guard_destroy(g);
		return porta_fail(e, "watch the absent protected names (inotify)", NULL, -rc,
				    -rc == ENOSPC ? "too many watches: fs.inotify.max_user_watches"
						  : NULL);
	}
	g->violations = 0;
	*out = g;
	return 0;
}
