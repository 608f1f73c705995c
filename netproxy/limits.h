/* netproxy/limits.h: the proxy's limits, a plain value (part of proxy.h's
 * API; a header of its own so that the connection core, conn.h, can use
 * them without depending on proxy.h, the module's top).
 */
#ifndef PORTA_NETPROXY_LIMITS_H
#define PORTA_NETPROXY_LIMITS_H

#include <stdint.h>

struct proxy_limits {
	uint32_t max_connections;  /* open at once; 0: default 4096 */
	uint32_t sniff_timeout_ms; /* first bytes must decide within; 0: default 5000 */
	uint32_t dial_timeout_ms;  /* upstream connect; 0: default 10000 */
	uint32_t idle_timeout_ms;  /* relayed connection without traffic; 0: default 600000 */
	/* Nothing arrived this long after accept (transparent) or after a
	 * CONNECT/SOCKS reply: the server speaks first (SSH, SMTP), decide
	 * without a name; 0: default 300, at most sniff_timeout_ms. */
	uint32_t quiet_ms;
};

#endif /* PORTA_NETPROXY_LIMITS_H */
