/* supervisor/net.h: network policy mode as the supervisor serves it: the
 * listeners init made, the DNS responder, the proxy and the connect watch on
 * the event loop, every decision recorded.
 *
 * ARCHITECTURE: init creates the listeners and the payload its connect
 * watch (sandbox/netinit.h); they arrive here over the control channel.
 */
#ifndef PORTA_SUPERVISOR_NET_H
#define PORTA_SUPERVISOR_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/error.h"
#include "netproxy/proxy.h"
#include "policy/plan.h"
#include "sandbox/fdpass.h"
#include "sandbox/netinit.h"

struct event_base;

struct supervisor_net;

/* Prepares to serve plan's network policy on base; audit may be NULL.
 * Returns NULL on ENOMEM. */
struct supervisor_net *supervisor_net_create(struct event_base *base,
					     const struct policy_plan *plan, FILE *audit,
					     bool quiet);

/* Takes one control message of this module (type >= 16): its fds become the
 * netsup's (closed on any error).  On SANDBOX_CTL_NET_DONE the decision log
 * opens, and the responder and the proxy start at the first packet or
 * connection on any listener (a failure then goes to the failure callback).
 * 0 or -errno (e filled): the run must end. */
int supervisor_net_take(struct supervisor_net *ns, const struct sandbox_fdpass_msg *m,
			const void *data, struct porta_error *e);

/* What the loop calls when serving fails after supervisor_net_take()
 * returned (the responder and the proxy start at first use): the run must
 * end, as for an error returned there. */
typedef void (*supervisor_net_fail_fn)(void *arg, const struct porta_error *e);
void supervisor_net_on_failure(struct supervisor_net *ns, supervisor_net_fail_fn fn, void *arg);

/* The connections the proxy terminates (netproxy/proxy.h, proxy_term_fn),
 * and every secret for the tripwire (borrowed); before the listeners
 * arrive.  fn NULL: none. */
void supervisor_net_terminate(struct supervisor_net *ns, proxy_term_fn fn, void *arg,
			      const struct proxy_secret *secrets, size_t n_secrets);

/* init's pid in the supervisor's pid namespace, once cloned: with the
 * sock_diag socket init sends, the audit names the process behind each
 * proxied connection and DNS query (owner.h).  Call before the loop serves
 * SANDBOX_CTL_NET_DONE; without it those records carry no pid or comm. */
void supervisor_net_set_init(struct supervisor_net *ns, pid_t init);
/* supervisor_net_set_init(), and the Unix rule's state for the watch
 * (supervisor/unixsock.h): degraded says whether the run has no mount
 * namespace.  0 or -ENOMEM. */
int supervisor_net_set_init_unix(struct supervisor_net *ns, pid_t init, bool degraded);

struct supervisor_why;

/* --why: hands every refused destination (with the option that would allow
 * it) to w.  Call before supervisor_net_destroy(). */
void supervisor_net_why(const struct supervisor_net *ns, struct supervisor_why *w);

/* A host without user namespaces (policy/degrade.h): the supervisor itself
 * listens for the HTTP and SOCKS5 proxies on the host's 127.0.0.1 (ports
 * chosen by the kernel, stored in *ports), serves the proxy without a DNS
 * responder, and from then on judges notified connects with
 * supervisor_connect_watch_handle_local(): only the proxy ports are reachable.
 * 0 or -errno (e filled). */
int supervisor_net_listen_local(struct supervisor_net *ns, struct sandbox_net_ports *ports,
				struct porta_error *e);

/* How many distinct destinations were refused so far (0 for NULL). */
size_t supervisor_net_refused(const struct supervisor_net *ns);

/* Stops serving, prints the end-of-run summary of refusals (unless quiet),
 * frees everything.  destroy(NULL) is a no-op. */
void supervisor_net_destroy(struct supervisor_net *ns);

#endif /* PORTA_SUPERVISOR_NET_H */
