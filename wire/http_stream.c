/* wire/http_stream.c: an HTTP/1.x request stream, framed (http_stream.h).
 *
 * Each state reads one complete unit at the current position (a head, a
 * chunk-size line, a trailer line, the CRLF after chunk data) or passes body
 * bytes as they come, so a prefix of a good stream is only ever PASS, HEAD
 * or NEED_MORE.  Strict where RFC 9112 lets a recipient be lenient, for the
 * reason sniff_http.c gives: the server behind porta may read the other way.
 */
#include "wire/http_stream.h"

#include <string.h>

#include "common/ascii.h"
#include "wire/cursor.h"
#include "wire/http_syntax.h"

/* Chunk sizes above this are refused: no body is that long, and a parser
 * that overflows a 64-bit size is how chunk sizes smuggle (RFC 9112 §7.1:
 * "anticipate potential integer conversion overflows"). */
#define HS_CHUNK_SIZE_LIMIT (UINT64_C(1) << 60)

static size_t min_size(size_t a, uint64_t b)
{
	return (uint64_t)a < b ? a : (size_t)b;
}

/* The line at buf[0..): *eol is the index of its LF.  NEED_MORE without a LF
 * among the first cap bytes while len < cap, TOO_BIG once len reaches cap,
 * MALFORMED when the LF has no CR before it (bare LF, RFC 9112 §2.2). */
static enum proxy_hs_status find_line(const uint8_t *buf, size_t len, size_t cap, size_t *eol)
{
	struct wire_cursor c = wire_stream(buf, len);
	const uint8_t *line;

	if (!wire_find(&c, '\n', cap, eol) || !wire_take(&c, *eol + 1, &line))
		return len >= cap ? PROXY_HS_TOO_BIG : PROXY_HS_NEED_MORE;
	if (*eol == 0 || line[*eol - 1] != '\r')
		return PROXY_HS_MALFORMED;
	return PROXY_HS_PASS;
}

/* A CRLF at buf[0..len) (len > 0): PASS, NEED_MORE after a lone CR, or
 * MALFORMED. */
static enum proxy_hs_status crlf(const uint8_t *buf, size_t len)
{
	struct wire_cursor c = wire_stream(buf, len);
	uint8_t cr, lf;

	if (!wire_u8(&c, &cr) || cr != '\r')
		return PROXY_HS_MALFORMED;
	if (!wire_u8(&c, &lf))
		return PROXY_HS_NEED_MORE;
	return lf == '\n' ? PROXY_HS_PASS : PROXY_HS_MALFORMED;
}

static size_t skip_bws(const uint8_t *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

/* RFC 9110 §5.6.4 quoted-string starting at p[i] == '"': the index after
 * its closing quote, or 0 when it is not one. */
static size_t quoted_string(const uint8_t *p, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		uint8_t c = p[i];
		if (c == '"')
			return i + 1;
		if (c == '\\') {
			if (++i == n)
				return 0;
			c = p[i];
			if (!(c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7f)))
				return 0;
			continue;
		}
		/* qdtext: HTAB, SP, %x21, %x23-5B, %x5D-7E, obs-text */
		if (!(c == '\t' || c == ' ' || (c >= 0x21 && c != 0x7f)))
			return 0;
	}
	return 0;
}

/* chunk-size [ chunk-ext ] (RFC 9112 §7.1.1), the line without its CRLF. */
static bool parse_chunk_line(const uint8_t *p, size_t n, uint64_t *size)
{
	size_t i = 0;

	*size = 0;
	for (; i < n && ascii_hex_value(p[i]) >= 0; i++) {
		*size = *size * 16 + (uint64_t)ascii_hex_value(p[i]);
		if (*size > HS_CHUNK_SIZE_LIMIT)
			return false;
	}
	if (i == 0)
		return false; /* no digits: "", "-1", "0x10", " 1" */
	for (;;) {
		i = skip_bws(p, i, n);
		if (i == n)
			return true;
		if (p[i] != ';')
			return false;
		i = skip_bws(p, i + 1, n);
		size_t s = i;
		while (i < n && proxy_http_tchar(p[i]))
			i++;
		if (i == s)
			return false; /* chunk-ext-name is a token */
		i = skip_bws(p, i, n);
		if (i == n || p[i] != '=')
			continue;
		i = skip_bws(p, i + 1, n);
		if (i < n && p[i] == '"') {
			i = quoted_string(p, i, n);
			if (i == 0)
				return false;
			continue;
		}
		s = i;
		while (i < n && proxy_http_tchar(p[i]))
			i++;
		if (i == s)
			return false;
	}
}

/* A trailer field line without its CRLF (RFC 9112 §7.1.2, §5): the rules
 * of a header line, and none of the fields a server might take for framing
 * or routing if it merged trailers into the head (RFC 9110 §6.5.1). */
static bool trailer_line_ok(const uint8_t *p, size_t n)
{
	size_t c = 0;
	while (c < n && proxy_http_tchar(p[c]))
		c++;
	if (c == 0 || c == n || p[c] != ':')
		return false; /* obs-fold (a leading blank), blank before ':', no name */
	for (size_t k = c + 1; k < n; k++) {
		if ((p[k] < 0x20 && p[k] != '\t') || p[k] == 0x7f)
			return false;
	}
	return !ascii_eq_lit_nocase(p, c, "host") && !ascii_eq_lit_nocase(p, c, "content-length") &&
	       !ascii_eq_lit_nocase(p, c, "transfer-encoding");
}

void proxy_http_stream_init(struct proxy_http_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->state = PROXY_HS_AT_HEAD;
}

static enum proxy_hs_status at_head(const uint8_t *buf, size_t len, size_t *used,
				    struct proxy_http_head *head)
{
	struct proxy_http_head scratch;

	if (!head)
		head = &scratch;
	/* RFC 9112 §2.2: empty lines before a request-line are ignored by a
	 * server (some clients send one after a body); they pass as CRLF only. */
	if (buf[0] == '\r') {
		enum proxy_hs_status st = crlf(buf, len);
		if (st == PROXY_HS_PASS)
			*used = 2;
		return st;
	}
	enum proxy_http_status st = proxy_http_parse_head(buf, len, head);
	switch (st) {
	case PROXY_HTTP_NEED_MORE: return PROXY_HS_NEED_MORE;
	case PROXY_HTTP_TOO_BIG: return PROXY_HS_TOO_BIG;
	case PROXY_HTTP_MALFORMED:
	case PROXY_HTTP_NOT_HTTP: return PROXY_HS_MALFORMED;
	case PROXY_HTTP_OK:
	case PROXY_HTTP_HOST_MISSING:
	case PROXY_HTTP_HOST_DUPLICATE: break;
	}
	/* RFC 9112 §6.3: a Transfer-Encoding whose final coding is not chunked
	 * leaves a request's length unknown; the server MUST answer 400 and
	 * close.  chunked twice is §6.1's "MUST NOT apply chunked more than
	 * once".  Both: refused here, so porta's framing is the server's. */
	if ((head->flags & PROXY_HTTP_TRANSFER_ENCODING) && !(head->flags & PROXY_HTTP_TE_CHUNKED_LAST))
		return PROXY_HS_MALFORMED;
	if (st == PROXY_HTTP_HOST_MISSING)
		return PROXY_HS_NO_HOST;
	if (st == PROXY_HTTP_HOST_DUPLICATE)
		return PROXY_HS_DUPLICATE_HOST;
	*used = head->head_len;
	return PROXY_HS_HEAD;
}

enum proxy_hs_status proxy_http_stream_feed(struct proxy_http_stream *s, const uint8_t *buf,
					    size_t len, size_t *used,
					    struct proxy_http_head *head)
{
	enum proxy_hs_status st;
	size_t eol;
	uint64_t size;

	*used = 0;
	if (len == 0)
		return PROXY_HS_NEED_MORE;
	switch (s->state) {
	case PROXY_HS_AT_HEAD:
		return at_head(buf, len, used, head);
	case PROXY_HS_OPAQUE:
		*used = len;
		return PROXY_HS_PASS;
	case PROXY_HS_BODY:
	case PROXY_HS_CHUNK_DATA:
		*used = min_size(len, s->remaining);
		proxy_http_stream_skip(s, *used);
		return PROXY_HS_PASS;
	case PROXY_HS_CHUNK_CRLF:
		st = crlf(buf, len);
		if (st != PROXY_HS_PASS)
			return st;
		s->state = PROXY_HS_CHUNK_SIZE;
		*used = 2;
		return PROXY_HS_PASS;
	case PROXY_HS_CHUNK_SIZE:
		st = find_line(buf, len, PROXY_HS_CHUNK_LINE_MAX, &eol);
		if (st != PROXY_HS_PASS)
			return st;
		if (!parse_chunk_line(buf, eol - 1, &size))
			return PROXY_HS_MALFORMED;
		if (size == 0) {
			s->state = PROXY_HS_TRAILERS;
			s->trailer_bytes = 0;
		} else {
			s->state = PROXY_HS_CHUNK_DATA;
			s->remaining = size;
		}
		*used = eol + 1;
		return PROXY_HS_PASS;
	case PROXY_HS_TRAILERS:
		st = find_line(buf, len, PROXY_HS_TRAILERS_MAX - s->trailer_bytes, &eol);
		if (st != PROXY_HS_PASS)
			return st;
		if (eol == 1) {
			s->state = PROXY_HS_AT_HEAD; /* the empty line: the message ends */
		} else if (!trailer_line_ok(buf, eol - 1)) {
			return PROXY_HS_MALFORMED;
		}
		s->trailer_bytes += eol + 1;
		*used = eol + 1;
		return PROXY_HS_PASS;
	}
	return PROXY_HS_MALFORMED;
}

void proxy_http_stream_accept(struct proxy_http_stream *s, const struct proxy_http_head *head)
{
	s->requests++;
	/* RFC 9110 §7.8 (Upgrade) and §9.3.6 (CONNECT): once the server agrees,
	 * the bytes are another protocol's, which this framer cannot read */
	if ((head->flags & PROXY_HTTP_UPGRADE) ||
	    (head->method.n == 7 && memcmp(head->method.p, "CONNECT", 7) == 0)) {
		s->state = PROXY_HS_OPAQUE;
	} else if (head->flags & PROXY_HTTP_TE_CHUNKED_LAST) {
		s->state = PROXY_HS_CHUNK_SIZE;
	} else if ((head->flags & PROXY_HTTP_CONTENT_LENGTH) && head->content_length > 0) {
		s->state = PROXY_HS_BODY;
		s->remaining = head->content_length;
	} else {
		s->state = PROXY_HS_AT_HEAD; /* RFC 9112 §6.3: no framing, no body */
	}
}

uint64_t proxy_http_stream_unseen(const struct proxy_http_stream *s)
{
	switch (s->state) {
	case PROXY_HS_OPAQUE:
		return UINT64_MAX;
	case PROXY_HS_BODY:
	case PROXY_HS_CHUNK_DATA:
		return s->remaining;
	default:
		return 0;
	}
}

void proxy_http_stream_skip(struct proxy_http_stream *s, uint64_t n)
{
	if (s->state != PROXY_HS_BODY && s->state != PROXY_HS_CHUNK_DATA)
		return; /* opaque stays opaque; elsewhere nothing passes unseen */
	if (n > s->remaining)
		n = s->remaining;
	s->remaining -= n;
	if (s->remaining == 0)
		s->state = s->state == PROXY_HS_BODY ? PROXY_HS_AT_HEAD : PROXY_HS_CHUNK_CRLF;
}
