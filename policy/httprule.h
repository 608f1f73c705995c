/* policy/httprule.h: --allow-http 'METHODS URL' parsed, and requests on a
 * terminated (or plain HTTP) connection matched against the rules.
 *
 * ARCHITECTURE: pure (docs/design.md, Modules): no syscalls, no globals, no
 * allocation, no logging.  A rule is parsed once at start into a
 * fixed-size plain value (struct policy_http_rule: no pointers, so an
 * array of them may be kept for the run and shared read-only by any
 * thread).  The proxy asks policy_http_decide() once per request head, on
 * every request of every connection to a HOST:PORT some rule names
 * (policy_http_endpoints() lists them, to be allowed at the connection
 * level), with the request line's bytes as sent.
 *
 * (In this comment "/\*" is a slash then '*': C comments cannot hold the
 * pair unescaped.)
 *
 * Grammar: METHODS ' ' URL (spaces around and between the two are ASCII
 * spaces; every other byte must be visible ASCII, 0x21..0x7e).
 *   METHODS  '*' (any method), or a comma list of methods: RFC 9110 §9.1
 *            tokens (§5.6.2 tchar, '*' excepted), matched case-sensitively
 *            against the request's method as sent; a method with a
 *            lowercase letter is refused (the registered methods are
 *            upper-case, and "get" would never match what clients send).
 *            At most POLICY_HTTP_METHODS_MAX, none twice.
 *   URL      SCHEME "://" HOST [":" PORT] PATH.  SCHEME is http or https
 *            (any case); HOST and PORT are --allow-net's grammar
 *            (policy/netrule.h) narrowed to one host and one port
 *            (policy/endpoint.h: no wildcard, CIDR or range, no user
 *            information); the port is 443 for https, 80 for http unless
 *            given.  PATH starts with '/' and is a glob: '*' matches any
 *            run of bytes, the empty run and '/' included, so
 *            "/acme/\*" matches "/acme/" and "/acme/a/b/c" but not
 *            "/acme" (and "/acme*" also matches "/acme-corp/x": write the
 *            slash).  There is no escape for a literal '*'.
 *   Query    A PATH without '?' is matched against the request-target's
 *            path alone (everything before its first '?') and any query
 *            is accepted: a rule is about which resource, and most
 *            queries are paging or caching noise.  A PATH with '?' is
 *            matched against the whole request-target, query included,
 *            byte for byte: "/search?q=*" then allows any q (and, since
 *            '*' matches '&', any further parameters: write the query in
 *            full when that matters).
 *   Refused, with a message naming the problem: no URL or a third word;
 *   an empty method or list item; a method that is not a token, holds a
 *   lowercase letter, is too long, is given twice, or '*' inside a list;
 *   no "://" (no scheme); a scheme other than http or https; any host
 *   --allow-net refuses, and a wildcard, CIDR or port range; no path
 *   after the host; a fragment ('#'); a path longer than
 *   POLICY_HTTP_PATH_MAX; a byte outside visible ASCII; and a path that
 *   could never match because requests holding it are refused (below).
 *
 * Matching.  Rules are tried in order; a rule applies to a request when
 * the scheme, host (as canonical name or address, policy/endpoint.h) and
 * port are the rule's and the method is one it lists (or it lists '*'); the
 * first rule whose PATH matches allows the request and is named in the
 * decision (the audit's "rule").  Anything else is refused, with a
 * suggested rule where one can allow exactly this method on exactly this
 * path (the query left out, as a rule without '?' ignores it).
 *
 * Percent-encoding and the bypasses considered.  Bytes are matched raw, as
 * sent: porta never decodes, so what it matched is what the server gets.
 * The danger is a request whose raw bytes match a rule while the server,
 * after its own decoding and normalisation, serves a resource outside it.
 * So a request-target's path is refused (POLICY_HTTP_WHY_UNSAFE_PATH)
 * unless only a rule whose PATH is "/\*" (any path) would allow it,
 * when it holds any of:
 *   - a dot segment, "/./", "/../", or a final "/." or "/..":
 *     "/acme/../other" matches "/acme/\*" raw;
 *   - an empty segment "//": collapsed by some servers, read as a
 *     scheme-relative "//host/..." by some routers;
 *   - a backslash, raw or "%5c": a path separator to IIS, Node's URL
 *     parser and others ("/acme/..\\other");
 *   - ';': path parameters, which Tomcat and others strip per segment
 *     ("/acme/..;/other" is "/other" to Tomcat);
 *   - "%2f" or "%2e" in either case: a slash or dot the server decodes
 *     after routing or before ("/acme%2f..%2fother", "/acme/%2e%2e/x");
 *   - "%25": double encoding ("%252e" decoded twice is ".");
 *   - "%00".."%1f", "%7f": NUL truncation and control bytes;
 *   - '%' not followed by two hex digits ("%u002e": IIS's %u form; "%zz"
 *     which servers read differently);
 *   - overlong UTF-8 lead bytes "%c0", "%c1", "%e0" followed by "%80".."%9f",
 *     "%f0" followed by "%80".."%8f", and "%f5".."%ff" (never UTF-8; old
 *     decoders read "%c0%ae" as '.'), and the full-width solidus, full stop
 *     and reverse solidus "%ef%bc%8f", "%ef%bc%8e", "%ef%bc%bc" (NFKC
 *     normalisation makes them '/', '.', '\\');
 *   - any raw byte outside 0x21..0x7e, and '#': never in a valid
 *     request-target, and read differently by lenient servers;
 * and any request-target not in origin form (not starting with '/':
 * "*", "http://other/...", "host:443") is refused whatever the rules.
 * Method overrides: a rule that lists methods does not allow a request
 * carrying X-HTTP-Method-Override, X-HTTP-Method or X-Method-Override (the
 * caller says so, policy_http_override_header()) or a "_method" query
 * parameter (Rails, Laravel, Symfony): "POST /x?_method=DELETE" would
 * be a DELETE to the server (POLICY_HTTP_WHY_METHOD_OVERRIDE).
 * Considered and safe without a check: case ("/ACME/x" never matches
 * "/acme/\*" raw: a case-insensitive server only loses access, never
 * gains it); an encoded ordinary byte ("/acm%65/x" misses the rule: the
 * same); a lowercase method ("get" misses "GET"); a query that looks like
 * a path ("/acme/x?../../y" is a query to the server); a Host differing
 * from the SNI, HTTP/2, smuggling and pipelining (the proxy's: only
 * HTTP/1.1 is offered, the head is framed by wire/http_stream.h and every
 * request is decided).
 * Not covered: servers that route on a query parameter or a header (a
 * rule sees the request line only), and bodies.
 *
 * Cost: one glob match per applicable rule, at worst O(path x pattern)
 * byte steps, both bounded.
 */
#ifndef PORTA_POLICY_HTTPRULE_H
#define PORTA_POLICY_HTTPRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/endpoint.h"
#include "policy/netrule.h"

#define POLICY_HTTP_METHODS_MAX 16    /* methods in one rule */
#define POLICY_HTTP_METHOD_MAX 32     /* bytes of one method */
#define POLICY_HTTP_PATH_MAX 1024     /* bytes of a rule's PATH */
#define POLICY_HTTP_RULE_TEXT_MAX 1536 /* bytes of a whole rule */
#define POLICY_HTTP_MAX_RULES 128     /* rules in one run */

enum policy_http_scheme {
	POLICY_HTTP_SCHEME_HTTP,
	POLICY_HTTP_SCHEME_HTTPS,
};

/* About 3.4 KiB: a run's array (at most POLICY_HTTP_MAX_RULES) is allocated
 * once, before the event loop starts; nothing here allocates. */
struct policy_http_rule {
	bool any_method; /* "*" */
	char methods[POLICY_HTTP_METHODS_MAX][POLICY_HTTP_METHOD_MAX + 1];
	size_t n_methods;
	enum policy_http_scheme scheme;
	struct policy_endpoint host;
	char path[POLICY_HTTP_PATH_MAX + 1]; /* the glob, from '/' on */
	bool with_query;                     /* path holds '?': matched with the query */
	char text[POLICY_HTTP_RULE_TEXT_MAX + 1]; /* as given, for the audit and messages */
};

enum policy_http_rule_status {
	POLICY_HTTP_RULE_OK,
	POLICY_HTTP_RULE_EMPTY,           /* "" or only spaces */
	POLICY_HTTP_RULE_TOO_LONG,        /* more than POLICY_HTTP_RULE_TEXT_MAX */
	POLICY_HTTP_RULE_BAD_BYTE,        /* a byte outside visible ASCII (or a tab) */
	POLICY_HTTP_RULE_NO_URL,          /* one word */
	POLICY_HTTP_RULE_EXTRA_WORD,      /* three words or more */
	POLICY_HTTP_RULE_EMPTY_METHOD,    /* "GET,,HEAD", "GET," */
	POLICY_HTTP_RULE_BAD_METHOD,      /* not an RFC 9110 token */
	POLICY_HTTP_RULE_LOWER_METHOD,    /* "get" */
	POLICY_HTTP_RULE_METHOD_TOO_LONG, /* more than POLICY_HTTP_METHOD_MAX */
	POLICY_HTTP_RULE_TOO_MANY_METHODS,
	POLICY_HTTP_RULE_DUP_METHOD,      /* "GET,GET" */
	POLICY_HTTP_RULE_STAR_IN_LIST,    /* "GET,*" */
	POLICY_HTTP_RULE_NO_SCHEME,       /* "api.example/x" */
	POLICY_HTTP_RULE_BAD_SCHEME,      /* "ftp://", "wss://" */
	POLICY_HTTP_RULE_BAD_HOST,        /* the host part refused: the message says why */
	POLICY_HTTP_RULE_NO_PATH,         /* "https://api.example" */
	POLICY_HTTP_RULE_FRAGMENT,        /* '#' */
	POLICY_HTTP_RULE_PATH_TOO_LONG,   /* more than POLICY_HTTP_PATH_MAX */
	POLICY_HTTP_RULE_UNSAFE_PATH,     /* a form every request is refused for */
};

/* What policy_http_path_check() finds in a path (httprule.h, bypasses). */
enum policy_http_path_issue {
	POLICY_HTTP_PATH_CLEAN,
	POLICY_HTTP_PATH_BAD_BYTE,      /* outside 0x21..0x7e, or '#' */
	POLICY_HTTP_PATH_DOT_SEGMENT,   /* "/./", "/../", final "/." or "/.." */
	POLICY_HTTP_PATH_EMPTY_SEGMENT, /* "//" */
	POLICY_HTTP_PATH_BACKSLASH,     /* '\\' or "%5c" */
	POLICY_HTTP_PATH_SEMICOLON,     /* ';' */
	POLICY_HTTP_PATH_PCT_SLASH,     /* "%2f" */
	POLICY_HTTP_PATH_PCT_DOT,       /* "%2e" */
	POLICY_HTTP_PATH_PCT_PERCENT,   /* "%25" */
	POLICY_HTTP_PATH_PCT_CONTROL,   /* "%00".."%1f", "%7f" */
	POLICY_HTTP_PATH_PCT_MALFORMED, /* '%' without two hex digits */
	POLICY_HTTP_PATH_PCT_OVERLONG,  /* overlong or full-width look-alikes */
};

/* Parses one --allow-http value text[0..len) into *out.  On failure *out
 * is unspecified and err[0..err_cap) holds one line (no "porta: ", no
 * newline) naming the option, the rule (escaped, cut at 64 bytes) and the
 * problem; on success err is "".  err may be NULL when err_cap is 0.
 * Pure; text may hold any bytes. */
enum policy_http_rule_status policy_http_rule_parse(const char *text, size_t len,
						    struct policy_http_rule *out, char *err,
						    size_t err_cap);

/* Finds the first bypass form of httprule.h in the path p[0..n) (the
 * request-target before its first '?').  '*' is an ordinary byte here.
 * Pure. */
enum policy_http_path_issue policy_http_path_check(const uint8_t *p, size_t n);

/* One short phrase for an issue, for a 403 body and the stderr line.
 * Never NULL. */
const char *policy_http_path_issue_reason(enum policy_http_path_issue issue);

/* True when the field name[0..n) (any case) is a method override header:
 * X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override.  The caller
 * sets struct policy_http_request.method_override when a request holds
 * one.  Pure. */
bool policy_http_override_header(const uint8_t *name, size_t n);

/* True when a query key k[0..n) (before '=') names a method override as a
 * web framework would read it: percent-decoded once, without case,
 * "_method" or one of the override headers' names; a key whose escapes
 * do not decode counts too.  Pure. */
bool policy_http_override_query_key(const uint8_t *k, size_t n);

/* One request, as the proxy read it.  Every pointer is the caller's, read
 * only for the call; host is never NULL. */
struct policy_http_request {
	enum policy_http_scheme scheme;       /* https on a terminated connection */
	const struct policy_net_target *host; /* the connection's host (the SNI's, or
					       * the Host of a plain HTTP connection) */
	uint16_t port;                        /* the connection's port */
	const uint8_t *method;                /* as sent */
	size_t method_len;
	const uint8_t *target;                /* the request-target, as sent */
	size_t target_len;
	bool method_override;                 /* an override header is present */
};

enum policy_http_verdict {
	POLICY_HTTP_ALLOWED,
	POLICY_HTTP_REFUSED,
};

enum policy_http_why {
	POLICY_HTTP_WHY_RULE,            /* allowed by rule */
	POLICY_HTTP_WHY_NO_RULE,         /* no rule allows this method and path */
	POLICY_HTTP_WHY_NOT_ORIGIN_FORM, /* the target does not start with '/' */
	POLICY_HTTP_WHY_UNSAFE_PATH,     /* a bypass form: issue says which */
	POLICY_HTTP_WHY_METHOD_OVERRIDE, /* a rule matched but the method is overridden */
};

struct policy_http_decision {
	enum policy_http_verdict verdict;
	enum policy_http_why why;
	enum policy_http_path_issue issue;   /* for WHY_UNSAFE_PATH */
	const struct policy_http_rule *rule; /* ALLOWED: the rule, pointing into
					      * rules; otherwise NULL */
	size_t rule_index;                   /* ALLOWED: its index */
	bool has_suggestion;                 /* REFUSED: a rule that would allow it */
	char suggestion[POLICY_HTTP_RULE_TEXT_MAX + 1]; /* "GET https://api.example/v1/x" */
};

/* Decides req against rules[0..n) (httprule.h, Matching) into *out and
 * returns out->verdict.  A suggestion is offered for WHY_NO_RULE only, when
 * the method, host and path can be written as a rule; it always parses
 * (policy_http_rule_parse) into a rule that allows req.  It names the
 * request's path without its query, so it also allows the same method on
 * the same path with any query; a '*' in the path makes it broader still.
 * Pure. */
enum policy_http_verdict policy_http_decide(const struct policy_http_rule *rules, size_t n,
					    const struct policy_http_request *req,
					    struct policy_http_decision *out);

/* One short phrase for a refusal's why, for a 403 body. Never NULL. */
const char *policy_http_why_reason(enum policy_http_why why);

/* A HOST:PORT named by some rule, and the schemes the rules name it with. */
struct policy_http_endpoint {
	struct policy_endpoint ep;
	bool http, https;
};

/* Lists the distinct HOST:PORT of rules[0..n) into out[0..cap), in the
 * order first named, for the caller to allow at the connection level (and
 * to terminate the https ones).  cap >= n always suffices.  Returns the
 * number written.  Pure. */
size_t policy_http_endpoints(const struct policy_http_rule *rules, size_t n,
			     struct policy_http_endpoint *out, size_t cap);

#endif /* PORTA_POLICY_HTTPRULE_H */
