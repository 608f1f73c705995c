/* supervisor/ceiling.c: see ceiling.h.  The parsers and the interval are
 * pure; the rest reads /proc, the cgroup's accounting and the sandbox's
 * tmpfs sizes on the event loop's timer. */
#include "supervisor/ceiling.h"

#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "host/cgroup.h"
#include "host/host.h"

/* Processes of a degraded run's tree read at most per check: past them the
 * check counts what it has read (a tree that big is a fork bomb the
 * process ceiling holds). */
#define WALK_MAX 65536

#define USEC 1000000ULL

struct supervisor_ceiling {
	struct supervisor_cgroup *cg; /* CPU read here when it holds it */
	uint64_t cpu_budget_us;             /* 0: --max-cpu not counted */
	uint64_t cpu_s;                     /* --max-cpu as given */
	uint64_t mem_budget_kib;            /* 0: --max-memory-mb not polled */
	uint64_t mem_mib;
	bool share_tmp;
	unsigned ncpu;
	long ticks_per_s;
	int proc_fd;
	DIR *proc_dir; /* /proc, read again at each check (full sandbox) */
	struct event *timer;
	pid_t pid;
	bool degraded;
	dev_t ns_dev; /* init's pid namespace (full sandbox) */
	ino_t ns_ino;
	dev_t host_tmp_dev, host_shm_dev; /* what /tmp and /dev/shm are outside */
	uint64_t children_base_us;        /* degraded: RUSAGE_CHILDREN before the run */
	pid_t *walk;                      /* degraded: the tree, WALK_MAX */
	bool reached;
	void (*stop)(void *arg);
	void *arg;
};

/* ---- pure parts ------------------------------------------------------------ */

bool supervisor_ceiling_stat_ticks(const char *buf, size_t n, uint64_t *ticks)
{
	const char *end = buf + n, *p = NULL;

	for (const char *q = buf; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p || p + 2 >= end || p[1] != ' ')
		return false;
	p += 2;
	/* field 3 (state) is the first after the name; 14..17 are the times */
	uint64_t sum = 0;
	for (int field = 3; field <= 17; field++) {
		uint64_t v = 0;
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\n') {
			if (field >= 14) {
				if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
					return false;
				v = v * 10 + (uint64_t)(*p - '0');
			}
			p++;
		}
		if (p == s)
			return false;
		if (field >= 14)
			sum += v;
		/* every field ends at a space (the 17th too: 44 more follow), so
		 * a line cut short never reads as a smaller number */
		if (p >= end || *p != ' ')
			return false;
		p++;
	}
	*ticks = sum;
	return true;
}

/* The value of "KEY:\t   N kB" among the lines of buf, added to *sum. */
static bool add_kib(const char *buf, size_t n, const char *key, uint64_t *sum)
{
	size_t kl = strlen(key);
	const char *end = buf + n;

	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > kl && memcmp(p, key, kl) == 0 && p[kl] == ':') {
			const char *d = p + kl + 1;
			while (d < le && (*d == ' ' || *d == '\t'))
				d++;
			uint64_t v = 0;
			const char *s = d;
			for (; d < le && *d >= '0' && *d <= '9'; d++) {
				if (v > (UINT64_MAX - 9) / 10)
					return false;
				v = v * 10 + (uint64_t)(*d - '0');
			}
			if (d == s || le - d != 3 || memcmp(d, " kB", 3) != 0)
				return false;
			*sum += v;
			return true;
		}
		p = nl ? nl + 1 : end;
	}
	return true; /* absent: a zombie, a kernel thread */
}

bool supervisor_ceiling_status_kib(const char *buf, size_t n, uint64_t *kib)
{
	uint64_t sum = 0;

	if (!add_kib(buf, n, "RssAnon", &sum) || !add_kib(buf, n, "RssShmem", &sum))
		return false;
	*kib = sum;
	return true;
}

uint64_t supervisor_ceiling_cpu_interval_us(uint64_t budget_us, uint64_t used_us, unsigned ncpu)
{
	if (ncpu == 0)
		ncpu = 1;
	uint64_t fine = budget_us / 10 / ncpu;
	if (fine > 250000)
		fine = 250000;
	if (fine < 10000)
		fine = 10000;
	uint64_t left = used_us < budget_us ? budget_us - used_us : 0;
	uint64_t earliest = left / ncpu; /* every CPU busy with the run from now on */
	return earliest > fine ? earliest : fine;
}

/* ---- reading the run ------------------------------------------------------- */

/* The text of /proc/<rel> (relative to proc_fd) into buf[cap], its length,
 * or -1. */
static ssize_t read_at(int proc_fd, const char *rel, char *buf, size_t cap)
{
	int fd = openat(proc_fd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* One process's share: its times (and its reaped children's) in
 * microseconds, and its memory in KiB.  A process gone meanwhile counts
 * nothing: its time is in its reaper's now, read at the next check. */
static void add_process(const struct supervisor_ceiling *c, pid_t pid, uint64_t *cpu_us,
			uint64_t *mem_kib)
{
	char rel[48], buf[4096];
	ssize_t n;
	uint64_t v;

	if (c->cpu_budget_us && !supervisor_cgroup_holds(c->cg, HOST_CG_CPU)) {
		snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
		if ((n = read_at(c->proc_fd, rel, buf, sizeof(buf))) > 0 &&
		    supervisor_ceiling_stat_ticks(buf, (size_t)n, &v))
			*cpu_us += v * USEC / (uint64_t)c->ticks_per_s;
	}
	if (c->mem_budget_kib) {
		snprintf(rel, sizeof(rel), "%d/status", (int)pid);
		if ((n = read_at(c->proc_fd, rel, buf, sizeof(buf))) > 0 &&
		    supervisor_ceiling_status_kib(buf, (size_t)n, &v))
			*mem_kib += v;
	}
}

/* Full sandbox: every process of /proc in init's pid namespace. */
static void read_namespace(struct supervisor_ceiling *c, uint64_t *cpu_us, uint64_t *mem_kib)
{
	struct dirent *de;

	rewinddir(c->proc_dir);
	while ((de = readdir(c->proc_dir)) != NULL) {
		char rel[48], *end;
		struct stat st;
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		long v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0 || v > 0x7fffffff)
			continue;
		/* needs ptrace read access (proc(5)): the supervisor owns the
		 * sandbox's user namespace; what it may not inspect is not
		 * the sandbox's */
		snprintf(rel, sizeof(rel), "%ld/ns/pid", v);
		if (fstatat(c->proc_fd, rel, &st, 0) < 0 || st.st_ino != c->ns_ino ||
		    st.st_dev != c->ns_dev)
			continue;
		add_process(c, (pid_t)v, cpu_us, mem_kib);
	}
}

/* Appends the children of every thread of pid to q[*n..cap). */
static void add_children(const struct supervisor_ceiling *c, const char *task_dir, pid_t *q,
			 size_t *n, size_t cap)
{
	int tfd = openat(c->proc_fd, task_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return;
	DIR *d = fdopendir(tfd);
	if (!d) {
		close(tfd);
		return;
	}
	struct dirent *de;
	while (*n < cap && (de = readdir(d)) != NULL) {
		char rel[64], buf[8192];
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%.20s/children", de->d_name);
		int fd = openat(tfd, rel, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* a list longer than buf (hundreds of children of one thread)
		 * is read in part: the rest counts at a later check, once the
		 * first ones are reaped */
		for (char *p = buf; *p && *n < cap;) {
			char *e;
			long v = strtol(p, &e, 10);
			if (e == p)
				break;
			if (v > 0)
				q[(*n)++] = (pid_t)v;
			p = e;
			while (*p == ' ' || *p == '\n')
				p++;
		}
	}
	closedir(d);
}

/* Degraded: porta's reaped children and its live descendants. */
static void read_tree(struct supervisor_ceiling *c, uint64_t *cpu_us, uint64_t *mem_kib)
{
	size_t nq = 0;
	char rel[48];

	if (c->cpu_budget_us && !supervisor_cgroup_holds(c->cg, HOST_CG_CPU)) {
		struct rusage ru;
		if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
			uint64_t us = (uint64_t)ru.ru_utime.tv_sec * USEC + (uint64_t)ru.ru_utime.tv_usec +
				      (uint64_t)ru.ru_stime.tv_sec * USEC + (uint64_t)ru.ru_stime.tv_usec;
			*cpu_us += us > c->children_base_us ? us - c->children_base_us : 0;
		}
	}
	add_children(c, "self/task", c->walk, &nq, WALK_MAX);
	for (size_t i = 0; i < nq; i++) {
		add_process(c, c->walk[i], cpu_us, mem_kib);
		snprintf(rel, sizeof(rel), "%d/task", (int)c->walk[i]);
		add_children(c, rel, c->walk, &nq, WALK_MAX);
	}
}

/* The bytes in a tmpfs of the sandbox at /proc/PID/root/<path>, in KiB; 0
 * while it is still the host's (init has not mounted its own yet) or is
 * not a tmpfs. */
static uint64_t tmpfs_kib(const struct supervisor_ceiling *c, const char *path, dev_t host_dev)
{
	char rel[64];
	struct stat st;
	struct statfs sf;

	snprintf(rel, sizeof(rel), "%d/root%s", (int)c->pid, path);
	int fd = openat(c->proc_fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	uint64_t kib = 0;
	if (fstat(fd, &st) == 0 && st.st_dev != host_dev && fstatfs(fd, &sf) == 0 &&
	    sf.f_type == TMPFS_MAGIC)
		kib = ((uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize) >> 10;
	close(fd);
	return kib;
}

static void on_timer(evutil_socket_t fd, short what, void *arg);

static void schedule(struct supervisor_ceiling *c, uint64_t us)
{
	struct timeval tv = { (time_t)(us / USEC), (suseconds_t)(us % USEC) };
	evtimer_add(c->timer, &tv);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor_ceiling *c = arg;
	uint64_t cpu_us = 0, mem_kib = 0;

	(void)fd;
	(void)what;
	if (c->reached)
		return;
	bool own_cpu = c->cpu_budget_us && !supervisor_cgroup_holds(c->cg, HOST_CG_CPU);
	if ((own_cpu || c->mem_budget_kib) && c->degraded)
		read_tree(c, &cpu_us, &mem_kib);
	else if (own_cpu || c->mem_budget_kib)
		read_namespace(c, &cpu_us, &mem_kib);
	if (c->cpu_budget_us && supervisor_cgroup_holds(c->cg, HOST_CG_CPU) &&
	    supervisor_cgroup_cpu_usec(c->cg, &cpu_us) < 0)
		cpu_us = 0; /* unreadable now: the next check tries again */
	if (c->mem_budget_kib && !c->degraded) {
		if (!c->share_tmp)
			mem_kib += tmpfs_kib(c, "/tmp", c->host_tmp_dev);
		mem_kib += tmpfs_kib(c, "/dev/shm", c->host_shm_dev);
	}
	if (c->cpu_budget_us && cpu_us >= c->cpu_budget_us) {
		c->reached = true;
		log_msg(LOG_LEVEL_WARN,
			"--max-cpu %llu reached: the run's processes used %llu.%llu s of CPU together",
			(unsigned long long)c->cpu_s, (unsigned long long)(cpu_us / USEC),
			(unsigned long long)(cpu_us % USEC / 100000));
	} else if (c->mem_budget_kib && mem_kib > c->mem_budget_kib) {
		c->reached = true;
		log_msg(LOG_LEVEL_WARN,
			"--max-memory-mb %llu reached: the run's processes held %llu MiB together "
			"(their resident memory and the sandbox's /tmp, read by porta every %d ms)",
			(unsigned long long)c->mem_mib, (unsigned long long)(mem_kib >> 10),
			SUPERVISOR_CEILING_MEMORY_MS);
	}
	if (c->reached) {
		c->stop(c->arg);
		return;
	}
	uint64_t next = UINT64_MAX;
	if (c->cpu_budget_us)
		next = supervisor_ceiling_cpu_interval_us(c->cpu_budget_us, cpu_us, c->ncpu);
	if (c->mem_budget_kib && next > SUPERVISOR_CEILING_MEMORY_MS * 1000ULL)
		next = SUPERVISOR_CEILING_MEMORY_MS * 1000ULL;
	schedule(c, next);
}

/* ---- life cycle -------------------------------------------------------------- */

int supervisor_ceiling_create(const struct policy_plan *plan, struct supervisor_cgroup *cg,
			      struct supervisor_ceiling **out, struct porta_error *e)
{
	const struct policy_options *o = plan->opts;
	bool cpu = o->max_cpu_s.set;
	bool mem = o->max_memory_mib.set && !supervisor_cgroup_holds(cg, HOST_CG_MEMORY);

	*out = NULL;
	if (!cpu && !mem)
		return 0;
	struct supervisor_ceiling *c = calloc(1, sizeof(*c));
	if (!c)
		return porta_fail(e, "ceilings", NULL, ENOMEM, NULL);
	c->cg = cg;
	c->proc_fd = -1;
	c->cpu_s = cpu ? o->max_cpu_s.value : 0;
	c->cpu_budget_us = c->cpu_s * USEC;
	c->mem_mib = mem ? o->max_memory_mib.value : 0;
	c->mem_budget_kib = c->mem_mib << 10;
	c->share_tmp = o->share_tmp;
	*out = c;
	return 0;
}

int supervisor_ceiling_start(struct supervisor_ceiling *c, struct event_base *base, pid_t pid,
			     bool degraded, void (*stop)(void *arg), void *arg)
{
	char rel[48];
	struct stat st;

	if (!c)
		return 0;
	c->pid = pid;
	c->degraded = degraded;
	c->stop = stop;
	c->arg = arg;
	bool own_cpu = c->cpu_budget_us && !supervisor_cgroup_holds(c->cg, HOST_CG_CPU);
	if ((c->proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		int err = errno;
		if (c->mem_budget_kib)
			return -err;
		if (own_cpu) {
			log_msg(LOG_LEVEL_WARN,
				"--max-cpu %llu holds each process alone here (RLIMIT_CPU: SIGXCPU "
				"at %llu s): porta cannot count the run's processes together "
				"(/proc: %s) and no cgroup with CPU accounting can be made",
				(unsigned long long)c->cpu_s, (unsigned long long)c->cpu_s + 1,
				strerror(err));
			return 0;
		}
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	c->ncpu = n > 0 ? (unsigned)n : 1;
	c->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (c->ticks_per_s <= 0)
		c->ticks_per_s = 100;
	struct stat hs;
	c->host_tmp_dev = stat("/tmp", &hs) == 0 ? hs.st_dev : 0;
	c->host_shm_dev = stat("/dev/shm", &hs) == 0 ? hs.st_dev : 0;
	if (c->proc_fd < 0) {
		/* the cgroup's count alone */
	} else if (degraded) {
		struct rusage ru;
		/* what porta's children used before this run (a first attempt's
		 * init) is not the run's */
		if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
			c->children_base_us =
				(uint64_t)ru.ru_utime.tv_sec * USEC + (uint64_t)ru.ru_utime.tv_usec +
				(uint64_t)ru.ru_stime.tv_sec * USEC + (uint64_t)ru.ru_stime.tv_usec;
		if (!(c->walk = malloc(WALK_MAX * sizeof(*c->walk))))
			return -ENOMEM;
	} else {
		snprintf(rel, sizeof(rel), "%d/ns/pid", (int)pid);
		if (fstatat(c->proc_fd, rel, &st, 0) < 0)
			/* init gone already (a set-up failure it reports itself):
			 * nothing of the command runs to count */
			return errno == ENOENT || errno == ESRCH ? 0 : -errno;
		c->ns_dev = st.st_dev;
		c->ns_ino = st.st_ino;
		int dfd = openat(c->proc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -errno;
		if (!(c->proc_dir = fdopendir(dfd))) {
			int err = errno;
			close(dfd);
			return -err;
		}
	}
	if (!(c->timer = evtimer_new(base, on_timer, c)))
		return -ENOMEM;
	uint64_t first = UINT64_MAX;
	if (c->cpu_budget_us)
		first = supervisor_ceiling_cpu_interval_us(c->cpu_budget_us, 0, c->ncpu);
	if (c->mem_budget_kib && first > SUPERVISOR_CEILING_MEMORY_MS * 1000ULL)
		first = SUPERVISOR_CEILING_MEMORY_MS * 1000ULL;
	schedule(c, first);
	return 0;
}

bool supervisor_ceiling_reached(const struct supervisor_ceiling *c)
{
	return c && c->reached;
}

void supervisor_ceiling_destroy(struct supervisor_ceiling *c)
{
	if (!c)
		return;
	if (c->timer)
		event_free(c->timer);
	if (c->proc_dir)
		closedir(c->proc_dir);
	if (c->proc_fd >= 0)
		close(c->proc_fd);
	free(c->walk);
	free(c);
}

/* ---- what a run here would count, for explain and check ---------------------- */

/* What each ceiling would be counted with on this host (nothing is made). */
struct accounting {
	bool gathered;
	struct host_cg_facts facts;
	struct host_cg_choice choice[HOST_CG_NCTRL];
	bool has[HOST_CG_NCTRL];
	char why[HOST_CG_NCTRL][768];
	bool root;
};

static void find_accounting(struct accounting *a)
{
	memset(a, 0, sizeof(*a));
	a->root = geteuid() == 0;
	a->gathered = host_cg_gather(&a->facts) == 0;
	for (int c = 0; c < HOST_CG_NCTRL; c++) {
		if (!a->gathered) {
			snprintf(a->why[c], sizeof(a->why[c]),
				 "cannot read /proc/self/cgroup or /proc/self/mountinfo");
			continue;
		}
		a->has[c] = host_cg_choose(&a->facts, 1u << c, &a->choice[c], NULL, a->why[c],
					   sizeof(a->why[c])) == HOST_CG_OK;
	}
}

/* "cgroup v2 cpu.stat, porta-<pid>-<random> under DIR" and the like, into out. */
static void where(const struct accounting *a, enum host_cg_ctrl c, char *out, size_t cap)
{
	const struct host_cg_choice *ch = &a->choice[c];
	const char *file = c == HOST_CG_CPU ? (ch->version[c] == 2 ? " cpu.stat" : " cpuacct.usage")
					    : "";
	snprintf(out, cap, "cgroup v%d%s, porta-<pid>-<random> under %.600s", ch->version[c], file,
		 ch->parent[c]);
}

enum procs_mechanism { PROCS_RLIMIT, PROCS_CGROUP, PROCS_NONE };

/* How the process ceiling would hold: the default one (max 0) or --max-procs. */
static enum procs_mechanism procs_mechanism(const struct accounting *a, bool degraded)
{
	if (degraded)
		return a->has[HOST_CG_PIDS] ? PROCS_CGROUP : PROCS_NONE;
	return a->root ? PROCS_NONE : PROCS_RLIMIT;
}

/* One sentence each for CPU, memory and processes; max_* are the options'
 * values (0: not given, a check's general answer). */
static void sentences(const struct accounting *a, bool degraded, uint64_t cpu_s, uint64_t mem_mib,
		      uint64_t procs, char out[3][1400])
{
	char w[700];

	if (a->has[HOST_CG_CPU]) {
		where(a, HOST_CG_CPU, w, sizeof(w));
		snprintf(out[0], sizeof(out[0]),
			 "--max-cpu%s%.0llu: the run's processes together, counted by a cgroup (%s) "
			 "and read on a timer; past it porta ends the run (exit 137); each process "
			 "also has RLIMIT_CPU a second above it",
			 cpu_s ? " " : "", (unsigned long long)cpu_s, w);
	} else {
		snprintf(out[0], sizeof(out[0]),
			 "--max-cpu%s%.0llu: the run's processes together, counted by porta from /proc "
			 "(each process's time and its reaped children's) on a timer, since no cgroup "
			 "with CPU accounting can be made here (%s); past it porta ends the run (exit "
			 "137); each process also has RLIMIT_CPU a second above it",
			 cpu_s ? " " : "", (unsigned long long)cpu_s, a->why[HOST_CG_CPU]);
	}
	if (a->has[HOST_CG_MEMORY]) {
		where(a, HOST_CG_MEMORY, w, sizeof(w));
		snprintf(out[1], sizeof(out[1]),
			 "--max-memory-mb%s%.0llu: held by a memory cgroup (%s): past it the kernel's "
			 "OOM killer ends a process (137)",
			 mem_mib ? " " : "", (unsigned long long)mem_mib, w);
	} else {
		snprintf(out[1], sizeof(out[1]),
			 "--max-memory-mb%s%.0llu: polled, since no memory cgroup can be made here "
			 "(%s): porta sums the run's processes' resident memory (RssAnon and RssShmem)%s "
			 "every %d ms and ends the run past it (exit 137); a burst shorter than that "
			 "can pass it",
			 mem_mib ? " " : "", (unsigned long long)mem_mib, a->why[HOST_CG_MEMORY],
			 degraded ? "" : " and the sandbox's /tmp and /dev/shm",
			 SUPERVISOR_CEILING_MEMORY_MS);
	}
	uint64_t n = procs ? procs : POLICY_DEFAULT_MAX_PROCS;
	const char *whose = procs ? "--max-procs" : "the default; --max-procs N changes it";
	switch (procs_mechanism(a, degraded)) {
	case PROCS_RLIMIT:
		snprintf(out[2], sizeof(out[2]),
			 "processes: at most %llu tasks of the run at once, threads included (%s), "
			 "RLIMIT_NPROC counted in the sandbox's own user namespace; a fork past it "
			 "fails with EAGAIN",
			 (unsigned long long)n, whose);
		break;
	case PROCS_CGROUP:
		where(a, HOST_CG_PIDS, w, sizeof(w));
		snprintf(out[2], sizeof(out[2]),
			 "processes: at most %llu tasks of the run at once, threads included (%s), "
			 "through a pids cgroup (%s); a fork past it fails with EAGAIN",
			 (unsigned long long)n, whose, w);
		break;
	case PROCS_NONE:
		if (procs && !degraded)
			snprintf(out[2], sizeof(out[2]),
				 "processes: at most %llu tasks of the run at once (--max-procs), through "
				 "a pids cgroup, as root is exempt from RLIMIT_NPROC",
				 (unsigned long long)n);
		else if (!degraded)
			snprintf(out[2], sizeof(out[2]),
				 "processes: no ceiling by default as root: the kernel exempts uid 0 "
				 "from RLIMIT_NPROC, and a pids cgroup for every run would cost each "
				 "start milliseconds; --max-procs N holds one through a pids cgroup");
		else
			snprintf(out[2], sizeof(out[2]),
				 "processes: no ceiling without a user namespace: RLIMIT_NPROC would "
				 "count your other processes too, and no pids cgroup can be made here "
				 "(%s)%s",
				 a->why[HOST_CG_PIDS],
				 procs ? "; --max-procs is refused here" : "");
		break;
	}
}

void supervisor_ceilings_explain(struct policy_plan *plan, bool degraded)
{
	const struct policy_options *o = plan->opts;
	struct accounting *a = malloc(sizeof(*a));
	char (*s)[1400] = malloc(3 * sizeof(*s));

	if (a && s) {
		find_accounting(a);
		sentences(a, degraded, o->max_cpu_s.set ? o->max_cpu_s.value : 0,
			  o->max_memory_mib.set ? o->max_memory_mib.value : 0,
			  o->max_procs.set ? o->max_procs.value : 0, s);
		if (o->max_cpu_s.set)
			policy_plan_add_note(plan, "%s", s[0]);
		if (o->max_memory_mib.set)
			policy_plan_add_note(plan, "%s", s[1]);
		policy_plan_add_note(plan, "%s", s[2]);
	}
	free(s);
	free(a);
}

int supervisor_check(FILE *out, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		return host_check(out, json);
	int rc = host_check(mem, json);
	fclose(mem);

	struct accounting *a = malloc(sizeof(*a));
	char (*s)[1400] = malloc(3 * sizeof(*s));
	if (!a || !s) {
		fputs(text, out);
		goto out;
	}
	find_accounting(a);
	bool degraded = !host_userns_available();
	sentences(a, degraded, 0, 0, 0, s);
	if (json) {
		json_error_t je;
		json_t *root = json_loads(text, 0, &je), *c = json_object();
		static const char *const names[3] = { "cpu", "memory", "processes" };
		const char *how[3] = {
			a->has[HOST_CG_CPU] ? "cgroup" : "porta",
			a->has[HOST_CG_MEMORY] ? "cgroup" : "polled",
			procs_mechanism(a, degraded) == PROCS_RLIMIT ? "rlimit"
			: procs_mechanism(a, degraded) == PROCS_CGROUP ? "cgroup"
								      : "none",
		};
		if (!root || !c) {
			fputs(text, out);
			json_decref(root);
			json_decref(c);
			goto out;
		}
		for (size_t i = 0; i < 3; i++) {
			json_t *one = json_object();
			json_object_set_new(one, "accounting", json_string(how[i]));
			json_object_set_new(one, "detail", json_string(s[i]));
			if (i == 2)
				json_object_set_new(one, "default",
						    procs_mechanism(a, degraded) == PROCS_NONE
							    ? json_null()
							    : json_integer(POLICY_DEFAULT_MAX_PROCS));
			json_object_set_new(c, names[i], one);
		}
		json_object_set_new(c, "audit_max_mib", json_integer(POLICY_DEFAULT_AUDIT_MAX_MIB));
		json_object_set_new(root, "ceilings", c);
		json_dumpf(root, out, JSON_INDENT(2));
		fputc('\n', out);
		json_decref(root);
	} else {
		/* before the last line, the verdict */
		size_t cut = len;
		while (cut > 0 && text[cut - 1] == '\n')
			cut--;
		while (cut > 0 && text[cut - 1] != '\n')
			cut--;
		fwrite(text, 1, cut, out);
		fprintf(out, "Ceilings a run here counts:\n");
		for (size_t i = 0; i < 3; i++)
			fprintf(out, "  - %s\n", s[i]);
		fprintf(out, "  - --audit: at most %d MiB per run by default (--audit-max MIB)\n",
			POLICY_DEFAULT_AUDIT_MAX_MIB);
		fputs(text + cut, out);
	}
out:
	fflush(out);
	free(s);
	free(a);
	free(text);
	return rc;
}
