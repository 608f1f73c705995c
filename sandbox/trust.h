/* sandbox/trust.h: the system trust store inside the sandbox, with porta's
 * run CA added, for TLS termination (docs/design.md, "TLS termination and secrets").
 *
 * ARCHITECTURE: a program inside reaches a terminated host through porta,
 * which presents a certificate its run CA signed; the program must trust
 * that CA without being configured.  Most TLS stacks on Linux read one PEM
 * bundle at a well-known path (OpenSSL's default file, GnuTLS, Go, rustls's
 * native roots, curl, git), so init puts, over each bundle path the host
 * has, a file holding that bundle's bytes followed by the CA's PEM.  The
 * mount namespace is private, so the host's file is untouched and nothing
 * else sees the change.  The files live on a tmpfs made with fsopen(2) and
 * never attached anywhere but over the bundles (no directory of the
 * sandbox holds them), made read-only before the first bind, so the
 * command can neither write them nor find a writable copy.
 *
 * Paths: every known distribution's bundle that exists here as a regular
 * file, resolved through symlinks (Fedora's ca-bundle.crt is a link into
 * /etc/pki/ca-trust) and each file covered once.  Programs that read only
 * a hashed directory (OpenSSL's CApath, /etc/ssl/certs/<hash>.0) and
 * programs with a store of their own (Node's built-in roots, Java's
 * cacerts, Firefox) do not see the CA this way: for those the payload's
 * environment names the bundle (sandbox_trust_env()).  A bundle the user's
 * own variables already name (SSL_CERT_FILE=~/corp.pem) is kept, and
 * covered the same way, so a program reading it trusts porta too.
 */
#ifndef PORTA_SANDBOX_TRUST_H
#define PORTA_SANDBOX_TRUST_H

#include <stddef.h>

#include "common/error.h"

/* The bundle paths porta covers, in order of preference for the
 * environment variables; NULL-terminated. */
extern const char *const sandbox_trust_bundles[];

/* In init, after the plan's mounts: covers every bundle of
 * sandbox_trust_bundles that exists, and every file the command's own
 * environment envp (may be NULL) names in one of sandbox_trust_env_names,
 * with its bytes plus pem[0..pem_len).  *primary is set to the first
 * system bundle covered (for the environment); no system bundle at all is
 * an error that says so.  0 or -errno (e filled). */
int sandbox_trust_install(const char *pem, size_t pem_len, char *const envp[],
			  const char **primary, struct porta_error *e);

/* The variables programs with their own stores read for extra or
 * replacement roots, set to `bundle`: SSL_CERT_FILE, NODE_EXTRA_CA_CERTS,
 * REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, PIP_CERT, GIT_SSL_CAINFO,
 * CARGO_HTTP_CAINFO, AWS_CA_BUNDLE, DENO_CERT.  NULL-terminated. */
extern const char *const sandbox_trust_env_names[];

/* A new environment: envp with each of sandbox_trust_env_names set to
 * bundle, except those envp already sets (a user's own bundle is kept,
 * and covered: init binds porta's copy over it, sandbox/trust.c).  The array is
 * from calloc(3), its new strings from strdup(3); the old strings are
 * shared.  NULL on ENOMEM. */
char **sandbox_trust_env(char *const envp[], const char *bundle);

/* True when envp sets `name` (to anything). */
int sandbox_trust_env_kept(char *const envp[], const char *name);

#endif /* PORTA_SANDBOX_TRUST_H */
