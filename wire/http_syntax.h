/* wire/http_syntax.h: the pieces of RFC 9110/9112 syntax that request and
 * response heads share: tokens, head lines, field lines, Content-Length
 * and Transfer-Encoding values.  Read as strictly as sniff_http.c explains
 * (bare LF, obs-fold, blanks before the colon: refused), so that a request
 * head (sniff_http.c), a request stream (http_stream.c) and a response
 * stream (http_response.c) can never be read two ways by porta itself.
 * Pure: no allocation, no state, any thread.
 */
#ifndef PORTA_WIRE_HTTP_SYNTAX_H
#define PORTA_WIRE_HTTP_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/cursor.h"
#include "wire/sniff.h"

/* RFC 9110 §5.6.2 tchar. */
bool proxy_http_tchar(uint8_t c);

/* The next line of a head at c's position, without its CRLF; c moves past
 * the LF.  No LF among the bytes present yet: PROXY_HTTP_TOO_BIG once the
 * head has reached PROXY_HTTP_HEAD_MAX (len is what the caller has; c holds
 * at most the cap), else PROXY_HTTP_NEED_MORE.  A LF without a CR before it
 * is a bare LF: PROXY_HTTP_MALFORMED. */
enum proxy_http_status proxy_http_next_line(struct wire_cursor *c, size_t len,
					    struct wire_span *line);

/* A field line "name:OWS value OWS" (RFC 9112 §5), its CRLF removed: false
 * for obs-fold or a blank before the first field (a line starting with a
 * blank), a name that is empty or not a token, a blank before the colon, a
 * control byte other than HTAB in the value.  *value has its surrounding
 * blanks removed. */
bool proxy_http_field(struct wire_span line, struct wire_span *name, struct wire_span *value);

/* Content-Length = 1*DIGIT (RFC 9110 §8.6), at most 18 digits so it fits:
 * no sign, no blank, no list ("5, 5"). */
bool proxy_http_content_length(const uint8_t *p, size_t n, uint64_t *v);

/* One Transfer-Encoding field value, a list of transfer-codings, read into
 * the totals of all the fields seen so far: *chunked_total counts the
 * chunked members, *last_chunked says whether the last member seen is
 * chunked, *any whether any member was.  Empty list members are allowed
 * (RFC 9110 §5.6.1); parameters stay with their coding. */
void proxy_http_te_list(const uint8_t *p, size_t n, unsigned *chunked_total, bool *last_chunked,
			bool *any);

#endif /* PORTA_WIRE_HTTP_SYNTAX_H */
