/* sandbox/netpolicy.h: network policy mode's plumbing across the processes.
 *
 * ARCHITECTURE (DESIGN.md, Set-up order step 3, Network):
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
 * Only the first two run in the sandbox's processes; nothing here decides a
 * connection (policy/, netproxy/ and dns/ do).
 */
#ifndef PORTA_SANDBOX_NETPOLICY_H
#define PORTA_SANDBOX_NETPOLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/plan.h"
#include "sandbox/fdpass.h"
#include "sandbox/sandbox.h"

struct event_base;

/* Control-channel message types of this module (sandbox/spawn.c owns 1..15). */
enum sandbox_net_msg {
	SANDBOX_NET_MSG_LISTENERS = 16, /* init -> supervisor: fds + struct sandbox_net_listener[] */
	SANDBOX_NET_MSG_DONE,           /* init -> supervisor: every listener was sent */
	SANDBOX_NET_MSG_WATCH,          /* payload -> supervisor: the seccomp listener fd */
};

enum sandbox_net_kind {
	SANDBOX_NET_TRANSPARENT = 1,
	SANDBOX_NET_DNS_UDP,
	SANDBOX_NET_DNS_TCP,
	SANDBOX_NET_HTTP_PROXY,
	SANDBOX_NET_SOCKS_PROXY,
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
 * routes, every listener, sent over ctl.  0 or -errno (e filled). */
int sandbox_net_init(const struct policy_plan *plan, int ctl, struct sandbox_net_ports *ports,
		     struct porta_error *e);

/* In the payload: a new NULL-terminated environment, envp plus HTTP_PROXY,
 * HTTPS_PROXY, ALL_PROXY, their lowercase forms and NO_PROXY (loopback
 * only).  The array and strings are malloc'd and never freed (execve
 * follows).  NULL on ENOMEM. */
char **sandbox_net_payload_env(char *const envp[], const struct sandbox_net_ports *ports);

/* In the payload, after no_new_privs and Landlock and instead of the base
 * seccomp program: installs POLICY_SECCOMP_NOTIFY_CONNECT and sends its
 * listener to the supervisor.  0 or -errno (e filled). */
int sandbox_net_payload_watch(int ctl, struct porta_error *e);

/* The supervisor's side. */
struct sandbox_netsup;

/* Prepares to serve plan's network policy on base; audit may be NULL.
 * Returns NULL on ENOMEM. */
struct sandbox_netsup *sandbox_netsup_create(struct event_base *base,
					     const struct policy_plan *plan, FILE *audit,
					     bool quiet);

/* Takes one control message of this module (type >= 16): its fds become the
 * netsup's (closed on any error).  On SANDBOX_NET_MSG_DONE the responder and
 * the proxy start.  0 or -errno (e filled): the run must end. */
int sandbox_netsup_take(struct sandbox_netsup *ns, const struct sandbox_fdpass_msg *m,
			const void *data, struct porta_error *e);

struct sandbox_why;

/* --why: hands every refused destination (with the option that would allow
 * it) to w.  Call before sandbox_netsup_destroy(). */
void sandbox_netsup_why(const struct sandbox_netsup *ns, struct sandbox_why *w);

/* Stops serving, prints the end-of-run summary of refusals (unless quiet),
 * frees everything.  destroy(NULL) is a no-op. */
/* A host without user namespaces (policy/degrade.h): the supervisor itself
 * listens for the HTTP and SOCKS5 proxies on the host's 127.0.0.1 (ports
 * chosen by the kernel, stored in *ports), serves the proxy without a DNS
 * responder, and from then on judges notified connects with
 * sandbox_connect_watch_handle_local(): only the proxy ports are reachable.
 * 0 or -errno (e filled). */
int sandbox_netsup_listen_local(struct sandbox_netsup *ns, struct sandbox_net_ports *ports,
				struct porta_error *e);

void sandbox_netsup_destroy(struct sandbox_netsup *ns);

#endif /* PORTA_SANDBOX_NETPOLICY_H */
