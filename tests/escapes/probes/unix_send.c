/*
 * Rows 78-80: reach a host Unix socket of any type made outside the mounts.
 *
 * usage: unix_send TYPE PATH [TYPE PATH]...
 *
 *   stream PATH      socket(SOCK_STREAM), connect(PATH), send a greeting
 *   seqpacket PATH   socket(SOCK_SEQPACKET), connect(PATH), send a greeting
 *   dgram PATH       socket(SOCK_DGRAM), sendto(PATH) of a greeting (no
 *                    connect: a datagram socket needs none)
 *
 * Each attempt is one RESULT line named "TYPE:PATH". Evidence is outside:
 * the runner's listeners count accepted connections and received
 * datagrams. Control: the same calls from outside any sandbox reach them.
 */
#include "probe.h"

#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	static const char hello[] = "hello from probe\n";

	probe_started();
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *kind = argv[i], *p = argv[i + 1];
		char name[256];
		snprintf(name, sizeof name, "%s:%s", kind, p);
		int type = !strcmp(kind, "stream")    ? SOCK_STREAM
			   : !strcmp(kind, "seqpacket") ? SOCK_SEQPACKET
			   : !strcmp(kind, "dgram")     ? SOCK_DGRAM
							: -1;
		if (type < 0) {
			dprintf(STDOUT_FILENO, "RESULT %s setup-fail unknown-type\n", name);
			continue;
		}
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		if (strlen(p) >= sizeof sun.sun_path) {
			probe_fail(name, ENAMETOOLONG);
			continue;
		}
		memcpy(sun.sun_path, p, strlen(p));
		int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (s < 0) {
			probe_fail(name, errno);
			continue;
		}
		long rc;
		int err;
		if (type == SOCK_DGRAM) {
			rc = sendto(s, hello, sizeof hello - 1, 0, (struct sockaddr *)&sun, sizeof sun);
			err = errno;
		} else {
			rc = connect(s, (struct sockaddr *)&sun, sizeof sun);
			err = errno;
			if (rc == 0)
				(void)!send(s, hello, sizeof hello - 1, MSG_NOSIGNAL);
		}
		probe_report(name, rc, err);
		close(s);
	}
	return 0;
}
