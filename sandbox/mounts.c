/* sandbox/mounts.c: init's mount steps (docs/design.md, Set-up order, init step 5).
 *
 * Runs in init, in the new user and mount namespaces, with / already made
 * private so nothing here propagates to the host.  Each step names its path
 * in the error so the user sees exactly which one failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/paths.h"
#include "sandbox/internal.h"

/* The flags a remount in a user namespace must keep: the kernel locks the
 * atime, nosuid, nodev and noexec flags of mounts inherited from a more
 * privileged namespace, and refuses a remount that would clear them
 * (mount(2), EPERM; fs/namespace.c can_change_locked_flags()). */
static unsigned long locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

static int remount_ro(const char *path)
{
	if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(path), NULL) < 0)
		return -errno;
	return 0;
}

/* The mount point itself: a directory, or for a file an empty file to bind
 * over.  0 when it is there already. */
static int make_node(const char *path, bool is_dir)
{
	if (is_dir)
		return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* mkdir -p of path's directories inside a fresh tmpfs; for a file, the last
 * component becomes an empty file to bind over.  From the leaf up: the
 * parents mostly exist already (the private /dev, the closed home), so one
 * call usually makes it, where mkdir(2) of each component from / down made
 * an EEXIST for every parent at every mount point. */
static int make_mount_point(const char *path, bool is_dir)
{
	char buf[PATH_MAX];
	size_t len = strlen(path), end = len;
	int r;

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	if ((r = make_node(buf, is_dir)) != -ENOENT)
		return r;
	/* A directory on the way is missing: up to the deepest that exists, */
	for (;;) {
		char *slash = memrchr(buf, '/', end);
		if (!slash || slash == buf)
			return -ENOENT;
		end = (size_t)(slash - buf);
		buf[end] = '\0';
		if (mkdir(buf, 0755) == 0 || errno == EEXIST)
			break;
		if (errno != ENOENT)
			return -errno;
	}
	/* then down again, each directory made, and the mount point last. */
	while (end < len) {
		buf[end] = '/';
		end += strlen(buf + end);
		if (end == len)
			return make_node(buf, is_dir);
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

/* The links every /dev has (udev's static nodes, bubblewrap's --dev):
 * bash's process substitution opens /dev/fd/N. */
static int populate_dev(void)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },     { "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" }, { "/proc/self/fd/2", "/dev/stderr" },
	};

	for (size_t i = 0; i < ARRAY_LEN(links); i++) {
		if (symlink(links[i][0], links[i][1]) < 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

#define COVER_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)
#define COVER_DATA "size=4k,mode=0500"
/* the home's cover holds the written ~/.gitconfig (a few user.* values) */
#define SEAL_DATA "mode=0500"
#define HOME_COVER_DATA "size=256k,mode=0500" /* > 32 user.* values, each at most 2 KiB written */

/* Does a later step bind a -v mount back beneath step i's path? */
static bool rebind_beneath(const struct policy_plan *plan, size_t i)
{
	for (size_t k = i + 1; k < plan->n_mounts; k++) {
		if (plan->mounts[k].kind == POLICY_MOUNT_REBIND &&
		    policy_path_is_under(plan->mounts[i].path, plan->mounts[k].path))
			return true;
	}
	return false;
}

/* Decodes a mountinfo field in place: the kernel escapes space, tab,
 * newline and backslash as \ooo (fs/proc_namespace.c, mangle()). */
static void unmangle(char *s)
{
	char *o = s;

	for (char *i = s; *i; o++) {
		if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' &&
		    i[3] >= '0' && i[3] <= '7') {
			*o = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
			i += 4;
		} else {
			*o = *i++;
		}
	}
	*o = '\0';
}

/* Landlock does not mediate chmod(2), chown(2), utimes(2), setxattr(2) or
 * removexattr(2): a file outside the writable mounts (or in a :ro one) that
 * the user owns, or any root-owned file for --allow-root, would keep them.
 * A read-only mount refuses them all with EROFS, so every mount of the
 * sandbox but those under a write grant and the sandbox's own filesystems
 * becomes read-only (policy_plan_mount_stays_writable()).  The flag is the
 * mount's, not the filesystem's: the host's mounts keep theirs. */
/* Message queues live in an IPC namespace's own mqueue filesystem; mq_open(3)
 * reaches the sandbox's, but a host mqueue mount (/dev/mqueue, or one made
 * anywhere) is the host's namespace's and hands its queues to whoever can
 * open the path.  Each one gets a fresh instance of the sandbox's own,
 * mounted over it once the mount table has been read. */
#define MAX_MQUEUE_MOUNTS 16

static int replace_mqueues(char **paths, size_t n, struct porta_error *e)
{
	for (size_t i = 0; i < n; i++) {
		if (mount("mqueue", paths[i], "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) <
			    0 &&
		    errno != ENOENT && errno != EACCES)
			return porta_fail(e, "mount a private mqueue on", paths[i], errno, NULL);
	}
	return 0;
}

/* /proc/self/mountinfo, line by line, without stdio.  init's heap is the
 * supervisor's, shared copy-on-write since the clone: fopen(3) and getline(3)
 * malloc, and malloc writes the arena and the free chunks' links wherever
 * they lie, each page written a fault (some 20 us each in init on the VM
 * measured, docs/benchmarks/startup.md).  Lines are read into a window on
 * init's stack; one longer than it (an overlay's long options) moves to the
 * heap. */
#define MOUNTINFO_WINDOW 4096

struct lines {
	int fd;
	char *buf;
	size_t cap, len, start;
	bool eof, heap;
};

/* The next line, NUL-terminated in place, or NULL at the end (or on a read
 * error or no memory: as getline(3) ends, the lines read so far are all). */
static char *next_line(struct lines *l)
{
	for (;;) {
		char *nl = memchr(l->buf + l->start, '\n', l->len - l->start);
		if (nl || (l->eof && l->start < l->len)) {
			char *line = l->buf + l->start;
			char *end = nl ? nl : l->buf + l->len;
			*end = '\0';
			l->start = (size_t)(end - l->buf) + 1;
			if (l->start > l->len)
				l->start = l->len;
			return line;
		}
		if (l->eof)
			return NULL;
		memmove(l->buf, l->buf + l->start, l->len - l->start);
		l->len -= l->start;
		l->start = 0;
		if (l->len + 1 >= l->cap) { /* one line fills the window */
			char *big = l->heap ? realloc(l->buf, 2 * l->cap) : malloc(2 * l->cap);
			if (!big)
				return NULL;
			if (!l->heap)
				memcpy(big, l->buf, l->len);
			l->buf = big;
			l->cap *= 2;
			l->heap = true;
		}
		ssize_t n = read(l->fd, l->buf + l->len, l->cap - l->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			l->eof = true;
		else
			l->len += (size_t)n;
	}
}

static int make_rest_read_only(const struct policy_plan *plan, struct porta_error *e)
{
	char window[MOUNTINFO_WINDOW];
	_cleanup_fd_ int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	struct lines lines = { .fd = fd, .buf = window, .cap = sizeof(window) };
	char *line;
	int rc = 0;
	char *mqueue[MAX_MQUEUE_MOUNTS];
	size_t n_mqueue = 0;

	if (fd < 0)
		return porta_fail(e, "read", "/proc/self/mountinfo", errno, NULL);
	while (rc == 0 && (line = next_line(&lines))) {
		/* id parent major:minor root mount-point options ... */
		char *save = NULL, *field = strtok_r(line, " ", &save);
		for (int k = 0; k < 4 && field; k++)
			field = strtok_r(NULL, " ", &save);
		char *opts = field ? strtok_r(NULL, " ", &save) : NULL;
		if (!field || !opts)
			continue;
		unmangle(field);
		/* ... optional fields, "-", filesystem type, source, options */
		char *fstype = NULL;
		for (char *t = strtok_r(NULL, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			if (strcmp(t, "-") == 0) {
				fstype = strtok_r(NULL, " ", &save);
				break;
			}
		}
		if (fstype && strcmp(fstype, "mqueue") == 0) {
			if (n_mqueue == MAX_MQUEUE_MOUNTS) {
				rc = porta_fail(e, "replace", field, E2BIG,
						  "more host mqueue mounts than porta replaces");
				break;
			}
			if (!(mqueue[n_mqueue] = strdup(field))) {
				rc = porta_fail(e, "replace", field, ENOMEM, NULL);
				break;
			}
			n_mqueue++;
		}
		bool ro = strncmp(opts, "ro", 2) == 0 && (opts[2] == ',' || opts[2] == '\0');
		if (ro || policy_plan_mount_stays_writable(plan, field))
			continue;
		int r = remount_ro(field);
		/* A mount point init cannot reach (another user's directory:
		 * the payload cannot either) or one hidden under a later mount
		 * (its path now names the upper one, remounted in its turn). */
		if (r == -ENOENT || r == -EACCES || r == -ENOTDIR)
			continue;
		if (r)
			rc = porta_fail(e, "make read-only", field, -r, NULL);
	}
	if (lines.heap)
		free(lines.buf);
	if (rc == 0)
		rc = replace_mqueues(mqueue, n_mqueue, e);
	for (size_t i = 0; i < n_mqueue; i++)
		free(mqueue[i]);
	return rc;
}

/* ---- the plan's mount steps, one function each ---------------------------
 *
 * sandbox_mounts_apply() reads as the order of the steps: capture what is
 * bound back, apply each step of the plan, seal the covers, make the rest
 * read-only.  Each step returns 0 or -errno, and names what it was doing in
 * *step and the path in *path for the error. */

/* What the steps share: the captured paths to bind back, in plan order, and
 * which covers stay writable until the paths beneath them are bound back. */
struct mounting {
	const struct policy_plan *plan;
	int *rebind_fd;
	size_t n_rebind, next_rebind;
	bool *late_ro; /* per plan step: a cover to make read-only at the end */
};

static int mount_proc(const char *p)
{
	return mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? -errno : 0;
}

static int mount_tmpfs(const char *p)
{
	if (strcmp(p, "/dev") == 0) {
		/* Device nodes on it would be refused anyway (a tmpfs of a user
		 * namespace is nodev): the devices are bind mounts of the
		 * host's. */
		if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
			return -errno;
		return populate_dev();
	}
	/* /dev/shm is for shared memory, not programs: noexec closes one more
	 * road to running unjudged files.  Its mount point may be in the
	 * private /dev. */
	if (strncmp(p, "/dev/", 5) == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mount("tmpfs", p, "tmpfs",
		  MS_NOSUID | MS_NODEV | (strcmp(p, "/dev/shm") == 0 ? MS_NOEXEC : 0),
		  "mode=1777") < 0)
		return -errno;
	return 0;
}

/* The host's /dev/pts holds the user's other terminals: open one and its
 * keystrokes can be read.  A new devpts instance (devpts.rst, "newinstance"
 * is the default since 4.7) shows only the sandbox's own ptys; its ptmx
 * replaces /dev/ptmx so new ptys land in it.  The command's own terminal
 * stays reachable through its fds and /dev/tty. */
static int mount_devpts(const char *p, const char **step, const char **path)
{
	char ptmx[PATH_MAX];
	struct stat pst;
	int r;

	snprintf(ptmx, sizeof(ptmx), "%s/ptmx", p);
	/* In the private /dev, the mount points are made here (never opened
	 * where they exist: that would be a pty). */
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (lstat("/dev/ptmx", &pst) < 0 && (r = make_mount_point("/dev/ptmx", false))) {
		*path = "/dev/ptmx";
		return r;
	}
	if (mount("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=620") < 0)
		return -errno;
	if (mount(ptmx, "/dev/ptmx", NULL, MS_BIND, NULL) < 0) {
		*step = "bind the private ptmx on";
		*path = "/dev/ptmx";
		return -errno;
	}
	return 0;
}

/* A path captured before a private or closed directory hid it, bound back
 * through /proc/self/fd. */
static int bind_back(struct mounting *mg, const char *p)
{
	int fd = mg->rebind_fd[mg->next_rebind++];
	struct stat st;
	char src[64];
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((r = make_mount_point(p, S_ISDIR(st.st_mode))))
		return r;
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	return mount(src, p, NULL, MS_BIND | MS_REC, NULL) < 0 ? -errno : 0;
}

static int pin(const char *p)
{
	return mount(p, p, NULL, MS_BIND | MS_REC, NULL) < 0 ? -errno : 0;
}

static int make_read_only(const char *p)
{
	if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	return remount_ro(p);
}

/* The closed home's ~/.gitconfig (policy/plan.h, home_gitconfig): the
 * host's identity only, read-only like the cover around it. */
static int write_gitconfig(const char *home, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);

	if (!policy_path_join(home, ".gitconfig", path, sizeof(path)))
		return -ENAMETOOLONG;
	_cleanup_fd_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	return 0;
}

/* Writable until the -v mounts beneath it are bound back (they need mount
 * points), read-only before the payload starts (seal_covers()). */
static int cover_dir(struct mounting *mg, size_t i, const char *p)
{
	const struct policy_plan *plan = mg->plan;
	bool gitconfig = plan->home_gitconfig && plan->home && strcmp(p, plan->home) == 0 &&
			 plan->mounts[i].reason == POLICY_PATH_HOME_CLOSED;
	bool late = rebind_beneath(plan, i) || gitconfig;

	if (mount("tmpfs", p, "tmpfs", (late ? 0 : MS_RDONLY) | COVER_FLAGS,
		  gitconfig ? HOME_COVER_DATA : COVER_DATA) < 0)
		return -errno;
	mg->late_ro[i] = late;
	return gitconfig ? write_gitconfig(p, plan->home_gitconfig) : 0;
}

static int cover_file(const char *p)
{
	if (mount("/dev/null", p, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return remount_ro(p);
}

/* One step of the plan. */
static int apply_step(struct mounting *mg, size_t i, struct porta_error *e)
{
	const struct policy_mount_step *m = &mg->plan->mounts[i];
	const char *p = m->path, *step = "mount";
	int r = 0;

	switch (m->kind) {
	case POLICY_MOUNT_PROC:
		step = "mount /proc";
		r = mount_proc(p);
		break;
	case POLICY_MOUNT_TMPFS:
		step = "mount private tmpfs on";
		r = mount_tmpfs(p);
		break;
	case POLICY_MOUNT_DEVPTS:
		step = "mount private devpts on";
		r = mount_devpts(p, &step, &p);
		break;
	case POLICY_MOUNT_REBIND:
		step = "bind back (beneath a private or closed directory)";
		r = bind_back(mg, p);
		break;
	case POLICY_MOUNT_PIN:
		step = "pin";
		r = pin(p);
		break;
	case POLICY_MOUNT_READONLY:
		step = "make read-only";
		r = make_read_only(p);
		break;
	case POLICY_MOUNT_COVER_DIR:
		step = "cover closed directory";
		r = cover_dir(mg, i, p);
		break;
	case POLICY_MOUNT_COVER_FILE:
		step = "cover closed file";
		r = cover_file(p);
		break;
	}
	/* A closed path that vanished since porta looked has nothing left to
	 * read; one init cannot reach (EACCES: another user's 0700 directory,
	 * whose owner is not mapped here) the payload, with the same uid and
	 * no capabilities, cannot reach either. */
	if ((r == -ENOENT || r == -EACCES) &&
	    (m->kind == POLICY_MOUNT_COVER_DIR || m->kind == POLICY_MOUNT_COVER_FILE))
		r = 0;
	return r ? porta_fail(e, step, p, -r, NULL) : 0;
}

/* -v paths under /tmp (and beneath closed directories) are captured
 * (O_PATH, in this namespace) before the private tmpfs or the cover hides
 * them. */
static int capture_rebinds(struct mounting *mg, struct porta_error *e)
{
	const struct policy_plan *plan = mg->plan;

	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind != POLICY_MOUNT_REBIND)
			continue;
		int fd = open(m->path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return porta_fail(e, "capture a path to bind back", m->path, errno, NULL);
		mg->rebind_fd[mg->n_rebind++] = fd;
	}
	return 0;
}

/* The covers the bound-back paths needed writable become read-only. */
static int seal_covers(struct mounting *mg, struct porta_error *e)
{
	for (size_t i = 0; i < mg->plan->n_mounts; i++) {
		const char *p = mg->plan->mounts[i].path;
		/* "mode" alone: a size given again would have to hold what
		 * the cover holds (the home's ~/.gitconfig may be larger
		 * than COVER_DATA's) */
		if (mg->late_ro[i] &&
		    mount(NULL, p, NULL, MS_REMOUNT | MS_RDONLY | COVER_FLAGS, SEAL_DATA) < 0)
			return porta_fail(e, "make the cover read-only:", p, errno, NULL);
	}
	return 0;
}

/* Plans of up to this many steps keep their bookkeeping on init's stack:
 * calloc(3) in init writes the heap it shares copy-on-write with the
 * supervisor (see next_line()). */
#define MOUNTS_ON_STACK 128

int sandbox_mounts_apply(const struct policy_plan *plan, struct porta_error *e)
{
	struct mounting mg = { .plan = plan };
	int fd_here[MOUNTS_ON_STACK];
	bool late_here[MOUNTS_ON_STACK] = { false };
	bool heap = plan->n_mounts + 1 > MOUNTS_ON_STACK;
	int rc = 0;

	mg.rebind_fd = heap ? calloc(plan->n_mounts + 1, sizeof(*mg.rebind_fd)) : fd_here;
	mg.late_ro = heap ? calloc(plan->n_mounts + 1, sizeof(*mg.late_ro)) : late_here;
	if (!mg.rebind_fd || !mg.late_ro) {
		rc = porta_fail(e, "apply the mounts", NULL, ENOMEM, NULL);
		goto out;
	}
	rc = capture_rebinds(&mg, e);
	for (size_t i = 0; rc == 0 && i < plan->n_mounts; i++)
		rc = apply_step(&mg, i, e);
	if (rc == 0)
		rc = seal_covers(&mg, e);
	if (rc == 0)
		rc = make_rest_read_only(plan, e);
out:
	for (size_t i = 0; i < mg.n_rebind; i++)
		close(mg.rebind_fd[i]);
	if (heap) {
		free(mg.rebind_fd);
		free(mg.late_ro);
	}
	return rc;
}
