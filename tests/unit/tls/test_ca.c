/* tests/unit/tls/test_ca.c: the run's CA and its leaves (tls/ca.h), read
 * back by two verifiers: mbedtls itself, and OpenSSL's command line as an
 * independent one (openssl is in scripts/deps.txt).  The security property
 * is shown as a client sees it: a leaf signed with the CA's own key for a
 * name outside its constraints (made here, through tls/internal.h, as an
 * attacker holding the key would; the library has no such path) fails
 * OpenSSL's verification with a name-constraints error. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mbedtls/oid.h>
#include <mbedtls/pem.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include "tls/ca.h"
#include "tls/internal.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *const NAMES[] = { "api.example", "*.registry.example", "192.0.2.7",
				     "2001:db8::7" };

static struct tls_ca *make_ca(const char *const *names, size_t n)
{
	struct tls_ca *ca = NULL;
	struct porta_error e;
	memset(&e, 0, sizeof(e));
	int rc = tls_ca_create(names, n, &ca, &e);
	cr_assert_eq(rc, 0, "tls_ca_create: %d %s: %s", rc, e.step, e.msg);
	cr_assert_not_null(ca);
	return ca;
}

/* ---- files and openssl ---------------------------------------------------- */

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/porta-tls-test.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void write_pem(const char *name, const uint8_t *der, size_t len)
{
	unsigned char pem[4096];
	size_t olen = 0;
	cr_assert_eq(mbedtls_pem_write_buffer("-----BEGIN CERTIFICATE-----\n",
					      "-----END CERTIFICATE-----\n", der, len, pem,
					      sizeof(pem), &olen),
		     0);
	write_file(name, pem, olen - 1); /* olen counts the NUL */
}

/* Runs `openssl ARGS...` in tmpdir; returns its exit status, with stdout
 * and stderr together in out[cap]. */
static int openssl(char *out, size_t cap, const char *const *args)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		if (chdir(tmpdir) < 0)
			_exit(126);
		char *argv[16] = { "openssl" };
		for (size_t i = 0; args[i] && i < 14; i++)
			argv[i + 1] = (char *)args[i];
		execvp("openssl", argv);
		_exit(127);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < cap && (n = read(p[0], out + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_neq(WEXITSTATUS(status), 127, "openssl is not installed");
	return WEXITSTATUS(status);
}

/* openssl verify of leaf.pem against ca.pem, for a host name or an IP. */
static int openssl_verify(const char *name, char *out, size_t cap)
{
	bool ip = strchr(name, ':') || (name[0] >= '0' && name[0] <= '9');
	const char *args[] = { "verify", "-x509_strict", "-purpose", "sslserver", "-CAfile",
			       "ca.pem", ip ? "-verify_ip" : "-verify_hostname", name,
			       "leaf.pem", NULL };
	return openssl(out, cap, args);
}

static void leaf_to_files(struct tls_ca *ca, const struct tls_leaf *leaf)
{
	size_t len;
	const uint8_t *der = tls_ca_der(ca, &len);
	write_pem("ca.pem", der, len);
	write_pem("leaf.pem", leaf->chain->raw.p, leaf->chain->raw.len);
}

/* ---- the attacker's leaf -------------------------------------------------- */

/* A leaf for name signed with ca's key, as tls/ca.c signs one, without
 * tls_name_permits(): what a holder of the key could make. */
static void attacker_leaf(struct tls_ca *ca, const char *name, uint8_t **der, size_t *len)
{
	struct tls_name n;
	cr_assert_eq(tls_name_parse(name, strlen(name), &n), TLS_NAME_OK);
	uint8_t san[TLS_SAN_DER_MAX];
	size_t san_len;
	cr_assert_eq(tls_subject_alt_name_der(&n, san, sizeof(san), &san_len), TLS_DER_OK);

	mbedtls_x509write_cert crt;
	mbedtls_mpi serial;
	mbedtls_x509write_crt_init(&crt);
	mbedtls_mpi_init(&serial);
	mbedtls_x509write_crt_set_version(&crt, MBEDTLS_X509_CRT_VERSION_3);
	mbedtls_x509write_crt_set_md_alg(&crt, MBEDTLS_MD_SHA256);
	mbedtls_x509write_crt_set_issuer_key(&crt, &ca->key);
	mbedtls_x509write_crt_set_subject_key(&crt, &ca->leaf_key);
	cr_assert_eq(mbedtls_x509write_crt_set_issuer_name(&crt, ca->subject), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_subject_name(&crt, "O=attacker"), 0);
	cr_assert_eq(mbedtls_mpi_lset(&serial, 4242), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_serial(&crt, &serial), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_validity(&crt, ca->not_before, ca->not_after), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_basic_constraints(&crt, 0, -1), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_subject_key_identifier(&crt), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_authority_key_identifier(&crt), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_key_usage(&crt, MBEDTLS_X509_KU_DIGITAL_SIGNATURE), 0);
	cr_assert_eq(mbedtls_x509write_crt_set_extension(
			     &crt, MBEDTLS_OID_SUBJECT_ALT_NAME,
			     MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME), 0, san, san_len),
		     0);
	uint8_t buf[4096];
	int r = mbedtls_x509write_crt_der(&crt, buf, sizeof(buf), mbedtls_ctr_drbg_random,
					  &ca->drbg);
	cr_assert_gt(r, 0);
	*der = malloc((size_t)r);
	cr_assert_not_null(*der);
	memcpy(*der, buf + sizeof(buf) - r, (size_t)r);
	*len = (size_t)r;
	mbedtls_mpi_free(&serial);
	mbedtls_x509write_crt_free(&crt);
}

/* The attacker's leaf for name, as OpenSSL judges it: its exit status. */
static int openssl_attacker(struct tls_ca *ca, const char *name, char *out, size_t cap)
{
	uint8_t *der;
	size_t len, ca_len;
	attacker_leaf(ca, name, &der, &len);
	const uint8_t *ca_der = tls_ca_der(ca, &ca_len);
	write_pem("ca.pem", ca_der, ca_len);
	write_pem("leaf.pem", der, len);
	free(der);
	const char *args[] = { "verify", "-CAfile", "ca.pem", "leaf.pem", NULL };
	return openssl(out, cap, args);
}

/* ---- parsing the CA with mbedtls ------------------------------------------ */

/* Takes nameConstraints, which mbedtls 2.28 does not implement, so that the
 * CA parses; mbedtls does not enforce it (see the test below). */
static int take_name_constraints(void *ctx, const mbedtls_x509_crt *crt,
				 const mbedtls_x509_buf *oid, int critical,
				 const unsigned char *p, const unsigned char *end)
{
	(void)crt;
	(void)p;
	(void)end;
	int *seen = ctx;
	if (MBEDTLS_OID_CMP(MBEDTLS_OID_NAME_CONSTRAINTS, oid) != 0)
		return -1;
	*seen = critical ? 2 : 1;
	return 0;
}

static void parse_ca(struct tls_ca *ca, mbedtls_x509_crt *crt)
{
	size_t len;
	const uint8_t *der = tls_ca_der(ca, &len);
	int seen = 0;
	mbedtls_x509_crt_init(crt);
	cr_assert_eq(mbedtls_x509_crt_parse_der_with_ext_cb(crt, der, len, 1,
							     take_name_constraints, &seen),
		     0);
	cr_assert_eq(seen, 2, "nameConstraints must be there and critical");
}

static time_t to_time(const mbedtls_x509_time *t)
{
	struct tm tm = { .tm_year = t->year - 1900, .tm_mon = t->mon - 1, .tm_mday = t->day,
			 .tm_hour = t->hour, .tm_min = t->min, .tm_sec = t->sec };
	return timegm(&tm);
}

/* ---- the CA --------------------------------------------------------------- */

Test(tls_ca, certificate_as_specified)
{
	time_t before = time(NULL);
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	time_t after = time(NULL);

	const char *pem = tls_ca_pem(ca);
	cr_assert_eq(strncmp(pem, "-----BEGIN CERTIFICATE-----\n", 28), 0);
	cr_assert_not_null(strstr(pem, "-----END CERTIFICATE-----\n"));

	mbedtls_x509_crt crt;
	parse_ca(ca, &crt);
	cr_assert_eq(crt.version, 3);
	cr_assert_eq(crt.ca_istrue, 1);
	cr_assert_eq(crt.max_pathlen, 1, "pathlen 0 (mbedtls stores it plus one)");
	cr_assert_eq(crt.key_usage, MBEDTLS_X509_KU_KEY_CERT_SIGN | MBEDTLS_X509_KU_CRL_SIGN);
	cr_assert(mbedtls_pk_can_do(&crt.pk, MBEDTLS_PK_ECKEY));
	cr_assert_eq(mbedtls_pk_ec(crt.pk)->grp.id, MBEDTLS_ECP_DP_SECP256R1);
	cr_assert_eq(crt.sig_md, MBEDTLS_MD_SHA256);
	cr_assert_eq(crt.subject_raw.len, crt.issuer_raw.len);
	cr_assert_eq(memcmp(crt.subject_raw.p, crt.issuer_raw.p, crt.subject_raw.len), 0);
	char dn[256];
	cr_assert_gt(mbedtls_x509_dn_gets(dn, sizeof(dn), &crt.subject), 0);
	cr_assert_eq(strncmp(dn, "CN=porta run CA ", 16), 0, "%s", dn);
	cr_assert_eq(strlen(dn), strlen("CN=porta run CA 0123456789abcdef, O=porta"), "%s", dn);
	cr_assert_str_eq(dn + strlen(dn) - 9, ", O=porta");
	/* valid from an hour ago to a day ahead */
	time_t from = to_time(&crt.valid_from), to = to_time(&crt.valid_to);
	cr_assert(from >= before - 3600 && from <= after - 3600, "from %ld now %ld", (long)from,
		  (long)before);
	cr_assert(to >= before + 86400 && to <= after + 86400);
	/* the PEM is the DER's */
	mbedtls_pem_context pctx;
	mbedtls_pem_init(&pctx);
	size_t use_len, der_len = 0;
	cr_assert_eq(mbedtls_pem_read_buffer(&pctx, "-----BEGIN CERTIFICATE-----",
					     "-----END CERTIFICATE-----",
					     (const unsigned char *)pem, NULL, 0, &use_len),
		     0);
	const uint8_t *buf = pctx.buf; /* mbedtls 2.28: public fields */
	der_len = pctx.buflen;
	cr_assert_eq(der_len, crt.raw.len);
	cr_assert_eq(memcmp(buf, crt.raw.p, der_len), 0);
	cr_assert_eq(use_len, strlen(pem));
	mbedtls_pem_free(&pctx);
	mbedtls_x509_crt_free(&crt);
	tls_ca_destroy(ca);
}

Test(tls_ca, openssl_reads_the_extensions_as_specified)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	make_tmpdir();
	size_t len;
	const uint8_t *der = tls_ca_der(ca, &len);
	write_pem("ca.pem", der, len);
	char out[16384];
	const char *args[] = { "x509", "-in", "ca.pem", "-noout", "-text", NULL };
	cr_assert_eq(openssl(out, sizeof(out), args), 0, "%s", out);
	static const char *const want[] = {
		"X509v3 Basic Constraints: critical\n                CA:TRUE, pathlen:0\n",
		"X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign\n",
		"X509v3 Subject Key Identifier: \n",
		"X509v3 Name Constraints: critical\n                Permitted:\n"
		"                  DNS:api.example\n"
		"                  DNS:registry.example\n"
		"                  IP:192.0.2.7/255.255.255.255\n"
		"                  IP:2001:DB8:0:0:0:0:0:7/"
		"FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF\n",
		"Public Key Algorithm: id-ecPublicKey\n",
		"NIST CURVE: P-256\n",
		"Signature Algorithm: ecdsa-with-SHA256\n",
	};
	for (size_t i = 0; i < N_ELEMS(want); i++)
		cr_assert_not_null(strstr(out, want[i]), "missing:\n%s\nin:\n%s", want[i], out);
	cr_assert_null(strstr(out, "Excluded"), "%s", out);
	/* self-signed: OpenSSL verifies it against itself */
	const char *verify[] = { "verify", "-x509_strict", "-CAfile", "ca.pem", "ca.pem", NULL };
	cr_assert_eq(openssl(out, sizeof(out), verify), 0, "%s", out);
	remove_tmpdir();
	tls_ca_destroy(ca);
}

Test(tls_ca, each_run_has_its_own_key_and_name)
{
	struct tls_ca *a = make_ca(NAMES, 1), *b = make_ca(NAMES, 1);
	mbedtls_x509_crt ca, cb;
	parse_ca(a, &ca);
	parse_ca(b, &cb);
	cr_assert_neq(mbedtls_mpi_cmp_mpi(&mbedtls_pk_ec(ca.pk)->Q.X, &mbedtls_pk_ec(cb.pk)->Q.X),
		      0);
	cr_assert_neq(mbedtls_mpi_cmp_mpi(&mbedtls_pk_ec(a->key)->d, &mbedtls_pk_ec(a->leaf_key)->d),
		      0, "the leaf key is not the CA key");
	cr_assert(ca.subject_raw.len != cb.subject_raw.len ||
		  memcmp(ca.subject_raw.p, cb.subject_raw.p, ca.subject_raw.len) != 0);
	cr_assert(ca.serial.len != cb.serial.len ||
		  memcmp(ca.serial.p, cb.serial.p, ca.serial.len) != 0);
	mbedtls_x509_crt_free(&ca);
	mbedtls_x509_crt_free(&cb);
	tls_ca_destroy(a);
	tls_ca_destroy(b);
}

Test(tls_ca, refused_lists)
{
	struct porta_error e;
	struct tls_ca *ca = (struct tls_ca *)1;
	memset(&e, 0, sizeof(e));
	cr_assert_eq(tls_ca_create(NULL, 0, &ca, &e), -EINVAL);
	cr_assert_null(ca);
	cr_assert_str_eq(e.step, "TLS CA");

	static const char *const bad[] = { "api.example", "*" };
	cr_assert_eq(tls_ca_create(bad, 2, &ca, &e), -EINVAL);
	cr_assert_null(ca);
	cr_assert_not_null(strstr(e.msg, "\"*\""), "%s", e.msg);
	cr_assert_not_null(strstr(e.msg, "every name"), "%s", e.msg);

	static const char *const esc[] = { "a\x1b[31m.example" };
	cr_assert_eq(tls_ca_create(esc, 1, &ca, &e), -EINVAL);
	cr_assert_null(strchr(e.msg, '\x1b'), "the name is escaped: %s", e.msg);
	cr_assert_not_null(strstr(e.msg, "\\x1b"), "%s", e.msg);

	const char *many[TLS_NAMES_MAX + 1];
	for (size_t i = 0; i < N_ELEMS(many); i++)
		many[i] = "api.example";
	cr_assert_eq(tls_ca_create(many, N_ELEMS(many), &ca, &e), -EINVAL);
	cr_assert_null(ca);
	tls_ca_destroy(NULL);
}

/* ---- leaves --------------------------------------------------------------- */

static bool has_server_auth(const mbedtls_x509_crt *crt)
{
	for (const mbedtls_x509_sequence *s = &crt->ext_key_usage; s && s->buf.p; s = s->next)
		if (MBEDTLS_OID_CMP(MBEDTLS_OID_SERVER_AUTH, &s->buf) == 0)
			return true;
	return false;
}

Test(tls_ca, leaf_for_a_host_name)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	struct tls_leaf leaf;
	cr_assert_eq(tls_ca_leaf(ca, "api.example", &leaf), 0);
	const mbedtls_x509_crt *crt = leaf.chain;
	cr_assert_null(crt->next, "the leaf alone: the CA is not appended");
	cr_assert_eq(crt->version, 3);
	cr_assert_eq(crt->ca_istrue, 0);
	cr_assert_eq(crt->key_usage, MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
	cr_assert(has_server_auth(crt));
	cr_assert_eq(crt->ext_key_usage.next, NULL, "serverAuth only");
	/* exactly one SAN, the name */
	cr_assert_eq(crt->subject_alt_names.next, NULL);
	cr_assert_eq(crt->subject_alt_names.buf.tag, MBEDTLS_ASN1_CONTEXT_SPECIFIC | 2);
	cr_assert_eq(crt->subject_alt_names.buf.len, 11);
	cr_assert_eq(memcmp(crt->subject_alt_names.buf.p, "api.example", 11), 0);
	/* a 16-byte positive serial */
	cr_assert_eq(crt->serial.len, 16);
	cr_assert_eq(crt->serial.p[0] & 0xc0, 0x40);
	/* the key is the one handed out beside it */
	cr_assert_eq(mbedtls_pk_check_pair(&crt->pk, leaf.key), 0);

	mbedtls_x509_crt cacrt;
	parse_ca(ca, &cacrt);
	/* within the CA's validity */
	cr_assert_eq(to_time(&crt->valid_from), to_time(&cacrt.valid_from));
	cr_assert_eq(to_time(&crt->valid_to), to_time(&cacrt.valid_to));
	/* mbedtls verifies it, and checks the name against the SAN */
	uint32_t flags = 0;
	cr_assert_eq(mbedtls_x509_crt_verify(leaf.chain, &cacrt, NULL, "api.example", &flags, NULL,
					     NULL),
		     0, "flags %#x", flags);
	cr_assert_neq(mbedtls_x509_crt_verify(leaf.chain, &cacrt, NULL, "other.example", &flags,
					      NULL, NULL),
		      0);
	cr_assert(flags & MBEDTLS_X509_BADCERT_CN_MISMATCH);
	mbedtls_x509_crt_free(&cacrt);

	/* and OpenSSL, strictly, as a server certificate for that host */
	make_tmpdir();
	leaf_to_files(ca, &leaf);
	char out[4096];
	cr_assert_eq(openssl_verify("api.example", out, sizeof(out)), 0, "%s", out);
	cr_assert_not_null(strstr(out, "leaf.pem: OK"), "%s", out);
	cr_assert_neq(openssl_verify("other.example", out, sizeof(out)), 0, "%s", out);
	cr_assert_not_null(strstr(out, "hostname mismatch"), "%s", out);
	remove_tmpdir();
	tls_ca_destroy(ca);
}

Test(tls_ca, leaves_for_names_below_a_wildcard_and_for_addresses)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	static const char *const names[] = { "registry.example", "a.b.registry.example",
					     "192.0.2.7", "2001:db8::7" };
	make_tmpdir();
	for (size_t i = 0; i < N_ELEMS(names); i++) {
		struct tls_leaf leaf;
		cr_assert_eq(tls_ca_leaf(ca, names[i], &leaf), 0, "%s", names[i]);
		leaf_to_files(ca, &leaf);
		char out[4096];
		cr_assert_eq(openssl_verify(names[i], out, sizeof(out)), 0, "%s: %s", names[i], out);
	}
	/* an address leaf names the address, in an iPAddress SAN */
	struct tls_leaf v6;
	cr_assert_eq(tls_ca_leaf(ca, "2001:db8::7", &v6), 0);
	char out[16384];
	leaf_to_files(ca, &v6);
	const char *args[] = { "x509", "-in", "leaf.pem", "-noout", "-text", NULL };
	cr_assert_eq(openssl(out, sizeof(out), args), 0);
	cr_assert_not_null(strstr(out, "X509v3 Subject Alternative Name: \n"
				       "                IP Address:2001:DB8:0:0:0:0:0:7\n"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "X509v3 Extended Key Usage: \n"
				       "                TLS Web Server Authentication\n"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "X509v3 Key Usage: critical\n"
				       "                Digital Signature\n"),
			   "%s", out);
	cr_assert_not_null(strstr(out, "CA:FALSE"), "%s", out);
	cr_assert_not_null(strstr(out, "X509v3 Authority Key Identifier: \n"), "%s", out);
	cr_assert_not_null(strstr(out, "Subject: O = porta\n"), "no CN on an IP leaf: %s", out);
	remove_tmpdir();
	tls_ca_destroy(ca);
}

Test(tls_ca, refuses_names_it_does_not_permit)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	struct tls_leaf leaf = { NULL, NULL };
	static const char *const eperm[] = { "evil.example", "x.api.example", "example",
					     "evilregistry.example", "192.0.2.8", "2001:db8::8",
					     "::ffff:192.0.2.7", "*.registry.example" };
	for (size_t i = 0; i < N_ELEMS(eperm); i++)
		cr_assert_eq(tls_ca_leaf(ca, eperm[i], &leaf), -EPERM, "%s", eperm[i]);
	static const char *const einval[] = { "", "API.example", "api.example.", "*", "127.1",
					      "[2001:db8::7]" };
	for (size_t i = 0; i < N_ELEMS(einval); i++)
		cr_assert_eq(tls_ca_leaf(ca, einval[i], &leaf), -EINVAL, "%s", einval[i]);
	cr_assert_null(leaf.chain, "nothing handed out");
	cr_assert_eq(ca->n_leaves, 0, "nothing minted");
	tls_ca_destroy(ca);
}

Test(tls_ca, leaves_are_cached_per_name)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	struct tls_leaf a1, a2, b, v6a, v6b;
	cr_assert_eq(tls_ca_leaf(ca, "api.example", &a1), 0);
	cr_assert_eq(tls_ca_leaf(ca, "x.registry.example", &b), 0);
	cr_assert_eq(tls_ca_leaf(ca, "api.example", &a2), 0);
	cr_assert_eq(a1.chain, a2.chain, "the same object");
	cr_assert_eq(a1.key, a2.key);
	cr_assert_neq(a1.chain, b.chain);
	cr_assert_eq(a1.key, b.key, "one leaf key for the run");
	/* one address, two spellings: one leaf */
	cr_assert_eq(tls_ca_leaf(ca, "2001:db8::7", &v6a), 0);
	cr_assert_eq(tls_ca_leaf(ca, "2001:db8:0:0::7", &v6b), 0);
	cr_assert_eq(v6a.chain, v6b.chain);
	cr_assert_eq(ca->n_leaves, 3);
	/* pointers stay put while the cache grows */
	mbedtls_x509_crt *first = a1.chain;
	for (int i = 0; i < 20; i++) {
		char name[64];
		snprintf(name, sizeof(name), "n%d.registry.example", i);
		cr_assert_eq(tls_ca_leaf(ca, name, &b), 0);
	}
	cr_assert_eq(tls_ca_leaf(ca, "api.example", &a2), 0);
	cr_assert_eq(a2.chain, first);
	cr_assert_eq(a2.chain->raw.len, a1.chain->raw.len);
	tls_ca_destroy(ca);
}

Test(tls_ca, the_cache_is_bounded)
{
	static const char *const wild[] = { "*.registry.example" };
	struct tls_ca *ca = make_ca(wild, 1);
	struct tls_leaf leaf;
	char name[64];
	for (int i = 0; i < TLS_CA_LEAVES_MAX; i++) {
		snprintf(name, sizeof(name), "n%d.registry.example", i);
		cr_assert_eq(tls_ca_leaf(ca, name, &leaf), 0, "%s", name);
	}
	cr_assert_eq(tls_ca_leaf(ca, "one-more.registry.example", &leaf), -ENOSPC);
	/* the ones kept are still served */
	cr_assert_eq(tls_ca_leaf(ca, "n7.registry.example", &leaf), 0);
	tls_ca_destroy(ca);
}

/* ---- the security property, as clients see it ----------------------------- */

Test(tls_ca, a_leaf_outside_the_constraints_fails_openssl)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	make_tmpdir();
	char out[4096];
	/* the control: the same path, for a permitted name, verifies */
	cr_assert_eq(openssl_attacker(ca, "api.example", out, sizeof(out)), 0, "%s", out);
	static const char *const outside[] = { "evil.example", "example", "192.0.2.8",
					       "2001:db8::8", "198.51.100.1" };
	for (size_t i = 0; i < N_ELEMS(outside); i++) {
		cr_assert_neq(openssl_attacker(ca, outside[i], out, sizeof(out)), 0, "%s: %s",
			      outside[i], out);
		cr_assert_not_null(strstr(out, "permitted subtree violation"), "%s: %s",
				   outside[i], out);
	}
	/* RFC 5280's dNSName subtree covers the names below: so do clients */
	cr_assert_eq(openssl_attacker(ca, "x.api.example", out, sizeof(out)), 0, "%s", out);
	remove_tmpdir();
	tls_ca_destroy(ca);
}

Test(tls_ca, unused_name_forms_are_closed)
{
	static const char *const hosts[] = { "api.example" };
	static const char *const addrs[] = { "192.0.2.7" };
	struct tls_ca *h = make_ca(hosts, 1), *a = make_ca(addrs, 1);
	make_tmpdir();
	char out[4096];
	/* a CA for host names only signs for no address */
	static const char *const ips[] = { "198.51.100.1", "2001:db8::1" };
	for (size_t i = 0; i < N_ELEMS(ips); i++) {
		cr_assert_neq(openssl_attacker(h, ips[i], out, sizeof(out)), 0, "%s: %s", ips[i], out);
		cr_assert_not_null(strstr(out, "excluded subtree violation"), "%s: %s", ips[i], out);
	}
	/* a CA for addresses only signs for no host name */
	cr_assert_neq(openssl_attacker(a, "evil.example", out, sizeof(out)), 0, "%s", out);
	cr_assert_not_null(strstr(out, "excluded subtree violation"), "%s", out);
	/* controls: each CA's own name verifies */
	cr_assert_eq(openssl_attacker(h, "api.example", out, sizeof(out)), 0, "%s", out);
	cr_assert_eq(openssl_attacker(a, "192.0.2.7", out, sizeof(out)), 0, "%s", out);
	remove_tmpdir();
	tls_ca_destroy(h);
	tls_ca_destroy(a);
}

Test(tls_ca, mbedtls_parses_the_ca_only_with_a_callback_and_enforces_no_constraints)
{
	/* What porta's own TLS code may count on: mbedtls 2.28 refuses a
	 * certificate with a critical extension it does not implement, and
	 * nameConstraints is one; taken through a callback, it is then not
	 * enforced.  The CA's protection comes from the clients inside. */
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	size_t len;
	const uint8_t *der = tls_ca_der(ca, &len);
	mbedtls_x509_crt plain;
	mbedtls_x509_crt_init(&plain);
	int r = mbedtls_x509_crt_parse_der(&plain, der, len);
	cr_assert_eq(r, MBEDTLS_ERR_X509_INVALID_EXTENSIONS + MBEDTLS_ERR_ASN1_UNEXPECTED_TAG,
		     "-0x%04x", (unsigned)-r);
	mbedtls_x509_crt_free(&plain);

	mbedtls_x509_crt cacrt, evil;
	parse_ca(ca, &cacrt);
	uint8_t *edr;
	size_t elen;
	attacker_leaf(ca, "evil.example", &edr, &elen);
	mbedtls_x509_crt_init(&evil);
	cr_assert_eq(mbedtls_x509_crt_parse_der(&evil, edr, elen), 0);
	uint32_t flags = 0;
	cr_assert_eq(mbedtls_x509_crt_verify(&evil, &cacrt, NULL, "evil.example", &flags, NULL,
					     NULL),
		     0, "flags %#x", flags);
	free(edr);
	mbedtls_x509_crt_free(&evil);
	mbedtls_x509_crt_free(&cacrt);
	tls_ca_destroy(ca);
}

/* ---- a handshake ---------------------------------------------------------- */

/* Two one-way byte queues between an in-memory client and server. */
struct pipe_buf {
	unsigned char data[65536];
	size_t len;
};
struct end {
	struct pipe_buf *in, *out;
};

static int mem_send(void *ctx, const unsigned char *buf, size_t len)
{
	struct end *e = ctx;
	size_t room = sizeof(e->out->data) - e->out->len;
	if (room == 0)
		return MBEDTLS_ERR_SSL_WANT_WRITE;
	if (len > room)
		len = room;
	memcpy(e->out->data + e->out->len, buf, len);
	e->out->len += len;
	return (int)len;
}

static int mem_recv(void *ctx, unsigned char *buf, size_t len)
{
	struct end *e = ctx;
	if (e->in->len == 0)
		return MBEDTLS_ERR_SSL_WANT_READ;
	if (len > e->in->len)
		len = e->in->len;
	memcpy(buf, e->in->data, len);
	memmove(e->in->data, e->in->data + len, e->in->len - len);
	e->in->len -= len;
	return (int)len;
}

static int test_entropy(void *ctx, unsigned char *buf, size_t len)
{
	(void)ctx;
	return getrandom(buf, len, 0) == (ssize_t)len ? 0 : -1;
}

Test(tls_ca, a_leaf_serves_an_mbedtls_handshake)
{
	struct tls_ca *ca = make_ca(NAMES, N_ELEMS(NAMES));
	struct tls_leaf leaf;
	cr_assert_eq(tls_ca_leaf(ca, "api.example", &leaf), 0);
	mbedtls_x509_crt cacrt;
	parse_ca(ca, &cacrt);

	mbedtls_ctr_drbg_context drbg;
	mbedtls_ctr_drbg_init(&drbg);
	cr_assert_eq(mbedtls_ctr_drbg_seed(&drbg, test_entropy, NULL, NULL, 0), 0);
	mbedtls_ssl_config sconf, cconf;
	mbedtls_ssl_context server, client;
	mbedtls_ssl_config_init(&sconf);
	mbedtls_ssl_config_init(&cconf);
	mbedtls_ssl_init(&server);
	mbedtls_ssl_init(&client);
	cr_assert_eq(mbedtls_ssl_config_defaults(&sconf, MBEDTLS_SSL_IS_SERVER,
						 MBEDTLS_SSL_TRANSPORT_STREAM,
						 MBEDTLS_SSL_PRESET_DEFAULT),
		     0);
	cr_assert_eq(mbedtls_ssl_config_defaults(&cconf, MBEDTLS_SSL_IS_CLIENT,
						 MBEDTLS_SSL_TRANSPORT_STREAM,
						 MBEDTLS_SSL_PRESET_DEFAULT),
		     0);
	mbedtls_ssl_conf_rng(&sconf, mbedtls_ctr_drbg_random, &drbg);
	mbedtls_ssl_conf_rng(&cconf, mbedtls_ctr_drbg_random, &drbg);
	cr_assert_eq(mbedtls_ssl_conf_own_cert(&sconf, leaf.chain, leaf.key), 0);
	mbedtls_ssl_conf_authmode(&cconf, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(&cconf, &cacrt, NULL);
	cr_assert_eq(mbedtls_ssl_setup(&server, &sconf), 0);
	cr_assert_eq(mbedtls_ssl_setup(&client, &cconf), 0);
	cr_assert_eq(mbedtls_ssl_set_hostname(&client, "api.example"), 0);

	static struct pipe_buf c2s, s2c;
	c2s.len = s2c.len = 0;
	struct end cend = { &s2c, &c2s }, send_ = { &c2s, &s2c };
	mbedtls_ssl_set_bio(&client, &cend, mem_send, mem_recv, NULL);
	mbedtls_ssl_set_bio(&server, &send_, mem_send, mem_recv, NULL);
	int rc = 1, rs = 1;
	for (int round = 0; round < 100 && (rc != 0 || rs != 0); round++) {
		if (rc != 0) {
			rc = mbedtls_ssl_handshake(&client);
			cr_assert(rc == 0 || rc == MBEDTLS_ERR_SSL_WANT_READ ||
				  rc == MBEDTLS_ERR_SSL_WANT_WRITE, "client -0x%04x", (unsigned)-rc);
		}
		if (rs != 0) {
			rs = mbedtls_ssl_handshake(&server);
			cr_assert(rs == 0 || rs == MBEDTLS_ERR_SSL_WANT_READ ||
				  rs == MBEDTLS_ERR_SSL_WANT_WRITE, "server -0x%04x", (unsigned)-rs);
		}
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(rs, 0);
	cr_assert_eq(mbedtls_ssl_get_verify_result(&client), 0);
	const mbedtls_x509_crt *peer = mbedtls_ssl_get_peer_cert(&client);
	cr_assert_not_null(peer);
	cr_assert_null(peer->next, "the server sent the leaf alone");

	mbedtls_ssl_free(&client);
	mbedtls_ssl_free(&server);
	mbedtls_ssl_config_free(&cconf);
	mbedtls_ssl_config_free(&sconf);
	mbedtls_ctr_drbg_free(&drbg);
	mbedtls_x509_crt_free(&cacrt);
	tls_ca_destroy(ca);
}
