/* supervisor/identity.h: who a process is, read from /proc: its thread
 * group id, that id as the program sees it, its command name.
 *
 * ARCHITECTURE: the connect watch (watch.c) names the thread a seccomp
 * notification came from, the socket-owner lookup (owner.c) the process
 * that holds a connection's socket; both read the same three facts the same
 * way, here.  The parsers are pure (tests/unit/supervisor/test_identity.c);
 * supervisor_identity_read() is the one function that reads /proc.
 */
#ifndef PORTA_SUPERVISOR_IDENTITY_H
#define PORTA_SUPERVISOR_IDENTITY_H

#include <stddef.h>
#include <sys/types.h>

struct supervisor_identity {
	pid_t pid;     /* thread group id in the supervisor's pid namespace; 0: unknown */
	pid_t ns_pid;  /* the same in the process's innermost pid namespace (NStgid's
			* last field: the pid the program sees); 0: unknown */
	char comm[16]; /* raw bytes, NUL-terminated; "" when unknown */
};

/* From the text of /proc/PID/status (NUL-terminated): the Tgid line into
 * *pid and the last field of the NStgid line into *ns_pid; each 0 when its
 * line is missing or unreadable.  Pure. */
void supervisor_identity_parse_status(const char *status, pid_t *pid, pid_t *ns_pid);

/* From the bytes of /proc/PID/comm (buf[0..n), the kernel's one trailing
 * newline included): the name into out[16], NUL-terminated, at most 15
 * bytes.  Pure. */
void supervisor_identity_parse_comm(const char *buf, size_t n, char out[16]);

/* Reads /proc/TID/comm and /proc/TID/status of tid (a thread or process id
 * in the supervisor's pid namespace) into *out (zeroed first; a file that
 * cannot be read leaves its fields unknown).  Returns 0 when status was
 * read, else -errno (ESRCH/ENOENT: gone).  Any thread. */
int supervisor_identity_read(pid_t tid, struct supervisor_identity *out);

#endif /* PORTA_SUPERVISOR_IDENTITY_H */
