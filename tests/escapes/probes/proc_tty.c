/*
 * Row 72: the terminal the command inherits, and the user's other
 * terminals (TIOCSTI and TIOCLINUX are row 17).
 *
 * usage: proc_tty setd             TIOCSETD N_NULL on stdin: the user's
 *                                  terminal would discard all input and
 *                                  output after porta ends (the runner
 *                                  reads the line discipline back)
 *        proc_tty sctty            a child in a new session steals stdin as
 *                                  its controlling tty (TIOCSCTTY, arg 1)
 *        proc_tty cons             TIOCCONS: redirect the host's console
 *                                  output to stdin's tty; undone at once
 *                                  through /dev/console when it succeeds
 *        proc_tty write PATH TEXT  open another terminal by path and write
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#ifndef N_NULL
#define N_NULL 27
#endif

static void steal(const char *name)
{
	if (setsid() < 0) {
		dprintf(STDOUT_FILENO, "RESULT %s setup-fail %s\n", name, probe_errname(errno));
		return;
	}
	PROBE_TRY(name, ioctl(STDIN_FILENO, TIOCSCTTY, 1));
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "setd") == 0) {
		int disc = N_NULL;
		PROBE_TRY("TIOCSETD", ioctl(STDIN_FILENO, TIOCSETD, &disc));
	} else if (strcmp(argv[1], "sctty") == 0) {
		probe_isolated("TIOCSCTTY-steal", steal);
	} else if (strcmp(argv[1], "cons") == 0) {
		long rc = ioctl(STDIN_FILENO, TIOCCONS);
		int err = errno;
		probe_report("TIOCCONS", rc, err);
		if (rc == 0) {
			int c = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
			PROBE_TRY("TIOCCONS-undo", c < 0 ? -1 : ioctl(c, TIOCCONS));
			if (c >= 0)
				close(c);
		}
	} else if (strcmp(argv[1], "write") == 0 && argc > 3) {
		int fd = open(argv[2], O_WRONLY | O_NOCTTY | O_CLOEXEC);
		int err = errno;
		if (fd < 0) {
			probe_fail("write-other-tty", err);
		} else {
			PROBE_TRY("write-other-tty", write(fd, argv[3], strlen(argv[3])));
			close(fd);
		}
	} else {
		return 2;
	}
	return 0;
}
