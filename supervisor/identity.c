/* supervisor/identity.c: see identity.h.  Moved here from the connect
 * watch (watch.c) so that the socket-owner lookup (owner.c) names a process
 * exactly as the watch does. */
#include "supervisor/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads /proc/TID/<name> into buf (NUL-terminated); bytes read or -errno. */
static ssize_t read_proc(pid_t tid, const char *name, char *buf, size_t cap)
{
	char path[48];
	size_t got = 0;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < cap) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return err ? -err : (ssize_t)got;
}

/* Parses blanks then a positive decimal pid at s; 0 when there is none.
 * *end (when not NULL) gets the first byte after the digits. */
static pid_t parse_pid(const char *s, const char **end)
{
	long v = 0;
	bool digits = false;

	while (*s == '\t' || *s == ' ')
		s++;
	while (*s >= '0' && *s <= '9' && v < 0x7fffffff) {
		v = v * 10 + (*s++ - '0');
		digits = true;
	}
	if (end)
		*end = s;
	return digits && v > 0 && v < 0x7fffffff ? (pid_t)v : 0;
}

void supervisor_identity_parse_status(const char *status, pid_t *pid, pid_t *ns_pid)
{
	const char *t;

	*pid = 0;
	*ns_pid = 0;
	/* "Tgid:\t<n>" and "NStgid:\t<outer> ... <inner>" are lines of their
	 * own near the top of status; the Name line before them is escaped by
	 * the kernel (a newline in a name prints as \n), so it cannot fake one
	 * (proc_task_name() with escape, fs/proc/array.c). */
	if ((t = strstr(status, "\nTgid:")) != NULL)
		*pid = parse_pid(t + strlen("\nTgid:"), NULL);
	if ((t = strstr(status, "\nNStgid:")) != NULL) {
		const char *next = t + strlen("\nNStgid:");
		pid_t v;
		/* The last number of the line is the innermost namespace's. */
		while ((v = parse_pid(next, &next)) > 0)
			*ns_pid = v;
	}
}

void supervisor_identity_parse_comm(const char *buf, size_t n, char out[16])
{
	/* The kernel appends one newline (proc_pid_comm); the name itself may
	 * hold any byte but NUL, a newline included. */
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 15)
		n = 15;
	memcpy(out, buf, n);
	out[n] = '\0';
}

int supervisor_identity_read(pid_t tid, struct supervisor_identity *out)
{
	char buf[4096];
	ssize_t n;

	memset(out, 0, sizeof(*out));
	n = read_proc(tid, "comm", buf, sizeof(buf));
	if (n > 0)
		supervisor_identity_parse_comm(buf, (size_t)n, out->comm);
	n = read_proc(tid, "status", buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ENOENT;
	supervisor_identity_parse_status(buf, &out->pid, &out->ns_pid);
	return 0;
}
