/* policy/endpoint.h: one named host and one port, the destination of a
 * --secret or of an --allow-http rule (TLS termination).
 *
 * ARCHITECTURE: pure (docs/design.md, Modules): no syscalls, no globals, no
 * allocation, no logging.  The host grammar is --allow-net's
 * (policy/netrule.h): an endpoint is read by policy_net_rule_parse() and
 * then narrowed here to a single host and a single port, so there is one
 * host parser in porta, not two.  Called by policy/secret.c and
 * policy/httprule.c when they parse, and by the proxy (through them) when it
 * asks whether a connection's host is one they name.  Callable from any
 * thread: no state.
 *
 * Why a single host: a secret is sent, and a request rule is checked, on a
 * connection porta terminates with a certificate it mints per name, and the
 * run's CA is name-constrained to exactly those names.  "*.example",
 * "*" or a CIDR would send a credential to hosts nobody named, and ask the
 * CA to sign for names it must never cover.  A port range likewise names
 * more than one service.
 */
#ifndef PORTA_POLICY_ENDPOINT_H
#define PORTA_POLICY_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/addr.h"
#include "policy/names.h"
#include "policy/netrule.h"

/* A name (canonical, policy_name_canonical) or an address, and a port. */
struct policy_endpoint {
	bool is_addr;
	char name[POLICY_NAME_MAX + 1]; /* canonical when !is_addr, else "" */
	struct policy_addr addr;        /* when is_addr (IPv4-mapped stored as IPv4) */
	uint16_t port;                  /* 1..65535 */
};

/* Longest text policy_endpoint_format() writes, with its NUL:
 * "[" + 45 + "]:65535" or 253 + ":65535". */
#define POLICY_ENDPOINT_STRLEN (POLICY_NAME_MAX + 7)

enum policy_endpoint_status {
	POLICY_ENDPOINT_OK,
	POLICY_ENDPOINT_RULE,       /* the --allow-net grammar refused it: see *rule_status */
	POLICY_ENDPOINT_WILDCARD,   /* "*.example.com" or "*": not one host */
	POLICY_ENDPOINT_CIDR,       /* "10.0.0.0/8": not one host */
	POLICY_ENDPOINT_PORT_RANGE, /* "host:8000-8010": not one port */
};

/* Reads text[0..len), in --allow-net's grammar (HOST[:PORT] or
 * SCHEME://HOST[:PORT][/]; port 443 unless given or implied by the scheme),
 * into *out.  Refuses what is not exactly one host and one port.  On
 * POLICY_ENDPOINT_RULE, *rule_status holds policy_net_rule_parse()'s
 * refusal (policy_net_rule_reason() words it); otherwise it is
 * POLICY_NET_RULE_OK.  *out is unspecified on failure.  Pure; text may hold
 * any bytes. */
enum policy_endpoint_status policy_endpoint_parse(const char *text, size_t len,
						  struct policy_endpoint *out,
						  enum policy_net_rule_status *rule_status);

/* One short phrase for a refusal other than POLICY_ENDPOINT_RULE (for which
 * the caller words *rule_status).  Never NULL. */
const char *policy_endpoint_reason(enum policy_endpoint_status st);

/* True when a and b are the same host and port. */
bool policy_endpoint_equal(const struct policy_endpoint *a, const struct policy_endpoint *b);

/* True when the endpoint is host (a name as canonical, or an address; an
 * IPv4-mapped IPv6 address compares as its IPv4) at port.  A name never
 * matches an address, nor the reverse: porta compares what the program
 * named. */
bool policy_endpoint_matches(const struct policy_endpoint *ep, const struct policy_net_target *host,
			     uint16_t port);

/* Writes the host as a URL or a rule spells it: the name, an IPv4 address,
 * or "[IPv6]"; then ":PORT" unless port == omit_port (0: always).  Returns
 * out. */
char *policy_endpoint_format(const struct policy_endpoint *ep, uint16_t omit_port,
			     char out[POLICY_ENDPOINT_STRLEN]);

/* Copies text[0..len) into out[0..cap) for a message that quotes the user's
 * words between single quotes: at most max_in input bytes, bytes outside
 * 0x20..0x7e and the quote and backslash as "\xHH", "..." when cut.  cap
 * must be at least max_in * 4 + 4.  Returns out. */
char *policy_quote(const char *text, size_t len, size_t max_in, char *out, size_t cap);

/* Formats a refusal's message into err[0..cap) (nothing when cap is 0),
 * for the parsers of --secret and --allow-http: they answer with
 * POLICY_SAY(status, err, cap, fmt, ...), the status after the message. */
void policy_say(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define POLICY_SAY(st, err, cap, ...) (policy_say((err), (cap), __VA_ARGS__), (st))

#endif /* PORTA_POLICY_ENDPOINT_H */
