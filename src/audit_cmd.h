/* src/audit_cmd.h: `porta audit` (docs/porta.1), the audits summed up, as a
 * lock, or held against one.  Exit status: 0; 1 when --against found a
 * destination outside the lock; 125 for a usage error, an unreadable file
 * or a line that is not one of porta's records (named FILE:LINE). */
#ifndef PORTA_SRC_AUDIT_CMD_H
#define PORTA_SRC_AUDIT_CMD_H

#include <stdio.h>

#include "policy/auditsum.h"

/* Adds every line of in to a; label names the file in a message about a
 * line that is not one of porta's records.  0, or 125 after saying why. */
int porta_audit_read(FILE *in, const char *label, struct policy_audit *a);

/* argv[1] is "audit". */
int porta_audit_command(int argc, char *argv[], char *const envp[]);

#endif /* PORTA_SRC_AUDIT_CMD_H */
