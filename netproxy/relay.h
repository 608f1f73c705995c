/* netproxy/relay.h: carrying a decided connection's bytes both ways.
 *
 * ARCHITECTURE: once a connection is decided, its bytes never pass through
 * user space: each direction is splice(2)d socket -> pipe -> socket.  Bytes
 * the sniffer peeked are still in the client socket's receive queue, so they
 * go upstream only now, after the decision (escape corpus row 37).
 * A gate may hold the client -> upstream direction to what it has read:
 * the relay peeks (MSG_PEEK) the client's queued bytes, the gate says how
 * many may pass, and exactly those are spliced (plain HTTP is framed so,
 * every request's Host checked: http_stream.h, escape corpus row 47), or
 * that some bytes at the front go in another form (a proxy request's head
 * forwarded in origin-form: wire/http_forward.h), written from user space.
 * Back-pressure: a direction stops reading while its pipe holds bytes the
 * other side cannot take.  Half-close: EOF on one side becomes shutdown(2)
 * of the other's write half once the pipe is drained; the relay ends when
 * both directions have, on an error or reset, or after the idle timeout.
 * Runs on the caller's libevent base (the supervisor's loop, one thread);
 * the process must ignore SIGPIPE (splice(2) to a reset peer raises it).
 */
#ifndef PORTA_NETPROXY_RELAY_H
#define PORTA_NETPROXY_RELAY_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct proxy_relay;

/* Empty pipes kept for the next relay: creating two pipes and closing their
 * four ends cost a relay more than anything else it does before its first
 * byte (about 7 us a pipe on the machine in docs/benchmarks/relay.md).  A
 * pipe goes back only when the relay's count of the bytes it holds (exact:
 * each splice(2) in and out is counted) is zero, so no connection is ever
 * handed another's bytes; one that ends holding some is closed.  The owner
 * zero-initialises it, passes it to every relay on one base, and drains it
 * once no relay that took from it is left. */
#define PROXY_PIPE_POOL_MAX 8
struct proxy_pipe_pool {
	int fd[PROXY_PIPE_POOL_MAX][2]; /* [k][0] read end, [k][1] write end */
	size_t n;
};

/* Closes every pipe the pool holds; it is empty (and reusable) after. */
void proxy_pipe_pool_drain(struct proxy_pipe_pool *pool);

enum proxy_relay_end {
	PROXY_RELAY_CLOSED,  /* both sides finished cleanly (EOF each way) */
	PROXY_RELAY_RESET,   /* a side failed (reset, error) */
	PROXY_RELAY_IDLE,    /* nothing moved for the idle timeout */
	PROXY_RELAY_NO_MEMORY,
	PROXY_RELAY_REFUSED, /* the gate refused the client's bytes: both sides reset */
};

struct proxy_relay_stats {
	uint64_t bytes_up;   /* client -> upstream */
	uint64_t bytes_down; /* upstream -> client */
	uint64_t duration_ms;
};

/* Called once when the relay ends, after both sockets are closed; the relay
 * is freed when the callback returns. */
typedef void (*proxy_relay_done_fn)(enum proxy_relay_end end,
				    const struct proxy_relay_stats *stats, void *arg);

/* Starts relaying between client and upstream, two connected stream sockets
 * (TCP or Unix) that the relay takes ownership of (it makes them non-blocking
 * and closes them).  Its two pipes come from pool and go back to it (pool
 * NULL: made and closed here).  idle_ms 0 means no idle timeout.  Returns the
 * relay, or NULL with both fds closed and errno set (the callback is not
 * called).  Call on base's thread only. */
struct proxy_relay *proxy_relay_start(struct event_base *base, struct proxy_pipe_pool *pool,
				      int client, int upstream, uint32_t idle_ms,
				      proxy_relay_done_fn done, void *arg);

enum proxy_relay_gate_verdict {
	PROXY_RELAY_GATE_PASS,    /* *pass bytes may go upstream now: 0..len, or
				   * more when the gate knows that the bytes after
				   * its view need no look (the rest of a body of
				   * declared length): those go unpeeked, and the
				   * gate is called again once all *pass have gone */
	PROXY_RELAY_GATE_REPLACE, /* the first *pass bytes (1..len) are dropped and
				   * the gate's replacement goes upstream instead */
	PROXY_RELAY_GATE_STOP,    /* end the relay (PROXY_RELAY_REFUSED) without more */
};

/* A gate's replacement: a buffer from malloc(3) that the relay takes over
 * (and frees) with a REPLACE answer; left NULL otherwise. */
struct proxy_relay_replacement {
	uint8_t *bytes;
	size_t len;
};

/* Inspects the client's bytes before they go upstream.  buf[0..len) are
 * the bytes queued from the client (peeked, not consumed) beyond those the
 * gate already let pass, at most PROXY_RELAY_GATE_MAX; the gate sets *pass
 * and answers.  REPLACE also sets *repl: the relay reads the *pass bytes
 * out of the client's queue, writes repl's bytes upstream (before anything
 * later) and calls the gate again on what follows.  With *pass 0 it is
 * called again once more bytes than len are queued; when the client's EOF comes instead, the bytes it held back
 * are dropped and the EOF is forwarded.  A gate that cannot decide within
 * PROXY_RELAY_GATE_MAX bytes must answer STOP.  buf is one buffer all
 * relays share, valid during the call only.  Called on the base's thread, from the relay's
 * callbacks: it must not free the relay (answer STOP instead). */
typedef enum proxy_relay_gate_verdict (*proxy_relay_gate_fn)(
	const uint8_t *buf, size_t len, size_t *pass, struct proxy_relay_replacement *repl,
	void *arg);
#define PROXY_RELAY_GATE_MAX 32768

/* Puts gate on the client -> upstream direction (TCP clients only: the wait
 * for more bytes relies on SO_RCVLOWAT, socket(7), which must be at its
 * default of 1 when the client is handed over: the relay changes it only
 * where it differs from what it last set).  Call right after
 * proxy_relay_start, before control returns to the loop.  The other
 * direction keeps splice(2).  Returns 0: nothing is allocated (the gate's
 * view is the module's one buffer); -errno stays possible for callers. */
int proxy_relay_set_gate(struct proxy_relay *relay, proxy_relay_gate_fn gate, void *arg);

/* Ends the relay now (as PROXY_RELAY_RESET: the command is gone, porta is
 * exiting), calling its callback.  proxy_relay_abort(NULL) is a no-op. */
void proxy_relay_abort(struct proxy_relay *relay);

#endif /* PORTA_NETPROXY_RELAY_H */
