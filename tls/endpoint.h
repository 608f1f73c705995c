/* tls/endpoint.h: TLS sessions over porta's non-blocking sockets, with
 * mbedtls, for the hosts porta terminates.
 *
 * ARCHITECTURE: for a terminated connection the proxy holds two sessions:
 * a server session facing the sandboxed client, presenting a leaf minted
 * by the run's CA for the name the client sent (SNI), and a client session
 * to the real upstream server, which porta verifies.  Plain bytes pass
 * between them through the relay.  libevent 2.1 (Debian 12) has no mbedtls
 * bufferevent, so this unit drives mbedtls itself: send(2)/recv(2) on the
 * caller's fd, and every call answers at once with done, want read, want
 * write, end or failed.  Called from the supervisor's event loop only
 * (netproxy/); it creates no events and never blocks.
 *
 * Two configurations per run, each created once and shared by its sessions:
 *   - server (tls_server_conf): TLS 1.2 only, the ECDHE AEAD suites below,
 *     ALPN offering http/1.1 alone, and an SNI callback that asks the
 *     caller's tls_cert_lookup_fn (the CA's per-name cache) for the chain
 *     and key; no server_name, or a name the lookup refuses, ends the
 *     handshake with a fatal alert (unrecognized_name when the name is
 *     refused, handshake_failure without SNI).
 *   - client (tls_client_conf): TLS 1.2 only, the same suites, ALPN
 *     http/1.1, verification always required against the trust bundle
 *     parsed once: the file named by SSL_CERT_FILE in porta's own
 *     environment when set and not empty, else Debian's system bundle
 *     /etc/ssl/certs/ca-certificates.crt (update-ca-certificates builds it
 *     from /usr/share/ca-certificates and /usr/local/share/ca-certificates,
 *     everything the hashed /etc/ssl/certs directory holds).  There is no
 *     way to turn verification off.  The host's name is checked against the
 *     leaf (mbedtls_ssl_set_hostname: SNI and the name check).
 *
 * Choices and what mbedtls 2.28.3 (Debian 12) does:
 *   - TLS 1.3: Debian's build does not define MBEDTLS_SSL_PROTO_TLS1_3, so
 *     both sides speak TLS 1.2 only (min = max = 1.2).  A client offering
 *     only 1.1 gets protocol_version; one offering only 1.3 gets
 *     handshake_failure (its hello says 1.2 in legacy_version and carries
 *     only 1.3 suites, and mbedtls 2.28 does not read supported_versions),
 *     and the reason says porta offers TLS 1.2.
 *   - Suites: ECDHE_{ECDSA,RSA}_WITH_CHACHA20_POLY1305_SHA256, then
 *     AES_128_GCM_SHA256, then AES_256_GCM_SHA384 (ChaCha20 first: with
 *     Debian's mbedtls it costs the relay less CPU than AES-GCM, measured
 *     in docs/benchmarks/tls-endpoint.md): forward secrecy and AEAD records only
 *     (no CBC: Lucky13-class padding oracles; no static RSA key exchange:
 *     no forward secrecy), as Mozilla's "intermediate" profile for TLS 1.2.
 *     Curves x25519, P-256, P-384.  The run's CA signs P-256 leaves; RSA
 *     suites remain for upstream servers with RSA keys.
 *   - ALPN: when the client offers protocols but not http/1.1 (h2 alone),
 *     mbedtls 2.28's server sends the fatal alert no_application_protocol
 *     and fails the handshake (ssl_parse_alpn_ext(), as RFC 7301 §3.2
 *     requires), instead of answering without ALPN as OpenSSL servers that
 *     decline do; a client offering h2 and http/1.1 gets http/1.1; a client
 *     offering none gets none.
 *   - IP literals: mbedtls 2.28's name check compares the host string with
 *     each subjectAltName's raw bytes, so an iPAddress SAN (4 or 16 bytes)
 *     never matches "192.0.2.1"; tls_session_client() refuses an IP-literal
 *     host (-EINVAL, with a reason), so porta does not terminate hosts
 *     given by address.
 *   - Memory: Debian's build fixes each session's input and output record
 *     buffers at 16 KiB + overhead (MBEDTLS_SSL_IN/OUT_CONTENT_LEN default,
 *     no MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH), so an idle session holds about
 *     34 KiB of buffers plus its state, whatever max_fragment_length is
 *     negotiated; docs/benchmarks/tls-endpoint.md has the measured pair.
 *     MBEDTLS_PLATFORM_MEMORY is off: no counting allocator can be set.
 *   - Randomness: each configuration owns a CTR_DRBG seeded from
 *     getrandom(2) when it is created (and reseeded from it as CTR_DRBG
 *     requires, every 10000 requests).
 *   - Resumption (TLS 1.2 abbreviated handshakes: no key exchange, no
 *     signature, no chain to verify; what keeps a repeated connection
 *     cheap, docs/benchmarks/tls-relay.md):
 *       towards the client, session tickets (RFC 5077): the server
 *       configuration seals each session's state with AES-256-GCM under a
 *       key drawn at start-up, held in memory only and rotated every
 *       TLS_TICKET_LIFETIME seconds (mbedtls_ssl_ticket_setup); nothing
 *       is kept per session.  A resuming client still sends its SNI, which
 *       is looked up as in a full handshake and is the name the relay
 *       holds the connection to; only the certificate is not sent again.
 *       There is no session-ID cache: clients that resume use tickets.
 *       upstream, a cache of the last session completed with each
 *       HOST:PORT (TLS_UPSTREAM_CACHE_SLOTS of them, the least recently
 *       used replaced), offered on the next connection to the same
 *       HOST:PORT, by ticket or session ID, whichever the server gave.  A
 *       resumed session carries the verification of the full handshake it
 *       came from: the server proves it holds that session's master
 *       secret, which only the server porta verified for that name and
 *       port holds (or servers sharing its session keys, as a cluster
 *       behind one name does).  A session is never offered to another name; one
 *       whose handshake fails is dropped; the server may always refuse
 *       and run a full handshake, verified as ever.
 *
 * The contract for a libevent caller (one session, one fd):
 *   1. The fd is non-blocking and stays the caller's: the session reads and
 *      writes it but never closes it; destroy the session, then close the fd.
 *   2. Handshake: call tls_session_handshake() until TLS_OK.  On
 *      TLS_WANT_READ wait for EV_READ, on TLS_WANT_WRITE for EV_WRITE, then
 *      call it again.  On TLS_FAILED, tls_session_reason() says why.
 *   3. Reading: tls_session_read() gives TLS_OK with *got > 0, or
 *      TLS_WANT_READ (wait for EV_READ), TLS_WANT_WRITE (wait for EV_WRITE,
 *      then read again), TLS_CLOSED (the peer's close_notify), TLS_EOF (the
 *      connection ended without close_notify: a truncation the caller must
 *      not take for a complete message unless its framing says so) or
 *      TLS_FAILED.  mbedtls reads whole records from the fd: after a TLS_OK,
 *      while tls_session_has_buffered() is true, decrypted or undecrypted
 *      bytes are already in the session and EV_READ may never fire for
 *      them: read again without waiting (or activate the read event by
 *      hand) when the caller has room.
 *   4. Writing: tls_session_write() sends at most one record (16 KiB) per
 *      call: TLS_OK with *sent (0 < *sent <= len) bytes taken; call again
 *      with the rest.  On TLS_WANT_WRITE (or TLS_WANT_READ) nothing is
 *      taken yet, but mbedtls may already hold those bytes encrypted:
 *      the next call MUST pass the same bytes again (same data, same length
 *      at least), after EV_WRITE (or EV_READ).  Do not drop or change them.
 *   5. Closing: tls_session_close() sends close_notify (TLS_WANT_WRITE: call
 *      it again on EV_WRITE; TLS_OK: sent, or nothing more can be sent).
 *      Then destroy.  A session is never reused for another connection.
 * Every call returns without blocking; none may be made from another thread.
 */
#ifndef PORTA_TLS_ENDPOINT_H
#define PORTA_TLS_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include <mbedtls/pk.h>
#include <mbedtls/x509_crt.h>

#include "common/error.h"

/* The system trust bundle porta verifies upstream servers against when
 * SSL_CERT_FILE is unset or empty in its own environment. */
#define TLS_SYSTEM_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* Resumption (above): how long a ticket porta issues opens, in seconds;
 * how many upstream HOST:PORTs keep a session; the longest HOST:PORT key
 * (a 253-byte name, ':', five digits, NUL). */
#define TLS_TICKET_LIFETIME 3600
#define TLS_UPSTREAM_CACHE_SLOTS 64
#define TLS_SESSION_KEY_MAX 264

/* The answer of every session call. */
enum tls_status {
	TLS_OK,         /* done (handshake complete, bytes read or written, close sent) */
	TLS_WANT_READ,  /* call again once the fd is readable */
	TLS_WANT_WRITE, /* call again once the fd is writable */
	TLS_CLOSED,     /* read: the peer sent close_notify */
	TLS_EOF,        /* read: the connection ended without close_notify */
	TLS_FAILED,     /* the session is dead: tls_session_reason() says why */
};

/* The certificate chain (leaf first, mbedtls' linked list) and private key
 * a server session presents for a name.  Borrowed: the lookup's owner (the
 * run's CA cache) keeps both alive, unchanged, until every session that got
 * them is destroyed. */
struct tls_cert_pick {
	mbedtls_x509_crt *chain;
	mbedtls_pk_context *key;
};

/* Called during a server session's handshake, on the loop, with the
 * server_name the client sent: name[0..len) as sent (1..255 bytes, no NUL,
 * not canonicalised; NUL-terminated for convenience).  Returns 0 and fills
 * *pick, or -1 when porta has no certificate for the name (the handshake
 * then fails with unrecognized_name).  Must not call back into the session. */
typedef int (*tls_cert_lookup_fn)(void *arg, const char *name, size_t len,
				  struct tls_cert_pick *pick);

struct tls_server_conf;
struct tls_client_conf;
struct tls_session;

/* Creates the run's server configuration; lookup(arg, ...) answers every
 * session's SNI (arg is borrowed and must outlive the configuration).
 * Returns 0 and *out (caller-owned: tls_server_conf_destroy()), or -errno
 * with e filled (getrandom(2) failed, or mbedtls refused the settings). */
int tls_server_conf_create(tls_cert_lookup_fn lookup, void *arg, struct tls_server_conf **out,
			   struct porta_error *e);
/* Frees conf; every session made from it must be destroyed first.
 * NULL does nothing. */
void tls_server_conf_destroy(struct tls_server_conf *conf);

/* Creates the run's client configuration, trusting the certificates of the
 * PEM bundle ssl_cert_file (the value of SSL_CERT_FILE in porta's
 * environment; NULL or "" means TLS_SYSTEM_BUNDLE), parsed now, once.
 * Returns 0 and *out (caller-owned: tls_client_conf_destroy()), or -errno
 * with e filled: the bundle cannot be read, or holds no certificate mbedtls
 * can parse (certificates it cannot parse are skipped while one parses:
 * tls_client_conf_skipped()). */
int tls_client_conf_create(const char *ssl_cert_file, struct tls_client_conf **out,
			   struct porta_error *e);
/* Frees conf; every session made from it must be destroyed first.
 * NULL does nothing. */
void tls_client_conf_destroy(struct tls_client_conf *conf);
/* The bundle conf trusts (a path, owned by conf), and how many of its
 * certificates mbedtls could not parse and skipped. */
const char *tls_client_conf_bundle(const struct tls_client_conf *conf);
int tls_client_conf_skipped(const struct tls_client_conf *conf);

/* A server session on fd (connected, non-blocking, still the caller's),
 * facing a client that will send a ClientHello.  Returns 0 and *out
 * (caller-owned: tls_session_destroy()), or -ENOMEM.  conf must outlive it. */
int tls_session_server(struct tls_server_conf *conf, int fd, struct tls_session **out);

/* A client session on fd to the upstream server named host (a DNS name,
 * sent as SNI and checked against the server's certificate).  Returns 0
 * and *out (caller-owned), -EINVAL when host is empty, too long or an IP
 * literal (see above; *reason, if not NULL, gets static words saying so),
 * or -ENOMEM.  conf must outlive the session. */
int tls_session_client(struct tls_client_conf *conf, int fd, const char *host,
		       struct tls_session **out, const char **reason);

/* Frees s, without sending anything; the fd stays open.  NULL does nothing. */
void tls_session_destroy(struct tls_session *s);

/* Advances the handshake: TLS_OK (complete), TLS_WANT_READ/WRITE or
 * TLS_FAILED.  After TLS_OK, calling it again answers TLS_OK. */
enum tls_status tls_session_handshake(struct tls_session *s);

/* Reads decrypted bytes into buf[0..cap) (cap > 0): TLS_OK with *got > 0,
 * or another status with *got = 0 (see the contract above). */
enum tls_status tls_session_read(struct tls_session *s, void *buf, size_t cap, size_t *got);

/* Encrypts and sends from buf[0..len) (len > 0): TLS_OK with *sent > 0, or
 * another status with *sent = 0; after TLS_WANT_*, retry with the same
 * bytes (see the contract above). */
enum tls_status tls_session_write(struct tls_session *s, const void *buf, size_t len,
				  size_t *sent);

/* Sends close_notify: TLS_OK once sent (or when the session cannot send
 * any more), TLS_WANT_WRITE to be called again. */
enum tls_status tls_session_close(struct tls_session *s);

/* True when the session holds bytes already taken from the fd (decrypted
 * and unread, or records not yet decrypted): read again without waiting. */
bool tls_session_has_buffered(const struct tls_session *s);

/* The server_name the client sent (server session), or the host (client
 * session); "" when the client sent none.  Owned by s. */
const char *tls_session_sni(const struct tls_session *s);

/* The application protocol ALPN chose ("http/1.1"), or NULL when none was
 * negotiated (or before the handshake is complete).  Static storage. */
const char *tls_session_alpn(const struct tls_session *s);

/* The cipher suite negotiated, IANA-style name as mbedtls spells it
 * ("TLS-ECDHE-ECDSA-WITH-CHACHA20-POLY1305-SHA256"), or NULL before the
 * handshake is complete.  Static storage. */
const char *tls_session_cipher(const struct tls_session *s);

/* Whether the completed handshake resumed an earlier session (a ticket
 * porta issued, for a server session; a cached upstream session, for a
 * client session); false before the handshake is complete. */
bool tls_session_resumed(const struct tls_session *s);

/* Why the session failed, in words (tls/verify.h), after TLS_FAILED; ""
 * before.  Owned by s, valid until it is destroyed. */
const char *tls_session_reason(const struct tls_session *s);

#endif /* PORTA_TLS_ENDPOINT_H */
