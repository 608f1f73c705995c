/* netproxy/terminate.h: the relay for a connection porta terminates: TLS
 * (or plain HTTP) read in user space both ways, every request checked and
 * rewritten, every response head rewritten back.
 *
 * ARCHITECTURE: the splice(2) relay (relay.h) never sees plaintext.  For a
 * host named by --secret or --allow-http porta must: present its run CA's
 * leaf to the client (tls/ca.h, tls/endpoint.h) and verify the real server
 * upstream; frame the client's requests (wire/http_stream.h) and, for each
 * head, check that its Host names the connection's host (no fronting),
 * that no other secret's placeholder is in it (secret-elsewhere), that a
 * --allow-http rule allows its method and path (policy/httprule.h), then
 * swap this host's placeholders for their real values
 * (wire/http_secret.h); and frame the server's responses
 * (wire/http_response.h) to swap real values in every response head back to
 * placeholders.  Bodies pass unchanged both ways.
 *
 * Refusals: a request that fails a check is answered by porta itself (403
 * with a body naming the reason and, for a rule, the rule that would allow
 * it; 400 for a head porta cannot frame) once every earlier response has
 * reached the client, and the connection then closes: what the client
 * pipelined after it is never sent.  An upstream whose certificate fails
 * verification is answered 502 with the reason.  Each request and each
 * refusal is reported through the event callback, for the audit.
 *
 * Runs on the caller's libevent base, one thread.  Owns both fds from
 * proxy_term_start() on.
 */
#ifndef PORTA_NETPROXY_TERMINATE_H
#define PORTA_NETPROXY_TERMINATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netproxy/relay.h"
#include "policy/httprule.h"
#include "policy/netrule.h"
#include "policy/reason.h"
#include "wire/http_secret.h"

struct event_base;
struct proxy_term;
struct tls_server_conf;
struct tls_client_conf;

/* What one terminated connection is held to.  Every pointer is the
 * caller's and must outlive the relay. */
struct proxy_term_params {
	struct tls_server_conf *server; /* NULL: plain HTTP both ways */
	struct tls_client_conf *client; /* with server */
	/* plain HTTP through porta's HTTP proxy: the client's requests are
	 * absolute-form, each forwarded in origin-form without the proxy's
	 * fields (wire/http_forward.h) and checked as forwarded */
	bool proxied;
	const struct policy_net_target *host; /* the connection's host, canonical */
	uint16_t port;
	/* --allow-http rules; n_rules 0: every request passes the rule check */
	const struct policy_http_rule *rules;
	size_t n_rules;
	/* the secrets bound to this host (swapped) and every other one (a
	 * placeholder of those in a request is refused: secret-elsewhere) */
	const struct proxy_secret *bound;
	size_t n_bound;
	const struct proxy_secret *others;
	size_t n_others;
	/* PROXY_SECRET_OUT_MAX bytes where heads are rewritten before they are
	 * queued: shared by every relay on the loop (one thread, and a head is
	 * copied out before control returns) */
	uint8_t *scratch;
};

enum proxy_term_event_kind {
	PROXY_TERM_REQUEST,         /* a request went upstream (method, target, rule) */
	PROXY_TERM_REFUSED,         /* a request was answered by porta (why) */
	PROXY_TERM_SECRET_ELSEWHERE, /* another host's placeholder in a request (secret) */
	PROXY_TERM_CLIENT_TLS,      /* the client's handshake failed (why) */
	PROXY_TERM_UPSTREAM_TLS,    /* the upstream's certificate or handshake failed (why) */
};

struct proxy_term_event {
	enum proxy_term_event_kind kind;
	const uint8_t *method, *target; /* REQUEST, REFUSED, SECRET_ELSEWHERE (may be NULL) */
	size_t method_len, target_len;
	int status;                      /* REFUSED: the status porta answered */
	const char *why;                 /* REFUSED, *_TLS: one line */
	const char *suggestion;          /* REFUSED by the rules: a rule that would allow it, or NULL */
	size_t rule_index;               /* REQUEST with rules: the rule that allowed it */
	bool has_rule;
	size_t secret;                   /* SECRET_ELSEWHERE: index into others */
	size_t replaced;                 /* REQUEST: placeholders swapped in its head */
	enum policy_reason reason;       /* REFUSED: why, for the audit */
	const char *rule_text;           /* REQUEST with rules: the allowing rule as given */
};

typedef void (*proxy_term_event_fn)(const struct proxy_term_event *ev, void *arg);

/* Whether a connection to host:port is terminated: true with *out filled
 * (every pointer in it outliving the connection), false to splice it.  The
 * supervisor answers (supervisor/term.h); the proxy asks once a connection
 * is decided (netproxy/proxy.h, proxy_config.term_fn). */
typedef bool (*proxy_term_fn)(void *arg, const struct policy_net_target *host, uint16_t port,
			      struct proxy_term_params *out);

/* Starts terminating (its first turn runs from the loop: no callback is
 * called before this returns): client and upstream are connected, non-blocking
 * stream sockets, owned by the relay from now on (closed by it, also on
 * failure).  The client's first bytes (its ClientHello, or its request) are
 * still in its socket's queue.  event (may be NULL) reports each request
 * and refusal; done is called once, after both sockets are closed, and the
 * relay is freed when it returns.  idle_ms 0: no idle timeout.  NULL with
 * errno (both fds closed, no callback) when it cannot start. */
struct proxy_term *proxy_term_start(struct event_base *base, int client, int upstream,
				    const struct proxy_term_params *params, uint32_t idle_ms,
				    proxy_term_event_fn event, proxy_relay_done_fn done,
				    void *arg);

/* Ends it now (PROXY_RELAY_RESET), calling done.  NULL is a no-op. */
void proxy_term_abort(struct proxy_term *t);

#endif /* PORTA_NETPROXY_TERMINATE_H */
