/*
 * Rows 11 and 12: reach a host Unix socket made before the run.
 *
 * Each argument is a socket path, or "@name" for an abstract socket. The
 * probe connects and sends a greeting. Evidence is outside: the runner's
 * listener logs every accepted connection. Control: the same connects from
 * outside any sandbox reach the listeners.
 */
#include "probe.h"

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	probe_started();
	for (int i = 1; i < argc; i++) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		const char *p = argv[i];
		size_t len = strlen(p);
		socklen_t alen;
		if (len >= sizeof sun.sun_path) {
			probe_fail(p, ENAMETOOLONG);
			continue;
		}
		if (p[0] == '@') {
			/* Abstract: a leading NUL, no terminator counted. */
			memcpy(sun.sun_path + 1, p + 1, len - 1);
			alen = offsetof(struct sockaddr_un, sun_path) + len;
		} else {
			memcpy(sun.sun_path, p, len);
			alen = sizeof sun;
		}
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			probe_fail(p, errno);
			continue;
		}
		int rc = connect(s, (struct sockaddr *)&sun, alen);
		int err = errno;
		if (rc == 0)
			(void)!write(s, "hello from probe\n", 17);
		probe_report(p, rc, err);
		close(s);
	}
	return 0;
}
