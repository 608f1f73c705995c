/* tests/unit/policy/test_netrule.c: network rules parsed, refused with a
 * reason, compiled from options and decided on (policy/netrule.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/netrule.h"
#include "policy/options.h"
#include "policy/reason.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static enum policy_net_rule_status parse(const char *text, struct policy_net_rule *r)
{
	size_t n = strlen(text);
	char *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, text, n);
	enum policy_net_rule_status st =
		policy_net_rule_parse(c, n, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, r);
	free(c);
	return st;
}

static const struct {
	const char *text;
	enum policy_net_rule_kind kind;
	const char *pattern; /* or the address/prefix for ADDR and CIDR */
	unsigned prefix;
	unsigned lo, hi;
} good[] = {
	{ "github.com", POLICY_NET_RULE_NAME, "github.com", 0, 443, 443 },
	{ "GitHub.COM.:22", POLICY_NET_RULE_NAME, "github.com", 0, 22, 22 },
	{ "*.npmjs.org:443", POLICY_NET_RULE_SUFFIX, "*.npmjs.org", 0, 443, 443 },
	{ "*.Allowed.Test.", POLICY_NET_RULE_SUFFIX, "*.allowed.test", 0, 443, 443 },
	{ "*.co.uk", POLICY_NET_RULE_SUFFIX, "*.co.uk", 0, 443, 443 },
	{ "*", POLICY_NET_RULE_ANY, "*", 0, 443, 443 },
	{ "*:80", POLICY_NET_RULE_ANY, "*", 0, 80, 80 },
	{ "example.com:1", POLICY_NET_RULE_NAME, "example.com", 0, 1, 1 },
	{ "example.com:65535", POLICY_NET_RULE_NAME, "example.com", 0, 65535, 65535 },
	{ "example.com:8000-9023", POLICY_NET_RULE_NAME, "example.com", 0, 8000, 9023 },
	{ "example.com:80-80", POLICY_NET_RULE_NAME, "example.com", 0, 80, 80 },
	{ "example.com:64512-65535", POLICY_NET_RULE_NAME, "example.com", 0, 64512, 65535 },
	{ "127.0.0.1:8080", POLICY_NET_RULE_ADDR, "127.0.0.1", 32, 8080, 8080 },
	{ "0.0.0.0", POLICY_NET_RULE_ADDR, "0.0.0.0", 32, 443, 443 },
	{ "[::1]:8080", POLICY_NET_RULE_ADDR, "::1", 128, 8080, 8080 },
	{ "[2001:DB8::1]", POLICY_NET_RULE_ADDR, "2001:db8::1", 128, 443, 443 },
	{ "[::ffff:127.0.0.1]:80", POLICY_NET_RULE_ADDR, "127.0.0.1", 32, 80, 80 },
	{ "[::ffff:10.0.0.0/104]:80", POLICY_NET_RULE_CIDR, "10.0.0.0", 8, 80, 80 },
	{ "[::/0]:80", POLICY_NET_RULE_CIDR, "::", 0, 80, 80 },
	{ "10.0.0.0/8:22", POLICY_NET_RULE_CIDR, "10.0.0.0", 8, 22, 22 },
	{ "0.0.0.0/0:1-1024", POLICY_NET_RULE_CIDR, "0.0.0.0", 0, 1, 1024 },
	{ "[fd00::/8]:5432", POLICY_NET_RULE_CIDR, "fd00::", 8, 5432, 5432 },
	{ "[fd00::/8]", POLICY_NET_RULE_CIDR, "fd00::", 8, 443, 443 },
	{ "_srv.example.com", POLICY_NET_RULE_NAME, "_srv.example.com", 0, 443, 443 },
	/* URLs as pasted: the host and the scheme's port, or the URL's own */
	{ "https://registry.example", POLICY_NET_RULE_NAME, "registry.example", 0, 443, 443 },
	{ "http://registry.example/", POLICY_NET_RULE_NAME, "registry.example", 0, 80, 80 },
	{ "HTTPS://Registry.Example.:8443/", POLICY_NET_RULE_NAME, "registry.example", 0, 8443, 8443 },
	{ "wss://a.test", POLICY_NET_RULE_NAME, "a.test", 0, 443, 443 },
	{ "ws://a.test", POLICY_NET_RULE_NAME, "a.test", 0, 80, 80 },
	{ "http://[::1]:8080", POLICY_NET_RULE_ADDR, "::1", 128, 8080, 8080 },
	{ "https://10.0.0.1/", POLICY_NET_RULE_ADDR, "10.0.0.1", 32, 443, 443 },
	{ "https://*.registry.example", POLICY_NET_RULE_SUFFIX, "*.registry.example", 0, 443, 443 },
};

Test(netrule, good_vectors)
{
	struct policy_net_rule r;
	char buf[POLICY_ADDR_STRLEN];
	for (size_t i = 0; i < N_ELEMS(good); i++) {
		enum policy_net_rule_status st = parse(good[i].text, &r);
		cr_assert_eq(st, POLICY_NET_RULE_OK, "%s: %s", good[i].text, policy_net_rule_reason(st));
		cr_assert_eq(r.kind, good[i].kind, "%s", good[i].text);
		if (r.kind == POLICY_NET_RULE_ADDR || r.kind == POLICY_NET_RULE_CIDR) {
			cr_assert_str_eq(policy_addr_format(&r.net.addr, buf), good[i].pattern);
			cr_assert_eq(r.net.prefix, good[i].prefix, "%s", good[i].text);
		} else {
			cr_assert_str_eq(r.pattern, good[i].pattern, "%s", good[i].text);
		}
		cr_assert_eq(r.port_lo, good[i].lo, "%s", good[i].text);
		cr_assert_eq(r.port_hi, good[i].hi, "%s", good[i].text);
		cr_assert_str_eq(r.text, good[i].text);
		cr_assert_eq(r.action, POLICY_NET_ALLOW);
	}
}

/* One vector list per refusal class. */
static const struct {
	enum policy_net_rule_status st;
	const char *texts[12];
} refused[] = {
	{ POLICY_NET_RULE_EMPTY, { "", ":443", ":" } },
	{ POLICY_NET_RULE_BAD_NAME,
	  { "exa mple.com", "a..b", ".", "..", "a%2e.com", "caf\xc3\xa9.fr", "\xd0\xb0llowed.test",
	    "allowed.test\r", "a_b.c\n" } },
	{ POLICY_NET_RULE_BAD_WILDCARD, { "**", "*.*.com", "a.*.com", "*example.com", "*.", "ex*.com" } },
	{ POLICY_NET_RULE_TLD_WILDCARD, { "*.com", "*.COM.", "*.co:80", "*.test" } },
	{ POLICY_NET_RULE_LOCALHOST,
	  { "localhost", "LOCALHOST", "localhost.", "localhost:8080", "*.localhost", "a.localhost",
	    "*.b.localhost" } },
	{ POLICY_NET_RULE_METADATA_NAME,
	  { "metadata.google.internal", "Metadata.Azure.Internal.:80" } },
	{ POLICY_NET_RULE_IP_SPELLING,
	  { "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "010.0.0.1", "1.2.3.4.5",
	    "256.0.0.1", "1.2.3.4.:443", "*.1.2" } },
	{ POLICY_NET_RULE_BAD_ADDR,
	  { "[::1", "[]", "[::1]x", "[fd00::]/8", "[10.0.0.0/8]", "[1.2.3.4]", "[gg::1]",
	    "10.0.0/8", "10.0.0.0/33", "1.2.3.4/08", "a/b.com:80" } },
	{ POLICY_NET_RULE_UNBRACKETED_V6, { "::1", "::1:443", "2001:db8::1", "fe80::1%lo" } },
	{ POLICY_NET_RULE_ZONE_ID, { "[fe80::1%eth0]", "[fe80::1%25eth0]:22", "[fe80::%lo/64]" } },
	{ POLICY_NET_RULE_HOST_BITS, { "10.0.0.1/8", "[fd00::1/8]:22", "192.168.1.1/16" } },
	/* escape corpus row 33: leading zeros and overflow */
	{ POLICY_NET_RULE_BAD_PORT,
	  { "a.test:0443", "a.test:65979", "a.test:65536", "a.test:+1", "a.test:-1", "a.test:1e3",
	    "a.test:99999999999", "a.test: 80", "a.test:80-", "a.test:-80", "a.test:1-2-3",
	    "a.test:00" } },
	{ POLICY_NET_RULE_PORT_ZERO, { "a.test:0", "a.test:0-10", "[::1]:0", "10.0.0.0/8:0" } },
	{ POLICY_NET_RULE_RANGE_REVERSED, { "a.test:443-80", "a.test:2-1" } },
	{ POLICY_NET_RULE_RANGE_TOO_BIG, { "a.test:1-1025", "a.test:1-65535", "*:1000-2024" } },
	{ POLICY_NET_RULE_URL_SCHEME, { "ftp://a.test", "://a.test", "git+ssh://a.test", "file:///x" } },
	{ POLICY_NET_RULE_URL_PATH,
	  { "https://a.test/path", "https://a.test?x=1", "https://a.test#f", "https://a.test//",
	    "http://a.test:80/index.html" } },
	{ POLICY_NET_RULE_URL_USERINFO, { "https://u@a.test", "https://u:p@a.test:443" } },
	{ POLICY_NET_RULE_URL_RANGE, { "https://a.test:1-5", "http://a.test:80-81/" } },
	{ POLICY_NET_RULE_EMPTY, { "https://", "https:///", "http://:80" } },
	{ POLICY_NET_RULE_LOCALHOST, { "https://localhost", "http://localhost:8080/" } },
	{ POLICY_NET_RULE_PORT_ZERO, { "https://a.test:0" } },
};

Test(netrule, refusals_by_class)
{
	struct policy_net_rule r;
	for (size_t c = 0; c < N_ELEMS(refused); c++) {
		for (size_t i = 0; i < N_ELEMS(refused[c].texts) && refused[c].texts[i]; i++) {
			enum policy_net_rule_status st = parse(refused[c].texts[i], &r);
			cr_assert_eq(st, refused[c].st, "'%s': got %d (%s), expected %d",
				     refused[c].texts[i], st, policy_net_rule_reason(st), refused[c].st);
			cr_assert_str_neq(policy_net_rule_reason(st), "");
		}
	}
}

Test(netrule, too_long)
{
	char text[400];
	struct policy_net_rule r;
	memset(text, 'a', sizeof(text));
	cr_assert_eq(policy_net_rule_parse(text, sizeof(text), POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, &r),
		     POLICY_NET_RULE_TOO_LONG);
	/* the longest valid rule fits: "*." + 253 + ":65000-65535" */
	size_t n = 0;
	memcpy(text, "*.", 2);
	n = 2;
	for (int k = 0; k < 4; k++) {
		memset(text + n, 'b', k < 3 ? 63 : 61);
		n += k < 3 ? 63 : 61;
		if (k < 3)
			text[n++] = '.';
	}
	cr_assert_eq(n, 255);
	memcpy(text + n, ":65000-65535", 12);
	n += 12;
	cr_assert_eq(policy_net_rule_parse(text, n, POLICY_NET_DENY, POLICY_NET_SCOPE_PROXY, &r),
		     POLICY_NET_RULE_OK);
	cr_assert_eq(r.action, POLICY_NET_DENY);
	cr_assert_eq(r.scope, POLICY_NET_SCOPE_PROXY);
	cr_assert_eq(strlen(r.text), n);
}

/* Each prefix of a good rule is either refused or a rule whose text is
 * that prefix; parsing never reads past it (exact-size copies). */
Test(netrule, truncation_sweep)
{
	static const char *const v[] = { "*.Example.COM.:8000-9000", "[2001:db8::/32]:1000-2000",
					 "10.0.0.0/8:22", "[::ffff:127.0.0.1]:80" };
	struct policy_net_rule r;
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		for (size_t k = 0; k <= strlen(v[i]); k++) {
			char *c = malloc(k ? k : 1);
			memcpy(c, v[i], k);
			if (policy_net_rule_parse(c, k, POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL, &r) ==
			    POLICY_NET_RULE_OK) {
				cr_assert_eq(strlen(r.text), k);
				cr_assert_eq(memcmp(r.text, v[i], k), 0);
			}
			free(c);
		}
	}
}

static struct policy_options opts_with(const char *allow, const char *deny, const char *pallow,
				       const char *pdeny)
{
	struct policy_options o;
	memset(&o, 0, sizeof(o));
	if (allow)
		o.allow_net.v[o.allow_net.n++] = allow;
	if (deny)
		o.deny_net.v[o.deny_net.n++] = deny;
	if (pallow)
		o.proxy_allow.v[o.proxy_allow.n++] = pallow;
	if (pdeny)
		o.proxy_deny.v[o.proxy_deny.n++] = pdeny;
	return o;
}

Test(netrule, compile)
{
	struct policy_net_rule rules[16];
	size_t n;
	char err[POLICY_ERR_MAX];
	struct policy_options o = opts_with("github.com,*.npmjs.org:443", "bad.npmjs.org",
					    "pypi.org", "10.0.0.0/8:1-1024");

	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_OK, "%s", err);
	cr_assert_eq(n, 5);
	cr_assert_str_eq(rules[1].text, "*.npmjs.org:443");
	cr_assert_eq(rules[2].action, POLICY_NET_DENY);
	cr_assert_eq(rules[2].scope, POLICY_NET_SCOPE_ALL);
	cr_assert_eq(rules[3].action, POLICY_NET_ALLOW);
	cr_assert_eq(rules[3].scope, POLICY_NET_SCOPE_PROXY);
	cr_assert_eq(rules[4].action, POLICY_NET_DENY);
	cr_assert_eq(rules[4].scope, POLICY_NET_SCOPE_PROXY);

	cr_assert_eq(policy_net_compile(&o, rules, 4, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "more than 4"), "%s", err);

	o = opts_with("ok.test,*.com", NULL, NULL, NULL);
	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "--allow-net '*.com': a wildcard over a whole top-level domain"), "%s", err);

	o = opts_with(NULL, NULL, NULL, "a.test:0");
	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "--proxy-deny 'a.test:0': port 0"), "%s", err);

	o = opts_with("a.test:1-2000,this-rule-is-longer-than-sixty-four-bytes-so-it-is-cut-when-shown.test",
		      NULL, NULL, NULL);
	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "--allow-net 'a.test:1-2000': a port range may span at most 1024"), "%s", err);
	o = opts_with("this-rule-is-longer.than-sixty-four-bytes.so-it-is-cut-when-shown.test:0",
		      NULL, NULL, NULL);
	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "...': port 0"), "%s", err);

	o = opts_with("bad\x1b[31m.test", NULL, NULL, NULL);
	cr_assert_eq(policy_net_compile(&o, rules, 16, &n, err), POLICY_NET_COMPILE_ERROR);
	cr_assert(strstr(err, "'bad\\x1b[31m.test'"), "control bytes escaped: %s", err);
	for (const char *p = err; *p; p++)
		cr_assert((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
}

static struct policy_addr A(const char *s)
{
	struct policy_addr a;
	cr_assert_eq(policy_addr_parse(s, strlen(s), &a), POLICY_ADDR_OK, "%s", s);
	return a;
}

static size_t compile(const char *allow, const char *deny, const char *pallow, const char *pdeny,
		      struct policy_net_rule *rules)
{
	char err[POLICY_ERR_MAX];
	size_t n;
	struct policy_options o = opts_with(allow, deny, pallow, pdeny);
	cr_assert_eq(policy_net_compile(&o, rules, 32, &n, err), POLICY_NET_COMPILE_OK, "%s", err);
	return n;
}

static enum policy_net_verdict decide(const struct policy_net_rule *rules, size_t n,
				      const char *name, const char *addr, uint16_t port,
				      bool via_proxy, struct policy_net_decision *d)
{
	struct policy_addr a;
	struct policy_net_query q = { .name = name, .port = port, .via_proxy = via_proxy };
	if (addr) {
		a = A(addr);
		q.addr = &a;
	}
	return policy_net_decide(rules, n, &q, d);
}

Test(netrule, decide_ports_and_deny_beats_allow)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("allowed.test:443,*.allowed.test:8000-8010", "bad.allowed.test:8005",
			   NULL, NULL, rules);

	cr_assert_eq(decide(rules, n, "allowed.test", NULL, 443, false, &d), POLICY_NET_ALLOWED);
	cr_assert_str_eq(d.rule->text, "allowed.test:443");
	cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_ALLOW);
	/* row 25: other ports of an allowed name */
	static const uint16_t other[] = { 80, 22, 8443, 442, 444 };
	for (size_t i = 0; i < N_ELEMS(other); i++) {
		cr_assert_eq(decide(rules, n, "allowed.test", NULL, other[i], false, &d),
			     POLICY_NET_NO_RULE, "port %u", other[i]);
		cr_assert_null(d.rule);
		cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_NO_RULE);
	}
	cr_assert_eq(decide(rules, n, "x.allowed.test", NULL, 8000, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, "allowed.test", NULL, 8010, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, "bad.allowed.test", NULL, 8004, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, "bad.allowed.test", NULL, 8005, false, &d), POLICY_NET_DENIED);
	cr_assert_str_eq(d.rule->text, "bad.allowed.test:8005");
	cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_DENY_RULE);
	/* row 33 against the suffix rule */
	cr_assert_eq(decide(rules, n, "evilallowed.test", NULL, 8000, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, "allowed.test.evil.test", NULL, 8000, false, &d),
		     POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, NULL, NULL, 443, false, &d), POLICY_NET_NO_RULE);
}

Test(netrule, decide_name_rules_never_reach_denied_addresses)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("*.allowed.test,*", NULL, NULL, NULL, rules);
	static const char *const denied[] = { "127.0.0.1", "169.254.169.254", "10.1.2.3", "::1",
					      "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "fd00:ec2::254",
					      "2002:7f00:1::", "0.0.0.0", "100.64.1.1", "224.0.0.1" };

	for (size_t i = 0; i < N_ELEMS(denied); i++) {
		cr_assert_eq(decide(rules, n, "www.allowed.test", denied[i], 443, false, &d),
			     POLICY_NET_NO_RULE, "%s", denied[i]);
		cr_assert_eq(d.reason, POLICY_NET_REASON_DENIED_ADDRESS);
		cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_DENIED_ADDRESS);
		cr_assert_neq(d.addr_class, POLICY_ADDR_PUBLIC);
	}
	cr_assert_eq(decide(rules, n, "www.allowed.test", "93.184.216.34", 443, false, &d),
		     POLICY_NET_ALLOWED);
	/* name rules never match a bare address */
	cr_assert_eq(decide(rules, n, NULL, "93.184.216.34", 443, false, &d), POLICY_NET_NO_RULE);
	/* the host's own addresses, a run-time set */
	struct policy_addr host = A("93.184.216.34");
	struct policy_addr a = A("::ffff:93.184.216.34");
	struct policy_net_query q = { .name = "www.allowed.test", .addr = &a, .port = 443,
				      .host_addrs = &host, .n_host_addrs = 1 };
	cr_assert_eq(policy_net_decide(rules, n, &q, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(d.addr_class, POLICY_ADDR_HOST);
}

Test(netrule, decide_reserved_names)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("*,*.google.internal", NULL, NULL, NULL, rules);

	cr_assert_eq(decide(rules, n, "localhost", NULL, 443, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_RESERVED_NAME);
	cr_assert_eq(decide(rules, n, "db.localhost", NULL, 443, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, "metadata.google.internal", NULL, 443, false, &d),
		     POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, "other.google.internal", NULL, 443, false, &d),
		     POLICY_NET_ALLOWED);
}

Test(netrule, decide_address_rules)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("127.0.0.1:8080,[::1]:8080,10.0.0.0/8:5432,[fd00::/8]:22", "10.9.0.0/16:5432",
			   NULL, NULL, rules);

	cr_assert_eq(decide(rules, n, NULL, "127.0.0.1", 8080, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, NULL, "::ffff:127.0.0.1", 8080, false, &d), POLICY_NET_ALLOWED,
		     "a dual-stack listener sees IPv4 as mapped");
	cr_assert_eq(decide(rules, n, NULL, "127.0.0.2", 8080, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, NULL, "127.0.0.1", 8081, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, NULL, "::1", 8080, false, &d), POLICY_NET_ALLOWED);
	n = compile("[::ffff:127.0.0.1]:8080", NULL, NULL, NULL, rules);
	cr_assert_eq(decide(rules, n, NULL, "127.0.0.1", 8080, false, &d), POLICY_NET_ALLOWED,
		     "a mapped rule is its IPv4 address");
	cr_assert_eq(decide(rules, n, NULL, "::ffff:127.0.0.1", 8080, false, &d), POLICY_NET_ALLOWED);
	n = compile("127.0.0.1:8080,[::1]:8080,10.0.0.0/8:5432,[fd00::/8]:22", "10.9.0.0/16:5432",
		    NULL, NULL, rules);
	cr_assert_eq(decide(rules, n, NULL, "::127.0.0.1", 8080, false, &d), POLICY_NET_NO_RULE,
		     "compatible form is not the mapped one");
	cr_assert_eq(decide(rules, n, NULL, "10.1.2.3", 5432, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, NULL, "10.9.2.3", 5432, false, &d), POLICY_NET_DENIED);
	cr_assert_eq(decide(rules, n, NULL, "fd12::1", 22, false, &d), POLICY_NET_ALLOWED);
	/* an address rule allows a named destination at that address */
	cr_assert_eq(decide(rules, n, "db.corp.test", "10.1.2.3", 5432, false, &d), POLICY_NET_ALLOWED);
}

/* escape row 45: a block that merely contains a default-denied address is a
 * rule for the public internet; only a block inside the class reaches it */
Test(netrule, decide_super_nets_never_reach_denied_addresses)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("0.0.0.0/0:443,[::/0]:443,0.0.0.0/1:443,128.0.0.0/1:443,[fc00::/6]:443,"
			   "[64:ff9b::/96]:443,[2002::/16]:443",
			   NULL, NULL, NULL, rules);
	static const char *const denied[] = { "127.0.0.1", "169.254.169.254", "10.1.2.3", "::1",
					      "::ffff:127.0.0.1", "64:ff9b::7f00:1", "fd00::1",
					      "2002:7f00:1::", "0.0.0.0", "100.64.1.1", "224.0.0.1",
					      "255.255.255.255", "192.168.1.1", "fe80::1", "ff02::1" };

	for (size_t i = 0; i < N_ELEMS(denied); i++) {
		cr_assert_eq(decide(rules, n, NULL, denied[i], 443, false, &d), POLICY_NET_NO_RULE,
			     "%s", denied[i]);
		cr_assert_eq(policy_reason_of_net(&d), POLICY_REASON_DENIED_ADDRESS, "%s", denied[i]);
	}
	cr_assert_eq(decide(rules, n, NULL, "93.184.216.34", 443, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, NULL, "2606:2800:220:1::1", 443, false, &d), POLICY_NET_ALLOWED);

	/* the host's own address inside an allowed public block */
	struct policy_addr host = A("93.184.216.34");
	struct policy_addr a = A("93.184.216.34");
	struct policy_net_query q = { .addr = &a, .port = 443, .host_addrs = &host, .n_host_addrs = 1 };
	cr_assert_eq(policy_net_decide(rules, n, &q, &d), POLICY_NET_NO_RULE);
	n = compile("93.184.216.34:443", NULL, NULL, NULL, rules);
	cr_assert_eq(policy_net_decide(rules, n, &q, &d), POLICY_NET_ALLOWED, "named exactly");

	/* blocks inside the class still reach it */
	n = compile("127.0.0.0/8:443,169.254.169.254:443,100.64.0.0/10:443,[64:ff9b::7f00:0/104]:443",
		    NULL, NULL, NULL, rules);
	static const char *const reached[] = { "127.0.0.1", "127.1.2.3", "169.254.169.254",
					       "100.64.1.1", "64:ff9b::7f00:1" };
	for (size_t i = 0; i < N_ELEMS(reached); i++)
		cr_assert_eq(decide(rules, n, NULL, reached[i], 443, false, &d), POLICY_NET_ALLOWED,
			     "%s", reached[i]);
	/* 169.254.0.0/16 is link-local: it does not name the metadata service */
	n = compile("169.254.0.0/16:443", NULL, NULL, NULL, rules);
	cr_assert_eq(decide(rules, n, NULL, "169.254.1.1", 443, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, NULL, "169.254.169.254", 443, false, &d), POLICY_NET_NO_RULE);
}

Test(netrule, decide_proxy_scope)
{
	struct policy_net_rule rules[32];
	struct policy_net_decision d;
	size_t n = compile("all.test", NULL, "proxied.test,evil.all.test", "all.test", rules);

	cr_assert_eq(decide(rules, n, "proxied.test", NULL, 443, false, &d), POLICY_NET_NO_RULE);
	cr_assert_eq(decide(rules, n, "proxied.test", NULL, 443, true, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, "all.test", NULL, 443, false, &d), POLICY_NET_ALLOWED);
	cr_assert_eq(decide(rules, n, "all.test", NULL, 443, true, &d), POLICY_NET_DENIED);
}

Test(netrule, name_resolvable)
{
	struct policy_net_rule rules[32];
	size_t n = compile("*.allowed.test:443,dual.test:80-90", "bad.allowed.test:443,dual.test:80-85",
			   "proxyonly.test", NULL, rules);

	cr_assert(policy_net_name_resolvable(rules, n, "www.allowed.test"));
	cr_assert(policy_net_name_resolvable(rules, n, "allowed.test"));
	cr_assert_not(policy_net_name_resolvable(rules, n, "bad.allowed.test"));
	cr_assert(policy_net_name_resolvable(rules, n, "dual.test"), "86-90 remain");
	cr_assert_not(policy_net_name_resolvable(rules, n, "evil.test"));
	cr_assert_not(policy_net_name_resolvable(rules, n, "proxyonly.test"));
	cr_assert_not(policy_net_name_resolvable(rules, n, "evilallowed.test"));
	n = compile("top.test:65000-65535", "top.test:65000-65535", NULL, NULL, rules);
	cr_assert_not(policy_net_name_resolvable(rules, n, "top.test"), "denied up to the last port");
	n = compile("*", NULL, NULL, NULL, rules);
	cr_assert_not(policy_net_name_resolvable(rules, n, "localhost"));
	cr_assert_not(policy_net_name_resolvable(rules, n, "metadata.google.internal"));
	cr_assert(policy_net_name_resolvable(rules, n, "anything.test"));
}

/* escape corpus row 29: what a CONNECT or SOCKS target turns into */
Test(netrule, target_spellings)
{
	static const struct {
		const char *host;
		const char *addr; /* NULL: a name */
		const char *name;
	} v[] = {
		{ "127.1", "127.0.0.1", NULL },
		{ "2130706433", "127.0.0.1", NULL },
		{ "0x7f000001", "127.0.0.1", NULL },
		{ "0177.0.0.1", "127.0.0.1", NULL },
		{ "[::1]", "::1", NULL },
		{ "::1", "::1", NULL },
		{ "[::ffff:127.0.0.1]", "::ffff:127.0.0.1", NULL },
		{ "0.0.0.0", "0.0.0.0", NULL },
		{ "0", "0.0.0.0", NULL },
		{ "Allowed.TEST.", NULL, "allowed.test" },
	};
	struct policy_net_target t;
	char buf[POLICY_ADDR_STRLEN];
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		cr_assert_eq(policy_net_target_parse((const uint8_t *)v[i].host, strlen(v[i].host), &t),
			     POLICY_NET_TARGET_OK, "%s", v[i].host);
		cr_assert_eq(t.is_addr, v[i].addr != NULL, "%s", v[i].host);
		if (v[i].addr) {
			cr_assert_str_eq(policy_addr_format(&t.addr, buf), v[i].addr);
			cr_assert(policy_addr_default_denied(&t.addr), "%s", v[i].host);
		} else {
			cr_assert_str_eq(t.name, v[i].name);
		}
	}
	static const char *const bad[] = { "", "[::1", "[fe80::1%eth0]", "fe80::1%eth0", "1.2.3.4.5",
					   "256.1.1.1", "a b", "x\r\nHost: evil", "[]", "08.1" };
	for (size_t i = 0; i < N_ELEMS(bad); i++)
		cr_assert_eq(policy_net_target_parse((const uint8_t *)bad[i], strlen(bad[i]), &t),
			     POLICY_NET_TARGET_MALFORMED, "%s", bad[i]);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"a\0b", 3, &t), POLICY_NET_TARGET_MALFORMED);
}
