/* supervisor/cgroup.c: creating porta-<pid>-<random> for the ceilings, handing init
 * the fds it joins through, reporting and removing it (what the host offers
 * is host/cgroup.c's).
 *
 * Placement without a race: the supervisor opens each new cgroup's
 * cgroup.procs before clone and init writes "0" to the inherited fd before
 * it does anything else.  The kernel checks the credentials the file was
 * opened with (v1: __cgroup1_procs_write() compares of->file->f_cred's euid
 * with the task's uid; v2: cgroup_procs_write_permission() uses the opener's
 * credentials and cgroup namespace, since the fix for CVE-2021-4197), so the
 * write works from inside the sandbox's user namespace: probed on this
 * project's CI host for v1 as root and as an unprivileged user with a
 * chowned (delegated) v1 directory, and an fd opened by uid 1002 refuses a
 * root writer, which shows the opener is what counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "host/cgroup.h"
#include "supervisor/cgroup.h"

/* rmdir of a cgroup whose last task has just been reaped can see EBUSY for a
 * moment (the css goes offline asynchronously): retry for at most this long. */
#define RMDIR_TRIES 100
#define RMDIR_PAUSE_NS (10 * 1000 * 1000)

struct cg_dir {
	char path[HOST_CG_PATH_MAX]; /* .../porta-<pid>-<random> */
	int version;
	bool ctrl[HOST_CG_NCTRL];
	int procs_fd; /* cgroup.procs, O_WRONLY; -1 once closed */
};

struct supervisor_cgroup {
	/* porta-<pid>-<8 hex digits>: the pid alone is not unique where
	 * portas in different pid namespaces share a parent cgroup (two
	 * containers' or two `unshare --pid` shells' portas are both pid 1) */
	char name[40];
	struct cg_dir dirs[HOST_CG_NCTRL];
	size_t n;
	unsigned held;       /* the controllers a directory of dirs holds */
	uint64_t memory_mib; /* 0 when not limited here */
	uint64_t max_procs;  /* 0 when not limited here */
	uint64_t pids_max;   /* pids.max: max_procs, + 1 for init when there is one */
	bool procs_default;  /* max_procs is the default ceiling, not --max-procs */
	int cpu_fd;          /* cpu.stat (v2) or cpuacct.usage (v1), or -1 */
	int cpu_version;
};

static int write_str(const char *dir, const char *file, const char *value)
{
	char path[HOST_CG_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	_cleanup_fd_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);

	if (fd < 0)
		return -errno;
	if (write(fd, value, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	return 0;
}

static int write_u64(const char *dir, const char *file, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return write_str(dir, file, buf);
}

/* A fresh cg, its name chosen; NULL when out of memory or without
 * randomness. */
static struct supervisor_cgroup *cg_new(struct porta_error *e)
{
	struct supervisor_cgroup *cg = calloc(1, sizeof(*cg));
	uint32_t rnd;

	if (!cg) {
		porta_fail(e, "cgroup", NULL, ENOMEM, NULL);
		return NULL;
	}
	if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		porta_fail(e, "getrandom", NULL, errno, "for the cgroup's name");
		free(cg);
		return NULL;
	}
	snprintf(cg->name, sizeof(cg->name), "porta-%ld-%08" PRIx32, (long)getpid(), rnd);
	cg->cpu_fd = -1;
	return cg;
}

/* rmdir with the bounded EBUSY retry; 0 or -errno. */
static int remove_dir(const char *path)
{
	for (int i = 0;; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		int err = errno;
		if (err != EBUSY || i + 1 >= RMDIR_TRIES)
			return -err;
		nanosleep(&(struct timespec){ 0, RMDIR_PAUSE_NS }, NULL);
	}
}

/* Sets the limits of d; 0 or -errno with e filled. */
static int set_limits(const struct supervisor_cgroup *cg, const struct cg_dir *d,
		      struct porta_error *e)
{
	char path[HOST_CG_PATH_MAX + 64];
	int r;

	if (d->ctrl[HOST_CG_MEMORY]) {
		uint64_t bytes = cg->memory_mib << 20;
		const char *limit = d->version == 2 ? "memory.max" : "memory.limit_in_bytes";
		if ((r = write_u64(d->path, limit, bytes))) {
			snprintf(path, sizeof(path), "%s/%s", d->path, limit);
			return porta_fail(e, "--max-memory-mb: write", path, -r, NULL);
		}
		/* Swap must not extend the ceiling.  The files are absent when
		 * the kernel does not account swap (no swap, or swapaccount=0),
		 * and then swap cannot extend it either. */
		if (d->version == 2)
			r = write_str(d->path, "memory.swap.max", "0");
		else
			r = write_u64(d->path, "memory.memsw.limit_in_bytes", bytes);
		if (r && r != -ENOENT) {
			snprintf(path, sizeof(path), "%s/%s", d->path,
				 d->version == 2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
			return porta_fail(e, "--max-memory-mb: write", path, -r, NULL);
		}
	}
	if (d->ctrl[HOST_CG_PIDS]) {
		/* pids.max counts tasks, threads included, as RLIMIT_NPROC does */
		if ((r = write_u64(d->path, "pids.max", cg->pids_max))) {
			snprintf(path, sizeof(path), "%s/pids.max", d->path);
			return porta_fail(e, "--max-procs: write", path, -r, NULL);
		}
	}
	return 0;
}

static void destroy(struct supervisor_cgroup *cg, bool warn)
{
	if (cg->cpu_fd >= 0)
		close(cg->cpu_fd);
	for (size_t i = 0; i < cg->n; i++) {
		struct cg_dir *d = &cg->dirs[i];
		if (d->procs_fd >= 0)
			close(d->procs_fd);
		d->procs_fd = -1;
		int r = remove_dir(d->path);
		if (r && warn)
			log_msg(LOG_LEVEL_WARN, "could not remove the cgroup %s: %s; remove it with rmdir",
				d->path, strerror(-r));
	}
	free(cg);
}

/* Makes, below ch's parents, the directories for the controllers of mask
 * not yet in cg (a directory cg has already, v2's, takes them too), writes
 * their limits and opens each new one's cgroup.procs.  A directory that
 * cannot be made, when only controllers of optional hold it, is left out
 * (its controllers then are not held: the caller counts for itself);
 * otherwise 0 or -errno with e filled, what was made so far staying in cg
 * for the caller's destroy. */
static int make(struct supervisor_cgroup *cg, const struct host_cg_choice *ch, unsigned mask,
		unsigned optional, struct porta_error *e)
{
	int r;

	/* v2: the controller must be enabled for porta's cgroup's children
	 * (cgroup.subtree_control) before a child can use it. */
	for (int c = 0; c < HOST_CG_NCTRL; c++) {
		if (!(mask & (1u << c)) || !ch->enable[c])
			continue;
		char plus[32], path[HOST_CG_PATH_MAX + 32];
		snprintf(plus, sizeof(plus), "+%s", host_cg_ctrl_name((enum host_cg_ctrl)c));
		if ((r = write_str(ch->parent[c], "cgroup.subtree_control", plus))) {
			if (optional & (1u << c)) {
				mask &= ~(1u << c);
				continue;
			}
			snprintf(path, sizeof(path), "%s/cgroup.subtree_control", ch->parent[c]);
			return porta_fail(e, "enable a cgroup controller: write", path, -r, "%s", plus);
		}
	}
	/* One directory per distinct parent: a v2 hierarchy, or a v1 hierarchy
	 * mounted with several controllers, holds them in one cgroup. */
	size_t first_new = cg->n;
	for (int c = 0; c < HOST_CG_NCTRL; c++) {
		if (!(mask & (1u << c)))
			continue;
		char dir[HOST_CG_PATH_MAX];
		int n = snprintf(dir, sizeof(dir), "%s/%s", ch->parent[c], cg->name);
		if (n < 0 || (size_t)n >= sizeof(dir))
			return porta_fail(e, "cgroup", ch->parent[c], ENAMETOOLONG, NULL);
		size_t i = 0;
		while (i < cg->n && strcmp(cg->dirs[i].path, dir) != 0)
			i++;
		if (i == cg->n) {
			cg->n++;
			memset(&cg->dirs[i], 0, sizeof(cg->dirs[i]));
			snprintf(cg->dirs[i].path, sizeof(cg->dirs[i].path), "%s", dir);
			cg->dirs[i].version = ch->version[c];
			cg->dirs[i].procs_fd = -1;
		}
		cg->dirs[i].ctrl[c] = true;
	}
	for (size_t i = 0; i < cg->n; i++) {
		struct cg_dir *d = &cg->dirs[i];
		bool fresh = i >= first_new;
		unsigned held = 0;
		for (int c = 0; c < HOST_CG_NCTRL; c++)
			held |= d->ctrl[c] ? 1u << c : 0;
		if (!fresh && !(held & mask))
			continue;
		int err = 0;
		char procs[HOST_CG_PATH_MAX + 32];
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", d->path);
		/* EEXIST is not taken over: the directory is another run's
		 * (the name is random past the pid), or a leftover no one
		 * can tell from one in use */
		if (fresh && mkdir(d->path, 0755) < 0)
			err = errno;
		if (!err && (r = set_limits(cg, d, e))) {
			if (!(held & ~optional))
				err = -r; /* optional only: left out below */
			else
				return r;
		}
		if (!err && fresh && (d->procs_fd = open(procs, O_WRONLY | O_CLOEXEC)) < 0)
			err = errno;
		if (!err)
			continue;
		if (held & ~optional)
			return porta_fail(e, fresh ? "create the cgroup" : "cgroup", d->path, err,
					  NULL);
		/* only what porta can count for itself: count it there */
		log_msg(LOG_LEVEL_DEBUG, "the cgroup %s: %s; porta counts for itself", d->path,
			strerror(err));
		if (d->procs_fd >= 0)
			close(d->procs_fd);
		if (fresh)
			rmdir(d->path);
		memmove(d, d + 1, (cg->n - i - 1) * sizeof(*d));
		cg->n--;
		i--;
	}
	cg->held = 0;
	for (size_t i = 0; i < cg->n; i++)
		for (int c = 0; c < HOST_CG_NCTRL; c++)
			cg->held |= cg->dirs[i].ctrl[c] ? 1u << c : 0;
	return 0;
}

/* The open file of the run's CPU time, when a cgroup holds it. */
static void open_cpu(struct supervisor_cgroup *cg)
{
	for (size_t i = 0; i < cg->n && cg->cpu_fd < 0; i++) {
		const struct cg_dir *d = &cg->dirs[i];
		char path[HOST_CG_PATH_MAX + 32];
		if (!d->ctrl[HOST_CG_CPU])
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->path,
			 d->version == 2 ? "cpu.stat" : "cpuacct.usage");
		cg->cpu_fd = open(path, O_RDONLY | O_CLOEXEC);
		cg->cpu_version = d->version;
		if (cg->cpu_fd < 0)
			log_msg(LOG_LEVEL_DEBUG, "open %s: %s", path, strerror(errno));
	}
}

int supervisor_cgroup_create(const struct policy_options *o, struct supervisor_cgroup **out,
			  struct porta_error *e)
{
	unsigned need = host_cg_needed(o), want = host_cg_wanted(o) & ~need;
	_cleanup_free_ struct host_cg_facts *f = NULL;
	_cleanup_free_ struct host_cg_choice *ch = NULL, *opt = NULL;
	struct supervisor_cgroup *cg = NULL;
	enum host_cg_ctrl failed = HOST_CG_MEMORY;
	char reason[1024], text[1536];
	int r;

	*out = NULL;
	if (!need && !want)
		return 0;
	f = calloc(1, sizeof(*f));
	ch = calloc(1, sizeof(*ch));
	opt = calloc(1, sizeof(*opt));
	if (!f || !ch || !opt)
		return porta_fail(e, "cgroup", NULL, ENOMEM, NULL);
	if (!(cg = cg_new(e)))
		return -(e->err ? e->err : ENOMEM);
	if ((r = host_cg_gather(f))) {
		free(cg);
		if (!need)
			return 0; /* porta counts for itself */
		return porta_fail(e, "read", "/proc/self/cgroup", -r, NULL);
	}
	if (host_cg_choose(f, need, ch, &failed, reason, sizeof(reason)) != HOST_CG_OK) {
		free(cg);
		host_cg_refusal(failed, reason, text, sizeof(text));
		return porta_fail(e, "refusing the ceilings", NULL, 0, "%s", text);
	}
	unsigned got = host_cg_choose_each(f, want, opt);
	for (int c = 0; c < HOST_CG_NCTRL; c++) {
		if (!(got & (1u << c)))
			continue;
		ch->version[c] = opt->version[c];
		ch->enable[c] = opt->enable[c];
		snprintf(ch->parent[c], sizeof(ch->parent[c]), "%s", opt->parent[c]);
	}
	cg->memory_mib = (got & (1u << HOST_CG_MEMORY)) ? o->max_memory_mib.value : 0;
	cg->max_procs = (need & (1u << HOST_CG_PIDS)) ? o->max_procs.value : 0;
	/* init (pid 1 of the sandbox) is in the cgroup too, hence + 1 */
	cg->pids_max = cg->max_procs + 1;
	if ((r = make(cg, ch, need | got, got, e))) {
		destroy(cg, true);
		return r;
	}
	if (!(cg->held & (1u << HOST_CG_MEMORY)))
		cg->memory_mib = 0;
	if (cg->n == 0) {
		destroy(cg, false);
		return 0;
	}
	*out = cg;
	return 0;
}

int supervisor_cgroup_add_pids(struct supervisor_cgroup **cgp, uint64_t max_procs,
			       struct porta_error *e)
{
	_cleanup_free_ struct host_cg_facts *f = calloc(1, sizeof(*f));
	_cleanup_free_ struct host_cg_choice *ch = calloc(1, sizeof(*ch));
	struct supervisor_cgroup *cg = *cgp;
	bool made = false;
	int r;

	if (cg && (cg->held & (1u << HOST_CG_PIDS)))
		return 1;
	if (!f || !ch)
		return porta_fail(e, "cgroup", NULL, ENOMEM, NULL);
	if (host_cg_gather(f) < 0 || !host_cg_choose_each(f, 1u << HOST_CG_PIDS, ch))
		return 0;
	if (!cg) {
		if (!(cg = cg_new(e)))
			return -(e->err ? e->err : ENOMEM);
		made = true;
	}
	/* no init in the cgroup: exactly max_procs */
	cg->max_procs = cg->pids_max = max_procs;
	cg->procs_default = true;
	if ((r = make(cg, ch, 1u << HOST_CG_PIDS, 1u << HOST_CG_PIDS, e))) {
		if (made)
			destroy(cg, true);
		return r;
	}
	if (made && cg->n == 0) {
		destroy(cg, false);
		return 0;
	}
	*cgp = cg;
	return (cg->held & (1u << HOST_CG_PIDS)) ? 1 : 0;
}

bool supervisor_cgroup_holds(const struct supervisor_cgroup *cg, enum host_cg_ctrl c)
{
	return cg && (cg->held & (1u << c));
}

int supervisor_cgroup_cpu_usec(struct supervisor_cgroup *cg, uint64_t *usec)
{
	char buf[512];

	if (!cg || !(cg->held & (1u << HOST_CG_CPU)))
		return -ENOENT;
	/* opened at the first reading, after the clone: init inherits none of it */
	if (cg->cpu_fd < 0)
		open_cpu(cg);
	if (cg->cpu_fd < 0)
		return -ENOENT;
	ssize_t n = pread(cg->cpu_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (cg->cpu_version == 2)
		return host_cg_counter(buf, (size_t)n, "usage_usec", usec) ? 0 : -EINVAL;
	/* cpuacct.usage: nanoseconds, one number */
	uint64_t ns = 0;
	size_t k = 0;
	for (; k < (size_t)n && buf[k] >= '0' && buf[k] <= '9'; k++)
		ns = ns * 10 + (uint64_t)(buf[k] - '0');
	if (k == 0)
		return -EINVAL;
	*usec = ns / 1000;
	return 0;
}

const char *supervisor_cgroup_dir(const struct supervisor_cgroup *cg, enum host_cg_ctrl c)
{
	for (size_t i = 0; cg && i < cg->n; i++)
		if (cg->dirs[i].ctrl[c])
			return cg->dirs[i].path;
	return NULL;
}

size_t supervisor_cgroup_procs_fds(const struct supervisor_cgroup *cg, int *fds, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; cg && i < cg->n && n < cap; i++)
		fds[n++] = cg->dirs[i].procs_fd;
	return n;
}

/* A counter of the file dir/file, or 0. */
static uint64_t counter(const char *dir, const char *file, const char *key)
{
	char path[HOST_CG_PATH_MAX + 64], buf[1024];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	_cleanup_fd_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (n > 0 && !host_cg_counter(buf, (size_t)n, key, &v))
		v = 0;
	return v;
}

void supervisor_cgroup_finish(struct supervisor_cgroup *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->n; i++) {
		const struct cg_dir *d = &cg->dirs[i];
		if (d->ctrl[HOST_CG_MEMORY]) {
			uint64_t kills = d->version == 2 ? counter(d->path, "memory.events", "oom_kill")
							 : counter(d->path, "memory.oom_control", "oom_kill");
			if (kills)
				log_msg(LOG_LEVEL_WARN,
					"--max-memory-mb %llu reached: the kernel's OOM killer ended %llu "
					"process%s of the command",
					(unsigned long long)cg->memory_mib, (unsigned long long)kills,
					kills == 1 ? "" : "es");
		}
		if (d->ctrl[HOST_CG_PIDS]) {
			uint64_t refused = counter(d->path, "pids.events", "max");
			if (refused)
				log_msg(LOG_LEVEL_WARN,
					"%s %llu reached: the kernel refused %llu fork%s",
					cg->procs_default ? "the default process ceiling (--max-procs)"
							  : "--max-procs",
					(unsigned long long)cg->max_procs, (unsigned long long)refused,
					refused == 1 ? "" : "s");
		}
	}
	destroy(cg, true);
}

int supervisor_cgroup_without_init(struct supervisor_cgroup *cg, struct porta_error *e)
{
	char path[HOST_CG_PATH_MAX + 16];

	for (size_t i = 0; cg && i < cg->n; i++) {
		struct cg_dir *d = &cg->dirs[i];
		if (!d->ctrl[HOST_CG_PIDS] || !cg->max_procs)
			continue;
		/* degraded, no init; the payload's helper that hands porta the
		 * connect watch (sandbox/netinit.h) is made before it joins */
		cg->pids_max = cg->max_procs;
		int r = write_u64(d->path, "pids.max", cg->pids_max);
		if (r) {
			snprintf(path, sizeof(path), "%s/pids.max", d->path);
			return porta_fail(e, "--max-procs: write", path, -r, NULL);
		}
	}
	return 0;
}
