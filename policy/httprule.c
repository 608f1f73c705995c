/* policy/httprule.c: see httprule.h. */
#include "policy/httprule.h"

#include <stdio.h>
#include <string.h>

#include "common/ascii.h"

#define QUOTE_IN 64
#define QUOTE_CAP (QUOTE_IN * 4 + 4)

/* RFC 9110 §5.6.2: tchar, without '*' (httprule.h: '*' alone means any). */
static bool is_method_char(uint8_t c)
{
	if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return true;
	return c && strchr("!#$%&'+-.^_`|~", c) != NULL;
}

static bool is_visible(uint8_t c)
{
	return c >= 0x21 && c <= 0x7e;
}

/* The value of the two hex digits at p[0..2), or -1. */
static int hex2(const uint8_t *p)
{
	int hi = ascii_hex_value(p[0]), lo = ascii_hex_value(p[1]);
	return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/* The byte a "%XX" at p[i] encodes when p[i..n) starts with one, else -1. */
static int pct_at(const uint8_t *p, size_t n, size_t i)
{
	return i + 3 <= n && p[i] == '%' ? hex2(p + i + 1) : -1;
}

/* Overlong UTF-8 and full-width look-alikes starting at the "%XX" of p[i]
 * whose value is b (httprule.h). */
static bool pct_overlong(const uint8_t *p, size_t n, size_t i, int b)
{
	int next = pct_at(p, n, i + 3);

	if (b == 0xc0 || b == 0xc1 || b >= 0xf5)
		return true;
	if (b == 0xe0 && next >= 0x80 && next <= 0x9f)
		return true;
	if (b == 0xf0 && next >= 0x80 && next <= 0x8f)
		return true;
	if (b == 0xef && next == 0xbc) {
		int third = pct_at(p, n, i + 6);
		return third == 0x8f || third == 0x8e || third == 0xbc;
	}
	return false;
}

enum policy_http_path_issue policy_http_path_check(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (!is_visible(c) || c == '#')
			return POLICY_HTTP_PATH_BAD_BYTE;
		if (c == '\\')
			return POLICY_HTTP_PATH_BACKSLASH;
		if (c == ';')
			return POLICY_HTTP_PATH_SEMICOLON;
		if (c == '/') {
			/* the segment after this slash: "", ".", ".." end at the next
			 * '/' or the end of the path */
			size_t j = i + 1;
			while (j < n && p[j] != '/')
				j++;
			size_t seg = j - i - 1;
			if (seg == 0 && j < n)
				return POLICY_HTTP_PATH_EMPTY_SEGMENT;
			if ((seg == 1 && p[i + 1] == '.') ||
			    (seg == 2 && p[i + 1] == '.' && p[i + 2] == '.'))
				return POLICY_HTTP_PATH_DOT_SEGMENT;
		}
		if (c != '%')
			continue;
		int b = pct_at(p, n, i);
		if (b < 0)
			return POLICY_HTTP_PATH_PCT_MALFORMED;
		if (b == '/')
			return POLICY_HTTP_PATH_PCT_SLASH;
		if (b == '.')
			return POLICY_HTTP_PATH_PCT_DOT;
		if (b == '\\')
			return POLICY_HTTP_PATH_BACKSLASH;
		if (b == '%')
			return POLICY_HTTP_PATH_PCT_PERCENT;
		if (b < 0x20 || b == 0x7f)
			return POLICY_HTTP_PATH_PCT_CONTROL;
		if (pct_overlong(p, n, i, b))
			return POLICY_HTTP_PATH_PCT_OVERLONG;
	}
	return POLICY_HTTP_PATH_CLEAN;
}

const char *policy_http_path_issue_reason(enum policy_http_path_issue issue)
{
	switch (issue) {
	case POLICY_HTTP_PATH_CLEAN: return "clean";
	case POLICY_HTTP_PATH_BAD_BYTE: return "the path holds a byte outside visible ASCII, or '#'";
	case POLICY_HTTP_PATH_DOT_SEGMENT: return "the path holds a '.' or '..' segment";
	case POLICY_HTTP_PATH_EMPTY_SEGMENT: return "the path holds an empty segment ('//')";
	case POLICY_HTTP_PATH_BACKSLASH: return "the path holds a backslash, raw or as %5c";
	case POLICY_HTTP_PATH_SEMICOLON: return "the path holds ';' (path parameters)";
	case POLICY_HTTP_PATH_PCT_SLASH: return "the path holds an encoded '/' (%2f)";
	case POLICY_HTTP_PATH_PCT_DOT: return "the path holds an encoded '.' (%2e)";
	case POLICY_HTTP_PATH_PCT_PERCENT: return "the path holds an encoded '%' (%25): double encoding";
	case POLICY_HTTP_PATH_PCT_CONTROL: return "the path holds an encoded control byte (%00-%1f, %7f)";
	case POLICY_HTTP_PATH_PCT_MALFORMED: return "the path holds a '%' not followed by two hex digits";
	case POLICY_HTTP_PATH_PCT_OVERLONG:
		return "the path holds an overlong or full-width encoding of '/', '.' or '\\'";
	}
	return "the path is unsafe";
}

/* Reads the METHODS word m[0..n) into out. */
static enum policy_http_rule_status parse_methods(const char *m, size_t n,
						  struct policy_http_rule *out, const char *q,
						  char *err, size_t cap)
{
	const char *p = m, *end = m + n;

	if (n == 1 && m[0] == '*') {
		out->any_method = true;
		return POLICY_HTTP_RULE_OK;
	}
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t k = (size_t)((comma ? comma : end) - p);
		if (k == 0)
			return POLICY_SAY(POLICY_HTTP_RULE_EMPTY_METHOD, err, cap,
				    "--allow-http '%s': an empty method; expected METHOD[,METHOD...] or '*'",
				    q);
		if (k == 1 && p[0] == '*')
			return POLICY_SAY(POLICY_HTTP_RULE_STAR_IN_LIST, err, cap,
				    "--allow-http '%s': '*' means any method and stands alone, not in a list",
				    q);
		for (size_t i = 0; i < k; i++) {
			uint8_t c = (uint8_t)p[i];
			if (!is_method_char(c))
				return POLICY_SAY(POLICY_HTTP_RULE_BAD_METHOD, err, cap,
					    "--allow-http '%s': a method is a token of letters, digits and !#$%%&'+-.^_`|~ (RFC 9110), as GET",
					    q);
			if (c >= 'a' && c <= 'z')
				return POLICY_SAY(POLICY_HTTP_RULE_LOWER_METHOD, err, cap,
					    "--allow-http '%s': methods are case-sensitive and sent upper-case: write GET, not get",
					    q);
		}
		if (k > POLICY_HTTP_METHOD_MAX)
			return POLICY_SAY(POLICY_HTTP_RULE_METHOD_TOO_LONG, err, cap,
				    "--allow-http '%s': a method is longer than %d bytes", q,
				    POLICY_HTTP_METHOD_MAX);
		for (size_t i = 0; i < out->n_methods; i++)
			if (strlen(out->methods[i]) == k && memcmp(out->methods[i], p, k) == 0)
				return POLICY_SAY(POLICY_HTTP_RULE_DUP_METHOD, err, cap,
					    "--allow-http '%s': a method is listed twice", q);
		if (out->n_methods == POLICY_HTTP_METHODS_MAX)
			return POLICY_SAY(POLICY_HTTP_RULE_TOO_MANY_METHODS, err, cap,
				    "--allow-http '%s': more than %d methods", q,
				    POLICY_HTTP_METHODS_MAX);
		memcpy(out->methods[out->n_methods], p, k);
		out->methods[out->n_methods][k] = '\0';
		out->n_methods++;
		if (!comma)
			return POLICY_HTTP_RULE_OK;
		p = comma + 1;
	}
}

/* Reads the URL word u[0..n) into out. */
static enum policy_http_rule_status parse_url(const char *u, size_t n, struct policy_http_rule *out,
					      const char *q, char *err, size_t cap)
{
	const char *sep = n >= 3 ? memmem(u, n, "://", 3) : NULL;
	char hostq[QUOTE_CAP];

	if (!sep)
		return POLICY_SAY(POLICY_HTTP_RULE_NO_SCHEME, err, cap,
			    "--allow-http '%s': the URL needs its scheme: https://HOST/PATH or http://HOST/PATH",
			    q);
	size_t sl = (size_t)(sep - u);
	if (ascii_eq_lit_nocase((const uint8_t *)u, sl, "https"))
		out->scheme = POLICY_HTTP_SCHEME_HTTPS;
	else if (ascii_eq_lit_nocase((const uint8_t *)u, sl, "http"))
		out->scheme = POLICY_HTTP_SCHEME_HTTP;
	else
		return POLICY_SAY(POLICY_HTTP_RULE_BAD_SCHEME, err, cap,
			    "--allow-http '%s': the scheme must be https:// or http://", q);

	const char *auth = sep + 3, *end = u + n, *stop = auth;
	while (stop < end && *stop != '/' && *stop != '?' && *stop != '#')
		stop++;
	if (stop == end || *stop != '/')
		return POLICY_SAY(POLICY_HTTP_RULE_NO_PATH, err, cap,
			    "--allow-http '%s': the URL needs a path after the host, as https://HOST/ or https://HOST/v1/*",
			    q);

	/* The authority goes through --allow-net's grammar with the rule's
	 * scheme in front, so the scheme's default port comes from the one
	 * table in netrule.c (policy/endpoint.h). */
	char hosttext[sizeof("https://") + POLICY_NET_RULE_TEXT_MAX];
	size_t al = (size_t)(stop - auth);
	const char *scheme = out->scheme == POLICY_HTTP_SCHEME_HTTPS ? "https://" : "http://";
	size_t hl = strlen(scheme);
	policy_quote(auth, al, QUOTE_IN, hostq, sizeof(hostq));
	if (al > POLICY_NET_RULE_TEXT_MAX)
		return POLICY_SAY(POLICY_HTTP_RULE_BAD_HOST, err, cap, "--allow-http '%s': host '%s': %s",
			    q, hostq, policy_net_rule_reason(POLICY_NET_RULE_TOO_LONG));
	memcpy(hosttext, scheme, hl);
	memcpy(hosttext + hl, auth, al);
	enum policy_net_rule_status rst;
	enum policy_endpoint_status est = policy_endpoint_parse(hosttext, hl + al, &out->host, &rst);
	if (est == POLICY_ENDPOINT_RULE)
		return POLICY_SAY(POLICY_HTTP_RULE_BAD_HOST, err, cap, "--allow-http '%s': host '%s': %s",
			    q, hostq, policy_net_rule_reason(rst));
	if (est != POLICY_ENDPOINT_OK)
		return POLICY_SAY(POLICY_HTTP_RULE_BAD_HOST, err, cap,
			    "--allow-http '%s': host '%s': %s (a rule names one host and one port)", q,
			    hostq, policy_endpoint_reason(est));

	size_t pl = (size_t)(end - stop);
	if (memchr(stop, '#', pl))
		return POLICY_SAY(POLICY_HTTP_RULE_FRAGMENT, err, cap,
			    "--allow-http '%s': a fragment ('#') is never sent to the server; leave it out",
			    q);
	if (pl > POLICY_HTTP_PATH_MAX)
		return POLICY_SAY(POLICY_HTTP_RULE_PATH_TOO_LONG, err, cap,
			    "--allow-http '%s': the path is longer than %d bytes", q,
			    POLICY_HTTP_PATH_MAX);
	const char *qm = memchr(stop, '?', pl);
	size_t path_only = qm ? (size_t)(qm - stop) : pl;
	enum policy_http_path_issue issue = policy_http_path_check((const uint8_t *)stop, path_only);
	if (issue != POLICY_HTTP_PATH_CLEAN)
		return POLICY_SAY(POLICY_HTTP_RULE_UNSAFE_PATH, err, cap,
			    "--allow-http '%s': %s, and every request holding that is refused: the rule could never match",
			    q, policy_http_path_issue_reason(issue));
	memcpy(out->path, stop, pl);
	out->path[pl] = '\0';
	out->with_query = qm != NULL;
	return POLICY_HTTP_RULE_OK;
}

enum policy_http_rule_status policy_http_rule_parse(const char *text, size_t len,
						    struct policy_http_rule *out, char *err,
						    size_t err_cap)
{
	char q[QUOTE_CAP];
	size_t a = 0, b = len;

	memset(out, 0, sizeof(*out));
	if (err_cap)
		err[0] = '\0';
	policy_quote(text, len, QUOTE_IN, q, sizeof(q));
	if (len > POLICY_HTTP_RULE_TEXT_MAX)
		return POLICY_SAY(POLICY_HTTP_RULE_TOO_LONG, err, err_cap,
			    "--allow-http '%s': too long (at most %d bytes)", q,
			    POLICY_HTTP_RULE_TEXT_MAX);
	for (size_t i = 0; i < len; i++)
		if (text[i] != ' ' && !is_visible((uint8_t)text[i]))
			return POLICY_SAY(POLICY_HTTP_RULE_BAD_BYTE, err, err_cap,
				    "--allow-http '%s': byte %zu is not visible ASCII; percent-encode it as the client sends it",
				    q, i + 1);
	while (a < b && text[a] == ' ')
		a++;
	while (b > a && text[b - 1] == ' ')
		b--;
	if (a == b)
		return POLICY_SAY(POLICY_HTTP_RULE_EMPTY, err, err_cap,
			    "--allow-http '%s': empty; expected 'METHODS URL', as 'GET,HEAD https://api.example/v1/*'",
			    q);
	const char *sp = memchr(text + a, ' ', b - a);
	if (!sp)
		return POLICY_SAY(POLICY_HTTP_RULE_NO_URL, err, err_cap,
			    "--allow-http '%s': expected 'METHODS URL', as 'GET,HEAD https://api.example/v1/*'",
			    q);
	const char *url = sp;
	while (*url == ' ')
		url++;
	size_t ul = (size_t)(text + b - url);
	if (memchr(url, ' ', ul))
		return POLICY_SAY(POLICY_HTTP_RULE_EXTRA_WORD, err, err_cap,
			    "--allow-http '%s': more than two words; expected 'METHODS URL' (a space in a path is sent as %%20)",
			    q);
	enum policy_http_rule_status st =
		parse_methods(text + a, (size_t)(sp - (text + a)), out, q, err, err_cap);
	if (st != POLICY_HTTP_RULE_OK)
		return st;
	st = parse_url(url, ul, out, q, err, err_cap);
	if (st != POLICY_HTTP_RULE_OK)
		return st;
	memcpy(out->text, text, len);
	out->text[len] = '\0';
	return POLICY_HTTP_RULE_OK;
}

bool policy_http_override_header(const uint8_t *name, size_t n)
{
	return ascii_eq_lit_nocase(name, n, "x-http-method-override") ||
	       ascii_eq_lit_nocase(name, n, "x-http-method") ||
	       ascii_eq_lit_nocase(name, n, "x-method-override");
}

/* Glob: '*' matches any run of bytes (httprule.h).  The classic
 * backtracking to the last '*' is enough: an earlier '*' never needs to
 * take more, since the later one can absorb it. */
static bool glob_match(const char *pat, const uint8_t *s, size_t n)
{
	size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;
	size_t pn = strlen(pat);

	while (si < n) {
		if (pi < pn && pat[pi] == '*') {
			star_p = pi++;
			star_s = si;
		} else if (pi < pn && (uint8_t)pat[pi] == s[si]) {
			pi++;
			si++;
		} else if (star_p != (size_t)-1) {
			pi = star_p + 1;
			si = ++star_s;
		} else {
			return false;
		}
	}
	while (pi < pn && pat[pi] == '*')
		pi++;
	return pi == pn;
}

static bool method_listed(const struct policy_http_rule *r, const uint8_t *m, size_t n)
{
	if (r->any_method)
		return true;
	for (size_t i = 0; i < r->n_methods; i++)
		if (strlen(r->methods[i]) == n && memcmp(r->methods[i], m, n) == 0)
			return true;
	return false;
}

static int hex_value(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

bool policy_http_override_query_key(const uint8_t *k, size_t n)
{
	/* The key as a framework reads it: percent-decoded once ('+' is a
	 * space), compared without case (Rails, Laravel, Express's
	 * method-override read "_method"; some read the override headers'
	 * names as query keys too).  A key that does not decode cleanly is
	 * taken as an override: refusing it costs a malformed request. */
	char key[32];
	size_t kn = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = k[i];
		if (c == '%') {
			int hi = i + 2 < n ? hex_value(k[i + 1]) : -1;
			int lo = i + 2 < n ? hex_value(k[i + 2]) : -1;
			if (hi < 0 || lo < 0)
				return true;
			c = (uint8_t)(hi * 16 + lo);
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (kn == sizeof(key))
			return false; /* longer than any override's name */
		key[kn++] = (char)c;
	}
	return ascii_eq_lit_nocase((const uint8_t *)key, kn, "_method") ||
	       policy_http_override_header((const uint8_t *)key, kn);
}

/* A method-override parameter in the query q[0..n) (policy_http_override_query_key()). */
static bool query_overrides(const uint8_t *q, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && q[j] != '&' && q[j] != ';')
			j++;
		const uint8_t *eq = memchr(q + i, '=', j - i);
		if (policy_http_override_query_key(q + i, eq ? (size_t)(eq - (q + i)) : j - i))
			return true;
		i = j + 1;
	}
	return false;
}

static void suggest(const struct policy_http_request *req, size_t path_len,
		    struct policy_http_decision *out)
{
	struct policy_endpoint ep = { 0 };
	char host[POLICY_ENDPOINT_STRLEN];
	bool https = req->scheme == POLICY_HTTP_SCHEME_HTTPS;
	struct policy_http_rule back;

	ep.is_addr = req->host->is_addr;
	ep.port = req->port;
	if (ep.is_addr)
		ep.addr = policy_addr_unmap(&req->host->addr);
	else
		memcpy(ep.name, req->host->name, sizeof(ep.name));
	policy_endpoint_format(&ep, https ? 443 : 80, host);
	int k = snprintf(out->suggestion, sizeof(out->suggestion), "%.*s %s://%s%.*s",
			 (int)req->method_len, (const char *)req->method, https ? "https" : "http",
			 host, (int)path_len, (const char *)req->target);
	if (k < 0 || (size_t)k >= sizeof(out->suggestion) || req->method_len > POLICY_HTTP_METHOD_MAX)
		goto none;
	/* The method must be one token: "G,ET" would read back as the list
	 * G and ET, a rule that allows neither this request nor what it says. */
	for (size_t i = 0; i < req->method_len; i++)
		if (!is_method_char(req->method[i]))
			goto none;
	/* Offered only when it reads back as a rule: a method or host the
	 * grammar refuses (a lowercase method, "localhost") gets none. */
	if (policy_http_rule_parse(out->suggestion, (size_t)k, &back, NULL, 0) != POLICY_HTTP_RULE_OK)
		goto none;
	out->has_suggestion = true;
	return;
none:
	out->suggestion[0] = '\0';
}

enum policy_http_verdict policy_http_decide(const struct policy_http_rule *rules, size_t n,
					    const struct policy_http_request *req,
					    struct policy_http_decision *out)
{
	const uint8_t *t = req->target;
	size_t tn = req->target_len;
	bool saw_unsafe = false, saw_override = false;

	memset(out, 0, sizeof(*out));
	out->verdict = POLICY_HTTP_REFUSED;
	if (tn == 0 || t[0] != '/') {
		out->why = POLICY_HTTP_WHY_NOT_ORIGIN_FORM;
		return out->verdict;
	}
	const uint8_t *qm = memchr(t, '?', tn);
	size_t path_len = qm ? (size_t)(qm - t) : tn;
	/* the query is checked for raw bytes as the path is: '#' and controls
	 * are never part of a request-target */
	out->issue = policy_http_path_check(t, path_len);
	for (size_t i = path_len; i < tn && out->issue == POLICY_HTTP_PATH_CLEAN; i++)
		if (!is_visible(t[i]) || t[i] == '#')
			out->issue = POLICY_HTTP_PATH_BAD_BYTE;
	bool override = req->method_override ||
			(qm && query_overrides(qm + 1, tn - path_len - 1));

	for (size_t i = 0; i < n; i++) {
		const struct policy_http_rule *r = &rules[i];
		if (r->scheme != req->scheme || !policy_endpoint_matches(&r->host, req->host, req->port) ||
		    !method_listed(r, req->method, req->method_len))
			continue;
		bool any_path = !r->with_query && strcmp(r->path, "/*") == 0;
		if (!any_path) {
			if (out->issue != POLICY_HTTP_PATH_CLEAN) {
				saw_unsafe = true;
				continue;
			}
			if (!glob_match(r->path, t, r->with_query ? tn : path_len))
				continue;
		}
		if (!r->any_method && override) {
			saw_override = true;
			continue;
		}
		out->verdict = POLICY_HTTP_ALLOWED;
		out->why = POLICY_HTTP_WHY_RULE;
		out->rule = r;
		out->rule_index = i;
		return out->verdict;
	}
	if (saw_unsafe || out->issue != POLICY_HTTP_PATH_CLEAN)
		out->why = POLICY_HTTP_WHY_UNSAFE_PATH;
	else if (saw_override)
		out->why = POLICY_HTTP_WHY_METHOD_OVERRIDE;
	else
		out->why = POLICY_HTTP_WHY_NO_RULE;
	if (out->why == POLICY_HTTP_WHY_NO_RULE && !override)
		suggest(req, path_len, out);
	return out->verdict;
}

const char *policy_http_why_reason(enum policy_http_why why)
{
	switch (why) {
	case POLICY_HTTP_WHY_RULE: return "allowed by a rule";
	case POLICY_HTTP_WHY_NO_RULE: return "no --allow-http rule allows this method and path";
	case POLICY_HTTP_WHY_NOT_ORIGIN_FORM:
		return "the request-target is not a path starting with '/'";
	case POLICY_HTTP_WHY_UNSAFE_PATH:
		return "the path holds a form servers may read as another path";
	case POLICY_HTTP_WHY_METHOD_OVERRIDE:
		return "the request overrides its method (X-HTTP-Method-Override or _method), which a rule listing methods does not allow";
	}
	return "refused";
}

size_t policy_http_endpoints(const struct policy_http_rule *rules, size_t n,
			     struct policy_http_endpoint *out, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && !policy_endpoint_equal(&out[j].ep, &rules[i].host))
			j++;
		if (j == k) {
			if (k == cap)
				continue;
			memset(&out[k], 0, sizeof(out[k]));
			out[k].ep = rules[i].host;
			k++;
		}
		if (rules[i].scheme == POLICY_HTTP_SCHEME_HTTPS)
			out[j].https = true;
		else
			out[j].http = true;
	}
	return k;
}
