/*
 * Row 17 helper (not a probe): start COMMAND in a new session whose
 * controlling terminal is the tty on stdin, as a shell in a terminal
 * window would run it. TIOCSTI only works on the caller's controlling tty
 * (or with CAP_SYS_ADMIN), so the control and the sandboxed run both need
 * one for the test to mean anything.
 *
 * usage: ctty COMMAND [ARGS...]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	/* Already a session leader (started with setsid): keep that session. */
	if ((setsid() < 0 && getsid(0) != getpid()) || ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0) {
		perror("ctty: setsid/TIOCSCTTY");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror("ctty: execvp");
	return 127;
}
