/* decision/decision.h: the decision module's API.
 *
 * ARCHITECTURE: one place where every network decision is written down
 * (log.h): the audit file's JSON lines, the stderr line per refused
 * destination, the end-of-run summary and what --why lists.  The words of a
 * decision are policy/reason.h's table; this module only writes them.  It
 * uses common/ and policy/, and dns/ and netproxy/ use it.
 */
#ifndef PORTA_DECISION_DECISION_H
#define PORTA_DECISION_DECISION_H

#include "decision/log.h"

#endif /* PORTA_DECISION_DECISION_H */
