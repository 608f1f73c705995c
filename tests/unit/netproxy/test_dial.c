/* tests/unit/netproxy/test_dial.c: the dial on a real event loop, over
 * loopback.  A handshake over before connect(2) returns is reported without
 * a round of the loop's events; a refused address moves on to the next; an
 * address that never answers runs into the timeout. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netproxy/dial.h"

struct outcome {
	bool called;
	int fd;
	size_t index;
	int err;
	struct event_base *base;
};

static void on_done(int fd, size_t index, int err, void *arg)
{
	struct outcome *o = arg;
	o->called = true;
	o->fd = fd;
	o->index = index;
	o->err = err;
	event_base_loopbreak(o->base);
}

/* A listener on 127.0.0.1 (backlog as given); its port in *port. */
static int listener(uint16_t *port, int backlog)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(l, backlog), 0);
	cr_assert_eq(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return l;
}

/* A port on 127.0.0.1 where nothing listens (bound, then closed). */
static uint16_t closed_port(void)
{
	uint16_t port;
	close(listener(&port, 1));
	return port;
}

static const struct policy_addr loopback = { .family = POLICY_ADDR_V4, .b = { 127, 0, 0, 1 } };

static struct outcome dial(const struct policy_addr *addrs, size_t n, uint16_t port,
			   uint32_t timeout_ms)
{
	struct outcome o = { .fd = -1 };
	o.base = event_base_new();
	cr_assert_not_null(proxy_dial_start(o.base, addrs, n, port, timeout_ms, on_done, &o));
	cr_assert_not(o.called, "done called from proxy_dial_start");
	event_base_dispatch(o.base);
	event_base_free(o.base);
	cr_assert(o.called);
	return o;
}

/* Loopback's handshake is over before connect() returns: the fd comes back
 * connected (its peer address is the listener's). */
Test(dial, a_listening_address_connects)
{
	uint16_t port;
	int l = listener(&port, 8);
	struct outcome o = dial(&loopback, 1, port, 2000);

	cr_assert_geq(o.fd, 0, "dial failed: %s", strerror(-o.err));
	cr_assert_eq(o.index, 0);
	struct sockaddr_in peer;
	socklen_t len = sizeof(peer);
	cr_assert_eq(getpeername(o.fd, (struct sockaddr *)&peer, &len), 0, "not connected");
	cr_assert_eq(ntohs(peer.sin_port), port);
	int a = accept(l, NULL, NULL);
	cr_assert_geq(a, 0);
	close(a);
	close(o.fd);
	close(l);
}

/* The first address refuses (a reset, seen as an error, not as writable):
 * the dial moves on to the second, which listens. */
Test(dial, a_refused_address_moves_on_to_the_next)
{
	uint16_t port;
	int l = listener(&port, 8);
	uint16_t refused = closed_port();
	/* the same port on two loopback addresses: only 127.0.0.1 listens */
	int l2 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(refused),
				  .sin_addr.s_addr = htonl(0x7f000002) };
	cr_assert_eq(bind(l2, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(l2, 8), 0);
	struct policy_addr two[2] = { loopback, { .family = POLICY_ADDR_V4, .b = { 127, 0, 0, 2 } } };

	struct outcome o = dial(two, 2, refused, 2000);
	cr_assert_geq(o.fd, 0, "dial failed: %s", strerror(-o.err));
	cr_assert_eq(o.index, 1, "answered by address %zu", o.index);
	close(o.fd);

	/* every address refuses: the last error */
	o = dial(&loopback, 1, refused, 2000);
	cr_assert_lt(o.fd, 0);
	cr_assert_eq(o.err, -ECONNREFUSED, "err %s", strerror(-o.err));
	close(l2);
	close(l);
}

/* A listener whose queue is full drops the SYN: no answer, so the dial ends
 * at its timeout with ETIMEDOUT. */
Test(dial, an_address_that_never_answers_times_out)
{
	uint16_t port;
	int l = listener(&port, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* fill the accept queue (backlog 0 holds one) so later SYNs drop */
	int fill[4];
	for (int i = 0; i < 4; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		connect(fill[i], (struct sockaddr *)&sa, sizeof(sa));
	}
	usleep(20000);
	struct outcome o = dial(&loopback, 1, port, 200);
	cr_assert_lt(o.fd, 0, "connected to a full queue");
	cr_assert_eq(o.err, -ETIMEDOUT, "err %s", strerror(-o.err));
	for (int i = 0; i < 4; i++)
		close(fill[i]);
	close(l);
}
