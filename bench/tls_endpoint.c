/* bench/tls_endpoint.c: what tls/endpoint costs (docs/benchmarks/tls-endpoint.md).
 *
 * Usage: tls_endpoint CERTDIR [MIB]  (CERTDIR made by tests/unit/tls/make-certs.sh)
 *        tls_endpoint --primitives RUNS  (3. alone, RUNS times each, at most 200:
 *                                         bench/tls-relay runs it in every round)
 *
 * Over loopback TCP, in one thread, with porta's own sessions on both ends:
 *   1. handshake: a server+client pair (P-256 leaf, ECDHE), 200 times
 *      full (a new server configuration each time, whose ticket key opens
 *      no earlier session) and 200 times resumed (the same configurations:
 *      the client offers its cached session, tls/endpoint.h
 *      "Resumption"): median and p90 of the pair's CPU (one process does
 *      both sides), and each side's own CPU, timed around its calls: the
 *      server side is what porta pays facing the client, the client side
 *      what it pays upstream;
 *   2. relay: MIB MiB (default 128) from a client through porta's server
 *      session, decrypted, re-encrypted by porta's client session, to an
 *      upstream server session: the whole pipeline's rate, and the rate of
 *      porta's two calls alone (read from the client, write upstream), the
 *      ceiling of a terminated relay on one core;
 *   3. primitives: the three computations no full handshake of porta's
 *      server side can skip, with the curves it uses (ECDHE x25519, which
 *      clients offer first, and the P-256 leaf's ECDSA signature over
 *      ServerKeyExchange, RFC 8422 §5.4): x25519 key generation, the
 *      x25519 shared secret, one ECDSA P-256 signature, 200 times each:
 *      medians, and their sum, the floor of a full handshake's CPU there;
 *   4. memory: the heap in use (mallinfo2 uordblks) that 100 idle porta
 *      session pairs (server session + client session, handshakes done,
 *      their peers freed) hold, per pair.
 */
#include <fcntl.h>
#include <malloc.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecdh.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/ssl_internal.h>
#include <mbedtls/x509_crt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tls/endpoint.h"

#define HANDSHAKES 200
#define IDLE_PAIRS 100

struct bench {
	mbedtls_x509_crt chain;
	mbedtls_pk_context key;
	struct tls_server_conf *sconf;
	struct tls_client_conf *cconf;
	int lfd;
	struct sockaddr_in addr;
};

static void die(const char *what)
{
	fprintf(stderr, "tls_endpoint: %s\n", what);
	exit(1);
}

static int lookup(void *arg, const char *name, size_t len, struct tls_cert_pick *pick)
{
	struct bench *b = arg;
	(void)len;
	if (strcmp(name, "api.example") != 0)
		return -1;
	pick->chain = &b->chain;
	pick->key = &b->key;
	return 0;
}

static double clock_s(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wall time, and this thread's CPU time: on a shared machine (a CI run
 * beside it) the CPU time is the figure that does not depend on the load. */
static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* A connected loopback TCP pair, both ends non-blocking: fd[0] accepted
 * (a server session's), fd[1] dialled (a client session's). */
static void tcp_pair(struct bench *b, int fd[2])
{
	int one = 1;
	fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd[1] < 0 || connect(fd[1], (struct sockaddr *)&b->addr, sizeof(b->addr)) != 0)
		die("connect");
	fd[0] = accept4(b->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd[0] < 0 || fcntl(fd[1], F_SETFL, O_NONBLOCK) != 0)
		die("accept");
	setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

struct pair {
	int fd[2];
	struct tls_session *server, *client;
};

static void pair_open(struct bench *b, struct pair *p)
{
	tcp_pair(b, p->fd);
	if (tls_session_server(b->sconf, p->fd[0], &p->server) != 0 ||
	    tls_session_client(b->cconf, p->fd[1], "api.example", &p->client, NULL) != 0)
		die("session");
}

/* Both handshakes in one thread: each side steps while the other waits;
 * each side's CPU is added to cpu_side[0] (server) and [1] (client). */
static double cpu_side[2];

static void pair_handshake(struct pair *p)
{
	enum tls_status s = TLS_WANT_READ, c = TLS_WANT_READ;
	while (s != TLS_OK || c != TLS_OK) {
		double c0 = cpu();
		if (c != TLS_OK)
			c = tls_session_handshake(p->client);
		double c1 = cpu();
		if (s != TLS_OK)
			s = tls_session_handshake(p->server);
		cpu_side[1] += c1 - c0;
		cpu_side[0] += cpu() - c1;
		if (s == TLS_FAILED || c == TLS_FAILED) {
			fprintf(stderr, "server: %s\nclient: %s\n", tls_session_reason(p->server),
				tls_session_reason(p->client));
			die("handshake failed");
		}
	}
}

static void pair_free(struct pair *p)
{
	tls_session_destroy(p->server);
	tls_session_destroy(p->client);
	close(p->fd[0]);
	close(p->fd[1]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void bench_handshake(struct bench *b, bool resumed)
{
	static double t[HANDSHAKES], c[HANDSHAKES], side[2][HANDSHAKES];
	struct porta_error e;
	int wrong = 0;
	for (int i = 0; i < HANDSHAKES; i++) {
		struct pair p;
		if (!resumed) {
			tls_server_conf_destroy(b->sconf);
			if (tls_server_conf_create(lookup, b, &b->sconf, &e) != 0)
				die(e.msg);
		}
		pair_open(b, &p);
		cpu_side[0] = cpu_side[1] = 0;
		double t0 = now(), c0 = cpu();
		pair_handshake(&p);
		c[i] = cpu() - c0;
		t[i] = now() - t0;
		side[0][i] = cpu_side[0];
		side[1][i] = cpu_side[1];
		wrong += tls_session_resumed(p.server) != resumed ||
			 tls_session_resumed(p.client) != resumed;
		pair_free(&p);
	}
	if (wrong)
		die(resumed ? "a handshake did not resume" : "a handshake resumed");
	qsort(t, HANDSHAKES, sizeof(t[0]), cmp_double);
	qsort(c, HANDSHAKES, sizeof(c[0]), cmp_double);
	qsort(side[0], HANDSHAKES, sizeof(side[0][0]), cmp_double);
	qsort(side[1], HANDSHAKES, sizeof(side[1][0]), cmp_double);
	printf("handshake %s (server+client, P-256 leaf, %d runs): CPU median %.3f ms, p90 %.3f ms; "
	       "wall median %.3f ms, p90 %.3f ms, min %.3f ms; server side CPU median %.3f ms, "
	       "client side %.3f ms\n",
	       resumed ? "resumed" : "full", HANDSHAKES, c[HANDSHAKES / 2] * 1e3,
	       c[HANDSHAKES * 9 / 10] * 1e3, t[HANDSHAKES / 2] * 1e3,
	       t[HANDSHAKES * 9 / 10] * 1e3, t[0] * 1e3, side[0][HANDSHAKES / 2] * 1e3,
	       side[1][HANDSHAKES / 2] * 1e3);
}

/* Moves up to the bytes at buf[*off..len) through s, with endpoint.h's rule:
 * a write that wants more is retried with the same bytes. */
static void write_some(struct tls_session *s, const uint8_t *buf, size_t len, size_t *off)
{
	size_t n;
	while (*off < len) {
		enum tls_status st = tls_session_write(s, buf + *off, len - *off, &n);
		if (st == TLS_FAILED)
			die(tls_session_reason(s));
		if (st != TLS_OK)
			return;
		*off += n;
	}
}

static void bench_relay(struct bench *b, size_t mib)
{
	struct pair in, out; /* client -> porta server; porta client -> upstream */
	pair_open(b, &in);
	pair_open(b, &out);
	pair_handshake(&in);
	pair_handshake(&out);

	const size_t total = mib << 20, chunk = 1 << 16;
	uint8_t *src = malloc(chunk), *relay = malloc(chunk), *sink = malloc(chunk);
	if (!src || !relay || !sink)
		die("malloc");
	for (size_t i = 0; i < chunk; i++)
		src[i] = (uint8_t)(i * 131);

	size_t taken = 0, received = 0, src_len = 0, src_off = 0;
	size_t relay_len = 0, relay_off = 0;
	double porta = 0, t0 = now(), c0 = cpu();
	while (received < total) {
		/* The sandboxed client sends: a new chunk only once the last is
		 * all taken, so a retried write sees the same bytes and length. */
		if (src_off == src_len && taken < total) {
			src_len = total - taken < chunk ? total - taken : chunk;
			src_off = 0;
		}
		if (src_off < src_len) {
			size_t before = src_off;
			write_some(in.client, src, src_len, &src_off);
			taken += src_off - before;
		}
		/* porta: decrypt from the client, encrypt to upstream. */
		double p0 = cpu();
		if (relay_off == relay_len) {
			size_t n;
			relay_off = relay_len = 0;
			enum tls_status st = tls_session_read(in.server, relay, chunk, &n);
			if (st == TLS_FAILED)
				die(tls_session_reason(in.server));
			relay_len = st == TLS_OK ? n : 0;
		}
		write_some(out.client, relay, relay_len, &relay_off);
		porta += cpu() - p0;
		/* The upstream server receives. */
		for (;;) {
			size_t n;
			enum tls_status st = tls_session_read(out.server, sink, chunk, &n);
			if (st != TLS_OK)
				break;
			received += n;
		}
	}
	double all = now() - t0, all_cpu = cpu() - c0;
	printf("relay %zu MiB: pipeline %.1f MiB/s of CPU (%.2f s CPU, %.2f s wall, 4 sessions, "
	       "one thread); porta's decrypt+encrypt alone %.1f MiB/s of CPU (%.2f s)\n",
	       mib, (double)mib / all_cpu, all_cpu, all, (double)mib / porta, porta);
	free(src);
	free(relay);
	free(sink);
	pair_free(&in);
	pair_free(&out);
}

static void bench_memory(struct bench *b)
{
	static struct pair up[IDLE_PAIRS], down[IDLE_PAIRS];
	/* One connection first, so that one-time allocations (mbedtls' lazy
	 * tables) are not charged to the pairs. */
	struct pair warm;
	pair_open(b, &warm);
	pair_handshake(&warm);
	pair_free(&warm);

	size_t before = mallinfo2().uordblks;
	for (int i = 0; i < IDLE_PAIRS; i++) {
		/* porta's server session faces the client (down[i].server); its
		 * client session faces upstream (up[i].client). */
		pair_open(b, &down[i]);
		pair_open(b, &up[i]);
		pair_handshake(&down[i]);
		pair_handshake(&up[i]);
		tls_session_destroy(down[i].client); /* the sandboxed client's */
		tls_session_destroy(up[i].server);   /* the upstream server's */
		down[i].client = up[i].server = NULL;
	}
	size_t after = mallinfo2().uordblks;
	printf("memory: %d idle porta pairs hold %zu bytes of heap: %.1f KiB per pair "
	       "(mbedtls record buffers in %d + out %d bytes per session)\n",
	       IDLE_PAIRS, after - before, (double)(after - before) / IDLE_PAIRS / 1024.0,
	       (int)MBEDTLS_SSL_IN_BUFFER_LEN, (int)MBEDTLS_SSL_OUT_BUFFER_LEN);
	for (int i = 0; i < IDLE_PAIRS; i++) {
		pair_free(&down[i]);
		pair_free(&up[i]);
	}
}

static int bench_random(void *arg, unsigned char *out, size_t len)
{
	(void)arg;
	return getrandom(out, len, 0) == (ssize_t)len ? 0 : -1;
}

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static void bench_primitives(int runs)
{
	static double gen[HANDSHAKES], shared[HANDSHAKES], sign[HANDSHAKES];
	mbedtls_ctr_drbg_context drbg;
	mbedtls_ctr_drbg_init(&drbg);
	if (mbedtls_ctr_drbg_seed(&drbg, bench_random, NULL, NULL, 0) != 0)
		die("drbg");
	for (int i = 0; i < runs; i++) {
		mbedtls_ecp_group grp;
		mbedtls_mpi da, db, z;
		mbedtls_ecp_point qa, qb;
		mbedtls_ecp_group_init(&grp);
		mbedtls_mpi_init(&da);
		mbedtls_mpi_init(&db);
		mbedtls_mpi_init(&z);
		mbedtls_ecp_point_init(&qa);
		mbedtls_ecp_point_init(&qb);
		if (mbedtls_ecp_group_load(&grp, MBEDTLS_ECP_DP_CURVE25519) != 0 ||
		    mbedtls_ecdh_gen_public(&grp, &db, &qb, mbedtls_ctr_drbg_random, &drbg) != 0)
			die("x25519");
		double c0 = cpu();
		int r = mbedtls_ecdh_gen_public(&grp, &da, &qa, mbedtls_ctr_drbg_random, &drbg);
		double c1 = cpu();
		r |= mbedtls_ecdh_compute_shared(&grp, &z, &qb, &da, mbedtls_ctr_drbg_random, &drbg);
		double c2 = cpu();
		if (r != 0)
			die("x25519");
		gen[i] = c1 - c0;
		shared[i] = c2 - c1;
		mbedtls_ecp_group_free(&grp);
		mbedtls_mpi_free(&da);
		mbedtls_mpi_free(&db);
		mbedtls_mpi_free(&z);
		mbedtls_ecp_point_free(&qa);
		mbedtls_ecp_point_free(&qb);
	}
	mbedtls_ecdsa_context key;
	mbedtls_ecdsa_init(&key);
	if (mbedtls_ecdsa_genkey(&key, MBEDTLS_ECP_DP_SECP256R1, mbedtls_ctr_drbg_random, &drbg) != 0)
		die("P-256 key");
	unsigned char hash[32] = { 1 }, sig[MBEDTLS_ECDSA_MAX_LEN];
	for (int i = 0; i < runs; i++) {
		size_t len;
		double c0 = cpu();
		if (mbedtls_ecdsa_write_signature(&key, MBEDTLS_MD_SHA256, hash, sizeof(hash), sig,
						  &len, mbedtls_ctr_drbg_random, &drbg) != 0)
			die("sign");
		sign[i] = cpu() - c0;
		hash[0]++;
	}
	mbedtls_ecdsa_free(&key);
	mbedtls_ctr_drbg_free(&drbg);
	double g = median_of(gen, runs), x = median_of(shared, runs), s = median_of(sign, runs);
	printf("primitives (%d runs, CPU medians): x25519 keygen %.3f ms, x25519 shared %.3f ms, "
	       "P-256 ECDSA sign %.3f ms; sum %.3f ms (the least a full server handshake "
	       "computes)\n", runs, g * 1e3, x * 1e3, s * 1e3, (g + x + s) * 1e3);
}

int main(int argc, char **argv)
{
	struct bench b = {0};
	struct porta_error e;
	char path[4096];
	socklen_t al = sizeof(b.addr);

	if (argc < 2)
		die("usage: tls_endpoint CERTDIR [MIB] | tls_endpoint --primitives RUNS");
	if (strcmp(argv[1], "--primitives") == 0) {
		int runs = argc > 2 ? atoi(argv[2]) : HANDSHAKES;
		bench_primitives(runs < 1 ? 1 : runs > HANDSHAKES ? HANDSHAKES : runs);
		return 0;
	}
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 128;
	mbedtls_x509_crt_init(&b.chain);
	mbedtls_pk_init(&b.key);
	snprintf(path, sizeof(path), "%s/api.crt", argv[1]);
	if (mbedtls_x509_crt_parse_file(&b.chain, path) != 0)
		die("api.crt");
	snprintf(path, sizeof(path), "%s/api.key", argv[1]);
	if (mbedtls_pk_parse_keyfile(&b.key, path, NULL) != 0)
		die("api.key");
	snprintf(path, sizeof(path), "%s/ca.crt", argv[1]);
	if (tls_server_conf_create(lookup, &b, &b.sconf, &e) != 0 ||
	    tls_client_conf_create(path, &b.cconf, &e) != 0)
		die(e.msg);

	b.addr.sin_family = AF_INET;
	b.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (b.lfd < 0 || bind(b.lfd, (struct sockaddr *)&b.addr, sizeof(b.addr)) != 0 ||
	    listen(b.lfd, 512) != 0 || getsockname(b.lfd, (struct sockaddr *)&b.addr, &al) != 0)
		die("listen");

	bench_memory(&b);
	bench_handshake(&b, false);
	bench_handshake(&b, true);
	bench_primitives(HANDSHAKES);
	bench_relay(&b, mib);

	close(b.lfd);
	tls_server_conf_destroy(b.sconf);
	tls_client_conf_destroy(b.cconf);
	mbedtls_x509_crt_free(&b.chain);
	mbedtls_pk_free(&b.key);
	return 0;
}
