/*
 * Row 17: inject keystrokes into the terminal the sandbox was started from.
 *
 * usage: tiocsti sti TEXT     push TEXT into fd 0's input queue with TIOCSTI
 *        tiocsti linux        ioctl(TIOCLINUX, TIOCL_GETFGCONSOLE) on fd 0
 *
 * TIOCSTI: when the sandboxed program exits, the shell that started it reads
 * the pushed characters as if the user typed them, outside the sandbox. The
 * runner owns the pty master and reads the slave's input queue afterwards:
 * TEXT arriving there is the evidence. Also tried through /dev/tty.
 * TIOCLINUX (paste a selection, and more) needs a virtual console; the probe
 * uses a harmless sub-command, since the row is about whether the ioctl
 * reaches the console at all. Control: both work on a tty outside the
 * sandbox (unless dev.tty.legacy_tiocsti=0, reported n/a by the runner).
 */
#include "probe.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#ifndef TIOCL_GETFGCONSOLE
#define TIOCL_GETFGCONSOLE 12
#endif

static void inject(const char *name, int fd, const char *text)
{
	for (const char *p = text; *p; p++) {
		if (ioctl(fd, TIOCSTI, p) < 0) {
			probe_fail(name, errno);
			return;
		}
	}
	probe_ok(name, (long)strlen(text));
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc >= 3 && strcmp(argv[1], "sti") == 0) {
		inject("TIOCSTI:stdin", STDIN_FILENO, argv[2]);
		int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (tty < 0)
			dprintf(STDOUT_FILENO, "INFO /dev/tty: %s\n", probe_errname(errno));
		else
			inject("TIOCSTI:/dev/tty", tty, argv[2]);
	} else if (argc >= 2 && strcmp(argv[1], "linux") == 0) {
		char arg = TIOCL_GETFGCONSOLE;
		int rc = ioctl(STDIN_FILENO, TIOCLINUX, &arg);
		probe_report("TIOCLINUX", rc, errno);
	} else {
		dprintf(STDOUT_FILENO, "usage: tiocsti sti TEXT | linux\n");
		return 2;
	}
	return 0;
}
