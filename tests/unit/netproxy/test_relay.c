/* tests/unit/netproxy/test_relay.c: the splice relay on a real event loop,
 * over TCP on loopback: bulk both ways, half-close, back-pressure, reset,
 * idle timeout, and two gated relays interleaved on the one gate view.  Peers
 * run in threads so the loop thread only relays. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netproxy/relay.h"

/* A connected TCP pair on loopback: *a connects, *b is accepted. */
static void tcp_pair(int *a, int *b)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(l, 1), 0);
	cr_assert_eq(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	*a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(connect(*a, (struct sockaddr *)&sa, sizeof(sa)), 0);
	*b = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	cr_assert_geq(*b, 0);
	close(l);
}

struct outcome {
	bool called;
	enum proxy_relay_end end;
	struct proxy_relay_stats stats;
	struct event_base *base;
};

static void on_done(enum proxy_relay_end end, const struct proxy_relay_stats *st, void *arg)
{
	struct outcome *o = arg;
	o->called = true;
	o->end = end;
	o->stats = *st;
	event_base_loopbreak(o->base);
}

/* A deterministic byte stream: byte i of stream `seed` is a function of i. */
static uint8_t pattern(uint64_t i, unsigned seed)
{
	return (uint8_t)((i * 2654435761u) >> 13) ^ (uint8_t)seed;
}

struct peer {
	int fd;
	uint64_t send;      /* bytes to send, then shutdown(SHUT_WR) */
	unsigned seed;      /* of what it sends */
	unsigned want_seed; /* of what it expects */
	uint64_t received;
	bool mismatch;
	unsigned read_delay_ms; /* sleep before reading at all (back-pressure) */
	int end_err;            /* how its reading ended: 0 at EOF (a FIN), else errno */
};

static void *peer_send(void *arg)
{
	struct peer *p = arg;
	uint8_t buf[65536];
	uint64_t off = 0;
	while (off < p->send) {
		size_t n = sizeof(buf) < p->send - off ? sizeof(buf) : (size_t)(p->send - off);
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(off + i, p->seed);
		ssize_t w = write(p->fd, buf, n);
		if (w <= 0)
			return NULL;
		off += (uint64_t)w;
	}
	shutdown(p->fd, SHUT_WR);
	return NULL;
}

static void *peer_recv(void *arg)
{
	struct peer *p = arg;
	uint8_t buf[65536];
	if (p->read_delay_ms)
		usleep(p->read_delay_ms * 1000);
	for (;;) {
		ssize_t n = read(p->fd, buf, sizeof(buf));
		if (n <= 0) {
			p->end_err = n < 0 ? errno : 0;
			break;
		}
		for (ssize_t i = 0; i < n; i++)
			p->mismatch |= buf[i] != pattern(p->received + (uint64_t)i, p->want_seed);
		p->received += (uint64_t)n;
	}
	return NULL;
}

/* client <-> [c_in | relay | u_out] <-> server, both peers sending and
 * receiving at once. */
static struct outcome relay_pooled(struct proxy_pipe_pool *pool, uint64_t up, uint64_t down,
				   unsigned server_delay_ms, struct peer *client, struct peer *server)
{
	int c, c_in, u_out, s;
	struct outcome o = { 0 };

	signal(SIGPIPE, SIG_IGN);
	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	o.base = event_base_new();
	cr_assert_not_null(proxy_relay_start(o.base, pool, c_in, u_out, 10000, on_done, &o));
	*client = (struct peer){ .fd = c, .send = up, .seed = 1, .want_seed = 2 };
	*server = (struct peer){ .fd = s, .send = down, .seed = 2, .want_seed = 1,
				 .read_delay_ms = server_delay_ms };
	pthread_t t[4];
	pthread_create(&t[0], NULL, peer_send, client);
	pthread_create(&t[1], NULL, peer_recv, client);
	pthread_create(&t[2], NULL, peer_send, server);
	pthread_create(&t[3], NULL, peer_recv, server);
	event_base_dispatch(o.base);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	close(c);
	close(s);
	event_base_free(o.base);
	return o;
}

static struct outcome relay_both_ways(uint64_t up, uint64_t down, unsigned server_delay_ms,
				      struct peer *client, struct peer *server)
{
	return relay_pooled(NULL, up, down, server_delay_ms, client, server);
}

Test(relay, bulk_both_ways_arrives_intact)
{
	struct peer client, server;
	struct outcome o = relay_both_ways(32u << 20, 8u << 20, 0, &client, &server);

	cr_assert(o.called);
	cr_assert_eq(o.end, PROXY_RELAY_CLOSED);
	cr_assert_eq(server.received, 32u << 20, "server got %lu", (unsigned long)server.received);
	cr_assert_eq(client.received, 8u << 20, "client got %lu", (unsigned long)client.received);
	cr_assert_not(server.mismatch, "bytes upstream changed or reordered");
	cr_assert_not(client.mismatch, "bytes downstream changed or reordered");
	cr_assert_eq(o.stats.bytes_up, 32u << 20);
	cr_assert_eq(o.stats.bytes_down, 8u << 20);
	/* each end's stream ends with a FIN (the last one sent by close(2)
	 * as the relay ends, the first by shutdown(2)), never a reset */
	cr_assert_eq(client.end_err, 0, "client: %s", strerror(client.end_err));
	cr_assert_eq(server.end_err, 0, "server: %s", strerror(server.end_err));
}

/* The client sends nothing and shuts down at once; the server still sends
 * 1 MiB after seeing that EOF, and the client gets all of it. */
Test(relay, half_close_keeps_the_other_direction)
{
	struct peer client, server;
	struct outcome o = relay_both_ways(0, 1u << 20, 0, &client, &server);

	cr_assert_eq(o.end, PROXY_RELAY_CLOSED);
	cr_assert_eq(client.received, 1u << 20);
	cr_assert_not(client.mismatch);
	cr_assert_eq(server.received, 0);
	cr_assert_eq(client.end_err, 0, "client: %s", strerror(client.end_err));
	cr_assert_eq(server.end_err, 0, "server: %s", strerror(server.end_err));
}

/* The server reads nothing for a while: the relay must stop reading the
 * client (bytes wait in the socket buffers, not in porta), then deliver
 * everything once the server reads. */
Test(relay, back_pressure_then_everything_arrives)
{
	struct peer client, server;
	struct outcome o = relay_both_ways(16u << 20, 0, 300, &client, &server);

	cr_assert_eq(o.end, PROXY_RELAY_CLOSED);
	cr_assert_eq(server.received, 16u << 20);
	cr_assert_not(server.mismatch);
}

/* The upstream resets mid-transfer: the relay ends as RESET and the client
 * sees its connection end. */
Test(relay, upstream_reset_ends_the_relay)
{
	int c, c_in, u_out, s;
	struct outcome o = { 0 };

	signal(SIGPIPE, SIG_IGN);
	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	o.base = event_base_new();
	cr_assert_not_null(proxy_relay_start(o.base, NULL, c_in, u_out, 10000, on_done, &o));
	char buf[4096] = { 0 };
	cr_assert_eq(write(s, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	struct linger lg = { .l_onoff = 1, .l_linger = 0 }; /* close() sends RST */
	setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	/* unread data in s's receive queue also makes close() reset */
	cr_assert_eq(write(c, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	usleep(50000);
	close(s);
	/* the client keeps writing into a relay whose upstream is gone */
	for (int i = 0; i < 64; i++)
		if (write(c, buf, sizeof(buf)) < 0)
			break;
	event_base_dispatch(o.base);
	cr_assert(o.called);
	cr_assert_eq(o.end, PROXY_RELAY_RESET);
	/* the client's side was closed by the relay: reads end */
	char rb[65536];
	ssize_t n;
	while ((n = read(c, rb, sizeof(rb))) > 0)
		;
	cr_assert_leq(n, 0);
	close(c);
	event_base_free(o.base);
}

Test(relay, idle_timeout)
{
	int c, c_in, u_out, s;
	struct outcome o = { 0 };

	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	o.base = event_base_new();
	cr_assert_not_null(proxy_relay_start(o.base, NULL, c_in, u_out, 100, on_done, &o));
	event_base_dispatch(o.base);
	cr_assert(o.called);
	cr_assert_eq(o.end, PROXY_RELAY_IDLE);
	cr_assert_geq(o.stats.duration_ms, 90);
	/* both peers see their connection end */
	char b;
	cr_assert_eq(read(c, &b, 1), 0);
	cr_assert_eq(read(s, &b, 1), 0);
	close(c);
	close(s);
	event_base_free(o.base);
}

/* The pool's pipes, as a set: the read end of each. */
static bool pool_holds(const struct proxy_pipe_pool *pool, int read_end)
{
	for (size_t k = 0; k < pool->n; k++)
		if (pool->fd[k][0] == read_end)
			return true;
	return false;
}

/* A relay that ends cleanly gives both its pipes back, and the next relay
 * takes those same pipes instead of making new ones, and carries its bytes
 * intact through them. */
Test(relay, pipes_go_back_to_the_pool_and_are_reused)
{
	struct proxy_pipe_pool pool = { 0 };
	struct peer client, server;

	struct outcome o = relay_pooled(&pool, 1u << 20, 1u << 20, 0, &client, &server);
	cr_assert_eq(o.end, PROXY_RELAY_CLOSED);
	cr_assert_eq(pool.n, 2, "pipes given back: %zu", pool.n);
	int first[2] = { pool.fd[0][0], pool.fd[1][0] };

	o = relay_pooled(&pool, 4u << 20, 2u << 20, 0, &client, &server);
	cr_assert_eq(o.end, PROXY_RELAY_CLOSED);
	cr_assert_eq(server.received, 4u << 20);
	cr_assert_eq(client.received, 2u << 20);
	cr_assert_not(server.mismatch);
	cr_assert_not(client.mismatch);
	cr_assert_eq(pool.n, 2);
	cr_assert(pool_holds(&pool, first[0]) && pool_holds(&pool, first[1]),
		  "the second relay made pipes of its own");
	proxy_pipe_pool_drain(&pool);
	cr_assert_eq(pool.n, 0);
	cr_assert_eq(fcntl(first[0], F_GETFD), -1, "drain left a pipe open");
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

/* A relay that ends with bytes still in a pipe (the server stopped
 * reading: back-pressure) must not hand that pipe to the next connection:
 * only the empty one goes back. */
Test(relay, a_pipe_holding_bytes_is_not_pooled)
{
	struct proxy_pipe_pool pool = { 0 };
	int c, c_in, u_out, s;
	struct outcome o = { 0 };

	signal(SIGPIPE, SIG_IGN);
	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	o.base = event_base_new();
	struct proxy_relay *r = proxy_relay_start(o.base, &pool, c_in, u_out, 10000, on_done, &o);
	cr_assert_not_null(r);
	struct peer client = { .fd = c, .send = 256u << 20, .seed = 1 };
	pthread_t t;
	pthread_create(&t, NULL, peer_send, &client);
	/* the server reads nothing: its buffers fill, then the relay's pipe */
	struct event *tick = evtimer_new(o.base, on_tick, o.base);
	struct timeval tv = { 0, 300000 };
	evtimer_add(tick, &tv);
	event_base_dispatch(o.base);
	cr_assert_not(o.called);
	proxy_relay_abort(r);
	cr_assert(o.called);
	cr_assert_eq(o.end, PROXY_RELAY_RESET);
	cr_assert_eq(pool.n, 1, "pipes given back: %zu (one held bytes)", pool.n);
	int queued = -1;
	cr_assert_eq(ioctl(pool.fd[0][0], FIONREAD, &queued), 0);
	cr_assert_eq(queued, 0, "a pooled pipe holds %d bytes", queued);
	pthread_join(t, NULL); /* its writes fail once the relay closed c_in */
	proxy_pipe_pool_drain(&pool);
	event_free(tick);
	close(c);
	close(s);
	event_base_free(o.base);
}

/* Both of the relay's sockets without Nagle's algorithm: a small piece
 * behind an unacknowledged one must not wait for a delayed ACK. */
Test(relay, both_sides_nodelay)
{
	int c, c_in, u_out, s;
	struct outcome o = { 0 };

	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	/* dups share the sockets the relay takes over */
	int c_in_dup = dup(c_in), u_out_dup = dup(u_out);
	o.base = event_base_new();
	struct proxy_relay *r = proxy_relay_start(o.base, NULL, c_in, u_out, 10000, on_done, &o);
	cr_assert_not_null(r);
	int fds[2] = { c_in_dup, u_out_dup };
	for (int i = 0; i < 2; i++) {
		int v = 0;
		socklen_t len = sizeof(v);
		cr_assert_eq(getsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
		cr_expect_neq(v, 0, "side %d keeps Nagle's algorithm", i);
		close(fds[i]);
	}
	proxy_relay_abort(r);
	cr_assert(o.called);
	close(c);
	close(s);
	event_base_free(o.base);
}

/* ---- gated relays: every relay's gate is shown the one shared view ------ */

/* Passes whole lines, holds a partial one; a line with the other relay's
 * letter is refused, so bytes shown to the wrong gate would end its relay. */
struct line_gate {
	char own;
	unsigned calls, holds; /* holds: calls that kept half a line back */
};

static enum proxy_relay_gate_verdict line_gate(const uint8_t *buf, size_t len, size_t *pass,
					       struct proxy_relay_replacement *repl, void *arg)
{
	struct line_gate *g = arg;
	(void)repl;
	g->calls++;
	size_t end = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != (uint8_t)g->own && buf[i] != '\n')
			return PROXY_RELAY_GATE_STOP;
		if (buf[i] == '\n')
			end = i + 1;
	}
	*pass = end;
	g->holds += end < len;
	return PROXY_RELAY_GATE_PASS;
}

struct liner {
	int fd;
	char own;
	unsigned lines;
	uint64_t received; /* server side: bytes of its own letter or newline */
	bool foreign;
};

/* Client: each line in two writes with a pause between, so that the gate
 * holds half a line while the other relay's gate runs. */
static void *liner_send(void *arg)
{
	struct liner *l = arg;
	char half[16];
	memset(half, l->own, sizeof(half));
	for (unsigned i = 0; i < l->lines; i++) {
		if (write(l->fd, half, sizeof(half)) != (ssize_t)sizeof(half))
			break;
		usleep(2000);
		half[sizeof(half) - 1] = '\n';
		ssize_t w = write(l->fd, half, sizeof(half));
		half[sizeof(half) - 1] = l->own;
		if (w != (ssize_t)sizeof(half))
			break;
	}
	shutdown(l->fd, SHUT_WR);
	char sink[64];
	while (read(l->fd, sink, sizeof(sink)) > 0)
		;
	return NULL;
}

/* Server: reads all, checks every byte is its client's, then ends its side. */
static void *liner_recv(void *arg)
{
	struct liner *l = arg;
	uint8_t buf[4096];
	ssize_t n;
	while ((n = read(l->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			l->foreign |= buf[i] != (uint8_t)l->own && buf[i] != '\n';
		l->received += (uint64_t)n;
	}
	shutdown(l->fd, SHUT_WR);
	return NULL;
}

struct two_done {
	int left;
	enum proxy_relay_end end[2];
	struct event_base *base;
};

static void on_one_done(enum proxy_relay_end end, const struct proxy_relay_stats *st, void *arg)
{
	struct two_done *d = arg;
	(void)st;
	d->end[--d->left] = end;
	if (d->left == 0)
		event_base_loopbreak(d->base);
}

Test(relay, gated_relays_interleaved_each_see_only_their_own_bytes)
{
	struct two_done d = { .left = 2 };
	struct line_gate g[2] = { { .own = 'a' }, { .own = 'b' } };
	struct liner cl[2], sv[2];
	pthread_t t[4];

	signal(SIGPIPE, SIG_IGN);
	d.base = event_base_new();
	for (int k = 0; k < 2; k++) {
		int c, c_in, u_out, s;
		tcp_pair(&c, &c_in);
		tcp_pair(&u_out, &s);
		struct proxy_relay *r = proxy_relay_start(d.base, NULL, c_in, u_out, 10000, on_one_done, &d);
		cr_assert_not_null(r);
		cr_assert_eq(proxy_relay_set_gate(r, line_gate, &g[k]), 0);
		cl[k] = (struct liner){ .fd = c, .own = g[k].own, .lines = 40 };
		sv[k] = (struct liner){ .fd = s, .own = g[k].own };
	}
	for (int k = 0; k < 2; k++) {
		pthread_create(&t[2 * k], NULL, liner_send, &cl[k]);
		pthread_create(&t[2 * k + 1], NULL, liner_recv, &sv[k]);
	}
	event_base_dispatch(d.base);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < 2; k++) {
		cr_expect_eq(d.end[k], PROXY_RELAY_CLOSED, "relay %d ended %d", k, d.end[k]);
		cr_expect(!sv[k].foreign, "server %c received another relay's bytes", sv[k].own);
		cr_expect_eq(sv[k].received, 40u * 32u, "server %c: %llu bytes", sv[k].own,
			     (unsigned long long)sv[k].received);
		/* the gate held half lines back, to be shown them again later */
		cr_expect_gt(g[k].holds, 0u, "gate %c ran %u times and never held a half line",
			     g[k].own, g[k].calls);
		close(cl[k].fd);
		close(sv[k].fd);
	}
	event_base_free(d.base);
}

/* ---- a gate's pass beyond its view ---------------------------------------- */

/* Sees a 16-byte header, lets it and the BODY bytes after it go (more than
 * it was shown: it knows the body's length, as the HTTP gate does), and
 * must then be shown "END\n" first: a body byte shown to it ends the relay. */
#define GATE_BODY (1u << 20)
struct body_gate {
	bool header_seen;
	unsigned later_calls;
	uint64_t shown; /* bytes in every view it was given */
};

static enum proxy_relay_gate_verdict body_gate(const uint8_t *buf, size_t len, size_t *pass,
					       struct proxy_relay_replacement *repl, void *arg)
{
	struct body_gate *g = arg;
	(void)repl;
	g->shown += len;
	if (!g->header_seen) {
		if (len < 16) {
			*pass = 0;
			return PROXY_RELAY_GATE_PASS;
		}
		g->header_seen = true;
		*pass = 16 + (size_t)GATE_BODY;
		return PROXY_RELAY_GATE_PASS;
	}
	g->later_calls++;
	if (len < 4) {
		*pass = 0;
		return PROXY_RELAY_GATE_PASS;
	}
	if (memcmp(buf, "END\n", 4) != 0)
		return PROXY_RELAY_GATE_STOP;
	*pass = len;
	return PROXY_RELAY_GATE_PASS;
}

static void *body_client(void *arg)
{
	struct peer *p = arg;
	static uint8_t body[GATE_BODY];
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = pattern(i, 3);
	if (write(p->fd, "HEADER-16-BYTES\n", 16) == 16 &&
	    write(p->fd, body, sizeof(body)) == (ssize_t)sizeof(body))
		(void)!write(p->fd, "END\n", 4);
	shutdown(p->fd, SHUT_WR);
	char sink[64];
	while (read(p->fd, sink, sizeof(sink)) > 0)
		;
	return NULL;
}

/* Server: reads to the client's EOF, then ends its side. */
static void *body_server(void *arg)
{
	struct peer *p = arg;
	peer_recv(p);
	shutdown(p->fd, SHUT_WR);
	return NULL;
}

Test(relay, a_gates_pass_beyond_its_view_goes_unshown)
{
	struct body_gate g = { 0 };
	struct outcome o = { 0 };
	struct peer client, server;
	int c, c_in, u_out, s;
	pthread_t t[2];

	signal(SIGPIPE, SIG_IGN);
	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	o.base = event_base_new();
	struct proxy_relay *r = proxy_relay_start(o.base, NULL, c_in, u_out, 10000, on_done, &o);
	cr_assert_not_null(r);
	cr_assert_eq(proxy_relay_set_gate(r, body_gate, &g), 0);
	client = (struct peer){ .fd = c };
	server = (struct peer){ .fd = s, .seed = 0, .want_seed = 0 };
	pthread_create(&t[0], NULL, body_client, &client);
	pthread_create(&t[1], NULL, body_server, &server);
	event_base_dispatch(o.base);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	cr_expect_eq(o.end, PROXY_RELAY_CLOSED, "the relay ended %d: a body byte was shown", o.end);
	cr_expect_eq(server.received, 16u + GATE_BODY + 4u, "%llu bytes arrived",
		     (unsigned long long)server.received);
	cr_expect_geq(g.later_calls, 1u, "the gate never saw END");
	cr_expect_lt(g.shown, (uint64_t)GATE_BODY, "the gate was shown %llu bytes",
		     (unsigned long long)g.shown);
	close(c);
	close(s);
	event_base_free(o.base);
}
