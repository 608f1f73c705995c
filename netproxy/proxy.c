/* netproxy/proxy.c: see proxy.h.  The top of the module: the listeners and
 * their accept callbacks, the connection limit, create and destroy.  Each
 * listener serves one front end, whose table (front.h) it hands every
 * accepted connection to; the connection core (conn.h) does the rest. */
#include "dns/answers.h"
#include "netproxy/proxy.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "decision/log.h"
#include "netproxy/conn.h"
#include "netproxy/dial.h"
#include "netproxy/front.h"

struct proxy_lst {
	struct proxy *p;
	int fd;
	uint16_t port;
	const struct proxy_front_ops *ops;
	struct event *ev;
};

struct proxy {
	struct proxy_core core;
	struct proxy_lst *lst; /* transparent, then HTTP, then SOCKS */
	size_t n_lst;
	struct event *ev_resume; /* re-arms the listeners after EMFILE */
	bool limit_warned;       /* max_connections reached once: said so */
};

static void arm(struct event *ev, uint32_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
	event_add(ev, &tv);
}

/* Beyond max_connections the connection is accepted and reset at once: a
 * queue that is never accepted would keep the program waiting. */
static void refuse_limit(struct proxy *p, int fd, enum proxy_front front)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct policy_addr a;
	uint16_t port;
	char dst[PROXY_DST_STRLEN];
	struct decision_owner owner;
	struct decision d = {
		.kind = front == PROXY_FRONT_TRANSPARENT ? DECISION_KIND_CONNECT : DECISION_KIND_PROXY,
		.reason = POLICY_REASON_LIMIT,
	};

	proxy_conn_owner(&p->core, fd, &owner);
	d.pid = owner.pid;
	d.comm = owner.comm[0] ? owner.comm : NULL;

	if (front == PROXY_FRONT_TRANSPARENT &&
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 && proxy_sockaddr_to(&ss, &a, &port) == 0)
		d.dst = decision_format_dst(&a, port, dst);
	if (!p->limit_warned) {
		p->limit_warned = true;
		log_msg(LOG_LEVEL_WARN, "%u connections open: refusing more until some end",
			p->core.limits.max_connections);
	}
	decision_log_record(p->core.log, &d);
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct proxy *p = arg;
	(void)fd;
	(void)what;
	for (size_t i = 0; i < p->n_lst; i++)
		event_add(p->lst[i].ev, NULL);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct proxy_lst *l = arg;
	struct proxy *p = l->p;
	(void)what;

	/* One connection per wake-up: the listener's event is level-triggered,
	 * so the loop comes back for the next one after the others' events.
	 * Looping until EAGAIN cost every connection a failed accept4(2)
	 * between its dial and its first byte. */
	int fd;
	do
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int err = errno;
		if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
			/* level-triggered: pause the listeners instead of spinning */
			log_msg(LOG_LEVEL_WARN, "accept: %s; pausing for 100 ms", strerror(err));
			for (size_t k = 0; k < p->n_lst; k++)
				event_del(p->lst[k].ev);
			arm(p->ev_resume, 100);
		}
		return; /* EAGAIN, ECONNABORTED: the next readiness tells */
	}
	if (p->core.n_conns >= p->core.limits.max_connections)
		refuse_limit(p, fd, l->ops->front);
	else
		proxy_conn_start(&p->core, fd, l->ops);
}

int proxy_create(const struct proxy_config *cfg, struct proxy **out)
{
	struct proxy *p = calloc(1, sizeof(*p));
	size_t n = cfg->n_transparent + (cfg->http_fd >= 0) + (cfg->socks_fd >= 0);
	int err = ENOMEM;

	if (!p)
		return -ENOMEM;
	struct proxy_core *c = &p->core;

	c->base = cfg->base;
	c->rules = cfg->rules;
	c->n_rules = cfg->n_rules;
	c->host_addrs = cfg->host_addrs;
	c->n_host_addrs = cfg->n_host_addrs;
	c->map = cfg->map;
	c->upstream = cfg->upstream;
	c->log = cfg->log;
	c->owner_fn = cfg->owner_fn;
	c->term_fn = cfg->term_fn;
	c->term_arg = cfg->term_arg;
	c->secrets = cfg->secrets;
	c->n_secrets = cfg->n_secrets;
	c->owner_arg = cfg->owner_arg;
	c->limits = cfg->limits;
	if (!c->limits.max_connections)
		c->limits.max_connections = PROXY_DEFAULT_MAX_CONNECTIONS;
	if (!c->limits.sniff_timeout_ms)
		c->limits.sniff_timeout_ms = PROXY_DEFAULT_SNIFF_MS;
	if (!c->limits.dial_timeout_ms)
		c->limits.dial_timeout_ms = PROXY_DEFAULT_DIAL_MS;
	if (!c->limits.idle_timeout_ms)
		c->limits.idle_timeout_ms = PROXY_DEFAULT_IDLE_MS;
	c->quiet_ms = cfg->limits.quiet_ms ? cfg->limits.quiet_ms : PROXY_DEFAULT_QUIET_MS;
	if (c->quiet_ms > c->limits.sniff_timeout_ms)
		c->quiet_ms = c->limits.sniff_timeout_ms;
	c->scratch = malloc(PROXY_TLS_WIRE_MAX);
	c->answers = calloc(1, sizeof(*c->answers));
	p->lst = calloc(n ? n : 1, sizeof(*p->lst));
	p->ev_resume = evtimer_new(c->base, on_resume, p);
	if (!c->scratch || !c->answers || !p->lst || !p->ev_resume)
		goto fail;
	for (size_t i = 0; i < cfg->n_transparent; i++)
		p->lst[p->n_lst++] = (struct proxy_lst){ p, cfg->transparent[i].fd,
							 cfg->transparent[i].port,
							 proxy_front_transparent(), NULL };
	if (cfg->http_fd >= 0)
		p->lst[p->n_lst++] = (struct proxy_lst){ p, cfg->http_fd, 0, proxy_front_http(), NULL };
	if (cfg->socks_fd >= 0)
		p->lst[p->n_lst++] = (struct proxy_lst){ p, cfg->socks_fd, 0, proxy_front_socks(), NULL };
	for (size_t i = 0; i < p->n_lst; i++) {
		struct proxy_lst *l = &p->lst[i];
		int fl = fcntl(l->fd, F_GETFL);
		if (fl < 0 || fcntl(l->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
			err = errno;
			goto fail;
		}
		l->ev = event_new(c->base, l->fd, EV_READ | EV_PERSIST, on_accept, l);
		if (!l->ev)
			goto fail;
	}
	for (size_t i = 0; i < p->n_lst; i++)
		event_add(p->lst[i].ev, NULL);
	*out = p;
	return 0;
fail:
	/* the fds stay the caller's */
	for (size_t i = 0; i < p->n_lst; i++)
		if (p->lst[i].ev)
			event_free(p->lst[i].ev);
	if (p->ev_resume)
		event_free(p->ev_resume);
	free(p->lst);
	free(c->scratch);
	free(c->answers);
	free(p);
	return -err;
}

void proxy_destroy(struct proxy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_lst; i++) {
		event_free(p->lst[i].ev);
		close(p->lst[i].fd);
	}
	proxy_conn_free_all(&p->core);
	proxy_pipe_pool_drain(&p->core.pipes); /* every relay has given its pipes back */
	event_free(p->ev_resume);
	free(p->lst);
	free(p->core.scratch);
	free(p->core.answers);
	free(p);
}

size_t proxy_connections(const struct proxy *p)
{
	return p ? p->core.n_conns : 0;
}
