/* tests/unit/decision/test_log.c: the audit lines, the stderr lines and the
 * summary, for decisions of every kind. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decision/log.h"

/* stderr into a file for the test's duration */
struct capture {
	char path[32];
	int fd, saved;
};

static void capture_start(struct capture *c)
{
	snprintf(c->path, sizeof(c->path), "/tmp/porta-err-XXXXXX");
	c->fd = mkstemp(c->path);
	cr_assert_geq(c->fd, 0);
	fflush(stderr);
	c->saved = dup(2);
	dup2(c->fd, 2);
}

static void capture_end(struct capture *c, char *out, size_t cap)
{
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	ssize_t n = pread(c->fd, out, cap - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(c->fd);
	unlink(c->path);
}

Test(decision_log, records_stderr_and_summary)
{
	char apath[] = "/tmp/porta-audit-XXXXXX";
	int afd = mkstemp(apath);
	FILE *audit = fdopen(afd, "w+");
	struct capture cap;
	capture_start(&cap);
	struct decision_log_config cfg = { .audit = audit };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);

	struct policy_addr a = { .family = POLICY_ADDR_V4, .b = { 203, 0, 113, 5 } };
	struct decision dns = { .kind = DECISION_KIND_DNS, .reason = POLICY_REASON_MALFORMED_NAME,
				.pid = 42, .comm = "cu\x1brl", .host = "x\ny.evil.test",
				.host_len = 13, .label = "x\ny.evil.test", .label_len = 13 };
	struct decision con = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_NO_RULE,
				.pid = 43, .comm = "curl", .dst = "203.0.113.5:22",
				.hint_addr = &a, .port = 22 };
	struct decision ok = { .kind = DECISION_KIND_DNS, .reason = POLICY_REASON_ALLOW,
			       .pid = 44, .host = "api.allowed.test", .host_len = 16,
			       .rule = "api.allowed.test:443" };
	/* a name refused at DNS: no port was asked, none is suggested */
	struct decision name = { .kind = DECISION_KIND_DNS, .reason = POLICY_REASON_NO_RULE,
				 .dst = "10.0.0.53:53", .host = "evil.test", .host_len = 9,
				 .hint_name = "evil.test", .label = "evil.test", .label_len = 9 };
	struct decision lim = { .kind = DECISION_KIND_PROXY, .reason = POLICY_REASON_LIMIT };
	cr_assert_eq(decision_log_record(log, &dns), 0);
	cr_assert_eq(decision_log_record(log, &con), 0);
	cr_assert_eq(decision_log_record(log, &con), 0);
	cr_assert_eq(decision_log_record(log, &ok), 0);
	cr_assert_eq(decision_log_record(log, &name), 0);
	cr_assert_eq(decision_log_record(log, &lim), 0);
	cr_assert_eq(decision_log_record(NULL, &lim), 0);
	char sum[4096] = "";
	FILE *sf = fmemopen(sum, sizeof(sum), "w");
	decision_log_summary(log, sf);
	fclose(sf);

	const char *d, *w, *h;
	cr_assert(decision_log_refused_at(log, 1, &d, &w, &h));
	cr_expect_str_eq(d, "203.0.113.5:22");
	cr_expect_str_eq(w, "no rule");
	cr_expect_str_eq(h, "--allow-net 203.0.113.5:22");
	cr_assert(decision_log_refused_at(log, 2, &d, &w, &h));
	cr_expect_str_eq(h, "--allow-net evil.test");
	cr_expect_not(decision_log_refused_at(log, 3, &d, &w, &h));
	decision_log_destroy(log);
	decision_log_destroy(NULL);

	char err[4096];
	capture_end(&cap, err, sizeof(err));
	cr_expect_str_eq(err, "porta: refused x\\x0ay.evil.test (malformed name)\n"
			      "porta: refused 203.0.113.5:22 (no rule); allow with --allow-net "
			      "203.0.113.5:22\n"
			      "porta: refused evil.test (no rule); allow with --allow-net evil.test\n");
	cr_expect_str_eq(sum, "porta: refused 3 destinations:\n"
			      "porta:   x\\x0ay.evil.test (malformed name, 1 time)\n"
			      "porta:   203.0.113.5:22 (no rule, 2 times)  allow with --allow-net "
			      "203.0.113.5:22\n"
			      "porta:   evil.test (no rule, 1 time)  allow with --allow-net evil.test\n"
			      "porta: 1 connection refused at a limit\n");

	rewind(audit);
	char line[2048];
	int lines = 0;
	while (fgets(line, sizeof(line), audit)) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		cr_assert(o, "%s", line);
		lines++;
		cr_expect_eq(json_integer_value(json_object_get(o, "seq")), lines);
		if (lines == 1) {
			/* the keys in the order the audit has always had */
			cr_expect(strncmp(line, "{\"ts\":", 6) == 0, "%s", line);
			cr_expect(strstr(line, "\"seq\":1,\"kind\":\"dns\",\"pid\":42,\"comm\":"
					       "\"cu\\\\x1brl\",\"dst\":null,\"host\":"
					       "\"x\\\\x0ay.evil.test\",\"sni\":null,\"rule\":null,"
					       "\"verdict\":\"deny\",\"reason\":\"malformed-name\","
					       "\"hint\":null}\n"),
				  "%s", line);
		}
		if (lines == 2)
			cr_expect_str_eq(json_string_value(json_object_get(o, "hint")),
					 "--allow-net 203.0.113.5:22");
		if (lines == 4)
			cr_expect_str_eq(json_string_value(json_object_get(o, "verdict")), "allow");
		if (lines == 5)
			cr_expect_str_eq(json_string_value(json_object_get(o, "hint")),
					 "--allow-net evil.test");
		if (lines == 6) {
			cr_expect_str_eq(json_string_value(json_object_get(o, "verdict")), "error");
			cr_expect_str_eq(json_string_value(json_object_get(o, "reason")), "limit");
			cr_expect_null(json_object_get(o, "pid"));
		}
		json_decref(o);
	}
	cr_expect_eq(lines, 6);
	fclose(audit);
	unlink(apath);
}

Test(decision_log, closing_record_and_proxy_only_hint)
{
	char buf[4096] = "";
	FILE *audit = fmemopen(buf, sizeof(buf), "w");
	struct decision_log_config cfg = { .audit = audit, .quiet = true, .proxy_only = true };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	struct decision close = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_CLOSED,
				  .dst = "203.0.113.10:443", .host = "a.test", .host_len = 6,
				  .upstream = "203.0.113.10:443", .closing = true, .bytes_up = 1,
				  .bytes_down = 2, .duration_ms = 3 };
	struct decision no = { .kind = DECISION_KIND_PROXY, .reason = POLICY_REASON_NO_RULE,
			       .hint_name = "b.test", .port = 80, .label = "b.test:80",
			       .label_len = 9 };
	cr_assert_eq(decision_log_record(log, &close), 0);
	cr_assert_eq(decision_log_record(log, &no), 0);
	char hint[POLICY_HINT_MAX];
	cr_expect_eq(decision_log_hint(log, &no, hint, sizeof(hint)), 23);
	cr_expect_str_eq(hint, "--proxy-allow b.test:80");
	fclose(audit);
	cr_expect(strstr(buf, "\"upstream\":\"203.0.113.10:443\",\"bytes_up\":1,\"bytes_down\":2,"
			      "\"duration_ms\":3}\n"),
		  "%s", buf);
	cr_expect(strstr(buf, "\"reason\":\"no-rule\",\"hint\":\"--proxy-allow b.test:80\"}\n"),
		  "%s", buf);
	decision_log_destroy(log);
}

Test(decision_log, quiet_prints_nothing)
{
	struct capture cap;
	capture_start(&cap);
	struct decision_log_config cfg = { .quiet = true };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	struct decision con = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_NO_RULE,
				.dst = "203.0.113.5:22" };
	cr_assert_eq(decision_log_record(log, &con), 0);
	decision_log_summary(log, stderr);
	const char *d, *w, *h;
	cr_expect(decision_log_refused_at(log, 0, &d, &w, &h), "kept under quiet for --why");
	decision_log_destroy(log);
	char err[256];
	capture_end(&cap, err, sizeof(err));
	cr_expect_str_eq(err, "");
}

/* A secret-elsewhere refusal names the secret's variable (its detail) in
 * the audit and on the stderr line, for a connection and for a request; a
 * request's other details (its 403 body) stay out of the line. */
Test(decision_log, secret_elsewhere_names_the_variable)
{
	char apath[] = "/tmp/porta-audit-XXXXXX";
	int afd = mkstemp(apath);
	FILE *audit = fdopen(afd, "w+");
	struct capture cap;
	capture_start(&cap);
	struct decision_log_config cfg = { .audit = audit };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	struct decision con = { .kind = DECISION_KIND_CONNECT,
				.reason = POLICY_REASON_SECRET_ELSEWHERE, .dst = "203.0.113.5:80",
				.detail = "the placeholder of GH_TOKEN, a secret for other hosts" };
	struct decision req = { .kind = DECISION_KIND_HTTP, .reason = POLICY_REASON_SECRET_ELSEWHERE,
				.dst = "203.0.113.6:443", .label = "GET https://b.example/q",
				.label_len = 23, .method = "GET", .method_len = 3, .path = "/q",
				.path_len = 2, .detail = "this request carries the placeholder of NPM_TOKEN" };
	struct decision rule = { .kind = DECISION_KIND_HTTP, .reason = POLICY_REASON_HTTP_NO_RULE,
				 .dst = "203.0.113.7:443", .label = "GET https://c.example/x",
				 .label_len = 23, .method = "GET", .method_len = 3, .path = "/x",
				 .path_len = 2, .detail = "refused by --allow-http: no rule" };
	struct decision plain = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_NO_RULE,
				  .dst = "203.0.113.8:22" };
	cr_assert_eq(decision_log_record(log, &con), 0);
	cr_assert_eq(decision_log_record(log, &req), 0);
	cr_assert_eq(decision_log_record(log, &rule), 0);
	cr_assert_eq(decision_log_record(log, &plain), 0);
	decision_log_destroy(log);
	char err[2048];
	capture_end(&cap, err, sizeof(err));
	cr_expect(strstr(err, "refused 203.0.113.5:80 (secret elsewhere: the placeholder of "
			      "GH_TOKEN, a secret for other hosts)"), "%s", err);
	cr_expect(strstr(err, "refused GET https://b.example/q (secret elsewhere: this request "
			      "carries the placeholder of NPM_TOKEN)"), "%s", err);
	cr_expect(strstr(err, "refused GET https://c.example/x (http no rule)\n"), "%s", err);
	cr_expect(strstr(err, "refused 203.0.113.8:22 (no rule)"), "%s", err);

	char buf[4096];
	rewind(audit);
	size_t n = fread(buf, 1, sizeof(buf) - 1, audit);
	buf[n] = '\0';
	fclose(audit);
	unlink(apath);
	char *lines[4];
	lines[0] = strtok(buf, "\n");
	for (int i = 1; i < 4; i++)
		lines[i] = strtok(NULL, "\n");
	const char *want[4] = { "the placeholder of GH_TOKEN, a secret for other hosts",
				"this request carries the placeholder of NPM_TOKEN",
				"refused by --allow-http: no rule", NULL };
	for (int i = 0; i < 4; i++) {
		cr_assert(lines[i]);
		json_t *o = json_loads(lines[i], 0, NULL);
		cr_assert(o, "%s", lines[i]);
		json_t *d = json_object_get(o, "detail");
		if (want[i])
			cr_expect_str_eq(json_string_value(d), want[i], "%s", lines[i]);
		else
			cr_expect_null(d, "no detail key on a plain refusal: %s", lines[i]);
		json_decref(o);
	}
}

/* The summary's list grows as refusals come, keeps each destination's
 * count across its growth, and stops at DECISION_REFUSED_MAX names: the
 * rest are counted, not named. */
Test(decision_log, refused_list_grows_to_its_limit)
{
	struct capture cap;
	capture_start(&cap);
	struct decision_log_config cfg = { 0 };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	size_t total = DECISION_REFUSED_MAX + 7;
	for (size_t i = 0; i < total; i++) {
		char dst[32];
		snprintf(dst, sizeof(dst), "192.0.2.%zu:%zu", i % 250, 1000 + i);
		struct decision con = { .kind = DECISION_KIND_CONNECT,
					.reason = POLICY_REASON_NO_RULE, .dst = dst };
		cr_assert_eq(decision_log_record(log, &con), 0);
		if (i == 0 || i == 100) /* again, after the list has grown past it */
			cr_assert_eq(decision_log_record(log, &con), 0);
	}
	const char *d, *w, *h;
	cr_assert(decision_log_refused_at(log, 0, &d, &w, &h));
	cr_expect_str_eq(d, "192.0.2.0:1000");
	cr_assert(decision_log_refused_at(log, DECISION_REFUSED_MAX - 1, &d, &w, &h));
	cr_expect_str_eq(d, "192.0.2.5:1255");
	cr_expect_not(decision_log_refused_at(log, DECISION_REFUSED_MAX, &d, &w, &h));

	static char sum[1 << 16];
	FILE *sf = fmemopen(sum, sizeof(sum), "w");
	decision_log_summary(log, sf);
	fclose(sf);
	decision_log_destroy(log);
	static char err[1 << 16];
	capture_end(&cap, err, sizeof(err));
	size_t lines = 0;
	for (const char *p = err; (p = strstr(p, "porta: refused ")); p++)
		lines++;
	cr_expect_eq(lines, total, "one line per destination, each the first time");
	cr_expect(strstr(sum, "porta: refused 263 destinations:\n") == sum, "%.200s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.0:1000 (no rule, 2 times)"), "%.300s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.100:1100 (no rule, 2 times)"), "%.300s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.101:1101 (no rule, 1 time)"), "%.300s", sum);
	cr_expect(strstr(sum, "porta:   and 7 more\n"), "%s", sum + strlen(sum) - 80);
}

/* Whether a record's pid and comm are written anywhere: only with an audit
 * file (supervisor/net.c looks up socket owners only then). */
/* Two logs, one writing to an audit file (returned, for fclose) and one
 * without. */
static FILE *two_logs(struct decision_log **with, struct decision_log **without)
{
	FILE *audit = tmpfile();
	cr_assert_not_null(audit);
	struct decision_log_config cfg = { .audit = audit };
	cr_assert_eq(decision_log_create(&cfg, with), 0);
	cfg.audit = NULL;
	cr_assert_eq(decision_log_create(&cfg, without), 0);
	return audit;
}

/* What decision_log_keeps() says a caller may skip building: a record of
 * an allowed connection or its close, when there is no audit file.  A
 * refusal is always kept (the summary counts it); with an audit file,
 * everything.  The records it says are not kept leave no trace: the
 * summary of a log given only those is empty. */
Test(decision_log, keeps_what_an_audit_file_or_the_summary_takes)
{
	struct decision_log *with, *without;
	FILE *audit = two_logs(&with, &without);
	for (int r = 0; r < POLICY_REASON_COUNT_; r++) {
		bool tallied = policy_reason_info((enum policy_reason)r)->tally != POLICY_TALLY_NONE;
		cr_expect(decision_log_keeps(with, (enum policy_reason)r), "reason %d", r);
		cr_expect_eq(decision_log_keeps(without, (enum policy_reason)r), tallied, "reason %d", r);
		cr_expect_not(decision_log_keeps(NULL, (enum policy_reason)r));
	}
	cr_expect_not(decision_log_keeps(without, POLICY_REASON_ALLOW));
	cr_expect_not(decision_log_keeps(without, POLICY_REASON_CLOSED));
	cr_expect(decision_log_keeps(without, POLICY_REASON_NO_RULE));
	cr_expect(decision_log_keeps(without, POLICY_REASON_LIMIT));

	/* what it says is not kept, recorded anyway, shows nowhere */
	struct decision d = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_ALLOW,
			      .dst = "192.0.2.1:443" };
	cr_assert_eq(decision_log_record(without, &d), 0);
	d.reason = POLICY_REASON_CLOSED;
	cr_assert_eq(decision_log_record(without, &d), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	decision_log_summary(without, err);
	fclose(err);
	cr_expect_eq(len, 0, "summary: %s", buf);
	free(buf);
	decision_log_destroy(with);
	decision_log_destroy(without);
	fclose(audit);
}

Test(decision_log, audits_only_with_an_audit_file)
{
	struct decision_log *with, *without;
	FILE *audit = two_logs(&with, &without);
	cr_expect(decision_log_audits(with));
	cr_expect_not(decision_log_audits(without));
	cr_expect_not(decision_log_audits(NULL));
	decision_log_destroy(with);
	decision_log_destroy(without);
	fclose(audit);
}
