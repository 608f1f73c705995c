/* netproxy/relay.c: see relay.h. */
#include "netproxy/relay.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* splice(2) moves at most what the pipe can hold per call (16 pages by
 * default, fcntl(2) F_SETPIPE_SZ); asking for more costs nothing. */
#define RELAY_CHUNK (1 << 20)
/* A read this short found the socket's queue drained (or the pipe's slots
 * full of small pieces, rarely): the loop's level-triggered event says when
 * there is more, so no splice(2) is spent learning EAGAIN.  Bulk transfers,
 * whose reads fill most of the pipe, keep reading until EAGAIN. */
#define RELAY_SHORT 4096

struct relay_dir {
	struct proxy_relay *relay;
	int from, to; /* borrowed from relay->fd */
	int pipe_r, pipe_w;
	size_t in_pipe; /* spliced in from `from`, not yet out to `to` */
	bool eof;       /* `from` reached EOF */
	bool done;      /* EOF forwarded: `to`'s write half is shut down */
	struct event *ev_read;  /* `from` readable; off while the pipe holds bytes */
	struct event *ev_write; /* `to` writable; on only while the pipe holds bytes */
	uint64_t *bytes;
	size_t credit; /* gated: bytes the gate let pass, not yet spliced */
	size_t held;   /* gated: bytes the gate saw and held back at the last peek */
	int lowat;     /* `from`'s SO_RCVLOWAT as last set (1 at the start, relay.h) */
	struct proxy_relay_replacement pend; /* gated: a replacement not yet all written */
	size_t pend_off;                     /* how much of it has been */
};

struct proxy_relay {
	struct event_base *base;
	struct proxy_pipe_pool *pool; /* or NULL */
	int fd[2];               /* client, upstream */
	struct relay_dir dir[2]; /* [0] up: client -> upstream, [1] down */
	struct event *ev_idle;
	uint32_t idle_ms;
	struct proxy_relay_stats stats;
	struct timespec started;
	proxy_relay_done_fn done;
	void *arg;
	proxy_relay_gate_fn gate; /* or NULL: the up direction is spliced unread */
	void *gate_arg;
};

/* What a gate is shown, and where the bytes it replaced are read out to:
 * one buffer for every relay.  Its contents live only within one
 * fill_gated() call (each call peeks the socket afresh), and every relay
 * runs on the base's one thread, so none needs a view of its own: a
 * PROXY_RELAY_GATE_MAX buffer per gated connection was most of an idle
 * connection's memory (docs/benchmarks/relay-idle.md).  Its pages are
 * faulted in on first use. */
static uint8_t gate_view[PROXY_RELAY_GATE_MAX];

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = (int64_t)(now.tv_sec - t0->tv_sec) * 1000 +
		     (int64_t)(now.tv_nsec - t0->tv_nsec) / 1000000;
	return ms < 0 ? 0 : (uint64_t)ms;
}

void proxy_pipe_pool_drain(struct proxy_pipe_pool *pool)
{
	while (pool->n > 0) {
		pool->n--;
		close(pool->fd[pool->n][0]);
		close(pool->fd[pool->n][1]);
	}
}

/* A pipe from the pool, or a new one.  0 or -1 with errno. */
static int pipe_take(struct proxy_pipe_pool *pool, int p[2])
{
	if (pool && pool->n > 0) {
		pool->n--;
		p[0] = pool->fd[pool->n][0];
		p[1] = pool->fd[pool->n][1];
		return 0;
	}
	return pipe2(p, O_CLOEXEC | O_NONBLOCK);
}

/* Back to the pool only when it holds nothing (relay.h); closed otherwise. */
static void pipe_give(struct proxy_pipe_pool *pool, struct relay_dir *dir)
{
	if (dir->pipe_r < 0)
		return;
	if (pool && dir->in_pipe == 0 && pool->n < PROXY_PIPE_POOL_MAX) {
		pool->fd[pool->n][0] = dir->pipe_r;
		pool->fd[pool->n][1] = dir->pipe_w;
		pool->n++;
	} else {
		close(dir->pipe_r);
		close(dir->pipe_w);
	}
	dir->pipe_r = dir->pipe_w = -1;
}

static void relay_free(struct proxy_relay *r)
{
	for (int d = 0; d < 2; d++) {
		struct relay_dir *dir = &r->dir[d];
		if (dir->ev_read)
			event_free(dir->ev_read);
		if (dir->ev_write)
			event_free(dir->ev_write);
		pipe_give(r->pool, dir);
		free(dir->pend.bytes);
	}
	if (r->ev_idle)
		event_free(r->ev_idle);
	for (int i = 0; i < 2; i++) {
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	}
	free(r);
}

/* The one exit of every relay: close everything, report, free. */
static void relay_finish(struct proxy_relay *r, enum proxy_relay_end end)
{
	r->stats.duration_ms = ms_since(&r->started);
	struct proxy_relay_stats stats = r->stats;
	proxy_relay_done_fn done = r->done;
	void *arg = r->arg;

	relay_free(r);
	if (done)
		done(end, &stats, arg);
}

static void touch(struct proxy_relay *r)
{
	if (r->ev_idle) {
		struct timeval tv = { (time_t)(r->idle_ms / 1000),
				      (suseconds_t)(r->idle_ms % 1000) * 1000 };
		event_add(r->ev_idle, &tv);
	}
}

/* A gate's replacement not yet all written: the direction holds bytes. */
static bool pending(const struct relay_dir *dir)
{
	return dir->pend.bytes != NULL;
}

/* Writes what is left of the gate's replacement to `to`.  0 when all of it
 * went (the buffer is freed) or when `to` would block (then the write event
 * is armed), -errno when `to` failed. */
static int drain_pending(struct relay_dir *dir)
{
	while (pending(dir)) {
		ssize_t n = send(dir->to, dir->pend.bytes + dir->pend_off,
				 dir->pend.len - dir->pend_off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			dir->pend_off += (size_t)n;
			*dir->bytes += (uint64_t)n;
			if (dir->pend_off == dir->pend.len) {
				free(dir->pend.bytes);
				dir->pend.bytes = NULL;
				dir->pend.len = dir->pend_off = 0;
			}
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			event_add(dir->ev_write, NULL);
			return 0;
		} else {
			return n < 0 ? -errno : -EPIPE;
		}
	}
	return 0;
}

/* Moves what the pipe holds on to `to`, after any replacement still being
 * written.  0 when drained or when `to` would block (then the write event
 * is armed), -errno when `to` failed. */
static int drain(struct relay_dir *dir)
{
	int rc = drain_pending(dir);
	if (rc || pending(dir))
		return rc;
	while (dir->in_pipe > 0) {
		ssize_t n = splice(dir->pipe_r, NULL, dir->to, NULL, dir->in_pipe,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			dir->in_pipe -= (size_t)n;
			*dir->bytes += (uint64_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			event_add(dir->ev_write, NULL);
			return 0;
		} else {
			return n < 0 ? -errno : -EPIPE;
		}
	}
	event_del(dir->ev_write);
	return 0;
}

/* Fills the pipe from `from` until it would block, is full, or EOF, and
 * with credit (a gated direction) until *credit bytes have gone, which it
 * charges.  -errno when `from` failed. */
static int fill(struct relay_dir *dir, size_t *credit)
{
	for (;;) {
		if (credit && *credit == 0)
			return 0;
		ssize_t n = splice(dir->from, NULL, dir->pipe_w, NULL,
				   credit ? *credit : RELAY_CHUNK, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			if (credit)
				*credit -= (size_t)n;
			dir->in_pipe += (size_t)n;
			/* Hand it on before reading more: keeps latency low
			 * and the pipe from filling while `to` can take it. */
			int rc = drain(dir);
			if (rc)
				return rc;
			if (dir->in_pipe > 0)
				return 0; /* `to` is full: back-pressure */
			if (!credit && n < RELAY_SHORT)
				return 0; /* drained, most likely: the event tells */
			continue;
		}
		if (n == 0) {
			dir->eof = true;
			return 0;
		}
		if (errno == EINTR)
			continue;
		/* EAGAIN on either side: `from` is empty, or the pipe is
		 * full (then in_pipe > 0 and the write event is armed). */
		if (errno == EAGAIN)
			return 0;
		return -errno;
	}
}

/* True when the peer has sent its FIN or reset (what MSG_PEEK cannot tell
 * while held bytes are still queued): TCP_INFO's state leaves ESTABLISHED. */
static bool peer_closed(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return true;
	return ti.tcpi_state != TCP_ESTABLISHED;
}

static void set_lowat(struct relay_dir *dir, size_t n)
{
	int v = n > (size_t)PROXY_RELAY_GATE_MAX ? PROXY_RELAY_GATE_MAX : (int)n;
	if (v != dir->lowat &&
	    setsockopt(dir->from, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)) == 0)
		dir->lowat = v;
}

/* Takes n bytes the gate replaced out of the client's queue, where a peek
 * just saw them.  0 or -errno. */
static int discard(struct relay_dir *dir, size_t n)
{
	uint8_t *sink = gate_view;
	while (n > 0) {
		ssize_t k = recv(dir->from, sink, n < PROXY_RELAY_GATE_MAX ? n : PROXY_RELAY_GATE_MAX,
				 MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE; /* the peeked bytes cannot vanish */
		n -= (size_t)k;
	}
	return 0;
}

/* fill() for a gated direction: only what the gate let pass is spliced, and
 * the gate is asked again once that credit is used up and handed on; what
 * the gate replaced is read out and its replacement written instead.
 * 1 when the gate refused (the relay must end), 0, or -errno. */
static int fill_gated(struct relay_dir *dir)
{
	struct proxy_relay *r = dir->relay;

	for (;;) {
		/* this call's peek showed the whole queue and the gate let all
		 * of it pass: once it has gone, the event tells of more (no
		 * peek spent learning EAGAIN) */
		bool all_shown_passed = false;
		if (dir->credit == 0) {
			ssize_t n = recv(dir->from, gate_view, PROXY_RELAY_GATE_MAX,
					 MSG_PEEK | MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return 0;
			if (n < 0)
				return -errno;
			/* Woken with nothing new beyond what the gate held back:
			 * SO_RCVLOWAT reports readable then only on EOF or error,
			 * and the held bytes never go (a request cut short). */
			if (n == 0 || ((size_t)n <= dir->held && peer_closed(dir->from))) {
				dir->eof = true;
				return 0;
			}
			size_t pass = 0;
			struct proxy_relay_replacement repl = { NULL, 0 };
			enum proxy_relay_gate_verdict v =
				r->gate(gate_view, (size_t)n, &pass, &repl, r->gate_arg);
			if (v == PROXY_RELAY_GATE_STOP)
				return 1;
			if (v == PROXY_RELAY_GATE_REPLACE) {
				if (pass > (size_t)n)
					pass = (size_t)n;
				dir->held = 0;
				set_lowat(dir, 1);
				if (pass == 0 || !repl.bytes) {
					free(repl.bytes);
					return 1; /* a gate that breaks its contract ends the relay */
				}
				dir->pend = repl;
				dir->pend_off = 0;
				int rc = discard(dir, pass);
				if (!rc)
					rc = drain_pending(dir);
				if (rc || pending(dir))
					return rc;
				continue;
			}
			if (pass == 0) {
				dir->held = (size_t)n;
				set_lowat(dir, (size_t)n + 1);
				return 0;
			}
			dir->held = 0;
			set_lowat(dir, 1);
			dir->credit = pass;
			all_shown_passed = (size_t)n < PROXY_RELAY_GATE_MAX && pass == (size_t)n;
		}
		int rc = fill(dir, &dir->credit);
		/* fill() stops with credit left only when `from` is empty or
		 * at EOF, `to` is full, or on an error; with none left and
		 * all of it handed on, the next bytes need the gate. */
		if (rc || dir->credit > 0 || dir->in_pipe > 0 || pending(dir) || dir->eof ||
		    all_shown_passed)
			return rc;
	}
}

/* After progress in a direction: forward EOF once drained, read again only
 * while the pipe is empty, and finish when both directions are done. */
static void settle(struct proxy_relay *r, struct relay_dir *dir)
{
	if (dir->in_pipe == 0 && !pending(dir) && dir->eof && !dir->done) {
		dir->done = true;
		event_del(dir->ev_read);
		/* The peer learns of the EOF; the other direction goes on.  When
		 * the other is done too, the relay ends here and close(2) sends
		 * the same FIN after everything written (tcp(7)). */
		if (!r->dir[1 - (dir - r->dir)].done)
			shutdown(dir->to, SHUT_WR);
	} else if (dir->in_pipe > 0 || pending(dir)) {
		event_del(dir->ev_read);
	} else if (!dir->eof) {
		event_add(dir->ev_read, NULL);
	}
	if (r->dir[0].done && r->dir[1].done)
		relay_finish(r, PROXY_RELAY_CLOSED);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct relay_dir *dir = arg;
	struct proxy_relay *r = dir->relay;

	(void)fd;
	(void)what;
	touch(r);
	int rc = dir == &r->dir[0] && r->gate ? fill_gated(dir) : fill(dir, NULL);
	if (rc > 0) {
		/* refused: a reset on both sides, so neither takes a cut-off
		 * stream for a finished one (SO_LINGER 0, socket(7)) */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		for (int i = 0; i < 2; i++)
			setsockopt(r->fd[i], SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		relay_finish(r, PROXY_RELAY_REFUSED);
		return;
	}
	if (rc < 0) {
		relay_finish(r, PROXY_RELAY_RESET);
		return;
	}
	settle(r, dir);
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
	struct relay_dir *dir = arg;
	struct proxy_relay *r = dir->relay;

	(void)fd;
	(void)what;
	touch(r);
	if (drain(dir) < 0) {
		relay_finish(r, PROXY_RELAY_RESET);
		return;
	}
	settle(r, dir);
}

static void on_idle(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	relay_finish(arg, PROXY_RELAY_IDLE);
}

struct proxy_relay *proxy_relay_start(struct event_base *base, struct proxy_pipe_pool *pool,
				      int client, int upstream, uint32_t idle_ms,
				      proxy_relay_done_fn done, void *arg)
{
	struct proxy_relay *r = calloc(1, sizeof(*r));
	int err = ENOMEM;

	if (!r) {
		close(client);
		close(upstream);
		errno = err;
		return NULL;
	}
	r->base = base;
	r->pool = pool;
	r->fd[0] = client;
	r->fd[1] = upstream;
	r->idle_ms = idle_ms;
	r->done = done;
	r->arg = arg;
	clock_gettime(CLOCK_MONOTONIC, &r->started);
	for (int d = 0; d < 2; d++) {
		struct relay_dir *dir = &r->dir[d];
		dir->relay = r;
		dir->from = r->fd[d];
		dir->to = r->fd[1 - d];
		dir->pipe_r = dir->pipe_w = -1; /* both, before relay_free can run */
		dir->lowat = 1;
		dir->bytes = d == 0 ? &r->stats.bytes_up : &r->stats.bytes_down;
	}
	for (int d = 0; d < 2; d++) {
		int p[2];
		if (pipe_take(pool, p) < 0) {
			err = errno;
			goto fail;
		}
		r->dir[d].pipe_r = p[0];
		r->dir[d].pipe_w = p[1];
	}
	for (int i = 0; i < 2; i++) {
		int fl = fcntl(r->fd[i], F_GETFL), one = 1;
		if (fl < 0 || (!(fl & O_NONBLOCK) && fcntl(r->fd[i], F_SETFL, fl | O_NONBLOCK) < 0)) {
			err = errno;
			goto fail;
		}
		/* The relay hands on each piece as it comes: with Nagle's
		 * algorithm a small piece written while an earlier one is
		 * unacknowledged waits for the peer's delayed ACK (up to 40 ms,
		 * tcp(7)), a stall the endpoints, which set TCP_NODELAY
		 * themselves, never asked for.  Fails harmlessly on a Unix
		 * socket. */
		setsockopt(r->fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	for (int d = 0; d < 2; d++) {
		struct relay_dir *dir = &r->dir[d];
		dir->ev_read = event_new(base, dir->from, EV_READ | EV_PERSIST, on_readable, dir);
		dir->ev_write = event_new(base, dir->to, EV_WRITE | EV_PERSIST, on_writable, dir);
		if (!dir->ev_read || !dir->ev_write)
			goto fail;
	}
	if (idle_ms) {
		r->ev_idle = evtimer_new(base, on_idle, r);
		if (!r->ev_idle)
			goto fail;
	}
	for (int d = 0; d < 2; d++)
		event_add(r->dir[d].ev_read, NULL);
	/* The client's first bytes are usually queued already (the caller
	 * decided on them): the loop moves them before it next polls. */
	event_active(r->dir[0].ev_read, EV_READ, 0);
	touch(r);
	return r;
fail:
	relay_free(r);
	errno = err;
	return NULL;
}

int proxy_relay_set_gate(struct proxy_relay *relay, proxy_relay_gate_fn gate, void *arg)
{
	relay->gate = gate;
	relay->gate_arg = arg;
	return 0;
}

void proxy_relay_abort(struct proxy_relay *relay)
{
	if (relay)
		relay_finish(relay, PROXY_RELAY_RESET);
}
