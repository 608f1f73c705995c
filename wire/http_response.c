/* wire/http_response.c: an HTTP/1.x response stream, framed
 * (http_response.h).  The status line is read whole, then the field lines
 * through http_syntax.c, one complete line at a time, so a prefix of a good
 * head is only ever NEED_MORE. */
#include "wire/http_response.h"

#include <string.h>

#include "common/ascii.h"
#include "wire/cursor.h"
#include "wire/http_syntax.h"

/* "HTTP/1.x SP 3DIGIT [SP reason-phrase]" (RFC 9112 §4), the line without
 * its CRLF.  reason-phrase = *( HTAB / SP / VCHAR / obs-text ); RFC 9112
 * says a client SHOULD ignore it, but a control byte in it is a line porta
 * would pass on, so it is checked as a field value is.  A status line
 * ending right after the code (no SP) is accepted: §4 makes the reason
 * optional and servers differ on the SP before an empty one. */
static bool parse_status_line(const uint8_t *p, size_t n, struct proxy_http_response *r)
{
	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1') || p[8] != ' ')
		return false;
	r->version_minor = p[7] - '0';
	r->status = 0;
	for (size_t k = 9; k < 12; k++) {
		if (p[k] < '0' || p[k] > '9')
			return false;
		r->status = r->status * 10 + (unsigned)(p[k] - '0');
	}
	if (r->status < 100)
		return false; /* §15: the first digit is the class, 1..5 (higher ones are read as x00 by clients) */
	r->reason.p = p + n;
	r->reason.n = 0;
	if (n == 12)
		return true;
	if (p[12] != ' ')
		return false; /* "200OK", a fourth digit */
	for (size_t k = 13; k < n; k++) {
		if ((p[k] < 0x20 && p[k] != '\t') || p[k] == 0x7f)
			return false;
	}
	r->reason.p = p + 13;
	r->reason.n = n - 13;
	return true;
}

enum proxy_http_status proxy_http_parse_response(const uint8_t *buf, size_t len,
						 struct proxy_http_response *out)
{
	struct wire_cursor c =
		wire_stream(buf, len < PROXY_HTTP_HEAD_MAX ? len : PROXY_HTTP_HEAD_MAX);
	struct wire_span line, name, value;
	enum proxy_http_status st;
	unsigned te_chunked = 0;
	bool te_last_chunked = false, te_any = false;

	memset(out, 0, sizeof(*out));
	/* Fail early on what cannot become a status line, as the request
	 * parser fails early on what cannot be a method. */
	size_t early = len < 7 ? len : 7;
	if (memcmp(buf, "HTTP/1.", early) != 0)
		return PROXY_HTTP_MALFORMED;
	st = proxy_http_next_line(&c, len, &line);
	if (st != PROXY_HTTP_OK)
		return st;
	if (!parse_status_line(line.p, line.n, out))
		return PROXY_HTTP_MALFORMED;
	for (;;) {
		st = proxy_http_next_line(&c, len, &line);
		if (st != PROXY_HTTP_OK)
			return st;
		if (line.n == 0) {
			out->head_len = c.pos;
			break;
		}
		if (!proxy_http_field(line, &name, &value))
			return PROXY_HTTP_MALFORMED;
		out->header_count++;
		if (ascii_eq_lit_nocase(name.p, name.n, "content-length")) {
			if (out->flags & PROXY_HTTP_CONTENT_LENGTH)
				return PROXY_HTTP_MALFORMED; /* two, even equal: §6.3 rule 5 lets a recipient refuse */
			out->flags |= PROXY_HTTP_CONTENT_LENGTH;
			if (!proxy_http_content_length(value.p, value.n, &out->content_length))
				return PROXY_HTTP_MALFORMED;
		} else if (ascii_eq_lit_nocase(name.p, name.n, "transfer-encoding")) {
			out->flags |= PROXY_HTTP_TRANSFER_ENCODING;
			proxy_http_te_list(value.p, value.n, &te_chunked, &te_last_chunked, &te_any);
		}
	}
	/* §6.1: Transfer-Encoding beside Content-Length "ought to be handled
	 * as an error"; a client porta serves might take the other length. */
	if ((out->flags & PROXY_HTTP_TRANSFER_ENCODING) &&
	    ((out->flags & PROXY_HTTP_CONTENT_LENGTH) || out->version_minor == 0))
		return PROXY_HTTP_MALFORMED;
	if (te_any && te_last_chunked && te_chunked == 1)
		out->flags |= PROXY_HTTP_TE_CHUNKED_LAST;
	else if ((out->flags & PROXY_HTTP_TRANSFER_ENCODING) && te_chunked > 0)
		return PROXY_HTTP_MALFORMED; /* chunked twice, or not last: §6.1 */
	return PROXY_HTTP_OK;
}

void proxy_http_responses_init(struct proxy_http_responses *s)
{
	memset(s, 0, sizeof(*s));
	s->state = PROXY_HR_AT_HEAD;
	proxy_http_stream_init(&s->body);
}

bool proxy_http_responses_expect(struct proxy_http_responses *s, enum proxy_hr_request r)
{
	if (s->count == PROXY_HR_PENDING_MAX)
		return false;
	s->pending[(s->first + s->count) % PROXY_HR_PENDING_MAX] = (uint8_t)r;
	s->count++;
	return true;
}

static enum proxy_hr_status from_body(enum proxy_hs_status st)
{
	switch (st) {
	case PROXY_HS_PASS: return PROXY_HR_PASS;
	case PROXY_HS_NEED_MORE: return PROXY_HR_NEED_MORE;
	case PROXY_HS_TOO_BIG: return PROXY_HR_TOO_BIG;
	default: return PROXY_HR_MALFORMED; /* no head can come inside a body */
	}
}

enum proxy_hr_status proxy_http_responses_feed(struct proxy_http_responses *s, const uint8_t *buf,
					       size_t len, size_t *used,
					       struct proxy_http_response *head)
{
	struct proxy_http_response scratch;
	struct proxy_http_head unused;
	enum proxy_hs_status bst;

	*used = 0;
	if (len == 0)
		return PROXY_HR_NEED_MORE;
	if (!head)
		head = &scratch;
	switch (s->state) {
	case PROXY_HR_UNTIL_CLOSE:
	case PROXY_HR_OPAQUE:
		*used = len;
		return PROXY_HR_PASS;
	case PROXY_HR_BODY:
		bst = proxy_http_stream_feed(&s->body, buf, len, used, &unused);
		if (bst == PROXY_HS_PASS && s->body.state == PROXY_HS_AT_HEAD)
			s->state = PROXY_HR_AT_HEAD;
		return from_body(bst);
	case PROXY_HR_AT_HEAD:
		break;
	}
	switch (proxy_http_parse_response(buf, len, head)) {
	case PROXY_HTTP_OK:
		*used = head->head_len;
		return PROXY_HR_HEAD;
	case PROXY_HTTP_NEED_MORE: return PROXY_HR_NEED_MORE;
	case PROXY_HTTP_TOO_BIG: return PROXY_HR_TOO_BIG;
	default: return PROXY_HR_MALFORMED;
	}
}

void proxy_http_responses_accept(struct proxy_http_responses *s,
				 const struct proxy_http_response *head)
{
	enum proxy_hr_request req = PROXY_HR_REQUEST;
	unsigned st = head->status;

	/* §15.2: an interim response (1xx but 101) answers nothing yet and has
	 * no body; the final response to the same request follows. */
	if (st >= 100 && st < 200 && st != 101) {
		s->state = PROXY_HR_AT_HEAD;
		return;
	}
	if (s->count > 0) {
		req = (enum proxy_hr_request)s->pending[s->first];
		s->first = (s->first + 1) % PROXY_HR_PENDING_MAX;
		s->count--;
	}
	s->responses++;
	/* §6.3 rules 1 and 2, in order */
	if (st == 101 || (req == PROXY_HR_REQUEST_CONNECT && st >= 200 && st < 300)) {
		s->state = PROXY_HR_OPAQUE;
		return;
	}
	if (req == PROXY_HR_REQUEST_HEAD || st == 204 || st == 304) {
		s->state = PROXY_HR_AT_HEAD;
		return;
	}
	if (head->flags & PROXY_HTTP_TRANSFER_ENCODING) {
		if (!(head->flags & PROXY_HTTP_TE_CHUNKED_LAST)) {
			s->state = PROXY_HR_UNTIL_CLOSE; /* rule 4: a coding other than chunked last */
			return;
		}
	} else if (!(head->flags & PROXY_HTTP_CONTENT_LENGTH)) {
		s->state = PROXY_HR_UNTIL_CLOSE; /* rule 8 */
		return;
	}
	/* the request stream's body states frame the body: a head carrying
	 * only the framing fields puts them there */
	struct proxy_http_head framing;
	memset(&framing, 0, sizeof(framing));
	framing.flags = head->flags & (PROXY_HTTP_CONTENT_LENGTH | PROXY_HTTP_TRANSFER_ENCODING |
				       PROXY_HTTP_TE_CHUNKED_LAST);
	framing.content_length = head->content_length;
	proxy_http_stream_init(&s->body);
	proxy_http_stream_accept(&s->body, &framing);
	s->state = s->body.state == PROXY_HS_AT_HEAD ? PROXY_HR_AT_HEAD : PROXY_HR_BODY;
}
