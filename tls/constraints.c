/* tls/constraints.c: names to GeneralNames, and the nameConstraints and
 * subjectAltName extensions that carry them (tls/constraints.h).
 *
 * The DER is written with mbedtls' ASN.1 writer, which writes backwards from
 * the end of the buffer and refuses (MBEDTLS_ERR_ASN1_BUF_TOO_SMALL) any
 * write that would pass its start, so the bound is the writer's own; the
 * result is moved to the front at the end.  The ASN.1 module of RFC 5280
 * (Appendix A.2) is IMPLICIT TAGS: a context tag replaces the tag of what
 * it labels, so a dNSName is [2] over the IA5String's bytes, an iPAddress
 * [7] over the OCTET STRING's, and permittedSubtrees [0] constructed over
 * the SEQUENCE OF's content.
 */
#include "tls/constraints.h"

#include <string.h>

#include <mbedtls/asn1.h>
#include <mbedtls/asn1write.h>

#include "policy/addr.h"

#define TAG_SEQUENCE (MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE)
#define TAG_DNS_NAME (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 2)
#define TAG_IP_ADDRESS (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7)
#define TAG_PERMITTED (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 0)
#define TAG_EXCLUDED (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_ASN1_CONSTRUCTED | 1)

/* An ASN.1 writer whose failure sticks, as wire/cursor.h's reader's does:
 * every step after the first refused write does nothing. */
struct der_writer {
	unsigned char *p;     /* first byte written so far */
	unsigned char *start; /* the buffer's start: nothing is written below */
	bool failed;
};

/* Adds r (a byte count, or a negative mbedtls error) to *total. */
static void der_add(struct der_writer *w, int r, size_t *total)
{
	if (w->failed)
		return;
	if (r < 0) {
		w->failed = true;
		return;
	}
	*total += (size_t)r;
}

static void der_raw(struct der_writer *w, const void *bytes, size_t n, size_t *total)
{
	if (!w->failed)
		der_add(w, mbedtls_asn1_write_raw_buffer(&w->p, w->start, bytes, n), total);
}

/* Prefixes the `content` bytes just written with their tag and length. */
static void der_wrap(struct der_writer *w, unsigned char tag, size_t content, size_t *total)
{
	if (w->failed)
		return;
	der_add(w, mbedtls_asn1_write_len(&w->p, w->start, content), total);
	if (!w->failed)
		der_add(w, mbedtls_asn1_write_tag(&w->p, w->start, tag), total);
}

enum tls_name_status tls_name_parse(const char *s, size_t n, struct tls_name *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return TLS_NAME_EMPTY;
	if (n == 1 && s[0] == '*')
		return TLS_NAME_ANY;
	if (memchr(s, ':', n)) {
		if (policy_addr_parse_ipv6(s, n, &out->addr) != POLICY_ADDR_OK)
			return TLS_NAME_MALFORMED;
		out->kind = TLS_NAME_IPV6;
		return TLS_NAME_OK;
	}
	if (policy_addr_parse_ipv4(s, n, &out->addr) == POLICY_ADDR_OK) {
		out->kind = TLS_NAME_IPV4;
		return TLS_NAME_OK;
	}
	if (n >= 2 && s[0] == '*' && s[1] == '.') {
		out->wildcard = true;
		s += 2;
		n -= 2;
		if (n == 0)
			return TLS_NAME_EMPTY;
	}
	if (n > POLICY_NAME_MAX)
		return TLS_NAME_TOO_LONG;
	size_t len = 0;
	switch (policy_name_canonical((const uint8_t *)s, n, out->dns, &len)) {
	case POLICY_NAME_OK:
		break;
	case POLICY_NAME_NUMERIC:
	case POLICY_NAME_MALFORMED:
		return TLS_NAME_MALFORMED;
	}
	/* Canonicalising may have lowercased or dropped a trailing dot: the
	 * caller's spelling must already be the one that is signed. */
	if (len != n || memcmp(out->dns, s, n) != 0)
		return TLS_NAME_NOT_CANONICAL;
	out->kind = TLS_NAME_DNS;
	out->dns_len = len;
	return TLS_NAME_OK;
}

static size_t addr_len(const struct tls_name *name)
{
	return name->kind == TLS_NAME_IPV4 ? 4 : 16;
}

bool tls_name_permits(const struct tls_name *list, size_t n, const struct tls_name *name)
{
	if (name->wildcard)
		return false; /* leaves are minted for the name a client asked for */
	for (size_t i = 0; i < n; i++) {
		const struct tls_name *e = &list[i];
		if (e->kind != name->kind)
			continue;
		if (e->kind != TLS_NAME_DNS) {
			if (memcmp(e->addr.b, name->addr.b, addr_len(e)) == 0)
				return true;
			continue;
		}
		if (!e->wildcard) {
			if (strcmp(e->dns, name->dns) == 0)
				return true;
			continue;
		}
		/* policy/'s own matcher, so "*." means here what it means in a
		 * rule: the name and every name below, never evilexample.com */
		char pattern[POLICY_NAME_MAX + 3] = "*.";
		memcpy(pattern + 2, e->dns, e->dns_len + 1);
		if (policy_name_matches(pattern, name->dns))
			return true;
	}
	return false;
}

/* One GeneralName: a dNSName, or an iPAddress with (subtree) or without
 * (subjectAltName) its all-ones mask. */
static void der_general_name(struct der_writer *w, const struct tls_name *name, bool subtree,
			     size_t *total)
{
	static const uint8_t ones[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t content = 0;
	if (name->kind == TLS_NAME_DNS) {
		der_raw(w, name->dns, name->dns_len, &content);
		der_wrap(w, TAG_DNS_NAME, content, &content);
	} else {
		size_t alen = addr_len(name);
		if (subtree) /* RFC 5280 4.2.1.10: address, then mask */
			der_raw(w, ones, alen, &content);
		der_raw(w, name->addr.b, alen, &content);
		der_wrap(w, TAG_IP_ADDRESS, content, &content);
	}
	*total += content;
}

/* GeneralSubtree ::= SEQUENCE { base, minimum [0] DEFAULT 0, maximum [1]
 * OPTIONAL }: DER leaves the default out, and RFC 5280 forbids maximum. */
static void der_subtree(struct der_writer *w, const struct tls_name *name, size_t *total)
{
	size_t content = 0;
	der_general_name(w, name, true, &content);
	der_wrap(w, TAG_SEQUENCE, content, &content);
	*total += content;
}

/* excludedSubtrees for the forms the permitted list leaves open (see the
 * header): IPv4 0.0.0.0/0, IPv6 ::/0, and the empty dNSName. */
static void der_excluded(struct der_writer *w, bool have_dns, bool have_ip, size_t *total)
{
	static const uint8_t zeros[32] = { 0 };
	size_t content = 0;
	if (!have_ip) {
		size_t sub = 0, gn = 0;
		der_raw(w, zeros, 32, &gn);
		der_wrap(w, TAG_IP_ADDRESS, gn, &gn);
		sub += gn;
		der_wrap(w, TAG_SEQUENCE, sub, &sub);
		content += sub;
		sub = gn = 0;
		der_raw(w, zeros, 8, &gn);
		der_wrap(w, TAG_IP_ADDRESS, gn, &gn);
		sub += gn;
		der_wrap(w, TAG_SEQUENCE, sub, &sub);
		content += sub;
	}
	if (!have_dns) {
		size_t sub = 0;
		der_wrap(w, TAG_DNS_NAME, 0, &sub);
		der_wrap(w, TAG_SEQUENCE, sub, &sub);
		content += sub;
	}
	der_wrap(w, TAG_EXCLUDED, content, &content);
	*total += content;
}

/* Moves the DER the writer left at buf[cap - total .. cap) to the front. */
static enum tls_der_status der_finish(struct der_writer *w, uint8_t *buf, size_t total,
				      size_t *len)
{
	if (w->failed)
		return TLS_DER_TOO_BIG;
	memmove(buf, w->p, total);
	*len = total;
	return TLS_DER_OK;
}

enum tls_der_status tls_name_constraints_der(const struct tls_text *names, size_t n,
					     uint8_t *buf, size_t cap, size_t *len,
					     size_t *bad, enum tls_name_status *why)
{
	*len = 0;
	if (n == 0)
		return TLS_DER_NO_NAMES;
	if (n > TLS_NAMES_MAX)
		return TLS_DER_TOO_MANY;

	/* Every name is judged before a byte is written, so a refusal names
	 * the first bad one whatever the buffer's size. */
	bool have_dns = false, have_ip = false;
	for (size_t i = 0; i < n; i++) {
		struct tls_name name;
		enum tls_name_status st = tls_name_parse(names[i].p, names[i].n, &name);
		if (st != TLS_NAME_OK) {
			if (bad)
				*bad = i;
			if (why)
				*why = st;
			return TLS_DER_BAD_NAME;
		}
		if (name.kind == TLS_NAME_DNS)
			have_dns = true;
		else
			have_ip = true;
	}

	struct der_writer w = { .p = buf + cap, .start = buf, .failed = false };
	size_t total = 0, permitted = 0;
	if (!have_dns || !have_ip)
		der_excluded(&w, have_dns, have_ip, &total);
	/* backwards, so the subtrees come out in the order given */
	for (size_t i = n; i-- > 0 && !w.failed;) {
		struct tls_name name;
		(void)tls_name_parse(names[i].p, names[i].n, &name);
		der_subtree(&w, &name, &permitted);
	}
	der_wrap(&w, TAG_PERMITTED, permitted, &permitted);
	total += permitted;
	der_wrap(&w, TAG_SEQUENCE, total, &total);
	return der_finish(&w, buf, total, len);
}

enum tls_der_status tls_subject_alt_name_der(const struct tls_name *name, uint8_t *buf,
					     size_t cap, size_t *len)
{
	*len = 0;
	if (name->wildcard)
		return TLS_DER_BAD_NAME;
	struct der_writer w = { .p = buf + cap, .start = buf, .failed = false };
	size_t total = 0;
	der_general_name(&w, name, false, &total);
	der_wrap(&w, TAG_SEQUENCE, total, &total);
	return der_finish(&w, buf, total, len);
}
