/* netproxy/conn.h: the connection core, the module's own (netproxy/ and
 * its tests).
 *
 * ARCHITECTURE: one struct proxy_conn per accepted connection, whatever the
 * front end (transparent listener, HTTP proxy, SOCKS5), with one state enum
 * and one free path (proxy_conn_free).  The front ends (front.h: each a
 * table of callbacks) find out what the connection wants (wire/sniff.h,
 * wire/socks5.h) and hand a target to the core (conn.c), which decides
 * (policy_net_decide), resolves (resolve.h) or takes the dialled address,
 * dials (dial.h) and calls the front end back through its table once
 * connected; the front end then answers its client and starts the relay
 * (relay.h).  Every decision is recorded in the decision log
 * (decision/log.h).  Layers, each using only those below it: dial.c and
 * resolve.c; conn.c; the front ends; proxy.c (listeners, limits, create and
 * destroy: proxy.h).  One thread: the base's.
 */
#ifndef PORTA_NETPROXY_CONN_H
#define PORTA_NETPROXY_CONN_H

#ifndef PORTA_INSIDE_NETPROXY
#error "netproxy/conn.h is netproxy/'s own (and its unit tests'): use netproxy/proxy.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "decision/log.h"
#include "decision/owner.h"
#include "wire/http_stream.h"
#include "netproxy/front.h"
#include "netproxy/limits.h"
#include "netproxy/relay.h"
#include "netproxy/terminate.h"
#include "netproxy/resolve.h"
#include "wire/sniff.h"
#include "policy/addr.h"
#include "policy/netrule.h"
#include "policy/reason.h"

struct dnsd_namemap;
struct dnsd_upstream;
struct event;
struct event_base;
struct proxy_dial;

/* Defaults of struct proxy_limits. */
#define PROXY_DEFAULT_MAX_CONNECTIONS 4096
#define PROXY_DEFAULT_SNIFF_MS 5000
#define PROXY_DEFAULT_QUIET_MS 300
#define PROXY_DEFAULT_DIAL_MS 10000
#define PROXY_DEFAULT_IDLE_MS 600000
/* "[" + IPv6 + "]:" + port, with its NUL */
#define PROXY_DST_STRLEN DECISION_DST_STRLEN

enum proxy_conn_state {
	PROXY_CONN_SNIFF,     /* peeking the first bytes (transparent) or the head (fronts) */
	PROXY_CONN_RESOLVE,   /* asking the upstream resolver for the allowed name */
	PROXY_CONN_DIAL,      /* connecting upstream */
	PROXY_CONN_REPLY,     /* writing the proxy's answer or the rewritten head */
	PROXY_CONN_CHECK_SNI, /* after CONNECT / SOCKS, or a transparent decision made
			       * before the client spoke: checking its first bytes */
	PROXY_CONN_RELAY,     /* the relay owns both sockets */
};

/* The destination as decided. */
struct proxy_target {
	bool has_name;
	char name[POLICY_NAME_MAX + 1]; /* canonical, when has_name */
	bool has_addr;
	struct policy_addr addr; /* an address target (IP literal), or the dialled address */
	uint16_t port;
};

struct proxy_conn {
	struct proxy_core *p;
	struct proxy_conn *prev, *next;
	const struct proxy_front_ops *ops;
	enum proxy_front front; /* ops->front */
	enum proxy_conn_state state;
	int client;   /* owned until the relay takes it, then -1 */
	int upstream; /* owned once the dial succeeds, until the relay takes it */
	struct event *ev_read;  /* client readable: sniff, head, SNI check */
	struct event *ev_write; /* the pending write's fd writable */
	struct event *ev_sniff; /* the sniff deadline */
	struct event *ev_quiet; /* nothing arrived yet: the server may speak first */
	/* CHECK_SNI: what the server says first goes down before the relay */
	struct event *ev_down;   /* upstream readable */
	struct event *ev_down_w; /* client writable while down[] holds bytes */
	uint8_t *down;
	size_t down_len, down_off;
	uint64_t pre_down;       /* bytes carried down before the relay */
	uint64_t pre_up;         /* bytes porta wrote upstream itself (a rewritten head) */
	bool up_eof;             /* the upstream finished sending during the check */
	bool relay_pending;      /* relay once down[] is flushed */
	bool first_seen;         /* the client's first bytes arrived (check deadline) */
	bool server_spoke;       /* the upstream sent bytes before the client's first */
	bool quiet_decided;      /* transparent, decided without its first bytes */
	struct proxy_dial *dial;
	struct proxy_resolve *res[2];
	unsigned res_pending;
	struct proxy_relay *relay;
	struct proxy_term *term;           /* instead of relay, on a terminated endpoint */
	struct policy_net_target term_host; /* what term's params point at */
	size_t peeked;       /* bytes seen at the last peek */
	uint64_t started_ms; /* CLOCK_MONOTONIC */

	/* What the connection showed. */
	bool has_dialled; /* transparent: the address the program dialled */
	struct policy_addr dialled;
	uint16_t dialled_port;
	char sni[PROXY_TLS_SNI_MAX + 1]; /* raw, as sent; "" when none */
	size_t sni_len;
	struct proxy_target target;
	char raw[POLICY_NAME_MAX + 3]; /* the name as sent (for the audit when malformed) */
	size_t raw_len;
	const struct policy_net_rule *rule; /* the deciding rule */
	char detail[96]; /* a refusal's detail for the audit ("" none): the tripwire's */
	bool denied_seen; /* a resolved address was dropped as default-denied */
	struct policy_addr denied_addr;
	struct policy_addr res_addrs[2][PROXY_RESOLVE_MAX]; /* A, AAAA answers */
	size_t res_n[2];
	bool res_ok[2];
	bool via_proxy;
	struct decision_owner owner; /* the program's process (ask_owner in conn.c) */
	bool owner_asked;
	int lowat;                   /* the client's SO_RCVLOWAT as last set */

	/* Addresses to dial, in order. */
	struct policy_addr cand[2 * PROXY_RESOLVE_MAX];
	size_t n_cand;
	struct policy_addr upstream_addr; /* the one connected */

	/* The pending write (a reply to the client, or a head upstream). */
	uint8_t *out;
	size_t out_len, out_off;
	int out_fd;
	void (*then)(struct proxy_conn *c); /* once it is all written */

	/* Front-end specific. */
	bool http_absolute; /* absolute-form request: out is the rewritten head */
	bool term_tls;      /* terminated with TLS (else plain HTTP read in the clear) */
	bool term_proxied;  /* absolute-form to a terminated endpoint: the head stays
			     * queued for the terminating relay (terminate.h, proxied) */
	size_t consume;     /* bytes of the client's queue to drop before relaying */
	int socks_stage;    /* 0 greeting, 1 request */
	bool replied;       /* the front end told the client it is connected */
	uint8_t socks_rep;  /* SOCKS5 REP for the refusal; 0: from the reason */

	/* Plain HTTP (transparent, or the proxy's absolute-form): the relay
	 * frames the client's requests and every one must name the host and
	 * port the first did (http_stream.h; escape corpus row 47). */
	bool http_framed;
	struct proxy_http_stream hs;
	bool hs_port_set;
	uint16_t hs_port; /* the first request's Host port (80 when none) */
};

/* What every connection shares: the rules, the resolver, the log, the
 * limits, the connection table.  The top (proxy.c) fills it in and owns it. */
struct proxy_core {
	struct event_base *base;
	const struct policy_net_rule *rules;
	size_t n_rules;
	const struct policy_addr *host_addrs;
	size_t n_host_addrs;
	struct dnsd_namemap *map;
	struct dnsd_upstream *upstream;
	struct dnsd_answers *answers; /* the upstream's answers for names decided, kept
				       * for their TTL (dns/answers.h), the proxy's own */
	struct decision_log *log;
	decision_owner_fn owner_fn; /* or NULL */
	void *owner_arg;
	proxy_term_fn term_fn;      /* or NULL: nothing is terminated */
	void *term_arg;
	const struct proxy_secret *secrets; /* the tripwire (proxy.h) */
	size_t n_secrets;
	struct proxy_limits limits; /* defaults filled in */
	uint32_t quiet_ms;

	struct proxy_conn *conns;
	size_t n_conns;
	uint8_t *scratch; /* PROXY_TLS_WIRE_MAX bytes: every peek lands here */
	struct proxy_pipe_pool pipes; /* every relay's (relay.h); drained after them */
};

/* ---- conn.c ---- */

/* Takes fd (an accepted, non-blocking socket) as a new connection served by
 * ops and starts it (ops->start).  p->owner_fn is asked who holds the
 * program's end once the connection waits for something (its dial, its
 * name's answer, more bytes) or is refused, so before any record of it and
 * never in the way of its dial.  On failure (no memory) fd is closed. */
void proxy_conn_start(struct proxy_core *p, int fd, const struct proxy_front_ops *ops);
/* Ends every connection (relays end as reset, their close records written). */
void proxy_conn_free_all(struct proxy_core *p);

uint64_t proxy_now_ms(void);
/* Asks p->owner_fn (when set) who holds the program's end of the accepted
 * socket fd; *out zeroed when nobody can tell. */
void proxy_conn_owner(const struct proxy_core *p, int fd, struct decision_owner *out);
/* The one free path of a connection: events, dial, resolves, fds, memory. */
void proxy_conn_free(struct proxy_conn *c);
/* Refuses c: its decision recorded (c->rule as the rule, the hint from the
 * reason and the target: decision/log.h), the front end's answer (403 /
 * SOCKS reply / RST), then proxy_conn_free. */
void proxy_conn_refuse(struct proxy_conn *c, enum policy_reason reason);
/* c->target is filled: decide, then resolve or take the address, then dial;
 * calls c->ops->connected() once connected, or refuses c. */
void proxy_conn_decide(struct proxy_conn *c);
/* Transparent, without a name: the DNS map or an IP/CIDR rule. */
void proxy_conn_decide_by_address(struct proxy_conn *c);
/* Starts the relay (client and upstream handed over); on failure frees c. */
void proxy_conn_relay(struct proxy_conn *c);
/* Writes buf[0..len) (copied) to fd, from the loop when it would block,
 * then calls then(c).  On a failure c is refused ("write-failed") and freed.
 * A tail call: c may be gone when it returns. */
int proxy_conn_write(struct proxy_conn *c, int fd, const void *buf, size_t len,
		     void (*then)(struct proxy_conn *c));
/* Starts watching the client for its first bytes: the sniff deadline and,
 * with quiet, the server-speaks-first wait; then looks at once
 * (ops->readable), and the read event waits for what is not there yet.
 * A tail call: c may be gone when it returns. */
void proxy_conn_sniff(struct proxy_conn *c, bool quiet);

/* Keeps name[0..len) as sent in c->raw (for the audit) and reads it as the
 * target: a canonical name, or an address spelled as a name ("127.1").
 * False when it is neither (malformed). */
bool proxy_conn_take_name(struct proxy_conn *c, const uint8_t *name, size_t len);
/* Peeks what the client sent so far into p->scratch (at most cap bytes).
 * Returns the byte count, 0 on EOF, -errno (-EAGAIN: nothing yet). */
ssize_t proxy_conn_peek(struct proxy_conn *c, size_t cap);
/* Asks the loop to call back when more than c->peeked bytes are there. */
void proxy_conn_want_more(struct proxy_conn *c, size_t have);

/* The tripwire (wire/http_secret.h): true, and c refused "secret-elsewhere"
 * (freed), when buf[0..n) holds a secret's placeholder.  Every connection's
 * first bytes are searched as they are peeked (head false: as given and
 * percent-decoded), a plain HTTP request head also with its Basic
 * credentials decoded (head true, n its head_len).  No connection porta
 * sniffs carries a placeholder anywhere legitimately: a secret's hosts are
 * always terminated, and their requests are searched by the terminating
 * relay instead (netproxy/terminate.h), after their TLS hello. */
bool proxy_conn_tripwire(struct proxy_conn *c, const uint8_t *buf, size_t n, bool head);

/* Whether c's target (decided or about to be) is an endpoint porta
 * terminates (--secret, --allow-http): its bytes go to the terminating
 * relay (netproxy/terminate.h), not the splice. */
bool proxy_conn_terminated(struct proxy_conn *c);
/* Drops n bytes from the client's receive queue (already peeked). */
int proxy_conn_consume(struct proxy_conn *c, size_t n);

/* After a CONNECT or SOCKS reply, or once a transparent connection decided
 * before its client spoke is dialled: the client's first bytes are checked
 * against the target (a ClientHello's SNI must name it; on the transparent
 * path an HTTP Host too) before the relay starts, whenever they come; what
 * the server sends meanwhile is carried down (server-speaks-first). */
void proxy_check_sni_start(struct proxy_conn *c);

#endif /* PORTA_NETPROXY_CONN_H */
