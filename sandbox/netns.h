/* sandbox/netns.h: a fresh network namespace made usable over raw
 * rtnetlink: lo up, the AnyIP local routes of policy mode and --no-net's
 * local resolver addresses (every
 * address is local, so a connect() anywhere reaches a wildcard listener;
 * docs/design.md, "Network").  Public because tests of dns/, netproxy/ and
 * supervisor/ build their labs the way init does. */
#ifndef PORTA_SANDBOX_NETNS_H
#define PORTA_SANDBOX_NETNS_H

#include <stdbool.h>
#include <stdint.h>

/* In init, in a new network namespace: brings lo up over rtnetlink.  0 or -errno. */
int sandbox_netns_lo_up(void);

/* In init, in a new network namespace with lo up (policy mode): adds the
 * local routes 0.0.0.0/0 and ::/0 on lo, so that a connect() to any address
 * reaches a listener on the wildcard address.  0 or -errno. */
int sandbox_netns_anyip(void);

/* In init, in a new network namespace with lo up (--no-net): makes one
 * address (4 bytes, or 16 when v6) local on lo, so that a query to a
 * resolver resolv.conf names reaches porta's responder on the wildcard
 * address, while every other address stays unreachable.  A loopback
 * address is already local (the route is replaced, not doubled).  0 or
 * -errno. */
int sandbox_netns_local_addr(const uint8_t *addr, bool v6);

#endif /* PORTA_SANDBOX_NETNS_H */
