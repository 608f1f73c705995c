/*
 * Row 77: grow a file past --max-file-size by roads other than write(2).
 *
 * usage: proc_fsize DIR SOURCE
 *
 * With SIGXFSZ ignored (so each attempt fails with EFBIG rather than ending
 * the probe), makes DIR/fallocate, DIR/pwrite, DIR/copy and DIR/splice each
 * 2 MiB long: fallocate, pwrite at offset 2 MiB, copy_file_range and splice
 * from SOURCE (a 2 MiB file). write(2) and ftruncate are row 22's. Their
 * sizes on the host are the evidence.
 */
#include "probe.h"

#include <fcntl.h>

#define SIZE (2L << 20)

static int make(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		probe_fail(name, errno);
	return fd;
}

int main(int argc, char **argv)
{
	probe_started();
	if (argc < 3)
		return 2;
	signal(SIGXFSZ, SIG_IGN);
	int fd;
	if ((fd = make(argv[1], "fallocate")) >= 0) {
		PROBE_TRY("fallocate", fallocate(fd, 0, 0, SIZE));
		close(fd);
	}
	if ((fd = make(argv[1], "pwrite")) >= 0) {
		PROBE_TRY("pwrite", pwrite(fd, "x", 1, SIZE));
		close(fd);
	}
	int src = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (src < 0) {
		probe_fail("source", errno);
		return 0;
	}
	if ((fd = make(argv[1], "copy")) >= 0) {
		loff_t in = 0, out = 0;
		long total = 0, n;
		while (total < SIZE && (n = (long)copy_file_range(src, &in, fd, &out, (size_t)(SIZE - total), 0)) > 0)
			total += n;
		probe_report("copy", total > 0 ? total : -1, errno);
		close(fd);
	}
	if ((fd = make(argv[1], "splice")) >= 0) {
		int p[2];
		loff_t in = 0;
		long total = 0, n;
		if (pipe(p) == 0) {
			while (total < SIZE && (n = splice(src, &in, p[1], NULL, 65536, 0)) > 0) {
				long m = splice(p[0], NULL, fd, NULL, (size_t)n, 0);
				if (m <= 0)
					break;
				total += m;
			}
		}
		probe_report("splice", total > 0 ? total : -1, errno);
		close(fd);
	}
	return 0;
}
