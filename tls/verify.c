/* tls/verify.c: see verify.h.  Pure: formats what mbedtls reported. */
#include "tls/verify.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509.h>

#include "common/log.h"

/* Names listed before "and N more": a certificate for hundreds of names
 * (a CDN's) is summarised, not dumped into a 502 body. */
#define NAMES_SHOWN 4

/* An output cursor: appends until the buffer is full, then drops the rest
 * and keeps the NUL, so every caller can append blindly. */
struct out {
	char *p;
	size_t cap;
	size_t n;
};

static void out_init(struct out *o, char *p, size_t cap)
{
	o->p = p;
	o->cap = cap;
	o->n = 0;
	if (cap > 0)
		p[0] = '\0';
}

static void out_raw(struct out *o, const char *s, size_t len)
{
	if (o->cap == 0)
		return;
	size_t room = o->cap - 1 - o->n;
	if (len > room)
		len = room;
	memcpy(o->p + o->n, s, len);
	o->n += len;
	o->p[o->n] = '\0';
}

static void out_str(struct out *o, const char *s)
{
	out_raw(o, s, strlen(s));
}

/* Appends n bytes the peer chose, escaped (docs/style.md §11). */
static void out_escaped(struct out *o, const char *s, size_t n)
{
	char esc[4 * 256 + 1];
	if (n > 256)
		n = 256; /* a DNS name has at most 253 bytes; more is cut */
	log_escape(s, n, esc, sizeof(esc));
	out_str(o, esc);
}

static void out_fmt(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_fmt(struct out *o, const char *fmt, ...)
{
	char tmp[160];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (k > 0)
		out_raw(o, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

/* One subjectAltName entry, if it is a name a TLS client compares with the
 * host: dNSName [2] or iPAddress [7] (RFC 5280 §4.2.1.6).  mbedtls 2.28
 * keeps every entry's raw value with its context-specific tag. */
static bool out_san(struct out *o, const mbedtls_x509_buf *san)
{
	int type = san->tag & MBEDTLS_ASN1_TAG_VALUE_MASK;
	if (!(san->tag & MBEDTLS_ASN1_CONTEXT_SPECIFIC))
		return false;
	if (type == MBEDTLS_X509_SAN_DNS_NAME) {
		out_escaped(o, (const char *)san->p, san->len);
		return true;
	}
	if (type == MBEDTLS_X509_SAN_IP_ADDRESS && (san->len == 4 || san->len == 16)) {
		char a[INET6_ADDRSTRLEN];
		if (!inet_ntop(san->len == 4 ? AF_INET : AF_INET6, san->p, a, sizeof(a)))
			return false;
		out_str(o, a);
		return true;
	}
	return false;
}

size_t tls_leaf_names(const mbedtls_x509_crt *leaf, char *out, size_t cap)
{
	struct out o;
	size_t shown = 0, more = 0;

	out_init(&o, out, cap);
	if (leaf == NULL)
		return 0;
	if (leaf->ext_types & MBEDTLS_X509_EXT_SUBJECT_ALT_NAME) {
		/* RFC 6125 §6.4.4: with a subjectAltName present, the CN is not
		 * consulted (mbedtls' x509_crt_verify_name() agrees). */
		for (const mbedtls_x509_sequence *s = &leaf->subject_alt_names; s; s = s->next) {
			if (s->buf.p == NULL)
				continue;
			if (shown >= NAMES_SHOWN) {
				int type = s->buf.tag & MBEDTLS_ASN1_TAG_VALUE_MASK;
				more += type == MBEDTLS_X509_SAN_DNS_NAME ||
					type == MBEDTLS_X509_SAN_IP_ADDRESS;
				continue;
			}
			size_t mark = o.n;
			if (shown > 0)
				out_str(&o, ", ");
			if (out_san(&o, &s->buf)) {
				shown++;
			} else {
				o.n = mark; /* not a host name: undo the separator */
				if (cap > 0)
					out[mark] = '\0';
			}
		}
	} else {
		for (const mbedtls_x509_name *n = &leaf->subject; n; n = n->next) {
			if (n->oid.p == NULL || MBEDTLS_OID_CMP(MBEDTLS_OID_AT_CN, &n->oid) != 0)
				continue;
			if (shown >= NAMES_SHOWN) {
				more++;
				continue;
			}
			if (shown > 0)
				out_str(&o, ", ");
			out_escaped(&o, (const char *)n->val.p, n->val.len);
			shown++;
		}
	}
	if (more > 0)
		out_fmt(&o, " and %zu more", more);
	return o.n;
}

const char *tls_alert_name(int alert)
{
	/* RFC 5246 §7.2, RFC 6066 §3 (unrecognized_name), RFC 7301 §3.2
	 * (no_application_protocol), RFC 7507 (inappropriate_fallback). */
	switch (alert) {
	case 0: return "close_notify";
	case 10: return "unexpected_message";
	case 20: return "bad_record_mac";
	case 22: return "record_overflow";
	case 40: return "handshake_failure";
	case 42: return "bad_certificate";
	case 43: return "unsupported_certificate";
	case 44: return "certificate_revoked";
	case 45: return "certificate_expired";
	case 46: return "certificate_unknown";
	case 47: return "illegal_parameter";
	case 48: return "unknown_ca";
	case 49: return "access_denied";
	case 50: return "decode_error";
	case 51: return "decrypt_error";
	case 70: return "protocol_version";
	case 71: return "insufficient_security";
	case 80: return "internal_error";
	case 86: return "inappropriate_fallback";
	case 90: return "user_canceled";
	case 100: return "no_renegotiation";
	case 109: return "missing_extension";
	case 110: return "unsupported_extension";
	case 112: return "unrecognized_name";
	case 116: return "certificate_required";
	case 120: return "no_application_protocol";
	default: return NULL;
	}
}

/* The alerts with which a client says it does not accept the certificate it
 * was shown (RFC 5246 §7.2). */
static bool alert_is_about_certificate(int alert)
{
	return alert == 42 || alert == 43 || alert == 44 || alert == 45 || alert == 46 ||
	       alert == 48;
}

static void out_sep(struct out *o, size_t start)
{
	if (o->n > start)
		out_str(o, "; ");
}

/* The verification flags, most useful first, joined with "; ". */
static void out_flags(struct out *o, const struct tls_failure *f)
{
	uint32_t fl = f->verify_flags;
	size_t start = o->n;

	if (fl & MBEDTLS_X509_BADCERT_MISSING)
		out_str(o, "the server sent no certificate");
	if (fl & MBEDTLS_X509_BADCERT_NOT_TRUSTED) {
		out_sep(o, start);
		out_str(o, "unknown certificate authority");
	}
	if (fl & MBEDTLS_X509_BADCERT_EXPIRED) {
		out_sep(o, start);
		out_str(o, "certificate expired");
	}
	if (fl & MBEDTLS_X509_BADCERT_FUTURE) {
		out_sep(o, start);
		out_str(o, "certificate not yet valid");
	}
	if (fl & MBEDTLS_X509_BADCERT_CN_MISMATCH) {
		out_sep(o, start);
		if (f->names[0] != '\0') {
			out_str(o, "certificate is for ");
			out_str(o, f->names); /* tls_leaf_names() escaped it */
		} else {
			out_str(o, "certificate names no host");
		}
		out_str(o, ", not ");
		out_escaped(o, f->host, strnlen(f->host, sizeof(f->host)));
	}
	if (fl & MBEDTLS_X509_BADCERT_REVOKED) {
		out_sep(o, start);
		out_str(o, "certificate revoked");
	}
	if (fl & (MBEDTLS_X509_BADCERT_BAD_MD | MBEDTLS_X509_BADCERT_BAD_PK |
		  MBEDTLS_X509_BADCERT_BAD_KEY)) {
		out_sep(o, start);
		out_str(o, "certificate uses a weak signature hash or key");
	}
	if (fl & (MBEDTLS_X509_BADCERT_KEY_USAGE | MBEDTLS_X509_BADCERT_EXT_KEY_USAGE |
		  MBEDTLS_X509_BADCERT_NS_CERT_TYPE)) {
		out_sep(o, start);
		out_str(o, "certificate is not for a TLS server");
	}
	if (o->n == start)
		out_fmt(o, "certificate verification failed (flags 0x%x)", (unsigned)fl);
}

static void out_alert(struct out *o, const struct tls_failure *f)
{
	const char *name = tls_alert_name(f->alert);
	char num[16];
	if (name == NULL) {
		snprintf(num, sizeof(num), "%d", f->alert);
		name = num;
	}
	if (f->facing_client && alert_is_about_certificate(f->alert)) {
		out_str(o, "the client refused porta's certificate for ");
		out_escaped(o, f->host, strnlen(f->host, sizeof(f->host)));
		out_str(o, " (alert ");
		out_str(o, name);
		out_str(o, "): it pins its certificates or uses its own trust store");
		return;
	}
	out_str(o, f->facing_client ? "the client ended the handshake (alert "
				    : "the server refused the handshake (alert ");
	out_str(o, name);
	out_str(o, ")");
}

size_t tls_failure_reason(const struct tls_failure *f, char *out, size_t cap)
{
	struct out o;
	out_init(&o, out, cap);

	if (f->verify_flags != 0 && f->verify_flags != MBEDTLS_X509_BADCERT_SKIP_VERIFY &&
	    (f->err == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED || f->err == 0)) {
		out_flags(&o, f);
		return o.n;
	}
	/* Without SNI porta has no certificate, so mbedtls finds no usable
	 * suite (ssl_pick_cert()); a hello refused earlier (its version) was
	 * refused before its server_name was read, and says so below. */
	if (f->facing_client && f->no_sni &&
	    (f->err == MBEDTLS_ERR_SSL_NO_CIPHER_CHOSEN ||
	     f->err == MBEDTLS_ERR_SSL_NO_USABLE_CIPHERSUITE)) {
		out_str(&o, "the client sent no server name (SNI)");
		return o.n;
	}
	if (f->facing_client && f->unknown_name) {
		out_str(&o, "porta has no certificate for ");
		out_escaped(&o, f->host, strnlen(f->host, sizeof(f->host)));
		return o.n;
	}
	switch (f->err) {
	case MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE:
		out_alert(&o, f);
		break;
	case MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION:
		out_str(&o, "no TLS version in common (porta speaks TLS 1.2)");
		break;
	case MBEDTLS_ERR_SSL_NO_CIPHER_CHOSEN:
	case MBEDTLS_ERR_SSL_NO_USABLE_CIPHERSUITE:
		out_str(&o, "no cipher suite in common (porta offers TLS 1.2 with ECDHE and "
			    "AES-GCM or ChaCha20-Poly1305)");
		break;
	case MBEDTLS_ERR_SSL_CONN_EOF:
		out_str(&o, "the connection was closed during the handshake");
		break;
	case MBEDTLS_ERR_NET_CONN_RESET:
		out_str(&o, "the connection was reset");
		break;
	case MBEDTLS_ERR_SSL_INVALID_RECORD:
	case MBEDTLS_ERR_SSL_UNEXPECTED_RECORD:
	case MBEDTLS_ERR_SSL_UNEXPECTED_MESSAGE:
	case MBEDTLS_ERR_SSL_INVALID_MAC:
		out_str(&o, "the peer does not speak TLS, or sent a malformed record");
		break;
	case MBEDTLS_ERR_SSL_BAD_HS_CLIENT_HELLO:
		out_str(&o, "porta cannot accept the client's hello (no shared protocol "
			    "version, cipher suite or application protocol)");
		break;
	case MBEDTLS_ERR_SSL_BAD_HS_SERVER_HELLO:
		out_str(&o, "porta cannot accept the server's hello (no shared protocol "
			    "version, cipher suite or application protocol)");
		break;
	default: {
		char words[128];
		mbedtls_strerror(f->err, words, sizeof(words));
		out_fmt(&o, "TLS error -0x%04x (", (unsigned)-f->err);
		out_escaped(&o, words, strlen(words));
		out_str(&o, ")");
		break;
	}
	}
	return o.n;
}
