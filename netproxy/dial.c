/* netproxy/dial.c: non-blocking connect(2) to a list of addresses, in order,
 * each try bounded by a timeout (dial.h).  No happy eyeballs: the list is
 * short and ordered by the caller (A answers before AAAA). */
#include "netproxy/dial.h"

#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct proxy_dial {
	struct event_base *base;
	struct policy_addr *addrs;
	size_t n, next;
	uint16_t port;
	uint32_t timeout_ms;
	int fd;
	int last_err;
	bool connected; /* fd's handshake was seen over: no SO_ERROR to ask */
	struct event *ev;
	proxy_dial_done_fn done;
	void *arg;
};

size_t proxy_sockaddr_from(const struct policy_addr *a, uint16_t port, void *ss)
{
	memset(ss, 0, sizeof(struct sockaddr_storage));
	if (a->family == POLICY_ADDR_V4) {
		struct sockaddr_in *s4 = ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->b, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = ss;
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->b, 16);
	return sizeof(*s6);
}

int proxy_sockaddr_to(const void *ss, struct policy_addr *a, uint16_t *port)
{
	const struct sockaddr *sa = ss;
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = ss;
		a->family = POLICY_ADDR_V4;
		memcpy(a->b, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = ss;
		a->family = POLICY_ADDR_V6;
		memcpy(a->b, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		/* a dual-stack listener reports IPv4 destinations as ::ffff:a.b.c.d */
		*a = policy_addr_unmap(a);
		return 0;
	}
	return -EAFNOSUPPORT;
}

static void dial_free(struct proxy_dial *d)
{
	if (d->ev)
		event_free(d->ev);
	if (d->fd >= 0)
		close(d->fd);
	free(d->addrs);
	free(d);
}

static void dial_finish(struct proxy_dial *d, int fd, int err)
{
	proxy_dial_done_fn done = d->done;
	void *arg = d->arg;
	size_t index = d->next ? d->next - 1 : 0;

	if (fd >= 0)
		d->fd = -1; /* handed over */
	dial_free(d);
	done(fd, index, err, arg);
}

static void on_event(evutil_socket_t fd, short what, void *arg);

/* Starts the next address; on immediate failures moves on.  Returns 0 when
 * an event will report (a connect in flight, or the end of the list), or
 * -ENOMEM when not even that could be arranged. */
static int try_next(struct proxy_dial *d)
{
	while (d->next < d->n) {
		const struct policy_addr *a = &d->addrs[d->next++];
		struct sockaddr_storage ss;
		socklen_t len = (socklen_t)proxy_sockaddr_from(a, d->port, &ss);

		if (d->ev) {
			event_free(d->ev);
			d->ev = NULL;
		}
		if (d->fd >= 0) {
			close(d->fd);
			d->fd = -1;
		}
		d->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (d->fd < 0) {
			d->last_err = errno;
			continue;
		}
		int rc = connect(d->fd, (struct sockaddr *)&ss, len);
		int err = errno;
		if (rc < 0 && err != EINPROGRESS) {
			d->last_err = err;
			continue;
		}
		/* connect(2): EINPROGRESS, then writable; SO_ERROR says how it
		 * went.  To a near address (another namespace on this host, the
		 * local network) the handshake is often over by the time
		 * connect() returns: one look then spares the loop a round
		 * (adding the event, waiting, removing it). */
		d->ev = event_new(d->base, d->fd, EV_WRITE | EV_TIMEOUT, on_event, d);
		if (!d->ev) {
			d->last_err = ENOMEM;
			break;
		}
		struct pollfd pf = { .fd = d->fd, .events = POLLOUT };
		if (rc == 0 || poll(&pf, 1, 0) == 1) {
			/* writable without an error or hang-up: established */
			d->connected = rc == 0 || pf.revents == POLLOUT;
			event_active(d->ev, EV_WRITE, 0);
		} else {
			d->connected = false;
			struct timeval tv = { (time_t)(d->timeout_ms / 1000),
					      (suseconds_t)(d->timeout_ms % 1000) * 1000 };
			event_add(d->ev, &tv);
		}
		return 0;
	}
	/* Nothing left: report from the loop, never from proxy_dial_start. */
	if (d->ev)
		event_free(d->ev);
	if (d->fd >= 0) {
		close(d->fd);
		d->fd = -1;
	}
	d->ev = event_new(d->base, -1, 0, on_event, d);
	if (!d->ev)
		return -ENOMEM;
	event_active(d->ev, EV_TIMEOUT, 0);
	return 0;
}

static void on_event(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_dial *d = arg;
	(void)fd;

	if (d->fd < 0) { /* the "nothing left" event */
		dial_finish(d, -1, -(d->last_err ? d->last_err : EHOSTUNREACH));
		return;
	}
	if (what & EV_WRITE) {
		int err = 0;
		socklen_t el = sizeof(err);
		if (!d->connected && getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			err = errno;
		if (err == 0) {
			dial_finish(d, d->fd, 0);
			return;
		}
		d->last_err = err;
	} else {
		d->last_err = ETIMEDOUT;
	}
	if (try_next(d) < 0)
		dial_finish(d, -1, -ENOMEM);
}

struct proxy_dial *proxy_dial_start(struct event_base *base, const struct policy_addr *addrs,
				    size_t n, uint16_t port, uint32_t timeout_ms,
				    proxy_dial_done_fn done, void *arg)
{
	struct proxy_dial *d = calloc(1, sizeof(*d));
	if (!d || n == 0) {
		free(d);
		errno = n == 0 ? EINVAL : ENOMEM;
		return NULL;
	}
	d->addrs = calloc(n, sizeof(*addrs));
	if (!d->addrs) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(d->addrs, addrs, n * sizeof(*addrs));
	d->base = base;
	d->n = n;
	d->port = port;
	d->timeout_ms = timeout_ms;
	d->fd = -1;
	d->done = done;
	d->arg = arg;
	if (try_next(d) < 0) {
		dial_free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void proxy_dial_cancel(struct proxy_dial *d)
{
	if (d)
		dial_free(d);
}
