/* src/main.c: the command line (docs/porta.1).  Parsing is policy/'s,
 * resolving and running is sandbox/'s; this file only maps outcomes to
 * messages and exit codes. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "common/trace.h"
#include "generated/porta_revision.h"
#include "policy/explain.h"
#include "host/host.h"
#include "host/profiles.h"
#include "host/project.h"
#include "src/audit_cmd.h"
#include "src/learn_cmd.h"
#include "policy/options.h"
#include "policy/path_reason.h"
#include "sandbox/sandbox.h"
#include "supervisor/ceiling.h"
#include "supervisor/degraded.h"
#include "supervisor/supervisor.h"

extern char **environ;

enum { EXIT_TIMEOUT = 124, EXIT_PORTA = 125, EXIT_NOEXEC = 126, EXIT_NOTFOUND = 127 };

static const char help_text[] =
	"usage: porta run     [OPTIONS] [--] COMMAND [ARGS...]   run COMMAND confined\n"
	"       porta learn   [OPTIONS] -o FILE [--] COMMAND     run COMMAND letting its network\n"
	"                                                         through, and write the profile that\n"
	"                                                         would have allowed what it used\n"
	"       porta explain [OPTIONS] [--json] [--] COMMAND    print the policy run would apply\n"
	"       porta check   [--json]                            what this host can enforce\n"
	"       porta profiles                                    list the profiles --profile loads\n"
	"       porta trust   [FILE]                              let run use this project's .porta\n"
	"       porta audit   [--json] [--lock | --against LOCK] FILE...\n"
	"                                                         sum up --audit files; a lock of the\n"
	"                                                         destinations used; those outside it\n"
	"       porta help | --help | --version\n"
	"\n"
	"Options stop at the first word that is not an option: everything from COMMAND on\n"
	"belongs to the command.\n"
	"\n"
	"Files:\n"
	"  -v, --mount PATH[:ro]      grant PATH read-write (read-only with :ro); repeatable.\n"
	"                             Without -v nothing is writable but the private /tmp and /dev\n"
	"  --read-policy home|open|strict\n"
	"                             home (default): all readable outside the home but closed\n"
	"                             paths; in the home only mounts, the project and toolchain\n"
	"                             places (docs/defaults.md); open: the home too; strict: only\n"
	"                             mounts, system directories and the /etc files programs need\n"
	"  --deny-read PATH           close PATH to reads in every mode, inside mounts too\n"
	"  --protect NAME             keep NAME (relative to each writable mount, or absolute)\n"
	"                             unwritable and unrenamable\n"
	"  --allow-unix PATH          reach one Unix socket by path, checked at connect\n"
	"  --deny-unix REGEX          close more Unix sockets, by path (extended regex)\n"
	"  --preset default|none      the built-in closure lists (credentials, protected names,\n"
	"                             credential sockets), or none\n"
	"  --share-tmp                use the host's /tmp instead of a private one\n"
	"  --caches                   the package managers' and build tools' caches writable\n"
	"                             (npm, pip, cargo, go, ...), made if absent\n"
	"\n"
	"Network:\n"
	"  (none)                     network open, as the host has it\n"
	"  --no-net                   no network at all: an empty namespace, lo only\n"
	"  --allow-net HOST[:PORT]    allow TCP to HOST:PORT for any program, decided by porta's\n"
	"                             DNS, TLS SNI and HTTP Host; PORT defaults to 443, may be a\n"
	"                             range a-b; HOST: name, *.suffix, *, IPv4, [IPv6] or CIDR;\n"
	"                             or a URL, https://HOST[:PORT][/] (http: port 80)\n"
	"  --deny-net HOST[:PORT]     deny wins over allow\n"
	"  --proxy-allow HOST[:PORT]  allow HOST only through porta's HTTP/SOCKS5 proxy\n"
	"  --proxy-deny HOST[:PORT]   refuse HOST through the proxy\n"
	"  --audit FILE               one JSON line per network decision (alias --proxy-audit)\n"
	"  --audit-max MIB            at most MIB written to the --audit file per run (default\n"
	"                             64); past it records are counted, and the last says so\n"
	"  --dns-upstream ADDR[:PORT] resolver for the sandbox's allowed names\n"
	"  --secret NAME@HOST[,HOST]  the command sees a placeholder in NAME; porta puts the real\n"
	"                             value (from its own environment) in requests to HOST only\n"
	"                             (headers and URL, not bodies); HOST is allowed, port 443\n"
	"  --allow-http 'METHODS URL' only these requests to URL's host, e.g.\n"
	"                             'GET,HEAD https://api.example/v1/*' (* any run of chars;\n"
	"                             http:// URLs for plain HTTP)\n"
	"\n"
	"Profiles:\n"
	"  --profile NAME|PATH        load options from a profile: one option per line, the\n"
	"                             command line's grammar, # comments; repeatable; the\n"
	"                             command line's own options apply after it ('porta\n"
	"                             profiles' lists them; explain shows where each came from)\n"
	"\n"
	"Process and environment:\n"
	"  -e, --env KEY=VALUE        set a variable (the environment starts with only PATH HOME\n"
	"                             USER LOGNAME SHELL TERM COLORTERM LANG LANGUAGE LC_* TZ,\n"
	"                             and TMPDIR=/tmp)\n"
	"  --env-pass NAME[,NAME]     pass these variables from porta's environment\n"
	"  --env-file FILE            KEY=VALUE lines; blank lines and # comments ignored\n"
	"  --timeout SECS             end the whole sandbox at the deadline (exit 124)\n"
	"  --max-cpu SECS             CPU seconds of all the command's processes together; porta\n"
	"                             ends the run past it (exit 137)\n"
	"  --max-procs N              tasks of the command at once, threads included (default\n"
	"                             4096; as root none by default, a pids cgroup with it)\n"
	"  --max-file-size MIB        largest file the command may write\n"
	"  --max-memory-mb MIB        memory of all the command's processes together: a memory\n"
	"                             cgroup, else polled by porta (the run ends, exit 137)\n"
	"  --allow-root               run even though porta was started as root\n"
	"  --no-project               read no .porta project file (the command line only)\n"
	"  --why                      after the run, list each refusal the sandbox caused\n"
	"                             (files, Unix sockets, network) with the option that\n"
	"                             would have allowed it, and the command line to run again\n"
	"  -q, --quiet                only errors on stderr\n"
	"  -o, --output FILE          learn: the profile to write (a new file)\n"
	"  --json                     explain and check: print JSON\n"
	"\n"
	"Exit codes: the command's own; 128+N when signal N ended it (porta ends by the same\n"
	"signal); 124 --timeout reached; 125 porta refused or failed before the command\n"
	"started; 126 the command cannot be executed under the policy; 127 not found;\n"
	"137 porta ended the run (--max-cpu, a polled --max-memory-mb, a protected name).\n";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(LOG_LEVEL_ERROR, "%s", buf);
	return EXIT_PORTA;
}

/* Options this build parses but cannot yet enforce are refused, never
 * silently ignored: the reason run refuses them, or NULL. */
static const char *unavailable(const struct policy_options *o)
{
	if (o->audit_path && o->net_mode == POLICY_NET_OPEN)
		return "--audit records network policy decisions: give it with --no-net, "
		       "--allow-net, --deny-net, --proxy-allow or --proxy-deny";
	/* --max-procs for root needs a pids cgroup: decided here, before
	 * anything runs, never silently dropped (--max-memory-mb and --max-cpu
	 * use a cgroup where there is one and are counted by porta elsewhere). */
	static char cgroup_why[1536];
	if (host_ceilings_refusal(o, cgroup_why, sizeof(cgroup_why)))
		return cgroup_why;
	return NULL;
}

/* Ends porta the way the command ended: by the same signal. */
static int die_by_signal(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	setrlimit(RLIMIT_CORE, &no_core); /* the command's core is not porta's */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig; /* a signal that does not terminate */
}

static int report(const struct supervisor_result *r)
{
	char msg[1600];

	switch (r->outcome) {
	case SUPERVISOR_EXITED:
		return r->code;
	case SUPERVISOR_SIGNALED:
		return die_by_signal(r->code);
	case SUPERVISOR_TIMED_OUT:
		log_msg(LOG_LEVEL_WARN, "--timeout reached: the sandbox and everything in it was ended");
		return EXIT_TIMEOUT;
	case SUPERVISOR_CEILING:
		return r->code; /* the line saying which ceiling came as it was passed */
	case SUPERVISOR_STOPPED:
		log_msg(LOG_LEVEL_ERROR,
			"the run was stopped and everything in it ended (exit %d), for the reason above; "
			"a file the command should write that way: create it before the run and mount "
			"it with -v PATH",
			r->code);
		return r->code;
	case SUPERVISOR_EXEC_FAILED:
		porta_error_format(&r->error, msg, sizeof(msg));
		log_msg(LOG_LEVEL_ERROR, "%s%s", msg,
			r->code == EXIT_NOTFOUND
				? " (not found in the sandbox's PATH or filesystem)"
				: " (not executable, or the policy does not allow executing it)");
		return r->code;
	case SUPERVISOR_SETUP_FAILED:
		break;
	}
	porta_error_format(&r->error, msg, sizeof(msg));
	log_msg(LOG_LEVEL_ERROR, "setting up the sandbox failed: %s", msg);
	return EXIT_PORTA;
}

/* The command failed: when porta refused it something, the last line says
 * so and how to see it; when porta cannot know (files are refused by the
 * kernel, seen only under --why), a person at a terminal is told where to
 * look.  Nothing under -q or --why (which lists everything itself). */
static void point_at_refusals(const struct policy_options *o, const struct supervisor_result *r)
{
	int code;

	if (o->quiet || o->why)
		return;
	if (r->outcome == SUPERVISOR_EXITED && r->code != 0)
		code = r->code;
	else if (r->outcome == SUPERVISOR_SIGNALED)
		code = 128 + r->code;
	else
		return;
	if (r->net_refused)
		log_msg(LOG_LEVEL_WARN,
			"the command failed (%d) after porta refused it %zu destination%s (above): "
			"run it again with --why to see them with every file refused and what would "
			"allow each",
			code, r->net_refused, r->net_refused == 1 ? "" : "s");
	else if (isatty(STDERR_FILENO))
		log_msg(LOG_LEVEL_WARN,
			"the command failed (%d); if the sandbox refused it a file or a connection, "
			"run it again with --why to see what and what would allow it",
			code);
}

/* What run says once before the command starts (-q silences it): every -v
 * that reopens a closed path, and the plan's warnings.  Not inlined: its 16
 * KiB of buffers would widen main's frame, which -fstack-clash-protection
 * faults in whole at every start. */
static __attribute__((noinline)) void say_before_run(const struct policy_plan *plan)
{
	char a[2 * 4096], b[2 * 4096];

	for (size_t i = 0; i < plan->n_reopened; i++) {
		const struct policy_reopen *ro = &plan->reopened[i];
		log_escape(ro->path, strlen(ro->path), a, sizeof(a));
		log_escape(ro->closed, strlen(ro->closed), b, sizeof(b));
		if (strcmp(ro->path, ro->closed) == 0)
			log_msg(LOG_LEVEL_WARN, "-v %s reopens a path closed as %s: that path only", a,
				policy_path_reason_words(ro->reason));
		else
			log_msg(LOG_LEVEL_WARN,
				"-v %s reopens that path inside %s, closed as %s; the rest stays closed",
				a, b, policy_path_reason_words(ro->reason));
	}
	for (size_t i = 0; i < plan->n_warnings; i++) {
		log_escape(plan->warnings[i], strlen(plan->warnings[i]), a, sizeof(a));
		log_msg(LOG_LEVEL_WARN, "%s", a);
	}
}

/* The project file (host/project.h) when trusted, then the profiles the
 * command line names, read and merged into the words policy_parse_args()
 * reads again (policy/profile.h).  On success *opts is the merged command
 * line's, and *argv_out and *src what it points into, kept for the life of
 * the process; *argv_out is NULL when nothing was merged. */
static int apply_profiles(int argc, char *argv[], struct policy_options *opts,
			  char ***argv_out, struct policy_sources *src)
{
	static struct policy_profile *loaded[POLICY_PROFILES_MAX + 1];
	static char files[POLICY_PROFILES_MAX + 1][4096];
	static const char *names[POLICY_PROFILES_MAX + 1], *file_ptrs[POLICY_PROFILES_MAX + 1];
	size_t n = 0, n_named = 0;
	struct porta_error e;
	char msg[1600], err[POLICY_ERR_MAX];

	*argv_out = NULL;
	loaded[0] = malloc(sizeof(*loaded[0]));
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	if (!loaded[0] || !cwd)
		return fail("reading the project file: %s", strerror(errno));
	int st = opts->no_project
			 ? HOST_PROJECT_NONE
			 : host_project_load(cwd, environ, loaded[0], files[0], sizeof(files[0]), &e);
	if (st < 0) {
		porta_error_format(&e, msg, sizeof(msg));
		return fail("%s", msg);
	}
	if (st == HOST_PROJECT_TRUSTED) {
		names[0] = NULL; /* the project file */
		file_ptrs[0] = files[0];
		n = 1;
	} else if (st != HOST_PROJECT_NONE) {
		/* Fails closed: a project file the command could have written
		 * (a nearer one, or the trusted one changed) stops the run; it
		 * can never turn the trusted policy off by being skipped. */
		char shown[4200];
		log_escape(files[0], strlen(files[0]), shown, sizeof(shown));
		return fail("%s %s: porta runs with a project file only as it was trusted. Review "
			    "it: porta explain --no-project --profile %s -- true; trust it: porta "
			    "trust %s; or run without any project file: --no-project",
			    shown,
			    st == HOST_PROJECT_CHANGED ? "changed since it was trusted"
						       : "is not trusted",
			    shown, shown);
	}
	if (!policy_profile_names(argc, argv, opts->cmd_index, names + n, POLICY_PROFILES_MAX,
				  &n_named))
		return fail("--profile: at most %d profiles", POLICY_PROFILES_MAX);
	for (size_t k = n; k < n + n_named; k++) {
		if (!loaded[k]) /* loaded[0] is the project file's, unused when n == 0 */
			loaded[k] = malloc(sizeof(*loaded[k]));
		if (!loaded[k])
			return fail("--profile: out of memory");
		if (host_profile_load(names[k], environ, loaded[k], files[k], sizeof(files[k]), &e) <
		    0) {
			porta_error_format(&e, msg, sizeof(msg));
			return fail("%s", msg);
		}
		file_ptrs[k] = files[k];
	}
	n += n_named;
	if (n == 0)
		return 0; /* nothing to merge: the command line stands as parsed */
	size_t cap = (size_t)argc + 1;
	for (size_t k = 0; k < n; k++)
		cap += loaded[k]->n;
	char **merged = calloc(cap, sizeof(*merged));
	struct policy_origin *origin = calloc(cap, sizeof(*origin));
	int merged_argc;
	if (!merged || !origin ||
	    !policy_profile_merge(argc, argv, opts->cmd_index,
				  (const struct policy_profile *const *)loaded, n, merged, origin, cap,
				  &merged_argc))
		return fail("--profile: out of memory");
	if (policy_parse_args(merged_argc, merged, opts, err) != POLICY_PARSE_OK)
		return fail("with the %s: %s", n_named ? "profiles" : "project file", err);
	*src = (struct policy_sources){ merged_argc, merged, origin, names, file_ptrs, n };
	*argv_out = merged;
	return 0;
}

int main(int argc, char *argv[])
{
	struct policy_options opts;
	char err[POLICY_ERR_MAX];
	struct porta_error e;
	char msg[1600];

	const char *trace = getenv("PORTA_TRACE_SETUP");
	trace_start(trace && trace[0] && strcmp(trace, "0") != 0);
	if (argc == 2 && strcmp(argv[1], "profiles") == 0)
		return host_profiles_list(stdout, environ);
	if (argc > 2 && strcmp(argv[1], "profiles") == 0)
		return fail("'profiles' takes no arguments (got '%.64s')", argv[2]);
	if (argc >= 2 && strcmp(argv[1], "audit") == 0)
		return porta_audit_command(argc, argv, environ);
	if (argc >= 2 && strcmp(argv[1], "trust") == 0) {
		if (argc > 3)
			return fail("'trust' takes at most one FILE (got '%.64s')", argv[3]);
		if (host_project_trust(argc == 3 ? argv[2] : NULL, environ, stdout, &e) < 0) {
			porta_error_format(&e, msg, sizeof(msg));
			return fail("%s", msg);
		}
		return 0;
	}
	if (policy_parse_args(argc, argv, &opts, err) != POLICY_PARSE_OK)
		return fail("%s", err);
	if (opts.quiet)
		log_set_level(LOG_LEVEL_ERROR);
	static struct policy_sources sources;
	bool sourced = false;
	/* learn writes the user's own words, as typed, into its profile */
	char **typed = argv;
	int typed_cmd_index = opts.cmd_index;
	if (opts.command == POLICY_CMD_RUN || opts.command == POLICY_CMD_LEARN ||
	    opts.command == POLICY_CMD_EXPLAIN) {
		char **merged = NULL;
		int rc = apply_profiles(argc, argv, &opts, &merged, &sources);
		if (rc != 0)
			return rc;
		if (merged) {
			argv = merged;
			sourced = true;
		}
	}
	if ((opts.command == POLICY_CMD_RUN || opts.command == POLICY_CMD_LEARN ||
	     opts.command == POLICY_CMD_EXPLAIN) &&
	    policy_options_check_env(&opts, environ, err) != POLICY_PARSE_OK)
		return fail("%s", err);
	if (opts.quiet)
		log_set_level(LOG_LEVEL_ERROR);
	else if (getenv("PORTA_DEBUG"))
		log_set_level(LOG_LEVEL_DEBUG);

	switch (opts.command) {
	case POLICY_CMD_HELP:
		fputs(help_text, stdout);
		return 0;
	case POLICY_CMD_VERSION:
		/* "porta X.Y.Z (rev HEX12[-dirty])", "rev unknown" when built
		 * outside a git checkout (cmake/porta_revision.cmake) */
		printf("porta %s (rev %s)\n", PORTA_VERSION, PORTA_REVISION);
		return 0;
	case POLICY_CMD_CHECK:
		/* 1 when a primitive porta needs is missing: scripts can ask. */
		return supervisor_check(stdout, opts.json);
	default:
		break;
	}

	bool runs = opts.command == POLICY_CMD_RUN || opts.command == POLICY_CMD_LEARN;
	if (runs && !opts.allow_root && sandbox_euid_is_host_root())
		return fail("refusing to run as root: the command would own every root-owned file "
			    "of the host it can reach; pass --allow-root to accept that");

	struct porta_learn learn = { .audit_fd = -1 };
	if (opts.command == POLICY_CMD_LEARN) {
		int rc = porta_learn_prepare(&learn, &opts);
		if (rc) {
			porta_learn_release(&learn);
			return rc;
		}
	}
	struct policy_plan *plan = NULL;
	trace_mark("options parsed");
	if (host_resolve(&opts, argv, environ, &plan, &e) < 0) {
		porta_learn_release(&learn);
		porta_error_format(&e, msg, sizeof(msg));
		return fail("%s", msg);
	}
	if (sourced)
		plan->sources = &sources;
	const char *refusal = unavailable(&opts);
	if (refusal && runs) {
		policy_plan_destroy(plan);
		porta_learn_release(&learn);
		return fail("%s", refusal);
	}
	if (refusal)
		policy_plan_add_note(plan, "run would refuse this: %s", refusal);
	if (opts.command == POLICY_CMD_EXPLAIN && !refusal)
		supervisor_ceilings_explain(plan, supervisor_degraded_explain(plan));

	trace_mark("plan resolved");
	int code;
	if (opts.command == POLICY_CMD_EXPLAIN) {
		code = policy_explain(stdout, plan, opts.cmd_argc, argv + opts.cmd_index,
				      sandbox_landlock_abi(), opts.json) ? EXIT_PORTA : 0;
	} else {
		struct supervisor_result r;
		say_before_run(plan);
		fflush(stdout);
		if (supervisor_run(plan, argv + opts.cmd_index, &r) < 0) {
			porta_error_format(&r.error, msg, sizeof(msg));
			code = fail("%s", msg);
		} else {
			/* before report(), which may end porta by the command's signal */
			int learned = opts.command != POLICY_CMD_LEARN ? 0 :
				porta_learn_finish(&learn, &opts, typed, typed_cmd_index,
						   sourced && sources.n_profiles && !sources.names[0], &r);
			supervisor_result_release(&r);
			point_at_refusals(&opts, &r);
			code = learned ? learned : report(&r);
		}
	}
	porta_learn_release(&learn);
	policy_plan_destroy(plan);
	return code;
}
