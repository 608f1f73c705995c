/* netproxy/dial.h: non-blocking connect(2) to a list of addresses, in order,
 * each try bounded by a timeout; and the sockaddr glue.  The module's own
 * (netproxy/ and its tests).
 *
 * ARCHITECTURE: below the connection core (conn.h), which hands it the
 * addresses decided on; it knows nothing of connections or policy.  One
 * thread: the base's.
 */
#ifndef PORTA_NETPROXY_DIAL_H
#define PORTA_NETPROXY_DIAL_H

#ifndef PORTA_INSIDE_NETPROXY
#error "netproxy/dial.h is netproxy/'s own (and its unit tests'): use netproxy/proxy.h"
#endif

#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"

struct event_base;
struct proxy_dial;

/* Called once: fd (connected, non-blocking, CLOEXEC; the callee owns it) and
 * the address index that answered, or fd -1 and -errno of the last try. */
typedef void (*proxy_dial_done_fn)(int fd, size_t index, int err, void *arg);

/* Connects to addrs[0..n) port in order, each try bounded by timeout_ms.
 * addrs is copied.  Returns the dial (done is called later, never from
 * here) or NULL with errno set. */
struct proxy_dial *proxy_dial_start(struct event_base *base, const struct policy_addr *addrs,
				    size_t n, uint16_t port, uint32_t timeout_ms,
				    proxy_dial_done_fn done, void *arg);
/* Abandons a dial in progress without calling done.  NULL is a no-op. */
void proxy_dial_cancel(struct proxy_dial *d);
/* ss (a struct sockaddr_storage) for a:port; returns its length. */
size_t proxy_sockaddr_from(const struct policy_addr *a, uint16_t port, void *ss);
/* a and port from ss (AF_INET, or AF_INET6 with IPv4-mapped unmapped); 0 or
 * -EAFNOSUPPORT. */
int proxy_sockaddr_to(const void *ss, struct policy_addr *a, uint16_t *port);

#endif /* PORTA_NETPROXY_DIAL_H */
