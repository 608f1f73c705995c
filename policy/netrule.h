/* policy/netrule.h: network rules (--allow-net, --deny-net, --proxy-allow,
 * --proxy-deny; docs/porta.1) compiled and matched.
 *
 * ARCHITECTURE: pure (docs/design.md, Network: "Decisions are a pure function in
 * policy/").  A rule is parsed once at start into a fixed-size plain value
 * (struct policy_net_rule: no pointers, so an array of them can be copied or
 * kept for the whole run); the rules that can never take effect are refused
 * then, with a reason.  policy_net_decide() is the one decision every path
 * (DNS responder, transparent listener, proxy front ends) asks.  Callable
 * from any thread: no state; a compiled rule array may be shared read-only.
 *
 * Rule grammar: HOST[:PORT], or a URL SCHEME://HOST[:PORT][/] as pasted from
 * a browser or a registry setting: http and ws mean port 80, https and wss
 * 443, unless the URL names its port (one port, not a range).  A URL with a
 * path, query or fragment beyond "/", or with user information, is refused:
 * a rule names a host and a port, and porta never sees an HTTPS path.
 *   PORT  1..65535 in decimal without leading zeros or sign, or a range
 *         "A-B" of such numbers with A <= B spanning at most
 *         POLICY_NET_MAX_RANGE ports; 443 when absent.
 *   HOST  a name (policy_name_canonical: case and one trailing dot ignored);
 *         "*.SUFFIX" (SUFFIX and every name below it; SUFFIX needs two labels
 *         or more: "*.com" is refused, "*.co.uk" is accepted since porta ships
 *         no public suffix list); "*" (any name); a strict IPv4 "A.B.C.D";
 *         "[IPv6]"; an IPv4 CIDR "A.B.C.D/N"; an IPv6 CIDR "[IPv6/N]" (the
 *         prefix inside the brackets: the brackets hold the whole host, so
 *         the port after them is never ambiguous; "[fd00::]/8" is refused
 *         with a hint).
 * Refused at start, each with its own status: port 0, leading zeros,
 * overflow, reversed or oversized ranges; a name rule for localhost or a name
 * under it, or for a cloud metadata name; "*.X" over one label; a name that
 * is an IP literal in disguise ("127.1", "0x7f000001"); an unbracketed IPv6;
 * a zone id; a CIDR with host bits set.
 */
#ifndef PORTA_POLICY_NETRULE_H
#define PORTA_POLICY_NETRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"
#include "policy/names.h"

#define POLICY_NET_DEFAULT_PORT 443
#define POLICY_NET_MAX_RANGE 1024 /* ports in one range: one listener each */
/* Longest rule text a valid rule can have: "*." + 253 + ":65535-65535", or
 * "[" + 45 + "/128]:65535-65535"; longer input is refused as too long. */
#define POLICY_NET_RULE_TEXT_MAX 272
#define POLICY_NET_MAX_RULES 1024 /* rules in one run, after splitting commas */

enum policy_net_rule_kind {
	POLICY_NET_RULE_NAME,   /* exactly one name */
	POLICY_NET_RULE_SUFFIX, /* a name and every name below it */
	POLICY_NET_RULE_ANY,    /* "*": any name (never an address) */
	POLICY_NET_RULE_ADDR,   /* one address (net.prefix is 32 or 128) */
	POLICY_NET_RULE_CIDR,   /* a block of addresses */
};

enum policy_net_action {
	POLICY_NET_ALLOW,
	POLICY_NET_DENY,
};

enum policy_net_scope {
	POLICY_NET_SCOPE_ALL,   /* --allow-net/--deny-net: every connection */
	POLICY_NET_SCOPE_PROXY, /* --proxy-allow/--proxy-deny: proxied requests only */
};

struct policy_net_rule {
	enum policy_net_rule_kind kind;
	enum policy_net_action action;
	enum policy_net_scope scope;
	/* NAME: the canonical name; SUFFIX: "*." and the canonical suffix (a
	 * pattern for policy_name_matches()); ANY: "*"; else empty */
	char pattern[POLICY_NAME_MAX + 3];
	struct policy_cidr net; /* ADDR, CIDR; an IPv4-mapped IPv6 address or block
				 * (prefix >= 96) is stored as the IPv4 one */
	uint16_t port_lo, port_hi; /* inclusive, 1 <= lo <= hi */
	char text[POLICY_NET_RULE_TEXT_MAX + 1]; /* the rule as given, for audit and explain */
};

enum policy_net_rule_status {
	POLICY_NET_RULE_OK,
	POLICY_NET_RULE_EMPTY,          /* "" or an empty HOST */
	POLICY_NET_RULE_TOO_LONG,       /* longer than POLICY_NET_RULE_TEXT_MAX */
	POLICY_NET_RULE_BAD_NAME,       /* HOST is no valid name */
	POLICY_NET_RULE_BAD_WILDCARD,   /* '*' anywhere but "*" or a leading "*." */
	POLICY_NET_RULE_TLD_WILDCARD,   /* "*.com": a whole top-level domain */
	POLICY_NET_RULE_LOCALHOST,      /* localhost, *.localhost, x.localhost */
	POLICY_NET_RULE_METADATA_NAME,  /* metadata.google.internal, ... */
	POLICY_NET_RULE_IP_SPELLING,    /* "127.1", "0x7f000001", "010.0.0.1" */
	POLICY_NET_RULE_BAD_ADDR,       /* a malformed IPv4/IPv6 literal or CIDR */
	POLICY_NET_RULE_UNBRACKETED_V6, /* "::1:443": IPv6 needs brackets */
	POLICY_NET_RULE_ZONE_ID,        /* "[fe80::1%eth0]" */
	POLICY_NET_RULE_HOST_BITS,      /* "10.0.0.1/8" */
	POLICY_NET_RULE_BAD_PORT,       /* not 1..65535 without leading zeros */
	POLICY_NET_RULE_PORT_ZERO,      /* ":0" */
	POLICY_NET_RULE_RANGE_REVERSED, /* "443-80" */
	POLICY_NET_RULE_RANGE_TOO_BIG,  /* more than POLICY_NET_MAX_RANGE ports */
	POLICY_NET_RULE_URL_SCHEME,     /* "ftp://host": not http(s) or ws(s) */
	POLICY_NET_RULE_URL_PATH,       /* "https://host/path": a rule cannot see paths */
	POLICY_NET_RULE_URL_USERINFO,   /* "https://user@host" */
	POLICY_NET_RULE_URL_RANGE,      /* "https://host:1-5": a URL names one port */
};

/* Parses one rule text[0..len) (one item of a comma-separated option value)
 * into *out, recording action and scope, which the option decides.  On
 * failure *out is unspecified.  Pure; text may hold any bytes. */
enum policy_net_rule_status policy_net_rule_parse(const char *text, size_t len,
						  enum policy_net_action action,
						  enum policy_net_scope scope,
						  struct policy_net_rule *out);

/* One short lowercase phrase saying why a rule was refused and what would
 * be accepted, for "--allow-net 'X': <reason>".  Never NULL. */
const char *policy_net_rule_reason(enum policy_net_rule_status st);

/* What a decision is asked about.  Fields that are not known are NULL. */
struct policy_net_query {
	const char *name;               /* canonical (policy_name_canonical() == OK) */
	const struct policy_addr *addr; /* the address that would be dialled */
	uint16_t port;
	bool via_proxy;                 /* proxy-scope rules apply too */
	const struct policy_addr *host_addrs; /* the host's own addresses */
	size_t n_host_addrs;
};

enum policy_net_verdict {
	POLICY_NET_NO_RULE, /* nothing allows it: refused */
	POLICY_NET_ALLOWED,
	POLICY_NET_DENIED,  /* a deny rule matched */
};

enum policy_net_reason {
	POLICY_NET_REASON_RULE,           /* the rule in the decision decided */
	POLICY_NET_REASON_NO_RULE,        /* no rule names this destination */
	POLICY_NET_REASON_DENIED_ADDRESS, /* a name rule matched, but the address is
					   * in a default-denied class */
	POLICY_NET_REASON_RESERVED_NAME,  /* localhost or a metadata name */
};

struct policy_net_decision {
	enum policy_net_verdict verdict;
	enum policy_net_reason reason;
	const struct policy_net_rule *rule;  /* the deciding rule (points into
					      * rules), NULL for NO_RULE */
	enum policy_addr_class addr_class;   /* class of q->addr on the host, PUBLIC when no addr */
};

/* Decides q against rules[0..n_rules).  The port is part of every rule.
 * Deny beats allow: the first matching deny rule decides, else the first
 * matching allow rule, else POLICY_NET_NO_RULE.  Address rules (ADDR, CIDR)
 * match q->addr (an IPv4-mapped address as its IPv4 address); name rules
 * (NAME, SUFFIX, ANY) match q->name, and an allow name rule never matches
 * when q->addr is in a default-denied class (policy_addr_class_on_host) or
 * when the name is reserved (policy_name_reserved).  Deny name rules match
 * whatever the address.  Returns out->verdict; out->rule points into rules.
 * Pure. */
enum policy_net_verdict policy_net_decide(const struct policy_net_rule *rules, size_t n_rules,
					  const struct policy_net_query *q,
					  struct policy_net_decision *out);

/* True when some port of the canonical name could be allowed by name rules
 * (the DNS responder's question: resolve it upstream or refuse it locally).
 * A name only reachable on ports that deny rules cover is not.  Pure. */
bool policy_net_name_resolvable(const struct policy_net_rule *rules, size_t n_rules,
				const char *name);

/* What a program named as its destination host (a CONNECT or SOCKS target,
 * an HTTP Host without its port, a proxy URL's host) turned into a name or an
 * address, as porta will decide on it. */
struct policy_net_target {
	bool is_addr;
	char name[POLICY_NAME_MAX + 1]; /* canonical, when !is_addr */
	struct policy_addr addr;        /* when is_addr */
};

enum policy_net_target_status {
	POLICY_NET_TARGET_OK,
	POLICY_NET_TARGET_MALFORMED, /* neither a canonical name nor an address */
};

/* Reads host[0..len): "[IPv6]" or a bare IPv6, a strict IPv4, any inet_aton
 * spelling of an IPv4 ("127.1", "2130706433": the address it spells, since
 * that is what a resolver library would dial), or a name (canonicalised).
 * A zone id is malformed.  Pure. */
enum policy_net_target_status policy_net_target_parse(const uint8_t *host, size_t len,
						      struct policy_net_target *out);

#endif /* PORTA_POLICY_NETRULE_H */
