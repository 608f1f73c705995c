/* tls/endpoint.c: see endpoint.h.  The glue between mbedtls and a
 * non-blocking socket: two run-wide configurations and the sessions made
 * from them. */
#include "tls/endpoint.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_ticket.h>

#include "tls/verify.h"

/* TLS 1.2 suites both sides offer, in order of preference (endpoint.h says
 * why these): AEAD records, ECDHE key exchange.  ChaCha20-Poly1305 first:
 * Debian's mbedtls 2.28 computes it about 1.7 times as fast as AES-128-GCM
 * on an AES-NI machine (its GHASH is table-driven), and porta's server side
 * chooses by its own order, so the relay moves 1.5 times the bytes per CPU
 * second (docs/benchmarks/tls-endpoint.md). */
static const int SUITES[] = {
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	0,
};

static const mbedtls_ecp_group_id CURVES[] = {
	MBEDTLS_ECP_DP_CURVE25519,
	MBEDTLS_ECP_DP_SECP256R1,
	MBEDTLS_ECP_DP_SECP384R1,
	MBEDTLS_ECP_DP_NONE,
};

/* What porta accepts in an upstream chain: SHA-2 signatures, RSA of 2048
 * bits or more, ECDSA on the NIST curves (the CA/Browser Forum baseline
 * requirements, 6.1.5 and 7.1.3).  mbedtls' default profile is close; this
 * one is written out so that a library update cannot loosen it. */
static const mbedtls_x509_crt_profile UPSTREAM_PROFILE = {
	.allowed_mds = MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA256) |
		       MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA384) |
		       MBEDTLS_X509_ID_FLAG(MBEDTLS_MD_SHA512),
	.allowed_pks = 0xFFFFFFF, /* any key type; the curves and RSA size bound it */
	.allowed_curves = MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP256R1) |
			  MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP384R1) |
			  MBEDTLS_X509_ID_FLAG(MBEDTLS_ECP_DP_SECP521R1),
	.rsa_min_bitlen = 2048,
};

struct tls_server_conf {
	mbedtls_ssl_config ssl;
	mbedtls_ctr_drbg_context drbg;
	const char *alpn[2]; /* mbedtls keeps the pointer: it lives here */
	tls_cert_lookup_fn lookup;
	void *arg;
	/* Session tickets (RFC 5077) for clients that resume: sealed with
	 * AES-256-GCM under a key drawn from drbg, in memory only, rotated by
	 * mbedtls every TLS_TICKET_LIFETIME seconds. */
	mbedtls_ssl_ticket_context ticket;
	bool ticket_opened; /* set by on_ticket_parse() inside one handshake call */
};

/* One upstream session kept for resumption: the last one porta completed
 * with HOST:PORT (endpoint.h, "Resumption"). */
struct upstream_slot {
	char key[TLS_SESSION_KEY_MAX];
	mbedtls_ssl_session session;
	uint64_t used; /* the client conf's clock at the last store or take */
};

struct tls_client_conf {
	mbedtls_ssl_config ssl;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_x509_crt trust;
	const char *alpn[2];
	char bundle[4096];
	int skipped;
	struct upstream_slot cache[TLS_UPSTREAM_CACHE_SLOTS];
	uint64_t clock;
};

struct tls_session {
	mbedtls_ssl_context ssl; /* first: the SNI callback gets &s->ssl */
	int fd;                  /* borrowed */
	int sock_errno;          /* of the last send/recv that failed */
	bool handshake_done;
	bool failed;
	bool resumed;            /* the handshake resumed an earlier session */
	bool cert_seen;          /* client: the server sent a chain to verify */
	struct tls_server_conf *sconf; /* the one of these that made it */
	struct tls_client_conf *cconf;
	char cache_key[TLS_SESSION_KEY_MAX]; /* client: HOST:PORT */
	struct tls_failure failure; /* host: the SNI or the upstream name */
	char reason[TLS_REASON_MAX];
};

/* CTR_DRBG's entropy source: getrandom(2), which blocks only until the
 * kernel's pool is initialised once after boot (random(7)). */
static int entropy_getrandom(void *arg, unsigned char *out, size_t len)
{
	(void)arg;
	size_t done = 0;
	while (done < len) {
		ssize_t n = getrandom(out + done, len - done, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return MBEDTLS_ERR_ENTROPY_SOURCE_FAILED;
		}
		done += (size_t)n;
	}
	return 0;
}

static int drbg_seed(mbedtls_ctr_drbg_context *drbg, const char *who, struct porta_error *e)
{
	int ret = mbedtls_ctr_drbg_seed(drbg, entropy_getrandom, NULL,
					(const unsigned char *)who, strlen(who));
	if (ret != 0)
		return porta_fail(e, "seed the TLS random generator", "", EIO,
				  "getrandom(2) failed (mbedtls -0x%04x)", (unsigned)-ret);
	return 0;
}

/* The settings both sides share: TLS 1.2 alone (Debian's mbedtls has no
 * TLS 1.3), the suites and curves above, ALPN http/1.1. */
static int conf_common(mbedtls_ssl_config *c, int endpoint, mbedtls_ctr_drbg_context *drbg,
		       const char **alpn, struct porta_error *e)
{
	int ret = mbedtls_ssl_config_defaults(c, endpoint, MBEDTLS_SSL_TRANSPORT_STREAM,
					      MBEDTLS_SSL_PRESET_DEFAULT);
	if (ret == 0) {
		mbedtls_ssl_conf_rng(c, mbedtls_ctr_drbg_random, drbg);
		mbedtls_ssl_conf_min_version(c, MBEDTLS_SSL_MAJOR_VERSION_3,
					     MBEDTLS_SSL_MINOR_VERSION_3);
		mbedtls_ssl_conf_max_version(c, MBEDTLS_SSL_MAJOR_VERSION_3,
					     MBEDTLS_SSL_MINOR_VERSION_3);
		mbedtls_ssl_conf_ciphersuites(c, SUITES);
		mbedtls_ssl_conf_curves(c, CURVES);
		/* Renegotiation stays off (mbedtls' default): a peer could
		 * otherwise restart the handshake in the middle of a relay. */
		mbedtls_ssl_conf_renegotiation(c, MBEDTLS_SSL_RENEGOTIATION_DISABLED);
		alpn[0] = "http/1.1";
		alpn[1] = NULL;
		ret = mbedtls_ssl_conf_alpn_protocols(c, alpn);
	}
	if (ret != 0)
		return porta_fail(e, "configure TLS", "", EINVAL, "mbedtls -0x%04x",
				  (unsigned)-ret);
	return 0;
}

static struct tls_session *session_of(mbedtls_ssl_context *ssl)
{
	return (struct tls_session *)(void *)((char *)ssl - offsetof(struct tls_session, ssl));
}

/* mbedtls' SNI callback (ssl_parse_servername_ext() calls it while it reads
 * the ClientHello): a non-zero answer makes mbedtls send unrecognized_name
 * and fail the handshake (RFC 6066 §3). */
static int on_sni(void *arg, mbedtls_ssl_context *ssl, const unsigned char *name, size_t len)
{
	const struct tls_server_conf *conf = arg;
	struct tls_session *s = session_of(ssl);
	struct tls_cert_pick pick = {0};

	if (len == 0 || len >= sizeof(s->failure.host) || memchr(name, '\0', len)) {
		s->failure.unknown_name = true;
		return -1;
	}
	memcpy(s->failure.host, name, len);
	s->failure.host[len] = '\0';
	s->failure.no_sni = false;
	if (conf->lookup(conf->arg, s->failure.host, len, &pick) != 0 || pick.chain == NULL ||
	    pick.key == NULL) {
		s->failure.unknown_name = true;
		return -1;
	}
	return mbedtls_ssl_set_hs_own_cert(ssl, pick.chain, pick.key);
}

/* Called by mbedtls for each certificate of the upstream chain, the leaf
 * last (depth 0; x509_crt_verify_chain()).  Only here is the leaf readable
 * when verification fails (mbedtls_ssl_get_peer_cert() answers only after
 * a complete handshake), so its names are written down now, for the
 * reason. */
static int on_verify(void *arg, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
	struct tls_session *s = arg;
	s->cert_seen = true; /* a full handshake: a resumed one sends no chain */
	if (depth == 0 && (*flags & MBEDTLS_X509_BADCERT_CN_MISMATCH))
		tls_leaf_names(crt, s->failure.names, sizeof(s->failure.names));
	return 0; /* the flags decide, not this callback */
}

/* The ticket callbacks mbedtls calls with the configuration's p_ticket: the
 * server conf, whose ticket context does the work.  A ticket that opens
 * is noted, so that the session whose handshake call this is can tell it
 * resumed (mbedtls 2.28 has no public way to ask). */
static int on_ticket_write(void *arg, const mbedtls_ssl_session *session, unsigned char *start,
			   const unsigned char *end, size_t *tlen, uint32_t *lifetime)
{
	struct tls_server_conf *c = arg;
	return mbedtls_ssl_ticket_write(&c->ticket, session, start, end, tlen, lifetime);
}

static int on_ticket_parse(void *arg, mbedtls_ssl_session *session, unsigned char *buf,
			   size_t len)
{
	struct tls_server_conf *c = arg;
	int ret = mbedtls_ssl_ticket_parse(&c->ticket, session, buf, len);
	if (ret == 0)
		c->ticket_opened = true;
	return ret;
}

int tls_server_conf_create(tls_cert_lookup_fn lookup, void *arg, struct tls_server_conf **out,
			   struct porta_error *e)
{
	struct tls_server_conf *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return porta_fail(e, "create the TLS server configuration", "", ENOMEM, "%s", "");
	mbedtls_ssl_config_init(&c->ssl);
	mbedtls_ctr_drbg_init(&c->drbg);
	mbedtls_ssl_ticket_init(&c->ticket);
	c->lookup = lookup;
	c->arg = arg;
	int ret = drbg_seed(&c->drbg, "porta tls server", e);
	if (ret == 0)
		ret = conf_common(&c->ssl, MBEDTLS_SSL_IS_SERVER, &c->drbg, c->alpn, e);
	if (ret == 0) {
		int t = mbedtls_ssl_ticket_setup(&c->ticket, mbedtls_ctr_drbg_random, &c->drbg,
						 MBEDTLS_CIPHER_AES_256_GCM, TLS_TICKET_LIFETIME);
		if (t != 0)
			ret = porta_fail(e, "set up TLS session tickets", "", EIO,
					 "mbedtls -0x%04x", (unsigned)-t);
	}
	if (ret != 0) {
		tls_server_conf_destroy(c);
		return ret;
	}
	/* The client presents no certificate; its server_name chooses ours. */
	mbedtls_ssl_conf_authmode(&c->ssl, MBEDTLS_SSL_VERIFY_NONE);
	mbedtls_ssl_conf_sni(&c->ssl, on_sni, c);
	mbedtls_ssl_conf_session_tickets_cb(&c->ssl, on_ticket_write, on_ticket_parse, c);
	*out = c;
	return 0;
}

void tls_server_conf_destroy(struct tls_server_conf *c)
{
	if (c == NULL)
		return;
	mbedtls_ssl_config_free(&c->ssl);
	mbedtls_ssl_ticket_free(&c->ticket);
	mbedtls_ctr_drbg_free(&c->drbg);
	free(c);
}

int tls_client_conf_create(const char *ssl_cert_file, struct tls_client_conf **out,
			   struct porta_error *e)
{
	const char *path = ssl_cert_file && *ssl_cert_file ? ssl_cert_file : TLS_SYSTEM_BUNDLE;
	struct tls_client_conf *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return porta_fail(e, "create the TLS client configuration", "", ENOMEM, "%s", "");
	mbedtls_ssl_config_init(&c->ssl);
	mbedtls_ctr_drbg_init(&c->drbg);
	mbedtls_x509_crt_init(&c->trust);
	for (size_t i = 0; i < TLS_UPSTREAM_CACHE_SLOTS; i++)
		mbedtls_ssl_session_init(&c->cache[i].session);
	snprintf(c->bundle, sizeof(c->bundle), "%s", path);

	int ret = 0;
	/* Returns the number of certificates it could not parse when at least
	 * one parsed (x509_crt.h); a negative error when none did or the file
	 * cannot be read. */
	int parsed = mbedtls_x509_crt_parse_file(&c->trust, path);
	if (parsed < 0 || c->trust.version == 0) {
		ret = porta_fail(e, "read the TLS trust bundle", path,
				 parsed == MBEDTLS_ERR_PK_FILE_IO_ERROR ? ENOENT : EINVAL,
				 "%s", parsed == MBEDTLS_ERR_PK_FILE_IO_ERROR
					       ? "cannot read it (SSL_CERT_FILE, or the system bundle)"
					       : "no certificate in it could be parsed");
	} else {
		c->skipped = parsed;
		ret = drbg_seed(&c->drbg, "porta tls client", e);
	}
	if (ret == 0)
		ret = conf_common(&c->ssl, MBEDTLS_SSL_IS_CLIENT, &c->drbg, c->alpn, e);
	if (ret != 0) {
		tls_client_conf_destroy(c);
		return ret;
	}
	/* Verification is required, always: no option relaxes it. */
	mbedtls_ssl_conf_authmode(&c->ssl, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_ca_chain(&c->ssl, &c->trust, NULL);
	mbedtls_ssl_conf_cert_profile(&c->ssl, &UPSTREAM_PROFILE);
	/* Session tickets stay offered (mbedtls' default for a client): a
	 * server that issues one lets the next connection resume. */
	*out = c;
	return 0;
}

void tls_client_conf_destroy(struct tls_client_conf *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < TLS_UPSTREAM_CACHE_SLOTS; i++)
		mbedtls_ssl_session_free(&c->cache[i].session);
	mbedtls_ssl_config_free(&c->ssl);
	mbedtls_x509_crt_free(&c->trust);
	mbedtls_ctr_drbg_free(&c->drbg);
	free(c);
}

const char *tls_client_conf_bundle(const struct tls_client_conf *c)
{
	return c->bundle;
}

int tls_client_conf_skipped(const struct tls_client_conf *c)
{
	return c->skipped;
}

/* ---- the upstream session cache (endpoint.h, "Resumption") ---- */

static struct upstream_slot *slot_find(struct tls_client_conf *c, const char *key)
{
	for (size_t i = 0; i < TLS_UPSTREAM_CACHE_SLOTS; i++)
		if (c->cache[i].key[0] != '\0' && strcmp(c->cache[i].key, key) == 0)
			return &c->cache[i];
	return NULL;
}

static void slot_clear(struct upstream_slot *slot)
{
	mbedtls_ssl_session_free(&slot->session); /* frees, then zeroes */
	mbedtls_ssl_session_init(&slot->session);
	slot->key[0] = '\0';
	slot->used = 0;
}

/* Keeps the session s just completed as its key's slot: the key's own
 * slot, else the one used longest ago (an empty slot's use is 0). */
static void slot_store(struct tls_client_conf *c, struct tls_session *s)
{
	struct upstream_slot *slot = slot_find(c, s->cache_key);
	if (slot == NULL) {
		slot = &c->cache[0];
		for (size_t i = 1; i < TLS_UPSTREAM_CACHE_SLOTS; i++)
			if (c->cache[i].used < slot->used)
				slot = &c->cache[i];
	}
	slot_clear(slot);
	if (mbedtls_ssl_get_session(&s->ssl, &slot->session) != 0) {
		slot_clear(slot); /* out of memory: nothing kept, nothing lost */
		return;
	}
	snprintf(slot->key, sizeof(slot->key), "%s", s->cache_key);
	slot->used = ++c->clock;
}

/* HOST:PORT, the port the fd is connected to (0 when it has none: a
 * socketpair in the tests). */
static void cache_key(char *out, size_t cap, const char *host, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET)
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	snprintf(out, cap, "%s:%u", host, port);
}

/* mbedtls' send callback: one send(2), never blocking, never raising
 * SIGPIPE (MSG_NOSIGNAL, send(2)); EAGAIN becomes WANT_WRITE so that the
 * caller waits for EV_WRITE. */
static int on_send(void *arg, const unsigned char *buf, size_t len)
{
	struct tls_session *s = arg;
	for (;;) {
		ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n >= 0)
			return (int)n;
		int err = errno;
		if (err == EINTR)
			continue;
		if (err == EAGAIN || err == EWOULDBLOCK)
			return MBEDTLS_ERR_SSL_WANT_WRITE;
		s->sock_errno = err;
		return err == EPIPE || err == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET
							 : MBEDTLS_ERR_NET_SEND_FAILED;
	}
}

/* mbedtls' receive callback: 0 is the end of the stream (mbedtls answers
 * MBEDTLS_ERR_SSL_CONN_EOF), EAGAIN is WANT_READ. */
static int on_recv(void *arg, unsigned char *buf, size_t len)
{
	struct tls_session *s = arg;
	for (;;) {
		ssize_t n = recv(s->fd, buf, len, MSG_DONTWAIT);
		if (n >= 0)
			return (int)n;
		int err = errno;
		if (err == EINTR)
			continue;
		if (err == EAGAIN || err == EWOULDBLOCK)
			return MBEDTLS_ERR_SSL_WANT_READ;
		s->sock_errno = err;
		return err == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET : MBEDTLS_ERR_NET_RECV_FAILED;
	}
}

static int session_new(const mbedtls_ssl_config *conf, int fd, struct tls_session **out)
{
	struct tls_session *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	mbedtls_ssl_init(&s->ssl);
	s->fd = fd;
	s->failure.alert = -1;
	if (mbedtls_ssl_setup(&s->ssl, conf) != 0) {
		tls_session_destroy(s);
		return -ENOMEM; /* mbedtls_ssl_setup fails only on allocation */
	}
	mbedtls_ssl_set_bio(&s->ssl, s, on_send, on_recv, NULL);
	*out = s;
	return 0;
}

int tls_session_server(struct tls_server_conf *conf, int fd, struct tls_session **out)
{
	int ret = session_new(&conf->ssl, fd, out);
	if (ret == 0) {
		(*out)->sconf = conf;
		(*out)->failure.facing_client = true;
		(*out)->failure.no_sni = true; /* until on_sni() sees one */
	}
	return ret;
}

/* An IP literal as the host: refused (endpoint.h, IP literals), in every
 * form the resolver would take for an address (inet_aton(3) accepts
 * "127.1" and "0x7f.1" too). */
static bool is_ip_literal(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char bare[256];
	size_t n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof(bare)) {
		memcpy(bare, host + 1, n - 2);
		bare[n - 2] = '\0';
		host = bare;
	}
	return inet_aton(host, &a4) != 0 || inet_pton(AF_INET6, host, &a6) == 1;
}

int tls_session_client(struct tls_client_conf *conf, int fd, const char *host,
		       struct tls_session **out, const char **reason)
{
	size_t n = strlen(host);
	if (n == 0 || n > 253) {
		if (reason)
			*reason = "not a host name porta can verify a certificate for";
		return -EINVAL;
	}
	if (is_ip_literal(host)) {
		if (reason)
			*reason = "an IP address: porta's TLS library (mbedtls 2.28) cannot check "
				  "a certificate's IP addresses, so porta does not terminate "
				  "hosts given by address";
		return -EINVAL;
	}
	struct tls_session *s;
	int ret = session_new(&conf->ssl, fd, &s);
	if (ret != 0)
		return ret;
	memcpy(s->failure.host, host, n + 1);
	/* SNI and the name check of the leaf (mbedtls_ssl_set_hostname()):
	 * without it mbedtls 2.28 verifies the chain but no name. */
	if (mbedtls_ssl_set_hostname(&s->ssl, host) != 0) {
		tls_session_destroy(s);
		return -ENOMEM;
	}
	mbedtls_ssl_set_verify(&s->ssl, on_verify, s);
	s->cconf = conf;
	cache_key(s->cache_key, sizeof(s->cache_key), host, fd);
	struct upstream_slot *slot = slot_find(conf, s->cache_key);
	/* mbedtls_ssl_set_session() copies the session; if it fails (out of
	 * memory) the handshake is simply a full one. */
	if (slot != NULL && mbedtls_ssl_set_session(&s->ssl, &slot->session) == 0)
		slot->used = ++conf->clock;
	*out = s;
	return 0;
}

void tls_session_destroy(struct tls_session *s)
{
	if (s == NULL)
		return;
	mbedtls_ssl_free(&s->ssl);
	free(s);
}

/* Records why s failed, once; every later call answers TLS_FAILED. */
static enum tls_status fail(struct tls_session *s, int ret)
{
	if (s->failed)
		return TLS_FAILED;
	s->failed = true;
	s->failure.err = ret;
	if (ret == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED) {
		uint32_t fl = mbedtls_ssl_get_verify_result(&s->ssl);
		s->failure.verify_flags = fl == (uint32_t)-1 ? 0 : fl;
	}
	/* mbedtls_ssl_read_record() leaves the alert it received at in_msg
	 * (level, description; RFC 5246 §7.2) when it answers FATAL_ALERT. */
	if (ret == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE && s->ssl.in_msg != NULL)
		s->failure.alert = s->ssl.in_msg[1];
	tls_failure_reason(&s->failure, s->reason, sizeof(s->reason));
	if ((ret == MBEDTLS_ERR_NET_SEND_FAILED || ret == MBEDTLS_ERR_NET_RECV_FAILED) &&
	    s->sock_errno != 0) {
		const char *words = strerrordesc_np(s->sock_errno);
		snprintf(s->reason, sizeof(s->reason), "socket error: %s",
			 words ? words : "unknown errno");
	}
	return TLS_FAILED;
}

enum tls_status tls_session_handshake(struct tls_session *s)
{
	if (s->failed)
		return TLS_FAILED;
	if (s->handshake_done)
		return TLS_OK;
	if (s->sconf != NULL)
		s->sconf->ticket_opened = false;
	int ret = mbedtls_ssl_handshake(&s->ssl);
	/* The loop is single-threaded: a ticket opened during this call was
	 * this session's. */
	if (s->sconf != NULL && s->sconf->ticket_opened)
		s->resumed = true;
	if (ret == 0) {
		s->handshake_done = true;
		if (s->cconf != NULL) {
			s->resumed = !s->cert_seen;
			slot_store(s->cconf, s);
		}
		return TLS_OK;
	}
	if (ret == MBEDTLS_ERR_SSL_WANT_READ)
		return TLS_WANT_READ;
	if (ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return TLS_WANT_WRITE;
	if (s->cconf != NULL) {
		/* Never offer again a session that ended in a failure. */
		struct upstream_slot *slot = slot_find(s->cconf, s->cache_key);
		if (slot != NULL)
			slot_clear(slot);
	}
	return fail(s, ret);
}

enum tls_status tls_session_read(struct tls_session *s, void *buf, size_t cap, size_t *got)
{
	*got = 0;
	if (s->failed)
		return TLS_FAILED;
	int ret = mbedtls_ssl_read(&s->ssl, buf, cap);
	if (ret > 0) {
		*got = (size_t)ret;
		return TLS_OK;
	}
	switch (ret) {
	case MBEDTLS_ERR_SSL_WANT_READ:
		return TLS_WANT_READ;
	case MBEDTLS_ERR_SSL_WANT_WRITE:
		return TLS_WANT_WRITE;
	case MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY:
		return TLS_CLOSED;
	case 0: /* ssl.h: the transport ended without close_notify */
	case MBEDTLS_ERR_SSL_CONN_EOF:
		return TLS_EOF;
	default:
		return fail(s, ret);
	}
}

enum tls_status tls_session_write(struct tls_session *s, const void *buf, size_t len,
				  size_t *sent)
{
	*sent = 0;
	if (s->failed)
		return TLS_FAILED;
	int ret = mbedtls_ssl_write(&s->ssl, buf, len);
	if (ret > 0) {
		*sent = (size_t)ret;
		return TLS_OK;
	}
	if (ret == MBEDTLS_ERR_SSL_WANT_READ)
		return TLS_WANT_READ;
	if (ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return TLS_WANT_WRITE;
	return fail(s, ret == 0 ? MBEDTLS_ERR_SSL_BAD_INPUT_DATA : ret);
}

enum tls_status tls_session_close(struct tls_session *s)
{
	if (s->failed)
		return TLS_OK; /* nothing more can be sent on a dead session */
	int ret = mbedtls_ssl_close_notify(&s->ssl);
	if (ret == MBEDTLS_ERR_SSL_WANT_WRITE)
		return TLS_WANT_WRITE;
	if (ret == MBEDTLS_ERR_SSL_WANT_READ)
		return TLS_WANT_READ;
	return TLS_OK; /* sent, or the peer is gone: either way, done */
}

bool tls_session_has_buffered(const struct tls_session *s)
{
	return mbedtls_ssl_get_bytes_avail(&s->ssl) > 0 || mbedtls_ssl_check_pending(&s->ssl) != 0;
}

const char *tls_session_sni(const struct tls_session *s)
{
	return s->failure.host;
}

const char *tls_session_alpn(const struct tls_session *s)
{
	if (!s->handshake_done)
		return NULL;
	return mbedtls_ssl_get_alpn_protocol(&s->ssl);
}

const char *tls_session_cipher(const struct tls_session *s)
{
	if (!s->handshake_done)
		return NULL;
	return mbedtls_ssl_get_ciphersuite(&s->ssl);
}

bool tls_session_resumed(const struct tls_session *s)
{
	return s->handshake_done && s->resumed;
}

const char *tls_session_reason(const struct tls_session *s)
{
	return s->reason;
}
