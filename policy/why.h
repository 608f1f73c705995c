/* policy/why.h: `--why`, the pure part — which refusals the sandbox caused,
 * the option that would have allowed each, and the command line to run again.
 *
 * ARCHITECTURE: sandbox/why.c traces the command (ptrace with seccomp
 * tracing), and for each call that may have been refused gathers the facts:
 * the operation, the absolute path as the sandbox named it, the errno the
 * call returned, and what the host itself says about the path (does it
 * exist, would the user's own file permissions allow the operation).
 * policy_why_classify() turns those facts and the plan into a verdict:
 * not the sandbox's doing, the option that allows it (docs/porta.1's
 * exact spellings), closed by the preset, closed by an option the user gave,
 * or closed by the sandbox with no option that opens it.
 * policy_why_command() rebuilds porta's argv with the suggested options.
 * Nothing here looks at the filesystem; no allocation, no logging.
 */
#ifndef PORTA_POLICY_WHY_H
#define PORTA_POLICY_WHY_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/plan.h"

#define POLICY_WHY_OPTION_MAX 4200 /* "--allow-unix " + PATH_MAX + ":ro" */

/* What the program tried. */
enum policy_why_op {
	POLICY_WHY_READ,   /* open for reading, list a directory */
	POLICY_WHY_EXEC,   /* execve */
	POLICY_WHY_WRITE,  /* open for writing, truncate, chmod of an existing file */
	POLICY_WHY_CREATE, /* create, remove, rename or link a name in a directory */
	POLICY_WHY_UNIX,   /* connect to (or send to) a Unix socket by path */
	POLICY_WHY_NET,    /* connect to (or send to) an IP address; path is "ip:port" */
};

/* One traced call, as the tracer saw it.  path is absolute and normalised
 * (for POLICY_WHY_NET: "192.0.2.1:80" or "[2001:db8::1]:80"). */
struct policy_why_facts {
	enum policy_why_op op;
	const char *path;
	int err;           /* the call's errno, 0 when it succeeded */
	bool host_exists;  /* the path exists on the host (outside the sandbox) */
	bool host_is_dir;  /* ... and is a directory */
	bool host_dir_exists; /* the directory holding path exists on the host */
	bool host_permits; /* the user's own file permissions (no capabilities,
			    * as in the sandbox) would allow op on the host */
};

enum policy_why_verdict {
	POLICY_WHY_NOT_SANDBOX, /* not a refusal, or file permissions alone refuse it too */
	POLICY_WHY_OPTION,      /* answer.option allows it */
	POLICY_WHY_PRESET,      /* closed by the built-in preset; no narrower option */
	POLICY_WHY_USER,        /* closed by an option the user gave (answer.option names it) */
	POLICY_WHY_FIXED,       /* closed by the sandbox itself; no option opens it */
	POLICY_WHY_WITHHELD,    /* answer.option would allow it, but is not suggested
				 * (answer.withheld says why): a writable mount that
				 * the command could have asked for to open the host */
};

struct policy_why_answer {
	enum policy_why_verdict verdict;
	const char *reason;  /* static words: "outside every writable mount", "credential path", ... */
	char option[POLICY_WHY_OPTION_MAX]; /* OPTION: "-v /home/u/proj"; USER: "--deny-read X" */
	bool drops_no_net;   /* the option replaces --no-net (they cannot be combined) */
	const char *withheld; /* WITHHELD: static words, why the option is not suggested */
};

/* Classifies one traced call against plan.  Always fills *out (verdict,
 * reason, option or "") and returns out->verdict.  Pure. */
enum policy_why_verdict policy_why_classify(const struct policy_plan *plan,
					    const struct policy_why_facts *f,
					    struct policy_why_answer *out);

/* "read", "execute", "write", "create or remove", "connect to socket", "connect". */
const char *policy_why_op_name(enum policy_why_op op);

/* Appends word to out[cap] (at *len) shell-quoted: as is when it holds only
 * characters no POSIX shell treats specially, else in single quotes ('\''
 * for a quote), or, when it holds a control byte such as a newline, in
 * bash's and zsh's $'...' (\n, \t, \\, \', \xHH) so the line stays one line.  Returns false (out untouched past *len) when it does not
 * fit.  Pure. */
bool policy_why_quote(const char *word, char *out, size_t cap, size_t *len);

/* Is add[i] implied by another option of add, or a repeat of an earlier
 * one ("-v D:ro" beside "-v D", "-v D/sub" beside "-v D")?  Pure. */
bool policy_why_implied(const char *const *add, size_t n_add, size_t i);

/* The command line to run again: argv[0..argc) (porta's own, as parsed into
 * o) with each of add[0..n_add) (one option each, "-v /dir" or "--allow-net
 * h:443": the first space separates the option from its value) inserted
 * where the command begins (before "--" when there is one), every "--no-net"
 * option word dropped when drop_no_net, and every word shell-quoted,
 * separated by single spaces, into out[cap].  Options that another one in
 * add already implies are left out ("-v D:ro" when "-v D" is there, "-v
 * D/sub" when "-v D" is).  Returns the length, or 0 when it does not fit.
 * Pure. */
size_t policy_why_command(int argc, char *const argv[], const struct policy_options *o,
			  const char *const *add, size_t n_add, bool drop_no_net, char *out,
			  size_t cap);

#endif /* PORTA_POLICY_WHY_H */
