/* policy/gitconfig.c: see gitconfig.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "policy/gitconfig.h"

struct cursor {
	const char *s;
	size_t len, i, line;
};

static int peek(const struct cursor *c, size_t ahead)
{
	return c->i + ahead < c->len ? (unsigned char)c->s[c->i + ahead] : -1;
}

/* At the end of a line: "\n" or "\r\n" (git reads CRLF files alike). */
static size_t newline_at(const struct cursor *c)
{
	if (peek(c, 0) == '\n')
		return 1;
	if (peek(c, 0) == '\r' && peek(c, 1) == '\n')
		return 2;
	return 0;
}

static bool is_blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

static bool is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_name_char(int ch)
{
	return is_alpha(ch) || (ch >= '0' && ch <= '9') || ch == '-';
}

static char lower(int ch)
{
	return (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
}

static void skip_line(struct cursor *c)
{
	while (c->i < c->len && !newline_at(c))
		c->i++;
}

/* "[name]" or "[name "sub"]": *is_user when it is exactly [user]; false on
 * a header git would refuse. */
static bool header(struct cursor *c, bool *is_user)
{
	char name[8];
	size_t n = 0;
	bool sub = false;

	c->i++; /* '[' */
	while (is_name_char(peek(c, 0)) || peek(c, 0) == '.') {
		if (n < sizeof(name) - 1)
			name[n] = lower(peek(c, 0));
		n++;
		c->i++;
	}
	if (n == 0)
		return false;
	if (is_blank(peek(c, 0))) {
		while (is_blank(peek(c, 0)))
			c->i++;
		if (peek(c, 0) != '"')
			return false;
		c->i++;
		for (;;) {
			int ch = peek(c, 0);
			if (ch < 0 || ch == '\n' || ch == '\0')
				return false;
			c->i++;
			if (ch == '"')
				break;
			if (ch == '\\') {
				if (peek(c, 0) < 0 || peek(c, 0) == '\n' || peek(c, 0) == '\0')
					return false;
				c->i++;
			}
		}
		sub = true;
	}
	if (peek(c, 0) != ']')
		return false;
	c->i++;
	*is_user = !sub && n == 4 && memcmp(name, "user", 4) == 0;
	return true;
}

/* The value after '=', decoded into out; false where git would refuse it
 * (or it does not fit).  Stops before the line's end. */
static bool value(struct cursor *c, char *out, size_t cap)
{
	size_t n = 0, spaces = 0;
	bool quoted = false;

	while (is_blank(peek(c, 0)))
		c->i++;
	for (;;) {
		int ch = peek(c, 0);
		size_t nl = newline_at(c);
		char put;
		if (ch < 0 || nl) {
			if (quoted)
				return false;
			break;
		}
		if (ch == '\0')
			return false;
		if (!quoted && (ch == '#' || ch == ';')) {
			skip_line(c);
			break;
		}
		if (!quoted && is_blank(ch)) {
			spaces++;
			c->i++;
			continue;
		}
		c->i++;
		if (ch == '"') {
			quoted = !quoted;
			put = 0;
		} else if (ch == '\\') {
			struct cursor at = *c;
			size_t cont = newline_at(&at);
			if (cont) {
				c->i += cont;
				c->line++;
				continue;
			}
			switch (peek(c, 0)) {
			case 'n': put = '\n'; break;
			case 't': put = '\t'; break;
			case 'b': put = '\b'; break;
			case '"': put = '"'; break;
			case '\\': put = '\\'; break;
			default: return false;
			}
			c->i++;
		} else {
			put = (char)ch;
		}
		/* whitespace between parts of the value is kept */
		for (; spaces; spaces--) {
			if (n + 1 >= cap)
				return false;
			out[n++] = ' ';
		}
		if (!put)
			continue;
		if (n + 1 >= cap)
			return false;
		out[n++] = put;
	}
	out[n] = '\0';
	return true;
}

enum policy_gitcfg_status policy_gitconfig_user(const char *text, size_t len,
						 struct policy_gitcfg_var *out, size_t *n,
						 size_t cap, size_t *line)
{
	struct cursor c = { .s = text, .len = len, .line = 1 };
	bool in_section = false, in_user = false;

	for (;;) {
		while (is_blank(peek(&c, 0)))
			c.i++;
		*line = c.line;
		int ch = peek(&c, 0);
		size_t nl = newline_at(&c);
		if (ch < 0)
			return POLICY_GITCFG_OK;
		if (nl) {
			c.i += nl;
			c.line++;
			continue;
		}
		if (ch == '#' || ch == ';') {
			skip_line(&c);
			continue;
		}
		if (ch == '[') {
			if (!header(&c, &in_user))
				return POLICY_GITCFG_MALFORMED;
			in_section = true;
			continue; /* a variable may follow on the same line */
		}
		if (!is_alpha(ch) || !in_section)
			return POLICY_GITCFG_MALFORMED;
		char key[POLICY_GITCFG_KEY_MAX];
		size_t k = 0;
		while (is_name_char(peek(&c, 0))) {
			if (k + 1 >= sizeof(key))
				return POLICY_GITCFG_MALFORMED;
			key[k++] = lower(peek(&c, 0));
			c.i++;
		}
		key[k] = '\0';
		while (is_blank(peek(&c, 0)))
			c.i++;
		char val[POLICY_GITCFG_VALUE_MAX];
		if (peek(&c, 0) == '=') {
			c.i++;
			if (!value(&c, val, sizeof(val)))
				return POLICY_GITCFG_MALFORMED;
		} else if (peek(&c, 0) < 0 || newline_at(&c) || peek(&c, 0) == '#' ||
			   peek(&c, 0) == ';') {
			snprintf(val, sizeof(val), "true"); /* a name alone is true */
			skip_line(&c);
		} else {
			return POLICY_GITCFG_MALFORMED;
		}
		if (!in_user)
			continue;
		if (*n >= cap)
			return POLICY_GITCFG_TOO_MANY;
		memcpy(out[*n].key, key, k + 1);
		snprintf(out[*n].value, sizeof(out[*n].value), "%s", val);
		(*n)++;
	}
}

size_t policy_gitconfig_format(const struct policy_gitcfg_var *vars, size_t n, char *out,
			       size_t cap)
{
	size_t w = 0;
#define PUT(ch)                          \
	do {                             \
		if (w + 1 >= cap)        \
			goto full;       \
		out[w++] = (char)(ch);   \
	} while (0)

	if (cap == 0)
		return 0;
	for (const char *h = "[user]\n"; *h; h++)
		PUT(*h);
	for (size_t i = 0; i < n; i++) {
		PUT('\t');
		for (const char *k = vars[i].key; *k; k++)
			PUT(*k);
		for (const char *h = " = \""; *h; h++)
			PUT(*h);
		for (const char *v = vars[i].value; *v; v++) {
			switch (*v) {
			case '\n': PUT('\\'); PUT('n'); break;
			case '\t': PUT('\\'); PUT('t'); break;
			case '\b': PUT('\\'); PUT('b'); break;
			case '"': PUT('\\'); PUT('"'); break;
			case '\\': PUT('\\'); PUT('\\'); break;
			default: PUT(*v);
			}
		}
		PUT('"');
		PUT('\n');
	}
	out[w] = '\0';
	return w;
full:
	out[0] = '\0';
	return 0;
#undef PUT
}
