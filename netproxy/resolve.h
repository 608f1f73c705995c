/* netproxy/resolve.h: an allowed name's addresses, asked of the upstream
 * resolver.  The module's own (netproxy/ and its tests).
 *
 * ARCHITECTURE: below the connection core (conn.h), which calls it with the
 * canonical name it decided on; it knows nothing of connections or policy.
 * One thread: the base's.
 */
#ifndef PORTA_NETPROXY_RESOLVE_H
#define PORTA_NETPROXY_RESOLVE_H

#ifndef PORTA_INSIDE_NETPROXY
#error "netproxy/resolve.h is netproxy/'s own (and its unit tests'): use netproxy/proxy.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"

struct dnsd_answers;
struct dnsd_upstream;
struct proxy_resolve;

/* Addresses one name may resolve to that are tried, per family. */
#define PROXY_RESOLVE_MAX 8

/* Called once per accepted query with the addresses of the answer (at most
 * PROXY_RESOLVE_MAX, in answer order; n 0 for an empty answer) or ok false
 * when the upstream failed. */
typedef void (*proxy_resolve_done_fn)(bool ok, const struct policy_addr *addrs, size_t n,
				      void *arg);
/* Asks u for the A (qtype 1) or AAAA (28) records of the canonical name.
 * Returns the query or NULL with errno set.  The query outlives a detached
 * caller: proxy_resolve_detach() makes it free itself when the answer comes.
 * An answer with addresses is also kept in keep (may be NULL) for its
 * lowest TTL, unless the caller detached first. */
struct proxy_resolve *proxy_resolve_start(struct dnsd_upstream *u, struct dnsd_answers *keep,
					  const char *name, uint16_t qtype,
					  proxy_resolve_done_fn done, void *arg);

/* The addresses keep holds for name and qtype (at most PROXY_RESOLVE_MAX
 * into out, *n of them), asked within their TTL: true, and no upstream
 * round trip is needed.  keep may be NULL (false). */
bool proxy_resolve_kept(const struct dnsd_answers *keep, const char *name, uint16_t qtype,
			struct policy_addr out[PROXY_RESOLVE_MAX], size_t *n);
void proxy_resolve_detach(struct proxy_resolve *r);

#endif /* PORTA_NETPROXY_RESOLVE_H */
