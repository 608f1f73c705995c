/* common/cleanup.h: scope-bound cleanup for set-up code (docs/style.md §9).
 *
 * ARCHITECTURE: `_cleanup_fd_ int fd = -1;` closes fd when it leaves scope;
 * `_cleanup_free_ char *p = NULL;` frees p.  Transfer ownership with
 * steal_fd()/steal_ptr(), which also documents the hand-over.
 */
#ifndef PORTA_COMMON_CLEANUP_H
#define PORTA_COMMON_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_close(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void cleanup_free(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_fclose(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_fd_ __attribute__((cleanup(cleanup_close)))
#define _cleanup_free_ __attribute__((cleanup(cleanup_free)))
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_fclose)))

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

static inline void *steal_ptr(void *pp)
{
	void *v = *(void **)pp;
	*(void **)pp = NULL;
	return v;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif /* PORTA_COMMON_CLEANUP_H */
