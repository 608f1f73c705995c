/* common/safeopen.c: see safeopen.h. */
#include "common/safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Before openat2(2): from "/", each directory component opened with
 * O_NOFOLLOW | O_DIRECTORY relative to the one before, the last with
 * O_NOFOLLOW and the caller's flags.  ".." is refused (the path is a real
 * path: it has none). */
static int walk_nofollow(const char *path, int flags, mode_t mode)
{
	char p[PATH_MAX];
	size_t len = strlen(path);

	if (path[0] != '/' || len >= sizeof(p))
		return -EINVAL;
	memcpy(p, path, len + 1);
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	char *name = p + 1;
	for (;;) {
		char *slash = strchr(name, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (strcmp(name, "..") == 0 || strcmp(name, ".") == 0 || !name[0]) {
			close(dir);
			return -EINVAL;
		}
		int next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		close(dir);
		if (next < 0)
			return err == ENOTDIR ? -ELOOP : -err;
		dir = next;
		name = slash + 1;
	}
	int fd = porta_openat_beneath(dir, name, flags, mode);
	close(dir);
	return fd;
}

int porta_open_nofollow(const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0)
		return fd;
	if (errno != ENOSYS && errno != EPERM) /* EPERM: a seccomp filter of old */
		return -errno;
	return walk_nofollow(path, flags, mode);
}

int porta_openat_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}
