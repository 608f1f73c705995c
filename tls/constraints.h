/* tls/constraints.h: the names a run's CA may sign for, and the DER of the
 * two extensions that carry them: the CA's nameConstraints and a leaf's
 * subjectAltName.
 *
 * ARCHITECTURE: the certificate-minting inputs, as pure functions
 * (docs/style.md §2): text in, a classified name or DER bytes out, written
 * into the caller's bounded buffer; no allocation, no logging, no system
 * call, no state, so any thread may call them.  tls/ca.c is the only caller
 * in porta; mbedtls 2.28 writes neither extension itself (its x509write API
 * has no nameConstraints and no subjectAltName setter), so they are encoded
 * here with mbedtls_asn1_write_* and handed to
 * mbedtls_x509write_crt_set_extension().  tests/fuzz/fuzz_name_constraints.c
 * feeds arbitrary name lists through both.
 *
 * A name is one of (the host part of an --allow-net rule, as policy/
 * already canonicalised it: the caller strips brackets and the port):
 *   "api.example"      a canonical host name (policy_name_canonical(): ASCII
 *                      letters, digits, '-', '_' in labels of 1..63 bytes,
 *                      lower case, no trailing dot, at most 253 bytes) whose
 *                      last label is not a number: a dNSName;
 *   "*.api.example"    the same, for the name and every name below it: the
 *                      dNSName "api.example" (RFC 5280 4.2.1.10: a dNSName
 *                      subtree is the name and every name made by adding
 *                      labels on its left);
 *   "192.0.2.1"        a strict dotted quad (policy_addr_parse_ipv4()): an
 *                      iPAddress of 4 bytes, its subtree masked /32;
 *   "2001:db8::1"      RFC 4291 text without brackets or zone: 16 bytes, /128.
 * Anything else is refused with a status, never encoded: the empty name, a
 * name past 253 bytes (or 255 with "*."), NUL or any byte a host name cannot
 * hold, upper case or a trailing dot (the input must already be canonical,
 * so the encoded bytes are exactly the given ones), a number in the last
 * label (an address in disguise: "127.1"), '*' anywhere but a leading "*.",
 * and "*" alone, which would let the CA sign for every name.
 *
 * nameConstraints (critical on the CA) permits one subtree per name, in the
 * order given (a name given twice is two identical subtrees: harmless), and
 * closes the name forms the list does not use, because RFC 5280 constrains
 * only the forms a permittedSubtrees names: without an IP in the list it
 * excludes 0.0.0.0/0 and ::/0, without a host name it excludes the
 * zero-length dNSName, which matches every name (both as the CA/Browser
 * Forum's Baseline Requirements, 7.1.2.5, ask of a technically constrained
 * CA).  Not covered: other name forms (rfc822Name, URI, otherName,
 * directoryName) are left open, since no TLS client takes a server's
 * identity from them; a dNSName subtree also covers the names below it
 * ("api.example" permits "x.api.example"), which X.509 cannot express
 * otherwise: tls/ca.h mints leaves only for the names listed.
 */
#ifndef PORTA_TLS_CONSTRAINTS_H
#define PORTA_TLS_CONSTRAINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/addr.h"
#include "policy/names.h"

/* Most names one CA constrains itself to (terminated hosts are the few that
 * --secret and --allow-http name), and the DER the encoder can need for
 * them: a subtree is at most 4 + 4 + 253 bytes, the excluded part 64. */
#define TLS_NAMES_MAX 128
#define TLS_NC_DER_MAX (TLS_NAMES_MAX * 261 + 96)
/* A subjectAltName with one name: SEQUENCE, tag, length, 253 bytes. */
#define TLS_SAN_DER_MAX 264

enum tls_name_kind {
	TLS_NAME_DNS,  /* dns[0..dns_len): a canonical host name */
	TLS_NAME_IPV4, /* addr, POLICY_ADDR_V4 */
	TLS_NAME_IPV6, /* addr, POLICY_ADDR_V6 */
};

/* One name, classified.  A plain value. */
struct tls_name {
	enum tls_name_kind kind;
	bool wildcard;                  /* "*.": the name and every name below */
	char dns[POLICY_NAME_MAX + 1];  /* TLS_NAME_DNS: without "*.", NUL-terminated */
	size_t dns_len;
	struct policy_addr addr;        /* TLS_NAME_IPV4, TLS_NAME_IPV6 */
};

enum tls_name_status {
	TLS_NAME_OK,
	TLS_NAME_EMPTY,         /* no bytes, or "*." with nothing after */
	TLS_NAME_TOO_LONG,      /* past POLICY_NAME_MAX (without "*.") */
	TLS_NAME_ANY,           /* "*": a CA for every name is refused */
	TLS_NAME_NOT_CANONICAL, /* a host name, but upper case or a trailing dot */
	TLS_NAME_MALFORMED,     /* neither a host name nor a strict IP literal */
};

/* A name given as bytes and a length (it may hold any byte, NUL included). */
struct tls_text {
	const char *p;
	size_t n;
};

/* Classifies s[0..n) into *out (see the grammar above).  On anything but
 * TLS_NAME_OK *out is unspecified.  Pure. */
enum tls_name_status tls_name_parse(const char *s, size_t n, struct tls_name *out);

/* True when a leaf for `name` is one the list permits porta to mint: name is
 * a canonical host name equal to a listed host name or below a listed
 * "*." one (policy_name_matches()), or an IP literal equal to a listed one.
 * Narrower than the nameConstraints: a listed "api.example" does not permit
 * "x.api.example" here.  Pure. */
bool tls_name_permits(const struct tls_name *list, size_t n, const struct tls_name *name);

enum tls_der_status {
	TLS_DER_OK,
	TLS_DER_NO_NAMES, /* n == 0: a CA constrained to nothing is no use */
	TLS_DER_TOO_MANY, /* n > TLS_NAMES_MAX */
	TLS_DER_BAD_NAME, /* names[*bad] is not a name (tls_name_parse) */
	TLS_DER_TOO_BIG,  /* the DER does not fit in cap bytes */
};

/* Writes the nameConstraints extension value (the DER inside the
 * extension's OCTET STRING) for names[0..n) into buf[0..*len).  buf[cap]
 * is the caller's; nothing is written past it (TLS_NC_DER_MAX bytes always
 * suffice).  TLS_DER_BAD_NAME sets *bad (may be NULL) to the first refused
 * name's index and *why (may be NULL) to its status.  On any status but OK
 * *len is 0 and buf's content is unspecified.  Pure. */
enum tls_der_status tls_name_constraints_der(const struct tls_text *names, size_t n,
					     uint8_t *buf, size_t cap, size_t *len,
					     size_t *bad, enum tls_name_status *why);

/* Writes the subjectAltName extension value naming exactly `name` (a
 * dNSName, or an iPAddress of 4 or 16 bytes; a wildcard is refused: porta
 * mints for the name a client asked for) into buf[0..*len).  Returns OK,
 * BAD_NAME or TOO_BIG as above.  Pure. */
enum tls_der_status tls_subject_alt_name_der(const struct tls_name *name, uint8_t *buf,
					     size_t cap, size_t *len);

#endif /* PORTA_TLS_CONSTRAINTS_H */
