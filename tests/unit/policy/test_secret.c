/* tests/unit/policy/test_secret.c: --secret parsed, refused with a message
 * naming the problem, checked against an environment without ever quoting
 * a value (policy/secret.h), the endpoints it is built on
 * (policy/endpoint.h), and placeholders (policy/placeholder.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/endpoint.h"
#include "policy/placeholder.h"
#include "policy/secret.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static char err[512];

/* exact-size heap copy: a read past the value is an ASan report */
static enum policy_secret_status parse(const char *text, struct policy_secret *s)
{
	size_t n = strlen(text);
	char *c = malloc(n ? n : 1);
	cr_assert(c);
	memcpy(c, text, n);
	enum policy_secret_status st = policy_secret_parse(c, n, s, err, sizeof(err));
	free(c);
	return st;
}

/* ---- endpoints ---- */

Test(endpoint, one_host_one_port)
{
	static const struct {
		const char *text;
		const char *name; /* or the address */
		unsigned port;
	} v[] = {
		{ "api.example", "api.example", 443 },
		{ "API.Example.:8443", "api.example", 8443 },
		{ "https://api.example", "api.example", 443 },
		{ "http://api.example/", "api.example", 80 },
		{ "https://api.example:9443/", "api.example", 9443 },
		{ "192.0.2.7", "192.0.2.7", 443 },
		{ "[2001:db8::1]:8443", "2001:db8::1", 8443 },
		{ "[::ffff:192.0.2.7]", "192.0.2.7", 443 },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_endpoint ep;
		enum policy_net_rule_status rst;
		char a[POLICY_ADDR_STRLEN];
		cr_assert_eq(policy_endpoint_parse(v[i].text, strlen(v[i].text), &ep, &rst),
			     POLICY_ENDPOINT_OK, "%s", v[i].text);
		cr_assert_str_eq(ep.is_addr ? policy_addr_format(&ep.addr, a) : ep.name, v[i].name);
		cr_assert_eq(ep.port, v[i].port, "%s", v[i].text);
	}
}

Test(endpoint, not_one_host)
{
	static const struct {
		const char *text;
		enum policy_endpoint_status st;
	} v[] = {
		{ "*.api.example", POLICY_ENDPOINT_WILDCARD },
		{ "*", POLICY_ENDPOINT_WILDCARD },
		{ "https://*.api.example", POLICY_ENDPOINT_WILDCARD },
		{ "192.0.2.0/24", POLICY_ENDPOINT_CIDR },
		{ "[2001:db8::/32]", POLICY_ENDPOINT_CIDR },
		{ "api.example:8000-8010", POLICY_ENDPOINT_PORT_RANGE },
		{ "localhost", POLICY_ENDPOINT_RULE },
		{ "", POLICY_ENDPOINT_RULE },
		{ "https://api.example/v1", POLICY_ENDPOINT_RULE },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_endpoint ep;
		enum policy_net_rule_status rst;
		cr_assert_eq(policy_endpoint_parse(v[i].text, strlen(v[i].text), &ep, &rst), v[i].st,
			     "%s", v[i].text);
		cr_assert_eq(rst != POLICY_NET_RULE_OK, v[i].st == POLICY_ENDPOINT_RULE, "%s",
			     v[i].text);
	}
}

Test(endpoint, matches_and_formats)
{
	struct policy_endpoint ep;
	enum policy_net_rule_status rst;
	struct policy_net_target t;
	char buf[POLICY_ENDPOINT_STRLEN];

	cr_assert_eq(policy_endpoint_parse("[2001:db8::1]:8443", 18, &ep, &rst), POLICY_ENDPOINT_OK);
	cr_assert_str_eq(policy_endpoint_format(&ep, 443, buf), "[2001:db8::1]:8443");
	cr_assert_str_eq(policy_endpoint_format(&ep, 8443, buf), "[2001:db8::1]");
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"[2001:DB8::1]", 13, &t),
		     POLICY_NET_TARGET_OK);
	cr_assert(policy_endpoint_matches(&ep, &t, 8443));
	cr_assert_not(policy_endpoint_matches(&ep, &t, 443));

	cr_assert_eq(policy_endpoint_parse("192.0.2.7", 9, &ep, &rst), POLICY_ENDPOINT_OK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"::ffff:192.0.2.7", 16, &t),
		     POLICY_NET_TARGET_OK);
	cr_assert(policy_endpoint_matches(&ep, &t, 443), "a mapped address is its IPv4");

	cr_assert_eq(policy_endpoint_parse("api.example", 11, &ep, &rst), POLICY_ENDPOINT_OK);
	cr_assert_str_eq(policy_endpoint_format(&ep, 0, buf), "api.example:443");
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"API.example.", 12, &t),
		     POLICY_NET_TARGET_OK);
	cr_assert(policy_endpoint_matches(&ep, &t, 443));
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"xapi.example", 12, &t),
		     POLICY_NET_TARGET_OK);
	cr_assert_not(policy_endpoint_matches(&ep, &t, 443));
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"sub.api.example", 15, &t),
		     POLICY_NET_TARGET_OK);
	cr_assert_not(policy_endpoint_matches(&ep, &t, 443), "one host: never a name below it");
}

Test(endpoint, quote_escapes_and_cuts)
{
	char q[64 * 4 + 4];
	cr_assert_str_eq(policy_quote("a'b\\c\n", 6, 64, q, sizeof(q)), "a\\x27b\\x5cc\\x0a");
	char long_text[100];
	memset(long_text, 'x', sizeof(long_text));
	policy_quote(long_text, sizeof(long_text), 64, q, sizeof(q));
	cr_assert_eq(strlen(q), 67);
	cr_assert_str_eq(q + 64, "...");
}

/* ---- parsing ---- */

Test(secret, accepted_forms)
{
	struct policy_secret s;

	cr_assert_eq(parse("GH_TOKEN@api.example", &s), POLICY_SECRET_OK, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert_str_eq(s.name, "GH_TOKEN");
	cr_assert_eq(s.n_hosts, 1);
	cr_assert_str_eq(s.hosts[0].name, "api.example");
	cr_assert_eq(s.hosts[0].port, 443);

	cr_assert_eq(parse("_t0@api.example,https://registry.example:8443/,http://api.example:8080,"
			   "192.0.2.1:8080,[2001:db8::2]",
			   &s),
		     POLICY_SECRET_OK, "%s", err);
	cr_assert_str_eq(s.name, "_t0");
	cr_assert_eq(s.n_hosts, 5);
	cr_assert_str_eq(s.hosts[1].name, "registry.example");
	cr_assert_eq(s.hosts[1].port, 8443);
	cr_assert_eq(s.hosts[2].port, 8080, "the URL form's port");
	cr_assert(s.hosts[3].is_addr);
	cr_assert_eq(s.hosts[3].port, 8080);
	cr_assert(s.hosts[4].is_addr);

	/* NAME at its bound */
	char name[POLICY_SECRET_NAME_MAX + 20];
	memset(name, 'N', POLICY_SECRET_NAME_MAX);
	strcpy(name + POLICY_SECRET_NAME_MAX, "@api.example");
	cr_assert_eq(parse(name, &s), POLICY_SECRET_OK, "%s", err);

	/* hosts at their bound */
	char many[POLICY_SECRET_MAX_HOSTS * 16 + 8] = "T@";
	for (int i = 0; i < POLICY_SECRET_MAX_HOSTS; i++)
		sprintf(many + strlen(many), "%sh%d.example", i ? "," : "", i);
	cr_assert_eq(parse(many, &s), POLICY_SECRET_OK, "%s", err);
	cr_assert_eq(s.n_hosts, POLICY_SECRET_MAX_HOSTS);
}

Test(secret, refused_forms)
{
	static const struct {
		const char *text;
		enum policy_secret_status st;
		const char *says; /* a phrase the message must hold */
	} v[] = {
		{ "GH_TOKEN", POLICY_SECRET_NO_AT, "no '@'" },
		{ "", POLICY_SECRET_NO_AT, "no '@'" },
		{ "@api.example", POLICY_SECRET_EMPTY_NAME, "no NAME" },
		{ "1TOKEN@api.example", POLICY_SECRET_BAD_NAME, "environment variable name" },
		{ "GH-TOKEN@api.example", POLICY_SECRET_BAD_NAME, "environment variable name" },
		{ "GH TOKEN@api.example", POLICY_SECRET_BAD_NAME, "environment variable name" },
		{ "GH_TOKEN@", POLICY_SECRET_NO_HOSTS, "no host" },
		{ "T@api.example,,registry.example", POLICY_SECRET_EMPTY_HOST, "empty host" },
		{ "T@api.example,", POLICY_SECRET_EMPTY_HOST, "empty host" },
		{ "T@,api.example", POLICY_SECRET_EMPTY_HOST, "empty host" },
		{ "T@*.api.example", POLICY_SECRET_BAD_HOST, "wildcard" },
		{ "T@*", POLICY_SECRET_BAD_HOST, "wildcard" },
		{ "T@192.0.2.0/24", POLICY_SECRET_BAD_HOST, "CIDR" },
		{ "T@api.example:8000-8001", POLICY_SECRET_BAD_HOST, "port range" },
		{ "T@localhost", POLICY_SECRET_BAD_HOST, "localhost" },
		{ "T@api..example", POLICY_SECRET_BAD_HOST, "not a host name" },
		{ "T@api.example:0", POLICY_SECRET_BAD_HOST, "port 0" },
		{ "T@https://api.example/v1", POLICY_SECRET_BAD_HOST, "not a path" },
		{ "T@ftp://api.example", POLICY_SECRET_BAD_HOST, "URL rule" },
		{ "T@user@api.example", POLICY_SECRET_BAD_HOST, "not a host name" },
		{ "T@api.example,API.Example.", POLICY_SECRET_DUP_HOST, "listed twice" },
		{ "T@api.example,https://api.example:443/", POLICY_SECRET_DUP_HOST, "listed twice" },
		{ "T@192.0.2.1,[::ffff:192.0.2.1]", POLICY_SECRET_DUP_HOST, "listed twice" },
		{ "T@api.example:80", POLICY_SECRET_CLEAR_PORT, "TLS only" },
		{ "T@api.example,http://api.example", POLICY_SECRET_CLEAR_PORT, "port 80" },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct policy_secret s;
		cr_assert_eq(parse(v[i].text, &s), v[i].st, "%s: %s", v[i].text, err);
		cr_assert(strncmp(err, "--secret '", 10) == 0, "%s: %s", v[i].text, err);
		cr_assert(strstr(err, v[i].says), "%s: %s", v[i].text, err);
	}
	/* the same host on two ports is two hosts */
	struct policy_secret s;
	cr_assert_eq(parse("T@api.example,api.example:8443", &s), POLICY_SECRET_OK, "%s", err);
}

Test(secret, refused_bounds)
{
	struct policy_secret s;
	char name[POLICY_SECRET_NAME_MAX + 20];
	memset(name, 'N', POLICY_SECRET_NAME_MAX + 1);
	strcpy(name + POLICY_SECRET_NAME_MAX + 1, "@api.example");
	cr_assert_eq(parse(name, &s), POLICY_SECRET_NAME_TOO_LONG, "%s", err);

	char many[(POLICY_SECRET_MAX_HOSTS + 1) * 16 + 8] = "T@";
	for (int i = 0; i <= POLICY_SECRET_MAX_HOSTS; i++)
		sprintf(many + strlen(many), "%sh%d.example", i ? "," : "", i);
	cr_assert_eq(parse(many, &s), POLICY_SECRET_TOO_MANY_HOSTS, "%s", err);

	char *big = malloc(POLICY_SECRET_TEXT_MAX + 2);
	cr_assert(big);
	memset(big, 'a', POLICY_SECRET_TEXT_MAX + 1);
	big[0] = 'T';
	big[1] = '@';
	big[POLICY_SECRET_TEXT_MAX + 1] = '\0';
	cr_assert_eq(parse(big, &s), POLICY_SECRET_TOO_LONG, "%s", err);
	free(big);
}

Test(secret, message_escapes_the_value)
{
	struct policy_secret s;
	cr_assert_eq(parse("T\n\x1b[31m@x", &s), POLICY_SECRET_BAD_NAME);
	for (const char *p = err; *p; p++)
		cr_assert((unsigned char)*p >= 0x20 && *p != 0x7f, "%s", err);
	cr_assert(strstr(err, "\\x0a\\x1b[31m"), "%s", err);
}

/* Every prefix of a good value parses or is refused with a message; none
 * reads past its length (the heap copy in parse()). */
Test(secret, truncation_sweep)
{
	const char *good = "GH_TOKEN@api.example,https://registry.example:8443/,[2001:db8::2]:9443";
	char buf[128];
	for (size_t k = 0; k <= strlen(good); k++) {
		struct policy_secret s;
		memcpy(buf, good, k);
		buf[k] = '\0';
		enum policy_secret_status st = parse(buf, &s);
		cr_assert(st == POLICY_SECRET_OK ? err[0] == '\0' : err[0] != '\0', "%zu", k);
	}
}

Test(secret, set_refuses_a_name_twice)
{
	struct policy_secret s[3];
	cr_assert_eq(parse("A@api.example", &s[0]), POLICY_SECRET_OK);
	cr_assert_eq(parse("B@api.example", &s[1]), POLICY_SECRET_OK);
	cr_assert_eq(parse("A@registry.example", &s[2]), POLICY_SECRET_OK);
	cr_assert_eq(policy_secret_check_set(s, 2, err, sizeof(err)), POLICY_SECRET_OK,
		     "one host for two secrets is fine");
	cr_assert_eq(policy_secret_check_set(s, 3, err, sizeof(err)), POLICY_SECRET_DUP_NAME);
	cr_assert(strstr(err, "A is given twice"), "%s", err);
}

/* ---- the environment ---- */

#define VALUE "ghp_S3cr3tV4lu3ThatMustNeverBePrinted0001"

static void assert_no_value(const char *msg, const char *value)
{
	/* not the value, nor any 4 bytes of it */
	size_t n = strlen(value);
	for (size_t i = 0; i + 4 <= n; i++) {
		char piece[5];
		memcpy(piece, value + i, 4);
		piece[4] = '\0';
		cr_assert_null(strstr(msg, piece), "message %s quotes %s", msg, piece);
	}
}

Test(secret_env, finds_values)
{
	struct policy_secret s[2];
	const char *values[2];
	char *envp[] = { "PATH=/usr/bin", "GH_TOKENX=no", "GH_TOKEN=" VALUE, "NPM=npm_x", NULL };

	cr_assert_eq(parse("GH_TOKEN@api.example", &s[0]), POLICY_SECRET_OK);
	cr_assert_eq(parse("NPM@registry.example", &s[1]), POLICY_SECRET_OK);
	cr_assert_eq(policy_secret_check_env(s, 2, envp, values, err, sizeof(err)), POLICY_SECRET_OK,
		     "%s", err);
	cr_assert_eq(values[0], envp[2] + strlen("GH_TOKEN="), "points into envp");
	cr_assert_str_eq(values[1], "npm_x");
}

Test(secret_env, refusals_name_the_variable_only)
{
	static const struct {
		const char *entry[3];
		enum policy_secret_status st;
		const char *says;
	} v[] = {
		{ { "OTHER=" VALUE, "GH_TOKENS=" VALUE, NULL }, POLICY_SECRET_UNSET, "GH_TOKEN is not set" },
		{ { "GH_TOKEN=", NULL, NULL }, POLICY_SECRET_EMPTY_VALUE, "GH_TOKEN is empty" },
		{ { "GH_TOKEN=" VALUE, "GH_TOKEN=" VALUE "2", NULL }, POLICY_SECRET_ENV_TWICE, "set twice" },
		{ { "GH_TOKEN=" VALUE "\r\nX-Evil: 1", NULL, NULL }, POLICY_SECRET_VALUE_CONTROL,
		  "control character" },
		{ { "GH_TOKEN=" VALUE "\x7f", NULL, NULL }, POLICY_SECRET_VALUE_CONTROL, "control character" },
		{ { "gh_token=" VALUE, NULL, NULL }, POLICY_SECRET_UNSET, "GH_TOKEN is not set" },
		{ { "GH_TOKEN= " VALUE, NULL, NULL }, POLICY_SECRET_VALUE_BLANK_EDGE, "blank" },
		{ { "GH_TOKEN=" VALUE "\t", NULL, NULL }, POLICY_SECRET_VALUE_BLANK_EDGE, "blank" },
		/* a JWT's dots would stay in its placeholder, which the proxy
		 * could not find in a DNS name or a Basic user-id */
		{ { "GH_TOKEN=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", NULL, NULL },
		  POLICY_SECRET_VALUE_SHAPE, "holds a '.'" },
	};
	struct policy_secret s;
	cr_assert_eq(parse("GH_TOKEN@api.example", &s), POLICY_SECRET_OK);
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		const char *values[1];
		cr_assert_eq(policy_secret_check_env(&s, 1, (char *const *)v[i].entry, values, err,
						     sizeof(err)),
			     v[i].st, "%zu: %s", i, err);
		cr_assert(strstr(err, v[i].says), "%zu: %s", i, err);
		assert_no_value(err, VALUE);
	}
	/* a tab is a field value's byte (RFC 9110 §5.5) */
	char *tab[] = { "GH_TOKEN=a\tb", NULL };
	const char *values[1];
	cr_assert_eq(policy_secret_check_env(&s, 1, tab, values, err, sizeof(err)), POLICY_SECRET_OK);
}

Test(secret_env, too_long)
{
	struct policy_secret s;
	const char *values[1];
	size_t n = strlen("GH_TOKEN=") + POLICY_SECRET_VALUE_MAX + 1;
	char *e = malloc(n + 1);
	cr_assert(e);
	memcpy(e, "GH_TOKEN=", 9);
	memset(e + 9, 'v', n - 9);
	e[n] = '\0';
	char *envp[] = { e, NULL };
	cr_assert_eq(parse("GH_TOKEN@api.example", &s), POLICY_SECRET_OK);
	cr_assert_eq(policy_secret_check_env(&s, 1, envp, values, err, sizeof(err)),
		     POLICY_SECRET_VALUE_TOO_LONG);
	assert_no_value(err, e + 9);
	/* the placeholder is as long as the value: past POLICY_PLACEHOLDER_MAX
	 * bytes the proxy could not hold it (run refused it only there) */
	e[9 + POLICY_PLACEHOLDER_MAX + 1] = '\0';
	cr_assert_eq(policy_secret_check_env(&s, 1, envp, values, err, sizeof(err)),
		     POLICY_SECRET_VALUE_SHAPE);
	cr_assert(strstr(err, "longer than 128 bytes"), "%s", err);
	assert_no_value(err, e + 9);
	e[9 + POLICY_PLACEHOLDER_MAX] = '\0';
	cr_assert_eq(policy_secret_check_env(&s, 1, envp, values, err, sizeof(err)), POLICY_SECRET_OK);
	free(e);
}

/* ---- placeholders ---- */

static uint8_t rnd[POLICY_SECRET_VALUE_MAX];

static void fill_rnd(unsigned seed)
{
	/* a fixed xorshift stream: placeholders are a function of these bytes */
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < sizeof(rnd); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		rnd[i] = (uint8_t)x;
	}
}

static enum policy_placeholder_status make(const char *real, char *out, size_t cap, size_t *len)
{
	return policy_placeholder_make(real, strlen(real), rnd, sizeof(rnd), NULL, 0, out, cap, len);
}

static bool all_in(const char *s, size_t from, const char *set)
{
	for (size_t i = from; s[i]; i++)
		if (!strchr(set, s[i]))
			return false;
	return true;
}

#define DIGITS "0123456789"
#define LHEX DIGITS "abcdef"
#define ALNUM DIGITS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

Test(placeholder, keeps_the_type_tag_and_shape)
{
	static const struct {
		const char *real;
		const char *prefix;
		const char *alphabet; /* of the filled bytes */
	} v[] = {
		{ "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5", "ghp_", ALNUM },
		{ "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_", ALNUM },
		{ "sk-proj-abcdefghijklmnopqrstuvwxyzABCDEF0123", "sk-proj-", ALNUM },
		{ "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "sk-ant-api03-", ALNUM },
		{ "glpat-abcdefghij0123456789", "glpat-", DIGITS "abcdefghijklmnopqrstuvwxyz" },
		{ "npm_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "npm_", DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ" },
		{ "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		  "dop_v1_", LHEX },
		/* no tag: hex, digits, a UUID whose first group is key material */
		{ "0123456789abcdef0123456789abcdef01234567", "", LHEX },
		{ "01234567890123456789012345", "", DIGITS },
		{ "deadbeef-1234-4abc-8def-0123456789ab", "", LHEX "-" },
		{ "AKIAIOSFODNN7EXAMPLEKEYXYZ", "", DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ" },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		char out[POLICY_SECRET_VALUE_MAX + 1];
		size_t len, pl = strlen(v[i].prefix);
		fill_rnd((unsigned)i);
		cr_assert_eq(make(v[i].real, out, sizeof(out), &len), POLICY_PLACEHOLDER_OK, "%s",
			     v[i].real);
		cr_assert_eq(len, strlen(v[i].real), "%s: the length is kept", v[i].real);
		cr_assert_eq(strlen(out), len);
		cr_assert_eq(policy_placeholder_prefix_len(v[i].real, strlen(v[i].real)), pl, "%s",
			     v[i].real);
		cr_assert(strncmp(out, v[i].prefix, pl) == 0, "%s -> %s", v[i].real, out);
		cr_assert(all_in(out, pl, v[i].alphabet), "%s -> %s", v[i].real, out);
		cr_assert_str_neq(out, v[i].real);
		/* separators stay where they were; every other byte after the
		 * tag was drawn, and so differs from the value's somewhere */
		for (size_t k = pl; k < len; k++)
			cr_assert_eq(strchr("-_.", out[k]) != NULL, strchr("-_.", v[i].real[k]) != NULL,
				     "%s -> %s at %zu", v[i].real, out, k);
	}
}

Test(placeholder, keeps_structure)
{
	char out[128];
	size_t len;
	fill_rnd(7);
	const char *jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N";
	cr_assert_eq(make(jwt, out, sizeof(out), &len), POLICY_PLACEHOLDER_OK);
	cr_assert_eq(out[20], '.');
	cr_assert_eq(out[48], '.');
	const char *slack = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
	cr_assert_eq(make(slack, out, sizeof(out), &len), POLICY_PLACEHOLDER_OK);
	cr_assert(strncmp(out, "xoxb-", 5) == 0, "%s", out);
	cr_assert_eq(out[15], '-');
	cr_assert_eq(out[29], '-');
	/* bytes outside the alphabets widen it and are replaced */
	const char *b64 = "abc+def/ghi=jklmnopqrstuvwxyz0123==";
	cr_assert_eq(make(b64, out, sizeof(out), &len), POLICY_PLACEHOLDER_OK);
	cr_assert(all_in(out, 0, ALNUM), "%s", out);
}

Test(placeholder, short_value_has_no_prefix_and_a_fixed_length)
{
	static const char *shorts[] = {
		"ghp_abc",                     /* a tag but too little after it */
		"x",
		"hunter2",
		"a.b.c.d.e.f.g.h.i.j.k.l.m.n", /* 14 fillable bytes */
	};
	for (size_t i = 0; i < N_ELEMS(shorts); i++) {
		char out[64];
		size_t len;
		unsigned seed = 0;
		enum policy_placeholder_status st;
		/* a one-byte value may be drawn inside the placeholder: draw again */
		do {
			fill_rnd(seed++);
			st = make(shorts[i], out, sizeof(out), &len);
		} while (st == POLICY_PLACEHOLDER_COLLISION && seed < 100);
		cr_assert_eq(st, POLICY_PLACEHOLDER_OK, "%s", shorts[i]);
		cr_assert_eq(len, POLICY_PLACEHOLDER_SHORT_LEN, "%s", shorts[i]);
		cr_assert_eq(policy_placeholder_len(shorts[i], strlen(shorts[i])),
			     POLICY_PLACEHOLDER_SHORT_LEN);
		cr_assert_eq(policy_placeholder_prefix_len(shorts[i], strlen(shorts[i])), 0);
		cr_assert(all_in(out, 0, ALNUM), "%s -> %s", shorts[i], out);
		cr_assert_null(strstr(out, shorts[i]));
	}
	/* 19 bytes after the tag: too few to keep it, enough for the shape */
	char out[64];
	size_t len;
	fill_rnd(1);
	cr_assert_eq(make("sk-0123456789012345678", out, sizeof(out), &len), POLICY_PLACEHOLDER_OK);
	cr_assert_eq(len, 22);
	cr_assert_eq(policy_placeholder_prefix_len("sk-0123456789012345678", 22), 0);
	cr_assert(all_in(out, 0, DIGITS "abcdefghijklmnopqrstuvwxyz-"), "%s", out);
	cr_assert_eq(out[2], '-');
	cr_assert_neq(strncmp(out, "sk-", 3), 0, "%s", out);
	/* 20 bytes after the tag: enough to keep it */
	cr_assert_eq(make("sk-01234567890123456789", out, sizeof(out), &len), POLICY_PLACEHOLDER_OK);
	cr_assert_eq(len, 23);
	cr_assert(strncmp(out, "sk-", 3) == 0, "%s", out);
}

Test(placeholder, is_a_function_of_the_random_bytes)
{
	char a[64], b[64];
	size_t la, lb;
	const char *real = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5";
	fill_rnd(3);
	cr_assert_eq(make(real, a, sizeof(a), &la), POLICY_PLACEHOLDER_OK);
	cr_assert_eq(make(real, b, sizeof(b), &lb), POLICY_PLACEHOLDER_OK);
	cr_assert_str_eq(a, b);
	fill_rnd(4);
	cr_assert_eq(make(real, b, sizeof(b), &lb), POLICY_PLACEHOLDER_OK);
	cr_assert_str_neq(a, b, "fresh bytes, a fresh placeholder");
}

Test(placeholder, collisions_are_reported)
{
	char out[64];
	size_t len;
	/* random bytes that draw the value itself: every digit d is byte d */
	const char *real = "01234567890123456789";
	uint8_t same[20];
	for (size_t i = 0; i < 20; i++)
		same[i] = (uint8_t)(real[i] - '0');
	cr_assert_eq(policy_placeholder_make(real, 20, same, 20, NULL, 0, out, sizeof(out), &len),
		     POLICY_PLACEHOLDER_COLLISION);
	same[19] = (uint8_t)((same[19] + 1) % 10);
	cr_assert_eq(policy_placeholder_make(real, 20, same, 20, NULL, 0, out, sizeof(out), &len),
		     POLICY_PLACEHOLDER_OK);
	cr_assert_eq(len, 20);

	/* another secret's placeholder, containing or contained */
	const char *avoid[] = { NULL, "", out };
	cr_assert_eq(policy_placeholder_make(real, 20, same, 20, avoid, 3, out + 32, 32, &len),
		     POLICY_PLACEHOLDER_COLLISION);
	char inner[8];
	memcpy(inner, out + 5, 7);
	inner[7] = '\0';
	const char *avoid2[] = { inner };
	cr_assert_eq(policy_placeholder_make(real, 20, same, 20, avoid2, 1, out + 32, 32, &len),
		     POLICY_PLACEHOLDER_COLLISION);
	const char *avoid3[] = { "99999999999999999999999" };
	cr_assert_eq(policy_placeholder_make(real, 20, same, 20, avoid3, 1, out + 32, 32, &len),
		     POLICY_PLACEHOLDER_OK);

	/* a short value drawn inside its placeholder */
	uint8_t ones[POLICY_PLACEHOLDER_SHORT_LEN];
	memset(ones, 1, sizeof(ones)); /* every byte draws any_alnum[1], '1' */
	cr_assert_eq(policy_placeholder_make("1", 1, ones, sizeof(ones), NULL, 0, out, sizeof(out),
					     &len),
		     POLICY_PLACEHOLDER_COLLISION);
}

Test(placeholder, refusals)
{
	char out[64];
	size_t len;
	const char *real = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"; /* 40 bytes */
	fill_rnd(5);
	cr_assert_eq(policy_placeholder_make(real, 0, rnd, 64, NULL, 0, out, 64, &len),
		     POLICY_PLACEHOLDER_EMPTY);
	cr_assert_eq(policy_placeholder_make(real, 40, rnd, 39, NULL, 0, out, 64, &len),
		     POLICY_PLACEHOLDER_SHORT_RANDOM);
	cr_assert_eq(policy_placeholder_make(real, 40, rnd, 40, NULL, 0, out, 40, &len),
		     POLICY_PLACEHOLDER_NO_ROOM);
	cr_assert_eq(policy_placeholder_make(real, 40, rnd, 40, NULL, 0, out, 41, &len),
		     POLICY_PLACEHOLDER_OK);
	cr_assert_eq(policy_placeholder_make("x", 1, rnd, POLICY_PLACEHOLDER_SHORT_LEN - 1, NULL, 0,
					     out, 64, &len),
		     POLICY_PLACEHOLDER_SHORT_RANDOM);
}
