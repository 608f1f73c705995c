/* policy/portset.h: a set of TCP/UDP port numbers, as a 65536-bit bitmap.
 *
 * ARCHITECTURE: the ports some network rule names (plus porta's own
 * listeners: DNS on 53, the proxy front ends), computed once from the policy
 * when porta starts and then only read.  The supervisor's connect watch
 * (supervisor/watch.c) answers a connect(2) to a port outside the set
 * with ECONNREFUSED at once; the set never allows anything by itself.  It is
 * pure data in policy/ because it is a function of the rules alone: a plain
 * value struct (8 KiB, no allocation), copyable, no syscalls.  The set does
 * not tell TCP from UDP: a port is in it for both.
 */
#ifndef PORTA_POLICY_PORTSET_H
#define PORTA_POLICY_PORTSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_PORT_SET_WORDS (65536 / 64)

/* A plain value: zero-initialised ({ 0 } or policy_port_set_clear()) it is
 * empty.  Bit p of the set is bit (p % 64) of words[p / 64]. */
struct policy_port_set {
	uint64_t words[POLICY_PORT_SET_WORDS];
};

/* Empties *s.  Pure. */
void policy_port_set_clear(struct policy_port_set *s);

/* Adds port to *s (0 included: the set is of numbers; rules never name 0).
 * Pure. */
void policy_port_set_add(struct policy_port_set *s, uint16_t port);

/* Adds every port of [lo, hi] to *s.  Returns false, adding nothing, when
 * lo > hi.  Pure. */
bool policy_port_set_add_range(struct policy_port_set *s, uint16_t lo, uint16_t hi);

/* Removes port from *s.  Pure. */
void policy_port_set_remove(struct policy_port_set *s, uint16_t port);

/* True when port is in *s.  Pure; any thread may call it on a set no one
 * writes. */
bool policy_port_set_has(const struct policy_port_set *s, uint16_t port);

/* The number of ports in *s, 0..65536.  Pure. */
size_t policy_port_set_count(const struct policy_port_set *s);

#endif /* PORTA_POLICY_PORTSET_H */
