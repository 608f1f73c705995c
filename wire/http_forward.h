/* wire/http_forward.h: the request head a forward proxy sends upstream in
 * place of the one a client sent it (RFC 9112 §3.2.2, RFC 9110 §7.6.1).
 *
 * ARCHITECTURE: porta's HTTP proxy (netproxy/front_http.c) takes
 * absolute-form requests ("GET http://host/p HTTP/1.1") and forwards each in
 * origin-form to the host it decided on, first request and every later one
 * on a kept-alive connection alike (the relay's gate, netproxy/conn.c).  What
 * is dropped is what belongs to the hop between client and proxy:
 *
 *   Proxy-*      Proxy-Authorization, Proxy-Connection: the proxy's, never
 *                the server's (a credential meant for one hop only);
 *   Connection, Keep-Alive
 *                hop-by-hop (RFC 9110 §7.6.1).  The connection to the
 *                server stays persistent unless the client asked to close
 *                ("close" among its Connection options), which is passed on
 *                as "Connection: close";
 *   Upgrade      porta does not carry a protocol switch through an
 *                absolute-form request (CONNECT is the way); with Connection
 *                dropped no server could agree to one anyway, and the head
 *                the framer sees (proxy_http_forward_framing) is then
 *                plain, so the request framer never turns opaque on this
 *                path (escape corpus row 47).
 *
 * Every other field line goes on byte for byte, in order.  Pure
 * (docs/design.md, Modules): no allocation, no system call.
 */
#ifndef PORTA_WIRE_HTTP_FORWARD_H
#define PORTA_WIRE_HTTP_FORWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/sniff.h"

/* The most bytes proxy_http_forward_head writes for head h. */
size_t proxy_http_forward_max(const struct proxy_http_head *h);

/* Writes into out[0..cap) the head to forward for h, the head that
 * proxy_http_parse_head (or the request framer) parsed at the start of buf;
 * returns its length, or 0 when cap is below proxy_http_forward_max(h).
 * The request line is "METHOD SP target SP HTTP/1.x" with target in
 * origin-form: an absolute-form target's path and query ("/" when the path
 * is empty), any other form's target as sent.  *close (may be NULL) is set
 * when the client's Connection options name "close". */
size_t proxy_http_forward_head(const uint8_t *buf, const struct proxy_http_head *h,
			       uint8_t *out, size_t cap, bool *close);

/* The head the request framer must accept for a forwarded request: h as the
 * server sees it, without Upgrade (above). */
struct proxy_http_head proxy_http_forward_framing(const struct proxy_http_head *h);

#endif /* PORTA_WIRE_HTTP_FORWARD_H */
