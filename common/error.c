/* common/error.c: see error.h. */
#include "common/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"

int porta_fail(struct porta_error *e, const char *step, const char *path, int err,
	       const char *fmt, ...)
{
	va_list ap;

	memset(e, 0, sizeof(*e));
	snprintf(e->step, sizeof(e->step), "%s", step);
	if (path)
		snprintf(e->path, sizeof(e->path), "%s", path);
	e->err = err;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -(err ? err : EINVAL);
}

void porta_error_format(const struct porta_error *e, char *out, size_t cap)
{
	char path[600];
	int n = snprintf(out, cap, "%s", e->step);

	if (n < 0 || (size_t)n >= cap)
		return;
	if (e->path[0]) {
		log_escape(e->path, strlen(e->path), path, sizeof(path));
		n += snprintf(out + n, cap - (size_t)n, " %s", path);
	}
	if ((size_t)n < cap && e->err)
		n += snprintf(out + n, cap - (size_t)n, ": %s", strerror(e->err));
	if ((size_t)n < cap && e->msg[0])
		snprintf(out + n, cap - (size_t)n, "%s%s", e->err ? " (" : ": ", e->msg);
	if (e->err && e->msg[0] && strlen(out) + 2 < cap)
		strcat(out, ")");
}

