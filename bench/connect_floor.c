/* bench/connect_floor.c: the simplest HTTP CONNECT proxy, the floor bench/npm
 * measures porta's proxy against (compiled by bench/npm at run time).
 *
 *   connect_floor PORT
 *
 * Listens on 127.0.0.1:PORT.  Each connection gets a thread: it reads the
 * client's head up to the empty line, takes "CONNECT host:port", resolves
 * the host with getaddrinfo(3) (the namespace's resolver), connects, answers
 * "200 Connection established" and then moves bytes both ways with
 * splice(2) through one pipe per direction, one thread per direction,
 * blocking; an EOF is passed on with shutdown(SHUT_WR).  No policy, no
 * sniffing, no answer cache: what any proxy on the path costs a client (its
 * proxy agent, the extra hop, a process of its own on the same CPUs) and
 * nothing of porta's.  Anything but a CONNECT it can dial gets a 502 and a
 * close.  Prints "ready" once it listens.  A benchmark tool: not part of
 * porta, not installed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct pump {
	int from, to;
};

static void *pump(void *arg)
{
	struct pump *p = arg;
	int pp[2];

	if (pipe2(pp, O_CLOEXEC) == 0) {
		for (;;) {
			ssize_t n = splice(p->from, NULL, pp[1], NULL, 1 << 20, SPLICE_F_MOVE);
			if (n <= 0)
				break;
			while (n > 0) {
				ssize_t m = splice(pp[0], NULL, p->to, NULL, (size_t)n, SPLICE_F_MOVE);
				if (m <= 0)
					goto out;
				n -= m;
			}
		}
out:
		close(pp[0]);
		close(pp[1]);
	}
	shutdown(p->to, SHUT_WR);
	return NULL;
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static void *serve(void *arg)
{
	int client = (int)(intptr_t)arg, upstream = -1, one = 1;
	char head[8192], host[256], port[16];
	size_t got = 0;

	/* the head, byte by byte, so nothing of the tunnel is read here */
	while (got + 1 < sizeof(head)) {
		ssize_t n = recv(client, head + got, 1, 0);
		if (n <= 0)
			goto done;
		got++;
		if (got >= 4 && memcmp(head + got - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	head[got] = '\0';
	if (sscanf(head, "CONNECT %255[^: ]:%15[0-9] HTTP/1.", host, port) != 2 ||
	    (upstream = dial(host, port)) < 0) {
		static const char bad[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n";
		(void)!send(client, bad, sizeof(bad) - 1, MSG_NOSIGNAL);
		goto done;
	}
	setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	if (send(client, ok, sizeof(ok) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(ok) - 1)
		goto done;
	struct pump up = { client, upstream }, down = { upstream, client };
	pthread_t t;
	if (pthread_create(&t, NULL, pump, &up) != 0)
		goto done;
	pump(&down);
	pthread_join(t, NULL);
done:
	if (upstream >= 0)
		close(upstream);
	close(client);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, lfd;

	if (argc != 2) {
		fprintf(stderr, "usage: connect_floor PORT\n");
		return 2;
	}
	sa.sin_port = htons((uint16_t)atoi(argv[1]));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 128) < 0) {
		perror("connect_floor: listen");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pthread_t t;
		if (c < 0)
			continue;
		if (pthread_create(&t, NULL, serve, (void *)(intptr_t)c) != 0) {
			close(c);
			continue;
		}
		pthread_detach(t);
	}
}
