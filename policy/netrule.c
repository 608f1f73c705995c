/* policy/netrule.c: see netrule.h. */
#include "policy/netrule.h"

#include <stdio.h>
#include <string.h>

#include "common/ascii.h"

/* A port: 1..65535 in decimal, no sign, no leading zero (ascii.h).  "0" on
 * its own is the distinct PORT_ZERO. */
static enum policy_net_rule_status parse_port(const char *s, size_t n, uint16_t *out)
{
	if (n == 1 && s[0] == '0')
		return POLICY_NET_RULE_PORT_ZERO;
	return ascii_port_parse(s, n, out) ? POLICY_NET_RULE_OK : POLICY_NET_RULE_BAD_PORT;
}

static enum policy_net_rule_status parse_ports(const char *s, size_t n, uint16_t *lo,
					       uint16_t *hi)
{
	const char *dash = memchr(s, '-', n);
	enum policy_net_rule_status st;

	if (!dash) {
		st = parse_port(s, n, lo);
		*hi = *lo;
		return st;
	}
	st = parse_port(s, (size_t)(dash - s), lo);
	if (st != POLICY_NET_RULE_OK)
		return st;
	st = parse_port(dash + 1, n - (size_t)(dash - s) - 1, hi);
	if (st != POLICY_NET_RULE_OK)
		return st;
	if (*lo > *hi)
		return POLICY_NET_RULE_RANGE_REVERSED;
	if ((unsigned)*hi - *lo + 1 > POLICY_NET_MAX_RANGE)
		return POLICY_NET_RULE_RANGE_TOO_BIG;
	return POLICY_NET_RULE_OK;
}

static enum policy_net_rule_status from_addr_status(enum policy_addr_status st)
{
	switch (st) {
	case POLICY_ADDR_OK: return POLICY_NET_RULE_OK;
	case POLICY_ADDR_ZONE_ID: return POLICY_NET_RULE_ZONE_ID;
	case POLICY_ADDR_HOST_BITS: return POLICY_NET_RULE_HOST_BITS;
	case POLICY_ADDR_MALFORMED: break;
	}
	return POLICY_NET_RULE_BAD_ADDR;
}

/* An IPv4-mapped block (::ffff:a.b.c.d/N, N >= 96) is the IPv4 block it
 * maps: policy_net_decide() compares a mapped destination as its IPv4
 * address, so the rule must be stored the same way to match it.  A shorter
 * IPv6 block that covers the mapped range ("[::/0]") names IPv6 only. */
static void unmap_rule(struct policy_cidr *c)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (c->addr.family != POLICY_ADDR_V6 || c->prefix < 96 || memcmp(c->addr.b, mapped, 12))
		return;
	c->addr = policy_addr_unmap(&c->addr);
	c->prefix -= 96;
}

/* "[IPv6]" or "[IPv6/N]", the brackets already taken off. */
static enum policy_net_rule_status parse_v6_host(const char *h, size_t n,
						 struct policy_net_rule *out)
{
	enum policy_addr_status st;

	if (memchr(h, '/', n)) {
		st = policy_cidr_parse(h, n, &out->net);
		if (st == POLICY_ADDR_OK && out->net.addr.family != POLICY_ADDR_V6)
			return POLICY_NET_RULE_BAD_ADDR; /* "[10.0.0.0/8]": no brackets for IPv4 */
		out->kind = POLICY_NET_RULE_CIDR;
	} else {
		st = policy_addr_parse_ipv6(h, n, &out->net.addr);
		out->net.prefix = 128;
		out->kind = POLICY_NET_RULE_ADDR;
	}
	if (st == POLICY_ADDR_OK)
		unmap_rule(&out->net);
	return from_addr_status(st);
}

static enum policy_net_rule_status name_rule_status(enum policy_name_status st,
						    const char *canon)
{
	if (st == POLICY_NAME_NUMERIC)
		return POLICY_NET_RULE_IP_SPELLING;
	if (st != POLICY_NAME_OK)
		return POLICY_NET_RULE_BAD_NAME;
	switch (policy_name_reserved(canon)) {
	case POLICY_NAME_LOCALHOST: return POLICY_NET_RULE_LOCALHOST;
	case POLICY_NAME_METADATA: return POLICY_NET_RULE_METADATA_NAME;
	case POLICY_NAME_NOT_RESERVED: break;
	}
	return POLICY_NET_RULE_OK;
}

static enum policy_net_rule_status parse_host(const char *h, size_t n,
					      struct policy_net_rule *out)
{
	char canon[POLICY_NAME_MAX + 1];
	size_t cl;
	enum policy_net_rule_status st;

	if (n == 0)
		return POLICY_NET_RULE_EMPTY;
	if (n == 1 && h[0] == '*') {
		out->kind = POLICY_NET_RULE_ANY;
		memcpy(out->pattern, "*", 2);
		return POLICY_NET_RULE_OK;
	}
	if (n >= 2 && h[0] == '*' && h[1] == '.') {
		if (n == 2 || memchr(h + 2, '*', n - 2))
			return POLICY_NET_RULE_BAD_WILDCARD;
		st = name_rule_status(policy_name_canonical((const uint8_t *)h + 2, n - 2, canon, &cl),
				      canon);
		if (st != POLICY_NET_RULE_OK)
			return st;
		/* "*.com" would reach every name of a top-level domain: a
		 * rule that says nothing.  Without a public suffix list,
		 * "*.co.uk" cannot be told from "*.example.com". */
		if (!memchr(canon, '.', cl))
			return POLICY_NET_RULE_TLD_WILDCARD;
		out->kind = POLICY_NET_RULE_SUFFIX;
		out->pattern[0] = '*';
		out->pattern[1] = '.';
		memcpy(out->pattern + 2, canon, cl + 1);
		return POLICY_NET_RULE_OK;
	}
	if (memchr(h, '*', n))
		return POLICY_NET_RULE_BAD_WILDCARD;
	if (memchr(h, '/', n)) {
		out->kind = POLICY_NET_RULE_CIDR;
		return from_addr_status(policy_cidr_parse(h, n, &out->net));
	}
	if (policy_addr_parse_ipv4(h, n, &out->net.addr) == POLICY_ADDR_OK) {
		out->kind = POLICY_NET_RULE_ADDR;
		out->net.prefix = 32;
		return POLICY_NET_RULE_OK;
	}
	st = name_rule_status(policy_name_canonical((const uint8_t *)h, n, canon, &cl), canon);
	if (st != POLICY_NET_RULE_OK)
		return st;
	out->kind = POLICY_NET_RULE_NAME;
	memcpy(out->pattern, canon, cl + 1);
	return POLICY_NET_RULE_OK;
}

/* The URL schemes a rule accepts, and the port each means. */
static const struct {
	const char *scheme;
	uint16_t port;
} url_schemes[] = { { "http", 80 }, { "https", 443 }, { "ws", 80 }, { "wss", 443 } };

/* When text[0..len) starts with "SCHEME://", finds the authority inside it:
 * *auth and *auth_len, with *default_port the scheme's.  Returns OK for a
 * text that is no URL (nothing changed) or a URL whose authority was found,
 * or the URL's own refusal. */
static enum policy_net_rule_status url_authority(const char *text, size_t len,
						 const char **auth, size_t *auth_len,
						 uint16_t *default_port, bool *is_url)
{
	const char *sep = len >= 3 ? memmem(text, len, "://", 3) : NULL;

	*is_url = false;
	if (!sep)
		return POLICY_NET_RULE_OK;
	size_t scheme_len = (size_t)(sep - text);
	size_t i;
	for (i = 0; i < sizeof(url_schemes) / sizeof(url_schemes[0]); i++)
		if (ascii_eq_lit_nocase((const uint8_t *)text, scheme_len, url_schemes[i].scheme))
			break;
	if (i == sizeof(url_schemes) / sizeof(url_schemes[0]))
		return POLICY_NET_RULE_URL_SCHEME;
	*is_url = true;
	*default_port = url_schemes[i].port;
	const char *a = sep + 3, *end = text + len;
	const char *stop = a;
	while (stop < end && *stop != '/' && *stop != '?' && *stop != '#')
		stop++;
	/* only a lone "/" may follow the authority */
	if (stop < end && !(*stop == '/' && stop + 1 == end))
		return POLICY_NET_RULE_URL_PATH;
	if (memchr(a, '@', (size_t)(stop - a)))
		return POLICY_NET_RULE_URL_USERINFO;
	*auth = a;
	*auth_len = (size_t)(stop - a);
	return POLICY_NET_RULE_OK;
}

enum policy_net_rule_status policy_net_rule_parse(const char *text, size_t len,
						  enum policy_net_action action,
						  enum policy_net_scope scope,
						  struct policy_net_rule *out)
{
	const char *whole = text, *host = text, *port = NULL;
	size_t whole_len = len, host_len = len, port_len = 0;
	uint16_t default_port = POLICY_NET_DEFAULT_PORT;
	bool bracketed = false, is_url;
	enum policy_net_rule_status st;

	memset(out, 0, sizeof(*out));
	out->action = action;
	out->scope = scope;
	if (len == 0)
		return POLICY_NET_RULE_EMPTY;
	if (len > POLICY_NET_RULE_TEXT_MAX)
		return POLICY_NET_RULE_TOO_LONG;
	st = url_authority(whole, whole_len, &text, &len, &default_port, &is_url);
	if (st != POLICY_NET_RULE_OK)
		return st;
	if (len == 0)
		return POLICY_NET_RULE_EMPTY;
	host = text;
	host_len = len;

	if (text[0] == '[') {
		const char *close = memchr(text, ']', len);
		if (!close)
			return POLICY_NET_RULE_BAD_ADDR;
		bracketed = true;
		host = text + 1;
		host_len = (size_t)(close - host);
		const char *rest = close + 1;
		size_t rest_len = len - (size_t)(rest - text);
		if (rest_len > 0) {
			if (rest[0] != ':')
				return POLICY_NET_RULE_BAD_ADDR; /* "[fd00::]/8": see netrule.h */
			port = rest + 1;
			port_len = rest_len - 1;
		}
	} else {
		const char *colon = memchr(text, ':', len);
		if (colon) {
			if (memchr(colon + 1, ':', len - (size_t)(colon - text) - 1))
				return POLICY_NET_RULE_UNBRACKETED_V6;
			host_len = (size_t)(colon - text);
			port = colon + 1;
			port_len = len - host_len - 1;
		}
	}

	/* left to right: the host's refusal is reported before the port's */
	if (bracketed)
		st = host_len ? parse_v6_host(host, host_len, out) : POLICY_NET_RULE_BAD_ADDR;
	else
		st = parse_host(host, host_len, out);
	if (st != POLICY_NET_RULE_OK)
		return st;
	if (port) {
		st = parse_ports(port, port_len, &out->port_lo, &out->port_hi);
		if (st != POLICY_NET_RULE_OK)
			return st;
		if (is_url && out->port_lo != out->port_hi)
			return POLICY_NET_RULE_URL_RANGE;
	} else {
		out->port_lo = out->port_hi = default_port;
	}
	/* the rule as the user wrote it: the audit's "rule" names it */
	memcpy(out->text, whole, whole_len);
	out->text[whole_len] = '\0';
	return POLICY_NET_RULE_OK;
}

const char *policy_net_rule_reason(enum policy_net_rule_status st)
{
	switch (st) {
	case POLICY_NET_RULE_OK: return "ok";
	case POLICY_NET_RULE_EMPTY: return "empty host; expected HOST[:PORT]";
	case POLICY_NET_RULE_TOO_LONG: return "too long to be a host and port";
	case POLICY_NET_RULE_BAD_NAME:
		return "not a host name (ASCII letters, digits, '-' and '_' in dot-separated labels of 1 to 63 bytes, 253 in all; use punycode for other scripts)";
	case POLICY_NET_RULE_BAD_WILDCARD:
		return "'*' may only be the whole host or lead it as '*.SUFFIX'";
	case POLICY_NET_RULE_TLD_WILDCARD:
		return "a wildcard over a whole top-level domain never names one service; name the domain, as '*.example.com'";
	case POLICY_NET_RULE_LOCALHOST:
		return "localhost names can never be reached through a name rule; allow the address, as 127.0.0.1:PORT";
	case POLICY_NET_RULE_METADATA_NAME:
		return "cloud metadata names can never be reached through a name rule; allow the address if this is really meant";
	case POLICY_NET_RULE_IP_SPELLING:
		return "a numeric host is an IP address; write it as a dotted quad A.B.C.D (or a CIDR A.B.C.D/N)";
	case POLICY_NET_RULE_BAD_ADDR:
		return "not an IP address or CIDR; expected A.B.C.D, A.B.C.D/N, [IPv6] or [IPv6/N]";
	case POLICY_NET_RULE_UNBRACKETED_V6:
		return "an IPv6 address goes in brackets: [2001:db8::1]:443, [fd00::/8]:22";
	case POLICY_NET_RULE_ZONE_ID: return "IPv6 zone ids ('%' and an interface) are not accepted";
	case POLICY_NET_RULE_HOST_BITS:
		return "the CIDR has bits set below its prefix; write the network address (10.0.0.0/8)";
	case POLICY_NET_RULE_BAD_PORT:
		return "the port must be a number from 1 to 65535 without leading zeros, or a range A-B";
	case POLICY_NET_RULE_PORT_ZERO: return "port 0 can never be connected to; expected 1 to 65535";
	case POLICY_NET_RULE_RANGE_REVERSED: return "the port range ends before it starts; expected A-B with A <= B";
	case POLICY_NET_RULE_RANGE_TOO_BIG: return "a port range may span at most 1024 ports";
	case POLICY_NET_RULE_URL_SCHEME:
		return "a URL rule is http://, https://, ws:// or wss://HOST[:PORT]; otherwise write HOST:PORT";
	case POLICY_NET_RULE_URL_PATH:
		return "a rule names a host and a port, not a path (porta never sees an HTTPS path); write the URL without it, as https://HOST";
	case POLICY_NET_RULE_URL_USERINFO:
		return "a rule names a host and a port; leave the user name out of the URL";
	case POLICY_NET_RULE_URL_RANGE:
		return "a URL names one port; for a range write HOST:A-B";
	}
	return "malformed rule";
}

static bool is_name_rule(const struct policy_net_rule *r)
{
	return r->kind == POLICY_NET_RULE_NAME || r->kind == POLICY_NET_RULE_SUFFIX ||
	       r->kind == POLICY_NET_RULE_ANY;
}

/* The first (last == false) or last address of the block c. */
static struct policy_addr cidr_edge(const struct policy_cidr *c, bool last)
{
	struct policy_addr a = c->addr;
	size_t len = a.family == POLICY_ADDR_V4 ? 4 : 16;

	for (size_t bit = c->prefix; bit < len * 8; bit++) {
		uint8_t m = (uint8_t)(0x80u >> (bit % 8));
		if (last)
			a.b[bit / 8] |= m;
		else
			a.b[bit / 8] &= (uint8_t)~m;
	}
	return a;
}

/* docs/design.md: a default-denied address is reached "only by an explicit IP or
 * CIDR rule".  A block that merely contains it (0.0.0.0/0, [::/0], 0.0.0.0/1)
 * is a rule for the public internet, not for the host's loopback, its own
 * addresses or the metadata service: the block must lie within the class it
 * reaches, which for blocks (aligned ranges) over these classes comes down
 * to its first and last addresses both being of that class. */
static bool cidr_names_class(const struct policy_cidr *net, enum policy_addr_class want,
			     const struct policy_net_query *q)
{
	struct policy_addr first = cidr_edge(net, false), last = cidr_edge(net, true);
	return policy_addr_class_on_host(&first, q->host_addrs, q->n_host_addrs) == want &&
	       policy_addr_class_on_host(&last, q->host_addrs, q->n_host_addrs) == want;
}

enum policy_net_verdict policy_net_decide(const struct policy_net_rule *rules, size_t n_rules,
					  const struct policy_net_query *q,
					  struct policy_net_decision *out)
{
	const struct policy_net_rule *deny = NULL, *allow = NULL;
	bool blocked_addr = false, blocked_name = false;
	struct policy_addr addr;
	enum policy_name_reserved reserved = POLICY_NAME_NOT_RESERVED;

	out->addr_class = POLICY_ADDR_PUBLIC;
	if (q->addr) {
		addr = policy_addr_unmap(q->addr);
		out->addr_class = policy_addr_class_on_host(q->addr, q->host_addrs, q->n_host_addrs);
	}
	if (q->name)
		reserved = policy_name_reserved(q->name);

	for (size_t i = 0; i < n_rules; i++) {
		const struct policy_net_rule *r = &rules[i];
		bool m;

		if (r->scope == POLICY_NET_SCOPE_PROXY && !q->via_proxy)
			continue;
		if (q->port < r->port_lo || q->port > r->port_hi)
			continue;
		if (is_name_rule(r))
			m = q->name && policy_name_matches(r->pattern, q->name);
		else
			m = q->addr && policy_cidr_contains(&r->net, &addr);
		if (!m)
			continue;
		if (r->action == POLICY_NET_DENY) {
			if (!deny)
				deny = r;
			continue;
		}
		/* docs/design.md: address classes no hostname rule can reach */
		if (is_name_rule(r) && reserved != POLICY_NAME_NOT_RESERVED) {
			blocked_name = true;
			continue;
		}
		if (is_name_rule(r) && out->addr_class != POLICY_ADDR_PUBLIC) {
			blocked_addr = true;
			continue;
		}
		if (!is_name_rule(r) && out->addr_class != POLICY_ADDR_PUBLIC &&
		    !cidr_names_class(&r->net, out->addr_class, q)) {
			blocked_addr = true;
			continue;
		}
		if (!allow)
			allow = r;
	}

	out->rule = deny ? deny : allow;
	if (deny) {
		out->verdict = POLICY_NET_DENIED;
		out->reason = POLICY_NET_REASON_RULE;
	} else if (allow) {
		out->verdict = POLICY_NET_ALLOWED;
		out->reason = POLICY_NET_REASON_RULE;
	} else {
		out->verdict = POLICY_NET_NO_RULE;
		out->reason = blocked_name   ? POLICY_NET_REASON_RESERVED_NAME
			      : blocked_addr ? POLICY_NET_REASON_DENIED_ADDRESS
					     : POLICY_NET_REASON_NO_RULE;
	}
	return out->verdict;
}

bool policy_net_name_resolvable(const struct policy_net_rule *rules, size_t n_rules,
				const char *name)
{
	struct policy_net_query q = { .name = name };
	struct policy_net_decision d;

	/* Only rules for every connection count: a proxied request hands its
	 * name to porta, so the program never needs to resolve it.  The
	 * allowed ports are the allow ranges minus the deny ranges; if that
	 * set is not empty it holds an allow range's start or the port just
	 * after a deny range's end, so those are the ports to try. */
	for (size_t i = 0; i < n_rules; i++) {
		const struct policy_net_rule *r = &rules[i];
		if (r->scope != POLICY_NET_SCOPE_ALL || !is_name_rule(r) ||
		    !policy_name_matches(r->pattern, name))
			continue;
		unsigned cand = r->action == POLICY_NET_ALLOW ? r->port_lo : (unsigned)r->port_hi + 1;
		if (cand > 65535)
			continue;
		q.port = (uint16_t)cand;
		if (policy_net_decide(rules, n_rules, &q, &d) == POLICY_NET_ALLOWED)
			return true;
	}
	return false;
}

enum policy_net_target_status policy_net_target_parse(const uint8_t *host, size_t len,
						      struct policy_net_target *out)
{
	size_t cl;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return POLICY_NET_TARGET_MALFORMED;
	if (host[0] == '[') {
		if (len < 2 || host[len - 1] != ']')
			return POLICY_NET_TARGET_MALFORMED;
		out->is_addr = true;
		return policy_addr_parse_ipv6((const char *)host + 1, len - 2, &out->addr) ==
				       POLICY_ADDR_OK
			       ? POLICY_NET_TARGET_OK
			       : POLICY_NET_TARGET_MALFORMED;
	}
	if (memchr(host, ':', len)) {
		out->is_addr = true;
		return policy_addr_parse_ipv6((const char *)host, len, &out->addr) == POLICY_ADDR_OK
			       ? POLICY_NET_TARGET_OK
			       : POLICY_NET_TARGET_MALFORMED;
	}
	switch (policy_name_canonical(host, len, out->name, &cl)) {
	case POLICY_NAME_OK:
		return POLICY_NET_TARGET_OK;
	case POLICY_NAME_NUMERIC:
		/* what getaddrinfo()/inet_aton() would dial for this text */
		out->is_addr = true;
		if (policy_addr_parse_loose_ipv4(out->name, cl, &out->addr) == POLICY_ADDR_OK) {
			out->name[0] = '\0';
			return POLICY_NET_TARGET_OK;
		}
		break;
	case POLICY_NAME_MALFORMED:
		break;
	}
	memset(out, 0, sizeof(*out));
	return POLICY_NET_TARGET_MALFORMED;
}
