/* policy/addr.c: see addr.h. */
#include "policy/addr.h"

#include <stdio.h>
#include <string.h>

#include "common/ascii.h"

enum policy_addr_status policy_addr_parse_ipv4(const char *s, size_t n, struct policy_addr *out)
{
	uint8_t b[4];
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t start = i;
		unsigned v = 0;
		if (part > 0) {
			if (i >= n || s[i] != '.')
				return POLICY_ADDR_MALFORMED;
			start = ++i;
		}
		while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 3) {
			v = v * 10 + (unsigned)(s[i] - '0');
			i++;
		}
		/* 1..3 digits, no leading zero (inet_aton would read octal), <= 255 */
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return POLICY_ADDR_MALFORMED;
		b[part] = (uint8_t)v;
	}
	if (i != n)
		return POLICY_ADDR_MALFORMED;
	memset(out, 0, sizeof(*out));
	out->family = POLICY_ADDR_V4;
	memcpy(out->b, b, 4);
	return POLICY_ADDR_OK;
}

/* One inet_aton(3) part (glibc resolv/inet_addr.c): 0x/0X hex (digits may be
 * absent: "0x" is 0, as in glibc and the WHATWG parser), leading 0 octal (an
 * 8 or 9 is an error), else decimal.  Values above 2^32-1 are refused. */
static bool loose_part(const char *s, size_t n, uint64_t *v)
{
	size_t i = 0;
	unsigned base = 10;

	if (n == 0)
		return false;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (s[0] == '0') {
		base = 8;
		i = 1;
	}
	*v = 0;
	for (; i < n; i++) {
		int d = ascii_hex_value((uint8_t)s[i]);
		if (d < 0 || (unsigned)d >= base)
			return false;
		*v = *v * base + (unsigned)d;
		if (*v > 0xffffffffu)
			return false;
	}
	return true;
}

enum policy_addr_status policy_addr_parse_loose_ipv4(const char *s, size_t n,
						     struct policy_addr *out)
{
	uint64_t parts[4];
	size_t np = 0, start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (np == 4 || !loose_part(s + start, i - start, &parts[np]))
			return POLICY_ADDR_MALFORMED;
		np++;
		start = i + 1;
	}
	/* a.b.c.d; a.b.c16; a.b24; a32 (inet_aton(3), "Description") */
	uint64_t v = 0;
	for (size_t k = 0; k + 1 < np; k++) {
		if (parts[k] > 255)
			return POLICY_ADDR_MALFORMED;
		v |= parts[k] << (8 * (3 - k));
	}
	unsigned last_bits = 8 * (unsigned)(5 - np);
	if (last_bits < 32 && parts[np - 1] >> last_bits)
		return POLICY_ADDR_MALFORMED;
	v |= parts[np - 1];
	memset(out, 0, sizeof(*out));
	out->family = POLICY_ADDR_V4;
	out->b[0] = (uint8_t)(v >> 24);
	out->b[1] = (uint8_t)(v >> 16);
	out->b[2] = (uint8_t)(v >> 8);
	out->b[3] = (uint8_t)v;
	return POLICY_ADDR_OK;
}

enum policy_addr_status policy_addr_parse_ipv6(const char *s, size_t n, struct policy_addr *out)
{
	uint16_t g[8];
	int count = 0, dcolon = -1;
	size_t i = 0;

	if (memchr(s, '%', n))
		return POLICY_ADDR_ZONE_ID;
	if (n < 2)
		return POLICY_ADDR_MALFORMED;
	if (s[0] == ':') {
		if (s[1] != ':')
			return POLICY_ADDR_MALFORMED;
		dcolon = 0;
		i = 2;
	}
	while (i < n) {
		size_t start = i;
		unsigned v = 0;
		while (i < n && i - start < 5 && ascii_hex_value((uint8_t)s[i]) >= 0) {
			v = v * 16 + (unsigned)ascii_hex_value((uint8_t)s[i]);
			i++;
		}
		if (i < n && s[i] == '.') {
			/* an embedded dotted quad ends the address (RFC 4291 2.2 (3)) */
			struct policy_addr v4;
			if (count > 6 || policy_addr_parse_ipv4(s + start, n - start, &v4) !=
						 POLICY_ADDR_OK)
				return POLICY_ADDR_MALFORMED;
			g[count++] = (uint16_t)(v4.b[0] << 8 | v4.b[1]);
			g[count++] = (uint16_t)(v4.b[2] << 8 | v4.b[3]);
			i = n;
			break;
		}
		if (i == start || i - start > 4 || count == 8)
			return POLICY_ADDR_MALFORMED;
		g[count++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i] != ':')
			return POLICY_ADDR_MALFORMED;
		if (i + 1 < n && s[i + 1] == ':') {
			if (dcolon >= 0)
				return POLICY_ADDR_MALFORMED;
			dcolon = count;
			i += 2;
		} else {
			i++;
			if (i == n)
				return POLICY_ADDR_MALFORMED; /* a trailing single ':' */
		}
	}
	if (dcolon >= 0 ? count > 7 : count != 8)
		return POLICY_ADDR_MALFORMED;
	memset(out, 0, sizeof(*out));
	out->family = POLICY_ADDR_V6;
	int head = dcolon >= 0 ? dcolon : count;
	for (int k = 0; k < head; k++) {
		out->b[2 * k] = (uint8_t)(g[k] >> 8);
		out->b[2 * k + 1] = (uint8_t)g[k];
	}
	for (int k = head; k < count; k++) {
		int pos = 8 - (count - k);
		out->b[2 * pos] = (uint8_t)(g[k] >> 8);
		out->b[2 * pos + 1] = (uint8_t)g[k];
	}
	return POLICY_ADDR_OK;
}

enum policy_addr_status policy_addr_parse(const char *s, size_t n, struct policy_addr *out)
{
	if (memchr(s, ':', n) || memchr(s, '%', n))
		return policy_addr_parse_ipv6(s, n, out);
	return policy_addr_parse_ipv4(s, n, out);
}

static bool host_bits_zero(const struct policy_addr *a, unsigned prefix)
{
	unsigned total = a->family == POLICY_ADDR_V4 ? 32 : 128;
	for (unsigned bit = prefix; bit < total; bit++)
		if (a->b[bit / 8] & (0x80u >> (bit % 8)))
			return false;
	return true;
}

enum policy_addr_status policy_cidr_parse(const char *s, size_t n, struct policy_cidr *out)
{
	const char *slash = memchr(s, '/', n);
	struct policy_addr a;
	enum policy_addr_status st;

	if (!slash)
		return POLICY_ADDR_MALFORMED;
	st = policy_addr_parse(s, (size_t)(slash - s), &a);
	if (st != POLICY_ADDR_OK)
		return st;
	const char *p = slash + 1;
	size_t pl = n - (size_t)(p - s);
	unsigned max = a.family == POLICY_ADDR_V4 ? 32 : 128, v = 0;
	if (pl == 0 || pl > 3 || (p[0] == '0' && pl > 1))
		return POLICY_ADDR_MALFORMED;
	for (size_t i = 0; i < pl; i++) {
		if (p[i] < '0' || p[i] > '9')
			return POLICY_ADDR_MALFORMED;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v > max)
		return POLICY_ADDR_MALFORMED;
	if (!host_bits_zero(&a, v))
		return POLICY_ADDR_HOST_BITS;
	out->addr = a;
	out->prefix = v;
	return POLICY_ADDR_OK;
}

bool policy_cidr_contains(const struct policy_cidr *c, const struct policy_addr *a)
{
	if (c->addr.family != a->family)
		return false;
	unsigned full = c->prefix / 8, rest = c->prefix % 8;
	if (memcmp(c->addr.b, a->b, full) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff00u >> rest);
	return (c->addr.b[full] & mask) == (a->b[full] & mask);
}

bool policy_addr_equal(const struct policy_addr *a, const struct policy_addr *b)
{
	size_t len = a->family == POLICY_ADDR_V4 ? 4 : 16;
	return a->family == b->family && memcmp(a->b, b->b, len) == 0;
}

static const uint8_t mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

struct policy_addr policy_addr_unmap(const struct policy_addr *a)
{
	struct policy_addr r = *a;
	if (a->family == POLICY_ADDR_V6 && memcmp(a->b, mapped_prefix, 12) == 0) {
		memset(&r, 0, sizeof(r));
		r.family = POLICY_ADDR_V4;
		memcpy(r.b, a->b + 12, 4);
	}
	return r;
}

char *policy_addr_format(const struct policy_addr *a, char out[POLICY_ADDR_STRLEN])
{
	if (a->family == POLICY_ADDR_V4) {
		snprintf(out, POLICY_ADDR_STRLEN, "%u.%u.%u.%u", a->b[0], a->b[1], a->b[2], a->b[3]);
		return out;
	}
	if (memcmp(a->b, mapped_prefix, 12) == 0) {
		snprintf(out, POLICY_ADDR_STRLEN, "::ffff:%u.%u.%u.%u", a->b[12], a->b[13], a->b[14],
			 a->b[15]);
		return out;
	}
	unsigned g[8];
	for (int k = 0; k < 8; k++)
		g[k] = (unsigned)a->b[2 * k] << 8 | a->b[2 * k + 1];
	/* RFC 5952 4.2: the longest run (the first of equal ones) of two or
	 * more zero groups becomes "::" */
	int best = -1, best_len = 1;
	for (int k = 0; k < 8;) {
		int e = k;
		while (e < 8 && g[e] == 0)
			e++;
		if (e - k > best_len) {
			best = k;
			best_len = e - k;
		}
		k = e > k ? e : k + 1;
	}
	size_t o = 0;
	for (int k = 0; k < 8; k++) {
		if (k == best) {
			o += (size_t)snprintf(out + o, POLICY_ADDR_STRLEN - o, "::");
			k += best_len - 1;
			continue;
		}
		o += (size_t)snprintf(out + o, POLICY_ADDR_STRLEN - o, "%s%x",
				      (k == 0 || k == best + best_len) ? "" : ":", g[k]);
	}
	return out;
}

/* How restrictive a class is, to pick one when an address embeds several:
 * any non-public class beats public; the order among the others only
 * chooses which name the audit shows. */
static int rank(enum policy_addr_class c)
{
	switch (c) {
	case POLICY_ADDR_PUBLIC: return 0;
	case POLICY_ADDR_RESERVED: return 1;
	case POLICY_ADDR_MULTICAST: return 2;
	case POLICY_ADDR_BROADCAST: return 3;
	case POLICY_ADDR_CGNAT: return 4;
	case POLICY_ADDR_PRIVATE: return 5;
	case POLICY_ADDR_LINK_LOCAL: return 6;
	case POLICY_ADDR_HOST: return 7;
	case POLICY_ADDR_UNSPECIFIED: return 8;
	case POLICY_ADDR_LOOPBACK: return 9;
	case POLICY_ADDR_METADATA: return 10;
	}
	return 10;
}

static enum policy_addr_class worse(enum policy_addr_class a, enum policy_addr_class b)
{
	return rank(a) >= rank(b) ? a : b;
}

static enum policy_addr_class class4(const uint8_t b[4])
{
	static const uint8_t metadata[][4] = {
		{ 169, 254, 169, 254 }, /* AWS, GCP, Azure IMDS, OpenStack, ... */
		{ 100, 100, 100, 200 }, /* Alibaba Cloud */
		{ 168, 63, 129, 16 },   /* Azure WireServer: otherwise a public address */
		{ 192, 0, 0, 192 },     /* Oracle Cloud */
	};
	for (size_t k = 0; k < sizeof(metadata) / sizeof(metadata[0]); k++)
		if (memcmp(b, metadata[k], 4) == 0)
			return POLICY_ADDR_METADATA;
	if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255)
		return POLICY_ADDR_BROADCAST;
	if (b[0] == 0)
		return (b[1] | b[2] | b[3]) == 0 ? POLICY_ADDR_UNSPECIFIED : POLICY_ADDR_RESERVED;
	if (b[0] == 127)
		return POLICY_ADDR_LOOPBACK;
	if (b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168))
		return POLICY_ADDR_PRIVATE;
	if (b[0] == 100 && (b[1] & 0xc0) == 64)
		return POLICY_ADDR_CGNAT;
	if (b[0] == 169 && b[1] == 254)
		return POLICY_ADDR_LINK_LOCAL;
	if (b[0] == 192 && b[1] == 0 && b[2] == 0)
		return POLICY_ADDR_RESERVED; /* IETF protocol assignments, RFC 6890 */
	if ((b[0] & 0xf0) == 224)
		return POLICY_ADDR_MULTICAST;
	if ((b[0] & 0xf0) == 240)
		return POLICY_ADDR_RESERVED;
	return POLICY_ADDR_PUBLIC;
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

#define MAX_EMBEDDED 6

/* Every IPv4 address the IPv6 address b may carry to a translator or tunnel
 * (see addr.h); returns how many were written to v4[]. */
static size_t embedded_v4(const uint8_t b[16], uint8_t v4[MAX_EMBEDDED][4])
{
	size_t n = 0;

	if (zero(b, 10) && b[10] == 0xff && b[11] == 0xff) {
		memcpy(v4[n++], b + 12, 4); /* ::ffff:0:0/96, mapped */
	} else if (zero(b, 12)) {
		memcpy(v4[n++], b + 12, 4); /* ::/96, compatible (RFC 4291 2.5.5.1) */
	} else if (zero(b, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0) {
		memcpy(v4[n++], b + 12, 4); /* ::ffff:0:0:0/96, SIIT (RFC 2765) */
	} else if (b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) {
		if (zero(b + 4, 8)) {
			memcpy(v4[n++], b + 12, 4); /* 64:ff9b::/96 (RFC 6052) */
		} else if (b[4] == 0 && b[5] == 1) {
			/* 64:ff9b:1::/48 (RFC 8215), prefix length unknown: every
			 * RFC 6052 2.2 position that fits under it (bits 64..71
			 * are the reserved "u" octet). */
			uint8_t p48[4] = { b[6], b[7], b[9], b[10] };
			uint8_t p56[4] = { b[7], b[9], b[10], b[11] };
			memcpy(v4[n++], p48, 4);
			memcpy(v4[n++], p56, 4);
			memcpy(v4[n++], b + 9, 4);  /* /64 */
			memcpy(v4[n++], b + 12, 4); /* /96 */
		}
	} else if (b[0] == 0x20 && b[1] == 0x02) {
		memcpy(v4[n++], b + 2, 4); /* 2002::/16, 6to4 (RFC 3056) */
	} else if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
		/* 2001::/32, Teredo (RFC 4380 4): server, then the client's
		 * address stored inverted */
		memcpy(v4[n++], b + 4, 4);
		for (int k = 0; k < 4; k++)
			v4[n][k] = (uint8_t)~b[12 + k];
		n++;
	}
	return n;
}

static enum policy_addr_class class6(const uint8_t b[16])
{
	static const uint8_t ec2_metadata[16] = { 0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0,
						  0,    0, 0,    0,    0, 0, 0x02, 0x54 };
	if (zero(b, 16))
		return POLICY_ADDR_UNSPECIFIED;
	if (zero(b, 15) && b[15] == 1)
		return POLICY_ADDR_LOOPBACK;
	if (memcmp(b, ec2_metadata, 16) == 0)
		return POLICY_ADDR_METADATA;
	if (b[0] == 0xff)
		return POLICY_ADDR_MULTICAST;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return POLICY_ADDR_LINK_LOCAL;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
		return POLICY_ADDR_PRIVATE; /* site-local, deprecated (RFC 3879) */
	if ((b[0] & 0xfe) == 0xfc)
		return POLICY_ADDR_PRIVATE; /* unique local (RFC 4193) */

	uint8_t v4[MAX_EMBEDDED][4];
	size_t n = embedded_v4(b, v4);
	enum policy_addr_class c = POLICY_ADDR_PUBLIC;
	for (size_t k = 0; k < n; k++)
		c = worse(c, class4(v4[k]));
	return c;
}

enum policy_addr_class policy_addr_class(const struct policy_addr *a)
{
	if (a->family == POLICY_ADDR_V4)
		return class4(a->b);
	if (a->family == POLICY_ADDR_V6)
		return class6(a->b);
	return POLICY_ADDR_RESERVED; /* not an address: deny */
}

enum policy_addr_class policy_addr_class_on_host(const struct policy_addr *a,
						 const struct policy_addr *host, size_t n_host)
{
	enum policy_addr_class c = policy_addr_class(a);
	if (c != POLICY_ADDR_PUBLIC)
		return c;

	struct policy_addr self = policy_addr_unmap(a);
	uint8_t v4[MAX_EMBEDDED][4];
	size_t n_v4 = self.family == POLICY_ADDR_V6 ? embedded_v4(self.b, v4) : 0;
	for (size_t h = 0; h < n_host; h++) {
		struct policy_addr ha = policy_addr_unmap(&host[h]);
		if (policy_addr_equal(&ha, &self))
			return POLICY_ADDR_HOST;
		for (size_t k = 0; ha.family == POLICY_ADDR_V4 && k < n_v4; k++)
			if (memcmp(ha.b, v4[k], 4) == 0)
				return POLICY_ADDR_HOST;
	}
	return POLICY_ADDR_PUBLIC;
}

bool policy_addr_default_denied(const struct policy_addr *a)
{
	return policy_addr_class(a) != POLICY_ADDR_PUBLIC;
}

const char *policy_addr_class_name(enum policy_addr_class c)
{
	switch (c) {
	case POLICY_ADDR_PUBLIC: return "public";
	case POLICY_ADDR_UNSPECIFIED: return "unspecified";
	case POLICY_ADDR_LOOPBACK: return "loopback";
	case POLICY_ADDR_PRIVATE: return "private";
	case POLICY_ADDR_CGNAT: return "cgnat";
	case POLICY_ADDR_LINK_LOCAL: return "link-local";
	case POLICY_ADDR_METADATA: return "metadata";
	case POLICY_ADDR_MULTICAST: return "multicast";
	case POLICY_ADDR_RESERVED: return "reserved";
	case POLICY_ADDR_BROADCAST: return "broadcast";
	case POLICY_ADDR_HOST: return "host";
	}
	return "reserved";
}
