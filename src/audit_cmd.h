/* src/audit_cmd.h: `porta audit` (docs/porta.1), the audits summed up, as a
 * lock, or held against one.  Exit status: 0; 1 when --against found a
 * destination outside the lock; 125 for a usage error, an unreadable file
 * or a line that is not one of porta's records (named FILE:LINE). */
#ifndef PORTA_SRC_AUDIT_CMD_H
#define PORTA_SRC_AUDIT_CMD_H

/* argv[1] is "audit". */
int porta_audit_command(int argc, char *argv[], char *const envp[]);

#endif /* PORTA_SRC_AUDIT_CMD_H */
