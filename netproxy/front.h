/* netproxy/front.h: a front end, as the connection core sees it.  The
 * module's own (netproxy/ and its tests).
 *
 * ARCHITECTURE: a front end (transparent.c, front_http.c, front_socks.c)
 * finds out what a connection wants and hands a target to the core
 * (conn.h); the core decides, dials and calls the front end back through
 * this table, never by name.  The top (proxy.c) picks the table for each
 * listener.  Front ends call the core; nothing below calls a front end but
 * through a table.
 */
#ifndef PORTA_NETPROXY_FRONT_H
#define PORTA_NETPROXY_FRONT_H

#ifndef PORTA_INSIDE_NETPROXY
#error "netproxy/front.h is netproxy/'s own (and its unit tests'): use netproxy/proxy.h"
#endif

#include <stdbool.h>

#include "policy/reason.h"

struct proxy_conn;

enum proxy_front {
	PROXY_FRONT_TRANSPARENT,
	PROXY_FRONT_HTTP,
	PROXY_FRONT_SOCKS,
};

struct proxy_front_ops {
	enum proxy_front front;
	/* A connection was accepted: start reading what it wants. */
	void (*start)(struct proxy_conn *c);
	/* The client has bytes (or EOF) while the connection is sniffed. */
	void (*readable)(struct proxy_conn *c);
	/* The upstream is connected (c->upstream set): answer the client and
	 * relay, or check the client's first bytes first. */
	void (*connected)(struct proxy_conn *c);
	/* c is refused and no answer was sent yet: answer the client (403,
	 * a SOCKS reply) and return true, or false to have it reset.  NULL:
	 * always reset.  Best effort, never blocks. */
	bool (*refused)(struct proxy_conn *c, enum policy_reason reason, const char *hint);
};

/* The three tables (static, never NULL). */
const struct proxy_front_ops *proxy_front_transparent(void);
const struct proxy_front_ops *proxy_front_http(void);
const struct proxy_front_ops *proxy_front_socks(void);

#endif /* PORTA_NETPROXY_FRONT_H */
