/* netproxy/netproxy.h: the netproxy module's API.
 *
 * ARCHITECTURE (docs/design.md, Network).  In policy mode every connection the
 * command makes ends at a listener porta owns, and this module decides and
 * carries it.  Pieces, one concept per file:
 *
 * - listeners: one dual-stack TCP listener per port a rule names, inside the
 *   sandbox's network namespace (getsockname() of an accepted socket is the
 *   address the program dialled), and the proxy front ends on loopback.
 * - sniffing (wire/sniff.h: the wire module's pure parsers) over the
 *   bytes peeked so far.  A ClientHello's SNI, reassembled across records,
 *   or an HTTP/1.x head with exactly one Host.  Each answers NEED_MORE until
 *   it can decide; the glue caps bytes (PROXY_TLS_WIRE_MAX,
 *   PROXY_HTTP_HEAD_MAX) and time, and a connection that is neither TLS nor
 *   HTTP falls back to the DNS name<->address map.  Nothing is consumed or
 *   sent upstream before the decision (escape corpus row 37).
 * - HTTP and SOCKS5 front ends (wire/sniff.h for CONNECT and absolute-form
 *   heads, wire/socks5.h for RFC 1928): the target named there is decided on, and the
 *   SNI that follows a CONNECT must name the same host.
 * - decision: policy/ (pure) on canonical names; names from the wire are
 *   passed through policy_name_canonical() first, never compared raw.
 * - relay: upstream dial, then bytes both ways with half-close and
 *   back-pressure, splice(2) once decided.
 * - record: every decision goes to the decision log (decision/log.h), which
 *   writes the audit line, the stderr line and the summary.
 *
 * The glue (proxy.h is its API), in layers that each use only those below:
 *   dial.c, resolve.c   connect to addresses; ask the resolver for a name
 *   conn.c (conn.h)     the connection core: table, decide, resolve, dial,
 *                       check the first bytes, relay, refuse, free
 *   transparent.c, front_http.c, front_socks.c
 *                       the front ends, each a struct proxy_front_ops
 *                       (front.h) the core calls back through
 *   proxy.c             listeners, the connection limit, create, destroy
 * conn.h, front.h, dial.h and resolve.h are the module's own (and its
 * tests'); limits.h is part of proxy.h.
 */
#ifndef PORTA_NETPROXY_NETPROXY_H
#define PORTA_NETPROXY_NETPROXY_H

#include "netproxy/proxy.h"
#include "netproxy/relay.h"
#include "wire/sniff.h"
#include "wire/socks5.h"

#endif /* PORTA_NETPROXY_NETPROXY_H */
