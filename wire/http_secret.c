/* wire/http_secret.c: placeholder secrets in HTTP/1.x heads (http_secret.h).
 *
 * One copying loop serves both directions (placeholder to real value on
 * requests, real value to placeholder on responses): at each byte the
 * longest matching `from` wins, its `to` is checked for the place it lands
 * in, and the bytes between matches are copied.  Output goes through a
 * sink that counts past its capacity without writing, so a short buffer
 * still learns the length it needs and nothing lands at or past cap.
 */
#include "wire/http_secret.h"

#include <mbedtls/base64.h>
#include <string.h>

#include "common/ascii.h"
#include "wire/cursor.h"

/* ---- bytes ---------------------------------------------------------------- */

static bool is_alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* RFC 9110 §5.6.2 tchar. */
static bool is_tchar(uint8_t c)
{
	return is_alnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static bool is_placeholder_byte(uint8_t c)
{
	return is_alnum(c) || c == '-' || c == '_';
}

/* ---- the table ------------------------------------------------------------ */

/* needle occurs in hay, ignoring ASCII case. */
static bool contains_nocase(struct proxy_span hay, struct proxy_span needle)
{
	if (needle.n == 0 || needle.n > hay.n)
		return needle.n == 0;
	for (size_t i = 0; i + needle.n <= hay.n; i++) {
		if (ascii_eq_nocase(hay.p + i, needle.n, needle.p, needle.n))
			return true;
	}
	return false;
}

/* One entry on its own. */
static enum proxy_secret_table_status entry_check(const struct proxy_secret *e)
{
	struct proxy_span ph = e->placeholder;

	if (ph.n < PROXY_SECRET_PLACEHOLDER_MIN || ph.n > PROXY_SECRET_PLACEHOLDER_MAX)
		return PROXY_SECRET_TABLE_BAD_PLACEHOLDER;
	for (size_t k = 0; k < ph.n; k++) {
		if (!is_placeholder_byte(ph.p[k]))
			return PROXY_SECRET_TABLE_BAD_PLACEHOLDER;
	}
	if (e->value.n == 0 || e->value.n > PROXY_SECRET_VALUE_MAX)
		return PROXY_SECRET_TABLE_BAD_VALUE;
	/* A blank at an edge could never land in a field value (fits_place),
	 * and in a response it would run into the OWS around a value, where the
	 * rewrite (on the value without its OWS) cannot see it. */
	if (is_blank(e->value.p[0]) || is_blank(e->value.p[e->value.n - 1]))
		return PROXY_SECRET_TABLE_BAD_VALUE;
	return PROXY_SECRET_TABLE_OK;
}

/* Entry a against entry b (a itself included for the value checks). */
static enum proxy_secret_table_status pair_check(const struct proxy_secret *a,
						 const struct proxy_secret *b)
{
	if (a != b && contains_nocase(a->placeholder, b->placeholder))
		return PROXY_SECRET_TABLE_PLACEHOLDER_OVERLAP;
	if (contains_nocase(a->value, b->placeholder))
		return PROXY_SECRET_TABLE_VALUE_HOLDS_PLACEHOLDER;
	if (memmem(a->placeholder.p, a->placeholder.n, b->value.p, b->value.n) != NULL)
		return PROXY_SECRET_TABLE_PLACEHOLDER_HOLDS_VALUE;
	return PROXY_SECRET_TABLE_OK;
}

enum proxy_secret_table_status proxy_secret_table_check(const struct proxy_secret *t, size_t n,
							size_t *bad)
{
	enum proxy_secret_table_status st;

	/* Every entry first, so the index names one that is wrong on its own
	 * before a pair is blamed. */
	for (size_t i = 0; i < n; i++) {
		st = entry_check(&t[i]);
		if (st != PROXY_SECRET_TABLE_OK) {
			if (bad)
				*bad = i;
			return st;
		}
	}
	for (size_t a = 0; a < n; a++) {
		for (size_t b = 0; b < n; b++) {
			st = pair_check(&t[a], &t[b]);
			if (st != PROXY_SECRET_TABLE_OK) {
				if (bad)
					*bad = a;
				return st;
			}
		}
	}
	return PROXY_SECRET_TABLE_OK;
}

/* ---- output ----------------------------------------------------------------- */

/* Bytes written to out[0..cap), counted on past cap without writing. */
struct sink {
	uint8_t *out;
	size_t cap;
	size_t n;
};

static void put(struct sink *s, const void *p, size_t k)
{
	if (k <= s->cap && s->n <= s->cap - k && k > 0)
		memcpy(s->out + s->n, p, k);
	s->n += k;
}

static bool fits(const struct sink *s)
{
	return s->n <= s->cap;
}

/* Base64 with padding (RFC 4648 §4, as RFC 7617 §2 asks) of p[0..n), in
 * runs of 48 bytes: a multiple of 3, so only the last run is padded. */
static void put_base64(struct sink *s, const uint8_t *p, size_t n)
{
	unsigned char run[64 + 1]; /* mbedtls_base64_encode adds a NUL */

	for (size_t i = 0; i < n; i += 48) {
		size_t k = n - i < 48 ? n - i : 48, olen = 0;
		if (mbedtls_base64_encode(run, sizeof(run), &olen, p + i, k) != 0)
			olen = 0; /* cannot happen: 64 + 1 bytes hold 48 encoded */
		put(s, run, olen);
	}
}

/* ---- replacing ------------------------------------------------------------ */

enum direction {
	TO_VALUE,       /* requests: placeholder -> real value */
	TO_PLACEHOLDER, /* responses: real value -> placeholder */
};

/* Where a replacement lands decides which of its bytes are allowed. */
enum place {
	PLACE_TARGET,   /* the request-target's path and query */
	PLACE_FIELD,    /* a field value, or a response's reason phrase */
	PLACE_USER,     /* the user-id of Basic credentials */
	PLACE_PASSWORD, /* the password of Basic credentials */
};

static struct proxy_span from_of(const struct proxy_secret *s, enum direction d)
{
	return d == TO_VALUE ? s->placeholder : s->value;
}

static struct proxy_span to_of(const struct proxy_secret *s, enum direction d)
{
	return d == TO_VALUE ? s->value : s->placeholder;
}

/* RFC 3986 §3.3, §3.4: pchar, "/" and "?" (unreserved, sub-delims, ":",
 * "@", and "%" of pct-encoded), the bytes a path and query are made of;
 * none of them ends the target or starts a fragment. */
static bool is_target_byte(uint8_t c)
{
	return is_alnum(c) || (c != '\0' && strchr("-._~!$&'()*+,;=:@/?%", c) != NULL);
}

/* Whether every byte of v may land in place pl without changing how the
 * head (or the credentials) parse. */
static bool fits_place(enum place pl, struct proxy_span v)
{
	for (size_t i = 0; i < v.n; i++) {
		uint8_t c = v.p[i];
		bool ctl = c < 0x20 || c == 0x7f;
		switch (pl) {
		case PLACE_TARGET:
			if (!is_target_byte(c))
				return false;
			break;
		case PLACE_FIELD:
			/* RFC 9110 §5.5: field-vchar with inner SP / HTAB (a blank at
			 * either end, which RFC 9112 §5.1 would strip as OWS, the
			 * table check refuses); obs-text is refused, as new values
			 * should be ASCII. */
			if ((ctl && c != '\t') || c >= 0x80)
				return false;
			break;
		case PLACE_USER:
			/* RFC 7617 §2: no CTL, and a user-id with a colon is invalid */
			if (ctl || c == ':')
				return false;
			break;
		case PLACE_PASSWORD:
			if (ctl)
				return false;
			break;
		}
	}
	return true;
}

static int hex_digit(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* How many bytes of p[0..n) spell f, each of f's bytes as itself or
 * percent-encoded (%XX, either case: RFC 3986 §2.1), or 0.  A server that
 * echoes a real value porta put in a target may give it back encoded. */
static size_t match_pct(const uint8_t *p, size_t n, struct proxy_span f)
{
	size_t i = 0;

	for (size_t k = 0; k < f.n; k++) {
		if (i < n && p[i] == f.p[k]) {
			i++;
		} else if (i + 2 < n + 0 && p[i] == '%' && hex_digit(p[i + 1]) >= 0 &&
			   hex_digit(p[i + 2]) >= 0 &&
			   (uint8_t)(hex_digit(p[i + 1]) * 16 + hex_digit(p[i + 2])) == f.p[k]) {
			i += 3;
		} else {
			return 0;
		}
	}
	return i;
}

/* How many bytes of p[0..n) the `from` of s spells: exactly (requests:
 * placeholders), or also percent-encoded (responses: real values). */
static size_t from_len_at(const uint8_t *p, size_t n, const struct proxy_secret *s,
			  enum direction d)
{
	struct proxy_span f = from_of(s, d);

	if (f.n == 0)
		return 0;
	if (d == TO_PLACEHOLDER)
		return match_pct(p, n, f);
	return f.n <= n && f.p[0] == p[0] && memcmp(p, f.p, f.n) == 0 ? f.n : 0;
}

/* The index of the longest `from` of t matching at p[0..n), or nt; *len
 * the bytes it spans there. */
static size_t match_at(const uint8_t *p, size_t n, const struct proxy_secret *t, size_t nt,
		       enum direction d, size_t *len)
{
	size_t best = nt, best_len = 0;

	for (size_t k = 0; k < nt; k++) {
		size_t m = from_len_at(p, n, &t[k], d);
		if (m > best_len) {
			best = k;
			best_len = m;
		}
	}
	*len = best_len;
	return best;
}

/* Whether some `from` of t occurs in p[0..n) (as from_len_at() spells
 * it); *which set. */
static bool holds(const uint8_t *p, size_t n, const struct proxy_secret *t, size_t nt,
		  enum direction d, size_t *which)
{
	for (size_t k = 0; k < nt; k++) {
		struct proxy_span f = from_of(&t[k], d);
		if (f.n == 0)
			continue;
		if (d == TO_VALUE) {
			if (f.n <= n && memmem(p, n, f.p, f.n) != NULL) {
				*which = k;
				return true;
			}
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (from_len_at(p + i, n - i, &t[k], d)) {
				*which = k;
				return true;
			}
		}
	}
	return false;
}

/* Copies src[0..n) to s with every `from` of t replaced by its `to`,
 * each checked for place pl.  When any was replaced and the result fit,
 * the written bytes must hold no `from` any more: a real value's edge and
 * the bytes beside it could spell one again. */
static enum proxy_secret_status replace(struct sink *s, const uint8_t *src, size_t n,
					const struct proxy_secret *t, size_t nt, enum direction d,
					enum place pl, struct proxy_secret_result *res)
{
	size_t start = s->n, copied = 0, i = 0, replaced = 0;

	while (i < n) {
		size_t mlen;
		size_t k = match_at(src + i, n - i, t, nt, d, &mlen);
		if (k == nt) {
			i++;
			continue;
		}
		struct proxy_span to = to_of(&t[k], d);
		if (!fits_place(pl, to)) {
			res->which = k;
			return PROXY_SECRET_BAD_VALUE;
		}
		put(s, src + copied, i - copied);
		put(s, to.p, to.n);
		replaced++;
		i += mlen;
		copied = i;
	}
	put(s, src + copied, n - copied);
	res->replaced += replaced;
	if (replaced > 0 && fits(s) && holds(s->out + start, s->n - start, t, nt, d, &res->which))
		return PROXY_SECRET_RESIDUE;
	return PROXY_SECRET_OK;
}

/* ---- Basic credentials ------------------------------------------------------ */

/* The decoded credentials of a head that fits PROXY_HTTP_HEAD_MAX: base64
 * gives 3 bytes for 4. */
#define BASIC_MAX (PROXY_HTTP_HEAD_MAX / 4 * 3)

/* p[0..n) decodes as base64 into plain[0..*pn), and is exactly what
 * encoding that gives back: padding present, no blank or line break, no
 * stray bits in the last character (RFC 4648 §3.3, §3.5).  mbedtls alone
 * is more lenient (it skips line breaks, drops an unpadded last group), so
 * the re-encoding is the check that there is one reading only. */
static bool base64_strict(const uint8_t *p, size_t n, uint8_t *plain, size_t cap, size_t *pn)
{
	unsigned char run[64 + 1];
	size_t at = 0;

	if (mbedtls_base64_decode(plain, cap, pn, p, n) != 0)
		return false;
	for (size_t i = 0; i < *pn; i += 48) {
		size_t k = *pn - i < 48 ? *pn - i : 48, olen = 0;
		if (mbedtls_base64_encode(run, sizeof(run), &olen, plain + i, k) != 0 ||
		    olen > n - at || memcmp(run, p + at, olen) != 0)
			return false;
		at += olen;
	}
	return at == n;
}

/* The scheme of an Authorization value v[0..n) is Basic (RFC 7617 §2,
 * scheme names compared without case, RFC 9110 §11.1). */
static bool is_basic(const uint8_t *v, size_t n)
{
	size_t i = 0;
	while (i < n && is_tchar(v[i]))
		i++;
	return ascii_eq_lit_nocase(v, i, "basic");
}

/* Writes "Basic" SP credentials with placeholders replaced in the decoded
 * user-id and password (RFC 9110 §11.4: credentials = auth-scheme
 * [ 1*SP token68 ]; RFC 7617 §2: token68 is base64 of user-id ":"
 * password).  Unchanged credentials keep their bytes. */
static enum proxy_secret_status replace_basic(struct sink *s, const uint8_t *v, size_t n,
					      const struct proxy_secret *t, size_t nt,
					      struct proxy_secret_result *res)
{
	uint8_t plain[BASIC_MAX], again[BASIC_MAX];
	struct sink ps = { again, sizeof(again), 0 };
	size_t i = 5, pn = 0, before = res->replaced;
	enum proxy_secret_status st;

	while (i < n && v[i] == ' ')
		i++;
	if (i == 5 || !base64_strict(v + i, n - i, plain, sizeof(plain), &pn))
		return PROXY_SECRET_BAD_BASIC;
	const uint8_t *colon = memchr(plain, ':', pn);
	if (!colon)
		return PROXY_SECRET_BAD_BASIC;
	size_t un = (size_t)(colon - plain);
	st = replace(&ps, plain, un, t, nt, TO_VALUE, PLACE_USER, res);
	if (st != PROXY_SECRET_OK)
		return st;
	put(&ps, ":", 1);
	st = replace(&ps, colon + 1, pn - un - 1, t, nt, TO_VALUE, PLACE_PASSWORD, res);
	if (st != PROXY_SECRET_OK)
		return st;
	if (!fits(&ps))
		return PROXY_SECRET_TOO_BIG; /* its base64 alone would pass PROXY_HTTP_HEAD_MAX */
	if (res->replaced == before) {
		put(s, v, n);
		return PROXY_SECRET_OK;
	}
	put(s, v, i); /* the scheme and the blanks as sent */
	put_base64(s, again, ps.n);
	return PROXY_SECRET_OK;
}

/* ---- heads ------------------------------------------------------------------ */

/* Fields that route or frame a message: a replacement there would change
 * where the request goes or where it ends (RFC 9112 §3.2, §6; RFC 9110
 * §7.6.1, §7.8). */
static bool routes_or_frames(const uint8_t *name, size_t n)
{
	return ascii_eq_lit_nocase(name, n, "host") ||
	       ascii_eq_lit_nocase(name, n, "content-length") ||
	       ascii_eq_lit_nocase(name, n, "transfer-encoding") ||
	       ascii_eq_lit_nocase(name, n, "connection") || ascii_eq_lit_nocase(name, n, "upgrade");
}

static bool is_authorization(const uint8_t *name, size_t n)
{
	return ascii_eq_lit_nocase(name, n, "authorization") ||
	       ascii_eq_lit_nocase(name, n, "proxy-authorization");
}

/* The field lines of a head its parser accepted, buf[from..head_len):
 * every line ends in CRLF, has a token name and a colon.  Each value,
 * without the blanks around it, goes through replace (or replace_basic);
 * the rest of the line is copied. */
static bool is_b64_byte(uint8_t c)
{
	return is_alnum(c) || c == '+' || c == '/' || c == '=';
}

/* A response field value v[0..n): every real value porta may have put
 * into a request comes back as its placeholder, raw or percent-encoded
 * (replace()) and inside base64 (a server that echoes the
 * `Authorization: Basic` porta re-encoded hands back base64 of
 * "user:REAL"): each run of base64 bytes that decodes strictly to bytes
 * holding a real value is decoded, rewritten and encoded again. */
static enum proxy_secret_status replace_response_value(struct sink *s, const uint8_t *v,
						       size_t n, const struct proxy_secret *t,
						       size_t nt, struct proxy_secret_result *res)
{
	size_t i = 0, copied = 0;
	enum proxy_secret_status st = PROXY_SECRET_OK;

	while (i < n && st == PROXY_SECRET_OK) {
		if (!is_b64_byte(v[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && is_b64_byte(v[j]))
			j++;
		uint8_t plain[BASIC_MAX], again[BASIC_MAX];
		size_t pn = 0, which;
		if (j - i >= 8 && base64_strict(v + i, j - i, plain, sizeof(plain), &pn) &&
		    holds(plain, pn, t, nt, TO_PLACEHOLDER, &which)) {
			st = replace(s, v + copied, i - copied, t, nt, TO_PLACEHOLDER, PLACE_FIELD,
				     res);
			struct sink ps = { again, sizeof(again), 0 };
			if (st == PROXY_SECRET_OK)
				st = replace(&ps, plain, pn, t, nt, TO_PLACEHOLDER, PLACE_FIELD, res);
			if (st == PROXY_SECRET_OK && !fits(&ps))
				st = PROXY_SECRET_TOO_BIG;
			if (st == PROXY_SECRET_OK)
				put_base64(s, again, ps.n);
			copied = j;
		}
		i = j;
	}
	if (st == PROXY_SECRET_OK)
		st = replace(s, v + copied, n - copied, t, nt, TO_PLACEHOLDER, PLACE_FIELD, res);
	return st;
}

static enum proxy_secret_status replace_fields(struct sink *s, const uint8_t *buf, size_t from,
					       size_t head_len, const struct proxy_secret *t,
					       size_t nt, enum direction d,
					       struct proxy_secret_result *res)
{
	const uint8_t *p = buf + from, *end = buf + head_len - 2; /* the empty line */
	enum proxy_secret_status st = PROXY_SECRET_OK;

	while (p < end && st == PROXY_SECRET_OK) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p) + 2);
		const uint8_t *colon = memchr(p, ':', (size_t)(eol - p));
		const uint8_t *v = colon + 1, *ve = eol - 1; /* the CR */
		while (v < ve && is_blank(*v))
			v++;
		while (ve > v && is_blank(ve[-1]))
			ve--;
		size_t name_n = (size_t)(colon - p), vn = (size_t)(ve - v);
		put(s, p, (size_t)(v - p));
		if (routes_or_frames(p, name_n)) {
			if (holds(v, vn, t, nt, d, &res->which))
				st = PROXY_SECRET_IN_ROUTING;
			put(s, v, vn);
		} else if (d == TO_VALUE && is_authorization(p, name_n) && is_basic(v, vn)) {
			st = replace_basic(s, v, vn, t, nt, res);
		} else if (d == TO_PLACEHOLDER) {
			st = replace_response_value(s, v, vn, t, nt, res);
		} else {
			st = replace(s, v, vn, t, nt, d, PLACE_FIELD, res);
		}
		put(s, ve, (size_t)(eol + 1 - ve));
		if (s->n > PROXY_HTTP_HEAD_MAX)
			st = PROXY_SECRET_TOO_BIG;
		p = eol + 1;
	}
	put(s, "\r\n", 2);
	return st;
}

static enum proxy_secret_status finish(const struct sink *s, enum proxy_secret_status st,
				       struct proxy_secret_result *res)
{
	if (st != PROXY_SECRET_OK)
		return st;
	res->len = s->n;
	if (s->n > PROXY_HTTP_HEAD_MAX)
		return PROXY_SECRET_TOO_BIG;
	return fits(s) ? PROXY_SECRET_OK : PROXY_SECRET_NO_ROOM;
}

enum proxy_secret_status proxy_secret_request(const uint8_t *buf, const struct proxy_http_head *h,
					      const struct proxy_secret *t, size_t n, uint8_t *out,
					      size_t cap, struct proxy_secret_result *res)
{
	struct sink s = { out, cap, 0 };
	const uint8_t *tgt = h->target.p, *tgt_end = tgt + h->target.n;
	const uint8_t *eol = memchr(tgt_end, '\n', h->head_len - (size_t)(tgt_end - buf));
	enum proxy_secret_status st = PROXY_SECRET_OK;

	memset(res, 0, sizeof(*res));
	put(&s, buf, (size_t)(tgt - buf)); /* the method and its SP */
	switch (h->form) {
	case PROXY_HTTP_FORM_ORIGIN:
		st = replace(&s, tgt, h->target.n, t, n, TO_VALUE, PLACE_TARGET, res);
		break;
	case PROXY_HTTP_FORM_ABSOLUTE: {
		/* scheme and authority as sent: they say where the request goes */
		size_t an = (size_t)(h->target_path.p - tgt);
		if (holds(tgt, an, t, n, TO_VALUE, &res->which))
			st = PROXY_SECRET_IN_ROUTING;
		put(&s, tgt, an);
		if (st == PROXY_SECRET_OK)
			st = replace(&s, h->target_path.p, h->target_path.n, t, n, TO_VALUE,
				     PLACE_TARGET, res);
		break;
	}
	case PROXY_HTTP_FORM_AUTHORITY:
		if (holds(tgt, h->target.n, t, n, TO_VALUE, &res->which))
			st = PROXY_SECRET_IN_ROUTING;
		put(&s, tgt, h->target.n);
		break;
	case PROXY_HTTP_FORM_ASTERISK:
		put(&s, tgt, h->target.n);
		break;
	}
	put(&s, tgt_end, (size_t)(eol + 1 - tgt_end)); /* SP, version, CRLF */
	if (st == PROXY_SECRET_OK)
		st = replace_fields(&s, buf, (size_t)(eol + 1 - buf), h->head_len, t, n, TO_VALUE,
				    res);
	return finish(&s, st, res);
}

/* ---- detection -------------------------------------------------------------- */

/* One form of the bytes searched, lowercased, held a window at a time: each
 * window keeps the last bytes of the one before (the longest placeholder
 * less one), so an occurrence never falls between two. */
#define VIEW_WINDOW 4096

struct view {
	const struct proxy_secret *t;
	size_t nt;
	size_t keep;
	uint8_t buf[VIEW_WINDOW + PROXY_SECRET_PLACEHOLDER_MAX];
	size_t n;
	bool found;
	size_t which;
};

static void view_init(struct view *v, const struct proxy_secret *t, size_t nt)
{
	v->t = t;
	v->nt = nt;
	v->keep = 0;
	for (size_t k = 0; k < nt; k++) {
		size_t m = t[k].placeholder.n;
		if (m > 0 && m <= PROXY_SECRET_PLACEHOLDER_MAX && m - 1 > v->keep)
			v->keep = m - 1;
	}
	v->n = 0;
	v->found = false;
	v->which = 0;
}

static void view_search(struct view *v)
{
	uint8_t low[PROXY_SECRET_PLACEHOLDER_MAX];

	for (size_t k = 0; k < v->nt && !v->found; k++) {
		struct proxy_span ph = v->t[k].placeholder;
		if (ph.n == 0 || ph.n > sizeof(low))
			continue; /* a table proxy_secret_table_check refuses */
		for (size_t i = 0; i < ph.n; i++)
			low[i] = ascii_lower(ph.p[i]);
		if (memmem(v->buf, v->n, low, ph.n) != NULL) {
			v->found = true;
			v->which = k;
		}
	}
}

static void view_put(struct view *v, uint8_t c)
{
	if (v->found)
		return;
	v->buf[v->n++] = ascii_lower(c);
	if (v->n == sizeof(v->buf)) {
		view_search(v);
		memmove(v->buf, v->buf + v->n - v->keep, v->keep);
		v->n = v->keep;
	}
}

/* Ends one form: searches what is left, and starts the next form empty. */
static void view_end(struct view *v)
{
	if (!v->found)
		view_search(v);
	v->n = 0;
}

static void view_raw(struct view *v, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n && !v->found; i++)
		view_put(v, p[i]);
	view_end(v);
}

/* RFC 3986 §2.1: "%" HEXDIG HEXDIG is one byte; anything else, a lone "%"
 * included, stands for itself, as a lenient decoder reads it. */
static void view_pct(struct view *v, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n && !v->found; i++) {
		int hi, lo;
		if (p[i] == '%' && n - i >= 3 && (hi = ascii_hex_value(p[i + 1])) >= 0 &&
		    (lo = ascii_hex_value(p[i + 2])) >= 0) {
			view_put(v, (uint8_t)(hi << 4 | lo));
			i += 2;
		} else {
			view_put(v, p[i]);
		}
	}
	view_end(v);
}

static void view_nodot(struct view *v, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n && !v->found; i++) {
		if (p[i] != '.')
			view_put(v, p[i]);
	}
	view_end(v);
}

/* Lenient base64 (what servers that skip bad bytes read): every byte of the
 * standard or URL-safe alphabet, four at a time; a last group of two or
 * three is padded, a lone last byte dropped. */
struct b64_reader {
	struct view *v;
	uint8_t q[4];
	size_t k;
};

static void b64_group(struct b64_reader *r)
{
	uint8_t bytes[3];
	size_t olen = 0;

	if (r->k >= 2) {
		while (r->k < 4)
			r->q[r->k++] = '=';
		if (mbedtls_base64_decode(bytes, sizeof(bytes), &olen, r->q, 4) == 0) {
			for (size_t i = 0; i < olen; i++)
				view_put(r->v, bytes[i]);
		}
	}
	r->k = 0;
}

static void b64_byte(struct b64_reader *r, uint8_t c)
{
	if (c == '-')
		c = '+';
	else if (c == '_')
		c = '/';
	if (!is_alnum(c) && c != '+' && c != '/')
		return;
	r->q[r->k++] = c;
	if (r->k == 4)
		b64_group(r);
}

/* Basic credentials c[0..n) read as a whole with '=' skipped, then each run
 * between '=' bytes on its own (decoders that stop at padding, or start
 * again after it). */
static void view_basic(struct view *v, const uint8_t *c, size_t n)
{
	struct b64_reader r = { v, { 0 }, 0 };

	for (size_t i = 0; i < n; i++)
		b64_byte(&r, c[i]);
	b64_group(&r);
	view_end(v);
	for (size_t i = 0; i <= n && !v->found; i++) {
		if (i == n || c[i] == '=') {
			b64_group(&r);
			view_end(v);
		} else {
			b64_byte(&r, c[i]);
		}
	}
}

/* A line "name: value" whose name is Authorization or Proxy-Authorization
 * and whose value starts "Basic" and a blank: the credentials after the
 * blanks, read leniently (blanks allowed around the name). */
static bool basic_credentials(const uint8_t *l, size_t n, struct proxy_span *cred)
{
	const uint8_t *colon = memchr(l, ':', n);
	size_t s = 0, e;

	if (!colon)
		return false;
	e = (size_t)(colon - l);
	while (s < e && is_blank(l[s]))
		s++;
	while (e > s && is_blank(l[e - 1]))
		e--;
	if (!is_authorization(l + s, e - s))
		return false;
	size_t i = (size_t)(colon - l) + 1;
	while (i < n && is_blank(l[i]))
		i++;
	if (n - i < 6 || !ascii_eq_lit_nocase(l + i, 5, "basic") || !is_blank(l[i + 5]))
		return false;
	i += 5;
	while (i < n && is_blank(l[i]))
		i++;
	cred->p = l + i;
	cred->n = n - i;
	return true;
}

bool proxy_secret_find(const struct proxy_secret *t, size_t n, const uint8_t *p, size_t len,
		       unsigned how, size_t *which)
{
	struct view v;

	view_init(&v, t, n);
	view_raw(&v, p, len);
	if (how & PROXY_SECRET_FIND_PCT)
		view_pct(&v, p, len);
	if (how & PROXY_SECRET_FIND_NODOT)
		view_nodot(&v, p, len);
	if (v.found && which)
		*which = v.which;
	return v.found;
}

bool proxy_secret_find_head(const struct proxy_secret *t, size_t n, const uint8_t *buf,
			    size_t len, size_t *which)
{
	struct view v;

	view_init(&v, t, n);
	view_raw(&v, buf, len);
	view_pct(&v, buf, len);
	for (size_t s = 0; s < len && !v.found;) {
		const uint8_t *lf = memchr(buf + s, '\n', len - s);
		size_t e = lf ? (size_t)(lf - buf) : len, next = e + 1;
		struct proxy_span cred;
		if (e > s && buf[e - 1] == '\r')
			e--;
		if (basic_credentials(buf + s, e - s, &cred))
			view_basic(&v, cred.p, cred.n);
		s = next;
	}
	if (v.found && which)
		*which = v.which;
	return v.found;
}

/* ---- responses ---------------------------------------------------------------- */

enum proxy_secret_status proxy_secret_response(const uint8_t *buf,
					       const struct proxy_http_response *r,
					       const struct proxy_secret *t, size_t n, uint8_t *out,
					       size_t cap, struct proxy_secret_result *res)
{
	struct sink s = { out, cap, 0 };
	const uint8_t *reason_end = r->reason.p + r->reason.n; /* the CR */
	enum proxy_secret_status st;

	memset(res, 0, sizeof(*res));
	put(&s, buf, (size_t)(r->reason.p - buf));
	st = replace(&s, r->reason.p, r->reason.n, t, n, TO_PLACEHOLDER, PLACE_FIELD, res);
	put(&s, reason_end, 2);
	if (st == PROXY_SECRET_OK)
		st = replace_fields(&s, buf, (size_t)(reason_end + 2 - buf), r->head_len, t, n,
				    TO_PLACEHOLDER, res);
	return finish(&s, st, res);
}
