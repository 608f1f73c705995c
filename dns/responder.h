/* dns/responder.h: porta's DNS server for the sandbox (UDP and TCP port 53).
 *
 * ARCHITECTURE (docs/design.md, Network).  In policy mode every address inside
 * the sandbox is local (AnyIP routes), so whatever nameserver a program's
 * resolv.conf or its own resolver names, its query lands on the two sockets
 * init created on [::]:53 and passed out; the supervisor runs this responder
 * on them, on its one event loop.  Per query:
 *
 *   1. dnsd_query_parse(); malformed queries get FORMERR (header-only, with
 *      dnsd_build_error()) when at least a header is there and it is not a
 *      response; shorter messages and responses are dropped (answering a
 *      response could start a loop, and a reply without a header is
 *      impossible); another opcode gets NOTIMP; an EDNS version other than 0
 *      gets BADVERS (RFC 6891 6.1.3).
 *   2. The name must be a host name (dnsd_query.name_is_text and
 *      policy_name_canonical() OK; numeric names are IP literals in
 *      disguise), of class IN, and policy_net_name_resolvable() by the rules;
 *      otherwise NXDOMAIN (REFUSED for another class), answered here: the
 *      question never leaves the machine (escape corpus row 27), and the
 *      program sees "no such host", which it does not retry.
 *   3. Allowed A and AAAA questions are asked upstream with the canonical
 *      name (dns/upstream.h: c-ares, no search list, no hosts file); other
 *      types of allowed names (MX, TXT, ANY, ...) get an empty NOERROR,
 *      answered here too.
 *   4. The upstream answer is read back (dnsd_response_parse(): only records
 *      of the asked name and its CNAME chain), and every address in a
 *      default-denied class (policy_addr_class_on_host(): loopback, private,
 *      link-local, metadata, ..., their IPv4-in-IPv6 spellings, the host's
 *      own addresses) is dropped.  If none remains the answer is an empty
 *      NOERROR ("this name has no address for you"): not NXDOMAIN, which is
 *      a statement about the name, and not SERVFAIL, which makes stub
 *      resolvers retry the same answer (escape corpus row 28).  The answer
 *      holds the remaining addresses, owned by the question name (CNAMEs
 *      are flattened), with the lowest TTL among them capped at
 *      max_ttl_s.  Upstream NXDOMAIN is passed on; any other upstream
 *      rcode, an unreadable answer or an error gives SERVFAIL; a timeout
 *      gives SERVFAIL (reason "upstream-timeout").
 *   5. Every address answered is added to the name <-> address map with
 *      max(TTL, map_min_ttl_s): a client may use an answer for its TTL and
 *      connect a moment later, so the map never forgets a pair before the
 *      client could (TTL 0 answers included).
 *   6. One dnsd_event per query, through the callback, and one record in
 *      the decision log, with the pid and comm of the process that asked
 *      when owner_fn can tell.
 *
 * UDP replies go out FROM the address the query was sent TO (IPV6_PKTINFO /
 * IP_PKTINFO on receive and on sendmsg(2)): with AnyIP the socket is bound
 * to [::], so without this the kernel would pick a source address of its
 * own, and a stub resolver ignores replies from an address it did not ask
 * (glibc res_send's "reply from unexpected source"; RFC 5452 9.1).  IPv6
 * sources that are routed locally but not configured on an interface need
 * IPV6_FREEBIND for sendmsg(2) to accept them (ip6_datagram_send_ctl()); the
 * responder sets it on the UDP socket.
 *
 * TCP (RFC 7766): 2-byte length framing, any number of queries per
 * connection, pipelined queries answered as they complete (possibly out of
 * order, matched by ID), an idle timeout while nothing is in flight, EOF
 * answered by finishing the queries in flight and then closing.
 *
 * Limits, each refusing only what exceeds it: queries upstream at once
 * (beyond it: SERVFAIL, reason "too-many-queries"); TCP connections (beyond
 * it the new connection is accepted and closed at once, reason
 * "too-many-connections"); queries in flight per TCP connection (beyond it
 * the connection is not read until one completes); bytes queued to a TCP
 * client that does not read (beyond it the connection is closed).
 *
 * Under --no-net (cfg->offline) the same sockets sit at the addresses of
 * resolv.conf's nameservers, made local by init, and every host name gets
 * NXDOMAIN with reason POLICY_REASON_NO_NET: no rules, no upstream, no cache.
 *
 * One thread: the event base's.
 */
#ifndef PORTA_DNS_RESPONDER_H
#define PORTA_DNS_RESPONDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decision/owner.h"
#include "dns/namemap.h"
#include "dns/resolvconf.h"
#include "policy/addr.h"
#include "policy/netrule.h"
#include "policy/reason.h"
#include "wire/http_secret.h"

struct event_base;
struct decision_log;
struct dnsd_responder;
struct dnsd_upstream;

enum dnsd_transport {
	DNSD_TRANSPORT_UDP,
	DNSD_TRANSPORT_TCP,
};

/* One decision, for the audit.  Every pointer is valid only during the
 * callback. */
struct dnsd_event {
	enum dnsd_transport transport;
	struct policy_addr client;   /* the program's address (IPv4-mapped unmapped) */
	uint16_t client_port;
	struct policy_addr server;   /* the address the query was sent to: the
				      * resolver the program thought it asked */
	uint16_t server_port;
	bool server_known;           /* false when the kernel gave no PKTINFO */
	/* The question's name as received, labels joined by '.': it may hold
	 * ANY bytes (NUL, '.', control, non-ASCII inside a label): escape it
	 * (log_escape) before printing.  qname_len 0 when there was none. */
	const char *qname;
	size_t qname_len;
	const char *name;            /* canonical name decided on, or NULL */
	uint16_t qtype;              /* 0 when the query could not be parsed */
	/* Why (policy/reason.h's table: its code is the audit record's
	 * "reason"), and the verdict that table gives it: ALLOW (the name is
	 * allowed and was resolved or answered empty), DENY (refused by the
	 * policy, or every address was default-denied), ERROR (malformed
	 * query, upstream failure, a limit). */
	enum policy_reason reason;
	enum policy_verdict verdict;
	const char *rule;            /* text of the deciding rule, or NULL */
	uint16_t hint_port;          /* the port a hint should name, 0: none known */
	int rcode;                   /* rcode answered, -1 when nothing was sent */
	const struct policy_addr *addrs; /* addresses answered */
	size_t n_addrs;
	uint32_t ttl;                /* TTL answered with them */
	size_t n_dropped;            /* default-denied addresses dropped */
	int pid;                     /* the program's process (owner_fn), 0: unknown */
	const char *comm;            /* its comm, raw, or NULL: unknown */
};

typedef void (*dnsd_event_fn)(const struct dnsd_event *ev, void *arg);

/* Limits and timings; 0 in any field means its default. */
struct dnsd_limits {
	uint32_t max_in_flight;       /* queries upstream at once (256) */
	uint32_t max_tcp_conns;       /* TCP connections at once (64) */
	uint32_t max_tcp_in_flight;   /* queries in flight per TCP connection (16) */
	uint32_t tcp_idle_ms;         /* TCP idle timeout (10000, RFC 7766 6.2.3) */
	uint32_t tcp_out_max;         /* bytes queued to one TCP client (262144) */
	uint32_t upstream_timeout_ms; /* first try (2000; c-ares doubles it per retry) */
	uint32_t upstream_tries;      /* (2) */
	uint32_t max_ttl_s;           /* TTL handed out at most (3600) */
	uint32_t map_min_ttl_s;       /* map entries live at least this long (60) */
};

struct dnsd_responder_config {
	struct event_base *base;  /* borrowed; outlives the responder */
	int udp_fd;               /* bound UDP socket (AF_INET6 dual-stack or AF_INET), or -1 */
	int tcp_fd;               /* listening TCP socket, or -1 */
	const struct policy_net_rule *rules; /* borrowed, rules[0..n_rules), kept as they are */
	size_t n_rules;
	const struct policy_addr *host_addrs; /* borrowed; the host's own addresses */
	size_t n_host_addrs;
	struct dnsd_server upstream;
	/* Or, when set, the upstream channel to ask through (a handle of
	 * its own is made on it, dnsd_upstream_share()): its server and
	 * timeouts, not upstream's and the limits', are those used.  One
	 * channel per run is one c-ares set-up per start, not two. */
	struct dnsd_upstream *shared_upstream;
	/* --no-net: no upstream at all; every host name is answered NXDOMAIN
	 * with reason POLICY_REASON_NO_NET (rules and upstream unused), so a
	 * program offline learns at once that no name resolves, and porta
	 * reports each name it asked for. */
	bool offline;
	struct dnsd_namemap *map; /* borrowed; may be NULL (nothing recorded) */
	dnsd_event_fn on_event;   /* may be NULL */
	void *event_arg;
	struct decision_log *log; /* borrowed, or NULL: where every query's decision is
				   * recorded (decision/log.h) */
	decision_owner_fn owner_fn; /* or NULL: who holds the program's socket, asked
				     * once per UDP query (at receive) and per TCP
				     * connection (at accept), for the record's pid
				     * and comm */
	void *owner_arg;
	struct dnsd_limits limits;
	/* every --secret's (placeholder, value), or none: a name holding a
	 * placeholder is refused ("secret-elsewhere") before any upstream
	 * sees it, whatever the rules say (a wildcard rule would otherwise
	 * carry it out as a DNS question) */
	const struct proxy_secret *secrets;
	size_t n_secrets;
};

/* Starts serving on cfg->udp_fd and cfg->tcp_fd (made non-blocking).  On
 * success returns 0 and *out, and the responder owns both fds (closes them in
 * dnsd_responder_destroy()); on failure returns -errno (-EINVAL: no socket,
 * or one of an unexpected family or type; -ENOMEM; what the upstream's
 * creation returned) and the fds stay the caller's.  Call on base's thread
 * before or while the loop runs. */
int dnsd_responder_create(const struct dnsd_responder_config *cfg, struct dnsd_responder **out);

/* Stops serving: queries in flight are abandoned without an answer (and
 * without an event), connections and both sockets are closed, everything is
 * freed.  dnsd_responder_destroy(NULL) is a no-op.  Not from the event
 * callback. */
void dnsd_responder_destroy(struct dnsd_responder *r);

struct dnsd_responder_stats {
	uint64_t queries;          /* messages handled (events emitted) */
	uint64_t upstream_queries; /* questions sent upstream */
	uint64_t cache_hits;       /* answered from an earlier upstream answer */
	uint64_t refused;          /* verdict DENY */
	uint64_t errors;           /* verdict ERROR */
	size_t in_flight;          /* questions upstream now */
	size_t tcp_conns;          /* TCP connections open now */
};

/* Milliseconds of CLOCK_MONOTONIC: the clock the responder stamps name map
 * entries with; the transparent path looks the map up with the same. */
uint64_t dnsd_clock_ms(void);

/* Copies the counters into *out. */
void dnsd_responder_stats(const struct dnsd_responder *r, struct dnsd_responder_stats *out);

#endif /* PORTA_DNS_RESPONDER_H */
