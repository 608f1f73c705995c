/* tests/unit/netproxy/test_proxy_front.c: the HTTP proxy (CONNECT and
 * absolute-form) and SOCKS5 front ends for real, in the test's own small
 * internet (proxy_lab.h).  Escape corpus rows 29 and 34 (loopback and IP
 * spellings through the proxy: zero canary hits), 31 (CONNECT then another
 * SNI), 36 (SOCKS5 names with CR/LF/NUL), 37 (bytes pipelined after a
 * refused CONNECT never reach upstream). */
#include <criterion/criterion.h>

#include "proxy_lab.h"

static const struct lab_dns_entry dns_front[] = {
	{ "api.allowed.test", { "203.0.113.10", NULL } },
	{ "www.allowed.test", { "203.0.113.10", NULL } },
	{ "loop.allowed.test", { "127.0.0.1", "::1", NULL } },
	{ "v6.allowed.test", { "2001:db8::10", NULL } },
	/* nothing listens on the first: the dial moves on to the second */
	{ "smtp.allowed.test", { "203.0.113.20", NULL } },
	{ "two.allowed.test", { "203.0.113.99", "203.0.113.10", NULL } },
	{ NULL, { NULL } },
};

/* Sends a CONNECT head (plus extra bytes) and reads the status line's code
 * (and the whole answer into ans). */
static int http_connect(int fd, const char *target, const void *extra, size_t extra_len,
			char *ans, size_t cap)
{
	char req[1024];
	int n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
	if (extra_len)
		memcpy(req + n, extra, extra_len);
	if (!lab_send(fd, req, (size_t)n + extra_len))
		return -1;
	/* read up to the end of the head, byte by byte (no over-read) */
	size_t got = 0;
	while (got + 1 < cap) {
		ssize_t r = recv(fd, ans + got, 1, 0);
		if (r <= 0)
			break;
		got++;
		if (got >= 4 && memcmp(ans + got - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	ans[got] = '\0';
	if (got < 12 || strncmp(ans, "HTTP/1.1 ", 9) != 0)
		return -1;
	return atoi(ans + 9);
}

static int connect_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *evil = lab_server_start("203.0.113.66", 443, NULL);
	struct lab_server *canary4 = lab_server_start("127.0.0.1", 8080, NULL);
	struct lab_server *canary6 = lab_server_start("::1", 8080, NULL);
	struct lab_server *canary0 = lab_server_start("0.0.0.0", 8081, NULL);
	/* the control: the same kind of host loopback service, explicitly allowed */
	struct lab_server *control = lab_server_start("127.0.0.1", 8082, NULL);
	struct lab_server *smtp = lab_server_start("203.0.113.20", 25, "220 smtp ready\r\n");
	lab_dns_table = dns_front;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "*:8080", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY);
	lab_rule(&l, "*:8081", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY);
	lab_rule(&l, "127.0.0.1:8082", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY);
	lab_rule(&l, "smtp.allowed.test:25", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY);
	if (!good || !evil || !canary4 || !canary6 || !canary0 || !control || !smtp ||
	    lab_start(&l, NULL))
		return 2;

	/* allowed, then a ClientHello naming the same host: relayed */
	char ans[1024];
	uint8_t hello[512], back[512];
	int fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "api.allowed.test:443", NULL, 0, ans, sizeof(ans)) == 200,
		  "CONNECT answer: %s", ans);
	LAB_CHECK(strcmp(ans, "HTTP/1.1 200 Connection established\r\n\r\n") == 0, "%s", ans);
	size_t hl = lab_hello(hello, "API.allowed.test");
	LAB_CHECK(lab_send(fd, hello, hl) && lab_recv_n(fd, back, hl) && memcmp(back, hello, hl) == 0,
		  "relay after CONNECT");
	close(fd);
	unsigned long long good_bytes = atomic_load(&good->bytes);

	/* row 31: allowed CONNECT, then another host's SNI: refused, zero bytes */
	fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "api.allowed.test:443", NULL, 0, ans, sizeof(ans)) == 200, "%s",
		  ans);
	hl = lab_hello(hello, "evil.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "SNI mismatch not refused");
	close(fd);
	/* ... also when the hello is pipelined behind the CONNECT */
	fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "www.allowed.test:443", hello, hl, ans, sizeof(ans)) == 200, "%s",
		  ans);
	LAB_CHECK(lab_refused(fd), "pipelined SNI mismatch not refused");
	close(fd);

	/* ... also when the client waits before its hello */
	fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "api.allowed.test:443", NULL, 0, ans, sizeof(ans)) == 200, "%s",
		  ans);
	lab_sleep_ms(700);
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "delayed SNI mismatch not refused");
	close(fd);
	/* the server speaks first through a CONNECT: its greeting comes down
	 * before the client says anything */
	fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "smtp.allowed.test:25", NULL, 0, ans, sizeof(ans)) == 200, "%s",
		  ans);
	LAB_CHECK(lab_recv_n(fd, back, 16) && memcmp(back, "220 smtp ready\r\n", 16) == 0,
		  "greeting through CONNECT");
	LAB_CHECK(lab_send(fd, "EHLO x\r\n", 8) && lab_recv_n(fd, back, 8) &&
			  memcmp(back, "EHLO x\r\n", 8) == 0,
		  "relay after the greeting");
	close(fd);

	/* plain HTTP in a CONNECT tunnel names the CONNECT host, first
	 * request and every later one (row 47) */
	fd = lab_connect("127.0.0.1", 3128);
	static const char other[] = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	LAB_CHECK(http_connect(fd, "api.allowed.test:443", other, sizeof(other) - 1, ans,
			       sizeof(ans)) == 200,
		  "%s", ans);
	LAB_CHECK(lab_refused(fd), "HTTP naming another host in a tunnel not refused");
	close(fd);
	fd = lab_connect("127.0.0.1", 3128);
	static const char same[] = "GET / HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n";
	LAB_CHECK(http_connect(fd, "api.allowed.test:443", NULL, 0, ans, sizeof(ans)) == 200, "%s",
		  ans);
	LAB_CHECK(lab_send(fd, same, sizeof(same) - 1) &&
			  lab_recv_n(fd, back, sizeof(same) - 1) &&
			  memcmp(back, same, sizeof(same) - 1) == 0,
		  "HTTP naming the tunnel's host relayed");
	good_bytes += sizeof(same) - 1; /* allowed bytes: not counted as leaked */
	LAB_CHECK(lab_send(fd, other, sizeof(other) - 1) && lab_refused(fd),
		  "a second request naming another host in a tunnel not refused");
	close(fd);

	/* row 37: bytes pipelined after a refused CONNECT */
	fd = lab_connect("127.0.0.1", 3128);
	static const char more[] = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	LAB_CHECK(http_connect(fd, "evil.test:443", more, sizeof(more) - 1, ans, sizeof(ans)) == 403,
		  "%s", ans);
	char body[512];
	size_t bl = lab_recv_all(fd, body, sizeof(body) - 1);
	body[bl] = '\0';
	LAB_CHECK(strstr(body, "--allow-net evil.test:443"), "403 body: %s", body);
	close(fd);

	/* rows 29 and 34: loopback and its spellings, even under "*:8080" */
	static const char *const loops[] = {
		"127.0.0.1:8080", "localhost:8080", "LOCALHOST.:8080", "[::1]:8080",
		"2130706433:8080", "127.1:8080", "0x7f000001:8080", "[::ffff:127.0.0.1]:8080",
		"0.0.0.0:8081", "loop.allowed.test:443", "foo.localhost:8080", "[::]:8081",
		"0177.0.0.1:8080",
	};
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		fd = lab_connect("127.0.0.1", 3128);
		int code = http_connect(fd, loops[i], "x", 1, ans, sizeof(ans));
		LAB_CHECK(code == 403, "CONNECT %s: %d %s", loops[i], code, ans);
		close(fd);
	}
	/* the control: an explicit IP rule reaches it, so the canaries could be */
	fd = lab_connect("127.0.0.1", 3128);
	LAB_CHECK(http_connect(fd, "127.0.0.1:8082", NULL, 0, ans, sizeof(ans)) == 200, "control: %s",
		  ans);
	LAB_CHECK(lab_send(fd, "abc", 3) && lab_recv_n(fd, body, 3), "control relay");
	close(fd);
	LAB_CHECK(atomic_load(&control->conns) == 1, "control not reached");
	/* absolute-form to loopback too */
	fd = lab_connect("127.0.0.1", 3128);
	static const char abs_loop[] = "GET http://127.0.0.1:8080/ HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
	lab_send(fd, abs_loop, sizeof(abs_loop) - 1);
	bl = lab_recv_all(fd, body, sizeof(body) - 1);
	body[bl] = '\0';
	LAB_CHECK(strncmp(body, "HTTP/1.1 403 ", 13) == 0, "absolute-form loopback: %s", body);
	close(fd);

	/* malformed: a CONNECT without port, a target with userinfo */
	fd = lab_connect("127.0.0.1", 3128);
	static const char bad[] = "CONNECT api.allowed.test HTTP/1.1\r\nHost: x\r\n\r\n";
	lab_send(fd, bad, sizeof(bad) - 1);
	bl = lab_recv_all(fd, body, sizeof(body) - 1);
	body[bl] = '\0';
	LAB_CHECK(strncmp(body, "HTTP/1.1 400 ", 13) == 0, "malformed CONNECT: %s", body);
	close(fd);

	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&canary4->conns) == 0 && atomic_load(&canary6->conns) == 0 &&
			  atomic_load(&canary0->conns) == 0,
		  "canary hit: %u %u %u", atomic_load(&canary4->conns), atomic_load(&canary6->conns),
		  atomic_load(&canary0->conns));
	LAB_CHECK(atomic_load(&evil->conns) == 0, "evil server reached");
	LAB_CHECK(atomic_load(&good->bytes) == good_bytes, "bytes after an SNI mismatch: %llu",
		  (unsigned long long)(atomic_load(&good->bytes) - good_bytes));
	LAB_CHECK(!lab_dns_asked("evil.test") && !lab_dns_asked("localhost"),
		  "a refused name went upstream");

	json_t *recs[64];
	size_t n = lab_audit(&l, recs, 64);
	json_t *m = lab_find(recs, n, "sni-mismatch", "api.allowed.test");
	LAB_CHECK(m && strcmp(lab_str(m, "sni"), "evil.test") == 0 &&
			  strcmp(lab_str(m, "kind"), "proxy") == 0,
		  "sni-mismatch record");
	LAB_CHECK(lab_find(recs, n, "reserved-name", "localhost"), "reserved-name record");
	json_t *da = lab_find(recs, n, "denied-address", "loop.allowed.test");
	LAB_CHECK(da && strcmp(lab_str(da, "hint"), "--allow-net 127.0.0.1:443") == 0,
		  "denied-address hint %s", lab_str(da, "hint"));
	json_t *lit = lab_find(recs, n, "denied-address", NULL);
	LAB_CHECK(lit, "denied-address record");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy_front, http_connect)
{
	LAB_RUN(connect_child);
}

static int absolute_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 80, NULL);
	lab_dns_table = dns_front;
	lab_rule(&l, "www.allowed.test:80", POLICY_NET_ALLOW, POLICY_NET_SCOPE_PROXY);
	if (!good || lab_start(&l, NULL))
		return 2;

	int fd = lab_connect("127.0.0.1", 3128);
	static const char req[] = "POST http://www.allowed.test/path?q=1 HTTP/1.1\r\n"
				  "Host: www.allowed.test\r\nProxy-Authorization: Basic eA==\r\n"
				  "Proxy-Connection: keep-alive\r\nContent-Length: 4\r\n"
				  "Connection: keep-alive\r\n\r\nbody";
	static const char want[] = "POST /path?q=1 HTTP/1.1\r\nHost: www.allowed.test\r\n"
				   "Content-Length: 4\r\n\r\nbody";
	LAB_CHECK(lab_send(fd, req, sizeof(req) - 1), "send");
	char back[512];
	LAB_CHECK(lab_recv_n(fd, back, sizeof(want) - 1) && memcmp(back, want, sizeof(want) - 1) == 0,
		  "rewritten head: %.*s", (int)sizeof(want) - 1, back);
	/* kept alive: later requests on the connection are forwarded the same
	 * way, each head rewritten, the bytes between them as sent; one that
	 * names the same host in another spelling of its port too */
	static const char more[] = "GET http://www.allowed.test:80/two HTTP/1.1\r\n"
				   "Host: www.allowed.test:80\r\nProxy-Authorization: Basic eA==\r\n"
				   "Upgrade: websocket\r\nConnection: Upgrade, Close\r\n"
				   "Content-Length: 3\r\n\r\nabc"
				   "GET http://www.allowed.test?x=1 HTTP/1.1\r\n"
				   "Host: www.allowed.test\r\n\r\n";
	static const char want_more[] = "GET /two HTTP/1.1\r\nHost: www.allowed.test:80\r\n"
					"Content-Length: 3\r\nConnection: close\r\n\r\nabc"
					"GET /?x=1 HTTP/1.1\r\nHost: www.allowed.test\r\n\r\n";
	LAB_CHECK(lab_send(fd, more, sizeof(more) - 1), "send more");
	LAB_CHECK(lab_recv_n(fd, back, sizeof(want_more) - 1) &&
			  memcmp(back, want_more, sizeof(want_more) - 1) == 0,
		  "later heads: %.*s", (int)sizeof(want_more) - 1, back);
	/* a later request for another host ends the connection; nothing of it
	 * reaches the server */
	static const char other[] = "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	LAB_CHECK(lab_send(fd, other, sizeof(other) - 1), "send other");
	size_t got = lab_recv_all(fd, back, sizeof(back) - 1);
	LAB_CHECK(got == 0, "another host on a kept-alive connection: %zu bytes back", got);
	close(fd);

	fd = lab_connect("127.0.0.1", 3128);
	static const char no[] = "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	lab_send(fd, no, sizeof(no) - 1);
	size_t bl = lab_recv_all(fd, back, sizeof(back) - 1);
	back[bl] = '\0';
	LAB_CHECK(strncmp(back, "HTTP/1.1 403 Forbidden\r\n", 24) == 0 &&
			  strstr(back, "porta: refused evil.test:80 (no-rule); allow with --allow-net "
				       "evil.test:80\n"),
		  "403: %s", back);
	close(fd);
	/* a client vanishing mid-head */
	fd = lab_connect("127.0.0.1", 3128);
	lab_send(fd, "GET http://www.allo", 19);
	close(fd);
	/* the Host names another host than the target */
	fd = lab_connect("127.0.0.1", 3128);
	static const char two[] = "GET http://www.allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	lab_send(fd, two, sizeof(two) - 1);
	bl = lab_recv_all(fd, back, sizeof(back) - 1);
	back[bl] = '\0';
	LAB_CHECK(strncmp(back, "HTTP/1.1 400 ", 13) == 0, "mismatch: %s", back);
	close(fd);
	lab_sleep_ms(50);
	LAB_CHECK(atomic_load(&good->conns) == 1, "server conns %u", atomic_load(&good->conns));
	return lab_finish(&l);
}

Test(proxy_front, http_absolute_form)
{
	LAB_RUN(absolute_child);
}

/* ---- SOCKS5 ---- */

/* Greeting + request; returns the REP byte (or -1). */
static int socks_connect(int fd, uint8_t atyp, const void *addr, size_t alen, uint16_t port,
			 uint8_t cmd)
{
	uint8_t req[600];
	size_t n = 0;
	req[n++] = 5;
	req[n++] = 1;
	req[n++] = 0;
	req[n++] = 5;
	req[n++] = cmd;
	req[n++] = 0;
	req[n++] = atyp;
	if (atyp == 3)
		req[n++] = (uint8_t)alen;
	memcpy(req + n, addr, alen);
	n += alen;
	req[n++] = (uint8_t)(port >> 8);
	req[n++] = (uint8_t)port;
	if (!lab_send(fd, req, n))
		return -1;
	uint8_t m[2], rep[10];
	if (!lab_recv_n(fd, m, 2) || m[0] != 5 || m[1] != 0)
		return -1;
	if (!lab_recv_n(fd, rep, 10) || rep[0] != 5)
		return -1;
	return rep[1];
}

static int socks_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *good6 = lab_server_start("2001:db8::10", 443, NULL);
	struct lab_server *byip = lab_server_start("203.0.113.12", 443, NULL);
	struct lab_server *canary = lab_server_start("127.0.0.1", 443, NULL);
	lab_dns_table = dns_front;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "203.0.113.12:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "[2001:db8::10]:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	if (!good || !good6 || !byip || !canary || lab_start(&l, NULL))
		return 2;

	uint8_t hello[512], back[512];
	size_t hl = lab_hello(hello, "api.allowed.test");
	/* domain */
	int fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "api.allowed.test", 16, 443, 1) == 0, "domain connect");
	LAB_CHECK(lab_send(fd, hello, hl) && lab_recv_n(fd, back, hl) && memcmp(back, hello, hl) == 0,
		  "domain relay");
	close(fd);
	/* IPv4 by an IP rule (no SNI needed) */
	fd = lab_connect("127.0.0.1", 1080);
	uint8_t v4[4] = { 203, 0, 113, 12 };
	LAB_CHECK(socks_connect(fd, 1, v4, 4, 443, 1) == 0, "ipv4 connect");
	LAB_CHECK(lab_send(fd, "abc", 3) && lab_recv_n(fd, back, 3) && memcmp(back, "abc", 3) == 0,
		  "ipv4 relay");
	close(fd);
	/* IPv6 by an IP rule */
	fd = lab_connect("127.0.0.1", 1080);
	uint8_t v6[16];
	inet_pton(AF_INET6, "2001:db8::10", v6);
	LAB_CHECK(socks_connect(fd, 4, v6, 16, 443, 1) == 0, "ipv6 connect");
	LAB_CHECK(lab_send(fd, "abc", 3) && lab_recv_n(fd, back, 3) && memcmp(back, "abc", 3) == 0,
		  "ipv6 relay");
	close(fd);
	/* a domain resolving to IPv6 only */
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "v6.allowed.test", 15, 443, 1) == 0, "v6 name connect");
	close(fd);
	/* the first address refuses: the next one is dialled */
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "two.allowed.test", 16, 443, 1) == 0, "two-address connect");
	/* (not a prefix of an HTTP request line, which would be read as one) */
	LAB_CHECK(lab_send(fd, "xy\n", 3) && lab_recv_n(fd, back, 3) && memcmp(back, "xy\n", 3) == 0,
		  "two-address relay");
	close(fd);
	/* IPv4 loopback: refused 0x02 */
	fd = lab_connect("127.0.0.1", 1080);
	uint8_t lo[4] = { 127, 0, 0, 1 };
	LAB_CHECK(socks_connect(fd, 1, lo, 4, 443, 1) == 2, "loopback");
	close(fd);
	/* BIND and UDP ASSOCIATE: 0x07 */
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "api.allowed.test", 16, 443, 2) == 7, "bind");
	close(fd);
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "api.allowed.test", 16, 443, 3) == 7, "udp associate");
	close(fd);
	/* row 36: names carrying CR/LF or NUL, and a refused name */
	static const char *const bad[] = { "api.allowed.test\r\nHost: evil.test", "evil.test\0api.allowed.test",
					   "api.allowed.test\n" };
	static const size_t bad_len[] = { 33, 26, 17 };
	for (size_t i = 0; i < 3; i++) {
		fd = lab_connect("127.0.0.1", 1080);
		LAB_CHECK(socks_connect(fd, 3, bad[i], bad_len[i], 443, 1) == 2, "bad name %zu", i);
		close(fd);
	}
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "evil.test", 9, 443, 1) == 2, "refused name");
	close(fd);
	/* SOCKS then another SNI: refused after the reply */
	fd = lab_connect("127.0.0.1", 1080);
	LAB_CHECK(socks_connect(fd, 3, "api.allowed.test", 16, 443, 1) == 0, "connect");
	hl = lab_hello(hello, "evil.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "socks sni mismatch");
	close(fd);
	/* a client vanishing mid-greeting */
	fd = lab_connect("127.0.0.1", 1080);
	lab_send(fd, "\x05", 1);
	close(fd);

	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&canary->conns) == 0, "canary hit");
	json_t *recs[64];
	size_t n = lab_audit(&l, recs, 64);
	LAB_CHECK(lab_find(recs, n, "unsupported-command", NULL), "unsupported-command record");
	json_t *mn = lab_find(recs, n, "malformed-name", NULL);
	LAB_CHECK(mn && strcmp(lab_str(mn, "verdict"), "deny") == 0 &&
			  strcmp(lab_str(mn, "kind"), "proxy") == 0 &&
			  strcmp(lab_str(mn, "host"), "api.allowed.test\\x0d\\x0aHost: evil.test") == 0,
		  "malformed-name record: host %s", lab_str(mn, "host"));
	LAB_CHECK(lab_find(recs, n, "unsupported-command", NULL), "unsupported-command record");
	lab_free_recs(recs, n);
	char err[8192];
	lab_stderr(&l, err, sizeof(err));
	LAB_CHECK(!strchr(err, '\r'), "raw CR on stderr");
	LAB_CHECK(strstr(err, "porta: refused evil.test:443 (no rule); allow with --allow-net "
			      "evil.test:443\n"),
		  "stderr: %s", err);
	return lab_finish(&l);
}

Test(proxy_front, socks5)
{
	LAB_RUN(socks_child);
}
