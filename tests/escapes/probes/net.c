/*
 * Row 24: reach anything at all from --no-net.
 *
 * usage: net KIND HOST PORT [KIND HOST PORT...]
 *   tcp  HOST PORT   connect and send a line (IPv4 or IPv6 literal)
 *   udp  HOST PORT   send one DNS query for probe.escape.test
 *   icmp HOST TOKEN  one ICMP echo request carrying TOKEN (ping socket, else raw)
 *
 * The runner owns every destination: a TCP listener and a UDP resolver on
 * the host's loopback, a listener on a TEST-NET address inside a network
 * namespace it made itself, that namespace's ICMP counters, and a raw
 * socket on the host that looks for TOKEN in echo requests. Evidence is
 * what those saw, not what this probe says. Control: outside the sandbox
 * each destination is reached. Nothing here ever leaves the machine.
 */
#include "probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>

static int parse(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof *sin;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof *sin6;
		return AF_INET6;
	}
	return -1;
}

static int wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	return poll(&p, 1, ms);
}

static void do_tcp(const char *name, const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int fam = parse(host, port, &ss, &len);
	int s = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		probe_fail(name, errno);
		return;
	}
	int rc = connect(s, (struct sockaddr *)&ss, len);
	if (rc < 0 && errno == EINPROGRESS) {
		if (wait_fd(s, POLLOUT, 3000) <= 0) {
			probe_fail(name, ETIMEDOUT);
			close(s);
			return;
		}
		int err = 0;
		socklen_t el = sizeof err;
		getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el);
		rc = err ? -1 : 0;
		errno = err;
	}
	if (rc == 0)
		(void)!write(s, "hello from probe\n", 17);
	probe_report(name, rc, errno);
	close(s);
}

static void do_udp(const char *name, const char *host, int port)
{
	static const unsigned char query[] = {
		0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		5, 'p', 'r', 'o', 'b', 'e', 6, 'e', 's', 'c', 'a', 'p', 'e', 4, 't', 'e', 's', 't', 0,
		0x00, 0x01, 0x00, 0x01,
	};
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int fam = parse(host, port, &ss, &len);
	int s = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		probe_fail(name, errno);
		return;
	}
	if (sendto(s, query, sizeof query, 0, (struct sockaddr *)&ss, len) < 0) {
		probe_fail(name, errno);
		close(s);
		return;
	}
	unsigned char reply[512];
	if (wait_fd(s, POLLIN, 2000) <= 0) {
		probe_fail(name, ETIMEDOUT);
	} else {
		ssize_t n = recv(s, reply, sizeof reply, 0);
		probe_report(name, n, errno);
	}
	close(s);
}

static uint16_t checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static void do_icmp(const char *name, const char *host, const char *token)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	if (parse(host, 0, &ss, &len) != AF_INET) {
		probe_fail(name, EAFNOSUPPORT);
		return;
	}
	/* Ping sockets need net.ipv4.ping_group_range; raw needs CAP_NET_RAW. */
	int raw = 0;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (s < 0) {
		raw = 1;
		s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	}
	if (s < 0) {
		probe_fail(name, errno);
		return;
	}
	struct {
		struct icmphdr h;
		char token[64];
	} pkt;
	memset(&pkt, 0, sizeof pkt);
	pkt.h.type = ICMP_ECHO;
	pkt.h.un.echo.id = htons(0x5057);
	pkt.h.un.echo.sequence = htons(1);
	size_t tlen = strnlen(token, sizeof pkt.token);
	memcpy(pkt.token, token, tlen);
	size_t plen = sizeof pkt.h + tlen;
	pkt.h.checksum = checksum(&pkt, plen);
	if (sendto(s, &pkt, plen, 0, (struct sockaddr *)&ss, len) < 0) {
		probe_fail(name, errno);
		close(s);
		return;
	}
	char reply[1500];
	if (wait_fd(s, POLLIN, 2000) <= 0)
		probe_fail(name, ETIMEDOUT);
	else
		PROBE_TRY(name, recv(s, reply, sizeof reply, 0));
	dprintf(STDOUT_FILENO, "INFO %s via %s socket\n", name, raw ? "raw" : "ping");
	close(s);
}

int main(int argc, char **argv)
{
	probe_started();
	for (int i = 1; i + 2 < argc; i += 3) {
		char name[160];
		snprintf(name, sizeof name, "%s:%s:%s", argv[i], argv[i + 1], argv[i + 2]);
		if (strcmp(argv[i], "tcp") == 0)
			do_tcp(name, argv[i + 1], atoi(argv[i + 2]));
		else if (strcmp(argv[i], "udp") == 0)
			do_udp(name, argv[i + 1], atoi(argv[i + 2]));
		else if (strcmp(argv[i], "icmp") == 0)
			do_icmp(name, argv[i + 1], argv[i + 2]);
		else
			dprintf(STDOUT_FILENO, "RESULT %s fail EINVAL\n", name);
	}
	return 0;
}
