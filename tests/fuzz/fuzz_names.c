/* tests/fuzz/fuzz_names.c: host names (policy/names.h) and address text
 * (policy/addr.h) on the whole input.  Invariants: canonical output is made
 * of label bytes only and is idempotent; suffix matching ends at a label
 * boundary; every address the parsers accept formats and parses back to
 * itself; a CIDR holds its own network address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/addr.h"
#include "policy/names.h"
#include "tests/fuzz/fuzz.h"

/* The reference meaning of "*.S" against N (docs/design.md): N is S, or N ends
 * in "." followed by S. */
static bool ref_suffix_match(const char *suffix, const char *n)
{
	size_t sl = strlen(suffix), nl = strlen(n);
	if (nl == sl)
		return strcmp(n, suffix) == 0;
	return nl > sl && n[nl - sl - 1] == '.' && strcmp(n + nl - sl, suffix) == 0;
}

static void check_canonical(const uint8_t *data, size_t size)
{
	char out[POLICY_NAME_MAX + 1], again[POLICY_NAME_MAX + 1];
	size_t ol, al;
	enum policy_name_status st = policy_name_canonical(data, size, out, &ol);

	if (out[ol] != '\0')
		abort();
	if (st == POLICY_NAME_MALFORMED)
		return;
	if (st != POLICY_NAME_OK && st != POLICY_NAME_NUMERIC)
		abort();
	if (ol == 0 || ol > POLICY_NAME_MAX || strlen(out) != ol || out[0] == '.' ||
	    out[ol - 1] == '.' || strstr(out, ".."))
		abort();
	for (size_t i = 0; i < ol; i++) {
		char c = out[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			abort();
	}
	/* idempotent, and the same status */
	if (policy_name_canonical((const uint8_t *)out, ol, again, &al) != st || al != ol ||
	    memcmp(out, again, ol) != 0)
		abort();
	/* the input was the output, up to case and one trailing dot */
	if (size != ol && size != ol + 1)
		abort();
	if (!policy_name_matches(out, out) || !policy_name_matches("*", out))
		abort();
	char pat[POLICY_NAME_MAX + 3] = "*.";
	memcpy(pat + 2, out, ol + 1);
	if (!policy_name_matches(pat, out))
		abort();
	(void)policy_name_reserved(out);
	if (st == POLICY_NAME_NUMERIC) {
		struct policy_addr a;
		(void)policy_addr_parse_loose_ipv4(out, ol, &a);
	}

	/* split at each dot: "*.S" matches the name below S, and the name
	 * with that dot removed only if it is S or ends in ".S" */
	for (size_t i = 0; i < ol; i++) {
		if (out[i] != '.')
			continue;
		memcpy(pat + 2, out + i + 1, ol - i);
		if (!policy_name_matches(pat, out))
			abort();
		char glued[POLICY_NAME_MAX + 1];
		memcpy(glued, out, i);
		memcpy(glued + i, out + i + 1, ol - i);
		if (policy_name_matches(pat, glued) != ref_suffix_match(pat + 2, glued))
			abort();
	}
}

static void check_addr(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct policy_addr a, b;
	struct policy_cidr c;
	char text[POLICY_ADDR_STRLEN];

	if (policy_addr_parse(s, size, &a) == POLICY_ADDR_OK) {
		policy_addr_format(&a, text);
		if (strlen(text) >= POLICY_ADDR_STRLEN ||
		    policy_addr_parse(text, strlen(text), &b) != POLICY_ADDR_OK ||
		    !policy_addr_equal(&a, &b))
			abort();
		enum policy_addr_class k = policy_addr_class(&a);
		if (policy_addr_default_denied(&a) != (k != POLICY_ADDR_PUBLIC))
			abort();
		enum policy_addr_class h = policy_addr_class_on_host(&a, &a, 1);
		if (h == POLICY_ADDR_PUBLIC || (k != POLICY_ADDR_PUBLIC && h != k))
			abort();
		/* the mapped spelling is judged as the IPv4 address */
		if (a.family == POLICY_ADDR_V4) {
			memset(&b, 0, sizeof(b));
			b.family = POLICY_ADDR_V6;
			b.b[10] = b.b[11] = 0xff;
			memcpy(b.b + 12, a.b, 4);
			if (policy_addr_class(&b) != k)
				abort();
		}
		(void)policy_addr_class_name(k);
	}
	if (policy_addr_parse_loose_ipv4(s, size, &a) == POLICY_ADDR_OK && a.family != POLICY_ADDR_V4)
		abort();
	if (policy_cidr_parse(s, size, &c) == POLICY_ADDR_OK) {
		if (c.prefix > (c.addr.family == POLICY_ADDR_V4 ? 32u : 128u) ||
		    !policy_cidr_contains(&c, &c.addr))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_canonical(data, size);
	check_addr(data, size);
	return 0;
}
