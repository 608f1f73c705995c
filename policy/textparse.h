/* policy/textparse.h: parsers for the small text formats porta reads at
 * start: --env-file lines, /proc/net/unix lines and a .git file's gitdir line.
 *
 * ARCHITECTURE: pure functions over (const uint8_t *, size_t) that neither
 * allocate nor log (docs/design.md, Modules).  Results are spans into the input.
 * Each has a fuzz target in tests/fuzz/.
 */
#ifndef PORTA_POLICY_TEXTPARSE_H
#define PORTA_POLICY_TEXTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct policy_span {
	const uint8_t *p;
	size_t n;
};

/* True when name[0..n) is a valid environment variable name:
 * [A-Za-z_][A-Za-z0-9_]*. */
bool policy_env_name_valid(const char *name, size_t n);

enum policy_envfile_status {
	POLICY_ENVFILE_LINE,      /* *key and *value hold one assignment */
	POLICY_ENVFILE_END,       /* no more lines */
	POLICY_ENVFILE_MALFORMED, /* the line at *line_no is not KEY=VALUE */
};

/* Reads the next assignment of an --env-file buffer starting at *pos.
 * Format: one KEY=VALUE per line; KEY is [A-Za-z_][A-Za-z0-9_]*; VALUE is
 * taken literally up to the end of the line (a trailing "\r" is dropped); empty
 * lines and lines whose first non-blank byte is '#' are skipped; an optional
 * leading "export " is accepted.  A NUL byte anywhere in a line is malformed.
 * *line_no counts lines (1-based) and names the offending line on error. */
enum policy_envfile_status policy_envfile_next(const uint8_t *buf, size_t len, size_t *pos,
					       size_t *line_no, struct policy_span *key,
					       struct policy_span *value);

enum policy_unix_status {
	POLICY_UNIX_OK,        /* *path holds a bound pathname socket */
	POLICY_UNIX_NO_PATH,   /* a valid line for an unbound, abstract or relative-named socket */
	POLICY_UNIX_MALFORMED, /* not a /proc/net/unix entry line */
};

/* Parses one line (without its "\n") of /proc/net/unix:
 * "Num RefCount Protocol Flags Type St Inode [Path]".  Abstract sockets (path
 * starting with '@') are POLICY_UNIX_NO_PATH: they are not in the filesystem.
 * *listening is set when Flags has __SO_ACCEPTCON (0x10000). */
enum policy_unix_status policy_parse_proc_net_unix_line(const uint8_t *line, size_t len,
							struct policy_span *path,
							int *listening);

enum policy_gitfile_status {
	POLICY_GITFILE_OK,
	POLICY_GITFILE_MALFORMED,
};

/* Parses a ".git" file (a worktree or submodule pointer): "gitdir: PATH",
 * read as git's read_gitfile_gently() reads it: every trailing "\n" and "\r"
 * is dropped and PATH ends at the first NUL byte.  PATH must be non-empty. */
enum policy_gitfile_status policy_parse_gitfile(const uint8_t *buf, size_t len,
						struct policy_span *gitdir);

#endif /* PORTA_POLICY_TEXTPARSE_H */
