/* tests/fuzz/fuzz_name_constraints.c: the certificate-minting inputs
 * (tls/constraints.h).  The input is a buffer size (first two bytes) and a
 * list of names, one per line.  The nameConstraints DER is written into a
 * heap buffer of exactly that size (a write past it is an ASan report), and
 * when it is accepted it is read back with mbedtls' ASN.1 reader into exactly
 * the subtrees the names ask for, in order, with exactly the unused forms
 * excluded.  Every name the encoder takes is checked against this file's
 * own reading of the grammar (inet_pton(3) for addresses, a label walk for
 * host names), and every host name that reading takes the encoder takes too.
 * A refusal names the first name tls_name_parse() refuses; TOO_BIG happens
 * only when the DER is larger than the buffer.  Each accepted name's
 * subjectAltName is read back the same way, and the list permits it. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/asn1.h>

#include "tls/constraints.h"
#include "tests/fuzz/fuzz.h"

#define SEQ (MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE)
#define DNS (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 2)
#define IP (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7)

/* What a name should be, read without tls/ or policy/. */
struct expect {
	int kind; /* 0: refused, 4: IPv4, 6: IPv6, 'd': host name */
	uint8_t addr[16];
	const char *dns; /* host name without "*." */
	size_t dns_len;
};

static bool host_name(const char *s, size_t n)
{
	if (n == 0 || n > 253)
		return false;
	size_t label = 0;
	bool all_digits = true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			all_digits = true;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return false;
		if (!(c >= '0' && c <= '9'))
			all_digits = false;
		if (++label > 63)
			return false;
	}
	if (label == 0)
		return false; /* a trailing dot, or empty */
	/* the last label a number: decimal, or 0x and hex digits */
	const char *last = s + n - label;
	if (all_digits)
		return false;
	if (label >= 2 && last[0] == '0' && last[1] == 'x') {
		size_t k = 2;
		while (k < label && ((last[k] >= '0' && last[k] <= '9') ||
				     (last[k] >= 'a' && last[k] <= 'f')))
			k++;
		if (k == label)
			return false;
	}
	return true;
}

static struct expect expect_of(const char *s, size_t n)
{
	struct expect e = { 0 };
	char z[300];
	if (n < sizeof(z) && !memchr(s, '\0', n)) {
		memcpy(z, s, n);
		z[n] = '\0';
		if (inet_pton(AF_INET, z, e.addr) == 1) {
			e.kind = 4;
			return e;
		}
		if (inet_pton(AF_INET6, z, e.addr) == 1) {
			e.kind = 6;
			return e;
		}
	}
	if (n >= 2 && s[0] == '*' && s[1] == '.') {
		s += 2;
		n -= 2;
	}
	if (host_name(s, n)) {
		e.kind = 'd';
		e.dns = s;
		e.dns_len = n;
	}
	return e;
}

/* Reads one GeneralName at *p: its tag and bytes must be what e asks for
 * (with the all-ones mask after an address when `subtree`). */
static void read_general_name(unsigned char **p, const unsigned char *end,
			      const struct expect *e, bool subtree)
{
	size_t len;
	if (e->kind == 'd') {
		if (mbedtls_asn1_get_tag(p, end, &len, DNS) != 0 || len != e->dns_len ||
		    memcmp(*p, e->dns, len) != 0)
			abort();
	} else {
		size_t alen = e->kind == 4 ? 4 : 16;
		if (mbedtls_asn1_get_tag(p, end, &len, IP) != 0 || len != alen * (subtree ? 2 : 1) ||
		    memcmp(*p, e->addr, alen) != 0)
			abort();
		for (size_t i = alen; i < len; i++)
			if ((*p)[i] != 0xff)
				abort();
	}
	*p += len;
}

static void check_der(const uint8_t *der, size_t der_len, const struct expect *e, size_t n)
{
	unsigned char *p = (unsigned char *)der, *end = p + der_len;
	size_t len;
	bool have_dns = false, have_ip = false;
	if (mbedtls_asn1_get_tag(&p, end, &len, SEQ) != 0 || p + len != end)
		abort();
	if (mbedtls_asn1_get_tag(&p, end, &len,
				 MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 0) != 0)
		abort();
	unsigned char *permitted_end = p + len;
	for (size_t i = 0; i < n; i++) {
		if (mbedtls_asn1_get_tag(&p, permitted_end, &len, SEQ) != 0)
			abort();
		unsigned char *sub_end = p + len;
		read_general_name(&p, sub_end, &e[i], true);
		if (p != sub_end) /* no minimum, no maximum */
			abort();
		have_dns |= e[i].kind == 'd';
		have_ip |= e[i].kind != 'd';
	}
	if (p != permitted_end)
		abort();
	if (have_dns && have_ip) {
		if (p != end)
			abort();
		return;
	}
	if (mbedtls_asn1_get_tag(&p, end, &len,
				 MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 1) != 0 ||
	    p + len != end)
		abort();
	if (!have_ip) {
		static const uint8_t zeros[32];
		for (size_t alen = 8; alen <= 32; alen += 24) {
			if (mbedtls_asn1_get_tag(&p, end, &len, SEQ) != 0 || len != alen + 2 ||
			    mbedtls_asn1_get_tag(&p, end, &len, IP) != 0 || len != alen ||
			    memcmp(p, zeros, alen) != 0)
				abort();
			p += len;
		}
	}
	if (!have_dns) {
		if (mbedtls_asn1_get_tag(&p, end, &len, SEQ) != 0 || len != 2 ||
		    mbedtls_asn1_get_tag(&p, end, &len, DNS) != 0 || len != 0)
			abort();
	}
	if (p != end)
		abort();
}

static void check_san(const struct tls_name *name, const struct expect *e)
{
	uint8_t full[TLS_SAN_DER_MAX];
	size_t len = 0;
	enum tls_der_status st = tls_subject_alt_name_der(name, full, sizeof(full), &len);
	if (name->wildcard) {
		if (st != TLS_DER_BAD_NAME || len != 0)
			abort();
		return;
	}
	if (st != TLS_DER_OK || len == 0 || len > sizeof(full))
		abort();
	/* one byte short is refused, in an exact-size buffer */
	uint8_t *tight = malloc(len - 1 ? len - 1 : 1);
	size_t tight_len = 1;
	if (!tight || tls_subject_alt_name_der(name, tight, len - 1, &tight_len) != TLS_DER_TOO_BIG ||
	    tight_len != 0)
		abort();
	free(tight);
	unsigned char *p = full, *end = full + len;
	size_t seq;
	if (mbedtls_asn1_get_tag(&p, end, &seq, SEQ) != 0 || p + seq != end)
		abort();
	read_general_name(&p, end, e, false);
	if (p != end)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	/* the buffer's size: small ones most often, any up to the bound */
	size_t cap = ((size_t)data[0] << 8 | data[1]);
	cap = data[0] & 0x80 ? TLS_NC_DER_MAX : cap % 600;
	data += 2;
	size -= 2;

	struct tls_text names[TLS_NAMES_MAX + 2];
	struct expect want[TLS_NAMES_MAX + 2];
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= size && n < TLS_NAMES_MAX + 2; i++) {
		if (i == size || data[i] == '\n') {
			names[n].p = (const char *)data + start;
			names[n].n = i - start;
			want[n] = expect_of(names[n].p, names[n].n);
			n++;
			start = i + 1;
		}
	}

	uint8_t *buf = malloc(cap ? cap : 1);
	if (!buf)
		abort();
	size_t len = 7, bad = (size_t)-1;
	enum tls_name_status why = TLS_NAME_OK;
	enum tls_der_status st = tls_name_constraints_der(names, n, buf, cap, &len, &bad, &why);
	if (st != TLS_DER_OK && len != 0)
		abort();

	/* what each name is, to the encoder, beside this file's reading */
	size_t first_bad = n;
	for (size_t i = 0; i < n; i++) {
		struct tls_name parsed;
		enum tls_name_status ps = tls_name_parse(names[i].p, names[i].n, &parsed);
		if (ps == TLS_NAME_OK) {
			if (want[i].kind == 0 && parsed.kind != TLS_NAME_DNS)
				abort(); /* an address inet_pton(3) refuses */
			if (parsed.kind == TLS_NAME_DNS && want[i].kind != 'd')
				abort(); /* a host name the label walk refuses */
			if (parsed.kind == TLS_NAME_IPV4 &&
			    (want[i].kind != 4 || memcmp(parsed.addr.b, want[i].addr, 4)))
				abort();
			if (parsed.kind == TLS_NAME_IPV6 &&
			    (want[i].kind != 6 || memcmp(parsed.addr.b, want[i].addr, 16)))
				abort();
			check_san(&parsed, &want[i]);
			if (!parsed.wildcard && !tls_name_permits(&parsed, 1, &parsed))
				abort();
		} else {
			if (want[i].kind == 'd')
				abort(); /* a host name the encoder refuses */
			if (first_bad == n)
				first_bad = i;
		}
	}

	if (n > TLS_NAMES_MAX) {
		if (st != TLS_DER_TOO_MANY)
			abort();
	} else if (first_bad < n) {
		if (st != TLS_DER_BAD_NAME || bad != first_bad || why == TLS_NAME_OK)
			abort();
	} else if (st == TLS_DER_TOO_BIG) {
		/* only when it does not fit: the bound always does */
		uint8_t *big = malloc(TLS_NC_DER_MAX);
		size_t big_len = 0;
		if (!big || tls_name_constraints_der(names, n, big, TLS_NC_DER_MAX, &big_len, NULL,
						     NULL) != TLS_DER_OK ||
		    big_len <= cap)
			abort();
		free(big);
	} else {
		if (st != TLS_DER_OK || len == 0 || len > cap)
			abort();
		check_der(buf, len, want, n);
	}
	free(buf);
	return 0;
}
