/* tests/unit/policy/test_reason.c: the decisions' vocabulary and the hints
 * built from it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "policy/reason.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

Test(reason, every_row_is_filled_and_its_words_are_its_code_spaced)
{
	for (int r = 0; r < POLICY_REASON_COUNT_; r++) {
		const struct policy_reason_info *ri = policy_reason_info((enum policy_reason)r);
		cr_assert_neq(ri, policy_reason_info((enum policy_reason)POLICY_REASON_COUNT_),
			      "reason %d has no row", r);
		/* stderr has always printed the code with spaces for dashes */
		char spaced[64];
		snprintf(spaced, sizeof(spaced), "%s", ri->code);
		for (char *p = spaced; *p; p++)
			if (*p == '-')
				*p = ' ';
		cr_expect_str_eq(ri->words, spaced, "reason %d", r);
		/* the summary keeps 23 characters of the words */
		cr_expect_lt(strlen(ri->words), 24, "%s", ri->words);
		/* allows are neither hinted nor counted; refusals are counted */
		if (ri->verdict == POLICY_VERDICT_ALLOW)
			cr_expect(ri->hint == POLICY_HINT_NONE && ri->tally == POLICY_TALLY_NONE, "%s",
				  ri->code);
		else
			cr_expect_neq(ri->tally, POLICY_TALLY_NONE, "%s", ri->code);
	}
	cr_expect_str_eq(policy_reason_code((enum policy_reason)POLICY_REASON_COUNT_), "refused");
}

Test(reason, codes_as_the_audit_has_always_written_them)
{
	static const struct {
		enum policy_reason r;
		const char *code;
		enum policy_verdict v;
	} want[] = {
		{ POLICY_REASON_ALLOW, "allow", POLICY_VERDICT_ALLOW },
		{ POLICY_REASON_CLOSED_IDLE, "idle", POLICY_VERDICT_ALLOW },
		{ POLICY_REASON_IDLE, "idle", POLICY_VERDICT_ERROR },
		{ POLICY_REASON_SOME_DENIED, "denied-address", POLICY_VERDICT_ALLOW },
		{ POLICY_REASON_DENIED_ADDRESS, "denied-address", POLICY_VERDICT_DENY },
		{ POLICY_REASON_NO_RULE, "no-rule", POLICY_VERDICT_DENY },
		{ POLICY_REASON_PORT_NOT_OPEN, "port-not-open", POLICY_VERDICT_DENY },
		{ POLICY_REASON_UPSTREAM_TIMEOUT, "upstream-timeout", POLICY_VERDICT_ERROR },
		{ POLICY_REASON_LIMIT, "limit", POLICY_VERDICT_ERROR },
	};
	for (size_t i = 0; i < N_ELEMS(want); i++) {
		cr_expect_str_eq(policy_reason_code(want[i].r), want[i].code);
		cr_expect_eq(policy_reason_verdict(want[i].r), want[i].v, "%s", want[i].code);
	}
	cr_expect_str_eq(policy_reason_words(POLICY_REASON_NO_RULE), "no rule");
	cr_expect_str_eq(policy_verdict_name(POLICY_VERDICT_DENY), "deny");
	cr_expect_eq(policy_reason_info(POLICY_REASON_LIMIT)->tally, POLICY_TALLY_LIMIT);
}

Test(reason, hints)
{
	struct policy_addr v4 = { .family = POLICY_ADDR_V4, .b = { 203, 0, 113, 5 } };
	struct policy_addr v6 = { .family = POLICY_ADDR_V6,
				  .b = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	static const char *const nul = NULL;
	struct {
		enum policy_reason r;
		struct policy_hint_facts f;
		const char *want;
	} v[] = {
		/* a name with the port it was asked on */
		{ POLICY_REASON_NO_RULE, { .name = "evil.test", .addr = &v4, .port = 80 },
		  "--allow-net evil.test:80" },
		/* a DNS question: no port was asked, none is made up */
		{ POLICY_REASON_NO_RULE, { .name = "evil.test" }, "--allow-net evil.test" },
		{ POLICY_REASON_NO_RULE, { .name = "evil.test", .proxy_only = true },
		  "--proxy-allow evil.test" },
		/* no name: the address */
		{ POLICY_REASON_NO_RULE, { .addr = &v4, .port = 22 }, "--allow-net 203.0.113.5:22" },
		{ POLICY_REASON_PORT_NOT_OPEN, { .addr = &v6, .port = 22 },
		  "--allow-net [2001:db8::1]:22" },
		/* a name the address was handed out for, on the port used */
		{ POLICY_REASON_PORT_NOT_OPEN, { .name = "allowed.test", .addr = &v4, .port = 80 },
		  "--allow-net allowed.test:80" },
		/* only an IP rule reaches these, whatever the name */
		{ POLICY_REASON_DENIED_ADDRESS, { .name = "loop.test", .addr = &v4, .port = 443 },
		  "--allow-net 203.0.113.5:443" },
		{ POLICY_REASON_NO_SNI, { .addr = &v4, .port = 443 }, "--allow-net 203.0.113.5:443" },
		/* nothing an option could allow */
		{ POLICY_REASON_DENIED_ADDRESS, { .name = "loop.test" }, "" },
		{ POLICY_REASON_DENY_RULE, { .name = "evil.test", .addr = &v4, .port = 443 }, "" },
		{ POLICY_REASON_MALFORMED_NAME, { .addr = &v4, .port = 443 }, "" },
		{ POLICY_REASON_UDP_NOT_FORWARDED, { .addr = &v4, .port = 443 }, "" },
		{ POLICY_REASON_ALLOW, { .name = "a.test", .port = 443 }, "" },
		{ POLICY_REASON_NO_RULE, { .name = nul }, "" },
		/* a name is escaped */
		{ POLICY_REASON_NO_RULE, { .name = "a\nb", .port = 1 }, "--allow-net a\\x0ab:1" },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		char out[POLICY_HINT_MAX];
		size_t n = policy_reason_hint(v[i].r, &v[i].f, out, sizeof(out));
		cr_expect_str_eq(out, v[i].want, "row %zu", i);
		cr_expect_eq(n, strlen(v[i].want), "row %zu", i);
	}
	/* too small: nothing rather than a cut option */
	char small[12];
	struct policy_hint_facts f = { .name = "evil.test", .port = 443 };
	cr_expect_eq(policy_reason_hint(POLICY_REASON_NO_RULE, &f, small, sizeof(small)), 0);
	cr_expect_str_eq(small, "");
}

Test(reason, of_net_decisions)
{
	struct policy_net_decision d = { .verdict = POLICY_NET_NO_RULE,
					 .reason = POLICY_NET_REASON_DENIED_ADDRESS };
	cr_expect_eq(policy_reason_of_net(&d), POLICY_REASON_DENIED_ADDRESS);
	d.reason = POLICY_NET_REASON_RESERVED_NAME;
	cr_expect_eq(policy_reason_of_net(&d), POLICY_REASON_RESERVED_NAME);
	d.reason = POLICY_NET_REASON_NO_RULE;
	cr_expect_eq(policy_reason_of_net(&d), POLICY_REASON_NO_RULE);
	d.verdict = POLICY_NET_DENIED;
	cr_expect_eq(policy_reason_of_net(&d), POLICY_REASON_DENY_RULE);
	d.verdict = POLICY_NET_ALLOWED;
	cr_expect_eq(policy_reason_of_net(&d), POLICY_REASON_ALLOW);
}
