/* decision/owner.h: who holds the program's end of a connection or query.
 *
 * ARCHITECTURE: the proxy (netproxy/) and the DNS responder (dns/) see the
 * program only as a peer address; the supervisor can tell which process
 * holds that socket (supervisor/owner.h) but sits above both.  So each of
 * them takes a decision_owner_fn in its configuration and calls it once per
 * new connection (at accept) or UDP query (at receive), and copies what it
 * answers into the pid and comm of every struct decision (log.h) about it.
 * The type lives here, below both, because it fills a decision.
 */
#ifndef PORTA_DECISION_OWNER_H
#define PORTA_DECISION_OWNER_H

#include <stdbool.h>
#include <sys/socket.h>

/* The process holding a socket. */
struct decision_owner {
	int pid;       /* as the program sees itself (its innermost pid namespace); 0: unknown */
	char comm[16]; /* /proc/PID/comm, raw bytes, NUL-terminated; "" when unknown */
};

/* Asks who holds the program's socket of a connection or query that reached
 * one of porta's sockets: protocol is IPPROTO_TCP or IPPROTO_UDP, peer the
 * program's address as porta's socket sees it (getpeername(2), recvmsg(2)'s
 * source), local porta's own end (getsockname(2), or the query's
 * destination).  Both pointers are borrowed for the call.  Returns true and
 * fills *out when a holder was found; false (and *out zeroed) when the
 * kernel could not tell.  Called on the event loop's thread; it may take
 * a few system calls per process of the sandbox, so once per connection or
 * query, never per packet. */
typedef bool (*decision_owner_fn)(void *arg, int protocol, const struct sockaddr *peer,
				  socklen_t peer_len, const struct sockaddr *local,
				  socklen_t local_len, struct decision_owner *out);

#endif /* PORTA_DECISION_OWNER_H */
