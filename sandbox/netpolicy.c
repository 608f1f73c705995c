/* sandbox/netpolicy.c: see netpolicy.h. */
#include "sandbox/netpolicy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/log.h"
#include "dns/namemap.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "netproxy/proxy.h"
#include "policy/portset.h"
#include "sandbox/connect_watch.h"
#include "sandbox/internal.h"
#include "sandbox/seccomp.h"
#include "sandbox/why.h"

/* ---- init ------------------------------------------------------------- */

/* A listening TCP socket on [::]:port, dual-stack (IPv4 arrives mapped), or
 * on 127.0.0.1 with port 0 when loopback_only (the proxy front ends). */
static int tcp_listener(uint16_t port, bool loopback_only, uint16_t *bound)
{
	int one = 1, zero = 0;
	_cleanup_fd_ int fd = -1;

	if (loopback_only) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sa);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
			return -errno;
		*bound = ntohs(sa.sin_port);
	} else {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return -errno;
		*bound = port;
	}
	if (listen(fd, 1024) < 0)
		return -errno;
	return steal_fd(&fd);
}

/* UDP [::]:53, dual-stack: every resolver address the program names lands
 * here (AnyIP); the responder answers from the address asked. */
static int udp_dns(void)
{
	int zero = 0;
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(53),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	_cleanup_fd_ int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return steal_fd(&fd);
}

/* Sends what is batched (at most SANDBOX_FDPASS_MAX_FDS) and closes init's
 * copies whatever happens: the supervisor owns them from here. */
static int flush_batch(int ctl, struct sandbox_net_listener *what, int *fds, size_t *n)
{
	int rc = 0;

	if (*n && ctl >= 0)
		rc = sandbox_fdpass_send(ctl, SANDBOX_NET_MSG_LISTENERS, what, *n * sizeof(*what),
					 fds, *n);
	for (size_t i = 0; i < *n; i++)
		close(fds[i]);
	*n = 0;
	return rc;
}

int sandbox_net_init(const struct policy_plan *plan, int ctl, struct sandbox_net_ports *ports,
		     struct porta_error *e)
{
	struct sandbox_net_listener what[SANDBOX_FDPASS_MAX_FDS];
	int fds[SANDBOX_FDPASS_MAX_FDS];
	size_t n = 0;
	int r;

	if ((r = sandbox_netns_lo_up()))
		return porta_fail(e, "bring up lo", NULL, -r, NULL);
	if ((r = sandbox_netns_anyip()))
		return porta_fail(e, "route every address to lo", NULL, -r, NULL);

	/* Transparent ports first, then DNS (UDP, TCP), then the proxies. */
	size_t total = plan->n_listen_ports + 4;
	for (size_t i = 0; i < total; i++) {
		size_t extra = i < plan->n_listen_ports ? 0 : i - plan->n_listen_ports + 1;
		enum sandbox_net_kind kind = extra == 0 ? SANDBOX_NET_TRANSPARENT
					     : extra == 1 ? SANDBOX_NET_DNS_UDP
					     : extra == 2 ? SANDBOX_NET_DNS_TCP
					     : extra == 3 ? SANDBOX_NET_HTTP_PROXY
							  : SANDBOX_NET_SOCKS_PROXY;
		uint16_t want = extra == 0 ? plan->listen_ports[i] : extra <= 2 ? 53 : 0;
		uint16_t bound = want;
		int fd = kind == SANDBOX_NET_DNS_UDP ? udp_dns()
						     : tcp_listener(want, want == 0, &bound);
		if (fd < 0) {
			char port[16];
			flush_batch(-1, what, fds, &n); /* closes what is batched */
			snprintf(port, sizeof(port), "%u", (unsigned)want);
			return porta_fail(e, want ? "listen on port" : "listen on a loopback port",
					    want ? port : NULL, -fd, NULL);
		}
		if (kind == SANDBOX_NET_HTTP_PROXY)
			ports->http = bound;
		else if (kind == SANDBOX_NET_SOCKS_PROXY)
			ports->socks = bound;
		what[n] = (struct sandbox_net_listener){ (uint16_t)kind, bound };
		fds[n++] = fd;
		if (n == SANDBOX_FDPASS_MAX_FDS && (r = flush_batch(ctl, what, fds, &n)))
			return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	}
	if ((r = flush_batch(ctl, what, fds, &n)) ||
	    (r = sandbox_fdpass_send(ctl, SANDBOX_NET_MSG_DONE, NULL, 0, NULL, 0)))
		return porta_fail(e, "pass listeners to porta", NULL, -r, NULL);
	return 0;
}

/* ---- payload ---------------------------------------------------------- */

char **sandbox_net_payload_env(char *const envp[], const struct sandbox_net_ports *ports)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
					     "http_proxy", "https_proxy", "all_proxy", "no_proxy" };
	size_t n = 0;

	while (envp[n])
		n++;
	char **out = calloc(n + ARRAY_LEN(names) + 1, sizeof(char *));
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t k = 0; k < ARRAY_LEN(names); k++) {
			size_t l = strlen(names[k]);
			replaced |= strncmp(envp[i], names[k], l) == 0 && envp[i][l] == '=';
		}
		if (!replaced)
			out[o++] = envp[i];
	}
	for (size_t k = 0; k < ARRAY_LEN(names); k++) {
		char buf[96];
		const char *lower = names[k];
		bool all = strcasecmp(lower, "ALL_PROXY") == 0, no = strcasecmp(lower, "NO_PROXY") == 0;
		if (no)
			snprintf(buf, sizeof(buf), "%s=localhost,127.0.0.1,::1", names[k]);
		else if (all)
			snprintf(buf, sizeof(buf), "%s=socks5h://127.0.0.1:%u", names[k],
				 (unsigned)ports->socks);
		else
			snprintf(buf, sizeof(buf), "%s=http://127.0.0.1:%u", names[k],
				 (unsigned)ports->http);
		out[o] = strdup(buf);
		if (!out[o++])
			return NULL;
	}
	out[o] = NULL;
	return out;
}

int sandbox_net_payload_watch(int ctl, struct porta_error *e)
{
	int lfd = -1;
	int r = sandbox_seccomp_install_listener(POLICY_SECCOMP_NOTIFY_CONNECT, &lfd);

	if (r == -EBUSY) {
		/* porta itself runs under another supervisor's listener (one
		 * per thread): keep the enforcement, lose only the observation. */
		log_msg(LOG_LEVEL_WARN, "connect() cannot be watched here (a seccomp listener is "
					"already in use): refusals of closed ports are not named");
		r = sandbox_seccomp_install(POLICY_SECCOMP_BASE);
		return r ? porta_fail(e, "seccomp", NULL, -r, NULL) : 0;
	}
	if (r)
		return porta_fail(e, "seccomp", NULL, -r, NULL);
	r = sandbox_fdpass_send(ctl, SANDBOX_NET_MSG_WATCH, NULL, 0, &lfd, 1);
	close(lfd);
	return r ? porta_fail(e, "pass the connect watch to porta", NULL, -r, NULL) : 0;
}

/* ---- supervisor ------------------------------------------------------- */

struct sandbox_netsup {
	struct event_base *base;
	const struct policy_plan *plan;
	FILE *audit;
	bool quiet;
	struct proxy_listener transparent[SANDBOX_MAX_LISTENERS];
	size_t n_transparent;
	int dns_udp, dns_tcp, http, socks;
	struct policy_port_set allowed; /* ports the connect watch lets through */
	struct dnsd_namemap *map;
	struct dnsd_upstream *upstream;
	struct dnsd_responder *responder;
	struct proxy *proxy;
	int watch_fd;
	struct event *ev_watch;
	bool local; /* degraded host: the proxies on the host's loopback, no netns */
};

struct sandbox_netsup *sandbox_netsup_create(struct event_base *base,
					     const struct policy_plan *plan, FILE *audit,
					     bool quiet)
{
	struct sandbox_netsup *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	ns->base = base;
	ns->plan = plan;
	ns->audit = audit;
	ns->quiet = quiet;
	ns->dns_udp = ns->dns_tcp = ns->http = ns->socks = ns->watch_fd = -1;
	policy_port_set_clear(&ns->allowed);
	return ns;
}

static void on_dns_event(const struct dnsd_event *ev, void *arg)
{
	struct sandbox_netsup *ns = arg;
	char dst[POLICY_ADDR_STRLEN + 16], addr[POLICY_ADDR_STRLEN];

	if (!ns->proxy)
		return;
	if (ev->server_known) {
		policy_addr_format(&ev->server, addr);
		snprintf(dst, sizeof(dst), ev->server.family == POLICY_ADDR_V6 ? "[%s]:%u" : "%s:%u",
			 addr, (unsigned)ev->server_port);
	}
	struct proxy_audit_rec rec = {
		.kind = "dns",
		.dst = ev->server_known ? dst : NULL,
		/* the name decided on (canonical) when there was one, else the
		 * bytes as asked (escaped by the proxy) */
		.host = ev->name ? ev->name : ev->qname,
		.host_len = ev->name ? strlen(ev->name) : ev->qname_len,
		.rule = ev->rule,
		.verdict = ev->verdict == DNSD_VERDICT_ALLOW ? "allow"
			   : ev->verdict == DNSD_VERDICT_DENY ? "deny"
								 : "error",
		.reason = ev->reason,
		.port = 443,
	};
	proxy_record(ns->proxy, &rec);
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	struct sandbox_netsup *ns = arg;
	struct sandbox_connect_event ev;

	(void)what;
	for (;;) {
		int r = ns->local ? sandbox_connect_watch_handle_local(fd, &ns->allowed, &ev)
				  : sandbox_connect_watch_handle(fd, &ns->allowed, &ev);
		if (r == -EAGAIN)
			return;
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			/* Closing the listener answers every waiting and later
			 * call (ENOSYS): no process of the command can hang. */
			event_del(ns->ev_watch);
			close(ns->watch_fd);
			ns->watch_fd = -1;
			return;
		}
		if (ev.withdrawn || ev.verdict != SANDBOX_CONNECT_REFUSE || !ns->proxy)
			continue;
		char dst[80];
		sandbox_connect_event_dst(&ev, dst, sizeof(dst));
		bool udp = ev.sock_type == SOCK_DGRAM;
		struct proxy_audit_rec rec = {
			.kind = "connect",
			.pid = ev.ns_pid,
			.comm = ev.comm,
			.dst = dst,
			.verdict = "deny",
			/* no option forwards UDP but DNS: no hint for it; on a
			 * degraded host only the proxy is reachable */
			.reason = ns->local ? "not-through-proxy"
				  : udp     ? "udp-not-forwarded"
					    : "port-not-open",
			.port = udp || ns->local ? 0 : ev.port,
		};
		proxy_record(ns->proxy, &rec);
	}
}

static int start_serving(struct sandbox_netsup *ns, struct porta_error *e)
{
	const struct policy_plan *plan = ns->plan;
	int r;

	ns->map = dnsd_namemap_create(0);
	if (!ns->map)
		return porta_fail(e, "network policy", NULL, ENOMEM, NULL);
	struct dnsd_upstream_config ucfg = {
		.server = { .addr = plan->dns_upstream, .port = plan->dns_upstream_port },
	};
	if ((r = dnsd_upstream_create(ns->base, &ucfg, &ns->upstream)))
		return porta_fail(e, "DNS upstream", NULL, -r, NULL);
	struct dnsd_responder_config dcfg = {
		.base = ns->base,
		.udp_fd = ns->dns_udp,
		.tcp_fd = ns->dns_tcp,
		.rules = plan->net_rules,
		.n_rules = plan->n_net_rules,
		.host_addrs = plan->host_addrs,
		.n_host_addrs = plan->n_host_addrs,
		.upstream = ucfg.server,
		.map = ns->map,
		.on_event = on_dns_event,
		.event_arg = ns,
	};
	/* A degraded host has no DNS responder: names reach porta only
	 * through the proxy. */
	if (!ns->local && (r = dnsd_responder_create(&dcfg, &ns->responder)))
		return porta_fail(e, "DNS responder", NULL, -r, NULL);
	ns->dns_udp = ns->dns_tcp = -1; /* the responder's now */
	struct proxy_config pcfg = {
		.base = ns->base,
		.rules = plan->net_rules,
		.n_rules = plan->n_net_rules,
		.host_addrs = plan->host_addrs,
		.n_host_addrs = plan->n_host_addrs,
		.map = ns->map,
		.upstream = ns->upstream,
		.transparent = ns->transparent,
		.n_transparent = ns->n_transparent,
		.http_fd = ns->http,
		.socks_fd = ns->socks,
		.audit = ns->audit,
		.quiet = ns->quiet,
		.proxy_only = ns->local,
	};
	if ((r = proxy_create(&pcfg, &ns->proxy)))
		return porta_fail(e, "network proxy", NULL, -r, NULL);
	ns->n_transparent = 0; /* the proxy's now */
	ns->http = ns->socks = -1;
	return 0;
}

int sandbox_netsup_take(struct sandbox_netsup *ns, const struct sandbox_fdpass_msg *m,
			const void *data, struct porta_error *e)
{
	size_t used = 0;
	int rc = 0;

	switch (m->type) {
	case SANDBOX_NET_MSG_LISTENERS: {
		const struct sandbox_net_listener *what = data;
		if (m->len != m->n_fds * sizeof(*what)) {
			rc = porta_fail(e, "listeners from init", NULL, EBADMSG, NULL);
			break;
		}
		for (; used < m->n_fds; used++) {
			int fd = m->fds[used];
			switch (what[used].kind) {
			case SANDBOX_NET_TRANSPARENT:
				if (ns->n_transparent >= SANDBOX_MAX_LISTENERS) {
					rc = porta_fail(e, "listeners from init", NULL, E2BIG, NULL);
					goto out;
				}
				ns->transparent[ns->n_transparent++] =
					(struct proxy_listener){ fd, what[used].port };
				break;
			case SANDBOX_NET_DNS_UDP: ns->dns_udp = fd; break;
			case SANDBOX_NET_DNS_TCP: ns->dns_tcp = fd; break;
			case SANDBOX_NET_HTTP_PROXY: ns->http = fd; break;
			case SANDBOX_NET_SOCKS_PROXY: ns->socks = fd; break;
			default:
				rc = porta_fail(e, "listeners from init", NULL, EBADMSG, NULL);
				goto out;
			}
			policy_port_set_add(&ns->allowed, what[used].port);
		}
		break;
	}
	case SANDBOX_NET_MSG_DONE:
		rc = start_serving(ns, e);
		break;
	case SANDBOX_NET_MSG_WATCH:
		if (m->n_fds != 1 || ns->watch_fd >= 0) {
			rc = porta_fail(e, "connect watch from the command", NULL, EBADMSG, NULL);
			break;
		}
		ns->watch_fd = m->fds[0];
		used = 1;
		ns->ev_watch = event_new(ns->base, ns->watch_fd, EV_READ | EV_PERSIST, on_watch, ns);
		if (!ns->ev_watch || event_add(ns->ev_watch, NULL) < 0)
			rc = porta_fail(e, "connect watch", NULL, ENOMEM, NULL);
		break;
	default:
		rc = porta_fail(e, "control channel", NULL, EBADMSG, NULL);
		break;
	}
out:
	/* fds not taken over are closed: none may leak, none stays open to
	 * keep a listener alive behind porta's back. */
	for (size_t i = used; i < m->n_fds; i++)
		close(m->fds[i]);
	return rc;
}

int sandbox_netsup_listen_local(struct sandbox_netsup *ns, struct sandbox_net_ports *ports,
				struct porta_error *e)
{
	int fd;

	ns->local = true;
	if ((fd = tcp_listener(0, true, &ports->http)) < 0)
		return porta_fail(e, "listen on a loopback port", NULL, -fd, "the HTTP proxy");
	ns->http = fd;
	if ((fd = tcp_listener(0, true, &ports->socks)) < 0)
		return porta_fail(e, "listen on a loopback port", NULL, -fd, "the SOCKS5 proxy");
	ns->socks = fd;
	policy_port_set_add(&ns->allowed, ports->http);
	policy_port_set_add(&ns->allowed, ports->socks);
	return start_serving(ns, e);
}

void sandbox_netsup_why(const struct sandbox_netsup *ns, struct sandbox_why *w)
{
	const char *dst, *reason, *hint;

	for (size_t i = 0; ns && w && proxy_refused_at(ns->proxy, i, &dst, &reason, &hint); i++)
		sandbox_why_add_net(w, dst, reason, hint);
}

void sandbox_netsup_destroy(struct sandbox_netsup *ns)
{
	if (!ns)
		return;
	if (ns->proxy)
		proxy_summary(ns->proxy, stderr);
	if (ns->ev_watch)
		event_free(ns->ev_watch);
	if (ns->watch_fd >= 0)
		close(ns->watch_fd);
	proxy_destroy(ns->proxy);
	dnsd_responder_destroy(ns->responder);
	dnsd_upstream_destroy(ns->upstream);
	dnsd_namemap_destroy(ns->map);
	for (size_t i = 0; i < ns->n_transparent; i++)
		close(ns->transparent[i].fd);
	int *fds[] = { &ns->dns_udp, &ns->dns_tcp, &ns->http, &ns->socks };
	for (size_t i = 0; i < ARRAY_LEN(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
	}
	free(ns);
}
