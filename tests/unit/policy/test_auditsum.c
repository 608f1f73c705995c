/* tests/unit/policy/test_auditsum.c: `porta audit`'s summary, lock and
 * drift check over audit lines as decision/log.c writes them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/auditsum.h"
#include "policy/netrule.h"

static struct policy_audit a;
static char err[POLICY_AUDIT_ERR_MAX];

static void setup(void)
{
	policy_audit_init(&a);
}

static void teardown(void)
{
	policy_audit_free(&a);
}

TestSuite(auditsum, .init = setup, .fini = teardown);

static void add(const char *line)
{
	cr_assert_eq(policy_audit_add(&a, line, strlen(line), err), POLICY_AUDIT_OK, "%s: %s",
		     line, err);
}

static const struct policy_audit_dest *find(const char *name, unsigned port)
{
	for (size_t i = 0; i < a.n; i++)
		if (strcmp(a.dests[i].name, name) == 0 && a.dests[i].port == port)
			return &a.dests[i];
	cr_assert_fail("no destination %s:%u", name, port);
	return NULL;
}

/* The lines of a real run (tests/netlab: the HTTP proxy, an allowed host
 * by name twice with its closing records, a refused one, a refused DNS
 * name), plus a transparent connection to an address and an HTTP decision. */
static const char *const RUN[] = {
	"{\"ts\":\"2026-12-02T15:10:33.245Z\",\"seq\":1,\"kind\":\"proxy\",\"pid\":3,\"comm\":\"curl\",\"dst\":\"203.0.113.71:80\",\"host\":\"a.example\",\"sni\":null,\"rule\":\"a.example:80\",\"verdict\":\"allow\",\"reason\":\"allow\",\"hint\":null,\"upstream\":\"203.0.113.71:80\"}",
	"{\"ts\":\"2026-12-02T15:10:33.253Z\",\"seq\":2,\"kind\":\"proxy\",\"pid\":3,\"comm\":\"curl\",\"dst\":\"203.0.113.71:80\",\"host\":\"a.example\",\"sni\":null,\"rule\":\"a.example:80\",\"verdict\":\"allow\",\"reason\":\"closed\",\"hint\":null,\"upstream\":\"203.0.113.71:80\",\"bytes_up\":74,\"bytes_down\":105,\"duration_ms\":7}",
	"{\"ts\":\"2026-12-02T15:10:33.260Z\",\"seq\":3,\"kind\":\"proxy\",\"pid\":9,\"comm\":\"python3\",\"dst\":\"203.0.113.71:80\",\"host\":\"a.example\",\"sni\":null,\"rule\":\"a.example:80\",\"verdict\":\"allow\",\"reason\":\"allow\",\"hint\":null,\"upstream\":\"203.0.113.71:80\"}",
	"{\"ts\":\"2026-12-02T15:10:33.261Z\",\"seq\":4,\"kind\":\"proxy\",\"pid\":9,\"comm\":\"python3\",\"dst\":\"203.0.113.71:80\",\"host\":\"a.example\",\"sni\":null,\"rule\":\"a.example:80\",\"verdict\":\"allow\",\"reason\":\"reset\",\"hint\":null,\"upstream\":\"203.0.113.71:80\",\"bytes_up\":10,\"bytes_down\":20,\"duration_ms\":1}",
	"{\"ts\":\"2026-12-02T15:10:33.299Z\",\"seq\":5,\"kind\":\"proxy\",\"pid\":5,\"comm\":\"curl\",\"dst\":null,\"host\":\"c.example\",\"sni\":null,\"rule\":null,\"verdict\":\"deny\",\"reason\":\"no-rule\",\"hint\":\"--allow-net c.example:80\"}",
	"{\"ts\":\"2026-12-02T15:10:33.337Z\",\"seq\":6,\"kind\":\"dns\",\"pid\":6,\"comm\":\"python3\",\"dst\":\"198.51.100.53:53\",\"host\":\"d.example\",\"sni\":null,\"rule\":null,\"verdict\":\"deny\",\"reason\":\"no-rule\",\"hint\":\"--allow-net d.example\"}",
	"{\"ts\":\"2026-12-02T15:10:33.338Z\",\"seq\":7,\"kind\":\"proxy\",\"pid\":5,\"comm\":\"curl\",\"dst\":null,\"host\":\"c.example\",\"sni\":null,\"rule\":null,\"verdict\":\"deny\",\"reason\":\"no-rule\",\"hint\":\"--allow-net c.example:80\"}",
	"{\"ts\":\"2026-12-02T15:10:34.000Z\",\"seq\":8,\"kind\":\"connect\",\"dst\":\"[2001:db8::5]:8443\",\"host\":null,\"sni\":null,\"rule\":\"[2001:db8::5]:8443\",\"verdict\":\"allow\",\"reason\":\"allow\",\"hint\":null}",
	"{\"ts\":\"2026-12-02T15:10:35.000Z\",\"seq\":9,\"kind\":\"http\",\"pid\":9,\"comm\":\"python3\",\"dst\":\"203.0.113.72:443\",\"host\":\"b.example\",\"sni\":\"b.example\",\"method\":\"GET\",\"path\":\"/v2/x\",\"detail\":null,\"rule\":null,\"verdict\":\"deny\",\"reason\":\"http-no-rule\",\"hint\":\"--allow-http 'GET https://b.example/v2/x'\"}",
	"",
};

static void add_run(void)
{
	for (size_t i = 0; i < sizeof(RUN) / sizeof(RUN[0]); i++)
		add(RUN[i]);
}

Test(auditsum, per_destination)
{
	add_run();
	cr_assert_eq(a.records, 9);
	cr_assert_eq(a.closes, 2);
	cr_assert_eq(a.allowed, 3);
	cr_assert_eq(a.refused, 4);
	cr_assert_eq(a.n, 5);
	const struct policy_audit_dest *d = find("a.example", 80);
	cr_assert_eq(d->allowed, 2);
	cr_assert_eq(d->refused, 0);
	cr_assert_eq(d->bytes_up, 84);
	cr_assert_eq(d->bytes_down, 125);
	cr_assert_eq(d->n_comms, 2);
	cr_assert_str_eq(d->comms[0].comm, "curl");
	cr_assert_eq(d->comms[0].n, 1);
	cr_assert_str_eq(d->comms[1].comm, "python3");
	d = find("c.example", 80); /* no dst: the port from its hint */
	cr_assert_eq(d->refused, 2);
	cr_assert_eq(d->comms[0].n, 2);
	d = find("d.example", 0);
	cr_assert_eq(d->refused, 1);
	d = find("[2001:db8::5]", 8443);
	cr_assert(d->is_addr);
	cr_assert_eq(d->allowed, 1);
	cr_assert_str_eq(d->comms[0].comm, "(unknown)");
	d = find("b.example", 443);
	cr_assert_eq(d->http_refused, 1);
	cr_assert_eq(d->refused, 0);
	cr_assert_eq(a.n_hints, 3, "each option once");
	cr_assert_str_eq(a.hints[0], "--allow-net c.example:80");
	cr_assert_str_eq(a.hints[1], "--allow-net d.example");
}

static char *printed(void (*fn)(FILE *))
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	fn(f);
	fclose(f);
	return buf;
}

static void print_text(FILE *f)
{
	policy_audit_print(f, &a, false);
}

static void print_lock(FILE *f)
{
	static const char *const files[] = { "run.jsonl" };
	policy_audit_lock(f, &a, files, 1);
}

Test(auditsum, summary_text_refused_first)
{
	add_run();
	char *out = printed(print_text);
	cr_assert(strstr(out, "9 records: 3 allowed, 4 refused, 2 connections closed; 5 destinations"),
		  "%s", out);
	char *c = strstr(out, "c.example:80"), *aa = strstr(out, "a.example:80");
	cr_assert(c && aa && c < aa, "refused first:\n%s", out);
	cr_assert(strstr(out, "d.example (DNS)"), "%s", out);
	cr_assert(strstr(out, "curl (1), python3 (1)"), "%s", out);
	cr_assert(strstr(out, "to allow what was refused:\n  --allow-net c.example:80\n"
			      "  --allow-net d.example\n  --allow-http 'GET https://b.example/v2/x'\n"),
		  "%s", out);
}

Test(auditsum, lock_holds_what_was_allowed_and_used)
{
	add_run();
	char *out = printed(print_lock);
	cr_assert(strstr(out, "# egress lock: the destinations used in run.jsonl\n"), "%s", out);
	cr_assert(strstr(out, "--allow-net a.example:80\n"), "%s", out);
	cr_assert(strstr(out, "--allow-net [2001:db8::5]:8443\n"), "%s", out);
	cr_assert_null(strstr(out, "c.example"), "a refused destination in the lock:\n%s", out);
	cr_assert_null(strstr(out, "d.example"), "%s", out);
	cr_assert_null(strstr(out, "b.example"), "nothing allowed there:\n%s", out);
}

static struct policy_net_rule rules[4];
static size_t n_rules;

static void rule(const char *text)
{
	cr_assert_eq(policy_net_rule_parse(text, strlen(text), POLICY_NET_ALLOW,
					   POLICY_NET_SCOPE_ALL, &rules[n_rules++]),
		     POLICY_NET_RULE_OK, "%s", text);
}

static size_t outside_n;
static void print_against(FILE *f)
{
	outside_n = policy_audit_against(f, &a, rules, n_rules);
}

Test(auditsum, against_names_what_the_lock_does_not_allow)
{
	add_run();
	n_rules = 0;
	rule("a.example:80");
	rule("[2001:db8::5]:8443");
	rule("d.example:443");
	char *out = printed(print_against);
	cr_assert_eq(outside_n, 2, "%s", out);
	cr_assert(strstr(out, "outside the lock: c.example:80 (0 allowed, 2 refused; curl)"), "%s",
		  out);
	cr_assert(strstr(out, "outside the lock: b.example:443"), "%s", out);
	cr_assert_null(strstr(out, "d.example"), "a name the lock allows:\n%s", out);
	/* the same port only: a.example on 8080 is outside */
	add("{\"kind\":\"proxy\",\"comm\":\"curl\",\"dst\":\"203.0.113.71:8080\",\"host\":\"a.example\",\"verdict\":\"allow\",\"reason\":\"allow\"}");
	out = printed(print_against);
	cr_assert_eq(outside_n, 3, "%s", out);
	cr_assert(strstr(out, "outside the lock: a.example:8080"), "%s", out);
}

Test(auditsum, malformed_lines_say_why)
{
	static const char *const bad[] = {
		"not json", "[1,2]", "{\"kind\":\"proxy\"}",
		"{\"kind\":\"smtp\",\"verdict\":\"allow\",\"reason\":\"allow\"}",
		"{\"kind\":\"dns\",\"verdict\":\"maybe\",\"reason\":\"allow\"}",
		"{\"kind\":\"dns\",\"kind\":\"dns\",\"verdict\":\"allow\",\"reason\":\"allow\"}",
		"{\"kind\":\"dns\",\"verdict\":\"allow\",\"reason\":\"allow\"",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(policy_audit_add(&a, bad[i], strlen(bad[i]), err), POLICY_AUDIT_MALFORMED,
			     "%s", bad[i]);
		cr_assert(err[0], "%s: no reason", bad[i]);
	}
	cr_assert_eq(a.records, 0);
	add("   \r");
	cr_assert_eq(a.records, 0, "a blank line is no record");
}

/* An audit that reached its ceiling ends with decision/log.c's closing
 * record: read without error, its count of what was not written kept and
 * said by the summary, nothing counted as a destination. */
Test(auditsum, the_closing_record_of_an_audit_at_its_ceiling)
{
	add_run();
	unsigned long records = a.records;
	size_t dests = a.n;
	add("{\"ts\":\"2026-12-02T15:10:36.000Z\",\"seq\":12,\"kind\":\"run\","
	    "\"event\":\"audit-ceiling\",\"audit_max\":1048576,\"written\":9,\"not_written\":2,"
	    "\"not_written_by\":{\"dns\":{\"allow\":0,\"deny\":2,\"error\":0},"
	    "\"connect\":{\"allow\":0,\"deny\":0,\"error\":0},"
	    "\"proxy\":{\"allow\":0,\"deny\":0,\"error\":0},"
	    "\"http\":{\"allow\":0,\"deny\":0,\"error\":0}}}");
	cr_expect_eq(a.records, records);
	cr_expect_eq(a.n, dests);
	cr_expect_eq(a.not_written, 2);
	char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	policy_audit_print(f, &a, false);
	fclose(f);
	cr_expect(strstr(buf, "\n2 more records were not written: the audit reached its ceiling "
			      "(--audit-max) 1 time, and the counts below leave them out\n"),
		  "%s", buf);
	f = fmemopen(buf, sizeof(buf), "w");
	policy_audit_print(f, &a, true);
	fclose(f);
	cr_expect(strstr(buf, "\"not_written\": 2"), "%s", buf);
	/* a run record with no event, or a ceiling without its count, is not porta's */
	const char *bad[] = { "{\"kind\":\"run\"}",
			      "{\"kind\":\"run\",\"event\":\"audit-ceiling\"}" };
	for (size_t i = 0; i < 2; i++)
		cr_expect_eq(policy_audit_add(&a, bad[i], strlen(bad[i]), err),
			     POLICY_AUDIT_MALFORMED, "%s", bad[i]);
}
