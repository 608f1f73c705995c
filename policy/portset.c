/* policy/portset.c: the port bitmap.  Pure. */
#include "policy/portset.h"

#include <string.h>

void policy_port_set_clear(struct policy_port_set *s)
{
	memset(s->words, 0, sizeof(s->words));
}

void policy_port_set_add(struct policy_port_set *s, uint16_t port)
{
	s->words[port / 64] |= 1ULL << (port % 64);
}

bool policy_port_set_add_range(struct policy_port_set *s, uint16_t lo, uint16_t hi)
{
	if (lo > hi)
		return false;
	/* Unsigned counter: hi may be 65535, where a uint16_t would wrap. */
	for (unsigned p = lo; p <= hi; p++)
		policy_port_set_add(s, (uint16_t)p);
	return true;
}

void policy_port_set_remove(struct policy_port_set *s, uint16_t port)
{
	s->words[port / 64] &= ~(1ULL << (port % 64));
}

bool policy_port_set_has(const struct policy_port_set *s, uint16_t port)
{
	return (s->words[port / 64] >> (port % 64)) & 1;
}

size_t policy_port_set_count(const struct policy_port_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < POLICY_PORT_SET_WORDS; i++)
		n += (size_t)__builtin_popcountll(s->words[i]);
	return n;
}
