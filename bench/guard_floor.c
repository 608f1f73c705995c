/* bench/guard_floor.c: the kernel's price for watching protected names, the
 * mechanism supervisor/guard.c uses, with nothing else.
 *
 *   guard_floor [DIR...] -- COMMAND [ARGS...]
 *
 * With DIRs: makes one inotify instance, watches each DIR for creations and
 * renames into it (the guard's mask), then executes COMMAND; the instance
 * is close-on-exec, so it is torn down in the exec, which waits for the
 * kernel's fsnotify mark SRCU grace period as porta's supervisor does when
 * it destroys its guard.  Without DIRs it only executes COMMAND.
 * bench/overhead runs both: the difference is the floor of reacting to a
 * protected name at once, which no inotify-based guard can go below (the
 * extra exec of this program cancels out).
 */

#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i = 1;
	int fd = argc > 1 && strcmp(argv[1], "--") != 0 ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
							 : 0;

	if (fd < 0)
		return 125;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (inotify_add_watch(fd, argv[i], IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0)
			return 125;
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: guard_floor DIR... -- COMMAND [ARGS...]\n");
		return 125;
	}
	execv(argv[i + 1], argv + i + 1);
	return 127;
}
