/* wire/http_stream.h: the client's side of a plain-HTTP/1.x connection,
 * framed request by request, so that every request's Host is seen.
 *
 * ARCHITECTURE: a connection decided on its first request's Host would
 * otherwise carry every later request unread: a second request on the same
 * kept-alive connection could name another host the allowed server's
 * address serves (escape corpus row 47, row 31 in plain HTTP).  The relay
 * (relay.h, its gate) runs the client->server bytes through this framer:
 * request heads (proxy_http_parse_head), then each body by Content-Length
 * or chunked Transfer-Encoding (RFC 9112 §6, §7.1: chunk sizes, extensions,
 * trailers), and stops on every new head for a decision on its Host.
 *
 * Pure (docs/design.md, Modules): no allocation, no logging, no system call; the
 * state is a plain value the caller owns.  Incremental by position: the
 * caller hands the bytes from the current position on (those it has not yet
 * let pass), calls again with the same bytes and more after
 * PROXY_HS_NEED_MORE, and forwards exactly what the framer let pass.  Every
 * prefix of an acceptable stream lets pass a prefix of what the whole lets
 * pass and never gives another answer than PASS, HEAD or NEED_MORE.
 *
 * Refused, as RFC 9112 says a server must reject or as two parsers could
 * frame two ways: everything proxy_http_parse_head refuses (bare CR or LF,
 * obs-fold, two Content-Length fields, Content-Length with
 * Transfer-Encoding, ...), a Transfer-Encoding whose last coding is not
 * chunked or that names chunked twice (§6.1), a chunk size that is not
 * 1*HEXDIG or does not fit in 60 bits, a chunk extension that is not
 * ";" token ["=" token / quoted-string], chunk data not followed by CRLF, a
 * trailer field that a server could take for framing or routing (Host,
 * Content-Length, Transfer-Encoding) or that is not a valid field line, and
 * anything between requests other than empty lines (CRLF, §2.2).
 *
 * After a request carrying Upgrade (websocket, h2c) or a CONNECT, the stream
 * is opaque: what follows may be another protocol once the server agrees
 * (101 or 2xx), and the server's answer is not read, so every later byte
 * passes unread, as after a TLS ClientHello.  A program that sends Upgrade
 * to a server that ignores it can therefore go on unchecked on that
 * connection, to that server's address only.
 */
#ifndef PORTA_WIRE_HTTP_STREAM_H
#define PORTA_WIRE_HTTP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "wire/sniff.h"

/* Longest chunk-size line (size, extensions, CRLF) and longest trailer
 * section accepted; beyond them PROXY_HS_TOO_BIG. */
#define PROXY_HS_CHUNK_LINE_MAX 4096
#define PROXY_HS_TRAILERS_MAX PROXY_HTTP_HEAD_MAX

enum proxy_hs_state {
	PROXY_HS_AT_HEAD,     /* a request head (or empty lines) comes next */
	PROXY_HS_BODY,        /* `remaining` bytes of a Content-Length body */
	PROXY_HS_CHUNK_SIZE,  /* a chunk-size line */
	PROXY_HS_CHUNK_DATA,  /* `remaining` bytes of chunk data */
	PROXY_HS_CHUNK_CRLF,  /* the CRLF after chunk data */
	PROXY_HS_TRAILERS,    /* trailer field lines, then CRLF */
	PROXY_HS_OPAQUE,      /* after Upgrade or CONNECT: everything passes */
};

enum proxy_hs_status {
	PROXY_HS_PASS,           /* *used (> 0) bytes may go on; call again with the rest */
	PROXY_HS_HEAD,           /* a complete head at buf[0..*used): decide, then accept */
	PROXY_HS_NEED_MORE,      /* nothing more can pass before more bytes arrive */
	PROXY_HS_MALFORMED,      /* framing porta refuses (see above) */
	PROXY_HS_TOO_BIG,        /* a head, chunk line or trailer section past its cap */
	PROXY_HS_NO_HOST,        /* a well-formed head without Host */
	PROXY_HS_DUPLICATE_HOST, /* a well-formed head with Host twice or more */
};

struct proxy_http_stream {
	enum proxy_hs_state state;
	uint64_t remaining;     /* BODY, CHUNK_DATA */
	size_t trailer_bytes;   /* TRAILERS: bytes of the section so far */
	uint64_t requests;      /* heads accepted */
};

/* Starts s at the beginning of a client's stream (a request head first). */
void proxy_http_stream_init(struct proxy_http_stream *s);

/* Reads buf[0..len), the bytes from s's position on.  PROXY_HS_PASS: the
 * first *used bytes may be forwarded and s moved past them.  PROXY_HS_HEAD:
 * *head is filled (spans into buf) and *used is head->head_len; s has not
 * moved: the caller decides on head->host and either refuses the connection
 * or calls proxy_http_stream_accept() and forwards the *used bytes.  Other
 * answers: *used is 0 and s has not moved; after MALFORMED, TOO_BIG,
 * NO_HOST and DUPLICATE_HOST the stream cannot go on.  head may be NULL only
 * when the caller knows no head can come (never, in practice: pass one).
 * len 0 is NEED_MORE (OPAQUE: PASS needs a byte too). */
enum proxy_hs_status proxy_http_stream_feed(struct proxy_http_stream *s, const uint8_t *buf,
					    size_t len, size_t *used,
					    struct proxy_http_head *head);

/* Moves s past a head that PROXY_HS_HEAD returned (or that the caller parsed
 * itself from the same position): its body, by the framing the head
 * declares, comes next; after Upgrade or CONNECT the stream is opaque. */
void proxy_http_stream_accept(struct proxy_http_stream *s, const struct proxy_http_head *head);

/* How many of the next bytes from s's position the framer would let pass
 * without looking at them: the rest of a Content-Length body or of a
 * chunk's data, UINT64_MAX once the stream is opaque, 0 where it must read
 * (a head, a chunk-size line, a CRLF, trailers).  A caller that forwards
 * them unread, and calls proxy_http_stream_skip() with their number, frames
 * the stream exactly as feeding every byte would (the relay's gate, so that
 * a large body is not copied out of the socket to be passed unread). */
uint64_t proxy_http_stream_unseen(const struct proxy_http_stream *s);

/* Moves s past n of those bytes, n <= proxy_http_stream_unseen(s) (more is
 * clamped to it). */
void proxy_http_stream_skip(struct proxy_http_stream *s, uint64_t n);

#endif /* PORTA_WIRE_HTTP_STREAM_H */
