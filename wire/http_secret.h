/* wire/http_secret.h: placeholder secrets in HTTP/1.x heads: the real value
 * swapped in on the way out, swapped back out of responses, and the
 * placeholder found wherever it must not go (`--secret`).
 *
 * ARCHITECTURE: inside the sandbox an environment variable holds a
 * placeholder, a token-shaped string fresh each run; porta holds the real
 * value.  After porta's proxy has terminated TLS (tls/, netproxy/), it calls
 * this module on every request head to a host the secret is bound to
 * (proxy_secret_request), on every response head from it
 * (proxy_secret_response), and on everything bound anywhere else
 * (proxy_secret_find_head, proxy_secret_find: "secret-elsewhere").  The
 * caller chooses the table: the secrets bound to this connection's host
 * for substitution, the others for detection.
 *
 * Substitution (request heads): every exact occurrence of a placeholder is
 * replaced by its real value in the request-target (an absolute-form
 * target's path and query only), in every field value, and inside
 * `Authorization: Basic` and `Proxy-Authorization: Basic` credentials
 * (RFC 7617: base64-decoded, user-id and password replaced, re-encoded with
 * padding; an unchanged credential keeps its bytes).  The method, the
 * version, field names and the blanks around values are never touched, so
 * the head parses again (proxy_http_parse_head) to the same method, Host,
 * framing and number of fields.  Refused, each with its own status, rather
 * than sent in a form a server could read another way:
 *   - a placeholder where it would route or frame the request: the Host
 *     field, an absolute-form or CONNECT target's authority, Content-Length,
 *     Transfer-Encoding, Connection, Upgrade (PROXY_SECRET_IN_ROUTING);
 *   - a real value with a byte not allowed where it lands
 *     (PROXY_SECRET_BAD_VALUE): in the target anything but RFC 3986
 *     unreserved, sub-delims, ":", "@", "/", "?" and "%" (so no blank, CTL,
 *     "#", non-ASCII or `"<>\^`{|}[]`); in a field value anything but VCHAR
 *     with inner SP or HTAB (no CR, LF, NUL or other CTL, no DEL, no
 *     obs-text; a blank at either end the table check refuses); in a
 *     Basic user-id any CTL or ":" (it would move the split), in a password
 *     any CTL (RFC 7617 §2);
 *   - Basic credentials that are not strict base64 of "user-id:password"
 *     (PROXY_SECRET_BAD_BASIC): one reading only, whatever the table;
 *   - a result longer than PROXY_HTTP_HEAD_MAX (PROXY_SECRET_TOO_BIG), which
 *     the parser, and so the next hop's reading, would not take whole;
 *   - a result that still holds a placeholder in a place it rewrote, which
 *     happens only when a real value's edge and the bytes beside it spell
 *     one (PROXY_SECRET_RESIDUE).
 * A placeholder that differs in case or is percent-encoded is not replaced:
 * the server then receives a stand-in that is useless to it.
 *
 * Responses: every occurrence of a real value in the reason phrase and in
 * field values, raw, percent-encoded or inside a base64 run (as Basic
 * credentials carry it), becomes its placeholder (longest value first), so a
 * server that echoes a credential does not hand it to the sandbox.  A real
 * value in one of the routing and framing fields above is IN_ROUTING; a
 * result with a real value still in it (RESIDUE) is refused.  Response heads
 * are parsed by the response framer's parser (wire/http_response.h), the
 * same one that finds them in the server's stream.
 *
 * Detection is a tripwire, deliberately wider than substitution: ASCII case
 * is ignored everywhere (DNS names and SNIs are compared after
 * policy_name_canonical() lowercases them, and a resolver may change the case
 * of a name on the way, so a case-sensitive search would miss the
 * placeholder in exactly the places a name carries it; a random placeholder
 * of 16 or more letters and digits keeps over 80 bits even without case).
 * What is searched, each as its own form:
 *   - the bytes as given;
 *   - with PROXY_SECRET_FIND_PCT, the bytes percent-decoded once
 *     (RFC 3986 §2.1: "%41" is "A"; "%2541" stays "%41");
 *   - with PROXY_SECRET_FIND_NODOT, the bytes without '.', for a placeholder
 *     cut across DNS labels;
 *   - in a head (proxy_secret_find_head): the whole head as given and
 *     percent-decoded, and every Authorization / Proxy-Authorization value
 *     whose scheme is Basic, its credentials decoded leniently as servers
 *     do (bytes outside the base64 alphabet dropped, "-_" read as "+/"),
 *     once whole and once per run between '=' bytes.
 * Not covered: any other encoding a program may apply (base64 elsewhere,
 * hex, double percent-encoding, compression, a body).  A program that
 * wants to carry its placeholder out disguised can; it carries a stand-in
 * that is worth nothing elsewhere.  Bodies are never rewritten.
 *
 * Pure (docs/design.md, Modules): no allocation, no logging, no system call,
 * no state; any thread.  Base64 is mbedtls's (mbedtls/base64.h), which is
 * pure as well.  Output goes to a caller-given buffer of `cap` bytes; a
 * result never exceeds PROXY_HTTP_HEAD_MAX, so a buffer of that size always
 * suffices, and nothing is written at or past cap.  The request and
 * response rewrites use about 25 KiB of stack for a Basic credential.
 */
#ifndef PORTA_WIRE_HTTP_SECRET_H
#define PORTA_WIRE_HTTP_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/http_response.h"
#include "wire/sniff.h"

/* A placeholder is PROXY_SECRET_PLACEHOLDER_MIN..MAX bytes of ASCII letters,
 * digits, '-' and '_': a token in every grammar it may meet (field value,
 * target, DNS label, base64 user-id), never split by any of them. */
#define PROXY_SECRET_PLACEHOLDER_MIN 16
#define PROXY_SECRET_PLACEHOLDER_MAX 128
/* A real value is 1..PROXY_SECRET_VALUE_MAX bytes, neither first nor last a
 * blank (SP, HTAB); any other bytes: where each may land is checked at
 * substitution. */
#define PROXY_SECRET_VALUE_MAX 8192
/* The output buffer that always suffices for proxy_secret_request and
 * proxy_secret_response. */
#define PROXY_SECRET_OUT_MAX PROXY_HTTP_HEAD_MAX

/* One secret.  Both spans point into memory the caller owns and keeps for
 * as long as the table is used; neither is NUL-terminated. */
struct proxy_secret {
	struct proxy_span placeholder;
	struct proxy_span value; /* the real value: never logged, never sent inside */
	const char *name;        /* what messages call it (--secret's NAME), or NULL */
};

enum proxy_secret_table_status {
	PROXY_SECRET_TABLE_OK,
	PROXY_SECRET_TABLE_BAD_PLACEHOLDER, /* length or a byte outside [A-Za-z0-9_-] */
	/* empty, longer than PROXY_SECRET_VALUE_MAX, or SP / HTAB first or last */
	PROXY_SECRET_TABLE_BAD_VALUE,
	/* a placeholder inside another, ignoring case (detection could not tell
	 * them apart) */
	PROXY_SECRET_TABLE_PLACEHOLDER_OVERLAP,
	/* a real value holds a placeholder, ignoring case: a substituted request
	 * would carry a placeholder on, and trip detection */
	PROXY_SECRET_TABLE_VALUE_HOLDS_PLACEHOLDER,
	/* a placeholder holds a real value: a rewritten response would carry
	 * the real value in */
	PROXY_SECRET_TABLE_PLACEHOLDER_HOLDS_VALUE,
};

/* Checks a table of n secrets before any other function here is given it:
 * each of them requires a table this accepts.  On a refusal *bad (may be
 * NULL) is the index of an offending entry.  t is only read. */
enum proxy_secret_table_status proxy_secret_table_check(const struct proxy_secret *t, size_t n,
							size_t *bad);

enum proxy_secret_status {
	PROXY_SECRET_OK,
	PROXY_SECRET_NO_ROOM,      /* the result does not fit in cap: res->len says what would */
	PROXY_SECRET_TOO_BIG,      /* the result would exceed PROXY_HTTP_HEAD_MAX */
	PROXY_SECRET_BAD_VALUE,    /* a replacement has a byte not allowed where it lands */
	PROXY_SECRET_IN_ROUTING,   /* a match in Host, a target's authority or a framing field */
	PROXY_SECRET_BAD_BASIC,    /* Basic credentials not strict base64 of "user:password" */
	PROXY_SECRET_RESIDUE,      /* a rewritten place still holds what was replaced */
};

struct proxy_secret_result {
	/* OK: bytes written; NO_ROOM: bytes the result needs (a buffer that
	 * size may still meet RESIDUE, which is only checked on bytes that
	 * fit: PROXY_SECRET_OUT_MAX always suffices) */
	size_t len;
	size_t replaced; /* occurrences replaced (OK and NO_ROOM) */
	/* BAD_VALUE, IN_ROUTING, RESIDUE: the table entry concerned, to name
	 * the secret in a message; otherwise unspecified */
	size_t which;
};

/* Writes into out[0..cap) the head h with each placeholder of t[0..n)
 * replaced by its real value (see above).  h is what proxy_http_parse_head
 * returned for buf (PROXY_HTTP_OK, or HOST_MISSING / HOST_DUPLICATE, whose
 * *out is filled too); buf[0..h->head_len) is only read.  Returns
 * PROXY_SECRET_OK with *res filled, or a refusal (above): the content of
 * out[0..cap) is then unspecified, and nothing at or past cap is written.
 * With replaced == 0 the result is buf's head byte for byte. */
enum proxy_secret_status proxy_secret_request(const uint8_t *buf, const struct proxy_http_head *h,
					      const struct proxy_secret *t, size_t n, uint8_t *out,
					      size_t cap, struct proxy_secret_result *res);

/* Bits of proxy_secret_find's `how`. */
#define PROXY_SECRET_FIND_PCT 0x1u   /* also search the bytes percent-decoded once */
#define PROXY_SECRET_FIND_NODOT 0x2u /* also search the bytes with every '.' removed */

/* Whether a placeholder of t[0..n) occurs in p[0..len), ignoring ASCII case,
 * in the forms `how` asks for besides the bytes as given.  For a DNS name,
 * an SNI or a CONNECT or SOCKS target: PROXY_SECRET_FIND_PCT |
 * PROXY_SECRET_FIND_NODOT; for the first bytes of a sniffed connection:
 * PROXY_SECRET_FIND_PCT.  true and *which (may be NULL) set to the index of
 * one secret found.  Any bytes, any length; time linear in len for each
 * secret. */
bool proxy_secret_find(const struct proxy_secret *t, size_t n, const uint8_t *p, size_t len,
		       unsigned how, size_t *which);

/* The same for a request head: buf[0..len) as given and percent-decoded,
 * plus every Basic credential (above).  Lines are split at LF with one CR
 * before it dropped, and any bytes are accepted, so it may be given a head
 * the parser refused as well as one it accepted (len = head_len). */
bool proxy_secret_find_head(const struct proxy_secret *t, size_t n, const uint8_t *buf,
			    size_t len, size_t *which);

/* Writes into out[0..cap) the response head r (parsed from buf by
 * proxy_http_parse_response(), wire/http_response.h) with each
 * real value of t[0..n) in the reason phrase and the field values replaced
 * by its placeholder; status, refusals and *res as proxy_secret_request. */
enum proxy_secret_status proxy_secret_response(const uint8_t *buf,
					       const struct proxy_http_response *r,
					       const struct proxy_secret *t, size_t n, uint8_t *out,
					       size_t cap, struct proxy_secret_result *res);

#endif /* PORTA_WIRE_HTTP_SECRET_H */
