/* tests/unit/netproxy/test_terminate.c: a terminated connection end to end
 * on loopback (netproxy/terminate.h): curl inside trusts porta's run CA
 * (tls/ca.h), porta verifies the upstream (a Python HTTPS server,
 * term_upstream.py, trusting the test CA of tests/unit/tls/make-certs.sh),
 * and the upstream's log is what the server saw.  Placeholders become the
 * real value upstream and come back as placeholders; --allow-http rules,
 * another host's placeholder, a Host other than the connection's, and an
 * upstream porta cannot verify are each refused by porta itself. */
#include <criterion/criterion.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netproxy/terminate.h"
#include "tls/ca.h"
#include "tls/endpoint.h"

#define PH "PORTA_plchold_0123456789abcdefAB"
#define REAL "real-token-7f3c9a21e8b44d06"
#define OTHER_PH "PORTA_otherhd_ZYXWVUTSRQponmlk"
#define OTHER_REAL "other-real-value-4242"

static char dir[64];
static pid_t upstream_pid = -1;
static int upstream_port;
static struct tls_ca *ca;

static void sh(const char *cmd)
{
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	char *buf = calloc(1, 1 << 20);
	cr_assert(buf);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void start_upstream(void)
{
	char cmd[512];
	int p[2];

	snprintf(dir, sizeof(dir), "/tmp/porta-term-XXXXXX");
	cr_assert(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "sh %s/tests/unit/tls/make-certs.sh %s", PORTA_SOURCE_DIR, dir);
	sh(cmd);
	cr_assert_eq(pipe(p), 0);
	upstream_pid = fork();
	cr_assert_geq(upstream_pid, 0);
	if (upstream_pid == 0) {
		char script[512], cert[128], key[128], log[128];
		dup2(p[1], 1);
		snprintf(script, sizeof(script), "%s/tests/unit/netproxy/term_upstream.py",
			 PORTA_SOURCE_DIR);
		snprintf(cert, sizeof(cert), "%s/api.crt", dir);
		snprintf(key, sizeof(key), "%s/api.key", dir);
		snprintf(log, sizeof(log), "%s/upstream.log", dir);
		execlp("python3", "python3", script, cert, key, log, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char line[32] = { 0 };
	cr_assert_gt(read(p[0], line, sizeof(line) - 1), 0, "the upstream did not start");
	close(p[0]);
	upstream_port = atoi(line);
	cr_assert_gt(upstream_port, 0);
}

static int lookup(void *arg, const char *name, size_t len, struct tls_cert_pick *pick)
{
	struct tls_leaf leaf;
	(void)len;
	if (tls_ca_leaf(arg, name, &leaf) < 0)
		return -1;
	pick->chain = leaf.chain;
	pick->key = leaf.key;
	return 0;
}

static void setup(void)
{
	struct porta_error e;
	const char *names[] = { "api.example" };

	signal(SIGPIPE, SIG_IGN);
	start_upstream();
	cr_assert_eq(tls_ca_create(names, 1, &ca, &e), 0, "%s", e.msg);
	char path[128];
	snprintf(path, sizeof(path), "%s/runca.pem", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(tls_ca_pem(ca), f);
	fclose(f);
}

static void teardown(void)
{
	char cmd[128];
	if (upstream_pid > 0) {
		kill(upstream_pid, SIGKILL);
		waitpid(upstream_pid, NULL, 0);
	}
	tls_ca_destroy(ca);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
}

/* ---- one run: porta's listener, curl, the loop ---------------------------- */

struct run {
	struct event_base *base;
	int lfd, port;
	struct proxy_term_params prm;
	struct policy_net_target host;
	pid_t curl;
	int curl_status;
	int refused, requests, elsewhere, upstream_tls, done;
	char why[512];
	char suggestion[512];
	size_t replaced;
};

static void on_term_event(const struct proxy_term_event *ev, void *arg)
{
	struct run *r = arg;
	switch (ev->kind) {
	case PROXY_TERM_REQUEST:
		r->requests++;
		r->replaced += ev->replaced;
		break;
	case PROXY_TERM_REFUSED:
		r->refused++;
		snprintf(r->why, sizeof(r->why), "%s", ev->why ? ev->why : "");
		if (ev->suggestion)
			snprintf(r->suggestion, sizeof(r->suggestion), "%s", ev->suggestion);
		break;
	case PROXY_TERM_SECRET_ELSEWHERE:
		r->elsewhere++;
		break;
	case PROXY_TERM_UPSTREAM_TLS:
		r->upstream_tls++;
		snprintf(r->why, sizeof(r->why), "%s", ev->why ? ev->why : "");
		break;
	case PROXY_TERM_CLIENT_TLS:
		break;
	}
}

static void on_done(enum proxy_relay_end end, const struct proxy_relay_stats *st, void *arg)
{
	(void)end;
	(void)st;
	((struct run *)arg)->done++;
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	(void)what;
	int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0)
		return;
	int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)upstream_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert_eq(connect(u, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fcntl(u, F_SETFL, O_NONBLOCK);
	cr_assert(proxy_term_start(r->base, c, u, &r->prm, 0, on_term_event, on_done, r));
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	(void)fd;
	(void)what;
	if (waitpid(r->curl, &r->curl_status, WNOHANG) == r->curl)
		event_base_loopbreak(r->base);
}

/* Runs curl with args (after the common ones) through a terminating
 * listener held to prm's rules and secrets; the client trusts porta's run
 * CA, porta trusts `upstream_ca` (a file in dir). */
static void run_curl_rules(struct run *r, const char *upstream_ca, const char *const *args,
			   const char *rule_text, struct policy_http_rule *rule, char *err,
			   size_t err_cap);

static void run_curl(struct run *r, const char *upstream_ca, const char *const *args)
{
	run_curl_rules(r, upstream_ca, args, NULL, NULL, NULL, 0);
}

/* "{PORT}" in s becomes port, into out. */
static const char *with_port(const char *s, int port, char *out, size_t cap)
{
	const char *at = strstr(s, "{PORT}");
	if (!at)
		return s;
	snprintf(out, cap, "%.*s%d%s", (int)(at - s), s, port, at + 6);
	return out;
}

static void run_curl_rules(struct run *r, const char *upstream_ca, const char *const *args,
			   const char *rule_text, struct policy_http_rule *rule, char *rerr,
			   size_t rerr_cap)
{
	struct porta_error e;
	struct tls_server_conf *server;
	struct tls_client_conf *client;
	char bundle[128];

	snprintf(bundle, sizeof(bundle), "%s/%s", dir, upstream_ca);
	cr_assert_eq(tls_server_conf_create(lookup, ca, &server, &e), 0, "%s", e.msg);
	cr_assert_eq(tls_client_conf_create(bundle, &client, &e), 0, "%s", e.msg);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"api.example", 11, &r->host),
		     POLICY_NET_TARGET_OK);
	static uint8_t scratch[PROXY_SECRET_OUT_MAX];
	r->prm.scratch = scratch;
	r->prm.server = server;
	r->prm.client = client;
	r->prm.host = &r->host;
	r->base = event_base_new();
	r->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	cr_assert_eq(bind(r->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(r->lfd, 8), 0);
	getsockname(r->lfd, (struct sockaddr *)&sa, &sl);
	r->port = ntohs(sa.sin_port);
	r->prm.port = (uint16_t)r->port;
	if (rule_text) {
		char text[256];
		with_port(rule_text, r->port, text, sizeof(text));
		cr_assert_eq(policy_http_rule_parse(text, strlen(text), rule, rerr, rerr_cap),
			     POLICY_HTTP_RULE_OK, "%s", rerr);
		r->prm.rules = rule;
		r->prm.n_rules = 1;
	}

	char resolve[64], cacert[128], hdrs[128], body[128], err[128];
	snprintf(resolve, sizeof(resolve), "api.example:%d:127.0.0.1", r->port);
	snprintf(cacert, sizeof(cacert), "%s/runca.pem", dir);
	snprintf(hdrs, sizeof(hdrs), "%s/headers", dir);
	snprintf(body, sizeof(body), "%s/body", dir);
	snprintf(err, sizeof(err), "%s/curl.err", dir);
	unlink(hdrs);
	unlink(body);
	const char *argv[40] = { "curl", "-sS", "--http1.1", "--cacert", cacert, "--resolve", resolve,
				 "-D", hdrs, "-o", body };
	static char ported[16][256];
	size_t n = 11;
	for (size_t i = 0; args[i] && n < 38 && i < 16; i++)
		argv[n++] = with_port(args[i], r->port, ported[i], sizeof(ported[i]));
	argv[n] = NULL;
	r->curl = fork();
	cr_assert_geq(r->curl, 0);
	if (r->curl == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		char out[128];
		snprintf(out, sizeof(out), "%s/stdout", dir);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		execvp("curl", (char *const *)argv);
		_exit(127);
	}
	struct event *acc = event_new(r->base, r->lfd, EV_READ | EV_PERSIST, on_accept, r);
	struct event *tick = event_new(r->base, -1, EV_PERSIST, on_tick, r);
	struct timeval tv = { 0, 20000 };
	event_add(acc, NULL);
	event_add(tick, &tv);
	event_base_dispatch(r->base);
	/* let the relays finish their closes */
	struct timeval drain = { 0, 200000 };
	event_del(acc);
	event_del(tick);
	event_base_loopexit(r->base, &drain);
	event_base_dispatch(r->base);
	event_free(acc);
	event_free(tick);
	close(r->lfd);
	event_base_free(r->base);
	tls_server_conf_destroy(server);
	tls_client_conf_destroy(client);
}

static char *file(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const struct proxy_secret bound[] = {
	{ { (const uint8_t *)PH, sizeof(PH) - 1 }, { (const uint8_t *)REAL, sizeof(REAL) - 1 }, "GH_TOKEN" },
};
static const struct proxy_secret others[] = {
	{ { (const uint8_t *)OTHER_PH, sizeof(OTHER_PH) - 1 },
	  { (const uint8_t *)OTHER_REAL, sizeof(OTHER_REAL) - 1 }, "OTHER_TOKEN" },
};

TestSuite(terminate, .init = setup, .fini = teardown, .timeout = 60);

Test(terminate, placeholder_swapped_both_ways)
{
	struct run r = { .prm = { .bound = bound, .n_bound = 1, .others = others, .n_others = 1 } };
	const char *args[] = { "-H", "Authorization: Bearer " PH, "-u", "me:" PH,
			       "https://api.example:{PORT}/v1/repo", NULL };
	run_curl(&r, "ca.crt", args);
	char *err = file("curl.err"), *hdrs = file("headers"), *body = file("body");
	char *log = file("upstream.log");
	cr_assert_eq(WEXITSTATUS(r.curl_status), 0, "curl: %s", err);
	cr_assert_str_eq(body, "ok");
	/* curl sends the later -H Authorization over -u's: the server saw the
	 * real value, never the placeholder */
	cr_assert_eq(count(log, "Authorization: Bearer " REAL), 1, "upstream saw: %s", log);
	cr_assert_eq(count(log, PH), 0, "%s", log);
	/* and the echo came back as the placeholder */
	cr_assert_eq(count(hdrs, "X-Echo: Bearer " PH), 1, "client saw: %s", hdrs);
	cr_assert_eq(count(hdrs, REAL), 0, "%s", hdrs);
	cr_assert_eq(r.requests, 1);
	cr_assert_eq(r.replaced, 1);
	cr_assert_eq(r.refused, 0);
	free(err), free(hdrs), free(body), free(log);
}

Test(terminate, basic_credentials_swapped)
{
	struct run r = { .prm = { .bound = bound, .n_bound = 1 } };
	const char *args[] = { "-u", "x-access-token:" PH, "https://api.example:{PORT}/v1/repo",
			       NULL };
	run_curl(&r, "ca.crt", args);
	char *log = file("upstream.log");
	/* base64("x-access-token:" REAL) */
	char cmd[256], want[256];
	snprintf(cmd, sizeof(cmd), "printf '%%s' 'x-access-token:%s' | base64 -w0 > %s/b64", REAL,
		 dir);
	sh(cmd);
	char *b64 = file("b64");
	snprintf(want, sizeof(want), "Authorization: Basic %s", b64);
	cr_assert_eq(count(log, want), 1, "want %s in %s", want, log);
	free(log), free(b64);
}

Test(terminate, rules_refuse_a_second_request_on_the_connection)
{
	struct policy_http_rule rule;
	char text[128], err[256];
	struct run r = { .prm = { .rules = &rule, .n_rules = 1 } };
	const char *args[] = { "https://api.example:{PORT}/v1/a", "https://api.example:{PORT}/v2/b",
			       NULL };
	/* the rule names the port porta's listener will get: parsed in the
	 * hook below, once known */
	r.prm.rules = NULL;
	r.prm.n_rules = 0;
	snprintf(text, sizeof(text), "GET https://api.example:{PORT}/v1/*");
	run_curl_rules(&r, "ca.crt", args, text, &rule, err, sizeof(err));
	/* the second URL's body goes to curl's stdout (-o names the first's) */
	char *hdrs = file("headers"), *body = file("stdout"), *log = file("upstream.log");
	cr_assert_eq(count(log, "\"GET /v1/a HTTP/1.1\""), 1, "%s", log);
	cr_assert_eq(count(log, "/v2/b"), 0, "the refused request reached the server: %s", log);
	cr_assert_eq(count(hdrs, "HTTP/1.1 200"), 1, "%s", hdrs);
	cr_assert_eq(count(hdrs, "HTTP/1.1 403"), 1, "%s", hdrs);
	cr_assert(strstr(body, "--allow-http 'GET https://api.example:"), "%s", body);
	cr_assert(strstr(r.suggestion, "/v2/b"), "%s", r.suggestion);
	cr_assert_eq(r.requests, 1);
	cr_assert_eq(r.refused, 1);
	free(hdrs), free(body), free(log);
}

Test(terminate, another_hosts_placeholder_refused)
{
	struct run r = { .prm = { .bound = bound, .n_bound = 1, .others = others, .n_others = 1 } };
	const char *args[] = { "-H", "X-Token: " OTHER_PH, "https://api.example:{PORT}/v1/x", NULL };
	run_curl(&r, "ca.crt", args);
	char *hdrs = file("headers"), *log = file("upstream.log");
	cr_assert_eq(count(hdrs, "HTTP/1.1 403"), 1, "%s", hdrs);
	cr_assert_str_eq(log, "", "bytes reached the server: %s", log);
	cr_assert_eq(r.elsewhere, 1);
	free(hdrs), free(log);
}

Test(terminate, host_other_than_the_connections_refused)
{
	struct run r = { 0 };
	const char *args[] = { "-H", "Host: other.example", "https://api.example:{PORT}/", NULL };
	run_curl(&r, "ca.crt", args);
	char *hdrs = file("headers"), *log = file("upstream.log");
	cr_assert_eq(count(hdrs, "HTTP/1.1 403"), 1, "%s", hdrs);
	cr_assert_str_eq(log, "");
	free(hdrs), free(log);
}

Test(terminate, unverifiable_upstream_is_502_with_the_reason)
{
	struct run r = { 0 };
	const char *args[] = { "https://api.example:{PORT}/", NULL };
	run_curl(&r, "rogue-ca.crt", args);
	char *hdrs = file("headers"), *body = file("body"), *log = file("upstream.log");
	cr_assert_eq(count(hdrs, "HTTP/1.1 502"), 1, "%s", hdrs);
	cr_assert(strstr(body, "unknown certificate authority"), "%s", body);
	cr_assert_eq(r.upstream_tls, 1);
	cr_assert_str_eq(log, "");
	free(hdrs), free(body), free(log);
}

/* A connected TCP pair on loopback: *a connected to *b. */
static void tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(l, 1), 0);
	getsockname(l, (struct sockaddr *)&sa, &sl);
	*a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_eq(connect(*a, (struct sockaddr *)&sa, sizeof(sa)), 0);
	*b = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	cr_assert_geq(*b, 0);
	close(l);
}

/* The client's TCP pair (*c the test's end, *c_in the relay's) and the
 * upstream's (*u_out the relay's, non-blocking, *s the test's), and r set
 * for a plain relay of api.example's on a new loop. */
static void plain_setup(struct run *r, uint8_t *scratch, int *c, int *c_in, int *u_out, int *s)
{
	tcp_pair(c, c_in);
	tcp_pair(u_out, s);
	fcntl(*u_out, F_SETFL, O_NONBLOCK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"api.example", 11, &r->host),
		     POLICY_NET_TARGET_OK);
	r->prm.scratch = scratch;
	r->prm.host = &r->host;
	r->base = event_base_new();
}

/* Both sockets without Nagle's algorithm: each handshake record is its own
 * send(2), and one behind an unacknowledged record waited for the peer's
 * delayed ACK, ~40 ms on every new connection (docs/benchmarks/tls-relay.md). */
Test(terminate, both_sides_nodelay)
{
	struct run r = { 0 };
	static uint8_t scratch[PROXY_SECRET_OUT_MAX];
	int c, c_in, u_out, s;

	plain_setup(&r, scratch, &c, &c_in, &u_out, &s);
	/* dups share the sockets the relay takes over */
	int fds[2] = { dup(c_in), dup(u_out) };
	struct proxy_term *t = proxy_term_start(r.base, c_in, u_out, &r.prm, 0, on_term_event,
						on_done, &r);
	cr_assert_not_null(t);
	for (int i = 0; i < 2; i++) {
		int v = 0;
		socklen_t len = sizeof(v);
		cr_assert_eq(getsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
		cr_expect_neq(v, 0, "side %d keeps Nagle's algorithm", i);
		close(fds[i]);
	}
	proxy_term_abort(t);
	cr_assert_eq(r.done, 1);
	event_base_loop(r.base, EVLOOP_NONBLOCK); /* nothing of the relay left to run */
	close(c);
	close(s);
	event_base_free(r.base);
}

/* An aborted relay is gone when the abort returns, not on a later turn of
 * the loop: porta's proxy aborts every live connection as the sandbox ends
 * and frees its event base without another turn (netproxy/proxy.c), and a
 * free left to that turn leaked each relay then (LeakSanitizer, CI). */
Test(terminate, abort_frees_without_another_loop_turn)
{
	struct run r = { 0 };
	static uint8_t scratch[PROXY_SECRET_OUT_MAX];
	int c, c_in, u_out, s;

	plain_setup(&r, scratch, &c, &c_in, &u_out, &s);
	struct proxy_term *t = proxy_term_start(r.base, c_in, u_out, &r.prm, 0, on_term_event,
						on_done, &r);
	cr_assert_not_null(t);
	/* a turn of its own first, as a live relay has had */
	event_base_loop(r.base, EVLOOP_NONBLOCK);
	proxy_term_abort(t);
	cr_assert_eq(r.done, 1);
	event_base_free(r.base); /* no turn between: LeakSanitizer sees what is left */
	close(c);
	close(s);
}

/* The upstream's handshake runs beside the client's, not after it: with a
 * client that has sent nothing yet, the upstream already has porta's
 * ClientHello (a TLS handshake record, RFC 5246 §6.2.1: type 22), so its
 * round trips pass while the client's handshake does. */
Test(terminate, upstream_handshake_starts_with_the_clients)
{
	struct run r = { 0 };
	struct porta_error e;
	static uint8_t scratch[PROXY_SECRET_OUT_MAX];
	struct tls_server_conf *server;
	struct tls_client_conf *client;
	char bundle[128];
	int c, c_in, u_out, s;

	snprintf(bundle, sizeof(bundle), "%s/ca.crt", dir);
	cr_assert_eq(tls_server_conf_create(lookup, ca, &server, &e), 0, "%s", e.msg);
	cr_assert_eq(tls_client_conf_create(bundle, &client, &e), 0, "%s", e.msg);
	tcp_pair(&c, &c_in);
	tcp_pair(&u_out, &s);
	fcntl(u_out, F_SETFL, O_NONBLOCK);
	cr_assert_eq(policy_net_target_parse((const uint8_t *)"api.example", 11, &r.host),
		     POLICY_NET_TARGET_OK);
	r.prm.scratch = scratch;
	r.prm.server = server;
	r.prm.client = client;
	r.prm.host = &r.host;
	r.base = event_base_new();
	struct proxy_term *t = proxy_term_start(r.base, c_in, u_out, &r.prm, 0, on_term_event,
						on_done, &r);
	cr_assert_not_null(t);
	uint8_t got[5] = { 0 };
	ssize_t n = -1;
	for (int i = 0; i < 100 && n <= 0; i++) {
		event_base_loop(r.base, EVLOOP_NONBLOCK);
		n = recv(s, got, sizeof(got), MSG_DONTWAIT);
		if (n <= 0)
			usleep(10000);
	}
	cr_assert_gt(n, 0, "the upstream heard nothing while the client was silent");
	cr_assert_eq(got[0], 22, "not a TLS handshake record: %u", got[0]);
	proxy_term_abort(t);
	event_base_loop(r.base, EVLOOP_NONBLOCK);
	close(c);
	close(s);
	event_base_free(r.base);
	tls_server_conf_destroy(server);
	tls_client_conf_destroy(client);
}
