/* bench/watch_floor.c: the least a connect watch costs a connection, the
 * floor bench/relay's "floor+watch" variant measures porta against (compiled
 * by bench/relay at run time).
 *
 *   watch_floor COMMAND [ARG...]
 *
 * Runs COMMAND with every connect(2) of it handed to this process and let
 * go on after reading its address (bench/watch_floor.h): the watcher in a
 * process of its own, beside whatever relays the connection, so the two
 * never wait for each other.  Its exit status is COMMAND's (128 + signal
 * when killed).  A benchmark tool: not part of porta, not installed. */
#include "watch_floor.h"

#include <poll.h>

int main(int argc, char **argv)
{
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: watch_floor COMMAND [ARG...]\n");
		return 2;
	}
	int listener = watch_floor_spawn(argv + 1, &child);
	if (listener >= 0) {
		/* until no process is left under the filter (POLLHUP) */
		for (;;) {
			struct pollfd p = { .fd = listener, .events = POLLIN };
			if (poll(&p, 1, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (p.revents & POLLIN) {
				if (watch_floor_answer(listener) < 0)
					break;
				continue;
			}
			if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
				break;
		}
		close(listener); /* any call still waiting fails with ENOSYS */
	}
	return watch_floor_wait(child);
}
