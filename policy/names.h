/* policy/names.h: host names as the network policy compares them.
 *
 * ARCHITECTURE: pure functions (docs/design.md, Network): no syscalls, no globals,
 * no allocation, no logging.  Every comparison porta makes between a name a
 * program showed (DNS QNAME, TLS SNI, HTTP Host, CONNECT or SOCKS target) and
 * a rule is made between two canonical names produced here, and the canonical
 * buffer that was checked is the one that is resolved.  Callable from any
 * thread: no state.
 */
#ifndef PORTA_POLICY_NAMES_H
#define PORTA_POLICY_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_NAME_MAX 253   /* bytes of a canonical name, without the NUL */
#define POLICY_LABEL_MAX 63   /* bytes of one label (RFC 1035 2.3.4) */

enum policy_name_status {
	POLICY_NAME_OK,        /* out holds a canonical host name */
	POLICY_NAME_NUMERIC,   /* syntactically a name, but its last label is a
				* number (127.1, 2130706433, 0x7f000001,
				* 0177.0.0.1, 1.2.3.4): an IP literal in
				* disguise, never a name.  out holds the
				* lowercased text; policy_addr_parse_loose()
				* says which address, if any, it spells. */
	POLICY_NAME_MALFORMED, /* anything else: denied */
};

/* Canonicalises in[0..len) into out (NUL-terminated, *out_len bytes without
 * the NUL).  Accepted: dot-separated labels of ASCII letters, digits, '-' and
 * '_', each 1..63 bytes, at most 253 bytes in all; letters are lowercased and
 * one trailing dot is removed.  Anything else is POLICY_NAME_MALFORMED: an
 * empty input, a lone ".", an empty label (".a", "a..b", "a.."), NUL, '%',
 * spaces, any byte >= 0x80 (UTF-8 look-alikes are refused rather than
 * converted: the user writes punycode, which is plain ASCII).
 *
 * A name whose last label is all decimal digits, or "0x" followed by hex
 * digits, is POLICY_NAME_NUMERIC: the WHATWG URL host parser's "ends in a
 * number" rule, and what inet_aton(3) will take as an address; no top-level
 * domain is numeric (RFC 3696 section 2).
 *
 * On POLICY_NAME_MALFORMED the content of out is unspecified (but it is
 * always NUL-terminated).  in may contain any bytes; out may not overlap in. */
enum policy_name_status policy_name_canonical(const uint8_t *in, size_t len,
					      char out[POLICY_NAME_MAX + 1], size_t *out_len);

/* True when the canonical name matches the canonical pattern:
 *   "*"              any name;
 *   "*.example.com"  example.com itself and every name below it (a match
 *                    ends at a label boundary: never evilexample.com);
 *   anything else    exactly that name.
 * Both are NUL-terminated canonical strings (policy_name_canonical, and for
 * a pattern the part after "*." canonicalised the same way).  Pure. */
bool policy_name_matches(const char *pattern, const char *name);

enum policy_name_reserved {
	POLICY_NAME_NOT_RESERVED,
	POLICY_NAME_LOCALHOST, /* localhost and every name under it (RFC 6761 6.3) */
	POLICY_NAME_METADATA,  /* cloud metadata endpoints: metadata.google.internal,
				* metadata.azure.internal (docs/defaults.md) */
};

/* Says whether a canonical name is one that no host name rule may reach
 * (they resolve to loopback or metadata addresses by convention, whatever DNS
 * says).  Pure. */
enum policy_name_reserved policy_name_reserved(const char *name);

#endif /* PORTA_POLICY_NAMES_H */
