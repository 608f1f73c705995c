/* bench/relay_floor.c: bench/relay's floor relay (compiled by bench/relay at
 * run time), the simplest user-space TCP relay, to measure what the extra
 * TCP hop alone costs.
 *
 *   relay_floor [--decide] LISTEN_PORT SERVER_ADDR SERVER_PORT SOCKBUF PIPESZ [COMMAND ARG...]
 *
 * Listens on 127.0.0.1:LISTEN_PORT; takes one connection at a time, connects
 * to SERVER_ADDR:SERVER_PORT (IPv4) and moves bytes both ways with splice(2)
 * through one pipe per direction, poll(2)-driven, reading a side only while
 * its pipe is empty (as porta's relay does); an EOF is passed on with
 * shutdown(SHUT_WR).  No policy, no sniffing, no DNS.  SOCKBUF > 0: SO_RCVBUF
 * and SO_SNDBUF on the listening and the upstream socket, before listen() and
 * connect(); PIPESZ > 0: F_SETPIPE_SZ on both pipes.
 *
 * Without COMMAND ("floor"): runs until killed, and prints one "ready" line
 * with the sizes the kernel granted once it listens.
 *
 * With COMMAND ("floor+loop"): once it listens, runs COMMAND with every
 * connect(2) of it handed to this process (bench/watch_floor.h), answered
 * from the same poll(2) loop that accepts and relays, the way porta's one
 * event loop holds its connect watch and its relay; prints nothing of its
 * own on stdout (COMMAND's), and exits with COMMAND's status once no process
 * is left under the filter.  The floor for a design with one loop, beside
 * bench/watch_floor.c's, whose watcher never waits for the relay.
 *
 * With --decide ("floor+decide"), each connection is dialled only once the
 * client's first request head is there whole (peeked, up to its blank line):
 * the order a relay that decides by what the client names must keep, as
 * porta does by the request's Host, where the floor relay dials the server
 * as soon as it accepts.  The head is not read: nothing is decided, it is
 * only waited for. */
#include "watch_floor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>

static int sockbuf, pipesz;
/* the watch's listener (floor+loop), -1 without one or once its command is
 * gone */
static int watch = -1;
static int with_command; /* floor+loop: a watch was started */

static void die(const char *what)
{
	fprintf(stderr, "relay_floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_bufs(int fd)
{
	if (sockbuf > 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof sockbuf) != 0 ||
			    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof sockbuf) != 0))
		die("setsockopt SO_RCVBUF/SO_SNDBUF");
}

static int make_pipe(int p[2])
{
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
		die("pipe2");
	if (pipesz > 0 && fcntl(p[1], F_SETPIPE_SZ, pipesz) < 0)
		die("F_SETPIPE_SZ");
	return fcntl(p[1], F_GETPIPE_SZ);
}

/* The watch's side of a poll: a notification answered, or the listener
 * dropped once no process is left under the filter. */
static void serve_watch(short revents)
{
	if (revents & POLLIN) {
		if (watch_floor_answer(watch) == 0)
			return;
	} else if (!(revents & (POLLHUP | POLLERR | POLLNVAL))) {
		return;
	}
	close(watch); /* any call still waiting fails with ENOSYS */
	watch = -1;
}

/* Relays fd[0] <-> fd[1] until both directions have seen EOF, or an error. */
static void relay(int fd[2])
{
	int p[2][2], eof[2] = {0, 0}, done[2] = {0, 0};
	size_t held[2] = {0, 0}; /* direction d: fd[d] -> pipe p[d] -> fd[1 - d] */
	for (int d = 0; d < 2; d++) {
		make_pipe(p[d]);
		fcntl(fd[d], F_SETFL, O_NONBLOCK);
	}
	while (!done[0] || !done[1]) {
		/* without a watch, only the first two entries are polled */
		struct pollfd pf[3] = {{.fd = fd[0]}, {.fd = fd[1]}, {.fd = watch, .events = POLLIN}};
		for (int d = 0; d < 2; d++) {
			if (!eof[d] && held[d] == 0)
				pf[d].events |= POLLIN;
			if (held[d] > 0)
				pf[1 - d].events |= POLLOUT;
		}
		if (poll(pf, watch >= 0 ? 3 : 2, -1) < 0 && errno != EINTR)
			die("poll");
		if (watch >= 0 && pf[2].revents)
			serve_watch(pf[2].revents);
		for (int d = 0; d < 2; d++) {
			if (!eof[d] && held[d] == 0 && (pf[d].revents & (POLLIN | POLLHUP | POLLERR))) {
				ssize_t n = splice(fd[d], NULL, p[d][1], NULL, 1 << 20,
						   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
				if (n > 0)
					held[d] = (size_t)n;
				else if (n == 0)
					eof[d] = 1;
				else if (errno != EAGAIN && errno != EINTR)
					goto out;
			}
			while (held[d] > 0) {
				ssize_t n = splice(p[d][0], NULL, fd[1 - d], NULL, held[d],
						   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
				if (n > 0)
					held[d] -= (size_t)n;
				else if (n < 0 && (errno == EAGAIN || errno == EINTR))
					break;
				else
					goto out;
			}
			if (eof[d] && held[d] == 0 && !done[d]) {
				shutdown(fd[1 - d], SHUT_WR);
				done[d] = 1;
			}
		}
	}
out:
	for (int d = 0; d < 2; d++) {
		close(p[d][0]);
		close(p[d][1]);
		close(fd[d]);
	}
}

/* --decide: waits, serving the watch meanwhile, until fd's queue holds a
 * whole request head (through its blank line), or fd has nothing more to
 * give (EOF, an error, a head past the peek buffer): the dial comes after. */
static void await_head(int fd)
{
	static char peek[16384];

	for (;;) {
		ssize_t n = recv(fd, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT);
		if (n > 0 && (memmem(peek, (size_t)n, "\r\n\r\n", 4) || n == (ssize_t)sizeof(peek)))
			return;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return;
		struct pollfd pf[2] = {{.fd = fd, .events = POLLIN}, {.fd = watch, .events = POLLIN}};
		if (poll(pf, watch >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			die("poll");
		if (watch >= 0 && pf[1].revents)
			serve_watch(pf[1].revents);
	}
}

/* The next connection, or -1 once the watch's command is gone (floor+loop;
 * without a watch, accept(2) waits as long as it takes). */
static int next_client(int ls)
{
	for (;;) {
		if (watch >= 0) {
			struct pollfd pf[2] = {{.fd = ls, .events = POLLIN},
					       {.fd = watch, .events = POLLIN}};
			if (poll(pf, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				die("poll");
			}
			if (pf[1].revents)
				serve_watch(pf[1].revents);
			if (!(pf[0].revents & POLLIN))
				continue;
		} else if (with_command) {
			return -1;
		}
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EINTR && errno != ECONNABORTED)
			die("accept");
	}
}

int main(int argc, char **argv)
{
	int decide = argc > 1 && strcmp(argv[1], "--decide") == 0;
	if (decide) {
		argv++;
		argc--;
	}
	if (argc < 6) {
		fprintf(stderr, "usage: relay_floor [--decide] LISTEN_PORT SERVER_ADDR SERVER_PORT "
				"SOCKBUF PIPESZ [COMMAND ARG...]\n");
		return 2;
	}
	sockbuf = atoi(argv[4]);
	pipesz = atoi(argv[5]);
	struct sockaddr_in here = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in server = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[3]))};
	if (inet_pton(AF_INET, argv[2], &server.sin_addr) != 1) {
		fprintf(stderr, "relay_floor: bad server address %s\n", argv[2]);
		return 2;
	}
	int one = 1, ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
		die("listening socket");
	set_bufs(ls);
	if (bind(ls, (struct sockaddr *)&here, sizeof here) != 0 || listen(ls, 128) != 0)
		die("bind/listen");
	pid_t child = -1;
	if (argc > 6) {
		with_command = 1;
		watch = watch_floor_spawn(argv + 6, &child);
		if (watch < 0) {
			if (child > 0)
				watch_floor_wait(child);
			return 1;
		}
	} else {
		int rcv = 0, snd = 0, tp[2];
		socklen_t len = sizeof rcv;
		getsockopt(ls, SOL_SOCKET, SO_RCVBUF, &rcv, &len);
		len = sizeof snd;
		getsockopt(ls, SOL_SOCKET, SO_SNDBUF, &snd, &len);
		int psz = make_pipe(tp);
		close(tp[0]);
		close(tp[1]);
		printf("ready so_rcvbuf=%d so_sndbuf=%d pipe=%d\n", rcv, snd, psz);
		fflush(stdout);
	}
	for (;;) {
		int fd[2];
		fd[0] = next_client(ls);
		if (fd[0] < 0)
			break;
		if (decide)
			await_head(fd[0]);
		fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd[1] < 0)
			die("socket");
		set_bufs(fd[1]);
		if (connect(fd[1], (struct sockaddr *)&server, sizeof server) != 0) {
			fprintf(stderr, "relay_floor: connect: %s\n", strerror(errno));
			close(fd[0]);
			close(fd[1]);
			continue;
		}
		relay(fd);
	}
	close(ls);
	return watch_floor_wait(child);
}
