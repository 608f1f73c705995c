/* host/addrs.h: the host's own addresses, for the rule that no name rule
 * reaches them (policy/addr.h).
 *
 * ARCHITECTURE: one rtnetlink RTM_GETADDR dump of the network namespace
 * porta runs in (rtnetlink(7)), read by wire/rtaddr.h's pure parser: the
 * addresses getifaddrs(3) gives, without the link dump that getifaddrs(3)
 * makes first and porta never reads.  host_resolve() (resolve.c) calls it
 * in policy mode.
 */
#ifndef PORTA_HOST_ADDRS_H
#define PORTA_HOST_ADDRS_H

#include <stddef.h>

#include "policy/addr.h"

/* Every IPv4 and IPv6 address of the host's interfaces into *out (the
 * caller frees it; at least one element is allocated) and their number into
 * *n.  A dump the kernel flags as interrupted (the addresses changed while
 * it ran) is asked again, three times at most.  0, or -errno: the socket's
 * or the kernel's error, EAGAIN (interrupted each time), EBADMSG (an answer
 * that does not parse), EMSGSIZE (an answer larger than porta reads). */
int host_own_addrs(struct policy_addr **out, size_t *n);

#endif /* PORTA_HOST_ADDRS_H */
