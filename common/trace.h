/* common/trace.h: set-up timing (PORTA_TRACE_SETUP=1 in porta's environment).
 *
 * ARCHITECTURE: trace_start() in main records the origin; trace_mark() in any
 * porta process (supervisor, init, payload inherit the origin through fork)
 * prints "porta: trace +1.234 ms <label> [pid]" to stderr.  When tracing is
 * off a mark costs one branch.
 */
#ifndef PORTA_COMMON_TRACE_H
#define PORTA_COMMON_TRACE_H

#include <stdbool.h>

/* Call once from main before any other porta process exists. */
void trace_start(bool enabled);

/* Whether tracing is on (a process keeping stderr only for its marks). */
bool trace_enabled(void);

/* Prints the time since trace_start() and label, when enabled.  Preserves errno. */
void trace_mark(const char *label);

#endif /* PORTA_COMMON_TRACE_H */
