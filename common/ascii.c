/* common/ascii.c: see ascii.h. */
#include "common/ascii.h"

bool ascii_eq_nocase(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++) {
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return false;
	}
	return true;
}

bool ascii_eq_lit_nocase(const uint8_t *p, size_t n, const char *lit)
{
	size_t k;

	for (k = 0; k < n && lit[k]; k++) {
		if (ascii_lower(p[k]) != (uint8_t)lit[k])
			return false;
	}
	return k == n && lit[k] == '\0';
}

int ascii_hex_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool ascii_port_parse(const char *p, size_t n, uint16_t *port)
{
	unsigned v = 0;

	/* At most 5 digits, so v cannot overflow before the range check; a
	 * leading zero also refuses "0" itself. */
	if (n == 0 || n > 5 || p[0] == '0')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	if (v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}
