/* policy/profile.h: profiles, files of porta options (docs/porta.1,
 * PROFILES), read into words and merged with the command line.
 *
 * ARCHITECTURE: pure (no allocation, no I/O, no logging).  host/profiles.c
 * finds and reads the files; src/main.c merges them before
 * policy_parse_args() reads the result, so that a profile means exactly
 * what its options typed on the command line mean.
 *
 * The grammar is the command line's, one option per line:
 *   - a line holds one option and its value, if it takes one: `-v DIR`,
 *     `--allow-net registry.example`, `--timeout=30`; blank lines and lines
 *     whose first word starts with '#' are skipped, and a word starting
 *     with '#' ends the line (a comment);
 *   - words are split as a POSIX shell splits them, without its expansions:
 *     blanks (space, tab) separate words; '...' quotes everything up to the
 *     next '; "..." quotes with backslash escaping only " \ $ and `; a
 *     backslash outside quotes takes the next byte literally.  The one
 *     expansion is a shell's tilde: an unquoted ~ starting a word, alone or
 *     before '/', is porta's HOME (so `-v ~/.cache/tool` means what it
 *     means typed).  Whatever else a shell would expand or interpret is
 *     refused instead of taken literally, so that a line never means
 *     something other than what it would typed: an unquoted or
 *     double-quoted $ or `, ~user, and the operators ; & | < > ( ).  The
 *     characters * ? [ are taken literally (a profile matches no file
 *     names);
 *   - a line ending inside quotes, or in a backslash, a NUL byte, or a
 *     control byte other than tab is refused; "\r\n" line ends are taken.
 * Each line is then checked as that option alone (policy_parse_option()),
 * so that a mistake is named with its file and line; what only the whole
 * set decides is checked once merged.  --profile (profiles do not nest),
 * --allow-root (running as root stays the caller's own choice) and
 * --no-project (asked for on the command line only) are refused in a
 * profile.
 */
#ifndef PORTA_POLICY_PROFILE_H
#define PORTA_POLICY_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/options.h"

#define POLICY_PROFILE_BYTES_MAX (64 * 1024) /* a profile file's size */
#define POLICY_PROFILE_WORDS_MAX 512         /* words in one profile */
#define POLICY_PROFILES_MAX 16               /* --profile given at most this often */

/* One profile's words, unquoted: text[] holds them NUL-terminated, one
 * after another; word[i] is the offset of word i and line[i] its line. */
struct policy_profile {
	char text[POLICY_PROFILE_BYTES_MAX + POLICY_PROFILE_WORDS_MAX];
	size_t word[POLICY_PROFILE_WORDS_MAX];
	unsigned line[POLICY_PROFILE_WORDS_MAX];
	size_t n;
	size_t used; /* bytes of text in use */
};

enum policy_profile_status {
	POLICY_PROFILE_OK,
	POLICY_PROFILE_ERROR, /* err: "LINE: what is wrong" (the caller adds the file) */
};

/* Reads a profile's bytes buf[0..len) into *out (one option per line, the
 * grammar above; each line checked with policy_parse_args()); home (an
 * absolute path, or NULL when porta has none) is what ~ stands for.  On
 * error writes one line into err[POLICY_ERR_MAX]: "line N: " and what is
 * wrong, naming the word.  Pure. */
enum policy_profile_status policy_profile_parse(const uint8_t *buf, size_t len,
						const char *home, struct policy_profile *out,
						char err[POLICY_ERR_MAX]);

/* Makes the relative paths of p's path options (-v/--mount, --deny-read,
 * --allow-unix, --env-file, --audit) relative to dir (absolute) instead of
 * the working directory: a project file's `-v .` is its project, from
 * wherever porta runs below it.  --protect's names are the mounts' own and
 * stay.  Returns false when the text has no room left.  Pure. */
bool policy_profile_anchor(struct policy_profile *p, const char *dir);

/* Where a word of the merged command line came from. */
struct policy_origin {
	int profile;   /* index into the caller's profiles, or -1: the command line */
	unsigned line; /* its line in that profile; 0 for the command line */
};

/* The words policy_parse_args() reads: argv[0], the command word, every
 * profile's options in the order given, then the command line's own
 * options (without its --profile options) and the command.  A
 * single-valued option (--read-policy, --preset, --audit, --dns-upstream,
 * --timeout and the --max-* ceilings) given again later (in a later
 * profile or on the command line) replaces the earlier one, so that the
 * command line overrides a profile; repeatable options add up.
 *
 * argv[0..argc) is the command line policy_parse_args() accepted, with
 * options from index 2 up to cmd_index (its first word of COMMAND, after
 * any "--"); profiles[0..n_profiles) the profiles its --profile options
 * named, in order.  out and origin have room for cap words; the result is
 * NULL-terminated (out[*out_argc] == NULL).  The words point into argv
 * and the profiles, which must outlive out.  Returns false when cap is too
 * small.  Pure. */
bool policy_profile_merge(int argc, char *const argv[], int cmd_index,
			  const struct policy_profile *const profiles[], size_t n_profiles,
			  char *out[], struct policy_origin origin[], size_t cap, int *out_argc);

/* The merged command line with where each word came from, for `porta
 * explain` (policy/explain.h) and --why. */
struct policy_sources {
	int argc;
	char *const *argv;                   /* the merged words */
	const struct policy_origin *origin;  /* one per word */
	const char *const *names;            /* profile k as --profile gave it; NULL: the
					      * project file (host/project.h) */
	const char *const *files;            /* profile k's file */
	size_t n_profiles;
};

/* The values of the --profile options of argv[2..cmd_index), in order,
 * into names[0..*n) (at most cap; false when there are more).  Pure. */
bool policy_profile_names(int argc, char *const argv[], int cmd_index, const char *names[],
			  size_t cap, size_t *n);

#endif /* PORTA_POLICY_PROFILE_H */
