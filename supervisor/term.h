/* supervisor/term.h: the run's TLS termination, as the supervisor owns it
 * (docs/design.md, "TLS termination and secrets").
 *
 * ARCHITECTURE: from the options (--secret, --allow-http) and porta's own
 * environment, before anything is cloned: each secret's real value is
 * found (policy/secret.h) and given a placeholder made from getrandom(2)
 * (policy/placeholder.h), drawn again until no placeholder overlaps any
 * value or other placeholder (wire/http_secret.h's table check); the
 * terminated endpoints are listed (every secret's hosts, every HOST:PORT an
 * --allow-http rule names); when one of them is HTTPS the run's CA is made
 * for exactly their names (tls/ca.h) with the two mbedtls configurations
 * (tls/endpoint.h: upstream verified against SSL_CERT_FILE in porta's own
 * environment, or the system bundle).  What the others need of it:
 *   - the command's environment: each NAME set to its placeholder, never
 *     to the value (supervisor_term_env);
 *   - init: the CA's PEM for the trust bundles (sandbox/trust.h);
 *   - the proxy: for a connection's host and port, whether it is
 *     terminated and with what (supervisor_term_params).
 * One owner: create and destroy; one thread.
 *
 * Refused (125, the message naming the option): a secret whose variable is
 * unset or empty; a secret for port 80 (a real value is sent over TLS
 * only); a host given by address (mbedtls 2.28 cannot match an iPAddress
 * name, so porta cannot verify such an upstream).
 */
#ifndef PORTA_SUPERVISOR_TERM_H
#define PORTA_SUPERVISOR_TERM_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "netproxy/terminate.h"
#include "policy/netrule.h"
#include "policy/options.h"

struct supervisor_term;

/* Makes the run's termination from o and envp (porta's environment).  0
 * with *out NULL when no option asks for termination; 0 with *out set; or
 * -errno with e filled (exit 125). */
int supervisor_term_create(const struct policy_options *o, char *const envp[],
			   struct supervisor_term **out, struct porta_error *e);

/* Frees t and everything it made.  NULL does nothing. */
void supervisor_term_destroy(struct supervisor_term *t);

/* The run CA's certificate (PEM), or NULL when no endpoint is HTTPS. */
const char *supervisor_term_ca_pem(const struct supervisor_term *t);

/* A new environment: envp with every secret's NAME set to its placeholder
 * (replacing the real value, or added).  The array is from calloc(3), its
 * new strings from malloc(3); old strings are shared.  NULL on ENOMEM. */
char **supervisor_term_env(const struct supervisor_term *t, char *const envp[]);

/* Frees an environment supervisor_term_env() made (its own strings only). */
void supervisor_term_env_free(const struct supervisor_term *t, char **env);

/* Fills *out for a connection to host:port when that endpoint is
 * terminated (true), else false: the connection is spliced as before.
 * out->server and out->client are NULL for a plain http:// endpoint, whose
 * requests are read in the clear.  scratch is set to t's own buffer. */
bool supervisor_term_params(struct supervisor_term *t, const struct policy_net_target *host,
			    uint16_t port, struct proxy_term_params *out);

/* Every secret's (placeholder, value), n of them: the tripwire's table. */
const struct proxy_secret *supervisor_term_secrets(const struct supervisor_term *t, size_t *n);

/* How many secrets and endpoints t holds, and a secret's NAME (tests,
 * explain). */
size_t supervisor_term_n_secrets(const struct supervisor_term *t);
const char *supervisor_term_placeholder(const struct supervisor_term *t, size_t i);

#endif /* PORTA_SUPERVISOR_TERM_H */
