/* supervisor/owner.h: which process of the sandbox holds the program's end
 * of a connection or DNS query that reached porta.
 *
 * ARCHITECTURE (docs/design.md, Audit and reporting): the proxy and the DNS
 * responder see a program only as a peer address in the sandbox's network
 * namespace.  Two steps name it:
 *   1. the kernel: an exact-match SOCK_DIAG_BY_FAMILY request (sock_diag(7),
 *      linux/inet_diag.h) on a NETLINK_SOCK_DIAG socket that init created
 *      inside that namespace (a netlink socket answers for the namespace it
 *      was made in) gives the program's socket's inode;
 *   2. /proc: the process whose fd table holds "socket:[INODE]", looked for
 *      among the last few holders, then init's descendants (children files,
 *      breadth first), then, when that walk may have missed one, every
 *      process of the sandbox's pid namespace (the one /proc/INIT/ns/pid
 *      names); its pid as the program sees it and its comm, read as the
 *      connect watch reads them (identity.h).
 * supervisor/net.c creates one per run and hands supervisor_owner_lookup()
 * to the proxy and the responder as their decision_owner_fn
 * (decision/owner.h).  The request builder and the reply and link parsers
 * are pure (tests/unit/supervisor/test_owner.c).  One thread: the event
 * loop's.
 */
#ifndef PORTA_SUPERVISOR_OWNER_H
#define PORTA_SUPERVISOR_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "decision/owner.h"

/* fd links read at most per lookup: a sandbox with more open files than this
 * leaves the rest unlooked-at (the record then has no pid). */
#define SUPERVISOR_OWNER_MAX_LINKS 65536
/* Processes that held a socket lately, looked at first. */
#define SUPERVISOR_OWNER_RECENT 8
/* Processes of the walk from init at most; past them /proc is scanned. */
#define SUPERVISOR_OWNER_MAX_PROCS 4096

struct supervisor_owner;

/* diag_fd: a NETLINK_SOCK_DIAG socket of the sandbox's network namespace
 * (the owner's on success, the caller's on failure); init: init's pid in
 * the supervisor's pid namespace, whose pid namespace is the sandbox's.
 * 0 and *out, or -errno (-ESRCH: init is gone; -ENOMEM). */
int supervisor_owner_create(int diag_fd, pid_t init, struct supervisor_owner **out);

/* Closes the socket, frees.  destroy(NULL) does nothing. */
void supervisor_owner_destroy(struct supervisor_owner *o);

/* A decision_owner_fn (decision/owner.h); arg is the struct
 * supervisor_owner.  False when the kernel cannot tell: the socket is
 * closed already (or in TIME_WAIT), no process of the sandbox holds it, or
 * its holder's /proc cannot be read.  When several processes hold the
 * socket (inherited across fork, or passed), the first found: one of the
 * last holders, else the one nearest init (a parent before its children). */
bool supervisor_owner_lookup(void *arg, int protocol, const struct sockaddr *peer,
			     socklen_t peer_len, const struct sockaddr *local, socklen_t local_len,
			     struct decision_owner *out);

/* ---- pure parts ---- */

/* The program's socket as an exact-match request: the bytes of one
 * netlink message (struct nlmsghdr + struct inet_diag_req_v2) into
 * buf[0..cap), SOCK_DIAG_BY_FAMILY with NLM_F_REQUEST and seq.  Both
 * addresses IPv4 (or IPv4-mapped IPv6: what a dual-stack listener shows an
 * IPv4 peer) ask as AF_INET, both IPv6 as AF_INET6.  TCP names the socket by
 * its local end (the peer) and its remote end (local); UDP the other way
 * round, as udp_dump_one() reads them (net/ipv4/udp_diag.c: a lookup of the
 * socket that would receive a datagram from src to dst).  Returns the
 * length, or 0: another protocol, another family, mixed families, or cap
 * too small. */
size_t supervisor_owner_diag_request(int protocol, const struct sockaddr *peer, socklen_t peer_len,
				     const struct sockaddr *local, socklen_t local_len,
				     uint32_t seq, void *buf, size_t cap);

enum supervisor_owner_reply {
	SUPERVISOR_OWNER_REPLY_FOUND,     /* *inode is the socket's (non-zero) */
	SUPERVISOR_OWNER_REPLY_NOT_FOUND, /* ENOENT, or a socket without an inode
					   * (TIME_WAIT), or another socket */
	SUPERVISOR_OWNER_REPLY_ERROR,     /* the kernel refused the request */
	SUPERVISOR_OWNER_REPLY_NONE,      /* nothing in buf answers seq */
	SUPERVISOR_OWNER_REPLY_MALFORMED, /* a message whose lengths do not hold */
};

/* Reads the kernel's answer to request seq from buf[0..len) (one recv(2);
 * messages of another seq are skipped).  port is the program's port (host
 * order), which the socket found must have as its own; for TCP, our_port
 * is porta's, which it must be connected to (0: not checked).  Pure. */
enum supervisor_owner_reply supervisor_owner_diag_parse(const void *buf, size_t len, uint32_t seq,
							uint16_t port, uint16_t our_port,
							uint32_t *inode);

/* The pids of a /proc/PID/task/TID/children file, buf[0..n) ("12 34 "):
 * how many it holds (the first cap of them written to out), stopping at the
 * first byte that is not the kernel's format.  Pure. */
size_t supervisor_owner_parse_pids(const char *buf, size_t n, pid_t *out, size_t cap);

/* True, and *inode, when link[0..n) is exactly "socket:[N]" with N a
 * decimal below 2^32 (readlink(2) of /proc/PID/fd/FD; proc(5)).  Pure. */
bool supervisor_owner_socket_link(const char *link, size_t n, uint32_t *inode);

#endif /* PORTA_SUPERVISOR_OWNER_H */
