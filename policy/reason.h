/* policy/reason.h: the network decisions' vocabulary: why something was
 * allowed or refused, in one table.
 *
 * ARCHITECTURE: pure.  Every network decision porta records (the DNS
 * responder's, the proxy's, the connect watch's) names one enum
 * policy_reason.  The table in reason.c says, for each: its code (the
 * "reason" of an audit record, "no-rule"), its words (the stderr line and
 * the summary, "no rule"), its verdict ("allow", "deny", "error") and which
 * hint, if any, names the option that would allow it.  Code that acts on a
 * reason switches on the enum; nothing compares the strings.  The hint is
 * built from the decision's facts by policy_reason_hint(), so the stderr
 * line, the audit record, an HTTP 403 body and --why all show the same one.
 */
#ifndef PORTA_POLICY_REASON_H
#define PORTA_POLICY_REASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"
#include "policy/netrule.h"

enum policy_verdict {
	POLICY_VERDICT_ALLOW,
	POLICY_VERDICT_DENY,  /* the policy, or what the connection showed, refuses it */
	POLICY_VERDICT_ERROR, /* porta could not carry it: a failure or a limit */
};

/* Which option would allow a refusal, if any. */
enum policy_hint_kind {
	POLICY_HINT_NONE,        /* no option allows it (a deny rule, malformed bytes) */
	POLICY_HINT_DESTINATION, /* the name as asked (with its port when known), else
				  * the address and port */
	POLICY_HINT_ADDRESS,     /* the address and port: only an IP rule reaches it */
};

/* How the end-of-run summary counts a refusal. */
enum policy_tally {
	POLICY_TALLY_NONE,        /* an allow: not counted */
	POLICY_TALLY_DESTINATION, /* one line per distinct destination */
	POLICY_TALLY_LIMIT,       /* only a count of connections refused at a limit */
};

enum policy_reason {
	/* allowed, and how an allowed connection ended (its second record) */
	POLICY_REASON_ALLOW,
	POLICY_REASON_CLOSED,
	POLICY_REASON_CLOSED_RESET,
	POLICY_REASON_CLOSED_IDLE,
	POLICY_REASON_CLOSED_NO_MEMORY,
	POLICY_REASON_CLOSED_REFUSED,    /* the relay's gate refused a later request */
	/* DNS answers that are still allows */
	POLICY_REASON_NOT_ADDRESS_TYPE,  /* MX, TXT, ...: an empty answer */
	POLICY_REASON_NXDOMAIN,
	POLICY_REASON_SOME_DENIED,       /* some addresses dropped as default-denied */
	/* the rules (policy_net_decide) */
	POLICY_REASON_NO_RULE,
	POLICY_REASON_DENY_RULE,
	POLICY_REASON_DENIED_ADDRESS,    /* a name rule matched; the address is default-denied */
	POLICY_REASON_RESERVED_NAME,     /* localhost, metadata names */
	/* what the program sent */
	POLICY_REASON_MALFORMED_NAME,
	POLICY_REASON_IP_LITERAL_NAME,   /* a DNS question for "127.1" */
	POLICY_REASON_UNSUPPORTED_CLASS, /* a DNS class other than IN */
	POLICY_REASON_SNI_MISMATCH,
	POLICY_REASON_NO_SNI,
	POLICY_REASON_NO_HOST,
	POLICY_REASON_DUPLICATE_HOST,
	POLICY_REASON_HOST_MISMATCH,
	POLICY_REASON_HOST_CHANGED,      /* a later request on a relayed connection */
	POLICY_REASON_SECRET_ELSEWHERE,  /* a --secret placeholder in a name or head bound elsewhere */
	POLICY_REASON_HTTP_NO_RULE,      /* a terminated request no --allow-http rule allows */
	POLICY_REASON_HTTP_REFUSED,      /* a terminated request porta will not pass (Host,
					  * Upgrade, a placeholder where no value may go) */
	POLICY_REASON_UPSTREAM_UNVERIFIED, /* a terminated host's certificate failed */
	POLICY_REASON_MALFORMED_TLS,
	POLICY_REASON_MALFORMED_HTTP,
	POLICY_REASON_MALFORMED_SOCKS,
	POLICY_REASON_NOT_PROXY_REQUEST, /* origin-form to the HTTP proxy */
	POLICY_REASON_UNSUPPORTED_COMMAND,
	POLICY_REASON_UNSUPPORTED_ADDRESS,
	POLICY_REASON_SOCKS_NO_METHOD,
	POLICY_REASON_SNIFF_TIMEOUT,
	POLICY_REASON_TOO_BIG,
	/* the connect watch */
	POLICY_REASON_PORT_NOT_OPEN,     /* no listener for the port: refused at connect() */
	POLICY_REASON_UDP_NOT_FORWARDED,
	POLICY_REASON_NOT_THROUGH_PROXY, /* a host without user namespaces */
	POLICY_REASON_PROXY_ONLY,        /* a --proxy-allow name asked or dialled directly (a
					  * client that ignores the proxy variables) */
	/* --no-net: the responder answers every name "no such host" */
	POLICY_REASON_NO_NET,
	/* the DNS responder's errors */
	POLICY_REASON_MALFORMED_QUERY,
	POLICY_REASON_NOT_QUERY,
	POLICY_REASON_NOT_IMPLEMENTED,
	POLICY_REASON_BAD_EDNS_VERSION,
	POLICY_REASON_UPSTREAM_TIMEOUT,
	POLICY_REASON_UPSTREAM_ERROR,
	POLICY_REASON_UPSTREAM_MALFORMED,
	POLICY_REASON_TOO_MANY_QUERIES,
	POLICY_REASON_TOO_MANY_CONNECTIONS,
	/* the proxy's errors */
	POLICY_REASON_IDLE,              /* neither side spoke */
	POLICY_REASON_RESET,
	POLICY_REASON_WRITE_FAILED,
	POLICY_REASON_NO_MEMORY,
	POLICY_REASON_DIAL_FAILED,
	POLICY_REASON_RESOLVE_FAILED,
	POLICY_REASON_LIMIT,             /* max_connections */
	POLICY_REASON_COUNT_
};

/* One row of the table.  code and words are static strings. */
struct policy_reason_info {
	const char *code;  /* the audit record's "reason": "no-rule" */
	const char *words; /* stderr and the summary: "no rule" */
	enum policy_verdict verdict;
	enum policy_hint_kind hint;
	enum policy_tally tally;
};

/* The row of r; an out-of-range r gets the row of POLICY_REASON_NO_RULE's
 * verdict with code "refused" (never NULL).  Pure. */
const struct policy_reason_info *policy_reason_info(enum policy_reason r);

static inline const char *policy_reason_code(enum policy_reason r)
{
	return policy_reason_info(r)->code;
}

static inline const char *policy_reason_words(enum policy_reason r)
{
	return policy_reason_info(r)->words;
}

static inline enum policy_verdict policy_reason_verdict(enum policy_reason r)
{
	return policy_reason_info(r)->verdict;
}

/* "allow", "deny", "error".  Pure. */
const char *policy_verdict_name(enum policy_verdict v);

/* The reason of a policy_net_decide() answer: ALLOW, DENY_RULE, NO_RULE,
 * DENIED_ADDRESS or RESERVED_NAME.  Pure. */
enum policy_reason policy_reason_of_net(const struct policy_net_decision *d);

/* What a hint may name.  Every field may be absent. */
struct policy_hint_facts {
	bool proxy_only;                /* only proxied requests reach porta (a host
					 * without user namespaces): --proxy-allow */
	const char *name;               /* canonical name the program asked for, or NULL */
	const struct policy_addr *addr; /* the address the refusal is about, or NULL */
	uint16_t port;                  /* 0: not known (a DNS question) */
};

/* Longest hint: "--proxy-allow " + an escaped name + ":65535". */
#define POLICY_HINT_MAX (16 + 4 * POLICY_NAME_MAX + 8)

/* Writes into out[cap] the option that would allow a refusal for reason r
 * with facts f ("--allow-net api.example.com:443", "--allow-net
 * api.example.com" when the port is not known, "--allow-net
 * [2001:db8::1]:22"), and returns its length; 0 (out "") when no option
 * would (an allow, a hint kind NONE, or facts that name nothing).  The name
 * goes through log_escape().  A port is never made up: a name without a port
 * is suggested as the name alone.  Pure. */
size_t policy_reason_hint(enum policy_reason r, const struct policy_hint_facts *f, char *out,
			  size_t cap);

#endif /* PORTA_POLICY_REASON_H */
