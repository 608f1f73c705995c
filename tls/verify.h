/* tls/verify.h: why a TLS handshake failed, in words a person can act on.
 *
 * ARCHITECTURE: when porta's session to an upstream server refuses the
 * server (unknown authority, expired, a certificate for other names) or a
 * handshake with either side fails, the relay answers the sandboxed client
 * 502 with a short reason and prints it on stderr
 * (docs/design.md, "TLS termination and secrets").  mbedtls reports an
 * error code, a bitmask of verification flags and, at best, the alert the
 * peer sent; this unit turns them into one line:
 * "unknown certificate authority", "certificate expired", "certificate is
 * for a.example, b.example, not api.example", "the client refused porta's
 * certificate (unknown_ca)", ...  tls/endpoint.c fills the inputs; this file
 * only formats.
 *
 * Pure (docs/style.md §2): no system call, no allocation, no logging, no
 * global; the output is the caller's buffer.  Every name taken from a
 * certificate or a host is escaped (log_escape(): the certificate is the
 * upstream server's choice), so the reason is printable ASCII and safe in a
 * log line or an HTTP body.  A reason that does not fit is cut, never
 * overrun; its terminating NUL is always written when cap > 0.
 *
 * Not covered: revocation is named when mbedtls flags it, but porta gives
 * mbedtls no CRL, so it never does today (no OCSP either).
 */
#ifndef PORTA_TLS_VERIFY_H
#define PORTA_TLS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mbedtls/x509_crt.h>

/* Longest reason tls_failure_reason() writes, NUL included; longest name
 * list tls_leaf_names() writes. */
#define TLS_REASON_MAX 320
#define TLS_NAMES_MAX 200

/* What a failed handshake or I/O call left behind.  A plain value. */
struct tls_failure {
	int err;               /* the mbedtls error code (negative), or 0 */
	uint32_t verify_flags; /* mbedtls_ssl_get_verify_result(), 0 when not verified */
	int alert;             /* the fatal alert the peer sent (RFC 5246 §7.2), or -1 */
	bool facing_client;    /* porta's server side (the sandboxed client is the peer) */
	bool no_sni;           /* facing_client: the ClientHello carried no server_name */
	bool unknown_name;     /* facing_client: porta has no certificate for host */
	char host[256];        /* the name asked for (upstream host, or the client's SNI) */
	char names[TLS_NAMES_MAX]; /* tls_leaf_names() of the presented leaf, or "" */
};

/* Writes into out[cap] the names the certificate is for: its dNSName and
 * iPAddress subjectAltNames (RFC 5280 §4.2.1.6), or its subject CN when it
 * has no subjectAltName extension, comma-separated, each escaped, at most
 * four then "and N more".  "" when it names nothing.  Returns the length
 * written (without the NUL).  leaf is only read. */
size_t tls_leaf_names(const mbedtls_x509_crt *leaf, char *out, size_t cap);

/* Writes into out[cap] one short reason for f, most specific first: the
 * verification flags (authority, dates, name, revocation, key usage), then
 * the alert the peer sent, then the error code; "TLS error -0xNNNN" when
 * nothing more is known.  Returns the length written (without the NUL). */
size_t tls_failure_reason(const struct tls_failure *f, char *out, size_t cap);

/* The name of TLS alert `alert` (RFC 5246 §7.2, RFC 7301, RFC 6066), e.g.
 * "unknown_ca"; NULL when it has none.  Static storage. */
const char *tls_alert_name(int alert);

#endif /* PORTA_TLS_VERIFY_H */
