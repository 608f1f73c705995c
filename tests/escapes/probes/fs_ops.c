/*
 * Rows 51-57: a small interpreter of file operations, each reported as one
 * RESULT line, so that a row can try a sequence of tricks in one sandboxed
 * run and judge from the files on the host afterwards.
 *
 * usage: fs_ops OP ARGS... [OP ARGS...]...
 *
 *   write PATH TEXT          open(O_WRONLY|O_CREAT|O_TRUNC) and write TEXT
 *   append PATH TEXT         open(O_WRONLY|O_APPEND) and write TEXT
 *   mkdir PATH | rm PATH | rmdir PATH
 *   rename A B | exchange A B (renameat2 RENAME_EXCHANGE) | link A B | symlink TARGET B
 *   chmod PATH OCTAL | chown PATH UID GID | utime PATH | setxattr PATH | truncate PATH
 *   mknod PATH c|b|p MAJOR MINOR
 *   reopen PATH TEXT         open(O_RDONLY), then /proc/self/fd/N O_WRONLY, write
 *   opath PATH TEXT          open(O_PATH), then /proc/self/fd/N O_WRONLY, write
 *   fchmod PATH OCTAL        open(O_RDONLY), then fchmod on the fd
 *   procfdlink PATH B        open(O_PATH), then linkat(/proc/self/fd/N, B, AT_SYMLINK_FOLLOW)
 *   emptylink PATH B         open(O_PATH), then linkat(fd, "", B, AT_EMPTY_PATH)
 *   openat2 DIR NAME TEXT    openat2(dirfd, NAME, O_WRONLY, RESOLVE_BENEATH) and write
 *
 * The result names are "OP:PATH".  The evidence is always on the host (the
 * runner compares the planted tree before and after); RESULT lines only
 * explain.  Control: run unconfined, each operation works on a file the user
 * owns.
 */
#include "probe.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/xattr.h>

static void result(const char *op, const char *path, long rc, int err)
{
	char name[512];
	snprintf(name, sizeof name, "%s:%s", op, path);
	probe_report(name, rc, err);
}

static long write_text(int fd, const char *text)
{
	long n = fd < 0 ? -1 : (long)write(fd, text, strlen(text));
	return n;
}

/* Opens how (a path, or /proc/self/fd/N of a first fd), writes text. */
static void reopen(const char *op, const char *path, int first_flags, const char *text)
{
	int fd = open(path, first_flags | O_CLOEXEC);
	if (fd < 0) {
		result(op, path, -1, errno);
		return;
	}
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int w = open(proc, O_WRONLY | O_CLOEXEC);
	int err = errno;
	long n = w >= 0 ? write_text(w, text) : -1;
	if (w >= 0)
		err = errno;
	result(op, path, n, err);
	if (w >= 0)
		close(w);
	close(fd);
}

int main(int argc, char **argv)
{
	probe_started();
	for (int i = 1; i < argc;) {
		const char *op = argv[i];
		const char *a = i + 1 < argc ? argv[i + 1] : "";
		const char *b = i + 2 < argc ? argv[i + 2] : "";
		long rc;
		int err;
		if (!strcmp(op, "write") || !strcmp(op, "append")) {
			int fl = !strcmp(op, "write") ? O_CREAT | O_TRUNC : O_APPEND;
			int fd = open(a, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | fl, 0644);
			err = errno;
			rc = fd >= 0 ? write_text(fd, b) : -1;
			if (fd >= 0) {
				err = errno;
				close(fd);
			}
			result(op, a, rc, err);
			i += 3;
		} else if (!strcmp(op, "mkdir") || !strcmp(op, "rm") || !strcmp(op, "rmdir")) {
			rc = !strcmp(op, "mkdir") ? mkdir(a, 0755) : !strcmp(op, "rm") ? unlink(a) : rmdir(a);
			err = errno;
			result(op, a, rc, err);
			i += 2;
		} else if (!strcmp(op, "rename") || !strcmp(op, "exchange") || !strcmp(op, "link") ||
			   !strcmp(op, "symlink")) {
			if (!strcmp(op, "rename"))
				rc = rename(a, b);
			else if (!strcmp(op, "exchange"))
				rc = syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
			else if (!strcmp(op, "link"))
				rc = link(a, b);
			else
				rc = symlink(a, b);
			err = errno;
			result(op, a, rc, err);
			i += 3;
		} else if (!strcmp(op, "chmod")) {
			rc = chmod(a, (mode_t)strtoul(b, NULL, 8));
			err = errno;
			result(op, a, rc, err);
			i += 3;
		} else if (!strcmp(op, "fchmod")) {
			int fd = open(a, O_RDONLY | O_CLOEXEC);
			err = errno;
			rc = fd >= 0 ? fchmod(fd, (mode_t)strtoul(b, NULL, 8)) : -1;
			if (fd >= 0) {
				err = errno;
				close(fd);
			}
			result(op, a, rc, err);
			i += 3;
		} else if (!strcmp(op, "chown")) {
			const char *c = i + 3 < argc ? argv[i + 3] : "-1";
			rc = lchown(a, (uid_t)atol(b), (gid_t)atol(c));
			err = errno;
			result(op, a, rc, err);
			i += 4;
		} else if (!strcmp(op, "utime")) {
			struct timeval tv[2] = { { 978307200, 0 }, { 978307200, 0 } }; /* 2001-01-01 */
			rc = utimes(a, tv);
			err = errno;
			result(op, a, rc, err);
			i += 2;
		} else if (!strcmp(op, "setxattr")) {
			rc = setxattr(a, "user.porta-escape", "MUST-NOT-LEAK", 13, 0);
			err = errno;
			result(op, a, rc, err);
			i += 2;
		} else if (!strcmp(op, "truncate")) {
			rc = truncate(a, 0);
			err = errno;
			result(op, a, rc, err);
			i += 2;
		} else if (!strcmp(op, "mknod")) {
			const char *maj = i + 3 < argc ? argv[i + 3] : "0";
			const char *min = i + 4 < argc ? argv[i + 4] : "0";
			mode_t type = b[0] == 'c' ? S_IFCHR : b[0] == 'b' ? S_IFBLK : S_IFIFO;
			rc = mknod(a, type | 0666, makedev(atoi(maj), atoi(min)));
			err = errno;
			result(op, a, rc, err);
			i += 5;
		} else if (!strcmp(op, "reopen") || !strcmp(op, "opath")) {
			reopen(op, a, !strcmp(op, "reopen") ? O_RDONLY : O_PATH, b);
			i += 3;
		} else if (!strcmp(op, "procfdlink") || !strcmp(op, "emptylink")) {
			int fd = open(a, O_PATH | O_CLOEXEC);
			err = errno;
			if (fd >= 0) {
				char proc[64];
				snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
				rc = !strcmp(op, "procfdlink")
					     ? linkat(AT_FDCWD, proc, AT_FDCWD, b, AT_SYMLINK_FOLLOW)
					     : linkat(fd, "", AT_FDCWD, b, AT_EMPTY_PATH);
				err = errno;
				close(fd);
			} else {
				rc = -1;
			}
			result(op, a, rc, err);
			i += 3;
		} else if (!strcmp(op, "openat2")) {
			const char *c = i + 3 < argc ? argv[i + 3] : "";
			int dfd = open(a, O_PATH | O_DIRECTORY | O_CLOEXEC);
			err = errno;
			rc = -1;
			if (dfd >= 0) {
				struct open_how how = { .flags = O_WRONLY | O_CLOEXEC,
							.resolve = RESOLVE_BENEATH };
				int fd = (int)syscall(SYS_openat2, dfd, b, &how, sizeof how);
				err = errno;
				if (fd >= 0) {
					rc = write_text(fd, c);
					err = errno;
					close(fd);
				}
				close(dfd);
			}
			result(op, b, rc, err);
			i += 4;
		} else {
			dprintf(STDOUT_FILENO, "RESULT %s setup-fail unknown-op\n", op);
			return 2;
		}
	}
	return 0;
}
