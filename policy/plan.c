/* policy/plan.c: see plan.h. */
#include "policy/plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/paths.h"

struct policy_plan *policy_plan_create(const struct policy_options *opts)
{
	struct policy_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return NULL;
	plan->opts = opts;
	plan->envp = calloc(1, sizeof(char *));
	if (!plan->envp) {
		free(plan);
		return NULL;
	}
	return plan;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void policy_plan_destroy(struct policy_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_rules; i++)
		free(plan->rules[i].path);
	free(plan->rules);
	for (size_t i = 0; i < plan->n_mounts; i++)
		free(plan->mounts[i].path);
	free(plan->mounts);
	free_strv(plan->absent_protected, plan->n_absent_protected);
	free(plan->config_named);
	free(plan->config_real);
	for (size_t i = 0; i < plan->n_links; i++) {
		free(plan->links[i].path);
		free(plan->links[i].target);
	}
	free(plan->links);
	for (size_t i = 0; i < plan->n_reopened; i++) {
		free(plan->reopened[i].path);
		free(plan->reopened[i].closed);
	}
	free(plan->reopened);
	free(plan->caches);
	free_strv(plan->notes, plan->n_notes);
	free_strv(plan->warnings, plan->n_warnings);
	free_strv(plan->envp, plan->n_env);
	free(plan->net_rules);
	free(plan->listen_ports);
	free(plan->host_addrs);
	free(plan->home);
	free(plan->home_gitconfig);
	free(plan->home_project);
	free(plan->audit_real);
	free(plan->cwd);
	free(plan);
}

/* Grows *arr (of elem-size items, *n used) by one and returns the new slot.
 * The capacity is the next power of two of *n, so it is derived, not stored:
 * reallocate exactly when *n is 0 or a power of two. */
static void *grow(void *arr_ptr, size_t *n, size_t elem)
{
	void **arr = arr_ptr;

	if ((*n & (*n - 1)) == 0) {
		size_t ncap = *n == 0 ? 1 : *n * 2;
		void *p = realloc(*arr, ncap * elem);
		if (!p)
			return NULL;
		*arr = p;
	}
	return (char *)*arr + (*n)++ * elem;
}

int policy_plan_add_rule(struct policy_plan *plan, const char *path, unsigned grant,
			 bool is_dir)
{
	/* The same path granted twice is one rule with both grants. */
	for (size_t i = 0; i < plan->n_rules; i++) {
		if (strcmp(plan->rules[i].path, path) == 0) {
			plan->rules[i].grant |= grant;
			return 0;
		}
	}
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	struct policy_rule *r = grow(&plan->rules, &plan->n_rules, sizeof(*r));
	if (!r) {
		free(copy);
		return -ENOMEM;
	}
	*r = (struct policy_rule){ copy, grant, is_dir };
	return 0;
}

bool policy_plan_rule_after_mounts(const struct policy_plan *plan, const struct policy_rule *rule)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		bool replaces = m->kind == POLICY_MOUNT_PROC || m->kind == POLICY_MOUNT_TMPFS ||
				m->kind == POLICY_MOUNT_DEVPTS || m->kind == POLICY_MOUNT_COVER_DIR;
		if (!replaces)
			continue;
		if (strcmp(m->path, rule->path) == 0)
			return true;
		/* The devpts step also binds its ptmx over /dev/ptmx. */
		if (m->kind == POLICY_MOUNT_DEVPTS && strcmp(rule->path, "/dev/ptmx") == 0)
			return true;
	}
	return false;
}

bool policy_plan_mount_stays_writable(const struct policy_plan *plan, const char *mount_point)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		if ((plan->rules[i].grant & POLICY_GRANT_WRITE) &&
		    policy_path_is_under(plan->rules[i].path, mount_point))
			return true;
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		bool own = m->kind == POLICY_MOUNT_PROC || m->kind == POLICY_MOUNT_TMPFS ||
			   m->kind == POLICY_MOUNT_DEVPTS || m->kind == POLICY_MOUNT_COVER_DIR;
		if (own && strcmp(m->path, mount_point) == 0)
			return true;
	}
	return false;
}

const struct policy_mount_step *policy_plan_find_mount(const struct policy_plan *plan,
							 const char *path)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		if (strcmp(plan->mounts[i].path, path) == 0)
			return &plan->mounts[i];
	}
	return NULL;
}

int policy_plan_add_mount(struct policy_plan *plan, enum policy_mount_kind kind,
			  const char *path, enum policy_path_reason reason)
{
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	struct policy_mount_step *m = grow(&plan->mounts, &plan->n_mounts, sizeof(*m));
	if (!m) {
		free(copy);
		return -ENOMEM;
	}
	*m = (struct policy_mount_step){ .kind = kind, .path = copy, .reason = reason };
	return 0;
}

static int push_str(char ***v, size_t *n, char *s)
{
	if (!s)
		return -ENOMEM;
	char **slot = grow(v, n, sizeof(char *));
	if (!slot) {
		free(s);
		return -ENOMEM;
	}
	*slot = s;
	return 0;
}

void policy_plan_set_last_mount_id(struct policy_plan *plan, unsigned long long dev,
				   unsigned long long ino)
{
	if (plan->n_mounts) {
		struct policy_mount_step *m = &plan->mounts[plan->n_mounts - 1];
		m->has_id = true;
		m->dev = dev;
		m->ino = ino;
	}
}

int policy_plan_add_absent(struct policy_plan *plan, const char *path)
{
	return push_str(&plan->absent_protected, &plan->n_absent_protected, strdup(path));
}

int policy_plan_add_link(struct policy_plan *plan, const char *path, const char *target,
			 unsigned long long dev, unsigned long long ino)
{
	char *p = strdup(path), *t = strdup(target);
	struct policy_link *l = p && t ? grow(&plan->links, &plan->n_links, sizeof(*l)) : NULL;

	if (!l) {
		free(p);
		free(t);
		return -ENOMEM;
	}
	*l = (struct policy_link){ p, t, dev, ino };
	return 0;
}

int policy_plan_add_reopen(struct policy_plan *plan, const char *path, const char *closed,
			   enum policy_path_reason reason)
{
	for (size_t i = 0; i < plan->n_reopened; i++) {
		if (strcmp(plan->reopened[i].path, path) == 0)
			return 0;
	}
	char *p = strdup(path), *c = strdup(closed);
	struct policy_reopen *r = p && c ? grow(&plan->reopened, &plan->n_reopened, sizeof(*r))
					: NULL;
	if (!r) {
		free(p);
		free(c);
		return -ENOMEM;
	}
	*r = (struct policy_reopen){ p, c, reason };
	return 0;
}

bool policy_mount_closes_socket(const struct policy_mount_step *m)
{
	enum policy_path_closes c = policy_path_reason_info(m->reason)->closes;

	return (m->kind == POLICY_MOUNT_COVER_FILE && c == POLICY_PATH_CLOSES_SOCKET) ||
	       (m->kind == POLICY_MOUNT_COVER_DIR && c == POLICY_PATH_CLOSES_SOCKET_DIR);
}

bool policy_plan_in_writable_mount(const struct policy_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		if (!(r->grant & POLICY_GRANT_WRITE) || (r->grant & POLICY_GRANT_DEV))
			continue;
		/* The sandbox's own /tmp and /dev/shm are fresh filesystems: what
		 * is created there never reaches the host. */
		if ((strcmp(r->path, "/tmp") == 0 && !plan->opts->share_tmp) ||
		    strcmp(r->path, "/dev/shm") == 0)
			continue;
		if (policy_path_is_under(r->path, path))
			return true;
	}
	return false;
}

/* Formats into a new string and appends it to *v. */
static int push_vfmt(char ***v, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static int push_vfmt(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	return push_str(v, n, s);
}

int policy_plan_add_note(struct policy_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_vfmt(&plan->notes, &plan->n_notes, fmt, ap);
	va_end(ap);
	return r;
}

int policy_plan_add_warning(struct policy_plan *plan, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = push_vfmt(&plan->warnings, &plan->n_warnings, fmt, ap);
	va_end(ap);
	return r;
}

int policy_plan_setenv(struct policy_plan *plan, const char *name, size_t name_len,
		       const char *value, size_t value_len)
{
	char *entry = malloc(name_len + value_len + 2);
	if (!entry)
		return -ENOMEM;
	memcpy(entry, name, name_len);
	entry[name_len] = '=';
	memcpy(entry + name_len + 1, value, value_len);
	entry[name_len + 1 + value_len] = '\0';
	for (size_t i = 0; i < plan->n_env; i++) {
		if (strncmp(plan->envp[i], entry, name_len + 1) == 0) {
			free(plan->envp[i]);
			plan->envp[i] = entry;
			return 0;
		}
	}
	/* envp stays NULL-terminated: grow by one slot, then terminate. */
	char **v = realloc(plan->envp, (plan->n_env + 2) * sizeof(char *));
	if (!v) {
		free(entry);
		return -ENOMEM;
	}
	plan->envp = v;
	v[plan->n_env++] = entry;
	v[plan->n_env] = NULL;
	return 0;
}

size_t policy_net_listen_ports(const struct policy_net_rule *rules, size_t n_rules, uint16_t *out,
			       size_t cap)
{
	/* A bitmap of the 65536 ports keeps the union exact and ordered. */
	uint64_t seen[65536 / 64] = { 0 };
	size_t n = 0;

	for (size_t i = 0; i < n_rules; i++) {
		const struct policy_net_rule *r = &rules[i];
		if (r->action != POLICY_NET_ALLOW || r->scope != POLICY_NET_SCOPE_ALL)
			continue;
		for (uint32_t p = r->port_lo; p <= r->port_hi; p++)
			seen[p / 64] |= 1ULL << (p % 64);
	}
	seen[53 / 64] &= ~(1ULL << (53 % 64));
	seen[0] &= ~1ULL; /* port 0 */
	/* word by word, lowest bit first: every start walks this (twice) */
	for (size_t w = 0; w < 65536 / 64; w++) {
		for (uint64_t bits = seen[w]; bits; bits &= bits - 1) {
			if (n < cap)
				out[n] = (uint16_t)(w * 64 + (size_t)__builtin_ctzll(bits));
			n++;
		}
	}
	return n;
}
