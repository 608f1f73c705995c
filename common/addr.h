/* common/addr.h: an IP address as a plain value.
 *
 * ARCHITECTURE: the type alone, so that the DNS wire format (wire/dns.h),
 * which may use common/ only, reads and writes the same addresses the policy
 * judges (policy/addr.h, which parses, formats and classifies them).  The
 * policy_ names are kept: every user of the type already spells them so.
 */
#ifndef PORTA_COMMON_ADDR_H
#define PORTA_COMMON_ADDR_H

#include <stdint.h>

enum policy_addr_family {
	POLICY_ADDR_V4 = 4,
	POLICY_ADDR_V6 = 6,
};

/* An address: family and bytes in network order (b[0..3] for IPv4). */
struct policy_addr {
	enum policy_addr_family family;
	uint8_t b[16];
};

#endif /* PORTA_COMMON_ADDR_H */
