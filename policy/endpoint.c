/* policy/endpoint.c: see endpoint.h. */
#include "policy/endpoint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum policy_endpoint_status policy_endpoint_parse(const char *text, size_t len,
						  struct policy_endpoint *out,
						  enum policy_net_rule_status *rule_status)
{
	struct policy_net_rule r;

	memset(out, 0, sizeof(*out));
	/* the action and scope mean nothing here: only the host and ports are kept */
	*rule_status = policy_net_rule_parse(text, len, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, &r);
	if (*rule_status != POLICY_NET_RULE_OK)
		return POLICY_ENDPOINT_RULE;
	switch (r.kind) {
	case POLICY_NET_RULE_SUFFIX:
	case POLICY_NET_RULE_ANY:
		return POLICY_ENDPOINT_WILDCARD;
	case POLICY_NET_RULE_CIDR:
		return POLICY_ENDPOINT_CIDR;
	case POLICY_NET_RULE_NAME:
		/* netrule.c stores the canonical name, reserved names already refused */
		memcpy(out->name, r.pattern, sizeof(out->name) - 1);
		break;
	case POLICY_NET_RULE_ADDR:
		out->is_addr = true;
		out->addr = r.net.addr; /* netrule.c unmaps ::ffff:a.b.c.d already */
		break;
	}
	if (r.port_lo != r.port_hi)
		return POLICY_ENDPOINT_PORT_RANGE;
	out->port = r.port_lo;
	return POLICY_ENDPOINT_OK;
}

const char *policy_endpoint_reason(enum policy_endpoint_status st)
{
	switch (st) {
	case POLICY_ENDPOINT_OK: return "ok";
	case POLICY_ENDPOINT_RULE: return "not a host";
	case POLICY_ENDPOINT_WILDCARD:
		return "a wildcard names hosts nobody listed; name each host, as api.example";
	case POLICY_ENDPOINT_CIDR:
		return "a CIDR block names hosts nobody listed; name each host or address";
	case POLICY_ENDPOINT_PORT_RANGE:
		return "a port range names several services; give one port, as api.example:8443";
	}
	return "not a single host and port";
}

bool policy_endpoint_equal(const struct policy_endpoint *a, const struct policy_endpoint *b)
{
	if (a->is_addr != b->is_addr || a->port != b->port)
		return false;
	return a->is_addr ? policy_addr_equal(&a->addr, &b->addr) : strcmp(a->name, b->name) == 0;
}

bool policy_endpoint_matches(const struct policy_endpoint *ep, const struct policy_net_target *host,
			     uint16_t port)
{
	if (ep->port != port || ep->is_addr != host->is_addr)
		return false;
	if (ep->is_addr) {
		struct policy_addr a = policy_addr_unmap(&host->addr);
		return policy_addr_equal(&ep->addr, &a);
	}
	return strcmp(ep->name, host->name) == 0;
}

char *policy_endpoint_format(const struct policy_endpoint *ep, uint16_t omit_port,
			     char out[POLICY_ENDPOINT_STRLEN])
{
	char a[POLICY_ADDR_STRLEN];
	int n;

	if (!ep->is_addr)
		n = snprintf(out, POLICY_ENDPOINT_STRLEN, "%s", ep->name);
	else if (ep->addr.family == POLICY_ADDR_V4)
		n = snprintf(out, POLICY_ENDPOINT_STRLEN, "%s", policy_addr_format(&ep->addr, a));
	else
		n = snprintf(out, POLICY_ENDPOINT_STRLEN, "[%s]", policy_addr_format(&ep->addr, a));
	if (ep->port != omit_port && n > 0 && (size_t)n < POLICY_ENDPOINT_STRLEN)
		snprintf(out + n, POLICY_ENDPOINT_STRLEN - (size_t)n, ":%u", (unsigned)ep->port);
	return out;
}

char *policy_quote(const char *text, size_t len, size_t max_in, char *out, size_t cap)
{
	size_t o = 0;

	if (cap < max_in * 4 + 4) {
		if (cap)
			out[0] = '\0';
		return out;
	}
	for (size_t i = 0; i < len && i < max_in; i++) {
		uint8_t c = (uint8_t)text[i];
		/* the message is one line on a terminal: no control bytes, and
		 * the quote that delimits the user's words is escaped too */
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
	}
	if (len > max_in) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

void policy_say(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (cap == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}
