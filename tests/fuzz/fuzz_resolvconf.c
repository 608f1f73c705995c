/* tests/fuzz/fuzz_resolvconf.c: the nameserver lines of a resolv.conf text
 * (wire/resolvconf.h) on the whole input.  Invariants: every token lies
 * inside the input, inside one line, is not empty and holds no byte that
 * ends a token; *pos only moves forward; and the first token that is an
 * address (what dnsd_resolvconf_parse takes) formats and reads back, in a
 * "nameserver" line of its own, as the same address. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/addr.h"
#include "tests/fuzz/fuzz.h"
#include "wire/resolvconf.h"

static const struct wire_span *first_address(const uint8_t *conf, size_t len,
					     struct wire_span *tok, struct policy_addr *addr)
{
	size_t pos = 0, before;

	for (;;) {
		before = pos;
		if (!wire_resolvconf_nameserver(conf, len, &pos, tok))
			return NULL;
		if (pos <= before || pos > len || tok->n == 0 || tok->p < conf + before ||
		    tok->p + tok->n > conf + pos)
			abort();
		for (size_t i = 0; i < tok->n; i++) {
			uint8_t c = tok->p[i];
			if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '#')
				abort();
		}
		if (policy_addr_parse((const char *)tok->p, tok->n, addr) == POLICY_ADDR_OK)
			return tok;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_span tok, again_tok;
	struct policy_addr addr, again, back;
	char line[POLICY_ADDR_STRLEN + 16], text[POLICY_ADDR_STRLEN];

	if (!first_address(data, size, &tok, &addr))
		return 0;
	policy_addr_format(&addr, text);
	if (policy_addr_parse(text, strlen(text), &back) != POLICY_ADDR_OK ||
	    !policy_addr_equal(&back, &addr))
		abort();
	int n = snprintf(line, sizeof(line), "nameserver %s\n", text);
	if (!first_address((const uint8_t *)line, (size_t)n, &again_tok, &again) ||
	    !policy_addr_equal(&again, &addr))
		abort();
	return 0;
}
