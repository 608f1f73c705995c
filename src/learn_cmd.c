/* src/learn_cmd.c: see learn_cmd.h. */
#include "src/learn_cmd.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <libpsl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "common/safeopen.h"
#include "host/host.h"
#include "policy/learn.h"
#include "src/audit_cmd.h"

#define EXIT_PORTA 125

static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Says why and gives learn's exit status. */
static int refuse(const char *fmt, ...)
{
	char msg[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_LEVEL_ERROR, "%s", msg);
	return EXIT_PORTA;
}

static bool list_add(struct policy_strlist *l, const char *v)
{
	if (l->n >= POLICY_MAX_LIST)
		return false;
	l->v[l->n++] = v;
	return true;
}

int porta_learn_prepare(struct porta_learn *l, struct policy_options *opts)
{
	const char *out = opts->learn_output;
	struct stat st;
	char err[POLICY_ERR_MAX];

	*l = (struct porta_learn){ .audit_fd = -1, .out_dir = -1 };
	if (lstat(out, &st) == 0)
		return refuse("learn: -o %s exists; porta learn writes a new file and never over "
			      "one: remove it, or choose another FILE", out);
	_cleanup_free_ char *copy = strdup(out);
	if (!copy)
		return refuse("learn: %s", strerror(ENOMEM));
	char *slash = strrchr(copy, '/');
	const char *dir = !slash ? "." : slash == copy ? "/" : (*slash = '\0', copy);
	const char *name = slash ? slash + 1 : copy;
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strlen(name) >= sizeof(l->out_name))
		return refuse("learn: -o %s: give a file name", out);
	snprintf(l->out_name, sizeof(l->out_name), "%s", name);
	/* The directory is taken now, before the command runs: the profile
	 * is made in it after the run through this descriptor, so that a
	 * command that swaps the directory for a link (rm -rf DIR; ln -s
	 * ELSEWHERE DIR) cannot steer porta's write elsewhere. */
	l->out_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (l->out_dir < 0 || fstat(l->out_dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return refuse("learn: -o: the directory %s does not exist", dir);

	/* the user's own rules, to leave out what they allow already */
	l->user_rules = calloc(POLICY_NET_MAX_RULES, sizeof(*l->user_rules));
	if (!l->user_rules)
		return refuse("learn: %s", strerror(ENOMEM));
	if (policy_net_compile(opts, l->user_rules, POLICY_NET_MAX_RULES, &l->n_user_rules, err) !=
	    POLICY_NET_COMPILE_OK)
		return refuse("%s", err);

	const char *transparent, *proxied;
	policy_learn_catch_all(&transparent, &proxied);
	/* Without user namespaces there is no network namespace to catch
	 * every connection in (such rules are refused there): the proxies
	 * alone. */
	l->transparent = host_userns_available();
	if ((l->transparent && !list_add(&opts->allow_net, transparent)) ||
	    !list_add(&opts->proxy_allow, proxied))
		return refuse("learn: %s", "too many network rules given to add learn's own");
	opts->why = true; /* net_mode is policy already: policy/options.c */

	if (opts->audit_path) {
		/* the user's audit gets the records too; this run's are those
		 * after its present end */
		l->user_audit = opts->audit_path;
		l->user_audit_from = stat(opts->audit_path, &st) == 0 ? st.st_size : 0;
	} else {
		/* An audit nothing else can reach: a memory file of porta's
		 * own (the command inherits none of porta's descriptors), which
		 * the supervisor opens by its /proc path like any --audit. */
		l->audit_fd = memfd_create("porta-learn-audit", MFD_CLOEXEC);
		if (l->audit_fd < 0)
			return refuse("learn: an audit in memory (memfd_create): %s", strerror(errno));
		snprintf(l->audit_path, sizeof(l->audit_path), "/proc/self/fd/%d", l->audit_fd);
		opts->audit_path = l->audit_path;
		opts->audit_fd = l->audit_fd;
	}
	return 0;
}

void porta_learn_release(struct porta_learn *l)
{
	free(l->user_rules);
	l->user_rules = NULL;
	if (l->audit_fd >= 0)
		close(l->audit_fd);
	l->audit_fd = -1;
	if (l->out_dir >= 0)
		close(l->out_dir);
	l->out_dir = -1;
}

static int read_audit(struct porta_learn *l, struct policy_audit *a)
{
	int fd = l->audit_fd >= 0 ? dup(l->audit_fd) : open(l->user_audit, O_RDONLY | O_CLOEXEC);
	const char *label = l->audit_fd >= 0 ? "learn's audit" : l->user_audit;
	if (fd < 0)
		return refuse("learn: read the audit: %s", strerror(errno));
	FILE *in = fdopen(fd, "r");
	if (!in) {
		close(fd);
		return refuse("learn: read the audit: %s", strerror(errno));
	}
	int rc = fseeko(in, l->audit_fd >= 0 ? 0 : l->user_audit_from, SEEK_SET) < 0
			 ? refuse("learn: read the audit: %s", strerror(errno))
			 : porta_audit_read(in, label, a);
	fclose(in);
	return rc;
}

/* libpsl, loaded only here (dlopen): linked into porta it would cost every
 * start a library or three to load, for a question only learn asks. */
struct psl_lib {
	void *so;
	psl_ctx_t *ctx; /* the system's list, or NULL */
	const psl_ctx_t *use;
	__typeof__(&psl_is_public_suffix2) is_public_suffix2;
	__typeof__(&psl_free) free_ctx;
	char *rules; /* the list's text (suffix_below()), or NULL: never fold */
	size_t rules_len;
};

/* Debian's publicsuffix: the list libpsl's psl_latest() compiled its
 * DAFSA from, read for the one question libpsl cannot answer. */
#define PSL_LIST_FILE "/usr/share/publicsuffix/public_suffix_list.dat"

static void psl_open(struct psl_lib *p)
{
	*p = (struct psl_lib){ 0 };
	p->so = dlopen("libpsl.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!p->so)
		return;
	__typeof__(&psl_latest) latest = (__typeof__(&psl_latest))dlsym(p->so, "psl_latest");
	__typeof__(&psl_builtin) builtin = (__typeof__(&psl_builtin))dlsym(p->so, "psl_builtin");
	p->is_public_suffix2 = (__typeof__(&psl_is_public_suffix2))dlsym(p->so,
									 "psl_is_public_suffix2");
	p->free_ctx = (__typeof__(&psl_free))dlsym(p->so, "psl_free");
	if (!latest || !builtin || !p->is_public_suffix2 || !p->free_ctx)
		return;
	/* the system's list (Debian: publicsuffix), else libpsl's own copy */
	p->ctx = latest(NULL);
	p->use = p->ctx ? p->ctx : builtin();
	FILE *f = fopen(PSL_LIST_FILE, "re");
	if (f) {
		size_t cap = 0;
		ssize_t got = getdelim(&p->rules, &cap, '\0', f);
		p->rules_len = got > 0 ? (size_t)got : 0;
		if (got <= 0) {
			free(p->rules);
			p->rules = NULL;
		}
		fclose(f);
	}
}

static void psl_close(struct psl_lib *p)
{
	free(p->rules);
	if (p->ctx)
		p->free_ctx(p->ctx);
	if (p->so)
		dlclose(p->so);
}

static bool public_suffix(const char *name, void *arg)
{
	const struct psl_lib *p = arg;
	return p->is_public_suffix2(p->use, name, PSL_TYPE_ANY) != 0;
}

/* Whether a rule of the list ("s3.amazonaws.com", "*.compute.amazonaws.com",
 * "!city.kobe.jp") names something strictly below name.  Without the list:
 * true, so nothing folds. */
static bool suffix_below(const char *name, void *arg)
{
	const struct psl_lib *p = arg;
	size_t n = strlen(name);

	if (!p->rules)
		return true;
	for (const char *l = p->rules, *end = p->rules + p->rules_len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' ' || l[len - 1] == '\t'))
			len--;
		if (len > n + 1 && !(l[0] == '/' && l[1] == '/') && l[len - n - 1] == '.' &&
		    strncasecmp(l + len - n, name, n) == 0)
			return true;
		l += len + 1;
		if (nl)
			l = nl + 1;
	}
	return false;
}

/* The user's own words: options and values as typed, but for those that
 * are learn's (-o FILE, --why) or are no profile's (--allow-root,
 * --profile: named in a comment, --quiet). */
static size_t own_words(char *const argv[], int cmd_index, char **out, char **profiles,
			size_t *n_profiles)
{
	size_t n = 0;
	*n_profiles = 0;
	for (int i = 2; i < cmd_index;) {
		const char *w = argv[i];
		int k = policy_option_words(w);
		if (i + k > cmd_index)
			k = cmd_index - i;
		bool skip = strcmp(w, "--") == 0 || strcmp(w, "--why") == 0 ||
			    strcmp(w, "--allow-root") == 0 || strcmp(w, "-q") == 0 ||
			    strcmp(w, "--quiet") == 0 || strncmp(w, "-o", 2) == 0 ||
			    strcmp(w, "--output") == 0 ||
			    strncmp(w, "--output=", 9) == 0;
		if (strcmp(w, "--profile") == 0 && k == 2) {
			profiles[(*n_profiles)++] = argv[i + 1];
			skip = true;
		} else if (strncmp(w, "--profile=", 10) == 0) {
			profiles[(*n_profiles)++] = (char *)w + 10;
			skip = true;
		}
		for (int j = 0; j < k && !skip; j++)
			out[n++] = argv[i + j];
		i += k;
	}
	return n;
}

int porta_learn_finish(struct porta_learn *l, const struct policy_options *opts, char *const argv[],
		       int cmd_index, bool project_file, const struct supervisor_result *r)
{
	struct policy_audit a;
	int rc;

	policy_audit_init(&a);
	if ((rc = read_audit(l, &a))) {
		policy_audit_free(&a);
		return rc;
	}
	/* A profile learned from an audit cut at its ceiling would lack what
	 * the records not written saw: none is written. */
	if (a.not_written > 0) {
		log_msg(LOG_LEVEL_ERROR,
			"learn: the run's audit reached its ceiling (--audit-max) and %lu records "
			"were not written, so a profile would lack what they saw; nothing was "
			"written to %s: run learn again with a larger --audit-max",
			a.not_written, opts->learn_output);
		policy_audit_free(&a);
		return EXIT_PORTA;
	}
	size_t cap = (size_t)(cmd_index > 0 ? cmd_index : 1);
	_cleanup_free_ char **words = calloc(cap, sizeof(*words));
	_cleanup_free_ char **profiles = calloc(cap, sizeof(*profiles));
	if (!words || !profiles) {
		policy_audit_free(&a);
		return refuse("learn: %s", strerror(ENOMEM));
	}
	size_t n_profiles;
	size_t n_words = own_words(argv, cmd_index, words, profiles, &n_profiles);

	/* with no public suffix list, nothing is folded */
	struct psl_lib psl;
	psl_open(&psl);
	/* real paths, as --why's answers are */
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	const char *home_env = getenv("HOME");
	_cleanup_free_ char *home = home_env && home_env[0] == '/' ? realpath(home_env, NULL) : NULL;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
	struct policy_learn_input in = {
		.audit = &a,
		.user_rules = l->user_rules,
		.n_user_rules = l->n_user_rules,
		.user_words = words,
		.n_user_words = n_words,
		.profiles = profiles,
		.n_profiles = n_profiles,
		.project_file = project_file,
		.command = argv + cmd_index, /* the typed words: argv is not the merged one */
		.n_command = (size_t)opts->cmd_argc,
		.file_options = (const char *const *)r->learn_options,
		.n_file_options = r->n_learn_options,
		.closed = (const char *const *)r->learn_closed,
		.n_closed = r->n_learn_closed,
		.transparent = l->transparent,
		.cwd = cwd,
		.home = home,
		.public_suffix = psl.use ? public_suffix : NULL,
		.suffix_below = psl.use ? suffix_below : NULL,
		.suffix_arg = &psl,
		.when = when,
	};

	/* In the directory taken before the run, O_EXCL and O_NOFOLLOW:
	 * never over a file, nor through a link, that appeared while the
	 * command ran (it may have made one), never in a directory it put in
	 * the old one's place. */
	const char *path = opts->learn_output;
	int fd = porta_openat_beneath(l->out_dir, l->out_name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct policy_learn_counts counts;
	rc = 0;
	if (!out) {
		int err = fd < 0 ? -fd : errno;
		if (fd >= 0)
			close(fd);
		log_msg(LOG_LEVEL_ERROR, "learn: write %s: %s%s; the profile follows here instead",
			path, strerror(err),
			err == ENOENT ? " (its directory was removed during the run)"
			: err == EEXIST || err == ELOOP ? " (something was made there during the run)"
							: "");
		if (!policy_learn_write(stderr, &in, &counts))
			log_msg(LOG_LEVEL_ERROR, "learn: out of memory");
		rc = EXIT_PORTA;
	} else if (!policy_learn_write(out, &in, &counts) || fclose(out) != 0) {
		log_msg(LOG_LEVEL_ERROR, "learn: write %s: %s", path, strerror(errno ? errno : ENOMEM));
		rc = EXIT_PORTA;
	} else {
		log_msg(LOG_LEVEL_NOTICE,
			"learn: wrote %s: %zu destination%s and %zu file option%s learned%s; review "
			"it, then: porta run --profile %s%s -- ...",
			path, counts.destinations, counts.destinations == 1 ? "" : "s", counts.files,
			counts.files == 1 ? "" : "s",
			counts.refused ? " (some connections were refused: see its last lines)" : "",
			strchr(path, '/') ? "" : "./", path);
	}
	psl_close(&psl);
	policy_audit_free(&a);
	return rc;
}
