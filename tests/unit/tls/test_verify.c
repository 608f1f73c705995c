/* tests/unit/tls/test_verify.c: the words tls/verify.h gives for a failed
 * handshake, one test per class of failure, the escaping of names the peer
 * chose, and a truncation sweep (every cap gives a prefix, NUL-terminated). */
#include <criterion/criterion.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tls/verify.h"

static struct tls_failure upstream(const char *host, int err, uint32_t flags)
{
	struct tls_failure f = {.err = err, .verify_flags = flags, .alert = -1};
	snprintf(f.host, sizeof(f.host), "%s", host);
	return f;
}

static void expect(const struct tls_failure *f, const char *want)
{
	char out[TLS_REASON_MAX];
	size_t n = tls_failure_reason(f, out, sizeof(out));
	cr_assert_str_eq(out, want);
	cr_assert_eq(n, strlen(want));
}

#define VERIFY MBEDTLS_ERR_X509_CERT_VERIFY_FAILED

Test(verify, flags_name_the_cause)
{
	static const struct {
		uint32_t flags;
		const char *want;
	} v[] = {
		{MBEDTLS_X509_BADCERT_NOT_TRUSTED, "unknown certificate authority"},
		{MBEDTLS_X509_BADCERT_EXPIRED, "certificate expired"},
		{MBEDTLS_X509_BADCERT_FUTURE, "certificate not yet valid"},
		{MBEDTLS_X509_BADCERT_REVOKED, "certificate revoked"},
		{MBEDTLS_X509_BADCERT_MISSING, "the server sent no certificate"},
		{MBEDTLS_X509_BADCERT_BAD_MD, "certificate uses a weak signature hash or key"},
		{MBEDTLS_X509_BADCERT_EXT_KEY_USAGE, "certificate is not for a TLS server"},
		{MBEDTLS_X509_BADCERT_NOT_TRUSTED | MBEDTLS_X509_BADCERT_EXPIRED,
		 "unknown certificate authority; certificate expired"},
		{MBEDTLS_X509_BADCERT_OTHER, "certificate verification failed (flags 0x100)"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tls_failure f = upstream("api.example", VERIFY, v[i].flags);
		expect(&f, v[i].want);
	}
}

Test(verify, name_mismatch_lists_the_names)
{
	struct tls_failure f = upstream("api.example", VERIFY, MBEDTLS_X509_BADCERT_CN_MISMATCH);
	snprintf(f.names, sizeof(f.names), "other.example, www.other.example");
	expect(&f, "certificate is for other.example, www.other.example, not api.example");
	f.names[0] = '\0';
	expect(&f, "certificate names no host, not api.example");
}

Test(verify, host_is_escaped)
{
	struct tls_failure f = upstream("a\"b\n.example", VERIFY, MBEDTLS_X509_BADCERT_CN_MISMATCH);
	snprintf(f.names, sizeof(f.names), "x.example");
	expect(&f, "certificate is for x.example, not a\\\"b\\x0a.example");
}

Test(verify, alerts_from_the_client_name_porta_certificate)
{
	struct tls_failure f = {.err = MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE, .alert = 48,
				.facing_client = true};
	snprintf(f.host, sizeof(f.host), "api.example");
	expect(&f, "the client refused porta's certificate for api.example (alert unknown_ca): "
		   "it pins its certificates or uses its own trust store");
	f.alert = 40;
	expect(&f, "the client ended the handshake (alert handshake_failure)");
	f.alert = 200;
	expect(&f, "the client ended the handshake (alert 200)");
}

Test(verify, alerts_from_the_server)
{
	struct tls_failure f = upstream("api.example", MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE, 0);
	f.alert = 112;
	expect(&f, "the server refused the handshake (alert unrecognized_name)");
	f.alert = 70;
	expect(&f, "the server refused the handshake (alert protocol_version)");
}

Test(verify, client_side_failures)
{
	struct tls_failure f = {.err = MBEDTLS_ERR_SSL_NO_CIPHER_CHOSEN, .alert = -1,
				.facing_client = true, .no_sni = true};
	expect(&f, "the client sent no server name (SNI)");
	f.no_sni = false;
	f.unknown_name = true;
	snprintf(f.host, sizeof(f.host), "nope.example");
	f.err = MBEDTLS_ERR_SSL_BAD_HS_CLIENT_HELLO;
	expect(&f, "porta has no certificate for nope.example");
	/* A hello refused for its version was refused before its SNI was read. */
	f.no_sni = true;
	f.unknown_name = false;
	f.err = MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION;
	expect(&f, "no TLS version in common (porta speaks TLS 1.2)");
	/* A client that hangs up is reported as that, SNI or not. */
	f.no_sni = true;
	f.unknown_name = false;
	f.err = MBEDTLS_ERR_SSL_CONN_EOF;
	expect(&f, "the connection was closed during the handshake");
}

Test(verify, error_codes)
{
	static const struct {
		int err;
		const char *want;
	} v[] = {
		{MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION,
		 "no TLS version in common (porta speaks TLS 1.2)"},
		{MBEDTLS_ERR_SSL_NO_USABLE_CIPHERSUITE,
		 "no cipher suite in common (porta offers TLS 1.2 with ECDHE and AES-GCM or "
		 "ChaCha20-Poly1305)"},
		{MBEDTLS_ERR_SSL_CONN_EOF, "the connection was closed during the handshake"},
		{MBEDTLS_ERR_NET_CONN_RESET, "the connection was reset"},
		{MBEDTLS_ERR_SSL_INVALID_RECORD,
		 "the peer does not speak TLS, or sent a malformed record"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct tls_failure f = upstream("api.example", v[i].err, 0);
		expect(&f, v[i].want);
	}
	char out[TLS_REASON_MAX];
	struct tls_failure f = upstream("api.example", MBEDTLS_ERR_SSL_ALLOC_FAILED, 0);
	tls_failure_reason(&f, out, sizeof(out));
	cr_assert(strncmp(out, "TLS error -0x7f00 (", 19) == 0, "%s", out);
}

/* Every cap gives the same reason cut to cap - 1 bytes, NUL-terminated, and
 * never a byte written past cap. */
Test(verify, truncation_sweep)
{
	struct tls_failure f = upstream("api.example", VERIFY,
					MBEDTLS_X509_BADCERT_NOT_TRUSTED |
						MBEDTLS_X509_BADCERT_CN_MISMATCH);
	snprintf(f.names, sizeof(f.names), "other.example");
	char full[TLS_REASON_MAX];
	size_t len = tls_failure_reason(&f, full, sizeof(full));
	cr_assert_gt(len, 40);
	for (size_t cap = 0; cap <= len + 1; cap++) {
		char out[TLS_REASON_MAX + 1];
		memset(out, 'Z', sizeof(out));
		size_t n = tls_failure_reason(&f, out, cap);
		size_t want = cap == 0 ? 0 : (cap - 1 < len ? cap - 1 : len);
		cr_assert_eq(n, want, "cap %zu", cap);
		if (cap > 0) {
			cr_assert_eq(out[n], '\0');
			cr_assert(memcmp(out, full, n) == 0);
		}
		cr_assert_eq(out[cap], 'Z', "wrote past cap %zu", cap);
	}
}

/* ---- tls_leaf_names: certificates made by openssl at test time ---- */

static void make_cert(const char *dir, const char *name, const char *subj, const char *san)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
		 "-keyout %s.key -out %s.crt -subj '%s' -days 1 %s%s%s 2>/dev/null",
		 dir, name, name, subj, san ? "-addext 'subjectAltName=" : "", san ? san : "",
		 san ? "'" : "");
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static size_t names_of(const char *dir, const char *name, char *out, size_t cap)
{
	char path[512];
	mbedtls_x509_crt crt;
	mbedtls_x509_crt_init(&crt);
	snprintf(path, sizeof(path), "%s/%s.crt", dir, name);
	cr_assert_eq(mbedtls_x509_crt_parse_file(&crt, path), 0);
	size_t n = tls_leaf_names(&crt, out, cap);
	mbedtls_x509_crt_free(&crt);
	return n;
}

Test(verify, leaf_names)
{
	char dir[] = "/tmp/porta-tls-names-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	make_cert(dir, "many", "/CN=ignored.example",
		  "DNS:a.example,IP:192.0.2.1,email:x@y.example,DNS:b.example,IP:2001:db8::1,"
		  "DNS:c.example,DNS:d.example,DNS:e.example");
	make_cert(dir, "cn", "/CN=cn-only.example", NULL);
	make_cert(dir, "odd", "/CN=x", "DNS:we\\\"ird.example,DNS:tab\tx.example");

	char out[TLS_NAMES_MAX];
	names_of(dir, "many", out, sizeof(out));
	cr_assert_str_eq(out, "a.example, 192.0.2.1, b.example, 2001:db8::1 and 3 more");
	names_of(dir, "cn", out, sizeof(out));
	cr_assert_str_eq(out, "cn-only.example");
	names_of(dir, "odd", out, sizeof(out));
	cr_assert_str_eq(out, "we\\\"ird.example, tab\\x09x.example");
	/* Cut, never overrun. */
	cr_assert_eq(names_of(dir, "many", out, 5), 4);
	cr_assert_str_eq(out, "a.ex");
	cr_assert_eq(tls_leaf_names(NULL, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "");

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
