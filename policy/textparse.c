/* policy/textparse.c: see textparse.h. */
#include "policy/textparse.h"

#include <string.h>

#include "common/ascii.h"

bool policy_env_name_valid(const char *name, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
		bool digit = c >= '0' && c <= '9';
		if (!alpha && !(digit && i > 0))
			return false;
	}
	return true;
}

static size_t line_end(const uint8_t *buf, size_t len, size_t pos)
{
	const uint8_t *nl = memchr(buf + pos, '\n', len - pos);
	return nl ? (size_t)(nl - buf) : len;
}

enum policy_envfile_status policy_envfile_next(const uint8_t *buf, size_t len, size_t *pos,
					       size_t *line_no, struct policy_span *key,
					       struct policy_span *value)
{
	while (*pos < len) {
		size_t start = *pos, end = line_end(buf, len, start);
		size_t next = end < len ? end + 1 : len;

		(*line_no)++;
		*pos = next;
		if (memchr(buf + start, '\0', end - start))
			return POLICY_ENVFILE_MALFORMED;
		if (end > start && buf[end - 1] == '\r')
			end--;
		size_t i = start;
		while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		if (i == end || buf[i] == '#')
			continue;
		if (end - i > 7 && memcmp(buf + i, "export ", 7) == 0)
			i += 7;
		const uint8_t *eq = memchr(buf + i, '=', end - i);
		if (!eq || !policy_env_name_valid((const char *)buf + i, (size_t)(eq - (buf + i))))
			return POLICY_ENVFILE_MALFORMED;
		key->p = buf + i;
		key->n = (size_t)(eq - (buf + i));
		value->p = eq + 1;
		value->n = (size_t)(buf + end - (eq + 1));
		return POLICY_ENVFILE_LINE;
	}
	return POLICY_ENVFILE_END;
}

/* Reads one space-separated field of hex digits (when hex) or any non-space
 * bytes; returns false when there is none. */
static int next_field(const uint8_t *line, size_t len, size_t *i, size_t *fs, size_t *fl)
{
	while (*i < len && line[*i] == ' ')
		(*i)++;
	*fs = *i;
	while (*i < len && line[*i] != ' ')
		(*i)++;
	*fl = *i - *fs;
	return *fl > 0;
}

static int all_hex(const uint8_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (ascii_hex_value(p[k]) < 0)
			return 0;
	}
	return 1;
}

enum policy_unix_status policy_parse_proc_net_unix_line(const uint8_t *line, size_t len,
							struct policy_span *path,
							int *listening)
{
	/* net/unix/af_unix.c unix_seq_show(): "%pK: %08X %08X %08X %04X %02X %5lu"
	 * then " path" when bound.  Num ends with ':'. */
	size_t i = 0, fs, fl;
	uint64_t flags = 0;

	if (!next_field(line, len, &i, &fs, &fl) || fl < 2 || line[fs + fl - 1] != ':' ||
	    !all_hex(line + fs, fl - 1))
		return POLICY_UNIX_MALFORMED;
	for (int f = 0; f < 5; f++) {
		if (!next_field(line, len, &i, &fs, &fl) || !all_hex(line + fs, fl) || fl > 16)
			return POLICY_UNIX_MALFORMED;
		if (f == 2) {
			flags = 0;
			for (size_t k = 0; k < fl; k++)
				flags = flags * 16 + (unsigned)ascii_hex_value(line[fs + k]);
		}
	}
	if (!next_field(line, len, &i, &fs, &fl))
		return POLICY_UNIX_MALFORMED;
	for (size_t k = 0; k < fl; k++) {
		if (line[fs + k] < '0' || line[fs + k] > '9')
			return POLICY_UNIX_MALFORMED;
	}
	*listening = (flags & 0x10000) != 0;
	if (i >= len)
		return POLICY_UNIX_NO_PATH;
	/* The path is the rest of the line after one space; it may itself
	 * contain spaces.  The kernel prints abstract names with '@'. */
	i++;
	if (i >= len || line[i] == '@')
		return POLICY_UNIX_NO_PATH;
	if (memchr(line + i, '\0', len - i))
		return POLICY_UNIX_MALFORMED;
	/* bind(2) to a relative name prints it as given ("rel.sock"): a valid
	 * line, but relative to the binder's cwd, so not a path porta can name. */
	if (line[i] != '/')
		return POLICY_UNIX_NO_PATH;
	path->p = line + i;
	path->n = len - i;
	return POLICY_UNIX_OK;
}

enum policy_gitfile_status policy_parse_gitfile(const uint8_t *buf, size_t len,
						struct policy_span *gitdir)
{
	static const char prefix[] = "gitdir: ";
	size_t pl = sizeof(prefix) - 1;

	if (len <= pl || memcmp(buf, prefix, pl) != 0)
		return POLICY_GITFILE_MALFORMED;
	/* Read it the way git's read_gitfile_gently() (setup.c) does, so that
	 * what porta protects is the directory git will use: every trailing
	 * '\n' and '\r' goes, and the path ends at the first NUL (git uses it
	 * as a C string).  A stricter reading would leave hooks unprotected
	 * behind a pointer git still follows. */
	size_t end = len;
	while (end > pl && (buf[end - 1] == '\n' || buf[end - 1] == '\r'))
		end--;
	const uint8_t *nul = memchr(buf + pl, '\0', end - pl);
	if (nul)
		end = (size_t)(nul - buf);
	if (end <= pl)
		return POLICY_GITFILE_MALFORMED;
	gitdir->p = buf + pl;
	gitdir->n = end - pl;
	return POLICY_GITFILE_OK;
}
