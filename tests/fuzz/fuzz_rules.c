/* tests/fuzz/fuzz_rules.c: network rules (policy/netrule.h).  The input is
 * "RULE\nHOST": RULE through policy_net_rule_parse(), HOST through
 * policy_net_target_parse(), then a decision on HOST at the rule's ports.
 * Invariants: an accepted rule is sound (ports 1..65535, lo <= hi, at most
 * POLICY_NET_MAX_RANGE, its text the input, canonical patterns) and parses
 * again to the same rule; a name rule never allows a default-denied address
 * or a reserved name; deny always wins. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/netrule.h"
#include "policy/reason.h"
#include "tests/fuzz/fuzz.h"

static void check_rule(const struct policy_net_rule *r, const char *text, size_t len)
{
	char canon[POLICY_NAME_MAX + 1];
	size_t cl;

	if (r->port_lo == 0 || r->port_lo > r->port_hi ||
	    (unsigned)r->port_hi - r->port_lo + 1 > POLICY_NET_MAX_RANGE)
		abort();
	if (strlen(r->text) != len || memcmp(r->text, text, len) != 0)
		abort();
	switch (r->kind) {
	case POLICY_NET_RULE_NAME:
		if (policy_name_canonical((const uint8_t *)r->pattern, strlen(r->pattern), canon,
					  &cl) != POLICY_NAME_OK ||
		    strcmp(canon, r->pattern) != 0 ||
		    policy_name_reserved(canon) != POLICY_NAME_NOT_RESERVED)
			abort();
		break;
	case POLICY_NET_RULE_SUFFIX:
		if (r->pattern[0] != '*' || r->pattern[1] != '.' || !strchr(r->pattern + 2, '.') ||
		    policy_name_canonical((const uint8_t *)r->pattern + 2, strlen(r->pattern + 2),
					  canon, &cl) != POLICY_NAME_OK ||
		    strcmp(canon, r->pattern + 2) != 0 ||
		    policy_name_reserved(canon) == POLICY_NAME_LOCALHOST)
			abort();
		break;
	case POLICY_NET_RULE_ANY:
		if (strcmp(r->pattern, "*") != 0)
			abort();
		break;
	case POLICY_NET_RULE_ADDR:
	case POLICY_NET_RULE_CIDR:
		if (r->pattern[0] != '\0' ||
		    !policy_cidr_contains(&r->net, &r->net.addr) ||
		    (r->kind == POLICY_NET_RULE_ADDR &&
		     r->net.prefix != (r->net.addr.family == POLICY_ADDR_V4 ? 32u : 128u)))
			abort();
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t rl = nl ? (size_t)(nl - data) : size;
	const uint8_t *host = nl ? nl + 1 : data;
	size_t hl = nl ? size - rl - 1 : size;
	struct policy_net_rule rules[2], again;

	/* exact-size copy so a read past the rule is an ASan report */
	char *text = malloc(rl ? rl : 1);
	if (!text)
		abort();
	memcpy(text, data, rl);
	enum policy_net_rule_status st =
		policy_net_rule_parse(text, rl, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, &rules[0]);
	if (!policy_net_rule_reason(st)[0])
		abort();
	if (st != POLICY_NET_RULE_OK) {
		free(text);
		(void)policy_net_target_parse(host, hl, &(struct policy_net_target){ 0 });
		return 0;
	}
	check_rule(&rules[0], text, rl);
	if (policy_net_rule_parse(rules[0].text, rl, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, &again) !=
		    POLICY_NET_RULE_OK ||
	    memcmp(&again, &rules[0], sizeof(again)) != 0)
		abort();
	rules[1] = rules[0];
	rules[1].action = POLICY_NET_DENY;
	free(text);

	struct policy_net_target t;
	if (policy_net_target_parse(host, hl, &t) != POLICY_NET_TARGET_OK)
		return 0;
	struct policy_net_query q = { .port = rules[0].port_lo };
	if (t.is_addr)
		q.addr = &t.addr;
	else
		q.name = t.name;
	struct policy_net_decision d;
	enum policy_net_verdict v = policy_net_decide(rules, 1, &q, &d);
	bool name_rule = rules[0].kind == POLICY_NET_RULE_NAME ||
			 rules[0].kind == POLICY_NET_RULE_SUFFIX || rules[0].kind == POLICY_NET_RULE_ANY;
	if (v == POLICY_NET_ALLOWED) {
		if (d.rule != &rules[0])
			abort();
		if (name_rule && (t.is_addr || policy_name_reserved(t.name) != POLICY_NAME_NOT_RESERVED))
			abort();
	} else if (d.rule != NULL || v != POLICY_NET_NO_RULE) {
		abort();
	}
	/* the same question with a default-denied address never passes a name rule */
	if (!t.is_addr) {
		struct policy_addr lo = { .family = POLICY_ADDR_V4, .b = { 127, 0, 0, 1 } };
		q.addr = &lo;
		if (policy_net_decide(rules, 1, &q, &d) == POLICY_NET_ALLOWED && name_rule)
			abort();
		q.addr = NULL;
	}
	/* deny wins */
	if (policy_net_decide(rules, 2, &q, &d) == POLICY_NET_ALLOWED)
		abort();
	if (v == POLICY_NET_ALLOWED && (d.verdict != POLICY_NET_DENIED || d.rule != &rules[1]))
		abort();
	if (policy_reason_code(policy_reason_of_net(&d)) == NULL)
		abort();
	if (!t.is_addr)
		(void)policy_net_name_resolvable(rules, 2, t.name);
	return 0;
}
