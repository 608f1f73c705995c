/* policy/addr.h: IP addresses, CIDR blocks and the address classes no host
 * name rule may reach (docs/design.md, Network; docs/defaults.md).
 *
 * ARCHITECTURE: pure values and functions: no syscalls, no globals, no
 * allocation.  An address is a plain value (struct policy_addr) in network
 * byte order, so sockaddr glue in netproxy/ and dns/ copies bytes in and out.
 * The host's own addresses are a run-time set the caller gathers (getifaddrs
 * in the glue) and passes in; nothing here asks the kernel.  Callable from
 * any thread: no state.
 */
#ifndef PORTA_POLICY_ADDR_H
#define PORTA_POLICY_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/addr.h" /* struct policy_addr, enum policy_addr_family */

/* A CIDR block; an exact address is a block of prefix 32 or 128.  Host bits
 * below prefix are zero in every block the parsers return. */
struct policy_cidr {
	struct policy_addr addr;
	unsigned prefix;
};

/* Longest text policy_addr_format() writes, with its NUL
 * ("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255" is 45 bytes). */
#define POLICY_ADDR_STRLEN 46

enum policy_addr_status {
	POLICY_ADDR_OK,
	POLICY_ADDR_MALFORMED, /* not an address of the form asked for */
	POLICY_ADDR_ZONE_ID,   /* an IPv6 zone ("fe80::1%eth0"): refused, a rule
				* cannot name an interface of the host */
	POLICY_ADDR_HOST_BITS, /* CIDR with bits set below the prefix
				* ("10.0.0.1/8"): refused rather than guessed */
};

/* Strict IPv4 "A.B.C.D": four decimal parts 0..255, no leading zeros (a
 * leading zero is octal to inet_aton(3): "010" is 8), no sign, nothing else.
 * This is the only IPv4 spelling a rule may use. */
enum policy_addr_status policy_addr_parse_ipv4(const char *s, size_t n, struct policy_addr *out);

/* Every IPv4 spelling inet_aton(3) accepts, as the address it means: one to
 * four parts, each decimal, octal (leading 0) or hex (0x, either case); the
 * last part fills the remaining bytes ("127.1" is 127.0.0.1, "2130706433" and
 * "0x7f000001" are 127.0.0.1, "0177.0.0.1" is 127.0.0.1).  Used to see what
 * a name that is an IP literal in disguise (POLICY_NAME_NUMERIC) reaches.
 * Unlike glibc it takes no trailing bytes after the last part. */
enum policy_addr_status policy_addr_parse_loose_ipv4(const char *s, size_t n,
						     struct policy_addr *out);

/* IPv6 text of RFC 4291 2.2: eight groups of 1..4 hex digits, one "::"
 * standing for one or more zero groups, an optional strict dotted-quad IPv4
 * in the last 32 bits ("::ffff:1.2.3.4").  No brackets; a zone ("%...") is
 * POLICY_ADDR_ZONE_ID. */
enum policy_addr_status policy_addr_parse_ipv6(const char *s, size_t n, struct policy_addr *out);

/* Strict IPv4 or IPv6, whichever s is (a ':' means IPv6). */
enum policy_addr_status policy_addr_parse(const char *s, size_t n, struct policy_addr *out);

/* "ADDR/PREFIX" with ADDR strict IPv4 or IPv6 (no brackets) and PREFIX
 * decimal without leading zeros, 0..32 or 0..128.  Host bits must be zero. */
enum policy_addr_status policy_cidr_parse(const char *s, size_t n, struct policy_cidr *out);

/* True when a lies inside c (same family; see policy_addr_unmap()). */
bool policy_cidr_contains(const struct policy_cidr *c, const struct policy_addr *a);

/* True when a and b are the same family and bytes. */
bool policy_addr_equal(const struct policy_addr *a, const struct policy_addr *b);

/* The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) stands for,
 * otherwise a itself: a dual-stack socket reports an IPv4 peer that way, and
 * it is the same destination.  Other IPv4-in-IPv6 forms are different
 * destinations (translators) and are only judged, never unmapped. */
struct policy_addr policy_addr_unmap(const struct policy_addr *a);

/* Writes a as text (dotted quad, or RFC 5952 IPv6: lowercase, the longest
 * run of two or more zero groups as "::", mapped addresses as ::ffff:a.b.c.d)
 * into out; returns out. */
char *policy_addr_format(const struct policy_addr *a, char out[POLICY_ADDR_STRLEN]);

/* Address classes, docs/defaults.md "Address classes no hostname rule
 * reaches".  Only POLICY_ADDR_PUBLIC may be reached through a name rule. */
enum policy_addr_class {
	POLICY_ADDR_PUBLIC,
	POLICY_ADDR_UNSPECIFIED, /* 0.0.0.0, :: */
	POLICY_ADDR_LOOPBACK,    /* 127/8, ::1 */
	POLICY_ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10 */
	POLICY_ADDR_CGNAT,       /* 100.64/10 */
	POLICY_ADDR_LINK_LOCAL,  /* 169.254/16, fe80::/10 */
	POLICY_ADDR_METADATA,    /* 169.254.169.254, 100.100.100.200, 168.63.129.16,
				  * 192.0.0.192, fd00:ec2::254 */
	POLICY_ADDR_MULTICAST,   /* 224/4, ff00::/8 */
	POLICY_ADDR_RESERVED,    /* 0/8, 192.0.0.0/24, 240/4 */
	POLICY_ADDR_BROADCAST,   /* 255.255.255.255 */
	POLICY_ADDR_HOST,        /* one of the host's own addresses (run-time set) */
};

/* The class of a.  IPv4-in-IPv6 forms are judged by every IPv4 address they
 * embed and the most restrictive class wins: ::ffff:0:0/96 (mapped),
 * ::/96 (compatible; :: and ::1 are themselves), ::ffff:0:0:0/96 (SIIT),
 * 64:ff9b::/96 (NAT64), 64:ff9b:1::/48 (local NAT64, RFC 8215: every RFC
 * 6052 position, since the prefix length in use is not known), 2002::/16
 * (6to4, bits 16..47) and 2001::/32 (Teredo: the server, bits 32..63, and
 * the client, the last 32 bits inverted).  Pure. */
enum policy_addr_class policy_addr_class(const struct policy_addr *a);

/* policy_addr_class(), and POLICY_ADDR_HOST when a, or any IPv4 address it
 * embeds, is one of host[0..n_host) (the host's interface addresses, as the
 * caller gathered them; IPv4-mapped entries are unmapped first).  A class
 * other than PUBLIC is returned as it is.  host may be NULL when n_host is 0. */
enum policy_addr_class policy_addr_class_on_host(const struct policy_addr *a,
						 const struct policy_addr *host, size_t n_host);

/* True for every class but POLICY_ADDR_PUBLIC (an explicit IP or CIDR rule
 * is then the only way to reach a). */
bool policy_addr_default_denied(const struct policy_addr *a);

/* A short fixed name for a class ("loopback", "metadata", ...), for reasons
 * and audit records.  Never NULL. */
const char *policy_addr_class_name(enum policy_addr_class c);

#endif /* PORTA_POLICY_ADDR_H */
