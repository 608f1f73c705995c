/* tests/unit/netproxy/test_proxy.c: the transparent path for real, in the
 * test's own small internet (proxy_lab.h): a program in the "sandbox"
 * namespace dials public-looking addresses, porta's listeners there take
 * the connection, and porta dials fake servers in the "host" namespace.
 * Escape corpus rows 25 (the DNS map), 28 (a name resolving to loopback),
 * 30 (SNI allowed, dialled address evil), 32 (no SNI, no Host, two Hosts);
 * interruptions; the audit lines and the stderr lines. */
#include <criterion/criterion.h>
#include <netinet/tcp.h>
#include <sys/stat.h>

#include "proxy_lab.h"

static void map_add(struct lab *l, const char *name, const char *ip)
{
	struct policy_addr a;
	policy_addr_parse(ip, strlen(ip), &a);
	dnsd_namemap_add(l->map, name, &a, 300, dnsd_clock_ms());
}

/* A ClientHello, then payload; the echo server sends all of it back. */
static bool tls_roundtrip(int fd, const char *sni, const char *payload)
{
	uint8_t hello[1024], back[1024 + 256];
	size_t hl = lab_hello(hello, sni);
	size_t pl = strlen(payload);
	memcpy(hello + hl, payload, pl);
	if (!lab_send(fd, hello, hl + pl))
		return false;
	return lab_recv_n(fd, back, hl + pl) && memcmp(back, hello, hl + pl) == 0;
}

/* ---- TLS: allowed SNI reaches the server, another is refused ---------- */

static const struct lab_dns_entry dns_basic[] = {
	{ "api.allowed.test", { "203.0.113.10", NULL } },
	{ "rebind.allowed.test", { "127.0.0.1", "::1", NULL } },
	{ NULL, { NULL } },
};

static int tls_sni_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *other = lab_server_start("203.0.113.11", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	if (!good || !other || lab_start(&l, NULL))
		return 2;

	/* allowed: bytes intact both ways, a large payload too */
	int fd = lab_connect("203.0.113.10", 443);
	LAB_CHECK(fd >= 0, "connect: %s", strerror(errno));
	LAB_CHECK(tls_roundtrip(fd, "API.Allowed.Test.", "ping"), "roundtrip");
	static uint8_t big[256 * 1024], back[256 * 1024];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 3);
	LAB_CHECK(lab_send(fd, big, sizeof(big)), "send big");
	LAB_CHECK(lab_recv_n(fd, back, sizeof(back)) && memcmp(big, back, sizeof(big)) == 0,
		  "big echo");
	close(fd);

	/* the hello in small TCP segments, the way a slow client sends it */
	fd = lab_connect("203.0.113.10", 443);
	{
		uint8_t h[512], back2[512];
		size_t hl2 = lab_hello(h, "api.allowed.test");
		int nodelay = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof(nodelay));
		for (size_t off = 0; off < hl2; off += 9) {
			lab_send(fd, h + off, hl2 - off < 9 ? hl2 - off : 9);
			lab_sleep_ms(3);
		}
		LAB_CHECK(lab_recv_n(fd, back2, hl2) && memcmp(back2, h, hl2) == 0,
			  "segmented hello");
	}
	close(fd);

	/* another SNI: refused, and that server sees nothing, twice */
	for (int i = 0; i < 2; i++) {
		fd = lab_connect("203.0.113.11", 443);
		uint8_t hello[512];
		size_t hl = lab_hello(hello, "evil.test");
		LAB_CHECK(lab_send(fd, hello, hl), "send");
		LAB_CHECK(lab_refused(fd), "not refused");
		close(fd);
	}
	/* a name resolving to loopback (row 28): refused, no canary hit */
	fd = lab_connect("203.0.113.11", 443);
	uint8_t hello[512];
	size_t hl = lab_hello(hello, "rebind.allowed.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "rebind not refused");
	close(fd);

	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&other->conns) == 0 && atomic_load(&other->bytes) == 0,
		  "the refused server saw %u connections", atomic_load(&other->conns));
	LAB_CHECK(!lab_dns_asked("api.allowed.test"), "the map path asked DNS");
	LAB_CHECK(!lab_dns_asked("evil.test"), "a refused name went upstream");

	char err[8192];
	lab_stderr(&l, err, sizeof(err));
	LAB_CHECK(lab_count_substr(err, "porta: refused evil.test:443 (no rule); allow with "
					"--allow-net evil.test:443\n") == 1,
		  "stderr: %s", err);
	LAB_CHECK(strstr(err, "porta: refused rebind.allowed.test:443 (denied address); allow with "
			      "--allow-net 127.0.0.1:443\n"),
		  "stderr: %s", err);

	rc = 0;
	int status = lab_finish(&l);
	(void)rc;
	return status;
}

Test(proxy, transparent_tls_sni)
{
	LAB_RUN(tls_sni_child);
}

/* The audit lines of the scenario above, read back before the files go. */
static int audit_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	if (!good || lab_start(&l, NULL))
		return 2;
	int fd = lab_connect("203.0.113.10", 443);
	LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "0123456789"), "roundtrip");
	close(fd);
	fd = lab_connect("203.0.113.11", 443);
	uint8_t hello[512];
	size_t hl = lab_hello(hello, "evil\x01.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "malformed name not refused");
	close(fd);
	fd = lab_connect("203.0.113.12", 443);
	hl = lab_hello(hello, "evil.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "not refused");
	close(fd);
	lab_sleep_ms(200); /* the close record */

	json_t *recs[32];
	size_t n = lab_audit(&l, recs, 32);
	json_t *allow = NULL, *closing = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(lab_str(recs[i], "verdict"), "allow") != 0)
			continue;
		if (json_object_get(recs[i], "bytes_up"))
			closing = recs[i];
		else
			allow = recs[i];
	}
	LAB_CHECK(allow, "no allow record");
	LAB_CHECK(strcmp(lab_str(allow, "kind"), "connect") == 0, "kind %s", lab_str(allow, "kind"));
	LAB_CHECK(strcmp(lab_str(allow, "dst"), "203.0.113.10:443") == 0, "dst %s",
		  lab_str(allow, "dst"));
	LAB_CHECK(strcmp(lab_str(allow, "host"), "api.allowed.test") == 0, "host");
	LAB_CHECK(strcmp(lab_str(allow, "sni"), "api.allowed.test") == 0, "sni");
	LAB_CHECK(strcmp(lab_str(allow, "rule"), "api.allowed.test:443") == 0, "rule %s",
		  lab_str(allow, "rule"));
	LAB_CHECK(json_is_null(json_object_get(allow, "hint")), "hint on an allow");
	LAB_CHECK(!json_object_get(allow, "pid") && !json_object_get(allow, "comm"),
		  "pid/comm without an owner_fn to name them");
	LAB_CHECK(closing, "no close record");
	if (closing) {
		hl = lab_hello(hello, "api.allowed.test");
		LAB_CHECK(json_integer_value(json_object_get(closing, "bytes_up")) ==
				  (json_int_t)(hl + 10),
			  "bytes_up %lld", json_integer_value(json_object_get(closing, "bytes_up")));
		LAB_CHECK(json_integer_value(json_object_get(closing, "bytes_down")) ==
				  (json_int_t)(hl + 10),
			  "bytes_down");
		LAB_CHECK(json_object_get(closing, "duration_ms"), "duration_ms");
		LAB_CHECK(json_integer_value(json_object_get(closing, "seq")) >
				  json_integer_value(json_object_get(allow, "seq")),
			  "seq");
	}
	json_t *bad = lab_find(recs, n, "malformed-name", NULL);
	LAB_CHECK(bad, "no malformed-name record");
	LAB_CHECK(strcmp(lab_str(bad, "sni"), "evil\\x01.test") == 0, "sni escaped: %s",
		  lab_str(bad, "sni"));
	LAB_CHECK(strcmp(lab_str(bad, "verdict"), "deny") == 0, "verdict");
	json_t *no = lab_find(recs, n, "no-rule", "evil.test");
	LAB_CHECK(no, "no no-rule record");
	LAB_CHECK(strcmp(lab_str(no, "hint"), "--allow-net evil.test:443") == 0, "hint %s",
		  lab_str(no, "hint"));
	LAB_CHECK(json_is_null(json_object_get(no, "rule")), "rule on no-rule");
	LAB_CHECK(strcmp(lab_str(no, "dst"), "203.0.113.12:443") == 0, "dst");
	lab_free_recs(recs, n);

	char err[8192];
	lab_stderr(&l, err, sizeof(err));
	LAB_CHECK(strstr(err, "porta: refused evil\\x01.test:443 (malformed name)\n"), "stderr: %s",
		  err);
	return lab_finish(&l);
}

Test(proxy, audit_records)
{
	LAB_RUN(audit_child);
}

/* A stand-in for the supervisor's owner lookup (supervisor/owner.h): counts
 * the calls and remembers what it was asked. */
static atomic_uint owner_calls;
static atomic_int owner_proto;
static atomic_uint owner_peer_port, owner_local_port;

static uint16_t sa_port(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET ? ((const struct sockaddr_in *)sa)->sin_port
					      : ((const struct sockaddr_in6 *)sa)->sin6_port);
}

static bool owner_stub(void *arg, int protocol, const struct sockaddr *peer, socklen_t peer_len,
		       const struct sockaddr *local, socklen_t local_len, struct decision_owner *out)
{
	(void)peer_len;
	(void)local_len;
	atomic_fetch_add(&owner_calls, 1);
	atomic_store(&owner_proto, protocol);
	atomic_store(&owner_peer_port, sa_port(peer));
	atomic_store(&owner_local_port, sa_port(local));
	out->pid = 4242;
	snprintf(out->comm, sizeof(out->comm), "%s", (const char *)arg);
	return true;
}

/* With an owner_fn, every record of a connection (allow, close, refusal,
 * transparent and through the HTTP proxy) names what it answered, and it
 * is asked once per connection, about the program's end. */
static int owner_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	struct lab_opts o = { .owner_fn = owner_stub, .owner_arg = "prog\nname" };
	if (!good || lab_start(&l, &o))
		return 2;
	int fd = lab_connect("203.0.113.10", 443);
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	getsockname(fd, (struct sockaddr *)&me, &ml);
	LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "0123456789"), "roundtrip");
	close(fd);
	LAB_CHECK(atomic_load(&owner_calls) == 1, "asked %u times", atomic_load(&owner_calls));
	LAB_CHECK(atomic_load(&owner_proto) == IPPROTO_TCP, "protocol");
	LAB_CHECK(atomic_load(&owner_peer_port) == sa_port((struct sockaddr *)&me),
		  "asked about port %u, the program's is %u", atomic_load(&owner_peer_port),
		  sa_port((struct sockaddr *)&me));
	LAB_CHECK(atomic_load(&owner_local_port) == 443, "local port %u",
		  atomic_load(&owner_local_port));
	fd = lab_connect("127.0.0.1", 3128);
	const char req[] = "CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n";
	lab_send(fd, req, sizeof(req) - 1);
	char resp[512];
	lab_recv_all(fd, resp, sizeof(resp));
	close(fd);
	lab_sleep_ms(200); /* the close record */
	LAB_CHECK(atomic_load(&owner_calls) == 2, "asked %u times", atomic_load(&owner_calls));

	json_t *recs[32];
	size_t n = lab_audit(&l, recs, 32);
	LAB_CHECK(n == 3, "%zu records", n);
	for (size_t i = 0; i < n; i++) {
		LAB_CHECK(json_integer_value(json_object_get(recs[i], "pid")) == 4242, "pid in %s",
			  lab_str(recs[i], "reason"));
		LAB_CHECK(strcmp(lab_str(recs[i], "comm"), "prog\\x0aname") == 0, "comm %s (escaped)",
			  lab_str(recs[i], "comm"));
	}
	LAB_CHECK(lab_find(recs, n, "no-rule", "evil.test"), "no refusal through the proxy");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, owner_names_every_record)
{
	LAB_RUN(owner_child);
}

/* ---- row 30: SNI allowed, dialled address evil ------------------------- */

static int row30_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *evil = lab_server_start("203.0.113.66", 443, NULL);
	struct lab_server *canary = lab_server_start("127.0.0.1", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	/* porta's resolver handed 203.0.113.66 out, but for another name */
	map_add(&l, "other.allowed.test", "203.0.113.66");
	if (!good || !evil || !canary || lab_start(&l, NULL))
		return 2;

	int fd = lab_connect("203.0.113.66", 443);
	LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "hello"), "roundtrip via the real address");
	close(fd);
	/* a loopback address dialled with an allowed SNI (row 29 transparently) */
	fd = lab_connect("127.0.0.1", 443);
	uint8_t hello[512];
	size_t hl = lab_hello(hello, "api.allowed.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "loopback dial not refused");
	close(fd);
	/* rebinding: the allowed name resolves to loopback */
	fd = lab_connect("203.0.113.66", 443);
	hl = lab_hello(hello, "rebind.allowed.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "rebind not refused");
	close(fd);
	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&evil->conns) == 0 && atomic_load(&evil->bytes) == 0,
		  "the evil server saw %u connections, %llu bytes", atomic_load(&evil->conns),
		  (unsigned long long)atomic_load(&evil->bytes));
	LAB_CHECK(atomic_load(&canary->conns) == 0, "canary hit");
	LAB_CHECK(atomic_load(&good->conns) == 1, "good server conns %u",
		  atomic_load(&good->conns));
	LAB_CHECK(lab_dns_asked("api.allowed.test"), "the allowed name was not resolved");

	json_t *recs[16];
	size_t n = lab_audit(&l, recs, 16);
	json_t *a = lab_find(recs, n, "allow", "api.allowed.test");
	LAB_CHECK(a && strcmp(lab_str(a, "dst"), "203.0.113.66:443") == 0 &&
			  strcmp(lab_str(a, "upstream"), "203.0.113.10:443") == 0,
		  "allow record dst %s upstream %s", lab_str(a, "dst"), lab_str(a, "upstream"));
	json_t *d = lab_find(recs, n, "denied-address", "rebind.allowed.test");
	LAB_CHECK(d, "no denied-address record for the rebinding name");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, sni_allowed_dialled_evil)
{
	LAB_RUN(row30_child);
}

/* Three connections to one allowed name, decided by name: the upstream is
 * asked once per family (its TTL is 60 s; "no AAAA" is kept 20 s), and
 * every connection still reaches the server. */
static int kept_answers_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	if (!good || lab_start(&l, NULL))
		return 2;
	for (int i = 0; i < 3; i++) {
		int fd = lab_connect("203.0.113.66", 443);
		LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "hello"), "roundtrip %d", i);
		close(fd);
	}
	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&good->conns) == 3, "good server conns %u", atomic_load(&good->conns));
	LAB_CHECK(lab_dns_count("api.allowed.test") == 2, "the upstream was asked %u times",
		  lab_dns_count("api.allowed.test"));
	return lab_finish(&l);
}

Test(proxy, answers_kept_for_their_ttl)
{
	LAB_RUN(kept_answers_child);
}

/* ---- row 32: HTTP Host allowed / not / missing / duplicated; no SNI ---- */

static int refused_after(const char *ip, uint16_t port, const char *bytes, size_t n)
{
	int fd = lab_connect(ip, port);
	if (fd < 0)
		return 0;
	lab_send(fd, bytes, n);
	int r = lab_refused(fd);
	close(fd);
	return r;
}

static int http_host_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 80, NULL);
	struct lab_server *evil = lab_server_start("203.0.113.66", 80, NULL);
	struct lab_server *tls = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "www.allowed.test:80", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "www.allowed.test", "203.0.113.10");
	map_add(&l, "api.allowed.test", "203.0.113.10");
	if (!good || !evil || !tls || lab_start(&l, NULL))
		return 2;

	static const char ok[] = "GET / HTTP/1.1\r\nHost: www.allowed.test\r\n\r\n";
	int fd = lab_connect("203.0.113.10", 80);
	char back[256];
	LAB_CHECK(lab_send(fd, ok, sizeof(ok) - 1), "send");
	LAB_CHECK(lab_recv_n(fd, back, sizeof(ok) - 1) && memcmp(back, ok, sizeof(ok) - 1) == 0,
		  "http echo");
	close(fd);
	unsigned long long good_bytes = atomic_load(&good->bytes);

	static const char evil_host[] = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	static const char no_host[] = "GET / HTTP/1.1\r\nUser-Agent: x\r\n\r\n";
	static const char two_hosts[] =
		"GET / HTTP/1.1\r\nHost: www.allowed.test\r\nHost: evil.test\r\n\r\n";
	static const char mismatch[] =
		"GET http://evil.test/ HTTP/1.1\r\nHost: www.allowed.test\r\n\r\n";
	LAB_CHECK(refused_after("203.0.113.66", 80, evil_host, sizeof(evil_host) - 1), "evil host");
	LAB_CHECK(refused_after("203.0.113.10", 80, no_host, sizeof(no_host) - 1), "no host");
	LAB_CHECK(refused_after("203.0.113.10", 80, two_hosts, sizeof(two_hosts) - 1), "two hosts");
	LAB_CHECK(refused_after("203.0.113.10", 80, mismatch, sizeof(mismatch) - 1), "mismatch");
	/* TLS without SNI to an address porta handed out for an allowed name */
	uint8_t hello[512];
	size_t hl = lab_hello(hello, NULL);
	LAB_CHECK(refused_after("203.0.113.10", 443, (const char *)hello, hl), "no sni");
	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&evil->conns) == 0, "evil server reached");
	LAB_CHECK(atomic_load(&good->bytes) == good_bytes, "refused bytes reached the server");
	LAB_CHECK(atomic_load(&tls->conns) == 0, "no-SNI hello reached the server");

	json_t *recs[16];
	size_t n = lab_audit(&l, recs, 16);
	LAB_CHECK(lab_find(recs, n, "no-host", NULL), "no-host record");
	LAB_CHECK(lab_find(recs, n, "duplicate-host", NULL), "duplicate-host record");
	LAB_CHECK(lab_find(recs, n, "host-mismatch", NULL), "host-mismatch record");
	json_t *ns = lab_find(recs, n, "no-sni", NULL);
	LAB_CHECK(ns && strcmp(lab_str(ns, "hint"), "--allow-net 203.0.113.10:443") == 0,
		  "no-sni hint %s", lab_str(ns, "hint"));
	LAB_CHECK(lab_find(recs, n, "no-rule", "evil.test"), "no-rule record");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, http_host_and_no_sni)
{
	LAB_RUN(http_host_child);
}

/* ---- the DNS map for a protocol that is neither TLS nor HTTP ----------- */

static int dns_map_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *ssh = lab_server_start("203.0.113.20", 22, "SSH-2.0-fake\r\n");
	struct lab_server *other = lab_server_start("203.0.113.21", 22, "SSH-2.0-other\r\n");
	struct lab_server *byip = lab_server_start("203.0.113.22", 22, "SSH-2.0-byip\r\n");
	lab_dns_table = dns_basic;
	lab_rule(&l, "ssh.allowed.test:22", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "203.0.113.22:22", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "ssh.allowed.test", "203.0.113.20");
	if (!ssh || !other || !byip || lab_start(&l, NULL))
		return 2;

	/* the server speaks first: after the quiet wait, decided on the map */
	int fd = lab_connect("203.0.113.20", 22);
	char buf[64];
	LAB_CHECK(lab_recv_n(fd, buf, 14) && memcmp(buf, "SSH-2.0-fake\r\n", 14) == 0,
		  "no greeting through the map path");
	LAB_CHECK(lab_send(fd, "\x00\x01\x02", 3) && lab_recv_n(fd, buf, 3) &&
			  memcmp(buf, "\x00\x01\x02", 3) == 0,
		  "echo");
	close(fd);
	/* the client speaks first with something binary: decided at once */
	fd = lab_connect("203.0.113.20", 22);
	LAB_CHECK(lab_send(fd, "\x00\x00\x00\x10xyz", 7), "send");
	LAB_CHECK(lab_recv_n(fd, buf, 14) && memcmp(buf, "SSH-2.0-fake\r\n", 14) == 0, "greeting");
	close(fd);
	/* an explicit IP rule */
	fd = lab_connect("203.0.113.22", 22);
	LAB_CHECK(lab_recv_n(fd, buf, 14) && memcmp(buf, "SSH-2.0-byip\r\n", 14) == 0, "by ip");
	close(fd);
	/* an address porta never handed out */
	fd = lab_connect("203.0.113.21", 22);
	LAB_CHECK(lab_refused(fd), "unmapped address not refused");
	close(fd);
	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&other->conns) == 0, "unmapped server reached");

	json_t *recs[16];
	size_t n = lab_audit(&l, recs, 16);
	json_t *a = lab_find(recs, n, "allow", "ssh.allowed.test");
	LAB_CHECK(a && strcmp(lab_str(a, "rule"), "ssh.allowed.test:22") == 0 &&
			  json_is_null(json_object_get(a, "sni")),
		  "map allow record");
	json_t *r = lab_find(recs, n, "no-rule", NULL);
	LAB_CHECK(r && strcmp(lab_str(r, "hint"), "--allow-net 203.0.113.21:22") == 0 &&
			  json_is_null(json_object_get(r, "host")),
		  "refusal hint %s", lab_str(r, "hint"));
	lab_free_recs(recs, n);
	char err[4096];
	lab_stderr(&l, err, sizeof(err));
	LAB_CHECK(strstr(err, "porta: refused 203.0.113.21:22 (no rule); allow with --allow-net "
			      "203.0.113.21:22\n"),
		  "stderr: %s", err);
	return lab_finish(&l);
}

Test(proxy, dns_map_path)
{
	LAB_RUN(dns_map_child);
}

/* ---- interruptions --------------------------------------------------- */

static int interrupt_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *rst = lab_server_start("203.0.113.30", 443, NULL);
	rst->reset_after_first = true;
	/* an upstream that never accepts: a backlog of one, filled */
	int stuck = lab_listen("203.0.113.40", 443);
	listen(stuck, 0);
	int fill[4];
	for (int i = 0; i < 4; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		struct sockaddr_storage ss;
		socklen_t sl = lab_sa("203.0.113.40", 443, &ss);
		connect(fill[i], (struct sockaddr *)&ss, sl);
	}
	lab_dns_table = dns_basic;
	lab_rule(&l, "*.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	map_add(&l, "rst.allowed.test", "203.0.113.30");
	map_add(&l, "stuck.allowed.test", "203.0.113.40");
	struct lab_opts o = { .limits = { .dial_timeout_ms = 300, .sniff_timeout_ms = 400 } };
	if (!good || !rst || stuck < 0 || lab_start(&l, &o))
		return 2;

	uint8_t hello[512];
	size_t hl = lab_hello(hello, "api.allowed.test");
	/* a client vanishing mid-handshake, at every cut of the hello */
	for (size_t cut = 1; cut < hl; cut += 7) {
		int fd = lab_connect("203.0.113.10", 443);
		lab_send(fd, hello, cut);
		close(fd);
	}
	/* ... and one that resets */
	int fd = lab_connect("203.0.113.10", 443);
	lab_send(fd, hello, 20);
	struct linger lg = { 1, 0 };
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	/* a client that stalls mid-hello: the sniff deadline */
	fd = lab_connect("203.0.113.10", 443);
	lab_send(fd, hello, 30);
	uint64_t t0 = lab_ms();
	LAB_CHECK(lab_refused(fd), "stalled hello not refused");
	LAB_CHECK(lab_ms() - t0 < 2000, "sniff deadline took %llu ms",
		  (unsigned long long)(lab_ms() - t0));
	close(fd);
	/* the upstream never accepts: the dial times out */
	fd = lab_connect("203.0.113.40", 443);
	hl = lab_hello(hello, "stuck.allowed.test");
	lab_send(fd, hello, hl);
	t0 = lab_ms();
	LAB_CHECK(lab_refused(fd), "stuck dial not refused");
	LAB_CHECK(lab_ms() - t0 < 2000, "dial timeout took %llu ms",
		  (unsigned long long)(lab_ms() - t0));
	close(fd);
	/* the upstream resets mid-transfer */
	fd = lab_connect("203.0.113.30", 443);
	hl = lab_hello(hello, "rst.allowed.test");
	lab_send(fd, hello, hl);
	char b[64];
	LAB_CHECK(lab_recv_all(fd, b, sizeof(b)) == 0, "data after the reset");
	close(fd);
	/* and the proxy still serves */
	fd = lab_connect("203.0.113.10", 443);
	LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "still"), "still serving");
	close(fd);
	lab_sleep_ms(200);

	json_t *recs[64];
	size_t n = lab_audit(&l, recs, 64);
	LAB_CHECK(lab_find(recs, n, "sniff-timeout", NULL), "sniff-timeout record");
	json_t *d = lab_find(recs, n, "dial-failed", "stuck.allowed.test");
	LAB_CHECK(d && strcmp(lab_str(d, "verdict"), "error") == 0, "dial-failed record");
	LAB_CHECK(lab_find(recs, n, "reset", "rst.allowed.test"), "reset close record");
	lab_free_recs(recs, n);
	for (int i = 0; i < 4; i++)
		close(fill[i]);
	close(stuck);
	l.fds_before -= 5; /* they were open when the lab counted */
	return lab_finish(&l);
}

Test(proxy, interruptions)
{
	LAB_RUN(interrupt_child);
}

/* ---- a client that waits past the quiet wait is still checked --------- */

static int delayed_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	struct lab_server *web = lab_server_start("203.0.113.10", 80, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	lab_rule(&l, "api.allowed.test:80", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	struct lab_opts o = { .limits = { .quiet_ms = 100 } };
	if (!good || !web || lab_start(&l, &o))
		return 2;
	uint8_t hello[512];
	/* the allowed SNI after the wait: relayed */
	int fd = lab_connect("203.0.113.10", 443);
	lab_sleep_ms(300);
	LAB_CHECK(tls_roundtrip(fd, "api.allowed.test", "late"), "late allowed hello");
	close(fd);
	lab_sleep_ms(50);
	unsigned long long before = atomic_load(&good->bytes);
	/* another SNI after the wait (domain fronting by delay): refused */
	fd = lab_connect("203.0.113.10", 443);
	lab_sleep_ms(300);
	size_t hl = lab_hello(hello, "evil.test");
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "late evil SNI not refused");
	close(fd);
	/* no SNI after the wait */
	fd = lab_connect("203.0.113.10", 443);
	lab_sleep_ms(300);
	hl = lab_hello(hello, NULL);
	lab_send(fd, hello, hl);
	LAB_CHECK(lab_refused(fd), "late hello without SNI not refused");
	close(fd);
	/* another Host after the wait */
	fd = lab_connect("203.0.113.10", 80);
	lab_sleep_ms(300);
	static const char req[] = "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	lab_send(fd, req, sizeof(req) - 1);
	LAB_CHECK(lab_refused(fd), "late evil Host not refused");
	close(fd);
	lab_sleep_ms(100);
	LAB_CHECK(atomic_load(&good->bytes) == before, "bytes reached the server: %llu",
		  (unsigned long long)(atomic_load(&good->bytes) - before));
	LAB_CHECK(atomic_load(&web->bytes) == 0, "bytes reached the web server");
	json_t *recs[32];
	size_t n = lab_audit(&l, recs, 32);
	json_t *m = lab_find(recs, n, "sni-mismatch", "api.allowed.test");
	LAB_CHECK(m && strcmp(lab_str(m, "sni"), "evil.test") == 0, "sni-mismatch record");
	LAB_CHECK(lab_find(recs, n, "host-mismatch", NULL), "host-mismatch record");
	LAB_CHECK(lab_find(recs, n, "no-sni", NULL), "no-sni record");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, delayed_client_still_checked)
{
	LAB_RUN(delayed_child);
}

/* ---- the connection limit: the one over it is reset, the rest served --- */

static int limit_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	struct lab_opts o = { .limits = { .max_connections = 2, .quiet_ms = 3000,
					  .sniff_timeout_ms = 4000 } };
	if (!good || lab_start(&l, &o))
		return 2;
	int a = lab_connect("203.0.113.10", 443), b = lab_connect("203.0.113.10", 443);
	lab_sleep_ms(100);
	int c = lab_connect("203.0.113.10", 443);
	uint64_t t0 = lab_ms();
	LAB_CHECK(c < 0 || lab_refused(c), "over the limit not refused");
	LAB_CHECK(lab_ms() - t0 < 1000, "limit refusal took %llu ms",
		  (unsigned long long)(lab_ms() - t0));
	if (c >= 0)
		close(c);
	close(a);
	close(b);
	lab_sleep_ms(100);
	int d = lab_connect("203.0.113.10", 443);
	LAB_CHECK(tls_roundtrip(d, "api.allowed.test", "after"), "served after the limit");
	close(d);
	lab_sleep_ms(100);
	json_t *recs[16];
	size_t n = lab_audit(&l, recs, 16);
	json_t *lim = lab_find(recs, n, "limit", NULL);
	LAB_CHECK(lim && strcmp(lab_str(lim, "verdict"), "error") == 0 &&
			  strcmp(lab_str(lim, "dst"), "203.0.113.10:443") == 0,
		  "limit record");
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, connection_limit)
{
	LAB_RUN(limit_child);
}

/* ---- 1000 concurrent connections --------------------------------------- */

#define N_CONC 1000

static int concurrent_child(void)
{
	struct lab l;
	int rc = lab_enter(&l);
	if (rc)
		return rc;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < 10 * N_CONC)
		return 77;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	struct lab_server *good = lab_server_start("203.0.113.10", 443, NULL);
	lab_dns_table = dns_basic;
	lab_rule(&l, "api.allowed.test:443", POLICY_NET_ALLOW, POLICY_NET_SCOPE_ALL);
	map_add(&l, "api.allowed.test", "203.0.113.10");
	if (!good || lab_start(&l, NULL))
		return 2;

	static int fds[N_CONC];
	uint8_t hello[512], back[512];
	size_t hl = lab_hello(hello, "api.allowed.test");
	for (int i = 0; i < N_CONC; i++) {
		fds[i] = lab_connect("203.0.113.10", 443);
		LAB_CHECK(fds[i] >= 0, "connect %d: %s", i, strerror(errno));
	}
	for (int i = 0; i < N_CONC; i++)
		LAB_CHECK(fds[i] < 0 || lab_send(fds[i], hello, hl), "send %d", i);
	int ok = 0;
	for (int i = 0; i < N_CONC; i++)
		if (fds[i] >= 0 && lab_recv_n(fds[i], back, hl) && memcmp(back, hello, hl) == 0)
			ok++;
	LAB_CHECK(ok == N_CONC, "%d of %d echoed", ok, N_CONC);
	LAB_CHECK(atomic_load(&good->conns) == N_CONC, "server conns %u",
		  atomic_load(&good->conns));
	for (int i = 0; i < N_CONC; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* wait for every close record */
	static json_t *recs[2 * N_CONC + 8];
	size_t n = 0, closes = 0;
	for (int t = 0; t < 100; t++) {
		lab_sleep_ms(50);
		lab_free_recs(recs, n);
		n = lab_audit(&l, recs, 2 * N_CONC + 8);
		closes = 0;
		for (size_t i = 0; i < n; i++)
			closes += json_object_get(recs[i], "bytes_up") != NULL;
		if (closes == N_CONC)
			break;
	}
	LAB_CHECK(n == 2 * N_CONC && closes == N_CONC, "%zu records, %zu closes", n, closes);
	lab_free_recs(recs, n);
	return lab_finish(&l);
}

Test(proxy, concurrent_1000, .timeout = 60)
{
	LAB_RUN(concurrent_child);
}

/* ---- without a log ------------------------------------------------------ */

/* The decisions' records are decision/log.h's (tests/unit/decision); a proxy
 * without a log serves and records nothing. */
Test(proxy, create_without_log)
{
	struct event_base *base = event_base_new();
	struct proxy_config cfg = { .base = base, .http_fd = -1, .socks_fd = -1 };
	struct proxy *p;
	cr_assert_eq(proxy_create(&cfg, &p), 0);
	cr_expect_eq(proxy_connections(p), 0);
	proxy_destroy(p);
	proxy_destroy(NULL);
	event_base_free(base);
}
