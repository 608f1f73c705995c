/* policy/why.c: see why.h. */
#include "policy/why.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/caches.h"
#include "policy/path_reason.h"
#include "policy/paths.h"
#include "policy/preset.h"

const char *policy_why_op_name(enum policy_why_op op)
{
	switch (op) {
	case POLICY_WHY_READ: return "read";
	case POLICY_WHY_EXEC: return "execute";
	case POLICY_WHY_WRITE: return "write";
	case POLICY_WHY_CREATE: return "create or remove";
	case POLICY_WHY_UNIX: return "connect to socket";
	case POLICY_WHY_NET: return "connect";
	}
	return "access";
}

/* The mount step that decides what the sandbox shows at path: the deepest
 * one at or above it (the last of equals, as init mounts them in order). */
static const struct policy_mount_step *deepest_mount(const struct policy_plan *plan,
						     const char *path)
{
	const struct policy_mount_step *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct policy_mount_step *m = &plan->mounts[i];
		size_t l = strlen(m->path);
		if (policy_path_is_under(m->path, path) && (!best || l >= best_len)) {
			best = m;
			best_len = l;
		}
	}
	return best;
}

static bool granted(const struct policy_plan *plan, const char *path, unsigned grant)
{
	for (size_t i = 0; i < plan->n_rules; i++) {
		if ((plan->rules[i].grant & grant) && policy_path_is_under(plan->rules[i].path, path))
			return true;
	}
	return false;
}

/* The directory holding path ("/" for "/x"). */
static void parent_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	snprintf(out, cap, "%.*s", (int)n, path);
}

/* The --protect option that names path, or NULL (then the preset did). */
static const char *user_protect(const struct policy_plan *plan, const char *path)
{
	const struct policy_options *o = plan->opts;
	size_t pl = strlen(path);

	for (size_t k = 0; k < o->protect.n; k++) {
		const char *name = o->protect.v[k];
		char norm[4096];
		/* relative names are normalised as if under "/": "/NAME" */
		size_t nl = policy_path_normalize("/", name, strlen(name), norm, sizeof(norm));
		if (nl == 0)
			continue;
		if (name[0] == '/') {
			if (strcmp(norm, path) == 0)
				return name;
			continue;
		}
		/* relative to each writable mount: path ends with "/NAME" */
		if (pl > nl && strcmp(path + pl - nl, norm) == 0)
			return name;
	}
	return NULL;
}

static enum policy_why_verdict answer(struct policy_why_answer *out, enum policy_why_verdict v,
				      const char *reason)
{
	out->verdict = v;
	out->reason = reason;
	return v;
}

/* The option "PREFIX PATH SUFFIX" (prefix with its space, suffix ":ro" or ""). */
static enum policy_why_verdict option(struct policy_why_answer *out, const char *reason,
				      const char *prefix, const char *path, const char *suffix)
{
	int n = snprintf(out->option, sizeof(out->option), "%s%s%s", prefix, path, suffix);
	if (n < 0 || (size_t)n >= sizeof(out->option)) {
		out->option[0] = '\0';
		return answer(out, POLICY_WHY_FIXED, "path too long to name an option for");
	}
	return answer(out, POLICY_WHY_OPTION, reason);
}

/* Is rel (a relative path) equal to name, or one of them the other's
 * leading components ("a" and "a/b", not "a" and "ab")? */
static bool component_prefix(const char *rel, size_t rl, const char *name)
{
	size_t nl = strlen(name), m = rl < nl ? rl : nl;

	if (strncmp(rel, name, m) != 0)
		return false;
	return rl == nl || (rl > nl ? rel[nl] == '/' : name[rl] == '/');
}

/* Would a protected name escape its protection with dir as a writable
 * mount's root?  Names are kept relative to each mount's root (and to a
 * home one holds), so a mount rooted at a protected name, beneath one, or
 * between one and the directory it belongs to (REPO/.git beside
 * .git/hooks, ~/.config beside .config/autostart) leaves it writable:
 * some split of dir into an ancestor A and a rest R has R and a name one
 * the other's leading components. */
static bool opens_a_protected_name(const struct policy_plan *plan, const char *dir)
{
	const struct policy_options *o = plan->opts;
	size_t n = 0, dl = strlen(dir);
	const char *const *names = o->preset == POLICY_PRESET_DEFAULT ? policy_preset_protected(&n)
								       : NULL;

	for (size_t i = 0; i < dl; i++) {
		if (dir[i] != '/')
			continue;
		const char *rel = dir + i + 1; /* dir below the ancestor dir[0..i] */
		size_t rl = dl - i - 1;
		if (rl == 0)
			break;
		for (size_t k = 0; k < n; k++) {
			if (component_prefix(rel, rl, names[k]))
				return true;
		}
		for (size_t k = 0; k < o->protect.n; k++) {
			if (o->protect.v[k][0] != '/' && component_prefix(rel, rl, o->protect.v[k]))
				return true;
		}
	}
	return false;
}

/* Whether dir lies in the home's hidden tree (a dot-directory of the home:
 * ~/.config/nvim, ~/.local/bin, ~/.ipython/...), where the host's
 * programs read configuration they run, and is none of the places a tool
 * keeps only data: a cache --caches knows, or a built-in profile's state. */
static bool code_place_in_home(const struct policy_plan *plan, const char *dir)
{
	const char *home = plan->home;
	char p[4096];

	if (!home || !policy_path_is_under(home, dir) || strcmp(home, dir) == 0)
		return false;
	const char *rel = dir + strlen(home) + (strcmp(home, "/") != 0);
	if (rel[0] != '.')
		return false;
	size_t n = 0;
	const char *const *state = policy_preset_profile_state(&n);
	for (size_t i = 0; i < n; i++)
		if (policy_path_join(home, state[i], p, sizeof(p)) && policy_path_is_under(p, dir))
			return false;
	struct policy_cache_dir caches[POLICY_MAX_CACHES];
	size_t nc = 0;
	const char *bad = NULL;
	char *const empty[] = { NULL };
	if (policy_caches(home, plan->envp ? plan->envp : empty, caches, &nc, &bad) ==
	    POLICY_CACHES_OK) {
		for (size_t i = 0; i < nc; i++)
			if (policy_path_is_under(caches[i].path, dir))
				return false;
	}
	return true;
}

/* "-v DIR" for a refused write, unless DIR is one the command could have
 * made porta suggest to open the host: every path with one write at the
 * root, the home (files there run later outside the sandbox, docs/threat-
 * model.md) or what holds it, or a protected name's own directory (escape
 * corpus row 92).  Such an option is named, and left out of the command
 * line to run again. */
static enum policy_why_verdict write_option(const struct policy_plan *plan,
					    struct policy_why_answer *out, const char *reason,
					    const char *dir)
{
	const char *why = NULL;

	if (strcmp(dir, "/") == 0)
		why = "it would make every file you can write writable";
	else if (plan->home && policy_path_is_under(dir, plan->home))
		why = "it would make your home writable, and files there run later outside "
		      "the sandbox";
	else if (opens_a_protected_name(plan, dir))
		why = "it would make a protected name writable";
	else if (code_place_in_home(plan, dir))
		why = "it lies in your home's dot-directories, where programs read configuration "
		      "they run (an editor's, a shell's, a tool's start-up files); only the caches "
		      "--caches knows and the built-in profiles' state are suggested there";
	if (option(out, reason, "-v ", dir, "") != POLICY_WHY_OPTION || !why)
		return out->verdict;
	out->withheld = why;
	return answer(out, POLICY_WHY_WITHHELD, reason);
}

static bool is_file_op(enum policy_why_op op)
{
	return op != POLICY_WHY_NET;
}

static bool reads(enum policy_why_op op)
{
	return op == POLICY_WHY_READ || op == POLICY_WHY_EXEC;
}

static bool writes(enum policy_why_op op)
{
	return op == POLICY_WHY_WRITE || op == POLICY_WHY_CREATE;
}

static bool refused_errno(int err)
{
	return err == EACCES || err == EPERM || err == EROFS;
}

/* A path the sandbox hides (a cover, the strict home, the private /tmp)
 * while the host has it: what to add so that the sandbox shows it. */
static enum policy_why_verdict hidden(const struct policy_plan *plan,
				      struct policy_why_answer *out,
				      const struct policy_why_facts *f, const char *reason)
{
	char dir[4096];

	if (writes(f->op)) {
		parent_of(f->path, dir, sizeof(dir));
		return write_option(plan, out, reason, dir);
	}
	return option(out, reason, "-v ", f->path, reads(f->op) ? ":ro" : "");
}

/* path at or beneath one of the preset's credential paths of home. */
static bool credential_in(const struct policy_plan *plan, const char *home, const char *path)
{
	char p[4096];
	size_t n;

	if (plan->opts && plan->opts->preset != POLICY_PRESET_DEFAULT)
		return false;
	const char *const *cred = policy_preset_credentials(&n);
	for (size_t i = 0; i < n; i++) {
		if (policy_path_join(home, cred[i], p, sizeof(p)) && policy_path_is_under(p, path))
			return true;
	}
	return false;
}

/* Under a cover, a private filesystem or a read-only bind: the mount step
 * decides.  Returns true when it did (verdict in *out). */
static bool by_mount(const struct policy_plan *plan, const struct policy_mount_step *m,
		     const struct policy_why_facts *f, struct policy_why_answer *out)
{
	const char *why = policy_path_reason_words(m->reason);

	switch (m->kind) {
	case POLICY_MOUNT_COVER_DIR:
	case POLICY_MOUNT_COVER_FILE:
		if (m->reason == POLICY_PATH_HOME_CLOSED)
			return false; /* decided with the grants below */
		/* A cover answers without an error (an empty file, an empty
		 * directory) as often as with one: every access is a refusal. */
		if (m->reason == POLICY_PATH_CREDENTIAL) {
			answer(out, POLICY_WHY_PRESET, "credential path");
		} else if (m->kind == POLICY_MOUNT_COVER_FILE && policy_mount_closes_socket(m)) {
			option(out, why, "--allow-unix ", m->path, "");
		} else if (policy_mount_closes_socket(m)) {
			/* A directory where host programs bind sockets: a socket
			 * in it is reopened by name, anything else read by -v. */
			if (f->op == POLICY_WHY_UNIX)
				option(out, "a host socket (its directory is closed)", "--allow-unix ",
				       f->path, "");
			else
				hidden(plan, out, f, "closed: host programs bind sockets there");
		} else if (m->reason == POLICY_PATH_DENY_READ) {
			snprintf(out->option, sizeof(out->option), "--deny-read %s", m->path);
			answer(out, POLICY_WHY_USER, "closed to reads");
		} else {
			answer(out, POLICY_WHY_FIXED, "closed by the sandbox");
		}
		return true;
	case POLICY_MOUNT_TMPFS:
		/* An empty private filesystem: only a path the host has and
		 * the sandbox then lacks was hidden. */
		if (f->err != ENOENT || !f->host_exists || !f->host_permits) {
			answer(out, POLICY_WHY_NOT_SANDBOX, "");
		} else if (strcmp(m->path, "/tmp") == 0 && f->op == POLICY_WHY_UNIX) {
			option(out, "a socket the private /tmp hides", "--allow-unix ", f->path, "");
		} else if (strcmp(m->path, "/tmp") == 0) {
			hidden(plan, out, f, "hidden by the private /tmp");
		} else {
			answer(out, POLICY_WHY_FIXED, "not in the sandbox's private /dev");
		}
		return true;
	case POLICY_MOUNT_PROC:
	case POLICY_MOUNT_DEVPTS:
		answer(out, POLICY_WHY_NOT_SANDBOX, ""); /* the sandbox's own, by design */
		return true;
	case POLICY_MOUNT_READONLY:
		if (!writes(f->op) || !refused_errno(f->err))
			return false;
		if (!f->host_permits) {
			answer(out, POLICY_WHY_NOT_SANDBOX, "");
			return true;
		}
		if (strcmp(why, "protected") == 0) {
			const char *user = user_protect(plan, m->path);
			if (user) {
				snprintf(out->option, sizeof(out->option), "--protect %s", user);
				answer(out, POLICY_WHY_USER, "kept unwritable");
			} else {
				answer(out, POLICY_WHY_PRESET, "protected name");
			}
		} else if (strcmp(why, "read-only mount") == 0) {
			write_option(plan, out, "a read-only mount", m->path);
		} else {
			answer(out, POLICY_WHY_FIXED, why[0] ? why : "read-only in the sandbox");
		}
		return true;
	case POLICY_MOUNT_REBIND:
	case POLICY_MOUNT_PIN:
		break;
	}
	return false;
}

enum policy_why_verdict policy_why_classify(const struct policy_plan *plan,
					    const struct policy_why_facts *f,
					    struct policy_why_answer *out)
{
	memset(out, 0, sizeof(*out));
	out->reason = "";
	if (!f->path || !f->path[0])
		return answer(out, POLICY_WHY_NOT_SANDBOX, "");

	if (!is_file_op(f->op)) {
		/* In policy mode porta's own listeners and the connect watch
		 * decide (and report); in open mode the host's network does. */
		if (plan->opts->net_mode != POLICY_NET_NONE)
			return answer(out, POLICY_WHY_NOT_SANDBOX, "");
		/* EACCES: Landlock's TCP rules, on a host without user
		 * namespaces (sandbox/degraded.h), or its seccomp filter. */
		if (f->err != ENETUNREACH && f->err != EHOSTUNREACH && f->err != ECONNREFUSED &&
		    f->err != EADDRNOTAVAIL && f->err != EACCES)
			return answer(out, POLICY_WHY_NOT_SANDBOX, "");
		/* The port of a resolver resolv.conf does not name (those answer
		 * inside, every name "no such host", each reported by name): the
		 * lookup is what failed, and opening the resolver would allow
		 * neither it nor the host it asked for.  The hosts themselves
		 * are the option. */
		const char *colon = strrchr(f->path, ':');
		if (colon && strcmp(colon, ":53") == 0) {
			snprintf(out->option, sizeof(out->option), "--no-net");
			return answer(out, POLICY_WHY_USER,
				      "a DNS lookup: under --no-net no name resolves; name the hosts "
				      "the command needs with --allow-net HOST:PORT instead");
		}
		out->drops_no_net = true;
		return option(out, "no network (--no-net)", "--allow-net ", f->path, "");
	}
	if (f->path[0] != '/')
		return answer(out, POLICY_WHY_NOT_SANDBOX, "");

	const struct policy_mount_step *m = deepest_mount(plan, f->path);
	if (m && by_mount(plan, m, f, out))
		return out->verdict;

	bool home_cover =
		m && m->kind == POLICY_MOUNT_COVER_DIR && m->reason == POLICY_PATH_HOME_CLOSED;
	if (f->err == 0)
		return answer(out, POLICY_WHY_NOT_SANDBOX, "");
	/* The strict home is an empty directory: a name in it is missing. */
	bool hidden_here = home_cover && f->err == ENOENT &&
			   (f->host_exists || (f->op == POLICY_WHY_CREATE && f->host_dir_exists));
	if (!refused_errno(f->err) && !hidden_here)
		return answer(out, POLICY_WHY_NOT_SANDBOX, "");
	/* The user's own permissions would refuse it as well. */
	if (!f->host_permits)
		return answer(out, POLICY_WHY_NOT_SANDBOX, "");

	/* A credential path in the closed home is the list's, whatever hides
	 * it: never a line that opens it. */
	if (home_cover && credential_in(plan, m->path, f->path))
		return answer(out, POLICY_WHY_PRESET, "credential path");
	switch (f->op) {
	case POLICY_WHY_READ:
	case POLICY_WHY_EXEC:
		if (home_cover)
			return hidden(plan, out, f, "the home is closed: only the mounts, the project and the places docs/defaults.md lists are visible");
		if (granted(plan, f->path, POLICY_GRANT_READ | POLICY_GRANT_WRITE))
			return answer(out, POLICY_WHY_NOT_SANDBOX, "");
		return option(out, "outside what strict reads allow", "-v ", f->path, ":ro");
	case POLICY_WHY_WRITE:
	case POLICY_WHY_CREATE: {
		char dir[4096];
		if (granted(plan, f->path, POLICY_GRANT_WRITE))
			return answer(out, POLICY_WHY_NOT_SANDBOX, "");
		parent_of(f->path, dir, sizeof(dir));
		return write_option(plan, out, "outside every writable mount", dir);
	}
	case POLICY_WHY_UNIX:
	case POLICY_WHY_NET:
		break;
	}
	return answer(out, POLICY_WHY_NOT_SANDBOX, "");
}

/* ---- the command line to run again ------------------------------------ */

static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_@%+=:,./-", c) != NULL;
}

/* A control byte in a word: it must not break the line. */
static bool control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool policy_why_quote(const char *word, char *out, size_t cap, size_t *len)
{
	size_t n = *len;
	bool safe = word[0] != '\0', ctl = false;

	for (const char *p = word; *p; p++) {
		safe = safe && shell_safe((unsigned char)*p);
		ctl = ctl || control((unsigned char)*p);
	}
	if (safe) {
		size_t l = strlen(word);
		if (n + l + 1 > cap)
			return false;
		memcpy(out + n, word, l);
		n += l;
		out[n] = '\0';
		*len = n;
		return true;
	}
	/* '...' keeps every byte but the quote ('\'' closes, adds one, reopens);
	 * a word with a control byte (a newline in sh -c's script) takes bash's
	 * and zsh's $'...' instead, so the line stays one line. */
	if (n + 3 >= cap)
		return false;
	if (ctl)
		out[n++] = '$';
	out[n++] = '\'';
	for (const char *p = word; *p; p++) {
		unsigned char c = (unsigned char)*p;
		char piece[8];
		if (!ctl)
			snprintf(piece, sizeof(piece), c == '\'' ? "'\\''" : "%c", c);
		else if (c == '\n')
			snprintf(piece, sizeof(piece), "\\n");
		else if (c == '\t')
			snprintf(piece, sizeof(piece), "\\t");
		else if (c == '\'' || c == '\\')
			snprintf(piece, sizeof(piece), "\\%c", c);
		else if (control(c))
			snprintf(piece, sizeof(piece), "\\x%02x", c);
		else
			snprintf(piece, sizeof(piece), "%c", c);
		size_t pl = strlen(piece);
		if (n + pl + 2 > cap)
			return false;
		memcpy(out + n, piece, pl);
		n += pl;
	}
	out[n++] = '\'';
	out[n] = '\0';
	*len = n;
	return true;
}

static bool append_word(const char *w, char *out, size_t cap, size_t *len)
{
	if (*len) {
		if (*len + 2 > cap)
			return false;
		out[(*len)++] = ' ';
		out[*len] = '\0';
	}
	return policy_why_quote(w, out, cap, len);
}

/* Splits "-v /a/b:ro" into the path "/a/b" (out) and whether it is :ro;
 * false when opt is not a -v option. */
static bool mount_option(const char *opt, char *path, size_t cap, bool *ro)
{
	if (strncmp(opt, "-v ", 3) != 0)
		return false;
	size_t l = strlen(opt + 3);
	*ro = l > 3 && strcmp(opt + 3 + l - 3, ":ro") == 0;
	if (*ro)
		l -= 3;
	if (l >= cap)
		return false;
	memcpy(path, opt + 3, l);
	path[l] = '\0';
	return true;
}

bool policy_why_implied(const char *const *add, size_t n_add, size_t i)
{
	char pi[4096], pj[4096];
	bool roi, roj;

	for (size_t j = 0; j < i; j++) {
		if (strcmp(add[j], add[i]) == 0)
			return true;
	}
	if (!mount_option(add[i], pi, sizeof(pi), &roi))
		return false;
	for (size_t j = 0; j < n_add; j++) {
		if (j == i || !mount_option(add[j], pj, sizeof(pj), &roj))
			continue;
		bool same = strcmp(pi, pj) == 0;
		bool under = policy_path_is_under(pj, pi);
		/* a writable mount implies reads; an equal or wider mount of
		 * the same kind implies a narrower one */
		if (same && roi && !roj)
			return true;
		if (under && !same && (roi || !roj))
			return true;
	}
	return false;
}

size_t policy_why_command(int argc, char *const argv[], const struct policy_options *o,
			  const char *const *add, size_t n_add, bool drop_no_net, char *out,
			  size_t cap)
{
	size_t len = 0;
	int cmd = o->cmd_index;

	if (cap == 0 || cmd < 2 || cmd > argc)
		return 0;
	out[0] = '\0';
	/* the new options go where the command begins, before a "--" */
	int ins = strcmp(argv[cmd - 1], "--") == 0 ? cmd - 1 : cmd;
	for (int i = 0; i < argc; i++) {
		if (i == ins) {
			for (size_t k = 0; k < n_add; k++) {
				if (policy_why_implied(add, n_add, k))
					continue;
				const char *sp = strchr(add[k], ' ');
				char opt[64];
				if (!sp || (size_t)(sp - add[k]) >= sizeof(opt))
					return 0;
				snprintf(opt, sizeof(opt), "%.*s", (int)(sp - add[k]), add[k]);
				if (!append_word(opt, out, cap, &len) ||
				    !append_word(sp + 1, out, cap, &len))
					return 0;
			}
		}
		if (i >= 2 && i < ins) {
			/* an option word and, when it takes one, its value */
			int words = policy_option_words(argv[i]);
			if (drop_no_net && strcmp(argv[i], "--no-net") == 0)
				continue;
			if (words == 2 && i + 1 < ins) {
				if (!append_word(argv[i], out, cap, &len))
					return 0;
				i++;
			}
		}
		if (!append_word(argv[i], out, cap, &len))
			return 0;
	}
	return len;
}
