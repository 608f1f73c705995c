/* tls/internal.h: the CA's layout, the module's own (tls/ and its tests).
 *
 * ARCHITECTURE: struct tls_ca is opaque to the rest of porta (tls/ca.h).
 * Its definition is here so that the unit tests can play the attacker who
 * holds the CA key: they sign a leaf for a name outside the CA's
 * constraints with ca->key and show that clients refuse it.  No function of
 * the library hands the key out or signs for an unchecked name, so porta
 * itself has no such path; this header refuses to compile anywhere else
 * (CMakeLists.txt, porta_module(); scripts/check-deps.py).
 */
#ifndef PORTA_TLS_INTERNAL_H
#define PORTA_TLS_INTERNAL_H

#ifndef PORTA_INSIDE_TLS
#error "tls/internal.h is tls/'s own (and its unit tests'): use tls/ca.h"
#endif

#include <stddef.h>
#include <stdint.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/pk.h>
#include <mbedtls/x509_crt.h>

#include "tls/constraints.h"

/* One minted leaf: the name it was asked for and its parsed certificate. */
struct tls_ca_leaf {
	struct tls_name name;
	mbedtls_x509_crt chain;
};

/* "YYYYMMDDhhmmss", as mbedtls_x509write_crt_set_validity() takes it. */
#define TLS_CA_TIME_LEN 15

struct tls_ca {
	mbedtls_ctr_drbg_context drbg; /* seeded from getrandom(2) only */
	int entropy_errno;             /* the last getrandom(2) failure, or 0 */
	mbedtls_pk_context key;        /* the CA's */
	mbedtls_pk_context leaf_key;   /* every leaf's (tls/ca.h says why one) */
	char subject[96];              /* "CN=porta run CA <hex>,O=porta" */
	char not_before[TLS_CA_TIME_LEN], not_after[TLS_CA_TIME_LEN];
	struct tls_name *names;        /* what the CA permits, as given */
	size_t n_names;
	uint8_t *der;                  /* the CA certificate */
	size_t der_len;
	char *pem;
	struct tls_ca_leaf **leaves;   /* each its own allocation: handed-out
					* pointers stay put as the array grows */
	size_t n_leaves, cap_leaves;
};

#endif /* PORTA_TLS_INTERNAL_H */
