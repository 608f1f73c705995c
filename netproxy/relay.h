/* netproxy/relay.h: carrying a decided connection's bytes both ways.
 *
 * ARCHITECTURE: once a connection is decided, its bytes never pass through
 * user space: each direction is splice(2)d socket -> pipe -> socket.  Bytes
 * the sniffer peeked are still in the client socket's receive queue, so they
 * go upstream only now, after the decision (escape corpus row 37).
 * Back-pressure: a direction stops reading while its pipe holds bytes the
 * other side cannot take.  Half-close: EOF on one side becomes shutdown(2)
 * of the other's write half once the pipe is drained; the relay ends when
 * both directions have, on an error or reset, or after the idle timeout.
 * Runs on the caller's libevent base (the supervisor's loop, one thread);
 * the process must ignore SIGPIPE (splice(2) to a reset peer raises it).
 */
#ifndef PORTA_NETPROXY_RELAY_H
#define PORTA_NETPROXY_RELAY_H

#include <stdint.h>

struct event_base;
struct proxy_relay;

enum proxy_relay_end {
	PROXY_RELAY_CLOSED,  /* both sides finished cleanly (EOF each way) */
	PROXY_RELAY_RESET,   /* a side failed (reset, error) */
	PROXY_RELAY_IDLE,    /* nothing moved for the idle timeout */
	PROXY_RELAY_NO_MEMORY,
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
 * and closes them).  idle_ms 0 means no idle timeout.  Returns the relay, or
 * NULL with both fds closed and errno set (the callback is not called).
 * Call on base's thread only. */
struct proxy_relay *proxy_relay_start(struct event_base *base, int client, int upstream,
				      uint32_t idle_ms, proxy_relay_done_fn done, void *arg);

/* Ends the relay now (as PROXY_RELAY_RESET: the command is gone, porta is
 * exiting), calling its callback.  proxy_relay_abort(NULL) is a no-op. */
void proxy_relay_abort(struct proxy_relay *relay);

#endif /* PORTA_NETPROXY_RELAY_H */
