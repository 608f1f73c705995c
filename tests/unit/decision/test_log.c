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

/* The list of refused destinations grows from nothing, keeps each one's
 * count across its growth, and stops at DECISION_REFUSED_MAX names; past
 * them each distinct one is counted, a repeat is not.  stderr gets a line
 * for each of the first DECISION_REFUSED_SHOWN and one more for all the
 * others; the summary shows the same first ones and counts the rest. */
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
		/* again, after the list has grown past it; and past the names */
		if (i == 0 || i == 30 || i == 100 || i == DECISION_REFUSED_MAX + 3)
			cr_assert_eq(decision_log_record(log, &con), 0);
	}
	const char *d, *w, *h;
	cr_assert(decision_log_refused_at(log, 0, &d, &w, &h));
	cr_expect_str_eq(d, "192.0.2.0:1000");
	cr_assert(decision_log_refused_at(log, DECISION_REFUSED_MAX - 1, &d, &w, &h));
	cr_expect_str_eq(d, "192.0.2.5:1255");
	cr_expect_not(decision_log_refused_at(log, DECISION_REFUSED_MAX, &d, &w, &h));
	cr_expect_eq(decision_log_refused_count(log), total);

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
	cr_expect_eq(lines, DECISION_REFUSED_SHOWN + 1, "%zu lines:\n%s", lines, err);
	cr_expect(strstr(err, "porta: refused 192.0.2.49:1049 (no rule)"), "%s", err);
	cr_expect_null(strstr(err, "192.0.2.50:1050"), "%s", err);
	cr_expect(strstr(err, "porta: refused more than 50 destinations: the others are not shown "
			      "as they come; the summary at the end counts them, --audit FILE "
			      "records each, --why lists the first 256\n"),
		  "%s", err + strlen(err) - 200);
	cr_expect(strstr(sum, "porta: refused 263 destinations:\n") == sum, "%.200s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.0:1000 (no rule, 2 times)"), "%.300s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.30:1030 (no rule, 2 times)"), "%.300s", sum);
	cr_expect(strstr(sum, "porta:   192.0.2.31:1031 (no rule, 1 time)"), "%.300s", sum);
	cr_expect_null(strstr(sum, "192.0.2.50:1050"), "the summary shows the first 50");
	cr_expect(strstr(sum, "porta:   and 213 more distinct destinations (--audit FILE records "
			      "each)\n"),
		  "%s", sum + strlen(sum) - 120);
	size_t sum_lines = 0;
	for (const char *p = sum; (p = strchr(p, '\n')); p++)
		sum_lines++;
	cr_expect_eq(sum_lines, 1 + DECISION_REFUSED_SHOWN + 1, "%s", sum);
}

/* A flood of distinct refusals (a loop asking for names) costs a bounded
 * stderr and a bounded memory, and is still counted: past the names, each
 * distinct one once, repeats not. */
Test(decision_log, a_flood_is_counted_in_bounded_lines)
{
	struct capture cap;
	capture_start(&cap);
	struct decision_log_config cfg = { 0 };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	const size_t n = 20000;
	for (size_t round = 0; round < 2; round++) {
		for (size_t i = 0; i < n; i++) {
			char name[64];
			int len = snprintf(name, sizeof(name), "n%zu.flood.test", i);
			struct decision q = { .kind = DECISION_KIND_DNS,
					      .reason = POLICY_REASON_NO_RULE, .host = name,
					      .host_len = (size_t)len, .label = name,
					      .label_len = (size_t)len, .hint_name = name };
			cr_assert_eq(decision_log_record(log, &q), 0);
		}
	}
	cr_expect_eq(decision_log_refused_count(log), n);
	static char sum[1 << 16];
	FILE *sf = fmemopen(sum, sizeof(sum), "w");
	decision_log_summary(log, sf);
	fclose(sf);
	decision_log_destroy(log);
	static char err[1 << 16];
	capture_end(&cap, err, sizeof(err));
	size_t lines = 0;
	for (const char *p = err; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, DECISION_REFUSED_SHOWN + 1, "%s", err);
	cr_expect(strstr(sum, "porta: refused 20000 destinations:\n") == sum, "%.100s", sum);
	cr_expect(strstr(sum, "porta:   n0.flood.test (no rule, 2 times)"), "%.300s", sum);
	cr_expect(strstr(sum, "and 19950 more distinct destinations"), "%s",
		  sum + strlen(sum) - 120);
}

/* Lines of a file into v[cap] (malloc'd), their count. */
static size_t read_lines(FILE *f, char **v, size_t cap)
{
	size_t n = 0;
	char *line = NULL;
	size_t lcap = 0;
	rewind(f);
	while (getline(&line, &lcap, f) > 0) {
		if (n < cap)
			v[n] = strdup(line);
		n++;
	}
	free(line);
	return n;
}

/* The audit's ceiling: the run's bytes never pass it, the closing record
 * included; the records past it are counted by kind and verdict in that
 * record, and the written and the unwritten add up to every decision. */
Test(decision_log, the_audit_stops_at_its_ceiling_and_counts_the_rest)
{
	FILE *audit = tmpfile();
	cr_assert_not_null(audit);
	struct capture cap;
	capture_start(&cap);
	const uint64_t max = 16384;
	struct decision_log_config cfg = { .audit = audit, .audit_max = max, .quiet = true };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	size_t decisions = 0, refused_dns = 0, allowed_connect = 0;
	for (size_t i = 0; i < 400; i++) {
		char name[64];
		int len = snprintf(name, sizeof(name), "name-%zu.example", i);
		struct decision q = { .kind = DECISION_KIND_DNS, .reason = POLICY_REASON_NO_RULE,
				      .host = name, .host_len = (size_t)len, .label = name,
				      .label_len = (size_t)len, .hint_name = name };
		struct decision c = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_ALLOW,
				      .dst = "203.0.113.5:443", .rule = "allowed.test:443" };
		cr_assert_eq(decision_log_record(log, &q), 0);
		cr_assert_eq(decision_log_record(log, &c), 0);
		decisions += 2;
		refused_dns++;
		allowed_connect++;
	}
	cr_expect_eq(decision_log_finish(log), 0);
	uint64_t not_written = decision_log_not_written(log);
	cr_expect_gt(not_written, 0);
	decision_log_destroy(log);
	static char err[4096];
	capture_end(&cap, err, sizeof(err));
	cr_expect(strstr(err, "the --audit file reached its ceiling of 16384 bytes"), "%s", err);

	fflush(audit);
	struct stat st;
	cr_assert_eq(fstat(fileno(audit), &st), 0);
	cr_expect_leq((uint64_t)st.st_size, max);
	static char *v[2000];
	size_t n = read_lines(audit, v, 2000);
	cr_assert_gt(n, 2);
	json_error_t je;
	json_t *last = json_loads(v[n - 1], 0, &je);
	cr_assert_not_null(last, "%s", v[n - 1]);
	cr_expect_str_eq(json_string_value(json_object_get(last, "kind")), "run");
	cr_expect_str_eq(json_string_value(json_object_get(last, "event")), "audit-ceiling");
	cr_expect_eq(json_integer_value(json_object_get(last, "audit_max")), (json_int_t)max);
	cr_expect_eq(json_integer_value(json_object_get(last, "written")), (json_int_t)(n - 1));
	cr_expect_eq(json_integer_value(json_object_get(last, "not_written")),
		     (json_int_t)not_written);
	cr_expect_eq(json_integer_value(json_object_get(last, "seq")), (json_int_t)decisions + 1);
	cr_expect_eq((size_t)(n - 1) + not_written, decisions);
	json_t *by = json_object_get(last, "not_written_by");
	json_int_t sum = 0, dns_deny = json_integer_value(
				     json_object_get(json_object_get(by, "dns"), "deny")),
		   con_allow = json_integer_value(
			   json_object_get(json_object_get(by, "connect"), "allow"));
	const char *k;
	json_t *kv;
	json_object_foreach(by, k, kv) {
		const char *vn;
		json_t *c;
		json_object_foreach(kv, vn, c)
			sum += json_integer_value(c);
	}
	cr_expect_eq(sum, (json_int_t)not_written);
	/* every written record is one of the two; each kept its order */
	size_t w_dns = 0, w_con = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		json_t *r = json_loads(v[i], 0, &je);
		cr_assert_not_null(r);
		cr_expect_eq(json_integer_value(json_object_get(r, "seq")), (json_int_t)i + 1);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		if (strcmp(kind, "dns") == 0)
			w_dns++;
		else
			w_con++;
		json_decref(r);
	}
	cr_expect_eq(w_dns + (size_t)dns_deny, refused_dns);
	cr_expect_eq(w_con + (size_t)con_allow, allowed_connect);
	json_decref(last);
	for (size_t i = 0; i < n && i < 2000; i++)
		free(v[i]);
	fclose(audit);
}

/* Under the ceiling nothing changes: no closing record. */
Test(decision_log, no_closing_record_under_the_ceiling)
{
	FILE *audit = tmpfile();
	struct decision_log_config cfg = { .audit = audit, .audit_max = 1 << 20, .quiet = true };
	struct decision_log *log;
	cr_assert_eq(decision_log_create(&cfg, &log), 0);
	struct decision c = { .kind = DECISION_KIND_CONNECT, .reason = POLICY_REASON_ALLOW,
			      .dst = "203.0.113.5:443" };
	cr_assert_eq(decision_log_record(log, &c), 0);
	cr_expect_eq(decision_log_finish(log), 0);
	cr_expect_eq(decision_log_not_written(log), 0);
	decision_log_destroy(log);
	static char *v[4];
	cr_expect_eq(read_lines(audit, v, 4), 1);
	cr_expect_null(strstr(v[0], "audit-ceiling"));
	free(v[0]);
	fclose(audit);
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
