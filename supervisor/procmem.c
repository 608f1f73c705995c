/* supervisor/procmem.c: see procmem.h. */
#include "supervisor/procmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t supervisor_read_memory(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	char path[40];
	ssize_t n;
	int fd, err;

	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n >= 0)
		return n;
	if (errno != ENOSYS)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)addr);
	err = errno;
	close(fd);
	return n < 0 ? -err : n;
}

ssize_t supervisor_write_memory(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = { .iov_base = (void *)(uintptr_t)buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	char path[40];
	ssize_t n;
	int fd, err;

	n = process_vm_writev(tid, &local, 1, &remote, 1, 0);
	if (n >= 0)
		return n;
	if (errno != ENOSYS)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, buf, len, (off_t)addr);
	err = errno;
	close(fd);
	return n < 0 ? -err : n;
}
