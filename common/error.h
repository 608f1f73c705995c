/* common/error.h: a failure before the command started, as one value.
 *
 * ARCHITECTURE: every step of setting up a run (resolving the plan against
 * the host, the supervisor's preparations, init's and the payload's steps)
 * reports a failure as (step, path, errno, words); it travels up to main, or
 * over the control channel from the sandbox's processes, and main prints it
 * as one line (docs/style.md §8: one precise message per failing step) and exits 125.
 */
#ifndef PORTA_COMMON_ERROR_H
#define PORTA_COMMON_ERROR_H

#include <stddef.h>

struct porta_error {
	char step[64];
	char path[512];
	int err;       /* errno, or 0 when msg says it all */
	char msg[512]; /* extra words, may be empty */
};

/* Fills e; returns -err (-EINVAL when err is 0), for "return porta_fail(...)". */
int porta_fail(struct porta_error *e, const char *step, const char *path, int err,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Formats e as one line (without "porta: " and newline) into out[cap]; the
 * path, which a program may have chosen, escaped (log_escape()). */
void porta_error_format(const struct porta_error *e, char *out, size_t cap);

#endif /* PORTA_COMMON_ERROR_H */
