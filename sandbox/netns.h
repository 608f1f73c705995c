/* sandbox/netns.h: a fresh network namespace made usable over raw
 * rtnetlink: lo up, and the AnyIP local routes of policy mode (every
 * address is local, so a connect() anywhere reaches a wildcard listener;
 * docs/design.md, "Network").  Public because tests of dns/, netproxy/ and
 * supervisor/ build their labs the way init does. */
#ifndef PORTA_SANDBOX_NETNS_H
#define PORTA_SANDBOX_NETNS_H

/* In init, in a new network namespace: brings lo up over rtnetlink.  0 or -errno. */
int sandbox_netns_lo_up(void);

/* In init, in a new network namespace with lo up (policy mode): adds the
 * local routes 0.0.0.0/0 and ::/0 on lo, so that a connect() to any address
 * reaches a listener on the wildcard address.  0 or -errno. */
int sandbox_netns_anyip(void);

#endif /* PORTA_SANDBOX_NETNS_H */
