/* policy/reason.c: see reason.h. */
#include "policy/reason.h"

#include <stdio.h>
#include <string.h>

#include "common/log.h"

/* The one table.  The codes are what audit records have always carried, and
 * the words what stderr has always printed (the code with spaces), so the
 * output did not change when the strings became this table. */
static const struct policy_reason_info table[POLICY_REASON_COUNT_] = {
	[POLICY_REASON_ALLOW] = { "allow", "allow", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_CLOSED] = { "closed", "closed", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_CLOSED_RESET] = { "reset", "reset", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_CLOSED_IDLE] = { "idle", "idle", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_CLOSED_NO_MEMORY] = { "no-memory", "no memory", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_CLOSED_REFUSED] = { "refused", "refused", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_NOT_ADDRESS_TYPE] = { "not-address-type", "not address type", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_NXDOMAIN] = { "nxdomain", "nxdomain", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_SOME_DENIED] = { "denied-address", "denied address", POLICY_VERDICT_ALLOW, POLICY_HINT_NONE, POLICY_TALLY_NONE },
	[POLICY_REASON_NO_RULE] = { "no-rule", "no rule", POLICY_VERDICT_DENY, POLICY_HINT_DESTINATION, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_DENY_RULE] = { "deny-rule", "deny rule", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_DENIED_ADDRESS] = { "denied-address", "denied address", POLICY_VERDICT_DENY, POLICY_HINT_ADDRESS, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_RESERVED_NAME] = { "reserved-name", "reserved name", POLICY_VERDICT_DENY, POLICY_HINT_ADDRESS, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_MALFORMED_NAME] = { "malformed-name", "malformed name", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_IP_LITERAL_NAME] = { "ip-literal-name", "ip literal name", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UNSUPPORTED_CLASS] = { "unsupported-class", "unsupported class", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_SNI_MISMATCH] = { "sni-mismatch", "sni mismatch", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NO_SNI] = { "no-sni", "no sni", POLICY_VERDICT_DENY, POLICY_HINT_ADDRESS, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NO_HOST] = { "no-host", "no host", POLICY_VERDICT_DENY, POLICY_HINT_ADDRESS, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_DUPLICATE_HOST] = { "duplicate-host", "duplicate host", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_HOST_MISMATCH] = { "host-mismatch", "host mismatch", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_HOST_CHANGED] = { "host-changed", "host changed", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_SECRET_ELSEWHERE] = { "secret-elsewhere", "secret elsewhere", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_HTTP_NO_RULE] = { "http-no-rule", "http no rule", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_HTTP_REFUSED] = { "http-refused", "http refused", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UPSTREAM_UNVERIFIED] = { "upstream-unverified", "upstream unverified", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_MALFORMED_TLS] = { "malformed-tls", "malformed tls", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_MALFORMED_HTTP] = { "malformed-http", "malformed http", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_MALFORMED_SOCKS] = { "malformed-socks", "malformed socks", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NOT_PROXY_REQUEST] = { "not-proxy-request", "not proxy request", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UNSUPPORTED_COMMAND] = { "unsupported-command", "unsupported command", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UNSUPPORTED_ADDRESS] = { "unsupported-address", "unsupported address", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_SOCKS_NO_METHOD] = { "socks-no-method", "socks no method", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_SNIFF_TIMEOUT] = { "sniff-timeout", "sniff timeout", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_TOO_BIG] = { "too-big", "too big", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_PORT_NOT_OPEN] = { "port-not-open", "port not open", POLICY_VERDICT_DENY, POLICY_HINT_DESTINATION, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UDP_NOT_FORWARDED] = { "udp-not-forwarded", "udp not forwarded", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NOT_THROUGH_PROXY] = { "not-through-proxy", "not through proxy", POLICY_VERDICT_DENY, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_PROXY_ONLY] = { "only-through-proxy", "only through proxy", POLICY_VERDICT_DENY, POLICY_HINT_DESTINATION, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NO_NET] = { "no-net", "no net", POLICY_VERDICT_DENY, POLICY_HINT_DESTINATION, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_MALFORMED_QUERY] = { "malformed-query", "malformed query", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NOT_QUERY] = { "not-query", "not query", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NOT_IMPLEMENTED] = { "not-implemented", "not implemented", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_BAD_EDNS_VERSION] = { "bad-edns-version", "bad edns version", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UPSTREAM_TIMEOUT] = { "upstream-timeout", "upstream timeout", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UPSTREAM_ERROR] = { "upstream-error", "upstream error", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_UPSTREAM_MALFORMED] = { "upstream-malformed", "upstream malformed", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_TOO_MANY_QUERIES] = { "too-many-queries", "too many queries", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_TOO_MANY_CONNECTIONS] = { "too-many-connections", "too many connections", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_IDLE] = { "idle", "idle", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_RESET] = { "reset", "reset", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_WRITE_FAILED] = { "write-failed", "write failed", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_NO_MEMORY] = { "no-memory", "no memory", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_DIAL_FAILED] = { "dial-failed", "dial failed", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_RESOLVE_FAILED] = { "resolve-failed", "resolve failed", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION },
	[POLICY_REASON_LIMIT] = { "limit", "limit", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_LIMIT },
};

static const struct policy_reason_info unknown = {
	"refused", "refused", POLICY_VERDICT_ERROR, POLICY_HINT_NONE, POLICY_TALLY_DESTINATION,
};

const struct policy_reason_info *policy_reason_info(enum policy_reason r)
{
	if ((unsigned)r >= POLICY_REASON_COUNT_ || !table[r].code)
		return &unknown;
	return &table[r];
}

const char *policy_verdict_name(enum policy_verdict v)
{
	switch (v) {
	case POLICY_VERDICT_ALLOW: return "allow";
	case POLICY_VERDICT_DENY: return "deny";
	case POLICY_VERDICT_ERROR: return "error";
	}
	return "error";
}

enum policy_reason policy_reason_of_net(const struct policy_net_decision *d)
{
	if (d->verdict == POLICY_NET_ALLOWED)
		return POLICY_REASON_ALLOW;
	if (d->verdict == POLICY_NET_DENIED)
		return POLICY_REASON_DENY_RULE;
	switch (d->reason) {
	case POLICY_NET_REASON_DENIED_ADDRESS: return POLICY_REASON_DENIED_ADDRESS;
	case POLICY_NET_REASON_RESERVED_NAME: return POLICY_REASON_RESERVED_NAME;
	case POLICY_NET_REASON_RULE:
	case POLICY_NET_REASON_NO_RULE: break;
	}
	return POLICY_REASON_NO_RULE;
}

/* "OPTION addr:port", or "OPTION addr" when the port is not known. */
static size_t hint_addr(const char *opt, const struct policy_addr *a, uint16_t port, char *out,
			size_t cap)
{
	char t[POLICY_ADDR_STRLEN];
	int n;

	policy_addr_format(a, t);
	if (!port)
		n = snprintf(out, cap, "%s %s", opt, t);
	else if (a->family == POLICY_ADDR_V6)
		n = snprintf(out, cap, "%s [%s]:%u", opt, t, port);
	else
		n = snprintf(out, cap, "%s %s:%u", opt, t, port);
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t policy_reason_hint(enum policy_reason r, const struct policy_hint_facts *f, char *out,
			  size_t cap)
{
	const struct policy_reason_info *ri = policy_reason_info(r);
	/* On a host without user namespaces only proxied requests reach porta:
	 * the proxy-scope option is the one that helps there. */
	const char *opt = f->proxy_only ? "--proxy-allow" : "--allow-net";
	size_t n = 0;

	if (cap)
		out[0] = '\0';
	if (ri->verdict == POLICY_VERDICT_ALLOW)
		return 0;
	switch (ri->hint) {
	case POLICY_HINT_NONE:
		break;
	case POLICY_HINT_DESTINATION:
		if (f->name && f->name[0]) {
			char esc[4 * POLICY_NAME_MAX + 1];
			log_escape(f->name, strnlen(f->name, POLICY_NAME_MAX), esc, sizeof(esc));
			/* a DNS question has no port: the name alone, never a
			 * port the program did not ask for */
			int k = f->port ? snprintf(out, cap, "%s %s:%u", opt, esc, f->port)
					: snprintf(out, cap, "%s %s", opt, esc);
			n = k > 0 && (size_t)k < cap ? (size_t)k : 0;
			break;
		}
		/* no name: the address */
		__attribute__((fallthrough));
	case POLICY_HINT_ADDRESS:
		if (f->addr)
			n = hint_addr(opt, f->addr, f->port, out, cap);
		break;
	}
	if (!n && cap)
		out[0] = '\0';
	return n;
}
