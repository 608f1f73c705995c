/* wire/http_syntax.c: head lines and field values shared by requests and
 * responses (http_syntax.h). */
#include "wire/http_syntax.h"

#include <string.h>

#include "common/ascii.h"

/* RFC 9110 §5.6.2 tchar. */
bool proxy_http_tchar(uint8_t c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* The next line at c's position, without its CRLF; c moves past the LF.
 * No LF among the bytes present yet: TOO_BIG once the head has reached its
 * cap (len is what the caller has, c holds at most the cap), else NEED_MORE.
 * A LF without a CR before it is a bare LF: MALFORMED. */
enum proxy_http_status proxy_http_next_line(struct wire_cursor *c, size_t len, struct wire_span *line)
{
	const uint8_t *p;
	size_t off;

	if (!wire_find(c, '\n', SIZE_MAX, &off) || !wire_take(c, off + 1, &p))
		return len >= PROXY_HTTP_HEAD_MAX ? PROXY_HTTP_TOO_BIG : PROXY_HTTP_NEED_MORE;
	if (off == 0 || p[off - 1] != '\r')
		return PROXY_HTTP_MALFORMED;
	line->p = p;
	line->n = off - 1;
	return PROXY_HTTP_OK;
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* A field line "name:OWS value OWS" (RFC 9112 §5), its CRLF removed. */
bool proxy_http_field(struct wire_span line, struct wire_span *name, struct wire_span *value)
{
	struct wire_cursor l = wire_whole(line.p, line.n);
	const uint8_t *v;
	uint8_t b;

	/* RFC 9112 §5.2 obs-fold, and §2.2 whitespace before the first
	 * field: both a line starting with a blank. */
	if (wire_peek(&l, &b) && is_blank(b))
		return false;
	/* §5.1: "No whitespace is allowed between the field name and
	 * colon ... MUST reject"; a name is a non-empty token. */
	if (wire_take_while(&l, proxy_http_tchar, SIZE_MAX, name) == 0 || !wire_u8(&l, &b) || b != ':')
		return false;
	size_t n = wire_left(&l);
	if (!wire_take(&l, n, &v))
		return false;
	for (size_t k = 0; k < n; k++) {
		if ((v[k] < 0x20 && v[k] != '\t') || v[k] == 0x7f)
			return false; /* NUL, CR, other CTLs (§5.5) */
	}
	while (n > 0 && is_blank(v[0])) {
		v++;
		n--;
	}
	while (n > 0 && is_blank(v[n - 1]))
		n--;
	value->p = v;
	value->n = n;
	return true;
}

/* Content-Length = 1*DIGIT (RFC 9110 §8.6), at most 18 digits so it fits. */
bool proxy_http_content_length(const uint8_t *p, size_t n, uint64_t *v)
{
	if (n < 1 || n > 18)
		return false;
	*v = 0;
	for (size_t k = 0; k < n; k++) {
		if (p[k] < '0' || p[k] > '9')
			return false;
		*v = *v * 10 + (uint64_t)(p[k] - '0');
	}
	return true;
}

/* One Transfer-Encoding field value, a list of transfer-codings: whether
 * chunked is its last member, counting the chunked members.  Empty list
 * members are allowed (RFC 9110 §5.6.1); parameters stay with their coding. */
void proxy_http_te_list(const uint8_t *p, size_t n, unsigned *chunked_total, bool *last_chunked,
		    bool *any)
{
	size_t i = 0;
	while (i < n) {
		size_t s = i, e;
		while (i < n && p[i] != ',')
			i++;
		e = i;
		if (i < n)
			i++;
		while (s < e && (p[s] == ' ' || p[s] == '\t'))
			s++;
		while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (s == e)
			continue;
		*any = true;
		*last_chunked = ascii_eq_lit_nocase(p + s, e - s, "chunked");
		if (*last_chunked)
			(*chunked_total)++;
	}
}
