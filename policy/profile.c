/* policy/profile.c: profiles read into words and merged with the command
 * line (see profile.h). */
#include "policy/profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static enum policy_profile_status fail(char err[POLICY_ERR_MAX], unsigned line, const char *fmt,
				       ...) __attribute__((format(printf, 3, 4)));
static enum policy_profile_status fail(char err[POLICY_ERR_MAX], unsigned line, const char *fmt,
				       ...)
{
	va_list ap;
	int n = snprintf(err, POLICY_ERR_MAX, "line %u: ", line);
	va_start(ap, fmt);
	vsnprintf(err + n, POLICY_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	/* the message quotes the file's bytes: keep it one printable line */
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return POLICY_PROFILE_ERROR;
}

/* The words of one line being split: appended to out's text. */
struct splitter {
	struct policy_profile *out;
	const char *home;   /* what a leading ~ stands for, or NULL */
	size_t used;        /* bytes of out->text in use */
	size_t line_first;  /* out->n when the line began */
	bool in_word;
	unsigned line;
};

static bool put(struct splitter *s, char c)
{
	if (s->used + 1 >= sizeof(s->out->text))
		return false;
	if (!s->in_word) {
		if (s->out->n >= POLICY_PROFILE_WORDS_MAX)
			return false;
		s->out->word[s->out->n] = s->used;
		s->out->line[s->out->n] = s->line;
		s->out->n++;
		s->in_word = true;
	}
	s->out->text[s->used++] = c;
	return true;
}

/* Starts a word that may stay empty ('' or ""): a word exists once quoted. */
static bool open_word(struct splitter *s)
{
	if (s->in_word)
		return true;
	if (!put(s, 'x'))
		return false;
	s->used--; /* the word exists, with no byte yet */
	return true;
}

static void end_word(struct splitter *s)
{
	if (s->in_word) {
		s->out->text[s->used++] = '\0';
		s->in_word = false;
	}
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* Splits line[0..len) (no line end) into words appended to s->out. */
static enum policy_profile_status split_line(struct splitter *s, const uint8_t *line, size_t len,
					     char err[POLICY_ERR_MAX])
{
	size_t i = 0;
	while (i < len) {
		uint8_t c = line[i];
		if (c == '\0')
			return fail(err, s->line, "a NUL byte");
		if (c < 0x20 && c != '\t')
			return fail(err, s->line, "a control byte (0x%02x)", c);
		if (is_blank(c)) {
			end_word(s);
			i++;
			continue;
		}
		if (!s->in_word && c == '#')
			break; /* a comment to the end of the line */
		if (!s->in_word && c == '~') {
			/* ~ and ~/...: the home, as a shell has it; ~user is not */
			if (i + 1 < len && line[i + 1] != '/' && !is_blank(line[i + 1]))
				return fail(err, s->line,
					    "~%c...: only ~ and ~/ (porta's HOME) are expanded in a "
					    "profile; write the path in full",
					    line[i + 1]);
			if (!s->home)
				return fail(err, s->line, "a leading ~, and HOME is not set");
			if (!open_word(s))
				goto full;
			for (const char *h = s->home; *h; h++)
				if (!put(s, *h))
					goto full;
			i++;
			continue;
		}
		if (strchr(";&|<>()", c))
			return fail(err, s->line,
				    "'%c' outside quotes: a profile holds options, not shell commands", c);
		if (c == '$' || c == '`')
			return fail(err, s->line,
				    "'%c' outside single quotes: profiles expand nothing; quote it with '...'",
				    c);
		if (c == '\\') {
			if (i + 1 >= len)
				return fail(err, s->line,
					    "a backslash at the end of the line: one option per line, "
					    "no continuation");
			if (line[i + 1] == '\0' || (line[i + 1] < 0x20 && line[i + 1] != '\t'))
				return fail(err, s->line, "a control byte after a backslash");
			if (!put(s, (char)line[i + 1]))
				goto full;
			i += 2;
			continue;
		}
		if (c == '\'') {
			if (!open_word(s))
				goto full;
			size_t j = i + 1;
			while (j < len && line[j] != '\'') {
				if (line[j] == '\0' || (line[j] < 0x20 && line[j] != '\t'))
					return fail(err, s->line, "a control byte inside quotes");
				if (!put(s, (char)line[j]))
					goto full;
				j++;
			}
			if (j >= len)
				return fail(err, s->line, "a ' that is never closed");
			i = j + 1;
			continue;
		}
		if (c == '"') {
			if (!open_word(s))
				goto full;
			size_t j = i + 1;
			while (j < len && line[j] != '"') {
				uint8_t d = line[j];
				if (d == '\0' || (d < 0x20 && d != '\t'))
					return fail(err, s->line, "a control byte inside quotes");
				if (d == '$' || d == '`')
					return fail(err, s->line,
						    "'%c' inside \"...\": profiles expand nothing; quote it "
						    "with '...'",
						    d);
				if (d == '\\' && j + 1 < len && strchr("\"\\$`", line[j + 1])) {
					d = line[++j];
				}
				if (!put(s, (char)d))
					goto full;
				j++;
			}
			if (j >= len)
				return fail(err, s->line, "a \" that is never closed");
			i = j + 1;
			continue;
		}
		if (!put(s, (char)c))
			goto full;
		i++;
	}
	end_word(s);
	return POLICY_PROFILE_OK;
full:
	return fail(err, s->line, "the profile is too long (at most %d words, %d bytes)",
		    POLICY_PROFILE_WORDS_MAX, POLICY_PROFILE_BYTES_MAX);
}

/* The line's words are one option of `porta run`: checked by the parser
 * itself, so that a profile line means what it means typed. */
static enum policy_profile_status check_option(struct policy_profile *p, size_t first,
					       unsigned line, char err[POLICY_ERR_MAX])
{
	size_t n = p->n - first;
	const char *w0 = p->text + p->word[first];
	if (w0[0] != '-' || w0[1] == '\0' || strcmp(w0, "--") == 0)
		return fail(err, line, "'%.64s' is not an option: a profile holds options, one per "
				       "line, and no command",
			    w0);
	if ((size_t)policy_option_words(w0) != n)
		return fail(err, line, "%zu words where '%.64s' takes %d: one option per line", n, w0,
			    policy_option_words(w0));
	if (strcmp(w0, "--profile") == 0 || strncmp(w0, "--profile=", 10) == 0)
		return fail(err, line, "--profile inside a profile: profiles do not nest");
	if (strcmp(w0, "--allow-root") == 0)
		return fail(err, line, "--allow-root inside a profile: running as root is given on "
				       "the command line only");
	if (strcmp(w0, "--no-project") == 0)
		return fail(err, line, "--no-project inside a profile: whether the project file is "
				       "read is asked for on the command line only");
	/* the option alone: what only the whole set decides is checked once
	 * the profiles and the command line are merged (src/main.c) */
	char *words[2] = { (char *)w0, n == 2 ? p->text + p->word[first + 1] : NULL };
	char why[POLICY_ERR_MAX];
	if (policy_parse_option((int)n, words, why) != POLICY_PARSE_OK)
		return fail(err, line, "%s", why);
	return POLICY_PROFILE_OK;
}

enum policy_profile_status policy_profile_parse(const uint8_t *buf, size_t len,
						const char *home, struct policy_profile *out,
						char err[POLICY_ERR_MAX])
{
	struct splitter s = { .out = out, .home = home && home[0] == '/' ? home : NULL };
	out->n = 0;
	err[0] = '\0';
	if (len > POLICY_PROFILE_BYTES_MAX)
		return fail(err, 1, "the profile is too long (at most %d bytes)",
			    POLICY_PROFILE_BYTES_MAX);
	size_t pos = 0;
	while (pos < len) {
		const uint8_t *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t n = end - pos;
		if (n > 0 && buf[pos + n - 1] == '\r')
			n--;
		s.line++;
		s.line_first = out->n;
		if (split_line(&s, buf + pos, n, err) != POLICY_PROFILE_OK)
			return POLICY_PROFILE_ERROR;
		if (out->n > s.line_first &&
		    check_option(out, s.line_first, s.line, err) != POLICY_PROFILE_OK)
			return POLICY_PROFILE_ERROR;
		pos = end + 1;
	}
	out->used = s.used;
	return POLICY_PROFILE_OK;
}

/* The option names whose value is a path taken from the working directory. */
static bool path_option(const char *name, size_t n)
{
	static const char *const paths[] = { "mount", "deny-read", "allow-unix", "env-file",
					     "audit", "proxy-audit" };
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strlen(paths[i]) == n && memcmp(paths[i], name, n) == 0)
			return true;
	return false;
}

/* Replaces word i of p by prefix (the option part, may be "") + dir + "/"
 * + value, appended to p's text. */
static bool rewrite(struct policy_profile *p, size_t i, const char *prefix, size_t plen,
		    const char *dir, const char *value)
{
	size_t need = plen + strlen(dir) + 1 + strlen(value) + 1;
	if (p->used + need > sizeof(p->text))
		return false;
	/* prefix and value lie in p->text, before p->used: the pieces are
	 * copied one by one (snprintf(3) may not read what it writes into,
	 * and GCC cannot tell these regions apart) */
	char *w = p->text + p->used;
	size_t dlen = strlen(dir), vlen = strlen(value);
	memmove(w, prefix, plen);
	memcpy(w + plen, dir, dlen);
	w[plen + dlen] = '/';
	memmove(w + plen + dlen + 1, value, vlen);
	w[plen + dlen + 1 + vlen] = '\0';
	p->word[i] = p->used;
	p->used += need;
	return true;
}

bool policy_profile_anchor(struct policy_profile *p, const char *dir)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *w = p->text + p->word[i];
		int words = policy_option_words(w);
		if (w[0] == '-' && w[1] == '-') {
			const char *name = w + 2;
			const char *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			if (path_option(name, n)) {
				if (eq && eq[1] != '/' && eq[1] != '\0') {
					/* the value's copy first: rewrite() may move nothing,
					 * but w's bytes stay where they are */
					if (!rewrite(p, i, w, (size_t)(eq + 1 - w), dir, eq + 1))
						return false;
				} else if (!eq && words == 2 && i + 1 < p->n) {
					const char *v = p->text + p->word[i + 1];
					if (v[0] != '/' && v[0] != '\0' && !rewrite(p, i + 1, "", 0, dir, v))
						return false;
				}
			}
		} else if (w[0] == '-' && w[1] == 'v') {
			if (w[2] != '\0' && w[2] != '/') {
				if (!rewrite(p, i, "-v", 2, dir, w + 2))
					return false;
			} else if (w[2] == '\0' && i + 1 < p->n) {
				const char *v = p->text + p->word[i + 1];
				if (v[0] != '/' && v[0] != '\0' && !rewrite(p, i + 1, "", 0, dir, v))
					return false;
			}
		}
		i += (size_t)words - 1;
	}
	return true;
}

/* ---- merging ---------------------------------------------------------------- */

/* The option a word names, by its canonical long name, or NULL for a word
 * that is not an option; *single tells whether it takes one value only
 * (given again, the later one replaces it). */
static const char *option_key(const char *w, bool *single)
{
	const char *key = NULL;

	*single = false;
	if (w[0] != '-' || w[1] != '-')
		return NULL; /* short options (-v, -e, -q) are all repeatable */
	const char *name = w + 2;
	/* the options' own table says which take one value (policy/options.c) */
	*single = policy_option_single(name, strcspn(name, "="), &key);
	return *single ? key : NULL;
}

static bool same_key(const char *a, const char *b)
{
	bool sa, sb;
	const char *ka = option_key(a, &sa), *kb = option_key(b, &sb);
	return ka && kb && sa && sb && strcmp(ka, kb) == 0;
}

bool policy_profile_merge(int argc, char *const argv[], int cmd_index,
			  const struct policy_profile *const profiles[], size_t n_profiles,
			  char *out[], struct policy_origin origin[], size_t cap, int *out_argc)
{
	/* Every option in order, profiles first, then the command line's;
	 * the command after them. */
	size_t total = 0;
	for (size_t k = 0; k < n_profiles; k++)
		total += profiles[k]->n;
	total += (size_t)argc;
	if (total + 1 > cap || argc < 2)
		return false;

	/* out doubles as scratch: options are gathered, then copied down. */
	size_t n = 0;
	out[n] = argv[0];
	origin[n++] = (struct policy_origin){ -1, 0 };
	out[n] = argv[1];
	origin[n++] = (struct policy_origin){ -1, 0 };
	size_t opt_start = n;

	for (size_t k = 0; k < n_profiles; k++) {
		const struct policy_profile *p = profiles[k];
		for (size_t i = 0; i < p->n; i++) {
			out[n] = (char *)p->text + p->word[i];
			origin[n++] = (struct policy_origin){ (int)k, p->line[i] };
		}
	}
	int end = cmd_index;
	/* a "--" before the command is the command line's own: kept below */
	if (end > 2 && strcmp(argv[end - 1], "--") == 0)
		end--;
	for (int i = 2; i < end; i++) {
		int words = policy_option_words(argv[i]);
		if (strcmp(argv[i], "--profile") == 0 || strncmp(argv[i], "--profile=", 10) == 0) {
			i += words - 1;
			continue;
		}
		for (int j = 0; j < words && i + j < end; j++) {
			out[n] = argv[i + j];
			origin[n++] = (struct policy_origin){ -1, 0 };
		}
		i += words - 1;
	}
	size_t opt_end = n;

	/* Drop every single-valued option a later one replaces: walk the
	 * options, and keep one only if no later option has its key. */
	size_t w = opt_start;
	for (size_t i = opt_start; i < opt_end;) {
		int words = policy_option_words(out[i]);
		if (i + (size_t)words > opt_end)
			words = (int)(opt_end - i);
		bool replaced = false;
		for (size_t j = i + (size_t)words; j < opt_end && !replaced;) {
			if (same_key(out[i], out[j]))
				replaced = true;
			j += (size_t)policy_option_words(out[j]);
		}
		for (int k = 0; k < words && !replaced; k++) {
			out[w] = out[i + (size_t)k];
			origin[w++] = origin[i + (size_t)k];
		}
		i += (size_t)words;
	}
	n = w;
	if (cmd_index > 2 && strcmp(argv[cmd_index - 1], "--") == 0) {
		out[n] = argv[cmd_index - 1];
		origin[n++] = (struct policy_origin){ -1, 0 };
	}
	for (int i = cmd_index; i < argc; i++) {
		out[n] = argv[i];
		origin[n++] = (struct policy_origin){ -1, 0 };
	}
	out[n] = NULL;
	*out_argc = (int)n;
	return true;
}

bool policy_profile_names(int argc, char *const argv[], int cmd_index, const char *names[],
			  size_t cap, size_t *n)
{
	*n = 0;
	for (int i = 2; i < cmd_index && i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		const char *name = NULL;
		if (strcmp(a, "--profile") == 0 && i + 1 < argc)
			name = argv[i + 1];
		else if (strncmp(a, "--profile=", 10) == 0)
			name = a + 10;
		if (name) {
			if (*n >= cap)
				return false;
			names[(*n)++] = name;
		}
		i += policy_option_words(a) - 1;
	}
	return true;
}
