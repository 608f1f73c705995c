/* policy/secret.h: --secret NAME@HOST[,HOST...] parsed and checked against
 * porta's own environment.
 *
 * ARCHITECTURE: pure (docs/design.md, Modules): no syscalls, no globals, no
 * allocation, no logging.  The command line's glue parses each --secret
 * value with policy_secret_parse() into a fixed-size plain value (struct
 * policy_secret: no pointers), checks the whole set with
 * policy_secret_check_set(), and then, before anything runs, finds each
 * NAME's real value in its own environment with policy_secret_check_env()
 * (a refusal exits 125).  The placeholder that stands in for the value
 * inside the sandbox is made by policy/placeholder.h.  Callable from any
 * thread: no state.
 *
 * Grammar: NAME '@' HOST [',' HOST]...
 *   NAME  an environment variable name, [A-Za-z_][A-Za-z0-9_]*, at most
 *         POLICY_SECRET_NAME_MAX bytes; case-sensitive, as the environment is.
 *   HOST  --allow-net's host grammar (policy/netrule.h, read through
 *         policy/endpoint.h): a name or an IP literal, ":PORT" or a URL form
 *         "https://HOST[:PORT][/]" (the scheme's port); port 443 when none
 *         is given.  At most POLICY_SECRET_MAX_HOSTS, none twice.
 * Refused, each with a message naming the problem: no '@'; an empty, bad or
 * too long NAME; an empty host list or an empty item ("A@x,,y", "A@x,");
 * any host --allow-net refuses; port 80 (the real value is sent over TLS
 * only); a wildcard ("*.example", "*"), a CIDR or a
 * port range, because a secret goes to named hosts only: the proxy sends
 * the real value to exactly these hosts and the run's CA may sign for
 * exactly these names (policy/endpoint.h); a host given twice (as written
 * or after canonicalisation: "API.example." is "api.example", and
 * "https://api.example" is "api.example:443"); the same NAME in two
 * --secret options.
 *
 * The real value: policy_secret_check_env() refuses a NAME that is unset,
 * set to "", set twice in the environment, longer than
 * POLICY_SECRET_VALUE_MAX bytes, holding a control byte but HTAB (CR or LF
 * would split the header porta writes it into), beginning or ending with a
 * blank (a header drops those), or one whose placeholder
 * would not fit what the proxy holds (policy_placeholder_fits(): longer than
 * POLICY_PLACEHOLDER_MAX bytes, or a '.' kept, as a JWT's).  Its messages name NAME and never
 * quote the value, not even in part: they go to stderr, which the caller
 * may share with the sandboxed program.
 *
 * Not covered here: what the proxy does with the value (swapping it in
 * headers, refusing the placeholder elsewhere) and the connection-level
 * allowing of the hosts, which the caller derives from hosts[].
 */
#ifndef PORTA_POLICY_SECRET_H
#define PORTA_POLICY_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/endpoint.h"

#define POLICY_SECRET_NAME_MAX 64    /* bytes of NAME */
#define POLICY_SECRET_MAX_HOSTS 16   /* hosts of one --secret */
#define POLICY_SECRET_VALUE_MAX 4096 /* bytes of a real value: one header's worth */
/* Longest option value: NAME, '@', and MAX_HOSTS hosts of --allow-net's
 * longest rule text with their commas. */
#define POLICY_SECRET_TEXT_MAX \
	(POLICY_SECRET_NAME_MAX + 1 + POLICY_SECRET_MAX_HOSTS * (POLICY_NET_RULE_TEXT_MAX + 1))

/* One --secret, parsed. */
struct policy_secret {
	char name[POLICY_SECRET_NAME_MAX + 1];
	struct policy_endpoint hosts[POLICY_SECRET_MAX_HOSTS]; /* in the order given */
	size_t n_hosts;                                        /* 1..POLICY_SECRET_MAX_HOSTS */
};

enum policy_secret_status {
	POLICY_SECRET_OK,
	POLICY_SECRET_TOO_LONG,       /* the value is longer than POLICY_SECRET_TEXT_MAX */
	POLICY_SECRET_NO_AT,          /* no '@' between NAME and the hosts */
	POLICY_SECRET_EMPTY_NAME,     /* "@api.example" */
	POLICY_SECRET_BAD_NAME,       /* not [A-Za-z_][A-Za-z0-9_]* */
	POLICY_SECRET_NAME_TOO_LONG,  /* more than POLICY_SECRET_NAME_MAX bytes */
	POLICY_SECRET_NO_HOSTS,       /* "NAME@" */
	POLICY_SECRET_EMPTY_HOST,     /* an empty item: "A@x,,y", "A@x," */
	POLICY_SECRET_BAD_HOST,       /* a host refused: the message says why */
	POLICY_SECRET_TOO_MANY_HOSTS, /* more than POLICY_SECRET_MAX_HOSTS */
	POLICY_SECRET_DUP_HOST,       /* the same host and port twice */
	POLICY_SECRET_CLEAR_PORT,     /* port 80: the value would go in the clear */
	POLICY_SECRET_DUP_NAME,       /* policy_secret_check_set(): NAME in two --secret */
	POLICY_SECRET_UNSET,          /* policy_secret_check_env(): NAME not set */
	POLICY_SECRET_EMPTY_VALUE,    /* NAME set to "" */
	POLICY_SECRET_ENV_TWICE,      /* NAME set twice in the environment */
	POLICY_SECRET_VALUE_TOO_LONG, /* more than POLICY_SECRET_VALUE_MAX bytes */
	POLICY_SECRET_VALUE_CONTROL,  /* a byte below 0x20 but HTAB, or 0x7f */
	POLICY_SECRET_VALUE_BLANK_EDGE, /* a blank (SP, HTAB) first or last */
	POLICY_SECRET_VALUE_SHAPE,    /* its placeholder would not fit (policy_placeholder_fits()) */
};

/* Parses one --secret value text[0..len) into *out.  On failure *out is
 * unspecified and err[0..err_cap) holds one line (no "porta: ", no newline)
 * naming the option, the value (escaped, cut at 64 bytes) and the problem,
 * as "--secret 'GH@*.example': ..."; on success err is "".  err_cap should
 * be at least 512 (the messages fit; a smaller buffer cuts them).  Pure;
 * text may hold any bytes. */
enum policy_secret_status policy_secret_parse(const char *text, size_t len,
					      struct policy_secret *out, char *err,
					      size_t err_cap);

/* Checks secrets[0..n) as one run's set: each NAME at most once (two
 * placeholders for one variable cannot both be in the environment).  A host
 * named by two secrets is fine (two tokens for one service).  Writes a
 * message as policy_secret_parse() does.  Pure. */
enum policy_secret_status policy_secret_check_set(const struct policy_secret *secrets, size_t n,
						  char *err, size_t err_cap);

/* Finds each secret's real value in envp (NULL-terminated "NAME=VALUE"
 * strings, porta's own environment; not modified): on success values[i]
 * points into envp, just after secrets[i].name's "=", for i < n.  On failure
 * err names the first NAME that is unset, empty, set twice, too long or
 * holds a control byte (the caller exits 125); the message never holds any
 * byte of any value.  values[] is then unspecified.  Pure. */
enum policy_secret_status policy_secret_check_env(const struct policy_secret *secrets, size_t n,
						  char *const envp[], const char *values[],
						  char *err, size_t err_cap);

/* True when name[0..n) is a valid NAME: [A-Za-z_][A-Za-z0-9_]*, 1 to
 * POLICY_SECRET_NAME_MAX bytes. */
bool policy_secret_name_valid(const char *name, size_t n);

#endif /* PORTA_POLICY_SECRET_H */
