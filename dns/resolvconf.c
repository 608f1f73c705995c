/* dns/resolvconf.c: see resolvconf.h. */
#include "dns/resolvconf.h"

#include <string.h>

#include "common/ascii.h"
#include "wire/resolvconf.h"

/* "1".."65535", decimal, no leading zero, no sign (ascii.h). */
static enum dnsd_server_status parse_port(const char *s, size_t n, uint16_t *out)
{
	return ascii_port_parse(s, n, out) ? DNSD_SERVER_OK : DNSD_SERVER_BAD_PORT;
}

static enum dnsd_server_status from_addr_status(enum policy_addr_status st)
{
	switch (st) {
	case POLICY_ADDR_OK: return DNSD_SERVER_OK;
	case POLICY_ADDR_ZONE_ID: return DNSD_SERVER_ZONE_ID;
	case POLICY_ADDR_MALFORMED:
	case POLICY_ADDR_HOST_BITS: break;
	}
	return DNSD_SERVER_MALFORMED;
}

enum dnsd_server_status dnsd_server_parse(const char *text, size_t len, struct dnsd_server *out)
{
	struct dnsd_server s = { .port = DNSD_DEFAULT_PORT };
	enum dnsd_server_status st;

	if (len == 0)
		return DNSD_SERVER_MALFORMED;
	if (text[0] == '[') {
		const char *close = memchr(text, ']', len);
		if (!close)
			return DNSD_SERVER_MALFORMED;
		size_t alen = (size_t)(close - text) - 1;
		size_t rest = len - (size_t)(close - text) - 1;
		st = from_addr_status(policy_addr_parse_ipv6(text + 1, alen, &s.addr));
		if (st != DNSD_SERVER_OK)
			return st;
		if (rest > 0) {
			if (close[1] != ':')
				return DNSD_SERVER_MALFORMED;
			st = parse_port(close + 2, rest - 1, &s.port);
			if (st != DNSD_SERVER_OK)
				return st;
		}
	} else {
		const char *colon = memchr(text, ':', len);
		if (colon && memchr(colon + 1, ':', len - (size_t)(colon - text) - 1)) {
			/* two colons or more: a bare IPv6, which cannot carry
			 * a port ("::1:53" is itself an address) */
			st = from_addr_status(policy_addr_parse_ipv6(text, len, &s.addr));
		} else {
			size_t alen = colon ? (size_t)(colon - text) : len;
			st = from_addr_status(policy_addr_parse_ipv4(text, alen, &s.addr));
			if (st == DNSD_SERVER_OK && colon)
				st = parse_port(colon + 1, len - alen - 1, &s.port);
		}
		if (st != DNSD_SERVER_OK)
			return st;
	}
	*out = s;
	return DNSD_SERVER_OK;
}

size_t dnsd_resolvconf_servers(const uint8_t *conf, size_t len, struct dnsd_server *out,
			       size_t cap)
{
	struct wire_span tok;
	size_t pos = 0, n = 0;

	while (n < cap && wire_resolvconf_nameserver(conf, len, &pos, &tok)) {
		struct dnsd_server s = { .port = DNSD_DEFAULT_PORT };
		/* an IPv6 with a zone, or any other spelling: skipped, as glibc
		 * skips an address inet_pton(3) refuses */
		if (policy_addr_parse((const char *)tok.p, tok.n, &s.addr) == POLICY_ADDR_OK)
			out[n++] = s;
	}
	return n;
}

enum dnsd_server_status dnsd_resolvconf_parse(const uint8_t *conf, size_t len,
					      struct dnsd_server *out)
{
	return dnsd_resolvconf_servers(conf, len, out, 1) ? DNSD_SERVER_OK : DNSD_SERVER_NONE;
}

const char *dnsd_server_reason(enum dnsd_server_status st)
{
	switch (st) {
	case DNSD_SERVER_OK: return "ok";
	case DNSD_SERVER_MALFORMED:
		return "not an address: use A.B.C.D[:PORT] or [IPv6][:PORT]";
	case DNSD_SERVER_BAD_PORT: return "the port must be 1..65535 without leading zeros";
	case DNSD_SERVER_ZONE_ID: return "an IPv6 zone id cannot be used for the upstream resolver";
	case DNSD_SERVER_NONE:
		return "no usable nameserver in resolv.conf: name one with --dns-upstream";
	}
	return "unknown";
}
