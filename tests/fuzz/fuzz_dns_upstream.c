/* tests/fuzz/fuzz_dns_upstream.c: the upstream server parsers of dns/
 * (dns/resolvconf.h) on the whole input, as a resolv.conf text and as a
 * --dns-upstream value; replays the resolvconf corpus.  Invariants: an
 * accepted server has a port, an address that formats and parses back to
 * itself, and (from resolv.conf) port 53; a "nameserver" line made of the
 * accepted address is accepted again as that address. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns/resolvconf.h"
#include "tests/fuzz/fuzz.h"

static void check_server(const struct dnsd_server *s)
{
	char text[POLICY_ADDR_STRLEN];
	struct policy_addr back;

	if (s->port == 0)
		abort();
	if (s->addr.family != POLICY_ADDR_V4 && s->addr.family != POLICY_ADDR_V6)
		abort();
	policy_addr_format(&s->addr, text);
	if (policy_addr_parse(text, strlen(text), &back) != POLICY_ADDR_OK ||
	    !policy_addr_equal(&back, &s->addr))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnsd_server s, again;
	char line[POLICY_ADDR_STRLEN + 16], text[POLICY_ADDR_STRLEN];

	if (dnsd_resolvconf_parse(data, size, &s) == DNSD_SERVER_OK) {
		check_server(&s);
		if (s.port != 53)
			abort();
		int n = snprintf(line, sizeof(line), "nameserver %s\n", policy_addr_format(&s.addr, text));
		if (dnsd_resolvconf_parse((const uint8_t *)line, (size_t)n, &again) != DNSD_SERVER_OK ||
		    !policy_addr_equal(&again.addr, &s.addr))
			abort();
	}
	if (dnsd_server_parse((const char *)data, size, &s) == DNSD_SERVER_OK)
		check_server(&s);
	return 0;
}
