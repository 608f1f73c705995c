/* dns/upstream.c: see upstream.h. */
#include "dns/upstream.h"

#include <ares.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "wire/dns.h"

#define DEFAULT_TIMEOUT_MS 2000
#define DEFAULT_TRIES 2
#define RESOLV_CONF_MAX (64 * 1024)

/* A socket c-ares asked to have watched, and its event. */
struct watch {
	ares_socket_t fd;
	struct event *ev;
};

/* The c-ares channel and what runs it on the loop; shared by the handles
 * (struct dnsd_upstream) made on it, freed with the last. */
struct up_channel {
	struct event_base *base;
	ares_channel channel;
	bool channel_ok;
	bool library_ok;
	struct event *timer;
	struct watch *watches;
	size_t n_watches, cap_watches;
	size_t in_flight; /* every query c-ares still holds, orphans included */
	size_t refs;
};

struct up_query;

/* One user's view of a channel: its queries, cancelled by its destroy. */
struct dnsd_upstream {
	struct up_channel *ch;
	struct up_query *queries; /* in flight, doubly linked */
	size_t in_flight;
};

struct up_query {
	struct up_channel *ch;
	struct dnsd_upstream *u; /* NULL once its user is gone: an orphan */
	struct up_query *prev, *next;
	dnsd_upstream_done_fn done;
	void *arg;
	/* set while ares_query() runs: c-ares calls back from inside it when
	 * the query fails before anything is sent; that is reported as the
	 * return value, so a caller never sees its callback re-entered */
	bool starting;
	bool failed_at_once;
	int failed_status;
};

static void update_timer(struct up_channel *ch)
{
	struct timeval tvbuf, *tv;

	if (ch->in_flight == 0) {
		event_del(ch->timer);
		return;
	}
	tv = ares_timeout(ch->channel, NULL, &tvbuf);
	if (tv)
		event_add(ch->timer, tv);
	else
		event_del(ch->timer);
}

static void on_sock(evutil_socket_t fd, short what, void *arg)
{
	struct up_channel *ch = arg;

	ares_process_fd(ch->channel, (what & EV_READ) ? fd : ARES_SOCKET_BAD,
			(what & EV_WRITE) ? fd : ARES_SOCKET_BAD);
	update_timer(ch);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct up_channel *ch = arg;

	(void)fd;
	(void)what;
	/* no socket: c-ares only checks for queries past their deadline */
	ares_process_fd(ch->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	update_timer(ch);
}

/* ARES_OPT_SOCK_STATE_CB: c-ares says which of its sockets to watch for
 * what; (0, 0) when it is about to close one.  The event may be the one
 * being dispatched (called from inside ares_process_fd()): libevent allows
 * freeing an event from its own callback, and on_sock does not touch it
 * afterwards. */
static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct up_channel *u = data;
	struct watch *w = NULL;
	short what = (short)((readable ? EV_READ : 0) | (writable ? EV_WRITE : 0));

	for (size_t i = 0; i < u->n_watches; i++) {
		if (u->watches[i].fd == fd) {
			w = &u->watches[i];
			break;
		}
	}
	if (w) {
		event_free(w->ev);
		w->ev = NULL;
		if (!what) {
			*w = u->watches[--u->n_watches];
			return;
		}
	} else {
		if (!what)
			return;
		if (u->n_watches == u->cap_watches) {
			size_t cap = u->cap_watches ? 2 * u->cap_watches : 4;
			struct watch *nw = realloc(u->watches, cap * sizeof(*nw));
			if (!nw)
				goto fail;
			u->watches = nw;
			u->cap_watches = cap;
		}
		w = &u->watches[u->n_watches++];
		w->fd = fd;
		w->ev = NULL;
	}
	w->ev = event_new(u->base, fd, (short)(what | EV_PERSIST), on_sock, u);
	if (w->ev && event_add(w->ev, NULL) == 0)
		return;
	if (w->ev)
		event_free(w->ev);
	*w = u->watches[--u->n_watches];
fail:
	/* Out of memory: the socket goes unwatched and its queries end by
	 * timeout (the timer still runs), which the responder answers with
	 * SERVFAIL.  Nothing else can be done from inside c-ares. */
	return;
}

static void channel_unref(struct up_channel *ch)
{
	if (!ch || --ch->refs > 0)
		return;
	/* Calls every pending callback with ARES_EDESTRUCTION (only orphans
	 * are left: each handle cancelled its own) and sock_state(fd, 0, 0)
	 * for each socket it closes. */
	if (ch->channel_ok)
		ares_destroy(ch->channel);
	for (size_t i = 0; i < ch->n_watches; i++)
		event_free(ch->watches[i].ev);
	free(ch->watches);
	if (ch->timer)
		event_free(ch->timer);
	if (ch->library_ok)
		ares_library_cleanup();
	free(ch);
}

static int channel_create(struct event_base *base, const struct dnsd_upstream_config *cfg,
			  struct up_channel **out)
{
	struct up_channel *u = calloc(1, sizeof(*u));
	struct ares_options opts;
	struct ares_addr_port_node server;
	char lookups[] = "b";
	int rc, err = 0;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->refs = 1;
	u->base = base;
	u->timer = evtimer_new(base, on_timer, u);
	if (!u->timer) {
		err = -ENOMEM;
		goto fail;
	}
	if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) {
		err = -EIO;
		goto fail;
	}
	u->library_ok = true;

	memset(&opts, 0, sizeof(opts));
	/* NOSEARCH, NOALIASES: the name asked is the name decided, nothing
	 * appended, no HOSTALIASES file; NOCHECKRESP: the upstream's rcode
	 * comes back instead of c-ares retrying SERVFAIL/REFUSED; EDNS with
	 * the payload porta itself uses, so common answers need no TCP. */
	opts.flags = ARES_FLAG_NOSEARCH | ARES_FLAG_NOALIASES | ARES_FLAG_NOCHECKRESP |
		     ARES_FLAG_EDNS;
	opts.timeout = (int)(cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS);
	opts.tries = (int)(cfg->tries ? cfg->tries : DEFAULT_TRIES);
	opts.ndots = 1;
	opts.domains = NULL;
	opts.ndomains = 0;
	opts.lookups = lookups; /* "b": DNS only, never the hosts file */
	opts.sock_state_cb = sock_state;
	opts.sock_state_cb_data = u;
	opts.ednspsz = DNSD_EDNS_PAYLOAD;
	rc = ares_init_options(&u->channel, &opts,
			       ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_NDOTS |
				       ARES_OPT_DOMAINS | ARES_OPT_LOOKUPS | ARES_OPT_SOCK_STATE_CB |
				       ARES_OPT_EDNSPSZ | ARES_OPT_NOROTATE);
	if (rc != ARES_SUCCESS) {
		err = rc == ARES_ENOMEM ? -ENOMEM : -EIO;
		goto fail;
	}
	u->channel_ok = true;

	/* The one server, whatever the host's resolv.conf said to c-ares. */
	memset(&server, 0, sizeof(server));
	if (cfg->server.addr.family == POLICY_ADDR_V4) {
		server.family = AF_INET;
		memcpy(&server.addr.addr4, cfg->server.addr.b, 4);
	} else {
		server.family = AF_INET6;
		memcpy(&server.addr.addr6, cfg->server.addr.b, 16);
	}
	server.udp_port = server.tcp_port = cfg->server.port ? cfg->server.port : DNSD_DEFAULT_PORT;
	rc = ares_set_servers_ports(u->channel, &server);
	if (rc != ARES_SUCCESS) {
		err = rc == ARES_ENOMEM ? -ENOMEM : -EINVAL;
		goto fail;
	}
	*out = u;
	return 0;
fail:
	channel_unref(u);
	return err;
}

static int handle_on(struct up_channel *ch, struct dnsd_upstream **out)
{
	struct dnsd_upstream *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->ch = ch;
	ch->refs++;
	*out = u;
	return 0;
}

int dnsd_upstream_create(struct event_base *base, const struct dnsd_upstream_config *cfg,
			 struct dnsd_upstream **out)
{
	struct up_channel *ch;
	int err = channel_create(base, cfg, &ch);

	*out = NULL;
	if (err)
		return err;
	err = handle_on(ch, out);
	channel_unref(ch); /* the handle's reference, or gone */
	return err;
}

int dnsd_upstream_share(struct dnsd_upstream *u, struct dnsd_upstream **out)
{
	*out = NULL;
	return handle_on(u->ch, out);
}

static void unlink_query(struct up_query *q)
{
	struct dnsd_upstream *u = q->u;

	if (q->prev)
		q->prev->next = q->next;
	else
		u->queries = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
	u->in_flight--;
	q->u = NULL;
}

void dnsd_upstream_destroy(struct dnsd_upstream *u)
{
	if (!u)
		return;
	/* This user's queries end now, as cancelled; c-ares keeps them as
	 * orphans until they end there (answer, timeout, the channel's
	 * destruction), and on_answer() then only frees them. */
	while (u->queries) {
		struct up_query *q = u->queries;
		dnsd_upstream_done_fn done = q->done;
		void *arg = q->arg;
		unlink_query(q);
		done(DNSD_UPSTREAM_CANCELLED, NULL, 0, arg);
	}
	struct up_channel *ch = u->ch;
	free(u);
	channel_unref(ch);
}

static void on_answer(void *arg, int status, int timeouts, unsigned char *abuf, int alen)
{
	struct up_query *q = arg;
	enum dnsd_upstream_result res;

	(void)timeouts;
	if (q->starting) {
		q->failed_at_once = true;
		q->failed_status = status;
		return;
	}
	/* the channel outlives every query c-ares holds (it is the one
	 * calling back) */
	q->ch->in_flight--;
	if (!q->u) { /* its user cancelled it when it went */
		free(q);
		return;
	}
	unlink_query(q);
	if (status == ARES_EDESTRUCTION || status == ARES_ECANCELLED)
		res = DNSD_UPSTREAM_CANCELLED;
	else if (abuf && alen > 0)
		/* any rcode: ares_query() maps NXDOMAIN, NODATA, SERVFAIL...
		 * to statuses but still hands over the response */
		res = DNSD_UPSTREAM_ANSWER;
	else if (status == ARES_ETIMEOUT)
		res = DNSD_UPSTREAM_TIMEOUT;
	else
		res = DNSD_UPSTREAM_ERROR;
	if (res == DNSD_UPSTREAM_ANSWER)
		q->done(res, abuf, (size_t)alen, q->arg);
	else
		q->done(res, NULL, 0, q->arg);
	free(q);
}

int dnsd_upstream_query(struct dnsd_upstream *u, const char *name, uint16_t qtype,
			dnsd_upstream_done_fn done, void *arg)
{
	struct up_query *q = calloc(1, sizeof(*q));
	struct up_channel *ch = u->ch;
	int err = 0;

	if (!q)
		return -ENOMEM;
	q->ch = ch;
	q->u = u;
	q->done = done;
	q->arg = arg;
	q->starting = true;
	q->next = u->queries;
	if (u->queries)
		u->queries->prev = q;
	u->queries = q;
	u->in_flight++;
	ch->in_flight++;
	/* ares_query(), not ares_search(): the name as it is, no search
	 * list; class IN; c-ares copies name into the message it builds. */
	ares_query(ch->channel, name, DNSD_CLASS_IN, qtype, on_answer, q);
	q->starting = false;
	if (q->failed_at_once) {
		ch->in_flight--;
		unlink_query(q);
		err = q->failed_status == ARES_ENOMEM ? -ENOMEM : -EIO;
		free(q);
	}
	update_timer(ch);
	return err;
}

size_t dnsd_upstream_in_flight(const struct dnsd_upstream *u)
{
	return u->in_flight;
}

int dnsd_host_servers(const char *path, struct dnsd_server *out, size_t cap)
{
	_cleanup_fd_ int fd = -1;
	_cleanup_free_ uint8_t *buf = malloc(RESOLV_CONF_MAX + 1);
	size_t len = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path ? path : "/etc/resolv.conf", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + len, RESOLV_CONF_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > RESOLV_CONF_MAX)
			return -EFBIG;
	}
	return (int)dnsd_resolvconf_servers(buf, len, out, cap);
}

int dnsd_upstream_host_server(const char *path, struct dnsd_server *out)
{
	int n = dnsd_host_servers(path, out, 1);

	return n < 0 ? n : n == 0 ? -ENODATA : 0;
}
