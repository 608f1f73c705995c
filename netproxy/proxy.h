/* netproxy/proxy.h: policy mode's proxy, as the supervisor sees it.
 *
 * ARCHITECTURE: the supervisor (supervisor/net.c) receives, over the control
 * channel, the listening sockets init made inside the sandbox's network
 * namespace, and hands them to proxy_create() together with the compiled
 * rules, the resolver and the audit sink.  From then on the proxy serves on
 * the supervisor's event loop until proxy_destroy():
 *
 *   transparent listeners  one per port a rule names, [::]:P dual-stack in the
 *                          sandbox (every address is local there): accept,
 *                          getsockname() = the address the program dialled,
 *                          peek (never consume) until the TLS ClientHello's
 *                          SNI or the HTTP head's Host decides, or the
 *                          sniff deadline passes (then: DNS map or IP rule),
 *                          decide (policy_net_decide), dial, relay.
 *   HTTP proxy front end   CONNECT host:port and absolute-form requests on
 *                          loopback inside the sandbox; the SNI that follows
 *                          a CONNECT must name the CONNECT host.
 *   SOCKS5 front end       CONNECT with IPv4, IPv6 and domain targets.
 *   dial                   never the address the program chose because a
 *                          name was allowed: that address only when porta's
 *                          own resolver handed it out for the allowed name
 *                          (dnsd_namemap), otherwise the allowed name is
 *                          resolved (dnsd_upstream) and that is dialled;
 *                          default-denied addresses only by IP/CIDR rules.
 *   record                 every decision goes to the decision log
 *                          (decision/log.h): one JSON line per decision, a
 *                          second when an allowed connection closes; one
 *                          stderr line per distinct refused destination
 *                          with the option that would allow it; a summary
 *                          at the end.
 *
 * A decision is made before a single byte is sent upstream.  Limits
 * (connections, sniff bytes and time, idle time) refuse that connection,
 * log it, and keep serving the others.  Single-threaded: every function is
 * called on the base's thread.
 *
 * Decisions, as implemented:
 *   - A name from the wire (SNI, Host, CONNECT or SOCKS target) is read with
 *     policy_net_target_parse(): canonicalised, or taken as the address it
 *     spells ("127.1", "2130706433", "[::1]"); an address is decided on
 *     that address alone (only IP/CIDR rules reach it) and that address is
 *     dialled.
 *   - Transparent: policy_net_decide(name, dialled address, port).  An
 *     allowed name is dialled at the dialled address only when the name map
 *     says porta's resolver handed that address out for that name; else the
 *     name is resolved (A and AAAA at once; A answers tried first) and every
 *     answer is decided again with the name (default-denied classes and
 *     deny-listed addresses drop out).  A TLS hello without SNI or an HTTP
 *     head without Host is allowed only by an IP/CIDR rule for the dialled
 *     address; nothing within quiet_ms, or bytes that are neither TLS nor
 *     HTTP: every name the map holds for the address is decided (a deny for
 *     any refuses), else IP/CIDR rules.
 *   - Proxy front ends decide with via_proxy (proxy-scope rules count) and
 *     no address; allowed names are always resolved.  After a CONNECT or
 *     SOCKS reply, a TLS hello must name the target (canonical compare; an
 *     address target admits no SNI); no TLS, or a hello without SNI, is
 *     relayed as the rule allowed.
 *   - Refusals: transparent and after a reply, a TCP RST; HTTP 403 with a
 *     text body naming the option (400 unreadable head, 502 upstream
 *     unreachable, 408 sniff deadline); SOCKS REP 0x02 (0x07 BIND/UDP, 0x08
 *     address type, 0x05 dial failed, 0x04 resolve failed).
 *
 * Audit records (one JSON object per line, written by decision/log.h): ts
 * (RFC 3339 UTC, ms), seq, kind ("connect": transparent; "proxy": front
 * ends), pid and comm when owner_fn names the program's process, dst ("ip:port"/"[ip6]:port":
 * what the program dialled, or the address target), host (the name decided
 * on, escaped; as sent when malformed), sni (as sent, escaped, or null),
 * rule (text or null), verdict ("allow", "deny", "error"), reason, hint
 * (the option that would allow it, or null), and on allows "upstream" (the
 * address porta connected to).  A second record when an allowed connection
 * ends: verdict "allow", reason "closed"/"reset"/"idle"/"no-memory",
 * bytes_up, bytes_down, duration_ms.
 * Reasons (policy/reason.h's table): "allow"; the rules' "no-rule", "deny-rule",
 * "denied-address" (a name rule matched but the address dialled or resolved
 * is in a default-denied class), "reserved-name" (localhost, metadata
 * names); and "malformed-name" (not a host name, CR/LF/NUL, ...),
 * "sni-mismatch" (the hello after CONNECT/SOCKS names another host),
 * "no-sni", "no-host", "duplicate-host", "host-mismatch" (an absolute-form
 * or CONNECT target names another host than Host), "malformed-tls",
 * "malformed-http", "malformed-socks", "not-proxy-request" (origin-form to
 * the HTTP proxy), "unsupported-command" (SOCKS BIND, UDP ASSOCIATE),
 * "unsupported-address", "socks-no-method", "sniff-timeout", "too-big"
 * (hello or head over its cap), "write-failed"; verdict "error":
 * "dial-failed", "resolve-failed", "limit" (max_connections), "no-memory".
 * stderr (unless quiet): "porta: refused DST (REASON); allow with OPTION"
 * once per distinct destination (host:port as the program named it, else
 * address:port).
 */
#ifndef PORTA_NETPROXY_PROXY_H
#define PORTA_NETPROXY_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decision/owner.h"
#include "netproxy/limits.h"
#include "policy/addr.h"
#include "netproxy/terminate.h"
#include "policy/netrule.h"


struct event_base;
struct decision_log;
struct dnsd_namemap;
struct dnsd_upstream;
struct proxy;

/* One transparent listener: a listening TCP socket and the port it serves. */
struct proxy_listener {
	int fd;
	uint16_t port;
};

struct proxy_config {
	struct event_base *base;             /* borrowed; outlives the proxy */
	const struct policy_net_rule *rules; /* borrowed, rules[0..n_rules) */
	size_t n_rules;
	const struct policy_addr *host_addrs; /* borrowed; the host's own addresses */
	size_t n_host_addrs;
	struct dnsd_namemap *map;        /* borrowed: what porta's resolver handed out */
	struct dnsd_upstream *upstream;  /* borrowed: resolves names to dial */
	const struct proxy_listener *transparent; /* owned by the proxy on success */
	size_t n_transparent;
	int http_fd;  /* listening socket of the HTTP proxy front end, or -1; owned on success */
	int socks_fd; /* listening socket of the SOCKS5 front end, or -1; owned on success */
	struct decision_log *log; /* borrowed, or NULL: every decision is recorded here
				   * (audit line, stderr line, summary: decision/log.h) */
	decision_owner_fn owner_fn; /* or NULL: who holds the program's end of an
				     * accepted connection, asked once per connection
				     * at accept, for the pid and comm of its records */
	void *owner_arg;
	struct proxy_limits limits;
	/* TLS termination, or NULL: for a decided connection to host:port,
	 * whether it is terminated and with what (netproxy/terminate.h); the
	 * supervisor answers from supervisor/term.h */
	proxy_term_fn term_fn;
	void *term_arg;
	/* every --secret's (placeholder, value), or none: a placeholder in a
	 * name the proxy decides on (target, SNI, SOCKS or CONNECT target, the
	 * first request's Host and target) refuses it, "secret-elsewhere" */
	const struct proxy_secret *secrets;
	size_t n_secrets;
};

/* Starts serving.  Returns 0 and sets *out, or -errno (the fds stay the
 * caller's on failure).  The listeners are made non-blocking.  map and
 * upstream may be NULL (no map path; names cannot be resolved: refused as
 * "resolve-failed").  The upstream may be destroyed before or after the
 * proxy, but not while the loop runs with the proxy alive.  The process must
 * ignore SIGPIPE (relay.h). */
int proxy_create(const struct proxy_config *cfg, struct proxy **out);

/* Connections open now (accepted and not yet closed), for tests and limits. */
size_t proxy_connections(const struct proxy *p);

/* Stops serving: closes the listeners, ends every connection (relays end as
 * reset, their close records written), frees everything.  destroy(NULL) is a
 * no-op. */
void proxy_destroy(struct proxy *p);

#endif /* PORTA_NETPROXY_PROXY_H */
