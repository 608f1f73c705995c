/* common/safeopen.h: opening what porta writes on the user's behalf
 * without following a link (docs/design.md, "Paths porta opens").
 *
 * ARCHITECTURE: host/resolve.c resolves a user-named path once, before the
 * command starts, to a real path (no link in it); the file is then opened
 * through these, which refuse to follow a link anywhere on the way, so a
 * link made since (by a command of this run or another) fails the open
 * (ELOOP) instead of redirecting it.  Directory descriptors taken before
 * the command starts (learn -o) are used with porta_openat_beneath().
 */
#ifndef PORTA_COMMON_SAFEOPEN_H
#define PORTA_COMMON_SAFEOPEN_H

#include <sys/types.h>

/* open(2) of path (absolute) with flags and mode, following no symbolic
 * link in any component (openat2(2) with RESOLVE_NO_SYMLINKS and
 * RESOLVE_NO_MAGICLINKS; before Linux 5.6, each directory opened with
 * O_NOFOLLOW in turn).  O_CLOEXEC is added.  The fd, or -errno (ELOOP: a
 * link on the way). */
int porta_open_nofollow(const char *path, int flags, mode_t mode);

/* openat(2) of name, one component, in dirfd, never through a link (the
 * last component with O_NOFOLLOW; "", ".", ".." and names with '/' are
 * EINVAL).  O_CLOEXEC is added.  The fd, or -errno. */
int porta_openat_beneath(int dirfd, const char *name, int flags, mode_t mode);

#endif /* PORTA_COMMON_SAFEOPEN_H */
