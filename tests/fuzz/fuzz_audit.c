/* tests/fuzz/fuzz_audit.c: policy_audit_add() over every line of an input
 * (a --audit file as porta audit reads it), then the summary, the lock and
 * the drift check printed.  Checks that every record is counted once
 * (records = allowed + refused + closes), that a malformed line leaves the
 * counts as they were and says why, and that printing never fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/auditsum.h"
#include "policy/netrule.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy_audit a;
	char err[POLICY_AUDIT_ERR_MAX];
	policy_audit_init(&a);
	size_t pos = 0;
	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - data) : size;
		unsigned long before = a.records;
		enum policy_audit_status st =
			policy_audit_add(&a, (const char *)data + pos, end - pos, err);
		if (st == POLICY_AUDIT_MALFORMED && (a.records != before || !err[0]))
			abort();
		if (a.records != a.allowed + a.refused + a.closes)
			abort();
		pos = end + 1;
	}
	static char buf[1 << 16];
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	if (!out)
		abort();
	static const char *const files[] = { "fuzz.jsonl" };
	struct policy_net_rule rule;
	if (policy_net_rule_parse("*.lab.example:443", 17, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL,
				  &rule) != POLICY_NET_RULE_OK)
		abort();
	policy_audit_print(out, &a, false);
	policy_audit_print(out, &a, true);
	policy_audit_lock(out, &a, files, 1);
	if (policy_audit_against(out, &a, &rule, 1) > a.n)
		abort();
	fclose(out);
	policy_audit_free(&a);
	return 0;
}
