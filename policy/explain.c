/* policy/explain.c: see explain.h. */
#include "policy/explain.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/log.h"
#include "policy/path_reason.h"
#include "policy/paths.h"
#include "policy/preset.h"

static const char *net_mode_name(enum policy_net_mode m)
{
	switch (m) {
	case POLICY_NET_NONE: return "none";
	case POLICY_NET_POLICY: return "policy";
	default: return "open";
	}
}

static bool is_cover(enum policy_mount_kind k)
{
	return k == POLICY_MOUNT_COVER_DIR || k == POLICY_MOUNT_COVER_FILE;
}

/* A socket's cover or a closed socket directory: the socket rule's, shown
 * under "Unix sockets" rather than as closed paths. */
static bool is_socket_cover(const struct policy_mount_step *m)
{
	return policy_mount_closes_socket(m);
}

static bool is_socket_dir(const struct policy_mount_step *m)
{
	return m->kind == POLICY_MOUNT_COVER_DIR && policy_mount_closes_socket(m);
}

/* The kept sockets that apply to this run's network mode. */
static bool kept_applies(const struct policy_plan *plan, const struct policy_kept_socket *k)
{
	return !k->open_net_only || plan->opts->net_mode == POLICY_NET_OPEN;
}

static const char *mount_access(const struct policy_plan *plan, const struct policy_mount *m,
				char *buf, size_t cap)
{
	(void)plan;
	snprintf(buf, cap, "%.*s", (int)m->path_len, m->path);
	return m->read_only ? "ro" : "rw";
}

/* json_string() refuses bytes that are not UTF-8 (it returns NULL, and the
 * element would silently vanish), yet paths and argv may hold any byte: such
 * a string is given escaped as log_escape() writes it. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	if (!j) {
		char buf[4 * 4096 + 1];
		j = json_string(log_escape(s, strlen(s), buf, sizeof(buf)));
	}
	return j;
}

/* The options of the merged command line (index 2 up to the command),
 * each as its words and where it came from (policy/profile.h). */
static json_t *sources_json(const struct policy_plan *plan)
{
	const struct policy_sources *src = plan->sources;
	json_t *all = json_array();
	int end = plan->opts->cmd_index;
	for (int i = 2; i < end && i < src->argc; i++) {
		if (strcmp(src->argv[i], "--") == 0)
			break;
		int words = policy_option_words(src->argv[i]);
		json_t *o = json_object(), *w = json_array();
		for (int k = 0; k < words && i + k < end; k++)
			json_array_append_new(w, jstr(src->argv[i + k]));
		json_object_set_new(o, "words", w);
		const struct policy_origin *from = &src->origin[i];
		if (from->profile < 0) {
			json_object_set_new(o, "from", json_string("command line"));
		} else if (!src->names[from->profile]) {
			json_object_set_new(o, "from", json_string("project file"));
			json_object_set_new(o, "file", jstr(src->files[from->profile]));
			json_object_set_new(o, "line", json_integer(from->line));
		} else {
			json_object_set_new(o, "from", json_string("profile"));
			json_object_set_new(o, "profile", jstr(src->names[from->profile]));
			json_object_set_new(o, "file", jstr(src->files[from->profile]));
			json_object_set_new(o, "line", json_integer(from->line));
		}
		json_array_append_new(all, o);
		i += words - 1;
	}
	return all;
}

/* What reaches the host of a crash (escape corpus row 62). */
static const char *core_dumps_json(enum policy_core_target t)
{
	switch (t) {
	case POLICY_CORE_FILES:
		return "files";
	case POLICY_CORE_PIPE:
		return "none";
	case POLICY_CORE_SOCKET:
	case POLICY_CORE_UNKNOWN:
		break;
	}
	return "notes";
}

static const char *core_dumps_words(enum policy_core_target t)
{
	switch (t) {
	case POLICY_CORE_PIPE:
		return "none (kernel.core_pattern pipes them to a program of the host; "
		       "RLIMIT_CORE stays at 1)";
	case POLICY_CORE_SOCKET:
		return "the kernel's notes only, no memory (kernel.core_pattern sends them to "
		       "a socket of the host whatever the limit; coredump_filter 0)";
	case POLICY_CORE_FILES:
	case POLICY_CORE_UNKNOWN:
		break;
	}
	return "none, or the kernel's notes only (kernel.core_pattern unreadable; "
	       "RLIMIT_CORE 1, coredump_filter 0)";
}

static json_t *limits_json(const struct policy_options *o)
{
	json_t *l = json_object();
	if (o->timeout_ms.set)
		json_object_set_new(l, "timeout_ms", json_integer((json_int_t)o->timeout_ms.value));
	if (o->max_cpu_s.set)
		json_object_set_new(l, "max_cpu_s", json_integer((json_int_t)o->max_cpu_s.value));
	if (o->max_procs.set)
		json_object_set_new(l, "max_procs", json_integer((json_int_t)o->max_procs.value));
	if (o->max_file_size_mib.set)
		json_object_set_new(l, "max_file_size_mib",
				    json_integer((json_int_t)o->max_file_size_mib.value));
	if (o->max_memory_mib.set)
		json_object_set_new(l, "max_memory_mib",
				    json_integer((json_int_t)o->max_memory_mib.value));
	return l;
}

static int explain_json(FILE *out, const struct policy_plan *plan, int argc, char *const argv[],
			int abi)
{
	const struct policy_options *o = plan->opts;
	json_t *root = json_object();
	json_t *mounts = json_array(), *closed = json_array(), *prot = json_array();
	json_t *socks = json_array(), *env = json_array(), *cmd = json_array();
	json_t *notes = json_array(), *net = json_object(), *grants = json_array();
	json_t *sockdirs = json_array(), *kept = json_array(), *allowed = json_array();
	json_t *pinned = json_array(), *reopened = json_array(), *links = json_array();
	char path[4096];

	for (size_t i = 0; i < o->n_mounts; i++) {
		json_t *m = json_object();
		const char *acc = mount_access(plan, &o->mounts[i], path, sizeof(path));
		json_object_set_new(m, "path", jstr(path));
		json_object_set_new(m, "access", json_string(acc));
		json_array_append_new(mounts, m);
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (is_socket_dir(m)) {
			json_array_append_new(sockdirs, jstr(m->path));
		} else if (is_socket_cover(m)) {
			json_array_append_new(socks, jstr(m->path));
		} else if (m->kind == POLICY_MOUNT_REBIND && m->reason == POLICY_PATH_ALLOW_UNIX) {
			json_array_append_new(allowed, jstr(m->path));
		} else if (m->kind == POLICY_MOUNT_PIN) {
			json_t *p = json_object();
			json_object_set_new(p, "path", jstr(m->path));
			json_object_set_new(p, "reason",
					    json_string(policy_path_reason_words(m->reason)));
			json_array_append_new(pinned, p);
		} else if (is_cover(m->kind)) {
			json_t *c = json_object();
			json_object_set_new(c, "path", jstr(m->path));
			json_object_set_new(c, "kind", json_string(m->kind == POLICY_MOUNT_COVER_DIR
								       ? "dir" : "file"));
			json_object_set_new(c, "reason",
					    json_string(policy_path_reason_words(m->reason)));
			json_array_append_new(closed, c);
		} else if (m->kind == POLICY_MOUNT_READONLY && m->reason == POLICY_PATH_PROTECTED) {
			json_t *p = json_object();
			json_object_set_new(p, "path", jstr(m->path));
			json_object_set_new(p, "present", json_true());
			json_array_append_new(prot, p);
		}
	}
	if (plan->config_absent) {
		json_t *c = json_object();
		json_object_set_new(c, "path", jstr(plan->config_named));
		json_object_set_new(c, "kind", json_string("dir"));
		json_object_set_new(c, "reason",
				    json_string(policy_path_reason_words(POLICY_PATH_PORTA_CONFIG)));
		json_object_set_new(c, "absent", json_true());
		json_array_append_new(closed, c);
	}
	for (size_t i = 0; i < plan->n_absent_protected; i++) {
		json_t *p = json_object();
		json_object_set_new(p, "path", jstr(plan->absent_protected[i]));
		json_object_set_new(p, "present", json_false());
		json_array_append_new(prot, p);
	}
	for (size_t i = 0; i < plan->n_links; i++) {
		json_t *l = json_object();
		json_object_set_new(l, "path", jstr(plan->links[i].path));
		json_object_set_new(l, "target", jstr(plan->links[i].target));
		json_array_append_new(links, l);
	}
	for (size_t i = 0; i < plan->n_reopened; i++) {
		json_t *r = json_object();
		json_object_set_new(r, "path", jstr(plan->reopened[i].path));
		json_object_set_new(r, "closed", jstr(plan->reopened[i].closed));
		json_object_set_new(r, "reason",
				    json_string(policy_path_reason_words(plan->reopened[i].reason)));
		json_array_append_new(reopened, r);
	}
	{
		size_t nk;
		const struct policy_kept_socket *k = policy_kept_sockets(&nk);
		for (size_t i = 0; i < nk; i++) {
			if (!kept_applies(plan, &k[i]))
				continue;
			json_t *j = json_object();
			json_object_set_new(j, "path", json_string(k[i].path));
			json_object_set_new(j, "why", json_string(k[i].why));
			json_array_append_new(kept, j);
		}
	}
	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		json_t *g = json_object();
		json_object_set_new(g, "path", jstr(r->path));
		json_object_set_new(g, "read", json_boolean(r->grant & POLICY_GRANT_READ));
		json_object_set_new(g, "write", json_boolean(r->grant & POLICY_GRANT_WRITE));
		json_object_set_new(g, "device", json_boolean(r->grant & POLICY_GRANT_DEV));
		json_array_append_new(grants, g);
	}
	for (size_t i = 0; i < plan->n_env; i++) {
		const char *eq = strchr(plan->envp[i], '=');
		json_array_append_new(env, json_stringn(plan->envp[i], (size_t)(eq - plan->envp[i])));
	}
	for (int i = 0; i < argc; i++)
		json_array_append_new(cmd, jstr(argv[i]));
	for (size_t i = 0; i < plan->n_warnings; i++)
		json_array_append_new(notes, jstr(plan->warnings[i]));
	for (size_t i = 0; i < plan->n_notes; i++)
		json_array_append_new(notes, jstr(plan->notes[i]));
	json_object_set_new(net, "mode", json_string(net_mode_name(o->net_mode)));
	if (o->net_mode == POLICY_NET_POLICY) {
		json_t *rules = json_array(), *ports = json_array();
		char addr[POLICY_ADDR_STRLEN];
		for (size_t i = 0; i < plan->n_net_rules; i++) {
			const struct policy_net_rule *r = &plan->net_rules[i];
			json_t *j = json_object();
			json_object_set_new(j, "rule", jstr(r->text));
			json_object_set_new(j, "action", json_string(r->action == POLICY_NET_DENY
									  ? "deny" : "allow"));
			json_object_set_new(j, "scope", json_string(r->scope == POLICY_NET_SCOPE_PROXY
									 ? "proxy" : "all"));
			json_object_set_new(j, "ports", json_pack("[ii]", r->port_lo, r->port_hi));
			json_array_append_new(rules, j);
		}
		for (size_t i = 0; i < plan->n_listen_ports; i++)
			json_array_append_new(ports, json_integer(plan->listen_ports[i]));
		json_object_set_new(net, "rules", rules);
		json_object_set_new(net, "listen_ports", ports);
		policy_addr_format(&plan->dns_upstream, addr);
		json_object_set_new(net, "dns_upstream", json_string(addr));
		json_object_set_new(net, "dns_upstream_port", json_integer(plan->dns_upstream_port));
		if (o->audit_path)
			json_object_set_new(net, "audit", jstr(o->audit_path));
		json_t *secrets = json_array(), *http = json_array();
		for (size_t i = 0; i < o->secrets.n; i++)
			json_array_append_new(secrets, jstr(o->secrets.v[i]));
		for (size_t i = 0; i < o->allow_http.n; i++)
			json_array_append_new(http, jstr(o->allow_http.v[i]));
		json_object_set_new(net, "secrets", secrets);
		json_object_set_new(net, "allow_http", http);
	}

	json_object_set_new(root, "mounts", mounts);
	json_object_set_new(root, "read_policy",
			    json_string(policy_read_mode_word(o->read_mode)));
	json_t *shown = json_array();
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind != POLICY_MOUNT_REBIND || (m->reason != POLICY_PATH_HOME_PROJECT &&
						       m->reason != POLICY_PATH_HOME_VISIBLE))
			continue;
		json_t *e = json_object();
		json_object_set_new(e, "path", jstr(m->path));
		json_object_set_new(e, "reason", json_string(policy_path_reason_words(m->reason)));
		json_array_append_new(shown, e);
	}
	json_object_set_new(root, "home_shown", shown);
	json_object_set_new(root, "home_gitconfig", json_boolean(plan->home_gitconfig != NULL));
	json_object_set_new(root, "preset",
			    json_string(o->preset == POLICY_PRESET_NONE ? "none" : "default"));
	json_object_set_new(root, "tmp", json_string(o->share_tmp ? "shared" : "private"));
	json_object_set_new(root, "grants", grants);
	json_object_set_new(root, "closed_paths", closed);
	json_object_set_new(root, "protected", prot);
	json_object_set_new(root, "closed_sockets", socks);
	json_object_set_new(root, "closed_socket_dirs", sockdirs);
	json_object_set_new(root, "kept_sockets", kept);
	json_object_set_new(root, "allowed_sockets", allowed);
	json_object_set_new(root, "pinned", pinned);
	json_object_set_new(root, "protected_links", links);
	json_object_set_new(root, "reopened", reopened);
	json_t *caches = json_array();
	for (size_t i = 0; i < plan->n_caches; i++) {
		const struct policy_cache_dir *c = &plan->caches[i];
		json_t *j = json_object();
		json_object_set_new(j, "path", jstr(c->path));
		json_object_set_new(j, "tool", json_string(c->tool));
		json_object_set_new(j, "variable", c->var ? json_string(c->var) : json_null());
		json_object_set_new(j, "absent", json_boolean(c->absent));
		json_object_set_new(j, "left_out", json_boolean(c->skipped));
		json_array_append_new(caches, j);
	}
	json_object_set_new(root, "caches", caches);
	json_object_set_new(root, "network", net);
	json_object_set_new(root, "limits", limits_json(o));
	json_object_set_new(root, "core_dumps", json_string(core_dumps_json(plan->core_target)));
	json_object_set_new(root, "env", env);
	json_object_set_new(root, "command", cmd);
	if (plan->sources)
		json_object_set_new(root, "options", sources_json(plan));
	json_object_set_new(root, "notes", notes);
	json_object_set_new(root, "landlock_abi", json_integer(abi));
	int rc = json_dumpf(root, out, JSON_INDENT(2)) == 0 ? 0 : -ENOMEM;
	fputc('\n', out);
	json_decref(root);
	return rc;
}

static void esc_print(FILE *out, const char *prefix, const char *s, const char *suffix)
{
	char buf[8192];
	fprintf(out, "%s%s%s", prefix, log_escape(s, strlen(s), buf, sizeof(buf)), suffix);
}

/* A word as a shell (and a profile) would take it back: bare when it
 * holds only bytes no shell treats specially, else in '...' (a ' inside as
 * '\''); bytes a terminal would act on escaped (log_escape()). */
static void quoted_print(FILE *out, const char *w)
{
	bool bare = w[0] != '\0';
	for (const char *p = w; *p && bare; p++)
		bare = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			      "@%+=:,./_-",
			      *p) != NULL;
	if (bare) {
		esc_print(out, " ", w, "");
		return;
	}
	fputs(" '", out);
	for (const char *p = w; *p;) {
		const char *q = strchr(p, '\'');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		char part[4096];
		snprintf(part, sizeof(part), "%.*s", (int)(n < sizeof(part) - 1 ? n : sizeof(part) - 1),
			 p);
		esc_print(out, "", part, "");
		if (!q)
			break;
		fputs("'\\''", out);
		p = q + 1;
	}
	fputs("'", out);
}

/* The options of the merged command line and where each came from: a
 * profile's file and line, or the command line. */
static void sources_text(FILE *out, const struct policy_plan *plan)
{
	const struct policy_sources *src = plan->sources;
	int end = plan->opts->cmd_index;
	char line[64];
	fprintf(out, "\noptions, and where each came from:\n");
	for (int i = 2; i < end && i < src->argc; i++) {
		if (strcmp(src->argv[i], "--") == 0)
			break;
		int words = policy_option_words(src->argv[i]);
		fputs(" ", out);
		for (int k = 0; k < words && i + k < end; k++)
			quoted_print(out, src->argv[i + k]);
		const struct policy_origin *from = &src->origin[i];
		if (from->profile < 0) {
			fprintf(out, "    (command line)\n");
		} else {
			const char *name = src->names[from->profile];
			if (!name) {
				esc_print(out, "    (project file ", src->files[from->profile], "");
			} else if (strchr(name, '/')) {
				esc_print(out, "    (profile ", src->files[from->profile], "");
			} else {
				esc_print(out, "    (profile ", name, "");
				esc_print(out, ": ", src->files[from->profile], "");
			}
			snprintf(line, sizeof(line), ", line %u)\n", from->line);
			fputs(line, out);
		}
		i += words - 1;
	}
}

/* The deepest writable -v mount holding path, or NULL. */
static const char *writable_root(const struct policy_plan *plan, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct policy_rule *r = &plan->rules[i];
		if ((r->grant & POLICY_GRANT_WRITE) && !(r->grant & POLICY_GRANT_DEV) &&
		    policy_plan_in_writable_mount(plan, r->path) &&
		    policy_path_is_under(r->path, path) && strcmp(r->path, path) != 0 &&
		    (!best || strlen(r->path) > strlen(best)))
			best = r->path;
	}
	return best;
}

/* The absent protected names, grouped by the writable mount that holds them
 * (names relative to it, one line each mount, wrapped); the others whole,
 * one line each. */
static void print_absent(FILE *out, const struct policy_plan *plan)
{
	for (size_t i = 0; i < plan->n_absent_protected; i++) {
		const char *root = writable_root(plan, plan->absent_protected[i]);
		if (!root) {
			esc_print(out, "    ", plan->absent_protected[i], "\n");
			continue;
		}
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = writable_root(plan, plan->absent_protected[k]) != root;
		if (!first)
			continue;
		esc_print(out, "    in ", root, ":");
		size_t col = 8 + strlen(root);
		/* The name below the root: past "root/", or past "/" itself. */
		size_t skip = strlen(root) + (strcmp(root, "/") != 0);
		for (size_t k = i; k < plan->n_absent_protected; k++) {
			if (writable_root(plan, plan->absent_protected[k]) != root)
				continue;
			const char *rel = plan->absent_protected[k] + skip;
			char esc[4096];
			size_t w = strlen(log_escape(rel, strlen(rel), esc, sizeof(esc)));
			if (col + w > 96) {
				fprintf(out, "\n     ");
				col = 5;
			}
			fprintf(out, " %s", esc);
			col += w + 1;
		}
		fprintf(out, "\n");
	}
}

int policy_explain(FILE *out, const struct policy_plan *plan, int argc, char *const argv[],
		   int abi, bool json)
{
	const struct policy_options *o = plan->opts;
	char path[4096];

	if (json)
		return explain_json(out, plan, argc, argv, abi);

	fprintf(out, "command:");
	for (int i = 0; i < argc; i++)
		esc_print(out, " ", argv[i], "");
	fprintf(out, "%s\n", argc ? "" : " (none given)");

	fprintf(out, "\nfiles (Landlock ABI %d):\n", abi);
	if (o->n_mounts == 0 && plan->n_caches == 0)
		fprintf(out, "  no -v mounts: nothing of the host is writable\n");
	for (size_t i = 0; i < o->n_mounts; i++) {
		const char *acc = mount_access(plan, &o->mounts[i], path, sizeof(path));
		esc_print(out, "  mount ", path, strcmp(acc, "ro") == 0 ? "  read-only\n"
									  : "  read-write\n");
	}
	for (size_t i = 0; i < plan->n_caches; i++) {
		const struct policy_cache_dir *c = &plan->caches[i];
		esc_print(out, "  cache ", c->path, "");
		if (c->skipped) {
			fprintf(out, "  left out (--caches: %s): a symbolic link porta does not follow\n",
				c->tool);
			continue;
		}
		fprintf(out, "  read-write (--caches: %s%s%s)%s\n", c->tool, c->var ? ", from $" : "",
			c->var ? c->var : "", c->absent ? ", absent now: run makes it" : "");
	}
	fprintf(out, "  reads: %s\n",
		o->read_mode == POLICY_READ_STRICT
			? "strict (mounts, system directories and the /etc files programs need)"
		: o->read_mode == POLICY_READ_OPEN
			? "open (everything but closed paths)"
			: "home (everything outside the home but closed paths; in the home only "
			  "what is named below)");
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind == POLICY_MOUNT_REBIND && (m->reason == POLICY_PATH_HOME_PROJECT ||
						       m->reason == POLICY_PATH_HOME_VISIBLE))
			esc_print(out, "    shown in the home, read-only: ", m->path,
				  m->reason == POLICY_PATH_HOME_PROJECT
					  ? "  (the working directory's project)\n"
					  : "  (toolchain or configuration, docs/defaults.md)\n");
	}
	if (plan->home_gitconfig && plan->home)
		esc_print(out, "    shown in the home: ", plan->home,
			  "/.gitconfig, written by porta: the host's user.* values only\n");
	fprintf(out, "  /tmp: %s; /dev: the usual devices writable, /dev/shm private\n",
		o->share_tmp ? "the host's, shared and writable" : "private (empty tmpfs)");
	fprintf(out, "  /proc: the sandbox's own processes only; /proc/sys read-only\n");
	fprintf(out, "  preset: %s\n", o->preset == POLICY_PRESET_NONE ? "none" : "default");

	fprintf(out, "\nclosed to reads (found now):\n");
	size_t shown = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (!is_cover(m->kind) || is_socket_cover(m))
			continue;
		esc_print(out, "  ", m->path, "");
		fprintf(out, "  (%s, %s)\n", m->kind == POLICY_MOUNT_COVER_DIR ? "directory" : "file",
			policy_path_reason_words(m->reason));
		shown++;
	}
	if (plan->config_absent) {
		esc_print(out, "  ", plan->config_named, "");
		fprintf(out, "  (directory, %s; absent now: run makes it, 0700, since a writable "
			     "mount holds it)\n",
			policy_path_reason_words(POLICY_PATH_PORTA_CONFIG));
		shown++;
	}
	if (!shown)
		fprintf(out, "  none\n");
	if (plan->n_reopened) {
		fprintf(out, "  reopened, each by its own -v (nothing else beneath the closed path):\n");
		for (size_t i = 0; i < plan->n_reopened; i++) {
			esc_print(out, "    ", plan->reopened[i].path, "");
			fprintf(out, "  (%s", policy_path_reason_words(plan->reopened[i].reason));
			if (strcmp(plan->reopened[i].path, plan->reopened[i].closed) != 0)
				esc_print(out, ": inside ", plan->reopened[i].closed, "");
			fprintf(out, ")\n");
		}
	}

	fprintf(out, "\nprotected (unwritable, unrenamable):\n");
	shown = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind == POLICY_MOUNT_READONLY && m->reason == POLICY_PATH_PROTECTED) {
			esc_print(out, "  ", m->path, "\n");
			shown++;
		} else if (m->kind == POLICY_MOUNT_PIN && m->reason != POLICY_PATH_PROTECTED_PARENT) {
			esc_print(out, "  ", m->path, "");
			fprintf(out, "  (pinned against rename: %s)\n",
				policy_path_reason_words(m->reason));
			shown++;
		}
	}
	if (!shown)
		fprintf(out, "  none\n");
	/* The parents of protected names, on one line: a rename above a
	 * protected name would carry it away. */
	shown = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind != POLICY_MOUNT_PIN || m->reason != POLICY_PATH_PROTECTED_PARENT)
			continue;
		if (!shown++)
			fprintf(out, "  pinned, as parents of protected names:");
		esc_print(out, " ", m->path, "");
	}
	if (shown)
		fprintf(out, "\n");
	for (size_t i = 0; i < plan->n_links; i++) {
		esc_print(out, "  symbolic link ", plan->links[i].path, "");
		esc_print(out, " -> ", plan->links[i].target,
			  ": watched; replaced, it is moved aside and restored, and the run stopped\n");
	}
	if (plan->n_absent_protected) {
		fprintf(out, "  absent now (a mount cannot cover them): watched while the command runs; "
			     "one that appears inside a writable mount is moved aside (NAME.porta-refused-PID, "
			     "bytes kept) and the run stopped:\n");
		print_absent(out, plan);
	}

	fprintf(out, "\nUnix sockets: reachable inside writable mounts and the private /tmp, "
		     "and what --allow-unix names; every other one is closed\n");
	fprintf(out, "  closed now (bound when porta started):");
	shown = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (!is_socket_cover(m) || is_socket_dir(m))
			continue;
		esc_print(out, "\n    ", m->path, "");
		fprintf(out, "  (%s)", policy_path_reason_words(m->reason));
		shown++;
	}
	fprintf(out, "%s\n", shown ? "" : " none");
	fprintf(out, "  closed as directories (host programs bind there later):");
	shown = 0;
	for (size_t i = 0; i < plan->n_mounts; i++) {
		if (is_socket_dir(&plan->mounts[i])) {
			esc_print(out, " ", plan->mounts[i].path, "");
			shown++;
		}
	}
	fprintf(out, "%s\n", shown ? "" : " none found");
	{
		size_t nk;
		const struct policy_kept_socket *k = policy_kept_sockets(&nk);
		fprintf(out, "  kept (they grant nothing):");
		for (size_t i = 0; i < nk; i++) {
			if (kept_applies(plan, &k[i]))
				fprintf(out, "\n    %s  (%s)", k[i].path, k[i].why);
		}
		fprintf(out, "\n");
	}
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		if (m->kind == POLICY_MOUNT_REBIND && m->reason == POLICY_PATH_ALLOW_UNIX)
			esc_print(out, "  reopened by --allow-unix: ", m->path, "\n");
	}

	fprintf(out, "\nnetwork: ");
	switch (o->net_mode) {
	case POLICY_NET_NONE:
		fprintf(out, "none (an empty network namespace: lo only, not even the host's "
			     "loopback)\n");
		if (plan->n_resolvers) {
			/* the plan of a degraded host has them too, unused:
			 * explain describes the full sandbox */
			fprintf(out, "  DNS: porta answers every name \"no such host\" at");
			for (size_t i = 0; i < plan->n_resolvers; i++) {
				char addr[POLICY_ADDR_STRLEN];
				policy_addr_format(&plan->resolvers[i], addr);
				fprintf(out, "%s %s", i ? "," : "", addr);
			}
			fprintf(out, " (resolv.conf's resolvers) and reports each name\n");
		} else {
			fprintf(out, "  DNS: porta answers every name \"no such host\" on loopback and "
				     "reports each name\n");
		}
		break;
	case POLICY_NET_POLICY: {
		char addr[POLICY_ADDR_STRLEN];
		fprintf(out, "policy: an own network namespace; every connection ends at porta, "
			     "which decides it by TLS SNI, HTTP Host or its own DNS answers\n");
		for (size_t i = 0; i < plan->n_net_rules; i++) {
			const struct policy_net_rule *r = &plan->net_rules[i];
			fprintf(out, "  %s %-8s ", r->action == POLICY_NET_DENY ? "deny " : "allow",
				r->scope == POLICY_NET_SCOPE_PROXY ? "(proxy)" : "");
			esc_print(out, "", r->text, "");
			if (r->port_lo == r->port_hi)
				fprintf(out, "  port %u\n", (unsigned)r->port_lo);
			else
				fprintf(out, "  ports %u-%u\n", (unsigned)r->port_lo, (unsigned)r->port_hi);
		}
		fprintf(out, "  listening inside on TCP port%s", plan->n_listen_ports == 1 ? "" : "s");
		for (size_t i = 0; i < plan->n_listen_ports && i < 16; i++)
			fprintf(out, " %u", (unsigned)plan->listen_ports[i]);
		if (plan->n_listen_ports > 16)
			fprintf(out, " ... (%zu in all)", plan->n_listen_ports);
		fprintf(out, "%s; every other port refused at once\n", plan->n_listen_ports ? "" : " none");
		fprintf(out, "  DNS: answered by porta on every address, port 53; allowed names resolved "
			     "through %s port %u; all others refused locally\n",
			policy_addr_format(&plan->dns_upstream, addr), (unsigned)plan->dns_upstream_port);
		fprintf(out, "  proxies: HTTP (CONNECT, absolute-form) and SOCKS5 on loopback, in "
			     "HTTP_PROXY, HTTPS_PROXY, ALL_PROXY\n");
		if (o->audit_path)
			esc_print(out, "  audit: ", o->audit_path, "\n");
		for (size_t i = 0; i < o->secrets.n; i++)
			esc_print(out, "  secret ", o->secrets.v[i],
				  ": inside, the variable holds a placeholder; porta terminates TLS to its hosts "
				  "and puts the real value in requests' headers there only\n");
		for (size_t i = 0; i < o->allow_http.n; i++)
			esc_print(out, "  allow-http ", o->allow_http.v[i],
				  ": every request to that host must match an --allow-http rule\n");
		if (o->secrets.n || o->allow_http.n)
			fprintf(out, "  TLS: a certificate authority for this run only, its name "
				     "constraints the terminated hosts, added to the trust bundles inside\n");
		break;
	}
	default:
		fprintf(out, "open (as the host has it)\n");
		break;
	}

	fprintf(out, "\nprocesses: own PID, IPC and UTS namespaces; capabilities dropped; "
		     "no_new_privs; seccomp filter\n");
	if (plan->core_target != POLICY_CORE_FILES)
		fprintf(out, "core dumps: %s\n", core_dumps_words(plan->core_target));
	fprintf(out, "limits:");
	if (!o->timeout_ms.set && !o->max_cpu_s.set && !o->max_procs.set &&
	    !o->max_file_size_mib.set && !o->max_memory_mib.set)
		fprintf(out, " none");
	if (o->timeout_ms.set)
		fprintf(out, " timeout %llu.%03llus", (unsigned long long)o->timeout_ms.value / 1000,
			(unsigned long long)o->timeout_ms.value % 1000);
	if (o->max_cpu_s.set)
		fprintf(out, " cpu %llus", (unsigned long long)o->max_cpu_s.value);
	if (o->max_procs.set)
		fprintf(out, " procs %llu", (unsigned long long)o->max_procs.value);
	if (o->max_file_size_mib.set)
		fprintf(out, " file-size %lluMiB", (unsigned long long)o->max_file_size_mib.value);
	if (o->max_memory_mib.set)
		fprintf(out, " memory %lluMiB", (unsigned long long)o->max_memory_mib.value);
	fprintf(out, "\n");

	fprintf(out, "environment:");
	for (size_t i = 0; i < plan->n_env; i++) {
		const char *eq = strchr(plan->envp[i], '=');
		fprintf(out, " %.*s", (int)(eq - plan->envp[i]), plan->envp[i]);
	}
	fprintf(out, "\n");
	if (plan->n_notes || plan->n_warnings) {
		fprintf(out, "\nnotes:\n");
		for (size_t i = 0; i < plan->n_warnings; i++)
			esc_print(out, "  - ", plan->warnings[i], "\n");
		for (size_t i = 0; i < plan->n_notes; i++)
			esc_print(out, "  - ", plan->notes[i], "\n");
	}
	if (plan->sources)
		sources_text(out, plan);
	return 0;
}
