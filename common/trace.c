/* common/trace.c: see trace.h. */
#include "common/trace.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

static bool trace_on;
static struct timespec trace_origin;

void trace_start(bool enabled)
{
	trace_on = enabled;
	if (enabled)
		clock_gettime(CLOCK_MONOTONIC, &trace_origin);
}

bool trace_enabled(void)
{
	return trace_on;
}

void trace_mark(const char *label)
{
	struct timespec now;
	int saved = errno;

	if (!trace_on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double ms = (double)(now.tv_sec - trace_origin.tv_sec) * 1e3 +
		    (double)(now.tv_nsec - trace_origin.tv_nsec) / 1e6;
	log_msg(LOG_LEVEL_ERROR, "trace +%.3f ms %s [%d]", ms, label, (int)getpid());
	errno = saved;
}
