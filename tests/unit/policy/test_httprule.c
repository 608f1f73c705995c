/* tests/unit/policy/test_httprule.c: --allow-http rules parsed and refused
 * with a message naming the problem, the glob, the bypass forms of
 * policy/httprule.h, method overrides, suggested rules read back, and the
 * endpoints the rules name. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/httprule.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static char err[512];

static enum policy_http_rule_status parse(const char *text, struct policy_http_rule *r)
{
	size_t n = strlen(text);
	char *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, text, n);
	enum policy_http_rule_status st = policy_http_rule_parse(c, n, r, err, sizeof(err));
	free(c);
	return st;
}

Test(httprule, accepted_forms)
{
	static const struct {
		const char *text;
		bool any;
		const char *methods; /* joined by ',' */
		enum policy_http_scheme scheme;
		const char *host;
		unsigned port;
		const char *path;
		bool query;
	} v[] = {
		{ "GET https://api.example/v1/x", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "/v1/x", false },
		{ "GET,HEAD https://registry.example/acme/*", false, "GET,HEAD", POLICY_HTTP_SCHEME_HTTPS, "registry.example", 443, "/acme/*", false },
		{ "* http://api.example/", true, "", POLICY_HTTP_SCHEME_HTTP, "api.example", 80, "/", false },
		{ "POST HTTPS://API.Example.:8443/upload", false, "POST", POLICY_HTTP_SCHEME_HTTPS, "api.example", 8443, "/upload", false },
		{ "  PROPFIND,M-SEARCH   http://api.example:8080/dav/*  ", false, "PROPFIND,M-SEARCH", POLICY_HTTP_SCHEME_HTTP, "api.example", 8080, "/dav/*", false },
		{ "GET https://api.example/search?q=*", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "/search?q=*", true },
		{ "GET https://api.example/a%20b/%C3%A9", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "/a%20b/%C3%A9", false },
		{ "GET https://192.0.2.7/x", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "192.0.2.7", 443, "/x", false },
		{ "GET https://[2001:db8::1]:8443/x", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "2001:db8::1", 8443, "/x", false },
		{ "GET https://api.example/*.json", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "/*.json", false },
		{ "GET https://api.example/a/..b/.c/b..", false, "GET", POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "/a/..b/.c/b..", false },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_http_rule r;
		char a[POLICY_ADDR_STRLEN], joined[256] = "";
		cr_assert_eq(parse(v[i].text, &r), POLICY_HTTP_RULE_OK, "%s: %s", v[i].text, err);
		cr_assert_str_eq(err, "");
		cr_assert_eq(r.any_method, v[i].any, "%s", v[i].text);
		for (size_t k = 0; k < r.n_methods; k++) {
			if (k)
				strcat(joined, ",");
			strcat(joined, r.methods[k]);
		}
		cr_assert_str_eq(joined, v[i].methods, "%s", v[i].text);
		cr_assert_eq(r.scheme, v[i].scheme, "%s", v[i].text);
		cr_assert_str_eq(r.host.is_addr ? policy_addr_format(&r.host.addr, a) : r.host.name,
				 v[i].host);
		cr_assert_eq(r.host.port, v[i].port, "%s", v[i].text);
		cr_assert_str_eq(r.path, v[i].path);
		cr_assert_eq(r.with_query, v[i].query, "%s", v[i].text);
		cr_assert_str_eq(r.text, v[i].text, "the rule as given, for the audit");
	}
}

Test(httprule, refused_forms)
{
	static const struct {
		const char *text;
		enum policy_http_rule_status st;
		const char *says;
	} v[] = {
		{ "", POLICY_HTTP_RULE_EMPTY, "empty" },
		{ "   ", POLICY_HTTP_RULE_EMPTY, "empty" },
		{ "GET", POLICY_HTTP_RULE_NO_URL, "METHODS URL" },
		{ "https://api.example/x", POLICY_HTTP_RULE_NO_URL, "METHODS URL" },
		{ "GET https://api.example/a b", POLICY_HTTP_RULE_EXTRA_WORD, "two words" },
		{ "GET\thttps://api.example/x", POLICY_HTTP_RULE_BAD_BYTE, "not visible ASCII" },
		{ "GET https://api.example/caf\xc3\xa9", POLICY_HTTP_RULE_BAD_BYTE, "not visible ASCII" },
		{ "GET https://api.example/\x7f", POLICY_HTTP_RULE_BAD_BYTE, "not visible ASCII" },
		{ ",GET https://api.example/x", POLICY_HTTP_RULE_EMPTY_METHOD, "empty method" },
		{ "GET,,HEAD https://api.example/x", POLICY_HTTP_RULE_EMPTY_METHOD, "empty method" },
		{ "GET, https://api.example/x", POLICY_HTTP_RULE_EMPTY_METHOD, "empty method" },
		{ "GET,* https://api.example/x", POLICY_HTTP_RULE_STAR_IN_LIST, "stands alone" },
		{ "G*T https://api.example/x", POLICY_HTTP_RULE_BAD_METHOD, "token" },
		{ "GE(T https://api.example/x", POLICY_HTTP_RULE_BAD_METHOD, "token" },
		{ "\"GET\" https://api.example/x", POLICY_HTTP_RULE_BAD_METHOD, "token" },
		{ "get https://api.example/x", POLICY_HTTP_RULE_LOWER_METHOD, "case-sensitive" },
		{ "Get https://api.example/x", POLICY_HTTP_RULE_LOWER_METHOD, "case-sensitive" },
		{ "ABCDEFGHIJABCDEFGHIJABCDEFGHIJABC https://api.example/x", POLICY_HTTP_RULE_METHOD_TOO_LONG, "longer than" },
		{ "GET,HEAD,GET https://api.example/x", POLICY_HTTP_RULE_DUP_METHOD, "twice" },
		{ "A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P,Q https://api.example/x", POLICY_HTTP_RULE_TOO_MANY_METHODS, "more than 16" },
		{ "GET api.example/x", POLICY_HTTP_RULE_NO_SCHEME, "scheme" },
		{ "GET //api.example/x", POLICY_HTTP_RULE_NO_SCHEME, "scheme" },
		{ "GET ftp://api.example/x", POLICY_HTTP_RULE_BAD_SCHEME, "https:// or http://" },
		{ "GET wss://api.example/x", POLICY_HTTP_RULE_BAD_SCHEME, "https:// or http://" },
		{ "GET ://api.example/x", POLICY_HTTP_RULE_BAD_SCHEME, "https:// or http://" },
		{ "GET https://api.example", POLICY_HTTP_RULE_NO_PATH, "needs a path" },
		{ "GET https://api.example?x=1", POLICY_HTTP_RULE_NO_PATH, "needs a path" },
		{ "GET https://api.example#x", POLICY_HTTP_RULE_NO_PATH, "needs a path" },
		{ "GET https:///x", POLICY_HTTP_RULE_BAD_HOST, "empty host" },
		{ "GET https://*.api.example/x", POLICY_HTTP_RULE_BAD_HOST, "wildcard" },
		{ "GET https://*/x", POLICY_HTTP_RULE_BAD_HOST, "wildcard" },
		{ "GET https://[2001:db8::/32]/x", POLICY_HTTP_RULE_BAD_HOST, "CIDR" },
		{ "GET https://api.example:1-2/x", POLICY_HTTP_RULE_BAD_HOST, "one port" },
		{ "GET https://user@api.example/x", POLICY_HTTP_RULE_BAD_HOST, "user name" },
		{ "GET https://localhost/x", POLICY_HTTP_RULE_BAD_HOST, "localhost" },
		{ "GET https://api.example:0/x", POLICY_HTTP_RULE_BAD_HOST, "port 0" },
		{ "GET https://api.example:99999/x", POLICY_HTTP_RULE_BAD_HOST, "port" },
		{ "GET https://::1/x", POLICY_HTTP_RULE_BAD_HOST, "brackets" },
		{ "GET https://api.example/x#frag", POLICY_HTTP_RULE_FRAGMENT, "fragment" },
		{ "GET https://api.example/a/../b", POLICY_HTTP_RULE_UNSAFE_PATH, "'..' segment" },
		{ "GET https://api.example/a/./b", POLICY_HTTP_RULE_UNSAFE_PATH, "'..' segment" },
		{ "GET https://api.example/a//b", POLICY_HTTP_RULE_UNSAFE_PATH, "empty segment" },
		{ "GET https://api.example/a%2fb", POLICY_HTTP_RULE_UNSAFE_PATH, "%2f" },
		{ "GET https://api.example/a;b", POLICY_HTTP_RULE_UNSAFE_PATH, "';'" },
		{ "GET https://api.example/a\\b", POLICY_HTTP_RULE_UNSAFE_PATH, "backslash" },
		{ "GET https://api.example/a%zz", POLICY_HTTP_RULE_UNSAFE_PATH, "two hex digits" },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_http_rule r;
		cr_assert_eq(parse(v[i].text, &r), v[i].st, "%s: %s", v[i].text, err);
		cr_assert(strncmp(err, "--allow-http '", 14) == 0, "%s: %s", v[i].text, err);
		cr_assert(strstr(err, v[i].says), "%s: %s", v[i].text, err);
		for (const char *p = err; *p; p++)
			cr_assert((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f, "%s", err);
	}
}

Test(httprule, bounds)
{
	struct policy_http_rule r;
	char *t = malloc(POLICY_HTTP_RULE_TEXT_MAX + 2);
	cr_assert(t);
	/* a path of exactly POLICY_HTTP_PATH_MAX bytes, then one more */
	strcpy(t, "GET https://api.example/");
	size_t at = strlen(t);
	memset(t + at, 'p', POLICY_HTTP_PATH_MAX - 1);
	t[at + POLICY_HTTP_PATH_MAX - 1] = '\0';
	cr_assert_eq(parse(t, &r), POLICY_HTTP_RULE_OK, "%s", err);
	cr_assert_eq(strlen(r.path), POLICY_HTTP_PATH_MAX);
	strcat(t, "p");
	cr_assert_eq(parse(t, &r), POLICY_HTTP_RULE_PATH_TOO_LONG, "%s", err);
	memset(t, 'p', POLICY_HTTP_RULE_TEXT_MAX + 1);
	t[POLICY_HTTP_RULE_TEXT_MAX + 1] = '\0';
	cr_assert_eq(parse(t, &r), POLICY_HTTP_RULE_TOO_LONG, "%s", err);
	free(t);
	cr_assert_eq(parse("A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P https://api.example/x", &r),
		     POLICY_HTTP_RULE_OK, "%s", err);
	cr_assert_eq(r.n_methods, POLICY_HTTP_METHODS_MAX);
}

Test(httprule, truncation_sweep)
{
	const char *good = "GET,HEAD https://registry.example:8443/acme/*?q=*";
	char buf[128];
	for (size_t k = 0; k <= strlen(good); k++) {
		struct policy_http_rule r;
		memcpy(buf, good, k);
		buf[k] = '\0';
		enum policy_http_rule_status st = parse(buf, &r);
		cr_assert(st == POLICY_HTTP_RULE_OK ? err[0] == '\0' : err[0] != '\0', "%zu", k);
	}
}

/* ---- matching ---- */

static struct policy_http_rule rules[8];
static size_t n_rules;
static struct policy_net_target host;

static void set_rules(const char *const *texts, size_t n)
{
	n_rules = 0;
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(parse(texts[i], &rules[n_rules++]), POLICY_HTTP_RULE_OK, "%s: %s",
			     texts[i], err);
}

static enum policy_http_verdict decide_on(enum policy_http_scheme scheme, const char *h,
					  uint16_t port, const char *method, const char *target,
					  bool override, struct policy_http_decision *d)
{
	cr_assert_eq(policy_net_target_parse((const uint8_t *)h, strlen(h), &host),
		     POLICY_NET_TARGET_OK);
	struct policy_http_request req = {
		.scheme = scheme,
		.host = &host,
		.port = port,
		.method = (const uint8_t *)method,
		.method_len = strlen(method),
		.target = (const uint8_t *)target,
		.target_len = strlen(target),
		.method_override = override,
	};
	enum policy_http_verdict v = policy_http_decide(rules, n_rules, &req, d);
	cr_assert_eq(v, d->verdict);
	cr_assert_eq(v == POLICY_HTTP_ALLOWED, d->rule != NULL);
	if (d->rule)
		cr_assert_eq(d->rule, &rules[d->rule_index]);
	return v;
}

static enum policy_http_verdict decide(const char *method, const char *target,
				       struct policy_http_decision *d)
{
	return decide_on(POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, method, target, false, d);
}

static const char *const acme[] = {
	"GET,HEAD https://api.example/acme/*",
	"POST https://api.example/acme/repo/git-receive-pack",
	"GET https://api.example/search?q=*",
	"DELETE https://api.example/tmp*",
};

Test(httpmatch, glob_semantics)
{
	static const struct {
		const char *method, *target;
		int rule; /* -1: refused */
	} v[] = {
		{ "GET", "/acme/", 0 },
		{ "GET", "/acme/x", 0 },
		{ "HEAD", "/acme/a/b/c", 0 },                 /* '*' crosses '/' */
		{ "GET", "/acme/x?ref=main&a=/b", 0 },        /* the query is ignored */
		{ "GET", "/acme", -1 },                       /* "/acme/" + "" at least */
		{ "GET", "/acmex/y", -1 },
		{ "GET", "/ACME/x", -1 },                     /* case-sensitive */
		{ "PUT", "/acme/x", -1 },                     /* method not listed */
		{ "get", "/acme/x", -1 },                     /* methods as sent */
		{ "POST", "/acme/repo/git-receive-pack", 1 },
		{ "POST", "/acme/repo/git-receive-pack?service=x", 1 },
		{ "POST", "/acme/repo/git-receive-pack/", -1 },
		{ "POST", "/acme/repo/git-receive-packs", -1 },
		{ "GET", "/search?q=porta", 2 },              /* '?' in the rule: the query counts */
		{ "GET", "/search?q=", 2 },
		{ "GET", "/search", -1 },
		{ "GET", "/search?x=1&q=porta", -1 },
		{ "DELETE", "/tmp", 3 },
		{ "DELETE", "/tmp-x/y", 3 },                  /* no slash before '*': any suffix */
		{ "DELETE", "/tm", -1 },
	};
	struct policy_http_decision d;
	set_rules(acme, N_ELEMS(acme));
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		enum policy_http_verdict want = v[i].rule < 0 ? POLICY_HTTP_REFUSED : POLICY_HTTP_ALLOWED;
		cr_assert_eq(decide(v[i].method, v[i].target, &d), want, "%s %s", v[i].method,
			     v[i].target);
		if (v[i].rule >= 0)
			cr_assert_eq(d.rule_index, (size_t)v[i].rule, "%s %s", v[i].method, v[i].target);
		else
			cr_assert_eq(d.why, POLICY_HTTP_WHY_NO_RULE, "%s %s", v[i].method, v[i].target);
	}
}

Test(httpmatch, multiple_stars_backtrack)
{
	static const char *const r[] = { "GET https://api.example/*/repos/*/pulls*" };
	struct policy_http_decision d;
	set_rules(r, 1);
	cr_assert_eq(decide("GET", "/v3/repos/acme/x/pulls", &d), POLICY_HTTP_ALLOWED);
	cr_assert_eq(decide("GET", "/a/repos/b/repos/c/pullsX", &d), POLICY_HTTP_ALLOWED);
	cr_assert_eq(decide("GET", "/a/repos/b/pull", &d), POLICY_HTTP_REFUSED);
	cr_assert_eq(decide("GET", "/repos/b/pulls", &d), POLICY_HTTP_REFUSED);
}

Test(httpmatch, scheme_host_and_port)
{
	static const char *const r[] = { "GET https://api.example/*", "GET http://api.example:8080/x" };
	struct policy_http_decision d;
	set_rules(r, 2);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "API.Example.", 443, "GET", "/y", false, &d),
		     POLICY_HTTP_ALLOWED);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTP, "api.example", 443, "GET", "/y", false, &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "api.example", 8443, "GET", "/y", false, &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "registry.example", 443, "GET", "/y", false,
			       &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "sub.api.example", 443, "GET", "/y", false,
			       &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTP, "api.example", 8080, "GET", "/x", false, &d),
		     POLICY_HTTP_ALLOWED);
	cr_assert_eq(d.rule_index, 1);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "api.example", 8080, "GET", "/x", false, &d),
		     POLICY_HTTP_REFUSED);
}

/* Every bypass httprule.h lists, under a rule that restricts the path:
 * refused as unsafe, whatever the rule's glob would say. */
Test(httpmatch, bypass_attempts)
{
	static const struct {
		const char *target;
		enum policy_http_path_issue issue;
	} v[] = {
		{ "/acme/../other", POLICY_HTTP_PATH_DOT_SEGMENT },
		{ "/acme/./x", POLICY_HTTP_PATH_DOT_SEGMENT },
		{ "/acme/x/..", POLICY_HTTP_PATH_DOT_SEGMENT },
		{ "/acme/x/.", POLICY_HTTP_PATH_DOT_SEGMENT },
		{ "/acme/x/..?q", POLICY_HTTP_PATH_DOT_SEGMENT },
		{ "/acme//other", POLICY_HTTP_PATH_EMPTY_SEGMENT },
		{ "//evil.example/acme/x", POLICY_HTTP_PATH_EMPTY_SEGMENT },
		{ "/acme/..\\other", POLICY_HTTP_PATH_BACKSLASH },
		{ "/acme/..%5cother", POLICY_HTTP_PATH_BACKSLASH },
		{ "/acme/x%5Cy", POLICY_HTTP_PATH_BACKSLASH },
		{ "/acme/..;/other", POLICY_HTTP_PATH_SEMICOLON },
		{ "/acme/x;jsessionid=1", POLICY_HTTP_PATH_SEMICOLON },
		{ "/acme%2f..%2fother", POLICY_HTTP_PATH_PCT_SLASH },
		{ "/acme/x%2Fy", POLICY_HTTP_PATH_PCT_SLASH },
		{ "/acme/%2e%2e/other", POLICY_HTTP_PATH_PCT_DOT },
		{ "/acme/.%2E/other", POLICY_HTTP_PATH_PCT_DOT },
		{ "/acme/%252e%252e/other", POLICY_HTTP_PATH_PCT_PERCENT },
		{ "/acme/x%00.json", POLICY_HTTP_PATH_PCT_CONTROL },
		{ "/acme/x%0d%0aHost:%20evil", POLICY_HTTP_PATH_PCT_CONTROL },
		{ "/acme/x%7f", POLICY_HTTP_PATH_PCT_CONTROL },
		{ "/acme/%u002e%u002e/other", POLICY_HTTP_PATH_PCT_MALFORMED },
		{ "/acme/x%", POLICY_HTTP_PATH_PCT_MALFORMED },
		{ "/acme/x%2", POLICY_HTTP_PATH_PCT_MALFORMED },
		{ "/acme/%c0%ae%c0%ae/other", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%C1%9C", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%e0%80%ae", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%f0%80%80%ae", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%f8%80", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%ef%bc%8f..%ef%bc%8fother", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%EF%BC%8E%EF%BC%8E/other", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/%ef%bc%bcother", POLICY_HTTP_PATH_PCT_OVERLONG },
		{ "/acme/x y", POLICY_HTTP_PATH_BAD_BYTE },
		{ "/acme/x\ty", POLICY_HTTP_PATH_BAD_BYTE },
		{ "/acme/caf\xc3\xa9", POLICY_HTTP_PATH_BAD_BYTE },
		{ "/acme/x#frag", POLICY_HTTP_PATH_BAD_BYTE },
		{ "/acme/x?q=a b", POLICY_HTTP_PATH_BAD_BYTE },
		{ "/acme/x?q=\x01", POLICY_HTTP_PATH_BAD_BYTE },
	};
	struct policy_http_decision d;
	set_rules(acme, N_ELEMS(acme));
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(decide("GET", v[i].target, &d), POLICY_HTTP_REFUSED, "%s", v[i].target);
		cr_assert_eq(d.why, POLICY_HTTP_WHY_UNSAFE_PATH, "%s: %d", v[i].target, d.why);
		cr_assert_eq(d.issue, v[i].issue, "%s: %d", v[i].target, d.issue);
		cr_assert_not(d.has_suggestion, "%s", v[i].target);
		cr_assert(policy_http_path_issue_reason(d.issue)[0]);
	}
	/* the same forms in a query are data, not a path */
	cr_assert_eq(decide("GET", "/acme/x?next=/a/../b%2f%2e;%00", &d), POLICY_HTTP_ALLOWED);
	/* neighbours that are not dot segments or encodings of separators */
	static const char *const fine[] = {
		"/acme/..x", "/acme/x..", "/acme/.well-known", "/acme/a.b.c", "/acme/%20%41%c3%a9",
		"/acme/%e0%a0%80", "/acme/%ef%bc%a1", "/acme/*", "/acme/x/",
	};
	for (size_t i = 0; i < N_ELEMS(fine); i++)
		cr_assert_eq(decide("GET", fine[i], &d), POLICY_HTTP_ALLOWED, "%s", fine[i]);
}

Test(httpmatch, any_path_rule_needs_no_clean_path)
{
	static const char *const r[] = { "GET https://api.example/acme/*", "GET https://api.example/*" };
	struct policy_http_decision d;
	set_rules(r, 1);
	cr_assert_eq(decide("GET", "/acme/../x", &d), POLICY_HTTP_REFUSED);
	set_rules(r, 2);
	cr_assert_eq(decide("GET", "/acme/../x", &d), POLICY_HTTP_ALLOWED, "'/*' allows any path");
	cr_assert_eq(d.rule_index, 1);
	cr_assert_eq(decide("GET", "/acme/x", &d), POLICY_HTTP_ALLOWED);
	cr_assert_eq(d.rule_index, 0, "the first rule that allows names itself");
	cr_assert_eq(decide("POST", "/acme/../x", &d), POLICY_HTTP_REFUSED);
}

Test(httpmatch, not_origin_form)
{
	static const char *const r[] = { "* https://api.example/*" };
	static const char *const targets[] = { "*", "https://api.example/x", "api.example:443", "" };
	struct policy_http_decision d;
	set_rules(r, 1);
	for (size_t i = 0; i < N_ELEMS(targets); i++) {
		cr_assert_eq(decide("GET", targets[i], &d), POLICY_HTTP_REFUSED, "%s", targets[i]);
		cr_assert_eq(d.why, POLICY_HTTP_WHY_NOT_ORIGIN_FORM, "%s", targets[i]);
		cr_assert_not(d.has_suggestion);
	}
}

Test(httpmatch, method_overrides)
{
	static const char *const r[] = { "GET,POST https://api.example/acme/*" };
	struct policy_http_decision d;
	set_rules(r, 1);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "POST", "/acme/x", true,
			       &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_eq(d.why, POLICY_HTTP_WHY_METHOD_OVERRIDE);
	cr_assert_not(d.has_suggestion);
	cr_assert_eq(decide("POST", "/acme/x?_method=DELETE", &d), POLICY_HTTP_REFUSED);
	cr_assert_eq(d.why, POLICY_HTTP_WHY_METHOD_OVERRIDE);
	cr_assert_eq(decide("POST", "/acme/x?a=1&_method", &d), POLICY_HTTP_REFUSED);
	cr_assert_eq(decide("POST", "/acme/x?_methodx=1&my_method=2", &d), POLICY_HTTP_ALLOWED);
	/* every spelling a framework decodes to _method (escape corpus row 101) */
	static const char *const spellings[] = {
		"/acme/x?%5Fmethod=DELETE", "/acme/x?%5fmethod=DELETE", "/acme/x?_Method=DELETE",
		"/acme/x?_METHOD=DELETE", "/acme/x?%5F%6D%65%74%68%6F%64=DELETE",
		"/acme/x?a=1;_method=DELETE", "/acme/x?X-HTTP-Method-Override=DELETE",
		"/acme/x?x%2Dhttp%2Dmethod=DELETE", "/acme/x?%zz=1", "/acme/x?_method%",
	};
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		cr_assert_eq(decide("POST", spellings[i], &d), POLICY_HTTP_REFUSED, "%s", spellings[i]);
		cr_assert_eq(d.why, POLICY_HTTP_WHY_METHOD_OVERRIDE, "%s", spellings[i]);
	}
	/* a value is not a key; a longer key is another key */
	cr_assert_eq(decide("POST", "/acme/x?q=_method", &d), POLICY_HTTP_ALLOWED);
	cr_assert_eq(decide("POST", "/acme/x?%5Fmethods=1", &d), POLICY_HTTP_ALLOWED);
	/* a rule for any method has nothing to override */
	static const char *const any[] = { "* https://api.example/acme/*" };
	set_rules(any, 1);
	cr_assert_eq(decide("POST", "/acme/x?_method=DELETE", &d), POLICY_HTTP_ALLOWED);

	cr_assert(policy_http_override_header((const uint8_t *)"X-HTTP-Method-Override", 22));
	cr_assert(policy_http_override_header((const uint8_t *)"x-http-method", 13));
	cr_assert(policy_http_override_header((const uint8_t *)"X-Method-Override", 17));
	cr_assert_not(policy_http_override_header((const uint8_t *)"X-HTTP-Method-Overrides", 23));
	cr_assert_not(policy_http_override_header((const uint8_t *)"Method", 6));
}

/* The suggestion for a refused request parses back into a rule that allows
 * exactly that method on that path. */
Test(httpmatch, suggestions_round_trip)
{
	static const struct {
		enum policy_http_scheme scheme;
		const char *host;
		uint16_t port;
		const char *method, *target, *want;
	} v[] = {
		{ POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "GET", "/v1/x", "GET https://api.example/v1/x" },
		{ POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "PUT", "/acme/x?y=1", "PUT https://api.example/acme/x" },
		{ POLICY_HTTP_SCHEME_HTTPS, "API.example", 8443, "GET", "/", "GET https://api.example:8443/" },
		{ POLICY_HTTP_SCHEME_HTTP, "api.example", 80, "DELETE", "/x", "DELETE http://api.example/x" },
		{ POLICY_HTTP_SCHEME_HTTP, "api.example", 443, "GET", "/x", "GET http://api.example:443/x" },
		{ POLICY_HTTP_SCHEME_HTTPS, "192.0.2.7", 443, "GET", "/x", "GET https://192.0.2.7/x" },
		{ POLICY_HTTP_SCHEME_HTTPS, "[2001:db8::1]", 8443, "GET", "/x", "GET https://[2001:db8::1]:8443/x" },
		{ POLICY_HTTP_SCHEME_HTTPS, "api.example", 443, "GET", "/a*b", "GET https://api.example/a*b" },
	};
	struct policy_http_decision d;
	set_rules(acme, N_ELEMS(acme));
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(decide_on(v[i].scheme, v[i].host, v[i].port, v[i].method, v[i].target,
				       false, &d),
			     POLICY_HTTP_REFUSED, "%s", v[i].target);
		cr_assert_eq(d.why, POLICY_HTTP_WHY_NO_RULE);
		cr_assert(d.has_suggestion, "%s %s", v[i].method, v[i].target);
		cr_assert_str_eq(d.suggestion, v[i].want);
		struct policy_http_rule back;
		cr_assert_eq(policy_http_rule_parse(d.suggestion, strlen(d.suggestion), &back, err,
						    sizeof(err)),
			     POLICY_HTTP_RULE_OK, "%s: %s", d.suggestion, err);
		struct policy_http_decision d2;
		struct policy_http_request req = {
			.scheme = v[i].scheme, .host = &host, .port = v[i].port,
			.method = (const uint8_t *)v[i].method, .method_len = strlen(v[i].method),
			.target = (const uint8_t *)v[i].target, .target_len = strlen(v[i].target),
		};
		cr_assert_eq(policy_http_decide(&back, 1, &req, &d2), POLICY_HTTP_ALLOWED, "%s",
			     d.suggestion);
		/* exactly: another method or path is not allowed by it */
		req.method = (const uint8_t *)"PATCH";
		req.method_len = 5;
		cr_assert_eq(policy_http_decide(&back, 1, &req, &d2), POLICY_HTTP_REFUSED);
		req.method = (const uint8_t *)v[i].method;
		req.method_len = strlen(v[i].method);
		req.target = (const uint8_t *)"/other";
		req.target_len = 6;
		if (strcmp(v[i].target, "/a*b") != 0)
			cr_assert_eq(policy_http_decide(&back, 1, &req, &d2), POLICY_HTTP_REFUSED);
	}
	/* nothing a rule cannot say: a lowercase or non-token method, an
	 * override, a reserved host */
	cr_assert_eq(decide("get", "/x", &d), POLICY_HTTP_REFUSED);
	cr_assert_not(d.has_suggestion);
	cr_assert_eq(decide("G(T", "/x", &d), POLICY_HTTP_REFUSED);
	cr_assert_not(d.has_suggestion);
	cr_assert_eq(decide("G,ET", "/x", &d), POLICY_HTTP_REFUSED, "a list is no method");
	cr_assert_not(d.has_suggestion);
	cr_assert_eq(decide("PUT", "/x?_method=GET", &d), POLICY_HTTP_REFUSED);
	cr_assert_not(d.has_suggestion);
	cr_assert_eq(decide_on(POLICY_HTTP_SCHEME_HTTPS, "localhost", 443, "GET", "/x", false, &d),
		     POLICY_HTTP_REFUSED);
	cr_assert_not(d.has_suggestion);
	cr_assert_str_eq(d.suggestion, "");
}

Test(httpmatch, endpoints)
{
	static const char *const r[] = {
		"GET https://api.example/a", "POST https://API.example:443/b",
		"GET http://api.example/c",  "GET https://registry.example:8443/",
		"GET http://api.example:443/d",
	};
	struct policy_http_endpoint eps[8];
	set_rules(r, N_ELEMS(r));
	size_t n = policy_http_endpoints(rules, n_rules, eps, N_ELEMS(eps));
	cr_assert_eq(n, 3);
	cr_assert_str_eq(eps[0].ep.name, "api.example");
	cr_assert_eq(eps[0].ep.port, 443);
	cr_assert(eps[0].https && eps[0].http, "http://api.example:443 names it too");
	cr_assert_eq(eps[1].ep.port, 80);
	cr_assert(eps[1].http && !eps[1].https);
	cr_assert_str_eq(eps[2].ep.name, "registry.example");
	cr_assert_eq(eps[2].ep.port, 8443);
	cr_assert_eq(policy_http_endpoints(rules, n_rules, eps, 2), 2, "never more than cap");
	cr_assert_eq(policy_http_endpoints(rules, 0, eps, 8), 0);
}
