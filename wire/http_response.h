/* wire/http_response.h: the server's side of an HTTP/1.x connection that
 * porta reads in user space, framed response by response, so that every
 * response head is seen.
 *
 * ARCHITECTURE: on a connection porta terminates (TLS it decrypts, or plain
 * HTTP it rewrites), every response head must pass porta before the client
 * sees it: a header carrying a secret's real value back is rewritten to its
 * placeholder, on the first response and on every later one of a
 * kept-alive or pipelined connection.  Finding the next head means
 * framing each body exactly as the client will, which for a response depends
 * on the request it answers (RFC 9112 §6.3): the answer to HEAD has no body
 * whatever its Content-Length says, a 2xx to CONNECT and a 101 turn the
 * connection into another protocol, an interim 1xx is followed by the final
 * response to the same request.  So the framer keeps the queue of requests
 * still unanswered, in order: the caller adds each request it forwards
 * (proxy_http_responses_expect) and the framer takes one off per final
 * response.
 *
 * Pure (docs/design.md, Modules): no allocation, no logging, no system call;
 * the state is a plain value the caller owns.  Incremental by position as
 * http_stream.h is: the caller hands the bytes from the current position
 * on, calls again with the same bytes and more after PROXY_HR_NEED_MORE,
 * and forwards exactly what the framer let pass (a head only after
 * proxy_http_responses_accept).  Bodies are framed by http_stream.c's body
 * states (Content-Length, chunked with extensions and trailers), so
 * requests and responses share one chunked reader.
 *
 * Refused (the caller answers the client 502 and closes): a status line that
 * is not "HTTP/1.0|1.1 SP 3DIGIT [SP reason]" (RFC 9112 §4), the head faults
 * proxy_http_parse_head refuses (bare LF, obs-fold, blanks before a colon,
 * control bytes, two Content-Length fields, Content-Length beside
 * Transfer-Encoding, Transfer-Encoding in HTTP/1.0), a head past
 * PROXY_HTTP_HEAD_MAX, a Transfer-Encoding naming chunked twice or not
 * last (§6.1), and the chunked faults of http_stream.h.  A
 * Transfer-Encoding that does not name chunked, or a response with
 * neither length field, is read until the server closes (§6.3, rules 4 and
 * 8): the framer then passes every byte, as it does after a 101 or a 2xx to
 * CONNECT (opaque: no later head is read).
 */
#ifndef PORTA_WIRE_HTTP_RESPONSE_H
#define PORTA_WIRE_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/http_stream.h"
#include "wire/sniff.h"

/* A response head, parsed.  flags: PROXY_HTTP_CONTENT_LENGTH,
 * PROXY_HTTP_TRANSFER_ENCODING and PROXY_HTTP_TE_CHUNKED_LAST (sniff.h). */
struct proxy_http_response {
	unsigned status;          /* 100..999 as sent (3DIGIT) */
	int version_minor;        /* 0 for HTTP/1.0, 1 for HTTP/1.1 */
	struct proxy_span reason; /* the reason phrase, possibly empty; points into the head */
	size_t header_count;      /* header field lines */
	uint64_t content_length;  /* when PROXY_HTTP_CONTENT_LENGTH */
	unsigned flags;
	size_t head_len;          /* bytes up to and including the empty line */
};

/* Parses the response head at the start of buf[0..len): PROXY_HTTP_OK with
 * *out filled, PROXY_HTTP_NEED_MORE for every strict prefix of a good head,
 * PROXY_HTTP_MALFORMED or PROXY_HTTP_TOO_BIG (see above).  Pure. */
enum proxy_http_status proxy_http_parse_response(const uint8_t *buf, size_t len,
						 struct proxy_http_response *out);

/* What a forwarded request means for the framing of its response. */
enum proxy_hr_request {
	PROXY_HR_REQUEST,         /* any method but these two */
	PROXY_HR_REQUEST_HEAD,    /* HEAD: the response has no body (§6.3 rule 1) */
	PROXY_HR_REQUEST_CONNECT, /* CONNECT: a 2xx makes the connection a tunnel */
};

/* Requests forwarded and not yet answered that one connection may have;
 * past it the caller stops reading the client until responses come. */
#define PROXY_HR_PENDING_MAX 32

enum proxy_hr_state {
	PROXY_HR_AT_HEAD,     /* a response head comes next */
	PROXY_HR_BODY,        /* a body, framed by `body` */
	PROXY_HR_UNTIL_CLOSE, /* a body that ends when the server closes */
	PROXY_HR_OPAQUE,      /* after a 101, or a 2xx to CONNECT */
};

enum proxy_hr_status {
	PROXY_HR_PASS,      /* *used (> 0) bytes may go on; call again with the rest */
	PROXY_HR_HEAD,      /* a complete head at buf[0..*used): rewrite, then accept */
	PROXY_HR_NEED_MORE, /* nothing more can pass before more bytes arrive */
	PROXY_HR_MALFORMED, /* framing porta refuses (see above) */
	PROXY_HR_TOO_BIG,   /* a head, chunk line or trailer section past its cap */
};

struct proxy_http_responses {
	enum proxy_hr_state state;
	struct proxy_http_stream body;              /* PROXY_HR_BODY: the body's framing */
	uint8_t pending[PROXY_HR_PENDING_MAX];      /* enum proxy_hr_request, oldest first */
	unsigned first, count;                      /* ring of pending[] */
	uint64_t responses;                         /* final responses accepted */
};

/* Starts s at the beginning of a server's stream. */
void proxy_http_responses_init(struct proxy_http_responses *s);

/* Records a request forwarded on the connection, after those already
 * recorded.  False (nothing recorded) when PROXY_HR_PENDING_MAX requests
 * are already waiting: the caller must not forward it yet. */
bool proxy_http_responses_expect(struct proxy_http_responses *s, enum proxy_hr_request r);

/* Reads buf[0..len), the server's bytes from s's position on.  PROXY_HR_PASS:
 * the first *used bytes may go to the client and s moved past them.
 * PROXY_HR_HEAD: *head is filled and *used is head->head_len; s has not moved
 * until proxy_http_responses_accept().  Other answers: *used is 0 and s has
 * not moved; after MALFORMED and TOO_BIG the stream cannot go on.  len 0 is
 * NEED_MORE. */
enum proxy_hr_status proxy_http_responses_feed(struct proxy_http_responses *s, const uint8_t *buf,
					       size_t len, size_t *used,
					       struct proxy_http_response *head);

/* Moves s past a head that PROXY_HR_HEAD returned: its body comes next, by
 * the framing the head and the request it answers declare.  A final
 * response (not 1xx, or 101) takes the oldest pending request off the
 * queue; a response when none is pending (a server's 408 before closing)
 * is framed as the answer to an ordinary request. */
void proxy_http_responses_accept(struct proxy_http_responses *s,
				 const struct proxy_http_response *head);

#endif /* PORTA_WIRE_HTTP_RESPONSE_H */
