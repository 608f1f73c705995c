/* common/ascii.h: the few ASCII text helpers every parser needs once.
 *
 * ARCHITECTURE: pure functions over bytes (no locale: <ctype.h> depends on
 * it and is undefined for negative plain chars), shared by policy/ (ports in
 * rules, hex in /proc/net/unix and IPv6 text) and wire/ (HTTP, DNS names,
 * resolv.conf), which may both use common/ only.  No state; any thread.
 */
#ifndef PORTA_COMMON_ASCII_H
#define PORTA_COMMON_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* c with 'A'..'Z' mapped to 'a'..'z'; every other byte unchanged. */
static inline uint8_t ascii_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* True when a[0..an) and b[0..bn) are the same bytes ignoring ASCII case
 * (RFC 4343 for DNS names, RFC 9110 §5.1 for field names).  Bytes outside
 * 'A'..'Z' compare exactly. */
bool ascii_eq_nocase(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

/* True when p[0..n) is the NUL-terminated lowercase literal lit, ignoring the
 * ASCII case of p only: lit must be lowercase ("host", "chunked"). */
bool ascii_eq_lit_nocase(const uint8_t *p, size_t n, const char *lit);

/* The value 0..15 of one hex digit (either case), or -1 for any other byte. */
int ascii_hex_value(uint8_t c);

/* A TCP or UDP port in p[0..n): 1..5 decimal digits, no leading zero, no
 * sign, no blank, value 1..65535.  "0", "0443", "+1", " 1", "" and "65536"
 * are all refused (a port with a leading zero is octal to some parsers).
 * true and *port set, or false and *port untouched. */
bool ascii_port_parse(const char *p, size_t n, uint16_t *port);

#endif /* PORTA_COMMON_ASCII_H */
