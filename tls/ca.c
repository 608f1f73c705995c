/* tls/ca.c: the run's CA and its leaves (tls/ca.h), with mbedtls 2.28.
 *
 * Each certificate is signed once, into DER, and everything else (the PEM,
 * the parsed leaf) is made from those bytes: ECDSA signatures are not
 * reproducible across calls that draw randomness, so writing the PEM with a
 * second mbedtls_x509write_crt_pem() would give another certificate.
 */
#include "tls/ca.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <mbedtls/asn1write.h>
#include <mbedtls/bignum.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/oid.h>
#include <mbedtls/pem.h>
#include <mbedtls/x509.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "tls/internal.h"

#define STEP "TLS CA"
/* Room for one certificate's DER: a CA with TLS_NAMES_MAX names carries
 * TLS_NC_DER_MAX bytes of constraints beside ~600 of its own. */
#define CERT_DER_MAX (TLS_NC_DER_MAX + 1024)
#define VALID_BEFORE_S (60 * 60)      /* tls/ca.h: from one hour ago */
#define VALID_AFTER_S (24 * 60 * 60)  /* to a day ahead */

/* mbedtls' entropy source callback (ctr_drbg.h, mbedtls_ctr_drbg_seed()):
 * the kernel's CSPRNG straight, blocking only until it is first seeded
 * (getrandom(2), flags 0).  A short read is retried; EINTR too. */
static int entropy_getrandom(void *ctx, unsigned char *buf, size_t len)
{
	struct tls_ca *ca = ctx;
	while (len > 0) {
		ssize_t got = getrandom(buf, len, 0);
		if (got < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			ca->entropy_errno = err;
			return MBEDTLS_ERR_ENTROPY_SOURCE_FAILED;
		}
		buf += got;
		len -= (size_t)got;
	}
	return 0;
}

/* Fills e for an mbedtls failure (its code and words) and returns -EIO, or
 * the getrandom(2) errno when that is what failed underneath. */
static int fail_mbedtls(struct porta_error *e, const struct tls_ca *ca, const char *what, int ret)
{
	if (ca->entropy_errno)
		return porta_fail(e, STEP, NULL, ca->entropy_errno, "%s: getrandom", what);
	char words[128];
	mbedtls_strerror(ret, words, sizeof(words));
	return porta_fail(e, STEP, NULL, EIO, "%s: mbedtls: %s (-0x%04x)", what, words,
			  (unsigned)-ret);
}

static int gen_key(struct tls_ca *ca, mbedtls_pk_context *key)
{
	int ret = mbedtls_pk_setup(key, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY));
	if (ret == 0)
		ret = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(*key),
					  mbedtls_ctr_drbg_random, &ca->drbg);
	return ret;
}

/* A positive serial of 16 random bytes (RFC 5280 4.1.2.2: at most 20
 * octets, positive); the top byte's bit 6 is set so that it is always
 * 16 bytes long, which leaves 126 random bits. */
static int random_serial(struct tls_ca *ca, mbedtls_mpi *serial)
{
	unsigned char b[16];
	int ret = mbedtls_ctr_drbg_random(&ca->drbg, b, sizeof(b));
	if (ret == 0) {
		b[0] = (unsigned char)((b[0] & 0x7f) | 0x40);
		ret = mbedtls_mpi_read_binary(serial, b, sizeof(b));
	}
	return ret;
}

static void format_time(time_t t, char out[TLS_CA_TIME_LEN])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, TLS_CA_TIME_LEN, "%Y%m%d%H%M%S", &tm);
}

/* The extendedKeyUsage value: SEQUENCE { id-kp-serverAuth } (RFC 5280
 * 4.2.1.12); mbedtls 2.28 has no setter for it. */
static int set_server_auth(mbedtls_x509write_cert *crt)
{
	unsigned char buf[16];
	unsigned char *p = buf + sizeof(buf);
	int len = mbedtls_asn1_write_oid(&p, buf, MBEDTLS_OID_SERVER_AUTH,
					 MBEDTLS_OID_SIZE(MBEDTLS_OID_SERVER_AUTH));
	if (len < 0)
		return len;
	int r = mbedtls_asn1_write_len(&p, buf, (size_t)len);
	if (r < 0)
		return r;
	len += r;
	r = mbedtls_asn1_write_tag(&p, buf, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE);
	if (r < 0)
		return r;
	len += r;
	return mbedtls_x509write_crt_set_extension(crt, MBEDTLS_OID_EXTENDED_KEY_USAGE,
						   MBEDTLS_OID_SIZE(MBEDTLS_OID_EXTENDED_KEY_USAGE), 0,
						   p, (size_t)len);
}

/* What every certificate of the run shares: version 3, SHA-256, the CA as
 * issuer, a random serial, the CA's validity. */
static int set_common(struct tls_ca *ca, mbedtls_x509write_cert *crt, mbedtls_mpi *serial)
{
	mbedtls_x509write_crt_set_version(crt, MBEDTLS_X509_CRT_VERSION_3);
	mbedtls_x509write_crt_set_md_alg(crt, MBEDTLS_MD_SHA256);
	mbedtls_x509write_crt_set_issuer_key(crt, &ca->key);
	int ret = mbedtls_x509write_crt_set_issuer_name(crt, ca->subject);
	if (ret == 0)
		ret = random_serial(ca, serial);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_serial(crt, serial);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_validity(crt, ca->not_before, ca->not_after);
	return ret;
}

/* Signs crt into a fresh buffer of exactly its DER's size: *der is the
 * caller's (free()). */
static int sign_der(struct tls_ca *ca, mbedtls_x509write_cert *crt, uint8_t **der, size_t *len)
{
	_cleanup_free_ uint8_t *buf = malloc(CERT_DER_MAX);
	if (!buf)
		return MBEDTLS_ERR_X509_ALLOC_FAILED;
	/* mbedtls_x509write_crt_der() writes at the end of buf */
	int n = mbedtls_x509write_crt_der(crt, buf, CERT_DER_MAX, mbedtls_ctr_drbg_random,
					  &ca->drbg);
	if (n < 0)
		return n;
	uint8_t *out = malloc((size_t)n);
	if (!out)
		return MBEDTLS_ERR_X509_ALLOC_FAILED;
	memcpy(out, buf + CERT_DER_MAX - n, (size_t)n);
	*der = out;
	*len = (size_t)n;
	return 0;
}

static int make_ca_cert(struct tls_ca *ca, const uint8_t *nc, size_t nc_len)
{
	mbedtls_x509write_cert crt;
	mbedtls_mpi serial;
	mbedtls_x509write_crt_init(&crt);
	mbedtls_mpi_init(&serial);

	int ret = set_common(ca, &crt, &serial);
	mbedtls_x509write_crt_set_subject_key(&crt, &ca->key);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_subject_name(&crt, ca->subject);
	/* critical, with pathLenConstraint 0: it signs leaves, never a CA */
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_basic_constraints(&crt, 1, 0);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_subject_key_identifier(&crt);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_key_usage(&crt, MBEDTLS_X509_KU_KEY_CERT_SIGN |
								MBEDTLS_X509_KU_CRL_SIGN);
	/* critical (RFC 5280 4.2.1.10 says a CA MUST mark it so): a client that
	 * cannot enforce it must refuse the chain rather than ignore it */
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_extension(
			&crt, MBEDTLS_OID_NAME_CONSTRAINTS,
			MBEDTLS_OID_SIZE(MBEDTLS_OID_NAME_CONSTRAINTS), 1, nc, nc_len);
	if (ret == 0)
		ret = sign_der(ca, &crt, &ca->der, &ca->der_len);
	mbedtls_mpi_free(&serial);
	mbedtls_x509write_crt_free(&crt);
	return ret;
}

static int make_ca_pem(struct tls_ca *ca)
{
	/* base64 grows by 4/3, plus a newline per 64 columns and the frame */
	size_t cap = ca->der_len * 4 / 3 + ca->der_len / 48 + 128;
	ca->pem = malloc(cap);
	if (!ca->pem)
		return MBEDTLS_ERR_PEM_ALLOC_FAILED;
	size_t olen = 0;
	return mbedtls_pem_write_buffer("-----BEGIN CERTIFICATE-----\n",
					"-----END CERTIFICATE-----\n", ca->der, ca->der_len,
					(unsigned char *)ca->pem, cap, &olen);
}

/* The CA's subject: a random run identifier tells one run's CA from
 * another's in a trust store or a client's error message. */
static int make_subject(struct tls_ca *ca)
{
	unsigned char id[8];
	int ret = mbedtls_ctr_drbg_random(&ca->drbg, id, sizeof(id));
	if (ret != 0)
		return ret;
	char hex[2 * sizeof(id) + 1];
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(ca->subject, sizeof(ca->subject), "CN=porta run CA %s,O=porta", hex);
	return 0;
}

static struct tls_ca *ca_alloc(void)
{
	struct tls_ca *ca = calloc(1, sizeof(*ca));
	if (!ca)
		return NULL;
	mbedtls_ctr_drbg_init(&ca->drbg);
	mbedtls_pk_init(&ca->key);
	mbedtls_pk_init(&ca->leaf_key);
	return ca;
}

/* Checks and keeps the names; fills e on a refusal. */
static int take_names(struct tls_ca *ca, const char *const *names, size_t n,
		      struct tls_text *texts, uint8_t *nc, size_t *nc_len, struct porta_error *e)
{
	if (n == 0)
		return porta_fail(e, STEP, NULL, EINVAL, "no name to terminate");
	if (n > TLS_NAMES_MAX)
		return porta_fail(e, STEP, NULL, EINVAL, "%zu names to terminate, at most %d", n,
				  TLS_NAMES_MAX);
	for (size_t i = 0; i < n; i++)
		texts[i] = (struct tls_text){ names[i], strlen(names[i]) };
	size_t bad = 0;
	enum tls_name_status why = TLS_NAME_OK;
	switch (tls_name_constraints_der(texts, n, nc, TLS_NC_DER_MAX, nc_len, &bad, &why)) {
	case TLS_DER_OK:
		break;
	case TLS_DER_BAD_NAME: {
		char esc[4 * POLICY_NAME_MAX + 16];
		log_escape(texts[bad].p, texts[bad].n, esc, sizeof(esc));
		return porta_fail(e, STEP, NULL, EINVAL, "\"%s\": not a name a CA can be limited to (%s)",
				  esc,
				  why == TLS_NAME_ANY ? "it would permit every name"
				  : why == TLS_NAME_NOT_CANONICAL ? "not canonical"
				  : "not a host name or IP literal");
	}
	case TLS_DER_NO_NAMES:
	case TLS_DER_TOO_MANY:
	case TLS_DER_TOO_BIG:
		/* ruled out above, and TLS_NC_DER_MAX bounds the DER */
		return porta_fail(e, STEP, NULL, EINVAL, "name constraints do not fit");
	}
	ca->names = calloc(n, sizeof(*ca->names));
	if (!ca->names)
		return porta_fail(e, STEP, NULL, ENOMEM, NULL);
	for (size_t i = 0; i < n; i++)
		(void)tls_name_parse(texts[i].p, texts[i].n, &ca->names[i]);
	ca->n_names = n;
	return 0;
}

int tls_ca_create(const char *const *names, size_t n, struct tls_ca **out,
		  struct porta_error *e)
{
	static const char personal[] = "porta tls ca";
	*out = NULL;
	struct tls_ca *ca = ca_alloc();
	struct tls_text texts[TLS_NAMES_MAX];
	_cleanup_free_ uint8_t *nc = malloc(TLS_NC_DER_MAX);
	size_t nc_len = 0;
	int rc;
	if (!ca || !nc) {
		rc = porta_fail(e, STEP, NULL, ENOMEM, NULL);
		goto out;
	}
	rc = take_names(ca, names, n, texts, nc, &nc_len, e);
	if (rc < 0)
		goto out;

	int ret = mbedtls_ctr_drbg_seed(&ca->drbg, entropy_getrandom, ca,
					(const unsigned char *)personal, sizeof(personal) - 1);
	if (ret != 0) {
		rc = fail_mbedtls(e, ca, "seeding the DRBG", ret);
		goto out;
	}
	time_t now = time(NULL);
	format_time(now - VALID_BEFORE_S, ca->not_before);
	format_time(now + VALID_AFTER_S, ca->not_after);
	if ((ret = make_subject(ca)) != 0 || (ret = gen_key(ca, &ca->key)) != 0 ||
	    (ret = gen_key(ca, &ca->leaf_key)) != 0) {
		rc = fail_mbedtls(e, ca, "generating a key", ret);
		goto out;
	}
	if ((ret = make_ca_cert(ca, nc, nc_len)) != 0 || (ret = make_ca_pem(ca)) != 0) {
		rc = fail_mbedtls(e, ca, "writing the CA certificate", ret);
		goto out;
	}
	*out = steal_ptr(&ca);
	rc = 0;
out:
	tls_ca_destroy(ca);
	return rc;
}

static void leaf_free(struct tls_ca_leaf *leaf)
{
	if (!leaf)
		return;
	mbedtls_x509_crt_free(&leaf->chain);
	free(leaf);
}

void tls_ca_destroy(struct tls_ca *ca)
{
	if (!ca)
		return;
	for (size_t i = 0; i < ca->n_leaves; i++)
		leaf_free(ca->leaves[i]);
	free(ca->leaves);
	free(ca->names);
	free(ca->der);
	free(ca->pem);
	/* both keys are zeroised by mbedtls' free (mbedtls_platform_zeroize) */
	mbedtls_pk_free(&ca->leaf_key);
	mbedtls_pk_free(&ca->key);
	mbedtls_ctr_drbg_free(&ca->drbg);
	free(ca);
}

const char *tls_ca_pem(const struct tls_ca *ca)
{
	return ca->pem;
}

const uint8_t *tls_ca_der(const struct tls_ca *ca, size_t *len)
{
	*len = ca->der_len;
	return ca->der;
}

static bool same_name(const struct tls_name *a, const struct tls_name *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == TLS_NAME_DNS)
		return strcmp(a->dns, b->dns) == 0;
	return memcmp(a->addr.b, b->addr.b, sizeof(a->addr.b)) == 0;
}

/* Signs the leaf for name (already permitted) into leaf->chain. */
static int mint(struct tls_ca *ca, const struct tls_name *name, struct tls_ca_leaf *leaf)
{
	uint8_t san[TLS_SAN_DER_MAX];
	size_t san_len = 0;
	if (tls_subject_alt_name_der(name, san, sizeof(san), &san_len) != TLS_DER_OK)
		return MBEDTLS_ERR_X509_BAD_INPUT_DATA;
	char subject[POLICY_NAME_MAX + 16] = "O=porta";
	if (name->kind == TLS_NAME_DNS)
		snprintf(subject, sizeof(subject), "CN=%s,O=porta", name->dns);

	mbedtls_x509write_cert crt;
	mbedtls_mpi serial;
	mbedtls_x509write_crt_init(&crt);
	mbedtls_mpi_init(&serial);
	_cleanup_free_ uint8_t *der = NULL;
	size_t der_len = 0;

	int ret = set_common(ca, &crt, &serial);
	mbedtls_x509write_crt_set_subject_key(&crt, &ca->leaf_key);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_subject_name(&crt, subject);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_basic_constraints(&crt, 0, -1);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_subject_key_identifier(&crt);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_authority_key_identifier(&crt);
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_key_usage(&crt, MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
	if (ret == 0)
		ret = set_server_auth(&crt);
	/* not critical: the subject is not empty (RFC 5280 4.2.1.6) */
	if (ret == 0)
		ret = mbedtls_x509write_crt_set_extension(
			&crt, MBEDTLS_OID_SUBJECT_ALT_NAME,
			MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME), 0, san, san_len);
	if (ret == 0)
		ret = sign_der(ca, &crt, &der, &der_len);
	if (ret == 0)
		ret = mbedtls_x509_crt_parse_der(&leaf->chain, der, der_len);
	mbedtls_mpi_free(&serial);
	mbedtls_x509write_crt_free(&crt);
	return ret;
}

int tls_ca_leaf(struct tls_ca *ca, const char *name, struct tls_leaf *out)
{
	struct tls_name want;
	if (tls_name_parse(name, strlen(name), &want) != TLS_NAME_OK)
		return -EINVAL;
	if (!tls_name_permits(ca->names, ca->n_names, &want))
		return -EPERM;
	for (size_t i = 0; i < ca->n_leaves; i++) {
		if (same_name(&ca->leaves[i]->name, &want)) {
			*out = (struct tls_leaf){ &ca->leaves[i]->chain, &ca->leaf_key };
			return 0;
		}
	}
	if (ca->n_leaves == TLS_CA_LEAVES_MAX)
		return -ENOSPC;
	if (ca->n_leaves == ca->cap_leaves) {
		size_t cap = ca->cap_leaves ? ca->cap_leaves * 2 : 8;
		struct tls_ca_leaf **grown = realloc(ca->leaves, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		ca->leaves = grown;
		ca->cap_leaves = cap;
	}
	struct tls_ca_leaf *leaf = calloc(1, sizeof(*leaf));
	if (!leaf)
		return -ENOMEM;
	leaf->name = want;
	mbedtls_x509_crt_init(&leaf->chain);
	int ret = mint(ca, &want, leaf);
	if (ret != 0) {
		leaf_free(leaf);
		return ret == MBEDTLS_ERR_X509_ALLOC_FAILED ? -ENOMEM : -EIO;
	}
	ca->leaves[ca->n_leaves++] = leaf;
	*out = (struct tls_leaf){ &leaf->chain, &ca->leaf_key };
	return 0;
}
