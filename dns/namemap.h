/* dns/namemap.h: which allowed names porta's own resolver answered with which
 * addresses, and until when.
 *
 * ARCHITECTURE (docs/design.md, Network): "a connection without SNI or Host is
 * allowed only by that DNS mapping or by an IP/CIDR rule".  The responder
 * adds every address it hands out for an allowed name; the transparent path
 * asks, for the address a program dialled, which allowed names porta's
 * answers gave it, and decides each name against the rules again (with the
 * port).  An address no answer of porta's gave maps to nothing.
 *
 * A fixed-size table allocated once: at most `cap` (name, address) pairs;
 * when it is full the pair that expires first is replaced (expired pairs
 * first), so a flood of answers can neither grow porta nor keep a stale pair
 * alive.  Forgetting a pair only ever refuses a connection (fails closed).
 * Time is passed in (milliseconds of CLOCK_MONOTONIC in porta): no syscalls,
 * no logging, no event loop, so it is tested with vectors.  Not thread-safe:
 * the supervisor's loop thread owns it.  IPv4-mapped IPv6 addresses are kept
 * and looked up as their IPv4 address (a dual-stack listener sees IPv4 peers
 * that way: policy_addr_unmap()).
 */
#ifndef PORTA_DNS_NAMEMAP_H
#define PORTA_DNS_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"
#include "policy/names.h"

#define DNSD_NAMEMAP_DEFAULT_CAP 8192

struct dnsd_namemap;

/* One name an address was handed out for, as dnsd_namemap_lookup() copies it. */
struct dnsd_namemap_name {
	char name[POLICY_NAME_MAX + 1]; /* canonical, NUL-terminated */
	uint64_t expires_ms;            /* valid while now_ms < expires_ms */
};

/* Allocates an empty map of at most cap pairs (0: DNSD_NAMEMAP_DEFAULT_CAP).
 * Returns it, or NULL with errno ENOMEM.  The caller owns it. */
struct dnsd_namemap *dnsd_namemap_create(size_t cap);

/* Frees the map.  dnsd_namemap_destroy(NULL) is a no-op. */
void dnsd_namemap_destroy(struct dnsd_namemap *m);

/* Records that name (canonical, NUL-terminated, at most POLICY_NAME_MAX
 * bytes) was answered with addr, valid for ttl_s seconds from now_ms.  A pair
 * already there keeps the later of its two expiries.  A TTL of 0 records
 * nothing (the pair would be expired at once; the responder decides any
 * floor, see dnsd_responder_config).  Returns 0, or -EINVAL for a name that is
 * empty or too long.  Never fails for lack of room (see above). */
int dnsd_namemap_add(struct dnsd_namemap *m, const char *name, const struct policy_addr *addr,
		     uint32_t ttl_s, uint64_t now_ms);

/* Copies into out[0..cap) the names addr was handed out for that have not
 * expired at now_ms, the most recently added first.  Returns how many there
 * are, which may be more than cap (only cap are copied).  out may be NULL
 * when cap is 0.  Expired pairs met on the way are dropped. */
size_t dnsd_namemap_lookup(struct dnsd_namemap *m, const struct policy_addr *addr,
			   uint64_t now_ms, struct dnsd_namemap_name *out, size_t cap);

/* Pairs held (expired ones included until they are dropped or replaced). */
size_t dnsd_namemap_size(const struct dnsd_namemap *m);

/* Drops every pair expired at now_ms.  Returns how many were dropped. */
size_t dnsd_namemap_expire(struct dnsd_namemap *m, uint64_t now_ms);

#endif /* PORTA_DNS_NAMEMAP_H */
