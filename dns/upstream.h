/* dns/upstream.h: asking the upstream resolver, with c-ares on porta's loop.
 *
 * ARCHITECTURE (docs/design.md, Network): only names the policy lets through ever
 * reach this file; the responder decides first.  One c-ares channel per
 * run, shared by its users through handles (dnsd_upstream_share()), and
 * configured so that what is asked is exactly what was decided:
 * ares_query() (never ares_search: no search list, ARES_FLAG_NOSEARCH, no
 * HOSTALIASES) with the canonical name, lookups "b" (DNS only, never the
 * host's /etc/hosts), and the one server given, set explicitly
 * (ares_set_servers_ports), whatever the host's resolv.conf lists.
 * ARES_FLAG_NOCHECKRESP: an upstream SERVFAIL or REFUSED comes back as it is,
 * so the responder can say what happened instead of c-ares retrying it.
 *
 * c-ares runs on the caller's libevent base: ARES_OPT_SOCK_STATE_CB tells
 * which sockets it wants watched (an event each, ares_process_fd() when one
 * fires), and one timer, re-armed from ares_timeout() after every call into
 * c-ares, lets it time queries out.  Its sockets are created on the network
 * the process is in: the supervisor's, the host's (never the sandbox's).
 * One thread: the base's.
 */
#ifndef PORTA_DNS_UPSTREAM_H
#define PORTA_DNS_UPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "dns/resolvconf.h"

struct event_base;
struct dnsd_upstream;

struct dnsd_upstream_config {
	struct dnsd_server server;
	uint32_t timeout_ms; /* first try; c-ares doubles it for each retry (0: 2000) */
	unsigned tries;      /* attempts per query (0: 2) */
};

enum dnsd_upstream_result {
	DNSD_UPSTREAM_ANSWER,    /* msg[0..len) is the upstream's response, any rcode,
				  * not yet parsed: dnsd_response_parse() */
	DNSD_UPSTREAM_TIMEOUT,   /* every try timed out */
	DNSD_UPSTREAM_ERROR,     /* refused connection, unreadable answer, ... */
	DNSD_UPSTREAM_CANCELLED, /* dnsd_upstream_destroy() while in flight */
};

/* Called exactly once per query that dnsd_upstream_query() accepted, from
 * the loop (never from inside dnsd_upstream_query()); msg is NULL and len 0
 * unless result is DNSD_UPSTREAM_ANSWER, and msg is valid only during the
 * call.  It may start new queries; it must not destroy the upstream. */
typedef void (*dnsd_upstream_done_fn)(enum dnsd_upstream_result result, const uint8_t *msg,
				      size_t len, void *arg);

/* Creates the channel on base (borrowed; must outlive the upstream).
 * Returns 0 and *out (caller-owned), or -errno: -ENOMEM, -EINVAL for a
 * server c-ares refuses, -EIO when c-ares fails to initialise. */
int dnsd_upstream_create(struct event_base *base, const struct dnsd_upstream_config *cfg,
			 struct dnsd_upstream **out);

/* Another handle on u's channel (one c-ares channel, its sockets and its
 * configuration, for two users: the proxy and the DNS responder).  Each
 * handle has its own queries; destroying one cancels only those.  The
 * channel goes with the last handle, whichever it is.  Returns 0 or
 * -ENOMEM. */
int dnsd_upstream_share(struct dnsd_upstream *u, struct dnsd_upstream **out);

/* Cancels every query in flight on this handle (each done callback is
 * called with DNSD_UPSTREAM_CANCELLED before this returns; c-ares keeps
 * them until they end there, unseen) and frees the handle; with the last
 * handle, closes c-ares' sockets and frees the channel.
 * dnsd_upstream_destroy(NULL) is a no-op.  Not from a done callback. */
void dnsd_upstream_destroy(struct dnsd_upstream *u);

/* Asks class IN, type qtype, for name (canonical, NUL-terminated; copied).
 * Returns 0 when the query is in flight (done will be called once, later),
 * or -errno when it failed at once (-ENOMEM, -EIO: done is never called). */
int dnsd_upstream_query(struct dnsd_upstream *u, const char *name, uint16_t qtype,
			dnsd_upstream_done_fn done, void *arg);

/* This handle's queries accepted and not yet done. */
size_t dnsd_upstream_in_flight(const struct dnsd_upstream *u);

/* Reads the host's resolv.conf at path (NULL: "/etc/resolv.conf") and gives
 * its first usable nameserver (dnsd_resolvconf_parse(), port 53).  Returns 0,
 * -errno of open(2)/read(2), -EFBIG beyond 64 KiB, or -ENODATA when no line
 * names a usable server.  For main, before the loop runs. */
int dnsd_upstream_host_server(const char *path, struct dnsd_server *out);

/* Every usable nameserver of the resolv.conf at path (NULL:
 * "/etc/resolv.conf"), at most cap, into out (dnsd_resolvconf_servers()).
 * Returns how many, or -errno as dnsd_upstream_host_server().  For main:
 * under --no-net these addresses answer inside the sandbox. */
int dnsd_host_servers(const char *path, struct dnsd_server *out, size_t cap);

#endif /* PORTA_DNS_UPSTREAM_H */
