/* tests/fuzz/fuzz_http_secret.c: placeholder secrets in HTTP heads
 * (wire/http_secret.h).  The input is a table and a template:
 *
 *   byte 0     the output buffer: odd, exactly PROXY_SECRET_OUT_MAX; even,
 *              byte0 * 4 bytes (often too small); also the find() flags
 *   byte 1     the number of secrets (low 2 bits, 0..3)
 *   per secret a seed and a length for the placeholder (drawn from
 *              [A-Za-z0-9_-], 16..31 bytes), then a length (1..48) and the
 *              real value's bytes, any bytes at all
 *   the rest   a head, where 0x01..0x03 stand for the placeholders, 0x04
 *              for placeholder 0 upper-cased, 0x05 for it percent-encoded,
 *              0x06 for real value 0, and 0x0e ... 0x0f for the base64 of
 *              what lies between (so Basic credentials can hold them)
 *
 * With a table proxy_secret_table_check accepts: every output stays inside
 * its exact-size buffer; a rewritten request head parses again to the same
 * method, Host, target authority, framing and number of fields, and holds
 * no placeholder in the target, a field value or decoded Basic credentials;
 * a rewritten response head splits again the same and holds no real value
 * in its reason phrase or field values; a result too big for its buffer
 * fits exactly in the length it asked for; and detection agrees with a
 * naive search (written here, independently) on the decoded forms. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/http_secret.h"
#include "tests/fuzz/fuzz.h"

#define MAX_SECRETS 3
#define EXPANDED_MAX (PROXY_HTTP_HEAD_MAX + 4096)

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static uint8_t lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* ---- the naive detector ------------------------------------------------------ */

struct table {
	struct proxy_secret s[MAX_SECRETS];
	size_t n;
	uint8_t ph[MAX_SECRETS][32];
};

/* Whether some placeholder occurs in f[0..n) ignoring case (f lowercased). */
static bool naive_in(const struct table *t, const uint8_t *f, size_t n)
{
	for (size_t k = 0; k < t->n; k++) {
		uint8_t low[32];
		size_t m = t->s[k].placeholder.n;
		for (size_t i = 0; i < m; i++)
			low[i] = lower(t->s[k].placeholder.p[i]);
		if (memmem(f, n, low, m))
			return true;
	}
	return false;
}

static uint8_t form[EXPANDED_MAX * 2];

static size_t form_raw(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		form[i] = lower(p[i]);
	return n;
}

static size_t form_pct(const uint8_t *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
			form[o++] = lower((uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2])));
			i += 2;
		} else {
			form[o++] = lower(p[i]);
		}
	}
	return o;
}

static size_t form_nodot(const uint8_t *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '.')
			form[o++] = lower(p[i]);
	}
	return o;
}

static int b64val(uint8_t c)
{
	const char *hit = c ? strchr(alphabet, c) : NULL;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return hit ? (int)(hit - alphabet) : -1; /* '-' is 62, '_' 63: URL-safe */
}

/* Lenient base64 of p[0..n) (alphabet bytes only, '=' ends nothing),
 * bit by bit; a lone last character is dropped. */
static size_t form_b64(const uint8_t *p, size_t n)
{
	uint32_t acc = 0;
	unsigned bits = 0;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64val(p[i]);
		if (v < 0)
			continue;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			form[o++] = lower((uint8_t)(acc >> bits));
		}
	}
	return o;
}

/* a[0..an) and b[0..bn) are the same bytes (either may be NULL when empty). */
static bool same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static bool blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static bool eq_lit(const uint8_t *p, size_t n, const char *lit)
{
	if (n != strlen(lit))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (lower(p[i]) != (uint8_t)lit[i])
			return false;
	}
	return true;
}

/* The credentials of an "Authorization: Basic" line, read leniently. */
static bool naive_basic(const uint8_t *l, size_t n, const uint8_t **c, size_t *cn)
{
	size_t colon = 0;
	while (colon < n && l[colon] != ':')
		colon++;
	if (colon == n)
		return false;
	size_t s = 0, e = colon;
	while (s < e && blank(l[s]))
		s++;
	while (e > s && blank(l[e - 1]))
		e--;
	if (!eq_lit(l + s, e - s, "authorization") && !eq_lit(l + s, e - s, "proxy-authorization"))
		return false;
	size_t i = colon + 1;
	while (i < n && blank(l[i]))
		i++;
	if (i + 6 > n || !eq_lit(l + i, 5, "basic") || !blank(l[i + 5]))
		return false;
	i += 5;
	while (i < n && blank(l[i]))
		i++;
	*c = l + i;
	*cn = n - i;
	return true;
}

static bool naive_head(const struct table *t, const uint8_t *p, size_t n)
{
	if (naive_in(t, form, form_raw(p, n)) || naive_in(t, form, form_pct(p, n)))
		return true;
	for (size_t s = 0; s < n;) {
		size_t e = s;
		while (e < n && p[e] != '\n')
			e++;
		size_t next = e + 1, le = e;
		if (le > s && p[le - 1] == '\r')
			le--;
		const uint8_t *c;
		size_t cn;
		if (naive_basic(p + s, le - s, &c, &cn)) {
			if (naive_in(t, form, form_b64(c, cn)))
				return true;
			size_t a = 0;
			for (size_t i = 0; i <= cn; i++) {
				if (i == cn || c[i] == '=') {
					if (naive_in(t, form, form_b64(c + a, i - a)))
						return true;
					a = i + 1;
				}
			}
		}
		s = next;
	}
	return false;
}

/* ---- the input ------------------------------------------------------------------ */

static size_t b64_encode(const uint8_t *p, size_t n, uint8_t *out)
{
	static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		out[o++] = (uint8_t)std[v >> 18 & 63];
		out[o++] = (uint8_t)std[v >> 12 & 63];
		out[o++] = i + 1 < n ? (uint8_t)std[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? (uint8_t)std[v & 63] : '=';
	}
	return o;
}

static uint8_t expanded[EXPANDED_MAX], inner[EXPANDED_MAX];

static size_t put(uint8_t *dst, size_t o, const void *p, size_t n)
{
	if (o + n > EXPANDED_MAX)
		return o;
	memcpy(dst + o, p, n);
	return o + n;
}

/* Expands the template's markers (base64 runs into inner first). */
static size_t expand(const struct table *t, const uint8_t *p, size_t n)
{
	size_t o = 0, in = 0;
	bool b64 = false;
	for (size_t i = 0; i < n; i++) {
		uint8_t *dst = b64 ? inner : expanded;
		size_t *at = b64 ? &in : &o;
		uint8_t c = p[i];
		if (c >= 1 && c <= 3 && c <= t->n) {
			*at = put(dst, *at, t->s[c - 1].placeholder.p, t->s[c - 1].placeholder.n);
		} else if ((c == 4 || c == 5 || c == 6) && t->n > 0) {
			struct proxy_span ph = t->s[0].placeholder;
			for (size_t k = 0; k < ph.n; k++) {
				char esc[4] = { '%', "0123456789ABCDEF"[ph.p[k] >> 4],
						"0123456789abcdef"[ph.p[k] & 15], 0 };
				uint8_t up = ph.p[k] >= 'a' && ph.p[k] <= 'z' ? (uint8_t)(ph.p[k] - 32) : ph.p[k];
				if (c == 4)
					*at = put(dst, *at, &up, 1);
				else if (c == 5)
					*at = put(dst, *at, esc, 3);
			}
			if (c == 6)
				*at = put(dst, *at, t->s[0].value.p, t->s[0].value.n);
		} else if (c == 0x0e && !b64) {
			b64 = true;
			in = 0;
		} else if (c == 0x0f && b64) {
			static uint8_t enc[EXPANDED_MAX * 4 / 3 + 8];
			size_t en = b64_encode(inner, in, enc);
			o = put(expanded, o, enc, en);
			b64 = false;
		} else {
			*at = put(dst, *at, &c, 1);
		}
	}
	return o;
}

/* Reads the table; returns the bytes it took, or 0 when the input ends. */
static size_t read_table(struct table *t, const uint8_t *p, size_t n)
{
	size_t i = 1;
	if (n < 1)
		return 0;
	t->n = p[0] & 3;
	for (size_t k = 0; k < t->n; k++) {
		if (n - i < 3)
			return 0;
		uint8_t seed = p[i], len = (uint8_t)(16 + p[i + 1] % 16), vn = (uint8_t)(p[i + 2] % 48 + 1);
		i += 3;
		for (size_t j = 0; j < len; j++)
			t->ph[k][j] = (uint8_t)alphabet[(seed + j * (2 * k + 7) + (j * j) % 5) % 64];
		t->ph[k][0] = (uint8_t)"PQR"[k]; /* three distinct starts */
		t->s[k].placeholder.p = t->ph[k];
		t->s[k].placeholder.n = len;
		if (n - i < vn)
			return 0;
		t->s[k].value.p = p + i;
		t->s[k].value.n = vn;
		i += vn;
	}
	return i;
}

/* ---- checks --------------------------------------------------------------------- */

static bool holds_exact(const struct table *t, const uint8_t *p, size_t n, bool values)
{
	for (size_t k = 0; k < t->n; k++) {
		struct proxy_span f = values ? t->s[k].value : t->s[k].placeholder;
		if (f.n <= n && n > 0 && memmem(p, n, f.p, f.n))
			return true;
	}
	return false;
}

/* Every field value of head[0..n) (from the line after the first, each
 * line CRLF-terminated, with a colon): whether one holds a placeholder (or
 * a real value), Basic credentials read decoded instead. */
static bool fields_hold(const struct table *t, const uint8_t *h, size_t n, bool values)
{
	const uint8_t *p = memchr(h, '\n', n) + 1, *end = h + n - 2;
	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p) + 2);
		const uint8_t *colon = memchr(p, ':', (size_t)(eol - p));
		const uint8_t *v = colon + 1;
		size_t vn = (size_t)(eol - 1 - v);
		const uint8_t *c;
		size_t cn;
		/* Basic credentials are rewritten decoded: their base64 text may
		 * spell a placeholder by chance, which the server never reads as
		 * one; what counts is what it decodes */
		bool basic = !values && naive_basic(p, (size_t)(eol - 1 - p), &c, &cn);
		if (!basic && holds_exact(t, v, vn, values))
			return true;
		if (basic) {
			static uint8_t dec[EXPANDED_MAX];
			uint32_t acc = 0;
			unsigned bits = 0;
			size_t o = 0;
			for (size_t i = 0; i < cn; i++) {
				int x = b64val(c[i]);
				if (x < 0)
					continue;
				acc = acc << 6 | (uint32_t)x;
				bits += 6;
				if (bits >= 8) {
					bits -= 8;
					dec[o++] = (uint8_t)(acc >> bits);
				}
			}
			if (holds_exact(t, dec, o, false))
				return true;
		}
		p = eol + 1;
	}
	return false;
}

static void check_request(const struct table *t, const uint8_t *e, size_t n, size_t cap)
{
	struct proxy_http_head h, again;
	enum proxy_http_status pst = proxy_http_parse_head(e, n, &h);
	struct proxy_secret_result res;

	if (pst != PROXY_HTTP_OK && pst != PROXY_HTTP_HOST_MISSING && pst != PROXY_HTTP_HOST_DUPLICATE)
		return;
	uint8_t *out = malloc(cap ? cap : 1);
	if (!out)
		abort();
	enum proxy_secret_status st = proxy_secret_request(e, &h, t->s, t->n, out, cap, &res);
	if (st == PROXY_SECRET_NO_ROOM) {
		if (res.len <= cap || res.len > PROXY_SECRET_OUT_MAX)
			abort();
		free(out);
		cap = res.len;
		out = malloc(cap);
		if (!out)
			abort();
		st = proxy_secret_request(e, &h, t->s, t->n, out, cap, &res);
		if (st != PROXY_SECRET_OK && st != PROXY_SECRET_RESIDUE)
			abort();
		if (st == PROXY_SECRET_OK && res.len != cap)
			abort();
	}
	if (st == PROXY_SECRET_OK) {
		size_t len = res.len;
		if (len > cap || len > PROXY_SECRET_OUT_MAX)
			abort();
		if (proxy_http_parse_head(out, len, &again) != pst || again.head_len != len ||
		    !same(again.method.p, again.method.n, h.method.p, h.method.n) ||
		    !same(again.host_value.p, again.host_value.n, h.host_value.p, h.host_value.n) ||
		    again.flags != h.flags || again.content_length != h.content_length ||
		    again.header_count != h.header_count || again.form != h.form ||
		    again.version_minor != h.version_minor ||
		    again.target_authority.port != h.target_authority.port ||
		    !same(again.target_authority.host.p, again.target_authority.host.n,
			  h.target_authority.host.p, h.target_authority.host.n))
			abort();
		if (res.replaced == 0 && !same(out, len, e, h.head_len))
			abort();
		if (again.form != PROXY_HTTP_FORM_AUTHORITY &&
		    holds_exact(t, again.target_path.p, again.target_path.n, false))
			abort();
		if (fields_hold(t, out, len, false))
			abort();
	}
	free(out);
}

static void check_response(const struct table *t, const uint8_t *e, size_t n, size_t cap)
{
	struct proxy_http_response r, again;
	struct proxy_secret_result res;

	if (proxy_http_parse_response(e, n, &r) != PROXY_HTTP_OK)
		return;
	if (r.head_len > n || r.head_len < 14 ||
	    proxy_http_parse_response(e, r.head_len - 1, &again) != PROXY_HTTP_NEED_MORE)
		abort();
	uint8_t *out = malloc(cap ? cap : 1);
	if (!out)
		abort();
	enum proxy_secret_status st = proxy_secret_response(e, &r, t->s, t->n, out, cap, &res);
	if (st == PROXY_SECRET_NO_ROOM) {
		if (res.len <= cap || res.len > PROXY_SECRET_OUT_MAX)
			abort();
		free(out);
		cap = res.len;
		out = malloc(cap);
		if (!out)
			abort();
		st = proxy_secret_response(e, &r, t->s, t->n, out, cap, &res);
		if (st != PROXY_SECRET_OK && st != PROXY_SECRET_RESIDUE)
			abort();
	}
	if (st == PROXY_SECRET_OK) {
		size_t len = res.len;
		if (len > cap || proxy_http_parse_response(out, len, &again) != PROXY_HTTP_OK ||
		    again.head_len != len || again.header_count != r.header_count ||
		    again.status != r.status || again.version_minor != r.version_minor)
			abort();
		if (holds_exact(t, again.reason.p, again.reason.n, true) || fields_hold(t, out, len, true))
			abort();
		if (res.replaced == 0 && !same(out, len, e, r.head_len))
			abort();
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct table t;

	if (size < 2)
		return 0;
	uint8_t ctl = data[0];
	size_t used = read_table(&t, data + 1, size - 1);
	if (used == 0)
		return 0;
	if (proxy_secret_table_check(t.s, t.n, NULL) != PROXY_SECRET_TABLE_OK)
		return 0;
	size_t n = expand(&t, data + 1 + used, size - 1 - used);
	uint8_t *e = malloc(n ? n : 1); /* exact size: an over-read is an ASan report */
	if (!e)
		abort();
	memcpy(e, expanded, n);

	/* detection against the naive search */
	if (proxy_secret_find_head(t.s, t.n, e, n, NULL) != naive_head(&t, e, n))
		abort();
	unsigned how = ctl >> 6;
	bool want = naive_in(&t, form, form_raw(e, n)) ||
		    ((how & PROXY_SECRET_FIND_PCT) && naive_in(&t, form, form_pct(e, n))) ||
		    ((how & PROXY_SECRET_FIND_NODOT) && naive_in(&t, form, form_nodot(e, n)));
	size_t which = 99;
	if (proxy_secret_find(t.s, t.n, e, n, how, &which) != want || (want && which >= t.n))
		abort();

	size_t cap = ctl & 1 ? PROXY_SECRET_OUT_MAX : (size_t)ctl * 4;
	check_request(&t, e, n, cap);
	check_response(&t, e, n, cap);
	free(e);
	return 0;
}
