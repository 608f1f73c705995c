/* common/log.c: see log.h. */
#include "common/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static enum log_level log_most_verbose = LOG_LEVEL_NOTICE;

void log_set_level(enum log_level most_verbose)
{
	log_most_verbose = most_verbose;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	int saved = errno;
	char buf[4096];
	size_t len;
	va_list ap;

	if (level > log_most_verbose)
		goto out;
	len = (size_t)snprintf(buf, sizeof(buf), "porta: ");
	va_start(ap, fmt);
	int n = vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	len += (size_t)n;
	if (len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	/* One write so that messages of init, payload and supervisor do not
	 * interleave mid-line; a short write to a broken stderr is not an error
	 * porta can report anywhere. */
	ssize_t w = write(STDERR_FILENO, buf, len);
	(void)w;
out:
	errno = saved;
}

char *log_escape(const char *s, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (cap == 0)
		return out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[4];
		size_t tl = 0;

		if (c == '\\' || c == '"') {
			tmp[tl++] = '\\';
			tmp[tl++] = (char)c;
		} else if (c < 0x20 || c > 0x7e) {
			tmp[tl++] = '\\';
			tmp[tl++] = 'x';
			tmp[tl++] = hex[c >> 4];
			tmp[tl++] = hex[c & 15];
		} else {
			tmp[tl++] = (char)c;
		}
		if (o + tl >= cap)
			break;
		for (size_t k = 0; k < tl; k++)
			out[o++] = tmp[k];
	}
	out[o] = '\0';
	return out;
}
