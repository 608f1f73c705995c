/* wire/sniff.h: what a connection's first bytes say it wants to reach.
 * A TLS ClientHello's server_name (sniff_tls.c) and an HTTP/1.x request head
 * with its Host header and request target (sniff_http.c).
 *
 * Every function here is pure (docs/design.md, Modules): it reads the bytes
 * received so far, neither allocates nor logs, makes no system call and keeps
 * no state between calls.  The caller peeks without consuming (evbuffer_copyout
 * or recv(MSG_PEEK)), calls again from the start of the stream when more bytes
 * arrive, and decides on the first answer other than *_NEED_MORE.  Every
 * strict prefix of an acceptable input is *_NEED_MORE, never another answer;
 * the caps below bound how much a caller ever has to hold, and the caller's
 * deadline bounds how long.  Any thread may call them.
 */
#ifndef PORTA_WIRE_SNIFF_H
#define PORTA_WIRE_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of bytes inside a buffer the caller owns; never NUL-terminated. */
struct proxy_span {
	const uint8_t *p;
	size_t n;
};

/* ---- TLS ClientHello -------------------------------------------------- */

/* Largest ClientHello handshake message accepted (header included).  Browsers
 * send about 2 KiB with post-quantum key shares; 16 KiB is one full record. */
#define PROXY_TLS_HELLO_MAX 16384
/* Largest run of record bytes (headers included) the hello may take: a hello
 * cut into tiny records costs 5 bytes of header per record, so this is the
 * peek buffer a caller needs.  Past it the answer is SNIFF_TOO_BIG. */
#define PROXY_TLS_WIRE_MAX 32768
/* RFC 6066 §3 HostName is opaque<1..2^16-1>; a DNS name is at most 253
 * bytes (255 with a trailing dot and room to spare), so 255 bounds a name. */
#define PROXY_TLS_SNI_MAX 255

enum proxy_sniff_status {
	SNIFF_OK,        /* a complete, well-formed ClientHello with one host_name */
	SNIFF_NEED_MORE, /* everything so far is a valid start; call again with more */
	SNIFF_NO_SNI,    /* a complete, well-formed ClientHello without server_name */
	SNIFF_MALFORMED, /* TLS, but not a hello porta accepts (see proxy_sniff_tls) */
	SNIFF_TOO_BIG,   /* the hello exceeds PROXY_TLS_HELLO_MAX or PROXY_TLS_WIRE_MAX */
	SNIFF_NOT_TLS,   /* the first record header is not a TLS handshake record */
};

/* Bits of proxy_tls_hello.flags, for the audit record. */
#define PROXY_TLS_EARLY_DATA 0x1u /* early_data (42): 0-RTT data may follow the hello */
#define PROXY_TLS_ALPN 0x2u       /* application_layer_protocol_negotiation (16) */
/* encrypted_client_hello (0xfe0d) present, real or GREASE (Chrome sends it
 * without an ECH config): the SNI is the outer name, the one a server sees. */
#define PROXY_TLS_ECH 0x4u
#define PROXY_TLS_13 0x8u         /* supported_versions (43) offers TLS 1.3 (0x0304) */

struct proxy_tls_hello {
	/* The host_name, NUL-terminated, as sent: not canonical, only checked
	 * for length 1..PROXY_TLS_SNI_MAX and no NUL byte.  Run it through
	 * policy_name_canonical() before any comparison.  Set on SNIFF_OK. */
	char sni[PROXY_TLS_SNI_MAX + 1];
	size_t sni_len;
	unsigned flags;          /* PROXY_TLS_* bits; set on SNIFF_OK and SNIFF_NO_SNI */
	uint16_t legacy_version; /* ClientHello.legacy_version (0x0303 for TLS 1.2 and 1.3) */
	size_t wire_len;         /* bytes of buf up to the hello's last byte (record headers counted) */
};

/* Parses the ClientHello at the start of buf[0..len), the bytes a client has
 * sent so far.  The handshake message is reassembled across TLS records
 * (RFC 8446 §5.1) without copying: every record up to the end of the hello
 * must be a handshake record (type 22) with a 1..2^14 byte fragment.
 *
 * SNIFF_MALFORMED covers: a record of another type, an empty or oversized
 * fragment, a handshake message other than client_hello (1), a length field
 * that overruns its container or leaves bytes over, a session id over 32
 * bytes, an odd or empty cipher_suites, empty compression_methods, the same
 * extension type twice (RFC 8446 §4.2), pre_shared_key not last
 * (§4.2.11), a server_name list other than exactly one host_name entry
 * (RFC 6066 §3, and as OpenSSL reads it), a host_name that is empty, longer
 * than PROXY_TLS_SNI_MAX or carries a NUL, an ill-formed ALPN or
 * supported_versions list, and early_data with a body.
 *
 * out is caller-owned and fully written on SNIFF_OK and SNIFF_NO_SNI
 * (sni[0] == '\0' on NO_SNI); on other answers its contents are unspecified.
 * buf is only read, never retained. */
enum proxy_sniff_status proxy_sniff_tls(const uint8_t *buf, size_t len,
					struct proxy_tls_hello *out);

/* ---- HTTP/1.x request head -------------------------------------------- */

/* Largest request head accepted: request line, header fields and the empty
 * line that ends them.  Past it without that empty line: PROXY_HTTP_TOO_BIG. */
#define PROXY_HTTP_HEAD_MAX 16384
/* A method longer than this (in token bytes before the first SP) is taken as
 * not HTTP: the longest registered method, UPDATEREDIRECTREF, has 17. */
#define PROXY_HTTP_METHOD_MAX 32

/* Named PROXY_HTTP_*, not HTTP_*: libevent's event2/http.h defines HTTP_OK
 * and friends as status-code macros, and the glue includes libevent. */
enum proxy_http_status {
	PROXY_HTTP_OK,             /* a complete, well-formed head with exactly one valid Host */
	PROXY_HTTP_NEED_MORE,      /* a valid start; call again with more bytes */
	PROXY_HTTP_MALFORMED,      /* HTTP, but a head porta refuses (see below) */
	PROXY_HTTP_TOO_BIG,        /* no end of head within PROXY_HTTP_HEAD_MAX bytes */
	PROXY_HTTP_NOT_HTTP,       /* does not start like an HTTP/1.x request */
	PROXY_HTTP_HOST_MISSING,   /* well-formed head, *out filled, but no Host field */
	PROXY_HTTP_HOST_DUPLICATE, /* well-formed head, *out filled, but Host twice or more */
};

enum proxy_http_form {
	PROXY_HTTP_FORM_ORIGIN,    /* "/path?query" */
	PROXY_HTTP_FORM_ABSOLUTE,  /* "http://host[:port]/path?query" (to a proxy) */
	PROXY_HTTP_FORM_AUTHORITY, /* "host:port", CONNECT only */
	PROXY_HTTP_FORM_ASTERISK,  /* "*", OPTIONS only */
};

/* RFC 3986 §3.2 authority without userinfo: host [":" port]. */
struct proxy_authority {
	struct proxy_span host; /* reg-name or IPv4 text; an IPv6 literal without its brackets */
	uint16_t port;          /* 1..65535, or 0 when the authority names none */
	bool ipv6;              /* host was a bracketed IPv6 literal */
};

/* Bits of proxy_http_head.flags. */
#define PROXY_HTTP_CONTENT_LENGTH 0x1u    /* a Content-Length field is present */
#define PROXY_HTTP_TRANSFER_ENCODING 0x2u /* a Transfer-Encoding field is present */
/* The Transfer-Encoding fields, read as one list (RFC 9110 §5.3), end in
 * "chunked" and name it nowhere else (RFC 9112 §6.1, §7). */
#define PROXY_HTTP_TE_CHUNKED_LAST 0x4u
#define PROXY_HTTP_UPGRADE 0x8u           /* an Upgrade field is present (RFC 9110 §7.8) */

struct proxy_http_head {
	struct proxy_span method; /* token, case-sensitive (RFC 9110 §9.1) */
	struct proxy_span target; /* the request-target as sent */
	enum proxy_http_form form;
	int version_minor;        /* 0 for HTTP/1.0, 1 for HTTP/1.1 */
	/* Absolute-form and authority-form: the target's authority; port 0
	 * when an absolute-form target names none (http means 80). */
	struct proxy_authority target_authority;
	/* Absolute-form: path and query after the authority; empty or starting
	 * with '?' when the path is empty (forward "/" before it).  Origin-form:
	 * the target. */
	struct proxy_span target_path;
	struct proxy_span host_value; /* the Host field value, surrounding blanks removed */
	struct proxy_authority host;  /* host_value parsed; set on PROXY_HTTP_OK */
	size_t header_count;          /* header field lines */
	uint64_t content_length;      /* when PROXY_HTTP_CONTENT_LENGTH */
	unsigned flags;               /* PROXY_HTTP_* bits above */
	size_t head_len;              /* bytes up to and including the empty line: the body starts here */
};

/* Parses the request head at the start of buf[0..len).  Strict by design:
 * a sandbox proxy refuses what two parsers could read two ways.
 *
 * Accepted: "METHOD SP request-target SP HTTP/1.0|HTTP/1.1 CRLF", then
 * header lines "name:OWS value OWS CRLF", then CRLF (RFC 9112 §2-§5).
 * PROXY_HTTP_NOT_HTTP: the bytes before the first SP are not 1..32 token
 * characters, or the request line is the HTTP/2 connection preface
 * ("PRI * HTTP/2.0"), so the caller falls back as for any other protocol.
 * PROXY_HTTP_MALFORMED, each a class of its own in the tests: a line ending
 * in a bare LF or a CR without LF (RFC 9112 §2.2 lets recipients accept a
 * bare LF; porta does not); more than one SP between request-line parts; a
 * version other than HTTP/1.0 or 1.1; a target byte outside 0x21..0x7e; a
 * target whose form does not fit its method (authority-form is for CONNECT
 * and needs a port, "*" is for OPTIONS, absolute-form must be http://
 * without userinfo or fragment); obs-fold (a line starting with SP or HTAB,
 * §5.2); whitespace between a field name and its colon (§5.1); a field name
 * that is empty or not a token; a control byte (other than HTAB) in a field
 * value; a Host value that is not host[:port] (see proxy_parse_authority);
 * Content-Length that is not 1*DIGIT, or given twice; Content-Length
 * together with Transfer-Encoding (request smuggling, §6.1 and §11.2);
 * Transfer-Encoding in HTTP/1.0.  On MALFORMED, out->flags tells which of
 * Content-Length and Transfer-Encoding were seen (for the audit); the rest
 * of *out is unspecified.
 *
 * A head that is otherwise well-formed but has no Host, or more than one,
 * gives PROXY_HTTP_HOST_MISSING or PROXY_HTTP_HOST_DUPLICATE with *out filled
 * except out->host: the proxy front end may still act on a CONNECT or
 * absolute-form target; the transparent path refuses.  Never "first wins".
 *
 * out is caller-owned; spans point into buf, which is not retained. */
enum proxy_http_status proxy_http_parse_head(const uint8_t *buf, size_t len,
					     struct proxy_http_head *out);

/* True when an absolute-form or authority-form head's target names the same
 * host and port as its Host header: hosts compared byte for byte ignoring
 * ASCII case (no other canonicalisation: "a.test." differs from "a.test"),
 * an absolute-form http target without port meaning 80, a Host without port
 * meaning the target's port for CONNECT and 80 otherwise.  False for other
 * forms and when Host is absent (never set unless PROXY_HTTP_OK).
 * RFC 9112 §3.2.2: a server given an absolute-form target uses it and
 * ignores Host, so on the transparent path an absolute-form head whose
 * target does not match Host must be decided on the target (or refused),
 * never on Host alone; the policy decides what a mismatch means. */
bool proxy_http_target_matches_host(const struct proxy_http_head *head);

enum proxy_authority_status {
	PROXY_AUTHORITY_OK,
	PROXY_AUTHORITY_MALFORMED,
};

/* Parses an RFC 3986 authority without userinfo: host [":" port], where host
 * is a bracketed IPv6 literal ("[::1]", checked with inet_pton, no zone id,
 * no IPvFuture) or a non-empty run of unreserved, sub-delims and '%' bytes
 * (a reg-name or IPv4 text; policy canonicalises and classifies it).  A port
 * is 1*5 DIGIT without leading zero, sign or blank, in 1..65535: ":0443",
 * ":65979", ":0" and a bare ":" are malformed.  '@' (userinfo, a phishing
 * favourite, RFC 9110 §4.2.4) is malformed.  port_required: 1 when the
 * authority must carry a port (CONNECT).  out is caller-owned; spans point
 * into p. */
enum proxy_authority_status proxy_parse_authority(const uint8_t *p, size_t n, int port_required,
						  struct proxy_authority *out);

#endif /* PORTA_WIRE_SNIFF_H */
