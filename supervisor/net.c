/* supervisor/net.c: see net.h. */
#include "supervisor/net.h"

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
#include "decision/log.h"
#include "dns/namemap.h"
#include "dns/responder.h"
#include "dns/upstream.h"
#include "netproxy/proxy.h"
#include "policy/portset.h"
#include "sandbox/control.h"
#include "supervisor/unixsock.h"
#include "supervisor/watch.h"
#include "supervisor/owner.h"
#include "supervisor/why.h"

struct supervisor_net {
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
	struct decision_log *log; /* every decision's record; outlives the proxy and the responder */
	int watch_fd;
	struct event *ev_watch;
	struct supervisor_connect_cache watch_cache; /* the watch's pidfd (watch.h) */
	bool local; /* degraded host: the proxies on the host's loopback, no netns */
	int diag_fd;  /* init's sock_diag socket, until the owner lookup takes it */
	pid_t init;   /* init's pid (supervisor_net_set_init), 0: not known */
	struct supervisor_owner *owner; /* who holds a peer's socket, or NULL */
	proxy_term_fn term_fn;          /* TLS termination (supervisor_net_terminate) */
	void *term_arg;
	const struct proxy_secret *secrets; /* the tripwire, every secret */
	size_t n_secrets;
	/* Until the first packet or connection: one read event per listener,
	 * and what a failure to start serving then calls (wake_up()). */
	struct event *wake[SANDBOX_MAX_LISTENERS + 4];
	size_t n_wake;
	supervisor_net_fail_fn fail_fn;
	void *fail_arg;
	struct supervisor_unix *ux; /* the Unix rule (unixsock.h), from set_init */
#define UNIX_SEEN 16
	size_t unix_seen[UNIX_SEEN]; /* hashes of the paths already said */
	size_t n_unix_seen;
	size_t unix_refused;
	/* Unix-socket calls refused, for --why (supervisor_net_why()) */
	struct unix_refusal {
		char *path;
		int err;
	} unix_ref[64];
	size_t n_unix_ref;
};

struct supervisor_net *supervisor_net_create(struct event_base *base,
					     const struct policy_plan *plan, FILE *audit,
					     bool quiet)
{
	struct supervisor_net *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	ns->base = base;
	ns->plan = plan;
	ns->audit = audit;
	ns->quiet = quiet;
	ns->dns_udp = ns->dns_tcp = ns->http = ns->socks = ns->watch_fd = ns->diag_fd = -1;
	ns->watch_cache = (struct supervisor_connect_cache)SUPERVISOR_CONNECT_CACHE_INIT;
	/* ns->allowed is empty as calloc(3) left it: its 8 KiB of pages stay
	 * untouched (and uncopied by the clone) where nothing is allowed, as
	 * with the network open */
	return ns;
}

/* The destination of a notified connect(), as an address. */
static bool event_addr(const struct supervisor_connect_event *ev, struct policy_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (ev->addr_status != SUPERVISOR_CONNECT_ADDR_OK)
		return false;
	if (ev->family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ev->sa;
		a->family = POLICY_ADDR_V4;
		memcpy(a->b, &s4->sin_addr, 4);
		return true;
	}
	if (ev->family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ev->sa;
		a->family = POLICY_ADDR_V6;
		memcpy(a->b, &s6->sin6_addr, 16);
		return true;
	}
	return false;
}

/* A Unix socket the rule refused: one line, once per path (the last few
 * remembered), naming the process and the option that would reopen it. */
static void unix_refused(struct supervisor_net *ns, const struct supervisor_connect_event *ev,
			 const struct supervisor_unix_result *u)
{
	size_t h = 5381;
	for (const char *p = u->path; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (size_t i = 0; i < UNIX_SEEN; i++) {
		if (ns->unix_seen[i] == h)
			return;
	}
	ns->unix_seen[ns->n_unix_seen++ % UNIX_SEEN] = h;
	ns->unix_refused++;
	if (ns->quiet)
		return;
	char path[3 * sizeof(u->path)], comm[64];
	log_escape(u->path, strlen(u->path), path, sizeof(path));
	log_escape(ev->comm, strlen(ev->comm), comm, sizeof(comm));
	const char *why = u->path[0] == '@' ? "an abstract socket no process of the sandbox holds"
			  : u->verdict == POLICY_UNIX_REFUSED_RUNTIME
				  ? "a porta runtime directory: never reopened"
			  : u->verdict == POLICY_UNIX_REFUSED_CREDENTIAL
				  ? "a credential socket: --allow-unix PATH grants it"
				  : "not granted: --allow-unix PATH grants it";
	log_msg(LOG_LEVEL_WARN, "refused: Unix socket %s (%s[%d], %s)", path,
		comm[0] ? comm : "?", (int)ev->ns_pid, why);
}

/* A refused Unix-socket call, kept for --why (once per path). */
static void keep_for_why(struct supervisor_net *ns, const struct supervisor_unix_result *u)
{
	if (!ns->plan->opts->why || u->result >= 0 || u->path[0] != '/' ||
	    ns->n_unix_ref == ARRAY_LEN(ns->unix_ref))
		return;
	for (size_t i = 0; i < ns->n_unix_ref; i++) {
		if (strcmp(ns->unix_ref[i].path, u->path) == 0)
			return;
	}
	char *p = strdup(u->path);
	if (p)
		ns->unix_ref[ns->n_unix_ref++] = (struct unix_refusal){ p, -u->result };
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor_net *ns = arg;
	struct supervisor_connect_event ev;

	(void)what;
	/* One notification per wake-up: the listener's event is level-triggered,
	 * so a second waiting call brings the loop back (a poll(2) less after
	 * each answer than draining until nothing is pending). */
	enum policy_net_mode nm = ns->plan->opts->net_mode;
	bool offline = nm == POLICY_NET_NONE;
	struct supervisor_connect_cache *cache = &ns->watch_cache;
	enum supervisor_watch_mode mode = ns->local ? SUPERVISOR_WATCH_LOCAL
					  : offline ? SUPERVISOR_WATCH_OFFLINE
					  : nm == POLICY_NET_OPEN ? SUPERVISOR_WATCH_OPEN
								 : SUPERVISOR_WATCH_POLICY;
	struct supervisor_unix_result ures;
	int r = supervisor_connect_watch_handle_mode(fd, mode, &ns->allowed, ns->ux, cache, &ev,
						     &ures);
	if (r == -EAGAIN || r == -ENOENT)
		return; /* nothing pending, or the call vanished before its receipt */
	if (r < 0) {
		/* Closing the listener answers every waiting and later
		 * call (ENOSYS): no process of the command can hang. */
		event_del(ns->ev_watch);
		close(ns->watch_fd);
		ns->watch_fd = -1;
		supervisor_connect_cache_clear(&ns->watch_cache);
		return;
	}
	if (ev.withdrawn)
		return;
	if (ures.looked) {
		if (ures.withheld)
			unix_refused(ns, &ev, &ures);
		keep_for_why(ns, &ures);
		return;
	}
	if (ev.verdict != SUPERVISOR_CONNECT_REFUSE)
		return;
	char dst[80];
	supervisor_connect_event_dst(&ev, dst, sizeof(dst));
	bool udp = ev.sock_type == SOCK_DGRAM;
	struct policy_addr a;
	bool have_addr = event_addr(&ev, &a);
	struct decision d = {
		.kind = DECISION_KIND_CONNECT,
		/* no option forwards UDP but DNS: no hint for it; on a
		 * degraded host only the proxy is reachable; under
		 * --no-net, --allow-net in its place */
		.reason = ns->local ? POLICY_REASON_NOT_THROUGH_PROXY
			  : udp     ? POLICY_REASON_UDP_NOT_FORWARDED
			  : offline ? POLICY_REASON_NO_NET
				    : POLICY_REASON_PORT_NOT_OPEN,
		.pid = ev.ns_pid,
		.comm = ev.comm,
		.dst = dst,
		.hint_addr = have_addr ? &a : NULL,
		.port = ev.port,
	};
	/* an address porta's resolver handed out: the name the program
	 * asked for, on the port it used, is what an option should name
	 * (the address may change; the most recent answer first) */
	struct dnsd_namemap_name names[1];
	if (have_addr && ns->map &&
	    dnsd_namemap_lookup(ns->map, &a, dnsd_clock_ms(), names, 1) > 0)
		d.hint_name = names[0].name;
	/* a name the proxy would carry there: the client ignored the
	 * proxy variables, and the reason should say so */
	if (!ns->local && !udp && d.hint_name) {
		struct policy_net_query q = { .name = d.hint_name, .addr = &a, .port = ev.port,
					      .via_proxy = true };
		struct policy_net_decision pd;
		if (policy_net_decide(ns->plan->net_rules, ns->plan->n_net_rules, &q, &pd) ==
		    POLICY_NET_ALLOWED)
			d.reason = POLICY_REASON_PROXY_ONLY;
	}
	decision_log_record(ns->log, &d);
}

/* Who holds a peer's socket (owner.h): only with init's sock_diag socket
 * and its pid, so never on a degraded host, where the proxies listen on the
 * host's loopback and no pid namespace bounds the processes to look at
 * (docs/design.md, Audit and reporting).  Without it records lack only
 * their pid and comm.  And only with an audit file, the one place those are
 * written: each lookup reads the holder's /proc (tens of microseconds on
 * the loop that also answers the connect watch and relays,
 * docs/benchmarks/relay.md). */
static void start_owner(struct supervisor_net *ns)
{
	int r;

	if (ns->diag_fd < 0 || ns->init <= 0 || !decision_log_audits(ns->log))
		return;
	if ((r = supervisor_owner_create(ns->diag_fd, ns->init, &ns->owner))) {
		log_msg(LOG_LEVEL_DEBUG, "no socket owners in the audit: %s", strerror(-r));
		return;
	}
	ns->diag_fd = -1; /* the owner lookup's now */
}

/* --no-net: the responder alone, with no upstream and no rules: every name
 * is answered "no such host" and recorded (reason no-net), nothing leaves. */
static int start_offline(struct supervisor_net *ns, struct porta_error *e)
{
	struct dnsd_responder_config dcfg = {
		.base = ns->base,
		.udp_fd = ns->dns_udp,
		.tcp_fd = ns->dns_tcp,
		.offline = true,
		.log = ns->log,
		.owner_fn = ns->owner ? supervisor_owner_lookup : NULL,
		.owner_arg = ns->owner,
	};
	int r = dnsd_responder_create(&dcfg, &ns->responder);

	if (r)
		return porta_fail(e, "DNS responder", NULL, -r, NULL);
	ns->dns_udp = ns->dns_tcp = -1; /* the responder's now */
	return 0;
}

/* The decision log, before anything is served: the connect watch records
 * its refusals from the command's first call on. */
static int open_log(struct supervisor_net *ns, struct porta_error *e)
{
	const struct policy_options *o = ns->plan->opts;
	/* --audit-max, else the default: a flood of decisions (a loop asking
	 * for names) fills no disk (README, "Reading the audit") */
	uint64_t mib = o->audit_max_mib.set ? o->audit_max_mib.value : POLICY_DEFAULT_AUDIT_MAX_MIB;
	struct decision_log_config lcfg = { .audit = ns->audit, .quiet = ns->quiet,
					    .proxy_only = ns->local, .audit_max = mib << 20 };
	int r = decision_log_create(&lcfg, &ns->log);

	return r ? porta_fail(e, "network policy", NULL, -r, NULL) : 0;
}

static int start_serving(struct supervisor_net *ns, struct porta_error *e)
{
	const struct policy_plan *plan = ns->plan;
	int r;

	start_owner(ns);
	if (plan->opts->net_mode == POLICY_NET_NONE)
		return start_offline(ns, e);
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
		.secrets = ns->secrets,
		.n_secrets = ns->n_secrets,
		.rules = plan->net_rules,
		.n_rules = plan->n_net_rules,
		.host_addrs = plan->host_addrs,
		.n_host_addrs = plan->n_host_addrs,
		.upstream = ucfg.server,
		.shared_upstream = ns->upstream,
		.map = ns->map,
		.log = ns->log,
		.owner_fn = ns->owner ? supervisor_owner_lookup : NULL,
		.owner_arg = ns->owner,
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
		.log = ns->log,
		.term_fn = ns->term_fn,
		.term_arg = ns->term_arg,
		.secrets = ns->secrets,
		.n_secrets = ns->n_secrets,
		.owner_fn = ns->owner ? supervisor_owner_lookup : NULL,
		.owner_arg = ns->owner,
	};
	if ((r = proxy_create(&pcfg, &ns->proxy)))
		return porta_fail(e, "network proxy", NULL, -r, NULL);
	ns->n_transparent = 0; /* the proxy's now */
	ns->http = ns->socks = -1;
	return 0;
}

static void drop_wake(struct supervisor_net *ns)
{
	for (size_t i = 0; i < ns->n_wake; i++)
		event_free(ns->wake[i]);
	ns->n_wake = 0;
}

/* The first packet or connection on any listener: the responder and the
 * proxy start, and find it still queued (level-triggered). */
static void wake_up(evutil_socket_t fd, short what, void *arg)
{
	struct supervisor_net *ns = arg;
	struct porta_error e;

	(void)fd;
	(void)what;
	drop_wake(ns);
	if (start_serving(ns, &e) < 0 && ns->fail_fn)
		ns->fail_fn(ns->fail_arg, &e);
}

/* Serving waits for the first packet or connection: a command that never
 * uses the network (most of an agent's) does not pay for the responder's
 * and the proxy's set-up (about 0.6 ms of its start-up, run beside init's
 * mounts: docs/benchmarks/startup.md), and one that does pays it once, on
 * its first name or connection.  Until then the kernel queues what comes
 * (the listeners are init's, already listening). */
static int await_first_use(struct supervisor_net *ns, struct porta_error *e)
{
	int fds[SANDBOX_MAX_LISTENERS + 4];
	size_t n = 0;

	for (size_t i = 0; i < ns->n_transparent; i++)
		fds[n++] = ns->transparent[i].fd;
	int more[] = { ns->dns_udp, ns->dns_tcp, ns->http, ns->socks };
	for (size_t i = 0; i < ARRAY_LEN(more); i++)
		if (more[i] >= 0)
			fds[n++] = more[i];
	for (size_t i = 0; i < n; i++) {
		struct event *ev = event_new(ns->base, fds[i], EV_READ, wake_up, ns);
		if (!ev || event_add(ev, NULL) < 0) {
			if (ev)
				event_free(ev);
			drop_wake(ns);
			return porta_fail(e, "network policy", NULL, ENOMEM, NULL);
		}
		ns->wake[ns->n_wake++] = ev;
	}
	return 0;
}

int supervisor_net_take(struct supervisor_net *ns, const struct sandbox_fdpass_msg *m,
			const void *data, struct porta_error *e)
{
	size_t used = 0;
	int rc = 0;

	switch (m->type) {
	case SANDBOX_CTL_NET_LISTENERS: {
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
			case SANDBOX_NET_SOCK_DIAG:
				if (ns->diag_fd >= 0)
					close(ns->diag_fd);
				ns->diag_fd = fd;
				continue; /* no port: nothing for the connect watch */
			default:
				rc = porta_fail(e, "listeners from init", NULL, EBADMSG, NULL);
				goto out;
			}
			policy_port_set_add(&ns->allowed, what[used].port);
		}
		break;
	}
	case SANDBOX_CTL_NET_DONE:
		if (ns->log || ns->n_wake) {
			rc = porta_fail(e, "listeners from init", NULL, EBADMSG, NULL);
			break;
		}
		rc = open_log(ns, e);
		if (!rc)
			rc = await_first_use(ns, e);
		break;
	case SANDBOX_CTL_NET_WATCH:
		if (m->n_fds != 1 || ns->watch_fd >= 0) {
			rc = porta_fail(e, "connect watch from the command", NULL, EBADMSG, NULL);
			break;
		}
		ns->watch_fd = m->fds[0];
		used = 1;
		/* a hint: without it (a kernel before 6.6) only the speed
		 * differs, so a failure is noted, not fatal */
		int sw = supervisor_connect_watch_sync_wake(ns->watch_fd);
		if (sw < 0)
			log_msg(LOG_LEVEL_DEBUG, "connect watch: no synchronous wake-up: %s",
				strerror(-sw));
		/* the network open, or a degraded run: no SANDBOX_CTL_NET_DONE
		 * opened the log */
		if (!ns->log && (rc = open_log(ns, e)))
			break;
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

void supervisor_net_terminate(struct supervisor_net *ns, proxy_term_fn fn, void *arg,
			      const struct proxy_secret *secrets, size_t n_secrets)
{
	ns->term_fn = fn;
	ns->term_arg = arg;
	ns->secrets = secrets;
	ns->n_secrets = n_secrets;
}

void supervisor_net_on_failure(struct supervisor_net *ns, supervisor_net_fail_fn fn, void *arg)
{
	ns->fail_fn = fn;
	ns->fail_arg = arg;
}

int supervisor_net_set_init_unix(struct supervisor_net *ns, pid_t init, bool degraded)
{
	supervisor_net_set_init(ns, init);
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	ns->ux = supervisor_unix_create(ns->plan, degraded,
					degraded || ns->plan->opts->net_mode == POLICY_NET_OPEN, xdg);
	if (!ns->ux)
		return -ENOMEM;
	supervisor_unix_set_init(ns->ux, init);
	return 0;
}

void supervisor_net_set_init(struct supervisor_net *ns, pid_t init)
{
	if (ns)
		ns->init = init;
}

int supervisor_net_listen_local(struct supervisor_net *ns, struct sandbox_net_ports *ports,
				struct porta_error *e)
{
	int fd;

	ns->local = true;
	if ((fd = sandbox_net_tcp_listener(0, true, &ports->http)) < 0)
		return porta_fail(e, "listen on a loopback port", NULL, -fd, "the HTTP proxy");
	ns->http = fd;
	if ((fd = sandbox_net_tcp_listener(0, true, &ports->socks)) < 0)
		return porta_fail(e, "listen on a loopback port", NULL, -fd, "the SOCKS5 proxy");
	ns->socks = fd;
	policy_port_set_add(&ns->allowed, ports->http);
	policy_port_set_add(&ns->allowed, ports->socks);
	int rc = open_log(ns, e);
	return rc ? rc : start_serving(ns, e);
}

void supervisor_net_why(const struct supervisor_net *ns, struct supervisor_why *w)
{
	const char *dst, *words, *hint;

	for (size_t i = 0; ns && w && decision_log_refused_at(ns->log, i, &dst, &words, &hint); i++)
		supervisor_why_add_net(w, dst, words, hint);
	for (size_t i = 0; ns && w && i < ns->n_unix_ref; i++)
		supervisor_why_add_unix(w, ns->unix_ref[i].path, ns->unix_ref[i].err);
}

size_t supervisor_net_refused(const struct supervisor_net *ns)
{
	return ns ? (size_t)decision_log_refused_count(ns->log) : 0;
}

void supervisor_net_destroy(struct supervisor_net *ns)
{
	if (!ns)
		return;
	/* the audit's closing record, when it reached its ceiling, before the
	 * summary that points at it */
	int r = decision_log_finish(ns->log);
	if (r)
		log_msg(LOG_LEVEL_ERROR, "--audit: writing its closing record: %s", strerror(-r));
	decision_log_summary(ns->log, stderr); /* nothing when nothing was refused */
	drop_wake(ns);
	if (ns->ev_watch)
		event_free(ns->ev_watch);
	if (ns->watch_fd >= 0)
		close(ns->watch_fd);
	supervisor_connect_cache_clear(&ns->watch_cache);
	supervisor_unix_destroy(ns->ux);
	for (size_t i = 0; i < ns->n_unix_ref; i++)
		free(ns->unix_ref[i].path);
	proxy_destroy(ns->proxy);
	dnsd_responder_destroy(ns->responder);
	supervisor_owner_destroy(ns->owner); /* after both: they call into it */
	if (ns->diag_fd >= 0)
		close(ns->diag_fd);
	dnsd_upstream_destroy(ns->upstream);
	dnsd_namemap_destroy(ns->map);
	decision_log_destroy(ns->log);
	for (size_t i = 0; i < ns->n_transparent; i++)
		close(ns->transparent[i].fd);
	int *fds[] = { &ns->dns_udp, &ns->dns_tcp, &ns->http, &ns->socks };
	for (size_t i = 0; i < ARRAY_LEN(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
	}
	free(ns);
}
