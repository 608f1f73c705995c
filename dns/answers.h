/* dns/answers.h: upstream answers kept for their TTL (c-ares 1.18 keeps
 * none), so that a build opening a hundred connections to one registry asks
 * the upstream once.
 *
 * ARCHITECTURE: pure (the caller passes the clock, CLOCK_MONOTONIC ms as
 * dnsd_clock_ms() gives it); no allocation, no system call.  Direct-mapped
 * by name and type, a newer answer replacing an older one in its slot.
 * Only answers with a TTL above 0 are kept (a TTL of 0 is a rebinding
 * name's: asked every time).  Two owners, never shared: the DNS
 * responder keeps the addresses it handed out (default-denied ones already
 * dropped, with their count), the proxy the addresses it resolved for a
 * name it decided (every one, each still decided before it is dialled);
 * so neither can hand out what only the other's filter saw.
 */
#ifndef PORTA_DNS_ANSWERS_H
#define PORTA_DNS_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"
#include "policy/names.h"

#define DNSD_ANSWERS_SLOTS 256
#define DNSD_ANSWERS_ADDRS 16 /* answers with more addresses are not kept */

struct dnsd_answer {
	uint64_t expires_ms; /* 0: empty */
	uint16_t qtype;
	uint8_t n_addrs;
	uint8_t n_dropped; /* default-denied addresses the upstream also gave */
	char name[POLICY_NAME_MAX + 1];
	struct policy_addr addrs[DNSD_ANSWERS_ADDRS];
};

/* Zeroed (calloc, or = {0}) it is empty. */
struct dnsd_answers {
	struct dnsd_answer slot[DNSD_ANSWERS_SLOTS];
};

/* Keeps addrs[0..n) as the answer for (name, qtype) until now_ms + ttl_s
 * seconds; nothing when n is above DNSD_ANSWERS_ADDRS, ttl_s is 0 or name
 * is longer than a canonical name.  n 0 keeps "no address" (the proxy's,
 * for a name without AAAA, say; the responder keeps only answers with
 * addresses).  n_dropped is capped at 255. */
void dnsd_answers_put(struct dnsd_answers *a, const char *name, uint16_t qtype,
		      const struct policy_addr *addrs, size_t n, size_t n_dropped, uint32_t ttl_s,
		      uint64_t now_ms);

/* The kept answer for (name, qtype) with at least a second left at now_ms,
 * and that second count in *ttl_left; NULL when there is none. */
const struct dnsd_answer *dnsd_answers_get(const struct dnsd_answers *a, const char *name,
					   uint16_t qtype, uint64_t now_ms, uint32_t *ttl_left);

#endif /* PORTA_DNS_ANSWERS_H */
