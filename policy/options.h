/* policy/options.h: the command line of docs/porta.1, parsed.
 *
 * ARCHITECTURE: policy_parse_args() is pure: it neither allocates, logs nor
 * touches the filesystem.  Every string in struct policy_options points into
 * the argv it was given, which must outlive the struct.  Syntax is checked
 * here (numbers, KEY=VALUE, PATH[:ro], HOST[:PORT] shape, contradictions);
 * whether paths exist is decided later by sandbox/ when it resolves the plan.
 */
#ifndef PORTA_POLICY_OPTIONS_H
#define PORTA_POLICY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/netrule.h"

#define POLICY_MAX_LIST 128 /* per repeatable option */
#define POLICY_ERR_MAX 512

/* The ceilings that hold without an option (README, "Resource ceilings and
 * cgroups"): tasks of the run at once, threads included (--max-procs
 * changes it), and the bytes one run writes to its --audit file, in MiB
 * (--audit-max changes it). */
#define POLICY_DEFAULT_MAX_PROCS 4096
#define POLICY_DEFAULT_AUDIT_MAX_MIB 64

enum policy_command {
	POLICY_CMD_NONE,
	POLICY_CMD_RUN,
	POLICY_CMD_LEARN, /* a run that learns a profile (policy/learn.h) */
	POLICY_CMD_EXPLAIN,
	POLICY_CMD_CHECK,
	POLICY_CMD_HELP,
	POLICY_CMD_VERSION,
};

/* HOME, the default, is 0: an options struct zeroed reads the home closed */
enum policy_read_mode { POLICY_READ_HOME, POLICY_READ_OPEN, POLICY_READ_STRICT };

/* "home", "open" or "strict".  Pure. */
const char *policy_read_mode_word(enum policy_read_mode m);
enum policy_net_mode { POLICY_NET_OPEN, POLICY_NET_NONE, POLICY_NET_POLICY };
enum policy_preset { POLICY_PRESET_DEFAULT, POLICY_PRESET_NONE };

struct policy_mount {
	const char *path; /* as given, without the ":ro"/":rw" suffix */
	size_t path_len;  /* bytes of path that belong to the path */
	bool read_only;
};

struct policy_strlist {
	const char *v[POLICY_MAX_LIST];
	size_t n;
};

/* A limit given on the command line; set is false when the option is absent. */
struct policy_limit {
	bool set;
	uint64_t value; /* seconds, count, MiB, or milliseconds for timeout_ms */
};

struct policy_options {
	enum policy_command command;

	/* files */
	struct policy_mount mounts[POLICY_MAX_LIST];
	size_t n_mounts;
	enum policy_read_mode read_mode;
	bool read_mode_given;
	struct policy_strlist deny_read;
	struct policy_strlist protect;
	struct policy_strlist allow_unix;
	struct policy_strlist deny_unix; /* POSIX extended regular expressions */
	enum policy_preset preset;
	bool preset_given;
	bool share_tmp;
	bool caches; /* --caches: the package managers' caches writable (policy/caches.h) */

	/* network */
	enum policy_net_mode net_mode; /* derived once parsing is done */
	bool no_net;
	struct policy_strlist allow_net; /* one rule per entry, commas split */
	struct policy_strlist deny_net;
	struct policy_strlist proxy_allow;
	struct policy_strlist proxy_deny;
	/* TLS termination: --secret NAME@HOST[,HOST...] and --allow-http
	 * 'METHODS URL', each value whole (policy/secret.h, policy/httprule.h) */
	struct policy_strlist secrets;
	struct policy_strlist allow_http;
	const char *audit_path;
	int audit_fd; /* porta learn's own audit, a memory file (audit_path names it), or -1 */
	const char *dns_upstream;

	/* process and environment */
	struct policy_strlist env_set;  /* KEY=VALUE */
	struct policy_strlist env_pass; /* NAME, commas split */
	struct policy_strlist env_files;
	struct policy_limit timeout_ms;
	struct policy_limit max_cpu_s;
	struct policy_limit max_procs;
	struct policy_limit max_file_size_mib;
	struct policy_limit max_memory_mib;
	struct policy_limit audit_max_mib; /* --audit-max: unset, POLICY_DEFAULT_AUDIT_MAX_MIB */
	bool allow_root;
	bool no_project; /* --no-project: no .porta is read (the command line only) */
	bool why;
	bool quiet;
	bool json; /* explain --json, check --json */
	/* --profile NAME|PATH, as given: the caller reads them and parses the
	 * merged command line again (policy/profile.h) */
	struct policy_strlist profiles;
	const char *learn_output; /* learn: -o FILE, the profile written */

	/* the command: argv[cmd_index .. argc-1]; cmd_argc == 0 when absent */
	int cmd_index;
	int cmd_argc;
};

enum policy_parse_status {
	POLICY_PARSE_OK,
	POLICY_PARSE_ERROR, /* err holds one line naming the option (exit 125) */
};

/* Parses argv[0..argc-1] (argv[0] is the program name) into *out.  On error
 * writes one line (no "porta: " prefix, no newline) into err[POLICY_ERR_MAX]
 * naming the option and what would be accepted.  Pure; the strings in *out
 * point into argv.  Comma-separated list values (net rules, --env-pass) are
 * stored whole here; policy_split_next() walks them. */
enum policy_parse_status policy_parse_args(int argc, char *const argv[],
					   struct policy_options *out,
					   char err[POLICY_ERR_MAX]);

/* Checks one option alone, words[0..n) (the option, and its value when it
 * takes one as a separate word), as policy_parse_args() checks it within a
 * command line, without what only the whole set decides (--no-net with a
 * rule, --audit-max without --audit, a --secret set): for a profile's line
 * (policy/profile.c), whose set is checked once merged.  Pure. */
enum policy_parse_status policy_parse_option(int n, char *const words[], char err[POLICY_ERR_MAX]);

/* True when the long option name[0..len) (without "--") takes one value
 * only: given twice on one command line it is refused, and when profiles
 * merge (policy/profile.c) the later one replaces the earlier.  *key is
 * then the option's name as merged (an alias's canonical name).  Pure. */
bool policy_option_single(const char *name, size_t len, const char **key);

/* Checks what --secret needs of envp (porta's own environment): each NAME
 * set once, not empty, not too long, without a control byte
 * (policy_secret_check_env()), so that run, explain and learn refuse a
 * missing secret alike.  err as policy_parse_args(); never quotes a value.
 * Pure. */
enum policy_parse_status policy_options_check_env(const struct policy_options *o,
						  char *const envp[], char err[POLICY_ERR_MAX]);

/* What an option's value is: how the shell completions complete it. */
enum policy_value_kind {
	POLICY_VALUE_NONE,    /* a flag: no value */
	POLICY_VALUE_PATH,    /* a file or directory (--mount's may end in :ro) */
	POLICY_VALUE_WORD,    /* one of the words of policy_option_info.words */
	POLICY_VALUE_PROFILE, /* a profile's NAME (host/profiles.h) or its PATH */
	POLICY_VALUE_TEXT,    /* anything else: a host, a number, KEY=VALUE, a regex */
};

/* The bit of policy_option_info.commands for one command. */
#define POLICY_CMD_BIT(cmd) (1u << (unsigned)(cmd))

/* One option of the command line, as policy_parse_args() reads it. */
struct policy_option_info {
	const char *long_name; /* without "--" */
	char short_name;       /* 0 when none */
	enum policy_value_kind kind;
	const char *const *words; /* POLICY_VALUE_WORD: every accepted value,
				   * NULL-terminated; otherwise NULL */
	const char *hint;	  /* what a value must be, in words; NULL for a flag */
	unsigned commands;	  /* POLICY_CMD_BIT() of each command that takes it */
};

/* Walks the option table policy_parse_args() parses with, one entry per
 * spelling (an alias such as --proxy-audit is an entry of its own): with
 * *cursor 0 at the start, fills *out and advances *cursor; false after
 * the last.  The strings are static.  Pure; for build-time generators
 * (tools/gen_completions.c) and tests. */
bool policy_option_next(size_t *cursor, struct policy_option_info *out);

/* What a command takes after its name. */
enum policy_args {
	POLICY_ARGS_NONE,    /* nothing */
	POLICY_ARGS_OPTIONS, /* options only (check) */
	POLICY_ARGS_COMMAND, /* options, then from the first other word COMMAND [ARGS...] */
	POLICY_ARGS_FILES,   /* files (trust, audit: their own options are src/'s) */
};

/* One first word of porta's command line. */
struct policy_command_info {
	const char *name;
	enum policy_command command; /* POLICY_CMD_NONE: src/main.c runs it itself,
				      * policy_parse_args() refuses it */
	enum policy_args args;
	bool alias; /* another spelling of a command listed before it (-h) */
};

/* Walks every command porta takes, as policy_option_next() walks the
 * options.  Pure. */
bool policy_command_next(size_t *cursor, struct policy_command_info *out);

/* Walks a comma-separated list: starting at *cursor (a NUL-terminated
 * string), returns the next item's start and length through item/len and
 * advances *cursor; returns false at the end.  Empty items are returned as
 * len 0 so the caller can refuse them.  Pure. */
bool policy_split_next(const char **cursor, const char **item, size_t *len);

/* Parses a non-negative decimal integer of the whole string s[0..n) with an
 * upper bound; false on anything else (sign, spaces, overflow, empty). */
bool policy_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out);


/* How many words of a `porta run` command line the option word arg uses: 2
 * for an option whose value is the next word ("-v DIR", "--allow-net H"),
 * 1 for anything else (a flag, "--name=value", "-vDIR", an unknown word).
 * Lets a caller walk the options of an argv policy_parse_args() accepted.
 * Pure. */
int policy_option_words(const char *arg);

enum policy_net_compile_status {
	POLICY_NET_COMPILE_OK,
	POLICY_NET_COMPILE_ERROR, /* err names the option, the rule and the reason */
};

/* Compiles every rule of o->allow_net, deny_net, proxy_allow and proxy_deny
 * (each entry split at commas with policy_split_next()) into
 * rules[0..*n_rules), in that order.  rules is caller-owned, cap entries
 * (about 600 bytes each: allocate POLICY_NET_MAX_RULES of them once, on the
 * heap, before the event loop starts; nothing here allocates).  On
 * error writes one line (no "porta: ", no newline; non-printable bytes of the
 * rule escaped) into err.  Pure. */
enum policy_net_compile_status policy_net_compile(const struct policy_options *o,
						  struct policy_net_rule *rules, size_t cap,
						  size_t *n_rules, char err[POLICY_ERR_MAX]);

#endif /* PORTA_POLICY_OPTIONS_H */
