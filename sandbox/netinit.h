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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/plan.h"
#include "policy/seccomp_table.h"
#include "common/error.h"

/* Transparent listeners at most, one per port the rules name. */
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

/* How the connect watch's listener reaches the supervisor (netinit.c).  In
 * full, through init: the payload shares init's descriptor table until its
 * execve, leaves the listener in it and its number in a pipe, and init
 * sends it once the payload has executed (sandbox_watch_pass_on()).
 * Degraded (no init), through a helper process made before the filter and
 * the ceilings, which sends the listener. */
struct sandbox_watch_handover {
	int ctl;
	int to_init; /* through init: the pipe's end for the listener's number; else -1 */
	pid_t pid;   /* the helper's; -1: none */
	int from;    /* the pipe's ends: the helper reads the listener's number */
	int to;
};

/* Starts the handover first in the payload, before its ceilings: through
 * init when to_init is a pipe's end (nothing to start), else the helper,
 * which sends SANDBOX_CTL_NET_WATCH with the listener once it exists.  0
 * or -errno. */
int sandbox_watch_handover_start(int ctl, int to_init, struct sandbox_watch_handover *h);

/* Installs set (a filter with a listener) on the calling thread and hands
 * the listener over: through init, its number written to init and the
 * listener left open (close-on-exec: the command never holds it); through
 * the helper, returning once it ended.  0 or -errno (-EBUSY: another
 * listener is in use; -EPIPE: the handing failed). */
int sandbox_watch_install(struct sandbox_watch_handover *h, enum policy_seccomp_variant set);

/* In init, once the payload executed or ended: the listener whose number
 * arrives on from (the pipe's other end, whose write end init closed)
 * goes to the supervisor as SANDBOX_CTL_NET_WATCH and is closed here.  0
 * (nothing arrived: the payload ended before its filter) or -errno. */
int sandbox_watch_pass_on(int ctl, int from);

/* sandbox_watch_install() of POLICY_SECCOMP_NOTIFY_CONNECT, with e filled. */
int sandbox_net_payload_watch(struct sandbox_watch_handover *h, struct porta_error *e);

#endif /* PORTA_SANDBOX_NETINIT_H */
