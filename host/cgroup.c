/* host/cgroup.c: see cgroup.h.  The first half is pure (parsing
 * /proc/self/mountinfo and /proc/self/cgroup lines, and choosing where a
 * cgroup can be made: no syscalls, no allocation, no logging); the second
 * gathers the facts from this host and says why a ceiling cannot be had.
 */
#include "host/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "host/host.h"

static const char *const ctrl_names[HOST_CG_NCTRL] = { "memory", "pids", "cpuacct" };

const char *host_cg_ctrl_name(enum host_cg_ctrl c)
{
	return (unsigned)c < HOST_CG_NCTRL ? ctrl_names[c] : "?";
}

/* The next space-separated field of [*p, end) into f/flen; false at the end. */
static bool next_field(const char **p, const char *end, const char **f, size_t *flen)
{
	const char *s = *p;

	if (s >= end)
		return false;
	const char *sp = memchr(s, ' ', (size_t)(end - s));
	const char *e = sp ? sp : end;
	*f = s;
	*flen = (size_t)(e - s);
	*p = sp ? sp + 1 : end;
	return true;
}

static bool field_is(const char *f, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(f, word, n) == 0;
}

/* Copies a mountinfo path field, turning \NNN (octal, as the kernel's
 * seq_file escaping writes space, tab, newline and backslash) back into
 * bytes.  False on a bad escape, a NUL or no room. */
static bool unescape(const char *f, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)f[i];
		if (ch == '\\') {
			if (i + 3 >= n)
				return false;
			unsigned v = 0;
			for (size_t k = 1; k <= 3; k++) {
				unsigned char d = (unsigned char)f[i + k];
				if (d < '0' || d > '7')
					return false;
				v = v * 8 + (unsigned)(d - '0');
			}
			if (v == 0 || v > 255)
				return false;
			ch = (unsigned char)v;
			i += 3;
		} else if (ch == '\0') {
			return false;
		}
		if (o + 1 >= cap)
			return false;
		out[o++] = (char)ch;
	}
	if (o == 0 || o >= cap)
		return false;
	out[o] = '\0';
	return true;
}

/* Marks in has[] the controllers named in a comma-separated list. */
static void mark_controllers(const char *f, size_t n, bool has[HOST_CG_NCTRL])
{
	const char *end = f + n;

	while (f < end) {
		const char *comma = memchr(f, ',', (size_t)(end - f));
		size_t len = (size_t)((comma ? comma : end) - f);
		for (int c = 0; c < HOST_CG_NCTRL; c++)
			if (field_is(f, len, ctrl_names[c]))
				has[c] = true;
		f = comma ? comma + 1 : end;
	}
}

enum host_cg_mount_kind host_cg_parse_mountinfo(const char *line, size_t len,
						      struct host_cg_mount *m)
{
	const char *p = line, *end = line + len, *f;
	size_t n;

	memset(m, 0, sizeof(*m));
	if (memchr(line, '\0', len) || memchr(line, '\n', len))
		return HOST_CG_MOUNT_MALFORMED;
	/* ID PARENT MAJ:MIN */
	for (int i = 0; i < 3; i++)
		if (!next_field(&p, end, &f, &n) || n == 0)
			return HOST_CG_MOUNT_MALFORMED;
	const char *root, *dir;
	size_t root_len, dir_len;
	if (!next_field(&p, end, &root, &root_len) || !next_field(&p, end, &dir, &dir_len) ||
	    !next_field(&p, end, &f, &n)) /* mount options */
		return HOST_CG_MOUNT_MALFORMED;
	/* Optional fields ("shared:N", "master:N", ...) up to the lone "-". */
	for (;;) {
		if (!next_field(&p, end, &f, &n))
			return HOST_CG_MOUNT_MALFORMED;
		if (field_is(f, n, "-"))
			break;
	}
	const char *type, *opts;
	size_t type_len, opts_len;
	if (!next_field(&p, end, &type, &type_len) || !next_field(&p, end, &f, &n) ||
	    !next_field(&p, end, &opts, &opts_len))
		return HOST_CG_MOUNT_MALFORMED;

	enum host_cg_mount_kind kind;
	if (field_is(type, type_len, "cgroup2"))
		kind = HOST_CG_MOUNT_V2;
	else if (field_is(type, type_len, "cgroup"))
		kind = HOST_CG_MOUNT_V1;
	else
		return HOST_CG_MOUNT_OTHER;
	if (!unescape(root, root_len, m->root, sizeof(m->root)) ||
	    !unescape(dir, dir_len, m->dir, sizeof(m->dir)) || m->root[0] != '/' ||
	    m->dir[0] != '/')
		return HOST_CG_MOUNT_MALFORMED;
	if (kind == HOST_CG_MOUNT_V1)
		mark_controllers(opts, opts_len, m->has);
	return kind;
}

enum host_cg_member_kind host_cg_parse_member(const char *line, size_t len,
						    struct host_cg_member *m)
{
	const char *end = line + len;

	memset(m, 0, sizeof(*m));
	if (len == 0 || memchr(line, '\0', len) || memchr(line, '\n', len))
		return HOST_CG_MEMBER_MALFORMED;
	const char *c1 = memchr(line, ':', len);
	if (!c1 || c1 == line)
		return HOST_CG_MEMBER_MALFORMED;
	for (const char *d = line; d < c1; d++)
		if (*d < '0' || *d > '9')
			return HOST_CG_MEMBER_MALFORMED;
	const char *ctrls = c1 + 1;
	const char *c2 = memchr(ctrls, ':', (size_t)(end - ctrls));
	if (!c2)
		return HOST_CG_MEMBER_MALFORMED;
	/* The path is the rest of the line: it may itself hold colons. */
	const char *path = c2 + 1;
	size_t plen = (size_t)(end - path);
	if (plen == 0 || path[0] != '/' || plen >= sizeof(m->path))
		return HOST_CG_MEMBER_MALFORMED;
	memcpy(m->path, path, plen);
	m->path[plen] = '\0';
	bool zero = c1 - line == 1 && line[0] == '0';
	if (zero && c2 == ctrls)
		return HOST_CG_MEMBER_V2;
	if (zero || c2 == ctrls)
		return HOST_CG_MEMBER_MALFORMED; /* v2 has no controller list, v1 always one */
	mark_controllers(ctrls, (size_t)(c2 - ctrls), m->has);
	return HOST_CG_MEMBER_V1;
}

static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
		bool starts = p == path || p[-1] == '/';
		bool ends = p[2] == '\0' || p[2] == '/';
		if (starts && ends)
			return true;
	}
	return false;
}

bool host_cg_dir(const char *mount_dir, const char *mount_root, const char *cg_path,
		    char *out, size_t cap)
{
	size_t rl = strlen(mount_root);

	if (cg_path[0] != '/' || mount_root[0] != '/' || has_dotdot(cg_path) ||
	    has_dotdot(mount_root))
		return false;
	while (rl > 1 && mount_root[rl - 1] == '/')
		rl--;
	const char *rest;
	if (rl == 1) {
		rest = cg_path;
	} else {
		if (strncmp(cg_path, mount_root, rl) != 0 || (cg_path[rl] != '\0' && cg_path[rl] != '/'))
			return false;
		rest = cg_path + rl;
	}
	while (rest[0] == '/' && rest[1] == '/')
		rest++;
	if (strcmp(rest, "/") == 0)
		rest = "";
	size_t dl = strlen(mount_dir);
	while (dl > 1 && mount_dir[dl - 1] == '/')
		dl--;
	if (dl == 1 && rest[0])
		dl = 0; /* a hierarchy mounted at "/" */
	int n = snprintf(out, cap, "%.*s%s", (int)dl, mount_dir, rest);
	return n > 0 && (size_t)n < cap;
}

bool host_cg_list_has(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \n\t");
		if (n == wl && n && memcmp(p, word, n) == 0)
			return true;
		p += n;
	}
	return false;
}

bool host_cg_counter(const char *text, size_t len, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if ((size_t)(le - p) > kl && memcmp(p, key, kl) == 0 && p[kl] == ' ') {
			const char *d = p + kl + 1;
			uint64_t v = 0;
			if (d == le)
				return false;
			for (; d < le; d++) {
				if (*d < '0' || *d > '9' || v > (UINT64_MAX - 9) / 10)
					return false;
				v = v * 10 + (uint64_t)(*d - '0');
			}
			*out = v;
			return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* Appends to why[cap] (always NUL-terminated; silently cut when full). */
static void say(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (!why || cap == 0)
		return; /* the caller wants no reason (host_cg_choose_each()) */
	size_t used = strnlen(why, cap);
	if (used + 1 >= cap)
		return;
	va_start(ap, fmt);
	vsnprintf(why + used, cap - used, fmt, ap);
	va_end(ap);
}

/* cgroup v2 for controller c: true when usable (parent and enable set),
 * else the reason appended to why. */
static bool choose_v2(const struct host_cg_facts *f, enum host_cg_ctrl c,
		      struct host_cg_choice *ch, char *why, size_t cap)
{
	const char *name = ctrl_names[c];

	if (!f->v2_mounted) {
		say(why, cap, "no cgroup v2 hierarchy is mounted");
		return false;
	}
	if (!f->v2_dir[0]) {
		say(why, cap, "porta's cgroup v2 is not visible under %s", f->v2_mount);
		return false;
	}
	if (c == HOST_CG_CPU) {
		/* cpu.stat's usage_usec is the core's, in every v2 cgroup
		 * whether or not the cpu controller is enabled (cgroup-v2.rst,
		 * "Core Interface Files"): nothing to enable, so neither the
		 * controller list nor the no-internal-processes rule matters */
		if (!f->v2_writable) {
			say(why, cap, "%s is not writable by uid %u", f->v2_dir, f->uid);
			return false;
		}
		ch->version[c] = 2;
		snprintf(ch->parent[c], sizeof(ch->parent[c]), "%s", f->v2_dir);
		ch->enable[c] = false;
		return true;
	}
	if (!host_cg_list_has(f->v2_controllers, name)) {
		say(why, cap, "cgroup v2 at %s has no %s controller (%s/cgroup.controllers: %s)",
		    f->v2_mount, name, f->v2_dir, f->v2_controllers[0] ? f->v2_controllers : "empty");
		return false;
	}
	if (!f->v2_writable) {
		say(why, cap, "%s is not writable by uid %u", f->v2_dir, f->uid);
		return false;
	}
	bool enabled = host_cg_list_has(f->v2_subtree, name);
	/* No internal processes (cgroups(7), cgroup v2): a non-root cgroup
	 * that holds processes (porta's own does: porta is in it) cannot
	 * enable a domain controller for its children. */
	if (!enabled && !f->v2_is_root) {
		say(why, cap,
		    "porta's own cgroup v2 %s holds processes (porta among them), so it cannot "
		    "enable %s for a child (the no-internal-processes rule)",
		    f->v2_dir, name);
		return false;
	}
	ch->version[c] = 2;
	snprintf(ch->parent[c], sizeof(ch->parent[c]), "%s", f->v2_dir);
	ch->enable[c] = !enabled;
	return true;
}

static bool choose_v1(const struct host_cg_facts *f, enum host_cg_ctrl c,
		      struct host_cg_choice *ch, char *why, size_t cap)
{
	const char *name = ctrl_names[c];

	if (!f->v1[c].mounted) {
		say(why, cap, "no cgroup v1 hierarchy has the %s controller", name);
		return false;
	}
	if (!f->v1[c].dir[0]) {
		say(why, cap, "porta's cgroup in the v1 %s hierarchy is not visible under %s", name,
		    f->v1[c].mount);
		return false;
	}
	if (!f->v1[c].writable) {
		say(why, cap, "%s is not writable by uid %u", f->v1[c].dir, f->uid);
		return false;
	}
	ch->version[c] = 1;
	snprintf(ch->parent[c], sizeof(ch->parent[c]), "%s", f->v1[c].dir);
	ch->enable[c] = false;
	return true;
}

enum host_cg_verdict host_cg_choose(const struct host_cg_facts *f, unsigned need,
					  struct host_cg_choice *c, enum host_cg_ctrl *failed,
					  char *why, size_t cap)
{
	memset(c, 0, sizeof(*c));
	if (cap)
		why[0] = '\0';
	for (int i = 0; i < HOST_CG_NCTRL; i++) {
		if (!(need & (1u << i)))
			continue;
		if (cap)
			why[0] = '\0';
		if (choose_v2(f, (enum host_cg_ctrl)i, c, why, cap))
			continue;
		say(why, cap, ", and ");
		if (choose_v1(f, (enum host_cg_ctrl)i, c, why, cap))
			continue;
		if (failed)
			*failed = (enum host_cg_ctrl)i;
		memset(c, 0, sizeof(*c));
		return HOST_CG_UNAVAILABLE;
	}
	if (cap)
		why[0] = '\0';
	return HOST_CG_OK;
}

unsigned host_cg_choose_each(const struct host_cg_facts *f, unsigned want,
			     struct host_cg_choice *c)
{
	struct host_cg_choice one;
	unsigned got = 0;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < HOST_CG_NCTRL; i++) {
		if (!(want & (1u << i)) ||
		    host_cg_choose(f, 1u << i, &one, NULL, NULL, 0) != HOST_CG_OK)
			continue;
		got |= 1u << i;
		c->version[i] = one.version[i];
		c->enable[i] = one.enable[i];
		snprintf(c->parent[i], sizeof(c->parent[i]), "%s", one.parent[i]);
	}
	return got;
}

/* ---- effects: what this host offers ---- */

unsigned host_cg_needed(const struct policy_options *o)
{
	return o->max_procs.set && geteuid() == 0 ? 1u << HOST_CG_PIDS : 0;
}

unsigned host_cg_wanted(const struct policy_options *o)
{
	unsigned want = 0;

	if (o->max_memory_mib.set)
		want |= 1u << HOST_CG_MEMORY;
	if (o->max_cpu_s.set)
		want |= 1u << HOST_CG_CPU;
	return want;
}

/* Reads a small file into buf (NUL-terminated, trailing newline dropped);
 * "" when it cannot be read. */
static void read_small(const char *path, char *buf, size_t cap)
{
	_cleanup_fd_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static bool writable(const char *dir)
{
	return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;
}

int host_cg_gather(struct host_cg_facts *f)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	char v2path[HOST_CG_PATH_MAX] = "", v1path[HOST_CG_NCTRL][HOST_CG_PATH_MAX] = { "" };
	struct host_cg_member mem;
	struct host_cg_mount mnt;

	memset(f, 0, sizeof(*f));
	f->uid = (unsigned)geteuid();

	_cleanup_fclose_ FILE *cg = fopen("/proc/self/cgroup", "re");
	if (!cg)
		return -errno;
	while ((len = getline(&line, &cap, cg)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		switch (host_cg_parse_member(line, (size_t)len, &mem)) {
		case HOST_CG_MEMBER_V2:
			snprintf(v2path, sizeof(v2path), "%s", mem.path);
			break;
		case HOST_CG_MEMBER_V1:
			for (int c = 0; c < HOST_CG_NCTRL; c++)
				if (mem.has[c])
					snprintf(v1path[c], sizeof(v1path[c]), "%s", mem.path);
			break;
		case HOST_CG_MEMBER_MALFORMED:
			break;
		}
	}

	_cleanup_fclose_ FILE *mi = fopen("/proc/self/mountinfo", "re");
	if (!mi)
		return -errno;
	while ((len = getline(&line, &cap, mi)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		switch (host_cg_parse_mountinfo(line, (size_t)len, &mnt)) {
		case HOST_CG_MOUNT_V2:
			if (!f->v2_mounted)
				snprintf(f->v2_mount, sizeof(f->v2_mount), "%s", mnt.dir);
			f->v2_mounted = true;
			/* The first mount through which porta's cgroup is visible. */
			if (!f->v2_dir[0] && v2path[0] &&
			    host_cg_dir(mnt.dir, mnt.root, v2path, f->v2_dir, sizeof(f->v2_dir))) {
				snprintf(f->v2_mount, sizeof(f->v2_mount), "%s", mnt.dir);
				f->v2_is_root = strcmp(v2path, "/") == 0;
			}
			break;
		case HOST_CG_MOUNT_V1:
			for (int c = 0; c < HOST_CG_NCTRL; c++) {
				if (!mnt.has[c])
					continue;
				if (!f->v1[c].mounted)
					snprintf(f->v1[c].mount, sizeof(f->v1[c].mount), "%s", mnt.dir);
				f->v1[c].mounted = true;
				if (!f->v1[c].dir[0] && v1path[c][0] &&
				    host_cg_dir(mnt.dir, mnt.root, v1path[c], f->v1[c].dir,
						   sizeof(f->v1[c].dir)))
					snprintf(f->v1[c].mount, sizeof(f->v1[c].mount), "%s", mnt.dir);
			}
			break;
		default:
			break;
		}
	}

	if (f->v2_dir[0]) {
		char path[HOST_CG_PATH_MAX + 32];
		snprintf(path, sizeof(path), "%s/cgroup.controllers", f->v2_dir);
		read_small(path, f->v2_controllers, sizeof(f->v2_controllers));
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", f->v2_dir);
		read_small(path, f->v2_subtree, sizeof(f->v2_subtree));
		f->v2_writable = writable(f->v2_dir);
	}
	for (int c = 0; c < HOST_CG_NCTRL; c++)
		if (f->v1[c].dir[0])
			f->v1[c].writable = writable(f->v1[c].dir);
	return 0;
}

/* The refusal for the controller that has no cgroup, as one sentence. */
void host_cg_refusal(enum host_cg_ctrl failed, const char *why, char *out, size_t cap)
{
	if (failed == HOST_CG_MEMORY)
		snprintf(out, cap,
			 "--max-memory-mb needs the memory controller in a cgroup porta can create: %s; "
			 "ask for a delegated cgroup (systemd-run --user -p Delegate=yes) or drop the "
			 "option",
			 why);
	else
		snprintf(out, cap,
			 "--max-procs needs, for root, the pids controller in a cgroup porta can create "
			 "(the kernel exempts uid 0 from RLIMIT_NPROC): %s; run porta as another user, "
			 "give it a delegated cgroup, or drop the option",
			 why);
}

bool host_ceilings_refusal(const struct policy_options *o, char *why, size_t cap)
{
	unsigned need = host_cg_needed(o);
	struct host_cg_facts *f;
	struct host_cg_choice *ch;
	enum host_cg_ctrl failed = HOST_CG_MEMORY;
	char reason[1024];
	bool refused = false;

	if (!need)
		return false;
	f = calloc(1, sizeof(*f));
	ch = calloc(1, sizeof(*ch));
	if (!f || !ch) {
		snprintf(why, cap, "out of memory while looking for a cgroup");
		refused = true;
	} else if (host_cg_gather(f) < 0) {
		snprintf(why, cap, "cannot read /proc/self/cgroup or /proc/self/mountinfo to find a "
				   "cgroup for the ceilings");
		refused = true;
	} else if (host_cg_choose(f, need, ch, &failed, reason, sizeof(reason)) != HOST_CG_OK) {
		host_cg_refusal(failed, reason, why, cap);
		refused = true;
	}
	free(ch);
	free(f);
	return refused;
}
