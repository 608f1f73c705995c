/* netproxy/terminate.c: a terminated connection, relayed in user space
 * (terminate.h).
 *
 * One pump drives everything: each event (either socket readable or
 * writable, the idle timer) calls pump(), which steps the handshakes, then
 * moves bytes client -> in -> (checked, rewritten) -> up_q -> upstream and
 * upstream -> dn -> (rewritten) -> dn_q -> client as far as each side
 * takes them, and re-arms exactly the events the last calls asked for.  A
 * TLS session may hold decrypted bytes its socket no longer signals
 * (tls_session_has_buffered), so the pump runs again at once while one
 * does and there is room.  Writes keep mbedtls's rule: the queue's front
 * is only ever appended to, never changed, until a write takes it.
 */
#include "netproxy/terminate.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tls/endpoint.h"
#include "wire/http_forward.h"
#include "wire/http_response.h"
#include "wire/http_stream.h"

/* Decrypted bytes held before they are framed: two heads' worth. */
#define TERM_IN_CAP (2 * PROXY_HTTP_HEAD_MAX)
/* Bytes queued for a side before porta stops reading the other. */
#define TERM_QUEUE_HIGH (64 * 1024)
/* One read's worth. */
#define TERM_READ_CHUNK (16 * 1024)
/* How long a refused client has to finish sending before porta closes. */
#define TERM_DRAIN_S 2

enum term_state {
	TERM_HANDSHAKE,  /* porta's server handshake with the client and its
			  * client handshake with the upstream, side by side */
	TERM_RELAY,
	TERM_REFUSING,   /* a refusal waits for the earlier responses, then closes */
	TERM_DRAIN,      /* refused and said so: reading the client to its end, so
			  * that closing with its bytes unread does not reset the
			  * connection before it has read porta's answer */
	TERM_DONE,
};

/* One side: its socket, its TLS session (NULL for plain HTTP) and what the
 * last call on it wants. */
struct side {
	int fd;
	struct tls_session *tls;
	struct event *ev_r, *ev_w;
	bool want_r, want_w; /* arm EV_READ / EV_WRITE */
	bool eof;            /* it sent its last byte */
	bool dead;           /* its session failed: never touched again */
	bool shut;           /* porta sent it its last byte */
};

/* A byte queue: data[off..len) waits to be written. */
struct queue {
	uint8_t *data;
	size_t off, len, cap;
};

struct proxy_term {
	struct event_base *base;
	struct proxy_term_params prm;
	proxy_term_event_fn event;
	proxy_relay_done_fn done;
	void *arg;
	enum term_state state;
	struct side cl, up;
	bool cl_ready, up_ready; /* TERM_HANDSHAKE: that side's handshake is done */
	const char *up_why;      /* the upstream's handshake failed: why (its session's) */
	struct event *ev_idle, *ev_again;
	uint32_t idle_ms;
	struct timespec started;
	struct proxy_relay_stats stats;
	enum proxy_relay_end end;
	/* client -> upstream; the buffers exist only while bytes wait in them,
	 * so that an idle connection holds its TLS sessions and little else */
	uint8_t *in; /* TERM_IN_CAP bytes, or NULL */
	size_t in_len;
	struct proxy_http_stream hs;
	struct queue up_q;
	/* upstream -> client */
	uint8_t *dn; /* TERM_IN_CAP bytes, or NULL */
	size_t dn_len;
	struct proxy_http_responses hr;
	struct queue dn_q;
	bool waiting; /* a head waits for a slot in hr's queue of unanswered requests */
	/* TERM_REFUSING: porta's own answer, sent once the earlier responses are */
	char *refusal;
	size_t refusal_len;
	unsigned depth; /* calls into the relay under way (enter, leave) */
};

/* ---- queues ------------------------------------------------------------- */

static int queue_put(struct queue *q, const void *p, size_t n)
{
	if (q->off > 0 && q->off == q->len)
		q->off = q->len = 0;
	if (q->len + n > q->cap) {
		if (q->off > 0) {
			memmove(q->data, q->data + q->off, q->len - q->off);
			q->len -= q->off;
			q->off = 0;
		}
		if (q->len + n > q->cap) {
			size_t cap = q->cap ? q->cap : 4096;
			while (cap < q->len + n)
				cap *= 2;
			uint8_t *d = realloc(q->data, cap);
			if (!d)
				return -ENOMEM;
			q->data = d;
			q->cap = cap;
		}
	}
	memcpy(q->data + q->len, p, n);
	q->len += n;
	return 0;
}

static size_t queue_size(const struct queue *q)
{
	return q->len - q->off;
}

/* ---- sides: TLS or plain ------------------------------------------------ */

enum io {
	IO_OK,
	IO_WANT_READ,
	IO_WANT_WRITE,
	IO_EOF,
	IO_FAILED,
};

static enum io from_tls(enum tls_status st)
{
	switch (st) {
	case TLS_OK: return IO_OK;
	case TLS_WANT_READ: return IO_WANT_READ;
	case TLS_WANT_WRITE: return IO_WANT_WRITE;
	case TLS_CLOSED:
	case TLS_EOF: return IO_EOF;
	case TLS_FAILED: return IO_FAILED;
	}
	return IO_FAILED;
}

static enum io side_read(struct side *s, uint8_t *buf, size_t cap, size_t *got)
{
	*got = 0;
	if (s->tls)
		return from_tls(tls_session_read(s->tls, buf, cap, got));
	ssize_t n = recv(s->fd, buf, cap, 0);
	if (n > 0) {
		*got = (size_t)n;
		return IO_OK;
	}
	if (n == 0)
		return IO_EOF;
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return IO_WANT_READ;
	return IO_FAILED;
}

static enum io side_write(struct side *s, const uint8_t *buf, size_t len, size_t *sent)
{
	*sent = 0;
	if (s->tls)
		return from_tls(tls_session_write(s->tls, buf, len, sent));
	ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
	if (n >= 0) {
		*sent = (size_t)n;
		return IO_OK;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return IO_WANT_WRITE;
	return IO_FAILED;
}

/* Porta's last byte to s: close_notify, then the write half shut. */
static enum io side_shut(struct side *s)
{
	if (s->shut)
		return IO_OK;
	if (s->tls) {
		enum io st = from_tls(tls_session_close(s->tls));
		if (st == IO_WANT_READ || st == IO_WANT_WRITE)
			return st;
	}
	shutdown(s->fd, SHUT_WR);
	s->shut = true;
	return IO_OK;
}

static void want(struct side *s, enum io st)
{
	if (st == IO_WANT_READ)
		s->want_r = true;
	else if (st == IO_WANT_WRITE)
		s->want_w = true;
}

/* ---- ending ------------------------------------------------------------- */

static void side_free(struct side *s)
{
	if (s->ev_r)
		event_free(s->ev_r);
	if (s->ev_w)
		event_free(s->ev_w);
	tls_session_destroy(s->tls);
	if (s->fd >= 0)
		close(s->fd);
}

/* Every way into the relay from outside (its events, proxy_term_abort)
 * goes through enter() and leave(): the struct is freed by the outermost
 * leave() once finish() has run, so that the code that called finish(),
 * and a callback that aborted the relay from inside pump(), may still read
 * t->state (TERM_DONE) on their way out.  Not on a later turn of the loop:
 * the proxy aborts its connections as the sandbox ends and frees the loop
 * without another turn (netproxy/proxy.c). */
static void enter(struct proxy_term *t)
{
	t->depth++;
}

static void leave(struct proxy_term *t)
{
	if (--t->depth == 0 && t->state == TERM_DONE)
		free(t);
}

/* Ends the relay: both sockets closed, every event gone, done called; the
 * struct goes at the outermost leave(). */
static void finish(struct proxy_term *t, enum proxy_relay_end end)
{
	struct timespec now;

	if (t->state == TERM_DONE)
		return;
	t->state = TERM_DONE;
	if (end == PROXY_RELAY_RESET) {
		/* a reset, not a clean close: the client must not take a cut
		 * stream for a whole one */
		struct linger lg = { 1, 0 };
		setsockopt(t->cl.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		setsockopt(t->up.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	side_free(&t->cl);
	side_free(&t->up);
	t->cl.fd = t->up.fd = -1;
	t->cl.tls = t->up.tls = NULL;
	t->cl.ev_r = t->cl.ev_w = t->up.ev_r = t->up.ev_w = NULL;
	if (t->ev_idle)
		event_free(t->ev_idle);
	if (t->ev_again)
		event_free(t->ev_again);
	t->ev_idle = t->ev_again = NULL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t->stats.duration_ms = (uint64_t)(now.tv_sec - t->started.tv_sec) * 1000 +
			       (uint64_t)((now.tv_nsec - t->started.tv_nsec) / 1000000);
	free(t->up_q.data);
	free(t->dn_q.data);
	free(t->refusal);
	free(t->in);
	free(t->dn);
	t->up_q.data = t->dn_q.data = t->in = t->dn = NULL;
	t->refusal = NULL;
	t->done(end, &t->stats, t->arg);
}

void proxy_term_abort(struct proxy_term *t)
{
	if (!t)
		return;
	enter(t);
	finish(t, PROXY_RELAY_RESET);
	leave(t);
}

static void report(struct proxy_term *t, const struct proxy_term_event *ev)
{
	if (t->event)
		t->event(ev, t->arg);
}

/* ---- refusals ----------------------------------------------------------- */

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 502: return "Bad Gateway";
	default: return "Error";
	}
}

/* Porta answers the client itself with status and body, after every
 * response to the requests it already let through; then the connection
 * closes.  The client's bytes after the refused head are never read. */
static void refuse(struct proxy_term *t, int status, enum policy_reason reason,
		   const struct proxy_http_head *h, const char *suggestion, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void refuse(struct proxy_term *t, int status, enum policy_reason reason,
		   const struct proxy_http_head *h, const char *suggestion, const char *fmt, ...)
{
	char body[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(body))
		n = (int)sizeof(body) - 1;
	size_t cap = (size_t)n + 256;
	t->refusal = malloc(cap);
	if (!t->refusal) {
		finish(t, PROXY_RELAY_NO_MEMORY);
		return;
	}
	int m = snprintf(t->refusal, cap,
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
			 "Connection: close\r\nContent-Length: %d\r\nX-Porta-Refused: 1\r\n\r\n%.*s",
			 status, status_text(status), n, n, body);
	t->refusal_len = m > 0 && (size_t)m < cap ? (size_t)m : 0;
	t->state = TERM_REFUSING;
	struct proxy_term_event ev = { .kind = PROXY_TERM_REFUSED, .status = status, .why = body,
				       .suggestion = suggestion, .reason = reason };
	if (h) {
		ev.method = h->method.p;
		ev.method_len = h->method.n;
		ev.target = h->target.p;
		ev.target_len = h->target.n;
	}
	report(t, &ev);
}

/* ---- the client's requests ---------------------------------------------- */

/* The head's Host names the connection's host and port (a port-less Host
 * means the connection's: it is the scheme's default there). */
static bool same_host(const struct proxy_term *t, const struct proxy_http_head *h)
{
	struct policy_net_target ht;

	if (h->form != PROXY_HTTP_FORM_ORIGIN && h->form != PROXY_HTTP_FORM_ASTERISK)
		return false; /* absolute-form to an origin server: a proxy request */
	if (policy_net_target_parse(h->host.host.p, h->host.host.n, &ht) != POLICY_NET_TARGET_OK)
		return false;
	if (h->host.port && h->host.port != t->prm.port)
		return false;
	const struct policy_net_target *c = t->prm.host;
	if (c->is_addr || ht.is_addr)
		return c->is_addr && ht.is_addr && policy_addr_equal(&c->addr, &ht.addr);
	return strcmp(c->name, ht.name) == 0;
}

static bool is_method(const struct proxy_http_head *h, const char *m)
{
	return h->method.n == strlen(m) && memcmp(h->method.p, m, h->method.n) == 0;
}

/* One request head at buf[0..h->head_len): checked, rewritten, queued
 * upstream.  False when it was refused (t->state is TERM_REFUSING or DONE)
 * or cannot go yet (*later: too many unanswered requests). */
static bool take_head(struct proxy_term *t, const uint8_t *buf, const struct proxy_http_head *h,
		      bool *later)
{
	char why[256];

	*later = false;
	if (!same_host(t, h)) {
		refuse(t, 403, POLICY_REASON_HOST_MISMATCH, h, NULL,
		       "porta: this request names another host than the one this connection "
		       "was opened for (%s); send it on a connection of its own\n",
		       t->prm.host->name);
		return false;
	}
	if ((h->flags & PROXY_HTTP_UPGRADE) || is_method(h, "CONNECT")) {
		refuse(t, 403, POLICY_REASON_HTTP_REFUSED, h, NULL,
		       "porta: %s is not passed on an inspected connection (its bytes could "
		       "not be checked)\n",
		       (h->flags & PROXY_HTTP_UPGRADE) ? "a protocol upgrade" : "CONNECT");
		return false;
	}
	size_t which;
	if (t->prm.n_others &&
	    proxy_secret_find_head(t->prm.others, t->prm.n_others, buf, h->head_len, &which)) {
		struct proxy_term_event ev = { .kind = PROXY_TERM_SECRET_ELSEWHERE, .secret = which,
					       .method = h->method.p, .method_len = h->method.n,
					       .target = h->target.p, .target_len = h->target.n };
		report(t, &ev);
		const char *name = t->prm.others[which].name;
		refuse(t, 403, POLICY_REASON_SECRET_ELSEWHERE, h, NULL,
		       "porta: this request carries the placeholder of %s, a secret that is not "
		       "for this host\n", name ? name : "a --secret");
		return false;
	}
	struct policy_http_decision d;
	bool ruled = t->prm.n_rules > 0;
	if (ruled) {
		bool override = false;
		/* the override headers are read from the head's field lines */
		const uint8_t *p = buf, *end = buf + h->head_len;
		while (p < end) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				break;
			const uint8_t *colon = memchr(p, ':', (size_t)(nl - p));
			if (colon && policy_http_override_header(p, (size_t)(colon - p)))
				override = true;
			p = nl + 1;
		}
		struct policy_http_request req = {
			.scheme = t->prm.server ? POLICY_HTTP_SCHEME_HTTPS : POLICY_HTTP_SCHEME_HTTP,
			.host = t->prm.host, .port = t->prm.port,
			.method = h->method.p, .method_len = h->method.n,
			.target = h->target.p, .target_len = h->target.n,
			.method_override = override,
		};
		if (policy_http_decide(t->prm.rules, t->prm.n_rules, &req, &d) != POLICY_HTTP_ALLOWED) {
			snprintf(why, sizeof(why), "%s", policy_http_why_reason(d.why));
			if (d.has_suggestion)
				refuse(t, 403, POLICY_REASON_HTTP_NO_RULE, h, d.suggestion,
				       "porta: refused by --allow-http: %s; "
					"allow it with --allow-http '%s'\n", why, d.suggestion);
			else
				refuse(t, 403, POLICY_REASON_HTTP_NO_RULE, h, NULL,
				       "porta: refused by --allow-http: %s\n", why);
			return false;
		}
	}
	struct proxy_secret_result res;
	enum proxy_secret_status st = proxy_secret_request(buf, h, t->prm.bound, t->prm.n_bound,
							   t->prm.scratch, PROXY_SECRET_OUT_MAX, &res);
	if (st != PROXY_SECRET_OK) {
		refuse(t, 403, POLICY_REASON_HTTP_REFUSED, h, NULL,
		       "porta: a secret's placeholder is where porta will not put "
			"the real value (%s)\n",
		       st == PROXY_SECRET_IN_ROUTING ? "a routing or framing field" :
		       st == PROXY_SECRET_BAD_BASIC ? "Basic credentials porta cannot read" :
						      "the value cannot go there unchanged");
		return false;
	}
	enum proxy_hr_request kind = is_method(h, "HEAD") ? PROXY_HR_REQUEST_HEAD : PROXY_HR_REQUEST;
	if (!proxy_http_responses_expect(&t->hr, kind)) {
		*later = true;
		return false;
	}
	if (queue_put(&t->up_q, t->prm.scratch, res.len) < 0) {
		finish(t, PROXY_RELAY_NO_MEMORY);
		return false;
	}
	struct proxy_term_event ev = { .kind = PROXY_TERM_REQUEST, .method = h->method.p,
				       .method_len = h->method.n, .target = h->target.p,
				       .target_len = h->target.n, .replaced = res.replaced,
				       .has_rule = ruled, .rule_index = ruled ? d.rule_index : 0,
				       .rule_text = ruled ? t->prm.rules[d.rule_index].text : NULL };
	report(t, &ev);
	return true;
}

/* take_head() for a request to porta's HTTP proxy: the head it would
 * forward (origin-form, without Proxy-* and hop-by-hop fields) is made
 * first, and that is what is checked and sent; its target must name the
 * connection's host as its Host does. */
static bool take_proxied_head(struct proxy_term *t, const uint8_t *buf,
			      const struct proxy_http_head *h, bool *later)
{
	struct proxy_http_head fh;

	*later = false;
	if (h->form != PROXY_HTTP_FORM_ABSOLUTE || !proxy_http_target_matches_host(h))
		return take_head(t, buf, h, later); /* refused there: not this host */
	size_t cap = proxy_http_forward_max(h);
	uint8_t *fwd = malloc(cap);
	if (!fwd) {
		finish(t, PROXY_RELAY_NO_MEMORY);
		return false;
	}
	size_t n = proxy_http_forward_head(buf, h, fwd, cap, NULL);
	bool ok;
	if (n == 0 || proxy_http_parse_head(fwd, n, &fh) != PROXY_HTTP_OK) {
		refuse(t, 400, POLICY_REASON_MALFORMED_HTTP, h, NULL,
		       "porta: this request could not be forwarded as HTTP/1.1\n");
		ok = false;
	} else {
		ok = take_head(t, fwd, &fh, later);
	}
	free(fwd);
	return ok;
}

/* Frames what the client sent (t->in) as far as it goes. */
static void process_up(struct proxy_term *t)
{
	size_t off = 0;

	if (!t->in)
		return;
	while (t->state == TERM_RELAY && off < t->in_len) {
		struct proxy_http_head h;
		size_t used = 0;
		bool later = false;
		enum proxy_hs_status st = proxy_http_stream_feed(&t->hs, t->in + off, t->in_len - off,
								 &used, &h);
		if (st == PROXY_HS_PASS) {
			if (queue_put(&t->up_q, t->in + off, used) < 0) {
				finish(t, PROXY_RELAY_NO_MEMORY);
				return;
			}
			off += used;
		} else if (st == PROXY_HS_HEAD) {
			if (!(t->prm.proxied ? take_proxied_head(t, t->in + off, &h, &later) :
					       take_head(t, t->in + off, &h, &later))) {
				t->waiting = later;
				break;
			}
			t->waiting = false;
			/* the framing of what went upstream: a forwarded head
			 * has lost its Connection and Upgrade fields */
			struct proxy_http_head fr = t->prm.proxied ? proxy_http_forward_framing(&h) : h;
			proxy_http_stream_accept(&t->hs, &fr);
			off += used;
		} else if (st == PROXY_HS_NEED_MORE) {
			break;
		} else {
			refuse(t, 400,
			       st == PROXY_HS_TOO_BIG ? POLICY_REASON_TOO_BIG :
			       st == PROXY_HS_NO_HOST ? POLICY_REASON_NO_HOST :
			       st == PROXY_HS_DUPLICATE_HOST ? POLICY_REASON_DUPLICATE_HOST :
							       POLICY_REASON_MALFORMED_HTTP,
			       NULL, NULL, "porta: this request could not be read as HTTP/1.1 "
			       "(%s)\n",
			       st == PROXY_HS_TOO_BIG ? "a head or chunk line too long" :
			       st == PROXY_HS_NO_HOST ? "no Host" :
			       st == PROXY_HS_DUPLICATE_HOST ? "two Host fields" : "malformed");
			break;
		}
	}
	if (t->state == TERM_DONE)
		return;
	memmove(t->in, t->in + off, t->in_len - off);
	t->in_len -= off;
	if (t->in_len == 0) {
		free(t->in);
		t->in = NULL;
	}
}

/* ---- the server's responses --------------------------------------------- */

static void process_down(struct proxy_term *t)
{
	size_t off = 0;

	if (!t->dn)
		return;
	while (off < t->dn_len) {
		struct proxy_http_response r;
		size_t used = 0;
		enum proxy_hr_status st = proxy_http_responses_feed(&t->hr, t->dn + off,
								    t->dn_len - off, &used, &r);
		if (st == PROXY_HR_PASS) {
			if (queue_put(&t->dn_q, t->dn + off, used) < 0) {
				finish(t, PROXY_RELAY_NO_MEMORY);
				return;
			}
			off += used;
		} else if (st == PROXY_HR_HEAD) {
			struct proxy_secret_result res;
			if (proxy_secret_response(t->dn + off, &r, t->prm.bound, t->prm.n_bound,
						  t->prm.scratch, PROXY_SECRET_OUT_MAX, &res) !=
			    PROXY_SECRET_OK) {
				/* a real value porta cannot take back out of this
				 * head: it must not reach the sandbox */
				finish(t, PROXY_RELAY_RESET);
				return;
			}
			if (queue_put(&t->dn_q, t->prm.scratch, res.len) < 0) {
				finish(t, PROXY_RELAY_NO_MEMORY);
				return;
			}
			proxy_http_responses_accept(&t->hr, &r);
			off += used;
		} else if (st == PROXY_HR_NEED_MORE) {
			break;
		} else {
			finish(t, PROXY_RELAY_RESET); /* a response porta cannot frame */
			return;
		}
	}
	memmove(t->dn, t->dn + off, t->dn_len - off);
	t->dn_len -= off;
	if (t->dn_len == 0) {
		free(t->dn);
		t->dn = NULL;
	}
}

/* ---- the pump ----------------------------------------------------------- */

static void upstream_failed(struct proxy_term *t, const char *why)
{
	struct proxy_term_event ev = { .kind = PROXY_TERM_UPSTREAM_TLS, .why = why };
	t->up.dead = t->up.eof = t->up.shut = true;
	report(t, &ev);
	refuse(t, 502, POLICY_REASON_UPSTREAM_UNVERIFIED, NULL, NULL,
	       "porta: the server could not be verified: %s\n", why);
}

/* Both handshakes at once: the upstream's round trips (the TCP connection
 * is already up) pass while the client's handshake runs, instead of after
 * it (docs/benchmarks/tls-relay.md).  The relay starts once both are done.
 * An upstream that fails is answered 502 only once the client's handshake
 * is done, since porta can answer only over it; a client that fails ends
 * both. */
static bool handshake(struct proxy_term *t)
{
	if (!t->up_ready && t->up_why == NULL) {
		enum io st = from_tls(tls_session_handshake(t->up.tls));
		if (st == IO_FAILED || st == IO_EOF)
			t->up_why = tls_session_reason(t->up.tls);
		else if (st == IO_OK)
			t->up_ready = true;
		else
			want(&t->up, st);
	}
	if (!t->cl_ready) {
		enum io st = from_tls(tls_session_handshake(t->cl.tls));
		if (st == IO_FAILED || st == IO_EOF) {
			struct proxy_term_event ev = { .kind = PROXY_TERM_CLIENT_TLS,
						       .why = tls_session_reason(t->cl.tls) };
			report(t, &ev);
			finish(t, PROXY_RELAY_RESET);
			return false;
		}
		if (st != IO_OK) {
			want(&t->cl, st);
			return false;
		}
		t->cl_ready = true;
	}
	if (t->up_why != NULL) {
		upstream_failed(t, t->up_why);
		return false;
	}
	if (!t->up_ready)
		return false;
	t->state = TERM_RELAY;
	return true;
}

/* Writes what q holds to s until it would block. */
static bool flush(struct proxy_term *t, struct side *s, struct queue *q, uint64_t *count)
{
	if (q->data && queue_size(q) == 0) {
		/* emptied: an idle connection keeps no queue memory */
		free(q->data);
		memset(q, 0, sizeof(*q));
	}
	while (queue_size(q) > 0) {
		size_t sent;
		enum io st = side_write(s, q->data + q->off, queue_size(q), &sent);
		if (st == IO_OK) {
			q->off += sent;
			*count += sent;
			continue;
		}
		if (st == IO_FAILED || st == IO_EOF) {
			finish(t, PROXY_RELAY_RESET);
			return false;
		}
		want(s, st);
		break;
	}
	return true;
}

/* Reads from s into *buf[*len..TERM_IN_CAP) while there is room and q is
 * short; *buf is allocated for the read and freed again when nothing came. */
static bool fill(struct proxy_term *t, struct side *s, uint8_t **buf, size_t *len,
		 const struct queue *q, uint64_t *count)
{
	while (!s->eof && *len < TERM_IN_CAP && queue_size(q) < TERM_QUEUE_HIGH) {
		size_t got, room = TERM_IN_CAP - *len;
		if (!*buf && !(*buf = malloc(TERM_IN_CAP))) {
			finish(t, PROXY_RELAY_NO_MEMORY);
			return false;
		}
		enum io st = side_read(s, *buf + *len, room < TERM_READ_CHUNK ? room : TERM_READ_CHUNK,
				       &got);
		if (st == IO_OK) {
			*len += got;
			*count += got;
			return true; /* one read, then frame it */
		}
		if (*len == 0) {
			free(*buf);
			*buf = NULL;
		}
		if (st == IO_EOF) {
			s->eof = true;
			return true;
		}
		if (st == IO_FAILED) {
			finish(t, PROXY_RELAY_RESET);
			return false;
		}
		want(s, st);
		return true;
	}
	return true;
}

static void arm_sides(struct proxy_term *t)
{
	struct side *sides[2] = { &t->cl, &t->up };

	for (int i = 0; i < 2; i++) {
		struct side *s = sides[i];
		if (s->want_r && !s->dead)
			event_add(s->ev_r, NULL);
		else
			event_del(s->ev_r);
		if (s->want_w && !s->dead)
			event_add(s->ev_w, NULL);
		else
			event_del(s->ev_w);
	}
}

static void arm(struct proxy_term *t)
{
	bool again = false;

	arm_sides(t);
	/* decrypted bytes a socket will not signal again */
	if (t->state == TERM_RELAY &&
	    ((t->cl.tls && tls_session_has_buffered(t->cl.tls) && t->in_len < TERM_IN_CAP &&
	      queue_size(&t->up_q) < TERM_QUEUE_HIGH) ||
	     (t->up.tls && tls_session_has_buffered(t->up.tls) && t->dn_len < TERM_IN_CAP &&
	      queue_size(&t->dn_q) < TERM_QUEUE_HIGH)))
		again = true;
	if (again)
		event_active(t->ev_again, EV_TIMEOUT, 0);
	if (t->idle_ms) {
		struct timeval tv = { t->idle_ms / 1000, (t->idle_ms % 1000) * 1000 };
		event_add(t->ev_idle, &tv);
	}
}

static void pump(struct proxy_term *t)
{
	t->cl.want_r = t->cl.want_w = t->up.want_r = t->up.want_w = false;
	if (t->state == TERM_HANDSHAKE) {
		if (!handshake(t)) {
			if (t->state != TERM_DONE)
				arm(t);
			if (t->state != TERM_REFUSING)
				return;
		}
	}
	if (t->state == TERM_RELAY) {
		size_t before;
		do {
			before = t->in_len;
			if (!fill(t, &t->cl, &t->in, &t->in_len, &t->up_q,
				  &t->stats.bytes_up))
				return;
			process_up(t);
			if (t->state == TERM_DONE)
				return;
		} while (t->state == TERM_RELAY && t->in_len != before && !t->cl.eof);
		if (t->in_len == (size_t)TERM_IN_CAP && !t->waiting)
			refuse(t, 400, POLICY_REASON_TOO_BIG, NULL, NULL,
			       "porta: a request head past %zu bytes\n",
			       (size_t)TERM_IN_CAP);
	}
	if ((t->state == TERM_RELAY || t->state == TERM_REFUSING) && !t->up.dead) {
		if (!flush(t, &t->up, &t->up_q, &t->stats.bytes_up))
			return;
		if (t->state == TERM_RELAY && t->cl.eof && queue_size(&t->up_q) == 0) {
			enum io st = side_shut(&t->up);
			want(&t->up, st);
		}
		size_t before;
		do {
			before = t->dn_len;
			if (!fill(t, &t->up, &t->dn, &t->dn_len, &t->dn_q,
				  &t->stats.bytes_down))
				return;
			process_down(t);
			if (t->state == TERM_DONE)
				return;
		} while (t->dn_len != before && !t->up.eof);
		/* responses came: a head that waited for a slot may go now */
		if (t->state == TERM_RELAY && t->waiting && t->hr.count < PROXY_HR_PENDING_MAX) {
			process_up(t);
			if (t->state == TERM_DONE ||
			    !flush(t, &t->up, &t->up_q, &t->stats.bytes_up))
				return;
		}
	}
	if (!flush(t, &t->cl, &t->dn_q, &t->stats.bytes_down))
		return;
	/* a refusal goes once every earlier response is through */
	if (t->state == TERM_REFUSING && t->refusal &&
	    (t->hr.count == 0 || t->up.eof) && queue_size(&t->dn_q) == 0) {
		if (queue_put(&t->dn_q, t->refusal, t->refusal_len) < 0) {
			finish(t, PROXY_RELAY_NO_MEMORY);
			return;
		}
		free(t->refusal);
		t->refusal = NULL;
		if (!flush(t, &t->cl, &t->dn_q, &t->stats.bytes_down))
			return;
	}
	if (t->state == TERM_REFUSING && !t->refusal && queue_size(&t->dn_q) == 0) {
		enum io st = side_shut(&t->cl);
		if (st == IO_OK) {
			t->state = TERM_DRAIN;
			struct timeval tv = { TERM_DRAIN_S, 0 };
			event_add(t->ev_idle, &tv);
		} else {
			want(&t->cl, st);
		}
	}
	if (t->state == TERM_DRAIN) {
		uint8_t sink[4096];
		size_t got;
		enum io st;
		while ((st = side_read(&t->cl, sink, sizeof(sink), &got)) == IO_OK)
			;
		if (st == IO_WANT_READ || st == IO_WANT_WRITE) {
			want(&t->cl, st);
			arm_sides(t);
			return; /* the drain deadline stays as set */
		}
		finish(t, PROXY_RELAY_REFUSED);
		return;
	}
	/* the server is done: once its last bytes are with the client, so is
	 * porta */
	if (t->state == TERM_RELAY && t->up.eof && t->dn_len == 0 && queue_size(&t->dn_q) == 0) {
		enum io st = side_shut(&t->cl);
		if (st == IO_OK && (t->cl.eof || t->cl.shut)) {
			finish(t, PROXY_RELAY_CLOSED);
			return;
		}
		want(&t->cl, st);
	}
	if (t->state == TERM_RELAY && t->cl.eof && t->up.shut && t->up.eof) {
		finish(t, PROXY_RELAY_CLOSED);
		return;
	}
	if (t->state == TERM_RELAY && !t->cl.eof && t->in_len < (size_t)TERM_IN_CAP &&
	    queue_size(&t->up_q) < TERM_QUEUE_HIGH && !t->cl.want_w)
		t->cl.want_r = true;
	if ((t->state == TERM_RELAY || t->state == TERM_REFUSING) && !t->up.eof &&
	    t->dn_len < (size_t)TERM_IN_CAP && queue_size(&t->dn_q) < TERM_QUEUE_HIGH && !t->up.want_w)
		t->up.want_r = true;
	arm(t);
}

static void on_event(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_term *t = arg;
	(void)fd;
	(void)what;
	enter(t);
	pump(t);
	leave(t);
}

static void on_idle(evutil_socket_t fd, short what, void *arg)
{
	struct proxy_term *t = arg;
	(void)fd;
	(void)what;
	enter(t);
	finish(t, t->state == TERM_DRAIN ? PROXY_RELAY_REFUSED : PROXY_RELAY_IDLE);
	leave(t);
}

static int side_init(struct proxy_term *t, struct side *s, int fd)
{
	int one = 1;

	s->fd = fd;
	/* A handshake flight and a response head are several small writes
	 * (mbedtls sends each record with its own send(2), tls/endpoint.c
	 * on_send); with Nagle's algorithm the second waits for the peer's
	 * delayed ACK, up to 40 ms (tcp(7)), on every new connection: the
	 * reason netproxy/relay.c sets it too.  Fails harmlessly on a Unix
	 * socket. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s->ev_r = event_new(t->base, fd, EV_READ, on_event, t);
	s->ev_w = event_new(t->base, fd, EV_WRITE, on_event, t);
	return s->ev_r && s->ev_w ? 0 : -ENOMEM;
}

struct proxy_term *proxy_term_start(struct event_base *base, int client, int upstream,
				    const struct proxy_term_params *params, uint32_t idle_ms,
				    proxy_term_event_fn event, proxy_relay_done_fn done,
				    void *arg)
{
	struct proxy_term *t = calloc(1, sizeof(*t));
	int r = -ENOMEM;

	if (!t) {
		close(client);
		close(upstream);
		errno = ENOMEM;
		return NULL;
	}
	t->base = base;
	t->prm = *params;
	t->event = event;
	t->done = done;
	t->arg = arg;
	t->idle_ms = idle_ms;
	t->cl.fd = t->up.fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &t->started);
	proxy_http_stream_init(&t->hs);
	proxy_http_responses_init(&t->hr);
	t->ev_idle = evtimer_new(base, on_idle, t);
	t->ev_again = event_new(base, -1, 0, on_event, t);
	if (!params->scratch || !t->ev_idle || !t->ev_again || side_init(t, &t->cl, client) ||
	    side_init(t, &t->up, upstream))
		goto fail;
	if (params->server) {
		char host[POLICY_NAME_MAX + 1];
		const char *reason = NULL;
		snprintf(host, sizeof(host), "%s", params->host->name);
		if ((r = tls_session_server(params->server, client, &t->cl.tls)) < 0 ||
		    (r = tls_session_client(params->client, upstream, host, &t->up.tls, &reason)) < 0)
			goto fail;
		t->state = TERM_HANDSHAKE;
	} else {
		t->state = TERM_RELAY;
	}
	/* the first turn runs from the loop, never inside this call: a plain
	 * request refused at once would finish, and call done, before the
	 * caller had kept the handle it is given back */
	event_active(t->ev_again, EV_TIMEOUT, 0);
	return t;
fail:
	side_free(&t->cl);
	side_free(&t->up);
	if (t->cl.fd < 0)
		close(client);
	if (t->up.fd < 0)
		close(upstream);
	if (t->ev_idle)
		event_free(t->ev_idle);
	if (t->ev_again)
		event_free(t->ev_again);
	free(t);
	errno = -r;
	return NULL;
}
