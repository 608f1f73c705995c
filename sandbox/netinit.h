/* sandbox/netinit.h: network policy mode inside the sandbox: init's listeners,
 * the payload's environment and connect watch.
 *
 * ARCHITECTURE (docs/design.md, Set-up order, init step 4, Network):
 *   init       brings lo up, makes every address local (AnyIP), creates the
 *              listeners while it still holds capabilities (ports < 1024):
 *              one dual-stack TCP listener per port a rule names, DNS on UDP
 *              and TCP port 53, the HTTP and SOCKS5 proxy front ends on
 *              loopback; sends them all to the supervisor and closes its
 *              copies.
 *   payload    announces the proxies in its environment, installs the seccomp
 *              program that notifies connect(), and sends that listener to
 *              the supervisor before execve.
 *   supervisor takes the fds off the control channel and serves them on its
 *              event loop: the DNS responder, the proxy, the connect watch,
 *              every decision recorded in one audit stream.
 * Only the first two are here (the supervisor's side is supervisor/net.h);
 * nothing here decides a connection (policy/, netproxy/ and dns/ do).
 */
#ifndef PORTA_SANDBOX_NETINIT_H
#define PORTA_SANDBOX_NETINIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/plan.h"
#include "policy/seccomp_table.h"
#include "common/error.h"

/* Transparent listeners at most, one per port the rules name (issue 3). */
#define SANDBOX_MAX_LISTENERS 1024


enum sandbox_net_kind {
	SANDBOX_NET_TRANSPARENT = 1,
	SANDBOX_NET_DNS_UDP,
	SANDBOX_NET_DNS_TCP,
	SANDBOX_NET_HTTP_PROXY,
	SANDBOX_NET_SOCKS_PROXY,
	SANDBOX_NET_SOCK_DIAG, /* not a listener: a NETLINK_SOCK_DIAG socket of the
				* sandbox's network namespace (port 0), with which
				* the supervisor asks who holds a peer's socket
				* (supervisor/owner.h) */
};

struct sandbox_net_listener {
	uint16_t kind; /* enum sandbox_net_kind */
	uint16_t port;
};

/* The loopback ports of the proxy front ends, chosen by the kernel in init
 * and inherited by the payload through fork. */
struct sandbox_net_ports {
	uint16_t http;
	uint16_t socks;
};

/* In init, in the new network namespace, with capabilities: lo, AnyIP
 * routes, every listener and the sock_diag socket (when the kernel gives
 * one: without it only the audit's pid and comm are lost), sent over ctl.
 * 0 or -errno (e filled). */
int sandbox_net_init(const struct policy_plan *plan, int ctl, struct sandbox_net_ports *ports,
		     struct porta_error *e);

/* In init under --no-net, in the new network namespace, with capabilities:
 * lo up, each of plan->resolvers made a local address (and nothing else:
 * every other address stays unreachable), DNS listeners on UDP and TCP
 * [::]:53 sent over ctl, then SANDBOX_CTL_NET_DONE.  The supervisor answers
 * every name "no such host" and reports it (supervisor/net.h).  0 or
 * -errno (e filled). */
int sandbox_net_init_offline(const struct policy_plan *plan, int ctl, struct porta_error *e);

/* A listening TCP socket (CLOEXEC, non-blocking) on [::]:port, dual-stack,
 * or, with loopback_only, on 127.0.0.1 at a port the kernel chooses
 * (written to *bound): init's transparent listeners and proxy front ends,
 * and on a degraded host the supervisor's proxies.  The fd or -errno. */
int sandbox_net_tcp_listener(uint16_t port, bool loopback_only, uint16_t *bound);

/* In the payload: a new NULL-terminated environment, envp plus HTTP_PROXY,
 * HTTPS_PROXY, ALL_PROXY, their lowercase forms and NO_PROXY (loopback
 * only).  The array and strings are malloc'd and never freed (execve
 * follows).  NULL on ENOMEM. */
char **sandbox_net_payload_env(char *const envp[], const struct sandbox_net_ports *ports);

/* How the connect watch's listener reaches the supervisor (netinit.c).
 * By copy, where porta may copy descriptors (sandbox_watch_can_copy()):
 * the payload sends its own pidfd before the filter exists, writes the
 * listener's number once it does, and waits for porta's SIGUSR1, sent once
 * porta holds a copy (sandbox_watch_copy()).  Elsewhere through a helper
 * process made before the filter, which sends the listener with its own
 * pidfd and, with ack, waits for that signal itself. */
struct sandbox_watch_handover {
	int ctl;
	bool by_copy;
	bool ack;  /* the helper waits for porta's SIGUSR1 */
	pid_t pid; /* the helper's; -1: none */
	int from;  /* the pipe's ends: the helper reads the listener's number */
	int to;
	int listener;  /* by copy: the payload's own, until porta took it */
	sigset_t mask; /* by copy: the caller's, SIGUSR1 blocked meanwhile */
};

/* Whether porta may copy a descriptor of the payload with pidfd_getfd(2):
 * the call not refused by a seccomp profile around porta (Docker's and
 * Podman's defaults refuse it) and Yama's ptrace_scope below 2 or porta
 * root.  Supervisor side, before the clone. */
bool sandbox_watch_can_copy(void);

/* Starts the handover first in the payload, before its ceilings: by copy,
 * sends SANDBOX_CTL_NET_WATCH_FROM with the payload's pidfd; else starts
 * the helper, which sends SANDBOX_CTL_NET_WATCH (the listener and its own
 * pidfd) once the listener exists.  0 or -errno. */
int sandbox_watch_handover_start(int ctl, bool by_copy, bool ack, struct sandbox_watch_handover *h);

/* Installs set (a filter with a listener) on the calling thread and hands
 * the listener over: through the helper, returning once it ended; by copy,
 * returning once porta was told where the listener is, so that the
 * payload's last steps run while porta copies it.  0 or -errno (-EBUSY:
 * another listener is in use; -EPIPE: the handing failed). */
int sandbox_watch_install(struct sandbox_watch_handover *h, enum policy_seccomp_variant set);

/* By copy, the last step before execve: waits for porta's SIGUSR1 (it holds
 * the listener), closes the payload's own and restores the signal mask.
 * Through a helper, nothing is left to do.  0 or -EPIPE (no signal within
 * 30 s). */
int sandbox_watch_handed(struct sandbox_watch_handover *h);

/* sandbox_watch_install() of POLICY_SECCOMP_NOTIFY_CONNECT, with e filled. */
int sandbox_net_payload_watch(struct sandbox_watch_handover *h, struct porta_error *e);

/* Supervisor side: the listener a SANDBOX_CTL_NET_WATCH_AT message (data,
 * len) names, copied from the process of from (the pidfd of
 * SANDBOX_CTL_NET_WATCH_FROM).  The new fd (O_CLOEXEC) or -errno. */
int sandbox_watch_copy(int from, const void *data, size_t len);

#endif /* PORTA_SANDBOX_NETINIT_H */
