/* wire/resolvconf.c: see resolvconf.h. */
#include "wire/resolvconf.h"

#include <string.h>

static bool is_blank(uint8_t c)
{
	/* glibc splits on space and tab; a CR (a file edited elsewhere) would
	 * make glibc skip the line, porta reads past it */
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_token(uint8_t c)
{
	return !is_blank(c) && c != ';' && c != '#';
}

/* The address token of one line (without its LF), or false. */
static bool nameserver_line(struct wire_cursor *line, struct wire_span *addr)
{
	static const char kw[] = "nameserver";
	const uint8_t *w;
	uint8_t sep;

	if (!wire_take(line, sizeof(kw) - 1, &w) || memcmp(w, kw, sizeof(kw) - 1) != 0 ||
	    !wire_peek(line, &sep) || (sep != ' ' && sep != '\t'))
		return false;
	wire_take_while(line, is_blank, SIZE_MAX, NULL);
	return wire_take_while(line, is_token, SIZE_MAX, addr) > 0;
}

bool wire_resolvconf_nameserver(const uint8_t *conf, size_t len, size_t *pos,
				struct wire_span *addr)
{
	struct wire_cursor c = wire_whole(conf, len);
	struct wire_cursor line;
	size_t n;

	c.pos = *pos < len ? *pos : len;
	while (!wire_at_end(&c)) {
		if (!wire_find(&c, '\n', SIZE_MAX, &n))
			n = wire_left(&c);
		wire_sub(&c, n, &line);
		wire_skip(&c, wire_at_end(&c) ? 0 : 1); /* the LF */
		uint8_t first;
		if (wire_peek(&line, &first) && first != ';' && first != '#' &&
		    nameserver_line(&line, addr)) {
			*pos = c.pos;
			return true;
		}
	}
	*pos = len;
	return false;
}
