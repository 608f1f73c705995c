/*
 * Row 58: device files the sandbox should not reach.
 *
 * usage: fs_devices PATH...
 *
 * For each device: open it read-only and read a little (a disk, the console's
 * screen, the kernel log, another terminal's input), then open it write-only.
 * RESULT open-r:PATH, read:PATH (bytes read), open-w:PATH.  A device open
 * leaves no trace on the host, so these lines are the evidence, next to the
 * same attempt unconfined.  Reads never block (O_NONBLOCK).
 */
#include "probe.h"

#include <fcntl.h>

int main(int argc, char **argv)
{
	probe_started();
	for (int i = 1; i < argc; i++) {
		char name[512];
		char buf[256];
		int fd = open(argv[i], O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		int err = errno;
		snprintf(name, sizeof name, "open-r:%s", argv[i]);
		probe_report(name, fd, err);
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof buf);
			err = errno;
			snprintf(name, sizeof name, "read:%s", argv[i]);
			probe_report(name, (long)n, err);
			close(fd);
		}
		fd = open(argv[i], O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		err = errno;
		snprintf(name, sizeof name, "open-w:%s", argv[i]);
		probe_report(name, fd, err);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
