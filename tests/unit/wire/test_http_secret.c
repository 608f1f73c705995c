/* tests/unit/wire/test_http_secret.c: placeholder secrets in HTTP heads
 * (wire/http_secret.h): substitution in each place of a request head, the
 * refusals, detection in each encoding, response heads split and
 * rewritten.  Every input is an exact-size heap copy and every output
 * buffer is exactly its cap, so a read or write past either is an ASan
 * report in the sanitizer build. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_secret.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define PH1 "PORTA_ph1_Abcdefghijklmnop"
#define VAL1 "ghp_Real1Value"
#define PH2 "PORTA_ph2_Qrstuvwxyz012345"
#define VAL2 "s3cr3t-two.x"

#define SPAN(lit) { (const uint8_t *)(lit), sizeof(lit) - 1 }
#define SECRET(ph, val) { SPAN(ph), SPAN(val), NULL }

static const struct proxy_secret two[] = { SECRET(PH1, VAL1), SECRET(PH2, VAL2) };

static uint8_t *copy(const void *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	cr_assert(b);
	memcpy(b, p, n);
	return b;
}

struct outcome {
	enum proxy_secret_status st;
	struct proxy_secret_result res;
	char out[PROXY_SECRET_OUT_MAX + 1]; /* OK: the result, NUL-terminated */
};

/* Parses head, rewrites it with table t into an exact-size buffer of cap
 * bytes (PROXY_SECRET_OUT_MAX when 0); on OK checks that the result parses
 * again to the same method, Host, framing and number of fields. */
static struct outcome request_cap(const char *head, const struct proxy_secret *t, size_t n,
				  size_t cap)
{
	static struct outcome o;
	size_t len = strlen(head);
	uint8_t *buf = copy(head, len);
	struct proxy_http_head h, again;
	enum proxy_http_status pst = proxy_http_parse_head(buf, len, &h);

	cr_assert(pst == PROXY_HTTP_OK || pst == PROXY_HTTP_HOST_MISSING, "parse %d: %s", pst, head);
	cr_assert_eq(h.head_len, len);
	cr_assert_eq(proxy_secret_table_check(t, n, NULL), PROXY_SECRET_TABLE_OK);
	if (cap == 0)
		cap = PROXY_SECRET_OUT_MAX;
	uint8_t *out = malloc(cap);
	cr_assert(out);
	memset(&o, 0, sizeof(o));
	o.st = proxy_secret_request(buf, &h, t, n, out, cap, &o.res);
	if (o.st == PROXY_SECRET_OK) {
		cr_assert(o.res.len <= cap);
		memcpy(o.out, out, o.res.len);
		cr_assert_eq(proxy_http_parse_head(out, o.res.len, &again), pst, "reparse: %s", o.out);
		cr_assert_eq(again.head_len, o.res.len);
		cr_assert_eq(again.method.n, h.method.n);
		cr_assert(memcmp(again.method.p, h.method.p, h.method.n) == 0);
		cr_assert_eq(again.host_value.n, h.host_value.n);
		cr_assert(h.host_value.n == 0 ||
			  memcmp(again.host_value.p, h.host_value.p, h.host_value.n) == 0);
		cr_assert_eq(again.flags, h.flags);
		cr_assert_eq(again.content_length, h.content_length);
		cr_assert_eq(again.header_count, h.header_count);
		cr_assert_eq(again.form, h.form);
		cr_assert_eq(again.version_minor, h.version_minor);
		if (o.res.replaced == 0)
			cr_assert(o.res.len == len && memcmp(out, buf, len) == 0, "unchanged");
	}
	free(out);
	free(buf);
	return o;
}

static struct outcome request(const char *head, const struct proxy_secret *t, size_t n)
{
	return request_cap(head, t, n, 0);
}

static void expect_rewrite(const char *head, const struct proxy_secret *t, size_t n,
			   const char *want, size_t replaced)
{
	struct outcome o = request(head, t, n);
	cr_assert_eq(o.st, PROXY_SECRET_OK, "status %d: %s", o.st, head);
	cr_assert_str_eq(o.out, want);
	cr_assert_eq(o.res.replaced, replaced, "replaced %zu, want %zu: %s", o.res.replaced, replaced,
		     head);
}

static void expect_refused(const char *head, const struct proxy_secret *t, size_t n,
			   enum proxy_secret_status st, size_t which)
{
	struct outcome o = request(head, t, n);
	cr_assert_eq(o.st, st, "status %d, want %d: %s", o.st, st, head);
	if (st == PROXY_SECRET_BAD_VALUE || st == PROXY_SECRET_IN_ROUTING ||
	    st == PROXY_SECRET_RESIDUE)
		cr_assert_eq(o.res.which, which, "%s", head);
}

/* ---- the table ---------------------------------------------------------------- */

Test(http_secret, table_check)
{
	size_t bad = 99;
	cr_assert_eq(proxy_secret_table_check(two, 2, &bad), PROXY_SECRET_TABLE_OK);
	cr_assert_eq(bad, 99);
	cr_assert_eq(proxy_secret_table_check(NULL, 0, NULL), PROXY_SECRET_TABLE_OK);

	struct {
		struct proxy_secret t[2];
		enum proxy_secret_table_status st;
		size_t bad;
	} v[] = {
		{ { SECRET(PH1, VAL1), SECRET("PORTA_short", VAL2) },
		  PROXY_SECRET_TABLE_BAD_PLACEHOLDER, 1 },
		{ { SECRET("PORTA.ph1.Abcdefghijklmnop", VAL1), SECRET(PH2, VAL2) },
		  PROXY_SECRET_TABLE_BAD_PLACEHOLDER, 0 },
		{ { SECRET(PH1, ""), SECRET(PH2, VAL2) }, PROXY_SECRET_TABLE_BAD_VALUE, 0 },
		{ { SECRET(PH1, VAL1), SECRET(PH2, "tok ") }, PROXY_SECRET_TABLE_BAD_VALUE, 1 },
		{ { SECRET(PH1, "\ttok"), SECRET(PH2, VAL2) }, PROXY_SECRET_TABLE_BAD_VALUE, 0 },
		{ { SECRET(PH1, VAL1), SECRET("porta_PH1_abcdefghijklmnopQ", VAL2) },
		  PROXY_SECRET_TABLE_PLACEHOLDER_OVERLAP, 1 },
		{ { SECRET(PH1, "x-porta_ph2_qrstuvwxyz012345"), SECRET(PH2, VAL2) },
		  PROXY_SECRET_TABLE_VALUE_HOLDS_PLACEHOLDER, 0 },
		{ { SECRET(PH1, VAL1), SECRET(PH2, "ph1_Abc") },
		  PROXY_SECRET_TABLE_PLACEHOLDER_HOLDS_VALUE, 0 },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		bad = 99;
		cr_assert_eq(proxy_secret_table_check(v[i].t, 2, &bad), v[i].st, "table %zu", i);
		cr_assert_eq(bad, v[i].bad, "table %zu: bad %zu", i, bad);
	}

	/* lengths at the bounds */
	char ph[PROXY_SECRET_PLACEHOLDER_MAX + 2];
	memset(ph, 'a', sizeof(ph));
	struct proxy_secret one = { { (const uint8_t *)ph, PROXY_SECRET_PLACEHOLDER_MAX },
				    SPAN(VAL1), NULL };
	cr_assert_eq(proxy_secret_table_check(&one, 1, NULL), PROXY_SECRET_TABLE_OK);
	one.placeholder.n++;
	cr_assert_eq(proxy_secret_table_check(&one, 1, NULL), PROXY_SECRET_TABLE_BAD_PLACEHOLDER);
	one.placeholder.n = PROXY_SECRET_PLACEHOLDER_MIN;
	cr_assert_eq(proxy_secret_table_check(&one, 1, NULL), PROXY_SECRET_TABLE_OK);
	one.placeholder.n--;
	cr_assert_eq(proxy_secret_table_check(&one, 1, NULL), PROXY_SECRET_TABLE_BAD_PLACEHOLDER);
	char *big = malloc(PROXY_SECRET_VALUE_MAX + 1);
	cr_assert(big);
	memset(big, 'v', PROXY_SECRET_VALUE_MAX + 1);
	struct proxy_secret long_value = { SPAN(PH1), { (const uint8_t *)big, PROXY_SECRET_VALUE_MAX },
					   NULL };
	cr_assert_eq(proxy_secret_table_check(&long_value, 1, NULL), PROXY_SECRET_TABLE_OK);
	long_value.value.n++;
	cr_assert_eq(proxy_secret_table_check(&long_value, 1, NULL), PROXY_SECRET_TABLE_BAD_VALUE);
	free(big);
}

/* ---- substitution, place by place ------------------------------------------------ */

Test(http_secret, request_target)
{
	expect_rewrite("GET /v1/x?token=" PH1 " HTTP/1.1\r\nHost: api.example\r\n\r\n", two, 2,
		       "GET /v1/x?token=" VAL1 " HTTP/1.1\r\nHost: api.example\r\n\r\n", 1);
	/* absolute-form: the path and query only */
	expect_rewrite("GET http://api.example:8080/" PH2 "/a HTTP/1.1\r\nHost: api.example:8080\r\n\r\n",
		       two, 2,
		       "GET http://api.example:8080/" VAL2 "/a HTTP/1.1\r\nHost: api.example:8080\r\n\r\n",
		       1);
	expect_rewrite("GET http://api.example?k=" PH1 " HTTP/1.0\r\nHost: api.example\r\n\r\n", two, 2,
		       "GET http://api.example?k=" VAL1 " HTTP/1.0\r\nHost: api.example\r\n\r\n", 1);
	/* no Host: the head is still rewritten (the glue decides) */
	expect_rewrite("GET /" PH1 " HTTP/1.0\r\n\r\n", two, 2, "GET /" VAL1 " HTTP/1.0\r\n\r\n", 1);
}

Test(http_secret, field_values_several_occurrences_two_secrets)
{
	expect_rewrite("POST /p HTTP/1.1\r\nHost: api.example\r\nAuthorization: Bearer " PH1 "\r\n"
		       "X-Both:\t" PH1 "," PH2 ";" PH1 " \r\nContent-Length: 0\r\n\r\n",
		       two, 2,
		       "POST /p HTTP/1.1\r\nHost: api.example\r\nAuthorization: Bearer " VAL1 "\r\n"
		       "X-Both:\t" VAL1 "," VAL2 ";" VAL1 " \r\nContent-Length: 0\r\n\r\n",
		       4);
	/* target and fields together, back to back */
	expect_rewrite("GET /" PH1 PH1 "?" PH2 " HTTP/1.1\r\nHost: a.example\r\nX: " PH2 PH2 "\r\n\r\n",
		       two, 2,
		       "GET /" VAL1 VAL1 "?" VAL2 " HTTP/1.1\r\nHost: a.example\r\nX: " VAL2 VAL2 "\r\n\r\n",
		       5);
}

Test(http_secret, names_method_and_near_misses_untouched)
{
	/* a field name, the method, another case, percent-encoded, cut short:
	 * none is the placeholder as sent */
	expect_rewrite(PH1 " / HTTP/1.1\r\nHost: a.example\r\n" PH1 ": 1\r\n"
		       "X-Case: porta_ph1_abcdefghijklmnop\r\nX-Cut: PORTA_ph1_Abcdefghijklmno\r\n\r\n",
		       two, 2,
		       PH1 " / HTTP/1.1\r\nHost: a.example\r\n" PH1 ": 1\r\n"
		       "X-Case: porta_ph1_abcdefghijklmnop\r\nX-Cut: PORTA_ph1_Abcdefghijklmno\r\n\r\n",
		       0);
	expect_rewrite("GET /%50ORTA_ph1_Abcdefghijklmnop HTTP/1.1\r\nHost: a.example\r\n\r\n", two, 2,
		       "GET /%50ORTA_ph1_Abcdefghijklmnop HTTP/1.1\r\nHost: a.example\r\n\r\n", 0);
	/* an empty table changes nothing */
	expect_rewrite("GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", NULL, 0,
		       "GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", 0);
}

Test(http_secret, basic_user_and_password)
{
	/* "PH1:PH2" -> "VAL1:VAL2" */
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic "
		       "UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A6UE9SVEFfcGgyX1Fyc3R1dnd4eXowMTIzNDU=\r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic "
		       "Z2hwX1JlYWwxVmFsdWU6czNjcjN0LXR3by54\r\n\r\n",
		       2);
	/* "alice:PH1" -> "alice:VAL1", scheme in another case, two blanks */
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nauthorization: bASIC  "
		       "YWxpY2U6UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A= \r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nauthorization: bASIC  "
		       "YWxpY2U6Z2hwX1JlYWwxVmFsdWU= \r\n\r\n",
		       1);
	/* user-id only: "PH1:x" -> "VAL1:x"; Proxy-Authorization too */
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nProxy-Authorization: Basic "
		       "UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A6eA==\r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nProxy-Authorization: Basic "
		       "Z2hwX1JlYWwxVmFsdWU6eA==\r\n\r\n",
		       1);
	/* twice in the password */
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic "
		       "YWxpY2U6UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3AtUE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A="
		       "\r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic "
		       "YWxpY2U6Z2hwX1JlYWwxVmFsdWUtZ2hwX1JlYWwxVmFsdWU=\r\n\r\n",
		       2);
	/* no placeholder inside: the bytes as sent; another scheme: a plain value */
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic YWxpY2U6cHc=\r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basic YWxpY2U6cHc=\r\n\r\n",
		       0);
	expect_rewrite("GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basicx " PH1 "\r\n\r\n",
		       two, 2,
		       "GET / HTTP/1.1\r\nHost: git.example\r\nAuthorization: Basicx " VAL1 "\r\n\r\n", 1);
}

Test(http_secret, basic_refusals)
{
	static const char *const bad[] = {
		"Basic",                                          /* no credentials */
		"Basic ",                                         /* empty token68 */
		"Basic\tYWxpY2U6cHc=",                            /* HTAB is not SP */
		"Basic YWxpY2U6cHc",                              /* padding missing */
		"Basic YWxpY2U6cHd=",                             /* stray bits */
		"Basic YWxp Y2U6cHc=",                            /* a blank inside */
		"Basic YWxpY2U6cHc==",                            /* padding too long */
		"Basic YWxpY2U6cHc=,x",                           /* more after it */
		"Basic YWxpY2U=",                                 /* "alice": no colon */
		"Basic realm=\"x\"",                              /* auth-params */
	};
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		char head[256];
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: %s\r\n\r\n",
			 bad[i]);
		expect_refused(head, two, 2, PROXY_SECRET_BAD_BASIC, 0);
	}
}

/* ---- refusals ------------------------------------------------------------------ */

Test(http_secret, real_values_that_would_change_the_parse)
{
	static const char *const bad_anywhere[] = {
		"a\r\nX-Injected: 1", "a\nb", "a\rb", "nul\x01", "del\x7f", "\x80utf",
	};
	for (size_t i = 0; i < N_ELEMS(bad_anywhere); i++) {
		struct proxy_secret t[] = {
			SECRET(PH2, VAL2),
			{ SPAN(PH1), { (const uint8_t *)bad_anywhere[i], strlen(bad_anywhere[i]) }, NULL },
		};
		expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\nX: " PH1 "\r\n\r\n", t, 2,
			       PROXY_SECRET_BAD_VALUE, 1);
		expect_refused("GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", t, 2,
			       PROXY_SECRET_BAD_VALUE, 1);
	}
	/* a NUL, given by length */
	struct proxy_secret nul[] = { { SPAN(PH1), { (const uint8_t *)"a\0b", 3 }, NULL } };
	expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\nX: " PH1 "\r\n\r\n", nul, 1,
		       PROXY_SECRET_BAD_VALUE, 0);

	/* a blank: inside a field value yes, at its edge or in a target no */
	struct proxy_secret sp[] = { SECRET(PH1, "Bearer x") };
	expect_rewrite("GET / HTTP/1.1\r\nHost: a.example\r\nX: " PH1 "\r\n\r\n", sp, 1,
		       "GET / HTTP/1.1\r\nHost: a.example\r\nX: Bearer x\r\n\r\n", 1);
	expect_refused("GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", sp, 1,
		       PROXY_SECRET_BAD_VALUE, 0);
	/* a blank at a value's edge would be OWS: the table refuses it first */
	struct proxy_secret edge[] = { SECRET(PH1, "x ") };
	cr_assert_eq(proxy_secret_table_check(edge, 1, NULL), PROXY_SECRET_TABLE_BAD_VALUE);
	/* target: '#' would start a fragment, '"' is no URI byte */
	struct proxy_secret hash[] = { SECRET(PH1, "a#b"), SECRET(PH2, "a\"b") };
	expect_refused("GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", hash, 2,
		       PROXY_SECRET_BAD_VALUE, 0);
	expect_refused("GET /" PH2 " HTTP/1.1\r\nHost: a.example\r\n\r\n", hash, 2,
		       PROXY_SECRET_BAD_VALUE, 1);
	/* but "/?=&%+" are path and query bytes */
	struct proxy_secret query[] = { SECRET(PH1, "a/b?c=d&e%2Bf+g") };
	expect_rewrite("GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\n\r\n", query, 1,
		       "GET /a/b?c=d&e%2Bf+g HTTP/1.1\r\nHost: a.example\r\n\r\n", 1);

	/* Basic: ':' may not enter the user-id, may enter the password */
	struct proxy_secret colon[] = { SECRET(PH1, "u:v") };
	expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Basic "
		       "UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A6eA==\r\n\r\n",
		       colon, 1, PROXY_SECRET_BAD_VALUE, 0);
	expect_rewrite("GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Basic "
		       "YWxpY2U6UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A=\r\n\r\n",
		       colon, 1,
		       "GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Basic YWxpY2U6dTp2\r\n\r\n",
		       1);
	struct proxy_secret ctl[] = { SECRET(PH1, "p\tw") };
	expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Basic "
		       "YWxpY2U6UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A=\r\n\r\n",
		       ctl, 1, PROXY_SECRET_BAD_VALUE, 0);
}

Test(http_secret, placeholder_where_it_routes_or_frames)
{
	static const char *const heads[] = {
		"GET / HTTP/1.1\r\nHost: " PH2 ".example\r\n\r\n",
		"GET http://" PH2 ".example/ HTTP/1.1\r\nHost: a.example\r\n\r\n",
		"CONNECT " PH2 ".example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: " PH2 ", chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a.example\r\nconnection: close, " PH2 "\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a.example\r\nUpgrade: " PH2 "\r\n\r\n",
	};
	for (size_t i = 0; i < N_ELEMS(heads); i++)
		expect_refused(heads[i], two, 2, PROXY_SECRET_IN_ROUTING, 1);
	/* Content-Length is digits: a placeholder of digits only is not one
	 * the table takes, so the framing field is checked by the same rule */
	struct proxy_secret digits[] = { SECRET("0000000000000000", "1") };
	cr_assert_eq(proxy_secret_table_check(digits, 1, NULL), PROXY_SECRET_TABLE_OK);
	expect_refused("POST / HTTP/1.1\r\nHost: a.example\r\nContent-Length: 00000000000000000\r\n\r\n",
		       digits, 1, PROXY_SECRET_IN_ROUTING, 0);
}

Test(http_secret, residue_refused)
{
	/* VAL3 ends with the start of PH1; the client writes the rest after PH3 */
	struct proxy_secret t[] = {
		SECRET(PH1, VAL1),
		SECRET("PORTA_ph3_0123456789abcdef", "v3-PORTA_ph1_Abcdefgh"),
	};
	expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\nX: PORTA_ph3_0123456789abcdefijklmnop\r\n\r\n",
		       t, 2, PROXY_SECRET_RESIDUE, 0);
	expect_refused("GET /PORTA_ph3_0123456789abcdefijklmnop HTTP/1.1\r\nHost: a.example\r\n\r\n", t, 2,
		       PROXY_SECRET_RESIDUE, 0);
}

Test(http_secret, bounds)
{
	static const char head[] = "GET /" PH1 " HTTP/1.1\r\nHost: a.example\r\nX: " PH2 "\r\n\r\n";
	static const char want[] = "GET /" VAL1 " HTTP/1.1\r\nHost: a.example\r\nX: " VAL2 "\r\n\r\n";
	size_t need = sizeof(want) - 1;

	struct outcome o = request_cap(head, two, 2, need);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, want);
	/* one byte short, and much shorter: refused, the length it needs
	 * given, and nothing written past the cap (the buffer is exact) */
	for (size_t cap = 1; cap < need; cap += (cap < need - 8 ? 7 : 1)) {
		o = request_cap(head, two, 2, cap);
		cr_assert_eq(o.st, PROXY_SECRET_NO_ROOM, "cap %zu", cap);
		cr_assert_eq(o.res.len, need, "cap %zu", cap);
	}
	/* a guard after the cap stays as it was */
	size_t len = sizeof(head) - 1;
	uint8_t *buf = copy(head, len), out[sizeof(want) + 16];
	struct proxy_http_head h;
	struct proxy_secret_result res;
	cr_assert_eq(proxy_http_parse_head(buf, len, &h), PROXY_HTTP_OK);
	memset(out, 0xa5, sizeof(out));
	cr_assert_eq(proxy_secret_request(buf, &h, two, 2, out, need - 1, &res), PROXY_SECRET_NO_ROOM);
	for (size_t i = need - 1; i < sizeof(out); i++)
		cr_assert_eq(out[i], 0xa5, "byte %zu written", i);
	free(buf);

	/* a result past PROXY_HTTP_HEAD_MAX: TOO_BIG, whatever the cap */
	char *value = malloc(PROXY_SECRET_VALUE_MAX);
	cr_assert(value);
	memset(value, 'v', PROXY_SECRET_VALUE_MAX);
	struct proxy_secret wide[] = { { SPAN(PH1), { (const uint8_t *)value, PROXY_SECRET_VALUE_MAX }, NULL } };
	o = request("GET / HTTP/1.1\r\nHost: a.example\r\nX: " PH1 "\r\nY: " PH1 "\r\n\r\n", wide, 1);
	cr_assert_eq(o.st, PROXY_SECRET_TOO_BIG);
	o = request("GET /" PH1 PH1 " HTTP/1.0\r\n\r\n", wide, 1); /* no field line at all */
	cr_assert_eq(o.st, PROXY_SECRET_TOO_BIG);
	o = request("GET / HTTP/1.1\r\nHost: a.example\r\nX: " PH1 "\r\n\r\n", wide, 1);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_eq(o.res.len, 36 + PROXY_SECRET_VALUE_MAX + 4);
	/* the same inside Basic: decoded, grown, and its base64 too long */
	o = request("GET / HTTP/1.1\r\nHost: a.example\r\nAuthorization: Basic "
		    "UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A6UE9SVEFfcGgxX0FiY2RlZmdoaWprbG1ub3A=\r\n\r\n",
		    wide, 1);
	cr_assert_eq(o.st, PROXY_SECRET_TOO_BIG);
	free(value);
}

/* ---- detection ---------------------------------------------------------------- */

static bool find(const char *s, unsigned how)
{
	size_t n = strlen(s), which = 99;
	uint8_t *b = copy(s, n);
	bool r = proxy_secret_find(two, 2, b, n, how, &which);
	free(b);
	if (r)
		cr_assert(which < 2);
	return r;
}

static bool find_head(const char *s, size_t *which)
{
	size_t n = strlen(s);
	uint8_t *b = copy(s, n);
	bool r = proxy_secret_find_head(two, 2, b, n, which);
	free(b);
	return r;
}

Test(http_secret, find_in_names_and_targets)
{
	const unsigned all = PROXY_SECRET_FIND_PCT | PROXY_SECRET_FIND_NODOT;
	cr_assert(find(PH1 ".attacker.example", 0));
	/* a canonical DNS name is lowercase; a resolver may mix case */
	cr_assert(find("porta_ph1_abcdefghijklmnop.attacker.example", 0));
	cr_assert(find("pOrTa_PH2_qRSTUVWXYZ012345.attacker.example:443", 0));
	/* cut across labels */
	cr_assert_not(find("porta_ph1_abcdefgh.ijklmnop.attacker.example", PROXY_SECRET_FIND_PCT));
	cr_assert(find("porta_ph1_abcdefgh.ijklmnop.attacker.example", all));
	cr_assert(find("p.o.r.t.a._ph1_abcdefghijklmnop", PROXY_SECRET_FIND_NODOT));
	/* percent-encoded, partly or wholly, either hex case */
	cr_assert_not(find("/x?%50ORTA_ph1_Abcdefghijklmnop", 0));
	cr_assert(find("/x?%50ORTA_ph1_Abcdefghijklmnop", PROXY_SECRET_FIND_PCT));
	cr_assert(find("%50%4f%52%54%41%5F%70%68%32%5f%51%72%73%74%75%76%77%78%79%7a%30%31%32%33%34%35",
		       PROXY_SECRET_FIND_PCT));
	/* decoded once only: "%2550" is "%50" */
	cr_assert_not(find("%2550ORTA_ph1_Abcdefghijklmnop", all));
	/* a "%" that is no escape stands for itself */
	cr_assert_not(find("%%50ORTA_ph1_Abcdefghijklmnop%", 0));
	cr_assert(find("%%50ORTA_ph1_Abcdefghijklmnop%", PROXY_SECRET_FIND_PCT));
	cr_assert(find("PORTA_ph1_Abcdefghij%" "6Blmnop", PROXY_SECRET_FIND_PCT));
	/* near misses */
	cr_assert_not(find("PORTA_ph1_Abcdefghijklmno", all));
	cr_assert_not(find("PORTA_ph1_Abcdefghijklmn%6", all));
	cr_assert_not(find("", all));
}

/* Where find's windows meet: the module searches 4096 +
 * PROXY_SECRET_PLACEHOLDER_MAX bytes at a time and carries the last (longest
 * placeholder - 1) bytes into the next window (http_secret.c, struct view). */
static bool near_seam(size_t at)
{
	const size_t win = 4096 + PROXY_SECRET_PLACEHOLDER_MAX, keep = sizeof(PH1) - 2;
	for (size_t end = win; end < 4 * win; end += win - keep) {
		if (at + 40 >= end && at <= end + 2)
			return true;
	}
	return false;
}

Test(http_secret, find_across_windows)
{
	/* a placeholder at every offset where two windows meet, and every 97th
	 * elsewhere, as sent and with its first byte percent-encoded */
	size_t n = 3 * 4096 + 900, m = sizeof(PH1) - 1;
	char *s = malloc(n + 1);
	cr_assert(s);
	s[n] = '\0';
	for (size_t at = 0; at + m + 2 <= n; at++) {
		if (!near_seam(at) && at % 97 != 0)
			continue;
		memset(s, 'x', n);
		memcpy(s + at, PH1, m);
		cr_assert(find(s, 0), "at %zu", at);
		memset(s, 'x', n);
		memcpy(s + at, "%50", 3);
		memcpy(s + at + 3, &PH1[1], m - 1);
		cr_assert_not(find(s, 0), "at %zu", at);
		cr_assert(find(s, PROXY_SECRET_FIND_PCT), "pct at %zu", at);
	}
	free(s);
}

Test(http_secret, find_in_heads)
{
	size_t which = 99;
	cr_assert_not(find_head("GET /x HTTP/1.1\r\nHost: api.example\r\nAuthorization: Basic "
				"YWxpY2U6cHc=\r\n\r\n", &which));
	cr_assert_eq(which, 99);
	cr_assert(find_head("GET /x?k=" PH2 " HTTP/1.1\r\nHost: api.example\r\n\r\n", &which));
	cr_assert_eq(which, 1);
	cr_assert(find_head("GET /x?k=%50ORTA_ph1_Abcdefghijklmnop HTTP/1.1\r\nHost: api.example\r\n\r\n",
			    &which));
	cr_assert_eq(which, 0);
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nCookie: a=" PH1 "\r\n\r\n", NULL));
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nX-" PH1 ": 1\r\n\r\n", NULL));
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: " PH1 ".example\r\n\r\n", NULL));
	/* in Basic credentials: "user:PH1" */
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nAuthorization: Basic "
			    "dXNlcjpQT1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", &which));
	cr_assert_eq(which, 0);
	/* lowercased before encoding */
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nproxy-authorization: basic "
			    "dXNlcjpwb3J0YV9waDFfYWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", NULL));
	/* the URL-safe alphabet, no padding, blanks and junk inside, a bare LF */
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\nAuthorization : Basic "
			    "fn5-Pz46UE9SVEFf cGgxX0Fi*Y2RlZmdoaWprbG1ub3A\r\n\r\n", NULL));
	/* the whole without '=' ("u:P" "ORTA_...") ... */
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nAuthorization: Basic "
			    "dTpQ=T1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", NULL));
	/* ... and each run between '=' on its own ("a" then "x:PH1") */
	cr_assert(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nAuthorization: Basic "
			    "YQ==eDpQT1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", NULL));
	/* base64 under another field or scheme is not decoded */
	cr_assert_not(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nX-Auth: Basic "
				"dXNlcjpQT1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", NULL));
	cr_assert_not(find_head("GET / HTTP/1.1\r\nHost: api.example\r\nAuthorization: Bearer "
				"dXNlcjpQT1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n\r\n", NULL));
}

/* ---- responses -------------------------------------------------------------------- */

static enum proxy_http_status split(const char *s, size_t len, struct proxy_http_response *r)
{
	uint8_t *b = copy(s, len);
	enum proxy_http_status st = proxy_http_parse_response(b, len, r);
	free(b);
	return st;
}

static const char *const good_responses[] = {
	"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.0 404 Not Found\r\n\r\n",
	"HTTP/1.1 204\r\nX: \t\r\n\r\n",
	"HTTP/1.1 302 \r\nLocation: https://api.example/\r\nSet-Cookie: a=b\r\n\r\n",
	"HTTP/1.1 999 any\tthing \x80\r\nX:\r\n\r\n",
};

Test(http_secret, response_split_good_and_truncated)
{
	static const size_t fields[] = { 1, 0, 1, 2, 1 };
	static const unsigned codes[] = { 200, 404, 204, 302, 999 };
	for (size_t i = 0; i < N_ELEMS(good_responses); i++) {
		struct proxy_http_response r;
		size_t len = strlen(good_responses[i]);
		cr_assert_eq(split(good_responses[i], len, &r), PROXY_HTTP_OK, "good[%zu]", i);
		cr_assert_eq(r.head_len, len);
		cr_assert_eq(r.header_count, fields[i]);
		cr_assert_eq(r.status, codes[i]);
		/* docs/style.md §12: every prefix is NEED_MORE */
		for (size_t k = 0; k < len; k++)
			cr_assert_eq(split(good_responses[i], k, &r), PROXY_HTTP_NEED_MORE,
				     "good[%zu] cut at %zu", i, k);
		/* bytes after the head are the body's */
		char more[256];
		snprintf(more, sizeof(more), "%sbody\r\n\n", good_responses[i]);
		cr_assert_eq(split(more, strlen(more), &r), PROXY_HTTP_OK);
		cr_assert_eq(r.head_len, len);
	}
	static const uint8_t ok[] = "HTTP/1.1 200 OK\r\nX: 1\r\n\r\n";
	struct proxy_http_response r;
	cr_assert_eq(proxy_http_parse_response(ok, sizeof(ok) - 1, &r), PROXY_HTTP_OK);
	cr_assert(r.reason.p == ok + 13 && r.reason.n == 2);
	cr_assert_eq(r.version_minor, 1);
}

Test(http_secret, response_split_refusals)
{
	struct {
		const char *in;
		enum proxy_http_status st;
	} v[] = {
		{ "HTTQ/1.1 200 OK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "\x16\x03\x01", PROXY_HTTP_MALFORMED },
		{ "HTTP/2 200\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.2 200 OK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1  200 OK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 20 OK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 099 OK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 2000\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200\tOK\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 O\x01K\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 OK\n\r\n", PROXY_HTTP_MALFORMED },              /* bare LF */
		{ "HTTP/1.1 200 OK\r\nX: 1\rY: 2\r\n\r\n", PROXY_HTTP_MALFORMED }, /* bare CR */
		{ "HTTP/1.1 200 OK\r\nX: 1\r\n y\r\n\r\n", PROXY_HTTP_MALFORMED }, /* obs-fold */
		{ "HTTP/1.1 200 OK\r\nX : 1\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 OK\r\n: 1\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 OK\r\nX@Y: 1\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", PROXY_HTTP_MALFORMED },
		{ "HTTP/1.1 200 OK\r\nX: a\x7f\r\n\r\n", PROXY_HTTP_MALFORMED },
	};
	for (size_t i = 0; i < N_ELEMS(v); i++) {
		struct proxy_http_response r;
		cr_assert_eq(split(v[i].in, strlen(v[i].in), &r), v[i].st, "%zu: %s", i, v[i].in);
	}
	/* a head with no end within the cap */
	size_t n = PROXY_HTTP_HEAD_MAX + 10;
	char *big = malloc(n);
	cr_assert(big);
	memset(big, 'a', n);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	struct proxy_http_response r;
	cr_assert_eq(split(big, n, &r), PROXY_HTTP_TOO_BIG);
	cr_assert_eq(split(big, PROXY_HTTP_HEAD_MAX - 1, &r), PROXY_HTTP_NEED_MORE);
	free(big);
}

static struct outcome response_cap(const char *head, const struct proxy_secret *t, size_t n,
				   size_t cap)
{
	static struct outcome o;
	size_t len = strlen(head);
	uint8_t *buf = copy(head, len);
	struct proxy_http_response r, again;

	cr_assert_eq(proxy_http_parse_response(buf, len, &r), PROXY_HTTP_OK, "%s", head);
	if (cap == 0)
		cap = PROXY_SECRET_OUT_MAX;
	uint8_t *out = malloc(cap);
	cr_assert(out);
	memset(&o, 0, sizeof(o));
	o.st = proxy_secret_response(buf, &r, t, n, out, cap, &o.res);
	if (o.st == PROXY_SECRET_OK) {
		memcpy(o.out, out, o.res.len);
		cr_assert_eq(proxy_http_parse_response(out, o.res.len, &again), PROXY_HTTP_OK);
		cr_assert_eq(again.head_len, o.res.len);
		cr_assert_eq(again.header_count, r.header_count);
		cr_assert_eq(again.status, r.status);
	}
	free(out);
	free(buf);
	return o;
}

Test(http_secret, response_rewrite)
{
	struct outcome o = response_cap(
		"HTTP/1.1 401 bad " VAL1 "\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"
		"X-Echo: Bearer " VAL1 "; " VAL2 VAL1 "\r\n" VAL1 ": kept\r\nContent-Length: 0\r\n\r\n",
		two, 2, 0);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, "HTTP/1.1 401 bad " PH1 "\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"
				"X-Echo: Bearer " PH1 "; " PH2 PH1 "\r\n" VAL1 ": kept\r\nContent-Length: 0\r\n\r\n");
	cr_assert_eq(o.res.replaced, 4);

	/* longest first: a value that starts another one */
	struct proxy_secret nested[] = { SECRET(PH1, "tok"), SECRET(PH2, "tokenvalue") };
	o = response_cap("HTTP/1.1 200 OK\r\nX: tokenvalue tok\r\n\r\n", nested, 2, 0);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, "HTTP/1.1 200 OK\r\nX: " PH2 " " PH1 "\r\n\r\n");

	/* nothing to replace: the same bytes */
	o = response_cap(good_responses[3], two, 2, 0);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, good_responses[3]);
	cr_assert_eq(o.res.replaced, 0);

	/* a real value in a framing field */
	struct proxy_secret len_value[] = { SECRET(PH1, "1234") };
	o = response_cap("HTTP/1.1 200 OK\r\nContent-Length: 12345\r\n\r\n", len_value, 1, 0);
	cr_assert_eq(o.st, PROXY_SECRET_IN_ROUTING);

	/* a real value that comes back beside the placeholder that replaced
	 * it ("kz" -> "...k" then "z") */
	struct proxy_secret again[] = { SECRET("PORTA_ph1_Abcdefghijklmnok", "kz") };
	o = response_cap("HTTP/1.1 200 OK\r\nX: kzz\r\n\r\n", again, 1, 0);
	cr_assert_eq(o.st, PROXY_SECRET_RESIDUE);

	/* every form porta produced comes back as the placeholder: Basic's
	 * base64 of "user:REAL" (escape corpus row 102), percent-encoded
	 * bytes in either case; base64 that holds no real value is left */
	o = response_cap("HTTP/1.1 200 OK\r\n"
			 "X-Echo: Basic dXNlcjpnaHBfUmVhbDFWYWx1ZQ==\r\n"
			 "Location: /a?t=ghp_%52eal1%56alue&u=%67%68%70_Real1Value\r\n"
			 "X-Other: Basic dXNlcjpvdGhlcg==\r\n\r\n",
			 two, 2, 0);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, "HTTP/1.1 200 OK\r\n"
				"X-Echo: Basic dXNlcjpQT1JUQV9waDFfQWJjZGVmZ2hpamtsbW5vcA==\r\n"
				"Location: /a?t=" PH1 "&u=" PH1 "\r\n"
				"X-Other: Basic dXNlcjpvdGhlcg==\r\n\r\n");
	cr_assert_eq(o.res.replaced, 3);
	/* an interim 1xx head is rewritten the same way */
	o = response_cap("HTTP/1.1 103 Early Hints\r\nLink: </x?t=" VAL1 ">\r\n\r\n", two, 2, 0);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	cr_assert_str_eq(o.out, "HTTP/1.1 103 Early Hints\r\nLink: </x?t=" PH1 ">\r\n\r\n");

	/* bounds: the placeholder is longer than the value it replaces */
	static const char head[] = "HTTP/1.1 200 OK\r\nX: " VAL1 "\r\n\r\n";
	size_t need = sizeof(head) - 1 - strlen(VAL1) + strlen(PH1);
	o = response_cap(head, two, 2, need);
	cr_assert_eq(o.st, PROXY_SECRET_OK);
	o = response_cap(head, two, 2, need - 1);
	cr_assert_eq(o.st, PROXY_SECRET_NO_ROOM);
	cr_assert_eq(o.res.len, need);
}
