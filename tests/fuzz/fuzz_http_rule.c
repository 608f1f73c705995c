/* tests/fuzz/fuzz_http_rule.c: --allow-http rules and the request matcher
 * (policy/httprule.h).  The input is "RULE\nRULE2\nMETHOD TARGET\nHOST":
 * each RULE through policy_http_rule_parse(), then the request, on the
 * first rule's scheme and port and on HOST (the first rule's host when
 * HOST is empty), through policy_http_decide().
 * Invariants: an accepted rule is sound (its text the input, a path from
 * '/' whose part before '?' policy_http_path_check() finds clean, methods
 * that are upper-case tokens) and parses again to the same rule; a
 * refusal's message is one line; an allowed request is allowed by the rule
 * the decision names, alone, and that rule's glob (checked against a
 * reference matcher) matches it unless the rule is "/" "*"; a refused
 * request's suggestion parses and allows the request, alone and after the
 * rules; a request is never allowed with an unsafe path by a rule that
 * restricts paths. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/httprule.h"
#include "tests/fuzz/fuzz.h"

static struct policy_http_rule rules[3];
static char err[512];

static void check_line(const char *msg)
{
	for (const char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static bool parse_checked(const uint8_t *p, size_t n, struct policy_http_rule *r)
{
	char *text = malloc(n ? n : 1); /* exact size: overreads are ASan reports */
	static struct policy_http_rule again;
	if (!text)
		abort();
	memcpy(text, p, n);
	enum policy_http_rule_status st = policy_http_rule_parse(text, n, r, err, sizeof(err));
	free(text);
	check_line(err);
	if (st != POLICY_HTTP_RULE_OK) {
		if (!err[0])
			abort();
		return false;
	}
	if (err[0] || strlen(r->text) != n || memcmp(r->text, p, n) != 0 || r->path[0] != '/')
		abort();
	const char *q = strchr(r->path, '?');
	size_t pl = q ? (size_t)(q - r->path) : strlen(r->path);
	if ((q != NULL) != r->with_query ||
	    policy_http_path_check((const uint8_t *)r->path, pl) != POLICY_HTTP_PATH_CLEAN)
		abort();
	if (r->any_method != (r->n_methods == 0))
		abort();
	for (size_t i = 0; i < r->n_methods; i++)
		for (const char *m = r->methods[i]; *m; m++)
			if ((*m >= 'a' && *m <= 'z') || *m == '*' || *m <= 0x20 || *m >= 0x7f)
				abort();
	if (r->host.port == 0)
		abort();
	if (policy_http_rule_parse(r->text, n, &again, err, sizeof(err)) != POLICY_HTTP_RULE_OK ||
	    memcmp(&again, r, sizeof(again)) != 0)
		abort();
	return true;
}

/* Reference glob: '*' any run, every other byte itself; by dynamic
 * programming, so it shares nothing with httprule.c's backtracking. */
static bool ref_glob(const char *pat, const uint8_t *s, size_t n)
{
	size_t pn = strlen(pat);
	bool *row = calloc(n + 1, sizeof(bool)), *next = calloc(n + 1, sizeof(bool));
	if (!row || !next)
		abort();
	row[0] = true;
	for (size_t p = 0; p < pn; p++) {
		memset(next, 0, n + 1);
		bool seen = false;
		for (size_t i = 0; i <= n; i++) {
			if (pat[p] == '*') {
				seen = seen || row[i];
				next[i] = seen;
			} else if (i > 0 && row[i - 1] && (uint8_t)pat[p] == s[i - 1]) {
				next[i] = true;
			}
		}
		bool *t = row;
		row = next;
		next = t;
	}
	bool r = row[n];
	free(row);
	free(next);
	return r;
}

static const uint8_t *line(const uint8_t **p, const uint8_t *end, size_t *n)
{
	const uint8_t *start = *p, *nl = memchr(start, '\n', (size_t)(end - start));
	*n = (size_t)((nl ? nl : end) - start);
	*p = nl ? nl + 1 : end;
	return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	size_t n1, n2, nr, nh;
	const uint8_t *r1 = line(&p, end, &n1), *r2 = line(&p, end, &n2);
	const uint8_t *rq = line(&p, end, &nr), *h = line(&p, end, &nh);
	size_t n = 0;

	if (parse_checked(r1, n1, &rules[n]))
		n++;
	if (parse_checked(r2, n2, &rules[n]))
		n++;
	if (n == 0)
		return 0;

	struct policy_http_endpoint eps[2];
	size_t ne = policy_http_endpoints(rules, n, eps, 2);
	if (ne == 0 || ne > n || !policy_endpoint_equal(&eps[0].ep, &rules[0].host))
		abort();

	const uint8_t *sp = memchr(rq, ' ', nr);
	struct policy_net_target t;
	if (nh == 0) {
		memset(&t, 0, sizeof(t));
		t.is_addr = rules[0].host.is_addr;
		t.addr = rules[0].host.addr;
		memcpy(t.name, rules[0].host.name, sizeof(t.name));
	} else if (policy_net_target_parse(h, nh, &t) != POLICY_NET_TARGET_OK) {
		return 0;
	}
	struct policy_http_request req = {
		.scheme = rules[0].scheme,
		.host = &t,
		.port = rules[0].host.port,
		.method = rq,
		.method_len = sp ? (size_t)(sp - rq) : nr,
		.target = sp ? sp + 1 : rq + nr,
		.target_len = sp ? nr - (size_t)(sp - rq) - 1 : 0,
		.method_override = size % 7 == 0,
	};
	static struct policy_http_decision d, d2;
	enum policy_http_verdict v = policy_http_decide(rules, n, &req, &d);
	if (v != d.verdict || (v == POLICY_HTTP_ALLOWED) != (d.rule != NULL))
		abort();
	const uint8_t *qm = memchr(req.target, '?', req.target_len);
	size_t path_len = qm ? (size_t)(qm - req.target) : req.target_len;

	if (v == POLICY_HTTP_ALLOWED) {
		const struct policy_http_rule *r = d.rule;
		if (d.rule_index >= n || r != &rules[d.rule_index] || d.has_suggestion)
			abort();
		if (policy_http_decide(r, 1, &req, &d2) != POLICY_HTTP_ALLOWED)
			abort();
		bool any_path = !r->with_query && strcmp(r->path, "/*") == 0;
		if (!any_path) {
			if (policy_http_path_check(req.target, path_len) != POLICY_HTTP_PATH_CLEAN)
				abort();
			if (!ref_glob(r->path, req.target, r->with_query ? req.target_len : path_len))
				abort();
		}
		if (req.target_len == 0 || req.target[0] != '/')
			abort();
		return 0;
	}
	if (d.rule || (d.has_suggestion && d.why != POLICY_HTTP_WHY_NO_RULE))
		abort();
	if (!d.has_suggestion) {
		if (d.suggestion[0])
			abort();
		return 0;
	}
	/* the suggestion, read back, allows exactly this request */
	size_t sl = strlen(d.suggestion);
	if (!parse_checked((const uint8_t *)d.suggestion, sl, &rules[n]))
		abort();
	if (policy_http_decide(&rules[n], 1, &req, &d2) != POLICY_HTTP_ALLOWED)
		abort();
	if (policy_http_decide(rules, n + 1, &req, &d2) != POLICY_HTTP_ALLOWED || d2.rule_index != n)
		abort();
	return 0;
}
