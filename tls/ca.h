/* tls/ca.h: the certificate authority of one run, and the leaf
 * certificates it mints for the hosts porta terminates.
 *
 * ARCHITECTURE: porta terminates TLS for the few hosts --secret and
 * --allow-http name, and the program inside must trust what porta presents
 * for them.  So a run that terminates any host makes one CA, in memory
 * only, whose certificate porta adds to the trust bundle it mounts inside,
 * and mints for each terminated name, on its first connection, a leaf that
 * the proxy's mbedtls server configuration presents.  The supervisor creates
 * it before the clone (a set-up step: its failure is one porta_error) and
 * the proxy asks it for leaves from the event loop; nothing here reads or
 * writes a file, and neither key is ever written anywhere.
 *
 * The CA: a fresh ECDSA P-256 key from mbedtls' CTR_DRBG, seeded (and
 * reseeded) from getrandom(2) alone; a self-signed certificate "CN=porta
 * run CA <16 random hex digits>, O=porta", valid from one hour ago (clocks
 * inside and out may differ a little) to 24 hours ahead, with
 * basicConstraints CA:TRUE pathlen 0 and keyUsage keyCertSign|cRLSign (both
 * critical), a subject key identifier, and a critical nameConstraints
 * extension permitting exactly the names it was made for and nothing of the
 * name forms they do not use (tls/constraints.h, which also says what a
 * name may be).  The trust it adds inside therefore reaches only those
 * names: a certificate signed by this key for any other name fails every
 * client that enforces name constraints, whoever holds the key: OpenSSL
 * (which the unit tests run as the client) and so curl, git, Python and
 * Node; Go, NSS, GnuTLS and rustls' webpki enforce them too.  mbedtls 2.28
 * does not (the tests show it), which does not matter here: porta never
 * trusts this CA itself, upstream it verifies against the host's store.
 *
 * The leaves: "CN=<name>, O=porta" (an IP leaf has no CN, which OpenSSL
 * would otherwise read as a host name), subjectAltName with exactly that
 * dNSName or iPAddress, extendedKeyUsage serverAuth, keyUsage
 * digitalSignature (critical), basicConstraints CA:FALSE, the CA's subject
 * and authority key identifiers, a 128-bit random serial, and the CA's own
 * validity window.  Minted only for a name the CA was made for (equal to a
 * listed name, or below a listed "*." one: tls_name_permits()); every other
 * name is refused, never minted, and the production API has no way to sign
 * anything else.  Each leaf is kept for the run: a second request for the
 * same name returns the same object, so only a name's first connection pays
 * for a signature.  At most TLS_CA_LEAVES_MAX leaves are kept (a "*." name
 * lets a program ask for any number of names below it); past that, minting
 * is refused rather than the memory growing without bound.
 *
 * One leaf key serves every leaf of the run: a key per leaf would protect
 * nothing more, since both live in porta's memory beside the CA key, which
 * can sign for every permitted name anyway; and an EC key generation on
 * each name's first connection would be paid in time to first byte.  It is
 * made with the CA, so a first leaf costs one signature.
 *
 * What a leaf gives an mbedtls server configuration
 * (mbedtls_ssl_conf_own_cert(conf, leaf.chain, leaf.key)): the chain is the
 * leaf alone.  The CA is not appended: every client that trusts it has it
 * already (it is the trust anchor porta installed), RFC 8446 4.4.2 lets a
 * server leave the root out, and it would cost each handshake its bytes.
 * (mbedtls 2.28 cannot parse the CA certificate with
 * mbedtls_x509_crt_parse_der() anyway: it refuses the critical
 * nameConstraints extension it does not implement unless the caller takes
 * it through mbedtls_x509_crt_parse_der_with_ext_cb().)
 *
 * One owner: tls_ca_create() returns the CA, tls_ca_destroy() frees it and
 * every leaf, chain and key it handed out, which must outlive every mbedtls
 * configuration and session that uses them.  Not thread-safe: one thread
 * (porta's event loop) calls everything on one CA.
 */
#ifndef PORTA_TLS_CA_H
#define PORTA_TLS_CA_H

#include <stddef.h>
#include <stdint.h>

#include <mbedtls/pk.h>
#include <mbedtls/x509_crt.h>

#include "common/error.h"
#include "tls/constraints.h"

/* Most leaves one CA keeps (see above). */
#define TLS_CA_LEAVES_MAX 1024

struct tls_ca;

/* What tls_ca_leaf() hands out: both owned by the CA, valid until
 * tls_ca_destroy().  A plain value. */
struct tls_leaf {
	mbedtls_x509_crt *chain; /* the leaf alone (the CA is not appended) */
	mbedtls_pk_context *key; /* the run's leaf key (ECDSA P-256) */
};

/* Makes the CA for names[0..n) (NUL-terminated, as tls/constraints.h says;
 * at most TLS_NAMES_MAX), with its key, its certificate and the run's leaf
 * key.  On success *out is the caller's, freed with tls_ca_destroy(), and 0
 * is returned.  On failure *out is NULL, e is filled (step "TLS CA"; a
 * refused name is quoted, escaped, in its message) and -errno is returned:
 * -EINVAL for an empty list, too many names or a name it cannot take,
 * -ENOMEM, the getrandom(2) errno, or -EIO when mbedtls fails (its error
 * code in the message).  Slow (two key generations and a signature: see
 * docs/benchmarks/tls-ca.md); call it during set-up. */
int tls_ca_create(const char *const *names, size_t n, struct tls_ca **out,
		  struct porta_error *e);

/* Frees ca and everything it handed out.  NULL does nothing. */
void tls_ca_destroy(struct tls_ca *ca);

/* The CA certificate, NUL-terminated PEM ("-----BEGIN CERTIFICATE-----",
 * for the trust bundle), and its DER; both owned by ca. */
const char *tls_ca_pem(const struct tls_ca *ca);
const uint8_t *tls_ca_der(const struct tls_ca *ca, size_t *len);

/* The leaf for name (NUL-terminated; a canonical host name or an IP
 * literal, as the proxy canonicalised the SNI or dialled address), minted
 * on the first call and the same object on every later one.  Returns 0 and
 * fills *out; -EPERM when the CA does not permit name (tls_name_permits()),
 * -EINVAL when it is no name tls_name_parse() takes, -ENOSPC past
 * TLS_CA_LEAVES_MAX leaves, -ENOMEM, or -EIO when mbedtls fails; *out is
 * then unchanged and nothing was kept.  The event loop's thread only. */
int tls_ca_leaf(struct tls_ca *ca, const char *name, struct tls_leaf *out);

#endif /* PORTA_TLS_CA_H */
