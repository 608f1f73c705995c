/* wire/socks5.h: the SOCKS5 messages of porta's proxy front end
 * (RFC 1928): the client's greeting and request, parsed; the method
 * selection and the reply, built.
 *
 * Pure like sniff.h: over the bytes received so far, no allocation, no
 * logging, no system call, any thread.  porta offers NO AUTHENTICATION only
 * (the listener is on loopback inside the sandbox) and CONNECT only.
 * Statuses that refuse a request map to the reply code to send with
 * proxy_socks5_reply_code(); the connection is closed after that reply.
 */
#ifndef PORTA_WIRE_SOCKS5_H
#define PORTA_WIRE_SOCKS5_H

#include <stddef.h>
#include <stdint.h>

#include "wire/sniff.h"

#define PROXY_SOCKS5_VERSION 5
#define PROXY_SOCKS5_METHOD_NONE 0x00         /* NO AUTHENTICATION REQUIRED */
#define PROXY_SOCKS5_METHOD_UNACCEPTABLE 0xff /* NO ACCEPTABLE METHODS */

#define PROXY_SOCKS5_CMD_CONNECT 1
#define PROXY_SOCKS5_CMD_BIND 2
#define PROXY_SOCKS5_CMD_UDP_ASSOCIATE 3

#define PROXY_SOCKS5_ATYP_IPV4 1
#define PROXY_SOCKS5_ATYP_DOMAIN 3
#define PROXY_SOCKS5_ATYP_IPV6 4

/* RFC 1928 §6 REP values. */
#define PROXY_SOCKS5_REP_SUCCEEDED 0x00
#define PROXY_SOCKS5_REP_GENERAL_FAILURE 0x01
#define PROXY_SOCKS5_REP_NOT_ALLOWED 0x02 /* connection not allowed by ruleset */
#define PROXY_SOCKS5_REP_NET_UNREACHABLE 0x03
#define PROXY_SOCKS5_REP_HOST_UNREACHABLE 0x04
#define PROXY_SOCKS5_REP_CONN_REFUSED 0x05
#define PROXY_SOCKS5_REP_TTL_EXPIRED 0x06
#define PROXY_SOCKS5_REP_CMD_UNSUPPORTED 0x07
#define PROXY_SOCKS5_REP_ATYP_UNSUPPORTED 0x08

/* The longest reply: VER REP RSV ATYP, a 255-byte domain with its length
 * byte, and the port. */
#define PROXY_SOCKS5_REPLY_MAX (4 + 1 + 255 + 2)

enum proxy_socks5_status {
	PROXY_SOCKS5_OK,               /* greeting: NO AUTH chosen; request: a CONNECT to parse */
	PROXY_SOCKS5_NEED_MORE,        /* a valid start; call again with more bytes */
	PROXY_SOCKS5_NOT_SOCKS5,       /* VER is not 5 (SOCKS4, or not SOCKS): close, no reply */
	PROXY_SOCKS5_MALFORMED,        /* NMETHODS 0, request VER not 5, RSV not 0, port 0 */
	PROXY_SOCKS5_NO_METHOD,        /* greeting without NO AUTH: send method 0xff, close */
	PROXY_SOCKS5_CMD_UNSUPPORTED,  /* BIND, UDP ASSOCIATE or unknown CMD: REP 0x07 */
	PROXY_SOCKS5_ATYP_UNSUPPORTED, /* ATYP other than 1, 3, 4: REP 0x08 */
	PROXY_SOCKS5_NAME_REFUSED,     /* domain with NUL, CR or LF (corpus row 36): REP 0x02 */
};

/* An address as SOCKS5 carries it. */
struct proxy_socks5_addr {
	uint8_t atyp;           /* PROXY_SOCKS5_ATYP_* */
	uint8_t ip[16];         /* IPv4 in ip[0..4), IPv6 in ip[0..16), network order */
	struct proxy_span name; /* ATYP_DOMAIN: 1..255 bytes, never NUL, CR or LF; not canonical */
	uint16_t port;          /* host order */
};

struct proxy_socks5_request {
	uint8_t cmd;                  /* PROXY_SOCKS5_CMD_CONNECT on OK */
	struct proxy_socks5_addr dst; /* DST.ADDR and DST.PORT */
	size_t len;                   /* bytes of the request: what follows is payload */
};

/* Parses the greeting "VER NMETHODS METHODS" at the start of buf[0..len).
 * On PROXY_SOCKS5_OK and PROXY_SOCKS5_NO_METHOD, *greeting_len is its length
 * (a client may pipeline its request behind it); otherwise it is untouched.
 * OK means: answer proxy_socks5_build_method(.., PROXY_SOCKS5_METHOD_NONE). */
enum proxy_socks5_status proxy_socks5_parse_greeting(const uint8_t *buf, size_t len,
						     size_t *greeting_len);

/* Parses the request "VER CMD RSV ATYP DST.ADDR DST.PORT" at the start of
 * buf[0..len) (the bytes after the greeting).  Refusals are answered as
 * soon as the byte that decides them arrives, in wire order: VER, CMD, RSV,
 * ATYP, the name, the port.  On OK, out is filled and out->dst.name points
 * into buf (not retained); on other answers out is unspecified.  The name
 * is checked only for NUL, CR and LF: canonicalise it with
 * policy_name_canonical() before any decision. */
enum proxy_socks5_status proxy_socks5_parse_request(const uint8_t *buf, size_t len,
						    struct proxy_socks5_request *out);

/* The REP code to send for a refusing status of proxy_socks5_parse_request
 * (GENERAL_FAILURE for MALFORMED); PROXY_SOCKS5_REP_SUCCEEDED for OK, which
 * is not a reply by itself: the caller decides and dials first. */
uint8_t proxy_socks5_reply_code(enum proxy_socks5_status st);

/* Writes the method selection "VER METHOD" into out[0..cap).  Returns the
 * bytes written (2), or 0 when cap is too small. */
size_t proxy_socks5_build_method(uint8_t *out, size_t cap, uint8_t method);

/* Writes the reply "VER REP RSV ATYP BND.ADDR BND.PORT" into out[0..cap).
 * bnd may be NULL for 0.0.0.0:0 (what a refusal carries).  Returns the bytes
 * written, or 0 when cap is too small or bnd is not a valid address (unknown
 * ATYP, a domain of 0 or more than 255 bytes).  PROXY_SOCKS5_REPLY_MAX bytes
 * are always enough. */
size_t proxy_socks5_build_reply(uint8_t *out, size_t cap, uint8_t rep,
				const struct proxy_socks5_addr *bnd);

#endif /* PORTA_WIRE_SOCKS5_H */
