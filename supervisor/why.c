/* supervisor/why.c: see why.h. */
#include "supervisor/why.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/kernel.h"
#include "common/log.h"
#include "policy/paths.h"
#include "policy/why.h"
#include "supervisor/procmem.h"

/* A call between its seccomp stop and its syscall-exit stop. */
struct pending {
	pid_t tid;
	bool used;
	enum policy_why_op op[2];
	char path[2][PATH_MAX]; /* absolute, normalised; the second only for rename/link */
	int n_paths;
	const char *verb[2]; /* what the report calls it: "create", "remove", ... */
	bool open_create;    /* an open with O_CREAT: a write when the file exists */
};

struct refusal {
	char *what;   /* "write /home/u/x" or "network evil.test:443" (escaped) */
	char *reason; /* short words */
	char *option; /* the option that allows it, or NULL */
	enum policy_why_verdict verdict;
	const char *withheld; /* WITHHELD: policy/why.c's static words */
	bool drops_no_net;
	unsigned long count;
};

struct supervisor_why {
	const struct policy_plan *plan;
	struct pending *pend;
	size_t n_pend;
	struct refusal *ref;
	size_t n_ref, cap_ref;
	uid_t uid;
	gid_t gid;
	gid_t groups[NGROUPS_MAX];
	int n_groups;
};

struct supervisor_why *supervisor_why_create(const struct policy_plan *plan)
{
	struct supervisor_why *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->plan = plan;
	w->uid = getuid();
	w->gid = getgid();
	w->n_groups = getgroups(NGROUPS_MAX, w->groups);
	if (w->n_groups < 0)
		w->n_groups = 0;
	return w;
}

void supervisor_why_destroy(struct supervisor_why *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_ref; i++) {
		free(w->ref[i].what);
		free(w->ref[i].reason);
		free(w->ref[i].option);
	}
	free(w->ref);
	free(w->pend);
	free(w);
}

int supervisor_why_seize(struct supervisor_why *w, pid_t init, int gate_fd)
{
	(void)w;
	/* EXITKILL: should porta die, nothing of the command runs on untraced
	 * (and, with a dangling RET_TRACE filter, with every open failing). */
	long opts = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		    PTRACE_O_TRACECLONE | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, init, NULL, (void *)opts) < 0)
		return -errno;
	if (write(gate_fd, "g", 1) != 1)
		return -errno;
	return 0;
}

static struct pending *pending_for(struct supervisor_why *w, pid_t tid, bool create)
{
	struct pending *free_slot = NULL;

	for (size_t i = 0; i < w->n_pend; i++) {
		if (w->pend[i].used && w->pend[i].tid == tid)
			return &w->pend[i];
		if (!w->pend[i].used && !free_slot)
			free_slot = &w->pend[i];
	}
	if (!create)
		return NULL;
	if (!free_slot) {
		struct pending *np = realloc(w->pend, (w->n_pend + 1) * sizeof(*np));
		if (!np)
			return NULL;
		w->pend = np;
		free_slot = &w->pend[w->n_pend++];
	}
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->tid = tid;
	free_slot->used = true;
	return free_slot;
}

/* Reads the NUL-terminated string at addr into out[cap], a page at a time
 * (a string may end just before an unmapped page).  False when unreadable
 * or longer than cap. */
static bool peek_string(pid_t tid, uint64_t addr, char *out, size_t cap)
{
	size_t got = 0;

	if (!addr)
		return false;
	while (got < cap) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		if (chunk > cap - got)
			chunk = cap - got;
		ssize_t n = supervisor_read_memory(tid, a, out + got, chunk);
		if (n <= 0)
			return false;
		char *nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return true;
		got += (size_t)n;
	}
	return false;
}

/* The directory a relative path of the tracee starts from: its cwd for
 * AT_FDCWD, else what its fd dirfd names.  False when that is no path. */
static bool base_dir(pid_t tid, int dirfd, char *out, size_t cap)
{
	char link[64];

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, dirfd);
	ssize_t n = readlink(link, out, cap - 1);
	if (n <= 0 || out[0] != '/')
		return false;
	out[n] = '\0';
	return true;
}

/* The tracee's path argument at addr, relative to dirfd, made absolute. */
static bool read_path(pid_t tid, int dirfd, uint64_t addr, char out[PATH_MAX])
{
	char raw[PATH_MAX], base[PATH_MAX] = "/";

	if (!peek_string(tid, addr, raw, sizeof(raw)) || raw[0] == '\0')
		return false;
	if (raw[0] != '/' && !base_dir(tid, dirfd, base, sizeof(base)))
		return false;
	return policy_path_normalize(base, raw, strlen(raw), out, PATH_MAX) != 0;
}

static enum policy_why_op open_op(uint64_t flags, struct pending *p)
{
	p->open_create = (flags & O_CREAT) != 0;
	if (flags & O_CREAT)
		return POLICY_WHY_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return POLICY_WHY_WRITE;
	return POLICY_WHY_READ;
}

/* A connect() or sendto() destination: a Unix socket path (op UNIX, path
 * absolute) or, under --no-net, an IP destination (op NET, "ip:port"). */
static bool read_sockaddr(struct supervisor_why *w, pid_t tid, uint64_t addr, uint64_t len,
			  struct pending *p)
{
	struct sockaddr_storage ss;

	if (!addr || len < sizeof(sa_family_t) || len > sizeof(ss))
		return false;
	memset(&ss, 0, sizeof(ss));
	if (supervisor_read_memory(tid, addr, &ss, (size_t)len) != (ssize_t)len)
		return false;
	if (ss.ss_family == AF_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)&ss;
		char raw[sizeof(un->sun_path) + 1], base[PATH_MAX] = "/";
		size_t n = len - offsetof(struct sockaddr_un, sun_path);
		if (n == 0 || un->sun_path[0] == '\0')
			return false; /* unnamed or abstract: no path to refuse */
		memcpy(raw, un->sun_path, n);
		raw[n] = '\0';
		if (raw[0] != '/' && !base_dir(tid, AT_FDCWD, base, sizeof(base)))
			return false;
		p->op[0] = POLICY_WHY_UNIX;
		return policy_path_normalize(base, raw, strlen(raw), p->path[0], PATH_MAX) != 0;
	}
	if (w->plan->opts->net_mode != POLICY_NET_NONE)
		return false;
	char ip[INET6_ADDRSTRLEN];
	if (ss.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(p->path[0], PATH_MAX, "%s:%u", ip, ntohs(in->sin_port));
	} else if (ss.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(p->path[0], PATH_MAX, "[%s]:%u", ip, ntohs(in6->sin6_port));
	} else {
		return false;
	}
	p->op[0] = POLICY_WHY_NET;
	return true;
}

/* The calls that name one or two paths and no flags --why must read: which
 * argument holds each path and which its directory fd (AT: AT_FDCWD), what
 * the refusal would be and what the report calls it.  The new name of a
 * rename or link comes first: either may be refused. */
#define AT (-1)
static const struct path_call {
	long nr;
	enum policy_why_op op;
	struct {
		signed char dirfd, path; /* argument indices; path -1: none */
		const char *verb;        /* NULL: the op's own word */
	} name[2];
} path_calls[] = {
	/* git asks access(~/.gitconfig, R_OK) before it opens it: under
	 * strict reads the answer is ENOENT, and nothing is opened */
	{ SYS_access, POLICY_WHY_READ, { { AT, 0, "look up" }, { AT, -1, NULL } } },
	{ SYS_faccessat, POLICY_WHY_READ, { { 0, 1, "look up" }, { AT, -1, NULL } } },
	{ SYS_faccessat2, POLICY_WHY_READ, { { 0, 1, "look up" }, { AT, -1, NULL } } },
	{ SYS_execve, POLICY_WHY_EXEC, { { AT, 0, NULL }, { AT, -1, NULL } } },
	{ SYS_execveat, POLICY_WHY_EXEC, { { 0, 1, NULL }, { AT, -1, NULL } } },
	{ SYS_mkdir, POLICY_WHY_CREATE, { { AT, 0, "create directory" }, { AT, -1, NULL } } },
	{ SYS_mkdirat, POLICY_WHY_CREATE, { { 0, 1, "create directory" }, { AT, -1, NULL } } },
	{ SYS_mknod, POLICY_WHY_CREATE, { { AT, 0, "create" }, { AT, -1, NULL } } },
	{ SYS_mknodat, POLICY_WHY_CREATE, { { 0, 1, "create" }, { AT, -1, NULL } } },
	{ SYS_unlink, POLICY_WHY_CREATE, { { AT, 0, "remove" }, { AT, -1, NULL } } },
	{ SYS_rmdir, POLICY_WHY_CREATE, { { AT, 0, "remove" }, { AT, -1, NULL } } },
	{ SYS_unlinkat, POLICY_WHY_CREATE, { { 0, 1, "remove" }, { AT, -1, NULL } } },
	{ SYS_truncate, POLICY_WHY_WRITE, { { AT, 0, "truncate" }, { AT, -1, NULL } } },
	{ SYS_chmod, POLICY_WHY_WRITE, { { AT, 0, "chmod" }, { AT, -1, NULL } } },
	{ SYS_fchmodat, POLICY_WHY_WRITE, { { 0, 1, "chmod" }, { AT, -1, NULL } } },
	{ SYS_symlink, POLICY_WHY_CREATE, { { AT, 1, "create symlink" }, { AT, -1, NULL } } },
	{ SYS_symlinkat, POLICY_WHY_CREATE, { { 1, 2, "create symlink" }, { AT, -1, NULL } } },
	{ SYS_rename, POLICY_WHY_CREATE, { { AT, 1, "rename to" }, { AT, 0, "rename from" } } },
	{ SYS_link, POLICY_WHY_CREATE, { { AT, 1, "link to" }, { AT, 0, "link from" } } },
	{ SYS_renameat, POLICY_WHY_CREATE, { { 2, 3, "rename to" }, { 0, 1, "rename from" } } },
	{ SYS_renameat2, POLICY_WHY_CREATE, { { 2, 3, "rename to" }, { 0, 1, "rename from" } } },
	{ SYS_linkat, POLICY_WHY_CREATE, { { 2, 3, "link to" }, { 0, 1, "link from" } } },
};
#undef AT

/* A call of path_calls into p; false for any other call, or when a path
 * cannot be read. */
static bool decode_path_call(pid_t tid, long nr, const uint64_t *a, struct pending *p)
{
	for (size_t i = 0; i < ARRAY_LEN(path_calls); i++) {
		const struct path_call *c = &path_calls[i];
		if (c->nr != nr)
			continue;
		p->n_paths = 0;
		for (int k = 0; k < 2 && c->name[k].path >= 0; k++) {
			int dirfd = c->name[k].dirfd < 0 ? AT_FDCWD : (int)a[c->name[k].dirfd];
			p->op[k] = c->op;
			p->verb[k] = c->name[k].verb;
			if (!read_path(tid, dirfd, a[c->name[k].path], p->path[k]))
				return false;
			p->n_paths = k + 1;
		}
		return true;
	}
	return false;
}

/* Decodes the call at a seccomp stop into p; false when nothing in it can
 * be the sandbox's refusal. */
static bool decode(struct supervisor_why *w, pid_t tid, const struct __ptrace_syscall_info *si,
		   struct pending *p)
{
	const uint64_t *a = si->seccomp.args;
	int fd0 = (int)a[0];
	uint64_t flags;

	p->n_paths = 1;
	switch (si->seccomp.nr) {
	case SYS_open:
		p->op[0] = open_op(a[1], p);
		return read_path(tid, AT_FDCWD, a[0], p->path[0]);
	case SYS_creat:
		p->op[0] = POLICY_WHY_CREATE;
		p->open_create = true;
		return read_path(tid, AT_FDCWD, a[0], p->path[0]);
	case SYS_openat:
		p->op[0] = open_op(a[2], p);
		return read_path(tid, fd0, a[1], p->path[0]);
	case SYS_openat2:
		/* struct open_how starts with its u64 flags */
		if (a[3] < sizeof(flags) || supervisor_read_memory(tid, a[2], &flags, sizeof(flags)) != sizeof(flags))
			return false;
		p->op[0] = open_op(flags, p);
		return read_path(tid, fd0, a[1], p->path[0]);
	case SYS_connect:
		return read_sockaddr(w, tid, a[1], a[2], p);
	case SYS_sendto:
		return read_sockaddr(w, tid, a[4], a[5], p);
	default:
		return decode_path_call(tid, si->seccomp.nr, a, p);
	}
}

static bool in_groups(const struct supervisor_why *w, gid_t g)
{
	if (g == w->gid)
		return true;
	for (int i = 0; i < w->n_groups; i++) {
		if (w->groups[i] == g)
			return true;
	}
	return false;
}

/* Would the mode bits alone grant want (R_OK|W_OK|X_OK) to porta's user?
 * Without capabilities, as in the sandbox: root, too, gets only the bits
 * (ACLs are not consulted). */
static bool bits_allow(const struct supervisor_why *w, const struct stat *st, int want)
{
	unsigned bits = st->st_uid == w->uid ? (st->st_mode >> 6) & 7
			: in_groups(w, st->st_gid) ? (st->st_mode >> 3) & 7
						    : st->st_mode & 7;
	return ((int)bits & want) == want;
}

/* The host's facts about path for op, as porta's user outside the sandbox:
 * would the file permissions alone allow op?  Every directory on the way
 * must be searchable; then the file (or, to create or remove, its
 * directory) must grant the access.  A read-only filesystem refuses writes. */
static void host_facts(const struct supervisor_why *w, struct policy_why_facts *f)
{
	struct stat st;
	char dir[PATH_MAX];
	const char *path = f->path;

	f->host_exists = lstat(path, &st) == 0;
	if (f->host_exists && S_ISLNK(st.st_mode) && f->op != POLICY_WHY_CREATE)
		f->host_exists = stat(path, &st) == 0;
	f->host_is_dir = f->host_exists && S_ISDIR(st.st_mode);
	f->host_permits = true;

	/* each directory from the root down to the parent needs search (x) */
	size_t len = strlen(path);
	for (size_t i = 1; i < len; i++) {
		if (path[i] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)i, path);
		struct stat ds;
		if (stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode) && !bits_allow(w, &ds, X_OK)) {
			f->host_permits = false;
			return;
		}
	}
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	struct statvfs vfs;
	switch (f->op) {
	case POLICY_WHY_READ:
		f->host_permits = !f->host_exists || bits_allow(w, &st, R_OK);
		break;
	case POLICY_WHY_EXEC:
		f->host_permits = !f->host_exists || (!f->host_is_dir && bits_allow(w, &st, X_OK));
		break;
	case POLICY_WHY_WRITE:
	case POLICY_WHY_UNIX:
		f->host_permits = !f->host_exists || bits_allow(w, &st, W_OK);
		if (f->op == POLICY_WHY_WRITE && statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			f->host_permits = false;
		break;
	case POLICY_WHY_CREATE: {
		struct stat ds;
		f->host_dir_exists = stat(dir, &ds) == 0 && S_ISDIR(ds.st_mode);
		if (stat(dir, &ds) == 0)
			f->host_permits = bits_allow(w, &ds, W_OK | X_OK);
		if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			f->host_permits = false;
		break;
	}
	case POLICY_WHY_NET:
		break;
	}
}

/* The host's real path for a sandbox path: symlinks in the directories
 * resolved (and in the last component when op follows it), as Landlock and
 * the mounts judge them.  Falls back to the path as named. */
static void host_real(enum policy_why_op op, const char *path, char out[PATH_MAX])
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	snprintf(out, PATH_MAX, "%s", path);
	if (op != POLICY_WHY_CREATE && realpath(path, real)) {
		snprintf(out, PATH_MAX, "%s", real);
		return;
	}
	if (!slash || slash == path)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (realpath(dir, real)) {
		int n = snprintf(out, PATH_MAX, "%s%s", strcmp(real, "/") == 0 ? "" : real, slash);
		if (n < 0 || n >= PATH_MAX)
			snprintf(out, PATH_MAX, "%s", path);
	}
}

static void add(struct supervisor_why *w, const char *what, const char *reason, const char *opt,
		enum policy_why_verdict v, const char *withheld, bool drops_no_net)
{
	for (size_t i = 0; i < w->n_ref; i++) {
		if (strcmp(w->ref[i].what, what) == 0) {
			w->ref[i].count++;
			return;
		}
	}
	if (w->n_ref == w->cap_ref) {
		size_t cap = w->cap_ref ? w->cap_ref * 2 : 16;
		struct refusal *nr = realloc(w->ref, cap * sizeof(*nr));
		if (!nr)
			return;
		w->ref = nr;
		w->cap_ref = cap;
	}
	struct refusal *r = &w->ref[w->n_ref];
	*r = (struct refusal){ .what = strdup(what), .reason = strdup(reason ? reason : ""),
			       .option = opt && opt[0] ? strdup(opt) : NULL, .verdict = v,
			       .withheld = withheld, .drops_no_net = drops_no_net, .count = 1 };
	if (!r->what || !r->reason || (opt && opt[0] && !r->option)) {
		free(r->what);
		free(r->reason);
		free(r->option);
		return;
	}
	w->n_ref++;
}

void supervisor_why_add_net(struct supervisor_why *w, const char *dst, const char *reason,
			 const char *hint)
{
	char what[PATH_MAX];

	snprintf(what, sizeof(what), "network %s", dst);
	/* under --no-net the tracer saw the same connect() the connect watch
	 * refused ("connect 192.0.2.1:9"): the watch's record says it */
	for (size_t i = 0; i < w->n_ref;) {
		const char *sp = strchr(w->ref[i].what, ' ');
		if (sp && strcmp(sp + 1, dst) == 0 && strcmp(w->ref[i].what, what) != 0) {
			free(w->ref[i].what);
			free(w->ref[i].reason);
			free(w->ref[i].option);
			memmove(&w->ref[i], &w->ref[i + 1], (w->n_ref - i - 1) * sizeof(w->ref[0]));
			w->n_ref--;
		} else {
			i++;
		}
	}
	/* under --no-net the option is --allow-net, which replaces it */
	add(w, what, reason, hint, hint && hint[0] ? POLICY_WHY_OPTION : POLICY_WHY_FIXED, NULL,
	    w->plan->opts->net_mode == POLICY_NET_NONE);
}

/* At the syscall-exit stop: the call's result against the plan. */
static void judge(struct supervisor_why *w, const struct pending *p, int err)
{
	for (int i = 0; i < p->n_paths; i++) {
		char real[PATH_MAX];
		struct policy_why_facts f = { .op = p->op[i], .path = p->path[i], .err = err };
		const char *verb = p->verb[i];
		if (f.op != POLICY_WHY_NET) {
			host_real(f.op, p->path[i], real);
			f.path = real;
			/* O_CREAT on a file that exists writes it: its own mode
			 * bits decide, not only its directory's */
			struct stat st;
			if (p->open_create && lstat(real, &st) == 0)
				f.op = POLICY_WHY_WRITE;
			if (!verb)
				verb = p->open_create && f.op == POLICY_WHY_CREATE ? "create"
									: policy_why_op_name(f.op);
			if (err)
				host_facts(w, &f);
		}
		if (!verb)
			verb = policy_why_op_name(f.op);
		struct policy_why_answer a;
		if (policy_why_classify(w->plan, &f, &a) == POLICY_WHY_NOT_SANDBOX)
			continue;
		char esc[PATH_MAX], what[PATH_MAX + 32];
		log_escape(f.path, strlen(f.path), esc, sizeof(esc));
		snprintf(what, sizeof(what), "%s %s", verb, esc);
		char opt[POLICY_WHY_OPTION_MAX];
		log_escape(a.option, strlen(a.option), opt, sizeof(opt));
		add(w, what, a.reason, opt, a.verdict, a.withheld, a.drops_no_net);
		return; /* one refusal per call */
	}
}

void supervisor_why_add_unix(struct supervisor_why *w, const char *path, int err)
{
	struct pending *p = calloc(1, sizeof(*p));

	if (!w || !p || !path || path[0] != '/') {
		free(p);
		return;
	}
	p->n_paths = 1;
	p->op[0] = POLICY_WHY_UNIX;
	snprintf(p->path[0], PATH_MAX, "%s", path);
	judge(w, p, err);
	free(p);
}

static void on_seccomp(struct supervisor_why *w, pid_t tid)
{
	struct __ptrace_syscall_info si;
	struct pending *p = pending_for(w, tid, true);

	if (p && ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(si), &si) > 0 &&
	    si.op == PTRACE_SYSCALL_INFO_SECCOMP && decode(w, tid, &si, p)) {
		/* on to the syscall-exit stop, for the result */
		if (ptrace(PTRACE_SYSCALL, tid, NULL, NULL) == 0)
			return;
	}
	if (p)
		p->used = false;
	ptrace(PTRACE_CONT, tid, NULL, NULL);
}

static void on_syscall_exit(struct supervisor_why *w, pid_t tid)
{
	struct __ptrace_syscall_info si;
	struct pending *p = pending_for(w, tid, false);

	if (p && ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(si), &si) > 0 &&
	    si.op == PTRACE_SYSCALL_INFO_EXIT)
		judge(w, p, si.exit.is_error ? (int)-si.exit.rval : 0);
	if (p)
		p->used = false;
	ptrace(PTRACE_CONT, tid, NULL, NULL);
}

bool supervisor_why_on_sigchld(struct supervisor_why *w, pid_t init, int *init_status)
{
	bool init_done = false;
	int st;
	pid_t tid;

	while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0) {
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			struct pending *p = pending_for(w, tid, false);
			if (p)
				p->used = false;
			if (tid == init) {
				*init_status = st;
				init_done = true;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), event = (unsigned)st >> 16;
		if (event == PTRACE_EVENT_SECCOMP) {
			on_seccomp(w, tid);
		} else if (sig == (SIGTRAP | 0x80)) {
			on_syscall_exit(w, tid);
		} else if (event == PTRACE_EVENT_STOP) {
			/* A group-stop (SIGSTOP, SIGTSTP, ...) stays one: LISTEN
			 * keeps the tracee stopped until SIGCONT, as untraced.
			 * The first stop of a new tracee is SIGTRAP: go on. */
			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
				ptrace(PTRACE_LISTEN, tid, NULL, NULL);
			else
				ptrace(PTRACE_CONT, tid, NULL, NULL);
		} else if (event) {
			ptrace(PTRACE_CONT, tid, NULL, NULL); /* fork, vfork, clone */
		} else {
			/* a signal on its way to the tracee: deliver it */
			ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)sig);
		}
	}
	return init_done;
}

/* ---- the report --------------------------------------------------------- */

void supervisor_why_report(const struct supervisor_why *w, int argc, char *const argv[], FILE *err)
{
	const char *opts[256];
	size_t n_opts = 0, n_withheld = 0;
	bool drop_no_net = false;

	if (w->n_ref == 0) {
		fprintf(err, "porta: --why: the sandbox refused nothing in this run\n");
		fflush(err);
		return;
	}
	fprintf(err, "porta: --why: the sandbox refused %zu thing%s:\n", w->n_ref,
		w->n_ref == 1 ? "" : "s");
	for (size_t i = 0; i < w->n_ref; i++) {
		const struct refusal *r = &w->ref[i];
		char times[32] = "";
		if (r->count > 1)
			snprintf(times, sizeof(times), ", %lu times", r->count);
		switch (r->verdict) {
		case POLICY_WHY_OPTION:
			fprintf(err, "porta:   %s (%s%s): allow with %s\n", r->what, r->reason, times,
				r->option);
			if (n_opts < ARRAY_LEN(opts))
				opts[n_opts++] = r->option;
			drop_no_net |= r->drops_no_net;
			break;
		case POLICY_WHY_PRESET:
			fprintf(err, "porta:   %s (%s%s): closed by the preset (only --preset none "
				     "opens it, and every other one with it)\n",
				r->what, r->reason, times);
			break;
		case POLICY_WHY_USER:
			fprintf(err, "porta:   %s (%s%s): closed by your own %s\n", r->what, r->reason,
				times, r->option ? r->option : "option");
			break;
		case POLICY_WHY_WITHHELD:
			fprintf(err, "porta:   %s (%s%s): %s would allow it, and is not suggested: %s\n",
				r->what, r->reason, times, r->option ? r->option : "an option",
				r->withheld ? r->withheld : "");
			n_withheld++;
			break;
		case POLICY_WHY_FIXED:
		case POLICY_WHY_NOT_SANDBOX:
			fprintf(err, "porta:   %s (%s%s): closed by the sandbox, no option opens it\n",
				r->what, r->reason, times);
			break;
		}
	}
	if (n_opts == 0 && n_withheld) {
		fprintf(err, "porta: --why: no option is suggested for these\n");
	} else if (n_opts == 0) {
		fprintf(err, "porta: --why: no option allows these\n");
	} else {
		size_t cap = 65536;
		char *line = malloc(cap);
		if (line && policy_why_command(argc, argv, w->plan->opts, opts, n_opts, drop_no_net,
					       line, cap))
			fprintf(err, "porta: --why: run again with: %s\n", line);
		else
			fprintf(err, "porta: --why: run again with the options above\n");
		free(line);
	}
	fflush(err);
}

int supervisor_why_answers(const struct supervisor_why *w, char ***options, size_t *n_options,
			   char ***closed, size_t *n_closed)
{
	char **opt = calloc(w->n_ref + 1, sizeof(*opt)), **cl = calloc(w->n_ref + 1, sizeof(*cl));
	size_t no = 0, nc = 0;
	bool ok = opt && cl;

	for (size_t i = 0; ok && i < w->n_ref; i++) {
		const struct refusal *r = &w->ref[i];
		if (strncmp(r->what, "network ", 8) == 0)
			continue;
		if (r->verdict == POLICY_WHY_OPTION && r->option) {
			ok = (opt[no++] = strdup(r->option)) != NULL;
			continue;
		}
		const char *by = r->verdict == POLICY_WHY_PRESET ? "; closed by the preset"
				 : r->verdict == POLICY_WHY_USER ? "; closed by your own option"
				 : r->verdict == POLICY_WHY_WITHHELD ? "; not suggested"
								 : "";
		ok = asprintf(&cl[nc], "%s (%s%s)", r->what, r->reason, by) >= 0;
		if (ok)
			nc++;
	}
	if (!ok) {
		for (size_t i = 0; opt && i < no; i++)
			free(opt[i]);
		for (size_t i = 0; cl && i < nc; i++)
			free(cl[i]);
		free(opt);
		free(cl);
		return -ENOMEM;
	}
	*options = opt;
	*n_options = no;
	*closed = cl;
	*n_closed = nc;
	return 0;
}
